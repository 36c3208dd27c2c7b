/*
 * test_privacy.c - the calibration functions against their formulas, the
 * conversion values of docs/privacy.md 2.1, and NaN on invalid input.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "harness.h"
#include "noise.h"
#include "privacy.h"

/*
 * delta(eps) of [CKS20] minimised over a dense grid of orders, computed here
 * independently of privacy.c.
 */
static double
CksDelta(double rho, double eps)
{
	double		best = INFINITY;
	double		x;

	for (x = -15.0; x <= 25.0; x += 1e-4)
	{
		double		a = 1.0 + exp(x);
		double		logd = (a - 1.0) * (a * rho - eps) - log(a - 1.0) +
			a * log1p(-1.0 / a);

		if (logd < best)
			best = logd;
	}
	return exp(best);
}

/* docs/privacy.md 2.1 values, the tight conversion's optimality, and the inverse. */
static void
TestConversions(void)
{
	const double eps_targets[] = {0.1, 1.0, 5.0, 20.0};
	const double deltas[] = {1e-5, 1e-9};
	double		tight = MrfZcdpToDpTight(2.0, 1e-6);
	double		bs16 = MrfZcdpToDpBs16(2.0, 1e-6);
	double		d;
	size_t		i;
	size_t		j;

	CHECK_NEAR(tight, 11.6886, 5e-5);
	/*
	 * The formula rho + 2 sqrt(rho ln(1/delta)) is 12.51304 at (2, 1e-6)
	 * (ln(1e6) = 13.8155; a printed "12.5132" rounds it to 13.816).
	 */
	CHECK_NEAR(bs16, 2.0 + 2.0 * sqrt(2.0 * log(1e6)), 1e-12);
	CHECK_NEAR(bs16, 12.5130, 5e-5);
	CHECK(tight < bs16);

	/* at the returned eps the best order reaches delta, and not much below */
	d = CksDelta(2.0, tight);
	CHECK_MSG(d <= 1e-6 * (1.0 + 1e-6) && d >= 1e-6 * (1.0 - 1e-4),
			  "delta at returned eps: %.10g", d);
	d = CksDelta(0.05, MrfZcdpToDpTight(0.05, 1e-9));
	CHECK_MSG(d <= 1e-9 * (1.0 + 1e-6) && d >= 1e-9 * (1.0 - 1e-4),
			  "delta at returned eps (rho 0.05): %.10g", d);

	/* increasing in rho, decreasing in delta */
	CHECK(MrfZcdpToDpTight(0.5, 1e-6) < MrfZcdpToDpTight(0.6, 1e-6));
	CHECK(MrfZcdpToDpTight(0.5, 1e-6) > MrfZcdpToDpTight(0.5, 1e-5));

	for (i = 0; i < 4; i++)
		for (j = 0; j < 2; j++)
		{
			double		rho = MrfZcdpForDp(eps_targets[i], deltas[j]);
			double		back = MrfZcdpToDpTight(rho, deltas[j]);

			CHECK_MSG(back <= eps_targets[i] && eps_targets[i] - back < 1e-6,
					  "round trip eps %g delta %g: rho %.12g gives %.12g",
					  eps_targets[i], deltas[j], rho, back);
		}

	CHECK_NEAR(MrfDpToZcdp(1.0), 0.5, 1e-15);
	CHECK_NEAR(MrfDpToZcdp(0.2), 0.02, 1e-15);
}

