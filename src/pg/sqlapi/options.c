/*
 * sqlapi/options.c - mrf_options() and the validation of learner options.  One
 * table names every option, its type and its range; each value is checked
 * when the document is built and again when a learner reads it.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "core/estimate.h"
#include "core/fw.h"
#include "pg/driver/bins.h"
#include "pg/model/model.h"
#include "pg/sqlapi/options.h"

typedef enum OptionType
{
	OPT_POSITIVE,				/* finite float8 > 0 */
	OPT_PROBABILITY,			/* float8 in (0, 1) */
	OPT_INTEGER,				/* integer in [min, max] */
	OPT_CHOICE,					/* one of a list of words */
	OPT_BOOLEAN,
	OPT_CLIQUES,				/* JSON array of arrays of variable numbers */
	OPT_DOMAINS,				/* JSON object: column name -> array of values */
	OPT_BINS,					/* JSON object: column name -> edges, or min/max/width */
	OPT_WORKLOAD,				/* JSON array of arrays of column names or numbers */
	OPT_TEXT					/* a non-empty string */
} OptionType;

typedef struct OptionSpec
{
	const char *name;
	uint32		bit;
	OptionType	type;
	size_t		offset;			/* field of MrfOptions */
	int			min;			/* OPT_INTEGER */
	int			max;
	const char *choices;		/* OPT_CHOICE: words separated by '|' */
} OptionSpec;

#define FIELD(f) offsetof(MrfOptions, f)

/*
 * The order is mrf_options()'s parameter order.  An integer option whose
 * range differs between learners (OptionRanges) has the union of their
 * ranges here: a document is built before a learner reads it.
 */
static const OptionSpec OptionSpecs[] = {
	{"rho", MRF_OPT_RHO, OPT_POSITIVE, FIELD(rho)},
	{"epsilon", MRF_OPT_EPSILON, OPT_POSITIVE, FIELD(epsilon)},
	{"delta", MRF_OPT_DELTA, OPT_PROBABILITY, FIELD(delta)},
	{"lambda", MRF_OPT_LAMBDA, OPT_POSITIVE, FIELD(lambda)},
	{"iterations", MRF_OPT_ITERATIONS, OPT_INTEGER, FIELD(iterations), 1, MRF_FW_MAX_ITERATIONS},
	{"mechanism", MRF_OPT_MECHANISM, OPT_CHOICE, FIELD(mechanism), 0, 0, "exponential|laplace"},
	{"symmetrize", MRF_OPT_SYMMETRIZE, OPT_BOOLEAN, FIELD(symmetrize)},
	{"k", MRF_OPT_K, OPT_INTEGER, FIELD(k), 2, 255},
	{"t", MRF_OPT_T, OPT_INTEGER, FIELD(t), 2, 16},
	{"objective", MRF_OPT_OBJECTIVE, OPT_CHOICE, FIELD(objective), 0, 0, "l1|linf"},
	{"query_release", MRF_OPT_QUERY_RELEASE, OPT_CHOICE, FIELD(query_release), 0, 0, "gaussian|pmw"},
	{"eta", MRF_OPT_ETA, OPT_POSITIVE, FIELD(eta)},
	{"blocks", MRF_OPT_BLOCKS, OPT_INTEGER, FIELD(blocks), 1, 10000000},
	{"model", MRF_OPT_MODEL, OPT_CHOICE, FIELD(model), 0, 0, "ising|pairwise|twise"},
	{"method", MRF_OPT_METHOD, OPT_CHOICE, FIELD(method), 0, 0, "stable|threshold|cgm|naive"},
	{"cliques", MRF_OPT_CLIQUES, OPT_CLIQUES, FIELD(ncliques)},
	{"tolerance", MRF_OPT_TOLERANCE, OPT_POSITIVE, FIELD(tolerance)},
	{"em_iterations", MRF_OPT_EM_ITERATIONS, OPT_INTEGER, FIELD(em_iterations), 1, 100000},
	{"domains", MRF_OPT_DOMAINS, OPT_DOMAINS, FIELD(domains)},
	{"nulls", MRF_OPT_NULLS, OPT_TEXT, FIELD(nulls)},
	{"workload", MRF_OPT_WORKLOAD, OPT_WORKLOAD, FIELD(workload)},
	{"bins", MRF_OPT_BINS, OPT_BINS, FIELD(bins)},
	{"rounds", MRF_OPT_ROUNDS, OPT_INTEGER, FIELD(rounds), 1, MRF_MAX_AIM_ROUNDS},
	{"one_way_share", MRF_OPT_ONE_WAY_SHARE, OPT_PROBABILITY, FIELD(one_way_share)},
	{"max_model_cells", MRF_OPT_MAX_MODEL_CELLS, OPT_INTEGER, FIELD(max_model_cells), 1, INT_MAX},
	{"schedule", MRF_OPT_SCHEDULE, OPT_CHOICE, FIELD(schedule), 0, 0, "auto|seeded|paper"},
	/* no parameter of mrf_options: the Citus coordinator's, merged into what it ships (options.h) */
	{"coordinator_model_cells", MRF_OPT_COORDINATOR_MODEL_CELLS, OPT_INTEGER, FIELD(coordinator_model_cells), 1, INT_MAX},
};

