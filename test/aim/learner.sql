-- server: session_preload
-- AIM (issue 12 item 2): a table sampled from a known model with a triangle
-- dependency (c = a + b mod 3 most of the time, b mostly a copy of a; d a
-- noisy copy of a; e independent) is learned through SQL; the model's
-- three-way and pair marginals (from its synthetic rows) are far closer to
-- the data's than independent marginals are (the floor), with the default
-- workload and with a given one; the model records its accounting; the
-- aggregate form and GROUP BY work; every bad input fails with its SQLSTATE.
BEGIN;
SELECT plan(29);
SET LOCAL mrfdp.test_seed = 31;

CREATE TYPE aim_t AS ENUM ('x', 'y', 'z');
CREATE TABLE aim_rows (a aim_t, b aim_t, c aim_t, d boolean, e text);
INSERT INTO aim_rows
SELECT (enum_range(NULL::aim_t))[1 + a], (enum_range(NULL::aim_t))[1 + b],
	   (enum_range(NULL::aim_t))[1 + CASE WHEN random() < 0.85 THEN (a + b) % 3 ELSE floor(random() * 3)::int END],
	   CASE WHEN random() < 0.8 THEN a = 0 ELSE random() < 0.5 END,
	   (ARRAY['n', 's', 'e', 'w'])[1 + floor(random() * 4)::int]
FROM (SELECT a, CASE WHEN random() < 0.6 THEN a ELSE floor(random() * 3)::int END AS b
	  FROM (SELECT floor(random() * 3)::int AS a FROM generate_series(1, 30000)) s) t;

