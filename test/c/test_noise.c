/*
 * test_noise.c - the ChaCha20 generator and the noise distributions, against
 * the RFC test vector and the exact formulas.  Tolerances are five standard
 * errors; every sampler runs on a fixed seed, so results are reproducible.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "noise.h"

/* Standard errors allowed for moment checks. */
#define SE_TOL 5.0

/* RFC 8439 section 2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1. */
static void
TestChaChaVector(void)
{
	static const uint32_t expect[16] = {
		0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
		0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
		0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
		0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2
	};
	/* the serialised output's first and last bytes as printed in the RFC */
	static const unsigned char expect_head[4] = {0x10, 0xf1, 0xe7, 0xe4};
	static const unsigned char expect_tail[4] = {0xa2, 0x50, 0x3c, 0x4e};
	uint32_t	key[8];
	uint32_t	nonce[3] = {0x09000000, 0x4a000000, 0x00000000};
	uint32_t	out[16];
	unsigned char bytes[64];
	int			i;
	int			same = 1;

	for (i = 0; i < 8; i++)
		key[i] = (uint32_t) (4 * i) | ((uint32_t) (4 * i + 1) << 8) |
			((uint32_t) (4 * i + 2) << 16) | ((uint32_t) (4 * i + 3) << 24);
	MrfChaCha20Block(key, 1, nonce, out);
	for (i = 0; i < 16; i++)
	{
		if (out[i] != expect[i])
		{
			printf("    word %d: got %08x want %08x\n", i, out[i], expect[i]);
			same = 0;
		}
		bytes[4 * i] = (unsigned char) out[i];
		bytes[4 * i + 1] = (unsigned char) (out[i] >> 8);
		bytes[4 * i + 2] = (unsigned char) (out[i] >> 16);
		bytes[4 * i + 3] = (unsigned char) (out[i] >> 24);
	}
	CHECK_MSG(same, "ChaCha20 block differs from RFC 8439 2.3.2");
	CHECK(memcmp(bytes, expect_head, 4) == 0);
	CHECK(memcmp(bytes + 60, expect_tail, 4) == 0);

	/* a different counter must change the block */
	MrfChaCha20Block(key, 2, nonce, out);
	CHECK(out[0] != expect[0]);
}

/*
 * The stream computes eight blocks at once in vector lanes: word for word the
 * blocks MrfChaCha20Block gives one at a time, across the low counter word's
 * wrap, and the generator's words are those blocks in order.
 */
static void
TestChaChaLanes(void)
{
	static const uint64_t starts[3] = {0, 5, 0xfffffffcULL};
	uint32_t	key[8];
	uint32_t	lanes[MRF_RNG_BUFFER_WORDS];
	uint32_t	one[16];
	int			same = 1;
	MrfRng		rng;

	for (int i = 0; i < 8; i++)
		key[i] = 0x9e3779b9u * (uint32_t) (i + 1);
	for (int s = 0; s < 3; s++)
	{
		MrfRngStreamBlocks(key, starts[s], lanes);
		for (int b = 0; b < MRF_RNG_BUFFER_WORDS / 16; b++)
		{
			uint64_t	c = starts[s] + (uint64_t) b;
			uint32_t	nonce[3] = {(uint32_t) (c >> 32), 0, 0};

			MrfChaCha20Block(key, (uint32_t) c, nonce, one);
			same &= memcmp(one, lanes + 16 * b, sizeof(one)) == 0;
		}
	}
	CHECK_MSG(same, "the lanes' blocks differ from RFC 8439's block function");

	/* the generator hands out blocks 0, 1, 2, ... of its key, in order */
	MrfRngInitSeeded(&rng, 7);
	memcpy(key, rng.key, sizeof(key));
	same = 1;
	for (uint64_t c = 0; c < 20; c++)
	{
		uint32_t	nonce[3] = {0, 0, 0};

		MrfChaCha20Block(key, (uint32_t) c, nonce, one);
		for (int w = 0; w < 16; w += 2)
			same &= MrfRngU64(&rng) == ((uint64_t) one[w + 1] << 32 | one[w]);
	}
	CHECK_MSG(same, "the generator's words are not its blocks in order");
}

/*
 * MrfRngSkip(n) lands on stream word n: from states before, at and after a
 * buffer refill (an even or odd word), skips within the buffer, onto a block
 * or buffer boundary and past many refills; the next draws are the stream's
 * words (from the block function) and those of a generator that drew n words.
 */
