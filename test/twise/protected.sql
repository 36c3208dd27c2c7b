-- server: session_preload
-- mrf_learn_twise_from: the protected path of the t-wise learner.  Not in a
-- transaction (the charge is committed by a background worker, which sees
-- committed rows only); cleans up at the end.
SELECT plan(11);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS twise_prot CASCADE;
SET mrfdp.test_seed = 19;
CREATE TABLE twise_prot AS
SELECT x AS "row" FROM mrf_sample('{"kind": "twise", "p": 5, "t": 3, "monomials": [[[1, 2, 3], 0.5], [[4, 5], 0.4]]}'::mrf,
                                  4000, seed => 3) x;
-- unreadable rows are replaced by a fixed row on this path, never an error
INSERT INTO twise_prot VALUES (NULL), (ARRAY[1, 0, 1, 1, 1]), (ARRAY[1, 1]);
SELECT pg_temp.protect_for_analyst('twise_prot', epsilon => 1000, delta => 1e-6, rho_cap => 0.5);

SET ROLE mrfdp_tap_outsider;
SELECT throws_ok($$SELECT mrf_learn_twise_from('twise_prot', 'row', t => 3, rho => 0.125, variables => 5)$$, '42501', NULL,
                 'a role without the grant is refused');
RESET ROLE;
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok('SELECT count(*) FROM twise_prot', '42501', NULL, 'the analyst cannot read the relation');
CREATE TEMP TABLE twise_released AS
SELECT mrf_learn_twise_from('twise_prot', 'row', t => 3, rho => 0.125, lambda => 1.5, variables => 5) AS m;
SELECT is((SELECT mrf_info(m)->>'rows' FROM twise_released), '4003', 'the granted analyst learns from every row');
SELECT is((SELECT mrf_info(m)->>'kind' || ' t=' || (mrf_info(m)->>'t') || ' ' || (mrf_info(m)->>'algorithm') FROM twise_released),
          'twise t=3 zhang2020-algorithm-4', 'a t-wise model of order 3');
SELECT is((SELECT count(*) FROM mrf_monomials((SELECT m FROM twise_released))), 25::bigint,
          'mrf_monomials lists all 25 monomials of p = 5, t = 3');
SELECT is((SELECT mrf_info(mrf_learn_twise_from('twise_prot', 'row', t => 3, rho => 0.125, objective => 'linf',
                                                 query_release => 'pmw', variables => 5))->>'query_release'),
          'pmw', 'objective linf with PMW on the protected path');
SELECT throws_ok($$SELECT mrf_learn_twise_from('twise_prot', 'row', rho => 0.125, variables => 5)$$, '22023', NULL,
                 'a missing t is refused before reading');
SELECT throws_ok($$SELECT mrf_learn_twise_from('twise_prot', 'row', t => 6, rho => 0.125, variables => 5)$$, '22023', NULL,
                 't > p is refused');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'twise_prot'::regclass), 2::bigint,
          'two releases charged, refusals none');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'twise_prot'::regclass), 0.251953125::numeric,
          'the spent rho is the sum of the releases (each rho (1 + 1/128): the count of unreadable rows included)');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_twise_from('twise_prot', 'row', t => 3, rho => 0.375, variables => 5)$$, '42501',
                 'privacy budget of relation public.twise_prot cannot cover this release', 'a release over the cap is refused');
RESET ROLE;

DROP TABLE twise_prot;
SELECT * FROM finish();
