/*
 * structure.c - structure learning (privacy.md 7; Zhang et al. 2020, Sec. 6)
 * from packed binary rows to a released graph: the stable mode over disjoint
 * blocks under (epsilon, delta)-DP (method 'stable', the default), or the
 * edges of the private Ising learner's estimate under rho-zCDP (method
 * 'threshold').  All privacy arithmetic is in src/core (structure.c,
 * privacy.c); this file validates options, plans memory, runs the core,
 * and turns the canonical edge list into an mrf of kind "structure".
 *
 * A structure model stores its edges as params: nparams = 2 * edges, the
 * pairs (i, j) of 0-based variable numbers as doubles, i < j, sorted by i,
 * then j (the core's canonical order).  Its JSON form lists them 1-based:
 *     {"kind": "structure", "p": 4, "k": 2, "edges": [[1, 2], [2, 3]], ...}
 * A pairwise (k-ary) graph has the same form with the data's k.  A t-wise
 * structure (model 'twise') has t > 0 and stores its maximal monomials as
 * the core's item words [size, v_1, ..., v_size] (0-based, canonical):
 *     {"kind": "structure", "p": 5, "k": 2, "t": 3, "monomials": [[4, 5], [1, 2, 3]]}
 *
 * The stable mode may release "no structure": the learner then returns NULL
 * and its caller charges the budget anyway (the absence of a graph is an
 * outcome of the mechanism) and only then explains it with a NOTICE, since a
 * notice sent before the charge commits would release the outcome for free.
 */
#include "postgres.h"

#include "utils/array.h"

#include "utils/jsonb.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "core/ising.h"
#include "core/pairwise.h"
#include "core/privacy.h"
#include "core/rows.h"
#include "core/structure.h"
#include "core/structure_ising.h"
#include "core/structure_pairwise.h"
#include "core/structure_plan.h"
#include "core/structure_twise.h"
#include "core/twise.h"
#include "pg/driver/aggregates.h"
#include "pg/citus/cluster.h"
#include "pg/ledger/ledger.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options of the stable mode: an (epsilon, delta) budget and the block count. */
#define STABLE_OPTIONS (MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_ETA | MRF_OPT_LAMBDA | \
						MRF_OPT_MODEL | MRF_OPT_METHOD | MRF_OPT_BLOCKS)

/* Options of the threshold method: those of the private Ising learner, and eta. */
#define THRESHOLD_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_ETA | \
						   MRF_OPT_LAMBDA | MRF_OPT_MODEL | MRF_OPT_METHOD | \
						   MRF_OPT_ITERATIONS | MRF_OPT_MECHANISM)

/*
 * Options of model 'pairwise' that say how rows read (driver/read_kary.h): the
 * alphabet k, declared domains and the NULL policy, exactly as
 * mrf_learn_pairwise takes them (the same reader reads the rows).
 */
#define PAIRWISE_ROW_OPTIONS (MRF_OPT_K | MRF_OPT_DOMAINS | MRF_OPT_BINS | MRF_OPT_NULLS)

static const char *const StructureLearner = "mrf_learn_structure";

/* The validated options of one structure release. */
typedef struct StructureParams
{
	bool		threshold;		/* method 'threshold' (zCDP) */
	bool		pairwise;		/* model 'pairwise': k-ary byte rows */
	bool		twise;			/* model 'twise': maximal monomials of order <= t */
	int			t;
	double		eta;
	double		lambda;
	double		epsilon;		/* stable mode */
	double		delta;
	int			blocks;			/* stable mode: given, or 0 for the default */
	MrfIsingOptions io;			/* threshold method */
	MrfPlan		inner;			/* threshold method on pairwise and t-wise models */
} StructureParams;

/*
 * Parses and validates the options of mrf_learn_structure.  Every check
 * here reads public values only, so it runs at the first row (before the
 * scan) and again in the learner.
 */
static MrfRefusal *
StructureReadOptions(const MrfOptions *opt, StructureParams *sp)
{
	const char *learner = StructureLearner;

	memset(sp, 0, sizeof(*sp));

	if (strcmp(opt->model, "ising") != 0 && strcmp(opt->model, "pairwise") != 0 &&
		strcmp(opt->model, "twise") != 0)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"model\"",
						 psprintf("%s takes model 'ising', 'pairwise' or 'twise'.", learner), NULL);
	sp->pairwise = strcmp(opt->model, "pairwise") == 0;
	sp->twise = strcmp(opt->model, "twise") == 0;
	if (strcmp(opt->method, "stable") != 0 && strcmp(opt->method, "threshold") != 0)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"method\"",
						 psprintf("%s takes method 'stable' or 'threshold'.", learner), NULL);
	sp->threshold = strcmp(opt->method, "threshold") == 0;
	/* a pairwise or t-wise structure takes its learner's default lambda */
	sp->lambda = (opt->given & MRF_OPT_LAMBDA) || !(sp->pairwise || sp->twise) ? opt->lambda :
		MrfOptionDefaultNumber(sp->pairwise ? "mrf_learn_pairwise" : "mrf_learn_twise", "lambda");

	if (sp->threshold)
	{
		MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, THRESHOLD_OPTIONS |
											 (sp->pairwise ? PAIRWISE_ROW_OPTIONS : 0) |
											 (sp->twise ? MRF_OPT_T : 0),
											 "mrf_learn_structure with method 'threshold'"));
		MRF_REFUSE_IF(MrfOptionsRequire(opt, MRF_OPT_ETA, learner));
		if (sp->twise)
		{
			MRF_REFUSE_IF(MrfOptionsRequire(opt, MRF_OPT_T, learner));
			sp->t = opt->t;
		}
		sp->eta = opt->eta;
		MRF_REFUSE_IF(MrfOptionsZcdpBudget(opt, learner, &sp->io.rho));
		sp->io.lambda = sp->lambda;
		sp->io.iterations = (opt->given & MRF_OPT_ITERATIONS) ? opt->iterations : 0;
		sp->io.mechanism = opt->mechanism;
		sp->io.symmetrize = 0;
		/* what the options alone tell of the core's checks (MrfIsingValidate) */
		if (!sp->pairwise && !sp->twise && !isfinite(2.0 * sp->lambda))
			return MrfOptionsLambdaTooLarge(learner, sp->lambda);
		return NULL;
	}

	if (opt->given & MRF_OPT_RHO)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("the stable mode of %s takes epsilon and delta, not rho", learner),
						 "The stable mode over disjoint blocks is (epsilon, delta)-DP; it has no zCDP form.",
						 "Pass epsilon => ... and delta => ..., or method => 'threshold' for a rho-zCDP release.");
	if (sp->pairwise)
		MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, STABLE_OPTIONS | PAIRWISE_ROW_OPTIONS,
											 "mrf_learn_structure with model 'pairwise'"));
	else if (sp->twise)
	{
		MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, STABLE_OPTIONS | MRF_OPT_T,
											 "mrf_learn_structure with model 'twise'"));
		MRF_REFUSE_IF(MrfOptionsRequire(opt, MRF_OPT_T, learner));
		sp->t = opt->t;
		if (sp->t < 2 || sp->t > MRF_TWISE_MAX_ORDER)
			return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
							 "invalid value for option \"t\"",
							 psprintf("%s with model 'twise' takes an order t from 2 to %d.", learner,
									  MRF_TWISE_MAX_ORDER), NULL);
	}
	else
		MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, STABLE_OPTIONS,
											 "mrf_learn_structure with method 'stable'"));
	MRF_REFUSE_IF(MrfOptionsRequire(opt, MRF_OPT_ETA, learner));
	sp->eta = opt->eta;
	if (!(opt->given & (MRF_OPT_EPSILON | MRF_OPT_DELTA)))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs a privacy budget", learner),
						 "There is no default budget.",
						 "Pass epsilon => ... and delta => ... (the stable mode is (epsilon, delta)-DP).");
	if (!(opt->given & MRF_OPT_EPSILON) || !(opt->given & MRF_OPT_DELTA))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs both epsilon and delta", learner),
						 "The stable mode is (epsilon, delta)-DP: delta bounds the chance that a graph seen in one block only is released.",
						 NULL);
	sp->epsilon = opt->epsilon;
	sp->delta = opt->delta;
	sp->blocks = (opt->given & MRF_OPT_BLOCKS) ? opt->blocks : 0;
	/* the block regressions' radius, at the largest alphabet the options allow */
	if (isnan(MrfStructureBlockRadius(sp->lambda, !sp->pairwise ? 1 :
									  (opt->given & MRF_OPT_K) ? opt->k : MRF_PAIRWISE_MAX_K)))
		return MrfOptionsLambdaTooLarge(learner, sp->lambda);
	if (MrfStableModeThreshold(sp->epsilon, sp->delta) < 0 ||
		MrfStructureDefaultBlocks(sp->epsilon, sp->delta) < 1)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("epsilon = %g is too small for the stable mode", sp->epsilon),
						 "The threshold tau grows as (2/epsilon) ln(1/(2 delta)), and the blocks needed with it.",
						 NULL);
	return NULL;
}

