-- server: session_preload
-- Structure learning with model 'pairwise' on a protected relation of
-- columns with their own alphabets (issue 11 item 1): domains and NULL
-- policies are checked against the schema before anything is read or
-- charged (an integer domain value no integer can equal included); a value
-- outside its declared domain, or a NULL under 'error', never raises an
-- error there: its row is replaced by the fixed row, counted with noise and
-- charged.  Not in a transaction (charges commit through the worker);
-- cleans up at the end.
SELECT plan(11);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS sap_rows CASCADE;
DROP TYPE IF EXISTS sap5 CASCADE;
SET mrfdp.test_seed = 77;
CREATE TYPE sap5 AS ENUM ('v0', 'v1', 'v2', 'v3', 'v4');
-- a chain a - b - c (k = 2, 3, 5), W_ij(a, b) = s c_i(a) c_j(b) with centred scores c
CREATE TABLE sap_rows AS
WITH kv(i, k) AS (VALUES (0, 2), (1, 3), (2, 5)),
e(x, y, s) AS (VALUES (0, 1, 1.0), (1, 2, -0.9)),
cell AS (
  SELECT i.i, j.i AS j, a, b,
		 CASE WHEN a >= i.k OR b >= j.k THEN 0 ELSE
		   coalesce((SELECT e.s FROM e WHERE (e.x, e.y) IN ((i.i, j.i), (j.i, i.i))), 0)
		   * (1 - 2.0 * a / (i.k - 1)) * (1 - 2.0 * b / (j.k - 1)) END AS w
  FROM kv i, kv j, generate_series(0, 4) a, generate_series(0, 4) b),
r1 AS (SELECT i, j, a, jsonb_agg(w ORDER BY b) r FROM cell GROUP BY i, j, a),
r2 AS (SELECT i, j, jsonb_agg(r ORDER BY a) r FROM r1 GROUP BY i, j),
r3 AS (SELECT i, jsonb_agg(r ORDER BY j) r FROM r2 GROUP BY i),
truth AS (SELECT jsonb_build_object('kind', 'pairwise', 'p', 3, 'k', 5,
									'weights', (SELECT jsonb_agg(r ORDER BY i) FROM r3),
									'fields', '[[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0]]'::jsonb,
									'alphabets', '[2, 3, 5]'::jsonb)::text::mrf AS m)
SELECT x[1] = 1 AS a, (ARRAY['low', 'mid', 'high'])[x[2] + 1] AS b, (enum_range(NULL::sap5))[x[3] + 1] AS c
FROM mrf_sample((SELECT m FROM truth), 12000, seed => 6) x;
-- 200 rows outside b's domain and 100 with a NULL c: replaced, never an error
INSERT INTO sap_rows SELECT true, 'zz', 'v0' FROM generate_series(1, 200);
INSERT INTO sap_rows SELECT false, 'low', NULL FROM generate_series(1, 100);
SELECT pg_temp.protect_for_analyst('sap_rows', epsilon => 100, delta => 1e-4, rho_cap => 100);
CREATE TEMP TABLE sap_results (what text, m mrf);
GRANT INSERT, SELECT ON sap_results TO mrfdp_tap_analyst;

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_structure_from('sap_rows', NULL, epsilon => 8, delta => 1e-6, eta => 0.5,
				 model => 'pairwise')$$,
				 '42804', NULL, 'a text column without a domain is refused from the schema, before reading');
SELECT throws_ok($$SELECT mrf_learn_structure_from('sap_rows', NULL, epsilon => 8, delta => 1e-6, eta => 0.5,
				 model => 'pairwise', domains => '{"b": ["low", "mid", "high"], "zip": [1, 2]}')$$,
				 '42703', NULL, 'a domain naming no column is refused from the schema');
SELECT throws_ok($$SELECT mrf_learn_structure_from('sap_rows', NULL, epsilon => 8, delta => 1e-6, eta => 0.5,
				 model => 'pairwise', domains => '{"b": ["low", "mid", "high"]}', nulls => 'v9')$$,
				 '22023', NULL, 'a NULL value no column has is refused from the options and the schema');
INSERT INTO sap_results
SELECT 'stable', mrf_learn_structure_from('sap_rows', NULL, epsilon => 8, delta => 1e-6, eta => 0.5, lambda => 2,
										  model => 'pairwise', domains => '{"b": ["low", "mid", "high"]}');
INSERT INTO sap_results
SELECT 'threshold', mrf_learn_structure_from('sap_rows', NULL, rho => 4, eta => 0.5, lambda => 2, model => 'pairwise',
											 method => 'threshold', nulls => 'category',
											 domains => '{"b": ["low", "mid", "high"]}');
RESET ROLE;
SELECT is((SELECT mrf_info(m)->>'rows' FROM sap_results WHERE what = 'stable'), '12300',
		  'values outside their domain and NULLs raise no error: every row is read');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM sap_results WHERE what = 'stable'),
			  '>', 150, 'the 300 rows outside the domain or with a NULL are counted as substituted (with noise)');
SELECT is((SELECT m::jsonb->'edges' FROM sap_results WHERE what = 'stable'), '[[1, 2], [2, 3]]'::jsonb,
		  'the stable mode releases the chain a - b - c (k = 2, 3, 5)');
SELECT is((SELECT mrf_info(m)->>'regressions' FROM sap_results WHERE what = 'threshold'), '48',
		  'threshold with nulls => ''category'': 3 x 2 + 4 x 3 + 6 x 5 regressions, from the schema and the options');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM sap_results WHERE what = 'threshold'),
			  '<', 300, 'under ''category'' the NULL rows are read, only the rows outside the domain substituted');
SELECT is((SELECT array[releases::int, (spent_approx_epsilon > 0)::int] FROM mrfdp.budget WHERE relation = 'sap_rows'::regclass),
		  ARRAY[2, 1], 'two releases charged; the refusals charged nothing');

-- a domain value that no integer can equal is refused before the read and the charge
ALTER TABLE sap_rows ADD COLUMN n int DEFAULT 1;
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_structure_from('sap_rows', NULL, epsilon => 8, delta => 1e-6, eta => 0.5,
				 model => 'pairwise', domains => '{"b": ["low", "mid", "high"], "n": ["01", 1, 2]}')$$,
				 '22023', NULL, 'an integer domain value written "01" is refused before reading');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'sap_rows'::regclass), 2::bigint,
		  'and charged nothing (not the withheld read error, which is charged)');

DROP TABLE sap_rows CASCADE;
DROP TYPE sap5;
SELECT * FROM finish();
