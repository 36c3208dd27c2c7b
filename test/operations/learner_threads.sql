-- server: session_preload
-- Learner threads (issue 15): the Frank-Wolfe learners split rows across
-- mrfdp.learner_threads threads and add exact integer score sums, so under one
-- test seed the model is bit-identical whatever the thread count or the
-- order in which the rows arrive.
BEGIN;
SELECT plan(11);
SET LOCAL mrfdp.test_seed = 15;

-- 20011 rows: not a multiple of any block of rows, so the threads' shares differ
CREATE TEMP TABLE bin_rows AS
SELECT g, ARRAY[g % 2 = 0, g % 3 = 0, (g * 7) % 5 < 2, g % 7 = 0, (g / 3) % 2 = 0,
                (g * 13) % 11 < 5, (g / 5) % 3 = 0] AS "row"
FROM generate_series(1, 20011) g;
CREATE TEMP TABLE kary_rows AS
SELECT g, ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3, (g / 2) % 3, (g * 5) % 4 % 3] AS "row"
FROM generate_series(1, 20011) g;

CREATE FUNCTION pg_temp.models(threads int) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	result jsonb;
BEGIN
	EXECUTE format('SET LOCAL mrfdp.learner_threads = %s', threads);
	SELECT jsonb_build_object(
		'ising', (SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 40)) FROM bin_rows)::jsonb - 'meta',
		'ising_laplace', (SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 40, mechanism => 'laplace')) FROM bin_rows)::jsonb - 'meta',
		'pairwise', (SELECT mrf_learn_pairwise_agg("row", mrf_options(k => 3, rho => 1, iterations => 30)) FROM kary_rows)::jsonb - 'meta',
		'twise', (SELECT mrf_learn_twise("row", t => 3, rho => 1, iterations => 30) FROM bin_rows)::jsonb - 'meta',
		'threshold', (SELECT mrf_learn_structure("row", rho => 1, eta => 0.5, method => 'threshold') FROM bin_rows)::jsonb - 'meta')
	INTO result;
	RETURN result;
END $$;

CREATE TEMP TABLE by_threads AS
SELECT t, pg_temp.models(t) AS m FROM (VALUES (1), (2), (3), (8)) v(t);

SELECT ok((SELECT count(*) FROM jsonb_object_keys((SELECT m FROM by_threads WHERE t = 1))) = 5
          AND (SELECT bool_and(value IS NOT NULL AND value <> 'null'::jsonb)
               FROM jsonb_each((SELECT m FROM by_threads WHERE t = 1))),
          'every learner returns a model with one thread');
SELECT is((SELECT m FROM by_threads WHERE t = 2), (SELECT m FROM by_threads WHERE t = 1),
          'two threads give the one-thread models');
SELECT is((SELECT m FROM by_threads WHERE t = 3), (SELECT m FROM by_threads WHERE t = 1),
          'three threads give the one-thread models');
SELECT is((SELECT m FROM by_threads WHERE t = 8), (SELECT m FROM by_threads WHERE t = 1),
          'eight threads (more than the cores) give the one-thread models');

-- the models are not trivially equal: another seed changes them
SET LOCAL mrfdp.test_seed = 16;
SELECT isnt((SELECT pg_temp.models(2)), (SELECT m FROM by_threads WHERE t = 1),
            'another seed gives other models (the comparisons above can fail)');
SET LOCAL mrfdp.test_seed = 15;

-- p = 120: q d above 8192 candidates, so with two threads the selection's
-- noise is drawn on both (each its problems, from the same stream moved on)
CREATE TEMP TABLE wide_rows AS
SELECT g, (SELECT array_agg((g * (j + 3) + j * j) % (j % 5 + 2) = 0 ORDER BY j)
           FROM generate_series(1, 120) j) AS "row"
FROM generate_series(1, 4099) g;
SET LOCAL mrfdp.learner_threads = 1;
CREATE TEMP TABLE wide_one AS
SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 12))::jsonb - 'meta' AS m FROM wide_rows;
SET LOCAL mrfdp.learner_threads = 2;
SELECT is((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 12)) FROM wide_rows)::jsonb - 'meta',
          (SELECT m FROM wide_one),
          'p = 120: the selection drawn on two threads gives the one-thread Ising model');

-- row order: the same rows in reverse and in a scrambled order
SET LOCAL mrfdp.learner_threads = 2;
SELECT is((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 40) ORDER BY g DESC) FROM bin_rows)::jsonb - 'meta',
          (SELECT m->'ising' FROM by_threads WHERE t = 1),
          'reversed rows give the same Ising model');
SELECT is((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 40) ORDER BY (g * 7919) % 20011) FROM bin_rows)::jsonb - 'meta',
          (SELECT m->'ising' FROM by_threads WHERE t = 1),
          'scrambled rows give the same Ising model');
SELECT is((SELECT mrf_learn_pairwise_agg("row", mrf_options(k => 3, rho => 1, iterations => 30) ORDER BY g DESC) FROM kary_rows)::jsonb - 'meta',
          (SELECT m->'pairwise' FROM by_threads WHERE t = 1),
          'reversed rows give the same pairwise model');

-- the setting stays a superuser's resource limit with its bounds
SELECT throws_ok('SET mrfdp.learner_threads = 65', '22023', NULL, 'at most 64 learner threads');
SELECT is((SELECT setting FROM pg_settings WHERE name = 'mrfdp.learner_threads'), '2',
          'the setting reads back');

SELECT * FROM finish();
ROLLBACK;
