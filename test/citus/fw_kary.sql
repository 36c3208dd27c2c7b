-- server: citus
-- Issue 13, item 3: distributed Frank-Wolfe for every Frank-Wolfe learner's
-- protected path: mrf_learn_pairwise_from (k-ary rows, Algorithm 3),
-- mrf_learn_twise_from (t-wise, objective l1) and mrf_learn_structure_from
-- with method 'threshold' (Ising, pairwise and t-wise models).  Each
-- iteration's exact integer score sums are an aggregate over the shards
-- (mrfdp_internal.mrf_fw_kary_scores_agg for k-ary rows, mrf_fw_ising_scores_agg for
-- binary ones); the selections, the noise and the charge stay on the
-- coordinator, so the model is the one-node model bit for bit under
-- mrfdp.test_seed, for any number of shards.  Charged once; the sums reach
-- only the driver.  k-ary samples without a scores aggregate of their own
-- (rows of enum columns, enum arrays) are read into codes on the workers
-- (mrfdp_internal.mrf_fw_kary_codes, by the reader set up with the options k,
-- domains and nulls), and so are rows of boolean columns
-- (mrfdp_internal.mrf_fw_binary_codes).  Gathered, with the same model: t-wise objective linf
-- (whose query rows are the last ones in order).
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(70);

