"""Synthesis speed (bench/run_synth_bench.sh): runs inside pg_virtualenv.

A 20-column enum table whose first column (a 3% class) drives the others,
20,000 rows; MST learns it at rho 10.  Then, alternating, `repeats` times:
  - mrf_synthesize_into(model, 'synth', N), and with method => 'allocate',
    against CREATE TABLE AS of N rows of 20 random enum columns of the same
    types (the floor of writing such a table from SQL);
  - SELECT count(*) FROM mrf_sample(model, N) against NumPy's ancestral
    sampler of the same tree (the model's clique marginals, conditionals per
    edge, inverse-CDF draws vectorised over rows).
Prints medians and the ratios of the medians; whole-statement timings from
the client (psycopg2), NumPy timed around its sampling loop only.
"""
import statistics
import sys
import time

import numpy as np
import psycopg2

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
P = 20

conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()
cur.execute("DROP DATABASE IF EXISTS synth_bench")
cur.execute("CREATE DATABASE synth_bench")
conn.close()
conn = psycopg2.connect(dbname="synth_bench")
conn.autocommit = True
cur = conn.cursor()
cur.execute("CREATE EXTENSION mrfdp")
cur.execute("CREATE TYPE cls AS ENUM ('common', 'rare')")
cur.execute("CREATE TYPE lvl AS ENUM ('a', 'b', 'c')")
cols = ", ".join(f"c{j} lvl" for j in range(1, P))
cur.execute(f"CREATE TABLE src (cls cls, {cols})")
cur.execute("SELECT setseed(0.5)")
exprs = ", ".join(
    "(CASE WHEN random() < 0.9 THEN (CASE WHEN k THEN 'c' ELSE 'a' END) "
    "WHEN random() < 0.5 THEN 'b' ELSE (CASE WHEN k THEN 'a' ELSE 'c' END) END)::lvl"
    for _ in range(1, P))
cur.execute(f"INSERT INTO src SELECT CASE WHEN k THEN 'rare' ELSE 'common' END::cls, {exprs} "
            "FROM (SELECT random() < 0.03 AS k FROM generate_series(1, 20000)) s")
cur.execute("SET mrfdp.progress = off")
cur.execute("CREATE TABLE model AS SELECT mrf_learn_mst(s, rho => 10) AS m FROM src s")


def timed(sql):
    t = time.perf_counter()
    cur.execute(sql)
    if cur.description is not None:
        cur.fetchall()
    return time.perf_counter() - t


# The tree as the model has it: cliques (pairs) and their marginals.
cur.execute("SELECT clique, assignment, probability FROM mrf_marginals((SELECT m FROM model))")
tables = {}
for clique, assignment, prob in cur.fetchall():
    tables.setdefault(tuple(clique), {})[tuple(assignment)] = prob
card = [2] + [3] * (P - 1)
edges = [c for c in tables if len(c) == 2]
adj = {v: [] for v in range(1, P + 1)}
for (i, j) in edges:
    adj[i].append(j)
    adj[j].append(i)
order, parent, seen = [1], {1: None}, {1}
for v in order:
    for w in adj[v]:
        if w not in seen:
            seen.add(w)
            parent[w] = v
            order.append(w)


def pair_table(a, b):
    i, j = (a, b) if (a, b) in tables else (b, a)
    t = np.zeros((card[i - 1], card[j - 1]))
    for (x, y), pr in tables[(i, j)].items():
        t[x, y] = pr
    return t if (a, b) == (i, j) else t.T


root_marg = pair_table(1, adj[1][0]).sum(axis=1)
cond = {}
for v in order[1:]:
    t = pair_table(parent[v], v)
    c = t / t.sum(axis=1, keepdims=True)
    cond[v] = np.cumsum(c, axis=1)


def numpy_sample(n, rng):
    out = np.empty((n, P), dtype=np.uint8)
    out[:, 0] = np.searchsorted(np.cumsum(root_marg), rng.random(n) * root_marg.sum())
    for v in order[1:]:
        cdf = cond[v][out[:, parent[v] - 1]]
        u = rng.random(n)[:, None] * cdf[:, -1:]
        out[:, v - 1] = (u >= cdf).sum(axis=1)
    return out


rnd_cols = ", ".join(
    f"(ARRAY['a','b','c']::lvl[])[1 + floor(random() * 3)::int] AS c{j}" for j in range(1, P))
results = {"synthesize_into": [], "allocate_into": [], "create_table_as": [], "mrf_sample": [],
           "numpy": []}
rng = np.random.default_rng(1)
for r in range(REPEATS):
    cur.execute("DROP TABLE IF EXISTS synth, alloc, ctas")
    results["synthesize_into"].append(timed(f"SELECT mrf_synthesize_into((SELECT m FROM model), 'synth', {N}, seed => {r})"))
    results["allocate_into"].append(timed(
        f"SELECT mrf_synthesize_into((SELECT m FROM model), 'alloc', {N}, seed => {r}, method => 'allocate')"))
    results["create_table_as"].append(timed(
        f"CREATE TABLE ctas AS SELECT (ARRAY['common','rare']::cls[])[1 + floor(random() * 2)::int] AS cls, {rnd_cols} "
        f"FROM generate_series(1, {N})"))
    results["mrf_sample"].append(timed(f"SELECT count(*) FROM mrf_sample((SELECT m FROM model), {N}, seed => {r})"))
    t = time.perf_counter()
    numpy_sample(N, rng)
    results["numpy"].append(time.perf_counter() - t)

med = {k: statistics.median(v) for k, v in results.items()}
print(f"rows {N}, repeats {REPEATS}, model: MST over {P} columns ({len(edges)} edges)")
for k, v in results.items():
    print(f"{k:18s} median {med[k]:8.3f} s   runs {' '.join(f'{x:.3f}' for x in v)}")
print(f"mrf_synthesize_into / CREATE TABLE AS: {med['synthesize_into'] / med['create_table_as']:.2f}x")
print(f"mrf_synthesize_into, method 'allocate' / CREATE TABLE AS: {med['allocate_into'] / med['create_table_as']:.2f}x; "
      f"/ method 'sample': {med['allocate_into'] / med['synthesize_into']:.2f}x")
print(f"mrf_sample: {N / med['mrf_sample']:,.0f} rows/s; NumPy ancestral: {N / med['numpy']:,.0f} rows/s; "
      f"ratio mrf_sample / NumPy time {med['mrf_sample'] / med['numpy']:.2f}x")
