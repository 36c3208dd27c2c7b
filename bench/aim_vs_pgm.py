#!/usr/bin/python3
"""aim_vs_pgm.py - private-pgm's MST and AIM on UCI Adult, for
bench/aim_vs_pgm.sh (which runs mrfdp's on the same rows).

Uses a private-pgm checkout (its mechanisms/ and src/ at 514dea3, run with
Debian's numpy, scipy, pandas and networkx) as a library: nothing of it is
copied here.  Its mechanism.py imports autodp for (epsilon, delta) Gaussian
calibrations AIM never calls, and aim.py hdmm for an identity matrix:
stand-in modules satisfy those imports (neither is a Debian package).

  aim_vs_pgm.py export PGM OUT.npy      Adult as uint8 rows; prints the alphabets
  aim_vs_pgm.py mst|aim PGM RHO SEED    one release at zCDP RHO (add/remove
                                        neighbours, private-pgm's); prints
                                        "pgm-<algo> seconds err2 err3 detail"

Errors: the model's own marginals (exact, from its graphical model; MST's
compressed values spread uniformly back over the values they stand for, as
its sampler does) against the rows', L1 of the probability tables, mean over
every 2-way and every 3-way marginal, as bench_aim_width computes mrfdp's.
"""
import itertools
import json
import os
import sys
import time
import types

import numpy as np


def load(pgm):
    sys.path[:0] = [os.path.join(pgm, "src"), os.path.join(pgm, "mechanisms"), pgm]
    stub = types.ModuleType("autodp")
    stub.privacy_calibrator = None
    sys.modules.setdefault("autodp", stub)
    # aim.py's measurement matrix: hdmm's Identity, here scipy's (the same matrix)
    import scipy.sparse
    hdmm = types.ModuleType("hdmm")
    hdmm.matrix = types.ModuleType("hdmm.matrix")
    hdmm.matrix.Identity = lambda size: scipy.sparse.eye(size)
    sys.modules.setdefault("hdmm", hdmm)
    sys.modules.setdefault("hdmm.matrix", hdmm.matrix)
    from mbi import Dataset
    return Dataset.load(os.path.join(pgm, "data", "adult.csv"),
                        os.path.join(pgm, "data", "adult-domain.json"))


def errors(data, marginal):
    """Mean L1 over every pair and every triple; marginal(cols) -> probabilities."""
    n = data.records
    out = []
    for size in (2, 3):
        l1 = []
        for cl in itertools.combinations(data.domain.attrs, size):
            x = data.project(cl).datavector() / n
            l1.append(np.abs(marginal(cl) - x).sum())
        out.append(float(np.mean(l1)))
    return out


def expand(marg, cols, supports):
    """A compressed marginal over the original values: the last value of a
    compressed column (its rare values together) split evenly among them."""
    for axis, col in enumerate(cols):
        sup = supports.get(col)
        if sup is None or sup.all():
            continue
        kept = np.where(sup)[0]
        rare = np.where(~sup)[0]
        m = np.zeros((sup.size, int(sup.sum()) + 1))
        m[kept, np.arange(kept.size)] = 1.0
        m[rare, -1] = 1.0 / rare.size
        marg = np.moveaxis(np.tensordot(m, marg, axes=([1], [axis])), 0, axis)
    return marg


def run_mst(data, rho, seed):
    import mst
    from mbi import FactoredInference
    np.random.seed(seed)
    # mst.MST takes (epsilon, delta): feed it the rho asked for
    mst.cdp_rho = lambda eps, delta: rho
    kept = {}
    estimate = FactoredInference.estimate

    def keep_estimate(self, *a, **k):
        kept["model"] = estimate(self, *a, **k)
        return kept["model"]
    compress = mst.compress_domain

    def keep_compress(d, log):
        out = compress(d, log)
        # reverse_data(data, supports) is the closure's: read supports back
        for cell in out[2].__closure__ or ():
            if isinstance(cell.cell_contents, dict):
                kept["supports"] = cell.cell_contents
        return out
    FactoredInference.estimate = keep_estimate
    mst.compress_domain = keep_compress
    t0 = time.time()
    mst.MST(data, 1.0, 1e-9)
    seconds = time.time() - t0
    model = kept["model"]
    supports = kept.get("supports", {})

    def marginal(cl):
        f = model.project(list(cl)).datavector(flatten=False)
        f = expand(f, cl, supports)
        return (f / f.sum()).ravel()
    e2, e3 = errors(data, marginal)
    return seconds, e2, e3, "compressed to %s" % json.dumps(
        {c: int(s.sum()) + (0 if s.all() else 1) for c, s in supports.items()})


def run_aim(data, rho, seed):
    import aim
    from mbi import FactoredInference
    np.random.seed(seed)
    # one estimate a round: a trace of the rounds done, for a capped run
    estimate = FactoredInference.estimate
    t0 = time.time()
    calls = [0]

    def traced_estimate(self, *a, **k):
        out = estimate(self, *a, **k)
        calls[0] += 1
        print("pgm-aim estimate %d (round %d) at %.0f s" % (calls[0], calls[0] - 1,
              time.time() - t0), file=sys.stderr, flush=True)
        return out
    FactoredInference.estimate = traced_estimate
    mech = aim.AIM(1.0, 1e-9, max_model_size=80)
    mech.rho = rho
    mech.prng = np.random
    # aim.py's own default workload: every pair of at most 10,000 cells
    workload = [(cl, 1.0) for cl in itertools.combinations(data.domain, 2)
                if data.domain.size(cl) <= 10000]
    t0 = time.time()
    model, _ = mech.run(data, workload)
    seconds = time.time() - t0

    def marginal(cl):
        f = model.project(list(cl)).datavector()
        return f / f.sum()
    e2, e3 = errors(data, marginal)
    return seconds, e2, e3, "%d cliques" % len(model.cliques)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "export":
        data = load(sys.argv[2])
        cols = data.domain.attrs
        rows = data.df[list(cols)].to_numpy()
        if rows.min() < 0 or rows.max() > 255:
            sys.exit("values outside 0..255")
        np.save(sys.argv[3], np.ascontiguousarray(rows.astype(np.uint8)))
        print(",".join(str(data.domain[c]) for c in cols))
        return
    if len(sys.argv) != 5 or sys.argv[1] not in ("mst", "aim"):
        sys.exit(__doc__)
    data = load(sys.argv[2])
    rho, seed = float(sys.argv[3]), int(sys.argv[4])
    seconds, e2, e3, detail = (run_mst if sys.argv[1] == "mst" else run_aim)(data, rho, seed)
    print("pgm-%s %.1f %.5f %.5f %s" % (sys.argv[1], seconds, e2, e3, detail), flush=True)


if __name__ == "__main__":
    main()
