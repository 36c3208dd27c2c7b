/*
 * citus.h - mrfdp on a Citus cluster: learners run and are charged on the
 * coordinator, where the budgets live; nodes that cannot charge refuse.
 */
#ifndef MRF_PG_CITUS_H
#define MRF_PG_CITUS_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"

/* Installs the planner hook that keeps learners on the Citus coordinator. */
void		MrfCitusInit(void);

/*
 * Errors when this backend runs on a Citus worker, or for another Citus
 * node (an internal connection): no release may happen where the logical
 * relation's budget cannot be charged.  Does nothing without Citus.
 */
void		MrfCitusRefuseOffCoordinator(const char *learner);

/*
 * The logical (distributed or reference) tables of those relids that are
 * Citus shards, as a list of OIDs; NIL without Citus.
 */
List	   *MrfCitusLogicalRelations(const Oid *relids, int n);

/*
 * Whether rte is the entry Citus puts first in a distributed plan's range
 * table for its remote scan (the tables the scan reads follow it).
 */
bool		MrfCitusRemoteScan(const PlannedStmt *stmt, const RangeTblEntry *rte);

#endif							/* MRF_PG_CITUS_H */
