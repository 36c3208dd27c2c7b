/*
 * noise.c - ChaCha20 as a stream generator, and the noise distributions of the
 * mechanisms.
 *
 * The block function follows RFC 8439 section 2.3.  The stream uses the
 * 32-bit block counter together with the first nonce word as one 64-bit
 * counter (the original ChaCha layout), so one key yields 2^70 bytes.
 *
 * Real-valued noise (Gumbel, Laplace) is computed from 53-bit uniforms in
 * double precision; it is used only for selection among candidates
 * (docs/privacy.md 10).  Integer noise for released counts comes from the
 * exact samplers of Canonne, Kamath and Steinke, "The Discrete Gaussian for
 * Differential Privacy" (NeurIPS 2020), Algorithms 1-3, which use integer
 * arithmetic only, so no floating-point artefact (Mironov 2012) can leak.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/random.h>

#include "noise.h"

typedef unsigned __int128 u128;

/* Words of a ChaCha block. */
#define CHACHA_WORDS 16

/* Rotation of the quarter round. */
static inline uint32_t
Rotl32(uint32_t v, int c)
{
	return (v << c) | (v >> (32 - c));
}

/* RFC 8439 section 2.1: the ChaCha quarter round on four state words. */
static inline void
QuarterRound(uint32_t *x, int a, int b, int c, int d)
{
	x[a] += x[b];
	x[d] ^= x[a];
	x[d] = Rotl32(x[d], 16);
	x[c] += x[d];
	x[b] ^= x[c];
	x[b] = Rotl32(x[b], 12);
	x[a] += x[b];
	x[d] ^= x[a];
	x[d] = Rotl32(x[d], 8);
	x[c] += x[d];
	x[b] ^= x[c];
	x[b] = Rotl32(x[b], 7);
}

