/*
 * ising.c - the private Ising learner (Zhang et al. 2020, Algorithm 2) from
 * packed rows to a released model, shared by the aggregate's final function
 * and the protected path.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/float.h"

#include "core/ising.h"
#include "core/rows.h"
#include "pg/aggregates.h"
#include "pg/ledger.h"
#include "pg/learners.h"
#include "pg/model.h"
#include "pg/options.h"
#include "pg/release.h"

/* Options accepted by mrf_learn_ising. */
#define ISING_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_LAMBDA | \
					   MRF_OPT_ITERATIONS | MRF_OPT_MECHANISM | MRF_OPT_SYMMETRIZE)

/* Learns an Ising model from n packed rows; fills the charge it costs. */
MrfModel *
MrfIsingLearnModel(const uint64 *bits, int64 n, int p, Jsonb *options,
				   MrfCharge *charge)
{
	const char *learner = "mrf_learn_ising";
	MrfOptions	opt;
	MrfIsingOptions io;
	MrfRun		run;
	MrfModel   *model;
	StringInfoData meta;
	double	   *A;
	double	   *theta;
	int			iterations;

	MrfOptionsParse(options, &opt);
	MrfOptionsCheckAllowed(&opt, ISING_OPTIONS, learner);
	io.rho = MrfOptionsZcdpBudget(&opt, learner);
	io.lambda = (opt.given & MRF_OPT_LAMBDA) ? opt.lambda : 1.0;
	io.iterations = (opt.given & MRF_OPT_ITERATIONS) ? opt.iterations : 0;
	io.mechanism = (opt.given & MRF_OPT_MECHANISM) ? opt.mechanism : MRF_MECH_EXPONENTIAL;
	io.symmetrize = (opt.given & MRF_OPT_SYMMETRIZE) ? opt.symmetrize : true;

	iterations = MrfIsingIterations(&io, p, n);
	MrfCheckMemory(learner, (double) MrfIsingWorkspaceBytes(p, n) +
				   (double) n * MrfBitWords(p) * sizeof(uint64) +
				   (double) MrfIsingParamCount(p) * sizeof(double));

	MrfRunBegin(&run, learner);
	A = palloc0(sizeof(double) * p * p);
	theta = palloc0(sizeof(double) * p);
	MrfRunCheck(&run, MrfIsingLearn(bits, n, p, &io, &run.rng, &run.env, A, theta));

	MrfMetaBegin(&meta, &run, "zhang2020-algorithm-2", n);
	appendStringInfo(&meta, ", \"notion\": \"zCDP\", \"rho\": %s", float8out_internal(io.rho));
	if (opt.given & MRF_OPT_EPSILON)
		appendStringInfo(&meta, ", \"epsilon\": %s, \"delta\": %s",
						 float8out_internal(opt.epsilon), float8out_internal(opt.delta));
	appendStringInfo(&meta, ", \"lambda\": %s, \"iterations\": %d, \"mechanism\": \"%s\", \"symmetrized\": %s",
					 float8out_internal(io.lambda), iterations,
					 MrfMechanismName(io.mechanism), io.symmetrize ? "true" : "false");
	model = MrfModelCreate(MRF_KIND_ISING, p, 2, 0, MrfIsingParamCount(p),
						   (run.not_private ? MRF_FLAG_NOT_PRIVATE : 0) |
						   (io.symmetrize ? MRF_FLAG_SYMMETRIC : 0),
						   MrfMetaFinish(&meta));
	memcpy(MrfIsingWeights(model), A, sizeof(double) * p * p);
	memcpy(MrfIsingFields(model), theta, sizeof(double) * p);
	MrfRunEnd(&run);

	charge->learner = learner;
	charge->notion = MRF_NOTION_ZCDP;
	charge->rho = io.rho;
	charge->epsilon = 0;
	charge->delta = 0;
	charge->rows = n;
	return model;
}

PG_FUNCTION_INFO_V1(mrf_ising_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_ising_final(PG_FUNCTION_ARGS)
{
	MrfBitsState *state = PG_ARGISNULL(0) ? NULL : (MrfBitsState *) PG_GETARG_POINTER(0);
	MrfModel   *model;
	MrfCharge	charge;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("mrf_ising_final called in non-aggregate context")));
	if (state == NULL || state->n == 0)
		PG_RETURN_NULL();
	model = MrfIsingLearnModel(state->bits, state->n, state->p, state->options, &charge);
	/* Charge before release: this returns only once the charge is committed. */
	MrfChargeStatement(&charge);
	PG_RETURN_POINTER(model);
}
