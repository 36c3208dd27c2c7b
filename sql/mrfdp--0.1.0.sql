-- mrfdp: differentially private learning of Markov random fields
\echo Use "CREATE EXTENSION mrfdp" to load this file. \quit

-------------------------------------------------------------------------------
-- The model type: a varlena with binary parameters; text I/O is JSON.
-------------------------------------------------------------------------------
CREATE TYPE mrf;

CREATE FUNCTION mrf_in(cstring) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_out(mrf) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_recv(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_send(mrf) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE mrf (
	INPUT = mrf_in,
	OUTPUT = mrf_out,
	RECEIVE = mrf_recv,
	SEND = mrf_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

CREATE FUNCTION mrf_to_jsonb(mrf) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (mrf AS jsonb) WITH FUNCTION mrf_to_jsonb(mrf);

-- Builds an Ising model from a p x p weight matrix (zero diagonal) and fields.
CREATE FUNCTION mrf_ising(weights float8[], fields float8[] DEFAULT NULL) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-------------------------------------------------------------------------------
-- Accessors
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_info(mrf) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION mrf_edges(model mrf, threshold float8 DEFAULT 0,
						  OUT i int, OUT j int, OUT weight float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION mrf_fields(model mrf, OUT i int, OUT a int, OUT theta float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Gibbs (or exact, for small p) samples; VOLATILE: draws randomness.
CREATE FUNCTION mrf_sample(model mrf, n int, burn_in int DEFAULT 1000,
						   thin int DEFAULT 10, seed bigint DEFAULT NULL)
	RETURNS SETOF int[]
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Learners running now in any session (needs mrfdp in shared_preload_libraries).
CREATE FUNCTION mrf_progress(OUT pid int, OUT learner text, OUT done bigint, OUT total bigint,
							 OUT percent float8, OUT started timestamptz)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

-------------------------------------------------------------------------------
-- Budget conversions (SPEC 3.3); the arithmetic lives in src/core/privacy.c.
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_zcdp_to_dp(rho float8, delta float8, method text DEFAULT 'tight')
	RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_dp_to_zcdp(epsilon float8) RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_zcdp_for_dp(epsilon float8, delta float8, method text DEFAULT 'tight')
	RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-------------------------------------------------------------------------------
-- Learner options: one jsonb document, validated here and again by the
-- learner.  NULL means "not given".
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_options(rho float8 DEFAULT NULL,
							epsilon float8 DEFAULT NULL,
							delta float8 DEFAULT NULL,
							lambda float8 DEFAULT NULL,
							iterations int DEFAULT NULL,
							mechanism text DEFAULT NULL,
							symmetrize boolean DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-------------------------------------------------------------------------------
-- Aggregate machinery shared by the binary learners: rows packed as bits.
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_bits_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrf_bits_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrf_bits_serialize(internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_bits_deserialize(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrf_ising_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_ising_agg(anyelement, jsonb) (
	SFUNC = mrf_bits_accum,
	STYPE = internal,
	FINALFUNC = mrf_ising_final,
	COMBINEFUNC = mrf_bits_combine,
	SERIALFUNC = mrf_bits_serialize,
	DESERIALFUNC = mrf_bits_deserialize,
	PARALLEL = SAFE
);

-------------------------------------------------------------------------------
-- Named forms.  Each is rewritten at parse analysis into its aggregate by the
-- post_parse_analyze_hook in src/pg/named_call.c when the library is loaded
-- (session_preload_libraries or shared_preload_libraries).  Called directly,
-- the C function raises an error that explains the preload.  All named forms
-- share the C symbol mrf_learn_named_form: that is how the hook finds them.
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_learn_ising(x anyelement,
								rho float8 DEFAULT NULL,
								epsilon float8 DEFAULT NULL,
								delta float8 DEFAULT NULL,
								lambda float8 DEFAULT 1,
								iterations int DEFAULT NULL,
								mechanism text DEFAULT 'exponential',
								symmetrize boolean DEFAULT true)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;