/* The block count of a stable-mode release: given, or the default for (epsilon, delta). */
static int
StructureBlocks(const StructureParams *sp)
{
	return sp->blocks > 0 ? sp->blocks : MrfStructureDefaultBlocks(sp->epsilon, sp->delta);
}

/*
 * Blocks per shard when the stable mode cuts its blocks on a Citus table's
 * S shards (privacy.md 7.3): b = ceil(m / S) from the block count m (given,
 * or the per-shard default) and S, both public; the release has b S blocks.
 */
static int
StructureBlocksPerShard(const MrfPlan *plan, const StructureParams *sp)
{
	int			m = sp->blocks > 0 ? sp->blocks : MrfStructureDefaultBlocksShards(sp->epsilon, sp->delta);
	int			shards = Max(plan->shards, 1);

	return (m + shards - 1) / shards;
}

/* The release's block count: m on one node, b S on the shards. */
static int64
StructureReleaseBlocks(const MrfPlan *plan, const StructureParams *sp)
{
	if (plan->distributed)
		return (int64) StructureBlocksPerShard(plan, sp) * Max(plan->shards, 1);
	return StructureBlocks(sp);
}

/*
 * See driver/learners.h: the stable mode on binary rows ('ising' or 'twise'), or
 * on k-ary arrays ('pairwise' with one alphabet: no declared domains or
 * NULL policy, which are for rows of columns).
 */
bool
MrfStructureShardable(const MrfPlan *plan)
{
	const StructureParams *sp = plan->params;

	return sp != NULL && !sp->threshold &&
		(!sp->pairwise || (plan->alphabets == NULL &&
						   !(plan->opt.given & (MRF_OPT_DOMAINS | MRF_OPT_BINS | MRF_OPT_NULLS))));
}

/*
 * The step the shards run (privacy.md 7.3): b blocks each, at most
 * c = max(ceil(2 n / (b S)), the learner's minimum, 1) rows kept per block:
 * about twice a block's expected rows, from public values only.
 */
static void
StructureShardStep(const MrfPlan *plan, const StructureParams *sp, MrfStableStep *step)
{
	int64		total = StructureReleaseBlocks(plan, sp);
	int64		cap = (plan->n * 2 + total - 1) / total;

	memset(step, 0, sizeof(*step));
	step->p = plan->p;
	step->model = sp->pairwise ? MRF_STABLE_PAIRWISE : sp->twise ? MRF_STABLE_TWISE : MRF_STABLE_ISING;
	step->t = sp->twise ? sp->t : 0;
	step->k = sp->pairwise ? plan->k : 2;
	step->blocks = StructureBlocksPerShard(plan, sp);
	step->eta = sp->eta;
	step->lambda = sp->lambda;
	step->cap = 1;
	step->cap = Max(Max(cap, MrfStableMinRows(step)), 1);
}

/* The options of the structure learner itself, which its delegates do not take. */
#define STRUCTURE_OWN_OPTIONS (MRF_OPT_ETA | MRF_OPT_MODEL | MRF_OPT_METHOD | MRF_OPT_BLOCKS)

/*
 * The options of mrf_learn_structure, from the document alone: validated,
 * typed (StructureParams) and charged: the stable mode's (epsilon, delta),
 * or the threshold method's learner's rho (the pairwise and t-wise learners
 * validate their own options, as delegates).
 */
static MrfRefusal *
StructureOptions(MrfPlan *plan)
{
	StructureParams *sp = palloc0(sizeof(StructureParams));
	MrfCharge  *charge = &plan->charge;

	MRF_REFUSE_IF(StructureReadOptions(&plan->opt, sp));
	plan->params = sp;
	memset(charge, 0, sizeof(*charge));
	if (sp->threshold && (sp->pairwise || sp->twise))
	{
		MRF_REFUSE_IF(MrfPlanDelegate(&sp->inner, sp->pairwise ? &MrfPairwiseLearner : &MrfTwiseLearner,
									  &plan->opt, STRUCTURE_OWN_OPTIONS));
		*charge = sp->inner.charge;
		/* the run is the delegate's: its name in messages, progress and metadata */
		plan->run_name = sp->inner.learner->name;
	}
	else if (sp->threshold)
	{
		charge->notion = MRF_NOTION_ZCDP;
		charge->rho = sp->io.rho;
	}
	else
	{
		charge->notion = MRF_NOTION_APPROX;
		charge->epsilon = sp->epsilon;
		charge->delta = sp->delta;
	}
	charge->learner = StructureLearner;
	return NULL;
}

/* Rows of the pairwise model are k-ary bytes; the others binary. */
static MrfRowFormat
StructureRowsFormat(const MrfPlan *plan)
{
	return ((const StructureParams *) plan->params)->pairwise ? MRF_ROWS_BYTES : MRF_ROWS_BITS;
}

