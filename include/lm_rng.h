/* lm_rng.h -- counter-based random numbers (reproducible, splittable).
 * Every stream is (key, counter); the same key gives the same numbers on
 * every machine, independent of how many other streams were drawn. */
#ifndef LM_RNG_H
#define LM_RNG_H
#include <stdint.h>

typedef struct {
    uint64_t key, ctr;
    int have_spare;
    double spare;
} lm_rng;

void lm_rng_init(lm_rng *g, uint64_t key);
uint64_t lm_rng_u64(lm_rng *g);
double lm_rng_uniform(lm_rng *g);          /* in (0,1), 53 random bits */
double lm_rng_normal(lm_rng *g);           /* N(0,1) */
int lm_rng_int(lm_rng *g, int lo, int hi); /* uniform in [lo,hi] */
/* Counterexample shrinking: while bits > 0, lm_rng_uniform and lm_rng_normal
 * return their value with the significand cut to `bits` bits (toward zero),
 * so an instance is drawn in short binary fractions.  0 restores full draws. */
void lm_rng_set_round(int bits);
int lm_rng_round(void);
double lm_round_sig(double x, int bits);
/* derive a child key from a key and a few integers/strings */
uint64_t lm_hash_u64(uint64_t a, uint64_t b);
uint64_t lm_hash_str(uint64_t a, const char *s);

#endif
