/*
 * driver/read_kary.c - reading samples of k-ary variables from row values.
 */
#include "postgres.h"

#include <errno.h>

#include "access/htup_details.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "pg/driver/alphabets.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/read_kary.h"
#include "pg/sqlapi/options.h"

/* The error for a NULL inside a k-ary sample (lenient readers: false). */
static bool
KaryNull(const MrfKaryReader *reader)
{
	return MrfSampleNull(reader->lenient, reader->learner);
}

/* Raises the error for a value outside 0..k-1 (lenient readers: false). */
static bool
KaryOutside(const MrfKaryReader *reader)
{
	if (reader->lenient)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s takes values from 0 to k - 1 = %d", reader->learner, reader->k - 1),
			 errdetail("A sample contains an integer outside the alphabet."),
			 errhint("The alphabet is declared by k, not read from the data.")));
	return false;
}

/* Checks a k-ary sample's variable count. */
static bool
KaryWidth(MrfKaryReader *reader, int width)
{
	return MrfSampleWidthOk(&reader->p, width, reader->lenient, reader->learner);
}

/* Orders label OIDs for binary search. */
static int
OidCompare(const void *a, const void *b)
{
	Oid			x = *(const Oid *) a;
	Oid			y = *(const Oid *) b;

	return x < y ? -1 : x > y;
}

/* Most values of one column the reader's rows can hold. */
static int
MaxValues(const MrfKaryReader *reader)
{
	return reader->codes ? MRF_MAX_ALPHABET : MRF_MAX_BYTE_ALPHABET;
}

/*
 * The hint of a refusal for more values than the reader's rows hold: byte
 * rows (the Frank-Wolfe learners) name the learners that take more.
 */
static int
WiderLearnersHint(const MrfKaryReader *reader, int n)
{
	if (reader->codes || n > MRF_MAX_ALPHABET)
		return 0;
	return errhint("mrf_learn_mst, mrf_learn_aim and mrf_learn_cliques take up to %d values a column; the Frank-Wolfe learners (pairwise, structure) %d.",
				   MRF_MAX_ALPHABET, MRF_MAX_BYTE_ALPHABET);
}

/* Refuses column's alphabet of n values (from source) above the reader's cap. */
static void
CheckColumnSize(const MrfKaryReader *reader, const char *column, int n, const char *source)
{
	if (n <= MaxValues(reader))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: column \"%s\" has %d values; a column's alphabet has at most %d here",
					reader->learner, column, n, MaxValues(reader)),
			 errdetail("The alphabet comes from %s.", source),
			 WiderLearnersHint(reader, n)));
}

/* Loads an enum's labels: its alphabet, in sort order (public: the declaration). */
static MrfEnumAlphabet
LoadEnum(const MrfKaryReader *reader, Oid enumtypid, MemoryContext mcxt, const char *learner)
{
	CatCList   *list = SearchSysCacheList1(ENUMTYPOIDNAME, ObjectIdGetDatum(enumtypid));
	MrfEnumAlphabet alpha;
	float4	   *order;
	int			n = list->n_members;

	if (n < 2 || n > MaxValues(reader))
	{
		ReleaseCatCacheList(list);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes enum types of 2 to %d labels", learner, MaxValues(reader)),
				 errdetail("Type %s has %d.", format_type_be(enumtypid), n),
				 WiderLearnersHint(reader, n)));
	}
	alpha.typid = enumtypid;
	alpha.nlabels = n;
	alpha.oids = MemoryContextAlloc(mcxt, sizeof(Oid) * n);
	alpha.index = MemoryContextAlloc(mcxt, sizeof(uint16) * n);
	order = palloc(sizeof(float4) * n);
	for (int i = 0; i < n; i++)
	{
		Form_pg_enum e = (Form_pg_enum) GETSTRUCT(&list->members[i]->tuple);

		alpha.oids[i] = e->oid;
		order[i] = e->enumsortorder;
	}
	ReleaseCatCacheList(list);
	/* sort the OIDs, carrying each label's rank in sort order */
	{
		Oid		   *byoid = palloc(sizeof(Oid) * n);

		memcpy(byoid, alpha.oids, sizeof(Oid) * n);
		qsort(byoid, n, sizeof(Oid), OidCompare);
		for (int i = 0; i < n; i++)
		{
			int			rank = 0;
			int			at = 0;

			for (int j = 0; j < n; j++)
			{
				if (alpha.oids[j] == byoid[i])
					at = j;
			}
			for (int j = 0; j < n; j++)
				if (order[j] < order[at])
					rank++;
			alpha.index[i] = (uint16) rank;
		}
		memcpy(alpha.oids, byoid, sizeof(Oid) * n);
	}
	return alpha;
}

