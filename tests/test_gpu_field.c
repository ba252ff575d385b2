/*
 * GPU field and point arithmetic against the CPU code (field/field.h,
 * curve/curve.h): element-wise add/sub/mul/sqr/neg on random inputs of all
 * four fields (32-bit-limb code and the 64-bit-limb variant), and the XYZZ
 * point formulas of all four groups including the exceptional cases
 * (P + P, P - P, infinity on either side).
 *
 * The per-field and per-group checks are written once below and
 * instantiated per curve (TEST_CURVE, tests/testutil.h) and, within it, per
 * field (TEST_FIELD) and group (TEST_GROUP) by including this file again;
 * CUZK_TEST_CURVE=<name> runs one curve.
 *
 * Needs a GPU: without CUZK_HAVE_CUDA or without a device it prints
 * "no GPU: skipped" and exits 77 (CTest's skip code).  Outputs are poisoned
 * before every kernel so unwritten elements fail.
 */
#ifndef TEST_CURVE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
#include "groth16/curve_id.h"
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

#define TEST_CURVE bls12_381
#define TEST_GPU_CURVE CUZK_CURVE_BLS12_381
#define TEST_GPU_FP CUZK_GPU_BLS12_381_FP
#define TEST_GPU_FR CUZK_GPU_BLS12_381_FR
#include __FILE__
#undef TEST_GPU_FR
#undef TEST_GPU_FP
#undef TEST_GPU_CURVE
#undef TEST_CURVE
#define TEST_CURVE bn254
#define TEST_GPU_CURVE CUZK_CURVE_BN254
#define TEST_GPU_FP CUZK_GPU_BN254_FP
#define TEST_GPU_FR CUZK_GPU_BN254_FR
#include __FILE__
#undef TEST_GPU_FR
#undef TEST_GPU_FP
#undef TEST_GPU_CURVE
#undef TEST_CURVE

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

/* Errors are reported, not fatal. */
static void errors_reported(void) {
    cuzk_error err = {0};
    CHECK(cuzk_gpu_field_op(st, CUZK_GPU_BN254_FR, (cuzk_gpu_fop)99, NULL,
                            NULL, NULL, 1, &err) == CUZK_EINVAL &&
              err.msg[0] != '\0',
          "bad op rejected with a message");
    void *huge = NULL;
    CHECK(cuzk_gpu_malloc(ctx, (size_t)1 << 50, &huge, &err) == CUZK_EGPU &&
              strstr(err.msg, "cudaMalloc") != NULL,
          "1 PiB allocation fails with CUZK_EGPU naming the call: %s",
          err.msg);
}

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
#ifdef CUZK_HAVE_CUDA
    const tu_gpu_test t = {.name = "test_gpu_field", .curves = curves,
                           .n_curves = TU_COUNT(curves), .ctx = &ctx, .stream = &st,
                           .teardown = errors_reported};
#else
    const tu_gpu_test t = {.name = "test_gpu_field"};
#endif
    return tu_gpu_main(argc, argv, &t);
}

#elif !defined(TEST_FIELD) && !defined(TEST_GROUP) /* ---- per curve ------ */

#define TEST_FIELD fp
#define TEST_GPU_FIELD TEST_GPU_FP
#include __FILE__
#undef TEST_GPU_FIELD
#undef TEST_FIELD
#define TEST_FIELD fr
#define TEST_GPU_FIELD TEST_GPU_FR
#include __FILE__
#undef TEST_GPU_FIELD
#undef TEST_FIELD
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

static void TC(tests)(const tu_curve *c) {
    (void)c;
    size_t n = (size_t)tu_iters(1) << 16;
    TC(fp_test)(n);
    TC(fr_test)(n);
    size_t np = 64 * tu_iters(1);
    TC(g1_test_points)(np);
    TC(g2_test_points)(np);
}

#elif defined(TEST_FIELD) /* ---- per field (TEST_FIELD, TEST_GPU_FIELD) ---- */

#define TF TC(TEST_FIELD) /* bls12_381_fp, ... */
#define FF(x) CUZK_PASTE(TF, x)
#define TF_NAME TU_STR(TF)

static void FF(test)(size_t n) {
    TF *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    TF *out = malloc(n * sizeof *out), ref;
    for (size_t i = 0; i < n; i++) {
        tu_rand_below(a[i].l, FF(modulus), FF(LIMBS));
        tu_rand_below(b[i].l, FF(modulus), FF(LIMBS));
    }
    for (int op = 0; op <= CUZK_GPU_FOP_MUL_CIOS32; op++) {
        if (!run_field_op(TEST_GPU_FIELD, (cuzk_gpu_fop)op, a, b, out, n, sizeof(TF)))
            continue;
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case CUZK_GPU_FOP_ADD: FF(add)(&ref, &a[i], &b[i]); break;
            case CUZK_GPU_FOP_SUB: FF(sub)(&ref, &a[i], &b[i]); break;
            case CUZK_GPU_FOP_SQR: FF(sqr)(&ref, &a[i]); break;
            case CUZK_GPU_FOP_NEG: FF(neg)(&ref, &a[i]); break;
            default: FF(mul)(&ref, &a[i], &b[i]); break;
            }
            if (!FF(eq)(&ref, &out[i]) && bad++ == 0)
                first = i;
        }
        CHECK(bad == 0, TF_NAME " op %d: %zu of %zu wrong (first at %zu)", op,
              bad, n, first);
    }
    free(a);
    free(b);
    free(out);
}

