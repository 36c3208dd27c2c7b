/*
 * ledger.c - the privacy ledger (SPEC 3.4).
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

#include <math.h>

#include "access/genam.h"
#include "access/parallel.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parsetree.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "core/privacy.h"
#include "mrfdp.h"
#include "pg/budget.h"
#include "pg/citus.h"
#include "pg/ledger.h"
#include "pg/model.h"

/* The worker's answer. */
typedef enum ChargeStatus
{
	CHARGE_PENDING = 0,
	CHARGE_COMMITTED = 1,
	CHARGE_OVER_BUDGET = 2,
	CHARGE_NOT_PROTECTED = 3
} ChargeStatus;

#define CHARGE_STATEMENT_LEN 1024
/* Most relations one release may charge (the request is about 160 bytes each). */
#define CHARGE_MAX_RELATIONS 100000

/*
 * What the releasing backend sees of a relation, for its ledger row: the
 * worker runs in another transaction and cannot see a relation created (or
 * dropped) by the caller's open transaction the way the caller does.
 */
typedef struct ChargeRelationFacts
{
	char		nspname[NAMEDATALEN];
	char		relname[NAMEDATALEN];
	Oid			owner;
	bool		known;			/* the releasing backend sees the relation */
	bool		keep_oid;		/* known and not temporary: the ledger may keep its OID */
} ChargeRelationFacts;

/* One relation of a charge request. */
typedef struct ChargeRelation
{
	Oid			relid;
	bool		protected;		/* filled by the worker */
	ChargeRelationFacts facts;	/* filled by DescribeForLedger */
} ChargeRelation;

/*
 * A charge request and its answer, in a dynamic shared memory segment sized
 * for its relations (NewRequest): a statement may read any number of them
 * (a deep inheritance tree, thousands of partitions).
 */
typedef struct ChargeRequest
{
	Oid			database;
	Oid			owner;			/* the extension's owner: the worker's role */
	Oid			role;			/* who released */
	bool		protected_path; /* every relation must be protected */
	char		learner[NAMEDATALEN];
	char		notion[16];
	char		rho[MRF_EXACT_DECIMAL_LEN];		/* exact decimal texts of the charge */
	char		epsilon[MRF_EXACT_DECIMAL_LEN];
	char		delta[MRF_EXACT_DECIMAL_LEN];
	int64		rows;
	char		statement[CHARGE_STATEMENT_LEN];
	bool		not_private;	/* mrfdp.test_seed keyed the release (DescribeForLedger) */
	/* answer */
	volatile int status;
	Oid			failed_relation;
	/* the relations, last */
	int			nrelations;
	ChargeRelation rel[FLEXIBLE_ARRAY_MEMBER];
} ChargeRequest;

PGDLLEXPORT void mrf_charge_worker_main(Datum main_arg);

/*
 * What one release adds to each sum of a budget row: $2 rho, $3 epsilon,
 * $4 delta (exact decimal texts, MrfExactDecimal), $5 the notion.
 * [BS16] Prop. 1.4: a pure release also counts as eps^2/2 in zCDP; exact in
 * numeric.
 */
#define CHARGE_AMOUNTS_SQL \
	"SELECT $2::numeric AS zr," \
	"  CASE WHEN $5 = 'pure' THEN $3::numeric ELSE 0 END AS pe," \
	"  CASE WHEN $5 = 'pure' THEN $3::numeric * $3::numeric * 0.5 ELSE 0 END AS pr," \
	"  CASE WHEN $5 = 'approximate' THEN $3::numeric ELSE 0 END AS ae," \
	"  $4::numeric AS ad"

/*
 * Whether budget row b still admits the amounts c: the composed total of the
 * new exact sums (SPEC 3.4, MrfComposeEpsilon through mrfdp.spent_epsilon)
 * within epsilon, the approximate deltas within delta, the rho total within
 * rho_cap.  The charge worker admits a release by exactly this condition; the
 * checks before learning and the amounts reported as fitting use it too.
 */
