/*
 * rows.h - packed storage of binary samples: one bit per variable, rows of
 * whole 64-bit words.  Bit j of a row is 1 for +1 and 0 for -1.
 */
#ifndef MRF_ROWS_H
#define MRF_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit words per packed row of p variables. */
static inline int
MrfBitWords(int p)
{
	return (p + 63) / 64;
}

static inline int
MrfBitGet(const uint64_t *row, int j)
{
	return (int) ((row[j >> 6] >> (j & 63)) & 1);
}

static inline void
MrfBitSet(uint64_t *row, int j)
{
	row[j >> 6] |= (uint64_t) 1 << (j & 63);
}

/*
 * Unpacks n packed rows into a column-major float matrix of n x (p + extra)
 * with leading dimension n: column j holds +1/-1; the extra columns are 1
 * (intercepts).
 */
void		MrfBitsToColumns(const uint64_t *bits, int64_t n, int p, int extra,
							 float *cols);

/*
 * The same in double precision with one intercept column: n x (p + 1),
 * leading dimension n, last column 1.
 */
void		MrfBitsToColumnsDouble(const uint64_t *bits, int64_t n, int p,
								   double *x);

/*
 * Unpacks n packed rows into column-major bytes, n x (p + extra) with
 * leading dimension ldx >= n: column j holds 1 for +1 and 0 for -1; the
 * extra columns are 1 (intercepts); rows n..ldx-1 are 0.  The Frank-Wolfe
 * solver's design matrix (fw.h, x_signed).
 */
void		MrfBitsToBytes(const uint64_t *bits, int64_t n, int p, int extra,
						   int64_t ldx, uint8_t *cols);

#endif
