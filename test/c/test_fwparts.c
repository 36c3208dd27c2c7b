/*
 * test_fwparts.c - distributed Frank-Wolfe in the core (fwdesign.h;
 * docs/citus_fw.md): for every Frank-Wolfe learner, the score sums of each
 * iteration added over parts of the rows (unequal, one empty, cuts inside
 * kernel blocks and words; parts kept between iterations, one missed, one
 * dropped midway) give the one-node learner's model bit for bit, for both
 * mechanisms and every available kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "fwdesign.h"
#include "fwkernel.h"
#include "harness.h"
#include "ising.h"
#include "pairwise.h"
#include "rows.h"
#include "structure_ising.h"
#include "twise.h"

/* The parts: row ranges of one table of rows of row_bytes each. */
typedef struct PartsArg
{
	const MrfFwDesign *design;
	const uint8_t *rows;
	size_t		row_bytes;
	int			nparts;
	const int64_t *cut;			/* nparts + 1 row offsets */
	int			calls;
	int			fail_at;		/* t whose call fails (0: none) */
	MrfFwDesignPart **cache;	/* NULL, or kept parts (a worker's cache) */
} PartsArg;

/* MrfFwScoresFn: adds the parts' sums, as Citus's combine does. */
static MrfStatus
PartsScores(void *varg, int t, const int *sel_j, const int *sel_sign, int64_t *scores)
{
	PartsArg   *a = varg;
	int			d;
	int			q;
	size_t		cells;
	int64_t    *part;

	CHECK(MrfFwDesignSizes(a->design, &d, &q) == MRF_OK);
	cells = (size_t) d * q;
	part = malloc(sizeof(int64_t) * cells);
	a->calls++;
	if (t == a->fail_at)
	{
		free(part);
		return MRF_ENOMEM;
	}
	memset(scores, 0, sizeof(int64_t) * cells);
	/* the last part first: the order of the parts does not matter */
	for (int i = a->nparts - 1; i >= 0; i--)
	{
		const uint8_t *rows = a->rows + a->cut[i] * a->row_bytes;
		int64_t		n = a->cut[i + 1] - a->cut[i];

		/*
		 * cached: parts 0 and 3 kept throughout (3 advanced with the last
		 * selections only), part 2 dropped at t = 5 (a miss replays)
		 */
		if (a->cache != NULL && i != 1)
		{
			if (i == 2 && t == 5)
			{
				MrfFwDesignPartClose(a->cache[i]);
				a->cache[i] = NULL;
			}
			else if (a->cache[i] == NULL)
				CHECK(MrfFwDesignPartOpen(a->design, rows, n, &MrfMallocEnv, &a->cache[i]) == MRF_OK);
			if (a->cache[i] != NULL)
			{
				const int  *last_j = t > 2 ? sel_j + (size_t) (t - 2) * q : NULL;
				const int  *last_sign = t > 2 ? sel_sign + (size_t) (t - 2) * q : NULL;

				/* a part further behind than t-1 needs more than the last selections */
				if (t > 2 && MrfFwDesignPartIteration(a->cache[i]) < t - 1)
					CHECK(MrfFwDesignPartAdvanceFrom(a->cache[i], t, t - 1, last_j, last_sign,
													 part) == MRF_EINVAL);
				/* part 3 gets the last selections only, as a worker's kept part does */
				if (i == 3 && t > 2 && MrfFwDesignPartIteration(a->cache[i]) == t - 1)
					CHECK(MrfFwDesignPartAdvanceFrom(a->cache[i], t, t - 1, last_j, last_sign,
													 part) == MRF_OK);
				else
					CHECK(MrfFwDesignPartAdvance(a->cache[i], t, sel_j, sel_sign, part) == MRF_OK);
				CHECK(MrfFwDesignPartIteration(a->cache[i]) == t);
				CHECK(MrfFwDesignPartAdvance(a->cache[i], t, sel_j, sel_sign, part) == MRF_EINVAL);
				for (size_t c = 0; c < cells; c++)
					scores[c] += part[c];
				continue;
			}
		}
		CHECK(MrfFwDesignPartScores(a->design, rows, n, t, sel_j, sel_sign, &MrfMallocEnv,
									part) == MRF_OK);
		for (size_t c = 0; c < cells; c++)
			scores[c] += part[c];
	}
	free(part);
	return MRF_OK;
}

