/*
 * ledger/reads.c - what a statement reads, for the privacy ledger: the
 * executor hook records the range table of every query the transaction runs
 * (views, subqueries, CTEs, functions' queries), a transaction callback
 * marks the set for renewal, and parallel workers refuse nested reads of
 * protected relations the leader cannot see.  Over-charging is safe;
 * under-charging would be a bug.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "pg/ledger/catalog.h"
#include "pg/ledger/reads.h"

/* Relations read by the running top-level statement (TopMemoryContext). */
static Oid *StatementRelations = NULL;
static int	StatementRelationCount = 0;

/* The transaction that filled the set ended, during the statement that started then. */
static bool TrackedSetEnded = false;
static TimestampTz TrackedSetEndedIn = 0;

static int	StatementRelationCapacity = 0;

static void ForgetEndedTransactions(void);

/* Adds one relation to the transaction's set. */
void
MrfStatementAddRelation(Oid relid)
{
	for (int i = 0; i < StatementRelationCount; i++)
		if (StatementRelations[i] == relid)
			return;
	if (StatementRelationCount == StatementRelationCapacity)
	{
		int			cap = Max(16, StatementRelationCapacity * 2);

		if (StatementRelations == NULL)
			StatementRelations = MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * cap);
		else
			StatementRelations = repalloc(StatementRelations, sizeof(Oid) * cap);
		StatementRelationCapacity = cap;
	}
	StatementRelations[StatementRelationCount++] = relid;
}

/* Adds the relations of a range table to the transaction's set. */
static void
AddRangeTable(List *rtable)
{
	ListCell   *lc;

	foreach(lc, rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION && OidIsValid(rte->relid))
			MrfStatementAddRelation(rte->relid);
	}
}

/*
 * The transaction this library was loaded in, when it was loaded inside one
 * (on demand, without session_preload_libraries): the executor hook was not
 * there when the transaction started, so what it read before is unknown.
 */
static LocalTransactionId UntrackedTransaction = InvalidLocalTransactionId;
static TimestampTz UntrackedStatement = 0;

/* In a parallel worker: its plan fragment has started (see MrfLedgerBeforeExecutorStart). */
static bool WorkerFragmentStarted = false;

/* In a parallel worker: the fragment's relations and their ancestors, once computed. */
static List *WorkerFragmentCover = NIL;
static bool WorkerFragmentCoverKnown = false;

/* relid and its inheritance and partition ancestors, read from pg_inherits directly. */
static List *
WithAncestors(Oid relid)
{
	List	   *result = list_make1_oid(relid);
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);

	for (int i = 0; i < list_length(result); i++)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(list_nth_oid(result, i)));
		scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
			result = list_append_unique_oid(result, ((Form_pg_inherits) GETSTRUCT(tup))->inhparent);
		systable_endscan(scan);
	}
	table_close(inh, AccessShareLock);
	return result;
}

/*
 * mrfdp.budget's OID, or InvalidOid when the extension is not installed in
 * this database.  Looked up by name, then checked to be the extension's own
 * table, so a user's schema or table of that name is never taken for it.
 */
static Oid
BudgetTable(void)
{
	Oid			ext = get_extension_oid("mrfdp", true);
	Oid			nsp;
	Oid			rel = InvalidOid;

	if (!OidIsValid(ext))
		return InvalidOid;
	nsp = get_namespace_oid("mrfdp", true);
	if (OidIsValid(nsp))
		rel = get_relname_relid("budget", nsp);
	if (!OidIsValid(rel) || getExtensionOfObject(RelationRelationId, rel) != ext)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the catalog of extension \"mrfdp\" is missing table mrfdp.budget")));
	return rel;
}

/*
 * Whether relid has a budget row, by a scan of mrfdp.budget without SPI and
 * without changing the user: usable inside a parallel worker and under any
 * role.  Uses the index on the relation column when there is one.  The
 * snapshot is a fresh catalog snapshot (mrfdp.budget has no syscache, so
 * GetCatalogSnapshot takes a new one), which sees a protect() just committed.
 */
