#!/bin/bash
# AIM's budget schedule against MST on every benchmark table of AIM's
# quality study (docs/learners/aim.md, "AIM's schedule"): the 2-way error
# (mean L1 over every pair of columns; 3-way too where cheap) of AIM and
# MST on the same rows, in the same bench_aim_width process.
#
#   bench/aim_schedule_study.sh [table ...]
#
# Tables (default: all): adult-e1 adult-e10 adult-r0.2 adult9-r0.1
# adult9-r1 soybean-e1 soybean-e10 synth48-e1 synth48-e10 synth96-e1
# synth96-e10 dna-r0.1 small16 small48; on request also housevotes-r0.1
# housevotes-r1 breastcancer-r0.1 breastcancer-r1 soybean-r0.1 soybean-r1
# dna-r1 (the tables of the small alphabets' study, with AIM_ARGS="--schedule paper"),
# and the middle signals' study's: adult-r0.05 adult-r0.01 adult9-r0.01
# adult9-r0.003 breastcancer-r3 breastcancer-r10 housevotes-r3
# housevotes-r10 soybean-r10 synth48-r0.5 synth24-n5000 (24 columns,
# n = 5,000, rho 0.05) small16-r0.5 small16-r2 small48-r1.
#   adult    UCI Adult as private-pgm ships it (48,842 rows, 14 columns)
#   adult9   its nine columns of at most 42 values (bench/aim_vs_pgm.sh's)
#   soybean  mlbench Soybean (683 rows, 36 columns; a missing value is
#            one more level of its column)
#   dna      mlbench DNA (3,186 rows, 181 columns), rho 0.1
#   housevotes, breastcancer  mlbench HouseVotes84 (435 rows, 17 columns)
#            and BreastCancer (699 rows, 10 columns, Id dropped), as
#            bench/aim_vs_pgm.sh exports them
#   synthP   bench_aim_width's tree-shaped rows, P columns, n = 10,000
#   smallP   the same at n = 1,000, rho 0.1
# -e1 / -e10: epsilon 1 / 10 at delta 1e-6, converted to rho with the
# project's own conversion (MrfZcdpForDp, as the SQL learners do: rho
# 0.02436 and 1.539); -rR: rho R.
#
# Environment: SEEDS (default "1 2 3"), AIM_ARGS (more bench_aim_width
# arguments, e.g. "--schedule paper" for [MMSM22]'s schedule), THREE=1 for
# the 3-way error too (slow on DNA and 96 columns), PGM (a private-pgm
# checkout for Adult; exported from PGM_MIRROR at 514dea3 when missing),
# WORK (where the exported tables go), BIN (a bench_aim_width binary to
# run instead of building this tree's).
#
# Prints one line a run:
#   table seed rho mst_err2 aim_err2 ratio mst_err3 aim_err3 aim_rounds aim_seconds signal schedule
# (signal: the automatic schedule's n / sigma, privacy.c MrfAimScheduleSignal;
# schedule: the one run, mst-seeded or mmsm22 as the metadata says)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SEEDS=${SEEDS:-"1 2 3"}
AIM_ARGS=${AIM_ARGS:-}
THREE=${THREE:-0}
PGM_MIRROR=${PGM_MIRROR:-/work/.mirror/ryan112358+private-pgm/repo}
PGM=${PGM:-/tmp/pgm-514dea3}
WORK=${WORK:-/tmp/aim_schedule_study}
py=/usr/bin/python3
tables=("$@")
[ ${#tables[@]} -gt 0 ] || tables=(adult-e1 adult-e10 adult-r0.2 adult9-r0.1 adult9-r1
	soybean-e1 soybean-e10 synth48-e1 synth48-e10 synth96-e1 synth96-e10 dna-r0.1 small16 small48)
mkdir -p "$WORK"
if [ -z "${BIN:-}" ]; then
	make -s -C "$here" bench_aim_width
	BIN=$here/bench_aim_width
fi

# mlbench's factors as codes 0..k-1 (a missing value: code k, one more level)
export_mlbench() {
	local name=$1 out=$2
	Rscript -e "library(mlbench); data($name); write.csv($name, '$WORK/$name.csv', row.names = FALSE, na = '')" >/dev/null
	$py - "$WORK/$name.csv" "$out" <<'EOF'
import sys
import numpy as np
import pandas as pd
raw = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
cols, sizes = [], []
for c in raw.columns:
    levels = sorted(v for v in raw[c].unique() if v != "")
    code = {v: i for i, v in enumerate(levels)}
    k = len(levels) + (1 if (raw[c] == "").any() else 0)
    cols.append([code[v] if v != "" else len(levels) for v in raw[c]])
    sizes.append(max(k, 2))
np.save(sys.argv[2], np.array(cols, dtype=np.uint8).T.copy())
print(",".join(map(str, sizes)))
EOF
}

data_args() {
	case $1 in
	adult|adult9|housevotes|breastcancer)
		if [ ! -f "$WORK/$1.npy" ]; then
			if [ ! -f "$PGM/mechanisms/aim.py" ]; then
				mkdir -p "$PGM"
				git --git-dir="$PGM_MIRROR" archive 514dea3 | tar -x -C "$PGM"
			fi
			$py "$here/aim_vs_pgm.py" export "$PGM" "$1" "$WORK" > "$WORK/$1.alphabets"
		fi
		echo "--data $WORK/$1.npy --alphabets $(cat "$WORK/$1.alphabets")" ;;
	soybean|dna)
		local R=Soybean
		[ "$1" = dna ] && R=DNA
		if [ ! -f "$WORK/$1.npy" ]; then
			export_mlbench "$R" "$WORK/$1.npy" > "$WORK/$1.alphabets"
		fi
		echo "--data $WORK/$1.npy --alphabets $(cat "$WORK/$1.alphabets")" ;;
	esac
}

