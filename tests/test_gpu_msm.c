/*
 * GPU MSM (cuzk_gpu_msm) for G1 and G2 of BLS12-381 and BN254, checked two
 * independent ways:
 *   - bases with known discrete logs: P_i = k_i G (an arithmetic progression
 *     of k, shuffled), so sum s_i P_i must equal (sum s_i k_i) G, which the
 *     CPU computes with n scalar-field products and one G_mul.  This checks
 *     every size, up to 2^22, at the cost of generating the bases;
 *   - the CPU MSM (msm/msm.h) for sizes up to 2^16 (CUZK_GPU_MSM_CPU_MAX
 *     raises the limit).
 * Sizes 1, 2, 3, 31, 32, 33, 2^10+7, 2^16, 2^20, 2^22 with random scalars
 * (Montgomery and plain, host and device memory), then the special sets:
 * all zero, all one, all equal (one bucket holds every point), scalars r-1,
 * small scalars, a mix of 0/1/random, repeated bases, infinity among the
 * bases, opposite bases, plain scalars >= r, and a base offset.  The same
 * bases then get precomputed shifted copies (an 8-bit window, then the
 * automatic one) and go through sizes 1 .. max, the special sets, an
 * offset and the last points again, plus the precompute's errors.
 * Between the two, the same bases in pinned host memory (streamed) and
 * resident under small MSM limits (many chunks), with host and device
 * scalars and batches of 1, 3 and 16 vectors, must give the resident
 * results; a limit no plan fits must be refused (CUZK_ENOMEM).  Bit-scalar
 * sums (all ones, alternating, 90% bits, the mix; ones over opposite bases
 * must give infinity) must equal Pippenger on the same vectors, and
 * scalars gathered through an index list must match the logs.
 * CUZK_GPU_MSM_MAX_LOG lowers the largest size (default 22),
 * CUZK_GPU_MSM_G2_MAX_LOG that of G2 alone (default: the same),
 * CUZK_GPU_MSM_ONLY runs one group (e.g. bls12_381_g2),
 * CUZK_GPU_MSM_SHIFT_C replaces the forced 8-bit window of the shifted
 * copies, CUZK_GPU_MSM_FORCE_C forces the window of the plain MSMs (the
 * G2 bucket-tree fault of 2026-12-02 showed with 20 at every size).
 * Every group runs twice, with the XYZZ bucket accumulation and with the
 * batch-affine one (msm/gpu/msm_affine.cuh); CUZK_GPU_MSM_ACCUM=xyzz or
 * affine runs that one only.
 * The per-group checks are written once below and instantiated per curve
 * (TEST_CURVE, tests/testutil.h) and, within it, per group (TEST_GROUP) by
 * including this file again; CUZK_TEST_CURVE=<name> runs one curve, each
 * curve its groups under both accumulations in turn.
 *
 * Without CUDA or a device: prints "no GPU: skipped", exits 77.
 */
#ifndef TEST_CURVE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
#include "groth16/curve_id.h"
#include "gpu/msm.h"
#include "gpu/runtime.h"
#include "gpu/selftest.h"
#include "msm/msm.h"
#include "testutil.h"
#include "util/threadpool.h"

#ifdef CUZK_HAVE_CUDA

static cuzk_gpu_ctx *ctx;
static cuzk_gpu_stream *st;
static cuzk_pool *pool;
static size_t cpu_max = (size_t)1 << 16;
/* the environment's choices (see the top of this file) */
static unsigned max_log = 22, g2_max_log = 22;
static const char *only, *accum;
static const char *accums[2] = {"xyzz", "affine"};

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_EQUAL, SC_RM1, SC_SMALL, SC_ALT, SC_BITS, SC_MIX };
static const char *sc_name[] = {"random", "zero",  "one",      "equal", "r-1",
                                "small",  "0101", "90% bits", "mix"};

/* Scalars of the chosen kind; |mont| says how the GPU will read them. */
static void make_scalars(uint64_t (*s)[4], size_t n, int kind, int mont,
                         const uint64_t *r, const uint64_t *one_m) {
    uint64_t eq[4];
    tu_rand_below(eq, r, 4);
    for (size_t i = 0; i < n; i++) {
        int k = kind;
        if (kind == SC_MIX) {
            uint64_t x = tu_rand64() & 3;
            k = x == 0 || x == 1 ? SC_ZERO : x == 2 ? SC_ONE : SC_RANDOM;
        } else if (kind == SC_ALT) {
            k = (i & 1) ? SC_ONE : SC_ZERO;
        } else if (kind == SC_BITS) { /* a Filecoin witness: mostly 0 and 1 */
            uint64_t x = tu_rand64() % 20;
            k = x < 9 ? SC_ZERO : x < 18 ? SC_ONE : SC_RANDOM;
        }
        memset(s[i], 0, 32);
        switch (k) {
        case SC_RANDOM: tu_rand_below(s[i], r, 4); break;
        case SC_ZERO: break;
        case SC_ONE:
            if (mont)
                memcpy(s[i], one_m, 32);
            else
                s[i][0] = 1;
            break;
        case SC_EQUAL: memcpy(s[i], eq, 32); break;
        case SC_RM1:
            memcpy(s[i], r, 32);
            s[i][0] -= 1; /* a Montgomery element too (< r) */
            break;
        case SC_SMALL: s[i][0] = tu_rand64() & 0xffff; break;
        }
    }
}

