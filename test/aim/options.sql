-- server: session_preload
-- AIM's options rounds, one_way_share and max_model_cells (issue 25 items 2
-- and 4) on every form: the named call, the aggregate through mrf_options,
-- the protected path and mrf_learn_aim_plan.  Bad values are refused with
-- their SQLSTATE before anything is read or charged (the ledger and the
-- budget unchanged after each refused call, on the protected path by a
-- role with the grant and no SELECT); a release records the values it used,
-- spends exactly rho whatever T and the share (privacy.md 13), makes at
-- most T selections, and keeps its junction tree within max_model_cells.
-- Not wrapped in a transaction: charges are committed by a background
-- worker, which sees only committed rows.
SELECT plan(61);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS aim_opt CASCADE;
SET mrfdp.test_seed = 25;
-- 6 columns of 3 values, a chain (each column mostly a copy of the previous one)
CREATE TABLE aim_opt AS
SELECT a, b, c, d, e, (e + (g % 7 = 0)::int) % 3 AS f
FROM (SELECT g, a, b, c, d, (d + (g % 5 = 0)::int) % 3 AS e
	  FROM (SELECT g, a, b, c, (c + (g % 3 = 0)::int) % 3 AS d
			FROM (SELECT g, a, b, (b + (g % 4 = 0)::int) % 3 AS c
				  FROM (SELECT g, a, (a + (g % 6 = 0)::int) % 3 AS b
						FROM (SELECT g, (g * 7919 / 13) % 3 AS a FROM generate_series(1, 3000) g) s0) s1) s2) s3) s4;
ALTER TABLE aim_opt ADD CHECK (a BETWEEN 0 AND 2), ADD CHECK (b BETWEEN 0 AND 2), ADD CHECK (c BETWEEN 0 AND 2),
	ADD CHECK (d BETWEEN 0 AND 2), ADD CHECK (e BETWEEN 0 AND 2), ADD CHECK (f BETWEEN 0 AND 2);
SELECT pg_temp.protect_for_analyst('aim_opt', epsilon => 100, delta => 1e-6, rho_cap => 50);

CREATE FUNCTION pg_temp.ledger_state() RETURNS text LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM mrfdp.ledger WHERE relation = 'aim_opt'::regclass) || '/' ||
		   (SELECT spent_zcdp_rho || '/' || releases FROM mrfdp.budget WHERE relation = 'aim_opt'::regclass)
$$;
CREATE TEMP TABLE before AS SELECT pg_temp.ledger_state() AS s;
GRANT SELECT ON before TO mrfdp_tap_analyst;

-- 1. refusals on the protected path, by a role with the grant and no SELECT
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok('SELECT count(*) FROM aim_opt', '42501', NULL, 'the analyst cannot read the relation');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, rounds => 0)$$, '22023',
				 'invalid value for option "rounds"', 'rounds 0 is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, rounds => 10001)$$, '22023',
				 'invalid value for option "rounds"', 'rounds above 10,000 is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1e-12, rounds => 5)$$, '22023',
				 'invalid value for option "rho"',
				 'a rho whose one-ways'' noise leaves the sampler''s range is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, one_way_share => 0)$$, '22023',
				 'invalid value for option "one_way_share"', 'one_way_share 0 is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, one_way_share => 1)$$, '22023',
				 'invalid value for option "one_way_share"', 'one_way_share 1 is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, one_way_share => 'NaN')$$, '22023',
				 NULL, 'one_way_share NaN is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, max_model_cells => 0)$$, '22023',
				 'invalid value for option "max_model_cells"', 'max_model_cells 0 is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, max_model_cells => 2000000000)$$, '54000',
				 'max_model_cells = 2000000000 is more than mrfdp.max_learner_memory allows',
				 'max_model_cells above a quarter of mrfdp.max_learner_memory is refused, naming the setting');
-- the model starts from the one-ways (6 x 3 = 18 cells): a smaller cap failed after the charge
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, max_model_cells => 17)$$, '22023',
				 'invalid value for option "max_model_cells"',
				 'a cap below the one-way marginals'' 18 cells is refused before the charge');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1e-9, rounds => 10000, one_way_share => 0.5)$$,
				 '22023', 'invalid value for option "rho"', 'rounds whose noise leaves the sampler''s range are refused');
SELECT throws_ok($$SELECT mrf_learn_mst_agg(r, mrf_options(rho => 1, rounds => 20)) FROM (SELECT ARRAY[1, 2] r) s$$,
				 '22023', 'option "rounds" does not apply to mrf_learn_mst', 'rounds is AIM''s only');
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, schedule => 'mst')$$, '22023',
				 'invalid value for option "schedule"', 'a schedule other than auto, seeded, paper is refused');
