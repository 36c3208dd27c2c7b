#!/bin/bash
# mrfdp's MST and AIM against private-pgm's mechanisms/mst.py and aim.py on
# the same rows at equal noise: time and workload error (mean L1 over every
# 2-way and every 3-way marginal of the model against the rows;
# docs/learners/aim.md "Against private-pgm").
#
#   bench/aim_vs_pgm.sh [tables] [rho_pgm values] [seeds] [pgm_seconds]
#   bench/aim_vs_pgm.py summary WORK/results.txt    (the docs' table)
#
# tables (default "housevotes breastcancer soybean adult9"): mlbench's
# HouseVotes84, BreastCancer and Soybean (NA as one more category), UCI
# Adult as private-pgm ships it ("adult", 14 columns) or its nine columns
# of at most 42 values ("adult9"); aim_vs_pgm.py says how each is coded.
#
# rho_pgm (default "0.05 0.5") is private-pgm's zCDP budget, under
# add/remove neighbours; mrfdp runs at 2 rho_pgm under replace-one
# neighbours, where a marginal's squared l2 sensitivity is 2 instead of 1
# (docs/privacy.md 1, 12, 13), so every measured table gets the same
# Gaussian noise in both.  (Selections are then not equal: mrfdp's quality
# sensitivity is 2 where private-pgm's is 1, so at this rho mrfdp's
# selections are sqrt(2) times flatter; the comparison favours private-pgm
# there.)
#
# Learners: mrfdp-mst, mrfdp-aim (mrfdp's default workload: every pair
# plus the triples of two strong pairs), mrfdp-aim2 (private-pgm's: every
# pair of at most 10,000 cells, bench_aim_width --pairs 10000), pgm-mst and
# pgm-aim (aim.py's defaults, the same pairs workload).  One line each in
# WORK/results.txt: table rho_pgm seed learner seconds err2 err3 detail.
# A (table, rho, seed, learner) already there is not run again, so an
# interrupted run resumes (WORK, default /tmp/aim_vs_pgm, survives).
#
# private-pgm at 514dea3, from its mirror (PGM_MIRROR) by git archive into
# PGM (nothing of it enters this repository), run with Debian's python3 and
# its numpy, scipy, pandas and networkx (apt-get install python3-numpy
# python3-scipy python3-pandas python3-networkx); mlbench through Rscript
# (r-cran-mlbench).  One private-pgm process at a time (it is
# single-threaded): each under timeout pgm_seconds (default 1800); a run
# cut off reports the rounds it finished, from its trace.  PGM_LEARNERS
# (default "mst aim"; empty: mrfdp's alone) chooses private-pgm's runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tables=${1:-housevotes breastcancer soybean adult9}
rhos=${2:-0.05 0.5}
seeds=${3:-1 2 3}
pgm_seconds=${4:-1800}
pgm_learners=${PGM_LEARNERS-mst aim}
PGM_MIRROR=${PGM_MIRROR:-/work/.mirror/ryan112358+private-pgm/repo}
PGM=${PGM:-/tmp/pgm-514dea3}
work=${WORK:-/tmp/aim_vs_pgm}
py=/usr/bin/python3
out=$work/results.txt

if [ ! -f "$PGM/mechanisms/aim.py" ]; then
	mkdir -p "$PGM"
	git --git-dir="$PGM_MIRROR" archive 514dea3 | tar -x -C "$PGM"
fi
mkdir -p "$work"
touch "$out"
make -s -C "$here" bench_aim_width

done_already() {
	awk -v t="$1" -v r="$2" -v s="$3" -v l="$4" \
		'$1 == t && $2 == r && $3 == s && $4 == l { f = 1 } END { exit !f }' "$out"
}

load() {
	echo "# $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >> "$out"
}

for table in $tables; do
	if [ ! -f "$work/$table.npy" ]; then
		$py "$here/aim_vs_pgm.py" export "$PGM" "$table" "$work" > /dev/null
	fi
	alphabets=$($py -c "import json; print(','.join(map(str, json.load(open('$work/$table.json'))['sizes'])))")
	for rho_pgm in $rhos; do
		rho=$($py -c "print(2 * $rho_pgm)")
		for seed in $seeds; do
			key="$table $rho_pgm $seed"
			if ! done_already $key mrfdp-aim2; then
				load
				"$here/bench_aim_width" --data "$work/$table.npy" --alphabets "$alphabets" \
					--rho "$rho" --seed "$seed" --three > "$work/mrfdp.txt"
				"$here/bench_aim_width" --data "$work/$table.npy" --alphabets "$alphabets" \
					--rho "$rho" --seed "$seed" --three --no-mst --pairs 10000 > "$work/mrfdp2.txt"
				# algo seconds rounds err2 err3 tree_cells
				awk -v k="$key" '$1 == "mst" { print k, "mrfdp-mst", $2, $4, $5, "-" }
					$1 == "aim" { print k, "mrfdp-aim", $2, $4, $5, $3 " rounds" }' "$work/mrfdp.txt" >> "$out"
				awk -v k="$key" '$1 == "aim" { print k, "mrfdp-aim2", $2, $4, $5, $3 " rounds" }' \
					"$work/mrfdp2.txt" >> "$out"
			fi
			for algo in $pgm_learners; do
				done_already $key pgm-$algo && continue
				load
				if timeout "$pgm_seconds" $py "$here/aim_vs_pgm.py" $algo "$work" "$table" \
					"$rho_pgm" "$seed" "$PGM" > "$work/pgm.txt" 2> "$work/pgm.err"; then
					sed "s/^/$key /" "$work/pgm.txt" >> "$out"
				else
					# estimates: the first (one-ways), then one a round
					estimates=$(grep -c '^pgm-aim estimate' "$work/pgm.err" || true)
					echo "$key pgm-$algo cut - - at $pgm_seconds s, $((estimates > 0 ? estimates - 1 : 0))" \
						"rounds done" >> "$out"
				fi
			done
			grep "^$key " "$out"
		done
	done
done
