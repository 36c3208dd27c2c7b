-- server: session_preload
-- Equal bins whose edges round together: min, max and width far from 0
-- (1e16, width 1; timestamps after 2285 by the microsecond) give edges lo +
-- i w that are equal as double precision numbers.  That is a fact of the
-- options alone, refused (22023) before the charge and before any row is
-- read, never found after the charge in the model's check (22P02, the
-- budget spent for nothing).  Not in a transaction; cleans up at the end.
SELECT plan(5);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_br_analyst') THEN
		CREATE ROLE mrfdp_br_analyst;
	END IF;
END $$;
SET client_min_messages = warning;
DROP TABLE IF EXISTS br_prot CASCADE;
CREATE TABLE br_prot (v numeric, ts timestamp, member boolean);
INSERT INTO br_prot SELECT 1e16 + g % 50, timestamp '2300-01-01' + g * interval '1 microsecond', g % 3 = 0
FROM generate_series(1, 2000) g;
GRANT USAGE ON SCHEMA public TO mrfdp_br_analyst;
SELECT mrfdp.protect('br_prot', epsilon => 100, delta => 1e-6);
SELECT mrfdp.grant_learning('br_prot', 'mrfdp_br_analyst');
SELECT pg_stat_force_next_flush();
SELECT seq_tup_read AS br_read0 FROM pg_stat_user_tables WHERE relid = 'br_prot'::regclass \gset

SET ROLE mrfdp_br_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('br_prot', NULL, rho => 0.5,
					 bins => '{"v": {"min": 1e16, "max": 1.00000000000001e16, "width": 1}, "ts": ["2300-01-01"]}')$$,
				 '22023', 'invalid value for option "bins"', 'number edges that round together are refused from the options');
SELECT throws_ok($$SELECT mrf_learn_mst_from('br_prot', NULL, rho => 0.5,
					 bins => '{"v": [1e16], "ts": {"min": "2300-01-01", "max": "2300-01-01 00:00:00.0001", "width": "1 microsecond"}}')$$,
				 '22023', 'invalid value for option "bins"', 'timestamp edges that round together are refused from the options');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'br_prot'::regclass), 0::bigint,
		  'the refusals charged nothing');
SELECT is((SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = 'br_prot'::regclass), :br_read0::bigint,
		  'and read no row');
SET ROLE mrfdp_br_analyst;
SELECT ok(mrf_learn_mst_from('br_prot', NULL, rho => 0.5,
							 bins => '{"v": {"min": 1e16, "max": 1.0000000000001e16, "width": 16}, "ts": ["2300-01-01"]}') IS NOT NULL,
		  'edges that stay apart are learned');
RESET ROLE;

DROP TABLE br_prot CASCADE;
SELECT * FROM finish();
