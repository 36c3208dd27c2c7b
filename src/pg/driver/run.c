/*
 * driver/run.c - the common path of every learner from packed rows to a model.
 */
#include "postgres.h"

#include <math.h>

#include <cblas.h>

#include <limits.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "core/fw.h"
#include "pg/model/model.h"
#include "pg/sqlapi/progress.h"
#include "pg/driver/run.h"

int			MrfTestSeed = -1;
int			MrfMaxLearnerMemory = 1024 * 1024;	/* kB: 1 GB */
bool		MrfProgress = false;
int			MrfLearnerThreads = 1;
static int	MrfBlasThreadsAlias = 1;

/*
 * The learner's thread count from mrfdp.learner_threads and its old name
 * mrfdp.blas_threads (kept as an alias): the new name wins unless it is at
 * its default of 1, so a configuration written for the old name keeps its
 * meaning and one that sets the new name is not overridden by the old.
 * PostgreSQL has no aliases for extension settings; two settings and this
 * rule give the same effect without either assign hook writing the other
 * (which transaction-end rollback of either would undo).
 */
static int
EffectiveThreads(int learner_threads, int blas_threads)
{
	return learner_threads != 1 ? learner_threads : blas_threads;
}

/* The thread count a learner starting now uses. */
int
MrfLearnerThreadCount(void)
{
	return EffectiveThreads(MrfLearnerThreads, MrfBlasThreadsAlias);
}

/*
 * The Frank-Wolfe solver plans its per-thread memory from its thread count,
 * so the count follows either setting at once (memory checks run before a
 * learner starts).  Setting a number starts no thread.
 */
static void
AssignLearnerThreads(int newval, void *extra)
{
	MrfFwSetThreads(EffectiveThreads(newval, MrfBlasThreadsAlias));
}

/* mrfdp.blas_threads changed: the same count, through the rule above. */
static void
AssignBlasThreadsAlias(int newval, void *extra)
{
	MrfFwSetThreads(EffectiveThreads(MrfLearnerThreads, newval));
}