-- 5 ternary variables (z: smallint[], zi: integer[]) with a coupling of the
-- first two, 6 binary ones (b); 4,000 rows, a few unreadable (a value 3, a
-- NULL: the protected path's fixed row, counted).
CREATE TYPE fwk_c AS ENUM ('lo', 'mid', 'hi');
CREATE TYPE fwk_b AS ENUM ('no', 'yes');
-- per-variable alphabets 3, 3, 2 (the step carries them)
CREATE TYPE fwk_r AS (e1 fwk_c, e2 fwk_c, e3 fwk_b);
CREATE TYPE fwk_t AS (s1 text, s2 text, s3 text);
CREATE TYPE fwk_bb AS (b1 boolean, b2 boolean, b3 boolean, b4 boolean, b5 boolean, b6 boolean);
CREATE TABLE fwk (id int, z smallint[], zi integer[], b boolean[], r fwk_r, ea fwk_c[], tx fwk_t, bb fwk_bb);
SELECT create_distributed_table('fwk', 'id');
INSERT INTO fwk
SELECT i, CASE WHEN i % 300 = 0 THEN NULL WHEN i % 300 = 1 THEN ARRAY[3, 0, 0, 0, 0] ELSE z END, z,
	CASE WHEN i % 250 = 0 THEN NULL ELSE b END,
	ROW((ARRAY['lo', 'mid', 'hi'])[z[1] + 1], CASE WHEN i % 350 = 0 THEN NULL ELSE (ARRAY['lo', 'mid', 'hi'])[z[2] + 1] END,
		(ARRAY['no', 'yes'])[z[3] % 2 + 1])::fwk_r,
	CASE WHEN i % 400 = 0 THEN NULL ELSE ARRAY[(ARRAY['lo', 'mid', 'hi'])[z[1] + 1], (ARRAY['lo', 'mid', 'hi'])[z[2] + 1],
		(ARRAY['lo', 'mid', 'hi'])[z[4] + 1]]::fwk_c[] END,
	ROW((ARRAY['x', 'y', 'z'])[z[1] + 1], (ARRAY['x', 'y', 'z'])[z[2] + 1],
		CASE WHEN i % 450 = 0 THEN 'w' ELSE (ARRAY['x', 'y', 'z'])[z[5] + 1] END)::fwk_t,
	ROW(b[1], b[2], b[3], CASE WHEN i % 500 = 0 THEN NULL ELSE b[4] END, b[5], b[6])::fwk_bb
FROM (SELECT i, ARRAY[a, CASE WHEN i % 6 = 0 THEN (a + 1) % 3 ELSE a END, (i * 7) % 3, (i / 3) % 3, (i * 11) % 3]::smallint[] AS z,
		ARRAY[a = 0, (a = 0) <> (i % 7 = 0), (a = 1) <> (i % 5 = 0), (i * 13) % 3 = 0, ((i * 13) % 3 = 0) <> (i % 11 = 0), (i / 3) % 2 = 0] AS b
	FROM (SELECT i, (i * 7919) % 13 % 3 AS a FROM generate_series(1, 4000) i) x) y;
CREATE TABLE fwk_local AS SELECT * FROM fwk;
CREATE TABLE fwk_7 (LIKE fwk_local);
SELECT create_distributed_table('fwk_7', 'id', shard_count => 7);
INSERT INTO fwk_7 SELECT * FROM fwk_local;
CREATE TABLE fwk_2 (LIKE fwk_local);
SELECT create_distributed_table('fwk_2', 'id', shard_count => 2);
INSERT INTO fwk_2 SELECT * FROM fwk_local;
-- whole rows of enum columns (distributed by one of them)
CREATE TABLE fwk_w_local AS SELECT (r).e1, (r).e2, (r).e3 FROM fwk_local;
CREATE TABLE fwk_w AS SELECT * FROM fwk_w_local;
SELECT create_distributed_table('fwk_w', 'e3');
-- 12,000 rows: their one-node learn needs more than 1 MB on the coordinator
CREATE TABLE fwk_big (LIKE fwk_local);
SELECT create_distributed_table('fwk_big', 'id');
INSERT INTO fwk_big SELECT id + 4000 * g, z, zi, b, r, ea, tx, bb FROM fwk_local, generate_series(0, 2) g;
CREATE TABLE fwk_big_local AS SELECT * FROM fwk_big;
CREATE TABLE fwk_small (LIKE fwk_local);
SELECT create_distributed_table('fwk_small', 'id');
INSERT INTO fwk_small SELECT * FROM fwk_local;
CREATE FUNCTION fwk_rows(r text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM mrfdp.protect(r::regclass, epsilon => 1000, delta => 1e-6);
	PERFORM mrfdp.grant_learning(r::regclass, 'fwk_analyst');
END$$;
CREATE ROLE fwk_analyst;
SELECT fwk_rows(r) FROM unnest(ARRAY['fwk', 'fwk_local', 'fwk_7', 'fwk_2', 'fwk_w', 'fwk_w_local', 'fwk_big', 'fwk_big_local']) r;
SELECT mrfdp.protect('fwk_small', epsilon => 1000, delta => 1e-6, rho_cap => 0.25);
SELECT mrfdp.grant_learning('fwk_small', 'fwk_analyst');
GRANT USAGE ON SCHEMA mrfdp TO fwk_analyst;
CREATE FUNCTION fwk_spent(r text) RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = r::regclass$$;
CREATE FUNCTION fwk_releases(r text) RETURNS bigint LANGUAGE sql
	AS $$SELECT count(*) FROM mrfdp.ledger WHERE relation = r::regclass$$;
CREATE TEMP TABLE fwkm (src text, m mrf);
GRANT ALL ON fwkm TO fwk_analyst;
SET mrfdp.test_seed = 53;

-- each learn twice: on the distributed tables (on) and on the local one (off)
CREATE FUNCTION fwk_learn(tag text, tab text, call text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO fwkm SELECT %L, %s', tag, replace(call, '$T', quote_literal(tab)));
END$$;
GRANT EXECUTE ON FUNCTION fwk_learn(text, text, text) TO fwk_analyst;
CREATE TEMP TABLE fwk_calls (tag text, call text, dist boolean);
INSERT INTO fwk_calls VALUES
	('pw', $$mrf_learn_pairwise_from($T, 'z', k => 3, rho => 1, iterations => 8, variables => 5)$$, true),
	('pw int', $$mrf_learn_pairwise_from($T, 'zi', k => 3, rho => 1, iterations => 8, variables => 5)$$, true),
	('pw lap sym', $$mrf_learn_pairwise_from($T, 'z', k => 3, rho => 1, iterations => 7, mechanism => 'laplace', symmetrize => true, variables => 5)$$, true),
	('pw default', $$mrf_learn_pairwise_from($T, 'z', k => 3, rho => 0.5, variables => 5)$$, true),
	('pw enum', $$mrf_learn_pairwise_from($T, 'r', rho => 1, iterations => 8)$$, true),
	('pw enum array', $$mrf_learn_pairwise_from($T, 'ea', rho => 1, iterations => 8, variables => 3)$$, true),
	('pw nulls', $$mrf_learn_pairwise_from($T, 'r', rho => 1, iterations => 8, nulls => 'category')$$, true),
	('pw domains', $$mrf_learn_pairwise_from($T, 'tx', rho => 1, iterations => 8, domains => '{"s1": ["x", "y", "z"], "s2": ["x", "y", "z"], "s3": ["z", "y", "x"]}')$$, true),
	('tw', $$mrf_learn_twise_from($T, 'b', t => 3, rho => 1, iterations => 8, variables => 6)$$, true),
	('tw linf', $$mrf_learn_twise_from($T, 'b', t => 3, rho => 1, iterations => 8, objective => 'linf', variables => 6)$$, false),
	('st ising', $$mrf_learn_structure_from($T, 'b', method => 'threshold', eta => 0.3, rho => 1, iterations => 8, variables => 6)$$, true),
	('st pw', $$mrf_learn_structure_from($T, 'z', model => 'pairwise', k => 3, method => 'threshold', eta => 0.3, rho => 1, iterations => 8, variables => 5)$$, true),
	('st tw', $$mrf_learn_structure_from($T, 'b', model => 'twise', t => 3, method => 'threshold', eta => 0.3, rho => 1, iterations => 8, variables => 6)$$, true),
	-- rows of boolean columns (one NULL field now and then): read into boolean[] on the workers
	('ising rows', $$mrf_learn_ising_from($T, 'bb', rho => 1, iterations => 8)$$, true),
	('tw rows', $$mrf_learn_twise_from($T, 'bb', t => 3, rho => 1, iterations => 8)$$, true),
	('st rows', $$mrf_learn_structure_from($T, 'bb', method => 'threshold', eta => 0.3, rho => 1, iterations => 8)$$, true);
GRANT SELECT ON fwk_calls TO fwk_analyst;

SET ROLE fwk_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT fwk_learn(tag || ' dist', 'fwk', call) FROM fwk_calls;
SELECT fwk_learn(tag || ' 7', 'fwk_7', call) FROM fwk_calls WHERE tag IN ('pw', 'tw', 'st pw');
SELECT fwk_learn(tag || ' 2', 'fwk_2', call) FROM fwk_calls WHERE tag IN ('pw', 'tw', 'st ising');
INSERT INTO fwkm SELECT 'whole dist', mrf_learn_pairwise_from('fwk_w', NULL, rho => 1, iterations => 8);
SET mrfdp.distributed_frank_wolfe = off;
SELECT fwk_learn(tag || ' local', 'fwk_local', call) FROM fwk_calls;
INSERT INTO fwkm SELECT 'whole local', mrf_learn_pairwise_from('fwk_w_local', NULL, rho => 1, iterations => 8);
SELECT fwk_learn('pw off', 'fwk', call) FROM fwk_calls WHERE tag = 'pw';
RESET ROLE;
CREATE FUNCTION fwk_same(a text, b text) RETURNS boolean LANGUAGE sql AS $$
	SELECT (SELECT m::jsonb - 'meta' FROM fwkm WHERE src = a) = (SELECT m::jsonb - 'meta' FROM fwkm WHERE src = b)
		AND (SELECT m::jsonb -> 'meta' -> 'substituted_rows' FROM fwkm WHERE src = a)
			= (SELECT m::jsonb -> 'meta' -> 'substituted_rows' FROM fwkm WHERE src = b)
$$;
CREATE FUNCTION fwk_dist(a text) RETURNS boolean LANGUAGE sql AS $$
	SELECT (SELECT m::jsonb -> 'meta' ->> 'distributed' FROM fwkm WHERE src = a) IS NOT DISTINCT FROM 'frank-wolfe score sums from the shards'
$$;

-- bit for bit the one-node model, and learned on the shards where the learner allows it
SELECT ok(fwk_same(tag || ' dist', tag || ' local'), tag || ': the one-node model')
FROM fwk_calls WHERE tag <> 'tw linf' ORDER BY tag;
-- linf answers its parity queries on the last rows in the order read, which differs between tables
SELECT ok((SELECT m IS NOT NULL FROM fwkm WHERE src = 'tw linf dist'), 'tw linf: released from the gathered rows');
SELECT is(fwk_dist(tag || ' dist'), dist, tag || ': ' || CASE WHEN dist THEN 'learned on the shards' ELSE 'gathered (no scores aggregate for it)' END)
FROM fwk_calls ORDER BY tag;
SELECT ok(fwk_same(tag || ' 7', tag || ' local') AND fwk_dist(tag || ' 7'), tag || ': 7 shards, the one-node model')
FROM fwk_calls WHERE tag IN ('pw', 'tw', 'st pw') ORDER BY tag;
SELECT ok(fwk_same(tag || ' 2', tag || ' local') AND fwk_dist(tag || ' 2'), tag || ': 2 shards, the one-node model')
FROM fwk_calls WHERE tag IN ('pw', 'tw', 'st ising') ORDER BY tag;
SELECT ok(fwk_same('whole dist', 'whole local') AND fwk_dist('whole dist'),
	'whole rows of enum columns (the relation named with no column): the one-node model');
SELECT ok(fwk_same('pw off', 'pw local') AND NOT fwk_dist('pw off'), 'off gathers the rows: the same model');
SELECT ok((SELECT (m::jsonb -> 'meta' -> 'substituted_rows' ->> 'noisy_count')::int BETWEEN 1 AND 60 FROM fwkm WHERE src = 'pw dist'),
	'the unreadable rows were counted on the shards');
SELECT is((SELECT m::jsonb -> 'alphabets' FROM fwkm WHERE src = 'pw enum dist'), '[3, 3, 2]'::jsonb,
	'rows of enum columns of 3, 3 and 2 labels: per-variable alphabets, sent to the workers with the step');
SELECT ok((SELECT m::jsonb -> 'meta' ->> 'structure_learner' = 'mrf_learn_structure' FROM fwkm WHERE src = 'st pw dist'),
	'the pairwise threshold method released a structure');

-- Charged once per release, on the coordinator, as one node charges: (1 + 1/128) rho.
SELECT is(fwk_spent('fwk'), (1 + 1 + 1 + 0.5 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 3) * (1 + 1.0 / 128), 'each release was charged once (on the shards or gathered)');
SELECT is(fwk_releases('fwk'), 17::bigint, 'one ledger row per release (off included)');
SELECT is(fwk_spent('fwk_7'), 3 * (1 + 1.0 / 128), 'the 7-shard table too');

-- auto: on the shards only when the rows would not fit mrfdp.max_learner_memory
-- on the coordinator (1 MB here); off then refuses before any charge.
SET ROLE fwk_analyst;
INSERT INTO fwkm SELECT 'big local', mrf_learn_pairwise_from('fwk_big_local', 'z', k => 3, rho => 1, iterations => 8, variables => 5);
SET mrfdp.distributed_frank_wolfe = auto;
INSERT INTO fwkm SELECT 'auto fits', mrf_learn_pairwise_from('fwk', 'z', k => 3, rho => 1, iterations => 8, variables => 5);
RESET ROLE;
SET mrfdp.max_learner_memory = 1024;
SET ROLE fwk_analyst;
INSERT INTO fwkm SELECT 'auto big', mrf_learn_pairwise_from('fwk_big', 'z', k => 3, rho => 1, iterations => 8, variables => 5);
SET mrfdp.distributed_frank_wolfe = off;
SELECT throws_like($$SELECT mrf_learn_pairwise_from('fwk_big', 'z', k => 3, rho => 1, iterations => 8, variables => 5)$$,
	'%would need%of working memory%', 'off: rows that do not fit are refused');
RESET ROLE;
RESET mrfdp.max_learner_memory;
RESET mrfdp.distributed_frank_wolfe;
SELECT ok(fwk_same('auto fits', 'pw local') AND NOT fwk_dist('auto fits'), 'auto: rows that fit the coordinator are gathered, the same model');
SELECT ok(fwk_same('auto big', 'big local') AND fwk_dist('auto big'), 'auto: rows that do not fit are learned on the shards, the one-node model');
SELECT is(fwk_spent('fwk_big'), 2 * 1 * (1 + 1.0 / 128),
	'charged twice: the refused learn too, its read had begun (charge before reading)');

-- Refused where it must be.
SET ROLE fwk_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT throws_like($$SELECT mrf_learn_pairwise_from('fwk_small', 'z', k => 3, rho => 0.5, iterations => 8, variables => 5)$$,
	'%privacy budget of relation%', 'a budget too small is refused before the first iteration');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;
SELECT is(fwk_spent('fwk_small'), 0::numeric, 'and nothing is charged');
-- the sums are exact statistics: only the driver gets them
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_kary_scores_agg(z, '\x5446524d0200000005000000030000000000000000000000000000000000004001000000000000000000000000000000'::bytea, tableoid) FROM fwk$$,
	'%are called only by the mrf_learn_*_from functions%', 'the k-ary scores aggregate refuses a direct call on the coordinator');
CREATE FUNCTION fwk_combine(state text) RETURNS bytea LANGUAGE sql AS $$
	SELECT coord_combine_agg('mrfdp_internal.mrf_fw_kary_scores_agg(smallint[], bytea, oid)'::regprocedure, state::cstring, NULL::bytea)
$$;
SELECT throws_like($$SELECT fwk_combine((SELECT worker_partial_agg('mrfdp_internal.mrf_fw_kary_scores_agg(smallint[], bytea, oid)'::regprocedure,
		ROW(z, '\x5446524d0200000005000000030000000000000000000000000000000000004001000000000000000000000000000000'::bytea, tableoid)::record)::text FROM fwk_local))$$,
	'%are called only by the mrf_learn_*_from functions%', 'and a hand-made worker_partial_agg / coord_combine_agg');
SELECT ok((SELECT bool_and(NOT success AND result LIKE '%are called only by the mrf_learn_*_from functions%')
	FROM run_command_on_workers($$SELECT mrfdp_internal.mrf_fw_kary_scores_agg(ARRAY[0, 2]::smallint[], '\x5446524d0200000002000000030000000000000000000000000000000000004001000000000000000000000000000000'::bytea, 0::oid)$$)),
	'and a call on a worker');
-- a t-wise step through the binary aggregate: refused the same way
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_ising_scores_agg(b, '\x5446524d0300000006000000020000000300000000000000000000000000004001000000000000000000000000000000'::bytea, tableoid) FROM fwk$$,
	'%are called only by the mrf_learn_*_from functions%', 'a t-wise step is refused outside the driver too');
-- a forged step: a selection out of range, or alphabets on a binary design
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_kary_scores_agg(z, '\x5446524d0200000005000000030000000000000002000000000000000000004001000000000000000000000000000000ff00000001000000'::bytea, tableoid) FROM fwk_local$$,
	'%invalid mrfdp score state%', 'a forged step (its length does not match its iteration) is refused');
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_ising_scores_agg(b, '\x5446524d0100000006000000020000000000000000000000000000000000004001000000000000000100000000000000020202020202'::bytea, tableoid) FROM fwk_local$$,
	'%invalid mrfdp score state%', 'alphabets on a binary design are refused');
