/*
 * fwdesign.c - the learners' Frank-Wolfe problems as parts of their rows
 * need them (fwdesign.h; docs/citus_fw.md): the dispatch to each learner's
 * MrfFwDesignOps and a part kept between iterations.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "fwdesign.h"
#include "sizes.h"

/* The ops of a design's kind, or NULL. */
static const MrfFwDesignOps *
DesignOps(const MrfFwDesign *design)
{
	if (design == NULL)
		return NULL;
	switch (design->kind)
	{
		case MRF_FW_DESIGN_ISING:
			return &MrfIsingFwDesign;
		case MRF_FW_DESIGN_PAIRWISE:
			return &MrfPairwiseFwDesign;
		case MRF_FW_DESIGN_TWISE:
			return &MrfTwiseFwDesign;
	}
	return NULL;
}

/* See fwdesign.h. */
MrfStatus
MrfFwDesignSizes(const MrfFwDesign *design, int *d, int *q)
{
	const MrfFwDesignOps *ops = DesignOps(design);
	int64_t		d64 = -1;
	int64_t		q64 = -1;

	if (ops == NULL || !isfinite(design->radius) || !(design->radius > 0))
		return MRF_EINVAL;
	ops->sizes(design, &d64, &q64);
	if (d64 < 1 || q64 < 1 || d64 > INT_MAX || q64 > INT_MAX || d64 > INT_MAX / q64)
		return MRF_EINVAL;
	*d = (int) d64;
	*q = (int) q64;
	return MRF_OK;
}

/* See fwdesign.h. */
size_t
MrfFwDesignRowBytes(const MrfFwDesign *design)
{
	return DesignOps(design)->row_bytes(design);
}

/*
 * X's bits, the shape's arrays and the solver's part (mostly one float
 * margin per row and problem): what MrfFwDesignPartOpen allocates.
 */
size_t
MrfFwDesignPartBytes(const MrfFwDesign *design, int64_t n)
{
	int			d;
	int			q;
	size_t		total = 0;

	if (n < 0 || MrfFwDesignSizes(design, &d, &q) != MRF_OK)
		return SIZE_MAX;
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) MrfFwColumnWords(n), (size_t) d),
										 sizeof(uint64_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) q, 2 * sizeof(int)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) d, (size_t) q));
	total = MrfSizeAdd(total, (size_t) design->p);
	total = MrfSizeAdd(total, MrfFwWorkspaceBytes(n, d, q));
	return total;
}

/* See fwdesign.h. */
void
MrfFwShapeFree(const MrfEnv *env, MrfFwShape *shape)
{
	MrfFree(env, shape->allowed);
	MrfFree(env, shape->yneg);
	MrfFree(env, shape->ypos);
	shape->allowed = NULL;
	shape->yneg = NULL;
	shape->ypos = NULL;
}

/* See fwdesign.h. */
MrfStatus
MrfFwShapeInit(const MrfFwDesign *design, const MrfEnv *env, MrfFwShape *shape)
{
	int			d;
	int			q;

	memset(shape, 0, sizeof(*shape));
	if (env == NULL || MrfFwDesignSizes(design, &d, &q) != MRF_OK)
		return MRF_EINVAL;
	shape->ypos = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(int)));
	shape->yneg = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(int)));
	shape->allowed = MrfAlloc(env, MrfSizeMul((size_t) d, (size_t) q));
	if (shape->ypos == NULL || shape->yneg == NULL || shape->allowed == NULL)
	{
		MrfFwShapeFree(env, shape);
		return MRF_ENOMEM;
	}
	DesignOps(design)->shape(design, shape);
	shape->prob.d = d;
	shape->prob.q = q;
	shape->prob.ypos = shape->ypos;
	shape->prob.yneg = shape->yneg;
	shape->prob.allowed = shape->allowed;
	shape->prob.radius = design->radius;
	return MRF_OK;
}

