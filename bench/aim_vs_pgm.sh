#!/bin/bash
# mrfdp's MST and AIM against private-pgm's mechanisms/mst.py and aim.py on
# UCI Adult (private-pgm's data/adult.csv, 48,842 rows, 14 columns), at equal
# noise: time and workload error (mean L1 over every 2-way and every 3-way
# marginal of the model against the rows; docs/learners/aim.md "Against
# private-pgm").
#
#   bench/aim_vs_pgm.sh [rho_pgm] [seed] [pgm_seconds]
#
# rho_pgm (default 0.1) is private-pgm's zCDP budget, under add/remove
# neighbours; mrfdp runs at 2 rho_pgm under replace-one neighbours, where a
# marginal's squared l2 sensitivity is 2 instead of 1 (docs/privacy.md 1,
# 12, 13), so every measured table gets the same Gaussian noise in both.
# (Selections are then not equal: mrfdp's quality sensitivity is 2 where
# private-pgm's is 1, so at this rho mrfdp's selections are sqrt(2) times
# flatter; the comparison favours private-pgm there.)
#
# private-pgm at 514dea3, from its mirror (PGM_MIRROR) by git archive into
# PGM (nothing of it enters this repository), run with Debian's python3 and
# its numpy, scipy, pandas and networkx (apt-get install python3-numpy
# python3-scipy python3-pandas python3-networkx).  Its AIM is slow on a
# small machine: it runs under timeout pgm_seconds (default 2100) and, when
# cut off, the rounds it finished are reported from its trace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rho_pgm=${1:-0.1}
seed=${2:-1}
pgm_seconds=${3:-2100}
PGM_MIRROR=${PGM_MIRROR:-/work/.mirror/ryan112358+private-pgm/repo}
PGM=${PGM:-/tmp/pgm-514dea3}
work=${WORK:-$(mktemp -d)}
py=/usr/bin/python3

if [ ! -f "$PGM/mechanisms/aim.py" ]; then
	mkdir -p "$PGM"
	git --git-dir="$PGM_MIRROR" archive 514dea3 | tar -x -C "$PGM"
fi
make -s -C "$here" bench_aim_width
alphabets=$($py "$here/aim_vs_pgm.py" export "$PGM" "$work/adult.npy")
rho=$($py -c "print(2 * $rho_pgm)")
echo "# UCI Adult, private-pgm rho $rho_pgm (add/remove) = mrfdp rho $rho (replace-one), seed $seed; $(uptime | sed 's/.*load/load/')"
echo "# algo seconds err2 err3"
"$here/bench_aim_width" --data "$work/adult.npy" --alphabets "$alphabets" --rho "$rho" \
	--seed "$seed" --three | awk '$1 == "mst" || $1 == "aim" { print "mrfdp-" $1, $2, $4, $5 }'
$py "$here/aim_vs_pgm.py" mst "$PGM" "$rho_pgm" "$seed" | cut -d' ' -f1-4
if ! timeout "$pgm_seconds" $py "$here/aim_vs_pgm.py" aim "$PGM" "$rho_pgm" "$seed" \
	> "$work/pgm_aim.txt" 2> "$work/pgm_aim.err"; then
	echo "pgm-aim cut off at $pgm_seconds s: $(grep -c '^pgm-aim estimate' "$work/pgm_aim.err" || true) estimates (the first, then one a round) done"
	tail -n 1 "$work/pgm_aim.err"
else
	cut -d' ' -f1-4 "$work/pgm_aim.txt"
fi
