-- The walk-through of docs/walkthrough.md, end to end, on BreastCancer: a
-- table with an id column, integer scores and NULLs, protected; learned by
-- MST and AIM through the protected path with columns (the id left out),
-- the scores' alphabets from their CHECK constraints, two scores by bins;
-- synthesized back into the source's column types; marginals compared.
-- test/tables/walkthrough.sh runs it.
--   scripts/breastcancer.sh && pg_virtualenv -o session_preload_libraries=mrfdp \
--     sh -c 'psql -c "CREATE EXTENSION mrfdp" && psql -X -f scripts/breastcancer.sql'
\set ON_ERROR_STOP 1
\i scripts/breastcancer_load.sql
SELECT count(*) AS biopsies, count(*) FILTER (WHERE bare_nuclei IS NULL) AS bare_nuclei_missing,
	   count(*) FILTER (WHERE class = 'malignant') AS malignant
FROM breast_cancer;

-- the owner protects the table and lets an analyst learn from it
CREATE ROLE bc_analyst;
GRANT USAGE, CREATE ON SCHEMA public TO bc_analyst;
SELECT mrfdp.protect('breast_cancer', epsilon => 20, delta => 1e-6);
SELECT mrfdp.grant_learning('breast_cancer', 'bc_analyst');

SET ROLE bc_analyst;
-- the analyst cannot read the table, only learn from it
\set ON_ERROR_STOP 0
SELECT count(*) FROM breast_cancer;
\set ON_ERROR_STOP 1

-- MST over every column but the id: the scores' alphabets come from their
-- CHECK constraints (1..10), cell size and shape by bins, a missing bare
-- nuclei count is a value of its own
CREATE TABLE bc_models AS
SELECT 'mst' AS learner, mrf_learn_mst_from('breast_cancer', NULL, rho => 1,
	columns => ARRAY['cl_thickness', 'cell_size', 'cell_shape', 'marg_adhesion', 'epith_c_size',
					 'bare_nuclei', 'bl_cromatin', 'normal_nucleoli', 'mitoses', 'class'],
	bins => '{"cell_size": [2, 4, 7], "cell_shape": [2, 4, 7]}',
	nulls => '{"bare_nuclei": "category"}') AS m;
-- AIM with a workload of the class against each score
INSERT INTO bc_models
SELECT 'aim', mrf_learn_aim_from('breast_cancer', NULL, rho => 1,
	columns => ARRAY['cl_thickness', 'cell_size', 'cell_shape', 'bare_nuclei', 'bl_cromatin', 'class'],
	bins => '{"cell_size": [2, 4, 7], "cell_shape": [2, 4, 7]}',
	nulls => '{"bare_nuclei": "category"}',
	workload => '[["class", "cl_thickness"], ["class", "cell_size"], ["class", "cell_shape"],
				  ["class", "bare_nuclei"], ["class", "bl_cromatin"]]');
SELECT learner, mrf_info(m)->>'rows' AS rows, mrf_info(m)->'substituted_rows'->>'noisy_count' AS substituted,
	   m::jsonb->'alphabets' AS alphabets
FROM bc_models ORDER BY learner;
SELECT name, labels FROM mrf_variables((SELECT m FROM bc_models WHERE learner = 'mst')) WHERE name IN ('cell_size', 'bare_nuclei', 'class');

-- synthetic tables in the source's column types (post-processing: no budget)
SELECT mrf_synthesize_into((SELECT m FROM bc_models WHERE learner = 'mst'), 'bc_mst', 699, seed => 1);
SELECT mrf_synthesize_into((SELECT m FROM bc_models WHERE learner = 'aim'), 'bc_aim', 699, seed => 1);
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'bc_mst'::regclass AND attnum > 0 ORDER BY attnum;
RESET ROLE;

-- compare marginals (the owner may read both): the class, the class by
-- clump thickness (1-3, 4-6, 7-10), and the L1 distance of each table's
-- two-way marginals of the class against each score
CREATE FUNCTION bc_band(x smallint) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$SELECT CASE WHEN x IS NULL THEN 'missing' WHEN x <= 3 THEN '1-3' WHEN x <= 6 THEN '4-6' ELSE '7-10' END$$;
SELECT 'real' AS source, class, count(*) AS n FROM breast_cancer GROUP BY class
UNION ALL SELECT 'mst', class, count(*) FROM bc_mst GROUP BY class
UNION ALL SELECT 'aim', class, count(*) FROM bc_aim GROUP BY class ORDER BY 1, 2;
WITH r AS (SELECT class, bc_band(cl_thickness) AS thickness, count(*) AS n FROM breast_cancer GROUP BY 1, 2),
	 m AS (SELECT class, bc_band(cl_thickness) AS thickness, count(*) AS n FROM bc_mst GROUP BY 1, 2),
	 a AS (SELECT class, bc_band(cl_thickness) AS thickness, count(*) AS n FROM bc_aim GROUP BY 1, 2)
SELECT class, thickness, r.n AS real, m.n AS mst, a.n AS aim
FROM r FULL JOIN m USING (class, thickness) FULL JOIN a USING (class, thickness) ORDER BY 1, 2;
CREATE FUNCTION bc_l1(synth regclass, score text) RETURNS numeric LANGUAGE plpgsql AS $f$
DECLARE d numeric;
BEGIN
	EXECUTE format($q$SELECT sum(abs(coalesce(r.p, 0) - coalesce(s.p, 0)))
		FROM (SELECT class, bc_band(%1$I) b, count(*)::numeric / sum(count(*)) OVER () p FROM breast_cancer GROUP BY 1, 2) r
		FULL JOIN (SELECT class, bc_band(%1$I) b, count(*)::numeric / sum(count(*)) OVER () p FROM %2$s GROUP BY 1, 2) s
		USING (class, b)$q$, score, synth) INTO d;
	RETURN round(d, 3);
END $f$;
SELECT score, bc_l1('bc_mst', score) AS mst_l1, bc_l1('bc_aim', score) AS aim_l1
FROM unnest(ARRAY['cl_thickness', 'cell_size', 'cell_shape', 'bare_nuclei', 'bl_cromatin']) score;

SELECT releases, round(spent_rho::numeric, 4) AS spent_rho, round(remaining_epsilon::numeric, 2) AS remaining_epsilon
FROM mrfdp.budget_status WHERE relation = 'breast_cancer'::regclass;
