-- Clique models (Bernstein et al. 2017): text form, accessors, sampling,
-- learning under a test seed, and every bad input with its message.
SET mrfdp.test_seed = 11;
\set VERBOSITY default

-- A chain 1 - 2 - 3 with k = 3.  The second clique is written (3, 2): its
-- table is read over the variables as listed and stored over (2, 3).
CREATE TABLE cl_truth AS SELECT '{"kind": "cliques", "p": 3, "k": 3,
  "cliques": [[1, 2], [3, 2]],
  "log_potentials": [[1.5, 0, 0, 0, 1.5, 0, 0, 0, 1.5], [0.5, 0, 0, 0.25, 1, 0, 0, 0, 1]]}'::mrf AS m;
SELECT m FROM cl_truth;
-- text round trip
SELECT m::text::mrf::text = m::text AS round_trip FROM cl_truth;
SELECT m::jsonb -> 'cliques' AS cliques, jsonb_array_length(m::jsonb -> 'log_potentials') AS tables FROM cl_truth;
SELECT mrf_info(m) FROM cl_truth;

-- log-potentials: one row per cell, 1-based ascending variables, values 0..k-1
SELECT clique, assignment, log_potential FROM mrf_potentials((SELECT m FROM cl_truth))
WHERE clique = '{2,3}';
-- marginals: each clique's table sums to one, and the two agree on variable 2
SELECT clique, round(sum(probability)::numeric, 12) AS total, count(*) AS cells
FROM mrf_marginals((SELECT m FROM cl_truth)) GROUP BY clique ORDER BY clique;
SELECT a.x, round(a.pr::numeric, 10) = round(b.pr::numeric, 10) AS consistent
FROM (SELECT assignment[2] AS x, sum(probability) AS pr FROM mrf_marginals((SELECT m FROM cl_truth))
      WHERE clique = '{1,2}' GROUP BY 1) a
JOIN (SELECT assignment[1] AS x, sum(probability) AS pr FROM mrf_marginals((SELECT m FROM cl_truth))
      WHERE clique = '{2,3}' GROUP BY 1) b USING (x) ORDER BY a.x;

-- sampling: values 0..k-1, p per row; the empirical pair marginals match
CREATE TABLE cl_d AS SELECT x FROM mrf_sample((SELECT m FROM cl_truth), 20000, seed => 3) x;
SELECT count(*) AS n, min(array_length(x, 1)) AS p_min, max(array_length(x, 1)) AS p_max,
       min(least(x[1], x[2], x[3])) AS lo, max(greatest(x[1], x[2], x[3])) AS hi FROM cl_d;
SELECT max(abs(e.pr - t.probability)) < 0.02 AS empirical_matches
FROM (SELECT ARRAY[x[1], x[2]] AS a, count(*)::float8 / 20000 AS pr FROM cl_d GROUP BY 1) e
JOIN mrf_marginals((SELECT m FROM cl_truth)) t ON t.clique = '{1,2}' AND t.assignment = e.a;

-- learning: the named form and the aggregate give the same model under the same seed
CREATE TABLE cl_learned AS
SELECT 'cgm' AS method, mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1) AS m FROM cl_d
UNION ALL
SELECT 'naive', mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1, method => 'naive') FROM cl_d;
SELECT (SELECT m::jsonb -> 'log_potentials' FROM cl_learned WHERE method = 'cgm') =
       (SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1))::jsonb -> 'log_potentials' FROM cl_d)
       AS named_equals_aggregate;
-- metadata: pure DP, epsilon, method, the replace-one L1 sensitivity 2 |cliques|, EM report
SELECT method, mrf_info(m) - '{created,learn_seconds,em,noise_scale}'::text[] AS info FROM cl_learned ORDER BY method;
SELECT round((mrf_info(m)->>'noise_scale')::numeric, 4) AS noise_scale,
       jsonb_typeof(mrf_info(m)->'em'->'iterations') AS em_iterations,
       jsonb_typeof(mrf_info(m)->'em'->'converged') AS em_converged,
       jsonb_typeof(mrf_info(m)->'em'->'change') AS em_change,
       mrf_info(m)->'em'->'max_iterations' AS em_cap
FROM cl_learned WHERE method = 'cgm';
SELECT mrf_info(mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1,
                                  tolerance => 0.5, em_iterations => 3))->'em'->'max_iterations' AS cap,
       (mrf_info(mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1,
                                   tolerance => 0.5, em_iterations => 3))->'em'->>'iterations')::int <= 3 AS capped
FROM cl_d;
-- the cl_learned model is close to the cl_truth at epsilon = 1 and n = 20000
SELECT l.method, max(abs(l.probability - t.probability)) < 0.03 AS close
FROM (SELECT method, (mrf_marginals(m)).* FROM cl_learned) l
JOIN mrf_marginals((SELECT m FROM cl_truth)) t USING (clique, assignment)
GROUP BY l.method ORDER BY l.method;
-- the cl_learned and true marginals of clique (1, 2), rounded
SELECT t.assignment, round(t.probability::numeric, 3) AS truth,
       round(c.probability::numeric, 3) AS cgm, round(n.probability::numeric, 3) AS naive
FROM mrf_marginals((SELECT m FROM cl_truth)) t
JOIN mrf_marginals((SELECT m FROM cl_learned WHERE method = 'cgm')) c USING (clique, assignment)
JOIN mrf_marginals((SELECT m FROM cl_learned WHERE method = 'naive')) n USING (clique, assignment)
WHERE t.clique = '{1,2}' ORDER BY t.assignment;
-- the cl_learned model's text form reads back
SELECT m::text::mrf::text = m::text AS learned_round_trip FROM cl_learned ORDER BY method;
-- sampling from the cl_learned model
SELECT count(*) AS n FROM mrf_sample((SELECT m FROM cl_learned WHERE method = 'cgm'), 5, seed => 1);

