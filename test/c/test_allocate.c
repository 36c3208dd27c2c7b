/*
 * test_allocate.c - rows whose clique marginals match the model
 * (MrfBpAllocate, and allocate in sample.c's *SampleWith): counts allocated
 * through the junction tree, on models with a rare class, overlapping
 * cliques, a triangulated cycle and a forest with a variable in no clique.
 *
 * What allocation promises, each checked with several seeds and sizes:
 * every clique cell's count within a few rows of n P (independent draws
 * are off by about sqrt(n P)); counts unbiased (over many tiny tables the
 * mean count is n P: rounding to the nearest count, or largest remainder,
 * puts a table of 3 rows in the modes only and fails this); rows that are
 * not a constant table; the same seed gives the same rows.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bp.h"
#include "cliques.h"
#include "harness.h"
#include "noise.h"
#include "sample.h"

void		TestAllocate(void);

#define SEEDS 5

/* A model under test: its clique set and log-potentials. */
typedef struct AllocModel
{
	const char *name;
	MrfCliqueSet *set;
	double	   *logpot;
} AllocModel;

/*
 * A star: variable 0 (2 values) is a rare class (about 3%) that drives 19
 * variables of 3 values (z_j is 0 under the common class, 2 under the rare
 * one, with probability 0.9).
 */
static void
StarModel(const MrfEnv *env, AllocModel *m)
{
	enum
	{
		P = 20
	};
	int			card[P];
	int			start[P];
	int			var[2 * (P - 1)];

	card[0] = 2;
	for (int j = 1; j < P; j++)
	{
		card[j] = 3;
		start[j - 1] = 2 * (j - 1);
		var[2 * (j - 1)] = 0;
		var[2 * (j - 1) + 1] = j;
	}
	start[P - 1] = 2 * (P - 1);
	CHECK(MrfCliqueSetBuildAlphabets(P, card, P - 1, start, var, 0, env, &m->set) == MRF_OK);
	m->logpot = calloc((size_t) m->set->cells, sizeof(double));
	for (int c = 0; c < P - 1; c++)
	{
		double	   *t = m->logpot + m->set->offset[c];

		t[0] = log(0.9);
		t[1] = log(0.07);
		t[2] = log(0.03);
		t[3] = log(0.03) + (c == 0 ? log(0.03 / 0.97) : 0.0);
		t[4] = log(0.07) + (c == 0 ? log(0.03 / 0.97) : 0.0);
		t[5] = log(0.9) + (c == 0 ? log(0.03 / 0.97) : 0.0);
	}
	m->name = "star of 20 (rare class)";
}

/*
 * Overlapping triples (i, i+1, i+2) of 4 values, p = 12, irregular
 * potentials: separators of two variables, as AIM's models have, and a
 * tree 10 clusters deep.
 */
static void
TripleChainModel(const MrfEnv *env, AllocModel *m)
{
	enum
	{
		P = 12, M = P - 2
	};
	int			start[M + 1];
	int			var[3 * M];

	for (int c = 0; c < M; c++)
	{
		start[c] = 3 * c;
		var[3 * c] = c;
		var[3 * c + 1] = c + 1;
		var[3 * c + 2] = c + 2;
	}
	start[M] = 3 * M;
	CHECK(MrfCliqueSetBuild(P, 4, M, start, var, 0, env, &m->set) == MRF_OK);
	m->logpot = calloc((size_t) m->set->cells, sizeof(double));
	for (int64_t x = 0; x < m->set->cells; x++)
		m->logpot[x] = 1.8 * sin(2.3 * (double) x + 0.7) + 0.9 * cos(0.37 * (double) x * (double) x);
	m->name = "chain of triples";
}

/* A cycle of 16 binary pairs, strongly coupled (two modes): triangulated. */
static void
CycleModel(const MrfEnv *env, AllocModel *m)
{
	enum
	{
		P = 16
	};
	int			start[P + 1];
	int			var[2 * P];

	for (int c = 0; c < P; c++)
	{
		start[c] = 2 * c;
		var[2 * c] = c;
		var[2 * c + 1] = (c + 1) % P;
	}
	start[P] = 2 * P;
	CHECK(MrfCliqueSetBuild(P, 2, P, start, var, 0, env, &m->set) == MRF_OK);
	m->logpot = calloc((size_t) m->set->cells, sizeof(double));
	for (int c = 0; c < P; c++)
	{
		double	   *t = m->logpot + m->set->offset[c];

		t[0] = t[3] = 1.5;
		t[1] = t[2] = -1.5;
	}
	m->logpot[0] += 0.5;
	m->name = "cycle of 16";
}

