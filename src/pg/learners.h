/*
 * learners.h - each learner from rows to a model, without charging: the
 * aggregate path and the protected path charge differently, then release.
 */
#ifndef MRF_PG_LEARNERS_H
#define MRF_PG_LEARNERS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "pg/ledger.h"
#include "pg/model.h"

/* The private Ising learner on n packed rows of p variables. */
MrfModel   *MrfIsingLearnModel(const uint64 *bits, int64 n, int p, Jsonb *options,
							   MrfCharge *charge);

#endif
