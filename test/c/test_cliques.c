/*
 * test_cliques.c - the clique learner of Bernstein et al. 2017 (cliques.c,
 * bp.c, simplex.c): the noisy release against the discrete Laplace law, the
 * simplex projection, validation, exact and loopy inference against
 * enumeration, the closed form on junction trees, the sampler, and the
 * paper's synthetic study (naive MLE against CGM-EM) at CI size.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "bp.h"
#include "cliques.h"
#include "sample.h"
#include "cliques_synth.h"
#include "dirichlet.h"
#include "estimate.h"
#include "privacy.h"
#include "simplex.h"

/* Standard errors allowed for moment checks. */
#define SE_TOL 5.0

/* Builds a set from a flat list of equal-sized cliques; aborts the test on failure. */
static MrfCliqueSet *
MakeSet(int p, int k, int m, int size, const int *vars)
{
	int			start[64];
	MrfCliqueSet *set = NULL;
	int			c;

	for (c = 0; c <= m; c++)
		start[c] = c * size;
	CHECK(MrfCliqueSetBuild(p, k, m, start, vars, 0, &MrfMallocEnv, &set) == MRF_OK);
	return set;
}

/*
 * Clique marginals and log Z by enumerating all prod card[i] states: the
 * reference every inference routine is held to (independent of bp.c; its
 * index is computed here, not by MrfCliqueIndex).
 */
static void
EnumerateMarginals(const MrfCliqueSet *set, const double *logpot, double *marg,
				   double *logz)
{
	int64_t		states = 1;
	MrfCode		z[32];
	double	   *w;
	double		mx = -INFINITY;
	double		total = 0.0;
	int64_t		s;
	int			pass;
	int			j;

	for (j = 0; j < set->p; j++)
		states *= set->card[j];
	w = malloc(sizeof(double) * (size_t) states);
	memset(marg, 0, sizeof(double) * (size_t) set->cells);
	for (pass = 0; pass < 2; pass++)
	{
		memset(z, 0, sizeof(z));
		for (s = 0; s < states; s++)
		{
			int			c;

			if (pass == 0)
			{
				double		sc = 0.0;

				for (c = 0; c < set->m; c++)
				{
					int64_t		idx = 0;
					int			i;

					for (i = set->start[c]; i < set->start[c + 1]; i++)
						idx = idx * set->card[set->var[i]] + z[set->var[i]];
					sc += logpot[set->offset[c] + idx];
				}
				w[s] = sc;
				mx = sc > mx ? sc : mx;
			}
			else
			{
				double		pr = exp(w[s] - mx);

				total += pr;
				for (c = 0; c < set->m; c++)
				{
					int64_t		idx = 0;
					int			i;

					for (i = set->start[c]; i < set->start[c + 1]; i++)
						idx = idx * set->card[set->var[i]] + z[set->var[i]];
					marg[set->offset[c] + idx] += pr;
				}
			}
			for (j = set->p - 1; j >= 0; j--)
			{
				if (++z[j] < set->card[j])
					break;
				z[j] = 0;
			}
		}
	}
	for (s = 0; s < set->cells; s++)
		marg[s] /= total;
	if (logz != NULL)
		*logz = mx + log(total);
	free(w);
}

/* Largest absolute difference of two arrays. */
static double
MaxDiff(const double *a, const double *b, int64_t n)
{
	double		worst = 0.0;
	int64_t		i;

	for (i = 0; i < n; i++)
		worst = fabs(a[i] - b[i]) > worst ? fabs(a[i] - b[i]) : worst;
	return worst;
}

/* N(0, sd^2) log-potentials. */
static void
GaussianPotentials(const MrfCliqueSet *set, MrfRng *rng, double sd, double *logpot)
{
	int64_t		x;

	for (x = 0; x < set->cells; x++)
		logpot[x] = sd * MrfRngNormal(rng);
}

/*
 * The released noise against the discrete Laplace law with scale t = num/den
 * (q = exp(-1/t)): mean 0, variance 2q/(1-q)^2, P(0) = (1-q)/(1+q); and the
 * scale itself is 2m/epsilon rounded up (never down).
 */
static void
TestReleaseNoise(void)
{
	const int	vars[] = {0, 1, 1, 2, 0, 2};
	MrfCliqueSet *set = MakeSet(3, 64, 3, 2, vars);	/* 3 x 4096 cells */
	const double eps = 1.5;
	const int	rounds = 20;
	int64_t    *counts = calloc((size_t) set->cells, sizeof(int64_t));
	int64_t    *noisy = malloc(sizeof(int64_t) * (size_t) set->cells);
	MrfCliquesReport rep;
	MrfRng		rng;
	double		sum = 0.0;
	double		sum2 = 0.0;
	double		sum4 = 0.0;
	long		zeros = 0;
	long		draws = 0;
	double		t;
	double		q;
	double		var;
	double		p0;
	double		mean;
	double		v_hat;
	int			r;
	int64_t		x;
	uint64_t	num;
	uint64_t	den;

	MrfRngInitSeeded(&rng, 600);
	/* a constant offset in the counts must pass through unchanged */
	for (x = 0; x < set->cells; x++)
		counts[x] = 1000;
	for (r = 0; r < rounds; r++)
	{
		CHECK(MrfCliquesRelease(counts, set, eps, &rng, noisy, &rep) == MRF_OK);
		for (x = 0; x < set->cells; x++)
		{
			double		e = (double) (noisy[x] - 1000);

			sum += e;
			sum2 += e * e;
			sum4 += e * e * e * e;
			zeros += noisy[x] == 1000;
			draws++;
		}
	}
	CHECK_NEAR(rep.sensitivity, 6.0, 0.0);
	CHECK(rep.noise_num * 1.0 / rep.noise_den >= 6.0 / eps);
	CHECK(rep.noise_num * 1.0 / rep.noise_den < 6.0 / eps * (1 + 1e-5));
	t = (double) rep.noise_num / (double) rep.noise_den;
	q = exp(-1.0 / t);
	var = 2.0 * q / ((1.0 - q) * (1.0 - q));
	p0 = (1.0 - q) / (1.0 + q);
	mean = sum / draws;
	v_hat = sum2 / draws;
	CHECK_MSG(fabs(mean) < SE_TOL * sqrt(var / draws), "mean %.4f, se %.4f", mean,
			  sqrt(var / draws));
	CHECK_MSG(fabs(v_hat - var) < SE_TOL * sqrt((sum4 / draws - v_hat * v_hat) / draws),
			  "variance %.4f, expected %.4f", v_hat, var);
	CHECK_MSG(fabs((double) zeros / draws - p0) < SE_TOL * sqrt(p0 * (1 - p0) / draws),
			  "P(0) %.5f, expected %.5f", (double) zeros / draws, p0);
	/* negative control: the add/remove scale m/eps has half the variance */
	{
		double		q2 = exp(-2.0 / t);
		double		var2 = 2.0 * q2 / ((1.0 - q2) * (1.0 - q2));

		CHECK(fabs(v_hat - var2) > 10 * SE_TOL * sqrt(var / draws));
	}

	/* calibration edge cases */
	CHECK(MrfCliquesNoiseScale(1.0, 5, &num, &den) == 0 && num >= 10 * den);
	CHECK(MrfCliquesNoiseScale(0.0, 5, &num, &den) == -1);
	CHECK(MrfCliquesNoiseScale(NAN, 5, &num, &den) == -1);
	CHECK(MrfCliquesNoiseScale(1.0, 0, &num, &den) == -1);
	CHECK(MrfCliquesNoiseScale(1e-12, 5, &num, &den) == -1);	/* scale > 2^40 */
	CHECK(MrfCliquesNoiseScale(1e-9, 5, &num, &den) == 0 &&
		  (double) num / (double) den >= 1e10);
	CHECK(MrfCliquesRelease(counts, set, -1.0, &rng, noisy, NULL) == MRF_EINVAL);
	free(counts);
	free(noisy);
	MrfCliqueSetFree(&MrfMallocEnv, set);
}