/* What one learner's comparison needs: learn from rows, or from parts. */
typedef MrfStatus (*LearnFn) (void *ctx, const PartsArg *parts, MrfRng *rng, double *out);

/*
 * For both mechanisms (set by mech_fn) and every available kernel: the
 * model from rows and from parts (plain, then kept) are equal bit for bit.
 */
static void
CompareParts(const char *what, void *ctx, void (*mech_fn) (void *ctx, MrfMechanism mech),
			 LearnFn learn, int iterations, PartsArg *a, size_t outlen)
{
	double	   *one = malloc(sizeof(double) * outlen);
	double	   *dist = malloc(sizeof(double) * outlen);
	int			compared = 0;

	/* the 2-thread kernels' selections drawn on both threads (the same draws) */
	MrfFwSetSelectMinWork(0);
	for (int mech = 0; mech < 2; mech++)
		for (int kernel = 0; kernel < MRF_FW_KERNEL_COUNT; kernel++)
		{
			MrfFwDesignPart *cache[4] = {NULL, NULL, NULL, NULL};
			MrfRng		rng;

			if (!MrfFwKernelAvailable((MrfFwKernel) kernel))
				continue;
			MrfFwForceKernel((MrfFwKernel) kernel);
			MrfFwSetThreads(kernel % 2 ? 2 : 1);
			mech_fn(ctx, mech ? MRF_MECH_LAPLACE : MRF_MECH_EXPONENTIAL);
			memset(one, 0, sizeof(double) * outlen);
			MrfRngInitSeeded(&rng, 41 + kernel);
			CHECK(learn(ctx, NULL, &rng, one) == MRF_OK);
			a->calls = 0;
			a->cache = NULL;
			memset(dist, 0xff, sizeof(double) * outlen);
			MrfRngInitSeeded(&rng, 41 + kernel);
			CHECK(learn(ctx, a, &rng, dist) == MRF_OK);
			CHECK(a->calls == iterations - 1);
			CHECK_MSG(memcmp(one, dist, sizeof(double) * outlen) == 0,
					  "%s, kernel %d mechanism %d: the distributed model differs", what, kernel, mech);
			/* parts kept between iterations (one missed, one dropped midway): the same model */
			a->cache = cache;
			memset(dist, 0xff, sizeof(double) * outlen);
			MrfRngInitSeeded(&rng, 41 + kernel);
			CHECK(learn(ctx, a, &rng, dist) == MRF_OK);
			CHECK_MSG(memcmp(one, dist, sizeof(double) * outlen) == 0,
					  "%s, kernel %d mechanism %d: the kept parts' model differs", what, kernel, mech);
			for (int i = 0; i < 4; i++)
				MrfFwDesignPartClose(cache[i]);
			a->cache = NULL;
			compared++;
		}
	MrfFwForceKernel(MRF_FW_KERNEL_AUTO);
	MrfFwSetThreads(1);
	MrfFwSetSelectMinWork(MRF_FW_SELECT_MIN_WORK);
	CHECK(compared >= 2);
	free(one);
	free(dist);
}

/* Unequal parts of n rows, one empty: cuts inside blocks and words. */
static void
Cuts(int64_t n, int64_t cut[5])
{
	cut[0] = 0;
	cut[1] = 0;
	cut[2] = n / 4 + 17;
	cut[3] = n / 4 + 83;
	cut[4] = n;
}

/* Four unequal parts (one empty) of n rows of design. */
static void
PartsInit(PartsArg *a, const MrfFwDesign *design, const void *rows, int64_t n, int64_t cut[5])
{
	Cuts(n, cut);
	memset(a, 0, sizeof(*a));
	a->design = design;
	a->rows = rows;
	a->row_bytes = MrfFwDesignRowBytes(design);
	a->nparts = 4;
	a->cut = cut;
}

/* ---- Ising (Algorithm 2) ---- */

