/* Shared by the MSM emulation's files (msm_emulate.cu: the kernels'
 * pipeline against the CPU; msm_emulate_plans.cu: the plans alone): the
 * counters and EXPECT, and the stand-ins for CUB's temporary storage. */
#ifndef CUZK_TESTS_MSM_EMULATE_H
#define CUZK_TESTS_MSM_EMULATE_H
#include <stddef.h>
#include <stdio.h>

extern int passed, failed; /* msm_emulate.cu */

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (cond) {                                                           \
            passed++;                                                         \
        } else {                                                              \
            failed++;                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
        }                                                                     \
    } while (0)

/* CUB's temporary storage is queried on the device; here a generous
 * stand-in (its DoubleBuffer sort keeps histograms and per-tile lookback
 * state: a few bytes per thousand items). */
static inline size_t est_sort(size_t M, unsigned key_bits) {
    (void)key_bits;
    return ((size_t)1 << 20) + M / 4;
}
static inline size_t est_scan(size_t k) { return ((size_t)64 << 10) + k / 8; }

/* msm_emulate_plans.cu */
void test_plans(void);

#endif
