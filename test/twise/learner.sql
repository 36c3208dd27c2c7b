-- server: session_preload
-- The binary t-wise learner on data sampled (exactly, p = 7) from a known
-- t = 3 model: a triangle {1,2,3} = 0.5 with the pair {1,2} = 0.2 inside it,
-- a path 3-4-5 (+0.4, -0.4), an isolated pair {6,7} = 0.3 and fields 0.2 on
-- 2, 0.4 on 3, 0.2 on 5 (width 1.3 <= lambda = 1.4).  Bounds are about half
-- of what a wrong coefficient assignment shows and several times what the
-- learner reaches.
BEGIN;
SELECT plan(30);
SET LOCAL mrfdp.test_seed = 303;

CREATE TEMP TABLE truth AS SELECT '{"kind": "twise", "p": 7, "t": 3, "monomials": [
  [[1, 2, 3], 0.5], [[1, 2], 0.2], [[3, 4], 0.4], [[4, 5], -0.4], [[6, 7], 0.3],
  [[2], 0.2], [[3], 0.4], [[5], 0.2]]}'::mrf AS m;
CREATE TEMP TABLE truth_mono AS
SELECT vars, coef, ord FROM mrf_monomials((SELECT m FROM truth)) WITH ORDINALITY AS x(vars, coef, names, ord);
-- Maximal monomials: no strict superset has a nonzero coefficient.  Only
-- there does objective 'linf' estimate the coefficient itself.
CREATE TEMP TABLE maximal AS
SELECT vars FROM truth_mono a
WHERE NOT EXISTS (SELECT 1 FROM truth_mono b
                  WHERE b.coef <> 0 AND b.vars @> a.vars AND cardinality(b.vars) > cardinality(a.vars));

CREATE TEMP TABLE rows40k AS
SELECT g AS id, g % 4 AS grp, x AS "row" FROM mrf_sample((SELECT m FROM truth), 40000, seed => 1) WITH ORDINALITY s(x, g);

-- Largest |estimate - truth| over every monomial, or over the maximal ones.
CREATE FUNCTION pg_temp.err(est mrf, only_maximal boolean DEFAULT false) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(e.coef - t.coef)) FROM mrf_monomials(est) e JOIN truth_mono t USING (vars)
	WHERE NOT only_maximal OR vars IN (SELECT vars FROM maximal)
$$;
-- Wrong assignments of the same estimates: every coefficient moved to the next
-- monomial in index order (an off-by-one), and all doubled (w instead of w/2).
CREATE FUNCTION pg_temp.err_shifted(est mrf) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(coalesce(e.coef, 0) - t.coef))
	FROM truth_mono t LEFT JOIN (SELECT coef, ord FROM mrf_monomials(est) WITH ORDINALITY x(vars, coef, names, ord)) e
	ON e.ord = t.ord + 1
$$;
CREATE FUNCTION pg_temp.err_doubled(est mrf) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(2 * e.coef - t.coef)) FROM mrf_monomials(est) e JOIN truth_mono t USING (vars)
$$;

SELECT is((SELECT count(*) FROM maximal WHERE vars IN ('{1,2,3}', '{3,4}', '{4,5}', '{6,7}')), 4::bigint,
          'the triangle and the pairs outside it are maximal');
SELECT ok((SELECT bool_and(r <@ ARRAY[-1, 1] AND cardinality(r) = 7) FROM (SELECT "row" r FROM rows40k) q),
          'mrf_sample draws -1/+1 rows of 7 variables');

-- Algorithm 4 (l1), rho = 50 (measured: max error 0.02).
CREATE TEMP TABLE l1 AS
SELECT mrf_learn_twise("row", t => 3, rho => 50, lambda => 1.4, iterations => 700) m FROM rows40k;
SELECT diag('l1, rho 50: max error ' || round(pg_temp.err((SELECT m FROM l1))::numeric, 4));
SELECT cmp_ok(pg_temp.err((SELECT m FROM l1)), '<', 0.08::float8, 'l1: every coefficient within 0.08');
SELECT cmp_ok(pg_temp.err_shifted((SELECT m FROM l1)), '>', 0.08::float8, 'l1: shifted by one monomial misses the bound');
SELECT cmp_ok(pg_temp.err_doubled((SELECT m FROM l1)), '>', 0.08::float8, 'l1: doubled misses the bound');
SELECT is((SELECT array_agg(i || '-' || j ORDER BY i, j) FROM mrf_edges((SELECT m FROM l1), 0.1)),
          ARRAY['1-2', '3-4', '4-5', '6-7'], 'l1: mrf_edges at 0.1 finds the four pairs');
SELECT cmp_ok((SELECT abs(theta - 0.4) FROM mrf_fields((SELECT m FROM l1)) WHERE i = 3), '<', 0.08::float8,
              'l1: mrf_fields gives the singleton of variable 3');
-- Error grows as rho falls (measured 0.02 vs 0.12).
CREATE TEMP TABLE l1_small AS
SELECT mrf_learn_twise("row", t => 3, rho => 0.05, lambda => 1.4) m FROM rows40k;
SELECT diag('l1, rho 0.05: max error ' || round(pg_temp.err((SELECT m FROM l1_small))::numeric, 4));
SELECT cmp_ok(pg_temp.err((SELECT m FROM l1_small)), '>', 2 * pg_temp.err((SELECT m FROM l1)),
              'l1: error at rho 0.05 above twice the error at rho 50');