/* RFC 8439 section 2.3: twenty rounds, then the input added back in. */
void
MrfChaCha20Block(const uint32_t key[8], uint32_t counter,
				 const uint32_t nonce[3], uint32_t out[16])
{
	uint32_t	state[CHACHA_WORDS];
	uint32_t	x[CHACHA_WORDS];
	int			i;

	/* "expand 32-byte k" as four little-endian words */
	state[0] = 0x61707865;
	state[1] = 0x3320646e;
	state[2] = 0x79622d32;
	state[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		state[4 + i] = key[i];
	state[12] = counter;
	state[13] = nonce[0];
	state[14] = nonce[1];
	state[15] = nonce[2];

	memcpy(x, state, sizeof(x));
	for (i = 0; i < 10; i++)
	{
		/* column round */
		QuarterRound(x, 0, 4, 8, 12);
		QuarterRound(x, 1, 5, 9, 13);
		QuarterRound(x, 2, 6, 10, 14);
		QuarterRound(x, 3, 7, 11, 15);
		/* diagonal round */
		QuarterRound(x, 0, 5, 10, 15);
		QuarterRound(x, 1, 6, 11, 12);
		QuarterRound(x, 2, 7, 8, 13);
		QuarterRound(x, 3, 4, 9, 14);
	}
	for (i = 0; i < CHACHA_WORDS; i++)
		out[i] = x[i] + state[i];
}

/* Blocks the stream computes at once (noise.h sizes the buffer). */
#define CHACHA_LANES (MRF_RNG_BUFFER_WORDS / CHACHA_WORDS)

typedef uint32_t ChaChaLanes __attribute__((vector_size(CHACHA_LANES * 4)));

/* The quarter round on eight blocks at once, one per lane. */
#define LANES_ROTL(v, c) (((v) << (c)) | ((v) >> (32 - (c))))
#define LANES_QUARTER(x, a, b, c, d) \
	do { \
		x[a] += x[b]; x[d] ^= x[a]; x[d] = LANES_ROTL(x[d], 16); \
		x[c] += x[d]; x[b] ^= x[c]; x[b] = LANES_ROTL(x[b], 12); \
		x[a] += x[b]; x[d] ^= x[a]; x[d] = LANES_ROTL(x[d], 8); \
		x[c] += x[d]; x[b] ^= x[c]; x[b] = LANES_ROTL(x[b], 7); \
	} while (0)

/*
 * The stream's next CHACHA_LANES blocks, counters counter .. counter + 7 of
 * the 64-bit stream counter (low word in the block counter, high word in
 * the first nonce word, as RngWord lays them out), written one after the
 * other: word for word what MrfChaCha20Block gives block by block (the unit
 * tests compare them), but the eight blocks run in the lanes of one vector.
 * The generator was a tenth of a Frank-Wolfe iteration at p = 400 (one
 * Gumbel draw per candidate, on the thread that selects), so a sequential
 * part of every iteration.
 */
__attribute__((target_clones("avx2", "default")))
static void
ChaCha20Lanes(const uint32_t key[8], uint64_t counter, uint32_t *out)
{
	ChaChaLanes state[CHACHA_WORDS];
	ChaChaLanes x[CHACHA_WORDS];
	int			i;
	int			lane;

	for (i = 0; i < CHACHA_LANES; i++)
	{
		state[12][i] = (uint32_t) (counter + (uint64_t) i);
		state[13][i] = (uint32_t) ((counter + (uint64_t) i) >> 32);
	}
	for (i = 0; i < 4; i++)
		state[i] = (ChaChaLanes) {0} + (i == 0 ? 0x61707865 : i == 1 ? 0x3320646e :
										i == 2 ? 0x79622d32 : 0x6b206574);
	for (i = 0; i < 8; i++)
		state[4 + i] = (ChaChaLanes) {0} + key[i];
	state[14] = (ChaChaLanes) {0};
	state[15] = (ChaChaLanes) {0};

	memcpy(x, state, sizeof(x));
	for (i = 0; i < 10; i++)
	{
		LANES_QUARTER(x, 0, 4, 8, 12);
		LANES_QUARTER(x, 1, 5, 9, 13);
		LANES_QUARTER(x, 2, 6, 10, 14);
		LANES_QUARTER(x, 3, 7, 11, 15);
		LANES_QUARTER(x, 0, 5, 10, 15);
		LANES_QUARTER(x, 1, 6, 11, 12);
		LANES_QUARTER(x, 2, 7, 8, 13);
		LANES_QUARTER(x, 3, 4, 9, 14);
	}
	for (i = 0; i < CHACHA_WORDS; i++)
	{
		x[i] += state[i];
		for (lane = 0; lane < CHACHA_LANES; lane++)
			out[lane * CHACHA_WORDS + i] = x[i][lane];
	}
}

/* The stream's words from block counter on, for the unit tests (MRF_RNG_BUFFER_WORDS of them). */
void
MrfRngStreamBlocks(const uint32_t key[8], uint64_t counter, uint32_t *out)
{
	ChaCha20Lanes(key, counter, out);
}

/* Loads little-endian words so that byte strings key the cipher portably. */
static void
LoadWords(const unsigned char *bytes, uint32_t *words, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
		words[i] = (uint32_t) bytes[4 * i] |
			((uint32_t) bytes[4 * i + 1] << 8) |
			((uint32_t) bytes[4 * i + 2] << 16) |
			((uint32_t) bytes[4 * i + 3] << 24);
}

/* Starts the stream at block 0 with an empty buffer. */
static void
RngStart(MrfRng *rng, int seeded)
{
	rng->counter = 0;
	rng->used = MRF_RNG_BUFFER_WORDS;
	rng->seeded = seeded;
	memset(rng->block, 0, sizeof(rng->block));
}

/* Keys from getrandom(2); loops because it may be interrupted or short. */
int
MrfRngInitSecure(MrfRng *rng)
{
	unsigned char buf[32];
	volatile unsigned char *wipe = buf;
	size_t		got = 0;
	size_t		i;

	while (got < sizeof(buf))
	{
		ssize_t		r = getrandom(buf + got, sizeof(buf) - got, 0);

		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t) r;
	}
	LoadWords(buf, rng->key, 8);
	/* the key must not linger on the stack after it is in the state */
	for (i = 0; i < sizeof(buf); i++)
		wipe[i] = 0;
	RngStart(rng, 0);
	return 0;
}

/*
 * Derives the key as the first block of ChaCha20 under a fixed public key
 * with the seed in the nonce: distinct seeds give unrelated streams, and the
 * fixed key keeps these streams apart from any getrandom-keyed one.
 */
void
MrfRngInitSeeded(MrfRng *rng, uint64_t seed)
{
	static const unsigned char derive_key[33] = "mrfdp test seed, NOT PRIVATE ok.";
	uint32_t	key[8];
	uint32_t	nonce[3];
	uint32_t	out[CHACHA_WORDS];

	LoadWords(derive_key, key, 8);
	nonce[0] = (uint32_t) seed;
	nonce[1] = (uint32_t) (seed >> 32);
	nonce[2] = 0x44454553;		/* "SEED" */
	MrfChaCha20Block(key, 0, nonce, out);
	memcpy(rng->key, out, sizeof(rng->key));
	RngStart(rng, 1);
}

