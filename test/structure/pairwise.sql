-- server: session_preload
-- Structure learning of k-ary pairwise models (docs/privacy.md 7, model 'pairwise'):
-- the stable mode with the one-vs-one block learner must release exactly
-- the true graph of models sampled exactly (3^6 states) with mrf_sample,
-- through the named form and the aggregate with GROUP BY, and every bad
-- input has its SQLSTATE.  Sizes: 600 rows per block, where the core's
-- unit test finds the k = 3 chain in nearly every block (test_structure.c).
BEGIN;
SELECT plan(12);
SET LOCAL mrfdp.test_seed = 78;
SET LOCAL client_min_messages = warning;

-- A pairwise model on p variables over k values: the blocks of the given
-- edges (1-based) are c on the diagonal and -c / (k - 1) off it (centred).
CREATE FUNCTION pg_temp.model(p int, k int, edges int[], c float8) RETURNS mrf LANGUAGE sql AS $$
	SELECT jsonb_build_object('kind', 'pairwise', 'p', p, 'k', k,
		'weights', (SELECT jsonb_agg(wi ORDER BY i) FROM (
			SELECT i, jsonb_agg(wij ORDER BY j) wi FROM (
				SELECT i, j, (SELECT jsonb_agg(ra ORDER BY a) FROM (
					SELECT a, jsonb_agg(CASE WHEN EXISTS (SELECT 1 FROM generate_subscripts(edges, 1) e
					                                       WHERE (edges[e][1] = i AND edges[e][2] = j)
					                                          OR (edges[e][1] = j AND edges[e][2] = i))
					                         THEN CASE WHEN a = b THEN c ELSE -c / (k - 1) END ELSE 0 END ORDER BY b) ra
					FROM generate_series(0, k - 1) a, generate_series(0, k - 1) b GROUP BY a) qa) wij
				FROM generate_series(1, p) i, generate_series(1, p) j) qij GROUP BY i) qi),
		'fields', (SELECT jsonb_agg(f) FROM (SELECT (SELECT jsonb_agg(0) FROM generate_series(1, k)) f
		                                     FROM generate_series(1, p)) qf))::text::mrf
$$;
-- A graph as text, "1-2 2-3 ...", from any model (weights ignored).
CREATE FUNCTION pg_temp.graph(m mrf) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(i || '-' || j, ' ' ORDER BY i, j), '') FROM mrf_edges(m, 0)
$$;

-- a chain 1-...-6 and a fork 1-2 2-3 2-4 with a separate edge 5-6, couplings 1
CREATE TEMP TABLE truth AS
SELECT 'chain' AS name, pg_temp.model(6, 3, ARRAY[[1,2],[2,3],[3,4],[4,5],[5,6]], 1.0) AS m
UNION ALL
SELECT 'fork', pg_temp.model(6, 3, ARRAY[[1,2],[2,3],[2,4],[5,6]], 1.0);
CREATE TEMP TABLE chain_rows AS
SELECT g, x FROM mrf_sample((SELECT m FROM truth WHERE name = 'chain'), 56400, seed => 21) WITH ORDINALITY s(x, g);
CREATE TEMP TABLE fork_rows AS
SELECT g, x FROM mrf_sample((SELECT m FROM truth WHERE name = 'fork'), 18000, seed => 22) WITH ORDINALITY s(x, g);

-- Named form, the default 94 blocks at epsilon = 1: the exact chain.
CREATE TEMP TABLE learned AS
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 1, lambda => 2, model => 'pairwise', k => 3) AS m
FROM chain_rows;
SELECT is(pg_temp.graph(m), (SELECT pg_temp.graph(m) FROM truth WHERE name = 'chain'),
          'pairwise stable mode: the exact k = 3 chain') FROM learned;
SELECT is(mrf_info(m)->>'kind', 'structure', 'a structure model') FROM learned;
SELECT is((mrf_info(m)->>'k')::int, 3, 'it records k = 3') FROM learned;
SELECT is(mrf_info(m)->>'model', 'pairwise', 'the metadata names the model') FROM learned;
SELECT is(mrf_info(m)->>'blocks', '94', 'the default 94 blocks at epsilon = 1') FROM learned;
SELECT is(pg_temp.graph(m::text::mrf), pg_temp.graph(m), 'the JSON form round-trips') FROM learned;

-- The aggregate with GROUP BY, 30 blocks at epsilon = 2: one graph per group.
CREATE TEMP TABLE by_name AS
SELECT name, mrf_learn_structure_agg(x, mrf_options(epsilon => 2, delta => 1e-6, eta => 1, lambda => 2,
                                                    model => 'pairwise', k => 3, blocks => 30)) AS m
FROM (SELECT 'chain' AS name, x FROM chain_rows WHERE g <= 18000 UNION ALL SELECT 'fork', x FROM fork_rows) q
GROUP BY name;
SELECT is(pg_temp.graph(b.m), pg_temp.graph(t.m), 'GROUP BY: the exact ' || name || ' graph')
FROM by_name b JOIN truth t USING (name) ORDER BY name;

-- Bad inputs.
SELECT throws_ok($$SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 1, model => 'pairwise', k => 2) FROM chain_rows WHERE g <= 200$$,
                 '22003', NULL, 'a value outside 0..k-1');
SELECT throws_ok($$SELECT mrf_learn_structure(x, rho => 1, eta => 1, model => 'pairwise', k => 3, method => 'threshold', blocks => 10) FROM chain_rows$$,
                 '22023', NULL, 'the threshold method takes no blocks');
SELECT throws_ok($$SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 1, k => 3) FROM chain_rows$$,
                 '22023', NULL, 'k with model ising');
SELECT throws_ok($$SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 1, model => 'pairwise', k => 3, t => 3) FROM chain_rows$$,
                 '22023', NULL, 't with model pairwise');

SELECT * FROM finish();
ROLLBACK;
