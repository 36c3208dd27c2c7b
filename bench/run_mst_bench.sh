#!/usr/bin/env bash
# MST's time figure (issue 12, README "mrf_learn_mst"): one release on
# 1,000,000 rows x 20 enum columns (alphabets 2, 3, 4, 6) against a plain
# GROUP BY GROUPING SETS of the same one- and two-way counts, three releases
# and two GROUP BYs, in a throwaway cluster.  With MRFDP_DESTDIR set, runs
# against that staged install (scripts/pg_options.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${MRFDP_DESTDIR:-}" ]; then
	. scripts/pg_options.sh
else
	./scripts/build.sh
	PG_STAGED=()
fi
exec pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp -o shared_buffers=1GB \
	sh -c 'createdb b && psql -X -q -d b -c "CREATE EXTENSION mrfdp" && psql -X -d b -f bench/bench_mst.sql'
