/*
 * budget.c - the owner-facing functions of the ledger: protect a relation,
 * grant and revoke learning, and read what is left.  Each checks the real
 * caller, then writes the catalog as the extension's owner.
 */
#include "postgres.h"

#include <math.h>

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

#include "core/privacy.h"
#include "pg/budget.h"
#include "pg/ledger.h"

/*
 * A numeric as the smallest double at least as large: exact sums of exact
 * charges stay exact (so a budget can be spent to the last bit), and any
 * rounding errs upwards.
 */
static double
NumericUp(Datum num)
{
	double		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, num));
	char		buf[MRF_EXACT_DECIMAL_LEN];
	Datum		back;

	if (!(d > 0) || isinf(d))
		return d > 0 ? d : 0.0;
	MrfExactDecimal(buf, sizeof(buf), d);
	back = DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, back, num)) < 0)
		d = nextafter(d, INFINITY);
	return d;
}

PG_FUNCTION_INFO_V1(mrf_ledger_spent_epsilon);
/* Total epsilon of a relation's charges (SPEC 3.4), rounded up. */
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

PG_FUNCTION_INFO_V1(mrf_ledger_protect);
/* Protects a relation with a total budget, or changes its budget. */
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

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrfdp.protect needs a relation, epsilon and delta")));
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

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Float8GetDatum(epsilon);
	values[2] = Float8GetDatum(delta);
	values[3] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	nulls[3] = PG_ARGISNULL(3) ? 'n' : ' ';

	SPI_connect();
	MrfCatalogQuery("INSERT INTO mrfdp.budget (relation, epsilon, delta, rho_cap, owner)"
					" SELECT $1::oid::regclass, $2, $3, $4, c.relowner::regrole"
					"  FROM pg_catalog.pg_class c WHERE c.oid = $1::oid"
					" ON CONFLICT (relation) DO UPDATE"
					"  SET epsilon = excluded.epsilon, delta = excluded.delta, rho_cap = excluded.rho_cap,"
					"      owner = excluded.owner"
					" RETURNING mrfdp.spent_epsilon(spent_zcdp_rho, spent_pure_epsilon, spent_pure_rho,"
					"   spent_approx_epsilon, spent_approx_delta, delta) <= epsilon"
					"  AND spent_approx_delta <= delta"
					"  AND (rho_cap IS NULL OR spent_zcdp_rho + spent_pure_rho <= rho_cap)",
					4, types, values, nulls, false);
	fits = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	if (!fits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the new budget of %s is below what has been spent", get_rel_name(relid)),
				 errhint("See mrfdp.remaining() for the amounts spent.")));
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
	SPI_connect();
	RequireProtected(relid);
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

/* Largest zCDP charge that still fits, by bisection on the composition. */
static double
LargestRhoThatFits(double zr, double pe, double pr, double ae, double ad,
				   double epsilon, double delta, double rho_cap_left)
{
	double		lo = 0;
	double		hi = 1;

	if (!(MrfComposeEpsilon(zr, pe, pr, ae, ad, delta) < epsilon) || rho_cap_left <= 0)
		return 0;
	while (hi < 1e12 && MrfComposeEpsilon(zr + hi, pe, pr, ae, ad, delta) <= epsilon)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (MrfComposeEpsilon(zr + mid, pe, pr, ae, ad, delta) <= epsilon)
			lo = mid;
		else
			hi = mid;
	}
	return Min(lo, rho_cap_left);
}

PG_FUNCTION_INFO_V1(mrf_ledger_remaining);
/* What is left of a relation's budget. */
Datum
mrf_ledger_remaining(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {relid, ObjectIdGetDatum(GetUserId())};
	TupleDesc	tupdesc;
	Datum		out[5];
	bool		outnulls[5] = {false, false, false, false, false};
	HeapTuple	row;
	TupleDesc	rowdesc;
	double		v[10];
	bool		isnull;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	SPI_connect();
	if (MrfCatalogQuery("SELECT epsilon, delta, coalesce(rho_cap, 'infinity'),"
						" spent_zcdp_rho, spent_pure_epsilon, spent_pure_rho,"
						" spent_approx_epsilon, spent_approx_delta, releases::float8,"
						" (pg_has_role($2::oid, owner, 'USAGE') OR"
						"  EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.relation = b.relation"
						"          AND pg_has_role($2::oid, g.role, 'USAGE'))"
						"  OR (SELECT rolsuper FROM pg_roles WHERE oid = $2::oid))::int::float8"
						" FROM mrfdp.budget b WHERE relation = $1::oid::regclass",
						2, types, values, NULL, true) == 0)
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
	row = SPI_tuptable->vals[0];
	rowdesc = SPI_tuptable->tupdesc;
	/* spent sums are numeric: convert each to the double just at or above it */
	for (int i = 0; i < 10; i++)
	{
		Datum		d = SPI_getbinval(row, rowdesc, i + 1, &isnull);

		v[i] = (i >= 3 && i <= 7) ? NumericUp(d) : DatumGetFloat8(d);
	}
	SPI_finish();
	if (v[9] == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read the budget of %s", get_rel_name(relid))));

	{
		double		epsilon = v[0],
					delta = v[1],
					rho_cap = v[2];
		double		zr = v[3],
					pe = v[4],
					pr = v[5],
					ae = v[6],
					ad = v[7];
		double		spent = MrfComposeEpsilon(zr, pe, pr, ae, ad, delta);

		out[0] = Float8GetDatum(Max(epsilon - spent, 0));
		out[1] = Float8GetDatum(Max(delta - ad, 0));
		out[2] = Float8GetDatum(LargestRhoThatFits(zr, pe, pr, ae, ad, epsilon, delta,
												   rho_cap - zr - pr));
		out[3] = Float8GetDatum(spent);
		out[4] = Int64GetDatum((int64) v[8]);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, out, outnulls)));
}
