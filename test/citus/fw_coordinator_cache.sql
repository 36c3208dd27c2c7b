-- server: citus
-- Adversarial review of distributed Frank-Wolfe's kept shards (issue 13
-- item 3, 725813a): a backend that serves shards keeps their converted rows
-- and margins between iterations, until the next learn.  When the
-- coordinator holds shards (shouldhaveshards, or a one-node Citus), Citus
-- runs their tasks in the driver's own backend, the analyst's: before the
-- fix, after mrf_learn_ising_from returned, the analyst's process still held
-- the protected shards' rows in "mrfdp Frank-Wolfe parts" (320 kB for
-- 30,000 rows of 6 variables), reachable by anyone who could name the
-- learn's 64-bit id in a step, until its next learn.  The driver now frees
-- its own backend's kept shards when the learn ends, however it ends.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(5);

SELECT citus_set_node_property(nodename, nodeport, 'shouldhaveshards', true) FROM pg_dist_node WHERE groupid = 0;
CREATE TABLE fwcc (id int, row boolean[]);
SELECT create_distributed_table('fwcc', 'id', shard_count => 6);
INSERT INTO fwcc SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0, i % 7 = 0, i % 11 = 0, i % 13 = 0]
FROM generate_series(1, 30000) i;
SELECT ok((SELECT count(*) > 0 FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid)
		   JOIN pg_dist_node d ON d.nodeport = p.nodeport AND d.groupid = 0
		   WHERE s.logicalrelid = 'fwcc'::regclass), 'the coordinator holds shards of the table');
SELECT mrfdp.protect('fwcc', epsilon => 1000, delta => 1e-6);
CREATE ROLE fwcc_analyst;
SELECT mrfdp.grant_learning('fwcc', 'fwcc_analyst');

SET ROLE fwcc_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT ok(mrf_learn_ising_from('fwcc', 'row', rho => 0.5, iterations => 5, variables => 6)::jsonb -> 'meta' ? 'distributed',
	'learned on the shards');
RESET ROLE;
SELECT is((SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'mrfdp Frank-Wolfe parts'), 0::bigint,
	'the caller''s backend keeps none of the shards it served after the learn');
-- (pgTAP's throws_ok does not catch a cancel)
CREATE FUNCTION fwcc_cancelled() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM mrf_learn_ising_from('fwcc', 'row', rho => 0.5, iterations => 2000, variables => 6);
	RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
	RETURN SQLSTATE;
WHEN internal_error THEN
	-- Citus's own error when the cancel lands while it aborts the workers'
	-- remote transactions (seen under load): the learn was cancelled all the same
	IF SQLERRM LIKE 'failure on connection marked as essential%' THEN
		RETURN 'cancelled in Citus';
	END IF;
	RAISE;
END $$;
GRANT EXECUTE ON FUNCTION fwcc_cancelled() TO fwcc_analyst;
SET ROLE fwcc_analyst;
SET statement_timeout = '1s';
SELECT ok(fwcc_cancelled() IN ('57014', 'cancelled in Citus'), 'a learn cancelled during its iterations');
RESET statement_timeout;
RESET mrfdp.distributed_frank_wolfe;
RESET ROLE;
SELECT is((SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'mrfdp Frank-Wolfe parts'), 0::bigint,
	'keeps none either');
SELECT citus_set_node_property(nodename, nodeport, 'shouldhaveshards', false) FROM pg_dist_node WHERE groupid = 0;
DROP TABLE fwcc;
DROP FUNCTION fwcc_cancelled();

SELECT * FROM finish();
