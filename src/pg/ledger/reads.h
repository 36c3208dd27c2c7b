/*
 * ledger/reads.h - the relations the running transaction has read, as the
 * executor hook (hooks.c) records them for the privacy ledger.
 */
#ifndef MRF_PG_LEDGER_READS_H
#define MRF_PG_LEDGER_READS_H

#include "postgres.h"

#include "executor/execdesc.h"

/* Registers the transaction callback that forgets a transaction's reads. */
void		MrfLedgerInit(void);

/*
 * The executor hook's two halves (hooks.c): before ExecutorStart, whether
 * this query's range table is to be recorded (a parallel worker's fragment
 * is recorded or checked here); after it, records it.
 */
bool		MrfLedgerBeforeExecutorStart(QueryDesc *queryDesc);
void		MrfLedgerAfterExecutorStart(QueryDesc *queryDesc, bool track);

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
