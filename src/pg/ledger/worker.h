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
 * The ledger rows a charge wrote (MrfChargeInWorker), for MrfSettleRows;
 * session: the charge worker that committed them and waits to settle them
 * (NULL: a settling starts a worker of its own).
 */
struct MrfLedgerReceipt
{
	int			nrows;
	int64	   *ids;
	struct MrfChargeSession *session;
};

/*
 * Charges charge, on behalf of role, to the protected ones among relids
 * (every one of them when protected_path) and records the ledger rows, in
 * the charge worker's transaction; returns only when it has committed, and
 * errors (nothing charged) when a budget would be exceeded.  receipt
 * (may be NULL) gets the ledger rows written; with a receipt, the worker
 * stays (outside any transaction) until MrfSettleRows settles them, or the
 * caller's request goes away (its error, its end).
 */
void		MrfChargeInWorker(const MrfCharge *charge, Oid role, bool protected_path,
						 const Oid *relids, int nrelations, MrfLedgerReceipt *receipt);

/*
 * Settles the ledger rows of a charge committed with rows -1 (before its
 * read) with the rows read, through the charge worker that committed them
 * (or a new one); charges nothing.
 */
void		MrfSettleRows(const MrfLedgerReceipt *receipt, const MrfCharge *charge, int64 rows);

#endif
