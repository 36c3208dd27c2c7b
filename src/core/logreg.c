/*
 * logreg.c - the batched L1-constrained logistic regression solver that the
 * structure block learners share (non-private; it reads one block).
 *
 * Solver: accelerated projected gradient (FISTA, Beck-Teboulle 2009) on the
 * average logistic loss over the L1 ball, all p node problems advanced
 * together so that every gradient is one dgemm X^T G.
 *   - Projection onto {||w||_1 <= R} by Michelot's algorithm (the
 *     pivot-free variant of Duchi et al. 2008; Condat 2016 proves it exact):
 *     linear per pass, a few passes, no sort.
 *   - Step 1/L with L = 1.02 lambda_max(X^T X / n) / 4, which bounds the
 *     Hessian (sigmoid' <= 1/4); lambda_max by power iteration on the Gram
 *     matrix.  The Rayleigh quotient can only underestimate, hence the
 *     factor and the guard below.
 *   - Adaptive restart (O'Donoghue-Candes 2015, gradient scheme): momentum
 *     resets when it points uphill, which gives linear convergence on the
 *     locally strongly convex problems we see.
 *   - Every LOGREG_CHECK_EVERY steps the same dgemm also takes the gradient
 *     at the iterate w itself, giving the Frank-Wolfe duality gap
 *     <g, w> + R ||g||_inf >= f(w) - f*, a certified bound; a node stops
 *     when it is at most tol and leaves the batch.  The loss is evaluated at
 *     the same time; if it rose since the last check, that node's L doubles
 *     and its momentum resets (a step too long for the true curvature).
 * Tolerance: the default 1e-7 (average loss) keeps the weights within about
 * sqrt(2 tol / kappa) ~ 1e-3 of the optimum for restricted curvature kappa
 * around 0.2, far below the sampling error of any block and below the
 * threshold eta / 2 by orders of magnitude.  The cap
 * (MRF_LOGREG_MAX_ITERATIONS) returns the last iterate, never an error.
 *
 * Margins a = X w are kept per node and updated sparsely (projected
 * iterates have few non-zeros), so the one dense product per step is the
 * gradient.  Double precision throughout: the gap is a difference of sums
 * of n terms and must resolve 1e-7.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cblas.h>

#include "logreg.h"
#include "sizes.h"

#define LOGREG_CHECK_EVERY 10
#define LOGREG_L_SAFETY 1.02
#define LOGREG_POWER_ITERATIONS 300

/*
 * Largest eigenvalue of the symmetric d x d matrix gram (upper triangle) by
 * power iteration; returns the Rayleigh quotient of the last iterate, a lower
 * bound.  v and u are scratch of d doubles.
 */
static double
PowerIteration(const double *gram, int d, double *v, double *u)
{
	double		lambda = 0.0;
	int			it;
	int			j;

	/* a fixed non-symmetric start keeps clear of special eigenvectors */
	for (j = 0; j < d; j++)
		v[j] = 1.0 + 0.01 * (double) (j % 7);
	for (it = 0; it < LOGREG_POWER_ITERATIONS; it++)
	{
		double		norm;
		double		next;

		norm = cblas_dnrm2(d, v, 1);
		if (!(norm > 0.0))
			return 0.0;
		cblas_dscal(d, 1.0 / norm, v, 1);
		cblas_dsymv(CblasColMajor, CblasUpper, d, 1.0, gram, d, v, 1, 0.0, u, 1);
		next = cblas_ddot(d, v, 1, u, 1);
		memcpy(v, u, sizeof(double) * (size_t) d);
		if (it > 20 && fabs(next - lambda) <= 1e-12 * next)
		{
			lambda = next;
			break;
		}
		lambda = next;
	}
	return lambda;
}

/*
 * Projects v (d entries, those not allowed forced to 0) onto {||w||_1 <= R}:
 * w = sign(v) max(|v| - theta, 0) with theta found by Michelot's
 * iteration, which only ever raises theta towards its exact value.  buf is
 * scratch of d doubles.
 */
