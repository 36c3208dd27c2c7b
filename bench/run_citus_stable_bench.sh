#!/usr/bin/env bash
# The stable mode's blocks cut on the shards against the gathered stable
# mode (issue 13, item 3; docs/privacy.md 7.3): on a throwaway cluster
# (test/citus/run_citus_tests.sh: coordinator + two workers on this
# machine, 4 shards), rows sampled exactly from a known Ising model (a
# chain of p variables, coupling 0.5, or a 3 x 3 grid, couplings +-0.4),
# and for each n: mrf_learn_structure_from with
# mrfdp.distributed_stable_blocks = on (blocks per shard, per-shard
# calibration: noise 4/epsilon, its tau) and off (rows gathered, one-node
# calibration), $SEEDS releases each; per mode the releases that gave
# exactly the true graph, the NULL releases, the mean number of wrong
# edges (missing + extra) over the non-NULL ones, and the median seconds.
# The three servers share this machine's cores: times are a poor proxy for
# a cluster.  Usage: run_citus_stable_bench.sh [chain|grid] [epsilon] [n ...]
# (default chain 1 25000 50000 100000).  Honours MRFDP_DESTDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
model=${1:-chain}
eps=${2:-1}
shift 2 || true
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(25000 50000 100000)
seeds=${SEEDS:-5}
. bench/citus_cluster.bash
if [ "$model" = grid ]; then
	p=9; eta=0.4; lambda=1.6
	truth="mrf_ising(ARRAY[[0,.4,0,.4,0,0,0,0,0],[.4,0,-.4,0,-.4,0,0,0,0],[0,-.4,0,0,0,.4,0,0,0],[.4,0,0,0,.4,0,.4,0,0],[0,-.4,0,.4,0,-.4,0,-.4,0],[0,0,.4,0,-.4,0,0,0,.4],[0,0,0,.4,0,0,0,.4,0],[0,0,0,0,-.4,0,.4,0,-.4],[0,0,0,0,0,.4,0,-.4,0]]::float8[])"
else
	p=10; eta=0.5; lambda=1
	truth="mrf_ising((SELECT array_agg(r ORDER BY i) FROM (SELECT i, array_agg(CASE WHEN abs(i - j) = 1 THEN 0.5 ELSE 0 END::float8 ORDER BY j) r FROM generate_series(1, 10) i, generate_series(1, 10) j GROUP BY i) x))"
fi
q "CREATE TABLE bench_truth AS SELECT $truth AS m"
q "CREATE FUNCTION bench_graph(m mrf) RETURNS text LANGUAGE sql AS \$\$SELECT coalesce(string_agg(i || '-' || j, ' ' ORDER BY i, j), '') FROM mrf_edges(m, 0)\$\$"
q "CREATE FUNCTION bench_wrong(m mrf) RETURNS int LANGUAGE sql AS \$\$
	SELECT count(*)::int FROM ((SELECT i, j FROM mrf_edges(m, 0) EXCEPT SELECT i, j FROM mrf_edges((SELECT m FROM bench_truth), 0))
		UNION ALL (SELECT i, j FROM mrf_edges((SELECT m FROM bench_truth), 0) EXCEPT SELECT i, j FROM mrf_edges(m, 0))) d\$\$"
q "CREATE TABLE bench_out (n int, mode text, seed int, graph text, wrong int, secs numeric)"
run() {
	psql -X -q -At -v ON_ERROR_STOP=1 <<SQL >/dev/null
SET client_min_messages = warning;
SET mrfdp.test_seed = $4;
SET mrfdp.distributed_stable_blocks = $2;
CREATE TEMP TABLE _t0 AS SELECT clock_timestamp() AS t;
CREATE TEMP TABLE _m AS SELECT mrf_learn_structure_from('sb_dist', 'row', epsilon => $eps, delta => 1e-6, eta => $eta, lambda => $lambda, variables => $p) AS m;
INSERT INTO bench_out SELECT $1, '$2', $4, CASE WHEN m IS NULL THEN NULL ELSE bench_graph(m) END, CASE WHEN m IS NULL THEN NULL ELSE bench_wrong(m) END,
	round(extract(epoch FROM clock_timestamp() - (SELECT t FROM _t0))::numeric, 3) FROM _m;
SQL
}
echo "$model (p = $p), epsilon = $eps, delta = 1e-6, eta = $eta, lambda = $lambda; 4 shards on 2 workers (all on this machine), $seeds releases per cell"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${ns[@]}"; do
	q "DROP TABLE IF EXISTS sb_dist"
	q "CREATE TABLE sb_dist (id int, row integer[])"
	q "SELECT create_distributed_table('sb_dist', 'id')" >/dev/null
	q "INSERT INTO sb_dist SELECT g::int, x FROM mrf_sample((SELECT m FROM bench_truth), $n, seed => $n) WITH ORDINALITY s(x, g)"
	q "SELECT mrfdp.protect('sb_dist', epsilon => 1e6, delta => 0.5)" >/dev/null
	q "SELECT mrfdp.grant_learning('sb_dist', 'postgres')" >/dev/null
	for s in $(seq 1 "$seeds"); do
		run "$n" on x "$s"
		run "$n" off x "$s"
	done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
psql -X -q -v ON_ERROR_STOP=1 -c "
SELECT n, mode, count(*) FILTER (WHERE graph = (SELECT bench_graph(m) FROM bench_truth)) AS exact,
	count(*) FILTER (WHERE graph IS NULL) AS null_releases, round(avg(wrong), 2) AS mean_wrong_edges,
	percentile_disc(0.5) WITHIN GROUP (ORDER BY secs) AS median_s
FROM bench_out GROUP BY n, mode ORDER BY n, mode DESC"
