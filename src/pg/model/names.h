/*
 * model/names.h - variable names and value labels of models learned from rows of
 * columns, and the source relation.
 *
 * They are public: they come from the query's types (column names, enum
 * labels, boolean and integer codings) and declared domains, never from
 * the data.  A model keeps them in its metadata:
 *   "variables": [{"name": "party", "labels": ["democrat", "republican"],
 *                  "type": "public.party"}, ...]
 *   "source": {"relation": "public.votes", "columns": ["party", ...]}
 * "name" is null when the rows had no column names (arrays); "labels" is
 * null when the codes are all there is (integer arrays with k declared);
 * "type" (schema-qualified) and "typmod" (when the column has one) are the
 * column's declared type, for mrf_synthesize_into; "bins" (option bins) are
 * a binned column's edges on its type's scale (driver/bins.h), from which
 * mrf_synthesize draws values of the column's type.
 * The text form writes the metadata and reads it back; the reader checks
 * "variables" against the model's shape.
 */
#ifndef MRF_PG_NAMES_H
#define MRF_PG_NAMES_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/execnodes.h"

#include "pg/driver/read_binary.h"
#include "pg/driver/read_kary.h"
#include "pg/model/model.h"

/* A model's names and labels, parsed from its metadata. */
typedef struct MrfNames
{
	int			p;
	bool		present;		/* the model has "variables" */
	char	  **names;			/* p entries, NULL when unknown */
	int		   *nlabels;		/* p entries, 0 when unknown */
	char	 ***labels;			/* p arrays of nlabels[i] entries (NULL: the label is SQL NULL) */
	int		   *nedges;			/* p entries: a binned variable's edges, else 0 */
	double	  **edges;			/* p arrays of nedges[i] edges on the column type's scale */
} MrfNames;

/* The "variables" JSON array of a binary reader whose p is known, or NULL. */
char	   *MrfBinaryReaderVariables(const MrfBinaryReader *reader);

/* The "variables" JSON array of a k-ary reader whose p is known, or NULL. */
char	   *MrfKaryReaderVariables(const MrfKaryReader *reader);

/*
 * The "source" JSON object of rows of type typid (a relation's row type),
 * or of column `column` of relation relid; NULL when no relation is known.
 */
char	   *MrfSourceOfRowType(Oid typid, const char *variables);
char	   *MrfSourceOfColumn(Oid relid, const char *column, const char *variables);

/* A copy of model with "variables" and "source" added to its metadata (NULLs skipped). */
MrfModel   *MrfModelWithNames(MrfModel *model, const char *variables, const char *source);

/* Parses a model's names; errors (22P02) for a malformed "variables". */
MrfNames   *MrfNamesOf(const MrfModel *model);

/* Checks a model's "variables" against its shape (the text form's reader). */
void		MrfNamesValidate(const MrfModel *model);

/* The label of code `code` of variable i (0-based), or NULL. */
const char *MrfNamesLabel(const MrfNames *names, int kind, int i, int code);

/*
 * The shapes of the accessors' rows: which leading columns are variables
 * (1-based positions) and codes, and the named columns that follow them.
 */
typedef enum MrfNamedShape
{
	MRF_NAMED_EDGE = 1,			/* (i, j, ...) -> name_i, name_j */
	MRF_NAMED_FIELD,			/* (i, a, ...) -> name, label */
	MRF_NAMED_WEIGHT,			/* (i, j, a, b, ...) -> name_i, name_j, label_a, label_b */
	MRF_NAMED_SET,				/* (vars int[], ...) -> names text[] */
	MRF_NAMED_TABLE				/* (vars int[], codes int[], ...) -> names text[], labels text[] */
} MrfNamedShape;

/*
 * Runs an accessor `inner` (which calls
 * InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC) and emits its rows
 * with MrfPutRow) with the leading columns of the function's result as its
 * row type; its rows go to the result with the names and labels appended.
 */
Datum		MrfNamedRows(FunctionCallInfo fcinfo, PGFunction inner, MrfNamedShape shape);

/* Emits one row of an accessor's leading columns (see MrfNamedRows). */
void		MrfPutRow(ReturnSetInfo *rsinfo, Datum *values, bool *nulls);

#endif
