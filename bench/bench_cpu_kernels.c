/*
 * CPU kernel benchmarks (not a test): NTT and MSM of both curves, on one
 * thread and on all threads, plus a sweep of the MSM window width against
 * the cost model's pick (the table behind cuzk_msm_window_bits).
 *
 * Usage: bench_cpu_kernels [ntt|msm|window|all] [max_log]
 *   ntt     forward / inverse / coset forward, 2^10 .. 2^20 (or max_log)
 *   msm     G1 2^10 .. 2^18, G2 2^10 .. 2^14, random full-size scalars,
 *           a boolean-heavy profile (45% zeros, 45% ones, 10% random) and
 *           every scalar 1 (the sum of the bases)
 *   window  BLS12-381 G1 time for c around the automatic choice
 * Each figure is the best of several runs lasting at least 0.2 s in all.
 * Inputs are synthetic (random walk bases, random scalars); timings do not
 * depend on the values beyond the 0/1 profile.
 *
 * Reference figures (Xeon of the H200 host, 16 threads, field asm on; two
 * runs differed by up to 40%, the host is shared):
 *   NTT 2^16 forward      BN254 25.5 ms 1T, 2.2 ms 16T; BLS12-381 22.9 / 1.9
 *   NTT 2^20 forward      BN254 519 ms 1T, 35 ms 16T
 *   MSM BLS12-381 G1 2^16 random: 665-1044 ms 1T, 82-105 ms 16T;
 *                         boolean-heavy 117-196 ms 1T
 *   MSM BLS12-381 G1 2^18 3.0-3.6 s 1T, 0.27-0.33 s 16T
 *   MSM BLS12-381 G2 2^14 783-858 ms 1T, 82-87 ms 16T
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/load.h"
#include "curve/curve.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/threadpool.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random value below a 4-limb modulus (rejection on the top limb). */
static void rand_below(uint64_t out[4], const uint64_t mod[4]) {
    uint64_t mask = ~0ULL;
    while (mask >> 1 >= mod[3])
        mask >>= 1;
    do {
        for (int i = 0; i < 4; i++)
            out[i] = rng();
        out[3] &= mask;
    } while (out[3] > mod[3] || (out[3] == mod[3] && out[2] >= mod[2]));
}

/* Best-of time of |run| over at least 0.2 s (and at least 2 runs). */
#define TIME_BEST(best, run)                                                  \
    do {                                                                      \
        double t_total = 0;                                                   \
        best = 1e30;                                                          \
        for (int rep = 0; rep < 2 || t_total < 0.2; rep++) {                  \
            double t0 = bench_now_s();                                              \
            run;                                                              \
            double dt = bench_now_s() - t0;                                         \
            t_total += dt;                                                    \
            if (dt < best)                                                    \
                best = dt;                                                    \
            if (dt > 2.0)                                                     \
                break;                                                        \
        }                                                                     \
    } while (0)

static void machine_line(cuzk_pool *pool) {
    char model[256];
    bench_cpu_model(model, sizeof model);
    printf("# %s, %u threads, field asm %s\n", model, cuzk_pool_threads(pool),
           cuzk_field_uses_asm() ? "on" : "off");
}

/* ---- NTT ---------------------------------------------------------------- */

