/*
 * GPU field and point arithmetic against the CPU code (field/field.h,
 * curve/curve.h): element-wise add/sub/mul/sqr/neg on random inputs of all
 * four fields (32-bit-limb code and the 64-bit-limb variant), and the XYZZ
 * point formulas of all four groups including the exceptional cases
 * (P + P, P - P, infinity on either side).
 *
 * Needs a GPU: without CUZK_HAVE_CUDA or without a device it prints
 * "no GPU: skipped" and exits 77 (CTest's skip code).  Outputs are poisoned
 * before every kernel so unwritten elements fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
#include "gpu/runtime.h"
#include "gpu/selftest.h"
#include "testutil.h"

#ifdef CUZK_HAVE_CUDA

static cuzk_gpu_ctx *ctx;
static cuzk_gpu_stream *st;

/* Device buffer, or NULL with a recorded failure (after a kernel fault
 * every later CUDA call fails; the checks below then skip their work). */
static void *dev_alloc(size_t bytes) {
    void *p = NULL;
    cuzk_error err = {0};
    CHECK(cuzk_gpu_malloc(ctx, bytes, &p, &err) == CUZK_OK,
          "cuzk_gpu_malloc(%zu): %s", bytes, err.msg);
    return p;
}

/* Uploads a and b, runs op, downloads into out (poisoned first). */
static int run_field_op(cuzk_gpu_field f, cuzk_gpu_fop op, const void *a,
                        const void *b, void *out, size_t n, size_t elem) {
    cuzk_error err = {0};
    void *da = dev_alloc(n * elem), *db = dev_alloc(n * elem),
         *dout = dev_alloc(n * elem);
    int ok = da && db && dout &&
             cuzk_gpu_copy_to_device(st, da, a, n * elem, &err) == CUZK_OK &&
             cuzk_gpu_copy_to_device(st, db, b, n * elem, &err) == CUZK_OK &&
             cuzk_gpu_memset(st, dout, 0xA5, n * elem, &err) == CUZK_OK &&
             cuzk_gpu_field_op(st, f, op, da, db, dout, n, &err) == CUZK_OK &&
             cuzk_gpu_copy_to_host(st, out, dout, n * elem, &err) == CUZK_OK &&
             cuzk_gpu_stream_sync(st, &err) == CUZK_OK;
    CHECK(ok, "field op %d on field %d: %s", (int)op, (int)f, err.msg);
    cuzk_gpu_free(ctx, da);
    cuzk_gpu_free(ctx, db);
    cuzk_gpu_free(ctx, dout);
    return ok;
}

