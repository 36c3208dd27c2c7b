/*
 * test_structure.c - structure learning by the stable mode (structure.c):
 * canonical structures, the calibration of tau, the selection mechanism on
 * synthetic histograms (against its exact output distribution, and the
 * (epsilon, delta) inequality on neighbouring histograms), the non-private
 * Ising block learner, and end-to-end recovery of a chain, a grid and a star.
 */
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "harness.h"
#include "pairwise.h"
#include "privacy.h"
#include "rows.h"
#include "sample.h"
#include "structure.h"
#include "structure_ising.h"
#include "logreg.h"
#include "structure_pairwise.h"
#include "structure_twise.h"
#include "twise.h"

/* ---- canonical structures ---- */

/* Adds edge {i, j} (in the order given). */
static void
AddEdge(MrfStructure *s, int i, int j)
{
	int32_t		v[2];

	v[0] = i;
	v[1] = j;
	CHECK(MrfStructureAdd(s, &MrfMallocEnv, 2, v) == MRF_OK);
}

/* Sorting, deduplication, mixed item sizes, equality, hashing, errors. */
static void
TestCanonical(void)
{
	MrfStructure a;
	MrfStructure b;
	const int32_t tri[3] = {4, 0, 2};
	const int32_t one[1] = {3};
	const int32_t expect[] = {1, 3, 2, 0, 1, 2, 0, 4, 2, 1, 2, 3, 0, 2, 4};
	const int32_t bad_range[2] = {0, 5};
	const int32_t bad_repeat[2] = {2, 2};

	MrfStructureInit(&a, 5);
	AddEdge(&a, 2, 1);
	CHECK(MrfStructureAdd(&a, &MrfMallocEnv, 3, tri) == MRF_OK);
	AddEdge(&a, 4, 0);
	AddEdge(&a, 0, 1);
	AddEdge(&a, 1, 2);			/* a repeat of {1, 2} */
	CHECK(MrfStructureAdd(&a, &MrfMallocEnv, 1, one) == MRF_OK);
	CHECK(MrfStructureCanonicalize(&a, &MrfMallocEnv) == MRF_OK);
	/* sizes first, then lexicographic: [3] [0,1] [0,4] [1,2] [0,2,4] */
	CHECK(a.nitems == 5);
	CHECK_MSG(a.nwords == (int64_t) (sizeof(expect) / sizeof(expect[0])) &&
			  memcmp(a.words, expect, sizeof(expect)) == 0,
			  "canonical words differ (%lld words)", (long long) a.nwords);
	CHECK(MrfStructureEdgeCount(&a) == 3);
	CHECK(MrfStructureHasEdge(&a, 4, 0) && MrfStructureHasEdge(&a, 2, 1));
	CHECK(!MrfStructureHasEdge(&a, 0, 2));

	/* the same items in another order are equal and hash equally */
	MrfStructureInit(&b, 5);
	CHECK(MrfStructureAdd(&b, &MrfMallocEnv, 1, one) == MRF_OK);
	AddEdge(&b, 0, 4);
	AddEdge(&b, 1, 0);
	CHECK(MrfStructureAdd(&b, &MrfMallocEnv, 3, tri) == MRF_OK);
	AddEdge(&b, 1, 2);
	CHECK(MrfStructureCanonicalize(&b, &MrfMallocEnv) == MRF_OK);
	CHECK(MrfStructureEqual(&a, &b));
	CHECK(MrfStructureHash(&a) == MrfStructureHash(&b));
	/* one edge more is different */
	AddEdge(&b, 3, 4);
	CHECK(MrfStructureCanonicalize(&b, &MrfMallocEnv) == MRF_OK);
	CHECK(!MrfStructureEqual(&a, &b));
	CHECK(MrfStructureHash(&a) != MrfStructureHash(&b));
	MrfStructureFree(&b, &MrfMallocEnv);

	/* empty structures are equal; invalid items are refused */
	MrfStructureInit(&b, 5);
	CHECK(MrfStructureCanonicalize(&b, &MrfMallocEnv) == MRF_OK);
	CHECK(b.nitems == 0 && !MrfStructureEqual(&a, &b));
	CHECK(MrfStructureAdd(&b, &MrfMallocEnv, 2, bad_range) == MRF_OK);
	CHECK(MrfStructureCanonicalize(&b, &MrfMallocEnv) == MRF_EINVAL);
	MrfStructureFree(&b, &MrfMallocEnv);
	CHECK(MrfStructureAdd(&b, &MrfMallocEnv, 2, bad_repeat) == MRF_OK);
	CHECK(MrfStructureCanonicalize(&b, &MrfMallocEnv) == MRF_EINVAL);
	CHECK(MrfStructureAdd(&b, &MrfMallocEnv, 0, one) == MRF_EINVAL);
	MrfStructureFree(&b, &MrfMallocEnv);
	MrfStructureFree(&a, &MrfMallocEnv);
}

/* ---- calibration ---- */

/* The discrete Laplace parameter a = den/num of the stable mode's noise. */
static double
NoiseRate(double epsilon)
{
	uint64_t	num;
	uint64_t	den;

	if (MrfStableModeNoise(epsilon, &num, &den) != 0)
		return NAN;
	return (double) den / (double) num;
}

/* P(Z >= k) for the discrete Laplace with rate a, any integer k. */
static double
DiscreteLaplaceAtLeast(double a, int64_t k)
{
	if (k >= 0)
		return exp(-a * (double) k) / (1.0 + exp(-a));
	return 1.0 - exp(-a * (double) (-k + 1)) / (1.0 + exp(-a));
}

/*
 * tau never below the continuous threshold 1 + (2/epsilon) ln(1/(2 delta)), the leak at most delta, tau
 * minimal for the discrete tail (one less would leak more than delta), and
 * the noise scale at least 2/epsilon; worked values at (1, 1e-6).
 */
static void
TestCalibration(void)
{
	const double eps[] = {0.1, 0.5, 1.0, 2.0, 8.0};
	const double del[] = {1e-9, 1e-6, 1e-3, 0.05, 0.4};
	uint64_t	num;
	uint64_t	den;
	size_t		i;
	size_t		j;

	for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
	{
		double		a = NoiseRate(eps[i]);

		CHECK(MrfStableModeNoise(eps[i], &num, &den) == 0);
		CHECK_MSG((double) num * eps[i] >= 2.0 * (double) den,
				  "scale %llu/%llu below 2/%g", (unsigned long long) num,
				  (unsigned long long) den, eps[i]);
		CHECK((double) num / (double) den < 2.0 / eps[i] * (1.0 + 1e-5));
		for (j = 0; j < sizeof(del) / sizeof(del[0]); j++)
		{
			int64_t		tau = MrfStableModeThreshold(eps[i], del[j]);
			double		spec = 1.0 + (2.0 / eps[i]) * log(1.0 / (2.0 * del[j]));
			double		leak = MrfStableModeLeak(eps[i], del[j]);

			CHECK_MSG((double) tau >= spec && tau >= 2,
					  "tau %lld below the continuous %.4f at (%g, %g)", (long long) tau, spec,
					  eps[i], del[j]);
			CHECK_MSG(leak <= del[j], "leak %.3g > delta %g", leak, del[j]);
			CHECK_NEAR(leak, DiscreteLaplaceAtLeast(a, tau - 1), 1e-12 * del[j]);
			/* minimal: one less either leaks or falls under the continuous tau */
			CHECK_MSG(tau == 2 || DiscreteLaplaceAtLeast(a, tau - 2) > del[j] ||
					  (double) (tau - 1) < spec,
					  "tau %lld not minimal at (%g, %g)", (long long) tau, eps[i], del[j]);
		}
	}
	/* a = 0.49999976: k = ceil((ln 1e6 - ln(1 + e^-a)) / a) = 27 */
	CHECK(MrfStableModeThreshold(1.0, 1e-6) == 28);
	CHECK(MrfStableModeThreshold(1.0, 0.05) == 7);
	CHECK(MrfStructureDefaultBlocks(1.0, 1e-6) == 94);	/* ceil(2 * 28 / 0.6) */
	CHECK(MrfStructureDefaultBlocks(0.5, 1e-6) ==
		  (int) ceil(2.0 * MrfStableModeThreshold(0.5, 1e-6) / 0.6 - 1e-9));

	CHECK(MrfStableModeThreshold(0.0, 1e-6) == -1);
	CHECK(MrfStableModeThreshold(NAN, 1e-6) == -1);
	CHECK(MrfStableModeThreshold(1.0, 0.0) == -1);
	CHECK(MrfStableModeThreshold(1.0, 1.0) == -1);
	CHECK(isnan(MrfStableModeLeak(-1.0, 0.1)));
	CHECK(MrfStructureDefaultBlocks(1.0, 2.0) == -1);
}

/* ---- the mechanism on synthetic histograms ---- */

#define MAX_CANDIDATES 8

/* P(c + Z = v) and P(c + Z < v). */
static double
NoisyPmf(double a, int64_t c, int64_t v)
{
	return tanh(a / 2.0) * exp(-a * fabs((double) (v - c)));
}

static double
NoisyBelow(double a, int64_t c, int64_t v)
{
	return 1.0 - DiscreteLaplaceAtLeast(a, v - c);
}

/*
 * The exact output law of the stable mode with rate a and threshold tau on
 * counts[0..k-1]: prob[g] = P(g released), prob[k] = P(none).  For g and
 * each value v >= tau, the others must lie below v or tie at v; with T ties
 * g wins with 1/(1+T), and E[1/(1+T)] = int_0^1 prod_h (P(X_h < v) +
 * P(X_h = v) s) ds, integrated term by term.  Values beyond 80/a of a
 * count are below e^-80 and ignored.
 */
static void
ExactModeLaw(const int64_t *counts, int k, double a, int64_t tau, double *prob)
{
	int64_t		span = (int64_t) ceil(80.0 / a);
	double		none = 1.0;
	int			g;

	for (g = 0; g < k; g++)
	{
		int64_t		v;
		double		total = 0.0;

		for (v = tau > counts[g] - span ? tau : counts[g] - span; v <= counts[g] + span; v++)
		{
			double		poly[MAX_CANDIDATES + 1];
			double		integral = 0.0;
			int			deg = 0;
			int			h;
			int			e;

			poly[0] = 1.0;
			for (h = 0; h < k; h++)
			{
				double		lo;
				double		eq;

				if (h == g)
					continue;
				lo = NoisyBelow(a, counts[h], v);
				eq = NoisyPmf(a, counts[h], v);
				poly[deg + 1] = 0.0;
				for (e = deg + 1; e >= 1; e--)
					poly[e] = poly[e] * lo + poly[e - 1] * eq;
				poly[0] *= lo;
				deg++;
			}
			for (e = 0; e <= deg; e++)
				integral += poly[e] / (e + 1);
			total += NoisyPmf(a, counts[g], v) * integral;
		}
		prob[g] = total;
		none *= NoisyBelow(a, counts[g], tau);
	}
	prob[k] = none;
}

/*
 * A histogram over named graphs: names[g] identifies the graph of
 * counts[g], so that neighbouring histograms can share graphs.
 */
typedef struct NamedHist
{
	int			k;
	int			names[MAX_CANDIDATES];
	int64_t		counts[MAX_CANDIDATES];
} NamedHist;

