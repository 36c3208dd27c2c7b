/*
 * ledger/ledger.c - the privacy ledger (privacy.md 9): what a release is charged to.
 * The pieces: ledger/reads.c records what a statement reads,
 * ledger/catalog.c reads and writes the mrfdp catalog as the extension's
 * owner (the budget condition, the over-budget error), ledger/worker.c
 * charges in a transaction of its own, ledger/decimal.c writes the exact amounts.
 *
 * A release is charged before it is returned, in a transaction of its own:
 * a dynamic background worker connects as the extension's owner, checks and
 * charges every protected relation with one UPDATE ... WHERE <fits> per
 * relation (the row lock makes check-and-charge atomic under concurrency),
 * appends the ledger rows and commits.  Only after that commit does the
 * caller see the model, so ROLLBACK, an exception block or a later error in
 * the same statement cannot undo the charge.  A learner that fails or is
 * cancelled before this point has released nothing and is charged nothing.
 *
 * The aggregate path charges every protected relation the running statement
 * reads: the range tables of the top-level query and of every query started
 * while it runs (views, subqueries, CTEs, functions), collected by executor
 * hooks.  Over-charging is safe; under-charging would be a bug.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_statistic_ext_data.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "pg/citus/cluster.h"
#include "pg/ledger/ledger.h"
#include "pg/ledger/catalog.h"
#include "pg/ledger/reads.h"
#include "pg/ledger/worker.h"

/*
 * Adds the inheritance and partition ancestors of every relation read: a
 * protected parent covers its children, whichever name the query used.
 */
static void
AddAncestors(void)
{
	Oid			types[1] = {OIDARRAYOID};
	int			nread;
	const Oid  *read = MrfStatementRelations(&nread);
	Datum	   *elems = palloc(sizeof(Datum) * nread);
	Datum		values[1];
	uint64		found;
	Oid		   *ancestors;

	for (int i = 0; i < nread; i++)
		elems[i] = ObjectIdGetDatum(read[i]);
	values[0] = PointerGetDatum(construct_array(elems, nread, OIDOID,
												sizeof(Oid), true, TYPALIGN_INT));
	SPI_connect();
	found = MrfCatalogQuery("WITH RECURSIVE up(r) AS (SELECT unnest($1)"
							" UNION SELECT i.inhparent FROM up JOIN pg_inherits i ON i.inhrelid = up.r)"
							" SELECT r FROM up",
							1, types, values, NULL, true);
	/* in the caller's context: SPI_finish frees what was palloc'd after SPI_connect */
	ancestors = SPI_palloc(sizeof(Oid) * Max(found, 1));
	for (uint64 i = 0; i < found; i++)
	{
		bool		isnull;

		ancestors[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
													  1, &isnull));
	}
	SPI_finish();
	for (uint64 i = 0; i < found; i++)
		MrfStatementAddRelation(ancestors[i]);
}

/*
 * Planner statistics are a read of the relation they describe: pg_stats
 * shows the most common values and histograms of every column the role may
 * SELECT, from pg_statistic (pg_stats_ext likewise, from
 * pg_statistic_ext_data).  The executor hook sees only that the catalog was
 * read, not whose rows, so a transaction that read either counts as having
 * read every protected relation whose statistics could be seen there: those
 * with a column that the current role, or the session's user (who may have
 * read them before a SET ROLE), may SELECT (a superuser: all).
 * Over-charging is safe; a role with only a learning grant sees no
 * statistics and is not charged (charging every protected relation instead
 * would let anyone drain every budget).  Looked up again only when the set
 * of reads grew.
 */
static LocalTransactionId StatisticsTransaction = InvalidLocalTransactionId;
static TimestampTz StatisticsStatement = 0;
static int	StatisticsCount = -1;

