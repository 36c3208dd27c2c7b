-- AIM (McKenna, Mullins, Sheldon, Miklau 2022; privacy.md 13), rho-zCDP:
-- every one-way marginal measured, then rounds that select a workload
-- marginal by the exponential mechanism (worst weighted error, within a
-- junction-tree size that grows with the budget spent), measure it and
-- re-estimate, annealing the noise; a clique model is released. Byte-row
-- aggregate, named form, protected path. On Citus tables its combinable
-- sibling ships counted tables (78_aim_citus.sql; test/citus/aim.sql).

-- Transition: plans at each group's first row (window aggregates too), then
-- stores bytes.
CREATE FUNCTION mrfdp_internal.mrf_aim_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_aim_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_aim_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_aim_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_aim_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_aim_agg; see 10_ising.sql). workload:
-- '[["a", "b"], ["a", "b", "c"]]' by column names (or 1-based numbers for
-- arrays); default: every pair, plus the triples over pairs AIM selected.
-- iterations: the final estimate's mirror-descent steps (default 1000);
-- domains and nulls as for mrf_learn_pairwise. schedule: 'auto' (default:
-- [MMSM22]'s on rich tables, else the MST-seeded one), 'seeded' or
-- 'paper'. rounds: T, the rounds at the initial rates (the seeded
-- schedule's default 8, after the MST seed; [MMSM22]'s 16 p up to 16
-- columns, 256 up to 128, else 2 p); one_way_share: the one-way
-- marginals' part of rho (the seeded schedule's default 1/3, the seed
-- taking 9/10 of the rest; [MMSM22]'s 0.9 p / T); max_model_cells: the
-- junction tree's cap (default 2^16, at most a quarter of
-- mrfdp.max_learner_memory); any of them composes to rho (privacy.md 13).
CREATE FUNCTION mrf_learn_aim(x anyelement,
							  rho float8 DEFAULT NULL,
							  epsilon float8 DEFAULT NULL,
							  delta float8 DEFAULT NULL,
							  workload jsonb DEFAULT NULL,
							  k int DEFAULT NULL,
							  iterations int DEFAULT NULL,
							  domains jsonb DEFAULT NULL,
							  nulls text DEFAULT NULL,
							  bins jsonb DEFAULT NULL,
							  rounds int DEFAULT NULL,
							  one_way_share float8 DEFAULT NULL,
							  max_model_cells int DEFAULT NULL,
							  schedule text DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_aim_from(relation regclass, column_name text,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   workload jsonb DEFAULT NULL,
								   k int DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   variables int DEFAULT NULL,
								   domains jsonb DEFAULT NULL,
								   nulls text DEFAULT NULL,
								   bins jsonb DEFAULT NULL,
								   columns text[] DEFAULT NULL,
								   rounds int DEFAULT NULL,
								   one_way_share float8 DEFAULT NULL,
								   max_model_cells int DEFAULT NULL,
								   schedule text DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- What mrf_learn_aim would do with columns of these alphabets, budget and
-- options, from public sizes only (no relation, no row, no charge): rounds,
-- rates, candidates, the model's cap, a rough time on
-- mrfdp.learner_threads scoring threads and, with n, the memory; the
-- options are checked as the release checks them.
CREATE FUNCTION mrf_learn_aim_plan(alphabets int[], rho float8, n bigint DEFAULT NULL,
								   rounds int DEFAULT NULL,
								   one_way_share float8 DEFAULT NULL,
								   max_model_cells int DEFAULT NULL,
								   schedule text DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'mrf_learn_aim_plan' LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL SAFE;
