-- server: citus
-- Issue 13, item 3: the stable mode's blocks cut where the rows are
-- (docs/privacy.md 7.3).  mrf_learn_structure_from on a distributed table,
-- with mrfdp.distributed_stable_blocks on (or auto when the rows do not fit
-- the coordinator), sends each shard's rows to blocks of that shard
-- (mrfdp_internal.mrf_stable_blocks_agg, as the table's owner), learns each block on
-- the worker and ships back only the blocks' structures; the coordinator
-- counts, adds noise of scale 4/epsilon and thresholds at the per-shard tau.
-- Recovers the graph of a sampled chain over 2, 4 and 7 shards; charged
-- once, before release; the aggregate refuses anyone but the driver.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(34);

-- a chain 1 - 2 - 3 - 4 - 5, coupling 0.5, 30,000 rows sampled exactly
CREATE TABLE st13_local AS
SELECT g::int AS id, x AS "row"
FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0, 0, 0], [.5, 0, .5, 0, 0], [0, .5, 0, .5, 0],
								[0, 0, .5, 0, .5], [0, 0, 0, .5, 0]]::float8[]), 30000, seed => 5)
	 WITH ORDINALITY AS s(x, g);
CREATE TABLE st13 (id int, "row" integer[]);
SELECT create_distributed_table('st13', 'id');
INSERT INTO st13 SELECT * FROM st13_local;
CREATE TABLE st13_7 (id int, "row" integer[]);
SELECT create_distributed_table('st13_7', 'id', shard_count => 7);
INSERT INTO st13_7 SELECT * FROM st13_local;
CREATE TABLE st13_2 (id int, "row" integer[]);
SELECT create_distributed_table('st13_2', 'id', shard_count => 2);
INSERT INTO st13_2 SELECT * FROM st13_local;
-- 150,000 rows over 7 shards: gathered, they need more than 1 MB on the coordinator
CREATE TABLE st13_big (id int, "row" integer[]);
SELECT create_distributed_table('st13_big', 'id', shard_count => 7);
INSERT INTO st13_big SELECT id + 30000 * x, "row" FROM st13_local, generate_series(0, 4) g(x);
-- a k = 3 pairwise fork (1-2, 2-3, 2-4, 5-6), 18,000 rows, 4 shards
CREATE TABLE st13_k (id int, "row" integer[]);
SELECT create_distributed_table('st13_k', 'id');
INSERT INTO st13_k
SELECT g::int, x FROM mrf_sample((SELECT jsonb_build_object('kind', 'pairwise', 'p', 6, 'k', 3,
		'weights', (SELECT jsonb_agg(wi ORDER BY i) FROM (
			SELECT i, jsonb_agg(wij ORDER BY j) wi FROM (
				SELECT i, j, (SELECT jsonb_agg(ra ORDER BY a) FROM (
					SELECT a, jsonb_agg(CASE WHEN ARRAY[least(i, j), greatest(i, j)] IN (ARRAY[1, 2], ARRAY[2, 3], ARRAY[2, 4], ARRAY[5, 6])
					                         THEN CASE WHEN a = b THEN 1.0 ELSE -0.5 END ELSE 0 END ORDER BY b) ra
					FROM generate_series(0, 2) a, generate_series(0, 2) b GROUP BY a) qa) wij
				FROM generate_series(1, 6) i, generate_series(1, 6) j) qij GROUP BY i) qi),
		'fields', (SELECT jsonb_agg(f) FROM (SELECT (SELECT jsonb_agg(0) FROM generate_series(1, 3)) f
		                                     FROM generate_series(1, 6)) qf))::text::mrf), 18000, seed => 22)
	WITH ORDINALITY s(x, g);
