-- server: citus
-- Issue 13, items 3 and 5 (fast iterations): distributed Frank-Wolfe reads
-- the shards through TABLESAMPLE mrfdp_internal.mrf_fw_kept(step).  From the second
-- iteration on, a worker backend that keeps a shard's part one iteration
-- behind answers with one row of the shard read (its tableoid) and the
-- step's last selections only; a miss (a part not kept, another backend)
-- makes the driver send the whole step, and the shards not kept replay from
-- their rows.  Either way the model is the one-node model bit for bit.  The
-- kept parts are freed when the learn ends (the driver's last query) and,
-- whatever happens, when the worker's transaction ends.  By hand, the scan
-- returns rows its caller can SELECT, or fewer.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(17);

CREATE ROLE fwf_owner LOGIN;
CREATE ROLE fwf_skew_owner LOGIN;
CREATE ROLE fwf_analyst;
CREATE ROLE fwf_reader LOGIN;
-- 20,000 rows of 6 binary variables with couplings, over 4 shards
CREATE TABLE fwf (id int, row boolean[]);
SELECT create_distributed_table('fwf', 'id');
INSERT INTO fwf SELECT i, ARRAY[a, a <> (i % 7 = 0), a <> (i % 5 = 0), (i * 13) % 3 = 0, ((i * 13) % 3 = 0) <> (i % 11 = 0), (i / 3) % 2 = 0]
FROM (SELECT i, (i * 7919) % 13 < 6 AS a FROM generate_series(1, 20000) i) x;
CREATE TABLE fwf_local AS SELECT * FROM fwf;
-- 40,000 rows in one shard (one distribution value): a part that does not
-- fit its worker's 1 MB is not kept, so every iteration misses (an owner of
-- its own: the setting applies to the owner's sessions the workers start)
CREATE TABLE fwf_skew (id int, row boolean[]);
SELECT create_distributed_table('fwf_skew', 'id');
INSERT INTO fwf_skew SELECT 1, row FROM fwf_local, generate_series(1, 2);
CREATE TABLE fwf_skew_local AS SELECT * FROM fwf_skew;
ALTER TABLE fwf OWNER TO fwf_owner;
ALTER TABLE fwf_skew OWNER TO fwf_skew_owner;
SELECT mrfdp.protect(r, epsilon => 1000, delta => 1e-6) FROM unnest(ARRAY['fwf', 'fwf_local', 'fwf_skew', 'fwf_skew_local']) r;
SELECT mrfdp.grant_learning(r, 'fwf_analyst') FROM unnest(ARRAY['fwf', 'fwf_local', 'fwf_skew', 'fwf_skew_local']) r;
GRANT SELECT ON fwf TO fwf_reader;
CREATE TEMP TABLE fwfm (src text, m mrf);
GRANT ALL ON fwfm TO fwf_analyst;
CREATE FUNCTION fwf_same(a text, b text) RETURNS boolean LANGUAGE sql AS $$
	SELECT (SELECT m::jsonb - 'meta' FROM fwfm WHERE src = a) = (SELECT m::jsonb - 'meta' FROM fwfm WHERE src = b)
$$;
-- tuples read from the table's shards on the workers (their statistics,
-- flushed by an idle backend within about 10 s): waits until at least
-- at_least are seen, at most 40 s
CREATE FUNCTION fwf_read(r text, since bigint, at_least bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	seen bigint;
BEGIN
	FOR i IN 1 .. 80 LOOP
		SELECT coalesce(sum(result::bigint), 0) - since INTO seen FROM run_command_on_workers(format(
			$q$SELECT coalesce(sum(seq_tup_read), 0) FROM pg_stat_user_tables WHERE relname ~ '^%s_[0-9]+$'$q$, r));
		EXIT WHEN seen >= at_least;
		PERFORM pg_sleep(0.5);
	END LOOP;
	RETURN seen;
END $$;
-- the kept parts of the backend that serves the calling shard (called as
-- fwf_owner, whose connections the driver uses: Citus keeps them for the
-- transaction)
CREATE FUNCTION fwf_kept() RETURNS bigint LANGUAGE sql VOLATILE SECURITY DEFINER AS $$
	SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'mrfdp Frank-Wolfe parts'
$$;
SET mrfdp.test_seed = 29;

SET ROLE fwf_analyst;
INSERT INTO fwfm SELECT 'local 30', mrf_learn_ising_from('fwf_local', 'row', rho => 0.5, iterations => 30, variables => 6);
INSERT INTO fwfm SELECT 'local default', mrf_learn_ising_from('fwf_local', 'row', rho => 0.5, variables => 6);
INSERT INTO fwfm SELECT 'skew local', mrf_learn_ising_from('fwf_skew_local', 'row', rho => 0.5, iterations => 12, variables => 6);
RESET ROLE;
-- (after the copy above has been counted)
CREATE TEMP TABLE fwf_before AS SELECT fwf_read('fwf', 0, 20000) AS n;
SET ROLE fwf_analyst;
SET mrfdp.distributed_frank_wolfe = on;
INSERT INTO fwfm SELECT 'dist 30', mrf_learn_ising_from('fwf', 'row', rho => 0.5, iterations => 30, variables => 6);
RESET ROLE;
-- the counting pass and the first iteration read every row; the 28 others
-- one row a shard each (a rescan at every iteration would read 30 x 20,000)
SELECT cmp_ok(fwf_read('fwf', (SELECT n FROM fwf_before), 40000), '<', 40000 + 28 * 4 + 1::bigint,
	'from the second iteration on the kept shards are not read (one row a shard names it)');
SELECT ok(fwf_same('dist 30', 'local 30'), 'and the model is the one-node model bit for bit');
SET ROLE fwf_analyst;
INSERT INTO fwfm SELECT 'dist default', mrf_learn_ising_from('fwf', 'row', rho => 0.5, variables => 6);
RESET ROLE;
SELECT ok(fwf_same('dist default', 'local default'), 'default iterations (hundreds): the one-node model');

-- auto: the cost model (core MrfFwCitusCosts, docs/citus_fw.md section 4),
-- on public values only (n counted, p, the iterations, shards and nodes).
-- 2 iterations over 20,000 rows: the workers read their rows once, where
-- gathering ships them all; 30: a distributed round costs more than a
-- local iteration of 20,000 rows of 6 variables.
SET mrfdp.distributed_frank_wolfe = auto;
SET ROLE fwf_analyst;
INSERT INTO fwfm SELECT 'auto 2', mrf_learn_ising_from('fwf', 'row', rho => 0.5, iterations => 2, variables => 6);
INSERT INTO fwfm SELECT 'auto 30', mrf_learn_ising_from('fwf', 'row', rho => 0.5, iterations => 30, variables => 6);
RESET ROLE;
SET mrfdp.distributed_frank_wolfe = on;
SELECT ok((SELECT m::jsonb -> 'meta' ? 'distributed' FROM fwfm WHERE src = 'auto 2'),
	'auto, 2 iterations: predicted faster on the shards, learned there');
SELECT ok((SELECT NOT (m::jsonb -> 'meta' ? 'distributed') FROM fwfm WHERE src = 'auto 30'),
	'auto, 30 iterations: predicted faster gathered, learned on the coordinator');
SELECT ok(fwf_same('auto 30', 'local 30'), 'and the one-node model either way');

-- Misses.  A part that does not fit its worker's memory is not kept: every
-- iteration's first query adds nothing for it, and the whole step replays.
ALTER ROLE fwf_skew_owner SET mrfdp.max_learner_memory = '1MB';
DELETE FROM fwf_before;
INSERT INTO fwf_before SELECT fwf_read('fwf_skew', 0, 40000);
SET ROLE fwf_analyst;
INSERT INTO fwfm SELECT 'skew dist', mrf_learn_ising_from('fwf_skew', 'row', rho => 0.5, iterations => 12, variables => 6);
RESET ROLE;
ALTER ROLE fwf_skew_owner RESET mrfdp.max_learner_memory;
SELECT ok(fwf_same('skew dist', 'skew local') AND (SELECT m::jsonb -> 'meta' ? 'distributed' FROM fwfm WHERE src = 'skew dist'),
	'a shard its worker cannot keep: replayed from its rows, the one-node model');
SELECT cmp_ok(fwf_read('fwf_skew', (SELECT n FROM fwf_before), 12 * 40000), '>=', 12 * 40000::bigint,
	'and it was read at every iteration');
-- every task on a connection of its own: a shard may reach another backend
SET citus.force_max_query_parallelization = on;
SET ROLE fwf_analyst;
INSERT INTO fwfm SELECT 'dist parallel', mrf_learn_ising_from('fwf', 'row', rho => 0.5, iterations => 30, variables => 6);
RESET ROLE;
RESET citus.force_max_query_parallelization;
SELECT ok(fwf_same('dist parallel', 'local 30'), 'a connection per task: the one-node model');

CREATE FUNCTION fwf_cancelled() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM mrf_learn_ising_from('fwf', 'row', rho => 0.5, iterations => 20000, variables => 6);
	RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
	RETURN SQLSTATE;
END $$;
GRANT EXECUTE ON FUNCTION fwf_cancelled() TO fwf_analyst;
-- Freed.  In one transaction, the backends that served the learn serve the
-- next query too (Citus keeps a transaction's connections).
BEGIN;
SET LOCAL ROLE fwf_analyst;
SELECT ok(mrf_learn_ising_from('fwf', 'row', rho => 0.5, iterations => 30, variables => 6) IS NOT NULL, 'a learn in a transaction');
SET LOCAL ROLE fwf_owner;
SELECT is((SELECT max(fwf_kept()) FROM fwf), 0::bigint, 'its kept parts are freed when it returns (before the transaction ends)');
RESET ROLE;
SAVEPOINT cancelled;
SET LOCAL ROLE fwf_analyst;
SET LOCAL statement_timeout = '2s';
SELECT is(fwf_cancelled(), '57014', 'a learn cancelled during its iterations');
RESET statement_timeout;
SET LOCAL ROLE fwf_owner;
SELECT cmp_ok((SELECT max(fwf_kept()) FROM fwf), '>', 0::bigint,
	'its parts stay while the transaction goes on (the probe sees kept parts)');
RESET ROLE;
COMMIT;
SET ROLE fwf_owner;
SELECT is((SELECT max(fwf_kept()) FROM fwf), 0::bigint, 'and are freed when the transaction ends');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;

-- By hand.  The scan returns the rows of a table its caller can SELECT, or
-- fewer (none for a step that frees, or that only a kept part answers).
SET ROLE fwf_analyst;
SELECT throws_ok($$SELECT count(*) FROM fwf TABLESAMPLE mrfdp_internal.mrf_fw_kept('\x5446524d0100000006000000020000000000000001000000000000000000004000000000000000000000000000000000'::bytea)$$,
	'42501', NULL, 'a role that cannot SELECT the table reads nothing through the scan');
RESET ROLE;
SET ROLE fwf_reader;
SELECT results_eq($$SELECT
		(SELECT count(*) FROM fwf TABLESAMPLE mrfdp_internal.mrf_fw_kept('\x5446524d0100000006000000020000000000000001000000000000000000004000000000000000000000000000000000'::bytea)),
		(SELECT count(*) FROM fwf TABLESAMPLE mrfdp_internal.mrf_fw_kept('\x5446524d01000000060000000200000000000000ffffffff000000000000004000000000000000000000000000000000'::bytea)),
		(SELECT count(*) FROM fwf TABLESAMPLE mrfdp_internal.mrf_fw_kept(('\x5646524d0100000006000000020000000000000003000000000000000000004000000000000000000000000000000000'
			|| repeat('00000000', 6) || repeat('01000000', 6))::bytea))$$,
	$$VALUES (20000::bigint, 0::bigint, 0::bigint)$$,
	'a role that can: every row, or none');
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_ising_scores_agg(row, '\x5446524d0100000006000000020000000000000001000000000000000000004000000000000000000000000000000000'::bytea, tableoid)
		FROM fwf TABLESAMPLE mrfdp_internal.mrf_fw_kept('\x5446524d0100000006000000020000000000000001000000000000000000004000000000000000000000000000000000'::bytea)$$,
	'%are called only by the mrf_learn_*_from functions%', 'the scores through the scan are refused by hand');
RESET ROLE;

DROP FUNCTION fwf_cancelled();
SELECT * FROM finish();
