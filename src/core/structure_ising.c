/*
 * structure_ising.c - the Ising block learner of structure learning
 * (Wu, Sanghavi and Dimakis, NeurIPS 2019): L1-constrained logistic node
 * regressions on one block, the edges read off at eta / 2, the release in
 * one call, the planning of the rows a block needs, and the zCDP threshold
 * variant (privacy.md 7).  Nothing here is private but the threshold
 * variant's MrfIsingLearn call; structure.c holds the stable mode.
 */
#include <math.h>
#include <string.h>

#include "logreg.h"
#include "privacy.h"
#include "rows.h"
#include "sizes.h"
#include "structure_ising.h"

/* X, the targets and masks, and the batched solver's memory. */
size_t
MrfIsingNodeRegressionsBytes(int p, int64_t n)
{
	size_t		d;
	size_t		total = 0;

	if (p < 1 || n < 0)
		return SIZE_MAX;
	d = (size_t) p + 1;
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) n, d), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(d, (size_t) p), 1));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) p, sizeof(double *)));
	total = MrfSizeAdd(total, MrfLogregBatchBytes(n, (int) d, p));
	return total;
}

/* Node i's task: z_i on [z_-i, 1], the column i itself masked out. */
MrfStatus
MrfIsingNodeRegressions(const uint64_t *bits, int64_t n, int p, double radius,
						double tol, int max_iter, const MrfEnv *env, double *w,
						MrfLogregStats *stats)
{
	const int	d = p + 1;
	MrfStatus	st;
	double	   *x = NULL;
	uint8_t    *allowed = NULL;
	const double **y = NULL;
	int			i;
	int			j;

	if (bits == NULL || env == NULL || w == NULL || p < 2 || n < 1 ||
		n > (int64_t) 0x7fffffff || !isfinite(radius) || radius <= 0.0)
		return MRF_EINVAL;
	x = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) n, (size_t) d), sizeof(double)));
	allowed = MrfAlloc(env, MrfSizeMul((size_t) d, (size_t) p));
	y = MrfAlloc(env, MrfSizeMul((size_t) p, sizeof(double *)));
	if (x == NULL || allowed == NULL || y == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	MrfBitsToColumnsDouble(bits, n, p, x);
	for (i = 0; i < p; i++)
	{
		y[i] = x + (size_t) i * (size_t) n;
		for (j = 0; j < d; j++)
			allowed[(size_t) i * d + j] = j != i;
	}
	st = MrfLogregBatch(x, n, d, p, y, allowed, radius, tol, max_iter, env, w, stats);

done:
	MrfFree(env, y);
	MrfFree(env, allowed);
	MrfFree(env, x);
	return st;
}

/*
 * Wu-Sanghavi-Dimakis guarantee |A_hat_ij - A_ij| < eta / 2 for every
 * ordered pair once the block is large enough, from both node i's and node
 * j's regression.  The average of two estimates within eta / 2 of A_ij is
 * within eta / 2 too, so AVERAGE recovers the graph whenever both
 * directions would, and it halves the variance of the estimate that is
 * compared with eta / 2 (the same symmetrisation as ising.c); it is the
 * default.  AND is the conservative rule (fewer false edges, more missed
 * ones), OR the liberal one.  An edge exactly at eta / 2 counts.
 */
MrfStatus
MrfIsingEdgesFromWeights(const double *A, int p, double eta, MrfEdgeRule rule,
						 const MrfEnv *env, MrfStructure *out)
{
	double		cut = eta / 2.0;
	int			i;
	int			j;

	if (A == NULL || env == NULL || out == NULL || p < 2 || out->p != p ||
		!isfinite(eta) || eta <= 0.0)
		return MRF_EINVAL;
	if (rule != MRF_EDGE_AVERAGE && rule != MRF_EDGE_AND && rule != MRF_EDGE_OR)
		return MRF_EINVAL;
	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
		{
			double		aij = A[(size_t) i * p + j];
			double		aji = A[(size_t) j * p + i];
			int			edge;

			switch (rule)
			{
				case MRF_EDGE_AND:
					edge = fabs(aij) >= cut && fabs(aji) >= cut;
					break;
				case MRF_EDGE_OR:
					edge = fabs(aij) >= cut || fabs(aji) >= cut;
					break;
				default:
					edge = fabs(0.5 * (aij + aji)) >= cut;
					break;
			}
			if (edge)
			{
				int32_t		vars[2];
				MrfStatus	st;

				vars[0] = i;
				vars[1] = j;
				st = MrfStructureAdd(out, env, 2, vars);
				if (st != MRF_OK)
					return st;
			}
		}
	return MrfStructureCanonicalize(out, env);
}

/* The weights of the regressions and the p x p directed estimate. */
static size_t
IsingBlockWorkspace(const void *arg, int64_t nrows)
{
	const MrfIsingBlockOptions *opt = arg;
	size_t		p = (size_t) opt->p;
	size_t		total;

	total = MrfIsingNodeRegressionsBytes(opt->p, nrows);
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(p, p + 1), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(p, p), sizeof(double)));
	return total;
}

