-- server: session_preload
-- Declared domains on the protected path (issue 11 item 1): the domains are
-- checked against the schema before anything is read or charged; a value
-- outside its column's domain never raises an error there: its row is
-- replaced (row-local substitution), counted with noise and charged.
-- Not in a transaction; cleans up at the end.
SELECT plan(7);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS domains_prot CASCADE;
SET mrfdp.test_seed = 41;
CREATE TABLE domains_prot (state text, band int, urban boolean);
INSERT INTO domains_prot
SELECT (ARRAY['CA', 'NY', 'TX'])[1 + g % 3], g % 3, g % 2 = 0 FROM generate_series(1, 1000) g;
-- 100 rows outside the declared domains (a state, a band) and 20 with a NULL
INSERT INTO domains_prot SELECT 'ZZ', 0, true FROM generate_series(1, 50);
INSERT INTO domains_prot SELECT 'CA', 9, true FROM generate_series(1, 50);
INSERT INTO domains_prot SELECT NULL, 1, false FROM generate_series(1, 20);
SELECT pg_temp.protect_for_analyst('domains_prot', epsilon => 1000, delta => 1e-6, rho_cap => 10);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('domains_prot', NULL, rho => 0.5, domains => '{"state": ["CA", "NY", "TX"]}')$$,
				 '42804', NULL, 'a column without a domain is refused from the schema, before reading');
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('domains_prot', NULL, rho => 0.5, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "zip": [1, 2]}')$$,
				 '42703', NULL, 'a domain naming no column is refused from the schema');
CREATE TEMP TABLE domains_released AS
SELECT mrf_learn_pairwise_from('domains_prot', NULL, rho => 8,
							   domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2]}') AS m;
SELECT is((SELECT mrf_info(m)->>'rows' FROM domains_released), '1120',
		  'values outside their domains raise no error: every row is read');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM domains_released), '>', 60,
			  'the rows outside their domains (and the NULLs) are counted as substituted (120, with noise)');
SELECT is((SELECT m::jsonb->'alphabets' FROM domains_released), '[3, 3, 2]'::jsonb, 'the declared alphabets');
SELECT is((SELECT array_agg(name ORDER BY i) FROM mrf_variables((SELECT m FROM domains_released))),
		  ARRAY['state', 'band', 'urban'], 'names from the schema');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'domains_prot'::regclass), 1::bigint,
		  'one release charged; the refusals charged nothing');

DROP TABLE domains_prot CASCADE;
SELECT * FROM finish();