/* One group under the accumulation set on the context, unless
 * CUZK_GPU_MSM_ONLY names another group. */
static void run_group(const char *name, void (*test)(unsigned), unsigned log, int a) {
    if (only && strcmp(only, name) != 0)
        return;
    printf("%s up to 2^%u, %s accumulation\n", name, log, accums[a]);
    fflush(stdout);
    test(log);
}

/* TEST_R_BITS: the bit length of the scalar field's modulus r */
#define TEST_CURVE bls12_381
#define TEST_GPU_CURVE CUZK_CURVE_BLS12_381
#define TEST_R_BITS 255
#include __FILE__
#undef TEST_R_BITS
#undef TEST_GPU_CURVE
#undef TEST_CURVE
#define TEST_CURVE bn254
#define TEST_GPU_CURVE CUZK_CURVE_BN254
#define TEST_R_BITS 254
#include __FILE__
#undef TEST_R_BITS
#undef TEST_GPU_CURVE
#undef TEST_CURVE

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

/* The pool and the environment's other choices (see the top of this
 * file); max_log is tu_gpu_main's. */
static int setup(void) {
    cuzk_error err = {0};
    pool = cuzk_pool_create(0, &err);
    const char *e;
    if ((e = getenv("CUZK_GPU_MSM_CPU_MAX")) != NULL)
        cpu_max = (size_t)strtoull(e, NULL, 0);
    g2_max_log = max_log;
    if ((e = getenv("CUZK_GPU_MSM_G2_MAX_LOG")) != NULL)
        g2_max_log = (unsigned)atoi(e);
    only = getenv("CUZK_GPU_MSM_ONLY"); /* e.g. "bn254_g1" */
    accum = getenv("CUZK_GPU_MSM_ACCUM");
    return 1;
}

static void teardown(void) { cuzk_pool_destroy(pool); }

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
#ifdef CUZK_HAVE_CUDA
    const tu_gpu_test t = {.name = "test_gpu_msm", .curves = curves,
                           .n_curves = TU_COUNT(curves), .ctx = &ctx, .stream = &st,
                           .max_log_env = "CUZK_GPU_MSM_MAX_LOG", .max_log = &max_log,
                           .setup = setup, .teardown = teardown};
#else
    const tu_gpu_test t = {.name = "test_gpu_msm"};
#endif
    return tu_gpu_main(argc, argv, &t);
}

#elif !defined(TEST_GROUP) /* ---- per curve (TEST_CURVE): its groups ------- */

#define TEST_GROUP g1
#define TEST_GPU_GROUP CUZK_GPU_G1
#include __FILE__
#undef TEST_GPU_GROUP
#undef TEST_GROUP
#define TEST_GROUP g2
#define TEST_GPU_GROUP CUZK_GPU_G2
#include __FILE__
#undef TEST_GPU_GROUP
#undef TEST_GROUP

/* Both groups under each bucket accumulation (CUZK_GPU_MSM_ACCUM: one). */
static void TC(tests)(const tu_curve *c) {
    (void)c;
    for (int a = 0; a < 2; a++) {
        if (accum && strcmp(accum, accums[a]) != 0)
            continue;
        cuzk_gpu_ctx_msm_accum(ctx, a);
        run_group(TU_STR(TC(g1)), TC(g1_test), max_log, a);
        run_group(TU_STR(TC(g2)), TC(g2_test), g2_max_log, a);
    }
}

#else /* ---- per group (TEST_CURVE, TEST_GROUP, TEST_GPU_GROUP) ----------- */

#define TG TC(TEST_GROUP) /* bls12_381_g1, ... */
#define TS TC(fr)
#define GF(x) CUZK_PASTE(TG, x)
#define SF(x) CUZK_PASTE(TS, x)
#define TG_NAME TU_STR(TG)

typedef struct GF(gen) {
    GF(affine) *pts;
    TS *k;
    TG *jac;
    TS a, d;
    TG D;
} GF(gen);

/* k[i] = a + i d, pts[i] = k[i] G for i in [b, e) */
static void GF(gen_chunk)(void *vc, size_t b, size_t e, unsigned w) {
    GF(gen) *c = vc;
    (void)w;
    TS kb, bs;
    GF(affine) gen;
    TG P;
    SF(set_u64)(&bs, b);
    SF(mul)(&kb, &bs, &c->d);
    SF(add)(&kb, &kb, &c->a);
    GF(generator)(&gen);
    GF(from_affine)(&P, &gen);
    GF(mul)(&P, &P, &kb);
    for (size_t i = b; i < e; i++) {
        c->k[i] = kb;
        c->jac[i] = P;
        GF(add)(&P, &P, &c->D);
        SF(add)(&kb, &kb, &c->d);
    }
    GF(batch_to_affine)(c->pts + b, c->jac + b, e - b);
}

