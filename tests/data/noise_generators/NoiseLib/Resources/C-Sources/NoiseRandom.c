/* Pseudo random numbers for NoiseLib: xorshift64* (S. Vigna, "An experimental exploration of
   Marsaglia's xorshift generators, scrambled", ACM Transactions on Mathematical Software 42(4),
   2016) on a state of two 32-bit Integers (the high word first), as Modelica keeps an Integer
   state vector, and an impure generator of the same kind with a hidden state. */
#include <stdint.h>
#include <stdlib.h>

static uint64_t noise_pack(const int* state)
{
    return ((uint64_t) (uint32_t) state[0] << 32) | (uint32_t) state[1];
}

static uint64_t noise_next(uint64_t x)
{
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x;
}

/* a number in (0, 1]: the 53 high bits of the scrambled state, plus one, times 2^-53 */
static double noise_unit(uint64_t x)
{
    return (double) (((x * UINT64_C(2685821657736338717)) >> 11) + 1) / 9007199254740992.0;
}

/* the state after one step of the generator */
void NoiseLib_step(const int* stateIn, int* stateOut)
{
    uint64_t x = noise_next(noise_pack(stateIn));
    stateOut[0] = (int) (uint32_t) (x >> 32);
    stateOut[1] = (int) (uint32_t) x;
}

/* the number in (0, 1] a state stands for */
double NoiseLib_unit(const int* state)
{
    return noise_unit(noise_pack(state));
}

static uint64_t hidden = 1;  /* the impure generator's state */

/* seeds the impure generator (never with 0, the generator's fixed point); its id */
int NoiseLib_seedImpure(int seed)
{
    hidden = ((uint64_t) (uint32_t) seed << 32) | UINT64_C(0x9E3779B9);
    return 1;
}

/* the next number in (0, 1] of the impure generator */
double NoiseLib_impureDraw(int id)
{
    (void) id;
    hidden = noise_next(hidden);
    return noise_unit(hidden);
}

/* the number in (0, 1] a state stands for and the state after it, in one call (as MSL's
   ModelicaRandom_xorshift* give theirs) */
void NoiseLib_random(const int* stateIn, int* stateOut, double* result)
{
    *result = NoiseLib_unit(stateIn);
    NoiseLib_step(stateIn, stateOut);
}

/* a seed of this run (as MSL's ModelicaRandom_automaticGlobalSeed draws one from the time and
   the process id): the environment's NOISELIB_SEED, so that a test sets it, else 1 */
int NoiseLib_automaticSeed(double dummy)
{
    const char* text = getenv("NOISELIB_SEED");
    (void) dummy;
    return text != NULL ? atoi(text) : 1;
}

/* stores a state vector of the impure generator, a function without outputs (as MSL's
   ModelicaRandom_setInternalState_xorshift1024star stores its own): the generator goes on
   from its last two elements (the high word first) */
void NoiseLib_setHidden(const int* state, size_t n, int id)
{
    (void) id;
    hidden = noise_pack(state + n - 2);
}

static int tally = 0;  /* the sum of the arguments of NoiseLib_tally's calls */

/* adds k to the tally; the tally: a call made where it should not be shows in it */
int NoiseLib_tally(int k)
{
    tally += k;
    return tally;
}
