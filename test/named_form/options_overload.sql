-- server: session_preload
-- A named call is rewritten to pass its options through the extension's
-- mrf_options, found by its membership of the extension (pg_depend), not
-- by name alone: a role that may
-- create in the extension's schema (public, on servers that still grant
-- CREATE there) adds an overload mrf_options(int), and every named call of
-- every role still learns (before: "function name ... is not unique").
BEGIN;
SELECT plan(3);
CREATE TEMP TABLE oo_rows AS SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS "row" FROM generate_series(1, 200) g;
CREATE ROLE oo_creator;
SELECT format('GRANT CREATE ON SCHEMA %I TO oo_creator', n.nspname)
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'mrfdp' \gexec
SET LOCAL ROLE oo_creator;
SELECT format('CREATE FUNCTION %I.mrf_options(x int) RETURNS jsonb LANGUAGE sql AS %L', n.nspname, 'SELECT ''{}''::jsonb')
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'mrfdp' \gexec
RESET ROLE;
SELECT is((SELECT count(*) FROM pg_proc p JOIN pg_extension e ON e.extnamespace = p.pronamespace
		   WHERE e.extname = 'mrfdp' AND p.proname = 'mrf_options'), 2::bigint,
	'the schema holds two functions mrf_options');
SELECT ok((SELECT mrf_learn_ising("row", rho => 0.5, iterations => 5) FROM oo_rows) IS NOT NULL,
	'a named call still learns');
SELECT is((SELECT (mrf_info(mrf_learn_ising("row", rho => 0.5, iterations => 7))::jsonb ->> 'rho')::float8 FROM oo_rows), 0.5::float8,
	'and passes its options through the extension''s own mrf_options');
SELECT * FROM finish();
ROLLBACK;
