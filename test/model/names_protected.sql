-- server: session_preload
-- Names and labels on the protected path (issue 11 item 2): they come from
-- the relation's schema, before any row is read; the metadata names the
-- relation and the column read.  Not in a transaction; cleans up at the end.
SELECT plan(6);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS names_prot CASCADE;
DROP TYPE IF EXISTS names_level;
SET mrfdp.test_seed = 31;
CREATE TYPE names_level AS ENUM ('low', 'mid', 'high');
CREATE TABLE names_prot (lvl names_level, up boolean, grade names_level, levels names_level[]);
INSERT INTO names_prot
SELECT (enum_range(NULL::names_level))[1 + g % 3], g % 2 = 0, (enum_range(NULL::names_level))[1 + g * 7 % 3],
	   ARRAY[(enum_range(NULL::names_level))[1 + g % 3], (enum_range(NULL::names_level))[1 + g % 2]]
FROM generate_series(1, 600) g;
-- an unreadable row: still no error, and the names do not depend on it
INSERT INTO names_prot VALUES (NULL, NULL, NULL, NULL);
SELECT pg_temp.protect_for_analyst('names_prot', epsilon => 1000, delta => 1e-6, rho_cap => 1);
-- rows of the relation, less the array column: a protected table of its own
DROP TABLE IF EXISTS names_prot_cols;
CREATE TABLE names_prot_cols AS SELECT lvl, up, grade FROM names_prot;
SELECT pg_temp.protect_for_analyst('names_prot_cols', epsilon => 1000, delta => 1e-6, rho_cap => 1);

SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE names_released AS
SELECT 'rows' AS how, mrf_learn_pairwise_from('names_prot_cols', NULL, rho => 0.125) AS m
UNION ALL
SELECT 'array', mrf_learn_pairwise_from('names_prot', 'levels', rho => 0.125, variables => 2);
SELECT results_eq($$SELECT i, name, labels FROM mrf_variables((SELECT m FROM names_released WHERE how = 'rows'))$$,
	$$VALUES (1, 'lvl'::text, ARRAY['low', 'mid', 'high']), (2, 'up', ARRAY['false', 'true']), (3, 'grade', ARRAY['low', 'mid', 'high'])$$,
	'whole rows: names and labels from the schema');
SELECT is((SELECT mrf_info(m)->'source' FROM names_released WHERE how = 'rows'),
		  '{"relation": "public.names_prot_cols", "columns": ["lvl", "up", "grade"]}'::jsonb,
		  'whole rows: the source relation and its columns');
SELECT results_eq($$SELECT name, labels FROM mrf_variables((SELECT m FROM names_released WHERE how = 'array'))$$,
	$$VALUES (NULL::text, ARRAY['low', 'mid', 'high']), (NULL, ARRAY['low', 'mid', 'high'])$$,
	'an enum array: labels, no names');
SELECT is((SELECT mrf_info(m)->'source' FROM names_released WHERE how = 'array'),
		  '{"relation": "public.names_prot", "column": "levels"}'::jsonb, 'a column: the relation and the column');
SELECT ok((SELECT mrf_info(m) ? 'substituted_rows' FROM names_released WHERE how = 'rows'),
		  'the substituted-row count is still there');
SELECT is((SELECT name_i || '/' || label_a FROM mrf_weights((SELECT m FROM names_released WHERE how = 'rows'))
		   WHERE i = 1 AND j = 3 AND a = 2 AND b = 0), 'lvl/high', 'mrf_weights labels on the protected path');
RESET ROLE;

DROP TABLE names_prot, names_prot_cols CASCADE;
DROP TYPE names_level;
SELECT * FROM finish();
