#!/bin/bash
# run_core_bench.sh - the private Ising learner of the C core against its BLAS
# floor and against the NumPy implementation of the same algorithm
# (ising_numpy.py), on the same data.  Prints a markdown table.
#
#   bench/run_core_bench.sh [--p 100] [--n 100000] [--rho 1] [--lambda 1]
#       [--model chain|sparse|iid] [--iterations T] [--threads 1] [--reps 10]
#       [--keep DIR]
#
# Steps, each in its own process so that /usr/bin/time -v measures the peak
# RSS of exactly one thing:
#   1. bench_core draws the data (Gibbs, MrfIsingSample) and writes
#      data.npy and model.npy;
#   2. bench_core times the sgemm floor X^T G on that data;
#   3. bench_core learns from data.npy (read, pack, MrfIsingLearn);
#   4. ising_numpy.py learns from data.npy.
# Steps 3 and 4 do the same work (load the samples, learn with the same T),
# so their wall times and peak RSS compare end to end.  Both use one BLAS
# thread unless --threads says otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
p=100 n=100000 rho=1 lambda=1 model=chain iterations=0 threads=1 reps=10 keep=""

while [ $# -gt 0 ]; do
	case "$1" in
		--p) p=$2; shift 2 ;;
		--n) n=$2; shift 2 ;;
		--rho) rho=$2; shift 2 ;;
		--lambda) lambda=$2; shift 2 ;;
		--model) model=$2; shift 2 ;;
		--iterations) iterations=$2; shift 2 ;;
		--threads) threads=$2; shift 2 ;;
		--reps) reps=$2; shift 2 ;;
		--keep) keep=$2; shift 2 ;;
		*) echo "usage: $0 [--p P] [--n N] [--rho R] [--lambda L] [--model chain|sparse|iid]" \
			"[--iterations T] [--threads K] [--reps R] [--keep DIR]" >&2; exit 2 ;;
	esac
done

# Debian's python has numpy linked against OpenBLAS; a pyenv python3 on PATH
# may have no numpy at all.
py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
	echo "run_core_bench: $py cannot import numpy (apt-get install python3-numpy)" >&2
	exit 1
fi
if [ ! -x /usr/bin/time ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -qq time >/dev/null
	else
		echo "run_core_bench: /usr/bin/time missing (apt-get install time)" >&2
		exit 1
	fi
fi

make -s -C "$here" bench_core

if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi

# value FILE KEY: the value of a "key: value" line.
value() {
	awk -F': ' -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# rss_mib FILE: peak RSS from /usr/bin/time -v output, in MiB.
rss_mib() {
	awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"
}

# wall_s FILE: elapsed wall time from /usr/bin/time -v output (h:mm:ss or m:ss.ss), in s.
wall_s() {
	awk -F': ' '/Elapsed \(wall clock\)/ {
		k = split($2, f, ":"); s = 0
		for (i = 1; i <= k; i++) s = s * 60 + f[i]
		printf "%.2f", s }' "$1"
}

echo "# data: p=$p n=$n model=$model" >&2
"$here/bench_core" --p "$p" --n "$n" --model "$model" --skip-floor --skip-learn \
	--out "$work/data.npy" --out-model "$work/model.npy" >"$work/gen.txt"
truth=()
if [ -f "$work/model.npy" ]; then
	truth=(--true-model "$work/model.npy")
fi

echo "# sgemm floor ($reps reps)" >&2
"$here/bench_core" --data "$work/data.npy" --skip-learn --threads "$threads" \
	--reps "$reps" >"$work/floor.txt"

echo "# C core" >&2
/usr/bin/time -v -o "$work/c.time" "$here/bench_core" --data "$work/data.npy" \
	"${truth[@]}" --skip-floor --rho "$rho" --lambda "$lambda" \
	--iterations "$iterations" --threads "$threads" >"$work/c.txt"

echo "# NumPy" >&2
/usr/bin/time -v -o "$work/py.time" "$py" "$here/ising_numpy.py" --data "$work/data.npy" \
	"${truth[@]}" --rho "$rho" --lambda "$lambda" --iterations "$iterations" \
	--threads "$threads" >"$work/py.txt"

floor_ms=$(value "$work/floor.txt" floor_sgemm_ms)
floor_best_ms=$(value "$work/floor.txt" floor_sgemm_best_ms)
c_T=$(value "$work/c.txt" iterations)
py_T=$(value "$work/py.txt" iterations)
if [ "$c_T" != "$py_T" ]; then
	echo "run_core_bench: iteration counts differ (C $c_T, NumPy $py_T)" >&2
	exit 1
fi

c_it=$(value "$work/c.txt" per_iteration_ms)
py_it=$(value "$work/py.txt" per_iteration_ms)
c_steady=$(value "$work/c.txt" steady_iteration_ms)
py_steady=$(value "$work/py.txt" steady_iteration_ms)
c_learn=$(value "$work/c.txt" learn_s)
py_learn=$(value "$work/py.txt" learn_s)
c_wall=$(wall_s "$work/c.time")
py_wall=$(wall_s "$work/py.time")
c_rss=$(rss_mib "$work/c.time")
py_rss=$(rss_mib "$work/py.time")
c_err=$(value "$work/c.txt" max_abs_error_A)
py_err=$(value "$work/py.txt" max_abs_error_A)

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "Private Ising learner, p=$p, n=$n, rho=$rho, lambda=$lambda, T=$c_T" \
	"($((c_T - 1)) selections), $model data ($(value "$work/gen.txt" data)), $threads BLAS thread(s), $cpu."
echo "sgemm floor X^T G ((p+1) x n times n x p): mean ${floor_ms} ms, best ${floor_best_ms} ms" \
	"($(value "$work/floor.txt" floor_gflops) GFLOP/s at the mean)."
echo
awk -v f="$floor_ms" \
	-v ci="$c_it" -v pi="$py_it" -v cs="${c_steady:-nan}" -v ps="${py_steady:-nan}" \
	-v cl="$c_learn" -v pl="$py_learn" -v cw="$c_wall" -v pw="$py_wall" \
	-v cr="$c_rss" -v pr="$py_rss" -v ce="${c_err:-n/a}" -v pe="${py_err:-n/a}" '
BEGIN {
	printf "| | C core | NumPy | NumPy / C |\n|---|---:|---:|---:|\n"
	printf "| time per iteration (ms) | %.2f | %.2f | %.2f |\n", ci, pi, pi / ci
	printf "| steady-state iteration (ms) | %.2f | %.2f | %.2f |\n", cs, ps, ps / cs
	printf "| per iteration / sgemm floor | %.2f | %.2f | |\n", ci / f, pi / f
	printf "| learner time (s) | %.2f | %.2f | %.2f |\n", cl, pl, pl / cl
	printf "| end to end, process wall (s) | %.2f | %.2f | %.2f |\n", cw, pw, pw / cw
	printf "| peak RSS (MiB) | %.1f | %.1f | %.2f |\n", cr, pr, pr / cr
	printf "| max abs error of A | %s | %s | |\n", ce, pe
}'
echo
echo "Per iteration = learner time / (T-1); steady state excludes the setup before the first"
echo "iteration. End to end = the whole process (start-up, loading data.npy, learning)."
