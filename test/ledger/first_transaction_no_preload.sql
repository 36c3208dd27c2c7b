-- server: no_preload
-- Without the preload: a transaction that read a protected relation before
-- mrfdp was loaded may release nothing, not even from another relation,
-- since the ledger could not know what it had read.
SELECT plan(4);
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_exec(format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
                          current_setting('port'), current_database()),
                   $s$DROP TABLE IF EXISTS np_secret, np_open;
                     CREATE TABLE np_secret AS SELECT g AS id FROM generate_series(1, 10) g;
                     CREATE TABLE np_open AS SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS "row" FROM generate_series(1, 200) g;
                     DO $x$ BEGIN PERFORM mrfdp.protect('np_secret', epsilon => 1000, delta => 1e-6); END $x$$s$);
BEGIN;
SELECT is((SELECT count(*) FROM pg_settings WHERE name LIKE 'mrfdp.%'), 0::bigint,
          'mrfdp is not loaded yet in this session');
CREATE TEMP TABLE secret_read AS SELECT count(*) AS n FROM np_secret;	-- read before mrfdp is loaded
SELECT throws_ok($$SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.125)) FROM np_open$$, '55000', NULL,
                 'a later release in the same transaction is refused');
COMMIT;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'np_secret'::regclass), 0::bigint,
          'the protected relation was not charged, and nothing was released');
SELECT ok((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.125)) IS NOT NULL FROM np_open),
          'a new transaction releases');
SELECT * FROM finish();
DROP TABLE np_secret, np_open;