/* Position of an enum value in its type's sort order, or -1. */
static int
EnumIndex(const MrfEnumAlphabet *alpha, Oid label)
{
	Oid		   *hit = bsearch(&label, alpha->oids, alpha->nlabels, sizeof(Oid), OidCompare);

	return hit ? alpha->index[hit - alpha->oids] : -1;
}

/*
 * Errors unless a given k matches the one the type fixes.  For rows of
 * columns, column and source name the column with the largest alphabet and
 * where its alphabet comes from (NULL otherwise).
 */
static void
MatchK(MrfKaryReader *reader, int k_option, int k_type, const char *column,
	   const char *source)
{
	if (k_option > 0 && k_option != k_type)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k => %d does not match the alphabet of type %s, which has %d values",
						k_option, format_type_be(reader->typid), k_type),
				 column == NULL ? 0 :
				 errdetail("Column \"%s\" has the largest alphabet, %d values (from %s); k => %d would give %s.",
						   column, k_type, source, k_option,
						   k_option > k_type ? "every column values it cannot have" :
						   "that column fewer values than it has"),
				 column == NULL ? 0 :
				 errhint("Leave k out: rows of columns take each column's alphabet from the schema or option domains.")));
	reader->k = k_type;
}

/* Prepares a reader for values of type typid. */
void
MrfKaryReaderInit(MrfKaryReader *reader, Oid typid, int k_option, bool codes,
				  MemoryContext mcxt, const char *learner)
{
	Oid			base = getBaseType(typid);
	Oid			elemtype = get_element_type(base);

	memset(reader, 0, sizeof(*reader));
	reader->typid = typid;
	reader->typmod = -1;
	reader->p = -1;
	reader->mcxt = mcxt;
	reader->learner = learner;
	reader->codes = codes;

	if (base == INT2ARRAYOID || base == INT4ARRAYOID)
	{
		reader->form = base == INT2ARRAYOID ? MRF_KARY_INT2_ARRAY : MRF_KARY_INT4_ARRAY;
		if (k_option <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s needs k for integer samples", learner),
					 errdetail("The alphabet must be declared, never read from the data."),
					 errhint("Pass k => the number of values (values are 0 .. k - 1).")));
		reader->k = k_option;
		return;
	}
	if (OidIsValid(elemtype) && type_is_enum(elemtype))
	{
		reader->form = MRF_KARY_ENUM_ARRAY;
		reader->alphabets = MemoryContextAlloc(mcxt, sizeof(MrfEnumAlphabet));
		reader->alphabets[0] = LoadEnum(reader, elemtype, mcxt, learner);
		MatchK(reader, k_option, reader->alphabets[0].nlabels, NULL, NULL);
		return;
	}
	if (type_is_rowtype(base))
	{
		reader->form = MRF_KARY_RECORD;
		reader->k = k_option;	/* fixed by the row type on the first row */
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s cannot learn from values of type %s", learner, format_type_be(typid)),
			 errhint("Pass smallint[] or integer[] with k, an array of an enum type, or a row of enum or boolean columns.")));
}

/* Base types whose alphabet can be declared with option domains. */
static bool
DeclaredDomainType(Oid base)
{
	return base == TEXTOID || base == VARCHAROID || base == BPCHAROID || base == CHAROID ||
		base == INT2OID || base == INT4OID || base == INT8OID;
}

/* The declared domain of a column (a JSON array), or NULL. */
static JsonbValue *
DomainOf(const MrfKaryReader *reader, const char *column)
{
	JsonbValue	key;

	if (reader->domains == NULL)
		return NULL;
	key.type = jbvString;
	key.val.string.val = (char *) column;
	key.val.string.len = strlen(column);
	return findJsonbValueFromContainer(&reader->domains->root, JB_FOBJECT, &key);
}

/*
 * The alphabet of column i (base type base) declared or given by the
 * schema, in code order, or NULL: the column's own entry in option domains,
 * else its CHECK constraints (a public schema fact, driver/alphabets.c),
 * else the entry "*" of option domains.  *source says which, for messages.
 */
static char **
ColumnAlphabet(MrfKaryReader *reader, int i, Oid base, Oid relid, int *n, const char **source)
{
	Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);
	const char *name = NameStr(att->attname);
	JsonbValue *v = DomainOf(reader, name);
	const char *why = NULL;
	char	  **labels;
	AttrNumber	attnum = reader->source_attnums != NULL ? reader->source_attnums[i] : att->attnum;

	*source = "option domains";
	if (v == NULL)
	{
		labels = MrfCheckAlphabet(relid, attnum, att->atttypid, n);
		if (labels != NULL || *n > 0)
		{
			*source = "its CHECK constraint";
			if (*n < 2 || *n > MaxValues(reader))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: the CHECK constraint of column \"%s\" allows %d value%s; a column's alphabet has from 2 to %d",
								reader->learner, name, *n, *n == 1 ? "" : "s", MaxValues(reader)),
						 errdetail("A column's CHECK constraint (IN or BETWEEN) is read as its alphabet when option domains does not name it."),
						 errhint("Name the column in option domains, e.g. domains => '{\"%s\": %s}'.",
								 name, base == INT2OID || base == INT4OID || base == INT8OID ?
								 "{\"min\": 1, \"max\": 10}" : "[\"a\", \"b\"]")));
			return labels;
		}
		if (reader->domains != NULL)
		{
			JsonbValue	key;

			key.type = jbvString;
			key.val.string.val = "*";
			key.val.string.len = 1;
			v = findJsonbValueFromContainer(&reader->domains->root, JB_FOBJECT, &key);
			*source = "the entry \"*\" of option domains";
		}
		if (v == NULL)
			return NULL;
	}
	labels = MrfDomainLabels(v, name, n, &why);
	if (labels == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"domains\""),
				 errdetail("%s", why)));
	return labels;
}

