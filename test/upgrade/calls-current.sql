-- Calls the functions added since 0.1.0 (those of 0.1.0 are called by
-- calls-0.1.0.sql), after ALTER EXTENSION mrfdp UPDATE in
-- test/upgrade/update_keeps_data.sh, which checks that every function of
-- the current version is called by one of the two files.  A new function
-- gets a call here, on the data of setup.sql.
\set ON_ERROR_STOP 1

SELECT mrf_citus_group_key(41) = 41 AS citus_group_key_is_the_identity;
SELECT count(*) = 2 AS variables_of_a_hand_built_model
FROM mrf_variables(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[]));
SELECT name, (SELECT count(*) FROM mrf_variables(m)) AS variables FROM up_stored ORDER BY name;
SELECT value = '1'::jsonb AS lambda_default_is_listed
FROM mrf_option_defaults() WHERE option = 'lambda' AND learner IS NULL;
