-- server: session_preload
-- Planner statistics are a read of the relation they describe: a release
-- whose transaction read pg_stats rows of a protected relation (its most
-- common values, histograms) is charged to that relation, or refused when
-- the relation's budget cannot cover it.  A role with only a learning grant
-- sees no statistics and is not charged; without the pg_stats read nothing
-- is charged either.
-- Not in a transaction: charges are committed by a worker; cleaned up at the end.
SELECT plan(11);

DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['mrfdp_pc_owner', 'mrfdp_pc_reader', 'mrfdp_pc_reader2', 'mrfdp_pc_analyst']
	LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I', r);
		END IF;
	END LOOP;
END $$;
DROP TABLE IF EXISTS pc_secret, pc_small, pc_open CASCADE;
CREATE TABLE pc_secret (label text, "row" boolean[]);
INSERT INTO pc_secret SELECT CASE WHEN g % 7 = 0 THEN 'rare' ELSE 'common' END, ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0]
FROM generate_series(1, 500) g;
CREATE TABLE pc_small AS SELECT * FROM pc_secret;
CREATE TABLE pc_open AS SELECT "row" FROM pc_secret;
ANALYZE pc_secret, pc_small;
ALTER TABLE pc_secret OWNER TO mrfdp_pc_owner;
ALTER TABLE pc_small OWNER TO mrfdp_pc_owner;
GRANT SELECT ON pc_open TO mrfdp_pc_reader, mrfdp_pc_reader2, mrfdp_pc_analyst;
GRANT USAGE ON SCHEMA public TO mrfdp_pc_reader, mrfdp_pc_reader2, mrfdp_pc_analyst;
SET ROLE mrfdp_pc_owner;
SET client_min_messages = warning;
SELECT relation FROM mrfdp.protect('pc_secret', epsilon => 100, delta => 1e-6);
SELECT relation FROM mrfdp.protect('pc_small', epsilon => 100, delta => 1e-6, rho_cap => 0.05);
RESET client_min_messages;
GRANT SELECT ON pc_secret TO mrfdp_pc_reader;
GRANT SELECT ON pc_small TO mrfdp_pc_reader2;
SELECT mrfdp.grant_learning('pc_secret', 'mrfdp_pc_analyst');
RESET ROLE;
GRANT mrfdp_pc_analyst TO mrfdp_pc_reader;

CREATE FUNCTION pg_temp.releases(t regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT releases FROM mrfdp.budget WHERE relation = t
$$;

-- a role with SELECT on pc_secret: no pg_stats read, no charge (the roles
-- act as the session's user: a superuser's SET ROLE would see every statistic)
SET SESSION AUTHORIZATION mrfdp_pc_reader;
SELECT lives_ok($$SELECT mrf_learn_ising("row", rho => 0.1) FROM pc_open$$, 'a release from an open table');
RESET SESSION AUTHORIZATION;
SELECT is(pg_temp.releases('pc_secret'), 0::bigint, 'without a pg_stats read, pc_secret is not charged');

-- the same role reads pc_secret's statistics, then releases in that transaction
SET SESSION AUTHORIZATION mrfdp_pc_reader;
BEGIN;
SELECT ok((SELECT count(*) FROM pg_stats WHERE tablename = 'pc_secret' AND most_common_vals IS NOT NULL) > 0,
	'a role with SELECT sees pc_secret''s most common values in pg_stats');
SELECT lives_ok($$SELECT mrf_learn_ising("row", rho => 0.1) FROM pc_open$$, 'a release after reading pg_stats');
COMMIT;
RESET SESSION AUTHORIZATION;
SELECT is(pg_temp.releases('pc_secret'), 1::bigint, 'the release after reading pg_stats is charged to pc_secret');
SELECT is((SELECT rho FROM mrfdp.ledger WHERE relation = 'pc_secret'::regclass), 0.1::float8,
	'its ledger row on pc_secret has the release''s rho');

-- a budget that cannot cover it: the release is refused, nothing charged
SET SESSION AUTHORIZATION mrfdp_pc_reader2;
BEGIN;
SELECT count(*) > 0 AS seen FROM pg_catalog.pg_stats WHERE tablename = 'pc_small';
SELECT throws_ok($$SELECT mrf_learn_ising("row", rho => 0.1) FROM pc_open$$, '42501',
	'privacy budget of relation public.pc_small cannot cover this release',
	'after reading pc_small''s statistics, a release over its rho_cap is refused');
ROLLBACK;
RESET SESSION AUTHORIZATION;
SELECT is(pg_temp.releases('pc_small'), 0::bigint, 'nothing was charged to pc_small');

-- a role with only a learning grant: pg_stats shows it nothing, and nothing
-- is charged (as the session's user: statistics the session's user may see
-- are charged even after a SET ROLE, and this test runs as a superuser)
SET SESSION AUTHORIZATION mrfdp_pc_analyst;
BEGIN;
SELECT is((SELECT count(*) FROM pg_stats WHERE tablename = 'pc_secret'), 0::bigint,
	'an analyst with a learning grant and no SELECT sees no statistics of pc_secret');
SELECT mrf_learn_ising("row", rho => 0.1) IS NOT NULL AS released FROM pc_open;
COMMIT;
RESET SESSION AUTHORIZATION;
SELECT is(pg_temp.releases('pc_secret'), 1::bigint, 'and its release is not charged to pc_secret');
-- the session's user read them, then SET ROLE to a role without SELECT: charged
SET SESSION AUTHORIZATION mrfdp_pc_reader;
BEGIN;
SELECT count(*) > 0 AS seen FROM pg_stats WHERE tablename = 'pc_secret';
SET LOCAL ROLE mrfdp_pc_analyst;
SELECT mrf_learn_ising("row", rho => 0.1) IS NOT NULL AS released FROM pc_open;
COMMIT;
RESET SESSION AUTHORIZATION;
SELECT is(pg_temp.releases('pc_secret'), 2::bigint,
	'statistics read before a SET ROLE to a role without SELECT are still charged');

DROP TABLE pc_secret, pc_small, pc_open;
DROP OWNED BY mrfdp_pc_reader, mrfdp_pc_reader2, mrfdp_pc_analyst;
REVOKE mrfdp_pc_analyst FROM mrfdp_pc_reader;
SELECT * FROM finish();
