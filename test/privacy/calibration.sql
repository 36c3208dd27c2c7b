-- server: session_preload
-- Privacy calibration, end to end through SQL: one Frank-Wolfe step on a tiny
-- dataset, many releases with the secure generator, and the frequency of the
-- chosen vertex against exp(eps0 u / (2 Du)) by a chi-square test.
BEGIN;
SELECT plan(3);

-- p = 2; node 1: y = z1, x = (z2, 1).  At w = 0 the gradient weight is y/2,
-- so u(+-R e_j) = +-(R/2) sum_m z1 x_j: sum z1 z2 = 2, sum z1 = 4.
CREATE TEMP TABLE tiny ("row" int[]);
INSERT INTO tiny VALUES ('{1,1}'), ('{1,1}'), ('{1,-1}'), ('{1,1}');

-- lambda = 1: R = 2, Du = 2R = 4.  rho = 4 over p = 2 nodes and T - 1 = 1
-- step: rho_it = 2, eps0 = sqrt(8 rho_it) = 4, so P(s) ~ exp(u / 2) with
-- u = +4 (intercept +), -4, +2 (z2 +), -2.
CREATE TEMP TABLE expected_p AS
SELECT v, exp(u / 2.0) / (exp(2.0) + exp(-2.0) + exp(1.0) + exp(-1.0)) AS prob
FROM (VALUES ('+b', 4), ('-b', -4), ('+z', 2), ('-z', -2)) e(v, u);

-- w_2 = (2/3) s_1, and the model reports A = w / 2 = +-2/3 on the chosen coordinate.
CREATE TEMP TABLE draws AS
SELECT g,
       CASE WHEN abs(a12) > 0.5 THEN (CASE WHEN a12 > 0 THEN '+z' ELSE '-z' END)
            ELSE (CASE WHEN th1 > 0 THEN '+b' ELSE '-b' END) END AS v,
       abs(a12) + abs(th1) AS size
FROM (SELECT g,
             coalesce((SELECT weight FROM mrf_edges(m) WHERE i = 1 AND j = 2), 0) AS a12,
             (SELECT theta FROM mrf_fields(m) WHERE i = 1) AS th1
      FROM (SELECT g, mrf_learn_ising_agg("row", mrf_options(rho => 4, lambda => 1, iterations => 2,
                                                              symmetrize => false)) m
            FROM tiny, generate_series(1, 4000) g GROUP BY g) q) r;

SELECT ok((SELECT bool_and(abs(size - 2.0 / 3) < 1e-12) FROM draws),
          'each release is one vertex scaled by the step 2/3 and halved: |A| = 2/3 on one coordinate');

-- Chi-square with 3 degrees of freedom; 21.11 is the 0.9999 quantile.
CREATE TEMP TABLE chi AS
SELECT sum((coalesce(n, 0) - 4000 * prob) ^ 2 / (4000 * prob)) ::float8 AS stat
FROM expected_p LEFT JOIN (SELECT v, count(*) AS n FROM draws GROUP BY v) c USING (v);
SELECT cmp_ok((SELECT stat FROM chi), '<', 21.11::float8,
              'chosen vertices follow exp(eps0 u / (2 Du)) (chi-square, p > 1e-4)');

-- The same draws are far from a calibration with a missing factor 2 (Du = R).
SELECT cmp_ok((SELECT sum((coalesce(n, 0) - 4000 * prob) ^ 2 / (4000 * prob))::float8
               FROM (SELECT v, exp(u::float8) / (exp(4.0) + exp(-4.0) + exp(2.0) + exp(-2.0)) AS prob
                     FROM (VALUES ('+b', 4), ('-b', -4), ('+z', 2), ('-z', -2)) e(v, u)) wrong
               LEFT JOIN (SELECT v, count(*) AS n FROM draws GROUP BY v) c USING (v)), '>', 100::float8,
              'the test can tell: a calibration off by a factor 2 is rejected');

SELECT * FROM finish();
ROLLBACK;
