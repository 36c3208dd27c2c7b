/*
 * twise.c - private learners of binary t-wise MRFs (Zhang et al. 2020,
 * Algorithms 4 and 5; privacy.md 6) on top of the batched Frank-Wolfe solver.
 *
 * Why regressions.  With h(z) = sum_I c_I prod_{i in I} z_i,
 * P(z_i = 1 | z_-i) = sigmoid(2 d_i h(z)) ([Z20] Lemma 4.1), where
 * d_i h = sum_{I not containing i} c_{I u {i}} prod_{j in I} z_j has degree
 * at most t-1.  So the logistic regression of z_i on the features
 * prod_{j in I} z_j, I a subset of the other variables with |I| <= t-1 (the
 * empty set is the intercept), has true weights w(I) = 2 c_{I u {i}}, of l1
 * norm at most 2 lambda = R when lambda bounds the width.
 *
 * One design for all nodes.  The feature sets of node i are exactly the sets
 * of size <= t-1 of ALL variables that do not contain i.  So we build one
 * matrix X with a column per set of size 0..t-1 (index order of twise.h:
 * column 0 is the intercept, columns 1..p are z_0..z_{p-1}, then the
 * products), and node i may select only the columns whose set avoids i.
 * The label of node i is column 1 + i of X.  All p regressions then share X
 * and advance together with one sgemm X^T G per iteration (fw.c).  Entries
 * are products of +-1, stored as bits (1 for +1, 0 for -1) as fw.c takes
 * them (x_signed).
 *
 * Memory: X has n x D bits, D = MrfTwiseFeatureCount(p, t) =
 * sum_{s < t} C(p, s); e.g. p = 20, t = 3: D = 211, 1.3 MB at n = 50000;
 * p = 100, t = 3: D = 5051, 63 MB at n = 100000.  The allowed mask has D x p
 * bytes and the weights D x p doubles; fw.c adds n x p floats of margins.
 * MrfTwiseWorkspaceBytes gives the exact peak so that the glue can refuse
 * before allocating; the solver's int dimensions cap D at INT_MAX / p.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "fw.h"
#include "fwdesign.h"
#include "rows.h"
#include "sizes.h"
#include "twise.h"

typedef unsigned __int128 TwiseU128;

/*
 * Upper bound on the default number of PMW rounds: a round costs a
 * Walsh-Hadamard transform of 2^p doubles (about 30 ms at p = 20), so 500
 * rounds keep the default under half a minute.  pmw_rounds overrides it.
 */
#define TWISE_PMW_MAX_DEFAULT_ROUNDS 500

/* Rows of parity sums between two polls. */
#define TWISE_POLL_ROWS 4096

/* The larger of two sizes. */
static size_t
TwiseSizeMax(size_t a, size_t b)
{
	return a > b ? a : b;
}

/*
 * C(n, k) exactly, -1 beyond INT64_MAX.  After step j, r = C(n-k+j, j), an
 * integer, so each division is exact; r < 2^63 and n < 2^31 keep the
 * product inside 128 bits.
 */
static int64_t
Binomial(int64_t n, int k)
{
	TwiseU128	r = 1;
	int			j;

	if (k < 0 || n < 0 || k > n)
		return 0;
	if ((int64_t) k > n - k)
		k = (int) (n - k);
	for (j = 1; j <= k; j++)
	{
		r = r * (TwiseU128) (n - k + j) / (TwiseU128) j;
		if (r > (TwiseU128) INT64_MAX)
			return -1;
	}
	return (int64_t) r;
}

/* ---- subsets in graded colex order ---- */

/* Sum of C(p, s) for s = 0..max_size, or -1 on overflow. */
int64_t
MrfSubsetCount(int p, int max_size)
{
	int64_t		total = 0;
	int			s;

	if (p < 0 || max_size < 0)
		return -1;
	for (s = 0; s <= max_size && s <= p; s++)
	{
		int64_t		c = Binomial(p, s);

		if (c < 0 || c > INT64_MAX - total)
			return -1;
		total += c;
	}
	return total;
}

/*
 * Graded colex index: the sets of smaller size come first, then the
 * combinatorial number system ranks sets of equal size by their largest
 * element, then the next largest, and so on.  The rank never depends on p,
 * only the offsets of the sizes do.
 */
int64_t
MrfSubsetIndex(int p, const int *vars, int k)
{
	int64_t		index;
	int			j;

	if (vars == NULL || k < 0 || k > p)
		return -1;
	index = k == 0 ? 0 : MrfSubsetCount(p, k - 1);
	if (index < 0)
		return -1;
	for (j = 0; j < k; j++)
	{
		int64_t		c;

		if (vars[j] < 0 || vars[j] >= p || (j > 0 && vars[j] <= vars[j - 1]))
			return -1;
		c = Binomial(vars[j], j + 1);
		if (c < 0 || c > INT64_MAX - index)
			return -1;
		index += c;
	}
	return index;
}

/*
 * Inverse of MrfSubsetIndex: peel off the sizes, then unrank greedily from
 * the largest element down (the largest v with C(v, j) <= rank), by binary
 * search because C(v, j) increases with v.
 */
int
MrfSubsetVars(int p, int64_t index, int *vars)
{
	int64_t		rank = index;
	int			k = 0;
	int			j;

	if (vars == NULL || p < 0 || index < 0)
		return -1;
	for (;;)
	{
		int64_t		c;

		if (k > p)
			return -1;
		c = Binomial(p, k);
		if (c < 0 || rank < c)
			break;
		rank -= c;
		k++;
	}
	for (j = k; j >= 1; j--)
	{
		int			lo = j - 1;
		int			hi = p - 1;

		/* C(lo, j) = 0 <= rank always holds; find the last v that fits */
		while (lo < hi)
		{
			int			mid = lo + (hi - lo + 1) / 2;
			int64_t		c = Binomial(mid, j);

			if (c >= 0 && c <= rank)
				lo = mid;
			else
				hi = mid - 1;
		}
		vars[j - 1] = lo;
		rank -= Binomial(lo, j);
	}
	return k;
}