#define CHARGE_FITS_SQL \
	"mrfdp.spent_epsilon(b.spent_zcdp_rho + c.zr, b.spent_pure_epsilon + c.pe," \
	"      b.spent_pure_rho + c.pr, b.spent_approx_epsilon + c.ae," \
	"      b.spent_approx_delta + c.ad, b.delta) <= b.epsilon" \
	"  AND b.spent_approx_delta + c.ad <= mrfdp.exact_numeric(b.delta)" \
	"  AND (b.rho_cap IS NULL OR" \
	"       b.spent_zcdp_rho + b.spent_pure_rho + c.zr + c.pr <= mrfdp.exact_numeric(b.rho_cap))"

static ExecutorStart_hook_type PrevExecutorStart = NULL;

/* Relations read by the running top-level statement (TopMemoryContext). */
static Oid *StatementRelations = NULL;
static int	StatementRelationCount = 0;

/* The transaction that filled the set ended, during the statement that started then. */
static bool TrackedSetEnded = false;
static TimestampTz TrackedSetEndedIn = 0;

static void ForgetEndedTransactions(void);
static int	StatementRelationCapacity = 0;

/* Set while mrfdp queries its own catalog: those reads are not the statement's. */
static bool CatalogQueryRunning = false;

/* Adds one relation to the transaction's set. */
static void
AddRelation(Oid relid)
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
			AddRelation(rte->relid);
	}
}

/*
 * The transaction this library was loaded in, when it was loaded inside one
 * (on demand, without session_preload_libraries): the executor hook was not
 * there when the transaction started, so what it read before is unknown.
 */
static LocalTransactionId UntrackedTransaction = InvalidLocalTransactionId;
static TimestampTz UntrackedStatement = 0;

/* In a parallel worker: its plan fragment has started (see LedgerExecutorStart). */
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
 * ExecutorStart: remember what every query of the transaction reads.  A
 * parallel worker runs one plan fragment, always its first ExecutorStart
 * (ParallelQueryMain); any later one is a query nested in it, checked by
 * CheckWorkerQuery before it runs.
 */
static void
LedgerExecutorStart(QueryDesc *queryDesc, int eflags)
{
	bool		track = queryDesc->plannedstmt != NULL && !CatalogQueryRunning;

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
	if (PrevExecutorStart)
		PrevExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
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
 * Installs the executor hooks.  Loaded inside a transaction (on demand, not
 * preloaded), the hooks missed its start: that transaction is remembered and
 * may release nothing on the aggregate path (RequireTrackedTransaction).
 */
void
MrfLedgerInit(void)
{
	PrevExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = LedgerExecutorStart;
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
static void
RequireTrackedTransaction(const char *learner)
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

/* The extension's owner, who owns the catalog and runs the charge worker. */
static Oid
ExtensionOwner(void)
{
	Oid			schema;
	Oid			owner;

	if (!MrfExtensionSchemaAndOwner(&schema, &owner))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"mrfdp\" is not installed in this database")));
	return owner;
}

/*
 * Writes the exact decimal expansion of a finite double >= 0: x = m 2^e with
 * integer m, and for e < 0, m 2^e = m 5^-e / 10^-e, so the digits of m 5^-e
 * with the point moved -e places are exact.  Charges and caps are summed and
 * compared as numeric from these texts, so nothing is lost to rounding.
 */
