#!/bin/bash
# run_kernel_bench.sh - issue 15's figures for the Frank-Wolfe score kernels,
# as ratios measured within one run (the machine may be shared):
#
#   1. per iteration at p = 100 and p = 400, n = 100k, one thread: the C
#      core (the kernel the CPU picks, and every available kernel forced)
#      against the float32 sgemm floor X^T G of the same shape, timed in the
#      same process just before;
#   2. the same against ising_numpy.py (NumPy running the same algorithm);
#   3. two learner threads against one;
#   4. p = 1000, n = 1e6: a few iterations timed and extrapolated to the
#      default T, with the core's peak memory and bytes per row-variable.
#
#   bench/run_kernel_bench.sh [--repeat 3] [--iterations 40]
#       [--big-iterations 20] [--skip-big]
#
# Each measurement is repeated --repeat times and the median is printed;
# every ratio pairs figures from the same repetition.  The load average is
# printed with the table: figures from a loaded machine are noisy.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repeat=3 iterations=40 big_iterations=20 skip_big=0

while [ $# -gt 0 ]; do
	case "$1" in
		--repeat) repeat=$2; shift 2 ;;
		--iterations) iterations=$2; shift 2 ;;
		--big-iterations) big_iterations=$2; shift 2 ;;
		--skip-big) skip_big=1; shift ;;
		*) echo "usage: $0 [--repeat R] [--iterations T] [--big-iterations T] [--skip-big]" >&2; exit 2 ;;
	esac
done

py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "run_kernel_bench: apt-get install python3-numpy" >&2; exit 1; }
make -s -C "$here" bench_core

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# value FILE KEY: the value of a "key: value" line.
value() {
	awk -F': ' -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# median of the arguments
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

kernels=$("$here/bench_core" --p 2 --n 64 --skip-floor --skip-learn 2>/dev/null | awk -F': ' '$1 == "kernel" { print $2 }')
all_kernels=""
for k in sgemm avx2 avx512-vnni amx onednn; do
	if "$here/bench_core" --p 2 --n 64 --skip-floor --skip-learn --kernel "$k" >/dev/null 2>&1; then
		all_kernels="$all_kernels $k"
	fi
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "CPU: $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo); auto kernel: $kernels; available:$all_kernels"
echo

for p in 100 400; do
	n=100000
	declare -A ratio=()
	np_ratio=() np_ms=() c_ms=() floor_ms=() thr=()
	for r in $(seq "$repeat"); do
		# floor and the auto kernel in one process: the ratio shares its moment
		"$here/bench_core" --p $p --n $n --model iid --iterations "$iterations" --reps 5 \
			--seed "$r" >"$work/auto.txt"
		f=$(value "$work/auto.txt" floor_sgemm_ms)
		c=$(value "$work/auto.txt" steady_iteration_ms)
		floor_ms+=("$f")
		c_ms+=("$c")
		ratio[auto]+=" $(awk -v a="$c" -v b="$f" 'BEGIN { printf "%.3f", a / b }')"
		for k in $all_kernels; do
			"$here/bench_core" --p $p --n $n --model iid --iterations "$iterations" --reps 5 \
				--seed "$r" --kernel "$k" >"$work/k.txt"
			ratio[$k]+=" $(awk -v a="$(value "$work/k.txt" steady_iteration_ms)" \
				-v b="$(value "$work/k.txt" floor_sgemm_ms)" 'BEGIN { printf "%.3f", a / b }')"
		done
		# NumPy right after the C core, same shape and iterations
		"$py" "$here/ising_numpy.py" --p $p --n $n --rho 1 --iterations "$iterations" \
			--seed "$r" >"$work/np.txt"
		nms=$(value "$work/np.txt" steady_iteration_ms)
		np_ms+=("$nms")
		"$here/bench_core" --p $p --n $n --model iid --iterations "$iterations" --skip-floor \
			--seed "$r" >"$work/one.txt"
		one=$(value "$work/one.txt" steady_iteration_ms)
		np_ratio+=("$(awk -v a="$nms" -v b="$one" 'BEGIN { printf "%.3f", a / b }')")
		"$here/bench_core" --p $p --n $n --model iid --iterations "$iterations" --skip-floor \
			--seed "$r" --learner-threads 2 >"$work/two.txt"
		two=$(value "$work/two.txt" steady_iteration_ms)
		thr+=("$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.3f", a / b }')")
	done
	echo "p = $p, n = $n, $iterations iterations, medians of $repeat:"
	echo "| | value |"
	echo "|---|---:|"
	echo "| sgemm floor X^T G (ms) | $(median "${floor_ms[@]}") |"
	echo "| C core per iteration, auto kernel, 1 thread (ms) | $(median "${c_ms[@]}") |"
	echo "| C core / sgemm floor, auto ($kernels) | $(median ${ratio[auto]}) |"
	for k in $all_kernels; do
		echo "| C core / sgemm floor, $k | $(median ${ratio[$k]}) |"
	done
	echo "| NumPy per iteration (ms) | $(median "${np_ms[@]}") |"
	echo "| NumPy / C core (1 thread) | $(median "${np_ratio[@]}") |"
	echo "| 1 thread / 2 threads | $(median "${thr[@]}") |"
	echo
	unset ratio
done

if [ "$skip_big" = 0 ]; then
	p=1000 n=1000000
	# the default T at rho = 1, lambda = 1 (MrfFwDefaultIterations): R n sqrt(rho / p)
	T=$(awk -v n=$n -v p=$p 'BEGIN { t = (2 * n * sqrt(1 / p)) ^ (2 / 3); t = int(t * (1 - 1e-12)) + (t * (1 - 1e-12) > int(t * (1 - 1e-12))); print (t < 2 ? 2 : t) }')
	"$here/bench_core" --p $p --n $n --model iid --iterations "$big_iterations" --skip-floor \
		>"$work/big1.txt"
	"$here/bench_core" --p $p --n $n --model iid --iterations "$big_iterations" --skip-floor \
		--learner-threads 2 >"$work/big2.txt"
	s1=$(value "$work/big1.txt" steady_iteration_ms)
	s2=$(value "$work/big2.txt" steady_iteration_ms)
	echo "p = $p, n = $n, default T = $T, timed over $big_iterations iterations:"
	echo "| | 1 thread | 2 threads |"
	echo "|---|---:|---:|"
	echo "| per iteration (s) | $(awk -v s="$s1" 'BEGIN { printf "%.2f", s / 1000 }') | $(awk -v s="$s2" 'BEGIN { printf "%.2f", s / 1000 }') |"
	echo "| extrapolated to T (h) | $(awk -v s="$s1" -v t="$T" 'BEGIN { printf "%.2f", s * (t - 1) / 3.6e6 }') | $(awk -v s="$s2" -v t="$T" 'BEGIN { printf "%.2f", s * (t - 1) / 3.6e6 }') |"
	echo "| core peak memory (MiB) | $(value "$work/big1.txt" core_peak_alloc_mib) | $(value "$work/big2.txt" core_peak_alloc_mib) |"
	echo "| bytes per row-variable | $(value "$work/big1.txt" core_bytes_per_row_variable) | $(value "$work/big2.txt" core_bytes_per_row_variable) |"
	echo
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
