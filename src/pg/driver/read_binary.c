/*
 * driver/read_binary.c - reading samples of binary variables from row values.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
#include "utils/varbit.h"

#include "core/rows.h"
#include "pg/driver/read_binary.h"

/*
 * Packs p booleans (bytes of 0 or 1) into bits, eight at a time: the
 * multiplication moves byte i's low bit to bit 56 + i without carries.
 */
static inline void
PackBools(const uint8 *v, int p, uint64 *dest)
{
	int			j = 0;

	for (; j + 8 <= p; j += 8)
	{
		uint64		w;

		memcpy(&w, v + j, sizeof(w));
		dest[j >> 6] |= ((w * UINT64CONST(0x0102040810204080)) >> 56) << (j & 63);
	}
	for (; j < p; j++)
		if (v[j])
			MrfBitSet(dest, j);
}

/* A NULL inside a sample: an error, or false for a lenient reader. */
bool
MrfSampleNull(bool lenient, const char *learner)
{
	if (lenient)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("%s does not accept NULL variables", learner),
			 errdetail("A sample contains a NULL element or column."),
			 errhint("Filter or impute incomplete rows before learning.")));
	return false;
}

/* The error for a NULL inside a binary sample (lenient readers: false). */
static bool
NullElement(const MrfBinaryReader *reader)
{
	return MrfSampleNull(reader->lenient, reader->learner);
}

/* Raises the error for a value outside {-1, +1} (lenient readers: false). */
static bool
OutsideAlphabet(const MrfBinaryReader *reader)
{
	if (reader->lenient)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s takes binary variables coded -1 or +1", reader->learner),
			 errdetail("A sample contains an integer other than -1 and +1."),
			 errhint("Recode the column, or pass boolean[] or bit varying.")));
	return false;
}

/*
 * Checks a sample's variable count: the first sample fixes *p (within the
 * limits), later ones must match; a lenient reader (p fixed in advance)
 * returns false instead of raising an error.
 */
bool
MrfSampleWidthOk(int *p, int width, bool lenient, const char *learner)
{
	if (lenient)
		return width == *p;
	if (*p < 0)
	{
		if (width < 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s needs at least 2 variables per sample", learner),
					 errdetail("The first sample has %d.", width)));
		if (width > MRF_MAX_VARIABLES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s takes at most %d variables", learner, MRF_MAX_VARIABLES),
					 errdetail("The first sample has %d.", width)));
		*p = width;
	}
	else if (width != *p)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s needs every sample to have the same number of variables", learner),
				 errdetail("Samples of %d and of %d variables were both seen.", *p, width)));
	return true;
}

/* Checks a binary sample's variable count. */
static bool
CheckWidth(MrfBinaryReader *reader, int width)
{
	return MrfSampleWidthOk(&reader->p, width, reader->lenient, reader->learner);
}

/* Prepares a reader for values of type typid. */
void
MrfBinaryReaderInit(MrfBinaryReader *reader, Oid typid, MemoryContext mcxt,
					const char *learner)
{
	memset(reader, 0, sizeof(*reader));
	reader->typid = typid;
	reader->typmod = -1;
	reader->p = -1;
	reader->mcxt = mcxt;
	reader->learner = learner;

	switch (getBaseType(typid))
	{
		case BOOLARRAYOID:
			reader->form = MRF_INPUT_BOOL_ARRAY;
			return;
		case INT2ARRAYOID:
			reader->form = MRF_INPUT_INT2_ARRAY;
			return;
		case INT4ARRAYOID:
			reader->form = MRF_INPUT_INT4_ARRAY;
			return;
		case BITOID:
		case VARBITOID:
			reader->form = MRF_INPUT_BITS;
			return;
		default:
			break;
	}
	if (type_is_rowtype(typid))
	{
		reader->form = MRF_INPUT_RECORD;
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s cannot learn from values of type %s", learner, format_type_be(typid)),
			 errhint("Pass boolean[], smallint[] or integer[] coded -1/+1, bit varying, or a row of boolean columns.")));
}