CREATE TABLE st13_small (id int, "row" integer[]);
SELECT create_distributed_table('st13_small', 'id');
INSERT INTO st13_small SELECT * FROM st13_local;
SELECT mrfdp.protect(r, epsilon => 100, delta => 1e-3) FROM unnest(ARRAY['st13', 'st13_7', 'st13_2', 'st13_local', 'st13_big', 'st13_k']) r;
SELECT mrfdp.protect('st13_small', epsilon => 1, delta => 1e-3);
CREATE ROLE st13_analyst;
SELECT mrfdp.grant_learning(r, 'st13_analyst') FROM unnest(ARRAY['st13', 'st13_7', 'st13_2', 'st13_local', 'st13_small', 'st13_big', 'st13_k']) r;
GRANT USAGE ON SCHEMA mrfdp TO st13_analyst;
CREATE FUNCTION st13_spent(r text) RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_approx_epsilon FROM mrfdp.budget WHERE relation = r::regclass$$;
CREATE FUNCTION st13_releases(r text) RETURNS bigint LANGUAGE sql
	AS $$SELECT count(*) FROM mrfdp.ledger WHERE relation = r::regclass$$;
CREATE FUNCTION st13_graph(m mrf) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(i || '-' || j, ' ' ORDER BY i, j), '') FROM mrf_edges(m, 0)
$$;
CREATE TEMP TABLE stm13 (src text, m mrf);
GRANT ALL ON stm13 TO st13_analyst;

SET ROLE st13_analyst;
SET mrfdp.distributed_stable_blocks = on;
INSERT INTO stm13 SELECT '4 shards', mrf_learn_structure_from('st13', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
INSERT INTO stm13 SELECT '7 shards', mrf_learn_structure_from('st13_7', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
INSERT INTO stm13 SELECT '2 shards', mrf_learn_structure_from('st13_2', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
INSERT INTO stm13 SELECT 'twise', mrf_learn_structure_from('st13', 'row', model => 'twise', t => 3, epsilon => 4, delta => 1e-6, eta => 0.5, variables => 5);
INSERT INTO stm13 SELECT 'pairwise', mrf_learn_structure_from('st13_k', 'row', model => 'pairwise', k => 3, epsilon => 4, delta => 1e-6, eta => 1, lambda => 2, variables => 6);
INSERT INTO stm13 SELECT '4 shards 60 blocks', mrf_learn_structure_from('st13', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, blocks => 60, variables => 5);
SET mrfdp.distributed_stable_blocks = off;
INSERT INTO stm13 SELECT 'off', mrf_learn_structure_from('st13', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
SET mrfdp.distributed_stable_blocks = auto;
INSERT INTO stm13 SELECT 'auto fits', mrf_learn_structure_from('st13', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
RESET ROLE;

SELECT is(st13_graph(m), '1-2 2-3 3-4 4-5', src || ': the chain')
FROM stm13 WHERE src IN ('4 shards', '7 shards', '2 shards', '4 shards 60 blocks') ORDER BY src;
SELECT is((SELECT (m::jsonb -> 'monomials')::text || ' ' || (m::jsonb -> 'meta' ->> 'blocks_cut') FROM stm13 WHERE src = 'twise'),
	'[[1, 2], [2, 3], [3, 4], [4, 5]] per shard', 't-wise (t = 3): the chain''s maximal monomials, blocks cut per shard');
SELECT is((SELECT st13_graph(m) || ' k ' || (m::jsonb ->> 'k') || ' ' || (m::jsonb -> 'meta' ->> 'blocks_cut') FROM stm13 WHERE src = 'pairwise'),
	'1-2 2-3 2-4 5-6 k 3 per shard', 'pairwise (k = 3): the fork, blocks cut per shard');
SELECT is((SELECT m::jsonb -> 'meta' ->> 'blocks_cut' FROM stm13 WHERE src = '4 shards'), 'per shard',
	'the model says its blocks were cut per shard');
-- the per-shard default at epsilon 2, delta 1e-6: tau 31, 104 blocks: 26 per shard of 4, 15 of 7, 52 of 2
SELECT is((SELECT m::jsonb -> 'meta' ->> 'tau' FROM stm13 WHERE src = '4 shards'), '31', 'the per-shard threshold (one node: 15)');
SELECT is((SELECT m::jsonb -> 'meta' ->> 'noise_scale' FROM stm13 WHERE src = '4 shards')::float8 >= 2.0, true,
	'noise of scale at least 4/epsilon');
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'blocks') || ' ' || (m::jsonb -> 'meta' ->> 'blocks_per_shard') FROM stm13 WHERE src = s),
	r, s || ': blocks in all and per shard')
FROM (VALUES ('4 shards', '104 26'), ('7 shards', '105 15'), ('2 shards', '104 52'), ('4 shards 60 blocks', '60 15')) v(s, r);
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'blocks') || ' ' || coalesce(m::jsonb -> 'meta' ->> 'blocks_cut', 'gathered')
	FROM stm13 WHERE src = s), '50 gathered', s || ': the rows are gathered (one-node calibration, 50 blocks)')