void
MrfExactDecimal(char *buf, size_t len, double x)
{
	uint8	   *digits;			/* little-endian decimal digits */
	int			ndigits = 1;
	int			exp2;
	int			e;
	uint64		m;
	int			pos = 0;

	if (!(x > 0) || isinf(x))
	{
		strlcpy(buf, "0", len);
		return;
	}
	m = (uint64) ldexp(frexp(x, &exp2), 53);
	e = exp2 - 53;
	digits = palloc0(1200);
	/* digits = m */
	ndigits = 0;
	while (m > 0)
	{
		digits[ndigits++] = (uint8) (m % 10);
		m /= 10;
	}
	/* multiply by 2^e (e >= 0) or 5^-e (e < 0) */
	for (int step = 0; step < (e >= 0 ? e : -e); step++)
	{
		int			carry = 0;
		int			factor = e >= 0 ? 2 : 5;

		for (int i = 0; i < ndigits; i++)
		{
			int			v = digits[i] * factor + carry;

			digits[i] = (uint8) (v % 10);
			carry = v / 10;
		}
		if (carry > 0)
			digits[ndigits++] = (uint8) carry;
	}
	/* print with the point -e places from the right when e < 0 */
	{
		int			scale = e < 0 ? -e : 0;
		int			intdigits = ndigits - scale;

		if (intdigits <= 0)
		{
			buf[pos++] = '0';
			buf[pos++] = '.';
			for (int i = 0; i < -intdigits && pos < (int) len - 2; i++)
				buf[pos++] = '0';
			for (int i = ndigits - 1; i >= 0 && pos < (int) len - 1; i--)
				buf[pos++] = (char) ('0' + digits[i]);
		}
		else
		{
			for (int i = ndigits - 1; i >= 0 && pos < (int) len - 2; i--)
			{
				buf[pos++] = (char) ('0' + digits[i]);
				if (i == scale && scale > 0)
					buf[pos++] = '.';
			}
		}
	}
	if (pos >= (int) len - 1)
		elog(ERROR, "exact decimal does not fit its buffer");
	buf[pos] = '\0';
	pfree(digits);
}

PG_FUNCTION_INFO_V1(mrf_ledger_exact_numeric);
/* The exact value of a float8 as numeric (float8::numeric rounds to 15 digits). */
Datum
mrf_ledger_exact_numeric(PG_FUNCTION_ARGS)
{
	double		x = PG_GETARG_FLOAT8(0);
	char		buf[MRF_EXACT_DECIMAL_LEN];

	if (!(x >= 0) || isinf(x))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("only finite non-negative amounts are exact ledger values")));
	MrfExactDecimal(buf, sizeof(buf), x);
	PG_RETURN_DATUM(DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}

/* The ledger's name of a privacy notion. */
static const char *
NotionName(MrfNotion notion)
{
	return notion == MRF_NOTION_ZCDP ? "zCDP" : notion == MRF_NOTION_PURE ? "pure" : "approximate";
}

/* A request for the charge of nrelations relations, in a segment sized for them. */
static ChargeRequest *
NewRequest(dsm_segment **seg, const MrfCharge *charge, Oid role, bool protected_path,
		   const Oid *relids, int nrelations)
{
	ChargeRequest *req;
	Size		size;

	if (!(charge->rho >= 0 && charge->epsilon >= 0 && charge->delta >= 0) ||
		isinf(charge->rho) || isinf(charge->epsilon) || isinf(charge->delta))
		elog(ERROR, "invalid charge");
	if (nrelations < 1 || nrelations > CHARGE_MAX_RELATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a release may charge at most %d relations", CHARGE_MAX_RELATIONS),
				 errdetail("This one covers %d relations, their ancestors and descendants included.",
						   nrelations)));
	size = add_size(offsetof(ChargeRequest, rel), mul_size(nrelations, sizeof(ChargeRelation)));
	*seg = dsm_create(size, 0);
	req = dsm_segment_address(*seg);
	memset(req, 0, size);
	req->nrelations = nrelations;
	for (int i = 0; i < nrelations; i++)
		req->rel[i].relid = relids[i];
	req->database = MyDatabaseId;
	req->owner = ExtensionOwner();
	req->role = role;
	req->protected_path = protected_path;
	strlcpy(req->learner, charge->learner, NAMEDATALEN);
	strlcpy(req->notion, NotionName(charge->notion), sizeof(req->notion));
	MrfExactDecimal(req->rho, sizeof(req->rho), charge->notion == MRF_NOTION_ZCDP ? charge->rho : 0);
	MrfExactDecimal(req->epsilon, sizeof(req->epsilon), charge->notion == MRF_NOTION_ZCDP ? 0 : charge->epsilon);
	MrfExactDecimal(req->delta, sizeof(req->delta), charge->notion == MRF_NOTION_APPROX ? charge->delta : 0);
	req->rows = charge->rows;
	strlcpy(req->statement, debug_query_string ? debug_query_string : "", CHARGE_STATEMENT_LEN);
	req->status = CHARGE_PENDING;
	return req;
}