/* Plans the stable mode: p, k refuse a radius or an order; n the blocks; memory. */
static MrfRefusal *
StructurePlanStable(MrfPlan *plan, const StructureParams *sp)
{
	int64		n = plan->n;
	int			p = plan->p;
	int			k = sp->pairwise ? plan->k : 2;
	int			m = StructureBlocks(sp);

	if (isnan(MrfStructureBlockRadius(sp->lambda, sp->pairwise ? k : 1)))
		return MrfOptionsLambdaTooLarge(StructureLearner, sp->lambda);
	if (sp->twise && sp->t > p)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"t\"",
						 psprintf("The order t = %d exceeds the %d variables of the rows.", sp->t, p),
						 NULL);
	if (n == 0)
		return NULL;
	if (plan->distributed)
	{
		int64		total = StructureReleaseBlocks(plan, sp);
		MrfStableStep step;

		/* as below: n, b and S are public */
		if (n < total)
			return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
							 psprintf("%s needs at least one row per block", StructureLearner),
							 psprintf("The input has " INT64_FORMAT " rows and the stable mode cut on %d shards splits them into " INT64_FORMAT " blocks.",
									  n, plan->shards, total),
							 "See mrf_structure_rows_needed() for the rows a release needs, or pass fewer blocks.");
		StructureShardStep(plan, sp, &step);
		if (step.cap > INT_MAX)
			return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
							 psprintf("%s cannot cut blocks of " INT64_FORMAT " rows", StructureLearner, step.cap),
							 NULL, "Pass more blocks.");

		/*
		 * What each shard's reader allocates (b c rows, the block learner, b
		 * structures: public values only), against this node's
		 * mrfdp.max_learner_memory as the nodes' common setting: a shard
		 * that refuses it does so after the charge, and the release was
		 * charged for nothing (seen: 600,000 rows, 4 shards, every node at
		 * 2 MB, epsilon 4 charged, the error withheld).
		 */
		if (!MrfMemoryFits(MrfStableShardBytes(&step)))
			return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
							 psprintf("%s would need %.0f MB of working memory on each shard", StructureLearner,
									  MrfStableShardBytes(&step) / (1024.0 * 1024.0)),
							 psprintf("Each of the %d shards keeps %d blocks of at most " INT64_FORMAT " rows; mrfdp.max_learner_memory is %.0f MB here, and the workers are expected to have the same.",
									  plan->shards, step.blocks, step.cap,
									  (double) MrfMaxLearnerMemory / 1024.0),
							 "Raise mrfdp.max_learner_memory on every node, or distribute the table over more shards.");
		/* the coordinator holds the blocks' structures; each shard checks its own part */
		plan->memory = (double) total * (sizeof(MrfStructure) + 3.0 * sizeof(int32) *
										 (sp->twise ? Min((double) MrfSubsetCount(p, sp->t) * (sp->t + 1), 1e9) :
										  (double) p * (p - 1))) +
			(double) total * (sizeof(int64) * 2 + sizeof(int) * 4);
		return NULL;
	}
	/*
	 * n is public (privacy.md 1): refusing too few rows for the blocks reveals
	 * nothing.
	 */
	if (n < m)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs at least one row per block", StructureLearner),
						 psprintf("The input has " INT64_FORMAT " rows and the stable mode splits them into %d blocks%s.",
								  n, m, sp->blocks > 0 ? "" : " (the default for this epsilon and delta)"),
						 "See mrf_structure_rows_needed() for the rows a release needs.");
	if (sp->twise)
	{
		MrfTwiseBlockOptions topt;
		MrfBlockLearner learner;

		memset(&topt, 0, sizeof(topt));
		topt.p = p;
		topt.t = sp->t;
		topt.eta = sp->eta;
		topt.lambda = sp->lambda;
		MrfTwiseBlockLearner(&topt, &learner);
		plan->memory = (double) MrfStructureWorkspaceBytes(&learner, n, m,
														   (int64) Min((double) MrfSubsetCount(p, sp->t) * (sp->t + 1),
																	   (double) INT64_MAX / 4)) +
			(double) n * MrfBitWords(p) * sizeof(uint64);
	}
	else if (sp->pairwise)
		plan->memory = (double) MrfStructurePairwiseWorkspaceBytesAlphabets(p, k, plan->kv, n, m) +
			(double) n * p + (double) p * (p - 1) * sizeof(double);
	else
		plan->memory = (double) MrfStructureIsingWorkspaceBytes(p, n, m) +
			(double) n * MrfBitWords(p) * sizeof(uint64) +
			(double) p * (p - 1) * sizeof(double);
	return NULL;
}

/* Plans a structure release (see the methods' plans and the delegates'). */
static MrfRefusal *
StructurePlan(MrfPlan *plan)
{
	StructureParams *sp = plan->params;
	int			p = plan->p;
	int64		n = plan->n;

	if (sp->threshold && (sp->pairwise || sp->twise))
	{
		sp->inner.p = p;
		sp->inner.k = plan->k;
		sp->inner.alphabets = plan->alphabets;
		sp->inner.kv = plan->kv;
		sp->inner.n = n;
		sp->inner.distributed = plan->distributed;
		MRF_REFUSE_IF(sp->inner.learner->plan(&sp->inner));
		plan->iterations = sp->inner.iterations;
		plan->memory = sp->inner.memory;
		/* the kept sets of StructureRunThresholdKary, beside the coefficients */
		if (sp->twise && n > 0)
			plan->memory += (double) MrfSubsetCount(p, sp->t) *
				(sp->t + 1) * sizeof(int);
	}
	else if (sp->threshold)
	{
		if (n == 0)
			return NULL;
		MRF_REFUSE_IF(MrfIsingRefusal(MrfIsingValidate(&sp->io, p, n), &sp->io, p, n, StructureLearner));
		plan->iterations = MrfIsingIterations(&sp->io, p, n);
		if (plan->distributed)
		{
			MrfFwDesign design;

			MrfIsingFwDesignOf(p, sp->io.lambda, &design);
			plan->memory = MrfPlanFwDistributedMemory(&design, plan->iterations,
													  (double) MrfIsingParamCount(p) + (double) p * (p - 1));
			return NULL;
		}
		plan->memory = (double) MrfIsingWorkspaceBytes(p, n) +
			(double) n * MrfBitWords(p) * sizeof(uint64) +
			(double) MrfIsingParamCount(p) * sizeof(double) +
			(double) p * (p - 1) * sizeof(double);
	}
	else
		return StructurePlanStable(plan, sp);
	return NULL;
}

/* A structure model holding the canonical edge list of s. */
static MrfModel *
StructureModelFromEdges(const MrfStructure *s, int p, int k, uint16 flags, Jsonb *meta)
{
	int64		edges = MrfStructureEdgeCount(s);
	MrfModel   *model;
	int64		e = 0;

	model = MrfModelCreate(MRF_KIND_STRUCTURE, p, k, 0, (int) (2 * edges),
						   flags | MRF_FLAG_SYMMETRIC, meta);
	for (int64 w = 0; w < s->nwords; w += 1 + s->words[w])
	{
		if (s->words[w] != 2)
			continue;
		model->params[2 * e] = s->words[w + 1];
		model->params[2 * e + 1] = s->words[w + 2];
		e++;
	}
	return model;
}

