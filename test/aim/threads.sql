-- server: session_preload
-- AIM scores each round's candidates on mrfdp.learner_threads threads: under
-- mrfdp.test_seed the release is the same for 1, 2 and 3 threads (the model
-- and its rounds), on 12 ternary columns in dependent groups, at two
-- budgets and with a workload; a threaded call hears statement_timeout
-- within about a second, and the backend learns again afterwards.
BEGIN;
SELECT plan(10);
SET LOCAL mrfdp.test_seed = 41;

-- columns j with the same j % 6 share a base value (so many pairs depend)
CREATE TEMP TABLE t12 AS
SELECT i AS g, array_agg(CASE WHEN random() < 0.25 THEN floor(random() * 3)::int
							  ELSE (i / (1 + j % 6) + j % 2) % 3 END ORDER BY j) AS x
FROM generate_series(1, 2000) i, generate_series(1, 12) j GROUP BY i;

-- one release per (threads, options), each under the same seed
CREATE TEMP TABLE rel (threads int, opts text, m jsonb);
CREATE FUNCTION pg_temp.learn(threads int, opts text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('mrfdp.learner_threads', threads::text, true);
	PERFORM set_config('mrfdp.test_seed', '41', true);
	EXECUTE format('INSERT INTO rel SELECT %s, %L, mrf_learn_aim_agg(x, mrf_options(k => 3, %s))::jsonb FROM t12',
				   threads, opts, opts);
END $$;
SELECT pg_temp.learn(t, o)
FROM unnest(ARRAY[1, 2, 3]) t,
	 unnest(ARRAY['rho => 1', 'rho => 4', 'rho => 2, workload => ''[[1, 7, 12], [2, 8], [3, 4, 5], [10, 11]]''']) o;
SET LOCAL mrfdp.learner_threads = 1;

SELECT is((SELECT m - 'meta' FROM rel WHERE threads = 2 AND opts = 'rho => 1'),
		  (SELECT m - 'meta' FROM rel WHERE threads = 1 AND opts = 'rho => 1'),
		  'rho 1: the model on 2 threads is the model on 1');
SELECT is((SELECT m - 'meta' FROM rel WHERE threads = 3 AND opts = 'rho => 1'),
		  (SELECT m - 'meta' FROM rel WHERE threads = 1 AND opts = 'rho => 1'),
		  'rho 1: on 3 threads too');
SELECT is((SELECT m - 'meta' FROM rel WHERE threads = 2 AND opts = 'rho => 4'),
		  (SELECT m - 'meta' FROM rel WHERE threads = 1 AND opts = 'rho => 4'),
		  'rho 4: the model on 2 threads is the model on 1');
SELECT is((SELECT m - 'meta' FROM rel WHERE threads = 3 AND opts = 'rho => 4'),
		  (SELECT m - 'meta' FROM rel WHERE threads = 1 AND opts = 'rho => 4'),
		  'rho 4: on 3 threads too');
SELECT is((SELECT count(DISTINCT m - 'meta') FROM rel WHERE opts LIKE '%workload%'), 1::bigint,
		  'a workload: one model for 1, 2 and 3 threads');
SELECT is((SELECT count(DISTINCT m -> 'meta' -> 'rounds') FROM rel GROUP BY opts ORDER BY 1 DESC LIMIT 1),
		  1::bigint, 'and each setting the same rounds whatever the threads');
SELECT cmp_ok((SELECT count(DISTINCT m - 'meta') FROM rel), '=', 3::bigint,
			  'the three settings made three different models (the comparison sees a change)');

-- a threaded call under statement_timeout (96 columns, as test/aim/cancel.sql)
CREATE TEMP TABLE aim_wide AS
SELECT i AS g, array_agg(CASE WHEN j = 1 OR random() < 0.3 THEN floor(random() * 4)::int
							  ELSE (i * 7 + j / 2) % 4 END ORDER BY j) AS x
FROM generate_series(1, 3000) i, generate_series(1, 96) j GROUP BY i;
\ir ../lib/until_cancelled.psql
SET LOCAL mrfdp.learner_threads = 2;
SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE wide_cancel AS
SELECT * FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 4)) FROM aim_wide');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM wide_cancel), '57014', 'statement_timeout = 1s cancels AIM on 2 threads');
SELECT cmp_ok((SELECT seconds FROM wide_cancel), '<', 2.5::float8,
			  'within about a second of the timeout');
SELECT ok((SELECT mrf_learn_aim_agg(x[1:5], mrf_options(rho => 1, k => 4)) FROM aim_wide) IS NOT NULL,
		  'the backend learns again on 2 threads after the cancel');

SELECT * FROM finish();
ROLLBACK;
