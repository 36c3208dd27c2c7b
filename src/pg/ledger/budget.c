/*
 * ledger/budget.c - the owner-facing functions of the ledger: protect a relation,
 * grant and revoke learning, and read what is left.  Each checks the real
 * caller, then writes the catalog as the extension's owner.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/snapmgr.h"

#include "core/privacy.h"
#include "pg/ledger/budget.h"
#include "pg/ledger/decimal.h"
#include "pg/ledger/catalog.h"
#include "pg/ledger/guard.h"
#include "pg/model/model.h"

/*
 * A numeric as the smallest double at least as large: exact sums of exact
 * charges stay exact (so a budget can be spent to the last bit), and any
 * rounding errs upwards: above the largest double it is +infinity (never
 * fits), and a positive value below the smallest double is that double (the
 * exact eps^2/2 of a tiny pure charge, say), never 0.
 */
static double
NumericUp(Datum num)
{
	double		d;
	char		buf[MRF_EXACT_DECIMAL_LEN];
	Datum		back;

	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, num,
										  DirectFunctionCall1(int4_numeric, Int32GetDatum(0)))) <= 0)
		return 0.0;
	/* strtod without the range errors: +inf above, 0 or a subnormal below */
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, num));
	if (isinf(d))
		return INFINITY;
	if (!(d > 0))
		return nextafter(0.0, 1.0);
	MrfExactDecimal(buf, sizeof(buf), d);
	back = DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, back, num)) < 0)
		d = nextafter(d, INFINITY);
	return d;
}

PG_FUNCTION_INFO_V1(mrf_ledger_spent_epsilon);
/* Total epsilon of a relation's charges (privacy.md 9), rounded up. */
Datum
mrf_ledger_spent_epsilon(PG_FUNCTION_ARGS)
{
	double		eps = MrfComposeEpsilon(NumericUp(PG_GETARG_DATUM(0)),
										NumericUp(PG_GETARG_DATUM(1)),
										NumericUp(PG_GETARG_DATUM(2)),
										NumericUp(PG_GETARG_DATUM(3)),
										NumericUp(PG_GETARG_DATUM(4)),
										PG_GETARG_FLOAT8(5));

	if (isnan(eps))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid ledger sums")));
	PG_RETURN_FLOAT8(eps);
}

/* Errors unless the caller owns the relation (or is a superuser). */
static void
RequireOwner(Oid relid)
{
	if (get_rel_name(relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!pg_class_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of relation %s to manage its privacy budget",
						get_rel_name(relid))));
}

/* A budget's text for messages: epsilon, delta and rho_cap if any. */
static char *
BudgetText(double epsilon, double delta, bool has_cap, double rho_cap)
{
	return psprintf("epsilon = %s, delta = %s%s%s", MrfDoubleText(epsilon), MrfDoubleText(delta),
					has_cap ? ", rho_cap = " : "", has_cap ? MrfDoubleText(rho_cap) : "");
}

/*
 * The platform's channels a budget does not cover, told once, when a
 * relation is first protected (the threat model: docs/ledger.md and privacy.md 10).
 */
static void
NoticePlatformChannels(Oid relid)
{
	const char *rel = MrfRelationNameOrOid(relid);

	ereport(NOTICE,
			(errmsg("the privacy budget of %s covers mrfdp's releases, not what PostgreSQL itself shows of the table", rel),
			 errdetail("Every role can read its size (pg_relation_size, pg_class.relpages and reltuples) and its "
					   "activity counters (pg_stat_user_tables: rows inserted, updated, deleted, read; vacuum and "
					   "analyze times); pg_stats shows its most common values and histograms to roles with SELECT "
					   "on it. Counters of mrfdp.ledger and mrfdp.budget show when releases happen."),
			 errhint("Keep the table in a schema analysts have no USAGE on (the _from functions read it as its "
					 "owner); prefer fixed-width columns (a long text value changes the table's size); "
					 "REVOKE SELECT from roles that should only learn (pg_stats then hides its statistics "
					 "from them); see the threat model in docs/ledger.md.")));
}

