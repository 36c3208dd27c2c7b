/*
 * budget.h - catalog access as the extension's owner, shared by the
 * owner-facing functions and the learners' grant checks.
 */
#ifndef MRF_PG_BUDGET_H
#define MRF_PG_BUDGET_H

#include "postgres.h"

/*
 * Runs one query on the mrfdp catalog as the extension's owner (inside
 * SPI_connect); returns SPI_processed.
 */
uint64		MrfCatalogQuery(const char *sql, int nargs, Oid *types, Datum *values,
							const char *nulls, bool read_only);

#endif