typedef struct IsingCtx
{
	const uint64_t *bits;
	int64_t		n;
	int			p;
	MrfIsingOptions opt;
	const MrfEnv *env;			/* the learner's (NULL: MrfMallocEnv) */
} IsingCtx;

/* See CompareParts. */
static void
IsingMech(void *ctx, MrfMechanism mech)
{
	((IsingCtx *) ctx)->opt.mechanism = mech;
}

/* A then theta. */
static MrfStatus
IsingLearnFn(void *ctx, const PartsArg *parts, MrfRng *rng, double *out)
{
	IsingCtx   *c = ctx;
	const MrfEnv *env = c->env != NULL ? c->env : &MrfMallocEnv;

	if (parts == NULL)
		return MrfIsingLearn(c->bits, c->n, c->p, &c->opt, rng, env, out, out + c->p * c->p);
	return MrfIsingLearnParts(PartsScores, (void *) parts, c->n, c->p, &c->opt, rng,
							  env, out, out + c->p * c->p);
}

/* The structure of the threshold method, as edge flags p x p. */
static MrfStatus
ThresholdLearnFn(void *ctx, const PartsArg *parts, MrfRng *rng, double *out)
{
	IsingCtx   *c = ctx;
	const MrfEnv *env = c->env != NULL ? c->env : &MrfMallocEnv;
	MrfStructure s;
	MrfStatus	st;

	MrfStructureInit(&s, c->p);
	if (parts == NULL)
		st = MrfStructureThresholdIsing(c->bits, c->n, c->p, &c->opt, 0.2, MRF_EDGE_AVERAGE, rng,
										env, &s);
	else
		st = MrfStructureThresholdIsingParts(PartsScores, (void *) parts, c->n, c->p, &c->opt,
											 0.2, MRF_EDGE_AVERAGE, rng, env, &s);
	for (int i = 0; i < c->p; i++)
		for (int j = 0; j < c->p; j++)
			out[i * c->p + j] = MrfStructureHasEdge(&s, i, j);
	MrfStructureFree(&s, env);
	return st;
}

/* Binary rows: variables 0 and 1 agree in most rows, a signal to select. */
static uint64_t *
BinaryRows(int64_t n, int p, uint64_t seed)
{
	uint64_t   *bits = malloc(sizeof(uint64_t) * n);
	MrfRng		rng;

	MrfRngInitSeeded(&rng, seed);
	for (int64_t m = 0; m < n; m++)
	{
		uint64_t	r = MrfRngU64(&rng) & (((uint64_t) 1 << p) - 1);

		bits[m] = (r & ~(uint64_t) 2) | (((r & 1) << 1) ^ ((uint64_t) (m % 7 == 0) << 1));
	}
	return bits;
}

/* Ising and the threshold method; a failing part; selections checked. */
static void
TestIsingParts(void)
{
	const int64_t n = 5000;
	const int	p = 9;
	int64_t		cut[5];
	uint64_t   *bits = BinaryRows(n, p, 300);
	IsingCtx	c;
	MrfFwDesign design;
	PartsArg	a;
	MrfRng		rng;
	double		A[90];

	memset(&c, 0, sizeof(c));
	c.bits = bits;
	c.n = n;
	c.p = p;
	c.opt.rho = 2.0;
	c.opt.lambda = 1.0;
	c.opt.iterations = 12;
	MrfIsingFwDesignOf(p, 1.0, &design);
	PartsInit(&a, &design, bits, n, cut);
	CHECK(a.row_bytes == sizeof(uint64_t));
	CompareParts("ising", &c, IsingMech, IsingLearnFn, 12, &a, (size_t) p * p + p);
	c.opt.symmetrize = 1;
	CompareParts("ising, symmetrized", &c, IsingMech, IsingLearnFn, 12, &a, (size_t) p * p + p);
	CompareParts("structure threshold", &c, IsingMech, ThresholdLearnFn, 12, &a, (size_t) p * p);
	/* a part that fails ends the learn with its status; the selection is checked */
	{
		int			bad_j[9] = {0},
					sign[9] = {0};
		int64_t		scores[90];

		a.fail_at = 3;
		a.calls = 0;
		MrfRngInitSeeded(&rng, 1);
		CHECK(MrfIsingLearnParts(PartsScores, &a, n, p, &c.opt, &rng, &MrfMallocEnv,
								 A, A + 81) == MRF_ENOMEM);
		CHECK(a.calls == 3);
		CHECK(MrfFwDesignPartScores(&design, bits, n, 2, bad_j, sign, &MrfMallocEnv, scores) == MRF_EINVAL);
		bad_j[0] = 10;
		sign[0] = 1;
		CHECK(MrfFwDesignPartScores(&design, bits, n, 2, bad_j, sign, &MrfMallocEnv, scores) == MRF_EINVAL);
	}
	free(bits);
}

