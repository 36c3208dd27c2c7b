#!/usr/bin/env bash
# What the clique learner's Citus state sends and costs (issue 13, item 2):
# on a throwaway cluster (test/citus/run_citus_tests.sh: coordinator + two
# workers on this machine, 4 shards), n rows of 6 ternary variables; prints
# the bytes of the partial states the workers send (the text of
# worker_partial_agg over each shard, summed) and the seconds of the
# distributed and the local learn (median of $REPS).  Run it with a build
# whose clique state is packed rows and with one whose state is counts to
# compare; also MST (its one- and two-way tables) and AIM (its candidates'
# tables), AIM against its rows gathered to the coordinator (a MATERIALIZED
# CTE: what happened before AIM had a counts state).
# Usage: run_citus_counts_bench.sh [n] (default 1000000).
# Honours MRFDP_DESTDIR like the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
n=${1:-1000000}
reps=${REPS:-3}
. bench/citus_cluster.bash
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

opts="mrf_options(epsilon => 1, k => 3, method => 'naive', cliques => '[[1,2],[2,3],[3,4],[4,5],[5,6]]')"
q "CREATE TABLE k_dist (id int, kr int[])"
q "SELECT create_distributed_table('k_dist', 'id')" >/dev/null
q "INSERT INTO k_dist SELECT i, (SELECT array_agg(abs(hashint8(i * 1000 + j)) % 3 ORDER BY j) FROM generate_series(1, 6) j)
	FROM generate_series(1, $n) i"
q "CREATE TABLE k_local AS SELECT * FROM k_dist"
echo "n = $n, p = 6, k = 3, 5 cliques (45 cells), 4 shards on 2 workers, median of $reps"
echo "bytes sent by the workers: $(q "SELECT sum(result::bigint) FROM run_command_on_shards('k_dist',
	\$\$SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_cliques_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, $opts)::record)::text) FROM %s\$\$)")"
measure "cliques naive distributed" "SELECT mrf_learn_cliques_agg(kr, $opts) FROM k_dist"
measure "cliques naive local" "SELECT mrf_learn_cliques_agg(kr, $opts) FROM k_local"

# MST (issue 13, item 2): its state is every one-way and two-way table
# (6 x 3 + 15 x 9 = 153 cells), whatever n.
mopts="mrf_options(rho => 1, k => 3)"
echo "MST: bytes sent by the workers: $(q "SELECT sum(result::bigint) FROM run_command_on_shards('k_dist',
	\$\$SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, $mopts)::record)::text) FROM %s\$\$)") (packed rows as hex would be $((2 * n * 6)) plus headers)"
measure "MST distributed" "SELECT mrf_learn_mst_agg(kr, $mopts) FROM k_dist"
measure "MST local" "SELECT mrf_learn_mst_agg(kr, $mopts) FROM k_local"

# AIM (issue 13, item 2): its state is every one-way, pair and triple table
# for the default workload (6 x 3 + 15 x 9 + 20 x 27 = 693 cells), whatever
# n; against the rows gathered as tuples (a MATERIALIZED CTE keeps the
# learner off the Citus scan, as before the counts state).
aopts="mrf_options(rho => 1, k => 3)"
echo "AIM: bytes sent by the workers: $(q "SELECT sum(result::bigint) FROM run_command_on_shards('k_dist',
	\$\$SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, $aopts)::record)::text) FROM %s\$\$)") (rows gathered: $(q "SELECT sum(length(kr::text)) FROM k_local") bytes of array text; packed rows as hex would be $((2 * n * 6)))"
measure "AIM distributed (counts)" "SELECT mrf_learn_aim_agg(kr, $aopts) FROM k_dist"
measure "AIM gathered rows" "WITH r AS MATERIALIZED (SELECT kr FROM k_dist) SELECT mrf_learn_aim_agg(kr, $aopts) FROM r"
measure "AIM local" "SELECT mrf_learn_aim_agg(kr, $aopts) FROM k_local"
