/*
 * model/model.c - the mrf type: construction, JSON text I/O, binary I/O, jsonb
 * cast and mrf_info.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/shortest_dec.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"


static const char *const MrfKindNames[] = {
	NULL, "ising", "pairwise", "twise", "structure", "cliques"
};

/* Every kind's operations, by kind code; NULL: not readable yet. */
static const MrfKindOps *const KindOps[] = {
	NULL, &MrfIsingOps, &MrfPairwiseOps, &MrfTwiseOps, &MrfStructureOps, &MrfCliquesOps
};

/* The operations of a model's kind. */
const MrfKindOps *
MrfKindOpsOf(const MrfModel *model)
{
	if (model->kind < MRF_KIND_ISING || model->kind > MRF_KIND_CLIQUES ||
		KindOps[model->kind] == NULL)
		elog(ERROR, "mrf kind %d has no operations", (int) model->kind);
	return KindOps[model->kind];
}

/* Reads a rows x cols matrix (an array of row arrays) member into out. */
void
MrfJsonReadMatrix(JsonbContainer *root, const char *key, int rows, int cols, double *out)
{
	JsonbValue	v;

	if (!MrfJsonGetKey(root, key, &v) || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data) ||
		JsonContainerSize(v.val.binary.data) != (uint32) rows)
		MrfModelMalformed(psprintf("Member \"%s\" must be an array of %d rows.", key, rows));
	for (int i = 0; i < rows; i++)
		MrfJsonReadVector(getIthJsonbValueFromContainer(v.val.binary.data, i), cols,
						  out + (size_t) i * cols, key);
}

/* The SQL-facing name of a kind. */
const char *
MrfKindName(MrfKind kind)
{
	if (kind < MRF_KIND_ISING || kind > MRF_KIND_CLIQUES)
		elog(ERROR, "unknown mrf kind %d", (int) kind);
	return MrfKindNames[kind];
}

/* Maps a kind name back to its code, or 0. */
static MrfKind
MrfKindFromName(const char *name)
{
	for (int i = MRF_KIND_ISING; i <= MRF_KIND_CLIQUES; i++)
		if (strcmp(name, MrfKindNames[i]) == 0)
			return (MrfKind) i;
	return 0;
}

/* Allocates a model of the given shape; params are zeroed. */
MrfModel *
MrfModelCreate(MrfKind kind, int p, int k, int t, int nparams, uint16 flags,
			   Jsonb *meta)
{
	Size		head = MAXALIGN(offsetof(MrfModel, params) + sizeof(double) * (Size) nparams);
	Size		size = head + VARSIZE(meta);
	MrfModel   *model;

	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("mrf model would be too large (%zu bytes)", size),
				 errdetail("A model value is limited to 1 GB.")));
	model = palloc0(size);
	SET_VARSIZE(model, size);
	model->version = MRF_MODEL_VERSION;
	model->kind = (uint8) kind;
	model->flags = flags;
	model->p = p;
	model->k = k;
	model->t = t;
	model->nparams = nparams;
	model->meta_offset = (int32) head;
	memcpy((char *) model + head, meta, VARSIZE(meta));
	return model;
}

/* The metadata document of a model. */
Jsonb *
MrfModelMeta(const MrfModel *model)
{
	return (Jsonb *) ((const char *) model + model->meta_offset);
}

/*
 * Appends a double as JSON, with the shortest text that reads back exactly.
 * Negative zero is written as 0: a jsonb number has no sign of zero, so "-0"
 * would read back as 0 anyway and the text would change on a round trip.
 */
void
MrfJsonAppendDouble(StringInfo buf, double value)
{
	if (isnan(value) || isinf(value))
		appendStringInfoString(buf, "null");
	else if (value == 0)
		appendStringInfoChar(buf, '0');
	else
	{
		char	   *s = MrfDoubleText(value);

		appendStringInfoString(buf, s);
		pfree(s);
	}
}

/*
 * A finite double as the shortest decimal that reads back as the same
 * double, whatever the session's extra_float_digits (float8out_internal cuts
 * to 15 digits when it is 0 or less, so an option or a model written with it
 * would not be the double the learner used).
 */
