/*
 * noise.h - a cryptographically secure generator and the noise distributions
 * the mechanisms draw from.
 *
 * MrfRng is ChaCha20 (RFC 8439 block function) used as a stream generator.
 * In private mode its 256-bit key comes from getrandom(2); in test mode it is
 * derived from a 64-bit seed, which makes the output reproducible and NOT
 * private (the glue only allows that for superusers and stamps the model).
 */
#ifndef MRF_NOISE_H
#define MRF_NOISE_H

#include <stdint.h>

/* Words the stream computes at once: eight ChaCha20 blocks. */
#define MRF_RNG_BUFFER_WORDS 128

typedef struct MrfRng
{
	uint32_t	key[8];
	uint64_t	counter;		/* next block counter */
	uint32_t	block[MRF_RNG_BUFFER_WORDS];	/* current output blocks */
	int			used;			/* 32-bit words of block consumed */
	int			seeded;			/* nonzero: test seed, not private */
} MrfRng;

/* Keys the generator from the operating system; returns 0 or -1 on failure. */
int			MrfRngInitSecure(MrfRng *rng);

/* Keys the generator from a test seed (reproducible, not private). */
void		MrfRngInitSeeded(MrfRng *rng, uint64_t seed);

/* Derives an independent generator (for a sub-task) from rng's stream. */
void		MrfRngSplit(MrfRng *rng, MrfRng *child);

/* Two words of the stream (low word first); every Gumbel or Laplace draw takes one. */
uint64_t	MrfRngU64(MrfRng *rng);

/*
 * Advances the stream by words 32-bit words, exactly as that many words drawn
 * would (the words in between are not computed): parallel draws from one
 * stream start each thread's copy where the serial loop would be.
 */
void		MrfRngSkip(MrfRng *rng, uint64_t words);

/*
 * The ChaCha20 block function of RFC 8439 (section 2.3): 32-bit block
 * counter, 96-bit nonce, 16 output words (serialise little-endian for the
 * RFC's byte stream).  Exposed for the RFC test vector.
 */
void		MrfChaCha20Block(const uint32_t key[8], uint32_t counter,
							 const uint32_t nonce[3], uint32_t out[16]);

/* What the discrete samplers return for parameters outside their range. */
#define MRF_NOISE_INVALID INT64_MIN

/* Uniform integer in [0, bound), bound > 0, without modulo bias. */
/* The stream's MRF_RNG_BUFFER_WORDS words from block counter on (unit tests). */
void		MrfRngStreamBlocks(const uint32_t key[8], uint64_t counter, uint32_t *out);

uint64_t	MrfRngBelow(MrfRng *rng, uint64_t bound);

/* Uniform in the open interval (0, 1): odd multiples of 2^-53, never 0 or 1. */
double		MrfRngUniform(MrfRng *rng);

/* Standard Gumbel: -log(-log(U)) with U from MrfRngUniform. */
double		MrfRngGumbel(MrfRng *rng);

/* Laplace(0, scale) by inversion of a uniform from MrfRngUniform. */
double		MrfRngLaplace(MrfRng *rng, double scale);

/*
 * Bernoulli(exp(-gamma)) for rational gamma = num/den >= 0, exactly (CKS 2020,
 * Alg. 1).  Any num, den >= 1 (num = 0 gives 1); den = 0 returns -1.
 */
int			MrfRngBernoulliExpRational(MrfRng *rng, uint64_t num, uint64_t den);

/*
 * Discrete Laplace with scale num/den: P(x) proportional to exp(-|x| den/num)
 * (Canonne-Kamath-Steinke 2020, Algorithm 2).  Exact: integer arithmetic only.
 * Accepts 1 <= num, den <= 2^62 with num/den <= 2^40; otherwise returns
 * MRF_NOISE_INVALID.  The result is conditioned on |x| <= INT64_MAX, an event
 * of probability above 1 - exp(-2^23) in that range.
 */
int64_t		MrfRngDiscreteLaplace(MrfRng *rng, uint64_t num, uint64_t den);

/*
 * Discrete Gaussian with sigma^2 = num/den: P(x) proportional to
 * exp(-x^2 / (2 sigma^2)) (Canonne-Kamath-Steinke 2020, Algorithm 3).  Exact.
 * Accepts 1 <= num, den <= 2^40; otherwise returns MRF_NOISE_INVALID.  The
 * result is conditioned on |x| below 2^23 standard deviations (probability
 * above 1 - exp(-2^45)) so that all arithmetic fits in 128 bits.
 */
int64_t		MrfRngDiscreteGaussian(MrfRng *rng, uint64_t num, uint64_t den);

#endif