static void
ProjectL1Ball(double *v, int d, const uint8_t *allowed, double radius, double *buf)
{
	double		sum = 0.0;
	double		theta;
	int			cnt = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		if (!allowed[j])
			v[j] = 0.0;
		sum += fabs(v[j]);
	}
	if (sum <= radius)
		return;
	for (j = 0; j < d; j++)
		if (v[j] != 0.0)
			buf[cnt++] = fabs(v[j]);
	theta = (sum - radius) / cnt;
	for (;;)
	{
		int			kept = 0;
		double		s = 0.0;

		for (j = 0; j < cnt; j++)
			if (buf[j] > theta)
			{
				buf[kept++] = buf[j];
				s += buf[j];
			}
		if (kept == cnt || kept == 0)
			break;
		cnt = kept;
		theta = (s - radius) / cnt;
	}
	for (j = 0; j < d; j++)
	{
		double		a = fabs(v[j]) - theta;

		v[j] = a > 0.0 ? copysign(a, v[j]) : 0.0;
	}
}

/* margins = X w for one node, touching only the non-zero coordinates. */
static void
SparseMargins(const double *x, int64_t n, int d, const double *w, double *margins)
{
	int			j;

	memset(margins, 0, sizeof(double) * (size_t) n);
	for (j = 0; j < d; j++)
		if (w[j] != 0.0)
			cblas_daxpy((int) n, w[j], x + (size_t) j * (size_t) n, 1, margins, 1);
}

/* The Gram matrix, weight sets, 2 margin columns, G and grad per task. */
size_t
MrfLogregBatchBytes(int64_t n, int d, int ntasks)
{
	size_t		dd;
	size_t		q;
	size_t		total = 0;

	if (d < 1 || ntasks < 1 || n < 0)
		return SIZE_MAX;
	dd = (size_t) d;
	q = (size_t) ntasks;
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(dd, dd), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(2 * dd, q), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) n, 4 * q), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(dd, 2 * q), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(q, 5 * sizeof(double) + 2 * sizeof(double *) +
											   3 * sizeof(int)));
	total = MrfSizeAdd(total, MrfSizeMul(4 * dd, sizeof(double)));
	return total;
}

/*
 * exp(x) for the gradient weights from plain multiplies and adds, within
 * 1 ulp of libm's on [-708, 708] (x is clamped there: the weights it feeds
 * are then exact to far below a double's resolution of their sum).  libm's
 * exp is a call per element, 15% of a block solve's time in a profile (p =
 * 100); this form vectorises (four lanes below) and gives the same bits in
 * every lane, every clone and on every CPU, since the build contracts no
 * multiply-add (-ffp-contract=off): a block's result no longer depends on
 * which exp libm dispatched to.  Cody-Waite reduction x = k ln2 + r, |r| <=
 * ln2/2, a degree-13 Taylor polynomial (truncation below 1e-17 relative),
 * and 2^k from the rounding constant's low bits.
 */
#define EXP_CLAMP 708.0
#define EXP_LOG2E 1.4426950408889634
#define EXP_LN2_HI 6.93147180369123816490e-01
#define EXP_LN2_LO 1.90821492927058770002e-10
#define EXP_SHIFTER 6755399441055744.0	/* 1.5 * 2^52: rounds to an integer in the low bits */

/* The polynomial of the reduced argument; one form for scalars and lanes. */
#define EXP_POLYNOMIAL(p, r) \
	do { \
		(p) = (r) * (1.0 / 6227020800.0) + 1.0 / 479001600.0; \
		(p) = (p) * (r) + 1.0 / 39916800.0; \
		(p) = (p) * (r) + 1.0 / 3628800.0; \
		(p) = (p) * (r) + 1.0 / 362880.0; \
		(p) = (p) * (r) + 1.0 / 40320.0; \
		(p) = (p) * (r) + 1.0 / 5040.0; \
		(p) = (p) * (r) + 1.0 / 720.0; \
		(p) = (p) * (r) + 1.0 / 120.0; \
		(p) = (p) * (r) + 1.0 / 24.0; \
		(p) = (p) * (r) + 1.0 / 6.0; \
		(p) = (p) * (r) + 0.5; \
		(p) = (p) * (r) + 1.0; \
		(p) = (p) * (r) + 1.0; \
	} while (0)

/* exp(x) of one double, bit for bit the lanes' ExpLanes. */
static inline double
ExpScalar(double x)
{
	double		v,
				k,
				r,
				p,
				scale;
	int64_t		bits;

	x = x < -EXP_CLAMP ? -EXP_CLAMP : x;
	x = x > EXP_CLAMP ? EXP_CLAMP : x;
	v = x * EXP_LOG2E + EXP_SHIFTER;
	k = v - EXP_SHIFTER;
	r = (x - k * EXP_LN2_HI) - k * EXP_LN2_LO;
	EXP_POLYNOMIAL(p, r);
	memcpy(&bits, &v, sizeof(bits));
	bits = (int64_t) ((uint64_t) (bits + 1023) << 52);
	memcpy(&scale, &bits, sizeof(scale));
	return p * scale;
}