/* One checker per field, stamped out for the four fields. */
#define FIELD_TEST(F, ID)                                                     \
    static void test_##F(size_t n) {                                          \
        F *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);             \
        F *out = malloc(n * sizeof *out), ref;                                \
        for (size_t i = 0; i < n; i++) {                                      \
            tu_rand_below(a[i].l, F##_modulus, F##_LIMBS);                    \
            tu_rand_below(b[i].l, F##_modulus, F##_LIMBS);                    \
        }                                                                     \
        for (int op = 0; op <= CUZK_GPU_FOP_MUL_CIOS32; op++) {               \
            if (!run_field_op(ID, (cuzk_gpu_fop)op, a, b, out, n, sizeof(F))) \
                continue;                                                     \
            size_t bad = 0, first = 0;                                        \
            for (size_t i = 0; i < n; i++) {                                  \
                switch (op) {                                                 \
                case CUZK_GPU_FOP_ADD: F##_add(&ref, &a[i], &b[i]); break;    \
                case CUZK_GPU_FOP_SUB: F##_sub(&ref, &a[i], &b[i]); break;    \
                case CUZK_GPU_FOP_SQR: F##_sqr(&ref, &a[i]); break;           \
                case CUZK_GPU_FOP_NEG: F##_neg(&ref, &a[i]); break;           \
                default: F##_mul(&ref, &a[i], &b[i]); break;                  \
                }                                                             \
                if (!F##_eq(&ref, &out[i]) && bad++ == 0)                     \
                    first = i;                                                \
            }                                                                 \
            CHECK(bad == 0, #F " op %d: %zu of %zu wrong (first at %zu)", op, \
                  bad, n, first);                                             \
        }                                                                     \
        free(a);                                                              \
        free(b);                                                              \
        free(out);                                                            \
    }

FIELD_TEST(bls12_381_fp, CUZK_GPU_BLS12_381_FP)
FIELD_TEST(bls12_381_fr, CUZK_GPU_BLS12_381_FR)
FIELD_TEST(bn254_fp, CUZK_GPU_BN254_FP)
FIELD_TEST(bn254_fr, CUZK_GPU_BN254_FR)

/*
 * Point formulas: random points a_i, b_i = k G, with the exceptional cases
 * planted at fixed positions: b = 2a, b = -2a, b = a, b = -a, a or b
 * infinity.  Expected values come from the CPU Jacobian code.
 */
#define POINT_TEST(G, S, CURVE, GROUP)                                        \
    static void rand_point_##G(G##_affine *p) {                               \
        G##_affine gen;                                                       \
        G j;                                                                  \
        S k;                                                                  \
        tu_rand_below(k.l, S##_modulus, 4);                                   \
        G##_generator(&gen);                                                  \
        G##_from_affine(&j, &gen);                                            \
        G##_mul(&j, &j, &k);                                                  \
        G##_to_affine(p, &j);                                                 \
    }                                                                         \
    static void expect_##G(G *r, int op, const G##_affine *a,                 \
                           const G##_affine *b) {                             \
        G ja, jb;                                                             \
        G##_from_affine(&ja, a);                                              \
        G##_from_affine(&jb, b);                                              \
        if (op != CUZK_GPU_POP_ADD_AFFINE)                                    \
            G##_dbl(&ja, &ja);                                                \
        switch (op) {                                                         \
        case CUZK_GPU_POP_ADD_MIXED:                                          \
        case CUZK_GPU_POP_ADD_AFFINE: G##_add(r, &ja, &jb); break;            \
        case CUZK_GPU_POP_SUB_MIXED: G##_sub(r, &ja, &jb); break;             \
        case CUZK_GPU_POP_ADD:                                                \
            G##_dbl(&jb, &jb);                                                \
            G##_add(r, &ja, &jb);                                             \
            break;                                                            \
        default: G##_dbl(r, &ja); break;                                      \
        }                                                                     \
    }                                                                         \
    static void test_points_##G(size_t n) {                                   \
        G##_affine *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);    \
        G *out = malloc(n * sizeof *out), ref, t;                             \
        for (size_t i = 0; i < n; i++) {                                      \
            rand_point_##G(&a[i]);                                            \
            rand_point_##G(&b[i]);                                            \
        }                                                                     \
        /* planted cases; ops double a first, so "b = 2a" hits P == Q */      \
        G##_from_affine(&t, &a[0]);                                           \
        G##_dbl(&t, &t);                                                      \
        G##_to_affine(&b[0], &t);                   /* b = 2a */              \
        G##_from_affine(&t, &a[1]);                                           \
        G##_dbl(&t, &t);                                                      \
        G##_neg(&t, &t);                                                      \
        G##_to_affine(&b[1], &t);                   /* b = -2a */             \
        b[2] = a[2];                                /* b = a */               \
        G##_affine_neg(&b[3], &a[3]);               /* b = -a */              \
        G##_affine_set_inf(&a[4]);                  /* a = O */               \
        G##_affine_set_inf(&b[5]);                  /* b = O */               \
        G##_affine_set_inf(&a[6]);                                            \
        G##_affine_set_inf(&b[6]);                  /* both O */              \
        cuzk_error err = {0};                                                 \
        void *da = dev_alloc(n * sizeof *a), *db = dev_alloc(n * sizeof *b);  \
        void *dout = dev_alloc(n * sizeof *out);                              \
        int ok = da && db && dout &&                                          \
                 cuzk_gpu_copy_to_device(st, da, a, n * sizeof *a, &err) ==   \
                     CUZK_OK &&                                               \
                 cuzk_gpu_copy_to_device(st, db, b, n * sizeof *b, &err) ==   \
                     CUZK_OK;                                                 \
        for (int op = 0; ok && op <= CUZK_GPU_POP_ADD_AFFINE; op++) {         \
            ok = cuzk_gpu_memset(st, dout, 0x5A, n * sizeof *out, &err) ==    \
                     CUZK_OK &&                                               \
                 cuzk_gpu_point_op(st, CURVE, GROUP, (cuzk_gpu_pop)op, da,    \
                                   db, dout, n, &err) == CUZK_OK &&           \
                 cuzk_gpu_copy_to_host(st, out, dout, n * sizeof *out,        \
                                       &err) == CUZK_OK &&                    \
                 cuzk_gpu_stream_sync(st, &err) == CUZK_OK;                   \
            CHECK(ok, #G " point op %d: %s", op, err.msg);                    \
            size_t bad = 0, first = 0;                                        \
            for (size_t i = 0; ok && i < n; i++) {                            \
                expect_##G(&ref, op, &a[i], &b[i]);                           \
                if (!G##_eq(&ref, &out[i]) && bad++ == 0)                     \
                    first = i;                                                \
            }                                                                 \
            CHECK(bad == 0, #G " point op %d: %zu of %zu wrong (first %zu)",  \
                  op, bad, n, first);                                         \
        }                                                                     \
        cuzk_gpu_free(ctx, da);                                               \
        cuzk_gpu_free(ctx, db);                                               \
        cuzk_gpu_free(ctx, dout);                                             \
        free(a);                                                              \
        free(b);                                                              \
        free(out);                                                            \
    }

POINT_TEST(bls12_381_g1, bls12_381_fr, CUZK_GPU_BLS12_381, CUZK_GPU_G1)
POINT_TEST(bls12_381_g2, bls12_381_fr, CUZK_GPU_BLS12_381, CUZK_GPU_G2)
POINT_TEST(bn254_g1, bn254_fr, CUZK_GPU_BN254, CUZK_GPU_G1)
POINT_TEST(bn254_g2, bn254_fr, CUZK_GPU_BN254, CUZK_GPU_G2)

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_gpu_field");
    if (!tu_gpu_present())
        return 77;
#ifdef CUZK_HAVE_CUDA
    cuzk_error err = {0};
    if (!(ctx = tu_gpu_ctx()))
        return tu_finish();
    st = cuzk_gpu_ctx_stream(ctx);
    size_t n = (size_t)tu_iters(1) << 16;
    test_bls12_381_fp(n);
    test_bls12_381_fr(n);
    test_bn254_fp(n);
    test_bn254_fr(n);
    size_t np = 64 * tu_iters(1);
    test_points_bls12_381_g1(np);
    test_points_bls12_381_g2(np);
    test_points_bn254_g1(np);
    test_points_bn254_g2(np);
    /* errors are reported, not fatal */
    CHECK(cuzk_gpu_field_op(st, CUZK_GPU_BN254_FR, (cuzk_gpu_fop)99, NULL,
                            NULL, NULL, 1, &err) == CUZK_EINVAL &&
              err.msg[0] != '\0',
          "bad op rejected with a message");
    void *huge = NULL;
    CHECK(cuzk_gpu_malloc(ctx, (size_t)1 << 50, &huge, &err) == CUZK_EGPU &&
              strstr(err.msg, "cudaMalloc") != NULL,
          "1 PiB allocation fails with CUZK_EGPU naming the call: %s",
          err.msg);
    cuzk_gpu_ctx_destroy(ctx);
    return tu_finish();
#endif
}
