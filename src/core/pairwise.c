/*
 * pairwise.c - the private pairwise k-ary learner (Zhang et al. 2020,
 * Algorithm 3; privacy.md 5) on top of the batched Frank-Wolfe solver.
 *
 * Why regressions recover W (the paper's Lemma 3.5): for u != v,
 *     P(z_i = u | z_i in {u, v}, z_-i)
 *         = sigmoid(sum_{j != i} (W_ij(u, z_j) - W_ij(v, z_j))
 *                   + theta_i(u) - theta_i(v)),
 * a logistic regression of y = +1 (z_i = u) / -1 (z_i = v) on the one-hot
 * encoding of z_-i and a constant, with weights W_ij(u, .) - W_ij(v, .) on
 * variable j's block and theta_i(u) - theta_i(v) on the constant.  Its L1
 * norm is at most 2 lambda k = R (the paper's bound is lambda k; R doubles
 * it as Algorithm 3 does).
 *
 * Batching.  All p k (k-1) regressions share one design matrix X: the
 * one-hot columns of all p variables (column j k + b is 1 where z_j = b)
 * and a column of ones, n x (p k + 1), entries 0/1.  Regression (i, u, v)
 * has y = +1 where z_i = u, -1 where z_i = v and 0 elsewhere: rows outside
 * S_uv carry weight 0 in every gradient and score, so they take no part,
 * and variable i's own block is not an allowed coordinate.  The label is
 * read off X itself: y = x_(i,u) - x_(i,v) (fw.h).  MrfFwSolve then
 * advances every regression with one integer product per row block and
 * iteration.
 *
 * Privacy.  The solver's scores are sums over all n rows (never divided by
 * the data-dependent |S_uv|), so each regression has sensitivity 2R under
 * replace-one whether the replaced row enters, leaves or stays in S_uv, and
 * only R unless its label flips; the budget of each regression is
 * MrfPairwiseProblemRho (privacy.c, where the per-pair composition over the
 * regressions a row touches is proved); T depends on public values only.
 *
 * Recovery (Eq. (1) and the last loop of Algorithm 3).  The one-hot blocks
 * each sum to 1 on every row, so a constant can move between a block and the
 * intercept without changing any margin; Eq. (1) removes that freedom by
 * centring each block of w and moving its mean into the intercept:
 *     U_uv(j, b) = w_uv(j, b) - (1/k) sum_a w_uv(j, a),
 *     U_uv(c)    = w_uv(c) + (1/k) sum_{j != i} sum_a w_uv(j, a).
 * For the centred truth U_uv(j, .) estimates W_ij(u, .) - W_ij(v, .), and
 * because the columns of W_ij sum to zero,
 *     W_ij(u, b) = (1/k) sum_{v} (W_ij(u, b) - W_ij(v, b)),
 * which Algorithm 3 estimates by (1/k) sum_{v != u} U_uv(j, b) (the v = u
 * term is zero).  Likewise (1/k) sum_{v != u} U_uv(c) estimates
 * theta_i(u) - (1/k) sum_v theta_i(v), the centred field, in the
 * representation where W is centred (the paper's footnote 2 moves the means
 * of W into theta).  The rows of this estimate sum to zero exactly; its
 * column sums and field sums estimate zero, and we subtract them: the
 * centred truth lies in that subspace, so projecting onto it (post-
 * processing) can only bring the estimate closer in Frobenius norm, and a
 * field's mean is a constant that no distribution depends on.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "fwdesign.h"
#include "pairwise.h"
#include "sizes.h"

/* Index of regression (i, u, v), u != v: the pairs of node i are contiguous. */
static inline int
ProblemIndex(int k, int i, int u, int v)
{
	return (i * k + u) * (k - 1) + (v < u ? v : v - 1);
}

/*
 * The L1 radius: Lemma 3.5's weights have norm at most lambda k and
 * Algorithm 3 constrains to 2 lambda k.  Not a privacy constant: the
 * sensitivity 2R follows whatever R is (privacy.c).
 */
static double
PairwiseRadius(const MrfPairwiseOptions *opt, int k)
{
	return 2.0 * opt->lambda * (double) k;
}

/* p k (k-1); -1 if p or k is out of range. */
int64_t
MrfPairwiseProblemCount(int p, int k)
{
	if (p < 1 || k < 2 || k > MRF_PAIRWISE_MAX_K)
		return -1;
	return (int64_t) p * k * (k - 1);
}

/* p k + 1; -1 if p or k is out of range. */
int64_t
MrfPairwiseCoordinateCount(int p, int k)
{
	if (p < 1 || k < 2 || k > MRF_PAIRWISE_MAX_K)
		return -1;
	return (int64_t) p * k + 1;
}

