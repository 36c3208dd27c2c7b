-- server: session_preload
-- Per-variable alphabets for mrf_learn_cliques_from (issue 11 item 1): the
-- alphabets come from the schema and the declared domains before anything
-- is read; a value outside its domain (or a NULL) never raises an error: its
-- row is substituted, counted with noise and charged; the plan sizes the run
-- from the real per-variable tables, so a mixed-alphabet clique that fits
-- the memory limit learns while the same clique over one alphabet is refused
-- before any charge.  Not in a transaction (charges commit in a worker).
SELECT plan(11);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS cq_prot, cq_wide, cq_wide5 CASCADE;
DROP TYPE IF EXISTS cq_level5 CASCADE;
SET mrfdp.test_seed = 23;
CREATE TYPE cq_level5 AS ENUM ('v1', 'v2', 'v3', 'v4', 'v5');
CREATE TABLE cq_prot (b boolean, e cq_level5, s text);
INSERT INTO cq_prot
SELECT g % 2 = 0, (enum_range(NULL::cq_level5))[1 + g % 5], (ARRAY['x', 'y', 'z'])[1 + (g / 2) % 3]
FROM generate_series(1, 3000) g;
-- 80 rows outside the declared domain of s and 20 with a NULL
INSERT INTO cq_prot SELECT true, 'v1', 'w' FROM generate_series(1, 80);
INSERT INTO cq_prot SELECT NULL, 'v2', 'x' FROM generate_series(1, 20);
SELECT pg_temp.protect_for_analyst('cq_prot', epsilon => 100, delta => 0);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_cliques_from('cq_prot', NULL, cliques => '[[1, 2], [2, 3]]', epsilon => 2)$$,
				 '42804', NULL, 'a text column without a domain is refused from the schema, before reading');
CREATE TEMP TABLE cq_released AS
SELECT mrf_learn_cliques_from('cq_prot', NULL, cliques => '[[1, 2], [2, 3]]', epsilon => 2,
							  domains => '{"s": ["x", "y", "z"]}') AS m;
SELECT is((SELECT m::jsonb->'alphabets' FROM cq_released), '[2, 5, 3]'::jsonb,
		  'the alphabets of the schema and the declared domain');
SELECT is((SELECT mrf_info(m)->>'rows' FROM cq_released), '3100',
		  'values outside their domain raise no error: every row is read');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM cq_released), '>', 50,
			  'the rows outside the domain and the NULLs are counted as substituted (100, with noise)');
SELECT is((SELECT count(*) FROM mrf_marginals((SELECT m FROM cq_released))), 25::bigint,
		  'the tables have 2 x 5 + 5 x 3 cells');
SELECT is((SELECT array_agg(name ORDER BY i) FROM mrf_variables((SELECT m FROM cq_released))),
		  ARRAY['b', 'e', 's'], 'names from the schema');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cq_prot'::regclass), 1::bigint,
		  'one release charged; the refusal charged nothing');
SELECT ok((SELECT spent_epsilon >= 2 AND spent_epsilon < 3 FROM mrfdp.budget_status WHERE relation = 'cq_prot'::regclass),
		  'charged epsilon 2 and the substituted count''s share, whatever the alphabets');

-- The plan sizes the run from the real tables: 7 booleans and a 5-label
-- enum in one clique are 2^7 x 5 = 640 cells (about 0.1 MB of run); with
-- one alphabet of 5 values they would be 5^8 = 390625 (about 50 MB).
CREATE TABLE cq_wide AS
SELECT g % 2 = 0 AS b1, g % 3 = 0 AS b2, g % 5 = 0 AS b3, g % 7 = 0 AS b4, g % 11 = 0 AS b5,
	   g % 13 = 0 AS b6, g % 17 = 0 AS b7, (enum_range(NULL::cq_level5))[1 + g % 5] AS e
FROM generate_series(1, 2000) g;
CREATE TABLE cq_wide5 AS
SELECT e AS e1, e AS e2, e AS e3, e AS e4, e AS e5, e AS e6, e AS e7, e AS e8 FROM cq_wide;
SELECT mrfdp.protect('cq_wide', epsilon => 100, delta => 0);
SELECT mrfdp.protect('cq_wide5', epsilon => 100, delta => 0);
SELECT mrfdp.grant_learning('cq_wide', current_user::regrole);
SELECT mrfdp.grant_learning('cq_wide5', current_user::regrole);
SET mrfdp.max_learner_memory = '4MB';
SELECT lives_ok($$SELECT mrf_learn_cliques_from('cq_wide', NULL, cliques => '[[1, 2, 3, 4, 5, 6, 7, 8]]', epsilon => 5)$$,
				'a mixed clique of 640 cells learns under a 4 MB limit');
SELECT throws_ok($$SELECT mrf_learn_cliques_from('cq_wide5', NULL, cliques => '[[1, 2, 3, 4, 5, 6, 7, 8]]', epsilon => 5)$$,
				 '54000', NULL, 'the same clique over one alphabet of 5 is refused for memory');
RESET mrfdp.max_learner_memory;
SELECT is((SELECT array_agg(releases ORDER BY relation::text) FROM mrfdp.budget
		   WHERE relation IN ('cq_wide'::regclass, 'cq_wide5'::regclass)), ARRAY[1, 0]::bigint[],
		  'the mixed clique is charged once, the refused one not at all (refused before the charge)');

DROP TABLE cq_prot, cq_wide, cq_wide5 CASCADE;
DROP TYPE cq_level5;
SELECT * FROM finish();
