-- server: session_preload
-- Accuracy of the private Ising learner on data sampled (exactly, p <= 16)
-- from known models.  The bounds are about half of what a learner with a
-- missing factor 2 (A = w instead of w/2), a flipped sign or a broken
-- Frank-Wolfe update would show, and about twice what the learner reaches.
BEGIN;
SELECT plan(11);
SET LOCAL mrfdp.test_seed = 2024;

-- A chain 1 - 2 - ... - p with coupling w, and fields.
CREATE FUNCTION pg_temp.chain(p int, w float8, fields float8[] DEFAULT NULL) RETURNS mrf
LANGUAGE sql AS $$
	SELECT mrf_ising((SELECT array_agg(r ORDER BY i) FROM (
		SELECT i, array_agg(CASE WHEN abs(i - j) = 1 THEN w ELSE 0 END::float8 ORDER BY j) r
		FROM generate_series(1, p) i, generate_series(1, p) j GROUP BY i) q), fields)
$$;
-- A star: variable 1 joined to every other with coupling w.
CREATE FUNCTION pg_temp.star(p int, w float8) RETURNS mrf
LANGUAGE sql AS $$
	SELECT mrf_ising((SELECT array_agg(r ORDER BY i) FROM (
		SELECT i, array_agg(CASE WHEN (i = 1) <> (j = 1) THEN w ELSE 0 END::float8 ORDER BY j) r
		FROM generate_series(1, p) i, generate_series(1, p) j GROUP BY i) q))
$$;
-- Largest absolute difference of two models' weights over all pairs.
CREATE FUNCTION pg_temp.max_error(a mrf, b mrf) RETURNS float8
LANGUAGE sql AS $$
	SELECT max(abs(coalesce(x.weight, 0) - coalesce(y.weight, 0)))
	FROM mrf_edges(a) x FULL JOIN mrf_edges(b) y USING (i, j)
$$;

CREATE TEMP TABLE chain_rows AS
SELECT x AS "row" FROM mrf_sample(pg_temp.chain(10, 0.5), 20000, seed => 1) x;
CREATE TEMP TABLE star_rows AS
SELECT x AS "row" FROM mrf_sample(pg_temp.star(8, 0.25), 20000, seed => 2) x;

-- Chain, p = 10, n = 20000, rho = 1 (measured: max error 0.07).
CREATE TEMP TABLE chain_model AS
SELECT mrf_learn_ising("row", rho => 1, lambda => 1.5) AS m FROM chain_rows;
SELECT cmp_ok(pg_temp.max_error((SELECT m FROM chain_model), pg_temp.chain(10, 0.5)), '<', 0.15::float8,
              'chain: every learned weight within 0.15 of the truth (0.5 on edges, 0 elsewhere)');
SELECT is((SELECT array_agg(i || '-' || j ORDER BY i) FROM mrf_edges((SELECT m FROM chain_model), threshold => 0.25)),
          (SELECT array_agg(i || '-' || (i + 1) ORDER BY i) FROM generate_series(1, 9) i),
          'chain: thresholding at 0.25 recovers exactly the 9 edges');
SELECT ok((SELECT bool_and(weight > 0) FROM mrf_edges((SELECT m FROM chain_model), threshold => 0.25)),
          'chain: the recovered edges are positive');

-- Star, p = 8, weights 0.25 (measured: 0.03 at rho = 1).
CREATE TEMP TABLE star_model AS
SELECT mrf_learn_ising("row", rho => 1, lambda => 2) AS m FROM star_rows;
SELECT cmp_ok(pg_temp.max_error((SELECT m FROM star_model), pg_temp.star(8, 0.25)), '<', 0.09::float8,
              'star: every learned weight within 0.09 of the truth (0.25 on edges)');
SELECT is((SELECT count(*) FROM mrf_edges((SELECT m FROM star_model), threshold => 0.125) WHERE i = 1),
          7::bigint, 'star: the hub keeps all 7 edges at threshold 0.125');
SELECT is((SELECT count(*) FROM mrf_edges((SELECT m FROM star_model), threshold => 0.125) WHERE i > 1),
          0::bigint, 'star: no leaf-leaf edge at threshold 0.125');

-- Error shrinks as rho grows: mean over three seeds (measured 0.063 vs 0.020).
CREATE FUNCTION pg_temp.star_error(rho float8, seed int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	m mrf;
BEGIN
	EXECUTE format('SET LOCAL mrfdp.test_seed = %s', seed);
	SELECT mrf_learn_ising_agg("row", mrf_options(rho => rho, lambda => 2)) INTO m FROM star_rows;
	RETURN pg_temp.max_error(m, pg_temp.star(8, 0.25));
END $$;
CREATE TEMP TABLE by_rho AS
SELECT rho, avg(pg_temp.star_error(rho, seed)) AS err
FROM (VALUES (0.05::float8), (20)) r(rho), generate_series(1, 3) seed GROUP BY rho;
SELECT cmp_ok((SELECT err FROM by_rho WHERE rho = 0.05), '>', 1.8 * (SELECT err FROM by_rho WHERE rho = 20),
              'error at rho = 0.05 is well above error at rho = 20');
SET LOCAL mrfdp.test_seed = 2024;

-- The Laplace mechanism also learns (measured: 0.06 at rho = 10).
SELECT cmp_ok(pg_temp.max_error((SELECT mrf_learn_ising("row", rho => 10, lambda => 1.5, mechanism => 'laplace') FROM chain_rows),
                                pg_temp.chain(10, 0.5)), '<', 0.15::float8,
              'laplace mechanism: chain within 0.15 at rho = 10');

-- Fields: a chain with fields 0.4 on variable 1 and -0.3 on variable 10.
CREATE TEMP TABLE field_rows AS
SELECT x AS "row" FROM mrf_sample(pg_temp.chain(10, 0.3, ARRAY[0.4, 0, 0, 0, 0, 0, 0, 0, 0, -0.3]), 20000, seed => 3) x;
CREATE TEMP TABLE field_model AS
SELECT mrf_learn_ising("row", rho => 5, lambda => 1.5) AS m FROM field_rows;
SELECT cmp_ok((SELECT max(abs(theta - CASE i WHEN 1 THEN 0.4 WHEN 10 THEN -0.3 ELSE 0 END))
               FROM mrf_fields((SELECT m FROM field_model))), '<', 0.12::float8,
              'fields: every learned field within 0.12 of the truth');
SELECT cmp_ok(pg_temp.max_error((SELECT m FROM field_model), pg_temp.chain(10, 0.3)), '<', 0.12::float8,
              'fields: the weights are still within 0.12');

-- An (epsilon, delta) budget learns through its converted rho.
SELECT cmp_ok(pg_temp.max_error((SELECT mrf_learn_ising("row", epsilon => 4, delta => 1e-6, lambda => 1.5) FROM chain_rows),
                                pg_temp.chain(10, 0.5)), '<', 0.2::float8,
              'epsilon = 4, delta = 1e-6: chain within 0.2');

SELECT * FROM finish();
ROLLBACK;
