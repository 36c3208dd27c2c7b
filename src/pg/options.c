/*
 * options.c - mrf_options() and the validation of learner options.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "pg/options.h"

typedef enum OptionType
{
	OPT_POSITIVE,				/* finite float8 > 0 */
	OPT_PROBABILITY,			/* float8 in (0, 1) */
	OPT_ITERATIONS,				/* integer >= 2 */
	OPT_MECHANISM,				/* 'exponential' | 'laplace' */
	OPT_BOOLEAN
} OptionType;

typedef struct OptionSpec
{
	const char *name;
	uint32		bit;
	OptionType	type;
} OptionSpec;

/* The order is mrf_options()'s parameter order. */
static const OptionSpec OptionSpecs[] = {
	{"rho", MRF_OPT_RHO, OPT_POSITIVE},
	{"epsilon", MRF_OPT_EPSILON, OPT_POSITIVE},
	{"delta", MRF_OPT_DELTA, OPT_PROBABILITY},
	{"lambda", MRF_OPT_LAMBDA, OPT_POSITIVE},
	{"iterations", MRF_OPT_ITERATIONS, OPT_ITERATIONS},
	{"mechanism", MRF_OPT_MECHANISM, OPT_MECHANISM},
	{"symmetrize", MRF_OPT_SYMMETRIZE, OPT_BOOLEAN},
};

#define NUM_OPTIONS lengthof(OptionSpecs)

/* Largest iteration count a caller may ask for. */
#define MRF_MAX_ITERATIONS 1000000

/* Name of a mechanism as users write it. */
const char *
MrfMechanismName(MrfMechanism mech)
{
	return mech == MRF_MECH_LAPLACE ? "laplace" : "exponential";
}

/* Raises the error for a bad option value. */
static void
pg_attribute_noreturn()
BadOption(const char *name, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\"", name),
			 errdetail("%s", detail)));
}

/* Reads a numeric JSON value as float8. */
static double
JsonNumber(const OptionSpec *spec, JsonbValue *v)
{
	if (v->type != jbvNumeric)
		BadOption(spec->name, "The value must be a number.");
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

/* Validates one option value and stores it. */
static void
StoreOption(const OptionSpec *spec, JsonbValue *v, MrfOptions *opt)
{
	double		d;

	switch (spec->type)
	{
		case OPT_POSITIVE:
			d = JsonNumber(spec, v);
			if (!(d > 0) || isinf(d))
				BadOption(spec->name, "The value must be a finite number greater than zero.");
			if (spec->bit == MRF_OPT_RHO)
				opt->rho = d;
			else if (spec->bit == MRF_OPT_EPSILON)
				opt->epsilon = d;
			else
				opt->lambda = d;
			break;
		case OPT_PROBABILITY:
			d = JsonNumber(spec, v);
			if (!(d > 0 && d < 1))
				BadOption(spec->name, "The value must lie strictly between 0 and 1.");
			opt->delta = d;
			break;
		case OPT_ITERATIONS:
			d = JsonNumber(spec, v);
			if (d != floor(d) || d < 2 || d > MRF_MAX_ITERATIONS)
				BadOption(spec->name, psprintf("The value must be an integer from 2 to %d.", MRF_MAX_ITERATIONS));
			opt->iterations = (int) d;
			break;
		case OPT_MECHANISM:
			if (v->type != jbvString)
				BadOption(spec->name, "The value must be 'exponential' or 'laplace'.");
			if (v->val.string.len == 11 && strncmp(v->val.string.val, "exponential", 11) == 0)
				opt->mechanism = MRF_MECH_EXPONENTIAL;
			else if (v->val.string.len == 7 && strncmp(v->val.string.val, "laplace", 7) == 0)
				opt->mechanism = MRF_MECH_LAPLACE;
			else
				BadOption(spec->name, "The value must be 'exponential' or 'laplace'.");
			break;
		case OPT_BOOLEAN:
			if (v->type != jbvBool)
				BadOption(spec->name, "The value must be true or false.");
			opt->symmetrize = v->val.boolean;
			break;
	}
	opt->given |= spec->bit;
}

/* Parses and validates an options document. */
void
MrfOptionsParse(Jsonb *doc, MrfOptions *opt)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	memset(opt, 0, sizeof(*opt));
	if (!JB_ROOT_IS_OBJECT(doc))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mrf options must be a JSON object"),
				 errhint("Build options with mrf_options(rho => ..., ...).")));

	it = JsonbIteratorInit(&doc->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		const OptionSpec *spec = NULL;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		for (int i = 0; i < NUM_OPTIONS; i++)
			if (strcmp(OptionSpecs[i].name, key) == 0)
				spec = &OptionSpecs[i];
		if (spec == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown mrf option \"%s\"", key)));
		tok = JsonbIteratorNext(&it, &v, true);
		Assert(tok == WJB_VALUE);
		if (v.type == jbvNull)
			continue;
		StoreOption(spec, &v, opt);
	}
}

