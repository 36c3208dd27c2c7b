/*
 * privacy.h - every privacy calibration constant and conversion of mrfdp.
 *
 * Nothing else in the code base may compute a noise scale, a per-step budget
 * or a conversion between privacy notions: it calls these.  Each definition in
 * privacy.c names its source and the proof step it serves (docs/privacy.md,
 * cited as "privacy.md N" for its section N).
 * Neighbouring datasets: replace one row (bounded DP); n is public.
 */
#ifndef MRF_PRIVACY_H
#define MRF_PRIVACY_H

#include <stdint.h>

typedef enum MrfMechanism
{
	MRF_MECH_EXPONENTIAL = 0,	/* Gumbel-max exponential mechanism (default) */
	MRF_MECH_LAPLACE = 1		/* report-noisy-max with Laplace noise */
} MrfMechanism;

/* Sensitivity of a Frank-Wolfe sum score under replace-one: 2R. */
double		MrfFwScoreSensitivity(double radius);

/* Per-step pure-DP parameter eps0 of a selection worth rho_step zCDP. */
double		MrfFwStepEpsilon(MrfMechanism mech, double rho_step);

/* Multiplier c on scores: exponential picks argmax(c*u + Gumbel). */
double		MrfFwExponentialScale(double eps0, double sensitivity);

/* Laplace scale b for report-noisy-max over non-monotone scores. */
double		MrfFwLaplaceScale(double eps0, double sensitivity);

/* The paper's iteration count T from public values only (at least 2). */
int			MrfFwDefaultIterations(double radius, int64_t n, double rho_node);

/*
 * The learners' T when the options give none, as a fraction of the paper's
 * formula, chosen by the defaults study (bench/bench_defaults.c,
 * docs/studies/defaults.md "Defaults and the study behind them") together with the default
 * lambda (src/pg/sqlapi/options.c's defaults table: 8, and 4 for pairwise and
 * t-wise).  Public constants: T stays a function of public values.
 */
#define MRF_ISING_T_FRACTION 0.25
#define MRF_PAIRWISE_T_FRACTION 0.25
#define MRF_TWISE_T_FRACTION 0.25

/*
 * The learners' T: ceil(fraction x MrfFwDefaultIterations), at least 2 (-1
 * on invalid input).
 */
int			MrfFwIterations(double radius, int64_t n, double rho_node, double fraction);

/* Per-step zCDP of T-1 noisy selections sharing rho_node. */
double		MrfFwStepRho(double rho_node, int iterations);

/* zCDP budget of each of the p k (k-1) pairwise regressions: rho / (p k). */
double		MrfPairwiseProblemRho(double rho, int p, int k);
/* Per-variable alphabets kv (p entries): rho / sum_i k_i per regression. */
double		MrfPairwiseProblemRhoAlphabets(double rho, int p, const uint8_t *kv);

/* rho-zCDP to (eps, delta)-DP: Canonne-Kamath-Steinke 2020, tight. */
double		MrfZcdpToDpTight(double rho, double delta);

/* rho-zCDP to (eps, delta)-DP: Bun-Steinke 2016, eps = rho + 2 sqrt(rho ln(1/delta)). */
double		MrfZcdpToDpBs16(double rho, double delta);

/* Largest rho whose tight conversion at delta is at most epsilon. */
double		MrfZcdpForDp(double epsilon, double delta);

/* Largest rho whose Bun-Steinke conversion at delta is at most epsilon. */
double		MrfZcdpForDpBs16(double epsilon, double delta);

/* A relation's total epsilon spent (privacy.md 9); +infinity: infeasible. */
double		MrfComposeEpsilon(double zcdp_rho, double pure_epsilon, double pure_rho,
							  double approx_epsilon, double approx_delta,
							  double delta_cap);

/* a + b rounded up: the budget of two composed releases never understated. */
double		MrfComposeUp(double a, double b);

/*
 * A relation's budget and what it has spent, for the fit checks below: each
 * spent sum is the smallest double at least the exact sum; rho_cap is
 * +infinity when there is none.
 */