/* The hint for a column of type base that has no alphabet: an example in its own type. */
static int
NoAlphabetHint(Oid base, const char *column)
{
	if (base == INT2OID || base == INT4OID || base == INT8OID)
		return errhint("Declare the column's values, e.g. domains => '{\"%s\": {\"min\": 1, \"max\": 5}}' or '{\"%s\": [1, 2, 3]}', or give it a CHECK (%s BETWEEN 1 AND 5) constraint: the alphabet is never read from the data.",
					   column, column, quote_identifier(column));
	if (DeclaredDomainType(base))
		return errhint("Declare the column's values, e.g. domains => '{\"%s\": [\"a\", \"b\"]}', or give it a CHECK (%s IN ('a', 'b')) constraint: the alphabet is never read from the data.",
					   column, quote_identifier(column));
	if (MrfBinScaleOf(base) == MRF_BIN_NUMBER)
		return errhint("Give the column public bins, e.g. bins => '{\"%s\": [0, 10, 100]}' or '{\"%s\": {\"min\": 0, \"max\": 100, \"width\": 10}}': the bins are never read from the data.",
					   column, column);
	if (MrfBinScaleOf(base) != MRF_BIN_NONE)
		return errhint("Give the column public bins, e.g. bins => '{\"%s\": [\"2020-01-01\", \"2021-01-01\"]}' or '{\"%s\": {\"min\": \"2020-01-01\", \"max\": \"2021-01-01\", \"width\": \"30 days\"}}': the bins are never read from the data.",
					   column, column);
	return errhint("Cast the column to an enum type, or to text with a declared domain.");
}

/* Orders C strings through pointers, for the declared domains' lookup. */
static int
StringPtrCompare(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* A label and its code, for sorting a domain's labels (SortedLabels). */
typedef struct LabelCode
{
	char	   *label;
	int			code;
} LabelCode;

static int
LabelCodeCompare(const void *a, const void *b)
{
	return strcmp(((const LabelCode *) a)->label, ((const LabelCode *) b)->label);
}

/*
 * A domain's lookup: sorted gets its labels (nlabels, in code order in
 * labels) sorted, index[s] the code of sorted[s].  n log n, so alphabets of
 * thousands of values load at once.
 */
static void
SortedLabels(MrfDeclaredDomain *dom)
{
	int			n = dom->nlabels;
	LabelCode  *lc = palloc(sizeof(LabelCode) * n);

	for (int a = 0; a < n; a++)
	{
		lc[a].label = dom->labels[a];
		lc[a].code = a;
	}
	qsort(lc, n, sizeof(LabelCode), LabelCodeCompare);
	for (int s = 0; s < n; s++)
	{
		dom->sorted[s] = lc[s].label;
		dom->index[s] = (uint16) lc[s].code;
	}
	pfree(lc);
}

/*
 * Whether a declared value can be the text form of some value of type base:
 * an integer column's output is canonical ("-12", never "012", "1.0",
 * "1e0" or "+1") and within the type's range, a "char" column's output is
 * one byte (or its \ooo escape), and character(n) values are compared
 * without trailing blanks.  A value that can never match would make every
 * row holding that value substitute silently on the protected path.
 */
static bool
DeclaredValueCanMatch(const char *label, Oid base)
{
	size_t		len = strlen(label);

	if (base == INT2OID || base == INT4OID || base == INT8OID)
	{
		const char *d = label[0] == '-' ? label + 1 : label;
		long long	v;
		char	   *end;

		if (*d == '\0' || strspn(d, "0123456789") != strlen(d) ||
			(d[0] == '0' && (d[1] != '\0' || d != label)))
			return false;
		errno = 0;
		v = strtoll(label, &end, 10);
		if (errno != 0 || *end != '\0')
			return false;
		if (base == INT2OID)
			return v >= PG_INT16_MIN && v <= PG_INT16_MAX;
		if (base == INT4OID)
			return v >= PG_INT32_MIN && v <= PG_INT32_MAX;
		return true;
	}
	if (base == CHAROID)
		return len <= 1 || (len == 4 && label[0] == '\\' && strspn(label + 1, "01234567") == 3);
	if (base == BPCHAROID)
		return len == 0 || label[len - 1] != ' ';
	return true;
}

/* Loads column i's alphabet: labels, n of them, from source (for messages). */
static void
LoadDeclaredDomain(MrfKaryReader *reader, int i, Oid base, char **labels, int n, const char *source)
{
	MrfDeclaredDomain *dom = &reader->declared[i];
	MemoryContext old = MemoryContextSwitchTo(reader->mcxt);
	Oid			outfunc;
	bool		varlena;

	dom->nlabels = n;
	dom->labels = palloc(sizeof(char *) * n);
	dom->sorted = palloc(sizeof(char *) * n);
	dom->index = palloc(sizeof(uint16) * n);
	CheckColumnSize(reader, NameStr(TupleDescAttr(reader->tupdesc, i)->attname), n, source);
	for (int a = 0; a < n; a++)
	{
		dom->labels[a] = pstrdup(labels[a]);
		if (!DeclaredValueCanMatch(dom->labels[a], base))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the domain of column \"%s\" lists \"%s\", which no value of type %s can equal",
							reader->learner, NameStr(TupleDescAttr(reader->tupdesc, i)->attname),
							dom->labels[a], format_type_be(base)),
					 errdetail("The domain comes from %s. A value matches when its text form equals the declared one%s.",
							   source,
							   base == INT2OID || base == INT4OID || base == INT8OID ?
							   ": integers are written without a sign +, leading zeros, a fraction or an exponent, within the type's range" :
							   base == CHAROID ? ": a \"char\" is one byte" :
							   base == BPCHAROID ? ", trailing blanks ignored" : ""),
					 errhint("Declare the values as the column's type writes them.")));
		dom->sorted[a] = dom->labels[a];
	}
	SortedLabels(dom);
	dom->blankpadded = base == BPCHAROID;
	getTypeOutputInfo(base, &outfunc, &varlena);
	fmgr_info_cxt(outfunc, &dom->output, reader->mcxt);
	MemoryContextSwitchTo(old);
}

