/*
 * driver/bins.c - public bins of integer, numeric, floating-point, date and
 * timestamp columns (option bins): their edges, labels and codes, and the
 * values a synthetic row draws within a bin.
 *
 * Bins are declared with the query, like a domain: edges e1 < ... < em give
 * the m + 1 bins (-inf, e1), [e1, e2), ..., [em, inf); {"min": a, "max": b,
 * "width": w} gives the edges a, a + w, ... (below b), b.  A value's code is
 * its bin, a function of that value and the declaration alone (a public,
 * row-local map: docs/privacy.md 1.2), so the alphabet never comes from the
 * data.  Values are compared on one scale per type: integers and numbers
 * as float8, dates as days and timestamps as microseconds since 2000-01-01
 * (PostgreSQL's own representations).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "pg/driver/bins.h"
#include "pg/model/model.h"
#include "pg/sqlapi/options.h"

/*
 * Most edges of one column: m + 1 bins fit the whole-table learners' codes
 * (MRF_MAX_ALPHABET values); the byte rows' readers refuse more than 255 bins.
 */
#define MRF_MAX_EDGES (MRF_MAX_ALPHABET - 1)

/* The scale of a base type, or MRF_BIN_NONE when it cannot be binned. */
MrfBinScale
MrfBinScaleOf(Oid base)
{
	switch (base)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return MRF_BIN_INTEGER;
		case NUMERICOID:
		case FLOAT4OID:
		case FLOAT8OID:
			return MRF_BIN_NUMBER;
		case DATEOID:
			return MRF_BIN_DATE;
		case TIMESTAMPOID:
			return MRF_BIN_TIMESTAMP;
		case TIMESTAMPTZOID:
			return MRF_BIN_TIMESTAMPTZ;
		default:
			return MRF_BIN_NONE;
	}
}

/* Whether a scale's values are whole numbers (integers, days, microseconds). */
static bool
WholeScale(MrfBinScale scale)
{
	return scale != MRF_BIN_NUMBER;
}

static void
pg_attribute_noreturn()
BadBins(const char *column, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"bins\""),
			 errdetail("Column \"%s\": %s", column, detail),
			 errhint("Give edges, e.g. bins => '{\"age\": [18, 25, 35, 50, 65]}', or equal bins, e.g. '{\"income\": {\"min\": 0, \"max\": 200000, \"width\": 10000}}'; dates and timestamps as strings, e.g. [\"2020-01-01\", \"2021-01-01\"].")));
}

/*
 * Checks the shape of one column's bins, before the column's type is known:
 * an array of 1 to 254 edges (numbers in increasing order, or strings), or
 * an object of exactly min, max and width (numbers or strings).  Errors
 * name the column.
 */
void
MrfBinsCheckShape(JsonbValue *v, const char *column)
{
	if (v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data))
	{
		int			n = JsonContainerSize(v->val.binary.data);
		double		last = -INFINITY;

		if (n < 1 || n > MRF_MAX_EDGES)
			BadBins(column, psprintf("give from 1 to %d edges (%d given).", MRF_MAX_EDGES, n));
		for (int i = 0; i < n; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);

			if (e->type == jbvNumeric)
			{
				double		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																   NumericGetDatum(e->val.numeric)));

				if (isnan(d) || isinf(d))
					BadBins(column, "edges must be finite numbers.");
				if (!(d > last))
					BadBins(column, "edges must increase strictly.");
				last = d;
			}
			else if (e->type != jbvString || e->val.string.len < 1)
				BadBins(column, "edges are numbers, or strings for dates and timestamps.");
		}
		return;
	}
	if (v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
	{
		JsonbContainer *obj = v->val.binary.data;
		const char *keys[] = {"min", "max", "width"};

		if (JsonContainerSize(obj) != 3)
			BadBins(column, "equal bins are an object of exactly min, max and width.");
		for (int i = 0; i < 3; i++)
		{
			JsonbValue *e = getKeyJsonValueFromContainer(obj, keys[i], strlen(keys[i]), NULL);

			if (e == NULL || (e->type != jbvNumeric && e->type != jbvString))
				BadBins(column, "equal bins are an object of exactly min, max and width.");
		}
		/* numbers: the count is known before the type (dates wait for theirs) */
		{
			JsonbValue *lo = getKeyJsonValueFromContainer(obj, "min", 3, NULL);
			JsonbValue *hi = getKeyJsonValueFromContainer(obj, "max", 3, NULL);
			JsonbValue *w = getKeyJsonValueFromContainer(obj, "width", 5, NULL);

			if (lo->type == jbvNumeric && hi->type == jbvNumeric && w->type == jbvNumeric)
			{
				double		a = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(lo->val.numeric)));
				double		b = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(hi->val.numeric)));
				double		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(w->val.numeric)));

				if (isnan(a) || isnan(b) || isinf(a) || isinf(b) || !(b > a))
					BadBins(column, "min must be less than max, both finite.");
				if (isnan(d) || isinf(d) || !(d > 0))
					BadBins(column, "the width must be a finite number greater than zero.");
				if (ceil((b - a) / d) + 1 > MRF_MAX_EDGES)
					BadBins(column, psprintf("min, max and width give %.0f bins; a column has at most %d (with the two open end bins).",
											 ceil((b - a) / d) + 2, MRF_MAX_EDGES + 1));
			}
		}
		return;
	}
	BadBins(column, "bins are an array of edges or an object of min, max and width.");
}

