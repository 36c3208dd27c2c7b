/*
 * ledger/ledger.h - the privacy ledger: which relations a statement reads, and
 * charging them before a release, in a transaction the caller cannot undo
 * (ledger/ledger.c; its pieces have their own headers: ledger/reads.h,
 * ledger/catalog.h, ledger/worker.h).
 */
#ifndef MRF_PG_LEDGER_H
#define MRF_PG_LEDGER_H

#include "postgres.h"

typedef enum MrfNotion
{
	MRF_NOTION_ZCDP = 0,		/* rho-zCDP */
	MRF_NOTION_PURE = 1,		/* epsilon-DP */
	MRF_NOTION_APPROX = 2		/* (epsilon, delta)-DP */
} MrfNotion;

/* What one release costs. */
typedef struct MrfCharge
{
	const char *learner;
	MrfNotion	notion;
	double		rho;			/* zCDP */
	double		epsilon;		/* pure or approximate */
	double		delta;			/* approximate */
	int64		rows;

	/*
	 * The amount the caller typed (rho, or epsilon), when the charge
	 * composes a surcharge onto it (the protected path's count of
	 * substituted rows); 0 otherwise.  For messages only.
	 */
	double		typed;
} MrfCharge;

/* The ledger rows a charge wrote (ledger/worker.h). */
typedef struct MrfLedgerReceipt MrfLedgerReceipt;

/*
 * Aggregate path: charges every protected relation the running statement
 * reads and records the unprotected ones.  Returns only when the charge is
 * committed; errors (releasing nothing) when a budget would be exceeded.
 */
void		MrfChargeStatement(const MrfCharge *charge);

/*
 * Protected path: charges, on behalf of role and in one request, the
 * protected relation relid and every protected relation among its
 * inheritance/partition ancestors and descendants (the read covers the
 * descendants; ancestors cover their children).  Returns only when the
 * charge is committed; receipt (may be NULL) gets its ledger rows, which
 * MrfSettleRows (ledger/worker.h) settles when the charge was made with
 * rows -1, before the read.
 */
void		MrfChargeRelation(Oid relid, Oid role, const MrfCharge *charge,
							  MrfLedgerReceipt *receipt);

/*
 * Aggregate path, before learning: whether the transaction has read a
 * protected relation so far (looked up once per statement unless it read
 * more).  Errors first when the transaction started before the library was
 * loaded (no preload): its earlier reads are unknown.
 */
bool		MrfStatementReadsProtected(const char *learner);

/*
 * Aggregate path, before learning: raises the over-budget error a release of
 * charge would meet if it does not fit every protected relation the
 * transaction has read so far (read-only; the charge at release re-checks
 * atomically).
 */
void		MrfCheckStatementBudget(const MrfCharge *charge);

#endif
