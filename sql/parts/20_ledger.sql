-------------------------------------------------------------------------------
-- The privacy ledger (privacy.md 9).  The catalog lives in schema mrfdp
-- (created in 00_core.sql), owned by the extension's owner; nobody else may
-- write it.  All writes go through C functions that check the real caller,
-- and charges are committed by a background worker in a transaction of
-- their own before any release.
-------------------------------------------------------------------------------

-- References to relations and roles in the catalog.  pg_dump writes them as
-- names, looked up when it dumps (as regclass and regrole are), so a rename
-- after protect() or grant_learning() is carried.  Unlike regclass and
-- regrole, reading one back never fails: a name with no such relation or
-- role in the restoring database reads as "-", the invalid reference (with a
-- WARNING once per name and transaction), so one missing table or role
-- cannot fail the COPY of a whole catalog table; the BEFORE INSERT triggers
-- below skip a budget or grant whose relation or role is missing and keep a
-- ledger row without the reference.  A reference that names nothing (a
-- dropped role's OID) is written as "-" too, never as a number that could
-- name another object where the dump is restored, and a number read back is
-- a name, never an OID.  They compare and index as oid (implicit casts).
CREATE TYPE mrfdp.relation_ref;
CREATE FUNCTION mrfdp_internal.relation_ref_in(cstring) RETURNS mrfdp.relation_ref
	AS 'MODULE_PATHNAME', 'mrf_relation_ref_in' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.relation_ref_out(mrfdp.relation_ref) RETURNS cstring
	AS 'MODULE_PATHNAME', 'mrf_relation_ref_out' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE TYPE mrfdp.relation_ref (INPUT = mrfdp_internal.relation_ref_in, OUTPUT = mrfdp_internal.relation_ref_out,
	LIKE = pg_catalog.oid);
CREATE TYPE mrfdp.role_ref;
CREATE FUNCTION mrfdp_internal.role_ref_in(cstring) RETURNS mrfdp.role_ref
	AS 'MODULE_PATHNAME', 'mrf_role_ref_in' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.role_ref_out(mrfdp.role_ref) RETURNS cstring
	AS 'MODULE_PATHNAME', 'mrf_role_ref_out' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE TYPE mrfdp.role_ref (INPUT = mrfdp_internal.role_ref_in, OUTPUT = mrfdp_internal.role_ref_out,
	LIKE = pg_catalog.oid);
CREATE CAST (mrfdp.relation_ref AS oid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (oid AS mrfdp.relation_ref) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (regclass AS mrfdp.relation_ref) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (mrfdp.relation_ref AS regclass) WITHOUT FUNCTION;
CREATE CAST (mrfdp.role_ref AS oid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (oid AS mrfdp.role_ref) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (regrole AS mrfdp.role_ref) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (mrfdp.role_ref AS regrole) WITHOUT FUNCTION;

-- One row per protected relation: its total budget and what has been spent.
-- Spent amounts are exact decimal sums of charges rounded up.  The owner is
-- the relation's own (pg_class.relowner), never a copy that could go stale
-- (ALTER TABLE ... OWNER TO, pg_restore --no-owner).
CREATE TABLE mrfdp.budget (
	relation mrfdp.relation_ref PRIMARY KEY,
	epsilon float8 NOT NULL CHECK (epsilon > 0 AND epsilon < 'infinity'),
	delta float8 NOT NULL CHECK (delta >= 0 AND delta < 1),
	rho_cap float8 CHECK (rho_cap > 0 AND rho_cap < 'infinity'),
	created timestamptz NOT NULL DEFAULT now(),
	spent_zcdp_rho numeric NOT NULL DEFAULT 0,		-- zCDP releases: sum of rho
	spent_pure_epsilon numeric NOT NULL DEFAULT 0,	-- pure releases: sum of epsilon
	spent_pure_rho numeric NOT NULL DEFAULT 0,		-- pure releases: sum of epsilon^2/2
	spent_approx_epsilon numeric NOT NULL DEFAULT 0,	-- (epsilon, delta) releases
	spent_approx_delta numeric NOT NULL DEFAULT 0,
	releases bigint NOT NULL DEFAULT 0
);

-- Roles allowed to learn from a relation through the mrf_learn_*_from
-- functions.  A row counts only while its role holds REFERENCES on the
-- marker table mrfdp.learning_grantees itself (granted and revoked by the
-- triggers below): that privilege is a real dependency, so DROP ROLE is
-- refused while the role has a grant, and DROP OWNED BY the role revokes it,
-- voiding the row (which the event trigger mrfdp_forget_revoked then
-- deletes) before the role's OID can be dropped and reused.
CREATE TABLE mrfdp.grants (
	relation mrfdp.relation_ref NOT NULL,	-- protected: grant_learning checks; forget_dropped deletes with the budget
	role mrfdp.role_ref NOT NULL,
	granted_by mrfdp.role_ref,		-- NULL when that role is gone where the dump was restored
	granted timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (relation, role)
);

-- Empty, no columns: only its ACL matters (see mrfdp.grants).
CREATE TABLE mrfdp.learning_grantees ();
REVOKE ALL ON mrfdp.learning_grantees FROM PUBLIC;

-- Whether role itself (not a role it inherits from, not as a superuser)
-- holds the marker privilege of a learning grant.
CREATE FUNCTION mrfdp_internal.holds_learning_marker(r oid) RETURNS boolean
	LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
	SELECT EXISTS (SELECT 1 FROM pg_class c, aclexplode(c.relacl) a
				   WHERE c.oid = 'mrfdp.learning_grantees'::regclass
					 AND a.grantee = r AND a.privilege_type = 'REFERENCES')
$$;

-- Append-only: one row per release and relation read.  The relation's
-- qualified name, its owner's and the releasing role's names are kept as
-- they were at release time.  relation (an OID) becomes NULL when the
-- relation is dropped, and is NULL from the start for a temporary relation
-- (it dies with its session, unseen by the drop trigger), so no OID that a
-- later relation may reuse is ever kept.  A role's OID outlives the role (a
-- ledger row does not keep a role from being dropped): mrfdp.releases
-- matches a role by OID and name.
CREATE TABLE mrfdp.ledger (
	id bigserial PRIMARY KEY,
	relation mrfdp.relation_ref,
	relation_name text NOT NULL,
	relation_owner mrfdp.role_ref,	-- NULL if the releasing backend could not see the relation
	relation_owner_name text,
	protected boolean NOT NULL,
	role mrfdp.role_ref,			-- NULL when the role is gone where the dump was restored
	role_name text,					-- NULL only if the writer could not see the role
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

-- The updates allowed: the drop trigger's (the OID of a relation that no
-- longer exists becomes NULL, every other column unchanged), the charge
-- worker's settling of a protected release charged before its read
-- (rows_read -1 becomes the number of rows read, nothing else changes), and
-- a claim of a parked relation's rows by the table that took its place in
-- the same transaction (NULL becomes that table's OID; see mrfdp.parked).
CREATE FUNCTION mrfdp_internal.ledger_append_only() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND OLD.relation IS NOT NULL AND NEW.relation IS NULL
	   AND to_jsonb(NEW) - 'relation' = to_jsonb(OLD) - 'relation'
	   AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = OLD.relation::oid) THEN
		RETURN NEW;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.rows_read = -1 AND NEW.rows_read >= 0 AND OLD.protected
	   AND to_jsonb(NEW) - 'rows_read' = to_jsonb(OLD) - 'rows_read' THEN
		RETURN NEW;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.relation IS NULL AND NEW.relation IS NOT NULL
	   AND to_jsonb(NEW) - 'relation' = to_jsonb(OLD) - 'relation'
	   AND EXISTS (SELECT 1 FROM mrfdp.parked p
				   WHERE p.xact = pg_current_xact_id_if_assigned()
					 AND p.claimed_by = NEW.relation::oid AND OLD.id = ANY (p.ledger)) THEN
		RETURN NEW;
	END IF;
	RAISE EXCEPTION 'mrfdp.ledger is append-only'
		USING ERRCODE = 'insufficient_privilege',
			  HINT = 'Ledger rows are never updated or deleted.';
END $$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON mrfdp.ledger
	FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON mrfdp.ledger
	FOR EACH STATEMENT EXECUTE FUNCTION mrfdp_internal.ledger_append_only();

-- Rows arriving in the catalog: mrfdp's own writes (references valid) and a
-- restore's COPY (references read back by name, "-" when missing).  A
-- budget or grant whose relation or role is missing is skipped (the
-- reference's input warned, naming it); a ledger row keeps its names and
-- loses only the reference.  They also fire during pg_restore, since CREATE
-- EXTENSION creates them before the data is loaded.
CREATE FUNCTION mrfdp_internal.budget_arriving() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NEW.relation::oid = 0 THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER budget_arriving BEFORE INSERT ON mrfdp.budget
	FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.budget_arriving();

-- A grant arriving also gives its role the marker privilege (as the
-- marker's owner: SECURITY DEFINER), first dropping any rows left under the
-- role's OID without it (voided by DROP OWNED, or of a dropped role whose
-- OID was reused), so they cannot come back to life.  The lock serialises
-- concurrent GRANTs on the marker (GRANT itself does not lock it).
CREATE FUNCTION mrfdp_internal.grant_arriving() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rolename name;
BEGIN
	IF NEW.relation::oid = 0 OR NEW.role::oid = 0 THEN
		RETURN NULL;
	END IF;
	IF NEW.granted_by::oid = 0 THEN
		NEW.granted_by := NULL;
	END IF;
	SELECT rolname INTO rolename FROM pg_roles WHERE oid = NEW.role::oid;
	IF rolename IS NULL THEN
		RAISE EXCEPTION 'role with OID % does not exist', NEW.role::oid
			USING ERRCODE = 'undefined_object';
	END IF;
	LOCK TABLE mrfdp.learning_grantees IN SHARE UPDATE EXCLUSIVE MODE;
	IF NOT mrfdp_internal.holds_learning_marker(NEW.role) THEN
		DELETE FROM mrfdp.grants g WHERE g.role = NEW.role;
		EXECUTE format('GRANT REFERENCES ON mrfdp.learning_grantees TO %I', rolename);
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER grant_arriving BEFORE INSERT ON mrfdp.grants
	FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.grant_arriving();

-- A role's last grant gone (revoke_learning, its relation dropped, its
-- budget removed), the marker privilege goes too, and DROP ROLE works again.
CREATE FUNCTION mrfdp_internal.grant_gone() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rolename name;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.role = OLD.role)
	   AND mrfdp_internal.holds_learning_marker(OLD.role) THEN
		SELECT rolname INTO rolename FROM pg_roles WHERE oid = OLD.role::oid;
		LOCK TABLE mrfdp.learning_grantees IN SHARE UPDATE EXCLUSIVE MODE;
		EXECUTE format('REVOKE REFERENCES ON mrfdp.learning_grantees FROM %I', rolename);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER grant_gone AFTER DELETE ON mrfdp.grants
	FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.grant_gone();

CREATE FUNCTION mrfdp_internal.ledger_arriving() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NEW.relation::oid = 0 THEN
		NEW.relation := NULL;
	END IF;
	IF NEW.relation_owner::oid = 0 THEN
		NEW.relation_owner := NULL;
	END IF;
	IF NEW.role::oid = 0 THEN
		NEW.role := NULL;
	END IF;
	-- mrfdp's own writes give OIDs only: record the names they have now
	IF NEW.role_name IS NULL THEN
		NEW.role_name := (SELECT rolname FROM pg_roles WHERE oid = NEW.role::oid);
	END IF;
	IF NEW.relation_owner_name IS NULL THEN
		NEW.relation_owner_name := (SELECT rolname FROM pg_roles WHERE oid = NEW.relation_owner::oid);
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER ledger_arriving BEFORE INSERT ON mrfdp.ledger
	FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.ledger_arriving();

-- session_replication_role = replica must not switch the catalog's rules off.
ALTER TABLE mrfdp.budget ENABLE ALWAYS TRIGGER budget_arriving;
ALTER TABLE mrfdp.grants ENABLE ALWAYS TRIGGER grant_arriving;
ALTER TABLE mrfdp.grants ENABLE ALWAYS TRIGGER grant_gone;
ALTER TABLE mrfdp.ledger ENABLE ALWAYS TRIGGER ledger_arriving;
ALTER TABLE mrfdp.ledger ENABLE ALWAYS TRIGGER ledger_append_only;
ALTER TABLE mrfdp.ledger ENABLE ALWAYS TRIGGER ledger_no_truncate;

REVOKE ALL ON mrfdp.budget, mrfdp.grants, mrfdp.ledger FROM PUBLIC;
REVOKE ALL ON SEQUENCE mrfdp.ledger_id_seq FROM PUBLIC;
REVOKE ALL ON FUNCTION mrfdp_internal.grant_arriving(), mrfdp_internal.grant_gone() FROM PUBLIC;

-- pg_dump and pg_restore carry the catalog (reading it needs a superuser or
-- pg_read_all_data; see the README): references dump as names and restore
-- to the restored relations and roles.  Grants hold no foreign key to the
-- budget: a parallel pg_restore loads the two tables concurrently, in any
-- order; a grant counts only while its relation has a budget (the grant check
-- joins them).  The marker's ACL is dumped too,
-- and the grants' trigger restores it by itself (pg_restore --no-acl).
SELECT pg_catalog.pg_extension_config_dump('mrfdp.budget', '');
SELECT pg_catalog.pg_extension_config_dump('mrfdp.grants', '');
SELECT pg_catalog.pg_extension_config_dump('mrfdp.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('mrfdp.ledger_id_seq', '');

-- Total epsilon spent under the composition of privacy.md 9 (the arithmetic is
-- in src/core/privacy.c): +infinity when the delta left cannot carry the
-- zCDP part.
CREATE FUNCTION mrfdp.spent_epsilon(zcdp_rho numeric, pure_epsilon numeric, pure_rho numeric,
									approx_epsilon numeric, approx_delta numeric, delta float8)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'mrf_ledger_spent_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- What mrfdp.protect() returns: the budget set, the largest total rho of
-- zCDP releases it allows (nothing spent), the same as typed on the
-- protected path (rho_from: the count of substituted rows takes 1/128 on
-- top), and what is left of each now.
CREATE TYPE mrfdp.protected_budget AS (
	relation regclass,
	epsilon float8,
	delta float8,
	rho_cap float8,
	rho float8,
	rho_from float8,
	remaining_rho float8,
	remaining_rho_from float8
);

-- Protects a relation with a total budget; only its owner (or a superuser).
-- Calling it again changes the budget (never below what is spent), with a
-- NOTICE saying from what; the first call raises a NOTICE naming what
-- PostgreSQL itself shows of the table (the threat model).  delta must be
-- given (NULL is refused with a hint): delta = 0 is a pure-DP budget that
-- only epsilon-DP learners can spend.
CREATE FUNCTION mrfdp.protect(relation regclass, epsilon float8, delta float8 DEFAULT NULL,
							  rho_cap float8 DEFAULT NULL)
	RETURNS mrfdp.protected_budget
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
-- delta of one (with the smallest positive epsilon); then what was spent;
-- then the largest rho, pure epsilon and epsilon at delta to type on the
-- protected path (mrf_learn_*_from), whose charge adds 1/128 for the count
-- of substituted rows: a request of exactly that amount is admitted.
CREATE FUNCTION mrfdp.remaining(relation regclass, delta float8 DEFAULT NULL,
								OUT rho float8, OUT pure_epsilon float8,
								OUT approx_epsilon float8, OUT approx_delta float8,
								OUT spent_epsilon float8, OUT spent_delta float8,
								OUT spent_rho float8, OUT releases bigint,
								OUT rho_from float8, OUT pure_epsilon_from float8,
								OUT approx_epsilon_from float8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'mrf_ledger_remaining' LANGUAGE C STABLE PARALLEL RESTRICTED;

-- Spent and remaining per relation, for the relation's owner (its owner
-- now) and its granted roles (superusers see all).  remaining_epsilon is
-- epsilon minus what the composition counts as spent; the remaining_*
-- columns after releases are what mrfdp.remaining() reports: the largest
-- amount of each notion a release may ask for now, on the aggregate path
-- and (_from) on the protected path, the count of substituted rows' share
-- included, so a request of exactly that amount is admitted.  remaining()
-- runs only for the rows the WHERE clause keeps (the OFFSET 0 fence keeps
-- the planner from calling it earlier).
CREATE VIEW mrfdp.budget_status WITH (security_barrier) AS
SELECT v.relation, v.owner, v.epsilon, v.delta, v.rho_cap, v.spent_epsilon, v.spent_delta, v.spent_rho,
	   v.remaining_epsilon, v.remaining_delta, v.releases, v.created,
	   (v.r).rho AS remaining_rho, (v.r).rho_from AS remaining_rho_from,
	   (v.r).pure_epsilon AS remaining_pure_epsilon, (v.r).pure_epsilon_from AS remaining_pure_epsilon_from,
	   (v.r).approx_epsilon AS remaining_approx_epsilon,
	   (v.r).approx_epsilon_from AS remaining_approx_epsilon_from,
	   (v.r).approx_delta AS remaining_approx_delta
FROM (SELECT b.relation::regclass AS relation, c.relowner::regrole AS owner, b.epsilon, b.delta, b.rho_cap,
			 s.spent_epsilon,
			 b.spent_approx_delta::float8 AS spent_delta,
			 (b.spent_zcdp_rho + b.spent_pure_rho)::float8 AS spent_rho,
			 greatest(b.epsilon - s.spent_epsilon, 0) AS remaining_epsilon,
			 greatest(b.delta - b.spent_approx_delta::float8, 0) AS remaining_delta,
			 b.releases, b.created,
			 mrfdp.remaining(b.relation::regclass) AS r
	  FROM mrfdp.budget b
		   JOIN pg_class c ON c.oid = b.relation,
		   LATERAL (SELECT mrfdp.spent_epsilon(b.spent_zcdp_rho, b.spent_pure_epsilon, b.spent_pure_rho,
											   b.spent_approx_epsilon, b.spent_approx_delta, b.delta) AS spent_epsilon) s
	  WHERE pg_has_role(c.relowner, 'USAGE')
		 OR EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.relation = b.relation AND pg_has_role(g.role, 'USAGE')
					AND mrfdp_internal.holds_learning_marker(g.role))
		 OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
	  OFFSET 0) v;
GRANT SELECT ON mrfdp.budget_status TO PUBLIC;

-- The learning grants a role may see: every grant of the relations it owns
-- (or is a member of the owner of), and its own grants; superusers see all.
-- mrfdp.grants itself stays closed (it names every grantee of every table).
-- Only grants that count are shown (their role holds the marker privilege,
-- their relation a budget).
CREATE VIEW mrfdp.learning_grants WITH (security_barrier) AS
SELECT g.relation::regclass AS relation, c.relowner::regrole AS owner, g.role::regrole AS role,
	   g.granted_by::regrole AS granted_by, g.granted
FROM mrfdp.grants g
	 JOIN mrfdp.budget b ON b.relation = g.relation
	 JOIN pg_class c ON c.oid = g.relation
WHERE mrfdp_internal.holds_learning_marker(g.role)
  AND (pg_has_role(c.relowner, 'USAGE')
	   OR pg_has_role(g.role, 'USAGE')
	   OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user));
