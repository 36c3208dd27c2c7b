/*
 * twise.c - the private binary t-wise learner (Zhang et al. 2020,
 * Algorithms 4 and 5) from packed rows to a released model, its kind
 * operations (JSON text form, fields, edges, sampling) and mrf_monomials.
 *
 * Parameters of a twise model: the core's coefficient array (twise.h), one
 * double per set I of variables with |I| <= t in graded colex order (size
 * first, then C(v_1, 1) + ... + C(v_k, k)), nparams = MrfTwiseCoefCount(p, t);
 * entry 0, the empty monomial, is always 0.  The model is
 * P(z) proportional to exp(sum_I coef_I prod_{i in I} z_i), z in {-1,+1}^p.
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
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "core/rows.h"
#include "core/sample.h"
#include "core/twise.h"
#include "pg/driver/aggregates.h"
#include "pg/ledger/ledger.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options accepted by mrf_learn_twise. */
#define TWISE_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_LAMBDA | \
					   MRF_OPT_ITERATIONS | MRF_OPT_MECHANISM | MRF_OPT_T | \
					   MRF_OPT_OBJECTIVE | MRF_OPT_QUERY_RELEASE)

/* The refusal of a problem MrfTwiseValidate found, with its numbers (NULL if none). */
static MrfRefusal *
TwiseRefusal(MrfProblem problem, const MrfTwiseOptions *to, int p, int64 n, const char *learner)
{
	if (problem == NULL)
		return NULL;
	if (problem == MrfTwiseTooManyFeatures)
	{
		int64		d = MrfTwiseFeatureCount(p, to->t);
		int64		limit = MrfTwiseMaxFeatures(p);

		if (d < 0 || d > limit)
			return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
							 d < 0 ?
							 psprintf("%s with p = %d and t = %d needs more than 2^63 features; the limit is %lld",
									  learner, p, to->t, (long long) limit) :
							 psprintf("%s with p = %d and t = %d needs %lld features; the limit is %lld",
									  learner, p, to->t, (long long) d, (long long) limit),
							 "The design has one column per set of at most t - 1 variables, and the solver needs features times variables to stay below 2^31.",
							 "Lower t or learn from fewer variables.");
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s with p = %d and t = %d would need more memory than can be addressed",
								  learner, p, to->t),
						 psprintf("The design has %lld features for each of the %lld rows.",
								  (long long) d, (long long) n),
						 "Lower t, or learn from fewer rows or variables.");
	}
	if (problem == MrfTwiseBadOrder)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs 2 <= t <= min(p, %d); got t = %d with p = %d",
								  learner, MRF_TWISE_MAX_ORDER, to->t, p),
						 "The order t is the size of the largest interaction and cannot exceed the number of variables.",
						 NULL);
	if (problem == MrfTwisePmwTooLarge)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s with query_release => 'pmw' accepts at most %d variables; the samples have %d",
								  learner, MRF_TWISE_PMW_MAX_P, p),
						 "Private multiplicative weights keeps a distribution over all 2^p points.",
						 "Use query_release => 'gaussian'.");
	if (problem == MrfTwiseBadSplit)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s with objective => 'linf' needs at least 2 rows", learner),
						 psprintf("Algorithm 5 splits the rows into regression rows and parity-query rows; %s.", problem),
						 "Use objective => 'l1', or learn from more rows.");
	if (problem == MrfTwiseNoiseTooLarge)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s: rho = %g is too small for the parity queries", learner, to->rho),
						 psprintf("Released with rho/2, the %lld parity queries would need a discrete Gaussian variance above 2^40.",
								  (long long) MrfTwiseQueryCount(p, to->t)),
						 psprintf("Raise rho, lower t, or use query_release => 'pmw' (p <= %d).",
								  MRF_TWISE_PMW_MAX_P));
	if (problem == MrfTwiseBadScale)
		return MrfOptionsLambdaTooLarge(learner, to->lambda);
	MRF_REFUSE_IF(MrfRefuseRows(learner, n));
	return MrfRefuseProblem(learner, problem);
}

/*
 * The options of mrf_learn_twise, from the document alone: validated, typed
 * (MrfTwiseOptions) and charged.
 */
