-- server: session_preload
-- Option columns on every learner's _from form (issue 24 item 1): learn from
-- some columns of a protected relation, charged to that relation's budget;
-- the owner-rights read selects only those columns, so no other column is
-- read (shown with an owner that may SELECT only them); names, types and
-- the source recorded in the model.  Not in a transaction; cleans up.
SELECT plan(26);

\ir ../lib/protected.psql
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_tap_colowner') THEN
		CREATE ROLE mrfdp_tap_colowner;
	END IF;
END $$;
SET client_min_messages = warning;
DROP TABLE IF EXISTS colp, colp_syn CASCADE;
SET mrfdp.test_seed = 44;
-- an id, a free-text note, and the columns to learn: sick follows ward and age
CREATE TABLE colp (id text, age int, ward text CHECK (ward IN ('a', 'b', 'c')), sick boolean, smoker boolean,
				   income numeric, note text);
INSERT INTO colp
SELECT 'patient ' || g, 20 + g % 60, (ARRAY['a', 'b', 'c'])[1 + g % 3],
	   (g % 3 = 0) OR (20 + g % 60 >= 60 AND g % 7 = 0), g % 4 = 0, (20 + g % 60) * 1000, 'SECRET ' || g
FROM generate_series(1, 4500) g;
ALTER TABLE colp OWNER TO mrfdp_tap_colowner;
GRANT USAGE ON SCHEMA public TO mrfdp_tap_colowner;
GRANT CREATE ON SCHEMA public TO mrfdp_tap_analyst;
SELECT pg_temp.protect_for_analyst('colp', epsilon => 1000, delta => 1e-6, rho_cap => 20);
-- the owner may read the learned columns only: a read of any other column fails
REVOKE SELECT ON colp FROM mrfdp_tap_colowner;
GRANT SELECT (age, ward, sick, smoker, income) ON colp TO mrfdp_tap_colowner;

SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE colp_m AS
SELECT mrf_learn_mst_from('colp', NULL, rho => 8, columns => ARRAY['ward', 'age', 'sick'],
						  bins => '{"age": [40, 60]}') AS m;
SELECT is((SELECT array_agg(name || ':' || array_to_string(labels, ',') ORDER BY i) FROM mrf_variables((SELECT m FROM colp_m))),
		  ARRAY['ward:a,b,c', 'age:(-inf,40),[40,60),[60,inf)', 'sick:false,true'],
		  'the columns in the order given, their alphabets (a CHECK, bins, a boolean)');
SELECT is((SELECT mrf_info(m)->'source' FROM colp_m), '{"columns": ["ward", "age", "sick"], "relation": "public.colp"}'::jsonb,
		  'the source names the relation and the columns');
SELECT is((SELECT mrf_info(m)->>'rows' FROM colp_m), '4500', 'every row read');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM colp_m), '<', 40,
			  'no row substituted (noisy count near 0): the id and note never reach the reader');