/* Duchi et al. 2008 projection: known answers and the KKT conditions. */
static void
TestSimplex(void)
{
	double		out[8];
	MrfRng		rng;
	int			trial;

	{
		const double v[3] = {0.2, 0.3, 0.5};	/* already on the simplex */

		CHECK(MrfSimplexProject(v, 3, out, &MrfMallocEnv) == MRF_OK);
		CHECK(MaxDiff(out, v, 3) < 1e-15);
	}
	{
		const double v[3] = {-1.0, -2.0, -3.0};	/* all negative */
		const double e[3] = {1.0, 0.0, 0.0};

		CHECK(MrfSimplexProject(v, 3, out, &MrfMallocEnv) == MRF_OK);
		CHECK(MaxDiff(out, e, 3) < 1e-15);
	}
	{
		const double v[3] = {0.5, 0.5, 0.5};	/* three-way tie */

		CHECK(MrfSimplexProject(v, 3, out, &MrfMallocEnv) == MRF_OK);
		CHECK_NEAR(out[0], 1.0 / 3, 1e-15);
		CHECK_NEAR(out[1], 1.0 / 3, 1e-15);
		CHECK_NEAR(out[2], 1.0 / 3, 1e-15);
	}
	{
		const double v[4] = {1.0, 1.0, 0.0, -5.0};	/* tie at the top */
		const double e[4] = {0.5, 0.5, 0.0, 0.0};

		CHECK(MrfSimplexProject(v, 4, out, &MrfMallocEnv) == MRF_OK);
		CHECK(MaxDiff(out, e, 4) < 1e-15);
	}
	{
		const double v[3] = {0.5, 0.8, -0.1};	/* tau = 0.15 */
		const double e[3] = {0.35, 0.65, 0.0};

		CHECK(MrfSimplexProject(v, 3, out, &MrfMallocEnv) == MRF_OK);
		CHECK(MaxDiff(out, e, 3) < 1e-15);
	}
	{
		double		v[2] = {7.0, 3.0};	/* in place, one survivor */

		CHECK(MrfSimplexProject(v, 2, v, &MrfMallocEnv) == MRF_OK);
		CHECK(v[0] == 1.0 && v[1] == 0.0);
	}

	/* KKT: out = max(v - tau, 0) for one tau, and sum(out) = 1 */
	MrfRngInitSeeded(&rng, 601);
	for (trial = 0; trial < 200; trial++)
	{
		double		v[8];
		double		tau = NAN;
		double		s = 0.0;
		int			ok = 1;
		int			i;

		for (i = 0; i < 8; i++)
			v[i] = 2.0 * MrfRngNormal(&rng);
		MrfSimplexProject(v, 8, out, &MrfMallocEnv);
		for (i = 0; i < 8; i++)
		{
			s += out[i];
			ok &= out[i] >= 0.0;
			if (out[i] > 0.0)
			{
				if (isnan(tau))
					tau = v[i] - out[i];
				ok &= fabs(v[i] - out[i] - tau) < 1e-12;
			}
		}
		for (i = 0; i < 8; i++)
			if (out[i] == 0.0)
				ok &= v[i] <= tau + 1e-12;
		CHECK_MSG(ok && fabs(s - 1.0) < 1e-12, "trial %d: KKT violated (sum %.15f)", trial, s);
		if (!ok)
			break;
	}
	{
		const double bad[2] = {NAN, 1.0};

		CHECK(MrfSimplexProject(bad, 2, out, &MrfMallocEnv) == MRF_EINVAL);
		CHECK(MrfSimplexProject(bad, 0, out, &MrfMallocEnv) == MRF_EINVAL);
	}
}

/* Every validation outcome, with the offending clique. */
static void
TestValidation(void)
{
	int			bad;
	MrfCliqueSet *set;

	{
		const int	start[] = {0, 2, 4};
		const int	var[] = {2, 0, 1, 2};	/* unsorted input is accepted */

		CHECK(MrfCliqueSetCheck(3, 2, 2, start, var, 0, &bad) == NULL && bad == -1);
		CHECK(MrfCliqueSetBuild(3, 2, 2, start, var, 0, &MrfMallocEnv, &set) == MRF_OK);
		CHECK(set->var[0] == 0 && set->var[1] == 2 && set->cells == 8);
		MrfCliqueSetFree(&MrfMallocEnv, set);
		CHECK(MrfCliqueSetCheck(0, 2, 2, start, var, 0, &bad) == MrfCliquesBadP);
		CHECK(MrfCliqueSetCheck(3, 1, 2, start, var, 0, &bad) == MrfCliquesBadK);
		CHECK(MrfCliqueSetCheck(3, MRF_CODE_CARD_MAX + 1, 2, start, var, 0, &bad) == MrfCliquesBadK);
		CHECK(MrfCliqueSetCheck(3, 4096, 2, start, var, 0, &bad) == NULL);
		CHECK(MrfCliqueSetCheck(3, 2, 0, start, var, 0, &bad) == MrfCliquesNoCliques);
		CHECK(MrfCliqueSetCheck(2, 2, 2, start, var, 0, &bad) == MrfCliquesOutOfRange && bad == 0);
		/* 2 + 2 cells: the limit 3 rejects each table, 7 only the total */
		CHECK(MrfCliqueSetCheck(3, 2, 2, start, var, 3, &bad) == MrfCliquesTableTooLarge);
		CHECK(MrfCliqueSetCheck(3, 2, 2, start, var, 7, &bad) == MrfCliquesTotalTooLarge && bad == 1);
	}
	{
		const int	start[] = {0, 2, 2};

		CHECK(MrfCliqueSetCheck(3, 2, 2, start, (const int[]) {0, 1}, 0, &bad) == MrfCliquesEmptyClique && bad == 1);
	}
	{
		const int	start[] = {0, 1, 3};

		CHECK(MrfCliqueSetCheck(3, 2, 2, start, (const int[]) {0, 1, 1}, 0, &bad) == MrfCliquesRepeatedVariable && bad == 1);
		CHECK(MrfCliqueSetCheck(3, 2, 2, start, (const int[]) {-1, 1, 2}, 0, &bad) == MrfCliquesOutOfRange && bad == 0);
	}
	{
		const int	start[] = {0, 2, 4, 6};

		CHECK(MrfCliqueSetCheck(3, 2, 3, start, (const int[]) {0, 1, 1, 2, 1, 0}, 0, &bad) == MrfCliquesDuplicateClique && bad == 2);
		CHECK(MrfCliqueSetBuild(3, 2, 3, start, (const int[]) {0, 1, 1, 2, 1, 0}, 0, &MrfMallocEnv, &set) == MRF_EINVAL);
	}
	{
		int			start[] = {0, 40};
		int			var[40];
		int			i;

		for (i = 0; i < 40; i++)
			var[i] = i;
		/* 2^40 cells is over the hard ceiling of 2^30 */
		CHECK(MrfCliqueSetCheck(40, 2, 1, start, var, 0, &bad) == MrfCliquesTableTooLarge);
	}
	CHECK(strstr(MrfCliquesDuplicateClique, "twice") != NULL);
}

/*
 * Exact inference (junction tree of the cliques, and of a triangulation)
 * and loopy BP against enumeration; decomposability detection.
 */