#define MAX_NAMES 8				/* graph names 0..7; name 8 is "none" */

/* The exact law of a named histogram as a law over names (and none). */
static void
NamedLaw(const NamedHist *h, double a, int64_t tau, double *law)
{
	double		prob[MAX_CANDIDATES + 1];
	int			g;

	memset(law, 0, sizeof(double) * (MAX_NAMES + 1));
	ExactModeLaw(h->counts, h->k, a, tau, prob);
	for (g = 0; g < h->k; g++)
		law[h->names[g]] += prob[g];
	law[MAX_NAMES] += prob[h->k];
}

/*
 * The smallest delta with P_D(S) <= e^eps P_D'(S) + delta for every set S
 * of outcomes: the worst S collects the outcomes where P_D exceeds
 * e^eps P_D'.
 */
static double
PrivacyExcess(const double *law_d, const double *law_e, double epsilon)
{
	double		excess = 0.0;
	int			o;

	for (o = 0; o <= MAX_NAMES; o++)
	{
		double		gap = law_d[o] - exp(epsilon) * law_e[o];

		if (gap > 0.0)
			excess += gap;
	}
	return excess;
}

/*
 * One release per trial through MrfStableModeSelect, tallied by name,
 * against the exact law by chi-square over the outcomes expected at least
 * 5 times (the rest pooled).
 */
static void
CheckAgainstExact(const NamedHist *h, double epsilon, double delta, long trials,
				  MrfRng *rng, const char *what)
{
	long		observed[MAX_NAMES + 1];
	long		obs_cells[MAX_NAMES + 2];
	double		law[MAX_NAMES + 1];
	double		cells[MAX_NAMES + 2];
	double		stat;
	double		pvalue;
	int			ncells = 0;
	long		pooled_obs = 0;
	double		pooled_p = 0.0;
	long		t;
	int			o;

	NamedLaw(h, NoiseRate(epsilon), MrfStableModeThreshold(epsilon, delta), law);
	memset(observed, 0, sizeof(observed));
	for (t = 0; t < trials; t++)
	{
		int			winner = -2;

		if (MrfStableModeSelect(h->counts, h->k, epsilon, delta, rng, &winner) != MRF_OK)
		{
			CHECK_MSG(0, "%s: selection failed", what);
			return;
		}
		observed[winner < 0 ? MAX_NAMES : h->names[winner]]++;
	}
	for (o = 0; o <= MAX_NAMES; o++)
	{
		if (law[o] * trials >= 5.0)
		{
			cells[ncells] = law[o];
			obs_cells[ncells++] = observed[o];
		}
		else
		{
			pooled_p += law[o];
			pooled_obs += observed[o];
		}
	}
	if (pooled_p * trials >= 5.0)
	{
		cells[ncells] = pooled_p;
		obs_cells[ncells++] = pooled_obs;
	}
	else
		CHECK_MSG(pooled_obs <= 10 + (long) (20 * pooled_p * trials),
				  "%s: %ld releases of outcomes of total probability %.2g", what,
				  pooled_obs, pooled_p);
	stat = ChiSquareStatistic(obs_cells, cells, ncells, trials);
	pvalue = ncells > 1 ? ChiSquareSurvival(stat, ncells - 1) : 1.0;
	CHECK_MSG(pvalue > 1e-4, "%s: chi-square %.2f over %d cells, p = %.2g", what, stat,
			  ncells, pvalue);
}

/*
 * The selection against its exact law, thresholds (a count of exactly tau
 * survives with P(Z >= 0)), the singleton leak at a measurable delta, and
 * a clear mode.
 */
static void
TestModeMechanism(void)
{
	MrfRng		rng;
	const double eps = 1.0;
	const double big_delta = 0.05;	/* tau = 7, leak 0.031 */
	int64_t		tau = MrfStableModeThreshold(eps, big_delta);
	double		a = NoiseRate(eps);
	NamedHist	h;
	int64_t		one = 1;
	int64_t		many[20];
	long		leaks = 0;
	long		any = 0;
	long		failures = 0;
	long		t;
	int			winner;
	int			g;
	const long	trials = 100000;

	MrfRngInitSeeded(&rng, 5001);

	/* a near-threshold histogram with a singleton, against the exact law */
	memset(&h, 0, sizeof(h));
	h.k = 3;
	h.names[0] = 0;
	h.counts[0] = tau + 1;
	h.names[1] = 1;
	h.counts[1] = tau;
	h.names[2] = 2;
	h.counts[2] = 1;
	CheckAgainstExact(&h, eps, big_delta, 40000, &rng, "near threshold");

	/* a lone count at tau survives exactly with P(Z >= 0) = 1/(1 + e^-a) */
	h.k = 1;
	h.counts[0] = tau;
	CheckAgainstExact(&h, eps, big_delta, 40000, &rng, "count at tau");
	{
		double		law[MAX_NAMES + 1];

		NamedLaw(&h, a, tau, law);
		CHECK_NEAR(law[0], 1.0 / (1.0 + exp(-a)), 1e-9);
	}

	/* three-way exact ties at a large epsilon: the tie rule is uniform */
	h.k = 3;
	h.counts[0] = h.counts[1] = h.counts[2] = 200;
	CheckAgainstExact(&h, 60.0, 1e-6, 30000, &rng, "three-way tie");

	/* a graph seen in one block only: released with probability <= delta */
	for (t = 0; t < trials; t++)
	{
		failures += MrfStableModeSelect(&one, 1, eps, big_delta, &rng, &winner) != MRF_OK;
		leaks += winner == 0;
	}
	{
		double		leak = MrfStableModeLeak(eps, big_delta);
		double		sd = sqrt(leak * (1 - leak) / trials);
		double		rate = (double) leaks / trials;

		CHECK_MSG(fabs(rate - leak) < 5 * sd && rate < big_delta,
				  "singleton released at rate %.4f, leak %.4f, delta %.2f", rate, leak,
				  big_delta);
		printf("# stable mode: singleton released %.4f (exact %.4f, delta %.2f)\n",
			   rate, leak, big_delta);
	}

	/* twenty singletons (no agreement at all): each leaks independently */
	for (g = 0; g < 20; g++)
		many[g] = 1;
	for (t = 0; t < 20000; t++)
	{
		failures += MrfStableModeSelect(many, 20, eps, big_delta, &rng, &winner) != MRF_OK;
		any += winner >= 0;
	}
	{
		double		pr = 1.0 - pow(1.0 - MrfStableModeLeak(eps, big_delta), 20);
		double		sd = sqrt(pr * (1 - pr) / 20000);

		CHECK_MSG(fabs((double) any / 20000 - pr) < 5 * sd,
				  "20 singletons: something released at rate %.4f, expected %.4f",
				  (double) any / 20000, pr);
	}

	/* a clear mode at the default calibration: 60 of 94 blocks */
	{
		int64_t		clear[5] = {3, 60, 20, 1, 10};
		long		wins = 0;

		for (t = 0; t < 2000; t++)
		{
			failures += MrfStableModeSelect(clear, 5, 1.0, 1e-6, &rng, &winner) != MRF_OK;
			wins += winner == 1;
		}
		CHECK_MSG(wins == 2000, "clear mode released %ld of 2000 times", wins);
	}
	CHECK_MSG(failures == 0, "%ld selections failed", failures);

	/* invalid input */
	{
		int64_t		zero = 0;

		CHECK(MrfStableModeSelect(&zero, 1, eps, big_delta, &rng, &winner) == MRF_EINVAL);
		CHECK(MrfStableModeSelect(&one, 1, 0.0, big_delta, &rng, &winner) == MRF_EINVAL);
		CHECK(MrfStableModeSelect(&one, 1, eps, 1.0, &rng, &winner) == MRF_EINVAL);
		CHECK(MrfStableModeSelect(NULL, 0, eps, big_delta, &rng, &winner) == MRF_OK &&
			  winner == -1);
	}
}

/*
 * (epsilon, delta) on neighbouring histograms, computed exactly: one block
 * moves from one graph to another in every way the proof distinguishes
 * (both graphs seen elsewhere, a new graph on one side, on the other, on
 * both).  Both directions of the inequality, at two calibrations; and a
 * threshold one lower than ours must break it (so the check can fail).
 */
static void
TestNeighbouringHistograms(void)
{
	const double eps_list[] = {1.0, 0.5};
	const double del_list[] = {0.05, 1e-6};
	size_t		c;

	for (c = 0; c < 2; c++)
	{
		double		eps = eps_list[c];
		double		delta = del_list[c];
		int64_t		tau = MrfStableModeThreshold(eps, delta);
		double		a = NoiseRate(eps);
		/* pairs (D, D'): names 0..5 are graphs */
		NamedHist	pairs[5][2] = {
			/* both graphs seen elsewhere */
			{{2, {0, 1}, {tau, tau - 1}}, {2, {0, 1}, {tau - 1, tau}}},
			/* a new graph in D; in D' that block agrees with graph 1 */
			{{3, {0, 1, 2}, {tau, tau - 1, 1}}, {2, {0, 1}, {tau, tau}}},
			/* new graphs on both sides */
			{{2, {0, 3}, {tau, 1}}, {2, {0, 4}, {tau, 1}}},
			/* a new graph next to a lone mode */
			{{2, {0, 5}, {tau - 1, 1}}, {1, {0}, {tau}}},
			/* a singleton against nothing at all */
			{{1, {2}, {1}}, {1, {3}, {1}}},
		};
		double		worst = 0.0;
		size_t		k;

		for (k = 0; k < 5; k++)
		{
			double		law_d[MAX_NAMES + 1];
			double		law_e[MAX_NAMES + 1];
			double		x1;
			double		x2;

			NamedLaw(&pairs[k][0], a, tau, law_d);
			NamedLaw(&pairs[k][1], a, tau, law_e);
			x1 = PrivacyExcess(law_d, law_e, eps);
			x2 = PrivacyExcess(law_e, law_d, eps);
			CHECK_MSG(x1 <= delta && x2 <= delta,
					  "pair %zu at (%g, %g): excess %.3g / %.3g over delta", k, eps,
					  delta, x1, x2);
			worst = fmax(worst, fmax(x1, x2));
		}
		/* the singleton pair is tight: its excess is the leak itself */
		CHECK(worst >= 0.99 * MrfStableModeLeak(eps, delta));

		/* negative control: tau - 1 leaks more than delta */
		{
			double		law_d[MAX_NAMES + 1];
			double		law_e[MAX_NAMES + 1];

			NamedLaw(&pairs[4][0], a, tau - 1, law_d);
			NamedLaw(&pairs[4][1], a, tau - 1, law_e);
			CHECK_MSG(PrivacyExcess(law_d, law_e, eps) > delta,
					  "a threshold of tau - 1 = %lld passed the check", (long long) (tau - 1));
		}
		/* negative control: noise of half the scale breaks pair 0 */
		{
			double		law_d[MAX_NAMES + 1];
			double		law_e[MAX_NAMES + 1];

			NamedLaw(&pairs[0][0], 2 * a, tau, law_d);
			NamedLaw(&pairs[0][1], 2 * a, tau, law_e);
			CHECK(PrivacyExcess(law_d, law_e, eps) > delta);
		}
	}
}

/* ---- blocks cut per shard (privacy.md 7.3) ---- */