typedef double ExpLanesD __attribute__((vector_size(32)));
typedef int64_t ExpLanesI __attribute__((vector_size(32)));

/*
 * exp of four lanes in place (GCC vector extensions: AVX2 in that clone,
 * SSE2 pairs otherwise).  Through a pointer: a vector passed by value would
 * change the ABI between clones (clang refuses it outright).
 */
static inline __attribute__((always_inline)) void
ExpLanes(ExpLanesD *lanes)
{
	ExpLanesD	x = *lanes;
	const ExpLanesD lo = {-EXP_CLAMP, -EXP_CLAMP, -EXP_CLAMP, -EXP_CLAMP};
	const ExpLanesD hi = {EXP_CLAMP, EXP_CLAMP, EXP_CLAMP, EXP_CLAMP};
	ExpLanesI	mask;
	ExpLanesD	v,
				k,
				r,
				p;

	mask = x < lo;
	x = (ExpLanesD) (((ExpLanesI) x & ~mask) | ((ExpLanesI) lo & mask));
	mask = x > hi;
	x = (ExpLanesD) (((ExpLanesI) x & ~mask) | ((ExpLanesI) hi & mask));
	v = x * EXP_LOG2E + EXP_SHIFTER;
	k = v - EXP_SHIFTER;
	r = (x - k * EXP_LN2_HI) - k * EXP_LN2_LO;
	EXP_POLYNOMIAL(p, r);
	*lanes = p * (ExpLanesD) ((ExpLanesI) ((ExpLanesI) v + 1023) << 52);
}

/*
 * Gradient weights -y sigmoid(-y a) inv_n of one task at margins a (or
 * a + beta (a - a_prev)); a row with y = 0 is outside the task and gets 0.
 * Four rows at a time, the tail one by one with the same arithmetic.
 */
__attribute__((target_clones("avx2", "default")))
static void
GradientWeights(const double *y, const double *a, const double *a_prev,
				double beta, int64_t n, double inv_n, double *g)
{
	int64_t		m = 0;

	for (; m + 4 <= n; m += 4)
	{
		ExpLanesD	ym,
					am,
					pm;

		memcpy(&ym, y + m, sizeof(ym));
		memcpy(&am, a + m, sizeof(am));
		if (beta != 0.0)
		{
			memcpy(&pm, a_prev + m, sizeof(pm));
			am = am + beta * (am - pm);
		}
		am = ym * am;
		ExpLanes(&am);
		am = -ym * inv_n / (1.0 + am);
		memcpy(g + m, &am, sizeof(am));
	}
	for (; m < n; m++)
	{
		double		am = beta != 0.0 ? a[m] + beta * (a[m] - a_prev[m]) : a[m];

		g[m] = -y[m] * inv_n / (1.0 + ExpScalar(y[m] * am));
	}
}

/* The gradient weights' exp of four values, lanes (1) or scalars (0): for the unit tests. */
void
MrfLogregExp4(const double *x, int lanes, double *out)
{
	if (lanes)
	{
		ExpLanesD	v;

		memcpy(&v, x, sizeof(v));
		ExpLanes(&v);
		memcpy(out, &v, sizeof(v));
	}
	else
		for (int i = 0; i < 4; i++)
			out[i] = ExpScalar(x[i]);
}

/* Average logistic loss of one task at margins a over its rows (y != 0), stably. */
static double
AverageLoss(const double *y, const double *a, int64_t n, double inv_n)
{
	double		sum = 0.0;
	int64_t		m;

	for (m = 0; m < n; m++)
	{
		double		t = -y[m] * a[m];

		if (y[m] == 0.0)
			continue;
		sum += t > 0.0 ? t + log1p(exp(-t)) : log1p(exp(t));
	}
	return sum * inv_n;
}


/*
 * The state of one batched solve: the problem, the per-task iterates and
 * margins, and the scratch the dgemm writes into.  Task c of the batch is
 * active[c] (active tasks first; a converged task leaves the list).
 */
