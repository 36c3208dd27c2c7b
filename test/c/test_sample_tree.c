/*
 * test_sample_tree.c - exact sampling through a junction tree (bp.c,
 * MrfBpSample; sample.c's *SampleWith): rows of models with well-separated
 * modes and more states than enumeration covers, against their exact
 * marginals, with several seeds.
 *
 * One chain per call stays in the mode where it starts: on these models the
 * chain puts (almost) every row in one mode, and every check below fails for
 * it (with max_tree_cells = 1, which forces the chain, the star models give
 * 0% or 100% of rows in the rare mode).  The small model is checked against
 * brute-force enumeration computed here, independently of bp.c; the wide
 * ones against the engine's calibrated marginals, which test_cliques checks
 * against enumeration.  Bounds are 5 binomial standard deviations plus one
 * count: a correct sampler fails one of them about once in 10^6 checks.
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

void		TestSampleTree(void);

#define SEEDS 5
#define ROWS 20000

/* |count - n q| within 5 binomial standard deviations (and one count). */
static int
WithinBinomial(long count, long n, double q)
{
	double		sd = sqrt((double) n * q * (1.0 - q));

	return fabs((double) count - (double) n * q) <= 5.0 * sd + 1.0;
}

/*
 * Every clique's table of the rows against the model's exact clique
 * marginals (marg, bp.h's layout); returns the number of cells outside
 * their bound and sets *worst to the largest deviation in standard units.
 */
static int
CliqueCountsMatch(const MrfCliqueSet *set, const double *marg, const MrfCode *rows,
				  long n, double *worst)
{
	long	   *count = calloc((size_t) set->cells, sizeof(long));
	int			bad = 0;

	*worst = 0.0;
	for (long r = 0; r < n; r++)
		for (int c = 0; c < set->m; c++)
			count[set->offset[c] + MrfCliqueIndex(set, c, rows + r * set->p)]++;
	for (int64_t x = 0; x < set->cells; x++)
	{
		double		q = marg[x];
		double		sd = sqrt((double) n * q * (1.0 - q)) + 1e-12;
		double		dev = fabs((double) count[x] - n * q) / sd;

		if (!WithinBinomial(count[x], n, q))
			bad++;
		if (dev > *worst && sd > 1e-6)
			*worst = dev;
	}
	free(count);
	return bad;
}

/* The exact clique marginals of a model (an exact engine). */
static void
ExactCliqueMarginals(const MrfCliqueSet *set, const double *logpot, const MrfEnv *env,
					 double *marg)
{
	MrfBpOptions opt;
	MrfBp	   *bp = NULL;

	memset(&opt, 0, sizeof(opt));
	opt.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(set, &opt, env, &bp) == MRF_OK);
	CHECK(MrfBpMarginals(bp, logpot, marg, NULL) == MRF_OK);
	MrfBpFree(bp);
}

/*
 * Samples set/logpot with MrfCliquesSampleWith under SEEDS seeds and checks
 * each seed's clique tables against the exact marginals; the sampler must
 * be the tree's.
 */
static void
CheckCliqueModel(const char *what, const MrfCliqueSet *set, const double *logpot,
				 const MrfEnv *env)
{
	double	   *marg = malloc(sizeof(double) * (size_t) set->cells);
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) ROWS * set->p);
	MrfSampleOptions opt = {1000, 10, 0, 0, NULL};

	ExactCliqueMarginals(set, logpot, env, marg);
	for (int s = 0; s < SEEDS; s++)
	{
		MrfRng		rng;
		MrfSampler	used = MRF_SAMPLER_CHAINS;
		double		worst;
		int			bad;

		MrfRngInitSeeded(&rng, 1000 + s);
		CHECK(MrfCliquesSampleWith(set, logpot, ROWS, &opt, &rng, env, rows, &used) == MRF_OK);
		CHECK_MSG(used == MRF_SAMPLER_TREE, "%s: sampler %s", what, MrfSamplerName(used));
		bad = CliqueCountsMatch(set, marg, rows, ROWS, &worst);
		CHECK_MSG(bad == 0, "%s seed %d: %d clique cells outside 5 sd (worst %.1f sd)",
				  what, s, bad, worst);
	}
	free(marg);
	free(rows);
}

/*
 * A star: variable 0 (2 values) is a rare class (about 3%) that drives
 * every other variable (3 values each): z_j is 0 under the common class and
 * 2 under the rare one, with probability about 0.9.  2 x 3^19 states.
 */