/* ---- pairwise k-ary (Algorithm 3) ---- */

typedef struct PairwiseCtx
{
	const uint8_t *z;
	int64_t		n;
	int			p;
	int			k;
	const uint8_t *kv;
	MrfPairwiseOptions opt;
	const MrfEnv *env;			/* the learner's (NULL: MrfMallocEnv) */
} PairwiseCtx;

/* See CompareParts. */
static void
PairwiseMech(void *ctx, MrfMechanism mech)
{
	((PairwiseCtx *) ctx)->opt.mechanism = mech;
}

/* W then theta. */
static MrfStatus
PairwiseLearnFn(void *ctx, const PartsArg *parts, MrfRng *rng, double *out)
{
	PairwiseCtx *c = ctx;
	double	   *theta = out + (size_t) c->p * c->p * c->k * c->k;

	const MrfEnv *env = c->env != NULL ? c->env : &MrfMallocEnv;

	if (parts == NULL)
		return MrfPairwiseLearnAlphabets(c->z, c->n, c->p, c->k, c->kv, &c->opt, rng,
										 env, out, theta);
	return MrfPairwiseLearnParts(PartsScores, (void *) parts, c->n, c->p, c->k, c->kv, &c->opt,
								 rng, env, out, theta);
}

/* k = 3, one alphabet and per-variable alphabets; a value outside its alphabet. */
static void
TestPairwiseParts(void)
{
	const int64_t n = 3000;
	const int	p = 6;
	const int	k = 3;
	const uint8_t kv[6] = {3, 2, 3, 3, 2, 3};
	int64_t		cut[5];
	uint8_t    *z = malloc((size_t) n * p);
	PairwiseCtx c;
	MrfFwDesign design;
	PartsArg	a;
	MrfRng		rng;
	size_t		outlen = (size_t) p * p * k * k + (size_t) p * k;

	MrfRngInitSeeded(&rng, 77);
	for (int64_t m = 0; m < n; m++)
		for (int i = 0; i < p; i++)
		{
			/* variable 2 copies variable 0 in most rows */
			int			v = (int) (MrfRngU64(&rng) % (uint64_t) kv[i]);

			if (i == 2 && m % 5 != 0)
				v = z[m * p];
			z[m * p + i] = (uint8_t) v;
		}
	memset(&c, 0, sizeof(c));
	c.z = z;
	c.n = n;
	c.p = p;
	c.k = k;
	c.opt.rho = 4.0;
	c.opt.lambda = 0.5;
	c.opt.iterations = 9;
	/* one alphabet (the rows are below every k_i, so also below k) */
	MrfPairwiseFwDesignOf(p, k, NULL, c.opt.lambda, &design);
	PartsInit(&a, &design, z, n, cut);
	CHECK(a.row_bytes == (size_t) p);
	CompareParts("pairwise k = 3", &c, PairwiseMech, PairwiseLearnFn, 9, &a, outlen);
	/* per-variable alphabets */
	c.kv = kv;
	c.opt.symmetrize = 1;
	MrfPairwiseFwDesignOf(p, k, kv, c.opt.lambda, &design);
	CompareParts("pairwise, alphabets", &c, PairwiseMech, PairwiseLearnFn, 9, &a, outlen);
	/* a value outside its variable's alphabet: refused, whichever part holds it */
	{
		MrfFwDesignPart *part = NULL;
		uint8_t		row[6] = {0, 2, 0, 0, 0, 0};

		CHECK(MrfFwDesignPartOpen(&design, row, 1, &MrfMallocEnv, &part) == MRF_EINVAL);
		CHECK(part == NULL);
		row[1] = 1;
		CHECK(MrfFwDesignPartOpen(&design, row, 1, &MrfMallocEnv, &part) == MRF_OK);
		MrfFwDesignPartClose(part);
	}
	/* designs the learner would refuse */
	{
		int			d;
		int			q;
		const uint8_t badkv[6] = {3, 2, 3, 3, 2, 4};

		CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_OK);
		CHECK(d == 17 && q == 4 * 6 + 2 * 2);
		MrfPairwiseFwDesignOf(p, k, badkv, 0.5, &design);
		CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_EINVAL);
		MrfPairwiseFwDesignOf(p, 1, NULL, 0.5, &design);
		CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_EINVAL);
		MrfPairwiseFwDesignOf(p, k, NULL, -1.0, &design);
		CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_EINVAL);
		design.kind = (MrfFwDesignKind) 9;
		CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_EINVAL);
	}
	free(z);
}