static void GF(make_bases)(GF(affine) *pts, TS *k, size_t n) {
    GF(gen) c;
    GF(affine) gen;
    c.pts = pts;
    c.k = k;
    c.jac = malloc(n * sizeof *c.jac);
    tu_rand_below(c.a.l, SF(modulus), 4);
    tu_rand_below(c.d.l, SF(modulus), 4);
    GF(generator)(&gen);
    GF(from_affine)(&c.D, &gen);
    GF(mul)(&c.D, &c.D, &c.d);
    cuzk_pool_for(pool, n, 4096, GF(gen_chunk), &c);
    free(c.jac);
    for (size_t i = n; i > 1; i--) { /* shuffle */
        size_t j = tu_rand64() % i;
        GF(affine) tp = pts[i - 1];
        TS tk = k[i - 1];
        pts[i - 1] = pts[j];
        k[i - 1] = k[j];
        pts[j] = tp;
        k[j] = tk;
    }
}

/* (sum s_i k_i) G, s_i read as Montgomery or plain (reduced mod r) */
static void GF(expected)(TG *r, const TS *k, const uint64_t (*s)[4],
                         size_t n, int mont) {
    TS acc, t, v;
    GF(affine) gen;
    SF(set_zero)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (mont) {
            memcpy(v.l, s[i], 32);
        } else {
            uint64_t x[4];
            memcpy(x, s[i], 32);
            for (int rep = 0; rep < 6; rep++) { /* x mod r */
                TS tmp;
                cuzk_error e;
                if (SF(from_limbs)(&tmp, x, &e) == CUZK_OK)
                    break;
                uint64_t br = 0;
                for (int j = 0; j < 4; j++) {
                    uint64_t m = SF(modulus)[j], xi = x[j];
                    x[j] = xi - m - br;
                    br = (xi < m) || (xi == m && br);
                }
            }
            SF(to_mont)(&v, x);
        }
        SF(mul)(&t, &v, &k[i]);
        SF(add)(&acc, &acc, &t);
    }
    GF(generator)(&gen);
    GF(from_affine)(r, &gen);
    GF(mul)(r, r, &acc);
}

/* One GPU MSM over bases [off, off+n), checked against the logs and,
 * when small enough, the CPU MSM. */
static void GF(check)(cuzk_gpu_bases *gb, const GF(affine) *pts,
                      const TS *k, size_t off, size_t n,
                      const uint64_t (*s)[4], int mont, int on_device,
                      const char *what) {
    TG got, want;
    cuzk_error err = {0};
    const void *sc = s;
    void *d_sc = NULL;
    memset(&got, 0xA5, sizeof got); /* poison */
    if (on_device && n > 0) {
        if (cuzk_gpu_malloc(ctx, 32 * n, &d_sc, &err) != CUZK_OK ||
            cuzk_gpu_copy_to_device(st, d_sc, s, 32 * n, &err) !=
                CUZK_OK) {
            CHECK(0, TG_NAME " %s: device scalars: %s", what, err.msg);
            return;
        }
        sc = d_sc;
    }
    unsigned flags = (mont ? CUZK_GPU_SCALARS_MONT : 0) |
                     (on_device ? CUZK_GPU_SCALARS_DEVICE : 0);
    cuzk_status rc = cuzk_gpu_msm(st, gb, off, n, sc, flags, &got, &err);
    cuzk_gpu_free(ctx, d_sc);
    CHECK(rc == CUZK_OK, TG_NAME " %s n=%zu: %s", what, n, err.msg);
    if (rc != CUZK_OK)
        return;
    GF(expected)(&want, k + off, s, n, mont);
    CHECK(GF(eq)(&got, &want), TG_NAME " %s n=%zu mont=%d dev=%d: != logs",
          what, n, mont, on_device);
    if (n <= cpu_max) {
        TG cpu;
        rc = GF(msm)(&cpu, pts + off, (const TS *)s, n, mont, pool);
        CHECK(rc == CUZK_OK && GF(eq)(&got, &cpu),
              TG_NAME " %s n=%zu mont=%d: != CPU MSM", what, n, mont);
    }
}

/* Shifted copies (cuzk_gpu_bases_precompute): argument errors, a
 * limit too small (ENOMEM, bases still usable), then a forced 8-bit
 * window (32 copies) and the automatic one, each checked like the
 * plain bases: sizes, special scalar sets, plain >= r, an offset. */