static void
TestSkip(void)
{
	static const uint64_t drawn_before[] = {0, 1, 2, 63, 64, 126, 127, 128, 129, 300};
	static const uint64_t skips[] = {0, 1, 2, 3, 15, 16, 17, 62, 63, 64, 65, 126, 127, 128,
	129, 130, 255, 256, 257, 1000, 1023, 1024, 12345};
	uint32_t	key[8];
	uint32_t	one[16];
	MrfRng		rng;
	int			same = 1;
	int			drawn_equal = 1;

	MrfRngInitSeeded(&rng, 11);
	memcpy(key, rng.key, sizeof(key));
	for (size_t a = 0; a < sizeof(drawn_before) / sizeof(drawn_before[0]); a++)
		for (size_t s = 0; s < sizeof(skips) / sizeof(skips[0]); s++)
		{
			MrfRng		skipped;
			MrfRng		drawn;
			uint64_t	pos;

			/* a words drawn: U64s, then MrfRngSkip(1) for an odd count */
			MrfRngInitSeeded(&skipped, 11);
			for (uint64_t i = 0; i + 1 < drawn_before[a]; i += 2)
				(void) MrfRngU64(&skipped);
			if (drawn_before[a] % 2)
				MrfRngSkip(&skipped, 1);
			drawn = skipped;
			MrfRngSkip(&skipped, skips[s]);
			pos = drawn_before[a] + skips[s];
			/* 40 words on: the stream's own words, across the next refill */
			for (int w = 0; w < 40; w += 2)
			{
				uint64_t	got = MrfRngU64(&skipped);
				uint64_t	word[2];

				for (int h = 0; h < 2; h++)
				{
					uint64_t	at = pos + (uint64_t) w + (uint64_t) h;
					uint32_t	nonce[3] = {(uint32_t) ((at / 16) >> 32), 0, 0};

					MrfChaCha20Block(key, (uint32_t) (at / 16), nonce, one);
					word[h] = one[at % 16];
				}
				same &= got == (word[1] << 32 | word[0]);
			}
			/* an even skip: the same as drawing its words */
			if (skips[s] % 2 == 0)
			{
				MrfRng		again = skipped;

				for (uint64_t i = 0; i < skips[s] + 40; i += 2)
					(void) MrfRngU64(&drawn);
				for (int i = 0; i < 300; i++)
					drawn_equal &= MrfRngU64(&drawn) == MrfRngU64(&again);
			}
		}
	CHECK_MSG(same, "MrfRngSkip(n) does not land on stream word n");
	CHECK_MSG(drawn_equal, "MrfRngSkip(n) differs from drawing n words");
}

/* Seeds reproduce, distinct seeds and splits diverge, the OS source works. */
static void
TestStreams(void)
{
	MrfRng		a;
	MrfRng		b;
	MrfRng		c;
	MrfRng		child;
	int			i;
	int			equal = 1;
	int			differ = 0;

	MrfRngInitSeeded(&a, 42);
	MrfRngInitSeeded(&b, 42);
	MrfRngInitSeeded(&c, 43);
	for (i = 0; i < 100; i++)
	{
		uint64_t	va = MrfRngU64(&a);

		equal &= va == MrfRngU64(&b);
		differ |= va != MrfRngU64(&c);
	}
	CHECK(equal);
	CHECK(differ);
	CHECK(a.seeded == 1);

	MrfRngSplit(&a, &child);
	CHECK(child.seeded == 1);
	CHECK(MrfRngU64(&child) != MrfRngU64(&a));

	CHECK(MrfRngInitSecure(&a) == 0);
	CHECK(MrfRngInitSecure(&b) == 0);
	CHECK(a.seeded == 0);
	CHECK(MrfRngU64(&a) != MrfRngU64(&b));
}

