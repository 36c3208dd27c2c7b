#!/usr/bin/python3
"""End to end: the Ising learner through SQL against exporting the table with
COPY and running the same algorithm in NumPy (bench/ising_numpy.py).

Run inside a cluster with mrfdp installed (bench/run_e2e_bench.sh starts
one).  Both sides learn p = 100 variables from n = 100k rows with the same
number of iterations; figures are medians of --runs, each SQL run paired with
a NumPy run right after it, and the ratio is the median of the pairs.
"""
import argparse
import io
import os
import statistics
import sys
import time

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--p", type=int, default=100)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    import numpy as np
    import ising_numpy

    conn = psycopg2.connect(dbname=os.environ.get("PGDATABASE", "postgres"))
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS mrfdp")
    cur.execute("DROP TABLE IF EXISTS e2e")
    cur.execute(f"""CREATE TABLE e2e AS
        SELECT g, array_agg(((hashint8(g * {args.p} + j) & 1) = 1) ORDER BY j) AS x
        FROM generate_series(1, {args.n}) g, generate_series(1, {args.p}) j GROUP BY g""")
    cur.execute("VACUUM ANALYZE e2e")
    cur.execute("SET mrfdp.test_seed = 1")

    def sql_run(threads):
        cur.execute(f"SET mrfdp.learner_threads = {threads}")
        t0 = time.perf_counter()
        cur.execute(f"SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => {args.iterations})) FROM e2e")
        cur.fetchall()
        return time.perf_counter() - t0

    def numpy_run():
        t0 = time.perf_counter()
        buf = io.StringIO()
        cur.copy_expert("COPY e2e (x) TO STDOUT", buf)
        text = buf.getvalue()
        # '{t,f,...}' per line -> int8 +-1
        flat = text.replace("{", "").replace("}", "").replace("\n", ",").rstrip(",")
        Z = (np.frombuffer(flat.replace(",", "").encode(), dtype=np.uint8) == ord("t"))
        Z = (2 * Z.astype(np.int8) - 1).reshape(args.n, args.p)
        ising_numpy.learn(np, Z, 1.0, 1.0, args.iterations, np.random.default_rng(1))
        return time.perf_counter() - t0

    sql_run(1)
    rows = []
    for _ in range(args.runs):
        s1 = sql_run(1)
        s2 = sql_run(2)
        npy = numpy_run()
        rows.append((s1, s2, npy))
    med = lambda i: statistics.median(r[i] for r in rows)
    ratio = statistics.median(r[2] / r[0] for r in rows)
    thr = statistics.median(r[0] / r[1] for r in rows)
    print(f"Ising, p = {args.p}, n = {args.n}, {args.iterations} iterations, medians of {args.runs}, "
          f"load {os.getloadavg()[0]:.1f}:")
    print("| | seconds |")
    print("|---|---:|")
    print(f"| SQL aggregate, 1 learner thread | {med(0):.2f} |")
    print(f"| SQL aggregate, 2 learner threads | {med(1):.2f} |")
    print(f"| COPY out + NumPy, same algorithm | {med(2):.2f} |")
    print(f"| COPY + NumPy / SQL (1 thread) | {ratio:.2f}x |")
    print(f"| SQL 1 thread / 2 threads | {thr:.2f}x |")
    cur.execute("DROP TABLE e2e")


if __name__ == "__main__":
    main()
