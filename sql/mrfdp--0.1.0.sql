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
							symmetrize boolean DEFAULT NULL,
							k int DEFAULT NULL,
							t int DEFAULT NULL,
							objective text DEFAULT NULL,
							query_release text DEFAULT NULL,
							eta float8 DEFAULT NULL,
							blocks int DEFAULT NULL,
							model text DEFAULT NULL,
							method text DEFAULT NULL,
							cliques jsonb DEFAULT NULL,
							tolerance float8 DEFAULT NULL,
							em_iterations int DEFAULT NULL)
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

-------------------------------------------------------------------------------
-- The privacy ledger (SPEC 3.4).  The catalog lives in schema mrfdp, owned
-- by the extension's owner; nobody else may write it.  All writes go through
-- C functions that check the real caller, and charges are committed by a
-- background worker in a transaction of their own before any release.
-------------------------------------------------------------------------------
CREATE SCHEMA mrfdp;
GRANT USAGE ON SCHEMA mrfdp TO PUBLIC;

-- One row per protected relation: its total budget and what has been spent.
-- Spent amounts are exact decimal sums of charges rounded up.
CREATE TABLE mrfdp.budget (
	relation regclass PRIMARY KEY,
	epsilon float8 NOT NULL CHECK (epsilon > 0 AND epsilon < 'infinity'),
	delta float8 NOT NULL CHECK (delta >= 0 AND delta < 1),
	rho_cap float8 CHECK (rho_cap > 0 AND rho_cap < 'infinity'),
	owner regrole NOT NULL,
	created timestamptz NOT NULL DEFAULT now(),
	spent_zcdp_rho numeric NOT NULL DEFAULT 0,		-- zCDP releases: sum of rho
	spent_pure_epsilon numeric NOT NULL DEFAULT 0,	-- pure releases: sum of epsilon
	spent_pure_rho numeric NOT NULL DEFAULT 0,		-- pure releases: sum of epsilon^2/2
	spent_approx_epsilon numeric NOT NULL DEFAULT 0,	-- (epsilon, delta) releases
	spent_approx_delta numeric NOT NULL DEFAULT 0,
	releases bigint NOT NULL DEFAULT 0
);

-- Roles allowed to learn from a relation through the mrf_learn_*_from functions.
CREATE TABLE mrfdp.grants (
	relation regclass NOT NULL REFERENCES mrfdp.budget ON DELETE CASCADE,
	role regrole NOT NULL,
	granted_by regrole NOT NULL,
	granted timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (relation, role)
);

-- Append-only: one row per release and relation read.
CREATE TABLE mrfdp.ledger (
	id bigserial PRIMARY KEY,
	relation regclass NOT NULL,
	protected boolean NOT NULL,
	role regrole NOT NULL,
	at timestamptz NOT NULL DEFAULT clock_timestamp(),
	learner text NOT NULL,
	notion text NOT NULL CHECK (notion IN ('zCDP', 'pure', 'approximate')),
	rho float8,
	epsilon float8,
	delta float8,
	rows_read bigint,
	statement text
);

CREATE FUNCTION mrfdp.ledger_append_only() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'mrfdp.ledger is append-only'
		USING ERRCODE = 'insufficient_privilege',
			  HINT = 'Ledger rows are never updated or deleted.';
END $$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON mrfdp.ledger
	FOR EACH ROW EXECUTE FUNCTION mrfdp.ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON mrfdp.ledger
	FOR EACH STATEMENT EXECUTE FUNCTION mrfdp.ledger_append_only();

REVOKE ALL ON mrfdp.budget, mrfdp.grants, mrfdp.ledger FROM PUBLIC;
REVOKE ALL ON SEQUENCE mrfdp.ledger_id_seq FROM PUBLIC;

