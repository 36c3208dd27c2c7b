-- The pairwise k-ary learner (Zhang et al. 2020, Algorithm 3): byte-row
-- aggregate, named form, protected path, mrf_weights.

-- Transition: plans at each group's first row (window aggregates too), then
-- stores bytes.
CREATE FUNCTION mrfdp_internal.mrf_pairwise_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_pairwise_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Rows: smallint[]/int[] with values 0..k-1 (k required), arrays of an enum
-- type, or rows of enum/boolean columns (k fixed by the type).
CREATE AGGREGATE mrf_learn_pairwise_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_pairwise_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_pairwise_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_pairwise_agg; see 10_ising.sql).
CREATE FUNCTION mrf_learn_pairwise(x anyelement,
								   k int DEFAULT NULL,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   lambda float8 DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   mechanism text DEFAULT NULL,
								   symmetrize boolean DEFAULT NULL,
								   domains jsonb DEFAULT NULL,
								   nulls text DEFAULT NULL,
								   bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_pairwise_from(relation regclass, column_name text,
										k int DEFAULT NULL,
										rho float8 DEFAULT NULL,
										epsilon float8 DEFAULT NULL,
										delta float8 DEFAULT NULL,
										lambda float8 DEFAULT NULL,
										iterations int DEFAULT NULL,
										mechanism text DEFAULT NULL,
										symmetrize boolean DEFAULT NULL,
										variables int DEFAULT NULL,
										domains jsonb DEFAULT NULL,
										nulls text DEFAULT NULL,
										bins jsonb DEFAULT NULL,
										columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- W_ij(a, b) of a pairwise model: 1-based i, j; values a, b in 0..k-1.
-- Symmetric models list each pair once (i < j), others every ordered pair.
-- Names and labels: from the rows' columns and types (NULL when unknown).
CREATE FUNCTION mrf_weights(model mrf, OUT i int, OUT j int, OUT a int, OUT b int,
							OUT weight float8, OUT name_i text, OUT name_j text,
							OUT label_a text, OUT label_b text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
