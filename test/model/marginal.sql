-- server: session_preload
-- mrf_marginal(model, columns): the exact marginal of any set of a model's
-- variables, by elimination on the calibrated junction tree.  Against closed
-- forms on wide models (a 60-variable binary chain of cliques and a
-- 30-spin Ising chain, where the ends are far apart: no clique holds them),
-- against enumeration of every state of a loopy clique model (every 3-way
-- set and a 5-way set), against mrf_marginals inside a clique; 3-way sets of
-- a 14-column table with 100-value domains (a learned MST model: the
-- marginal sums to one and sums to its 2-way marginals); names and labels;
-- every bad input with its SQLSTATE.
BEGIN;
SELECT plan(21);
SET LOCAL mrfdp.test_seed = 23;
SELECT setseed(0.23);

-- a binary chain of 60 variables, cliques {i, i+1}, flip probability q = 0.1:
-- P(x_a = x_b) = (1 + 0.8^|a - b|) / 2 from a uniform x_1
CREATE TEMP TABLE mg_chain AS
SELECT format('{"kind": "cliques", "p": 60, "k": 2, "cliques": [%s], "log_potentials": [%s]}',
			  string_agg(format('[%s, %s]', i, i + 1), ', ' ORDER BY i),
			  string_agg(format('[%s, %s, %s, %s]', ln(0.9), ln(0.1), ln(0.1), ln(0.9)), ', ' ORDER BY i))::mrf AS m
FROM generate_series(1, 59) i;
SELECT ok((SELECT bool_and(abs(probability - CASE WHEN assignment[1] = assignment[2]
													THEN (1 + 0.8 ^ 59) / 4 ELSE (1 - 0.8 ^ 59) / 4 END) < 1e-12)
		   FROM mg_chain, mrf_marginal(m, '{1,60}')),
		  'chain of 60: the marginal of its two ends equals the closed form');
SELECT ok((SELECT bool_and(abs(probability - 0.5
							   * CASE WHEN assignment[1] = assignment[2] THEN (1 + 0.8 ^ 27) / 2 ELSE (1 - 0.8 ^ 27) / 2 END
							   * CASE WHEN assignment[2] = assignment[3] THEN (1 + 0.8 ^ 30) / 2 ELSE (1 - 0.8 ^ 30) / 2 END) < 1e-12)
				  AND count(*) = 8
		   FROM mg_chain, mrf_marginal(m, '{60,3,30}')),
		  'chain of 60: a 3-way marginal of far-apart variables (given in any order) equals the closed form');
SELECT is((SELECT DISTINCT clique FROM mg_chain, mrf_marginal(m, '{60,3,30}')), '{3,30,60}',
		  'the variables come back ascending, as a clique of mrf_marginals');

-- a 30-spin Ising chain with coupling 0.5 and no field (2^30 states: no
-- enumeration): P(z_1 = z_30) = (1 + tanh(0.5)^29) / 2
CREATE TEMP TABLE mg_ising AS
SELECT format('{"kind": "ising", "p": 30, "k": 2, "weights": [%s], "fields": [%s]}',
			  (SELECT string_agg('[' || (SELECT string_agg(CASE WHEN abs(i - j) = 1 THEN '0.5' ELSE '0' END, ', ' ORDER BY j)
										 FROM generate_series(1, 30) j) || ']', ', ' ORDER BY i)
			   FROM generate_series(1, 30) i),
			  (SELECT string_agg('0', ', ') FROM generate_series(1, 30)))::mrf AS m;
SELECT ok((SELECT bool_and(abs(probability - CASE WHEN assignment[1] = assignment[2]
													THEN (1 + tanh(0.5) ^ 29) / 4 ELSE (1 - tanh(0.5) ^ 29) / 4 END) < 1e-12)
		   FROM mg_ising, mrf_marginal(m, '{1,30}')),
		  'Ising chain of 30 spins: the ends'' marginal equals the closed form');

-- a loopy clique model (a 4-cycle, a triangle on it, a tail) with random
-- potentials, against enumeration of all 2^7 states from mrf_potentials
CREATE TEMP TABLE mg_loopy AS
SELECT format('{"kind": "cliques", "p": 7, "k": 2, "cliques": [[1, 2], [2, 3], [3, 4], [1, 4], [2, 4, 5], [5, 6], [7]], "log_potentials": [%s]}',
			  string_agg(t, ', ' ORDER BY c))::mrf AS m
