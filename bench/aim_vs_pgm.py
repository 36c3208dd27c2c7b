#!/usr/bin/python3
"""aim_vs_pgm.py - private-pgm's MST and AIM on the tables of
bench/aim_vs_pgm.sh (which runs mrfdp's on the same rows).

Uses a private-pgm checkout (its mechanisms/ and src/ at 514dea3, run with
Debian's numpy, scipy, pandas and networkx) as a library: nothing of it is
copied here.  Its mechanism.py imports autodp for (epsilon, delta) Gaussian
calibrations AIM never calls, and aim.py hdmm for an identity matrix:
stand-in modules satisfy those imports (neither is a Debian package).

  aim_vs_pgm.py export PGM TABLE DIR    writes DIR/TABLE.npy (uint8 codes,
                                        n x p) and DIR/TABLE.json (names,
                                        alphabets); prints the alphabets
  aim_vs_pgm.py mst|aim DIR TABLE RHO SEED PGM
                                        one release at zCDP RHO (add/remove
                                        neighbours, private-pgm's); prints
                                        "pgm-<algo> seconds err2 err3 detail"
  aim_vs_pgm.py evaluate DIR TABLE MODEL PGM
                                        the errors of a private-pgm AIM model
                                        that "aim" kept (DIR/pgm-aim-TABLE-
                                        RHO-SEED.pickle, written before its
                                        own evaluation)
  aim_vs_pgm.py summary RESULTS         aim_vs_pgm.sh's results as a
                                        markdown table: mean over the seeds
                                        that finished (their number in
                                        brackets), runs cut off apart

Tables: adult (private-pgm's data/adult.csv, 14 columns), adult9 (its nine
columns of at most 42 values: Adult without age, fnlwgt, capital-gain,
capital-loss and hours-per-week), and mlbench's HouseVotes84 (17 columns),
BreastCancer (10 columns, Id dropped) and Soybean (36 columns) through
Rscript.  mlbench's columns are R factors: a column's codes are its
declared levels 0..k-1, and a missing value is one more category k (in every
row that has one, so no row is dropped; the same rows for both libraries).

Errors: the model's own marginals (exact, from its junction tree's clique
marginals, tree_marginal; MST's
compressed values spread uniformly back over the values they stand for, as
its sampler does) against the rows', L1 of the probability tables, mean over
every 2-way and every 3-way marginal, as bench_aim_width computes mrfdp's.
"""
import itertools
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
import types

import numpy as np

MLBENCH = {"housevotes": ("HouseVotes84", []),
           "breastcancer": ("BreastCancer", ["Id"]),
           "soybean": ("Soybean", [])}
