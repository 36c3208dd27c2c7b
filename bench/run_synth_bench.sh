#!/usr/bin/env bash
# Synthesis speed: mrf_synthesize_into of N rows (default 1,000,000) of a
# 20-column MST model against CREATE TABLE AS of N random rows of the same
# types, and mrf_sample's rows per second against a NumPy ancestral sampler
# of the same tree; ratios measured in the same run (bench/synth_bench.py).
# Builds and installs mrfdp (MRFDP_DESTDIR: a staged install) and starts a
# throwaway cluster.  Usage: bench/run_synth_bench.sh [N] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
./scripts/install-deps.sh
./scripts/build.sh
. scripts/pg_options.sh
exec pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp -o shared_buffers=1GB \
	/usr/bin/python3 bench/synth_bench.py "$@"
