-- server: session_preload
-- The ledger's catalog under routine administration, second round (issue 9,
-- finding 8 reviewed): a learning grant keeps its role from being dropped,
-- and DROP OWNED voids it, so no grant row outlives its role under an OID
-- another role may get; ledger rows match roles by OID and name;
-- session_replication_role = replica switches none of the catalog's triggers
-- off; DROP EXTENSION is refused while the ledger holds history; the owner
-- of a budget is the relation's owner now.
-- Not in a transaction: charges are committed by a worker; cleaned up at the end.
SELECT plan(44);

DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['mrfdp_adm_owner', 'mrfdp_adm_owner2', 'mrfdp_adm_analyst',
							 'mrfdp_adm_leaver', 'mrfdp_adm_voided', 'mrfdp_adm_renamed']
	LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I', r);
		END IF;
	END LOOP;
END $$;
DROP TABLE IF EXISTS adm_prot, adm_prot2, adm_gone CASCADE;
CREATE TABLE adm_prot AS
SELECT x AS "row" FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0], [.5, 0, .5], [0, .5, 0]]::float8[]), 600, seed => 5) x;
CREATE TABLE adm_prot2 AS SELECT * FROM adm_prot;
CREATE TABLE adm_gone AS SELECT * FROM adm_prot;
ALTER TABLE adm_prot OWNER TO mrfdp_adm_owner;
ALTER TABLE adm_prot2 OWNER TO mrfdp_adm_owner;
ALTER TABLE adm_gone OWNER TO mrfdp_adm_owner;
SET ROLE mrfdp_adm_owner;
SELECT mrfdp.protect('adm_prot', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('adm_prot2', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('adm_gone', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('adm_prot', 'mrfdp_adm_analyst');
SELECT mrfdp.grant_learning('adm_prot', 'mrfdp_adm_leaver');
SELECT mrfdp.grant_learning('adm_prot2', 'mrfdp_adm_leaver');
SELECT mrfdp.grant_learning('adm_prot', 'mrfdp_adm_voided');
SELECT mrfdp.grant_learning('adm_gone', 'mrfdp_adm_analyst');
SELECT mrfdp.grant_learning('adm_prot', 'mrfdp_adm_renamed');
RESET ROLE;

-- DROP ROLE with the error's detail (or 'dropped').
CREATE FUNCTION pg_temp.drop_role(r text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE format('DROP ROLE %I', r);
	RETURN 'dropped';
EXCEPTION WHEN dependent_objects_still_exist THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN d;
END $$;
-- Runs sql (then check, a query giving text) in a subtransaction that is
-- always rolled back: its SQLSTATE and message, or 'done' and check's answer.
CREATE FUNCTION pg_temp.try_undone(sql text, check_sql text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	result text;
BEGIN
	BEGIN
		EXECUTE sql;
		result := 'done';
		IF check_sql IS NOT NULL THEN
			EXECUTE check_sql INTO result;
		END IF;
		RAISE EXCEPTION 'undo' USING ERRCODE = 'MRFUD';
	EXCEPTION WHEN OTHERS THEN
		IF SQLSTATE <> 'MRFUD' THEN
			result := SQLSTATE || ' ' || SQLERRM;
		END IF;
	END;
	RETURN result;
END $$;

SET ROLE mrfdp_adm_leaver;
SELECT mrf_learn_ising_from('adm_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL AS released;
RESET ROLE;

-- Finding 1: a learning grant is a dependency of its role.
SELECT matches(pg_temp.drop_role('mrfdp_adm_leaver'), 'privileges for table mrfdp\.learning_grantees',
               'DROP ROLE is refused while the role has a learning grant');
SET ROLE mrfdp_adm_owner;
SELECT mrfdp.revoke_learning('adm_prot2', 'mrfdp_adm_leaver');
RESET ROLE;
SELECT matches(pg_temp.drop_role('mrfdp_adm_leaver'), 'privileges for table mrfdp\.learning_grantees',
               'and while it has one left after a revoke');
SELECT ok(mrfdp_internal.holds_learning_marker('mrfdp_adm_leaver'::regrole), 'the role holds the marker privilege');
CREATE TEMP TABLE leaver AS SELECT 'mrfdp_adm_leaver'::regrole::oid AS oid;
DROP OWNED BY mrfdp_adm_leaver;
SELECT is((SELECT count(*) FROM mrfdp.grants WHERE role::oid = (SELECT oid FROM leaver)), 0::bigint,
          'DROP OWNED BY the role deletes its learning grants');
SELECT is(pg_temp.drop_role('mrfdp_adm_leaver'), 'dropped', 'and then DROP ROLE works');
SELECT is((SELECT count(*) FROM mrfdp.grants g WHERE NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = g.role)),
          0::bigint, 'no grant row names a role that does not exist');
SELECT is((SELECT array_agg(DISTINCT role_name) FROM mrfdp.ledger WHERE role::oid = (SELECT oid FROM leaver)),
          ARRAY['mrfdp_adm_leaver'::text], 'the dropped role''s ledger rows keep its name');

-- A grant voided by DROP OWNED while the clean-up trigger was off: the row
-- stays but counts for nothing, and a later grant does not bring it back.
SET ROLE mrfdp_adm_voided;
SELECT ok(mrf_learn_ising_from('adm_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL,
          'a granted role learns');
RESET ROLE;
BEGIN;
ALTER EVENT TRIGGER mrfdp_forget_revoked DISABLE;
DROP OWNED BY mrfdp_adm_voided;
ALTER EVENT TRIGGER mrfdp_forget_revoked ENABLE ALWAYS;
COMMIT;
SELECT is((SELECT count(*) FROM mrfdp.grants WHERE role = 'mrfdp_adm_voided'::regrole), 1::bigint,
          'with the clean-up trigger off, DROP OWNED leaves the grant row');
SET ROLE mrfdp_adm_voided;
SELECT throws_ok($$SELECT mrf_learn_ising_from('adm_prot', 'row', rho => 0.125, variables => 3)$$, '42501', NULL,
                 'but the role can no longer learn through it');
SELECT is((SELECT count(*) FROM mrfdp.budget_status WHERE relation = 'adm_prot'::regclass), 0::bigint,
          'nor see the budget');
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('adm_prot')$$, '42501', NULL, 'nor read what remains');
RESET ROLE;
SET ROLE mrfdp_adm_owner;
SELECT mrfdp.grant_learning('adm_prot2', 'mrfdp_adm_voided');
RESET ROLE;
SET ROLE mrfdp_adm_voided;
SELECT throws_ok($$SELECT mrf_learn_ising_from('adm_prot', 'row', rho => 0.125, variables => 3)$$, '42501', NULL,
                 'a new grant on another relation does not revive the voided one');
SELECT ok(mrf_learn_ising_from('adm_prot2', 'row', rho => 0.125, variables => 3) IS NOT NULL,
          'the new grant works');
RESET ROLE;
SELECT is((SELECT array_agg(relation::regclass::text) FROM mrfdp.grants WHERE role = 'mrfdp_adm_voided'::regrole),
          ARRAY['adm_prot2'], 'and the voided row is gone');

-- The marker follows the grants: the last one revoked, or its relation dropped.
SET ROLE mrfdp_adm_owner;
SELECT mrfdp.revoke_learning('adm_prot2', 'mrfdp_adm_voided');
RESET ROLE;
SELECT ok(NOT mrfdp_internal.holds_learning_marker('mrfdp_adm_voided'::regrole),
          'revoking a role''s last grant revokes the marker privilege');
SELECT is(pg_temp.drop_role('mrfdp_adm_voided'), 'dropped', 'and the role can be dropped');
SET ROLE mrfdp_adm_analyst;
SELECT ok(mrf_learn_ising_from('adm_gone', 'row', rho => 0.125, variables => 3) IS NOT NULL, 'the analyst learns');
RESET ROLE;

-- Ledger rows count for a role by OID and name: an OID that now carries
-- another name (as a dropped role's OID reused by a new role would) sees none.
SET ROLE mrfdp_adm_renamed;
SELECT ok(mrf_learn_ising_from('adm_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL,
          'another granted role learns');
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE role_name = 'mrfdp_adm_renamed'), 1::bigint,
          'and sees its release');
RESET ROLE;
ALTER ROLE mrfdp_adm_renamed RENAME TO mrfdp_adm_renamed_x;
SET ROLE mrfdp_adm_renamed_x;
SELECT is((SELECT count(*) FROM mrfdp.releases), 0::bigint,
          'the same OID under another name sees none of the rows recorded under the old one');
RESET ROLE;
ALTER ROLE mrfdp_adm_renamed_x RENAME TO mrfdp_adm_renamed;

-- Finding 5: session_replication_role = replica switches nothing off.
SELECT is((SELECT array_agg(evtname::text || ' ' || evtenabled::text ORDER BY evtname) FROM pg_event_trigger
           WHERE evtname LIKE 'mrfdp%'),
          ARRAY['mrfdp_claim_parked A', 'mrfdp_forget_dropped A', 'mrfdp_forget_revoked A', 'mrfdp_refuse_drop_with_budgets A'],
          'the event triggers are enabled always');
SELECT is((SELECT array_agg(tgrelid::regclass::text || '.' || tgname || ' ' || tgenabled::text ORDER BY tgrelid::regclass::text, tgname) FROM pg_trigger
           WHERE tgrelid IN ('mrfdp.budget'::regclass, 'mrfdp.grants'::regclass, 'mrfdp.ledger'::regclass)
             AND NOT tgisinternal),
          ARRAY['mrfdp.budget.budget_arriving A', 'mrfdp.grants.grant_arriving A', 'mrfdp.grants.grant_gone A',
                'mrfdp.ledger.ledger_append_only A', 'mrfdp.ledger.ledger_arriving A',
                'mrfdp.ledger.ledger_no_truncate A'],
          'and so are the catalog tables'' triggers');
SET session_replication_role = replica;
SELECT matches(pg_temp.try_undone('DROP EXTENSION mrfdp CASCADE'), '^2BP01 ',
               'replica mode: DROP EXTENSION mrfdp is still refused');
SELECT matches(pg_temp.try_undone('DELETE FROM mrfdp.ledger'), '^42501 ',
               'replica mode: ledger rows still cannot be deleted');
SELECT matches(pg_temp.try_undone('TRUNCATE mrfdp.ledger'), '^42501 ',
               'replica mode: nor truncated');
SELECT matches(pg_temp.try_undone($$UPDATE mrfdp.ledger SET learner = 'forged'$$), '^42501 ',
               'replica mode: nor changed');
CREATE TEMP TABLE gone AS SELECT 'adm_gone'::regclass::oid AS oid;
DROP TABLE adm_gone;
RESET session_replication_role;
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid = (SELECT oid FROM gone)), 0::bigint,
          'replica mode: dropping a protected relation still ends its budget');
SELECT is((SELECT count(*) FROM mrfdp.grants WHERE relation::oid = (SELECT oid FROM gone)), 0::bigint,
          'and its grants');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation::oid = (SELECT oid FROM gone)), 0::bigint,
          'and no ledger row keeps its OID');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation IS NULL AND relation_name = 'public.adm_gone'), 1::bigint,
          'while its ledger row stays by name');