/*
 * A forest and a variable in no clique: cliques {0, 1} and {2, 3} (two
 * roots), variable 4 of 5 values alone (uniform), alphabets 3, 2, 4, 3, 5.
 */
static void
ForestModel(const MrfEnv *env, AllocModel *m)
{
	int			card[5] = {3, 2, 4, 3, 5};
	int			start[3] = {0, 2, 4};
	int			var[4] = {0, 1, 2, 3};

	CHECK(MrfCliqueSetBuildAlphabets(5, card, 2, start, var, 0, env, &m->set) == MRF_OK);
	m->logpot = calloc((size_t) m->set->cells, sizeof(double));
	for (int64_t x = 0; x < m->set->cells; x++)
		m->logpot[x] = 1.2 * cos(1.1 * (double) x * (double) x);
	m->name = "forest and a lone variable";
}

static void
FreeModel(const MrfEnv *env, AllocModel *m)
{
	free(m->logpot);
	MrfCliqueSetFree(env, m->set);
}

/* An exact engine of the model. */
static MrfBp *
Engine(const AllocModel *m, const MrfEnv *env)
{
	MrfBpOptions opt;
	MrfBp	   *bp = NULL;

	memset(&opt, 0, sizeof(opt));
	opt.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(m->set, &opt, env, &bp) == MRF_OK);
	return bp;
}

/* Each clique's counts of the rows (bp.h's layout), added to count. */
static void
CliqueCounts(const MrfCliqueSet *set, const MrfCode *rows, long n, double *count)
{
	for (long r = 0; r < n; r++)
		for (int c = 0; c < set->m; c++)
			count[set->offset[c] + MrfCliqueIndex(set, c, rows + r * set->p)] += 1.0;
}

/* The largest |count - n q| over every clique cell. */
static double
WorstCellGap(const MrfCliqueSet *set, const double *marg, const MrfCode *rows, long n)
{
	double	   *count = calloc((size_t) set->cells, sizeof(double));
	double		worst = 0.0;

	CliqueCounts(set, rows, n, count);
	for (int64_t x = 0; x < set->cells; x++)
		worst = fmax(worst, fabs(count[x] - (double) n * marg[x]));
	free(count);
	return worst;
}

/* Mean over cliques of the L1 distance between the rows' table and the model's. */
static double
MeanCliqueL1(const MrfCliqueSet *set, const double *marg, const MrfCode *rows, long n)
{
	double	   *count = calloc((size_t) set->cells, sizeof(double));
	double		sum = 0.0;

	CliqueCounts(set, rows, n, count);
	for (int c = 0; c < set->m; c++)
		for (int64_t x = set->offset[c]; x < set->offset[c + 1]; x++)
			sum += fabs(count[x] / (double) n - marg[x]);
	free(count);
	return sum / set->m;
}

/*
 * Every clique cell within GAP rows of n P, for n from 7 to 20000 and
 * several seeds.  A root cluster's cells are within 1; a cluster's cell
 * (s, x) is within 1 of m_s P(x | s), and m_s inherits the parent's gaps
 * over the parent's cells that hold s: the gap grows with depth, but
 * stays a few rows at any n (independent draws: about 5 sqrt(n P) at
 * n = 20000 and P = 0.1, 210 rows).
 */
#define GAP 6.0

static void
CheckRounding(const AllocModel *m, const MrfEnv *env)
{
	static const long sizes[] = {7, 100, 1000, 20000};
	MrfBp	   *bp = Engine(m, env);
	double	   *marg = malloc(sizeof(double) * (size_t) m->set->cells);
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) 20000 * m->set->p);

	CHECK(MrfBpMarginals(bp, m->logpot, marg, NULL) == MRF_OK);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int s = 0; s < SEEDS; s++)
		{
			MrfRng		rng;
			double		gap;

			MrfRngInitSeeded(&rng, 31 + 7 * s);
			CHECK(MrfBpAllocate(bp, m->logpot, sizes[i], &rng, rows) == MRF_OK);
			for (long c = 0; c < sizes[i] * m->set->p; c++)
				CHECK(rows[c] < m->set->card[c % m->set->p]);
			gap = WorstCellGap(m->set, marg, rows, sizes[i]);
			CHECK_MSG(gap <= GAP, "%s n %ld seed %d: a clique cell %.2f rows from n P",
					  m->name, sizes[i], s, gap);
		}
	MrfBpFree(bp);
	free(marg);
	free(rows);
}