typedef struct MrfBudget
{
	double		epsilon;
	double		delta;
	double		rho_cap;
	double		zcdp_rho;		/* sum of rho of zCDP releases */
	double		pure_epsilon;	/* sum of epsilon of pure releases */
	double		pure_rho;		/* sum of epsilon^2/2 of pure releases */
	double		approx_epsilon; /* sums over (epsilon, delta) releases */
	double		approx_delta;
} MrfBudget;

/* Whether one more release fits the budget (a check no laxer than the ledger's). */
int			MrfBudgetFitsZcdp(const MrfBudget *b, double rho);
int			MrfBudgetFitsPure(const MrfBudget *b, double epsilon);
int			MrfBudgetFitsApprox(const MrfBudget *b, double epsilon, double delta);

/*
 * The largest amount of each notion that fits now, rounded down (0: none;
 * NaN: invalid budget).  Approximate releases trade epsilon against delta:
 * the largest epsilon at a given delta, and the largest delta at the
 * smallest positive epsilon.
 */
double		MrfBudgetLargestZcdp(const MrfBudget *b);
double		MrfBudgetLargestPure(const MrfBudget *b);
double		MrfBudgetLargestApproxEpsilon(const MrfBudget *b, double delta);
double		MrfBudgetLargestApproxDelta(const MrfBudget *b);

/* Pure eps-DP implies eps^2/2-zCDP (Bun-Steinke 2016, Prop. 1.4). */
double		MrfDpToZcdp(double epsilon);

/* L1 sensitivity of all clique contingency tables under replace-one: 2m. */
double		MrfCliquesSensitivity(int ncliques);

/*
 * Discrete Laplace scale num/den, at least Delta1/epsilon, for the noisy
 * clique tables (privacy.md 8); returns 0, or -1 on invalid input.
 */
int			MrfCliquesNoiseScale(double epsilon, int ncliques, uint64_t *num,
								 uint64_t *den);

/*
 * Stable mode over disjoint blocks (privacy.md 7, Zhang et al. Lemma 6.1):
 * the discrete Laplace scale num/den (>= 2/epsilon) added to each observed
 * block count.  Returns 0, or -1 on invalid epsilon.
 */
int			MrfStableModeNoise(double epsilon, uint64_t *num, uint64_t *den);

/*
 * The integer threshold tau: a noisy count survives when count + Z >= tau.
 * At least the continuous argument's 1 + (2/epsilon) ln(1/(2 delta)); -1 on
 * invalid input.
 */
int64_t		MrfStableModeThreshold(double epsilon, double delta);

/*
 * P(1 + Z >= tau) for the noise and threshold above: the probability that a
 * graph seen in one block only survives (at most delta).  NaN if invalid.
 */
double		MrfStableModeLeak(double epsilon, double delta);

/*
 * The stable mode with blocks cut per shard (privacy.md 7.3): one replaced
 * row may change two blocks, so the scale is num/den >= 4/epsilon and the
 * threshold tau (>= 3) makes the leak max(P(2 + Z >= tau),
 * 2 P(1 + Z >= tau)) at most delta/2.  Same conventions as above.
 */
int			MrfStableShardNoise(double epsilon, uint64_t *num, uint64_t *den);
int64_t		MrfStableShardThreshold(double epsilon, double delta);
double		MrfStableShardLeak(double epsilon, double delta);

/* ---- binary t-wise learners (Zhang et al. Alg. 4, 5; privacy.md 6) ---- */

/* zCDP budget of each node regression: rho/p (l1) or rho/(2p) (linf). */
double		MrfTwiseNodeRho(double rho, int p, int linf);

/* zCDP budget of Algorithm 5's parity-query release: rho/2. */
double		MrfTwiseQueryRho(double rho);

/* Replace-one sensitivity of one parity sum of +-1 products: 2. */
double		MrfParitySumSensitivity(void);

/*
 * Variance sigma^2 = num/den of the discrete Gaussian that releases count
 * parity sums at rho zCDP: at least (2 sqrt(count))^2 / (2 rho), rounded up
 * to a rational with num, den <= 2^40.  Returns 0, or -1 if out of range.
 */