typedef struct LogregBatch
{
	/* the problem */
	const double *x;
	int64_t		n;
	int			d;
	int			ntasks;
	const double *const *y;
	const uint8_t *allowed;
	double		radius;
	double		tol;
	/* iterates: w (the caller's), the previous iterate, the projected step */
	double	   *w;
	double	   *wprev;
	double	   *ybuf;
	/* margins X w and X wprev per task, swapped in place */
	double	   *mpool;
	double	  **mcur;
	double	  **mprev;
	/* gradient weights (n per column) and gradients (d per column) */
	double	   *g;
	double	   *grad;
	double	   *gram;
	double	   *scratch;
	/* per task: momentum t, step bound L, last loss, gap, 1 / rows */
	double	   *nodebuf;
	double	   *t;
	double	   *L;
	double	   *last_loss;
	double	   *gap;
	double	   *inv_n;
	int		   *active;
	int		   *converged;
	int		   *node_iters;
	int			nactive;
} LogregBatch;

/* Allocates the solver's memory (MrfLogregBatchBytes counts it). */
static MrfStatus
LogregAlloc(LogregBatch *b, const MrfEnv *env)
{
	size_t		d = (size_t) b->d;
	size_t		q = (size_t) b->ntasks;
	size_t		n = (size_t) b->n;

	b->gram = MrfAlloc(env, MrfSizeMul(MrfSizeMul(d, d), sizeof(double)));
	b->wprev = MrfAlloc(env, MrfSizeMul(MrfSizeMul(d, q), sizeof(double)));
	b->ybuf = MrfAlloc(env, MrfSizeMul(MrfSizeMul(d, q), sizeof(double)));
	b->mpool = MrfAlloc(env, MrfSizeMul(MrfSizeMul(n, 2 * q), sizeof(double)));
	b->g = MrfAlloc(env, MrfSizeMul(MrfSizeMul(n, 2 * q), sizeof(double)));
	b->grad = MrfAlloc(env, MrfSizeMul(MrfSizeMul(d, 2 * q), sizeof(double)));
	b->nodebuf = MrfAlloc(env, MrfSizeMul(q, 5 * sizeof(double)));
	b->mcur = MrfAlloc(env, MrfSizeMul(q, sizeof(double *)));
	b->mprev = MrfAlloc(env, MrfSizeMul(q, sizeof(double *)));
	b->active = MrfAlloc(env, MrfSizeMul(q, 3 * sizeof(int)));
	b->scratch = MrfAlloc(env, MrfSizeMul(4 * d, sizeof(double)));
	if (b->gram == NULL || b->wprev == NULL || b->ybuf == NULL ||
		b->mpool == NULL || b->g == NULL || b->grad == NULL || b->nodebuf == NULL ||
		b->mcur == NULL || b->mprev == NULL || b->active == NULL || b->scratch == NULL)
		return MRF_ENOMEM;
	b->converged = b->active + q;
	b->node_iters = b->active + 2 * q;
	b->t = b->nodebuf;
	b->L = b->nodebuf + q;
	b->last_loss = b->nodebuf + 2 * q;
	b->gap = b->nodebuf + 3 * q;
	b->inv_n = b->nodebuf + 4 * q;
	return MRF_OK;
}

/* Frees what LogregAlloc got (any of it may be NULL). */
static void
LogregRelease(LogregBatch *b, const MrfEnv *env)
{
	MrfFree(env, b->scratch);
	MrfFree(env, b->active);
	MrfFree(env, b->mprev);
	MrfFree(env, b->mcur);
	MrfFree(env, b->nodebuf);
	MrfFree(env, b->grad);
	MrfFree(env, b->g);
	MrfFree(env, b->mpool);
	MrfFree(env, b->ybuf);
	MrfFree(env, b->wprev);
	MrfFree(env, b->gram);
}

/* L0 = 1.02 lambda_max(X^T X / n) / 4, the full design's step bound. */
static double
LogregStepBound(LogregBatch *b)
{
	double		L0;

	cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, b->d, (int) b->n,
				1.0 / (double) b->n, b->x, (int) b->n, 0.0, b->gram, b->d);
	L0 = LOGREG_L_SAFETY * PowerIteration(b->gram, b->d, b->scratch, b->scratch + b->d) / 4.0;
	if (!(L0 > 0.0))
		L0 = (double) b->d / 4.0;	/* the trivial bound: every entry is +-1 */
	return L0;
}