char *
MrfDoubleText(double value)
{
	char	   *buf = palloc(DOUBLE_SHORTEST_DECIMAL_LEN);

	double_to_shortest_decimal_buf(value, buf);
	return buf;
}

/* Appends a JSON array of n doubles. */
void
MrfJsonAppendVector(StringInfo buf, const double *v, int n)
{
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		MrfJsonAppendDouble(buf, v[i]);
	}
	appendStringInfoChar(buf, ']');
}

/* Writes the model as a JSON document. */
static char *
MrfModelToCString(MrfModel *model)
{
	StringInfoData buf;
	Jsonb	   *meta = MrfModelMeta(model);

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"kind\": \"%s\", \"p\": %d, \"k\": %d",
					 MrfKindName(model->kind), model->p, model->k);
	if (model->kind == MRF_KIND_TWISE)
		appendStringInfo(&buf, ", \"t\": %d", model->t);

	MrfKindOpsOf(model)->write_json(&buf, model);
	appendStringInfoString(&buf, ", \"meta\": ");
	appendStringInfoString(&buf, JsonbToCString(NULL, &meta->root, VARSIZE(meta)));
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* Raises the error for a malformed mrf document. */
void
MrfModelMalformed(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type mrf"),
			 errdetail("%s", detail)));
}

/* Looks up key in a JSON object; a missing key gives false. */
bool
MrfJsonGetKey(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, key, strlen(key), out);

	return v != NULL;
}

/* Reads a JSON integer member that must be present. */
int
MrfJsonGetInt(JsonbContainer *obj, const char *key, int lo, int hi)
{
	JsonbValue	v;
	double		d;

	if (!MrfJsonGetKey(obj, key, &v) || v.type != jbvNumeric)
		MrfModelMalformed(psprintf("Member \"%s\" must be a number.", key));
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v.val.numeric)));
	if (d != floor(d) || d < lo || d > hi)
		MrfModelMalformed(psprintf("Member \"%s\" must be an integer from %d to %d.", key, lo, hi));
	return (int) d;
}

/* Reads a JSON array of exactly n finite numbers into out. */
void
MrfJsonReadVector(JsonbValue *arr, int n, double *out, const char *what)
{
	if (arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data) ||
		JsonContainerSize(arr->val.binary.data) != (uint32) n)
		MrfModelMalformed(psprintf("Member \"%s\" must be an array of %d numbers.", what, n));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(arr->val.binary.data, i);

		if (e == NULL || e->type != jbvNumeric)
			MrfModelMalformed(psprintf("Member \"%s\" must be an array of %d numbers.", what, n));
		out[i] = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e->val.numeric)));
		if (isnan(out[i]) || isinf(out[i]))
			MrfModelMalformed(psprintf("Member \"%s\" must hold finite numbers.", what));
	}
}

/* See model/model.h. */
int *
MrfJsonReadAlphabets(JsonbContainer *root, int p, int k)
{
	JsonbValue	v;
	double	   *values;
	int		   *kv;
	int			top = 0;
	bool		uniform = true;

	if (!MrfJsonGetKey(root, "alphabets", &v) || v.type == jbvNull)
		return NULL;
	values = palloc(sizeof(double) * p);
	MrfJsonReadVector(&v, p, values, "alphabets");
	kv = palloc(sizeof(int) * p);
	for (int i = 0; i < p; i++)
	{
		if (values[i] != floor(values[i]) || values[i] < 2 || values[i] > k)
			MrfModelMalformed(psprintf("Member \"alphabets\" must hold integers from 2 to k = %d.", k));
		kv[i] = (int) values[i];
		top = Max(top, kv[i]);
		uniform &= kv[i] == k;
	}
	if (top != k)
		MrfModelMalformed("The largest of \"alphabets\" must be k.");
	return uniform ? NULL : kv;
}

/* See model/model.h. */
void
MrfJsonAppendAlphabets(StringInfo buf, const MrfModel *model)
{
	if (!(model->flags & MRF_FLAG_ALPHABETS))
		return;
	appendStringInfoString(buf, ", \"alphabets\": [");
	for (int i = 0; i < model->p; i++)
		appendStringInfo(buf, "%s%d", i > 0 ? ", " : "", MrfModelAlphabet(model, i));
	appendStringInfoChar(buf, ']');
}

