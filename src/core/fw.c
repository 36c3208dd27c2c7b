/*
 * fw.c - batched private Frank-Wolfe (SPEC.md 4.1; Zhang et al. 2020, Alg. 1).
 *
 * All q problems share the design matrix X (n x d).  The state of problem k is
 * its iterate w_k and its margins a_k = X w_k.  One pass over the rows per
 * iteration first applies the previous step to the margins, then forms the
 * gradient weights G and accumulates the scores X^T G with sgemm, block by
 * block of rows, so the data are streamed once per iteration.
 *
 * Exactness of the scores, which the sensitivity bound relies on.  For the
 * logistic loss the sum score of vertex s = +-R e_j of problem k is
 *     u(s) = +-R sum_m G_mk x_mj,   G_mk = y_mk sigmoid(-y_mk a_mk)
 *                                        = (y - |y| tanh(a/2)) / 2.
 * We replace G by the integer Gq = 2^10 y - |y| round(2^10 tanh(a/2)), with
 * tanh from a fixed rational approximation clamped to [-1, 1] (FwWeight), so
 * |Gq| <= 2^11 = MRF_FW_QUANTUM, and use u(s) = +-R S_jk / 2^11 with
 * S = X^T Gq.  Preconditions (checked): x and y entries
 * are in {-1, 0, 1}.  Then every product Gq x is an integer of magnitude at
 * most 2^11, and a block of at most FW_CHUNK = 2^13 rows has every partial
 * sum, in whatever order and blocking BLAS uses, an integer of magnitude at
 * most 2^24: exactly representable in float.  So each sgemm is exact
 * whatever the kernel or thread count, and the block sums are added in
 * double, exact below 2^53 (n <= 2^42 rows).  Row m's contribution to every
 * score is therefore exactly R Gq x_mj / 2^11, a function of row m and the
 * previously released selections only, with magnitude at most R; replacing
 * one row moves every score by at most 2R = MrfFwScoreSensitivity(R), with no
 * floating-point slack.  (The margins carry float rounding, but each margin
 * is computed from its own row only, which is all the argument needs.)
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include <cblas.h>

#include "fw.h"

/* b: gradient weights are integers in [-2^b, 2^b]. */
#define FW_QBITS 11
#define FW_QHALF (1 << (FW_QBITS - 1))

/* Rows per sgemm: FW_CHUNK * 2^FW_QBITS <= 2^24 keeps float sums exact. */
#define FW_CHUNK 8192

/*
 * Margins are clamped to [-9, 9]: beyond, round(2^10 tanh(a/2)) = +-2^10.
 * 0x41100000 is the IEEE single bit pattern of 9.0.
 */
#define FW_MARGIN_CLAMP_BITS ((int32_t) 0x41100000)
#define FW_MAGNITUDE_MASK ((int32_t) 0x7fffffff)

/* Elements per inner loop of fixed length, which GCC vectorises at -O2. */
#define FW_LANES 8

/* Most rows for which the double accumulation of scores stays exact. */
#define FW_MAX_ROWS ((int64_t) 1 << 42)

_Static_assert(MRF_FW_QUANTUM == (1 << FW_QBITS), "quantum must be 2^FW_QBITS");
_Static_assert((int64_t) FW_CHUNK * MRF_FW_QUANTUM <= ((int64_t) 1 << 24),
			   "block sums must stay exact in float");

/*
 * The quantised gradient weight Gq = 2^10 y - |y| round(2^10 tanh(a/2)), as
 * an exact float integer in [-2^11, 2^11] (y in {-1, 0, 1}).
 *
 * tanh(x) on |x| <= 4.5 is the [7/6] Pade approximant
 * x (135135 + 17325 x^2 + 378 x^4 + x^6) / (135135 + 62370 x^2 + 3150 x^4
 * + 28 x^6), within 4.2e-5 of tanh there (0.05 units of 2^-10); margins are
 * first clamped to |a| <= 9, where 2^10 tanh(4.5) = 1023.8 rounds to 2^10,
 * the correctly rounded value for every |a| > 8.32.  Accuracy only affects
 * the optimisation.  The privacy argument needs only |Gq| <= 2^11, which
 * holds for every input bit pattern: the clamp works on the magnitude bits
 * (a non-negative float's bits order like its value, and NaN and infinity
 * lie above 9), so the rational function only ever sees |x| <= 4.5, and the
 * rounded value is clamped to [0, 2^11] as integers besides.
 *
 * Everything is branch-free integer and float arithmetic, so the loops over
 * it vectorise at -O2 (libm's tanh, fminf or a table lookup would not).
 * Rounding is floor(v + 1024.5) - 1024 by truncation of a positive number,
 * independent of the rounding mode.
 */
