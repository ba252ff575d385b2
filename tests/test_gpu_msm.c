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
 * CUZK_GPU_MSM_MAX_LOG lowers the largest size (default 22),
 * CUZK_GPU_MSM_G2_MAX_LOG that of G2 alone (default: the same),
 * CUZK_GPU_MSM_ONLY runs one group (e.g. bls12_381_g2),
 * CUZK_GPU_MSM_SHIFT_C replaces the forced 8-bit window of the shifted
 * copies, CUZK_GPU_MSM_FORCE_C forces the window of the plain MSMs (the
 * G2 bucket-tree fault of 2026-12-02 showed with 20 at every size).
 * Every group runs twice, with the XYZZ bucket accumulation and with the
 * batch-affine one (msm/gpu/msm_affine.cuh); CUZK_GPU_MSM_ACCUM=xyzz or
 * affine runs that one only.
 *
 * Without CUDA or a device: prints "no GPU: skipped", exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
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

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_EQUAL, SC_RM1, SC_SMALL, SC_MIX };
static const char *sc_name[] = {"random", "zero", "one",  "equal",
                                "r-1",    "small", "mix"};

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

/* Per-group helpers, stamped out for the four groups. */
#define MSM_TEST(G, S, CURVE, GROUP)                                          \
    typedef struct G##_gen {                                                  \
        G##_affine *pts;                                                      \
        S *k;                                                                 \
        G *jac;                                                               \
        S a, d;                                                               \
        G D;                                                                  \
    } G##_gen;                                                                \
                                                                              \
    /* k[i] = a + i d, pts[i] = k[i] G for i in [b, e) */                     \
    static void G##_gen_chunk(void *vc, size_t b, size_t e, unsigned w) {     \
        G##_gen *c = vc;                                                      \
        (void)w;                                                              \
        S kb, bs;                                                             \
        G##_affine gen;                                                       \
        G P;                                                                  \
        S##_set_u64(&bs, b);                                                  \
        S##_mul(&kb, &bs, &c->d);                                             \
        S##_add(&kb, &kb, &c->a);                                             \
        G##_generator(&gen);                                                  \
        G##_from_affine(&P, &gen);                                            \
        G##_mul(&P, &P, &kb);                                                 \
        for (size_t i = b; i < e; i++) {                                      \
            c->k[i] = kb;                                                     \
            c->jac[i] = P;                                                    \
            G##_add(&P, &P, &c->D);                                           \
            S##_add(&kb, &kb, &c->d);                                         \
        }                                                                     \
        G##_batch_to_affine(c->pts + b, c->jac + b, e - b);                   \
    }                                                                         \
                                                                              \
    static void G##_make_bases(G##_affine *pts, S *k, size_t n) {             \
        G##_gen c;                                                            \
        G##_affine gen;                                                       \
        c.pts = pts;                                                          \
        c.k = k;                                                              \
        c.jac = malloc(n * sizeof *c.jac);                                    \
        tu_rand_below(c.a.l, S##_modulus, 4);                                 \
        tu_rand_below(c.d.l, S##_modulus, 4);                                 \
        G##_generator(&gen);                                                  \
        G##_from_affine(&c.D, &gen);                                          \
        G##_mul(&c.D, &c.D, &c.d);                                            \
        cuzk_pool_for(pool, n, 4096, G##_gen_chunk, &c);                      \
        free(c.jac);                                                          \
        for (size_t i = n; i > 1; i--) { /* shuffle */                        \
            size_t j = tu_rand64() % i;                                       \
            G##_affine tp = pts[i - 1];                                       \
            S tk = k[i - 1];                                                  \
            pts[i - 1] = pts[j];                                              \
            k[i - 1] = k[j];                                                  \
            pts[j] = tp;                                                      \
            k[j] = tk;                                                        \
        }                                                                     \
    }                                                                         \
                                                                              \
    /* (sum s_i k_i) G, s_i read as Montgomery or plain (reduced mod r) */    \
    static void G##_expected(G *r, const S *k, const uint64_t (*s)[4],        \
                             size_t n, int mont) {                            \
        S acc, t, v;                                                          \
        G##_affine gen;                                                       \
        S##_set_zero(&acc);                                                   \
        for (size_t i = 0; i < n; i++) {                                      \
            if (mont) {                                                       \
                memcpy(v.l, s[i], 32);                                        \
            } else {                                                          \
                uint64_t x[4];                                                \
                memcpy(x, s[i], 32);                                          \
                for (int rep = 0; rep < 6; rep++) { /* x mod r */             \
                    S tmp;                                                    \
                    cuzk_error e;                                             \
                    if (S##_from_limbs(&tmp, x, &e) == CUZK_OK)               \
                        break;                                                \
                    uint64_t br = 0;                                          \
                    for (int j = 0; j < 4; j++) {                             \
                        uint64_t m = S##_modulus[j], xi = x[j];               \
                        x[j] = xi - m - br;                                   \
                        br = (xi < m) || (xi == m && br);                     \
                    }                                                         \
                }                                                             \
                S##_to_mont(&v, x);                                           \
            }                                                                 \
            S##_mul(&t, &v, &k[i]);                                           \
            S##_add(&acc, &acc, &t);                                          \
        }                                                                     \
        G##_generator(&gen);                                                  \
        G##_from_affine(r, &gen);                                             \
        G##_mul(r, r, &acc);                                                  \
    }                                                                         \
                                                                              \
    /* One GPU MSM over bases [off, off+n), checked against the logs and,   \
     * when small enough, the CPU MSM. */                                     \
    static void G##_check(cuzk_gpu_bases *gb, const G##_affine *pts,          \
                          const S *k, size_t off, size_t n,                   \
                          const uint64_t (*s)[4], int mont, int on_device,    \
                          const char *what) {                                 \
        G got, want;                                                          \
        cuzk_error err = {0};                                                 \
        const void *sc = s;                                                   \
        void *d_sc = NULL;                                                    \
        memset(&got, 0xA5, sizeof got); /* poison */                          \
        if (on_device && n > 0) {                                             \
            if (cuzk_gpu_malloc(ctx, 32 * n, &d_sc, &err) != CUZK_OK ||       \
                cuzk_gpu_copy_to_device(st, d_sc, s, 32 * n, &err) !=         \
                    CUZK_OK) {                                                \
                CHECK(0, #G " %s: device scalars: %s", what, err.msg);        \
                return;                                                       \
            }                                                                 \
            sc = d_sc;                                                        \
        }                                                                     \
        unsigned flags = (mont ? CUZK_GPU_SCALARS_MONT : 0) |                 \
                         (on_device ? CUZK_GPU_SCALARS_DEVICE : 0);           \
        cuzk_status rc = cuzk_gpu_msm(st, gb, off, n, sc, flags, &got, &err); \
        cuzk_gpu_free(ctx, d_sc);                                             \
        CHECK(rc == CUZK_OK, #G " %s n=%zu: %s", what, n, err.msg);           \
        if (rc != CUZK_OK)                                                    \
            return;                                                           \
        G##_expected(&want, k + off, s, n, mont);                             \
        CHECK(G##_eq(&got, &want), #G " %s n=%zu mont=%d dev=%d: != logs",    \
              what, n, mont, on_device);                                      \
        if (n <= cpu_max) {                                                   \
            G cpu;                                                            \
            rc = G##_msm(&cpu, pts + off, (const S *)s, n, mont, pool);       \
            CHECK(rc == CUZK_OK && G##_eq(&got, &cpu),                        \
                  #G " %s n=%zu mont=%d: != CPU MSM", what, n, mont);         \
        }                                                                     \
    }                                                                         \
                                                                              \
    /* Shifted copies (cuzk_gpu_bases_precompute): argument errors, a      \
     * limit too small (ENOMEM, bases still usable), then a forced 8-bit   \
     * window (32 copies) and the automatic one, each checked like the     \
     * plain bases: sizes, special scalar sets, plain >= r, an offset. */  \
    static void G##_shifted(cuzk_gpu_bases *gb, const G##_affine *pts,        \
                            const S *k, size_t nmax, unsigned max_log,        \
                            uint64_t (*s)[4]) {                               \
        cuzk_error err = {0};                                                 \
        unsigned rbits = CURVE == CUZK_GPU_BLS12_381 ? 255 : 254;             \
        cuzk_gpu_bases *hb = NULL;                                            \
        if (cuzk_gpu_bases_host(ctx, CURVE, GROUP, pts, nmax, &hb, &err) ==   \
            CUZK_OK) {                                                        \
            CHECK(cuzk_gpu_bases_precompute(hb, 0, 0, &err) == CUZK_EINVAL,   \
                  #G " precompute of host bases rejected");                   \
            cuzk_gpu_bases_free(hb);                                          \
        }                                                                     \
        CHECK(cuzk_gpu_bases_precompute(gb, 7, 0, &err) == CUZK_EINVAL &&     \
                  cuzk_gpu_bases_precompute(gb, 25, 0, &err) == CUZK_EINVAL,  \
              #G " precompute windows 7 and 25 rejected");                    \
        CHECK(cuzk_gpu_bases_precompute(gb, 0, 4096, &err) == CUZK_ENOMEM &&  \
                  cuzk_gpu_bases_shift_bits(gb) == 0 &&                       \
                  cuzk_gpu_bases_bytes(gb) == nmax * sizeof *pts,             \
              #G " precompute within 4 KB: ENOMEM, no copies");               \
        make_scalars(s, 1031, SC_RANDOM, 1, S##_modulus, NULL);               \
        G##_check(gb, pts, k, 0, 1031, s, 1, 0, "after ENOMEM");              \
        unsigned wins[2] = {8, 0};                                            \
        if (getenv("CUZK_GPU_MSM_SHIFT_C")) /* e.g. to rerun one window */    \
            wins[0] = (unsigned)atoi(getenv("CUZK_GPU_MSM_SHIFT_C"));         \
        for (int wi = 0; wi < 2; wi++) {                                      \
            cuzk_status rc = cuzk_gpu_bases_precompute(gb, wins[wi], 0, &err); \
            CHECK(rc == CUZK_OK, #G " precompute window %u: %s", wins[wi],    \
                  err.msg);                                                   \
            if (rc != CUZK_OK)                                                \
                continue;                                                     \
            unsigned c = cuzk_gpu_bases_shift_bits(gb);                       \
            size_t w = (rbits + 1 + c - 1) / c;                               \
            CHECK(c >= 8 && c <= 24 && (wins[wi] == 0 || c == wins[wi]),      \
                  #G " shifted window %u (asked %u)", c, wins[wi]);           \
            CHECK(cuzk_gpu_bases_bytes(gb) == w * nmax * sizeof *pts,         \
                  #G " shifted bytes: %zu windows", w);                       \
            printf("%s shifted copies: window %u, %zu copies\n", #G, c, w);   \
            fflush(stdout);                                                   \
            static const size_t small[] = {1, 2, 33, 1031};                   \
            for (size_t t = 0; t < sizeof small / sizeof *small; t++) {       \
                int mont = (int)(t & 1);                                      \
                make_scalars(s, small[t], SC_RANDOM, mont, S##_modulus,       \
                             NULL);                                           \
                G##_check(gb, pts, k, 0, small[t], s, mont, (int)(t & 2),     \
                          "shifted random");                                  \
            }                                                                 \
            unsigned logs[2] = {16, max_log};                                 \
            for (int li = 0; li < 2; li++) {                                  \
                unsigned lg = logs[li];                                       \
                if (lg > max_log || (li == 1 && lg == 16))                    \
                    continue;                                                 \
                make_scalars(s, (size_t)1 << lg, SC_RANDOM, 1, S##_modulus,   \
                             NULL);                                           \
                G##_check(gb, pts, k, 0, (size_t)1 << lg, s, 1, li == 0,      \
                          "shifted random");                                  \
            }                                                                 \
            S one;                                                            \
            S##_set_one(&one);                                                \
            for (int kind = SC_ZERO; kind <= SC_MIX; kind++) {                \
                make_scalars(s, 4099, kind, kind & 1, S##_modulus, one.l);    \
                G##_check(gb, pts, k, 0, 4099, s, kind & 1, 0,                \
                          sc_name[kind]);                                     \
            }                                                                 \
            for (size_t i = 0; i < 1000; i++)                                 \
                memset(s[i], 0xff, 32);                                       \
            G##_check(gb, pts, k, 0, 1000, s, 0, 0, "shifted 2^256-1");       \
            make_scalars(s, 777, SC_RANDOM, 1, S##_modulus, NULL);            \
            G##_check(gb, pts, k, 5, 777, s, 1, 0, "shifted offset 5");       \
            make_scalars(s, 999, SC_RANDOM, 0, S##_modulus, NULL);            \
            G##_check(gb, pts, k, nmax - 999, 999, s, 0, 1,                   \
                      "shifted last points");                                 \
        }                                                                     \
    }                                                                         \
                                                                              \
    static void G##_test(unsigned max_log) {                                  \
        if (getenv("CUZK_GPU_MSM_FORCE_C")) /* one window for every size */   \
            cuzk_gpu_ctx_tune(ctx, (unsigned)atoi(getenv(                     \
                                  "CUZK_GPU_MSM_FORCE_C")), 0, 0);            \
        size_t nmax = (size_t)1 << max_log;                                   \
        if (nmax < 4099)                                                      \
            nmax = 4099;                                                      \
        G##_affine *pts = malloc(nmax * sizeof *pts);                         \
        S *k = malloc(nmax * sizeof *k);                                      \
        uint64_t(*s)[4] = malloc(nmax * 32);                                  \
        G##_make_bases(pts, k, nmax);                                         \
        /* special bases in the first 4099: repeats, infinity, opposites */   \
        for (size_t i = 100; i < 400; i += 3) {                               \
            pts[i] = pts[7];                                                  \
            k[i] = k[7];                                                      \
        }                                                                     \
        for (size_t i = 500; i < 600; i += 2) {                               \
            G##_affine_set_inf(&pts[i]);                                      \
            S##_set_zero(&k[i]);                                              \
        }                                                                     \
        for (size_t i = 700; i < 800; i++) {                                  \
            G##_affine_neg(&pts[i + 100], &pts[i]);                           \
            S##_neg(&k[i + 100], &k[i]);                                      \
        }                                                                     \
        cuzk_gpu_bases *gb = NULL;                                            \
        cuzk_error err = {0};                                                 \
        if (cuzk_gpu_bases_upload(ctx, CURVE, GROUP, pts, nmax, &gb, &err) != \
            CUZK_OK) {                                                        \
            CHECK(0, #G " bases upload: %s", err.msg);                        \
            goto done;                                                        \
        }                                                                     \
        CHECK(cuzk_gpu_bases_bytes(gb) == nmax * sizeof *pts,                 \
              #G " bases bytes");                                             \
        static const size_t small[] = {1, 2, 3, 31, 32, 33, 1031};            \
        for (size_t t = 0; t < sizeof small / sizeof *small; t++) {           \
            int mont = (int)(t & 1);                                          \
            make_scalars(s, small[t], SC_RANDOM, mont, S##_modulus,           \
                         k[0].l /* unused for random */);                     \
            G##_check(gb, pts, k, 0, small[t], s, mont, 0, "random");         \
        }                                                                     \
        for (unsigned lg = 16; lg <= max_log; lg += (lg < 20 ? 4 : 2)) {      \
            size_t n = (size_t)1 << lg;                                       \
            make_scalars(s, n, SC_RANDOM, 1, S##_modulus, NULL);              \
            G##_check(gb, pts, k, 0, n, s, 1, lg == 16, "random");            \
            make_scalars(s, n, SC_RANDOM, 0, S##_modulus, NULL);              \
            G##_check(gb, pts, k, 0, n, s, 0, lg == 20, "random");            \
        }                                                                     \
        {                                                                     \
            S one;                                                            \
            S##_set_one(&one);                                                \
            size_t sizes[2] = {4099, nmax >= ((size_t)1 << 20)                \
                                         ? ((size_t)1 << 20)                  \
                                         : nmax};                             \
            for (int si = 0; si < 2; si++)                                    \
                for (int kind = SC_ZERO; kind <= SC_MIX; kind++)              \
                    for (int mont = 0; mont < 2; mont++) {                    \
                        make_scalars(s, sizes[si], kind, mont, S##_modulus,   \
                                     one.l);                                  \
                        G##_check(gb, pts, k, 0, sizes[si], s, mont, 0,       \
                                  sc_name[kind]);                             \
                    }                                                         \
        }                                                                     \
        /* plain scalars >= r (all ones: 2^256 - 1) and a base offset */      \
        for (size_t i = 0; i < 1000; i++)                                     \
            memset(s[i], 0xff, 32);                                           \
        G##_check(gb, pts, k, 0, 1000, s, 0, 0, "2^256-1");                   \
        make_scalars(s, 777, SC_RANDOM, 1, S##_modulus, NULL);                \
        G##_check(gb, pts, k, 5, 777, s, 1, 0, "offset 5");                   \
        {                                                                     \
            G got;                                                            \
            CHECK(cuzk_gpu_msm(st, gb, 0, 0, s, 0, &got, &err) == CUZK_OK &&  \
                      G##_is_inf(&got),                                       \
                  #G " n = 0 gives infinity");                                \
            CHECK(cuzk_gpu_msm(st, gb, nmax - 1, 2, s, 0, &got, &err) ==      \
                      CUZK_EINVAL,                                            \
                  #G " range beyond the bases rejected");                     \
        }                                                                     \
        G##_shifted(gb, pts, k, nmax, max_log, s);                            \
        cuzk_gpu_bases_free(gb);                                              \
    done:                                                                     \
        free(pts);                                                            \
        free(k);                                                              \
        free(s);                                                              \
    }

MSM_TEST(bls12_381_g1, bls12_381_fr, CUZK_GPU_BLS12_381, CUZK_GPU_G1)
MSM_TEST(bls12_381_g2, bls12_381_fr, CUZK_GPU_BLS12_381, CUZK_GPU_G2)
MSM_TEST(bn254_g1, bn254_fr, CUZK_GPU_BN254, CUZK_GPU_G1)
MSM_TEST(bn254_g2, bn254_fr, CUZK_GPU_BN254, CUZK_GPU_G2)

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_gpu_msm");
    if (!tu_gpu_present())
        return 77;
#ifdef CUZK_HAVE_CUDA
    cuzk_error err = {0};
    if (!(ctx = tu_gpu_ctx()))
        return tu_finish();
    st = cuzk_gpu_ctx_stream(ctx);
    pool = cuzk_pool_create(0, &err);
    unsigned max_log = 22;
    const char *e = getenv("CUZK_GPU_MSM_MAX_LOG");
    if (e)
        max_log = (unsigned)atoi(e);
    if ((e = getenv("CUZK_GPU_MSM_CPU_MAX")) != NULL)
        cpu_max = (size_t)strtoull(e, NULL, 0);
    unsigned g2_max_log = max_log;
    if ((e = getenv("CUZK_GPU_MSM_G2_MAX_LOG")) != NULL)
        g2_max_log = (unsigned)atoi(e);
    const char *only = getenv("CUZK_GPU_MSM_ONLY"); /* e.g. "bn254_g1" */
    const char *accum = getenv("CUZK_GPU_MSM_ACCUM");
    static const char *accums[2] = {"xyzz", "affine"};
#define RUN(G, LOG)                                                           \
    if (!only || strcmp(only, #G) == 0) {                                     \
        printf("%s up to 2^%u, %s accumulation\n", #G, LOG, accums[a]);       \
        fflush(stdout);                                                       \
        G##_test(LOG);                                                        \
    }
    for (int a = 0; a < 2; a++) {
        if (accum && strcmp(accum, accums[a]) != 0)
            continue;
        cuzk_gpu_ctx_msm_accum(ctx, a);
        RUN(bn254_g1, max_log)
        RUN(bls12_381_g1, max_log)
        RUN(bn254_g2, g2_max_log)
        RUN(bls12_381_g2, g2_max_log)
    }
    cuzk_pool_destroy(pool);
    cuzk_gpu_ctx_destroy(ctx);
    return tu_finish();
#endif
}
