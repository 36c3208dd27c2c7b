/*
 * driver/refusal.h - the validation contract between a learner and the driver:
 * every check returns NULL (accepted) or a refusal, the problem's SQLSTATE
 * and its sentences, and only the driver raises it (MrfRaise, driver/refusal.c):
 * 22023 for an option and its public values, 54000 for a size past a limit.
 * The core's own checks (MrfIsingValidate, MrfPairwiseValidate,
 * MrfTwiseValidate, MrfCliqueSetCheck) follow the same contract one level
 * down (core/problem.h): NULL or a sentence.  A learner's glue turns a
 * sentence it recognises into a refusal with the numbers a user needs, and
 * any other into MrfRefuseProblem's.
 */
#ifndef MRF_PG_REFUSAL_H
#define MRF_PG_REFUSAL_H

#include "postgres.h"

#include "core/problem.h"

typedef struct MrfRefusal
{
	int			sqlerrcode;
	const char *message;		/* errmsg: lower case, no period */
	const char *detail;			/* errdetail (a full sentence) or NULL */
	const char *hint;			/* errhint (a full sentence) or NULL */
} MrfRefusal;

/* A refusal (palloc'd); the texts are kept, not copied. */
MrfRefusal *MrfRefuse(int sqlerrcode, const char *message, const char *detail,
					  const char *hint);

/*
 * The refusal of a core problem no learner says more about: 22023,
 * "<learner>: <the core's sentence>" (NULL for no problem).
 */
MrfRefusal *MrfRefuseProblem(const char *learner, MrfProblem problem);

/*
 * The core learners count rows in int: more than INT_MAX rows is a size
 * past a limit (54000), whatever else the core's check says (NULL if n is
 * within it).
 */
MrfRefusal *MrfRefuseRows(const char *learner, int64 n);

/* Raises a refusal: the one place the driver's checks become errors. */
void		MrfRaise(const MrfRefusal *refusal) pg_attribute_noreturn();

/* Returns the refusal of a check from the enclosing function, if any. */
#define MRF_REFUSE_IF(check) \
	do { \
		MrfRefusal *refusal_ = (check); \
		if (refusal_ != NULL) \
			return refusal_; \
	} while (0)

#endif
