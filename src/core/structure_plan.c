/*
 * structure_plan.c - rows-needed plans of the stable mode's pairwise and
 * t-wise block learners (structure_plan.h), the counterpart of the Ising
 * plan in structure_ising.c (MrfIsingBlockRowsNeededWidth).
 */
#include <math.h>

#include "pairwise.h"
#include "structure_plan.h"
#include "twise.h"

/*
 * Planning constants, fitted by experiment, not derived (the defaults study;
 * bench/bench_defaults.c --study structure-plan,
 * run_structure_plan_study.sh and defaults_table.py, docs/studies/defaults.md "Defaults"):
 * block sizes a factor sqrt 2 apart, 20 blocks each, on sampled models
 * (pairwise: chains and random graphs, k = 3 and 4, p = 6-14; t-wise,
 * t = 3: chains and random sets of triples, p = 10-16; couplings scaled
 * 0.7-1.5), turned into the rows of a 90% exact release at epsilon 1,
 * delta 1e-6 (94 blocks, tau 28) as for Ising.  The form is the Ising
 * plan's, C e^(A w) min(lambda / w, 2)^B ln(2 d) / eta^2, with d the
 * features of one node regression ((p - 1) k one-hot indicators for
 * pairwise, the monomials of size 1 .. t - 1 of the other variables for
 * t-wise) in place of Ising's p.  Least squares per model over the points
 * measured inside the grid (7 pairwise, 12 t-wise); pairwise has B = 0
 * (lambda 2 and 4 gave the same blocks: the radius 2 k lambda is not
 * active).  Every point's plan is within 0.57-1.54 of its measured rows.
 * Not measured: k > 4, t > 3, p > 16.
 */
#define PAIRWISE_PLAN_C 32.7
#define PAIRWISE_PLAN_A 0.33
#define PAIRWISE_PLAN_B 0.0
#define TWISE_PLAN_C 2.07
#define TWISE_PLAN_A 0.47
#define TWISE_PLAN_B 1.72

/*
 * Below these ratios of lambda to the width there is no plan.  Pairwise:
 * the Ising plan's 0.6 (its block learner is biased below; not measured
 * for pairwise).  T-wise: lambda 2 still found a width-4.2 model from 400
 * rows (ratio 0.48); lower ratios were not measured.
 */
#define PAIRWISE_PLAN_MIN_RATIO 0.6
#define TWISE_PLAN_MIN_RATIO 0.45

/* C e^(A w) min(lambda / w, 2)^B ln(2 d) / eta^2, at least 1; -1 if too large. */
static int64_t
PlanRows(double c, double a, double b, double d, double eta, double width,
		 double lambda)
{
	double		rows = ceil(c * exp(a * width) * pow(fmin(lambda / width, 2.0), b) *
							log(2.0 * d) / (eta * eta));

	if (!(rows < 9e18))
		return -1;
	return rows < 1.0 ? 1 : (int64_t) rows;
}

/* The checks every plan shares: finite positive eta, width and lambda. */
static int
PlanValuesValid(double eta, double width, double lambda)
{
	return isfinite(eta) && eta > 0.0 && isfinite(width) && width > 0.0 &&
		isfinite(lambda) && lambda > 0.0;
}

/* Pairwise: d = (p - 1) k. */
int64_t
MrfPairwiseBlockRowsNeeded(int p, int k, double eta, double width, double lambda)
{
	if (p < 2 || k < 2 || k > MRF_PAIRWISE_MAX_K || !PlanValuesValid(eta, width, lambda))
		return -1;
	if (lambda < PAIRWISE_PLAN_MIN_RATIO * width)
		return -2;
	return PlanRows(PAIRWISE_PLAN_C, PAIRWISE_PLAN_A, PAIRWISE_PLAN_B,
					(double) (p - 1) * k, eta, width, lambda);
}

/* T-wise: d = sum over s = 1 .. t - 1 of C(p - 1, s). */
int64_t
MrfTwiseBlockRowsNeeded(int p, int t, double eta, double width, double lambda)
{
	double		d = 0.0;
	double		binom = 1.0;

	if (p < 2 || t < 2 || t > p || t > MRF_TWISE_MAX_ORDER ||
		!PlanValuesValid(eta, width, lambda))
		return -1;
	if (lambda < TWISE_PLAN_MIN_RATIO * width)
		return -2;
	for (int s = 1; s < t; s++)
	{
		binom = binom * (double) (p - s) / (double) s;
		d += binom;
	}
	return PlanRows(TWISE_PLAN_C, TWISE_PLAN_A, TWISE_PLAN_B, d, eta, width, lambda);
}
