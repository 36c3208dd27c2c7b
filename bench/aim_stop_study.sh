#!/bin/bash
# AIM's adaptive estimator steps after each round (round_stop_fraction F:
# a round's warm-started estimate stops once a step lowers the loss by less
# than F times the change the round's measurement made; 0: every one of
# the round's steps): the workload error, estimator steps and time of each
# setting on the same rows, in one process a run (docs/learners/aim.md,
# "Adaptive estimator steps").
#
#   bench/aim_stop_study.sh [table ...]
#
# Tables (default: all): adult-e1 (UCI Adult, epsilon 1, delta 1e-6),
# synth48 and synth96 (bench_aim_width's tree-shaped rows, n = 10,000,
# rho 1), dna-r0.1 (mlbench DNA, rho 0.1).  The data files come from
# bench/aim_schedule_study.sh's exports (made here when missing).
#
# Environment: STOPS (default "0 0.001 0.01 0.1"), SEEDS (default "1 2"),
# WORK (default /tmp/aim_schedule_study), BIN (a bench_aim_width binary).
#
# Prints one line a run, then the means of each table and setting:
#   table seed stop err2 rounds steps cpu_seconds wall_seconds
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
STOPS=${STOPS:-"0 0.001 0.01 0.1"}
SEEDS=${SEEDS:-"1 2"}
WORK=${WORK:-/tmp/aim_schedule_study}
tables=("$@")
[ ${#tables[@]} -gt 0 ] || tables=(adult-e1 synth48 dna-r0.1 synth96)
if [ -z "${BIN:-}" ]; then
	make -s -C "$here" bench_aim_width
	BIN=$here/bench_aim_width
fi
# the exports only (a seed list of one space runs nothing)
WORK=$WORK SEEDS=" " BIN=$BIN "$here/aim_schedule_study.sh" adult-e1 dna-r0.1 >/dev/null

echo "# $(date -u +%FT%TZ) $(git -C "$here" rev-parse --short HEAD); $(uptime | sed 's/.*load/load/')"
echo "# table seed stop err2 rounds steps cpu_seconds wall_seconds"
for t in "${tables[@]}"; do
	case $t in
	adult-e1) args="--data $WORK/adult.npy --alphabets $(cat "$WORK/adult.alphabets") --epsilon 1 --delta 1e-6" ;;
	dna-r0.1) args="--data $WORK/dna.npy --alphabets $(cat "$WORK/dna.alphabets") --rho 0.1" ;;
	synth48) args="--p 48" ;;
	synth96) args="--p 96" ;;
	*) echo "unknown table $t" >&2; exit 2 ;;
	esac
	for s in $SEEDS; do
		for f in $STOPS; do
			# shellcheck disable=SC2086
			"$BIN" $args --seed "$s" --no-mst --stop "$f" |
				awk -v t="$t" -v s="$s" -v f="$f" '
					$1 == "aim" { e2 = $4; r = $3 }
					/^# aim: / { st = $3 }
					/^# aim threads/ { w = $6; c = $9 }
					END { printf "%s %s %s %s %s %s %s %s\n", t, s, f, e2, r, st, c, w }'
		done
	done
done | tee /dev/stderr | awk '
	{ k = $1 " " $3; n[k]++; e[k] += $4; st[k] += $6; c[k] += $7; w[k] += $8
	  if (!(k in seen)) { seen[k] = 1; order[++m] = k }
	  if ($3 == 0) { base_e[$1] += $4; base_c[$1] += $7; base_n[$1]++ } }
	END {
		print "# means: table stop err2 (vs stop 0) steps cpu_seconds (vs stop 0) wall_seconds"
		for (i = 1; i <= m; i++) {
			k = order[i]; split(k, a, " ")
			be = base_n[a[1]] ? base_e[a[1]] / base_n[a[1]] : 0
			bc = base_n[a[1]] ? base_c[a[1]] / base_n[a[1]] : 0
			printf "%s %s %.5f (%+.1f%%) %.0f %.2f (%.2fx) %.2f\n", a[1], a[2], e[k] / n[k],
				(be > 0 ? 100 * (e[k] / n[k] / be - 1) : 0), st[k] / n[k], c[k] / n[k],
				(bc > 0 ? c[k] / n[k] / bc : 0), w[k] / n[k]
		}
	}'