/*
 * A t-wise structure model: params hold the canonical items as the core's
 * words, [size, v_1, ..., v_size] (0-based, sorted) as doubles, and t > 0
 * tells this form from a graph's pairs.
 */
static MrfModel *
StructureModelFromItems(const MrfStructure *s, int p, int t, uint16 flags, Jsonb *meta)
{
	MrfModel   *model;

	model = MrfModelCreate(MRF_KIND_STRUCTURE, p, 2, t, (int) s->nwords, flags, meta);
	for (int64 w = 0; w < s->nwords; w++)
		model->params[w] = s->words[w];
	return model;
}

/* Appends the public parameters both methods share to the metadata. */
static void
StructureMetaCommon(StringInfo meta, const StructureParams *sp, int64 edges)
{
	appendStringInfo(meta, ", \"model\": \"%s\", \"method\": \"%s\", \"eta\": %s, \"lambda\": %s",
					 sp->pairwise ? "pairwise" : (sp->twise ? "twise" : "ising"),
					 sp->threshold ? "threshold" : "stable",
					 MrfDoubleText(sp->eta), MrfDoubleText(sp->lambda));
	appendStringInfo(meta, ", \"edge_rule\": \"average\", \"edges\": " INT64_FORMAT, edges);
}

/*
 * The stable mode's metadata without "learn_seconds": unlike the fixed-size
 * work of the Frank-Wolfe learners, the block solvers stop at a duality-gap
 * tolerance, so their time depends on the data (a side channel the core
 * documents).  The caller still sees the statement's duration; a model
 * passed on to others should not carry it.
 */
static Jsonb *
StructureMetaWithoutTime(Jsonb *meta)
{
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(meta),
											  CStringGetTextDatum("learn_seconds")));
}

/*
 * The stable mode with its blocks cut and learned on the shards
 * (privacy.md 7.3): the blocks' structures from the driver, counted and
 * selected here with the per-shard calibration.  NULL when no graph cleared
 * the threshold.
 */
static MrfModel *
StructureRunStableShards(MrfPlan *plan, const MrfRowsState *state, MrfRun *run)
{
	const StructureParams *sp = plan->params;
	int			p = plan->p;
	MrfStableStep step;
	MrfStructure *structs = NULL;
	int			nstructs = 0;
	MrfStructure out;
	int			released = 0;
	MrfModel   *model = NULL;
	StringInfoData meta;
	uint64_t	num;
	uint64_t	den;

	StructureShardStep(plan, sp, &step);
	state->stable_blocks(state->stable_arg, &step, &structs, &nstructs);
	MrfStructureInit(&out, p);
	MrfRunCheck(run, MrfStructureSelectShards(structs, nstructs, sp->epsilon, sp->delta,
											  &run->rng, &run->env, &out, &released));
	if (!released)
		return NULL;
	(void) MrfStableShardNoise(sp->epsilon, &num, &den);
	MrfPlanMetaBegin(&meta, plan, run, "zhang2020-stable-mode");
	StructureMetaCommon(&meta, sp, MrfStructureEdgeCount(&out));
	appendStringInfo(&meta, ", \"blocks\": " INT64_FORMAT ", \"blocks_cut\": \"per shard\", \"shards\": %d, \"blocks_per_shard\": %d, \"block_rows_cap\": " INT64_FORMAT ", \"tau\": " INT64_FORMAT,
					 StructureReleaseBlocks(plan, sp), plan->shards, step.blocks, step.cap,
					 MrfStableShardThreshold(sp->epsilon, sp->delta));
	appendStringInfo(&meta, ", \"noise\": \"discrete laplace\", \"noise_scale\": %s",
					 MrfDoubleText((double) num / (double) den));
	if (sp->twise)
	{
		appendStringInfo(&meta, ", \"t\": %d, \"monomials\": %d, \"block_learner\": \"node regressions on monomials\"",
						 sp->t, out.nitems);
		model = StructureModelFromItems(&out, p, sp->t, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
										StructureMetaWithoutTime(MrfMetaFinish(&meta)));
	}
	else
		model = StructureModelFromEdges(&out, p, step.k, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
										StructureMetaWithoutTime(MrfMetaFinish(&meta)));
	return model;
}

/* The stable mode (privacy.md 7): NULL when no graph cleared the threshold. */
static MrfModel *
StructureRunStable(MrfPlan *plan, const MrfRowsState *state, MrfRun *run)
{
	const StructureParams *sp = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	int			k = sp->pairwise ? plan->k : 2;
	int			m = StructureBlocks(sp);
	MrfIsingBlockOptions iopt;
	MrfPairwiseBlockOptions popt;
	MrfTwiseBlockOptions topt;
	MrfBlockLearner learner;
	int64		tau = MrfStableModeThreshold(sp->epsilon, sp->delta);
	MrfStructureOptions so;
	MrfStructure out;
	MrfModel   *model = NULL;
	StringInfoData meta;
	int			released = 0;
	uint64_t	num;
	uint64_t	den;

	so.epsilon = sp->epsilon;
	so.delta = sp->delta;
	so.blocks = m;
	MrfStructureInit(&out, p);
	if (sp->twise)
	{
		memset(&topt, 0, sizeof(topt));
		topt.p = p;
		topt.t = sp->t;
		topt.eta = sp->eta;
		topt.lambda = sp->lambda;
		MrfTwiseBlockLearner(&topt, &learner);
		MrfRunCheck(run, MrfStructureLearn(MrfRowsBits(state), n, &learner, &so,
										   &run->rng, &run->env, &out, &released));
	}
	else if (sp->pairwise)
	{
		memset(&popt, 0, sizeof(popt));
		popt.p = p;
		popt.k = k;
		popt.kv = plan->kv;		/* public: the types and options (the rows') */
		popt.eta = sp->eta;
		popt.lambda = sp->lambda;
		MrfPairwiseBlockLearner(&popt, &learner);
		MrfRunCheck(run, MrfStructureLearn(MrfRowsBytes(state), n, &learner, &so,
										   &run->rng, &run->env, &out, &released));
	}
	else
	{
		memset(&iopt, 0, sizeof(iopt));
		iopt.p = p;
		iopt.eta = sp->eta;
		iopt.lambda = sp->lambda;
		iopt.rule = MRF_EDGE_AVERAGE;
		MrfIsingBlockLearner(&iopt, &learner);
		MrfRunCheck(run, MrfStructureLearn(MrfRowsBits(state), n, &learner, &so,
										   &run->rng, &run->env, &out, &released));
	}
	if (released)
	{
		(void) MrfStableModeNoise(sp->epsilon, &num, &den);
		MrfPlanMetaBegin(&meta, plan, run, "zhang2020-stable-mode");
		StructureMetaCommon(&meta, sp, MrfStructureEdgeCount(&out));
		appendStringInfo(&meta, ", \"blocks\": %d, \"block_rows\": " INT64_FORMAT ", \"tau\": " INT64_FORMAT,
						 m, MrfStructureBlockRows(n, m, m - 1), tau);
		appendStringInfo(&meta, ", \"noise\": \"discrete laplace\", \"noise_scale\": %s",
						 MrfDoubleText((double) num / (double) den));
		if (sp->pairwise)
			appendStringInfoString(&meta, ", \"block_learner\": \"one-vs-one logistic regressions\"");
		if (sp->twise)
		{
			appendStringInfo(&meta, ", \"t\": %d, \"monomials\": %d, \"block_learner\": \"node regressions on monomials\"",
							 sp->t, out.nitems);
			model = StructureModelFromItems(&out, p, sp->t, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
											StructureMetaWithoutTime(MrfMetaFinish(&meta)));
		}
		else
			model = StructureModelFromEdges(&out, p, k, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
											StructureMetaWithoutTime(MrfMetaFinish(&meta)));
	}
	return model;
}