/*
 * Loads binned column i (option bins, carried as its domains entry
 * {"bins": ...}): the bins' labels are its alphabet, in bin order.
 */
static void
LoadBinnedColumn(MrfKaryReader *reader, int i, Oid base, JsonbValue *spec)
{
	MrfDeclaredDomain *dom = &reader->declared[i];
	MemoryContext old = MemoryContextSwitchTo(reader->mcxt);
	int			n;

	MrfBinsLoad(spec, base, NameStr(TupleDescAttr(reader->tupdesc, i)->attname), &dom->bins);
	n = dom->bins.nedges + 1;
	CheckColumnSize(reader, NameStr(TupleDescAttr(reader->tupdesc, i)->attname), n, "option bins");
	dom->base = base;
	dom->nlabels = n;
	dom->labels = dom->bins.labels;
	dom->sorted = palloc(sizeof(char *) * n);
	dom->index = palloc(sizeof(uint16) * n);
	SortedLabels(dom);
	MemoryContextSwitchTo(old);
}

/* The code of a value of a column with a declared domain or bins, or -1. */
static int
DeclaredIndex(MrfDeclaredDomain *dom, Datum value)
{
	char	   *text;
	char	  **hit;

	if (dom->bins.nedges > 0)
		return MrfBinOf(&dom->bins, dom->base, value);
	text = OutputFunctionCall(&dom->output, value);

	if (dom->blankpadded)
	{
		int			len = strlen(text);

		while (len > 0 && text[len - 1] == ' ')
			text[--len] = '\0';
	}
	hit = bsearch(&text, dom->sorted, dom->nlabels, sizeof(char *), StringPtrCompare);
	return hit ? dom->index[hit - dom->sorted] : -1;
}

/* Raises the error for a value outside its column's declared domain (lenient: false). */
static bool
OutsideDeclared(const MrfKaryReader *reader, int column)
{
	if (reader->lenient)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("%s: column \"%s\" has a value outside its declared domain", reader->learner,
					NameStr(TupleDescAttr(reader->tupdesc, column)->attname)),
			 errdetail("The column's alphabet is the list given in option domains."),
			 errhint("Add the value to the domain, or filter or recode the rows.")));
	return false;
}

/* What a NULL column means (option nulls); rows of columns only. */
void
MrfKaryReaderSetNulls(MrfKaryReader *reader, const char *nulls)
{
	if (nulls == NULL || strcmp(nulls, "error") == 0)
		return;
	if (reader->form != MRF_KARY_RECORD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes option nulls only for rows of columns", reader->learner)));
	reader->null_policy = MemoryContextStrdup(reader->mcxt, nulls);
	reader->null_category = strcmp(nulls, "category") == 0;
	if (MrfNullsPerColumn(nulls))
	{
		MemoryContext old = MemoryContextSwitchTo(reader->mcxt);

		reader->null_columns = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(nulls)));
		MemoryContextSwitchTo(old);
	}
}

