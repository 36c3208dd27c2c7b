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

-- Append-only: one row per release and relation read.  The relation's
-- qualified name and owner are kept as they were at release time: relation
-- (an OID) becomes NULL when the relation is dropped, and is NULL from the
-- start for a temporary relation (it dies with its session, unseen by the
-- drop trigger), so no OID that a later relation may reuse is ever kept, and
-- a restored dump never maps a row to an unrelated relation.
CREATE TABLE mrfdp.ledger (
	id bigserial PRIMARY KEY,
	relation regclass,
	relation_name text NOT NULL,
	relation_owner regrole,		-- NULL only if the releasing backend could not see the relation
	protected boolean NOT NULL,
	role regrole NOT NULL,
	at timestamptz NOT NULL DEFAULT clock_timestamp(),
	learner text NOT NULL,
	notion text NOT NULL CHECK (notion IN ('zCDP', 'pure', 'approximate')),
	rho float8,
	epsilon float8,
	delta float8,
	rows_read bigint,
	statement text,
	private boolean NOT NULL	-- false: mrfdp.test_seed keyed the noise (not private)
);
CREATE INDEX ledger_relation ON mrfdp.ledger (relation);

-- The one update allowed is the drop trigger's: the OID of a relation that
-- no longer exists becomes NULL, every other column unchanged.
CREATE FUNCTION mrfdp.ledger_append_only() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND OLD.relation IS NOT NULL AND NEW.relation IS NULL
	   AND to_jsonb(NEW) - 'relation' = to_jsonb(OLD) - 'relation'
	   AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = OLD.relation::oid) THEN
		RETURN NEW;
	END IF;
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

-- pg_dump and pg_restore carry the catalog: regclass and regrole columns
-- dump as names and restore to the restored relations and roles (pg_dump
-- loads config tables in foreign-key order: budget before grants).
SELECT pg_catalog.pg_extension_config_dump('mrfdp.budget', '');
SELECT pg_catalog.pg_extension_config_dump('mrfdp.grants', '');
SELECT pg_catalog.pg_extension_config_dump('mrfdp.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('mrfdp.ledger_id_seq', '');

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
-- Calling it again changes the budget (never below what is spent).  delta
-- must be given (NULL is refused with a hint): delta = 0 is a pure-DP budget
-- that only epsilon-DP learners can spend.
CREATE FUNCTION mrfdp.protect(relation regclass, epsilon float8, delta float8 DEFAULT NULL,
							  rho_cap float8 DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'mrf_ledger_protect' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Lets a role learn from a protected relation without reading it.
CREATE FUNCTION mrfdp.grant_learning(relation regclass, role regrole) RETURNS void
	AS 'MODULE_PATHNAME', 'mrf_ledger_grant' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION mrfdp.revoke_learning(relation regclass, role regrole) RETURNS void
	AS 'MODULE_PATHNAME', 'mrf_ledger_revoke' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

-- What can still be spent, by notion, each amount fitting exactly if
-- charged alone now (owner, granted roles, superusers): the largest rho of a
-- zCDP release, epsilon of a pure release, epsilon of an (epsilon, delta)
-- release at the given delta (default: the smallest positive delta), and
-- delta of one (with the smallest positive epsilon); then what was spent.
CREATE FUNCTION mrfdp.remaining(relation regclass, delta float8 DEFAULT NULL,
								OUT rho float8, OUT pure_epsilon float8,
								OUT approx_epsilon float8, OUT approx_delta float8,
								OUT spent_epsilon float8, OUT spent_delta float8,
								OUT spent_rho float8, OUT releases bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'mrf_ledger_remaining' LANGUAGE C STABLE PARALLEL RESTRICTED;

-- The exact value of a float8 as numeric, for ledger comparisons.
CREATE FUNCTION mrfdp.exact_numeric(float8) RETURNS numeric
	AS 'MODULE_PATHNAME', 'mrf_ledger_exact_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Dropping a protected relation drops its budget and grants; its ledger rows
-- stay, keeping the relation's name, with the dropped OID set to NULL.  Only
-- the relation itself (objsubid 0) counts: dropping one of its columns, or a
-- type a column uses (DROP TYPE ... CASCADE by the type's owner), lists the
-- column, never the relation, and must not end the budget.
CREATE FUNCTION mrfdp.forget_dropped() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM mrfdp.budget b
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = b.relation::oid;
	UPDATE mrfdp.ledger l SET relation = NULL
	FROM pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = l.relation::oid;
END $$;
CREATE EVENT TRIGGER mrfdp_forget_dropped ON sql_drop EXECUTE FUNCTION mrfdp.forget_dropped();

-- DROP EXTENSION mrfdp (or DROP SCHEMA ... CASCADE of its schema, or DROP
-- OWNED BY its owner) would erase every budget, grant and ledger row: refused
-- while any relation is protected, unless a superuser has set
-- mrfdp.allow_drop_with_budgets.  A C function on ddl_command_start sees the
-- parse tree (which objects are dropped) and loads the library by itself, so
-- it guards sessions without the preload too.
CREATE FUNCTION mrfdp.refuse_drop_with_budgets() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'mrf_refuse_drop_with_budgets' LANGUAGE C;
CREATE EVENT TRIGGER mrfdp_refuse_drop_with_budgets ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
	EXECUTE FUNCTION mrfdp.refuse_drop_with_budgets();

-- The ledger rows each role is entitled to read: its own releases, and every
-- release from a relation it owns (or owned at release time); superusers see
-- all (pg_has_role is true for them).  The statement text is shown only to
-- the role that released (and to pg_read_all_stats members), as
-- pg_stat_activity shows query text: it is the whole string the client sent,
-- which may carry other statements and literals of that role.  A role that may
-- learn from a relation sees nothing of other roles' releases here; the
-- totals are in budget_status.
CREATE VIEW mrfdp.releases WITH (security_barrier) AS
SELECT l.id, l.relation, l.relation_name, l.relation_owner, l.protected, l.role, l.at,
	   l.learner, l.notion, l.rho, l.epsilon, l.delta, l.rows_read, l.private,
	   CASE WHEN pg_has_role(l.role, 'USAGE') OR pg_has_role('pg_read_all_stats', 'USAGE')
			THEN l.statement END AS statement
FROM mrfdp.ledger l
WHERE pg_has_role(l.role, 'USAGE')
   OR (l.relation_owner IS NOT NULL AND pg_has_role(l.relation_owner, 'USAGE'))
   OR EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = l.relation::oid AND pg_has_role(c.relowner, 'USAGE'));
GRANT SELECT ON mrfdp.releases TO PUBLIC;
