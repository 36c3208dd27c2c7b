#!/usr/bin/env bash
# The study behind mrf_learn_mst's default number of mirror-descent steps
# (docs/learners/mst.md, "MST: how many estimation steps"): bench_mst_estimators fits the
# same private measurements (same seed: same data, same noise, same tree)
# with each step count, on trees of p = 8, k = 3 and p = 10, k = 4, at n in
# 1e3, 1e4, 1e5 and rho in 0.01, 0.1, 1.  Prints, per (p, k, n, rho), the
# mirror-descent KL(truth || model) and largest pair-marginal error for each
# step count, then their geometric means over the cells.
#   bench/run_mst_iterations_study.sh [reps]   (default 10)
# With sql as the first argument, the product's own measure instead: the
# workload error (mean L1 over every 2- and 3-way marginal, by
# mrf_marginal_error) of mrf_learn_mst with 50, 200, 1000 and 3000 steps on
# HouseVotes84 and workload_bench.py's synthetic table, in a throwaway
# cluster (MRFDP_DESTDIR: a staged install, as run_workload_bench.sh):
#   bench/run_mst_iterations_study.sh sql [releases]   (default 5)
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = sql ]; then
	releases=${2:-5}
	cd ..
	[ -s /tmp/housevotes84.csv ] || scripts/housevotes.sh /tmp/housevotes84.csv
	if [ -n "${MRFDP_DESTDIR:-}" ]; then
		. scripts/pg_options.sh
	else
		./scripts/build.sh
		PG_STAGED=()
	fi
	export releases
	exec pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp -o shared_buffers=512MB \
		-o work_mem=256MB sh -c '
		set -e
		createdb b
		psql -X -q -d b -c "CREATE EXTENSION mrfdp"
		psql -X -q -d b -v csv=/tmp/housevotes84.csv -f scripts/housevotes_load.sql
		cd bench
		for t in housevotes synthetic; do
			/usr/bin/python3 mst_iterations_sql.py --steps 50,200,1000,3000 --db b --table $t \
				--releases "$releases" --json /tmp/mst_iterations_$t.json | grep -v "^#"
		done'
fi
reps=${1:-10}
make -s bench_mst_estimators >/dev/null
steps="50 100 200 500 1000 2000"
out=$(mktemp -d)
for pk in "8 3" "10 4"; do
	set -- $pk
	for t in $steps; do
		./bench_mst_estimators --p "$1" --k "$2" --reps "$reps" --iterations "$t" |
			awk -v p="$1" -v k="$2" -v t="$t" -F'|' \
				'$2 ~ /^ *[0-9]+ *$/ { split($7, m, "/"); gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4);
				  printf "%s %s %s %s %s %s %s\n", p, k, $2, $3, t, $4, m[1] + 0 }' >>"$out/rows"
	done
done
python3 - "$out/rows" "$steps" <<'PY'
import math, sys
from collections import defaultdict
rows = [l.split() for l in open(sys.argv[1])]
steps = sys.argv[2].split()
cells = defaultdict(dict)
for p, k, n, rho, t, kl, me in rows:
    cells[(int(p), int(k), int(n), float(rho))][t] = (float(kl), float(me))
print("| p, k | n | rho | " + " | ".join(f"KL / max pair error, {t} steps" for t in steps) + " |")
print("|---|---|---|" + "---:|" * len(steps))
for key in sorted(cells):
    p, k, n, rho = key
    print(f"| {p}, {k} | {n} | {rho:g} | " +
          " | ".join("%.4g / %.3f" % cells[key][t] for t in steps) + " |")
def gm(vals):
    return math.exp(sum(math.log(v) for v in vals) / len(vals))
print("| geometric mean over the cells | | | " + " | ".join(
    "%.4g / %.4f" % (gm([c[t][0] for c in cells.values()]), gm([max(c[t][1], 1e-4) for c in cells.values()]))
    for t in steps) + " |")
PY
rm -rf "$out"