-- Finding 6: history alone keeps the extension from being dropped.
SELECT matches(pg_temp.try_undone('DELETE FROM mrfdp.budget; DROP EXTENSION mrfdp CASCADE'),
               '^2BP01 cannot drop extension mrfdp while its ledger holds \d+ rows?$',
               'DROP EXTENSION is refused while the ledger holds rows, even with no budget left');
SELECT is(pg_temp.try_undone('DELETE FROM mrfdp.budget; SET LOCAL mrfdp.allow_drop_with_budgets = on; DROP EXTENSION mrfdp CASCADE',
                             $$SELECT count(*)::text FROM pg_extension WHERE extname = 'mrfdp'$$),
          '0', 'unless a superuser allows it');
SELECT ok(EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'mrfdp'), '(which was undone)');

-- Finding 7: the owner of a budget is the relation's owner now.
SELECT hasnt_column('mrfdp', 'budget', 'owner', 'the budget keeps no copy of the owner');
SELECT count(*) AS adm_prot_rows FROM mrfdp.ledger WHERE relation = 'adm_prot'::regclass \gset
ALTER TABLE adm_prot OWNER TO mrfdp_adm_owner2;
SELECT is((SELECT owner FROM mrfdp.budget_status WHERE relation = 'adm_prot'::regclass), 'mrfdp_adm_owner2'::regrole,
          'budget_status shows the relation''s owner after ALTER TABLE ... OWNER TO');
