/*
 * GPU NTT (cuzk_gpu_ntt) against the CPU NTT (ntt/ntt.h) for both scalar
 * fields:
 *   - all four directions (forward, inverse, coset forward, coset inverse)
 *     at every size 2^1 .. 2^20 on random data, compared element by element
 *     with the CPU transform (forward also at 2^21, 2^22);
 *   - round trips forward/inverse and coset forward/coset inverse at
 *     2^21 .. 2^27 (CUZK_GPU_NTT_MAX_LOG changes the top), checking that
 *     the transform changed the data and that the inverse restores it;
 *   - above the CPU comparison (2^23 .. 2^27), the forward and coset
 *     forward outputs themselves at sampled indices i (0, 1, n/2, n-1 and
 *     random ones) against a direct evaluation of the input polynomial at
 *     w^i (g w^i for the coset), done on the CPU in blocks with Horner's
 *     rule (a round trip alone would pass a transform and its inverse
 *     that are wrong in matching ways);
 *   - the root convention at 2^24: the transform of x = (0, 1, 0, ...) is
 *     (w^i), checked at sampled i against field/field.h's root of unity;
 *   - argument errors (log_n 0 or 29, missing coset generator).
 * Coset generator: w_2n (root_of_unity(log_n + 1)) as Groth16 with snarkjs
 * keys uses, and a random one.
 *
 * Without CUDA or a device: prints "no GPU: skipped", exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "gpu/ntt.h"
#include "gpu/runtime.h"
#include "ntt/ntt.h"
#include "testutil.h"
#include "util/threadpool.h"

#ifdef CUZK_HAVE_CUDA

static cuzk_gpu_ctx *ctx;
static cuzk_gpu_stream *st;
static cuzk_pool *pool;

typedef struct fe {
    uint64_t l[4];
} fe;

/* Random elements; long arrays use raw random words below 2^253 (< r for
 * both fields) because the pattern generator is slow at 2^27. */
static void fill(fe *x, size_t n, const uint64_t *r) {
    if (n <= ((size_t)1 << 20)) {
        for (size_t i = 0; i < n; i++)
            tu_rand_below(x[i].l, r, 4);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 4; j++)
            x[i].l[j] = tu_rand64();
        x[i].l[3] &= (1ULL << 61) - 1;
    }
}

static int gpu_ntt(cuzk_gpu_curve curve, void *d, fe *h, unsigned log_n,
                   cuzk_gpu_ntt_dir dir, const fe *g) {
    cuzk_error err = {0};
    size_t bytes = sizeof(fe) << log_n;
    int ok = cuzk_gpu_copy_to_device(st, d, h, bytes, &err) == CUZK_OK &&
             cuzk_gpu_ntt(st, curve, d, log_n, dir, g, &err) == CUZK_OK &&
             cuzk_gpu_copy_to_host(st, h, d, bytes, &err) == CUZK_OK &&
             cuzk_gpu_stream_sync(st, &err) == CUZK_OK;
    CHECK(ok, "gpu ntt curve %d 2^%u dir %d: %s", (int)curve, log_n, (int)dir,
          err.msg);
    return ok;
}

static size_t first_diff(const fe *a, const fe *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(fe)))
            return i;
    return n;
}

/* Direct evaluation: sum_k x[k] z_j^k for NPTS points z_j, over blocks of
 * the coefficients in parallel (Horner within a block), then the blocks
 * combined with z_j^(block size). */
#define NPTS 6
#define EVAL_BLOCKS 512

