-- server: session_preload
-- A named call is rewritten to pass its options through the extension's
-- mrf_options, found by its membership of the extension (pg_depend), not
-- by name alone: a role that may
-- create in the extension's schema (public, on servers that still grant
-- CREATE there) adds an overload mrf_options(int), and every named call of
-- every role still learns (before: "function name ... is not unique").
BEGIN;
SELECT plan(5);
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
-- a function of the same name and parameters in a schema earlier on the
-- caller's search_path is not the extension's: the rewrite looks in the
-- named form's schema and takes only a member of the extension, which the
-- creator cannot make its function (ALTER EXTENSION ... ADD needs the
-- extension's owner; mrfdp is not trusted)
CREATE SCHEMA oo_evil AUTHORIZATION oo_creator;
SET LOCAL ROLE oo_creator;
CREATE FUNCTION oo_evil.mrf_options(rho float8 DEFAULT NULL, iterations int DEFAULT NULL)
	RETURNS jsonb LANGUAGE sql AS $$SELECT '{"rho": 99, "iterations": 1}'::jsonb$$;
SELECT throws_ok($$ALTER EXTENSION mrfdp ADD FUNCTION oo_evil.mrf_options(float8, int)$$, '42501', NULL,
	'a role that is not the extension''s owner cannot add its function to mrfdp');
RESET ROLE;
SELECT set_config('search_path', 'oo_evil, ' || current_setting('search_path'), true);
SELECT is((SELECT (mrf_info(mrf_learn_ising("row", rho => 0.5, iterations => 7))::jsonb ->> 'rho')::float8 FROM oo_rows), 0.5::float8,
	'a same-named mrf_options earlier on search_path is not called by the rewrite');
SELECT * FROM finish();
ROLLBACK;
