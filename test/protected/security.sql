-- server: session_preload
-- Attacks on the ledger and the protected path (from the privacy review).
-- Not in a transaction: charges are committed by a worker; cleaned up at the end.
SELECT plan(12);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_sec_eve') THEN
		CREATE ROLE mrfdp_sec_eve;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_sec_analyst') THEN
		CREATE ROLE mrfdp_sec_analyst;
	END IF;
END $$;
DROP SCHEMA IF EXISTS sec_eve CASCADE;
DROP TABLE IF EXISTS sec_data, sec_parent CASCADE;
CREATE SCHEMA sec_eve AUTHORIZATION mrfdp_sec_eve;
GRANT USAGE ON SCHEMA public TO mrfdp_sec_eve, mrfdp_sec_analyst;
GRANT CREATE ON SCHEMA public TO mrfdp_sec_eve;
SET mrfdp.test_seed = 3;
CREATE TABLE sec_data AS SELECT x AS "row" FROM mrf_sample(mrf_ising(ARRAY[[0, .4], [.4, 0]]::float8[]), 500, seed => 1) x;
SELECT mrfdp.protect('sec_data', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('sec_data', 'mrfdp_sec_analyst');

-- Catalog queries run with search_path = pg_catalog: a role's own pg_has_role
-- or = operator earlier in its search_path is never called with the owner's rights.
SET ROLE mrfdp_sec_eve;
CREATE FUNCTION sec_eve.pg_has_role(oid, regrole, text) RETURNS boolean
	LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION sec_eve.oideq(oid, oid) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR sec_eve.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = sec_eve.oideq);
SET search_path = sec_eve, pg_catalog, public;
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('public.sec_data')$$, '42501', NULL,
                 'a shadowing pg_has_role does not open the budget of another relation');
RESET search_path;
RESET ROLE;

-- The protected path reads as the relation's owner, restricted: an owner's
-- row-level-security policy cannot act with the extension owner's rights.
SET ROLE mrfdp_sec_eve;
CREATE TABLE sec_eve.mine AS SELECT * FROM generate_series(1, 50) g, LATERAL (SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS "row") r;
CREATE FUNCTION sec_eve.escalate() RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE 'ALTER ROLE mrfdp_sec_eve SUPERUSER';
	RETURN true;
EXCEPTION WHEN OTHERS THEN
	RETURN true;
END $f$;
ALTER TABLE sec_eve.mine ENABLE ROW LEVEL SECURITY;
ALTER TABLE sec_eve.mine FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON sec_eve.mine USING (sec_eve.escalate());
SELECT mrfdp.protect('sec_eve.mine', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('sec_eve.mine', 'mrfdp_sec_eve');
RESET ROLE;
GRANT mrfdp_sec_eve TO CURRENT_USER;
SET ROLE mrfdp_sec_eve;
SELECT throws_ok($$SELECT mrf_learn_ising_from('sec_eve.mine', 'row', rho => 0.1, variables => 2)$$,
                 '0A000', NULL,
                 'a relation that forces its owner''s policy is refused before the policy can run');
ALTER TABLE sec_eve.mine NO FORCE ROW LEVEL SECURITY;
SELECT lives_ok($$SELECT mrf_learn_ising_from('sec_eve.mine', 'row', rho => 0.1, variables => 2)$$,
                'without FORCE the owner''s read bypasses the policy (row_security off) and releases');
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'mrfdp_sec_eve'), false,
          'it ran with the owner''s rights, not the extension owner''s');

-- A definer's wrapper cannot spend another role's grant.
SET ROLE mrfdp_sec_eve;
CREATE TABLE sec_eve.loot (m mrf);
CREATE FUNCTION sec_eve.innocent() RETURNS void LANGUAGE sql SECURITY DEFINER AS
	$f$INSERT INTO sec_eve.loot SELECT mrf_learn_ising_from('public.sec_data', 'row', rho => 0.1, variables => 2)$f$;
GRANT USAGE ON SCHEMA sec_eve TO mrfdp_sec_analyst;
RESET ROLE;
SET ROLE mrfdp_sec_analyst;
SELECT throws_ok('SELECT sec_eve.innocent()', '42501', NULL,
                 'a SECURITY DEFINER wrapper learns as its owner, who has no grant');
RESET ROLE;
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'sec_data'::regclass), 0::bigint,
          'and nothing was charged to the analyst');

-- remaining() does not tell outsiders which relations are protected.
CREATE TABLE sec_plain (x int);
SET ROLE mrfdp_sec_eve;
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('public.sec_plain')$$, '42501', NULL,
                 'an unprotected relation answers an outsider like a protected one');
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('public.sec_data')$$, '42501', NULL,
                 'a protected relation answers an outsider with the same error');
RESET ROLE;
DROP TABLE sec_plain;

-- Views cannot be protected: reading one runs its definition.
CREATE VIEW sec_view AS SELECT "row" FROM sec_data;
SELECT throws_ok($$SELECT mrfdp.protect('sec_view', epsilon => 1, delta => 1e-6)$$, '42809', NULL,
                 'a view cannot be protected');
DROP VIEW sec_view;

-- Window aggregates compare every row's options.
SELECT throws_ok($$SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.001 * g)) OVER ()
                   FROM (SELECT "row", row_number() OVER () AS g FROM sec_data) q$$,
                 '22023', NULL, 'options that vary by row are refused in a window too');

-- A protected parent covers its partitions, whichever name a query uses.
CREATE TABLE sec_parent ("row" boolean[], part int) PARTITION BY LIST (part);
CREATE TABLE sec_child PARTITION OF sec_parent FOR VALUES IN (1);
INSERT INTO sec_parent SELECT ARRAY[g % 2 = 0, g % 3 = 0], 1 FROM generate_series(1, 100) g;
SELECT mrfdp.protect('sec_parent', epsilon => 1000, delta => 1e-6);
SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL FROM sec_child;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'sec_parent'::regclass), 1::bigint,
          'learning from a partition charges its protected parent');

-- A cursor opened earlier in the transaction and read inside the learner's input is charged.
CREATE FUNCTION pg_temp.next_row(c refcursor) RETURNS int[] LANGUAGE plpgsql AS $f$
DECLARE
	r int[];
BEGIN
	FETCH c INTO r;
	RETURN r;
END $f$;
BEGIN;
DECLARE sec_c CURSOR FOR SELECT "row" FROM sec_data;
SELECT mrf_learn_ising_agg(pg_temp.next_row('sec_c'), mrf_options(rho => 0.125)) IS NOT NULL
FROM generate_series(1, 400);
COMMIT;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'sec_data'::regclass), 1::bigint,
          'rows fetched from an earlier cursor are charged to their relation');

-- Clean up.
DROP TABLE sec_data, sec_parent CASCADE;
DROP SCHEMA sec_eve CASCADE;
REVOKE CREATE ON SCHEMA public FROM mrfdp_sec_eve;
REVOKE USAGE ON SCHEMA public FROM mrfdp_sec_eve, mrfdp_sec_analyst;
REVOKE mrfdp_sec_eve FROM CURRENT_USER;
SELECT * FROM finish();