/* Per-field part, stamped out for both fields. */
#define NTT_TEST(P, FR, CURVE)                                                \
    static void P##_cpu(P##_ntt_domain *d, fe *a, int dir, const FR *g) {     \
        FR *x = (FR *)a;                                                      \
        switch (dir) {                                                        \
        case CUZK_GPU_NTT_FORWARD: P##_ntt_forward(d, x, pool); break;        \
        case CUZK_GPU_NTT_INVERSE: P##_ntt_inverse(d, x, pool); break;        \
        case CUZK_GPU_NTT_COSET_FORWARD:                                      \
            P##_ntt_coset_forward(d, x, g, pool);                             \
            break;                                                            \
        default: P##_ntt_coset_inverse(d, x, g, pool); break;                 \
        }                                                                     \
    }                                                                         \
    typedef struct P##_eval {                                                 \
        const FR *x;                                                          \
        size_t n, block;                                                      \
        const FR *z; /* NPTS points */                                        \
        FR *part;    /* EVAL_BLOCKS x NPTS partial sums */                    \
    } P##_eval;                                                               \
    static void P##_eval_blocks(void *vctx, size_t b0, size_t b1, unsigned w) { \
        P##_eval *c = vctx;                                                   \
        (void)w;                                                              \
        for (size_t b = b0; b < b1; b++) {                                    \
            size_t lo = b * c->block, hi = lo + c->block;                     \
            for (int j = 0; j < NPTS; j++) {                                  \
                FR acc;                                                       \
                FR##_set_zero(&acc);                                          \
                for (size_t k = hi; k-- > lo;) {                              \
                    FR##_mul(&acc, &acc, &c->z[j]);                           \
                    FR##_add(&acc, &acc, &c->x[k]);                           \
                }                                                             \
                c->part[b * NPTS + j] = acc;                                  \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    /* out[j] = sum_k x[k] z[j]^k, n a multiple of EVAL_BLOCKS */             \
    static void P##_eval_at(const FR *x, size_t n, const FR *z, FR *out) {    \
        P##_eval c = {.x = x, .n = n, .block = n / EVAL_BLOCKS, .z = z,       \
                      .part = malloc(EVAL_BLOCKS * NPTS * sizeof(FR))};       \
        cuzk_pool_for(pool, EVAL_BLOCKS, 1, P##_eval_blocks, &c);             \
        for (int j = 0; j < NPTS; j++) {                                      \
            FR zb, acc;                                                       \
            uint64_t e = c.block;                                             \
            FR##_pow(&zb, &z[j], &e, 1);                                      \
            FR##_set_zero(&acc);                                              \
            for (size_t b = EVAL_BLOCKS; b-- > 0;) {                          \
                FR##_mul(&acc, &acc, &zb);                                    \
                FR##_add(&acc, &acc, &c.part[b * NPTS + j]);                  \
            }                                                                 \
            out[j] = acc;                                                     \
        }                                                                     \
        free(c.part);                                                         \
    }                                                                         \
    /* The transform |y| of |x| (2^lg, forward, or coset forward with |g|)  \
     * at NPTS indices against the direct evaluation. */                     \
    static void P##_check_points(const fe *x, const fe *y, unsigned lg,       \
                                 const FR *g, const char *what) {             \
        size_t n = (size_t)1 << lg;                                           \
        uint64_t idx[NPTS] = {0, 1, n / 2, n - 1};                            \
        FR z[NPTS], v[NPTS], w;                                               \
        FR##_root_of_unity(&w, lg);                                           \
        for (int j = 0; j < NPTS; j++) {                                      \
            if (j >= 4)                                                       \
                idx[j] = tu_rand64() % n;                                     \
            FR##_pow(&z[j], &w, &idx[j], 1);                                  \
            if (g)                                                            \
                FR##_mul(&z[j], &z[j], g);                                    \
        }                                                                     \
        P##_eval_at((const FR *)x, n, z, v);                                  \
        for (int j = 0; j < NPTS; j++)                                        \
            CHECK(FR##_eq(&v[j], (const FR *)&y[idx[j]]),                     \
                  #P " 2^%u %s: output %llu is not the polynomial at its "    \
                  "point", lg, what, (unsigned long long)idx[j]);              \
    }                                                                         \
    static void P##_test(unsigned cpu_max, unsigned rt_max) {                 \
        size_t nmax = (size_t)1 << rt_max;                                    \
        fe *h = malloc(nmax * sizeof *h), *ref = malloc(nmax * sizeof *ref);  \
        fe *orig = malloc(nmax * sizeof *orig);                               \
        void *d = NULL;                                                       \
        cuzk_error err = {0};                                                 \
        if (!h || !ref || !orig ||                                            \
            cuzk_gpu_malloc(ctx, nmax * sizeof(fe), &d, &err) != CUZK_OK) {   \
            CHECK(0, #P " alloc: %s", err.msg);                               \
            goto done;                                                        \
        }                                                                     \
        for (unsigned lg = 1; lg <= cpu_max && lg <= rt_max; lg++) {          \
            size_t n = (size_t)1 << lg;                                       \
            P##_ntt_domain *dom = NULL;                                       \
            if (P##_ntt_domain_create(&dom, lg, &err) != CUZK_OK) {           \
                CHECK(0, #P " domain 2^%u: %s", lg, err.msg);                 \
                continue;                                                     \
            }                                                                 \
            FR g;                                                             \
            for (int dir = 0; dir < 4; dir++) {                               \
                if (lg > 20 && dir != CUZK_GPU_NTT_FORWARD)                   \
                    continue;                                                 \
                if (dir == CUZK_GPU_NTT_COSET_FORWARD && (lg & 1))            \
                    tu_rand_below(g.l, FR##_modulus, 4);                      \
                else                                                          \
                    FR##_root_of_unity(&g, lg + 1);                           \
                if (FR##_is_zero(&g))                                         \
                    FR##_set_u64(&g, 7);                                      \
                fill(h, n, FR##_modulus);                                     \
                memcpy(ref, h, n * sizeof *h);                                \
                P##_cpu(dom, ref, dir, &g);                                   \
                if (!gpu_ntt(CURVE, d, h, lg, (cuzk_gpu_ntt_dir)dir,          \
                             (const fe *)&g))                                 \
                    continue;                                                 \
                size_t bad = first_diff(h, ref, n);                           \
                CHECK(bad == n, #P " 2^%u dir %d differs from CPU at %zu",    \
                      lg, dir, bad);                                          \
            }                                                                 \
            P##_ntt_domain_destroy(dom);                                      \
        }                                                                     \
        for (unsigned lg = cpu_max + 1; lg <= rt_max; lg++) {                 \
            size_t n = (size_t)1 << lg;                                       \
            FR g;                                                             \
            FR##_root_of_unity(&g, lg + 1);                                   \
            fill(orig, n, FR##_modulus);                                      \
            for (int pair = 0; pair < 2; pair++) {                            \
                memcpy(h, orig, n * sizeof *h);                               \
                if (!gpu_ntt(CURVE, d, h, lg, (cuzk_gpu_ntt_dir)(2 * pair),   \
                             (const fe *)&g))                                 \
                    continue;                                                 \
                CHECK(first_diff(h, orig, n) == 0,                            \
                      #P " 2^%u dir %d left x[0] unchanged", lg, 2 * pair);   \
                if (lg >= 23)                                                 \
                    P##_check_points(orig, h, lg, pair ? &g : NULL,           \
                                     pair ? "coset forward" : "forward");     \
                if (!gpu_ntt(CURVE, d, h, lg,                                 \
                             (cuzk_gpu_ntt_dir)(2 * pair + 1), (const fe *)&g)) \
                    continue;                                                 \
                size_t bad = first_diff(h, orig, n);                          \
                CHECK(bad == n, #P " 2^%u round trip %d differs at %zu", lg,  \
                      pair, bad);                                             \
            }                                                                 \
        }                                                                     \
        /* root convention: NTT(e_1)[i] = w^i */                              \
        unsigned lg = rt_max < 24 ? rt_max : 24;                              \
        size_t n = (size_t)1 << lg;                                           \
        memset(h, 0, n * sizeof *h);                                          \
        FR##_set_one((FR *)&h[1]);                                            \
        if (gpu_ntt(CURVE, d, h, lg, CUZK_GPU_NTT_FORWARD, NULL)) {           \
            FR w, wi;                                                         \
            FR##_root_of_unity(&w, lg);                                       \
            for (int k = 0; k < 64; k++) {                                    \
                uint64_t i = k < 4 ? (uint64_t)k : tu_rand64() % n;           \
                FR##_pow(&wi, &w, &i, 1);                                     \
                CHECK(FR##_eq(&wi, (FR *)&h[i]), #P " 2^%u: NTT(e1)[%llu]"    \
                      " != w^i", lg, (unsigned long long)i);                  \
            }                                                                 \
        }                                                                     \
    done:                                                                     \
        cuzk_gpu_free(ctx, d);                                                \
        free(h);                                                              \
        free(ref);                                                            \
        free(orig);                                                           \
    }

NTT_TEST(bls12_381, bls12_381_fr, CUZK_GPU_BLS12_381)
NTT_TEST(bn254, bn254_fr, CUZK_GPU_BN254)

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_gpu_ntt");
    if (!tu_gpu_present())
        return 77;
#ifdef CUZK_HAVE_CUDA
    cuzk_error err = {0};
    if (!(ctx = tu_gpu_ctx()))
        return tu_finish();
    st = cuzk_gpu_ctx_stream(ctx);
    pool = cuzk_pool_create(0, &err);
    unsigned rt_max = 27, cpu_max = 22;
    const char *e = getenv("CUZK_GPU_NTT_MAX_LOG");
    if (e)
        rt_max = (unsigned)atoi(e);
    if (cpu_max > rt_max)
        cpu_max = rt_max;
    bls12_381_test(cpu_max, rt_max);
    bn254_test(cpu_max, rt_max);
    uint64_t g[4] = {1, 0, 0, 0};
    CHECK(cuzk_gpu_ntt(st, CUZK_GPU_BN254, g, 0, CUZK_GPU_NTT_FORWARD, NULL,
                       &err) == CUZK_ERANGE,
          "log_n 0 rejected");
    CHECK(cuzk_gpu_ntt(st, CUZK_GPU_BN254, g, 29, CUZK_GPU_NTT_FORWARD, NULL,
                       &err) == CUZK_ERANGE,
          "log_n 29 rejected");
    CHECK(cuzk_gpu_ntt(st, CUZK_GPU_BN254, g, 4, CUZK_GPU_NTT_COSET_FORWARD,
                       NULL, &err) == CUZK_EINVAL,
          "coset without generator rejected");
    printf("twiddle cache: %.1f MB\n", cuzk_gpu_ctx_cached_bytes(ctx) / 1e6);
    cuzk_pool_destroy(pool);
    cuzk_gpu_ctx_destroy(ctx);
    return tu_finish();
#endif
}