FROM (SELECT c, '[' || string_agg((2 * random() - 1)::text, ', ') || ']' AS t
	  FROM (VALUES (1, 4), (2, 4), (3, 4), (4, 4), (5, 8), (6, 4), (7, 2)) v(c, cells),
		   generate_series(1, cells) x GROUP BY c) q;
CREATE TEMP TABLE mg_states AS
SELECT g, array(SELECT (g >> (i - 1)) & 1 FROM generate_series(1, 7) i) AS z,
	   exp((SELECT sum(pt.log_potential) FROM mg_loopy, mrf_potentials(m) pt
			WHERE (SELECT bool_and(pt.assignment[j] = ((g >> (pt.clique[j] - 1)) & 1))
				   FROM generate_subscripts(pt.clique, 1) j))) AS w
FROM generate_series(0, 127) g;
-- every 3-way set: the largest difference from enumeration
CREATE TEMP TABLE mg_diff AS
SELECT s.a, s.b, s.c,
	   (SELECT max(abs(mm.probability - e.pr))
		FROM mg_loopy, mrf_marginal(m, ARRAY[s.a::text, s.b::text, s.c::text]) mm
		JOIN (SELECT z[s.a] AS za, z[s.b] AS zb, z[s.c] AS zc, sum(w) / (SELECT sum(w) FROM mg_states) AS pr
			  FROM mg_states GROUP BY 1, 2, 3) e
		  ON e.za = mm.assignment[1] AND e.zb = mm.assignment[2] AND e.zc = mm.assignment[3]) AS d
FROM (SELECT a, b, c FROM generate_series(1, 7) a, generate_series(1, 7) b, generate_series(1, 7) c
	  WHERE a < b AND b < c) s;
SELECT is((SELECT count(*) FROM mg_diff WHERE d < 1e-12), 35::bigint,
		  'loopy clique model: all 35 three-way marginals equal enumeration within 1e-12');
SELECT ok((SELECT max(abs(mm.probability - e.pr)) < 1e-12
		   FROM mg_loopy, mrf_marginal(m, '{1,3,5,6,7}') mm
		   JOIN (SELECT z[1] AS z1, z[3] AS z3, z[5] AS z5, z[6] AS z6, z[7] AS z7,
						sum(w) / (SELECT sum(w) FROM mg_states) AS pr
				 FROM mg_states GROUP BY 1, 2, 3, 4, 5) e
			 ON (e.z1, e.z3, e.z5, e.z6, e.z7) = (mm.assignment[1], mm.assignment[2], mm.assignment[3],
												  mm.assignment[4], mm.assignment[5])),
		  'loopy clique model: a 5-way marginal across clusters equals enumeration');
SELECT ok((SELECT max(abs(a.probability - b.probability)) < 1e-12
		   FROM mg_loopy, mrf_marginals(m) a JOIN mrf_marginal(m, '{2,4,5}') b USING (assignment)
		   WHERE a.clique = '{2,4,5}'),
		  'a set that is a clique: mrf_marginal equals mrf_marginals');

