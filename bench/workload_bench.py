#!/usr/bin/python3
"""Workload error of MST and its baselines (issue 12, docs/learners/mst.md "MST").

Workload error: the mean L1 error sum |P_model(x_S) - N(x_S)/n| over every
set S of 2 and of 3 variables (pooled: C(p,2) + C(p,3) sets), computed in
the database by mrf_marginal_error (not private: the benchmark owns the
data).  For each rho and each release (the learners draw fresh noise, no
test seed), the learners run on the same table:

  MST              mrf_learn_mst(r, rho => rho)
  AIM              mrf_learn_aim(r, rho => rho) when the function exists
                   (its default workload; one line in methods())
  true cliques     mrf_learn_cliques(r, cliques => the generating model's
                   families, epsilon => sqrt(2 rho)): pure epsilon-DP is
                   epsilon^2/2-zCDP, so the same rho (synthetic table only)
  indep. Laplace   mrf_learn_cliques with singleton cliques at the same
                   epsilon (the independent model the database offers)
  indep. Gaussian  every one-way table with Gaussian noise at the whole rho
                   (sigma^2 = p / rho, replace-one: each table moves by 2
                   in squared L2), clipped at 0 and normalised, in numpy;
                   the independent model at MST's own mechanism
  MST's tree, non-private fit
                   the tree one more MST release selected, its pair tables
                   fitted exactly as Chow-Liu's below (one release): how much of
                   MST's error is its tree, how much its noise and estimator
  Chow-Liu         non-private: maximum spanning tree of the empirical
                   mutual information (numpy), and the exact empirical tree
                   model on it (tree_model_sql: the tables computed in numpy,
                   put into the document of a clique model of those
                   cliques; mrf_learn_cliques' fits add a pseudocount)

Tables: housevotes (scripts/housevotes_load.sql; nulls => 'category' for
every learner) and a synthetic table drawn here by ancestral sampling of a
seeded random Bayesian network over p enum columns of 2..6 values: a
random tree in which some nodes also take their parent's parent as a
second parent (triangles); Dirichlet(alpha) conditional tables.

Prints a Markdown table of medians (and quartiles over 4 or more releases)
and writes every figure as JSON.
"""
import argparse
import itertools
import json
import math
import statistics
import sys
import time

import numpy as np
import psycopg2


def connect(db):
    conn = psycopg2.connect(dbname=db)
    conn.autocommit = True
    return conn


