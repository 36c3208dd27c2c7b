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

/* Bytes of working memory MrfFwSolve needs beyond its inputs and output. */
size_t		MrfFwWorkspaceBytes(int64_t n, int d, int q);

/*
 * Runs T-1 private selections for every problem; writes w_T of problem q to
 * w[q * d .. q * d + d - 1].  Polls env once per iteration.
 */
MrfStatus	MrfFwSolve(const MrfFwProblem *prob, MrfRng *rng, const MrfEnv *env,
					   double *w);

#endif
