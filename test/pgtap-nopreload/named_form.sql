-- Without session_preload_libraries the named form cannot be rewritten; it
-- must fail with a clear error whose hint names the preload and the aggregate.
BEGIN;
SELECT plan(3);
CREATE TEMP TABLE np AS SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS "row" FROM generate_series(1, 50) g;
SELECT throws_ok($$SELECT mrf_learn_ising("row", rho => 0.5) FROM np$$, '55000', NULL,
                 'the named form without the preload raises object_not_in_prerequisite_state');
CREATE FUNCTION pg_temp.hint_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	h text;
BEGIN
	EXECUTE q;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
	RETURN h;
END $$;
SELECT like(pg_temp.hint_of($$SELECT mrf_learn_ising("row", rho => 0.5) FROM np$$),
            '%session_preload_libraries%mrf_learn_ising_agg%', 'the hint names the preload setting and the aggregate form');
SELECT isnt(mrf_learn_ising_agg("row", mrf_options(rho => 0.5)), NULL, 'the aggregate form works without the preload')
FROM np;
SELECT * FROM finish();
ROLLBACK;
