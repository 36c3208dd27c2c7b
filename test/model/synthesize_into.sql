-- server: session_preload
-- mrf_synthesize_into(model, 'new_table', n) (issue 11 item 4): creates a
-- table with the model's variable names and the source columns' types (the
-- types are recorded in the model's "variables" when it is learned) and
-- fills it with mrf_synthesize's rows; identifiers are quoted, names may be
-- schema-qualified; it runs with the caller's rights (not SECURITY DEFINER),
-- reads no relation and charges nothing.  Not in a transaction (the
-- protected-path part needs committed charges); cleans up at the end.
SELECT plan(26);

SET client_min_messages = warning;
DROP SCHEMA IF EXISTS si_schema CASCADE;
DROP TABLE IF EXISTS si_source, si_prot, "Synth Table", si_pairwise, si_codes, si_ising, si_twise, si_cliques CASCADE;
DROP TYPE IF EXISTS si_level CASCADE;
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_tap_synth') THEN
		CREATE ROLE mrfdp_tap_synth;
	END IF;
END $$;
SET mrfdp.test_seed = 23;
CREATE SCHEMA si_schema;
CREATE TYPE si_level AS ENUM ('low', 'mid', 'high');
CREATE TABLE si_source ("Party Line" si_level, "say ""yes""" boolean, city varchar(8), band smallint, code character(2));
INSERT INTO si_source
SELECT (enum_range(NULL::si_level))[1 + g % 3], g % 3 = 0 OR g % 7 = 0,
	   CASE WHEN g % 11 = 0 THEN NULL ELSE (ARRAY['Oslo', 'Rome'])[1 + (g / 3) % 2] END,
	   (g / 2) % 4, (ARRAY['ab', 'cd'])[1 + g % 2]
FROM generate_series(1, 3000) g;
CREATE TEMP TABLE si_models AS
SELECT mrf_learn_pairwise(s, rho => 4, nulls => 'category',
						  domains => '{"city": ["Oslo", "Rome"], "band": [0, 1, 2, 3], "code": ["ab", "cd"]}') AS m
FROM si_source s;

-- the table, its names and types
SELECT is(mrf_synthesize_into((SELECT m FROM si_models), 'si_pairwise', 2000, seed => 7), 2000::bigint,
		  'mrf_synthesize_into returns the rows it inserted');
SELECT results_eq($$SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
					WHERE attrelid = 'si_pairwise'::regclass AND attnum > 0 ORDER BY attnum$$,
				  $$SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
					WHERE attrelid = 'si_source'::regclass AND attnum > 0 ORDER BY attnum$$,
				  'the new table has the source''s column names (quoted ones too) and types (typmods too)');
SELECT is((SELECT count(*) FROM si_pairwise), 2000::bigint, 'n rows');
SELECT set_eq($$SELECT * FROM si_pairwise$$,
			  $$SELECT * FROM mrf_synthesize((SELECT m FROM si_models), 2000, NULL::si_source, seed => 7)$$,
			  'the rows are mrf_synthesize''s with the same seed');
SELECT cmp_ok((SELECT count(*) FROM si_pairwise WHERE city IS NULL), '>', 0::bigint,
			  'the NULL category comes back as NULL');
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'si_pairwise'::regclass), current_user::text,
		  'the table belongs to the caller');

-- quoting and schemas
SELECT is(mrf_synthesize_into((SELECT m FROM si_models), '"Synth Table"', 10, seed => 1), 10::bigint,
		  'a quoted table name');
SELECT isnt(to_regclass('"Synth Table"'), NULL, 'the quoted name is the table''s');
SELECT is(mrf_synthesize_into((SELECT m FROM si_models), 'si_schema."T 2"', 10, seed => 1), 10::bigint,
		  'a schema-qualified name');
SELECT is((SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = to_regclass('si_schema."T 2"')), 'si_schema',
		  'created in the named schema');
SET search_path = si_schema, public;
SELECT is(mrf_synthesize_into((SELECT m FROM si_models), 'si_plain', 5, seed => 1), 5::bigint, 'an unqualified name');
RESET search_path;
SELECT isnt(to_regclass('si_schema.si_plain'), NULL, 'goes where CREATE TABLE puts it (the first schema of search_path)');

-- refusals
SELECT throws_ok($$SELECT mrf_synthesize_into((SELECT m FROM si_models), 'si_pairwise', 10)$$,
				 '42P07', NULL, 'an existing table is refused (42P07)');
