#!/usr/bin/env bash
# Local vs distributed on a throwaway Citus cluster (coordinator + two
# workers on this machine, test/citus/run_citus_tests.sh): ingest, Ising
# (2 Frank-Wolfe iterations: the cost of getting the rows to the learner),
# cliques and structure.  Prints one line per measurement (seconds, median
# of $REPS runs; SKIP_STRUCTURE=1 leaves structure out).  Usage:
# run_citus_bench.sh [n] [p] (default 200000 50).
# Honours MRFDP_DESTDIR like the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
n=${1:-200000}
p=${2:-50}
reps=${REPS:-3}
. bench/citus_cluster.bash

# seconds of one statement, measured on the server
t() {
	psql -X -q -At -v ON_ERROR_STOP=1 <<SQL | tail -n1
SET client_min_messages = warning;
SET mrfdp.test_seed = 1;
CREATE TEMP TABLE _t0 AS SELECT clock_timestamp() AS t;
$1;
SELECT round(extract(epoch FROM clock_timestamp() - t)::numeric, 3) FROM _t0;
SQL
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {
	local label=$1 sql=$2
	for _ in $(seq "$reps"); do t "$sql"; done | median | sed "s/^/$label: /"
}

rows="SELECT i, (SELECT array_agg(((hashint8(i * 1000 + j) % 2) = 0) ORDER BY j) FROM generate_series(1, $p) j) AS row,
	(SELECT array_agg(abs(hashint8(i * 1000 + j)) % 3 ORDER BY j) FROM generate_series(1, 6) j) AS kr
	FROM generate_series(1, $n) i"
q "CREATE TABLE b_local (id int, row boolean[], kr int[])"
q "CREATE TABLE b_dist (id int, row boolean[], kr int[])"
q "SELECT create_distributed_table('b_dist', 'id')" >/dev/null
echo "n = $n, p = $p, 4 shards on 2 workers, median of $reps"
echo "ingest local: $(t "INSERT INTO b_local $rows")"
echo "ingest distributed: $(t "INSERT INTO b_dist $rows")"
q "VACUUM ANALYZE b_local"
for tbl in b_local b_dist; do
	measure "ising T=2 $tbl" "SELECT mrf_learn_ising(row, rho => 1, iterations => 2) FROM $tbl"
	measure "ising T=2 aggregate form $tbl" "SELECT mrf_learn_ising_agg(row, mrf_options(rho => 1, iterations => 2)) FROM $tbl"
	measure "cliques naive $tbl" "SELECT mrf_learn_cliques(kr, epsilon => 1, k => 3, cliques => '[[1,2],[2,3],[3,4],[4,5],[5,6]]') FROM $tbl"
	[ -n "${SKIP_STRUCTURE:-}" ] ||
		measure "structure p=$p $tbl" "SELECT mrf_learn_structure(row, epsilon => 1, delta => 1e-6, eta => 0.5) FROM $tbl"
done
