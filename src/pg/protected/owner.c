/*
 * protected/owner.c - reading a protected relation as its owner (see
 * protected/owner.h and the header of protected/learn_from.c): the
 * owner-rights call and its bodies, and the refusals of sources whose read
 * could fail on their data.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "core/rows.h"
#include "pg/citus/cluster.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/read_kary.h"
#include "pg/protected/owner.h"

/* Rows fetched from the cursor at a time. */
#define FETCH_ROWS 10000

/*
 * Whether reading a relation as its owner could fail on (or run code over)
 * its data: only plain tables, partitioned tables and materialized views
 * whose owner is not subject to its own row-level security are plain scans.
 * A foreign table's wrapper may reject a malformed line or a remote value; a
 * view (a table can still become one by CREATE RULE "_RETURN") runs its
 * owner's query and functions; a policy forced on the owner may raise on a
 * row.  Whether such a read fails is a deterministic function of the data,
 * which no charge would make private.  A materialized view that has not
 * been populated (created WITH NO DATA, or refreshed so) fails every read:
 * a catalog fact, refused before the charge like the others, rather than
 * charged and then withheld as a failed read.
 */
static bool
IsFallibleSource(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class form;
	bool		fallible;

	if (!HeapTupleIsValid(tup))
		return true;			/* gone meanwhile: nothing safe to say about it */
	form = (Form_pg_class) GETSTRUCT(tup);
	fallible = (form->relkind != RELKIND_RELATION && form->relkind != RELKIND_PARTITIONED_TABLE &&
				form->relkind != RELKIND_MATVIEW) ||
		(form->relkind == RELKIND_MATVIEW && !form->relispopulated) ||
		(form->relrowsecurity && form->relforcerowsecurity);
	ReleaseSysCache(tup);
	return fallible;
}

/* Whether materialized view relid holds data (pg_class.relispopulated). */
static bool
MatviewIsPopulated(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		populated;

	if (!HeapTupleIsValid(tup))
		return false;
	populated = ((Form_pg_class) GETSTRUCT(tup))->relispopulated;
	ReleaseSysCache(tup);
	return populated;
}

/*
 * The refusal of a fallible source (IsFallibleSource): from the schema
 * before the charge, or from the read's plan after it (a child attached
 * during the call).
 */
void
pg_attribute_noreturn()
MrfRefuseFallibleSource(Oid relid, const char *fname)
{
	char		relkind = get_rel_relkind(relid);
	const char *name = get_rel_name(relid);

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a relation %s would read was dropped during the call", fname)));
	if (relkind == RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot read foreign table %s", fname, name),
				 errdetail("Whether a foreign table can be read depends on its data (a malformed line, a remote error), which would tell the caller about the data."),
				 errhint("Copy the data into a table, or a materialized view, and protect that.")));
	if (relkind == RELKIND_MATVIEW && !MatviewIsPopulated(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s cannot read materialized view %s, which has not been populated", fname, name),
				 errdetail("Every read of it fails until it is populated, whatever its data."),
				 errhint("Its owner can populate it with REFRESH MATERIALIZED VIEW.")));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot read relation %s, which is not a table or materialized view", fname, name),
				 errdetail("Reading a view runs its owner's query and functions, which could fail on the data."),
				 errhint("Protect the tables beneath, or a materialized view.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s cannot read relation %s, which forces row-level security on its owner",
					fname, name),
			 errdetail("The protected path reads as the relation's owner; a policy applied to that read could fail on the data."),
			 errhint("Protect a table or materialized view that holds just the rows to learn from.")));
}

/*
 * Refuses, from the schema alone and before anything is read or charged, a
 * relation any of whose members (itself and the descendants a read of it
 * covers) is a fallible source.  The read checks its plan again
 * (FallibleSourceInPlan): a child attached meanwhile is seen only there.
 */
