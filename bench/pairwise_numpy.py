#!/usr/bin/python3
"""NumPy baseline of mrfdp's private pairwise k-ary learner.

The same algorithm as src/core/pairwise.c + fw.c (Zhang et al. 2020,
Algorithm 3; docs/privacy.md 3 and 5), written the way a careful NumPy user
would, to compare speed and memory against the C core.  One design matrix
serves all q = p k (k-1) regressions (node i, ordered pair u != v):

  X                           n x d float32, column-major, d = p k + 1:
                              X[m, j k + b] = 1 if z_mj = b, last column 1
  Y                           n x q float32: +1 where z_i = u, -1 where
                              z_i = v, 0 elsewhere (rows outside S_uv)
  a                           n x q margins, a[:, c] = X w_c
  G = Y (1 - Y tanh(a/2)) / 2 n x q; equals (y - |y| tanh(a/2)) / 2, so
                              rows with y = 0 contribute nothing
  scores = R * X^T G          d x q, the one BLAS product per iteration
  vertex of regression c      argmax over allowed (j, sign) of
                              sign * scores[j, c] * eps0 / (2 Du) + Gumbel,
                              node i's own block k i .. k i + k - 1 excluded
  w <- (1 - mu) w + mu s      mu_t = 2 / (t + 2)

with R = 2 lambda k, rho' = rho / (k^2 p) per regression, T = max(2,
ceil((R n sqrt(rho'))^(2/3))), eps0 = sqrt(8 rho' / (T - 1)), Du = 2R.
Regression (i, u, v) is column (i k + u)(k - 1) + (v if v < u else v - 1).

Recovery (Eq. (1) of the paper, then Algorithm 3's average over v):
U(j, :) = w(j, :) - mean_a w(j, a); U(c) = w(c) + (1/k) sum_{j != i, a} w(j, a);
W_ij(u, :) = (1/k) sum_{v != u} U_uv(j, :); theta_i(u) = (1/k) sum_{v != u}
U_uv(c); then every block's columns and every field are centred and
W_ij, W_ji^T averaged, as pairwise.c does.

THIS IS A BENCHMARK BASELINE, NOT A PRIVATE IMPLEMENTATION: its Gumbel noise
comes from numpy's default generator, neither a secure source nor free of
floating-point side channels, and its gradients are not quantised.

Usage:
  /usr/bin/python3 bench/pairwise_numpy.py --data data.npy --k 4 --rho 1 \\
      [--lambda 1] [--iterations T] [--true-model model.npy] [--threads 1]

--data is an n x p uint8 .npy of values 0..k-1 (bench_pairwise --out
writes one); k is given, never inferred from the data.  --true-model is a
1 x (p^2 k^2 + p k) .npy: W in the layout W[((i p + j) k + a) k + b], then
theta[i k + a], centred.  Output lines are "key: value".  --threads sets
OPENBLAS_NUM_THREADS before numpy is imported (default 1, like the C
benchmark).  Use /usr/bin/python3: Debian's numpy is linked against OpenBLAS.
"""

import argparse
import math
import os
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="n x p uint8 .npy of values 0..k-1")
    ap.add_argument("--k", type=int, required=True, help="alphabet size (public)")
    ap.add_argument("--rho", type=float, required=True)
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--iterations", type=int, default=0,
                    help="T (T-1 selections); 0 = the default from public values")
    ap.add_argument("--true-model", help="1 x (p^2 k^2 + p k) .npy: W, then theta")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    ap.add_argument("--no-symmetrize", action="store_true")
    return ap.parse_args()


def default_iterations(radius, n, rho_problem):
    """T = ceil((R n sqrt(rho'))^(2/3)), at least 2 (docs/privacy.md 3.4)."""
    return max(2, math.ceil((radius * n * math.sqrt(rho_problem)) ** (2.0 / 3.0)
                            * (1 - 1e-12)))


def problems(np, p, k):
    """(node, u, v) of every column of Y, in the order of pairwise.c."""
    node, u, v = [], [], []
    for i in range(p):
        for a in range(k):
            for b in range(k):
                if a != b:
                    node.append(i)
                    u.append(a)
                    v.append(b)
    return np.array(node), np.array(u), np.array(v)


