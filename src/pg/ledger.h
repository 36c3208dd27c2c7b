/*
 * ledger.h - the privacy ledger: which relations a statement reads, and
 * charging them before a release, in a transaction the caller cannot undo.
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
} MrfCharge;

/* Room for the exact decimal expansion of any double. */
#define MRF_EXACT_DECIMAL_LEN 1200

/* Writes the exact decimal expansion of a finite double >= 0. */
void		MrfExactDecimal(char *buf, size_t len, double x);

/* The schema and owner of the installed extension mrfdp (catalog_guard.c); false if absent. */
bool		MrfExtensionSchemaAndOwner(Oid *schema, Oid *owner);

/* Installs the executor hooks that track the relations a statement reads. */
void		MrfLedgerInit(void);

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
 * charge is committed.
 */
void		MrfChargeRelation(Oid relid, Oid role, const MrfCharge *charge);

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

/* Whether charge fits relid's budget now, by the charge worker's own condition. */
bool		MrfChargeFits(Oid relid, const MrfCharge *charge);

/* Errors unless role may learn from relid through the protected path. */
void		MrfCheckLearningGrant(Oid relid, Oid role);

#endif