/*
 * Allocation removes most of the sampling error: at n = 1000 its mean
 * clique L1 is under a quarter of independent draws' (each seed).
 */
static void
CheckAgainstDraws(const AllocModel *m, const MrfEnv *env)
{
	enum
	{
		N = 1000
	};
	MrfBp	   *bp = Engine(m, env);
	double	   *marg = malloc(sizeof(double) * (size_t) m->set->cells);
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) N * m->set->p);

	CHECK(MrfBpMarginals(bp, m->logpot, marg, NULL) == MRF_OK);
	for (int s = 0; s < SEEDS; s++)
	{
		MrfRng		rng;
		double		drawn;
		double		allocated;

		MrfRngInitSeeded(&rng, 900 + s);
		CHECK(MrfBpSample(bp, m->logpot, N, &rng, rows) == MRF_OK);
		drawn = MeanCliqueL1(m->set, marg, rows, N);
		CHECK(MrfBpAllocate(bp, m->logpot, N, &rng, rows) == MRF_OK);
		allocated = MeanCliqueL1(m->set, marg, rows, N);
		CHECK_MSG(allocated < 0.25 * drawn, "%s seed %d: mean clique L1 %.4f allocated, %.4f drawn",
				  m->name, s, allocated, drawn);
	}
	MrfBpFree(bp);
	free(marg);
	free(rows);
}

/*
 * Unbiased counts: 3000 tables of 3 rows; each clique cell's mean count
 * within 5 standard deviations of independent draws (allocation's are
 * smaller) of 3 P, plus 1e-3.  The rare class (P about 0.03) must get
 * its 0.09 rows a table on average: nearest-count rounding never gives it
 * one.
 */
static void
CheckUnbiased(const AllocModel *m, const MrfEnv *env)
{
	enum
	{
		N = 3, TABLES = 3000
	};
	MrfBp	   *bp = Engine(m, env);
	double	   *marg = malloc(sizeof(double) * (size_t) m->set->cells);
	double	   *count = calloc((size_t) m->set->cells, sizeof(double));
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) N * m->set->p);
	MrfRng		rng;
	int			bad = 0;
	double		worst = 0.0;

	CHECK(MrfBpMarginals(bp, m->logpot, marg, NULL) == MRF_OK);
	MrfRngInitSeeded(&rng, 5);
	for (int t = 0; t < TABLES; t++)
	{
		CHECK(MrfBpAllocate(bp, m->logpot, N, &rng, rows) == MRF_OK);
		CliqueCounts(m->set, rows, N, count);
	}
	for (int64_t x = 0; x < m->set->cells; x++)
	{
		double		total = (double) N * TABLES;
		double		sd = sqrt(total * marg[x] * (1.0 - marg[x]));
		double		dev = fabs(count[x] - total * marg[x]);

		if (dev > 5.0 * sd + 1e-3 * total)
			bad++;
		worst = fmax(worst, dev / (sd + 1e-12));
	}
	CHECK_MSG(bad == 0, "%s: %d clique cells biased over %d tables of %d rows (worst %.1f sd)",
			  m->name, bad, TABLES, N, worst);
	MrfBpFree(bp);
	free(marg);
	free(count);
	free(rows);
}

/*
 * Not a constant table, and the seed decides the rows: every variable
 * takes at least two values in 1000 rows, the same seed gives the same
 * rows, another seed other rows.
 */
