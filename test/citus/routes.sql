-- server: citus
-- Issue 13: every route by which Citus can run a learner, on a real cluster
-- (coordinator + two workers, test/citus/run_citus_tests.sh).  Each release
-- must be charged to the logical relation's budget on the coordinator, or
-- refused with nothing released.  No transaction around the file: the
-- charge worker and the workers must see the committed tables and budgets.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(49);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TABLE c13 (id int, g int, row boolean[], kr int[]);
SELECT create_distributed_table('c13', 'id');
INSERT INTO c13
SELECT i, i % 3,
	ARRAY[(i * 7) % 5 < 2, (i * 11) % 7 < 3, (i * 13) % 3 = 0, (i * 17) % 11 < 5],
	ARRAY[i % 3, (i / 3) % 3, (i / 7) % 3]
FROM generate_series(1, 2000) i;
CREATE TABLE c13_local AS SELECT * FROM c13;
CREATE TABLE c13_ref (id int, row boolean[]);
SELECT create_reference_table('c13_ref');
INSERT INTO c13_ref SELECT id, row FROM c13;
CREATE TABLE c13_small (id int, row boolean[]);
SELECT create_distributed_table('c13_small', 'id');
INSERT INTO c13_small SELECT id, row FROM c13;
SELECT mrfdp.protect('c13', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('c13_ref', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('c13_small', epsilon => 1000, delta => 1e-6, rho_cap => 0.125);
CREATE ROLE c13_analyst;
SELECT mrfdp.grant_learning('c13', 'c13_analyst');
SELECT mrfdp.grant_learning('c13_ref', 'c13_analyst');
GRANT USAGE ON SCHEMA mrfdp TO c13_analyst;
SET mrfdp.test_seed = 13;

CREATE TEMP TABLE models (src text, m mrf);

-- Every learner form on a distributed table, charged on the coordinator.
SELECT lives_ok($$INSERT INTO models SELECT 'named', mrf_learn_ising(row, rho => 0.125) FROM c13$$,
	'the named form learns from a distributed table');
SELECT is((SELECT count(m)::int FROM models WHERE src = 'named'), 1, 'the named form released one model');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 0.125,
	'the named form is charged to the logical table on the coordinator');

SELECT lives_ok($$INSERT INTO models SELECT 'dist', mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM c13$$,
	'the aggregate form learns from a distributed table (options arrive as a column)');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 0.25,
	'the aggregate form is charged');

SELECT lives_ok($$INSERT INTO models SELECT 'group by id', mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM c13 WHERE id <= 4 GROUP BY id$$,
	'GROUP BY the distribution column learns');
SELECT is((SELECT count(m)::int FROM models WHERE src = 'group by id'), 4, 'GROUP BY the distribution column released four models');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 0.5,
	'GROUP BY the distribution column: each of the four releases is charged on the coordinator');

SELECT lives_ok($$INSERT INTO models SELECT 'group by g', mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM c13 GROUP BY g$$,
	'GROUP BY another column learns');
SELECT is((SELECT count(m)::int FROM models WHERE src = 'group by g'), 3, 'GROUP BY another column released three models');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 0.6875,
	'GROUP BY another column: three charges');

SELECT lives_ok($$INSERT INTO models SELECT 'id = 17', mrf_learn_ising(row, rho => 0.125) FROM c13 WHERE id = 17$$,
	'a single-shard query (WHERE id = 17) learns');
SELECT is((SELECT count(m)::int FROM models WHERE src = 'id = 17'), 1, 'the single-shard query released one model');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 0.8125,
	'the single-shard query is charged on the coordinator');

SELECT lives_ok($$INSERT INTO models SELECT 'window', mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) OVER (PARTITION BY id) FROM c13 WHERE id <= 2$$,
	'a window aggregate partitioned by the distribution column learns');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 0.9375,
	'the window aggregate: one charge per partition');

SELECT lives_ok($$INSERT INTO models SELECT 'twise', mrf_learn_twise(row, rho => 0.0625, t => 2) FROM c13$$,
	'the t-wise learner learns from a distributed table');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 1.0,
	'the t-wise learner is charged');

SELECT lives_ok($$INSERT INTO models SELECT 'pairwise', mrf_learn_pairwise(kr, rho => 0.0625, k => 3) FROM c13$$,
	'the pairwise learner learns from a distributed table');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 1.0625,
	'the pairwise learner is charged');

SELECT lives_ok($$INSERT INTO models SELECT 'cliques', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3]]') FROM c13$$,
	'the clique learner learns from a distributed table');
SELECT is((SELECT (count(m), min(spent_pure_epsilon)::float8)::text FROM models, mrfdp.budget
	WHERE src = 'cliques' AND relation = 'c13'::regclass), '(1,0.5)',
	'the clique learner released one model and is charged its epsilon');

SELECT lives_ok($$INSERT INTO models SELECT 'structure', mrf_learn_structure(row, epsilon => 1, delta => 1e-7, eta => 0.5) FROM c13$$,
	'the structure learner learns from a distributed table');
SELECT is((SELECT spent_approx_epsilon FROM mrfdp.budget WHERE relation = 'c13'::regclass), 1::numeric,
	'the structure learner is charged its (epsilon, delta)');

-- Options that differ between rows are still refused, and charge nothing.
SELECT throws_like($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => CASE WHEN id = 1000 THEN 0.25 ELSE 0.125 END)) FROM c13$$,
	'%needs the same options for every row%',
	'options that differ from row to row are refused on a distributed table');
