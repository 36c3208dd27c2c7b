/*
 * ising.c - the private Ising learner (Zhang et al. 2020, Algorithm 2) from
 * packed rows to a released model, shared by the aggregate's final function
 * and the protected path.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/tuplestore.h"

#include "core/ising.h"
#include "core/rows.h"
#include "core/sample.h"
#include "pg/driver/aggregates.h"
#include "pg/ledger/ledger.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options accepted by mrf_learn_ising. */
#define ISING_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_LAMBDA | \
					   MRF_OPT_ITERATIONS | MRF_OPT_MECHANISM | MRF_OPT_SYMMETRIZE)

/*
 * The refusal of a problem MrfIsingValidate found (NULL for none); every
 * check reads public values only.
 */
MrfRefusal *
MrfIsingRefusal(MrfProblem problem, const MrfIsingOptions *io, int p, int64 n,
				const char *learner)
{
	if (problem == NULL)
		return NULL;
	if (problem == MrfIsingBadScale)
		return MrfOptionsLambdaTooLarge(learner, io->lambda);
	MRF_REFUSE_IF(MrfRefuseRows(learner, n));
	return MrfRefuseProblem(learner, problem);
}

/*
 * The options of mrf_learn_ising, from the document alone: validated, typed
 * (MrfIsingOptions) and charged.
 */
static MrfRefusal *
IsingOptions(MrfPlan *plan)
{
	MrfIsingOptions *io = palloc0(sizeof(MrfIsingOptions));
	MrfFwOptions fw;

	MRF_REFUSE_IF(MrfPlanFwOptions(plan, ISING_OPTIONS, 0, &fw));
	io->rho = fw.rho;
	io->lambda = fw.lambda;
	io->iterations = fw.iterations;
	io->mechanism = fw.mechanism;
	io->symmetrize = plan->opt.symmetrize;
	/* the regressions' radius is 2 lambda (MrfIsingValidate) */
	return MrfPlanFwCharge(plan, io, &fw, 2.0);
}

/* Plans an Ising release: the core's checks, iterations and memory once n is known. */
static MrfRefusal *
IsingPlan(MrfPlan *plan)
{
	const MrfIsingOptions *io = plan->params;
	int			p = plan->p;
	int64		n = plan->n;

	if (n == 0)
		return NULL;			/* p alone refuses nothing the reader has not */
	MRF_REFUSE_IF(MrfIsingRefusal(MrfIsingValidate(io, p, n), io, p, n, plan->learner->name));
	plan->iterations = MrfIsingIterations(io, p, n);
	if (plan->distributed)
	{
		MrfFwDesign design;

		MrfIsingFwDesignOf(p, io->lambda, &design);
		plan->memory = MrfPlanFwDistributedMemory(&design, plan->iterations,
												  (double) MrfIsingParamCount(p));
		return NULL;
	}
	plan->memory = (double) MrfIsingWorkspaceBytes(p, n) +
		(double) n * MrfBitWords(p) * sizeof(uint64) +
		(double) MrfIsingParamCount(p) * sizeof(double);
	return NULL;
}