-- mrf_fw_kary_codes is callable by anyone with any jsonb: its domains and
-- nulls are checked as a learner's options are (a domain that was not an
-- array, e.g. true, was read as one and crashed the backend)
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_kary_codes(ROW('x', 'y', 'z')::fwk_t, 3, 0, '{"s1": true, "s2": ["x", "y"], "s3": ["x", "z"]}', NULL)$$,
	'%invalid value for option "domains"%', 'mrf_fw_kary_codes: a domain that is true is refused, the backend lives');
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_kary_codes(ROW('x', 'y', 'z')::fwk_t, 3, 0, '{"s1": 123456789, "s2": ["x", "y"], "s3": ["x", "z"]}', NULL)$$,
	'%invalid value for option "domains"%', 'mrf_fw_kary_codes: a domain that is a number is refused');
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_kary_codes(ROW('x', 'y', 'z')::fwk_t, 3, 0, '{"s1": {"a": 1, "b": 2}, "s2": ["x", "y"], "s3": ["x", "z"]}', NULL)$$,
	'%invalid value for option "domains"%', 'mrf_fw_kary_codes: a domain that is an object is refused');
SELECT throws_like($$SELECT mrfdp_internal.mrf_fw_kary_codes(ROW('x', 'y', 'z')::fwk_t, 3, 0, '{"s1": ["x"], "s2": ["x", "y"], "s3": ["x", "z"]}', NULL)$$,
	'%invalid value for option "domains"%', 'mrf_fw_kary_codes: a domain of one value is refused, as the learners refuse it');
