#!/usr/bin/python3
"""NumPy baseline of mrfdp's private Frank-Wolfe Ising learner.

The same algorithm as src/core/ising.c + fw.c (docs/privacy.md 3 and 4), written
the way a careful NumPy user would, to compare speed and memory against the C
core.  All p node regressions advance together:

  X = [Z, 1]                  n x (p+1) float32, column-major
  a                           n x p margins, a[:, i] = X w_i
  G = (y - tanh(a/2)) / 2     n x p; minus the logistic-loss gradient factor
  scores = R * X^T G          (p+1) x p, one matrix product per iteration
  vertex of node i            argmax over (j != i, sign) of
                              sign * scores[j, i] * eps0 / (2 Du) + Gumbel
  w <- (1 - mu) w + mu s      mu_t = 2 / (t + 2); the margins move by one
                              column of X per node

with R = 2 lambda, rho_node = rho / p, T = max(2, ceil((R n sqrt(rho_node))^(2/3))),
rho_it = rho_node / (T - 1), eps0 = sqrt(8 rho_it), Du = 2R.  Output:
A = W[:p]^T / 2 symmetrised, theta = W[p] / 2.

THIS IS A BENCHMARK BASELINE, NOT A PRIVATE IMPLEMENTATION: its Gumbel noise
comes from numpy's default generator (PCG64), which is neither a secure source
nor free of floating-point side channels.  Use the extension for privacy.

Usage:
  /usr/bin/python3 bench/ising_numpy.py --p 100 --n 100000 --rho 1 \
      [--lambda 1] [--iterations T] [--data data.npy] [--true-model model.npy]

--data is an n x p int8 .npy of +-1 values (0/1 is mapped to -1/+1); without
it the data are i.i.d. uniform +-1 bits.  --true-model is a (p+1) x p .npy:
rows 0..p-1 hold the true A, row p the true theta.  Output lines are
"key: value" so scripts can parse them.

BLAS threads: OpenBLAS reads OPENBLAS_NUM_THREADS when numpy is imported, so
--threads sets it before the import (default 1, like the C benchmark).
Use /usr/bin/python3: Debian's numpy is linked against OpenBLAS.
"""

import argparse
import math
import os
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--p", type=int, default=100)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--rho", type=float, required=True)
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--iterations", type=int, default=0,
                    help="T (T-1 selections); 0 = the default from public values")
    ap.add_argument("--data", help="n x p int8 .npy of +-1 samples")
    ap.add_argument("--true-model", help="(p+1) x p .npy: A rows, then theta")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    ap.add_argument("--no-symmetrize", action="store_true")
    return ap.parse_args()


def default_iterations(radius, n, rho_node):
    """T = ceil((R n sqrt(rho_node))^(2/3)), at least 2 (docs/privacy.md 3.4)."""
    return max(2, math.ceil((radius * n * math.sqrt(rho_node)) ** (2.0 / 3.0)))


def learn(np, Z, rho, lam, iterations, rng, symmetrize=True, on_iteration=None):
    """Private Frank-Wolfe for all p node regressions; returns (A, theta, T)."""
    n, p = Z.shape
    d = p + 1
    radius = 2.0 * lam                       # R: L1 radius, docs/privacy.md 4
    rho_node = rho / p
    T = iterations or default_iterations(radius, n, rho_node)
    if T < 2:
        raise ValueError("iterations must be at least 2")
    rho_it = rho_node / (T - 1)
    eps0 = math.sqrt(8.0 * rho_it)           # exponential mechanism, docs/privacy.md 3
    du = 2.0 * radius                        # replace-one sensitivity of a sum score
    scale = eps0 / (2.0 * du)

    # Column-major like the C core, so column gathers are contiguous.
    X = np.empty((n, d), dtype=np.float32, order="F")
    X[:, :p] = Z
    X[:, p] = 1.0
    Y = X[:, :p]                             # y of node i is column i of X
    a = np.zeros((n, p), dtype=np.float32, order="F")
    G = np.empty((n, p), dtype=np.float32, order="F")
    W = np.zeros((d, p))                     # column i: weights of node i
    nodes = np.arange(p)
    # Node i may not select its own label column, with either sign.
    forbidden = (np.concatenate([nodes, nodes + d]), np.concatenate([nodes, nodes]))

    for t in range(1, T):
        mu = 2.0 / (t + 2.0)
        # G = (y - tanh(a/2)) / 2, in place to avoid n x p temporaries.
        np.multiply(a, 0.5, out=G)
        np.tanh(G, out=G)
        np.subtract(Y, G, out=G)
        G *= 0.5
        scores = X.T @ G                     # the one BLAS product: (p+1) x p
        scores = scores.astype(np.float64) * (radius * scale)
        noisy = np.concatenate([scores, -scores], axis=0)
        noisy += rng.gumbel(size=noisy.shape)
        noisy[forbidden] = -np.inf
        pick = np.argmax(noisy, axis=0)      # index into [+e_0..+e_p, -e_0..-e_p]
        col = pick % d
        sign = np.where(pick < d, 1.0, -1.0)

        W *= 1.0 - mu
        W[col, nodes] += mu * radius * sign
        # Margins: a_i <- (1 - mu) a_i + mu * sign_i * R * X[:, col_i].
        a *= np.float32(1.0 - mu)
        step = X[:, col]
        step *= (mu * radius * sign).astype(np.float32)
        a += step
        if on_iteration is not None:
            on_iteration(t)

    A = W[:p].T / 2.0
    np.fill_diagonal(A, 0.0)
    if symmetrize:
        A = (A + A.T) / 2.0
    theta = W[p] / 2.0
    return A, theta, T


def main():
    args = parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import numpy as np

    t_start = time.perf_counter()
    if args.data:
        Z = np.load(args.data)
        if Z.ndim != 2:
            sys.exit("--data must be a 2-d array")
        if Z.min() >= 0:
            Z = 2 * Z.astype(np.int8) - 1
        n, p = Z.shape
    else:
        n, p = args.n, args.p
        Z = np.where(np.random.default_rng(args.seed + 1).random((n, p)) < 0.5, -1, 1)
        Z = Z.astype(np.int8)
    t_loaded = time.perf_counter()

    rng = np.random.default_rng(args.seed)
    marks = []
    A, theta, T = learn(np, Z, args.rho, args.lam, args.iterations, rng,
                        symmetrize=not args.no_symmetrize,
                        on_iteration=lambda t: marks.append(time.perf_counter()))
    t_done = time.perf_counter()

    learn_s = t_done - t_loaded
    print(f"n: {n}")
    print(f"p: {p}")
    print(f"iterations: {T}")
    print(f"selections: {T - 1}")
    print(f"load_s: {t_loaded - t_start:.4f}")
    print(f"learn_s: {learn_s:.4f}")
    print(f"per_iteration_ms: {1000.0 * learn_s / (T - 1):.3f}")
    if len(marks) >= 2:
        # Steady state: excludes the setup before the first iteration.
        steady = (marks[-1] - marks[0]) / (len(marks) - 1)
        print(f"steady_iteration_ms: {1000.0 * steady:.3f}")
    print(f"total_s: {t_done - t_start:.4f}")
    if args.true_model:
        truth = np.load(args.true_model)
        if truth.shape != (p + 1, p):
            sys.exit("--true-model must be (p+1) x p")
        print(f"max_abs_error_A: {np.max(np.abs(A - truth[:p])):.4f}")
        print(f"max_abs_error_theta: {np.max(np.abs(theta - truth[p])):.4f}")


if __name__ == "__main__":
    main()