/* ---- binary t-wise (Algorithm 4) ---- */

typedef struct TwiseCtx
{
	const uint64_t *bits;
	int64_t		n;
	int			p;
	MrfTwiseOptions opt;
	const MrfEnv *env;			/* the learner's (NULL: MrfMallocEnv) */
} TwiseCtx;

/* See CompareParts. */
static void
TwiseMech(void *ctx, MrfMechanism mech)
{
	((TwiseCtx *) ctx)->opt.mechanism = mech;
}

/* The coefficients. */
static MrfStatus
TwiseLearnFn(void *ctx, const PartsArg *parts, MrfRng *rng, double *out)
{
	TwiseCtx   *c = ctx;
	const MrfEnv *env = c->env != NULL ? c->env : &MrfMallocEnv;

	if (parts == NULL)
		return MrfTwiseLearn(c->bits, c->n, c->p, &c->opt, rng, env, out);
	return MrfTwiseLearnParts(PartsScores, (void *) parts, c->n, c->p, &c->opt, rng, env, out);
}

/* t = 3 (objective l1); linf is refused without rows. */
static void
TestTwiseParts(void)
{
	const int64_t n = 3000;
	const int	p = 7;
	int64_t		cut[5];
	uint64_t   *bits = BinaryRows(n, p, 500);
	TwiseCtx	c;
	MrfFwDesign design;
	PartsArg	a;
	MrfRng		rng;
	size_t		outlen;
	double	   *coef;
	int			d;
	int			q;

	memset(&c, 0, sizeof(c));
	c.bits = bits;
	c.n = n;
	c.p = p;
	c.opt.t = 3;
	c.opt.rho = 4.0;
	c.opt.lambda = 1.0;
	c.opt.iterations = 8;
	c.opt.objective = MRF_TWISE_L1;
	outlen = (size_t) MrfTwiseCoefCount(p, 3);
	MrfTwiseFwDesignOf(p, 3, c.opt.lambda, &design);
	CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_OK);
	CHECK(d == MrfTwiseFeatureCount(p, 3) && q == p);
	PartsInit(&a, &design, bits, n, cut);
	CompareParts("twise t = 3", &c, TwiseMech, TwiseLearnFn, 8, &a, outlen);
	coef = malloc(sizeof(double) * outlen);
	c.opt.objective = MRF_TWISE_LINF;
	MrfRngInitSeeded(&rng, 3);
	CHECK(MrfTwiseLearnParts(PartsScores, &a, n, p, &c.opt, &rng, &MrfMallocEnv, coef) == MRF_EINVAL);
	MrfTwiseFwDesignOf(p, p + 1, 1.0, &design);
	CHECK(MrfFwDesignSizes(&design, &d, &q) == MRF_EINVAL);
	free(coef);
	free(bits);
}

