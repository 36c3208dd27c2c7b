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

/* The p node regressions' problem (x, n and the budget set by the caller). */
typedef struct IsingProblem
{
	MrfFwProblem prob;
	int		   *ypos;
	int		   *yneg;
	uint8_t    *allowed;
} IsingProblem;

/* Frees what IsingProblemInit allocated. */
static void
IsingProblemFree(const MrfEnv *env, IsingProblem *ip)
{
	MrfFree(env, ip->allowed);
	MrfFree(env, ip->yneg);
	MrfFree(env, ip->ypos);
}

/*
 * X = [z, 1] (d = p + 1 columns), y_i = z_i = 2 x_i - 1 (column i of X),
 * problem i may not select coordinate i; radius 2 lambda.
 */
static MrfStatus
IsingProblemInit(const MrfEnv *env, int p, double lambda, IsingProblem *ip)
{
	int			d = p + 1;

	memset(ip, 0, sizeof(*ip));
	ip->ypos = MrfAlloc(env, MrfSizeMul((size_t) p, sizeof(int)));
	ip->yneg = MrfAlloc(env, MrfSizeMul((size_t) p, sizeof(int)));
	ip->allowed = MrfAlloc(env, MrfSizeMul((size_t) d, (size_t) p));
	if (ip->ypos == NULL || ip->yneg == NULL || ip->allowed == NULL)
	{
		IsingProblemFree(env, ip);
		return MRF_ENOMEM;
	}
	for (int i = 0; i < p; i++)
	{
		ip->ypos[i] = i;
		ip->yneg[i] = MRF_FW_COMPLEMENT;
		for (int j = 0; j < d; j++)
			ip->allowed[(size_t) i * d + j] = (uint8_t) (j != i);
	}
	ip->prob.d = d;
	ip->prob.q = p;
	ip->prob.x_signed = 1;
	ip->prob.ypos = ip->ypos;
	ip->prob.yneg = ip->yneg;
	ip->prob.allowed = ip->allowed;
	ip->prob.radius = 2.0 * lambda;
	return MRF_OK;
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
	IsingProblem ip;
	uint64_t   *x = NULL;
	double	   *w = NULL;
	MrfStatus	st;
	int			d = p + 1;
	int64_t		xwords = MrfFwColumnWords(n);

	if (opt == NULL || rng == NULL || env == NULL ||
		A == NULL || theta == NULL || MrfIsingValidate(opt, p, n) != NULL)
		return MRF_EINVAL;
	st = IsingProblemInit(env, p, opt->lambda, &ip);
	if (st != MRF_OK)
		return st;
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) d, (size_t) p), sizeof(double)));
	if (bits != NULL)
		/* every word of X is written by MrfBitsToColumnBits */
		x = MrfAllocUninit(env, MrfSizeMul(MrfSizeMul((size_t) xwords, (size_t) d),
											 sizeof(uint64_t)));
	if (w == NULL || (bits != NULL && x == NULL))
	{
		st = MRF_ENOMEM;
		goto done;
	}
	ip.prob.n = n;
	ip.prob.iterations = MrfIsingIterations(opt, p, n);
	ip.prob.rho_problem = opt->rho / p;
	ip.prob.mechanism = opt->mechanism;
	if (bits != NULL)
	{
		MrfBitsToColumnBits(bits, n, p, 1, xwords, x);
		ip.prob.x = x;
		ip.prob.xwords = xwords;
		st = MrfFwSolve(&ip.prob, rng, env, w);
	}
	else
		st = MrfFwSolveParts(&ip.prob, scores_fn, arg, rng, env, w);
	if (st != MRF_OK)
		goto done;
	IsingFromWeights(w, p, opt->symmetrize, A, theta);

done:
	MrfFree(env, w);
	MrfFree(env, x);
	IsingProblemFree(env, &ip);
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

/* A part of the rows kept between iterations (ising.h). */
struct MrfIsingPart
{
	IsingProblem ip;
	uint64_t   *x;
	MrfFwPart  *fw;
	const MrfEnv *env;
};

/* See ising.h. */
void
MrfIsingPartClose(MrfIsingPart *part)
{
	const MrfEnv *env;

	if (part == NULL)
		return;
	env = part->env;
	MrfFwPartClose(part->fw);
	MrfFree(env, part->x);
	IsingProblemFree(env, &part->ip);
	MrfFree(env, part);
}

/* See ising.h. */
MrfStatus
MrfIsingPartOpen(const uint64_t *bits, int64_t n, int p, double lambda, const MrfEnv *env,
				 MrfIsingPart **out)
{
	MrfIsingPart *part;
	int64_t		xwords = MrfFwColumnWords(n);
	MrfStatus	st;

	*out = NULL;
	if (p < 2 || n < 0 || n > INT_MAX || (n > 0 && bits == NULL) || !isfinite(2.0 * lambda))
		return MRF_EINVAL;
	part = MrfAlloc(env, sizeof(MrfIsingPart));
	if (part == NULL)
		return MRF_ENOMEM;
	part->env = env;
	st = IsingProblemInit(env, p, lambda, &part->ip);
	if (st != MRF_OK)
	{
		MrfFree(env, part);
		return st;
	}
	if (n > 0)
	{
		part->x = MrfAllocUninit(env, MrfSizeMul(MrfSizeMul((size_t) xwords, (size_t) (p + 1)),
												   sizeof(uint64_t)));
		if (part->x == NULL)
		{
			MrfIsingPartClose(part);
			return MRF_ENOMEM;
		}
		MrfBitsToColumnBits(bits, n, p, 1, xwords, part->x);
	}
	part->ip.prob.n = n;
	part->ip.prob.x = part->x;
	part->ip.prob.xwords = xwords;
	st = MrfFwPartOpen(&part->ip.prob, env, &part->fw);
	if (st != MRF_OK)
	{
		MrfIsingPartClose(part);
		return st;
	}
	*out = part;
	return MRF_OK;
}

/* See ising.h. */
MrfStatus
MrfIsingPartAdvance(MrfIsingPart *part, int t, const int *sel_j, const int *sel_sign,
					int64_t *scores)
{
	return MrfFwPartAdvance(part->fw, t, sel_j, sel_sign, scores);
}

/* See ising.h. */
int
MrfIsingPartIteration(const MrfIsingPart *part)
{
	return MrfFwPartIteration(part->fw);
}

/* See ising.h. */
MrfStatus
MrfIsingPartScores(const uint64_t *bits, int64_t n, int p, double lambda, int t,
				   const int *sel_j, const int *sel_sign, const MrfEnv *env,
				   int64_t *scores)
{
	MrfIsingPart *part;
	MrfStatus	st;

	if (t < 1)
		return MRF_EINVAL;
	st = MrfIsingPartOpen(bits, n, p, lambda, env, &part);
	if (st != MRF_OK)
		return st;
	st = MrfIsingPartAdvance(part, t, sel_j, sel_sign, scores);
	MrfIsingPartClose(part);
	return st;
}
