/*
 * pairwise.c - the private pairwise k-ary learner (Zhang et al. 2020,
 * Algorithm 3) from byte rows to a released model, its kind operations
 * (JSON text form, fields, edges, sampling) and mrf_weights.
 *
 * Parameters of a pairwise model, as the core lays them out (pairwise.h):
 * W, p^2 k^2 doubles, W[((i p + j) k + a) k + b] = W_ij(a, b), then theta,
 * p k doubles, theta[i k + a] = theta_i(a); values a, b are 0..k-1.  The
 * model is P(z) proportional to
 * exp(sum_{i<j} W_ij(z_i, z_j) + sum_i theta_i(z_i)), with W read
 * symmetrised, (W_ij(a, b) + W_ji(b, a)) / 2, and diagonal blocks zero.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/tuplestore.h"

#include "core/pairwise.h"
#include "core/sample.h"
#include "pg/driver/aggregates.h"
#include "pg/ledger/ledger.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options accepted by mrf_learn_pairwise. */
#define PAIRWISE_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_LAMBDA | \
						  MRF_OPT_ITERATIONS | MRF_OPT_MECHANISM | MRF_OPT_SYMMETRIZE | \
						  MRF_OPT_K | MRF_OPT_DOMAINS | MRF_OPT_BINS | MRF_OPT_NULLS)

/* Doubles of a pairwise model's parameters; -1 if beyond a model's size limit. */
static int64
PairwiseParamCount(int p, int k)
{
	double		count = (double) p * p * k * k + (double) p * k;

	if (count > (double) (MaxAllocSize / sizeof(double)))
		return -1;
	return (int64) count;
}

static inline double *
PairwiseW(MrfModel *model)
{
	return model->params;
}

static inline double *
PairwiseTheta(MrfModel *model)
{
	return model->params + (size_t) model->p * model->p * model->k * model->k;
}

/* Sets MRF_FLAG_SYMMETRIC when W_ij(a, b) = W_ji(b, a) everywhere. */
static void
PairwiseMarkSymmetric(MrfModel *model)
{
	const double *W = PairwiseW(model);
	int			p = model->p;
	int			k = model->k;

	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
			for (int a = 0; a < k; a++)
				for (int b = 0; b < k; b++)
					if (W[MrfPairwiseAt(p, k, i, j, a, b)] != W[MrfPairwiseAt(p, k, j, i, b, a)])
						return;
	model->flags |= MRF_FLAG_SYMMETRIC;
}

/*
 * The options of mrf_learn_pairwise, from the document alone: validated,
 * typed (MrfPairwiseOptions) and charged.
 */
static MrfRefusal *
PairwiseOptions(MrfPlan *plan)
{
	const MrfOptions *opt = &plan->opt;
	MrfPairwiseOptions *po = palloc0(sizeof(MrfPairwiseOptions));
	MrfFwOptions fw;

	MRF_REFUSE_IF(MrfPlanFwOptions(plan, PAIRWISE_OPTIONS, 0, &fw));
	po->rho = fw.rho;
	po->lambda = fw.lambda;
	po->iterations = fw.iterations;
	po->mechanism = fw.mechanism;
	po->symmetrize = opt->symmetrize;
	/* the regressions' radius is 2 lambda k (MrfPairwiseValidate) */
	return MrfPlanFwCharge(plan, po, &fw,
						   2.0 * ((opt->given & MRF_OPT_K) ? opt->k : MRF_PAIRWISE_MAX_K));
}

/* The refusal of a problem MrfPairwiseValidate found, with its numbers (NULL if none). */
static MrfRefusal *
PairwiseRefusal(MrfProblem problem, const MrfPairwiseOptions *po, int p, int k, int64 n,
				const char *learner)
{
	if (problem == NULL)
		return NULL;
	if (problem == MrfPairwiseBadAlphabet)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s takes k from 2 to %d", learner, MRF_PAIRWISE_MAX_K),
						 NULL, NULL);
	if (problem == MrfPairwiseTooManyFeatures)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s with p = %d and k = %d needs %lld regressions over %lld coordinates; their product must stay below %d",
								  learner, p, k, (long long) MrfPairwiseProblemCount(p, k),
								  (long long) MrfPairwiseCoordinateCount(p, k), INT_MAX),
						 "Algorithm 3 runs p k (k - 1) regressions on p k + 1 one-hot coordinates.",
						 "Learn from fewer variables or a smaller alphabet.");
	if (problem == MrfPairwiseBadScale)
		return MrfOptionsLambdaTooLarge(learner, po->lambda);
	MRF_REFUSE_IF(MrfRefuseRows(learner, n));
	return MrfRefuseProblem(learner, problem);
}

