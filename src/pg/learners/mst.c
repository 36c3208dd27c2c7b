/*
 * mst.c - MST (McKenna, Miklau, Sheldon 2021; privacy.md 12) from byte rows
 * of per-variable alphabets to a released clique model: the learner shared
 * by the aggregate's final function and the protected path.  The model is of
 * kind cliques (its cliques are the selected tree's pairs), so every clique
 * accessor, mrf_sample and mrf_synthesize read it; the names, labels and
 * source of the rows are attached by the driver like every learner's.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"

#include "core/bp.h"
#include "core/cliques.h"
#include "core/mst.h"
#include "core/privacy.h"
#include "pg/driver/aggregates.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options accepted by mrf_learn_mst. */
#define MST_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_K | \
					 MRF_OPT_ITERATIONS | MRF_OPT_DOMAINS | MRF_OPT_BINS | MRF_OPT_NULLS)

/*
 * Most cells of the released tree's tables: a clique model's limit (2^24
 * doubles), so the model's text form stays far below 1 GB.
 */
#define MST_MAX_MODEL_CELLS ((int64) 1 << 24)

/* Each variable's alphabet as the core's card array (palloc). */
static int *
MstCard(int p, int k, const uint16 *alphabets)
{
	int		   *card = palloc(sizeof(int) * p);

	for (int i = 0; i < p; i++)
		card[i] = alphabets != NULL ? alphabets[i] : k;
	return card;
}

/*
 * The options of mrf_learn_mst, from the document alone: validated, typed
 * (MrfMstOptions) and charged: rho, the whole budget of the three
 * mechanisms (privacy.md 12).
 */
static MrfRefusal *
MstOptions(MrfPlan *plan)
{
	const MrfOptions *opt = &plan->opt;
	const char *learner = plan->learner->name;
	MrfMstOptions *mo = palloc0(sizeof(MrfMstOptions));
	double		r1,
				r2,
				r3;

	MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, MST_OPTIONS, learner));
	MrfMstDefaultOptions(mo);
	MRF_REFUSE_IF(MrfOptionsZcdpBudget(opt, learner, &mo->rho));
	if (MrfMstSplit(mo->rho, &r1, &r2, &r3) != 0)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"rho\"",
						 psprintf("%s splits rho in three; rho = %g cannot be split.", learner, mo->rho),
						 NULL);
	/* the defaults table's 1000 steps (sqlapi/options.c) unless given */
	mo->estimate.iterations = (int) MrfOptionDefaultNumber(learner, "iterations");
	/* its range (1 to MRF_ESTIMATE_MAX_ITERATIONS): MrfOptionsCheckAllowed's */
	if (opt->given & MRF_OPT_ITERATIONS)
		mo->estimate.iterations = opt->iterations;
	plan->params = mo;
	MrfChargeZcdp(&plan->charge, learner, mo->rho);
	return NULL;
}

/*
 * The bytes of the run's input: the rows, or their one- and two-way tables
 * when the run gets tables counted where the rows are (Citus).
 */
static double
MstInputBytes(const MrfPlan *plan, const int *card)
{
	if (plan->counts)
		return (double) sizeof(int64) * (double) (MrfMstOneWayCells(plan->p, card) +
												  MrfMstTwoWayCells(plan->p, card, NULL));
	return (double) sizeof(MrfCode) * plan->n * plan->p;
}

/*
 * Plans an MST release: with p and the alphabets, what they refuse (one
 * variable, a budget whose noise leaves the sampler's range, tables too
 * large for a clique model); with n, the memory of the run.
 */
