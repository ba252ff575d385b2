/*
 * GPU NTT (cuzk_gpu_ntt) against the CPU NTT (ntt/ntt.h) for both scalar
 * fields:
 *   - all five directions (forward, inverse, coset forward, coset inverse,
 *     inverse to coset: the CPU inverse times g^i)
 *     at every size 2^1 .. 2^20 on random data, compared element by element
 *     with the CPU transform (forward also at 2^21, 2^22); at 2^11 .. 2^16,
 *     where the default small-tile plan differs from the fixed-tile one,
 *     the same input also with CUZK_NTT_PLAN=fixed;
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
 * keys uses, and a random one.  The per-field part is written once below
 * and instantiated per curve (TEST_CURVE, tests/testutil.h) by including
 * this file again; CUZK_TEST_CURVE=<name> runs one curve.
 *
 * Without CUDA or a device: prints "no GPU: skipped", exits 77.
 */
#ifndef TEST_CURVE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "groth16/curve_id.h"
#include "gpu/ntt.h"
#include "gpu/runtime.h"
#include "ntt/ntt.h"
#include "testutil.h"
#include "util/threadpool.h"

#ifdef CUZK_HAVE_CUDA

static cuzk_gpu_ctx *ctx;
static cuzk_gpu_stream *st;
static cuzk_pool *pool;
/* CPU comparison up to 2^cpu_max, round trips up to 2^rt_max
 * (CUZK_GPU_NTT_MAX_LOG) */
static unsigned rt_max = 27, cpu_max = 22;

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

static int gpu_ntt(cuzk_curve curve, void *d, fe *h, unsigned log_n,
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

#define TEST_CURVE bls12_381
#define TEST_GPU_CURVE CUZK_CURVE_BLS12_381
#include __FILE__
#undef TEST_GPU_CURVE
#undef TEST_CURVE
#define TEST_CURVE bn254
#define TEST_GPU_CURVE CUZK_CURVE_BN254
#include __FILE__
#undef TEST_GPU_CURVE
#undef TEST_CURVE

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

static int setup(void) {
    cuzk_error err = {0};
    pool = cuzk_pool_create(0, &err);
    if (cpu_max > rt_max)
        cpu_max = rt_max;
    return 1;
}

/* Bad arguments are refused; the twiddle cache's size. */
static void teardown(void) {
    cuzk_error err = {0};
    uint64_t g[4] = {1, 0, 0, 0};
    CHECK(cuzk_gpu_ntt(st, CUZK_CURVE_BN254, g, 0, CUZK_GPU_NTT_FORWARD, NULL,
                       &err) == CUZK_ERANGE,
          "log_n 0 rejected");
    CHECK(cuzk_gpu_ntt(st, CUZK_CURVE_BN254, g, 29, CUZK_GPU_NTT_FORWARD, NULL,
                       &err) == CUZK_ERANGE,
          "log_n 29 rejected");
    CHECK(cuzk_gpu_ntt(st, CUZK_CURVE_BN254, g, 4, CUZK_GPU_NTT_COSET_FORWARD,
                       NULL, &err) == CUZK_EINVAL,
          "coset without generator rejected");
    printf("twiddle cache: %.1f MB\n", cuzk_gpu_ctx_cached_bytes(ctx) / 1e6);
    cuzk_pool_destroy(pool);
}

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
#ifdef CUZK_HAVE_CUDA
    const tu_gpu_test t = {.name = "test_gpu_ntt", .curves = curves,
                           .n_curves = TU_COUNT(curves), .ctx = &ctx, .stream = &st,
                           .max_log_env = "CUZK_GPU_NTT_MAX_LOG", .max_log = &rt_max,
                           .setup = setup, .teardown = teardown};
#else
    const tu_gpu_test t = {.name = "test_gpu_ntt"};
#endif
    return tu_gpu_main(argc, argv, &t);
}

#else /* ---- per curve (TEST_CURVE, TEST_GPU_CURVE): its scalar field ----- */

#define TF TC(fr) /* bls12_381_fr, bn254_fr */
#define FF(x) CUZK_PASTE(TF, x)

