/*
 * accessors.c - set-returning functions that read a model as rows, and
 * sampling from a model.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "core/sample.h"
#include "pg/model.h"
#include "pg/release.h"

/* Errors unless the model is of one of the kinds an accessor reads. */
static void
RequireKind(const MrfModel *model, MrfKind kind, const char *fn)
{
	if (model->kind != kind)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s does not apply to models of kind %s", fn, MrfKindName(model->kind))));
}

PG_FUNCTION_INFO_V1(mrf_edges);
/* Edges (i, j, weight) of an Ising model with |weight| > threshold, 1-based. */
Datum
mrf_edges(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	double		threshold = PG_GETARG_FLOAT8(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const double *A;
	int			p = model->p;
	bool		symmetric;

	RequireKind(model, MRF_KIND_ISING, "mrf_edges");
	if (isnan(threshold) || threshold < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must be a non-negative number")));
	InitMaterializedSRF(fcinfo, 0);
	A = MrfIsingWeights(model);
	symmetric = (model->flags & MRF_FLAG_SYMMETRIC) != 0;

	/* Symmetric models list each edge once (i < j); others every ordered pair. */
	for (int i = 0; i < p; i++)
		for (int j = symmetric ? i + 1 : 0; j < p; j++)
		{
			double		w = A[(size_t) i * p + j];
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			if (i == j || !(fabs(w) > threshold))
				continue;
			values[0] = Int32GetDatum(i + 1);
			values[1] = Int32GetDatum(j + 1);
			values[2] = Float8GetDatum(w);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_fields);
/* External fields (i, a, theta): for Ising, a = 1 names the value +1. */
Datum
mrf_fields(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const double *theta;

	RequireKind(model, MRF_KIND_ISING, "mrf_fields");
	InitMaterializedSRF(fcinfo, 0);
	theta = MrfIsingFields(model);
	for (int i = 0; i < model->p; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(1);
		values[2] = Float8GetDatum(theta[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* Most samples one mrf_sample call may draw. */
#define MRF_MAX_SAMPLES 100000000

PG_FUNCTION_INFO_V1(mrf_sample);
/* Samples from a model: exact enumeration for small p, Gibbs otherwise. */
Datum
mrf_sample(PG_FUNCTION_ARGS)
{
	MrfModel   *model;
	int32		n;
	int32		burn_in;
	int32		thin;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MrfRun		run;
	int8	   *out;
	Datum	   *elems;
	int			p;
	int			status;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_sample needs a model, n, burn_in and thin")));
	model = PG_GETARG_MRF_P(0);
	n = PG_GETARG_INT32(1);
	burn_in = PG_GETARG_INT32(2);
	thin = PG_GETARG_INT32(3);
	RequireKind(model, MRF_KIND_ISING, "mrf_sample");
	if (n < 0 || n > MRF_MAX_SAMPLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 0 and %d", MRF_MAX_SAMPLES)));
	if (burn_in < 0 || thin < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("burn_in must be at least 0 and thin at least 1")));

	p = model->p;
	MrfCheckMemory("mrf_sample", (double) n * p);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);

	MrfRunBegin(&run, "mrf_sample");
	/* Sampling from a released model is post-processing: any seed is fine. */
	if (!PG_ARGISNULL(4))
		MrfRngInitSeeded(&run.rng, (uint64) PG_GETARG_INT64(4));

	out = MemoryContextAllocHuge(run.mcxt, (Size) n * p + 1);
	status = MrfIsingSample(MrfIsingWeights(model), MrfIsingFields(model), p, n,
							burn_in, thin, &run.rng, &run.env, out);
	MrfRunCheck(&run, status);

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
