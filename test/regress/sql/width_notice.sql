-- The NOTICE of issue 10 item 3: sent, after the charge, when the released
-- estimate's width reaches 90% of lambda, with a hint to raise lambda; no
-- NOTICE when lambda is generous.  A test seed makes the releases repeatable.
LOAD 'mrfdp';  -- the named forms and the ledger need the library loaded first (no preload needed)
SET mrfdp.test_seed = 12;
CREATE TEMP TABLE wn_rows AS
SELECT ARRAY[a, a, b, -b] AS x
FROM (SELECT CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END a, CASE WHEN (g / 2) % 2 = 0 THEN 1 ELSE -1 END b
      FROM generate_series(1, 4000) g) q;
-- identical variables (an unbounded coupling), lambda 0.5: at the bound
SELECT ((mrf_learn_ising(x, rho => 1, lambda => 0.5, symmetrize => false))::jsonb #>> '{meta,width_at_bound}') AS at_bound FROM wn_rows;
-- the same through the aggregate
SELECT ((mrf_learn_ising_agg(x, mrf_options(rho => 1, lambda => 0.5, symmetrize => false)))::jsonb #>> '{meta,width_at_bound}') AS at_bound FROM wn_rows;
-- independent variables, lambda 4: no NOTICE
SELECT ((mrf_learn_ising(ARRAY[(g % 2) * 2 - 1, ((g / 2) % 2) * 2 - 1, ((g / 4) % 2) * 2 - 1], rho => 1, lambda => 4))::jsonb #>> '{meta,width_at_bound}') AS at_bound
FROM generate_series(1, 4000) g;
-- the protected path: the NOTICE comes after its charge too
CREATE ROLE mrfdp_wn_analyst;
CREATE TABLE wn_table (x int[]);
INSERT INTO wn_table SELECT x FROM wn_rows;
-- protect()'s own NOTICEs are tested in protect_budget
SET client_min_messages = warning;
SELECT relation FROM mrfdp.protect('wn_table', epsilon => 1e6, delta => 1e-6);
RESET client_min_messages;
SELECT mrfdp.grant_learning('wn_table', 'mrfdp_wn_analyst');
SET ROLE mrfdp_wn_analyst;
SELECT ((mrf_learn_ising_from('wn_table', 'x', rho => 1, lambda => 0.5, symmetrize => false, variables => 4))::jsonb #>> '{meta,width_at_bound}') AS at_bound;
RESET ROLE;
DROP TABLE wn_table;
DROP ROLE mrfdp_wn_analyst;
RESET mrfdp.test_seed;