static void
TestInference(void)
{
	MrfRng		rng;
	double		psi[512];
	double		a[512];
	double		b[512];
	double		lz_a;
	double		lz_b;
	MrfBpOptions bo;
	int			dec;

	MrfRngInitSeeded(&rng, 602);
	memset(&bo, 0, sizeof(bo));
	{
		/* a tree of edges with a singleton clique and a disconnected edge */
		const int	start[] = {0, 2, 4, 6, 8, 9, 11};
		const int	var[] = {0, 1, 1, 2, 1, 3, 3, 4, 2, 5, 6};
		MrfCliqueSet *set;

		CHECK(MrfCliqueSetBuild(7, 3, 6, start, var, 0, &MrfMallocEnv, &set) == MRF_OK);
		CHECK(MrfCliquesJunctionTree(set, &MrfMallocEnv, &dec, NULL, NULL) == MRF_OK && dec == 1);
		GaussianPotentials(set, &rng, 1.5, psi);
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, &lz_a) == MRF_OK);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "tree: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);
		/* on a tree of pairwise factors loopy BP is exact too */
		bo.mode = MRF_INFER_LOOPY;
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, &lz_a) == MRF_OK);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-7, "tree, loopy BP: %.3g", MaxDiff(a, b, set->cells));
		CHECK(isnan(lz_a));
		bo.mode = MRF_INFER_AUTO;
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* chain of triples: a junction tree with two-variable separators */
		const int	var[] = {0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5};
		MrfCliqueSet *set = MakeSet(6, 3, 4, 3, var);

		CHECK(MrfCliquesJunctionTree(set, &MrfMallocEnv, &dec, NULL, NULL) == MRF_OK && dec == 1);
		GaussianPotentials(set, &rng, 1.5, psi);
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, &lz_a) == MRF_OK);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "triples: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/*
		 * loopy: a 5-cycle with a chord, plus a triangle in its own
		 * component (disconnected parts join by empty separators)
		 */
		const int	var[] = {0, 1, 1, 2, 2, 3, 3, 4, 0, 4, 1, 3, 5, 6, 6, 7, 5, 7};
		MrfCliqueSet *set = MakeSet(8, 3, 9, 2, var);
		MrfBpInfo	info;
		MrfBp	   *bp;

		CHECK(MrfCliquesJunctionTree(set, &MrfMallocEnv, &dec, NULL, NULL) == MRF_OK && dec == 0);
		GaussianPotentials(set, &rng, 1.5, psi);
		CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) == MRF_OK);
		MrfBpGetInfo(bp, &info);
		CHECK(info.exact == 1 && info.decomposable == 0 && info.clusters == 4);
		CHECK(MrfBpMarginals(bp, psi, a, &lz_a) == MRF_OK);
		MrfBpFree(bp);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "triangulated: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);

		/* forced exact with a cell limit too small for the triangulation */
		bo.mode = MRF_INFER_EXACT;
		bo.max_exact_cells = 20;
		CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) == MRF_EINVAL && bp == NULL);
		bo.mode = MRF_INFER_AUTO;
		CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) == MRF_OK);
		MrfBpGetInfo(bp, &info);
		CHECK(info.exact == 0);	/* fell back to loopy BP */
		MrfBpFree(bp);
		bo.max_exact_cells = 0;

		/* loopy BP is approximate: weak potentials, small error */
		GaussianPotentials(set, &rng, 0.3, psi);
		EnumerateMarginals(set, psi, b, NULL);
		bo.mode = MRF_INFER_LOOPY;
		CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) == MRF_OK);
		CHECK(MrfBpMarginals(bp, psi, a, NULL) == MRF_OK);
		MrfBpGetInfo(bp, &info);
		CHECK(info.last_converged && info.last_iterations > 1);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 0.02, "loopy BP: %.3g", MaxDiff(a, b, set->cells));
		/* and not exact: a loopy BP that returned the truth would be suspicious */
		CHECK(MaxDiff(a, b, set->cells) > 1e-6);
		/* warm start: the same potentials again converge at once */
		CHECK(MrfBpMarginals(bp, psi, a, NULL) == MRF_OK);
		MrfBpGetInfo(bp, &info);
		CHECK(info.last_iterations <= 2);
		MrfBpFree(bp);
		bo.mode = MRF_INFER_AUTO;
		psi[3] = INFINITY;
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, NULL) == MRF_EINVAL);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
}

/*
 * Non-private fits from exact marginals: on junction trees the closed form
 * reproduces the model (KL 0, marginals equal); on a loopy graph the
 * gradient fit gets close.
 */
static void
TestClosedForm(void)
{
	MrfCliquesOptions opt;
	MrfCliquesReport rep;
	MrfRng		rng;
	double		psi[512];
	double		fit[512];
	double		m0[512];
	double		m1[512];
	double		kl;

	MrfCliquesDefaultOptions(&opt);
	MrfRngInitSeeded(&rng, 603);
	{
		/* a tree model (star plus path) with k = 3, Dirichlet(1) potentials */
		const int	var[] = {0, 1, 0, 2, 0, 3, 3, 4, 4, 5};
		MrfCliqueSet *set = MakeSet(6, 3, 5, 2, var);

		SynthPotentials(set, &rng, psi);
		EnumerateMarginals(set, psi, m0, NULL);
		CHECK(MrfCliquesFitMarginals(m0, set, &opt, &MrfMallocEnv, fit, &rep) == MRF_OK);
		CHECK(rep.decomposable == 1 && rep.converged == 1 && rep.fit_steps == 0);
		EnumerateMarginals(set, fit, m1, NULL);
		CHECK_MSG(MaxDiff(m0, m1, set->cells) < 1e-12, "tree closed form: %.3g",
				  MaxDiff(m0, m1, set->cells));
		CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK);
		CHECK(kl < 1e-12);
		/* negative control: the KL of a perturbed model is not 0 */
		fit[0] += 0.5;
		CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK && kl > 1e-4);
		m0[0] = 0.0;
		CHECK(MrfCliquesFitMarginals(m0, set, &opt, &MrfMallocEnv, fit, &rep) == MRF_EINVAL);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		const int	var[] = {0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 6};
		MrfCliqueSet *set = MakeSet(7, 2, 5, 3, var);

		SynthPotentials(set, &rng, psi);
		EnumerateMarginals(set, psi, m0, NULL);
		CHECK(MrfCliquesFitMarginals(m0, set, &opt, &MrfMallocEnv, fit, &rep) == MRF_OK);
		CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK);
		CHECK_MSG(kl < 1e-12, "triple chain closed form: KL %.3g", kl);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* loopy (4-cycle): gradient ascent with the token ridge */
		const int	var[] = {0, 1, 1, 2, 2, 3, 0, 3};
		MrfCliqueSet *set = MakeSet(4, 3, 4, 2, var);

		SynthPotentials(set, &rng, psi);
		EnumerateMarginals(set, psi, m0, NULL);
		CHECK(MrfCliquesFitMarginals(m0, set, &opt, &MrfMallocEnv, fit, &rep) == MRF_OK);
		CHECK(rep.decomposable == 0 && rep.fit_steps > 0);
		EnumerateMarginals(set, fit, m1, NULL);
		CHECK_MSG(MaxDiff(m0, m1, set->cells) < 2e-3, "4-cycle fit: %.3g", MaxDiff(m0, m1, set->cells));
		CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK);
		CHECK_MSG(kl < 1e-3, "4-cycle fit: KL %.3g", kl);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
}

/* Exact sampler by chi-square; Gibbs (k^p above 2^16) by its clique marginals. */
static void
TestSampler(void)
{
	MrfRng		rng;
	double		psi[512];
	double		m0[512];

	MrfRngInitSeeded(&rng, 604);
	{
		const int	var[] = {0, 1, 1, 2};
		MrfCliqueSet *set = MakeSet(3, 2, 2, 2, var);
		const int64_t n = 40000;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 3);
		long		obs[8] = {0};
		double		prob[8];
		double		total = 0.0;
		int64_t		r;
		int			s;

		GaussianPotentials(set, &rng, 1.0, psi);
		CHECK(MrfCliquesSample(set, psi, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
		for (r = 0; r < n; r++)
			obs[rows[3 * r] * 4 + rows[3 * r + 1] * 2 + rows[3 * r + 2]]++;
		for (s = 0; s < 8; s++)
		{
			prob[s] = exp(psi[(s >> 1)] + psi[4 + (s & 3)]);
			total += prob[s];
		}
		for (s = 0; s < 8; s++)
			prob[s] /= total;
		CHECK_MSG(ChiSquareSurvival(ChiSquareStatistic(obs, prob, 8, n), 7) > 1e-4,
				  "exact sampler: chi-square p-value too small");
		free(rows);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* 17 binary variables in a path: 2^17 states, so Gibbs */
		int			var[32];
		MrfCliqueSet *set;
		const int64_t n = 20000;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 17);
		int64_t    *counts = malloc(sizeof(int64_t) * 64);
		double		emp[64];
		int			i;
		int64_t		x;

		for (i = 0; i < 16; i++)
		{
			var[2 * i] = i;
			var[2 * i + 1] = i + 1;
		}
		set = MakeSet(17, 2, 16, 2, var);
		GaussianPotentials(set, &rng, 0.7, psi);
		CHECK(MrfCliquesMarginals(set, psi, NULL, &MrfMallocEnv, m0, NULL) == MRF_OK);
		CHECK(MrfCliquesSample(set, psi, n, 200, 3, &rng, &MrfMallocEnv, rows) == MRF_OK);
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_OK);
		for (x = 0; x < set->cells; x++)
			emp[x] = (double) counts[x] / (double) n;
		CHECK_MSG(MaxDiff(emp, m0, set->cells) < 0.025, "Gibbs marginals off by %.3g",
				  MaxDiff(emp, m0, set->cells));
		rows[5] = 2;			/* a value outside the alphabet */
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_EINVAL);
		free(rows);
		free(counts);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
}

/* Builds a set with per-variable alphabets from equal-sized cliques. */
static MrfCliqueSet *
MakeSetAlphabets(int p, const int *card, int m, int size, const int *vars)
{
	int			start[64];
	MrfCliqueSet *set = NULL;
	int			c;

	for (c = 0; c <= m; c++)
		start[c] = c * size;
	CHECK(MrfCliqueSetBuildAlphabets(p, card, m, start, vars, 0, &MrfMallocEnv, &set) == MRF_OK);
	return set;
}

/* Alphabets 2, 3, 5, 2, 3, 5, ... for p variables. */
static void
MixedCards(int p, int *card)
{
	for (int i = 0; i < p; i++)
		card[i] = (const int[]) {2, 3, 5}[i % 3];
}