SET ROLE mrfdp_adm_owner2;
SELECT is((SELECT count(*) FROM mrfdp.budget_status WHERE relation = 'adm_prot'::regclass), 1::bigint,
          'the new owner sees the budget');
SELECT lives_ok($$SELECT * FROM mrfdp.remaining('adm_prot')$$, 'and reads what remains');
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE relation = 'adm_prot'::regclass), :adm_prot_rows::bigint,
          'and every release from it');
RESET ROLE;
SET ROLE mrfdp_adm_owner;
SELECT is((SELECT count(*) FROM mrfdp.budget_status WHERE relation = 'adm_prot'::regclass), 0::bigint,
          'the former owner no longer sees the budget');
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('adm_prot')$$, '42501', NULL, 'nor reads what remains');
SELECT throws_ok($$SELECT mrfdp.protect('adm_prot', epsilon => 1e6, delta => 1e-6)$$, '42501', NULL,
                 'nor changes the budget');
SELECT ok((SELECT count(*) FROM mrfdp.releases WHERE relation = 'adm_prot'::regclass) > 0,
          'but still sees the releases made while it owned the relation');
RESET ROLE;

-- A grant naming a role that does not exist is refused (not stored).
SELECT throws_ok($$SELECT mrfdp.grant_learning('adm_prot', '-'::regrole)$$, '42704', NULL,
                 'granting learning to no role is refused');
SELECT * FROM finish();

-- Clean up (ledger rows stay: append-only).
DROP TABLE adm_prot, adm_prot2, leaver, gone;
DROP ROLE mrfdp_adm_owner, mrfdp_adm_owner2, mrfdp_adm_analyst, mrfdp_adm_renamed;
