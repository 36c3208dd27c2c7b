/*
 * ledger/worker.h - charging a release through the charge worker, in a
 * transaction of its own that the caller cannot undo.
 */
#ifndef MRF_PG_LEDGER_WORKER_H
#define MRF_PG_LEDGER_WORKER_H

#include "postgres.h"

#include "pg/ledger/ledger.h"

/* Most relations one release may charge (the request is about 160 bytes each). */
#define MRF_CHARGE_MAX_RELATIONS 100000

/*
 * Charges charge, on behalf of role, to the protected ones among relids
 * (every one of them when protected_path) and records the ledger rows, in
 * the charge worker's transaction; returns only when it has committed, and
 * errors (nothing charged) when a budget would be exceeded.
 */
void		MrfChargeInWorker(const MrfCharge *charge, Oid role, bool protected_path,
						 const Oid *relids, int nrelations);

#endif
