/*
 * Deterministic generator for the host emulation tests (the
 * tests/NAME_emulate.cu programs):
 * splitmix64 from a fixed seed, so a failure reproduces run after run.
 */
#ifndef CUZK_TESTS_EMULATE_RNG_H
#define CUZK_TESTS_EMULATE_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