/*
 * w = 0 and its margins 0 for every task, all active; a task over a
 * fraction f of the rows gets the step bound L0 / f.
 */
static void
LogregStart(LogregBatch *b, double L0)
{
	int64_t		n = b->n;
	int			i;

	memset(b->w, 0, sizeof(double) * (size_t) b->d * b->ntasks);
	memset(b->wprev, 0, sizeof(double) * (size_t) b->d * b->ntasks);
	for (i = 0; i < b->ntasks; i++)
	{
		int64_t		rows = 0;
		int64_t		m;

		b->mcur[i] = b->mpool + (size_t) (2 * i) * (size_t) n;
		b->mprev[i] = b->mpool + (size_t) (2 * i + 1) * (size_t) n;
		b->t[i] = 1.0;
		for (m = 0; m < n; m++)
			rows += b->y[i][m] != 0.0;
		b->inv_n[i] = rows > 0 ? 1.0 / (double) rows : 0.0;
		b->L[i] = rows > 0 ? L0 * (double) n / (double) rows : L0;
		b->last_loss[i] = INFINITY;
		b->gap[i] = INFINITY;
		b->active[i] = i;
		b->converged[i] = 0;
		b->node_iters[i] = 0;
	}
	b->nactive = b->ntasks;
}

/* FISTA's next momentum tn from t, and the extrapolation weight (t - 1) / tn. */
static double
LogregMomentum(double t, double *tn)
{
	*tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
	return (t - 1.0) / *tn;
}

/*
 * The one dense product of a step: the gradients at every active task's
 * extrapolated point (columns 0..nactive-1) and, on a check step, at its
 * iterate (columns nactive..2 nactive-1).
 */
static void
LogregGradients(LogregBatch *b, int check)
{
	int64_t		n = b->n;
	int			nactive = b->nactive;
	int			cols = check ? 2 * nactive : nactive;
	int			c;

	for (c = 0; c < nactive; c++)
	{
		int			node = b->active[c];
		double		tn;
		double		beta = LogregMomentum(b->t[node], &tn);

		GradientWeights(b->y[node], b->mcur[node], b->mprev[node], beta, n,
						b->inv_n[node], b->g + (size_t) c * n);
		if (check)
			GradientWeights(b->y[node], b->mcur[node], NULL, 0.0, n, b->inv_n[node],
							b->g + (size_t) (nactive + c) * n);
	}
	cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, b->d, cols, (int) n, 1.0,
				b->x, (int) n, b->g, (int) n, 0.0, b->grad, b->d);
}

/*
 * The check of active task c: its duality gap at the iterate (1 if it is
 * within tol: the task has converged), and if its loss rose since the last
 * check, a doubled L and a plain gradient step from the iterate (no
 * momentum) instead of the extrapolated one.
 */
static int
LogregCheckTask(LogregBatch *b, int c, double *beta, double *tn,
				const double **gstep)
{
	int			node = b->active[c];
	int			d = b->d;
	const double *gw = b->grad + (size_t) (b->nactive + c) * d;
	const double *wi = b->w + (size_t) node * d;
	double		inner = 0.0;
	double		gmax = 0.0;
	double		loss = AverageLoss(b->y[node], b->mcur[node], b->n, b->inv_n[node]);
	int			j;

	for (j = 0; j < d; j++)
	{
		if (!b->allowed[(size_t) node * d + j])
			continue;
		inner += gw[j] * wi[j];
		gmax = fabs(gw[j]) > gmax ? fabs(gw[j]) : gmax;
	}
	b->gap[node] = inner + b->radius * gmax;
	if (b->gap[node] <= b->tol)
	{
		b->converged[node] = 1;
		return 1;
	}
	if (loss > b->last_loss[node])
	{
		/* steps too long for the true curvature: halve them, no momentum */
		b->L[node] *= 2.0;
		*beta = 0.0;
		*tn = 1.0;
		*gstep = gw;
	}
	b->last_loss[node] = loss;
	return 0;
}

/*
 * One accelerated projected step of a task along gstep with extrapolation
 * beta, the adaptive restart, and the margins of the new iterate.
 */
