-- server: session_preload
-- The learner driver (src/pg/driver/plan.c): options parsed once and planned at the
-- first row, so a learner-specific option error stops the scan at its first
-- row (a sequence, which no rollback resets, counts the rows the aggregate
-- was given); the defaults table is what the SQL forms' NULL defaults mean.
BEGIN;
SELECT plan(18);
SET LOCAL mrfdp.test_seed = 3;
CREATE TEMP SEQUENCE seen;
-- binary rows of 3 variables, and k-ary rows of 3 variables (k = 3)
CREATE TEMP TABLE b AS SELECT g, ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS x FROM generate_series(1, 2000) g;
CREATE TEMP TABLE kk AS SELECT g, ARRAY[g % 3, (g / 3) % 3, (g / 7) % 3] AS x FROM generate_series(1, 2000) g;
-- Rows seen by the aggregate: each one's argument takes a number from seen.
CREATE FUNCTION pg_temp.counted(x anyelement) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT CASE WHEN nextval('seen') > 0 THEN x END $$;
-- Runs q and returns (SQLSTATE, rows the aggregate was given).
CREATE FUNCTION pg_temp.rows_before_error(q text, OUT state text, OUT rows bigint) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setval('seen', 1, false);
	BEGIN
		EXECUTE q;
		state := '00000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
	END;
	rows := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM seen);
END $$;

-- twise: t above p is known from the first row's width
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_twise(pg_temp.counted(x), t => 5, rho => 1) FROM b$$)),
	'(22023,1)', 'twise: t > p is refused at the first row, not after 2000 rows');
-- cliques: a clique naming variable 9 of 3
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_cliques(pg_temp.counted(x), cliques => '[[1, 9]]', k => 3, epsilon => 1) FROM kk$$)),
	'(22023,1)', 'cliques: a variable outside 1..p is refused at the first row');
-- twise: PMW on more than 20 variables
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_twise(pg_temp.counted(array_fill(true, ARRAY[21])), t => 2, rho => 1,
	                         objective => 'linf', query_release => 'pmw') FROM b$$)),
	'(54000,1)', 'twise: pmw with p > 20 is refused at the first row');
-- options alone: refused at the first row too (they were refused after the scan)
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_ising_agg(pg_temp.counted(x), mrf_options(rho => 1, t => 3)) FROM b$$)),
	'(22023,1)', 'ising: an option it does not take is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_pairwise_agg(pg_temp.counted(x), mrf_options(k => 3)) FROM kk$$)),
	'(22023,1)', 'pairwise: no budget is refused at the first row');
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_cliques(pg_temp.counted(x), cliques => '[[1, 2]]', k => 3, epsilon => 1,
	                           method => 'naive', tolerance => 0.1) FROM kk$$)),
	'(22023,1)', 'cliques: tolerance with method naive is refused at the first row');
-- and what only n can refuse still waits for every row (n is public)
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_structure(pg_temp.counted(x), epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 5000) FROM b$$)),
	'(22023,2000)', 'structure: fewer rows than blocks is refused once every row is in');
-- a valid release reads every row once
SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_ising(pg_temp.counted(x), rho => 1) FROM b$$)),
	'(00000,2000)', 'a valid release reads each row once');

-- the defaults table, and the SQL forms' NULL defaults meaning it
SELECT is((SELECT value FROM mrf_option_defaults() WHERE option = 'lambda' AND learner IS NULL),
	'8'::jsonb, 'mrf_option_defaults: lambda');
SELECT is((SELECT value FROM mrf_option_defaults() WHERE option = 'method' AND learner = 'mrf_learn_cliques'),
	'"cgm"'::jsonb, 'mrf_option_defaults: the clique learner''s method');
SELECT is((SELECT value FROM mrf_option_defaults() WHERE option = 'iterations' AND learner = 'mrf_learn_mst'),
	'1000'::jsonb, 'mrf_option_defaults: MST''s mirror-descent steps');
SELECT is((SELECT value FROM mrf_option_defaults() WHERE option = 'iterations' AND learner = 'mrf_learn_aim'),
	'1000'::jsonb, 'mrf_option_defaults: AIM''s mirror-descent steps');
SELECT is((SELECT count(*) FROM (SELECT learner, option FROM mrf_option_defaults() GROUP BY 1, 2 HAVING count(*) > 1) d),
	0::bigint, 'mrf_option_defaults: one line per learner and option');
-- a model learned with the defaults left out is the one learned with them written out
CREATE FUNCTION pg_temp.clean(m mrf) RETURNS jsonb LANGUAGE sql AS
	$$ SELECT m::jsonb #- '{meta,created}' #- '{meta,learn_seconds}' $$;
SELECT is((SELECT pg_temp.clean(mrf_learn_ising(x, rho => 1)) FROM b),
          (SELECT pg_temp.clean(mrf_learn_ising(x, rho => 1, lambda => 8, mechanism => 'exponential',
                                                symmetrize => true)) FROM b),
          'ising: left-out options take the table''s defaults');
SELECT is((SELECT pg_temp.clean(mrf_learn_twise(x, t => 2, rho => 1)) FROM b),
          (SELECT pg_temp.clean(mrf_learn_twise_agg(x, mrf_options(t => 2, rho => 1, lambda => 4, objective => 'l1'))) FROM b),
          'twise: left-out options take the table''s defaults');
SELECT is((SELECT pg_temp.clean(mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1)) FROM kk),
          (SELECT pg_temp.clean(mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1, method => 'cgm',
                                                  tolerance => 1e-5, em_iterations => 300)) FROM kk),
          'cliques: left-out options take the table''s defaults');
SELECT is((SELECT block_count FROM mrf_structure_rows_needed(10, 0.5, 1, 1e-6)),
          (SELECT block_count FROM mrf_structure_rows_needed(10, 0.5, 1, 1e-6, lambda => 8)),
          'mrf_structure_rows_needed: lambda from the table');
-- a window aggregate (no Aggref at its transition) learns the same model (window_plan.sql: planned at its first row)
SELECT is((SELECT pg_temp.clean(m) FROM (SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) OVER () m FROM b LIMIT 1) w),
          (SELECT pg_temp.clean(mrf_learn_ising_agg(x, mrf_options(rho => 1))) FROM b),
          'a window aggregate learns the model the aggregate learns');
SELECT * FROM finish();
ROLLBACK;
