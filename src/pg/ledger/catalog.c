/*
 * ledger/catalog.c - the privacy ledger's catalog access: queries on the
 * mrfdp catalog as the extension's owner, the budget condition every
 * admission uses (before learning, and in the charge worker), the
 * over-budget error, the ledger rows of releases from unprotected relations
 * and the learning grants of the protected path.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "pg/ledger/budget.h"
#include "pg/ledger/guard.h"
#include "pg/ledger/decimal.h"
#include "pg/ledger/catalog.h"
#include "pg/model/model.h"
#include "pg/driver/run.h"

/* Set while mrfdp queries its own catalog: those reads are not the statement's. */
static bool CatalogQueryRunning = false;

/* See ledger/catalog.h. */
bool
MrfCatalogQueryRunning(void)
{
	return CatalogQueryRunning;
}

/* The extension's owner, who owns the catalog and runs the charge worker. */
Oid
MrfExtensionOwner(void)
{
	Oid			schema;
	Oid			owner;

	if (!MrfExtensionSchemaAndOwner(&schema, &owner))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"mrfdp\" is not installed in this database")));
	return owner;
}

/* Runs a catalog query as the extension's owner; returns SPI_processed. */
uint64
MrfCatalogQuery(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
			 bool read_only)
{
	Oid			save_user;
	int			save_sec;
	uint64		processed = 0;

	int			save_nestlevel;

	/*
	 * As the extension's owner, with search_path = pg_catalog, pg_temp and in
	 * a security-restricted operation: the caller's search_path must never
	 * choose which functions or operators run with the owner's rights.
	 */
	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(MrfExtensionOwner(),
						   save_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	CatalogQueryRunning = true;
	PG_TRY();
	{
		int			rc = SPI_execute_with_args(sql, nargs, types, values, nulls, read_only, 0);

		if (rc < 0)
			elog(ERROR, "mrfdp catalog query failed: %s", SPI_result_code_string(rc));
		processed = SPI_processed;
	}
	PG_FINALLY();
	{
		CatalogQueryRunning = false;
		AtEOXact_GUC(false, save_nestlevel);
		SetUserIdAndSecContext(save_user, save_sec);
	}
	PG_END_TRY();
	return processed;
}

/* The ledger's name of a privacy notion. */
const char *
MrfNotionName(MrfNotion notion)
{
	return notion == MRF_NOTION_ZCDP ? "zCDP" : notion == MRF_NOTION_PURE ? "pure" : "approximate";
}

/* A relation's qualified name for messages, or its OID if it is gone. */
const char *
MrfRelationNameOrOid(Oid relid)
{
	char	   *name = get_rel_name(relid);

	if (name == NULL)
		return psprintf("%u", relid);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), name);
}

/*
 * Makes a fresh snapshot the active one, so a catalog query sees every charge
 * committed so far, also those the charge worker committed during the
 * running statement.  GetLatestSnapshot is refused in parallel mode (a
 * parallel plan's leader and workers); a catalog snapshot is not, and is
 * always taken anew for a relation without a syscache (InvalidOid here).
 */
void
MrfPushFreshSnapshot(void)
{
	PushActiveSnapshot(GetCatalogSnapshot(InvalidOid));
}

/* The values of MrfChargeFits's amounts: $2..$5 of MRF_CHARGE_AMOUNTS_SQL. */
static void
ChargeAmountTexts(const MrfCharge *charge, Datum *values)
{
	char		buf[MRF_EXACT_DECIMAL_LEN];

	MrfExactDecimal(buf, sizeof(buf), charge->notion == MRF_NOTION_ZCDP ? charge->rho : 0);
	values[0] = CStringGetTextDatum(buf);
	MrfExactDecimal(buf, sizeof(buf), charge->notion == MRF_NOTION_ZCDP ? 0 : charge->epsilon);
	values[1] = CStringGetTextDatum(buf);
	MrfExactDecimal(buf, sizeof(buf), charge->notion == MRF_NOTION_APPROX ? charge->delta : 0);
	values[2] = CStringGetTextDatum(buf);
	values[3] = CStringGetTextDatum(MrfNotionName(charge->notion));
}