static void
CheckRowsVary(const AllocModel *m, const MrfEnv *env)
{
	enum
	{
		N = 1000
	};
	MrfBp	   *bp = Engine(m, env);
	int			p = m->set->p;
	MrfCode    *a = malloc(sizeof(MrfCode) * (size_t) N * p);
	MrfCode    *b = malloc(sizeof(MrfCode) * (size_t) N * p);
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 77);
	CHECK(MrfBpAllocate(bp, m->logpot, N, &rng, a) == MRF_OK);
	for (int j = 0; j < p; j++)
	{
		int			other = 0;

		for (long r = 1; r < N && !other; r++)
			other = a[r * p + j] != a[j];
		CHECK_MSG(other, "%s: variable %d has one value in every row", m->name, j);
	}
	MrfRngInitSeeded(&rng, 77);
	CHECK(MrfBpAllocate(bp, m->logpot, N, &rng, b) == MRF_OK);
	CHECK_MSG(memcmp(a, b, sizeof(MrfCode) * (size_t) N * p) == 0, "%s: the same seed gave other rows", m->name);
	MrfRngInitSeeded(&rng, 78);
	CHECK(MrfBpAllocate(bp, m->logpot, N, &rng, b) == MRF_OK);
	CHECK_MSG(memcmp(a, b, sizeof(MrfCode) * (size_t) N * p) != 0, "%s: another seed gave the same rows", m->name);
	MrfBpFree(bp);
	free(a);
	free(b);
}

/*
 * The samplers' allocate option: a clique model small enough to enumerate
 * is allocated all the same; one whose tree does not fit gives no rows and
 * MRF_SAMPLER_NONE; an Ising and a pairwise model of few variables go
 * through their clique form.
 */
static void
CheckDispatch(const MrfEnv *env)
{
	AllocModel	m;
	MrfSampleOptions opt = {1000, 10, 0, 1, NULL};
	MrfSampler	used;
	MrfRng		rng;
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) 1000 * 16);
	uint8_t    *bytes = malloc((size_t) 1000 * 3);

	ForestModel(env, &m);
	used = MRF_SAMPLER_CHAINS;
	MrfRngInitSeeded(&rng, 1);
	CHECK(MrfCliquesSampleWith(m.set, m.logpot, 1000, &opt, &rng, env, rows, &used) == MRF_OK);
	CHECK_MSG(used == MRF_SAMPLER_ALLOCATE, "a small clique model: sampler %s", MrfSamplerName(used));
	{
		MrfBp	   *bp = Engine(&m, env);
		double	   *marg = malloc(sizeof(double) * (size_t) m.set->cells);

		CHECK(MrfBpMarginals(bp, m.logpot, marg, NULL) == MRF_OK);
		CHECK(WorstCellGap(m.set, marg, rows, 1000) <= GAP);
		free(marg);
		MrfBpFree(bp);
	}
	FreeModel(env, &m);

	CycleModel(env, &m);
	opt.max_tree_cells = 4;
	used = MRF_SAMPLER_CHAINS;
	for (int i = 0; i < 1000; i++)
		rows[i] = 0xEEEE;
	CHECK(MrfCliquesSampleWith(m.set, m.logpot, 1000, &opt, &rng, env, rows, &used) == MRF_OK);
	CHECK_MSG(used == MRF_SAMPLER_NONE, "no tree within 4 cells: sampler %s", MrfSamplerName(used));
	CHECK(rows[0] == 0xEEEE && rows[999] == 0xEEEE);
	opt.max_tree_cells = 0;
	FreeModel(env, &m);

	/* Ising, 4 spins in a chain: P(z_i = z_{i+1}) = e / (e + 1/e) */
	{
		double		A[16] = {0};
		double		theta[4] = {0, 0, 0, 0};
		int8_t		spins[4000];
		long		agree = 0;

		for (int i = 0; i < 3; i++)
			A[i * 4 + i + 1] = A[(i + 1) * 4 + i] = 1.0;
		used = MRF_SAMPLER_CHAINS;
		CHECK(MrfIsingSampleWith(A, theta, 4, 1000, &opt, &rng, env, spins, &used) == MRF_OK);
		CHECK_MSG(used == MRF_SAMPLER_ALLOCATE, "Ising: sampler %s", MrfSamplerName(used));
		for (long r = 0; r < 1000; r++)
		{
			CHECK(spins[r * 4] == 1 || spins[r * 4] == -1);
			agree += spins[r * 4 + 1] == spins[r * 4 + 2];
		}
		CHECK_MSG(fabs((double) agree - 1000.0 * exp(1.0) / (exp(1.0) + exp(-1.0))) <= GAP,
				  "Ising: %ld of 1000 neighbours agree", agree);
	}
	/* pairwise k = 3, a pair that prefers equal values over independent third */
	{
		double		W[3 * 3 * 3 * 3] = {0};
		double		theta[9] = {0};
		long		equal = 0;

		for (int a = 0; a < 3; a++)
			W[((0 * 3 + 1) * 3 + a) * 3 + a] = W[((1 * 3 + 0) * 3 + a) * 3 + a] = 2.0;
		used = MRF_SAMPLER_CHAINS;
		CHECK(MrfPairwiseSampleWith(W, theta, 3, 3, 1000, &opt, &rng, env, bytes, &used) == MRF_OK);
		CHECK_MSG(used == MRF_SAMPLER_ALLOCATE, "pairwise: sampler %s", MrfSamplerName(used));
		for (long r = 0; r < 1000; r++)
			equal += bytes[r * 3] == bytes[r * 3 + 1];
		CHECK_MSG(fabs((double) equal - 1000.0 * exp(2.0) / (exp(2.0) + 2.0)) <= GAP,
				  "pairwise: %ld of 1000 pairs equal", equal);
	}
	free(rows);
	free(bytes);
}

