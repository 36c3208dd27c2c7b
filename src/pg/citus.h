/*
 * citus.h - mrfdp on a Citus cluster: learners run and are charged on the
 * coordinator, where the budgets live; nodes that cannot charge refuse.
 */
#ifndef MRF_PG_CITUS_H
#define MRF_PG_CITUS_H

#include "postgres.h"

#include "fmgr.h"
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

/*
 * The type of a Citus sibling's sample argument: from the call's expression,
 * or, when Citus's worker_partial_agg calls the transition, from its
 * ROW(sample, options) argument (citus_state.c).
 */
Oid			MrfCitusSampleType(FunctionCallInfo fcinfo);

/*
 * Whether relid is a Citus table of any kind (distributed, reference or
 * Citus local: its rows live in shards).
 */
bool		MrfCitusIsCitusTable(Oid relid);

/* Whether relid is a Citus hash-distributed table (its rows on the workers). */
bool		MrfCitusIsDistributed(Oid relid);

/* ---- distributed Frank-Wolfe (citus_fw.c; docs/citus_fw.md) ---- */

/* mrfdp.distributed_frank_wolfe */
typedef enum MrfDistributedFwMode
{
	MRF_DFW_AUTO,
	MRF_DFW_ON,
	MRF_DFW_OFF
} MrfDistributedFwMode;
extern int	MrfDistributedFw;

/* Defines mrfdp.distributed_frank_wolfe. */
void		MrfCitusFwInit(void);

/*
 * The step of release learn (a random id) at iteration t (0: only count the
 * rows) of a learner's problem (core/fwdesign.h) and the selections of
 * iterations 1 .. t-1 ((t-1) x q each).
 */
struct MrfFwDesign;
bytea	   *MrfFwStepCreate(uint64 learn, const struct MrfFwDesign *design, int t,
							const int *sel_j, const int *sel_sign);

/*
 * Frees this backend's kept shards (the driver calls it when a distributed
 * learn ends, however it ends: the coordinator's own shards were kept in
 * the caller's backend).
 */
void		MrfFwCacheForget(void);

/* Marks the driver's aggregate call (the final function refuses outside it). */
void		MrfFwDriverCall(bool active);

/*
 * The result of the scores aggregate, checked to be of a step of d
 * coordinates, q problems and iteration t: the rows, the substituted rows
 * and (t >= 1) the d q sums.
 */
void		MrfFwSumsRead(bytea *flat, int d, int q, int t, int64 *n, int64 *substituted,
						  int64 *sums);

#endif							/* MRF_PG_CITUS_H */