/* The problems MrfPairwiseValidate returns (problem.h). */
const char	MrfPairwiseBadArgument[] =
"invalid arguments: the learner needs at least 2 variables and 1 to 2147483647 rows";
const char	MrfPairwiseBadAlphabet[] = "the alphabet size k must be between 2 and 255";
const char	MrfPairwiseBadBudget[] = "rho and lambda must be finite and positive";
const char	MrfPairwiseBadIterations[] = "iterations must be 0 (the default) or at least 2";
const char	MrfPairwiseBadMechanism[] = "the mechanism must be exponential or laplace";
const char	MrfPairwiseTooManyFeatures[] =
"the regressions times their one-hot coordinates must stay below 2^31";
const char	MrfPairwiseBadScale[] =
"lambda is too large for this budget: the noise calibration of the regressions overflows";

/*
 * Everything the glue can refuse before reading rows.  The solver multiplies
 * a d x q score matrix and indexes it with int (BLAS), hence the last test.
 */
MrfProblem
MrfPairwiseValidate(const MrfPairwiseOptions *opt, int p, int k, int64_t n)
{
	int64_t		q;
	int64_t		d;
	double		radius;
	double		rho_problem;
	int			iters;

	if (opt == NULL || p < 2 || n < 1 || n > INT_MAX)
		return MrfPairwiseBadArgument;
	if (k < 2 || k > MRF_PAIRWISE_MAX_K)
		return MrfPairwiseBadAlphabet;
	if (!isfinite(opt->rho) || opt->rho <= 0.0 ||
		!isfinite(opt->lambda) || opt->lambda <= 0.0)
		return MrfPairwiseBadBudget;
	if (opt->iterations < 0 || opt->iterations == 1)
		return MrfPairwiseBadIterations;
	if (opt->mechanism != MRF_MECH_EXPONENTIAL &&
		opt->mechanism != MRF_MECH_LAPLACE)
		return MrfPairwiseBadMechanism;
	q = MrfPairwiseProblemCount(p, k);
	d = MrfPairwiseCoordinateCount(p, k);
	if (q > INT_MAX || d > INT_MAX || d > INT_MAX / q)
		return MrfPairwiseTooManyFeatures;
	/* the solver's calibration, as MrfFwSolve will compute it */
	radius = PairwiseRadius(opt, k);
	rho_problem = MrfPairwiseProblemRho(opt->rho, p, k);
	if (!isfinite(radius) || !isfinite(rho_problem) || !(rho_problem > 0.0))
		return MrfPairwiseBadScale;
	iters = opt->iterations != 0 ? opt->iterations :
		MrfFwIterations(radius, n, rho_problem, MRF_PAIRWISE_T_FRACTION);
	if (iters < 2)
		return MrfPairwiseBadIterations;
	if (MrfFwCheckCalibration(radius, rho_problem, iters, opt->mechanism) != MRF_OK)
		return MrfPairwiseBadScale;
	return NULL;
}

/*
 * privacy.md 5: T from R = 2 lambda k, n and the per-regression budget only
 * (public values), unless the caller fixed it.
 */
int
MrfPairwiseIterations(const MrfPairwiseOptions *opt, int p, int k, int64_t n)
{
	if (MrfPairwiseValidate(opt, p, k, n) != NULL)
		return -1;
	if (opt->iterations != 0)
		return opt->iterations;
	return MrfFwIterations(PairwiseRadius(opt, k), n,
						   MrfPairwiseProblemRho(opt->rho, p, k), MRF_PAIRWISE_T_FRACTION);
}

/*
 * X (n d bits), the label columns (2 q ints), the allowed mask (d q
 * bytes), the weights (d q doubles) and the solver's scratch are all live
 * at once during the solve; recovery allocates nothing.
 */
size_t
MrfPairwiseWorkspaceBytes(int p, int k, int64_t n)
{
	return MrfPairwiseWorkspaceBytesAlphabets(p, k, NULL, n);
}

/* MrfPairwiseWorkspaceBytes with per-variable alphabets (NULL: every variable has k). */
size_t
MrfPairwiseWorkspaceBytesAlphabets(int p, int k, const uint8_t *kv, int64_t n)
{
	int64_t		q = MrfPairwiseProblemCountAlphabets(p, k, kv);
	int64_t		d = MrfPairwiseCoordinateCountAlphabets(p, k, kv);
	size_t		dq;
	size_t		total = 0;

	if (q < 0 || d < 0 || n < 0 || q > INT_MAX || d > INT_MAX)
		return SIZE_MAX;
	dq = MrfSizeMul((size_t) d, (size_t) q);
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) MrfFwColumnWords(n), (size_t) d),
												   sizeof(uint64_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) q, 2 * sizeof(int)));
	total = MrfSizeAdd(total, dq);
	total = MrfSizeAdd(total, MrfSizeMul(dq, sizeof(double)));
	total = MrfSizeAdd(total, MrfFwWorkspaceBytes(n, (int) d, (int) q));
	return total;
}