/* Worked per-shard thresholds at delta = 1e-6 (one-node: 54, 28, 15, 5). */
#define SHARD_TAU_05_1E6 118
#define SHARD_TAU_1_1E6 60
#define SHARD_TAU_2_1E6 31
#define SHARD_TAU_8_1E6 10

/* The rate a = den/num of the per-shard noise. */
static double
ShardNoiseRate(double epsilon)
{
	uint64_t	num;
	uint64_t	den;

	if (MrfStableShardNoise(epsilon, &num, &den) != 0)
		return NAN;
	return (double) den / (double) num;
}

/*
 * The per-shard calibration: scale at least 4/epsilon (and barely more),
 * tau >= 3 with the leak max(P(2 + Z >= tau), 2 P(1 + Z >= tau)) at most
 * delta/2 and tau minimal for it; worked values; invalid input refused.
 */
static void
TestShardCalibration(void)
{
	const double eps[] = {1e-3, 0.1, 0.5, 1.0, 2.0, 3.0, 8.0, 50.0};
	const double del[] = {1e-9, 1e-6, 1e-3, 0.05, 0.4};
	uint64_t	num;
	uint64_t	den;

	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
	{
		double		a = ShardNoiseRate(eps[i]);

		CHECK(MrfStableShardNoise(eps[i], &num, &den) == 0);
		CHECK_MSG((double) num * eps[i] >= 4.0 * (double) den,
				  "scale %llu/%llu below 4/%g", (unsigned long long) num,
				  (unsigned long long) den, eps[i]);
		CHECK((double) num < 4.0 / eps[i] * (double) den + 2.0);
		for (size_t j = 0; j < sizeof(del) / sizeof(del[0]); j++)
		{
			int64_t		tau = MrfStableShardThreshold(eps[i], del[j]);
			double		leak = MrfStableShardLeak(eps[i], del[j]);
			double		two = DiscreteLaplaceAtLeast(a, tau - 2);
			double		ones = 2.0 * DiscreteLaplaceAtLeast(a, tau - 1);

			CHECK_MSG(tau >= 3, "tau %lld below 3", (long long) tau);
			CHECK_MSG(leak <= del[j] / 2, "leak %.3g > delta/2 at (%g, %g)", leak, eps[i], del[j]);
			CHECK_NEAR(leak, fmax(two, ones), 1e-12 * del[j]);
			/* never below the one-node threshold: more noise, more mass on one side */
			CHECK(tau >= MrfStableModeThreshold(eps[i], del[j]));
			/* minimal: one less leaks more than delta/2 (or falls under 3) */
			CHECK_MSG(tau == 3 || fmax(DiscreteLaplaceAtLeast(a, tau - 3),
									  2.0 * DiscreteLaplaceAtLeast(a, tau - 2)) > del[j] / 2,
					  "tau %lld not minimal at (%g, %g)", (long long) tau, eps[i], del[j]);
		}
	}
	/* worked values (privacy.md 7.3) */
	CHECK(MrfStableShardThreshold(1.0, 1e-6) == SHARD_TAU_1_1E6);
	CHECK(MrfStableShardThreshold(0.5, 1e-6) == SHARD_TAU_05_1E6);
	CHECK(MrfStableShardThreshold(2.0, 1e-6) == SHARD_TAU_2_1E6);
	CHECK(MrfStableShardThreshold(8.0, 1e-6) == SHARD_TAU_8_1E6);
	CHECK(MrfStructureDefaultBlocksShards(1.0, 1e-6) ==
		  (int) ceil(2.0 * SHARD_TAU_1_1E6 / 0.6 - 1e-9));
	CHECK(MrfStableShardNoise(0.0, &num, &den) == -1);
	CHECK(MrfStableShardThreshold(0.0, 1e-6) == -1);
	CHECK(MrfStableShardThreshold(NAN, 1e-6) == -1);
	CHECK(MrfStableShardThreshold(1.0, 0.0) == -1);
	CHECK(MrfStableShardThreshold(1.0, 1.0) == -1);
	CHECK(isnan(MrfStableShardLeak(-1.0, 0.1)));
	CHECK(MrfStructureDefaultBlocksShards(1.0, 2.0) == -1);
}

/*
 * (epsilon, delta) on histograms whose blocks differ in TWO blocks (a row
 * moved between shards), computed exactly with the per-shard calibration:
 * both graphs seen elsewhere (L1 4), a new graph of count 2 or two of
 * count 1 on one side, new graphs on both sides, singletons against
 * nothing.  Negative control: the one-node calibration (scale 2/epsilon,
 * its tau) breaks the inequality on the same pairs, so the check can fail.
 */
static void
TestShardNeighbouringHistograms(void)
{
	const double eps_list[] = {1.0, 0.5, 4.0};
	const double del_list[] = {0.05, 1e-6, 1e-3};

	for (size_t c = 0; c < 3; c++)
	{
		double		eps = eps_list[c];
		double		delta = del_list[c];
		int64_t		tau = MrfStableShardThreshold(eps, delta);
		double		a = ShardNoiseRate(eps);
		NamedHist	pairs[7][2] = {
			/* two blocks move from graph 0 to graph 1, both seen elsewhere */
			{{2, {0, 1}, {tau, tau - 2}}, {2, {0, 1}, {tau - 2, tau}}},
			/* a new graph of count 2 in D; in D' both blocks agree with graph 0 */
			{{2, {0, 2}, {tau - 1, 2}}, {1, {0}, {tau + 1}}},
			/* two new graphs of count 1 in D */
			{{3, {0, 2, 3}, {tau, 1, 1}}, {1, {0}, {tau + 2}}},
			/* new graphs of count 2 on both sides */
			{{2, {0, 2}, {tau, 2}}, {2, {0, 3}, {tau, 2}}},
			/* one block new on each side, the other moves between seen graphs */
			{{3, {0, 1, 2}, {tau, tau - 1, 1}}, {3, {0, 1, 3}, {tau - 1, tau, 1}}},
			/* singletons of count 2 against nothing else */
			{{1, {2}, {2}}, {1, {3}, {2}}},
			/* two singletons against two others */
			{{2, {2, 3}, {1, 1}}, {2, {4, 5}, {1, 1}}},
		};
		double		worst = 0.0;
		double		worst_one_node = 0.0;
		double		a1 = NoiseRate(eps);
		int64_t		tau1 = MrfStableModeThreshold(eps, delta);

		for (size_t k = 0; k < 7; k++)
		{
			double		law_d[MAX_NAMES + 1];
			double		law_e[MAX_NAMES + 1];
			double		x1;
			double		x2;

			NamedLaw(&pairs[k][0], a, tau, law_d);
			NamedLaw(&pairs[k][1], a, tau, law_e);
			x1 = PrivacyExcess(law_d, law_e, eps);
			x2 = PrivacyExcess(law_e, law_d, eps);
			CHECK_MSG(x1 <= delta && x2 <= delta,
					  "shard pair %zu at (%g, %g): excess %.3g / %.3g over delta", k, eps,
					  delta, x1, x2);
			worst = fmax(worst, fmax(x1, x2));
		}
		/* the lone count-2 graph's excess is its leak: not slack by orders */
		CHECK(worst >= 0.5 * DiscreteLaplaceAtLeast(a, tau - 2));

		/* negative control: the one-node calibration on moved rows */
		for (size_t k = 0; k < 7; k++)
		{
			NamedHist	d = pairs[k][0];
			NamedHist	e = pairs[k][1];
			double		law_d[MAX_NAMES + 1];
			double		law_e[MAX_NAMES + 1];

			/* the same shapes around the one-node threshold */
			for (int g = 0; g < d.k; g++)
				d.counts[g] += tau1 - tau;
			for (int g = 0; g < e.k; g++)
				e.counts[g] += tau1 - tau;
			if (k >= 1)
			{
				d = pairs[k][0];
				e = pairs[k][1];
				for (int g = 0; g < d.k; g++)
					if (d.counts[g] > 2)
						d.counts[g] += tau1 - tau;
				for (int g = 0; g < e.k; g++)
					if (e.counts[g] > 2)
						e.counts[g] += tau1 - tau;
			}
			NamedLaw(&d, a1, tau1, law_d);
			NamedLaw(&e, a1, tau1, law_e);
			worst_one_node = fmax(worst_one_node, fmax(PrivacyExcess(law_d, law_e, eps),
													   PrivacyExcess(law_e, law_d, eps)));
		}
		CHECK_MSG(worst_one_node > delta,
				  "the one-node calibration passed two-block pairs at (%g, %g): %.3g",
				  eps, delta, worst_one_node);
	}
}

/* ---- models and data ---- */

/* Sets A_ij = A_ji = c. */
static void
SetEdge(double *A, int p, int i, int j, double c)
{
	A[i * p + j] = c;
	A[j * p + i] = c;
}

typedef struct TestModel
{
	const char *name;
	int			p;
	double		eta;			/* the smallest |A_ij| of an edge */
	double		lambda;			/* a width bound */
	int64_t		block_rows;		/* rows per block in the end-to-end test */
	double		A[16 * 16];
	double		theta[16];
} TestModel;

/*
 * Chain of 10 (coupling 0.5, fields +-0.1: width 1.1), 4 x 4 grid
 * (couplings +-0.3, width 1.2), star of a centre and 8 leaves (couplings
 * +-0.25, centre width 2).  Block sizes: where the block learner alone found
 * the exact graph in 50 of 50 blocks during development (chain 300, grid
 * 1000, star 800; at two thirds of these it still does in about 90%).
 */
static void
BuildModel(int which, TestModel *m)
{
	int			i;

	memset(m, 0, sizeof(*m));
	if (which == 0)
	{
		m->name = "chain";
		m->p = 10;
		m->eta = 0.5;
		m->lambda = 1.1;
		m->block_rows = 300;
		for (i = 0; i + 1 < m->p; i++)
			SetEdge(m->A, m->p, i, i + 1, 0.5);
		for (i = 0; i < m->p; i++)
			m->theta[i] = i % 2 ? 0.1 : -0.1;
	}
	else if (which == 1)
	{
		int			r;
		int			c;

		m->name = "grid";
		m->p = 16;
		m->eta = 0.3;
		m->lambda = 1.2;
		m->block_rows = 1000;
		for (r = 0; r < 4; r++)
			for (c = 0; c < 4; c++)
			{
				if (c + 1 < 4)
					SetEdge(m->A, 16, r * 4 + c, r * 4 + c + 1, 0.3);
				if (r + 1 < 4)
					SetEdge(m->A, 16, r * 4 + c, r * 4 + c + 4, (r + c) % 2 ? 0.3 : -0.3);
			}
	}
	else
	{
		m->name = "star";
		m->p = 9;
		m->eta = 0.25;
		m->lambda = 2.0;
		m->block_rows = 800;
		for (i = 1; i < m->p; i++)
			SetEdge(m->A, m->p, 0, i, i % 2 ? 0.25 : -0.25);
	}
}

/* The true graph of a model as a canonical structure. */
static void
TrueGraph(const TestModel *m, MrfStructure *s)
{
	int			i;
	int			j;

	MrfStructureInit(s, m->p);
	for (i = 0; i < m->p; i++)
		for (j = i + 1; j < m->p; j++)
			if (m->A[i * m->p + j] != 0.0)
				AddEdge(s, i, j);
	CHECK(MrfStructureCanonicalize(s, &MrfMallocEnv) == MRF_OK);
}