/* One column's NULL policy: what a NULL reads as. */
typedef enum NullPolicy
{
	NULL_ERROR,
	NULL_CATEGORY,
	NULL_VALUE
} NullPolicy;

/*
 * Column `column`'s NULL policy, and its value (NULL_VALUE): from the
 * per-column object (the column's own entry, else "*"), else the scalar
 * option.  *named: the column's own entry, whose value must be in its
 * alphabet; a scalar or "*" value applies to the columns that have it.
 */
static NullPolicy
ColumnNullPolicy(const MrfKaryReader *reader, const char *column, const char **value, bool *named)
{
	JsonbValue *entry = NULL;
	JsonbValue	key;
	const char *text;

	*named = false;
	*value = NULL;
	if (reader->null_policy == NULL)
		return NULL_ERROR;
	if (reader->null_columns == NULL)
		text = reader->null_policy;
	else
	{
		key.type = jbvString;
		key.val.string.val = (char *) column;
		key.val.string.len = strlen(column);
		entry = findJsonbValueFromContainer(&reader->null_columns->root, JB_FOBJECT, &key);
		*named = entry != NULL;
		if (entry == NULL)
		{
			key.val.string.val = "*";
			key.val.string.len = 1;
			entry = findJsonbValueFromContainer(&reader->null_columns->root, JB_FOBJECT, &key);
		}
		if (entry == NULL)
			return NULL_ERROR;
		if (entry->type == jbvBinary)
		{
			/* {"value": v}: a value, even one spelled 'error' or 'category' */
			JsonbValue *v = getKeyJsonValueFromContainer(entry->val.binary.data, "value", 5, NULL);

			*value = MrfDomainValueText(v);
			return NULL_VALUE;
		}
		text = MrfDomainValueText(entry);
	}
	if (strcmp(text, "error") == 0)
		return NULL_ERROR;
	if (strcmp(text, "category") == 0)
		return NULL_CATEGORY;
	*value = text;
	return NULL_VALUE;
}

/*
 * The code a NULL of column i reads as, given its alphabet of size: the
 * extra last value ('category'), the declared value's code, or -1 (error).
 * Sets reader->null_extra[i].  Errors depend on the type and the options
 * only.
 */
static int
NullCode(MrfKaryReader *reader, int i, Oid base, int size)
{
	Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);
	const char *value;
	bool		named;
	int			code = -1;

	switch (ColumnNullPolicy(reader, NameStr(att->attname), &value, &named))
	{
		case NULL_ERROR:
			return -1;
		case NULL_CATEGORY:
			if (size >= MaxValues(reader))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: column \"%s\" has no room for a NULL category (%d values at most)",
								reader->learner, NameStr(att->attname), MaxValues(reader)),
						 WiderLearnersHint(reader, size + 1)));
			reader->null_extra[i] = true;
			return size;
		case NULL_VALUE:
			break;
	}
	if (reader->alphabets[i].nlabels > 0)
	{
		HeapTuple	tup = SearchSysCache2(ENUMTYPOIDNAME, ObjectIdGetDatum(base),
										  CStringGetDatum(value));

		if (HeapTupleIsValid(tup))
		{
			code = EnumIndex(&reader->alphabets[i], ((Form_pg_enum) GETSTRUCT(tup))->oid);
			ReleaseSysCache(tup);
		}
	}
	else if (reader->declared[i].nlabels > 0)
	{
		char	   *text = pstrdup(value);
		char	  **hit = bsearch(&text, reader->declared[i].sorted, reader->declared[i].nlabels,
								  sizeof(char *), StringPtrCompare);

		code = hit ? reader->declared[i].index[hit - reader->declared[i].sorted] : -1;
	}
	else if (strcmp(value, "false") == 0)
		code = 0;
	else if (strcmp(value, "true") == 0)
		code = 1;
	/* a column named with a value must have it; others lacking it keep 'error' */
	if (code < 0 && named)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option nulls gives column \"%s\" the value \"%s\", which is not in its alphabet",
						reader->learner, NameStr(att->attname), value),
				 errhint("A column's NULL value is one of its enum labels, true or false, or a value of its declared domain.")));
	return code;
}

/*
 * Errors unless every key of an option's object (domains, or the per-column
 * nulls policy) names a column of the rows; any_column, when given, is a key
 * that stands for every column ("*").
 */
