/*
 * model/names.c - variable names and value labels of models learned from rows of
 * columns (see model/names.h): built from the readers' types, kept in the model's
 * metadata, checked when a model is read, and appended to the accessors'
 * rows.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "core/bp.h"
#include "pg/driver/learners.h"
#include "pg/model/names.h"

/*
 * Appends {"name": ..., "labels": [...], "type": ..., "typmod": ...} for one
 * variable.  The type (schema-qualified, with its typmod when it has one) is
 * the column's declared type, which mrf_synthesize_into gives the table it
 * creates; omitted when typid is invalid.
 */
static void
AppendVariable(StringInfo buf, const char *name, const char *const *labels, int nlabels,
			   Oid typid, int32 typmod, const MrfBins *bins)
{
	appendStringInfoString(buf, "{\"name\": ");
	if (name != NULL)
		escape_json(buf, name);
	else
		appendStringInfoString(buf, "null");
	appendStringInfoString(buf, ", \"labels\": ");
	if (labels == NULL)
		appendStringInfoString(buf, "null");
	else
	{
		appendStringInfoChar(buf, '[');
		for (int a = 0; a < nlabels; a++)
		{
			if (a > 0)
				appendStringInfoString(buf, ", ");
			if (labels[a] != NULL)
				escape_json(buf, labels[a]);
			else
				appendStringInfoString(buf, "null");
		}
		appendStringInfoChar(buf, ']');
	}
	if (OidIsValid(typid))
	{
		appendStringInfoString(buf, ", \"type\": ");
		escape_json(buf, format_type_extended(typid, -1, FORMAT_TYPE_FORCE_QUALIFY));
		if (typmod >= 0)
			appendStringInfo(buf, ", \"typmod\": %d", typmod);
	}
	if (bins != NULL && bins->nedges > 0)
	{
		/* a binned column's edges on its type's scale (driver/bins.h), for mrf_synthesize */
		appendStringInfoString(buf, ", \"bins\": [");
		for (int e = 0; e < bins->nedges; e++)
			appendStringInfo(buf, "%s%s", e > 0 ? ", " : "", MrfDoubleText(bins->edges[e]));
		appendStringInfoChar(buf, ']');
	}
	appendStringInfoChar(buf, '}');
}

/* An enum's labels in its sort order (public: the type's declaration). */
static const char **
EnumLabels(const MrfEnumAlphabet *alpha)
{
	const char **labels = palloc0(sizeof(char *) * alpha->nlabels);

	for (int i = 0; i < alpha->nlabels; i++)
	{
		HeapTuple	tup = SearchSysCache1(ENUMOID, ObjectIdGetDatum(alpha->oids[i]));

		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for enum label %u", alpha->oids[i]);
		labels[alpha->index[i]] = pstrdup(NameStr(((Form_pg_enum) GETSTRUCT(tup))->enumlabel));
		ReleaseSysCache(tup);
	}
	return labels;
}

static const char *const BoolLabels[] = {"false", "true"};

/*
 * The "variables" JSON array of a binary reader whose p is known: rows of
 * boolean columns name their variables; arrays and bit strings have neither
 * names nor labels beyond their type's coding, so they get none.
 */
char *
MrfBinaryReaderVariables(const MrfBinaryReader *reader)
{
	StringInfoData buf;
	int			j = 0;

	if (reader->p <= 0 || reader->form != MRF_INPUT_RECORD || reader->tupdesc == NULL)
		return NULL;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	for (int i = 0; i < reader->tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);

		if (att->attisdropped)
			continue;
		if (j++ > 0)
			appendStringInfoString(&buf, ", ");
		AppendVariable(&buf, NameStr(att->attname), BoolLabels, 2, att->atttypid, att->atttypmod, NULL);
	}
	appendStringInfoChar(&buf, ']');
	return buf.data;
}

