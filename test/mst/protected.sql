-- server: session_preload
-- MST on the protected path (issue 12 item 1): a role that may learn but
-- not read gets a model; the charge, planned from the options alone, is
-- committed before the model is returned and survives ROLLBACK; refused
-- calls (bad options, a role without the grant, a budget too small) charge
-- nothing.  Not wrapped in a transaction: charges are committed by a
-- background worker, which sees only committed catalog rows.
SELECT plan(16);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS prot_mst CASCADE;
DROP TYPE IF EXISTS prot_mst_colour;
SET mrfdp.test_seed = 5;
CREATE TYPE prot_mst_colour AS ENUM ('red', 'green', 'blue');
CREATE TABLE prot_mst AS
SELECT (ARRAY['red', 'green', 'blue']::prot_mst_colour[])[1 + g % 3] AS colour,
	   (ARRAY['red', 'green', 'blue']::prot_mst_colour[])[1 + (g / 2) % 3] AS other,
	   (ARRAY['lo', 'hi', 'mid'])[1 + (g / 3) % 3] AS level
FROM generate_series(1, 3000) g;
-- a value outside the declared domain and a NULL: substituted, never an error
INSERT INTO prot_mst VALUES ('red', 'red', 'top'), (NULL, 'blue', 'lo');
SELECT pg_temp.protect_for_analyst('prot_mst', epsilon => 10, delta => 1e-6, rho_cap => 1.5);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok('SELECT count(*) FROM prot_mst', '42501', NULL, 'the analyst cannot read the relation');
RESET ROLE;
SET ROLE mrfdp_tap_outsider;
SELECT throws_ok($$SELECT mrf_learn_mst_from('prot_mst', NULL, rho => 0.5, domains => '{"level": ["lo", "hi", "mid"]}')$$,
				 '42501', NULL, 'a role without the grant is refused');
RESET ROLE;
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('prot_mst', NULL, rho => 0.5)$$, '42804', NULL,
				 'a text column without a declared domain is refused from the schema');
SELECT throws_ok($$SELECT mrf_learn_mst_from('prot_mst', NULL, rho => 0.5, iterations => -3,
											 domains => '{"level": ["lo", "hi", "mid"]}')$$, '22023', NULL,
				 'bad options are refused before reading');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot_mst'::regclass), 0::bigint,
		  'refused calls charge nothing');

-- a release inside a transaction that rolls back: the charge stays
SET ROLE mrfdp_tap_analyst;
BEGIN;
CREATE TEMP TABLE released AS
SELECT mrf_learn_mst_from('prot_mst', NULL, rho => 0.5, domains => '{"level": ["lo", "hi", "mid"]}') AS m;
SELECT is((SELECT mrf_info(m)->>'rows' FROM released), '3002',
		  'the analyst learns an MST model from every row (substituted rows included)');
SELECT ok((SELECT (mrf_info(m)->'substituted_rows') IS NOT NULL AND mrf_info(m)->>'kind' = 'cliques'
				  AND (m::jsonb)->>'k' = '3' FROM released),
		  'a clique model over the schema''s alphabet, with the noisy count of substituted rows');
ROLLBACK;
RESET ROLE;
SELECT ok((SELECT notion = 'zCDP' AND rho = 0.50390625 AND learner = 'mrf_learn_mst' AND protected
				  AND rows_read = 3002 AND role = 'mrfdp_tap_analyst'::regrole
		   FROM mrfdp.ledger WHERE relation = 'prot_mst'::regclass ORDER BY id DESC LIMIT 1),
		  'the ledger charged rho 0.5 (1 + 1/128) to the analyst, the count of substituted rows included');
SELECT ok((SELECT spent_zcdp_rho = 0.50390625 AND releases = 1
		   FROM mrfdp.budget WHERE relation = 'prot_mst'::regclass),
		  'the charge survived the ROLLBACK of the releasing transaction');

-- the aggregate path charges the relation too (its owner reads it)
SELECT mrf_learn_mst(r, rho => 0.25, domains => '{"level": ["lo", "hi", "mid"]}') IS NOT NULL
FROM (SELECT * FROM prot_mst WHERE colour IS NOT NULL AND level IN ('lo', 'hi', 'mid')) r;
SELECT ok((SELECT spent_zcdp_rho = 0.75390625 AND releases = 2
		   FROM mrfdp.budget WHERE relation = 'prot_mst'::regclass),
		  'the aggregate path charged 0.25 more');

-- over the rho cap: refused, nothing charged
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('prot_mst', NULL, rho => 1, domains => '{"level": ["lo", "hi", "mid"]}')$$,
				 '42501', 'privacy budget of relation public.prot_mst cannot cover this release',
				 'a release over the budget is refused');
RESET ROLE;
SELECT ok((SELECT spent_zcdp_rho = 0.75390625 AND releases = 2
		   FROM mrfdp.budget WHERE relation = 'prot_mst'::regclass),
		  'and charges nothing');
SET ROLE mrfdp_tap_analyst;
SELECT lives_ok($$SELECT mrf_learn_mst_from('prot_mst', NULL, rho => 0.5, domains => '{"level": ["lo", "hi", "mid"]}')$$,
				'what is left of the budget still fits a smaller release');
RESET ROLE;
SELECT ok((SELECT spent_zcdp_rho = 1.2578125 AND releases = 3
		   FROM mrfdp.budget WHERE relation = 'prot_mst'::regclass),
		  'which is charged');

-- wide columns whose tables no number of rows fits: refused from the
-- schema's alphabets before the charge and before a row is read.  Two
-- columns of 3,000 values: a tree of 9,000,000 cells, within the 2^24 a
-- clique model holds (so 54000 is the memory's), whose counts, estimate
-- and model need about 1.4 GB (mrfdp.max_learner_memory: 1 GB).
CREATE TABLE prot_mst_wide (a int CHECK (a BETWEEN 1 AND 3000), b int CHECK (b BETWEEN 1 AND 3000));
INSERT INTO prot_mst_wide SELECT 1 + g % 3000, 1 + (g * 7) % 3000 FROM generate_series(1, 200) g;
SELECT pg_temp.protect_for_analyst('prot_mst_wide', epsilon => 10, delta => 1e-6);
CREATE FUNCTION pg_temp.wide_read() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables
	WHERE relid = 'prot_mst_wide'::regclass
$$;
SELECT pg_stat_force_next_flush();
SELECT pg_temp.wide_read() AS wide_read0 \gset
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('prot_mst_wide', NULL, rho => 0.5)$$, '54000', NULL,
				 'two 3,000-value columns: refused for memory');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT ok((SELECT releases = 0 AND spent_zcdp_rho = 0 FROM mrfdp.budget WHERE relation = 'prot_mst_wide'::regclass)
		  AND NOT EXISTS (SELECT 1 FROM mrfdp.ledger WHERE relation = 'prot_mst_wide'::regclass)
		  AND pg_temp.wide_read() = :wide_read0,
		  'before the charge and before reading a row');

DROP TABLE prot_mst;
DROP TABLE prot_mst_wide;
DROP TYPE prot_mst_colour;
RESET mrfdp.test_seed;
SELECT * FROM finish();