/*
 * Plans a pairwise release: with p and k, the alphabet and the problem's
 * size (what the core refuses whatever n); with n, the core's checks, the
 * iterations and the memory.
 */
static MrfRefusal *
PairwisePlan(MrfPlan *plan)
{
	const MrfPairwiseOptions *po = plan->params;
	const char *learner = plan->learner->name;
	int			p = plan->p;
	int			k = plan->k;
	int64		n = plan->n;
	int64		nparams;

	if (n == 0)
	{
		int64		q = MrfPairwiseProblemCount(p, k);
		int64		d = MrfPairwiseCoordinateCount(p, k);

		if (k < 2 || k > MRF_PAIRWISE_MAX_K)
			return PairwiseRefusal(MrfPairwiseBadAlphabet, po, p, k, n, learner);
		if (q > INT_MAX || d > INT_MAX || d > INT_MAX / q)
			return PairwiseRefusal(MrfPairwiseTooManyFeatures, po, p, k, n, learner);
	}
	else
		MRF_REFUSE_IF(PairwiseRefusal(MrfPairwiseValidate(po, p, k, n), po, p, k, n, learner));
	nparams = PairwiseParamCount(p, k);
	if (nparams < 0)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s with p = %d and k = %d would release more than %lld parameters",
								  learner, p, k, (long long) (MaxAllocSize / sizeof(double))),
						 NULL, "Learn from fewer variables or a smaller alphabet.");
	if (n == 0)
		return NULL;
	plan->iterations = MrfPairwiseIterations(po, p, k, n);
	if (plan->distributed)
	{
		MrfFwDesign design;

		MrfPairwiseFwDesignOf(p, k, plan->kv, po->lambda, &design);
		plan->memory = MrfPlanFwDistributedMemory(&design,
												  MrfPairwiseIterationsAlphabets(po, p, k, plan->kv, n),
												  2.0 * (double) nparams);
		return NULL;
	}
	/* the run's design follows the per-variable alphabets when they are known */
	plan->memory = (double) MrfPairwiseWorkspaceBytesAlphabets(p, k, plan->kv, n) +
		(double) n * p + 2.0 * (double) nparams * sizeof(double);
	return NULL;
}

/* Learns a pairwise model from byte rows (Zhang et al. 2020, Algorithm 3). */
static MrfModel *
PairwiseRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const MrfPairwiseOptions *po = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	int			k = plan->k;
	const uint8 *kv = plan->kv;	/* per-variable alphabets (the rows'), or NULL */
	MrfModel   *model;
	StringInfoData meta;
	double	   *W;
	double	   *theta;

	W = MemoryContextAllocHuge(run->mcxt, sizeof(double) * (Size) p * p * k * k);
	theta = MemoryContextAllocHuge(run->mcxt, sizeof(double) * (Size) p * k);
	if (rows->fw_scores != NULL)
		/* distributed Frank-Wolfe: the same solver, its score sums from the shards */
		MrfRunCheck(run, MrfPairwiseLearnParts(rows->fw_scores, rows->fw_arg, n, p, k, kv, po,
											   &run->rng, &run->env, W, theta));
	else
		MrfRunCheck(run, MrfPairwiseLearnAlphabets(MrfRowsBytes(rows), n, p, k, kv, po, &run->rng,
												   &run->env, W, theta));

	MrfPlanMetaBegin(&meta, plan, run, "zhang2020-algorithm-3");
	appendStringInfo(&meta, ", \"lambda\": %s, \"iterations\": %d, \"mechanism\": \"%s\", \"symmetrized\": %s, \"regressions\": %lld, \"rho_per_regression\": %s, \"centred\": true",
					 MrfDoubleText(po->lambda),
					 kv ? MrfPairwiseIterationsAlphabets(po, p, k, kv, n) : plan->iterations,
					 MrfMechanismName(po->mechanism),
					 po->symmetrize ? "true" : "false",
					 (long long) MrfPairwiseProblemCountAlphabets(p, k, kv),
					 MrfDoubleText(kv ? MrfPairwiseProblemRhoAlphabets(po->rho, p, kv) :
								   MrfPairwiseProblemRho(po->rho, p, k)));
	if (rows->fw_scores != NULL)
		appendStringInfoString(&meta, ", \"distributed\": \"frank-wolfe score sums from the shards\"");
	MrfMetaAppendWidth(&meta, MrfPairwiseWidth(W, theta, p, k), po->lambda);
	model = MrfModelCreate(MRF_KIND_PAIRWISE, p, k, 0, (int) PairwiseParamCount(p, k) + (kv ? p : 0),
						   (run->not_private ? MRF_FLAG_NOT_PRIVATE : 0) |
						   (kv ? MRF_FLAG_ALPHABETS : 0), MrfMetaFinish(&meta));
	memcpy(PairwiseW(model), W, sizeof(double) * (Size) p * p * k * k);
	memcpy(PairwiseTheta(model), theta, sizeof(double) * (Size) p * k);
	for (int i = 0; kv != NULL && i < p; i++)
		PairwiseTheta(model)[(Size) p * k + i] = kv[i];
	for (int i = 0; kv != NULL && i < p; i++)
		PairwiseTheta(model)[(Size) p * k + i] = kv[i];
	PairwiseMarkSymmetric(model);
	return model;
}

