/*
 * sqlapi/conversions.c - SQL functions converting between privacy notions.  The
 * arithmetic and its sources live in src/core/privacy.c.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/builtins.h"

#include "core/privacy.h"

typedef enum ConversionMethod
{
	CONVERT_TIGHT,
	CONVERT_BS16
} ConversionMethod;

/* Parses the method argument. */
static ConversionMethod
ParseMethod(text *method)
{
	char	   *m = text_to_cstring(method);

	if (strcmp(m, "tight") == 0)
		return CONVERT_TIGHT;
	if (strcmp(m, "bs16") == 0)
		return CONVERT_BS16;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown conversion method \"%s\"", m),
			 errhint("Use 'tight' (Canonne-Kamath-Steinke 2020) or 'bs16' (Bun-Steinke 2016).")));
}

/* Errors unless value is finite and strictly positive. */
static void
RequirePositive(const char *name, double value)
{
	if (!(value > 0) || isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a finite number greater than zero", name)));
}

/* Errors unless delta lies strictly between 0 and 1. */
static void
RequireDelta(double delta)
{
	if (!(delta > 0 && delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must lie strictly between 0 and 1")));
}

/*
 * Returns a conversion's result, or errors where none exists: the core
 * gives NaN when no finite double answers (an amount that underflows to
 * zero, or overflows), which is never returned as a number.
 */
static double
RequireResult(double result, const char *what, const char *hint)
{
	if (isnan(result))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no %s exists for these arguments", what),
				 errdetail("The exact value is zero or beyond the largest double precision number."),
				 errhint("%s", hint)));
	return result;
}

PG_FUNCTION_INFO_V1(mrf_zcdp_to_dp);
/* rho-zCDP to the epsilon of (epsilon, delta)-DP. */
Datum
mrf_zcdp_to_dp(PG_FUNCTION_ARGS)
{
	double		rho = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	ConversionMethod method = ParseMethod(PG_GETARG_TEXT_PP(2));

	RequirePositive("rho", rho);
	RequireDelta(delta);
	PG_RETURN_FLOAT8(RequireResult(method == CONVERT_TIGHT ? MrfZcdpToDpTight(rho, delta)
								   : MrfZcdpToDpBs16(rho, delta),
								   "epsilon", "Use a smaller rho."));
}

PG_FUNCTION_INFO_V1(mrf_dp_to_zcdp);
/* Pure epsilon-DP to rho-zCDP. */
Datum
mrf_dp_to_zcdp(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);

	RequirePositive("epsilon", epsilon);
	PG_RETURN_FLOAT8(RequireResult(MrfDpToZcdp(epsilon), "rho",
								   "epsilon must lie between about 1.5e-162 and 1.9e154."));
}

PG_FUNCTION_INFO_V1(mrf_zcdp_for_dp);
/* The largest rho whose conversion at delta is at most epsilon. */
Datum
mrf_zcdp_for_dp(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	ConversionMethod method = ParseMethod(PG_GETARG_TEXT_PP(2));
	double		rho;

	RequirePositive("epsilon", epsilon);
	RequireDelta(delta);
	if (method == CONVERT_TIGHT)
		rho = MrfZcdpForDp(epsilon, delta);
	else
		rho = MrfZcdpForDpBs16(epsilon, delta);
	PG_RETURN_FLOAT8(RequireResult(rho, "rho",
								   "The rho that epsilon allows at this delta underflows to zero: use a larger epsilon or delta."));
}