/* Mean, variance and the open interval of the 53-bit uniform. */
static void
TestUniformGumbelLaplace(void)
{
	const int	n = 1000000;
	const double lap_b = 1.5;
	MrfRng		rng;
	double		s1 = 0;
	double		s2 = 0;
	double		g1 = 0;
	double		g2 = 0;
	double		g4 = 0;
	double		l1 = 0;
	double		l2 = 0;
	double		l4 = 0;
	double		mean;
	double		var;
	double		umin = 1.0;
	double		umax = 0.0;
	int			inside = 1;
	int			i;

	MrfRngInitSeeded(&rng, 1);
	for (i = 0; i < n; i++)
	{
		double		u = MrfRngUniform(&rng);

		inside &= u > 0.0 && u < 1.0;
		umin = u < umin ? u : umin;
		umax = u > umax ? u : umax;
		s1 += u;
		s2 += u * u;
	}
	mean = s1 / n;
	var = s2 / n - mean * mean;
	CHECK(inside);
	CHECK(umin > 0.0 && umin < 1e-4 && umax < 1.0 && umax > 1.0 - 1e-4);
	CHECK_NEAR(mean, 0.5, SE_TOL * sqrt(1.0 / 12.0 / n));
	/* Var(U^2-based estimator): (1/80 - 1/144) / n */
	CHECK_NEAR(var, 1.0 / 12.0, SE_TOL * sqrt((1.0 / 80.0 - 1.0 / 144.0) / n));

	for (i = 0; i < n; i++)
	{
		double		g = MrfRngGumbel(&rng);
		double		l = MrfRngLaplace(&rng, lap_b);

		g1 += g;
		g2 += g * g;
		l1 += l;
		l2 += l * l;
		l4 += l * l * l * l;
	}
	mean = g1 / n;
	var = g2 / n - mean * mean;
	CHECK_NEAR(mean, 0.5772156649015329, SE_TOL * sqrt(M_PI * M_PI / 6.0 / n));
	/* Gumbel excess kurtosis 12/5: Var(s^2) ~ sigma^4 (kurt - 1) / n */
	g4 = pow(M_PI * M_PI / 6.0, 2) * (12.0 / 5.0 + 2.0);
	CHECK_NEAR(var, M_PI * M_PI / 6.0, SE_TOL * sqrt(g4 / n));

	mean = l1 / n;
	var = l2 / n;
	CHECK_NEAR(mean, 0.0, SE_TOL * sqrt(2.0 * lap_b * lap_b / n));
	CHECK_NEAR(var, 2.0 * lap_b * lap_b, SE_TOL * sqrt((l4 / n - var * var) / n));
}

/* Below(bound) is uniform: chi-square over the residues. */
static void
TestBelow(void)
{
	enum
	{
		K = 10
	};
	const long	n = 1000000;
	long		counts[K] = {0};
	double		prob[K];
	MrfRng		rng;
	long		i;
	int			ok = 1;
	uint64_t	big = ((uint64_t) 1 << 63) + 12345;

	MrfRngInitSeeded(&rng, 2);
	for (i = 0; i < n; i++)
		counts[MrfRngBelow(&rng, K)]++;
	for (i = 0; i < K; i++)
		prob[i] = 1.0 / K;
	CHECK_MSG(ChiSquareSurvival(ChiSquareStatistic(counts, prob, K, n), K - 1) > 1e-4,
			  "Below(10) not uniform");
	for (i = 0; i < 1000; i++)
		ok &= MrfRngBelow(&rng, big) < big && MrfRngBelow(&rng, 1) == 0;
	CHECK(ok);
	CHECK(MrfRngBelow(&rng, 0) == 0);
}

/* Bernoulli(exp(-num/den)) frequencies for gamma below and above 1. */
static void
TestBernoulliExp(void)
{
	const long	n = 400000;
	const uint64_t nums[] = {0, 3, 22, 1, 1000000007};
	const uint64_t dens[] = {5, 7, 7, 1, 1000000000};
	MrfRng		rng;
	size_t		c;

	MrfRngInitSeeded(&rng, 3);
	for (c = 0; c < sizeof(nums) / sizeof(nums[0]); c++)
	{
		double		p = exp(-(double) nums[c] / (double) dens[c]);
		long		hits = 0;
		long		i;

		for (i = 0; i < n; i++)
			hits += MrfRngBernoulliExpRational(&rng, nums[c], dens[c]);
		CHECK_MSG(fabs((double) hits / n - p) <= SE_TOL * sqrt(p * (1 - p) / n) + 1e-12,
				  "Bernoulli(exp(-%llu/%llu)): %.6f vs %.6f",
				  (unsigned long long) nums[c], (unsigned long long) dens[c],
				  (double) hits / n, p);
	}
	CHECK(MrfRngBernoulliExpRational(&rng, 1, 0) == -1);
}

/*
 * Empirical mean, variance, P(X = 0) and P(|X| >= k) of an integer sampler
 * against exact values from the probability mass function pmf on [-span,
 * span] (normalised here by summation).
 */
