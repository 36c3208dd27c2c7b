/*
 * ledger/worker.c - the charge worker.  A release is charged before it is
 * returned, in a transaction of its own: a dynamic background worker
 * connects as the extension's owner, checks and charges every protected
 * relation with one UPDATE ... WHERE <fits> per relation (the row lock makes
 * check-and-charge atomic under concurrency), appends the ledger rows and
 * commits.  Only after that commit does the caller see the model, so
 * ROLLBACK, an exception block or a later error in the same statement cannot
 * undo the charge.
 *
 * The protected path charges before it reads (its charge is known from the
 * options), when n is not yet known: its ledger rows are written with
 * rows_read -1, and once the rows are counted they are settled
 * (MrfSettleRows): rows_read becomes n, the one update the ledger's
 * append-only trigger allows besides the drop trigger's.  The worker that
 * committed the charge settles them too: after its commit it waits, outside
 * any transaction, for the caller's n (or for the caller's request to go
 * away: its error, its end), and settles in a second transaction; one
 * worker start per release instead of two (docs/privacy.md 9.5).  It holds
 * a background-worker slot while the caller counts.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg/ledger/decimal.h"
#include "pg/ledger/catalog.h"
#include "pg/ledger/worker.h"
#include "pg/driver/run.h"

/* The worker's answer. */
typedef enum ChargeStatus
{
	CHARGE_PENDING = 0,
	CHARGE_COMMITTED = 1,
	CHARGE_OVER_BUDGET = 2,
	CHARGE_NOT_PROTECTED = 3
} ChargeStatus;

/* The settling of a charge's ledger rows by the worker that committed it. */
typedef enum SettlePhase
{
	SETTLE_NONE = 0,			/* the caller has not counted yet */
	SETTLE_GO = 1,				/* rows holds n: settle */
	SETTLE_ABANDONED = 2,		/* the caller's request went away: rows_read stays -1 */
	SETTLE_DONE = 3
} SettlePhase;

#define CHARGE_STATEMENT_LEN 1024

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
	int64		ledger_id;		/* the ledger row: filled by the worker, or settled */
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
	bool		settle;			/* only set rows_read of the ledger rows rel[].ledger_id */
	double		typed;			/* MrfCharge.typed, for the over-budget message */
	char		learner[NAMEDATALEN];
	char		notion[16];
	char		rho[MRF_EXACT_DECIMAL_LEN];		/* exact decimal texts of the charge */
	char		epsilon[MRF_EXACT_DECIMAL_LEN];
	char		delta[MRF_EXACT_DECIMAL_LEN];
	int64		rows;
	char		statement[CHARGE_STATEMENT_LEN];
	bool		not_private;	/* mrfdp.test_seed keyed the release (DescribeForLedger) */
	bool		await_settle;	/* after the charge, wait to settle (MrfSettleRows) */
	pid_t		caller_pid;		/* the releasing backend */
	pid_t		worker_pid;		/* the worker, once started */
	volatile int settle_phase;	/* SettlePhase, set by the caller */
	/* answer */
	volatile int status;
	Oid			failed_relation;
	/* the relations, last */
	int			nrelations;
	ChargeRelation rel[FLEXIBLE_ARRAY_MEMBER];
} ChargeRequest;

PGDLLEXPORT void mrf_charge_worker_main(Datum main_arg);

/* A charge worker that committed a charge and waits to settle it (see the header). */
struct MrfChargeSession
{
	dsm_segment *seg;
	BackgroundWorkerHandle *handle;
	ChargeRequest *req;
	pid_t		pid;
};

