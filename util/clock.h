/*
 * The library's one clock: CLOCK_MONOTONIC in nanoseconds (cuzk_now_ns,
 * public in include/cuzk.h, so that callers' deadlines and the engine's
 * timestamps are on the same clock).  It lives below every room of the
 * library, so the witness calculators and the engine read it without
 * calling into one another.
 */
#ifndef CUZK_UTIL_CLOCK_H
#define CUZK_UTIL_CLOCK_H

#include <stdint.h>

#include "cuzk.h" /* uint64_t cuzk_now_ns(void) */

#endif