/* See fwdesign.h. */
uint64_t *
MrfFwDesignColumns(const MrfFwDesign *design, const void *rows, int64_t n, const MrfEnv *env,
				   int64_t *xwords, MrfStatus *st)
{
	int			d;
	int			q;
	uint64_t   *x;

	*xwords = MrfFwColumnWords(n);
	if (n < 0 || (n > 0 && rows == NULL) || MrfFwDesignSizes(design, &d, &q) != MRF_OK)
	{
		*st = MRF_EINVAL;
		return NULL;
	}
	/* zeroed: the columns functions write only ones */
	x = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) *xwords, (size_t) d), sizeof(uint64_t)));
	if (x == NULL)
	{
		*st = MRF_ENOMEM;
		return NULL;
	}
	*st = DesignOps(design)->columns(design, rows, n, *xwords, x);
	if (*st != MRF_OK)
	{
		MrfFree(env, x);
		return NULL;
	}
	return x;
}

/* See fwdesign.h. */
MrfStatus
MrfFwDesignSolve(const MrfFwDesign *design, MrfFwProblem *prob, const void *rows,
				 MrfFwScoresFn scores_fn, void *arg, MrfRng *rng, const MrfEnv *env, double *w)
{
	uint64_t   *x;
	int64_t		xwords;
	MrfStatus	st;

	if (rows == NULL)
		return scores_fn != NULL ? MrfFwSolveParts(prob, scores_fn, arg, rng, env, w) : MRF_EINVAL;
	x = MrfFwDesignColumns(design, rows, prob->n, env, &xwords, &st);
	if (x == NULL)
		return st;
	prob->x = x;
	prob->xwords = xwords;
	st = MrfFwSolve(prob, rng, env, w);
	prob->x = NULL;
	MrfFree(env, x);
	return st;
}

/* A part of the rows kept between iterations (fwdesign.h). */
struct MrfFwDesignPart
{
	MrfFwShape	shape;
	uint64_t   *x;
	MrfFwPart  *fw;
	const MrfEnv *env;
};

/* See fwdesign.h. */
void
MrfFwDesignPartClose(MrfFwDesignPart *part)
{
	const MrfEnv *env;

	if (part == NULL)
		return;
	env = part->env;
	MrfFwPartClose(part->fw);
	MrfFree(env, part->x);
	MrfFwShapeFree(env, &part->shape);
	MrfFree(env, part);
}

/* See fwdesign.h. */
MrfStatus
MrfFwDesignPartOpen(const MrfFwDesign *design, const void *rows, int64_t n, const MrfEnv *env,
					MrfFwDesignPart **out)
{
	MrfFwDesignPart *part;
	int64_t		xwords = MrfFwColumnWords(n);
	MrfStatus	st;

	*out = NULL;
	if (env == NULL || n < 0 || n > INT_MAX || (n > 0 && rows == NULL))
		return MRF_EINVAL;
	part = MrfAlloc(env, sizeof(MrfFwDesignPart));
	if (part == NULL)
		return MRF_ENOMEM;
	part->env = env;
	st = MrfFwShapeInit(design, env, &part->shape);
	if (st != MRF_OK)
	{
		MrfFree(env, part);
		return st;
	}
	if (n > 0)
	{
		part->x = MrfFwDesignColumns(design, rows, n, env, &xwords, &st);
		if (part->x == NULL)
		{
			MrfFwDesignPartClose(part);
			return st;
		}
	}
	part->shape.prob.n = n;
	part->shape.prob.x = part->x;
	part->shape.prob.xwords = xwords;
	st = MrfFwPartOpen(&part->shape.prob, env, &part->fw);
	if (st != MRF_OK)
	{
		MrfFwDesignPartClose(part);
		return st;
	}
	*out = part;
	return MRF_OK;
}

/* See fwdesign.h. */
MrfStatus
MrfFwDesignPartAdvance(MrfFwDesignPart *part, int t, const int *sel_j, const int *sel_sign,
					   int64_t *scores)
{
	return MrfFwPartAdvance(part->fw, t, sel_j, sel_sign, scores);
}

