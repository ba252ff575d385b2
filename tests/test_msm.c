/*
 * Pippenger MSM (msm/) for G1 and G2 of both curves.
 *
 * - Against G_msm_naive (n scalar multiplications) at n = 1, 2, 3, 31, 32,
 *   33, 100, 1031 (G2 up to 100: its naive reference is slow), with
 *   Montgomery and plain scalars, serial and with 2- and 8-thread pools.
 * - Scalar profiles: random, all 0, all 1, all r-1, boolean-heavy (mostly 0
 *   and 1 with some random), plain values >= r (reduced mod r), all equal
 *   (every point of a window lands in one bucket).
 * - Base profiles: random, one base repeated (buckets see P + P and
 *   P + (-P)), bases at infinity mixed in.
 * - Forced window widths 2..13 and 16 on one input; c = 1 and
 *   c > CUZK_MSM_MAX_WINDOW rejected.
 * - Larger n (512 to 2^13 points; these take the batch-affine bucket path)
 *   on bases P_i = R + i Q, P_i = R, P_i = (-1)^i R, where the answer
 *   follows from sums of scalars, independent of any MSM code; with random,
 *   boolean-heavy and all-equal scalars (doublings, P + (-P) and bucket
 *   conflicts inside the batches), and all-one scalars on every base
 *   pattern (the ones' batch-affine trees: doublings, sums at infinity on
 *   the first and later levels, odd counts).  The 8-thread pool also
 *   splits point ranges.
 *
 * The group-generic tests are written once below and instantiated per
 * curve (TEST_CURVE, tests/testutil.h) and, within it, per group
 * (TEST_GROUP) by including this file again.
 */
#ifndef TEST_CURVE

#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "groth16/curve_id.h"
#include "msm/msm.h"
#include "testutil.h"
#include "util/threadpool.h"

/* serial (NULL), 2 threads, 8 threads: with 8 threads the windows are
 * fewer than 4 per thread, so point ranges get split too. */
static cuzk_pool *pools[3];

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_RM1, SC_BOOL, SC_BIG, SC_EQUAL,
       SC_COUNT };
enum { ST_ARITH, ST_SAME, ST_ALT, ST_PAIRS };
enum { BS_RANDOM, BS_SAME, BS_SOME_INF, BS_COUNT };
static const char *sc_name[] = {"random", "zero", "one", "r-1", "bool-heavy",
                                ">=r", "all-equal"};
static const char *st_name[] = {"R+iQ", "R", "(-1)^i R", "(-1)^(i/2) R"};
static uint64_t equal_scalar[4]; /* the SC_EQUAL value, drawn per call */
static const char *bs_name[] = {"random", "repeated", "some-infinity"};

#define TEST_CURVE bls12_381
#include __FILE__
#undef TEST_CURVE
#define TEST_CURVE bn254
#include __FILE__
#undef TEST_CURVE

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

static unsigned window_bits_checks(void) {
    unsigned prev = 0, ok = 1;
    for (size_t m = 1; m <= ((size_t)1 << 26); m *= 2) {
        unsigned c = cuzk_msm_window_bits(m, 255, 1.0, 16);
        ok &= c >= 2 && c <= CUZK_MSM_MAX_WINDOW && c >= prev;
        prev = c;
    }
    return ok;
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_msm");
    cuzk_error err;
    pools[1] = cuzk_pool_create(2, &err);
    pools[2] = cuzk_pool_create(8, &err);
    CHECK(window_bits_checks(), "window choice out of range or decreasing");
    tu_run_curves(curves, TU_COUNT(curves));
    cuzk_pool_destroy(pools[1]);
    cuzk_pool_destroy(pools[2]);
    return tu_finish();
}

#elif !defined(TEST_GROUP) /* ---- per curve (TEST_CURVE): its groups ------ */

#define TEST_GROUP g1
#include __FILE__
#undef TEST_GROUP
#define TEST_GROUP g2
#include __FILE__
#undef TEST_GROUP

static void TC(tests)(const tu_curve *c) {
    (void)c;
    TC(g1_tests)(1031);
    TC(g2_tests)(100); /* G2's naive reference is slow */
}

#else /* ---- per group (TEST_CURVE, TEST_GROUP) -------------------------- */

#define TG TC(TEST_GROUP)  /* bls12_381_g1, ... */
#define TS TC(fr)
#define GF(x) CUZK_PASTE(TG, x)
#define SF(x) CUZK_PASTE(TS, x)
#define T_AFF GF(affine)
#define T_STR2(x) #x
#define T_STR1(x) T_STR2(x)
#define T_NAME T_STR1(TG)