/* Whether set a (sorted, na) lies inside set b (sorted, nb). */
static bool
SubsetOf(const int *a, int na, const int *b, int nb)
{
	int			j = 0;

	for (int i = 0; i < na; i++)
	{
		while (j < nb && b[j] < a[i])
			j++;
		if (j == nb || b[j] != a[i])
			return false;
	}
	return true;
}

/*
 * The threshold method for pairwise and t-wise models (privacy.md 7): run the
 * private learner of privacy.md 5 / 4.4 under rho-zCDP, then keep, as pure
 * post-processing, the pairs whose largest |W_ij(a, b)| (of the symmetrised,
 * centred estimate) is at least eta / 2, or the maximal sets of size 2..t
 * whose coefficient is at least eta / 2 in absolute value.  The charge is
 * the learner's own.
 */
static MrfModel *
StructureRunThresholdKary(MrfPlan *plan, const MrfRowsState *state, MrfRun *run)
{
	StructureParams *sp = plan->params;
	MrfModel   *learned;
	MrfStructure out;
	StringInfoData meta;
	Jsonb	   *learned_meta;
	int			p = plan->p;
	MrfModel   *model;

	learned = sp->inner.learner->run(&sp->inner, state, run);

	MrfStructureInit(&out, p);
	if (sp->pairwise)
	{
		int			k = learned->k;
		const double *W = learned->params;

		for (int i = 0; i < p; i++)
			for (int j = i + 1; j < p; j++)
			{
				double		largest = 0;
				int32_t		vars[2] = {i, j};

				for (int a = 0; a < k; a++)
					for (int b = 0; b < k; b++)
					{
						double		w = 0.5 * (W[MrfPairwiseAt(p, k, i, j, a, b)] +
											   W[MrfPairwiseAt(p, k, j, i, b, a)]);

						largest = Max(largest, fabs(w));
					}
				if (largest >= sp->eta / 2 &&
					MrfStructureAdd(&out, &MrfMallocEnv, 2, vars) != MRF_OK)
					elog(ERROR, "out of memory building a structure");
			}
	}
	else
	{
		int			t = learned->t;
		int64		nsets = MrfSubsetCount(p, t);
		int		   *kept_vars = palloc_extended(sizeof(int) * (Size) nsets * t, MCXT_ALLOC_HUGE);
		int		   *kept_size = palloc_extended(sizeof(int) * (Size) nsets, MCXT_ALLOC_HUGE);
		int64		nkept = 0;
		int			vars[MRF_TWISE_MAX_ORDER];
		int			size = 0;

		/* sets of size 2..t at or above eta / 2 (subset order: index = position) */
		for (int64 idx = 1; idx < nsets; idx++)
		{
			size = MrfSubsetVars(p, idx, vars);
			if (size >= 2 && fabs(learned->params[idx]) >= sp->eta / 2)
			{
				memcpy(kept_vars + nkept * t, vars, sizeof(int) * size);
				kept_size[nkept++] = size;
			}
		}
		/* only the maximal ones */
		for (int64 a = 0; a < nkept; a++)
		{
			bool		maximal = true;
			int32_t		item[MRF_TWISE_MAX_ORDER];

			for (int64 b = 0; b < nkept && maximal; b++)
				if (b != a && kept_size[b] > kept_size[a] &&
					SubsetOf(kept_vars + a * t, kept_size[a], kept_vars + b * t, kept_size[b]))
					maximal = false;
			if (!maximal)
				continue;
			for (int i = 0; i < kept_size[a]; i++)
				item[i] = kept_vars[a * t + i];
			if (MrfStructureAdd(&out, &MrfMallocEnv, kept_size[a], item) != MRF_OK)
				elog(ERROR, "out of memory building a structure");
		}
	}
	if (MrfStructureCanonicalize(&out, &MrfMallocEnv) != MRF_OK)
		elog(ERROR, "could not canonicalise a structure");

	/* the learner's metadata, with the structure's own members */
	learned_meta = MrfModelMeta(learned);
	initStringInfo(&meta);
	appendStringInfoString(&meta, JsonbToCString(NULL, &learned_meta->root, VARSIZE(learned_meta)));
	meta.len--;					/* reopen the object */
	appendStringInfo(&meta, ", \"structure_learner\": \"%s\", \"method\": \"threshold\", \"model\": \"%s\", \"eta\": %s, \"items\": " INT64_FORMAT "}",
					 StructureLearner, sp->pairwise ? "pairwise" : "twise",
					 MrfDoubleText(sp->eta), MrfStructureEdgeCount(&out));
	if (sp->pairwise)
		model = StructureModelFromEdges(&out, p, learned->k,
										learned->flags & MRF_FLAG_NOT_PRIVATE,
										DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(meta.data))));
	else
		model = StructureModelFromItems(&out, p, learned->t,
										learned->flags & MRF_FLAG_NOT_PRIVATE,
										DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(meta.data))));
	MrfStructureFree(&out, &MrfMallocEnv);
	return model;
}

/* The threshold method: edges of the private Ising estimate at eta / 2 (post-processing). */
static MrfModel *
StructureRunThreshold(MrfPlan *plan, const MrfRowsState *state, MrfRun *run)
{
	const StructureParams *sp = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	MrfStructure out;
	MrfModel   *model;
	StringInfoData meta;

	MrfStructureInit(&out, p);
	if (state->fw_scores != NULL)
		/* distributed Frank-Wolfe: the same solver, its score sums from the shards */
		MrfRunCheck(run, MrfStructureThresholdIsingParts(state->fw_scores, state->fw_arg, n, p,
														 &sp->io, sp->eta, MRF_EDGE_AVERAGE,
														 &run->rng, &run->env, &out));
	else
		MrfRunCheck(run, MrfStructureThresholdIsing(MrfRowsBits(state), n, p, &sp->io, sp->eta,
													MRF_EDGE_AVERAGE, &run->rng, &run->env, &out));
	MrfPlanMetaBegin(&meta, plan, run, "zhang2020-algorithm-2-threshold");
	StructureMetaCommon(&meta, sp, MrfStructureEdgeCount(&out));
	appendStringInfo(&meta, ", \"iterations\": %d, \"mechanism\": \"%s\"",
					 plan->iterations, MrfMechanismName(sp->io.mechanism));
	if (state->fw_scores != NULL)
		appendStringInfoString(&meta, ", \"distributed\": \"frank-wolfe score sums from the shards\"");
	model = StructureModelFromEdges(&out, p, 2, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
									MrfMetaFinish(&meta));
	return model;
}