-- [MMSM22]'s one-ways cost 0.9 rho / T each: 6 columns need T above 5.4
SELECT throws_ok($$SELECT mrf_learn_aim_from('aim_opt', NULL, rho => 1, schedule => 'paper', rounds => 5)$$, '22023',
				 'invalid value for option "rounds"', 'schedule paper with T <= 0.9 p and no share is refused');
RESET ROLE;
SELECT is(pg_temp.ledger_state(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- 2. the same refusals on the named form and the aggregate, as the owner of the protected relation
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1e-12, rounds => 5) FROM aim_opt r$$, '22023',
				 'invalid value for option "rho"', 'the named form refuses that rho at its first row');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(r, mrf_options(rho => 1e-12, rounds => 5)) FROM aim_opt r$$, '22023',
				 'invalid value for option "rho"', 'so does the aggregate');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(r, mrf_options(rho => 1, max_model_cells => 2000000000)) FROM aim_opt r$$,
				 '54000', NULL, 'the aggregate refuses max_model_cells above the memory limit');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(r, mrf_options(rho => 1, max_model_cells => 17)) FROM aim_opt r$$,
				 '22023', 'invalid value for option "max_model_cells"', 'so does the aggregate a cap below the one-ways');
SELECT throws_ok($$SELECT mrf_options(one_way_share => 1.5)$$, '22023', NULL, 'mrf_options checks the share''s range');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(r, mrf_options(rho => 1, one_way_share => 0.5)) FROM (SELECT ARRAY[true, false] r) s$$,
				 '22023', 'option "one_way_share" does not apply to mrf_learn_ising', 'one_way_share is AIM''s only');
SELECT is(pg_temp.ledger_state(), (SELECT s FROM before), 'the refused aggregate calls charged nothing');

-- 3. the protected path with the options: charged exactly rho (and the count of substituted rows)
SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE released AS
SELECT mrf_info(mrf_learn_aim_from('aim_opt', NULL, rho => 1, rounds => 20, one_way_share => 0.5,
								   max_model_cells => 200)) AS info;
RESET ROLE;
SELECT ok((SELECT rho = 1.0078125 AND learner = 'mrf_learn_aim' AND protected AND rows_read = 3000
		   FROM mrfdp.ledger WHERE relation = 'aim_opt'::regclass ORDER BY id DESC LIMIT 1),
		  'the protected release was charged rho 1 (1 + 1/128 with the substituted rows'' count)');
SELECT is((SELECT (info ->> 'max_rounds')::int FROM released), 20, 'the metadata records rounds 20');
SELECT is((SELECT (info ->> 'rounds_given')::boolean FROM released), true, 'as given');
SELECT is((SELECT (info ->> 'one_way_share')::float8 FROM released), 0.5::float8, 'and one_way_share 0.5');
SELECT is((SELECT (info ->> 'max_model_cells')::int FROM released), 200, 'and max_model_cells 200');
SELECT ok((SELECT (info ->> 'rounds')::int BETWEEN 1 AND 20 FROM released), 'at most T = 20 selections');
SELECT ok((SELECT (info ->> 'junction_tree_cells')::int BETWEEN 1 AND 200 FROM released),
		  'the junction tree stayed within max_model_cells');
SELECT is((SELECT (info ->> 'rho_spent')::float8 FROM released), 1::float8, 'the rounds spent exactly rho');
SELECT ok((SELECT abs((info ->> 'rho_one_way')::float8 - 0.5) < 1e-12 FROM released), 'half of it on the one-ways');
-- the schedule option: [MMSM22]'s asked for on a table the automatic rule gives the seed (signal 775)
SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE scheduled AS
SELECT s AS schedule, mrf_info(mrf_learn_aim_from('aim_opt', NULL, rho => 0.5, schedule => s)) AS info
FROM (VALUES ('paper'), ('seeded'), ('auto')) v(s);
RESET ROLE;
SELECT ok((SELECT info ->> 'schedule' = 'mmsm22' AND (info ->> 'seed_pairs')::int = 0
				  AND (info ->> 'max_rounds')::int = 96 AND info ->> 'schedule_option' = 'paper'
		   FROM scheduled WHERE schedule = 'paper'),
		  'schedule paper: no seed, T = 16 p, recorded');