static MrfRefusal *
TwiseOptions(MrfPlan *plan)
{
	const MrfOptions *opt = &plan->opt;
	const char *learner = plan->learner->name;
	MrfTwiseOptions *to = palloc0(sizeof(MrfTwiseOptions));
	MrfFwOptions fw;
	bool		linf;

	MRF_REFUSE_IF(MrfPlanFwOptions(plan, TWISE_OPTIONS, MRF_OPT_T, &fw));
	to->t = opt->t;
	to->rho = fw.rho;
	to->lambda = fw.lambda;
	to->iterations = fw.iterations;
	to->mechanism = fw.mechanism;
	linf = strcmp(opt->objective, "linf") == 0;
	to->objective = linf ? MRF_TWISE_LINF : MRF_TWISE_L1;
	if ((opt->given & MRF_OPT_QUERY_RELEASE) && !linf)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s takes query_release only with objective => 'linf'", learner),
						 "Algorithm 4 (objective 'l1') releases no parity queries.", NULL);
	to->release = strcmp(opt->query_release, "pmw") == 0 ? MRF_TWISE_PMW : MRF_TWISE_GAUSSIAN;
	/* the node regressions' radius is 2 lambda (MrfTwiseValidate) */
	return MrfPlanFwCharge(plan, to, &fw, 2.0);
}

/*
 * Plans a t-wise release: with p, the order, the design's size and PMW's
 * limit (what the core refuses whatever n); with n, the core's checks, the
 * iterations and the memory.
 */
static MrfRefusal *
TwisePlan(MrfPlan *plan)
{
	const MrfTwiseOptions *to = plan->params;
	const char *learner = plan->learner->name;
	int			p = plan->p;
	int64		n = plan->n;
	int64		ncoef;

	if (n == 0)
	{
		int64		d;

		if (to->t > p || to->t > MRF_TWISE_MAX_ORDER)
			return TwiseRefusal(MrfTwiseBadOrder, to, p, n, learner);
		d = MrfTwiseFeatureCount(p, to->t);
		if (d < 0 || d > MrfTwiseMaxFeatures(p) || MrfTwiseCoefCount(p, to->t) < 0)
			return TwiseRefusal(MrfTwiseTooManyFeatures, to, p, n, learner);
		if (to->objective == MRF_TWISE_LINF && to->release == MRF_TWISE_PMW &&
			p > MRF_TWISE_PMW_MAX_P)
			return TwiseRefusal(MrfTwisePmwTooLarge, to, p, n, learner);
	}
	else
		MRF_REFUSE_IF(TwiseRefusal(MrfTwiseValidate(to, p, n), to, p, n, learner));
	ncoef = MrfTwiseCoefCount(p, to->t);
	if (ncoef > (int64) (MaxAllocSize / sizeof(double)))
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s with p = %d and t = %d would have %lld coefficients; the limit is %lld",
								  learner, p, to->t, (long long) ncoef,
								  (long long) (MaxAllocSize / sizeof(double))),
						 NULL, "Lower t or learn from fewer variables.");
	if (n == 0)
		return NULL;
	plan->iterations = MrfTwiseIterations(to, p, n);
	if (plan->distributed)
	{
		MrfFwDesign design;

		MrfTwiseFwDesignOf(p, to->t, to->lambda, &design);
		plan->memory = MrfPlanFwDistributedMemory(&design, plan->iterations, 2.0 * (double) ncoef);
		return NULL;
	}
	plan->memory = (double) MrfTwiseWorkspaceBytes(to, p, n) +
		(double) n * MrfBitWords(p) * sizeof(uint64) +
		2.0 * (double) ncoef * sizeof(double);
	return NULL;
}