GRANT SELECT ON mrfdp.learning_grants TO PUBLIC;

-- The exact value of a float8 as numeric, for ledger comparisons.
CREATE FUNCTION mrfdp.exact_numeric(float8) RETURNS numeric
	AS 'MODULE_PATHNAME', 'mrf_ledger_exact_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Citus rebuilds a table to convert it (alter_distributed_table,
-- undistribute_table, alter_table_set_access_method, and by itself when a
-- Citus local table loses its last foreign key to a reference table): it
-- creates a new table, copies the rows, drops the old table and renames the
-- new one to the old name, in one transaction.  So that such a conversion
-- keeps the budget, a protected relation dropped in a transaction is parked
-- here by name until the transaction ends: a table renamed to that name, in
-- that schema, in the same transaction takes its budget (with what was
-- spent), its grants and its ledger rows (mrfdp_internal.claim_parked); at commit
-- every row of the transaction goes (mrfdp_internal.forget_parked), so what was not
-- claimed is forgotten as before.  Only the extension's owner reads it.
CREATE TABLE mrfdp.parked (
	xact xid8 NOT NULL,
	nspname name NOT NULL,
	relname name NOT NULL,
	old_oid oid NOT NULL,
	budget jsonb NOT NULL,		-- the budget row
	grants jsonb NOT NULL,		-- its grant rows, an array
	ledger bigint[] NOT NULL,	-- the ids of its ledger rows
	claimed_by oid,				-- the table that took them
	PRIMARY KEY (xact, nspname, relname)
);
REVOKE ALL ON mrfdp.parked FROM PUBLIC;

