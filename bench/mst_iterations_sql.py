#!/usr/bin/python3
"""MST's estimation steps through SQL (README, "MST: how many estimation
steps"): the workload error of workload_bench.py (mean L1 over every 2- and
3-way marginal, mrf_marginal_error) of mrf_learn_mst with each step count in
--steps, on the same tables, rhos and releases; the other rows of that
benchmark are left out.  Run by bench/run_mst_iterations_study.sh sql."""
import sys

import workload_bench


def mst_only(steps):
    def methods(conn, table, opts, p, true_cliques):
        return [(f"MST, {t} steps",
                 f"SELECT mrf_learn_mst(r, rho => {{rho}}, iterations => {t}{opts}) AS m FROM {table} r")
                for t in steps]
    return methods


if __name__ == "__main__":
    steps = [50, 100, 200, 1000]
    if "--steps" in sys.argv:
        i = sys.argv.index("--steps")
        steps = [int(v) for v in sys.argv[i + 1].split(",")]
        del sys.argv[i:i + 2]
    workload_bench.methods = mst_only(steps)
    workload_bench.main()
