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

/* As MrfBitsToColumns, in blocks of rows, writing bytes and zero padding. */
void
MrfBitsToBytes(const uint64_t *bits, int64_t n, int p, int extra,
			   int64_t ldx, uint8_t *cols)
{
	int			words = MrfBitWords(p);
	int64_t		start;
	int			j;

	for (start = 0; start < n; start += ROWS_BLOCK)
	{
		int64_t		end = start + ROWS_BLOCK < n ? start + ROWS_BLOCK : n;

		for (j = 0; j < p; j++)
		{
			uint8_t    *col = cols + (size_t) j * (size_t) ldx;
			int			word = j >> 6;
			int			shift = j & 63;
			int64_t		m;

			for (m = start; m < end; m++)
				col[m] = (uint8_t) ((bits[(size_t) m * words + word] >> shift) & 1);
		}
	}
	for (j = 0; j < p + extra; j++)
	{
		uint8_t    *col = cols + (size_t) j * (size_t) ldx;

		if (j >= p)
			memset(col, 1, (size_t) n);
		memset(col + n, 0, (size_t) (ldx - n));
	}
}
