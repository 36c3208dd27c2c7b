-- server: session_preload
-- Declared domains (issue 11 item 1): text, character and integer columns
-- take the alphabet the caller declares (domains => ...), never one read
-- from the data; each variable keeps its own alphabet next to enums and
-- booleans; a value outside its column's domain is refused, naming the column.
BEGIN;
SELECT plan(14);
SET LOCAL mrfdp.test_seed = 77;

CREATE TEMP TABLE dm_people (state text, age_band int, code char(2), urban boolean);
-- age_band follows state (CA -> 0/1, NY -> 2, TX -> 3), code is noise
INSERT INTO dm_people
SELECT (ARRAY['CA', 'NY', 'TX'])[1 + g % 3],
	   CASE g % 3 WHEN 0 THEN (g / 3) % 2 WHEN 1 THEN 2 ELSE 3 END,
	   (ARRAY['a', 'bb'])[1 + (g * 7919) % 2],
	   g % 4 = 0
FROM generate_series(1, 3000) g;

CREATE TEMP TABLE dm_model AS
SELECT mrf_learn_pairwise(p, rho => 5,
						  domains => '{"state": ["CA", "NY", "TX"], "age_band": [0, 1, 2, 3], "code": ["a", "bb"]}') AS m
FROM dm_people p;

SELECT results_eq($$SELECT i, name, labels FROM mrf_variables((SELECT m FROM dm_model))$$,
	$$VALUES (1, 'state'::text, ARRAY['CA', 'NY', 'TX']), (2, 'age_band', ARRAY['0', '1', '2', '3']),
			 (3, 'code', ARRAY['a', 'bb']), (4, 'urban', ARRAY['false', 'true'])$$,
	'declared domains give the labels, in the declared order');
SELECT is((SELECT m::jsonb->'alphabets' FROM dm_model), '[3, 4, 2, 2]'::jsonb,
		  'each variable has its declared alphabet');
SELECT is((SELECT name_i || '-' || name_j FROM mrf_edges((SELECT m FROM dm_model)) ORDER BY weight DESC LIMIT 1),
		  'state-age_band', 'the strongest edge by name');
SELECT is((SELECT label_b FROM mrf_weights((SELECT m FROM dm_model))
		   WHERE name_i = 'state' AND name_j = 'age_band' AND label_a = 'NY' ORDER BY weight DESC LIMIT 1),
		  '2', 'NY goes with age band 2 (labels map to the right codes)');
SELECT is((SELECT label_b FROM mrf_weights((SELECT m FROM dm_model))
		   WHERE name_i = 'state' AND name_j = 'age_band' AND label_a = 'TX' ORDER BY weight DESC LIMIT 1),
		  '3', 'TX goes with age band 3');
SELECT is((SELECT count(*) FROM mrf_sample((SELECT m FROM dm_model), 2000, seed => 1) x WHERE x[1] > 2 OR x[3] > 1),
		  0::bigint, 'samples stay inside every declared domain');
SELECT is((SELECT (m::text::mrf)::text FROM dm_model), (SELECT m::text FROM dm_model),
		  'the text form reads back exactly');

-- refusals, from the type and the declaration
SELECT throws_ok($$SELECT mrf_learn_pairwise(p, rho => 1, domains => '{"state": ["CA", "NY"], "age_band": [0, 1, 2, 3], "code": ["a", "bb"]}')
				   FROM dm_people p$$, '23514', 'mrf_learn_pairwise: column "state" has a value outside its declared domain',
				 'a value outside its declared domain is refused, naming the column');
SELECT throws_ok($$SELECT mrf_learn_pairwise(p, rho => 1, domains => '{"state": ["CA", "NY", "TX"], "age_band": [0, 1, 2]}')
				   FROM (SELECT state, age_band FROM dm_people) p$$, '23514',
				 'mrf_learn_pairwise: column "age_band" has a value outside its declared domain',
				 'an integer outside its declared domain is refused, naming the column');
SELECT throws_ok($$SELECT mrf_learn_pairwise(p, rho => 1, domains => '{"state": ["CA", "NY", "TX"]}') FROM dm_people p$$,
				 '42804', NULL, 'a text or integer column without a declared domain is refused');
SELECT throws_ok($$SELECT mrf_learn_pairwise(p, rho => 1, domains => '{"state": ["CA", "NY", "TX"], "age_band": [0, 1, 2, 3], "code": ["a", "bb"], "zip": [1, 2]}')
				   FROM dm_people p$$, '42703', NULL, 'a domain naming no column is refused');
SELECT throws_ok($$SELECT mrf_learn_pairwise(p, rho => 1, domains => '{"urban": [0, 1], "state": ["CA", "NY", "TX"], "age_band": [0, 1, 2, 3], "code": ["a", "bb"]}')
				   FROM dm_people p$$, '22023', NULL, 'a boolean or enum column takes its alphabet from its type');
SELECT throws_ok($$SELECT mrf_options(rho => 1, domains => '{"state": ["CA", "CA"]}')$$, '22023', NULL,
				 'a domain lists each value once');
SELECT throws_ok($$SELECT mrf_learn_pairwise(ARRAY[1, 0], k => 2, rho => 1, domains => '{"a": [0, 1]}')$$, '22023', NULL,
				 'domains are for rows of columns');

SELECT * FROM finish();
ROLLBACK;
