-- server: citus
-- No message of the owner-rights work reaches the caller of a protected
-- learn on Citus, not even those raised while its subtransaction starts and
-- ends (Citus's SAVEPOINT, RELEASE and ROLLBACK TO on the workers) or those
-- citus.log_remote_commands prints: an analyst who turns every message on
-- sees none of the owner's remote commands (its queries, its savepoints).
-- The owner's worker connections stay in the caller's transaction until it
-- ends: Citus's COMMIT or ROLLBACK of them at the end, the SAVEPOINT,
-- ROLLBACK TO and RELEASE it sends them for the caller's own savepoints, and
-- the warnings and errors of a connection lost meanwhile name the owner and
-- the workers; none of them reaches the caller either (errors in mrfdp's
-- words).  Each call runs in a psql of its own, whose messages are read.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(13);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE ROLE oq_analyst;
CREATE ROLE oq_owner LOGIN;
GRANT CREATE ON SCHEMA public TO oq_owner;
SET ROLE oq_owner;
CREATE TABLE oq (id int, "row" boolean[]);
SELECT create_distributed_table('oq', 'id');
INSERT INTO oq SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0)] FROM generate_series(1, 4000) i;
RESET ROLE;
SELECT mrfdp.protect('oq', epsilon => 100, delta => 1e-6);
SELECT mrfdp.grant_learning('oq', 'oq_analyst');
-- what a leak would show: the owner's connections or a worker's port
SELECT string_agg(nodeport::text, '|') AS oq_ports FROM pg_dist_node WHERE groupid > 0 \gset
-- terminates the owner's connections to the first worker (run as postgres)
CREATE FUNCTION oq_terminate() RETURNS bigint LANGUAGE sql AS $$
	SELECT n FROM dblink((SELECT format('host=%s port=%s dbname=%s user=postgres',
								split_part(current_setting('unix_socket_directories'), ',', 1),
								min(nodeport), current_database())
						  FROM pg_dist_node WHERE groupid > 0),
						 'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = ''oq_owner''')
		AS t(n bigint)
$$;

-- a learn as the analyst with every message on; its output with the
-- messages (stderr), one line each
\set oq_fw `psql -X -q -c "SET ROLE oq_analyst" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" -c "SET mrfdp.distributed_frank_wolfe = on" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" 2>&1 | tr '\n' '~'`
\set oq_gather `psql -X -q -c "SET ROLE oq_analyst" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" -c "SET mrfdp.distributed_frank_wolfe = off" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" 2>&1 | tr '\n' '~'`
\set oq_stable `psql -X -q -c "SET ROLE oq_analyst" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" -c "SET mrfdp.distributed_stable_blocks = on" -c "SELECT mrf_learn_structure_from('oq', 'row', epsilon => 1, delta => 1e-7, eta => 0.5, variables => 3) IS NOT NULL AS learned" 2>&1 | tr '\n' '~'`

SELECT ok(:'oq_fw' LIKE '% t~(1 row)%', 'distributed Frank-Wolfe learned with every message on');
SELECT unalike(:'oq_fw'::text, '%issuing%',
			   'and showed none of the owner''s remote commands, its transaction''s COMMIT included');
SELECT ok(:'oq_gather' LIKE '% t~(1 row)%' AND :'oq_gather' NOT LIKE '%issuing%',
		  'the gathered read: learned, no remote command shown');
SELECT ok(:'oq_stable' LIKE '% t~(1 row)%' AND :'oq_stable' NOT LIKE '%issuing%',
		  'the stable mode''s blocks: learned, no remote command shown');
SELECT unalike((:'oq_fw' || :'oq_gather' || :'oq_stable')::text, '%SAVEPOINT%',
			   'no savepoint of the owner''s subtransactions either');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'oq'::regclass), 3::bigint, 'three releases, three charges');

-- the learn inside the caller's transaction, then the caller's own
-- savepoints, with remote commands logged: Citus sends SAVEPOINT, ROLLBACK
-- TO and RELEASE to the owner's connections, then COMMIT (or ROLLBACK)
\set oq_block `psql -X -q -c "SET ROLE oq_analyst" -c "SET mrfdp.distributed_frank_wolfe = on" -c "BEGIN" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug1" -c "SAVEPOINT a" -c "ROLLBACK TO a" -c "RELEASE a" -c "COMMIT" 2>&1 | tr '\n' '~'`
\set oq_block_abort `psql -X -q -c "SET ROLE oq_analyst" -c "SET mrfdp.distributed_frank_wolfe = off" -c "BEGIN" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug1" -c "SAVEPOINT a" -c "SELECT 1 / 0" -c "ROLLBACK" 2>&1 | tr '\n' '~'`
SELECT ok(:'oq_block' LIKE '% t~(1 row)%' AND :'oq_block' NOT LIKE '%issuing%' AND :'oq_block' NOT LIKE '%oq\_owner@%',
		  'the caller''s savepoints and COMMIT after a learn show none of the owner''s connections');
SELECT ok(:'oq_block_abort' LIKE '% t~(1 row)%' AND :'oq_block_abort' LIKE '%division by zero%'
		  AND :'oq_block_abort' NOT LIKE '%issuing%' AND :'oq_block_abort' NOT LIKE '%oq\_owner@%',
		  'nor does the ROLLBACK of a transaction that failed after a learn (its own error is shown)');

-- the owner's connections to a worker die after the learn, inside the
-- caller's transaction (a worker restarting): Citus's warnings and its error
-- at the caller's next savepoint name the owner and the worker
\set oq_lost `psql -X -q -c "SET ROLE oq_analyst" -c "SET mrfdp.distributed_frank_wolfe = on" -c "BEGIN" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" -c "RESET ROLE" -c "SELECT oq_terminate() > 0 AS terminated" -c "SELECT pg_sleep(0.3)" -c "SET ROLE oq_analyst" -c "SAVEPOINT a" -c "COMMIT" 2>&1 | tr '\n' '~'`
SELECT ok(:'oq_lost' LIKE '% t~(1 row)%', 'a learn, then the owner''s connections to a worker are terminated');
SELECT ok(:'oq_lost' LIKE '%ERROR:  a worker connection of this transaction''s protected read failed%',
		  'the caller''s savepoint fails in mrfdp''s words');
SELECT ok(:'oq_lost' NOT LIKE '%oq\_owner@%' AND :'oq_lost' NOT LIKE '%terminating connection%'
		  AND :'oq_lost' !~ ('localhost:(' || :'oq_ports' || ')'),
		  'no warning or error names the owner, a worker, or Citus''s cause');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'oq'::regclass), 6::bigint,
		  'the learns inside transactions were charged, the one whose transaction failed too');

-- a transaction without a protected learn keeps Citus's messages (the
-- owner reading its table)
\set oq_plain `psql -X -q -c "SET ROLE oq_owner" -c "SET citus.log_remote_commands = on" -c "BEGIN" -c "SELECT count(*) FROM oq" -c "COMMIT" 2>&1 | tr '\n' '~'`
SELECT ok(:'oq_plain' LIKE '%issuing COMMIT%', 'a transaction without a protected learn shows Citus''s remote commands as before');

SELECT * FROM finish();
DROP TABLE oq;
DROP FUNCTION oq_terminate();
REVOKE CREATE ON SCHEMA public FROM oq_owner;
DROP ROLE oq_analyst;
DROP ROLE oq_owner;