/*
 * The trojan overload (PostgreSQL's CVE-2018-1058 pattern; docs/ledger.md's
 * threat model): a role that may CREATE in the extension's schema, or in a
 * schema the search_path puts before it, can add an overload of mrfdp's
 * functions that another role's unqualified call resolves to and runs
 * with that caller's rights (a relation owner's, a superuser's).  Warned
 * at every protect(), one WARNING a schema, naming who may create there:
 * PUBLIC, or the roles that are neither superusers nor have the rights of
 * the schema's owner (whom the schema trusts anyway).  The protecting
 * session's search_path stands for the callers' (a role's own setting is
 * not seen).
 */
static void
WarnSchemaCreators(void)
{
	Oid			extschema;
	Oid			extowner;
	List	   *path;
	List	   *check = NIL;
	ListCell   *lc;

	if (!MrfExtensionSchemaAndOwner(&extschema, &extowner))
		return;
	path = fetch_search_path(false);
	if (list_member_oid(path, extschema))
		foreach(lc, path)
		{
			if (lfirst_oid(lc) == extschema)
				break;
			check = list_append_unique_oid(check, lfirst_oid(lc));
		}
	check = lappend_oid(check, extschema);
	SPI_connect();
	foreach(lc, check)
	{
		Oid			types[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(lfirst_oid(lc))};
		bool		isnull;
		bool		public_creates;
		Datum		roles;
		char	   *nsp;
		char	   *who;

		if (MrfCatalogQuery("SELECT n.nspname::text,"
							" EXISTS (SELECT 1 FROM aclexplode(COALESCE(n.nspacl, acldefault('n', n.nspowner))) a"
							"  WHERE a.grantee = 0 AND a.privilege_type = 'CREATE'),"
							" (SELECT string_agg(quote_ident(r.rolname), ', ' ORDER BY r.rolname)"
							"  FROM pg_roles r WHERE NOT r.rolsuper AND NOT pg_has_role(r.oid, n.nspowner, 'USAGE')"
							"  AND has_schema_privilege(r.oid, n.oid, 'CREATE'))"
							" FROM pg_namespace n WHERE n.oid = $1",
							1, types, values, NULL, true) != 1)
			continue;
		nsp = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		public_creates = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		roles = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
		if (!public_creates && isnull)
			continue;
		who = public_creates ? "every role (PUBLIC)" :
			psprintf("role%s %s", strchr(TextDatumGetCString(roles), ',') ? "s" : "",
					 TextDatumGetCString(roles));
		ereport(WARNING,
				(errmsg("%s may create objects in schema \"%s\", %s", who, nsp,
						lfirst_oid(lc) == extschema ? "where mrfdp's functions are" :
						"which the search_path puts before mrfdp's schema"),
				 errdetail("Such a role can add an overload of an mrfdp function that another role's "
						   "unqualified call (the relation owner's, a superuser's) resolves to and runs "
						   "with that caller's rights."),
				 errhint("REVOKE CREATE ON SCHEMA %s FROM %s, or install mrfdp in a schema only trusted "
						 "roles create in; see the threat model in docs/ledger.md.",
						 quote_identifier(nsp),
						 public_creates ? "PUBLIC" : TextDatumGetCString(roles))));
	}
	SPI_finish();
}

PG_FUNCTION_INFO_V1(mrf_ledger_protect);
/*
 * Protects a relation with a total budget, or changes its budget; returns
 * the budget as a row (under the SQL of 0.1.0: nothing).  A NOTICE tells
 * what an existing budget changed from, and, when the relation is first
 * protected, which of the platform's channels the budget does not cover.
 */
