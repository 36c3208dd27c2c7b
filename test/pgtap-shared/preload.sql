-- With mrfdp in shared_preload_libraries, OpenBLAS is loaded into the
-- postmaster; it must not have started threads there (a forked backend
-- would inherit a pool without its threads), and backends must still learn
-- with several BLAS threads.
BEGIN;
SELECT plan(3);
SELECT is(current_setting('shared_preload_libraries'), 'mrfdp', 'the cluster preloads mrfdp into the postmaster');
SELECT is((SELECT substring(pg_read_file('/proc/' || split_part(pg_read_file('postmaster.pid'), E'\n', 1) || '/status')
                             FROM 'Threads:\s+(\d+)')),
          '1', 'the postmaster has a single thread');
SET LOCAL mrfdp.blas_threads = 2;
SELECT is((SELECT (mrf_info(mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 50)))->>'rows')::int
           FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] x FROM generate_series(1, 50000) g) q),
          50000, 'a backend learns with two BLAS threads');
SELECT * FROM finish();
ROLLBACK;