/* A relation's qualified name for messages, or its OID if it is gone. */
static const char *
RelationNameOrOid(Oid relid)
{
	char	   *name = get_rel_name(relid);

	if (name == NULL)
		return psprintf("%u", relid);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), name);
}

/*
 * Records, for the worker's ledger rows, whether the release is private and
 * each relation's name, owner and persistence as this backend sees them.
 */
static void
DescribeForLedger(ChargeRequest *req)
{
	req->not_private = MrfTestSeed >= 0;
	for (int i = 0; i < req->nrelations; i++)
	{
		ChargeRelationFacts *f = &req->rel[i].facts;
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(req->rel[i].relid));

		memset(f, 0, sizeof(*f));
		if (!HeapTupleIsValid(tup))
			continue;
		{
			Form_pg_class rel = (Form_pg_class) GETSTRUCT(tup);
			char	   *nspname = get_namespace_name(rel->relnamespace);

			strlcpy(f->nspname, nspname ? nspname : "", NAMEDATALEN);
			strlcpy(f->relname, NameStr(rel->relname), NAMEDATALEN);
			f->owner = rel->relowner;
			f->known = nspname != NULL;
			f->keep_oid = f->known && rel->relpersistence != RELPERSISTENCE_TEMP;
		}
		ReleaseSysCache(tup);
	}
}

/*
 * Makes a fresh snapshot the active one, so a catalog query sees every charge
 * committed so far, also those the charge worker committed during the
 * running statement.  GetLatestSnapshot is refused in parallel mode (a
 * parallel plan's leader and workers); a catalog snapshot is not, and is
 * always taken anew for a relation without a syscache (InvalidOid here).
 */
static void
PushFreshSnapshot(void)
{
	PushActiveSnapshot(GetCatalogSnapshot(InvalidOid));
}

/* The values of MrfChargeFits's amounts: $2..$5 of CHARGE_AMOUNTS_SQL. */
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
	values[3] = CStringGetTextDatum(charge->notion == MRF_NOTION_ZCDP ? "zCDP" :
									charge->notion == MRF_NOTION_PURE ? "pure" : "approximate");
}

/*
 * The first of relids whose budget the charge does not fit, by the charge
 * worker's own condition, read-only under the active snapshot; InvalidOid
 * when it fits them all (or none is protected).
 */
static Oid
FirstNotFitting(const Oid *relids, int n, const MrfCharge *charge)
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
	if (MrfCatalogQuery("WITH c AS (" CHARGE_AMOUNTS_SQL ")"
						" SELECT b.relation::oid FROM mrfdp.budget b, c"
						" WHERE b.relation::oid = ANY ($1) AND NOT (" CHARGE_FITS_SQL ")"
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

/* See ledger.h. */
bool
MrfChargeFits(Oid relid, const MrfCharge *charge)
{
	return !OidIsValid(FirstNotFitting(&relid, 1, charge));
}

/*
 * The error for a release that does not fit relid's budget: what it asked
 * for, and the largest amount of its own notion that fits now (what is left,
 * as that notion counts it), read under a fresh snapshot.
 */
static void
pg_attribute_noreturn()
ReportOverBudget(Oid relid, const MrfCharge *charge)
{
	const char *rel = RelationNameOrOid(relid);
	MrfBudget	budget;
	bool		found;
	bool		may_read;
	double		fit = 0;
	double		fit_delta = 0;
	char	   *asked;
	char	   *allows = NULL;

	PushFreshSnapshot();
	SPI_connect();
	found = MrfReadBudget(relid, &budget);
	may_read = found && MrfMayReadBudget(relid, GetUserId());
	if (!may_read)
		found = false;
	else if (budget.delta > 0)
	{
		switch (charge->notion)
		{
			case MRF_NOTION_ZCDP:
				fit = MrfLargestFit(relid, &budget, MRF_FIT_ZCDP, 0);
				break;
			case MRF_NOTION_PURE:
				fit = MrfLargestFit(relid, &budget, MRF_FIT_PURE, 0);
				break;
			case MRF_NOTION_APPROX:
				fit = MrfLargestFit(relid, &budget, MRF_FIT_APPROX_EPSILON, charge->delta);
				if (fit == 0)
					fit_delta = MrfLargestFit(relid, &budget, MRF_FIT_APPROX_DELTA, 0);
				break;
		}
	}
	else if (charge->notion == MRF_NOTION_PURE)
		fit = MrfLargestFit(relid, &budget, MRF_FIT_PURE, 0);
	SPI_finish();
	PopActiveSnapshot();

	switch (charge->notion)
	{
		case MRF_NOTION_ZCDP:
			asked = psprintf("rho = %s (zCDP)", MrfDoubleText(charge->rho));
			if (fit > 0)
				allows = psprintf("at most rho = %s", MrfDoubleText(fit));
			break;
		case MRF_NOTION_PURE:
			asked = psprintf("epsilon = %s (pure DP)", MrfDoubleText(charge->epsilon));
			if (fit > 0)
				allows = psprintf("at most epsilon = %s", MrfDoubleText(fit));
			break;
		default:
			asked = psprintf("epsilon = %s and delta = %s ((epsilon, delta)-DP)",
							 MrfDoubleText(charge->epsilon), MrfDoubleText(charge->delta));
			if (fit > 0)
				allows = psprintf("at most epsilon = %s at that delta", MrfDoubleText(fit));
			else if (fit_delta > 0)
				allows = psprintf("no epsilon at that delta, and at most delta = %s (with a vanishing epsilon)",
								  MrfDoubleText(fit_delta));
			break;
	}
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
				 errhint("The relation's owner can raise the budget with mrfdp.protect(); mrfdp.remaining('%s') shows what fits.",
						 rel)));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("privacy budget of relation %s cannot cover this release", rel),
			 errdetail("%s asked for %s; what is left of the budget allows %s. Nothing was released or charged.",
					   charge->learner, asked, allows),
			 errhint("Ask for at most that much, or have the relation's owner raise the budget with mrfdp.protect(); mrfdp.remaining('%s') shows what fits.",
					 rel)));
}