static void
CheckColumnsNamed(const MrfKaryReader *reader, Jsonb *doc, const char *option,
				  const char *any_column)
{
	JsonbIterator *it;
	JsonbValue	key;
	JsonbIteratorToken tok;

	if (doc == NULL)
		return;
	it = JsonbIteratorInit(&doc->root);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		char	   *name;
		bool		found = false;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(key.val.string.val, key.val.string.len);
		if (any_column != NULL && strcmp(name, any_column) == 0)
			continue;
		for (int i = 0; i < reader->tupdesc->natts; i++)
			found |= !TupleDescAttr(reader->tupdesc, i)->attisdropped &&
				strcmp(NameStr(TupleDescAttr(reader->tupdesc, i)->attname), name) == 0;
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("%s: option %s names column \"%s\", which the rows do not have",
							reader->learner, option, name)));
	}
}

/* Declares the alphabets of columns whose type has none (option domains). */
void
MrfKaryReaderSetDomains(MrfKaryReader *reader, Jsonb *domains)
{
	if (domains == NULL)
		return;
	if (reader->form != MRF_KARY_RECORD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes option domains only for rows of columns", reader->learner),
				 errhint("Pass a row, e.g. ROW(a, b) or a table's rows, whose columns the domains name.")));
	{
		MemoryContext old = MemoryContextSwitchTo(reader->mcxt);

		reader->domains = DatumGetJsonbPCopy(JsonbPGetDatum(domains));
		MemoryContextSwitchTo(old);
	}
}

/*
 * Checks the columns of the row type in reader->tupdesc (every column an
 * enum or boolean, domains resolved), loads the enums' alphabets and fixes
 * k; returns the width.  Errors depend on the type only.
 */
static int
CheckKaryRecordColumns(MrfKaryReader *reader)
{
	int			width = 0;
	int			kcolumn = -1;	/* the column with the largest alphabet */
	int			ksize = 0;		/* its size: k, at least 2 */
	const char *ksource = NULL; /* and where its alphabet comes from */
	Oid			relid = InvalidOid;

	reader->alphabets = MemoryContextAllocZero(reader->mcxt,
											   sizeof(MrfEnumAlphabet) * reader->tupdesc->natts);
	reader->sizes = MemoryContextAllocZero(reader->mcxt, sizeof(uint16) * (reader->tupdesc->natts + 1));
	reader->declared = MemoryContextAllocZero(reader->mcxt,
											  sizeof(MrfDeclaredDomain) * reader->tupdesc->natts);
	reader->null_code = MemoryContextAlloc(reader->mcxt, sizeof(int16) * (reader->tupdesc->natts + 1));
	reader->null_extra = MemoryContextAllocZero(reader->mcxt, sizeof(bool) * (reader->tupdesc->natts + 1));

	/* a misspelt column is named as such, before any type error of the others */
	CheckColumnsNamed(reader, reader->domains, "domains", "*");
	CheckColumnsNamed(reader, reader->null_columns, "nulls", "*");
	if (reader->tupdesc->tdtypeid != RECORDOID)
		relid = get_typ_typrelid(reader->tupdesc->tdtypeid);
	else if (reader->source_attnums != NULL)
		relid = reader->source_relid;	/* option columns: the relation's columns */
	for (int i = 0; i < reader->tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);
		Oid			base = getBaseType(att->atttypid);
		char	  **labels = NULL;
		const char *source = NULL;
		int			n = 0;
		JsonbValue *binspec;

		if (att->attisdropped)
			continue;
		if ((binspec = MrfDomainBins(DomainOf(reader, NameStr(att->attname)))) != NULL)
		{
			/* option bins: public edges of a number, date or timestamp column */
			LoadBinnedColumn(reader, i, base, binspec);
			reader->sizes[width] = (uint16) reader->declared[i].nlabels;
			source = "option bins";
		}
		else if (DomainOf(reader, NameStr(att->attname)) != NULL &&
				 (type_is_enum(base) || base == BOOLOID))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: column \"%s\" takes its values from its type %s", reader->learner,
							NameStr(att->attname), format_type_be(att->atttypid)),
					 errhint("Declare domains only for text, character, \"char\" and integer columns.")));
		else if (type_is_enum(base))
		{
			reader->alphabets[i] = LoadEnum(reader, base, reader->mcxt, reader->learner);
			reader->sizes[width] = (uint16) reader->alphabets[i].nlabels;
			source = psprintf("its type %s", format_type_be(att->atttypid));
		}
		else if (base == BOOLOID)
		{
			reader->sizes[width] = 2;
			source = "its type boolean";
		}
		else if (DeclaredDomainType(base) &&
				 (labels = ColumnAlphabet(reader, i, base, relid, &n, &source)) != NULL)
		{
			LoadDeclaredDomain(reader, i, base, labels, n, source);
			reader->sizes[width] = (uint16) reader->declared[i].nlabels;
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s takes rows whose columns are enums, booleans or columns with a declared domain",
							reader->learner),
					 errdetail("Column \"%s\" has type %s.", NameStr(att->attname),
							   format_type_be(att->atttypid)),
					 NoAlphabetHint(base, NameStr(att->attname))));
		/* what a NULL reads as; 'category' adds a last value */
		reader->null_code[i] = (int16) NullCode(reader, i, base, reader->sizes[width]);
		if (reader->null_extra[i])
		{
			reader->sizes[width]++;
			source = psprintf("%s, and a value for NULL (option nulls 'category')", source);
		}
		if (reader->sizes[width] > ksize)
		{
			kcolumn = i;
			ksize = reader->sizes[width];
			ksource = source;
		}
		width++;
	}
	if (reader->null_policy != NULL && !reader->null_category)
	{
		bool		used = false;
		bool		applies = false;

		/* a scalar value, or "*"'s: some column it applies to must have it */
		for (int i = 0; i < reader->tupdesc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);
			const char *value;
			bool		named;

			if (att->attisdropped ||
				ColumnNullPolicy(reader, NameStr(att->attname), &value, &named) != NULL_VALUE || named)
				continue;
			applies = true;
			used |= reader->null_code[i] >= 0;
		}
		if (applies && !used)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: option nulls is neither 'error', 'category' nor a value of any column",
							reader->learner),
					 errhint("A declared value is an enum label, true or false, or a declared domain's value; columns whose alphabet lacks it keep refusing NULLs.")));
	}
	/*
	 * k is the largest column's alphabet; each variable keeps its own
	 * (sizes), which the pairwise learner follows (per-variable alphabets).
	 * A given k must be that size: a larger one would add values no column
	 * has (cells the model and the noise spend on nothing), a smaller one
	 * would drop values a column has.  Raised when the reader is set up,
	 * before anything is charged (the protected path loads the columns up
	 * front).
	 */
	MatchK(reader, reader->k, Max(2, ksize),
		   kcolumn < 0 ? NULL : NameStr(TupleDescAttr(reader->tupdesc, kcolumn)->attname),
		   ksource);
	return width;
}

