/*
 * privacy.c - the one place where mrfdp calibrates noise and converts between
 * privacy notions (docs/privacy.md, cited as "privacy.md N" for its section
 * N).
 *
 * Neighbouring datasets differ by replacing one row; n is public.  References:
 *   [B17]   Bernstein, McKenna, Sun, Sheldon, Hay, Miklau, "Differentially
 *           Private Learning of Undirected Graphical Models Using Collective
 *           Graphical Models", ICML 2017, Proposition 3.
 *   [BS16]  Bun, Steinke, "Concentrated Differential Privacy: Simplifications,
 *           Extensions, and Lower Bounds", TCC 2016.
 *   [CKS20] Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
 *           Privacy", NeurIPS 2020.
 *   [CR21]  Cesar, Rogers, "Bounding, Concentrating, and Truncating: Unifying
 *           Privacy Loss Composition for Data Analytics", ALT 2021.
 *   [DDR20] Dong, Durfee, Rogers, "Optimal Differential Privacy Composition
 *           for Exponential Mechanisms", ICML 2020.
 *   [FZ21]  Feldman, Zrnic, "Individual Privacy Accounting via a Renyi
 *           Filter", NeurIPS 2021.
 *   [MMSM22] McKenna, Mullins, Sheldon, Miklau, "AIM: An Adaptive and
 *           Iterative Mechanism for Differentially Private Synthetic Data",
 *           VLDB 2022.
 *   [Z20]   Zhang, Kamath, Kulkarni, Wu, "Privately Learning Markov Random
 *           Fields", ICML 2020, Algorithm 1.
 *
 * Every function returns NaN (or -1 for the iteration count) on invalid input
 * so that the caller can raise an error instead of releasing anything.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "privacy.h"

/* Upper bound on the default iteration count (see MrfFwDefaultIterations). */
#define FW_MAX_DEFAULT_ITERATIONS 100000

/* Positive and finite: the domain of every budget and radius. */
static int
PositiveFinite(double v)
{
	return isfinite(v) && v > 0.0;
}

/*
 * privacy.md 3, [Z20] Alg. 1 with sum scores:
 * u(s) = -sum_m <s, grad l(w; d_m)>.  For the logistic loss grad l = -y x sigmoid(-y <w,x>), so with |x_j| <= 1,
 * |y| <= 1 and ||s||_1 = R every row's term lies in [-R, R].  Replacing one
 * row swaps one term for another: the score moves by at most 2R, in either
 * direction.
 *
 * Quantisation (fw.c, fwkernel.c) keeps this bound exact.  The solver uses
 * u(s) = +-R S_jk / Q with Q = MRF_FW_QUANTUM = 127 and the integer
 * S_jk = sum_m Gq_mk X_mj, where |Gq_mk| <= 127 for every input (one signed
 * byte; it depends on row m and the released selections only) and
 * X_mj in {-1, 0, 1}; so row m's term R Gq X / Q lies in [-R, R].  S is
 * computed in integer arithmetic (int32 sums over at most 2^24 rows, int64
 * totals; the portable sgemm path keeps every float partial sum an integer
 * below 2^24), hence exactly, whatever the kernel, thread count or row order:
 * replacing one row moves S by at most 2Q and u by at most 2R, with no
 * rounding slack.  S is below 2^53 in magnitude, so the double the mechanism
 * multiplies is exact too.
 */
double
MrfFwScoreSensitivity(double radius)
{
	if (!PositiveFinite(radius))
		return NAN;
	return 2.0 * radius;
}

/*
 * Per-selection pure-DP parameter eps0 for a selection worth rho_step zCDP.
 * Exponential mechanism: eps0-DP with bounded range (the log-ratio of the
 * selection probabilities spans an interval of width eps0), which is
 * eps0^2/8-zCDP ([CR21]; [DDR20]); so eps0 = sqrt(8 rho_step).
 * Laplace report-noisy-max: only pure eps0-DP, which is eps0^2/2-zCDP
 * ([BS16] Prop. 1.4); so eps0 = sqrt(2 rho_step).
 */
double
MrfFwStepEpsilon(MrfMechanism mech, double rho_step)
{
	if (!PositiveFinite(rho_step))
		return NAN;
	switch (mech)
	{
		case MRF_MECH_EXPONENTIAL:
			return sqrt(8.0 * rho_step);
		case MRF_MECH_LAPLACE:
			return sqrt(2.0 * rho_step);
	}
	return NAN;
}

/*
 * The exponential mechanism with utility sensitivity Du selects s with
 * probability proportional to exp(eps0 u(s) / (2 Du)) and is eps0-DP
 * (privacy.md 3; McSherry-Talwar 2007).  Gumbel-max realises it: argmax over
 * s of c u(s) + Gumbel has exactly the law proportional to exp(c u(s)).
 */
double
MrfFwExponentialScale(double eps0, double sensitivity)
{
	if (!PositiveFinite(eps0) || !PositiveFinite(sensitivity))
		return NAN;
	return eps0 / (2.0 * sensitivity);
}

/*
 * Report-noisy-max with Laplace noise.  Lap(Du/eps0) suffices only for
 * monotone scores; Frank-Wolfe scores move in both directions under
 * replace-one, and then the scale 2 Du / eps0 is needed for eps0-DP (the
 * factor 2 is tight; privacy.md 3).  The paper's scale is too small: not used.
 */
double
MrfFwLaplaceScale(double eps0, double sensitivity)
{
	if (!PositiveFinite(eps0) || !PositiveFinite(sensitivity))
		return NAN;
	return 2.0 * sensitivity / eps0;
}

/*
 * privacy.md 3: T = ceil((R n sqrt(rho_node))^(2/3)), at least 2, which
 * balances the O(1/T) Frank-Wolfe bias against the noise of T-1 selections ([Z20]
 * Thm. 3.1 with sum scores).  It depends on public values only, so choosing
 * it costs no privacy.  Capped at FW_MAX_DEFAULT_ITERATIONS = 100000: beyond
 * that the optimisation error is far below the statistical error of any table
 * that fits in memory, and the cap bounds the run time.  The factor
 * (1 - 1e-12) keeps exact cubes (base 1000 -> 100) from rounding up by one.
 * Returns -1 on invalid input.
 */
int
MrfFwDefaultIterations(double radius, int64_t n, double rho_node)
{
	double		base;
	double		t;

	if (!PositiveFinite(radius) || n <= 0 || !PositiveFinite(rho_node))
		return -1;
	base = radius * (double) n * sqrt(rho_node);
	if (!isfinite(base))
		return FW_MAX_DEFAULT_ITERATIONS;
	t = ceil(pow(base, 2.0 / 3.0) * (1.0 - 1e-12));
	if (t < 2.0)
		return 2;
	if (t > (double) FW_MAX_DEFAULT_ITERATIONS)
		return FW_MAX_DEFAULT_ITERATIONS;
	return (int) t;
}

/*
 * Not a calibration: the defaults study found the paper's T 2 to 16
 * times too many at every lambda (each selection then gets too little of the
 * budget), so the learners run a fraction of it.  The fraction is a public
 * constant, so T stays a function of public values.
 */
int
MrfFwIterations(double radius, int64_t n, double rho_node, double fraction)
{
	int			t = MrfFwDefaultIterations(radius, n, rho_node);
	double		scaled;

	if (t < 0 || !PositiveFinite(fraction) || fraction > 1.0)
		return -1;
	scaled = ceil(fraction * (double) t - 1e-9);
	return scaled < 2.0 ? 2 : (int) scaled;
}

/*
 * T iterations make T-1 noisy selections (w_1 = 0 is fixed); zCDP composes
 * additively ([BS16] Lemma 2.3), so each gets rho_node / (T - 1).
 */
double
MrfFwStepRho(double rho_node, int iterations)
{
	if (!PositiveFinite(rho_node) || iterations < 2)
		return NAN;
	return rho_node / (double) (iterations - 1);
}

