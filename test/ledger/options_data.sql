-- server: session_preload
-- Options whose value depends on the data but is equal in every row (issue
-- 13 review): the charge is planned from the options, so such options make
-- the charged amount, which the budget shows, a function of the rows.  They
-- passed before when they reached the learner as a column of a subquery or
-- CTE (every row's equal to the first's) or through an IMMUTABLE function
-- that reads a table (the planner folded it to a constant).  The options of
-- every learner call, at every query level, are now checked before constant
-- folding: constants, query parameters and built-in or mrfdp functions only;
-- a column is followed to its definition.  Not wrapped in a transaction
-- (charges commit in a background worker).
SELECT plan(23);

DROP TABLE IF EXISTS od13, od13_opts CASCADE;
CREATE TABLE od13 (id int, row boolean[], opts jsonb);
INSERT INTO od13 SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0], '{"rho": 0.125}'
	FROM generate_series(1, 400) i;
SELECT mrfdp.protect('od13', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 7;
CREATE FUNCTION od13_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'od13'::regclass$$;
-- An IMMUTABLE function that reads the table: the planner folds it to a constant.
CREATE FUNCTION od13_rho() RETURNS float8 IMMUTABLE LANGUAGE sql
	AS $$SELECT count(*)::float8 / 3200 FROM od13$$;
CREATE FUNCTION od13_opts() RETURNS jsonb IMMUTABLE LANGUAGE sql
	AS $$SELECT mrf_options(rho => count(*)::float8 / 3200) FROM od13$$;

SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => od13_rho())) FROM od13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options through an IMMUTABLE function that reads a table are refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, od13_opts()) FROM od13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'an IMMUTABLE function returning options from a table is refused');
SELECT throws_ok($$SELECT mrf_learn_ising(row, rho => od13_rho()) FROM od13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'the named form with an option from such a function is refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, o) FROM od13,
	(SELECT mrf_options(rho => (SELECT count(*) FROM od13) / 3200.0) AS o OFFSET 0) s$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options from a subquery column computed from the rows are refused');
SELECT throws_ok($$WITH c AS MATERIALIZED (SELECT mrf_options(rho => count(*) / 3200.0) AS o FROM od13)
	SELECT mrf_learn_ising_agg(row, c.o) FROM od13, c$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options from a CTE column computed from the rows are refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, o) FROM
	(SELECT row, max(id) OVER () AS n FROM od13) x,
	LATERAL (SELECT mrf_options(rho => x.n / 3200.0) AS o) s$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options built from a column of a lateral subquery are refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, opts) FROM od13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'options from a column of the table (equal in every row) are refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, o) OVER () FROM od13,
	(SELECT mrf_options(rho => (SELECT count(*) FROM od13) / 6400.0) AS o OFFSET 0) s$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'a window call with options from such a subquery is refused');
SELECT throws_ok($$SELECT (SELECT mrf_learn_ising_agg(row, s.o) FROM od13)
	FROM (SELECT mrf_options(rho => count(*) / 3200.0) AS o FROM od13) s$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'a learner in a sublink with options from the outer query''s data is refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, o) FROM od13,
	(SELECT mrf_options(rho => 0.125) AS o UNION ALL SELECT mrf_options(rho => count(*) / 3200.0) FROM od13 LIMIT 1) s$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'a set operation one of whose branches computes options from the rows is refused');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(row, mrf_options(rho => (SELECT count(*) FROM od13) / 3200.0)) FROM od13$$,
	'22023', 'mrf_learn_ising needs the same options for every row',
	'a sublink in the options is refused');
-- An aggregate of the role's own around mrfdp's support functions is a learner too.
CREATE AGGREGATE od13_mine(anyelement, jsonb) (SFUNC = mrfdp_internal.mrf_ising_accum, STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_ising_final);
SELECT throws_ok($$SELECT od13_mine(row, mrf_options(rho => od13_rho())) FROM od13$$,
	'22023', 'od13_mine needs the same options for every row',
	'an aggregate of one''s own on mrfdp''s functions with options from the data is refused');
SELECT throws_ok($$SELECT od13_mine(row, o) FROM od13,
	(SELECT mrf_options(rho => (SELECT count(*) FROM od13) / 3200.0) AS o OFFSET 0) s$$,
	'22023', 'od13_mine needs the same options for every row',
	'and so are its options from a subquery column');
SELECT is(od13_spent(), 0::numeric, 'the refused statements charged nothing');

-- Constants, parameters and built-in functions of constants learn as before.
SELECT ok((SELECT mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) FROM od13) IS NOT NULL,
	'constant options learn');
WITH c AS MATERIALIZED (SELECT mrf_options(rho => 0.0625) AS o)
	SELECT ok((SELECT mrf_learn_ising_agg(row, c.o) FROM od13, c) IS NOT NULL,
	'options from a CTE of constants learn');
SELECT ok((SELECT mrf_learn_ising_agg(row, v.o) FROM od13, (VALUES (mrf_options(rho => 0.0625))) v(o)) IS NOT NULL,
	'options from a VALUES list of constants learn');
SELECT ok((SELECT mrf_learn_ising_agg(row, '{"rho": 0.03125, "iterations": 5}'::jsonb - 'iterations' || '{"rho": 0.0625}'::jsonb) FROM od13) IS NOT NULL,
	'options built with built-in operators from constants learn');
PREPARE od13_p(float8) AS SELECT mrf_learn_ising_agg(row, mrf_options(rho => $1)) FROM od13;
SELECT lives_ok('EXECUTE od13_p(0.0625)', 'options from a query parameter learn');
CREATE FUNCTION od13_learn(r float8) RETURNS mrf LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT mrf_learn_ising(row, rho => r) FROM od13);
END $$;
SELECT ok(od13_learn(0.0625) IS NOT NULL, 'a PL/pgSQL variable (a parameter) learns');
SELECT is(od13_spent(), 0.375, 'the six releases were charged 0.0625 each');

-- Not a learner: other aggregates' arguments are not checked.
SELECT is((SELECT count(*) FROM (SELECT jsonb_agg(opts) FROM od13, (SELECT max(id) m FROM od13) s GROUP BY s.m) x),
	1::bigint, 'other aggregates are not affected');
SELECT is((SELECT max(id) FROM od13), 400, 'plain queries are not affected');

DROP TABLE od13 CASCADE;
SELECT * FROM finish();
