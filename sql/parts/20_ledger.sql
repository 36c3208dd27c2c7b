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
	AS 'MODULE_PATHNAME', 'mrf_ledger_remaining' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

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