#define NUM_OPTIONS lengthof(OptionSpecs)

/*
 * THE DEFAULTS: every option default of every learner, and the only place
 * one is written.  MrfOptionsParse fills each option the caller left out
 * from here (validated like a value the caller gave), the SQL forms declare
 * these parameters DEFAULT NULL ("the learner's default") and
 * mrf_option_defaults() lists this table to SQL, so changing a default is
 * changing its line here (and the learners' options tables in docs/learners/).  learner NULL:
 * every learner that takes the option.  Values are JSON, as in an options
 * document.  Defaults computed from public sizes (iterations: the
 * Frank-Wolfe T of MrfFwDefaultIterations; blocks: MrfStructureDefaultBlocks)
 * have no line: each learner's plan computes them (driver/plan.h).
 */
static const struct
{
	const char *learner;
	const char *option;
	const char *value;
}			OptionDefaults[] = {
	/* lambda: the defaults study (docs/studies/defaults.md "Defaults and the study behind them") */
	{NULL, "lambda", "8"},
	{"mrf_learn_pairwise", "lambda", "4"},
	{"mrf_learn_twise", "lambda", "4"},
	{NULL, "mechanism", "\"exponential\""},
	{NULL, "symmetrize", "true"},
	{"mrf_learn_twise", "objective", "\"l1\""},
	{"mrf_learn_twise", "query_release", "\"gaussian\""},
	{"mrf_learn_structure", "model", "\"ising\""},
	{"mrf_learn_structure", "method", "\"stable\""},
	{"mrf_learn_cliques", "method", "\"cgm\""},
	{"mrf_learn_cliques", "tolerance", "1e-5"},
	{"mrf_learn_cliques", "em_iterations", "300"},
	/* mirror-descent steps: docs/learners/mst.md "How many estimation steps" (run_mst_iterations_study.sh) */
	{"mrf_learn_mst", "iterations", "1000"},
	/* AIM's final estimate: MST's steps (the same estimator); docs/learners/aim.md "AIM" */
	{"mrf_learn_aim", "iterations", "1000"},
	/* AIM's budget schedule from public sizes: docs/learners/aim.md "The schedule from public sizes" */
	{"mrf_learn_aim", "schedule", "\"auto\""},
};

/*
 * THE LEARNERS' RANGES of an integer option whose range differs between
 * learners: the learner's line, else the line with learner NULL (every
 * other learner that takes the option).  MrfOptionsCheckAllowed, which
 * every learner's plan calls before anything is read or charged, refuses a
 * value outside its learner's range; the core checks the same bounds again
 * for its C callers.  Keep the learners' options tables in docs/learners/
 * in step.
 */
static const struct
{
	const char *learner;
	const char *option;
	int			min;
	int			max;
	const char *what;			/* the unit, for the refusal */
}			OptionRanges[] = {
	/* Frank-Wolfe T: T - 1 private selections, at least one (core/fw.h, MrfFwCheckCalibration) */
	{NULL, "iterations", 2, MRF_FW_MAX_ITERATIONS, "Frank-Wolfe iterations (T - 1 private selections)"},
	/* the estimate's mirror-descent steps (core/estimate.h; MrfMstLearn, MrfAimLearn) */
	{"mrf_learn_mst", "iterations", 1, MRF_ESTIMATE_MAX_ITERATIONS, "mirror-descent iterations"},
	{"mrf_learn_aim", "iterations", 1, MRF_ESTIMATE_MAX_ITERATIONS, "mirror-descent iterations"},
};

/* the options table's iterations range is the union of these (OptionSpecs) */
StaticAssertDecl(MRF_ESTIMATE_MAX_ITERATIONS <= MRF_FW_MAX_ITERATIONS,
				 "the options table's iterations range must hold every learner's");

/* Most cliques, and variables per clique, an options document may name. */
#define MRF_MAX_CLIQUES 10000
#define MRF_MAX_CLIQUE_SIZE 16

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