/* Frees the arrays of a setup and zeroes it. */
void
MrfPairwiseReleaseSetup(MrfPairwiseSetup *setup, const MrfEnv *env)
{
	if (setup == NULL)
		return;
	MrfFree(env, setup->x);
	MrfFree(env, setup->ypos);
	MrfFree(env, setup->yneg);
	MrfFree(env, setup->allowed);
	memset(setup, 0, sizeof(*setup));
}

/*
 * The setup's arrays for p variables of alphabet k (the largest), d
 * coordinates and q regressions over n rows (xwords words per column);
 * MRF_ENOMEM (with nothing left allocated) if one does not fit.
 */
static MrfStatus
AllocSetup(MrfPairwiseSetup *setup, const MrfEnv *env, int p, int k,
		   int64_t xwords, int d, int q)
{
	setup->p = p;
	setup->k = k;
	/* zeroed: only the ones of the one-hot encoding are written */
	setup->x = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) xwords, (size_t) d),
											 sizeof(uint64_t)));
	setup->ypos = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(int)));
	setup->yneg = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(int)));
	setup->allowed = MrfAlloc(env, MrfSizeMul((size_t) d, (size_t) q));
	if (setup->x == NULL || setup->ypos == NULL || setup->yneg == NULL ||
		setup->allowed == NULL)
	{
		MrfPairwiseReleaseSetup(setup, env);
		return MRF_ENOMEM;
	}
	return MRF_OK;
}

/* Variable i's alphabet: kv[i], or k when every variable has k values. */
static inline int
AlphabetOf(const uint8_t *kv, int k, int i)
{
	return kv != NULL ? kv[i] : k;
}

/*
 * The labels and the mask of every regression (see the file comment), in
 * the per-variable layout (pairwise.h; with kv NULL it is the layout of
 * ProblemIndex): regression (i, u, v) has y = +1 where z_i = u, -1 where
 * z_i = v, and may not select variable i's own columns.  allowed is zeroed.
 */
static void
PairwiseShapeFill(int p, int k, const uint8_t *kv, int d, int *ypos, int *yneg,
				  uint8_t *allowed)
{
	int			col = 0;
	int			prob = 0;

	for (int i = 0; i < p; i++)
	{
		int			ki = AlphabetOf(kv, k, i);

		for (int u = 0; u < ki; u++)
			for (int v = 0; v < ki; v++)
				if (v != u)
				{
					ypos[prob + u * (ki - 1) + (v < u ? v : v - 1)] = col + u;
					yneg[prob + u * (ki - 1) + (v < u ? v : v - 1)] = col + v;
				}
		for (int c = prob; c < prob + ki * (ki - 1); c++)
		{
			uint8_t    *al = allowed + (size_t) c * d;

			for (int j = 0; j < d; j++)
				al[j] = (uint8_t) (j < col || j >= col + ki);
		}
		col += ki;
		prob += ki * (ki - 1);
	}
}

/*
 * The one-hot columns of n rows and the column of ones into x (zeroed);
 * MRF_EINVAL for a value outside its variable's alphabet, checked before
 * anything is written (the error says nothing about which).  env, when
 * not NULL, is polled once per variable.
 */
static MrfStatus
PairwiseColumnsFill(const uint8_t *z, int64_t n, int p, int k, const uint8_t *kv,
					int64_t xwords, const MrfEnv *env, uint64_t *x)
{
	int			bad = 0;
	size_t		col = 0;

	for (int64_t m = 0; m < n; m++)
		for (int i = 0; i < p; i++)
			bad |= z[(size_t) m * p + i] >= AlphabetOf(kv, k, i);
	if (bad)
		return MRF_EINVAL;
	for (int i = 0; i < p; i++)
	{
		/* cancel stays responsive on big inputs; the solver reports progress */
		if (env != NULL)
			MrfPoll(env, 0, 0);
		for (int64_t m = 0; m < n; m++)
			x[(col + z[(size_t) m * p + i]) * (size_t) xwords + m / 64] |=
				(uint64_t) 1 << (m % 64);
		col += AlphabetOf(kv, k, i);
	}
	memset(x + col * (size_t) xwords, 0xff, (size_t) xwords * sizeof(uint64_t));
	return MRF_OK;
}

/* The pairwise design's sizes (kv checked). */
static void
PairwiseDesignSizes(const MrfFwDesign *design, int64_t *d, int64_t *q)
{
	if (design->p < 2)
		return;
	*d = MrfPairwiseCoordinateCountAlphabets(design->p, design->k, design->kv);
	*q = MrfPairwiseProblemCountAlphabets(design->p, design->k, design->kv);
}

/* Byte rows: one value per variable. */
static size_t
PairwiseDesignRowBytes(const MrfFwDesign *design)
{
	return (size_t) design->p;
}

