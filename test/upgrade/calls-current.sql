-- Calls the functions added since 0.1.0 (those of 0.1.0 are called by
-- calls-0.1.0.sql), after ALTER EXTENSION mrfdp UPDATE in
-- test/upgrade/update_keeps_data.sh, which checks that every function of
-- the current version is called by one of the two files.  A new function
-- gets a call here, on the data of setup.sql.
\set ON_ERROR_STOP 1

SELECT mrfdp_internal.mrf_citus_group_key(41) = 41 AS citus_group_key_is_the_identity;
SELECT count(*) = 2 AS variables_of_a_hand_built_model
FROM mrf_variables(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[]));
SELECT name, (SELECT count(*) FROM mrf_variables(m)) AS variables FROM up_stored ORDER BY name;
SELECT value = '8'::jsonb AS lambda_default_is_listed
FROM mrf_option_defaults() WHERE option = 'lambda' AND learner IS NULL;

-- Citus (issue 13, item 2): the learners' aggregates with a combinable
-- state, on rows of VALUES and generate_series (no relation read: no ledger
-- rows), and their support functions, which refuse outside an aggregate.
SELECT mrfdp_internal.mrf_learn_ising_citus_agg(x, mrf_options(rho => 1)) IS NOT NULL AS ising_citus_agg
FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 < 2] AS x FROM generate_series(1, 400) g) s;
SELECT mrfdp_internal.mrf_learn_twise_citus_agg(x, mrf_options(rho => 1, t => 2)) IS NOT NULL AS twise_citus_agg
FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 < 2] AS x FROM generate_series(1, 400) g) s;
SELECT mrfdp_internal.mrf_learn_structure_citus_agg(x, mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5)) IS NOT NULL
	AS structure_citus_agg
FROM (SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 < 2] AS x FROM generate_series(1, 400) g) s;
SELECT mrfdp_internal.mrf_learn_pairwise_citus_agg(x, mrf_options(rho => 1, k => 3)) IS NOT NULL AS pairwise_citus_agg
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
SELECT mrfdp_internal.mrf_learn_cliques_citus_agg(x, mrf_options(epsilon => 1, k => 3, cliques => '[[1, 2], [2, 3]]'))
	IS NOT NULL AS cliques_citus_agg
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_citus_combine(NULL, NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_ising_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_ising_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_twise_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_twise_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_structure_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_structure_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_pairwise_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_pairwise_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_cliques_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_cliques_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
SELECT mrf_dot(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[])) LIKE 'graph mrf {%' AS dot_of_a_hand_built_model;
SELECT count(*) = 3 AS synthesize_rows
FROM mrf_synthesize('{"kind": "ising", "p": 3, "weights": [[0, 0, 0], [0, 0, 0], [0, 0, 0]], "fields": [0, 0, 0], "meta": {"variables": [{"name": "phase", "labels": ["a", "b"]}, {"name": "name", "labels": ["c", "d"]}, {"name": "result", "labels": ["e", "f"]}]}}'::mrf,
					3, NULL::up_results, seed => 1);
SELECT count(*) = 4 AS synthesize_allocated_rows
FROM mrf_synthesize('{"kind": "ising", "p": 3, "weights": [[0, 0, 0], [0, 0, 0], [0, 0, 0]], "fields": [0, 0, 0], "meta": {"variables": [{"name": "phase", "labels": ["a", "b"]}, {"name": "name", "labels": ["c", "d"]}, {"name": "result", "labels": ["e", "f"]}]}}'::mrf,
					4, NULL::up_results, seed => 1, method => 'allocate');
SELECT mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0], "meta": {"variables": [{"name": "on", "labels": ["false", "true"], "type": "boolean"}, {"name": "tag", "labels": ["a", "b"]}]}}'::mrf,
						   'up_synthesized', 3, seed => 1) = 3 AS synthesize_into_rows;
DROP TABLE up_synthesized;
-- issue 10: the plan for a model of a given width at the default lambda
SELECT rows_per_block > 0 AS rows_needed_with_width
FROM mrf_structure_rows_needed(20, eta => 0.5, epsilon => 1, delta => 1e-6, width => 2);
-- and for pairwise and t-wise structures
SELECT rows_per_block > 0 AS rows_needed_pairwise
FROM mrf_structure_rows_needed(8, eta => 0.3, epsilon => 1, delta => 1e-6, model => 'pairwise', k => 3);
SELECT rows_per_block > 0 AS rows_needed_twise
FROM mrf_structure_rows_needed(10, eta => 0.3, epsilon => 1, delta => 1e-6, model => 'twise', t => 3);
-- issue 12 item 1: MST in every form (VALUES rows: no relation, no ledger
-- row); the protected form on a relation without a grant refuses before reading
SELECT (mrf_learn_mst(r, rho => 1, domains => '{"c": ["x", "y", "z"], "d": ["u", "v", "w"]}')::jsonb ->> 'k')
	= '3' AS mst_named_form
