-- server: session_preload
-- AIM's release over the rows' alphabets stays within max_model_cells after
-- the rare-value compression: three columns of 40 values whose rows sit
-- mostly on 0 and 1 (each a noisy copy of the first) compress to a few
-- codes, so a triple of codes fits the junction tree's cap while its table
-- over the 40 values (64,000 cells) does not; the released model (its
-- parameters, one a cell of its cliques' tables over the rows' alphabets)
-- keeps within the cap, on every schedule and three seeds (before, the
-- expanded triple was released: 64,000 parameters at a cap of 2,000).
BEGIN;
SELECT plan(4);

CREATE TABLE aim_wide AS
SELECT a, CASE WHEN g % 10 = 0 THEN (g * 7) % 40 WHEN g % 7 = 0 THEN (1 + a) % 2 ELSE a END AS b,
	   CASE WHEN g % 11 = 0 THEN (g * 13) % 40 WHEN g % 5 = 0 THEN (1 + a) % 2 ELSE a END AS c
FROM (SELECT g, CASE WHEN g % 37 = 0 THEN (g * 3) % 40 ELSE (g * 7919 / 17) % 2 END AS a
	  FROM generate_series(1, 4000) g) s;
ALTER TABLE aim_wide ADD CHECK (a BETWEEN 0 AND 39), ADD CHECK (b BETWEEN 0 AND 39),
	ADD CHECK (c BETWEEN 0 AND 39);

CREATE FUNCTION pg_temp.release(seed int, schedule text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE r jsonb;
BEGIN
	PERFORM set_config('mrfdp.test_seed', seed::text, true);
	EXECUTE format($q$SELECT mrf_info(mrf_learn_aim_agg(r, mrf_options(rho => 20, max_model_cells => 2000,
																	   schedule => %L))) FROM aim_wide r$q$,
				   schedule) INTO r;
	RETURN r;
END $$;
CREATE TEMP TABLE releases AS
SELECT seed, schedule, pg_temp.release(seed, schedule) AS info
FROM (VALUES (1), (2), (3)) s(seed), (VALUES ('seeded'), ('paper')) h(schedule);

SELECT is((SELECT count(*) FROM releases), 6::bigint, 'six releases');
SELECT ok((SELECT bool_and((info ->> 'compressed_variables')::int >= 2) FROM releases),
		  'every release merged the rare values of two columns or more');
SELECT is((SELECT count(*) FROM releases
		   WHERE (info ->> 'parameters')::int > (info ->> 'max_model_cells')::int), 0::bigint,
		  'no release has more cells over the rows'' alphabets than max_model_cells');
SELECT ok((SELECT bool_and((info ->> 'parameters')::int > 120) FROM releases),
		  'each release holds a pair over the 40 values (1,600 cells), not the one-ways alone');
SELECT * FROM finish();
ROLLBACK;
