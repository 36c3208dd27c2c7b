-- server: citus
-- Issue 13, item 2: on a Citus table the learners' aggregates ship packed
-- rows (a state Citus combines: worker_partial_agg / coord_combine_agg), the
-- model is the one a local table gives, the charge is the same, and a state
-- that arrives in text form is checked before any use.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(23);

CREATE TABLE s13 (id int, g int, row boolean[], kr int[], sr smallint[], b bit(5));
SELECT create_distributed_table('s13', 'id');
INSERT INTO s13
SELECT i, i % 3,
	ARRAY[(i * 7) % 5 < 2, (i * 11) % 7 < 3, (i * 13) % 3 = 0, (i * 17) % 11 < 5, (i * 19) % 13 < 4],
	ARRAY[i % 3, (i / 3) % 3, (i / 7) % 3, (i * 5) % 3],
	ARRAY[CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END, CASE WHEN i % 5 < 2 THEN -1 ELSE 1 END,
		CASE WHEN (i / 3) % 2 = 0 THEN -1 ELSE 1 END]::smallint[],
	((i * 7) % 32)::bit(5)
FROM generate_series(1, 3000) i;
CREATE TABLE s13_local AS SELECT * FROM s13;
SELECT mrfdp.protect('s13', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 31;

CREATE FUNCTION s13_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
	t text := '';
BEGIN
	FOR r IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		t := t || r || E'\n';
	END LOOP;
	RETURN t;
END$$;
CREATE FUNCTION s13_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 's13'::regclass$$;
CREATE TEMP TABLE m13 (src text, m mrf);

-- The plan: workers pack (worker_partial_agg), the coordinator combines.
SELECT ok(s13_plan($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM s13$$)
	~ 'worker_partial_agg.*mrf_learn_ising_citus_agg',
	'the aggregate form runs worker_partial_agg of the combinable learner on the workers');
SELECT ok(s13_plan($$SELECT mrf_learn_ising(row, rho => 0.125) FROM s13$$) ~ 'coord_combine_agg',
	'the named form combines packed states on the coordinator');
SELECT ok(s13_plan($$SELECT id, mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM s13 WHERE id < 4 GROUP BY id$$)
	~ 'worker_partial_agg',
	'GROUP BY the distribution column packs on the workers and learns on the coordinator');
SELECT ok(s13_plan($$SELECT mrf_learn_ising(row, rho => 0.125) FROM s13 WHERE id = 17$$) ~ 'coord_combine_agg',
	'a single-shard query also learns on the coordinator');
SELECT ok(s13_plan($$SELECT mrf_learn_ising(row, rho => 0.125) FROM s13_local$$) !~ 'citus_agg',
	'a local table keeps the internal-state aggregate');

-- Same models as the local table (test seed), for binary and k-ary learners and every sample type.
INSERT INTO m13 SELECT 'ising dist', mrf_learn_ising(row, rho => 0.125) FROM s13;
INSERT INTO m13 SELECT 'ising local', mrf_learn_ising(row, rho => 0.125) FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'ising dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'ising local'),
	'Ising from packed boolean[] rows equals the local model');
SELECT is(s13_spent(), 0.125, 'and is charged once, on the coordinator');
INSERT INTO m13 SELECT 'ising smallint dist', mrf_learn_ising(sr, rho => 0.125) FROM s13;
INSERT INTO m13 SELECT 'ising smallint local', mrf_learn_ising(sr, rho => 0.125) FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'ising smallint dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'ising smallint local'),
	'Ising from packed smallint[] rows equals the local model');
INSERT INTO m13 SELECT 'ising bit dist', mrf_learn_ising(b, rho => 0.125) FROM s13;
INSERT INTO m13 SELECT 'ising bit local', mrf_learn_ising(b, rho => 0.125) FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'ising bit dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'ising bit local'),
	'Ising from packed bit(5) rows equals the local model');
