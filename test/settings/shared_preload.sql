-- server: shared_preload
-- With mrfdp in shared_preload_libraries, OpenBLAS is loaded into the
-- postmaster; it must not have started threads there (a forked backend
-- would inherit a pool without its threads), and backends must still learn
-- with several BLAS threads.
BEGIN;
SELECT plan(5);
SELECT is(current_setting('shared_preload_libraries'), 'mrfdp', 'the cluster preloads mrfdp into the postmaster');
SELECT is((SELECT substring(pg_read_file('/proc/' || split_part(pg_read_file('postmaster.pid'), E'\n', 1) || '/status')
                             FROM 'Threads:\s+(\d+)')),
          '1', 'the postmaster has a single thread');
SET LOCAL mrfdp.learner_threads = 2;
SELECT is((SELECT (mrf_info(mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 50)))->>'rows')::int
           FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] x FROM generate_series(1, 50000) g) q),
          50000, 'a backend learns with two BLAS threads');

-- mrf_progress() shows another session's running learner.
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('bg', format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()));
SELECT dblink_send_query('bg', $q$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 100000)) IS NULL
	FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0, g % 7 = 0] x FROM generate_series(1, 200000) g) q$q$);
SELECT pg_sleep(2);
SELECT is((SELECT count(*) FROM mrf_progress() WHERE learner = 'mrf_learn_ising' AND done > 0 AND done < total),
          1::bigint, 'mrf_progress shows the other session''s learner part way through');
SELECT dblink_cancel_query('bg');
SELECT dblink_disconnect('bg');
SELECT pg_sleep(0.5);
SELECT is((SELECT count(*) FROM mrf_progress()), 0::bigint, 'a cancelled learner leaves mrf_progress');
SELECT * FROM finish();
ROLLBACK;