#define BENCH_NTT(P, max_log)                                                 \
    do {                                                                      \
        for (unsigned lg = 10; lg <= (max_log); lg += 2) {                    \
            size_t n = (size_t)1 << lg;                                       \
            P##_fr *a = malloc(n * sizeof *a), g;                             \
            P##_ntt_domain *d;                                                \
            if (!a || P##_ntt_domain_create(&d, lg, NULL) != CUZK_OK) {       \
                free(a);                                                      \
                break;                                                        \
            }                                                                 \
            for (size_t i = 0; i < n; i++)                                    \
                rand_below(a[i].l, P##_fr_modulus);                           \
            P##_fr_root_of_unity(&g, lg + 1);                                 \
            double t[6];                                                      \
            for (int k = 0; k < 2; k++) {                                     \
                cuzk_pool *p = k ? all : NULL;                                \
                TIME_BEST(t[3 * k], P##_ntt_forward(d, a, p));                \
                TIME_BEST(t[3 * k + 1], P##_ntt_inverse(d, a, p));            \
                TIME_BEST(t[3 * k + 2], P##_ntt_coset_forward(d, a, &g, p));  \
            }                                                                 \
            printf("%-10s %5u %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f"      \
                   " %8.1f\n",                                                \
                   #P, lg, 1e3 * t[0], 1e3 * t[1], 1e3 * t[2], 1e3 * t[3],    \
                   1e3 * t[4], 1e3 * t[5],                                    \
                   1e9 * t[0] / ((double)n / 2 * lg));                        \
            P##_ntt_domain_destroy(d);                                        \
            free(a);                                                          \
        }                                                                     \
    } while (0)

static void bench_ntt(cuzk_pool *all, unsigned max_log) {
    printf("\nNTT, ms per transform (1T = one thread, NT = %u threads); "
           "last column ns per butterfly, forward 1T\n",
           cuzk_pool_threads(all));
    printf("%-10s %5s %10s %10s %10s %10s %10s %10s %8s\n", "field", "log_n",
           "fwd 1T", "inv 1T", "coset 1T", "fwd NT", "inv NT", "coset NT",
           "ns/bfly");
    BENCH_NTT(bls12_381, max_log);
    BENCH_NTT(bn254, max_log);
}

/* ---- MSM ---------------------------------------------------------------- */

/* n bases by a random walk (one addition a point) and one batch
 * conversion; scalars random below r, or the boolean-heavy profile. */
#define MSM_INPUTS(G, S, n, bases, rnd, boolish)                              \
    do {                                                                      \
        G##_affine gen;                                                       \
        G cur, step, *jac = malloc((n) * sizeof *jac);                        \
        S k;                                                                  \
        G##_generator(&gen);                                                  \
        G##_from_affine(&cur, &gen);                                          \
        rand_below(k.l, S##_modulus);                                         \
        G##_mul(&step, &cur, &k);                                             \
        for (size_t i = 0; i < (n); i++) {                                    \
            jac[i] = cur;                                                     \
            G##_add(&cur, &cur, &step);                                       \
        }                                                                     \
        G##_batch_to_affine(bases, jac, n);                                   \
        free(jac);                                                            \
        for (size_t i = 0; i < (n); i++) {                                    \
            rand_below(rnd[i].l, S##_modulus);                                \
            unsigned x = (unsigned)(rng() % 20);                              \
            if (x < 18) {                                                     \
                memset(&boolish[i], 0, sizeof boolish[i]);                    \
                boolish[i].l[0] = x < 9 ? 0 : 1;                              \
            } else {                                                          \
                boolish[i] = rnd[i];                                          \
            }                                                                 \
        }                                                                     \
    } while (0)

#define BENCH_MSM(G, S, min_log, max_log)                                     \
    do {                                                                      \
        size_t nmax = (size_t)1 << (max_log);                                 \
        G##_affine *bases = malloc(nmax * sizeof *bases);                     \
        S *rnd = malloc(nmax * sizeof *rnd), *bl = malloc(nmax * sizeof *bl); \
        S *ones = calloc(nmax, sizeof *ones);                                 \
        G r;                                                                  \
        MSM_INPUTS(G, S, nmax, bases, rnd, bl);                               \
        for (size_t i = 0; i < nmax; i++)                                     \
            ones[i].l[0] = 1;                                                 \
        for (unsigned lg = (min_log); lg <= (max_log); lg += 2) {             \
            size_t n = (size_t)1 << lg;                                       \
            double t[5];                                                      \
            for (int k = 0; k < 2; k++) {                                     \
                cuzk_pool *p = k ? all : NULL;                                \
                TIME_BEST(t[2 * k], G##_msm(&r, bases, rnd, n, 0, p));        \
                TIME_BEST(t[2 * k + 1], G##_msm(&r, bases, bl, n, 0, p));     \
            }                                                                 \
            TIME_BEST(t[4], G##_msm(&r, bases, ones, n, 0, NULL));            \
            printf("%-13s %5u %3u %10.2f %10.2f %10.2f %10.2f %10.2f %9.0f\n", \
                   #G, lg, G##_msm_window_bits(n), 1e3 * t[0], 1e3 * t[2],    \
                   1e3 * t[1], 1e3 * t[3], 1e3 * t[4],                        \
                   1e9 * t[0] / (double)n);                                   \
        }                                                                     \
        free(ones);                                                           \
        free(bases);                                                          \
        free(rnd);                                                            \
        free(bl);                                                             \
    } while (0)

static void bench_msm(cuzk_pool *all, unsigned max_log) {
    unsigned g1 = max_log < 18 ? max_log : 18, g2 = max_log < 14 ? max_log : 14;
    printf("\nMSM, ms per call (random scalars; bool = 45%% zeros, 45%% ones,"
           " 10%% random; ones = every scalar 1); c = window for random; "
           "ns/pt = random 1T per point\n");
    printf("%-13s %5s %3s %10s %10s %10s %10s %10s %9s\n", "group", "log_n", "c",
           "rand 1T", "rand NT", "bool 1T", "bool NT", "ones 1T", "ns/pt");
    BENCH_MSM(bls12_381_g1, bls12_381_fr, 10, g1);
    BENCH_MSM(bn254_g1, bn254_fr, 10, g1);
    BENCH_MSM(bls12_381_g2, bls12_381_fr, 10, g2);
    BENCH_MSM(bn254_g2, bn254_fr, 10, g2);
}

/* ---- window sweep ------------------------------------------------------- */

static void bench_window(unsigned max_log) {
    unsigned top = max_log < 18 ? max_log : 18;
    size_t nmax = (size_t)1 << top;
    bls12_381_g1_affine *bases = malloc(nmax * sizeof *bases);
    bls12_381_fr *rnd = malloc(nmax * sizeof *rnd),
                 *bl = malloc(nmax * sizeof *bl);
    bls12_381_g1 r;
    MSM_INPUTS(bls12_381_g1, bls12_381_fr, nmax, bases, rnd, bl);
    printf("\nWindow sweep, BLS12-381 G1, random scalars, one thread: ms per "
           "MSM for c (* = model's pick, < = fastest)\n");
    for (unsigned lg = 8; lg <= top; lg += 2) {
        size_t n = (size_t)1 << lg;
        unsigned pick = bls12_381_g1_msm_window_bits(n), best_c = 0;
        double best = 1e30, t[CUZK_MSM_MAX_WINDOW + 1] = {0};
        unsigned lo = pick > 4 ? pick - 3 : 2, hi = pick + 3;
        for (unsigned c = lo; c <= hi && c <= CUZK_MSM_MAX_WINDOW; c++) {
            TIME_BEST(t[c], bls12_381_g1_msm_window(&r, bases, rnd, n, 0, c,
                                                    NULL));
            if (t[c] < best) {
                best = t[c];
                best_c = c;
            }
        }
        printf("2^%-3u", lg);
        for (unsigned c = lo; c <= hi && c <= CUZK_MSM_MAX_WINDOW; c++)
            printf("  c=%-2u %8.2f%s%s", c, 1e3 * t[c], c == pick ? "*" : " ",
                   c == best_c ? "<" : " ");
        printf("\n");
    }
    free(bases);
    free(rnd);
    free(bl);
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "all";
    unsigned max_log = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    cuzk_error err;
    cuzk_pool *all = cuzk_pool_create(0, &err);
    if (all == NULL) {
        fprintf(stderr, "bench_cpu_kernels: %s\n", err.msg);
        return 1;
    }
    machine_line(all);
    int every = strcmp(what, "all") == 0;
    if (every || strcmp(what, "ntt") == 0)
        bench_ntt(all, max_log);
    if (every || strcmp(what, "msm") == 0)
        bench_msm(all, max_log);
    if (every || strcmp(what, "window") == 0)
        bench_window(max_log);
    cuzk_pool_destroy(all);
    return 0;
}
