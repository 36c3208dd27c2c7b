-- server: session_preload
-- mrf_learn_aim_plan's input and time.  A 2-D alphabets array is refused
-- (2202E) as every other function refuses one, not read flattened, and
-- charges nothing.  The time estimate counts mrfdp.learner_threads, on the
-- candidates' scoring share only (the estimator's steps are not threaded):
-- one thread is the single-thread model (1.2 us a candidate and column, 80
-- ns a round's estimator step and tree cell), more threads never a larger
-- estimate, and the threads counted are at most the setting.
BEGIN;
SELECT plan(11);
CREATE TEMP TABLE ledger_before AS SELECT (SELECT count(*) FROM mrfdp.ledger) AS rows_before,
	(SELECT coalesce(sum(releases), 0) FROM mrfdp.budget) AS releases_before;

SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[[3, 3], [3, 3]], 0.5)$$, '2202E',
	'mrf_learn_aim_plan: alphabets must be a one-dimensional array', 'a 2 x 2 alphabets array is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[[3, 4, 5]], 0.5, 1000, rounds => 8)$$, '2202E', NULL,
	'a 1 x 3 array too, with n and options');
SELECT ok((SELECT rows_before = (SELECT count(*) FROM mrfdp.ledger) AND
				  releases_before = (SELECT coalesce(sum(releases), 0) FROM mrfdp.budget) FROM ledger_before),
	'the refusals leave the ledger and the budgets as they were');
SELECT is((mrf_learn_aim_plan(ARRAY[3, 4, 5], 0.5) ->> 'variables')::int, 3, 'the same sizes as a 1-D array plan three columns');

-- one plan per thread setting, 96 columns of 4 values and 12 of 3 with a workload
CREATE TEMP TABLE plans (cols text, threads int, plan jsonb);
CREATE FUNCTION pg_temp.plan_at(threads int, alphabets int[], cols text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('mrfdp.learner_threads', threads::text, true);
	INSERT INTO plans VALUES (cols, threads, mrf_learn_aim_plan(alphabets, 1, 10000));
END $$;
SELECT pg_temp.plan_at(t, array_fill(4, ARRAY[96]), '96x4') FROM generate_series(1, 8) t;
SELECT pg_temp.plan_at(t, array_fill(3, ARRAY[12]), '12x3') FROM generate_series(1, 8) t;
SET LOCAL mrfdp.learner_threads = 1;

SELECT is((SELECT count(*) FROM plans WHERE threads = 1 AND abs((plan ->> 'seconds_per_round')::float8 -
			(1.2e-6 * (plan ->> 'candidates')::float8 * (plan ->> 'variables')::float8 +
			 80e-9 * 100 * (plan ->> 'modelled_tree_cells')::float8)) > 1e-12 * (plan ->> 'seconds_per_round')::float8),
		  0::bigint, 'one thread: the single-thread model''s seconds a round');
SELECT is((SELECT array_agg((plan ->> 'threads')::int ORDER BY cols) FROM plans WHERE threads = 1), ARRAY[1, 1],
		  'one thread counted at mrfdp.learner_threads = 1');
SELECT is((SELECT count(*) FROM plans a JOIN plans b ON a.cols = b.cols AND b.threads = a.threads + 1
		   WHERE (b.plan ->> 'seconds_max')::float8 > (a.plan ->> 'seconds_max')::float8
			  OR (b.plan ->> 'seconds_per_round')::float8 > (a.plan ->> 'seconds_per_round')::float8), 0::bigint,
		  'one more thread never gives a larger estimate (1 to 8 threads)');
SELECT is((SELECT count(*) FROM plans WHERE (plan ->> 'threads')::int NOT BETWEEN 1 AND threads), 0::bigint,
		  'the threads counted are between 1 and the setting');
-- where two threads are counted (a machine of two cores or more), the scoring share halves at 1.5x
SELECT is((SELECT count(*) FROM plans a JOIN plans b ON a.cols = b.cols AND a.threads = 1 AND b.threads = 2
		   WHERE (b.plan ->> 'threads')::int = 2 AND
				 abs((b.plan ->> 'seconds_per_round')::float8 -
					 (1.2e-6 * (a.plan ->> 'candidates')::float8 * (a.plan ->> 'variables')::float8 / 1.5 +
					  80e-9 * 100 * (a.plan ->> 'modelled_tree_cells')::float8)) > 1e-12 * (a.plan ->> 'seconds_per_round')::float8),
		  0::bigint, 'two threads: the scoring share over 1.5, the estimator''s share as on one');
SELECT ok((SELECT bool_and((b.plan ->> 'threads')::int = 1 OR
						   (b.plan ->> 'seconds_max')::float8 < (a.plan ->> 'seconds_max')::float8)
		   FROM plans a JOIN plans b ON a.cols = b.cols AND a.threads = 1 AND b.threads = 8),
		  'eight threads: a smaller estimate wherever more than one thread is counted');
SELECT ok((SELECT (b.plan - '{threads,seconds_per_round,seconds_max,memory_bytes,fits_memory}'::text[]) = (a.plan - '{threads,seconds_per_round,seconds_max,memory_bytes,fits_memory}'::text[])
		   FROM plans a JOIN plans b ON a.cols = b.cols AND a.cols = '96x4' AND a.threads = 1 AND b.threads = 8),
		  'the threads change nothing else of the plan (but the memory their scratch takes)');

SELECT * FROM finish();
ROLLBACK;
