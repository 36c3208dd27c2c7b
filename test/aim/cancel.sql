-- server: session_preload
-- AIM at width (issue 25 item 3): a wide AIM call hears statement_timeout
-- within about a second (the rounds poll once a candidate and once an
-- estimator step, not once a round), returns nothing, and a narrow call
-- under the same timeout still finishes.
BEGIN;
SELECT plan(6);
SET LOCAL mrfdp.test_seed = 25;

-- 96 columns of 4 values, each mostly a copy of an earlier one (tree-shaped)
CREATE TEMP TABLE aim_wide AS
SELECT i AS g, array_agg(CASE WHEN j = 1 OR random() < 0.3 THEN floor(random() * 4)::int
							  ELSE (i * 7 + j / 2) % 4 END ORDER BY j) AS x
FROM generate_series(1, 3000) i, generate_series(1, 96) j GROUP BY i;

\ir ../lib/until_cancelled.psql

SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE wide_cancel AS
SELECT * FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 4)) FROM aim_wide');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM wide_cancel), '57014', 'statement_timeout = 1s cancels AIM over 96 columns');
SELECT cmp_ok((SELECT seconds FROM wide_cancel), '<', 2.5::float8,
			  'and the call ends within about a second of the timeout');

SET LOCAL statement_timeout = '300ms';
CREATE TEMP TABLE wide_cancel_300 AS
SELECT * FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 4)) FROM aim_wide');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM wide_cancel_300), '57014', 'statement_timeout = 300ms cancels it too');
SELECT cmp_ok((SELECT seconds FROM wide_cancel_300), '<', 1.3::float8,
			  'within a second of the timeout');

SET LOCAL statement_timeout = '20s';
CREATE TEMP TABLE narrow AS
SELECT * FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_aim_agg(x[1:4], mrf_options(rho => 1, k => 4)) FROM aim_wide');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM narrow), 'finished', 'a narrow AIM call under a timeout finishes');
SELECT cmp_ok((SELECT seconds FROM wide_cancel), '>=', 0.9::float8,
			  'the wide call ran until the timeout (it was not refused early)');

SELECT * FROM finish();
ROLLBACK;
