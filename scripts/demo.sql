-- mrfdp demo: learn a known chain from its samples under 0.5-zCDP.
\pset footer off
CREATE EXTENSION mrfdp;

-- A chain 1 - 2 - ... - 10 with coupling 0.5, written as a model document.
CREATE TABLE truth AS
SELECT format('{"kind": "ising", "p": 10, "weights": %s, "fields": %s}',
              (SELECT json_agg(r) FROM (
                 SELECT (SELECT json_agg(CASE WHEN abs(i - j) = 1 THEN 0.5 ELSE 0 END ORDER BY j)
                         FROM generate_series(1, 10) j) r
                 FROM generate_series(1, 10) i) rows),
              (SELECT json_agg(0) FROM generate_series(1, 10)))::mrf AS model;

-- 20,000 samples (int[] coded -1/+1), drawn exactly from the model.
CREATE TABLE samples AS SELECT x AS "row" FROM mrf_sample((SELECT model FROM truth), 20000) x;

\echo
\echo 'SELECT mrf_learn_ising(row, rho => 0.5) FROM samples;'
CREATE TABLE learned AS SELECT mrf_learn_ising(row, rho => 0.5) AS model FROM samples;

\echo 'What was spent and how:'
SELECT jsonb_pretty(mrf_info(model) - 'created') AS info FROM learned;

\echo 'Learned edges with |weight| > 0.2 (the true chain has weight 0.5 on i - i+1):'
SELECT i, j, round(weight::numeric, 3) AS weight
FROM mrf_edges((SELECT model FROM learned), threshold => 0.2) ORDER BY i, j;