/*
 * Per-variable alphabets (k = 2, 3, 5 mixed): validation by the real table
 * sizes, the mixed-radix index and counts against an independent count,
 * values refused at their own variable's bound, a uniform card equal to the
 * single-k set, and exact and loopy inference, the closed form, KL and both
 * samplers against enumeration.
 */
static void
TestMixedAlphabets(void)
{
	MrfRng		rng;
	double		psi[1024];
	double		a[1024];
	double		b[1024];
	double		lz_a;
	double		lz_b;
	MrfBpOptions bo;
	int			card[32];
	int			dec;
	int			bad;

	MrfRngInitSeeded(&rng, 611);
	memset(&bo, 0, sizeof(bo));
	{
		/* cliques {0,1,2} (2*3*5 = 30 cells), {2,3} (10), {1,4} (9), {3} (2) */
		const int	start[] = {0, 3, 5, 7, 8};
		const int	var[] = {2, 0, 1, 3, 2, 4, 1, 3};
		const int	bad_card[] = {2, 1, 5, 2, 3};
		const int	big_card[] = {2, 3, MRF_CODE_CARD_MAX + 1, 2, 3};
		const int64_t n = 5000;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 5);
		int64_t		counts[64];
		int64_t		ref[64];
		MrfCliqueSet *set;
		MrfCliqueSet *one;
		MrfCliqueSet *same;
		int			three[5] = {3, 3, 3, 3, 3};

		MixedCards(5, card);
		CHECK(MrfCliqueSetCheckAlphabets(5, card, 4, start, var, 0, &bad) == NULL);
		CHECK(MrfCliqueSetCheckAlphabets(5, bad_card, 4, start, var, 0, &bad) == MrfCliquesBadK);
		CHECK(MrfCliqueSetCheckAlphabets(5, big_card, 4, start, var, 0, &bad) == MrfCliquesBadK);
		CHECK(MrfCliqueSetCheckAlphabets(5, NULL, 4, start, var, 0, &bad) == MrfCliquesBadK);
		/* the first table has 30 cells: a limit of 29 refuses it (2^3 = 8 would pass) */
		CHECK(MrfCliqueSetCheckAlphabets(5, card, 4, start, var, 29, &bad) == MrfCliquesTableTooLarge && bad == 0);
		CHECK(MrfCliqueSetCheckAlphabets(5, card, 4, start, var, 30 + 10 + 9 + 1, &bad) == MrfCliquesTotalTooLarge && bad == 3);
		CHECK(MrfCliqueSetCheckAlphabets(5, card, 4, start, var, 30 + 10 + 9 + 2, &bad) == NULL);
		CHECK(MrfCliqueSetBuildAlphabets(5, bad_card, 4, start, var, 0, &MrfMallocEnv, &set) == MRF_EINVAL);

		CHECK(MrfCliqueSetBuildAlphabets(5, card, 4, start, var, 0, &MrfMallocEnv, &set) == MRF_OK);
		CHECK(set->k == 5 && !MrfCliqueSetUniform(set));
		CHECK(set->offset[1] == 30 && set->offset[2] == 40 && set->offset[3] == 49 && set->cells == 51);
		CHECK(MrfCliqueSetStates(set, INT64_MAX) == 2 * 3 * 5 * 2 * 3);
		CHECK(MrfCliqueSetStates(set, 179) == -1);
		/* random rows, each value below its own variable's alphabet */
		for (int64_t r = 0; r < n; r++)
			for (int j = 0; j < 5; j++)
				rows[r * 5 + j] = (MrfCode) MrfRngBelow(&rng, (uint64_t) card[j]);
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_OK);
		/* independent count: clique {0,1,2} is z0 * 15 + z1 * 5 + z2, and so on */
		memset(ref, 0, sizeof(ref));
		{
			int			index_ok = 1;

			for (int64_t r = 0; r < n; r++)
			{
				const MrfCode *z = rows + r * 5;

				ref[z[0] * 15 + z[1] * 5 + z[2]]++;
				ref[30 + z[2] * 2 + z[3]]++;
				ref[40 + z[1] * 3 + z[4]]++;
				ref[49 + z[3]]++;
				index_ok &= MrfCliqueIndex(set, 0, z) == z[0] * 15 + z[1] * 5 + z[2] &&
					MrfCliqueIndex(set, 2, z) == z[1] * 3 + z[4];
			}
			CHECK(index_ok);
		}
		CHECK(memcmp(counts, ref, sizeof(int64_t) * 51) == 0);
		/* every table sums to n and no cell of a table is left unreached */
		{
			int			reached = 1;

			for (int x = 0; x < 51; x++)
				reached &= ref[x] > 0;
			CHECK(reached);
		}
		/* 2 is a value of variable 1 (k = 3) but not of variable 0 (k = 2) */
		rows[5 * 7 + 1] = 2;
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_OK);
		rows[5 * 7 + 0] = 2;
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_EINVAL);
		rows[5 * 7 + 0] = 1;
		rows[5 * 9 + 2] = 5;
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_EINVAL);

		/* a uniform card is the single-k set */
		CHECK(MrfCliqueSetBuild(5, 3, 4, start, var, 0, &MrfMallocEnv, &one) == MRF_OK);
		CHECK(MrfCliqueSetBuildAlphabets(5, three, 4, start, var, 0, &MrfMallocEnv, &same) == MRF_OK);
		CHECK(MrfCliqueSetUniform(one) && MrfCliqueSetUniform(same) && same->k == 3);
		CHECK(one->cells == same->cells && one->cells == 27 + 9 + 9 + 3);
		CHECK(memcmp(one->offset, same->offset, sizeof(int64_t) * 5) == 0 &&
			  memcmp(one->var, same->var, sizeof(int) * 8) == 0);
		/* KL between models with different alphabets is refused */
		GaussianPotentials(one, &rng, 1.0, a);
		GaussianPotentials(set, &rng, 1.0, b);
		CHECK(MrfCliquesKl(one, a, set, b, &MrfMallocEnv, &lz_a) == MRF_EINVAL);
		CHECK(MrfCliquesKl(one, a, same, a, &MrfMallocEnv, &lz_a) == MRF_OK && lz_a < 1e-12);

		/* exact inference on the cliques' own junction tree */
		GaussianPotentials(set, &rng, 1.5, psi);
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, &lz_a) == MRF_OK);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "mixed tree: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);
		free(rows);
		MrfCliqueSetFree(&MrfMallocEnv, set);
		MrfCliqueSetFree(&MrfMallocEnv, one);
		MrfCliqueSetFree(&MrfMallocEnv, same);
	}
	{
		/* a tree of edges: exact, and loopy BP exact on it too */
		const int	var[] = {0, 1, 1, 2, 1, 3, 3, 4, 2, 5, 5, 6};
		MrfCliqueSet *set;

		MixedCards(7, card);
		set = MakeSetAlphabets(7, card, 6, 2, var);
		CHECK(MrfCliquesJunctionTree(set, &MrfMallocEnv, &dec, NULL, NULL) == MRF_OK && dec == 1);
		GaussianPotentials(set, &rng, 1.5, psi);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, &lz_a) == MRF_OK);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "mixed edges: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);
		bo.mode = MRF_INFER_LOOPY;
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, NULL) == MRF_OK);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-7, "mixed edges, loopy BP: %.3g", MaxDiff(a, b, set->cells));
		bo.mode = MRF_INFER_AUTO;
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* chain of triples (separators of two variables with different alphabets) */
		const int	var[] = {0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5};
		MrfCliqueSet *set;
		MrfCliquesOptions opt;
		MrfCliquesReport rep;
		double		kl;

		MixedCards(6, card);
		set = MakeSetAlphabets(6, card, 4, 3, var);
		CHECK(set->cells == 30 * 4);
		GaussianPotentials(set, &rng, 1.5, psi);
		CHECK(MrfCliquesMarginals(set, psi, &bo, &MrfMallocEnv, a, &lz_a) == MRF_OK);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "mixed triples: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);
		/* the closed form reproduces the model from its marginals */
		MrfCliquesDefaultOptions(&opt);
		SynthPotentials(set, &rng, psi);
		EnumerateMarginals(set, psi, a, NULL);
		CHECK(MrfCliquesFitMarginals(a, set, &opt, &MrfMallocEnv, b, &rep) == MRF_OK);
		CHECK(rep.decomposable == 1 && rep.fit_steps == 0);
		CHECK(MrfCliquesKl(set, psi, set, b, &MrfMallocEnv, &kl) == MRF_OK);
		CHECK_MSG(kl < 1e-12, "mixed triples closed form: KL %.3g", kl);
		b[7] += 0.5;
		CHECK(MrfCliquesKl(set, psi, set, b, &MrfMallocEnv, &kl) == MRF_OK && kl > 1e-4);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* loopy: a 5-cycle with a chord; triangulated exact, then loopy BP */
		const int	var[] = {0, 1, 1, 2, 2, 3, 3, 4, 0, 4, 1, 3};
		MrfCliqueSet *set;
		MrfBp	   *bp;
		MrfBpInfo	info;

		MixedCards(5, card);
		set = MakeSetAlphabets(5, card, 6, 2, var);
		CHECK(MrfCliquesJunctionTree(set, &MrfMallocEnv, &dec, NULL, NULL) == MRF_OK && dec == 0);
		GaussianPotentials(set, &rng, 1.5, psi);
		CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) == MRF_OK);
		MrfBpGetInfo(bp, &info);
		CHECK(info.exact == 1 && info.decomposable == 0);
		CHECK(MrfBpMarginals(bp, psi, a, &lz_a) == MRF_OK);
		MrfBpFree(bp);
		EnumerateMarginals(set, psi, b, &lz_b);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 1e-12, "mixed triangulated: %.3g", MaxDiff(a, b, set->cells));
		CHECK_NEAR(lz_a, lz_b, 1e-10);
		GaussianPotentials(set, &rng, 0.3, psi);
		EnumerateMarginals(set, psi, b, NULL);
		bo.mode = MRF_INFER_LOOPY;
		CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) == MRF_OK);
		CHECK(MrfBpMarginals(bp, psi, a, NULL) == MRF_OK);
		MrfBpGetInfo(bp, &info);
		CHECK(info.last_converged);
		CHECK_MSG(MaxDiff(a, b, set->cells) < 0.02, "mixed loopy BP: %.3g", MaxDiff(a, b, set->cells));
		CHECK(MaxDiff(a, b, set->cells) > 1e-6);
		MrfBpFree(bp);
		bo.mode = MRF_INFER_AUTO;
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* exact sampler (2*3*5*2 = 60 states) by chi-square against enumeration */
		const int	var[] = {0, 1, 1, 2, 2, 3};
		MrfCliqueSet *set;
		const int64_t n = 60000;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 4);
		long		obs[60] = {0};
		double		prob[60];
		double		mx = -INFINITY;
		double		total = 0.0;
		MrfCode		z[4] = {0, 0, 0, 0};
		int			outside = 0;

		MixedCards(4, card);
		set = MakeSetAlphabets(4, card, 3, 2, var);
		GaussianPotentials(set, &rng, 1.0, psi);
		for (int s = 0; s < 60; s++)
		{
			prob[s] = MrfCliquesScore(set, psi, z);
			mx = prob[s] > mx ? prob[s] : mx;
			MrfCliquesNextStateAlphabets(z, 4, card);
		}
		for (int s = 0; s < 60; s++)
			total += prob[s] = exp(prob[s] - mx);
		for (int s = 0; s < 60; s++)
			prob[s] /= total;
		CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0 && z[3] == 0);	/* wrapped round */
		CHECK(MrfCliquesSample(set, psi, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
		for (int64_t r = 0; r < n; r++)
		{
			const MrfCode *w = rows + r * 4;

			for (int j = 0; j < 4; j++)
				outside += w[j] >= card[j];
			if (w[0] < 2 && w[1] < 3 && w[2] < 5 && w[3] < 2)
				obs[((w[0] * 3 + w[1]) * 5 + w[2]) * 2 + w[3]]++;
		}
		CHECK(outside == 0);
		CHECK_MSG(ChiSquareSurvival(ChiSquareStatistic(obs, prob, 60, n), 59) > 1e-4,
				  "mixed exact sampler: chi-square p-value too small");
		free(rows);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* 11 variables in a path, 2^4 3^4 5^3 states above 2^16: Gibbs */
		int			var[32];
		MrfCliqueSet *set;
		const int64_t n = 20000;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 11);
		int64_t    *counts = malloc(sizeof(int64_t) * 512);
		double		emp[512];
		int			outside = 0;

		for (int i = 0; i < 10; i++)
		{
			var[2 * i] = i;
			var[2 * i + 1] = i + 1;
		}
		MixedCards(11, card);
		set = MakeSetAlphabets(11, card, 10, 2, var);
		CHECK(MrfCliqueSetStates(set, MRF_CLIQUES_EXACT_SAMPLE_STATES) == -1);
		GaussianPotentials(set, &rng, 0.7, psi);
		CHECK(MrfCliquesMarginals(set, psi, NULL, &MrfMallocEnv, a, NULL) == MRF_OK);
		CHECK(MrfCliquesSample(set, psi, n, 200, 3, &rng, &MrfMallocEnv, rows) == MRF_OK);
		for (int64_t r = 0; r < n; r++)
			for (int j = 0; j < 11; j++)
				outside += rows[r * 11 + j] >= card[j];
		CHECK(outside == 0);
		CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_OK);
		for (int64_t x = 0; x < set->cells; x++)
			emp[x] = (double) counts[x] / (double) n;
		CHECK_MSG(MaxDiff(emp, a, set->cells) < 0.025, "mixed Gibbs marginals off by %.3g",
				  MaxDiff(emp, a, set->cells));
		free(rows);
		free(counts);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	{
		/* the learner: workspace estimate covers its peak; close at epsilon 5 */
		const int	var[] = {0, 1, 2, 1, 2, 3, 2, 3, 4};
		MrfCliqueSet *set;
		const int64_t n = 4000;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 5);
		double		fit[256];
		MrfCliquesOptions opt;
		MrfCliquesReport rep;
		CountingEnv ce;
		MrfEnv		env;
		size_t		bytes = 0;
		double		kl;

		MixedCards(5, card);
		set = MakeSetAlphabets(5, card, 3, 3, var);
		SynthPotentials(set, &rng, psi);
		CHECK(MrfCliquesSample(set, psi, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
		MrfCliquesDefaultOptions(&opt);
		opt.epsilon = 5.0;
		CountingEnvInit(&ce, &env);
		CHECK(MrfCliquesWorkspaceBytes(set, &opt, &env, &bytes) == MRF_OK && bytes > 0);
		CHECK(MrfCliquesLearn(rows, n, set, &opt, &rng, &env, fit, NULL, &rep) == MRF_OK);
		CHECK(ce.live == 0);
		CHECK_MSG(ce.peak <= bytes, "mixed: peak %zu above the estimate %zu", ce.peak, bytes);
		CHECK(rep.sensitivity == 6.0);
		CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK);
		CHECK_MSG(kl < 0.1, "mixed, epsilon 5, n 4000: KL %.3g", kl);
		opt.method = MRF_CLIQUES_NAIVE;
		CHECK(MrfCliquesLearn(rows, n, set, &opt, &rng, &env, fit, NULL, &rep) == MRF_OK);
		CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK);
		CHECK_MSG(kl < 0.2, "mixed naive, epsilon 5, n 4000: KL %.3g", kl);
		free(rows);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
}

