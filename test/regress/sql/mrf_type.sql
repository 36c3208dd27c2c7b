-- The mrf type: JSON text I/O, jsonb cast, accessors on a hand-written model.
CREATE TABLE models (name text PRIMARY KEY, m mrf);
INSERT INTO models VALUES ('chain3',
  '{"kind": "ising", "p": 3,
    "weights": [[0, 0.5, 0], [0.5, 0, -0.25], [0, -0.25, 0]],
    "fields": [0.1, 0, -0.1]}');

-- text output reads back to the same value
SELECT m::text FROM models WHERE name = 'chain3';
SELECT (m::text)::mrf::text = m::text AS round_trip FROM models WHERE name = 'chain3';
SELECT m::jsonb -> 'weights' -> 1 AS row2 FROM models WHERE name = 'chain3';
SELECT mrf_info(m) FROM models WHERE name = 'chain3';

-- accessors: edges once per pair (i < j), 1-based; threshold filters |w|
SELECT * FROM mrf_edges((SELECT m FROM models WHERE name = 'chain3'));
SELECT * FROM mrf_edges((SELECT m FROM models WHERE name = 'chain3'), threshold => 0.3);
SELECT * FROM mrf_fields((SELECT m FROM models WHERE name = 'chain3'));

-- an asymmetric model lists ordered pairs
SELECT * FROM mrf_edges('{"kind": "ising", "p": 2, "weights": [[0, 1], [0.5, 0]], "fields": [0, 0]}');

-- binary I/O through COPY
COPY models TO '/tmp/mrfdp_models.bin' WITH (FORMAT binary);
CREATE TABLE models2 (LIKE models);
COPY models2 FROM '/tmp/mrfdp_models.bin' WITH (FORMAT binary);
SELECT a.m::text = b.m::text AS binary_round_trip FROM models a JOIN models2 b USING (name);

-- malformed documents
SELECT 'not json'::mrf;
SELECT '[1, 2]'::mrf;
SELECT '{"kind": "potts", "p": 2}'::mrf;
SELECT '{"kind": "ising", "p": 1, "weights": [[0]], "fields": [0]}'::mrf;
SELECT '{"kind": "ising", "p": 2, "weights": [[0, 1]], "fields": [0, 0]}'::mrf;
SELECT '{"kind": "ising", "p": 2, "weights": [[1, 1], [1, 0]], "fields": [0, 0]}'::mrf;
SELECT '{"kind": "ising", "p": 2, "weights": [[0, "a"], [1, 0]], "fields": [0, 0]}'::mrf;
SELECT '{"kind": "ising", "p": 2, "weights": [[0, 1], [1, 0]]}'::mrf;
SELECT * FROM mrf_edges('{"kind": "ising", "p": 2, "weights": [[0, 1], [1, 0]], "fields": [0, 0]}', -1);
