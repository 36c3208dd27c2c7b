-- server: session_preload
-- Every bad input gets the right SQLSTATE (the messages are in sql/inputs.sql).
BEGIN;
SELECT plan(23);
SET LOCAL mrfdp.test_seed = 1;
CREATE TEMP TABLE ok_rows AS SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS x FROM generate_series(1, 20) g;

SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (SELECT NULL::boolean[] x) q$$,
                 '22004', NULL, 'NULL sample');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[true, NULL])) q(x)$$,
                 '22004', NULL, 'NULL element');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(t, mrf_options(rho => 1)) FROM (SELECT true a, NULL::boolean b) t$$,
                 '22004', NULL, 'NULL column of a row');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[true, false]), (ARRAY[true, false, true])) q(x)$$,
                 '2202E', NULL, 'ragged arrays');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[[true, false], [false, true]])) q(x)$$,
                 '2202E', NULL, 'two-dimensional array');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[1, 0])) q(x)$$,
                 '22003', NULL, 'int[] value outside {-1, +1}');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[-1, 2]::smallint[])) q(x)$$,
                 '22003', NULL, 'smallint[] value outside {-1, +1}');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[true])) q(x)$$,
                 '22023', NULL, 'p < 2');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (SELECT array_fill(true, ARRAY[5000]) x) q$$,
                 '54000', NULL, 'too many variables');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY['a', 'b'])) q(x)$$,
                 '42804', NULL, 'unsupported element type');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(t, mrf_options(rho => 1)) FROM (SELECT true a, 1 b) t$$,
                 '42804', NULL, 'row with a non-boolean column');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options()) FROM ok_rows$$,
                 '22023', NULL, 'no budget');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(epsilon => 1)) FROM ok_rows$$,
                 '22023', NULL, 'epsilon without delta');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, epsilon => 1, delta => 1e-6)) FROM ok_rows$$,
                 '22023', NULL, 'rho and epsilon together');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => -1)) FROM ok_rows$$,
                 '22023', NULL, 'negative rho');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, mechanism => 'gaussian')) FROM ok_rows$$,
                 '22023', NULL, 'unknown mechanism');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, '{"rho": 1, "colour": 1}') FROM ok_rows$$,
                 '22023', NULL, 'unknown option');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => (x[1])::int + 1)) FROM ok_rows$$,
                 '22023', NULL, 'options that vary from row to row');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, NULL) FROM ok_rows$$,
                 '22004', NULL, 'NULL options');
SELECT throws_ok($$SELECT mrf_learn_ising(x, rho => 1) FROM ok_rows WHERE mrf_learn_ising(x, rho => 1) IS NULL$$,
                 '0A000', NULL, 'named form where no aggregate may stand');
SELECT throws_ok($$SET mrfdp.max_learner_memory = '1MB'; SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (SELECT array_fill(true, ARRAY[1000]) x FROM generate_series(1, 100)) q$$,
                 '54000', NULL, 'working memory above mrfdp.max_learner_memory');
RESET mrfdp.max_learner_memory;
SELECT throws_ok($$SELECT '{"kind": "ising", "p": 2}'::mrf$$, '22P02', NULL, 'malformed model document');
SELECT throws_ok('SELECT * FROM mrf_progress()', '55000', NULL,
                 'mrf_progress without mrfdp in shared_preload_libraries explains');

SELECT * FROM finish();
ROLLBACK;