/* Learns an Ising model from packed rows (Zhang et al. 2020, Algorithm 2). */
static MrfModel *
IsingRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const MrfIsingOptions *io = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	MrfModel   *model;
	StringInfoData meta;
	double	   *A;
	double	   *theta;

	A = palloc0(sizeof(double) * p * p);
	theta = palloc0(sizeof(double) * p);
	if (rows->fw_scores != NULL)
		/* distributed Frank-Wolfe: the same solver, its score sums from the shards */
		MrfRunCheck(run, MrfIsingLearnParts(rows->fw_scores, rows->fw_arg, n, p, io, &run->rng,
											&run->env, A, theta));
	else
		MrfRunCheck(run, MrfIsingLearn(MrfRowsBits(rows), n, p, io, &run->rng, &run->env, A, theta));

	MrfPlanMetaBegin(&meta, plan, run, "zhang2020-algorithm-2");
	appendStringInfo(&meta, ", \"lambda\": %s, \"iterations\": %d, \"mechanism\": \"%s\", \"symmetrized\": %s",
					 MrfDoubleText(io->lambda), plan->iterations,
					 MrfMechanismName(io->mechanism), io->symmetrize ? "true" : "false");
	if (rows->fw_scores != NULL)
		appendStringInfoString(&meta, ", \"distributed\": \"frank-wolfe score sums from the shards\"");
	MrfMetaAppendWidth(&meta, MrfIsingWidth(A, theta, p), io->lambda);
	model = MrfModelCreate(MRF_KIND_ISING, p, 2, 0, MrfIsingParamCount(p),
						   (run->not_private ? MRF_FLAG_NOT_PRIVATE : 0) |
						   (io->symmetrize ? MRF_FLAG_SYMMETRIC : 0),
						   MrfMetaFinish(&meta));
	memcpy(MrfIsingWeights(model), A, sizeof(double) * p * p);
	memcpy(MrfIsingFields(model), theta, sizeof(double) * p);
	return model;
}

/* Every Ising release is one Frank-Wolfe problem (Algorithm 2). */
static bool
IsingFwDesign(const MrfPlan *plan, MrfFwDesign *design)
{
	MrfIsingFwDesignOf(plan->p, ((const MrfIsingOptions *) plan->params)->lambda, design);
	return true;
}

const MrfLearner MrfIsingLearner = {
	"mrf_learn_ising", MRF_ROWS_BITS, NULL, IsingOptions, IsingPlan, IsingRun, NULL,
	NULL, NULL, IsingFwDesign
};

PG_FUNCTION_INFO_V1(mrf_ising_accum);
/*
 * Transition: plans at the first row of each group, window aggregates
 * included (option errors and the budget refused at the first row, not
 * after the scan), then packs bits.
 */
Datum
mrf_ising_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfIsingLearner, MRF_ROWS_BITS);
}

PG_FUNCTION_INFO_V1(mrf_ising_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_ising_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfIsingLearner);
}

/* The "weights" and "fields" members of an Ising model's document. */
static void
IsingWriteJson(StringInfo buf, MrfModel *model)
{
	appendStringInfoString(buf, ", \"weights\": [");
	for (int i = 0; i < model->p; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		MrfJsonAppendVector(buf, MrfIsingWeights(model) + (size_t) i * model->p, model->p);
	}
	appendStringInfoString(buf, "], \"fields\": ");
	MrfJsonAppendVector(buf, MrfIsingFields(model), model->p);
}

/* Sets MRF_FLAG_SYMMETRIC when A equals its transpose. */
static void
IsingMarkSymmetric(MrfModel *model)
{
	const double *A = MrfIsingWeights(model);
	int			p = model->p;

	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
			if (A[(size_t) i * p + j] != A[(size_t) j * p + i])
				return;
	model->flags |= MRF_FLAG_SYMMETRIC;
}

/* An Ising model from its document. */
static MrfModel *
IsingReadJson(JsonbContainer *root, int p, Jsonb *meta)
{
	JsonbValue	v;
	MrfModel   *model;
	double	   *A;

	if (MrfJsonGetKey(root, "k", &v) && MrfJsonGetInt(root, "k", 2, 2) != 2)
		MrfModelMalformed("An Ising model has k = 2.");
	model = MrfModelCreate(MRF_KIND_ISING, p, 2, 0, MrfIsingParamCount(p), 0, meta);
	A = MrfIsingWeights(model);
	MrfJsonReadMatrix(root, "weights", p, p, A);
	for (int i = 0; i < p; i++)
		if (A[(size_t) i * p + i] != 0)
			MrfModelMalformed("The diagonal of \"weights\" must be zero.");
	IsingMarkSymmetric(model);
	if (!MrfJsonGetKey(root, "fields", &v))
		MrfModelMalformed("Member \"fields\" is missing.");
	MrfJsonReadVector(&v, p, MrfIsingFields(model), "fields");
	return model;
}