/* A numeric JSON value as float8. */
static double
JsonNumber(const OptionSpec *spec, JsonbValue *v)
{
	if (v->type != jbvNumeric)
		BadOption(spec->name, "The value must be a number.");
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

/* Whether word is one of the '|'-separated choices. */
static bool
IsChoice(const char *choices, const char *word, int len)
{
	const char *c = choices;

	while (*c)
	{
		const char *end = strchr(c, '|');
		int			clen = end ? (int) (end - c) : (int) strlen(c);

		if (clen == len && strncmp(c, word, len) == 0)
			return true;
		if (!end)
			break;
		c = end + 1;
	}
	return false;
}

static JsonbValue *BinsEntry(JsonbValue *v);

/* Most values of one column's alphabet (the readers refuse more for byte rows). */
#define MRF_MAX_DOMAIN MRF_MAX_ALPHABET

/*
 * The labels of one column's declared domain, in code order: an array of
 * distinct values (strings or numbers), or an integer range {"min": a,
 * "max": b} (a, a + 1, ..., b).  NULL with *why set when the value is not a
 * domain of 2 to MRF_MAX_DOMAIN values; column names the column in *why.
 */
char	  **
MrfDomainLabels(JsonbValue *v, const char *column, int *n, const char **why)
{
	char	  **labels;

	*n = 0;
	if (v != NULL && v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
	{
		JsonbContainer *obj = v->val.binary.data;
		JsonbValue *lo = getKeyJsonValueFromContainer(obj, "min", 3, NULL);
		JsonbValue *hi = getKeyJsonValueFromContainer(obj, "max", 3, NULL);
		double		a;
		double		b;

		if (lo == NULL || hi == NULL || JsonContainerSize(obj) != 2 ||
			lo->type != jbvNumeric || hi->type != jbvNumeric)
		{
			*why = psprintf("The domain of column \"%s\" must be an array of its values or an integer range like {\"min\": 1, \"max\": 10}.", column);
			return NULL;
		}
		a = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(lo->val.numeric)));
		b = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(hi->val.numeric)));
		if (a != floor(a) || b != floor(b) || fabs(a) > 1e18 || fabs(b) > 1e18)
		{
			*why = psprintf("The range of column \"%s\" must have integer bounds min and max.", column);
			return NULL;
		}
		if (b - a + 1 < 2 || b - a + 1 > MRF_MAX_DOMAIN)
		{
			*why = psprintf("The range of column \"%s\" has %.0f value%s; a domain has from 2 to %d (min < max).",
							column, Max(b - a + 1, 0), b - a + 1 == 1 ? "" : "s", MRF_MAX_DOMAIN);
			return NULL;
		}
		*n = (int) (b - a + 1);
		labels = palloc(sizeof(char *) * *n);
		for (int i = 0; i < *n; i++)
			labels[i] = psprintf("%lld", (long long) a + i);
		return labels;
	}
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
	{
		*why = psprintf("The domain of column \"%s\" must be an array of its values or an integer range like {\"min\": 1, \"max\": 10}.", column);
		return NULL;
	}
	*n = JsonContainerSize(v->val.binary.data);
	if (*n < 2 || *n > MRF_MAX_DOMAIN)
	{
		*why = psprintf("The domain of column \"%s\" lists %d value%s; a domain has from 2 to %d.",
						column, *n, *n == 1 ? "" : "s", MRF_MAX_DOMAIN);
		return NULL;
	}
	labels = palloc(sizeof(char *) * *n);
	for (int i = 0; i < *n; i++)
	{
		labels[i] = MrfDomainValueText(getIthJsonbValueFromContainer(v->val.binary.data, i));
		if (labels[i] == NULL)
		{
			*why = psprintf("The values of column \"%s\" must be strings or numbers.", column);
			return NULL;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(labels[i], labels[j]) == 0)
			{
				*why = psprintf("The domain of column \"%s\" lists \"%s\" twice; a domain lists each value once.",
								column, labels[i]);
				return NULL;
			}
	}
	return labels;
}

/*
 * Parses the domains option: an object naming columns, each with an array
 * of 2 to MRF_MAX_DOMAIN distinct values (strings or numbers), the column's alphabet in
 * code order, or an integer range {"min": a, "max": b}; the key "*" gives
 * the domain of every column of a type without an alphabet that is neither
 * named nor given one by a CHECK constraint.  Public: it is declared, never
 * read from the data.
 */
static void
StoreDomains(const OptionSpec *spec, JsonbValue *v, MrfOptions *opt)
{
	JsonbIterator *it;
	JsonbValue	key;
	JsonbIteratorToken tok;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		BadOption(spec->name, "The value must be an object naming columns, e.g. '{\"state\": [\"CA\", \"NY\"], \"score\": {\"min\": 1, \"max\": 10}}'.");
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		JsonbValue	val;
		const char *why = NULL;
		char	   *column;
		int			n;

		if (tok != WJB_KEY)
			continue;
		column = pnstrdup(key.val.string.val, key.val.string.len);
		tok = JsonbIteratorNext(&it, &val, true);
		if (BinsEntry(&val) != NULL)
		{
			/* a binned column, as option bins is carried (MergeBins) */
			if (strcmp(column, "*") == 0)
				BadOption(spec->name, "The entry \"*\" is a domain, not bins.");
			MrfBinsCheckShape(BinsEntry(&val), column);
			continue;
		}
		if (MrfDomainLabels(&val, column, &n, &why) == NULL)
			BadOption(spec->name, why);
	}
	opt->domains = JsonbValueToJsonb(v);
}

/*
 * Parses the bins option: an object naming columns, each with an array of
 * edges or an object of min, max and width (driver/bins.c, which checks
 * them against the column's type).  Public: declared with the query.
 */
static void
StoreBins(const OptionSpec *spec, JsonbValue *v, MrfOptions *opt)
{
	JsonbIterator *it;
	JsonbValue	key;
	JsonbIteratorToken tok;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) < 1)
		BadOption(spec->name, "The value must be an object naming columns, e.g. '{\"age\": [18, 25, 35, 50, 65], \"income\": {\"min\": 0, \"max\": 200000, \"width\": 10000}}'.");
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		JsonbValue	val;
		char	   *column;

		if (tok != WJB_KEY)
			continue;
		column = pnstrdup(key.val.string.val, key.val.string.len);
		tok = JsonbIteratorNext(&it, &val, true);
		if (strcmp(column, "*") == 0)
			BadOption(spec->name, "Bins name their columns (\"*\" is for domains).");
		MrfBinsCheckShape(&val, column);
	}
	opt->bins = JsonbValueToJsonb(v);
}

