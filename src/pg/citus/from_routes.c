/*
 * citus/from_routes.c - the protected path's Citus routes (protected/route.h):
 * on a Citus distributed table, the rows can stay on the shards.
 *
 * Distributed Frank-Wolfe (citus/fw.c, docs/citus_fw.md): a learner whose
 * run is one Frank-Wolfe problem (its fw_design: Ising, pairwise, t-wise l1,
 * structure's threshold method) runs each iteration's exact score sums as a
 * distributed aggregate (as the owner, like the one-node read).  A first
 * run counts the rows (n is public); with auto, the shards are used only
 * when the rows would not fit mrfdp.max_learner_memory here or the cost
 * model predicts them faster.  The model is the one-node model bit for bit.
 * Samples of a type without a scores aggregate (rows of columns, enum
 * arrays) are read on the workers into codes first (mrf_fw_kary_codes,
 * mrf_fw_binary_codes), by the reader set up as on one node (for k-ary
 * rows, with the options k, domains and nulls).
 *
 * The stable mode's blocks on the shards (citus/stable.c, privacy.md 7.3):
 * a learner whose plan is shardable (its stable_shardable member: the
 * structure learner's stable mode) can cut and learn its blocks where the
 * rows are, at the per-shard calibration (twice the noise, a higher
 * threshold).  A first run of the blocks aggregate counts the rows; with
 * auto, only when the gathered rows would not fit mrfdp.max_learner_memory.
 *
 * Both are chosen from public values only, and both count and learn after
 * the release's charge was committed (protected/learn_from.c).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "core/fwdesign.h"
#include "pg/citus/cluster.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"
#include "pg/protected/owner.h"
#include "pg/protected/route.h"

/* A distributed learn's driver state: the relation, the query, what the counting pass saw. */
typedef struct FwDriver
{
	Oid			relid;
	const char *sql;
	MrfFwDesign design;			/* the learner's problem (its kv: the plan's alphabets) */
	int			d;
	int			q;
	uint64		learn;			/* random: the workers' cache key */
	int64		n;
	int64		substituted;
	uint64		fingerprint;	/* of the rows the counting pass read */
} FwDriver;

/*
 * One iteration's exact score sums over the shards (MrfFwScoresFn): the
 * scores aggregate as the relation's owner.  From the second iteration on,
 * first with the last selections only: every shard whose part a backend
 * keeps one iteration behind answers without reading its rows (the
 * kept-parts scan, mrf_fw_kept), any other adds nothing; when the rows so
 * answered are not all that were counted (a miss: another backend, a part
 * not kept, a reconnect), the iteration runs again with every selection,
 * and the shards not kept replay from their rows.  n is public, so which
 * of the two ran says nothing about the data that n does not.  The learn
 * was charged before its first iteration; a failure here withholds its
 * cause and fails, and so does a relation whose rows changed since they
 * were counted: in number, or in what was read (the rows' fingerprint,
 * citus/fw.c), as an UPDATE between two iterations changes them (the model
 * would not be that of one set of rows).
 */
static MrfStatus
DistributedScores(void *arg, int t, const int *sel_j, const int *sel_sign, int64_t *scores)
{
	FwDriver   *drv = arg;
	MrfOwnerCall call;
	int64		n;
	int64		substituted;
	uint64		fingerprint;

	MrfOwnerCallInit(&call, drv->relid, drv->sql, CurrentMemoryContext);
	if (t >= 2)
	{
		call.step = MrfFwStepCreate(drv->learn, &drv->design, t, true,
									sel_j + (Size) (t - 2) * drv->q,
									sel_sign + (Size) (t - 2) * drv->q);
		call.null_ok = true;
		if (MrfAsOwner(&call, MrfOwnerAggregate) != MRF_READ_DONE)
			MrfReadFailedAfterCharge(drv->relid);
		pfree(call.step);
		if (call.result != NULL)
		{
			MrfFwSumsRead(call.result, drv->d, drv->q, t, &n, &substituted, &fingerprint, scores);
			pfree(call.result);
			if (n == drv->n && substituted == drv->substituted && fingerprint == drv->fingerprint)
				return MRF_OK;
		}
		call.null_ok = false;
	}
	call.step = MrfFwStepCreate(drv->learn, &drv->design, t, false, sel_j, sel_sign);
	if (MrfAsOwner(&call, MrfOwnerAggregate) != MRF_READ_DONE)
		MrfReadFailedAfterCharge(drv->relid);
	MrfFwSumsRead(call.result, drv->d, drv->q, t, &n, &substituted, &fingerprint, scores);
	if (n != drv->n || substituted != drv->substituted || fingerprint != drv->fingerprint)
		MrfChangedDuringLearn(drv->relid, "two Frank-Wolfe iterations");
	pfree(call.step);
	pfree(call.result);
	return MRF_OK;
}