static void GF(shifted)(cuzk_gpu_bases *gb, const GF(affine) *pts,
                        const TS *k, size_t nmax, unsigned max_log,
                        uint64_t (*s)[4]) {
    cuzk_error err = {0};
    unsigned rbits = TEST_R_BITS;
    cuzk_gpu_bases *hb = NULL;
    if (cuzk_gpu_bases_host(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, pts, nmax, &hb, &err) ==
        CUZK_OK) {
        CHECK(cuzk_gpu_bases_precompute(hb, 0, 0, &err) == CUZK_EINVAL,
              TG_NAME " precompute of host bases rejected");
        cuzk_gpu_bases_free(hb);
    }
    CHECK(cuzk_gpu_bases_precompute(gb, 7, 0, &err) == CUZK_EINVAL &&
              cuzk_gpu_bases_precompute(gb, 25, 0, &err) == CUZK_EINVAL,
          TG_NAME " precompute windows 7 and 25 rejected");
    CHECK(cuzk_gpu_bases_precompute(gb, 0, 4096, &err) == CUZK_ENOMEM &&
              cuzk_gpu_bases_shift_bits(gb) == 0 &&
              cuzk_gpu_bases_bytes(gb) == nmax * sizeof *pts,
          TG_NAME " precompute within 4 KB: ENOMEM, no copies");
    make_scalars(s, 1031, SC_RANDOM, 1, SF(modulus), NULL);
    GF(check)(gb, pts, k, 0, 1031, s, 1, 0, "after ENOMEM");
    unsigned wins[2] = {8, 0};
    if (getenv("CUZK_GPU_MSM_SHIFT_C")) /* e.g. to rerun one window */
        wins[0] = (unsigned)atoi(getenv("CUZK_GPU_MSM_SHIFT_C"));
    for (int wi = 0; wi < 2; wi++) {
        cuzk_status rc = cuzk_gpu_bases_precompute(gb, wins[wi], 0, &err);
        CHECK(rc == CUZK_OK, TG_NAME " precompute window %u: %s", wins[wi],
              err.msg);
        if (rc != CUZK_OK)
            continue;
        unsigned c = cuzk_gpu_bases_shift_bits(gb);
        size_t w = (rbits + 1 + c - 1) / c;
        CHECK(c >= 8 && c <= 24 && (wins[wi] == 0 || c == wins[wi]),
              TG_NAME " shifted window %u (asked %u)", c, wins[wi]);
        CHECK(cuzk_gpu_bases_bytes(gb) == w * nmax * sizeof *pts,
              TG_NAME " shifted bytes: %zu windows", w);
        printf("%s shifted copies: window %u, %zu copies\n", TG_NAME, c, w);
        fflush(stdout);
        static const size_t small[] = {1, 2, 33, 1031};
        for (size_t t = 0; t < sizeof small / sizeof *small; t++) {
            int mont = (int)(t & 1);
            make_scalars(s, small[t], SC_RANDOM, mont, SF(modulus),
                         NULL);
            GF(check)(gb, pts, k, 0, small[t], s, mont, (int)(t & 2),
                      "shifted random");
        }
        unsigned logs[2] = {16, max_log};
        for (int li = 0; li < 2; li++) {
            unsigned lg = logs[li];
            if (lg > max_log || (li == 1 && lg == 16))
                continue;
            make_scalars(s, (size_t)1 << lg, SC_RANDOM, 1, SF(modulus),
                         NULL);
            GF(check)(gb, pts, k, 0, (size_t)1 << lg, s, 1, li == 0,
                      "shifted random");
        }
        TS one;
        SF(set_one)(&one);
        for (int kind = SC_ZERO; kind <= SC_MIX; kind++) {
            make_scalars(s, 4099, kind, kind & 1, SF(modulus), one.l);
            GF(check)(gb, pts, k, 0, 4099, s, kind & 1, 0,
                      sc_name[kind]);
        }
        for (size_t i = 0; i < 1000; i++)
            memset(s[i], 0xff, 32);
        GF(check)(gb, pts, k, 0, 1000, s, 0, 0, "shifted 2^256-1");
        make_scalars(s, 777, SC_RANDOM, 1, SF(modulus), NULL);
        GF(check)(gb, pts, k, 5, 777, s, 1, 0, "shifted offset 5");
        make_scalars(s, 999, SC_RANDOM, 0, SF(modulus), NULL);
        GF(check)(gb, pts, k, nmax - 999, 999, s, 0, 1,
                  "shifted last points");
    }
}

/* Chunked and streamed MSMs (the plan of msm/gpu/msm_plan.h): bases in
 * pinned host memory, and resident bases under stream limits small enough
 * to force many chunks, each against the resident MSM under the default
 * limit (results must be the same point) and against the logs; batches of
 * 1, 3 and 16 vectors over one pass; a limit no plan fits is refused with
 * CUZK_ENOMEM and allocates nothing. */