/*
 * Node regressions with radius 2 lambda (the width bound: ||w||_1 =
 * 2 (sum_j |A_ij| + |theta_i|) <= 2 lambda), A = w / 2 as in ising.c, then
 * the edges at eta / 2.
 */
MrfStatus
MrfIsingBlockLearn(const void *arg, const void *rows, int64_t nrows,
				   const MrfEnv *env, MrfStructure *out)
{
	const MrfIsingBlockOptions *opt = arg;
	double	   *w = NULL;
	double	   *A = NULL;
	MrfStatus	st;
	int			p;
	int			i;
	int			j;

	if (opt == NULL || rows == NULL || env == NULL || out == NULL || nrows < 1)
		return MRF_EINVAL;
	p = opt->p;
	if (p < 2 || out->p != p || isnan(MrfStructureBlockRadius(opt->lambda, 1)) ||
		!isfinite(opt->eta) || opt->eta <= 0.0)
		return MRF_EINVAL;
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) p, (size_t) p + 1), sizeof(double)));
	A = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) p, (size_t) p), sizeof(double)));
	if (w == NULL || A == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	st = MrfIsingNodeRegressions(rows, nrows, p, 2.0 * opt->lambda, opt->tolerance,
								 opt->max_iterations, env, w, opt->stats);
	if (st != MRF_OK)
		goto done;
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			A[(size_t) i * p + j] = j == i ? 0.0 : w[(size_t) i * (p + 1) + j] / 2.0;
	st = MrfIsingEdgesFromWeights(A, p, opt->eta, opt->rule, env, out);

done:
	MrfFree(env, A);
	MrfFree(env, w);
	return st;
}

/* Packed binary rows: MrfBitWords(p) words each. */
void
MrfIsingBlockLearner(const MrfIsingBlockOptions *opt, MrfBlockLearner *learner)
{
	memset(learner, 0, sizeof(*learner));
	learner->learn = MrfIsingBlockLearn;
	learner->arg = opt;
	learner->p = opt->p;
	learner->row_bytes = sizeof(uint64_t) * (size_t) MrfBitWords(opt->p);
	learner->workspace = IsingBlockWorkspace;
	learner->min_rows = 2 * ((int64_t) opt->p + 1);
}

/* The release with the default rule and solver settings. */
MrfStatus
MrfStructureLearnIsing(const uint64_t *bits, int64_t n, int p, double eta,
					   double lambda, const MrfStructureOptions *opt,
					   MrfRng *rng, const MrfEnv *env, MrfStructure *out,
					   int *released)
{
	MrfIsingBlockOptions bopt;
	MrfBlockLearner learner;

	if (released != NULL)
		*released = 0;
	if (p < 2 || !isfinite(eta) || eta <= 0.0 || isnan(MrfStructureBlockRadius(lambda, 1)))
		return MRF_EINVAL;
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.eta = eta;
	bopt.lambda = lambda;
	bopt.rule = MRF_EDGE_AVERAGE;
	MrfIsingBlockLearner(&bopt, &learner);
	return MrfStructureLearn(bits, n, &learner, opt, rng, env, out, released);
}

/* Shuffle, block, histogram, and a block graph of at most all p (p-1)/2 edges. */
size_t
MrfStructureIsingWorkspaceBytes(int p, int64_t n, int m)
{
	MrfIsingBlockOptions bopt;
	MrfBlockLearner learner;

	if (p < 2 || n < 0 || m < 1)
		return SIZE_MAX;
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	MrfIsingBlockLearner(&bopt, &learner);
	return MrfStructureWorkspaceBytes(&learner, n, m,
									  3 * ((int64_t) p * (p - 1) / 2));
}

/*
 * Planning constants of MrfIsingBlockRowsNeededWidth, fitted by experiment,
 * not derived (the defaults study; bench/bench_defaults.c --study structure and
 * bench/defaults_table.py, docs/studies/defaults.md "Defaults"): the block sizes at
 * which the block learner found the exact graph of chains, mixed-sign grids
 * of width 2 and 3 and random mixed-sign graphs (p = 20, eta = 0.5, radius
 * 2 lambda for lambda = 1 .. 8), turned into the rows of a 90% exact
 * release at epsilon 1, delta 1e-6.  The Wu-Sanghavi-Dimakis bound's
 * e^(12 lambda) is a worst case 10^6 times too large for these models; the
 * measured need grows like e^(A w) in the model's width w and with the
 * radius's slack up to twice the width, then stays (a larger radius is not
 * active).  Least squares over the 12 (family, lambda) points: C = 5.75,
 * A = 0.95, B = 0.5; every point's plan is within 0.49-2.1 of its
 * measured rows.  Not measured: other p (ln(2p) is the theorem's) and other
 * eta (1 / eta^2, the minimum-signal rate of L1 regressions).
 */