/* The charge a request carries (its amounts' texts are exact, so this is exact). */
static MrfCharge
ChargeOfRequest(const ChargeRequest *req)
{
	MrfCharge	charge;

	memset(&charge, 0, sizeof(charge));
	charge.learner = pstrdup(req->learner);
	charge.notion = strcmp(req->notion, "zCDP") == 0 ? MRF_NOTION_ZCDP :
		strcmp(req->notion, "pure") == 0 ? MRF_NOTION_PURE : MRF_NOTION_APPROX;
	charge.rho = float8in_internal(pstrdup(req->rho), NULL, "double precision", req->rho);
	charge.epsilon = float8in_internal(pstrdup(req->epsilon), NULL, "double precision", req->epsilon);
	charge.delta = float8in_internal(pstrdup(req->delta), NULL, "double precision", req->delta);
	charge.rows = req->rows;
	return charge;
}

/* Runs the charge worker on a request and waits for it to finish. */
static void
RunChargeWorker(dsm_segment *seg, ChargeRequest *req)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	BgwHandleStatus status;
	pid_t		pid;

	DescribeForLedger(req);
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, "mrfdp", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "mrf_charge_worker_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "mrfdp charge", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "mrfdp charge", BGW_MAXLEN);
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the mrfdp charge worker"),
				 errdetail("Nothing was released or charged."),
				 errhint("Raise max_worker_processes.")));
	status = WaitForBackgroundWorkerStartup(handle, &pid);
	if (status != BGWH_STARTED && status != BGWH_STOPPED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the mrfdp charge worker"),
				 errdetail("Nothing was released or charged.")));
	status = WaitForBackgroundWorkerShutdown(handle);
	if (status != BGWH_STOPPED)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("lost contact with the mrfdp charge worker"),
				 errdetail("The release was withheld; the budget may have been charged.")));

	pg_read_barrier();
	switch (req->status)
	{
		case CHARGE_COMMITTED:
			return;
		case CHARGE_OVER_BUDGET:
			{
				MrfCharge	charge = ChargeOfRequest(req);

				ReportOverBudget(req->failed_relation, &charge);
			}
			break;
		case CHARGE_NOT_PROTECTED:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("relation %s is not protected", RelationNameOrOid(req->failed_relation)),
					 errdetail("Nothing was released or charged.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the mrfdp charge worker failed"),
					 errdetail("Nothing was released; see the server log for the worker's error.")));
	}
}

