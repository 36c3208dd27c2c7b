-- server: session_preload
-- Alphabets from CHECK constraints on the protected path (issue 24 item 3):
-- read from the catalog as public schema facts, before anything is charged
-- or read; the alphabet never depends on which values the rows hold.
-- Not in a transaction; cleans up at the end.
SELECT plan(8);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS dsp CASCADE;
SET mrfdp.test_seed = 42;
-- score's CHECK allows 1..5, the rows hold 1..3 only; wide's allows 5001 values
CREATE TABLE dsp (id text, score smallint CHECK (score BETWEEN 1 AND 5),
				  color text CHECK (color IN ('red', 'green', 'blue')), wide int CHECK (wide BETWEEN 0 AND 5000),
				  loose int);
ALTER TABLE dsp ADD CONSTRAINT loose_small CHECK (loose IN (1, 2)) NOT VALID;
INSERT INTO dsp SELECT 'p' || g, 1 + g % 3, (ARRAY['red', 'green', 'blue'])[1 + g % 3], g % 2, 1 + g % 2
FROM generate_series(1, 1200) g;
SELECT pg_temp.protect_for_analyst('dsp', epsilon => 1000, delta => 1e-6, rho_cap => 10);
-- a view of the two CHECKed columns is not the protected path; the row type
-- of the table is: protect a second table of just those columns
CREATE TABLE dsp2 (score smallint CHECK (score BETWEEN 1 AND 5), color text CHECK (color IN ('red', 'green', 'blue')),
				   loose int);
ALTER TABLE dsp2 ADD CONSTRAINT loose2 CHECK (loose IN (1, 2)) NOT VALID;
INSERT INTO dsp2 SELECT score, color, loose FROM dsp;
SELECT pg_temp.protect_for_analyst('dsp2', epsilon => 1000, delta => 1e-6, rho_cap => 10);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('dsp', NULL, rho => 0.5, domains => '{"id": ["a", "b"], "loose": [1, 2]}')$$,
				 '22023', 'mrf_learn_mst: the CHECK constraint of column "wide" allows 5001 values; a column''s alphabet has from 2 to 4096',
				 'a too wide CHECK is refused from the schema, before anything is charged');
SELECT throws_ok($$SELECT mrf_learn_mst_from('dsp2', NULL, rho => 0.5)$$, '42804', NULL,
				 'a NOT VALID constraint is not read as an alphabet (rows may break it)');
CREATE TEMP TABLE dsp_released AS
SELECT mrf_learn_mst_from('dsp2', NULL, rho => 4, domains => '{"loose": [1, 2]}') AS m;
SELECT is((SELECT array_agg(labels::text ORDER BY i) FROM mrf_variables((SELECT m FROM dsp_released))),
		  ARRAY['{1,2,3,4,5}', '{red,green,blue}', '{1,2}'],
		  'the alphabets come from the CHECKs (score 1..5 although the rows hold 1..3), not from the rows');
SELECT is((SELECT mrf_info(m)->>'rows' FROM dsp_released), '1200', 'every row read');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::float FROM dsp_released), '<', 100::float,
			  'no row substituted (every value inside its CHECK alphabet; noisy count near 0)');
SELECT cmp_ok((SELECT count(*) FROM mrf_synthesize((SELECT m FROM dsp_released), 2000, NULL::dsp2, seed => 1) s
			   WHERE (s.color = 'red') = (s.score = 1))::int, '>', 1800,
			  'the dependency score 1 <-> red survives (more than 90% of synthetic rows)');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'dsp'::regclass), 0::bigint,
		  'the refusal from the CHECK charged nothing');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'dsp2'::regclass), 1::bigint,
		  'one release of dsp2 charged');

DROP TABLE dsp, dsp2 CASCADE;
SELECT * FROM finish();