/* Invalid budgets are NaN so that the glue refuses them. */
static void
TestInvalid(void)
{
	CHECK(isnan(MrfZcdpToDpTight(0.0, 1e-6)));
	CHECK(isnan(MrfZcdpToDpTight(-1.0, 1e-6)));
	CHECK(isnan(MrfZcdpToDpTight(NAN, 1e-6)));
	CHECK(isnan(MrfZcdpToDpTight(INFINITY, 1e-6)));
	CHECK(isnan(MrfZcdpToDpTight(1.0, 0.0)));
	CHECK(isnan(MrfZcdpToDpTight(1.0, 1.0)));
	CHECK(isnan(MrfZcdpToDpTight(1.0, NAN)));
	CHECK(isnan(MrfZcdpToDpBs16(0.0, 1e-6)));
	CHECK(isnan(MrfZcdpToDpBs16(1.0, 1.5)));
	CHECK(isnan(MrfZcdpForDp(0.0, 1e-6)));
	CHECK(isnan(MrfZcdpForDp(1.0, 0.0)));
	CHECK(isnan(MrfZcdpForDp(INFINITY, 1e-6)));
	CHECK(isnan(MrfDpToZcdp(-1.0)));
	CHECK(isnan(MrfDpToZcdp(NAN)));
	/* no value: the exact answer underflows to 0 or overflows */
	CHECK(isnan(MrfZcdpForDp(1e-300, 1e-300)));
	CHECK(isnan(MrfZcdpForDpBs16(1e-300, 1e-300)));
	CHECK(isnan(MrfDpToZcdp(1e-300)));
	CHECK(isnan(MrfDpToZcdp(1e200)));
	CHECK(isnan(MrfZcdpToDpTight(DBL_MAX, 1e-6)));
	/* the smallest answers that exist are positive */
	CHECK(MrfZcdpForDp(1e-150, 1e-6) > 0);
	CHECK(MrfZcdpForDpBs16(1e-150, 1e-6) > 0);
	CHECK(MrfDpToZcdp(1e-150) > 0);
	CHECK(isnan(MrfFwScoreSensitivity(0.0)));
	CHECK(isnan(MrfFwStepEpsilon(MRF_MECH_EXPONENTIAL, 0.0)));
	CHECK(isnan(MrfFwStepEpsilon((MrfMechanism) 7, 1.0)));
	CHECK(isnan(MrfFwStepRho(1.0, 1)));
	CHECK(isnan(MrfFwExponentialScale(0.0, 1.0)));
	CHECK(isnan(MrfFwLaplaceScale(1.0, -1.0)));
	CHECK(MrfFwDefaultIterations(0.0, 100, 1.0) == -1);
	CHECK(MrfFwDefaultIterations(1.0, 0, 1.0) == -1);
	CHECK(MrfFwDefaultIterations(1.0, 100, NAN) == -1);
}

/* docs/privacy.md 3 constants. */
static void
TestFrankWolfeCalibration(void)
{
	CHECK_NEAR(MrfFwScoreSensitivity(3.0), 6.0, 0);
	CHECK_NEAR(MrfFwStepEpsilon(MRF_MECH_EXPONENTIAL, 0.5), 2.0, 1e-15);
	CHECK_NEAR(MrfFwStepEpsilon(MRF_MECH_LAPLACE, 0.5), 1.0, 1e-15);
	CHECK_NEAR(MrfFwExponentialScale(2.0, 4.0), 0.25, 0);
	CHECK_NEAR(MrfFwLaplaceScale(2.0, 4.0), 4.0, 0);
	CHECK_NEAR(MrfFwStepRho(1.0, 11), 0.1, 1e-16);
	CHECK_NEAR(MrfFwStepRho(0.3, 2), 0.3, 0);

	/* ceil((R n sqrt(rho))^(2/3)): (2 * 1e5 * 0.1)^(2/3) = 736.8 */
	CHECK(MrfFwDefaultIterations(2.0, 100000, 0.01) == 737);
	/* an exact cube must not round up: 1000^(2/3) = 100 */
	CHECK(MrfFwDefaultIterations(1.0, 1000, 1.0) == 100);
	CHECK(MrfFwDefaultIterations(2.0, 20000, 6.25) == 2155);
	CHECK(MrfFwDefaultIterations(0.1, 1, 0.01) == 2);
	CHECK(MrfFwDefaultIterations(2.0, (int64_t) 1 << 40, 100.0) == 100000);
}

