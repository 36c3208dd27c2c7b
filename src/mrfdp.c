/*
 * mrfdp.c - module entry: each module defines the settings it reads from its
 * own Init function (driver/run.c, ledger/guard.c, citus/fw.c, ...), called
 * from here; pg/hooks.c installs every hook.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "pg/citus/cluster.h"
#include "pg/driver/run.h"
#include "pg/hooks.h"
#include "pg/ledger/guard.h"
#include "pg/ledger/reads.h"
#include "pg/protected/owner.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Defines the settings module by module, then installs the hooks. */
void
_PG_init(void)
{
	MrfRunInit();
	MrfCatalogGuardInit();
	MarkGUCPrefixReserved("mrfdp");

	MrfLedgerInit();
	MrfCitusFwInit();
	MrfCitusStableInit();
	MrfOwnerInit();
	MrfInstallHooks();
}
