#!/usr/bin/env bash
# Builds and installs the extension into the system PostgreSQL 15.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config -j"$(nproc)"
make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install >/dev/null