/*
 * The first of relids whose budget the charge does not fit, by the charge
 * worker's own condition, read-only under the active snapshot; InvalidOid
 * when it fits them all (or none is protected).
 */
Oid
MrfFirstNotFitting(const Oid *relids, int n, const MrfCharge *charge)
{
	Oid			types[5] = {OIDARRAYOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		values[5];
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	Oid			failed = InvalidOid;

	for (int i = 0; i < n; i++)
		elems[i] = ObjectIdGetDatum(relids[i]);
	values[0] = PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	ChargeAmountTexts(charge, values + 1);
	SPI_connect();
	if (MrfCatalogQuery("WITH c AS (" MRF_CHARGE_AMOUNTS_SQL ")"
						" SELECT b.relation::oid FROM mrfdp.budget b, c"
						" WHERE b.relation::oid = ANY ($1) AND NOT (" MRF_CHARGE_FITS_SQL ")"
						" ORDER BY 1 LIMIT 1",
						5, types, values, NULL, true) > 0)
	{
		bool		isnull;

		failed = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
												1, &isnull));
	}
	SPI_finish();
	return failed;
}

/* See ledger/catalog.h. */
bool
MrfChargeFits(Oid relid, const MrfCharge *charge)
{
	return !OidIsValid(MrfFirstNotFitting(&relid, 1, charge));
}

/*
 * The error for a release that does not fit relid's budget: what it asked
 * for, and the largest amount of its own notion that fits now (what is left,
 * as that notion counts it), read under a fresh snapshot.
 */
