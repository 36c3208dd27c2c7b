-- server: session_preload
-- The clique learner's plan knows the exact memory of its run (inference
-- engine included), so on the protected path an engine over
-- mrfdp.max_learner_memory is refused before the charge, not after it: the
-- budget stays untouched and no release is recorded.  (Before, the exact
-- figure was checked inside the run, after the charge had committed.)
-- Not wrapped in a transaction: charges are committed by a background worker.
SELECT plan(5);
DROP TABLE IF EXISTS cm_bits CASCADE;
CREATE TABLE cm_bits AS
	SELECT g, ARRAY(SELECT ((g * 7919 + i * 104729) % 5 > 1)::int FROM generate_series(1, 16) i) AS x
	FROM generate_series(1, 3000) g;
SELECT mrfdp.protect('cm_bits', epsilon => 100000, delta => 1e-6);
SELECT mrfdp.grant_learning('cm_bits', current_user::regrole);
SET mrfdp.test_seed = 5;
SET mrfdp.max_learner_memory = '1MB';
CREATE TEMP TABLE cm_all_pairs AS
	SELECT json_agg(json_build_array(i, j))::jsonb AS cliques
	FROM generate_series(1, 16) i, generate_series(1, 16) j WHERE i < j;

SELECT throws_ok(
	$$SELECT mrf_learn_cliques_from('cm_bits', 'x', cliques => (SELECT cliques FROM cm_all_pairs), k => 2, epsilon => 200, variables => 16)$$,
	'54000', NULL, 'the protected path refuses an engine over the memory limit');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cm_bits'::regclass), 0::bigint,
	'the refused call charged nothing');
SELECT throws_ok(
	format($$SELECT mrf_learn_cliques(x, cliques => %L, k => 2, epsilon => 200) FROM cm_bits$$,
		   (SELECT cliques::text FROM cm_all_pairs)),
	'54000', NULL, 'the aggregate path refuses it too');
RESET mrfdp.max_learner_memory;
SELECT lives_ok(
	$$SELECT mrf_learn_cliques_from('cm_bits', 'x', cliques => '[[1, 2], [2, 3]]', k => 2, epsilon => 1, variables => 16)$$,
	'a small engine learns under the default limit');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cm_bits'::regclass), 1::bigint,
	'and is charged once');
SELECT * FROM finish();
