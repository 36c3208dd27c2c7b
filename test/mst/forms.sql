-- server: session_preload
-- mrf_learn_mst's other forms (issue 12 item 1): as a window aggregate it
-- is planned at the window's first row (an option it does not take stops
-- the scan there; a sequence counts the rows the aggregate was given) and
-- releases one model per partition; the NULL policy 'category' adds a value
-- to every variable's alphabet and a variable without NULLs gets little
-- mass on it; nulls => 'error' refuses a NULL (22004).
BEGIN;
SELECT plan(6);
SET LOCAL mrfdp.test_seed = 8;
CREATE TEMP SEQUENCE mf_seen;
CREATE TABLE mf_k AS SELECT g, ARRAY[g % 3, (g / 3) % 3, (g / 7) % 3] AS x FROM generate_series(1, 2000) g;
CREATE FUNCTION pg_temp.counted(x anyelement) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT CASE WHEN nextval('mf_seen') > 0 THEN x END $$;
CREATE FUNCTION pg_temp.rows_before_error(q text, OUT state text, OUT rows bigint) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setval('mf_seen', 1, false);
	BEGIN
		EXECUTE q;
		state := '00000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
	END;
	rows := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM mf_seen);
END $$;

SELECT is((SELECT (state, rows)::text FROM pg_temp.rows_before_error(
	$$SELECT mrf_learn_mst_agg(pg_temp.counted(x), mrf_options(k => 3, rho => 1, lambda => 2)) OVER () FROM mf_k$$)),
	'(22023,1)', 'window form: an option MST does not take is refused at the first row');
SELECT is((SELECT count(DISTINCT m::text) FROM
		   (SELECT mrf_learn_mst_agg(x, mrf_options(k => 3, rho => 1)) OVER (PARTITION BY g % 2) AS m FROM mf_k) s),
		  2::bigint, 'window form: one model per partition');

CREATE TYPE mf_abc AS ENUM ('a', 'b', 'c');
CREATE TABLE mf_rows AS
SELECT (enum_range(NULL::mf_abc))[1 + g % 3] AS u,
	   CASE WHEN g % 10 = 0 THEN NULL ELSE (enum_range(NULL::mf_abc))[1 + (g / 3) % 3] END AS v,
	   (enum_range(NULL::mf_abc))[1 + (g / 2) % 3] AS w
FROM generate_series(1, 6000) g;
CREATE TEMP TABLE released AS SELECT mrf_learn_mst(r, rho => 4, nulls => 'category') AS m FROM mf_rows r;
SELECT is((SELECT (m::jsonb)->>'k' FROM released), '4', 'nulls => ''category'' adds one value to every alphabet');
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM released)) WHERE i = 2),
		  ARRAY['a', 'b', 'c', NULL], 'the added value is labelled NULL');
-- a variable's marginal, from the first clique that holds it
CREATE FUNCTION pg_temp.mass(m mrf, v int, code int) RETURNS float8 LANGUAGE sql AS $$
	SELECT sum(probability) FROM mrf_marginals(m) mm
	WHERE clique = (SELECT clique FROM mrf_marginals(m) WHERE v = ANY (clique) LIMIT 1)
	  AND assignment[array_position(clique, v)] = code $$;
SELECT ok((SELECT abs(pg_temp.mass(m, 2, 3) - 0.1) < 0.02 AND pg_temp.mass(m, 1, 3) < 0.02 FROM released),
		  'a column with 10% NULLs gets about 0.1 on NULL, one without NULLs little');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1) FROM mf_rows r$$, '22004', NULL,
				 'nulls => ''error'' (the default) refuses a NULL');
SELECT * FROM finish();
ROLLBACK;
