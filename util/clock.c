/* The library's clock (util/clock.h). */
#define _GNU_SOURCE
#include "util/clock.h"

#include <time.h>

uint64_t cuzk_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