/*
 * The whole learner through a counting environment: it frees what it
 * allocates, polls, reports, and the workspace estimate covers its peak.
 */
static void
TestLearnInterface(void)
{
	const int	var[] = {0, 1, 2, 1, 2, 3, 2, 3, 4};
	MrfCliqueSet *set = MakeSet(5, 3, 3, 3, var);
	const int64_t n = 2000;
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 5);
	int64_t    *noisy = malloc(sizeof(int64_t) * (size_t) set->cells);
	double	   *psi = malloc(sizeof(double) * (size_t) set->cells);
	double	   *fit = malloc(sizeof(double) * (size_t) set->cells);
	MrfCliquesOptions opt;
	MrfCliquesReport rep;
	CountingEnv ce;
	MrfEnv		env;
	MrfRng		rng;
	size_t		bytes = 0;
	double		kl;

	MrfRngInitSeeded(&rng, 605);
	SynthPotentials(set, &rng, psi);
	CHECK(MrfCliquesSample(set, psi, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
	MrfCliquesDefaultOptions(&opt);
	opt.epsilon = 5.0;
	CountingEnvInit(&ce, &env);
	CHECK(MrfCliquesWorkspaceBytes(set, &opt, &env, &bytes) == MRF_OK && bytes > 0);
	CHECK(MrfCliquesLearn(rows, n, set, &opt, &rng, &env, fit, noisy, &rep) == MRF_OK);
	CHECK(ce.live == 0 && ce.allocs == ce.frees);
	CHECK_MSG(ce.peak <= bytes, "peak %zu above the estimate %zu", ce.peak, bytes);
	CHECK(ce.polls > 0);
	CHECK(rep.method == MRF_CLIQUES_CGM && rep.exact && rep.decomposable);
	CHECK(rep.em_iterations >= 1 && rep.estep_sweeps >= rep.em_iterations);
	CHECK(rep.sensitivity == 6.0);
	CHECK(MrfCliquesKl(set, psi, set, fit, &MrfMallocEnv, &kl) == MRF_OK);
	CHECK_MSG(kl < 0.1, "learned at epsilon 5, n 2000: KL %.3g", kl);
	{
		int64_t		total = 0;
		int64_t		x;

		for (x = 0; x < 27; x++)
			total += noisy[x];
		/* the first released table sums to n plus noise of scale 1.2 on 27 cells */
		CHECK(llabs(total - n) < 200);
	}
	opt.method = MRF_CLIQUES_NAIVE;
	CHECK(MrfCliquesFit(noisy, n, set, &opt, &env, fit, &rep) == MRF_OK);
	CHECK(rep.method == MRF_CLIQUES_NAIVE && rep.converged && rep.em_iterations == 0);
	opt.method = (MrfCliquesMethod) 7;
	CHECK(MrfCliquesFit(noisy, n, set, &opt, &env, fit, &rep) == MRF_EINVAL);
	opt.method = MRF_CLIQUES_CGM;
	opt.epsilon = 0.0;
	CHECK(MrfCliquesLearn(rows, n, set, &opt, &rng, &env, fit, NULL, &rep) == MRF_EINVAL);
	CHECK(ce.live == 0);
	free(rows);
	free(noisy);
	free(psi);
	free(fit);
	MrfCliqueSetFree(&MrfMallocEnv, set);
}

/*
 * Repetitions of the synthetic study on ER graphs (each a new model, data
 * set and release; chains take 4): ER trials are cheap, and at n = 1e5
 * CGM's margin over naive MLE (about 10% at epsilon = 1) needs more of them
 * to show in a mean.
 */
#define STUDY_REPS_ER 8

/*
 * The paper's Sec. 4.1 at CI size: 10-node chains of triples (k = 3) and
 * connected ER graphs (k = 2), Dirichlet(1) potentials, mean KL(true ||
 * learned) over the repetitions.  CGM must beat naive MLE at every epsilon
 * in {0.1, 1} and n in {1e3, 1e4}, and on ER graphs also at n = 1e5 (where a
 * fixed M-step ridge once made CGM lose); at epsilon = 100 both must sit
 * within 30% (plus 0.002) of the non-private MLE.
 */
static void
TestSyntheticStudy(void)
{
	const SynthGraph graphs[2] = {SYNTH_CHAIN, SYNTH_ER};
	const int	ks[2] = {3, 2};
	const int	reps[2] = {4, STUDY_REPS_ER};
	const int	nns[2] = {2, 3};
	const double eps[3] = {0.1, 1.0, 100.0};
	const int64_t ns[3] = {1000, 10000, 100000};
	MrfCliquesOptions opt;
	int			g;

	MrfCliquesDefaultOptions(&opt);
	for (g = 0; g < 2; g++)
	{
		int			e;
		int			ni;

		for (e = 0; e < 3; e++)
			for (ni = 0; ni < nns[g]; ni++)
			{
				double		kn = 0.0;
				double		kc = 0.0;
				double		kp = 0.0;
				int			iters = 0;
				int			conv = 0;
				int			r;
				MrfRng		rng;

				/* the same models and data at every (epsilon, n) */
				MrfRngInitSeeded(&rng, 700 + g);
				for (r = 0; r < reps[g]; r++)
				{
					MrfCliqueSet *set = NULL;
					double	   *truth;
					SynthTrial	t;

					CHECK(SynthCliques(graphs[g], 10, ks[g], &rng, &set) == MRF_OK);
					truth = malloc(sizeof(double) * (size_t) set->cells);
					SynthPotentials(set, &rng, truth);
					CHECK(SynthRun(set, truth, ns[ni], eps[e], &opt, &rng, &t) == MRF_OK);
					kn += t.kl_naive / reps[g];
					kc += t.kl_cgm / reps[g];
					kp += t.kl_nonprivate / reps[g];
					iters += t.rep_cgm.em_iterations;
					conv += t.rep_cgm.converged;
					free(truth);
					MrfCliqueSetFree(&MrfMallocEnv, set);
				}
				printf("# cliques %s k=%d eps=%g n=%ld: KL naive %.4g, cgm %.4g, non-private %.4g; EM iterations %.0f, converged %d/%d\n",
					   graphs[g] == SYNTH_CHAIN ? "chain" : "ER", ks[g], eps[e],
					   (long) ns[ni], kn, kc, kp, (double) iters / reps[g], conv,
					   reps[g]);
				if (eps[e] <= 1.0)
					CHECK_MSG(kc < kn, "CGM %.4f not below naive %.4f", kc, kn);
				else
				{
					CHECK_MSG(kn < 1.3 * kp + 0.002, "naive %.4f far from non-private %.4f", kn, kp);
					CHECK_MSG(kc < 1.3 * kp + 0.002, "CGM %.4f far from non-private %.4f", kc, kp);
				}
			}
	}
}

/*
 * CGM-EM at epsilon 0.1 (issue 10, item 5).  Plain EM moves a log-potential
 * by about 1/b per map (b = 2m/epsilon = 160 here) and hit its former cap of
 * 100 maps on every run.  On 6 models, data sets and releases per family
 * (chains of triples, k = 3, and ER graphs, k = 2; n = 1e4), the
 * accelerated EM must converge on every run within the default cap, CGM's
 * mean KL must be below naive MLE's, and on chains (closed-form M-step, so
 * plain EM is cheap) the result must be plain EM's fixed point: plain EM
 * with a cap of 3000 maps reaches a KL within 1% of it, in at least 3 times
 * as many maps.
 */
static void
TestCgmSmallEpsilon(void)
{
	const SynthGraph graphs[2] = {SYNTH_CHAIN, SYNTH_ER};
	const int	ks[2] = {3, 2};
	const int	reps = 6;
	const int64_t n = 10000;
	MrfCliquesOptions opt;
	MrfCliquesOptions plain;
	int			g;

	MrfCliquesDefaultOptions(&opt);
	plain = opt;
	plain.em_plain = 1;
	plain.em_iterations = 3000;
	for (g = 0; g < 2; g++)
	{
		double		kn = 0.0;
		double		kc = 0.0;
		double		kplain = 0.0;
		long		maps = 0;
		long		plainMaps = 0;
		int			conv = 0;
		int			plainConv = 0;
		double		worstGap = 0.0;
		int			r;
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 710 + g);
		for (r = 0; r < reps; r++)
		{
			MrfCliqueSet *set = NULL;
			double	   *truth;
			SynthTrial	t;
			MrfRng		again;

			CHECK(SynthCliques(graphs[g], 10, ks[g], &rng, &set) == MRF_OK);
			truth = malloc(sizeof(double) * (size_t) set->cells);
			SynthPotentials(set, &rng, truth);
			again = rng;
			CHECK(SynthRun(set, truth, n, 0.1, &opt, &rng, &t) == MRF_OK);
			kn += t.kl_naive / reps;
			kc += t.kl_cgm / reps;
			maps += t.rep_cgm.em_iterations;
			conv += t.rep_cgm.converged;
			if (graphs[g] == SYNTH_CHAIN)
			{
				SynthTrial	tp;

				/* the same data and release (the fits draw no randomness) */
				CHECK(SynthRun(set, truth, n, 0.1, &plain, &again, &tp) == MRF_OK);
				kplain += tp.kl_cgm / reps;
				plainMaps += tp.rep_cgm.em_iterations;
				plainConv += tp.rep_cgm.converged;
				worstGap = fmax(worstGap, fabs(tp.kl_cgm - t.kl_cgm) / tp.kl_cgm);
			}
			free(truth);
			MrfCliqueSetFree(&MrfMallocEnv, set);
		}
		printf("# cgm eps=0.1 %s k=%d n=%ld: KL naive %.4g, cgm %.4g; EM maps %.1f, converged %d/%d",
			   graphs[g] == SYNTH_CHAIN ? "chain" : "ER", ks[g], (long) n, kn, kc,
			   (double) maps / reps, conv, reps);
		if (graphs[g] == SYNTH_CHAIN)
			printf("; plain EM: KL %.4g, maps %.1f, converged %d/%d, largest KL gap %.2g%%",
				   kplain, (double) plainMaps / reps, plainConv, reps, 100 * worstGap);
		printf("\n");
		CHECK_MSG(conv == reps, "accelerated EM converged on %d of %d runs", conv, reps);
		CHECK_MSG(kc < kn, "CGM %.4f not below naive %.4f at epsilon 0.1", kc, kn);
		if (graphs[g] == SYNTH_CHAIN)
		{
			CHECK_MSG(plainConv == reps, "plain EM converged on %d of %d runs", plainConv, reps);
			CHECK_MSG(worstGap < 0.01, "accelerated and plain EM differ: KL gap %.3g", worstGap);
			CHECK_MSG(plainMaps >= 3 * maps, "plain EM %ld maps, accelerated %ld", plainMaps, maps);
		}
	}
}

