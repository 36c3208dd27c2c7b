#!/usr/bin/env bash
# End to end through SQL against COPY + NumPy (bench_e2e.py) on a throwaway
# cluster with the staged build: bench/run_e2e_bench.sh [--iterations T] [--runs R]
set -euo pipefail
cd "$(dirname "$0")/.."
export MRFDP_DESTDIR=${MRFDP_DESTDIR:-/tmp/dest-bench}
./scripts/build.sh >/dev/null
. scripts/pg_options.sh
exec pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp \
	/usr/bin/python3 bench/bench_e2e.py "$@"