FROM (VALUES ('off'), ('auto fits')) v(s);
SELECT ok((SELECT NOT (m::jsonb -> 'meta' ?| ARRAY['count', 'counts', 'blocks_learned', 'learn_seconds']) FROM stm13 WHERE src = '4 shards'),
	'no count, abstention or time in the metadata');
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'rows')::int FROM stm13 WHERE src = '7 shards'), 30000, 'every row counted once');

-- Charged once per release, before it: (1 + 1/128) epsilon with the substituted-row count.
SELECT is(st13_spent('st13'), (4 * 2 + 4) * (1 + 1.0 / 128), 'each release on st13 was charged once');
SELECT is(st13_releases('st13'), 5::bigint, 'one ledger row per release');
SELECT ok(st13_spent('st13_7') = 2 * (1 + 1.0 / 128) AND st13_releases('st13_7') = 1, 'the 7-shard table too');

-- The rows do not fit the coordinator: auto cuts the blocks on the shards, off refuses before any charge.
SET mrfdp.max_learner_memory = 1024;
SET ROLE st13_analyst;
SET mrfdp.distributed_stable_blocks = auto;
INSERT INTO stm13 SELECT 'auto small memory', mrf_learn_structure_from('st13_big', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
SET mrfdp.distributed_stable_blocks = off;
SELECT throws_like($$SELECT mrf_learn_structure_from('st13_big', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5)$$,
	'%would need%of working memory%', 'with distributed_stable_blocks off, rows that do not fit are refused');
RESET ROLE;
RESET mrfdp.max_learner_memory;
RESET mrfdp.distributed_stable_blocks;
SELECT is((SELECT st13_graph(m) || ' ' || (m::jsonb -> 'meta' ->> 'blocks_cut') FROM stm13 WHERE src = 'auto small memory'),
	'1-2 2-3 3-4 4-5 per shard', 'auto: rows that do not fit are learned on the shards');
SELECT is(st13_releases('st13_big'), 2::bigint,
	'the refused learn was charged too: its read had begun (charge before reading)');

-- Every node at 1 MB, 150,000 rows over 2 shards: each shard's blocks (about
-- 2 n / S rows) do not fit its worker.  Refused before the charge (it was
-- charged, then failed on the workers with its cause withheld).
CREATE ROLE st13_mem_owner LOGIN;
CREATE TABLE st13_mem (id int, "row" integer[]);
SELECT create_distributed_table('st13_mem', 'id', shard_count => 2);
INSERT INTO st13_mem SELECT id + 30000 * x, "row" FROM st13_local, generate_series(0, 4) g(x);
ALTER TABLE st13_mem OWNER TO st13_mem_owner;
SELECT mrfdp.protect('st13_mem', epsilon => 100, delta => 1e-3);
SELECT mrfdp.grant_learning('st13_mem', 'st13_analyst');
ALTER ROLE st13_mem_owner SET mrfdp.max_learner_memory = '1MB';
SET mrfdp.max_learner_memory = 1024;
SET ROLE st13_analyst;
SET mrfdp.distributed_stable_blocks = on;
SELECT throws_like($$SELECT mrf_learn_structure_from('st13_mem', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5)$$,
	'%working memory on each shard%', 'blocks that do not fit a shard are refused on the coordinator');