void
MrfRefuseFallibleSources(Oid relid, const char *fname)
{
	List	   *family;
	ListCell   *lc;

	/* locked first: its schema (row type, children) cannot change under the call */
	LockRelationOid(relid, AccessShareLock);
	/* dropped while the call waited for the lock (a Citus conversion, say) */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		MrfRefuseFallibleSource(relid, fname);
	family = find_all_inheritors(relid, AccessShareLock, NULL);
	foreach(lc, family)
		if (IsFallibleSource(lfirst_oid(lc)))
			MrfRefuseFallibleSource(lfirst_oid(lc), fname);
	list_free(family);
}

/*
 * Refuses, before anything is read or charged, a Citus table whose owner
 * cannot log in: the read runs as the owner, and Citus opens the workers'
 * connections as the current user, so every such read failed after the
 * charge, its cause withheld (a catalog fact: the refusal says nothing of
 * the rows).
 */
void
MrfRefuseOwnerWithoutLogin(Oid relid, const char *fname)
{
	HeapTuple	reltup;
	HeapTuple	roletup;
	Oid			owner;
	bool		canlogin;

	if (!MrfCitusIsCitusTable(relid))
		return;
	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(reltup))->relowner;
	ReleaseSysCache(reltup);
	roletup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(owner));
	if (!HeapTupleIsValid(roletup))
		elog(ERROR, "cache lookup failed for role %u", owner);
	canlogin = ((Form_pg_authid) GETSTRUCT(roletup))->rolcanlogin;
	ReleaseSysCache(roletup);
	if (!canlogin)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s cannot read Citus table %s as its owner, role %s, which cannot log in",
						fname, get_rel_name(relid), GetUserNameFromId(owner, false)),
				 errdetail("The protected path reads the relation as its owner, and Citus connects to the workers as that role. Nothing was charged."),
				 errhint("Let the owner log in on every node (ALTER ROLE %s LOGIN), or give the table to a role that can.",
						 quote_identifier(GetUserNameFromId(owner, false)))));
}

/*
 * The first fallible source (IsFallibleSource) among the relations the
 * read's plan scans, or InvalidOid.  The plan is built and its relations
 * locked when the cursor opens: a child attached or a rule created after
 * MrfRefuseFallibleSources looked is in it.  Anything but a relation scan (a
 * view's function, say) makes the plan fallible too: its relation is named.
 */
static Oid
FallibleSourceInPlan(Portal portal, Oid relid)
{
	ListCell   *lc;

	foreach(lc, portal->stmts)
	{
		PlannedStmt *stmt = lfirst_node(PlannedStmt, lc);
		ListCell   *lr;

		foreach(lr, stmt->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lr);

			if (rte->rtekind != RTE_RELATION && !MrfCitusRemoteScan(stmt, rte))
				return relid;
			if (rte->rtekind != RTE_RELATION)
				continue;
			if (IsFallibleSource(rte->relid))
				return rte->relid;
		}
	}
	return InvalidOid;
}

/* Errors that say nothing about the data and may pass through as they are. */
static bool
ErrorCarriesNoData(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_QUERY_CANCELED || sqlerrcode == ERRCODE_ADMIN_SHUTDOWN ||
		sqlerrcode == ERRCODE_CRASH_SHUTDOWN;
}

/*
 * Whether owner-rights work of the current transaction read a Citus table.
 * The owner's worker connections then stay in the caller's transaction until
 * it ends (Citus opens a remote transaction block for a read in a
 * subtransaction, and distributed Frank-Wolfe's kept parts live in it):
 * Citus sends them SAVEPOINT, ROLLBACK TO and RELEASE for the caller's own
 * savepoints and COMMIT or ROLLBACK at its end, each logged with the owner's
 * role and the worker's address under citus.log_remote_commands, and a
 * connection lost meanwhile gives warnings and errors naming them.
 * OwnerConnectionsEnding: such a transaction has ended and Citus's end
 * callbacks may still run (the backend's local transaction id is cleared
 * then; the next transaction has one again).
 */
static bool OwnerConnectionsNow = false;
static bool OwnerConnectionsEnding = false;

