/*
 * test_workload.c - workload.c: exact marginals of every one-, two- and
 * three-variable set of clique models (a tree of pairs, a loopy model that
 * needs a triangulation, singletons only, mixed alphabets) against
 * enumeration of every state; Ising and pairwise models in clique form
 * against enumeration of their own distributions; the counts against a
 * tally; the L1 error.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "bp.h"
#include "cliques.h"
#include "cliques_synth.h"
#include "workload.h"

/* The marginal of vars (ascending) by enumerating every state of the model. */
static void
EnumerateSubset(const MrfCliqueSet *set, const double *logpot, int size,
				const int *vars, double *out)
{
	MrfCode		z[32];
	int64_t		states = 1;
	int64_t		cells = 1;
	double		total = 0.0;
	int64_t		s;
	int			j;

	for (j = 0; j < set->p; j++)
		states *= set->card[j];
	for (j = 0; j < size; j++)
		cells *= set->card[vars[j]];
	memset(out, 0, sizeof(double) * (size_t) cells);
	memset(z, 0, sizeof(z));
	for (s = 0; s < states; s++)
	{
		double		w = exp(MrfCliquesScore(set, logpot, z));
		int64_t		idx = 0;

		for (j = 0; j < size; j++)
			idx = idx * set->card[vars[j]] + z[vars[j]];
		out[idx] += w;
		total += w;
		MrfCliquesNextStateAlphabets(z, set->p, set->card);
	}
	for (s = 0; s < cells; s++)
		out[s] /= total;
}

/*
 * Every set of 1, 2 and 3 variables of the model: MrfSubsetMarginal with
 * and without the clique marginals equals enumeration within 1e-10.
 */
static void
CheckAllSubsets(const char *what, const MrfCliqueSet *set, const double *logpot)
{
	double	   *cmarg = malloc(sizeof(double) * (size_t) set->cells);
	double		got[4096];
	double		want[4096];
	MrfBpOptions o;
	int			vars[3];
	int			checked = 0;
	double		worst = 0.0;
	int			failed = 0;

	memset(&o, 0, sizeof(o));
	o.mode = MRF_INFER_EXACT;
	CHECK(MrfCliquesMarginals(set, logpot, &o, &MrfMallocEnv, cmarg, NULL) == MRF_OK);
	for (int size = 1; size <= 3; size++)
		for (vars[0] = 0; vars[0] < set->p; vars[0]++)
			for (vars[1] = size > 1 ? vars[0] + 1 : 0; vars[1] < (size > 1 ? set->p : 1); vars[1]++)
				for (vars[2] = size > 2 ? vars[1] + 1 : 0; vars[2] < (size > 2 ? set->p : 1); vars[2]++)
				{
					int64_t		cells = MrfVarsCells(set->card, size, vars, 4096);

					EnumerateSubset(set, logpot, size, vars, want);
					for (int with = 0; with < 2; with++)
					{
						if (MrfSubsetMarginal(set, logpot, with ? cmarg : NULL, size, vars, NULL,
											  &MrfMallocEnv, got) != MRF_OK)
						{
							failed++;
							continue;
						}
						for (int64_t x = 0; x < cells; x++)
							if (fabs(got[x] - want[x]) > worst)
								worst = fabs(got[x] - want[x]);
					}
					checked++;
				}
	CHECK_MSG(failed == 0 && worst < 1e-10,
			  "%s: %d sets, %d failed, largest difference %.3g", what, checked, failed, worst);
	/* the one-pass enumeration of every pair and triple gives the same tables */
	{
		int			sizes[64];
		int			store[64][3];
		const int  *vp[64];
		int64_t		offset[65];
		int			n = 0;
		double	   *all;
		double		worst2 = 0.0;

		offset[0] = 0;
		for (int a = 0; a < set->p; a++)
			for (int b = a + 1; b < set->p; b++)
				for (int c = b; c < set->p && n < 64; c++)
				{
					int			size = c == b ? 2 : 3;

					store[n][0] = a;
					store[n][1] = b;
					store[n][2] = c;
					sizes[n] = size;
					vp[n] = store[n];
					offset[n + 1] = offset[n] + MrfVarsCells(set->card, size, store[n], 4096);
					n++;
				}
		all = malloc(sizeof(double) * (size_t) offset[n]);
		CHECK(MrfSubsetMarginalsEnumerate(set, logpot, n, sizes, vp, offset, 1 << 20,
										  &MrfMallocEnv, all) == MRF_OK);
		for (int t = 0; t < n; t++)
		{
			EnumerateSubset(set, logpot, sizes[t], vp[t], want);
			for (int64_t x = 0; x < offset[t + 1] - offset[t]; x++)
				if (fabs(all[offset[t] + x] - want[x]) > worst2)
					worst2 = fabs(all[offset[t] + x] - want[x]);
		}
		CHECK_MSG(worst2 < 1e-12, "%s, one-pass enumeration of %d sets: %.3g", what, n, worst2);
		/* above the state limit: refused */
		CHECK(MrfSubsetMarginalsEnumerate(set, logpot, n, sizes, vp, offset, 10,
										  &MrfMallocEnv, all) == MRF_EINVAL);
		free(all);
	}
	free(cmarg);
}

