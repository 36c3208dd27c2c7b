/*
 * mrfdp.c - module entry: each module defines the settings it reads and
 * installs its hooks from its own Init function (release.c, catalog_guard.c,
 * citus.c, ...), called from here.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "pg/catalog_guard.h"
#include "pg/citus.h"
#include "pg/ledger_hooks.h"
#include "pg/named_call.h"
#include "pg/progress.h"
#include "pg/release.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Defines the settings and installs the hooks, module by module. */
void
_PG_init(void)
{
	MrfReleaseInit();
	MrfCatalogGuardInit();
	MarkGUCPrefixReserved("mrfdp");

	MrfInstallNamedCallHook();
	MrfProgressInit();
	MrfLedgerInit();
	MrfCitusInit();
	MrfCitusFwInit();
	MrfCitusStableInit();
}
