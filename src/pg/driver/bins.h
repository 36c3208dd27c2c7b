/*
 * driver/bins.h - public bins of integer, numeric, floating-point, date and
 * timestamp columns (option bins): edges, labels, codes, and synthetic
 * values within a bin.
 */
#ifndef MRF_PG_BINS_H
#define MRF_PG_BINS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "core/noise.h"

/* The scale a column's values are compared on. */
typedef enum MrfBinScale
{
	MRF_BIN_NONE = 0,
	MRF_BIN_INTEGER,			/* smallint, integer, bigint */
	MRF_BIN_NUMBER,				/* numeric, real, double precision */
	MRF_BIN_DATE,				/* days since 2000-01-01 */
	MRF_BIN_TIMESTAMP,			/* microseconds since 2000-01-01 */
	MRF_BIN_TIMESTAMPTZ			/* microseconds since 2000-01-01 UTC */
} MrfBinScale;

/* One column's bins: nedges edges give nedges + 1 bins (codes). */
typedef struct MrfBins
{
	MrfBinScale scale;
	int			nedges;
	double	   *edges;			/* increasing, on the scale */
	char	  **labels;			/* nedges + 1: "(-inf,e1)", "[e1,e2)", ..., "[em,inf)" */
} MrfBins;

/* The scale of a base type, or MRF_BIN_NONE. */
MrfBinScale MrfBinScaleOf(Oid base);

/* Checks one column's bins' shape (before its type is known); errors name it. */
void		MrfBinsCheckShape(JsonbValue *v, const char *column);

/* Loads a column's bins for its base type; errors (naming it) from the declaration and type. */
void		MrfBinsLoad(JsonbValue *v, Oid base, const char *column, MrfBins *bins);

/* The bin of a value of base type base, or -1 (NaN). */
int			MrfBinOf(const MrfBins *bins, Oid base, Datum value);

/* The text of a point of a scale, as the column's type reads it. */
char	   *MrfBinScaleText(MrfBinScale scale, double x);

/* The text of a value drawn within bin b from rng (see bins.c). */
char	   *MrfBinValueText(Oid base, const double *edges, int nedges, int b, MrfRng *rng);

#endif