-- At commit (a deferred constraint trigger): the transaction's parked rows go.
CREATE FUNCTION mrfdp_internal.forget_parked() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM mrfdp.parked WHERE xact = NEW.xact AND nspname = NEW.nspname AND relname = NEW.relname;
	RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER parked_until_commit AFTER INSERT ON mrfdp.parked
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.forget_parked();
ALTER TABLE mrfdp.parked ENABLE ALWAYS TRIGGER parked_until_commit;

-- Dropping a protected relation drops its budget and grants; its ledger rows
-- stay, keeping the relation's name, with the dropped OID set to NULL.  Only
-- the relation itself (objsubid 0) counts: dropping one of its columns, or a
-- type a column uses (DROP TYPE ... CASCADE by the type's owner), lists the
-- column, never the relation, and must not end the budget.  The grants are
-- deleted here, not only by the foreign key's cascade, which does not run
-- under session_replication_role = replica.  The budget, grants and ledger
-- rows are parked first (mrfdp.parked), for a conversion to claim, but only
-- of a relation the DROP named (original): a Citus conversion drops the old
-- table by name, which only its owner (or a superuser) can do, whereas a
-- cascade (DROP SCHEMA ... CASCADE by the schema's owner, DROP TYPE ...
-- CASCADE of a typed table's type) drops relations of other owners, who
-- must not pass their budget, grants and ledger rows to the dropper's table.
CREATE FUNCTION mrfdp_internal.forget_dropped() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	-- parked until commit even under the caller's SET CONSTRAINTS ALL IMMEDIATE
	SET CONSTRAINTS mrfdp.parked_until_commit DEFERRED;
	INSERT INTO mrfdp.parked (xact, nspname, relname, old_oid, budget, grants, ledger)
	SELECT pg_current_xact_id(), d.schema_name, d.object_name, d.objid, to_jsonb(b),
		   coalesce((SELECT jsonb_agg(to_jsonb(g)) FROM mrfdp.grants g WHERE g.relation::oid = d.objid), '[]'),
		   coalesce((SELECT array_agg(l.id ORDER BY l.id) FROM mrfdp.ledger l WHERE l.relation::oid = d.objid), '{}')
	FROM pg_event_trigger_dropped_objects() d JOIN mrfdp.budget b ON b.relation::oid = d.objid
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND NOT d.is_temporary AND d.original
	ON CONFLICT (xact, nspname, relname) DO UPDATE
		SET old_oid = EXCLUDED.old_oid, budget = EXCLUDED.budget, grants = EXCLUDED.grants,
			ledger = EXCLUDED.ledger, claimed_by = NULL;
	DELETE FROM mrfdp.grants g
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = g.relation::oid;
	DELETE FROM mrfdp.budget b
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = b.relation::oid;
	UPDATE mrfdp.ledger l SET relation = NULL
	FROM pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = l.relation::oid;
END $$;
CREATE EVENT TRIGGER mrfdp_forget_dropped ON sql_drop EXECUTE FUNCTION mrfdp_internal.forget_dropped();

-- A table renamed (or moved) to the name of a protected relation parked in
-- this transaction takes its budget, grants and ledger rows: the last step of
-- a Citus conversion.  A table that has a budget of its own cannot take
-- another: the rename is refused, so that no budget is lost unseen.
CREATE FUNCTION mrfdp_internal.claim_parked() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p record;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM mrfdp.parked
				   WHERE xact = pg_current_xact_id_if_assigned() AND claimed_by IS NULL) THEN
		RETURN;
	END IF;
	FOR p IN SELECT k.xact, k.nspname, k.relname, k.budget, k.grants, k.ledger, c.oid AS new_oid
			 FROM pg_event_trigger_ddl_commands() e
			 JOIN pg_class c ON c.oid = e.objid
			 JOIN pg_namespace n ON n.oid = c.relnamespace
			 JOIN mrfdp.parked k ON k.xact = pg_current_xact_id_if_assigned() AND k.claimed_by IS NULL
				  AND k.nspname = n.nspname AND k.relname = c.relname
			 WHERE e.classid = 'pg_class'::regclass AND e.objsubid = 0
	LOOP
		IF EXISTS (SELECT 1 FROM mrfdp.budget b WHERE b.relation::oid = p.new_oid) THEN
			RAISE EXCEPTION 'relation %.% already has a privacy budget', quote_ident(p.nspname), quote_ident(p.relname)
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = 'A protected relation of this name was dropped in this transaction; mrfdp gives its budget to the table that takes its name, and this one has a budget of its own.',
					  HINT = 'Give the table another name, or roll back.';
		END IF;
		UPDATE mrfdp.parked SET claimed_by = p.new_oid
		WHERE xact = p.xact AND nspname = p.nspname AND relname = p.relname;
		INSERT INTO mrfdp.budget
		SELECT * FROM jsonb_populate_record(NULL::mrfdp.budget,
											p.budget || jsonb_build_object('relation', p.new_oid::regclass::text));
		INSERT INTO mrfdp.grants
		SELECT * FROM jsonb_populate_recordset(NULL::mrfdp.grants,
			(SELECT jsonb_agg(g || jsonb_build_object('relation', p.new_oid::regclass::text))
			 FROM jsonb_array_elements(p.grants) g))
		WHERE p.grants <> '[]';
		UPDATE mrfdp.ledger SET relation = p.new_oid WHERE id = ANY (p.ledger);
	END LOOP;
END $$;
CREATE EVENT TRIGGER mrfdp_claim_parked ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'ALTER MATERIALIZED VIEW')
	EXECUTE FUNCTION mrfdp_internal.claim_parked();