-- Total epsilon spent under the composition of SPEC 3.4 (the arithmetic is
-- in src/core/privacy.c): +infinity when the delta left cannot carry the
-- zCDP part.
CREATE FUNCTION mrfdp.spent_epsilon(zcdp_rho numeric, pure_epsilon numeric, pure_rho numeric,
									approx_epsilon numeric, approx_delta numeric, delta float8)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'mrf_ledger_spent_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Spent and remaining per relation, for the relation's owner and its
-- granted roles (superusers see all).
CREATE VIEW mrfdp.budget_status WITH (security_barrier) AS
SELECT b.relation, b.owner, b.epsilon, b.delta, b.rho_cap,
	   s.spent_epsilon,
	   b.spent_approx_delta::float8 AS spent_delta,
	   (b.spent_zcdp_rho + b.spent_pure_rho)::float8 AS spent_rho,
	   greatest(b.epsilon - s.spent_epsilon, 0) AS remaining_epsilon,
	   greatest(b.delta - b.spent_approx_delta::float8, 0) AS remaining_delta,
	   b.releases, b.created
FROM mrfdp.budget b,
	 LATERAL (SELECT mrfdp.spent_epsilon(b.spent_zcdp_rho, b.spent_pure_epsilon, b.spent_pure_rho,
										 b.spent_approx_epsilon, b.spent_approx_delta, b.delta) AS spent_epsilon) s
WHERE pg_has_role(b.owner, 'USAGE')
   OR EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.relation = b.relation AND pg_has_role(g.role, 'USAGE'))
   OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user);
GRANT SELECT ON mrfdp.budget_status TO PUBLIC;

-- Protects a relation with a total budget; only its owner (or a superuser).
-- Calling it again changes the budget (never below what is spent).
CREATE FUNCTION mrfdp.protect(relation regclass, epsilon float8, delta float8 DEFAULT 0,
							  rho_cap float8 DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'mrf_ledger_protect' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Lets a role learn from a protected relation without reading it.
CREATE FUNCTION mrfdp.grant_learning(relation regclass, role regrole) RETURNS void
	AS 'MODULE_PATHNAME', 'mrf_ledger_grant' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION mrfdp.revoke_learning(relation regclass, role regrole) RETURNS void
	AS 'MODULE_PATHNAME', 'mrf_ledger_revoke' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

-- What is left of a relation's budget (owner, granted roles, superusers).
CREATE FUNCTION mrfdp.remaining(relation regclass,
								OUT epsilon float8, OUT delta float8, OUT rho float8,
								OUT spent_epsilon float8, OUT releases bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'mrf_ledger_remaining' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-------------------------------------------------------------------------------
-- The protected path: learn from a relation one may not read, once its owner
-- has granted learning.  SECURITY DEFINER with a fixed search_path; the C
-- function checks the grant of the role that called it (SPEC 3.4).
-- column_name NULL means the whole row (all columns boolean).  variables is
-- needed when the column's type does not fix p (arrays, bit varying).
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_learn_ising_from(relation regclass, column_name text,
									 rho float8 DEFAULT NULL,
									 epsilon float8 DEFAULT NULL,
									 delta float8 DEFAULT NULL,
									 lambda float8 DEFAULT 1,
									 iterations int DEFAULT NULL,
									 mechanism text DEFAULT 'exponential',
									 symmetrize boolean DEFAULT true,
									 variables int DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY DEFINER SET search_path = pg_catalog, pg_temp;

-- The exact value of a float8 as numeric, for ledger comparisons.
CREATE FUNCTION mrfdp.exact_numeric(float8) RETURNS numeric
	AS 'MODULE_PATHNAME', 'mrf_ledger_exact_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Dropping a protected relation drops its budget and grants; its ledger rows stay.
CREATE FUNCTION mrfdp.forget_dropped() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM mrfdp.budget b
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objid = b.relation::oid;
END $$;
CREATE EVENT TRIGGER mrfdp_forget_dropped ON sql_drop EXECUTE FUNCTION mrfdp.forget_dropped();