/* Every pairwise release is one Frank-Wolfe problem (Algorithm 3) over the plan's alphabets. */
static bool
PairwiseFwDesign(const MrfPlan *plan, MrfFwDesign *design)
{
	MrfPairwiseFwDesignOf(plan->p, plan->k, plan->kv,
						  ((const MrfPairwiseOptions *) plan->params)->lambda, design);
	return true;
}

const MrfLearner MrfPairwiseLearner = {
	"mrf_learn_pairwise", MRF_ROWS_BYTES, NULL, PairwiseOptions, PairwisePlan, PairwiseRun, NULL,
	NULL, NULL, PairwiseFwDesign
};

PG_FUNCTION_INFO_V1(mrf_pairwise_accum);
/*
 * Transition: plans at the first row of each group, window aggregates
 * included (option errors and the budget refused at the first row, not
 * after the scan), then stores bytes.
 */
Datum
mrf_pairwise_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfPairwiseLearner, MRF_ROWS_BYTES);
}

PG_FUNCTION_INFO_V1(mrf_pairwise_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_pairwise_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfPairwiseLearner);
}

/*
 * "weights": nested p x p x k x k arrays, weights[i][j][a][b] = W_ij(a, b)
 * (0-based positions in the arrays); "fields": p x k, fields[i][a].
 */
static void
PairwiseWriteJson(StringInfo buf, MrfModel *model)
{
	int			p = model->p;
	int			k = model->k;
	const double *W = PairwiseW(model);

	appendStringInfoString(buf, ", \"weights\": [");
	for (int i = 0; i < p; i++)
	{
		appendStringInfoString(buf, i > 0 ? ", [" : "[");
		for (int j = 0; j < p; j++)
		{
			appendStringInfoString(buf, j > 0 ? ", [" : "[");
			for (int a = 0; a < k; a++)
			{
				if (a > 0)
					appendStringInfoString(buf, ", ");
				MrfJsonAppendVector(buf, W + MrfPairwiseAt(p, k, i, j, a, 0), k);
			}
			appendStringInfoChar(buf, ']');
		}
		appendStringInfoChar(buf, ']');
	}
	appendStringInfoString(buf, "], \"fields\": [");
	for (int i = 0; i < p; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		MrfJsonAppendVector(buf, PairwiseTheta(model) + (size_t) i * k, k);
	}
	appendStringInfoChar(buf, ']');
	MrfJsonAppendAlphabets(buf, model);
}

/* The i-th element of a JSON array that must have n elements, itself an array. */
static JsonbContainer *
JsonArrayOf(JsonbValue *v, int n, const char *detail)
{
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) != (uint32) n)
		MrfModelMalformed(detail);
	return v->val.binary.data;
}

