-- server: shared_preload
-- mrf_progress() is a side channel of the data (how fast solvers converge):
-- a role sees only the learners of roles whose privileges it has (as
-- pg_stat_activity shows queries), unless it has pg_read_all_stats; and the
-- stable mode of structure learning shows only whole blocks.
-- Not in a transaction: the other session must see the committed roles.
SELECT plan(9);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_prog_a') THEN
		CREATE ROLE mrfdp_prog_a;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_prog_b') THEN
		CREATE ROLE mrfdp_prog_b;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_prog_stats') THEN
		CREATE ROLE mrfdp_prog_stats IN ROLE pg_read_all_stats;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_prog_member') THEN
		CREATE ROLE mrfdp_prog_member IN ROLE mrfdp_prog_a;
	END IF;
END $$;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TEMP TABLE start_time AS SELECT pg_postmaster_start_time() AS t;

-- Another session learns as mrfdp_prog_a.
SELECT dblink_connect('bg', format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()));
SELECT dblink_exec('bg', 'SET ROLE mrfdp_prog_a');
SELECT dblink_send_query('bg', $q$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 100000)) IS NULL
	FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0, g % 7 = 0] x FROM generate_series(1, 200000) g) q$q$);
DO $$
BEGIN
	FOR i IN 1 .. 600 LOOP
		EXIT WHEN EXISTS (SELECT 1 FROM mrf_progress() WHERE done > 0);
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_ising'), 1::bigint,
          'a superuser sees the learner of another role');
SET ROLE mrfdp_prog_b;
SELECT is((SELECT count(*) FROM mrf_progress()), 0::bigint,
          'a role without the learner''s privileges does not see it');
SET ROLE mrfdp_prog_a;
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_ising'), 1::bigint,
          'the learner''s own role sees it');
SET ROLE mrfdp_prog_member;
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_ising'), 1::bigint,
          'a member of the learner''s role sees it');
SET ROLE mrfdp_prog_stats;
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_ising'), 1::bigint,
          'a member of pg_read_all_stats sees it');
RESET ROLE;
SELECT dblink_cancel_query('bg');
SELECT dblink_disconnect('bg');

-- The stable mode reports whole blocks only: total is the block count.
CREATE TABLE prog_rows AS
SELECT ARRAY(SELECT random() < 0.5 FROM generate_series(1, 60 + g * 0) i) x FROM generate_series(1, 200000) g;
CREATE TEMP TABLE samples (done bigint, total bigint);
SELECT dblink_connect('bg', format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()));
SELECT dblink_send_query('bg', $q$SELECT mrf_learn_structure_agg(x, mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 20)) IS NULL
	FROM prog_rows$q$);
DO $$
BEGIN
	FOR i IN 1 .. 1200 LOOP
		INSERT INTO samples SELECT done, total FROM mrf_progress() WHERE learner = 'mrf_learn_structure';
		EXIT WHEN dblink_is_busy('bg') = 0;
		PERFORM pg_sleep(0.02);
	END LOOP;
END $$;
SELECT ok((SELECT count(*) FROM samples WHERE done > 0) > 0,
          'the stable-mode learner was watched while it ran');
SELECT is((SELECT array_agg(DISTINCT total) FROM samples WHERE total > 0), ARRAY[20]::bigint[],
          'its progress counts blocks: the total is the block count');
SELECT ok((SELECT bool_and(done BETWEEN 0 AND 20) FROM samples),
          'and done is a number of finished blocks');
SELECT dblink_disconnect('bg');
DROP TABLE prog_rows;
SELECT is((SELECT t FROM start_time), pg_postmaster_start_time(), 'the server did not restart');
SELECT * FROM finish();