/* The "variables" JSON array of a k-ary reader whose p is known, or NULL. */
char *
MrfKaryReaderVariables(const MrfKaryReader *reader)
{
	StringInfoData buf;
	int			j = 0;

	if (reader->p <= 0)
		return NULL;
	/* integer codes with k declared: nothing to say beyond the codes */
	if (reader->form == MRF_KARY_INT2_ARRAY || reader->form == MRF_KARY_INT4_ARRAY)
		return NULL;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	if (reader->form == MRF_KARY_ENUM_ARRAY)
	{
		const char **labels = EnumLabels(&reader->alphabets[0]);

		for (; j < reader->p; j++)
		{
			if (j > 0)
				appendStringInfoString(&buf, ", ");
			AppendVariable(&buf, NULL, labels, reader->alphabets[0].nlabels,
						   reader->alphabets[0].typid, -1, NULL);
		}
	}
	else if (reader->tupdesc != NULL)
	{
		for (int i = 0; i < reader->tupdesc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);
			const char **labels;
			int			n;

			if (att->attisdropped)
				continue;

			if (j++ > 0)
				appendStringInfoString(&buf, ", ");
			if (reader->alphabets != NULL && reader->alphabets[i].nlabels > 0)
			{
				labels = EnumLabels(&reader->alphabets[i]);
				n = reader->alphabets[i].nlabels;
			}
			else if (reader->declared != NULL && reader->declared[i].nlabels > 0)
			{
				labels = (const char **) reader->declared[i].labels;
				n = reader->declared[i].nlabels;
			}
			else
			{
				labels = (const char **) BoolLabels;
				n = 2;
			}
			if (reader->null_extra != NULL && reader->null_extra[i])
			{
				/* nulls => 'category': a last value, labelled null */
				const char **more = palloc0(sizeof(char *) * (n + 1));

				memcpy(more, labels, sizeof(char *) * n);
				labels = more;
				n++;
			}
			AppendVariable(&buf, NameStr(att->attname), labels, n, att->atttypid, att->atttypmod,
						   reader->declared != NULL ? &reader->declared[i].bins : NULL);
		}
	}
	else
		return NULL;
	appendStringInfoChar(&buf, ']');
	return buf.data;
}

/* The column names of a "variables" array, as a JSON array, or NULL if any is missing. */
static char *
ColumnsOf(const char *variables)
{
	Jsonb	   *doc;
	StringInfoData buf;
	int			n;

	if (variables == NULL)
		return NULL;
	doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(variables)));
	n = JsonContainerSize(&doc->root);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	for (int i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&doc->root, i);
		JsonbValue	name;

		if (v == NULL || v->type != jbvBinary ||
			getKeyJsonValueFromContainer(v->val.binary.data, "name", 4, &name) == NULL ||
			name.type != jbvString)
			return NULL;
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		escape_json(&buf, pnstrdup(name.val.string.val, name.val.string.len));
	}
	appendStringInfoChar(&buf, ']');
	return buf.data;
}

/* {"relation": "schema.name", ...} for a relation (qualified, as JSON). */
static void
AppendRelation(StringInfo buf, Oid relid)
{
	appendStringInfoString(buf, "{\"relation\": ");
	escape_json(buf, quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)));
}