static void TC(cpu)(TC(ntt_domain) *d, fe *a, int dir, const TF *g) {
    TF *x = (TF *)a;
    switch (dir) {
    case CUZK_GPU_NTT_FORWARD: TC(ntt_forward)(d, x, pool); break;
    case CUZK_GPU_NTT_INVERSE: TC(ntt_inverse)(d, x, pool); break;
    case CUZK_GPU_NTT_COSET_FORWARD:
        TC(ntt_coset_forward)(d, x, g, pool);
        break;
    case CUZK_GPU_NTT_COSET_INVERSE:
        TC(ntt_coset_inverse)(d, x, g, pool);
        break;
    default: { /* inverse to coset: the inverse, then x[i] times g^i */
        TC(ntt_inverse)(d, x, pool);
        TF p;
        FF(set_one)(&p);
        for (size_t i = 0; i < ((size_t)1 << TC(ntt_domain_log_n)(d)); i++) {
            FF(mul)(&x[i], &x[i], &p);
            FF(mul)(&p, &p, g);
        }
    }
    }
}
typedef struct TC(eval) {
    const TF *x;
    size_t n, block;
    const TF *z; /* NPTS points */
    TF *part;    /* EVAL_BLOCKS x NPTS partial sums */
} TC(eval);
static void TC(eval_blocks)(void *vctx, size_t b0, size_t b1, unsigned w) {
    TC(eval) *c = vctx;
    (void)w;
    for (size_t b = b0; b < b1; b++) {
        size_t lo = b * c->block, hi = lo + c->block;
        for (int j = 0; j < NPTS; j++) {
            TF acc;
            FF(set_zero)(&acc);
            for (size_t k = hi; k-- > lo;) {
                FF(mul)(&acc, &acc, &c->z[j]);
                FF(add)(&acc, &acc, &c->x[k]);
            }
            c->part[b * NPTS + j] = acc;
        }
    }
}
/* out[j] = sum_k x[k] z[j]^k, n a multiple of EVAL_BLOCKS */
static void TC(eval_at)(const TF *x, size_t n, const TF *z, TF *out) {
    TC(eval) c = {.x = x, .n = n, .block = n / EVAL_BLOCKS, .z = z,
                  .part = malloc(EVAL_BLOCKS * NPTS * sizeof(TF))};
    cuzk_pool_for(pool, EVAL_BLOCKS, 1, TC(eval_blocks), &c);
    for (int j = 0; j < NPTS; j++) {
        TF zb, acc;
        uint64_t e = c.block;
        FF(pow)(&zb, &z[j], &e, 1);
        FF(set_zero)(&acc);
        for (size_t b = EVAL_BLOCKS; b-- > 0;) {
            FF(mul)(&acc, &acc, &zb);
            FF(add)(&acc, &acc, &c.part[b * NPTS + j]);
        }
        out[j] = acc;
    }
    free(c.part);
}
/* The transform |y| of |x| (2^lg, forward, or coset forward with |g|)
 * at NPTS indices against the direct evaluation. */