SELECT is(mrfdp_internal.mrf_fw_kary_codes(ROW('x', 'y', NULL)::fwk_t, 3, 0, '{"s1": ["x", "y"], "s2": ["x", "y"], "s3": ["x", "z"]}', 'x'),
	'{0,1,0}'::smallint[], 'mrf_fw_kary_codes: checked domains and nulls read as before');
-- an anonymous ROW(...) has no declared types: a clear 0A000, not XX000
SELECT throws_ok($$SELECT mrfdp_internal.mrf_fw_kary_codes(ROW(1, 2), 2, 3, NULL, NULL)$$,
	'0A000', 'the protected path needs a declared row type', 'mrf_fw_kary_codes: an anonymous row is refused with 0A000');
SELECT throws_ok($$SELECT mrfdp_internal.mrf_fw_binary_codes(ROW(true, false), 2)$$,
	'0A000', 'the protected path needs a declared row type', 'mrf_fw_binary_codes too');
-- a forged step of 20,000 iterations (p = 128) replays every earlier
-- iteration's margins on a batch's rows: it must hear a cancel (it polled
-- only every 64 blocks, so a batch of 8,192 rows was deaf for about a minute)
CREATE TABLE fwk_deaf (b boolean[]);
INSERT INTO fwk_deaf SELECT ARRAY(SELECT (i::bigint * j * 7919) % 5 < 2 FROM generate_series(1, 128) j) FROM generate_series(1, 8193) i;
CREATE TABLE fwk_deaf_step AS SELECT decode('5446524d' || '01000000' || '80000000' || '00000000' || '00000000' || '204e0000' ||
		'000000000000f03f' || '0102030405060708' || '0000000000000000', 'hex')
		|| decode(repeat('00000000', 19999 * 128), 'hex') || decode(repeat('01000000', 19999 * 128), 'hex') AS s;
