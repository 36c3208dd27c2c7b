/*
 * protected/learn_from.c - the protected path: mrf_learn_<kind>_from(relation, column,
 * <options>) lets a role that was granted learning, but may not SELECT the
 * relation, learn from it.  They check the grant of the role that called
 * them, charge the relation (in a transaction of its own) as soon as n is
 * known and before any learning, then stream nothing more: the learner runs
 * on rows already read, and the model is returned last.
 *
 * The functions run as their caller (SECURITY INVOKER with a fixed
 * search_path).  Only the cursor that reads the relation runs with other
 * rights: the relation owner's, in a security-restricted operation with
 * search_path = pg_catalog, pg_temp, as REFRESH MATERIALIZED VIEW does.  A
 * SECURITY DEFINER function could not tell who called it (a definer's
 * wrapper would spend another role's grant) and would run any code the
 * relation executes (an owner's functions, an FDW) with the extension
 * owner's rights.
 *
 * Charging before learning makes every observation of a learner's running
 * time cost a release: the stable mode's block solvers stop at a tolerance
 * on the raw rows, and an analyst who could cancel before an after-learning
 * charge would measure them for free.  (It does not make that time private;
 * the README's threat model says so.)
 *
 * Privacy unit: one row of the relation.  Nothing here may raise an error
 * that depends on the data: p comes from the column's type or the caller,
 * and a row that cannot be read (NULL, wrong length or shape, value outside
 * the alphabet, a value of another type) is replaced by a fixed row of -1s,
 * which is a function of that row alone, so replace-one neighbours stay
 * neighbours.  Every release carries a noisy count of those rows (its cost
 * charged on top of the learner's: MrfSubstitutedCount* in privacy.c), and
 * a NOTICE, sent after the charge, says when it exceeds 1% of n.
 *
 * Sources whose read could fail on their data are refused from the schema
 * before anything is read (RefuseFallibleSources: foreign tables, and
 * relations that force row-level security on their owner): whether such a
 * read fails is a deterministic function of the data, which no charge would
 * make private.  What is left can fail only for reasons outside the data's
 * control (corruption, the owner's own privileges); the read runs in a
 * subtransaction and any error there except a cancel is still withheld: the
 * release's charge, computed from the options alone before the read
 * (driver/plan.h), is committed, and one fixed error says that the relation could
 * not be read.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "core/noise.h"
#include "core/privacy.h"
#include "core/rows.h"
#include "pg/driver/aggregates.h"
#include "pg/citus/cluster.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/learners.h"
#include "pg/ledger/ledger.h"
#include "pg/ledger/catalog.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Rows fetched from the cursor at a time. */
#define FETCH_ROWS 10000

/* Builds the options document from the named arguments after (relation, column). */
static Jsonb *
OptionsFromArguments(FunctionCallInfo fcinfo, int32 *variables)
{
	HeapTuple	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	Oid		   *argtypes;
	char	  **argnames;
	char	   *argmodes;
	int			nargs;
	const char **names;
	Datum	   *values;
	bool	   *nulls;
	int			n = 0;

	if (!HeapTupleIsValid(proctup))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	nargs = get_func_arg_info(proctup, &argtypes, &argnames, &argmodes);
	ReleaseSysCache(proctup);
	if (argnames == NULL || nargs != PG_NARGS())
		elog(ERROR, "protected learner functions need named parameters");

	names = palloc(sizeof(char *) * nargs);
	values = palloc(sizeof(Datum) * nargs);
	nulls = palloc(sizeof(bool) * nargs);
	*variables = -1;
	for (int i = 2; i < nargs; i++)
	{
		if (strcmp(argnames[i], "variables") == 0)
		{
			if (!PG_ARGISNULL(i))
				*variables = PG_GETARG_INT32(i);
			continue;
		}
		names[n] = argnames[i];
		values[n] = PG_GETARG_DATUM(i);
		nulls[n] = PG_ARGISNULL(i);
		n++;
	}
	return MrfOptionsBuild(n, names, values, nulls);
}

/* How the owner-rights read ended. */
typedef enum ReadOutcome
{
	READ_DONE,					/* every row read */
	READ_OUT_OF_MEMORY,			/* stopped: the rows would not fit the memory limit */
	READ_FAILED,				/* an error, withheld (it may quote the data) */
	READ_REFUSED				/* the plan scans a fallible source: nothing read */
} ReadOutcome;

/*
 * Whether reading a relation as its owner could fail on (or run code over)
 * its data: only plain tables, partitioned tables and materialized views
 * whose owner is not subject to its own row-level security are plain scans.
 * A foreign table's wrapper may reject a malformed line or a remote value; a
 * view (a table can still become one by CREATE RULE "_RETURN") runs its
 * owner's query and functions; a policy forced on the owner may raise on a
 * row.  Whether such a read fails is a deterministic function of the data,
 * which no charge would make private.
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
		(form->relrowsecurity && form->relforcerowsecurity);
	ReleaseSysCache(tup);
	return fallible;
}

/* The refusal of a fallible source (IsFallibleSource), raised before any charge. */
static void
pg_attribute_noreturn()
RefuseFallibleSource(Oid relid, const char *fname)
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
static void
RefuseFallibleSources(Oid relid, const char *fname)
{
	List	   *family;
	ListCell   *lc;

	/* locked first: its schema (row type, children) cannot change under the call */
	LockRelationOid(relid, AccessShareLock);
	family = find_all_inheritors(relid, AccessShareLock, NULL);
	foreach(lc, family)
		if (IsFallibleSource(lfirst_oid(lc)))
			RefuseFallibleSource(lfirst_oid(lc), fname);
	list_free(family);
}