/*
 * Copies a row type (domains over composites resolved to the composite),
 * with deform buffers, into mcxt.
 */
void
MrfRowTypeLoad(Oid typid, int32 typmod, MemoryContext mcxt, TupleDesc *tupdesc,
			   Datum **values, bool **nulls)
{
	TupleDesc	desc = lookup_rowtype_tupdesc_domain(typid, typmod, false);
	MemoryContext old;

	old = MemoryContextSwitchTo(mcxt);
	*tupdesc = CreateTupleDescCopy(desc);

	/*
	 * An anonymous row that travelled as text (Citus gathers rows so) comes
	 * back with nameless columns; ROW()'s own names are f1, f2, ..., which
	 * options (domains, nulls, workload) and the model's names then use as
	 * on one node.  No column of a named type is nameless.
	 */
	for (int i = 0; i < (*tupdesc)->natts; i++)
		if (NameStr(TupleDescAttr(*tupdesc, i)->attname)[0] == '\0')
			snprintf(NameStr(TupleDescAttr(*tupdesc, i)->attname), NAMEDATALEN, "f%d", i + 1);
	*values = palloc(sizeof(Datum) * desc->natts);
	*nulls = palloc(sizeof(bool) * desc->natts);
	MemoryContextSwitchTo(old);
	ReleaseTupleDesc(desc);
}

/* See read_binary.h. */
TupleDesc
MrfColumnsRowType(Oid relid, const char *const *names, int n, AttrNumber *attnums,
				  const char *fname)
{
	TupleDesc	desc;

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option columns names no column", fname),
				 errhint("Give the columns to learn from, e.g. columns => ARRAY['age', 'sex'].")));
	if (n > MRF_MAX_VARIABLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes from 2 to %d variables", fname, MRF_MAX_VARIABLES)));
	desc = CreateTemplateTupleDesc(n);
	for (int i = 0; i < n; i++)
	{
		AttrNumber	attnum;
		Oid			typid;
		int32		typmod;
		Oid			collid;

		if (names[i] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: option columns holds a NULL", fname)));
		attnum = get_attnum(relid, names[i]);
		if (attnum == InvalidAttrNumber || attnum < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation %s does not exist", names[i], get_rel_name(relid)),
					 errdetail("Option columns names the relation's columns to learn from.")));
		for (int j = 0; j < i; j++)
			if (attnums[j] == attnum)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("%s: option columns names column \"%s\" twice", fname, names[i])));
		attnums[i] = attnum;
		get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
		TupleDescInitEntry(desc, i + 1, names[i], typid, typmod, 0);
		TupleDescInitEntryCollation(desc, i + 1, collid);
	}
	return BlessTupleDesc(desc);
}

/* See read_binary.h. */
void
MrfBinaryReaderSetColumns(MrfBinaryReader *reader, TupleDesc rowdesc)
{
	Assert(reader->form == MRF_INPUT_RECORD);
	reader->typmod = rowdesc->tdtypmod;
}

/* See read_binary.h. */
Datum
MrfColumnsRowValue(TupleDesc rowdesc, HeapTuple tuple, TupleDesc tupdesc, Datum *values, bool *nulls)
{
	Assert(tupdesc->natts >= rowdesc->natts);
	heap_deform_tuple(tuple, tupdesc, values, nulls);
	return HeapTupleGetDatum(heap_form_tuple(rowdesc, values, nulls));
}

/*
 * Shared by the readers of row values: copies the row type of tup, with
 * deform buffers, into mcxt.  False when *tupdesc already is that type.
 */
bool
MrfRowTypeSetup(HeapTupleHeader tup, MemoryContext mcxt, TupleDesc *tupdesc,
				Datum **values, bool **nulls)
{
	Oid			tupType = HeapTupleHeaderGetTypeId(tup);
	int32		tupTypmod = HeapTupleHeaderGetTypMod(tup);

	if (*tupdesc != NULL && (*tupdesc)->tdtypeid == tupType && (*tupdesc)->tdtypmod == tupTypmod)
		return false;
	MrfRowTypeLoad(tupType, tupTypmod, mcxt, tupdesc, values, nulls);
	return true;
}

