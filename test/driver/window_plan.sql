-- server: session_preload
-- Window aggregates are planned at their first row like every other form
-- (issue 14, item 1): each learner has its own transition, so the learner,
-- its options and its charge are known at a window's first row although a
-- window aggregate has no Aggref.  A learner-specific option error, and a
-- release that would not fit a protected relation's budget, stop the scan
-- at the first row (a sequence, which no rollback resets, counts the rows
-- the aggregate was given).  With 0.1.0's shared transitions the window
-- forms of ising, pairwise, twise and cliques read all 2000 rows first.
-- Not wrapped in a transaction: the budget check reads the committed ledger.
SELECT plan(13);

DROP TABLE IF EXISTS wp_b, wp_k, wp_protected CASCADE;
SET mrfdp.test_seed = 3;
CREATE TEMP SEQUENCE wp_seen;
-- binary rows of 3 variables, and k-ary rows of 3 variables (k = 3)
CREATE TABLE wp_b AS SELECT g, ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS x FROM generate_series(1, 2000) g;
CREATE TABLE wp_k AS SELECT g, ARRAY[g % 3, (g / 3) % 3, (g / 7) % 3] AS x FROM generate_series(1, 2000) g;
-- Rows seen by the aggregate: each one's argument takes a number from wp_seen.
CREATE FUNCTION pg_temp.counted(x anyelement) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT CASE WHEN nextval('wp_seen') > 0 THEN x END $$;
-- Runs q and returns (SQLSTATE, rows the aggregate was given).
CREATE FUNCTION pg_temp.rows_before_error(q text, OUT state text, OUT rows bigint) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setval('wp_seen', 1, false);
	BEGIN
		EXECUTE q;
		state := '00000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
	END;
	rows := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM wp_seen);
END $$;

-- an option the learner does not take, in window form
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_ising_agg(pg_temp.counted(x), mrf_options(rho => 1, t => 3)) OVER () FROM wp_b$$)),
	'(22023,1)', 'ising window: an option it does not take is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_pairwise_agg(pg_temp.counted(x), mrf_options(k => 3, rho => 1, eta => 0.5)) OVER () FROM wp_k$$)),
	'(22023,1)', 'pairwise window: an option it does not take is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_twise_agg(pg_temp.counted(x), mrf_options(rho => 1)) OVER () FROM wp_b$$)),
	'(22023,1)', 'twise window: a missing t is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_cliques_agg(pg_temp.counted(x), mrf_options(cliques => '[[1, 2]]', k => 3, epsilon => 1,
	                                                                method => 'naive', tolerance => 0.1)) OVER () FROM wp_k$$)),
	'(22023,1)', 'cliques window: tolerance with method naive is refused at the first row');
-- what the first row's width refuses, in window form
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_twise_agg(pg_temp.counted(x), mrf_options(t => 5, rho => 1)) OVER () FROM wp_b$$)),
	'(22023,1)', 'twise window: t > p is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_cliques_agg(pg_temp.counted(x), mrf_options(cliques => '[[1, 9]]', k => 3, epsilon => 1)) OVER () FROM wp_k$$)),
	'(22023,1)', 'cliques window: a variable outside 1..p is refused at the first row');
-- each window partition is planned at its own first row
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_ising_agg(pg_temp.counted(x), mrf_options(rho => 1, t => 3)) OVER (PARTITION BY g % 2) FROM wp_b$$)),
	'(22023,1)', 'ising window by partition: refused at the first partition''s first row');
-- a valid window release reads every row once and learns the aggregate's model
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_pairwise_agg(pg_temp.counted(x), mrf_options(k => 3, rho => 1)) OVER () FROM wp_k$$)),
	'(00000,2000)', 'a valid window release reads each row once');
CREATE FUNCTION pg_temp.clean(m mrf) RETURNS jsonb LANGUAGE sql AS
	$$ SELECT m::jsonb #- '{meta,created}' #- '{meta,learn_seconds}' $$;
SELECT is((SELECT pg_temp.clean(m) FROM (SELECT mrf_learn_twise_agg(x, mrf_options(t => 2, rho => 1)) OVER () m FROM wp_b LIMIT 1) w),
          (SELECT pg_temp.clean(mrf_learn_twise_agg(x, mrf_options(t => 2, rho => 1))) FROM wp_b),
          'a window aggregate learns the model the aggregate learns (twise)');

-- the budget: a release that cannot fit is refused at a window's first row,
-- before any learning and without a charge
CREATE TABLE wp_protected AS SELECT * FROM wp_b;
SELECT mrfdp.protect('wp_protected', epsilon => 1, delta => 1e-6);
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_ising_agg(pg_temp.counted(x), mrf_options(rho => 100)) OVER () FROM wp_protected$$)),
	'(42501,1)', 'ising window: a release over the budget is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_twise_agg(pg_temp.counted(x), mrf_options(t => 2, rho => 100)) OVER () FROM wp_protected$$)),
	'(42501,1)', 'twise window: a release over the budget is refused at the first row');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'wp_protected'::regclass), 0::bigint,
          'nothing was charged');
-- and one that fits is learned and charged once
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_ising_agg(pg_temp.counted(x), mrf_options(rho => 0.01)) OVER () FROM wp_protected$$)),
	'(00000,2000)', 'ising window: a release that fits reads every row');

SELECT * FROM finish();
DROP TABLE wp_b, wp_k, wp_protected CASCADE;