/*
 * Refuses, before anything is read or charged, a Citus table whose owner
 * cannot log in: the read runs as the owner, and Citus opens the workers'
 * connections as the current user, so every such read failed after the
 * charge, its cause withheld (a catalog fact: the refusal says nothing of
 * the rows).
 */
static void
RefuseOwnerWithoutLogin(Oid relid, const char *fname)
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
 * RefuseFallibleSources looked is in it.  Anything but a relation scan (a
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
 * An alias for the relation that no column of it is named: an unqualified
 * name in the select list resolves to a column first, so "SELECT t FROM rel
 * AS t" would read a column named t as if it were the row.
 */
static char *
RowAlias(Oid relid)
{
	char	   *alias = pstrdup("mrfdp_row");

	for (int i = 1; get_attnum(relid, alias) != InvalidAttrNumber; i++)
		alias = psprintf("mrfdp_row_%d", i);
	return alias;
}

/*
 * The whole row of a Citus table, built from its columns as a value of the
 * table's own row type: a shard Citus reads on this node (a reference
 * table's replica, a Citus local table, the coordinator's shards) yields
 * rows of the shard's row type, another type, which the lenient reader
 * would count as unreadable (every row substituted).
 */
static char *
CitusWholeRow(Oid relid, const char *alias)
{
	StringInfoData buf;
	TupleDesc	desc = lookup_rowtype_tupdesc(get_rel_type_id(relid), -1);
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "ROW(");
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		/* dropped columns: the cast to the row type fills them with NULL */
		if (att->attisdropped)
			continue;
		appendStringInfo(&buf, "%s%s.%s", first ? "" : ", ", quote_identifier(alias),
						 quote_identifier(NameStr(att->attname)));
		first = false;
	}
	ReleaseTupleDesc(desc);
	appendStringInfo(&buf, ")::%s",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)));
	return buf.data;
}

/* What the body of an owner-rights call gets, and what it reports. */
typedef struct OwnerCall
{
	Oid			relid;
	const char *sql;
	MemoryContext cxt;			/* where results go */
	Oid			refused;		/* a fallible source the plan scans */
	/* ReadRows: the rows */
	Oid			typid;
	MrfRowsState *state;
	int			p;
	int64		substituted;
	/* ScoresCall: the step parameter and the aggregate's result */
	bytea	   *step;
	bytea	   *result;
	bool		null_ok;		/* no rows answered (a last or forget step): result NULL */
} OwnerCall;

typedef ReadOutcome (*OwnerBody) (OwnerCall *call);

/* A call on relid's query sql whose results go to cxt. */
static void
OwnerCallInit(OwnerCall *call, Oid relid, const char *sql, MemoryContext cxt)
{
	memset(call, 0, sizeof(*call));
	call->relid = relid;
	call->sql = sql;
	call->cxt = cxt;
}

/*
 * Runs body as the relation's owner, in a security-restricted operation
 * with a fixed search_path, inside a subtransaction, connected to SPI.
 * Errors raised in it are caught and withheld (READ_FAILED), except
 * cancels, which carry no data and propagate.
 */
static ReadOutcome
AsOwner(OwnerCall *call, OwnerBody body)
{
	HeapTuple	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(call->relid));
	Oid			owner;
	ResourceOwner oldowner = CurrentResourceOwner;
	MemoryContext cxt = call->cxt;
	ReadOutcome outcome = READ_DONE;

	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", call->relid);
	owner = ((Form_pg_class) GETSTRUCT(reltup))->relowner;
	ReleaseSysCache(reltup);
	call->refused = InvalidOid;

	/*
	 * As plpgsql's exception blocks do.  The subtransaction's abort restores
	 * the user, the security context and the GUCs set inside it.  Cancels
	 * wait while the subtransaction starts and ends: on Citus these run
	 * callbacks that send SAVEPOINT / RELEASE to the workers, and a cancel
	 * taken there left the subtransaction half begun, which the caller's
	 * own rollback (a PL/pgSQL exception block) turned into a FATAL
	 * (test/citus/fw_kept.sql cancels a distributed learn).
	 */
	HOLD_INTERRUPTS();
	BeginInternalSubTransaction(NULL);
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
		/* no policy may filter (or fail) the owner's read: see RefuseFallibleSources */
		(void) set_config_option("row_security", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		/* nothing raised during the read reaches the caller, not even a notice */
		(void) set_config_option("client_min_messages", "error", PGC_USERSET, PGC_S_SESSION,
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
		RollbackAndReleaseCurrentSubTransaction();
		RESUME_INTERRUPTS();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = oldowner;
		if (ErrorCarriesNoData(edata->sqlerrcode))
		{
			/*
			 * With its SQLSTATE and a fixed text: its own text and context
			 * (a COPY callback, say, quotes the line being read) are not
			 * passed on.
			 */
			ereport(ERROR,
					(errcode(edata->sqlerrcode),
					 errmsg(edata->sqlerrcode == ERRCODE_QUERY_CANCELED ?
							"canceling statement while reading the relation" :
							"terminating connection while reading the relation")));
		}
		/* the message may quote the data: it is dropped unseen */
		FreeErrorData(edata);
		outcome = READ_FAILED;
	}
	PG_END_TRY();
	return outcome;
}