/* A uniformly random multiple of the generator (Montgomery scalar). */
static void GF(rand_point)(TG *p) {
    T_AFF g;
    TS k;
    GF(generator)(&g);
    GF(from_affine)(p, &g);
    tu_rand_below(k.l, SF(modulus), 4);
    GF(mul)(p, p, &k);
}

/* n affine points: a random start plus a walk of random steps (cheap:
 * one addition a point) and one batch conversion. */
static void GF(rand_bases)(T_AFF *out, size_t n, int kind) {
    TG steps[3], cur, *jac = malloc(n * sizeof *jac);
    for (int i = 0; i < 3; i++)
        GF(rand_point)(&steps[i]);
    GF(rand_point)(&cur);
    for (size_t i = 0; i < n; i++) {
        jac[i] = cur;
        if (kind != BS_SAME)
            GF(add)(&cur, &cur, &steps[tu_rand64() % 3]);
        if (kind == BS_SOME_INF && tu_rand64() % 4 == 0)
            GF(set_inf)(&jac[i]);
    }
    GF(batch_to_affine)(out, jac, n);
    free(jac);
}

/* Scalars of a profile: |mont| gets Montgomery form (what the naive
 * reference wants), |raw| what the MSM under test is given. */
static void GF(make_scalars)(TS *mont, TS *raw, size_t n, int profile,
                             int raw_is_mont) {
    for (size_t i = 0; i < n; i++) {
        uint64_t k[4] = {0};
        int big = 0;
        switch (profile) {
        case SC_RANDOM:
            tu_rand_below(k, SF(modulus), 4);
            break;
        case SC_ZERO:
            break;
        case SC_ONE:
            k[0] = 1;
            break;
        case SC_RM1:
            memcpy(k, SF(modulus), sizeof k);
            k[0] -= 1;
            break;
        case SC_BOOL: {
            unsigned x = (unsigned)(tu_rand64() % 10);
            if (x < 4)
                k[0] = 0;
            else if (x < 8)
                k[0] = 1;
            else
                tu_rand_below(k, SF(modulus), 4);
            break;
        }
        case SC_EQUAL:
            if (i == 0)
                tu_rand_below(equal_scalar, SF(modulus), 4);
            memcpy(k, equal_scalar, sizeof k);
            break;
        case SC_BIG: /* plain inputs only: k + j r < 2^256, j = 0..5 */
            tu_rand_below(k, SF(modulus), 4);
            big = !raw_is_mont && tu_rand64() % 2;
            break;
        }
        SF(to_mont)(&mont[i], k);
        if (raw_is_mont) {
            raw[i] = mont[i];
        } else if (big) {
            /* k + j r for j up to 5 while it fits in 256 bits (BN254's r
             * fits 5 times, BLS12-381's once): the same residue */
            uint64_t acc[4];
            memcpy(acc, k, sizeof acc);
            for (unsigned j = 1 + (unsigned)(tu_rand64() % 5); j > 0; j--) {
                uint64_t nxt[4];
                unsigned __int128 carry = 0;
                for (int l = 0; l < 4; l++) {
                    unsigned __int128 t =
                        (unsigned __int128)acc[l] + SF(modulus)[l] + carry;
                    nxt[l] = (uint64_t)t;
                    carry = t >> 64;
                }
                if (carry)
                    break;
                memcpy(acc, nxt, sizeof acc);
            }
            memcpy(raw[i].l, acc, sizeof acc);
        } else {
            memcpy(raw[i].l, k, sizeof k);
        }
    }
}

