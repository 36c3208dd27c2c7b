-- server: citus
-- Issue 13, item 3: distributed Frank-Wolfe.  mrf_learn_ising_from on a
-- distributed table runs each iteration's exact score sums as an aggregate
-- over the shards (mrfdp_internal.mrf_fw_ising_scores_agg, as the table's owner) and
-- only the selections, the noise and the charge on the coordinator.  Integer
-- sums: the model is bit for bit the one-node model under mrfdp.test_seed,
-- for any number of shards, whether a worker kept its shard from the previous
-- iteration or replays it.  Charged once, before the first iteration;
-- the sums never reach anyone but the driver.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(24);

-- 6 binary variables with a chain of agreements, 5,000 rows; 1% unreadable
-- (a NULL or a row of 5 values: the protected path's fixed row, counted).
CREATE TABLE fw13 (id int, row boolean[], sr smallint[]);
SELECT create_distributed_table('fw13', 'id');
INSERT INTO fw13
SELECT i, CASE WHEN i % 200 = 0 THEN NULL WHEN i % 200 = 1 THEN ARRAY[true, true, true, true, true] ELSE r END,
	(SELECT array_agg(CASE WHEN b THEN 1 ELSE -1 END ORDER BY o) FROM unnest(r) WITH ORDINALITY u(b, o))::smallint[]
FROM (SELECT i, ARRAY[a, a <> (i % 7 = 0), a <> (i % 5 = 0), (i * 13) % 3 = 0, ((i * 13) % 3 = 0) <> (i % 11 = 0), (i / 3) % 2 = 0] AS r
	FROM (SELECT i, (i * 7919) % 13 < 6 AS a FROM generate_series(1, 5000) i) x) y;
CREATE TABLE fw13_local AS SELECT * FROM fw13;
-- the same rows over 7 shards (of unequal sizes: ids are hashed)
CREATE TABLE fw13_7 (id int, row boolean[], sr smallint[]);
SELECT create_distributed_table('fw13_7', 'id', shard_count => 7);
INSERT INTO fw13_7 SELECT * FROM fw13_local;
CREATE TABLE fw13_big (id int, row boolean[]);
SELECT create_distributed_table('fw13_big', 'id');
INSERT INTO fw13_big SELECT id + 5000 * x, row FROM fw13_local, generate_series(0, 7) g(x);
CREATE TABLE fw13_big_local AS SELECT * FROM fw13_big;
CREATE TABLE fw13_small (id int, row boolean[]);
SELECT create_distributed_table('fw13_small', 'id');
INSERT INTO fw13_small SELECT id, row FROM fw13_local;
SELECT mrfdp.protect('fw13', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('fw13_local', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('fw13_7', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('fw13_big', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('fw13_big_local', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('fw13_small', epsilon => 1000, delta => 1e-6, rho_cap => 0.25);
CREATE ROLE fw13_analyst;
SELECT mrfdp.grant_learning(r, 'fw13_analyst') FROM unnest(ARRAY['fw13', 'fw13_local', 'fw13_7', 'fw13_big', 'fw13_big_local', 'fw13_small']) r;
GRANT USAGE ON SCHEMA mrfdp TO fw13_analyst;
CREATE FUNCTION fw13_spent(r text) RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = r::regclass$$;
CREATE FUNCTION fw13_releases(r text) RETURNS bigint LANGUAGE sql
	AS $$SELECT count(*) FROM mrfdp.ledger WHERE relation = r::regclass$$;
CREATE TEMP TABLE fwm13 (src text, m mrf);
GRANT ALL ON fwm13 TO fw13_analyst;
SET mrfdp.test_seed = 47;

SET ROLE fw13_analyst;
SET mrfdp.distributed_frank_wolfe = on;
INSERT INTO fwm13 SELECT 'exp dist', mrf_learn_ising_from('fw13', 'row', rho => 0.5, iterations => 12, variables => 6);
INSERT INTO fwm13 SELECT 'lap dist', mrf_learn_ising_from('fw13', 'row', rho => 0.5, iterations => 9, mechanism => 'laplace', variables => 6);
INSERT INTO fwm13 SELECT 'default dist', mrf_learn_ising_from('fw13', 'row', rho => 0.25, variables => 6);
INSERT INTO fwm13 SELECT 'smallint dist', mrf_learn_ising_from('fw13', 'sr', rho => 0.5, iterations => 12, variables => 6);
INSERT INTO fwm13 SELECT '7 shards dist', mrf_learn_ising_from('fw13_7', 'row', rho => 0.5, iterations => 12, variables => 6);
SET mrfdp.distributed_frank_wolfe = off;
INSERT INTO fwm13 SELECT 'exp local', mrf_learn_ising_from('fw13_local', 'row', rho => 0.5, iterations => 12, variables => 6);
INSERT INTO fwm13 SELECT 'lap local', mrf_learn_ising_from('fw13_local', 'row', rho => 0.5, iterations => 9, mechanism => 'laplace', variables => 6);
INSERT INTO fwm13 SELECT 'default local', mrf_learn_ising_from('fw13_local', 'row', rho => 0.25, variables => 6);
INSERT INTO fwm13 SELECT 'smallint local', mrf_learn_ising_from('fw13_local', 'sr', rho => 0.5, iterations => 12, variables => 6);
INSERT INTO fwm13 SELECT 'off on dist', mrf_learn_ising_from('fw13', 'row', rho => 0.5, iterations => 12, variables => 6);
RESET ROLE;
CREATE FUNCTION fw13_same(a text, b text) RETURNS boolean LANGUAGE sql AS $$
	SELECT (SELECT m::jsonb - 'meta' FROM fwm13 WHERE src = a) = (SELECT m::jsonb - 'meta' FROM fwm13 WHERE src = b)
		AND (SELECT m::jsonb -> 'meta' -> 'substituted_rows' FROM fwm13 WHERE src = a)
			= (SELECT m::jsonb -> 'meta' -> 'substituted_rows' FROM fwm13 WHERE src = b)
$$;

SELECT ok(fw13_same('exp dist', 'exp local'), 'exponential mechanism: the score sums of the shards give the one-node model');
SELECT ok(fw13_same('lap dist', 'lap local'), 'Laplace mechanism: the one-node model');
SELECT ok(fw13_same('default dist', 'default local'), 'default iterations (from n, counted on the shards): the one-node model');
SELECT ok(fw13_same('smallint dist', 'smallint local'), 'smallint[] samples: the one-node model');
SELECT ok(fw13_same('7 shards dist', 'exp local'), '7 shards of unequal sizes: the one-node model');
SELECT ok(fw13_same('off on dist', 'exp local'), 'with distributed_frank_wolfe off, the rows are gathered and give the same model');
SELECT is((SELECT m::jsonb -> 'meta' ->> 'distributed' FROM fwm13 WHERE src = 'exp dist'),
	'frank-wolfe score sums from the shards', 'the distributed model says so in its metadata');
SELECT ok((SELECT NOT (m::jsonb -> 'meta' ? 'distributed') FROM fwm13 WHERE src = 'off on dist'),
	'the gathered one does not');
SELECT ok((SELECT (m::jsonb -> 'weights' -> 0 ->> 1)::float8 > 0 FROM fwm13 WHERE src = 'exp dist'),
	'the model learned the coupling of the first two variables');
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'rows')::int FROM fwm13 WHERE src = 'exp dist'), 5000, 'every row counted once');

-- Charged once per release, on the coordinator, as one node charges: (1 + 1/128) rho.
SELECT is(fw13_spent('fw13'), (0.5 + 0.5 + 0.25 + 0.5 + 0.5) * (1 + 1.0 / 128), 'each distributed release was charged once');
SELECT is(fw13_releases('fw13'), 5::bigint, 'one ledger row per release');
SELECT is(fw13_spent('fw13_7'), 0.5 * (1 + 1.0 / 128), 'the 7-shard table too');

-- The rows do not fit the coordinator (40,000 rows need about 1.5 MB there;
-- the limit is set to 1 MB): auto learns on the shards; off refuses once the
-- gathered rows exceed it, after the charge (the read had begun).
SET ROLE fw13_analyst;
INSERT INTO fwm13 SELECT 'big local', mrf_learn_ising_from('fw13_big_local', 'row', rho => 0.5, iterations => 12, variables => 6);
RESET ROLE;
SET mrfdp.max_learner_memory = 1024;
SET mrfdp.distributed_frank_wolfe = auto;
SET ROLE fw13_analyst;
INSERT INTO fwm13 SELECT 'auto small memory', mrf_learn_ising_from('fw13_big', 'row', rho => 0.5, iterations => 12, variables => 6);
SET mrfdp.distributed_frank_wolfe = off;
SELECT throws_like($$SELECT mrf_learn_ising_from('fw13_big', 'row', rho => 0.5, iterations => 12, variables => 6)$$,
	'%would need%of working memory%', 'with distributed_frank_wolfe off, rows that do not fit are refused');
RESET ROLE;
RESET mrfdp.max_learner_memory;
RESET mrfdp.distributed_frank_wolfe;
SELECT ok(fw13_same('auto small memory', 'big local')
	AND (SELECT m::jsonb -> 'meta' ? 'distributed' FROM fwm13 WHERE src = 'auto small memory'),
	'auto: rows that do not fit mrfdp.max_learner_memory are learned on the shards, same model');
SELECT is(fw13_spent('fw13_big'), 2 * 0.5 * (1 + 1.0 / 128),
	'the refused learn was charged too: its read had begun (charge before reading)');

-- Every node at 1 MB, 30 variables: a worker's batch of 8,192 rows (about
-- 1.1 MB with its margins) does not fit, so the worker halves its batch
-- (the sums of any partition are the same); it refused it, after the charge
CREATE ROLE fw13_wide_owner LOGIN;
CREATE TABLE fw13_wide_local AS
SELECT i AS id, ARRAY(SELECT (i::bigint * j * 7919) % 5 < 2 FROM generate_series(1, 30) j) AS row
FROM generate_series(1, 40000) i;
CREATE TABLE fw13_wide (LIKE fw13_wide_local);
SELECT create_distributed_table('fw13_wide', 'id');
INSERT INTO fw13_wide SELECT * FROM fw13_wide_local;
ALTER TABLE fw13_wide OWNER TO fw13_wide_owner;
SELECT mrfdp.protect(r, epsilon => 1000, delta => 1e-6) FROM unnest(ARRAY['fw13_wide', 'fw13_wide_local']) r;
SELECT mrfdp.grant_learning(r, 'fw13_analyst') FROM unnest(ARRAY['fw13_wide', 'fw13_wide_local']) r;
SET ROLE fw13_analyst;
INSERT INTO fwm13 SELECT 'wide local', mrf_learn_ising_from('fw13_wide_local', 'row', rho => 0.5, iterations => 8, variables => 30);
RESET ROLE;
ALTER ROLE fw13_wide_owner SET mrfdp.max_learner_memory = '1MB';
SET mrfdp.max_learner_memory = 1024;
SET ROLE fw13_analyst;
INSERT INTO fwm13 SELECT 'wide small memory', mrf_learn_ising_from('fw13_wide', 'row', rho => 0.5, iterations => 8, variables => 30);
RESET ROLE;
RESET mrfdp.max_learner_memory;
ALTER ROLE fw13_wide_owner RESET mrfdp.max_learner_memory;
SELECT ok(fw13_same('wide small memory', 'wide local')
	AND (SELECT m::jsonb -> 'meta' ? 'distributed' FROM fwm13 WHERE src = 'wide small memory'),
	'every node at 1 MB: the workers halve their batches, same model');
SELECT is(fw13_releases('fw13_wide'), 1::bigint, 'charged once, for a release');

-- Refused where it must be.
SET ROLE fw13_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT throws_like($$SELECT mrf_learn_ising_from('fw13_small', 'row', rho => 0.5, iterations => 12, variables => 6)$$,
	'%privacy budget of relation%', 'a budget too small is refused before the first iteration');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;
SELECT is(fw13_spent('fw13_small'), 0::numeric, 'and nothing is charged');
-- the sums are exact statistics: only the driver gets them
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_ising_scores_agg(row, '\x5446524d0100000006000000020000000000000000000000000000000000004001000000000000000000000000000000'::bytea, tableoid) FROM fw13$$,
	'%are called only by the mrf_learn_*_from functions%', 'the scores aggregate refuses a direct call on the coordinator');
CREATE FUNCTION fw13_combine(state text) RETURNS bytea LANGUAGE sql AS $$
	SELECT coord_combine_agg('mrfdp_internal.mrf_fw_ising_scores_agg(boolean[], bytea, oid)'::regprocedure, state::cstring, NULL::bytea)
$$;
SELECT throws_like($$SELECT fw13_combine((SELECT worker_partial_agg('mrfdp_internal.mrf_fw_ising_scores_agg(boolean[], bytea, oid)'::regprocedure,
		ROW(row, '\x5446524d0100000006000000020000000000000000000000000000000000004001000000000000000000000000000000'::bytea, tableoid)::record)::text FROM fw13_local))$$,
	'%are called only by the mrf_learn_*_from functions%', 'and a hand-made worker_partial_agg / coord_combine_agg');
SELECT ok((SELECT bool_and(NOT success AND result LIKE '%are called only by the mrf_learn_*_from functions%')
	FROM run_command_on_workers($$SELECT mrfdp_internal.mrf_fw_ising_scores_agg(ARRAY[true, false], '\x5446524d0100000002000000020000000000000000000000000000000000004001000000000000000000000000000000'::bytea, 0::oid)$$)),
	'and a call on a worker');
CREATE ROLE fw13_other;
SET ROLE fw13_other;
SET mrfdp.distributed_frank_wolfe = on;
SELECT throws_like($$SELECT mrf_learn_ising_from('fw13', 'row', rho => 0.5, variables => 6)$$,
	'%permission denied%', 'a role without a learning grant is refused');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;

SELECT * FROM finish();