/* The stable mode's driver on the shards: the relation, its query, what the counting pass saw. */
typedef struct StableDriver
{
	Oid			relid;
	const char *sql;
	int64		n;
	int64		substituted;
} StableDriver;

/*
 * The stable mode's blocks cut and learned on the shards (MrfStableBlocksFn,
 * citus/stable.c, privacy.md 7.3): the blocks aggregate as the relation's
 * owner, once.  Charged before; a failure withholds its cause, and a
 * relation whose rows changed in number since they were counted fails.
 */
static void
DistributedBlocks(void *arg, const MrfStableStep *step, struct MrfStructure **structs, int *nstructs)
{
	StableDriver *drv = arg;
	MrfOwnerCall	call;
	int64		n;
	int64		substituted;

	MrfOwnerCallInit(&call, drv->relid, drv->sql, CurrentMemoryContext);
	call.step = MrfStableStepCreate(step);
	if (MrfAsOwner(&call, MrfOwnerAggregate) != MRF_READ_DONE)
		MrfReadFailedAfterCharge(drv->relid);
	MrfStableBlocksRead(call.result, step->p, step->blocks, &n, &substituted, structs, nstructs);
	if (n != drv->n || substituted != drv->substituted)
		MrfChangedDuringLearn(drv->relid, "the count and the blocks");
	pfree(call.step);
	pfree(call.result);
}

/* The blocks aggregate for samples of typid (mrfdp_internal.mrf_stable_blocks_agg), or InvalidOid. */
static Oid
BlocksAggregate(Oid typid)
{
	Oid			argtypes[3] = {typid, BYTEAOID, OIDOID};

	return LookupFuncName(list_make2(makeString("mrfdp_internal"), makeString("mrf_stable_blocks_agg")),
						  3, argtypes, true);
}

/*
 * Tells the backends that served the shards to free the learn's kept parts
 * (a query of the kept-parts scan that reads no row).  Best-effort: a
 * failure is not the learn's (the workers free them anyway when the
 * transaction ends), and it reads nothing.
 */
static void
ForgetKeptParts(FwDriver *drv)
{
	MrfOwnerCall	call;

	MrfOwnerCallInit(&call, drv->relid, drv->sql, CurrentMemoryContext);
	call.null_ok = true;
	call.step = MrfFwStepCreate(drv->learn, &drv->design, MRF_FW_STEP_FORGET, false, NULL, NULL);
	(void) MrfAsOwner(&call, MrfOwnerAggregate);
	pfree(call.step);
}

/*
 * The name of the scores aggregate for rows of format: binary rows
 * (mrfdp_internal.mrf_fw_ising_scores_agg, for every binary design) or k-ary ones
 * (mrfdp_internal.mrf_fw_kary_scores_agg).
 */
static const char *
ScoresAggregateName(MrfRowFormat format)
{
	return format == MRF_ROWS_BITS ? "mrf_fw_ising_scores_agg" : "mrf_fw_kary_scores_agg";
}

/*
 * The scores aggregate for samples of typid and rows of format, or
 * InvalidOid when there is none (Citus splits an aggregate only for its
 * exact argument types: rows of columns and enum arrays go through the
 * codes functions first).
 */
static Oid
ScoresAggregate(Oid typid, MrfRowFormat format)
{
	Oid			argtypes[3] = {typid, BYTEAOID, OIDOID};

	return LookupFuncName(list_make2(makeString("mrfdp_internal"), makeString(pstrdup(ScoresAggregateName(format)))),
						  3, argtypes, true);
}

/*
 * The counting pass of the stable mode on the shards: the blocks
 * aggregate's counting step (sql, no row kept) as the relation's owner,
 * after the charge.  A refused source or a failed read ends the call.
 */
