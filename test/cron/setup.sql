-- A nightly re-learn scheduled with pg_cron: an analyst's job learns from a
-- protected relation into a table until the budget is spent (two releases of
-- rho = 0.125, each charged 0.125 (1 + 1/128) on the protected path, under
-- rho_cap = 0.251953125), then fails cleanly on every run.
CREATE EXTENSION IF NOT EXISTS pg_cron;
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cron_analyst') THEN
		CREATE ROLE mrfdp_cron_analyst LOGIN;
	END IF;
END $$;
DROP TABLE IF EXISTS cron_src, cron_models;
SET mrfdp.test_seed = 12;
CREATE TABLE cron_src AS
SELECT x AS "row" FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0], [.5, 0, .5], [0, .5, 0]]::float8[]), 2000, seed => 5) x;
RESET mrfdp.test_seed;
CREATE TABLE cron_models (learned_at timestamptz NOT NULL DEFAULT now(), model mrf NOT NULL);
GRANT USAGE ON SCHEMA public TO mrfdp_cron_analyst;
GRANT INSERT, SELECT ON cron_models TO mrfdp_cron_analyst;
SELECT mrfdp.protect('cron_src', epsilon => 1000, delta => 1e-6, rho_cap => 0.251953125);
SELECT mrfdp.grant_learning('cron_src', 'mrfdp_cron_analyst');
SELECT cron.schedule_in_database('mrfdp-relearn', '* * * * *',
	$$INSERT INTO cron_models (model) SELECT mrf_learn_ising_from('cron_src', 'row', rho => 0.125, variables => 3)$$,
	current_database(), 'mrfdp_cron_analyst') > 0 AS scheduled;