/*
 * AsOwner's body that reads the relation through a cursor: every row goes
 * through the lenient reader (no error can depend on the data) and
 * call->substituted counts the rows it could not read.  The result's type
 * is checked to be typid before any value is read.
 */
static ReadOutcome
ReadRows(OwnerCall *call)
{
	MrfRowsState *state = call->state;
	MemoryContext cxt = call->cxt;
	ReadOutcome outcome = READ_DONE;
	Portal		portal;
	MemoryContext batch_cxt;

	/* what reading one batch allocates (detoasted values) goes with it */
	batch_cxt = AllocSetContextCreate(cxt, "mrfdp protected read", ALLOCSET_DEFAULT_SIZES);
	portal = SPI_cursor_open_with_args(NULL, call->sql, 0, NULL, NULL, NULL, true, 0);
	/* the type of what is read, before anything is read */
	if (portal->tupDesc == NULL || portal->tupDesc->natts != 1 ||
		TupleDescAttr(portal->tupDesc, 0)->atttypid != call->typid)
		elog(ERROR, "the protected path's query returns another type than the relation's");
	/* what the plan scans, before anything is read (see RefuseFallibleSources) */
	call->refused = FallibleSourceInPlan(portal, call->relid);
	if (OidIsValid(call->refused))
		outcome = READ_REFUSED;
	while (outcome == READ_DONE)
	{
		MemoryContext spi_cxt;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		spi_cxt = MemoryContextSwitchTo(batch_cxt);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			bool		isnull;
			Datum		value = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);
			void	   *slot = MrfRowsStateTryAppend(state, cxt);
			bool		read;

			if (slot == NULL)
			{
				outcome = READ_OUT_OF_MEMORY;
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
 * Reads the relation through a cursor as its owner (AsOwner, ReadRows);
 * *substituted counts the rows the lenient reader could not read.
 */
static ReadOutcome
ReadAsOwner(Oid relid, const char *sql, Oid typid, MrfRowsState *state, MemoryContext cxt,
			int p, int64 *substituted, Oid *refused)
{
	OwnerCall	call;
	ReadOutcome outcome;

	OwnerCallInit(&call, relid, sql, cxt);
	call.typid = typid;
	call.state = state;
	call.p = p;
	outcome = AsOwner(&call, ReadRows);
	*substituted = call.substituted;
	*refused = call.refused;
	return outcome;
}

/*
 * AsOwner's body of distributed Frank-Wolfe (citus/fw.c): one run of the
 * scores aggregate over the distributed table with the step as its
 * parameter; its result (one bytea) is copied to call->cxt.
 */
static ReadOutcome
ScoresCall(OwnerCall *call)
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
		return READ_REFUSED;
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
		return READ_DONE;
	}
	if (isnull)
		elog(ERROR, "the scores aggregate returned NULL");
	call->result = (bytea *) MemoryContextAlloc(call->cxt, VARSIZE_ANY(DatumGetPointer(result)));
	memcpy(call->result, DatumGetPointer(result), VARSIZE_ANY(DatumGetPointer(result)));
	SPI_cursor_close(portal);
	return READ_DONE;
}

/* A distributed learn's driver state: the relation, the query, what the counting pass saw. */
typedef struct FwDriver
{
	Oid			relid;
	Oid			caller;
	const char *sql;
	MrfFwDesign design;			/* the learner's problem (its kv: the plan's alphabets) */
	int			d;
	int			q;
	uint64		learn;			/* random: the workers' cache key */
	int64		n;
	int64		substituted;
	MrfCharge  *total;
} FwDriver;

/*
 * Raises the protected path's error for a read that failed after the
 * charge (the charge is committed; the original error is withheld).
 */
static void
pg_attribute_noreturn()
ReadFailedAfterCharge(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("relation %s could not be read as its owner", get_rel_name(relid)),
			 errdetail("The original error is withheld because it may contain the relation's data. "
					   "The release's privacy budget was charged."),
			 errhint("The relation's owner can find the cause by reading the relation, e.g. with SELECT count(*).")));
}

/*
 * One iteration's exact score sums over the shards (MrfFwScoresFn): the
 * scores aggregate as the relation's owner.  From the second iteration on,
 * first with the last selections only: every shard whose part a backend
 * keeps one iteration behind answers without reading its rows (the
 * kept-parts scan, mrf_fw_kept), any other adds nothing; when the rows so
 * answered are not all that were counted (a miss: another backend, a part
 * not kept, a reconnect), the iteration runs again with every selection,
 * and the shards not kept replay from their rows.  n is public, so which
 * of the two ran says nothing about the data that n does not.  The learn
 * was charged before its first iteration; a failure here withholds its
 * cause and fails, and so does a relation whose rows changed in number
 * since they were counted (the model would not be that of one set of rows).
 */
/*
 * A distributed learn whose relation changed in number of rows (or of
 * unreadable rows) between two of its reads, after the charge: the model
 * would not be that of one set of rows.
 */
static void
ChangedDuringLearn(Oid relid, const char *between)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("relation %s changed during a distributed learn", get_rel_name(relid)),
			 errdetail("Its number of rows (or of unreadable rows) differs between %s. "
					   "The release's privacy budget was charged.", between),
			 errhint("Learn while no one writes to the relation, or in a REPEATABLE READ transaction.")));
}

