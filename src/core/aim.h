/*
 * aim.h - AIM (McKenna, Mullins, Sheldon, Miklau, "AIM: An Adaptive and
 * Iterative Mechanism for Differentially Private Synthetic Data", VLDB
 * 2022, Alg. 2), built from the select-measure-estimate pieces it shares
 * with MST (estimate.h):
 *
 *   - candidates: the downward closure of a workload of marginals (variable
 *     sets), each weighted by w_r = sum over workload marginals s of
 *     |r & s|; the default workload is every pair plus the triples that
 *     hold two "strong" pairs, a pair being strong once a selected marginal
 *     contains it (so the triples come from the mechanism's own outputs);
 *   - initialisation: every one-way marginal measured (discrete Gaussian);
 *   - rounds: the exponential mechanism picks the candidate with the worst
 *     weighted L1 error against the current estimate, less the expected
 *     error of its measurement, among those whose addition keeps the
 *     model's junction tree within a size that grows with the budget spent;
 *     the pick is measured, the model re-estimated (warm-started mirror
 *     descent, MrfEstimate); sigma halves and epsilon doubles when the
 *     measurement moved the estimate less than its noise (annealing); the
 *     last round spends exactly what remains;
 *   - each round's candidates are scored on the learner's threads
 *     (workers.h), each candidate's score the same on any thread, so the
 *     releases do not depend on the thread count;
 *   - a final estimate with more steps.
 *
 * Rows are MrfCode (rows.h), n x p, row-major, z_i < card[i] (2..MRF_CODE_CARD_MAX, public).
 * Privacy: privacy.md 13; rates in privacy.c (MrfAim*).  Plain C.
 */
#ifndef MRF_AIM_H
#define MRF_AIM_H

#include <stddef.h>
#include <stdint.h>

#include "bp.h"
#include "env.h"
#include "estimate.h"
#include "noise.h"

/* Most variables of one workload marginal (a measurement's limit). */
#define MRF_AIM_MAX_MARGINAL_VARS MRF_MEASURE_MAX_VARS

/* Most marginals of a workload. */
#define MRF_AIM_MAX_WORKLOAD 10000

/*
 * The budget schedules.  SEEDED: the one-ways, then MST's
 * tree over the workload's pairs (its private selection and its pairs
 * measured: the seed), then the rounds spend the rest, the estimator
 * using every measurement; shares in MrfAimSeedShares (privacy.c) unless
 * given.  PAPER: [MMSM22] Alg. 2, the one-ways then the rounds
 * (one_way_share 0: 0.9 p / T).  The seed's tree keeps the model within
 * max_model_cells (a forest then); the seeded schedule runs as PAPER when
 * the workload has no pair (public).  AUTO (the default): PAPER on rich
 * tables, SEEDED on the others, by a signal of public sizes (n, p, rho:
 * privacy.c MrfAimAutoPaper); SEEDED when PAPER cannot spend the rounds
 * given (T <= 0.9 p without a one-way share).
 */
#define MRF_AIM_SCHEDULE_AUTO 0
#define MRF_AIM_SCHEDULE_PAPER 1
#define MRF_AIM_SCHEDULE_SEEDED 2

typedef struct MrfAimOptions
{
	double		rho;			/* the whole budget, zCDP */
	int			rounds;			/* T; 0: MrfAimRounds(p) */
	int			schedule;		/* MRF_AIM_SCHEDULE_*: how rho is spread */
	int64_t		n;				/* AUTO: the rows (public); MrfAimLearn* set it, 0: not yet known */
	double		one_way_share;	/* of rho, the one-ways together; 0: the schedule's */
	double		seed_share;		/* seeded: of rho, the seed's tree together; 0: the default */
	double		seed_select_share;	/* seeded: of the seed's share, its selections'
									 * part (the rest measures); 0: the default */
	int64_t		max_model_cells;	/* cap on the junction tree's cells */
	int64_t		max_candidate_cells;	/* cap on the candidates' exact tables */
	int			round_iterations;	/* estimator steps after each round */
	double		round_stop_fraction;	/* adaptive steps (MrfEstimateOptions.stop_fraction); 0: all */
	int			reference_scoring;	/* tests: each uncovered candidate scored by
									 * building the model with it (the slow
									 * reference of the local elimination) */
	int			reference_fit;	/* tests: whether a candidate fits decided on
								 * the whole model, not by components */
	int			threads;		/* candidate scoring threads; 0: MrfFwThreads() */
	size_t		thread_arena_bytes;	/* tests: each scoring thread's arena; 0: planned */
	int			score_digest;	/* tests: fill MrfAimReport.score_digest */
	MrfEstimateOptions estimate;	/* the final estimate (and its engine) */
	/* the workload: nworkload marginals wvar[wstart[w] .. wstart[w+1]-1]; 0: default */
	int			nworkload;
	const int  *wstart;
	const int  *wvar;
} MrfAimOptions;