static inline float
FwWeight(float y, float a)
{
	int32_t		bits;
	int32_t		mag;
	float		x;
	float		x2;
	float		t;
	int			ti;

	memcpy(&bits, &a, sizeof(bits));
	mag = bits & FW_MAGNITUDE_MASK;
	mag = mag < FW_MARGIN_CLAMP_BITS ? mag : FW_MARGIN_CLAMP_BITS;
	bits = mag | (bits & ~FW_MAGNITUDE_MASK);
	memcpy(&x, &bits, sizeof(x));
	x = 0.5f * x;
	x2 = x * x;
	t = x * (135135.0f + x2 * (17325.0f + x2 * (378.0f + x2))) /
		(135135.0f + x2 * (62370.0f + x2 * (3150.0f + x2 * 28.0f)));
	ti = (int) (t * (float) FW_QHALF + ((float) FW_QHALF + 0.5f));
	ti = ti > 0 ? ti : 0;
	ti = ti < 2 * FW_QHALF ? ti : 2 * FW_QHALF;
	return y * (float) FW_QHALF - y * y * (float) (ti - FW_QHALF);
}

/*
 * Gq for a column segment; every path (solve, scores, tests) goes through
 * here.  Cloned for AVX2 (chosen at load time by the CPU): twice the lanes of
 * the SSE2 baseline in the learner's hottest loop outside BLAS.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
FwWeights(const float *restrict y, const float *restrict a, int rows,
		  float *restrict g)
{
	int			r = 0;
	int			i;

	for (; r + FW_LANES <= rows; r += FW_LANES)
		for (i = 0; i < FW_LANES; i++)
			g[r + i] = FwWeight(y[r + i], a[r + i]);
	for (; r < rows; r++)
		g[r] = FwWeight(y[r], a[r]);
}

/* The exported form of FwWeights, for tests. */
int
MrfFwQuantizedWeight(float y, float margin)
{
	float		g;

	FwWeights(&y, &margin, 1, &g);
	return (int) g;
}

/* Multiplies sizes, saturating at SIZE_MAX so that overflow reads as "too big". */
static size_t
SizeMul(size_t a, size_t b)
{
	if (a != 0 && b > SIZE_MAX / a)
		return SIZE_MAX;
	return a * b;
}

/* Adds sizes, saturating at SIZE_MAX. */
static size_t
SizeAdd(size_t a, size_t b)
{
	if (b > SIZE_MAX - a)
		return SIZE_MAX;
	return a + b;
}

/* Rows of the gradient block buffer: one block, or all rows if fewer. */
static int
FwChunkRows(int64_t n)
{
	return n < FW_CHUNK ? (int) n : FW_CHUNK;
}

/* Scratch of one solve; see MrfFwWorkspaceBytes for the sizes. */
typedef struct FwWork
{
	float	   *margins;		/* n x q, ld n: a_k = X w_k */
	float	   *gbuf;			/* chunk x q, ld rows of the block: Gq */
	float	   *sbuf;			/* d x q: one block's X^T Gq */
	double	   *acc;			/* d x q: the scores, summed over blocks */
	int		   *sel_j;			/* q: last selected coordinate */
	int		   *sel_sign;		/* q: its sign, +1 or -1 */
	float	   *coef;			/* q: margin coefficient of the last step */
} FwWork;

/* Honest total of FwWork for these dimensions (SIZE_MAX on overflow). */
size_t
MrfFwWorkspaceBytes(int64_t n, int d, int q)
{
	size_t		total = 0;
	size_t		dq;

	if (n < 0 || d < 0 || q < 0)
		return SIZE_MAX;
	dq = SizeMul((size_t) d, (size_t) q);
	total = SizeAdd(total, SizeMul(SizeMul((size_t) n, (size_t) q), sizeof(float)));
	total = SizeAdd(total, SizeMul(SizeMul((size_t) FwChunkRows(n), (size_t) q), sizeof(float)));
	total = SizeAdd(total, SizeMul(dq, sizeof(float)));
	total = SizeAdd(total, SizeMul(dq, sizeof(double)));
	total = SizeAdd(total, SizeMul((size_t) q, 2 * sizeof(int) + sizeof(float)));
	return total;
}

