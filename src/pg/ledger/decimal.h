/*
 * ledger/decimal.h - exact decimal texts of doubles, for the ledger's numeric sums.
 */
#ifndef MRF_PG_DECIMAL_H
#define MRF_PG_DECIMAL_H

#include "postgres.h"

/* Room for the exact decimal expansion of any double. */
#define MRF_EXACT_DECIMAL_LEN 1200

/* Writes the exact decimal expansion of a finite double >= 0. */
void		MrfExactDecimal(char *buf, size_t len, double x);

#endif
