-- server: session_preload
-- Missing values on the protected path (issue 11 item 3): the policy is
-- applied row by row, from the options and the schema; under 'error' a
-- row with a NULL is replaced by the fixed row (never an error), under
-- 'category' or a declared value it is read.  Not in a transaction; cleans
-- up at the end.
SELECT plan(5);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS nulls_prot CASCADE;
SET mrfdp.test_seed = 43;
CREATE TABLE nulls_prot (a boolean, b boolean, c boolean);
-- 400 of 2,000 rows have a NULL
INSERT INTO nulls_prot
SELECT CASE WHEN g % 5 = 0 THEN NULL ELSE g % 2 = 0 END, g % 3 = 0, g % 2 = 0 FROM generate_series(1, 2000) g;
SELECT pg_temp.protect_for_analyst('nulls_prot', epsilon => 1000, delta => 1e-6, rho_cap => 100);

SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE nulls_released AS
SELECT 'error' AS how, mrf_learn_pairwise_from('nulls_prot', NULL, rho => 16) AS m
UNION ALL SELECT 'category', mrf_learn_pairwise_from('nulls_prot', NULL, rho => 16, nulls => 'category')
UNION ALL SELECT 'false', mrf_learn_pairwise_from('nulls_prot', NULL, rho => 16, nulls => 'false');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM nulls_released WHERE how = 'error'),
			  '>', 300, 'nulls => ''error'': the 400 rows with a NULL are substituted (noisy count), no error');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM nulls_released WHERE how = 'category'),
			  '<', 100, 'nulls => ''category'': they are read (a noisy count near 0)');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM nulls_released WHERE how = 'false'),
			  '<', 100, 'nulls => ''false'': they are read as false');
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM nulls_released WHERE how = 'category')) WHERE name = 'a'),
		  ARRAY['false', 'true', NULL], 'category: labels from the schema and the policy');
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('nulls_prot', NULL, rho => 1, nulls => 'maybe')$$, '22023', NULL,
				 'a declared value no column has is refused before reading');
RESET ROLE;

DROP TABLE nulls_prot CASCADE;
SELECT * FROM finish();