/* docs/privacy.md 9.1 composition of a relation's charges, and the bs16 inverse. */
static void
TestComposition(void)
{
	double		tight = MrfZcdpToDpTight(0.5, 1e-6);

	/* nothing spent */
	CHECK(MrfComposeEpsilon(0, 0, 0, 0, 0, 1e-6) == 0);
	/* zCDP alone: the tight conversion at the full delta, never below it */
	CHECK_NEAR(MrfComposeEpsilon(0.5, 0, 0, 0, 0, 1e-6), tight, 1e-12);
	CHECK(MrfComposeEpsilon(0.5, 0, 0, 0, 0, 1e-6) >= tight);
	/* an approximate charge adds its epsilon and spends its delta first */
	CHECK_NEAR(MrfComposeEpsilon(0.5, 0, 0, 0.3, 4e-7, 1e-6),
			   MrfZcdpToDpTight(0.5, 6e-7) + 0.3, 1e-9);
	/* with delta > 0, pure charges enter as eps^2/2 (docs/privacy.md 9.1), never as a plain sum */
	CHECK_NEAR(MrfComposeEpsilon(0, 0.1, 0.005, 0, 0, 1e-6), MrfZcdpToDpTight(0.005, 1e-6), 1e-9);
	CHECK(MrfComposeEpsilon(0, 100 * 0.01, 100 * 0.5 * 0.01 * 0.01, 0, 0, 1e-6) < 1.0);
	/* a zCDP part needs delta left over */
	CHECK(isinf(MrfComposeEpsilon(0.5, 0, 0, 0, 1e-6, 1e-6)));
	CHECK(isinf(MrfComposeEpsilon(0, 0, 0, 0.1, 2e-6, 1e-6)));
	/* a pure budget (delta = 0): pure epsilons add, exactly; anything else never fits */
	CHECK(MrfComposeEpsilon(0, 1.0, 0.5, 0, 0, 0) == 1.0);
	CHECK(MrfComposeEpsilon(0, 0.5 + 0.25, 0.15625, 0, 0, 0) == 0.75);
	CHECK(isinf(MrfComposeEpsilon(0.5, 0, 0, 0, 0, 0)));
	CHECK(isinf(MrfComposeEpsilon(0, 0, 0, 0.1, 0, 0)));
	/* exact sums stay exact, inexact ones round up */
	CHECK(MrfComposeEpsilon(0, 0, 0, 0.25, 0, 1e-6) == 0.25);
	CHECK(isnan(MrfComposeEpsilon(-1, 0, 0, 0, 0, 1e-6)));
	/* monotone: more spent never means less epsilon */
	CHECK(MrfComposeEpsilon(0.6, 0, 0, 0, 0, 1e-6) > MrfComposeEpsilon(0.5, 0, 0, 0, 0, 1e-6));

	/* bs16 inverse: on the safe side and tight */
	{
		double		rho = MrfZcdpForDpBs16(1.0, 1e-6);

		CHECK(MrfZcdpToDpBs16(rho, 1e-6) <= 1.0);
		CHECK(MrfZcdpToDpBs16(rho * (1 + 1e-9), 1e-6) > 1.0 - 1e-8);
		CHECK(isnan(MrfZcdpForDpBs16(0, 1e-6)));
	}
}

/* A budget with nothing spent. */
static MrfBudget
FreshBudget(double epsilon, double delta, double rho_cap)
{
	MrfBudget	b = {0};

	b.epsilon = epsilon;
	b.delta = delta;
	b.rho_cap = rho_cap;
	return b;
}