#undef TF_NAME
#undef FF
#undef TF

#else /* ---- per group (TEST_GROUP, TEST_GPU_GROUP) ----------------------- */

#define TG TC(TEST_GROUP) /* bls12_381_g1, ... */
#define TS TC(fr)
#define GF(x) CUZK_PASTE(TG, x)
#define SF(x) CUZK_PASTE(TS, x)
#define TG_NAME TU_STR(TG)

/*
 * Point formulas: random points a_i, b_i = k G, with the exceptional cases
 * planted at fixed positions: b = 2a, b = -2a, b = a, b = -a, a or b
 * infinity.  Expected values come from the CPU Jacobian code.
 */
static void GF(rand_point)(GF(affine) *p) {
    GF(affine) gen;
    TG j;
    TS k;
    tu_rand_below(k.l, SF(modulus), 4);
    GF(generator)(&gen);
    GF(from_affine)(&j, &gen);
    GF(mul)(&j, &j, &k);
    GF(to_affine)(p, &j);
}
static void GF(expect)(TG *r, int op, const GF(affine) *a,
                       const GF(affine) *b) {
    TG ja, jb;
    GF(from_affine)(&ja, a);
    GF(from_affine)(&jb, b);
    if (op != CUZK_GPU_POP_ADD_AFFINE)
        GF(dbl)(&ja, &ja);
    switch (op) {
    case CUZK_GPU_POP_ADD_MIXED:
    case CUZK_GPU_POP_ADD_AFFINE: GF(add)(r, &ja, &jb); break;
    case CUZK_GPU_POP_SUB_MIXED: GF(sub)(r, &ja, &jb); break;
    case CUZK_GPU_POP_ADD:
        GF(dbl)(&jb, &jb);
        GF(add)(r, &ja, &jb);
        break;
    default: GF(dbl)(r, &ja); break;
    }
}
static void GF(test_points)(size_t n) {
    GF(affine) *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    TG *out = malloc(n * sizeof *out), ref, t;
    for (size_t i = 0; i < n; i++) {
        GF(rand_point)(&a[i]);
        GF(rand_point)(&b[i]);
    }
    /* planted cases; ops double a first, so "b = 2a" hits P == Q */
    GF(from_affine)(&t, &a[0]);
    GF(dbl)(&t, &t);
    GF(to_affine)(&b[0], &t);                   /* b = 2a */
    GF(from_affine)(&t, &a[1]);
    GF(dbl)(&t, &t);
    GF(neg)(&t, &t);
    GF(to_affine)(&b[1], &t);                   /* b = -2a */
    b[2] = a[2];                                /* b = a */
    GF(affine_neg)(&b[3], &a[3]);               /* b = -a */
    GF(affine_set_inf)(&a[4]);                  /* a = O */
    GF(affine_set_inf)(&b[5]);                  /* b = O */
    GF(affine_set_inf)(&a[6]);
    GF(affine_set_inf)(&b[6]);                  /* both O */
    cuzk_error err = {0};
    void *da = dev_alloc(n * sizeof *a), *db = dev_alloc(n * sizeof *b);
    void *dout = dev_alloc(n * sizeof *out);
    int ok = da && db && dout &&
             cuzk_gpu_copy_to_device(st, da, a, n * sizeof *a, &err) ==
                 CUZK_OK &&
             cuzk_gpu_copy_to_device(st, db, b, n * sizeof *b, &err) ==
                 CUZK_OK;
    for (int op = 0; ok && op <= CUZK_GPU_POP_ADD_AFFINE; op++) {
        ok = cuzk_gpu_memset(st, dout, 0x5A, n * sizeof *out, &err) ==
                 CUZK_OK &&
             cuzk_gpu_point_op(st, TEST_GPU_CURVE, TEST_GPU_GROUP, (cuzk_gpu_pop)op, da,
                               db, dout, n, &err) == CUZK_OK &&
             cuzk_gpu_copy_to_host(st, out, dout, n * sizeof *out,
                                   &err) == CUZK_OK &&
             cuzk_gpu_stream_sync(st, &err) == CUZK_OK;
        CHECK(ok, TG_NAME " point op %d: %s", op, err.msg);
        size_t bad = 0, first = 0;
        for (size_t i = 0; ok && i < n; i++) {
            GF(expect)(&ref, op, &a[i], &b[i]);
            if (!GF(eq)(&ref, &out[i]) && bad++ == 0)
                first = i;
        }
        CHECK(bad == 0, TG_NAME " point op %d: %zu of %zu wrong (first %zu)",
              op, bad, n, first);
    }
    cuzk_gpu_free(ctx, da);
    cuzk_gpu_free(ctx, db);
    cuzk_gpu_free(ctx, dout);
    free(a);
    free(b);
    free(out);
}

#undef TG_NAME
#undef SF
#undef GF
#undef TS
#undef TG

#endif
