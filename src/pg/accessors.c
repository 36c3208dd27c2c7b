/*
 * accessors.c - set-returning functions that read a model as rows, and
 * sampling from a model; each dispatches to the model's kind.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/model.h"
#include "pg/names.h"
#include "pg/release.h"

/* Errors for an accessor the model's kind does not have. */
static void
pg_attribute_noreturn()
NotForKind(const MrfModel *model, const char *fn)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("%s does not apply to models of kind %s", fn, MrfKindName(model->kind))));
}

/* Edges (i, j, weight) with |weight| > threshold, 1-based. */
static Datum
EdgeCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	double		threshold = PG_GETARG_FLOAT8(1);
	const MrfKindOps *ops = MrfKindOpsOf(model);

	if (ops->edges == NULL)
		NotForKind(model, "mrf_edges");
	if (isnan(threshold) || threshold < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must be a non-negative number")));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops->edges(model, threshold, (ReturnSetInfo *) fcinfo->resultinfo);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_edges);
/* Edges (i, j, weight, name_i, name_j). */
Datum
mrf_edges(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, EdgeCodes, MRF_NAMED_EDGE);
}

/* External fields (i, a, theta). */
static Datum
FieldCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	const MrfKindOps *ops = MrfKindOpsOf(model);

	if (ops->fields == NULL)
		NotForKind(model, "mrf_fields");
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops->fields(model, (ReturnSetInfo *) fcinfo->resultinfo);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_fields);
/* External fields (i, a, theta, name, label). */
Datum
mrf_fields(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, FieldCodes, MRF_NAMED_FIELD);
}

/* Most samples one mrf_sample call may draw. */
#define MRF_MAX_SAMPLES 100000000

PG_FUNCTION_INFO_V1(mrf_sample);
/* Samples from a model: exact enumeration for small models, Gibbs otherwise. */
Datum
mrf_sample(PG_FUNCTION_ARGS)
{
	MrfModel   *model;
	const MrfKindOps *ops;
	int32		n;
	int32		burn_in;
	int32		thin;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MrfRun		run;
	int32	   *out;
	Datum	   *elems;
	int			p;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_sample needs a model, n, burn_in and thin")));
	model = PG_GETARG_MRF_P(0);
	ops = MrfKindOpsOf(model);
	n = PG_GETARG_INT32(1);
	burn_in = PG_GETARG_INT32(2);
	thin = PG_GETARG_INT32(3);
	if (ops->sample == NULL)
		NotForKind(model, "mrf_sample");
	if (n < 0 || n > MRF_MAX_SAMPLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 0 and %d", MRF_MAX_SAMPLES)));
	if (burn_in < 0 || thin < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("burn_in must be at least 0 and thin at least 1")));

	p = model->p;
	MrfCheckMemory("mrf_sample", (double) n * p * (sizeof(int32) + 1));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);

	MrfRunBegin(&run, "mrf_sample");
	/* Sampling from a released model is post-processing: any seed is fine. */
	if (!PG_ARGISNULL(4))
		MrfRngInitSeeded(&run.rng, (uint64) PG_GETARG_INT64(4));

	out = MemoryContextAllocHuge(run.mcxt, sizeof(int32) * ((Size) n * p + 1));
	MrfRunCheck(&run, ops->sample(model, n, burn_in, thin, &run.rng, &run.env, out));

	elems = palloc(sizeof(Datum) * p);
	for (int64 m = 0; m < n; m++)
	{
		Datum		value;
		bool		isnull = false;

		for (int j = 0; j < p; j++)
			elems[j] = Int32GetDatum(out[m * p + j]);
		value = PointerGetDatum(construct_array(elems, p, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	MrfRunEnd(&run);
	return (Datum) 0;
}