/* Wakes the backend pid (the caller or the worker), if it is still there. */
static void
WakeBackend(pid_t pid)
{
	PGPROC	   *proc = pid != 0 ? BackendPidGetProc(pid) : NULL;

	if (proc != NULL)
		SetLatch(&proc->procLatch);
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
	if (nrelations < 1 || nrelations > MRF_CHARGE_MAX_RELATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a release may charge at most %d relations", MRF_CHARGE_MAX_RELATIONS),
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
	req->owner = MrfExtensionOwner();
	req->role = role;
	req->protected_path = protected_path;
	strlcpy(req->learner, charge->learner, NAMEDATALEN);
	strlcpy(req->notion, MrfNotionName(charge->notion), sizeof(req->notion));
	MrfExactDecimal(req->rho, sizeof(req->rho), charge->notion == MRF_NOTION_ZCDP ? charge->rho : 0);
	MrfExactDecimal(req->epsilon, sizeof(req->epsilon), charge->notion == MRF_NOTION_ZCDP ? 0 : charge->epsilon);
	MrfExactDecimal(req->delta, sizeof(req->delta), charge->notion == MRF_NOTION_APPROX ? charge->delta : 0);
	req->rows = charge->rows;
	req->typed = charge->typed;
	strlcpy(req->statement, debug_query_string ? debug_query_string : "", CHARGE_STATEMENT_LEN);
	req->status = CHARGE_PENDING;
	return req;
}

/*
 * Records, for the worker's ledger rows, whether the release is private and
 * each relation's name, owner and persistence as this backend sees them.
 */
static void
DescribeForLedger(ChargeRequest *req)
{
	req->not_private = MrfTestSeed >= 0;
	for (int i = 0; i < req->nrelations && !req->settle; i++)
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
	charge.typed = req->typed;
	return charge;
}

/*
 * Waits until a worker that stays to settle has answered (its status is no
 * longer pending) or has stopped; BGWH_STARTED while it still runs.
 */
static BgwHandleStatus
WaitForAnswer(BackgroundWorkerHandle *handle, ChargeRequest *req)
{
	for (;;)
	{
		pid_t		pid;
		BgwHandleStatus status;

		pg_read_barrier();
		if (req->status != CHARGE_PENDING)
			return BGWH_STARTED;
		status = GetBackgroundWorkerPid(handle, &pid);
		if (status == BGWH_STOPPED || status == BGWH_POSTMASTER_DIED)
		{
			pg_read_barrier();
			return status;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Runs the charge worker on a request and waits for it to finish, or (a
 * request that awaits its settling) for its answer; session (may be NULL)
 * gets the worker's handle.
 */
static void
RunChargeWorker(dsm_segment *seg, ChargeRequest *req, struct MrfChargeSession *session)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	BgwHandleStatus status;
	pid_t		pid = 0;

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

	/*
	 * A settling that cannot run leaves rows_read -1 (the charge and the
	 * release stand): it must never cost a release that was paid for.
	 */
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		if (req->settle)
			return;
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the mrfdp charge worker"),
				 errdetail("Nothing was released or charged."),
				 errhint("Raise max_worker_processes.")));
	}
	status = WaitForBackgroundWorkerStartup(handle, &pid);
	if (status != BGWH_STARTED && status != BGWH_STOPPED && req->settle)
		return;
	if (status != BGWH_STARTED && status != BGWH_STOPPED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the mrfdp charge worker"),
				 errdetail("Nothing was released or charged.")));
	req->worker_pid = pid;
	if (session != NULL)
	{
		session->handle = handle;
		session->pid = pid;
	}
	status = req->await_settle ? WaitForAnswer(handle, req) : WaitForBackgroundWorkerShutdown(handle);
	if (status != BGWH_STOPPED && !(req->await_settle && status == BGWH_STARTED))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("lost contact with the mrfdp charge worker"),
				 errdetail("The release was withheld; the budget may have been charged.")));

	pg_read_barrier();
	if (req->settle)
		return;					/* settled, or left -1 (see above) */
	switch (req->status)
	{
		case CHARGE_COMMITTED:
			return;
		case CHARGE_OVER_BUDGET:
			{
				MrfCharge	charge = ChargeOfRequest(req);

				MrfReportOverBudget(req->failed_relation, &charge);
			}
			break;
		case CHARGE_NOT_PROTECTED:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("relation %s is not protected", MrfRelationNameOrOid(req->failed_relation)),
					 errdetail("Nothing was released or charged.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the mrfdp charge worker failed"),
					 errdetail("Nothing was released; see the server log for the worker's error.")));
	}
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

/*
 * Worker: settles the ledger rows of a charge committed before the read
 * (rows_read -1) with the number of rows read.  A row already settled is
 * left as it is.
 */
