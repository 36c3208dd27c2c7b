-- server: session_preload
-- Holes found by a review of the hardened ledger (issue 9), as a role with
-- SELECT on a protected table: a release reading more than 1000 relations
-- overflowed the charge request (an uncharged release, or a crash), and a
-- procedure that read a protected table, committed, then learned from its
-- variables released with no charge at all.  Not in a transaction: charges
-- are committed by a worker and procedures commit.
SELECT plan(10);

SELECT pg_postmaster_start_time() AS lr_started, pg_backend_pid() AS lr_pid \gset

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_lr_reader') THEN
		CREATE ROLE mrfdp_lr_reader;
	END IF;
END $$;
DROP TABLE IF EXISTS lr_child, lr_parent, lr_secret;
CREATE TABLE lr_parent (x boolean[]);
CREATE TABLE lr_child () INHERITS (lr_parent);
INSERT INTO lr_child SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] FROM generate_series(1, 500) g;
SELECT mrfdp.protect('lr_parent', epsilon => 8, delta => 1e-6, rho_cap => 0.25);
GRANT SELECT ON lr_child TO mrfdp_lr_reader;
CREATE TABLE lr_secret (x boolean[]);
INSERT INTO lr_secret SELECT ARRAY[g % 2 = 0, g % 7 = 0, g % 3 = 0] FROM generate_series(1, 500) g;
SELECT mrfdp.protect('lr_secret', epsilon => 8, delta => 1e-6);
GRANT SELECT ON lr_secret TO mrfdp_lr_reader;
GRANT CREATE ON SCHEMA public TO mrfdp_lr_reader;

-- 1100 relations read in one transaction, then a release from the child of
-- a protected parent: the request holds every relation, the parent is charged.
SET ROLE mrfdp_lr_reader;
DO $$
BEGIN
	FOR i IN 1..1100 LOOP
		EXECUTE format('CREATE TEMP TABLE lr_t%s (x int)', i);
	END LOOP;
END $$;
BEGIN;
DO $$
BEGIN
	FOR i IN 1..1100 LOOP
		EXECUTE format('SELECT 1 FROM lr_t%s', i);
	END LOOP;
END $$;
SELECT ok(mrf_learn_ising(x, rho => 0.1) IS NOT NULL, 'a release after reading 1100 other relations')
FROM lr_child;
COMMIT;
RESET ROLE;
SELECT is((SELECT releases || ' ' || (spent_zcdp_rho = mrfdp.exact_numeric(0.1)) FROM mrfdp.budget
           WHERE relation = 'lr_parent'::regclass), '1 true', 'the protected parent was charged for it, exactly');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'lr_parent'::regclass AND protected),
          1::bigint, 'with a protected ledger row');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation_name LIKE 'pg_temp%.lr_t%'), 1100::bigint,
          'and one row for each other relation read');

-- The next release in such a transaction fits, the one after it is refused
-- over the cap (not released uncharged).
SET ROLE mrfdp_lr_reader;
BEGIN;
DO $$
BEGIN
	FOR i IN 1..1100 LOOP
		EXECUTE format('SELECT 1 FROM lr_t%s', i);
	END LOOP;
END $$;
SELECT ok(mrf_learn_ising(x, rho => 0.1) IS NOT NULL, 'a second release fits the cap of 0.25') FROM lr_child;
SELECT throws_ok($$SELECT mrf_learn_ising(x, rho => 0.1) FROM lr_child$$, '42501', NULL,
                 'a third (0.3 in all) is refused');
COMMIT;
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'lr_parent'::regclass), 2::bigint,
          'the parent shows exactly the two releases');

-- A procedure that reads, commits, and learns from what it read.
SET ROLE mrfdp_lr_reader;
CREATE PROCEDURE lr_launder() LANGUAGE plpgsql AS $$
DECLARE
	a text[];
	m mrf;
BEGIN
	SELECT array_agg(x::text) INTO a FROM lr_secret;
	COMMIT;
	SELECT mrf_learn_ising_agg(v::boolean[], mrf_options(rho => 0.1)) INTO m FROM unnest(a) v;
	IF m IS NULL THEN
		RAISE EXCEPTION 'no model';
	END IF;
END $$;
CALL lr_launder();
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'lr_secret'::regclass), 1::bigint,
          'a release after a COMMIT inside a procedure is charged to what the procedure read before it');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'lr_secret'::regclass AND protected),
          1::bigint, 'with its ledger row');

SELECT is(pg_postmaster_start_time(), :'lr_started'::timestamptz, 'the server did not restart');

DROP PROCEDURE lr_launder();
REVOKE CREATE ON SCHEMA public FROM mrfdp_lr_reader;
DROP TABLE lr_child, lr_parent, lr_secret;
SELECT * FROM finish();
