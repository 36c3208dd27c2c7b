-- The named form users type, rewritten into the aggregate at parse analysis
-- (mrfdp must be loaded before the query is parsed: LOAD, or a preload).
LOAD 'mrfdp';  -- the named forms and the ledger need the library loaded first (no preload needed)
SET mrfdp.test_seed = 11;
\set VERBOSITY default
CREATE TABLE samples (id serial, site int, "row" boolean[]);
INSERT INTO samples (site, "row")
SELECT i % 3, ARRAY[i % 2 = 0, i % 3 = 0, (i / 7) % 2 = 0, i % 5 < 2]
FROM generate_series(1, 300) i;

-- the README's first example, verbatim (the model itself is not printed)
\o /dev/null
SELECT mrf_learn_ising(row, rho => 0.5) FROM samples;
\o
SELECT mrf_info(mrf_learn_ising(row, rho => 0.5)) ->> 'learner' AS learner FROM samples;

-- it is an aggregate now
EXPLAIN (COSTS OFF) SELECT mrf_learn_ising(row, rho => 0.5) FROM samples;

-- named and aggregate forms agree under the same seed
SELECT (SELECT mrf_learn_ising(row, rho => 0.5, lambda => 2, iterations => 20)::jsonb - 'meta' FROM samples)
     = (SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.5, lambda => 2, iterations => 20))::jsonb - 'meta' FROM samples)
  AS same_model;

-- options by position after x, defaults, epsilon/delta
SELECT mrf_info(m)->>'iterations' AS iterations, mrf_info(m)->>'mechanism' AS mechanism,
       mrf_info(m)->>'symmetrized' AS symmetrized
FROM (SELECT mrf_learn_ising(row, 0.5, iterations => 7, mechanism => 'laplace', symmetrize => false) m FROM samples) q;
SELECT (mrf_info(m)->>'rho')::float8 = mrf_zcdp_for_dp(1, 1e-6) AS converted
FROM (SELECT mrf_learn_ising(row, epsilon => 1, delta => 1e-6) m FROM samples) q;

-- in subqueries, CTEs, scalar sublinks and set operations
SELECT mrf_info(m)->>'p' AS p FROM (SELECT mrf_learn_ising(row, rho => 1) AS m FROM samples) q;
WITH learned AS (SELECT mrf_learn_ising(row, rho => 1) AS m FROM samples WHERE site = 1)
SELECT mrf_info(m)->>'rows' AS rows FROM learned;
SELECT (SELECT mrf_info(mrf_learn_ising(row, rho => 1))->>'rows' FROM samples WHERE site = 2) AS rows;
SELECT mrf_info(m)->>'rows' AS rows FROM (
  SELECT mrf_learn_ising(row, rho => 1) AS m FROM samples WHERE site = 0
  UNION ALL
  SELECT mrf_learn_ising(row, rho => 1) FROM samples WHERE site = 1) q ORDER BY 1;

-- a prepared statement with the budget as a parameter
PREPARE learn(float8) AS SELECT mrf_info(mrf_learn_ising(row, rho => $1))->>'rho' AS rho FROM samples;
EXECUTE learn(0.25);

-- ungrouped columns are still refused, as for any aggregate
SELECT id, mrf_learn_ising(row, rho => 1) FROM samples;
-- GROUP BY: parse analysis rejects the named form before the rewrite; the aggregate form works
SELECT site, mrf_learn_ising(row, rho => 1) FROM samples GROUP BY site;
SELECT site, mrf_info(mrf_learn_ising_agg(row, mrf_options(rho => 1)))->>'rows' AS rows
FROM samples GROUP BY site ORDER BY site;
-- places an aggregate cannot go: the plain function explains
SELECT count(*) FROM samples WHERE mrf_learn_ising(row, rho => 1) IS NOT NULL;
-- no budget given
SELECT mrf_learn_ising(row) FROM samples;
