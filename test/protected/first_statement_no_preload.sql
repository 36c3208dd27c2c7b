-- server: no_preload
-- Without the preload, the protected path needs no tracking: it charges the
-- relation it reads itself, by name, so even the call that loads mrfdp is
-- released and charged.
SELECT plan(3);
CREATE EXTENSION IF NOT EXISTS dblink;
\ir ../lib/protected.psql
SELECT dblink_exec(format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
                          current_setting('port'), current_database()),
                   $s$DROP TABLE IF EXISTS np_from;
                     CREATE TABLE np_from AS SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS "row" FROM generate_series(1, 200) g;
                     GRANT USAGE ON SCHEMA public TO mrfdp_tap_analyst;
                     DO $x$ BEGIN PERFORM mrfdp.protect('np_from', epsilon => 1000, delta => 1e-6);
                                  PERFORM mrfdp.grant_learning('np_from', 'mrfdp_tap_analyst'); END $x$$s$);
SELECT is((SELECT count(*) FROM pg_settings WHERE name LIKE 'mrfdp.%'), 0::bigint,
          'mrfdp is not loaded yet in this session');
SET ROLE mrfdp_tap_analyst;
SELECT ok((SELECT mrf_learn_ising_from('np_from', 'row', rho => 0.125, variables => 2) IS NOT NULL),
          'the first call, which loads mrfdp, releases through the protected path');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'np_from'::regclass), 1::bigint,
          'and is charged');
SELECT * FROM finish();
DROP TABLE np_from;