static bool
HasBudgetRow(Oid budget, Oid relid)
{
	Relation	rel = table_open(budget, AccessShareLock);
	AttrNumber	attnum = get_attnum(budget, "relation");
	Oid			index = InvalidOid;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	if (attnum == InvalidAttrNumber)
		elog(ERROR, "mrfdp.budget has no column \"relation\"");
	(void) RelationGetIndexList(rel);	/* sets rd_pkindex */
	if (OidIsValid(rel->rd_pkindex))
	{
		HeapTuple	idx = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(rel->rd_pkindex));

		if (HeapTupleIsValid(idx))
		{
			Form_pg_index form = (Form_pg_index) GETSTRUCT(idx);

			if (form->indnkeyatts >= 1 && form->indkey.values[0] == attnum)
				index = rel->rd_pkindex;
			ReleaseSysCache(idx);
		}
	}
	/* heap attribute numbers: systable_beginscan maps them to the index's */
	ScanKeyInit(&key, attnum, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, index, OidIsValid(index), NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * Parallel worker, a query nested in its plan fragment (a PARALLEL SAFE
 * function's query): the leader never sees it, so a protected relation it
 * reads would never be charged.  Such a read is refused, unless the
 * protected relation is already in the fragment, whose relations are the
 * leader's statement's (ExecSerializePlan ships the whole range table), which
 * the leader records itself.
 */
static void
CheckWorkerQuery(List *rtable)
{
	/* a worker runs one query: the catalog table cannot change under it */
	static Oid	budget = InvalidOid;
	static bool budget_known = false;
	ListCell   *lc;

	foreach(lc, rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		ListCell   *lc2;

		if (rte->rtekind != RTE_RELATION || !OidIsValid(rte->relid))
			continue;
		if (!budget_known)
		{
			budget = BudgetTable();
			budget_known = true;
		}
		if (!OidIsValid(budget))
			return;				/* the extension is not installed: nothing is protected */
		foreach(lc2, WithAncestors(rte->relid))
		{
			Oid			relid = lfirst_oid(lc2);

			if (!HasBudgetRow(budget, relid))
				continue;
			if (!WorkerFragmentCoverKnown)
			{
				MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

				for (int i = 0; i < StatementRelationCount; i++)
					WorkerFragmentCover = list_concat_unique_oid(WorkerFragmentCover,
																 WithAncestors(StatementRelations[i]));
				MemoryContextSwitchTo(old);
				WorkerFragmentCoverKnown = true;
			}
			if (list_member_oid(WorkerFragmentCover, relid))
				continue;
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("protected relation %s cannot be read inside a parallel worker",
							get_rel_name(relid) ? get_rel_name(relid) : "(dropped)"),
					 errdetail("A parallel-safe function read it in a parallel worker, where the privacy ledger cannot record the read."),
					 errhint("Run the query without parallel workers (SET max_parallel_workers_per_gather = 0), or mark the function PARALLEL RESTRICTED.")));
		}
	}
}

/*
 * ExecutorStart (hooks.c): remember what every query of the transaction
 * reads.  A parallel worker runs one plan fragment, always its first
 * ExecutorStart (ParallelQueryMain); any later one is a query nested in it,
 * checked by CheckWorkerQuery before it runs.  See ledger/reads.h.
 */
bool
MrfLedgerBeforeExecutorStart(QueryDesc *queryDesc)
{
	bool		track = queryDesc->plannedstmt != NULL && !MrfCatalogQueryRunning();

	ForgetEndedTransactions();

	if (track && IsParallelWorker())
	{
		if (!WorkerFragmentStarted)
		{
			/* recorded first: anything nested in it is checked against it */
			WorkerFragmentStarted = true;
			AddRangeTable(queryDesc->plannedstmt->rtable);
		}
		else
			CheckWorkerQuery(queryDesc->plannedstmt->rtable);
		track = false;
	}
	return track;
}

/* See ledger/reads.h. */
void
MrfLedgerAfterExecutorStart(QueryDesc *queryDesc, bool track)
{
	if (track)
		AddRangeTable(queryDesc->plannedstmt->rtable);
}

/*
 * The set lives for a whole transaction, not a statement: a cursor opened by
 * an earlier statement and fetched inside a learner's input must still be
 * charged.  It also outlives a transaction that ends inside the running
 * top-level statement: a procedure may read a protected relation into its
 * variables, COMMIT, and learn from them in its next transaction.  So a
 * transaction's end only marks the set, and it is emptied when a later
 * top-level statement (another statement start time) first uses it.
 * Over-charging a transaction that read other relations is safe.
 */
static void
LedgerXactCallback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		TrackedSetEnded = true;
		TrackedSetEndedIn = GetCurrentStatementStartTimestamp();
	}
}

/* Empties the set of reads if its transactions ended in an earlier top-level statement. */
static void
ForgetEndedTransactions(void)
{
	if (TrackedSetEnded && GetCurrentStatementStartTimestamp() != TrackedSetEndedIn)
	{
		StatementRelationCount = 0;
		TrackedSetEnded = false;
	}
}

/*
 * Registers the transaction callback.  Loaded inside a transaction (on
 * demand, not preloaded), the executor hook (hooks.c) missed its start: that
 * transaction is remembered and may release nothing on the aggregate path
 * (MrfRequireTrackedTransaction).
 */
void
MrfLedgerInit(void)
{
	RegisterXactCallback(LedgerXactCallback, NULL);
	if (IsTransactionState() && !IsParallelWorker() && MyProc != NULL)
	{
		/* a procedure may go on in later transactions of the same statement */
		UntrackedTransaction = MyProc->lxid;
		UntrackedStatement = GetCurrentStatementStartTimestamp();
	}
}

/*
 * Errors when the running transaction started before this library was
 * loaded: the relations it read before are unknown, so a release could not
 * be charged for them.  (The protected path does not need this: it charges
 * the relations it reads itself, by name.)
 */
void
MrfRequireTrackedTransaction(const char *learner)
{
	ForgetEndedTransactions();
	if (UntrackedTransaction != InvalidLocalTransactionId && MyProc != NULL &&
		(MyProc->lxid == UntrackedTransaction ||
		 GetCurrentStatementStartTimestamp() == UntrackedStatement))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s cannot release a model in the transaction that loaded mrfdp", learner),
				 errdetail("The library was loaded in the middle of this transaction, so the privacy ledger does not know which relations the transaction read before; nothing was released or charged."),
				 errhint("Preload mrfdp with session_preload_libraries or shared_preload_libraries (e.g. ALTER DATABASE ... SET session_preload_libraries = 'mrfdp'), or run the statement again in a new transaction.")));
}


/* See ledger/reads.h. */
const Oid *
MrfStatementRelations(int *n)
{
	*n = StatementRelationCount;
	return StatementRelations;
}