static void
TestStarCliques(const MrfEnv *env)
{
	enum
	{
		P = 20
	};
	int			card[P];
	int			start[P];
	int			var[2 * (P - 1)];
	MrfCliqueSet *set = NULL;
	double	   *logpot;

	card[0] = 2;
	for (int j = 1; j < P; j++)
		card[j] = 3;
	for (int j = 1; j < P; j++)
	{
		start[j - 1] = 2 * (j - 1);
		var[2 * (j - 1)] = 0;
		var[2 * (j - 1) + 1] = j;
	}
	start[P - 1] = 2 * (P - 1);
	CHECK(MrfCliqueSetBuildAlphabets(P, card, P - 1, start, var, 0, env, &set) == MRF_OK);
	logpot = calloc((size_t) set->cells, sizeof(double));
	for (int c = 0; c < P - 1; c++)
	{
		double	   *t = logpot + set->offset[c];

		/* cell (z0, zj) = z0 * 3 + zj; the first pair carries the class prior */
		t[0 * 3 + 0] = log(0.9);
		t[0 * 3 + 1] = log(0.07);
		t[0 * 3 + 2] = log(0.03);
		t[1 * 3 + 0] = log(0.03);
		t[1 * 3 + 1] = log(0.07);
		t[1 * 3 + 2] = log(0.9);
		if (c == 0)
		{
			t[1 * 3 + 0] += log(0.03 / 0.97);
			t[1 * 3 + 1] += log(0.03 / 0.97);
			t[1 * 3 + 2] += log(0.03 / 0.97);
		}
	}
	CheckCliqueModel("star of 20 (rare class)", set, logpot, env);

	/* the rare class's own share, by seed: near 3%, never 0% or 100% */
	{
		double	   *marg = malloc(sizeof(double) * (size_t) set->cells);
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) ROWS * P);
		MrfSampleOptions opt = {1000, 10, 0, 0, NULL};
		double		rare;

		ExactCliqueMarginals(set, logpot, env, marg);
		rare = marg[3] + marg[4] + marg[5];
		CHECK_MSG(rare > 0.01 && rare < 0.1, "the rare class has P = %.4f", rare);
		for (int s = 0; s < SEEDS; s++)
		{
			MrfRng		rng;
			long		count = 0;

			MrfRngInitSeeded(&rng, 77 + s);
			CHECK(MrfCliquesSampleWith(set, logpot, ROWS, &opt, &rng, env, rows, NULL) == MRF_OK);
			for (long r = 0; r < ROWS; r++)
				count += rows[r * P] == 1;
			CHECK_MSG(WithinBinomial(count, ROWS, rare),
					  "seed %d: %ld of %d rows in the rare class, model %.1f", s, count,
					  ROWS, rare * ROWS);
		}
		free(marg);
		free(rows);
	}
	free(logpot);
	MrfCliqueSetFree(env, set);
}

/*
 * Overlapping triples (i, i+1, i+2), 3 values each, p = 16: separators of
 * two variables, as AIM's models have; a potential that prefers runs of one
 * value makes three strong modes (all 0, all 1, all 2).
 */
static void
TestTripleChain(const MrfEnv *env)
{
	enum
	{
		P = 16, M = P - 2
	};
	int			start[M + 1];
	int			var[3 * M];
	MrfCliqueSet *set = NULL;
	double	   *logpot;

	for (int c = 0; c < M; c++)
	{
		start[c] = 3 * c;
		var[3 * c] = c;
		var[3 * c + 1] = c + 1;
		var[3 * c + 2] = c + 2;
	}
	start[M] = 3 * M;
	CHECK(MrfCliqueSetBuild(P, 3, M, start, var, 0, env, &set) == MRF_OK);
	logpot = calloc((size_t) set->cells, sizeof(double));
	for (int c = 0; c < M; c++)
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				for (int d = 0; d < 3; d++)
					logpot[set->offset[c] + (a * 3 + b) * 3 + d] =
						2.0 * ((a == b) + (b == d)) + 0.3 * (c == 0 && a == 2);
	CheckCliqueModel("chain of triples", set, logpot, env);
	free(logpot);
	MrfCliqueSetFree(env, set);
}

/*
 * A cycle of 24 pairs (not a junction tree by itself: the engine
 * triangulates it, so clusters differ from cliques), binary, strongly
 * coupled: two modes.
 */