/* Whether the current (or just ended) transaction holds owner-rights connections. */
static bool
OwnerConnectionsInTransaction(void)
{
	if (MyProc == NULL)
		return false;
	if (MyProc->lxid != InvalidLocalTransactionId)
		OwnerConnectionsEnding = false;
	return OwnerConnectionsNow || OwnerConnectionsEnding;
}

/*
 * Turns off, at the current GUC level, what would show Citus's work on the
 * owner's connections at a transaction or subtransaction boundary: remote
 * commands, and with everything also its notices and warnings.  Our
 * callbacks run before Citus's (registered later), and the level is
 * restored when the (sub)transaction ends, after every callback.
 */
static void
QuietCitusBoundary(bool everything)
{
	if (IsInParallelMode())
		return;
	(void) set_config_option("citus.log_remote_commands", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (everything)
		(void) set_config_option("client_min_messages", "error", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
}

static void
OwnerXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (OwnerConnectionsNow)
				QuietCitusBoundary(true);
			break;
		case XACT_EVENT_ABORT:
			if (OwnerConnectionsNow)
				QuietCitusBoundary(true);
			/* fall through */
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PREPARE:
			OwnerConnectionsEnding = OwnerConnectionsNow;
			OwnerConnectionsNow = false;
			break;
		default:
			break;
	}
}

/*
 * A savepoint's start lasts its whole body: only remote commands are turned
 * off there (the caller's own notices inside it still show); its release
 * and rollback turn off every message until they are done.
 */
static void
OwnerSubXactCallback(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	if (!OwnerConnectionsNow)
		return;
	if (event == SUBXACT_EVENT_START_SUB)
		QuietCitusBoundary(false);
	else if (event == SUBXACT_EVENT_COMMIT_SUB || event == SUBXACT_EVENT_ABORT_SUB)
		QuietCitusBoundary(true);
}

/* See protected/owner.h. */
void
MrfOwnerInit(void)
{
	RegisterXactCallback(OwnerXactCallback, NULL);
	RegisterSubXactCallback(OwnerSubXactCallback, NULL);
}

/*
 * Whether a message was raised by Citus's connection and remote-transaction
 * code (ereport's file name, which PostgreSQL keeps as a base name): its
 * remote-command log lines, connection warnings, relayed worker errors.
 */
static bool
IsCitusConnectionMessage(const ErrorData *edata)
{
	static const char *const files[] = {
		"remote_commands.c", "remote_transaction.c", "connection_management.c",
		"placement_connection.c", "transaction_management.c", "worker_transaction.c"
	};

	if (edata->filename == NULL)
		return false;
	for (int i = 0; i < lengthof(files); i++)
		if (strcmp(edata->filename, files[i]) == 0)
			return true;
	return false;
}

/* See protected/owner.h. */
void
MrfOwnerQuietCitusMessage(ErrorData *edata)
{
	char	   *original;

	if (!IsCitusConnectionMessage(edata) || !OwnerConnectionsInTransaction())
		return;
	if (edata->elevel < ERROR)
	{
		/* a notice or warning: to the server log only */
		edata->output_to_client = false;
		return;
	}

	/*
	 * An error must reach the client: in mrfdp's words, with its SQLSTATE.
	 * Citus's text goes to the server log first (never to the client, at
	 * any client_min_messages).
	 */
	original = psprintf("%s%s%s", edata->message ? edata->message : "",
						edata->context ? "; context: " : "", edata->context ? edata->context : "");
	ereport(LOG_SERVER_ONLY,
			(errmsg("mrfdp withheld from the client: %s", original),
			 errhidestmt(true)));
	edata->message = pstrdup("a worker connection of this transaction's protected read failed");
	edata->detail = pstrdup("Citus's message names the connections the relation's owner opened for a protected learn earlier in this transaction; it is withheld (the server log has it).");
	edata->detail_log = NULL;
	edata->hint = pstrdup("Run the statement again in a new transaction.");
	edata->context = NULL;
	edata->internalquery = NULL;
	edata->internalpos = 0;
}

/*
 * Raises an error that carries no data (ErrorCarriesNoData) with its
 * SQLSTATE and a fixed text: its own text and context (a COPY callback, say,
 * quotes the line being read; Citus names the worker) are not passed on.
 */