/* Exact samples (p <= 16 enumerates), packed into rows. */
static uint64_t *
DrawPacked(const TestModel *m, int64_t n, MrfRng *rng)
{
	int8_t	   *z = malloc((size_t) n * m->p);
	uint64_t   *bits = calloc((size_t) n, sizeof(uint64_t));
	int64_t		r;
	int			j;

	CHECK(MrfIsingSample(m->A, m->theta, m->p, n, 0, 1, rng, &MrfMallocEnv, z) == MRF_OK);
	for (r = 0; r < n; r++)
		for (j = 0; j < m->p; j++)
			if (z[r * m->p + j] > 0)
				MrfBitSet(bits + r, j);
	free(z);
	return bits;
}

/* ---- the non-private block learner ---- */

/*
 * A reference solver for one node: plain projected gradient with the
 * conservative step 4 / d (the Hessian is at most d / 4 for +-1 features),
 * sorting-based projection (Duchi et al. 2008, Fig. 1), many iterations.
 */
static int
CompareDescending(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void
ReferenceNode(const uint64_t *bits, int64_t n, int p, int node, double radius,
			  int iterations, double *w)
{
	int			d = p + 1;
	double	   *grad = calloc(d, sizeof(double));
	double	   *u = calloc(d, sizeof(double));
	int			it;
	int			j;

	memset(w, 0, sizeof(double) * d);
	for (it = 0; it < iterations; it++)
	{
		double		sum = 0.0;
		int64_t		r;

		memset(grad, 0, sizeof(double) * d);
		for (r = 0; r < n; r++)
		{
			double		y = MrfBitGet(bits + r, node) ? 1.0 : -1.0;
			double		a = w[p];
			double		gm;

			for (j = 0; j < p; j++)
				a += w[j] * (MrfBitGet(bits + r, j) ? 1.0 : -1.0);
			gm = -y / (1.0 + exp(y * a)) / n;
			for (j = 0; j < p; j++)
				grad[j] += gm * (MrfBitGet(bits + r, j) ? 1.0 : -1.0);
			grad[p] += gm;
		}
		for (j = 0; j < d; j++)
			w[j] -= grad[j] * 4.0 / d;
		w[node] = 0.0;
		for (j = 0; j < d; j++)
			sum += fabs(w[j]);
		if (sum > radius)
		{
			double		cum = 0.0;
			double		theta = 0.0;

			for (j = 0; j < d; j++)
				u[j] = fabs(w[j]);
			qsort(u, d, sizeof(double), CompareDescending);
			for (j = 0; j < d; j++)
			{
				cum += u[j];
				if (u[j] - (cum - radius) / (j + 1) > 0)
					theta = (cum - radius) / (j + 1);
			}
			for (j = 0; j < d; j++)
				w[j] = fabs(w[j]) > theta ? copysign(fabs(w[j]) - theta, w[j]) : 0.0;
		}
	}
	free(u);
	free(grad);
}

/*
 * The batched solver against the reference on a small problem where the
 * constraint is active, the certified gap, a tighter tolerance moving the
 * weights by little, and the edge rules on hand-made estimates.
 */
static void
TestSolverAndRules(void)
{
	TestModel	m;
	MrfRng		rng;
	uint64_t   *bits;
	const int64_t n = 400;
	double	   *w;
	double	   *w_tight;
	double		ref[17];
	MrfLogregStats st;
	double		worst = 0.0;
	double		moved = 0.0;
	double		l1 = 0.0;
	int			node;
	int			j;

	BuildModel(0, &m);
	MrfRngInitSeeded(&rng, 6001);
	bits = DrawPacked(&m, n, &rng);
	w = calloc((size_t) m.p * (m.p + 1), sizeof(double));
	w_tight = calloc((size_t) m.p * (m.p + 1), sizeof(double));

	/* radius 1.0 < the true 2 (|A_i.| + |theta_i|): the constraint binds */
	CHECK(MrfIsingNodeRegressions(bits, n, m.p, 1.0, 0, 0, &MrfMallocEnv, w, &st) == MRF_OK);
	CHECK_MSG(st.unconverged == 0 && st.max_gap <= MRF_LOGREG_TOLERANCE,
			  "unconverged %d, gap %.3g", st.unconverged, st.max_gap);
	CHECK(MrfIsingNodeRegressions(bits, n, m.p, 1.0, 1e-12, 0, &MrfMallocEnv, w_tight,
								  &st) == MRF_OK);
	CHECK(st.unconverged == 0 && st.max_gap <= 1e-12);
	for (node = 0; node < m.p; node++)
	{
		ReferenceNode(bits, n, m.p, node, 1.0, 4000, ref);
		for (j = 0; j <= m.p; j++)
		{
			worst = fmax(worst, fabs(ref[j] - w_tight[node * (m.p + 1) + j]));
			moved = fmax(moved, fabs(w[node * (m.p + 1) + j] - w_tight[node * (m.p + 1) + j]));
		}
		CHECK(w[node * (m.p + 1) + node] == 0.0);
	}
	for (j = 0; j <= m.p; j++)
		l1 += fabs(w[j]);
	CHECK_MSG(worst < 1e-4, "solver and reference differ by %.3g", worst);
	CHECK_MSG(moved < 5e-3, "tolerance 1e-7 is %.3g from the 1e-12 optimum", moved);
	CHECK_NEAR(l1, 1.0, 1e-9);
	printf("# structure solver: |w - reference| %.2g, |w(1e-7) - w(1e-12)| %.2g\n",
		   worst, moved);

	/* the cap stops early without an error and says so */
	CHECK(MrfIsingNodeRegressions(bits, n, m.p, 1.0, 1e-14, 3, &MrfMallocEnv, w, &st) == MRF_OK);
	CHECK(st.unconverged > 0 && st.iterations <= 3);
	CHECK(MrfIsingNodeRegressions(bits, n, 1, 1.0, 0, 0, &MrfMallocEnv, w, &st) == MRF_EINVAL);
	CHECK(MrfIsingNodeRegressions(bits, n, m.p, 0.0, 0, 0, &MrfMallocEnv, w, &st) == MRF_EINVAL);
	/* the block learners' radius, which the glue checks before charging */
	CHECK(MrfStructureBlockRadius(1.0, 1) == 2.0);
	CHECK(MrfStructureBlockRadius(0.5, 3) == 3.0);
	CHECK(isnan(MrfStructureBlockRadius(1e308, 1)));
	CHECK(isnan(MrfStructureBlockRadius(1e306, 255)));
	CHECK(isnan(MrfStructureBlockRadius(0.0, 1)));
	CHECK(isnan(MrfStructureBlockRadius(NAN, 1)));

	/* rules: A_01 = 0.3, A_10 = 0.1 (eta/2 = 0.2); A_12 = A_21 = -0.2 */
	{
		double		A[9] = {0, 0.3, 0, 0.1, 0, -0.2, 0, -0.2, 0};
		MrfStructure s;

		MrfStructureInit(&s, 3);
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.4, MRF_EDGE_AVERAGE, &MrfMallocEnv, &s) == MRF_OK);
		CHECK(s.nitems == 2 && MrfStructureHasEdge(&s, 0, 1) && MrfStructureHasEdge(&s, 1, 2));
		MrfStructureFree(&s, &MrfMallocEnv);
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.4, MRF_EDGE_AND, &MrfMallocEnv, &s) == MRF_OK);
		CHECK(s.nitems == 1 && MrfStructureHasEdge(&s, 1, 2));
		MrfStructureFree(&s, &MrfMallocEnv);
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.4, MRF_EDGE_OR, &MrfMallocEnv, &s) == MRF_OK);
		CHECK(s.nitems == 2);
		MrfStructureFree(&s, &MrfMallocEnv);
		/* A_01 = 0.3, A_10 = 0.05: average 0.175 < 0.2, OR still takes it */
		A[3] = 0.05;
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.4, MRF_EDGE_AVERAGE, &MrfMallocEnv, &s) == MRF_OK);
		CHECK(s.nitems == 1 && !MrfStructureHasEdge(&s, 0, 1));
		MrfStructureFree(&s, &MrfMallocEnv);
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.4, MRF_EDGE_OR, &MrfMallocEnv, &s) == MRF_OK);
		CHECK(MrfStructureHasEdge(&s, 0, 1));
		MrfStructureFree(&s, &MrfMallocEnv);
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.0, MRF_EDGE_OR, &MrfMallocEnv, &s) == MRF_EINVAL);
		CHECK(MrfIsingEdgesFromWeights(A, 3, 0.4, (MrfEdgeRule) 7, &MrfMallocEnv, &s) ==
			  MRF_EINVAL);
	}
	free(w_tight);
	free(w);
	free(bits);
}

/*
 * The block learner alone, at the block size each end-to-end test uses
 * with the default m: the exact graph in at least 18 of 20 fresh blocks,
 * and a useless size (a twentieth) in at most 2 (so the check can fail).
 */
static void
TestBlockLearner(void)
{
	int			which;

	for (which = 0; which < 3; which++)
	{
		TestModel	m;
		MrfStructure truth;
		MrfIsingBlockOptions opt;
		MrfRng		rng;
		uint64_t   *bits;
		int			hits = 0;
		int			small_hits = 0;
		int			r;

		BuildModel(which, &m);
		TrueGraph(&m, &truth);
		memset(&opt, 0, sizeof(opt));
		opt.p = m.p;
		opt.eta = m.eta;
		opt.lambda = m.lambda;
		opt.rule = MRF_EDGE_AVERAGE;
		MrfRngInitSeeded(&rng, 7000 + which);
		bits = DrawPacked(&m, 20 * m.block_rows, &rng);
		for (r = 0; r < 20; r++)
		{
			MrfStructure s;

			MrfStructureInit(&s, m.p);
			CHECK(MrfIsingBlockLearn(&opt, bits + r * m.block_rows, m.block_rows,
									 &MrfMallocEnv, &s) == MRF_OK);
			hits += MrfStructureEqual(&s, &truth);
			MrfStructureFree(&s, &MrfMallocEnv);

			MrfStructureInit(&s, m.p);
			CHECK(MrfIsingBlockLearn(&opt, bits + r * m.block_rows, m.block_rows / 20,
									 &MrfMallocEnv, &s) == MRF_OK);
			small_hits += MrfStructureEqual(&s, &truth);
			MrfStructureFree(&s, &MrfMallocEnv);
		}
		CHECK_MSG(hits >= 18, "%s: block learner exact in %d of 20 blocks of %lld rows",
				  m.name, hits, (long long) m.block_rows);
		CHECK_MSG(small_hits <= 2, "%s: exact in %d of 20 blocks of %lld rows", m.name,
				  small_hits, (long long) (m.block_rows / 20));
		MrfStructureFree(&truth, &MrfMallocEnv);
		free(bits);
	}
}

/* ---- the release ---- */

/*
 * End to end at (1, 1e-6), default m = 94: exact recovery of each model
 * with 94 blocks of block_rows, two seeds each; the memory declared is the
 * peak, every allocation is returned, and progress reaches its total.
 */