static void
StableCount(MrfFromCall *fc, void *arg)
{
	StableDriver *drv = arg;
	MrfOwnerCall call;
	MrfStableStep step;
	struct MrfStructure *none;
	int			nnone;

	memset(&step, 0, sizeof(step));
	/* the rows are read exactly as the blocks will read them (binary or k-ary) */
	step.p = fc->p;
	step.model = fc->format == MRF_ROWS_BYTES ? MRF_STABLE_PAIRWISE : MRF_STABLE_ISING;
	step.k = fc->format == MRF_ROWS_BYTES ? fc->state->k : 2;
	step.blocks = 1;
	step.cap = 0;				/* count only */
	step.eta = 1;
	step.lambda = 1;
	MrfOwnerCallInit(&call, fc->relid, drv->sql, fc->cxt);
	call.step = MrfStableStepCreate(&step);
	MrfOwnerOutcomeCheck(&call, MrfAsOwner(&call, MrfOwnerAggregate), fc->fname);
	MrfStableBlocksRead(call.result, fc->p, 1, &drv->n, &drv->substituted, &none, &nnone);
	fc->n = drv->n;
	fc->substituted = drv->substituted;
}

/*
 * Whether auto predicts the distributed learn faster than gathering the
 * rows and learning them here (core MrfFwCitusCosts, docs/citus_fw.md
 * section 4), from public values only: n (counted), p, the design's sizes,
 * the plan's iterations for n, and the table's shards and nodes (Citus's
 * metadata).  A plan n refuses is left to the one-node path.
 */
static bool
DistributedPredictedFaster(const MrfPlan *plan, const FwDriver *drv, int64 n)
{
	MrfPlan		local = *plan;
	int			shards;
	int			nodes;
	double		gathered;
	double		distributed;

	local.n = n;
	local.iterations = 0;
	local.memory = 0;
	local.distributed = false;
	if (plan->learner->plan(&local) != NULL || local.iterations < 1)
		return false;
	MrfCitusShardLayout(drv->relid, &shards, &nodes);
	MrfFwCitusCosts(n, plan->p, drv->d, drv->q, local.iterations, nodes, shards, &gathered,
					&distributed);
	return distributed < MRF_FW_COST_MARGIN * gathered;
}

/*
 * Whether the plan would learn in place on the coordinator (auto): only
 * when the packed rows and solver fit mrfdp.max_learner_memory there.  A
 * plan n refuses is left to the one-node path, which raises its refusal.
 */
static bool
LocalPlanFits(const MrfPlan *plan, int64 n)
{
	MrfPlan		local = *plan;

	local.n = n;
	local.iterations = 0;
	local.memory = 0;
	local.distributed = false;
	if (plan->learner->plan(&local) != NULL)
		return true;
	return MrfMemoryFits(local.memory);
}

/* Distributed Frank-Wolfe, before the charge: whether it may serve the call. */
static void *
FwPrepare(MrfFromCall *fc)
{
	MrfPlan    *plan = fc->plan;
	FwDriver   *drv;
	const char *scored = fc->sample_expr;
	bool		codes;

	/* option columns are read gathered: the shards' scores read whole row types */
	if (plan->learner->fw_design == NULL || MrfDistributedFw == MRF_DFW_OFF ||
		fc->columns_row != NULL || !MrfCitusIsDistributed(fc->relid))
		return NULL;
	drv = palloc0(sizeof(FwDriver));
	if (!plan->learner->fw_design(plan, &drv->design) ||
		MrfFwDesignSizes(&drv->design, &drv->d, &drv->q) != MRF_OK)
		return NULL;
	codes = !OidIsValid(ScoresAggregate(fc->typid, fc->format));
	if (codes && fc->format == MRF_ROWS_BITS)
		scored = psprintf("mrfdp_internal.mrf_fw_binary_codes(%s, %d)", fc->sample_expr, fc->p);
	else if (codes)
		scored = psprintf("mrfdp_internal.mrf_fw_kary_codes(%s, %d, %d, %s::jsonb, %s::text)", fc->sample_expr,
						  fc->p, (plan->opt.given & MRF_OPT_K) ? plan->opt.k : 0,
						  plan->opt.domains != NULL ?
						  quote_literal_cstr(JsonbToCString(NULL, &plan->opt.domains->root,
															VARSIZE(plan->opt.domains))) : "NULL",
						  (plan->opt.given & MRF_OPT_NULLS) ? quote_literal_cstr(plan->opt.nulls) : "NULL");
	drv->relid = fc->relid;
	if (!pg_strong_random(&drv->learn, sizeof(drv->learn)))
		elog(ERROR, "could not draw a random learn id");

	/*
	 * tableoid names the shard on a worker: its cache key; the kept-parts
	 * scan (mrf_fw_kept) stops after one row of a shard kept there
	 */
	drv->sql = psprintf("SELECT mrfdp_internal.%s(%s, $1, %s.tableoid) FROM %s TABLESAMPLE mrfdp_internal.mrf_fw_kept($1)",
						ScoresAggregateName(fc->format), scored, quote_identifier(fc->alias), fc->from);
	return drv;
}

