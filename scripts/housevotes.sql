-- The README's HouseVotes84 example, end to end: load, protect, learn with
-- each NULL policy (one per column too), the strongest edges by name, a
-- synthetic table, the DOT picture.
--   scripts/housevotes.sh && pg_virtualenv -o session_preload_libraries=mrfdp \
--     sh -c 'psql -c "CREATE EXTENSION mrfdp" && psql -X -f scripts/housevotes.sql'
\set ON_ERROR_STOP 1
\i scripts/housevotes_load.sql
SELECT count(*) AS members, count(*) FILTER (WHERE NOT (h IS NOT NULL)) AS with_a_missing_vote
FROM housevotes h;

-- the owner protects the table: (epsilon 60, delta 1e-6) in all; here the
-- owner also learns through the protected path
SELECT mrfdp.protect('housevotes', epsilon => 60, delta => 1e-6);
SELECT mrfdp.grant_learning('housevotes', current_user::regrole);

-- nulls => 'error' (the default): the 203 rows with a NULL are replaced by a
-- fixed row on the protected path (and counted, with noise)
CREATE TABLE hv_models AS
SELECT 'error' AS nulls, mrf_learn_pairwise_from('housevotes', NULL, rho => 4, lambda => 2) AS m;
-- 'category': a missing vote is a third value of every vote
INSERT INTO hv_models
SELECT 'category', mrf_learn_pairwise_from('housevotes', NULL, rho => 4, lambda => 2, nulls => 'category');
-- a declared value: a missing vote reads as n
INSERT INTO hv_models
SELECT 'n', mrf_learn_pairwise_from('housevotes', NULL, rho => 4, lambda => 2, nulls => 'n');
-- per column: party is never missing (its NULL would replace the row); a
-- missing vote is a third value of every vote ("*": the columns not named)
INSERT INTO hv_models
SELECT 'per column', mrf_learn_pairwise_from('housevotes', NULL, rho => 4, lambda => 2,
											 nulls => '{"party": "error", "*": "category"}');

SELECT nulls, mrf_info(m)->'substituted_rows'->>'noisy_count' AS substituted,
	   mrf_info(m)->>'k' AS k, m::jsonb->'alphabets'->>0 AS k_party,
	   mrf_info(m)->>'rho_per_regression' AS rho_per_regression
FROM hv_models ORDER BY nulls;

-- the strongest edges, by name, under each policy
SELECT nulls, string_agg(name_i || ' - ' || name_j || ' ' || round(weight::numeric, 2), ', ' ORDER BY weight DESC) AS strongest
FROM hv_models, LATERAL (SELECT * FROM mrf_edges(m) ORDER BY weight DESC LIMIT 4) e
GROUP BY nulls ORDER BY nulls;

-- how party and the physician fee freeze vote go together (category model)
SELECT label_a AS party, label_b AS physician_fee_freeze, round(weight::numeric, 2) AS w
FROM mrf_weights((SELECT m FROM hv_models WHERE nulls = 'category'))
WHERE name_i = 'party' AND name_j = 'physician_fee_freeze' ORDER BY 1, 2;

-- a synthetic table in the source's types (post-processing: no budget):
-- mrf_synthesize_into creates it with the columns' names and types
SELECT mrf_synthesize_into((SELECT m FROM hv_models WHERE nulls = 'per column'), 'housevotes_synth', 435);
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'housevotes_synth'::regclass AND attnum BETWEEN 1 AND 3 ORDER BY attnum;
SELECT party, count(*) AS members, count(*) FILTER (WHERE physician_fee_freeze = 'y') AS fee_freeze_yes,
	   count(*) FILTER (WHERE physician_fee_freeze IS NULL) AS fee_freeze_missing
FROM housevotes_synth GROUP BY party ORDER BY party;

SELECT * FROM mrfdp.remaining('housevotes');