/* A pairwise model from its document ("k", "weights", "fields", optional "alphabets"). */
static MrfModel *
PairwiseReadJson(JsonbContainer *root, int p, Jsonb *meta)
{
	JsonbValue	v;
	MrfModel   *model;
	JsonbContainer *outer;
	int			k;
	int64		nparams;
	double	   *W;
	const char *shape;
	int		   *kv;

	k = MrfJsonGetInt(root, "k", 2, MRF_PAIRWISE_MAX_K);
	nparams = PairwiseParamCount(p, k);
	if (nparams < 0 || nparams + p > (int64) (MaxAllocSize / sizeof(double)))
		MrfModelMalformed("A pairwise model with this p and k has too many parameters.");
	kv = MrfJsonReadAlphabets(root, p, k);
	model = MrfModelCreate(MRF_KIND_PAIRWISE, p, k, 0, (int) nparams + (kv ? p : 0),
						   kv ? MRF_FLAG_ALPHABETS : 0, meta);
	for (int i = 0; kv != NULL && i < p; i++)
		PairwiseTheta(model)[(Size) p * k + i] = kv[i];
	W = PairwiseW(model);
	shape = psprintf("Member \"weights\" must be a %d x %d array of %d x %d arrays of numbers.",
					 p, p, k, k);
	if (!MrfJsonGetKey(root, "weights", &v))
		MrfModelMalformed(shape);
	outer = JsonArrayOf(&v, p, shape);
	for (int i = 0; i < p; i++)
	{
		JsonbContainer *row = JsonArrayOf(getIthJsonbValueFromContainer(outer, i), p, shape);

		for (int j = 0; j < p; j++)
		{
			JsonbContainer *block = JsonArrayOf(getIthJsonbValueFromContainer(row, j), k, shape);

			for (int a = 0; a < k; a++)
				MrfJsonReadVector(getIthJsonbValueFromContainer(block, a), k,
								  W + MrfPairwiseAt(p, k, i, j, a, 0), "weights");
			CHECK_FOR_INTERRUPTS();
		}
	}
	for (int i = 0; i < p; i++)
		for (int a = 0; a < k; a++)
			for (int b = 0; b < k; b++)
				if (W[MrfPairwiseAt(p, k, i, i, a, b)] != 0)
					MrfModelMalformed("The diagonal blocks of \"weights\" (i = j) must be zero.");
	MrfJsonReadMatrix(root, "fields", p, k, PairwiseTheta(model));
	/* values outside a variable's alphabet never occur: their cells are 0 */
	for (int i = 0; kv != NULL && i < p; i++)
		for (int a = 0; a < k; a++)
		{
			if (a >= kv[i] && PairwiseTheta(model)[(size_t) i * k + a] != 0)
				MrfModelMalformed("The fields of values outside a variable's alphabet must be zero.");
			for (int j = 0; j < p; j++)
				for (int b = 0; b < k; b++)
					if ((a >= kv[i] || b >= kv[j]) && W[MrfPairwiseAt(p, k, i, j, a, b)] != 0)
						MrfModelMalformed("The weights of values outside a variable's alphabet must be zero.");
		}
	PairwiseMarkSymmetric(model);
	return model;
}

/*
 * Edges (i < j): the Frobenius norm of the doubly centred block of the
 * symmetrised W, (W_ij(a, b) + W_ji(b, a)) / 2 less its row and column means
 * plus its grand mean: the part of the block that is an interaction (the
 * rest could move into the fields), so it does not depend on how the model
 * is parametrised.
 */
static void
PairwiseEdges(MrfModel *model, double threshold, ReturnSetInfo *rsinfo)
{
	const double *W = PairwiseW(model);
	int			p = model->p;
	int			k = model->k;
	double	   *B = palloc(sizeof(double) * k * k);
	double	   *row = palloc(sizeof(double) * k);
	double	   *col = palloc(sizeof(double) * k);

	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
		{
			double		all = 0;
			double		norm = 0;
			Datum		values[3];
			bool		nulls[3] = {false, false, false};
			int			ki = MrfModelAlphabet(model, i);
			int			kj = MrfModelAlphabet(model, j);

			/* over the values each variable has (k_i x k_j cells) */
			memset(row, 0, sizeof(double) * k);
			memset(col, 0, sizeof(double) * k);
			for (int a = 0; a < ki; a++)
				for (int b = 0; b < kj; b++)
				{
					double		w = (W[MrfPairwiseAt(p, k, i, j, a, b)] +
									 W[MrfPairwiseAt(p, k, j, i, b, a)]) / 2.0;

					B[a * k + b] = w;
					row[a] += w / kj;
					col[b] += w / ki;
					all += w / ((double) ki * kj);
				}
			for (int a = 0; a < ki; a++)
				for (int b = 0; b < kj; b++)
				{
					double		c = B[a * k + b] - row[a] - col[b] + all;

					norm += c * c;
				}
			norm = sqrt(norm);
			if (!(norm > threshold))
				continue;
			values[0] = Int32GetDatum(i + 1);
			values[1] = Int32GetDatum(j + 1);
			values[2] = Float8GetDatum(norm);
			MrfPutRow(rsinfo, values, nulls);
		}
}