/* See fwdesign.h. */
MrfStatus
MrfFwDesignPartAdvanceFrom(MrfFwDesignPart *part, int t, int first, const int *sel_j,
						   const int *sel_sign, int64_t *scores)
{
	return MrfFwPartAdvanceFrom(part->fw, t, first, sel_j, sel_sign, scores);
}

/* See fwdesign.h. */
int
MrfFwDesignPartIteration(const MrfFwDesignPart *part)
{
	return MrfFwPartIteration(part->fw);
}

/* See fwdesign.h. */
MrfStatus
MrfFwDesignPartScores(const MrfFwDesign *design, const void *rows, int64_t n, int t,
					  const int *sel_j, const int *sel_sign, const MrfEnv *env,
					  int64_t *scores)
{
	MrfFwDesignPart *part;
	MrfStatus	st;

	if (t < 1)
		return MRF_EINVAL;
	st = MrfFwDesignPartOpen(design, rows, n, env, &part);
	if (st != MRF_OK)
		return st;
	st = MrfFwDesignPartAdvance(part, t, sel_j, sel_sign, scores);
	MrfFwDesignPartClose(part);
	return st;
}

/*
 * The constants of MrfFwCitusCosts, fitted (least squares of relative
 * errors) to bench/run_citus_fw_bench.sh on the test cluster (a
 * coordinator and two workers, 4 shards, all on one 2-core machine shared
 * with other jobs, load 2.2-2.6, one run each; docs/citus.md has
 * the table): p = 50 at n = 1e4, 3e4, 1e5, 1e6 and p = 100 at 1e4, 3e4,
 * 1e5, 3e5, T = 10 and 40 (an iteration's cost is the difference over 30
 * iterations).  The fit is within 40% of every point (within 25% but at
 * p = 50, n = 1e5); per row the work grows as q here, not d q (the
 * margins, not the integer product, dominate at these p).
 * - FW_COST_GATHER: seconds per row and variable to gather the rows to the
 *   coordinator and read them there (the "off" learn at T = 10 less its
 *   iterations): 4.6e-8;
 * - FW_COST_LOCAL: seconds per row and problem of one iteration on one
 *   node (the local table): 1.07e-9;
 * - FW_COST_ROUND: seconds of one distributed iteration besides its rows
 *   (the query, its subtransaction, Citus's round trips): 1.0 ms;
 * - FW_COST_SUMS: seconds per sum cell and shard of a distributed
 *   iteration (the partial sums travel as text): 2.4e-7 / 4 shards;
 * - FW_COST_SHARD: seconds per row and problem of a distributed iteration
 *   on kept parts, times the workers: 7.8e-10 for this cluster, times 2
 *   (the workers share the coordinator's two cores; on workers with cores
 *   of their own it would be about FW_COST_LOCAL);
 * - FW_COST_FIRST: seconds per row and variable of the counting pass and
 *   the first iteration on the shards, times the workers: 9.3e-9 times 2.
 * Distributed is chosen when predicted below MRF_FW_COST_MARGIN (fwdesign.h)
 * times gathered: the
 * fit is loose (at p = 50, n = 1e5 and the default T it predicts a tie where
 * gathering was 19% faster).
 */
#define FW_COST_GATHER 4.6e-8
#define FW_COST_LOCAL 1.07e-9
#define FW_COST_ROUND 1.0e-3
#define FW_COST_SUMS 6.0e-8
#define FW_COST_SHARD 1.55e-9
#define FW_COST_FIRST 1.87e-8

/* See fwdesign.h. */
void
MrfFwCitusCosts(int64_t n, int p, int d, int q, int T, int workers, int shards,
				double *gathered, double *distributed)
{
	double		rows = (double) n;
	double		w = workers > 0 ? workers : 1;

	*gathered = rows * p * FW_COST_GATHER + (double) T * rows * q * FW_COST_LOCAL;
	*distributed = rows * p * FW_COST_FIRST / w +
		(double) T * (FW_COST_ROUND + (double) d * q * shards * FW_COST_SUMS +
					  rows * q * FW_COST_SHARD / w);
}
