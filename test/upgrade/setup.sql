-- The state a 0.1.0 installation carries into ALTER EXTENSION mrfdp UPDATE
-- (test/upgrade/update_keeps_data.sh): data, protected relations owned by
-- another role, a learning grant, stored models of every kind (text and
-- binary), charged releases on both paths.
\set ON_ERROR_STOP 1
SET mrfdp.test_seed = 7;
CREATE ROLE mrfdp_up_owner;
CREATE ROLE mrfdp_up_analyst;
CREATE ROLE mrfdp_up_outsider;
GRANT USAGE ON SCHEMA public TO mrfdp_up_owner, mrfdp_up_analyst, mrfdp_up_outsider;
CREATE TABLE up_results (phase text, name text, result text);
GRANT INSERT ON up_results TO mrfdp_up_analyst;

CREATE TABLE up_bin AS
SELECT g AS id, x AS "row"
FROM mrf_sample(mrf_ising(ARRAY[[0, .6, 0, 0], [.6, 0, .6, 0], [0, .6, 0, .6], [0, 0, .6, 0]]::float8[]),
				3000, seed => 2) WITH ORDINALITY AS s(x, g);
SELECT setseed(0.25);
CREATE TABLE up_kary AS
SELECT g AS id, ARRAY[a, (a + (random() < 0.7)::int) % 3, floor(random() * 3)::int] AS z
FROM (SELECT g, floor(random() * 3)::int AS a FROM generate_series(1, 2000) g) s;
CREATE TABLE up_prot AS SELECT * FROM up_bin;
CREATE TABLE up_prot_kary AS SELECT * FROM up_kary;
CREATE TABLE up_prot_pure AS SELECT * FROM up_kary;
ALTER TABLE up_prot OWNER TO mrfdp_up_owner;
ALTER TABLE up_prot_kary OWNER TO mrfdp_up_owner;
ALTER TABLE up_prot_pure OWNER TO mrfdp_up_owner;

-- Stored models: read back after the update, as text and as binary.
CREATE TABLE up_stored (name text PRIMARY KEY, m mrf);
INSERT INTO up_stored
SELECT 'hand', mrf_ising(ARRAY[[0, .5, 0], [.5, 0, -.25], [0, -.25, 0]]::float8[], ARRAY[.1, 0, -.3]::float8[])
UNION ALL SELECT 'ising', mrf_learn_ising(row, rho => 1) FROM up_bin
UNION ALL SELECT 'pairwise', mrf_learn_pairwise(z, k => 3, rho => 1) FROM up_kary
UNION ALL SELECT 'twise', mrf_learn_twise(row, t => 3, rho => 1) FROM up_bin
UNION ALL SELECT 'structure', mrf_learn_structure(row, rho => 1, eta => 0.5, method => 'threshold') FROM up_bin
UNION ALL SELECT 'cliques', mrf_learn_cliques(z, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1) FROM up_kary;
CREATE TABLE up_stored_text AS SELECT name, m::text AS text, md5(mrf_send(m)) AS bin FROM up_stored;

-- Budgets of every notion, a grant, charges on both paths.
SET ROLE mrfdp_up_owner;
SELECT mrfdp.protect('up_prot', epsilon => 1000, delta => 1e-6, rho_cap => 100);
SELECT mrfdp.protect('up_prot_kary', epsilon => 100, delta => 1e-5);
SELECT mrfdp.protect('up_prot_pure', epsilon => 50, delta => 0);
SELECT mrfdp.grant_learning('up_prot', 'mrfdp_up_analyst');
SELECT mrfdp.grant_learning('up_prot_kary', 'mrfdp_up_analyst');
SELECT mrfdp.grant_learning('up_prot_pure', 'mrfdp_up_analyst');
SELECT mrf_learn_ising(row, rho => 0.5) IS NOT NULL FROM up_prot;
SELECT mrf_learn_pairwise(z, k => 3, rho => 0.5) IS NOT NULL FROM up_prot_kary;
SELECT mrf_learn_cliques(z, cliques => '[[1, 2]]', k => 3, epsilon => 0.5) IS NOT NULL FROM up_prot_pure;
RESET ROLE;
SET ROLE mrfdp_up_analyst;
SELECT mrf_learn_ising_from('up_prot', 'row', rho => 0.25, variables => 4) IS NOT NULL;
SELECT mrf_learn_structure_from('up_prot', 'row', epsilon => 2, delta => 1e-7, eta => 0.5, blocks => 8, variables => 4) IS NULL;
RESET ROLE;
SELECT mrf_learn_ising(row, rho => 1) IS NOT NULL FROM up_bin;  -- unprotected: a ledger row only
