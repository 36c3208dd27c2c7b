/*
 * ising.h - Ising models and the private Ising learner (Zhang et al. 2020,
 * Algorithm 2; privacy.md 4).
 *
 * Model: P(z) proportional to exp(sum_{i<j} A_ij z_i z_j + sum_i theta_i z_i)
 * over z in {-1,+1}^p.  A is stored dense, row-major, p x p, zero diagonal.
 */
#ifndef MRF_ISING_H
#define MRF_ISING_H

#include <stdint.h>

#include "env.h"
#include "fw.h"
#include "noise.h"
#include "privacy.h"
#include "problem.h"

typedef struct MrfIsingOptions
{
	double		rho;			/* total zCDP budget */
	double		lambda;			/* public width bound */
	int			iterations;		/* 0: the default from public values */
	MrfMechanism mechanism;
	int			symmetrize;
} MrfIsingOptions;

/* What MrfIsingValidate refuses (problem.h): one sentence each. */
extern const char MrfIsingBadArgument[];	/* NULL, p < 2, n < 1 or n > INT_MAX, bad mechanism */
extern const char MrfIsingBadBudget[];	/* rho or lambda not finite and positive */
extern const char MrfIsingBadIterations[];	/* fewer than 2 iterations */
extern const char MrfIsingBadScale[];	/* the noise calibration overflows (lambda too large for rho) */

/*
 * Checks options and sizes from public values only: NULL, or the problem
 * (one of the sentences above) that MrfIsingLearn would refuse.
 */
MrfProblem	MrfIsingValidate(const MrfIsingOptions *opt, int p, int64_t n);

/* Iterations the learner will run (resolves the default). */
int			MrfIsingIterations(const MrfIsingOptions *opt, int p, int64_t n);

/* Bytes of working memory MrfIsingLearn needs for n rows of p variables. */
size_t		MrfIsingWorkspaceBytes(int p, int64_t n);

/*
 * The width of a model, max_i (sum_j |A_ij| + |theta_i|): the lambda of
 * Zhang et al. (2020) that the learner's options bound.  Of a released
 * estimate it is post-processing (the metadata's "width").
 */
double		MrfIsingWidth(const double *A, const double *theta, int p);

/*
 * Learns A (p x p) and theta (p) from n packed rows (see rows.h) under
 * opt->rho zCDP.
 */
MrfStatus	MrfIsingLearn(const uint64_t *bits, int64_t n, int p,
						  const MrfIsingOptions *opt, MrfRng *rng,
						  const MrfEnv *env, double *A, double *theta);

/*
 * Distributed learning (docs/citus_fw.md): MrfIsingLearn with the
 * Frank-Wolfe score sums of each iteration from scores_fn (fw.h,
 * MrfFwSolveParts) instead of rows; when scores_fn adds the parts' sums
 * (fwdesign.h, MrfFwDesignPartScores of MrfIsingFwDesignOf's design) over a
 * partition of the n rows, A and theta and the random draws are
 * MrfIsingLearn's on those rows, bit for bit.
 */
MrfStatus	MrfIsingLearnParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
							   const MrfIsingOptions *opt, MrfRng *rng,
							   const MrfEnv *env, double *A, double *theta);

/* The design (fwdesign.h) of the learner's problem for p variables and lambda. */
struct MrfFwDesign;
void		MrfIsingFwDesignOf(int p, double lambda, struct MrfFwDesign *design);

#endif