/* See PairwiseShapeFill. */
static void
PairwiseDesignShape(const MrfFwDesign *design, MrfFwShape *shape)
{
	int64_t		d = -1;
	int64_t		q = -1;

	PairwiseDesignSizes(design, &d, &q);
	PairwiseShapeFill(design->p, design->k, design->kv, (int) d, shape->ypos, shape->yneg,
					  shape->allowed);
	shape->prob.x_signed = 0;
}

/* See PairwiseColumnsFill. */
static MrfStatus
PairwiseDesignColumns(const MrfFwDesign *design, const void *rows, int64_t n, int64_t xwords,
					  uint64_t *x)
{
	return PairwiseColumnsFill(rows, n, design->p, design->k, design->kv, xwords, NULL, x);
}

const MrfFwDesignOps MrfPairwiseFwDesign = {
	PairwiseDesignSizes, PairwiseDesignRowBytes, PairwiseDesignShape, PairwiseDesignColumns
};

/* See pairwise.h. */
void
MrfPairwiseFwDesignOf(int p, int k, const uint8_t *kv, double lambda, MrfFwDesign *design)
{
	MrfPairwiseOptions o;

	memset(design, 0, sizeof(*design));
	memset(&o, 0, sizeof(o));
	o.lambda = lambda;
	design->kind = MRF_FW_DESIGN_PAIRWISE;
	design->p = p;
	design->k = k;
	design->kv = kv;
	design->radius = PairwiseRadius(&o, k);
}

/* The per-regression budget of a problem with these alphabets. */
static double
ProblemRho(const MrfPairwiseOptions *opt, int p, int k, const uint8_t *kv);

/*
 * Builds the setup over the per-variable layout (kv NULL: every variable
 * has k values): the one-hot X of the rows, the labels and the mask
 * (PairwiseShapeFill, PairwiseColumnsFill, which the distributed parts use
 * too), the radius, budget and T.  MRF_EINVAL for a value outside its
 * variable's alphabet (the error says nothing about which).
 */
static MrfStatus
Prepare(const uint8_t *z, int64_t n, int p, int k, const uint8_t *kv,
		const MrfPairwiseOptions *opt, const MrfEnv *env, MrfPairwiseSetup *setup)
{
	int64_t		d64 = MrfPairwiseCoordinateCountAlphabets(p, k, kv);
	int64_t		q64 = MrfPairwiseProblemCountAlphabets(p, k, kv);
	int			iters;
	int64_t		xwords = MrfFwColumnWords(n);
	MrfStatus	st;

	memset(setup, 0, sizeof(*setup));
	if (z == NULL || env == NULL || d64 < 0 || q64 < 0 ||
		MrfPairwiseValidate(opt, p, k, n) != NULL)
		return MRF_EINVAL;
	iters = MrfPairwiseIterationsAlphabets(opt, p, k, kv, n);
	if (iters < 2 || !isfinite(ProblemRho(opt, p, k, kv)))
		return MRF_EINVAL;
	if (AllocSetup(setup, env, p, k, xwords, (int) d64, (int) q64) != MRF_OK)
		return MRF_ENOMEM;
	st = PairwiseColumnsFill(z, n, p, k, kv, xwords, env, setup->x);
	if (st != MRF_OK)
	{
		MrfPairwiseReleaseSetup(setup, env);
		return st;
	}
	PairwiseShapeFill(p, k, kv, (int) d64, setup->ypos, setup->yneg, setup->allowed);

	setup->fw.n = n;
	setup->fw.d = (int) d64;
	setup->fw.q = (int) q64;
	setup->fw.x = setup->x;
	setup->fw.xwords = xwords;
	setup->fw.x_signed = 0;
	setup->fw.ypos = setup->ypos;
	setup->fw.yneg = setup->yneg;
	setup->fw.allowed = setup->allowed;
	setup->fw.radius = PairwiseRadius(opt, k);
	setup->fw.iterations = iters;
	setup->fw.rho_problem = ProblemRho(opt, p, k, kv);
	setup->fw.mechanism = opt->mechanism;
	return MRF_OK;
}

/* Builds X, the labels and the mask of one alphabet k (see Prepare). */
MrfStatus
MrfPairwisePrepare(const uint8_t *z, int64_t n, int p, int k,
				   const MrfPairwiseOptions *opt, const MrfEnv *env,
				   MrfPairwiseSetup *setup)
{
	if (setup == NULL)
		return MRF_EINVAL;
	return Prepare(z, n, p, k, NULL, opt, env, setup);
}

/* Subtracts the column means of a k x k block (row-major, row stride k). */
static void
CentreColumns(double *block, int k)
{
	int			a;
	int			b;

	for (b = 0; b < k; b++)
	{
		double		mean = 0.0;

		for (a = 0; a < k; a++)
			mean += block[(size_t) a * k + b];
		mean /= k;
		for (a = 0; a < k; a++)
			block[(size_t) a * k + b] -= mean;
	}
}

