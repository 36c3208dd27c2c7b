/*
 * ledger/guard.h - the extension's schema and owner, read from pg_extension
 * (ledger/guard.c, which also keeps the ledger from being erased by a DROP).
 */
#ifndef MRF_PG_CATALOG_GUARD_H
#define MRF_PG_CATALOG_GUARD_H

#include "postgres.h"

/* Defines mrfdp.allow_drop_with_budgets, which the guard reads. */
void		MrfCatalogGuardInit(void);

/* The schema and owner of the installed extension mrfdp; false if absent. */
bool		MrfExtensionSchemaAndOwner(Oid *schema, Oid *owner);

#endif
