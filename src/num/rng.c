/* rng.c -- counter-based random numbers.
 *
 * The n-th output of stream `key` is a pure function mix(key, n): the key
 * is hashed into two 64-bit words, and the counter (spread by the golden
 * gamma, as in splitmix64) goes through two rounds of the splitmix64
 * finaliser keyed by them.  No state besides (key, counter) exists, so a
 * stream gives the same numbers on every machine and whatever other
 * streams were drawn; child streams are derived with lm_hash_u64/str.
 */
#include <math.h>

#include "lm_rng.h"

#define GAMMA 0x9e3779b97f4a7c15ULL

/* splitmix64 output function (a bijection of 64-bit words). */
static uint64_t fmix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t mix(uint64_t key, uint64_t ctr)
{
    uint64_t k1 = fmix64(key ^ 0x6a09e667f3bcc909ULL);
    uint64_t k2 = fmix64(key + 0xbb67ae8584caa73bULL);
    return fmix64(fmix64(k1 + GAMMA * (ctr + 1)) ^ k2);
}

/* Significant bits kept by lm_rng_uniform/lm_rng_normal (0 = all).  The
 * shrinker sets it to report a counterexample in short binary fractions;
 * one process evaluates one instance at a time, so a global is enough. */
static int round_bits;

void lm_rng_set_round(int bits) { round_bits = bits > 0 && bits < 53 ? bits : 0; }
int lm_rng_round(void) { return round_bits; }

/* x with its significand cut to `bits` bits, toward zero: exact (a power-of-two
 * scaling and a trunc), |result| <= |x|, and a nonzero x stays nonzero. */
double lm_round_sig(double x, int bits)
{
    if (bits <= 0 || bits >= 53 || x == 0.0 || !isfinite(x)) return x;
    int e = ilogb(x);
    return ldexp(trunc(ldexp(x, bits - 1 - e)), e - (bits - 1));
}

void lm_rng_init(lm_rng *g, uint64_t key)
{
    g->key = key;
    g->ctr = 0;
    g->have_spare = 0;
    g->spare = 0.0;
}

uint64_t lm_rng_u64(lm_rng *g)
{
    return mix(g->key, g->ctr++);
}

/* k 2^-53 for a 53-bit k, redrawn when k == 0: exact, in (0,1). */
static double uniform53(lm_rng *g)
{
    uint64_t k;
    do k = lm_rng_u64(g) >> 11; while (k == 0);
    return ldexp((double)k, -53);
}

double lm_rng_uniform(lm_rng *g) { return lm_round_sig(uniform53(g), round_bits); }

/* Box-Muller; the second variate of each pair is kept for the next call. */
double lm_rng_normal(lm_rng *g)
{
    if (g->have_spare) {
        g->have_spare = 0;
        return lm_round_sig(g->spare, round_bits);
    }
    double u1 = uniform53(g), u2 = uniform53(g);
    double rad = sqrt(-2.0 * log(u1)), th = 2.0 * M_PI * u2;
    g->spare = rad * sin(th);
    g->have_spare = 1;
    return lm_round_sig(rad * cos(th), round_bits);
}

/* Unbiased by rejection of the top partial block of 2^64. */
int lm_rng_int(lm_rng *g, int lo, int hi)
{
    if (hi <= lo) return lo;
    uint64_t n = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
    do x = lm_rng_u64(g); while (x >= lim);
    return (int)((int64_t)lo + (int64_t)(x % n));
}

uint64_t lm_hash_u64(uint64_t a, uint64_t b)
{
    uint64_t h = fmix64(a + GAMMA);
    return fmix64(fmix64(h ^ b) + GAMMA);
}

/* FNV-1a over the bytes of s, then mixed with a. */
uint64_t lm_hash_str(uint64_t a, const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return lm_hash_u64(a, h);
}