SELECT is(mrf_synthesize_into((SELECT m FROM colp_m), 'colp_syn', 4500, seed => 1), 4500::bigint, 'synthesized');
SELECT is((SELECT array_agg(attname || ' ' || format_type(atttypid, atttypmod) ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = 'colp_syn'::regclass AND attnum > 0),
		  ARRAY['ward text', 'age integer', 'sick boolean'], 'the synthetic table has the columns'' names and types');
SELECT cmp_ok((SELECT avg(CASE WHEN sick THEN 1.0 ELSE 0 END) FROM colp_syn WHERE ward = 'a'), '>', 0.85,
			  'sick follows ward a in the synthetic rows (data: all of ward a)');
SELECT cmp_ok((SELECT avg(CASE WHEN sick THEN 1.0 ELSE 0 END) FROM colp_syn WHERE ward = 'b' AND age < 40), '<', 0.1,
			  'and not ward b under 40 (data: none)');

-- every learner's _from form takes columns
SELECT is((SELECT mrf_info(m)->'source'->'columns' FROM (SELECT mrf_learn_ising_from('colp', NULL, rho => 1, columns => ARRAY['sick', 'smoker']) m) x),
		  '["sick", "smoker"]'::jsonb, 'mrf_learn_ising_from');
SELECT is((SELECT mrf_info(m)->'source'->'columns' FROM (SELECT mrf_learn_twise_from('colp', NULL, t => 2, rho => 1, columns => ARRAY['sick', 'smoker']) m) x),
		  '["sick", "smoker"]'::jsonb, 'mrf_learn_twise_from');
SELECT is((SELECT mrf_info(m)->'source'->'columns' FROM (SELECT mrf_learn_pairwise_from('colp', NULL, rho => 1, columns => ARRAY['ward', 'sick']) m) x),
		  '["ward", "sick"]'::jsonb, 'mrf_learn_pairwise_from');
SELECT is((SELECT mrf_info(m)->'source'->'columns' FROM (SELECT mrf_learn_structure_from('colp', NULL, rho => 1, method => 'threshold', eta => 0.1,
		   columns => ARRAY['sick', 'smoker']) m) x), '["sick", "smoker"]'::jsonb, 'mrf_learn_structure_from');
SELECT is((SELECT mrf_info(m)->'source'->'columns' FROM (SELECT mrf_learn_cliques_from('colp', NULL, epsilon => 1, cliques => '[[1, 2]]',
		   columns => ARRAY['ward', 'sick']) m) x), '["ward", "sick"]'::jsonb, 'mrf_learn_cliques_from');
SELECT is((SELECT mrf_info(m)->'source'->'columns' FROM (SELECT mrf_learn_aim_from('colp', NULL, rho => 1, workload => '[["ward", "income"]]',
		   columns => ARRAY['ward', 'income'], bins => '{"income": {"min": 0, "max": 100000, "width": 20000}}') m) x),
		  '["ward", "income"]'::jsonb, 'mrf_learn_aim_from (a workload by the columns'' names)');

-- the whole row reads the other columns: the owner may not, so it fails after the charge
CREATE FUNCTION pg_temp.error_of(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE s text; m text;
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
	RETURN s || ' | ' || m;
END $f$;
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, domains => '{"id": ["x", "y"], "note": ["x", "y"]}',
		  bins => '{"age": [40], "income": [1]}')$$), '55000 | relation colp could not be read as its owner',
		  'the whole row reads id and note, which the owner cannot: with columns they are never read');

-- refusals, from the schema and the arguments, before the charge
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['age', 'agee'])$$),
		  '42703 | column "agee" of relation colp does not exist', 'an unknown column');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['sick', 'sick'])$$),
		  '42701 | mrf_learn_mst_from: option columns names column "sick" twice', 'a column named twice');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY[]::text[])$$),
		  '22023 | mrf_learn_mst_from: option columns names no column', 'no column');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['sick'])$$),
		  '22023 | mrf_learn_mst_from takes from 2 to 4096 variables', 'one column');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['sick', NULL])$$),
		  '22004 | mrf_learn_mst_from: option columns holds a NULL', 'a NULL name');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', 'sick', rho => 1, columns => ARRAY['sick', 'smoker'])$$),
		  '22023 | mrf_learn_mst_from takes a column_name or option columns, not both', 'a column_name too');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY[['sick'], ['smoker']])$$),
		  '2202E | mrf_learn_mst_from: option columns is a one-dimensional array of column names', 'a two-dimensional array');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['ctid', 'sick'])$$),
		  '42703 | column "ctid" of relation colp does not exist', 'a system column');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['sick', 'note'])$$),
		  '42804 | mrf_learn_mst takes rows whose columns are enums, booleans or columns with a declared domain',
		  'a chosen column without an alphabet');
SELECT is(pg_temp.error_of($$SELECT mrf_learn_mst_from('colp', NULL, rho => 1, columns => ARRAY['sick', 'smoker'], variables => 3)$$),
		  '22023 | variables => 3 does not match the 2 variables of option columns', 'variables must match');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'colp'::regclass), 8::bigint,
		  'eight releases charged to colp (the failed whole-row read included); the refusals charged nothing');

DROP TABLE colp, colp_syn CASCADE;
REVOKE CREATE ON SCHEMA public FROM mrfdp_tap_analyst;
SELECT * FROM finish();