static void GF(check_against_naive)(size_t n, int sprof, int bprof) {
    T_AFF *bases = malloc(n * sizeof *bases);
    TS *mont = malloc(n * sizeof *mont), *raw = malloc(n * sizeof *raw);
    TG want, got;
    GF(rand_bases)(bases, n, bprof);
    int raw_is_mont = sprof == SC_BIG ? 0 : (int)(tu_rand64() % 2);
    GF(make_scalars)(mont, raw, n, sprof, raw_is_mont);
    GF(msm_naive)(&want, bases, mont, n);
    for (int p = 0; p < 3; p++) {
        cuzk_status st = GF(msm)(&got, bases, raw, n, raw_is_mont, pools[p]);
        CHECK(st == CUZK_OK && GF(eq)(&got, &want),
              "%s msm n=%zu scalars=%s (%s) bases=%s threads=%u: st=%d",
              T_NAME, n, sc_name[sprof], raw_is_mont ? "mont" : "plain",
              bs_name[bprof], cuzk_pool_threads(pools[p]), (int)st);
        /* The caller's scratch: exactly the size asked for, misaligned and
         * dirty; one byte short is refused. */
        size_t sb = GF(msm_scratch_bytes)(n, 0, cuzk_pool_threads(pools[p]));
        char *mem = malloc(sb + 1);
        memset(mem, 0xa5, sb + 1);
        GF(rand_point)(&got);
        st = GF(msm_with_scratch)(&got, bases, raw, n, raw_is_mont, 0, mem + 1, sb, pools[p]);
        CHECK(st == CUZK_OK && GF(eq)(&got, &want),
              "%s msm with scratch n=%zu scalars=%s threads=%u: st=%d", T_NAME, n,
              sc_name[sprof], cuzk_pool_threads(pools[p]), (int)st);
        CHECK(GF(msm_with_scratch)(&got, bases, raw, n, raw_is_mont, 0, mem + 1, sb - 1,
                                   pools[p]) == CUZK_EINVAL,
              "%s msm with %zu - 1 bytes of scratch must be refused", T_NAME, sb);
        free(mem);
    }
    free(bases);
    free(mont);
    free(raw);
}

static void GF(check_windows)(size_t n, unsigned max_c) {
    T_AFF *bases = malloc(n * sizeof *bases);
    TS *mont = malloc(n * sizeof *mont);
    TG want, got;
    GF(rand_bases)(bases, n, BS_RANDOM);
    GF(make_scalars)(mont, mont, n, SC_RANDOM, 1);
    GF(msm_naive)(&want, bases, mont, n);
    /* c = 2..13 covers many remainders of (bits + 1) mod c; large c cost
     * 2^c bucket additions a window even for tiny n, so only G1 tries 16
     * (nw c = 256 exactly). */
    for (unsigned c = 2; c <= max_c; c = c == 13 ? 16 : c + 1) {
        cuzk_status st = GF(msm_window)(&got, bases, mont, n, 1, c,
                                        pools[c % 3]);
        CHECK(st == CUZK_OK && GF(eq)(&got, &want), "%s msm c=%u n=%zu",
              T_NAME, c, n);
        size_t sb = GF(msm_scratch_bytes)(n, c, cuzk_pool_threads(pools[c % 3]));
        void *mem = malloc(sb);
        st = GF(msm_with_scratch)(&got, bases, mont, n, 1, c, mem, sb, pools[c % 3]);
        CHECK(st == CUZK_OK && GF(eq)(&got, &want), "%s msm with scratch c=%u n=%zu",
              T_NAME, c, n);
        free(mem);
    }
    CHECK(GF(msm_window)(&got, bases, mont, n, 1, 1, NULL) == CUZK_EINVAL &&
              GF(is_inf)(&got),
          "%s c=1 must be rejected", T_NAME);
    CHECK(GF(msm_window)(&got, bases, mont, n, 1, CUZK_MSM_MAX_WINDOW + 1,
                         NULL) == CUZK_EINVAL,
          "%s c too large must be rejected", T_NAME);
    free(bases);
    free(mont);
}

/* Bases P_i = a_i R + b_i Q with known a_i, b_i, so the answer is
 * (sum k_i a_i) R + (sum k_i b_i) Q without any MSM code:
 *   ST_ARITH  P_i = R + i Q  (distinct points)
 *   ST_SAME   P_i = R        (every bucket addition is a doubling)
 *   ST_ALT    P_i = (-1)^i R (bucket additions P + (-P) = infinity)
 *   ST_PAIRS  P_i = (-1)^(i/2) R (with scalars 1, the tree of the ones
 *             meets 2R + (-2R) = infinity on its second level) */