ADULT9_DROP = ["age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]


def load_pgm(pgm):
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


def mlbench(name, drop):
    """An mlbench data frame as codes: factor levels 0..k-1, NA as k."""
    with tempfile.TemporaryDirectory() as tmp:
        codes, sizes = os.path.join(tmp, "codes.csv"), os.path.join(tmp, "sizes.csv")
        script = (
            f"library(mlbench); data({name}); d <- {name}; "
            f"d <- d[, setdiff(names(d), c({','.join(repr(c) for c in drop)}))]; "
            "k <- sapply(d, function(f) nlevels(f) + any(is.na(f))); "
            "m <- sapply(d, function(f) ifelse(is.na(f), nlevels(f), as.integer(f) - 1)); "
            f"write.csv(m, '{codes}', row.names = FALSE); "
            f"write.csv(data.frame(name = names(d), k = k), '{sizes}', row.names = FALSE)")
        subprocess.run(["Rscript", "-e", script], check=True, capture_output=True)
        rows = np.loadtxt(codes, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
        with open(sizes) as f:
            lines = [ln.strip().split(",") for ln in f.readlines()[1:]]
    names = [ln[0].strip('"') for ln in lines]
    return names, [int(ln[1]) for ln in lines], rows


def export(pgm, table, out):
    if table in MLBENCH:
        names, sizes, rows = mlbench(*MLBENCH[table])
    elif table in ("adult", "adult9"):
        import pandas as pd
        with open(os.path.join(pgm, "data", "adult-domain.json")) as f:
            dom = json.load(f)
        names = [c for c in dom if table == "adult" or c not in ADULT9_DROP]
        sizes = [dom[c] for c in names]
        rows = pd.read_csv(os.path.join(pgm, "data", "adult.csv"))[names].to_numpy()
    else:
        sys.exit("unknown table %s" % table)
    if rows.min() < 0 or (rows >= np.array(sizes)).any() or max(sizes) > 256:
        sys.exit("codes outside the alphabets")
    np.save(os.path.join(out, table + ".npy"), np.ascontiguousarray(rows.astype(np.uint8)))
    with open(os.path.join(out, table + ".json"), "w") as f:
        json.dump({"names": names, "sizes": sizes}, f)
    print(",".join(str(k) for k in sizes))


def dataset(out, table):
    import pandas as pd
    from mbi import Dataset, Domain
    with open(os.path.join(out, table + ".json")) as f:
        meta = json.load(f)
    rows = np.load(os.path.join(out, table + ".npy")).astype(np.int64)
    return Dataset(pd.DataFrame(rows, columns=meta["names"]),
                   Domain(meta["names"], meta["sizes"]))


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


def tree_marginal(model, marg, attrs):
    """attrs' marginal of a private-pgm model, from its junction tree's
    calibrated clique marginals (marg): one message pass over the smallest
    subtree whose cliques hold attrs, each clique's table times its
    children's messages contracted (numpy.einsum) down to the separator and
    the attrs seen so far, over the separator's table.  The model's own
    project() eliminates over the whole model instead, which for some
    triples of whole Adult asked for 71 GiB."""
    import networkx as nx
    attrs = tuple(attrs)
    label = {a: i for i, a in enumerate(model.domain.attrs)}
    for cl in model.cliques:
        if set(attrs) <= set(cl):
            f = marg[cl].project(attrs)
            return np.moveaxis(f.values, [f.domain.attrs.index(a) for a in attrs],
                               range(len(attrs)))
    tree = model.junction_tree.tree
    terminals = []
    for a in attrs:
        holders = [cl for cl in model.cliques if a in cl]
        terminals.append(max(holders, key=lambda cl: len(set(cl) & set(attrs))))
    groups = {}
    for t in terminals:
        groups.setdefault(min(nx.node_connected_component(tree, t)), []).append(t)

    def message(sub, c, parent):
        f = marg[c]
        ops = [f.values, [label[a] for a in f.domain.attrs]]
        seen = set(c)
        for k in sub.neighbors(c):
            if k != parent:
                arr, dims = message(sub, k, c)
                ops += [arr, [label[a] for a in dims]]
                seen |= set(dims)
        carried = [a for a in attrs if a in seen]
        if parent is None:
            keep = carried
        else:
            sep = [a for a in c if a in parent]
            keep = sep + [a for a in carried if a not in sep]
            s = f.project(sep)
            inv = np.divide(1.0, s.values, out=np.zeros_like(s.values), where=s.values > 0)
            ops += [inv, [label[a] for a in s.domain.attrs]]
        return np.einsum(*ops, [label[a] for a in keep], optimize=True), keep

    ops = []
    for root, group in groups.items():
        root = group[0]
        nodes = set()
        for t in group:
            nodes |= set(nx.shortest_path(tree, root, t))
        arr, dims = message(tree.subgraph(nodes), root, None)
        ops += [arr / arr.sum(), [label[a] for a in dims]]
    return np.einsum(*ops, [label[a] for a in attrs], optimize=True)


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
    return seconds, e2, e3, "%d columns compressed" % sum(
        1 for s in supports.values() if not s.all())


def run_aim(data, rho, seed, keep=None):
    import aim
    from mbi import FactoredInference, GraphicalModel
    np.random.seed(seed)
    # aim.py ends by sampling a synthetic table from the model: the time is
    # the learning's, as mrfdp's (the errors are the model's own)
    GraphicalModel.synthetic_data = lambda self, rows=None, method="round": None
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
    # aim.py's defaults: 16 p rounds, 80 MB model, 1,000 estimator steps a round
    mech = aim.AIM(1.0, 1e-9, max_model_size=80)
    mech.rho = rho
    mech.prng = np.random
    annealed = [0]
    # aim.py announces each halving of sigma on stdout: count them, keep stdout ours
    real_print = print

    def quiet(*a, **k):
        if a and "Reducing sigma" in str(a[0]):
            annealed[0] += 1
    aim.print = quiet
    # aim.py's own default workload: every pair of at most 10,000 cells
    workload = [(cl, 1.0) for cl in itertools.combinations(data.domain, 2)
                if data.domain.size(cl) <= 10000]
    t0 = time.time()
    model, _ = mech.run(data, workload)
    seconds = time.time() - t0
    aim.print = real_print
    # kept before evaluating, so that a model that took hours survives its evaluation
    if keep is not None:
        with open(keep, "wb") as f:
            pickle.dump(model, f)
    e2, e3 = model_errors(data, model)
    # estimates: the first, one a round, the final one
    return seconds, e2, e3, "%d rounds, %d annealed, %d cliques" % (
        calls[0] - 2, annealed[0], len(model.cliques))


def model_errors(data, model):
    marg = model.belief_propagation(model.potentials)

    def marginal(cl):
        f = tree_marginal(model, marg, cl).ravel()
        return f / f.sum()
    return errors(data, marginal)


LEARNERS = ["mrfdp-mst", "pgm-mst", "mrfdp-aim", "mrfdp-aim2", "pgm-aim"]


def summary(path):
    runs = {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        runs.setdefault((f[0], f[1], f[3]), []).append(f)
    print("| table | rho pgm / mrfdp | learner | seeds | seconds | 2-way | 3-way |")
    print("|---|---|---|---|---|---|---|")
    for table, rho in sorted({(t, r) for t, r, _ in runs}, key=lambda k: (k[0], float(k[1]))):
        for learner in LEARNERS:
            fs = runs.get((table, rho, learner), [])
            ok = [f for f in fs if f[4] != "cut"]
            cut = [f for f in fs if f[4] == "cut"]
            if not fs:
                continue
            cells = ["-", "-", "-"]
            if ok:
                cells = ["%.3g" % np.mean([float(f[i]) for f in ok]) for i in (4, 5, 6)]
                if len(ok) > 1:
                    cells[1:] = ["%s (%.4f..%.4f)" % (c, min(float(f[i]) for f in ok),
                                                      max(float(f[i]) for f in ok))
                                 for c, i in zip(cells[1:], (5, 6))]
            seeds = ",".join(f[2] for f in ok)
            if cut:
                seeds += " (seed %s cut off %s)" % (
                    ",".join(f[2] for f in cut), " ".join(cut[0][7:]))
            print("| %s | %s / %g | %s | %s | %s | %s | %s |" % (
                table, rho, 2 * float(rho), learner, seeds, *cells))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
        return
    if len(sys.argv) == 5 and sys.argv[1] == "export":
        load_pgm(sys.argv[2])
        export(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    if len(sys.argv) == 6 and sys.argv[1] == "evaluate":
        load_pgm(sys.argv[5])
        data = dataset(sys.argv[2], sys.argv[3])
        with open(sys.argv[4], "rb") as f:
            model = pickle.load(f)
        print("pgm-aim-model %.5f %.5f" % tuple(model_errors(data, model)), flush=True)
        return
    if len(sys.argv) != 7 or sys.argv[1] not in ("mst", "aim"):
        sys.exit(__doc__)
    load_pgm(sys.argv[6])
    data = dataset(sys.argv[2], sys.argv[3])
    rho, seed = float(sys.argv[4]), int(sys.argv[5])
    if sys.argv[1] == "aim":
        keep = os.path.join(sys.argv[2], "pgm-aim-%s-%s-%d.pickle" % (sys.argv[3], sys.argv[4], seed))
        seconds, e2, e3, detail = run_aim(data, rho, seed, keep)
    else:
        seconds, e2, e3, detail = run_mst(data, rho, seed)
    print("pgm-%s %.1f %.5f %.5f %s" % (sys.argv[1], seconds, e2, e3, detail), flush=True)


if __name__ == "__main__":
    main()