int			MrfParityGaussianVariance(int64_t count, double rho, uint64_t *num,
									  uint64_t *den);

/* zCDP of each of the 2 x rounds mechanisms of private multiplicative weights. */
double		MrfPmwStepRho(double rho, int rounds);

/* Multiplier c of PMW's selection argmax(c * error + Gumbel) at rho_step. */
double		MrfPmwSelectionScale(double rho_step);

/* ---- the protected path's noisy count of substituted rows ---- */

/* Its share of a learner's budget B (rho or epsilon): B / 128 (exact). */
double		MrfSubstitutedCountShare(double budget);

/*
 * The largest learner budget B whose total with the count's share,
 * MrfComposeUp(B, MrfSubstitutedCountShare(B)), is at most total (0: none).
 */
double		MrfSubstitutedCountLargestBudget(double total);

/*
 * Discrete Gaussian variance num/den >= 1 / (2 rho_c) (sensitivity 1):
 * returns 0, or -1 if rho_c is invalid or the variance exceeds 2^40.
 */
int			MrfSubstitutedCountGaussian(double rho_c, uint64_t *num, uint64_t *den);

/*
 * Discrete Laplace scale num/den >= 1 / epsilon_c (sensitivity 1): returns
 * 0, or -1 if epsilon_c is invalid or the scale exceeds 2^40.
 */
int			MrfSubstitutedCountLaplace(double epsilon_c, uint64_t *num, uint64_t *den);

/* ---- MST (McKenna, Miklau, Sheldon 2021; privacy.md 12) ---- */

/* MST's split: rho/3 (rounded down) for each of one-way, selection, two-way. */
int			MrfMstSplit(double rho, double *rho_one_way, double *rho_select,
						double *rho_two_way);

/* Squared l2 sensitivity of one contingency table under replace-one: 2. */
double		MrfMarginalSquaredSensitivity(void);

/*
 * Discrete Gaussian variance num/den >= tables / rho that releases `tables`
 * contingency tables at rho zCDP.  Returns 0, or -1 if out of range.
 */
int			MrfMstGaussianVariance(int64_t tables, double rho, uint64_t *num,
								   uint64_t *den);

/* Sensitivity of MST's quality score (an L1 distance) under replace-one: 2. */
double		MrfMstQualitySensitivity(void);

/* Epsilon of each of `rounds` selections sharing rho_select: sqrt(8 rho_select / rounds). */
double		MrfMstSelectionEpsilon(double rho_select, int rounds);

/* Multiplier c of the selection argmax(c q + Gumbel). */
double		MrfMstSelectionScale(double rho_select, int rounds);

/* ---- AIM (McKenna, Mullins, Sheldon, Miklau 2022; privacy.md 13) ---- */

/* AIM's rounds T: 16 p up to 16 columns ([MMSM22] Alg. 2's default), 256 up to 128, then 2 p. */
int			MrfAimRounds(int p);

/*
 * The first rates: each round (and each one-way measurement) spends
 * rho_measure = 0.9 rho / T on its marginal and rho_select = 0.1 rho / T
 * on its selection, both rounded down.  Returns 0, or -1 on invalid input.
 */
int			MrfAimInitialRates(double rho, int rounds, double *rho_measure,
							   double *rho_select);

/*
 * The one-ways' rate *rho_one and the rounds' first rates: share 0, as
 * [MMSM22] (each one-way at 0.9 rho / T; refused when T <= 0.9 p); else the
 * one-ways take share rho together and the rounds split the rest by
 * MrfAimInitialRates.  Returns 0, or -1 on invalid input.
 */
int			MrfAimRates(double rho, int p, int rounds, double share, double *rho_one,
						double *rho_measure, double *rho_select);