SELECT ok((SELECT bool_and(info ->> 'schedule' = 'mst-seeded' AND (info ->> 'seed_pairs')::int = 5
						   AND (info ->> 'max_rounds')::int = 16 AND info ->> 'schedule_option' = schedule)
		   FROM scheduled WHERE schedule IN ('seeded', 'auto')),
		  'schedule seeded, and auto at this signal: the seed''s 5 pairs, T = 16 (from signal 500)');
SELECT ok((SELECT bool_and((info ->> 'rho_spent')::float8 = 0.5) FROM scheduled), 'each spent exactly rho');
SELECT ok((SELECT bool_and(abs((info ->> 'schedule_signal')::float8 - 3000 * sqrt(2 * 0.5 / 15.0)) < 1e-6) FROM scheduled),
		  'the signal recorded: n sqrt(2 rho / (3 (p - 1)))');

-- 4. the aggregate and named forms: the values used, exactly rho, at most T selections, several seeds
CREATE FUNCTION pg_temp.aim_run(seed int, t int, share float8) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	info jsonb;
BEGIN
	PERFORM set_config('mrfdp.test_seed', seed::text, false);
	EXECUTE format('SELECT mrf_info(mrf_learn_aim_agg(r, mrf_options(rho => 0.5, rounds => %s, one_way_share => %s))) FROM aim_opt r',
				   t, share) INTO info;
	RETURN info;
END $$;
CREATE TEMP TABLE runs AS
SELECT seed, t, share, pg_temp.aim_run(seed, t, share) AS info
FROM generate_series(1, 3) seed, (VALUES (1, 0.3), (8, 0.5), (20, 0.8)) v(t, share);
SELECT is((SELECT count(*) FROM runs WHERE (info ->> 'max_rounds')::int = t
										AND (info ->> 'one_way_share')::float8 = share), 9::bigint,
		  'nine aggregate releases record their rounds and one_way_share');
SELECT is((SELECT count(*) FROM runs WHERE (info ->> 'rounds')::int BETWEEN 1 AND t), 9::bigint,
		  'each made from 1 to T selections');
SELECT is((SELECT count(*) FROM runs WHERE (info ->> 'rho_spent')::float8 = 0.5), 9::bigint,
		  'each spent exactly rho');
SELECT is((SELECT count(*) FROM runs WHERE abs((info ->> 'rho_one_way')::float8 - 0.5 * share) < 1e-12), 9::bigint,
		  'each spent its share of rho on the one-ways');
SELECT is((SELECT array_agg(DISTINCT (info ->> 'rounds')::int) FROM runs WHERE t = 1), ARRAY[1],
		  'rounds 1 is one selection');
SET mrfdp.test_seed = 25;
CREATE TEMP TABLE named AS
SELECT mrf_info(mrf_learn_aim(r, rho => 0.5, rounds => 30)) AS info FROM aim_opt r;
SELECT is((SELECT (info ->> 'max_rounds')::int FROM named), 30, 'the named form takes rounds');
SELECT ok((SELECT abs((info ->> 'one_way_share')::float8 - 1.0 / 3) < 1e-12
				  AND (info ->> 'one_way_share_given')::boolean = false
				  AND abs((info ->> 'seed_share')::float8 - 0.45) < 1e-12
				  AND abs((info ->> 'seed_select_share')::float8 - 0.35) < 1e-12 FROM named),
		  'and records the seeded schedule''s shares at signal 775: 1/3 on the one-ways, 0.45 on the seed, 0.35 of it selecting');
-- the seed's pairs are measured with the rest of its share: 0.65 of 0.45 rho
SELECT ok((SELECT abs((info ->> 'sigma2_seed')::float8 * (0.5 * 0.45 * 0.65)
					  / (info ->> 'seed_pairs')::int - 1) < 1e-6 FROM named),
		  'the seed''s pairs at variance k / (0.65 * 0.45 rho), rounded up (to 1e-6)');
SELECT ok((SELECT (info ->> 'rounds')::int <= 30 AND (info ->> 'rho_spent')::float8 = 0.5 FROM named),
		  'at most T selections, exactly rho');
CREATE TEMP TABLE defaults AS
SELECT mrf_info(mrf_learn_aim(r, rho => 0.5)) AS info FROM aim_opt r;
SELECT ok((SELECT (info ->> 'max_rounds')::int = 16 AND (info ->> 'rounds_given')::boolean = false
				  AND (info ->> 'max_model_cells')::int = 65536
				  AND (info ->> 'max_model_cells_given')::boolean = false FROM defaults),
		  'without the options: T = 16 (the seeded schedule''s from signal 500), the cap 2^16, recorded as defaults');
