/*
 * hooks.c - every hook mrfdp installs, in one place.  Each hook chains the
 * hook that was there before and calls the modules whose work it does; the
 * modules themselves install none.
 *
 *   post_parse_analyze_hook  named learner calls become aggregate calls
 *                            (sqlapi/named_call.c)
 *   planner_hook             options are constants or parameters, on every
 *                            server (sqlapi/options_check.c); then learners
 *                            stay on the Citus coordinator (citus/cluster.c)
 *   ExecutorStart_hook       what a statement reads, for the privacy ledger
 *                            (ledger/reads.c)
 *   shmem_request_hook,      the progress slots, with shared_preload_libraries
 *   shmem_startup_hook       only (sqlapi/progress.c)
 *   emit_log_hook            Citus's messages about the relation owner's
 *                            connections stay off the client (protected/owner.c)
 *
 * Transaction callbacks are registered by the modules that own the state
 * they clear (ledger/reads.c, sqlapi/progress.c, citus/fw.c, protected/owner.c).
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/planner.h"
#include "parser/analyze.h"
#include "storage/ipc.h"

#include "pg/citus/cluster.h"
#include "pg/hooks.h"
#include "pg/ledger/reads.h"
#include "pg/protected/owner.h"
#include "pg/sqlapi/named_call.h"
#include "pg/sqlapi/options_check.h"
#include "pg/sqlapi/progress.h"

static post_parse_analyze_hook_type PrevPostParseAnalyze = NULL;
static planner_hook_type PrevPlanner = NULL;
static ExecutorStart_hook_type PrevExecutorStart = NULL;
static shmem_request_hook_type PrevShmemRequest = NULL;
static shmem_startup_hook_type PrevShmemStartup = NULL;
static emit_log_hook_type PrevEmitLog = NULL;

/* Earlier hooks (e.g. pg_stat_statements) see the tree as parsed. */
static void
MrfPostParseAnalyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (PrevPostParseAnalyze)
		PrevPostParseAnalyze(pstate, query, jstate);
	MrfRewriteNamedCalls(pstate, query);
}

static PlannedStmt *
MrfPlanner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	PlannedStmt *result;
	int			citus_nestlevel;

	/* on every server, before the planner folds constants */
	MrfCheckLearnerOptions(parse);

	citus_nestlevel = MrfCitusBeforePlanning(parse);
	if (PrevPlanner)
		result = PrevPlanner(parse, query_string, cursorOptions, boundParams);
	else
		result = standard_planner(parse, query_string, cursorOptions, boundParams);
	MrfCitusAfterPlanning(citus_nestlevel);
	return result;
}

static void
MrfExecutorStart(QueryDesc *queryDesc, int eflags)
{
	bool		track = MrfLedgerBeforeExecutorStart(queryDesc);

	if (PrevExecutorStart)
		PrevExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	MrfLedgerAfterExecutorStart(queryDesc, track);
}

static void
MrfShmemRequest(void)
{
	if (PrevShmemRequest)
		PrevShmemRequest();
	MrfProgressShmemRequest();
}

static void
MrfShmemStartup(void)
{
	if (PrevShmemStartup)
		PrevShmemStartup();
	MrfProgressShmemStartup();
}

/* Later hooks see the message as the client will. */
static void
MrfEmitLog(ErrorData *edata)
{
	MrfOwnerQuietCitusMessage(edata);
	if (PrevEmitLog)
		PrevEmitLog(edata);
}

/* See hooks.h. */
void
MrfInstallHooks(void)
{
	PrevPostParseAnalyze = post_parse_analyze_hook;
	post_parse_analyze_hook = MrfPostParseAnalyze;
	PrevPlanner = planner_hook;
	planner_hook = MrfPlanner;
	PrevExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = MrfExecutorStart;
	PrevEmitLog = emit_log_hook;
	emit_log_hook = MrfEmitLog;
	/* shared memory can be asked for only while the postmaster preloads */
	if (process_shared_preload_libraries_in_progress)
	{
		PrevShmemRequest = shmem_request_hook;
		shmem_request_hook = MrfShmemRequest;
		PrevShmemStartup = shmem_startup_hook;
		shmem_startup_hook = MrfShmemStartup;
	}
}
