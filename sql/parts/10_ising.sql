-- The Ising learner: bit-packed aggregate, named form, protected path.

-- Transition: plans at each group's first row (window aggregates too), then
-- packs bits.
CREATE FUNCTION mrfdp_internal.mrf_ising_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_ising_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_ising_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_ising_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_ising_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-------------------------------------------------------------------------------
-- Named forms.  Each is rewritten at parse analysis into its aggregate by the
-- post_parse_analyze_hook in src/pg/sqlapi/named_call.c when the library is loaded
-- (session_preload_libraries or shared_preload_libraries).  Called directly,
-- the C function raises an error that explains the preload.  All named forms
-- share the C symbol mrf_learn_named_form: that is how the hook finds them.
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_learn_ising(x anyelement,
								rho float8 DEFAULT NULL,
								epsilon float8 DEFAULT NULL,
								delta float8 DEFAULT NULL,
								lambda float8 DEFAULT NULL,
								iterations int DEFAULT NULL,
								mechanism text DEFAULT NULL,
								symmetrize boolean DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-------------------------------------------------------------------------------
-- The protected path: learn from a relation one may not read, once its owner
-- has granted learning.  SECURITY INVOKER with a fixed search_path; the C
-- function checks the grant of the role that called it (privacy.md 9).
-- column_name NULL means the whole row (all columns boolean).  variables is
-- needed when the column's type does not fix p (arrays, bit varying).
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_learn_ising_from(relation regclass, column_name text,
									 rho float8 DEFAULT NULL,
									 epsilon float8 DEFAULT NULL,
									 delta float8 DEFAULT NULL,
									 lambda float8 DEFAULT NULL,
									 iterations int DEFAULT NULL,
									 mechanism text DEFAULT NULL,
									 symmetrize boolean DEFAULT NULL,
									 variables int DEFAULT NULL,
									 columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;
