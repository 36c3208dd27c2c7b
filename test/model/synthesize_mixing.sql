-- server: session_preload
-- Models that no exact sampler reaches (dense couplings: no junction tree
-- within the limit; t-wise above 16 variables) are sampled by several chains
-- with parallel tempering, which move between well-separated modes.  One
-- Gibbs chain per call (the sampler before) put 0 or all of every seed's rows
-- in one mode, and failed every seed's check below.  Every variable of these
-- models plays the same role, so the exact share of rows in a mode has a
-- closed form in the counts of each value, computed here for more variables
-- than enumeration allows.  Rows of one chain are correlated (a seed's share
-- varies about twice as much as a binomial one), so the bound is 8 binomial
-- standard deviations plus one row; a stuck chain is 40 or more off.
BEGIN;
SELECT plan(42);
SET LOCAL client_min_messages = warning;  -- the chain sampler's NOTICEs: test/regress/sql/sample_notice.sql

-- 31 spins, all pairs at 0.12: two modes (most spins +1, most -1)
CREATE TEMP TABLE mx_cw AS
SELECT f AS field,
	   mrf_ising((SELECT array_agg(r ORDER BY i)
				  FROM (SELECT i, array_agg(CASE WHEN i = j THEN 0 ELSE 0.12 END::float8 ORDER BY j) r
						FROM generate_series(1, 31) i, generate_series(1, 31) j GROUP BY i) q),
				 array_fill(f, ARRAY[31])) AS m
FROM unnest(ARRAY[0.0, 0.01]::float8[]) f;

-- the exact share of rows with more +1 than -1: k spins at +1 (M = 2k - 31)
-- have weight C(31, k) exp(0.12 (M^2 - 31) / 2 + field M)
CREATE TEMP TABLE mx_cw_truth AS
SELECT field, sum(w) FILTER (WHERE 2 * k > 31) / sum(w) AS share
FROM (SELECT f.field, k, (factorial(31) / (factorial(k) * factorial(31 - k)))::float8 *
			 exp(0.12 * ((2 * k - 31) ^ 2 - 31) / 2 + f.field * (2 * k - 31)) AS w
	  FROM mx_cw f, generate_series(0, 31) k) x
GROUP BY field;

-- the symmetric model through mrf_sample: half the rows in each mode
SELECT ok(abs(plus - 2000 * t.share) <= 8 * sqrt(2000 * t.share * (1 - t.share)) + 1,
		  format('symmetric dense Ising, seed %s: %s of 2000 rows with a +1 majority (exact %s)',
				 s, plus, round((2000 * t.share)::numeric, 1)))
FROM (SELECT s, (SELECT count(*) FILTER (WHERE (SELECT sum(v) FROM unnest(r) v) > 0)
				 FROM mrf_sample((SELECT m FROM mx_cw WHERE field = 0), 2000, seed => s) r) AS plus
	  FROM generate_series(1, 8) s) x, mx_cw_truth t
WHERE t.field = 0
ORDER BY s;

-- a field of 0.01 tilts the +1 mode to 0.650, through mrf_synthesize (a
-- model without labels gives booleans: true for +1)
CREATE TYPE pg_temp.mx_spins AS (x1 bool, x2 bool, x3 bool, x4 bool, x5 bool, x6 bool, x7 bool,
	x8 bool, x9 bool, x10 bool, x11 bool, x12 bool, x13 bool, x14 bool, x15 bool, x16 bool,
	x17 bool, x18 bool, x19 bool, x20 bool, x21 bool, x22 bool, x23 bool, x24 bool, x25 bool,
	x26 bool, x27 bool, x28 bool, x29 bool, x30 bool, x31 bool);
SELECT ok(abs(plus - 2000 * t.share) <= 8 * sqrt(2000 * t.share * (1 - t.share)) + 1,
		  format('dense Ising with a field, seed %s: %s of 2000 synthetic rows with a true majority (exact %s)',
				 s, plus, round((2000 * t.share)::numeric, 1)))
FROM (SELECT s, (SELECT count(*) FILTER (WHERE (SELECT count(*) FROM json_each_text(row_to_json(r)) e
												WHERE e.value = 'true') > 15)
				 FROM mrf_synthesize((SELECT m FROM mx_cw WHERE field = 0.01), 2000,
									 NULL::pg_temp.mx_spins, seed => s) r) AS plus
	  FROM generate_series(1, 8) s) x, mx_cw_truth t
WHERE t.field = 0.01
ORDER BY s;

-- A Potts model: 20 variables of 3 values, all pairs 0.4 when equal (3^20
-- states, a dense graph), 0.03 on value 0: three modes, value 0's the
-- heaviest.  Exact: the value counts (n0, n1, n2) have weight
-- 20! / (n0! n1! n2!) exp(0.4 sum_a C(n_a, 2) + 0.03 n0).
CREATE TEMP TABLE mx_potts AS
SELECT format('{"kind": "pairwise", "p": 20, "k": 3, "weights": %s, "fields": %s}',
			  (SELECT json_agg(wi ORDER BY i)
			   FROM (SELECT i, json_agg((SELECT json_agg((SELECT json_agg(CASE WHEN i <> j AND a = b THEN 0.4 ELSE 0 END ORDER BY b)
														  FROM generate_series(0, 2) b) ORDER BY a)
										 FROM generate_series(0, 2) a) ORDER BY j) AS wi
					 FROM generate_series(1, 20) i, generate_series(1, 20) j GROUP BY i) x),
			  (SELECT json_agg(json_build_array(0.03, 0, 0)) FROM generate_series(1, 20)))::mrf AS m;