/* Builds a set with per-variable alphabets; flat cliques given by start/var. */
static MrfCliqueSet *
Build(int p, const int *card, int m, const int *start, const int *var)
{
	MrfCliqueSet *set = NULL;

	CHECK(MrfCliqueSetBuildAlphabets(p, card, m, start, var, 0, &MrfMallocEnv, &set) == MRF_OK);
	return set;
}

/* A model with random Dirichlet(1) log-potentials, doubled (stronger dependence). */
static double *
RandomModel(const MrfCliqueSet *set, MrfRng *rng)
{
	double	   *lp = malloc(sizeof(double) * (size_t) set->cells);

	SynthPotentials(set, rng, lp);
	for (int64_t x = 0; x < set->cells; x++)
		lp[x] *= 2.0;
	return lp;
}

/*
 * The clique forms of an Ising and of a pairwise model: every one-, two-
 * and three-variable marginal equals enumeration of the kinds' own
 * distributions (as sample.h defines them: A and W read symmetrised).
 */
static void
CheckKindsAsCliques(MrfRng *rng)
{
	enum
	{
		P = 5
	};
	double		A[P * P];
	double		theta[P];
	int			card[P] = {3, 2, 3, 3, 2};
	double		W[P * P * 3 * 3];
	double		th[P * 3];
	MrfCliqueSet *set = NULL;
	double	   *lp = NULL;

	/* an asymmetric A with a zero pair (no clique) */
	for (int i = 0; i < P * P; i++)
		A[i] = MrfRngUniform(rng) * 2.0 - 1.0;
	for (int i = 0; i < P; i++)
	{
		A[i * P + i] = 0.0;
		theta[i] = MrfRngUniform(rng) - 0.5;
	}
	A[0 * P + 3] = 0.0;
	A[3 * P + 0] = 0.0;
	CHECK(MrfIsingAsCliques(A, theta, P, &MrfMallocEnv, &set, &lp) == MRF_OK);
	CHECK_MSG(set->m == P + 9, "Ising: %d cliques, want %d singletons and 9 pairs", set->m, P);
	{
		/* enumeration of exp(theta z + sum_{i<j} S_ij z_i z_j) */
		MrfCode		z[P];
		double		want[8][8][8];
		double		total = 0.0;
		double		worst = 0.0;
		int			vars[3] = {0, 2, 4};
		double		got[8];

		memset(want, 0, sizeof(want));
		memset(z, 0, sizeof(z));
		for (int s = 0; s < (1 << P); s++)
		{
			double		e = 0.0;

			for (int i = 0; i < P; i++)
			{
				z[i] = (MrfCode) ((s >> i) & 1);
				e += theta[i] * (2 * z[i] - 1);
			}
			for (int i = 0; i < P; i++)
				for (int j = i + 1; j < P; j++)
					e += 0.5 * (A[i * P + j] + A[j * P + i]) * (2 * z[i] - 1) * (2 * z[j] - 1);
			want[z[0]][z[2]][z[4]] += exp(e);
			total += exp(e);
		}
		CHECK(MrfSubsetMarginal(set, lp, NULL, 3, vars, NULL, &MrfMallocEnv, got) == MRF_OK);
		for (int x = 0; x < 8; x++)
		{
			double		d = fabs(got[x] - want[x >> 2][(x >> 1) & 1][x & 1] / total);

			if (d > worst)
				worst = d;
		}
		CHECK_MSG(worst < 1e-12, "Ising (z1, z3, z5) against enumeration: %.3g", worst);
	}
	free(lp);
	MrfCliqueSetFree(&MrfMallocEnv, set);

	/* pairwise, k = 3, alphabets (3, 2, 3, 3, 2), asymmetric blocks */
	for (int i = 0; i < P * P * 9; i++)
		W[i] = MrfRngUniform(rng) * 2.0 - 1.0;
	for (int i = 0; i < P * 3; i++)
		th[i] = MrfRngUniform(rng) - 0.5;
	for (int i = 0; i < P; i++)
		for (int x = 0; x < 9; x++)
			W[(i * P + i) * 9 + x] = 0.0;
	CHECK(MrfPairwiseAsCliques(W, th, P, 3, card, &MrfMallocEnv, &set, &lp) == MRF_OK);
	CHECK(set->m == P + 10);
	{
		MrfCode		z[P];
		double		want[27];
		double		total = 0.0;
		double		worst = 0.0;
		int			vars[3] = {0, 1, 3};
		double		got[27];

		memset(want, 0, sizeof(want));
		memset(z, 0, sizeof(z));
		for (int s = 0; s < 3 * 2 * 3 * 3 * 2; s++)
		{
			double		e = 0.0;

			for (int i = 0; i < P; i++)
				e += th[i * 3 + z[i]];
			for (int i = 0; i < P; i++)
				for (int j = i + 1; j < P; j++)
					e += 0.5 * (W[((i * P + j) * 3 + z[i]) * 3 + z[j]] +
								W[((j * P + i) * 3 + z[j]) * 3 + z[i]]);
			want[(z[0] * 2 + z[1]) * 3 + z[3]] += exp(e);
			total += exp(e);
			MrfCliquesNextStateAlphabets(z, P, card);
		}
		CHECK(MrfSubsetMarginal(set, lp, NULL, 3, vars, NULL, &MrfMallocEnv, got) == MRF_OK);
		for (int x = 0; x < 18; x++)
			if (fabs(got[x] - want[x] / total) > worst)
				worst = fabs(got[x] - want[x] / total);
		CHECK_MSG(worst < 1e-12, "pairwise (z1, z2, z4) against enumeration: %.3g", worst);
		CheckAllSubsets("pairwise as cliques", set, lp);
	}
	free(lp);
	MrfCliqueSetFree(&MrfMallocEnv, set);
	card[1] = 4;
	CHECK(MrfPairwiseAsCliques(W, th, P, 3, card, &MrfMallocEnv, &set, &lp) == MRF_EINVAL);
}