void
MrfReportOverBudget(Oid relid, const MrfCharge *charge)
{
	const char *rel = MrfRelationNameOrOid(relid);
	MrfBudget	budget;
	bool		found;
	bool		may_read;
	double		fit = 0;
	double		fit_delta = 0;
	double		delta_at = 0;
	char	   *asked;
	char	   *allows = NULL;
	char	   *suggest = NULL;
	bool		from = charge->typed > 0;
	double		total = charge->notion == MRF_NOTION_ZCDP ? charge->rho : charge->epsilon;
	const char *sym = charge->notion == MRF_NOTION_ZCDP ? "rho" : "epsilon";

	MrfPushFreshSnapshot();
	SPI_connect();
	found = MrfReadBudget(relid, &budget);
	may_read = found && MrfMayReadBudget(relid, GetUserId());
	if (!may_read)
		found = false;
	else if (budget.delta > 0)
	{
		/* on the protected path, the largest amount as the caller types it */
		double		(*largest) (Oid, const MrfBudget *, MrfFitKind, double) =
			from ? MrfLargestFitFrom : MrfLargestFit;

		switch (charge->notion)
		{
			case MRF_NOTION_ZCDP:
				fit = largest(relid, &budget, MRF_FIT_ZCDP, 0);
				break;
			case MRF_NOTION_PURE:
				fit = largest(relid, &budget, MRF_FIT_PURE, 0);
				break;
			case MRF_NOTION_APPROX:
				fit = largest(relid, &budget, MRF_FIT_APPROX_EPSILON, charge->delta);
				if (fit == 0)
					fit_delta = MrfLargestFit(relid, &budget, MRF_FIT_APPROX_DELTA, 0);
				/* a delta at which the epsilon charged fits, if one does */
				delta_at = MrfLargestDeltaAt(relid, charge->epsilon);
				break;
		}
	}
	else if (charge->notion == MRF_NOTION_PURE)
		fit = (from ? MrfLargestFitFrom : MrfLargestFit) (relid, &budget, MRF_FIT_PURE, 0);
	SPI_finish();
	PopActiveSnapshot();

	/*
	 * The amount as typed; on the protected path the count of substituted
	 * rows' share separately, and the total charged.
	 */
	switch (charge->notion)
	{
		case MRF_NOTION_ZCDP:
			asked = psprintf("rho = %s (zCDP)", MrfDoubleText(from ? charge->typed : charge->rho));
			if (fit > 0)
				allows = psprintf("at most rho = %s", MrfDoubleText(fit));
			break;
		case MRF_NOTION_PURE:
			asked = psprintf("epsilon = %s (pure DP)", MrfDoubleText(from ? charge->typed : charge->epsilon));
			if (fit > 0)
				allows = psprintf("at most epsilon = %s", MrfDoubleText(fit));
			break;
		default:
			asked = psprintf("epsilon = %s and delta = %s ((epsilon, delta)-DP)",
							 MrfDoubleText(from ? charge->typed : charge->epsilon),
							 MrfDoubleText(charge->delta));
			if (fit > 0)
				allows = psprintf("at most epsilon = %s at that delta", MrfDoubleText(fit));
			else if (fit_delta > 0)
				allows = psprintf("no epsilon at that delta, and at most delta = %s (with a vanishing epsilon)",
								  MrfDoubleText(fit_delta));
			if (delta_at > 0 && delta_at < charge->delta)
				suggest = psprintf(" This epsilon fits at delta = %s or less.", MrfDoubleText(delta_at));
			break;
	}
	if (from)
		asked = psprintf("%s, and the noisy count of substituted rows adds %s = %s (1/128 of it): %s = %s charged in all",
						 asked, sym, MrfDoubleText(total - charge->typed), sym, MrfDoubleText(total));
	if (from && allows != NULL)
		allows = psprintf("%s as typed on this path (the count's share included in the check)", allows);
	if (suggest == NULL)
		suggest = "";
	/* what is left is told only to those who may read the budget (as remaining()) */
	if (!may_read)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("privacy budget of relation %s cannot cover this release", rel),
				 errdetail("%s asked for %s. What is left of the budget is shown only to the relation's owner and the roles granted learning from it. Nothing was released or charged.",
						   charge->learner, asked),
				 errhint("Ask the relation's owner.")));
	if (budget.delta == 0 && charge->notion != MRF_NOTION_PURE)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("privacy budget of relation %s admits only pure-DP releases", rel),
				 errdetail("%s asked for %s, but the budget has delta = 0: a pure-DP budget, which only epsilon-DP learners such as mrf_learn_cliques can spend. Nothing was released or charged.",
						   charge->learner, asked),
				 errhint("The relation's owner can set delta > 0 with mrfdp.protect(), e.g. delta => 1e-6.")));
	if (allows == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("privacy budget of relation %s is exhausted", rel),
				 errdetail("%s asked for %s; nothing of that kind fits what is left of the budget. Nothing was released or charged.",
						   charge->learner, asked),
				 errhint("The relation's owner can raise the budget with mrfdp.protect(); mrfdp.remaining('%s') shows what fits.%s",
						 rel, suggest)));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("privacy budget of relation %s cannot cover this release", rel),
			 errdetail("%s asked for %s; what is left of the budget allows %s. Nothing was released or charged.",
					   charge->learner, asked, allows),
			 errhint("Ask for at most that much, or have the relation's owner raise the budget with mrfdp.protect(); mrfdp.remaining('%s') shows what fits.%s",
					 rel, suggest)));
}

/* Whether any of the relations is protected, by a fresh look at the catalog. */
bool
MrfAnyProtected(const Oid *relids, int n)
{
	Oid			types[1] = {OIDARRAYOID};
	Datum	   *elems = palloc(sizeof(Datum) * n);
	Datum		values[1];
	uint64		found;

	for (int i = 0; i < n; i++)
		elems[i] = ObjectIdGetDatum(relids[i]);
	values[0] = PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	SPI_connect();
	/* read_only = false: a new snapshot, so a protect() committed just now is seen */
	found = MrfCatalogQuery("SELECT 1 FROM mrfdp.budget WHERE relation::oid = ANY ($1)",
							1, types, values, NULL, false);
	SPI_finish();
	return found > 0;
}

