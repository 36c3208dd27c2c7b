-- Seeds of the fuzz corpus (test/fuzz/run_fuzz.sh --seed runs this in a throwaway
-- cluster): valid documents of every model kind, learned and by hand, option
-- documents of every learner, clique lists and mrf_options argument lists.
-- Output rows: target, name, content.
SET mrfdp.test_seed = 7;
CREATE TEMP TABLE bits AS
	SELECT x AS "row" FROM mrf_sample(mrf_ising(ARRAY[[0, .6, 0, 0], [.6, 0, .5, 0], [0, .5, 0, -.4], [0, 0, -.4, 0]]::float8[]), 400, seed => 3) x;
CREATE TEMP TABLE kary AS
	SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3, (g / 2) % 3] AS x FROM generate_series(1, 300) g;
CREATE TEMP TABLE seeds (target text, name text, content text);
INSERT INTO seeds
SELECT 'model', name, m::text FROM (VALUES
	('ising-learned', (SELECT mrf_learn_ising("row", rho => 1) FROM bits)),
	('ising-hand', mrf_ising(ARRAY[[0, .5], [.5, 0]], ARRAY[0, 0.1])),
	('ising-asym', mrf_ising(ARRAY[[0, .5, 0], [.25, 0, -1], [0, 2, 0]])),
	('pairwise', (SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM kary)),
	('twise-l1', (SELECT mrf_learn_twise("row", t => 3, rho => 1) FROM bits)),
	('twise-linf', (SELECT mrf_learn_twise("row", t => 2, rho => 1, objective => 'linf') FROM bits)),
	('structure', (SELECT mrf_learn_structure("row", rho => 5, eta => 0.3, method => 'threshold') FROM bits)),
	('structure-twise', '{"kind": "structure", "p": 5, "t": 3, "monomials": [[3, 2, 1], [5, 4]]}'::mrf),
	('structure-k3', '{"kind": "structure", "p": 4, "k": 3, "edges": [[1, 2], [2, 4]], "meta": {"note": "by hand"}}'::mrf),
	('cliques-naive', (SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3], [3, 4]]', k => 3, epsilon => 1, method => 'naive') FROM kary)),
	('cliques-cgm', (SELECT mrf_learn_cliques(x, cliques => '[[2, 1], [1, 3, 4]]', k => 3, epsilon => 1) FROM kary)),
	('twise-hand', '{"kind": "twise", "p": 5, "t": 3, "monomials": [[[1, 2, 3], 0.5], [[4, 5], 0.4]]}'::mrf),
	('cliques-hand', '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[2, 1]], "log_potentials": [[0, 1, 2, 3]], "meta": {"private": false}}'::mrf)
) v(name, m);
INSERT INTO seeds VALUES
	('model', 'bad-pairwise', '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[0,0],[0,0]], [[1,0],[0]]], [[[0,0],[0,0]], [[0,0],[0,0]]]], "fields": [[0,0],[0,0]]}'),
	('model', 'bad-cliques', '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1.5, 2]], "log_potentials": [[0, 0, 0, 0]]}'),
	('model', 'bad-structure', '{"kind": "structure", "p": 4, "edges": [[1, 2], [3, 4], [1, 2]]}');
INSERT INTO seeds
SELECT 'options', name, doc::text FROM (VALUES
	('ising', mrf_options(rho => 0.5, lambda => 2, iterations => 50, mechanism => 'laplace', symmetrize => false)),
	('ising-dp', mrf_options(epsilon => 1, delta => 1e-6)),
	('pairwise', mrf_options(k => 3, rho => 1, lambda => 1.5)),
	('twise', mrf_options(t => 3, rho => 1, objective => 'linf', query_release => 'pmw')),
	('structure', mrf_options(epsilon => 2, delta => 1e-6, eta => 0.5, blocks => 4)),
	('structure-threshold', mrf_options(rho => 1, eta => 0.5, method => 'threshold', model => 'pairwise', k => 3)),
	('structure-twise', mrf_options(epsilon => 1, delta => 1e-6, eta => 0.8, model => 'twise', t => 3)),
	('cliques', mrf_options(cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1, method => 'cgm', tolerance => 1e-6, em_iterations => 20))
) v(name, doc);
INSERT INTO seeds VALUES
	('options', 'not-object', '[1, {"rho": 1}]'),
	('options', 'nulls', '{"rho": null, "epsilon": 1, "delta": 1e-300, "k": 2.0}');
INSERT INTO seeds VALUES
	('cliques', 'chain', '[[1, 2], [2, 3], [3, 4]]'),
	('cliques', 'triangle', '[[1, 2, 3], [3, 4], [4, 5, 6]]'),
	('cliques', 'loop', '[[1, 2], [2, 3], [3, 4], [4, 1]]'),
	('cliques', 'singletons', '[[1], [2], [3, 1]]');
INSERT INTO seeds VALUES
	('mrf_options', 'ising', E'rho\t0.5\nlambda\t2\niterations\t50\nmechanism\tlaplace\nsymmetrize\tfalse'),
	('mrf_options', 'structure', E'epsilon\t1\ndelta\t1e-6\neta\t0.5\nblocks\t3\nmodel\tpairwise\nk\t3\nmethod\tstable'),
	('mrf_options', 'twise', E't\t3\nrho\t1\nobjective\tlinf\nquery_release\tgaussian'),
	('mrf_options', 'cliques', E'cliques\t[[1, 2], [2, 3]]\nk\t3\nepsilon\t1\nmethod\tcgm\ntolerance\t1e-5\nem_iterations\t7');
INSERT INTO seeds VALUES
	('ising', 'hand', E'{{0, 0.5}, {0.5, 0}}\n{0, 0.1}'),
	('ising', 'three', E'{{0, 0.5, 0}, {0.25, 0, -1}, {0, 2, 0}}'),
	('ising', 'bad', E'{{1, 0.5}, {0.5, 0}}\n{0}');
COPY (SELECT target, name, encode(convert_to(content, 'UTF8'), 'base64') FROM seeds) TO STDOUT;
