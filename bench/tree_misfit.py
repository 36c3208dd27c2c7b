#!/usr/bin/python3
"""How far a table is from a tree: the misfit of its own Chow-Liu tree.

For each table: the maximum-mutual-information spanning tree of the rows
(Chow-Liu), the tree model made of the rows' exact one- and two-way
marginals along it, and the mean over every pair of columns of the L1
distance between the pair's empirical marginal and the tree model's, as a
fraction of n (the same scale as the 2-way workload error of
docs/learners/aim.md). A tree-shaped table has a misfit near its sampling
noise; a table whose columns hang on a common cause (a party, a diagnosis)
has a large one. Non-private: the study of a private choice between AIM's
schedules (docs/learners/aim.md, "A private choice between the schedules")
uses it to see which tables such a choice would have to tell apart.

    /usr/bin/python3 bench/tree_misfit.py TABLE ...

TABLE: a name whose rows are WORK/NAME.npy (uint8, n x p) with alphabets in
WORK/NAME.alphabets, as bench/aim_schedule_study.sh exports them (WORK:
the environment's, default /tmp/aim_schedule_study), or synthPxN for
bench_aim_width's tree-shaped rows (p columns of alphabets cycling 2, 3,
4, 5, each copying its parent's value mod its alphabet with probability
0.7, else uniform), drawn here with numpy's generator (seed 1), so the
same law as bench_aim_width's rows, not the same rows.
"""
import os
import sys

import numpy as np
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree


def tree_rows(p, n, strength=0.7, seed=1):
    rng = np.random.default_rng(seed)
    card = np.array([2, 3, 4, 5] * (p // 4 + 1))[:p]
    parent = [0] + [int(rng.random() * v) for v in range(1, p)]
    z = np.zeros((n, p), dtype=np.int64)
    for v in range(p):
        u = (rng.random(n) * card[v]).astype(np.int64)
        if v >= 1:
            copy = rng.random(n) < strength
            u = np.where(copy, z[:, parent[v]] % card[v], u)
        z[:, v] = u
    return z, card


def load(name):
    if name.startswith("synth"):
        p, n = map(int, name[5:].split("x"))
        return tree_rows(p, n)
    work = os.environ.get("WORK", "/tmp/aim_schedule_study")
    z = np.load(os.path.join(work, name + ".npy")).astype(np.int64)
    with open(os.path.join(work, name + ".alphabets")) as f:
        card = np.array([int(x) for x in f.read().strip().split(",")])
    return z, card


def misfit(z, card):
    n, p = z.shape
    one = [np.bincount(z[:, i], minlength=card[i]) / n for i in range(p)]
    pair = {}
    mi = np.zeros((p, p))
    for i in range(p):
        for j in range(i + 1, p):
            t = np.zeros((card[i], card[j]))
            np.add.at(t, (z[:, i], z[:, j]), 1.0)
            t /= n
            pair[i, j] = t
            prod = np.outer(one[i], one[j])
            nz = t > 0
            mi[i, j] = mi[j, i] = (t[nz] * np.log(t[nz] / prod[nz])).sum()
    # the maximum spanning tree of the mutual information (ties broken by a tiny constant)
    tree = minimum_spanning_tree(-(mi + 1e-12)).toarray()
    adj = (tree != 0) | (tree.T != 0)
    order, pred = breadth_first_order(adj.astype(float), 0, directed=False)
    root = order[0]
    cond = {}
    for v in order[1:]:
        u = pred[v]
        t = pair[min(u, v), max(u, v)]
        if u > v:
            t = t.T
        cond[v] = t / np.maximum(one[u][:, None], 1e-300)  # P(x_v | x_u), rows x_u

    def path_to_root(v):
        path = [v]
        while path[-1] != root:
            path.append(pred[path[-1]])
        return path

    def joint_down(c, below):
        # P(x_c, x_v) for v the first of `below`, the path from v up to c's child
        m = np.diag(one[c])
        for v in reversed(below):
            m = m @ cond[v]
        return m

    paths = [path_to_root(v) for v in range(p)]
    total = 0.0
    for i in range(p):
        for j in range(i + 1, p):
            pj = set(paths[j])
            c = next(x for x in paths[i] if x in pj)
            ci = joint_down(c, paths[i][:paths[i].index(c)])
            cj = joint_down(c, paths[j][:paths[j].index(c)])
            model = ci.T @ (cj / np.maximum(one[c][:, None], 1e-300))
            total += np.abs(pair[i, j] - model).sum()
    return total / (p * (p - 1) / 2)


def main():
    print("# table n p misfit")
    for name in sys.argv[1:]:
        z, card = load(name)
        print(f"{name} {z.shape[0]} {z.shape[1]} {misfit(z, card):.4f}", flush=True)


if __name__ == "__main__":
    main()