/*
 * Colex successor: raise the lowest element that has room below its
 * neighbour and reset the ones beneath it to 0, 1, ...; when none has room,
 * the first set of the next size.
 */
int
MrfSubsetNext(int p, int max_size, int *vars, int *k)
{
	int			size = *k;
	int			j;

	for (j = 0; j < size; j++)
	{
		int			limit = j + 1 < size ? vars[j + 1] : p;

		if (vars[j] + 1 < limit)
		{
			int			i;

			vars[j]++;
			for (i = 0; i < j; i++)
				vars[i] = i;
			return 1;
		}
	}
	size++;
	if (size > max_size || size > p)
		return 0;
	for (j = 0; j < size; j++)
		vars[j] = j;
	*k = size;
	return 1;
}

/* Butterflies of the fast Walsh-Hadamard transform, O(p 2^p). */
void
MrfWalshHadamard(double *v, int p)
{
	size_t		states = (size_t) 1 << p;
	size_t		h;

	for (h = 1; h < states; h <<= 1)
	{
		size_t		i;

		for (i = 0; i < states; i += 2 * h)
		{
			size_t		j;

			for (j = i; j < i + h; j++)
			{
				double		a = v[j];
				double		b = v[j + h];

				v[j] = a + b;
				v[j + h] = a - b;
			}
		}
	}
}

/* ---- sizes ---- */

/* Design columns: every set of size 0..t-1 (twise.c file comment). */
int64_t
MrfTwiseFeatureCount(int p, int t)
{
	if (t < 1)
		return -1;
	return MrfSubsetCount(p, t - 1);
}

/* fw.c needs d * q <= INT_MAX (BLAS int dimensions of X^T G). */
int64_t
MrfTwiseMaxFeatures(int p)
{
	if (p < 1)
		return 0;
	return INT_MAX / p;
}

/* Coefficients of the sets of size 0..t; entry 0 stays 0. */
int64_t
MrfTwiseCoefCount(int p, int t)
{
	return MrfSubsetCount(p, t);
}

/*
 * Algorithm 5 reads Q_hat(I') only inside u(I u {i}) = sum over I' of
 * v_i(I u I') Q_hat(I'), where I u I' is a feature set of node i, of size at
 * most t-1.  So |I'| <= t-1: the order-t parities, which privacy.md 6 and the
 * paper list among the queries, never enter the output.  Releasing them
 * would only spend budget (more queries, more noise on every one), so we
 * release the sets of size 1..t-1; Q_hat(empty set) = 1 is exact and public.
 */
int64_t
MrfTwiseQueryCount(int p, int t)
{
	int64_t		d = MrfTwiseFeatureCount(p, t);

	return d < 0 ? -1 : d - 1;
}

/*
 * Algorithm 5's split: the first n1 = n - n2 rows (by position) feed the
 * regressions and the last n2 the parity queries.  The assignment depends on
 * positions only, never on values, so replacing one row changes the input
 * of one part by one row and the input of the other not at all; budgets
 * still add (privacy.c, MrfTwiseNodeRho).  Positions carry no meaning for
 * accuracy either when rows are exchangeable; a glue that feeds rows in a
 * value-dependent order should shuffle them first.
 */
int64_t
MrfTwiseQueryRows(const MrfTwiseOptions *opt, int64_t n)
{
	if (opt == NULL || opt->objective != MRF_TWISE_LINF || n < 0)
		return 0;
	if (opt->query_rows != 0)
		return opt->query_rows;
	return n / 2;
}

/*
 * Walks the monomials in index order, adding |c_I| to each member's sum in
 * sums (p doubles from env).  -1 when p or t is out of range or memory is
 * short.
 */
double
MrfTwiseWidth(const double *coef, int p, int t, const MrfEnv *env)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	double	   *sums;
	double		width = 0.0;
	int64_t		index = 0;
	int			k = 0;

	if (coef == NULL || env == NULL || p < 1 || t < 1 ||
		t > MRF_TWISE_MAX_ORDER || t > p)
		return -1.0;
	sums = MrfAlloc(env, sizeof(double) * (size_t) p);
	if (sums == NULL)
		return -1.0;
	while (MrfSubsetNext(p, t, vars, &k))
	{
		index++;
		for (int a = 0; a < k; a++)
			sums[vars[a]] += fabs(coef[index]);
	}
	for (int i = 0; i < p; i++)
		width = fmax(width, sums[i]);
	MrfFree(env, sums);
	return width;
}

/* privacy.md 3's T on the regression rows at the node budget; -1: invalid. */
int
MrfTwiseIterations(const MrfTwiseOptions *opt, int p, int64_t n)
{
	int			linf;
	int64_t		n1;

	if (opt == NULL || p < 2 || n < 1)
		return -1;
	if (opt->iterations != 0)
		return opt->iterations >= 2 ? opt->iterations : -1;
	linf = opt->objective == MRF_TWISE_LINF;
	n1 = n - MrfTwiseQueryRows(opt, n);
	if (n1 < 1)
		return -1;
	return MrfFwIterations(2.0 * opt->lambda, n1,
						   MrfTwiseNodeRho(opt->rho, p, linf), MRF_TWISE_T_FRACTION);
}