/*
 * The readers take a binned column's bins as its entry {"bins": ...} of
 * option domains, so that every place that carries domains (the workers'
 * readers on Citus included) carries bins: the domains with every column of
 * bins added.  A column with both is refused.
 */
static Jsonb *
MergeBins(Jsonb *domains, Jsonb *bins)
{
	StringInfoData buf;
	JsonbIterator *it;
	JsonbValue	key;
	JsonbIteratorToken tok;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	if (domains != NULL)
	{
		char	   *text = JsonbToCString(NULL, &domains->root, VARSIZE(domains));
		int			len = strlen(text);

		/* the object's members without its braces */
		if (JsonContainerSize(&domains->root) > 0)
		{
			appendBinaryStringInfo(&buf, text + 1, len - 2);
			first = false;
		}
	}
	it = JsonbIteratorInit(&bins->root);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		JsonbValue	val;
		char	   *column;
		Jsonb	   *one;

		if (tok != WJB_KEY)
			continue;
		column = pnstrdup(key.val.string.val, key.val.string.len);
		tok = JsonbIteratorNext(&it, &val, true);
		if (domains != NULL &&
			getKeyJsonValueFromContainer(&domains->root, column, strlen(column), NULL) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("column \"%s\" has both a domain and bins", column),
					 errhint("A column's values are either listed (domains) or binned (bins).")));
		one = JsonbValueToJsonb(&val);
		if (!first)
			appendStringInfoString(&buf, ", ");
		first = false;
		escape_json(&buf, column);
		appendStringInfo(&buf, ": {\"bins\": %s}", JsonbToCString(NULL, &one->root, VARSIZE(one)));
	}
	appendStringInfoChar(&buf, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* The bins of a domains entry {"bins": ...}, or NULL. */
static JsonbValue *
BinsEntry(JsonbValue *v)
{
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) != 1)
		return NULL;
	return getKeyJsonValueFromContainer(v->val.binary.data, "bins", 4, NULL);
}

/* See sqlapi/options.h. */
JsonbValue *
MrfDomainBins(JsonbValue *v)
{
	return BinsEntry(v);
}

/* The text of a domain value (a string, or a number as written), or NULL. */
char *
MrfDomainValueText(JsonbValue *v)
{
	if (v == NULL)
		return NULL;
	if (v->type == jbvString)
		return pnstrdup(v->val.string.val, v->val.string.len);
	if (v->type == jbvNumeric)
		return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	return NULL;
}

/* See sqlapi/options.h: a per-column NULL policy is written as a JSON object. */
bool
MrfNullsPerColumn(const char *nulls)
{
	while (*nulls == ' ' || *nulls == '\t' || *nulls == '\n' || *nulls == '\r')
		nulls++;
	return *nulls == '{';
}

/*
 * Checks a per-column NULL policy: an object whose keys are column names
 * (or "*", every column not named) and whose values are 'error',
 * 'category', a value (a string or number) or {"value": a value}.  Whether
 * the columns exist and have the values is the reader's check, against the
 * row type.  Public: declared with the query.
 */
static void
CheckNullsPerColumn(const OptionSpec *spec, const char *text)
{
	Jsonb	   *doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	JsonbIterator *it;
	JsonbValue	key;
	JsonbIteratorToken tok;
	const char *shape = "A per-column policy is an object like '{\"party\": \"error\", \"*\": \"category\", \"vote\": {\"value\": \"n\"}}'.";

	if (!JB_ROOT_IS_OBJECT(doc) || JsonContainerSize(&doc->root) < 1)
		BadOption(spec->name, shape);
	it = JsonbIteratorInit(&doc->root);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		JsonbValue	val;
		char	   *word;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &val, true);
		if (val.type == jbvBinary)
		{
			JsonbValue *inner;

			if (!JsonContainerIsObject(val.val.binary.data) || JsonContainerSize(val.val.binary.data) != 1 ||
				(inner = getKeyJsonValueFromContainer(val.val.binary.data, "value", 5, NULL)) == NULL)
				BadOption(spec->name, shape);
			word = MrfDomainValueText(inner);
		}
		else
			word = MrfDomainValueText(&val);
		if (word == NULL || strlen(word) < 1 || strlen(word) > 255)
			BadOption(spec->name, "Each column's policy is 'error', 'category', a value (a string or number) or {\"value\": a value}.");
	}
}