Datum
mrf_ledger_protect(PG_FUNCTION_ARGS)
{
	Oid			relid;
	double		epsilon;
	double		delta;
	Oid			types[4] = {OIDOID, FLOAT8OID, FLOAT8OID, FLOAT8OID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	char		relkind;
	bool		fits;
	bool		isnull;
	bool		updated;
	bool		had_old;
	double		old_epsilon = 0;
	double		old_delta = 0;
	double		old_cap = 0;
	bool		old_has_cap = false;
	TupleDesc	tupdesc;
	bool		returns_row;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrfdp.protect needs a relation, epsilon and delta")));
	/* no default: delta decides which learners can spend the budget at all */
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrfdp.protect needs delta"),
				 errdetail("The budget is (epsilon, delta)-DP, and delta has no default."),
				 errhint("Pass delta => 1e-6 (say) for a budget every learner can spend: the zCDP learners "
						 "(mrf_learn_ising, mrf_learn_pairwise, mrf_learn_twise) and mrf_learn_structure need delta > 0. "
						 "delta => 0 makes a pure-DP budget, which only epsilon-DP learners such as mrf_learn_cliques can spend.")));
	relid = PG_GETARG_OID(0);
	epsilon = PG_GETARG_FLOAT8(1);
	delta = PG_GETARG_FLOAT8(2);
	RequireOwner(relid);
	relkind = get_rel_relkind(relid);
	/*
	 * Views are refused: reading one runs its definition, which may read
	 * other relations than the one charged; protect the tables beneath.
	 */
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_MATVIEW && relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" cannot be protected", get_rel_name(relid)),
				 errdetail("Only tables, partitioned tables, materialized views and foreign tables can be protected."),
				 errhint("Protect the tables a view reads instead.")));
	/*
	 * A temporary table dies with its session without firing the drop
	 * trigger, so its budget and grants would outlive it under an OID that a
	 * later relation may reuse; and no other role can read it anyway.
	 */
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("temporary table \"%s\" cannot be protected", get_rel_name(relid)),
				 errdetail("A temporary table is visible only to the session that created it, and its budget would outlive it."),
				 errhint("Protect a permanent (or unlogged) table.")));
	if (!(epsilon > 0) || isinf(epsilon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number greater than zero")));
	if (!(delta >= 0 && delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be at least 0 and less than 1")));
	if (!PG_ARGISNULL(3) && (!(PG_GETARG_FLOAT8(3) > 0) || isinf(PG_GETARG_FLOAT8(3))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rho_cap must be a finite number greater than zero")));

	WarnSchemaCreators();

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Float8GetDatum(epsilon);
	values[2] = Float8GetDatum(delta);
	values[3] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	nulls[3] = PG_ARGISNULL(3) ? 'n' : ' ';

	returns_row = get_call_result_type(fcinfo, NULL, &tupdesc) == TYPEFUNC_COMPOSITE;

	SPI_connect();
	/* the budget before (locked, so the NOTICE tells what this call changed) */
	had_old = MrfCatalogQuery("SELECT epsilon, delta, rho_cap FROM mrfdp.budget"
							  " WHERE relation = $1::oid FOR UPDATE",
							  1, types, values, nulls, false) > 0;
	if (had_old)
	{
		Datum		d;

		old_epsilon = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		old_delta = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
		old_has_cap = !isnull;
		old_cap = isnull ? 0 : DatumGetFloat8(d);
	}
	MrfCatalogQuery("INSERT INTO mrfdp.budget (relation, epsilon, delta, rho_cap)"
					" VALUES ($1::oid, $2, $3, $4)"
					" ON CONFLICT (relation) DO UPDATE"
					"  SET epsilon = excluded.epsilon, delta = excluded.delta, rho_cap = excluded.rho_cap"
					" RETURNING mrfdp.spent_epsilon(spent_zcdp_rho, spent_pure_epsilon, spent_pure_rho,"
					"   spent_approx_epsilon, spent_approx_delta, delta) <= epsilon"
					"  AND spent_approx_delta <= delta"
					"  AND (rho_cap IS NULL OR spent_zcdp_rho + spent_pure_rho <= rho_cap),"
					"  xmax <> 0",
					4, types, values, nulls, false);
	fits = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	updated = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (!fits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the new budget of %s is below what has been spent", get_rel_name(relid)),
				 errhint("See mrfdp.remaining() for the amounts spent.")));
	if (had_old)
	{
		bool		has_cap = !PG_ARGISNULL(3);
		double		cap = has_cap ? PG_GETARG_FLOAT8(3) : 0;

		if (old_epsilon != epsilon || old_delta != delta || old_has_cap != has_cap ||
			(has_cap && old_cap != cap))
			ereport(NOTICE,
					(errmsg("the privacy budget of %s changed from %s to %s", MrfRelationNameOrOid(relid),
							BudgetText(old_epsilon, old_delta, old_has_cap, old_cap),
							BudgetText(epsilon, delta, has_cap, cap)),
					 errdetail("mrfdp.protect() on a protected relation sets its total budget; what was spent stays spent.")));
	}
	else if (updated)
		ereport(NOTICE,
				(errmsg("the privacy budget of %s was set by another transaction meanwhile; it is now %s",
						MrfRelationNameOrOid(relid),
						BudgetText(epsilon, delta, !PG_ARGISNULL(3), PG_ARGISNULL(3) ? 0 : PG_GETARG_FLOAT8(3)))));
	else
		NoticePlatformChannels(relid);

	if (returns_row)
	{
		/*
		 * The budget as a row: with what it allows as a whole (nothing
		 * spent) and what is left now, for zCDP releases on each path.
		 */
		MrfBudget	fresh;
		MrfBudget	now;
		Datum		out[8];
		bool		outnulls[8] = {false, false, false, false, false, false, false, false};
		double		whole;

		/* a snapshot that sees the row just written (read-only queries use the active one) */
		CommandCounterIncrement();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (!MrfReadBudget(relid, &now))
			elog(ERROR, "budget row of %s vanished", get_rel_name(relid));
		fresh = now;
		fresh.zcdp_rho = fresh.pure_epsilon = fresh.pure_rho = 0;
		fresh.approx_epsilon = fresh.approx_delta = 0;
		whole = MrfBudgetLargestZcdp(&fresh);
		if (!(whole > 0))
			whole = 0;
		tupdesc = BlessTupleDesc(tupdesc);
		if (tupdesc->natts != 8)
			elog(ERROR, "mrfdp.protect: unexpected result columns");
		out[0] = ObjectIdGetDatum(relid);
		out[1] = Float8GetDatum(epsilon);
		out[2] = Float8GetDatum(delta);
		out[3] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
		outnulls[3] = PG_ARGISNULL(3);
		out[4] = Float8GetDatum(whole);
		out[5] = Float8GetDatum(MrfSubstitutedCountLargestBudget(whole));
		out[6] = Float8GetDatum(MrfLargestFit(relid, &now, MRF_FIT_ZCDP, 0));
		out[7] = Float8GetDatum(MrfLargestFitFrom(relid, &now, MRF_FIT_ZCDP, 0));
		PopActiveSnapshot();
		SPI_finish();
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, out, outnulls)));
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/* Errors unless relid is protected. */
static void
RequireProtected(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (MrfCatalogQuery("SELECT 1 FROM mrfdp.budget WHERE relation = $1::oid::regclass",
						1, types, values, NULL, true) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("relation %s is not protected", get_rel_name(relid)),
				 errhint("Protect it first with mrfdp.protect().")));
}

PG_FUNCTION_INFO_V1(mrf_ledger_grant);
/* Lets a role learn from a protected relation without reading it. */
Datum
mrf_ledger_grant(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Oid			types[3] = {OIDOID, OIDOID, OIDOID};
	Datum		values[3] = {relid, PG_GETARG_DATUM(1), ObjectIdGetDatum(GetUserId())};

	RequireOwner(relid);
	if (GetUserNameFromId(PG_GETARG_OID(1), true) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", PG_GETARG_OID(1))));
	SPI_connect();
	RequireProtected(relid);
	/* the insert trigger also grants the role the marker privilege (see 20_ledger.sql) */
	MrfCatalogQuery("INSERT INTO mrfdp.grants (relation, role, granted_by)"
					" VALUES ($1::oid::regclass, $2::oid::regrole, $3::oid::regrole)"
					" ON CONFLICT (relation, role) DO NOTHING",
					3, types, values, NULL, false);
	SPI_finish();
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(mrf_ledger_revoke);
/* Withdraws a role's right to learn from a relation. */
Datum
mrf_ledger_revoke(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {relid, PG_GETARG_DATUM(1)};

	RequireOwner(relid);
	SPI_connect();
	MrfCatalogQuery("DELETE FROM mrfdp.grants WHERE relation = $1::oid::regclass AND role = $2::oid::regrole",
					2, types, values, NULL, false);
	SPI_finish();
	PG_RETURN_VOID();
}

/* See ledger/budget.h. */
bool
MrfReadBudget(Oid relid, MrfBudget *budget)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;
	Datum		d;

	if (MrfCatalogQuery("SELECT epsilon, delta, rho_cap, spent_zcdp_rho, spent_pure_epsilon,"
						" spent_pure_rho, spent_approx_epsilon, spent_approx_delta"
						" FROM mrfdp.budget WHERE relation = $1::oid::regclass",
						1, types, values, NULL, true) == 0)
		return false;
#define COLUMN(i) SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, (i), &isnull)
	budget->epsilon = DatumGetFloat8(COLUMN(1));
	budget->delta = DatumGetFloat8(COLUMN(2));
	d = COLUMN(3);
	budget->rho_cap = isnull ? INFINITY : DatumGetFloat8(d);
	/* spent sums are numeric: each as the double just at or above it */
	budget->zcdp_rho = NumericUp(COLUMN(4));
	budget->pure_epsilon = NumericUp(COLUMN(5));
	budget->pure_rho = NumericUp(COLUMN(6));
	budget->approx_epsilon = NumericUp(COLUMN(7));
	budget->approx_delta = NumericUp(COLUMN(8));
#undef COLUMN
	return true;
}

/* See ledger/budget.h. */
bool
MrfMayReadBudget(Oid relid, Oid role)
{
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
	bool		isnull;
	bool		allowed;

	/* the relation's owner now; a grant counts only with its marker privilege */
	if (MrfCatalogQuery("SELECT pg_has_role($2::oid, c.relowner, 'USAGE') OR"
						"  EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.relation = b.relation"
						"          AND pg_has_role($2::oid, g.role, 'USAGE')"
						"          AND " MRF_HOLDS_LEARNING_MARKER_SQL ")"
						"  OR (SELECT rolsuper FROM pg_roles WHERE oid = $2::oid)"
						" FROM mrfdp.budget b JOIN pg_class c ON c.oid = b.relation"
						" WHERE b.relation = $1::oid::regclass",
						2, types, values, NULL, true) == 0)
		return false;
	allowed = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	return !isnull && allowed;
}

/* A release of the kind's notion with amount x (the other amount: delta). */
static MrfCharge
FitCharge(MrfFitKind kind, double x, double delta)
{
	MrfCharge	c;

	memset(&c, 0, sizeof(c));
	c.learner = "mrfdp.remaining";
	switch (kind)
	{
		case MRF_FIT_ZCDP:
			c.notion = MRF_NOTION_ZCDP;
			c.rho = x;
			break;
		case MRF_FIT_PURE:
			c.notion = MRF_NOTION_PURE;
			c.epsilon = x;
			break;
		case MRF_FIT_APPROX_EPSILON:
			c.notion = MRF_NOTION_APPROX;
			c.epsilon = x;
			c.delta = delta;
			break;
		case MRF_FIT_APPROX_DELTA:
			c.notion = MRF_NOTION_APPROX;
			c.epsilon = nextafter(0.0, 1.0);
			c.delta = x;
			break;
	}
	return c;
}

/*
 * The largest double in [0, hi] for which fits(x) holds, given that it
 * holds at 0 (unchecked) and that fits is monotone: bisection on the bit
 * patterns (non-negative doubles order as integers), at most 64 steps.
 */
static double
LargestByBisection(double hi, bool (*fits) (double x, void *arg), void *arg)
{
	double		lo = 0;

	if (fits(hi, arg))
		return hi;
	while (lo < hi && nextafter(lo, INFINITY) < hi)
	{
		uint64		blo;
		uint64		bhi;
		uint64		bmid;
		double		mid;

		memcpy(&blo, &lo, sizeof(double));
		memcpy(&bhi, &hi, sizeof(double));
		bmid = blo + (bhi - blo) / 2;
		memcpy(&mid, &bmid, sizeof(double));
		if (fits(mid, arg))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A fit question for LargestByBisection: relid, the kind, the other amount. */
typedef struct FitQuestion
{
	Oid			relid;
	MrfFitKind	kind;
	double		other;
	bool		with_count;		/* x is typed: the count's share is added */
} FitQuestion;

/* Whether a release of x (as the question reads it) fits now. */
static bool
QuestionFits(double x, void *arg)
{
	const FitQuestion *q = arg;
	MrfCharge	c;

	if (q->with_count)
		x = MrfComposeUp(x, MrfSubstitutedCountShare(x));
	c = FitCharge(q->kind, x, q->other);
	return MrfChargeFits(q->relid, &c);
}

/* Whether an (epsilon, delta) release fits, delta the unknown: other = epsilon. */
static bool
DeltaFits(double delta, void *arg)
{
	const FitQuestion *q = arg;
	MrfCharge	c = FitCharge(MRF_FIT_APPROX_EPSILON, q->other, delta);

	return MrfChargeFits(q->relid, &c);
}

/* See ledger/budget.h. */
double
MrfLargestFitFrom(Oid relid, const MrfBudget *budget, MrfFitKind kind, double delta)
{
	double		total = MrfLargestFit(relid, budget, kind, delta);
	double		x;
	FitQuestion q = {relid, kind, delta, true};

	if (kind == MRF_FIT_APPROX_DELTA)
		return total;			/* the count adds epsilon only */
	x = MrfSubstitutedCountLargestBudget(total);
	if (!(x > 0))
		return 0;
	/* the charge of x is at most total, which fits: confirmed all the same */
	return LargestByBisection(x, QuestionFits, &q);
}

/* See ledger/budget.h. */
double
MrfLargestDeltaAt(Oid relid, double epsilon)
{
	FitQuestion q = {relid, MRF_FIT_APPROX_EPSILON, epsilon, false};
	double		d;

	if (!(epsilon > 0) || isinf(epsilon) || !DeltaFits(nextafter(0.0, 1.0), &q))
		return 0;
	d = LargestByBisection(nextafter(1.0, 0.0), DeltaFits, &q);
	return d;
}

/* See ledger/budget.h. */
double
MrfLargestFit(Oid relid, const MrfBudget *budget, MrfFitKind kind, double delta)
{
	double		x = NAN;
	MrfCharge	c;

	switch (kind)
	{
		case MRF_FIT_ZCDP:
			x = MrfBudgetLargestZcdp(budget);
			break;
		case MRF_FIT_PURE:
			x = MrfBudgetLargestPure(budget);
			break;
		case MRF_FIT_APPROX_EPSILON:
			x = MrfBudgetLargestApproxEpsilon(budget, delta);
			break;
		case MRF_FIT_APPROX_DELTA:
			x = MrfBudgetLargestApproxDelta(budget);
			break;
	}
	if (!(x > 0))
		return 0;

	/*
	 * The double search is never laxer than the worker's exact condition
	 * when the conversion is monotone; its floating-point evaluation is so
	 * only to a few ulp.  So confirm: a few steps of one ulp down, then, if
	 * still refused, bisection on the exact condition itself below x.
	 */
	for (int step = 0; step < 8; step++)
	{
		c = FitCharge(kind, x, delta);
		if (MrfChargeFits(relid, &c))
			return x;
		x = nextafter(x, 0.0);
	}
	{
		FitQuestion q = {relid, kind, delta, false};

		return LargestByBisection(x, QuestionFits, &q);
	}
}

PG_FUNCTION_INFO_V1(mrf_ledger_remaining);
/*
 * What of a relation's budget can still be spent, by notion: the largest
 * rho of a zCDP release, epsilon of a pure release, epsilon of an
 * (epsilon, delta) release at the given delta (by default the smallest
 * positive one) and delta of one (with the smallest positive epsilon); each
 * fits exactly when charged alone now.  Then what was spent, and the largest
 * rho, pure epsilon and epsilon at delta to type on the protected path (its
 * count of substituted rows adds 1/128: MrfLargestFitFrom).
 */
Datum
mrf_ledger_remaining(PG_FUNCTION_ARGS)
{
	Oid			relid;
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	TupleDesc	tupdesc;
	Datum	   *out;
	bool	   *outnulls;
	int64		releases;
	bool		isnull;
	MrfBudget	b;
	double		at_delta;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	relid = PG_GETARG_OID(0);
	at_delta = PG_ARGISNULL(1) ? nextafter(0.0, 1.0) : PG_GETARG_FLOAT8(1);
	if (!(at_delta > 0 && at_delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must lie strictly between 0 and 1"),
				 errdetail("It is the delta of the (epsilon, delta) release whose largest epsilon is asked for.")));
	values[0] = ObjectIdGetDatum(relid);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	SPI_connect();
	if (MrfCatalogQuery("SELECT releases FROM mrfdp.budget WHERE relation = $1::oid::regclass",
						1, types, values, NULL, true) == 0)
	{
		/* only those who may manage the relation learn that it is not protected */
		if (!pg_class_ownercheck(relid, GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to read the budget of %s", get_rel_name(relid))));
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("relation %s is not protected", get_rel_name(relid))));
	}
	releases = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!MrfMayReadBudget(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read the budget of %s", get_rel_name(relid))));
	if (!MrfReadBudget(relid, &b))
		elog(ERROR, "budget row of %s vanished", get_rel_name(relid));

	/*
	 * By column name: the SQL of an older version (before the _from columns)
	 * has fewer columns, and the library must serve it until the update.
	 */
	out = palloc0(sizeof(Datum) * tupdesc->natts);
	outnulls = palloc(sizeof(bool) * tupdesc->natts);
	for (int i = 0; i < tupdesc->natts; i++)
	{
		const char *name = NameStr(TupleDescAttr(tupdesc, i)->attname);
		double		v = 0;

		outnulls[i] = false;
		if (strcmp(name, "releases") == 0)
		{
			out[i] = Int64GetDatum(releases);
			continue;
		}
		if (strcmp(name, "rho") == 0)
			v = MrfLargestFit(relid, &b, MRF_FIT_ZCDP, 0);
		else if (strcmp(name, "pure_epsilon") == 0)
			v = MrfLargestFit(relid, &b, MRF_FIT_PURE, 0);
		else if (strcmp(name, "approx_epsilon") == 0)
			v = MrfLargestFit(relid, &b, MRF_FIT_APPROX_EPSILON, at_delta);
		else if (strcmp(name, "approx_delta") == 0)
			v = MrfLargestFit(relid, &b, MRF_FIT_APPROX_DELTA, 0);
		else if (strcmp(name, "rho_from") == 0)
			v = MrfLargestFitFrom(relid, &b, MRF_FIT_ZCDP, 0);
		else if (strcmp(name, "pure_epsilon_from") == 0)
			v = MrfLargestFitFrom(relid, &b, MRF_FIT_PURE, 0);
		else if (strcmp(name, "approx_epsilon_from") == 0)
			v = MrfLargestFitFrom(relid, &b, MRF_FIT_APPROX_EPSILON, at_delta);
		else if (strcmp(name, "spent_epsilon") == 0)
			v = MrfComposeEpsilon(b.zcdp_rho, b.pure_epsilon, b.pure_rho,
								  b.approx_epsilon, b.approx_delta, b.delta);
		else if (strcmp(name, "spent_delta") == 0)
			v = b.approx_delta;
		else if (strcmp(name, "spent_rho") == 0)
			v = MrfComposeUp(b.zcdp_rho, b.pure_rho);
		else
			elog(ERROR, "mrfdp.remaining: unknown column \"%s\"", name);
		out[i] = Float8GetDatum(v);
	}
	SPI_finish();
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, out, outnulls)));
}
