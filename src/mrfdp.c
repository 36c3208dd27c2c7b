/*
 * mrfdp.c - module entry: each module defines the settings it reads and
 * installs its hooks from its own Init function (release.c, catalog_guard.c,
 * citus.c, ...), called from here; mrfdp.blas_threads is still defined here.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "core/fw.h"
#include "mrfdp.h"
#include "pg/catalog_guard.h"
#include "pg/citus.h"
#include "pg/ledger_hooks.h"
#include "pg/named_call.h"
#include "pg/progress.h"
#include "pg/release.h"

PG_MODULE_MAGIC;

int			MrfBlasThreads = 1;

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

/* Defines the settings and installs the hooks, module by module. */
void
_PG_init(void)
{
	MrfReleaseInit();

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

	MrfCatalogGuardInit();
	MarkGUCPrefixReserved("mrfdp");

	MrfInstallNamedCallHook();
	MrfProgressInit();
	MrfLedgerInit();
	MrfCitusInit();
}
