/*
 * test_rows.c - unpacking of packed binary rows into float columns.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "noise.h"
#include "rows.h"

/*
 * The Frank-Wolfe design in column bits: every bit against the packed rows,
 * for p across word boundaries and n not a multiple of 64, with ones
 * columns and zero padding rows.
 */
static void
TestColumnBits(void)
{
	static const int ps[3] = {1, 64, 130};
	MrfRng		rng;
	int			t;

	MrfRngInitSeeded(&rng, 77);
	for (t = 0; t < 3; t++)
	{
		int			p = ps[t];
		int64_t		n = 1000 + 37 * t;
		int			words = MrfBitWords(p);
		int64_t		xwords = (n + 63) / 64 + 1;
		uint64_t   *bits = calloc((size_t) n * words, sizeof(uint64_t));
		uint64_t   *cols = malloc(sizeof(uint64_t) * (size_t) (p + 2) * xwords);
		int64_t		m;
		int			j;
		int			bad = 0;

		for (m = 0; m < n; m++)
			for (j = 0; j < p; j++)
				if (MrfRngBelow(&rng, 2))
					MrfBitSet(bits + m * words, j);
		MrfBitsToColumnBits(bits, n, p, 2, xwords, cols);
		for (m = 0; m < 64 * xwords; m++)
			for (j = 0; j < p + 2; j++)
			{
				int			want = m >= n ? 0 : j >= p ? 1 : MrfBitGet(bits + m * words, j);
				int			got = (int) ((cols[(size_t) j * xwords + m / 64] >> (m % 64)) & 1);

				bad += want != got;
			}
		CHECK_MSG(bad == 0, "p = %d: %d bits wrong", p, bad);
		free(bits);
		free(cols);
	}
}

/* Random rows across word boundaries (p = 70) and a block boundary (n = 300). */
void
TestRows(void)
{
	const int64_t n = 300;
	const int	p = 70;
	const int	extra = 2;
	int			words = MrfBitWords(p);
	uint64_t   *bits = calloc((size_t) n * words, sizeof(uint64_t));
	int8_t	   *truth = malloc((size_t) n * p);
	float	   *cols = malloc(sizeof(float) * (size_t) n * (p + extra));
	MrfRng		rng;
	int64_t		m;
	int			j;
	int			ok = 1;

	CHECK(MrfBitWords(64) == 1 && MrfBitWords(65) == 2 && MrfBitWords(1) == 1);
	MrfRngInitSeeded(&rng, 11);
	for (m = 0; m < n; m++)
		for (j = 0; j < p; j++)
		{
			truth[m * p + j] = (int8_t) (MrfRngBelow(&rng, 2) ? 1 : -1);
			if (truth[m * p + j] > 0)
				MrfBitSet(bits + m * words, j);
		}
	MrfBitsToColumns(bits, n, p, extra, cols);
	for (m = 0; m < n; m++)
	{
		for (j = 0; j < p; j++)
		{
			ok &= cols[(size_t) j * n + m] == (float) truth[m * p + j];
			ok &= MrfBitGet(bits + m * words, j) == (truth[m * p + j] > 0);
		}
		for (j = p; j < p + extra; j++)
			ok &= cols[(size_t) j * n + m] == 1.0f;
	}
	CHECK(ok);
	free(bits);
	free(truth);
	free(cols);
	TestColumnBits();
}