#define ISING_PLAN_C 5.75
#define ISING_PLAN_B 0.5

/*
 * A radius well below the model's width biases the block learner: blocks
 * agree on a wrong graph however many rows they get (lambda 1 on the grids
 * of width 2 and 3), so below this ratio of lambda to the width there is no
 * plan.  At 0.65 (lambda 2, width 3) the study still found the graph.
 */
#define ISING_PLAN_MIN_RATIO 0.6

/*
 * Rows per block for the model of width `width` learned at radius
 * 2 lambda: C e^(A w) min(lambda / w, 2)^B ln(2p) / eta^2.  -1 if invalid,
 * -2 when lambda is below the width (no number of rows is enough).
 */
int64_t
MrfIsingBlockRowsNeededWidth(int p, double eta, double width, double lambda)
{
	double		rows;

	if (p < 2 || !isfinite(eta) || eta <= 0.0 || !isfinite(lambda) || lambda <= 0.0 ||
		!isfinite(width) || width <= 0.0)
		return -1;
	if (lambda < ISING_PLAN_MIN_RATIO * width)
		return -2;
	rows = ceil(ISING_PLAN_C * exp(MRF_ISING_PLAN_A * width) *
				pow(fmin(lambda / width, 2.0), ISING_PLAN_B) * log(2.0 * p) / (eta * eta));
	if (!(rows < 9e18))
		return -1;
	return rows < 1.0 ? 1 : (int64_t) rows;
}

/* A model as wide as the radius allows: width = lambda. */
int64_t
MrfIsingBlockRowsNeeded(int p, double eta, double lambda)
{
	return MrfIsingBlockRowsNeededWidth(p, eta, lambda, lambda);
}

/* m blocks of the rows one block needs. */
int64_t
MrfStructurePlanRowsIsing(int p, double eta, double lambda, double epsilon,
						  double delta, int blocks)
{
	int64_t		per = MrfIsingBlockRowsNeeded(p, eta, lambda);
	int			m = blocks > 0 ? blocks : MrfStructureDefaultBlocks(epsilon, delta);

	if (per < 0 || m < 1 || blocks < 0 || MrfStableModeThreshold(epsilon, delta) < 0)
		return -1;
	if (per > INT64_MAX / m)
		return -1;
	return per * m;
}

/*
 * privacy.md 7 'threshold': the private learner spends rho (zCDP); reading off
 * the edges at eta / 2 is post-processing.  The estimate is taken
 * unsymmetrised so that the rule sees both directions (with symmetrize on,
 * every rule reduces to AVERAGE).
 */
static MrfStatus
StructureThreshold(const uint64_t *bits, MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
				   const MrfIsingOptions *opt, double eta,
				   MrfEdgeRule rule, MrfRng *rng, const MrfEnv *env,
				   MrfStructure *out)
{
	MrfIsingOptions o;
	double	   *A = NULL;
	double	   *theta = NULL;
	MrfStatus	st;

	if (opt == NULL || out == NULL || env == NULL || p < 2 || !isfinite(eta) || eta <= 0.0)
		return MRF_EINVAL;
	MrfStructureFree(out, env);
	out->p = p;
	o = *opt;
	o.symmetrize = 0;
	A = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) p, (size_t) p), sizeof(double)));
	theta = MrfAlloc(env, MrfSizeMul((size_t) p, sizeof(double)));
	if (A == NULL || theta == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	if (bits != NULL)
		st = MrfIsingLearn(bits, n, p, &o, rng, env, A, theta);
	else
		st = MrfIsingLearnParts(scores_fn, arg, n, p, &o, rng, env, A, theta);
	if (st == MRF_OK)
		st = MrfIsingEdgesFromWeights(A, p, eta, rule, env, out);

done:
	MrfFree(env, theta);
	MrfFree(env, A);
	return st;
}

/* See structure_ising.h. */
MrfStatus
MrfStructureThresholdIsing(const uint64_t *bits, int64_t n, int p,
						   const MrfIsingOptions *opt, double eta,
						   MrfEdgeRule rule, MrfRng *rng, const MrfEnv *env,
						   MrfStructure *out)
{
	if (bits == NULL)
		return MRF_EINVAL;
	return StructureThreshold(bits, NULL, NULL, n, p, opt, eta, rule, rng, env, out);
}

/* See structure_ising.h. */
MrfStatus
MrfStructureThresholdIsingParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
								const MrfIsingOptions *opt, double eta,
								MrfEdgeRule rule, MrfRng *rng, const MrfEnv *env,
								MrfStructure *out)
{
	if (scores_fn == NULL)
		return MRF_EINVAL;
	return StructureThreshold(NULL, scores_fn, arg, n, p, opt, eta, rule, rng, env, out);
}