/*
 * Default PMW rounds R from public values.  The multiplicative-weights error
 * after R rounds falls like sqrt(p ln 2 / R) (the KL potential starts at
 * most p ln 2), and the selection noise per round grows like
 * 2 ln(2Q) sqrt(R) / (n2 sqrt(rho)) (Gumbel-max over 2Q candidates with
 * eps0 = 2 sqrt(rho / R)); their sum is smallest at
 * R = sqrt(p ln 2) n2 sqrt(rho) / (2 ln(2Q)).  Clamped to [1, Q] (more
 * rounds than queries mostly re-measure) and to the cost cap above.
 */
static int
PmwDefaultRounds(int p, int64_t queries, int64_t rows, double rho)
{
	double		r = sqrt(p * log(2.0)) * (double) rows * sqrt(rho) /
		(2.0 * log(2.0 * (double) queries));
	double		cap = (double) queries;

	if (cap > TWISE_PMW_MAX_DEFAULT_ROUNDS)
		cap = TWISE_PMW_MAX_DEFAULT_ROUNDS;
	if (!(r >= 1.0))
		r = 1.0;
	if (r > cap)
		r = cap;
	return (int) ceil(r);
}

/* PMW rounds of these options; 0 without PMW, -1 if invalid. */
int
MrfTwisePmwRounds(const MrfTwiseOptions *opt, int p, int64_t n)
{
	int64_t		queries;
	int64_t		n2;

	if (opt == NULL || opt->objective != MRF_TWISE_LINF ||
		opt->release != MRF_TWISE_PMW)
		return 0;
	if (opt->pmw_rounds != 0)
		return opt->pmw_rounds > 0 ? opt->pmw_rounds : -1;
	queries = MrfTwiseQueryCount(p, opt->t);
	n2 = MrfTwiseQueryRows(opt, n);
	if (queries < 1 || n2 < 1)
		return -1;
	return PmwDefaultRounds(p, queries, n2, MrfTwiseQueryRho(opt->rho));
}

/* Bytes MrfTwiseParitySums allocates for sets up to max_size. */
static size_t
ParityScratchBytes(int p, int64_t sets)
{
	size_t		per = sizeof(int64_t) + sizeof(int32_t) + sizeof(int8_t);

	return MrfSizeAdd(MrfSizeMul((size_t) sets, per), (size_t) p);
}

/* Bytes MrfTwisePmwRelease allocates: two 2^p arrays and the query masks. */
static size_t
PmwScratchBytes(int p, int64_t queries)
{
	size_t		states = (size_t) 1 << p;

	return MrfSizeAdd(MrfSizeMul(2 * states, sizeof(double)),
						MrfSizeMul((size_t) queries, sizeof(uint32_t)));
}

/*
 * The peak of MrfTwiseLearn: the regression phase (X, mask, weights, fw.c's
 * scratch), and for linf the query phase before it (sums and the scratch of
 * the parity sums or of PMW), with Q_hat alive across both.
 */
size_t
MrfTwiseWorkspaceBytes(const MrfTwiseOptions *opt, int p, int64_t n)
{
	int64_t		d;
	int64_t		n1;
	int64_t		n2;
	size_t		learn = 0;
	size_t		phase1;
	size_t		release;

	if (opt == NULL || p < 1 || n < 1 || opt->t < 1 || opt->t > MRF_TWISE_MAX_ORDER)
		return SIZE_MAX;
	d = MrfTwiseFeatureCount(p, opt->t);
	n2 = MrfTwiseQueryRows(opt, n);
	n1 = n - n2;
	if (d < 0 || n2 < 0 || n1 < 1)
		return SIZE_MAX;

	learn = MrfSizeAdd(learn, MrfSizeMul(MrfSizeMul((size_t) MrfFwColumnWords(n1), (size_t) d),
											 sizeof(uint64_t)));
	learn = MrfSizeAdd(learn, MrfSizeMul((size_t) p, 2 * sizeof(int)));
	learn = MrfSizeAdd(learn, MrfSizeMul((size_t) d, (size_t) p));
	learn = MrfSizeAdd(learn, MrfSizeMul(MrfSizeMul((size_t) d, (size_t) p), sizeof(double)));
	learn = MrfSizeAdd(learn, MrfFwWorkspaceBytes(n1, (int) (d < INT_MAX ? d : INT_MAX), p));
	if (opt->objective != MRF_TWISE_LINF)
		return learn;

	if (opt->release == MRF_TWISE_PMW)
	{
		if (p > MRF_TWISE_PMW_MAX_P)
			return SIZE_MAX;
		release = PmwScratchBytes(p, d - 1);
	}
	else
		release = 0;			/* the Gaussian release works in place */
	phase1 = MrfSizeAdd(MrfSizeMul((size_t) (d - 1), sizeof(int64_t)),
						  TwiseSizeMax(ParityScratchBytes(p, d), release));
	return MrfSizeAdd(MrfSizeMul((size_t) d, sizeof(double)),
						TwiseSizeMax(phase1, learn));
}

/* Positive and finite: the domain of budgets and widths. */
static int
TwisePositiveFinite(double v)
{
	return isfinite(v) && v > 0.0;
}

