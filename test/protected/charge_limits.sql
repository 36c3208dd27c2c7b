-- server: session_preload
-- A budget near the largest double: the protected path charges the
-- learner's B plus B/128 for the count of substituted rows, which for rho
-- or epsilon near 1.8e308 is past the largest double.  That is a fact of
-- the options: refused as an option (22023) before the charge and before
-- any row is read, never an internal error (XX000 "invalid charge").
-- Not in a transaction; cleans up at the end.
SELECT plan(4);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cl_analyst') THEN
		CREATE ROLE mrfdp_cl_analyst;
	END IF;
END $$;
SET client_min_messages = warning;
DROP TABLE IF EXISTS cl_prot CASCADE;
CREATE TABLE cl_prot (a boolean, b boolean, c boolean);
INSERT INTO cl_prot SELECT g % 2 = 0, g % 3 = 0, g % 5 = 0 FROM generate_series(1, 500) g;
GRANT USAGE ON SCHEMA public TO mrfdp_cl_analyst;
SELECT mrfdp.protect('cl_prot', epsilon => 1.7e308, delta => 1e-6);
SELECT mrfdp.grant_learning('cl_prot', 'mrfdp_cl_analyst');
SELECT pg_stat_force_next_flush();
SELECT seq_tup_read AS cl_read0 FROM pg_stat_user_tables WHERE relid = 'cl_prot'::regclass \gset

SET ROLE mrfdp_cl_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('cl_prot', NULL, rho => 1.79e308)$$,
				 '22023', 'invalid value for option "rho"', 'a rho whose charge overflows is refused as an option');
SELECT throws_ok($$SELECT mrf_learn_cliques_from('cl_prot', NULL, epsilon => 1.79e308, cliques => '[[1, 2]]')$$,
				 '22023', 'invalid value for option "epsilon"', 'an epsilon whose charge overflows too');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cl_prot'::regclass), 0::bigint,
		  'nothing was charged');
SELECT is((SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = 'cl_prot'::regclass), :cl_read0::bigint,
		  'nor read');

DROP TABLE cl_prot CASCADE;
SELECT * FROM finish();