/*
 * Lenient readers: whether a row value is of the row type loaded up front,
 * checked before anything of it is deformed.  The value's header is all that
 * is read: a value of another type (or with more columns than the type) is
 * an unreadable row, never a type lookup driven by its bytes.
 */
bool
MrfRowTypeMatches(HeapTupleHeader tup, TupleDesc tupdesc)
{
	return tupdesc != NULL &&
		HeapTupleHeaderGetTypeId(tup) == tupdesc->tdtypeid &&
		HeapTupleHeaderGetTypMod(tup) == tupdesc->tdtypmod &&
		HeapTupleHeaderGetNatts(tup) <= tupdesc->natts &&
		HeapTupleHeaderGetDatumLength(tup) >= SizeofHeapTupleHeader;
}

/* Splits a row value into its columns. */
void
MrfRowDeform(HeapTupleHeader tup, TupleDesc tupdesc, Datum *values, bool *nulls)
{
	HeapTupleData tuple;

	tuple.t_len = HeapTupleHeaderGetDatumLength(tup);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = tup;
	heap_deform_tuple(&tuple, tupdesc, values, nulls);
}

/*
 * Checks the columns of the row type in reader->tupdesc (all boolean, or
 * domains over boolean) and returns its width.  Errors depend on the type
 * only.
 */
static int
CheckRecordColumns(MrfBinaryReader *reader)
{
	int			width = 0;

	for (int i = 0; i < reader->tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(reader->tupdesc, i);

		if (att->attisdropped)
			continue;
		if (getBaseType(att->atttypid) != BOOLOID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s takes rows whose columns are all boolean", reader->learner),
					 errdetail("Column \"%s\" has type %s.", NameStr(att->attname),
							   format_type_be(att->atttypid)),
					 errhint("Select the boolean columns into a row, e.g. ROW(a, b, c), or an array.")));
		width++;
	}
	return width;
}

/* Sets up the composite row type on the first row and checks it on later ones. */
static bool
PrepareRecord(MrfBinaryReader *reader, HeapTupleHeader tup)
{
	if (reader->lenient)
		return MrfRowTypeMatches(tup, reader->tupdesc);	/* loaded up front */
	if (!MrfRowTypeSetup(tup, reader->mcxt, &reader->tupdesc, &reader->values, &reader->nulls))
		return true;
	return CheckWidth(reader, CheckRecordColumns(reader));
}

/*
 * An array value's shape and element type as the reader expects them; a
 * lenient reader answers false for anything else (a function of the value
 * alone), a strict one raises the error for a wrong shape.
 */
static bool
ArrayReadable(MrfBinaryReader *reader, ArrayType *arr, Oid elemtype)
{
	if (ARR_NDIM(arr) > 1 && !reader->lenient)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s takes one-dimensional arrays", reader->learner),
				 errdetail("A sample is an array of %d dimensions.", ARR_NDIM(arr))));
	if (ARR_ELEMTYPE(arr) != elemtype && !reader->lenient)
		elog(ERROR, "%s got an array of an unexpected element type", reader->learner);
	if (ARR_NDIM(arr) > 1 || ARR_ELEMTYPE(arr) != elemtype)
		return false;
	return CheckWidth(reader, ARR_NDIM(arr) == 0 ? 0 : ARR_DIMS(arr)[0]);
}

/*
 * Reads one value into dest; a lenient reader returns false for an invalid
 * value instead of raising an error (dest is then unspecified).
 */
