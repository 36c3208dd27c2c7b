-- server: session_preload
-- method => 'threshold' for pairwise and t-wise models (docs/privacy.md 7.2): the
-- private learners of docs/privacy.md 5 and 6 under rho-zCDP, thresholded at eta / 2.
BEGIN;
SELECT plan(6);
SET LOCAL mrfdp.test_seed = 81;
SET LOCAL client_min_messages = warning;

-- t-wise: the model of structure_twise.sql
CREATE TEMP TABLE truth AS SELECT '{"kind": "twise", "p": 6, "t": 3, "monomials": [
  [[1], 0.2], [[6], 0.2], [[1, 2], 0.5], [[4, 5], 0.8], [[5, 6], -0.8], [[1, 2, 3], 0.8]]}'::mrf AS m;
CREATE TEMP TABLE rows AS SELECT x FROM mrf_sample((SELECT m FROM truth), 30000, seed => 33) x;
CREATE FUNCTION pg_temp.items(m mrf) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg((SELECT string_agg(v::text, ',' ORDER BY o) FROM jsonb_array_elements(item) WITH ORDINALITY e(v, o)), ' ' ORDER BY n)
	FROM jsonb_array_elements((m::text)::jsonb->'monomials') WITH ORDINALITY q(item, n)
$$;
CREATE TEMP TABLE learned AS
SELECT mrf_learn_structure(x, rho => 50, eta => 0.8, lambda => 1.6, model => 'twise', t => 3,
                           method => 'threshold') AS m FROM rows;
SELECT is(pg_temp.items(m), '4,5 5,6 1,2,3', 't-wise threshold: exactly the maximal monomials') FROM learned;
SELECT is(mrf_info(m)->>'notion', 'zCDP', 'a rho-zCDP release') FROM learned;

-- pairwise: a k = 3 chain 1-2-3-4 with centred blocks of strength 1
CREATE TEMP TABLE ptruth AS SELECT ('{"kind": "pairwise", "p": 4, "k": 3, "weights": ' ||
	(SELECT jsonb_agg(wi ORDER BY i) FROM (
		SELECT i, jsonb_agg((SELECT jsonb_agg(ra ORDER BY a) FROM (
			SELECT a, jsonb_agg(CASE WHEN abs(i - j) = 1 THEN CASE WHEN a = b THEN 1.0 ELSE -0.5 END ELSE 0 END ORDER BY b) ra
			FROM generate_series(0, 2) a, generate_series(0, 2) b GROUP BY a) qa) ORDER BY j) wi
		FROM generate_series(1, 4) i, generate_series(1, 4) j GROUP BY i) qi)::text ||
	', "fields": [[0,0,0],[0,0,0],[0,0,0],[0,0,0]]}')::mrf AS m;
CREATE TEMP TABLE prows AS SELECT x FROM mrf_sample((SELECT m FROM ptruth), 20000, seed => 34) x;
CREATE TEMP TABLE plearned AS
SELECT mrf_learn_structure(x, rho => 50, eta => 1, lambda => 2, model => 'pairwise', k => 3,
                           method => 'threshold', iterations => 200) AS m FROM prows;
SELECT is((SELECT string_agg(i || '-' || j, ' ' ORDER BY i, j) FROM plearned, mrf_edges(m, 0)), '1-2 2-3 3-4',
          'pairwise threshold: exactly the chain');
SELECT is(mrf_info(m)->>'model', 'pairwise', 'the metadata names the model') FROM plearned;

-- refusals
SELECT throws_ok($$SELECT mrf_learn_structure(x, rho => 1, eta => 1, model => 'twise', method => 'threshold') FROM rows$$,
                 '22023', NULL, 't is required');
SELECT throws_ok($$SELECT mrf_learn_structure(x, rho => 1, eta => 1, model => 'pairwise', k => 3, method => 'threshold', blocks => 4) FROM prows$$,
                 '22023', NULL, 'blocks does not apply to the threshold method');
SELECT * FROM finish();
ROLLBACK;