/* Subtracts the mean of a field theta_i (a constant of the model). */
static void
CentreField(double *field, int k)
{
	double		mean = 0.0;
	int			a;

	for (a = 0; a < k; a++)
		mean += field[a];
	mean /= k;
	for (a = 0; a < k; a++)
		field[a] -= mean;
}

/* Averages W_ij and W_ji^T for every pair: free post-processing. */
static void
Symmetrise(double *W, int p, int k)
{
	int			i;
	int			j;
	int			a;
	int			b;

	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					size_t		ij = MrfPairwiseAt(p, k, i, j, a, b);
					size_t		ji = MrfPairwiseAt(p, k, j, i, b, a);
					double		avg = 0.5 * W[ij] + 0.5 * W[ji];

					W[ij] = avg;
					W[ji] = avg;
				}
}

/*
 * Eq. (1) and the average over v, accumulated straight into W and theta
 * (zeroed first), then the column and field centring and the optional
 * symmetrisation (see the file comment).
 */
MrfStatus
MrfPairwiseRecover(const double *w, int p, int k, int symmetrize,
				   double *W, double *theta)
{
	int			d;
	int			i;
	int			u;
	int			v;
	int			j;
	int			b;

	if (w == NULL || W == NULL || theta == NULL || p < 2 || k < 2 ||
		k > MRF_PAIRWISE_MAX_K || MrfPairwiseCoordinateCount(p, k) > INT_MAX ||
		MrfPairwiseProblemCount(p, k) > INT_MAX)
		return MRF_EINVAL;
	d = p * k + 1;
	memset(W, 0, sizeof(double) * (size_t) p * p * k * k);
	memset(theta, 0, sizeof(double) * (size_t) p * k);

	for (i = 0; i < p; i++)
		for (u = 0; u < k; u++)
			for (v = 0; v < k; v++)
			{
				const double *wq;
				double		moved = 0.0;

				if (v == u)
					continue;
				wq = w + (size_t) ProblemIndex(k, i, u, v) * d;
				for (j = 0; j < p; j++)
				{
					double	   *row;
					double		sum = 0.0;

					if (j == i)
						continue;
					for (b = 0; b < k; b++)
						sum += wq[j * k + b];
					moved += sum;
					row = W + MrfPairwiseAt(p, k, i, j, u, 0);
					for (b = 0; b < k; b++)
						row[b] += (wq[j * k + b] - sum / k) / k;
				}
				theta[(size_t) i * k + u] += (wq[p * k] + moved / k) / k;
			}

	for (i = 0; i < p; i++)
	{
		for (j = 0; j < p; j++)
			if (j != i)
				CentreColumns(W + MrfPairwiseAt(p, k, i, j, 0, 0), k);
		CentreField(theta + (size_t) i * k, k);
	}
	if (symmetrize)
		Symmetrise(W, p, k);
	return MRF_OK;
}

/* Prepare, solve every regression together, recover; frees everything. */
MrfStatus
MrfPairwiseLearn(const uint8_t *z, int64_t n, int p, int k,
				 const MrfPairwiseOptions *opt, MrfRng *rng,
				 const MrfEnv *env, double *W, double *theta)
{
	MrfPairwiseSetup setup;
	double	   *w;
	MrfStatus	st;

	if (rng == NULL || W == NULL || theta == NULL)
		return MRF_EINVAL;
	st = MrfPairwisePrepare(z, n, p, k, opt, env, &setup);
	if (st != MRF_OK)
		return st;
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) setup.fw.d,
													  (size_t) setup.fw.q),
									  sizeof(double)));
	if (w == NULL)
	{
		MrfPairwiseReleaseSetup(&setup, env);
		return MRF_ENOMEM;
	}
	st = MrfFwSolve(&setup.fw, rng, env, w);
	if (st == MRF_OK)
		st = MrfPairwiseRecover(w, p, k, opt->symmetrize, W, theta);
	MrfFree(env, w);
	MrfPairwiseReleaseSetup(&setup, env);
	return st;
}

/* lambda(W, theta) of an estimate as stored (pairwise.h). */
double
MrfPairwiseWidth(const double *W, const double *theta, int p, int k)
{
	double		width = 0.0;

	for (int i = 0; i < p; i++)
	{
		double		s = 0.0;

		for (int a = 0; a < k; a++)
			s = fmax(s, fabs(theta[(size_t) i * k + a]));
		for (int j = 0; j < p; j++)
		{
			double		m = 0.0;

			if (j == i)
				continue;
			for (int a = 0; a < k; a++)
				for (int b = 0; b < k; b++)
					m = fmax(m, fabs(W[MrfPairwiseAt(p, k, i, j, a, b)]));
			s += m;
		}
		width = fmax(width, s);
	}
	return width;
}

