#!/bin/sh
# Accuracy of the pairwise learner under the per-regression budget
# rho / (p k) (privacy.c, MrfPairwiseProblemRho; issue 10 item 4) against
# the split it replaced, rho / (k^2 p).  The old split is reproduced exactly
# by the new code at rho / k: same per-regression budget, hence the same
# default T and the same noise.  Each seed samples a model (chain of cyclic
# blocks or random sparse graph, width at most 0.9 lambda; bench_pairwise.c
# BuildModel), draws n rows from it and releases once under each split with
# the same generator state (paired).  Prints one row per (model, k): the
# median over seeds of the largest error of W under each split and the
# median of the per-seed ratio new / old.
#
#   nice bench/run_pairwise_split.sh [seeds] [p] [n] [rho]
set -eu
cd "$(dirname "$0")"
SEEDS=${1:-5}
P=${2:-5}
N=${3:-10000}
RHO=${4:-1}
make -s bench_pairwise >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "| model | k | p | n | rho | T new / old | max error W, rho/(k^2 p) | max error W, rho/(p k) | median ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for model in chain sparse; do
	for k in 3 4 8; do
		: > "$OUT/rows"
		s=1
		while [ "$s" -le "$SEEDS" ]; do
			old_rho=$(awk -v r="$RHO" -v k="$k" 'BEGIN { printf "%.17g", r / k }')
			./bench_pairwise --p "$P" --k "$k" --n "$N" --rho "$RHO" --lambda 1 \
				--model "$model" --seed "$s" --skip-floor > "$OUT/new"
			./bench_pairwise --p "$P" --k "$k" --n "$N" --rho "$old_rho" --lambda 1 \
				--model "$model" --seed "$s" --skip-floor > "$OUT/old"
			awk '/^max_abs_error_W:/ { e = $2 } /^iterations:/ { t = $2 } END { printf "%s %s ", e, t }' "$OUT/old" >> "$OUT/rows"
			awk '/^max_abs_error_W:/ { e = $2 } /^iterations:/ { t = $2 } END { printf "%s %s\n", e, t }' "$OUT/new" >> "$OUT/rows"
			s=$((s + 1))
		done
		python3 - "$OUT/rows" "$model" "$k" "$P" "$N" "$RHO" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
model, k, p, n, rho = sys.argv[2:7]
old = statistics.median(r[0] for r in rows)
new = statistics.median(r[2] for r in rows)
ratio = statistics.median(r[2] / r[0] for r in rows)
print(f"| {model} | {k} | {p} | {n} | {rho} | {int(rows[0][3])} / {int(rows[0][1])} | "
      f"{old:.3f} | {new:.3f} | {ratio:.2f} |")
PY
	done
done
