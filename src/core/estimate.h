/*
 * estimate.h - the pieces of the select-measure-estimate family (MST, AIM)
 * that are not one learner's own:
 *
 *   - measuring: a list of integer tables plus independent discrete Gaussian
 *     noise (MrfMeasureGaussian), calibrated in privacy.c;
 *   - selecting: the exponential mechanism by Gumbel-max over eligible
 *     candidates (MrfExponentialSelect), calibrated in privacy.c;
 *   - estimating: the model that best explains a list of noisy measurements
 *     (Gaussian likelihood, maximum likelihood over the marginal polytope)
 *     by Private-PGM's entropic mirror descent over a clique set
 *     (MrfEstimate), exact on a junction tree; and the projection of one
 *     noisy one-way table (MrfProjectOneWay).
 *
 * Tables are row-major over ascending variables, the first the most
 * significant digit, each in its own base (bp.h's layout).  Plain C: no
 * PostgreSQL headers.
 */
#ifndef MRF_ESTIMATE_H
#define MRF_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "bp.h"
#include "env.h"
#include "noise.h"

/* ---- measure, select ---- */

/*
 * y[c] = x[c] + N_Z(0, num/den) for c < cells, independent draws of the
 * discrete Gaussian (noise.c; num/den from privacy.c).  MRF_EINVAL when the
 * variance is outside the sampler's range.
 */
MrfStatus	MrfMeasureGaussian(const int64_t *x, int64_t cells, uint64_t num,
							   uint64_t den, MrfRng *rng, double *y);

/*
 * The exponential mechanism over candidates 0..count-1 with eligible[c]
 * nonzero (eligible may be NULL: all): argmax of scale * score[c] + Gumbel,
 * which draws c with probability proportional to exp(scale * score[c])
 * (scale from privacy.c, e.g. MrfMstSelectionScale).  -1 if none is
 * eligible or the scale is not finite and positive.
 */
int			MrfExponentialSelect(const double *score, const uint8_t *eligible,
								 int count, double scale, MrfRng *rng);

/*
 * MST's domain compression (McKenna et al. 2021, Sec. 4, "compress_domain"),
 * which AIM shares: values of variable i whose noisy one-way count (y1 +
 * oneoff[i], card[i] cells, each of noise sigma) is below 3 sigma are
 * merged into one value (the last code), kept values keep their order; a
 * variable with no value above the threshold keeps its largest noisy value,
 * so every compressed alphabet has at least 2 codes.  Reads the noisy
 * counts only: post-processing (privacy.md 12, 13).  Fills map (original
 * value -> code, at oneoff[i]), ccard and rare (how many values were
 * merged; 0 when none).
 */
void		MrfCompressRare(int p, const int *card, const int *oneoff, const double *y1,
							double sigma, int *map, int *ccard, int *rare);

/* ---- estimate from noisy measurements ---- */

/*
 * A noisy marginal: the table over vars (sorted, a subset of clique
 * `clique` of the estimator's set), cells prod card over vars; y its noisy
 * values; precision[c] = 1 / variance of cell c (NULL: 1 / sigma2 for
 * every cell).
 */
#define MRF_MEASURE_MAX_VARS 8
typedef struct MrfMeasurement
{
	int			clique;
	int			size;
	int			vars[MRF_MEASURE_MAX_VARS];
	const double *y;
	const double *precision;
	double		sigma2;
} MrfMeasurement;

/*
 * Most mirror-descent steps a caller may ask of MST's and AIM's final
 * estimate (option iterations, whose range is 1 to this: MrfMstLearn and
 * MrfAimLearn refuse others; a step costs a pass over the model's cells).
 */
#define MRF_ESTIMATE_MAX_ITERATIONS 100000

typedef struct MrfEstimateOptions
{
	int			iterations;		/* mirror-descent steps (default 1000) */
	int			warm_start;		/* start from the logpot passed in (AIM's rounds), not 0 */
	/*
	 * Adaptive steps (AIM's rounds; 0: off, every step taken): with
	 * prior_loss the loss the warm start had before the newest measurement
	 * (so loss_start - prior_loss is the change that measurement made),
	 * stop once a step lowers the loss by less than stop_fraction of that
	 * change (a change below 1, half a unit-variance cell's squared error,
	 * counts as 1).
	 */
	double		stop_fraction;
	double		prior_loss;
	/*
	 * Progress: with progress_total > 0 step t polls (progress_base + t,
	 * progress_total), a caller's figure; else (t, iterations).
	 */
	int64_t		progress_base;
	int64_t		progress_total;
	MrfBpOptions bp;			/* inference engine (exact on a junction tree) */
} MrfEstimateOptions;

void		MrfEstimateDefaultOptions(MrfEstimateOptions *opt);

typedef struct MrfEstimateReport
{
	int			iterations;		/* steps taken */
	double		loss_start;		/* 0.5 sum precision (x - y)^2 at the start */
	double		loss;			/* and at the end */
	int64_t		evaluations;	/* marginal inferences (line search included) */
	int			exact;			/* inference was exact */
} MrfEstimateReport;

/*
 * Post-processing: log-potentials (set->cells) of the model whose clique
 * marginals, scaled to n rows, minimise 0.5 sum over measurements and cells
 * of precision (x - y)^2, where x is the model's marginal over the
 * measurement's variables (Private-PGM's L2 loss, i.e. the Gaussian
 * likelihood).  Entropic mirror descent on the log-potentials with an
 * Armijo line search (McKenna, Sheldon, Miklau ICML 2019, Alg. 1), from the
 * uniform model (or, with opt->warm_start, from the log-potentials in logpot).  card[i] (p entries) gives the alphabets; the set must use
 * the same (set->card when it has one).
 */
MrfStatus	MrfEstimate(const MrfCliqueSet *set, const int *card,
						const MrfMeasurement *meas, int nmeas, int64_t n,
						const MrfEstimateOptions *opt, const MrfEnv *env,
						double *logpot, MrfEstimateReport *rep);

/*
 * The weighted projection of one noisy one-way table onto {m >= 0, sum m =
 * n}: minimises sum precision[a] (m[a] - y[a])^2 (the maximum-likelihood
 * one-way estimate of an independent variable); out gets m / n.
 */
void		MrfProjectOneWay(const double *y, const double *precision, int cells,
							 int64_t n, double *out);

#endif
