/*
 * driver/learners.h - the learner descriptor: what every learner tells the one
 * driver (driver/plan.h) that runs it on both paths, the aggregate's final function
 * and the protected path.
 *
 * A learner is planned once from its options document (parsed once, defaults
 * filled in) and the public sizes: p and k when the first row is seen (or,
 * on the protected path, from the schema before reading), n when every row
 * is in.  The plan validates, sets the charge (from the options alone), the
 * iterations and the working memory; the driver checks the memory, charges
 * (before learning on the protected path, before release on the aggregate
 * path), runs the learner on the rows, and releases.  Learners never
 * charge, and nothing in a plan reads a row.
 */
#ifndef MRF_PG_LEARNERS_H
#define MRF_PG_LEARNERS_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "core/fwdesign.h"
#include "core/ising.h"
#include "pg/driver/aggregates.h"
#include "pg/ledger/ledger.h"
#include "pg/model/model.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/refusal.h"
#include "pg/driver/run.h"

/*
 * Most cells a counts state holds (MrfLearner.table_cells; Citus workers
 * then ship tables instead of rows: citus/state.c): 32 MB, 64 MB as the
 * text Citus ships, once per shard.  Larger tables cost more to count, ship
 * and add than packed rows (2 bytes a value) for any table of fewer than
 * 16 million values per shard, and they grow as p^2 k^2 in MST: the
 * learners whose tables may pass it (AIM, MST) let rows travel instead.
 */
#define MRF_COUNTS_MAX_CELLS ((int64) 1 << 22)

struct MrfLearner;

/* One release, planned from its options and public sizes. */
typedef struct MrfPlan
{
	const struct MrfLearner *learner;
	MrfOptions	opt;			/* the options, parsed once, defaults filled in */
	int			p;				/* 0 until the first row (or the schema) tells */
	int			k;
	const uint16 *alphabets;	/* per-variable alphabets k_i (p entries) when the
								 * schema or the first row's type gives them;
								 * NULL: every variable has k (an upper bound) */
	const uint8 *kv;			/* alphabets as bytes (the Frank-Wolfe learners'
								 * designs), or NULL (none, or one above 255) */
	int64		n;				/* 0 until every row is in */
	MrfCharge	charge;			/* the learner's, from the options alone */
	int			iterations;		/* planned once n is known (0: the learner has none) */
	double		memory;			/* bytes of working memory, once n is known */
	const char *run_name;		/* the name the run reports (the learner's, or a delegate's) */
	void	   *params;			/* the learner's typed options (its own struct) */
	bool		counts;			/* the run gets its tables, not rows (table_cells below) */
	bool		distributed;	/* the run gets Frank-Wolfe score sums from the workers
								 * (MrfRowsState.fw_scores), or the stable mode's block
								 * structures (MrfRowsState.stable_blocks), not rows */
	int			shards;			/* distributed stable mode: the table's shard count */
	const char *variables;		/* the rows' names and labels (model/names.h's JSON array) when
								 * the schema or the first row's type gives them, else NULL */
} MrfPlan;

/*
 * A learner.  Its checks read public values only and return NULL or a
 * refusal (driver/refusal.h), which the driver raises.
 */