/*
 * auto's cost model (docs/citus_fw.md section 4): on the measured
 * constants, many iterations over few rows gather (a distributed round
 * costs more than a local iteration), few iterations over many rows stay
 * on the shards (gathering ships every row), as the study measured at
 * p = 50; more workers make the distributed learn cheaper, more shards
 * dearer, and the prediction grows with T.
 */
static void
TestCitusCosts(void)
{
	double		g,
				d,
				g2,
				d2;

	/* n = 1e4, the default T (200): gathered 0.17 s, distributed 0.48 s measured */
	MrfFwCitusCosts(10000, 50, 50, 50, 200, 2, 4, &g, &d);
	CHECK(g > 0 && !(d < MRF_FW_COST_MARGIN * g));
	/* n = 1e6, T = 10: gathered 2.91 s, distributed 0.73 s measured */
	MrfFwCitusCosts(1000000, 50, 50, 50, 10, 2, 4, &g, &d);
	CHECK(d < MRF_FW_COST_MARGIN * g);
	MrfFwCitusCosts(1000000, 50, 50, 50, 10, 8, 4, &g2, &d2);
	CHECK(g2 == g && d2 < d);
	MrfFwCitusCosts(1000000, 50, 50, 50, 10, 2, 32, &g2, &d2);
	CHECK(g2 == g && d2 > d);
	MrfFwCitusCosts(1000000, 50, 50, 50, 20, 2, 4, &g2, &d2);
	CHECK(g2 > g && d2 > d);
	/* test/citus/fw_kept.sql's two sides: 20,000 rows of 6 variables, 2 and 30 iterations */
	MrfFwCitusCosts(20000, 6, 6, 6, 2, 2, 4, &g, &d);
	CHECK(d < MRF_FW_COST_MARGIN * g);
	MrfFwCitusCosts(20000, 6, 6, 6, 30, 2, 4, &g, &d);
	CHECK(!(d < MRF_FW_COST_MARGIN * g));
}

/* One Frank-Wolfe learner's run of a sweep: from rows (parts NULL) or parts. */
typedef struct FwOomCase
{
	void	   *ctx;
	const MrfEnv **env;			/* the context's env field */
	LearnFn		learn;
	const PartsArg *parts;
	double	   *out;
} FwOomCase;

static MrfStatus
FwOomRelease(void *arg, const MrfEnv *env)
{
	FwOomCase  *c = arg;
	MrfRng		rng;
	MrfStatus	st;

	MrfRngInitSeeded(&rng, 5150);
	*c->env = env;
	st = c->learn(c->ctx, c->parts, &rng, c->out);
	*c->env = NULL;
	return st;
}

/* A worker's part of a sweep: open, three iterations, and the one-call sums. */
typedef struct PartOomCase
{
	const MrfFwDesign *design;
	const void *rows;
	int64_t		n;
	int			d;
	int			q;
	int		   *sel_j;			/* 3 x q */
	int		   *sel_sign;
	int64_t    *scores;			/* d x q */
} PartOomCase;

static MrfStatus
PartOomRelease(void *arg, const MrfEnv *env)
{
	PartOomCase *c = arg;
	MrfFwDesignPart *part = NULL;
	MrfStatus	st = MrfFwDesignPartOpen(c->design, c->rows, c->n, env, &part);

	if (st != MRF_OK)
	{
		CHECK(part == NULL);
		return st;
	}
	for (int t = 2; t <= 4 && st == MRF_OK; t++)
		st = t == 4 ?
			MrfFwDesignPartAdvanceFrom(part, t, t - 1, c->sel_j + (size_t) (t - 2) * c->q,
									   c->sel_sign + (size_t) (t - 2) * c->q, c->scores) :
			MrfFwDesignPartAdvance(part, t, c->sel_j, c->sel_sign, c->scores);
	MrfFwDesignPartClose(part);
	if (st == MRF_OK)
		st = MrfFwDesignPartScores(c->design, c->rows, c->n, 3, c->sel_j, c->sel_sign, env,
								   c->scores);
	return st;
}

/*
 * Every allocation of the Frank-Wolfe learners refused in turn (harness.h's
 * sweep): Ising (and symmetrized), the threshold structure method,
 * pairwise with per-variable alphabets, t-wise (l1, and l_inf with the
 * Gaussian release and with private multiplicative weights), each from
 * rows and, where it has one, from parts; both mechanisms, one thread.
 */