/* Parses the cliques option: a JSON array of arrays of 1-based variable numbers. */
static void
StoreCliques(const OptionSpec *spec, JsonbValue *v, MrfOptions *opt)
{
	JsonbContainer *outer;
	int			n;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		BadOption(spec->name, "The value must be an array of cliques, e.g. '[[1, 2], [2, 3]]'.");
	outer = v->val.binary.data;
	n = JsonContainerSize(outer);
	if (n < 1 || n > MRF_MAX_CLIQUES)
		BadOption(spec->name, psprintf("Give from 1 to %d cliques.", MRF_MAX_CLIQUES));
	opt->ncliques = n;
	opt->clique_size = palloc(sizeof(int) * n);
	opt->clique_vars = palloc(sizeof(int *) * n);
	for (int c = 0; c < n; c++)
	{
		JsonbValue *clique = getIthJsonbValueFromContainer(outer, c);
		int			size;

		if (clique == NULL || clique->type != jbvBinary || !JsonContainerIsArray(clique->val.binary.data))
			BadOption(spec->name, "Each clique must be an array of variable numbers.");
		size = JsonContainerSize(clique->val.binary.data);
		if (size < 1 || size > MRF_MAX_CLIQUE_SIZE)
			BadOption(spec->name, psprintf("A clique has from 1 to %d variables.", MRF_MAX_CLIQUE_SIZE));
		opt->clique_size[c] = size;
		opt->clique_vars[c] = palloc(sizeof(int) * size);
		for (int i = 0; i < size; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(clique->val.binary.data, i);
			double		d = (e && e->type == jbvNumeric) ? JsonNumber(spec, e) : -1;

			if (d != floor(d) || d < 1 || d > INT_MAX)
				BadOption(spec->name, "Variables are numbered from 1.");
			opt->clique_vars[c][i] = (int) d - 1;
		}
	}
}

/* Most marginals of a workload, and variables per marginal (core/aim.h's limits). */
#define MRF_MAX_WORKLOAD 10000
#define MRF_MAX_WORKLOAD_VARS 8

/*
 * Parses the workload option's shape: a JSON array of marginals, each an
 * array of column names (strings) or 1-based variable numbers.  Names are
 * resolved, and duplicates found, by the learner that knows the columns.
 */
static void
StoreWorkload(const OptionSpec *spec, JsonbValue *v, MrfOptions *opt)
{
	JsonbContainer *outer;
	int			n;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		BadOption(spec->name, "The value must be an array of marginals, e.g. '[[\"a\", \"b\"], [\"a\", \"b\", \"c\"]]'.");
	outer = v->val.binary.data;
	n = JsonContainerSize(outer);
	if (n < 1 || n > MRF_MAX_WORKLOAD)
		BadOption(spec->name, psprintf("Give from 1 to %d marginals.", MRF_MAX_WORKLOAD));
	for (int w = 0; w < n; w++)
	{
		JsonbValue *m = getIthJsonbValueFromContainer(outer, w);
		int			size;

		if (m == NULL || m->type != jbvBinary || !JsonContainerIsArray(m->val.binary.data))
			BadOption(spec->name, "Each marginal must be an array of column names.");
		size = JsonContainerSize(m->val.binary.data);
		if (size < 1 || size > MRF_MAX_WORKLOAD_VARS)
			BadOption(spec->name, psprintf("A marginal has from 1 to %d columns.", MRF_MAX_WORKLOAD_VARS));
		for (int i = 0; i < size; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(m->val.binary.data, i);
			double		d;

			if (e != NULL && e->type == jbvString && e->val.string.len >= 1 &&
				e->val.string.len < NAMEDATALEN)
				continue;
			d = (e && e->type == jbvNumeric) ? JsonNumber(spec, e) : -1;
			if (d != floor(d) || d < 1 || d > INT_MAX)
				BadOption(spec->name, "A marginal names columns (strings) or numbers them from 1.");
		}
	}
	opt->workload = JsonbValueToJsonb(v);
}