-- enum arrays and rows of enum/boolean columns: k comes from the type
CREATE TYPE cl_level AS ENUM ('low', 'mid', 'high');
CREATE TABLE cl_e AS SELECT ARRAY[(enum_range(NULL::cl_level))[x[1] + 1], (enum_range(NULL::cl_level))[x[2] + 1],
                               (enum_range(NULL::cl_level))[x[3] + 1]] AS x FROM cl_d;
CREATE TABLE cl_r AS SELECT x[1] AS a, x[2] AS b, x[3] AS c FROM cl_e;
SELECT (SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', epsilon => 1)::jsonb -> 'log_potentials' FROM cl_e) =
       (SELECT m::jsonb -> 'log_potentials' FROM cl_learned WHERE method = 'cgm') AS enum_array_same,
       (SELECT mrf_learn_cliques(cl_r, cliques => '[[1, 2], [2, 3]]', epsilon => 1)::jsonb -> 'log_potentials' FROM cl_r) =
       (SELECT m::jsonb -> 'log_potentials' FROM cl_learned WHERE method = 'cgm') AS enum_row_same,
       (SELECT mrf_learn_cliques(x::smallint[], cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1)::jsonb -> 'log_potentials' FROM cl_d) =
       (SELECT m::jsonb -> 'log_potentials' FROM cl_learned WHERE method = 'cgm') AS smallint_same;
CREATE TABLE cl_flags AS SELECT x[1] = 1 AS a, x[2] = 1 AS b FROM cl_d;
SELECT mrf_info(mrf_learn_cliques(f, cliques => '[[1, 2]]', epsilon => 1))->>'k' AS k_of_booleans FROM cl_flags f;
-- GROUP BY needs the aggregate form
SELECT x[1] AS grp, mrf_info(mrf_learn_cliques_agg(x, mrf_options(cliques => '[[2, 3]]', k => 3, epsilon => 1)))->>'rows' AS rows
FROM cl_d GROUP BY 1 ORDER BY 1;
-- a parallel plan (partial aggregates, combined) gives the same model: the tables do not depend on row order
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1)) FROM cl_d;
SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1))::jsonb -> 'log_potentials' =
       (SELECT m::jsonb -> 'log_potentials' FROM cl_learned WHERE method = 'cgm') AS parallel_same
FROM cl_d;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- no rows: NULL
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) IS NULL AS no_rows FROM cl_d WHERE false;

-- bad options (22023)
SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [2, 4]]', k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [3, 3]]', k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3], [2, 1]]', k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[0, 1]]', k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[1, 2]', k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[]', k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3) FROM cl_d;
SELECT mrf_learn_cliques(x, k => 3, epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', epsilon => 1) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 0) FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1, method => 'stable') FROM cl_d;
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1, method => 'naive', tolerance => 1e-3) FROM cl_d;
SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2]]', k => 3, rho => 1)) FROM cl_d;
SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2]]', k => 3, epsilon => 1, delta => 1e-6)) FROM cl_d;
SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2]]', k => 3, epsilon => 1, lambda => 1)) FROM cl_d;
-- bad rows: NULL (22004), a value outside 0..k-1 (22003)
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) FROM (VALUES (ARRAY[0, 1]), (NULL)) q(x);
SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) FROM (VALUES (ARRAY[0, 1]), (ARRAY[0, 3])) q(x);
-- tables too large (54000): one clique of 255^4 cells; 17 cliques of 16^6 cells
SELECT mrf_learn_cliques(x, cliques => '[[1, 2, 3, 4]]', k => 255, epsilon => 1) FROM (VALUES (ARRAY[0, 1, 2, 3])) q(x);
SELECT jsonb_agg(jsonb_build_array(i, i + 1, i + 2, i + 3, i + 4, i + 5)) AS big FROM generate_series(1, 17) i \gset
SELECT mrf_learn_cliques(x, cliques => :'big', k => 16, epsilon => 1) FROM (VALUES (array_fill(0, ARRAY[22]))) q(x);
-- working memory above mrfdp.max_learner_memory (54000)
SET mrfdp.max_learner_memory = '1MB';
SELECT mrf_learn_cliques(x, cliques => '[[1, 2, 3, 4, 5]]', k => 16, epsilon => 1) FROM (VALUES (ARRAY[0, 1, 2, 3, 4])) q(x);
RESET mrfdp.max_learner_memory;

-- accessors of other kinds, and mrf_potentials of other kinds
SELECT * FROM mrf_edges((SELECT m FROM cl_truth));
SELECT * FROM mrf_fields((SELECT m FROM cl_truth));
SELECT * FROM mrf_potentials(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[]));
SELECT * FROM mrf_marginals(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[]));

-- malformed documents (22P02)
SELECT '{"kind": "cliques", "p": 3, "k": 3, "cliques": [[1, 2]], "log_potentials": [[0, 0, 0]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 3, "cliques": [[1, 4]], "log_potentials": [[0, 0, 0, 0, 0, 0, 0, 0, 0]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2], [2, 1]], "log_potentials": [[0, 0, 0, 0], [0, 0, 0, 0]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 1]], "log_potentials": [[0, 0, 0, 0]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [], "log_potentials": []}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2]], "log_potentials": [[0, 0, "a", 0]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 1, "cliques": [[1, 2]], "log_potentials": [[0]]}'::mrf;
SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1.5, 2]], "log_potentials": [[0, 0, 0, 0]]}'::mrf;

DROP TABLE cl_truth, cl_d, cl_learned, cl_e, cl_r, cl_flags;
DROP TYPE cl_level;
