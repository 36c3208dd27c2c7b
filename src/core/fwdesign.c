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