FROM (SELECT (ARRAY['u', 'v', 'w'])[1 + g % 3] AS d, (ARRAY['x', 'y', 'z'])[1 + g % 3] AS c FROM generate_series(1, 300) g) r;
SELECT mrf_learn_mst_agg(x, mrf_options(rho => 1, k => 3)) IS NOT NULL AS mst_agg
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
SELECT mrfdp_internal.mrf_learn_mst_citus_agg(x, mrf_options(rho => 1, k => 3)) IS NOT NULL AS mst_citus_agg
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
SELECT mrfdp_internal.mrf_learn_aim_citus_agg(x, mrf_options(rho => 1, k => 3)) IS NOT NULL AS aim_citus_agg
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_aim_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_aim_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrf_learn_mst_from('up_kary', 'z', rho => 1, k => 3, variables => 3);
	RAISE EXCEPTION 'mrf_learn_mst_from learned from an unprotected relation';
EXCEPTION WHEN insufficient_privilege THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_mst_citus_accum(NULL, ARRAY[true], NULL::jsonb);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_learn_mst_citus_final(NULL);
	RAISE EXCEPTION 'a Citus state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
-- issue 13 item 3: the scores aggregate refuses outside mrf_learn_ising_from
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_fw_ising_scores_agg(x, '\x'::bytea, 0::oid) FROM (VALUES (ARRAY[true, false])) v(x);
	RAISE EXCEPTION 'the scores aggregate ran outside its driver';
EXCEPTION WHEN invalid_binary_representation THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_fw_kary_scores_agg(x, '\x'::bytea, 0::oid) FROM (VALUES (ARRAY[0, 2]::smallint[])) v(x);
	RAISE EXCEPTION 'the k-ary scores aggregate ran outside its driver';
EXCEPTION WHEN invalid_binary_representation THEN NULL;
END$$;
-- the codes of a k-ary sample (a function of its argument alone)
DO $$
BEGIN
	IF mrfdp_internal.mrf_fw_kary_codes(ARRAY[0, 2, 1]::smallint[], 3, 3, NULL, NULL) IS DISTINCT FROM ARRAY[0, 2, 1]::smallint[]
		OR mrfdp_internal.mrf_fw_kary_codes(ARRAY[0, 3, 1]::smallint[], 3, 3, NULL, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'mrf_fw_kary_codes misread a sample';
	END IF;
	IF mrfdp_internal.mrf_fw_binary_codes(ARRAY[1, -1, 1]::smallint[], 3) IS DISTINCT FROM ARRAY[true, false, true]
		OR mrfdp_internal.mrf_fw_binary_codes(ARRAY[1, 0, 1]::smallint[], 3) IS NOT NULL THEN
		RAISE EXCEPTION 'mrf_fw_binary_codes misread a sample';
	END IF;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_fw_scores_accum(NULL, ARRAY[true], NULL::bytea, NULL::oid);
	RAISE EXCEPTION 'a scores state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_fw_scores_combine(NULL, NULL);
	RAISE EXCEPTION 'a scores state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_fw_scores_final(NULL);
	RAISE EXCEPTION 'a scores state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
-- issue 13 item 3: the stable mode's blocks aggregate refuses outside mrf_learn_structure_from
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_stable_blocks_agg(x, '\x'::bytea, 0::oid) FROM (VALUES (ARRAY[true, false])) v(x);
	RAISE EXCEPTION 'the blocks aggregate ran outside its driver';
EXCEPTION WHEN invalid_binary_representation THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_stable_blocks_accum(NULL, ARRAY[true], NULL::bytea, NULL::oid);
	RAISE EXCEPTION 'a blocks state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_stable_blocks_combine(NULL, NULL);
	RAISE EXCEPTION 'a blocks state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
DO $$
BEGIN
	PERFORM mrfdp_internal.mrf_stable_blocks_final(NULL);
	RAISE EXCEPTION 'a blocks state function ran outside an aggregate';
EXCEPTION WHEN feature_not_supported THEN NULL;
END$$;
-- the kept-parts scan: every row of a table with a first step, none with a step that frees
CREATE TEMP TABLE up_fw_kept AS SELECT g FROM generate_series(1, 3) g;
SELECT (SELECT count(*) FROM up_fw_kept TABLESAMPLE mrfdp_internal.mrf_fw_kept('\x5446524d0100000002000000020000000000000001000000000000000000004000000000000000000000000000000000'::bytea)) = 3
	AND (SELECT count(*) FROM up_fw_kept TABLESAMPLE mrfdp_internal.mrf_fw_kept('\x5446524d01000000020000000200000000000000ffffffff000000000000004000000000000000000000000000000000'::bytea)) = 0
	AS fw_kept_scan;
-- issue 12 item 2: AIM in every form (VALUES rows: no relation, no ledger
-- row), a workload by column names; mrf_options takes workload
SELECT (mrf_learn_aim(r, rho => 1, workload => '[["c", "d"]]', domains => '{"c": ["x", "y", "z"], "d": ["u", "v", "w"]}')::jsonb ->> 'k')
	= '3' AS aim_named_form
FROM (SELECT (ARRAY['u', 'v', 'w'])[1 + g % 3] AS d, (ARRAY['x', 'y', 'z'])[1 + g % 3] AS c FROM generate_series(1, 300) g) r;
SELECT (mrf_learn_aim_plan(ARRAY[2, 3, 4], 1, 1000) ->> 'max_rounds')::int AS aim_plan_rounds;
-- AIM's rounds, one_way_share and max_model_cells on the named, aggregate and plan forms
SELECT (mrf_learn_aim_plan(ARRAY[2, 3, 4], 1, 1000, rounds => 12, one_way_share => 0.5, max_model_cells => 100)
		->> 'max_rounds')::int = 12 AS aim_plan_options;
SELECT (mrf_info(mrf_learn_aim(r, rho => 1, rounds => 12, one_way_share => 0.5, max_model_cells => 100,
							   domains => '{"c": ["x", "y", "z"], "d": ["u", "v", "w"]}')) ->> 'max_rounds')::int = 12
	AS aim_named_options
FROM (SELECT (ARRAY['u', 'v', 'w'])[1 + g % 3] AS d, (ARRAY['x', 'y', 'z'])[1 + g % 3] AS c FROM generate_series(1, 300) g) r;
SELECT (mrf_info(mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 3, rounds => 12, one_way_share => 0.5,
												  max_model_cells => 100))) ->> 'max_rounds')::int = 12 AS aim_agg_options
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
SELECT mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 3, workload => '[[1, 2, 3]]')) IS NOT NULL AS aim_agg
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
-- AIM's schedule option on the plan, named and aggregate forms
SELECT mrf_learn_aim_plan(ARRAY[2, 3, 4], 1, 1000, schedule => 'paper') ->> 'schedule' AS aim_plan_schedule;
SELECT mrf_info(mrf_learn_aim(r, rho => 1, schedule => 'paper',
							  domains => '{"c": ["x", "y", "z"], "d": ["u", "v", "w"]}')) ->> 'schedule' AS aim_named_schedule