/* Next 32-bit word of the stream; refills the buffer (eight blocks) when exhausted. */
static inline uint32_t
RngWord(MrfRng *rng)
{
	if (rng->used >= MRF_RNG_BUFFER_WORDS)
	{
		ChaCha20Lanes(rng->key, rng->counter, rng->block);
		rng->counter += CHACHA_LANES;
		rng->used = 0;
	}
	return rng->block[rng->used++];
}

/* A child keyed from 256 fresh bits of the parent is independent of it. */
void
MrfRngSplit(MrfRng *rng, MrfRng *child)
{
	int			i;

	for (i = 0; i < 8; i++)
		child->key[i] = RngWord(rng);
	RngStart(child, rng->seeded);
}

/*
 * Moves the stream words positions on without computing the words in
 * between: word i of the stream is word i % 16 of block i / 16 (the stream
 * is counter-based), so the next word is the one the same number of RngWord
 * calls would have reached.  The buffer holds blocks counter - 8 ..
 * counter - 1 and its next word is stream word 16 counter - (buffer - used).
 */
void
MrfRngSkip(MrfRng *rng, uint64_t words)
{
	uint64_t	left = (uint64_t) (MRF_RNG_BUFFER_WORDS - rng->used);

	if (words <= left)
	{
		rng->used += (int) words;
		return;
	}
	/* the buffer used up: the next word is the first of block counter */
	words -= left;
	rng->counter += words / CHACHA_WORDS;
	rng->used = MRF_RNG_BUFFER_WORDS;
	if (words % CHACHA_WORDS != 0)
	{
		ChaCha20Lanes(rng->key, rng->counter, rng->block);
		rng->counter += CHACHA_LANES;
		rng->used = (int) (words % CHACHA_WORDS);
	}
}

/* Two stream words, low word first. */
uint64_t
MrfRngU64(MrfRng *rng)
{
	uint64_t	lo = RngWord(rng);
	uint64_t	hi = RngWord(rng);

	return (hi << 32) | lo;
}

/*
 * Rejection: the values at or above 2^64 mod bound form a whole number of
 * periods of bound, so reducing them is unbiased.  bound = 0 returns 0.
 */
uint64_t
MrfRngBelow(MrfRng *rng, uint64_t bound)
{
	uint64_t	threshold;
	uint64_t	x;

	if (bound == 0)
		return 0;
	threshold = (0 - bound) % bound;
	do
	{
		x = MrfRngU64(rng);
	} while (x < threshold);
	return x % bound;
}

/* The same rejection over 128 bits, for the rationals of the exact samplers. */
static u128
RngBelow128(MrfRng *rng, u128 bound)
{
	u128		threshold;
	u128		x;

	if (bound <= UINT64_MAX)
		return MrfRngBelow(rng, (uint64_t) bound);
	threshold = (0 - bound) % bound;
	do
	{
		x = ((u128) MrfRngU64(rng) << 64) | MrfRngU64(rng);
	} while (x < threshold);
	return x % bound;
}

/*
 * Midpoints of a 2^-52 grid (odd multiples of 2^-53), so that log(U) and
 * log(1-U) are always finite.  With 53 bits, (2^53 - 1) + 0.5 is not a double
 * and rounds to 2^53, giving U = 1 and an infinite Gumbel draw; with 52 bits
 * every midpoint, up to 1 - 2^-53, is exact.
 */
double
MrfRngUniform(MrfRng *rng)
{
	return ((double) (MrfRngU64(rng) >> 12) + 0.5) * (1.0 / 4503599627370496.0);
}

/* Gumbel-max turns this into the exponential mechanism. */
double
MrfRngGumbel(MrfRng *rng)
{
	return -log(-log(MrfRngUniform(rng)));
}

/*
 * Inversion of the Laplace CDF; 2u and 2(1-u) are exact on the uniform's grid
 * and never 0, so the result is always finite.
 */
double
MrfRngLaplace(MrfRng *rng, double scale)
{
	double		u = MrfRngUniform(rng);

	if (u < 0.5)
		return scale * log(2.0 * u);
	return -scale * log(2.0 * (1.0 - u));
}

/* Bernoulli(num/den) exactly, 0 <= num <= den, den > 0. */
static inline int
BernoulliRational(MrfRng *rng, u128 num, u128 den)
{
	return RngBelow128(rng, den) < num;
}

/*
 * CKS 2020 Algorithm 1, case gamma = num/den in [0, 1]: the index K of the
 * first failure of Bernoulli(gamma/K) is odd with probability exp(-gamma).
 * Bernoulli(gamma/K) is drawn as Bernoulli(gamma) and Bernoulli(1/K) so that
 * den * K never has to be formed.
 */