/* An edge the type's input refuses (a bad date) is reported with its column. */
static void
BinsContext(void *arg)
{
	errcontext("option bins, column \"%s\"", (const char *) arg);
}

/* Calls a type input function (3 arguments) with BinsContext. */
static Datum
TypeInput(PGFunction in, const char *text, const char *column)
{
	ErrorContextCallback context;
	Datum		d;

	context.callback = BinsContext;
	context.arg = (void *) column;
	context.previous = error_context_stack;
	error_context_stack = &context;
	d = DirectFunctionCall3(in, CStringGetDatum(text), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	error_context_stack = context.previous;
	return d;
}

/* A value of a scale from its text in the column's type (dates, timestamps). */
static double
ScaleOfText(MrfBinScale scale, const char *text, const char *column)
{
	switch (scale)
	{
		case MRF_BIN_DATE:
			{
				DateADT		d = DatumGetDateADT(TypeInput(date_in, text, column));

				if (DATE_NOT_FINITE(d))
					BadBins(column, "edges must be finite dates.");
				return (double) d;
			}
		case MRF_BIN_TIMESTAMP:
		case MRF_BIN_TIMESTAMPTZ:
			{
				Timestamp	t = DatumGetTimestamp(TypeInput(scale == MRF_BIN_TIMESTAMP ?
															timestamp_in : timestamptz_in, text, column));

				if (TIMESTAMP_NOT_FINITE(t))
					BadBins(column, "edges must be finite timestamps.");
				return (double) t;
			}
		default:
			BadBins(column, psprintf("\"%s\" is not a number; a string edge is for a date or timestamp column.", text));
	}
}

/* An edge (JSON number or string) on a column's scale. */
static double
EdgeValue(MrfBinScale scale, JsonbValue *e, const char *column)
{
	if (e->type == jbvNumeric)
	{
		if (scale == MRF_BIN_DATE || scale == MRF_BIN_TIMESTAMP || scale == MRF_BIN_TIMESTAMPTZ)
			BadBins(column, "edges of a date or timestamp column are strings, e.g. \"2020-01-01\".");
		return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
												  NumericGetDatum(e->val.numeric)));
	}
	return ScaleOfText(scale, pnstrdup(e->val.string.val, e->val.string.len), column);
}

/*
 * The width of equal bins on a scale: a positive number (days for a date
 * column, seconds for a timestamp column) or, for dates and timestamps, an
 * interval without months ("7 days", "1 hour"; a month has no fixed length).
 */
static double
WidthValue(MrfBinScale scale, JsonbValue *e, const char *column)
{
	double		w;

	if (e->type == jbvNumeric)
	{
		w = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(e->val.numeric)));
		if (scale == MRF_BIN_TIMESTAMP || scale == MRF_BIN_TIMESTAMPTZ)
			w *= USECS_PER_SEC;
	}
	else
	{
		Interval   *iv;

		if (scale != MRF_BIN_DATE && scale != MRF_BIN_TIMESTAMP && scale != MRF_BIN_TIMESTAMPTZ)
			BadBins(column, "the width of a number column's bins is a number.");
		iv = DatumGetIntervalP(TypeInput(interval_in, pnstrdup(e->val.string.val, e->val.string.len),
										 column));
		if (iv->month != 0)
			BadBins(column, "a width in months or years has no fixed length: give days (\"30 days\").");
		if (scale == MRF_BIN_DATE)
		{
			if (iv->time != 0)
				BadBins(column, "the width of a date column's bins is whole days.");
			w = iv->day;
		}
		else
			w = (double) iv->day * USECS_PER_DAY + (double) iv->time;
	}
	if (isnan(w) || isinf(w) || !(w > 0))
		BadBins(column, "the width must be a finite number greater than zero.");
	if (WholeScale(scale) && w != floor(w))
		BadBins(column, scale == MRF_BIN_INTEGER ? "the width of an integer column's bins is an integer." :
				"the width of a date column's bins is whole days.");
	return w;
}

