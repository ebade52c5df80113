/* A seedable random generator that draws exactly what the Rust SDK's `Rng`
 * draws: ChaCha8 seeded as Rust's `ChaCha8Rng::seed_from_u64` seeds it, and
 * arena_rng_range(rng, n) sampling 0..n as Rust's `rng.random_range(0..n)`
 * does for a u32 n. The house bots use that generator, so a C bot that draws
 * the same numbers plays the same games. Header only: include it once. */
#ifndef ARENA_RNG_H
#define ARENA_RNG_H

#include <stdint.h>

typedef struct arena_rng {
  uint32_t key[8];
  uint64_t counter;
  uint32_t buffer[16];
  int index;
} arena_rng;

static inline uint32_t arena_rng_rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* Seed from a game's 64-bit seed (rand_core's seed_from_u64: a PCG32 stream). */
static inline void arena_rng_seed(arena_rng *rng, uint64_t state) {
  for (int i = 0; i < 8; i++) {
    state = state * 6364136223846793005ULL + 11634580027462260723ULL;
    uint32_t xorshifted = (uint32_t)(((state >> 18) ^ state) >> 27);
    uint32_t rot = (uint32_t)(state >> 59);
    rng->key[i] = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
  }
  rng->counter = 0;
  rng->index = 16;
}

#define ARENA_QR(a, b, c, d)                                                   \
  x[a] += x[b]; x[d] = arena_rng_rotl(x[d] ^ x[a], 16);                        \
  x[c] += x[d]; x[b] = arena_rng_rotl(x[b] ^ x[c], 12);                        \
  x[a] += x[b]; x[d] = arena_rng_rotl(x[d] ^ x[a], 8);                         \
  x[c] += x[d]; x[b] = arena_rng_rotl(x[b] ^ x[c], 7);

static inline void arena_rng_block(arena_rng *rng) {
  uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; i++) s[4 + i] = rng->key[i];
  s[12] = (uint32_t)rng->counter;
  s[13] = (uint32_t)(rng->counter >> 32);
  s[14] = 0;
  s[15] = 0;
  uint32_t x[16];
  for (int i = 0; i < 16; i++) x[i] = s[i];
  for (int i = 0; i < 4; i++) { /* 8 rounds: 4 double rounds */
    ARENA_QR(0, 4, 8, 12) ARENA_QR(1, 5, 9, 13) ARENA_QR(2, 6, 10, 14) ARENA_QR(3, 7, 11, 15)
    ARENA_QR(0, 5, 10, 15) ARENA_QR(1, 6, 11, 12) ARENA_QR(2, 7, 8, 13) ARENA_QR(3, 4, 9, 14)
  }
  for (int i = 0; i < 16; i++) rng->buffer[i] = x[i] + s[i];
  rng->counter++;
  rng->index = 0;
}

/* The next 32 random bits. */
static inline uint32_t arena_rng_next_u32(arena_rng *rng) {
  if (rng->index >= 16) arena_rng_block(rng);
  return rng->buffer[rng->index++];
}

/* A uniform integer in 0..n, for 0 < n (Rust's rand: one draw, and a second
 * one to reduce the bias when the first falls in the zone that needs it). */
static inline uint32_t arena_rng_range(arena_rng *rng, uint32_t n) {
  uint64_t m = (uint64_t)arena_rng_next_u32(rng) * n;
  uint32_t result = (uint32_t)(m >> 32), low = (uint32_t)m;
  if (low > (uint32_t)(0u - n)) {
    uint32_t hi2 = (uint32_t)(((uint64_t)arena_rng_next_u32(rng) * n) >> 32);
    if ((uint64_t)low + hi2 > 0xffffffffULL) result += 1;
  }
  return result;
}

#endif
