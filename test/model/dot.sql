-- server: session_preload
-- mrf_dot (issue 11 item 5): the learned graph as Graphviz DOT, nodes named
-- by the model's variables, edge width by |weight|, sign by colour and style.
BEGIN;
SELECT plan(8);

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
SELECT throws_ok($$SELECT mrf_dot('{"kind": "cliques", "p": 2, "k": 2, "cliques": [[1, 2]], "log_potentials": [[0, 0, 0, 0]]}'::mrf)$$,
				 '42809', NULL, 'clique models have no edge list');

SELECT * FROM finish();
ROLLBACK;
