/*
 * mrfdp.c - module entry: settings and hook registration.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "core/fw.h"
#include "mrfdp.h"
#include "pg/citus.h"
#include "pg/ledger_hooks.h"
#include "pg/named_call.h"
#include "pg/progress.h"

PG_MODULE_MAGIC;

int			MrfTestSeed = -1;
int			MrfBlasThreads = 1;
int			MrfMaxLearnerMemory = 1024 * 1024;	/* kB: 1 GB */
bool		MrfProgress = false;
bool		MrfAllowDropWithBudgets = false;

void		_PG_init(void);

/*
 * The Frank-Wolfe solver plans its per-thread memory from its thread count,
 * so the count follows the setting at once (memory checks run before a
 * learner starts).  Setting a number starts no thread.
 */
static void
AssignLearnerThreads(int newval, void *extra)
{
	MrfFwSetThreads(newval);
}

/* Defines the settings and installs the named-call rewrite. */
void
_PG_init(void)
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
	 * OpenBLAS threads are only ever requested right before a learner runs,
	 * inside a backend, never at load time: a preloaded library must not
	 * leave BLAS threads behind in the postmaster.
	 *
	 * The thread count and the memory guard are resource limits that protect
	 * the server from its users (as temp_file_limit does), so only a
	 * superuser sets them: per role with ALTER ROLE ... SET, or delegated
	 * with GRANT SET ON PARAMETER.  A value an unprivileged role set before
	 * the library was loaded is dropped with a warning when it loads.
	 */
	DefineCustomIntVariable("mrfdp.blas_threads",
							"OpenBLAS threads a learner may use in this backend.",
							"Only superusers (or roles granted SET on it) can change this setting.",
							&MrfBlasThreads,
							1, 1, MRF_FW_MAX_THREADS,
							PGC_SUSET, 0,
							NULL, AssignLearnerThreads, NULL);

	DefineCustomIntVariable("mrfdp.max_learner_memory",
							"Largest working memory a learner may plan for, including the packed rows.",
							"Only superusers (or roles granted SET on it) can change this setting.",
							&MrfMaxLearnerMemory,
							1024 * 1024, 1024, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("mrfdp.progress",
							 "Report learner progress as NOTICE messages.",
							 NULL,
							 &MrfProgress,
							 false,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	/*
	 * Dropping the extension erases every budget, grant and ledger row; the
	 * event trigger mrfdp_refuse_drop_with_budgets refuses it while budgets
	 * exist unless a superuser says so here.
	 */
	DefineCustomBoolVariable("mrfdp.allow_drop_with_budgets",
							 "Allow dropping the mrfdp extension while relations are protected.",
							 "Dropping it erases every budget, grant and ledger row. Only superusers can change this setting.",
							 &MrfAllowDropWithBudgets,
							 false,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("mrfdp");

	MrfInstallNamedCallHook();
	MrfProgressInit();
	MrfLedgerInit();
	MrfCitusInit();
}