/* The largest amount that fits: it fits, the next double up does not. */
static void
TestBudgetFits(void)
{
	MrfBudget	b = FreshBudget(3, 1e-6, INFINITY);
	double		rho = MrfBudgetLargestZcdp(&b);
	double		pure;
	double		ae;
	double		ad;

	/* a fresh zCDP budget: the inverse conversion, to the last bit */
	CHECK(MrfBudgetFitsZcdp(&b, rho));
	CHECK(!MrfBudgetFitsZcdp(&b, nextafter(rho, INFINITY)));
	CHECK_NEAR(rho, MrfZcdpForDp(3, nextafter(1e-6, 0)), 1e-9);
	/* after spending: what is reported fits exactly, one ulp more does not */
	b.zcdp_rho = 0.1;
	rho = MrfBudgetLargestZcdp(&b);
	CHECK(rho > 0 && rho < MrfZcdpForDp(3, 1e-6));
	CHECK(MrfBudgetFitsZcdp(&b, rho) && !MrfBudgetFitsZcdp(&b, nextafter(rho, INFINITY)));
	/* pure releases enter as eps^2/2: a pure epsilon above sqrt(2 rho) cannot fit */
	pure = MrfBudgetLargestPure(&b);
	CHECK(MrfBudgetFitsPure(&b, pure) && !MrfBudgetFitsPure(&b, nextafter(pure, INFINITY)));
	CHECK(pure <= sqrt(2 * rho) * (1 + 1e-12));
	/* approximate: epsilon at a delta, and the largest delta */
	ae = MrfBudgetLargestApproxEpsilon(&b, 1e-7);
	CHECK(MrfBudgetFitsApprox(&b, ae, 1e-7) && !MrfBudgetFitsApprox(&b, nextafter(ae, INFINITY), 1e-7));
	ad = MrfBudgetLargestApproxDelta(&b);
	CHECK(ad > 0 && ad < 1e-6);
	CHECK(MrfBudgetFitsApprox(&b, 4.9406564584124654e-324, ad));
	CHECK(!MrfBudgetFitsApprox(&b, 4.9406564584124654e-324, nextafter(ad, INFINITY)));
	CHECK(MrfBudgetLargestApproxEpsilon(&b, nextafter(ad, INFINITY)) == 0);
	/* rho_cap binds: exactly the cap less what is spent */
	b = FreshBudget(1000, 1e-6, 0.375);
	b.zcdp_rho = 0.25;
	CHECK(MrfBudgetLargestZcdp(&b) == 0.125);
	b.zcdp_rho = 0.375;
	CHECK(MrfBudgetLargestZcdp(&b) == 0);
	/* a tiny pure epsilon still adds eps^2/2 > 0 (its double product underflows to 0) */
	CHECK(!MrfBudgetFitsPure(&b, 1e-200) && MrfBudgetLargestPure(&b) == 0);
	CHECK(MrfBudgetLargestApproxEpsilon(&b, 1e-7) > 990);
	/* a pure budget: pure epsilons add exactly; nothing else ever fits */
	b = FreshBudget(1, 0, INFINITY);
	b.pure_epsilon = 0.75;
	b.pure_rho = 0.28125;
	CHECK(MrfBudgetLargestPure(&b) == 0.25);
	CHECK(MrfBudgetLargestZcdp(&b) == 0);
	CHECK(MrfBudgetLargestApproxDelta(&b) == 0);
	CHECK(MrfBudgetLargestApproxEpsilon(&b, 1e-9) == 0);
	/* no zCDP part: approximate epsilons and deltas add, both to their caps */
	b = FreshBudget(2, 1e-6, INFINITY);
	b.approx_epsilon = 0.5;
	b.approx_delta = 2.5e-7;
	CHECK(MrfBudgetLargestApproxEpsilon(&b, 1e-7) == 1.5);
	ad = MrfBudgetLargestApproxDelta(&b);
	CHECK_NEAR(ad, 7.5e-7, 1e-21);
	CHECK(MrfBudgetFitsApprox(&b, 1.5, ad) && !MrfBudgetFitsApprox(&b, 1.5, nextafter(ad, INFINITY)));
	/* extreme amounts stay in range */
	b = FreshBudget(1.7976931348623157e308, 0.5, INFINITY);
	CHECK(MrfBudgetFitsZcdp(&b, 4.9406564584124654e-324));
	CHECK(isfinite(MrfBudgetLargestZcdp(&b)) && MrfBudgetLargestZcdp(&b) > 0);
	CHECK(isfinite(MrfBudgetLargestPure(&b)));
	/* eps^2/2 beyond the doubles (+inf): a pure budget carries it, any other is spent */
	b = FreshBudget(1.7976931348623157e308, 0, INFINITY);
	b.pure_epsilon = 1e200;
	b.pure_rho = INFINITY;
	CHECK(MrfBudgetFitsPure(&b, 1e200) && MrfBudgetLargestPure(&b) > 1.79e308);
	b.delta = 0.5;
	CHECK(isinf(MrfComposeEpsilon(0, 1e200, INFINITY, 0, 0, 0.5)));
	CHECK(MrfBudgetLargestPure(&b) == 0 && MrfBudgetLargestZcdp(&b) == 0);
	b = FreshBudget(4.9406564584124654e-324, 0, INFINITY);
	CHECK(MrfBudgetLargestPure(&b) == 4.9406564584124654e-324);
	/* invalid budgets */
	b = FreshBudget(-1, 1e-6, INFINITY);
	CHECK(isnan(MrfBudgetLargestZcdp(&b)));
	CHECK(!MrfBudgetFitsZcdp(&b, 0.1));
}