/* The "source" of whole rows of type typid: a relation's row type, else NULL. */
char *
MrfSourceOfRowType(Oid typid, const char *variables)
{
	Oid			relid = get_typ_typrelid(getBaseType(typid));
	char		relkind;
	char	   *columns;
	StringInfoData buf;

	if (!OidIsValid(relid))
		return NULL;
	relkind = get_rel_relkind(relid);
	if (relkind == RELKIND_COMPOSITE_TYPE || relkind == '\0')
		return NULL;
	initStringInfo(&buf);
	AppendRelation(&buf, relid);
	columns = ColumnsOf(variables);
	if (columns != NULL)
		appendStringInfo(&buf, ", \"columns\": %s", columns);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* The "source" of column `column` (NULL: whole rows) of relation relid. */
char *
MrfSourceOfColumn(Oid relid, const char *column, const char *variables)
{
	StringInfoData buf;
	char	   *columns;

	if (column == NULL)
		return MrfSourceOfRowType(get_rel_type_id(relid), variables);
	initStringInfo(&buf);
	AppendRelation(&buf, relid);
	appendStringInfoString(&buf, ", \"column\": ");
	escape_json(&buf, column);
	columns = ColumnsOf(variables);
	if (columns != NULL)
		appendStringInfo(&buf, ", \"columns\": %s", columns);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* A copy of model with "variables" and "source" added to its metadata. */
MrfModel *
MrfModelWithNames(MrfModel *model, const char *variables, const char *source)
{
	StringInfoData buf;
	Jsonb	   *more;
	Jsonb	   *meta;
	MrfModel   *copy;

	if (model == NULL || (variables == NULL && source == NULL))
		return model;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	if (variables != NULL)
		appendStringInfo(&buf, "\"variables\": %s", variables);
	if (source != NULL)
		appendStringInfo(&buf, "%s\"source\": %s", variables != NULL ? ", " : "", source);
	appendStringInfoChar(&buf, '}');
	more = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
	meta = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(MrfModelMeta(model)),
											  JsonbPGetDatum(more)));
	copy = MrfModelCreate((MrfKind) model->kind, model->p, model->k, model->t, model->nparams,
						  model->flags, meta);
	memcpy(copy->params, model->params, sizeof(double) * model->nparams);
	/* a model that does not fit its names would be refused when read back */
	MrfNamesValidate(copy);
	return copy;
}

/* The values variable i of a model can take (the labels' count bound). */
static int
VariableAlphabet(const MrfModel *model, int i)
{
	int			k = MrfModelAlphabet(model, i);

	return k >= 2 ? k : 2;
}

/*
 * Whether a model's labels must name every value of each variable's
 * alphabet: kinds whose alphabets are exact (binary kinds, pairwise models
 * with or without per-variable alphabets, clique models that record
 * theirs), so every code mrf_synthesize draws has its label.  Structures
 * draw nothing, and clique models with one alphabet k for all variables
 * keep a boolean column's two labels.
 */
static bool
LabelsExact(const MrfModel *model)
{
	if (model->kind == MRF_KIND_STRUCTURE)
		return false;
	if (model->kind == MRF_KIND_CLIQUES)
		return (model->flags & MRF_FLAG_ALPHABETS) != 0;
	return true;
}