/*
 * Finite log-potentials whose sums overflow (1e308 twice on a chain's mode)
 * have no finite distribution: allocation, the tree's draws and the
 * enumeration return MRF_ERANGE, holding nothing; large potentials that do
 * not overflow are allocated exactly (a NaN table came out uniform).
 */
static void
CheckOverflow(const MrfEnv *env)
{
	int			start[3] = {0, 2, 4};
	int			var[4] = {0, 1, 1, 2};
	double		chain[8] = {1e308, 0, 0, 0, 1e308, 0, 0, 0};
	double		big[4] = {1e308, -1e308, 1e308, 0};
	AllocModel	m;
	MrfSampleOptions opt = {1000, 10, 0, 1, NULL};
	MrfSampler	used;
	MrfRng		rng;
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) 1000 * 3);
	long		mode[4] = {0};

	MrfRngInitSeeded(&rng, 7);
	CHECK(MrfCliqueSetBuild(3, 2, 2, start, var, 0, env, &m.set) == MRF_OK);
	m.logpot = chain;
	CHECK_MSG(MrfCliquesSampleWith(m.set, m.logpot, 1000, &opt, &rng, env, rows, &used) == MRF_ERANGE,
			  "an overflowing chain is not allocated");
	opt.allocate = 0;
	CHECK_MSG(MrfCliquesSampleWith(m.set, m.logpot, 1000, &opt, &rng, env, rows, &used) == MRF_ERANGE &&
			  used == MRF_SAMPLER_ENUMERATE, "nor enumerated (sampler %s)", MrfSamplerName(used));
	{
		MrfBp	   *bp = Engine(&m, env);

		CHECK_MSG(MrfBpSample(bp, m.logpot, 1000, &rng, rows) == MRF_ERANGE, "nor drawn through the tree");
		CHECK_MSG(MrfBpAllocate(bp, m.logpot, 1000, &rng, rows) == MRF_ERANGE, "nor allocated through it");
		MrfBpFree(bp);
	}
	MrfCliqueSetFree(env, m.set);

	/* one clique: (0, 0) and (1, 0) at 1e308, the rest at most 0: half the rows each */
	CHECK(MrfCliqueSetBuild(2, 2, 1, start, var, 0, env, &m.set) == MRF_OK);
	opt.allocate = 1;
	CHECK(MrfCliquesSampleWith(m.set, big, 1000, &opt, &rng, env, rows, &used) == MRF_OK);
	for (int r = 0; r < 1000; r++)
		mode[rows[r * 2] * 2 + rows[r * 2 + 1]]++;
	CHECK_MSG(mode[0] == 500 && mode[2] == 500 && mode[1] == 0 && mode[3] == 0,
			  "potentials of 1e308 allocated %ld, %ld, %ld, %ld rows", mode[0], mode[1], mode[2], mode[3]);
	MrfCliqueSetFree(env, m.set);
	free(rows);
}

void
TestAllocate(void)
{
	MrfEnv		env;
	CountingEnv ce;
	void		(*models[]) (const MrfEnv *, AllocModel *) = {
		StarModel, TripleChainModel, CycleModel, ForestModel
	};

	CountingEnvInit(&ce, &env);
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
	{
		AllocModel	m;

		models[i] (&env, &m);
		CheckRounding(&m, &env);
		CheckAgainstDraws(&m, &env);
		CheckUnbiased(&m, &env);
		CheckRowsVary(&m, &env);
		FreeModel(&env, &m);
	}
	CheckDispatch(&env);
	CheckOverflow(&env);
	CHECK_MSG(ce.live == 0, "%zu bytes still allocated", ce.live);
}
