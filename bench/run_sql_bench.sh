#!/usr/bin/env bash
# Builds and installs mrfdp, starts a throwaway cluster, runs bench_sql.py.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
exec pg_virtualenv -t -o session_preload_libraries=mrfdp -o shared_buffers=1GB \
	/usr/bin/python3 bench/bench_sql.py "$@"
