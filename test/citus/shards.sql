-- server: citus
-- Issue 13: a shard stored on the coordinator (a reference table's local
-- replica, or a distributed table's shard once the coordinator holds
-- shards) read directly by name by a role with SELECT is charged to its
-- logical table, in public and in another schema.  Before, shards in
-- public were missed (shard_name() leaves them unqualified), so such a
-- release was neither charged nor recorded.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(6);

CREATE TABLE sh_ref (id int, row boolean[]);
SELECT create_reference_table('sh_ref');
INSERT INTO sh_ref SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 500) i;
SELECT mrfdp.protect('sh_ref', epsilon => 1000, delta => 1e-6);
CREATE SCHEMA sh_s;
CREATE TABLE sh_s.ref2 (id int, row boolean[]);
SELECT create_reference_table('sh_s.ref2');
INSERT INTO sh_s.ref2 SELECT i, ARRAY[i % 2 = 0, i % 7 = 0, i % 5 = 0] FROM generate_series(1, 500) i;
SELECT mrfdp.protect('sh_s.ref2', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 7;

-- The local replica of each reference table, by name (the coordinator holds one).
SELECT format('%s', shard_name('sh_ref'::regclass, shardid)) AS sh_ref_shard
	FROM pg_dist_shard WHERE logicalrelid = 'sh_ref'::regclass \gset
SELECT format('%s', shard_name('sh_s.ref2'::regclass, shardid)) AS sh_ref2_shard
	FROM pg_dist_shard WHERE logicalrelid = 'sh_s.ref2'::regclass \gset
SELECT ok(to_regclass(:'sh_ref_shard') IS NOT NULL, 'the reference table has a replica on the coordinator');

SELECT is((SELECT count(*) FROM (SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) AS m
	FROM :sh_ref_shard) x WHERE m IS NOT NULL), 1::bigint, 'a learner reading a public shard by name releases');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'sh_ref'::regclass), 0.125,
	'and is charged to its logical table');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'sh_ref'::regclass), 1::bigint,
	'with one ledger row');
SELECT is((SELECT count(*) FROM (SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) AS m
	FROM :sh_ref2_shard) x WHERE m IS NOT NULL), 1::bigint, 'a shard in another schema releases');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'sh_s.ref2'::regclass), 0.0625,
	'and is charged to its logical table');

SELECT * FROM finish();