SELECT throws_ok($$SELECT mrf_synthesize_into((SELECT m FROM si_models), 'a.b.c', 10)$$,
				 '22023', NULL, 'three-part names are refused');
SELECT throws_ok($$SELECT mrf_synthesize_into((SELECT m FROM si_models), 'bad name', 10)$$,
				 '22023', NULL, 'an invalid name is refused');
SELECT throws_ok($$SELECT mrf_synthesize_into('{"kind": "structure", "p": 3, "k": 2, "edges": [[1, 2]]}'::mrf, 'si_never', 10)$$,
				 '42809', NULL, 'a structure cannot be sampled');
SELECT throws_ok($$SELECT mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
				 "meta": {"variables": [{"name": "a", "labels": ["n", "y"], "type": "public.no_such_type"}, {"name": "b"}]}}'::mrf, 'si_never', 10)$$,
				 '42704', NULL, 'a type that does not exist is refused');
SELECT is(to_regclass('si_never'), NULL, 'a refused call leaves no table');

-- a model without names or types: x1, x2, ... as integer codes
SELECT is(mrf_synthesize_into((SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM
							   (SELECT ARRAY[g % 3, (g / 3) % 3] AS x FROM generate_series(1, 300) g) s), 'si_codes', 50, seed => 2),
		  50::bigint, 'a model learned from arrays (no names, no types)');
SELECT is((SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = 'si_codes'::regclass AND attnum > 0)
		  || ': ' || (SELECT count(*) FROM si_codes WHERE x1 BETWEEN 0 AND 2 AND x2 BETWEEN 0 AND 2),
		  'x1 integer, x2 integer: 50', 'arrays: columns x1, x2 of integer codes 0..k-1');

-- every kind that samples, and the caller's rights
CREATE TABLE si_bools AS SELECT g % 2 = 0 AS a, g % 3 = 0 AS b, g % 5 = 0 AS c FROM generate_series(1, 2000) g;
SELECT is(mrf_synthesize_into((SELECT mrf_learn_ising(r, rho => 1) FROM si_bools r), 'si_ising', 20, seed => 1)
		  + mrf_synthesize_into((SELECT mrf_learn_twise(r, t => 2, rho => 1) FROM si_bools r), 'si_twise', 20, seed => 1)
		  + mrf_synthesize_into((SELECT mrf_learn_cliques(r, cliques => '[[1, 2], [2, 3]]', epsilon => 5) FROM si_bools r),
								'si_cliques', 20, seed => 1), 60::bigint, 'Ising, t-wise and clique models');
SELECT is((SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = 'si_cliques'::regclass AND attnum > 0), 'boolean,boolean,boolean', 'boolean columns stay boolean');
SELECT is((SELECT prosecdef FROM pg_proc WHERE proname = 'mrf_synthesize_into'), false, 'not SECURITY DEFINER');

-- a role that may learn from a protected relation (and cannot read it) synthesizes: nothing read, nothing charged
CREATE TABLE si_prot AS SELECT * FROM si_bools;
SELECT mrfdp.protect('si_prot', epsilon => 50, delta => 1e-6);
SELECT mrfdp.grant_learning('si_prot', 'mrfdp_tap_synth');
GRANT USAGE ON SCHEMA si_schema TO mrfdp_tap_synth;
GRANT CREATE ON SCHEMA si_schema TO mrfdp_tap_synth;
CREATE TEMP TABLE si_prot_model (m mrf);
GRANT ALL ON si_prot_model TO mrfdp_tap_synth;
SET ROLE mrfdp_tap_synth;
INSERT INTO si_prot_model SELECT mrf_learn_ising_from('si_prot', NULL, rho => 1);
SELECT mrf_synthesize_into((SELECT m FROM si_prot_model), 'si_schema.si_from_prot', 100, seed => 3);
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'si_prot'::regclass), 1::bigint,
		  'synthesizing from a model learned on a protected relation charges nothing (one release: the learning)');
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'si_schema.si_from_prot'::regclass), 'mrfdp_tap_synth',
		  'the caller''s table, created with the caller''s rights');
SET ROLE mrfdp_tap_synth;
SELECT throws_ok($$SELECT mrf_synthesize_into((SELECT m FROM si_prot_model), 'public.si_denied', 10)$$,
				 '42501', NULL, 'a schema the caller may not create in is refused');
RESET ROLE;

DROP TABLE si_source, si_prot, si_bools, "Synth Table", si_pairwise, si_codes, si_ising, si_twise, si_cliques CASCADE;
DROP SCHEMA si_schema CASCADE;
DROP TYPE si_level;
SELECT * FROM finish();
