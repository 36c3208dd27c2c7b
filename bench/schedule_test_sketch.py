#!/usr/bin/python3
"""An offline sketch of the test a private choice between AIM's schedules
would make (docs/learners/aim.md, "A private choice between the schedules"):
the tree misfit of a coarse model, calibrated by sampling tables from that
model and measuring them again (post-processing).

Not mrfdp's pipeline: numpy emulates it coarsely. One-ways get Gaussian noise
at 0.06 rho, the tree is the rows' own Chow-Liu tree (the private selection
taken as exact), its pairs get Gaussian noise at 0.1 rho, and the model is
the tree of the clipped, normalised noisy tables. S is the mean over pairs of
the L1 distance between the rows' pair marginal and the model's; the
bootstrap draws B tables of n rows from the model and runs the same steps.
S - boot is about 0 on a tree-shaped table and grows with structure beyond
the tree, and with anything else the model misses.

    /usr/bin/python3 bench/schedule_test_sketch.py TABLE RHO SEEDS B

TABLE as bench/tree_misfit.py names them.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tree_misfit as tm  # noqa: E402
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree  # noqa: E402

def pair_tables(z, card):
    n, p = z.shape
    T = {}
    for i in range(p):
        for j in range(i+1, p):
            t = np.zeros((card[i], card[j])); np.add.at(t, (z[:, i], z[:, j]), 1.0); T[i, j] = t
    return T

def chow_liu(T, one, p):
    mi = np.zeros((p, p))
    for (i, j), t in T.items():
        q = t / t.sum(); pr = np.outer(one[i], one[j]); nz = q > 0
        mi[i, j] = mi[j, i] = (q[nz] * np.log(q[nz] / pr[nz])).sum()
    tr = minimum_spanning_tree(-(mi + 1e-12)).toarray()
    return (tr != 0) | (tr.T != 0)

def tree_model(adj, one, edge, p):
    order, pred = breadth_first_order(adj.astype(float), 0, directed=False)
    cond = {}
    for v in order[1:]:
        u = pred[v]; t = edge[min(u, v), max(u, v)]
        if u > v: t = t.T
        cond[v] = t / np.maximum(t.sum(1, keepdims=True), 1e-12)
    return order, pred, cond

def model_pairs(order, pred, cond, one, p):
    root = order[0]
    paths = []
    for v in range(p):
        pa = [v]
        while pa[-1] != root: pa.append(pred[pa[-1]])
        paths.append(pa)
    rootm = one[root]
    # marginal of each node
    marg = {root: rootm}
    for v in order[1:]: marg[v] = marg[pred[v]] @ cond[v]
    M = {}
    for i in range(p):
        for j in range(i+1, p):
            pj = set(paths[j]); c = next(x for x in paths[i] if x in pj)
            def down(below):
                m = np.diag(marg[c])
                for v in reversed(below): m = m @ cond[v]
                return m
            ci = down(paths[i][:paths[i].index(c)]); cj = down(paths[j][:paths[j].index(c)])
            M[i, j] = ci.T @ (cj / np.maximum(marg[c][:, None], 1e-300))
    return M

def pipeline(z, card, s1, st, rng):
    """noisy one-ways (sd s1), Chow-Liu tree on the rows (selection taken as exact),
    noisy tree tables (sd st); model from them; returns S and the model"""
    n, p = z.shape
    T = pair_tables(z, card)
    one = []
    for i in range(p):
        c = np.bincount(z[:, i], minlength=card[i]) + rng.normal(0, s1, card[i])
        c = np.maximum(c, 1e-3); one.append(c / c.sum())
    adj = chow_liu(T, [np.bincount(z[:, i], minlength=card[i]) / n for i in range(p)], p)
    edge = {}
    for (i, j), t in T.items():
        if adj[i, j]:
            y = np.maximum(t + rng.normal(0, st, t.shape), 0.5); edge[i, j] = y / y.sum()
    order, pred, cond = tree_model(adj, one, edge, p)
    M = model_pairs(order, pred, cond, one, p)
    S = np.mean([np.abs(T[k] / n - M[k]).sum() for k in T])
    return S, (order, pred, cond, one)

def sample(model, n, card, rng):
    order, pred, cond, one = model
    p = len(card); z = np.zeros((n, p), dtype=np.int64)
    r = order[0]; z[:, r] = rng.choice(card[r], n, p=one[r] / one[r].sum())
    for v in order[1:]:
        P = cond[v][z[:, pred[v]]]; P = P / P.sum(1, keepdims=True)
        u = rng.random(n)[:, None]; z[:, v] = (u > np.cumsum(P, 1)).sum(1).clip(0, card[v]-1)
    return z

name, rho, seeds, B = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
z, card = tm.load(name); n, p = z.shape
# coarse: one-ways at 0.06 rho, tree measured at 0.1 rho (squared sensitivity 2 a table)
s1 = np.sqrt(p / (0.06 * rho)); st = np.sqrt((p - 1) / (0.1 * rho))
out = []
for s in range(seeds):
    rng = np.random.default_rng(100 + s)
    S, model = pipeline(z, card, s1, st, rng)
    boot = [pipeline(sample(model, n, card, rng), card, s1, st, rng)[0] for _ in range(B)]
    out.append((S, np.mean(boot), np.std(boot)))
o = np.array(out)
print(f"{name} rho {rho} n {n} p {p}: S {o[:,0].mean():.3f}  boot {o[:,1].mean():.3f} (sd {o[:,2].mean():.3f})  S-boot {np.mean(o[:,0]-o[:,1]):.3f} (seeds sd {np.std(o[:,0]-o[:,1]):.3f}); test sd at 3% rho {2/n/np.sqrt(2*0.03*rho):.3f}", flush=True)
