-- server: session_preload
-- mrf_learn_pairwise_from: the protected path of the pairwise k-ary
-- learner, on integer arrays (k given) and on rows of enum columns (k from
-- the type).  Not in a transaction; cleans up at the end.
SELECT plan(11);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS pairwise_prot, pairwise_prot_enum CASCADE;
DROP TYPE IF EXISTS pairwise_level;
SET mrfdp.test_seed = 29;
CREATE TABLE pairwise_prot AS
SELECT x AS "row" FROM mrf_sample('{"kind": "pairwise", "p": 3, "k": 3,
  "weights": [[[[0,0,0],[0,0,0],[0,0,0]], [[0.5,-0.5,0],[0,0.5,-0.5],[-0.5,0,0.5]], [[0,0,0],[0,0,0],[0,0,0]]],
              [[[0.5,0,-0.5],[-0.5,0.5,0],[0,-0.5,0.5]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]],
              [[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]]],
  "fields": [[0, 0, 0], [0, 0, 0], [0.4, -0.2, -0.2]]}'::mrf, 3000, seed => 5) x;
-- unreadable rows (NULL, outside 0..k-1, wrong length) never raise an error here
INSERT INTO pairwise_prot VALUES (NULL), (ARRAY[0, 7, 1]), (ARRAY[0, 1]);
CREATE TYPE pairwise_level AS ENUM ('low', 'mid', 'high');
CREATE TABLE pairwise_prot_enum AS
SELECT (enum_range(NULL::pairwise_level))["row"[1] + 1] AS a, (enum_range(NULL::pairwise_level))["row"[2] + 1] AS b,
       (enum_range(NULL::pairwise_level))["row"[3] + 1] AS c
FROM pairwise_prot WHERE cardinality("row") = 3 AND "row" <@ ARRAY[0, 1, 2];
SELECT pg_temp.protect_for_analyst('pairwise_prot', epsilon => 1000, delta => 1e-6, rho_cap => 0.5);
SELECT pg_temp.protect_for_analyst('pairwise_prot_enum', epsilon => 1000, delta => 1e-6, rho_cap => 0.5);

SET ROLE mrfdp_tap_outsider;
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('pairwise_prot', 'row', k => 3, rho => 0.125, variables => 3)$$, '42501', NULL,
                 'a role without the grant is refused');
RESET ROLE;
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok('SELECT count(*) FROM pairwise_prot', '42501', NULL, 'the analyst cannot read the relation');
CREATE TEMP TABLE pairwise_released AS
SELECT mrf_learn_pairwise_from('pairwise_prot', 'row', k => 3, rho => 0.125, variables => 3) AS m;
SELECT is((SELECT mrf_info(m)->>'rows' FROM pairwise_released), '3003', 'the granted analyst learns from every row');
SELECT is((SELECT mrf_info(m)->>'kind' || ' k=' || (mrf_info(m)->>'k') FROM pairwise_released), 'pairwise k=3',
          'a pairwise model with k = 3');
SELECT is((SELECT count(*) FROM mrf_weights((SELECT m FROM pairwise_released))), 27::bigint,
          'mrf_weights: 3 pairs of 3 x 3 values');
SELECT is((SELECT mrf_info(mrf_learn_pairwise_from('pairwise_prot_enum', NULL, rho => 0.125))->>'k'), '3',
          'rows of enum columns: k from the type, p from the row type');
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('pairwise_prot', 'row', rho => 0.125, variables => 3)$$, '22023', NULL,
                 'integer arrays without k are refused before reading');
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('pairwise_prot_enum', NULL, k => 4, rho => 0.125)$$, '22023', NULL,
                 'k not matching the enum is refused');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pairwise_prot'::regclass), 1::bigint,
          'one release charged to the integer relation, refusals none');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'pairwise_prot_enum'::regclass), 0.1259765625::numeric,
          'the enum relation is charged its own release (rho (1 + 1/128): the count of unreadable rows included)');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('pairwise_prot', 'row', k => 3, rho => 0.5, variables => 3)$$, '42501',
                 'privacy budget of relation public.pairwise_prot cannot cover this release', 'a release over the cap is refused');
RESET ROLE;

DROP TABLE pairwise_prot, pairwise_prot_enum;
DROP TYPE pairwise_level;
SELECT * FROM finish();