/* Validates one option value and stores it. */
static void
StoreOption(const OptionSpec *spec, JsonbValue *v, MrfOptions *opt)
{
	char	   *field = (char *) opt + spec->offset;
	double		d;

	switch (spec->type)
	{
		case OPT_POSITIVE:
			d = JsonNumber(spec, v);
			if (!(d > 0) || isinf(d))
				BadOption(spec->name, "The value must be a finite number greater than zero.");
			*(double *) field = d;
			break;
		case OPT_PROBABILITY:
			d = JsonNumber(spec, v);
			if (!(d > 0 && d < 1))
				BadOption(spec->name, "The value must lie strictly between 0 and 1.");
			*(double *) field = d;
			break;
		case OPT_INTEGER:
			d = JsonNumber(spec, v);
			if (d != floor(d) || d < spec->min || d > spec->max)
				BadOption(spec->name, psprintf("The value must be an integer from %d to %d.",
											   spec->min, spec->max));
			*(int *) field = (int) d;
			break;
		case OPT_CHOICE:
			if (v->type != jbvString || !IsChoice(spec->choices, v->val.string.val, v->val.string.len))
			{
				StringInfoData words;

				initStringInfo(&words);
				for (const char *c = spec->choices; *c; c++)
					appendStringInfoString(&words, *c == '|' ? "', '" : pnstrdup(c, 1));
				BadOption(spec->name, psprintf("The value must be one of '%s'.", words.data));
			}
			if (spec->bit == MRF_OPT_MECHANISM)
				opt->mechanism = v->val.string.val[0] == 'l' ? MRF_MECH_LAPLACE : MRF_MECH_EXPONENTIAL;
			else
				strlcpy(field, pnstrdup(v->val.string.val, v->val.string.len), MRF_OPT_CHOICE_LEN);
			break;
		case OPT_BOOLEAN:
			if (v->type != jbvBool)
				BadOption(spec->name, "The value must be true or false.");
			*(bool *) field = v->val.boolean;
			break;
		case OPT_CLIQUES:
			StoreCliques(spec, v, opt);
			break;
		case OPT_DOMAINS:
			StoreDomains(spec, v, opt);
			break;
		case OPT_BINS:
			StoreBins(spec, v, opt);
			break;
		case OPT_WORKLOAD:
			StoreWorkload(spec, v, opt);
			break;
		case OPT_TEXT:
			/* an options document may hold a per-column policy as an object, not its text */
			if (v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
			{
				*(char **) field = JsonbToCString(NULL, v->val.binary.data, -1);
				CheckNullsPerColumn(spec, *(char **) field);
				break;
			}
			if (v->type == jbvString && MrfNullsPerColumn(pnstrdup(v->val.string.val, v->val.string.len)))
			{
				*(char **) field = pnstrdup(v->val.string.val, v->val.string.len);
				CheckNullsPerColumn(spec, *(char **) field);
				break;
			}
			if (v->type != jbvString || v->val.string.len < 1 || v->val.string.len > 255)
				BadOption(spec->name, "The value must be 'error', 'category', a value of the columns' alphabets, or an object giving columns one of these.");
			*(char **) field = pnstrdup(v->val.string.val, v->val.string.len);
			break;
	}
	opt->given |= spec->bit;
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
		const OptionSpec *spec;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		spec = FindOption(key);
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
	/* the readers find a column's bins among the domains */
	if (opt->bins != NULL)
		opt->domains = MergeBins(opt->domains, opt->bins);
}

/*
 * The default of option for learner as JSON text (OptionDefaults), or NULL
 * when it has none.
 */
const char *
MrfOptionDefault(const char *learner, const char *option)
{
	const char *value = NULL;

	for (int i = 0; i < lengthof(OptionDefaults); i++)
		if (strcmp(OptionDefaults[i].option, option) == 0)
		{
			if (OptionDefaults[i].learner != NULL && learner != NULL &&
				strcmp(OptionDefaults[i].learner, learner) == 0)
				return OptionDefaults[i].value;
			if (OptionDefaults[i].learner == NULL)
				value = OptionDefaults[i].value;
		}
	return value;
}

/* The default of a numeric option for learner (OptionDefaults). */
double
MrfOptionDefaultNumber(const char *learner, const char *option)
{
	const char *text = MrfOptionDefault(learner, option);

	if (text == NULL)
		elog(ERROR, "option \"%s\" of %s has no default", option, learner);
	return DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(text)));
}

/* Copies the value of one option from src to dst. */
static void
CopyOption(const OptionSpec *spec, MrfOptions *dst, const MrfOptions *src)
{
	size_t		size = 0;

	switch (spec->type)
	{
		case OPT_POSITIVE:
		case OPT_PROBABILITY:
			size = sizeof(double);
			break;
		case OPT_INTEGER:
			size = sizeof(int);
			break;
		case OPT_CHOICE:
			if (spec->bit == MRF_OPT_MECHANISM)
			{
				dst->mechanism = src->mechanism;
				return;
			}
			size = MRF_OPT_CHOICE_LEN;
			break;
		case OPT_BOOLEAN:
			size = sizeof(bool);
			break;
		case OPT_CLIQUES:
		case OPT_DOMAINS:
		case OPT_BINS:
		case OPT_WORKLOAD:
		case OPT_TEXT:
			elog(ERROR, "option \"%s\" cannot have a default", spec->name);
	}
	memcpy((char *) dst + spec->offset, (const char *) src + spec->offset, size);
}

/*
 * Learner's defaults (OptionDefaults) as parsed options, checked like given
 * values; parsed once per backend and learner, since every group of a
 * GROUP BY plans its release.
 */
static const MrfOptions *
DefaultsOf(const char *learner)
{
	static struct
	{
		const char *learner;
		MrfOptions	opt;
	}			cache[16];		/* every learner and NULL, with room */
	static int	ncached = 0;
	MemoryContext old;
	MrfOptions *opt;

	for (int i = 0; i < ncached; i++)
		if ((cache[i].learner == NULL) == (learner == NULL) &&
			(learner == NULL || strcmp(cache[i].learner, learner) == 0))
			return &cache[i].opt;
	if (ncached == lengthof(cache))
		elog(ERROR, "too many learners for the options defaults cache");
	opt = &cache[ncached].opt;
	memset(opt, 0, sizeof(*opt));
	old = MemoryContextSwitchTo(TopMemoryContext);
	for (int i = 0; i < NUM_OPTIONS; i++)
	{
		const char *text = MrfOptionDefault(learner, OptionSpecs[i].name);
		Jsonb	   *doc;
		JsonbValue	v;

		if (text == NULL)
			continue;
		doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
		if (!JsonbExtractScalar(&doc->root, &v))
			elog(ERROR, "the default of option \"%s\" is not a scalar", OptionSpecs[i].name);
		StoreOption(&OptionSpecs[i], &v, opt);
	}
	cache[ncached].learner = learner ? pstrdup(learner) : NULL;
	MemoryContextSwitchTo(old);
	ncached++;
	return opt;
}

/*
 * Fills every option not given with learner's default (OptionDefaults);
 * the given bits stay those of the document.
 */
static void
ApplyDefaults(MrfOptions *opt, const char *learner)
{
	const MrfOptions *defaults = DefaultsOf(learner);

	for (int i = 0; i < NUM_OPTIONS; i++)
		if (!(opt->given & OptionSpecs[i].bit) && (defaults->given & OptionSpecs[i].bit))
			CopyOption(&OptionSpecs[i], opt, defaults);
}