/*
 * Per-regression budget of the pairwise learner (privacy.md 5, [Z20] Alg. 3):
 * rho' = rho / (p k) for each of the p k (k-1) regressions (i, u, v),
 * u != v.  [Z20] and the first calibration used rho / (k^2 p); the proof below shows
 * that k times that is still rho-zCDP, and that no split of the budget over
 * the regressions, each calibrated as a sum-score Frank-Wolfe run, can give
 * more (the defaults study).
 *
 * Neighbouring relation.  D and D' are sequences of n rows over {0..k-1}^p
 * that differ in one position m only: row z in D, z' != z in D' (replace-
 * one; n is public).  Let c = number of variables i with z_i != z'_i, so
 * 1 <= c <= p.
 *
 * Step 1 (what a row contributes).  Regression (i, u, v) sees every row
 * with label y = +1 if z_i = u, -1 if z_i = v, 0 otherwise, and the 0/1
 * features x (the one-hot blocks of the variables other than i and the
 * intercept: variable i's block is never a candidate).  So its row set
 * S_uv = {rows with z_i in {u, v}} depends on the data; the scores never
 * divide by |S_uv| (a sum over all n rows), and a row outside S_uv has
 * y = 0 and contributes exactly 0.  fw.c's quantised gradient weight Gq
 * (a function of the row and of earlier releases only) satisfies
 * y Gq >= 0, |Gq| <= Q, Gq = 0 when y = 0 (fw.c's file comment), and the
 * candidates are the vertices +-R e_j of allowed coordinates j, so a row
 * adds t_j = R Gq x_j / Q to the score of +R e_j and -t_j to that of
 * -R e_j, with t_j in [0, R] when y = +1, in [-R, 0] when y = -1, and
 * t_j = 0 when y = 0 (x_j in {0, 1}).
 *
 * Step 2 (one selection, one neighbouring pair).  At any iterate (fixed by
 * earlier releases) let Delta = max_j |t_j - t'_j| over the row's two
 * versions.  The score differences u(s) - u'(s) lie in [-Delta, Delta] for
 * every candidate s, so the exponential mechanism with multiplier
 * eps0 / (2 Du), Du = 2R, has log-ratios in an interval of width
 * eps0 Delta / Du: (eps0 Delta / Du)-bounded range, hence
 * (Delta / Du)^2 rho_step-zCDP for this pair ([CR21]; MrfFwStepEpsilon).
 * Report-noisy-max with Laplace(2 Du / eps0) is (eps0 Delta / Du)-DP on
 * Delta-sensitive scores, hence (Delta / Du)^2 rho_step-zCDP as well
 * ([BS16] Prop. 1.4).  The bounds on Delta hold at every iterate, so by
 * adaptive composition over the T-1 steps a regression costs
 * f rho' with f = (Delta_max / 2R)^2 on this pair.  By Step 1, for node i
 * with a = z_i, a' = z'_i:
 *   (A) label flips, the row stays in S_uv: (u, v) = (a, a') or (a', a)
 *       when a != a'.  t in [0, R], t' in [-R, 0]: Delta <= 2R, f <= 1.
 *   (B) the row leaves S_uv or joins it: a != a' and {u, v} contains
 *       exactly one of a, a' (4 (k-2) regressions: (a, w), (w, a) leave,
 *       (a', w), (w, a') join, w outside {a, a'}).  One side is 0, the
 *       other in [-R, R]: Delta <= R, f <= 1/4.
 *   (C) same label, other features: a = a' and a in {u, v} (2 (k-1)
 *       regressions).  t and t' both lie in [0, R] or both in [-R, 0]:
 *       Delta <= R, f <= 1/4.  (Features are 0/1 and Gq has the sign of y;
 *       with +-1 features, as the Ising learner's, this step would fail.)
 *   (D) every other regression: the row is outside S_uv in both datasets,
 *       Delta = 0, f = 0.
 * Node i therefore costs, as multiples of rho',
 *     a != a':  2 * 1 + 4 (k-2) / 4 = k,
 *     a == a':  2 (k-1) / 4 = (k-1) / 2.
 * (These are the 4k - 6 regressions a changed value touches, but only 2 of
 * them at full sensitivity: counting all 4k - 6 at full cost is valid and
 * loose; counting only the 2 of case A, i.e. ignoring the row-set changes of
 * case B, would understate the loss k/2-fold.)
 *
 * Step 3 (composition across nodes).  Every regression is one adaptive
 * sequence of mechanisms, and Renyi divergences of adaptively composed
 * mechanisms add pair by pair ([BS16] Lemma 2.3 is proved for each fixed
 * pair D, D'), so the whole release costs, on this pair,
 *     rho' (c k + (p - c)(k-1)/2) <= rho' p k,
 * the maximum at c = p (every variable of the row changes, which is
 * possible: z' = z + 1 mod k).  rho' = rho / (p k) gives rho-zCDP.
 *
 * Step 4 (no better split).  Give regression (u, v) of a node budget r_uv,
 * B = sum r_uv.  Averaged over the k(k-1)/2 unordered pairs {a, a'}, the
 * cost of case a != a' is (B + 2 (k-2) B / 4) / (k (k-1) / 2) = B / (k-1)
 * (each regression is the case-A pair of one {a, a'} and case B of
 * 2 (k-2) of them), so some change of node i's value costs at least
 * B_i / (k-1).  The values of all p variables can change independently, so
 * some neighbouring pair costs at least sum_i B_i / (k-1): the budgets of
 * all regressions add up to at most (k-1) rho, and the uniform split,
 * p k (k-1) rho / (p k), reaches that.  Steps 1-2 use only |Gq| <= Q; the
 * gradient weights are smaller when the margins are small (|t_j| <=
 * R sigmoid(R)), which we do not exploit.
 *
 * Compared with rho / (k^2 p) this is k times the budget per regression
 * (3x at k = 3, 8x at k = 8).
 */
double
MrfPairwiseProblemRho(double rho, int p, int k)
{
	if (!PositiveFinite(rho) || p < 1 || k < 2)
		return NAN;
	return rho / ((double) k * (double) p);
}

/*
 * Per-variable alphabets: variable i has k_i values, node i runs
 * k_i (k_i - 1) regressions over its own values, and the features are the
 * 0/1 one-hot blocks of the other variables' own alphabets (R = 2 lambda k
 * with k = max k_i bounds every regression's weights, see pairwise.c).
 * MrfPairwiseProblemRho's proof goes through node by node with k_i in place
 * of k: Steps 1-2 need only 0/1 features and the sign property of Gq, so a
 * changed value of node i costs 2 + 4 (k_i - 2) / 4 = k_i regressions'
 * worth and an unchanged one (k_i - 1) / 2 <= k_i; Step 3 adds the nodes,
 * at most rho' sum_i k_i (every variable of the row changes).  rho' =
 * rho / sum_i k_i is therefore rho-zCDP; with every k_i = k it is
 * MrfPairwiseProblemRho's rho / (p k) exactly (the sum is an integer, exact
 * in doubles).  The alphabets are public (types and declared domains), so
 * the split is too.
 */
double
MrfPairwiseProblemRhoAlphabets(double rho, int p, const uint8_t *kv)
{
	double		sum = 0.0;

	if (!PositiveFinite(rho) || p < 1 || kv == NULL)
		return NAN;
	for (int i = 0; i < p; i++)
	{
		if (kv[i] < 2)
			return NAN;
		sum += (double) kv[i];
	}
	return rho / sum;
}

/*
 * [CKS20] Prop. 12 and Cor. 13: rho-zCDP implies (eps, delta)-DP with
 * delta = exp((a-1)(a rho - eps)) / (a-1) * (1-1/a)^a for every a > 1.
 * Solved for eps at order a; x = log(a - 1) parametrises a > 1.
 */
static double
TightEpsilonAt(double rho, double log_delta, double x)
{
	double		am1 = exp(x);
	double		a = 1.0 + am1;
	double		log1m_inv_a;

	/* log(1 - 1/a) = -log1p(1/(a-1)), evaluated without cancellation */
	if (x > 0.0)
		log1m_inv_a = -log1p(exp(-x));
	else
		log1m_inv_a = x - log1p(am1);
	return a * rho + (a * log1m_inv_a - x - log_delta) / am1;
}

/*
 * rho-zCDP to (eps, delta)-DP, [CKS20] Cor. 13: eps = min over a > 1 of
 * TightEpsilonAt.  Every a gives a valid eps, so the search can only err
 * towards a larger (safe) eps: a coarse scan of log(a-1) over [-20, 40] and a
 * golden-section refinement around the best grid point.  A negative optimum
 * means delta(0) < delta already, so 0 is returned.
 */