/* Parses a model's names; errors (22P02) for a malformed "variables". */
MrfNames *
MrfNamesOf(const MrfModel *model)
{
	Jsonb	   *meta = MrfModelMeta(model);
	MrfNames   *names = palloc0(sizeof(MrfNames));
	JsonbValue	v;
	JsonbContainer *arr;

	names->p = model->p;
	if (getKeyJsonValueFromContainer(&meta->root, "variables", 9, &v) == NULL ||
		v.type == jbvNull)
		return names;
	if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data) ||
		JsonContainerSize(v.val.binary.data) != (uint32) model->p)
		MrfModelMalformed(psprintf("Member \"meta\".\"variables\" must be an array of %d objects.",
								   model->p));
	arr = v.val.binary.data;
	names->present = true;
	names->names = palloc0(sizeof(char *) * model->p);
	names->nlabels = palloc0(sizeof(int) * model->p);
	names->labels = palloc0(sizeof(char **) * model->p);
	names->nedges = palloc0(sizeof(int) * model->p);
	names->edges = palloc0(sizeof(double *) * model->p);
	for (int i = 0; i < model->p; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(arr, i);
		JsonbValue	name;
		JsonbValue	labels;
		JsonbValue	bins;
		int			alphabet = VariableAlphabet(model, i);

		if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			MrfModelMalformed("Each member of \"variables\" must be an object with \"name\" and \"labels\".");
		if (getKeyJsonValueFromContainer(e->val.binary.data, "name", 4, &name) != NULL &&
			name.type != jbvNull)
		{
			if (name.type != jbvString)
				MrfModelMalformed("A variable's \"name\" must be a string or null.");
			names->names[i] = pnstrdup(name.val.string.val, name.val.string.len);
		}
		if (getKeyJsonValueFromContainer(e->val.binary.data, "labels", 6, &labels) != NULL &&
			labels.type != jbvNull)
		{
			int			n;

			if (labels.type != jbvBinary || !JsonContainerIsArray(labels.val.binary.data))
				MrfModelMalformed("A variable's \"labels\" must be an array or null.");
			n = JsonContainerSize(labels.val.binary.data);
			if (LabelsExact(model) && n != alphabet)
				MrfModelMalformed(psprintf("Variable %d's \"labels\" must have %d members, one per value of its alphabet.",
										   i + 1, alphabet));
			if (n < 1 || n > alphabet)
				MrfModelMalformed(psprintf("A variable's \"labels\" must have from 1 to %d members (one per value).",
										   alphabet));
			names->nlabels[i] = n;
			names->labels[i] = palloc0(sizeof(char *) * n);
			for (int a = 0; a < n; a++)
			{
				JsonbValue *l = getIthJsonbValueFromContainer(labels.val.binary.data, a);

				if (l->type == jbvString)
					names->labels[i][a] = pnstrdup(l->val.string.val, l->val.string.len);
				else if (l->type != jbvNull)
					MrfModelMalformed("A variable's labels must be strings or null.");
			}
		}
		if (getKeyJsonValueFromContainer(e->val.binary.data, "bins", 4, &bins) != NULL)
		{
			/* a binned variable: its edges, one fewer than its bins */
			int			m;

			if (bins.type != jbvBinary || !JsonContainerIsArray(bins.val.binary.data) ||
				(m = JsonContainerSize(bins.val.binary.data)) < 1 || names->labels[i] == NULL ||
				m > names->nlabels[i] - 1)
				MrfModelMalformed("A variable's \"bins\" must be an array of its edges, one fewer than its labels (a NULL label aside).");
			names->nedges[i] = m;
			names->edges[i] = palloc(sizeof(double) * m);
			for (int a = 0; a < m; a++)
			{
				JsonbValue *x = getIthJsonbValueFromContainer(bins.val.binary.data, a);
				double		d;

				if (x->type != jbvNumeric)
					MrfModelMalformed("A variable's bins are numbers.");
				d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
													   NumericGetDatum(x->val.numeric)));
				if (isnan(d) || isinf(d) || (a > 0 && !(d > names->edges[i][a - 1])))
					MrfModelMalformed("A variable's bins are finite and increase strictly.");
				names->edges[i][a] = d;
			}
		}
	}
	return names;
}

/* Checks a model's "variables" against its shape. */
void
MrfNamesValidate(const MrfModel *model)
{
	(void) MrfNamesOf(model);
}

/*
 * The label of code `code` of variable i: binary kinds code values -1/+1
 * (labels[0] is -1), k-ary kinds 0..k-1.
 */
const char *
MrfNamesLabel(const MrfNames *names, int kind, int i, int code)
{
	int			index;

	if (!names->present || i < 0 || i >= names->p || names->labels[i] == NULL)
		return NULL;
	if (kind == MRF_KIND_ISING || kind == MRF_KIND_TWISE)
		index = code > 0 ? 1 : 0;
	else
		index = code;
	if (index < 0 || index >= names->nlabels[i])
		return NULL;
	return names->labels[i][index];
}

/* The name of 1-based variable v, or NULL. */
static const char *
NameOf(const MrfNames *names, int v)
{
	if (!names->present || v < 1 || v > names->p)
		return NULL;
	return names->names[v - 1];
}

/* A text datum, or a null. */
static Datum
TextOrNull(const char *s, bool *isnull)
{
	*isnull = (s == NULL);
	return s == NULL ? (Datum) 0 : CStringGetTextDatum(s);
}