SELECT throws_like($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => g * 0 + 0.125)) FROM c13$$,
	'%needs the same options for every row%',
	'options computed from a column are refused on a distributed table even when every row''s are equal');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 1.0625,
	'the refused statements charged nothing');

-- The same rows give the same model on one node and on the cluster.
INSERT INTO models SELECT 'local', mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM c13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM models WHERE src = 'dist'),
	(SELECT m::jsonb - 'meta' FROM models WHERE src = 'local'),
	'under a test seed, the distributed model equals the local table''s (weights and fields)');

-- A query sent to a worker directly: refused, on the logical table and on a shard.
SELECT throws_like(format($$SELECT * FROM dblink('host=localhost port=%s dbname=citus_tap user=postgres',
	'SELECT mrf_learn_ising(row, rho => 5)::text FROM c13') AS t(m text)$$,
	(SELECT min(nodeport) FROM pg_dist_node WHERE groupid > 0)),
	'%cannot release a model on a Citus worker%',
	'a query sent directly to a worker cannot release from the distributed table');
SELECT throws_like(format($$SELECT * FROM dblink('host=localhost port=%s dbname=citus_tap user=postgres',
	'SELECT mrf_learn_ising_agg(row, mrf_options(rho => 5))::text FROM %s') AS t(m text)$$,
	n.nodeport, shard_name('c13'::regclass, s.shardid)),
	'%cannot release a model on a Citus worker%',
	'a query sent directly to a worker cannot release from a shard it holds')
FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid)
WHERE s.logicalrelid = 'c13'::regclass AND n.groupid > 0
ORDER BY s.shardid LIMIT 1;
SELECT is((SELECT count(*) FROM run_command_on_workers($$SELECT mrf_learn_ising(row, rho => 5) FROM c13$$)
	WHERE NOT success AND result LIKE '%cannot release a model%'), 2::bigint,
	'run_command_on_workers cannot release a model on either worker');
SELECT is((SELECT count(*) FROM run_command_on_workers($$SELECT mrf_learn_ising(row, rho => 5)
	FROM (VALUES (ARRAY[true, false]), (ARRAY[false, true])) v(row)$$)
	WHERE NOT success AND result LIKE '%cannot release a model%'), 2::bigint,
	'a worker releases nothing at all, even from constants');
SELECT is((SELECT string_agg(result, ',') FROM run_command_on_workers($$SELECT count(*) FROM mrfdp.ledger$$)),
	'0,0', 'no release was recorded in a worker''s own ledger');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 1.0625,
	'the refused worker queries charged nothing on the coordinator');

-- Reference tables, in every form.
SELECT lives_ok($$INSERT INTO models SELECT 'ref named', mrf_learn_ising(row, rho => 0.125) FROM c13_ref$$,
	'the named form learns from a reference table');
SELECT lives_ok($$INSERT INTO models SELECT 'ref agg', mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM c13_ref$$,
	'the aggregate form learns from a reference table');
SELECT lives_ok($$INSERT INTO models SELECT 'ref group by', mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM c13_ref WHERE id <= 2 GROUP BY id$$,
	'GROUP BY learns from a reference table');
SELECT is((SELECT string_agg(n::text, ',' ORDER BY src) FROM
	(SELECT src, count(m) AS n FROM models WHERE src LIKE 'ref%' GROUP BY src) x), '1,2,1',
	'the reference table released four models');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13_ref'::regclass), 0.375,
	'every release from the reference table is charged on the coordinator');

-- The protected path on distributed and reference tables.
SET ROLE c13_analyst;
SELECT lives_ok($$SELECT mrf_learn_ising_from('c13', 'row', rho => 0.125, variables => 4)$$,
	'_from learns from a distributed table');
SELECT lives_ok($$SELECT mrf_learn_ising_from('c13_ref', 'row', rho => 0.125, variables => 4)$$,
	'_from learns from a reference table');
SELECT throws_like($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM c13$$,
	'%permission denied%', 'the analyst cannot read the distributed table');
RESET ROLE;
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13'::regclass), 1.1884765625,
	'_from on the distributed table is charged (1 + 1/128) rho');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13_ref'::regclass), 0.5009765625,
	'_from on the reference table is charged (1 + 1/128) rho');

-- A budget that fits two of four grouped releases: two are charged, then the statement fails.
SELECT throws_like($$SELECT id, mrf_learn_ising_agg(row, mrf_options(rho => 0.0625))::text FROM c13_small WHERE id <= 4 GROUP BY id$$,
	'%privacy budget of relation%',
	'GROUP BY over a budget that fits two of four releases fails');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'c13_small'::regclass), 0.125,
	'exactly the releases that fit were charged, none beyond the cap');
SELECT throws_like($$SELECT mrf_learn_ising(row, rho => 0.0625) FROM c13_small WHERE id = 17$$,
	'%privacy budget of relation%',
	'a single-shard query on the exhausted budget is refused');
SELECT throws_like(format($$SELECT * FROM dblink('host=localhost port=%s dbname=citus_tap user=postgres',
	'SELECT mrf_learn_ising(row, rho => 5)::text FROM c13_small') AS t(m text)$$,
	(SELECT max(nodeport) FROM pg_dist_node WHERE groupid > 0)),
	'%cannot release a model on a Citus worker%',
	'the exhausted budget cannot be bypassed on a worker');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation_name LIKE '%c13%' AND relation_name ~ '_[0-9]+$'), 0::bigint,
	'the coordinator''s ledger names logical tables, never shards');

SELECT * FROM finish();
