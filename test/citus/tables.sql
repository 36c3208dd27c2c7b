-- server: citus
-- Issue 24 items 2-3 on Citus: alphabets from CHECK constraints and public
-- bins give the local table's model under mrfdp.test_seed: the named form
-- (rows gathered to the coordinator), the protected path (gathered rows),
-- and distributed Frank-Wolfe (the workers' readers get the bins with the
-- domains and read the CHECKs of the table's row type).
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(11);

CREATE TABLE tb (score smallint CHECK (score BETWEEN 1 AND 4), age int, income numeric, seen date);
SELECT create_distributed_table('tb', 'score');
INSERT INTO tb
SELECT 1 + i % 4, 18 + (i * 7) % 60, ((i * 7) % 60) * 1000 + i % 100, date '2020-01-01' + (i % 4) * 100 + i % 30
FROM generate_series(1, 3000) i;
CREATE TABLE tb_local (LIKE tb INCLUDING CONSTRAINTS);
INSERT INTO tb_local SELECT * FROM tb;
SELECT mrfdp.protect(t, epsilon => 1000, delta => 1e-6) FROM unnest(ARRAY['tb', 'tb_local']::regclass[]) t;
SELECT mrfdp.grant_learning(t, current_user::regrole) FROM unnest(ARRAY['tb', 'tb_local']::regclass[]) t;
SET mrfdp.test_seed = 24;
CREATE TEMP TABLE tbm (src text, m mrf);
CREATE FUNCTION tb_model(s text) RETURNS jsonb LANGUAGE sql
	AS $$SELECT (m::jsonb - 'meta') || jsonb_build_object('rows', m::jsonb -> 'meta' -> 'rows',
		'variables', m::jsonb -> 'meta' -> 'variables') FROM tbm WHERE src = s$$;

INSERT INTO tbm SELECT 'mst dist', mrf_learn_mst(tb, rho => 0.5,
	bins => '{"age": [30, 50], "income": {"min": 0, "max": 60000, "width": 20000}, "seen": ["2020-04-01", "2020-10-01"]}') FROM tb;
INSERT INTO tbm SELECT 'mst local', mrf_learn_mst(tb_local, rho => 0.5,
	bins => '{"age": [30, 50], "income": {"min": 0, "max": 60000, "width": 20000}, "seen": ["2020-04-01", "2020-10-01"]}') FROM tb_local;
SELECT is(tb_model('mst dist'), tb_model('mst local'), 'named form: a CHECK alphabet and bins give the local model');
SELECT is(tb_model('mst dist') -> 'alphabets', '[4, 3, 5, 3]'::jsonb, 'the CHECK''s 4 values and the bins');

INSERT INTO tbm SELECT 'from dist', mrf_learn_mst_from('tb', NULL, rho => 0.5,
	bins => '{"age": [30, 50], "income": {"min": 0, "max": 60000, "width": 20000}, "seen": ["2020-04-01", "2020-10-01"]}');
INSERT INTO tbm SELECT 'from local', mrf_learn_mst_from('tb_local', NULL, rho => 0.5,
	bins => '{"age": [30, 50], "income": {"min": 0, "max": 60000, "width": 20000}, "seen": ["2020-04-01", "2020-10-01"]}');
SELECT is(tb_model('from dist'), tb_model('from local'), 'protected path (gathered): the local model');

SET mrfdp.distributed_frank_wolfe = on;
INSERT INTO tbm SELECT 'fw dist', mrf_learn_pairwise_from('tb', NULL, rho => 0.5, iterations => 20,
	bins => '{"age": [30, 50], "income": {"min": 0, "max": 60000, "width": 20000}, "seen": ["2020-04-01", "2020-10-01"]}');
SET mrfdp.distributed_frank_wolfe = auto;
INSERT INTO tbm SELECT 'fw local', mrf_learn_pairwise_from('tb_local', NULL, rho => 0.5, iterations => 20,
	bins => '{"age": [30, 50], "income": {"min": 0, "max": 60000, "width": 20000}, "seen": ["2020-04-01", "2020-10-01"]}');
SELECT is(tb_model('fw dist'), tb_model('fw local'), 'distributed Frank-Wolfe with bins and a CHECK: the local model');
SELECT is((SELECT m::jsonb -> 'meta' ->> 'distributed' FROM tbm WHERE src = 'fw dist'), 'frank-wolfe score sums from the shards',
	'the score sums came from the shards (the workers read the bins and the CHECK)');

SELECT throws_ok($$SELECT mrf_learn_mst_from('tb', NULL, rho => 0.5, bins => '{"age": [30, 50], "income": [1], "seen": [1]}')$$,
	'22023', NULL, 'bad bins are refused before the charge');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'tb'::regclass), 3::bigint,
	'three releases of tb (the named form reads it too), each charged once; the refusal charged nothing');
SELECT is((SELECT count(*) FROM mrf_synthesize((SELECT m FROM tbm WHERE src = 'from dist'), 500, NULL::tb, seed => 1)
		   WHERE score NOT BETWEEN 1 AND 4 ), 0::bigint,
	'synthetic rows of the distributed table''s type keep the CHECK') ;

-- option columns: the gathered read ships only those columns; the local model
CREATE TABLE tc (id int, note text, sick boolean, ward text CHECK (ward IN ('a', 'b', 'c')), age int);
SELECT create_distributed_table('tc', 'id');
INSERT INTO tc SELECT i, 'SECRET ' || i, i % 3 = 0, (ARRAY['a', 'b', 'c'])[1 + i % 3], 20 + i % 60 FROM generate_series(1, 3000) i;
CREATE TABLE tc_local AS SELECT * FROM tc;
ALTER TABLE tc_local ADD CHECK (ward IN ('a', 'b', 'c'));
SELECT mrfdp.protect(t, epsilon => 1000, delta => 1e-6) FROM unnest(ARRAY['tc', 'tc_local']::regclass[]) t;
SELECT mrfdp.grant_learning(t, current_user::regrole) FROM unnest(ARRAY['tc', 'tc_local']::regclass[]) t;
INSERT INTO tbm SELECT 'cols dist', mrf_learn_mst_from('tc', NULL, rho => 0.5, columns => ARRAY['ward', 'sick', 'age'], bins => '{"age": [40, 60]}');
INSERT INTO tbm SELECT 'cols local', mrf_learn_mst_from('tc_local', NULL, rho => 0.5, columns => ARRAY['ward', 'sick', 'age'], bins => '{"age": [40, 60]}');
SELECT is(tb_model('cols dist') - 'variables', tb_model('cols local') - 'variables', 'option columns on a distributed table: the local model');
SET mrfdp.distributed_frank_wolfe = on;
INSERT INTO tbm SELECT 'cols fw', mrf_learn_pairwise_from('tc', NULL, rho => 0.5, iterations => 10, columns => ARRAY['ward', 'sick']);
SET mrfdp.distributed_frank_wolfe = auto;
INSERT INTO tbm SELECT 'cols fw local', mrf_learn_pairwise_from('tc_local', NULL, rho => 0.5, iterations => 10, columns => ARRAY['ward', 'sick']);
SELECT is(tb_model('cols fw'), tb_model('cols fw local'), 'with columns, pairwise reads the gathered columns (no shard route): the local model');
SELECT is((SELECT m::jsonb -> 'meta' -> 'source' FROM tbm WHERE src = 'cols dist'),
	'{"columns": ["ward", "sick", "age"], "relation": "public.tc"}'::jsonb, 'the source names the distributed table and the columns');

SELECT * FROM finish();
DROP TABLE tb, tb_local, tc, tc_local;