static void
CheckIntegerLaw(const char *name, const int64_t *draws, long n,
				const double *pmf, int span)
{
	double		norm = 0;
	double		var = 0;
	double		m1 = 0;
	double		m2 = 0;
	double		m4 = 0;
	double		evar;
	int			ks[3];
	int			x;
	long		i;
	int			c;

	for (x = -span; x <= span; x++)
		norm += pmf[x + span];
	for (x = -span; x <= span; x++)
		var += (double) x * x * pmf[x + span] / norm;
	for (i = 0; i < n; i++)
	{
		double		v = (double) draws[i];

		m1 += v;
		m2 += v * v;
		m4 += v * v * v * v;
	}
	m1 /= n;
	m2 /= n;
	m4 /= n;
	evar = m2 - m1 * m1;
	CHECK_MSG(fabs(m1) <= SE_TOL * sqrt(var / n), "%s: mean %.5f", name, m1);
	CHECK_MSG(fabs(evar - var) <= SE_TOL * sqrt((m4 - m2 * m2) / n),
			  "%s: variance %.5f vs %.5f", name, evar, var);

	/* tail probabilities at 0, about one and about two standard deviations */
	ks[0] = 0;
	ks[1] = (int) ceil(sqrt(var));
	ks[2] = (int) ceil(2 * sqrt(var));
	for (c = 0; c < 3; c++)
	{
		double		p = 0;
		long		hits = 0;

		if (c == 0)
			p = pmf[span] / norm;
		else
			for (x = -span; x <= span; x++)
				if (abs(x) >= ks[c])
					p += pmf[x + span] / norm;
		for (i = 0; i < n; i++)
			hits += c == 0 ? draws[i] == 0 : llabs(draws[i]) >= ks[c];
		CHECK_MSG(fabs((double) hits / n - p) <= SE_TOL * sqrt(p * (1 - p) / n),
				  "%s: P(%s %d) = %.5f vs %.5f", name, c == 0 ? "X =" : "|X| >=",
				  ks[c], (double) hits / n, p);
	}
}

/* Discrete Laplace and discrete Gaussian against their mass functions. */
static void
TestDiscrete(void)
{
	const long	n = 300000;
	const int	span = 4000;
	const uint64_t lap_num[] = {3, 1, 25};
	const uint64_t lap_den[] = {2, 3, 1};
	const uint64_t gau_num[] = {5, 1, 40000};
	const uint64_t gau_den[] = {2, 3, 1};
	int64_t    *draws = malloc(sizeof(int64_t) * n);
	double	   *pmf = malloc(sizeof(double) * (2 * span + 1));
	MrfRng		rng;
	size_t		c;
	char		name[64];

	MrfRngInitSeeded(&rng, 4);
	for (c = 0; c < 3; c++)
	{
		double		scale = (double) lap_num[c] / lap_den[c];
		long		i;
		int			x;

		for (i = 0; i < n; i++)
			draws[i] = MrfRngDiscreteLaplace(&rng, lap_num[c], lap_den[c]);
		for (x = -span; x <= span; x++)
			pmf[x + span] = exp(-abs(x) / scale);
		snprintf(name, sizeof(name), "discrete Laplace %llu/%llu",
				 (unsigned long long) lap_num[c], (unsigned long long) lap_den[c]);
		CheckIntegerLaw(name, draws, n, pmf, span);
	}
	for (c = 0; c < 3; c++)
	{
		double		sigma2 = (double) gau_num[c] / gau_den[c];
		long		i;
		int			x;

		for (i = 0; i < n; i++)
			draws[i] = MrfRngDiscreteGaussian(&rng, gau_num[c], gau_den[c]);
		for (x = -span; x <= span; x++)
			pmf[x + span] = exp(-(double) x * x / (2.0 * sigma2));
		snprintf(name, sizeof(name), "discrete Gaussian %llu/%llu",
				 (unsigned long long) gau_num[c], (unsigned long long) gau_den[c]);
		CheckIntegerLaw(name, draws, n, pmf, span);
	}

	/* the extreme ends of the documented ranges still sample */
	CHECK(llabs(MrfRngDiscreteGaussian(&rng, (uint64_t) 1 << 40, 1)) < ((int64_t) 1 << 30));
	CHECK(llabs(MrfRngDiscreteGaussian(&rng, 1, (uint64_t) 1 << 40)) < 4);
	CHECK(MrfRngDiscreteLaplace(&rng, (uint64_t) 1 << 62, (uint64_t) 1 << 22) != MRF_NOISE_INVALID);

	/* outside them: the sentinel, never a sample */
	CHECK(MrfRngDiscreteLaplace(&rng, 0, 1) == MRF_NOISE_INVALID);
	CHECK(MrfRngDiscreteLaplace(&rng, 1, 0) == MRF_NOISE_INVALID);
	CHECK(MrfRngDiscreteLaplace(&rng, (uint64_t) 1 << 41, 1) == MRF_NOISE_INVALID);
	CHECK(MrfRngDiscreteGaussian(&rng, ((uint64_t) 1 << 40) + 1, 1) == MRF_NOISE_INVALID);
	CHECK(MrfRngDiscreteGaussian(&rng, 1, 0) == MRF_NOISE_INVALID);

	free(draws);
	free(pmf);
}

/* The noise tests. */
void
TestNoise(void)
{
	TestChaChaVector();
	TestChaChaLanes();
	TestStreams();
	TestSkip();
	TestUniformGumbelLaplace();
	TestBelow();
	TestBernoulliExp();
	TestDiscrete();
}