/* The problems MrfTwiseValidate returns (problem.h). */
const char	MrfTwiseBadArgument[] =
"invalid arguments: need at least 2 variables, 1 to 2147483647 rows, and a known objective, query release and mechanism";
const char	MrfTwiseBadBudget[] = "rho and lambda must be finite and positive";
const char	MrfTwiseBadOrder[] =
"the order t must be at least 2 and at most the number of variables (and 16)";
const char	MrfTwiseBadIterations[] =
"iterations must be 0 (default) or at least 2, and pmw_rounds 0 (default) or positive";
const char	MrfTwiseTooManyFeatures[] =
"too many features: the learner needs one column per set of at most t-1 variables";
const char	MrfTwiseBadSplit[] =
"the row split leaves no rows for the regressions or none for the parity queries";
const char	MrfTwisePmwTooLarge[] =
"query release pmw keeps a distribution over all 2^p points and accepts at most 20 variables";
const char	MrfTwiseNoiseTooLarge[] =
"the budget is too small for the parity queries: the noise variance would exceed 2^40";
const char	MrfTwiseBadScale[] =
"lambda is too large for this budget: the noise calibration of the node regressions overflows";

/*
 * Every refusal that needs no data, in the order a user would fix them.
 * Nothing here reads rows, so the glue may report the result in full.
 */
MrfProblem
MrfTwiseValidate(const MrfTwiseOptions *opt, int p, int64_t n)
{
	int64_t		d;
	int			linf;
	int			iters;

	if (opt == NULL || p < 2 || n < 1 || n > INT_MAX)
		return MrfTwiseBadArgument;
	if ((opt->objective != MRF_TWISE_L1 && opt->objective != MRF_TWISE_LINF) ||
		(opt->release != MRF_TWISE_GAUSSIAN && opt->release != MRF_TWISE_PMW) ||
		(opt->mechanism != MRF_MECH_EXPONENTIAL && opt->mechanism != MRF_MECH_LAPLACE))
		return MrfTwiseBadArgument;
	if (!TwisePositiveFinite(opt->rho) || !TwisePositiveFinite(opt->lambda))
		return MrfTwiseBadBudget;
	if (opt->t < 2 || opt->t > p || opt->t > MRF_TWISE_MAX_ORDER)
		return MrfTwiseBadOrder;
	if (opt->iterations < 0 || opt->iterations == 1 || opt->pmw_rounds < 0)
		return MrfTwiseBadIterations;
	d = MrfTwiseFeatureCount(p, opt->t);
	if (d < 0 || d > MrfTwiseMaxFeatures(p) || MrfTwiseCoefCount(p, opt->t) < 0)
		return MrfTwiseTooManyFeatures;

	linf = opt->objective == MRF_TWISE_LINF;
	if (linf)
	{
		int64_t		n2 = MrfTwiseQueryRows(opt, n);
		uint64_t	num;
		uint64_t	den;
		double		rho_q = MrfTwiseQueryRho(opt->rho);

		if (n2 < 1 || n2 >= n)
			return MrfTwiseBadSplit;
		if (opt->release == MRF_TWISE_PMW)
		{
			if (p > MRF_TWISE_PMW_MAX_P)
				return MrfTwisePmwTooLarge;
			if (MrfParityGaussianVariance(1, MrfPmwStepRho(rho_q, MrfTwisePmwRounds(opt, p, n)),
										  &num, &den) != 0)
				return MrfTwiseNoiseTooLarge;
		}
		else if (MrfParityGaussianVariance(d - 1, rho_q, &num, &den) != 0)
			return MrfTwiseNoiseTooLarge;
	}
	/* the node regressions' calibration, as MrfFwSolve will compute it */
	if (!isfinite(2.0 * opt->lambda))
		return MrfTwiseBadScale;
	iters = MrfTwiseIterations(opt, p, n);
	if (iters < 2)
		return MrfTwiseBadIterations;
	if (MrfFwCheckCalibration(2.0 * opt->lambda, MrfTwiseNodeRho(opt->rho, p, linf), iters,
							  opt->mechanism) != MRF_OK)
		return MrfTwiseBadScale;
	if (MrfTwiseWorkspaceBytes(opt, p, n) == SIZE_MAX)
		return MrfTwiseTooManyFeatures;
	return NULL;
}

/* ---- the design ---- */

/*
 * X (n x D, column-major): column 0 ones, columns 1..p the variables, and
 * every larger set as the product of its set minus the largest element
 * (an earlier column) and the column of that element.
 */
static void
TwiseDesign(const uint64_t *bits, int64_t n, int p, int t, int64_t xwords,
			uint64_t *x)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		c = 0;
	int64_t		w;

	for (w = 0; w < xwords; w++)
		x[w] = ~(uint64_t) 0;
	MrfBitsToColumnBits(bits, n, p, 0, xwords, x + xwords);
	while (MrfSubsetNext(p, t - 1, vars, &k))
	{
		const uint64_t *a;
		const uint64_t *b;
		uint64_t   *col;

		c++;
		if (k < 2)
			continue;
		a = x + (size_t) MrfSubsetIndex(p, vars, k - 1) * (size_t) xwords;
		b = x + (size_t) (1 + vars[k - 1]) * (size_t) xwords;
		col = x + (size_t) c * (size_t) xwords;
		/* a product of +-1 entries is +1 iff their bits agree */
		for (w = 0; w < xwords; w++)
			col[w] = ~(a[w] ^ b[w]);
	}
}

/* allowed[c + i D] = 1 iff set c does not contain node i. */
static void
TwiseAllowed(int p, int t, int64_t d, uint8_t *allowed)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		c = 0;
	int			i;

	for (;;)
	{
		int			j;

		for (i = 0; i < p; i++)
			allowed[(size_t) i * d + c] = 1;
		for (j = 0; j < k; j++)
			allowed[(size_t) vars[j] * d + c] = 0;
		if (!MrfSubsetNext(p, t - 1, vars, &k))
			break;
		c++;
	}
}