/* Sets up the row type on the first row: every column enum or boolean. */
static bool
PrepareKaryRecord(MrfKaryReader *reader, HeapTupleHeader tup)
{
	if (reader->lenient)
		return MrfRowTypeMatches(tup, reader->tupdesc);	/* loaded up front */
	if (!MrfRowTypeSetup(tup, reader->mcxt, &reader->tupdesc, &reader->values, &reader->nulls))
		return true;
	return KaryWidth(reader, CheckKaryRecordColumns(reader));
}

/* The element type of the arrays a reader takes. */
static Oid
KaryElementType(const MrfKaryReader *reader)
{
	switch (reader->form)
	{
		case MRF_KARY_INT2_ARRAY:
			return INT2OID;
		case MRF_KARY_INT4_ARRAY:
			return INT4OID;
		case MRF_KARY_ENUM_ARRAY:
			return reader->alphabets[0].typid;
		default:
			return InvalidOid;
	}
}

/* Stores code v of variable j in a row of the reader's width (MrfCode or bytes). */
static inline void
PutCode(const MrfKaryReader *reader, void *dest, int j, int v)
{
	if (reader->codes)
		((MrfCode *) dest)[j] = (MrfCode) v;
	else
		((uint8 *) dest)[j] = (uint8) v;
}

/* Bytes of one row of p values at the reader's width. */
static inline Size
KaryRowBytes(const MrfKaryReader *reader, int p)
{
	return (Size) p * (reader->codes ? sizeof(MrfCode) : 1);
}

