-- mrf_options builds a validated jsonb document; conversions match published values.
SELECT mrf_options(rho => 0.5);
SELECT mrf_options(epsilon => 1, delta => 1e-6, lambda => 2, iterations => 10,
                   mechanism => 'laplace', symmetrize => false);
SELECT mrf_options();

-- invalid values: SQLSTATE 22023
\set VERBOSITY default
SELECT mrf_options(rho => 0);
SELECT mrf_options(rho => -1);
SELECT mrf_options(rho => 'infinity');
SELECT mrf_options(rho => 'nan');
SELECT mrf_options(delta => 1);
SELECT mrf_options(lambda => 0);
SELECT mrf_options(iterations => 0);
SELECT mrf_options(mechanism => 'gaussian');

-- conversions (docs/privacy.md 2.1): rho = 2, delta = 1e-6 gives 11.6886 (tight) and
-- 2 + 2 sqrt(2 ln 1e6) = 12.51304 (bs16; a printed 12.5132 rounds ln 1e6 to 13.816)
SELECT round(mrf_zcdp_to_dp(2, 1e-6)::numeric, 4) AS tight,
       round(mrf_zcdp_to_dp(2, 1e-6, method => 'bs16')::numeric, 5) AS bs16,
       abs(mrf_zcdp_to_dp(2, 1e-6, method => 'bs16') - (2 + 2 * sqrt(2 * ln(1e6)))) < 1e-12 AS bs16_formula;
SELECT mrf_dp_to_zcdp(1) AS rho_of_pure_eps_1;
-- the inverse conversions are conservative and close
SELECT mrf_zcdp_to_dp(mrf_zcdp_for_dp(1, 1e-6), 1e-6) <= 1 AS fits,
       mrf_zcdp_to_dp(mrf_zcdp_for_dp(1, 1e-6), 1e-6) > 0.999999 AS tight_fit;
SELECT abs(mrf_zcdp_to_dp(mrf_zcdp_for_dp(3, 1e-5, 'bs16'), 1e-5, 'bs16') - 3) < 1e-9 AS bs16_inverse;
SELECT mrf_zcdp_to_dp(0, 1e-6);
SELECT mrf_zcdp_to_dp(1, 0);
SELECT mrf_zcdp_to_dp(1, 1e-6, method => 'rdp');
SELECT mrf_dp_to_zcdp(-1);
SELECT mrf_zcdp_for_dp(1, 2);