static void
TestCycle(const MrfEnv *env)
{
	enum
	{
		P = 24
	};
	int			start[P + 1];
	int			var[2 * P];
	MrfCliqueSet *set = NULL;
	double	   *logpot;

	for (int c = 0; c < P; c++)
	{
		start[c] = 2 * c;
		var[2 * c] = c;
		var[2 * c + 1] = (c + 1) % P;
	}
	start[P] = 2 * P;
	CHECK(MrfCliqueSetBuild(P, 2, P, start, var, 0, env, &set) == MRF_OK);
	logpot = calloc((size_t) set->cells, sizeof(double));
	for (int c = 0; c < P; c++)
	{
		double	   *t = logpot + set->offset[c];

		t[0] = t[3] = 1.5;
		t[1] = t[2] = -1.5;
	}
	logpot[set->offset[0]] += 0.5;	/* a little asymmetry: the 0 mode is likelier */
	CheckCliqueModel("cycle of 24", set, logpot, env);
	free(logpot);
	MrfCliqueSetFree(env, set);
}

/*
 * The tree sampler itself against brute-force enumeration on a small model
 * (MrfBpSample called directly: enumeration would otherwise take it):
 * chi-square over all 3^6 states, computed without bp.c.
 */
static void
TestAgainstEnumeration(const MrfEnv *env)
{
	enum
	{
		P = 6, M = 5, STATES = 729, DRAWS = 200000
	};
	int			start[M + 1] = {0, 2, 4, 7, 9, 11};
	int			var[11] = {0, 1, 1, 2, 2, 3, 4, 3, 5, 0, 5};
	MrfCliqueSet *set = NULL;
	MrfBp	   *bp = NULL;
	MrfBpOptions opt;
	double	   *logpot;
	double		prob[STATES];
	long		observed[STATES];
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) DRAWS * P);
	double		total = 0.0;
	MrfRng		rng;
	MrfCode		z[P];

	CHECK(MrfCliqueSetBuild(P, 3, M, start, var, 0, env, &set) == MRF_OK);
	logpot = calloc((size_t) set->cells, sizeof(double));
	for (int64_t x = 0; x < set->cells; x++)
		logpot[x] = sin(1.7 * (double) x) * 1.5;
	for (int s = 0; s < STATES; s++)
	{
		int			v = s;
		double		w = 0.0;

		for (int i = P - 1; i >= 0; i--)
		{
			z[i] = (MrfCode) (v % 3);
			v /= 3;
		}
		for (int c = 0; c < set->m; c++)
			w += logpot[set->offset[c] + MrfCliqueIndex(set, c, z)];
		prob[s] = exp(w);
		total += prob[s];
	}
	for (int s = 0; s < STATES; s++)
		prob[s] /= total;
	memset(&opt, 0, sizeof(opt));
	opt.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(set, &opt, env, &bp) == MRF_OK);
	MrfRngInitSeeded(&rng, 4242);
	CHECK(MrfBpSample(bp, logpot, DRAWS, &rng, rows) == MRF_OK);
	memset(observed, 0, sizeof(observed));
	for (long r = 0; r < DRAWS; r++)
	{
		int			s = 0;

		for (int i = 0; i < P; i++)
			s = s * 3 + rows[r * P + i];
		observed[s]++;
	}
	{
		double		chi = ChiSquareStatistic(observed, prob, STATES, DRAWS);
		double		pval = ChiSquareSurvival(chi, STATES - 1);

		CHECK_MSG(pval > 1e-4, "tree sampler vs enumeration: chi2 %.1f, p %.2g", chi, pval);
	}
	/* same seed, same rows */
	{
		MrfCode    *again = malloc(sizeof(MrfCode) * (size_t) 1000 * P);

		MrfRngInitSeeded(&rng, 4242);
		CHECK(MrfBpSample(bp, logpot, 1000, &rng, again) == MRF_OK);
		CHECK(memcmp(again, rows, sizeof(MrfCode) * (size_t) 1000 * P) == 0);
		free(again);
	}
	MrfBpFree(bp);
	free(rows);
	free(logpot);
	MrfCliqueSetFree(env, set);
}

/*
 * A star Ising model: spin 0 coupled to 30 leaves at 1.0, no fields.  Two
 * modes (all +1, all -1) of equal mass, which a chain never leaves; the
 * junction tree draws each row's mode afresh.
 */