/* Learns a structure; NULL when the stable mode released no graph (still charged). */
static MrfModel *
StructureRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const StructureParams *sp = plan->params;

	if (sp->threshold && (sp->pairwise || sp->twise))
		return StructureRunThresholdKary(plan, rows, run);
	if (sp->threshold)
		return StructureRunThreshold(plan, rows, run);
	if (plan->distributed && rows->stable_blocks != NULL)
		return StructureRunStableShards(plan, rows, run);
	return StructureRunStable(plan, rows, run);
}

/*
 * Explains a NULL release; called only after the charge has committed.
 * Everything said here is public: n, p, the options and the outcome.
 */
static void
StructureReleasedNothing(const MrfPlan *plan)
{
	const StructureParams *sp = plan->params;
	int			m;
	int64		per_block;
	int64		needed;

	m = (int) StructureReleaseBlocks(plan, sp);
	per_block = MrfStructureBlockRows(plan->n, m, m - 1);
	/* the planning estimate of the model's block learner, for a model of width at most 2 */
	needed = sp->pairwise ?
		MrfPairwiseBlockRowsNeeded(plan->p, plan->k, sp->eta, Min(sp->lambda, MRF_STRUCTURE_PLAN_WIDTH),
								   sp->lambda) :
		sp->twise ?
		MrfTwiseBlockRowsNeeded(plan->p, sp->t, sp->eta, Min(sp->lambda, MRF_STRUCTURE_PLAN_WIDTH),
								sp->lambda) :
		MrfIsingBlockRowsNeededWidth(plan->p, sp->eta, Min(sp->lambda, MRF_STRUCTURE_PLAN_WIDTH),
									 sp->lambda);
	ereport(NOTICE,
			(errmsg("no structure cleared the stable-mode threshold: %s returns NULL", StructureLearner),
			 errdetail("No graph was found by enough of the %d blocks to clear tau = " INT64_FORMAT
					   " after noise. The budget was charged: an empty answer is a release too.",
					   m, plan->distributed ? MrfStableShardThreshold(sp->epsilon, sp->delta) :
					   MrfStableModeThreshold(sp->epsilon, sp->delta))));
	if (needed > 0 && per_block < needed)
		ereport(NOTICE,
				(errmsg("the table is likely too small for structure learning"),
				 errdetail("Each of the %d blocks has " INT64_FORMAT " rows; the planning estimate for p = %d, "
						   "eta = %g and lambda = %g (a model of width %g) is " INT64_FORMAT " rows per block.",
						   m, per_block, plan->p, sp->eta, sp->lambda,
						   Min(sp->lambda, MRF_STRUCTURE_PLAN_WIDTH), needed),
				 errhint("Learn from more rows, or raise epsilon (fewer blocks are then needed); "
						 "see mrf_structure_rows_needed().")));
}

/*
 * The threshold method runs one Frank-Wolfe learner (Ising, or the
 * pairwise or t-wise delegate); the stable mode's blocks read the rows.
 */
static bool
StructureFwDesign(const MrfPlan *plan, MrfFwDesign *design)
{
	const StructureParams *sp = plan->params;

	if (!sp->threshold)
		return false;
	if (sp->pairwise || sp->twise)
	{
		MrfPlan		inner = sp->inner;

		inner.p = plan->p;
		inner.k = plan->k;
		inner.alphabets = plan->alphabets;
		inner.kv = plan->kv;
		return inner.learner->fw_design(&inner, design);
	}
	MrfIsingFwDesignOf(plan->p, sp->io.lambda, design);
	return true;
}

const MrfLearner MrfStructureLearner = {
	"mrf_learn_structure", MRF_ROWS_BITS, StructureRowsFormat, StructureOptions, StructurePlan,
	StructureRun, StructureReleasedNothing, NULL, NULL, StructureFwDesign, MrfStructureShardable
};

PG_FUNCTION_INFO_V1(mrf_structure_accum);
/*
 * Transition: plans at the first row of each group, window aggregates
 * included (so that an unsupported model or a missing eta fails before the
 * scan, and k-ary rows meant for model 'pairwise' get the real reason), then
 * packs bits, or bytes for model 'pairwise'.
 */
Datum
mrf_structure_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfStructureLearner, MRF_ROWS_BITS);
}

PG_FUNCTION_INFO_V1(mrf_structure_final);
/* Final: learns, charges the statement's relations, then releases (NULL too). */
Datum
mrf_structure_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfStructureLearner);
}

/* The "edges" member: 1-based pairs. */
static void
StructureWriteJson(StringInfo buf, MrfModel *model)
{
	int			edges = model->nparams / 2;

	if (model->t > 0)
	{
		/* a t-wise structure: its maximal monomials, 1-based */
		appendStringInfo(buf, ", \"t\": %d, \"monomials\": [", model->t);
		for (int w = 0; w < model->nparams; w += 1 + (int) model->params[w])
		{
			appendStringInfoString(buf, w > 0 ? ", [" : "[");
			for (int v = 1; v <= (int) model->params[w]; v++)
				appendStringInfo(buf, "%s%d", v > 1 ? ", " : "", (int) model->params[w + v] + 1);
			appendStringInfoChar(buf, ']');
		}
		appendStringInfoChar(buf, ']');
		return;
	}

	appendStringInfoString(buf, ", \"edges\": [");
	for (int e = 0; e < edges; e++)
		appendStringInfo(buf, "%s[%d, %d]", e > 0 ? ", " : "",
						 (int) model->params[2 * e] + 1, (int) model->params[2 * e + 1] + 1);
	appendStringInfoChar(buf, ']');
}

/* Orders 0-based edges as the core's canonical form does. */
static int
CompareEdges(const void *a, const void *b)
{
	const int32 *x = a;
	const int32 *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return 0;
}

/* One vertex number of an edge in a document: an integer from 1 to p. */
static int32
ReadVertex(JsonbValue *v, int p)
{
	double		d;

	if (v == NULL || v->type != jbvNumeric)
		MrfModelMalformed("Each edge must be a pair of variable numbers, e.g. [1, 2].");
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
	if (d != floor(d) || d < 1 || d > p)
		MrfModelMalformed(psprintf("Edge variables must be integers from 1 to %d.", p));
	return (int32) d - 1;
}

/*
 * A t-wise structure from its document: "t" (2..min(p, 16)) and
 * "monomials", sets of 2..t variables in 1..p, no repeated variable or set.
 */