def q(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        try:
            return cur.fetchall()
        except psycopg2.ProgrammingError:
            return None


# --- the synthetic table -----------------------------------------------------

def synthetic_network(p, alpha, seed):
    """Cards, parents and conditional tables of a random tree-plus-triangles network."""
    rng = np.random.default_rng(seed)
    cards = [2 + (i % 5) for i in range(p)]          # 2, 3, 4, 5, 6, 2, ...
    rng.shuffle(cards)
    parents = [[]]
    for i in range(1, p):
        a = int(rng.integers(0, i))
        if parents[a] and rng.random() < 0.4:
            parents.append([a, parents[a][0]])     # a triangle: i, a, a's parent
        else:
            parents.append([a])
    cpts = []
    for i in range(p):
        configs = int(np.prod([cards[j] for j in parents[i]])) if parents[i] else 1
        cpts.append(rng.dirichlet([alpha] * cards[i], size=configs))
    return cards, parents, cpts


def synthetic_rows(cards, parents, cpts, n, seed):
    """n rows by ancestral sampling (variables are in topological order)."""
    rng = np.random.default_rng(seed)
    p = len(cards)
    x = np.zeros((n, p), dtype=np.int64)
    for i in range(p):
        cfg = np.zeros(n, dtype=np.int64)
        for j in parents[i]:
            cfg = cfg * cards[j] + x[:, j]
        cum = np.cumsum(cpts[i], axis=1)[cfg]
        u = rng.random(n)[:, None]
        x[:, i] = np.minimum((u > cum).sum(axis=1), cards[i] - 1)
    return x


def load_synthetic(conn, table, x, cards):
    """The rows into table, column x<i> of enum type <table>_k<card> with labels v0.."""
    p = x.shape[1]
    q(conn, f"DROP TABLE IF EXISTS {table}")
    for k in sorted(set(cards)):
        q(conn, f"DROP TYPE IF EXISTS {table}_k{k}")
        labels = ", ".join(f"'v{a}'" for a in range(k))
        q(conn, f"CREATE TYPE {table}_k{k} AS ENUM ({labels})")
    cols = ", ".join(f"x{i + 1} {table}_k{cards[i]}" for i in range(p))
    q(conn, f"CREATE TABLE {table} ({cols})")
    import io
    buf = io.StringIO()
    for row in x:
        buf.write(",".join(f"v{v}" for v in row))
        buf.write("\n")
    buf.seek(0)
    with conn.cursor() as cur:
        cur.copy_expert(f"COPY {table} FROM STDIN WITH (FORMAT csv)", buf)
    q(conn, f"ANALYZE {table}")


# --- reading a table as codes ------------------------------------------------

def table_codes(conn, table, opts):
    """Column names, each one's labels (the model's, NULL category included) and the rows as codes."""
    m = q(conn, f"SELECT mrf_learn_mst(r, rho => 1{opts})::text FROM {table} r")[0][0]
    var = q(conn, "SELECT name, labels FROM mrf_variables(%s::mrf) ORDER BY i", (m,))
    names = [v[0] for v in var]
    labels = [v[1] for v in var]
    sel = ", ".join(f'"{c}"::text' for c in names)
    rows = q(conn, f"SELECT {sel} FROM {table}")
    index = [{lab: a for a, lab in enumerate(ls)} for ls in labels]
    x = np.array([[index[i][v] for i, v in enumerate(r)] for r in rows], dtype=np.int64)
    return names, [len(ls) for ls in labels], x


def joint_counts(x, cards, s):
    idx = np.zeros(x.shape[0], dtype=np.int64)
    for j in s:
        idx = idx * cards[j] + x[:, j]
    return np.bincount(idx, minlength=int(np.prod([cards[j] for j in s])))


def workload_sets(p):
    return list(itertools.combinations(range(p), 2)) + list(itertools.combinations(range(p), 3))


# --- baselines in numpy --------------------------------------------------------

def chow_liu_tree(x, cards):
    """Edges (1-based) of the maximum spanning tree of empirical mutual information."""
    n, p = x.shape
    mi = np.zeros((p, p))
    one = [joint_counts(x, cards, [i]) / n for i in range(p)]
    for i, j in itertools.combinations(range(p), 2):
        pij = joint_counts(x, cards, [i, j]).reshape(cards[i], cards[j]) / n
        prod = np.outer(one[i], one[j])
        nz = pij > 0
        mi[i, j] = mi[j, i] = float((pij[nz] * np.log(pij[nz] / prod[nz])).sum())
    # Kruskal on -mi
    parent = list(range(p))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    edges = sorted(((mi[i, j], i, j) for i, j in itertools.combinations(range(p), 2)), reverse=True)
    tree = []
    for w, i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
            tree.append([i + 1, j + 1])
    return tree


def gaussian_independent_error(x, cards, rho, rng, empirical):
    """Workload error of the independent model measured with Gaussian noise at rho."""
    n, p = x.shape
    sigma = math.sqrt(p / rho)
    marg = []
    for i in range(p):
        c = joint_counts(x, cards, [i]) + rng.normal(0, sigma, cards[i])
        c = np.clip(c, 0, None)
        marg.append(c / c.sum() if c.sum() > 0 else np.full(cards[i], 1 / cards[i]))
    errs = []
    for s, emp in empirical:
        model = marg[s[0]]
        for j in s[1:]:
            model = np.outer(model, marg[j]).ravel()
        errs.append(float(np.abs(model - emp).sum()))
    return float(np.mean(errs))


def tree_model_sql(conn, table, opts, tree, x, cards):
    """SQL of the exact empirical model of a tree of pairs (1-based edges).

    P(x) = prod_edges p_ij / prod_i p_i^(deg i - 1): each edge's table is
    log p_ij(a, b) - (1 - 1/deg i) log p_i(a) - (1 - 1/deg j) log p_j(b)
    (an empty cell gets log 1e-300).  The document is that of the clique
    learner's model of the same cliques, its tables replaced: the clique
    learner's own fits add a pseudocount of 1 to every cell, which moves
    HouseVotes84's 435 rows visibly.
    """
    tree = [sorted(e) for e in tree]
    n = x.shape[0]
    deg = [0] * len(cards)
    for i, j in tree:
        deg[i - 1] += 1
        deg[j - 1] += 1
    one = [np.maximum(joint_counts(x, cards, [i]) / n, 1e-300) for i in range(len(cards))]
    tables = []
    for i, j in tree:
        a, b = i - 1, j - 1
        pij = np.maximum(joint_counts(x, cards, [a, b]) / n, 1e-300).reshape(cards[a], cards[b])
        lp = (np.log(pij) - (1 - 1 / deg[a]) * np.log(one[a])[:, None]
              - (1 - 1 / deg[b]) * np.log(one[b])[None, :])
        tables.append([float(v) for v in lp.ravel()])
    cliques = [sorted(e) for e in tree]
    doc = q(conn, f"SELECT mrf_learn_cliques(r, cliques => %s, epsilon => 1e8, method => 'naive'{opts})::jsonb "
                  f"FROM {table} r", (json.dumps(cliques),))[0][0]
    assert doc["cliques"] == cliques, (doc["cliques"], cliques)
    doc["log_potentials"] = tables
    return "SELECT %s::jsonb::text::mrf AS m" % psycopg2.extensions.adapt(json.dumps(doc)).getquoted().decode()


# --- the database's learners ---------------------------------------------------

def model_error(conn, table, model_sql):
    """(pooled 2- and 3-way mean L1, learn seconds) of the model model_sql returns."""
    t0 = time.monotonic()
    q(conn, f"DROP TABLE IF EXISTS bench_model; CREATE TEMP TABLE bench_model AS {model_sql}")
    learn = time.monotonic() - t0
    rows = q(conn, f"SELECT way, marginals, mean_l1 FROM bench_model, "
                   f"mrf_marginal_error(m, '{table}', ways => '{{2,3}}')")
    total = sum(r[1] for r in rows)
    return sum(r[1] * r[2] for r in rows) / total, learn


def has_function(conn, name):
    return q(conn, "SELECT count(*) FROM pg_proc WHERE proname = %s", (name,))[0][0] > 0


def methods(conn, table, opts, p, true_cliques):
    """(name, SQL of one release at rho, or None) per learner; rho is substituted."""
    singles = json.dumps([[i + 1] for i in range(p)])
    out = [("MST", f"SELECT mrf_learn_mst(r, rho => {{rho}}{opts}) AS m FROM {table} r")]
    # AIM (issue 12 item 2): measured when mrf_learn_aim exists
    if has_function(conn, "mrf_learn_aim"):
        out.append(("AIM", f"SELECT mrf_learn_aim(r, rho => {{rho}}{opts}) AS m FROM {table} r"))
    if true_cliques is not None:
        out.append(("true cliques", f"SELECT mrf_learn_cliques(r, cliques => '{json.dumps(true_cliques)}', "
                                    f"epsilon => {{eps}}{opts}) AS m FROM {table} r"))
    out.append(("indep. Laplace", f"SELECT mrf_learn_cliques(r, cliques => '{singles}', "
                                  f"epsilon => {{eps}}{opts}) AS m FROM {table} r"))
    return out


def run(args):
    conn = connect(args.db)
    if args.table == "synthetic":
        cards, parents, cpts = synthetic_network(args.p, args.alpha, args.seed)
        xs = synthetic_rows(cards, parents, cpts, args.n, args.seed + 1)
        load_synthetic(conn, "synth", xs, cards)
        table, opts = "synth", ""
        true_cliques = [sorted([i + 1] + [j + 1 for j in parents[i]]) for i in range(1, args.p)]
        info = {"cards": cards, "parents": parents, "alpha": args.alpha, "seed": args.seed}
    else:
        table, opts, true_cliques = "housevotes", ", nulls => 'category'", None
        info = {}
    names, cards, x = table_codes(conn, table, opts)
    n, p = x.shape
    sets = workload_sets(p)
    empirical = [(s, joint_counts(x, cards, list(s)) / n) for s in sets]
    rng = np.random.default_rng(args.seed + 7)
    result = {"table": table, "n": n, "p": p, "cards": cards, "sets": len(sets), "info": info,
              "releases": args.releases, "rhos": args.rhos, "errors": {}, "seconds": {}}

    tree = [sorted(e) for e in chow_liu_tree(x, cards)]
    cl, _ = model_error(conn, table, tree_model_sql(conn, table, opts, tree, x, cards))
    # the exact tree model reproduces its edges' tables (a check of the layout)
    worst = q(conn, f"SELECT max(l1) FROM bench_model, mrf_marginal_errors(m, '{table}', ways => '{{2}}') e "
                    f"WHERE e.variables::text = ANY (%s)", (["{%d,%d}" % tuple(e) for e in tree],))[0][0]
    assert worst < 1e-6, worst
    result["chow_liu_edge_error"] = worst
    result["chow_liu_tree"] = tree
    if true_cliques is not None:
        true_edges = sorted({tuple(sorted((i + 1, j + 1))) for i in range(p) for j in parents[i]})
        result["chow_liu_edges_true"] = sum(1 for e in tree if tuple(sorted(e)) in true_edges)
        result["true_edges"] = len(true_edges)
    result["errors"]["Chow-Liu (non-private)"] = {str(r): [cl] for r in args.rhos}

    for rho in args.rhos:
        eps = math.sqrt(2 * rho)
        for name, sql in methods(conn, table, opts, p, true_cliques):
            errs, secs = [], []
            for _ in range(args.releases):
                e, s = model_error(conn, table, sql.format(rho=rho, eps=eps))
                errs.append(e)
                secs.append(s)
            result["errors"].setdefault(name, {})[str(rho)] = errs
            result["seconds"].setdefault(name, {})[str(rho)] = secs
            print(f"# {table} rho {rho} {name}: {', '.join(f'{e:.4f}' for e in errs)}", file=sys.stderr)
        g = [gaussian_independent_error(x, cards, rho, rng, empirical) for _ in range(args.releases)]
        result["errors"].setdefault("indep. Gaussian", {})[str(rho)] = g
        # one more MST release: its metadata (compression, estimator) and
        # its selected tree fitted non-privately (the tree's share of the error)
        mst_sql = methods(conn, table, opts, p, None)[0][1].format(rho=rho)
        mi = q(conn, f"SELECT mrf_info(m), (m::jsonb)->'cliques' FROM ({mst_sql}) s")
        result.setdefault("mst_info", {})[str(rho)] = mi[0][0]
        e, _ = model_error(conn, table, tree_model_sql(conn, table, opts, mi[0][1], x, cards))
        result["errors"].setdefault("MST's tree, non-private fit", {})[str(rho)] = [e]
    return result


def markdown(result):
    rhos = result["rhos"]
    lines = [f"| {result['table']} (n = {result['n']}, p = {result['p']}) | "
             + " | ".join(f"rho = {r:g}" for r in rhos) + " |",
             "|---|" + "---:|" * len(rhos)]
    def cell(v):
        if len(v) < 4:
            return f"{statistics.median(v):.4f}"
        q1, _, q3 = statistics.quantiles(v, n=4)
        return f"{statistics.median(v):.4f} ({q1:.3f}-{q3:.3f})"
    for name, per in result["errors"].items():
        lines.append(f"| {name} | " + " | ".join(cell(per[str(r)]) for r in rhos) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", default="b")
    ap.add_argument("--table", choices=["housevotes", "synthetic"], required=True)
    ap.add_argument("--rhos", type=lambda s: [float(v) for v in s.split(",")], default=[0.1, 1, 10])
    ap.add_argument("--releases", type=int, default=3)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--p", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    result = run(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1, default=str)
    print(markdown(result))


if __name__ == "__main__":
    main()