void		MrfAimDefaultOptions(MrfAimOptions *opt);

/*
 * A release's budget plan, from public values only (p, the options, the
 * workload): T, whether the seed runs, the shares used (given or the
 * schedule's) and every first rate (privacy.c: MrfAimSeedShares and
 * MrfAimSeededRates, or MrfAimRates for [MMSM22]'s schedule and when the
 * workload has no pair).  0, or -1 when the options cannot be spent
 * within rho.
 */
typedef struct MrfAimBudgetPlan
{
	int			rounds;			/* T */
	int			schedule;		/* the schedule run: MRF_AIM_SCHEDULE_PAPER or _SEEDED */
	int			seeded;			/* the seed runs */
	double		one_way_share;	/* the one-ways' share of rho */
	double		seed_share;		/* the seed's (0 without one) */
	double		seed_select_share;	/* of the seed's, its selections' (0 without one) */
	double		rho_one;		/* each one-way */
	double		rho_seed_select;	/* the seed's selections together */
	double		rho_seed_measure;	/* the seed's tables together */
	double		rho_measure;	/* the rounds' first rates */
	double		rho_select;
} MrfAimBudgetPlan;

int			MrfAimBudget(int p, const MrfAimOptions *opt, MrfAimBudgetPlan *b);

/* What a release did, for the model's metadata. */
typedef struct MrfAimReport
{
	int			rounds;			/* selections made */
	int			annealed;		/* rounds after which sigma halved */
	int			max_rounds;		/* T */
	int			schedule;		/* the schedule run (MrfAimBudgetPlan's) */
	double		one_way_share;	/* the shares used, given or the schedule's */
	double		seed_share;
	double		seed_select_share;
	int64_t		steps;			/* estimator steps, every round's and the final's */
	int			candidates;		/* candidates at the end */
	int			triples;		/* default workload: triples added */
	int			triples_skipped;	/* default workload: over max_candidate_cells */
	double		rho_one_way;	/* spent on the one-way marginals */
	int			seed_pairs;		/* seeded schedule: the seed's pairs measured */
	int			seed_selections;	/* the seed's exponential mechanisms run */
	double		rho_seed;		/* spent on the seed (selections and measurements) */
	double		sigma2_seed;	/* the seed's tables' variance */
	double		rho_used;		/* upper bound of the exact total spent */
	double		sigma2_first;	/* discrete Gaussian variances, first and last */
	double		sigma2_last;
	double		epsilon_first;	/* selection epsilons, first and last round */
	double		epsilon_last;
	int64_t		model_cells;	/* cells of the released cliques' tables */
	int			compressed;		/* variables whose rare values were merged */
	int			rare_values;	/* values merged over all variables */
	int64_t		tree_cells;		/* cells of their junction tree */
	int64_t		scored_on_host; /* candidates a scoring thread left to the caller's */
	uint64_t	score_digest;	/* with MrfAimOptions.score_digest: FNV-1a of
								 * every round's scores in candidate order */
	MrfEstimateReport estimate; /* the final estimate */
} MrfAimReport;

/*
 * Checks a workload: 1..MRF_AIM_MAX_WORKLOAD marginals, each of 1..MRF_AIM_MAX_MARGINAL_VARS
 * distinct variables in 0..p-1 (any order), no variable set twice.  0, or
 * the 0-based index of the first bad marginal plus one, with *why set to
 * 1 (size), 2 (a variable out of range or repeated), 3 (a duplicate of an
 * earlier marginal).
 */
int			MrfAimWorkloadCheck(int p, int nworkload, const int *wstart,
								const int *wvar, int *why);

/*
 * Candidates of a workload (the downward closure of its marginals; the
 * default's pairs and one-ways when nworkload is 0) and the cells of their
 * tables together, or -1 above limit.
 */
int64_t		MrfAimClosureCells(int p, const int *card, int nworkload,
							   const int *wstart, const int *wvar, int64_t limit,
							   int *ncandidates);

/* Bytes MrfAimLearn allocates beyond the rows and its outputs, at most. */
double		MrfAimWorkspaceBytes(int p, const int *card, const MrfAimOptions *opt);

/*
 * What a release would be, from public sizes only (p, the alphabets, the
 * options; no row): MrfAimPlan for mrf_learn_aim_plan.  The time is a
 * rough model fitted on bench/bench_aim_width (user CPU seconds on this
 * project's 2-core machine): a round costs about 1.2 us per candidate per
 * variable (the fit test and the marginal of each candidate) plus 80 ns
 * per estimator step and junction-tree cell, at a tree of model_cells
 * (32 cells a variable, what tree-shaped tables of 16 to 96 columns grew
 * to, at most the cap).  Annealing ends most runs well before max_rounds
 * (37, 62 and 128 rounds of 256, 768 and 1,536 at 16, 48 and 96 columns,
 * rho 1), so seconds_max is an upper bound at the modelled tree size.
 * The scoring share is divided among the options' scoring threads
 * (opt->threads, else the learner's setting), each past the first counted
 * as half a core; the estimator's share is not: with threads the seconds
 * are wall time on an otherwise idle machine of that many cores.
 */
