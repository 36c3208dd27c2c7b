/*
 * ising.c - the private Ising learner (Zhang et al. 2020, Algorithm 2;
 * privacy.md 4) on top of the batched Frank-Wolfe solver.
 *
 * Under P(z) proportional to exp(sum_{i<j} A_ij z_i z_j + sum_i theta_i z_i),
 * P(z_i = 1 | z_-i) = sigmoid(2 (sum_j A_ij z_j + theta_i)): the regression of
 * z_i on [z_-i, 1] has weights w = (2 A_i., 2 theta_i), whose L1 norm is at
 * most 2 lambda = R when lambda bounds the width.  All p regressions share one
 * design matrix: X = [z, 1] (n x (p+1)), problem i uses y = column i of X and
 * may not select coordinate i.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "fw.h"
#include "fwdesign.h"
#include "ising.h"
#include "rows.h"
#include "sizes.h"

/*
 * privacy.md 4: R = 2 lambda and rho_node = rho / p (the p regressions each
 * read every row, so their budgets add up to rho); T from public values only.
 * Returns -1 on invalid options.
 */
int
MrfIsingIterations(const MrfIsingOptions *opt, int p, int64_t n)
{
	if (opt == NULL || p < 2 || n < 1)
		return -1;
	if (opt->iterations != 0)
		return opt->iterations >= 2 ? opt->iterations : -1;
	return MrfFwIterations(2.0 * opt->lambda, n, opt->rho / p, MRF_ISING_T_FRACTION);
}

/* The problems MrfIsingValidate returns (problem.h). */
const char	MrfIsingBadArgument[] =
"invalid arguments: the learner needs at least 2 variables, 1 to 2147483647 rows and a known mechanism";
const char	MrfIsingBadBudget[] = "rho and lambda must be finite and positive";
const char	MrfIsingBadIterations[] = "iterations must be 0 (the default) or at least 2";
const char	MrfIsingBadScale[] =
"lambda is too large for this budget: the noise calibration of the regressions overflows";

/*
 * Everything MrfIsingLearn refuses before reading rows, from public values
 * only; the glue calls it before charging, so an option the learner would
 * refuse is never charged for.
 */
MrfProblem
MrfIsingValidate(const MrfIsingOptions *opt, int p, int64_t n)
{
	int			iters;

	if (opt == NULL || p < 2 || n < 1 || n > INT_MAX ||
		(int64_t) (p + 1) * p > INT_MAX)
		return MrfIsingBadArgument;
	if (!isfinite(opt->rho) || opt->rho <= 0.0 ||
		!isfinite(opt->lambda) || opt->lambda <= 0.0)
		return MrfIsingBadBudget;
	if (opt->mechanism != MRF_MECH_EXPONENTIAL && opt->mechanism != MRF_MECH_LAPLACE)
		return MrfIsingBadArgument;
	if (!isfinite(2.0 * opt->lambda))
		return MrfIsingBadScale;
	iters = MrfIsingIterations(opt, p, n);
	if (iters < 2)
		return MrfIsingBadIterations;
	if (MrfFwCheckCalibration(2.0 * opt->lambda, opt->rho / p, iters, opt->mechanism) != MRF_OK)
		return MrfIsingBadScale;
	return NULL;
}

/* max_i (sum_j |A_ij| + |theta_i|), A read as stored (row i). */
double
MrfIsingWidth(const double *A, const double *theta, int p)
{
	double		width = 0.0;

	for (int i = 0; i < p; i++)
	{
		double		s = fabs(theta[i]);

		for (int j = 0; j < p; j++)
			s += fabs(A[(size_t) i * p + j]);
		if (s > width)
			width = s;
	}
	return width;
}

/*
 * X (one bit per row and coordinate), the label columns, the allowed mask,
 * the p weight vectors, and the solver's own scratch (whose bulk is one
 * float margin per row and variable): about 4.15 bytes per row-variable.
 */
size_t
MrfIsingWorkspaceBytes(int p, int64_t n)
{
	size_t		d;
	size_t		total = 0;

	if (p < 0 || n < 0)
		return SIZE_MAX;
	d = (size_t) p + 1;
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) MrfFwColumnWords(n), d),
											 sizeof(uint64_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) p, 2 * sizeof(int)));
	total = MrfSizeAdd(total, MrfSizeMul(d, (size_t) p));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(d, (size_t) p), sizeof(double)));
	total = MrfSizeAdd(total, MrfFwWorkspaceBytes(n, p + 1, p));
	return total;
}

/* The Ising design's sizes: d = p + 1 coordinates, p problems. */
static void
IsingDesignSizes(const MrfFwDesign *design, int64_t *d, int64_t *q)
{
	if (design->p < 2 || design->p > INT_MAX - 1)
		return;
	*d = (int64_t) design->p + 1;
	*q = design->p;
}