static int
BernoulliExpFraction(MrfRng *rng, u128 num, u128 den)
{
	uint64_t	k = 1;

	for (;;)
	{
		if (!BernoulliRational(rng, num, den))
			break;
		if (MrfRngBelow(rng, k) != 0)
			break;
		k++;
	}
	return (int) (k & 1);
}

/*
 * CKS 2020 Algorithm 1, general gamma = num/den: exp(-gamma) is exp(-1) to
 * the floor(gamma), times exp(-frac(gamma)); stop at the first failure.
 */
static int
BernoulliExp128(MrfRng *rng, u128 num, u128 den)
{
	u128		whole = num / den;
	u128		i;

	for (i = 0; i < whole; i++)
	{
		if (!BernoulliExpFraction(rng, 1, 1))
			return 0;
	}
	return BernoulliExpFraction(rng, num % den, den);
}

/* Bernoulli(exp(-num/den)); den = 0 is invalid and returns -1. */
int
MrfRngBernoulliExpRational(MrfRng *rng, uint64_t num, uint64_t den)
{
	if (den == 0)
		return -1;
	return BernoulliExp128(rng, num, den);
}

/*
 * CKS 2020 Algorithm 2 with t = num, s = den: X = U + tV is geometric with
 * parameter 1 - exp(-1/t), floor(X/s) geometric with 1 - exp(-s/t), and a
 * random sign with the double zero rejected gives the discrete Laplace.
 * X is formed in 128 bits; Y beyond INT64_MAX is rejected (conditioning, of
 * probability below exp(-2^23) when num/den <= 2^40).
 */
static int64_t
DiscreteLaplaceUnchecked(MrfRng *rng, uint64_t t, uint64_t s)
{
	for (;;)
	{
		uint64_t	u = MrfRngBelow(rng, t);
		uint64_t	v = 0;
		u128		x;
		u128		y;
		int			negative;

		if (!BernoulliExp128(rng, u, t))
			continue;
		while (BernoulliExpFraction(rng, 1, 1))
			v++;
		x = (u128) u + (u128) t * v;
		y = x / s;
		negative = (int) (RngWord(rng) & 1);
		if (negative && y == 0)
			continue;
		if (y > (u128) INT64_MAX)
			continue;
		return negative ? -(int64_t) y : (int64_t) y;
	}
}

/* Range check, then CKS Algorithm 2 (see DiscreteLaplaceUnchecked). */
int64_t
MrfRngDiscreteLaplace(MrfRng *rng, uint64_t num, uint64_t den)
{
	const uint64_t max_arg = (uint64_t) 1 << 62;

	if (num == 0 || den == 0 || num > max_arg || den > max_arg)
		return MRF_NOISE_INVALID;
	if ((u128) num > ((u128) den << 40))
		return MRF_NOISE_INVALID;
	return DiscreteLaplaceUnchecked(rng, num, den);
}

/*
 * CKS 2020 Algorithm 3: propose Y from the discrete Laplace with scale
 * t = floor(sigma) + 1 and accept with probability
 * exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)).  With sigma^2 = num/den that
 * exponent is the rational D^2 / Q, D = |Y| den t - num, Q = 2 num den t^2.
 *
 * Ranges, for num, den <= 2^40: t <= 2^20 + 1, so Q < 2^122 and |Y| den t <
 * 2^124 fit in 128 bits.  D^2 fits while |D| < 2^64; a proposal with larger
 * |D| has |Y| >= 2^64 / (den t), which is at least 2^23 sigma, and is
 * rejected: the output is the discrete Gaussian conditioned on that range.
 */
int64_t
MrfRngDiscreteGaussian(MrfRng *rng, uint64_t num, uint64_t den)
{
	const uint64_t max_arg = (uint64_t) 1 << 40;
	uint64_t	r;
	uint64_t	t;
	u128		q;

	if (num == 0 || den == 0 || num > max_arg || den > max_arg)
		return MRF_NOISE_INVALID;

	/* r = floor(sqrt(num/den)) exactly: start from the double, then fix up */
	r = (uint64_t) sqrt((double) num / (double) den);
	while ((u128) (r + 1) * (r + 1) * den <= num)
		r++;
	while (r > 0 && (u128) r * r * den > num)
		r--;
	t = r + 1;
	q = (u128) 2 * num * den * t * t;

	for (;;)
	{
		int64_t		y = DiscreteLaplaceUnchecked(rng, t, 1);
		uint64_t	abs_y = y < 0 ? (uint64_t) 0 - (uint64_t) y : (uint64_t) y;
		u128		a = (u128) abs_y * den * t;
		u128		dist = a >= num ? a - num : (u128) num - a;

		if (dist >> 64)
			continue;
		if (BernoulliExp128(rng, dist * dist, q))
			return y;
	}
}