CREATE TEMP TABLE mx_potts_truth AS
SELECT a, sum(w) FILTER (WHERE 2 * (CASE a WHEN 0 THEN n0 ELSE n1 END) > 20) / sum(w) AS share
FROM (SELECT n0, n1, (factorial(20) / (factorial(n0) * factorial(n1) * factorial(20 - n0 - n1)))::float8 *
			 exp(0.4 * (n0 * (n0 - 1) + n1 * (n1 - 1) + (20 - n0 - n1) * (19 - n0 - n1)) / 2 + 0.03 * n0) AS w
	  FROM generate_series(0, 20) n0, generate_series(0, 20) n1 WHERE n0 + n1 <= 20) x,
	 (VALUES (0), (1)) v(a)
GROUP BY a;
CREATE TEMP TABLE mx_potts_drawn AS
SELECT s, (SELECT count(*) FILTER (WHERE (SELECT count(*) FROM unnest(r) v WHERE v = 0) > 10)
		   FROM mrf_sample((SELECT m FROM mx_potts), 2000, seed => s) r) AS zero,
	   (SELECT count(*) FILTER (WHERE (SELECT count(*) FROM unnest(r) v WHERE v = 1) > 10)
		FROM mrf_sample((SELECT m FROM mx_potts), 2000, seed => s) r) AS one
FROM generate_series(1, 8) s;
SELECT ok(abs(CASE t.a WHEN 0 THEN zero ELSE one END - 2000 * t.share) <= 8 * sqrt(2000 * t.share * (1 - t.share)) + 1,
		  format('dense Potts, seed %s: %s of 2000 rows with most variables at value %s (exact %s)',
				 s, CASE t.a WHEN 0 THEN zero ELSE one END, t.a, round((2000 * t.share)::numeric, 1)))
FROM mx_potts_drawn, mx_potts_truth t
ORDER BY t.a, s;

-- A t-wise model beyond enumeration: 21 spins, all pairs at 0.15 and all
-- 1330 triples at 0.0004, which tilt the +1 mode to 0.740.  Exact: the sums
-- over pairs and triples of the spins' products are (M^2 - 21) / 2 and
-- (M^3 - 63 M + 2 M) / 6.
CREATE TEMP TABLE mx_twise AS
SELECT format('{"kind": "twise", "p": 21, "t": 3, "monomials": %s}',
			  (SELECT json_agg(mono)
			   FROM (SELECT json_build_array(json_build_array(i, j), 0.15) AS mono
					 FROM generate_series(1, 21) i, generate_series(1, 21) j WHERE i < j
					 UNION ALL
					 SELECT json_build_array(json_build_array(i, j, l), 0.0004)
					 FROM generate_series(1, 21) i, generate_series(1, 21) j, generate_series(1, 21) l
					 WHERE i < j AND j < l) x))::mrf AS m;
CREATE TEMP TABLE mx_twise_truth AS
SELECT sum(w) FILTER (WHERE 2 * k > 21) / sum(w) AS share
FROM (SELECT k, (factorial(21) / (factorial(k) * factorial(21 - k)))::float8 *
			 exp(0.15 * ((2 * k - 21) ^ 2 - 21) / 2 +
				 0.0004 * ((2 * k - 21) ^ 3 - 63 * (2 * k - 21) + 2 * (2 * k - 21)) / 6) AS w
	  FROM generate_series(0, 21) k) x;
SELECT ok(abs(plus - 2000 * t.share) <= 8 * sqrt(2000 * t.share * (1 - t.share)) + 1,
		  format('t-wise, seed %s: %s of 2000 rows with a +1 majority (exact %s)',
				 s, plus, round((2000 * t.share)::numeric, 1)))
FROM (SELECT s, (SELECT count(*) FILTER (WHERE (SELECT sum(v) FROM unnest(r) v) > 0)
				 FROM mrf_sample((SELECT m FROM mx_twise), 2000, seed => s) r) AS plus
	  FROM generate_series(1, 8) s) x, mx_twise_truth t
ORDER BY s;

-- the chain sampler's rows: the same seed gives the same rows; burn_in is used
SELECT is((SELECT array_agg(r) FROM mrf_sample((SELECT m FROM mx_cw WHERE field = 0), 40, 50, 2, 7) r),
		  (SELECT array_agg(r) FROM mrf_sample((SELECT m FROM mx_cw WHERE field = 0), 40, 50, 2, 7) r),
		  'same seed, same chain-sampled rows');
SELECT isnt((SELECT array_agg(r) FROM mrf_sample((SELECT m FROM mx_cw WHERE field = 0), 40, 50, 2, 7) r),
			(SELECT array_agg(r) FROM mrf_sample((SELECT m FROM mx_cw WHERE field = 0), 40, 51, 2, 7) r),
			'burn_in changes chain-sampled rows');

SELECT * FROM finish();
ROLLBACK;