/*
 * The protected path's count of substituted rows: share B/128, the discrete
 * Gaussian variance at least 1/(2 rho_c) and the discrete Laplace scale at
 * least 1/epsilon_c (rounded up, as rationals), and compositions rounded up.
 */
static void
TestSubstitutedCount(void)
{
	const double shares[] = {1e-3, 0.01, 0.1, 1.0, 3.0, 1e6};
	uint64_t	num;
	uint64_t	den;
	size_t		i;

	CHECK(MrfSubstitutedCountShare(1.0) == 0.0078125);
	CHECK(MrfSubstitutedCountShare(0.1) == 0.1 / 128);
	/* dyadic budgets compose exactly: 3 releases of 0.125 fill 3 x 0.1259765625 */
	CHECK(MrfComposeUp(0.125, MrfSubstitutedCountShare(0.125)) == 0.1259765625);
	CHECK(MrfSubstitutedCountShare(0.0) == 0.0);
	CHECK(MrfSubstitutedCountShare(NAN) == 0.0);
	/* the largest typed budget under a total: fits, and the next double does not */
	{
		const double totals[] = {1.4666, 0.463, 1e-300, 1e-310, 5e-324, 1.0, 0.1, 3.0, 1e300, 0.0078125};
		int			bad = 0;

		for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
		{
			double		t = totals[i];
			double		b = MrfSubstitutedCountLargestBudget(t);
			double		up = nextafter(b, INFINITY);

			if (b > 0 && MrfComposeUp(b, MrfSubstitutedCountShare(b)) > t)
				bad++;
			if (MrfComposeUp(up, MrfSubstitutedCountShare(up)) <= t)
				bad++;
		}
		for (int i = 0; i < 20000; i++)
		{
			double		t = ldexp(1.0 + (double) i / 20000.0, (i % 80) - 40);
			double		b = MrfSubstitutedCountLargestBudget(t);
			double		up = nextafter(b, INFINITY);

			if (!(b > 0) || MrfComposeUp(b, MrfSubstitutedCountShare(b)) > t ||
				MrfComposeUp(up, MrfSubstitutedCountShare(up)) <= t)
				bad++;
		}
		CHECK(bad == 0);
		CHECK(MrfSubstitutedCountLargestBudget(0.0) == 0.0);
		CHECK(MrfSubstitutedCountLargestBudget(NAN) == 0.0);
		CHECK(MrfSubstitutedCountLargestBudget(INFINITY) == 0.0);
		/* 1.4666 typed would charge 1.4780578...: above a total of 1.4666 */
		CHECK(MrfSubstitutedCountLargestBudget(1.4666) < 1.4666 / (1 + 1.0 / 128) * (1 + 1e-15));
	}
	for (i = 0; i < sizeof(shares) / sizeof(shares[0]); i++)
	{
		double		c = shares[i];

		CHECK(MrfSubstitutedCountGaussian(c, &num, &den) == 0);
		/* num/den >= 1/(2c), checked in long double, and not far above it */
		CHECK_MSG((long double) num * 2.0L * c >= (long double) den,
				  "variance %llu/%llu below 1/(2 * %g)", (unsigned long long) num,
				  (unsigned long long) den, c);
		CHECK((double) num / den <= 1.0 / (2.0 * c) + 2.0 / den + 1e-12);
		CHECK(num <= ((uint64_t) 1 << 40) && den <= ((uint64_t) 1 << 40) && num >= 1);
		CHECK(MrfSubstitutedCountLaplace(c, &num, &den) == 0);
		CHECK_MSG((long double) num * c >= (long double) den,
				  "scale %llu/%llu below 1/%g", (unsigned long long) num,
				  (unsigned long long) den, c);
		CHECK((double) num / den <= 1.0 / c + 2.0 / den + 1e-12);
	}
	/* beyond the samplers' range: no count (the caller releases none) */
	CHECK(MrfSubstitutedCountGaussian(1e-15, &num, &den) == -1);
	CHECK(MrfSubstitutedCountLaplace(1e-15, &num, &den) == -1);
	CHECK(MrfSubstitutedCountGaussian(0.0, &num, &den) == -1);
	CHECK(MrfSubstitutedCountLaplace(INFINITY, &num, &den) == -1);
	/* composition rounds up: 0.1 + 0.001 is inexact in double */
	CHECK(MrfComposeUp(0.25, 0.5) == 0.75);
	CHECK((long double) MrfComposeUp(0.1, 0.001) >= (long double) 0.1 + (long double) 0.001);
	CHECK(MrfComposeUp(0.1, 0.001) <= nextafter(0.1 + 0.001, INFINITY));
	CHECK(MrfComposeUp(1.0, 1e-30) > 1.0);
}