-- the L1 distance between the (a, b, c) table of rows and the data's, and
-- the average over every pair of columns
CREATE FUNCTION pg_temp.l1_abc(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE r float8;
BEGIN
	EXECUTE format($q$
		WITH s AS (SELECT a, b, c, count(*)::float8 / sum(count(*)) OVER () AS f FROM (%s) x GROUP BY 1, 2, 3),
			 d AS (SELECT a, b, c, count(*)::float8 / sum(count(*)) OVER () AS f FROM aim_rows GROUP BY 1, 2, 3)
		SELECT sum(abs(coalesce(s.f, 0) - coalesce(d.f, 0))) FROM s FULL JOIN d USING (a, b, c)$q$, q) INTO r;
	RETURN r;
END $$;
CREATE FUNCTION pg_temp.l1_pairs(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE r float8; total float8 := 0; cols text[] := ARRAY['a', 'b', 'c', 'd', 'e'];
BEGIN
	FOR i IN 1..5 LOOP
		FOR j IN i + 1..5 LOOP
			EXECUTE format($q$
				WITH s AS (SELECT %1$I::text AS u, %2$I::text AS v, count(*)::float8 / sum(count(*)) OVER () AS f FROM (%3$s) x GROUP BY 1, 2),
					 d AS (SELECT %1$I::text AS u, %2$I::text AS v, count(*)::float8 / sum(count(*)) OVER () AS f FROM aim_rows GROUP BY 1, 2)
				SELECT sum(abs(coalesce(s.f, 0) - coalesce(d.f, 0))) FROM s FULL JOIN d USING (u, v)$q$,
				cols[i], cols[j], q) INTO r;
			total := total + r;
		END LOOP;
	END LOOP;
	RETURN total / 10;
END $$;
-- the floor: each column permuted on its own (the product of the data's one-way marginals)
CREATE TEMP TABLE independent AS
SELECT a, b, c, d, e
FROM (SELECT a, row_number() OVER (ORDER BY random()) AS i FROM aim_rows) ta
JOIN (SELECT b, row_number() OVER (ORDER BY random()) AS i FROM aim_rows) tb USING (i)
JOIN (SELECT c, row_number() OVER (ORDER BY random()) AS i FROM aim_rows) tc USING (i)
JOIN (SELECT d, row_number() OVER (ORDER BY random()) AS i FROM aim_rows) td USING (i)
JOIN (SELECT e, row_number() OVER (ORDER BY random()) AS i FROM aim_rows) te USING (i);

CREATE TEMP TABLE released AS
SELECT mrf_learn_aim(r, rho => 10, domains => '{"e": ["n", "s", "e", "w"]}') AS m FROM aim_rows r;
CREATE TEMP TABLE synth AS SELECT * FROM mrf_synthesize((SELECT m FROM released), 30000, NULL::aim_rows, seed => 4);
CREATE TEMP TABLE errs AS
SELECT pg_temp.l1_abc('SELECT * FROM synth') AS aim3, pg_temp.l1_abc('SELECT * FROM independent') AS ind3,
	   pg_temp.l1_pairs('SELECT * FROM synth') AS aim2, pg_temp.l1_pairs('SELECT * FROM independent') AS ind2;

SELECT is((SELECT mrf_info(m)->>'kind' FROM released), 'cliques', 'AIM releases a clique model');
SELECT ok((SELECT mrf_info(m)->>'notion' = 'zCDP' AND (mrf_info(m)->>'rho')::float8 = 10
				  AND mrf_info(m)->>'algorithm' = 'mckenna2022-aim' FROM released),
		  'the model records rho-zCDP with the whole rho and the algorithm');
SELECT is((SELECT array_agg(name ORDER BY i) FROM mrf_variables((SELECT m FROM released))),
		  ARRAY['a', 'b', 'c', 'd', 'e'], 'the variables keep their column names');
SELECT is((SELECT (m::jsonb)->'alphabets' FROM released), '[3, 3, 3, 2, 4]'::jsonb,
		  'each column keeps its own alphabet');
SELECT ok((SELECT EXISTS (SELECT 1 FROM jsonb_array_elements((m::jsonb)->'cliques') cl
						  WHERE cl @> '[1, 2, 3]'::jsonb) FROM released),
		  'a clique holds the triangle a, b, c (a model no tree can be)');
SELECT ok((SELECT (mrf_info(m)->>'rounds')::int BETWEEN 1 AND 80
				  AND (mrf_info(m)->>'max_rounds')::int = 80 AND mrf_info(m)->>'schedule' = 'mmsm22'
				  AND (mrf_info(m)->>'seed_pairs')::int = 0
				  AND abs((mrf_info(m)->>'schedule_signal')::float8 - 30000 * sqrt(2 * 10 / (3.0 * 4))) < 1e-6
				  FROM released),
		  'a rich table (signal n sqrt(2 rho / (3 (p - 1))) = 38,730, over 2,500): [MMSM22]''s schedule, T = 16 p = 80, no seed');
SELECT ok((SELECT (mrf_info(m)->>'sigma2_first')::float8 >= 80 / (0.9 * 10) FROM released),
		  'the rounds'' first variance is at least T / (0.9 rho) (replace-one)');
SELECT ok((SELECT abs((mrf_info(m)->'selection'->>'epsilon_first')::float8 - sqrt(8 * 0.1 * 10 / 80)) < 1e-9
		   FROM released), 'the first selection has epsilon sqrt(8 * 0.1 rho / T)');
SELECT ok((SELECT (mrf_info(m)->'workload'->>'given')::boolean = false
				  AND (mrf_info(m)->'workload'->>'triples_added')::int >= 1 FROM released),
		  'the default workload: pairs, plus triples over the pairs AIM selected');
SELECT ok((SELECT aim3 < 0.25 * ind3 FROM errs),
		  'the three-way (a, b, c) marginal: far below independent marginals');
SELECT ok((SELECT aim2 < 0.3 * ind2 FROM errs), 'the pair marginals on average: far below independent marginals');
SELECT ok((SELECT count(DISTINCT e) = 4 AND bool_and(e IN ('n', 's', 'e', 'w')) FROM synth),
		  'synthetic text values come back from the declared domain');

-- a given workload by column names
CREATE TEMP TABLE given AS
SELECT mrf_learn_aim(r, rho => 10, workload => '[["a", "b", "c"], ["a", "d"]]',
					 domains => '{"e": ["n", "s", "e", "w"]}') AS m FROM aim_rows r;
SELECT ok((SELECT (mrf_info(m)->'workload'->>'given')::boolean AND (mrf_info(m)->'workload'->>'marginals')::int = 2
				  AND (mrf_info(m)->'workload'->>'candidates')::int = 5 + 3 + 1 + 1 FROM given),
		  'a given workload: its marginals, their subsets and every one-way are the candidates');
SELECT ok((SELECT pg_temp.l1_abc(format('SELECT * FROM mrf_synthesize(%L::mrf, 30000, NULL::aim_rows, seed => 5)', m::text))
				  < 0.25 * (SELECT ind3 FROM errs) FROM given),
		  'and its three-way marginal is far below independent marginals');

-- aggregate form, GROUP BY, integer arrays with k and a workload by numbers
SELECT is((SELECT count(*) FROM (SELECT g, mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 3, workload => '[[1, 2], [2, 3]]')) AS m
								 FROM (SELECT i % 2 AS g, ARRAY[i % 3, (i / 3) % 3, (i * 7) % 3] AS x
									   FROM generate_series(1, 2000) i) s GROUP BY g) q WHERE m IS NOT NULL),
		  2::bigint, 'the aggregate form learns one model per group');

-- a given workload over 10-valued columns plans its memory from its own marginals
SELECT ok((SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 10, workload => '[[1, 2], [2, 3]]')) IS NOT NULL
		   FROM (SELECT ARRAY[i % 10, (i / 10) % 10, (i * 7) % 10] AS x FROM generate_series(1, 2000) i) s),
		  'a workload over 10-valued columns fits the memory limit');

