/*
 * driver/refusal.c - the validation contract's two ends (driver/refusal.h): a check's
 * refusal, and the one place refusals become errors.
 */
#include "postgres.h"

#include <limits.h>

#include "pg/driver/refusal.h"

/* See driver/refusal.h. */
MrfRefusal *
MrfRefuse(int sqlerrcode, const char *message, const char *detail, const char *hint)
{
	MrfRefusal *refusal = palloc(sizeof(MrfRefusal));

	refusal->sqlerrcode = sqlerrcode;
	refusal->message = message;
	refusal->detail = detail;
	refusal->hint = hint;
	return refusal;
}

/* See driver/refusal.h. */
MrfRefusal *
MrfRefuseProblem(const char *learner, MrfProblem problem)
{
	if (problem == NULL)
		return NULL;
	return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE, psprintf("%s: %s", learner, problem),
					 NULL, NULL);
}

/* See driver/refusal.h. */
MrfRefusal *
MrfRefuseRows(const char *learner, int64 n)
{
	if (n <= INT_MAX)
		return NULL;
	return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
					 psprintf("%s learns from at most %d rows", learner, INT_MAX),
					 NULL, NULL);
}

/* See driver/refusal.h. */
void
MrfRaise(const MrfRefusal *refusal)
{
	ereport(ERROR,
			(errcode(refusal->sqlerrcode),
			 errmsg_internal("%s", refusal->message),
			 refusal->detail ? errdetail_internal("%s", refusal->detail) : 0,
			 refusal->hint ? errhint("%s", refusal->hint) : 0));
	pg_unreachable();
}