/* Distributed Frank-Wolfe's counting pass (the step of iteration 0), after the charge. */
static void
FwCount(MrfFromCall *fc, void *arg)
{
	FwDriver   *drv = arg;
	MrfOwnerCall call;

	MrfOwnerCallInit(&call, fc->relid, drv->sql, fc->cxt);
	call.step = MrfFwStepCreate(drv->learn, &drv->design, 0, false, NULL, NULL);
	MrfOwnerOutcomeCheck(&call, MrfAsOwner(&call, MrfOwnerAggregate), fc->fname);
	MrfFwSumsRead(call.result, drv->d, drv->q, 0, &drv->n, &drv->substituted, &drv->fingerprint, NULL);
	fc->n = drv->n;
	fc->substituted = drv->substituted;
}

/* With n: on, or auto when the rows would not fit here or the shards are predicted faster. */
static bool
FwTakes(MrfFromCall *fc, void *arg)
{
	FwDriver   *drv = arg;

	if (!(MrfDistributedFw == MRF_DFW_ON || !LocalPlanFits(fc->plan, drv->n) ||
		  DistributedPredictedFaster(fc->plan, drv, drv->n)))
		return false;
	fc->plan->distributed = true;
	fc->state->n = drv->n;
	fc->state->fw_scores = DistributedScores;
	fc->state->fw_arg = drv;
	return true;
}

/* The run, with the score sums from the shards; the kept parts are freed after it. */
static MrfModel *
FwRun(MrfFromCall *fc, void *arg)
{
	FwDriver   *drv = arg;
	MrfModel   *model;

	PG_TRY();
	{
		model = MrfPlanRun(fc->plan, fc->state);
		ForgetKeptParts(drv);
	}
	PG_FINALLY();
	{
		/* shards of the coordinator's were kept in this (the caller's) backend */
		MrfFwCacheForget();
	}
	PG_END_TRY();
	return model;
}

const MrfFromRoute MrfCitusFwRoute = {
	"distributed Frank-Wolfe", FwPrepare, FwCount, FwTakes, FwRun
};

/* The stable mode's blocks, before the charge: whether they may be cut on the shards. */
static void *
StablePrepare(MrfFromCall *fc)
{
	MrfPlan    *plan = fc->plan;
	StableDriver *drv;

	/* option columns are read gathered: the shards' blocks read whole row types */
	if (plan->learner->stable_shardable == NULL || !plan->learner->stable_shardable(plan) ||
		MrfDistributedStable == MRF_DFW_OFF || fc->columns_row != NULL ||
		!MrfCitusIsDistributed(fc->relid) ||
		!OidIsValid(BlocksAggregate(fc->typid)) || MrfCitusShardCount(fc->relid) <= 0)
		return NULL;
	drv = palloc0(sizeof(StableDriver));
	drv->relid = fc->relid;
	drv->sql = psprintf("SELECT mrfdp_internal.mrf_stable_blocks_agg(%s, $1, %s.tableoid) FROM %s",
						fc->sample_expr, quote_identifier(fc->alias), fc->from);
	return drv;
}

/* With n: on, or auto when the gathered rows would not fit here. */
static bool
StableTakes(MrfFromCall *fc, void *arg)
{
	StableDriver *drv = arg;

	if (!(MrfDistributedStable == MRF_DFW_ON || !LocalPlanFits(fc->plan, drv->n)))
		return false;
	fc->plan->distributed = true;
	fc->plan->shards = MrfCitusShardCount(fc->relid);
	fc->state->n = drv->n;
	fc->state->stable_blocks = DistributedBlocks;
	fc->state->stable_arg = drv;
	return true;
}

const MrfFromRoute MrfCitusStableRoute = {
	"stable blocks on the shards", StablePrepare, StableCount, StableTakes, NULL
};