static MrfStatus
DistributedScores(void *arg, int t, const int *sel_j, const int *sel_sign, int64_t *scores)
{
	FwDriver   *drv = arg;
	OwnerCall	call;
	int64		n;
	int64		substituted;

	OwnerCallInit(&call, drv->relid, drv->sql, CurrentMemoryContext);
	if (t >= 2)
	{
		call.step = MrfFwStepCreate(drv->learn, &drv->design, t, true,
									sel_j + (Size) (t - 2) * drv->q,
									sel_sign + (Size) (t - 2) * drv->q);
		call.null_ok = true;
		if (AsOwner(&call, ScoresCall) != READ_DONE)
			ReadFailedAfterCharge(drv->relid);
		pfree(call.step);
		if (call.result != NULL)
		{
			MrfFwSumsRead(call.result, drv->d, drv->q, t, &n, &substituted, scores);
			pfree(call.result);
			if (n == drv->n && substituted == drv->substituted)
				return MRF_OK;
		}
		call.null_ok = false;
	}
	call.step = MrfFwStepCreate(drv->learn, &drv->design, t, false, sel_j, sel_sign);
	if (AsOwner(&call, ScoresCall) != READ_DONE)
		ReadFailedAfterCharge(drv->relid);
	MrfFwSumsRead(call.result, drv->d, drv->q, t, &n, &substituted, scores);
	if (n != drv->n || substituted != drv->substituted)
		ChangedDuringLearn(drv->relid, "two Frank-Wolfe iterations");
	pfree(call.step);
	pfree(call.result);
	return MRF_OK;
}

/* The stable mode's driver on the shards: the relation, its query, what the counting pass saw. */
typedef struct StableDriver
{
	Oid			relid;
	const char *sql;
	int64		n;
	int64		substituted;
} StableDriver;

/*
 * The stable mode's blocks cut and learned on the shards (MrfStableBlocksFn,
 * citus/stable.c, privacy.md 7.3): the blocks aggregate as the relation's
 * owner, once.  Charged before; a failure withholds its cause, and a
 * relation whose rows changed in number since they were counted fails.
 */
static void
DistributedBlocks(void *arg, const MrfStableStep *step, struct MrfStructure **structs, int *nstructs)
{
	StableDriver *drv = arg;
	OwnerCall	call;
	int64		n;
	int64		substituted;

	OwnerCallInit(&call, drv->relid, drv->sql, CurrentMemoryContext);
	call.step = MrfStableStepCreate(step);
	if (AsOwner(&call, ScoresCall) != READ_DONE)
		ReadFailedAfterCharge(drv->relid);
	MrfStableBlocksRead(call.result, step->p, step->blocks, &n, &substituted, structs, nstructs);
	if (n != drv->n || substituted != drv->substituted)
		ChangedDuringLearn(drv->relid, "the count and the blocks");
	pfree(call.step);
	pfree(call.result);
}

/* The blocks aggregate for samples of typid (mrfdp.mrf_stable_blocks_agg), or InvalidOid. */
static Oid
BlocksAggregate(Oid typid)
{
	Oid			argtypes[3] = {typid, BYTEAOID, OIDOID};

	return LookupFuncName(list_make2(makeString("mrfdp"), makeString("mrf_stable_blocks_agg")),
						  3, argtypes, true);
}

/*
 * Tells the backends that served the shards to free the learn's kept parts
 * (a query of the kept-parts scan that reads no row).  Best-effort: a
 * failure is not the learn's (the workers free them anyway when the
 * transaction ends), and it reads nothing.
 */
static void
ForgetKeptParts(FwDriver *drv)
{
	OwnerCall	call;

	OwnerCallInit(&call, drv->relid, drv->sql, CurrentMemoryContext);
	call.null_ok = true;
	call.step = MrfFwStepCreate(drv->learn, &drv->design, MRF_FW_STEP_FORGET, false, NULL, NULL);
	(void) AsOwner(&call, ScoresCall);
	pfree(call.step);
}

/*
 * The name of the scores aggregate for rows of format: binary rows
 * (mrfdp.mrf_fw_ising_scores_agg, for every binary design) or k-ary ones
 * (mrfdp.mrf_fw_kary_scores_agg).
 */
static const char *
ScoresAggregateName(MrfRowFormat format)
{
	return format == MRF_ROWS_BITS ? "mrf_fw_ising_scores_agg" : "mrf_fw_kary_scores_agg";
}

/*
 * The scores aggregate for samples of typid and rows of format, or
 * InvalidOid when there is none (Citus splits an aggregate only for its
 * exact argument types: rows of columns and enum arrays go through the
 * codes functions first).
 */
static Oid
ScoresAggregate(Oid typid, MrfRowFormat format)
{
	Oid			argtypes[3] = {typid, BYTEAOID, OIDOID};

	return LookupFuncName(list_make2(makeString("mrfdp"), makeString(pstrdup(ScoresAggregateName(format)))),
						  3, argtypes, true);
}

/*
 * The counting pass of the stable mode on the shards: the blocks
 * aggregate's counting step (sql, no row kept) as the relation's owner.  A
 * refused source is refused before anything is read (no charge); a failed
 * read charges, then fails with its cause withheld.
 */
