-- server: session_preload
-- Wide alphabets (issue 24 item 4): a 1,000-value text column (Zipf: P(c)
-- about 1 / (c + 1)) with a 5-value column that copies it modulo 5 (0.8)
-- and a boolean that copies its parity (0.9), learned by MST, AIM and the
-- clique learner on rows of two-byte codes.  Against the data: the 20
-- commonest cities' shares, the share of the tail beyond the 100
-- commonest (the rare values MST merges and spreads back), and the model's
-- P(zone = city mod 5), 0.84 in the data and 0.2 under independence, so a
-- code mapped to the wrong value or a merged value's mass misplaced fails.
-- Synthetic rows come back as text of the domain.  Up to 4,096 values a
-- column; above it, on the byte learners above 255, a NULL category beyond
-- the cap, and a model too big for the memory limit are refused with their
-- SQLSTATE.
BEGIN;
SELECT plan(38);
SET LOCAL client_min_messages = warning;

SELECT setseed(0.25);
CREATE TABLE wa (city text, zone int, flag boolean);
INSERT INTO wa
SELECT 'c' || c, CASE WHEN random() < 0.8 THEN c % 5 ELSE floor(random() * 5)::int END,
	   CASE WHEN random() < 0.9 THEN c % 2 = 0 ELSE random() < 0.5 END
FROM (SELECT least(999, floor(exp(random() * ln(1000))) - 1)::int AS c FROM generate_series(1, 30000)) s;
-- the declared domains (a constant option: through a psql variable)
SELECT jsonb_build_object('city', (SELECT jsonb_agg('c' || i ORDER BY i) FROM generate_series(0, 999) i),
						  'zone', '{"min": 0, "max": 4}'::jsonb) AS wa_dom \gset
CREATE TEMP TABLE wa_share AS
SELECT city, count(*)::float8 / 30000 AS share, rank() OVER (ORDER BY count(*) DESC, city) AS rk
FROM wa GROUP BY city;
SELECT ok((SELECT count(*) FROM wa_share) > 900 AND
		  (SELECT count(*) FILTER (WHERE zone = substr(city, 2)::int % 5)::float8 / count(*) FROM wa) BETWEEN 0.8 AND 0.88,
		  'the data: over 900 distinct cities, zone = city mod 5 in about 0.84 of the rows');

-- a model's errors against the data: the top 20 shares, the tail's share, P(zone = city mod 5)
CREATE FUNCTION pg_temp.wa_fit(m mrf, OUT top20 float8, OUT tail float8, OUT agree float8) LANGUAGE sql AS $$
	SELECT (SELECT max(abs(d.share - g.probability))
			FROM mrf_marginal(m, '{city}') g JOIN wa_share d ON d.city = g.labels[1] WHERE d.rk <= 20),
		   (SELECT abs(sum(g.probability) FILTER (WHERE d.rk > 100 OR d.rk IS NULL) -
					   (SELECT sum(share) FROM wa_share WHERE rk > 100))
			FROM mrf_marginal(m, '{city}') g LEFT JOIN wa_share d ON d.city = g.labels[1]),
		   (SELECT sum(probability) FILTER (WHERE substr(labels[1], 2)::int % 5 = labels[2]::int)
			FROM mrf_marginal(m, '{city,zone}'))
$$;

CREATE TEMP TABLE wa_models (learner text, seed int, m mrf);
SET LOCAL mrfdp.test_seed = 1;
INSERT INTO wa_models SELECT 'mst', 1, mrf_learn_mst(wa, rho => 2, domains => :'wa_dom') FROM wa;
INSERT INTO wa_models SELECT 'aim', 1, mrf_learn_aim(wa, rho => 2, domains => :'wa_dom') FROM wa;
SET LOCAL mrfdp.test_seed = 2;
INSERT INTO wa_models SELECT 'mst', 2, mrf_learn_mst(wa, rho => 2, domains => :'wa_dom') FROM wa;
INSERT INTO wa_models SELECT 'aim', 2, mrf_learn_aim(wa, rho => 2, domains => :'wa_dom') FROM wa;
INSERT INTO wa_models
SELECT 'cliques', 2, mrf_learn_cliques(wa, epsilon => 40, cliques => '[[1, 2], [1, 3]]', domains => :'wa_dom') FROM wa;