-- the seeded schedule with a workload of no pair: the seed cannot run, the
-- schedule is still the seeded one (its shares and T = 16 at this signal), and says so
SELECT ok((SELECT i ->> 'schedule' = 'mst-seeded' AND (i ->> 'seed_pairs')::int = 0
				  AND (i ->> 'max_rounds')::int = 16 AND abs((i ->> 'one_way_share')::float8 - 1 / 3.0) < 1e-12
		   FROM (SELECT mrf_info(mrf_learn_aim(r, rho => 0.5, schedule => 'seeded', workload => '[["a"], ["c"]]')) AS i
				 FROM aim_opt r) x),
		  'schedule seeded without a pair in the workload: labelled seeded (no seed, T = 16, one-ways 1/3)');

-- a small cap: the tree stays within it, and a workload marginal over it is skipped
CREATE TEMP TABLE capped AS
SELECT mrf_info(mrf_learn_aim(r, rho => 0.5, max_model_cells => 20,
							  workload => '[["a", "b"], ["c", "d", "e"]]')) AS info FROM aim_opt r;
SELECT ok((SELECT (info ->> 'junction_tree_cells')::int <= 20 AND (info -> 'workload' ->> 'skipped')::int = 1
		   FROM capped),
		  'max_model_cells 20: the tree within 20 cells, the 27-cell marginal skipped');
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 0.5, max_model_cells => 20, workload => '[["c", "d", "e"]]') FROM aim_opt r$$,
				 '54000', NULL, 'a workload whose every marginal is over the cap is refused');
SELECT ok((SELECT mrf_learn_aim_agg(r, mrf_options(rho => 0.5, max_model_cells => 18)) IS NOT NULL FROM aim_opt r),
		  'a cap of exactly the one-ways'' 18 cells releases');

-- 5. the plan takes the same options and gives the release's rounds and share
CREATE TEMP TABLE before_plans AS SELECT pg_temp.ledger_state() AS s;
SELECT is((SELECT (mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, rounds => 8, one_way_share => 0.5) ->> 'max_rounds')::int),
		  8, 'the plan takes rounds');
SELECT ok((SELECT abs((mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, rounds => 8, one_way_share => 0.5) ->> 'rho_one_way')::float8
					  - (info ->> 'rho_one_way')::float8) < 1e-12
		   FROM runs WHERE seed = 1 AND t = 8),
		  'its one-way spend is the release''s');
SELECT is((SELECT (mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, max_model_cells => 500) ->> 'max_model_cells')::int),
		  500, 'the plan takes max_model_cells');
SELECT ok((SELECT (mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, rounds => 8, one_way_share => 0.5) ->> 'seconds_max')::float8 <
				  (mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, rounds => 800, one_way_share => 0.5) ->> 'seconds_max')::float8),
		  'fewer rounds plan less time');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 1e-12, rounds => 5)$$, '22023',
				 'invalid value for option "rho"', 'the plan refuses what the release refuses: a rho out of the sampler''s range');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[3, 3], 0.5, one_way_share => 1)$$, '22023', NULL,
				 'a share of 1');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[3, 3], 0.5, max_model_cells => 2000000000)$$, '54000', NULL,
				 'a cap above the memory limit');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, max_model_cells => 17)$$, '22023',
				 'invalid value for option "max_model_cells"', 'a cap below the one-ways'' cells');
SET mrfdp.max_learner_memory = 1024;
SELECT throws_ok($$SELECT mrf_learn_aim_plan(array_fill(255, ARRAY[7]), 0.5)$$, '54000',
				 'mrfdp.max_learner_memory is too small for the model of mrf_learn_aim',
				 'a memory setting whose default cap cannot hold the one-ways (7 x 255 cells) is named');
RESET mrfdp.max_learner_memory;
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, rounds => 5, schedule => 'paper')$$, '22023',
				 'invalid value for option "rounds"', 'and schedule paper with too few rounds');
SELECT ok((SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, 3000, schedule => 'paper') ->> 'schedule' = 'mmsm22'
			  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, 3000, schedule => 'seeded') ->> 'schedule' = 'mst-seeded'
			  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3, 3], 0.5, 3000) ->> 'schedule' = 'mst-seeded'),
		  'the plan takes the schedule (auto: seeded at 3,000 rows, rho 0.5, signal 775)');
SELECT is(pg_temp.ledger_state(), (SELECT s FROM before_plans), 'the plans charged nothing');

RESET mrfdp.test_seed;
DROP TABLE aim_opt;
SELECT * FROM finish();