/*
 * The seeded schedule's defaults: the shares of rho of the one-ways (one_given
 * when positive, else 1/3) and the seed (MRF_AIM_SEED_REST of the rest, or
 * MRF_AIM_SEED_REST_MID from the automatic schedule's signal,
 * MrfAimScheduleSignal, of MRF_AIM_SEED_MID_SIGNAL on), the part of the
 * seed's share its selections take (the rest measuring its pairs:
 * MRF_AIM_SEED_SELECT_SHARE, or MRF_AIM_SEED_SELECT_SHARE_LOW when the
 * signal is below MRF_AIM_SEED_LOW_SIGNAL), and T (MRF_AIM_SEED_ROUNDS, or
 * MRF_AIM_SEED_ROUNDS_MID from the middle signal on).  Signal NaN (n not
 * yet known): the seed and T below the middle signal, the split above the
 * low one.
 */
#define MRF_AIM_SEED_SELECT_SHARE 0.35
#define MRF_AIM_SEED_SELECT_SHARE_LOW 0.5
#define MRF_AIM_SEED_LOW_SIGNAL 50.0
#define MRF_AIM_SEED_REST 0.9
#define MRF_AIM_SEED_REST_MID 0.675
#define MRF_AIM_SEED_ROUNDS 8
#define MRF_AIM_SEED_ROUNDS_MID 16
#define MRF_AIM_SEED_MID_SIGNAL 500.0
void		MrfAimSeedShares(double one_given, double signal, double *one_share,
							 double *seed_share, double *select_share, int *rounds);

/*
 * The automatic schedule's signal (MrfAimScheduleSignal): n over the
 * standard deviation of a pair's count measured as MST measures its p - 1
 * pairs at rho / 3, n sqrt(2 rho / (3 (p - 1))); a function of public
 * sizes only.  MrfAimAutoPaper: whether the automatic schedule runs
 * [MMSM22]'s (1) or the MST-seeded one (0) at these sizes; n < 1 (not yet
 * known): -1.
 */
#define MRF_AIM_PAPER_SIGNAL 2500.0
double		MrfAimScheduleSignal(double rho, int64_t n, int p);
int			MrfAimAutoPaper(double rho, int64_t n, int p);

/*
 * MST-seeded AIM's rates: the one-ways' rate *rho_one (one_share rho / p),
 * the seed's selections together (select_share of seed_share rho: MST's
 * tree over the workload's pairs, MrfMstSelectionScale) and its
 * measurements together (the rest of seed_share rho: MrfMstGaussianVariance
 * over its pairs), and the rounds' first rates (MrfAimInitialRates of the
 * rest).  Returns 0, or -1 on invalid input.
 */
int			MrfAimSeededRates(double rho, int p, int rounds, double one_share,
							  double seed_share, double select_share,
							  double *rho_one, double *rho_seed_select,
							  double *rho_seed_measure, double *rho_measure,
							  double *rho_select);

/* used + cost rounded up: an upper bound on the exact running total. */
double		MrfAimSpend(double used, double cost);

/*
 * Whether the next round at these rates would leave less than one more
 * such round: AIM's test rho - used < 2 (rho_measure + rho_select).
 */
int			MrfAimIsLastRound(double rho, double used, double rho_measure,
							  double rho_select);

/*
 * The last round's rates: the remainder rem <= rho - used (rounded down),
 * 0.9 rem to the measurement and the rest to the selection, summing to rem
 * exactly.  Returns 0, or -1 when nothing remains.
 */
int			MrfAimLastRates(double rho, double used, double *rho_measure,
							double *rho_select);

/* AIM's annealing: sigma / 2 and epsilon x 2, i.e. both rates x 4. */
void		MrfAimAnneal(double *rho_measure, double *rho_select);

/* Discrete Gaussian variance num/den >= 1 / rho_measure (one table). */
int			MrfAimGaussianVariance(double rho_measure, uint64_t *num, uint64_t *den);

/* Sensitivity of AIM's quality w (||x - xhat||_1 - bias) under replace-one: 2 w. */
double		MrfAimQualitySensitivity(double max_weight);

/* Epsilon of one selection worth rho_select: sqrt(8 rho_select), rounded down. */
double		MrfAimSelectionEpsilon(double rho_select);

/* Multiplier c of argmax(c q + Gumbel): e / (2 * 2 max_weight), rounded down. */
double		MrfAimSelectionScale(double rho_select, double max_weight);
#endif
