/*
 * cliques.h - learning clique models of known structure from noisy
 * sufficient statistics under epsilon-DP (Bernstein, McKenna, Sun, Sheldon,
 * Hay, Miklau, ICML 2017; privacy.md 8).
 *
 * Model: P(z) proportional to exp(sum_C psi_C(z_C)) over z with z_i in
 * {0..card[i]-1} (per-variable alphabets, bp.h), one log-potential table
 * per clique, prod_{i in C} card[i] cells row-major over the clique's sorted
 * variables (layout in bp.h).  Rows are MrfCode (rows.h), n x p, row-major, z_i <
 * card[i].
 *
 * Pipeline (MrfCliquesLearn does all of it):
 *   1. MrfCliquesCount: the contingency table of every clique;
 *   2. MrfCliquesRelease: the only private step, discrete Laplace noise of
 *      scale Delta1/epsilon on every cell, Delta1 = 2m under replace-one
 *      (privacy.c); epsilon-DP;
 *   3. MrfCliquesFit: post-processing of the noisy tables by naive MLE or by
 *      CGM-EM (the default).
 *
 * Privacy with per-variable alphabets: replace-one changes one row, so in
 * each of the m tables one cell loses 1 and one gains 1, whatever the
 * tables' shapes; Delta1 = 2m and the noise scale do not depend on card
 * (privacy.c, MrfCliquesSensitivity).  The alphabets are public (types or
 * declared domains), never read from the rows.
 *
 * For the PostgreSQL glue: build the set with MrfCliqueSetCheckAlphabets
 * (for a message naming the faulty clique) and MrfCliqueSetBuildAlphabets
 * (or the single-alphabet MrfCliqueSetCheck / MrfCliqueSetBuild, thin
 * wrappers that set card[i] = k), ask MrfCliquesWorkspaceBytes (from the
 * real per-variable table sizes) before learning, then call MrfCliquesLearn
 * once.  Everything below takes the set and reads set->card; nothing else
 * in the API changes with per-variable alphabets.
 */
#ifndef MRF_CLIQUES_H
#define MRF_CLIQUES_H

#include <stddef.h>
#include <stdint.h>

#include "bp.h"
#include "env.h"
#include "noise.h"
#include "problem.h"

typedef enum MrfCliquesMethod
{
	MRF_CLIQUES_CGM = 0,		/* collective graphical model EM (default) */
	MRF_CLIQUES_NAIVE = 1		/* project the noisy tables, then MLE */
} MrfCliquesMethod;

/* What MrfCliqueSetCheck refuses in a clique list (problem.h). */
extern const char MrfCliquesBadP[];	/* p < 1 */
extern const char MrfCliquesBadK[];	/* k (or some card[i]) outside 2..MRF_CODE_CARD_MAX */
extern const char MrfCliquesNoCliques[];	/* m < 1 */
extern const char MrfCliquesEmptyClique[];	/* a clique without variables */
extern const char MrfCliquesOutOfRange[];	/* a variable index outside 0..p-1 */
extern const char MrfCliquesRepeatedVariable[];	/* a variable twice in one clique */
extern const char MrfCliquesDuplicateClique[];	/* the same variable set twice */
extern const char MrfCliquesTableTooLarge[];	/* prod card[i] over C above the cell limit */
extern const char MrfCliquesTotalTooLarge[];	/* all tables together above the limit */

/* Hard ceiling on cells per table (index maps are 32-bit). */
#define MRF_CLIQUES_MAX_TABLE_CELLS ((int64_t) 1 << 30)

/* Largest number of states, prod card[i], for which MrfCliquesKl enumerates. */
#define MRF_CLIQUES_MAX_ENUM_STATES ((int64_t) 1 << 24)

/*
 * Validates m cliques given as var[start[c] .. start[c+1]-1] (any order
 * within a clique): indices in range, no variable twice in a clique, no
 * variable set twice, each table at most max_cells cells and all together at
 * most max_cells (0: MRF_CLIQUES_MAX_TABLE_CELLS).  Returns NULL or the
 * problem; *bad_clique (may be NULL) receives the first offending clique,
 * or -1.
 */
