-- server: session_preload
-- A budget is parked for a Citus conversion only when the DROP names its
-- relation.  A schema's owner who drops another owner's protected table by
-- DROP SCHEMA ... CASCADE, recreates the schema and renames a table of its
-- own to that name in the same transaction must not take the victim's
-- budget, learning grants and ledger rows (it would see the victim's
-- release history, and the victim's analysts would hold a grant on the
-- dropper's table).  The conversion's own shape (the owner drops the table
-- by name, another takes its name) still carries them, also under the
-- caller's SET CONSTRAINTS ALL IMMEDIATE (which fired the deferred trigger
-- that forgets parked rows at commit right after the drop).
-- Not in a transaction: charges are committed by a worker; cleaned up at the end.
SELECT plan(11);

DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['mrfdp_pc_owner', 'mrfdp_pc_dropper', 'mrfdp_pc_analyst']
	LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I', r);
		END IF;
	END LOOP;
END $$;
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS pc_evil, pc_own CASCADE;
SELECT current_database() AS pc_db \gset
GRANT CREATE ON DATABASE :"pc_db" TO mrfdp_pc_dropper;
CREATE SCHEMA pc_evil AUTHORIZATION mrfdp_pc_dropper;
GRANT USAGE, CREATE ON SCHEMA pc_evil TO mrfdp_pc_owner;
GRANT USAGE ON SCHEMA pc_evil TO mrfdp_pc_analyst;
CREATE SCHEMA pc_own AUTHORIZATION mrfdp_pc_owner;
GRANT USAGE ON SCHEMA pc_own TO mrfdp_pc_analyst;

SET ROLE mrfdp_pc_owner;
CREATE TABLE pc_evil.victim (a boolean, b boolean, c boolean);
INSERT INTO pc_evil.victim SELECT g % 2 = 0, g % 3 = 0, g % 5 = 0 FROM generate_series(1, 500) g;
SELECT mrfdp.protect('pc_evil.victim', epsilon => 10, delta => 1e-6);
SELECT mrfdp.grant_learning('pc_evil.victim', 'mrfdp_pc_analyst');
RESET ROLE;
SET ROLE mrfdp_pc_analyst;
SELECT ok(mrf_learn_ising_from('pc_evil.victim', NULL, rho => 0.125) IS NOT NULL, 'the analyst learns from the victim table');
RESET ROLE;

-- the schema's owner drops the victim by cascade and puts a table of its own in its place
SET ROLE mrfdp_pc_dropper;
DO $$
BEGIN
	DROP SCHEMA pc_evil CASCADE;
	CREATE SCHEMA pc_evil;
	CREATE TABLE pc_evil.mine (a boolean, b boolean, c boolean);
	ALTER TABLE pc_evil.mine RENAME TO victim;
END $$;
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE relation_name = 'pc_evil.victim'), 0::bigint,
		  'the dropper sees none of the victim''s ledger rows');
SELECT is((SELECT count(*) FROM mrfdp.budget_status WHERE relation = 'pc_evil.victim'::regclass), 0::bigint,
		  'and its table has no budget');
RESET ROLE;
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid = 'pc_evil.victim'::regclass::oid), 0::bigint,
		  'a table renamed onto a name freed by a cascade takes no budget');
SELECT is((SELECT count(*) FROM mrfdp.grants WHERE relation::oid = 'pc_evil.victim'::regclass::oid), 0::bigint,
		  'nor the victim''s grants');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation::oid = 'pc_evil.victim'::regclass::oid), 0::bigint,
		  'nor its ledger rows');
SET ROLE mrfdp_pc_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('pc_evil.victim', NULL, rho => 0.125)$$, '42501', NULL,
				 'the victim''s analyst may not learn from the dropper''s table');
RESET ROLE;

-- a conversion's shape, by the owner: DROP TABLE by name, then a rename onto it
SET ROLE mrfdp_pc_owner;
CREATE TABLE pc_own.t (a boolean, b boolean, c boolean);
INSERT INTO pc_own.t SELECT g % 2 = 0, g % 3 = 0, g % 5 = 0 FROM generate_series(1, 500) g;
CREATE TABLE pc_own.t_new AS SELECT * FROM pc_own.t;
SELECT mrfdp.protect('pc_own.t', epsilon => 10, delta => 1e-6);
SELECT mrfdp.grant_learning('pc_own.t', 'mrfdp_pc_analyst');
RESET ROLE;
SET ROLE mrfdp_pc_analyst;
SELECT mrf_learn_ising_from('pc_own.t', NULL, rho => 0.125) IS NOT NULL AS learned \gset
RESET ROLE;
SET ROLE mrfdp_pc_owner;
DO $$
BEGIN
	DROP TABLE pc_own.t;
	ALTER TABLE pc_own.t_new RENAME TO t;
END $$;
RESET ROLE;
SELECT is((SELECT format('%s %s', trim_scale(spent_zcdp_rho), releases) FROM mrfdp.budget
		   WHERE relation::oid = 'pc_own.t'::regclass::oid), '0.1259765625 1',
		  'a table dropped by name still passes its budget and spending to the table renamed onto it');
SELECT is((SELECT count(*) FROM mrfdp.grants WHERE relation::oid = 'pc_own.t'::regclass::oid), 1::bigint,
		  'and its grant');

-- the caller's SET CONSTRAINTS ALL IMMEDIATE does not forget the parked budget before the rename
SET ROLE mrfdp_pc_owner;
CREATE TABLE pc_own.t_new2 AS SELECT * FROM pc_own.t;
DO $$
BEGIN
	SET CONSTRAINTS ALL IMMEDIATE;
	DROP TABLE pc_own.t;
	ALTER TABLE pc_own.t_new2 RENAME TO t;
END $$;
RESET ROLE;
SELECT is((SELECT format('%s %s', trim_scale(spent_zcdp_rho), releases) FROM mrfdp.budget
		   WHERE relation::oid = 'pc_own.t'::regclass::oid), '0.1259765625 1',
		  'SET CONSTRAINTS ALL IMMEDIATE does not lose the budget of a table dropped and replaced');
SELECT is((SELECT count(*) FROM mrfdp.parked), 0::bigint, 'and nothing stays parked after the transaction');

SELECT * FROM finish();
DROP SCHEMA pc_evil, pc_own CASCADE;
REVOKE CREATE ON DATABASE :"pc_db" FROM mrfdp_pc_dropper;
