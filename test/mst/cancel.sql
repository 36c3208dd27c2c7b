-- server: session_preload
-- MST at width hears statement_timeout within a fraction of a second: its
-- pair counting polls by work (a row of 400 columns is 80,000 table
-- increments: before, it polled every 4,096 rows, so a 5,000-row table
-- was counted without one, and a timeout from 300 ms to 6 s ended the
-- call after about 7 s), and the selection, the compressed tables and the estimator
-- (inference polls by a cluster's cells) poll by work too.  Charged as
-- docs/ledger.md says: an aggregate release is charged after it learns,
-- before the model is returned, so a cancelled one charges nothing; a
-- _from call is charged before it reads, so a cancelled one is charged.
-- Not wrapped in a transaction: charges are committed by a background
-- worker, which sees only committed rows.
SELECT plan(9);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS mst_wide CASCADE;
SET mrfdp.test_seed = 31;
SELECT setseed(0.31);
-- 400 columns of 4 values, 5,000 rows, each column mostly a copy of an earlier one
CREATE TABLE mst_wide AS
SELECT i AS g, array_agg(CASE WHEN j = 1 OR random() < 0.3 THEN floor(random() * 4)::int
							  ELSE (i * 7 + j / 2) % 4 END ORDER BY j) AS x
FROM generate_series(1, 5000) i, generate_series(1, 400) j GROUP BY i;
SELECT pg_temp.protect_for_analyst('mst_wide', epsilon => 1000, delta => 1e-6);

\ir ../lib/until_cancelled.psql
CREATE FUNCTION pg_temp.releases() RETURNS bigint LANGUAGE sql
	AS $$SELECT releases FROM mrfdp.budget WHERE relation = 'mst_wide'::regclass$$;

-- Each call under SET LOCAL statement_timeout in its own transaction; the
-- timeouts leave the scan of 5,000 rows time to end, so each lands in the learner.
-- 20,000 estimator steps keep every release far past its timeout: with the
-- tree's selection drawn at once, a release of the default 1,000 steps can
-- end within 2.5 s.
CREATE TEMP TABLE runs (form text, timeout float8, state text, seconds float8, releases_after bigint);
GRANT INSERT, SELECT ON runs TO mrfdp_tap_analyst;
BEGIN;
SET LOCAL statement_timeout = '1s';
INSERT INTO runs SELECT 'aggregate', 1, *, NULL FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_mst_agg(x, mrf_options(rho => 1, k => 4, iterations => 20000)) FROM mst_wide');
SET LOCAL statement_timeout = 0;
COMMIT;
UPDATE runs SET releases_after = pg_temp.releases() WHERE form = 'aggregate' AND timeout = 1;
BEGIN;
SET LOCAL statement_timeout = '2500ms';
INSERT INTO runs SELECT 'aggregate', 2.5, *, NULL FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_mst_agg(x, mrf_options(rho => 1, k => 4, iterations => 20000)) FROM mst_wide');
SET LOCAL statement_timeout = 0;
COMMIT;
UPDATE runs SET releases_after = pg_temp.releases() WHERE form = 'aggregate' AND timeout = 2.5;
SET ROLE mrfdp_tap_analyst;
BEGIN;
SET LOCAL statement_timeout = '300ms';
INSERT INTO runs SELECT 'protected', 0.3, *, NULL FROM pg_temp.until_cancelled(
	$q$SELECT mrf_learn_mst_from('mst_wide', 'x', rho => 1, k => 4, variables => 400, iterations => 20000)$q$);
SET LOCAL statement_timeout = 0;
COMMIT;
RESET ROLE;
UPDATE runs SET releases_after = pg_temp.releases() WHERE form = 'protected';

SELECT is((SELECT array_agg(state ORDER BY form, timeout) FROM runs), ARRAY['57014', '57014', '57014'],
		  'statement_timeout cancels MST over 400 columns: aggregate at 1 s and 2.5 s, protected at 300 ms');
SELECT cmp_ok((SELECT seconds FROM runs WHERE form = 'aggregate' AND timeout = 1), '<', 2::float8,
			  'the 1 s timeout ends the aggregate call within a second of it');
SELECT cmp_ok((SELECT seconds FROM runs WHERE form = 'aggregate' AND timeout = 2.5), '<', 3.5::float8,
			  'the 2.5 s timeout within a second of it');
SELECT cmp_ok((SELECT seconds FROM runs WHERE form = 'protected'), '<', 1.3::float8,
			  'the protected call within a second of its 300 ms');
SELECT cmp_ok((SELECT min(seconds - timeout) FROM runs), '>=', -0.1::float8,
			  'no call ended before its timeout (none was refused early)');
SELECT is((SELECT releases_after FROM runs WHERE form = 'aggregate' AND timeout = 1), 0::bigint,
		  'the cancelled aggregate call charged nothing (it is charged after learning)');
SELECT is((SELECT releases_after FROM runs WHERE form = 'aggregate' AND timeout = 2.5), 0::bigint,
		  'nor did the second');
SELECT is((SELECT releases_after FROM runs WHERE form = 'protected'), 1::bigint,
		  'the cancelled protected call was charged (before its read)');
SELECT ok((SELECT rows_read = 5000 FROM mrfdp.ledger WHERE relation = 'mst_wide'::regclass ORDER BY id DESC LIMIT 1),
		  'which counted the rows before the learner was cancelled');

DROP TABLE mst_wide;
RESET mrfdp.test_seed;
SELECT * FROM finish();