/* Releases whatever FwWorkAlloc obtained. */
static void
FwWorkFree(FwWork *work, const MrfEnv *env)
{
	MrfFree(env, work->margins);
	MrfFree(env, work->gbuf);
	MrfFree(env, work->sbuf);
	MrfFree(env, work->acc);
	MrfFree(env, work->sel_j);
	MrfFree(env, work->sel_sign);
	MrfFree(env, work->coef);
	memset(work, 0, sizeof(*work));
}

/* Allocates the scratch; with_margins = 0 when the caller supplies margins. */
static MrfStatus
FwWorkAlloc(FwWork *work, int64_t n, int d, int q, int with_margins,
			const MrfEnv *env)
{
	size_t		dq = (size_t) d * (size_t) q;

	memset(work, 0, sizeof(*work));
	if (with_margins)
		work->margins = MrfAlloc(env, SizeMul(SizeMul((size_t) n, (size_t) q), sizeof(float)));
	work->gbuf = MrfAlloc(env, SizeMul((size_t) FwChunkRows(n) * (size_t) q, sizeof(float)));
	work->sbuf = MrfAlloc(env, SizeMul(dq, sizeof(float)));
	work->acc = MrfAlloc(env, SizeMul(dq, sizeof(double)));
	work->sel_j = MrfAlloc(env, (size_t) q * sizeof(int));
	work->sel_sign = MrfAlloc(env, (size_t) q * sizeof(int));
	work->coef = MrfAlloc(env, (size_t) q * sizeof(float));
	if ((with_margins && work->margins == NULL) || work->gbuf == NULL ||
		work->sbuf == NULL || work->acc == NULL || work->sel_j == NULL ||
		work->sel_sign == NULL || work->coef == NULL)
	{
		FwWorkFree(work, env);
		return MRF_ENOMEM;
	}
	return MRF_OK;
}

/*
 * Checks the structural preconditions that need no data pass: the sizes,
 * BLAS's int dimensions, and that every problem has a vertex.
 */
static MrfStatus
FwCheckShape(const MrfFwProblem *prob)
{
	int			k;

	if (prob == NULL || prob->x == NULL || prob->y == NULL || prob->allowed == NULL)
		return MRF_EINVAL;
	if (prob->n < 1 || prob->n > INT_MAX || prob->n > FW_MAX_ROWS ||
		prob->d < 1 || prob->q < 1 || prob->ldy < prob->n)
		return MRF_EINVAL;
	if ((int64_t) prob->d * prob->q > INT_MAX)
		return MRF_EINVAL;
	for (k = 0; k < prob->q; k++)
	{
		const uint8_t *al = prob->allowed + (size_t) k * prob->d;
		int			j;
		int			any = 0;

		for (j = 0; j < prob->d; j++)
			any |= al[j] != 0;
		if (!any)
			return MRF_EINVAL;
	}
	return MRF_OK;
}

/* The exactness argument needs entries in {-1, 0, 1}; verify, do not assume. */
static int
FwTernary(const float *v, int64_t rows, int cols, int64_t ld)
{
	int			c;

	for (c = 0; c < cols; c++)
	{
		const float *col = v + (size_t) c * (size_t) ld;
		int64_t		m;
		int			bad = 0;

		for (m = 0; m < rows; m++)
			bad |= !(col[m] == 0.0f || col[m] == 1.0f || col[m] == -1.0f);
		if (bad)
			return 0;
	}
	return 1;
}

/* a = keep a + c x; restrict parameters and fixed-length inner loops let it vectorise. */
static void
FwScaleAdd(float *restrict a, const float *restrict x, int rows, float keep,
		   float c)
{
	int			r = 0;
	int			i;

	for (; r + FW_LANES <= rows; r += FW_LANES)
		for (i = 0; i < FW_LANES; i++)
			a[r + i] = keep * a[r + i] + c * x[r + i];
	for (; r < rows; r++)
		a[r] = keep * a[r] + c * x[r];
}

/*
 * Applies the previous Frank-Wolfe step to the margins of a block of rows,
 * a_k = keep a_k + coef_k x_{j_k}: one column of X per problem, instead of
 * recomputing X w.
 */
static void
FwUpdateMargins(const MrfFwProblem *prob, FwWork *work, int64_t start,
				int rows, float keep)
{
	int			k;

	for (k = 0; k < prob->q; k++)
	{
		FwScaleAdd(work->margins + (size_t) k * (size_t) prob->n + start,
				   prob->x + (size_t) work->sel_j[k] * (size_t) prob->n + start,
				   rows, keep, work->coef[k]);
	}
}