/* Learns a t-wise model from packed rows (Zhang et al. 2020, Algorithms 4 and 5). */
static MrfModel *
TwiseRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const MrfTwiseOptions *to = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	int64		ncoef = MrfTwiseCoefCount(p, to->t);
	bool		linf = to->objective == MRF_TWISE_LINF;
	MrfModel   *model;
	StringInfoData meta;
	double	   *coef;
	double		width;

	coef = MemoryContextAllocHuge(run->mcxt, sizeof(double) * (Size) ncoef);
	if (rows->fw_scores != NULL)
		/* distributed Frank-Wolfe (l1 only): the same solver, its score sums from the shards */
		MrfRunCheck(run, MrfTwiseLearnParts(rows->fw_scores, rows->fw_arg, n, p, to, &run->rng,
											&run->env, coef));
	else
		MrfRunCheck(run, MrfTwiseLearn(MrfRowsBits(rows), n, p, to, &run->rng, &run->env, coef));

	MrfPlanMetaBegin(&meta, plan, run, linf ? "zhang2020-algorithm-5" : "zhang2020-algorithm-4");
	appendStringInfo(&meta, ", \"t\": %d, \"lambda\": %s, \"objective\": \"%s\", \"iterations\": %d, \"mechanism\": \"%s\"",
					 to->t, MrfDoubleText(to->lambda), linf ? "linf" : "l1", plan->iterations,
					 MrfMechanismName(to->mechanism));
	appendStringInfo(&meta, ", \"rho_per_node\": %s",
					 MrfDoubleText(MrfTwiseNodeRho(to->rho, p, linf)));
	if (rows->fw_scores != NULL)
		appendStringInfoString(&meta, ", \"distributed\": \"frank-wolfe score sums from the shards\"");
	coef[0] = 0;
	width = MrfTwiseWidth(coef, p, to->t, &run->env);
	/* p and t were checked: -1 here is the core's allocator refusing memory */
	if (width < 0.0)
		MrfRunCheck(run, MRF_ENOMEM);
	MrfMetaAppendWidth(&meta, width, to->lambda);
	if (linf)
	{
		int64		n2 = MrfTwiseQueryRows(to, n);

		appendStringInfo(&meta, ", \"query_release\": \"%s\", \"regression_rows\": %lld, \"query_rows\": %lld, \"rho_queries\": %s, \"queries\": %lld",
						 to->release == MRF_TWISE_PMW ? "pmw" : "gaussian",
						 (long long) (n - n2), (long long) n2,
						 MrfDoubleText(MrfTwiseQueryRho(to->rho)),
						 (long long) MrfTwiseQueryCount(p, to->t));
		if (to->release == MRF_TWISE_PMW)
			appendStringInfo(&meta, ", \"pmw_rounds\": %d", MrfTwisePmwRounds(to, p, n));
	}
	model = MrfModelCreate(MRF_KIND_TWISE, p, 2, to->t, (int) ncoef,
						   run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
						   MrfMetaFinish(&meta));
	memcpy(model->params, coef, sizeof(double) * (Size) ncoef);
	model->params[0] = 0;
	return model;
}

/*
 * Objective l1 is one Frank-Wolfe problem (Algorithm 4); linf also answers
 * parity queries on the last rows in order, which only gathered rows have.
 */
static bool
TwiseFwDesign(const MrfPlan *plan, MrfFwDesign *design)
{
	const MrfTwiseOptions *to = plan->params;

	if (to->objective != MRF_TWISE_L1)
		return false;
	MrfTwiseFwDesignOf(plan->p, to->t, to->lambda, design);
	return true;
}

const MrfLearner MrfTwiseLearner = {
	"mrf_learn_twise", MRF_ROWS_BITS, NULL, TwiseOptions, TwisePlan, TwiseRun, NULL,
	NULL, NULL, TwiseFwDesign
};

PG_FUNCTION_INFO_V1(mrf_twise_accum);
/*
 * Transition: plans at the first row of each group, window aggregates
 * included (option errors and the budget refused at the first row, not
 * after the scan), then packs bits.
 */
Datum
mrf_twise_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfTwiseLearner, MRF_ROWS_BITS);
}

PG_FUNCTION_INFO_V1(mrf_twise_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_twise_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfTwiseLearner);
}

/* Appends a JSON array of a set's members, 1-based. */
static void
AppendVars(StringInfo buf, const int *vars, int k)
{
	appendStringInfoChar(buf, '[');
	for (int j = 0; j < k; j++)
		appendStringInfo(buf, j > 0 ? ", %d" : "%d", vars[j] + 1);
	appendStringInfoChar(buf, ']');
}