/* Edges: symmetric models list each pair once (i < j), others every ordered pair. */
static void
IsingEdges(MrfModel *model, double threshold, ReturnSetInfo *rsinfo)
{
	const double *A = MrfIsingWeights(model);
	int			p = model->p;
	bool		symmetric = (model->flags & MRF_FLAG_SYMMETRIC) != 0;

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
			MrfPutRow(rsinfo, values, nulls);
		}
}

/* Fields (i, a, theta): a = 1 names the value +1. */
static void
IsingFields(MrfModel *model, ReturnSetInfo *rsinfo)
{
	const double *theta = MrfIsingFields(model);

	for (int i = 0; i < model->p; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(1);
		values[2] = Float8GetDatum(theta[i]);
		MrfPutRow(rsinfo, values, nulls);
	}
}

/* Samples coded -1/+1. */
static int
IsingSample(MrfModel *model, int64 n, const MrfSampleOptions *opt, MrfRng *rng,
			const MrfEnv *env, int32 *out, MrfSampler *used)
{
	int8	   *raw = MrfAlloc(env, (size_t) n * model->p + 1);
	int			status;

	if (raw == NULL)
		return MRF_ENOMEM;
	status = MrfIsingSampleWith(MrfIsingWeights(model), MrfIsingFields(model), model->p, n,
								opt, rng, env, raw, used);
	for (int64 i = 0; status == MRF_OK && i < n * model->p; i++)
		out[i] = raw[i];
	MrfFree(env, raw);
	return status;
}

const MrfKindOps MrfIsingOps = {
	MRF_KIND_ISING, IsingWriteJson, IsingReadJson, IsingEdges, IsingFields, IsingSample
};

PG_FUNCTION_INFO_V1(mrf_ising);
/* Builds an Ising model from a p x p weight matrix and optional fields. */
Datum
mrf_ising(PG_FUNCTION_ARGS)
{
	ArrayType  *weights;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			p;
	MrfModel   *model;
	double	   *A;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_ising needs a weight matrix")));
	weights = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(weights) != 2 || ARR_DIMS(weights)[0] != ARR_DIMS(weights)[1])
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("weights must be a square two-dimensional array")));
	p = ARR_DIMS(weights)[0];
	if (p < 2 || p > MRF_MODEL_MAX_P)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an Ising model has from 2 to %d variables", MRF_MODEL_MAX_P)));
	deconstruct_array(weights, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &nelems);

	model = MrfModelCreate(MRF_KIND_ISING, p, 2, 0, MrfIsingParamCount(p), 0,
						   DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"))));
	A = MrfIsingWeights(model);
	for (int i = 0; i < nelems; i++)
	{
		if (nulls[i] || isnan(DatumGetFloat8(elems[i])) || isinf(DatumGetFloat8(elems[i])))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weights must be finite and not NULL")));
		A[i] = DatumGetFloat8(elems[i]);
	}
	for (int i = 0; i < p; i++)
		if (A[(size_t) i * p + i] != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the diagonal of the weight matrix must be zero")));
	IsingMarkSymmetric(model);

	if (!PG_ARGISNULL(1))
	{
		ArrayType  *fields = PG_GETARG_ARRAYTYPE_P(1);
		double	   *theta = MrfIsingFields(model);

		deconstruct_array(fields, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
						  &elems, &nulls, &nelems);
		if (ARR_NDIM(fields) != 1 || nelems != p)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("fields must be a one-dimensional array of %d values", p)));
		for (int i = 0; i < p; i++)
		{
			if (nulls[i] || isnan(DatumGetFloat8(elems[i])) || isinf(DatumGetFloat8(elems[i])))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("fields must be finite and not NULL")));
			theta[i] = DatumGetFloat8(elems[i]);
		}
	}
	PG_RETURN_POINTER(model);
}