CREATE FUNCTION fwk_cancel_seconds() RETURNS float8 LANGUAGE plpgsql AS $f$
DECLARE
	started timestamptz := clock_timestamp();
BEGIN
	BEGIN
		PERFORM mrfdp_internal.mrf_fw_ising_scores_agg(b, (SELECT s FROM fwk_deaf_step), 1::oid) FROM fwk_deaf;
	EXCEPTION WHEN query_canceled THEN
		NULL;
	END;
	RETURN extract(epoch FROM clock_timestamp() - started);
END$f$;
SET statement_timeout = '1s';
SELECT cmp_ok(fwk_cancel_seconds(), '<', 10::float8, 'a forged step of 20,000 iterations hears statement_timeout');
RESET statement_timeout;
-- a table whose owner cannot log in: the owner-rights read connects to the
-- workers as the owner, so it failed after the charge on every learn
-- (distributed Frank-Wolfe and gathered rows alike); refused before it now
CREATE ROLE fwk_nologin_owner NOLOGIN;
CREATE TABLE fwk_nologin (LIKE fwk_local);
SELECT create_distributed_table('fwk_nologin', 'id');
INSERT INTO fwk_nologin SELECT * FROM fwk_local;
ALTER TABLE fwk_nologin OWNER TO fwk_nologin_owner;
SELECT mrfdp.protect('fwk_nologin', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('fwk_nologin', 'fwk_analyst');
SET ROLE fwk_analyst;
SELECT throws_like($$SELECT mrf_learn_pairwise_from('fwk_nologin', 'z', k => 3, rho => 0.5, variables => 5)$$,
	'%which cannot log in%', 'an owner that cannot log in is refused (distributed Frank-Wolfe)');
SELECT throws_like($$SELECT mrf_learn_mst_from('fwk_nologin', 'z', k => 3, rho => 0.5, variables => 5)$$,
	'%which cannot log in%', 'an owner that cannot log in is refused (gathered rows)');
RESET ROLE;
SELECT is(fwk_releases('fwk_nologin'), 0::bigint, 'and nothing is charged');
CREATE ROLE fwk_other;
SET ROLE fwk_other;
SET mrfdp.distributed_frank_wolfe = on;
SELECT throws_like($$SELECT mrf_learn_twise_from('fwk', 'b', t => 3, rho => 0.5, variables => 6)$$,
	'%permission denied%', 'a role without a learning grant is refused');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;

SELECT * FROM finish();