/* Parses a learner's options document once and fills in its defaults. */
void
MrfOptionsParseFor(Jsonb *doc, const char *learner, MrfOptions *opt)
{
	MrfOptionsParse(doc, opt);
	ApplyDefaults(opt, learner);
}

/* Fills every option opt->given does not name with learner's default. */
void
MrfOptionsFillDefaults(MrfOptions *opt, const char *learner)
{
	ApplyDefaults(opt, learner);
}

PG_FUNCTION_INFO_V1(mrf_option_defaults);
/* mrf_option_defaults(): the defaults table, one row per (learner, option). */
Datum
mrf_option_defaults(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < lengthof(OptionDefaults); i++)
	{
		Datum		values[3];
		bool		nulls[3] = {OptionDefaults[i].learner == NULL, false, false};

		values[0] = nulls[0] ? (Datum) 0 : CStringGetTextDatum(OptionDefaults[i].learner);
		values[1] = CStringGetTextDatum(OptionDefaults[i].option);
		values[2] = DirectFunctionCall1(jsonb_in, CStringGetDatum(OptionDefaults[i].value));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* The line of OptionRanges for learner's option, or -1 when it has none. */
static int
LearnerRange(const char *learner, const char *option)
{
	int			found = -1;

	for (int i = 0; i < lengthof(OptionRanges); i++)
		if (strcmp(OptionRanges[i].option, option) == 0)
		{
			if (OptionRanges[i].learner != NULL && strcmp(OptionRanges[i].learner, learner) == 0)
				return i;
			if (OptionRanges[i].learner == NULL)
				found = i;
		}
	return found;
}

/*
 * Refuses options the learner does not take, and integer values outside
 * the learner's own range (OptionRanges).
 */
MrfRefusal *
MrfOptionsCheckAllowed(const MrfOptions *opt, uint32 allowed, const char *learner)
{
	for (int i = 0; i < NUM_OPTIONS; i++)
		if ((opt->given & OptionSpecs[i].bit) && !(allowed & OptionSpecs[i].bit))
			return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
							 psprintf("option \"%s\" does not apply to %s", OptionSpecs[i].name, learner),
							 NULL, NULL);
	for (int i = 0; i < NUM_OPTIONS; i++)
	{
		const OptionSpec *spec = &OptionSpecs[i];
		int			r;
		int			value;

		if (!(opt->given & spec->bit) || spec->type != OPT_INTEGER ||
			(r = LearnerRange(learner, spec->name)) < 0)
			continue;
		value = *(const int *) ((const char *) opt + spec->offset);
		if (value < OptionRanges[r].min || value > OptionRanges[r].max)
			return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
							 psprintf("invalid value for option \"%s\"", spec->name),
							 psprintf("%s takes from %d to %d %s; %s => %d is outside.",
									  learner, OptionRanges[r].min, OptionRanges[r].max,
									  OptionRanges[r].what, spec->name, value),
							 NULL);
	}
	return NULL;
}

/* Refuses unless the options named by `required` are all given. */
MrfRefusal *
MrfOptionsRequire(const MrfOptions *opt, uint32 required, const char *learner)
{
	for (int i = 0; i < NUM_OPTIONS; i++)
		if ((required & OptionSpecs[i].bit) && !(opt->given & OptionSpecs[i].bit))
			return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
							 psprintf("%s needs option \"%s\"", learner, OptionSpecs[i].name),
							 "It has no default: it is public information only you can supply.", NULL);
	return NULL;
}

/*
 * The zCDP budget of a zCDP learner: rho, or the largest rho fitting
 * (epsilon, delta).  The one place a learner's rho is checked: its range
 * was checked when the document was parsed (OptionSpecs), its conversion
 * here.
 */
MrfRefusal *
MrfOptionsZcdpBudget(const MrfOptions *opt, const char *learner, double *rho)
{
	bool		has_rho = (opt->given & MRF_OPT_RHO) != 0;
	bool		has_eps = (opt->given & MRF_OPT_EPSILON) != 0;
	bool		has_delta = (opt->given & MRF_OPT_DELTA) != 0;

	if (has_rho && (has_eps || has_delta))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s takes either rho or epsilon and delta, not both", learner),
						 NULL, NULL);
	if (has_rho)
	{
		*rho = opt->rho;
		return NULL;
	}
	if (!has_eps && !has_delta)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs a privacy budget", learner),
						 "There is no default budget.",
						 "Pass rho => ... (zCDP), or epsilon => ... and delta => ....");
	if (!has_eps || !has_delta)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs both epsilon and delta", learner),
						 "The learner satisfies zero-concentrated DP, which implies (epsilon, delta)-DP only for delta > 0.",
						 NULL);

	*rho = MrfZcdpForDp(opt->epsilon, opt->delta);
	if (!(*rho > 0) || isinf(*rho))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("no zCDP budget fits epsilon = %g and delta = %g", opt->epsilon, opt->delta),
						 NULL, NULL);
	return NULL;
}

