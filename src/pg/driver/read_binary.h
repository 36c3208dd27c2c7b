/*
 * driver/read_binary.h - reading one sample (a row value) into packed storage.
 *
 * Binary learners accept boolean[] (false = -1, true = +1), smallint[] and
 * int[] with values in {-1, +1}, bit / bit varying (0 = -1, 1 = +1), and
 * composites whose columns are all boolean.  The alphabet is fixed by the
 * type, never inferred from the data.  Error messages never quote a value or
 * a row position: on the protected path they must not reveal data.
 */
#ifndef MRF_PG_INPUT_H
#define MRF_PG_INPUT_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"

typedef enum MrfInputForm
{
	MRF_INPUT_BOOL_ARRAY = 1,
	MRF_INPUT_INT2_ARRAY,
	MRF_INPUT_INT4_ARRAY,
	MRF_INPUT_BITS,
	MRF_INPUT_RECORD
} MrfInputForm;

typedef struct MrfBinaryReader
{
	MrfInputForm form;
	Oid			typid;
	int32		typmod;			/* a blessed record's (option columns), else -1 */
	int			p;				/* variables per row; -1 until the first row */
	TupleDesc	tupdesc;		/* composites: the row type (kept in mcxt) */
	Datum	   *values;			/* composites: deform buffers */
	bool	   *nulls;
	MemoryContext mcxt;
	const char *learner;		/* for messages */
	bool		lenient;		/* protected path: invalid values never error */
} MrfBinaryReader;

/* Most variables a learner takes. */
#define MRF_MAX_VARIABLES 4096

/* Prepares a reader for values of type typid; errors for unsupported types. */
void		MrfBinaryReaderInit(MrfBinaryReader *reader, Oid typid,
								MemoryContext mcxt, const char *learner);

/*
 * Reads one non-null value into dest (MrfBitWords(p) zeroed words).  The
 * first value fixes p; later values of another length are an error.
 */
void		MrfBinaryReadRow(MrfBinaryReader *reader, Datum value, uint64 *dest);

/* Shared by the readers: a sample's width (the first fixes p), and NULL variables. */
bool		MrfSampleWidthOk(int *p, int width, bool lenient, const char *learner);
bool		MrfSampleNull(bool lenient, const char *learner);

/*
 * Shared by the readers of row values: the row type's copy (from a type, or
 * from a value's header), the lenient readers' check that a value has the
 * type loaded up front (before anything is deformed), and deforming.
 */
void		MrfRowTypeLoad(Oid typid, int32 typmod, MemoryContext mcxt, TupleDesc *tupdesc,
						   Datum **values, bool **nulls);
bool		MrfRowTypeMatches(HeapTupleHeader tup, TupleDesc tupdesc);
bool		MrfRowTypeSetup(HeapTupleHeader tup, MemoryContext mcxt, TupleDesc *tupdesc,
							Datum **values, bool **nulls);
void		MrfRowDeform(HeapTupleHeader tup, TupleDesc tupdesc, Datum *values, bool *nulls);

/* Protected path: fixes p from public information; invalid values never error. */
void		MrfBinaryReaderSetLenient(MrfBinaryReader *reader, int p);

/*
 * The protected path's option columns: a record type (blessed, so its
 * values can be read back) of the columns names[0..n-1] of relation relid,
 * each with its declared name, type, typmod and collation; attnums gets
 * their attribute numbers.  Errors from the schema only: no column
 * (22023), a column the relation lacks (42703) or named twice (42701).
 */
TupleDesc	MrfColumnsRowType(Oid relid, const char *const *names, int n, AttrNumber *attnums,
							  const char *fname);

/* Protected path, option columns: the rows are records of rowdesc (MrfColumnsRowType). */
void		MrfBinaryReaderSetColumns(MrfBinaryReader *reader, TupleDesc rowdesc);

/* A row value of rowdesc from the first rowdesc->natts fields of tuple (of tupdesc). */
Datum		MrfColumnsRowValue(TupleDesc rowdesc, HeapTuple tuple, TupleDesc tupdesc,
							   Datum *values, bool *nulls);

/*
 * Protected path: reads a value (NULL allowed) into dest; an invalid value
 * gives false and an all -1 row, so errors never depend on the data.
 */
bool		MrfBinaryReadRowLenient(MrfBinaryReader *reader, Datum value, bool isnull,
									uint64 *dest, int words);

/* Variables fixed by a type itself (rows, bit(n)), or -1 when only data can tell. */
int			MrfBinaryTypeWidth(Oid typid, int32 typmod);

#endif