/* A text[] of n strings (NULL entries are SQL NULLs). */
static Datum
TextArray(const char **s, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * (n + 1));
	bool	   *nulls = palloc(sizeof(bool) * (n + 1));
	int			dims[1] = {n};
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
		elems[i] = TextOrNull(s[i], &nulls[i]);
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, TEXTOID, -1, false,
											  TYPALIGN_INT));
}

/* How many named columns each shape appends. */
static int
NamedColumns(MrfNamedShape shape)
{
	switch (shape)
	{
		case MRF_NAMED_EDGE:
		case MRF_NAMED_FIELD:
		case MRF_NAMED_TABLE:
			return 2;
		case MRF_NAMED_WEIGHT:
			return 4;
		case MRF_NAMED_SET:
			return 1;
	}
	return 0;
}

/* How many leading columns (positions, codes, values) each shape has. */
static int
LeadColumns(MrfNamedShape shape)
{
	switch (shape)
	{
		case MRF_NAMED_EDGE:
		case MRF_NAMED_FIELD:
		case MRF_NAMED_TABLE:
			return 3;
		case MRF_NAMED_WEIGHT:
			return 5;
		case MRF_NAMED_SET:
			return 2;
	}
	return 0;
}

/* Fills the named columns of one row from its leading columns. */
static void
FillNamed(const MrfNames *names, int kind, MrfNamedShape shape, const Datum *in,
		  Datum *out, bool *outnulls)
{
	int			nnamed = NamedColumns(shape);

	if (!names->present)
	{
		for (int c = 0; c < nnamed; c++)
			outnulls[c] = true;
		return;
	}
	switch (shape)
	{
		case MRF_NAMED_EDGE:
			out[0] = TextOrNull(NameOf(names, DatumGetInt32(in[0])), &outnulls[0]);
			out[1] = TextOrNull(NameOf(names, DatumGetInt32(in[1])), &outnulls[1]);
			break;
		case MRF_NAMED_FIELD:
			out[0] = TextOrNull(NameOf(names, DatumGetInt32(in[0])), &outnulls[0]);
			out[1] = TextOrNull(MrfNamesLabel(names, kind, DatumGetInt32(in[0]) - 1,
											  DatumGetInt32(in[1])), &outnulls[1]);
			break;
		case MRF_NAMED_WEIGHT:
			out[0] = TextOrNull(NameOf(names, DatumGetInt32(in[0])), &outnulls[0]);
			out[1] = TextOrNull(NameOf(names, DatumGetInt32(in[1])), &outnulls[1]);
			out[2] = TextOrNull(MrfNamesLabel(names, kind, DatumGetInt32(in[0]) - 1,
											  DatumGetInt32(in[2])), &outnulls[2]);
			out[3] = TextOrNull(MrfNamesLabel(names, kind, DatumGetInt32(in[1]) - 1,
											  DatumGetInt32(in[3])), &outnulls[3]);
			break;
		case MRF_NAMED_SET:
		case MRF_NAMED_TABLE:
			{
				ArrayType  *vars = DatumGetArrayTypeP(in[0]);
				int			n = ArrayGetNItems(ARR_NDIM(vars), ARR_DIMS(vars));
				const int32 *v = (const int32 *) ARR_DATA_PTR(vars);
				const char **s = palloc(sizeof(char *) * (n + 1));

				for (int e = 0; e < n; e++)
					s[e] = NameOf(names, v[e]);
				out[0] = TextArray(s, n);
				outnulls[0] = false;
				if (shape == MRF_NAMED_TABLE)
				{
					ArrayType  *codes = DatumGetArrayTypeP(in[1]);
					const int32 *c = (const int32 *) ARR_DATA_PTR(codes);

					for (int e = 0; e < n; e++)
						s[e] = MrfNamesLabel(names, kind, v[e] - 1, c[e]);
					out[1] = TextArray(s, n);
					outnulls[1] = false;
				}
				break;
			}
	}
}

