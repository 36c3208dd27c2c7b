-- MST (McKenna, Miklau, Sheldon 2021; privacy.md 12), rho-zCDP: every
-- one-way marginal measured, a spanning tree of pairs selected by the
-- exponential mechanism, its pairs measured, a clique model estimated and
-- released. Byte-row aggregate, named form, protected path.

-- Transition: plans at each group's first row (window aggregates too), then
-- stores bytes.
CREATE FUNCTION mrfdp_internal.mrf_mst_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_mst_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_mst_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_mst_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_mst_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_mst_agg; see 10_ising.sql). Rows of
-- columns may mix alphabets (booleans, enums, columns with a declared
-- domain); k for integer arrays; iterations: the estimator's mirror-descent
-- steps (default 1000); domains and nulls as for mrf_learn_pairwise.
CREATE FUNCTION mrf_learn_mst(x anyelement,
							  rho float8 DEFAULT NULL,
							  epsilon float8 DEFAULT NULL,
							  delta float8 DEFAULT NULL,
							  k int DEFAULT NULL,
							  iterations int DEFAULT NULL,
							  domains jsonb DEFAULT NULL,
							  nulls text DEFAULT NULL,
							  bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_mst_from(relation regclass, column_name text,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   k int DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   variables int DEFAULT NULL,
								   domains jsonb DEFAULT NULL,
								   nulls text DEFAULT NULL,
								   bins jsonb DEFAULT NULL,
								   columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;
