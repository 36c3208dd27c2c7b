/*
 * model/model.h - the mrf type: a varlena holding a model's kind, sizes, binary
 * parameters and a jsonb document of metadata.
 */
#ifndef MRF_PG_MODEL_H
#define MRF_PG_MODEL_H

#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "core/env.h"
#include "core/noise.h"
#include "core/sample.h"

#define MRF_MODEL_VERSION 1

/* Largest p a model may have: keeps every p x p parameter block well inside 1 GB. */
#define MRF_MODEL_MAX_P 8192

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
/*
 * Pairwise and cliques: per-variable alphabets k_i are the last p doubles
 * of the parameters (set only when some k_i < k).
 */
#define MRF_FLAG_ALPHABETS 0x0004

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

/*
 * What each kind of model provides.  Every kind lives in its own file
 * (src/pg/learners/ising.c, ...) and is listed in model/model.c's table.  Accessors a kind
 * does not support are NULL and raise a clear error.
 */
typedef struct MrfKindOps
{
	MrfKind		kind;
	/* Appends the kind's members of the JSON document (after "k"). */
	void		(*write_json) (StringInfo buf, MrfModel *model);
	/* Builds a model from a parsed document (p validated, meta given). */
	MrfModel   *(*read_json) (JsonbContainer *root, int p, Jsonb *meta);
	/* mrf_edges rows (i, j, weight), 1-based, |weight| > threshold. */
	void		(*edges) (MrfModel *model, double threshold, ReturnSetInfo *rsinfo);
	/* mrf_fields rows (i, a, theta). */
	void		(*fields) (MrfModel *model, ReturnSetInfo *rsinfo);
	/*
	 * n samples into out (n x p, values as the learners read them), by the
	 * sampler sample.h chooses under opt; *used gets it.
	 */
	int			(*sample) (MrfModel *model, int64 n, const MrfSampleOptions *opt,
						   MrfRng *rng, const MrfEnv *env, int32 *out,
						   MrfSampler *used);
} MrfKindOps;

/* The operations of a model's kind. */
const MrfKindOps *MrfKindOpsOf(const MrfModel *model);

/* JSON helpers for the kinds' readers and writers. */
void		MrfJsonAppendDouble(StringInfo buf, double value);

/* A finite double as the shortest decimal that reads back exactly (palloc'd). */
char	   *MrfDoubleText(double value);
void		MrfJsonAppendVector(StringInfo buf, const double *v, int n);
bool		MrfJsonGetKey(JsonbContainer *obj, const char *key, JsonbValue *out);
int			MrfJsonGetInt(JsonbContainer *obj, const char *key, int lo, int hi);
void		MrfJsonReadVector(JsonbValue *arr, int n, double *out, const char *what);
void		MrfJsonReadMatrix(JsonbContainer *root, const char *key, int rows, int cols,
							  double *out);
void		MrfModelMalformed(const char *detail) pg_attribute_noreturn();

/*
 * The optional "alphabets" member of a document: p integers from 2 to k,
 * the largest k (palloc'd); NULL when absent or when every variable has k
 * values (the same model).
 */
int		   *MrfJsonReadAlphabets(JsonbContainer *root, int p, int k);

/* Appends ", \"alphabets\": [...]" when the model has per-variable alphabets. */
void		MrfJsonAppendAlphabets(StringInfo buf, const MrfModel *model);

/* Allocates a model of the given shape with room for nparams doubles and meta. */
MrfModel   *MrfModelCreate(MrfKind kind, int p, int k, int t, int nparams,
						   uint16 flags, Jsonb *meta);

/* The metadata document of a model. */
Jsonb	   *MrfModelMeta(const MrfModel *model);

/* The SQL-facing name of a kind ("ising", ...). */
const char *MrfKindName(MrfKind kind);

/*
 * The number of values variable i (0-based) takes: k_i of a model with
 * per-variable alphabets (the last p parameters: after W and theta of a
 * pairwise model, after the tables of a clique model), else k.
 */
static inline int
MrfModelAlphabet(const MrfModel *model, int i)
{
	if (model->flags & MRF_FLAG_ALPHABETS)
		return (int) model->params[model->nparams - model->p + i];
	return model->k;
}

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