echo "# $(date -u +%FT%TZ) $(git -C "$here" rev-parse --short HEAD) AIM_ARGS='$AIM_ARGS'; $(uptime | sed 's/.*load/load/')"
echo "# table seed rho mst_err2 aim_err2 ratio mst_err3 aim_err3 aim_rounds aim_seconds signal schedule"
for t in "${tables[@]}"; do
	case $t in
	adult-e1) args="$(data_args adult) --epsilon 1 --delta 1e-6" ;;
	adult-e10) args="$(data_args adult) --epsilon 10 --delta 1e-6" ;;
	adult-r0.2) args="$(data_args adult) --rho 0.2" ;;
	adult-r0.05) args="$(data_args adult) --rho 0.05" ;;
	adult-r0.01) args="$(data_args adult) --rho 0.01" ;;
	adult9-r0.1) args="$(data_args adult9) --rho 0.1" ;;
	adult9-r0.01) args="$(data_args adult9) --rho 0.01" ;;
	adult9-r0.003) args="$(data_args adult9) --rho 0.003" ;;
	adult9-r1) args="$(data_args adult9) --rho 1" ;;
	soybean-e1) args="$(data_args soybean) --epsilon 1 --delta 1e-6" ;;
	soybean-e10) args="$(data_args soybean) --epsilon 10 --delta 1e-6" ;;
	soybean-r0.1) args="$(data_args soybean) --rho 0.1" ;;
	soybean-r1) args="$(data_args soybean) --rho 1" ;;
	soybean-r10) args="$(data_args soybean) --rho 10" ;;
	housevotes-r0.1) args="$(data_args housevotes) --rho 0.1" ;;
	housevotes-r1) args="$(data_args housevotes) --rho 1" ;;
	housevotes-r3) args="$(data_args housevotes) --rho 3" ;;
	housevotes-r10) args="$(data_args housevotes) --rho 10" ;;
	breastcancer-r0.1) args="$(data_args breastcancer) --rho 0.1" ;;
	breastcancer-r1) args="$(data_args breastcancer) --rho 1" ;;
	breastcancer-r3) args="$(data_args breastcancer) --rho 3" ;;
	breastcancer-r10) args="$(data_args breastcancer) --rho 10" ;;
	dna-r1) args="$(data_args dna) --rho 1" ;;
	dna-r0.1) args="$(data_args dna) --rho 0.1" ;;
	synth48-e1) args="--p 48 --epsilon 1 --delta 1e-6" ;;
	synth48-e10) args="--p 48 --epsilon 10 --delta 1e-6" ;;
	synth96-e1) args="--p 96 --epsilon 1 --delta 1e-6" ;;
	synth96-e10) args="--p 96 --epsilon 10 --delta 1e-6" ;;
	small16) args="--p 16 --n 1000 --rho 0.1" ;;
	small48) args="--p 48 --n 1000 --rho 0.1" ;;
	small16-r0.5) args="--p 16 --n 1000 --rho 0.5" ;;
	small16-r2) args="--p 16 --n 1000 --rho 2" ;;
	small48-r1) args="--p 48 --n 1000 --rho 1" ;;
	synth48-r0.5) args="--p 48 --rho 0.5" ;;
	synth24-n5000) args="--p 24 --n 5000 --rho 0.05" ;;
	*) echo "unknown table $t" >&2; exit 2 ;;
	esac
	three=
	[ "$THREE" = 1 ] && three=--three
	for s in $SEEDS; do
		# shellcheck disable=SC2086
		"$BIN" $args --seed "$s" $three $AIM_ARGS |
			awk -v t="$t" -v s="$s" '
				/^# p / { for (i = 1; i <= NF; i++) { if ($i == "rho") rho = $(i + 1); if ($i == "signal") sig = $(i + 1) }
					sub(",", "", rho) }
				$1 == "mst" { m2 = $4; m3 = $5 }
				$1 == "aim" { a2 = $4; a3 = $5; r = $3; sec = $2 }
				/^# aim: / { for (i = 1; i <= NF; i++) if ($i == "seed") sch = $(i + 1) > 0 ? "mst-seeded" : "mmsm22" }
				END { printf "%s %s %s %s %s %.3f %s %s %s %s %s %s\n", t, s, rho, m2, a2, a2 / m2, m3, a3, r, sec, sig, sch }'
	done
done
