#!/usr/bin/env bash
# Synthetic tables of one MST model by mrfdp's two methods ('sample',
# 'allocate') and private-pgm's synthetic_data(), on UCI Adult and mlbench
# Soybean, with one evaluator (mean L1 over all 2- and 3-way marginals) and
# the model's own exact error as the floor (bench/synth_vs_pgm.py).
# Needs a private-pgm checkout (its src/ and data/; commit 514dea3 was
# measured): PRIVATE_PGM=/path/to/private-pgm, R with r-cran-mlbench, and
# Debian's python3-numpy, -pandas, -scipy, -networkx, -attr, -psycopg2.
# Builds and installs mrfdp (MRFDP_DESTDIR: a staged install) and starts a
# throwaway cluster.  Usage: PRIVATE_PGM=... bench/synth_vs_pgm.sh [rho] [seeds] [mst|aim]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PRIVATE_PGM:?PRIVATE_PGM names a private-pgm checkout (git archive 514dea3 of its repository)}"
export PATH=/usr/lib/postgresql/15/bin:$PATH
./scripts/build.sh
. scripts/pg_options.sh
exec pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp \
	/usr/bin/python3 bench/synth_vs_pgm.py "$PRIVATE_PGM" "${1:-1}" "${2:-3}" "${3:-mst}"
