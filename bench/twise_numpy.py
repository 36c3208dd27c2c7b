#!/usr/bin/python3
"""NumPy baseline of mrfdp's private binary t-wise learner (objective l1).

The same algorithm as src/core/twise.c + fw.c (Zhang et al. 2020,
Algorithm 4; docs/privacy.md 3 and 6), written the way a careful NumPy user
would, to compare speed and memory against the C core.  One design matrix
serves all p node regressions:

  X                           n x D float32, column-major: one column per set
                              of at most t-1 variables, in the graded colex
                              order of twise.h (intercept, z_0..z_{p-1},
                              then products)
  allowed[c, i]               set c does not contain node i
  a                           n x p margins, a[:, i] = X w_i
  G = (y - tanh(a/2)) / 2     n x p, y[:, i] = z_i
  scores = R * X^T G          D x p, the one BLAS product per iteration
  vertex of node i            argmax over allowed (c, sign) of
                              sign * scores[c, i] * eps0 / (2 Du) + Gumbel
  w <- (1 - mu) w + mu s      mu_t = 2 / (t + 2)

with R = 2 lambda, rho_node = rho / p, T = max(2, ceil((R n sqrt(rho_node))^(2/3))),
eps0 = sqrt(8 rho_node / (T - 1)), Du = 2R.  Output: the coefficient of
{i} u K is w_i(K) / 2 for the node i below every member of K.

THIS IS A BENCHMARK BASELINE, NOT A PRIVATE IMPLEMENTATION: its Gumbel noise
comes from numpy's default generator, neither a secure source nor free of
floating-point side channels, and its gradients are not quantised.

Usage:
  /usr/bin/python3 bench/twise_numpy.py --data data.npy --t 3 --rho 1 \
      [--lambda 1] [--iterations T] [--true-model coef.npy] [--threads 1]

--data is an n x p int8 .npy of +-1 values (bench_twise --out writes one);
--true-model a 1 x MrfTwiseCoefCount(p, t) .npy of coefficients in the same
order.  Output lines are "key: value".  --threads sets OPENBLAS_NUM_THREADS
before numpy is imported (default 1, like the C benchmark).
"""

import argparse
import itertools
import math
import os
import resource
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="n x p int8 .npy of +-1 samples")
    ap.add_argument("--t", type=int, default=3)
    ap.add_argument("--rho", type=float, required=True)
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--iterations", type=int, default=0,
                    help="T (T-1 selections); 0 = the default from public values")
    ap.add_argument("--true-model", help="1 x count .npy of true coefficients")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    return ap.parse_args()


def subsets(p, max_size):
    """All sets of size 0..max_size in the graded colex order of twise.h."""
    out = [()]
    for k in range(1, min(max_size, p) + 1):
        out.extend(sorted(itertools.combinations(range(p), k), key=lambda s: s[::-1]))
    return out


def default_iterations(radius, n, rho_node):
    """T = ceil((R n sqrt(rho_node))^(2/3)), at least 2 (docs/privacy.md 3.4)."""
    return max(2, math.ceil((radius * n * math.sqrt(rho_node)) ** (2.0 / 3.0) * (1 - 1e-12)))


def learn(np, Z, t, rho, lam, iterations, rng, on_iteration=None):
    """Private Frank-Wolfe for all p node regressions; returns (coef, T)."""
    n, p = Z.shape
    feats = subsets(p, t - 1)
    index = {s: c for c, s in enumerate(subsets(p, t))}
    D = len(feats)
    radius = 2.0 * lam
    rho_node = rho / p
    T = iterations or default_iterations(radius, n, rho_node)
    if T < 2:
        raise ValueError("iterations must be at least 2")
    eps0 = math.sqrt(8.0 * rho_node / (T - 1))
    scale = eps0 / (2.0 * 2.0 * radius)

    X = np.empty((n, D), dtype=np.float32, order="F")
    X[:, 0] = 1.0
    X[:, 1:p + 1] = Z
    for c in range(p + 1, D):
        s = feats[c]
        np.multiply(X[:, index[s[:-1]]], X[:, 1 + s[-1]], out=X[:, c])
    Y = X[:, 1:p + 1]
    # candidates [+e_0..+e_{D-1}, -e_0..-e_{D-1}] per node; forbid sets containing i
    forbidden = np.zeros((2 * D, p), dtype=bool)
    for c, s in enumerate(feats):
        for i in s:
            forbidden[c, i] = forbidden[D + c, i] = True

    a = np.zeros((n, p), dtype=np.float32, order="F")
    G = np.empty((n, p), dtype=np.float32, order="F")
    W = np.zeros((D, p))
    nodes = np.arange(p)
    for it in range(1, T):
        mu = 2.0 / (it + 2.0)
        np.multiply(a, 0.5, out=G)
        np.tanh(G, out=G)
        np.subtract(Y, G, out=G)
        G *= 0.5
        scores = (X.T @ G).astype(np.float64) * (radius * scale)
        noisy = np.concatenate([scores, -scores], axis=0)
        noisy += rng.gumbel(size=noisy.shape)
        noisy[forbidden] = -np.inf
        pick = np.argmax(noisy, axis=0)
        col = pick % D
        sign = np.where(pick < D, 1.0, -1.0)
        W *= 1.0 - mu
        W[col, nodes] += mu * radius * sign
        a *= np.float32(1.0 - mu)
        step = X[:, col]
        step *= (mu * radius * sign).astype(np.float32)
        a += step
        if on_iteration is not None:
            on_iteration(it)

    coef = np.zeros(len(index))
    for c, s in enumerate(feats):
        lo = s[0] if s else p
        for i in range(lo):
            coef[index[(i,) + s]] = W[c, i] / 2.0
    return coef, T


def main():
    args = parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import numpy as np

    t_start = time.perf_counter()
    Z = np.load(args.data)
    if Z.ndim != 2:
        sys.exit("--data must be a 2-d array")
    n, p = Z.shape
    t_loaded = time.perf_counter()

    rng = np.random.default_rng(args.seed)
    marks = []
    coef, T = learn(np, Z, args.t, args.rho, args.lam, args.iterations, rng,
                    on_iteration=lambda it: marks.append(time.perf_counter()))
    t_done = time.perf_counter()

    learn_s = t_done - t_loaded
    print(f"n: {n}")
    print(f"p: {p}")
    print(f"t: {args.t}")
    print(f"iterations: {T}")
    print(f"load_s: {t_loaded - t_start:.4f}")
    print(f"learn_s: {learn_s:.4f}")
    print(f"per_iteration_ms: {1000.0 * learn_s / (T - 1):.3f}")
    if len(marks) >= 2:
        print(f"steady_iteration_ms: {1000.0 * (marks[-1] - marks[0]) / (len(marks) - 1):.3f}")
    print(f"total_s: {t_done - t_start:.4f}")
    print(f"peak_rss_mib: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0:.1f}")
    if args.true_model:
        truth = np.load(args.true_model).ravel()
        if truth.shape != coef.shape:
            sys.exit("--true-model has the wrong length")
        print(f"max_abs_error_coef: {np.max(np.abs(coef[1:] - truth[1:])):.4f}")


if __name__ == "__main__":
    main()