static bool
ReadRow(MrfBinaryReader *reader, Datum value, uint64 *dest)
{
	switch (reader->form)
	{
		case MRF_INPUT_BOOL_ARRAY:
			{
				ArrayType  *arr = DatumGetArrayTypeP(value);

				if (!ArrayReadable(reader, arr, BOOLOID))
					return false;
				if (ARR_HASNULL(arr))
					return NullElement(reader);
				PackBools((const uint8 *) ARR_DATA_PTR(arr), reader->p, dest);
				break;
			}
		case MRF_INPUT_INT2_ARRAY:
		case MRF_INPUT_INT4_ARRAY:
			{
				ArrayType  *arr = DatumGetArrayTypeP(value);
				const char *data;

				if (!ArrayReadable(reader, arr, reader->form == MRF_INPUT_INT2_ARRAY ? INT2OID : INT4OID))
					return false;
				if (ARR_HASNULL(arr))
					return NullElement(reader);
				data = ARR_DATA_PTR(arr);
				for (int j = 0; j < reader->p; j++)
				{
					int32		v = reader->form == MRF_INPUT_INT2_ARRAY ?
						((const int16 *) data)[j] : ((const int32 *) data)[j];

					if (v == 1)
						MrfBitSet(dest, j);
					else if (v != -1)
						return OutsideAlphabet(reader);
				}
				break;
			}
		case MRF_INPUT_BITS:
			{
				VarBit	   *bits = DatumGetVarBitP(value);
				const bits8 *b = VARBITS(bits);

				if (!CheckWidth(reader, VARBITLEN(bits)))
					return false;
				/* bit strings store the first bit in the high bit of each byte */
				for (int j = 0; j < reader->p; j++)
					if (b[j >> 3] & (0x80 >> (j & 7)))
						MrfBitSet(dest, j);
				break;
			}
		case MRF_INPUT_RECORD:
			{
				HeapTupleHeader tup = DatumGetHeapTupleHeader(value);
				int			j = 0;

				if (!PrepareRecord(reader, tup))
					return false;
				MrfRowDeform(tup, reader->tupdesc, reader->values, reader->nulls);
				for (int i = 0; i < reader->tupdesc->natts; i++)
				{
					if (TupleDescAttr(reader->tupdesc, i)->attisdropped)
						continue;
					if (reader->nulls[i])
						return NullElement(reader);
					if (DatumGetBool(reader->values[i]))
						MrfBitSet(dest, j);
					j++;
				}
				break;
			}
	}
	return true;
}

/* Reads one non-null value into dest; errors for invalid values. */
void
MrfBinaryReadRow(MrfBinaryReader *reader, Datum value, uint64 *dest)
{
	Assert(!reader->lenient);
	(void) ReadRow(reader, value, dest);
}

/*
 * Protected path: fixes p from public information and makes the reader
 * lenient, so that no data value can raise an error.  A row type is loaded
 * and checked here, from the declared type: its errors depend on the schema
 * alone, never on whether some row is there to be read.
 */
void
MrfBinaryReaderSetLenient(MrfBinaryReader *reader, int p)
{
	if (reader->form == MRF_INPUT_RECORD)
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
		width = CheckRecordColumns(reader);
		if (width != p)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: rows of type %s have %d variables, not %d", reader->learner,
							format_type_be(reader->typid), width, p)));
	}
	reader->p = p;
	reader->lenient = true;
}

/* Reads one value (NULL allowed); false, with dest zeroed, if it is invalid. */
bool
MrfBinaryReadRowLenient(MrfBinaryReader *reader, Datum value, bool isnull,
						uint64 *dest, int words)
{
	Assert(reader->lenient);
	if (!isnull && ReadRow(reader, value, dest))
		return true;
	memset(dest, 0, sizeof(uint64) * words);
	return false;
}

/* Variables fixed by a type itself (rows, bit(n)), or -1 when only data can tell. */
int
MrfBinaryTypeWidth(Oid typid, int32 typmod)
{
	Oid			base = getBaseTypeAndTypmod(typid, &typmod);

	if (base == BITOID && typmod > 0)
		return typmod;
	if (type_is_rowtype(base) && base != RECORDOID)
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(base, -1);
		int			width = 0;

		for (int i = 0; i < desc->natts; i++)
			if (!TupleDescAttr(desc, i)->attisdropped)
				width++;
		ReleaseTupleDesc(desc);
		return width;
	}
	return -1;
}