/*
 * Moves the row means of each symmetrised block into theta_i, its column
 * means into theta_j, drops the grand mean and the fields' means: every
 * change adds a function of one variable to the exponent, or a constant, and
 * is compensated, so the distribution is unchanged.
 */
MrfStatus
MrfPairwiseCentre(double *W, double *theta, int p, int k)
{
	double		rowMean[MRF_PAIRWISE_MAX_K];
	double		colMean[MRF_PAIRWISE_MAX_K];
	int			i;
	int			j;
	int			a;
	int			b;

	if (W == NULL || theta == NULL || p < 1 || k < 2 || k > MRF_PAIRWISE_MAX_K)
		return MRF_EINVAL;
	for (i = 0; i < p; i++)
	{
		memset(W + MrfPairwiseAt(p, k, i, i, 0, 0), 0, sizeof(double) * k * k);
		for (j = i + 1; j < p; j++)
		{
			double		grand = 0.0;

			memset(rowMean, 0, sizeof(double) * k);
			memset(colMean, 0, sizeof(double) * k);
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					size_t		ij = MrfPairwiseAt(p, k, i, j, a, b);
					size_t		ji = MrfPairwiseAt(p, k, j, i, b, a);
					double		s = 0.5 * W[ij] + 0.5 * W[ji];

					W[ij] = s;
					rowMean[a] += s / k;
					colMean[b] += s / k;
					grand += s / ((double) k * k);
				}
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					size_t		ij = MrfPairwiseAt(p, k, i, j, a, b);

					W[ij] += grand - rowMean[a] - colMean[b];
					W[MrfPairwiseAt(p, k, j, i, b, a)] = W[ij];
				}
			for (a = 0; a < k; a++)
			{
				theta[(size_t) i * k + a] += rowMean[a];
				theta[(size_t) j * k + a] += colMean[a];
			}
		}
	}
	for (i = 0; i < p; i++)
		CentreField(theta + (size_t) i * k, k);
	return MRF_OK;
}

/*
 * Per-variable alphabets.  Variable i takes values 0..k_i - 1,
 * 2 <= k_i <= k; k = max k_i is the storage stride, so a model keeps the
 * layout above and the cells of values a >= k_i are zero (and never
 * occur).  The regressions and the design follow the alphabets exactly:
 * node i runs k_i (k_i - 1) regressions (one per ordered pair u != v of its
 * own values), the one-hot design has sum_j k_j columns and the constant,
 * and the recovery centres each block over the values it has:
 *     U_uv(j, b) = w_uv(j, b) - (1/k_j) sum_{a < k_j} w_uv(j, a),
 *     W_ij(u, b) = (1/k_i) sum_{v < k_i, v != u} U_uv(j, b),
 * the identities of the file comment with k_j (the columns of block j) and
 * k_i (the values of node i) in place of k.  Lemma 3.5's bound on each
 * regression's L1 norm becomes 2 lambda max_j k_j <= 2 lambda k = R, so the
 * radius and its sensitivity 2R are unchanged; the budget of each
 * regression is MrfPairwiseProblemRhoAlphabets (privacy.c).
 */

/* Checks a vector of alphabets against k (each 2..k, the largest k). */
static int
AlphabetsValid(const uint8_t *kv, int p, int k)
{
	int			top = 0;

	for (int i = 0; i < p; i++)
	{
		if (kv[i] < 2 || kv[i] > k)
			return 0;
		if (kv[i] > top)
			top = kv[i];
	}
	return top == k;
}

/* sum_i k_i (k_i - 1): the regressions; -1 if the alphabets are invalid. */
int64_t
MrfPairwiseProblemCountAlphabets(int p, int k, const uint8_t *kv)
{
	int64_t		q = 0;

	if (kv == NULL)
		return MrfPairwiseProblemCount(p, k);
	if (p < 1 || k < 2 || k > MRF_PAIRWISE_MAX_K || !AlphabetsValid(kv, p, k))
		return -1;
	for (int i = 0; i < p; i++)
		q += (int64_t) kv[i] * (kv[i] - 1);
	return q;
}

/* sum_i k_i + 1: the design's columns; -1 if the alphabets are invalid. */
int64_t
MrfPairwiseCoordinateCountAlphabets(int p, int k, const uint8_t *kv)
{
	int64_t		d = 1;

	if (kv == NULL)
		return MrfPairwiseCoordinateCount(p, k);
	if (p < 1 || k < 2 || k > MRF_PAIRWISE_MAX_K || !AlphabetsValid(kv, p, k))
		return -1;
	for (int i = 0; i < p; i++)
		d += kv[i];
	return d;
}

/* The per-regression budget of a problem with these alphabets. */
static double
ProblemRho(const MrfPairwiseOptions *opt, int p, int k, const uint8_t *kv)
{
	return kv == NULL ? MrfPairwiseProblemRho(opt->rho, p, k) :
		MrfPairwiseProblemRhoAlphabets(opt->rho, p, kv);
}