static void
AddStatisticsReads(void)
{
	int			nread;
	const Oid  *read = MrfStatementRelations(&nread);
	bool		stats = false;
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {ObjectIdGetDatum(GetUserId()), ObjectIdGetDatum(GetSessionUserId())};
	uint64		found;
	Oid		   *seen;

	for (int i = 0; i < nread && !stats; i++)
		stats = read[i] == StatisticRelationId || read[i] == StatisticExtDataRelationId;
	if (!stats || !OidIsValid(get_extension_oid("mrfdp", true)))
		return;
	if (StatisticsCount == nread && MyProc != NULL && StatisticsTransaction == MyProc->lxid &&
		StatisticsStatement == GetCurrentStatementStartTimestamp())
		return;
	MrfPushFreshSnapshot();
	SPI_connect();
	found = MrfCatalogQuery("SELECT b.relation::oid FROM mrfdp.budget b JOIN pg_class c ON c.oid = b.relation::oid"
							" WHERE pg_catalog.has_any_column_privilege($1::oid, c.oid, 'SELECT')"
							"  OR pg_catalog.has_any_column_privilege($2::oid, c.oid, 'SELECT')",
							2, types, values, NULL, true);
	seen = SPI_palloc(sizeof(Oid) * Max(found, 1));
	for (uint64 i = 0; i < found; i++)
	{
		bool		isnull;

		seen[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	PopActiveSnapshot();
	for (uint64 i = 0; i < found; i++)
		MrfStatementAddRelation(seen[i]);
	(void) MrfStatementRelations(&nread);
	StatisticsTransaction = MyProc != NULL ? MyProc->lxid : InvalidLocalTransactionId;
	StatisticsStatement = GetCurrentStatementStartTimestamp();
	StatisticsCount = nread;
}

/*
 * Adds the logical table of every Citus shard read (a shard read locally on
 * the coordinator), so its budget is charged whatever name the read used.
 */
static void
AddCitusLogicalRelations(void)
{
	int			nread;
	const Oid  *read = MrfStatementRelations(&nread);
	ListCell   *lc;

	foreach(lc, MrfCitusLogicalRelations(read, nread))
		MrfStatementAddRelation(lfirst_oid(lc));
}

/*
 * The protected relations among those the transaction has read so far (and
 * their ancestors), as of the last look; recomputed when the transaction,
 * the statement or the set of relations read changes, so GROUP BY over many
 * groups looks once per statement.
 */
static LocalTransactionId ProtectedReadTransaction = InvalidLocalTransactionId;
static TimestampTz ProtectedReadStatement = 0;
static int	ProtectedReadCount = -1;
static Oid *ProtectedRead = NULL;	/* TopMemoryContext */
static int	ProtectedReadN = 0;

/* Refreshes ProtectedRead if the transaction's reads changed since the last look. */
static void
LookUpProtectedReads(void)
{
	Oid			types[1] = {OIDARRAYOID};
	Datum	   *elems;
	Datum		values[1];
	uint64		found;
	int			nread;
	const Oid  *read;

	AddStatisticsReads();
	read = MrfStatementRelations(&nread);
	if (ProtectedReadCount == nread && MyProc != NULL &&
		ProtectedReadTransaction == MyProc->lxid &&
		ProtectedReadStatement == GetCurrentStatementStartTimestamp())
		return;
	ProtectedReadN = 0;
	if (nread > 0 && OidIsValid(get_extension_oid("mrfdp", true)))
	{
		elems = palloc(sizeof(Datum) * nread);
		for (int i = 0; i < nread; i++)
			elems[i] = ObjectIdGetDatum(read[i]);
		values[0] = PointerGetDatum(construct_array(elems, nread, OIDOID,
													sizeof(Oid), true, TYPALIGN_INT));
		MrfPushFreshSnapshot();
		SPI_connect();
		found = MrfCatalogQuery("WITH RECURSIVE up(r) AS (SELECT unnest($1)"
								" UNION SELECT i.inhparent FROM up JOIN pg_inherits i ON i.inhrelid = up.r)"
								" SELECT b.relation::oid FROM up JOIN mrfdp.budget b ON b.relation::oid = up.r",
								1, types, values, NULL, true);
		if (found > 0)
		{
			Oid		   *oids = MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * found);

			for (uint64 i = 0; i < found; i++)
			{
				bool		isnull;

				oids[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														 SPI_tuptable->tupdesc, 1, &isnull));
			}
			if (ProtectedRead != NULL)
				pfree(ProtectedRead);
			ProtectedRead = oids;
			ProtectedReadN = (int) found;
		}
		SPI_finish();
		PopActiveSnapshot();
	}
	ProtectedReadTransaction = MyProc != NULL ? MyProc->lxid : InvalidLocalTransactionId;
	ProtectedReadStatement = GetCurrentStatementStartTimestamp();
	ProtectedReadCount = nread;
}

