-- server: session_preload
-- Structure learning with model 'pairwise' on rows of columns with their
-- own alphabets (issue 11 item 1): a boolean-like enum (2 values), a text
-- column with a declared domain of 3, a 5-label enum and an integer column
-- with a declared domain of 3 and NULLs read by policy.  The truth is the
-- chain a - b - c - d of test/inputs/alphabets.sql, sampled exactly.  The
-- stable mode's block learner and the threshold method's learner follow
-- each k_i; the options are mrf_learn_pairwise's (one reader).
BEGIN;
SELECT plan(14);
SET LOCAL mrfdp.test_seed = 2024;
SET LOCAL client_min_messages = warning;

CREATE TYPE pg_temp.sa2 AS ENUM ('no', 'yes');
CREATE TYPE pg_temp.sa5 AS ENUM ('v0', 'v1', 'v2', 'v3', 'v4');
CREATE FUNCTION pg_temp.score(k int, a int) RETURNS float8 LANGUAGE sql AS
$$ SELECT 1 - 2.0 * a / (k - 1) $$;
CREATE TEMP TABLE sa_truth AS
WITH kv(i, k) AS (VALUES (0, 2), (1, 3), (2, 5), (3, 3)),
e(x, y, s) AS (VALUES (0, 1, 1.0), (1, 2, 0.8), (2, 3, -0.9)),
cell AS (
  SELECT i.i, j.i AS j, a, b,
		 CASE WHEN a >= i.k OR b >= j.k THEN 0 ELSE
		   coalesce((SELECT e.s FROM e WHERE (e.x, e.y) IN ((i.i, j.i), (j.i, i.i))), 0)
		   * pg_temp.score(i.k, a) * pg_temp.score(j.k, b) END AS w
  FROM kv i, kv j, generate_series(0, 4) a, generate_series(0, 4) b),
r1 AS (SELECT i, j, a, jsonb_agg(w ORDER BY b) r FROM cell GROUP BY i, j, a),
r2 AS (SELECT i, j, jsonb_agg(r ORDER BY a) r FROM r1 GROUP BY i, j),
r3 AS (SELECT i, jsonb_agg(r ORDER BY j) r FROM r2 GROUP BY i)
SELECT jsonb_build_object('kind', 'pairwise', 'p', 4, 'k', 5,
						  'weights', (SELECT jsonb_agg(r ORDER BY i) FROM r3),
						  'fields', '[[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0]]'::jsonb,
						  'alphabets', '[2, 3, 5, 3]'::jsonb)::text::mrf AS m;

CREATE TEMP TABLE sa_rows AS
SELECT (enum_range(NULL::pg_temp.sa2))[x[1] + 1] AS a, (ARRAY['low', 'mid', 'high'])[x[2] + 1] AS b,
	   (enum_range(NULL::pg_temp.sa5))[x[3] + 1] AS c, x[4] AS d
FROM mrf_sample((SELECT m FROM sa_truth), 34000, seed => 5) x;

-- stable mode: 17 blocks of 2,000 rows at epsilon 8
CREATE TEMP TABLE sa_stable AS
SELECT mrf_learn_structure(r, epsilon => 8, delta => 1e-6, eta => 0.8, lambda => 2, model => 'pairwise',
						   domains => '{"b": ["low", "mid", "high"], "d": [0, 1, 2]}') AS m
FROM sa_rows r;
SELECT is((SELECT m::jsonb->'edges' FROM sa_stable), '[[1, 2], [2, 3], [3, 4]]'::jsonb,
		  'stable mode: the chain of a 2-, 3-, 5- and 3-valued variable is released exactly');
SELECT is((SELECT array_agg(name_i || '-' || name_j ORDER BY i, j) FROM mrf_edges((SELECT m FROM sa_stable))),
		  ARRAY['a-b', 'b-c', 'c-d'], 'its edges by name');
SELECT is((SELECT jsonb_path_query_array(mrf_info(m), '$.notion') FROM sa_stable), '["approximate"]'::jsonb,
		  'charged as (epsilon, delta)-DP');
SELECT is((SELECT array_agg(cardinality(labels) ORDER BY i) FROM mrf_variables((SELECT m FROM sa_stable))),
		  ARRAY[2, 3, 5, 3], 'each variable keeps its own labels (k_i)');

