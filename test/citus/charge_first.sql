-- server: citus
-- Charge before reading, on every distributed route of the protected path
-- (distributed Frank-Wolfe, the stable mode's blocks, gathered rows): the
-- planned charge is committed before the first query reaches a shard.  A
-- shard is held under an ACCESS EXCLUSIVE lock on its worker: a call over
-- budget is refused at once (it never waits for the shard: it does not read
-- it), and a call that fits is charged before it blocks on the shard, so its
-- statement timeout leaves a charged ledger row (rows_read -1: the read never
-- ended).  Once the lock is gone, a release settles n in the ledger.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(16);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE ROLE cf_analyst;
CREATE TABLE cf (id int, "row" boolean[]);
SELECT create_distributed_table('cf', 'id');
INSERT INTO cf SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0), i % 5 = 0]
FROM generate_series(1, 20000) i;
SELECT mrfdp.protect('cf', epsilon => 1, delta => 1e-6);
SELECT mrfdp.grant_learning('cf', 'cf_analyst');
CREATE FUNCTION cf_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS OR query_canceled THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE;
	RETURN s;
END $$;
CREATE FUNCTION cf_ledger() RETURNS TABLE (rows_read bigint) LANGUAGE sql AS $$
	SELECT rows_read FROM mrfdp.ledger WHERE relation = 'cf'::regclass ORDER BY id
$$;
-- calls of 5% of what is left fit; a call of all of it fits only at first
SELECT rho AS cf_all, 0.05 * rho AS cf_rho FROM mrfdp.remaining('cf') \gset
SELECT 0.05 * approx_epsilon AS cf_eps FROM mrfdp.remaining('cf', 1e-7) \gset

-- the first shard's placement, locked on its worker by another session
SELECT shard_name('cf'::regclass, s.shardid) AS cf_shard, p.nodeport AS cf_port
FROM pg_dist_shard s JOIN pg_dist_placement pl USING (shardid) JOIN pg_dist_node p USING (groupid)
WHERE s.logicalrelid = 'cf'::regclass ORDER BY s.shardid LIMIT 1 \gset
SELECT dblink_connect('cf_lock', format('host=%s port=%s dbname=%s user=postgres',
	split_part(current_setting('unix_socket_directories'), ',', 1), :'cf_port', current_database())) IS NOT NULL AS connected \gset
SELECT dblink_exec('cf_lock', 'SET citus.enable_manual_changes_to_shards = on') IS NOT NULL AS manual \gset
SELECT dblink_exec('cf_lock', 'BEGIN') IS NOT NULL AS began \gset
SELECT dblink_exec('cf_lock', format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', :'cf_shard')) IS NOT NULL AS locked \gset

SET ROLE cf_analyst;
SET statement_timeout = '4s';
SET mrfdp.distributed_frank_wolfe = on;
SELECT is(cf_error($$SELECT mrf_learn_ising_from('cf', 'row', rho => 5, variables => 4)$$),
          '42501',
          'distributed Frank-Wolfe: a call over budget is refused without waiting for the locked shard');
SET mrfdp.distributed_frank_wolfe = off;
SELECT is(cf_error($$SELECT mrf_learn_ising_from('cf', 'row', rho => 5, variables => 4)$$),
          '42501',
          'gathered rows: the same');
SET mrfdp.distributed_stable_blocks = on;
SELECT is(cf_error($$SELECT mrf_learn_structure_from('cf', 'row', epsilon => 5, delta => 1e-7, eta => 0.5, variables => 4)$$),
          '42501',
          'the stable mode''s blocks on the shards: the same');
RESET ROLE;
SELECT is((SELECT count(*) FROM cf_ledger()), 0::bigint, 'none of them was charged');

-- calls that fit: charged, then they wait for the shard until their timeout
SET ROLE cf_analyst;
SET statement_timeout = '1500ms';
SET mrfdp.distributed_frank_wolfe = on;
SELECT is(cf_error(format($$SELECT mrf_learn_ising_from('cf', 'row', rho => %s, variables => 4)$$, :cf_rho)),
          '57014',
          'distributed Frank-Wolfe: a call that fits times out on the locked shard');
RESET ROLE;
SELECT is(array(SELECT rows_read FROM cf_ledger()), ARRAY[-1]::bigint[],
          'and was charged before it reached the shard (rows_read -1: its read never ended)');
SET ROLE cf_analyst;
SET mrfdp.distributed_frank_wolfe = off;
SELECT is(cf_error(format($$SELECT mrf_learn_ising_from('cf', 'row', rho => %s, variables => 4)$$, :cf_rho)),
          '57014',
          'gathered rows: the same timeout');
RESET ROLE;
SELECT is(array(SELECT rows_read FROM cf_ledger()), ARRAY[-1, -1]::bigint[], 'charged too');
SET ROLE cf_analyst;
SELECT is(cf_error(format($$SELECT mrf_learn_structure_from('cf', 'row', epsilon => %s, delta => 1e-7, eta => 0.5, variables => 4)$$, :cf_eps)),
          '57014',
          'the stable mode''s blocks: the same timeout');
RESET ROLE;
SELECT is(array(SELECT rows_read FROM cf_ledger()), ARRAY[-1, -1, -1]::bigint[], 'charged too');
RESET statement_timeout;

SELECT dblink_exec('cf_lock', 'ROLLBACK') IS NOT NULL AS unlocked \gset
SELECT dblink_disconnect('cf_lock') IS NOT NULL AS disconnected \gset

-- the shard free again: releases, with n settled
SET ROLE cf_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT isnt(mrf_learn_ising_from('cf', 'row', rho => :'cf_rho', variables => 4)::text, NULL,
            'distributed Frank-Wolfe releases once the shard is free');
SET mrfdp.distributed_frank_wolfe = off;
SELECT isnt(mrf_learn_ising_from('cf', 'row', rho => :'cf_rho', variables => 4)::text, NULL,
            'so does the gathered read');
RESET ROLE;
SELECT is(array(SELECT rows_read FROM cf_ledger()), ARRAY[-1, -1, -1, 20000, 20000]::bigint[],
          'their ledger rows are settled with n');
SELECT ok((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'cf'::regclass) >= 4 * :cf_rho,
          'the four zCDP charges of the calls that fit are in the budget');
-- the budget now refuses what fitted at first, still without reading
SET ROLE cf_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT is(cf_error(format($$SELECT mrf_learn_ising_from('cf', 'row', rho => %s, variables => 4)$$, :cf_all)),
          '42501', 'what fitted at first no longer does: refused');
RESET ROLE;
SELECT is((SELECT count(*) FROM cf_ledger()), 5::bigint, 'and not charged');
RESET mrfdp.distributed_frank_wolfe;
RESET mrfdp.distributed_stable_blocks;

SELECT * FROM finish();
DROP TABLE cf;
DROP FUNCTION cf_error(text);
DROP FUNCTION cf_ledger();
DROP ROLE cf_analyst;