RESET ROLE;
RESET mrfdp.max_learner_memory;
RESET mrfdp.distributed_stable_blocks;
ALTER ROLE st13_mem_owner RESET mrfdp.max_learner_memory;
SELECT is(st13_releases('st13_mem'), 1::bigint,
	'after the charge: the refusal depends on n, known from the count, a read (charge before reading)');

-- A budget too small is refused before the blocks are cut.
SET ROLE st13_analyst;
SET mrfdp.distributed_stable_blocks = on;
SELECT throws_like($$SELECT mrf_learn_structure_from('st13_small', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5)$$,
	'%privacy budget of relation%', 'a budget too small is refused');
RESET ROLE;
RESET mrfdp.distributed_stable_blocks;
SELECT is(st13_releases('st13_small'), 0::bigint, 'and nothing is charged');

-- The blocks' structures are not private: only the driver gets them.
SELECT throws_like($$SELECT mrfdp_internal.mrf_stable_blocks_agg(row, '\x5346524d05000000000000000000000004000000020000006400000000000000000000000000e03f000000000000f03f'::bytea, tableoid) FROM st13$$,
	'%is called only by mrf_learn_structure_from%', 'the blocks aggregate refuses a direct call on the coordinator');
CREATE FUNCTION st13_combine(state text) RETURNS bytea LANGUAGE sql AS $$
	SELECT coord_combine_agg('mrfdp_internal.mrf_stable_blocks_agg(integer[], bytea, oid)'::regprocedure, state::cstring, NULL::bytea)
$$;
SELECT throws_like($$SELECT st13_combine((SELECT worker_partial_agg('mrfdp_internal.mrf_stable_blocks_agg(integer[], bytea, oid)'::regprocedure,
		ROW(row, '\x5346524d05000000000000000000000004000000020000006400000000000000000000000000e03f000000000000f03f'::bytea, tableoid)::record)::text FROM st13_local))$$,
	'%is called only by mrf_learn_structure_from%', 'and a hand-made worker_partial_agg / coord_combine_agg');
-- forged states are checked before they are combined: a well-formed one reaches the
-- final function's refusal, a variable beyond p or a non-canonical edge does not
SELECT throws_like($$SELECT st13_combine('\x4246524d050000000400000001000000000000000a000000000000000000000000000000010000000000000001000000010000000a0000000000000000000000000000000100000003000000020000000000000001000000')$$,
	'%is called only by mrf_learn_structure_from%', 'a well-formed state parses (and is refused at the end)');
SELECT throws_like($$SELECT st13_combine('\x4246524d050000000400000001000000000000000a000000000000000000000000000000010000000000000001000000010000000a0000000000000000000000000000000100000003000000020000000000000009000000')$$,
	'%invalid mrfdp blocks state%', 'a structure naming a variable beyond p is refused');
SELECT throws_like($$SELECT st13_combine('\x4246524d050000000400000001000000000000000a000000000000000000000000000000010000000000000001000000010000000a0000000000000000000000000000000100000003000000020000000100000000000000')$$,
	'%invalid mrfdp blocks state%', 'a structure not in canonical form is refused');
SELECT ok((SELECT bool_and(NOT success AND result LIKE '%is called only by mrf_learn_structure_from%')
	FROM run_command_on_workers($$SELECT mrfdp_internal.mrf_stable_blocks_agg(ARRAY[1, -1], '\x5346524d02000000000000000000000004000000020000006400000000000000000000000000e03f000000000000f03f'::bytea, 0::oid)$$)),
	'and a call on a worker');
SET ROLE st13_analyst;
SELECT throws_like($$SELECT mrfdp_internal.mrf_stable_blocks_agg(row, '\x5346524d05000000000000000000000004000000020000006400000000000000000000000000e03f000000000000f03f'::bytea, tableoid) FROM st13$$,
	'%permission denied%', 'an analyst cannot read the protected rows through it');
RESET ROLE;

SELECT * FROM finish();