static void GF(streamed)(cuzk_gpu_bases *gb, const GF(affine) *pts,
                         const TS *k, size_t nmax, unsigned max_log,
                         uint64_t (*s)[4]) {
    cuzk_error err = {0};
    GF(affine) *h_pts = NULL;
    cuzk_gpu_bases *hb = NULL;
    void *h_sc = NULL, *d_sc = NULL;
    size_t nv_max = 16, n_big = (size_t)1 << (max_log < 20 ? max_log : 20);
    if (cuzk_gpu_host_alloc(ctx, nmax * sizeof *pts, (void **)&h_pts, &err) ||
        cuzk_gpu_host_alloc(ctx, 32 * nmax, &h_sc, &err) ||
        cuzk_gpu_malloc(ctx, 32 * nmax, &d_sc, &err)) {
        CHECK(0, TG_NAME " streamed: allocation: %s", err.msg);
        goto done;
    }
    memcpy(h_pts, pts, nmax * sizeof *pts);
    CHECK(cuzk_gpu_bases_host(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, h_pts, nmax, &hb,
                              &err) == CUZK_OK &&
              cuzk_gpu_bases_bytes(hb) == 0,
          TG_NAME " host bases: %s", err.msg);
    if (!hb)
        goto done;
    {
        TS one;
        SF(set_one)(&one);
        static const size_t sizes[] = {1, 33, 4099, (size_t)1 << 16};
        static const int kinds[] = {SC_RANDOM, SC_ONE, SC_EQUAL, SC_MIX, SC_ZERO};
        for (size_t si = 0; si < 5; si++) {
            size_t n = si < 4 ? sizes[si] : n_big;
            if (n > nmax)
                continue;
            int kind = kinds[si], mont = (int)(si & 1);
            make_scalars(s, n, kind, mont, SF(modulus), one.l);
            memcpy(h_sc, s, 32 * n);
            TG want, ref;
            GF(expected)(&want, k, (const uint64_t(*)[4])s, n, mont);
            cuzk_gpu_stream_set_msm_limit(st, 0);
            unsigned fl = mont ? CUZK_GPU_SCALARS_MONT : 0;
            CHECK(cuzk_gpu_msm(st, gb, 0, n, h_sc, fl, &ref, &err) == CUZK_OK &&
                      GF(eq)(&ref, &want),
                  TG_NAME " resident n=%zu %s: %s", n, sc_name[kind], err.msg);
            if (cuzk_gpu_copy_to_device(st, d_sc, h_sc, 32 * n, &err) ||
                cuzk_gpu_stream_sync(st, &err)) {
                CHECK(0, TG_NAME " streamed: scalars: %s", err.msg);
                goto done;
            }
            /* limits: the default, then about a seventh and a fortieth of
             * the default plan's scratch (many chunks, smaller windows) */
            cuzk_gpu_msm_info dflt;
            cuzk_gpu_msm_plan(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, n, 1,
                              fl | CUZK_GPU_SCALARS_DEVICE, 1, 0, &dflt, &err);
            size_t limits[3] = {0, dflt.scratch_bytes / 7, dflt.scratch_bytes / 40};
            for (int li = 0; li < 3; li++)
                for (int where = 0; where < 4; where++) {
                    int host_b = where & 1, dev_s = (where >> 1) & 1;
                    cuzk_gpu_msm_info pi;
                    unsigned f2 = fl | (dev_s ? CUZK_GPU_SCALARS_DEVICE : 0);
                    cuzk_gpu_msm_plan(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, n, 1, f2, host_b,
                                      limits[li], &pi, &err);
                    if (!pi.fits)
                        continue; /* that limit is below any plan here */
                    /* a fresh stream per limit: its scratch must stay
                     * within it */
                    cuzk_gpu_stream *us = NULL;
                    if (cuzk_gpu_stream_create(ctx, &us, &err) != CUZK_OK) {
                        CHECK(0, TG_NAME " stream: %s", err.msg);
                        continue;
                    }
                    cuzk_gpu_stream_set_msm_limit(us, limits[li]);
                    TG got;
                    memset(&got, 0xA5, sizeof got);
                    cuzk_status rc = cuzk_gpu_msm(us, host_b ? hb : gb, 0, n,
                                                  dev_s ? d_sc : h_sc, f2, &got, &err);
                    CHECK(rc == CUZK_OK && GF(eq)(&got, &ref),
                          TG_NAME " %s n=%zu %s, %s scalars, limit %zu (%zu chunks, "
                                  "window %u): %s",
                          host_b ? "streamed" : "resident", n, sc_name[kind],
                          dev_s ? "device" : "host", limits[li], pi.chunks,
                          pi.window_bits, rc ? err.msg : "!= resident");
                    size_t used = cuzk_gpu_stream_scratch_bytes(us);
                    CHECK(used <= (limits[li] ? limits[li] : dflt.scratch_bytes * 2),
                          TG_NAME " scratch %zu beyond the limit %zu", used, limits[li]);
                    cuzk_gpu_stream_destroy(us);
                }
            cuzk_gpu_stream_set_msm_limit(st, 0);
        }
    }
    /* batches: vector v starts v * 97 scalars on, one pass of the bases */
    {
        size_t n = nmax - 97 * (nv_max - 1) < ((size_t)1 << 16)
                       ? nmax - 97 * (nv_max - 1)
                       : ((size_t)1 << 16);
        TS one;
        SF(set_one)(&one);
        make_scalars(s, nmax, SC_MIX, 1, SF(modulus), one.l);
        if (cuzk_gpu_copy_to_device(st, d_sc, s, 32 * nmax, &err) ||
            cuzk_gpu_stream_sync(st, &err)) {
            CHECK(0, TG_NAME " batch scalars: %s", err.msg);
            goto done;
        }
        static const size_t nvs[] = {1, 3, 16};
        for (int bi = 0; bi < 3; bi++) {
            size_t nv = nvs[bi];
            const void *sv[16];
            for (size_t v = 0; v < nv; v++)
                sv[v] = (const uint8_t *)d_sc + 32 * 97 * v;
            TG got[16];
            cuzk_gpu_msm_info dflt;
            cuzk_gpu_msm_plan(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, n, nv,
                              CUZK_GPU_SCALARS_MONT | CUZK_GPU_SCALARS_DEVICE, 1, 0, &dflt,
                              &err);
            for (int li = 0; li < 2; li++) {
                size_t lim = li ? dflt.scratch_bytes / 5 : 0;
                cuzk_gpu_msm_info pi;
                cuzk_gpu_msm_plan(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, n, nv,
                                  CUZK_GPU_SCALARS_MONT | CUZK_GPU_SCALARS_DEVICE, 1, lim,
                                  &pi, &err);
                if (!pi.fits)
                    continue;
                cuzk_gpu_stream_set_msm_limit(st, lim);
                cuzk_status rc = cuzk_gpu_msm_batch(st, hb, 0, n, nv, sv,
                                                    CUZK_GPU_SCALARS_MONT |
                                                        CUZK_GPU_SCALARS_DEVICE,
                                                    got, &err);
                CHECK(rc == CUZK_OK, TG_NAME " streamed batch of %zu: %s", nv, err.msg);
                for (size_t v = 0; v < nv && rc == CUZK_OK; v++) {
                    TG want;
                    GF(expected)(&want, k, (const uint64_t(*)[4])s + 97 * v, n, 1);
                    CHECK(GF(eq)(&got[v], &want),
                          TG_NAME " streamed batch of %zu (limit %zu, %zu chunks), vector "
                                  "%zu: != logs",
                          nv, lim, pi.chunks, v);
                }
            }
        }
        cuzk_gpu_stream_set_msm_limit(st, 0);
    }
    /* a limit no plan fits: refused before anything is allocated */
    {
        cuzk_gpu_stream *s2 = NULL;
        TG got;
        if (cuzk_gpu_stream_create(ctx, &s2, &err) == CUZK_OK) {
            cuzk_gpu_stream_set_msm_limit(s2, 4096);
            cuzk_status rc = cuzk_gpu_msm(s2, hb, 0, nmax, d_sc, CUZK_GPU_SCALARS_DEVICE,
                                          &got, &err);
            CHECK(rc == CUZK_ENOMEM && strstr(err.msg, "limit") &&
                      cuzk_gpu_stream_scratch_bytes(s2) == 0,
                  TG_NAME " a 4 KiB limit: status %d, scratch %zu, \"%s\"", (int)rc,
                  cuzk_gpu_stream_scratch_bytes(s2), err.msg);
            cuzk_gpu_stream_destroy(s2);
        }
    }
done:
    cuzk_gpu_bases_free(hb);
    cuzk_gpu_free(ctx, d_sc);
    if (h_sc)
        cuzk_gpu_host_free(ctx, h_sc);
    if (h_pts)
        cuzk_gpu_host_free(ctx, h_pts);
}

