-- server: session_preload
-- Bins on the protected path (issue 24 item 2): the bins are checked
-- against the schema before anything is charged or read; a value without a
-- bin (NaN) or a NULL under nulls => 'error' substitutes its row (counted
-- with noise), never an error; the model synthesizes into the source's
-- column types.  Not in a transaction; cleans up at the end.
SELECT plan(10);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS bprot, bprot_syn CASCADE;
SET mrfdp.test_seed = 43;
CREATE TABLE bprot (age smallint, income numeric, visit date, member boolean);
INSERT INTO bprot
SELECT a, a * 1000 + g % 500, date '2020-01-01' + (a * 7) % 700, a >= 40
FROM (SELECT g, (18 + g % 60)::smallint AS a FROM generate_series(1, 4000) g) s;
-- 40 NaN incomes and 60 NULL ages: rows without a bin
INSERT INTO bprot SELECT 30, 'NaN', '2020-03-01', false FROM generate_series(1, 40);
INSERT INTO bprot SELECT NULL, 5000, '2020-03-01', true FROM generate_series(1, 60);
GRANT CREATE ON SCHEMA public TO mrfdp_tap_analyst;
SELECT pg_temp.protect_for_analyst('bprot', epsilon => 1000, delta => 1e-6, rho_cap => 10);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('bprot', NULL, rho => 1, bins => '{"age": [30, 50], "income": [1], "visit": [1]}')$$,
				 '22023', NULL, 'a number edge for a date column is refused from the schema, before the charge');
SELECT throws_ok($$SELECT mrf_learn_mst_from('bprot', NULL, rho => 1, bins => '{"age": [30, 50], "income": [1], "member": [1]}')$$,
				 '42804', NULL, 'bins on a boolean column are refused from the schema');
SELECT throws_ok($$SELECT mrf_learn_mst_from('bprot', NULL, rho => 1, bins => '{"age": [30, 50], "income": [1]}')$$,
				 '42804', NULL, 'a date column without bins is refused, before reading');
CREATE TEMP TABLE bprot_released AS
SELECT mrf_learn_mst_from('bprot', NULL, rho => 4,
						  bins => '{"age": [30, 40, 50, 60], "income": {"min": 0, "max": 80000, "width": 10000},
									"visit": {"min": "2020-01-01", "max": "2022-01-01", "width": "90 days"}}') AS m;
SELECT is((SELECT mrf_info(m)->>'rows' FROM bprot_released), '4100', 'NaNs and NULLs raise no error: every row is read');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM bprot_released), '>', 50,
			  'the rows without a bin (40 NaN, 60 NULL) are counted as substituted, with noise');
SELECT is((SELECT labels[1:3] FROM mrf_variables((SELECT m FROM bprot_released)) WHERE name = 'visit'),
		  ARRAY['(-inf,2020-01-01)', '[2020-01-01,2020-03-31)', '[2020-03-31,2020-06-29)'], 'date bins from min, max and width');
SELECT is(mrf_synthesize_into((SELECT m FROM bprot_released), 'bprot_syn', 4000, seed => 5), 4000::bigint,
		  'synthesized into a new table');
SELECT is((SELECT array_agg(attname || ' ' || format_type(atttypid, atttypmod) ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = 'bprot_syn'::regclass AND attnum > 0),
		  ARRAY['age smallint', 'income numeric', 'visit date', 'member boolean'],
		  'the synthetic table has the source''s types');
SELECT cmp_ok((SELECT corr(age, income::float8) FROM bprot_syn), '>', 0.85::float8,
			  'income follows age in the synthetic rows (the data''s correlation is 1.0)');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'bprot'::regclass), 1::bigint,
		  'one release charged; the refusals charged nothing');

DROP TABLE bprot, bprot_syn CASCADE;
REVOKE CREATE ON SCHEMA public FROM mrfdp_tap_analyst;
SELECT * FROM finish();
