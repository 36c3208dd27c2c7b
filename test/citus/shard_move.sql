-- server: citus
-- A shard moved to another worker during a distributed Frank-Wolfe learn:
-- the moved shard is read again from its new placement (the same rows, the
-- same fingerprint), and the model is the one-node model of those rows.  The
-- owner's worker sessions keep no part (40,000 rows in one shard do not fit
-- its 1 MB), so every iteration reads the shard where it is.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(3);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE ROLE sm_analyst;
CREATE ROLE sm_owner LOGIN;
CREATE TABLE sm (id int, "row" boolean[]);
SELECT create_distributed_table('sm', 'id', colocate_with => 'none');
INSERT INTO sm SELECT 1, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0), i % 5 = 0]
FROM generate_series(1, 40000) i;
CREATE TABLE sm_local AS SELECT * FROM sm;
ALTER TABLE sm OWNER TO sm_owner;
ALTER ROLE sm_owner SET mrfdp.max_learner_memory = '1MB';
-- the moved shard is created as its owner on the other worker
GRANT CREATE ON SCHEMA public TO sm_owner;
SELECT bool_and(success) AS sm_granted FROM run_command_on_workers('GRANT CREATE ON SCHEMA public TO sm_owner') \gset
SELECT mrfdp.protect(r, epsilon => 1000, delta => 1e-6) FROM unnest(ARRAY['sm', 'sm_local']) r;
SELECT mrfdp.grant_learning(r, 'sm_analyst') FROM unnest(ARRAY['sm', 'sm_local']) r;
CREATE TABLE smm (src text, m text);
GRANT ALL ON smm TO sm_analyst;

SELECT dblink_connect('sm_learn', format('host=%s port=%s dbname=%s user=postgres',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database())) IS NOT NULL AS connected \gset
SELECT dblink_exec('sm_learn', 'SET mrfdp.test_seed = 11') IS NOT NULL AS seeded \gset
SELECT dblink_exec('sm_learn', 'SET ROLE sm_analyst') IS NOT NULL AS analyst \gset
SELECT dblink_exec('sm_learn', 'SET mrfdp.distributed_frank_wolfe = on') IS NOT NULL AS distributed \gset
SELECT dblink_send_query('sm_learn',
	$q$INSERT INTO smm SELECT 'moved', mrf_learn_ising_from('sm', 'row', rho => 1, iterations => 1500, variables => 4)::jsonb - 'meta'$q$) = 1 AS sent \gset
-- 300 iterations sometimes finished within the second the test slept
-- (about 3 ms an iteration): 1500 keep it running well past half a second
SELECT pg_sleep(0.5);
SELECT dblink_is_busy('sm_learn') AS sm_busy \gset
-- the shard of the rows moves to the other worker
SELECT s.shardid AS sm_shard, p.nodename AS sm_from_host, p.nodeport AS sm_from_port
FROM pg_dist_shard s JOIN pg_dist_placement pl USING (shardid) JOIN pg_dist_node p USING (groupid)
WHERE s.logicalrelid = 'sm'::regclass AND s.shardid = get_shard_id_for_distribution_column('sm', 1) \gset
SELECT nodename AS sm_to_host, nodeport AS sm_to_port FROM pg_dist_node
WHERE nodeport <> :sm_from_port AND groupid <> 0 AND isactive LIMIT 1 \gset
SELECT citus_move_shard_placement(:sm_shard, :'sm_from_host', :sm_from_port, :'sm_to_host', :sm_to_port,
								  shard_transfer_mode => 'block_writes') IS NOT NULL AS moved \gset
CREATE FUNCTION sm_result() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM * FROM dblink_get_result('sm_learn') AS r(m text);
	RETURN 'released';
EXCEPTION WHEN OTHERS THEN
	RETURN 'error';
END $$;
SELECT sm_result() AS sm_outcome \gset
SELECT dblink_disconnect('sm_learn') IS NOT NULL AS disconnected \gset
SET mrfdp.test_seed = 11;
SET ROLE sm_analyst;
INSERT INTO smm SELECT 'local', mrf_learn_ising_from('sm_local', 'row', rho => 1, iterations => 1500, variables => 4)::jsonb - 'meta';
RESET ROLE;
RESET mrfdp.test_seed;
SELECT is(:sm_busy, 1, 'the learn was running when the shard moved');
SELECT is(:'sm_outcome'::text, 'released', 'a learn during which a shard moved releases');
SELECT is((SELECT m FROM smm WHERE src = 'moved'), (SELECT m FROM smm WHERE src = 'local'),
		  'the one-node model of the same rows');

SELECT * FROM finish();
DROP TABLE sm, sm_local, smm;
CALL citus_cleanup_orphaned_resources();
DROP FUNCTION sm_result();
ALTER ROLE sm_owner RESET mrfdp.max_learner_memory;
REVOKE CREATE ON SCHEMA public FROM sm_owner;
SELECT bool_and(success) AS sm_revoked FROM run_command_on_workers('REVOKE CREATE ON SCHEMA public FROM sm_owner') \gset
DROP ROLE sm_analyst;
DROP ROLE sm_owner;
