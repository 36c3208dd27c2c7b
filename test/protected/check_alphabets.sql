-- server: session_preload
-- Alphabets read from CHECK constraints on the protected path: a value the
-- constraints list twice (IN (1, 1, 2); 'x' and 'x  ' of a character
-- column; a domain's list met with a column bound) is one value with one
-- code, as option domains requires of a declared list, never a second
-- code no row can have.  Not in a transaction; cleans up at the end.
SELECT plan(4);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_ca_analyst') THEN
		CREATE ROLE mrfdp_ca_analyst;
	END IF;
END $$;
SET client_min_messages = warning;
DROP TABLE IF EXISTS ca_prot CASCADE;
DROP DOMAIN IF EXISTS ca_dom CASCADE;
CREATE DOMAIN ca_dom AS int CHECK (VALUE IN (1, 2, 3, 3, 2));
CREATE TABLE ca_prot (a int CHECK (a IN (1, 1, 2)), b char(3) CHECK (b IN ('x', 'x  ', 'y')),
					  d ca_dom CHECK (d >= 2));
INSERT INTO ca_prot SELECT 1 + g % 2, CASE WHEN g % 3 = 0 THEN 'y' ELSE 'x' END, 2 + g % 2
FROM generate_series(1, 1000) g;
GRANT USAGE ON SCHEMA public TO mrfdp_ca_analyst;
SELECT mrfdp.protect('ca_prot', epsilon => 100, delta => 1e-6);
SELECT mrfdp.grant_learning('ca_prot', 'mrfdp_ca_analyst');

SET ROLE mrfdp_ca_analyst;
CREATE TEMP TABLE ca_model AS SELECT mrf_learn_mst_from('ca_prot', NULL, rho => 1) AS m;
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM ca_model)) WHERE name = 'a'), ARRAY['1', '2'],
		  'IN (1, 1, 2) gives two values');
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM ca_model)) WHERE name = 'b'), ARRAY['x', 'y'],
		  'a character column''s ''x'' and ''x  '' are one value');
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM ca_model)) WHERE name = 'd'), ARRAY['2', '3'],
		  'a domain''s list met with the column''s bound, each value once');
SELECT is((SELECT m::jsonb->>'k' FROM ca_model), '2',
		  'the model has one code per value (k = 2, not 4)');
RESET ROLE;

DROP TABLE ca_prot CASCADE;
DROP DOMAIN ca_dom CASCADE;
SELECT * FROM finish();