/*
 * A binary chain of p variables, cliques {i, i+1}, each pair's table
 * log(1 - q) on the diagonal and log(q) off it: a symmetric Markov chain
 * with flip probability q from a uniform x_0, so P(x_a = x_b) =
 * (1 + (1 - 2q)^|a - b|) / 2 in closed form.  MrfBpSetMarginal of the two
 * ends and of three far-apart variables against it.
 */
static void
CheckWideChain(void)
{
	enum
	{
		P = 200
	};
	int			card[P];
	int			start[P];
	int			var[2 * (P - 1)];
	MrfCliqueSet *set;
	MrfBp	   *bp = NULL;
	double	   *lp;
	double	   *marg;
	double		q = 0.03;
	double		got[8];
	int			ends[2] = {0, P - 1};
	int			three[3] = {3, 100, 190};
	int64_t		need = -1;
	MrfBpOptions o;

	for (int i = 0; i < P; i++)
		card[i] = 2;
	for (int c = 0; c < P - 1; c++)
	{
		start[c] = 2 * c;
		var[2 * c] = c;
		var[2 * c + 1] = c + 1;
	}
	start[P - 1] = 2 * (P - 1);
	set = Build(P, card, P - 1, start, var);
	lp = malloc(sizeof(double) * (size_t) set->cells);
	marg = malloc(sizeof(double) * (size_t) set->cells);
	for (int c = 0; c < P - 1; c++)
	{
		lp[4 * c + 0] = lp[4 * c + 3] = log(1 - q);
		lp[4 * c + 1] = lp[4 * c + 2] = log(q);
	}
	memset(&o, 0, sizeof(o));
	o.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(set, &o, &MrfMallocEnv, &bp) == MRF_OK);
	/* a query before any calibration is refused */
	CHECK(MrfBpSetMarginal(bp, 2, ends, 0, got, NULL) == MRF_EINVAL);
	CHECK(MrfBpMarginals(bp, lp, marg, NULL) == MRF_OK);
	CHECK(MrfBpSetMarginal(bp, 2, ends, 0, got, &need) == MRF_OK);
	{
		double		same = (1 + pow(1 - 2 * q, P - 1)) / 2;

		CHECK_NEAR(got[0], same / 2, 1e-12);
		CHECK_NEAR(got[3], same / 2, 1e-12);
		CHECK_NEAR(got[1], (1 - same) / 2, 1e-12);
		CHECK_NEAR(got[2], (1 - same) / 2, 1e-12);
	}
	CHECK(MrfBpSetMarginal(bp, 3, three, 0, got, NULL) == MRF_OK);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 2; c++)
			{
				double		s1 = (1 + pow(1 - 2 * q, 97)) / 2;
				double		s2 = (1 + pow(1 - 2 * q, 90)) / 2;
				double		want = 0.5 * (a == b ? s1 : 1 - s1) * (b == c ? s2 : 1 - s2);

				CHECK_NEAR(got[a * 4 + b * 2 + c], want, 1e-12);
			}
	/* refused when the set's table is above the limit: need says how large */
	CHECK(MrfBpSetMarginal(bp, 3, three, 4, got, &need) == MRF_EINVAL);
	CHECK(need == 8);
	MrfBpFree(bp);
	free(marg);
	free(lp);
	MrfCliqueSetFree(&MrfMallocEnv, set);
}