/*
 * One block of rows [start, start + rows): form Gq from the margins and add
 * X_block^T Gq to the score accumulator.
 */
static void
FwBlock(const MrfFwProblem *prob, FwWork *work, const float *margins,
		int64_t ldm, int64_t start, int rows)
{
	const int64_t n = prob->n;
	const int	d = prob->d;
	const int	q = prob->q;
	size_t		i;
	size_t		dq = (size_t) d * (size_t) q;
	int			k;

	for (k = 0; k < q; k++)
	{
		const float *a = margins + (size_t) k * (size_t) ldm + start;
		const float *y = prob->y + (size_t) k * (size_t) prob->ldy + start;
		float	   *g = work->gbuf + (size_t) k * (size_t) rows;

		FwWeights(y, a, rows, g);
	}

	/* exact: see the header comment of this file */
	cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, d, q, rows,
				1.0f, prob->x + start, (int) n, work->gbuf, rows,
				0.0f, work->sbuf, d);
	for (i = 0; i < dq; i++)
		work->acc[i] += (double) work->sbuf[i];
}

/* Exact integer scores at the given margins (no update), for tests. */
MrfStatus
MrfFwScores(const MrfFwProblem *prob, const float *margins, int64_t ldm,
			const MrfEnv *env, double *scores)
{
	FwWork		work;
	MrfStatus	st;
	int64_t		start;

	st = FwCheckShape(prob);
	if (st != MRF_OK)
		return st;
	if (margins == NULL || scores == NULL || ldm < prob->n ||
		!FwTernary(prob->x, prob->n, prob->d, prob->n) ||
		!FwTernary(prob->y, prob->n, prob->q, prob->ldy))
		return MRF_EINVAL;
	st = FwWorkAlloc(&work, prob->n, prob->d, prob->q, 0, env);
	if (st != MRF_OK)
		return st;
	for (start = 0; start < prob->n; start += FW_CHUNK)
	{
		int			rows = (int) (prob->n - start < FW_CHUNK ? prob->n - start : FW_CHUNK);

		FwBlock(prob, &work, margins, ldm, start, rows);
	}
	memcpy(scores, work.acc, (size_t) prob->d * prob->q * sizeof(double));
	FwWorkFree(&work, env);
	return MRF_OK;
}

/*
 * Private selection for every problem: one noise draw per allowed candidate
 * (j, sign), in a fixed order, so the number of draws does not depend on the
 * data.  The exponential mechanism is Gumbel-max on c u(s); the Laplace one
 * is report-noisy-max with scale b (both from privacy.c).
 */
static void
FwSelect(const MrfFwProblem *prob, FwWork *work, MrfRng *rng, double unit,
		 double laplace_scale)
{
	const int	d = prob->d;
	int			k;

	for (k = 0; k < prob->q; k++)
	{
		const uint8_t *al = prob->allowed + (size_t) k * d;
		const double *s = work->acc + (size_t) k * d;
		double		best = -INFINITY;
		int			best_j = -1;
		int			best_sign = 1;
		int			j;

		for (j = 0; j < d; j++)
		{
			int			sign;

			if (!al[j])
				continue;
			for (sign = 1; sign >= -1; sign -= 2)
			{
				double		noise;
				double		v;

				if (prob->mechanism == MRF_MECH_EXPONENTIAL)
					noise = MrfRngGumbel(rng);
				else
					noise = MrfRngLaplace(rng, laplace_scale);
				v = sign * s[j] * unit + noise;
				if (v > best)
				{
					best = v;
					best_j = j;
					best_sign = sign;
				}
			}
		}
		work->sel_j[k] = best_j;
		work->sel_sign[k] = best_sign;
	}
}

/*
 * The calibration of a solve from its public parameters (every constant from
 * privacy.c): the score sensitivity du, the per-step eps0, the exponential
 * mechanism's integer-score multiplier unit and the Laplace scale.  MRF_EINVAL
 * when any of them is not finite (a radius so large, or a budget so small,
 * that the noise cannot be represented).
 */