/* Iterations with per-variable alphabets (kv NULL: MrfPairwiseIterations). */
int
MrfPairwiseIterationsAlphabets(const MrfPairwiseOptions *opt, int p, int k,
							   const uint8_t *kv, int64_t n)
{
	if (kv == NULL)
		return MrfPairwiseIterations(opt, p, k, n);
	if (MrfPairwiseValidate(opt, p, k, n) != NULL ||
		MrfPairwiseProblemCountAlphabets(p, k, kv) < 0)
		return -1;
	if (opt->iterations != 0)
		return opt->iterations;
	/* the same fraction of the paper's T as MrfPairwiseIterations (the defaults study) */
	return MrfFwIterations(PairwiseRadius(opt, k), n, ProblemRho(opt, p, k, kv),
						   MRF_PAIRWISE_T_FRACTION);
}

/*
 * The design of the per-variable problem: column offsets (variable j's
 * value b is column col[j] + b, the constant col[p]) and regression offsets
 * (node i's pair (u, v) is problem prob[i] + u (k_i - 1) + (v < u ? v : v - 1)).
 */
typedef struct AlphabetLayout
{
	int		   *col;			/* p + 1 */
	int		   *prob;			/* p + 1 */
} AlphabetLayout;

/* Fills the offsets; MRF_ENOMEM or MRF_OK. */
static MrfStatus
LayoutBuild(const uint8_t *kv, int p, const MrfEnv *env, AlphabetLayout *lay)
{
	lay->col = MrfAlloc(env, sizeof(int) * (size_t) (p + 1));
	lay->prob = MrfAlloc(env, sizeof(int) * (size_t) (p + 1));
	if (lay->col == NULL || lay->prob == NULL)
		return MRF_ENOMEM;
	lay->col[0] = 0;
	lay->prob[0] = 0;
	for (int i = 0; i < p; i++)
	{
		lay->col[i + 1] = lay->col[i] + kv[i];
		lay->prob[i + 1] = lay->prob[i] + kv[i] * (kv[i] - 1);
	}
	return MRF_OK;
}

/* Frees the offsets. */
static void
LayoutFree(const MrfEnv *env, AlphabetLayout *lay)
{
	MrfFree(env, lay->col);
	MrfFree(env, lay->prob);
	lay->col = NULL;
	lay->prob = NULL;
}

/* Regression (i, u, v) of the per-variable layout. */
static inline int
LayoutProblem(const AlphabetLayout *lay, const uint8_t *kv, int i, int u, int v)
{
	return lay->prob[i] + u * (kv[i] - 1) + (v < u ? v : v - 1);
}

/* Recovery over the per-variable layout (see the comment above). */
static void
RecoverAlphabets(const double *w, int p, int k, const uint8_t *kv,
				 const AlphabetLayout *lay, int symmetrize, double *W, double *theta)
{
	int			d = lay->col[p] + 1;

	memset(W, 0, sizeof(double) * (size_t) p * p * k * k);
	memset(theta, 0, sizeof(double) * (size_t) p * k);
	for (int i = 0; i < p; i++)
		for (int u = 0; u < kv[i]; u++)
			for (int v = 0; v < kv[i]; v++)
			{
				const double *wq;
				double		moved = 0.0;

				if (v == u)
					continue;
				wq = w + (size_t) LayoutProblem(lay, kv, i, u, v) * d;
				for (int j = 0; j < p; j++)
				{
					double	   *row;
					double		sum = 0.0;
					const double *block = wq + lay->col[j];

					if (j == i)
						continue;
					for (int b = 0; b < kv[j]; b++)
						sum += block[b];
					moved += sum / kv[j];
					row = W + MrfPairwiseAt(p, k, i, j, u, 0);
					for (int b = 0; b < kv[j]; b++)
						row[b] += (block[b] - sum / kv[j]) / kv[i];
				}
				theta[(size_t) i * k + u] += (wq[lay->col[p]] + moved) / kv[i];
			}
	for (int i = 0; i < p; i++)
	{
		for (int j = 0; j < p; j++)
		{
			double	   *block = W + MrfPairwiseAt(p, k, i, j, 0, 0);

			if (j == i)
				continue;
			/* centre each column b < k_j over the values a < k_i */
			for (int b = 0; b < kv[j]; b++)
			{
				double		mean = 0.0;

				for (int a = 0; a < kv[i]; a++)
					mean += block[(size_t) a * k + b];
				mean /= kv[i];
				for (int a = 0; a < kv[i]; a++)
					block[(size_t) a * k + b] -= mean;
			}
		}
		{
			double	   *field = theta + (size_t) i * k;
			double		mean = 0.0;

			for (int a = 0; a < kv[i]; a++)
				mean += field[a];
			mean /= kv[i];
			for (int a = 0; a < kv[i]; a++)
				field[a] -= mean;
		}
	}
	if (symmetrize)
		Symmetrise(W, p, k);
}