/* The accessor call MrfNamedRows is running: where MrfPutRow sends rows. */
typedef struct MrfNamedCall
{
	ReturnSetInfo *inner;		/* what the inner accessor writes to */
	ReturnSetInfo *outer;		/* the function's result */
	const MrfNames *names;
	int			kind;
	MrfNamedShape shape;
	int			nlead;
	int			natts;
	Datum	   *values;
	bool	   *nulls;
	MemoryContext rowcxt;		/* the named columns of one row */
} MrfNamedCall;

static MrfNamedCall *ActiveNamedCall = NULL;

/*
 * The accessors' way to emit a row of their leading columns: under
 * MrfNamedRows it goes to the function's result with the names and labels
 * appended, otherwise to rsinfo's own tuplestore.
 */
void
MrfPutRow(ReturnSetInfo *rsinfo, Datum *values, bool *nulls)
{
	MrfNamedCall *call = ActiveNamedCall;
	MemoryContext old;

	if (call == NULL || call->inner != rsinfo)
	{
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		return;
	}
	memcpy(call->values, values, sizeof(Datum) * call->nlead);
	memcpy(call->nulls, nulls, sizeof(bool) * call->nlead);
	old = MemoryContextSwitchTo(call->rowcxt);
	FillNamed(call->names, call->kind, call->shape, values, call->values + call->nlead,
			  call->nulls + call->nlead);
	tuplestore_putvalues(call->outer->setResult, call->outer->setDesc, call->values, call->nulls);
	MemoryContextSwitchTo(old);
	MemoryContextReset(call->rowcxt);
}

/*
 * Runs `inner` with the leading columns of the function's result as its
 * expected row type; its rows (MrfPutRow) go to the result with the names
 * and labels appended.
 */
