#!/usr/bin/env bash
# Builds and installs the extension into the system PostgreSQL 15, or, with
# MRFDP_DESTDIR set, into that staging directory only (see scripts/pg_options.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config -j"$(nproc)"
if [ -n "${MRFDP_DESTDIR:-}" ]; then
	rm -rf "$MRFDP_DESTDIR"
	make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install DESTDIR="$MRFDP_DESTDIR" >/dev/null
else
	make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install >/dev/null
fi