/*
 * The "monomials" member: [[vars, coef], ...] with 1-based vars, in index
 * order, nonzero coefficients only (a missing monomial reads back as 0).
 */
static void
TwiseWriteJson(StringInfo buf, MrfModel *model)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64		c = 0;
	bool		first = true;

	appendStringInfoString(buf, ", \"monomials\": [");
	while (MrfSubsetNext(model->p, model->t, vars, &k))
	{
		c++;
		if (model->params[c] == 0)
			continue;
		if (!first)
			appendStringInfoString(buf, ", ");
		first = false;
		appendStringInfoChar(buf, '[');
		AppendVars(buf, vars, k);
		appendStringInfoString(buf, ", ");
		MrfJsonAppendDouble(buf, model->params[c]);
		appendStringInfoChar(buf, ']');
	}
	appendStringInfoChar(buf, ']');
}

/* Reads a JSON number that must be an integer in [lo, hi]. */
static int
JsonIntIn(JsonbValue *v, int lo, int hi, const char *what)
{
	double		d;

	if (v == NULL || v->type != jbvNumeric)
		MrfModelMalformed(what);
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
	if (d != floor(d) || d < lo || d > hi)
		MrfModelMalformed(what);
	return (int) d;
}

/* A t-wise model from its document ("t" and "monomials"). */
static MrfModel *
TwiseReadJson(JsonbContainer *root, int p, Jsonb *meta)
{
	JsonbValue	v;
	JsonbContainer *list;
	MrfModel   *model;
	int			t;
	int64		ncoef;
	const char *bad_vars;
	bool	   *seen;

	if (MrfJsonGetKey(root, "k", &v) && MrfJsonGetInt(root, "k", 2, 2) != 2)
		MrfModelMalformed("A twise model has k = 2.");
	t = MrfJsonGetInt(root, "t", 2, Min(p, MRF_TWISE_MAX_ORDER));
	ncoef = MrfTwiseCoefCount(p, t);
	if (ncoef < 0 || ncoef > (int64) (MaxAllocSize / sizeof(double)))
		MrfModelMalformed("A twise model with this p and t has too many coefficients.");
	if (!MrfJsonGetKey(root, "monomials", &v) || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		MrfModelMalformed("Member \"monomials\" must be an array of [variables, coefficient] pairs.");
	list = v.val.binary.data;
	model = MrfModelCreate(MRF_KIND_TWISE, p, 2, t, (int) ncoef, 0, meta);
	seen = MemoryContextAllocHuge(CurrentMemoryContext, (Size) ncoef);
	memset(seen, 0, (Size) ncoef);
	bad_vars = psprintf("Each monomial's variables must be a non-empty array of at most t = %d distinct integers from 1 to p = %d.",
						t, p);

	for (uint32 m = 0; m < JsonContainerSize(list); m++)
	{
		JsonbValue *pair = getIthJsonbValueFromContainer(list, m);
		JsonbValue *vv;
		JsonbValue *cv;
		JsonbContainer *vc;
		int			vars[MRF_TWISE_MAX_ORDER];
		int			k;
		int64		index;
		double		c;

		if (pair == NULL || pair->type != jbvBinary ||
			!JsonContainerIsArray(pair->val.binary.data) ||
			JsonContainerSize(pair->val.binary.data) != 2)
			MrfModelMalformed("Each element of \"monomials\" must be a pair [variables, coefficient].");
		vv = getIthJsonbValueFromContainer(pair->val.binary.data, 0);
		cv = getIthJsonbValueFromContainer(pair->val.binary.data, 1);
		if (vv == NULL || vv->type != jbvBinary || !JsonContainerIsArray(vv->val.binary.data))
			MrfModelMalformed(bad_vars);
		vc = vv->val.binary.data;
		k = (int) JsonContainerSize(vc);
		if (k < 1 || k > t)
			MrfModelMalformed(bad_vars);
		for (int j = 0; j < k; j++)
		{
			int			x = JsonIntIn(getIthJsonbValueFromContainer(vc, j), 1, p, bad_vars) - 1;
			int			at = j;

			/* insertion sort: sets may be written in any order */
			while (at > 0 && vars[at - 1] > x)
			{
				vars[at] = vars[at - 1];
				at--;
			}
			if (at > 0 && vars[at - 1] == x)
				MrfModelMalformed(bad_vars);
			vars[at] = x;
		}
		if (cv == NULL || cv->type != jbvNumeric)
			MrfModelMalformed("Each monomial's coefficient must be a number.");
		c = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(cv->val.numeric)));
		if (isnan(c) || isinf(c))
			MrfModelMalformed("Each monomial's coefficient must be finite.");
		index = MrfSubsetIndex(p, vars, k);
		if (index < 1 || index >= ncoef)
			MrfModelMalformed(bad_vars);
		if (seen[index])
			MrfModelMalformed("A monomial appears twice in \"monomials\".");
		seen[index] = true;
		model->params[index] = c;
	}
	pfree(seen);
	return model;
}

