"""Synthetic tables of one model by three samplers, one evaluator
(bench/synth_vs_pgm.sh runs this inside pg_virtualenv).

For each table (UCI Adult from private-pgm's data/, mlbench Soybean through
Rscript), every column as integer codes 0..k-1 (Soybean: a missing value is
one more code):
  1. mrfdp learns one MST (or AIM) model (mrfdp.test_seed fixes it) at rho RHO;
  2. the model's clique log-potentials (mrf_potentials) become a
     private-pgm GraphicalModel over the same domain (each clique's table
     added to the maximal clique of private-pgm's junction tree that holds
     it), and its clique marginals are checked against mrfdp's
     (mrf_marginals) to 1e-9: the same model in both;
  3. for n in (1000, the table's rows) and each seed: mrfdp's
     mrf_synthesize(method => 'sample'), mrfdp's mrf_synthesize(method =>
     'allocate'), private-pgm's GraphicalModel.synthetic_data() (its
     default, method "round": counts allocated column by column);
  4. every synthetic table against the real one: mean L1 over all 2-way and
     over all 3-way marginals, L1 = sum_x |N_real(x) / n_real - N_syn(x) /
     n_syn|, mrf_marginal_error's definition (0..2); private-pgm's
     mechanisms report half of it (0.5 * ||X / X.sum() - Y / Y.sum()||_1,
     e.g. mechanisms/aim.py), so its figures are these halved.
  5. the floor: the model's own exact marginals against the real table
     (mrf_marginal_error, ways 2 and 3), which no sampler of this model can
     beat on average.
Prints one table per data set: mean and spread over seeds.
Usage: python3 synth_vs_pgm.py PGM_DIR RHO SEEDS [LEARNER]  (mst or aim; AIM's
cliques may share a cluster of private-pgm's junction tree: each clique's
table goes to one maximal clique that holds it)
"""
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import psycopg2

PGM = sys.argv[1]
RHO = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
SEEDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
LEARNER = sys.argv[4] if len(sys.argv) > 4 else "mst"
assert LEARNER in ("mst", "aim"), LEARNER
sys.path.insert(0, os.path.join(PGM, "src"))
from mbi import Domain, Factor, GraphicalModel, CliqueVector  # noqa: E402

conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()
cur.execute("DROP DATABASE IF EXISTS synth_vs_pgm")
cur.execute("CREATE DATABASE synth_vs_pgm")
conn.close()
conn = psycopg2.connect(dbname="synth_vs_pgm")
conn.autocommit = True
cur = conn.cursor()
cur.execute("CREATE EXTENSION mrfdp")
cur.execute("SET mrfdp.max_learner_memory = '2GB'")


def adult():
    df = pd.read_csv(os.path.join(PGM, "data", "adult.csv"))
    with open(os.path.join(PGM, "data", "adult-domain.json")) as f:
        dom = json.load(f)
    return "adult", df[list(dom)], [dom[c] for c in dom]


def soybean():
    path = "/tmp/synth_vs_pgm_soybean.csv"
    subprocess.run(["Rscript", "-e",
                    "library(mlbench); data(Soybean); "
                    f"write.csv(Soybean, '{path}', row.names = FALSE, na = '')"],
                   check=True, capture_output=True)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    cols = {}
    sizes = []
    for c in raw.columns:
        levels = sorted(v for v in raw[c].unique() if v != "")
        code = {v: i for i, v in enumerate(levels)}
        missing = (raw[c] == "").any()
        cols[c] = [code[v] if v != "" else len(levels) for v in raw[c]]
        sizes.append(len(levels) + (1 if missing else 0))
    return "soybean", pd.DataFrame(cols), sizes


def safe(name):
    return "c_" + "".join(ch if ch.isalnum() else "_" for ch in name.lower())


def load(name, df, sizes):
    names = [safe(c) for c in df.columns]
    cur.execute(f"DROP TABLE IF EXISTS {name}")
    cur.execute(f"CREATE TABLE {name} ({', '.join(n + ' int' for n in names)})")
    with open(f"/tmp/synth_vs_pgm_{name}.csv", "w") as f:
        df.to_csv(f, header=False, index=False)
    with open(f"/tmp/synth_vs_pgm_{name}.csv") as f:
        cur.copy_expert(f"COPY {name} FROM STDIN WITH (FORMAT csv)", f)
    domains = json.dumps({n: {"min": 0, "max": k - 1} for n, k in zip(names, sizes)})
    cur.execute("SET mrfdp.test_seed = 17")
    cur.execute(f"SELECT mrf_learn_{LEARNER}(r, rho => %s, domains => %s::jsonb) FROM {name} r",
                (RHO, domains))
    model = cur.fetchone()[0]
    cur.execute("RESET mrfdp.test_seed")
    return names, model