static void
pg_attribute_noreturn()
ReportNoDataError(int sqlerrcode)
{
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg(sqlerrcode == ERRCODE_QUERY_CANCELED ?
					"canceling statement while reading the relation" :
					"terminating connection while reading the relation")));
}

/*
 * The owner-rights subtransaction could not start or end: on Citus, its
 * SAVEPOINT or ROLLBACK TO reached a worker connection lost since the
 * transaction's last read (a worker's shutdown), and Citus raised the
 * worker's error naming it.  It is raised again in fixed words by its class;
 * the caller's abort cleans the subtransaction up, as PostgreSQL does for
 * any failed start or end of one.  holdoff: the interrupt holdoff count
 * before the boundary.
 */
static void
pg_attribute_noreturn()
OwnerBoundaryFailed(Oid relid, MemoryContext cxt, uint32 holdoff)
{
	ErrorData  *edata;

	InterruptHoldoffCount = holdoff;
	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	if (ErrorCarriesNoData(edata->sqlerrcode))
		ReportNoDataError(edata->sqlerrcode);
	MrfReadFailedAfterCharge(relid);
}

/* A call on relid's query sql whose results go to cxt. */
void
MrfOwnerCallInit(MrfOwnerCall *call, Oid relid, const char *sql, MemoryContext cxt)
{
	memset(call, 0, sizeof(*call));
	call->relid = relid;
	call->sql = sql;
	call->cxt = cxt;
}

/*
 * Runs body as the relation's owner, in a security-restricted operation
 * with a fixed search_path, inside a subtransaction, connected to SPI.
 * Errors raised in it are caught and withheld (MRF_READ_FAILED), except
 * cancels, which carry no data and propagate.
 */
MrfReadOutcome
MrfAsOwner(MrfOwnerCall *call, MrfOwnerBody body)
{
	HeapTuple	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(call->relid));
	Oid			owner;
	ResourceOwner oldowner = CurrentResourceOwner;
	MemoryContext cxt = call->cxt;
	MrfReadOutcome outcome = MRF_READ_DONE;
	int			quiet_nestlevel;
	uint32		holdoff = InterruptHoldoffCount;

	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", call->relid);
	owner = ((Form_pg_class) GETSTRUCT(reltup))->relowner;
	ReleaseSysCache(reltup);
	call->refused = InvalidOid;
	/* before the first connection opens: an error of its rollback is withheld too */
	if (MrfCitusIsCitusTable(call->relid))
		OwnerConnectionsNow = true;

	/*
	 * As plpgsql's exception blocks do.  The subtransaction's abort restores
	 * the user, the security context and the GUCs set inside it.  Cancels
	 * wait while the subtransaction starts and ends: on Citus these run
	 * callbacks that send SAVEPOINT / RELEASE to the workers, and a cancel
	 * taken there left the subtransaction half begun, which the caller's
	 * own rollback (a PL/pgSQL exception block) turned into a FATAL
	 * (test/citus/fw_kept.sql cancels a distributed learn).
	 */
	/*
	 * Nothing raised by the owner-rights work reaches the caller, not even a
	 * notice: client_min_messages is error from before the subtransaction
	 * starts until after it ends, at a GUC level of its own, because on Citus
	 * the subtransaction's start and end send SAVEPOINT, RELEASE or ROLLBACK
	 * TO to the workers, whose notices (citus.log_remote_commands) and
	 * warnings (a lost connection) name the owner's connections.
	 */
	quiet_nestlevel = NewGUCNestLevel();
	(void) set_config_option("client_min_messages", "error", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	HOLD_INTERRUPTS();
	PG_TRY();
	{
		BeginInternalSubTransaction(NULL);
	}
	PG_CATCH();
	{
		OwnerBoundaryFailed(call->relid, cxt, holdoff);
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		Oid			save_user;
		int			save_sec;
		int			save_nestlevel;

		GetUserIdAndSecContext(&save_user, &save_sec);
		SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
							   SECURITY_RESTRICTED_OPERATION);
		save_nestlevel = NewGUCNestLevel();
		(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		/* no policy may filter (or fail) the owner's read: see MrfRefuseFallibleSources */
		(void) set_config_option("row_security", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);

		SPI_connect();
		outcome = body(call);
		SPI_finish();

		AtEOXact_GUC(false, save_nestlevel);
		SetUserIdAndSecContext(save_user, save_sec);
		HOLD_INTERRUPTS();
		ReleaseCurrentSubTransaction();
		RESUME_INTERRUPTS();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = oldowner;
		AtEOXact_GUC(false, quiet_nestlevel);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MrfFwDriverCall(false);
		MrfStableDriverCall(false);
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		HOLD_INTERRUPTS();
		PG_TRY();
		{
			RollbackAndReleaseCurrentSubTransaction();
		}
		PG_CATCH();
		{
			OwnerBoundaryFailed(call->relid, cxt, holdoff);
		}
		PG_END_TRY();
		RESUME_INTERRUPTS();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = oldowner;
		AtEOXact_GUC(false, quiet_nestlevel);
		if (ErrorCarriesNoData(edata->sqlerrcode))
			ReportNoDataError(edata->sqlerrcode);
		/* the message may quote the data: it is dropped unseen */
		FreeErrorData(edata);
		outcome = MRF_READ_FAILED;
	}
	PG_END_TRY();
	return outcome;
}