typedef struct MrfAimPlanReport
{
	int			max_rounds;		/* T: rounds at the initial rates */
	int			candidates;		/* the workload's closure (default: one-ways and pairs) */
	int64_t		candidate_cells;	/* their exact tables' cells (-1 above the cap) */
	double		rho_one_way;	/* spent on the one-way marginals */
	int			schedule;		/* the schedule run: MRF_AIM_SCHEDULE_PAPER or _SEEDED */
	int			seeded;			/* the seeded schedule's seed runs */
	double		one_way_share;	/* the one-ways' share of rho */
	double		seed_share;		/* the seed's (0 without one) */
	double		seed_select_share;	/* of the seed's, its selections' */
	double		rho_seed;		/* spent on the seed */
	double		sigma2_first;	/* the first rounds' noise variance */
	double		epsilon_first;	/* the first rounds' selection epsilon */
	int64_t		model_cells;	/* the modelled junction tree */
	int			threads;		/* the scoring threads the time counts on */
	double		seconds_per_round;
	double		seconds_max;	/* max_rounds rounds and the final estimate */
} MrfAimPlanReport;

MrfStatus	MrfAimPlan(int p, const int *card, const MrfAimOptions *opt, MrfAimPlanReport *out);

/*
 * AIM's quality of a candidate ([MMSM22] Alg. 2 line 12): weight times the
 * L1 distance between its exact table x and the estimate's table est (n
 * times the model's marginal), less the expected L1 norm of its noise,
 * sqrt(2/pi) sigma cells.
 */
double		MrfAimQuality(const int64_t *x, const double *est, int64_t cells,
						  double weight, double sigma);

/*
 * One selection: the exponential mechanism at epsilon sqrt(8 rho_select)
 * over the eligible candidates (eligible may be NULL: all), sensitivity 2
 * max weight over them (MrfAimSelectionScale).  -1 if none is eligible.
 */
int			MrfAimSelect(const double *quality, const double *weight,
						 const uint8_t *eligible, int count, double rho_select,
						 MrfRng *rng);

/*
 * The whole rho-zCDP learner (p >= 2, n >= 1, each marginal of the workload
 * sorted).  *set_out: the model's cliques (the maximal measured marginals,
 * and a one-way clique for each variable no larger one holds), *logpot_out
 * its log-potentials (set->cells), both allocated through env.
 */
MrfStatus	MrfAimLearn(const MrfCode *rows, int64_t n, int p, const int *card,
						const MrfAimOptions *opt, MrfRng *rng, const MrfEnv *env,
						MrfCliqueSet **set_out, double **logpot_out,
						MrfAimReport *rep);

/*
 * The exact tables AIM may read, counted where the rows are (a Citus
 * worker's counts state) so that only tables travel: every one-way table,
 * then, for a given workload, every subset of two or more variables of its
 * marginals (each once, in the order first met), or, for the default
 * workload, every pair and every triple (the default adds triples chosen
 * by the mechanism's own outputs, so any triple may be read).  Each table
 * is row-major over its sorted variables, as MrfAimLearn counts them.
 */
typedef struct MrfAimTables
{
	int			nsets;
	int		   *start;			/* nsets + 1: set s is vars[start[s] .. start[s+1]-1] */
	int		   *vars;
	int64_t    *offset;			/* nsets + 1: set s's cells counts[offset[s] ..] */
	int32_t    *hash;			/* open addressing over the sets, -1 empty */
	int			hashsize;
} MrfAimTables;

/*
 * Plans the tables of a workload (nworkload 0: the default) into *out.
 * Returns their cells, -1 when they pass max_sets tables or max_cells
 * cells (nothing allocated then), -2 out of memory.
 */
int64_t		MrfAimTablesPlan(int p, const int *card, int nworkload, const int *wstart,
							 const int *wvar, int64_t max_sets, int64_t max_cells,
							 const MrfEnv *env, MrfAimTables *out);

void		MrfAimTablesFree(const MrfEnv *env, MrfAimTables *t);

/* Adds the tables of n rows (values below card) into counts. */
void		MrfAimTablesCount(const MrfAimTables *t, const MrfCode *rows, int64_t n, int p,
							  const int *card, int64_t *counts);

/*
 * MrfAimLearn from the tables t of n rows (counts: t's cells) instead of
 * the rows: the same candidates, draws and model, bit for bit.
 */
MrfStatus	MrfAimLearnTables(const MrfAimTables *t, const int64_t *counts, int64_t n, int p,
							  const int *card, const MrfAimOptions *opt, MrfRng *rng,
							  const MrfEnv *env, MrfCliqueSet **set_out, double **logpot_out,
							  MrfAimReport *rep);

#endif