/*
 * Index of {i} u vars[0..k-1] when i < vars[0]: i is the smallest element,
 * so it takes rank C(i, 1) = i and every other element moves up one place.
 */
static int64_t
IndexWithSmallest(int p, int i, const int *vars, int k)
{
	int64_t		index = MrfSubsetCount(p, k) + i;
	int			j;

	for (j = 0; j < k; j++)
		index += Binomial(vars[j], j + 2);
	return index;
}

/*
 * Algorithm 4, line 7 (privacy.md 6): c(I u {i}) = w_i(I) / 2 for the node i
 * that is the smallest element of I u {i}; the other |I| nodes that estimate
 * the same monomial are not used.  privacy.md 6.1 says so, and it is the
 * form the paper's l1 guarantee (Thm. 4.2) is proved for: each node's regression
 * bounds the error of the monomials it is assigned, and every monomial is
 * assigned exactly once, so the bounds add up over nodes.  The paper's
 * alternative, averaging the |I| + 1 estimates (as the Ising learner
 * symmetrises), is free post-processing that usually lowers the variance;
 * it is not the form of privacy.md 6.1.
 */
static void
TwiseAssignL1(int p, int t, int64_t d, const double *w, double *coef)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		c = 0;

	for (;;)
	{
		int			top = k == 0 ? p : vars[0];
		int64_t		base = IndexWithSmallest(p, 0, vars, k);
		int			i;

		/*
		 * Nodes below the smallest member (they cannot be members); the
		 * index of {i} u K is base + i, since i only adds C(i, 1) = i.
		 */
		for (i = 0; i < top; i++)
			coef[base + i] = w[(size_t) i * d + c] / 2.0;
		if (!MrfSubsetNext(p, t - 1, vars, &k))
			break;
		c++;
	}
}

/*
 * Algorithm 5, lines 10-12, for the monomials whose smallest element is i.
 * v_i(K) = w_i(K) / 2 is node i's estimate of d_i h.  For I avoiding i,
 * the partial derivative d_I v_i has the coefficients v_i(I u I') at I' (I'
 * disjoint from I and i), and
 *     u(I u {i}) = sum_{I'} v_i(I u I') Q_hat(I')
 * is the mean of d_I v_i under the released parities, an estimate of
 * E[d_I d_i h(Z)], which equals c(I u {i}) when I u {i} is a maximal
 * monomial of h (then d_I d_i h is that constant).  Instead of looping over
 * I and I', loop over the feature sets K = I u I' of node i with nonzero
 * weight (Frank-Wolfe leaves at most T-1 per node) and split each K into
 * I and I' in all 2^|K| ways; only splits with min(I) > i are assigned
 * here, as in Algorithm 4.
 */
static void
TwiseAssignLinf(int p, int t, int64_t d, const double *w, const double *qhat,
				double *coef)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		c = 0;

	for (;;)
	{
		int			i;

		for (i = 0; i < p; i++)
		{
			double		v = w[(size_t) i * d + c] / 2.0;
			unsigned	split;
			int			inside = 0;
			int			j;

			if (v == 0.0)
				continue;
			for (j = 0; j < k; j++)
				inside |= vars[j] == i;
			if (inside)
				continue;		/* not a feature of node i */
			for (split = 0; split < (1u << k); split++)
			{
				int			iv[MRF_TWISE_MAX_ORDER];
				int			rv[MRF_TWISE_MAX_ORDER];
				int			ik = 0;
				int			rk = 0;

				for (j = 0; j < k; j++)
				{
					if (split & (1u << j))
						iv[ik++] = vars[j];
					else
						rv[rk++] = vars[j];
				}
				if (ik > 0 && iv[0] < i)
					continue;	/* assigned by the node min(I) */
				coef[IndexWithSmallest(p, i, iv, ik)] +=
					v * qhat[MrfSubsetIndex(p, rv, rk)];
			}
		}
		if (!MrfSubsetNext(p, t - 1, vars, &k))
			break;
		c++;
	}
}

/* ---- parity queries ---- */

/*
 * Per row, the product of every set is the product of its parent (the set
 * without its largest element) and that element, so one pass in index order
 * computes all of them with one multiplication each; the sums are exact
 * integers.
 */
MrfStatus
MrfTwiseParitySums(const uint64_t *bits, int64_t n, int p, int max_size,
				   const MrfEnv *env, int64_t *sums)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		sets;
	int64_t		c = 0;
	int64_t    *parent;
	int32_t    *last;
	int8_t	   *val;
	int8_t	   *z;
	int			words = MrfBitWords(p);
	int64_t		m;

	if (bits == NULL || env == NULL || sums == NULL || n < 0 || p < 1 ||
		max_size < 1 || max_size > p || max_size > MRF_TWISE_MAX_ORDER)
		return MRF_EINVAL;
	sets = MrfSubsetCount(p, max_size);
	if (sets < 0 || (uint64_t) sets > SIZE_MAX / 16)
		return MRF_EINVAL;

	parent = MrfAlloc(env, (size_t) sets * sizeof(int64_t));
	last = MrfAlloc(env, (size_t) sets * sizeof(int32_t));
	val = MrfAlloc(env, (size_t) sets * sizeof(int8_t));
	z = MrfAlloc(env, (size_t) p);
	if (parent == NULL || last == NULL || val == NULL || z == NULL)
	{
		MrfFree(env, parent);
		MrfFree(env, last);
		MrfFree(env, val);
		MrfFree(env, z);
		return MRF_ENOMEM;
	}
	while (MrfSubsetNext(p, max_size, vars, &k))
	{
		c++;
		parent[c] = k == 1 ? 0 : MrfSubsetIndex(p, vars, k - 1);
		last[c] = vars[k - 1];
	}

	memset(sums, 0, (size_t) (sets - 1) * sizeof(int64_t));
	val[0] = 1;
	for (m = 0; m < n; m++)
	{
		const uint64_t *row = bits + (size_t) m * words;
		int			j;

		if (m % TWISE_POLL_ROWS == 0)
			MrfPoll(env, m, n);
		for (j = 0; j < p; j++)
			z[j] = (int8_t) (2 * MrfBitGet(row, j) - 1);
		for (c = 1; c < sets; c++)
		{
			val[c] = (int8_t) (val[parent[c]] * z[last[c]]);
			sums[c - 1] += val[c];
		}
	}
	MrfPoll(env, n, n);

	MrfFree(env, parent);
	MrfFree(env, last);
	MrfFree(env, val);
	MrfFree(env, z);
	return MRF_OK;
}