static MrfStatus
FwCalibrate(double radius, double rho_problem, int iterations, MrfMechanism mechanism,
			double *du, double *eps0, double *unit, double *laplace_scale)
{
	if (iterations < 2 ||
		(mechanism != MRF_MECH_EXPONENTIAL && mechanism != MRF_MECH_LAPLACE))
		return MRF_EINVAL;
	*du = MrfFwScoreSensitivity(radius);
	*eps0 = MrfFwStepEpsilon(mechanism, MrfFwStepRho(rho_problem, iterations));
	*laplace_scale = 0.0;
	if (mechanism == MRF_MECH_EXPONENTIAL)
		*unit = MrfFwExponentialScale(*eps0, *du) * radius / MRF_FW_QUANTUM;
	else
	{
		*laplace_scale = MrfFwLaplaceScale(*eps0, *du);
		*unit = radius / MRF_FW_QUANTUM;
		if (!isfinite(*laplace_scale) || !(*laplace_scale > 0.0))
			return MRF_EINVAL;
	}
	if (!isfinite(*unit) || !isfinite(*du) || !isfinite(*eps0))
		return MRF_EINVAL;
	return MRF_OK;
}

/* Whether a solve with these public parameters can be calibrated (FwCalibrate). */
MrfStatus
MrfFwCheckCalibration(double radius, double rho_problem, int iterations,
					  MrfMechanism mechanism)
{
	double		du;
	double		eps0;
	double		unit;
	double		laplace_scale;

	return FwCalibrate(radius, rho_problem, iterations, mechanism,
					   &du, &eps0, &unit, &laplace_scale);
}

/* SPEC 4.1: w_1 = 0, T-1 private steps with mu_t = 2/(t+2), output w_T. */
MrfStatus
MrfFwSolve(const MrfFwProblem *prob, MrfRng *rng, const MrfEnv *env,
		   double *w)
{
	FwWork		work;
	MrfStatus	st;
	double		du;
	double		eps0;
	double		unit;
	double		laplace_scale = 0.0;
	int64_t		nblocks;
	int64_t		total;
	int			iters;
	int			t;
	int			k;

	st = FwCheckShape(prob);
	if (st != MRF_OK)
		return st;
	if (rng == NULL || w == NULL)
		return MRF_EINVAL;
	st = FwCalibrate(prob->radius, prob->rho_problem, prob->iterations, prob->mechanism,
					 &du, &eps0, &unit, &laplace_scale);
	if (st != MRF_OK)
		return st;

	if (!FwTernary(prob->x, prob->n, prob->d, prob->n) ||
		!FwTernary(prob->y, prob->n, prob->q, prob->ldy))
		return MRF_EINVAL;

	st = FwWorkAlloc(&work, prob->n, prob->d, prob->q, 1, env);
	if (st != MRF_OK)
		return st;

	memset(w, 0, (size_t) prob->d * prob->q * sizeof(double));
	iters = prob->iterations;
	nblocks = (prob->n + FW_CHUNK - 1) / FW_CHUNK;
	total = (int64_t) (iters - 1) * nblocks;

	for (t = 1; t < iters; t++)
	{
		/* the step chosen in iteration t-1 reaches the margins in this pass */
		int			update = t > 1;
		double		mu_prev = 2.0 / (t + 1);
		double		mu = 2.0 / (t + 2);
		int64_t		start;
		int64_t		b = 0;

		if (update)
		{
			for (k = 0; k < prob->q; k++)
				work.coef[k] = (float) (mu_prev * work.sel_sign[k] * prob->radius);
		}
		memset(work.acc, 0, (size_t) prob->d * prob->q * sizeof(double));
		for (start = 0; start < prob->n; start += FW_CHUNK, b++)
		{
			int			rows = (int) (prob->n - start < FW_CHUNK ? prob->n - start : FW_CHUNK);

			if (update)
				FwUpdateMargins(prob, &work, start, rows, (float) (1.0 - mu_prev));
			FwBlock(prob, &work, work.margins, prob->n, start, rows);
			MrfPoll(env, (int64_t) (t - 1) * nblocks + b + 1, total);
		}

		FwSelect(prob, &work, rng, unit, laplace_scale);

		for (k = 0; k < prob->q; k++)
		{
			double	   *wk = w + (size_t) k * prob->d;
			int			j;

			for (j = 0; j < prob->d; j++)
				wk[j] *= 1.0 - mu;
			wk[work.sel_j[k]] += mu * work.sel_sign[k] * prob->radius;
		}
		MrfPoll(env, (int64_t) t * nblocks, total);
	}

	FwWorkFree(&work, env);
	return MRF_OK;
}