/* See pairwise.h: the recovery of the per-variable problem (also the block learner's). */
MrfStatus
MrfPairwiseRecoverAlphabets(const double *w, int p, int k, const uint8_t *kv, int symmetrize,
							const MrfEnv *env, double *W, double *theta)
{
	AlphabetLayout lay = {NULL, NULL};
	MrfStatus	st;

	if (kv == NULL)
		return MrfPairwiseRecover(w, p, k, symmetrize, W, theta);
	if (w == NULL || W == NULL || theta == NULL || env == NULL || p < 2 || k < 2 ||
		k > MRF_PAIRWISE_MAX_K || !AlphabetsValid(kv, p, k))
		return MRF_EINVAL;
	st = LayoutBuild(kv, p, env, &lay);
	if (st == MRF_OK)
		RecoverAlphabets(w, p, k, kv, &lay, symmetrize, W, theta);
	LayoutFree(env, &lay);
	return st;
}

/*
 * MrfPairwiseLearn with per-variable alphabets kv (p entries, 2..k, max k);
 * kv NULL is MrfPairwiseLearn.  Cells of values outside an alphabet are 0.
 */
MrfStatus
MrfPairwiseLearnAlphabets(const uint8_t *z, int64_t n, int p, int k, const uint8_t *kv,
						  const MrfPairwiseOptions *opt, MrfRng *rng,
						  const MrfEnv *env, double *W, double *theta)
{
	MrfPairwiseSetup setup;
	AlphabetLayout lay = {NULL, NULL};
	double	   *w;
	MrfStatus	st;

	if (kv == NULL)
		return MrfPairwiseLearn(z, n, p, k, opt, rng, env, W, theta);
	if (rng == NULL || W == NULL || theta == NULL || env == NULL || p < 2 ||
		k < 2 || k > MRF_PAIRWISE_MAX_K || !AlphabetsValid(kv, p, k))
		return MRF_EINVAL;
	st = LayoutBuild(kv, p, env, &lay);
	if (st == MRF_OK)
		st = Prepare(z, n, p, k, kv, opt, env, &setup);
	if (st != MRF_OK)
	{
		LayoutFree(env, &lay);
		return st;
	}
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) setup.fw.d, (size_t) setup.fw.q),
									  sizeof(double)));
	if (w == NULL)
		st = MRF_ENOMEM;
	else
		st = MrfFwSolve(&setup.fw, rng, env, w);
	if (st == MRF_OK)
		RecoverAlphabets(w, p, k, kv, &lay, opt->symmetrize, W, theta);
	MrfFree(env, w);
	MrfPairwiseReleaseSetup(&setup, env);
	LayoutFree(env, &lay);
	return st;
}

/*
 * See pairwise.h: the problem of Prepare without its rows (the shape of
 * MrfPairwiseFwDesignOf's design), solved with the parts' score sums, then
 * the recovery of MrfPairwiseLearnAlphabets.
 */
MrfStatus
MrfPairwiseLearnParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p, int k,
					  const uint8_t *kv, const MrfPairwiseOptions *opt, MrfRng *rng,
					  const MrfEnv *env, double *W, double *theta)
{
	MrfFwDesign design;
	MrfFwShape	shape;
	double	   *w;
	int			iters;
	MrfStatus	st;

	if (scores_fn == NULL || rng == NULL || W == NULL || theta == NULL || env == NULL ||
		opt == NULL || p < 2 || k < 2 || k > MRF_PAIRWISE_MAX_K ||
		(kv != NULL && !AlphabetsValid(kv, p, k)) || MrfPairwiseValidate(opt, p, k, n) != NULL)
		return MRF_EINVAL;
	iters = MrfPairwiseIterationsAlphabets(opt, p, k, kv, n);
	if (iters < 2 || !isfinite(ProblemRho(opt, p, k, kv)))
		return MRF_EINVAL;
	MrfPairwiseFwDesignOf(p, k, kv, opt->lambda, &design);
	st = MrfFwShapeInit(&design, env, &shape);
	if (st != MRF_OK)
		return st;
	shape.prob.n = n;
	shape.prob.iterations = iters;
	shape.prob.rho_problem = ProblemRho(opt, p, k, kv);
	shape.prob.mechanism = opt->mechanism;
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) shape.prob.d, (size_t) shape.prob.q),
								 sizeof(double)));
	if (w == NULL)
		st = MRF_ENOMEM;
	else
		st = MrfFwDesignSolve(&design, &shape.prob, NULL, scores_fn, arg, rng, env, w);
	if (st == MRF_OK)
		st = MrfPairwiseRecoverAlphabets(w, p, k, kv, opt->symmetrize, env, W, theta);
	MrfFree(env, w);
	MrfFwShapeFree(env, &shape);
	return st;
}