/* Edges: the pair monomials {i, j} (i < j) with |coef| > threshold. */
static void
TwiseEdges(MrfModel *model, double threshold, ReturnSetInfo *rsinfo)
{
	int			p = model->p;
	int64		base = 1 + p;	/* index of the first pair, {0, 1} */

	/* Within size 2 the colex rank of {i, j} (i < j) is C(j, 2) + i. */
	for (int j = 1; j < p; j++)
		for (int i = 0; i < j; i++)
		{
			double		w = model->params[base + (int64) j * (j - 1) / 2 + i];
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			if (!(fabs(w) > threshold))
				continue;
			values[0] = Int32GetDatum(i + 1);
			values[1] = Int32GetDatum(j + 1);
			values[2] = Float8GetDatum(w);
			MrfPutRow(rsinfo, values, nulls);
		}
}

/* Fields (i, a, theta): the singleton monomials; a = 1 names the value +1. */
static void
TwiseFields(MrfModel *model, ReturnSetInfo *rsinfo)
{
	for (int i = 0; i < model->p; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(1);
		values[2] = Float8GetDatum(model->params[1 + i]);
		MrfPutRow(rsinfo, values, nulls);
	}
}

/* Samples coded -1/+1. */
static int
TwiseSample(MrfModel *model, int64 n, const MrfSampleOptions *opt, MrfRng *rng,
			const MrfEnv *env, int32 *out, MrfSampler *used)
{
	int8	   *raw;
	int			status;

	/* no junction tree form: nothing to allocate counts through */
	if (opt->allocate)
	{
		*used = MRF_SAMPLER_NONE;
		return MRF_OK;
	}
	raw = MrfAlloc(env, (size_t) n * model->p + 1);
	if (raw == NULL)
		return MRF_ENOMEM;
	status = MrfTwiseSampleWith(model->params, model->p, model->t, n, opt, rng, env, raw, used);
	for (int64 i = 0; status == MRF_OK && i < n * model->p; i++)
		out[i] = raw[i];
	MrfFree(env, raw);
	return status;
}

const MrfKindOps MrfTwiseOps = {
	MRF_KIND_TWISE, TwiseWriteJson, TwiseReadJson, TwiseEdges, TwiseFields, TwiseSample
};

/* Every monomial of a t-wise model, |I| = 1..t in index order: (vars 1-based, coef). */
static Datum
MonomialCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			vars[MRF_TWISE_MAX_ORDER];
	Datum		elems[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64		c = 0;

	if (model->kind != MRF_KIND_TWISE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("mrf_monomials does not apply to models of kind %s",
						MrfKindName(model->kind)),
				 errhint("Use mrf_edges and mrf_fields.")));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	while (MrfSubsetNext(model->p, model->t, vars, &k))
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		c++;
		for (int j = 0; j < k; j++)
			elems[j] = Int32GetDatum(vars[j] + 1);
		values[0] = PointerGetDatum(construct_array(elems, k, INT4OID, sizeof(int32), true,
													TYPALIGN_INT));
		values[1] = Float8GetDatum(model->params[c]);
		MrfPutRow(rsinfo, values, nulls);
		if ((c & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_monomials);
/* Every monomial (vars, coef) with its variables' names. */
Datum
mrf_monomials(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, MonomialCodes, MRF_NAMED_SET);
}