SELECT is((SELECT array_agg(DISTINCT (mrf_info(m) ->> 'k')::int) FROM wa_models), ARRAY[1000],
		  'every model has the 1,000-value alphabet');
SELECT is((SELECT m::text::jsonb -> 'alphabets' FROM wa_models WHERE learner = 'mst' AND seed = 1),
		  '[1000, 5, 2]'::jsonb, 'the per-variable alphabets 1000, 5, 2');
SELECT ok((SELECT (mrf_info(m) ->> 'compressed_variables')::int >= 1 AND (mrf_info(m) ->> 'merged_values')::int > 100
		   FROM wa_models WHERE learner = 'mst' AND seed = 1),
		  'MST merged the city column''s rare values (from its noisy one-way counts)');
SELECT ok((SELECT (mrf_info(m) ->> 'compressed_variables')::int >= 1 AND (mrf_info(m) ->> 'merged_values')::int > 100
		   FROM wa_models WHERE learner = 'aim' AND seed = 1),
		  'AIM merged the city column''s rare values too');
-- a merged code's mass is spread evenly: most of the rarest cities share one probability
SELECT ok((SELECT max(c) > 0.5 * sum(c) FROM (SELECT count(*) AS c FROM mrf_marginal(m, '{city}') g
												LEFT JOIN wa_share d ON d.city = g.labels[1]
												WHERE d.rk > 900 OR d.rk IS NULL GROUP BY round(g.probability::numeric, 12)) q),
		  format('%s seed %s: most cities beyond the 900 commonest share one probability (the merged code''s)', learner, seed))
FROM wa_models WHERE learner IN ('mst', 'aim') ORDER BY learner, seed;
SELECT ok((SELECT (f).top20 < b FROM (SELECT pg_temp.wa_fit(m) f FROM wa_models WHERE learner = l AND seed = s) q),
		  format('%s seed %s: the 20 commonest cities'' shares within %s of the data''s', l, s, b))
FROM (VALUES ('mst', 1, 0.005), ('mst', 2, 0.005), ('aim', 1, 0.005), ('aim', 2, 0.005), ('cliques', 2, 0.02)) v(l, s, b);
-- (the clique learner's pseudo-count of 1 in each of its 7,000 cells moves
-- 7,000 / 37,000 of the mass towards uniform: no tail bound for it)
SELECT ok((SELECT (f).tail < 0.01 FROM (SELECT pg_temp.wa_fit(m) f FROM wa_models WHERE learner = l AND seed = s) q),
		  format('%s seed %s: the share of the cities beyond the 100 commonest within 0.01', l, s))
FROM (VALUES ('mst', 1), ('mst', 2), ('aim', 1), ('aim', 2)) v(l, s);
SELECT ok((SELECT (f).agree > 0.6 FROM (SELECT pg_temp.wa_fit(m) f FROM wa_models WHERE learner = l AND seed = s) q),
		  format('%s seed %s: P(zone = city mod 5) above 0.6 (data 0.84, independence 0.2)', l, s))
FROM (VALUES ('mst', 1), ('mst', 2), ('aim', 1), ('aim', 2), ('cliques', 2)) v(l, s);

-- synthetic rows in the source's types
CREATE TEMP TABLE wa_syn AS
SELECT 'mst' AS learner, s.* FROM mrf_synthesize((SELECT m FROM wa_models WHERE learner = 'mst' AND seed = 1), 30000, NULL::wa, seed => 1) s
UNION ALL
SELECT 'aim', s.* FROM mrf_synthesize((SELECT m FROM wa_models WHERE learner = 'aim' AND seed = 1), 30000, NULL::wa, seed => 1) s;
SELECT is((SELECT DISTINCT pg_typeof(city)::text FROM wa_syn), 'text', 'synthetic cities are text');
SELECT is((SELECT count(*) FROM wa_syn WHERE city NOT IN (SELECT 'c' || i FROM generate_series(0, 999) i)), 0::bigint,
		  'every synthetic city is a value of the domain');