MrfProblem	MrfCliqueSetCheck(int p, int k, int m, const int *start, const int *var,
							  int64_t max_cells, int *bad_clique);

/*
 * The same with per-variable alphabets: variable i takes card[i] values
 * (2..MRF_CODE_CARD_MAX, else MrfCliquesBadK), a clique's table has prod card[i] cells.
 */
MrfProblem	MrfCliqueSetCheckAlphabets(int p, const int *card, int m, const int *start,
									   const int *var, int64_t max_cells, int *bad_clique);

/*
 * Validates, sorts each clique and lays out the tables; MRF_EINVAL if
 * invalid.  Every variable takes k values (card[i] = k).
 */
MrfStatus	MrfCliqueSetBuild(int p, int k, int m, const int *start,
							  const int *var, int64_t max_cells,
							  const MrfEnv *env, MrfCliqueSet **out);

/*
 * The same with per-variable alphabets card[0..p-1], copied into the set
 * (set->card; set->k is their maximum).  With every card[i] = k the set,
 * and everything computed on it, equals MrfCliqueSetBuild's.
 */
MrfStatus	MrfCliqueSetBuildAlphabets(int p, const int *card, int m,
									   const int *start, const int *var,
									   int64_t max_cells, const MrfEnv *env,
									   MrfCliqueSet **out);

/* 1 when every variable has set->k values, else 0. */
int			MrfCliqueSetUniform(const MrfCliqueSet *set);

/* prod card[i] over all p variables (the model's states), or -1 above limit. */
int64_t		MrfCliqueSetStates(const MrfCliqueSet *set, int64_t limit);

void		MrfCliqueSetFree(const MrfEnv *env, MrfCliqueSet *set);

/* Cells of all tables together: the length of every per-clique array here. */
int64_t		MrfCliqueSetCells(const MrfCliqueSet *set);

typedef struct MrfCliquesOptions
{
	double		epsilon;		/* the budget; pure DP */
	MrfCliquesMethod method;
	double		pseudocount;	/* counts added to every cell before an MLE */
	int			em_iterations;	/* cap on EM iterations (CGM) */
	double		em_tolerance;	/* EM stops when no marginal moves more */
	int			em_plain;		/* 1: plain EM; 0 (default): SQUAREM-accelerated */
	int			estep_iterations;	/* cap on NLBP sweeps per E-step */
	double		estep_tolerance;	/* NLBP stops at this residual, times 1/b */
	double		damping;		/* NLBP damping g in (0, 1] */
	double		smoothing;		/* smoothed-Laplace width, in noise scales b */
	int			fit_iterations; /* cap on gradient steps of a loopy-model MLE */
	double		fit_tolerance;	/* gradient size at which that MLE stops */
	double		l2;				/* naive loopy MLE's ridge, in units of b/n */
	MrfBpOptions bp;			/* inference engine */
} MrfCliquesOptions;

/* Fills every field with its default (epsilon = 0 must still be set). */
void		MrfCliquesDefaultOptions(MrfCliquesOptions *opt);

/* What a fit did: the convergence figures go into the model's metadata. */
typedef struct MrfCliquesReport
{
	MrfCliquesMethod method;
	int			exact;			/* inference was exact (junction tree) */
	int			decomposable;	/* the cliques themselves form a junction tree */
	int			em_iterations;	/* CGM: EM iterations run */
	double		em_change;		/* CGM: last max change of a marginal */
	int			converged;		/* CGM: EM met its tolerance; naive: the MLE did */
	int64_t		estep_sweeps;	/* CGM: NLBP sweeps over all E-steps */
	int			estep_capped;	/* CGM: E-steps that hit their cap */
	double		estep_residual; /* CGM: residual of the last E-step */
	int			naive_fallback; /* CGM: the last E-step hit its cap, the naive MLE was released */
	int64_t		fit_steps;		/* gradient steps of loopy-model MLEs */
	int			fit_capped;		/* MLEs that hit their cap */
	int64_t		bp_sweeps;		/* loopy BP sweeps over all inference calls */
	double		sensitivity;	/* Delta1 = 2m */
	uint64_t	noise_num;		/* discrete Laplace scale num/den */
	uint64_t	noise_den;
	double		noise_scale;	/* num/den as a double, for display */
} MrfCliquesReport;

