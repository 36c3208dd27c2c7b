/*
 * driver/read_kary.h - reading one sample of k-ary variables (values 0..k-1) from a row
 * value: smallint[] / integer[] with k declared by the caller, arrays of an
 * enum type (the alphabet is the enum's labels in sort order), and rows of
 * enum or boolean columns (false = 0, true = 1).  The alphabet comes from
 * the declaration, never from the data.  Messages never quote a value or a
 * row position.
 */
#ifndef MRF_PG_KARY_H
#define MRF_PG_KARY_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "fmgr.h"
#include "utils/jsonb.h"

#include "core/rows.h"
#include "pg/driver/bins.h"

typedef enum MrfKaryForm
{
	MRF_KARY_INT2_ARRAY = 1,
	MRF_KARY_INT4_ARRAY,
	MRF_KARY_ENUM_ARRAY,
	MRF_KARY_RECORD
} MrfKaryForm;

/* One enum type's labels: OIDs sorted by OID, with their positions in sort order. */
typedef struct MrfEnumAlphabet
{
	Oid			typid;
	int			nlabels;
	Oid		   *oids;			/* sorted */
	uint16	   *index;			/* position of oids[i] in the enum's sort order */
} MrfEnumAlphabet;

/* A column's declared domain (option domains): its values' texts in code order. */
typedef struct MrfDeclaredDomain
{
	int			nlabels;		/* 0: the column has none */
	char	  **labels;			/* code order */
	char	  **sorted;			/* sorted, for lookup */
	uint16	   *index;			/* code of sorted[i] */
	bool		blankpadded;	/* character(n): trailing blanks do not count */
	FmgrInfo	output;			/* the column type's output function */
	MrfBins		bins;			/* option bins: nedges > 0 for a binned column */
	Oid			base;			/* a binned column's base type */
} MrfDeclaredDomain;

typedef struct MrfKaryReader
{
	MrfKaryForm form;
	Oid			typid;
	int32		typmod;			/* a blessed record's (option columns), else -1 */
	Oid			source_relid;	/* option columns: the relation, for its CHECKs */
	AttrNumber *source_attnums; /* and each column's attribute number there */
	int			p;				/* variables; -1 until known */
	int			k;				/* alphabet size; 0 until known */
	bool		lenient;		/* protected path: invalid values never error */
	bool		codes;			/* rows of MrfCode (whole-table learners), else of bytes */
	MrfEnumAlphabet *alphabets; /* enum arrays: one; rows: one per column (NULL for boolean) */
	uint16	   *sizes;			/* rows: each variable's alphabet size k_i (p entries), else NULL */
	Jsonb	   *domains;		/* option domains, or NULL */
	MrfDeclaredDomain *declared;	/* rows: one per column (nlabels 0 unless declared) */
	const char *null_policy;	/* option nulls: NULL or 'error', 'category', a value */
	bool		null_category;	/* nulls => 'category': a last value per variable */
	Jsonb	   *null_columns;	/* per-column policy (an object), or NULL */
	int16	   *null_code;		/* rows: per column, the code a NULL reads as, or -1 */
	bool	   *null_extra;		/* rows: per column, whether 'category' added a last value */
	TupleDesc	tupdesc;		/* rows */
	Datum	   *values;
	bool	   *nulls;
	MemoryContext mcxt;
	const char *learner;
} MrfKaryReader;

/*
 * Prepares a reader for values of type typid.  k_option is the caller's k
 * (0 if not given): required for integer arrays; for enums and rows the type
 * fixes k, and a given k must match it.  codes: rows of MrfCode (the
 * whole-table learners, up to MRF_MAX_ALPHABET values a column), else of
 * bytes (up to MRF_MAX_BYTE_ALPHABET).
 */
void		MrfKaryReaderInit(MrfKaryReader *reader, Oid typid, int k_option, bool codes,
							  MemoryContext mcxt, const char *learner);

/*
 * Declares the alphabets of columns whose type has none (text, varchar,
 * character, "char", integers): option domains, set before the first row.
 */
void		MrfKaryReaderSetDomains(MrfKaryReader *reader, Jsonb *domains);

/*
 * What a NULL column means (option nulls): 'error', 'category' (a last
 * value of every variable, labelled null) or a value every column's
 * alphabet has; or, per column, a JSON object naming columns (and "*" for
 * the others) with one of those each ({"value": ...} for a value spelled
 * 'error' or 'category').  Set before the first row; rows of columns only.
 */
void		MrfKaryReaderSetNulls(MrfKaryReader *reader, const char *nulls);

/*
 * Reads one non-null value into dest (p values, MrfCode when reader->codes
 * is set, else bytes; the first value fixes p).  Errors for invalid values.
 */
void		MrfKaryReadRow(MrfKaryReader *reader, Datum value, void *dest);

/* Protected path: fixes p from public information; invalid values never error. */
void		MrfKaryReaderSetLenient(MrfKaryReader *reader, int p);

/*
 * Protected path, option columns: the rows are records of rowdesc (from
 * MrfColumnsRowType), columns attnums of relation relid (whose CHECK
 * constraints give alphabets as for its own row type).  Before
 * MrfKaryReaderSetLenient.
 */
void		MrfKaryReaderSetColumns(MrfKaryReader *reader, TupleDesc rowdesc, Oid relid,
									const AttrNumber *attnums);

/* Protected path: reads a value (NULL allowed); false, with dest all 0, if invalid. */
bool		MrfKaryReadRowLenient(MrfKaryReader *reader, Datum value, bool isnull,
								  void *dest);

/* Variables fixed by a type itself (rows), or -1 when only data can tell. */
int			MrfKaryTypeWidth(Oid typid);

/*
 * The per-variable alphabet sizes of a reader whose p is known (p entries,
 * copied into mcxt), or NULL when every variable has k values.
 */
uint16	   *MrfKaryReaderAlphabets(const MrfKaryReader *reader, MemoryContext mcxt);

#endif