static void
SettleLedgerRows(ChargeRequest *req)
{
	bool		isnull;
	Datum		settles;

	/*
	 * Under 0.1.0's catalog (this library before ALTER EXTENSION UPDATE)
	 * the append-only trigger allows no settling: rows_read stays -1.
	 */
	if (SPI_execute("SELECT extversion <> '0.1.0' FROM pg_extension WHERE extname = 'mrfdp'",
					true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mrfdp extension lookup failed");
	settles = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull || !DatumGetBool(settles))
		return;
	for (int i = 0; i < req->nrelations; i++)
	{
		Oid			types[2] = {INT8OID, INT8OID};
		Datum		values[2] = {Int64GetDatum(req->rel[i].ledger_id), Int64GetDatum(req->rows)};
		int			rc;

		rc = SPI_execute_with_args("UPDATE mrfdp.ledger SET rows_read = $2 WHERE id = $1 AND rows_read = -1",
								   2, types, values, NULL, false, 0);
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "mrfdp ledger settle failed: %s", SPI_result_code_string(rc));
	}
}

/*
 * Worker, after its charge committed: waits (outside any transaction) for
 * the caller's n, then settles the ledger rows in a transaction of its own.
 * The caller's request going away (its error or end detaches the segment)
 * or the caller's exit ends the wait, rows_read left -1.
 */
static void
AwaitSettle(ChargeRequest *req)
{
	for (;;)
	{
		int			phase;

		pg_read_barrier();
		phase = req->settle_phase;
		if (phase == SETTLE_ABANDONED || BackendPidGetProc(req->caller_pid) == NULL)
			return;
		if (phase == SETTLE_GO)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pg_read_barrier();
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "mrfdp settle");
	SettleLedgerRows(req);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	pg_write_barrier();
	req->settle_phase = SETTLE_DONE;
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

	/*
	 * The charge is durable before the caller reads or releases anything
	 * (privacy.md 9.3): with synchronous_commit = off from a database or
	 * role setting (the worker connects with them), the commit could sit
	 * unflushed after the model was returned, and a crash then (any
	 * backend's ends the server's shared WAL buffers) would lose it and
	 * give the budget back.  At least a local flush; a stronger setting
	 * (waiting for synchronous standbys) stays.
	 */
	if (synchronous_commit < SYNCHRONOUS_COMMIT_LOCAL_FLUSH)
		SetConfigOption("synchronous_commit", "local", PGC_SUSET, PGC_S_OVERRIDE);

	if (req->settle)
		SettleLedgerRows(req);
	for (int i = 0; i < req->nrelations && !req->settle; i++)
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
		rc = SPI_execute_with_args("WITH c AS (" MRF_CHARGE_AMOUNTS_SQL ")"
								   " UPDATE mrfdp.budget b SET"
								   "  spent_zcdp_rho = b.spent_zcdp_rho + c.zr,"
								   "  spent_pure_epsilon = b.spent_pure_epsilon + c.pe,"
								   "  spent_pure_rho = b.spent_pure_rho + c.pr,"
								   "  spent_approx_epsilon = b.spent_approx_epsilon + c.ae,"
								   "  spent_approx_delta = b.spent_approx_delta + c.ad,"
								   "  releases = b.releases + 1"
								   " FROM c WHERE b.relation = $1::oid::regclass AND " MRF_CHARGE_FITS_SQL
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

	for (int i = 0; i < req->nrelations && !req->settle; i++)
	{
		ChargeRelationFacts *f = &req->rel[i].facts;
		Oid			types[17] = {OIDOID, BOOLOID, OIDOID, TEXTOID, TEXTOID, TEXTOID,
			TEXTOID, TEXTOID, INT8OID, TEXTOID, BOOLOID, BOOLOID, TEXTOID, TEXTOID, OIDOID, BOOLOID, INT8OID};
		Datum		values[17];
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
		 * The row's id first, for MrfSettleRows: with Citus loaded, the
		 * INSERT ... SELECT below may run through Citus's executor, which
		 * reports no RETURNING row and whose sequence call is not this
		 * session's.
		 */
		rc = SPI_execute("SELECT nextval(pg_get_serial_sequence('mrfdp.ledger', 'id'))", false, 1);
		if (rc != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "mrfdp ledger id failed: %s", SPI_result_code_string(rc));
		{
			bool		isnull;

			req->rel[i].ledger_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
																SPI_tuptable->tupdesc, 1, &isnull));
		}
		values[16] = Int64GetDatum(req->rel[i].ledger_id);

		/*
		 * Name and owner as the releasing backend saw them.  The OID is kept
		 * only if that backend saw a permanent relation and this transaction
		 * sees it committed: never an OID that may end up naming nothing (a
		 * relation the caller created or dropped and may roll back or commit).
		 */
		rc = SPI_execute_with_args(
								   "INSERT INTO mrfdp.ledger (id, relation, relation_name, relation_owner, protected,"
								   " role, learner, notion, rho, epsilon, delta, rows_read, statement, private)"
								   " SELECT $17, CASE WHEN $11 AND c.oid IS NOT NULL THEN c.oid::regclass END,"
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
								   17, types, values, NULL, false, 0);
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
	WakeBackend(req->caller_pid);
	if (req->await_settle && !req->settle)
		AwaitSettle(req);
	dsm_detach(seg);
	proc_exit(0);
}

