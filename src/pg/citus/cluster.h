/*
 * citus/cluster.h - mrfdp on a Citus cluster: learners run and are charged on the
 * coordinator, where the budgets live; nodes that cannot charge refuse.
 */
#ifndef MRF_PG_CITUS_H
#define MRF_PG_CITUS_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"

/*
 * The planner hook's Citus part (hooks.c): before planning a query that
 * calls a learner on a Citus table, wraps its grouping columns and switches
 * Citus's router planners off for it, returning the GUC nest level to undo
 * after planning (-1: nothing to undo); does nothing without Citus.
 */
int			MrfCitusBeforePlanning(Query *parse);
void		MrfCitusAfterPlanning(int nestlevel);

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
 * ROW(sample, options) argument (citus/state.c).
 */
Oid			MrfCitusSampleType(FunctionCallInfo fcinfo);

/*
 * Whether relid is a Citus table of any kind (distributed, reference or
 * Citus local: its rows live in shards).
 */
bool		MrfCitusIsCitusTable(Oid relid);

/* Whether relid is a Citus hash-distributed table (its rows on the workers). */
bool		MrfCitusIsDistributed(Oid relid);

/* The shards of a distributed table and the nodes holding them (public metadata). */
void		MrfCitusShardLayout(Oid relid, int *shards, int *nodes);

/* ---- distributed Frank-Wolfe (citus/fw.c; docs/citus_fw.md) ---- */

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
 * iterations 1 .. t-1 ((t-1) x q each), or with last (t >= 2) of iteration
 * t-1 only (q each): only the shards kept one iteration behind answer it
 * (the others add nothing, and the driver sends the whole step).
 */
struct MrfFwDesign;
bytea	   *MrfFwStepCreate(uint64 learn, const struct MrfFwDesign *design, int t, bool last,
							const int *sel_j, const int *sel_sign);

/* The iteration of the step that frees a learn's kept parts (TABLESAMPLE mrfdp_internal.mrf_fw_kept). */
#define MRF_FW_STEP_FORGET (-1)

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
 * coordinates, q problems and iteration t: the rows, the substituted rows,
 * the rows' fingerprint (the sum of a hash of each row as read) and
 * (t >= 1) the d q sums.
 */
void		MrfFwSumsRead(bytea *flat, int d, int q, int t, int64 *n, int64 *substituted,
						  uint64 *fingerprint, int64 *sums);

/* ---- the stable mode's blocks on the shards (citus/stable.c; privacy.md 7.3) ---- */

struct MrfStructure;

/* mrfdp.distributed_stable_blocks (auto, on, off: the MrfDistributedFwMode values) */
extern int	MrfDistributedStable;

/* Defines mrfdp.distributed_stable_blocks. */
void		MrfCitusStableInit(void);

#define MRF_STABLE_ISING 0
#define MRF_STABLE_TWISE 1
#define MRF_STABLE_PAIRWISE 2

/* What every shard needs to cut and learn its blocks (public values only). */
typedef struct MrfStableStep
{
	int			p;
	int			model;			/* MRF_STABLE_ISING, _TWISE or _PAIRWISE */
	int			t;				/* t-wise order */
	int			k;				/* pairwise: the alphabet 0..k-1 (2 for binary rows) */
	int			blocks;			/* b: blocks per shard */
	int64		cap;			/* c: rows kept per block at most */
	double		eta;
	double		lambda;
} MrfStableStep;

/* The step as the aggregate's bytea parameter. */
bytea	   *MrfStableStepCreate(const MrfStableStep *st);

/* The block learner's minimum rows per block (a block below it abstains). */
int64		MrfStableMinRows(const MrfStableStep *st);

/* Bytes one shard's part needs (b c packed rows, a block's workspace, structures). */
double		MrfStableShardBytes(const MrfStableStep *st);

/* Marks the driver's aggregate call (the final function refuses outside it). */
void		MrfStableDriverCall(bool active);

/* The number of shards of a Citus table (0 without Citus): table metadata, public. */
int			MrfCitusShardCount(Oid relid);

/*
 * The result of the blocks aggregate, checked to be of (p, b): the rows,
 * the substituted rows, and the non-abstaining blocks' canonical
 * structures (palloc'd in the current context).
 */
void		MrfStableBlocksRead(bytea *flat, int p, int blocks, int64 *n, int64 *substituted,
								struct MrfStructure **structs, int *nstructs);

#endif							/* MRF_PG_CITUS_H */