-- threshold method: the pairwise learner with per-variable alphabets
CREATE TEMP TABLE sa_threshold AS
SELECT mrf_learn_structure(r, rho => 20, eta => 0.8, lambda => 2, model => 'pairwise', method => 'threshold',
						   domains => '{"b": ["low", "mid", "high"], "d": [0, 1, 2]}') AS m
FROM sa_rows r;
SELECT is((SELECT m::jsonb->'edges' FROM sa_threshold), '[[1, 2], [2, 3], [3, 4]]'::jsonb,
		  'threshold method: the chain');
SELECT is((SELECT mrf_info(m)->>'regressions' FROM sa_threshold), '34',
		  'threshold method: sum k_i (k_i - 1) = 2 + 6 + 20 + 6 regressions');
SELECT is((SELECT (mrf_info(m)->>'rho_per_regression')::float8 FROM sa_threshold), 20.0::float8 / 13,
		  'threshold method: each at rho / sum k_i = rho / 13');

-- NULLs by policy: 'category' adds a value to every column, a declared value none
UPDATE sa_rows SET d = NULL WHERE ctid IN (SELECT ctid FROM sa_rows LIMIT 300);
SELECT throws_ok($$SELECT mrf_learn_structure(r, rho => 20, eta => 0.8, model => 'pairwise', method => 'threshold',
						   domains => '{"b": ["low", "mid", "high"], "d": [0, 1, 2]}') FROM sa_rows r$$,
				 '22004', NULL, 'nulls => ''error'' (the default): a NULL is refused');
SELECT is((SELECT mrf_info(mrf_learn_structure(r, rho => 20, eta => 0.8, lambda => 2, model => 'pairwise',
						   method => 'threshold', nulls => 'category',
						   domains => '{"b": ["low", "mid", "high"], "d": [0, 1, 2]}'))->>'regressions' FROM sa_rows r),
		  '60', 'nulls => ''category'': every alphabet grows by one (6 + 12 + 30 + 12 regressions), from the option alone');
SELECT is((SELECT m::jsonb->'edges' FROM (SELECT mrf_learn_structure(r, epsilon => 8, delta => 1e-6, eta => 0.8, lambda => 2,
						   model => 'pairwise', nulls => '1', domains => '{"b": ["low", "mid", "high"], "d": [0, 1, 2]}') AS m
						   FROM sa_rows r) s),
		  '[[1, 2], [2, 3], [3, 4]]'::jsonb, 'nulls => a declared value: the stable mode still finds the chain');

-- refusals, from the declaration and the types
INSERT INTO sa_rows VALUES ('no', 'zz', 'v0', 0);
SELECT throws_ok($$SELECT mrf_learn_structure(r, epsilon => 8, delta => 1e-6, eta => 0.8, model => 'pairwise', nulls => '1',
						   domains => '{"b": ["low", "mid", "high"], "d": [0, 1, 2]}') FROM sa_rows r$$,
				 '23514', 'mrf_learn_structure: column "b" has a value outside its declared domain',
				 'a value outside its domain is refused on the aggregate path, the column named');
SELECT throws_ok($$SELECT mrf_learn_structure(r, epsilon => 8, delta => 1e-6, eta => 0.8, model => 'pairwise',
						   domains => '{"b": ["low", "mid", "high"]}') FROM sa_rows r$$,
				 '42804', NULL, 'a text or integer column without a domain is refused');
SELECT throws_ok($$SELECT mrf_learn_structure(r, epsilon => 8, delta => 1e-6, eta => 0.8, model => 'ising',
						   domains => '{"b": ["low", "mid", "high"]}') FROM sa_rows r$$,
				 '22023', NULL, 'domains belong to model ''pairwise''');
SELECT throws_ok($$SELECT mrf_learn_structure(r, epsilon => 8, delta => 1e-6, eta => 0.8, model => 'pairwise',
						   domains => '{"b": ["low", "mid", "high"], "d": [0, 1.5, 2]}') FROM sa_rows r$$,
				 '22023', NULL, 'an integer domain value no integer can equal is refused');

SELECT * FROM finish();
ROLLBACK;