static void TC(check_points)(const fe *x, const fe *y, unsigned lg,
                             const TF *g, const char *what) {
    size_t n = (size_t)1 << lg;
    uint64_t idx[NPTS] = {0, 1, n / 2, n - 1};
    TF z[NPTS], v[NPTS], w;
    FF(root_of_unity)(&w, lg);
    for (int j = 0; j < NPTS; j++) {
        if (j >= 4)
            idx[j] = tu_rand64() % n;
        FF(pow)(&z[j], &w, &idx[j], 1);
        if (g)
            FF(mul)(&z[j], &z[j], g);
    }
    TC(eval_at)((const TF *)x, n, z, v);
    for (int j = 0; j < NPTS; j++)
        CHECK(FF(eq)(&v[j], (const TF *)&y[idx[j]]),
              TEST_CURVE_NAME " 2^%u %s: output %llu is not the polynomial at its "
              "point", lg, what, (unsigned long long)idx[j]);
}
static void TC(tests)(const tu_curve *c) {
    (void)c;
    size_t nmax = (size_t)1 << rt_max;
    fe *h = malloc(nmax * sizeof *h), *ref = malloc(nmax * sizeof *ref);
    fe *orig = malloc(nmax * sizeof *orig);
    void *d = NULL;
    cuzk_error err = {0};
    if (!h || !ref || !orig ||
        cuzk_gpu_malloc(ctx, nmax * sizeof(fe), &d, &err) != CUZK_OK) {
        CHECK(0, TEST_CURVE_NAME " alloc: %s", err.msg);
        goto done;
    }
    for (unsigned lg = 1; lg <= cpu_max && lg <= rt_max; lg++) {
        size_t n = (size_t)1 << lg;
        TC(ntt_domain) *dom = NULL;
        if (TC(ntt_domain_create)(&dom, lg, &err) != CUZK_OK) {
            CHECK(0, TEST_CURVE_NAME " domain 2^%u: %s", lg, err.msg);
            continue;
        }
        TF g;
        for (int dir = 0; dir <= CUZK_GPU_NTT_INVERSE_TO_COSET; dir++) {
            if (lg > 20 && dir != CUZK_GPU_NTT_FORWARD)
                continue;
            if ((dir == CUZK_GPU_NTT_COSET_FORWARD && (lg & 1)) ||
                (dir == CUZK_GPU_NTT_INVERSE_TO_COSET && !(lg & 1)))
                tu_rand_below(g.l, FF(modulus), 4);
            else
                FF(root_of_unity)(&g, lg + 1);
            if (FF(is_zero)(&g))
                FF(set_u64)(&g, 7);
            fill(h, n, FF(modulus));
            memcpy(ref, h, n * sizeof *h);
            memcpy(orig, h, n * sizeof *h);
            TC(cpu)(dom, ref, dir, &g);
            if (!gpu_ntt(TEST_GPU_CURVE, d, h, lg, (cuzk_gpu_ntt_dir)dir,
                         (const fe *)&g))
                continue;
            size_t bad = first_diff(h, ref, n);
            CHECK(bad == n, TEST_CURVE_NAME " 2^%u dir %d differs from CPU at %zu",
                  lg, dir, bad);
            if (lg < 11 || lg > 16)
                continue;
            /* the fixed-tile plan, where the default plan differs */
            memcpy(h, orig, n * sizeof *h);
            setenv("CUZK_NTT_PLAN", "fixed", 1);
            int ran = gpu_ntt(TEST_GPU_CURVE, d, h, lg, (cuzk_gpu_ntt_dir)dir,
                              (const fe *)&g);
            unsetenv("CUZK_NTT_PLAN");
            if (!ran)
                continue;
            bad = first_diff(h, ref, n);
            CHECK(bad == n, TEST_CURVE_NAME " 2^%u dir %d fixed plan differs "
                  "from CPU at %zu", lg, dir, bad);
        }
        TC(ntt_domain_destroy)(dom);
    }
    for (unsigned lg = cpu_max + 1; lg <= rt_max; lg++) {
        size_t n = (size_t)1 << lg;
        TF g;
        FF(root_of_unity)(&g, lg + 1);
        fill(orig, n, FF(modulus));
        for (int pair = 0; pair < 2; pair++) {
            memcpy(h, orig, n * sizeof *h);
            if (!gpu_ntt(TEST_GPU_CURVE, d, h, lg, (cuzk_gpu_ntt_dir)(2 * pair),
                         (const fe *)&g))
                continue;
            CHECK(first_diff(h, orig, n) == 0,
                  TEST_CURVE_NAME " 2^%u dir %d left x[0] unchanged", lg, 2 * pair);
            if (lg >= 23)
                TC(check_points)(orig, h, lg, pair ? &g : NULL,
                                 pair ? "coset forward" : "forward");
            if (!gpu_ntt(TEST_GPU_CURVE, d, h, lg,
                         (cuzk_gpu_ntt_dir)(2 * pair + 1), (const fe *)&g))
                continue;
            size_t bad = first_diff(h, orig, n);
            CHECK(bad == n, TEST_CURVE_NAME " 2^%u round trip %d differs at %zu", lg,
                  pair, bad);
        }
    }
    /* root convention: NTT(e_1)[i] = w^i */
    unsigned lg = rt_max < 24 ? rt_max : 24;
    size_t n = (size_t)1 << lg;
    memset(h, 0, n * sizeof *h);
    FF(set_one)((TF *)&h[1]);
    if (gpu_ntt(TEST_GPU_CURVE, d, h, lg, CUZK_GPU_NTT_FORWARD, NULL)) {
        TF w, wi;
        FF(root_of_unity)(&w, lg);
        for (int k = 0; k < 64; k++) {
            uint64_t i = k < 4 ? (uint64_t)k : tu_rand64() % n;
            FF(pow)(&wi, &w, &i, 1);
            CHECK(FF(eq)(&wi, (TF *)&h[i]), TEST_CURVE_NAME " 2^%u: NTT(e1)[%llu]"
                  " != w^i", lg, (unsigned long long)i);
        }
    }
done:
    cuzk_gpu_free(ctx, d);
    free(h);
    free(ref);
    free(orig);
}

#undef FF
#undef TF

#endif
