-- server: session_preload
-- The internal options key coordinator_model_cells (the Citus coordinator's
-- default model cap, merged into the options it ships to the workers) can
-- be written by hand only in a raw options document, so only on the
-- aggregates, which read rows the caller may SELECT and charge no ledger:
-- the protected path takes named arguments alone and has no such argument,
-- so an analyst without SELECT cannot reach it (no charge then refusal
-- through it).  On the aggregates it is checked as a cap: below the
-- one-way marginals refused before the learner reads a row; above this
-- node's quarter of mrfdp.max_learner_memory, the model's planned memory
-- is still held to mrfdp.max_learner_memory; within both, the release's
-- model stays within it (docs/citus.md).
SELECT plan(7);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS aim_keys CASCADE;
SET mrfdp.test_seed = 31;
-- 4 columns of 3 values, each mostly a copy of the previous one
CREATE TABLE aim_keys AS
SELECT a, (a + (g % 5 = 0)::int) % 3 AS b, (a + (g % 7 = 0)::int) % 3 AS c, (a + (g % 4 = 0)::int) % 3 AS d
FROM (SELECT g, (g * 7919 / 13) % 3 AS a FROM generate_series(1, 2000) g) s;
ALTER TABLE aim_keys ADD CHECK (a BETWEEN 0 AND 2), ADD CHECK (b BETWEEN 0 AND 2),
	ADD CHECK (c BETWEEN 0 AND 2), ADD CHECK (d BETWEEN 0 AND 2);
SELECT pg_temp.protect_for_analyst('aim_keys', epsilon => 100, delta => 1e-6, rho_cap => 50);

-- 1. the protected path has no way to pass it
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_keys', NULL, rho => 1, coordinator_model_cells => 1)$$,
				 '42883', NULL, 'mrf_learn_aim_from takes no coordinator_model_cells');
RESET ROLE;
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'aim_keys'::regclass), 0::numeric,
		  'nothing charged');

-- 2. on the aggregate, a cap below the one-ways' 12 cells is refused
SELECT throws_ok($$SELECT mrf_learn_aim_agg(r, '{"rho": 1, "coordinator_model_cells": 11}') FROM aim_keys r$$,
				 '54000', NULL, 'a cap below the one-ways is refused');

-- 3. above this node's quarter (4 MB: 6,553 cells), the memory limit still holds
SET mrfdp.max_learner_memory = 4096;
SELECT throws_ok($$SELECT mrf_learn_aim_agg(r, '{"rho": 1, "coordinator_model_cells": 65536}') FROM aim_keys r$$,
				 '54000', NULL, 'a cap whose model would pass mrfdp.max_learner_memory is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(r, '{"rho": 1, "max_model_cells": 65536}') FROM aim_keys r$$,
				 '54000', NULL, 'as max_model_cells above the quarter is');
RESET mrfdp.max_learner_memory;

-- 4. within both, the release keeps its model within the cap
CREATE TEMP TABLE capped AS
SELECT mrf_info(mrf_learn_aim_agg(r, '{"rho": 5, "coordinator_model_cells": 21}')) AS info FROM aim_keys r;
SELECT ok((SELECT info IS NOT NULL FROM capped), 'a cap of 21 cells releases');
SELECT ok((SELECT (info ->> 'junction_tree_cells')::int <= 21 FROM capped),
		  'its junction tree within the 21 cells');

SELECT * FROM finish();
