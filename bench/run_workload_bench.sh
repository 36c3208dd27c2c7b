#!/usr/bin/env bash
# Workload error of MST and its baselines (issue 12, docs/learners/mst.md "MST"): the mean
# L1 error over every two- and three-way marginal (mrf_marginal_error) at
# rho 0.1, 1 and 10 on HouseVotes84 and a synthetic 100,000-row table of
# known structure, medians over RELEASES releases, in a throwaway cluster
# (bench/workload_bench.py says what each row is).  With MRFDP_DESTDIR
# set, runs against that staged install (scripts/pg_options.sh).
#   bench/run_workload_bench.sh [RELEASES (3)] [OUT_DIR (/tmp/workload_bench)] [TABLES ("housevotes synthetic")]
# README: 21 releases on housevotes, 3 on synthetic (two runs).
# Needs python3-numpy and python3-psycopg2 (scripts/install-deps.sh) and,
# for HouseVotes84, R with mlbench (scripts/housevotes.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
releases=${1:-3}
out=${2:-/tmp/workload_bench}
tables=${3:-housevotes synthetic}
mkdir -p "$out"
case " $tables " in
	*" housevotes "*) [ -s /tmp/housevotes84.csv ] || scripts/housevotes.sh /tmp/housevotes84.csv ;;
esac
if [ -n "${MRFDP_DESTDIR:-}" ]; then
	. scripts/pg_options.sh
else
	./scripts/build.sh
	PG_STAGED=()
fi
export releases out tables
pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp -o shared_buffers=512MB \
	-o work_mem=256MB sh -c '
	set -e
	createdb b
	psql -X -q -d b -c "CREATE EXTENSION mrfdp"
	for t in $tables; do
		if [ "$t" = housevotes ]; then
			psql -X -q -d b -v csv=/tmp/housevotes84.csv -f scripts/housevotes_load.sql
		fi
		/usr/bin/python3 bench/workload_bench.py --db b --table "$t" --releases "$releases" \
			--json "$out/$t.json" >"$out/$t.md"
	done'
uptime
for t in $tables; do
	cat "$out/$t.md"
	echo
done