def pgm_model(names, sizes, model, n):
    """The mrfdp model as a private-pgm GraphicalModel (same potentials)."""
    domain = Domain(names, sizes)
    cur.execute("SELECT clique, assignment, log_potential FROM mrf_potentials(%s::mrf)", (model,))
    tables = {}
    for clique, assignment, lp in cur.fetchall():
        key = tuple(names[i - 1] for i in clique)
        if key not in tables:
            tables[key] = np.zeros(tuple(sizes[i - 1] for i in clique))
        tables[key][tuple(assignment)] = lp
    gm = GraphicalModel(domain, list(tables))
    pots = {cl: Factor.zeros(domain.project(cl)) for cl in gm.cliques}
    for key, t in tables.items():
        host = next(cl for cl in gm.cliques if set(key) <= set(cl))
        pots[host] = pots[host] + Factor(domain.project(key), t)
    gm.potentials = CliqueVector(pots)
    gm.total = n
    gm.marginals = gm.belief_propagation(gm.potentials)
    # the same model: mrfdp's clique marginals against private-pgm's
    cur.execute("SELECT clique, assignment, probability FROM mrf_marginals(%s::mrf)", (model,))
    worst = 0.0
    proj = {}
    for clique, assignment, prob in cur.fetchall():
        key = tuple(names[i - 1] for i in clique)
        if key not in proj:
            proj[key] = gm.project(list(key)).datavector(flatten=False) / n
        worst = max(worst, abs(proj[key][tuple(assignment)] - prob))
    assert worst < 1e-9, f"the exported model differs from mrfdp's by {worst}"
    return gm, worst


def codes_of(df, names):
    return df[names].to_numpy(dtype=np.int64)


def marginal_l1(real, syn, sizes, sets):
    """Mean L1 over the sets, per set: sum |real / n_real - syn / n_syn|."""
    out = []
    for s in sets:
        idx_r = np.zeros(len(real), dtype=np.int64)
        idx_s = np.zeros(len(syn), dtype=np.int64)
        cells = 1
        for j in s:
            idx_r = idx_r * sizes[j] + real[:, j]
            idx_s = idx_s * sizes[j] + syn[:, j]
            cells *= sizes[j]
        # only the cells either table holds
        ur, cr = np.unique(idx_r, return_counts=True)
        us, cs = np.unique(idx_s, return_counts=True)
        keys = np.union1d(ur, us)
        a = np.zeros(len(keys))
        b = np.zeros(len(keys))
        a[np.searchsorted(keys, ur)] = cr / len(real)
        b[np.searchsorted(keys, us)] = cs / len(syn)
        out.append(np.abs(a - b).sum())
    return float(np.mean(out))


def mrfdp_rows(model, name, names, n, seed, method):
    cur.execute(f"SELECT * FROM mrf_synthesize(%s::mrf, %s, NULL::{name}, seed => %s, method => %s)",
                (model, n, seed, method))
    return np.array(cur.fetchall(), dtype=np.int64).reshape(n, len(names))


def run(name, df, sizes):
    t0 = time.time()
    names, model = load(name, df, sizes)
    real = codes_of(df.set_axis(names, axis=1), names)
    n_real = len(real)
    p = len(names)
    pairs = list(itertools.combinations(range(p), 2))
    triples = list(itertools.combinations(range(p), 3))
    gm, agree = pgm_model(names, sizes, model, n_real)
    cur.execute("SELECT way, mean_l1 FROM mrf_marginal_error(%s::mrf, %s::regclass, ways => '{2,3}') ORDER BY way",
                (model, name))
    floor = dict(cur.fetchall())
    # the same evaluator on the model's side: private-pgm's exact 2-way
    # marginals of the exported model against the table, as the L1 above
    pgm_floor = []
    for i, j in pairs:
        model_pair = gm.project([names[i], names[j]]).datavector(flatten=False) / n_real
        real_pair = np.zeros((sizes[i], sizes[j]))
        np.add.at(real_pair, (real[:, i], real[:, j]), 1.0 / n_real)
        pgm_floor.append(np.abs(model_pair - real_pair).sum())
    print(f"\n## {name}: {n_real} rows, {p} columns (alphabets {min(sizes)}..{max(sizes)}), "
          f"{LEARNER.upper()} at rho {RHO}; {len(pairs)} pairs, {len(triples)} triples; seeds {SEEDS}")
    print(f"model exported to private-pgm: clique marginals agree within {agree:.1e}")
    print(f"floor, the model's exact marginals vs the table: 2-way {floor[2]:.4f}, 3-way {floor[3]:.4f} "
          f"(mrf_marginal_error); 2-way {np.mean(pgm_floor):.4f} from private-pgm's marginals of the exported model")
    print("| n | sampler | 2-way mean L1 | 3-way mean L1 | seconds |")
    print("|---|---|---|---|---|")
    for n in (1000, n_real):
        for sampler in ("mrfdp sample", "mrfdp allocate", "private-pgm synthetic_data"):
            e2, e3, secs = [], [], []
            for seed in range(1, SEEDS + 1):
                t = time.time()
                if sampler == "private-pgm synthetic_data":
                    np.random.seed(seed)
                    syn = gm.synthetic_data(rows=n).df[names].to_numpy(dtype=np.int64)
                else:
                    syn = mrfdp_rows(model, name, names, n, seed, sampler.split()[1])
                secs.append(time.time() - t)
                e2.append(marginal_l1(real, syn, sizes, pairs))
                e3.append(marginal_l1(real, syn, sizes, triples))
            print(f"| {n} | {sampler} | {np.mean(e2):.4f} ({min(e2):.4f}-{max(e2):.4f}) "
                  f"| {np.mean(e3):.4f} ({min(e3):.4f}-{max(e3):.4f}) | {np.median(secs):.2f} |")
    print(f"({time.time() - t0:.0f} s)")


print(f"# synth_vs_pgm: {LEARNER}, rho {RHO}, {SEEDS} seeds; load {os.getloadavg()}")
for loader in (soybean, adult):
    run(*loader())
