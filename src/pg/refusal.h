/*
 * refusal.h - the validation contract between a learner and the driver:
 * every check returns NULL (accepted) or a refusal, the problem's SQLSTATE
 * and its sentences, and only the driver raises it (MrfRaise, plan.c): 22023
 * for an option and its public values, 54000 for a size past a limit.  The
 * core's own checks (MrfIsingValidate, MrfPairwiseValidate,
 * MrfTwiseValidate, MrfCliqueSetCheck) return a code, which the learner's
 * glue turns into a refusal with the numbers a user needs.
 */
#ifndef MRF_PG_REFUSAL_H
#define MRF_PG_REFUSAL_H

#include "postgres.h"

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
