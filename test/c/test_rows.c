/*
 * test_rows.c - unpacking of packed binary rows into float columns.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "noise.h"
#include "rows.h"

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
}