/* See ledger/ledger.h. */
bool
MrfStatementReadsProtected(const char *learner)
{
	int			nread;

	MrfRequireTrackedTransaction(learner);
	(void) MrfStatementRelations(&nread);
	if (nread == 0)
		return false;
	LookUpProtectedReads();
	return ProtectedReadN > 0;
}

/* See ledger/ledger.h. */
void
MrfCheckStatementBudget(const MrfCharge *charge)
{
	Oid			failed;

	if (!MrfStatementReadsProtected(charge->learner))
		return;
	MrfPushFreshSnapshot();
	failed = MrfFirstNotFitting(ProtectedRead, ProtectedReadN, charge);
	PopActiveSnapshot();
	if (OidIsValid(failed))
		MrfReportOverBudget(failed, charge);
}

/* Aggregate path: charges every protected relation the statement reads. */
void
MrfChargeStatement(const MrfCharge *charge)
{
	const Oid  *read;
	int			nread;

	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot release a model inside a parallel worker", charge->learner),
				 errhint("Run the query with max_parallel_workers_per_gather = 0.")));
	MrfRequireTrackedTransaction(charge->learner);
	MrfCitusRefuseOffCoordinator(charge->learner);

	(void) MrfStatementRelations(&nread);
	if (nread == 0)
		return;					/* nothing was read: VALUES, functions of constants */
	AddCitusLogicalRelations();
	AddStatisticsReads();
	AddAncestors();
	read = MrfStatementRelations(&nread);
	if (!IsInParallelMode() && !MrfAnyProtected(read, nread))
	{
		MrfRecordUnprotected(charge, read, nread);
		return;
	}
	MrfChargeInWorker(charge, GetUserId(), false, read, nread, NULL);
}

/*
 * Protected path: charges, on behalf of role, the relation and every
 * protected relation of its family: the read covers its inheritance and
 * partition descendants, and protected ancestors cover their children, as
 * on the aggregate path.  One request, so the charge is all or nothing; the
 * named relation must be protected, and so must every other one the request
 * lists (a relation unprotected meanwhile fails the charge: fail closed).
 */
void
MrfChargeRelation(Oid relid, Oid role, const MrfCharge *charge, MrfLedgerReceipt *receipt)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	Oid		   *family;
	uint64		found;

	MrfCitusRefuseOffCoordinator(charge->learner);
	SPI_connect();
	/* read_only = false: a new snapshot, so a protect() committed just now is seen */
	found = MrfCatalogQuery("WITH RECURSIVE"
							" up(r) AS (SELECT $1 UNION SELECT i.inhparent FROM up"
							"  JOIN pg_inherits i ON i.inhrelid = up.r),"
							" down(r) AS (SELECT $1 UNION SELECT i.inhrelid FROM down"
							"  JOIN pg_inherits i ON i.inhparent = down.r)"
							" SELECT f.r FROM (SELECT r FROM up UNION SELECT r FROM down) f"
							" WHERE f.r = $1 OR EXISTS (SELECT 1 FROM mrfdp.budget b"
							"  WHERE b.relation::oid = f.r)"
							" ORDER BY f.r <> $1, f.r",
							1, types, values, NULL, false);
	if (found > MRF_CHARGE_MAX_RELATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a release may charge at most %d relations", MRF_CHARGE_MAX_RELATIONS),
				 errdetail("Relation %s has " UINT64_FORMAT " protected relations among its ancestors and descendants.",
						   MrfRelationNameOrOid(relid), found)));
	family = SPI_palloc(sizeof(Oid) * Max(found, 1));
	for (uint64 i = 0; i < found; i++)
	{
		bool		isnull;

		family[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
												   1, &isnull));
	}
	SPI_finish();
	if (found == 0 || family[0] != relid)
		elog(ERROR, "could not list the relations covered by relation %u", relid);

	MrfChargeInWorker(charge, role, true, family, (int) found, receipt);
}