/*
 * Whether the read's result is the sample the reader was set up for: one
 * value of the sample's type, or with option columns those columns' types,
 * in order.
 */
static bool
ReadsTheSample(TupleDesc result, const MrfOwnerCall *call)
{
	if (call->columns == NULL)
		return result->natts == 1 && TupleDescAttr(result, 0)->atttypid == call->typid;
	if (result->natts != call->columns->natts)
		return false;
	for (int i = 0; i < result->natts; i++)
		if (TupleDescAttr(result, i)->atttypid != TupleDescAttr(call->columns, i)->atttypid)
			return false;
	return true;
}

/*
 * MrfAsOwner's body that reads the relation through a cursor: every row goes
 * through the lenient reader (no error can depend on the data) and
 * call->substituted counts the rows it could not read.  The result's type
 * is checked to be typid before any value is read.
 */
MrfReadOutcome
MrfOwnerReadRows(MrfOwnerCall *call)
{
	MrfRowsState *state = call->state;
	MemoryContext cxt = call->cxt;
	MrfReadOutcome outcome = MRF_READ_DONE;
	Portal		portal;
	MemoryContext batch_cxt;
	TupleDesc	columns = call->columns;
	Datum	   *fields = NULL;
	bool	   *fieldnulls = NULL;

	/* what reading one batch allocates (detoasted values) goes with it */
	batch_cxt = AllocSetContextCreate(cxt, "mrfdp protected read", ALLOCSET_DEFAULT_SIZES);
	portal = SPI_cursor_open_with_args(NULL, call->sql, 0, NULL, NULL, NULL, true, 0);
	/* the type of what is read, before anything is read */
	if (portal->tupDesc == NULL || !ReadsTheSample(portal->tupDesc, call))
		elog(ERROR, "the protected path's query returns another type than the relation's");
	if (columns != NULL)
	{
		fields = MemoryContextAlloc(cxt, sizeof(Datum) * columns->natts);
		fieldnulls = MemoryContextAlloc(cxt, sizeof(bool) * columns->natts);
	}
	/* what the plan scans, before anything is read (see MrfRefuseFallibleSources) */
	call->refused = FallibleSourceInPlan(portal, call->relid);
	if (OidIsValid(call->refused))
		outcome = MRF_READ_REFUSED;
	while (outcome == MRF_READ_DONE)
	{
		MemoryContext spi_cxt;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		spi_cxt = MemoryContextSwitchTo(batch_cxt);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			bool		isnull = false;
			Datum		value;
			void	   *slot = MrfRowsStateTryAppend(state, cxt);
			bool		read;

			if (columns == NULL)
				value = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);
			else				/* option columns: the selected columns make the record */
				value = MrfColumnsRowValue(columns, SPI_tuptable->vals[r], SPI_tuptable->tupdesc,
										   fields, fieldnulls);

			if (slot == NULL)
			{
				outcome = MRF_READ_OUT_OF_MEMORY;
				break;
			}
			if (state->format == MRF_ROWS_BITS)
				read = MrfBinaryReadRowLenient(&state->reader, value, isnull, slot, MrfBitWords(call->p));
			else
				read = MrfKaryReadRowLenient(&state->kreader, value, isnull, slot);
			if (!read)
				call->substituted++;
		}
		MemoryContextSwitchTo(spi_cxt);
		MemoryContextReset(batch_cxt);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	MemoryContextDelete(batch_cxt);
	return outcome;
}


