/*
 * splitmix64: a small, fast, seedable 64-bit generator (one add and two
 * multiply-xorshift rounds per output).  Not for secrets: cuzk uses it for
 * reproducible test inputs, benchmark data and the deterministic toxic
 * waste of the development setup, where a seed must replay the same
 * stream on every machine.
 */
#ifndef CUZK_UTIL_SPLITMIX_H
#define CUZK_UTIL_SPLITMIX_H

#include <stdint.h>

static inline uint64_t cuzk_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