FROM (SELECT (ARRAY['u', 'v', 'w'])[1 + g % 3] AS d, (ARRAY['x', 'y', 'z'])[1 + g % 3] AS c FROM generate_series(1, 300) g) r;
SELECT mrf_info(mrf_learn_aim_agg(x, mrf_options(rho => 1, k => 3, schedule => 'seeded'))) ->> 'schedule' AS aim_agg_schedule
FROM (SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3] AS x FROM generate_series(1, 400) g) s;
DO $$
BEGIN
	PERFORM mrf_learn_aim_from('up_kary', 'z', rho => 1, k => 3, variables => 3, rounds => 12,
							   one_way_share => 0.5, max_model_cells => 100, schedule => 'auto');
	RAISE EXCEPTION 'mrf_learn_aim_from learned from an unprotected relation';
EXCEPTION WHEN insufficient_privilege THEN NULL;
END$$;
-- issue 11 item 1: the cliques named form with per-variable alphabets, a
-- declared domain and a nulls policy (VALUES rows: no relation, no ledger row)
SELECT (mrf_learn_cliques(r, cliques => '[[1, 2]]', epsilon => 1,
						  domains => '{"c": ["x", "y", "z"]}', nulls => 'category')::jsonb -> 'alphabets')
	= '[3, 4]'::jsonb AS cliques_domains_nulls
FROM (SELECT g % 2 = 0 AS b, (ARRAY['x', 'y', 'z'])[1 + g % 3] AS c FROM generate_series(1, 300) g) r;
-- issue 12 item 3: mrf_marginal_error and mrf_marginal_errors (not private:
-- they read the relation as the caller), on the stored clique model of
-- up_kary's array column
SELECT count(*) = 3 AND bool_and(mean_l1 BETWEEN 0 AND 2) AS marginal_error
FROM mrf_marginal_error((SELECT m FROM up_stored WHERE name = 'cliques'), 'up_kary', '{z}');
SELECT count(*) = 3 AS marginal_errors
FROM mrf_marginal_errors((SELECT m FROM up_stored WHERE name = 'cliques'), 'up_kary', '{z}', '{2}');
-- mrf_marginal: the exact marginal of any set of variables, here the stored
-- clique model's variables 1 and 3 (a model of an array column: numbers)
SELECT abs(sum(probability) - 1) < 1e-9 AND bool_and(clique = '{1,3}') AS marginal
FROM mrf_marginal((SELECT m FROM up_stored WHERE name = 'cliques'), '{1,3}');
