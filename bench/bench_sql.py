#!/usr/bin/python3
"""SQL-level benchmarks of mrfdp, each against a baseline measured in the same run.

Run inside a cluster with mrfdp installed and preloaded (bench/run_sql_bench.sh
starts one).  Prints a markdown table.

  ingest   the Ising aggregate over N rows x 64 binary variables (iterations => 2,
           so the figure is dominated by reading and packing rows) against
           SELECT sum(array_length(row, 1)) on the same table.
  learner  mrf_learn_ising on p = 100, n = 100k, rho = 1, default T, end to end,
           reported per iteration.
"""
import argparse
import statistics
import time

import psycopg2


def timed(cur, sql, runs):
    """Median wall seconds of runs executions (after one warm-up)."""
    cur.execute(sql)
    cur.fetchall()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        cur.execute(sql)
        cur.fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def paired(cur, sql_a, sql_b, runs):
    """Runs a and b in turn; returns medians and the median of per-pair ratios."""
    for sql in (sql_a, sql_b):
        cur.execute(sql)
        cur.fetchall()
    ta, tb, ratios = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        cur.execute(sql_a)
        cur.fetchall()
        t1 = time.perf_counter()
        cur.execute(sql_b)
        cur.fetchall()
        t2 = time.perf_counter()
        ta.append(t1 - t0)
        tb.append(t2 - t1)
        ratios.append((t1 - t0) / (t2 - t1))
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS mrfdp")
    cur.execute("SET max_parallel_workers_per_gather = 0")

    cur.execute("DROP TABLE IF EXISTS bench_wide")
    cur.execute(f"""
        CREATE TABLE bench_wide AS
        SELECT string_to_array(translate((('x' || md5(g::text))::bit(64))::text, '01', 'ft'), NULL)::boolean[] AS "row"
        FROM generate_series(1, {args.rows}) g""")
    cur.execute("VACUUM ANALYZE bench_wide")

    # The aggregate reports its learner's own time in the model metadata, so
    # ingest (scan, read, pack) = statement time - learn_seconds, per run.
    agg_sql = ("SELECT (mrf_info(mrf_learn_ising_agg(\"row\", mrf_options(rho => 1, iterations => 2)))"
               " ->> 'learn_seconds')::float8 FROM bench_wide")
    scan_sql = "SELECT sum(array_length(\"row\", 1)) FROM bench_wide"
    ingest, scans, ratios, totals = [], [], [], []
    for sql in (agg_sql, scan_sql):
        cur.execute(sql)
        cur.fetchall()
    for _ in range(args.runs):
        t0 = time.perf_counter()
        cur.execute(agg_sql)
        learn = cur.fetchone()[0]
        t1 = time.perf_counter()
        cur.execute(scan_sql)
        cur.fetchall()
        t2 = time.perf_counter()
        ingest.append(t1 - t0 - learn)
        totals.append(t1 - t0)
        scans.append(t2 - t1)
        ratios.append((t1 - t0 - learn) / (t2 - t1))
    med = statistics.median
    print("| benchmark | mrfdp | baseline | ratio |")
    print("|---|---|---|---|")
    print(f"| ingest: {args.rows:,} rows x 64 booleans read and packed by the aggregate vs "
          f"`SELECT sum(array_length(row, 1))` | {med(ingest):.3f} s | {med(scans):.3f} s | {med(ratios):.2f}x |")
    print(f"| the same aggregate whole (ingest + learner with iterations => 2) | {med(totals):.3f} s | "
          f"{med(scans):.3f} s | {med(totals) / med(scans):.2f}x |")

    # Learner end to end through SQL: p = 100, n = 100k, iid +-1 variables
    # with a planted chain (each variable copies its left neighbour w.p. 0.7).
    cur.execute("DROP TABLE IF EXISTS bench_learn")
    cur.execute("""
        CREATE TABLE bench_learn AS
        SELECT string_to_array(translate(
                 ((('x' || md5(g::text))::bit(128)) || (('x' || md5((-g)::text))::bit(128)))::text,
                 '01', 'ft'), NULL)::boolean[] AS "row"
        FROM generate_series(1, 100000) g""")
    cur.execute("UPDATE bench_learn SET \"row\" = \"row\"[1:100]")
    cur.execute("VACUUM ANALYZE bench_learn")
    cur.execute("SELECT (mrf_info(mrf_learn_ising_agg(\"row\", mrf_options(rho => 1))) ->> 'iterations')::int FROM bench_learn")
    iterations = cur.fetchone()[0]
    learn, _ = timed(cur, "SELECT mrf_learn_ising_agg(\"row\", mrf_options(rho => 1)) IS NOT NULL FROM bench_learn",
                     max(1, args.runs // 2))
    print(f"| learner p = 100, n = 100k, rho = 1, T = {iterations} (SQL, end to end) | "
          f"{learn:.2f} s | | {1000 * learn / iterations:.1f} ms/iteration |")


if __name__ == "__main__":
    main()