/* Rejects options the learner does not take. */
void
MrfOptionsCheckAllowed(const MrfOptions *opt, uint32 allowed, const char *learner)
{
	for (int i = 0; i < NUM_OPTIONS; i++)
		if ((opt->given & OptionSpecs[i].bit) && !(allowed & OptionSpecs[i].bit))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" does not apply to %s", OptionSpecs[i].name, learner)));
}

/* The zCDP budget of a zCDP learner: rho, or the largest rho fitting (epsilon, delta). */
double
MrfOptionsZcdpBudget(const MrfOptions *opt, const char *learner)
{
	bool		has_rho = (opt->given & MRF_OPT_RHO) != 0;
	bool		has_eps = (opt->given & MRF_OPT_EPSILON) != 0;
	bool		has_delta = (opt->given & MRF_OPT_DELTA) != 0;
	double		rho;

	if (has_rho && (has_eps || has_delta))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes either rho or epsilon and delta, not both", learner)));
	if (has_rho)
		return opt->rho;
	if (!has_eps && !has_delta)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs a privacy budget", learner),
				 errdetail("There is no default budget."),
				 errhint("Pass rho => ... (zCDP), or epsilon => ... and delta => ....")));
	if (!has_eps || !has_delta)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs both epsilon and delta", learner),
				 errdetail("The learner satisfies zero-concentrated DP, which implies (epsilon, delta)-DP only for delta > 0.")));

	rho = MrfZcdpForDp(opt->epsilon, opt->delta);
	if (!(rho > 0) || isinf(rho))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no zCDP budget fits epsilon = %g and delta = %g", opt->epsilon, opt->delta)));
	return rho;
}

/* The spec of an option by name, or NULL. */
static const OptionSpec *
FindOption(const char *name)
{
	for (int i = 0; i < NUM_OPTIONS; i++)
		if (strcmp(OptionSpecs[i].name, name) == 0)
			return &OptionSpecs[i];
	return NULL;
}

/*
 * Builds a validated options document from named SQL values of the types of
 * mrf_options()'s parameters; NULL values are "not given".
 */
Jsonb *
MrfOptionsBuild(int n, const char *const *names, const Datum *values, const bool *nulls)
{
	StringInfoData buf;
	bool		first = true;
	Jsonb	   *doc;
	MrfOptions	opt;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int i = 0; i < n; i++)
	{
		const OptionSpec *spec = FindOption(names[i]);

		if (spec == NULL)
			elog(ERROR, "unknown mrf option \"%s\"", names[i]);
		if (nulls[i])
			continue;
		appendStringInfo(&buf, "%s\"%s\": ", first ? "" : ", ", spec->name);
		first = false;
		switch (spec->type)
		{
			case OPT_POSITIVE:
			case OPT_PROBABILITY:
				{
					double		d = DatumGetFloat8(values[i]);

					if (isnan(d) || isinf(d))
						BadOption(spec->name, "The value must be finite.");
					appendStringInfoString(&buf, float8out_internal(d));
					break;
				}
			case OPT_ITERATIONS:
				appendStringInfo(&buf, "%d", DatumGetInt32(values[i]));
				break;
			case OPT_MECHANISM:
				escape_json(&buf, TextDatumGetCString(values[i]));
				break;
			case OPT_BOOLEAN:
				appendStringInfoString(&buf, DatumGetBool(values[i]) ? "true" : "false");
				break;
		}
	}
	appendStringInfoChar(&buf, '}');
	doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
	MrfOptionsParse(doc, &opt);
	return doc;
}

PG_FUNCTION_INFO_V1(mrf_options);
/* Builds the options document from named arguments; NULL means not given. */
Datum
mrf_options(PG_FUNCTION_ARGS)
{
	const char *names[NUM_OPTIONS];
	Datum		values[NUM_OPTIONS];
	bool		nulls[NUM_OPTIONS];

	Assert(PG_NARGS() == NUM_OPTIONS);
	for (int i = 0; i < NUM_OPTIONS; i++)
	{
		names[i] = OptionSpecs[i].name;
		values[i] = PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i);
	}
	PG_RETURN_JSONB_P(MrfOptionsBuild(NUM_OPTIONS, names, values, nulls));
}
