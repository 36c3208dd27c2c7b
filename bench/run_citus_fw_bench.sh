#!/usr/bin/env bash
# Distributed Frank-Wolfe against the one-node learn (issue 13, item 3): on a
# throwaway cluster (test/citus/run_citus_tests.sh: coordinator + two
# workers on this machine, 4 shards), p binary variables and, for each n,
# the seconds of mrf_learn_ising_from on the distributed table with
# mrfdp.distributed_frank_wolfe = on (score sums on the shards) and off
# (rows gathered to the coordinator, learned there), and on a local copy;
# median of $REPS, T iterations (0: the learner's default, printed).  The
# three servers share this machine's cores, so the workers cannot add
# compute here: a poor proxy for a cluster.  Each line ends with the
# 1-minute load average when the line was done (other jobs share the
# machine).  Usage: run_citus_fw_bench.sh [p] [T[,T...]] [n ...]
# (default 50 10 10000 100000 1000000); several T are run on the same
# tables; DEFAULT_T_MAX_N skips T = 0 above that n (default: none).
# Honours MRFDP_DESTDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
p=${1:-50}
T=${2:-10}
shift 2 || true
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(10000 100000 1000000)
reps=${REPS:-3}
default_max=${DEFAULT_T_MAX_N:-}
. bench/citus_cluster.bash
t() {
	psql -X -q -At -v ON_ERROR_STOP=1 <<SQL | tail -n2
SET client_min_messages = warning;
SET mrfdp.test_seed = 1;
SET mrfdp.distributed_frank_wolfe = $1;
CREATE TEMP TABLE _t0 AS SELECT clock_timestamp() AS t;
CREATE TEMP TABLE _m AS SELECT mrf_learn_ising_from('$2', 'row', rho => 1, $iters variables => $p)::jsonb -> 'meta' AS m;
SELECT round(extract(epoch FROM clock_timestamp() - t)::numeric, 3) FROM _t0;
SELECT m ->> 'iterations' FROM _m;
SQL
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "p = $p, T = $T iterations (0: default), 4 shards on 2 workers (all on this machine), median of $reps, seconds"
echo "n distributed_on distributed_off local_table T load"
for n in "${ns[@]}"; do
	q "DROP TABLE IF EXISTS fw_dist, fw_local"
	q "CREATE TABLE fw_dist (id int, row boolean[])"
	q "SELECT create_distributed_table('fw_dist', 'id')" >/dev/null
	q "INSERT INTO fw_dist SELECT i, (SELECT array_agg(hashint8(i * 1000 + j) % 3 = 0 ORDER BY j) FROM generate_series(1, $p) j)
		FROM generate_series(1, $n) i"
	q "CREATE TABLE fw_local AS SELECT * FROM fw_dist"
	q "SELECT mrfdp.protect('fw_dist', epsilon => 1e6, delta => 1e-6)" >/dev/null
	q "SELECT mrfdp.protect('fw_local', epsilon => 1e6, delta => 1e-6)" >/dev/null
	q "SELECT mrfdp.grant_learning('fw_dist', 'postgres')" >/dev/null
	q "SELECT mrfdp.grant_learning('fw_local', 'postgres')" >/dev/null
	for Ti in ${T//,/ }; do
		if [ "$Ti" = 0 ] && [ -n "$default_max" ] && [ "$n" -gt "$default_max" ]; then continue; fi
		iters="iterations => $Ti,"
		[ "$Ti" != 0 ] || iters=""
		on=$(for _ in $(seq "$reps"); do t on fw_dist | head -n1; done | median)
		off=$(for _ in $(seq "$reps"); do t off fw_dist | head -n1; done | median)
		locs=$(for _ in $(seq "$reps"); do t off fw_local | paste -sd' '; done)
		loc=$(echo "$locs" | cut -d' ' -f1 | median)
		T_used=$(echo "$locs" | head -n1 | cut -d' ' -f2)
		echo "$n $on $off $loc $T_used $(cut -d' ' -f1 /proc/loadavg)"
	done
done