-- bad inputs, each with its SQLSTATE
SELECT throws_ok($$SELECT mrf_learn_aim(r) FROM aim_rows r$$, '22023', NULL, 'a budget is required');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 0, domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '22023', NULL, 'rho must be positive');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => -1, domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '22023', NULL, 'rho must be positive (negative)');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1, workload => '[["a", "q"]]', domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '42703', 'workload of mrf_learn_aim names column "q", which the rows do not have',
				 'a workload naming an unknown column');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1, workload => '[]', domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '22023', NULL, 'an empty workload');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1, workload => '[["a", "b"], ["b", "a"]]', domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '22023', NULL, 'a marginal listed twice');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1, workload => '[["a", "a"]]', domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '22023', NULL, 'a column twice in a marginal');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1, workload => '[[]]', domains => '{"e": ["n", "s", "e", "w"]}') FROM aim_rows r$$,
				 '22023', NULL, 'an empty marginal');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 200, workload => '[[1, 2, 3, 4]]'))
				   FROM (SELECT ARRAY[1, 2, 3, 4, 5] AS x) s$$,
				 '54000', NULL, 'a marginal too large for the model''s cap');
-- a marginal over the cap among others is skipped with a NOTICE, and the rest measured
SELECT is((SELECT (mrf_info(mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 50, workload => '[[1, 2, 3, 4], [1, 2]]')))
				   -> 'workload') - 'candidates'
		   FROM (SELECT ARRAY[g % 50, (g * 7) % 50, g % 3, g % 5, 1] AS x FROM generate_series(1, 400) g) s),
		  '{"given": true, "marginals": 1, "skipped": 1, "triples_added": 0, "triples_skipped": 0}'::jsonb,
		  'a marginal over the model''s cap is skipped, the others measured');
SELECT throws_ok($$SELECT mrf_learn_aim(x, rho => 1, k => 3, workload => '[[1, 4]]') FROM (SELECT ARRAY[1, 2, 0] AS x) s$$,
				 '22023', NULL, 'a variable number outside 1..p');
SELECT throws_ok($$SELECT mrf_learn_aim(x, rho => 1, k => 3) FROM (SELECT ARRAY[1] AS x) s$$, '22023', NULL,
				 'one variable is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, lambda => 2, k => 3))
				   FROM (SELECT ARRAY[1, 2] AS x) s$$, '22023', NULL, 'an option AIM does not take');

SELECT * FROM finish();
ROLLBACK;