/* Parses an mrf JSON document. */
static MrfModel *
MrfModelFromCString(char *text)
{
	Jsonb	   *doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	JsonbContainer *root = &doc->root;
	JsonbValue	v;
	Jsonb	   *meta;
	MrfModel   *model;
	MrfKind		kind;
	int			p;

	if (!JsonContainerIsObject(root))
		MrfModelMalformed("An mrf document is a JSON object.");
	if (!MrfJsonGetKey(root, "kind", &v) || v.type != jbvString)
		MrfModelMalformed("Member \"kind\" must be a string.");
	kind = MrfKindFromName(pnstrdup(v.val.string.val, v.val.string.len));
	if (kind == 0)
		MrfModelMalformed("Member \"kind\" must be one of ising, pairwise, twise, structure, cliques.");
	if (KindOps[kind] == NULL)
		MrfModelMalformed(psprintf("Models of kind \"%s\" cannot be read yet.", MrfKindName(kind)));
	p = MrfJsonGetInt(root, "p", 2, MRF_MODEL_MAX_P);

	if (MrfJsonGetKey(root, "meta", &v))
	{
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			MrfModelMalformed("Member \"meta\" must be an object.");
		meta = JsonbValueToJsonb(&v);
	}
	else
		meta = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));

	model = KindOps[kind]->read_json(root, p, meta);

	/* Keep the binary flag in step with the document it was read from. */
	if (MrfJsonGetKey(&MrfModelMeta(model)->root, "private", &v) &&
		v.type == jbvBool && !v.val.boolean)
		model->flags |= MRF_FLAG_NOT_PRIVATE;
	/* names and labels must fit the model's shape (the accessors read them) */
	MrfNamesValidate(model);
	return model;
}

PG_FUNCTION_INFO_V1(mrf_in);
/* Text input: a JSON document. */
Datum
mrf_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(MrfModelFromCString(PG_GETARG_CSTRING(0)));
}

PG_FUNCTION_INFO_V1(mrf_out);
/* Text output: a JSON document. */
Datum
mrf_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(MrfModelToCString(PG_GETARG_MRF_P(0)));
}

PG_FUNCTION_INFO_V1(mrf_send);
/* Binary output: a version byte and the JSON text (as jsonb's send does). */
Datum
mrf_send(PG_FUNCTION_ARGS)
{
	char	   *text = MrfModelToCString(PG_GETARG_MRF_P(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint8(&buf, 1);
	pq_sendtext(&buf, text, strlen(text));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(mrf_recv);
/* Binary input: the format of mrf_send. */
Datum
mrf_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version = pq_getmsgint(buf, 1);
	int			nbytes;
	char	   *text;

	if (version != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported mrf binary format version %d", version)));
	text = pq_getmsgtext(buf, buf->len - buf->cursor, &nbytes);
	PG_RETURN_POINTER(MrfModelFromCString(text));
}

PG_FUNCTION_INFO_V1(mrf_to_jsonb);
/* Cast to jsonb: the text form, parsed. */
Datum
mrf_to_jsonb(PG_FUNCTION_ARGS)
{
	char	   *text = MrfModelToCString(PG_GETARG_MRF_P(0));

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

PG_FUNCTION_INFO_V1(mrf_info);
/* Summary of a model: kind, sizes and all metadata, without parameters. */
Datum
mrf_info(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	Jsonb	   *meta = MrfModelMeta(model);
	StringInfoData buf;
	char	   *metatext = JsonbToCString(NULL, &meta->root, VARSIZE(meta));

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"kind\": \"%s\", \"p\": %d, \"k\": %d, \"parameters\": %d, \"symmetric\": %s",
					 MrfKindName(model->kind), model->p, model->k, model->nparams,
					 (model->flags & MRF_FLAG_SYMMETRIC) ? "true" : "false");
	if (model->kind == MRF_KIND_TWISE)
		appendStringInfo(&buf, ", \"t\": %d", model->t);
	/* Merge the metadata object's members after ours. */
	if (strcmp(metatext, "{}") != 0)
		appendStringInfo(&buf, ", %s", metatext + 1);
	else
		appendStringInfoChar(&buf, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}
