-- server: session_preload
-- The budget conversions raise invalid_parameter_value (22023) where no value
-- exists, and never return NaN, 0 or infinity as a budget; the smallest and
-- largest arguments that have an answer still get one.
BEGIN;
SELECT plan(14);

SELECT throws_ok($$SELECT mrf_zcdp_for_dp(1e-300, 1e-300)$$, '22023', NULL,
	'mrf_zcdp_for_dp: a rho that underflows is an error, not NaN');
SELECT throws_ok($$SELECT mrf_zcdp_for_dp(1e-300, 1e-300, method => 'bs16')$$, '22023', NULL,
	'mrf_zcdp_for_dp (bs16): a rho that underflows is an error, not 0');
SELECT throws_ok($$SELECT mrf_dp_to_zcdp(1e-300)$$, '22023', NULL,
	'mrf_dp_to_zcdp: epsilon^2/2 underflowing is an error, not 0');
SELECT throws_ok($$SELECT mrf_dp_to_zcdp(1e200)$$, '22023', NULL,
	'mrf_dp_to_zcdp: epsilon^2/2 overflowing is an error, not infinity');
SELECT throws_ok($$SELECT mrf_zcdp_to_dp(1.7976931348623157e308, 1e-6)$$, '22023', NULL,
	'mrf_zcdp_to_dp: an epsilon beyond the largest double is an error, not infinity');
SELECT throws_ok($$SELECT mrf_zcdp_for_dp('NaN', 1e-6)$$, '22023', NULL,
	'mrf_zcdp_for_dp: NaN epsilon refused');
SELECT throws_ok($$SELECT mrf_zcdp_to_dp(1, 'NaN')$$, '22023', NULL,
	'mrf_zcdp_to_dp: NaN delta refused');

-- small but representable: an answer, and the round trip fits
SELECT ok(mrf_zcdp_for_dp(1e-150, 1e-6) > 0
		  AND mrf_zcdp_to_dp(mrf_zcdp_for_dp(1e-150, 1e-6), 1e-6) <= 1e-150,
	'mrf_zcdp_for_dp at epsilon 1e-150: a positive rho that converts back within epsilon');
-- bs16 in closed form: sqrt(rho) = eps / (sqrt(eps + L) + sqrt(L)), rho about eps^2 / (4 L)
SELECT ok(abs(mrf_zcdp_for_dp(1e-150, 1e-6, method => 'bs16') / (1e-300 / (4 * ln(1e6))) - 1) < 1e-9,
	'mrf_zcdp_for_dp (bs16) at epsilon 1e-150: eps^2 / (4 ln(1/delta)), no cancellation to 0');
SELECT ok(mrf_zcdp_to_dp(mrf_zcdp_for_dp(1e-150, 1e-6, method => 'bs16'), 1e-6, method => 'bs16') <= 1e-150,
	'bs16 round trip at epsilon 1e-150 fits');
SELECT is(mrf_dp_to_zcdp(1e-150), 5e-301::float8, 'mrf_dp_to_zcdp(1e-150) = 5e-301');
SELECT ok(mrf_zcdp_to_dp(1e300, 1e-6) >= 1e300 AND mrf_zcdp_to_dp(1e300, 1e-6) < 'infinity',
	'mrf_zcdp_to_dp(1e300) is finite');
-- no NaN anywhere over a grid of extreme arguments: each call answers or raises 22023
CREATE FUNCTION pg_temp.outcome(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v float8;
BEGIN
	EXECUTE sql INTO v;
	IF v = 'NaN' OR v IS NULL OR v = 'infinity' OR v < 0 THEN
		RETURN 'bad: ' || coalesce(v::text, 'NULL');
	END IF;
	RETURN 'ok';
EXCEPTION WHEN invalid_parameter_value THEN
	RETURN 'ok';
END $$;
SELECT is((SELECT count(*) FROM
			(SELECT pg_temp.outcome(format('SELECT %s(%s, %s, %L)', f, a, d, m)) o
			 FROM unnest(ARRAY['mrf_zcdp_for_dp', 'mrf_zcdp_to_dp']) f,
				  unnest(ARRAY['1e-320', '1e-300', '1e-160', '1e-20', '1', '1e20', '1e300', '1.7e308']::text[]) a,
				  unnest(ARRAY['1e-320', '1e-300', '1e-20', '0.5', '0.999999999']::text[]) d,
				  unnest(ARRAY['tight', 'bs16']) m) s
		   WHERE o <> 'ok'), 0::bigint,
	'mrf_zcdp_for_dp and mrf_zcdp_to_dp: no NaN, infinity or negative value over 160 extreme calls');
SELECT is((SELECT count(*) FROM
			(SELECT pg_temp.outcome(format('SELECT mrf_dp_to_zcdp(%s)', a)) o
			 FROM unnest(ARRAY['1e-320', '1e-300', '1e-162', '1e-161', '1', '1e154', '1e155', '1.7e308']::text[]) a) s
		   WHERE o <> 'ok'), 0::bigint,
	'mrf_dp_to_zcdp: no NaN or infinity over extreme calls');

SELECT * FROM finish();
ROLLBACK;
