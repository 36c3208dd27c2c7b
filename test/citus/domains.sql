-- server: citus
-- Issue 13 items 1-2 with issue 11's per-variable alphabets: rows of columns
-- with declared domains (text, integers) and NULL policies, on distributed
-- and reference tables.  Rows of columns have no combinable sibling (one
-- per composite type would be needed), so Citus gathers them and the
-- coordinator reads them with the same reader as one node: every k-ary
-- learner, in every form, gives the local table's model under
-- mrfdp.test_seed, charged once on the coordinator; a value outside its
-- domain is 23514 naming the column on the aggregate path, and a
-- substituted row (counted, noisy) on the protected path.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(24);

CREATE TYPE dm_party AS ENUM ('d', 'r', 'i');
-- distributed by the text column (GROUP BY it is the distribution column)
CREATE TABLE dm (st text, sz int, party dm_party, flag boolean);
SELECT create_distributed_table('dm', 'st');
INSERT INTO dm
SELECT (ARRAY['CA', 'NY', 'TX'])[1 + i % 3], 1 + (i / 3) % 3,
	   (enum_range(NULL::dm_party))[1 + (i * 7) % 3],
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (i / 2) % 4 < (i % 3) END
FROM generate_series(1, 3000) i;
CREATE TABLE dm_local AS SELECT * FROM dm;
CREATE TABLE dm_ref AS SELECT * FROM dm;
SELECT create_reference_table('dm_ref');
-- out-of-domain values: 'WA' and 9 in each of 40 rows (the first bad column of a row is
-- named, whichever shard's rows arrive first)
CREATE TABLE dm_bad AS SELECT * FROM dm_local;
SELECT create_distributed_table('dm_bad', 'st');
INSERT INTO dm_bad SELECT 'WA', 9, 'd', i % 2 = 0
FROM generate_series(1, 40) i;
CREATE TABLE dm_bad_local AS SELECT * FROM dm_bad;
SELECT mrfdp.protect(t, epsilon => 1000, delta => 1e-6) FROM unnest(ARRAY['dm', 'dm_ref', 'dm_bad', 'dm_bad_local', 'dm_local']::regclass[]) t;
SELECT mrfdp.grant_learning(t, current_user::regrole) FROM unnest(ARRAY['dm', 'dm_ref', 'dm_bad', 'dm_bad_local', 'dm_local']::regclass[]) t;
SET mrfdp.test_seed = 23;
CREATE FUNCTION dm_spent(r regclass) RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = r$$;
CREATE FUNCTION dm_releases(r regclass) RETURNS bigint LANGUAGE sql
	AS $$SELECT releases FROM mrfdp.budget WHERE relation = r$$;
CREATE TEMP TABLE dmm (src text, m mrf);
-- a model without its timing metadata
CREATE FUNCTION dm_model(s text) RETURNS jsonb LANGUAGE sql
	AS $$SELECT (m::jsonb - 'meta') || jsonb_build_object('rows', m::jsonb -> 'meta' -> 'rows',
		'substituted', m::jsonb -> 'meta' -> 'substituted_rows', 'variables', m::jsonb -> 'meta' -> 'variables')
		FROM dmm WHERE src = s$$;

-- Named form, every k-ary learner: distributed, reference and local tables give one model.
CREATE FUNCTION dm_named(tab text, tag text) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($q$INSERT INTO dmm SELECT 'pairwise ' || %2$L, mrf_learn_pairwise(%1$I, rho => 0.1,
		domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category') FROM %1$I$q$, tab, tag);
	EXECUTE format($q$INSERT INTO dmm SELECT 'cliques ' || %2$L, mrf_learn_cliques(%1$I, epsilon => 0.5, cliques => '[[1, 2], [2, 3, 4]]',
		domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => '{"flag": {"value": "false"}}') FROM %1$I$q$, tab, tag);
	EXECUTE format($q$INSERT INTO dmm SELECT 'mst ' || %2$L, mrf_learn_mst(%1$I, rho => 0.1,
		domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => '{"*": "category"}') FROM %1$I$q$, tab, tag);
	EXECUTE format($q$INSERT INTO dmm SELECT 'structure ' || %2$L, mrf_learn_structure(%1$I, model => 'pairwise', method => 'threshold', rho => 0.1, eta => 0.1,
		domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category') FROM %1$I$q$, tab, tag);
	EXECUTE format($q$INSERT INTO dmm SELECT 'aim ' || %2$L, mrf_learn_aim(%1$I, rho => 0.1, workload => '[["st", "sz"], ["party", "flag"]]',
		domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category') FROM %1$I$q$, tab, tag);
END $f$;
SELECT dm_named('dm', 'dist');
SELECT dm_named('dm_ref', 'ref');
SELECT dm_named('dm_local', 'local');
SELECT is(dm_model(l || ' dist'), dm_model(l || ' local'), l || ': a distributed table with domains and nulls gives the local model')
	FROM unnest(ARRAY['pairwise', 'cliques', 'mst', 'structure', 'aim']) l;
SELECT is(dm_model(l || ' ref'), dm_model(l || ' local'), l || ': a reference table gives the local model')
	FROM unnest(ARRAY['pairwise', 'mst']) l;
SELECT ok(dm_model('mst dist') -> 'alphabets' = '[4, 4, 4, 3]'::jsonb AND (dm_model('mst dist') ->> 'rows')::int = 3000,
	'per-variable alphabets with the NULL category; every row once');
SELECT is(round(dm_spent('dm'), 9), 0.4, 'the zCDP learners charged their rho once each (cliques: pure epsilon)');
SELECT is(dm_releases('dm'), 5::bigint, 'five releases on the distributed table, each charged once');
SELECT is(dm_releases('dm_ref'), 5::bigint, 'and five on the reference table');

-- Aggregate form and GROUP BY: a plain column and the distribution column.
-- an anonymous row's columns are f1, f2, ... (ROW()'s names), also when Citus ships it as text
INSERT INTO dmm SELECT 'agg dist', mrf_learn_mst_agg(ROW(st, sz, flag), mrf_options(rho => 0.1,
	domains => '{"f1": ["CA", "NY", "TX"], "f2": [1, 2, 3]}', nulls => 'category')) FROM dm;
INSERT INTO dmm SELECT 'agg local', mrf_learn_mst_agg(ROW(st, sz, flag), mrf_options(rho => 0.1,
	domains => '{"f1": ["CA", "NY", "TX"], "f2": [1, 2, 3]}', nulls => 'category')) FROM dm_local;
SELECT is(dm_model('agg dist'), dm_model('agg local'), 'aggregate form over an anonymous row: the local model, names included');
INSERT INTO dmm SELECT 'gflag dist ' || flag, mrf_learn_pairwise_agg(dm, mrf_options(rho => 0.05,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category')) FROM dm GROUP BY flag;
INSERT INTO dmm SELECT 'gflag local ' || flag, mrf_learn_pairwise_agg(dm_local, mrf_options(rho => 0.05,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category')) FROM dm_local GROUP BY flag;
SELECT is((SELECT array_agg(dm_model(src) ORDER BY src) FROM dmm WHERE src LIKE 'gflag dist%'),
	(SELECT array_agg(dm_model(src) ORDER BY src) FROM dmm WHERE src LIKE 'gflag local%'),
	'GROUP BY a column (NULL group included): each group the local model');
INSERT INTO dmm SELECT 'gst dist ' || st, mrf_learn_cliques_agg(ROW(sz, party, flag), mrf_options(epsilon => 0.25, cliques => '[[1, 2], [2, 3]]',
	domains => '{"f1": [1, 2, 3]}', nulls => 'category')) FROM dm GROUP BY st;
INSERT INTO dmm SELECT 'gst local ' || st, mrf_learn_cliques_agg(ROW(sz, party, flag), mrf_options(epsilon => 0.25, cliques => '[[1, 2], [2, 3]]',
	domains => '{"f1": [1, 2, 3]}', nulls => 'category')) FROM dm_local GROUP BY st;
SELECT is((SELECT array_agg(dm_model(src) ORDER BY src) FROM dmm WHERE src LIKE 'gst dist%'),
	(SELECT array_agg(dm_model(src) ORDER BY src) FROM dmm WHERE src LIKE 'gst local%'),
	'GROUP BY the text distribution column: kept on the coordinator, each group the local model');
SELECT is(dm_releases('dm'), 5 + 1 + 3 + 3::bigint, 'one charge per group');

-- Out of the domain on the aggregate path: 23514 naming the column, nothing charged.
SELECT throws_ok($$SELECT mrf_learn_mst(dm_bad, rho => 0.1, domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category') FROM dm_bad$$,
	'23514', 'mrf_learn_mst: column "st" has a value outside its declared domain',
	'a value outside its domain on a distributed table: 23514 naming the column');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(ROW(sz, flag), mrf_options(rho => 0.1, domains => '{"f1": [1, 2, 3]}', nulls => 'category')) FROM dm_bad$$,
	'23514', 'mrf_learn_aim: column "f1" has a value outside its declared domain',
	'and for an anonymous row (AIM)');
SELECT is(dm_releases('dm_bad'), 0::bigint, 'refusals charge nothing');

-- The protected path: the same model as the local table's, substituted rows counted.
INSERT INTO dmm SELECT 'from dist', mrf_learn_mst_from('dm_bad', NULL, rho => 0.1,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category');
INSERT INTO dmm SELECT 'from local', mrf_learn_mst_from('dm_bad_local', NULL, rho => 0.1,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category');
SELECT is(dm_model('from dist'), dm_model('from local'), '_from with out-of-domain rows: the local model and noisy count');
SELECT ok((dm_model('from dist') -> 'substituted' ->> 'noisy_count')::numeric BETWEEN 40 - 100 AND 40 + 100,
	'the 40 substituted rows are counted (noisy)');
INSERT INTO dmm SELECT 'from pw dist', mrf_learn_pairwise_from('dm', NULL, rho => 0.1,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => '{"flag": {"value": "true"}}');
INSERT INTO dmm SELECT 'from pw local', mrf_learn_pairwise_from('dm_local', NULL, rho => 0.1,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => '{"flag": {"value": "true"}}');
SELECT is(dm_model('from pw dist'), dm_model('from pw local'), '_from, pairwise with a NULL value: the local model');
INSERT INTO dmm SELECT 'from aim ref', mrf_learn_aim_from('dm_ref', NULL, rho => 0.1,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category');
INSERT INTO dmm SELECT 'from aim local', mrf_learn_aim_from('dm_local', NULL, rho => 0.1,
	domains => '{"st": ["CA", "NY", "TX"], "sz": [1, 2, 3]}', nulls => 'category');
SELECT is(dm_model('from aim ref'), dm_model('from aim local'),
	'_from on a reference table (its replica read on the coordinator), AIM: the local model');
SELECT is((dm_model('from aim ref') -> 'substituted' ->> 'noisy_count')::numeric, (dm_model('from aim local') -> 'substituted' ->> 'noisy_count')::numeric,
	'and no row is substituted for having the shard''s row type');
SELECT is(ARRAY[dm_releases('dm_bad'), dm_releases('dm'), dm_releases('dm_ref')], ARRAY[1, 13, 6]::bigint[],
	'each protected-path release charged once to its logical table');

SELECT * FROM finish();