static void
StableCount(Oid relid, Oid caller, const char *fname, const char *sql, MemoryContext cxt,
			int p, int model, int k, MrfCharge *total, int64 *n, int64 *substituted)
{
	OwnerCall	call;
	ReadOutcome outcome;
	MrfStableStep step;
	struct MrfStructure *none;
	int			nnone;

	memset(&step, 0, sizeof(step));
	/* the rows are read exactly as the blocks will read them (binary or k-ary) */
	step.p = p;
	step.model = model;
	step.k = k;
	step.blocks = 1;
	step.cap = 0;				/* count only */
	step.eta = 1;
	step.lambda = 1;
	OwnerCallInit(&call, relid, sql, cxt);
	call.step = MrfStableStepCreate(&step);
	outcome = AsOwner(&call, ScoresCall);
	if (outcome == READ_REFUSED)
		RefuseFallibleSource(call.refused, fname);	/* nothing was read: no charge */
	if (outcome == READ_FAILED)
	{
		total->rows = -1;
		MrfChargeRelation(relid, caller, total);
		ReadFailedAfterCharge(relid);
	}
	MrfStableBlocksRead(call.result, p, 1, n, substituted, &none, &nnone);
}

/*
 * Whether auto predicts the distributed learn faster than gathering the
 * rows and learning them here (core MrfFwCitusCosts, docs/citus_fw.md
 * section 4), from public values only: n (counted), p, the design's sizes,
 * the plan's iterations for n, and the table's shards and nodes (Citus's
 * metadata).  A plan n refuses is left to the one-node path.
 */
static bool
DistributedPredictedFaster(const MrfPlan *plan, const FwDriver *drv, int64 n)
{
	MrfPlan		local = *plan;
	int			shards;
	int			nodes;
	double		gathered;
	double		distributed;

	local.n = n;
	local.iterations = 0;
	local.memory = 0;
	local.distributed = false;
	if (plan->learner->plan(&local) != NULL || local.iterations < 1)
		return false;
	MrfCitusShardLayout(drv->relid, &shards, &nodes);
	MrfFwCitusCosts(n, plan->p, drv->d, drv->q, local.iterations, nodes, shards, &gathered,
					&distributed);
	return distributed < MRF_FW_COST_MARGIN * gathered;
}

/*
 * Whether the plan would learn in place on the coordinator (auto): only
 * when the packed rows and solver fit mrfdp.max_learner_memory there.  A
 * plan n refuses is left to the one-node path, which raises its refusal.
 */
static bool
LocalPlanFits(const MrfPlan *plan, int64 n)
{
	MrfPlan		local = *plan;

	local.n = n;
	local.iterations = 0;
	local.memory = 0;
	local.distributed = false;
	if (plan->learner->plan(&local) != NULL)
		return true;
	return MrfMemoryFits(local.memory);
}

/*
 * The noisy count of substituted rows (privacy.c), released with the model:
 * a discrete Gaussian for zCDP learners, a discrete Laplace otherwise, at
 * the share of the learner's budget charged for it.  Drawn after the charge
 * and after learning, from a generator of its own, so the learner's draws
 * (and its model under mrfdp.test_seed) are those of the aggregate path.
 * Returns false when the share is too small for the samplers (nothing is
 * released; the share was charged anyway); *meta gets the JSON member.
 */
static bool
NoisySubstitutedCount(const MrfCharge *learner_charge, int64 substituted, int64 n,
					  const char *learner, int64 *noisy, double *sd, StringInfo meta)
{
	bool		zcdp = learner_charge->notion == MRF_NOTION_ZCDP;
	double		share = MrfSubstitutedCountShare(zcdp ? learner_charge->rho : learner_charge->epsilon);
	uint64_t	num;
	uint64_t	den;
	MrfRun		run;
	int64_t		z;

	if ((zcdp ? MrfSubstitutedCountGaussian(share, &num, &den)
		 : MrfSubstitutedCountLaplace(share, &num, &den)) != 0)
	{
		appendStringInfo(meta, "{\"noisy_count\": null, \"mechanism\": \"none\", \"%s\": %s, "
						 "\"reason\": \"budget too small for the count's noise\"}",
						 zcdp ? "rho" : "epsilon", MrfDoubleText(share));
		return false;
	}
	MrfRunBegin(&run, learner);
	z = zcdp ? MrfRngDiscreteGaussian(&run.rng, num, den) : MrfRngDiscreteLaplace(&run.rng, num, den);
	MrfRunEnd(&run);
	if (z == MRF_NOISE_INVALID)
		elog(ERROR, "invalid noise parameters for the count of substituted rows");
	/* clamping to [0, n] is post-processing (n is public) */
	*noisy = Max(0, Min(n, substituted + z));
	/* the noise's standard deviation (the discrete Laplace's, about sqrt(2) t) */
	*sd = zcdp ? sqrt((double) num / (double) den) : sqrt(2.0) * (double) num / (double) den;
	appendStringInfo(meta, "{\"noisy_count\": " INT64_FORMAT ", \"mechanism\": \"%s\", \"%s\": %s, \"%s\": %s}",
					 *noisy, zcdp ? "discrete gaussian" : "discrete laplace",
					 zcdp ? "rho" : "epsilon", MrfDoubleText(share),
					 zcdp ? "variance" : "scale", MrfDoubleText((double) num / (double) den));
	return true;
}

