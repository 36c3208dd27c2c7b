-- server: no_preload
-- Without session_preload_libraries the named form cannot be rewritten; it
-- must fail with a clear error whose hint names the preload and the aggregate.
-- The first call is the one that loads the library (and installs the hook
-- for later statements), so everything is checked on that first call.  No
-- enclosing transaction: the transaction that loads mrfdp may release nothing
-- (see first_statement.sql); the statements after it are tracked.
SELECT plan(4);
CREATE TEMP TABLE np AS SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS "row" FROM generate_series(1, 50) g;
CREATE FUNCTION pg_temp.error_of(q text, OUT state text, OUT hint text) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, hint = PG_EXCEPTION_HINT;
END $$;
CREATE TEMP TABLE first_call AS
SELECT * FROM pg_temp.error_of($$SELECT mrf_learn_ising("row", rho => 0.5) FROM np$$);
SELECT is((SELECT state FROM first_call), '55000',
          'the named form without the preload raises object_not_in_prerequisite_state');
SELECT alike((SELECT hint FROM first_call), '%session_preload_libraries%mrf_learn_ising_agg%',
             'the hint names the preload setting and the aggregate form');
SELECT ok((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.5)) IS NOT NULL FROM np),
          'the aggregate form works without the preload');
SELECT ok((SELECT mrf_learn_ising("row", rho => 0.5) IS NOT NULL FROM np),
          'once loaded, the library rewrites later statements of the session');
SELECT * FROM finish();
