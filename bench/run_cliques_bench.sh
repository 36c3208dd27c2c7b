#!/bin/bash
# run_cliques_bench.sh - the synthetic study of Bernstein et al. 2017,
# Sec. 4.1 (epsilon in {0.1, 0.3, 1, 3}, n in {1e3, 1e4, 1e5}) on the clique
# learner of the C core: naive MLE against CGM-EM on 10-node chains of
# triples and connected Erdos-Renyi graphs with Dirichlet(1) potentials.
# Prints a markdown table: mean and median KL(true || learned) over the
# repetitions, median fit times (release excluded) and the median per-trial
# CGM/naive time ratio.
#
#   bench/run_cliques_bench.sh [--reps 5] [--chain-k 3] [--er-k 2]
#       [--eps 0.1,0.3,1,3] [--n 1000,10000,100000]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
reps=5 chain_k=3 er_k=2 eps=0.1,0.3,1,3 ns=1000,10000,100000

while [ $# -gt 0 ]; do
	case "$1" in
		--reps) reps=$2; shift 2 ;;
		--chain-k) chain_k=$2; shift 2 ;;
		--er-k) er_k=$2; shift 2 ;;
		--eps) eps=$2; shift 2 ;;
		--n) ns=$2; shift 2 ;;
		*) echo "usage: $0 [--reps R] [--chain-k K] [--er-k K] [--eps LIST] [--n LIST]" >&2; exit 2 ;;
	esac
done

make -s -C "$here" bench_cliques

start=$(date +%s)
echo "| graph | k | epsilon | n | KL naive (mean / median) | KL CGM (mean / median) | KL non-private | CGM better | naive ms | CGM ms | CGM/naive time | EM iterations | EM converged |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for spec in "chain $chain_k" "er $er_k"; do
	set -- $spec
	"$here/bench_cliques" --graph "$1" --k "$2" --reps "$reps" --eps "$eps" --n "$ns" |
		awk '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "| %s | %s | %s | %s | %s / %s | %s / %s | %s | %s/%s | %s | %s | %s | %s | %s/%s |\n",
				v["graph"], v["k"], v["eps"], v["n"], v["kl_naive_mean"], v["kl_naive_median"],
				v["kl_cgm_mean"], v["kl_cgm_median"], v["kl_np_median"], v["cgm_wins"], v["reps"],
				v["ms_naive"], v["ms_cgm"], v["ratio"], v["em_iter"], v["converged"], v["reps"]
		}'
done
echo
echo "$reps repetitions per row (a new model, data set and release each; the same models in every row); times are medians on $(nproc) cores, $(( $(date +%s) - start )) s in all."