/* Bit-scalar sums (the ones outside Pippenger, cuzk_gpu_ctx_msm_ones)
 * against Pippenger on the same vectors, and gathered scalars
 * (cuzk_gpu_msm_batch_gather: point i takes scalar d_index[i] of a
 * vector twice as long) against the logs. */
static void GF(bits)(cuzk_gpu_bases *gb, const TS *k,
                     size_t nmax, uint64_t (*s)[4]) {
    cuzk_error err = {0};
    TS one;
    SF(set_one)(&one);
    size_t sizes[3] = {4099, (size_t)1 << 16, nmax < ((size_t)1 << 20) ? nmax : ((size_t)1 << 20)};
    static const int kinds[] = {SC_ONE, SC_ALT, SC_BITS, SC_MIX};
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 4; ki++) {
            size_t n = sizes[si];
            int mont = (si + ki) & 1;
            make_scalars(s, n, kinds[ki], mont, SF(modulus), one.l);
            TG with, without, want;
            unsigned fl = mont ? CUZK_GPU_SCALARS_MONT : 0;
            cuzk_gpu_ctx_msm_ones(ctx, 1);
            cuzk_status r1 = cuzk_gpu_msm(st, gb, 0, n, s, fl, &with, &err);
            cuzk_gpu_ctx_msm_ones(ctx, 0);
            cuzk_status r2 = cuzk_gpu_msm(st, gb, 0, n, s, fl, &without, &err);
            cuzk_gpu_ctx_msm_ones(ctx, 1);
            GF(expected)(&want, k, (const uint64_t(*)[4])s, n, mont);
            CHECK(r1 == CUZK_OK && r2 == CUZK_OK && GF(eq)(&with, &without) &&
                      GF(eq)(&with, &want),
                  TG_NAME " bit sums n=%zu %s mont=%d: %s", n, sc_name[kinds[ki]], mont,
                  r1 || r2 ? err.msg : "bit sums != Pippenger or logs");
        }
    /* measured as bit-heavy, planned for few digits a point, but dense at
     * the start: under a small limit the first chunks hold more digits
     * than planned and are split (msm_run.cu) */
    {
        size_t n = (size_t)1 << 17;
        if (n <= nmax) {
            make_scalars(s, n, SC_BITS, 0, SF(modulus), one.l);
            make_scalars(s, 6000, SC_RANDOM, 0, SF(modulus), one.l);
            TG got, want;
            cuzk_gpu_stream *us = NULL;
            cuzk_status rc = cuzk_gpu_stream_create(ctx, &us, &err);
            size_t lim = 0;
            for (size_t l = (size_t)2 << 20; l <= ((size_t)64 << 20) && !lim; l *= 2) {
                cuzk_gpu_msm_info pi;
                cuzk_gpu_msm_plan(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, n, 1, 0, 0, l, &pi,
                                  &err);
                lim = pi.fits ? l : 0;
            }
            void *d = NULL; /* device scalars: those are measured */
            if (rc == CUZK_OK && !(rc = cuzk_gpu_malloc(ctx, 32 * n, &d, &err)) &&
                !(rc = cuzk_gpu_copy_to_device(us, d, s, 32 * n, &err)) &&
                !(rc = cuzk_gpu_stream_sync(us, &err))) {
                cuzk_gpu_stream_set_msm_limit(us, lim);
                rc = cuzk_gpu_msm(us, gb, 0, n, d, CUZK_GPU_SCALARS_DEVICE, &got, &err);
            }
            cuzk_gpu_free(ctx, d);
            cuzk_gpu_stream_destroy(us);
            GF(expected)(&want, k, (const uint64_t(*)[4])s, n, 0);
            CHECK(rc == CUZK_OK && GF(eq)(&got, &want),
                  TG_NAME " dense start, bit-heavy rest, %zu MiB limit: %s", lim >> 20,
                  rc ? err.msg : "!= logs");
        }
    }
    /* bases 700..799 and 800..899 are opposites: all ones sum to infinity */
    {
        make_scalars(s, 200, SC_ONE, 0, SF(modulus), one.l);
        TG got;
        CHECK(cuzk_gpu_msm(st, gb, 700, 200, s, 0, &got, &err) == CUZK_OK &&
                  GF(is_inf)(&got),
              TG_NAME " ones over opposite bases: not infinity");
    }
    /* gathered: n points, scalars at random places of a 2n + 5 vector */
    size_t n = sizes[1] < nmax / 2 ? sizes[1] : nmax / 2 - 5;
    size_t span = 2 * n + 5;
    uint32_t *idx = malloc(span * sizeof *idx);
    uint64_t(*whole)[4] = malloc(span * 32), (*pick)[4] = malloc(n * 32);
    void *d_whole = NULL, *d_idx = NULL;
    if (!idx || !whole || !pick || cuzk_gpu_malloc(ctx, span * 32, &d_whole, &err) ||
        cuzk_gpu_malloc(ctx, n * 4, &d_idx, &err)) {
        CHECK(0, TG_NAME " gather: allocation: %s", err.msg);
        goto out;
    }
    for (size_t i = 0; i < span; i++)
        idx[i] = (uint32_t)i;
    for (size_t i = span; i > 1; i--) {
        size_t j = tu_rand64() % i;
        uint32_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
    for (int ki = 0; ki < 2; ki++) {
        make_scalars(whole, span, ki ? SC_BITS : SC_RANDOM, 1, SF(modulus), one.l);
        for (size_t i = 0; i < n; i++)
            memcpy(pick[i], whole[idx[i]], 32);
        TG got, want;
        const void *sv[1] = {d_whole};
        cuzk_status rc = CUZK_OK;
        if ((rc = cuzk_gpu_copy_to_device(st, d_whole, whole, span * 32, &err)) ||
            (rc = cuzk_gpu_copy_to_device(st, d_idx, idx, n * 4, &err)) ||
            (rc = cuzk_gpu_stream_sync(st, &err)) ||
            (rc = cuzk_gpu_msm_batch_gather(st, gb, 3, n, 1, sv, d_idx,
                                            CUZK_GPU_SCALARS_MONT | CUZK_GPU_SCALARS_DEVICE,
                                            &got, &err)))
            CHECK(0, TG_NAME " gather: %s", err.msg);
        GF(expected)(&want, k + 3, (const uint64_t(*)[4])pick, n, 1);
        CHECK(rc == CUZK_OK && GF(eq)(&got, &want), TG_NAME " gathered %s n=%zu != logs",
              ki ? "90% bits" : "random", n);
    }
    CHECK(cuzk_gpu_msm_batch_gather(st, gb, 0, 5, 1, (const void *const *)&d_whole, NULL,
                                    CUZK_GPU_SCALARS_DEVICE, s, &err) == CUZK_EINVAL &&
              cuzk_gpu_msm_batch_gather(st, gb, 0, 5, 1, (const void *const *)&d_whole,
                                        d_idx, 0, s, &err) == CUZK_EINVAL,
          TG_NAME " gather without a list or with host scalars refused");
out:
    cuzk_gpu_free(ctx, d_whole);
    cuzk_gpu_free(ctx, d_idx);
    free(idx);
    free(whole);
    free(pick);
}