-- DROP OWNED BY a role (or a REVOKE of the marker privilege) voids its
-- learning grants; their rows go at once, so none is left behind under an
-- OID that DROP ROLE then frees.
CREATE FUNCTION mrfdp_internal.forget_revoked() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM mrfdp.grants g WHERE NOT mrfdp_internal.holds_learning_marker(g.role);
END $$;
CREATE EVENT TRIGGER mrfdp_forget_revoked ON ddl_command_end
	WHEN TAG IN ('DROP OWNED', 'REVOKE')
	EXECUTE FUNCTION mrfdp_internal.forget_revoked();

-- DROP EXTENSION mrfdp (or DROP SCHEMA ... CASCADE of its schema, or DROP
-- OWNED BY its owner) would erase every budget, grant and ledger row: refused
-- while any relation is protected or the ledger holds any row, unless a
-- superuser has set mrfdp.allow_drop_with_budgets.  A C function on
-- ddl_command_start sees the parse tree (which objects are dropped) and
-- loads the library by itself, so it guards sessions without the preload too.
CREATE FUNCTION mrfdp_internal.refuse_drop_with_budgets() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'mrf_refuse_drop_with_budgets' LANGUAGE C;
CREATE EVENT TRIGGER mrfdp_refuse_drop_with_budgets ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
	EXECUTE FUNCTION mrfdp_internal.refuse_drop_with_budgets();