static void
TestEndToEnd(void)
{
	MrfStructureOptions opt;
	int			which;

	memset(&opt, 0, sizeof(opt));
	opt.epsilon = 1.0;
	opt.delta = 1e-6;
	for (which = 0; which < 3; which++)
	{
		TestModel	m;
		MrfStructure truth;
		int			seed;

		BuildModel(which, &m);
		TrueGraph(&m, &truth);
		for (seed = 0; seed < 2; seed++)
		{
			int			mblocks = MrfStructureDefaultBlocks(opt.epsilon, opt.delta);
			int64_t		n = mblocks * m.block_rows;
			MrfRng		rng;
			MrfStructure s;
			CountingEnv ce;
			MrfEnv		env;
			uint64_t   *bits;
			int			released = -1;

			MrfRngInitSeeded(&rng, 8000 + 10 * which + seed);
			bits = DrawPacked(&m, n, &rng);
			CountingEnvInit(&ce, &env);
			MrfStructureInit(&s, m.p);
			CHECK(MrfStructureLearnIsing(bits, n, m.p, m.eta, m.lambda, &opt, &rng, &env,
										 &s, &released) == MRF_OK);
			CHECK_MSG(released == 1 && MrfStructureEqual(&s, &truth),
					  "%s seed %d: released %d, %d edges (true %d)", m.name, seed, released,
					  s.nitems, truth.nitems);
			CHECK(ce.polls >= mblocks && ce.last_done == ce.last_total);
			MrfStructureFree(&s, &env);
			CHECK(ce.live == 0 && ce.allocs == ce.frees);
			CHECK_MSG(ce.peak <= MrfStructureIsingWorkspaceBytes(m.p, n, mblocks),
					  "peak %zu above the declared %zu", ce.peak,
					  MrfStructureIsingWorkspaceBytes(m.p, n, mblocks));
			free(bits);
		}
		MrfStructureFree(&truth, &MrfMallocEnv);
	}
}

/* What a host saw of a stable-mode release's progress. */
typedef struct PollTrace
{
	int64_t		blocks;
	int64_t		prev;
	long		polls;
	long		bad;			/* polls not in whole blocks, or going back */
} PollTrace;

/* Records one poll of the release. */
static void
TracePoll(void *ctx, int64_t done, int64_t total)
{
	PollTrace  *t = ctx;

	t->polls++;
	if (total != t->blocks || done < t->prev || done > total)
		t->bad++;
	t->prev = done;
}

/*
 * The host sees the stable mode's progress in whole blocks only: the block
 * solvers' own figures (how fast their regressions converge) depend on the
 * data, and hosts show progress to other sessions.
 */
/*
 * Blocks cut where the rows are (privacy.md 7.3): the rows of a chain over
 * 3 "shards" of unequal sizes (a hash of the row number), each row to an
 * independent uniform block of its shard, each block shuffled and learned
 * alone, the structures selected with the per-shard calibration: the true
 * graph, two seeds.  An empty block and a block below the learner's minimum
 * abstain; a block's structure does not depend on the order of its rows
 * (the same rows reversed give the same graph here).
 */
static void
TestShardsEndToEnd(void)
{
	TestModel	m;
	MrfStructure truth;
	MrfIsingBlockOptions iopt;
	MrfBlockLearner learner;
	const int	nshards = 3;

	BuildModel(0, &m);
	TrueGraph(&m, &truth);
	memset(&iopt, 0, sizeof(iopt));
	iopt.p = m.p;
	iopt.eta = m.eta;
	iopt.lambda = m.lambda;
	iopt.rule = MRF_EDGE_AVERAGE;
	MrfIsingBlockLearner(&iopt, &learner);
	for (int seed = 0; seed < 2; seed++)
	{
		int			mtotal = MrfStructureDefaultBlocksShards(1.0, 1e-6);
		int			b = (mtotal + nshards - 1) / nshards;
		int64_t		n = (int64_t) mtotal * m.block_rows;
		size_t		words = (size_t) MrfBitWords(m.p);
		MrfRng		rng;
		uint64_t   *bits;
		uint64_t   *blockrows = malloc(sizeof(uint64_t) * words * (size_t) n);
		int64_t    *fill = calloc((size_t) nshards * b, sizeof(int64_t));
		int64_t    *start = calloc((size_t) nshards * b + 1, sizeof(int64_t));
		unsigned char *which = malloc((size_t) n);
		int		   *blk = malloc(sizeof(int) * (size_t) n);
		MrfStructure *structs = calloc((size_t) nshards * b, sizeof(MrfStructure));
		MrfStructure out;
		int			nstructs = 0;
		int			released = -1;

		MrfRngInitSeeded(&rng, 9100 + seed);
		bits = DrawPacked(&m, n, &rng);
		for (int64_t r = 0; r < n; r++)
		{
			/* unequal shards: about 1/2, 1/3, 1/6 of the rows */
			uint64_t	h = (uint64_t) r * 0x9E3779B97F4A7C15ULL >> 61;
			int			shard = h < 4 ? 0 : (h < 7 ? 1 : 2);

			which[r] = (unsigned char) shard;
			blk[r] = shard * b + (int) MrfRngBelow(&rng, (uint64_t) b);
			fill[blk[r]]++;
		}
		for (int k = 0; k < nshards * b; k++)
			start[k + 1] = start[k] + fill[k];
		memset(fill, 0, sizeof(int64_t) * (size_t) nshards * b);
		for (int64_t r = 0; r < n; r++)
			memcpy(blockrows + words * (size_t) (start[blk[r]] + fill[blk[r]]++),
				   bits + words * (size_t) r, sizeof(uint64_t) * words);
		for (int k = 0; k < nshards * b; k++)
		{
			int			learned = -1;

			MrfStructureInit(&structs[nstructs], m.p);
			CHECK(MrfStructureLearnBlock(blockrows + words * (size_t) start[k], fill[k], &learner,
										 &rng, &MrfMallocEnv, &structs[nstructs],
										 &learned) == MRF_OK);
			if (learned)
				nstructs++;
		}
		MrfStructureInit(&out, m.p);
		CHECK(MrfStructureSelectShards(structs, nstructs, 1.0, 1e-6, &rng, &MrfMallocEnv,
									   &out, &released) == MRF_OK);
		CHECK_MSG(released == 1 && MrfStructureEqual(&out, &truth),
				  "shards seed %d: released %d, %d edges (true %d), %d blocks learned", seed,
				  released, out.nitems, truth.nitems, nstructs);
		MrfStructureFree(&out, &MrfMallocEnv);
		free(structs);
		free(blk);
		free(which);
		free(start);
		free(fill);
		free(blockrows);
		free(bits);
	}
	/* abstentions, and the order of a block's rows */
	{
		MrfRng		rng;
		MrfStructure a;
		MrfStructure c;
		int			learned = -1;
		int64_t		nb = 4 * m.block_rows;
		size_t		words = (size_t) MrfBitWords(m.p);
		uint64_t   *bits;
		uint64_t   *rev = malloc(sizeof(uint64_t) * words * (size_t) nb);

		MrfRngInitSeeded(&rng, 9200);
		bits = DrawPacked(&m, nb, &rng);
		MrfStructureInit(&a, m.p);
		CHECK(MrfStructureLearnBlock(NULL, 0, &learner, &rng, &MrfMallocEnv, &a, &learned) == MRF_OK);
		CHECK(learned == 0 && a.nitems == 0);
		learner.min_rows = 10;
		CHECK(MrfStructureLearnBlock(bits, 9, &learner, &rng, &MrfMallocEnv, &a, &learned) == MRF_OK);
		CHECK(learned == 0 && a.nitems == 0);
		learner.min_rows = 0;
		for (int64_t r = 0; r < nb; r++)
			memcpy(rev + words * (size_t) r, bits + words * (size_t) (nb - 1 - r),
				   sizeof(uint64_t) * words);
		CHECK(MrfStructureLearnBlock(bits, nb, &learner, &rng, &MrfMallocEnv, &a, &learned) == MRF_OK);
		CHECK(learned == 1);
		MrfStructureInit(&c, m.p);
		CHECK(MrfStructureLearnBlock(rev, nb, &learner, &rng, &MrfMallocEnv, &c, &learned) == MRF_OK);
		CHECK(learned == 1 && MrfStructureEqual(&a, &c) && MrfStructureEqual(&a, &truth));
		MrfStructureFree(&a, &MrfMallocEnv);
		MrfStructureFree(&c, &MrfMallocEnv);
		free(rev);
		free(bits);
	}
	MrfStructureFree(&truth, &MrfMallocEnv);
}

static void
TestProgressInBlocks(void)
{
	MrfStructureOptions opt;
	TestModel	m;
	MrfRng		rng;
	MrfStructure s;
	PollTrace	trace;
	MrfEnv		env = MrfMallocEnv;
	uint64_t   *bits;
	int			released = -1;
	int64_t		n;

	memset(&opt, 0, sizeof(opt));
	opt.epsilon = 1.0;
	opt.delta = 1e-6;
	opt.blocks = 12;
	BuildModel(0, &m);
	n = opt.blocks * m.block_rows;
	MrfRngInitSeeded(&rng, 8100);
	bits = DrawPacked(&m, n, &rng);
	memset(&trace, 0, sizeof(trace));
	trace.blocks = opt.blocks;
	env.poll = TracePoll;
	env.ctx = &trace;
	MrfStructureInit(&s, m.p);
	CHECK(MrfStructureLearnIsing(bits, n, m.p, m.eta, m.lambda, &opt, &rng, &env,
								 &s, &released) == MRF_OK);
	CHECK_MSG(trace.polls > opt.blocks && trace.bad == 0 && trace.prev == opt.blocks,
			  "%ld polls, %ld not in whole blocks of %d, last %lld", trace.polls, trace.bad,
			  opt.blocks, (long long) trace.prev);
	MrfStructureFree(&s, &env);
	free(bits);
}

/*
 * Far too few rows (a few per block, and one per block): no error, and
 * either nothing or some graph; n < m is refused (public values).  The
 * grid is used because its few-row blocks disagree.
 */
static void
TestTooFewRows(void)
{
	MrfStructureOptions opt;
	TestModel	m;
	MrfRng		rng;
	uint64_t   *bits;
	MrfStructure truth;
	int			mblocks;
	int			r;

	BuildModel(1, &m);
	TrueGraph(&m, &truth);
	memset(&opt, 0, sizeof(opt));
	opt.epsilon = 1.0;
	opt.delta = 1e-6;
	mblocks = MrfStructureDefaultBlocks(opt.epsilon, opt.delta);
	MrfRngInitSeeded(&rng, 9001);
	bits = DrawPacked(&m, 20 * mblocks, &rng);
	for (r = 0; r < 3; r++)
	{
		MrfStructure s;
		int			released = -1;
		int64_t		n = r == 0 ? mblocks : (r == 1 ? 5 * mblocks : 20 * mblocks);

		MrfStructureInit(&s, m.p);
		CHECK(MrfStructureLearnIsing(bits, n, m.p, m.eta, m.lambda, &opt, &rng,
									 &MrfMallocEnv, &s, &released) == MRF_OK);
		CHECK(released == 0 || released == 1);
		CHECK(released == 1 || s.nitems == 0);
		printf("# structure: grid, %lld rows per block: %s", (long long) (n / mblocks),
			   released ? "released" : "none");
		if (released)
			printf(" (%d edges, %d true)", s.nitems, truth.nitems);
		printf("\n");
		MrfStructureFree(&s, &MrfMallocEnv);
	}
	{
		MrfStructure s;
		int			released = -1;

		MrfStructureInit(&s, m.p);
		CHECK(MrfStructureLearnIsing(bits, mblocks - 1, m.p, m.eta, m.lambda, &opt, &rng,
									 &MrfMallocEnv, &s, &released) == MRF_EINVAL);
		CHECK(released == 0);
		opt.blocks = 10;
		CHECK(MrfStructureLearnIsing(bits, 10, m.p, m.eta, m.lambda, &opt, &rng,
									 &MrfMallocEnv, &s, &released) == MRF_OK);
		opt.blocks = -1;
		CHECK(MrfStructureLearnIsing(bits, 100, m.p, m.eta, m.lambda, &opt, &rng,
									 &MrfMallocEnv, &s, &released) == MRF_EINVAL);
		opt.blocks = 0;
		opt.epsilon = 0.0;
		CHECK(MrfStructureLearnIsing(bits, 100 * mblocks, m.p, m.eta, m.lambda, &opt, &rng,
									 &MrfMallocEnv, &s, &released) == MRF_EINVAL);
		opt.epsilon = 1.0;
		CHECK(MrfStructureLearnIsing(bits, 20 * mblocks, m.p, 0.0, m.lambda, &opt, &rng,
									 &MrfMallocEnv, &s, &released) == MRF_EINVAL);
		MrfStructureFree(&s, &MrfMallocEnv);
	}
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(bits);
}