double
MrfZcdpToDpTight(double rho, double delta)
{
	const double lo_x = -20.0;
	const double hi_x = 40.0;
	const double step = 0.05;
	const double inv_phi = 0.6180339887498949;
	double		log_delta;
	double		best_x = lo_x;
	double		best = INFINITY;
	double		a;
	double		b;
	double		c;
	double		d;
	double		fc;
	double		fd;
	int			i;
	int			steps;

	if (!PositiveFinite(rho) || !isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return NAN;
	log_delta = log(delta);

	steps = (int) ((hi_x - lo_x) / step + 0.5);
	for (i = 0; i <= steps; i++)
	{
		double		x = lo_x + step * i;
		double		e = TightEpsilonAt(rho, log_delta, x);

		if (e < best)
		{
			best = e;
			best_x = x;
		}
	}

	a = best_x - step;
	b = best_x + step;
	c = b - inv_phi * (b - a);
	d = a + inv_phi * (b - a);
	fc = TightEpsilonAt(rho, log_delta, c);
	fd = TightEpsilonAt(rho, log_delta, d);
	for (i = 0; i < 100 && b - a > 1e-13; i++)
	{
		if (fc < fd)
		{
			b = d;
			d = c;
			fd = fc;
			c = b - inv_phi * (b - a);
			fc = TightEpsilonAt(rho, log_delta, c);
		}
		else
		{
			a = c;
			c = d;
			fc = fd;
			d = a + inv_phi * (b - a);
			fd = TightEpsilonAt(rho, log_delta, d);
		}
	}
	if (fc < best)
		best = fc;
	if (fd < best)
		best = fd;
	if (!(best > 0.0))
		return isnan(best) ? NAN : 0.0;

	/*
	 * Every alpha gives a valid epsilon, but evaluating one in floating point
	 * can land a few ulp (up to about 1e-10 relative when delta is near 1)
	 * below the exact value at that alpha; a relative margin of 1e-9 covers
	 * that, so the result is never below a valid epsilon.  An epsilon beyond
	 * the largest double is no value (NaN), never +infinity.
	 */
	best *= 1.0 + 1e-9;
	return isfinite(best) ? best : NAN;
}

/*
 * [BS16] Prop. 1.3: eps = rho + 2 sqrt(rho ln(1/delta)); NaN beyond the
 * largest double.
 */
double
MrfZcdpToDpBs16(double rho, double delta)
{
	double		eps;

	if (!PositiveFinite(rho) || !isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return NAN;
	eps = rho + 2.0 * sqrt(rho * log(1.0 / delta));
	return isfinite(eps) ? eps : NAN;
}

/*
 * Largest rho with MrfZcdpToDpTight(rho, delta) <= epsilon, by bisection on
 * the increasing map rho -> eps.  The lower end always satisfies the
 * inequality, and that end is returned, so the answer is on the safe side.
 * NaN when no positive double fits (an epsilon so small that the rho it
 * allows underflows, e.g. epsilon = delta = 1e-300): rho = 0 is no budget.
 */
double
MrfZcdpForDp(double epsilon, double delta)
{
	double		lo = 0.0;
	double		hi;
	int			i;

	if (!PositiveFinite(epsilon) || !isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return NAN;

	/* grow hi until it violates the target */
	hi = epsilon;
	for (i = 0; i < 200 && MrfZcdpToDpTight(hi, delta) <= epsilon; i++)
	{
		lo = hi;
		hi *= 2.0;
	}
	if (!isfinite(hi))
		return NAN;

	for (i = 0; i < 200 && hi - lo > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (MrfZcdpToDpTight(mid, delta) <= epsilon)
			lo = mid;
		else
			hi = mid;
	}
	if (!(lo > 0.0))
		return NAN;
	return lo;
}

/*
 * Largest rho with MrfZcdpToDpBs16(rho, delta) <= epsilon, in closed form:
 * with L = ln(1/delta), rho + 2 sqrt(rho L) = eps is (sqrt(rho) + sqrt(L))^2
 * = eps + L, so sqrt(rho) = sqrt(eps + L) - sqrt(L).  Rounding is corrected
 * downwards until the forward map fits, so the answer is on the safe side.
 */
double
MrfZcdpForDpBs16(double epsilon, double delta)
{
	double		L;
	double		s;
	double		rho;

	if (!PositiveFinite(epsilon) || !isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return NAN;
	L = log(1.0 / delta);
	/* sqrt(eps + L) - sqrt(L) without cancellation for a small eps */
	s = epsilon / (sqrt(L + epsilon) + sqrt(L));
	rho = s * s;
	while (rho > 0.0 && MrfZcdpToDpBs16(rho, delta) > epsilon)
		rho = nextafter(rho, 0.0);
	/* as MrfZcdpForDp: no positive double fits, no value */
	return rho > 0.0 ? rho : NAN;
}

/*
 * a + b rounded up: the sum rounded to nearest, raised by one ulp when the
 * rounding went down (Knuth's TwoSum recovers the rounding error exactly),
 * so exact sums stay exact and inexact ones never understate.
 */
static double
AddUp(double a, double b)
{
	double		s = a + b;
	double		bb = s - a;
	double		err = (a - (s - bb)) + (b - bb);

	return err > 0 ? nextafter(s, INFINITY) : s;
}

/* a + b rounded up (AddUp): for the budget of two composed releases. */
double
MrfComposeUp(double a, double b)
{
	return AddUp(a, b);
}

/*
 * Total epsilon spent on one relation (privacy.md 9), given its charges:
 * zcdp_rho = sum of rho of zCDP releases; pure_epsilon and pure_rho = sum of
 * epsilon and of epsilon^2/2 of pure releases; approx_epsilon, approx_delta =
 * sums over (epsilon, delta) releases; delta_cap the relation's delta.
 *
 * The accountant is fixed by the relation's budget, never chosen per
 * release, so that it is one filter over an adaptively chosen sequence:
 *  - delta_cap > 0 (privacy.md 9): pure charges enter zCDP as eps^2/2 [BS16,
 *    Prop. 1.4]; zCDP composes additively, also adaptively [BS16, Lemma
 *    2.3; Feldman-Zrnic 2021 for the filter]; the total rho converts to
 *    (eps, delta_cap - sum delta_i) by [CKS20]; basic composition
 *    [Dwork-Roth, Thm 3.16] adds the approximate releases.
 *  - delta_cap = 0: a pure-DP budget.  Only pure releases fit, and their
 *    epsilons add (basic composition, which holds adaptively as a filter:
 *    Rogers-Roth-Ullman-Vadhan 2016).
 * Returns +infinity when nothing more fits (no delta left for a zCDP part,
 * or a non-pure charge on a pure budget).  Inputs are rounded up by the
 * caller; sums and conversions here round up too.
 */
double
MrfComposeEpsilon(double zcdp_rho, double pure_epsilon, double pure_rho,
				  double approx_epsilon, double approx_delta, double delta_cap)
{
	/* rounded down: a smaller delta only makes the conversion more conservative */
	double		delta_left = nextafter(delta_cap - approx_delta, 0.0);
	double		rho;

	if (zcdp_rho < 0 || pure_epsilon < 0 || pure_rho < 0 || approx_epsilon < 0 ||
		approx_delta < 0 || !(delta_cap >= 0))
		return NAN;
	if (delta_cap == 0)
		return (zcdp_rho > 0 || approx_epsilon > 0 || approx_delta > 0) ? INFINITY : pure_epsilon;
	if (approx_delta > delta_cap)
		return INFINITY;
	rho = AddUp(zcdp_rho, pure_rho);
	if (rho == 0.0)
		return approx_epsilon;
	if (isinf(rho))
		return INFINITY;		/* a sum beyond the doubles: nothing more fits */
	if (!(delta_left > 0.0))
		return INFINITY;
	return AddUp(nextafter(MrfZcdpToDpTight(rho, delta_left), INFINITY), approx_epsilon);
}

/*
 * ---- what still fits a relation's budget (the ledger's check, in doubles) ----
 *
 * The charge worker admits a release when the composed total of the new sums
 * (MrfComposeEpsilon over the exact decimal sums, each rounded up) is at most
 * the budget's epsilon, the approximate deltas stay within its delta and the
 * rho total within rho_cap.  The checks below are that rule with every sum
 * rounded up instead of exact (AddUp of spent sums that were themselves
 * rounded up), so each is at least as strict as the worker's: an amount that
 * passes here fits.  The caller confirms a reported amount with the ledger's
 * own exact check, because the tight conversion is monotone in rho only up to
 * its floating-point evaluation.
 */

/*
 * a * b rounded up, for a, b >= 0: the product's rounding error is exact by
 * fma while the product is far from the subnormal range (its error is then
 * representable); below 2^-900 it is raised by one ulp unconditionally, so a
 * tiny positive product is never taken for 0.
 */
static double
MulUp(double a, double b)
{
	double		p = a * b;

	if (!(a > 0 && b > 0))
		return p;
	if (p < 0x1p-900)
		return nextafter(p, INFINITY);
	return fma(a, b, -p) > 0 ? nextafter(p, INFINITY) : p;
}

/*
 * A valid budget: caps positive (rho_cap may be +inf), spent sums >= 0 (+inf
 * when the exact sum exceeds every double, e.g. eps^2/2 of a huge pure
 * charge, which only a pure budget can carry).
 */
static int
BudgetValid(const MrfBudget *b)
{
	return b != NULL && PositiveFinite(b->epsilon) && b->delta >= 0 && b->delta < 1 &&
		b->rho_cap > 0 && !isnan(b->rho_cap) &&
		b->zcdp_rho >= 0 && b->pure_epsilon >= 0 && b->pure_rho >= 0 &&
		b->approx_epsilon >= 0 && b->approx_delta >= 0;
}

/* The rho_cap check: spent zCDP and pure rho plus the new rho, rounded up. */
static int
WithinRhoCap(const MrfBudget *b, double rho)
{
	return isinf(b->rho_cap) || AddUp(AddUp(b->zcdp_rho, b->pure_rho), rho) <= b->rho_cap;
}

/* Whether a rho-zCDP release fits (privacy.md 9's accountant, sums up). */
int
MrfBudgetFitsZcdp(const MrfBudget *b, double rho)
{
	if (!BudgetValid(b) || !(rho >= 0) || !isfinite(rho))
		return 0;
	return MrfComposeEpsilon(AddUp(b->zcdp_rho, rho), b->pure_epsilon, b->pure_rho,
							 b->approx_epsilon, b->approx_delta, b->delta) <= b->epsilon &&
		b->approx_delta <= b->delta && WithinRhoCap(b, rho);
}

/*
 * Whether a pure epsilon-DP release fits: it adds epsilon to the pure sum and
 * epsilon^2/2 to the pure rho ([BS16] Prop. 1.4), both rounded up.
 */
int
MrfBudgetFitsPure(const MrfBudget *b, double epsilon)
{
	double		half;
	double		sq;

	if (!BudgetValid(b) || !(epsilon >= 0) || !isfinite(epsilon))
		return 0;
	sq = MulUp(epsilon, epsilon);	/* +inf beyond the doubles: fits pure budgets only */
	half = 0.5 * sq;
	if (half * 2.0 != sq)
		half = nextafter(half, INFINITY);	/* halving a subnormal rounded */
	return MrfComposeEpsilon(b->zcdp_rho, AddUp(b->pure_epsilon, epsilon),
							 AddUp(b->pure_rho, half), b->approx_epsilon,
							 b->approx_delta, b->delta) <= b->epsilon &&
		b->approx_delta <= b->delta && WithinRhoCap(b, half);
}

/* Whether an (epsilon, delta)-DP release fits (basic composition on top). */
int
MrfBudgetFitsApprox(const MrfBudget *b, double epsilon, double delta)
{
	double		ad;

	if (!BudgetValid(b) || !(epsilon >= 0) || !isfinite(epsilon) ||
		!(delta >= 0) || !isfinite(delta))
		return 0;
	ad = AddUp(b->approx_delta, delta);
	return MrfComposeEpsilon(b->zcdp_rho, b->pure_epsilon, b->pure_rho,
							 AddUp(b->approx_epsilon, epsilon), ad, b->delta) <= b->epsilon &&
		ad <= b->delta && WithinRhoCap(b, 0);
}

/* The double whose bits, read as an unsigned integer, are u (u <= +inf's). */
static double
DoubleOfBits(uint64_t u)
{
	union
	{
		uint64_t	u;
		double		d;
	}			v;

	v.u = u;
	return v.d;
}

/* Which amount a search moves: the release's one, the other held fixed. */
typedef enum FitKind
{
	FIT_ZCDP,
	FIT_PURE,
	FIT_APPROX_EPSILON,			/* at delta = other */
	FIT_APPROX_DELTA			/* at epsilon = other */
} FitKind;

/* Whether x fits as the amount of kind, the other amount fixed. */
static int
FitsAs(const MrfBudget *b, FitKind kind, double x, double other)
{
	switch (kind)
	{
		case FIT_ZCDP:
			return MrfBudgetFitsZcdp(b, x);
		case FIT_PURE:
			return MrfBudgetFitsPure(b, x);
		case FIT_APPROX_EPSILON:
			return MrfBudgetFitsApprox(b, x, other);
		case FIT_APPROX_DELTA:
			return MrfBudgetFitsApprox(b, other, x);
	}
	return 0;
}

/*
 * The largest double x >= 0 that fits, 0 when none > 0 does.  Non-negative
 * doubles are ordered as their bit patterns, so bisecting the integers
 * 0 .. bits(+inf) finds the boundary of a monotone test in at most 64 steps,
 * to the last bit; the answer is always a value that passed (rounding down).
 */
static double
LargestFitting(const MrfBudget *b, FitKind kind, double other)
{
	uint64_t	lo = 0;			/* bits of 0.0: fits by convention */
	uint64_t	hi = 0x7ff0000000000000ULL;	/* bits of +inf: never fits */

	if (!FitsAs(b, kind, DoubleOfBits(1), other))
		return 0.0;				/* not even the smallest positive amount */
	lo = 1;
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (FitsAs(b, kind, DoubleOfBits(mid), other))
			lo = mid;
		else
			hi = mid;
	}
	return DoubleOfBits(lo);
}

/* Largest rho of a zCDP release that fits now (0: none). */
double
MrfBudgetLargestZcdp(const MrfBudget *b)
{
	return BudgetValid(b) ? LargestFitting(b, FIT_ZCDP, 0) : NAN;
}

/* Largest epsilon of a pure release that fits now (0: none). */
double
MrfBudgetLargestPure(const MrfBudget *b)
{
	return BudgetValid(b) ? LargestFitting(b, FIT_PURE, 0) : NAN;
}

/* Largest epsilon of an (epsilon, delta) release at the given delta (0: none). */
double
MrfBudgetLargestApproxEpsilon(const MrfBudget *b, double delta)
{
	if (!BudgetValid(b) || !(delta > 0) || !(delta < 1))
		return NAN;
	/* epsilon = 0 must fit first: otherwise this delta alone is too much */
	if (!MrfBudgetFitsApprox(b, 0, delta))
		return 0.0;
	return LargestFitting(b, FIT_APPROX_EPSILON, delta);
}

/*
 * Largest delta of an (epsilon, delta) release that fits with the smallest
 * positive epsilon (0: none).  Spending delta also shrinks the delta left to
 * convert the zCDP part, so the epsilon that fits with it can be tiny.
 */
double
MrfBudgetLargestApproxDelta(const MrfBudget *b)
{
	return BudgetValid(b) ? LargestFitting(b, FIT_APPROX_DELTA, DoubleOfBits(1)) : NAN;
}

/*
 * [BS16] Prop. 1.4: a pure eps-DP mechanism is eps^2/2-zCDP.  NaN when
 * eps^2/2 is no positive double: it underflows to 0 (eps below about
 * 1.5e-162; rounding up to the smallest subnormal would overstate a
 * conversion the caller may use as a budget, so none is given) or
 * overflows (eps above about 1.9e154).
 */
double
MrfDpToZcdp(double epsilon)
{
	double		rho;

	if (!PositiveFinite(epsilon))
		return NAN;
	rho = 0.5 * epsilon * epsilon;
	return PositiveFinite(rho) ? rho : NAN;
}

/*
 * ---- stable mode over disjoint blocks (privacy.md 7; [Z20] Lemma 6.1) ----
 *
 * Further references:
 *   [V17]   Vadhan, "The Complexity of Differential Privacy", 2017,
 *           Proposition 3.4 (stability-based histograms).
 *
 * Mechanism.  The rows are split into m disjoint blocks by an assignment
 * that does not look at the data; a non-private learner maps each block to a
 * canonical structure; c_g is the number of blocks that produced g.  For
 * every g with c_g >= 1 (and only those) draw Z_g from the discrete Laplace
 * distribution P(z) proportional to exp(-|z| / s), s = num/den >= 2/epsilon,
 * and keep g when c_g + Z_g >= tau; release the kept g with the largest
 * noisy count (ties at random), or nothing.
 *
 * Why the noise is discrete.  Counts are integers; the exact sampler of
 * [CKS20] Alg. 2 has no floating-point artefacts (Mironov 2012), so the
 * tail bound below is the true one, not a property of an idealised real
 * distribution.  With a = 1/s <= epsilon/2 and k >= 0,
 * P(Z >= k) = exp(-a k) / (1 + exp(-a)): the discrete tail is heavier than
 * the continuous Laplace tail (1/2) exp(-a k) by the factor
 * 2 / (1 + exp(-a)) < 2, so tau is raised accordingly (never lowered).
 *
 * Proof of (epsilon, delta)-DP under replace-one.  Let H(D) be the vector,
 * over all structures, of the thresholded noisy counts (a symbol "dropped"
 * for unobserved or dropped structures); the release is a function of H, so
 * it suffices to bound H.  Replacing one row changes the output of one block
 * from g' to g (nothing else: blocks are disjoint and their assignment does
 * not depend on the data).  Let C be the structures observed in both D and
 * D'.  On C the counts differ by at most 1 at g and 1 at g': L1 distance
 * <= 2, and an integer shift by v multiplies the discrete Laplace density by
 * at most exp(a |v|), so H_C is (2a <= epsilon)-DP (step 1).  A structure
 * observed on one side only has count exactly 1 there, is always dropped on
 * the other side, and survives with probability
 *     q = P(1 + Z >= tau) = exp(-a (tau - 1)) / (1 + exp(-a)) <= delta
 * (step 2, MrfStableModeLeak).  Cases, for any set A of outcomes and with
 * P = P[H(D) in A], P' = P[H(D') in A]:
 *   - g and g' both in C: P <= e^eps P' by step 1.
 *   - g new in D, g' new in D': C's counts agree, P <= q + (1-q) y where
 *     y = P[H_C with both dropped in A] and P' >= (1-q) y, so P <= P' + q.
 *   - g new in D only: P <= q + e^(eps/2) P'.
 *   - g' new in D' only: with u = e^(eps/2) y, P <= min(1, u) and
 *     P' >= (1-q) y, so e^eps P' >= (1-q) e^(eps/2) u >= u - q: P <= e^eps
 *     P' + q.
 * In every case P <= e^eps P' + delta.
 *
 * What the block learner may be.  Nothing above looks inside the block
 * learner: the proof needs only that a block's structure is a function of
 * that block's rows and of public values.  The pairwise block learner with
 * per-variable alphabets is such a function: the alphabets k_i,
 * the design (sum_i k_i + 1 one-hot columns, sum_i k_i (k_i - 1)
 * regressions), the radius 2 lambda k and the NULL policy (a 'category'
 * value adds one to k_i) come from the column types and the options, never
 * from the data, and a value outside its declared domain is refused on the
 * aggregate path (an error that depends on one row, as any invalid value)
 * or replaced by the fixed row on the protected path, a row-local map that
 * keeps replace-one neighbours neighbours.  So epsilon, delta, tau and m
 * are unchanged whatever the alphabets, and the threshold method with
 * model 'pairwise' is the pairwise learner's release at rho (each
 * regression at rho / sum_i k_i, MrfPairwiseProblemRhoAlphabets) followed
 * by post-processing.
 *
 * Rounding.  epsilon enters only through the rational s = num/den, with
 * den = 2^20 and num = ceil(fl(2^21/epsilon)) + 1: the quotient has
 * relative error <= 2^-53 and is below 2^53 in the accepted range, so its
 * absolute error is below 1 and s >= 2/epsilon exactly.  tau is then the
 * smallest integer >= 2 for which the tail at a = den/num, evaluated in
 * double, is at most delta (1 - 1e-9) -- the margin covers the few ulps of
 * exp and log -- and at least the continuous argument's threshold
 * 1 + (2/epsilon) ln(1/(2 delta)).
 */

/* den of the noise scale: 2^20 keeps num small and the rounding negligible. */
#define STABLE_DEN_BITS 20

/*
 * Smallest epsilon accepted: it keeps 2^21/epsilon below 2^53, where the
 * rounding argument above holds (and num far inside the sampler's range).
 */
#define STABLE_MIN_EPSILON 1e-9

/* Relative margin on delta that absorbs the rounding of exp and log. */
#define STABLE_TAIL_MARGIN 1e-9

/* Valid (epsilon, delta) of the stable mode. */
static int
StableModeValid(double epsilon, double delta)
{
	return PositiveFinite(epsilon) && epsilon >= STABLE_MIN_EPSILON &&
		isfinite(delta) && delta > 0.0 && delta < 1.0;
}

/* The rational scale s = num/den >= 2/epsilon (see the section comment). */
int
MrfStableModeNoise(double epsilon, uint64_t *num, uint64_t *den)
{
	double		x;

	if (!PositiveFinite(epsilon) || epsilon < STABLE_MIN_EPSILON ||
		!num || !den)
		return -1;
	x = ldexp(2.0 / epsilon, STABLE_DEN_BITS);
	*num = (uint64_t) ceil(x) + 1;
	*den = (uint64_t) 1 << STABLE_DEN_BITS;
	return 0;
}

/* P(Z >= k) = exp(-a k) / (1 + exp(-a)) for the discrete Laplace, k >= 0. */
static double
StableModeTail(double a, int64_t k)
{
	return exp(-a * (double) k) / (1.0 + exp(-a));
}

/*
 * Step 2 of the proof: the smallest tau >= 2 whose leak probability
 * P(Z >= tau - 1) is at most delta, raised to the continuous argument's
 * threshold if that were larger (it never is: the discrete tail is the
 * heavier one).
 */
int64_t
MrfStableModeThreshold(double epsilon, double delta)
{
	uint64_t	num;
	uint64_t	den;
	double		a;
	double		k0;
	double		spec;
	int64_t		k;

	if (!StableModeValid(epsilon, delta) ||
		MrfStableModeNoise(epsilon, &num, &den) != 0)
		return -1;
	a = (double) den / (double) num;
	k0 = ceil((-log(delta) - log1p(exp(-a))) / a);
	spec = ceil((2.0 / epsilon) * log(1.0 / (2.0 * delta)));
	if (spec > k0)
		k0 = spec;
	if (k0 < 1.0)
		k0 = 1.0;
	if (!(k0 < 1e15))
		return -1;
	k = (int64_t) k0;
	while (StableModeTail(a, k) > delta * (1.0 - STABLE_TAIL_MARGIN))
		k++;
	return k + 1;
}

/* P(1 + Z >= tau): the survival probability of a structure seen once. */
double
MrfStableModeLeak(double epsilon, double delta)
{
	uint64_t	num;
	uint64_t	den;
	int64_t		tau = MrfStableModeThreshold(epsilon, delta);

	if (tau < 0 || MrfStableModeNoise(epsilon, &num, &den) != 0)
		return NAN;
	return StableModeTail((double) den / (double) num, tau - 1);
}

/*
 * ---- the stable mode with blocks cut where the rows are (privacy.md 7.3) ----
 *
 * On a Citus distributed table each shard cuts its own rows into b blocks
 * (b fixed from public values: the block count and the shard count), each
 * row to an independent uniform block drawn from the worker's CSPRNG, a
 * uniformly random subset of at most `cap` rows kept per block (reservoir),
 * the kept rows in uniformly random order; only the blocks' structures
 * travel.  A row's shard is a hash of its distribution column, i.e. of the
 * data: replacing one row may move it to another shard, so one block loses
 * a row and another gains one (privacy.md 7.3, step 1: the coupling).  The
 * block outputs then change in at most TWO blocks, from (g1, g2) to
 * (g1', g2'), where the one-node proof (7.1) has one:
 *   - the count vector moves by at most 4 in L1 (step 2), so the discrete
 *     Laplace scale is s >= 4/epsilon (MrfStableShardNoise);
 *   - the structures observed on one side only carry a count mass of at
 *     most 2: one structure of count 1 or 2, or two of count 1 (step 3), so
 *     the probability that any of them survives is at most
 *     L = max(P(2 + Z >= tau), 2 P(1 + Z >= tau)), and tau is the smallest
 *     integer >= 3 with L <= delta/2 (MrfStableShardThreshold,
 *     MrfStableShardLeak);
 *   - the final inequality (step 4) is case-free: P <= L + x and
 *     e^eps P' >= (1 - L) e^(eps - a l) x >= x - L with l <= 4 and
 *     a = 1/s <= eps/4, so P <= e^eps P' + 2L <= e^eps P' + delta.
 * A block with no row (or fewer than the block learner's minimum) abstains
 * and is not counted, on both sides alike: abstention is a function of the
 * block's size, so it changes only in the two blocks already counted.
 * Rounding as in the one-node mode: s = num/den with den = 2^20 and
 * num = ceil(fl(2^22/epsilon)) + 1 >= 2^22/epsilon exactly (2^22/epsilon is
 * below 2^53 for epsilon >= 1e-9); tau from the exact closed form of the
 * tail, evaluated in double, with the relative margin 1e-9 on delta/2.
 */

/* Blocks one replaced row may change when blocks are cut per shard (step 1). */
#define STABLE_SHARD_BLOCKS 2

/* L1 change of the count vector: each changed block moves two counts by 1 (step 2). */
#define STABLE_SHARD_L1 (2 * STABLE_SHARD_BLOCKS)

/* The rational scale s = num/den >= 4/epsilon (step 2). */
int
MrfStableShardNoise(double epsilon, uint64_t *num, uint64_t *den)
{
	double		x;

	if (!PositiveFinite(epsilon) || epsilon < STABLE_MIN_EPSILON ||
		!num || !den)
		return -1;
	x = ldexp((double) STABLE_SHARD_L1 / epsilon, STABLE_DEN_BITS);
	*num = (uint64_t) ceil(x) + 1;
	*den = (uint64_t) 1 << STABLE_DEN_BITS;
	return 0;
}

/*
 * Step 3's leak at threshold tau >= 2 and rate a: the largest probability
 * that the structures seen on one side only (count mass at most 2) survive:
 * one of count 2, or two of count 1 (union bound).
 */
static double
StableShardLeakAt(double a, int64_t tau)
{
	double		two = StableModeTail(a, tau - 2);
	double		ones = 2.0 * StableModeTail(a, tau - 1);

	return two > ones ? two : ones;
}

/* Step 3: the smallest tau >= 3 with the leak at most delta/2. */
int64_t
MrfStableShardThreshold(double epsilon, double delta)
{
	uint64_t	num;
	uint64_t	den;
	double		a;
	double		k0;
	int64_t		tau;

	if (!StableModeValid(epsilon, delta) ||
		MrfStableShardNoise(epsilon, &num, &den) != 0)
		return -1;
	a = (double) den / (double) num;
	/* P(Z >= tau - 2) <= delta/2 alone needs at least this (a lower start) */
	k0 = floor((-log(delta / 2.0) - log1p(exp(-a))) / a) + 2.0 - 1.0;
	if (k0 < 3.0)
		k0 = 3.0;
	if (!(k0 < 1e15))
		return -1;
	tau = (int64_t) k0;
	while (StableShardLeakAt(a, tau) > 0.5 * delta * (1.0 - STABLE_TAIL_MARGIN))
		tau++;
	return tau;
}

/* Step 3's leak L at the calibrated tau (at most delta/2); NaN if invalid. */
double
MrfStableShardLeak(double epsilon, double delta)
{
	uint64_t	num;
	uint64_t	den;
	int64_t		tau = MrfStableShardThreshold(epsilon, delta);

	if (tau < 0 || MrfStableShardNoise(epsilon, &num, &den) != 0)
		return NAN;
	return StableShardLeakAt((double) den / (double) num, tau);
}

/*
 * privacy.md 8, [B17] Prop. 3: every row adds exactly one count to each of
 * the m clique tables.  Under add/remove a row moves m cells by 1 (the paper's
 * Delta1 = m); replacing a row removes one count from each table and adds
 * one, possibly to another cell, so the L1 distance is up to 2m.
 *
 * Per-variable alphabets (variable i takes k_i values, table C has
 * prod_{i in C} k_i cells) change the shape of the tables, not this
 * argument: a row still lands in exactly one cell of each table, so
 * replace-one still moves one cell of each of the m tables by -1 and one by
 * +1, and Delta1 = 2m whatever the k_i.  The k_i are public (the columns'
 * types and declared domains, fixed before any row is read), so the set of
 * released cells, and with it the noise added, does not depend on the data.
 * A value outside its variable's alphabet never reaches a table: the
 * aggregate path refuses the statement, the protected path replaces the row
 * by a fixed one (a function of that row alone, privacy.md 9.4), which is
 * again a replacement of one row.
 */
double
MrfCliquesSensitivity(int ncliques)
{
	if (ncliques < 1)
		return NAN;
	return 2.0 * (double) ncliques;
}

/*
 * Discrete Laplace noise with scale t >= Delta1 / epsilon on each cell of an
 * integer vector of L1 sensitivity Delta1 is epsilon-DP: the density ratio
 * at any point is at most exp(Delta1 / t) ([CKS20] Sec. 2; Ghosh, Roughgarden,
 * Sundararajan 2009).  t = 2m/epsilon is written as num/den with den a power
 * of two no larger than 2^20 and num = ceil(t den) + 1 below 2^51: the
 * double t den is then within half a unit of the true value, so the +1 keeps
 * num/den >= 2m/epsilon (rounding only adds noise).  Scales above 2^40, the
 * sampler's range, are refused.
 */
int
MrfCliquesNoiseScale(double epsilon, int ncliques, uint64_t *num, uint64_t *den)
{
	const double max_scale = 1099511627776.0;	/* 2^40 */
	const double max_num = 2251799813685248.0;	/* 2^51 */
	double		scale;
	double		d = 1048576.0;	/* 2^20 */

	if (!PositiveFinite(epsilon) || ncliques < 1)
		return -1;
	scale = MrfCliquesSensitivity(ncliques) / epsilon;
	if (!PositiveFinite(scale) || scale > max_scale)
		return -1;
	while (d > 1.0 && scale * d >= max_num / 2.0)
		d *= 0.5;
	*den = (uint64_t) d;
	*num = (uint64_t) ceil(scale * d) + 1;
	return 0;
}

/*
 * ---- binary t-wise learners (privacy.md 6; [Z20] Algorithms 4 and 5) ----
 *
 * Further references:
 *   [HR10]  Hardt, Rothblum, "A Multiplicative Weights Mechanism for
 *           Privacy-Preserving Data Analysis", FOCS 2010.
 *   [HLM12] Hardt, Ligett, McSherry, "A Simple and Practical Algorithm for
 *           Differentially Private Data Release" (MWEM), NeurIPS 2012.
 */

/*
 * Node budgets.  Algorithm 4: the p node regressions each read every row, so
 * by composition ([BS16] Lemma 2.3) rho/p each adds up to rho.  Algorithm 5:
 * the regressions share half of the budget, rho/(2p) each, and the parity
 * queries the other half (MrfTwiseQueryRho): rho/2 + p rho/(2p) = rho.
 *
 * The two halves of Algorithm 5 read disjoint rows; under replace-one on the
 * sequence of rows, parallel composition would let each half spend rho.
 * privacy.md 6.2 keeps rho/2 each, which is valid by plain composition
 * whatever the split, so we keep it (a factor 2 left on the table, on purpose).
 */
double
MrfTwiseNodeRho(double rho, int p, int linf)
{
	if (!PositiveFinite(rho) || p < 1)
		return NAN;
	return linf ? rho / (2.0 * p) : rho / p;
}

/* privacy.md 6, [Z20] Alg. 5 line 5: the query release gets rho/2. */
double
MrfTwiseQueryRho(double rho)
{
	if (!PositiveFinite(rho))
		return NAN;
	return rho / 2.0;
}

/*
 * A parity sum S(I) = sum_m prod_{i in I} z_mi has one term in {-1, +1} per
 * row; replacing a row changes it by at most 2 (privacy.md 6).  A vector of k
 * such sums moves by at most 2 sqrt(k) in l2.
 */
double
MrfParitySumSensitivity(void)
{
	return 2.0;
}

/*
 * Rounds a discrete Gaussian variance s > 0 UP to a rational num/den the
 * exact sampler takes: den = 2^k and num = ceil(x) + 1 with x = fl(s) 2^k,
 * k the largest of 20 .. 0 keeping num <= 2^40 (the sampler's range).  The
 * caller computed s with one rounding (relative error <= 2^-53), so the true
 * variance is at most x + 1 while x <= 2^40 and num/den is never below it.
 * Returns 0, or -1 when s leaves the range.
 */
static int
RoundUpVariance(double s, uint64_t *num, uint64_t *den)
{
	const double max_arg = 1099511627776.0; /* 2^40 */

	if (!isfinite(s) || s <= 0.0 || s > max_arg)
		return -1;
	for (int k = 20; k >= 0; k--)
	{
		double		x = ldexp(s, k);

		if (ceil(x) + 1.0 <= max_arg)
		{
			*num = (uint64_t) ceil(x) + 1;
			*den = (uint64_t) 1 << k;
			return 0;
		}
	}
	return -1;
}

/*
 * [CKS20] Prop. 5 and Thm. 14: adding independent discrete Gaussians
 * N_Z(0, sigma^2) to an integer vector of l2 sensitivity D is
 * D^2/(2 sigma^2)-zCDP (Renyi divergences of integer shifts are at most
 * alpha mu^2/(2 sigma^2) and add over coordinates).  With D^2 = 4 count
 * (MrfParitySumSensitivity), rho-zCDP needs sigma^2 >= 2 count / rho.
 *
 * The sampler is exact only for a rational sigma^2 = num/den, so we round UP:
 * den = 2^k and num = ceil(x) + 1 with x = fl(2 count / rho) 2^k.  One
 * division has relative error at most 2^-53 and the scaling is exact, so the
 * true value is at most x (1 + 2^-53) <= x + 1 while x <= 2^53 (here x <=
 * 2^40): num/den >= 2 count / rho.  k is the largest of 20, 19, ..., 0 that
 * keeps num <= 2^40 (the sampler's range); then the rounding adds at most
 * 2^-19 to sigma^2 in absolute terms when sigma^2 fits at k = 20.
 */
int
MrfParityGaussianVariance(int64_t count, double rho, uint64_t *num,
						  uint64_t *den)
{
	double		s;

	if (count < 1 || count > ((int64_t) 1 << 50) || !PositiveFinite(rho) ||
		!num || !den)
		return -1;
	s = 2.0 * (double) count / rho;
	return RoundUpVariance(s, num, den);
}

/*
 * Private multiplicative weights in the MWEM form ([HLM12]; an offline
 * variant of [HR10]) runs R rounds of two mechanisms on the parity sums:
 * an exponential-mechanism selection of a badly answered query and a
 * discrete Gaussian measurement of its sum.  Everything else (the
 * synthetic distribution and its answers) is post-processing of earlier
 * outputs.  Adaptive composition ([BS16] Lemma 2.3) of 2R mechanisms of
 * rho/(2R) each gives rho.
 */
double
MrfPmwStepRho(double rho, int rounds)
{
	if (!PositiveFinite(rho) || rounds < 1)
		return NAN;
	return rho / (2.0 * rounds);
}

/*
 * PMW's selection scores the candidates (I, s), s = +-1, by
 * s (S(I) - c(I)), where c(I) is the synthetic distribution's answer (a
 * function of earlier outputs only, made exact in twise.c).  Replacing a row
 * moves S(I) by at most 2 = MrfParitySumSensitivity() in either direction,
 * so these are the non-monotone scores of privacy.md 3 with Du = 2: Gumbel-max
 * with multiplier eps0 / (2 Du), eps0 = sqrt(8 rho_step), is eps0-DP with
 * bounded range, hence rho_step-zCDP ([CR21]; [DDR20]).  The same functions
 * as Frank-Wolfe's selection compute it.
 */
double
MrfPmwSelectionScale(double rho_step)
{
	return MrfFwExponentialScale(MrfFwStepEpsilon(MRF_MECH_EXPONENTIAL, rho_step),
								 MrfParitySumSensitivity());
}

/*
 * ---- the protected path's count of substituted rows ----
 *
 * The protected path (mrf_learn_<kind>_from) replaces every row it cannot
 * read (NULL, wrong width, a value outside the alphabet) by a fixed row, a
 * function of that row alone, and releases with each model a noisy count c
 * of such rows.  c = sum over rows of an indicator of the row alone, so
 * replacing one row moves it by at most 1: l1 = l2 sensitivity 1.
 *
 * Budget.  The count is charged on top of the learner's budget B (rho or
 * epsilon), with share B / 128 (MrfSubstitutedCountShare), so the learner
 * runs exactly as on the aggregate path.  The share is a power of two so
 * that it is exact, and so is B + B/128 whenever B has at most 46
 * significant bits (0.125, 0.5, 1, 2, ...): the ledger's exact sums stay
 * exact, and a budget of k such releases is spent to its last bit.  The
 * release is the learner's output followed by the count; composition gives
 * the total:
 *   - zCDP learners: B + B/128 rho-zCDP ([BS16] Lemma 2.3);
 *   - pure epsilon-DP learners (cliques): B + B/128 epsilon-DP (basic
 *     composition, [Dwork-Roth] Thm. 3.16);
 *   - (epsilon, delta) learners (the stable mode): (B + B/128, delta)
 *     by the same basic composition, the count having delta 0.
 * The sums are rounded up (MrfComposeUp), so the charge never understates.
 *
 * Mechanisms (exact integer samplers of [CKS20], noise.c):
 *   - zCDP: c + N_Z(0, sigma^2) with sigma^2 >= 1 / (2 rho_c) is
 *     rho_c-zCDP: the Renyi divergence of order alpha between N_Z(0, s^2)
 *     and its shift by an integer mu is alpha mu^2 / (2 s^2) ([CKS20]
 *     Prop. 5, and Thm. 4 for the mechanism), and |mu| <= 1.
 *   - pure and (epsilon, delta): c + discrete Laplace of scale
 *     t >= 1 / epsilon_c, P(x) proportional to exp(-|x| / t), is
 *     (1/t)-DP: the density ratio of integer shifts by |mu| <= 1 is at
 *     most exp(1/t) ([CKS20] Sec. 2; Ghosh-Roughgarden-Sundararajan 2009).
 * The parameters are rationals num/den rounded UP (more noise only), as in
 * MrfParityGaussianVariance and MrfCliquesNoiseScale.  A share so small that
 * the variance or scale leaves the samplers' range (2^40) releases no
 * count; the share is still charged (a charge above the loss is safe).
 */

/*
 * The count's share of a learner budget B: B / 128, exact (0 if B is
 * invalid).  The count's mechanism is calibrated to this very double, so
 * even a share rounded in the subnormal range is what it spends.
 */
double
MrfSubstitutedCountShare(double budget)
{
	if (!PositiveFinite(budget))
		return 0.0;
	return ldexp(budget, -7);
}

/*
 * The largest learner budget B whose release with the count fits a total:
 * the largest double B with MrfComposeUp(B, MrfSubstitutedCountShare(B)) <=
 * total (0 if none, or total invalid).  The map is non-decreasing in B
 * (a sum of two non-decreasing terms, rounded up), so the search steps from
 * total / (1 + 1/128) by ulps: down while the charge exceeds the total, up
 * while the next double still fits.  This is what a caller may type on the
 * protected path when total is what the budget admits (remaining()).
 */
double
MrfSubstitutedCountLargestBudget(double total)
{
	double		b;
	int			i;

	if (!PositiveFinite(total))
		return 0.0;
	b = total / (1.0 + 1.0 / 128.0);
	for (i = 0; i < 64 && b > 0.0 && AddUp(b, MrfSubstitutedCountShare(b)) > total; i++)
		b = nextafter(b, 0.0);
	if (!(b > 0.0) || AddUp(b, MrfSubstitutedCountShare(b)) > total)
		return 0.0;
	for (i = 0; i < 64; i++)
	{
		double		up = nextafter(b, INFINITY);

		if (!PositiveFinite(up) || AddUp(up, MrfSubstitutedCountShare(up)) > total)
			break;
		b = up;
	}
	return b;
}

/*
 * sigma^2 = num/den >= 1 / (2 rho_c) for the zCDP count (see above): with
 * x = fl(1 / (2 rho_c)) 2^k, one division has relative error <= 2^-53, so
 * the true value is at most x + 1 while x <= 2^40, and num = ceil(x) + 1
 * rounds up; k is the largest of 20 .. 0 keeping num <= 2^40.  Returns 0,
 * or -1 when rho_c is invalid or the variance exceeds 2^40.
 */
int
MrfSubstitutedCountGaussian(double rho_c, uint64_t *num, uint64_t *den)
{
	double		s;

	if (!PositiveFinite(rho_c) || !num || !den)
		return -1;
	s = 1.0 / (2.0 * rho_c);
	return RoundUpVariance(s, num, den);
}

/*
 * Discrete Laplace scale t = num/den >= 1 / epsilon_c for the pure count
 * (see above), rounded up as in MrfCliquesNoiseScale: den a power of two
 * <= 2^20 keeping t den below 2^50, num = ceil(t den) + 1.  Returns 0, or
 * -1 when epsilon_c is invalid or the scale exceeds 2^40.
 */
int
MrfSubstitutedCountLaplace(double epsilon_c, uint64_t *num, uint64_t *den)
{
	const double max_scale = 1099511627776.0;	/* 2^40 */
	const double max_num = 2251799813685248.0;	/* 2^51 */
	double		scale;
	double		d = 1048576.0;	/* 2^20 */

	if (!PositiveFinite(epsilon_c) || !num || !den)
		return -1;
	scale = 1.0 / epsilon_c;
	if (!PositiveFinite(scale) || scale > max_scale)
		return -1;
	while (d > 1.0 && scale * d >= max_num / 2.0)
		d *= 0.5;
	*den = (uint64_t) d;
	*num = (uint64_t) ceil(scale * d) + 1;
	return 0;
}

/*
 * ---- MST (McKenna, Miklau, Sheldon 2021; privacy.md 12) ----
 *
 * MST runs three mechanisms in sequence on the same rows, each later one
 * chosen from the earlier ones' outputs (adaptive composition, [BS16] Lemma
 * 2.3: the rhos add):
 *   M1  every one-way table plus discrete Gaussian noise, rho_1;
 *   M2  p - 1 exponential-mechanism selections of a tree's pairs, rho_2 in
 *       all;
 *   M3  the selected pairs' tables plus discrete Gaussian noise, rho_3.
 * Compression, the one-way estimates that M2 compares against, and the
 * final estimate read the rows only through M1-M3's outputs:
 * post-processing.  Sensitivities under replace-one (one row z becomes z'):
 *   - a contingency table over any variable set S (and its compressed form,
 *     whose cells are unions of cells through a fixed map chosen from M1's
 *     output): z leaves one cell and z' enters one, so the table moves by
 *     -1 and +1 (or not at all): squared l2 distance <= 2 per table;
 *   - the quality q(i, j) = || x_ij - xhat_ij ||_1, with xhat_ij a function
 *     of M1's output alone: x_ij moves by -1 in one cell and +1 in another,
 *     and by the triangle inequality q moves by at most 2, in either
 *     direction (not monotone).
 */

/*
 * The split of MST's paper, one third each (McKenna et al. 2021, Alg. 1:
 * rho/3 for the one-way tables, rho/3 for the selection, rho/3 for the
 * two-way tables).  r = fl(rho / 3) has relative error at most 2^-53; one
 * step down to the next smaller double takes away at least that much, so
 * r <= rho / 3 exactly and 3 r <= rho: the three parts never spend more
 * than rho.  Returns 0, or -1 on invalid rho.
 */
int
MrfMstSplit(double rho, double *rho_one_way, double *rho_select, double *rho_two_way)
{
	double		r;

	if (!PositiveFinite(rho) || !rho_one_way || !rho_select || !rho_two_way)
		return -1;
	r = nextafter(rho / 3.0, 0.0);
	if (!PositiveFinite(r))
		return -1;
	*rho_one_way = r;
	*rho_select = r;
	*rho_two_way = r;
	return 0;
}

/*
 * Squared l2 sensitivity of one contingency table under replace-one: 2 (one
 * cell -1, one +1; see above).  [B17] and MST count add/remove neighbours,
 * where it is 1: for the same noise mrfdp's rho is twice theirs.
 */
double
MrfMarginalSquaredSensitivity(void)
{
	return 2.0;
}

/*
 * [CKS20] Prop. 5 and Thm. 14: independent N_Z(0, sigma^2) on every cell of
 * an integer vector of squared l2 sensitivity D2 is D2 / (2 sigma^2)-zCDP
 * (the Renyi divergence of an integer shift mu is alpha mu^2 / (2 sigma^2),
 * and divergences add over independent coordinates).  tables tables of
 * D2 = 2 each (MrfMarginalSquaredSensitivity) give D2 = 2 tables, so
 * rho-zCDP needs sigma^2 >= tables / rho.  Rounded up to num/den as in
 * MrfParityGaussianVariance (den = 2^k, num = ceil(fl(tables / rho) 2^k)
 * + 1, k the largest of 20 .. 0 keeping num <= 2^40).  Returns 0, or -1
 * when the variance leaves the sampler's range.
 */
int
MrfMstGaussianVariance(int64_t tables, double rho, uint64_t *num, uint64_t *den)
{
	double		s;

	if (tables < 1 || tables > ((int64_t) 1 << 40) || !PositiveFinite(rho) || !num || !den)
		return -1;
	s = (double) tables * MrfMarginalSquaredSensitivity() / (2.0 * rho);
	return RoundUpVariance(s, num, den);
}

/* Sensitivity of MST's quality score ||x_ij - xhat_ij||_1 under replace-one: 2 (above). */
double
MrfMstQualitySensitivity(void)
{
	return 2.0;
}

/*
 * Each of the rounds selections is an exponential mechanism (Gumbel-max,
 * exact) with epsilon e and the non-monotone quality of sensitivity 2: it
 * draws a pair with probability proportional to exp(e q / (2 * 2)), which is
 * e-DP with bounded range, hence e^2/8-zCDP ([CR21]; [DDR20]; privacy.md
 * 3.2).  rounds = p - 1 selections of rho_select / rounds each:
 * e = sqrt(8 rho_select / rounds), as MST's select() with its epsilon =
 * sqrt(8 rho / (r - 1)).  Both roundings go down, as AIM's selection's do
 * (MrfAimSelectionEpsilon): r = fl(rho_select / rounds) stepped down is at
 * most the exact quotient, 8 r is exact, and fl(sqrt(8 r)) stepped down is
 * at most sqrt(8 r), so e^2/8 <= rho_select / rounds exactly and the rounds
 * selections together never spend more than rho_select (rounded to nearest,
 * each could exceed its share by an ulp: (0.1, 5) does).  NaN on invalid
 * input.
 */
double
MrfMstSelectionEpsilon(double rho_select, int rounds)
{
	double		r;
	double		e;

	if (!PositiveFinite(rho_select) || rounds < 1)
		return NAN;
	r = nextafter(rho_select / rounds, 0.0);
	if (!PositiveFinite(r))
		return NAN;
	e = MrfFwStepEpsilon(MRF_MECH_EXPONENTIAL, r);
	return isfinite(e) ? nextafter(e, 0.0) : NAN;
}

/* The multiplier c of argmax(c q + Gumbel): e / (2 * 2) (see above; exact, a power of two). */
double
MrfMstSelectionScale(double rho_select, int rounds)
{
	return MrfFwExponentialScale(MrfMstSelectionEpsilon(rho_select, rounds),
								 MrfMstQualitySensitivity());
}

/*
 * ---- AIM (McKenna, Mullins, Sheldon, Miklau 2022; privacy.md 13) ----
 *
 * AIM ([MMSM22] Alg. 2) runs, on the same rows, p one-way measurements and
 * then rounds t = 1, 2, .. of two mechanisms each, every one chosen from
 * the earlier ones' outputs.  [BS16] Lemma 2.3 composes mechanisms whose
 * rhos are fixed in advance; here the rates after annealing, the size
 * filter and the number of rounds depend on earlier outputs, so the step
 * that makes the rhos add is the Renyi filter of [FZ21] Thm. 3.1 (at every
 * order alpha, the running sum of alpha rho_i is kept below alpha rho, the
 * stopping rule MrfAimIsLastRound / MrfAimLastRates enforce; privacy.md 13):
 *   S_t  an exponential-mechanism selection of a marginal r among the
 *        candidates that pass the size filter, with quality
 *        q_r = w_r (||x_r - xhat_r||_1 - sqrt(2/pi) sigma_t cells_r),
 *        xhat_r the current estimate (a function of earlier outputs),
 *        w_r > 0 public weights, at epsilon e_t: e_t^2/8 = rho_select(t);
 *   M_t  the selected table plus N_Z(0, sigma_t^2): rho_measure(t).
 * Replace-one sensitivities: a table moves by one -1 and one +1 (squared
 * l2 <= 2, as MST); q_r moves by at most 2 w_r (triangle inequality), in
 * either direction, so the selection uses sensitivity 2 max_r w_r over the
 * round's candidates ([MMSM22] use w with add/remove neighbours).
 * The running total `used` is kept as an upper bound of the exact sum
 * (every addition rounded up); the last round spends a remainder rounded
 * down, so the exact total never exceeds rho.
 */

/*
 * See privacy.h: [MMSM22] Alg. 2's default T = 16 d up to 16 columns, then
 * 256 rounds up to 128 columns, then 2 d.  T is a public function of p and
 * enters the accounting only through the rates 0.9 rho / T and 0.1 rho / T
 * (privacy.md 13, "Mechanisms" and "Composition"): any T >= 1 gives a
 * rho-zCDP release, so the choice is one of accuracy.  At 16 d a wide
 * table's rounds get so little budget that annealing cannot catch up
 * before it runs out (bench_aim_width, rho 1: 2-way error 0.0188 at 96
 * columns against MST's 0.0169 with T = 1,536; 0.0162 with T = 192, 0.0164
 * with 384; at 48 columns 0.0155 mean with 768, 0.0145 with 96 or 192,
 * MST 0.0151), while at 16 columns 16 d is best (0.0101 mean over 3 seeds
 * against 0.0110 at 64 rounds).  2 d keeps room for a spanning tree's
 * p - 1 pairs and annealing at any width.
 */
int
MrfAimRounds(int p)
{
	if (p < 1 || p > (1 << 24))
		return -1;
	if (p <= 16)
		return 16 * p;
	return p <= 128 ? 256 : 2 * p;
}

/*
 * [MMSM22] Alg. 2 line 2: sigma_0 = sqrt(T / (2 * 0.9 rho)) and
 * e_0 = sqrt(8 * 0.1 rho / T) for add/remove; in rates, 0.9 rho / T for a
 * measurement (1 / (2 sigma_0^2) there; here D2 / (2 sigma^2) with D2 = 2,
 * so sigma_0^2 = T / (0.9 rho), MrfAimGaussianVariance) and 0.1 rho / T
 * for a selection.  Each rate is rounded down (nextafter), so p one-way
 * measurements plus any rounds at these rates cost at most what is added
 * (MrfAimSpend).
 */
int
MrfAimInitialRates(double rho, int rounds, double *rho_measure, double *rho_select)
{
	if (!PositiveFinite(rho) || rounds < 1 || !rho_measure || !rho_select)
		return -1;
	*rho_measure = nextafter(0.9 * rho / rounds, 0.0);
	*rho_select = nextafter(0.1 * rho / rounds, 0.0);
	if (!PositiveFinite(*rho_measure) || !PositiveFinite(*rho_select))
		return -1;
	return 0;
}

/*
 * The one-way measurements' rate and the rounds' first rates.  share 0:
 * [MMSM22] Alg. 2 line 4, each one-way at the rounds' measurement rate
 * 0.9 rho / T (MrfAimInitialRates), so the one-ways take 0.9 p / T of rho;
 * refused when that is 1 or more (T < 0.9 p would spend more than rho
 * before any round).  0 < share < 1: the one-ways take share rho together,
 * share rho / p each (rounded down), and the rounds' rates are
 * MrfAimInitialRates of the rest, (1 - share) rho.  The share and T are
 * public (fixed before any row is read), and the total is kept at or below
 * rho by the running sum and the last round whatever the rates
 * (MrfAimIsLastRound, MrfAimLastRates; privacy.md 13 "Composition"), so any
 * share and T give a rho-zCDP release: they choose accuracy only.
 */
int
MrfAimRates(double rho, int p, int rounds, double share, double *rho_one,
			double *rho_measure, double *rho_select)
{
	if (!PositiveFinite(rho) || p < 1 || rounds < 1 || !(share >= 0.0 && share < 1.0) ||
		!rho_one)
		return -1;
	if (share == 0.0)
	{
		if (0.9 * p >= rounds || MrfAimInitialRates(rho, rounds, rho_measure, rho_select) != 0)
			return -1;
		*rho_one = *rho_measure;
		return 0;
	}
	*rho_one = nextafter(share * rho / p, 0.0);
	if (!PositiveFinite(*rho_one))
		return -1;
	return MrfAimInitialRates((1.0 - share) * rho, rounds, rho_measure, rho_select);
}

/*
 * The seeded schedule's defaults (see MrfAimSeededRates): a third of rho
 * for the one-ways as MST's, 0.6 for the seed, and the fifteenth left over
 * 8 rounds (a one-way share given instead: the seed takes nine tenths of
 * the rest).  Of the seed's share, MRF_AIM_SEED_SELECT_SHARE (0.35)
 * selects the tree and the rest measures its pairs (0.21 and 0.39 of rho,
 * against MST's thirds).  That split and the larger seed were chosen by
 * the seed's study (docs/learners/aim.md "The seed's split",
 * bench/aim_schedule_study.sh with the core options seed_share and
 * seed_select_share): against the earlier half for the seed, split
 * evenly, AIM's 2-way error against MST's falls on the noisy tree-shaped
 * tables (48 and 96 columns at epsilon 1: 1.03 and 1.05 to 0.97 and 0.98;
 * DNA at rho 0.1: 1.02 to 0.98; 16 seeds) and on the 16 columns at
 * n = 1,000 (1.01 to 0.95, 48 seeds); Adult at epsilon 1, where the
 * rounds pay, gives back a little (0.83 to 0.87, still well below MST);
 * a smaller selection part (0.25, 0.15) picks worse trees at the lowest
 * signal (48 columns at n = 1,000, rho 0.1: 1.10-1.12).  There, below a
 * signal (MrfAimScheduleSignal) of MRF_AIM_SEED_LOW_SIGNAL (50), the even
 * split wins: the 48 columns at n = 1,000 (signal 38) 1.035 to 0.997,
 * HouseVotes84 at rho 0.1 (28) 0.996 to 0.971 (64 seeds), and on five
 * tree-shaped tables the rule was not fitted to (12-64 columns, n 400-2,000,
 * rho 0.02-0.1, 24 seeds) the four below 50 gain 1.4-4.8% and the one
 * above (70) loses 3.5%.  n, p and rho are public (privacy.md 1), so the
 * split is a public function fixed before any row is read.  Constants,
 * so public.  From a signal of MRF_AIM_SEED_MID_SIGNAL (500) on, the seed
 * takes MRF_AIM_SEED_REST_MID of what the one-ways leave (0.45 of rho at
 * the default third) and T is 16, the rounds 0.22 of rho (docs/learners/aim.md
 * "The seed at middle signals", bench/aim_schedule_study.sh with
 * --seed-share 0.45 --rounds 16, 8 seeds): there the rounds pay, and AIM's
 * error against MST's falls on every real table screened (Adult at epsilon
 * 1: 0.87 to 0.80; at rho 0.05 and 0.01: 0.83 to 0.75, 0.90 to 0.88; Adult's
 * nine columns at rho 0.01 and 0.003: 0.73 to 0.62, 0.83 to 0.77;
 * BreastCancer at rho 10: 0.90 to 0.86) while the tree-shaped tables stay
 * level (48 and 96 columns at epsilon 10: 0.98 to 0.96 and 0.96; 48 columns
 * at rho 0.5: 0.98 to 0.99).  Below 500 the same shares still gain on the
 * real tables (HouseVotes84 at rho 3: 0.92 to 0.82; Soybean at epsilon 10:
 * 0.84 to 0.78) but cost the tree-shaped ones 2-5% (24 and 48 columns at
 * signals 186-190: 0.95 to 1.00 and 0.96 to 1.00; 12 seeds), so the
 * tier starts where those stop losing.  The seeded schedule itself (the study in docs/learners/aim.md,
 * "AIM's schedule", bench/aim_schedule_study.sh, at the earlier shares):
 * against [MMSM22]'s schedule (one-ways at 0.9 p / T, T = MrfAimRounds) it
 * brings AIM's 2-way error from
 * 1.16-1.86x MST's to 0.92-1.07x on the small noisy tables (n = 1,000 at
 * rho 0.1, Soybean and the 48-column table at epsilon 1, DNA at rho 0.1),
 * and keeps it below MST's on the rich ones (Adult at epsilon 1 and 10,
 * Soybean at 10); a larger rounds' share (0.3, T = MrfAimRounds) gains a
 * little on Adult at epsilon 10 and loses up to 11% against MST on the
 * noisy ones.
 */
void
MrfAimSeedShares(double one_given, double signal, double *one_share,
				 double *seed_share, double *select_share, int *rounds)
{
	/* NaN (n not yet known) compares false: below the middle signal */
	int			middle = signal >= MRF_AIM_SEED_MID_SIGNAL;

	*one_share = one_given > 0.0 ? one_given : 1.0 / 3.0;
	/* of what the one-ways leave: 0.6 of rho at the default 1/3, 0.45 from the middle signal */
	*seed_share = (middle ? MRF_AIM_SEED_REST_MID : MRF_AIM_SEED_REST) * (1.0 - *one_share);
	/* NaN compares false: the larger tables' split */
	*select_share = signal < MRF_AIM_SEED_LOW_SIGNAL ? MRF_AIM_SEED_SELECT_SHARE_LOW :
		MRF_AIM_SEED_SELECT_SHARE;
	*rounds = middle ? MRF_AIM_SEED_ROUNDS_MID : MRF_AIM_SEED_ROUNDS;
}

/*
 * The automatic schedule (aim.c's default, MRF_AIM_SCHEDULE_AUTO;
 * privacy.md 13 "The schedule from public sizes"): [MMSM22]'s schedule
 * when the signal n / sigma is at least MRF_AIM_PAPER_SIGNAL, else the
 * MST-seeded one.  sigma^2 = 3 (p - 1) / (2 rho) is the variance of
 * each of p - 1 pair tables measured at rho / 3 together (section 12's M3
 * rate, MrfMstGaussianVariance, without its rounding: the figure only
 * ranks sizes, it sets no noise).  n is public under replace-one
 * neighbours (privacy.md 1), p and rho are, so the choice is a public
 * function fixed before any row is read and reveals nothing; each of the
 * two schedules is rho-zCDP (privacy.md 13), so the release is whichever
 * runs.  The threshold is the study's (docs/learners/aim.md, "The schedule
 * from public sizes", bench/aim_schedule_study.sh): every table where
 * [MMSM22]'s schedule had the lower error had a signal of 4,400 or more
 * (Adult at epsilon 10 and at rho 0.2, Adult's nine small columns at rho
 * 0.1 and 1), every one where the seed won 1,800 or less (Adult at
 * epsilon 1, Soybean, DNA, the 48- and 96-column tables at epsilon 1, the
 * n = 1,000 tables); 2,500 lies between.
 */
double
MrfAimScheduleSignal(double rho, int64_t n, int p)
{
	if (!PositiveFinite(rho) || n < 1 || p < 2)
		return NAN;
	return (double) n * sqrt(2.0 * rho / (3.0 * (p - 1)));
}

int
MrfAimAutoPaper(double rho, int64_t n, int p)
{
	double		signal = MrfAimScheduleSignal(rho, n, p);

	if (isnan(signal))
		return -1;
	return signal >= MRF_AIM_PAPER_SIGNAL;
}

/*
 * MST-seeded AIM (the automatic default's below its threshold; privacy.md
 * 13 "The seed"): the
 * one-ways take one_share rho together (one_share rho / p each), then a
 * seed runs MST's selection and measurement (privacy.md 12's M2 and M3,
 * MrfMstSelectForest) over the workload's pairs: seed_pairs exponential
 * mechanisms of rho_seed_select / seed_pairs each (MrfMstSelectionEpsilon,
 * MrfMstSelectionScale: MST's quality, sensitivity 2 under replace-one)
 * and seed_pairs tables at variance MrfMstGaussianVariance(seed_pairs,
 * rho_seed_measure), each table costing at most rho_seed_measure /
 * seed_pairs; rho_seed_select = select_share seed_share rho and
 * rho_seed_measure the rest of seed_share rho (each rounded down, so the
 * two sum to at most seed_share rho).  The
 * rounds' first rates are MrfAimInitialRates of what is left,
 * (1 - one_share - seed_share) rho.  Every part is rounded down, and all
 * are public functions of rho, p, T and the workload (seed_pairs: p minus
 * the components of the candidate pairs' graph, a function of the workload
 * and the one-ways' output), fixed before the seed runs;
 * the seed's mechanisms are steps of fixed cost like the one-ways, so the
 * Renyi filter of the rounds ([FZ21] Thm. 3.1; MrfAimIsLastRound,
 * MrfAimLastRates) composes them with the rounds to rho whatever the
 * shares (privacy.md 13 "Composition"): the shares choose accuracy only.
 * Returns 0, or -1 on invalid input (both shares positive, summing below 1;
 * the selection's part of the seed strictly between 0 and 1).
 */
int
MrfAimSeededRates(double rho, int p, int rounds, double one_share, double seed_share,
				  double select_share, double *rho_one, double *rho_seed_select,
				  double *rho_seed_measure, double *rho_measure, double *rho_select)
{
	double		rest;
	double		seed;

	if (!PositiveFinite(rho) || p < 1 || rounds < 1 || !(one_share > 0.0) ||
		!(seed_share > 0.0) || !(one_share + seed_share < 1.0) ||
		!(select_share > 0.0) || !(select_share < 1.0) || !rho_one ||
		!rho_seed_select || !rho_seed_measure)
		return -1;
	*rho_one = nextafter(one_share * rho / p, 0.0);
	/*
	 * fl(x) is within half an ulp of x, so one step down is at most x:
	 * seed <= seed_share rho, select <= select_share seed, and measure <=
	 * seed - select (exact subtraction's rounding stepped down likewise),
	 * so select + measure <= seed_share rho
	 */
	seed = nextafter(seed_share * rho, 0.0);
	*rho_seed_select = nextafter(select_share * seed, 0.0);
	*rho_seed_measure = nextafter(seed - *rho_seed_select, 0.0);
	rest = (1.0 - one_share - seed_share) * rho;
	if (!PositiveFinite(*rho_one) || !PositiveFinite(*rho_seed_select) ||
		!PositiveFinite(*rho_seed_measure) || !PositiveFinite(rest))
		return -1;
	return MrfAimInitialRates(rest, rounds, rho_measure, rho_select);
}

/* fl(used + cost) may be below the exact sum by half an ulp: one step up. */
double
MrfAimSpend(double used, double cost)
{
	return nextafter(used + cost, INFINITY);
}

/* [MMSM22] Alg. 2 line 7: rho - rho_used < 2 (1/(2 sigma^2) + e^2/8). */
int
MrfAimIsLastRound(double rho, double used, double rho_measure, double rho_select)
{
	return rho - used < 2.0 * (rho_measure + rho_select);
}

/*
 * [MMSM22] Alg. 2 lines 8-9: sigma = sqrt(1 / (2 * 0.9 rem)), e =
 * sqrt(8 * 0.1 rem): 0.9 rem and 0.1 rem.  rem = fl(rho - used) stepped
 * down once is at most the exact rho - used (fl's error is below one ulp);
 * rho_measure = fl(0.9 rem) stepped down lies in [rem/2, rem], so rem -
 * rho_measure is exact (Sterbenz) and the two sum to rem exactly.
 */
int
MrfAimLastRates(double rho, double used, double *rho_measure, double *rho_select)
{
	double		rem;

	if (!PositiveFinite(rho) || !(used >= 0.0) || !rho_measure || !rho_select)
		return -1;
	rem = nextafter(rho - used, 0.0);
	if (!PositiveFinite(rem))
		return -1;
	*rho_measure = nextafter(0.9 * rem, 0.0);
	*rho_select = rem - *rho_measure;
	if (!PositiveFinite(*rho_measure) || !PositiveFinite(*rho_select))
		return -1;
	return 0;
}

/*
 * [MMSM22] Alg. 2 lines 17-18: sigma / 2, e x 2 when the new measurement
 * moved the estimate of its marginal by at most sqrt(2/pi) sigma cells:
 * 1/(2 sigma^2) and e^2/8 each grow fourfold (exact in binary).
 */
void
MrfAimAnneal(double *rho_measure, double *rho_select)
{
	*rho_measure *= 4.0;
	*rho_select *= 4.0;
}

/* One table at rho_measure: sigma^2 >= D2 / (2 rho_measure) = 1 / rho_measure (MST's rounding). */
int
MrfAimGaussianVariance(double rho_measure, uint64_t *num, uint64_t *den)
{
	return MrfMstGaussianVariance(1, rho_measure, num, den);
}

/* See the section comment: 2 max_r w_r. */
double
MrfAimQualitySensitivity(double max_weight)
{
	if (!PositiveFinite(max_weight))
		return NAN;
	return 2.0 * max_weight;
}

/*
 * The exponential mechanism at e is e-DP with bounded range, hence
 * e^2/8-zCDP ([CR21]; [DDR20]; privacy.md 3.2): e = sqrt(8 rho_select),
 * stepped down so that e^2/8 <= rho_select despite sqrt's rounding.
 */
double
MrfAimSelectionEpsilon(double rho_select)
{
	if (!PositiveFinite(rho_select))
		return NAN;
	return nextafter(sqrt(8.0 * rho_select), 0.0);
}

/*
 * Gumbel-max with multiplier c = e / (2 Du), Du = 2 max w, draws r with
 * probability proportional to exp(e q_r / (2 Du)) (privacy.md 3); c is
 * stepped down so that its rounding never raises the effective e.
 */
double
MrfAimSelectionScale(double rho_select, double max_weight)
{
	double		c = MrfFwExponentialScale(MrfAimSelectionEpsilon(rho_select),
										  MrfAimQualitySensitivity(max_weight));

	return isfinite(c) ? nextafter(c, 0.0) : NAN;
}