-- Event triggers are off under session_replication_role = replica unless
-- enabled always.
ALTER EVENT TRIGGER mrfdp_forget_dropped ENABLE ALWAYS;
ALTER EVENT TRIGGER mrfdp_claim_parked ENABLE ALWAYS;
ALTER EVENT TRIGGER mrfdp_forget_revoked ENABLE ALWAYS;
ALTER EVENT TRIGGER mrfdp_refuse_drop_with_budgets ENABLE ALWAYS;

-- The ledger rows each role is entitled to read: its own releases, and every
-- release from a relation it owns (or owned at release time); superusers see
-- all.  A ledger row's role (and the owner at release time) counts only if
-- the OID still carries the name recorded with the row: a role's OID
-- outlives the role, and a role created later may get it.  (A renamed role
-- no longer sees its earlier rows here; superusers still do.)  The statement
-- text is shown only to the role that released (and to pg_read_all_stats
-- members), as pg_stat_activity shows query text: it is the whole string the
-- client sent, which may carry other statements and literals of that role.
-- A role that may learn from a relation sees nothing of other roles'
-- releases here; the totals are in budget_status.
CREATE VIEW mrfdp.releases WITH (security_barrier) AS
SELECT l.id, l.relation::regclass AS relation, l.relation_name,
	   l.relation_owner::regrole AS relation_owner, l.relation_owner_name, l.protected,
	   l.role::regrole AS role, l.role_name, l.at,
	   l.learner, l.notion, l.rho, l.epsilon, l.delta, l.rows_read, l.private,
	   CASE WHEN own.released OR pg_has_role('pg_read_all_stats', 'USAGE')
			THEN l.statement END AS statement
FROM mrfdp.ledger l,
	 LATERAL (SELECT EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = l.role AND r.rolname = l.role_name
							 AND pg_has_role(r.oid, 'USAGE')) AS released) own
WHERE own.released
   OR EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = l.relation_owner AND r.rolname = l.relation_owner_name
			  AND pg_has_role(r.oid, 'USAGE'))
   OR EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = l.relation AND pg_has_role(c.relowner, 'USAGE'))
   OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user);
GRANT SELECT ON mrfdp.releases TO PUBLIC;