static void
LogregAdvanceTask(LogregBatch *b, int node, double beta, double tn,
				  const double *gstep)
{
	int			d = b->d;
	double	   *wi = b->w + (size_t) node * d;
	double	   *wpi = b->wprev + (size_t) node * d;
	double	   *v = b->ybuf + (size_t) node * d;
	double		uphill = 0.0;
	double	   *swap;
	int			j;

	for (j = 0; j < d; j++)
		v[j] = wi[j] + beta * (wi[j] - wpi[j]) - gstep[j] / b->L[node];
	ProjectL1Ball(v, d, b->allowed + (size_t) node * d, b->radius, b->scratch);

	/* restart test: (y - z) . (z - w) > 0 means momentum went uphill */
	for (j = 0; j < d; j++)
	{
		double		yj = wi[j] + beta * (wi[j] - wpi[j]);

		uphill += (yj - v[j]) * (v[j] - wi[j]);
	}
	b->t[node] = uphill > 0.0 ? 1.0 : tn;

	memcpy(wpi, wi, sizeof(double) * (size_t) d);
	memcpy(wi, v, sizeof(double) * (size_t) d);
	swap = b->mprev[node];
	b->mprev[node] = b->mcur[node];
	b->mcur[node] = swap;
	SparseMargins(b->x, b->n, d, wi, b->mcur[node]);
}

/* Step iter of every active task; the converged ones leave the list. */
static void
LogregStep(LogregBatch *b, int iter)
{
	int			check = iter % LOGREG_CHECK_EVERY == 0;
	int			kept = 0;
	int			c;

	LogregGradients(b, check);
	for (c = 0; c < b->nactive; c++)
	{
		int			node = b->active[c];
		const double *gstep = b->grad + (size_t) c * b->d;
		double		tn;
		double		beta = LogregMomentum(b->t[node], &tn);

		if (check && LogregCheckTask(b, c, &beta, &tn, &gstep))
			continue;
		LogregAdvanceTask(b, node, beta, tn, gstep);
		b->node_iters[node] = iter + 1;
		b->active[kept++] = node;
	}
	b->nactive = kept;
}

/* The solve's figures: the most steps, the tasks the cap stopped, the worst gap. */
static void
LogregReport(const LogregBatch *b, MrfLogregStats *stats)
{
	int			i;

	memset(stats, 0, sizeof(*stats));
	for (i = 0; i < b->ntasks; i++)
	{
		if (b->node_iters[i] > stats->iterations)
			stats->iterations = b->node_iters[i];
		stats->unconverged += !b->converged[i];
		if (b->gap[i] > stats->max_gap)
			stats->max_gap = b->gap[i];
	}
}

/*
 * The batched FISTA described above, on any design: task c minimises the
 * average logistic loss of y[c] (entries +-1, or 0 for a row outside the
 * task) over the coordinates allowed[c d + j] != 0.  The step bound of a
 * task that uses a fraction f of the rows is the full design's over f
 * (lambda_max of a row subset's Gram matrix is at most the full one's).
 */
MrfStatus
MrfLogregBatch(const double *x, int64_t n, int d, int ntasks,
			   const double *const *y, const uint8_t *allowed, double radius,
			   double tol, int max_iter, const MrfEnv *env, double *w,
			   MrfLogregStats *stats)
{
	LogregBatch b;
	MrfStatus	st;
	int			iter;

	if (x == NULL || y == NULL || allowed == NULL || env == NULL || w == NULL ||
		ntasks < 1 || d < 1 || n < 1 || n > (int64_t) 0x7fffffff ||
		!isfinite(radius) || radius <= 0.0)
		return MRF_EINVAL;
	if (!(tol > 0.0))
		tol = MRF_LOGREG_TOLERANCE;
	if (max_iter <= 0)
		max_iter = MRF_LOGREG_MAX_ITERATIONS;

	memset(&b, 0, sizeof(b));
	b.x = x;
	b.n = n;
	b.d = d;
	b.ntasks = ntasks;
	b.y = y;
	b.allowed = allowed;
	b.radius = radius;
	b.tol = tol;
	b.w = w;
	st = LogregAlloc(&b, env);
	if (st == MRF_OK)
	{
		LogregStart(&b, LogregStepBound(&b));
		for (iter = 0; iter < max_iter && b.nactive > 0; iter++)
		{
			LogregStep(&b, iter);
			MrfPoll(env, iter + 1, max_iter);
		}
		if (stats != NULL)
			LogregReport(&b, stats);
	}
	LogregRelease(&b, env);
	return st;
}