/*
 * Issue 10: at epsilon 100 (b = 2m/epsilon = 0.16) the E-step is stiff and
 * never meets its tolerance, and accelerated EM ran all 300 maps on every
 * run at n = 1e5 (1.6-1.9 s against naive MLE's 0.03 ms, same KL).  The
 * stall rule (CLIQUES_STALL_MAPS) stops it: fewer than 100 maps, and the
 * KL within 2% of naive MLE's (which, at negligible noise, is the
 * non-private MLE's).
 */
static void
TestCgmLargeEpsilon(void)
{
	const int	reps = 3;
	MrfCliquesOptions opt;
	MrfRng		rng;
	int			maxMaps = 0;
	double		worst = 0.0;

	MrfCliquesDefaultOptions(&opt);
	MrfRngInitSeeded(&rng, 730);
	for (int r = 0; r < reps; r++)
	{
		MrfCliqueSet *set = NULL;
		double	   *truth;
		SynthTrial	t;

		CHECK(SynthCliques(SYNTH_CHAIN, 10, 3, &rng, &set) == MRF_OK);
		truth = malloc(sizeof(double) * (size_t) set->cells);
		SynthPotentials(set, &rng, truth);
		CHECK(SynthRun(set, truth, 100000, 100.0, &opt, &rng, &t) == MRF_OK);
		maxMaps = t.rep_cgm.em_iterations > maxMaps ? t.rep_cgm.em_iterations : maxMaps;
		worst = fmax(worst, t.kl_cgm / t.kl_naive);
		free(truth);
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	printf("# cgm eps=100 chain k=3 n=100000: at most %d EM maps, KL at most %.4f of naive's\n",
		   maxMaps, worst);
	CHECK_MSG(maxMaps < 100, "EM ran %d maps at epsilon 100", maxMaps);
	CHECK_MSG(worst < 1.02, "CGM's KL %.4f of naive's at epsilon 100", worst);
}

/*
 * At very large epsilon the E-step is too stiff to move: the fit must still
 * release the data's marginals (the naive MLE, reported as the fallback),
 * never the start EM was stuck at.  Tables a count or two from uniform
 * (which the naive fit's pseudocount then misses by a fraction of a count,
 * thousands of b): such a table through SQL released 0.46/0.27/0.27 at
 * epsilon 1e4 and 0.9999 on one value at 1e8, with EM reporting
 * convergence.
 */
static void
TestCgmHugeEpsilon(void)
{
	static const double eps[3] = {1e4, 1e6, 1e8};
	static const int start[3] = {0, 1, 2};
	static const int var[2] = {0, 1};
	static const int pair_start[2] = {0, 2};
	double		worst = 0.0;
	int			fallbacks = 0;

	for (int shape = 0; shape < 2; shape++)
	{
		MrfCliqueSet *set = NULL;
		int64_t		noisy[9];
		double		fit[9];
		double		marg[9];

		/* singletons [[1], [2]] or the pair [[1, 2]], k = 3, n = 30,000 uniform rows */
		CHECK(MrfCliqueSetBuild(2, 3, shape == 0 ? 2 : 1, shape == 0 ? start : pair_start,
								var, 0, &MrfMallocEnv, &set) == MRF_OK);
		for (int64_t x = 0; x < set->cells; x++)
			noisy[x] = shape == 0 ? 10000 + (x % 3 == 1) - (x % 3 == 2) + 2000 * (x == 4) - 2000 * (x == 5)
				: 3333 + 3 * (x == 0) + 500 * (x == 4) - 500 * (x == 8);
		for (int e = 0; e < 3; e++)
		{
			MrfCliquesOptions opt;
			MrfCliquesReport rep;

			MrfCliquesDefaultOptions(&opt);
			opt.epsilon = eps[e];
			CHECK(MrfCliquesFit(noisy, 30000, set, &opt, &MrfMallocEnv, fit, &rep) == MRF_OK);
			CHECK(MrfCliquesMarginals(set, fit, NULL, &MrfMallocEnv, marg, NULL) == MRF_OK);
			fallbacks += rep.naive_fallback;
			for (int64_t x = 0; x < set->cells; x++)
				worst = fmax(worst, fabs(marg[x] - (double) noisy[x] / 30000.0));
		}
		MrfCliqueSetFree(&MrfMallocEnv, set);
	}
	printf("# cgm at epsilon 1e4..1e8: largest marginal error %.2g, %d of 6 fits fell back to naive\n",
		   worst, fallbacks);
	CHECK_MSG(worst < 1e-3, "CGM at huge epsilon is %.3g from the data's marginals", worst);
	CHECK_MSG(fallbacks >= 1, "no fit fell back to naive MLE: the case is not exercised");
}

/*
 * Alphabets beyond a byte (two-byte codes): a chain 0 - 1 - 2 with 300, 300
 * and 2 values.  Loopy BP on a tree is exact, so its marginals (messages of
 * 300 values) equal the junction tree's; the Gibbs chain (180,000 states,
 * no tree allowed) draws rows whose binary and 300-value marginals match
 * the exact ones; MrfCliquesCount counts codes above 255.
 */
static void
TestWideAlphabets(void)
{
	int			card[3] = {300, 300, 2};
	int			start[3] = {0, 2, 4};
	int			var[4] = {0, 1, 1, 2};
	MrfCliqueSet *set;
	MrfBp	   *exact;
	MrfBp	   *loopy;
	MrfBpOptions bo;
	MrfRng		rng;
	double	   *logpot;
	double	   *me;
	double	   *ml;
	double		worst = 0.0;
	const int64_t n = 40000;
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * 3);
	MrfSampleOptions so = {.burn_in = 200, .thin = 3, .max_tree_cells = 1};
	double		p2 = 0.0;
	double		mean0 = 0.0;
	double		want2 = 0.0;
	double		want0 = 0.0;
	int64_t    *counts;

	CHECK(MrfCliqueSetBuildAlphabets(3, card, 2, start, var, 0, &MrfMallocEnv, &set) == MRF_OK);
	logpot = malloc(sizeof(double) * set->cells);
	me = malloc(sizeof(double) * set->cells);
	ml = malloc(sizeof(double) * set->cells);
	counts = calloc(set->cells, sizeof(int64_t));
	MrfRngInitSeeded(&rng, 611);
	/* a strong diagonal between 0 and 1, a random rest */
	for (int64_t x = 0; x < set->cells; x++)
		logpot[x] = MrfRngUniform(&rng);
	for (int a = 0; a < 300; a++)
		logpot[set->offset[0] + a * 300 + a] += 4.0;
	memset(&bo, 0, sizeof(bo));
	bo.mode = MRF_INFER_EXACT;
	CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &exact) == MRF_OK);
	CHECK(MrfBpMarginals(exact, logpot, me, NULL) == MRF_OK);
	bo.mode = MRF_INFER_LOOPY;
	bo.tolerance = 1e-12;
	CHECK(MrfBpBuild(set, &bo, &MrfMallocEnv, &loopy) == MRF_OK);
	CHECK(MrfBpMarginals(loopy, logpot, ml, NULL) == MRF_OK);
	for (int64_t x = 0; x < set->cells; x++)
		worst = fabs(me[x] - ml[x]) > worst ? fabs(me[x] - ml[x]) : worst;
	CHECK(worst < 1e-8);

	CHECK(MrfCliquesSampleWith(set, logpot, n, &so, &rng, &MrfMallocEnv, rows, NULL) == MRF_OK);
	for (int64_t r = 0; r < n; r++)
	{
		p2 += rows[r * 3 + 2] == 1;
		mean0 += rows[r * 3];
	}
	for (int b = 0; b < 300; b++)
		for (int c = 0; c < 2; c++)
			want2 += c == 1 ? me[set->offset[1] + b * 2 + c] : 0.0;
	for (int a = 0; a < 300; a++)
		for (int b = 0; b < 300; b++)
			want0 += a * me[set->offset[0] + a * 300 + b];
	CHECK(fabs(p2 / n - want2) < 0.02);
	CHECK(fabs(mean0 / n - want0) < 6.0);	/* sd of the code about 87, n / (thin) draws */
	printf("# wide alphabets: loopy vs exact %.2g, Gibbs P(z2 = 1) %.4f (exact %.4f), mean z0 %.1f (exact %.1f)\n",
		   worst, p2 / n, want2, mean0 / n, want0);

	CHECK(MrfCliquesCount(rows, n, set, counts) == MRF_OK);
	{
		int64_t		high = 0;

		for (int a = 256; a < 300; a++)
			for (int b = 0; b < 300; b++)
				high += counts[set->offset[0] + a * 300 + b];
		CHECK(high > 0);		/* codes above 255 are counted, not wrapped */
	}
	MrfBpFree(exact);
	MrfBpFree(loopy);
	MrfCliqueSetFree(&MrfMallocEnv, set);
	free(logpot);
	free(me);
	free(ml);
	free(rows);
	free(counts);
}

