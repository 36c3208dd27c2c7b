-- server: session_preload
-- A _from call inside a parallel operation (a wrapper declared PARALLEL
-- SAFE, run by a parallel worker, or by the leader while a Gather runs)
-- cannot read as the owner: PostgreSQL forbids changing settings there.
-- It is refused before the charge (before: charged, then "could not be
-- read as its owner", every time).
-- Not wrapped in a transaction: charges are committed by a background worker.
SELECT plan(3);
DROP TABLE IF EXISTS pc_rows CASCADE;
CREATE TABLE pc_rows AS SELECT g % 2 = 0 AS a, g % 3 = 0 AS b, g % 5 = 0 AS c FROM generate_series(1, 300) g;
SELECT mrfdp.protect('pc_rows', epsilon => 10, delta => 1e-6);
SELECT mrfdp.grant_learning('pc_rows', current_user::regrole);
CREATE FUNCTION pg_temp.pc_wrapped() RETURNS text LANGUAGE sql PARALLEL SAFE
	AS $$SELECT mrf_info(mrf_learn_mst_from('pc_rows', NULL, rho => 0.01))::text$$;
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SELECT throws_ok('SELECT pg_temp.pc_wrapped()', '0A000', NULL,
	'a _from call during a parallel operation is refused');
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pc_rows'::regclass), 0::bigint,
	'and charged nothing');
SELECT ok(pg_temp.pc_wrapped() IS NOT NULL, 'the same call outside a parallel operation learns');
SELECT * FROM finish();
DROP TABLE pc_rows;