static MrfRefusal *
MstPlan(MrfPlan *plan)
{
	const MrfMstOptions *mo = plan->params;
	const char *learner = plan->learner->name;
	int			p = plan->p;
	int		   *card;
	double		r1,
				r2,
				r3;
	uint64		num,
				den;

	if (p < 2)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs at least 2 variables", learner),
						 psprintf("The rows have %d variable; a spanning tree of pairs needs two or more.", p),
						 NULL);
	if (p > 4096)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s learns from at most 4096 variables", learner),
						 psprintf("The rows have %d variables; MST counts every pair of them.", p),
						 NULL);
	if (plan->k < 2 || plan->k > MRF_MAX_ALPHABET)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s takes k from 2 to %d", learner, MRF_MAX_ALPHABET), NULL, NULL);
	card = MstCard(p, plan->k, plan->alphabets);
	(void) MrfMstSplit(mo->rho, &r1, &r2, &r3);
	if (MrfMstGaussianVariance(p, r1, &num, &den) != 0 ||
		MrfMstGaussianVariance(p - 1, r3, &num, &den) != 0 ||
		!isfinite(MrfMstSelectionScale(r2, p - 1)))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"rho\"",
						 psprintf("With %d variables, rho = %g needs discrete Gaussian noise of variance above the sampler's limit of 2^40.",
								  p, mo->rho),
						 "Raise rho, or learn from fewer variables.");
	if (MrfMstMaxTreeCells(p, card) > MST_MAX_MODEL_CELLS)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("the tree tables of %s could be too large", learner),
						 psprintf("A tree over these %d variables may hold up to " INT64_FORMAT " cells; a clique model holds at most " INT64_FORMAT ".",
								  p, (int64) MrfMstMaxTreeCells(p, card), MST_MAX_MODEL_CELLS),
						 "Learn from fewer variables or smaller alphabets.");
	if (plan->n == 0)
		return NULL;
	plan->iterations = mo->estimate.iterations;
	plan->memory = MstInputBytes(plan, card) + (double) MrfMstWorkspaceBytes(p, card) +
		3.0 * (double) MrfMstMaxTreeCells(p, card) * sizeof(double);
	return NULL;
}

/* Learns an MST model from byte rows (McKenna, Miklau, Sheldon 2021), rho-zCDP. */
static MrfModel *
MstRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const MrfMstOptions *mo = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	int		   *card = MstCard(p, plan->k, rows->alphabets);
	int		   *edges = palloc(sizeof(int) * 2 * p);
	int		   *start = palloc(sizeof(int) * p);
	double	   *logpot;
	MrfMstReport rep;
	MrfCliqueSet *set;
	StringInfoData meta;

	/* the rows' alphabets are the plan's (both from the rows' type) */
	if ((rows->alphabets == NULL) != (plan->alphabets == NULL) ||
		(rows->alphabets != NULL && memcmp(rows->alphabets, plan->alphabets, sizeof(uint16) * p) != 0))
		elog(ERROR, "%s: the rows' alphabets are not the plan's", plan->learner->name);
	logpot = MemoryContextAllocHuge(run->mcxt, sizeof(double) * (MrfMstMaxTreeCells(p, card) + 1));
	if (rows->counts != NULL)
	{
		/* tables counted where the rows are (Citus): the one-way tables, then the two-way */
		int64		one = MrfMstOneWayCells(p, card);

		if (rows->ncells != one + MrfMstTwoWayCells(p, card, NULL))
			elog(ERROR, "%s: counts of %lld cells for tables of %lld", plan->learner->name,
				 (long long) rows->ncells,
				 (long long) (one + MrfMstTwoWayCells(p, card, NULL)));
		MrfRunCheck(run, MrfMstLearnCounts(rows->counts, rows->counts + one, n, p, card, mo,
										   &run->rng, &run->env, edges, logpot, &rep));
	}
	else
		MrfRunCheck(run, MrfMstLearn(MrfRowsCodes(rows), n, p, card, mo, &run->rng, &run->env,
									 edges, logpot, &rep));
	for (int e = 0; e < p; e++)
		start[e] = 2 * e;
	MrfRunCheck(run, MrfCliqueSetBuildAlphabets(p, card, p - 1, start, edges,
												MST_MAX_MODEL_CELLS, &run->env, &set));

	MrfPlanMetaBegin(&meta, plan, run, "mckenna2021-mst");
	appendStringInfo(&meta, ", \"split\": {\"one_way\": %s, \"select\": %s, \"two_way\": %s}",
					 MrfDoubleText(rep.rho_one_way), MrfDoubleText(rep.rho_select),
					 MrfDoubleText(rep.rho_two_way));
	appendStringInfo(&meta, ", \"mechanism\": \"discrete-gaussian\", \"l2_sensitivity_per_table\": %s",
					 MrfDoubleText(sqrt(MrfMarginalSquaredSensitivity())));
	appendStringInfo(&meta, ", \"sigma2_one_way\": %s, \"sigma2_two_way\": %s",
					 MrfDoubleText(rep.sigma2_one_way), MrfDoubleText(rep.sigma2_two_way));
	appendStringInfo(&meta, ", \"selection\": {\"mechanism\": \"exponential\", \"rounds\": %d, \"epsilon_per_round\": %s, \"quality_sensitivity\": %s}",
					 p - 1, MrfDoubleText(rep.select_epsilon),
					 MrfDoubleText(MrfMstQualitySensitivity()));
	appendStringInfo(&meta, ", \"compressed_variables\": %d, \"merged_values\": %d",
					 rep.compressed, rep.rare_values);
	appendStringInfo(&meta, ", \"estimation\": {\"method\": \"mirror-descent\", \"iterations\": %d, \"max_iterations\": %d, \"inference\": \"%s\", \"loss\": ",
					 rep.estimate.iterations, mo->estimate.iterations,
					 rep.estimate.exact ? "exact" : "loopy");
	MrfJsonAppendDouble(&meta, rep.estimate.loss);
	appendStringInfoChar(&meta, '}');
	appendStringInfo(&meta, ", \"cliques\": %d, \"cells\": " INT64_FORMAT, set->m, (int64) set->cells);
	return MrfCliquesModelOf(set, logpot, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
							 MrfMetaFinish(&meta));
}