/*
 * The cost, in units of rho', of every regression of a pairwise learner on
 * the neighbouring rows z, z' (privacy.c, MrfPairwiseProblemRho, Steps 1-3),
 * computed here from the solver's own quantised weights: for each regression
 * Delta = max over allowed coordinates j of |Gq x_j - Gq' x'_j| (Gq at a
 * margin chosen by the caller for each version of the row, i.e. for any
 * iterate and any other rows), cost (Delta / 2Q)^2.  Returns the sum over
 * all p k (k-1) regressions.
 */
static double
PairwiseRowCost(const uint8_t *z, const uint8_t *z2, int p, int k,
				const float *margin, const float *margin2)
{
	double		total = 0.0;
	int			i;
	int			u;
	int			v;
	int			r = 0;

	for (i = 0; i < p; i++)
		for (u = 0; u < k; u++)
			for (v = 0; v < k; v++)
			{
				int			y;
				int			y2;
				int			g;
				int			g2;
				int			delta = 0;
				int			j;
				int			b;

				if (v == u)
					continue;
				y = z[i] == u ? 1 : z[i] == v ? -1 : 0;
				y2 = z2[i] == u ? 1 : z2[i] == v ? -1 : 0;
				g = MrfFwQuantizedWeight(y, margin[r]);
				g2 = MrfFwQuantizedWeight(y2, margin2[r]);
				r++;
				/* the intercept, then the one-hot blocks of the other variables */
				delta = abs(g - g2);
				for (j = 0; j < p; j++)
					for (b = 0; b < k && j != i; b++)
					{
						int			d = abs(g * (z[j] == b) - g2 * (z2[j] == b));

						delta = d > delta ? d : delta;
					}
				total += ((double) delta / (2.0 * MRF_FW_QUANTUM)) *
					((double) delta / (2.0 * MRF_FW_QUANTUM));
			}
	return total;
}

/*
 * The pairwise split rho' = rho / (p k) against its proof: over random rows,
 * random pairs of neighbouring rows and arbitrary margins (including the
 * clamped extremes and non-finite values), the regressions' costs add up to
 * at most p k, so p k (k-1) regressions at rho' compose to at most rho; the
 * bound is reached (every variable changes, margins at the extremes), so no
 * larger uniform rho' is valid.  The split that ignores the row-set changes
 * (rho / (2p), counting only the two regressions whose label flips) spends
 * more than rho on that pair; rho / ((4k - 6) p) is valid and loose.
 */