static void GF(test)(unsigned max_log) {
    if (getenv("CUZK_GPU_MSM_FORCE_C")) /* one window for every size */
        cuzk_gpu_ctx_tune(ctx, (unsigned)atoi(getenv(
                              "CUZK_GPU_MSM_FORCE_C")), 0, 0);
    size_t nmax = (size_t)1 << max_log;
    if (nmax < 4099)
        nmax = 4099;
    GF(affine) *pts = malloc(nmax * sizeof *pts);
    TS *k = malloc(nmax * sizeof *k);
    uint64_t(*s)[4] = malloc(nmax * 32);
    GF(make_bases)(pts, k, nmax);
    /* special bases in the first 4099: repeats, infinity, opposites */
    for (size_t i = 100; i < 400; i += 3) {
        pts[i] = pts[7];
        k[i] = k[7];
    }
    for (size_t i = 500; i < 600; i += 2) {
        GF(affine_set_inf)(&pts[i]);
        SF(set_zero)(&k[i]);
    }
    for (size_t i = 700; i < 800; i++) {
        GF(affine_neg)(&pts[i + 100], &pts[i]);
        SF(neg)(&k[i + 100], &k[i]);
    }
    cuzk_gpu_bases *gb = NULL;
    cuzk_error err = {0};
    if (cuzk_gpu_bases_upload(ctx, TEST_GPU_CURVE, TEST_GPU_GROUP, pts, nmax, &gb, &err) !=
        CUZK_OK) {
        CHECK(0, TG_NAME " bases upload: %s", err.msg);
        goto done;
    }
    CHECK(cuzk_gpu_bases_bytes(gb) == nmax * sizeof *pts,
          TG_NAME " bases bytes");
    static const size_t small[] = {1, 2, 3, 31, 32, 33, 1031};
    for (size_t t = 0; t < sizeof small / sizeof *small; t++) {
        int mont = (int)(t & 1);
        make_scalars(s, small[t], SC_RANDOM, mont, SF(modulus),
                     k[0].l /* unused for random */);
        GF(check)(gb, pts, k, 0, small[t], s, mont, 0, "random");
    }
    for (unsigned lg = 16; lg <= max_log; lg += (lg < 20 ? 4 : 2)) {
        size_t n = (size_t)1 << lg;
        make_scalars(s, n, SC_RANDOM, 1, SF(modulus), NULL);
        GF(check)(gb, pts, k, 0, n, s, 1, lg == 16, "random");
        make_scalars(s, n, SC_RANDOM, 0, SF(modulus), NULL);
        GF(check)(gb, pts, k, 0, n, s, 0, lg == 20, "random");
    }
    {
        TS one;
        SF(set_one)(&one);
        size_t sizes[2] = {4099, nmax >= ((size_t)1 << 20)
                                     ? ((size_t)1 << 20)
                                     : nmax};
        for (int si = 0; si < 2; si++)
            for (int kind = SC_ZERO; kind <= SC_MIX; kind++)
                for (int mont = 0; mont < 2; mont++) {
                    make_scalars(s, sizes[si], kind, mont, SF(modulus),
                                 one.l);
                    GF(check)(gb, pts, k, 0, sizes[si], s, mont, 0,
                              sc_name[kind]);
                }
    }
    /* plain scalars >= r (all ones: 2^256 - 1) and a base offset */
    for (size_t i = 0; i < 1000; i++)
        memset(s[i], 0xff, 32);
    GF(check)(gb, pts, k, 0, 1000, s, 0, 0, "2^256-1");
    make_scalars(s, 777, SC_RANDOM, 1, SF(modulus), NULL);
    GF(check)(gb, pts, k, 5, 777, s, 1, 0, "offset 5");
    {
        TG got;
        CHECK(cuzk_gpu_msm(st, gb, 0, 0, s, 0, &got, &err) == CUZK_OK &&
                  GF(is_inf)(&got),
              TG_NAME " n = 0 gives infinity");
        CHECK(cuzk_gpu_msm(st, gb, nmax - 1, 2, s, 0, &got, &err) ==
                  CUZK_EINVAL,
              TG_NAME " range beyond the bases rejected");
    }
    GF(bits)(gb, k, nmax, s);
    GF(streamed)(gb, pts, k, nmax, max_log, s);
    GF(shifted)(gb, pts, k, nmax, max_log, s);
    cuzk_gpu_bases_free(gb);
done:
    free(pts);
    free(k);
    free(s);
}

#undef TG_NAME
#undef SF
#undef GF
#undef TS
#undef TG

#endif