static MrfModel *
StructureReadMonomials(JsonbContainer *root, int p, int k, Jsonb *meta)
{
	JsonbValue	v;
	JsonbContainer *arr;
	MrfStructure s;
	MrfModel   *model;
	int			t;
	int			n;
	int32		vars[MRF_TWISE_MAX_ORDER];

	if (k != 2)
		MrfModelMalformed("A t-wise structure has k = 2.");
	if (!MrfJsonGetKey(root, "t", &v))
		MrfModelMalformed("A structure with \"monomials\" needs its order \"t\".");
	t = MrfJsonGetInt(root, "t", 2, Min(p, MRF_TWISE_MAX_ORDER));
	(void) MrfJsonGetKey(root, "monomials", &v);
	if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
		MrfModelMalformed("Member \"monomials\" must be an array of sets [i, j, ...].");
	arr = v.val.binary.data;
	n = JsonContainerSize(arr);
	MrfStructureInit(&s, p);
	for (int e = 0; e < n; e++)
	{
		JsonbValue *item = getIthJsonbValueFromContainer(arr, e);
		int			size;

		if (item == NULL || item->type != jbvBinary || !JsonContainerIsArray(item->val.binary.data) ||
			JsonContainerSize(item->val.binary.data) < 2 || JsonContainerSize(item->val.binary.data) > t)
			MrfModelMalformed(psprintf("Each monomial must be a set of 2 to %d variable numbers.", t));
		size = JsonContainerSize(item->val.binary.data);
		for (int j = 0; j < size; j++)
		{
			JsonbValue *x = getIthJsonbValueFromContainer(item->val.binary.data, j);
			double		d;

			if (x == NULL || x->type != jbvNumeric)
				MrfModelMalformed("Each monomial must list variable numbers, e.g. [1, 2, 3].");
			d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(x->val.numeric)));
			if (d != floor(d) || d < 1 || d > p)
				MrfModelMalformed(psprintf("Monomial variables must be integers from 1 to %d.", p));
			vars[j] = (int32) d - 1;
		}
		if (MrfStructureAdd(&s, &MrfPallocEnv, size, vars) != MRF_OK)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	}
	if (MrfStructureCanonicalize(&s, &MrfPallocEnv) != MRF_OK || s.nitems != n)
		MrfModelMalformed("A monomial lists a variable twice, or a monomial is listed twice.");
	model = StructureModelFromItems(&s, p, t, 0, meta);
	MrfStructureFree(&s, &MrfPallocEnv);
	return model;
}

/* A structure model from its document: edges in range, i < j, no repeats. */
static MrfModel *
StructureReadJson(JsonbContainer *root, int p, Jsonb *meta)
{
	JsonbValue	v;
	JsonbContainer *arr;
	int			n;
	int32	   *pairs;
	MrfModel   *model;
	int			k = 2;

	/* the alphabet of the data a graph was learned from (2: binary) */
	if (MrfJsonGetKey(root, "k", &v))
		k = MrfJsonGetInt(root, "k", 2, MRF_PAIRWISE_MAX_K);
	if (MrfJsonGetKey(root, "monomials", &v))
		return StructureReadMonomials(root, p, k, meta);
	if (!MrfJsonGetKey(root, "edges", &v) || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		MrfModelMalformed("Member \"edges\" must be an array of pairs [i, j].");
	arr = v.val.binary.data;
	n = JsonContainerSize(arr);
	if ((double) n > (double) p * (p - 1) / 2)
		MrfModelMalformed(psprintf("A graph on %d variables has at most %d edges.", p, p * (p - 1) / 2));
	pairs = palloc(sizeof(int32) * 2 * (Size) Max(n, 1));
	for (int e = 0; e < n; e++)
	{
		JsonbValue *edge = getIthJsonbValueFromContainer(arr, e);

		if (edge == NULL || edge->type != jbvBinary || !JsonContainerIsArray(edge->val.binary.data) ||
			JsonContainerSize(edge->val.binary.data) != 2)
			MrfModelMalformed("Each edge must be a pair of variable numbers, e.g. [1, 2].");
		pairs[2 * e] = ReadVertex(getIthJsonbValueFromContainer(edge->val.binary.data, 0), p);
		pairs[2 * e + 1] = ReadVertex(getIthJsonbValueFromContainer(edge->val.binary.data, 1), p);
		if (pairs[2 * e] >= pairs[2 * e + 1])
			MrfModelMalformed("Each edge [i, j] must have i < j.");
	}
	qsort(pairs, n, sizeof(int32) * 2, CompareEdges);
	for (int e = 1; e < n; e++)
		if (CompareEdges(pairs + 2 * e, pairs + 2 * (e - 1)) == 0)
			MrfModelMalformed(psprintf("Edge [%d, %d] is listed twice.", pairs[2 * e] + 1, pairs[2 * e + 1] + 1));

	model = MrfModelCreate(MRF_KIND_STRUCTURE, p, k, 0, 2 * n, MRF_FLAG_SYMMETRIC, meta);
	for (int e = 0; e < 2 * n; e++)
		model->params[e] = pairs[e];
	return model;
}

/*
 * Edges (i, j, 1): a structure has no weights, so every edge has weight 1
 * and mrf_edges' rule |weight| > threshold keeps all of them for thresholds
 * below 1 and none from 1 up.
 */
static void
StructureEdges(MrfModel *model, double threshold, ReturnSetInfo *rsinfo)
{
	int			edges = model->nparams / 2;

	if (!(1.0 > threshold))
		return;
	if (model->t > 0)
	{
		/* a t-wise structure: the pairs that share a monomial (its primal graph) */
		bool	   *adj = palloc0(sizeof(bool) * (Size) model->p * model->p);

		for (int w = 0; w < model->nparams; w += 1 + (int) model->params[w])
			for (int a = 1; a <= (int) model->params[w]; a++)
				for (int b = a + 1; b <= (int) model->params[w]; b++)
					adj[(int) model->params[w + a] * model->p + (int) model->params[w + b]] = true;
		for (int i = 0; i < model->p; i++)
			for (int j = i + 1; j < model->p; j++)
			{
				Datum		values[3];
				bool		nulls[3] = {false, false, false};

				if (!adj[i * model->p + j])
					continue;
				values[0] = Int32GetDatum(i + 1);
				values[1] = Int32GetDatum(j + 1);
				values[2] = Float8GetDatum(1.0);
				MrfPutRow(rsinfo, values, nulls);
			}
		pfree(adj);
		return;
	}
	for (int e = 0; e < edges; e++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum((int32) model->params[2 * e] + 1);
		values[1] = Int32GetDatum((int32) model->params[2 * e + 1] + 1);
		values[2] = Float8GetDatum(1.0);
		MrfPutRow(rsinfo, values, nulls);
	}
}

/* A graph has no fields and defines no distribution to sample from. */
const MrfKindOps MrfStructureOps = {
	MRF_KIND_STRUCTURE, StructureWriteJson, StructureReadJson, StructureEdges, NULL, NULL
};

/* Raises the error for a bad argument of the planning function. */
static void
pg_attribute_noreturn()
BadPlanArgument(const char *name, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for \"%s\" in mrf_structure_rows_needed", name),
			 errdetail("%s", detail)));
}