/*
 * Marginal of the chain variables vars (ascending, nv of them) by the
 * forward algorithm: alpha over the current variable, with the earlier
 * query variables' values carried along; a direct computation that shares
 * no code with the junction tree.
 */
static void
ChainByForward(int p, const int *card, const double *lp, const int64_t *off,
			   int nv, const int *vars, double *out)
{
	/* alpha[(carried index) * K + x_i]: at most 100^3 carried cells times 100 */
	int64_t		carried = 1;
	double	   *alpha;
	double	   *next;
	int			K = 0;

	for (int i = 0; i < p; i++)
		K = card[i] > K ? card[i] : K;
	for (int j = 0; j < nv; j++)
		carried *= card[vars[j]];
	alpha = calloc((size_t) carried * K, sizeof(double));
	next = calloc((size_t) carried * K, sizeof(double));
	{
		int64_t		c0 = 1;

		for (int x = 0; x < card[0]; x++)
			alpha[x] = 1.0;
		(void) c0;
	}
	/* carried index grows as each query variable is passed: cw = cells so far */
	{
		int64_t		cw = 1;
		int			qj = 0;

		for (int i = 0; i < p; i++)
		{
			/* fold x_i into the carried index when it is a query variable */
			if (qj < nv && vars[qj] == i)
			{
				memset(next, 0, sizeof(double) * (size_t) carried * K);
				for (int64_t c = 0; c < cw; c++)
					for (int x = 0; x < card[i]; x++)
						next[(c * card[i] + x) * K + x] = alpha[c * K + x];
				cw *= card[i];
				memcpy(alpha, next, sizeof(double) * (size_t) carried * K);
				qj++;
			}
			if (i == p - 1)
				break;
			memset(next, 0, sizeof(double) * (size_t) carried * K);
			for (int64_t c = 0; c < cw; c++)
				for (int x = 0; x < card[i]; x++)
				{
					double		a = alpha[c * K + x];

					if (a == 0.0)
						continue;
					for (int y = 0; y < card[i + 1]; y++)
						next[c * K + y] += a * exp(lp[off[i] + (int64_t) x * card[i + 1] + y]);
				}
			/* rescale: the common factor cancels in the normalisation */
			{
				double		mx = 0.0;

				for (int64_t t = 0; t < cw * K; t++)
					mx = next[t] > mx ? next[t] : mx;
				for (int64_t t = 0; t < cw * K; t++)
					alpha[t] = next[t] / mx;
			}
		}
		{
			double		total = 0.0;

			for (int64_t c = 0; c < carried; c++)
			{
				out[c] = 0.0;
				for (int x = 0; x < card[p - 1]; x++)
					out[c] += alpha[c * K + x];
				total += out[c];
			}
			for (int64_t c = 0; c < carried; c++)
				out[c] /= total;
		}
	}
	free(alpha);
	free(next);
}

