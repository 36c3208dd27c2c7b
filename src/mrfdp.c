/*
 * mrfdp.c - module entry: each module defines the settings it reads and
 * installs its hooks from its own Init function (driver/run.c, ledger/guard.c,
 * citus/cluster.c, ...), called from here.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "pg/ledger/guard.h"
#include "pg/citus/cluster.h"
#include "pg/ledger/hooks.h"
#include "pg/sqlapi/named_call.h"
#include "pg/sqlapi/progress.h"
#include "pg/driver/run.h"

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
