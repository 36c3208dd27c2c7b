-- Progress NOTICEs, when asked for, at every tenth of the work.
LOAD 'mrfdp';  -- the named forms and the ledger need the library loaded first (no preload needed)
SET mrfdp.test_seed = 3;
CREATE TABLE prog AS
SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS x FROM generate_series(1, 1000) g;
SET mrfdp.progress = on;
SELECT mrf_info(mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 11)))->>'iterations' AS iterations FROM prog;
RESET mrfdp.progress;
SELECT mrf_info(mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 11)))->>'iterations' AS iterations FROM prog;
