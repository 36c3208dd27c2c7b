-- Clique models of known structure from noisy sufficient statistics
-- (Bernstein et al. 2017; privacy.md 8), epsilon-DP: byte-row aggregate,
-- named form, protected path, mrf_potentials and mrf_marginals.

-- Transition: plans at each group's first row (window aggregates too), then
-- stores bytes.
CREATE FUNCTION mrfdp_internal.mrf_cliques_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_cliques_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_cliques_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_cliques_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_cliques_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_cliques_agg; see 10_ising.sql).
-- cliques: '[[1, 2], [2, 3]]' (1-based variables); k for integer arrays;
-- tolerance (default 1e-5) and em_iterations (default 300) apply to 'cgm'.
-- Rows of columns may mix alphabets (booleans, enums of any size, columns
-- with a declared domain); domains and nulls as for mrf_learn_pairwise.
CREATE FUNCTION mrf_learn_cliques(x anyelement,
								  cliques jsonb DEFAULT NULL,
								  k int DEFAULT NULL,
								  epsilon float8 DEFAULT NULL,
								  method text DEFAULT NULL,
								  tolerance float8 DEFAULT NULL,
								  em_iterations int DEFAULT NULL,
								  domains jsonb DEFAULT NULL,
								  nulls text DEFAULT NULL,
								  bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_cliques_from(relation regclass, column_name text,
									   cliques jsonb DEFAULT NULL,
									   k int DEFAULT NULL,
									   epsilon float8 DEFAULT NULL,
									   method text DEFAULT NULL,
									   tolerance float8 DEFAULT NULL,
									   em_iterations int DEFAULT NULL,
									   variables int DEFAULT NULL,
									   domains jsonb DEFAULT NULL,
									   nulls text DEFAULT NULL,
									   bins jsonb DEFAULT NULL,
									   columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- Every cell of every log-potential table of a clique model: the clique's
-- variables (1-based, ascending), the assignment (each variable's code,
-- 0..k_i-1 in its own alphabet, aligned with clique) and its log-potential;
-- names and labels (NULL when the model has none) from the rows' columns,
-- types and declared domains.
CREATE FUNCTION mrf_potentials(model mrf, OUT clique int[], OUT assignment int[],
							   OUT log_potential float8, OUT names text[], OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The clique marginals of a clique model, in the layout of mrf_potentials:
-- exact on a junction tree, loopy belief propagation otherwise.
CREATE FUNCTION mrf_marginals(model mrf, OUT clique int[], OUT assignment int[],
							  OUT probability float8, OUT names text[], OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