static void
TestStarIsing(const MrfEnv *env)
{
	enum
	{
		P = 31
	};
	double	   *A = calloc((size_t) P * P, sizeof(double));
	double		theta[P];
	int8_t	   *rows = malloc((size_t) ROWS * P);
	MrfSampleOptions opt = {1000, 10, 0, 0, NULL};

	memset(theta, 0, sizeof(theta));
	for (int j = 1; j < P; j++)
		A[j] = A[j * P] = 1.0;
	for (int s = 0; s < SEEDS; s++)
	{
		MrfRng		rng;
		MrfSampler	used = MRF_SAMPLER_CHAINS;
		long		plus = 0;
		long		agree = 0;

		MrfRngInitSeeded(&rng, 500 + s);
		CHECK(MrfIsingSampleWith(A, theta, P, ROWS, &opt, &rng, env, rows, &used) == MRF_OK);
		CHECK_MSG(used == MRF_SAMPLER_TREE, "star Ising: sampler %s", MrfSamplerName(used));
		for (long r = 0; r < ROWS; r++)
		{
			plus += rows[r * P] == 1;
			/* P(leaf = centre) = e / (e + 1/e) */
			agree += rows[r * P + 1 + r % (P - 1)] == rows[r * P];
		}
		CHECK_MSG(WithinBinomial(plus, ROWS, 0.5), "star Ising seed %d: %ld of %d rows with the centre at +1",
				  s, plus, ROWS);
		CHECK_MSG(WithinBinomial(agree, ROWS, exp(1.0) / (exp(1.0) + exp(-1.0))),
				  "star Ising seed %d: %ld of %d leaves agree with the centre", s, agree, ROWS);
	}
	free(A);
	free(rows);
}

/*
 * A pairwise k = 3 star over 14 variables (3^14 states, above enumeration):
 * the centre's value is copied to each leaf with probability about 0.8.
 */
static void
TestStarPairwise(const MrfEnv *env)
{
	enum
	{
		P = 14, K = 3
	};
	double	   *W = calloc((size_t) P * P * K * K, sizeof(double));
	double		theta[P * K];
	uint8_t    *rows = malloc((size_t) ROWS * P);
	MrfSampleOptions opt = {1000, 10, 0, 0, NULL};
	double		q = exp(2.0) / (exp(2.0) + 2.0);

	memset(theta, 0, sizeof(theta));
	for (int j = 1; j < P; j++)
		for (int a = 0; a < K; a++)
		{
			/* W_ij(a, b) at ((i p + j) k + a) k + b (pairwise.h) */
			W[((size_t) (0 * P + j) * K + a) * K + a] = 2.0;
			W[((size_t) (j * P + 0) * K + a) * K + a] = 2.0;
		}
	for (int s = 0; s < SEEDS; s++)
	{
		MrfRng		rng;
		MrfSampler	used = MRF_SAMPLER_CHAINS;
		long		centre[K] = {0, 0, 0};
		long		agree = 0;

		MrfRngInitSeeded(&rng, 900 + s);
		CHECK(MrfPairwiseSampleWith(W, theta, P, K, ROWS, &opt, &rng, env, rows, &used) == MRF_OK);
		CHECK_MSG(used == MRF_SAMPLER_TREE, "star pairwise: sampler %s", MrfSamplerName(used));
		for (long r = 0; r < ROWS; r++)
		{
			centre[rows[r * P]]++;
			agree += rows[r * P + 1 + r % (P - 1)] == rows[r * P];
		}
		for (int a = 0; a < K; a++)
			CHECK_MSG(WithinBinomial(centre[a], ROWS, 1.0 / K),
					  "star pairwise seed %d: centre value %d in %ld rows", s, a, centre[a]);
		CHECK_MSG(WithinBinomial(agree, ROWS, q), "star pairwise seed %d: %ld leaves agree", s, agree);
	}
	free(W);
	free(rows);
}

/* A dense model has no junction tree within the limit: the chain takes it. */
static void
TestFallback(const MrfEnv *env)
{
	enum
	{
		P = 40
	};
	double	   *A = calloc((size_t) P * P, sizeof(double));
	double		theta[P];
	int8_t	   *rows = malloc((size_t) 10 * P);
	MrfSampleOptions opt = {10, 1, 0, 0, NULL};
	MrfSampler	used = MRF_SAMPLER_TREE;
	MrfRng		rng;

	memset(theta, 0, sizeof(theta));
	for (int i = 0; i < P; i++)
		for (int j = 0; j < P; j++)
			if (i != j)
				A[i * P + j] = 0.01;
	MrfRngInitSeeded(&rng, 1);
	CHECK(MrfIsingSampleWith(A, theta, P, 10, &opt, &rng, env, rows, &used) == MRF_OK);
	CHECK(used == MRF_SAMPLER_CHAINS);
	free(A);
	free(rows);
}

void
TestSampleTree(void)
{
	MrfEnv		env;
	CountingEnv ce;

	CountingEnvInit(&ce, &env);
	TestAgainstEnumeration(&env);
	TestStarCliques(&env);
	TestTripleChain(&env);
	TestCycle(&env);
	TestStarIsing(&env);
	TestStarPairwise(&env);
	TestFallback(&env);
	CHECK_MSG(ce.live == 0, "%zu bytes still allocated", ce.live);
}