/* The "cliques" group. */
/* One clique-model run of a sweep. */
typedef struct CliquesOomCase
{
	int			op;				/* 0 learn, 1 marginals, 2 KL, 3 estimate, 4 build,
								 * 5 workspace plan, 6 the fit of marginals */
	const MrfCliqueSet *set;
	const MrfCode *rows;
	int64_t		n;
	MrfCliquesOptions opt;
	const double *truth;		/* the model the rows were drawn from */
	double	   *logpot;
	double	   *marg;
	int			exact;			/* what the last run that succeeded reported */
	int			fallback;
} CliquesOomCase;

static MrfStatus
CliquesOomRelease(void *arg, const MrfEnv *env)
{
	CliquesOomCase *c = arg;
	const MrfCliqueSet *set = c->set;
	MrfStatus	st = MRF_EINVAL;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 1717);
	if (c->op == 0)
	{
		MrfCliquesReport rep;

		st = MrfCliquesLearn(c->rows, c->n, set, &c->opt, &rng, env, c->logpot, NULL, &rep);
		if (st == MRF_OK)
		{
			c->exact = rep.exact;
			c->fallback = rep.naive_fallback;
		}
	}
	else if (c->op == 1)
	{
		double		logz;

		st = MrfCliquesMarginals(set, c->truth, &c->opt.bp, env, c->marg, &logz);
	}
	else if (c->op == 2)
	{
		double		kl;

		st = MrfCliquesKl(set, c->truth, set, c->logpot, env, &kl);
	}
	else if (c->op == 3)
	{
		/* every clique's table measured, from the truth's marginals */
		MrfMeasurement meas[8];
		MrfEstimateOptions eo;
		MrfEstimateReport rep;
		int			nm = set->m < 8 ? set->m : 8;

		for (int q = 0; q < nm; q++)
		{
			meas[q].clique = q;
			meas[q].size = set->start[q + 1] - set->start[q];
			for (int v = 0; v < meas[q].size; v++)
				meas[q].vars[v] = set->var[set->start[q] + v];
			meas[q].y = c->marg + set->offset[q];
			meas[q].precision = NULL;
			meas[q].sigma2 = 1.0;
		}
		MrfEstimateDefaultOptions(&eo);
		eo.iterations = 5;
		eo.bp = c->opt.bp;
		st = MrfEstimate(set, set->card, meas, nm, 1, &eo, env, c->logpot, &rep);
		if (st == MRF_OK)
			c->exact = rep.exact;
	}
	else if (c->op == 5)
	{
		size_t		bytes = 0;

		st = MrfCliquesWorkspaceBytes(set, &c->opt, env, &bytes);
	}
	else if (c->op == 6)
	{
		MrfCliquesReport rep;

		st = MrfCliquesFitMarginals(c->marg, set, &c->opt, env, c->logpot, &rep);
		if (st == MRF_OK)
			c->exact = rep.exact;
	}
	else
	{
		MrfCliqueSet *built = NULL;

		/* op 4 */
		st = MrfCliqueSetBuildAlphabets(set->p, set->card, set->m, set->start, set->var, 0,
										env, &built);
		CHECK(st == MRF_OK ? built != NULL : built == NULL);
		if (st == MRF_OK)
			MrfCliqueSetFree(env, built);
	}
	return st;
}