PG_FUNCTION_INFO_V1(mrf_structure_rows_needed);
/*
 * Planning for the stable mode (public arithmetic only): the blocks, the
 * threshold tau, the rows per block the model's block learner needs for a
 * 90% exact release at the default block count (structure_ising.c's plan
 * for model 'ising', structure_plan.c's for 'pairwise' and 'twise'), and
 * their product.
 */
Datum
mrf_structure_rows_needed(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		p;
	double		eta;
	double		epsilon;
	double		delta;
	double		lambda;
	double		width;
	int32		blocks = 0;
	const char *model = "ising";
	int32		k = 0;
	int32		t = 0;
	int			m;
	int64		per_block;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	for (int a = 0; a < 4; a++)
		if (PG_ARGISNULL(a))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("mrf_structure_rows_needed needs p, eta, epsilon and delta")));
	p = PG_GETARG_INT32(0);
	eta = PG_GETARG_FLOAT8(1);
	epsilon = PG_GETARG_FLOAT8(2);
	delta = PG_GETARG_FLOAT8(3);
	/* model, k and t (absent from the SQL of earlier versions) */
	if (PG_NARGS() > 7 && !PG_ARGISNULL(7))
		model = text_to_cstring(PG_GETARG_TEXT_PP(7));
	if (strcmp(model, "ising") != 0 && strcmp(model, "pairwise") != 0 && strcmp(model, "twise") != 0)
		BadPlanArgument("model", "The value must be 'ising', 'pairwise' or 'twise'.");
	if (PG_NARGS() > 8 && !PG_ARGISNULL(8))
		k = PG_GETARG_INT32(8);
	if (PG_NARGS() > 9 && !PG_ARGISNULL(9))
		t = PG_GETARG_INT32(9);
	/* NULL: the learner's default (sqlapi/options.c's defaults table), per model as mrf_learn_structure */
	lambda = !PG_ARGISNULL(4) ? PG_GETARG_FLOAT8(4) :
		strcmp(model, "pairwise") == 0 ? MrfOptionDefaultNumber("mrf_learn_pairwise", "lambda") :
		strcmp(model, "twise") == 0 ? MrfOptionDefaultNumber("mrf_learn_twise", "lambda") :
		MrfOptionDefaultNumber(StructureLearner, "lambda");
	if (!PG_ARGISNULL(5))
		blocks = PG_GETARG_INT32(5);
	/* width: the model's, when known; else lambda when given, else the study's grids' */
	width = PG_NARGS() > 6 && !PG_ARGISNULL(6) ? PG_GETARG_FLOAT8(6) :
		!PG_ARGISNULL(4) ? lambda : MRF_STRUCTURE_PLAN_WIDTH;

	if (p < 2 || p > MRF_MAX_VARIABLES)
		BadPlanArgument("p", psprintf("The value must be an integer from 2 to %d.", MRF_MAX_VARIABLES));
	if (!(eta > 0) || isinf(eta))
		BadPlanArgument("eta", "The value must be a finite number greater than zero.");
	if (!(lambda > 0) || isinf(lambda))
		BadPlanArgument("lambda", "The value must be a finite number greater than zero.");
	if (!(width > 0) || isinf(width))
		BadPlanArgument("width", "The value must be a finite number greater than zero.");
	if (!(delta > 0 && delta < 1))
		BadPlanArgument("delta", "The value must lie strictly between 0 and 1.");
	if (!(epsilon > 0) || isinf(epsilon) || MrfStableModeThreshold(epsilon, delta) < 0 ||
		MrfStructureDefaultBlocks(epsilon, delta) < 1)
		BadPlanArgument("epsilon", "The value must be a finite number greater than zero, and not so small that tau overflows.");
	if (!PG_ARGISNULL(5) && (blocks < 1 || blocks > 10000000))
		BadPlanArgument("blocks", "The value must be an integer from 1 to 10000000.");
	if (strcmp(model, "pairwise") == 0 && (k < 2 || k > MRF_PAIRWISE_MAX_K))
		BadPlanArgument("k", psprintf("Model 'pairwise' needs the alphabet size k, an integer from 2 to %d.",
									  MRF_PAIRWISE_MAX_K));
	if (strcmp(model, "pairwise") != 0 && k != 0)
		BadPlanArgument("k", "Only model 'pairwise' takes k.");
	if (strcmp(model, "twise") == 0 && (t < 2 || t > Min(p, MRF_TWISE_MAX_ORDER)))
		BadPlanArgument("t", psprintf("Model 'twise' needs the order t, an integer from 2 to min(p, %d).",
									  MRF_TWISE_MAX_ORDER));
	if (strcmp(model, "twise") != 0 && t != 0)
		BadPlanArgument("t", "Only model 'twise' takes t.");

	m = blocks > 0 ? blocks : MrfStructureDefaultBlocks(epsilon, delta);
	per_block = strcmp(model, "pairwise") == 0 ? MrfPairwiseBlockRowsNeeded(p, k, eta, width, lambda) :
		strcmp(model, "twise") == 0 ? MrfTwiseBlockRowsNeeded(p, t, eta, width, lambda) :
		MrfIsingBlockRowsNeededWidth(p, eta, width, lambda);
	if (per_block == -1 || (per_block > 0 && per_block > PG_INT64_MAX / m))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the planned number of rows is too large to represent"),
				 errdetail("The plan grows as e^(A width) ln(2p) / eta^2 (A = %g for model 'ising').",
						   MRF_ISING_PLAN_A)));

	InitMaterializedSRF(fcinfo, 0);
	values[0] = Int32GetDatum(m);
	values[1] = Int64GetDatum(MrfStableModeThreshold(epsilon, delta));
	if (per_block < 0)
	{
		/* lambda well below the width: the block learner is biased, no size is enough */
		double		def = strcmp(model, "ising") == 0 ? MrfOptionDefaultNumber(StructureLearner, "lambda") :
			MrfOptionDefaultNumber(strcmp(model, "pairwise") == 0 ? "mrf_learn_pairwise" : "mrf_learn_twise",
								   "lambda");

		nulls[2] = nulls[3] = true;
		ereport(NOTICE,
				(errmsg("no number of rows is enough when lambda is well below the model's width"),
				 errdetail("The block learner's radius %g (lambda = %g) cannot reach a model of width %g: its blocks agree on a biased graph or on none.",
						   MrfStructureBlockRadius(lambda, strcmp(model, "pairwise") == 0 ? k : 1),
						   lambda, width),
				 errhint("Raise lambda to at least the width (the default for model '%s', %g, covers widths up to %g).",
						 model, def, def)));
	}
	else
	{
		values[2] = Int64GetDatum(per_block);
		values[3] = Int64GetDatum(per_block * m);
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