/*
 * A chain of 14 variables with alphabets of up to 100 values (the shape of
 * UCI Adult's widest columns) and random pair tables: 3-way marginals of
 * far-apart variables, which no cluster holds, against the forward
 * algorithm.
 */
static void
CheckWideAlphabets(MrfRng *rng)
{
	enum
	{
		P = 14
	};
	int			card[P] = {100, 9, 16, 7, 15, 6, 5, 2, 100, 100, 41, 2, 100, 3};
	int			start[P];
	int			var[2 * (P - 1)];
	int64_t		off[P];
	MrfCliqueSet *set;
	MrfBp	   *bp = NULL;
	double	   *lp;
	double	   *marg;
	double	   *got = malloc(sizeof(double) * 1000000);
	double	   *want = malloc(sizeof(double) * 1000000);
	int			triples[4][3] = {{0, 8, 12}, {0, 7, 13}, {1, 6, 11}, {8, 9, 12}};
	MrfBpOptions o;

	for (int c = 0; c < P - 1; c++)
	{
		start[c] = 2 * c;
		var[2 * c] = c;
		var[2 * c + 1] = c + 1;
	}
	start[P - 1] = 2 * (P - 1);
	set = Build(P, card, P - 1, start, var);
	for (int c = 0; c < P - 1; c++)
		off[c] = set->offset[c];
	lp = malloc(sizeof(double) * (size_t) set->cells);
	marg = malloc(sizeof(double) * (size_t) set->cells);
	for (int64_t x = 0; x < set->cells; x++)
		lp[x] = 3.0 * MrfRngUniform(rng);
	memset(&o, 0, sizeof(o));
	o.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(set, &o, &MrfMallocEnv, &bp) == MRF_OK);
	CHECK(MrfBpMarginals(bp, lp, marg, NULL) == MRF_OK);
	for (int t = 0; t < 4; t++)
	{
		int64_t		cells = (int64_t) card[triples[t][0]] * card[triples[t][1]] * card[triples[t][2]];
		double		worst = 0.0;
		double		sum = 0.0;

		CHECK(MrfBpSetMarginal(bp, 3, triples[t], 0, got, NULL) == MRF_OK);
		ChainByForward(P, card, lp, off, 3, triples[t], want);
		for (int64_t x = 0; x < cells; x++)
		{
			double		d = fabs(got[x] - want[x]);

			worst = d > worst ? d : worst;
			sum += got[x];
		}
		CHECK_MSG(worst < 1e-12, "triple %d: largest difference %.3g", t, worst);
		CHECK_NEAR(sum, 1.0, 1e-12);
	}
	/* a 4-way set of 100 x 100 x 100 x 100 cells is above a 10^7-cell limit */
	{
		int			four[4] = {0, 8, 9, 12};
		int64_t		need = 0;

		CHECK(MrfBpSetMarginal(bp, 4, four, 10000000, got, &need) == MRF_EINVAL);
		CHECK(need == 100000000);
	}
	MrfBpFree(bp);
	free(marg);
	free(lp);
	free(got);
	free(want);
	MrfCliqueSetFree(&MrfMallocEnv, set);
}

/*
 * 4- and 5-way marginals of a loopy model (triangulated) against
 * enumeration: sets across clusters, variables no clique holds.
 */