/* The text of a point of a scale, as the column's type writes it (ISO dates). */
char *
MrfBinScaleText(MrfBinScale scale, double x)
{
	char		buf[MAXDATELEN + 1];
	struct pg_tm tm;
	fsec_t		fsec;

	switch (scale)
	{
		case MRF_BIN_INTEGER:
			return psprintf("%.0f", x);
		case MRF_BIN_NUMBER:
			return MrfDoubleText(x);
		case MRF_BIN_DATE:
			j2date((int) x + POSTGRES_EPOCH_JDATE, &tm.tm_year, &tm.tm_mon, &tm.tm_mday);
			EncodeDateOnly(&tm, USE_ISO_DATES, buf);
			return pstrdup(buf);
		case MRF_BIN_TIMESTAMP:
		case MRF_BIN_TIMESTAMPTZ:
			/* timestamps in UTC, written with +00: the text does not follow the session's zone */
			if (timestamp2tm((Timestamp) x, NULL, &tm, &fsec, NULL, NULL) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg("timestamp out of range")));
			tm.tm_isdst = 0;	/* a zone is written only for a known one: UTC */
			EncodeDateTime(&tm, fsec, scale == MRF_BIN_TIMESTAMPTZ, 0, NULL, USE_ISO_DATES, buf);
			return pstrdup(buf);
		default:
			break;
	}
	elog(ERROR, "no text for bins of this type");
}

/*
 * Loads a column's bins for its base type: the edges on its scale and the
 * m + 1 labels "(-inf,e1)", "[e1,e2)", ..., "[em,inf)" (each edge written
 * as given for numbers in a list, as the type writes it otherwise).
 * Errors (22023, naming the column) depend on the declaration and the type
 * only.
 */
void
MrfBinsLoad(JsonbValue *v, Oid base, const char *column, MrfBins *bins)
{
	char	  **texts;
	int			m;

	memset(bins, 0, sizeof(*bins));
	bins->scale = MrfBinScaleOf(base);
	if (bins->scale == MRF_BIN_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("option bins names column \"%s\" of type %s", column, format_type_be(base)),
				 errdetail("Bins are for integer, numeric, real, double precision, date and timestamp columns."),
				 errhint("Give a text or integer column's values with option domains instead.")));
	MrfBinsCheckShape(v, column);
	if (JsonContainerIsArray(v->val.binary.data))
	{
		m = JsonContainerSize(v->val.binary.data);
		bins->edges = palloc(sizeof(double) * m);
		texts = palloc(sizeof(char *) * m);
		for (int i = 0; i < m; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);

			bins->edges[i] = EdgeValue(bins->scale, e, column);
			texts[i] = e->type == jbvNumeric ? MrfDomainValueText(e) :
				MrfBinScaleText(bins->scale, bins->edges[i]);
			if (i > 0 && !(bins->edges[i] > bins->edges[i - 1]))
				BadBins(column, "edges must increase strictly.");
		}
	}
	else
	{
		JsonbContainer *obj = v->val.binary.data;
		double		lo = EdgeValue(bins->scale, getKeyJsonValueFromContainer(obj, "min", 3, NULL), column);
		double		hi = EdgeValue(bins->scale, getKeyJsonValueFromContainer(obj, "max", 3, NULL), column);
		double		w = WidthValue(bins->scale, getKeyJsonValueFromContainer(obj, "width", 5, NULL), column);
		double		count;

		if (isnan(lo) || isnan(hi) || isinf(lo) || isinf(hi) || !(hi > lo))
			BadBins(column, "min must be less than max, both finite.");
		count = ceil((hi - lo) / w);
		if (count + 1 > MRF_MAX_EDGES)
			BadBins(column, psprintf("min, max and width give %.0f bins; a column has at most %d (with the two open end bins).",
									 count + 2, MRF_MAX_EDGES + 1));
		m = (int) count + 1;
		bins->edges = palloc(sizeof(double) * m);
		texts = palloc(sizeof(char *) * m);
		for (int i = 0; i < m; i++)
		{
			/* lo + i w below hi, then hi itself (the last bin may be narrower) */
			bins->edges[i] = i == m - 1 ? hi : lo + i * w;
			texts[i] = MrfBinScaleText(bins->scale, bins->edges[i]);
			/* lo + i w rounds on the scale: far from 0, a small width gives equal edges */
			if (i > 0 && !(bins->edges[i] > bins->edges[i - 1]))
				BadBins(column, "min, max and width give edges that are equal as double precision numbers; give a wider width or edges.");
		}
	}
	if (bins->scale == MRF_BIN_INTEGER)
		for (int i = 0; i < m; i++)
			if (bins->edges[i] != floor(bins->edges[i]))
				BadBins(column, "the edges of an integer column's bins are integers.");
	bins->nedges = m;
	bins->labels = palloc(sizeof(char *) * (m + 1));
	bins->labels[0] = psprintf("(-inf,%s)", texts[0]);
	for (int i = 1; i < m; i++)
		bins->labels[i] = psprintf("[%s,%s)", texts[i - 1], texts[i]);
	bins->labels[m] = psprintf("[%s,inf)", texts[m - 1]);
}