Datum
MrfNamedRows(FunctionCallInfo fcinfo, PGFunction inner, MrfNamedShape shape)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MrfModel   *model = PG_GETARG_MRF_P(0);
	ReturnSetInfo inner_rsinfo;
	MrfNamedCall call;
	TupleDesc	full;
	TupleDesc	lead;

	memset(&call, 0, sizeof(call));
	call.names = MrfNamesOf(model);
	call.kind = model->kind;
	call.shape = shape;
	if (get_call_result_type(fcinfo, NULL, &full) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	call.natts = full->natts;
	call.nlead = LeadColumns(shape);
	/* a catalog from before names (0.1.0, not yet updated): the old rows */
	if (full->natts == call.nlead)
	{
		inner_rsinfo = *rsinfo;
		inner_rsinfo.expectedDesc = full;
		fcinfo->resultinfo = (Node *) &inner_rsinfo;
		PG_TRY();
		{
			(void) inner(fcinfo);
		}
		PG_FINALLY();
		{
			fcinfo->resultinfo = (Node *) rsinfo;
		}
		PG_END_TRY();
		rsinfo->returnMode = inner_rsinfo.returnMode;
		rsinfo->setResult = inner_rsinfo.setResult;
		rsinfo->setDesc = inner_rsinfo.setDesc;
		return (Datum) 0;
	}
	if (full->natts != call.nlead + NamedColumns(shape))
		elog(ERROR, "accessor has an unexpected number of result columns");
	lead = CreateTemplateTupleDesc(call.nlead);
	for (int c = 0; c < call.nlead; c++)
		TupleDescCopyEntry(lead, c + 1, full, c + 1);
	call.values = palloc0(sizeof(Datum) * call.natts);
	call.nulls = palloc0(sizeof(bool) * call.natts);
	call.rowcxt = AllocSetContextCreate(CurrentMemoryContext, "mrfdp named row",
										ALLOCSET_SMALL_SIZES);

	InitMaterializedSRF(fcinfo, 0);
	call.outer = rsinfo;
	inner_rsinfo = *rsinfo;
	inner_rsinfo.expectedDesc = lead;
	inner_rsinfo.setResult = NULL;
	inner_rsinfo.setDesc = NULL;
	call.inner = &inner_rsinfo;
	fcinfo->resultinfo = (Node *) &inner_rsinfo;
	ActiveNamedCall = &call;
	PG_TRY();
	{
		(void) inner(fcinfo);
	}
	PG_FINALLY();
	{
		ActiveNamedCall = NULL;
		fcinfo->resultinfo = (Node *) rsinfo;
	}
	PG_END_TRY();
	/* the inner accessor's own (empty) store */
	if (inner_rsinfo.setResult != NULL)
		tuplestore_end(inner_rsinfo.setResult);
	MemoryContextDelete(call.rowcxt);
	rsinfo->returnMode = SFRM_Materialize;
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_variables);
/* A model's variables (i, name, labels), 1-based; names and labels NULL when unknown. */
Datum
mrf_variables(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	MrfNames   *names = MrfNamesOf(model);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < model->p; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = TextOrNull(names->present ? names->names[i] : NULL, &nulls[1]);
		if (names->present && names->labels[i] != NULL)
			values[2] = TextArray((const char **) names->labels[i], names->nlabels[i]);
		else
			nulls[2] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* Appends s as a quoted DOT string. */
static void
AppendDotString(StringInfo buf, const char *s)
{
	appendStringInfoChar(buf, '"');
	for (; *s; s++)
	{
		if (*s == '"' || *s == '\\')
			appendStringInfoChar(buf, '\\');
		if (*s == '\n')
			appendStringInfoString(buf, "\\n");
		else
			appendStringInfoChar(buf, *s);
	}
	appendStringInfoChar(buf, '"');
}

/* Orders pair keys i * p + j ascending. */
static int
DotPairCmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

/*
 * The edges of a clique model's drawing: every pair of variables that share
 * a clique, once, with the number of cliques holding it as its tooltip.  A
 * clique model has no weight per pair (its tables are over whole cliques),
 * so the edges are drawn alike.
 */
static void
DotCliquePairs(StringInfo buf, const MrfModel *model)
{
	MrfCliqueSet *set = MrfCliquesModelSet(model);
	int64		npairs = 0;
	int64	   *pairs;
	int64		a;

	for (int c = 0; c < set->m; c++)
	{
		int64		size = set->start[c + 1] - set->start[c];

		npairs += size * (size - 1) / 2;
	}
	pairs = palloc(sizeof(int64) * (npairs + 1));
	npairs = 0;
	for (int c = 0; c < set->m; c++)
		for (int x = set->start[c]; x < set->start[c + 1]; x++)
			for (int y = x + 1; y < set->start[c + 1]; y++)
				pairs[npairs++] = (int64) set->var[x] * set->p + set->var[y];
	qsort(pairs, npairs, sizeof(int64), DotPairCmp);
	for (a = 0; a < npairs;)
	{
		int64		b = a;

		while (b < npairs && pairs[b] == pairs[a])
			b++;
		appendStringInfo(buf, "  v%d -- v%d [penwidth=1.50, color=\"#1f5fa8\", style=solid, tooltip=\"%lld clique%s\"];\n",
						 (int) (pairs[a] / set->p) + 1, (int) (pairs[a] % set->p) + 1,
						 (long long) (b - a), b - a > 1 ? "s" : "");
		a = b;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(pairs);
}

/*
 * The edges of a weighted model's drawing: one per mrf_edges row above the
 * threshold, its width growing with |weight|, its sign shown by colour and
 * style (positive: solid blue, negative: dashed red).
 */
static void
DotWeightedEdges(StringInfo buf, MrfModel *model, const MrfKindOps *ops, double threshold)
{
	ReturnSetInfo rs;
	TupleDesc	desc;
	TupleTableSlot *slot;
	double		top = 0;
	int			pass;

	desc = CreateTemplateTupleDesc(3);
	TupleDescInitEntry(desc, 1, "i", INT4OID, -1, 0);
	TupleDescInitEntry(desc, 2, "j", INT4OID, -1, 0);
	TupleDescInitEntry(desc, 3, "weight", FLOAT8OID, -1, 0);
	memset(&rs, 0, sizeof(rs));
	rs.type = T_ReturnSetInfo;
	rs.setDesc = desc;
	rs.setResult = tuplestore_begin_heap(true, false, work_mem);
	ops->edges(model, threshold, &rs);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	/* first the largest |weight|, then the edges scaled by it */
	for (pass = 0; pass < 2; pass++)
	{
		tuplestore_rescan(rs.setResult);
		while (tuplestore_gettupleslot(rs.setResult, true, false, slot))
		{
			int			i;
			int			j;
			double		w;

			slot_getallattrs(slot);
			i = DatumGetInt32(slot->tts_values[0]);
			j = DatumGetInt32(slot->tts_values[1]);
			w = DatumGetFloat8(slot->tts_values[2]);
			if (pass == 0)
			{
				top = Max(top, fabs(w));
				continue;
			}
			appendStringInfo(buf, "  v%d -- v%d [penwidth=%.2f, color=\"%s\", style=%s, tooltip=\"%s\"];\n",
							 i, j, 0.75 + 5.25 * (top > 0 ? fabs(w) / top : 1.0),
							 w >= 0 ? "#1f5fa8" : "#c0392b", w >= 0 ? "solid" : "dashed",
							 MrfDoubleText(w));
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	tuplestore_end(rs.setResult);
}

PG_FUNCTION_INFO_V1(mrf_dot);
/*
 * The learned graph as a Graphviz DOT document: one node per variable
 * (named by its column when the model has names), then the edges: a
 * weighted model's mrf_edges rows above the threshold (DotWeightedEdges), a
 * clique model's (MST, AIM, mrf_learn_cliques) pairs that share a clique
 * (DotCliquePairs; no weights, so no threshold).  Post-processing of a
 * released model.
 */
Datum
mrf_dot(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	double		threshold = PG_GETARG_FLOAT8(1);
	const MrfKindOps *ops = MrfKindOpsOf(model);
	MrfNames   *names = MrfNamesOf(model);
	StringInfoData buf;

	if (ops->edges == NULL && model->kind != MRF_KIND_CLIQUES)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("mrf_dot does not apply to models of kind %s", MrfKindName(model->kind))));
	if (isnan(threshold) || threshold < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must be a non-negative number")));
	if (model->kind == MRF_KIND_CLIQUES && threshold > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mrf_dot takes no threshold for a clique model"),
				 errdetail("A clique model's tables are over whole cliques: its pairs have no weight to compare."),
				 errhint("Call mrf_dot(model) to draw every pair of variables that share a clique.")));

	initStringInfo(&buf);
	appendStringInfoString(&buf, "graph mrf {\n"
						   "  graph [layout=neato, overlap=false, splines=true, outputorder=edgesfirst];\n"
						   "  node [shape=ellipse, style=filled, fillcolor=\"#f4f4f4\", fontname=\"Helvetica\"];\n"
						   "  edge [fontname=\"Helvetica\", fontsize=9];\n");
	for (int i = 0; i < model->p; i++)
	{
		appendStringInfo(&buf, "  v%d [label=", i + 1);
		if (names->present && names->names[i] != NULL)
			AppendDotString(&buf, names->names[i]);
		else
			appendStringInfo(&buf, "\"%d\"", i + 1);
		appendStringInfoString(&buf, "];\n");
	}
	if (model->kind == MRF_KIND_CLIQUES)
		DotCliquePairs(&buf, model);
	else
		DotWeightedEdges(&buf, model, ops, threshold);
	appendStringInfoString(&buf, "}\n");
	PG_RETURN_TEXT_P(cstring_to_text(buf.data));
}
