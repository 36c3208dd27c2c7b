-- The protected path's NOTICE about substituted rows: raised after the
-- charge when the noisy count of rows it could not read clearly exceeds 1%
-- of n, and not for a clean table.  A test seed makes the counts repeatable.
CREATE ROLE mrfdp_pn_analyst;
CREATE TABLE pn_dirty (x boolean[]);
INSERT INTO pn_dirty SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] FROM generate_series(1, 900) g;
INSERT INTO pn_dirty SELECT NULL FROM generate_series(1, 50) g;
INSERT INTO pn_dirty SELECT ARRAY[true, false] FROM generate_series(1, 50) g;
CREATE TABLE pn_rows (id text, a boolean, b boolean);
INSERT INTO pn_rows SELECT 'p' || g, g % 2 = 0, CASE WHEN g % 10 <> 0 THEN g % 3 = 0 END FROM generate_series(1, 1000) g;
CREATE TABLE pn_clean (x boolean[]);
INSERT INTO pn_clean SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] FROM generate_series(1, 1000) g;
-- protect()'s own NOTICEs are tested in protect_budget
SET client_min_messages = warning;
SELECT relation FROM mrfdp.protect('pn_dirty', epsilon => 1e6, delta => 1e-6);
SELECT relation FROM mrfdp.protect('pn_clean', epsilon => 1e6, delta => 1e-6);
SELECT relation FROM mrfdp.protect('pn_rows', epsilon => 1e6, delta => 1e-6);
RESET client_min_messages;
SELECT mrfdp.grant_learning('pn_dirty', 'mrfdp_pn_analyst');
SELECT mrfdp.grant_learning('pn_clean', 'mrfdp_pn_analyst');
SELECT mrfdp.grant_learning('pn_rows', 'mrfdp_pn_analyst');
SET mrfdp.test_seed = 5;
SET ROLE mrfdp_pn_analyst;
-- 10% of the rows are NULL or of the wrong width
SELECT (mrf_learn_ising_from('pn_dirty', 'x', rho => 1, variables => 3)::jsonb)->'meta'->'substituted_rows' AS substituted;
-- a clean table: no NOTICE
SELECT (mrf_learn_ising_from('pn_clean', 'x', rho => 1, variables => 3)::jsonb)->'meta'->'substituted_rows' AS substituted;
-- variables => 64 on 3-variable rows: every row is substituted
SELECT (mrf_learn_ising_from('pn_clean', 'x', rho => 1, variables => 64)::jsonb)->'meta'->'substituted_rows'->'noisy_count' AS substituted;
-- rows of columns (option columns): 10% NULLs; the hint speaks of nulls =>, not variables =>
SELECT (mrf_learn_ising_from('pn_rows', NULL, rho => 1, columns => ARRAY['a', 'b'])::jsonb)->'meta'->'substituted_rows'->'noisy_count' AS substituted;
RESET ROLE;
RESET mrfdp.test_seed;
DROP TABLE pn_dirty, pn_clean, pn_rows;
DROP ROLE mrfdp_pn_analyst;