/*
 * Adds the inheritance and partition ancestors of every relation read: a
 * protected parent covers its children, whichever name the query used.
 */
static void
AddAncestors(void)
{
	Oid			types[1] = {OIDARRAYOID};
	Datum	   *elems = palloc(sizeof(Datum) * StatementRelationCount);
	Datum		values[1];
	uint64		found;
	Oid		   *ancestors;

	for (int i = 0; i < StatementRelationCount; i++)
		elems[i] = ObjectIdGetDatum(StatementRelations[i]);
	values[0] = PointerGetDatum(construct_array(elems, StatementRelationCount, OIDOID,
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
		AddRelation(ancestors[i]);
}

/*
 * Adds the logical table of every Citus shard read (a shard read locally on
 * the coordinator), so its budget is charged whatever name the read used.
 */
static void
AddCitusLogicalRelations(void)
{
	ListCell   *lc;

	foreach(lc, MrfCitusLogicalRelations(StatementRelations, StatementRelationCount))
		AddRelation(lfirst_oid(lc));
}

/* Whether any of the relations is protected, by a fresh look at the catalog. */
static bool
AnyProtected(const Oid *relids, int n)
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
static void
RecordUnprotected(const MrfCharge *charge)
{
	char		amount[MRF_EXACT_DECIMAL_LEN];
	char		delta[MRF_EXACT_DECIMAL_LEN];

	MrfExactDecimal(amount, sizeof(amount), charge->notion == MRF_NOTION_ZCDP ? charge->rho : charge->epsilon);
	MrfExactDecimal(delta, sizeof(delta), charge->notion == MRF_NOTION_APPROX ? charge->delta : 0);
	SPI_connect();
	for (int i = 0; i < StatementRelationCount; i++)
	{
		Oid			types[9] = {OIDOID, OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID, TEXTOID, BOOLOID};
		Datum		values[9];

		values[0] = ObjectIdGetDatum(StatementRelations[i]);
		values[1] = ObjectIdGetDatum(GetUserId());
		values[2] = CStringGetTextDatum(charge->learner);
		values[3] = CStringGetTextDatum(NotionName(charge->notion));
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

	if (ProtectedReadCount == StatementRelationCount && MyProc != NULL &&
		ProtectedReadTransaction == MyProc->lxid &&
		ProtectedReadStatement == GetCurrentStatementStartTimestamp())
		return;
	ProtectedReadN = 0;
	if (StatementRelationCount > 0 && OidIsValid(get_extension_oid("mrfdp", true)))
	{
		elems = palloc(sizeof(Datum) * StatementRelationCount);
		for (int i = 0; i < StatementRelationCount; i++)
			elems[i] = ObjectIdGetDatum(StatementRelations[i]);
		values[0] = PointerGetDatum(construct_array(elems, StatementRelationCount, OIDOID,
													sizeof(Oid), true, TYPALIGN_INT));
		PushFreshSnapshot();
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
	ProtectedReadCount = StatementRelationCount;
}

/* See ledger.h. */
bool
MrfStatementReadsProtected(const char *learner)
{
	RequireTrackedTransaction(learner);
	if (StatementRelationCount == 0)
		return false;
	LookUpProtectedReads();
	return ProtectedReadN > 0;
}

/* See ledger.h. */
void
MrfCheckStatementBudget(const MrfCharge *charge)
{
	Oid			failed;

	if (!MrfStatementReadsProtected(charge->learner))
		return;
	PushFreshSnapshot();
	failed = FirstNotFitting(ProtectedRead, ProtectedReadN, charge);
	PopActiveSnapshot();
	if (OidIsValid(failed))
		ReportOverBudget(failed, charge);
}

/* Aggregate path: charges every protected relation the statement reads. */
void
MrfChargeStatement(const MrfCharge *charge)
{
	dsm_segment *seg;
	ChargeRequest *req;

	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot release a model inside a parallel worker", charge->learner),
				 errhint("Run the query with max_parallel_workers_per_gather = 0.")));
	RequireTrackedTransaction(charge->learner);
	MrfCitusRefuseOffCoordinator(charge->learner);

	if (StatementRelationCount == 0)
		return;					/* nothing was read: VALUES, functions of constants */
	AddCitusLogicalRelations();
	AddAncestors();
	if (!IsInParallelMode() && !AnyProtected(StatementRelations, StatementRelationCount))
	{
		RecordUnprotected(charge);
		return;
	}
	req = NewRequest(&seg, charge, GetUserId(), false, StatementRelations, StatementRelationCount);
	PG_TRY();
	{
		RunChargeWorker(seg, req);
	}
	PG_FINALLY();
	{
		dsm_detach(seg);
	}
	PG_END_TRY();
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
MrfChargeRelation(Oid relid, Oid role, const MrfCharge *charge)
{
	dsm_segment *seg;
	ChargeRequest *req;
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
	if (found > CHARGE_MAX_RELATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a release may charge at most %d relations", CHARGE_MAX_RELATIONS),
				 errdetail("Relation %s has " UINT64_FORMAT " protected relations among its ancestors and descendants.",
						   RelationNameOrOid(relid), found)));
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

	req = NewRequest(&seg, charge, role, true, family, (int) found);
	PG_TRY();
	{
		RunChargeWorker(seg, req);
	}
	PG_FINALLY();
	{
		dsm_detach(seg);
	}
	PG_END_TRY();
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
	SetUserIdAndSecContext(ExtensionOwner(),
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
						   " AND mrfdp.holds_learning_marker(g.role)",
						   2, types, values, NULL, true);
	SPI_finish();
	if (granted == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to learn from relation %s", get_rel_name(relid)),
				 errhint("The relation's owner can allow it with mrfdp.grant_learning().")));
}

/* Worker: errors out (the transaction aborts) after setting the answer. */
static void
pg_attribute_noreturn()
WorkerRefuse(ChargeRequest *req, ChargeStatus status, Oid relid)
{
	req->failed_relation = relid;
	pg_write_barrier();
	req->status = status;
	ereport(ERROR,
			(errmsg("mrfdp charge refused for relation %u (%s)", relid,
					status == CHARGE_OVER_BUDGET ? "over budget" : "not protected")));
}

/* Background worker: checks and charges in one transaction, then commits. */
void
mrf_charge_worker_main(Datum main_arg)
{
	dsm_segment *seg;
	ChargeRequest *req;

	BackgroundWorkerUnblockSignals();
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("mrfdp charge worker could not attach to its request")));
	req = dsm_segment_address(seg);
	BackgroundWorkerInitializeConnectionByOid(req->database, req->owner, 0);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "mrfdp charge");
	/* never wait for ever on a budget row the releasing session itself holds */
	SetConfigOption("lock_timeout", "10s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("search_path", "pg_catalog", PGC_SUSET, PGC_S_OVERRIDE);

	for (int i = 0; i < req->nrelations; i++)
	{
		Oid			types[5] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
		Datum		values[5];
		int			rc;

		values[0] = ObjectIdGetDatum(req->rel[i].relid);
		values[1] = CStringGetTextDatum(req->rho);
		values[2] = CStringGetTextDatum(req->epsilon);	/* pure or approximate */
		values[3] = CStringGetTextDatum(req->delta);
		values[4] = CStringGetTextDatum(req->notion);

		/*
		 * Check and charge in one statement: concurrent charges of the same
		 * relation serialise on the row lock and each re-checks the fit
		 * against the row it finally updates (READ COMMITTED re-evaluation).
		 */
		rc = SPI_execute_with_args("WITH c AS (" CHARGE_AMOUNTS_SQL ")"
								   " UPDATE mrfdp.budget b SET"
								   "  spent_zcdp_rho = b.spent_zcdp_rho + c.zr,"
								   "  spent_pure_epsilon = b.spent_pure_epsilon + c.pe,"
								   "  spent_pure_rho = b.spent_pure_rho + c.pr,"
								   "  spent_approx_epsilon = b.spent_approx_epsilon + c.ae,"
								   "  spent_approx_delta = b.spent_approx_delta + c.ad,"
								   "  releases = b.releases + 1"
								   " FROM c WHERE b.relation = $1::oid::regclass AND " CHARGE_FITS_SQL
								   " RETURNING 1",
								   5, types, values, NULL, false, 0);
		if (rc != SPI_OK_UPDATE_RETURNING)
			elog(ERROR, "mrfdp charge update failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 1)
			req->rel[i].protected = true;
		else
		{
			rc = SPI_execute_with_args("SELECT 1 FROM mrfdp.budget WHERE relation = $1::oid::regclass",
									   1, types, values, NULL, true, 0);
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "mrfdp budget lookup failed");
			if (SPI_processed > 0)
				WorkerRefuse(req, CHARGE_OVER_BUDGET, req->rel[i].relid);
			if (req->protected_path)
				WorkerRefuse(req, CHARGE_NOT_PROTECTED, req->rel[i].relid);
			req->rel[i].protected = false;
		}
	}

	for (int i = 0; i < req->nrelations; i++)
	{
		ChargeRelationFacts *f = &req->rel[i].facts;
		Oid			types[16] = {OIDOID, BOOLOID, OIDOID, TEXTOID, TEXTOID, TEXTOID,
			TEXTOID, TEXTOID, INT8OID, TEXTOID, BOOLOID, BOOLOID, TEXTOID, TEXTOID, OIDOID, BOOLOID};
		Datum		values[16];
		int			rc;

		values[0] = ObjectIdGetDatum(req->rel[i].relid);
		values[1] = BoolGetDatum(req->rel[i].protected);
		values[2] = ObjectIdGetDatum(req->role);
		values[3] = CStringGetTextDatum(req->learner);
		values[4] = CStringGetTextDatum(req->notion);
		values[5] = CStringGetTextDatum(req->rho);
		values[6] = CStringGetTextDatum(req->epsilon);
		values[7] = CStringGetTextDatum(req->delta);
		values[8] = Int64GetDatum(req->rows);
		values[9] = CStringGetTextDatum(req->statement);
		values[10] = BoolGetDatum(f->keep_oid);
		values[11] = BoolGetDatum(f->known);
		values[12] = CStringGetTextDatum(f->nspname);
		values[13] = CStringGetTextDatum(f->relname);
		values[14] = ObjectIdGetDatum(f->owner);
		values[15] = BoolGetDatum(!req->not_private);

		/*
		 * Name and owner as the releasing backend saw them.  The OID is kept
		 * only if that backend saw a permanent relation and this transaction
		 * sees it committed: never an OID that may end up naming nothing (a
		 * relation the caller created or dropped and may roll back or commit).
		 */
		rc = SPI_execute_with_args(
								   "INSERT INTO mrfdp.ledger (relation, relation_name, relation_owner, protected,"
								   " role, learner, notion, rho, epsilon, delta, rows_read, statement, private)"
								   " SELECT CASE WHEN $11 AND c.oid IS NOT NULL THEN c.oid::regclass END,"
								   "  CASE WHEN $12 THEN quote_ident($13) || '.' || quote_ident($14)"
								   "   ELSE coalesce(quote_ident(n.nspname) || '.' || quote_ident(c.relname), r.oid::text) END,"
								   "  CASE WHEN $12 THEN $15 ELSE c.relowner END::regrole,"
								   "  $2, $3::oid::regrole, $4, $5,"
								   "  CASE WHEN $5 = 'zCDP' THEN $6::float8 END,"
								   "  CASE WHEN $5 <> 'zCDP' THEN $7::float8 END,"
								   "  CASE WHEN $5 = 'approximate' THEN $8::float8 END,"
								   "  $9, $10, $16"
								   " FROM (SELECT $1::oid AS oid) r"
								   "  LEFT JOIN pg_class c ON c.oid = r.oid"
								   "  LEFT JOIN pg_namespace n ON n.oid = c.relnamespace",
								   16, types, values, NULL, false, 0);
		if (rc != SPI_OK_INSERT)
			elog(ERROR, "mrfdp ledger insert failed: %s", SPI_result_code_string(rc));
	}

	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);

	/* Only a committed charge is reported as one. */
	pg_write_barrier();
	req->status = CHARGE_COMMITTED;
	dsm_detach(seg);
	proc_exit(0);
}
