-- server: citus
-- A worker's backends of the owner-rights read are terminated during a
-- protected learn (a worker's fast shutdown or an administrator's
-- pg_terminate_backend: SQLSTATE 57P01 on the worker).  The call fails with
-- one of mrfdp's fixed texts (no worker address, no Citus words) and is charged: the
-- charge was committed before the first query reached a shard.  Each route
-- is caught while its owner's worker backend waits for a shard another
-- session holds locked (deterministic), and distributed Frank-Wolfe also
-- between iterations, while it runs.  A later learn connects again and
-- releases.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(18);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE ROLE wl_analyst;
CREATE ROLE wl_owner LOGIN;
GRANT CREATE ON SCHEMA public TO wl_owner;
SET ROLE wl_owner;
CREATE TABLE wl (id int, "row" boolean[]);
SELECT create_distributed_table('wl', 'id');
INSERT INTO wl SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0), i % 5 = 0, i % 11 = 0]
FROM generate_series(1, 20000) i;
RESET ROLE;
SELECT mrfdp.protect('wl', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('wl', 'wl_analyst');
SELECT string_agg(nodeport::text, '|') AS wl_ports FROM pg_dist_node WHERE groupid > 0 \gset

-- the first shard's worker: a session there holds the shard locked
SELECT shard_name('wl'::regclass, s.shardid) AS wl_shard,
	   format('host=%s port=%s dbname=%s user=postgres',
			  split_part(current_setting('unix_socket_directories'), ',', 1), p.nodeport, current_database()) AS wl_worker
FROM pg_dist_shard s JOIN pg_dist_placement pl USING (shardid) JOIN pg_dist_node p USING (groupid)
WHERE s.logicalrelid = 'wl'::regclass ORDER BY s.shardid LIMIT 1 \gset
SELECT format('host=%s port=%s dbname=%s user=postgres',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()) AS wl_coordinator \gset
CREATE TABLE wl_conf AS SELECT :'wl_worker'::text AS worker, :'wl_coordinator'::text AS coordinator;

-- the owner's backends on that worker: how many, and terminate them
CREATE FUNCTION wl_owner_backends(waiting boolean) RETURNS bigint LANGUAGE sql AS $$
	SELECT n FROM dblink((SELECT worker FROM wl_conf),
		format('SELECT count(*) FROM pg_stat_activity WHERE usename = ''wl_owner'' AND (%L::boolean OR wait_event_type = ''Lock'')', NOT waiting))
		AS t(n bigint)
$$;
CREATE FUNCTION wl_terminate() RETURNS bigint LANGUAGE sql AS $$
	SELECT n FROM dblink((SELECT worker FROM wl_conf),
		'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = ''wl_owner''') AS t(n bigint)
$$;
-- waits (up to 20 s) until the owner has a backend there (waiting for the lock, or any)
CREATE FUNCTION wl_wait(waiting boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. 200 LOOP
		IF wl_owner_backends(waiting) > 0 THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN false;
END $$;
-- the learn's outcome on connection c: its SQLSTATE and message
CREATE FUNCTION wl_result(c text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
	m text;
BEGIN
	PERFORM * FROM dblink_get_result(c) AS r(m text);
	RETURN 'released';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
	RETURN s || ' ' || m;
END $$;
CREATE FUNCTION wl_charges() RETURNS bigint[] LANGUAGE sql AS $$
	SELECT array_agg(rows_read ORDER BY id) FROM mrfdp.ledger WHERE relation = 'wl'::regclass
$$;

-- starts a learn as the analyst on a connection of its own
CREATE FUNCTION wl_start(c text, setting text, learn text) RETURNS boolean LANGUAGE sql AS $$
	SELECT dblink_connect(c, (SELECT coordinator FROM wl_conf)) IS NOT NULL
		AND dblink_exec(c, 'SET ROLE wl_analyst') IS NOT NULL
		AND dblink_exec(c, 'SET ' || setting) IS NOT NULL
		AND dblink_send_query(c, learn) = 1
$$;

SELECT dblink_connect('wl_lock', :'wl_worker') IS NOT NULL AS connected \gset
SELECT dblink_exec('wl_lock', 'SET citus.enable_manual_changes_to_shards = on') IS NOT NULL AS manual \gset
SELECT dblink_exec('wl_lock', 'BEGIN') IS NOT NULL AS began \gset
SELECT dblink_exec('wl_lock', format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', :'wl_shard')) IS NOT NULL AS locked \gset

-- distributed Frank-Wolfe: its first query waits for the shard
SELECT wl_start('wl_fw', 'mrfdp.distributed_frank_wolfe = on',
				$q$SELECT mrf_learn_ising_from('wl', 'row', rho => 1, variables => 5)::text$q$) AS started \gset
SELECT ok(wl_wait(true), 'distributed Frank-Wolfe: the owner''s worker backend waits for the shard');
SELECT is(wl_terminate() > 0, true, 'and is terminated');
SELECT wl_result('wl_fw') AS wl_fw \gset
SELECT dblink_disconnect('wl_fw') IS NOT NULL AS disconnected \gset
SELECT ok(:'wl_fw'::text IN ('57P01 terminating connection while reading the relation',
							   '55000 relation wl could not be read as its owner'),
		  'the call fails in mrfdp''s words (57P01, or the withheld read error when Citus reports the lost connection)');
SELECT is(wl_charges(), ARRAY[-1]::bigint[], 'and was charged before its read (rows_read -1: it never ended)');

-- the gathered read: the same
SELECT wl_start('wl_gather', 'mrfdp.distributed_frank_wolfe = off',
				$q$SELECT mrf_learn_ising_from('wl', 'row', rho => 1, variables => 5)::text$q$) AS started \gset
SELECT ok(wl_wait(true), 'the gathered read waits for the shard');
SELECT wl_terminate() > 0 AS terminated \gset
SELECT wl_result('wl_gather') AS wl_gather \gset
SELECT dblink_disconnect('wl_gather') IS NOT NULL AS disconnected \gset
SELECT ok(:'wl_gather'::text IN ('57P01 terminating connection while reading the relation',
							   '55000 relation wl could not be read as its owner'),
		  'terminated: fails in mrfdp''s words');
SELECT is(wl_charges(), ARRAY[-1, -1]::bigint[], 'charged');

-- the stable mode's blocks on the shards: the same
SELECT wl_start('wl_stable', 'mrfdp.distributed_stable_blocks = on',
				$q$SELECT mrf_learn_structure_from('wl', 'row', epsilon => 1, delta => 1e-7, eta => 0.5, variables => 5)::text$q$) AS started \gset
SELECT ok(wl_wait(true), 'the stable mode''s blocks wait for the shard');
SELECT wl_terminate() > 0 AS terminated \gset
SELECT wl_result('wl_stable') AS wl_stable \gset
SELECT dblink_disconnect('wl_stable') IS NOT NULL AS disconnected \gset
SELECT ok(:'wl_stable'::text IN ('57P01 terminating connection while reading the relation',
							   '55000 relation wl could not be read as its owner'),
		  'terminated: fails in mrfdp''s words');
SELECT is(wl_charges(), ARRAY[-1, -1, -1]::bigint[], 'charged');

SELECT dblink_exec('wl_lock', 'ROLLBACK') IS NOT NULL AS unlocked \gset
SELECT dblink_disconnect('wl_lock') IS NOT NULL AS disconnected \gset

-- distributed Frank-Wolfe terminated while it iterates: its rows were
-- counted (n settled), then the iterations fail
SELECT wl_start('wl_run', 'mrfdp.distributed_frank_wolfe = on',
				$q$SELECT mrf_learn_ising_from('wl', 'row', rho => 1, variables => 5, iterations => 100000)::text$q$) AS started \gset
SELECT ok(wl_wait(false) AND pg_sleep(0.5) IS NOT NULL AND wl_terminate() > 0,
		  'distributed Frank-Wolfe iterating: the owner''s worker backends are terminated');
SELECT wl_result('wl_run') AS wl_run \gset
SELECT dblink_disconnect('wl_run') IS NOT NULL AS disconnected \gset
SELECT ok(:'wl_run'::text IN ('57P01 terminating connection while reading the relation',
							   '55000 relation wl could not be read as its owner'),
		  'the call fails in mrfdp''s words (57P01, or the withheld read error when Citus reports the lost connection)');
SELECT is(wl_charges(), ARRAY[-1, -1, -1, 20000]::bigint[], 'charged, with n settled');

-- two learns in the caller's transaction: the owner's connections of the
-- first stay in it; they are terminated; the second learn's owner-rights
-- subtransaction starts with Citus's SAVEPOINT to them, which fails
SELECT dblink_connect('wl_two', (SELECT coordinator FROM wl_conf)) IS NOT NULL AS connected \gset
SELECT dblink_exec('wl_two', 'SET ROLE wl_analyst') IS NOT NULL AS analyst \gset
SELECT dblink_exec('wl_two', 'SET mrfdp.distributed_frank_wolfe = on') IS NOT NULL AS distributed \gset
SELECT dblink_exec('wl_two', 'BEGIN') IS NOT NULL AS began \gset
SELECT ok((SELECT m IS NOT NULL FROM dblink('wl_two', $q$SELECT mrf_learn_ising_from('wl', 'row', rho => 1, variables => 5)::text$q$) AS t(m text)),
		  'a learn inside the caller''s transaction');
SELECT ok(wl_terminate() > 0, 'the owner''s connections to a worker are terminated');
SELECT dblink_send_query('wl_two', $q$SELECT mrf_learn_ising_from('wl', 'row', rho => 1, variables => 5)::text$q$) = 1 AS sent \gset
SELECT wl_result('wl_two') AS wl_two \gset
SELECT dblink_disconnect('wl_two') IS NOT NULL AS disconnected \gset
SELECT is(:'wl_two'::text, '57P01 terminating connection while reading the relation',
		  'the second learn fails with 57P01 in mrfdp''s words, not Citus''s');
SELECT is(wl_charges(), ARRAY[-1, -1, -1, 20000, 20000, -1]::bigint[],
		  'both were charged (the first''s ledger row survives the failed transaction; the second never counted its rows)');

-- the next learn connects again and releases
SET ROLE wl_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT isnt(mrf_learn_ising_from('wl', 'row', rho => 1, variables => 5)::text, NULL, 'a later learn releases');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;

SELECT * FROM finish();
DROP TABLE wl, wl_conf;
DROP FUNCTION wl_owner_backends(boolean), wl_terminate(), wl_wait(boolean), wl_result(text), wl_charges(),
	wl_start(text, text, text);
REVOKE CREATE ON SCHEMA public FROM wl_owner;
DROP ROLE wl_analyst;
DROP ROLE wl_owner;