/*
 * The Gaussian query release of privacy.md 6: one discrete Gaussian draw per
 * sum with the variance of privacy.c (l2 sensitivity 2 sqrt(count)), exact in
 * integers, so no floating-point artefact can reveal the sums (Mironov
 * 2012).  noisy may alias sums.
 */
MrfStatus
MrfTwiseGaussianRelease(const int64_t *sums, int64_t count, double rho,
						MrfRng *rng, int64_t *noisy)
{
	uint64_t	num;
	uint64_t	den;
	int64_t		q;

	if (sums == NULL || rng == NULL || noisy == NULL || count < 1)
		return MRF_EINVAL;
	if (MrfParityGaussianVariance(count, rho, &num, &den) != 0)
		return MRF_EINVAL;
	for (q = 0; q < count; q++)
	{
		int64_t		y = MrfRngDiscreteGaussian(rng, num, den);

		if (y == MRF_NOISE_INVALID)
			return MRF_EINVAL;
		noisy[q] = sums[q] + y;
	}
	return MRF_OK;
}

/* Parity of the number of set bits. */
static inline int
Parity32(uint32_t v)
{
	v ^= v >> 16;
	v ^= v >> 8;
	v ^= v >> 4;
	v ^= v >> 2;
	v ^= v >> 1;
	return (int) (v & 1);
}

/*
 * Normalises exp(logw) into prob and transforms it, so that the mean of the
 * parity of set mask m is sign * prob[m] (MrfWalshHadamard).  Subtracting
 * the maximum first keeps every exponential in range.
 */
static void
PmwAnswers(const double *logw, double *prob, int p)
{
	size_t		states = (size_t) 1 << p;
	double		top = logw[0];
	double		total = 0.0;
	size_t		x;

	for (x = 1; x < states; x++)
		top = logw[x] > top ? logw[x] : top;
	for (x = 0; x < states; x++)
	{
		prob[x] = exp(logw[x] - top);
		total += prob[x];
	}
	for (x = 0; x < states; x++)
		prob[x] /= total;
	MrfWalshHadamard(prob, p);
}

/* Clamps to [-bound, bound]. */
static double
Clamp(double v, double bound)
{
	return v > bound ? bound : (v < -bound ? -bound : v);
}

/*
 * Private multiplicative weights, MWEM form (Hardt-Ligett-McSherry 2012, an
 * offline variant of Hardt-Rothblum 2010).  State: a distribution A over
 * {-1,+1}^p (as log-weights), starting uniform, so every parity mean starts
 * at 0.  Each of R rounds:
 *   1. answers a(I) of A for all queries (one Walsh-Hadamard transform);
 *   2. selection: candidates (I, s), s = +-1, scored s (S(I) - c(I)) with
 *      c(I) = n2 a(I) rounded to a multiple of 2^-20; Gumbel-max with the
 *      multiplier of privacy.c (MrfPmwSelectionScale): rho/(2R)-zCDP;
 *   3. measurement: m = S(I) + discrete Gaussian of variance
 *      MrfParityGaussianVariance(1, rho/(2R)): rho/(2R)-zCDP;
 *   4. update (post-processing): A(x) <- A(x) exp(beta chi_I(x)) with beta
 *      chosen so that the new a(I) equals m / n2 (clamped inside (-1, 1)):
 *      tanh(beta) = (m/n2 - a) / (1 - a m/n2).  This is the multiplicative
 *      weights step with the step size that projects A onto the measurement
 *      (the I-projection MWEM approximates by repeated updates).
 * Accounting: 2R adaptively composed mechanisms of rho/(2R) each, rho in
 * all ([BS16] Lemma 2.3); A, a and the answers are functions of earlier
 * outputs, so they cost nothing.  The output is the last A's answers.
 *
 * Exact scores.  |S(I)| <= n2 < 2^31 is an exact double; c(I) is a
 * multiple of 2^-20 of magnitude at most 2^31; so S(I) - c(I) is a multiple
 * of 2^-20 below 2^32 in magnitude and needs at most 52 significant bits:
 * it is computed exactly, and neighbouring datasets move it by exactly
 * S(I) - S'(I), at most 2.  The number of noise draws per round is fixed
 * (2Q Gumbels, one discrete Gaussian).
 */
