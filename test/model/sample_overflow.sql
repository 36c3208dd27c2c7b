-- server: session_preload
-- Hand-written models whose finite parameters (near 1e308) sum past double
-- precision have no finite distribution: every sampler (exact or chains) refuses them
-- with 22003, as mrf_marginal does, instead of drawing from NaN weights (a
-- chain of such cliques came out uniform, an allocation too).  Large
-- parameters that do not overflow still give their exact rows.
BEGIN;
SELECT plan(11);
SET LOCAL mrfdp.test_seed = 3;
CREATE TEMP TABLE three (a int, b int, c int);
-- a chain of 30 binary cliques favouring 00 by 1e308 each: the joint sums to infinity
CREATE TEMP TABLE chain30 AS
SELECT ('{"kind": "cliques", "p": 30, "k": 2, "cliques": [' ||
		(SELECT string_agg(format('[%s, %s]', i, i + 1), ', ') FROM generate_series(1, 29) i) ||
		'], "log_potentials": [' || (SELECT string_agg('[1e308, 0, 0, 0]', ', ') FROM generate_series(1, 29)) || ']}')::mrf AS m;

SELECT throws_ok($$SELECT count(*) FROM mrf_sample('{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2], [2, 3]],
		"log_potentials": [[0, 0, 0, 1e308], [0, 0, 0, 1e308]]}'::mrf, 100)$$,
	'22003', 'mrf_sample: the model''s marginals are not finite numbers',
	'cliques by enumeration: an infinite joint is refused');
SELECT throws_ok($$SELECT count(*) FROM mrf_sample((SELECT m FROM chain30), 100)$$,
	'22003', NULL, 'cliques through the junction tree: refused');
SELECT throws_ok($$SELECT count(*) FROM mrf_synthesize('{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2], [2, 3]],
		"log_potentials": [[1e308, 0, 0, 0], [1e308, 0, 0, 0]]}'::mrf, 1000, NULL::three, method => 'allocate')$$,
	'22003', 'mrf_synthesize: the model''s marginals are not finite numbers',
	'method => ''allocate'': refused (it allocated a uniform table)');
SELECT throws_ok($$SELECT count(*) FROM mrf_sample(mrf_ising(ARRAY[[0, -1e308, -1e308], [-1e308, 0, 0], [-1e308, 0, 0]]::float8[]), 100)$$,
	'22003', NULL, 'an Ising model by enumeration: refused');
SELECT throws_ok($$SELECT count(*) FROM mrf_sample('{"kind": "pairwise", "p": 3, "k": 2,
		"weights": [[[[0, 0], [0, 0]], [[0, 0], [0, 1.7e308]], [[0, 0], [0, 1.7e308]]],
					[[[0, 0], [0, 1.7e308]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]],
					[[[0, 0], [0, 1.7e308]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]]],
		"fields": [[0, 0], [0, 0], [0, 0]]}'::mrf, 100)$$,
	'22003', NULL, 'a pairwise model by enumeration (both halves of each pair at 1.7e308): refused');
SELECT throws_ok($$SELECT count(*) FROM mrf_sample('{"kind": "twise", "p": 3, "t": 2,
		"monomials": [[[1, 2], 1e308], [[2, 3], 1e308], [[1, 3], -1e308]]}'::mrf, 100)$$,
	'22003', NULL, 'a t-wise model by enumeration: refused');

-- too dense for the junction tree (24 variables, every pair coupled): the
-- chain sampler, whose conditionals for variable 1 sum 23 couplings of 1e308
SELECT throws_ok($$SELECT count(*) FROM mrf_sample(mrf_ising((SELECT array_agg(r ORDER BY i) FROM
		(SELECT i, array_agg(CASE WHEN i = j THEN 0 WHEN i = 1 OR j = 1 THEN 1e308 ELSE 0.01 END ORDER BY j) AS r
		 FROM generate_series(1, 24) i, generate_series(1, 24) j GROUP BY i) x)), 10)$$,
	'22003', NULL, 'a dense Ising model of 24 variables (the chain sampler): refused');

-- large but finite: cell (0, 0) outweighs every other by 1e308
SELECT is((SELECT count(*) FROM mrf_sample('{"kind": "cliques", "p": 2, "k": 2, "cliques": [[1, 2]],
		"log_potentials": [[1e308, -1e308, 0, 0]]}'::mrf, 1000) x WHERE x <> ARRAY[0, 0]), 0::bigint,
	'a finite distribution with potentials of 1e308: every row is its mode');
SELECT is((SELECT array_agg(n ORDER BY a, b) FROM (SELECT a, b, count(*) AS n FROM mrf_synthesize(
		'{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2]], "log_potentials": [[1e308, -1e308, 1e308, 0]]}'::mrf,
		1000, NULL::three, method => 'allocate') GROUP BY a, b) s), ARRAY[500, 500]::bigint[],
	'allocated: its two modes (a, b) = (0, 0) and (1, 0) get 500 rows each, no other cell any');
SELECT is((SELECT count(*) FROM mrf_sample('{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2], [2, 3]],
		"log_potentials": [[-1e308, 0, 0, 0], [-1e308, 0, 0, 0]]}'::mrf, 1000) x
		WHERE x[1:2] = ARRAY[0, 0] OR x[2:3] = ARRAY[0, 0]), 0::bigint,
	'potentials of -1e308 summing to -infinity are zero weights: no row has a pair 00');
SELECT lives_ok($$SELECT count(*) FROM mrf_sample('{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2]],
		"log_potentials": [[1, 2, 3, 4]]}'::mrf, 10)$$, 'the backend samples again after the refusals');

SELECT * FROM finish();
ROLLBACK;
