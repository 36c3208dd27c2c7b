-- Every accepted input form, and every bad input with its SQLSTATE.
LOAD 'mrfdp';  -- the named forms and the ledger need the library loaded first (no preload needed)
SET mrfdp.test_seed = 7;
\set VERBOSITY default

CREATE TABLE b (x boolean[]);
INSERT INTO b SELECT ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 200) i;
CREATE TABLE s AS SELECT ARRAY[CASE WHEN x[1] THEN 1 ELSE -1 END,
                               CASE WHEN x[2] THEN 1 ELSE -1 END,
                               CASE WHEN x[3] THEN 1 ELSE -1 END]::smallint[] AS x FROM b;
CREATE TABLE i4 AS SELECT x::int[] AS x FROM s;
CREATE TABLE v AS SELECT (CASE WHEN x[1] THEN '1' ELSE '0' END ||
                          CASE WHEN x[2] THEN '1' ELSE '0' END ||
                          CASE WHEN x[3] THEN '1' ELSE '0' END)::varbit AS x FROM b;
CREATE TABLE votes AS SELECT x[1] AS a, x[2] AS b, x[3] AS c FROM b;

-- all five forms give the same model under the same seed: same data, same noise
WITH models AS (
  SELECT 'bool' AS form, mrf_learn_ising_agg(x, mrf_options(rho => 1)) AS m FROM b
  UNION ALL SELECT 'int2', mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM s
  UNION ALL SELECT 'int4', mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM i4
  UNION ALL SELECT 'varbit', mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM v
  UNION ALL SELECT 'bit(3)', mrf_learn_ising_agg(x::bit(3), mrf_options(rho => 1)) FROM v
  UNION ALL SELECT 'row', mrf_learn_ising_agg(t, mrf_options(rho => 1)) FROM votes t)
SELECT form, mrf_info(m)->>'p' AS p, mrf_info(m)->>'rows' AS rows,
       (m::jsonb -> 'weights') = (SELECT m::jsonb -> 'weights' FROM models WHERE form = 'bool') AS same_as_bool
FROM models ORDER BY form;

-- the model says it is not private (test seed) and records its calibration inputs
SELECT mrf_info(m) - '{created,learn_seconds,width,width_to_lambda}'::text[] FROM (SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) m FROM b) q;
SELECT mrf_info(m)->>'rho' AS rho, mrf_info(m)->>'epsilon' AS eps
FROM (SELECT mrf_learn_ising_agg(x, mrf_options(epsilon => 1, delta => 1e-6)) m FROM b) q;

-- no rows: NULL, nothing learned
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) IS NULL AS no_rows FROM b WHERE false;

-- bad rows
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (SELECT NULL::boolean[] x) q;
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[true, NULL, false])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[true, false]), (ARRAY[true, false, true])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[1, -1]), (ARRAY[1, 0])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[2, -1]::smallint[])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[true])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES ('{}'::boolean[])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[[true, false], [false, true]])) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (B'10'::varbit), (B'101')) q(x);
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (SELECT array_fill(true, ARRAY[5000]) x) q;
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (VALUES (ARRAY[1.0, -1.0])) q(x);
SELECT mrf_learn_ising_agg(t, mrf_options(rho => 1)) FROM (SELECT true AS a, 1 AS b) t;
SELECT mrf_learn_ising_agg(t, mrf_options(rho => 1)) FROM (SELECT true AS a, NULL::boolean AS b) t;

-- bad options
SELECT mrf_learn_ising_agg(x, mrf_options()) FROM b;
SELECT mrf_learn_ising_agg(x, mrf_options(epsilon => 1)) FROM b;
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, epsilon => 1, delta => 1e-6)) FROM b;
SELECT mrf_learn_ising_agg(x, NULL) FROM b;
SELECT mrf_learn_ising_agg(x, '{"rho": 1, "k": 3}') FROM b;
SELECT mrf_learn_ising_agg(x, '[1]') FROM b;
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1 + (x[1])::int)) FROM b;

-- the memory limit is checked before learning
SET mrfdp.max_learner_memory = '1MB';
SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) FROM (SELECT array_fill(true, ARRAY[1000]) x FROM generate_series(1, 100)) q;
RESET mrfdp.max_learner_memory;

-- only a superuser may set the test seed
CREATE ROLE mrfdp_analyst;
SET ROLE mrfdp_analyst;
SET mrfdp.test_seed = 1;
RESET ROLE;
DROP ROLE mrfdp_analyst;