static void
CheckLargerSets(MrfRng *rng)
{
	int			card[8] = {2, 3, 2, 4, 2, 3, 2, 2};
	/* a 4-cycle, a triangle sharing a variable, a tail; variable 7 in no clique */
	int			start[] = {0, 2, 4, 6, 8, 11, 13};
	int			var[] = {0, 1, 1, 2, 2, 3, 3, 0, 3, 4, 5, 5, 6};
	MrfCliqueSet *set = Build(8, card, 6, start, var);
	double	   *lp = RandomModel(set, rng);
	double	   *marg = malloc(sizeof(double) * (size_t) set->cells);
	MrfBp	   *bp = NULL;
	MrfBpOptions o;
	int			sets[5][5] = {{0, 2, 4, 6}, {1, 3, 5, 7}, {0, 1, 2, 3, 6}, {0, 4, 5, 6, 7}, {1, 2, 4, 6}};
	int			sizes[5] = {4, 4, 5, 5, 4};
	double		got[512];
	double		want[512];

	memset(&o, 0, sizeof(o));
	o.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(set, &o, &MrfMallocEnv, &bp) == MRF_OK);
	CHECK(MrfBpMarginals(bp, lp, marg, NULL) == MRF_OK);
	for (int t = 0; t < 5; t++)
	{
		int64_t		cells = MrfVarsCells(card, sizes[t], sets[t], INT64_MAX);
		double		worst = 0.0;

		CHECK(MrfBpSetMarginal(bp, sizes[t], sets[t], 0, got, NULL) == MRF_OK);
		EnumerateSubset(set, lp, sizes[t], sets[t], want);
		for (int64_t x = 0; x < cells; x++)
			worst = fabs(got[x] - want[x]) > worst ? fabs(got[x] - want[x]) : worst;
		CHECK_MSG(worst < 1e-12, "set %d: largest difference %.3g", t, worst);
	}
	MrfBpFree(bp);
	free(marg);
	free(lp);
	MrfCliqueSetFree(&MrfMallocEnv, set);
}

/* One run of a sweep over workload.c and the inference engine's queries. */
typedef struct WorkloadOomCase
{
	int			op;
	const MrfCliqueSet *set;
	const double *logpot;
	const double *cmarg;		/* the model's clique marginals */
	const double *A;			/* an Ising model (p x p) and its fields */
	const double *theta;
	const double *W;			/* a pairwise model of k 3 and its fields */
	const double *wtheta;
	const int  *wcard;
	int			p;				/* of the Ising and pairwise models */
	double	   *out;
	MrfCode    *rows;
} WorkloadOomCase;

static MrfStatus
WorkloadOomRelease(void *arg, const MrfEnv *env)
{
	WorkloadOomCase *c = arg;
	const int	spread[3] = {0, 2, 5};	/* in no clique: eliminated from the tree */
	const int	inside[2] = {3, 4};
	MrfStatus	st = MRF_EINVAL;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 3131);
	switch (c->op)
	{
		case 0:
			st = MrfSubsetMarginal(c->set, c->logpot, NULL, 3, spread, NULL, env, c->out);
			break;
		case 1:
			st = MrfSubsetMarginal(c->set, c->logpot, c->cmarg, 2, inside, NULL, env, c->out);
			break;
		case 2:
			{
				const int  *vars[3] = {spread, inside, spread + 1};
				const int	sizes[3] = {3, 2, 2};
				const int64_t offset[4] = {0, 100, 200, 300};

				st = MrfSubsetMarginalsEnumerate(c->set, c->logpot, 3, sizes, vars, offset,
												 1 << 20, env, c->out);
				break;
			}
		case 3:
		case 4:
			{
				MrfCliqueSet *set = NULL;
				double	   *lp = NULL;

				st = c->op == 3 ?
					MrfIsingAsCliques(c->A, c->theta, c->p, env, &set, &lp) :
					MrfPairwiseAsCliques(c->W, c->wtheta, c->p, 3, c->wcard, env, &set, &lp);
				if (st == MRF_OK)
				{
					MrfCliqueSetFree(env, set);
					MrfFree(env, lp);
				}
				else
					CHECK(set == NULL && lp == NULL);
				break;
			}
		case 5:
			{
				int			decomposable;
				int			parent[8];
				int			order[8];
				int64_t		cells;
				int64_t		fill;

				st = MrfCliquesJunctionTree(c->set, env, &decomposable, parent, order);
				if (st == MRF_OK)
					st = MrfBpTriangulatedCells(c->set, 1 << 20, env, &cells, &fill);
				break;
			}
		default:
			{
				/* the engine: calibration, queries in env, sampling, allocation */
				MrfBp	   *bp = NULL;
				MrfBpOptions bo = {MRF_INFER_EXACT, 0, 0, 0, 0};

				st = MrfBpBuild(c->set, &bo, env, &bp);
				CHECK(st == MRF_OK || bp == NULL);
				if (st == MRF_OK)
					st = MrfBpMarginals(bp, c->logpot, c->out, NULL);
				if (st == MRF_OK)
					st = MrfBpPrepareQueries(bp);
				if (st == MRF_OK)
					st = MrfBpSetMarginalIn(bp, env, 3, spread, 0, c->out, NULL);
				if (st == MRF_OK)
					st = MrfBpSetMarginal(bp, 3, spread, 0, c->out, NULL);
				if (st == MRF_OK)
					st = MrfBpSample(bp, c->logpot, 20, &rng, c->rows);
				if (st == MRF_OK)
					st = MrfBpAllocate(bp, c->logpot, 20, &rng, c->rows);
				if (bp != NULL)
					MrfBpFree(bp);
				break;
			}
	}
	return st;
}