/* A copy of model whose metadata has one more member, "key": value (JSON). */
static MrfModel *
ModelWithMeta(MrfModel *model, const char *key, const char *value)
{
	Jsonb	   *meta = MrfModelMeta(model);
	char	   *member = psprintf("{\"%s\": %s}", key, value);
	Jsonb	   *more = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(member)));
	MrfModel   *copy;

	meta = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(meta),
											  JsonbPGetDatum(more)));
	copy = MrfModelCreate((MrfKind) model->kind, model->p, model->k, model->t, model->nparams,
						  model->flags, meta);
	memcpy(copy->params, model->params, sizeof(double) * model->nparams);
	return copy;
}

/*
 * The one-node protected path: reads the rows as the owner, then plans with
 * n, charges and learns (NULL for an empty relation, nothing charged).
 */
static MrfModel *
LearnInPlace(MrfPlan *plan, MrfRowsState *state, Oid relid, Oid caller, MrfCharge *total,
			 const char *sql, Oid typid, MemoryContext cxt, int p, const char *fname,
			 const char *learner, int64 *substituted)
{
	Oid			refused;
	ReadOutcome outcome = ReadAsOwner(relid, sql, typid, state, cxt, p, substituted, &refused);

	if (outcome == READ_REFUSED)
		RefuseFallibleSource(refused, fname);	/* nothing was read: no charge */
	if (outcome == READ_FAILED)
	{
		/*
		 * Charge first, then say only that the read failed.  The ledger's
		 * rows_read is -1: how far the read got is not released.
		 */
		total->rows = -1;
		MrfChargeRelation(relid, caller, total);
		ReadFailedAfterCharge(relid);
	}
	if (outcome == READ_OUT_OF_MEMORY)
		MrfCheckMemory(learner, MrfRowsStateBytes(state, state->n + 1));

	if (state->n == 0)
		return NULL;			/* n is public: an empty relation releases nothing */

	/*
	 * Charge before learning.  The plan with n validates every limit left
	 * (n is public) and checks the memory without touching the rows, so a
	 * refused call charges nothing; the charge, planned from the options
	 * before the read, is then committed, and only then does the learner run.
	 */
	MrfPlanRows(plan, state->n);
	total->rows = state->n;
	MrfChargeRelation(relid, caller, total);

	return MrfPlanRun(plan, state);
}

