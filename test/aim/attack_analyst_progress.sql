-- server: shared_preload
-- AIM on the protected path watched through mrf_progress() (the analyst's
-- attacks, test/aim/attack_analyst.sql, with progress in shared memory):
-- the run is the analyst's, although its read ran with the relation
-- owner's rights, so the relation's owner (not a superuser) and another
-- role see nothing of it, the analyst sees it under mrf_learn_aim, and a
-- cancel while it learns frees the slot and stays charged.
-- Not in a transaction: the other session must see the committed roles
-- and tables, and charges are committed by a background worker.
SELECT plan(9);

\ir ../lib/protected.psql
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_atk_owner') THEN
		CREATE ROLE mrfdp_atk_owner;
	END IF;
END $$;
CREATE EXTENSION IF NOT EXISTS dblink;
SET client_min_messages = warning;
DROP TABLE IF EXISTS atk_prog CASCADE;
-- 96 columns of 4 values (test/aim/cancel.sql's rows): AIM runs for many seconds
CREATE TABLE atk_prog AS
SELECT i AS g, array_agg(CASE WHEN j = 1 OR random() < 0.3 THEN floor(random() * 4)::int
							  ELSE (i * 7 + j / 2) % 4 END ORDER BY j) AS x
FROM generate_series(1, 3000) i, generate_series(1, 96) j GROUP BY i;
ALTER TABLE atk_prog OWNER TO mrfdp_atk_owner;
SELECT pg_temp.protect_for_analyst('atk_prog', epsilon => 100, delta => 1e-6);
RESET client_min_messages;

-- the analyst learns in another session
SELECT dblink_connect('bg', format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()));
SELECT dblink_exec('bg', 'SET ROLE mrfdp_tap_analyst');
SELECT dblink_exec('bg', $$SET statement_timeout = '60s'$$);
SELECT dblink_send_query('bg', $q$SELECT mrf_learn_aim_from('atk_prog', 'x', rho => 1, k => 4, variables => 96) IS NULL$q$);
DO $$
BEGIN
	FOR i IN 1 .. 600 LOOP
		EXIT WHEN EXISTS (SELECT 1 FROM mrf_progress() WHERE learner = 'mrf_learn_aim' AND done > 0);
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_aim' AND done > 0), 1::bigint,
		  'a superuser sees the analyst''s AIM run');
SET ROLE mrfdp_atk_owner;
SELECT is((SELECT count(*) FROM mrf_progress()), 0::bigint,
		  'the relation''s owner does not, though the read ran with its rights');
SET ROLE mrfdp_tap_outsider;
SELECT is((SELECT count(*) FROM mrf_progress()), 0::bigint, 'nor does another role');
SET ROLE mrfdp_tap_analyst;
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_aim'), 1::bigint,
		  'the analyst sees its own run, under the learner''s name');
SELECT ok((SELECT done <= total FROM mrf_progress() WHERE learner = 'mrf_learn_aim'),
		  'in units of work done of a total');
RESET ROLE;

-- a cancel while it learns: the run ends, its slot is freed, the charge stays
SELECT is(dblink_cancel_query('bg'), 'OK', 'the analyst''s call is cancelled while AIM learns');
DO $$
BEGIN
	FOR i IN 1 .. 200 LOOP
		EXIT WHEN dblink_is_busy('bg') = 0;
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
-- dblink reports the cancel as a NOTICE; the count of results is the test
SET client_min_messages = warning;
SELECT is((SELECT count(*) FROM dblink_get_result('bg', false) AS r(x boolean)), 0::bigint,
		  'and releases nothing');
RESET client_min_messages;
SELECT is((SELECT count(*) FROM mrf_progress()), 0::bigint, 'its progress slot is free');
SELECT ok((SELECT rho = 1.0078125 AND rows_read = 3000 AND role = 'mrfdp_tap_analyst'::regrole
		   FROM mrfdp.ledger WHERE relation = 'atk_prog'::regclass),
		  'it was charged (the charge precedes the read), its count settled');
SELECT dblink_disconnect('bg');

DROP TABLE atk_prog;
SELECT * FROM finish();