static void
TestOutOfMemory(void)
{
	const int64_t n = 600;
	const int	p = 5;
	const uint8_t kv[5] = {3, 2, 3, 2, 3};
	uint64_t   *bits = BinaryRows(n, p, 909);
	uint8_t    *z = malloc((size_t) n * p);
	double	   *out = malloc(sizeof(double) * (p * p * 9 + p * 3 + MrfTwiseCoefCount(p, 3)));
	int64_t		cut[5];
	IsingCtx	ic;
	PairwiseCtx pc;
	TwiseCtx	tc;
	MrfFwDesign idesign,
				pdesign,
				tdesign;
	PartsArg	ia,
				pa,
				ta;
	long		refused = 0;
	double		seconds = 0.0;
	int			sweeps = 0;
	int			kernels = 0;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 808);
	for (int64_t m = 0; m < n; m++)
		for (int i = 0; i < p; i++)
			z[m * p + i] = (uint8_t) (i == 2 && m % 5 ? z[m * p] % kv[i] :
									  MrfRngU64(&rng) % (uint64_t) kv[i]);
	memset(&ic, 0, sizeof(ic));
	ic.bits = bits;
	ic.n = n;
	ic.p = p;
	ic.opt.rho = 2.0;
	ic.opt.lambda = 1.0;
	ic.opt.iterations = 4;
	memset(&pc, 0, sizeof(pc));
	pc.z = z;
	pc.n = n;
	pc.p = p;
	pc.k = 3;
	pc.kv = kv;
	pc.opt.rho = 4.0;
	pc.opt.lambda = 0.5;
	pc.opt.iterations = 4;
	memset(&tc, 0, sizeof(tc));
	tc.bits = bits;
	tc.n = n;
	tc.p = p;
	tc.opt.t = 3;
	tc.opt.rho = 4.0;
	tc.opt.lambda = 1.0;
	tc.opt.iterations = 4;
	tc.opt.pmw_rounds = 3;
	MrfIsingFwDesignOf(p, ic.opt.lambda, &idesign);
	MrfPairwiseFwDesignOf(p, 3, kv, pc.opt.lambda, &pdesign);
	MrfTwiseFwDesignOf(p, 3, tc.opt.lambda, &tdesign);
	PartsInit(&ia, &idesign, bits, n, cut);
	PartsInit(&pa, &pdesign, z, n, cut);
	PartsInit(&ta, &tdesign, bits, n, cut);
	MrfFwForceKernel(MRF_FW_KERNEL_AUTO);
	MrfFwSetThreads(1);
	for (int mech = 0; mech < 2; mech++)
		for (int learner = 0; learner < 7; learner++)
			for (int parted = 0; parted < 2; parted++)
			{
				static const char *const names[7] = {
					"ising", "ising symmetrized", "threshold structure", "pairwise",
					"t-wise l1", "t-wise linf gaussian", "t-wise linf pmw"
				};
				FwOomCase	c;
				OomSweepResult res;
				char		what[96];
				MrfMechanism mechanism = mech ? MRF_MECH_LAPLACE : MRF_MECH_EXPONENTIAL;

				/* l_inf needs the rows */
				if (parted && learner >= 5)
					continue;
				memset(&c, 0, sizeof(c));
				c.out = out;
				if (learner <= 2)
				{
					ic.opt.mechanism = mechanism;
					ic.opt.symmetrize = learner == 1;
					c.ctx = &ic;
					c.env = &ic.env;
					c.learn = learner == 2 ? ThresholdLearnFn : IsingLearnFn;
					c.parts = parted ? &ia : NULL;
				}
				else if (learner == 3)
				{
					pc.opt.mechanism = mechanism;
					c.ctx = &pc;
					c.env = &pc.env;
					c.learn = PairwiseLearnFn;
					c.parts = parted ? &pa : NULL;
				}
				else
				{
					tc.opt.mechanism = mechanism;
					tc.opt.objective = learner == 4 ? MRF_TWISE_L1 : MRF_TWISE_LINF;
					tc.opt.release = learner == 6 ? MRF_TWISE_PMW : MRF_TWISE_GAUSSIAN;
					c.ctx = &tc;
					c.env = &tc.env;
					c.learn = TwiseLearnFn;
					c.parts = parted ? &ta : NULL;
				}
				snprintf(what, sizeof(what), "%s, mechanism %d, %s", names[learner], mech,
						 parted ? "parts" : "rows");
				res = OomSweep(what, FwOomRelease, &c);
				refused += res.refused;
				seconds += res.seconds;
				sweeps++;
			}
	/*
	 * Every available kernel (its float copy, its scratch) on two threads:
	 * each thread's buffers come from the host up front, on the caller's
	 * thread (workers.h), so the requests come in one order.
	 */
	MrfFwSetThreads(2);
	for (int kernel = 1; kernel < MRF_FW_KERNEL_COUNT; kernel++)
		for (int learner = 0; learner < 2; learner++)
		{
			FwOomCase	c;
			OomSweepResult res;
			char		what[96];

			if (!MrfFwKernelAvailable((MrfFwKernel) kernel))
				continue;
			MrfFwForceKernel((MrfFwKernel) kernel);
			memset(&c, 0, sizeof(c));
			c.out = out;
			ic.opt.mechanism = MRF_MECH_EXPONENTIAL;
			ic.opt.symmetrize = 0;
			pc.opt.mechanism = MRF_MECH_EXPONENTIAL;
			c.ctx = learner ? (void *) &pc : (void *) &ic;
			c.env = learner ? &pc.env : &ic.env;
			c.learn = learner ? PairwiseLearnFn : IsingLearnFn;
			snprintf(what, sizeof(what), "%s, kernel %d, two threads",
					 learner ? "pairwise" : "ising", kernel);
			res = OomSweep(what, FwOomRelease, &c);
			refused += res.refused;
			seconds += res.seconds;
			sweeps++;
			kernels += learner == 0;
		}
	MrfFwForceKernel(MRF_FW_KERNEL_AUTO);
	MrfFwSetThreads(1);
	/* a Citus worker's parts (kept between iterations, or one call) of each design */
	for (int dz = 0; dz < 3; dz++)
	{
		const MrfFwDesign *design = dz == 0 ? &idesign : dz == 1 ? &pdesign : &tdesign;
		PartOomCase c;
		OomSweepResult res;

		memset(&c, 0, sizeof(c));
		c.design = design;
		c.rows = dz == 1 ? (const void *) z : (const void *) bits;
		c.n = n;
		CHECK(MrfFwDesignSizes(design, &c.d, &c.q) == MRF_OK);
		c.sel_j = calloc((size_t) 3 * c.q, sizeof(int));
		c.sel_sign = calloc((size_t) 3 * c.q, sizeof(int));
		c.scores = malloc(sizeof(int64_t) * (size_t) c.d * c.q);
		for (int e = 0; e < 3 * c.q; e++)
		{
			c.sel_j[e] = (e * 7) % c.d;
			c.sel_sign[e] = e % 2 ? 1 : -1;
		}
		res = OomSweep(dz == 0 ? "ising parts" : dz == 1 ? "pairwise parts" : "t-wise parts",
					   PartOomRelease, &c);
		refused += res.refused;
		seconds += res.seconds;
		sweeps++;
		free(c.sel_j);
		free(c.sel_sign);
		free(c.scores);
	}
	printf("# fwparts out of memory: %ld refused requests over %d runs (Ising, threshold, pairwise, t-wise; %d kernels on two threads; workers' parts) in %.2f s, each a clean MRF_ENOMEM\n",
		   refused, sweeps, kernels, seconds);
	CHECK(sweeps == 27 + 2 * kernels && kernels >= 1 && refused > 300);
	free(bits);
	free(z);
	free(out);
}

/* The distributed Frank-Wolfe tests. */
void
TestFwParts(void)
{
	TestOutOfMemory();
	TestIsingParts();
	TestPairwiseParts();
	TestTwiseParts();
	TestCitusCosts();
}