/*
 * Every allocation of workload.c's functions and of the inference engine's
 * queries refused in turn (harness.h's sweep): marginals of sets in no
 * clique of a loopy model (its triangulated junction tree) and inside one,
 * by enumeration, the Ising and pairwise models' clique forms, the junction
 * tree test and the triangulation's cells, and an engine's calibration,
 * queries, sampling and allocation.
 */
static void
TestOutOfMemory(MrfRng *rng)
{
	enum
	{
		P = 6
	};
	int			card[7] = {2, 3, 4, 2, 5, 3, 2};
	int			start[] = {0, 2, 4, 6, 8, 10, 12};
	int			var[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 4, 5};
	MrfCliqueSet *set = Build(7, card, 6, start, var);
	double	   *lp = RandomModel(set, rng);
	double	   *cmarg = malloc(sizeof(double) * (size_t) set->cells);
	double	   *out = malloc(sizeof(double) * (size_t) (set->cells + 400));
	MrfCode    *rows = malloc(sizeof(MrfCode) * 20 * 7);
	double		A[P * P] = {0};
	double		theta[P] = {0.1, -0.2, 0.3, 0, 0.1, 0};
	double	   *W = calloc((size_t) P * P * 9, sizeof(double));
	double		wtheta[P * 3] = {0};
	int			wcard[P] = {3, 2, 3, 3, 2, 3};
	long		refused = 0;
	double		seconds = 0.0;
	int			ops = 0;

	CHECK(MrfCliquesMarginals(set, lp, NULL, &MrfMallocEnv, cmarg, NULL) == MRF_OK);
	for (int i = 0; i + 1 < P; i++)
	{
		A[i * P + i + 1] = 0.4;
		W[(((size_t) i * P + i + 1) * 3 + 1) * 3 + 1] = 0.5;
	}
	for (int op = 0; op < 7; op++)
	{
		WorkloadOomCase c = {op, set, lp, cmarg, A, theta, W, wtheta, wcard, P, out, rows};
		OomSweepResult res;
		char		what[40];

		snprintf(what, sizeof(what), "workload op %d", op);
		res = OomSweep(what, WorkloadOomRelease, &c);
		refused += res.refused;
		seconds += res.seconds;
		ops++;
	}
	printf("# workload out of memory: %ld refused requests over %d runs in %.2f s, each a clean MRF_ENOMEM\n",
		   refused, ops, seconds);
	CHECK(ops == 7 && refused > 50);
	free(lp);
	free(cmarg);
	free(out);
	free(rows);
	free(W);
	MrfCliqueSetFree(&MrfMallocEnv, set);
}