-- a 14-column table with 100-value domains (as UCI Adult's widest): a
-- chain of columns, learned by MST at a large rho
CREATE TEMP TABLE mg_wide AS
SELECT c1, (c1 * 7 + (random() * 3)::int) % 100 AS c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14
FROM (SELECT (random() * 99)::int AS c1, (random() * 9)::int AS c3, (random() * 15)::int AS c4,
			 (random() * 6)::int AS c5, (random() * 14)::int AS c6, (random() * 5)::int AS c7,
			 (random() * 4)::int AS c8, (random()) ::int AS c9, (random() * 99)::int AS c10,
			 (random() * 99)::int AS c11, (random() * 40)::int AS c12, (random())::int AS c13,
			 (random() * 2)::int AS c14
	  FROM generate_series(1, 3000)) r;
-- the declared domains (a constant option: through a psql variable)
SELECT jsonb_object_agg('c' || i, (SELECT jsonb_agg(v) FROM generate_series(0, d - 1) v)) AS mg_dom
FROM unnest(ARRAY[100, 100, 10, 16, 7, 15, 6, 5, 2, 100, 100, 41, 2, 3]) WITH ORDINALITY u(d, i) \gset
CREATE TEMP TABLE mg_wide_model AS
SELECT mrf_learn_mst(r, rho => 10, domains => :'mg_dom') AS m FROM mg_wide r;
CREATE TEMP TABLE mg_wide3 AS SELECT g.* FROM mg_wide_model, mrf_marginal(m, '{c1,c10,c11}') g;
SELECT is((SELECT count(*) FROM mg_wide3), 1000000::bigint, 'a 3-way marginal of three 100-value columns: 10^6 cells');
SELECT ok((SELECT abs(sum(probability) - 1) < 1e-9 AND min(probability) >= 0 FROM mg_wide3),
		  'it is a distribution');
SELECT ok((SELECT max(abs(s.pr - t.probability)) < 1e-12
		   FROM (SELECT assignment[1] AS a, assignment[3] AS c, sum(probability) AS pr FROM mg_wide3 GROUP BY 1, 2) s
		   JOIN (SELECT * FROM mg_wide_model, mrf_marginal(m, '{c1,c11}')) t
			 ON t.assignment = ARRAY[s.a, s.c]),
		  'summed over its middle column it is the 2-way marginal of the other two');
SELECT is((SELECT DISTINCT names FROM mg_wide3), '{c1,c10,c11}', 'the columns'' names come with the rows');
SELECT ok((SELECT bool_and(labels = ARRAY[assignment[1]::text, assignment[2]::text, assignment[3]::text])
		   FROM mg_wide3 WHERE assignment[2] < 3),
		  'and the declared values as labels');

-- enum and boolean labels
CREATE TYPE mg_colour AS ENUM ('red', 'green', 'blue');
CREATE TEMP TABLE mg_lab AS
SELECT (enum_range(NULL::mg_colour))[1 + g % 3] AS colour, g % 2 = 0 AS flag, g % 5 = 0 AS five
FROM generate_series(1, 600) g;
SELECT is((SELECT array_agg(array_to_string(labels, '/') ORDER BY assignment)
		   FROM mrf_marginal((SELECT mrf_learn_mst(r, rho => 1) FROM mg_lab r), '{five,colour}')),
		  ARRAY['red/false', 'red/true', 'green/false', 'green/true', 'blue/false', 'blue/true'],
		  'labels follow the model''s variables (enum, boolean) in ascending order');

-- errors
SELECT throws_ok($$SELECT * FROM mg_wide_model, mrf_marginal(m, '{c1,nope}')$$, '42703', NULL,
				 'an unknown column: 42703');
SELECT throws_ok($$SELECT * FROM mg_wide_model, mrf_marginal(m, '{c1,c2,c1}')$$, '42701', NULL,
				 'a column named twice: 42701');
SELECT throws_ok($$SELECT * FROM mg_chain, mrf_marginal(m, '{0}')$$, '42703', NULL,
				 'a variable number out of range: 42703');
SELECT throws_ok($$SELECT * FROM mg_wide_model, mrf_marginal(m, '{}')$$, '22023', NULL,
				 'no columns: 22023');
SELECT throws_ok($$SELECT * FROM mg_wide_model, mrf_marginal(m, ARRAY['c1', NULL])$$, '22004', NULL,
				 'a NULL column: 22004');
SET LOCAL mrfdp.max_learner_memory = '64MB';
SELECT throws_ok($$SELECT * FROM mg_wide_model, mrf_marginal(m, '{c1,c2,c10,c11}')$$, '54000', NULL,
				 'a set whose own table (10^8 cells) exceeds the memory limit: 54000');
RESET mrfdp.max_learner_memory;
-- a dense Ising model of 31 spins (every pair coupled) has no junction tree
SELECT throws_ok(format($$SELECT * FROM mrf_marginal(%L::mrf, '{1,2}')$$,
						format('{"kind": "ising", "p": 31, "k": 2, "weights": [%s], "fields": [%s]}',
							   (SELECT string_agg('[' || (SELECT string_agg(CASE WHEN i = j THEN '0' ELSE '0.12' END, ', ' ORDER BY j)
														  FROM generate_series(1, 31) j) || ']', ', ' ORDER BY i)
								FROM generate_series(1, 31) i),
							   (SELECT string_agg('0', ', ') FROM generate_series(1, 31)))),
				 '54000', NULL, 'a dense 31-spin Ising model (no junction tree): 54000');
SELECT throws_ok($$SELECT * FROM mrf_marginal((SELECT mrf_learn_twise(r, rho => 1, t => 2) FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] r FROM generate_series(1, 100) g) q), '{1}')$$,
				 '0A000', NULL, 't-wise models: 0A000');

SELECT * FROM finish();
ROLLBACK;
