-- server: session_preload
-- mrf_dot (issue 11 item 5): the learned graph as Graphviz DOT, nodes named
-- by the model's variables, edge width by |weight|, sign by colour and style.
BEGIN;
SELECT plan(14);

CREATE TEMP TABLE dot_m AS
SELECT '{"kind": "ising", "p": 3, "weights": [[0, 0.5, 0], [0.5, 0, -0.25], [0, -0.25, 0]], "fields": [0, 0, 0],
		 "meta": {"variables": [{"name": "party"}, {"name": "say \"yes\""}, {"name": "budget"}]}}'::mrf AS m;
SELECT alike((SELECT mrf_dot(m) FROM dot_m), 'graph mrf {%}%', 'a DOT graph');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT mrf_dot(m) FROM dot_m), 'v\d+ \[label=', 'g')), 3::bigint,
		  'one node per variable');
SELECT ok((SELECT strpos(mrf_dot(m), 'v2 [label="say \"yes\""]') > 0 FROM dot_m), 'nodes are named, quotes escaped');
SELECT ok((SELECT mrf_dot(m) ~ 'v1 -- v2 \[penwidth=6\.00, color="#1f5fa8", style=solid' FROM dot_m),
		  'the strongest edge is widest, positive: solid blue');
SELECT ok((SELECT mrf_dot(m) ~ 'v2 -- v3 \[penwidth=3\.38, color="#c0392b", style=dashed' FROM dot_m),
		  'a negative edge half as strong: narrower, dashed red');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT mrf_dot(m, threshold => 0.3) FROM dot_m), ' -- ', 'g')), 1::bigint,
		  'the threshold drops weak edges');
SELECT ok((SELECT mrf_dot(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[])) LIKE '%v1 [label="1"]%'),
		  'without names, nodes are numbered');
-- Clique models (MST, AIM, mrf_learn_cliques) draw the pairs of variables
-- that share a clique: an MST model's edges are its cliques, learned from a
-- tree of 6 variables (each child copies its parent with probability 0.8).
SET LOCAL mrfdp.test_seed = 5;
CREATE TEMP TABLE dot_rows AS
SELECT a, b, c, CASE WHEN random() < 0.8 THEN c ELSE floor(random() * 3)::int END AS d, e,
	   CASE WHEN random() < 0.8 THEN e ELSE floor(random() * 3)::int END AS f
FROM (SELECT a, b, CASE WHEN random() < 0.8 THEN b ELSE floor(random() * 3)::int END AS c,
			 CASE WHEN random() < 0.8 THEN a ELSE floor(random() * 3)::int END AS e
	  FROM (SELECT a, CASE WHEN random() < 0.8 THEN a ELSE floor(random() * 3)::int END AS b
			FROM (SELECT floor(random() * 3)::int AS a FROM generate_series(1, 20000)) s0) s1) s2;
CREATE TEMP TABLE dot_mst AS
SELECT mrf_learn_mst(r, rho => 4, domains => '{"a": [0, 1, 2], "b": [0, 1, 2], "c": [0, 1, 2], "d": [0, 1, 2], "e": [0, 1, 2], "f": [0, 1, 2]}') AS m
FROM (SELECT a, b, c, d, e, f FROM dot_rows) r;
SELECT is((SELECT array_agg(e ORDER BY e)
		   FROM (SELECT (regexp_matches(mrf_dot(m), 'v(\d+) -- v(\d+) ', 'g'))::text AS e FROM dot_mst) x),
		  (SELECT array_agg(ARRAY[c->>0, c->>1]::text ORDER BY ARRAY[c->>0, c->>1]::text)
		   FROM dot_mst, jsonb_array_elements((m::jsonb)->'cliques') c),
		  'an MST model draws its cliques as edges');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT mrf_dot(m) FROM dot_mst), ' -- ', 'g')), 5::bigint,
		  'a tree of 6 variables: 5 edges');
SELECT ok((SELECT mrf_dot(m) LIKE '%v6 [label="f"]%' FROM dot_mst), 'the MST model''s nodes are named by its columns');
-- overlapping cliques: each pair once, however many cliques hold it; a
-- variable in no clique is a lone node
SELECT is((SELECT array_agg(e ORDER BY e)
		   FROM regexp_matches(mrf_dot('{"kind": "cliques", "p": 5, "k": 2, "cliques": [[1, 2, 3], [2, 3, 4]],
									   "log_potentials": [[0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]}'::mrf),
							   'v(\d) -- v(\d) \[[^]]*tooltip="([^"]*)"', 'g') e),
		  ARRAY[ARRAY['1', '2', '1 clique'], ARRAY['1', '3', '1 clique'], ARRAY['2', '3', '2 cliques'],
				ARRAY['2', '4', '1 clique'], ARRAY['3', '4', '1 clique']],
		  'a clique model: every pair that shares a clique, once, with its clique count');
SELECT ok((SELECT mrf_dot('{"kind": "cliques", "p": 5, "k": 2, "cliques": [[1, 2, 3], [2, 3, 4]],
						   "log_potentials": [[0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]}'::mrf)
		   LIKE '%v5 [label="5"]%'), 'a variable in no clique is a node without edges');
SELECT throws_ok($$SELECT mrf_dot('{"kind": "cliques", "p": 2, "k": 2, "cliques": [[1, 2]], "log_potentials": [[0, 0, 0, 0]]}'::mrf, 0.5)$$,
				 '22023', 'mrf_dot takes no threshold for a clique model', 'a clique model''s pairs have no weight to threshold');
SELECT ok((SELECT mrf_dot('{"kind": "structure", "p": 3, "k": 2, "edges": [[1, 3]]}'::mrf) ~ 'v1 -- v3 \[penwidth'),
		  'a structure still draws its edges');

SELECT * FROM finish();
ROLLBACK;