void
TestWorkload(void)
{
	MrfRng		rng;
	int			card[7] = {2, 3, 4, 2, 5, 3, 2};

	MrfRngInitSeeded(&rng, 1201);
	TestOutOfMemory(&rng);
	CheckKindsAsCliques(&rng);
	CheckWideChain();
	CheckWideAlphabets(&rng);
	CheckLargerSets(&rng);

	/* a tree of pairs over mixed alphabets (an MST model's shape) */
	{
		int			start[] = {0, 2, 4, 6, 8, 10, 12};
		int			var[] = {0, 1, 1, 2, 1, 3, 3, 4, 0, 5, 5, 6};
		MrfCliqueSet *set = Build(7, card, 6, start, var);
		double	   *lp = RandomModel(set, &rng);

		CheckAllSubsets("tree of pairs", set, lp);
		free(lp);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	/* a loopy model: a 5-cycle of pairs and a triple (triangulated) */
	{
		int			start[] = {0, 2, 4, 6, 8, 10, 13};
		int			var[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 4, 5, 6};
		MrfCliqueSet *set = Build(7, card, 6, start, var);
		double	   *lp = RandomModel(set, &rng);

		CheckAllSubsets("cycle and a triple", set, lp);
		free(lp);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	/* singletons only: the independent model, every set a product */
	{
		int			start[] = {0, 1, 2, 3, 4, 5, 6, 7};
		int			var[] = {0, 1, 2, 3, 4, 5, 6};
		MrfCliqueSet *set = Build(7, card, 7, start, var);
		double	   *lp = RandomModel(set, &rng);

		CheckAllSubsets("singletons", set, lp);
		free(lp);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	/* a triangle and a tree-shaped tail: a triple inside a clique and across */
	{
		int			start[] = {0, 3, 5, 7, 9};
		int			var[] = {0, 1, 2, 2, 3, 3, 4, 4, 5};
		MrfCliqueSet *set = Build(6, card, 4, start, var);
		double	   *lp = RandomModel(set, &rng);
		double		out[64];
		int			bad[] = {2, 1};
		int			big[] = {0, 3, 5};
		MrfBpOptions tiny;

		CheckAllSubsets("triangle and tail", set, lp);
		/* refused: unsorted or repeated variables, out of range */
		CHECK(MrfSubsetMarginal(set, lp, NULL, 2, bad, NULL, &MrfMallocEnv, out) == MRF_EINVAL);
		bad[0] = 1;
		CHECK(MrfSubsetMarginal(set, lp, NULL, 2, bad, NULL, &MrfMallocEnv, out) == MRF_EINVAL);
		bad[0] = 0;
		bad[1] = 6;
		CHECK(MrfSubsetMarginal(set, lp, NULL, 2, bad, NULL, &MrfMallocEnv, out) == MRF_EINVAL);
		/* a junction tree above the cell limit is refused, not approximated */
		memset(&tiny, 0, sizeof(tiny));
		tiny.max_exact_cells = 10;
		CHECK(MrfSubsetMarginal(set, lp, NULL, 3, big, &tiny, &MrfMallocEnv, out) == MRF_EINVAL);
		free(lp);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}

	/* counts against a tally, L1 of the exact frequencies is 0, of a shifted table 2 */
	{
		enum
		{
			N = 500
		};
		MrfCode		rows[N * 4];
		int			c4[4] = {3, 2, 4, 2};
		int			vars[] = {0, 2, 3};
		int64_t		counts[24];
		long		tally[24];
		double		freq[24];
		double		shifted[24];
		int			ok = 1;

		memset(counts, 0, sizeof(counts));
		memset(tally, 0, sizeof(tally));
		for (int r = 0; r < N; r++)
		{
			/* variable 0 never takes its last value: those cells stay empty */
			for (int j = 0; j < 4; j++)
				rows[r * 4 + j] = (MrfCode) MrfRngBelow(&rng, (uint64_t) (j == 0 ? 2 : c4[j]));
			tally[(rows[r * 4] * 4 + rows[r * 4 + 2]) * 2 + rows[r * 4 + 3]]++;
		}
		CHECK(MrfSubsetCountAdd(rows, N, 4, c4, 3, vars, counts) == MRF_OK);
		for (int x = 0; x < 24; x++)
		{
			ok &= counts[x] == tally[x];
			freq[x] = (double) tally[x] / N;
			shifted[x] = 0.0;
		}
		CHECK(ok);
		CHECK_NEAR(MrfMarginalL1(freq, counts, N, 24), 0.0, 1e-12);
		/* all mass on a cell the rows never hit: L1 = 2 exactly */
		for (int x = 0; x < 24; x++)
			if (tally[x] == 0)
			{
				shifted[x] = 1.0;
				break;
			}
		CHECK_NEAR(MrfMarginalL1(shifted, counts, N, 24), 2.0, 1e-12);
		rows[7] = 2;			/* variable 3 has 2 values */
		CHECK(MrfSubsetCountAdd(rows, N, 4, c4, 3, vars, counts) == MRF_EINVAL);
	}
}
