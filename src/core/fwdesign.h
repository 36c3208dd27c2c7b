/*
 * fwdesign.h - a Frank-Wolfe learner's problem as a part of its rows needs
 * it (distributed Frank-Wolfe, docs/citus_fw.md).
 *
 * Every Frank-Wolfe learner (Ising, Algorithm 2; pairwise k-ary, Algorithm
 * 3; binary t-wise, Algorithm 4) solves one MrfFwProblem whose design
 * matrix X is a function of each row alone and whose labels, allowed
 * coordinates and radius are functions of public values only.  An
 * MrfFwDesign names those public values; the learner's MrfFwDesignOps
 * turn them into the problem's public half (MrfFwShape) and a part's rows
 * into X's columns.  The one-node learners build their problem through the
 * same functions, so a part's score sums (MrfFwDesignPart*) are the terms
 * of the one-node sums and, added over any partition of the rows, give the
 * one-node sums exactly (fw.h, MrfFwPartScores); the coordinator then runs
 * the learner's *LearnParts function with them.
 */
#ifndef MRF_FWDESIGN_H
#define MRF_FWDESIGN_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "fw.h"

typedef enum MrfFwDesignKind
{
	MRF_FW_DESIGN_ISING = 1,	/* packed rows (rows.h); X = [z, 1] */
	MRF_FW_DESIGN_PAIRWISE = 2, /* byte rows (n x p); X one-hot and 1 */
	MRF_FW_DESIGN_TWISE = 3		/* packed rows; X = parities of sets of size < t */
} MrfFwDesignKind;

/* The public values that fix a learner's problem (all but n, T and the budget). */
typedef struct MrfFwDesign
{
	MrfFwDesignKind kind;
	int			p;
	int			k;				/* pairwise: the largest alphabet; 2 otherwise */
	const uint8_t *kv;			/* pairwise: p per-variable alphabets, or NULL (all k) */
	int			order;			/* t-wise: t; 0 otherwise */
	double		radius;			/* R: the L1 radius of every regression */
} MrfFwDesign;

/*
 * The public half of a problem: prob's d, q, x_signed, ypos, yneg, allowed
 * and radius are set (the arrays below, from the env); n, x, xwords,
 * iterations, rho_problem and mechanism are the caller's.
 */
typedef struct MrfFwShape
{
	MrfFwProblem prob;
	int		   *ypos;
	int		   *yneg;
	uint8_t    *allowed;
} MrfFwShape;

/* What each learner plugs in (ising.c, pairwise.c, twise.c). */
typedef struct MrfFwDesignOps
{
	/* Coordinates and problems of a design (public), or -1 when it is invalid. */
	void		(*sizes) (const MrfFwDesign *design, int64_t *d, int64_t *q);
	/* Bytes of one input row. */
	size_t		(*row_bytes) (const MrfFwDesign *design);
	/* Fills the shape's arrays (zeroed memory from env) and its prob's public fields. */
	void		(*shape) (const MrfFwDesign *design, MrfFwShape *shape);
	/*
	 * Writes X's d columns of xwords words for n rows into x (zeroed):
	 * MRF_EINVAL for a value outside its alphabet (saying nothing of which).
	 */
	MrfStatus	(*columns) (const MrfFwDesign *design, const void *rows, int64_t n,
							int64_t xwords, uint64_t *x);
} MrfFwDesignOps;

extern const MrfFwDesignOps MrfIsingFwDesign;
extern const MrfFwDesignOps MrfPairwiseFwDesign;
extern const MrfFwDesignOps MrfTwiseFwDesign;

/*
 * Coordinates *d and problems *q of a valid design (each product d q and
 * size within int): MRF_OK, or MRF_EINVAL.
 */
MrfStatus	MrfFwDesignSizes(const MrfFwDesign *design, int *d, int *q);

/* Bytes of one input row of a valid design. */
size_t		MrfFwDesignRowBytes(const MrfFwDesign *design);

