-- server: citus
-- Issue 12 item 2 on Citus: mrf_learn_aim's aggregate has no combinable
-- sibling (mrfdp.mrf_learn_aim_citus_agg does not exist), so Citus gathers
-- the rows to the coordinator, which learns: the model is the one a local
-- table gives (under mrfdp.test_seed), with a workload by column names too,
-- and each release is charged once.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(6);

CREATE TYPE aim_c AS ENUM ('x', 'y', 'z');
CREATE TABLE a12 (id int, g int, kr int[], a aim_c, b aim_c, c boolean);
SELECT create_distributed_table('a12', 'id');
INSERT INTO a12
SELECT i, i % 2, ARRAY[i % 3, (i / 3) % 3, (i / 7) % 3, (i * 5) % 3],
	   (enum_range(NULL::aim_c))[1 + i % 3], (enum_range(NULL::aim_c))[1 + (i / 2) % 3], i % 5 < 2
FROM generate_series(1, 3000) i;
CREATE TABLE a12_local AS SELECT * FROM a12;
SELECT mrfdp.protect('a12', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 17;
CREATE FUNCTION a12_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'a12'::regclass$$;
CREATE TEMP TABLE m12 (src text, m mrf);

SELECT ok(NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'mrf_learn_aim_citus_agg'),
	'AIM has no combinable sibling: Citus gathers its rows');
INSERT INTO m12 SELECT 'dist', mrf_learn_aim(kr, rho => 0.5, k => 3) FROM a12;
INSERT INTO m12 SELECT 'local', mrf_learn_aim(kr, rho => 0.5, k => 3) FROM a12_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'local'),
	'AIM on a distributed table equals the local model');
-- named columns: a composite type (Citus cannot ship anonymous records)
CREATE TYPE a12_row AS (a aim_c, b aim_c, c boolean);
INSERT INTO m12 SELECT 'named dist', mrf_learn_aim(ROW(a, b, c)::a12_row, rho => 0.25,
												  workload => '[["a", "b"], ["b", "c"]]') FROM a12;
INSERT INTO m12 SELECT 'named local', mrf_learn_aim(ROW(a, b, c)::a12_row, rho => 0.25,
												   workload => '[["a", "b"], ["b", "c"]]') FROM a12_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'named dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'named local'),
	'a workload by column names on a distributed table: the local model');
SELECT is(a12_spent(), 0.75, 'each distributed release was charged once');
INSERT INTO m12 SELECT 'group', mrf_learn_aim_agg(kr, mrf_options(rho => 0.125, k => 3)) FROM a12 GROUP BY g;
SELECT is((SELECT count(m) FROM m12 WHERE src = 'group'), 2::bigint, 'GROUP BY g released two models');
SELECT is(a12_spent(), 1.0, 'two charges');

SELECT * FROM finish();