/*
 * Records a release from unprotected relations only.  Nothing is limited, so
 * the ledger rows may share the caller's transaction: this keeps releases
 * cheap (no worker) when, e.g., GROUP BY learns thousands of models.
 */
void
MrfRecordUnprotected(const MrfCharge *charge, const Oid *relids, int n)
{
	char		amount[MRF_EXACT_DECIMAL_LEN];
	char		delta[MRF_EXACT_DECIMAL_LEN];

	MrfExactDecimal(amount, sizeof(amount), charge->notion == MRF_NOTION_ZCDP ? charge->rho : charge->epsilon);
	MrfExactDecimal(delta, sizeof(delta), charge->notion == MRF_NOTION_APPROX ? charge->delta : 0);
	SPI_connect();
	for (int i = 0; i < n; i++)
	{
		Oid			types[9] = {OIDOID, OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID, TEXTOID, BOOLOID};
		Datum		values[9];

		values[0] = ObjectIdGetDatum(relids[i]);
		values[1] = ObjectIdGetDatum(GetUserId());
		values[2] = CStringGetTextDatum(charge->learner);
		values[3] = CStringGetTextDatum(MrfNotionName(charge->notion));
		values[4] = CStringGetTextDatum(amount);
		values[5] = CStringGetTextDatum(delta);
		values[6] = Int64GetDatum(charge->rows);
		values[7] = CStringGetTextDatum(debug_query_string ? debug_query_string : "");
		values[8] = BoolGetDatum(MrfTestSeed < 0);

		/*
		 * In the caller's transaction, which sees the relation as the
		 * release did.  A temporary relation keeps no OID (it dies with its
		 * session, unseen by the drop trigger), nor does one this
		 * transaction dropped; both keep their names.
		 */
		MrfCatalogQuery("INSERT INTO mrfdp.ledger (relation, relation_name, relation_owner, protected,"
						" role, learner, notion, rho, epsilon, delta, rows_read, statement, private)"
						" SELECT CASE WHEN c.relpersistence <> 't' THEN c.oid::regclass END,"
						"  coalesce(quote_ident(n.nspname) || '.' || quote_ident(c.relname), r.oid::text),"
						"  c.relowner::regrole, false, $2::oid::regrole, $3, $4,"
						"  CASE WHEN $4 = 'zCDP' THEN $5::float8 END,"
						"  CASE WHEN $4 <> 'zCDP' THEN $5::float8 END,"
						"  CASE WHEN $4 = 'approximate' THEN $6::float8 END,"
						"  $7, left($8, 1024), $9"
						" FROM (SELECT $1::oid AS oid) r"
						"  LEFT JOIN pg_class c ON c.oid = r.oid"
						"  LEFT JOIN pg_namespace n ON n.oid = c.relnamespace",
						9, types, values, NULL, false);
	}
	SPI_finish();
}

/* Errors unless role may learn from relid through the protected path. */
void
MrfCheckLearningGrant(Oid relid, Oid role)
{
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
	uint64		granted;

	SPI_connect();
	granted = MrfCatalogQuery("SELECT 1 FROM mrfdp.grants g JOIN mrfdp.budget b USING (relation)"
						   " WHERE g.relation = $1::oid::regclass"
						   " AND pg_catalog.pg_has_role($2::oid, g.role, 'USAGE')"
						   " AND " MRF_HOLDS_LEARNING_MARKER_SQL,
						   2, types, values, NULL, true);
	SPI_finish();
	if (granted == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to learn from relation %s", get_rel_name(relid)),
				 errhint("The relation's owner can allow it with mrfdp.grant_learning().")));
}