/*
 * Working memory of MrfCliquesLearn beyond the rows and the output (the
 * inference engine and the fit's tables), for a check against a limit.
 */
MrfStatus	MrfCliquesWorkspaceBytes(const MrfCliqueSet *set,
									 const MrfCliquesOptions *opt,
									 const MrfEnv *env, size_t *bytes);

/*
 * counts (set->cells) = contingency table of every clique over n rows;
 * MRF_EINVAL if a value z_i is not below card[i].
 */
MrfStatus	MrfCliquesCount(const MrfCode *rows, int64_t n,
							const MrfCliqueSet *set, int64_t *counts);

/*
 * noisy = counts + discrete Laplace noise of scale 2m/epsilon (rounded up to
 * a rational) on every cell: the epsilon-DP release.  The scale used goes to
 * rep (may be NULL).
 */
MrfStatus	MrfCliquesRelease(const int64_t *counts, const MrfCliqueSet *set,
							  double epsilon, MrfRng *rng, int64_t *noisy,
							  MrfCliquesReport *rep);

/*
 * Post-processing: log-potentials (set->cells) from the noisy tables of n
 * rows, by opt->method, with opt->epsilon giving the noise scale.
 */
MrfStatus	MrfCliquesFit(const int64_t *noisy, int64_t n,
						  const MrfCliqueSet *set, const MrfCliquesOptions *opt,
						  const MrfEnv *env, double *logpot,
						  MrfCliquesReport *rep);

/*
 * Maximum likelihood log-potentials for given clique marginals (set->cells,
 * each table summing to one): closed form on a junction tree, regularised
 * gradient ascent otherwise.  Non-private; the reference fit of the tests.
 */
MrfStatus	MrfCliquesFitMarginals(const double *marg, const MrfCliqueSet *set,
								   const MrfCliquesOptions *opt,
								   const MrfEnv *env, double *logpot,
								   MrfCliquesReport *rep);

/* Count, release, fit: the whole epsilon-DP learner.  noisy may be NULL. */
MrfStatus	MrfCliquesLearn(const MrfCode *rows, int64_t n,
							const MrfCliqueSet *set,
							const MrfCliquesOptions *opt, MrfRng *rng,
							const MrfEnv *env, double *logpot, int64_t *noisy,
							MrfCliquesReport *rep);

/* Clique marginals of a model (see MrfBpMarginals); bp may be NULL. */
MrfStatus	MrfCliquesMarginals(const MrfCliqueSet *set, const double *logpot,
								const MrfBpOptions *bp, const MrfEnv *env,
								double *marg, double *logz);

/*
 * KL(P_a || P_b) in nats by enumerating all prod card[i] states (at most
 * MRF_CLIQUES_MAX_ENUM_STATES); the two models share p and card.
 */
MrfStatus	MrfCliquesKl(const MrfCliqueSet *a, const double *logpot_a,
						 const MrfCliqueSet *b, const double *logpot_b,
						 const MrfEnv *env, double *kl);

/* Unnormalised log-probability sum_C logpot_C(z_C) of one state z. */
double		MrfCliquesScore(const MrfCliqueSet *set, const double *logpot,
							const MrfCode *z);

/* Advances z (p digits base k, the last fastest) to the next state. */
void		MrfCliquesNextState(MrfCode *z, int p, int k);

/* Advances z (digit j base card[j], the last fastest) to the next state. */
void		MrfCliquesNextStateAlphabets(MrfCode *z, int p, const int *card);

#endif