-- Algorithm 5 (linf, Gaussian release), rho = 50 (measured: 0.03 on maximal monomials).
CREATE TEMP TABLE linf AS
SELECT mrf_learn_twise("row", t => 3, rho => 50, lambda => 1.4, objective => 'linf', iterations => 700) m FROM rows40k;
SELECT diag('linf, rho 50: max error on maximal monomials ' || round(pg_temp.err((SELECT m FROM linf), true)::numeric, 4));
SELECT cmp_ok(pg_temp.err((SELECT m FROM linf), true), '<', 0.08::float8,
              'linf: every maximal monomial within 0.08');
SELECT cmp_ok((SELECT abs(coef - 0.5) FROM mrf_monomials((SELECT m FROM linf)) WHERE vars = '{1,2,3}'), '<', 0.08::float8,
              'linf: the triangle within 0.08');
SELECT cmp_ok(pg_temp.err_shifted((SELECT m FROM linf)), '>', 0.08::float8, 'linf: shifted by one monomial misses the bound');
SELECT cmp_ok(pg_temp.err_doubled((SELECT m FROM linf)), '>', 0.08::float8, 'linf: doubled misses the bound');
SELECT diag('linf: {1,2} estimated at ' || round((SELECT coef FROM mrf_monomials((SELECT m FROM linf)) WHERE vars = '{1,2}')::numeric, 4));
-- {1,2} lies inside the triangle: linf estimates E[d_1 d_2 h] = 0.2 + 0.5 E[z_3] (about 0.42), not 0.2.
SELECT cmp_ok((SELECT coef FROM mrf_monomials((SELECT m FROM linf)) WHERE vars = '{1,2}'), '>', 0.32::float8,
              'linf: a non-maximal monomial estimates the mean derivative, not its coefficient');
SELECT is((SELECT (mrf_info(m)->>'query_rows')::int + (mrf_info(m)->>'regression_rows')::int FROM linf), 40000,
          'linf: the split uses every row once');

-- Algorithm 5 with private multiplicative weights (measured: 0.05).
CREATE TEMP TABLE pmw AS
SELECT mrf_learn_twise("row", t => 3, rho => 50, lambda => 1.4, objective => 'linf', query_release => 'pmw',
                       iterations => 700) m FROM rows40k;
SELECT diag('linf with pmw, rho 50: max error on maximal monomials ' || round(pg_temp.err((SELECT m FROM pmw), true)::numeric, 4));
SELECT cmp_ok(pg_temp.err((SELECT m FROM pmw), true), '<', 0.15::float8, 'pmw: every maximal monomial within 0.15');

-- Named form, aggregate and GROUP BY.
SELECT is((SELECT mrf_info(mrf_learn_twise("row", 3, 1))->>'t' FROM rows40k), '3', 'positional t and rho');
SELECT is((SELECT count(*) FROM (SELECT grp, mrf_learn_twise_agg("row", mrf_options(t => 3, rho => 1)) m
                                 FROM rows40k GROUP BY grp) q WHERE (mrf_info(m)->>'rows')::int = 10000),
          4::bigint, 'GROUP BY through the aggregate: one model of 10000 rows per group');
SELECT is((SELECT mrf_info(mrf_learn_twise(x, t => 2, rho => 1))->>'p'
           FROM (SELECT ("row"[1] = 1, "row"[2] = 1, "row"[3] = 1) x FROM rows40k) q), '3',
          'a row of boolean columns');

-- Every bad input's SQLSTATE.
SELECT throws_ok($$SELECT mrf_learn_twise("row", rho => 1) FROM rows40k$$, '22023', NULL, 'missing t');
SELECT throws_ok($$SELECT mrf_learn_twise("row", t => 3) FROM rows40k$$, '22023', NULL, 'missing budget');
SELECT throws_ok($$SELECT mrf_learn_twise("row", t => 8, rho => 1) FROM rows40k$$, '22023', NULL, 't > p');
SELECT throws_ok($$SELECT mrf_learn_twise("row", t => 3, rho => 1, objective => 'l2') FROM rows40k$$, '22023', NULL,
                 'unknown objective');
SELECT throws_ok($$SELECT mrf_learn_twise("row", t => 3, rho => 1, query_release => 'pmw') FROM rows40k$$, '22023', NULL,
                 'query_release without linf');
SELECT throws_ok($$SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY[1, 0, 1])) v(x)$$, '22003', NULL,
                 'a value outside {-1, +1}');
SELECT throws_ok($$SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY[1, NULL, 1])) v(x)$$, '22004', NULL,
                 'NULL element');
SELECT throws_ok($$SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY[1, 1, 1]), (ARRAY[1, 1])) v(x)$$,
                 '2202E', NULL, 'ragged rows');
SELECT throws_ok($$SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY['a', 'b'])) v(x)$$, '42804', NULL,
                 'wrong element type');
SELECT throws_ok($$SELECT mrf_learn_twise(x, t => 3, rho => 1, objective => 'linf', query_release => 'pmw')
                   FROM (SELECT array_fill(1, ARRAY[21]) x FROM generate_series(1, 4)) q$$,
                 '54000', 'mrf_learn_twise with query_release => ''pmw'' accepts at most 20 variables; the samples have 21',
                 'pmw above 20 variables is refused, naming the limit');
SELECT throws_ok($$SELECT mrf_learn_twise(x, t => 4, rho => 1) FROM (SELECT array_fill(1, ARRAY[400]) x) q$$,
                 '54000', 'mrf_learn_twise with p = 400 and t = 4 needs 10667001 features; the limit is 5368709',
                 'too many features: the count and the limit');
SELECT throws_ok($$SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1, 4], 0.5]]}'::mrf$$, '22P02', NULL,
                 'a monomial outside 1..p');

SELECT * FROM finish();
ROLLBACK;