MrfStatus
MrfTwisePmwRelease(int p, int max_size, const int64_t *sums, int64_t rows,
				   double rho, int rounds, MrfRng *rng, const MrfEnv *env,
				   double *answers, int64_t *selected)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		queries;
	int64_t		q;
	size_t		states;
	double	   *logw;
	double	   *prob;
	uint32_t   *mask;
	uint64_t	num;
	uint64_t	den;
	double		step;
	double		scale;
	double		bound;
	int			r;

	if (p < 1 || p > MRF_TWISE_PMW_MAX_P || max_size < 1 || max_size > p ||
		max_size > MRF_TWISE_MAX_ORDER || sums == NULL || rows < 1 ||
		rows > INT_MAX || rounds < 1 || rng == NULL || env == NULL ||
		answers == NULL)
		return MRF_EINVAL;
	queries = MrfSubsetCount(p, max_size) - 1;
	step = MrfPmwStepRho(rho, rounds);
	scale = MrfPmwSelectionScale(step);
	if (!isfinite(scale) || MrfParityGaussianVariance(1, step, &num, &den) != 0)
		return MRF_EINVAL;
	for (q = 0; q < queries; q++)
		if (sums[q] < -rows || sums[q] > rows)
			return MRF_EINVAL;

	states = (size_t) 1 << p;
	logw = MrfAlloc(env, states * sizeof(double));
	prob = MrfAlloc(env, states * sizeof(double));
	mask = MrfAlloc(env, (size_t) queries * sizeof(uint32_t));
	if (logw == NULL || prob == NULL || mask == NULL)
	{
		MrfFree(env, logw);
		MrfFree(env, prob);
		MrfFree(env, mask);
		return MRF_ENOMEM;
	}
	q = 0;
	while (MrfSubsetNext(p, max_size, vars, &k))
	{
		uint32_t	bitsOf = 0;
		int			j;

		for (j = 0; j < k; j++)
			bitsOf |= (uint32_t) 1 << vars[j];
		mask[q++] = bitsOf;
	}

	/* a measured mean is kept this far inside (-1, 1) so that beta is finite */
	bound = 1.0 - 1.0 / (double) (rows + 1);

	for (r = 0; r < rounds; r++)
	{
		double		best = -INFINITY;
		int64_t		best_q = 0;
		double		a;
		double		target;
		double		beta;
		int64_t		noise;
		int			sign;
		size_t		x;

		MrfPoll(env, r, rounds);
		PmwAnswers(logw, prob, p);

		for (q = 0; q < queries; q++)
		{
			double		c;
			double		e;
			int			s;

			sign = Parity32(mask[q]) ? -1 : 1;
			a = Clamp(sign * prob[mask[q]], 1.0);
			c = ldexp(rint(ldexp(a * (double) rows, 20)), -20);
			e = (double) sums[q] - c;	/* exact, see above */
			for (s = 1; s >= -1; s -= 2)
			{
				double		v = s * e * scale + MrfRngGumbel(rng);

				if (v > best)
				{
					best = v;
					best_q = q;
				}
			}
		}

		noise = MrfRngDiscreteGaussian(rng, num, den);
		if (noise == MRF_NOISE_INVALID)
		{
			MrfFree(env, logw);
			MrfFree(env, prob);
			MrfFree(env, mask);
			return MRF_EINVAL;
		}
		if (selected != NULL)
			selected[r] = best_q + 1;

		/* post-processing from here on */
		sign = Parity32(mask[best_q]) ? -1 : 1;
		a = Clamp(sign * prob[mask[best_q]], bound);
		target = Clamp((double) (sums[best_q] + noise) / (double) rows, bound);
		beta = atanh(Clamp((target - a) / (1.0 - a * target), bound));
		for (x = 0; x < states; x++)
			logw[x] += (Parity32((uint32_t) x & mask[best_q]) ? -sign : sign) * beta;
	}

	PmwAnswers(logw, prob, p);
	for (q = 0; q < queries; q++)
		answers[q] = Clamp((Parity32(mask[q]) ? -1.0 : 1.0) * prob[mask[q]], 1.0);
	MrfPoll(env, rounds, rounds);

	MrfFree(env, logw);
	MrfFree(env, prob);
	MrfFree(env, mask);
	return MRF_OK;
}

/*
 * Algorithm 5, lines 3-5: parity sums over the n2 query rows, released at
 * rho/2 by the discrete Gaussian or PMW, as means Q_hat(I) in qhat[index(I)]
 * with qhat[0] = 1 (the empty parity, exact and public).  Clamping the
 * Gaussian means to [-1, 1] is post-processing.
 */
static MrfStatus
TwiseQueryRelease(const uint64_t *bits, int64_t n2, int p,
				  const MrfTwiseOptions *opt, int rounds, MrfRng *rng,
				  const MrfEnv *env, double *qhat)
{
	int64_t		queries = MrfTwiseQueryCount(p, opt->t);
	double		rho_q = MrfTwiseQueryRho(opt->rho);
	int64_t    *sums;
	MrfStatus	st;
	int64_t		q;

	sums = MrfAlloc(env, (size_t) queries * sizeof(int64_t));
	if (sums == NULL)
		return MRF_ENOMEM;
	st = MrfTwiseParitySums(bits, n2, p, opt->t - 1, env, sums);
	if (st == MRF_OK && opt->release == MRF_TWISE_GAUSSIAN)
	{
		st = MrfTwiseGaussianRelease(sums, queries, rho_q, rng, sums);
		for (q = 0; st == MRF_OK && q < queries; q++)
			qhat[q + 1] = Clamp((double) sums[q] / (double) n2, 1.0);
	}
	else if (st == MRF_OK)
		st = MrfTwisePmwRelease(p, opt->t - 1, sums, n2, rho_q, rounds, rng, env,
								qhat + 1, NULL);
	qhat[0] = 1.0;
	MrfFree(env, sums);
	return st;
}

