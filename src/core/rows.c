/*
 * rows.c - unpacking of bit-packed binary samples into the design matrices
 * of the learners (float and double for BLAS, bytes for the Frank-Wolfe
 * kernels).
 */
#include <string.h>

#include "rows.h"

/* Rows unpacked per block: their packed words stay in L1 across all columns. */
#define ROWS_BLOCK 256

/*
 * Works in blocks of rows so that each column is written sequentially while
 * the block's packed words are still in cache; a plain column-by-column pass
 * would stream the whole bit array once per column.
 */
void
MrfBitsToColumns(const uint64_t *bits, int64_t n, int p, int extra,
				 float *cols)
{
	int			words = MrfBitWords(p);
	int64_t		start;
	int			j;

	for (start = 0; start < n; start += ROWS_BLOCK)
	{
		int64_t		end = start + ROWS_BLOCK < n ? start + ROWS_BLOCK : n;

		for (j = 0; j < p; j++)
		{
			float	   *col = cols + (size_t) j * (size_t) n;
			int			word = j >> 6;
			int			shift = j & 63;
			int64_t		m;

			for (m = start; m < end; m++)
			{
				uint64_t	bit = (bits[(size_t) m * words + word] >> shift) & 1;

				/* 1 -> +1, 0 -> -1 */
				col[m] = (float) (2 * (int) bit - 1);
			}
		}
	}
	for (j = p; j < p + extra; j++)
	{
		float	   *col = cols + (size_t) j * (size_t) n;
		int64_t		m;

		for (m = 0; m < n; m++)
			col[m] = 1.0f;
	}
}

/* Column by column: the structure block learners unpack one small block. */
void
MrfBitsToColumnsDouble(const uint64_t *bits, int64_t n, int p, double *x)
{
	int			words = MrfBitWords(p);
	int64_t		m;
	int			j;

	for (j = 0; j < p; j++)
	{
		double	   *col = x + (size_t) j * (size_t) n;
		int			word = j >> 6;
		int			shift = j & 63;

		for (m = 0; m < n; m++)
			col[m] = (double) (2 * (int) ((bits[(size_t) m * words + word] >> shift) & 1) - 1);
	}
	for (m = 0; m < n; m++)
		x[(size_t) p * (size_t) n + m] = 1.0;
}

/*
 * Transposes a 64 x 64 bit matrix in place: afterwards bit i of a[j] is what
 * bit j of a[i] was (the recursive block swap of Hacker's Delight, 7-3).
 */
static void
Transpose64(uint64_t *a)
{
	uint64_t	m = 0x00000000FFFFFFFFULL;
	int			j;
	int			k;

	for (j = 32; j != 0; j >>= 1, m ^= m << j)
		for (k = 0; k < 64; k = ((k | j) + 1) & ~j)
		{
			uint64_t	t = ((a[k] >> j) ^ a[k | j]) & m;

			a[k | j] ^= t;
			a[k] ^= t << j;
		}
}

/* 64 rows at a time: one bit transpose per word of each row. */
void
MrfBitsToColumnBits(const uint64_t *bits, int64_t n, int p, int extra,
					int64_t xwords, uint64_t *cols)
{
	int			words = MrfBitWords(p);
	int64_t		w;
	int			j;

	for (w = 0; w < xwords; w++)
	{
		int64_t		m0 = 64 * w;
		int			rows = m0 >= n ? 0 : (n - m0 < 64 ? (int) (n - m0) : 64);
		int			jw;

		for (jw = 0; jw < words; jw++)
		{
			uint64_t	block[64];
			int			i;
			int			b;

			for (i = 0; i < 64; i++)
				block[i] = i < rows ? bits[(size_t) (m0 + i) * words + jw] : 0;
			Transpose64(block);
			for (b = 0; b < 64 && 64 * jw + b < p; b++)
				cols[(size_t) (64 * jw + b) * xwords + w] = block[b];
		}
		for (j = p; j < p + extra; j++)
			cols[(size_t) j * xwords + w] = rows == 64 ? ~(uint64_t) 0 :
				(((uint64_t) 1 << rows) - 1);
	}
}
