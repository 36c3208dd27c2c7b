-- server: session_preload
-- The protected path plans from its options and from p and k (the schema and
-- variables =>) before it reads: a learner-specific option error is raised
-- without a scan of the relation (counted by the transaction's own table
-- statistics) and charges nothing; a valid call scans once.
-- Not wrapped in a transaction: charges are committed by a background worker.
SELECT plan(6);
DROP TABLE IF EXISTS dp_kary CASCADE;
CREATE TABLE dp_kary AS SELECT g, ARRAY[g % 3, (g / 3) % 3, (g / 7) % 3] AS x FROM generate_series(1, 500) g;
SELECT mrfdp.protect('dp_kary', epsilon => 100, delta => 1e-6);
SELECT mrfdp.grant_learning('dp_kary', current_user::regrole);
SET mrfdp.test_seed = 5;
-- Runs q in this transaction: its SQLSTATE and the scans of dp_kary it made.
CREATE FUNCTION pg_temp.scans_of(q text, OUT state text, OUT scans bigint) LANGUAGE plpgsql AS $$
DECLARE
	before bigint := pg_stat_get_xact_numscans('dp_kary'::regclass);
BEGIN
	BEGIN
		EXECUTE q;
		state := '00000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
	END;
	scans := pg_stat_get_xact_numscans('dp_kary'::regclass) - before;
END $$;

SELECT is((SELECT (state, scans)::text FROM pg_temp.scans_of(
	$$SELECT mrf_learn_cliques_from('dp_kary', 'x', cliques => '[[1, 9]]', k => 3, epsilon => 1, variables => 3)$$)),
	'(22023,0)', 'cliques: a variable outside 1..p is refused before the relation is read');
SELECT is((SELECT (state, scans)::text FROM pg_temp.scans_of(
	$$SELECT mrf_learn_twise_from('dp_kary', 'x', t => 5, rho => 1, variables => 3)$$)),
	'(22023,0)', 'twise: t > p is refused before the relation is read');
SELECT is((SELECT (state, scans)::text FROM pg_temp.scans_of(
	$$SELECT mrf_learn_cliques_from('dp_kary', 'x', cliques => '[[1, 2], [2, 1]]', k => 3, epsilon => 1, variables => 3)$$)),
	'(22023,0)', 'cliques: a repeated clique is refused before the relation is read');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'dp_kary'::regclass), 0::bigint,
	'the refused calls charged nothing');
SELECT is((SELECT (state, scans)::text FROM pg_temp.scans_of(
	$$SELECT mrf_learn_cliques_from('dp_kary', 'x', cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1, variables => 3)$$)),
	'(00000,1)', 'a valid call reads the relation once');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'dp_kary'::regclass), 1::bigint,
	'and is charged once');
SELECT * FROM finish();
DROP TABLE dp_kary CASCADE;
