/*
 * ledger/hooks.h - the relations the running transaction has read, as the
 * executor hooks record them for the privacy ledger.
 */
#ifndef MRF_PG_LEDGER_HOOKS_H
#define MRF_PG_LEDGER_HOOKS_H

#include "postgres.h"

/* Installs the executor hooks that track the relations a statement reads. */
void		MrfLedgerInit(void);

/*
 * Errors when the running transaction started before the library was
 * loaded: what it read before is unknown, so nothing may be released.
 */
void		MrfRequireTrackedTransaction(const char *learner);

/*
 * The relations the transaction has read so far (n of them; valid until the
 * set next grows).
 */
const Oid  *MrfStatementRelations(int *n);

/* Adds a relation to the set (an ancestor or a Citus table of one read). */
void		MrfStatementAddRelation(Oid relid);

#endif