/*
 * The caller's side of a waiting worker's segment going away (the settling
 * done, or the caller's error or transaction end releasing it): a worker
 * still waiting stops, leaving rows_read -1.
 */
static void
AbandonSettle(dsm_segment *seg, Datum arg)
{
	ChargeRequest *req = dsm_segment_address(seg);

	pg_read_barrier();
	if (req->settle_phase == SETTLE_NONE)
	{
		req->settle_phase = SETTLE_ABANDONED;
		pg_write_barrier();
		WakeBackend(req->worker_pid);
	}
}

/* See ledger/worker.h. */
void
MrfChargeInWorker(const MrfCharge *charge, Oid role, bool protected_path,
			 const Oid *relids, int nrelations, MrfLedgerReceipt *receipt)
{
	dsm_segment *seg;
	ChargeRequest *req;

	struct MrfChargeSession *session = NULL;

	req = NewRequest(&seg, charge, role, protected_path, relids, nrelations);
	if (receipt != NULL)
	{
		receipt->session = NULL;
		if (charge->rows < 0)
		{
			/* the worker stays to settle: the segment stays until then */
			session = palloc0(sizeof(*session));
			session->seg = seg;
			session->req = req;
			req->await_settle = true;
			req->caller_pid = MyProcPid;
			on_dsm_detach(seg, AbandonSettle, PointerGetDatum(NULL));
		}
	}
	PG_TRY();
	{
		RunChargeWorker(seg, req, session);
		if (receipt != NULL)
		{
			receipt->nrows = nrelations;
			receipt->ids = palloc(sizeof(int64) * nrelations);
			for (int i = 0; i < nrelations; i++)
				receipt->ids[i] = req->rel[i].ledger_id;
			receipt->session = session;
		}
	}
	PG_CATCH();
	{
		dsm_detach(seg);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (session == NULL)
		dsm_detach(seg);
}

/* See ledger/worker.h. */
void
MrfSettleRows(const MrfLedgerReceipt *receipt, const MrfCharge *charge, int64 rows)
{
	dsm_segment *seg;
	ChargeRequest *req;
	Oid		   *relids = palloc0(sizeof(Oid) * Max(receipt->nrows, 1));
	MrfCharge	settle = *charge;

	if (receipt->nrows < 1)
		return;
	if (receipt->session != NULL)
	{
		struct MrfChargeSession *session = receipt->session;

		/* the worker that committed the charge settles it, then exits */
		session->req->rows = rows;
		pg_write_barrier();
		session->req->settle_phase = SETTLE_GO;
		WakeBackend(session->pid);
		PG_TRY();
		{
			(void) WaitForBackgroundWorkerShutdown(session->handle);
		}
		PG_FINALLY();
		{
			dsm_detach(session->seg);
		}
		PG_END_TRY();
		pfree(relids);
		return;
	}
	settle.rows = rows;
	req = NewRequest(&seg, &settle, GetUserId(), true, relids, receipt->nrows);
	req->settle = true;
	for (int i = 0; i < receipt->nrows; i++)
		req->rel[i].ledger_id = receipt->ids[i];
	PG_TRY();
	{
		RunChargeWorker(seg, req, NULL);
	}
	PG_FINALLY();
	{
		dsm_detach(seg);
	}
	PG_END_TRY();
	pfree(relids);
}