static void
TestPairwiseSplit(void)
{
	static const float extremes[] = {0.0f, -0.0f, 1e-3f, -30.0f, 30.0f, 9.0f, -9.0f,
	INFINITY, -INFINITY, NAN};
	MrfRng		rng;
	uint8_t		z[6];
	uint8_t		z2[6];
	float		margin[6 * 8 * 7];
	float		margin2[6 * 8 * 7];
	int			trial;
	int			k;
	int			sign_ok = 1;
	int			cost_ok = 1;

	CHECK(MrfPairwiseProblemRho(3.0, 4, 3) == 0.25);
	CHECK(MrfPairwiseProblemRho(1.0, 5, 8) == 1.0 / 40.0);
	CHECK(isnan(MrfPairwiseProblemRho(-1.0, 4, 3)));
	CHECK(isnan(MrfPairwiseProblemRho(1.0, 0, 3)));

	/* the quantised weight has the sign of the label and magnitude <= Q */
	for (trial = 0; trial < 20000; trial++)
	{
		float		a = trial < 10 ? extremes[trial] :
			(float) (40.0 * MrfRngUniform(&rng) - 20.0);
		int			y;

		if (trial == 0)
			MrfRngInitSeeded(&rng, 0x5b117);
		for (y = -1; y <= 1; y++)
		{
			int			g = MrfFwQuantizedWeight(y, a);

			if (!(y * g >= 0 && abs(g) <= MRF_FW_QUANTUM && (y != 0 || g == 0)))
			{
				printf("    Gq(%d, %g) = %d\n", y, (double) a, g);
				sign_ok = 0;
				trial = 20000;
			}
		}
	}
	/* one check for all 60,000 weights, so the count stays one per property */
	CHECK(sign_ok);

	MrfRngInitSeeded(&rng, 0x5b118);
	for (trial = 0; trial < 60000; trial++)
	{
		int			p = 2 + (int) MrfRngBelow(&rng, 5);
		int			q;
		int			m;
		int			extreme = (int) MrfRngBelow(&rng, 3);
		double		cost;

		k = 2 + (int) MrfRngBelow(&rng, 7);
		q = p * k * (k - 1);
		do
		{
			int			all = MrfRngBelow(&rng, 4) == 0;

			for (m = 0; m < p; m++)
			{
				z[m] = (uint8_t) MrfRngBelow(&rng, (uint64_t) k);
				z2[m] = all ? (uint8_t) ((z[m] + 1 + MrfRngBelow(&rng, (uint64_t) (k - 1))) % k) :
					MrfRngBelow(&rng, 2) ? z[m] : (uint8_t) MrfRngBelow(&rng, (uint64_t) k);
			}
		} while (memcmp(z, z2, (size_t) p) == 0);
		for (m = 0; m < q; m++)
		{
			/* margins pushing |Gq| to Q, or random, or any bit pattern */
			if (extreme == 0)
			{
				margin[m] = MrfRngBelow(&rng, 2) ? -30.0f : 30.0f;
				margin2[m] = MrfRngBelow(&rng, 2) ? -30.0f : 30.0f;
			}
			else if (extreme == 1)
			{
				margin[m] = (float) (24.0 * MrfRngUniform(&rng) - 12.0);
				margin2[m] = (float) (24.0 * MrfRngUniform(&rng) - 12.0);
			}
			else
			{
				margin[m] = extremes[MrfRngBelow(&rng, 10)];
				margin2[m] = extremes[MrfRngBelow(&rng, 10)];
			}
		}
		cost = PairwiseRowCost(z, z2, p, k, margin, margin2);
		if (!(cost <= (double) p * k))
		{
			printf("    p %d k %d: a neighbouring pair costs %.4f rho', more than p k\n", p, k, cost);
			cost_ok = 0;
			break;
		}
	}
	/* one check for all 60,000 neighbouring pairs */
	CHECK(cost_ok);

	/*
	 * Tightness (Step 3): every variable changes, and each version's margin
	 * pushes Gq to +-Q (y = +1 at margin -30, y = -1 at +30).
	 */
	for (k = 2; k <= 8; k++)
	{
		const int	p = 4;
		int			m;
		int			i;
		int			u;
		int			v;
		double		cost;

		for (m = 0; m < p; m++)
		{
			z[m] = (uint8_t) (m % k);
			z2[m] = (uint8_t) ((m + 1) % k);
		}
		m = 0;
		for (i = 0; i < p; i++)
			for (u = 0; u < k; u++)
				for (v = 0; v < k; v++)
				{
					if (v == u)
						continue;
					margin[m] = z[i] == u ? -30.0f : 30.0f;
					margin2[m] = z2[i] == u ? -30.0f : 30.0f;
					m++;
				}
		cost = PairwiseRowCost(z, z2, p, k, margin, margin2);
		CHECK_MSG(fabs(cost - (double) p * k) < 1e-12,
				  "k %d: the worst pair costs %.4f rho', not p k = %d", k, cost, p * k);
		/* rho' = rho / (2p) would spend cost / (2p) rho > rho for k >= 3 */
		if (k >= 3)
			CHECK(cost / (2.0 * p) > 1.0);
		/* the 4k - 6 count at full cost is valid: (4k - 6) p >= cost */
		CHECK(cost <= (double) (4 * k - 6) * p + 1e-12);
	}
}
/* The privacy tests. */
void
TestPrivacy(void)
{
	TestPairwiseSplit();

	TestSubstitutedCount();
	TestConversions();
	TestInvalid();
	TestFrankWolfeCalibration();
	TestComposition();
	TestBudgetFits();
}
