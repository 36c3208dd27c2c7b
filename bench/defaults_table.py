#!/usr/bin/python3
"""Markdown tables of the defaults study (bench/bench_defaults.c).

Usage: defaults_table.py DIR  (reads DIR/ising.tsv, pairwise.tsv, twise.tsv,
structure.tsv when present; writes Markdown on stdout).

For the learners: medians over the repeated releases of each cell, then per
cell today's defaults (lambda 1, the paper's T), the paper's oracle (lambda =
the true width, the paper's T), the shipped default (DEFAULTS below, which
must match src/core/privacy.c) and the best configuration of the sweep; a
ranking of every configuration by the geometric mean of its error ratio to
the oracle.  For the structure study: the fraction of blocks exactly right
and the largest fraction agreeing on one wrong graph.
"""
import collections
import math
import os
import statistics
import sys

# The shipped defaults, as configurations of the sweep (privacy.c).
DEFAULTS = {"ising": "L8/T4", "pairwise": "L4/T4", "twise": "L4/T4"}


def read(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def learner_tables(study, rows):
    cells = collections.OrderedDict()
    for r in rows:
        key = (r["family"], int(r["p"]), int(r["n"]), float(r["rho"]), float(r["width"]))
        cells.setdefault(key, collections.defaultdict(list))[r["config"]].append(float(r["error"]))
    med = {c: {k: statistics.median(v) for k, v in d.items()} for c, d in cells.items()}
    nconf = max(len(m) for m in med.values())
    med = {c: m for c, m in med.items() if len(m) == nconf}  # a cell cut short is left out
    configs = [k for k in next(iter(med.values())).keys()]
    default = DEFAULTS[study]
    out = []
    out.append(f"Ranking ({study}; {len(med)} cells): geometric mean of the median error's ratio to the oracle's, "
               "to today's, and the cells where the configuration is worse than the oracle.\n")
    out.append("| configuration | vs oracle | vs today | worse than oracle | worst vs oracle |")
    out.append("|---|---|---|---|---|")
    ranked = []
    for cf in configs:
        ro = [m[cf] / m["oracle"] for m in med.values() if cf in m and m["oracle"] > 0]
        rt = [m[cf] / m["today"] for m in med.values() if cf in m and m["today"] > 0]
        ranked.append((gmean(ro), cf, gmean(rt), sum(x > 1 for x in ro), len(ro), max(ro)))
    ranked.sort()
    for g, cf, gt, worse, tot, worst in ranked[:12]:
        mark = " **(default)**" if cf == default else ""
        out.append(f"| {cf}{mark} | {g:.2f} | {gt:.2f} | {worse} of {tot} | {worst:.2f} |")
    if default not in [r[1] for r in ranked[:12]]:
        for g, cf, gt, worse, tot, worst in ranked:
            if cf == default:
                out.append(f"| {cf} **(default)** | {g:.2f} | {gt:.2f} | {worse} of {tot} | {worst:.2f} |")
    out.append("")
    out.append(f"Cells ({study}): median max-error of {default} (the default) against today's defaults "
               "(lambda 1, paper's T), the oracle (true width, paper's T) and the best of the sweep.\n")
    out.append("| family | p | n | rho | width | today | oracle | default | best (config) | default / oracle |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for (fam, p, n, rho, w), m in med.items():
        best = min(m, key=m.get)
        ratio = m[default] / m["oracle"]
        flag = " (loses)" if ratio > 1 else ""
        out.append(f"| {fam} | {p} | {n} | {rho:g} | {w:.2f} | {m['today']:.3f} | {m['oracle']:.3f} | "
                   f"{m[default]:.3f} | {m[best]:.3f} ({best}) | {ratio:.2f}{flag} |")
    out.append("")
    return "\n".join(out)


def structure_table(rows):
    out = ["Structure (stable mode's block learner, eta 0.5, 20 disjoint blocks per size): "
           "fraction of blocks giving exactly the true graph / the largest fraction agreeing on one "
           "wrong graph, by block rows b and lambda (radius 2 lambda).\n"]
    lams = sorted({float(r["lambda"]) for r in rows})
    out.append("| family | width | b | " + " | ".join(f"lambda {l:g}" for l in lams) + " |")
    out.append("|---|---|---|" + "---|" * len(lams))
    table = collections.OrderedDict()
    for r in rows:
        key = (r["family"], float(r["width"]), int(r["b"]))
        table.setdefault(key, {})[float(r["lambda"])] = (float(r["exact"]), float(r["top_wrong"]))
    for (fam, w, b), d in sorted(table.items(), key=lambda kv: (kv[0][0], kv[0][2])):
        cells = []
        for l in lams:
            e, tw = d.get(l, (float("nan"), float("nan")))
            cells.append(f"{e:.2f} / {tw:.2f}")
        out.append(f"| {fam} | {w:.2f} | {b} | " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out)


# The stable mode at epsilon 1, delta 1e-6 (privacy.c): tau 28, m 94 blocks,
# discrete Laplace noise of scale 2 / epsilon on the counts.
TAU, M, NOISE_A = 28, 94, 0.5


def release_probability(q):
    """P(count + Z >= tau) for count ~ Binomial(M, q): the true graph clears
    the threshold (other graphs' counts are small beside it)."""
    def tail(k):  # P(Z >= k) for the discrete Laplace
        if k <= 0:
            return 1.0 - math.exp(NOISE_A * k) / (1.0 + math.exp(-NOISE_A))
        return math.exp(-NOISE_A * k) / (1.0 + math.exp(-NOISE_A))
    total = 0.0
    for c in range(M + 1):
        total += math.comb(M, c) * q ** c * (1 - q) ** (M - c) * tail(TAU - c)
    return total


def rows_for_release(points, target=0.9):
    """Block rows b at which the release is the true graph with probability
    target, interpolating log b between measured block sizes; None if the
    measured range never gets there."""
    pts = sorted(points)
    prev = None
    for b, q in pts:
        pr = release_probability(q)
        if pr >= target:
            if prev is None:
                return b
            b0, p0 = prev
            if pr == p0:
                return b
            t = (target - p0) / (pr - p0)
            return math.exp(math.log(b0) + t * (math.log(b) - math.log(b0)))
        prev = (b, pr)
    return None


def plan_rows(p, eta, width, lam):
    """mrf_structure_rows_needed's rows per block (structure_ising.c), for
    the comparison; None where the plan is undefined (lambda well below the
    width)."""
    if lam < width * PLAN_MIN_RATIO:
        return None
    return math.ceil(PLAN_C * math.exp(PLAN_A * width) * min(lam / width, 2.0) ** PLAN_B
                     * math.log(2 * p) / eta ** 2)


# structure_ising.c's planning constants (ISING_PLAN_*), from fit_plan().
PLAN_C, PLAN_A, PLAN_B, PLAN_MIN_RATIO = 5.75, 0.95, 0.5, 0.6


def lstsq(X, Y):
    """Least squares by the normal equations (Gauss-Jordan)."""
    n = len(X[0])
    M = [[sum(x[i] * x[j] for x in X) for j in range(n)] for i in range(n)]
    v = [sum(x[i] * y for x, y in zip(X, Y)) for i in range(n)]
    for i in range(n):  # Gauss-Jordan
        piv = M[i][i]
        for j in range(n):
            M[i][j] /= piv
        v[i] /= piv
        for r in range(n):
            if r != i:
                f = M[r][i]
                for j in range(n):
                    M[r][j] -= f * M[i][j]
                v[r] -= f * v[i]
    return v


def fit_plan(table, meta):
    """Least squares of log(measured block rows / (ln(2p) / eta^2)) on the
    width and log min(lambda / width, 2): the C, A and B of the plan."""
    X, Y = [], []
    for key, pts in table.items():
        p, eta, w = meta[key]
        b = rows_for_release(pts)
        if b is None or key[1] < w * PLAN_MIN_RATIO:
            continue
        X.append((1.0, w, math.log(min(key[1] / w, 2.0))))
        Y.append(math.log(b / (math.log(2 * p) / eta ** 2)))
    v = lstsq(X, Y)
    return math.exp(v[0]), v[1], v[2]


def structure_plan(rows):
    table = collections.defaultdict(list)
    meta = {}
    for r in rows:
        key = (r["family"], float(r["lambda"]))
        table[key].append((int(r["b"]), float(r["exact"])))
        meta[key] = (int(r["p"]), float(r["eta"]), float(r["width"]))
    out = ["Rows for a 90% exact release (epsilon 1, delta 1e-6: 94 blocks, tau 28), from the measured "
           "block fractions (the count of exact blocks binomial, plus the discrete Laplace noise), "
           "against `mrf_structure_rows_needed` (the same 94 blocks).\n",
           "| family | width | lambda | measured rows | planned rows | planned / measured |",
           "|---|---|---|---|---|---|"]
    for key in sorted(table):
        p, eta, w = meta[key]
        b = rows_for_release(table[key])
        plan = plan_rows(p, eta, w, key[1])
        meas = f"{M * b:,.0f}" if b else "not reached"
        pl = f"{M * plan:,}" if plan else "none (lambda < 0.6 width)"
        ratio = f"{plan / b:.2f}" if (b and plan) else ""
        out.append(f"| {key[0]} | {w:.2f} | {key[1]:g} | {meas} | {pl} | {ratio} |")
    out.append("")
    return "\n".join(out), table, meta


# structure_plan.c's constants (PAIRWISE_PLAN_*, TWISE_PLAN_*), from
# fit_kary_plan(): C, A, B of C e^(A w) min(lambda / w, 2)^B ln(2 d) / eta^2.
KARY_PLAN = {"pairwise": (32.7, 0.33, 0.0), "twise": (2.07, 0.47, 1.72)}


def kary_features(model, p, k):
    """The features d of one node regression: (p - 1) k one-hot indicators
    (pairwise), the monomials of size 1 .. t - 1 of the other p - 1
    variables (t-wise)."""
    if model == "pairwise":
        return (p - 1) * k
    return sum(math.comb(p - 1, s) for s in range(1, k))


def kary_key(r):
    model, _, rest = r["family"].partition("-")
    fam, _, kt = rest.rpartition("-")
    return model, fam, int(r["p"]), int(kt[1:]), float(r["eta"]), float(r["width"]), float(r["lambda"])


def kary_points(rows):
    """(model, family, p, k|t, eta, width, lambda) -> (rows per block for
    a 90% release or None, censored: the smallest size already reached it)."""
    table = collections.defaultdict(list)
    for r in rows:
        table[kary_key(r)].append((int(r["b"]), float(r["exact"])))
    out = {}
    for key, pts in table.items():
        b = rows_for_release(pts)
        out[key] = (b, b is not None and b == min(x for x, _ in pts))
    return out


def fit_kary_plan(points):
    """Least squares per model of log(b eta^2 / ln(2 d)) on the width and
    (t-wise) log min(lambda / w, 2), over the uncensored points."""
    fits = {}
    for model in ("pairwise", "twise"):
        X, Y = [], []
        for (m, fam, p, k, eta, w, lam), (b, cens) in points.items():
            if m != model or b is None or cens:
                continue
            x = [1.0, w]
            if model == "twise":
                x.append(math.log(min(lam / w, 2.0)))
            X.append(x)
            Y.append(math.log(b * eta ** 2 / math.log(2 * kary_features(m, p, k))))
        if len(X) >= len(X[0]) if X else False:
            v = lstsq(X, Y)
            fits[model] = (math.exp(v[0]), v[1], v[2] if len(v) > 2 else 0.0)
    return fits


def kary_plan_rows(model, p, k, eta, w, lam, consts):
    c, a, bexp = consts
    return math.ceil(c * math.exp(a * w) * min(lam / w, 2.0) ** bexp
                     * math.log(2 * kary_features(model, p, k)) / eta ** 2)


def kary_plan_table(rows, consts):
    points = kary_points(rows)
    out = ["Pairwise and t-wise structures: block rows for a 90% exact release (epsilon 1, delta 1e-6: "
           "94 blocks, tau 28) from the measured block fractions (20 blocks a size, sizes a factor "
           "sqrt 2 apart), against `mrf_structure_rows_needed(model => ...)`.\n",
           "| model | family | p | k or t | eta | width | lambda | measured rows | planned rows | planned / measured |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(points):
        m, fam, p, k, eta, w, lam = key
        b, cens = points[key]
        plan = kary_plan_rows(m, p, k, eta, w, lam, consts[m]) if consts.get(m) and None not in consts[m] else None
        if b is None:
            meas = "not reached"
        elif cens:
            meas = f"at most {M * b:,.0f}"
        else:
            meas = f"{M * b:,.0f}"
        ratio = ""
        if plan and b:
            ratio = f"{plan / b:.2f}" + (" (at least)" if cens else "")
        pl = f"{M * plan:,}" if plan else ""
        out.append(f"| {m} | {fam} | {p} | {k} | {eta:g} | {w:.2f} | {lam:g} | {meas} | {pl} | {ratio} |")
    out.append("")
    return "\n".join(out), points


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "defaults"
    for study in ("ising", "pairwise", "twise"):
        path = os.path.join(d, study + ".tsv")
        if os.path.exists(path):
            print(f"### {study}\n")
            print(learner_tables(study, read(path)))
    srows = []
    for name in ("structure.tsv", "structure-chain.tsv"):
        path = os.path.join(d, name)
        if os.path.exists(path):
            srows += read(path)
    if srows:
        print("### structure\n")
        print(structure_table(srows))
        text, table, meta = structure_plan(srows)
        print(text)
        c, a, b = fit_plan(table, meta)
        print(f"(least squares on the points where both are defined: C = {c:.3g}, A = {a:.3g}, B = {b:.3g})\n")
    path = os.path.join(d, "structure-plan.tsv")
    if os.path.exists(path):
        krows = read(path)
        fits = fit_kary_plan(kary_points(krows))
        text, _ = kary_plan_table(krows, KARY_PLAN if None not in KARY_PLAN["twise"] else fits)
        print(text)
        for m, (c, a, b) in sorted(fits.items()):
            print(f"({m}: least squares on the points measured inside the grid: C = {c:.3g}, A = {a:.3g}, B = {b:.3g})\n")


if __name__ == "__main__":
    main()