/* Packed rows (rows.h). */
static size_t
IsingDesignRowBytes(const MrfFwDesign *design)
{
	return (size_t) MrfBitWords(design->p) * sizeof(uint64_t);
}

/*
 * X = [z, 1] (d = p + 1 columns), y_i = z_i = 2 x_i - 1 (column i of X),
 * problem i may not select coordinate i; radius 2 lambda (the caller's).
 */
static void
IsingDesignShape(const MrfFwDesign *design, MrfFwShape *shape)
{
	int			p = design->p;
	int			d = p + 1;

	for (int i = 0; i < p; i++)
	{
		shape->ypos[i] = i;
		shape->yneg[i] = MRF_FW_COMPLEMENT;
		for (int j = 0; j < d; j++)
			shape->allowed[(size_t) i * d + j] = (uint8_t) (j != i);
	}
	shape->prob.x_signed = 1;
}

/* X's columns: the p variables' bits and a column of ones. */
static MrfStatus
IsingDesignColumns(const MrfFwDesign *design, const void *rows, int64_t n, int64_t xwords,
				   uint64_t *x)
{
	MrfBitsToColumnBits(rows, n, design->p, 1, xwords, x);
	return MRF_OK;
}

const MrfFwDesignOps MrfIsingFwDesign = {
	IsingDesignSizes, IsingDesignRowBytes, IsingDesignShape, IsingDesignColumns
};

/* See ising.h. */
void
MrfIsingFwDesignOf(int p, double lambda, MrfFwDesign *design)
{
	memset(design, 0, sizeof(*design));
	design->kind = MRF_FW_DESIGN_ISING;
	design->p = p;
	design->k = 2;
	design->radius = 2.0 * lambda;
}

/* A and theta off the weights w (halved, see the file comment), symmetrised if asked. */
static void
IsingFromWeights(const double *w, int p, int symmetrize, double *A, double *theta)
{
	int			d = p + 1;
	int			i;
	int			j;

	for (i = 0; i < p; i++)
	{
		const double *wi = w + (size_t) i * d;

		for (j = 0; j < p; j++)
			A[(size_t) i * p + j] = j == i ? 0.0 : wi[j] / 2.0;
		theta[i] = wi[p] / 2.0;
	}
	if (symmetrize)
	{
		for (i = 0; i < p; i++)
			for (j = i + 1; j < p; j++)
			{
				double		avg = (A[(size_t) i * p + j] + A[(size_t) j * p + i]) / 2.0;

				A[(size_t) i * p + j] = avg;
				A[(size_t) j * p + i] = avg;
			}
	}
}

/*
 * Solve all p node regressions together, from the rows (bits != NULL) or
 * from score sums computed elsewhere (scores_fn), then read A and theta off
 * the weights.  Symmetrising afterwards is post-processing of the private
 * weights and costs nothing.
 */
static MrfStatus
IsingLearn(const uint64_t *bits, MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
		   const MrfIsingOptions *opt, MrfRng *rng,
		   const MrfEnv *env, double *A, double *theta)
{
	MrfFwDesign design;
	MrfFwShape	shape;
	double	   *w = NULL;
	MrfStatus	st;
	int			d = p + 1;

	if (opt == NULL || rng == NULL || env == NULL ||
		A == NULL || theta == NULL || MrfIsingValidate(opt, p, n) != NULL)
		return MRF_EINVAL;
	MrfIsingFwDesignOf(p, opt->lambda, &design);
	st = MrfFwShapeInit(&design, env, &shape);
	if (st != MRF_OK)
		return st;
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) d, (size_t) p), sizeof(double)));
	if (w == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	shape.prob.n = n;
	shape.prob.iterations = MrfIsingIterations(opt, p, n);
	shape.prob.rho_problem = opt->rho / p;
	shape.prob.mechanism = opt->mechanism;
	st = MrfFwDesignSolve(&design, &shape.prob, bits, scores_fn, arg, rng, env, w);
	if (st != MRF_OK)
		goto done;
	IsingFromWeights(w, p, opt->symmetrize, A, theta);

done:
	MrfFree(env, w);
	MrfFwShapeFree(env, &shape);
	return st;
}

/* See ising.h. */
MrfStatus
MrfIsingLearn(const uint64_t *bits, int64_t n, int p,
			  const MrfIsingOptions *opt, MrfRng *rng,
			  const MrfEnv *env, double *A, double *theta)
{
	if (bits == NULL)
		return MRF_EINVAL;
	return IsingLearn(bits, NULL, NULL, n, p, opt, rng, env, A, theta);
}

/* See ising.h. */
MrfStatus
MrfIsingLearnParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
				   const MrfIsingOptions *opt, MrfRng *rng,
				   const MrfEnv *env, double *A, double *theta)
{
	if (scores_fn == NULL)
		return MRF_EINVAL;
	return IsingLearn(NULL, scores_fn, arg, n, p, opt, rng, env, A, theta);
}
