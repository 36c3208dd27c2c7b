-- server: citus
-- Issue 13 (attack review, the gap left by options_ordered.sql): options
-- whose value depends on the data but is equal in every row passed the
-- planner's options check on a distributed or reference table when they
-- reached the learner through an IMMUTABLE function that reads a table
-- (folded to a constant by the planner) or as a column of a subquery over
-- the distributed table (the check looked only at query levels that read a
-- Citus table themselves).  The charge then depended on the rows.  Every
-- learner call's options, at every level, are now checked before constant
-- folding (src/pg/sqlapi/options_check.c).  Also: EXECUTE on the packed-state
-- transition stays granted to PUBLIC because Citus's worker_partial_agg
-- checks it for the calling role (shown below).
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(17);

CREATE TABLE od13 (id int, row boolean[]);
SELECT create_distributed_table('od13', 'id');
INSERT INTO od13 SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 400) i;
CREATE TABLE od13_ref (id int, row boolean[]);
SELECT create_reference_table('od13_ref');
INSERT INTO od13_ref SELECT * FROM od13;
SELECT mrfdp.protect('od13', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('od13_ref', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 7;
CREATE FUNCTION od13_spent(rel regclass) RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = rel$$;
-- An IMMUTABLE function that reads the table: the planner folds it to a constant.
CREATE FUNCTION od13_rho() RETURNS float8 IMMUTABLE LANGUAGE sql
	AS $$SELECT count(*)::float8 / 3200 FROM od13$$;

SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => od13_rho())) FROM od13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options through an IMMUTABLE function reading the table are refused on a distributed table');
SELECT throws_ok($$SELECT mrf_learn_ising(row, rho => od13_rho()) FROM od13_ref$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'and on a reference table (named form)');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x.row, x.o) FROM
	(SELECT row, (SELECT mrf_options(rho => count(*) / 3200.0) FROM od13_ref) AS o FROM od13) x$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options from a column of a subquery over the distributed table are refused');
SELECT throws_ok($$WITH c AS (SELECT row, (SELECT mrf_options(rho => count(*) / 3200.0) FROM od13) AS o FROM od13_ref)
	SELECT mrf_learn_ising_agg(c.row, c.o) FROM c$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options from a CTE column over the tables are refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x.row, x.o) OVER () FROM
	(SELECT row, (SELECT mrf_options(rho => count(*) / 6400.0) FROM od13_ref) AS o FROM od13) x$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'a window call with such options is refused');
SELECT is(od13_spent('od13'), 0::numeric, 'the refused statements charged nothing to the distributed table');
SELECT is(od13_spent('od13_ref'), 0::numeric, 'nor to the reference table');

-- Constants and parameters learn as before, and are charged.
SELECT ok((SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM od13) IS NOT NULL,
	'constant options learn on a distributed table');
PREPARE od13_p(float8) AS SELECT mrf_learn_ising(row, rho => $1) FROM od13_ref;
SELECT lives_ok('EXECUTE od13_p(0.0625)', 'options from a query parameter learn on a reference table');
SELECT is(od13_spent('od13') + od13_spent('od13_ref'), 0.125, 'both releases were charged');

-- Citus's split-aggregate steps called by hand: worker_partial_agg packs
-- rows with the options of its ROW(sample, options), coord_combine_agg then
-- releases from that state and charges what its options say.  Options
-- computed from the rows passed there (the check saw no learner call).
CREATE TABLE od13_plain AS SELECT * FROM od13;
SELECT mrfdp.protect('od13_plain', epsilon => 1000, delta => 1e-6);
SELECT throws_ok($$SELECT coord_combine_agg('mrfdp_internal.mrf_learn_ising_citus_agg(boolean[],jsonb)'::regprocedure, s::cstring, NULL::mrf)
	FROM (SELECT worker_partial_agg('mrfdp_internal.mrf_learn_ising_citus_agg(boolean[],jsonb)'::regprocedure,
		ROW(row, mrf_options(rho => (SELECT count(*) FROM od13_plain) / 3200.0))::record) s FROM od13_plain) x$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'worker_partial_agg of a learner with options computed from the rows is refused');
SELECT throws_ok($$SELECT coord_combine_agg('mrfdp_internal.mrf_learn_ising_citus_agg(boolean[],jsonb)'::regprocedure, s::cstring, NULL::mrf)
	FROM (SELECT worker_partial_agg('mrfdp_internal.mrf_learn_ising_citus_agg(boolean[],jsonb)'::regprocedure,
		ROW(row, mrf_options(rho => 0.125))::record)::text s FROM od13_plain) x$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'coord_combine_agg of a learner on a state computed in the query is refused');
SELECT is(od13_spent('od13_plain'), 0::numeric, 'neither charged anything');

-- Where Citus gathers rows (enum arrays, rows of columns: the internal-state
-- aggregate), the options arrive at the coordinator as a column of Citus's
-- own query, which the statement's check does not see: constants still learn.
CREATE TYPE od13_e AS ENUM ('a', 'b', 'c');
CREATE TABLE od13_en (id int, er od13_e[], x od13_e, y od13_e);
SELECT create_distributed_table('od13_en', 'id');
INSERT INTO od13_en SELECT i, ARRAY[(ARRAY['a','b','c'])[i % 3 + 1], (ARRAY['a','b','c'])[(i / 3) % 3 + 1]]::od13_e[],
	(ARRAY['a','b','c'])[i % 3 + 1]::od13_e, (ARRAY['a','b','c'])[(i / 7) % 3 + 1]::od13_e FROM generate_series(1, 600) i;
CREATE TABLE od13_en_local AS SELECT * FROM od13_en;
SELECT is((SELECT mrf_learn_pairwise(er, rho => 0.5) FROM od13_en)::jsonb - 'meta',
	(SELECT mrf_learn_pairwise(er, rho => 0.5) FROM od13_en_local)::jsonb - 'meta',
	'enum-array samples (rows gathered by Citus) learn the local model');
SELECT is((SELECT mrf_learn_cliques(ROW(x, y), epsilon => 1, cliques => '[[1, 2]]') FROM od13_en)::jsonb - 'meta',
	(SELECT mrf_learn_cliques(ROW(x, y), epsilon => 1, cliques => '[[1, 2]]') FROM od13_en_local)::jsonb - 'meta',
	'row samples (rows gathered by Citus) learn the local model');

-- Why EXECUTE on the packed-state functions stays with PUBLIC: Citus's
-- worker_partial_agg checks it for the calling role on the worker, so
-- revoking it stops every role but superusers from learning on the cluster.
CREATE ROLE od13_reader LOGIN;
GRANT SELECT ON od13 TO od13_reader;
REVOKE EXECUTE ON FUNCTION mrfdp_internal.mrf_learn_ising_citus_accum(bytea, anyelement, jsonb) FROM PUBLIC;
SET ROLE od13_reader;
SELECT throws_like($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM od13$$,
	'%permission denied for function mrf_learn_ising_citus_accum%',
	'without EXECUTE on the transition, worker_partial_agg refuses the role');
RESET ROLE;
GRANT EXECUTE ON FUNCTION mrfdp_internal.mrf_learn_ising_citus_accum(bytea, anyelement, jsonb) TO PUBLIC;
SET ROLE od13_reader;
SELECT ok((SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM od13) IS NOT NULL,
	'with it (the default), the role learns from the distributed table');
RESET ROLE;

SELECT * FROM finish();
