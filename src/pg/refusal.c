/*
 * refusal.c - the validation contract's two ends (refusal.h): a check's
 * refusal, and the one place refusals become errors.
 */
#include "postgres.h"

#include "pg/refusal.h"

/* See refusal.h. */
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

/* See refusal.h. */
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