/* Fields (i, a, theta_i(a)) for every value a = 0..k-1. */
static void
PairwiseFields(MrfModel *model, ReturnSetInfo *rsinfo)
{
	const double *theta = PairwiseTheta(model);

	for (int i = 0; i < model->p; i++)
		for (int a = 0; a < MrfModelAlphabet(model, i); a++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			values[0] = Int32GetDatum(i + 1);
			values[1] = Int32GetDatum(a);
			values[2] = Float8GetDatum(theta[(size_t) i * model->k + a]);
			MrfPutRow(rsinfo, values, nulls);
		}
}

/* The field of a value outside its variable's alphabet, for the sampler. */
#define PAIRWISE_IMPOSSIBLE (-1.0e6)

/* Samples with values 0..k_i - 1. */
static int
PairwiseSample(MrfModel *model, int64 n, const MrfSampleOptions *opt, MrfRng *rng,
			   const MrfEnv *env, int32 *out, MrfSampler *used)
{
	uint8	   *raw = MrfAlloc(env, (size_t) n * model->p + 1);
	double	   *theta = PairwiseTheta(model);
	int			status;

	if (raw == NULL)
		return MRF_ENOMEM;
	if (model->flags & MRF_FLAG_ALPHABETS)
	{
		/*
		 * Values outside a variable's alphabet get a field so low that
		 * exp() of it underflows to 0 next to any value the variable has
		 * (weights are finite and centred): they are never drawn.
		 */
		theta = palloc(sizeof(double) * (Size) model->p * model->k);
		memcpy(theta, PairwiseTheta(model), sizeof(double) * (Size) model->p * model->k);
		for (int i = 0; i < model->p; i++)
			for (int a = MrfModelAlphabet(model, i); a < model->k; a++)
				theta[(Size) i * model->k + a] = PAIRWISE_IMPOSSIBLE;
	}
	status = MrfPairwiseSampleWith(PairwiseW(model), theta, model->p, model->k,
								   n, opt, rng, env, raw, used);
	for (int64 i = 0; status == MRF_OK && i < n * model->p; i++)
		out[i] = raw[i];
	MrfFree(env, raw);
	return status;
}

const MrfKindOps MrfPairwiseOps = {
	MRF_KIND_PAIRWISE, PairwiseWriteJson, PairwiseReadJson, PairwiseEdges, PairwiseFields,
	PairwiseSample
};

/*
 * Weights (i, j, a, b, W_ij(a, b)), 1-based i, j and values a, b = 0..k-1:
 * symmetric models list each pair once (i < j), others every ordered pair.
 */
static Datum
WeightCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const double *W;
	int			p;
	int			k;
	bool		symmetric;

	if (model->kind != MRF_KIND_PAIRWISE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("mrf_weights does not apply to models of kind %s",
						MrfKindName(model->kind)),
				 errhint("Use mrf_edges.")));
	W = PairwiseW(model);
	p = model->p;
	k = model->k;
	symmetric = (model->flags & MRF_FLAG_SYMMETRIC) != 0;
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int i = 0; i < p; i++)
	{
		for (int j = symmetric ? i + 1 : 0; j < p; j++)
		{
			if (i == j)
				continue;
			for (int a = 0; a < MrfModelAlphabet(model, i); a++)
				for (int b = 0; b < MrfModelAlphabet(model, j); b++)
				{
					Datum		values[5];
					bool		nulls[5] = {false, false, false, false, false};

					values[0] = Int32GetDatum(i + 1);
					values[1] = Int32GetDatum(j + 1);
					values[2] = Int32GetDatum(a);
					values[3] = Int32GetDatum(b);
					values[4] = Float8GetDatum(W[MrfPairwiseAt(p, k, i, j, a, b)]);
					MrfPutRow(rsinfo, values, nulls);
				}
		}
		CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_weights);
/* Weights (i, j, a, b, weight) with the variables' names and the values' labels. */
Datum
mrf_weights(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, WeightCodes, MRF_NAMED_WEIGHT);
}