/* The t-wise design's sizes: the sets of size 0..t-1 (coordinates), p problems. */
static void
TwiseDesignSizes(const MrfFwDesign *design, int64_t *d, int64_t *q)
{
	int64_t		features;

	if (design->p < 2 || design->order < 2 || design->order > design->p ||
		design->order > MRF_TWISE_MAX_ORDER)
		return;
	features = MrfTwiseFeatureCount(design->p, design->order);
	if (features < 1 || features > MrfTwiseMaxFeatures(design->p))
		return;
	*d = features;
	*q = design->p;
}

/* Packed rows (rows.h). */
static size_t
TwiseDesignRowBytes(const MrfFwDesign *design)
{
	return (size_t) MrfBitWords(design->p) * sizeof(uint64_t);
}

/* Node i's label is column 1 + i of X (z_i); it may not select a set containing i. */
static void
TwiseDesignShape(const MrfFwDesign *design, MrfFwShape *shape)
{
	for (int i = 0; i < design->p; i++)
	{
		shape->ypos[i] = 1 + i;
		shape->yneg[i] = MRF_FW_COMPLEMENT;
	}
	TwiseAllowed(design->p, design->order, MrfTwiseFeatureCount(design->p, design->order),
				 shape->allowed);
	shape->prob.x_signed = 1;
}

/* See TwiseDesign. */
static MrfStatus
TwiseDesignColumns(const MrfFwDesign *design, const void *rows, int64_t n, int64_t xwords,
				   uint64_t *x)
{
	TwiseDesign(rows, n, design->p, design->order, xwords, x);
	return MRF_OK;
}

const MrfFwDesignOps MrfTwiseFwDesign = {
	TwiseDesignSizes, TwiseDesignRowBytes, TwiseDesignShape, TwiseDesignColumns
};

/* See twise.h. */
void
MrfTwiseFwDesignOf(int p, int t, double lambda, MrfFwDesign *design)
{
	memset(design, 0, sizeof(*design));
	design->kind = MRF_FW_DESIGN_TWISE;
	design->p = p;
	design->k = 2;
	design->order = t;
	design->radius = 2.0 * lambda;
}

/*
 * Algorithm 4 (objective l1) or 5 (linf), from the rows (bits) or, for l1,
 * from score sums computed elsewhere (scores_fn).  Order of work and
 * memory: the query phase of Algorithm 5 first (its scratch is freed
 * before the design is built), then the design over the regression rows
 * (fwdesign.h: the parts build the same), the p regressions together, and
 * the assignment of the coefficients.
 */
static MrfStatus
TwiseLearn(const uint64_t *bits, MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
		   const MrfTwiseOptions *opt, MrfRng *rng, const MrfEnv *env, double *coef)
{
	MrfFwDesign design;
	MrfFwShape	shape;
	double	   *w = NULL;
	double	   *qhat = NULL;
	MrfStatus	st = MRF_OK;
	int64_t		d;
	int64_t		n1;
	int64_t		n2;
	int			linf;

	if (rng == NULL || env == NULL || coef == NULL || MrfTwiseValidate(opt, p, n) != NULL)
		return MRF_EINVAL;
	linf = opt->objective == MRF_TWISE_LINF;
	/* Algorithm 5's split is by position: only the rows can say which are the last n2 */
	if (bits == NULL && linf)
		return MRF_EINVAL;
	d = MrfTwiseFeatureCount(p, opt->t);
	n2 = MrfTwiseQueryRows(opt, n);
	n1 = n - n2;

	if (linf)
	{
		qhat = MrfAlloc(env, (size_t) d * sizeof(double));
		if (qhat == NULL)
			return MRF_ENOMEM;
		st = TwiseQueryRelease(bits + (size_t) n1 * MrfBitWords(p), n2, p, opt,
							   MrfTwisePmwRounds(opt, p, n), rng, env, qhat);
		if (st != MRF_OK)
		{
			MrfFree(env, qhat);
			return st;
		}
	}

	MrfTwiseFwDesignOf(p, opt->t, opt->lambda, &design);
	st = MrfFwShapeInit(&design, env, &shape);
	if (st != MRF_OK)
	{
		MrfFree(env, qhat);
		return st;
	}
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) d, (size_t) p), sizeof(double)));
	if (w == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	shape.prob.n = n1;
	shape.prob.iterations = MrfTwiseIterations(opt, p, n);
	shape.prob.rho_problem = MrfTwiseNodeRho(opt->rho, p, linf);
	shape.prob.mechanism = opt->mechanism;
	/* the regression rows are the first n1 */
	st = MrfFwDesignSolve(&design, &shape.prob, bits, scores_fn, arg, rng, env, w);
	if (st != MRF_OK)
		goto done;

	memset(coef, 0, (size_t) MrfTwiseCoefCount(p, opt->t) * sizeof(double));
	if (linf)
		TwiseAssignLinf(p, opt->t, d, w, qhat, coef);
	else
		TwiseAssignL1(p, opt->t, d, w, coef);

done:
	MrfFree(env, w);
	MrfFwShapeFree(env, &shape);
	MrfFree(env, qhat);
	return st;
}

/* See twise.h. */
MrfStatus
MrfTwiseLearn(const uint64_t *bits, int64_t n, int p,
			  const MrfTwiseOptions *opt, MrfRng *rng, const MrfEnv *env,
			  double *coef)
{
	if (bits == NULL)
		return MRF_EINVAL;
	return TwiseLearn(bits, NULL, NULL, n, p, opt, rng, env, coef);
}

/* See twise.h. */
MrfStatus
MrfTwiseLearnParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
				   const MrfTwiseOptions *opt, MrfRng *rng, const MrfEnv *env, double *coef)
{
	if (scores_fn == NULL)
		return MRF_EINVAL;
	return TwiseLearn(NULL, scores_fn, arg, n, p, opt, rng, env, coef);
}
