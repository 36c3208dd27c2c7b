-- server: session_preload
-- Structure learning of binary t-wise models (docs/privacy.md 7, model 'twise'): the
-- stable mode with the monomial block learner must release exactly the
-- maximal monomials of a t = 3 model sampled exactly with mrf_sample
-- (a pair inside the triple is not maximal and must not be listed),
-- through the named form and the aggregate with GROUP BY; the model's text
-- form round-trips; every bad input has its SQLSTATE.  Sizes: the core's
-- unit test finds this model in 20 of 20 blocks of 300 rows.
BEGIN;
SELECT plan(13);
SET LOCAL mrfdp.test_seed = 79;
SET LOCAL client_min_messages = warning;

CREATE TEMP TABLE truth AS SELECT '{"kind": "twise", "p": 6, "t": 3, "monomials": [
  [[1], 0.2], [[6], 0.2], [[1, 2], 0.5], [[4, 5], 0.8], [[5, 6], -0.8], [[1, 2, 3], 0.8]]}'::mrf AS m;
CREATE TEMP TABLE rows AS
SELECT g, x FROM mrf_sample((SELECT m FROM truth), 28200, seed => 31) WITH ORDINALITY s(x, g);
-- The items of a t-wise structure as text, "1,2,3 4,5 5,6".
CREATE FUNCTION pg_temp.items(m mrf) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg((SELECT string_agg(v::text, ',' ORDER BY o) FROM jsonb_array_elements(item) WITH ORDINALITY e(v, o)), ' ' ORDER BY n)
	FROM jsonb_array_elements((m::text)::jsonb->'monomials') WITH ORDINALITY q(item, n)
$$;

CREATE TEMP TABLE learned AS
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.8, lambda => 1.6, model => 'twise', t => 3) AS m
FROM rows;
SELECT is(pg_temp.items(m), '4,5 5,6 1,2,3', 'twise stable mode: exactly the maximal monomials') FROM learned;
SELECT is(mrf_info(m)->>'kind', 'structure', 'a structure model') FROM learned;
SELECT is(mrf_info(m)->>'model', 'twise', 'the metadata names the model') FROM learned;
SELECT is((mrf_info(m)->>'monomials')::int, 3, 'and counts the monomials') FROM learned;
SELECT is(mrf_info(m)->>'blocks', '94', 'the default 94 blocks at epsilon = 1') FROM learned;
SELECT is(pg_temp.items(m::text::mrf), pg_temp.items(m), 'the text form round-trips') FROM learned;
SELECT is((SELECT string_agg(i || '-' || j, ' ' ORDER BY i, j) FROM learned, mrf_edges(m, 0)), '1-2 1-3 2-3 4-5 5-6',
          'mrf_edges: the pairs sharing a monomial');

-- The aggregate with GROUP BY: two halves, 30 blocks each at epsilon = 2.
SELECT is(pg_temp.items(m), '4,5 5,6 1,2,3', 'GROUP BY: half ' || h)
FROM (SELECT g % 2 AS h, mrf_learn_structure_agg(x, mrf_options(epsilon => 2, delta => 1e-6, eta => 0.8, lambda => 1.6,
                                                                  model => 'twise', t => 3, blocks => 30)) m
      FROM rows GROUP BY g % 2) q ORDER BY h;

-- Bad inputs.
SELECT throws_ok($$SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.8, model => 'twise') FROM rows$$,
                 '22023', NULL, 'twise needs t');
SELECT throws_ok($$SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.8, model => 'twise', t => 7) FROM rows$$,
                 '22023', NULL, 't above p');
SELECT throws_ok($$SELECT mrf_learn_structure(x, rho => 1, eta => 0.8, model => 'twise', method => 'threshold') FROM rows$$,
                 '22023', NULL, 'the threshold method needs t too');
SELECT throws_ok($$SELECT '{"kind": "structure", "p": 4, "t": 2, "monomials": [[1, 2, 3]]}'::mrf$$,
                 '22P02', NULL, 'a monomial above the order');

SELECT * FROM finish();
ROLLBACK;