/*
 * A plug-in learner over 8-byte row ids that records which block saw which
 * row, and answers with monomials (as a t-wise learner would): rows with id
 * below seen_limit vote for {0,1},{0,1,2} (unsorted, with a repeat), the
 * others for {3}.
 */
typedef struct TallyLearner
{
	int64_t    *seen;			/* per row id: how many blocks saw it */
	int64_t    *sizes;			/* per call: block size */
	int			calls;
	int64_t		split;
} TallyLearner;

static MrfStatus
TallyLearn(const void *arg, const void *rows, int64_t nrows, const MrfEnv *env,
		   MrfStructure *out)
{
	TallyLearner *tl = (TallyLearner *) arg;
	const int64_t *ids = rows;
	int64_t		below = 0;
	int64_t		r;
	const int32_t pair[2] = {1, 0};
	const int32_t triple[3] = {2, 0, 1};
	const int32_t single[1] = {3};
	MrfStatus	st = MRF_OK;

	for (r = 0; r < nrows; r++)
	{
		tl->seen[ids[r]]++;
		below += ids[r] < tl->split;
	}
	tl->sizes[tl->calls++] = nrows;
	if (2 * below >= nrows)
	{
		st = MrfStructureAdd(out, env, 3, triple);
		if (st == MRF_OK)
			st = MrfStructureAdd(out, env, 2, pair);
		if (st == MRF_OK)
			st = MrfStructureAdd(out, env, 2, pair);
	}
	else
		st = MrfStructureAdd(out, env, 1, single);
	return st;
}

/*
 * The block assignment is a partition with the documented sizes, every row
 * in exactly one block; a generic learner's monomials come back canonical;
 * and the shuffle makes blocks representative even when the table is
 * sorted by the data (here the first 70% of the ids vote one way).
 */
static void
TestPluginAndPartition(void)
{
	const int64_t n = 1003;
	const int	m = 10;
	int64_t    *ids = malloc(sizeof(int64_t) * n);
	TallyLearner tl;
	MrfBlockLearner learner;
	MrfStructureOptions opt;
	MrfStructure s;
	MrfRng		rng;
	int			released = -1;
	int			ok = 1;
	int64_t		r;
	int			k;
	const int32_t expect[] = {2, 0, 1, 3, 0, 1, 2};

	for (r = 0; r < n; r++)
		ids[r] = r;
	memset(&tl, 0, sizeof(tl));
	tl.seen = calloc(n, sizeof(int64_t));
	tl.sizes = calloc(m, sizeof(int64_t));
	tl.split = 7 * n / 10;
	memset(&learner, 0, sizeof(learner));
	learner.learn = TallyLearn;
	learner.arg = &tl;
	learner.p = 4;
	learner.row_bytes = sizeof(int64_t);
	memset(&opt, 0, sizeof(opt));
	opt.epsilon = 50.0;			/* noise negligible: tau = 2 */
	opt.delta = 0.3;
	opt.blocks = m;
	MrfRngInitSeeded(&rng, 9100);
	MrfStructureInit(&s, 4);
	CHECK(MrfStructureLearn(ids, n, &learner, &opt, &rng, &MrfMallocEnv, &s, &released) == MRF_OK);
	CHECK(tl.calls == m);
	for (k = 0; k < m; k++)
		ok &= tl.sizes[k] == MrfStructureBlockRows(n, m, k);
	CHECK_MSG(ok, "block sizes differ from MrfStructureBlockRows");
	CHECK(MrfStructureBlockRows(n, m, 0) == 101 && MrfStructureBlockRows(n, m, 9) == 100);
	ok = 1;
	for (r = 0; r < n; r++)
		ok &= tl.seen[r] == 1;
	CHECK_MSG(ok, "some row was not in exactly one block");
	/* sorted input, shuffled blocks: every block has a 70% majority */
	CHECK(released == 1);
	CHECK(s.nitems == 2 && s.nwords == 7 && memcmp(s.words, expect, sizeof(expect)) == 0);
	/* nothing of the blocks' history (10 words before deduplication) travels */
	CHECK(s.capacity == s.nwords);
	MrfStructureFree(&s, &MrfMallocEnv);

	/* a learner that emits an invalid item is an error, not a graph */
	tl.calls = 0;
	memset(tl.seen, 0, sizeof(int64_t) * n);
	learner.p = 2;				/* variable 3 and the triple are now out of range */
	MrfStructureInit(&s, 2);
	CHECK(MrfStructureLearn(ids, n, &learner, &opt, &rng, &MrfMallocEnv, &s, &released) ==
		  MRF_EINVAL);
	CHECK(released == 0);
	free(tl.sizes);
	free(tl.seen);
	free(ids);
}

/* Default m, planning, and the zCDP threshold variant. */
static void
TestPlanningAndThreshold(void)
{
	int			m = MrfStructureDefaultBlocks(1.0, 1e-6);
	int64_t		per = MrfIsingBlockRowsNeeded(50, 0.5, 1.0);
	TestModel	chain;
	MrfStructure truth;
	MrfStructure s;
	MrfIsingOptions iopt;
	MrfRng		rng;
	uint64_t   *bits;

	CHECK(per > 0);
	CHECK(MrfStructurePlanRowsIsing(50, 0.5, 1.0, 1.0, 1e-6, 0) == per * m);
	CHECK(MrfStructurePlanRowsIsing(50, 0.5, 1.0, 1.0, 1e-6, 10) == per * 10);
	/* more variables, weaker edges or a wider model need more rows */
	CHECK(MrfIsingBlockRowsNeeded(200, 0.5, 1.0) > per);
	CHECK(MrfIsingBlockRowsNeeded(50, 0.25, 1.0) > per);
	CHECK(MrfIsingBlockRowsNeeded(50, 0.5, 1.5) > per);
	CHECK(MrfIsingBlockRowsNeeded(1, 0.5, 1.0) == -1);
	/* a radius well below the width has no plan; a larger one needs more rows */
	CHECK(MrfIsingBlockRowsNeededWidth(50, 0.5, 2.0, 1.0) == -2);
	CHECK(MrfIsingBlockRowsNeededWidth(50, 0.5, 2.0, 2.0) > 0);
	CHECK(MrfIsingBlockRowsNeededWidth(50, 0.5, 2.0, 8.0) >
		  MrfIsingBlockRowsNeededWidth(50, 0.5, 2.0, 2.0));
	CHECK(MrfIsingBlockRowsNeededWidth(50, 0.5, 3.0, 8.0) >
		  MrfIsingBlockRowsNeededWidth(50, 0.5, 2.0, 8.0));
	CHECK(MrfStructurePlanRowsIsing(50, 0.5, 1.0, 0.0, 1e-6, 0) == -1);

	/*
	 * The plan is enough: at the planned block size for this chain of 10
	 * with fields (width 1.1) at the default radius, the block learner finds
	 * the chain in at least 12 of 20 blocks (the plan targets a 90% release
	 * at the default m, which needs about 40% of blocks; fitted to the study
	 * of issue 10; a constant 4 times too small fails here).
	 */
	BuildModel(0, &chain);
	TrueGraph(&chain, &truth);
	MrfRngInitSeeded(&rng, 9200);
	{
		int64_t		b = MrfIsingBlockRowsNeededWidth(chain.p, chain.eta, chain.lambda,
													 8.0 /* the default lambda (sqlapi/options.c) */);
		MrfIsingBlockOptions bopt;
		int			hits = 0;
		int			r;

		CHECK(b > 100 && b < 5000);
		memset(&bopt, 0, sizeof(bopt));
		bopt.p = chain.p;
		bopt.eta = chain.eta;
		bopt.lambda = 8.0 /* the default lambda (sqlapi/options.c) */;
		bits = DrawPacked(&chain, 20 * b, &rng);
		for (r = 0; r < 20; r++)
		{
			MrfStructureInit(&s, chain.p);
			CHECK(MrfIsingBlockLearn(&bopt, bits + r * b, b, &MrfMallocEnv, &s) == MRF_OK);
			hits += MrfStructureEqual(&s, &truth);
			MrfStructureFree(&s, &MrfMallocEnv);
		}
		CHECK_MSG(hits >= 12, "at the planned %lld rows per block: %d of 20 exact",
				  (long long) b, hits);
		free(bits);
	}

	/* threshold variant: a chain at a large rho, exactly */
	bits = DrawPacked(&chain, 20000, &rng);
	memset(&iopt, 0, sizeof(iopt));
	iopt.rho = 50.0;
	iopt.lambda = chain.lambda;
	iopt.mechanism = MRF_MECH_EXPONENTIAL;
	iopt.symmetrize = 1;
	MrfStructureInit(&s, chain.p);
	CHECK(MrfStructureThresholdIsing(bits, 20000, chain.p, &iopt, chain.eta,
									 MRF_EDGE_AVERAGE, &rng, &MrfMallocEnv, &s) == MRF_OK);
	CHECK_MSG(MrfStructureEqual(&s, &truth), "threshold variant: %d edges", s.nitems);
	/* at a tiny rho the private estimate is noise: not the chain */
	iopt.rho = 1e-4;
	CHECK(MrfStructureThresholdIsing(bits, 20000, chain.p, &iopt, chain.eta,
									 MRF_EDGE_AVERAGE, &rng, &MrfMallocEnv, &s) == MRF_OK);
	CHECK(!MrfStructureEqual(&s, &truth));
	CHECK(MrfStructureThresholdIsing(bits, 20000, chain.p, &iopt, 0.0,
									 MRF_EDGE_AVERAGE, &rng, &MrfMallocEnv, &s) == MRF_EINVAL);
	MrfStructureFree(&s, &MrfMallocEnv);
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(bits);
}

/* ---- the pairwise k-ary block learner ---- */

/*
 * A chain 0 - 1 - ... - p-1 over k = 3 values with centred blocks
 * W_ij(a, b) = c (a = b), -c / 2 (a != b): max |W_ij| = c = eta, width
 * lambda = 2 c, no fields; sampled exactly (3^6 states).
 */