/*
 * Every allocation of a clique model's learner, inference and estimation
 * refused in turn (harness.h's sweep): a chain of triples (a junction tree
 * of its own cliques) and a cycle of five pairs (exact through the min-fill
 * triangulation, or loopy BP, asked for or when the triangulation is over
 * the cell limit), CGM and naive MLE; marginals, KL, the mirror-descent
 * estimate (estimate.c) over each engine, the set's construction, the
 * workspace plan and the maximum-likelihood fit of given marginals.
 */
static void
TestOutOfMemory(void)
{
	const int	chain[] = {0, 1, 2, 1, 2, 3, 2, 3, 4};
	const int	cycle[] = {0, 1, 1, 2, 2, 3, 3, 4, 0, 4};
	MrfCliqueSet *sets[2];
	long		refused = 0;
	double		seconds = 0.0;
	int			sweeps = 0;
	int			exact = 0;
	int			loopy = 0;
	MrfRng		rng;

	sets[0] = MakeSet(5, 3, 3, 3, chain);
	sets[1] = MakeSet(5, 2, 5, 2, cycle);
	MrfRngInitSeeded(&rng, 1616);
	for (int g = 0; g < 2; g++)
	{
		const MrfCliqueSet *set = sets[g];
		int64_t		n = 600;
		MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * set->p);
		double	   *truth = malloc(sizeof(double) * (size_t) set->cells);
		double	   *logpot = malloc(sizeof(double) * (size_t) set->cells);
		double	   *marg = malloc(sizeof(double) * (size_t) set->cells);

		SynthPotentials(set, &rng, truth);
		CHECK(MrfCliquesSample(set, truth, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
		CHECK(MrfCliquesMarginals(set, truth, NULL, &MrfMallocEnv, marg, NULL) == MRF_OK);
		/* the chain's own engine; the cycle exact (triangulated) and loopy */
		/* mode 2: auto with a junction tree over its cell limit (loopy after all) */
		for (int mode = 0; mode < (g == 0 ? 1 : 3); mode++)
			for (int op = 0; op < 7; op++)
				for (int method = 0; method < (op == 0 ? 2 : 1); method++)
				{
					CliquesOomCase c;
					OomSweepResult res;
					char		what[80];

					memset(&c, 0, sizeof(c));
					c.op = op;
					c.set = set;
					c.rows = rows;
					c.n = n;
					MrfCliquesDefaultOptions(&c.opt);
					c.opt.epsilon = 2.0;
					c.opt.method = method ? MRF_CLIQUES_NAIVE : MRF_CLIQUES_CGM;
					c.opt.em_iterations = 3;
					c.opt.estep_iterations = 20;
					c.opt.fit_iterations = 20;
					c.opt.bp.mode = mode == 1 ? MRF_INFER_LOOPY : MRF_INFER_AUTO;
					c.opt.bp.max_exact_cells = mode == 2 ? 4 : 0;
					c.opt.bp.max_iterations = 20;
					c.truth = truth;
					c.logpot = logpot;
					c.marg = marg;
					c.exact = -1;
					/* KL and estimate read the learned model (and estimate overwrites it) */
					if (op == 2)
						memcpy(logpot, truth, sizeof(double) * (size_t) set->cells);
					/* the KL enumerates and the set's build has no engine: once per set */
					if ((op == 2 || op == 4) && mode >= 1)
						continue;
					snprintf(what, sizeof(what), "cliques %s, %s, op %d, method %d",
							 g ? "cycle" : "chain", mode == 1 ? "loopy" : mode ? "auto, over the limit" : "auto",
							 op, method);
					res = OomSweep(what, CliquesOomRelease, &c);
					refused += res.refused;
					seconds += res.seconds;
					sweeps++;
					exact += c.exact == 1;
					loopy += c.exact == 0;
				}
		free(rows);
		free(truth);
		free(logpot);
		free(marg);
	}
	printf("# cliques out of memory: %ld refused requests over %d runs in %.2f s, each a clean MRF_ENOMEM (%d fits exact, %d loopy)\n",
		   refused, sweeps, seconds, exact, loopy);
	CHECK(sweeps == 28 && exact == 8 && loopy == 8 && refused > 200);
	MrfCliqueSetFree(&MrfMallocEnv, sets[0]);
	MrfCliqueSetFree(&MrfMallocEnv, sets[1]);
}

void
TestCliques(void)
{
	TestOutOfMemory();
	TestReleaseNoise();
	TestSimplex();
	TestValidation();
	TestInference();
	TestClosedForm();
	TestSampler();
	TestMixedAlphabets();
	TestLearnInterface();
	TestSyntheticStudy();
	TestCgmSmallEpsilon();
	TestCgmLargeEpsilon();
	TestCgmHugeEpsilon();
	TestWideAlphabets();
}