PG_FUNCTION_INFO_V1(mrf_learn_from);
/* mrf_learn_<kind>_from(relation, column_name, <options>): the protected path. */
Datum
mrf_learn_from(PG_FUNCTION_ARGS)
{
	/* SECURITY INVOKER: the current user is whoever called us, wrappers included. */
	Oid			caller = GetUserId();
	char	   *fname = get_func_name(fcinfo->flinfo->fn_oid);
	char	   *learner;
	Oid			relid;
	char	   *column = NULL;
	Oid			typid;
	int32		typmod;
	int32		variables;
	int			p;
	Jsonb	   *options;
	MrfRowsState *state;
	MemoryContext cxt = CurrentMemoryContext;
	char	   *sql;
	MrfModel   *model;
	MrfCharge	total;
	const MrfLearner *learner_desc = MrfLearnerFind(fname);
	MrfPlan		plan;
	MrfRowFormat format;
	ReadOutcome outcome;
	int64		substituted;
	char	   *alias;
	const char *sample_expr;
	char	   *from;
	FwDriver	drv;
	bool		distributed = false;
	StableDriver sdrv;
	bool		stable_distributed = false;
	int64		noisy = 0;
	double		noise_sd = 0;
	bool		counted;
	StringInfoData count_meta;

	if (learner_desc == NULL)
		elog(ERROR, "%s has no protected-path learner", fname);
	learner = pnstrdup(fname, strlen(fname) - strlen("_from"));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs a relation", fname)));
	relid = PG_GETARG_OID(0);
	if (!PG_ARGISNULL(1))
		column = text_to_cstring(PG_GETARG_TEXT_PP(1));

	/* Everything checked before a single row is read depends on public facts only. */
	MrfCheckLearningGrant(relid, caller);
	RefuseFallibleSources(relid, fname);
	RefuseOwnerWithoutLogin(relid, fname);
	options = OptionsFromArguments(fcinfo, &variables);
	/* parsed once; what the release costs, substituted-row count included: options alone */
	MrfPlanBegin(&plan, learner_desc, options);
	total = plan.charge;
	MrfSubstitutedCountCharge(&total);

	if (column == NULL)
	{
		typid = get_rel_type_id(relid);
		typmod = -1;
	}
	else
	{
		AttrNumber	attnum = get_attnum(relid, column);
		Oid			collid;

		if (attnum == InvalidAttrNumber || attnum < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation %s does not exist", column, get_rel_name(relid))));
		get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
	}
	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation %s has no row type", get_rel_name(relid))));
	format = MrfPlanRowsFormat(&plan);
	state = MrfRowsStateCreate(cxt, format);
	if (format == MRF_ROWS_BITS)
	{
		MrfBinaryReaderInit(&state->reader, typid, cxt, learner);
		p = MrfBinaryTypeWidth(typid, typmod);
	}
	else
	{
		MrfKaryReaderInit(&state->kreader, typid, (plan.opt.given & MRF_OPT_K) ? plan.opt.k : 0,
						  cxt, learner);
		if (plan.opt.domains != NULL)
			MrfKaryReaderSetDomains(&state->kreader, plan.opt.domains);
		if (plan.opt.given & MRF_OPT_NULLS)
			MrfKaryReaderSetNulls(&state->kreader, plan.opt.nulls);
		p = MrfKaryTypeWidth(typid);
	}
	if (p < 0 && variables < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs the number of variables for a column of type %s",
						fname, format_type_be(typid)),
				 errdetail("On the protected path the number of variables must not come from the data."),
				 errhint("Pass variables => p.")));
	if (p >= 0 && variables >= 0 && variables != p)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("variables => %d does not match the %d variables of type %s",
						variables, p, format_type_be(typid))));
	if (p < 0)
		p = variables;
	if (p < 2 || p > MRF_MAX_VARIABLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes from 2 to %d variables", fname, MRF_MAX_VARIABLES)));
	/* row types are loaded and checked here, from the schema */
	if (format == MRF_ROWS_BITS)
		MrfBinaryReaderSetLenient(&state->reader, p);
	else
		MrfKaryReaderSetLenient(&state->kreader, p);
	MrfRowsStateSetShape(state, p, format == MRF_ROWS_BITS ? 2 : state->kreader.k);
	state->options = options;
	/* per-variable alphabets, names and labels: from the schema */
	if (format == MRF_ROWS_BYTES)
		state->alphabets = MrfKaryReaderAlphabets(&state->kreader, cxt);
	state->variables = format == MRF_ROWS_BITS ? MrfBinaryReaderVariables(&state->reader) :
		MrfKaryReaderVariables(&state->kreader);
	state->source = MrfSourceOfColumn(relid, column, state->variables);
	state->plan = &plan;
	/* p and k are public here: what they refuse is refused before reading */
	MrfPlanAlphabets(&plan, state->alphabets);
	plan.variables = state->variables;
	MrfPlanShape(&plan, state->p, state->k);

	/*
	 * Stream the column through a cursor as the relation's owner (see the
	 * header).  The whole row is read through an alias no column can shadow.
	 */
	alias = RowAlias(relid);
	sample_expr = column ? quote_identifier(column) :
		MrfCitusIsCitusTable(relid) ? CitusWholeRow(relid, alias) : quote_identifier(alias);
	from = psprintf("%s AS %s",
					quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
											   get_rel_name(relid)),
					quote_identifier(alias));
	sql = psprintf("SELECT %s FROM %s", sample_expr, from);

	/*
	 * Distributed Frank-Wolfe (citus/fw.c, docs/citus_fw.md): on a Citus
	 * distributed table, a learner whose run is one Frank-Wolfe problem
	 * (its fw_design: Ising, pairwise, t-wise l1, structure's threshold
	 * method) can leave the rows where they are and run each iteration's
	 * exact score sums as a distributed aggregate (as the owner, like the
	 * read).  A first run counts the rows (n is public); with auto, the
	 * shards are used only when the rows would not fit
	 * mrfdp.max_learner_memory here.  Charged once, before the first
	 * iteration, exactly as the one-node learn; the model is the one-node
	 * model bit for bit.  Samples of a type without a scores aggregate
	 * (rows of columns, enum arrays) are read on the workers into codes
	 * first (mrf_fw_kary_codes, mrf_fw_binary_codes), by the reader set up
	 * as here (for k-ary rows, with the options k, domains and nulls).
	 */
	memset(&drv, 0, sizeof(drv));
	if (learner_desc->fw_design != NULL && MrfDistributedFw != MRF_DFW_OFF &&
		MrfCitusIsDistributed(relid) && learner_desc->fw_design(&plan, &drv.design) &&
		MrfFwDesignSizes(&drv.design, &drv.d, &drv.q) == MRF_OK)
	{
		OwnerCall	call;
		const char *scored = sample_expr;
		bool		codes = !OidIsValid(ScoresAggregate(typid, format));

		if (codes && format == MRF_ROWS_BITS)
			scored = psprintf("mrfdp.mrf_fw_binary_codes(%s, %d)", sample_expr, p);
		else if (codes)
			scored = psprintf("mrfdp.mrf_fw_kary_codes(%s, %d, %d, %s::jsonb, %s::text)", sample_expr, p,
							  (plan.opt.given & MRF_OPT_K) ? plan.opt.k : 0,
							  plan.opt.domains != NULL ?
							  quote_literal_cstr(JsonbToCString(NULL, &plan.opt.domains->root,
																VARSIZE(plan.opt.domains))) : "NULL",
							  (plan.opt.given & MRF_OPT_NULLS) ? quote_literal_cstr(plan.opt.nulls) : "NULL");

		drv.relid = relid;
		drv.caller = caller;
		if (!pg_strong_random(&drv.learn, sizeof(drv.learn)))
			elog(ERROR, "could not draw a random learn id");
		/*
		 * tableoid names the shard on a worker: its cache key; the kept-parts
		 * scan (mrf_fw_kept) stops after one row of a shard kept there
		 */
		drv.sql = psprintf("SELECT mrfdp.%s(%s, $1, %s.tableoid) FROM %s TABLESAMPLE mrfdp.mrf_fw_kept($1)",
						   ScoresAggregateName(format), scored, quote_identifier(alias), from);
		OwnerCallInit(&call, relid, drv.sql, cxt);
		call.step = MrfFwStepCreate(drv.learn, &drv.design, 0, false, NULL, NULL);
		outcome = AsOwner(&call, ScoresCall);
		if (outcome == READ_REFUSED)
			RefuseFallibleSource(call.refused, fname);	/* nothing was read: no charge */
		if (outcome == READ_FAILED)
		{
			total.rows = -1;
			MrfChargeRelation(relid, caller, &total);
			ReadFailedAfterCharge(relid);
		}
		MrfFwSumsRead(call.result, drv.d, drv.q, 0, &drv.n, &drv.substituted, NULL);
		if (drv.n == 0)
			PG_RETURN_NULL();	/* n is public: an empty relation releases nothing */
		distributed = MrfDistributedFw == MRF_DFW_ON || !LocalPlanFits(&plan, drv.n) ||
			DistributedPredictedFaster(&plan, &drv, drv.n);
	}

	/*
	 * The stable mode's blocks on the shards (citus/stable.c, privacy.md
	 * 7.3): on a Citus distributed table the structure learner's stable mode
	 * (binary rows) can cut and learn its blocks where the rows are, at the
	 * per-shard calibration (twice the noise, a higher threshold).  A first
	 * run of the blocks aggregate counts the rows (n is public); with auto,
	 * only when the gathered rows would not fit mrfdp.max_learner_memory
	 * here.  Charged once, before the blocks are cut.
	 */
	if (learner_desc == &MrfStructureLearner &&
		MrfStructureShardable(&plan) && MrfDistributedStable != MRF_DFW_OFF &&
		MrfCitusIsDistributed(relid) && OidIsValid(BlocksAggregate(typid)) &&
		MrfCitusShardCount(relid) > 0)
	{
		memset(&sdrv, 0, sizeof(sdrv));
		sdrv.relid = relid;
		sdrv.sql = psprintf("SELECT mrfdp.mrf_stable_blocks_agg(%s, $1, %s.tableoid) FROM %s",
							sample_expr, quote_identifier(alias), from);
		StableCount(relid, caller, fname, sdrv.sql, cxt, p,
					format == MRF_ROWS_BYTES ? MRF_STABLE_PAIRWISE : MRF_STABLE_ISING,
					format == MRF_ROWS_BYTES ? state->k : 2, &total, &sdrv.n, &sdrv.substituted);
		if (sdrv.n == 0)
			PG_RETURN_NULL();	/* n is public: an empty relation releases nothing */
		stable_distributed = MrfDistributedStable == MRF_DFW_ON || !LocalPlanFits(&plan, sdrv.n);
	}

	if (stable_distributed)
	{
		/* as below: plan with n (and the shard count), charge, then the blocks */
		plan.distributed = true;
		plan.shards = MrfCitusShardCount(relid);
		state->n = sdrv.n;
		substituted = sdrv.substituted;
		MrfPlanRows(&plan, state->n);
		total.rows = state->n;
		MrfChargeRelation(relid, caller, &total);
		state->stable_blocks = DistributedBlocks;
		state->stable_arg = &sdrv;
		model = MrfPlanRun(&plan, state);
	}
	else if (distributed)
	{
		/* as below: plan with n, charge, then learn (score sums from the shards) */
		plan.distributed = true;
		state->n = drv.n;
		substituted = drv.substituted;
		MrfPlanRows(&plan, state->n);
		total.rows = state->n;
		MrfChargeRelation(relid, caller, &total);
		state->fw_scores = DistributedScores;
		state->fw_arg = &drv;
		PG_TRY();
		{
			model = MrfPlanRun(&plan, state);
			ForgetKeptParts(&drv);
		}
		PG_FINALLY();
		{
			/* shards of the coordinator's were kept in this (the caller's) backend */
			MrfFwCacheForget();
		}
		PG_END_TRY();
	}
	else
		model = LearnInPlace(&plan, state, relid, caller, &total, sql, typid, cxt, p,
							 fname, learner, &substituted);
	if (model == NULL && state->n == 0)
		PG_RETURN_NULL();		/* n is public: an empty relation releases nothing */

	/* Only now, after the charge: the noisy count of substituted rows. */
	initStringInfo(&count_meta);
	counted = NoisySubstitutedCount(&plan.charge, substituted, state->n, learner, &noisy,
									&noise_sd, &count_meta);

	/*
	 * Say so when more than 1% of the rows were replaced, with confidence: the
	 * noisy count must exceed 1% of n by twice the noise's standard deviation,
	 * so that noise alone rarely raises it (below 2.5% of releases when at
	 * most 1% of the rows were replaced).  Post-processing of the count.
	 */
	if (counted && (double) noisy > (double) state->n / 100.0 + 2.0 * noise_sd)
		ereport(NOTICE,
				(errmsg("about " INT64_FORMAT " of the " INT64_FORMAT " rows of %s could not be read and were replaced by a fixed row",
						noisy, state->n, get_rel_name(relid)),
				 errdetail("The count is noisy (standard deviation %.1f; it is part of the release: \"substituted_rows\" in the model's metadata) and exceeds 1%% of the rows.",
						   noise_sd),
				 errhint("Check variables => (every row must have exactly that many values), NULLs, and values outside the alphabet (-1/+1 or booleans; 0 .. k - 1 for k-ary learners; for rows of columns, an enum's labels or the values option domains declares).")));
	if (model == NULL)
	{
		/* "Nothing" is a release too: charged above, explained only now. */
		if (learner_desc->released_nothing != NULL)
			learner_desc->released_nothing(&plan);
		PG_RETURN_NULL();
	}
	model = MrfModelWithNames(model, state->variables, state->source);
	MrfWidthNotice(model);
	PG_RETURN_POINTER(ModelWithMeta(model, "substituted_rows", count_meta.data));
}
