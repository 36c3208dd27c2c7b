-- server: citus
-- Issue 13 (attack review): the planner's options check also covers learner
-- aggregates called with ORDER BY (their sort keys follow the two arguments)
-- and learners used as window functions.  Options computed from the rows
-- were accepted there before (every row's were equal, so the per-row
-- comparison passed) and the charge then depended on the data.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(6);

CREATE TABLE oo13 (id int, row boolean[]);
SELECT create_distributed_table('oo13', 'id');
INSERT INTO oo13 SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 400) i;
SELECT mrfdp.protect('oo13', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 7;
CREATE FUNCTION oo13_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'oo13'::regclass$$;

SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => id * 0 + 0.125) ORDER BY id) FROM oo13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'an ordered learner call with options computed from the rows is refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => id * 0 + 0.0625)) OVER () FROM oo13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'a learner window call with options computed from the rows is refused');
SELECT is(oo13_spent(), 0::numeric, 'the refused calls charged nothing');
SELECT is((SELECT count(*) FROM (SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.125) ORDER BY id) AS m
	FROM oo13) x WHERE m IS NOT NULL), 1::bigint, 'an ordered call with constant options learns');
SELECT is(oo13_spent(), 0.125, 'and is charged once');
SELECT is((SELECT count(DISTINCT m::text) FROM (SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) OVER () AS m
	FROM oo13) x), 1::bigint, 'a window call with constant options learns one model');

SELECT * FROM finish();