def learn(np, Z, k, rho, lam, iterations, rng, on_iteration=None):
    """Private Frank-Wolfe for all regressions; returns (w, T), w d x q."""
    n, p = Z.shape
    d = p * k + 1
    node, u, v = problems(np, p, k)
    q = len(node)
    radius = 2.0 * lam * k                  # R, docs/privacy.md 5
    rho_problem = rho / (k * k * p)         # rho', docs/privacy.md 5
    T = iterations or default_iterations(radius, n, rho_problem)
    if T < 2:
        raise ValueError("iterations must be at least 2")
    eps0 = math.sqrt(8.0 * rho_problem / (T - 1))
    scale = eps0 / (2.0 * 2.0 * radius)     # exponential mechanism, Du = 2R

    X = np.zeros((n, d), dtype=np.float32, order="F")
    rows = np.arange(n)
    for j in range(p):
        X[rows, j * k + Z[:, j]] = 1.0
    X[:, d - 1] = 1.0
    Zi = Z[:, node]                         # n x q: z_i of each column's node
    Y = np.asfortranarray((Zi == u).astype(np.float32) - (Zi == v).astype(np.float32))
    del Zi
    # candidates [+e_0..+e_{d-1}, -e_0..-e_{d-1}]; forbid node i's own block
    own = (np.arange(d)[:, None] // k) == node[None, :]
    forbidden = np.concatenate([own, own], axis=0)

    a = np.zeros((n, q), dtype=np.float32, order="F")
    G = np.empty((n, q), dtype=np.float32, order="F")
    W = np.zeros((d, q))
    cols = np.arange(q)
    for it in range(1, T):
        mu = 2.0 / (it + 2.0)
        # G = Y (1 - Y tanh(a/2)) / 2, in place
        np.multiply(a, 0.5, out=G)
        np.tanh(G, out=G)
        G *= Y
        np.subtract(1.0, G, out=G)
        G *= Y
        G *= 0.5
        scores = (X.T @ G).astype(np.float64) * (radius * scale)
        noisy = np.concatenate([scores, -scores], axis=0)
        noisy += rng.gumbel(size=noisy.shape)
        noisy[forbidden] = -np.inf
        pick = np.argmax(noisy, axis=0)
        col = pick % d
        sign = np.where(pick < d, 1.0, -1.0)
        W *= 1.0 - mu
        W[col, cols] += mu * radius * sign
        # margins: a_c <- (1 - mu) a_c + mu sign_c R X[:, col_c]
        a *= np.float32(1.0 - mu)
        step = X[:, col]
        step *= (mu * radius * sign).astype(np.float32)
        a += step
        del step
        if on_iteration is not None:
            on_iteration(it)
    return W, T


def recover(np, w, p, k, symmetrize=True):
    """Eq. (1), the average over v, centring and symmetrisation."""
    node, u, v = problems(np, p, k)
    q = len(node)
    blocks = w[:p * k].reshape(p, k, q)                  # [j, b, c]
    sums = blocks.sum(axis=1)                            # [j, c]
    own = np.arange(p)[:, None] == node[None, :]         # [j, c]
    sums[own] = 0.0                                      # own block is never selected
    U = blocks - sums[:, None, :] / k
    U[np.broadcast_to(own[:, None, :], U.shape)] = 0.0
    Uc = w[p * k] + sums.sum(axis=0) / k                 # [c]

    Wh = np.zeros((p, p, k, k))                          # [i, j, a, b]
    theta = np.zeros((p, k))
    # each column c adds U[:, :, c] / k to Wh[node_c, :, u_c, :]
    np.add.at(Wh, (node, slice(None), u), (U / k).transpose(2, 0, 1))
    np.add.at(theta, (node, u), Uc / k)
    for i in range(p):
        Wh[i, i] = 0.0
    Wh -= Wh.mean(axis=2, keepdims=True)                 # columns of every block
    theta -= theta.mean(axis=1, keepdims=True)
    if symmetrize:
        Wh = 0.5 * (Wh + Wh.transpose(1, 0, 3, 2))
    return Wh, theta


def main():
    args = parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import numpy as np

    t_start = time.perf_counter()
    Z = np.load(args.data)
    if Z.ndim != 2 or Z.dtype != np.uint8:
        sys.exit("--data must be a 2-d uint8 array")
    if Z.max() >= args.k:
        sys.exit("a value is outside 0..k-1")
    n, p = Z.shape
    k = args.k
    t_loaded = time.perf_counter()

    rng = np.random.default_rng(args.seed)
    marks = []
    w, T = learn(np, Z, k, args.rho, args.lam, args.iterations, rng,
                 on_iteration=lambda t: marks.append(time.perf_counter()))
    Wh, theta = recover(np, w, p, k, symmetrize=not args.no_symmetrize)
    t_done = time.perf_counter()

    learn_s = t_done - t_loaded
    print(f"n: {n}")
    print(f"p: {p}")
    print(f"k: {k}")
    print(f"iterations: {T}")
    print(f"selections: {T - 1}")
    print(f"load_s: {t_loaded - t_start:.4f}")
    print(f"learn_s: {learn_s:.4f}")
    print(f"per_iteration_ms: {1000.0 * learn_s / (T - 1):.3f}")
    if len(marks) >= 2:
        steps = np.diff(np.array(marks))
        print(f"steady_iteration_ms: {1000.0 * steps.mean():.3f}")
        print(f"median_iteration_ms: {1000.0 * np.median(steps):.3f}")
        print(f"first_iteration_end_s: {marks[0] - t_loaded:.3f}")
    print(f"total_s: {t_done - t_start:.4f}")
    if args.true_model:
        truth = np.load(args.true_model).ravel()
        cells = p * p * k * k
        if truth.shape != (cells + p * k,):
            sys.exit("--true-model must hold p^2 k^2 + p k values")
        print(f"max_abs_error_W: {np.max(np.abs(Wh.ravel() - truth[:cells])):.4f}")
        print(f"max_abs_error_theta: {np.max(np.abs(theta.ravel() - truth[cells:])):.4f}")


if __name__ == "__main__":
    main()