typedef struct MrfLearner
{
	const char *name;			/* SQL name, e.g. "mrf_learn_ising" */
	MrfRowFormat format;		/* the rows it learns from */
	/* Optional: the rows' format when the options decide it. */
	MrfRowFormat (*rows_format) (const MrfPlan *plan);
	/* From plan->opt alone: validates, fills plan->params and plan->charge. */
	MrfRefusal *(*options) (MrfPlan *plan);
	/*
	 * With plan->p and plan->k (plan->n 0): what those sizes refuse.  With
	 * plan->n too: what n refuses, plan->iterations and plan->memory.
	 */
	MrfRefusal *(*plan) (MrfPlan *plan);
	/*
	 * Learns from the rows; appends its own metadata members after the
	 * common ones (MrfPlanMetaBegin) and returns the model, or NULL for a
	 * release of "nothing" (charged all the same).
	 */
	MrfModel   *(*run) (MrfPlan *plan, const MrfRowsState *rows, MrfRun *run);
	/* Optional: explains a NULL model, only after the charge committed. */
	void		(*released_nothing) (const MrfPlan *plan);

	/*
	 * Optional, for learners that read only exact contingency tables of
	 * variable sets their options fix (cliques; MST, its one- and two-way
	 * tables): the number of cells of all its tables, from
	 * plan->p and plan->k, or -1 when they would be too large for a state
	 * (above MRF_COUNTS_MAX_CELLS: rows travel then); and the tables of n code rows (values checked
	 * below their alphabets) added into counts.  Such a learner's run must
	 * also accept counts instead of rows (MrfRowsState.counts): Citus
	 * workers then combine counts, not rows (citus/state.c).
	 */
	int64		(*table_cells) (const MrfPlan *plan);
	void		(*count_rows) (const MrfPlan *plan, const MrfCode *rows, int64 n, int64 *counts);

	/*
	 * Optional, for Frank-Wolfe learners (distributed Frank-Wolfe,
	 * citus/fw.c): with plan->p and plan->k (and plan->alphabets), whether
	 * this plan's run reads its rows only through one Frank-Wolfe problem,
	 * and its design (core/fwdesign.h; kv points at plan->alphabets).  Such a
	 * run must also accept score sums instead of rows (MrfRowsState.fw_scores,
	 * plan->distributed), and its plan with plan->distributed must count the
	 * coordinator's memory only (MrfPlanFwDistributedMemory).
	 */
	bool		(*fw_design) (const MrfPlan *plan, struct MrfFwDesign *design);

	/*
	 * Optional (the structure learner's stable mode): whether this plan's
	 * blocks can be cut and learned on a Citus table's shards (privacy.md
	 * 7.3; citus/from_routes.c).  Such a run must also accept the blocks'
	 * structures instead of rows (MrfRowsState.stable_blocks,
	 * plan->distributed, plan->shards).
	 */
	bool		(*stable_shardable) (const MrfPlan *plan);

	/*
	 * Optional: an options document (JSON text, palloc'd) fixing on every
	 * Citus node what would otherwise come from each node's own settings
	 * (AIM: its default model cap under mrfdp.max_learner_memory, which
	 * decides the workload marginals skipped, so the tables the workers
	 * count).  The coordinator's planner merges it under the call's options
	 * before they travel (citus/cluster.c); the call's own keys win.
	 */
	char	   *(*cluster_options) (void);
} MrfLearner;

/*
 * The coordinator's memory of a distributed Frank-Wolfe run of design over
 * its iterations, with params doubles of output: the selections, one
 * iteration's sums (the driver's, the solver's and their copies) and the
 * weights; the rows stay on the workers, which check their own.
 */
double		MrfPlanFwDistributedMemory(const struct MrfFwDesign *design, int iterations,
									   double params);

/* The refusal of a problem MrfIsingValidate found (NULL if none). */
MrfRefusal *MrfIsingRefusal(MrfProblem problem, const MrfIsingOptions *io, int p, int64 n,
							const char *learner);

extern const MrfLearner MrfIsingLearner;
extern const MrfLearner MrfPairwiseLearner;
extern const MrfLearner MrfTwiseLearner;
extern const MrfLearner MrfStructureLearner;

/*
 * Whether a structure plan is the stable mode on binary rows ('ising' or
 * 'twise'), whose blocks a Citus table's shards can cut (privacy.md 7.3).
 */
bool		MrfStructureShardable(const MrfPlan *plan);
extern const MrfLearner MrfCliquesLearner;
extern const MrfLearner MrfMstLearner;
extern const MrfLearner MrfAimLearner;

/*
 * A clique model of a valid clique set with the log-potential tables logpot
 * (set->cells, the core's layout): for learners that release clique models
 * of a structure they chose (MST).
 */
struct MrfCliqueSet;
MrfModel   *MrfCliquesModelOf(const struct MrfCliqueSet *set, const double *logpot,
							  uint16 flags, Jsonb *meta);

/*
 * A clique model's clique set (palloc'd, valid) and its log-potential
 * tables (the core's layout), for readers of its marginals
 * (mrf_marginal_error).
 */
struct MrfCliqueSet *MrfCliquesModelSet(const MrfModel *model);
double	   *MrfCliquesModelTables(MrfModel *model);

/* Each kind's model operations (model/model.c's table), defined with its learner. */
extern const MrfKindOps MrfIsingOps;
extern const MrfKindOps MrfPairwiseOps;
extern const MrfKindOps MrfTwiseOps;
extern const MrfKindOps MrfStructureOps;
extern const MrfKindOps MrfCliquesOps;

#endif
