/*
 * fw.h - private Frank-Wolfe (Zhang et al. 2020, Algorithm 1, in the rigorous
 * form of SPEC.md 4.1) for many L1-constrained logistic regressions that share
 * one design matrix, advanced together.
 *
 * Problem q minimises sum_m log(1 + exp(-y_mq <w_q, x_m>)) over
 * ||w_q||_1 <= radius, with vertices +-radius e_j for the allowed coordinates
 * j.  Rows with y_mq = 0 take no part in problem q.  Every iteration computes
 * all gradients with one matrix product X^T G (BLAS) and selects one vertex
 * per problem with a private mechanism.
 */
#ifndef MRF_FW_H
#define MRF_FW_H

#include <stdint.h>

#include "env.h"
#include "noise.h"
#include "privacy.h"

typedef struct MrfFwProblem
{
	int64_t		n;				/* rows (public) */
	int			d;				/* coordinates */
	int			q;				/* problems */
	const float *x;				/* n x d, column-major (ld n), entries in {-1,0,1} */
	const float *y;				/* n x q, column-major (ld ldy), entries in {-1,0,1} */
	int64_t		ldy;
	const uint8_t *allowed;		/* d x q, column-major: 1 if e_j is a vertex of q */
	double		radius;			/* R: the L1 radius */
	int			iterations;		/* T >= 2: T-1 private selections */
	double		rho_problem;	/* zCDP budget of each problem */
	MrfMechanism mechanism;
} MrfFwProblem;

/*
 * Gradient weights are quantised to integers of magnitude at most
 * MRF_FW_QUANTUM (2^11) so that every BLAS partial sum is an exact float
 * integer; a score in loss units is radius * S / MRF_FW_QUANTUM, where S is
 * the integer sum computed by MrfFwScores.
 */
#define MRF_FW_QUANTUM 2048

/*
 * The quantised gradient weight of one row of one problem at margin a = <w,x>:
 * round(2^11 * y * sigmoid(-y a)) up to the rational tanh (error below 1), in
 * [-2^11, 2^11]; 0 when y = 0.  Exposed for tests.
 */
int			MrfFwQuantizedWeight(float y, float margin);

/*
 * Integer score sums S[j + k d] = sum_m MrfFwQuantizedWeight(y_mk, a_mk) x_mj
 * for margins a (n x q, column-major, ld ldm), computed exactly as MrfFwSolve
 * does (chunked sgemm).  Exposed for tests.
 */
MrfStatus	MrfFwScores(const MrfFwProblem *prob, const float *margins,
						int64_t ldm, const MrfEnv *env, double *scores);

/*
 * Whether MrfFwSolve can calibrate a problem with these public parameters
 * (every noise scale finite): MRF_OK, or MRF_EINVAL as MrfFwSolve would
 * return.  Learners check it before reading any data.
 */
MrfStatus	MrfFwCheckCalibration(double radius, double rho_problem, int iterations,
								  MrfMechanism mechanism);

/* Bytes of working memory MrfFwSolve needs beyond its inputs and output. */
size_t		MrfFwWorkspaceBytes(int64_t n, int d, int q);

/*
 * Runs T-1 private selections for every problem; writes w_T of problem q to
 * w[q * d .. q * d + d - 1].  Polls env once per block of rows and once per
 * iteration.  Preconditions (checked, MRF_EINVAL otherwise): x and y entries
 * in {-1, 0, 1}; every problem has an allowed coordinate; n <= INT_MAX
 * (BLAS leading dimension); ldy >= n; radius, rho_problem finite and > 0;
 * T >= 2.
 */
MrfStatus	MrfFwSolve(const MrfFwProblem *prob, MrfRng *rng, const MrfEnv *env,
					   double *w);

#endif