INSERT INTO m13 SELECT 'pairwise dist', mrf_learn_pairwise(kr, rho => 0.125, k => 3) FROM s13;
INSERT INTO m13 SELECT 'pairwise local', mrf_learn_pairwise(kr, rho => 0.125, k => 3) FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'pairwise dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'pairwise local'),
	'pairwise from packed k-ary rows equals the local model');
INSERT INTO m13 SELECT 'cliques dist', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3]]') FROM s13;
INSERT INTO m13 SELECT 'cliques local', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3]]') FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'cliques dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'cliques local'),
	'cliques from packed k-ary rows equal the local model');
INSERT INTO m13 SELECT 'mst dist', mrf_learn_mst(kr, rho => 0.125, k => 3) FROM s13;
INSERT INTO m13 SELECT 'mst local', mrf_learn_mst(kr, rho => 0.125, k => 3) FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'mst dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'mst local'),
	'MST from k-ary rows (counted on the workers) equals the local model');
INSERT INTO m13 SELECT 'twise dist', mrf_learn_twise(row, rho => 0.125, t => 2) FROM s13;
INSERT INTO m13 SELECT 'twise local', mrf_learn_twise(row, rho => 0.125, t => 2) FROM s13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'twise dist'),
	(SELECT m::jsonb - 'meta' FROM m13 WHERE src = 'twise local'),
	't-wise from packed rows equals the local model');
SELECT is(s13_spent(), 0.75, 'each distributed release was charged once');

-- GROUP BY: one model per group, charged per group.
INSERT INTO m13 SELECT 'group', mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM s13 GROUP BY g;
SELECT is((SELECT count(m) FROM m13 WHERE src = 'group'), 3::bigint, 'GROUP BY g released three models');
SELECT is(s13_spent(), 0.9375, 'three charges');

-- Rows or states that disagree on the options or the width: refused, nothing charged.
SELECT throws_like($$SELECT mrfdp_internal.mrf_learn_ising_citus_agg(row, CASE WHEN id = 7 THEN mrf_options(rho => 0.25) ELSE mrf_options(rho => 0.125) END) FROM s13_local$$,
	'%needs the same options for every row%', 'an options expression that is not a constant is refused by the combinable aggregate');
SELECT throws_like($$SELECT mrfdp_internal.mrf_learn_ising_citus_agg(row, o) FROM (SELECT row, CASE WHEN id = 7 THEN mrf_options(rho => 0.25) ELSE mrf_options(rho => 0.125) END AS o FROM s13_local OFFSET 0) x$$,
	'%needs the same options for every row%', 'options from a column that differ between rows are refused by the combinable aggregate');
SELECT throws_like($$SELECT mrf_learn_ising(CASE WHEN id = 7 THEN ARRAY[true] ELSE row END, rho => 0.125) FROM s13$$,
	'%same number of variables%', 'a sample of another width is refused');
SELECT is(s13_spent(), 0.9375, 'the refused statements charged nothing');

-- A state in text form is checked before use (coord_combine_agg lets anyone pass one).
SELECT throws_like($$SELECT coord_combine_agg('mrfdp_internal.mrf_learn_ising_citus_agg(boolean[], jsonb)'::regprocedure, '\x0102'::cstring, NULL::mrf)$$,
	'%invalid mrfdp aggregate state%', 'a truncated state is refused');
SELECT throws_like(format($$SELECT coord_combine_agg('mrfdp_internal.mrf_learn_pairwise_citus_agg(integer[], jsonb)'::regprocedure, %L::cstring, NULL::mrf)$$,
	'\x5346524d' || '02000000' || '02000000' || '03000000'
	|| '0100000000000000' || '0e000000' || encode(convert_to('{"rho": 0.125}', 'UTF8'), 'hex') || '0109'),
	'%invalid mrfdp aggregate state%', 'a k-ary state holding a value outside its alphabet is refused');
SELECT throws_like($$SELECT mrfdp_internal.mrf_learn_ising_citus_final('\x00'::bytea)$$,
	'%non-aggregate context%', 'the final function cannot be called directly');

SELECT * FROM finish();
