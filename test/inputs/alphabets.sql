-- server: session_preload
-- Per-variable alphabets (issue 11 item 1): a row mixing 2-, 3- and
-- 5-valued columns learns a pairwise model in which each variable has its
-- own alphabet.  The truth is a chain A - B - C - D with k = (2, 3, 5, 3)
-- and blocks W_ij(a, b) = s c_i(a) c_j(b) (c: centred value scores), sampled
-- exactly.  The bounds are about twice what the learner reaches and below
-- what the same rows learned with one alphabet of 5 values show (there the
-- binary and ternary variables' estimates shrink by k_i / 5 and the model
-- gives mass to values that do not exist).
BEGIN;
SELECT plan(12);
SET LOCAL mrfdp.test_seed = 1111;

CREATE TYPE pg_temp.al2 AS ENUM ('no', 'yes');
CREATE TYPE pg_temp.al3 AS ENUM ('low', 'mid', 'high');
CREATE TYPE pg_temp.al5 AS ENUM ('v0', 'v1', 'v2', 'v3', 'v4');

-- centred scores of a value: k = 2: (1, -1); 3: (1, 0, -1); 5: (1, .5, 0, -.5, -1)
CREATE FUNCTION pg_temp.score(k int, a int) RETURNS float8 LANGUAGE sql AS
$$ SELECT 1 - 2.0 * a / (k - 1) $$;
CREATE TEMP TABLE al_truth AS
WITH kv(i, k) AS (VALUES (0, 2), (1, 3), (2, 5), (3, 3)),
e(x, y, s) AS (VALUES (0, 1, 0.8), (1, 2, 0.6), (2, 3, -0.7)),
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

SELECT is((SELECT mrf_info(m)->>'parameters' FROM al_truth), '424', 'the truth keeps its alphabets (400 + 20 + 4 parameters)');

CREATE TEMP TABLE al_codes AS SELECT x FROM mrf_sample((SELECT m FROM al_truth), 20000, seed => 3) x;
SELECT is((SELECT count(*) FROM al_codes WHERE x[1] > 1 OR x[2] > 2 OR x[4] > 2), 0::bigint,
		  'sampling never draws a value outside its variable''s alphabet');
CREATE TEMP TABLE al_rows AS
SELECT (enum_range(NULL::pg_temp.al2))[x[1] + 1] AS a, (enum_range(NULL::pg_temp.al3))[x[2] + 1] AS b,
	   (enum_range(NULL::pg_temp.al5))[x[3] + 1] AS c, (enum_range(NULL::pg_temp.al3))[x[4] + 1] AS d
FROM al_codes;

CREATE TEMP TABLE al_models AS
SELECT 'mixed' AS how, mrf_learn_pairwise(r, rho => 50, lambda => 2, iterations => 400) AS m FROM al_rows r
UNION ALL
SELECT 'one alphabet', mrf_learn_pairwise(x, k => 5, rho => 50, lambda => 2, iterations => 400) FROM al_codes;

-- largest |estimate - truth| over the cells of values the variables have
CREATE FUNCTION pg_temp.err(est mrf) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(coalesce(e.weight, 0) - t.weight))
	FROM mrf_weights((SELECT m FROM al_truth)) t
	LEFT JOIN mrf_weights(est) e USING (i, j, a, b)
$$;

SELECT is((SELECT m::jsonb->'alphabets' FROM al_models WHERE how = 'mixed'), '[2, 3, 5, 3]'::jsonb,
		  'the alphabets come from the column types (2, 3, 5 and 3 labels)');
SELECT is((SELECT mrf_info(m)->>'regressions' FROM al_models WHERE how = 'mixed'), '34',
		  'sum k_i (k_i - 1) = 2 + 6 + 20 + 6 regressions');
SELECT is((SELECT (mrf_info(m)->>'rho_per_regression')::float8 FROM al_models WHERE how = 'mixed'), 50.0::float8 / 13,
		  'each at rho / sum k_i = rho / 13');
SELECT is((SELECT count(*) FROM mrf_weights((SELECT m FROM al_models WHERE how = 'mixed'))), 61::bigint,
		  'mrf_weights lists only the cells of values that exist (6 + 15 + 15 + 6 + 10 + 9 = 61)');
SELECT cmp_ok(pg_temp.err((SELECT m FROM al_models WHERE how = 'mixed')), '<', 0.15::float8,
			  'per-variable alphabets: every weight within 0.15');
SELECT cmp_ok(pg_temp.err((SELECT m FROM al_models WHERE how = 'one alphabet')), '>', 0.3::float8,
			  'one alphabet of 5 values on the same rows misses by more than 0.3');
SELECT is((SELECT name_i || '-' || name_j FROM mrf_edges((SELECT m FROM al_models WHERE how = 'mixed'))
		   ORDER BY weight DESC LIMIT 1), 'a-b', 'the strongest edge by name');
SELECT is((SELECT count(*) FROM mrf_fields((SELECT m FROM al_models WHERE how = 'mixed'))), 13::bigint,
		  'mrf_fields: 2 + 3 + 5 + 3 values');
SELECT is((SELECT count(*) FROM mrf_sample((SELECT m FROM al_models WHERE how = 'mixed'), 5000, seed => 4) x
		   WHERE x[1] > 1 OR x[2] > 2 OR x[4] > 2), 0::bigint,
		  'the learned model never samples a value its variable does not have');
SELECT cmp_ok((SELECT count(*) FROM mrf_sample((SELECT m FROM al_models WHERE how = 'one alphabet'), 5000, seed => 4) x
			   WHERE x[1] > 1 OR x[2] > 2 OR x[4] > 2), '>', 25::bigint,
			  'one alphabet gives mass to values that do not exist');

SELECT * FROM finish();
ROLLBACK;
