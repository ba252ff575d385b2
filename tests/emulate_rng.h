/*
 * The input stream of the host emulation tests (the tests/NAME_emulate.cu
 * programs): splitmix64 from a fixed seed, so a failure reproduces run
 * after run.
 */
#ifndef CUZK_TESTS_EMULATE_RNG_H
#define CUZK_TESTS_EMULATE_RNG_H

#include <stdint.h>

#include "util/splitmix.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd64(void) { return cuzk_splitmix64(&rng_state); }

#endif