static uint8_t *
DrawPairwiseChain(int p, double c, int64_t n, MrfRng *rng)
{
	const int	k = 3;
	double	   *W = calloc((size_t) p * p * k * k, sizeof(double));
	double	   *theta = calloc((size_t) p * k, sizeof(double));
	uint8_t    *z = malloc((size_t) n * p);
	int			i;
	int			a;
	int			b;

	for (i = 0; i + 1 < p; i++)
		for (a = 0; a < k; a++)
			for (b = 0; b < k; b++)
			{
				double		v = a == b ? c : -c / 2.0;

				W[MrfPairwiseAt(p, k, i, i + 1, a, b)] = v;
				W[MrfPairwiseAt(p, k, i + 1, i, b, a)] = v;
			}
	CHECK(MrfPairwiseSample(W, theta, p, k, n, 0, 1, rng, &MrfMallocEnv, z) == MRF_OK);
	free(theta);
	free(W);
	return z;
}

/*
 * The non-private pairwise learner finds a k = 3 chain exactly in almost
 * every block at the block size the SQL tests use, and the stable mode
 * with the default m = 94 blocks (epsilon 1, delta 1e-6) releases it; the
 * solver converges; bad options are refused.
 */
static void
TestPairwiseBlockLearner(void)
{
	const int	p = 6;
	const int	k = 3;
	const double c = 1.0;
	const int64_t b = 600;
	MrfPairwiseBlockOptions bopt;
	MrfBlockLearner learner;
	MrfStructureOptions opt;
	MrfStructure truth;
	MrfStructure s;
	MrfLogregStats stats;
	MrfRng		rng;
	uint8_t    *z;
	int			m = MrfStructureDefaultBlocks(1.0, 1e-6);
	int			hits = 0;
	int			released = 0;
	int			r;
	int			i;

	MrfStructureInit(&truth, p);
	for (i = 0; i + 1 < p; i++)
		AddEdge(&truth, i, i + 1);
	CHECK(MrfStructureCanonicalize(&truth, &MrfMallocEnv) == MRF_OK);
	MrfRngInitSeeded(&rng, 9300);
	z = DrawPairwiseChain(p, c, (int64_t) m * b, &rng);

	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.k = k;
	bopt.eta = c;
	bopt.lambda = 2.0 * c;
	bopt.stats = &stats;
	for (r = 0; r < 20; r++)
	{
		MrfStructureInit(&s, p);
		CHECK(MrfPairwiseBlockLearn(&bopt, z + (size_t) r * b * p, b, &MrfMallocEnv,
									&s) == MRF_OK);
		hits += MrfStructureEqual(&s, &truth);
		CHECK_MSG(stats.unconverged == 0, "pairwise solver: %d regressions unconverged",
				  stats.unconverged);
		MrfStructureFree(&s, &MrfMallocEnv);
	}
	printf("# structure pairwise: chain p=%d k=%d, %lld rows per block: %d of 20 exact"
		   " (last: %d iterations, gap %.1e)\n", p, k, (long long) b, hits,
		   stats.iterations, stats.max_gap);
	CHECK_MSG(hits >= 17, "pairwise block learner: %d of 20 blocks exact", hits);

	bopt.stats = NULL;
	MrfPairwiseBlockLearner(&bopt, &learner);
	CHECK(learner.row_bytes == (size_t) p);
	CHECK(learner.workspace(&bopt, b) > (size_t) b * (p * k + 1) * sizeof(double));
	memset(&opt, 0, sizeof(opt));
	opt.epsilon = 1.0;
	opt.delta = 1e-6;
	MrfStructureInit(&s, p);
	CHECK(MrfStructureLearn(z, (int64_t) m * b, &learner, &opt, &rng, &MrfMallocEnv,
							&s, &released) == MRF_OK);
	CHECK_MSG(released == 1 && MrfStructureEqual(&s, &truth),
			  "pairwise release: released %d, %d edges", released, s.nitems);
	CHECK(MrfStructurePairwiseWorkspaceBytes(p, k, (int64_t) m * b, m) < SIZE_MAX);

	/* refusals: a value outside the alphabet, k = 1, eta = 0 */
	MrfStructureFree(&s, &MrfMallocEnv);
	bopt.k = 2;
	CHECK(MrfPairwiseBlockLearn(&bopt, z, b, &MrfMallocEnv, &s) == MRF_EINVAL);
	bopt.k = 1;
	CHECK(MrfPairwiseBlockLearn(&bopt, z, b, &MrfMallocEnv, &s) == MRF_EINVAL);
	bopt.k = k;
	bopt.eta = 0.0;
	CHECK(MrfPairwiseBlockLearn(&bopt, z, b, &MrfMallocEnv, &s) == MRF_EINVAL);
	MrfStructureFree(&s, &MrfMallocEnv);
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(z);
}

/*
 * Per-variable alphabets (issue 11): a chain 0 - 1 - 2 - 3 with k_i =
 * (2, 3, 5, 3) stored with stride k = 5, blocks W_ij(a, b) = s c_i(a)
 * c_j(b) with centred scores c_i(a) = 1 - 2 a / (k_i - 1) and couplings
 * s = 1, 0.8, -0.9, sampled exactly (values outside an alphabet get a field
 * of -1e6, as mrf_sample gives them).  The block learner with the
 * alphabets finds the chain in nearly every block of 2,000 rows and
 * refuses a value outside a variable's alphabet; its design is smaller
 * than one alphabet of 5 (workspace, minimum block size).
 */
static void
TestPairwiseBlockAlphabets(void)
{
	const int	p = 4;
	const int	k = 5;
	const uint8_t kv[4] = {2, 3, 5, 3};
	const double s[3] = {1.0, 0.8, -0.9};
	const int64_t b = 2000;
	double	   *W = calloc((size_t) p * p * k * k, sizeof(double));
	double	   *theta = calloc((size_t) p * k, sizeof(double));
	uint8_t    *z = malloc((size_t) 20 * b * p);
	MrfPairwiseBlockOptions bopt;
	MrfBlockLearner with;
	MrfBlockLearner without;
	MrfStructure truth;
	MrfStructure st;
	MrfRng		rng;
	int			hits = 0;
	int			outside = 0;

	for (int i = 0; i + 1 < p; i++)
		for (int a = 0; a < kv[i]; a++)
			for (int c = 0; c < kv[i + 1]; c++)
			{
				double		v = s[i] * (1.0 - 2.0 * a / (kv[i] - 1)) * (1.0 - 2.0 * c / (kv[i + 1] - 1));

				W[MrfPairwiseAt(p, k, i, i + 1, a, c)] = v;
				W[MrfPairwiseAt(p, k, i + 1, i, c, a)] = v;
			}
	for (int i = 0; i < p; i++)
		for (int a = kv[i]; a < k; a++)
			theta[(size_t) i * k + a] = -1e6;
	MrfRngInitSeeded(&rng, 9311);
	CHECK(MrfPairwiseSample(W, theta, p, k, 20 * b, 0, 1, &rng, &MrfMallocEnv, z) == MRF_OK);
	for (int64_t m = 0; m < 20 * b * p; m++)
		outside += z[m] >= kv[m % p];
	CHECK_MSG(outside == 0, "the sampler drew %d values outside their alphabets", outside);

	MrfStructureInit(&truth, p);
	for (int i = 0; i + 1 < p; i++)
		AddEdge(&truth, i, i + 1);
	CHECK(MrfStructureCanonicalize(&truth, &MrfMallocEnv) == MRF_OK);
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.k = k;
	bopt.kv = kv;
	bopt.eta = 0.8;
	bopt.lambda = 2.0;
	for (int r = 0; r < 20; r++)
	{
		MrfStructureInit(&st, p);
		CHECK(MrfPairwiseBlockLearn(&bopt, z + (size_t) r * b * p, b, &MrfMallocEnv, &st) == MRF_OK);
		hits += MrfStructureEqual(&st, &truth);
		MrfStructureFree(&st, &MrfMallocEnv);
	}
	printf("# structure pairwise: chain k_i = (2, 3, 5, 3), %lld rows per block: %d of 20 exact\n",
		   (long long) b, hits);
	CHECK_MSG(hits >= 17, "per-variable block learner: %d of 20 blocks exact", hits);

	/* the design follows the alphabets: 14 columns and 34 regressions, not 21 and 80 */
	MrfPairwiseBlockLearner(&bopt, &with);
	bopt.kv = NULL;
	MrfPairwiseBlockLearner(&bopt, &without);
	CHECK(with.min_rows == (int64_t) k * 14 && without.min_rows == (int64_t) k * 21);
	CHECK(with.workspace(&(MrfPairwiseBlockOptions) {.p = p, .k = k, .kv = kv}, b) <
		  without.workspace(&(MrfPairwiseBlockOptions) {.p = p, .k = k}, b));
	CHECK(MrfStructurePairwiseWorkspaceBytesAlphabets(p, k, kv, 20 * b, 20) <
		  MrfStructurePairwiseWorkspaceBytes(p, k, 20 * b, 20));

	/* refusals: a value outside its variable's alphabet (here within k), alphabets without k */
	bopt.kv = kv;
	z[0] = 2;					/* variable 0 has 2 values */
	MrfStructureInit(&st, p);
	CHECK(MrfPairwiseBlockLearn(&bopt, z, b, &MrfMallocEnv, &st) == MRF_EINVAL);
	z[0] = 0;
	bopt.k = 4;
	CHECK(MrfPairwiseBlockLearn(&bopt, z, b, &MrfMallocEnv, &st) == MRF_EINVAL);
	MrfStructureFree(&st, &MrfMallocEnv);
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(z);
	free(theta);
	free(W);
}

/* ---- the t-wise block learner ---- */

/*
 * A t = 3 model on 6 variables: c_{0,1,2} = 0.8, c_{0,1} = 0.5 (inside the
 * triple, so not maximal), c_{3,4} = 0.8 and c_{4,5} = -0.8, fields 0.2 on
 * z_0 and z_5 (not part of a structure); width lambda = 1.6.  The maximal
 * monomials are {3,4}, {4,5}, {0,1,2}: the non-private learner finds
 * exactly them in nearly every block at the block size used, and the stable
 * mode with the default m = 94 releases them.
 */