SELECT ok((SELECT count(DISTINCT city) FROM wa_syn WHERE learner = l) > 300,
		  format('%s: over 300 distinct synthetic cities (rare ones included)', l))
FROM (VALUES ('mst'), ('aim')) v(l);
SELECT ok((SELECT count(*) FILTER (WHERE zone = substr(city, 2)::int % 5)::float8 / count(*) FROM wa_syn WHERE learner = l) > 0.6,
		  format('%s: synthetic rows keep zone = city mod 5 above 0.6', l))
FROM (VALUES ('mst'), ('aim')) v(l);

-- 4,096 values: the cap
SELECT ok((SELECT (mrf_info(mrf_learn_mst(r, rho => 1, domains => '{"a": {"min": 1, "max": 4096}}')) ->> 'k')::int = 4096
		   FROM (SELECT (1 + g * 7 % 4096)::int AS a, g % 2 = 0 AS b FROM generate_series(1, 2000) g) r),
		  'MST learns a column of 4,096 values');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1, domains => '{"a": {"min": 1, "max": 4097}}')
				   FROM (SELECT 1 AS a, true AS b) r$$, '22023', NULL, '4,097 values: 22023');
SELECT throws_like($$SELECT mrf_learn_pairwise(wa, rho => 1, domains => '$$ || :'wa_dom' || $$') FROM wa$$,
				   '%column "city" has 1000 values; a column''s alphabet has at most 255 here%',
				   'the pairwise learner keeps 255 values a column, naming the column');
SELECT throws_ok($$SELECT mrf_learn_pairwise(wa, rho => 1, domains => '$$ || :'wa_dom' || $$') FROM wa$$,
				 '22023', NULL, 'and its SQLSTATE is 22023');
SELECT ok((SELECT (mrf_info(mrf_learn_aim(r, rho => 1, bins => '{"x": {"min": 0, "max": 1000, "width": 1}}')) ->> 'k')::int = 1002
		   FROM (SELECT g::float8 AS x, g % 2 = 0 AS b FROM generate_series(1, 2000) g) r),
		  'AIM learns a column of 1,002 bins');
SELECT throws_like($$SELECT mrf_learn_pairwise(r, rho => 1, bins => '{"x": {"min": 0, "max": 1000, "width": 1}}')
					 FROM (SELECT g::float8 AS x, g % 2 = 0 AS b FROM generate_series(1, 20) g) r$$,
				   '%column "x" has 1002 values%', 'the pairwise learner refuses 1,002 bins, naming the column');
CREATE TEMP TABLE wa_check (a int CHECK (a BETWEEN 1 AND 5000), b boolean);
INSERT INTO wa_check VALUES (1, true), (2, false);
SELECT throws_like($$SELECT mrf_learn_mst(r, rho => 1) FROM wa_check r$$,
				   '%CHECK constraint of column "a" allows 5000 values; a column''s alphabet has from 2 to 4096%',
				   'a CHECK of 5,000 values is refused, naming the column');
SELECT throws_like($$SELECT mrf_learn_mst(r, rho => 1, domains => '{"a": {"min": 1, "max": 4096}}', nulls => 'category')
					 FROM (SELECT NULL::int AS a, true AS b) r$$,
				   '%column "a" has no room for a NULL category (4096 values at most)%',
				   'a NULL category beyond 4,096 values is refused');
SET LOCAL mrfdp.max_learner_memory = '64MB';
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1, domains => '{"*": {"min": 1, "max": 4096}}')
				   FROM (SELECT g AS a, g AS b, g AS c FROM generate_series(1, 100) g) r$$,
				 '54000', NULL, 'three 4,096-value columns (two-way tables of 4,096^2 cells): 54000 under 64MB');

SELECT * FROM finish();
ROLLBACK;
