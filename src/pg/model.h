/*
 * model.h - the mrf type: a varlena holding a model's kind, sizes, binary
 * parameters and a jsonb document of metadata.
 */
#ifndef MRF_PG_MODEL_H
#define MRF_PG_MODEL_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#define MRF_MODEL_VERSION 1

typedef enum MrfKind
{
	MRF_KIND_ISING = 1,
	MRF_KIND_PAIRWISE = 2,
	MRF_KIND_TWISE = 3,
	MRF_KIND_STRUCTURE = 4,
	MRF_KIND_CLIQUES = 5
} MrfKind;

/* The model was learned with a test seed: its noise is reproducible. */
#define MRF_FLAG_NOT_PRIVATE 0x0001
/* Ising weights are symmetric (A_ij = A_ji). */
#define MRF_FLAG_SYMMETRIC 0x0002

typedef struct MrfModel
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	uint8		version;
	uint8		kind;			/* MrfKind */
	uint16		flags;
	int32		p;				/* variables */
	int32		k;				/* alphabet size */
	int32		t;				/* interaction order (t-wise) */
	int32		nparams;		/* doubles in params */
	int32		meta_offset;	/* byte offset of the metadata Jsonb */
	int32		unused;
	double		params[FLEXIBLE_ARRAY_MEMBER];
} MrfModel;

#define DatumGetMrfModelP(x) ((MrfModel *) PG_DETOAST_DATUM(x))
#define PG_GETARG_MRF_P(n) DatumGetMrfModelP(PG_GETARG_DATUM(n))

/* Allocates a model of the given shape with room for nparams doubles and meta. */
MrfModel   *MrfModelCreate(MrfKind kind, int p, int k, int t, int nparams,
						   uint16 flags, Jsonb *meta);

/* The metadata document of a model. */
Jsonb	   *MrfModelMeta(const MrfModel *model);

/* The SQL-facing name of a kind ("ising", ...). */
const char *MrfKindName(MrfKind kind);

/* Ising parameters: A (p x p, row-major) then theta (p). */
static inline double *
MrfIsingWeights(MrfModel *model)
{
	return model->params;
}

static inline double *
MrfIsingFields(MrfModel *model)
{
	return model->params + (size_t) model->p * model->p;
}

/* Number of doubles of an Ising model's parameters. */
static inline int
MrfIsingParamCount(int p)
{
	return p * p + p;
}

#endif