static void
TestTwiseBlockLearner(void)
{
	const int	p = 6;
	const int	t = 3;
	const int64_t b = 300;
	const int	triple[3] = {0, 1, 2};
	const int	pair01[2] = {0, 1};
	const int	pair34[2] = {3, 4};
	const int	pair45[2] = {4, 5};
	const int	f0[1] = {0};
	const int	f5[1] = {5};
	const int32_t i34[2] = {3, 4};
	const int32_t i45[2] = {4, 5};
	const int32_t i012[3] = {0, 1, 2};
	int64_t		ncoef = MrfTwiseCoefCount(p, t);
	double	   *coef = calloc((size_t) ncoef, sizeof(double));
	int			m = MrfStructureDefaultBlocks(1.0, 1e-6);
	int64_t		n = (int64_t) m * b;
	int8_t	   *z = malloc((size_t) n * p);
	uint64_t   *bits = calloc((size_t) n, sizeof(uint64_t));
	MrfTwiseBlockOptions bopt;
	MrfBlockLearner learner;
	MrfStructureOptions opt;
	MrfStructure truth;
	MrfStructure s;
	MrfLogregStats stats;
	MrfRng		rng;
	int			hits = 0;
	int			released = 0;
	int64_t		r;
	int			j;

	coef[MrfSubsetIndex(p, triple, 3)] = 0.8;
	coef[MrfSubsetIndex(p, pair01, 2)] = 0.5;
	coef[MrfSubsetIndex(p, pair34, 2)] = 0.8;
	coef[MrfSubsetIndex(p, pair45, 2)] = -0.8;
	coef[MrfSubsetIndex(p, f0, 1)] = 0.2;
	coef[MrfSubsetIndex(p, f5, 1)] = 0.2;
	MrfRngInitSeeded(&rng, 9400);
	CHECK(MrfTwiseSample(coef, p, t, n, 0, 1, &rng, &MrfMallocEnv, z) == MRF_OK);
	for (r = 0; r < n; r++)
		for (j = 0; j < p; j++)
			if (z[r * p + j] > 0)
				MrfBitSet(bits + r, j);

	MrfStructureInit(&truth, p);
	CHECK(MrfStructureAdd(&truth, &MrfMallocEnv, 3, i012) == MRF_OK);
	CHECK(MrfStructureAdd(&truth, &MrfMallocEnv, 2, i45) == MRF_OK);
	CHECK(MrfStructureAdd(&truth, &MrfMallocEnv, 2, i34) == MRF_OK);
	CHECK(MrfStructureCanonicalize(&truth, &MrfMallocEnv) == MRF_OK);

	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.t = t;
	bopt.eta = 0.8;
	bopt.lambda = 1.6;
	bopt.stats = &stats;
	for (r = 0; r < 20; r++)
	{
		MrfStructureInit(&s, p);
		CHECK(MrfTwiseBlockLearn(&bopt, bits + r * b, b, &MrfMallocEnv, &s) == MRF_OK);
		hits += MrfStructureEqual(&s, &truth);
		CHECK(stats.unconverged == 0);
		MrfStructureFree(&s, &MrfMallocEnv);
	}
	printf("# structure twise: p=%d t=%d, %lld rows per block: %d of 20 exact"
		   " (last: %d iterations, gap %.1e)\n", p, t, (long long) b, hits,
		   stats.iterations, stats.max_gap);
	CHECK_MSG(hits >= 17, "t-wise block learner: %d of 20 blocks exact", hits);

	bopt.stats = NULL;
	MrfTwiseBlockLearner(&bopt, &learner);
	memset(&opt, 0, sizeof(opt));
	opt.epsilon = 1.0;
	opt.delta = 1e-6;
	MrfStructureInit(&s, p);
	CHECK(MrfStructureLearn(bits, n, &learner, &opt, &rng, &MrfMallocEnv, &s,
							&released) == MRF_OK);
	CHECK_MSG(released == 1 && MrfStructureEqual(&s, &truth),
			  "t-wise release: released %d, %d items", released, s.nitems);
	MrfStructureFree(&s, &MrfMallocEnv);
	bopt.t = 7;
	CHECK(MrfTwiseBlockLearn(&bopt, bits, b, &MrfMallocEnv, &s) == MRF_EINVAL);
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(bits);
	free(z);
	free(coef);
}

/*
 * The block solver's own exp (logreg.c): lanes and scalars give the same
 * bits, within 1 ulp of libm's on the clamp range, clamped outside it.
 */
static void
TestSolverExp(void)
{
	double		worst = 0.0;
	int			same = 1;
	double		x[4],
				lanes[4],
				scalars[4];

	for (double t = -707.9; t < 707.9; t += 0.01237)
	{
		for (int i = 0; i < 4; i++)
			x[i] = t + 0.003 * i;
		MrfLogregExp4(x, 1, lanes);
		MrfLogregExp4(x, 0, scalars);
		for (int i = 0; i < 4; i++)
		{
			double		e = exp(x[i]);
			double		rel = fabs(lanes[i] - e) / e;

			same &= memcmp(&lanes[i], &scalars[i], sizeof(double)) == 0;
			worst = rel > worst ? rel : worst;
		}
	}
	CHECK_MSG(same, "the lanes and the scalar exp differ");
	CHECK_MSG(worst <= 2.3e-16, "exp is %.3g relative from libm's (over 1 ulp)", worst);
	x[0] = -1000.0;
	x[1] = 1000.0;
	x[2] = 0.0;
	x[3] = -0.0;
	MrfLogregExp4(x, 1, lanes);
	CHECK(lanes[0] > 0.0 && lanes[0] < 1e-306);
	CHECK(isfinite(lanes[1]) && lanes[1] > 1e307);
	CHECK(lanes[2] == 1.0 && lanes[3] == 1.0);
}

/* The structure tests. */
/* One structure release of a sweep: the stable mode, or blocks then shards. */
typedef struct StructureOomCase
{
	const MrfBlockLearner *learner;
	const void *rows;
	int64_t		n;
	int			blocks;
	int			shards;			/* 1: MrfStructureLearnBlock per block, then the shards' selection */
	uint8_t    *scratch;		/* the blocks' rows (overwritten) */
	int			released;		/* the unrefused run's */
	int			items;
} StructureOomCase;

static MrfStatus
StructureOomRelease(void *arg, const MrfEnv *env)
{
	StructureOomCase *c = arg;
	MrfStructureOptions opt = {8.0, 1e-3, c->blocks};
	MrfStructure out;
	MrfStatus	st = MRF_OK;
	MrfRng		rng;
	int			released = -1;

	MrfRngInitSeeded(&rng, 2323);
	MrfStructureInit(&out, c->learner->p);
	if (!c->shards)
		st = MrfStructureLearn(c->rows, c->n, c->learner, &opt, &rng, env, &out, &released);
	else
	{
		MrfStructure blocks[16];
		int			nblocks = 0;

		memcpy(c->scratch, c->rows, c->learner->row_bytes * (size_t) c->n);
		for (int k = 0; k < c->blocks && st == MRF_OK; k++)
		{
			int64_t		first = c->n * k / c->blocks;
			int			learned = 0;

			MrfStructureInit(&blocks[nblocks], c->learner->p);
			st = MrfStructureLearnBlock(c->scratch + c->learner->row_bytes * (size_t) first,
										c->n * (k + 1) / c->blocks - first, c->learner, &rng,
										env, &blocks[nblocks], &learned);
			CHECK(st == MRF_OK || blocks[nblocks].words == NULL);
			nblocks += st == MRF_OK && learned;
		}
		if (st == MRF_OK)
			st = MrfStructureSelectShards(blocks, nblocks, opt.epsilon, opt.delta, &rng, env,
										  &out, &released);
		else
			for (int k = 0; k < nblocks; k++)
				MrfStructureFree(&blocks[k], env);
	}
	if (st == MRF_OK)
	{
		c->released = released;
		c->items = out.nitems;
	}
	else
		CHECK_MSG(out.words == NULL && out.nitems == 0, "a refused release left %d items",
				  out.nitems);
	MrfStructureFree(&out, env);
	return st;
}

/*
 * Every allocation of the structure learners refused in turn (harness.h's
 * sweep): the stable mode and the shards' blocks and selection, with the
 * Ising, pairwise (per-variable alphabets) and t-wise block learners (their
 * logistic regressions, logreg.c), on four variables that copy each other.
 */
static void
TestOutOfMemory(void)
{
	enum
	{
		P = 4, N = 480, BLOCKS = 4
	};
	uint64_t   *bits = calloc(N, sizeof(uint64_t));
	uint8_t    *z = malloc((size_t) N * P);
	uint8_t    *scratch = malloc(sizeof(uint64_t) * N);
	const uint8_t kv[P] = {3, 2, 3, 2};
	MrfIsingBlockOptions iopt;
	MrfPairwiseBlockOptions popt;
	MrfTwiseBlockOptions topt;
	MrfBlockLearner learners[3];
	long		refused = 0;
	double		seconds = 0.0;
	int			released = 0;
	int			sweeps = 0;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 2121);
	for (int64_t r = 0; r < N; r++)
	{
		int			a = (int) MrfRngBelow(&rng, 3);

		for (int i = 0; i < P; i++)
		{
			int			v = MrfRngUniform(&rng) < 0.85 ? a % kv[i] : (int) MrfRngBelow(&rng, kv[i]);

			z[r * P + i] = (uint8_t) v;
			if (v % 2)
				MrfBitSet(&bits[r], i);
		}
	}
	memset(&iopt, 0, sizeof(iopt));
	iopt.p = P;
	iopt.eta = 0.5;
	iopt.lambda = 2.0;
	iopt.rule = MRF_EDGE_AVERAGE;
	iopt.max_iterations = 20;
	MrfIsingBlockLearner(&iopt, &learners[0]);
	memset(&popt, 0, sizeof(popt));
	popt.p = P;
	popt.k = 3;
	popt.kv = kv;
	popt.eta = 0.5;
	popt.lambda = 2.0;
	popt.max_iterations = 20;
	MrfPairwiseBlockLearner(&popt, &learners[1]);
	memset(&topt, 0, sizeof(topt));
	topt.p = P;
	topt.t = 3;
	topt.eta = 0.5;
	topt.lambda = 2.0;
	topt.max_iterations = 20;
	MrfTwiseBlockLearner(&topt, &learners[2]);
	for (int l = 0; l < 3; l++)
		for (int shards = 0; shards < 2; shards++)
		{
			static const char *const names[3] = {"ising", "pairwise", "t-wise"};
			StructureOomCase c;
			OomSweepResult res;
			char		what[80];

			memset(&c, 0, sizeof(c));
			c.learner = &learners[l];
			c.rows = l == 1 ? (const void *) z : (const void *) bits;
			c.n = N;
			c.blocks = BLOCKS;
			c.shards = shards;
			c.scratch = scratch;
			c.released = -1;
			snprintf(what, sizeof(what), "structure %s, %s", names[l],
					 shards ? "shards" : "stable mode");
			res = OomSweep(what, StructureOomRelease, &c);
			refused += res.refused;
			seconds += res.seconds;
			released += c.released == 1 && c.items > 0;
			sweeps++;
		}
	printf("# structure out of memory: %ld refused requests over %d runs in %.2f s, each a clean MRF_ENOMEM (%d released a structure)\n",
		   refused, sweeps, seconds, released);
	CHECK(sweeps == 6 && refused > 100);
	free(bits);
	free(z);
	free(scratch);
}

void
TestStructure(void)
{
	int			threads = openblas_get_num_threads();

	/* small problems: BLAS threads only add overhead */
	openblas_set_num_threads(1);
	TestOutOfMemory();
	TestCanonical();
	TestCalibration();
	TestModeMechanism();
	TestNeighbouringHistograms();
	TestShardCalibration();
	TestShardNeighbouringHistograms();
	TestSolverAndRules();
	TestSolverExp();
	TestBlockLearner();
	TestPluginAndPartition();
	TestEndToEnd();
	TestShardsEndToEnd();
	TestProgressInBlocks();
	TestTooFewRows();
	TestPlanningAndThreshold();
	TestPairwiseBlockLearner();
	TestPairwiseBlockAlphabets();
	TestTwiseBlockLearner();
	openblas_set_num_threads(threads);
}