/* Bytes a part of n rows holds (MrfFwDesignPartOpen), SIZE_MAX if invalid. */
size_t		MrfFwDesignPartBytes(const MrfFwDesign *design, int64_t n);

/* The shape of a valid design (MrfFwShapeFree frees it). */
MrfStatus	MrfFwShapeInit(const MrfFwDesign *design, const MrfEnv *env, MrfFwShape *shape);
void		MrfFwShapeFree(const MrfEnv *env, MrfFwShape *shape);

/*
 * X's columns of n rows for design (MrfAlloc'd, d x *xwords words), or
 * NULL with *st set (MRF_ENOMEM, or MRF_EINVAL for a value outside its
 * alphabet).
 */
uint64_t   *MrfFwDesignColumns(const MrfFwDesign *design, const void *rows, int64_t n,
							   const MrfEnv *env, int64_t *xwords, MrfStatus *st);

/*
 * Solves prob (a shape of design, with n, T, budget and mechanism set) from
 * its n rows (X built by the design, freed before returning: MrfFwSolve)
 * or, rows NULL, from the sums scores_fn returns (MrfFwSolveParts); w as
 * MrfFwSolve's.
 */
MrfStatus	MrfFwDesignSolve(const MrfFwDesign *design, MrfFwProblem *prob, const void *rows,
							 MrfFwScoresFn scores_fn, void *arg, MrfRng *rng,
							 const MrfEnv *env, double *w);

/*
 * A part of the rows that keeps its margins between iterations (a worker's
 * cache; fw.h MrfFwPart): the rows are converted once (the design's
 * columns), MrfFwDesignPartAdvance gives iteration t's sums (d x q, t above
 * the part's iteration; sel_j, sel_sign: (t-1) x q), as MrfFwDesignPartScores
 * (Open, Advance, Close) would.  The design is read only by Open.
 */
typedef struct MrfFwDesignPart MrfFwDesignPart;

MrfStatus	MrfFwDesignPartOpen(const MrfFwDesign *design, const void *rows, int64_t n,
								const MrfEnv *env, MrfFwDesignPart **out);
MrfStatus	MrfFwDesignPartAdvance(MrfFwDesignPart *part, int t, const int *sel_j,
								   const int *sel_sign, int64_t *scores);
/* MrfFwDesignPartAdvance with the selections of iterations first .. t-1 only (fw.h MrfFwPartAdvanceFrom). */
MrfStatus	MrfFwDesignPartAdvanceFrom(MrfFwDesignPart *part, int t, int first, const int *sel_j,
									   const int *sel_sign, int64_t *scores);
int			MrfFwDesignPartIteration(const MrfFwDesignPart *part);
void		MrfFwDesignPartClose(MrfFwDesignPart *part);
MrfStatus	MrfFwDesignPartScores(const MrfFwDesign *design, const void *rows, int64_t n, int t,
								  const int *sel_j, const int *sel_sign, const MrfEnv *env,
								  int64_t *scores);

/*
 * The cost model of mrfdp.distributed_frank_wolfe = auto (docs/citus_fw.md
 * section 4): the predicted seconds of a learn of n rows of p variables,
 * T iterations and sums of d x q cells over a table of shards shards on
 * workers nodes, when its rows are gathered to the coordinator and learned
 * there (*gathered) and when each iteration's sums run on the shards
 * (*distributed).  Public values only (n is counted, the rest are options,
 * the type and Citus's metadata); the constants are measured
 * (fwdesign.c).  auto chooses distributed when *distributed <
 * MRF_FW_COST_MARGIN * *gathered.
 */
void		MrfFwCitusCosts(int64_t n, int p, int d, int q, int T, int workers, int shards,
							double *gathered, double *distributed);

/* How much faster the distributed prediction must be for auto to choose it. */
#define MRF_FW_COST_MARGIN 0.8

#endif
