#!/usr/bin/env bash
# The demo: on a fresh Debian 12 machine as root, installs what mrfdp needs,
# builds it, starts a throwaway PostgreSQL, samples 20,000 rows from a known
# 10-variable chain Ising model, learns it privately and prints its edges.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
exec pg_virtualenv -t -o session_preload_libraries=mrfdp \
	psql -X -v ON_ERROR_STOP=1 -f scripts/demo.sql