/* Appends one SQL value as JSON, by its option's type. */
static void
AppendValue(StringInfo buf, const OptionSpec *spec, Datum value)
{
	switch (spec->type)
	{
		case OPT_POSITIVE:
		case OPT_PROBABILITY:
			{
				double		d = DatumGetFloat8(value);

				if (isnan(d) || isinf(d))
					BadOption(spec->name, "The value must be finite.");
				appendStringInfoString(buf, MrfDoubleText(d));
				break;
			}
		case OPT_INTEGER:
			appendStringInfo(buf, "%d", DatumGetInt32(value));
			break;
		case OPT_CHOICE:
		case OPT_TEXT:
			escape_json(buf, TextDatumGetCString(value));
			break;
		case OPT_BOOLEAN:
			appendStringInfoString(buf, DatumGetBool(value) ? "true" : "false");
			break;
		case OPT_CLIQUES:
		case OPT_DOMAINS:
		case OPT_BINS:
		case OPT_WORKLOAD:
			{
				Jsonb	   *jb = DatumGetJsonbP(value);

				appendStringInfoString(buf, JsonbToCString(NULL, &jb->root, VARSIZE(jb)));
				break;
			}
	}
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
		AppendValue(&buf, spec, values[i]);
	}
	appendStringInfoChar(&buf, '}');
	doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
	MrfOptionsParse(doc, &opt);
	return doc;
}

/* The SQL type an option's value has among mrf_options()'s parameters. */
static Oid
OptionSqlType(const OptionSpec *spec)
{
	switch (spec->type)
	{
		case OPT_POSITIVE:
		case OPT_PROBABILITY:
			return FLOAT8OID;
		case OPT_INTEGER:
			return INT4OID;
		case OPT_CHOICE:
		case OPT_TEXT:
			return TEXTOID;
		case OPT_BOOLEAN:
			return BOOLOID;
		case OPT_CLIQUES:
		case OPT_DOMAINS:
		case OPT_BINS:
		case OPT_WORKLOAD:
			return JSONBOID;
	}
	return InvalidOid;
}

/*
 * The option each argument of this mrf_options() call carries, read from
 * its SQL definition and cached for the call site.  A library newer than
 * the installed SQL (before ALTER EXTENSION mrfdp UPDATE) knows options the
 * older definition lacks, possibly in another order: arguments are matched
 * by name, never by position, and each must have its option's type.
 */
static const OptionSpec **
OptionsArguments(FunctionCallInfo fcinfo)
{
	const OptionSpec **specs;
	HeapTuple	proctup;
	Oid		   *argtypes;
	char	  **argnames;
	char	   *argmodes;
	int			nargs;
	Oid			fn_oid;

	if (fcinfo->flinfo != NULL && fcinfo->flinfo->fn_extra != NULL)
		return (const OptionSpec **) fcinfo->flinfo->fn_extra;
	if (fcinfo->flinfo == NULL || !OidIsValid(fcinfo->flinfo->fn_oid))
		elog(ERROR, "mrf_options must be called through its SQL definition");
	fn_oid = fcinfo->flinfo->fn_oid;
	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (!HeapTupleIsValid(proctup))
		elog(ERROR, "cache lookup failed for function %u", fn_oid);
	nargs = get_func_arg_info(proctup, &argtypes, &argnames, &argmodes);
	ReleaseSysCache(proctup);
	if (argnames == NULL || nargs != PG_NARGS())
		elog(ERROR, "mrf_options must name all its parameters");

	specs = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(OptionSpec *) * Max(nargs, 1));
	for (int i = 0; i < nargs; i++)
	{
		specs[i] = FindOption(argnames[i]);
		if (specs[i] == NULL)
			elog(ERROR, "parameter \"%s\" of mrf_options is not an option this library knows",
				 argnames[i]);
		if (argtypes[i] != OptionSqlType(specs[i]))
			elog(ERROR, "parameter \"%s\" of mrf_options has type %s, not %s",
				 argnames[i], format_type_be(argtypes[i]),
				 format_type_be(OptionSqlType(specs[i])));
	}
	fcinfo->flinfo->fn_extra = specs;
	return specs;
}

PG_FUNCTION_INFO_V1(mrf_options);
/* Builds the options document from named arguments; NULL means not given. */
Datum
mrf_options(PG_FUNCTION_ARGS)
{
	const OptionSpec **specs = OptionsArguments(fcinfo);
	int			nargs = PG_NARGS();
	const char **names = palloc(sizeof(char *) * Max(nargs, 1));
	Datum	   *values = palloc(sizeof(Datum) * Max(nargs, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(nargs, 1));

	for (int i = 0; i < nargs; i++)
	{
		names[i] = specs[i]->name;
		values[i] = PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i);
	}
	PG_RETURN_JSONB_P(MrfOptionsBuild(nargs, names, values, nulls));
}

/*
 * The refusal of a lambda whose noise calibration overflows (the core's
 * MRF_*_BAD_SCALE): a public fact about the options (and p, n), raised
 * before anything is charged.
 */
MrfRefusal *
MrfOptionsLambdaTooLarge(const char *learner, double lambda)
{
	return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
					 "invalid value for option \"lambda\"",
					 psprintf("%s cannot calibrate its noise for lambda = %g with this budget: the L1 radius or a noise scale proportional to it would not be a finite number.",
							  learner, lambda),
					 "lambda bounds the width of the model (the L1 norm of a variable's interactions); values from 0.1 to 10 are typical.");
}