/*
 * See driver/learners.h: the cells of every one-way and every two-way
 * table, or -1 above MRF_COUNTS_MAX_CELLS (wide columns: three of 1,200
 * values are 4.3 million cells), where packed rows travel instead.  A
 * function of p and the alphabets only, so every node decides alike.
 */
static int64
MstTableCells(const MrfPlan *plan)
{
	int		   *card = MstCard(plan->p, plan->k, plan->alphabets);
	int64		cells = MrfMstOneWayCells(plan->p, card) + MrfMstTwoWayCells(plan->p, card, NULL);

	pfree(card);
	return cells > MRF_COUNTS_MAX_CELLS ? -1 : cells;
}

/* See driver/learners.h: adds the one- and two-way tables of n rows into counts. */
static void
MstCountRows(const MrfPlan *plan, const MrfCode *rows, int64 n, int64 *counts)
{
	int		   *card = MstCard(plan->p, plan->k, plan->alphabets);
	int64		one = MrfMstOneWayCells(plan->p, card);
	int64		cells = one + MrfMstTwoWayCells(plan->p, card, NULL);
	int64	   *part = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * (cells + 1));

	if (MrfMstCount(rows, n, plan->p, card, &MrfPallocEnv, part, part + one) != MRF_OK)
		elog(ERROR, "%s: a row value outside its alphabet", plan->learner->name);
	for (int64 x = 0; x < cells; x++)
		counts[x] += part[x];
	pfree(part);
	pfree(card);
}

const MrfLearner MrfMstLearner = {
	"mrf_learn_mst", MRF_ROWS_CODES, NULL, MstOptions, MstPlan, MstRun, NULL,
	MstTableCells, MstCountRows
};

PG_FUNCTION_INFO_V1(mrf_mst_accum);
/*
 * Transition: plans at the first row of each group, window aggregates
 * included (option errors and the budget refused at the first row, not
 * after the scan), then stores bytes.
 */
Datum
mrf_mst_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfMstLearner, MRF_ROWS_CODES);
}

PG_FUNCTION_INFO_V1(mrf_mst_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_mst_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfMstLearner);
}
