-- The binary t-wise learner (Zhang et al. 2020, Algorithms 4 and 5):
-- bit-packed aggregate, named form, protected path, mrf_monomials.

-- Transition: plans at each group's first row (window aggregates too), then
-- packs bits.
CREATE FUNCTION mrfdp_internal.mrf_twise_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_twise_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_twise_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_twise_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_twise_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_twise_agg; see 10_ising.sql).
-- query_release applies to objective => 'linf' only (default 'gaussian').
CREATE FUNCTION mrf_learn_twise(x anyelement,
								t int DEFAULT NULL,
								rho float8 DEFAULT NULL,
								epsilon float8 DEFAULT NULL,
								delta float8 DEFAULT NULL,
								lambda float8 DEFAULT NULL,
								objective text DEFAULT NULL,
								query_release text DEFAULT NULL,
								iterations int DEFAULT NULL,
								mechanism text DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_twise_from(relation regclass, column_name text,
									 t int DEFAULT NULL,
									 rho float8 DEFAULT NULL,
									 epsilon float8 DEFAULT NULL,
									 delta float8 DEFAULT NULL,
									 lambda float8 DEFAULT NULL,
									 objective text DEFAULT NULL,
									 query_release text DEFAULT NULL,
									 iterations int DEFAULT NULL,
									 mechanism text DEFAULT NULL,
									 variables int DEFAULT NULL,
									 columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- Every monomial of a twise model (|vars| = 1..t, 1-based, in the model's
-- index order), zero coefficients included; names: the variables' names
-- (NULL when the model has none).
CREATE FUNCTION mrf_monomials(model mrf, OUT vars int[], OUT coef float8, OUT names text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