/* Reads one value into dest; lenient readers return false instead of erroring. */
static bool
KaryReadRow(MrfKaryReader *reader, Datum value, void *dest)
{
	switch (reader->form)
	{
		case MRF_KARY_INT2_ARRAY:
		case MRF_KARY_INT4_ARRAY:
		case MRF_KARY_ENUM_ARRAY:
			{
				ArrayType  *arr = DatumGetArrayTypeP(value);
				int			width;

				if (ARR_NDIM(arr) > 1)
				{
					if (reader->lenient)
						return false;
					ereport(ERROR,
							(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
							 errmsg("%s takes one-dimensional arrays", reader->learner)));
				}
				if (ARR_ELEMTYPE(arr) != KaryElementType(reader))
				{
					if (reader->lenient)
						return false;
					elog(ERROR, "%s got an array of an unexpected element type", reader->learner);
				}
				width = ARR_NDIM(arr) == 0 ? 0 : ARR_DIMS(arr)[0];
				if (!KaryWidth(reader, width))
					return false;
				if (ARR_HASNULL(arr))
					return KaryNull(reader);
				for (int j = 0; j < reader->p; j++)
				{
					int			v;

					if (reader->form == MRF_KARY_INT2_ARRAY)
						v = ((const int16 *) ARR_DATA_PTR(arr))[j];
					else if (reader->form == MRF_KARY_INT4_ARRAY)
						v = ((const int32 *) ARR_DATA_PTR(arr))[j];
					else
						v = EnumIndex(&reader->alphabets[0], ((const Oid *) ARR_DATA_PTR(arr))[j]);
					if (v < 0 || v >= reader->k)
						return KaryOutside(reader);
					PutCode(reader, dest, j, v);
				}
				return true;
			}
		case MRF_KARY_RECORD:
			{
				HeapTupleHeader tup = DatumGetHeapTupleHeader(value);
				int			j = 0;

				if (!PrepareKaryRecord(reader, tup))
					return false;
				MrfRowDeform(tup, reader->tupdesc, reader->values, reader->nulls);
				for (int i = 0; i < reader->tupdesc->natts; i++)
				{
					int			v;

					if (TupleDescAttr(reader->tupdesc, i)->attisdropped)
						continue;
					if (reader->nulls[i])
					{
						if (reader->null_code[i] < 0)
							return KaryNull(reader);
						PutCode(reader, dest, j++, reader->null_code[i]);
						continue;
					}
					if (reader->alphabets[i].nlabels > 0)
						v = EnumIndex(&reader->alphabets[i], DatumGetObjectId(reader->values[i]));
					else if (reader->declared[i].nlabels > 0)
					{
						v = DeclaredIndex(&reader->declared[i], reader->values[i]);
						if (v < 0)
							return OutsideDeclared(reader, i);
					}
					else
						v = DatumGetBool(reader->values[i]) ? 1 : 0;
					if (v < 0 || v >= reader->sizes[j])
						return KaryOutside(reader);
					PutCode(reader, dest, j++, v);
				}
				return true;
			}
	}
	return false;
}

/* Reads one non-null value into dest; errors for invalid values. */
void
MrfKaryReadRow(MrfKaryReader *reader, Datum value, void *dest)
{
	Assert(!reader->lenient);
	(void) KaryReadRow(reader, value, dest);
}

/*
 * Protected path: fixes p; invalid values never error.  A row type is loaded
 * and checked here, from the declared type, so its errors depend on the
 * schema alone, never on whether some row is there to be read.
 */
void
MrfKaryReaderSetLenient(MrfKaryReader *reader, int p)
{
	if (reader->form == MRF_KARY_RECORD)
	{
		int			width;

		if (getBaseType(reader->typid) == RECORDOID && reader->typmod < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the protected path needs a declared row type"),
					 errdetail("An anonymous ROW(...) has no declared column types."),
					 errhint("Cast the row to a table's or a composite type's row type.")));
		MrfRowTypeLoad(reader->typid, reader->typmod, reader->mcxt, &reader->tupdesc,
					   &reader->values, &reader->nulls);
		width = CheckKaryRecordColumns(reader);
		if (width != p)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: rows of type %s have %d variables, not %d", reader->learner,
							format_type_be(reader->typid), width, p)));
	}
	reader->p = p;
	reader->lenient = true;
}

/* Protected path: reads a value (NULL allowed); false, with dest all 0, if invalid. */
bool
MrfKaryReadRowLenient(MrfKaryReader *reader, Datum value, bool isnull, void *dest)
{
	Assert(reader->lenient);
	if (!isnull && KaryReadRow(reader, value, dest))
		return true;
	memset(dest, 0, KaryRowBytes(reader, reader->p));
	return false;
}

/* See read_kary.h. */
void
MrfKaryReaderSetColumns(MrfKaryReader *reader, TupleDesc rowdesc, Oid relid, const AttrNumber *attnums)
{
	Assert(reader->form == MRF_KARY_RECORD);
	reader->typmod = rowdesc->tdtypmod;
	reader->source_relid = relid;
	reader->source_attnums = MemoryContextAlloc(reader->mcxt, sizeof(AttrNumber) * rowdesc->natts);
	memcpy(reader->source_attnums, attnums, sizeof(AttrNumber) * rowdesc->natts);
}

/* Variables fixed by a type itself (rows), or -1 when only data can tell. */
int
MrfKaryTypeWidth(Oid typid)
{
	return MrfBinaryTypeWidth(typid, -1);
}

/* The per-variable alphabet sizes (p entries) in mcxt, or NULL when all are k. */
uint16 *
MrfKaryReaderAlphabets(const MrfKaryReader *reader, MemoryContext mcxt)
{
	bool		uniform = true;
	uint16	   *copy;

	if (reader->sizes == NULL || reader->p <= 0)
		return NULL;
	for (int j = 0; j < reader->p; j++)
		uniform &= reader->sizes[j] == reader->k;
	if (uniform)
		return NULL;
	copy = MemoryContextAlloc(mcxt, sizeof(uint16) * reader->p);
	memcpy(copy, reader->sizes, sizeof(uint16) * reader->p);
	return copy;
}
