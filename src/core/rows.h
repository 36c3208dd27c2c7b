/*
 * rows.h - packed storage of samples.  Binary samples: one bit per
 * variable, rows of whole 64-bit words; bit j of a row is 1 for +1 and 0
 * for -1.  Samples of the whole-table learners (cliques, MST, AIM: rows of
 * columns with per-variable alphabets): one MrfCode per variable.
 */
#ifndef MRF_ROWS_H
#define MRF_ROWS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A value's code in the rows of the whole-table learners (cliques, MST,
 * AIM) and of what reads, counts or samples them (bp.h, workload.h,
 * sample.h's clique samplers): z_i < card[i].  Two bytes, so a column's
 * alphabet can outgrow a byte; the Frank-Wolfe learners (Ising, pairwise,
 * t-wise, structure) keep their own one-byte rows and their 255-value cap.
 */
typedef uint16_t MrfCode;

/*
 * Most values of one variable of code rows (codes 0..65535): the core's
 * cap.  The readers of SQL rows cap a column's alphabet lower (the glue's
 * MRF_MAX_ALPHABET).
 */
#define MRF_CODE_CARD_MAX 65536

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
 * Transposes n packed rows into column bits, p + extra columns of xwords
 * words (xwords >= ceil(n / 64)): bit m % 64 of cols[j * xwords + m / 64]
 * is bit j of row m; the extra columns are all ones (intercepts); bits of
 * rows n and above are 0.  The Frank-Wolfe solver's design matrix (fw.h).
 */
void		MrfBitsToColumnBits(const uint64_t *bits, int64_t n, int p, int extra,
								int64_t xwords, uint64_t *cols);

#endif