/* A value of the column's type on its scale; NaN for a NaN (no bin). */
static double
ScaleOfDatum(MrfBinScale scale, Oid base, Datum value)
{
	switch (base)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		case INT8OID:
			return (double) DatumGetInt64(value);
		case NUMERICOID:
			/* never an error from a value: out of float8's range is +-inf */
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, value));
		case FLOAT4OID:
			return DatumGetFloat4(value);
		case FLOAT8OID:
			return DatumGetFloat8(value);
		case DATEOID:
			return (double) DatumGetDateADT(value);
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return (double) DatumGetTimestamp(value);
	}
	(void) scale;
	return NAN;
}

/*
 * The bin (code) of a value of base type base, or -1 for NaN.  Infinite
 * values (floats, dates, timestamps) fall in the open end bins.
 */
int
MrfBinOf(const MrfBins *bins, Oid base, Datum value)
{
	double		x = ScaleOfDatum(bins->scale, base, value);
	int			lo = 0;
	int			hi = bins->nedges;

	if (isnan(x))
		return -1;
	/* the number of edges <= x */
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (bins->edges[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The whole values of type base as doubles, from *lo up to *end exclusive:
 * int2's, int4's and int8's ranges (int8's to the largest double below 2^63,
 * so that end - lo stays below 2^64); dates and timestamps lie far inside
 * int8's, and their edges are always values of their type.
 */
static void
WholeRange(Oid base, double *lo, double *end)
{
	switch (base)
	{
		case INT2OID:
			*lo = PG_INT16_MIN;
			*end = (double) PG_INT16_MAX + 1;
			break;
		case INT4OID:
			*lo = PG_INT32_MIN;
			*end = (double) PG_INT32_MAX + 1;
			break;
		default:
			*lo = -9223372036854775808.0;
			*end = 9223372036854774784.0;
			break;
	}
}

/*
 * The text of a value drawn within bin b (0 .. nedges) of edges, for a column of base type base (its scale),
 * from rng: uniform within [e_b, e_b+1) (whole scales: a uniform integer
 * there, the edges being whole); the open end bins at their finite edge:
 * e_m for the last; for the first, the largest whole value below e1, or for
 * a number e1 itself (an open bin has no largest number inside it, so a
 * synthetic number of the first bin sits on its supremum).  The column type's input reads the text (it may
 * round, e.g. numeric(6, 2) or real).
 */
char *
MrfBinValueText(Oid base, const double *edges, int nedges, int b, MrfRng *rng)
{
	MrfBinScale scale = MrfBinScaleOf(base);
	double		x;

	if (b <= 0)
		x = WholeScale(scale) ? edges[0] - 1 : edges[0];
	else if (b >= nedges)
		x = edges[nedges - 1];
	else if (WholeScale(scale))
	{
		/*
		 * Within the bin's part of the type's range: an integer column's
		 * edges may be any finite numbers, its values may not.  That keeps
		 * the span below 2^64, as MrfRngBelow's uint64 bound must be:
		 * casting a larger double is undefined, and for a bin [0, 1e30) it
		 * gave 0 on x86-64, so every synthetic value was the bin's lower
		 * edge.  A draw past 2^53 rounds, and must not reach the bin's
		 * exclusive upper edge.
		 */
		double		first = ceil(edges[b - 1]);
		double		typeLo;
		double		typeEnd;
		double		lo;
		double		span;

		WholeRange(base, &typeLo, &typeEnd);
		lo = Max(first, typeLo);
		span = Min(ceil(edges[b]), typeEnd) - lo;
		x = span >= 1 ? lo + (double) MrfRngBelow(rng, (uint64) span) : first;
		if (!(x < edges[b]))
			x = first;
	}
	else
	{
		x = edges[b - 1] + MrfRngUniform(rng) * (edges[b] - edges[b - 1]);
		if (!(x < edges[b]))
			x = edges[b - 1];
	}
	return MrfBinScaleText(scale, x);
}
