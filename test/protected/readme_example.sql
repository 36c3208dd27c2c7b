-- server: session_preload
-- docs/ledger.md's "Protected relations and the privacy ledger" example, run as
-- written (keep the statements marked README in step with docs/ledger.md): the
-- budget it sets has room for the ten releases of rho = 0.1 it announces.
-- Not wrapped in a transaction: charges are committed by a background worker.
SELECT plan(17);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'analyst') THEN
		CREATE ROLE analyst;
	END IF;
END $$;
DROP TABLE IF EXISTS samples CASCADE;
SET mrfdp.test_seed = 17;
-- 64 binary variables per row, as the example's variables => 64 says
CREATE TABLE samples AS
SELECT array_agg((i * 7 + v * 13 + i * v) % 3 = 0 ORDER BY v) AS "row"
FROM generate_series(1, 400) i, generate_series(1, 64) v GROUP BY i;
GRANT USAGE ON SCHEMA public TO analyst;
CREATE TEMP TABLE results (n int, state text, msg text);
GRANT ALL ON results TO analyst;
-- Runs a statement; its SQLSTATE (00000: none) and message.
CREATE FUNCTION pg_temp.readme_try(q text, OUT state text, OUT msg text) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := '00000';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
END $$;

-- README: the owner
SET client_min_messages = warning;
SELECT lives_ok($$SELECT * FROM mrfdp.protect('samples', epsilon => 8, delta => 1e-6)$$, 'README: protect()');
RESET client_min_messages;
-- the row the README shows, rounded as it is there
SELECT is((SELECT format('%s %s %s %s %s %s', relation, epsilon, delta, round(rho::numeric, 3), round(rho_from::numeric, 3),
						 round(remaining_rho_from::numeric, 3))
		   FROM mrfdp.protect('samples', epsilon => 8, delta => 1e-6)),
	'samples 8 1e-06 1.052 1.044 1.044', 'README: protect() returns the row shown');
SELECT lives_ok($$SELECT mrfdp.grant_learning('samples', 'analyst')$$, 'README: grant_learning()');
SELECT is((SELECT string_agg(relation::text || ' ' || role::text, ',') FROM mrfdp.learning_grants WHERE relation = 'samples'::regclass),
	'samples analyst', 'README: learning_grants');
-- README: the analyst
SET ROLE analyst;
SELECT throws_ok('SELECT count(*) FROM samples', '42501', NULL, 'the analyst has no SELECT on samples');
SELECT lives_ok($$SELECT mrf_learn_ising_from('samples', 'row', rho => 0.1, variables => 64)$$, 'README: a first release');
SELECT lives_ok($$SELECT mrf_learn_ising_from('samples', 'row', rho => 0.1, variables => 64)$$, 'README: a second release');
SELECT lives_ok($$SELECT * FROM mrfdp.remaining('samples')$$, 'README: remaining()');
SELECT lives_ok($$SELECT * FROM mrfdp.remaining('samples', delta => 1e-7)$$, 'README: remaining() at a delta');
SELECT lives_ok($$SELECT * FROM mrfdp.budget_status$$, 'README: budget_status');
SELECT lives_ok($$SELECT * FROM mrfdp.releases$$, 'README: releases');
-- "room for ten releases of rho = 0.1": eight more fit, the eleventh does not
DO $$
BEGIN
	FOR n IN 3..11 LOOP
		INSERT INTO results
		SELECT n, r.state, r.msg
		FROM pg_temp.readme_try($q$SELECT mrf_learn_ising_from('samples', 'row', rho => 0.1, variables => 64)$q$) r;
	END LOOP;
END $$;
RESET ROLE;
SELECT is((SELECT count(*) FROM results WHERE n <= 10 AND state = '00000'), 8::bigint,
          'the third to tenth releases fit the budget');
SELECT is((SELECT state || ': ' || msg FROM results WHERE n = 11),
          '42501: privacy budget of relation public.samples cannot cover this release',
          'the eleventh does not');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'samples'::regclass), 10::bigint,
          'ten releases were charged');
-- README: exactly rho_from is admitted and spends what is left
SET ROLE analyst;
SELECT ok((SELECT rho_from > 0 AND rho_from < 0.1 FROM mrfdp.remaining('samples')), 'what is left is less than rho = 0.1');
SELECT lives_ok($$SELECT mrf_learn_ising_from('samples', 'row', rho => (SELECT rho_from FROM mrfdp.remaining('samples')),
                            variables => 64)$$, 'README: a release of exactly rho_from');
SELECT is((SELECT rho_from FROM mrfdp.remaining('samples')), 0::float8, 'nothing is left');
RESET ROLE;

DROP TABLE samples;
SELECT * FROM finish();