/* Defines the settings a learner run reads (called from _PG_init). */
void
MrfRunInit(void)
{
	DefineCustomIntVariable("mrfdp.test_seed",
							"Seed for reproducible, NOT private learning (tests only).",
							"-1 (the default) draws all noise from a cryptographically secure generator. "
							"Any other value makes every learner reproducible; its models are stamped as not private.",
							&MrfTestSeed,
							-1, -1, INT_MAX,
							PGC_SUSET, 0,
							NULL, NULL, NULL);

	/*
	 * The memory guard is a resource limit that protects the server from its
	 * users (as temp_file_limit does), so only a superuser sets it: per role
	 * with ALTER ROLE ... SET, or delegated with GRANT SET ON PARAMETER.
	 */
	DefineCustomIntVariable("mrfdp.max_learner_memory",
							"Largest working memory a learner may plan for, including the packed rows.",
							"Only superusers (or roles granted SET on it) can change this setting.",
							&MrfMaxLearnerMemory,
							1024 * 1024, 1024, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	/*
	 * OpenBLAS threads are only ever requested right before a learner runs,
	 * inside a backend, never at load time: a preloaded library must not
	 * leave BLAS threads behind in the postmaster.  Like the memory guard, a
	 * resource limit only a superuser sets; a value an unprivileged role set
	 * before the library was loaded is dropped with a warning when it loads.
	 */
	DefineCustomIntVariable("mrfdp.learner_threads",
							"Threads a learner may use in this backend (Frank-Wolfe row blocks and OpenBLAS).",
							"Only superusers (or roles granted SET on it) can change this setting. "
							"mrfdp.blas_threads is its old name: it applies while this setting is 1.",
							&MrfLearnerThreads,
							1, 1, MRF_FW_MAX_THREADS,
							PGC_SUSET, 0,
							NULL, AssignLearnerThreads, NULL);

	DefineCustomIntVariable("mrfdp.blas_threads",
							"Old name of mrfdp.learner_threads, kept as an alias.",
							"Applies while mrfdp.learner_threads is 1 (its default); mrfdp.learner_threads wins otherwise. "
							"Only superusers (or roles granted SET on it) can change this setting.",
							&MrfBlasThreadsAlias,
							1, 1, MRF_FW_MAX_THREADS,
							PGC_SUSET, 0,
							NULL, AssignBlasThreadsAlias, NULL);

	DefineCustomBoolVariable("mrfdp.progress",
							 "Report learner progress as NOTICE messages.",
							 "When on, a learner sends a NOTICE each time another tenth of its work is done "
							 "(its iterations, blocks or rounds, which are public). "
							 "mrf_progress() shows running learners whatever this setting "
							 "(with mrfdp in shared_preload_libraries).",
							 &MrfProgress,
							 false,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/*
 * The core's allocator under PostgreSQL: zeroed huge allocations, NULL on
 * failure, in the memory context that ctx points to (a run's: MrfRun starts
 * with it; CurrentMemoryContext for MrfPallocEnv).  Not malloc: an error
 * anywhere frees the context, and malloc'd memory would then leak for the
 * life of the backend.
 */
static void *
PallocAlloc(void *ctx, size_t bytes)
{
	MemoryContext cxt = *(MemoryContext *) ctx;

	return MemoryContextAllocExtended(cxt, bytes == 0 ? 1 : bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM | MCXT_ALLOC_ZERO);
}

/* Core allocator for buffers the core overwrites entirely: not zeroed. */
static void *
RunAllocUninit(void *ctx, size_t bytes)
{
	MrfRun	   *run = (MrfRun *) ctx;

	return MemoryContextAllocExtended(run->mcxt, bytes == 0 ? 1 : bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/*
 * Whether RunPoll has an interrupt to process; the core's learner threads
 * stop before it polls.  Reads a flag only.
 */
static int
RunPending(void *ctx)
{
	(void) ctx;
	return INTERRUPTS_PENDING_CONDITION() ? 1 : 0;
}

/* Core deallocator. */
static void
PallocRelease(void *ctx, void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

/* Poll outside a learner run: honours cancel. */
static void
PallocPoll(void *ctx, int64_t done, int64_t total)
{
	CHECK_FOR_INTERRUPTS();
}

/* See driver/run.h. */
const MrfEnv MrfPallocEnv = {
	.alloc = PallocAlloc,
	.release = PallocRelease,
	.poll = PallocPoll,
	.ctx = &CurrentMemoryContext,
};

/*
 * Core poll: honours cancel and statement_timeout, and reports progress.
 * total <= 0 is an interrupt check with no figure (the engines' inner
 * loops).  A figure below the last starts a new phase (the scan, then the
 * learner's own work): its percentages are reported afresh, and once a
 * phase has run 5 seconds, the NOTICE (every tenth) adds the time left at
 * the phase's pace so far, mrf_progress()'s seconds_left
 * (MrfProgressSecondsLeft; never within a short run, so a short run's
 * NOTICEs stay the same from run to run).
 */
static void
RunPoll(void *ctx, int64_t done, int64_t total)
{
	MrfRun	   *run = (MrfRun *) ctx;
	TimestampTz now;

	CHECK_FOR_INTERRUPTS();
	if (total <= 0)
		return;
	if (done < run->last_done || run->phase_started == 0)
	{
		run->last_percent = 0;
		run->phase_started = GetCurrentTimestamp();
	}
	run->last_done = done;
	MrfProgressUpdate(done, total, run->phase_started);
	if (MrfProgress)
	{
		int64		percent = done * 100 / total;

		if (percent / 10 > run->last_percent / 10)
		{
			double		elapsed;

			run->last_percent = percent;
			now = GetCurrentTimestamp();
			elapsed = (double) (now - run->phase_started) / 1e6;
			/* from 5 s on only, so that a short run's NOTICEs are the same every time */
			if (elapsed >= 5.0 && percent < 100 && MrfProgressSecondsLeft(elapsed, done, total) >= 0.0)
				ereport(NOTICE,
						(errmsg("%s: %d%% done, about %.0f s left", run->learner, (int) percent,
								ceil(MrfProgressSecondsLeft(elapsed, done, total)))));
			else
				ereport(NOTICE,
						(errmsg("%s: %d%% done", run->learner, (int) percent)));
		}
	}
}

/* Whether planned_bytes fits mrfdp.max_learner_memory. */
bool
MrfMemoryFits(double planned_bytes)
{
	return planned_bytes <= (double) MrfMaxLearnerMemory * 1024.0;
}

/* Errors unless planned_bytes fits mrfdp.max_learner_memory. */
void
MrfCheckMemory(const char *learner, double planned_bytes)
{
	double		limit = (double) MrfMaxLearnerMemory * 1024.0;

	if (planned_bytes > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s would need %.0f MB of working memory", learner,
						planned_bytes / (1024.0 * 1024.0)),
				 errdetail("mrfdp.max_learner_memory is %.0f MB.", limit / (1024.0 * 1024.0)),
				 errhint("Raise mrfdp.max_learner_memory, or learn from fewer rows or variables.")));
}

/* Starts a learner run. */
void
MrfRunBegin(MrfRun *run, const char *learner)
{
	memset(run, 0, sizeof(*run));
	run->learner = learner;
	run->mcxt = AllocSetContextCreate(CurrentMemoryContext, "mrfdp learner",
									  ALLOCSET_DEFAULT_SIZES);
	run->env.alloc = PallocAlloc;	/* ctx is the run, which starts with mcxt */
	run->env.release = PallocRelease;
	run->env.poll = RunPoll;
	run->env.ctx = run;
	run->env.pending = RunPending;
	run->env.alloc_uninit = RunAllocUninit;
	run->started = GetCurrentTimestamp();
	MrfProgressStart(learner);

	/*
	 * The secure generator is the default; only a superuser can set
	 * mrfdp.test_seed (PGC_SUSET), and every model it makes says so.
	 */
	if (MrfTestSeed >= 0)
	{
		MrfRngInitSeeded(&run->rng, (uint64) MrfTestSeed);
		run->not_private = true;
	}
	else if (MrfRngInitSecure(&run->rng) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not obtain random bytes from the operating system"),
				 errdetail("getrandom(2) failed: %m.")));

	/*
	 * BLAS threads are set here, in the backend, never in the postmaster.
	 * The Frank-Wolfe learners run their own threads (MrfFwSetThreads, set
	 * with the setting); BLAS threads serve the structure learners.
	 */
	MrfFwSetThreads(MrfLearnerThreadCount());
	openblas_set_num_threads(MrfLearnerThreadCount());
}

/* Raises the error matching a core status. */
void
MrfRunCheck(MrfRun *run, int status)
{
	switch (status)
	{
		case MRF_OK:
			return;
		case MRF_ENOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in %s", run->learner)));
			break;
		case MRF_ERNG:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not obtain random bytes from the operating system")));
			break;
		case MRF_ERANGE:
			/* as mrf_marginal words it: finite parameters whose sums overflow */
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: the model's marginals are not finite numbers", run->learner),
					 errdetail("Its parameters are too large for exact inference in double precision.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("%s failed with internal status %d", run->learner, status)));
	}
}

/* Frees what the run allocated. */
void
MrfRunEnd(MrfRun *run)
{
	MrfProgressEnd();
	explicit_bzero(&run->rng, sizeof(run->rng));
	MemoryContextDelete(run->mcxt);
}

/* Starts the metadata document of a release. */
void
MrfMetaBegin(StringInfo buf, const MrfRun *run, const char *algorithm, int64 rows)
{
	initStringInfo(buf);
	appendStringInfoString(buf, "{\"learner\": ");
	escape_json(buf, run->learner);
	appendStringInfoString(buf, ", \"algorithm\": ");
	escape_json(buf, algorithm);
	appendStringInfo(buf, ", \"rows\": " INT64_FORMAT, rows);
	appendStringInfoString(buf, ", \"neighbours\": \"replace-one\"");
	appendStringInfo(buf, ", \"private\": %s", run->not_private ? "false" : "true");
	if (run->not_private)
		appendStringInfo(buf, ", \"test_seed\": %d", MrfTestSeed);
	/*
	 * The learner's own time: the work it times does not branch on the data
	 * (fixed-size BLAS products, one noise draw per candidate), and the
	 * caller sees the statement's duration anyway.
	 */
	appendStringInfo(buf, ", \"learn_seconds\": %.3f",
					 (double) (GetCurrentTimestamp() - run->started) / USECS_PER_SEC);
	appendStringInfoString(buf, ", \"created\": ");
	escape_json(buf, timestamptz_to_str(GetCurrentTimestamp()));
}

/* The width members of a release's metadata (driver/run.h). */
void
MrfMetaAppendWidth(StringInfo buf, double width, double lambda)
{
	double		ratio = width / lambda;

	appendStringInfo(buf, ", \"width\": %s, \"width_to_lambda\": %s, \"width_at_bound\": %s",
					 MrfDoubleText(width), MrfDoubleText(ratio),
					 ratio >= MRF_WIDTH_AT_BOUND ? "true" : "false");
}

/* A number member of a metadata document, or NaN. */
static double
MetaNumber(JsonbContainer *meta, const char *key)
{
	JsonbValue	v;

	if (!MrfJsonGetKey(meta, key, &v) || v.type != jbvNumeric)
		return NAN;
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v.val.numeric)));
}

/* Says so when the released estimate sits at its width bound. */
void
MrfWidthNotice(const MrfModel *model)
{
	JsonbContainer *meta = &MrfModelMeta(model)->root;
	JsonbValue	v;
	const char *learner = "the learner";

	if (!MrfJsonGetKey(meta, "width_at_bound", &v) || v.type != jbvBool || !v.val.boolean)
		return;
	if (MrfJsonGetKey(meta, "learner", &v) && v.type == jbvString)
		learner = pnstrdup(v.val.string.val, v.val.string.len);
	ereport(NOTICE,
			(errmsg("%s: the estimate sits at its width bound lambda = %s",
					learner, MrfDoubleText(MetaNumber(meta, "lambda"))),
			 errdetail("The released estimate has width %.3g, %.0f%% of lambda; the model is probably as wide as lambda or wider, and the estimate is then biased towards zero.",
					   MetaNumber(meta, "width"), 100.0 * MetaNumber(meta, "width_to_lambda")),
			 errhint("Learn again with a larger lambda (the width is \"width\" in the model's metadata).")));
}

/* Closes and parses the metadata document. */
Jsonb *
MrfMetaFinish(StringInfo buf)
{
	appendStringInfoChar(buf, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf->data)));
}