static void GF(check_structured)(size_t n, int sprof, int kind) {
    T_AFF *bases = malloc(n * sizeof *bases);
    TS *mont = malloc(n * sizeof *mont), *raw = malloc(n * sizeof *raw);
    TG *jac = malloc(n * sizeof *jac), R, Q, want, t, got;
    GF(rand_point)(&R);
    GF(rand_point)(&Q);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || kind == ST_SAME)
            jac[i] = R;
        else if (kind == ST_ARITH)
            GF(add)(&jac[i], &jac[i - 1], &Q);
        else if (kind == ST_ALT || i % 2 == 0)
            GF(neg)(&jac[i], &jac[i - 1]);
        else
            jac[i] = jac[i - 1];
    }
    GF(batch_to_affine)(bases, jac, n);
    int raw_is_mont = (int)(tu_rand64() % 2);
    GF(make_scalars)(mont, raw, n, sprof, raw_is_mont);
    TS sa, sb, x;
    SF(set_zero)(&sa);
    SF(set_zero)(&sb);
    for (size_t i = 0; i < n; i++) {
        if ((kind == ST_ALT && i % 2) || (kind == ST_PAIRS && (i / 2) % 2))
            SF(sub)(&sa, &sa, &mont[i]);
        else
            SF(add)(&sa, &sa, &mont[i]);
        if (kind == ST_ARITH) {
            SF(set_u64)(&x, i);
            SF(mul)(&x, &x, &mont[i]);
            SF(add)(&sb, &sb, &x);
        }
    }
    GF(mul)(&want, &R, &sa);
    GF(mul)(&t, &Q, &sb);
    GF(add)(&want, &want, &t);
    for (int p = 0; p < 3; p++) {
        cuzk_status st = GF(msm)(&got, bases, raw, n, raw_is_mont, pools[p]);
        CHECK(st == CUZK_OK && GF(eq)(&got, &want),
              "%s structured msm n=%zu scalars=%s bases=%s threads=%u",
              T_NAME, n, sc_name[sprof], st_name[kind],
              cuzk_pool_threads(pools[p]));
    }
    free(bases);
    free(mont);
    free(raw);
    free(jac);
}

/* The automatic window grows with m and stays where the buckets fit the
 * cache budget of msm.c (never above 14 for these point sizes). */
static void GF(check_window_choice)(void) {
    unsigned prev = 2, ok = 1;
    for (size_t m = 1; m <= ((size_t)1 << 28); m *= 2) {
        unsigned c = GF(msm_window_bits)(m);
        ok &= c >= prev && c <= 14;
        prev = c;
    }
    CHECK(ok && prev >= 12, "%s window choice (largest %u)", T_NAME, prev);
}

static void GF(check_empty)(void) {
    TG got;
    GF(rand_point)(&got); /* r must be overwritten */
    CHECK(GF(msm)(&got, NULL, NULL, 0, 1, pools[1]) == CUZK_OK &&
              GF(is_inf)(&got),
          "%s msm of nothing is infinity", T_NAME);
}

static void GF(tests)(size_t max_n) {
    static const size_t sizes[] = {1, 2, 3, 31, 32, 33, 100, 1031};
    GF(check_empty)();
    GF(check_window_choice)();
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (sizes[i] > max_n)
            break;
        GF(check_against_naive)(sizes[i], SC_RANDOM, BS_RANDOM);
    }
    for (int s = 0; s < SC_COUNT; s++)
        for (int b = 0; b < BS_COUNT; b++)
            GF(check_against_naive)(s == SC_BOOL ? 100 : 33, s, b);
    /* scalars 1 in MSMs smaller than the ones' buffer (it is sized by n) */
    static const size_t one_sizes[] = {1, 2, 3, 16, 31, 32};
    for (size_t i = 0; i < sizeof one_sizes / sizeof *one_sizes; i++)
        GF(check_against_naive)(one_sizes[i], SC_ONE, BS_SAME);
    GF(check_windows)(33, max_n > 1000 ? 16 : 13);
    size_t big = max_n > 1000 ? ((size_t)1 << 13) : 2048;
    GF(check_structured)(big, SC_RANDOM, ST_ARITH);
    GF(check_structured)(big, SC_BOOL, ST_ARITH);
    GF(check_structured)(big / 4, SC_EQUAL, ST_ARITH);
    GF(check_structured)(big / 4, SC_RANDOM, ST_SAME);
    GF(check_structured)(big / 4, SC_EQUAL, ST_SAME);
    GF(check_structured)(big / 4, SC_RANDOM, ST_ALT);
    GF(check_structured)(big / 4, SC_EQUAL, ST_ALT);
    /* scalars 1: the ones' trees (full buffers, odd counts, doublings,
     * sums at infinity on the first and on later levels) */
    GF(check_structured)(big, SC_ONE, ST_ARITH);
    GF(check_structured)(big / 4 + 3, SC_ONE, ST_SAME);
    GF(check_structured)(big / 4, SC_ONE, ST_ALT);
    GF(check_structured)(big / 4 + 1, SC_ONE, ST_ALT);
    GF(check_structured)(big / 4 + 2, SC_ONE, ST_PAIRS);
    GF(check_structured)(big / 4 + 1, SC_BOOL, ST_PAIRS);
}

#undef T_AFF
#undef T_NAME
#undef T_STR1
#undef T_STR2
#undef SF
#undef GF
#undef TG
#undef TS

#endif