/*
 * MrfAsOwner's body of distributed Frank-Wolfe (citus/fw.c): one run of the
 * scores aggregate over the distributed table with the step as its
 * parameter; its result (one bytea) is copied to call->cxt.
 */
MrfReadOutcome
MrfOwnerAggregate(MrfOwnerCall *call)
{
	Oid			argtypes[1] = {BYTEAOID};
	Datum		values[1] = {PointerGetDatum(call->step)};
	Portal		portal;
	bool		isnull;
	Datum		result;

	portal = SPI_cursor_open_with_args(NULL, call->sql, 1, argtypes, values, NULL, true, 0);
	call->refused = FallibleSourceInPlan(portal, call->relid);
	if (OidIsValid(call->refused))
	{
		SPI_cursor_close(portal);
		return MRF_READ_REFUSED;
	}
	MrfFwDriverCall(true);
	MrfStableDriverCall(true);
	SPI_cursor_fetch(portal, true, 2);
	MrfFwDriverCall(false);
	MrfStableDriverCall(false);
	if (SPI_processed != 1 || SPI_tuptable->tupdesc->natts != 1 ||
		TupleDescAttr(SPI_tuptable->tupdesc, 0)->atttypid != BYTEAOID)
		elog(ERROR, "the scores aggregate returned an unexpected result");
	result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull && call->null_ok)
	{
		call->result = NULL;
		SPI_cursor_close(portal);
		return MRF_READ_DONE;
	}
	if (isnull)
		elog(ERROR, "the scores aggregate returned NULL");
	call->result = (bytea *) MemoryContextAlloc(call->cxt, VARSIZE_ANY(DatumGetPointer(result)));
	memcpy(call->result, DatumGetPointer(result), VARSIZE_ANY(DatumGetPointer(result)));
	SPI_cursor_close(portal);
	return MRF_READ_DONE;
}

/*
 * Raises the protected path's error for a read that failed after the
 * charge (the charge is committed; the original error is withheld).
 */
void
pg_attribute_noreturn()
MrfReadFailedAfterCharge(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("relation %s could not be read as its owner", get_rel_name(relid)),
			 errdetail("The original error is withheld because it may contain the relation's data. "
					   "The release's privacy budget was charged."),
			 errhint("The relation's owner can find the cause by reading the relation, e.g. with SELECT count(*).")));
}

/*
 * A distributed learn whose relation changed between two of its reads (in
 * number of rows, of unreadable rows, or in the rows read), after the
 * charge: the model would not be that of one set of rows.
 */
void
pg_attribute_noreturn()
MrfChangedDuringLearn(Oid relid, const char *between)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("relation %s changed during a distributed learn", get_rel_name(relid)),
			 errdetail("Its rows differ between %s. "
					   "The release's privacy budget was charged.", between),
			 errhint("Learn while no one writes to the relation, or in a REPEATABLE READ transaction.")));
}

/* See protected/owner.h. */
void
MrfOwnerOutcomeCheck(const MrfOwnerCall *call, MrfReadOutcome outcome, const char *fname)
{
	if (outcome == MRF_READ_REFUSED)
		MrfRefuseFallibleSource(call->refused, fname);
	if (outcome == MRF_READ_FAILED)
		MrfReadFailedAfterCharge(call->relid);
}
