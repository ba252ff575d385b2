/*
 * cuzk GPU backend, self-tests and measurement hooks: kernels that apply one
 * field or point operation element-wise (to test the device arithmetic
 * against the CPU code), the throughput of each form of the Montgomery
 * product (including the CIOS loops kept only for comparison with the one
 * the kernels use), and the tuning overrides of a context.  Implemented in
 * gpu/selftest.cu (ctx_tune in gpu/device.cu).
 *
 * Must not: be included by the library's production code (engine/,
 * groth16/, server/, cli/ proving paths); tests and bench/ only.
 */
#ifndef CUZK_GPU_SELFTEST_H
#define CUZK_GPU_SELFTEST_H

#include <stddef.h>

#include "gpu/runtime.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_gpu_field {
    CUZK_GPU_BLS12_381_FP = 0,
    CUZK_GPU_BLS12_381_FR = 1,
    CUZK_GPU_BN254_FP = 2,
    CUZK_GPU_BN254_FR = 3
} cuzk_gpu_field;

/*
 * Tuning overrides for measurements (not thread safe against concurrent
 * MSM/NTT calls on |ctx|): |msm_window| forces the MSM window size in bits
 * (2..22, 0 = automatic), |ntt_log_radix| is ignored (the NTT's pass plan
 * is fixed by its tile size, ntt/gpu/ntt_kernels.cuh), |profile| != 0
 * prints per-phase MSM times to stderr (adds a synchronisation per phase).
 */
void cuzk_gpu_ctx_tune(cuzk_gpu_ctx *ctx, unsigned msm_window,
                       unsigned ntt_log_radix, int profile);

/* MSM bucket accumulation of |ctx| (same caveat): |affine| != 0 selects
 * the batch-affine levels (msm/gpu/msm_affine.cuh), 0 the XYZZ additions
 * (the default; CUZK_GPU_MSM_ACCUM=affine at context creation sets it). */
void cuzk_gpu_ctx_msm_accum(cuzk_gpu_ctx *ctx, int affine);

/* Bit-scalar sums of |ctx| (same caveat): |on| != 0 (the default;
 * CUZK_GPU_MSM_ONES=0 at context creation clears it) sums the bases of
 * scalars equal to 1 outside Pippenger, without sorting them
 * (msm/gpu/msm_kernels.cuh); 0 sends them through Pippenger. */
void cuzk_gpu_ctx_msm_ones(cuzk_gpu_ctx *ctx, int on);

typedef enum cuzk_gpu_fop {
    CUZK_GPU_FOP_ADD = 0,
    CUZK_GPU_FOP_SUB = 1,
    CUZK_GPU_FOP_MUL = 2,
    CUZK_GPU_FOP_SQR = 3,
    CUZK_GPU_FOP_NEG = 4,
    CUZK_GPU_FOP_MUL64 = 5,      /* product by CIOS on 64-bit words */
    CUZK_GPU_FOP_MUL_CIOS32 = 6  /* product by CIOS on 32-bit words */
} cuzk_gpu_fop;

/* d_out[i] = op(d_a[i], d_b[i]) for i < n (device arrays of elements of
 * |field|); for testing the device arithmetic against field/field.h. */
cuzk_status cuzk_gpu_field_op(cuzk_gpu_stream *s, cuzk_gpu_field field,
                              cuzk_gpu_fop op, const void *d_a,
                              const void *d_b, void *d_out, size_t n,
                              cuzk_error *err);

/* Forms of the device Montgomery product (field/gpu/mont.cuh): the one the
 * kernels use (32-bit words, even/odd accumulators), two CIOS loops kept
 * for comparison, the even/odd product as it was compiled before n0 came
 * from constant memory and the operands were copied up front ("prev": n0
 * an immediate, operands read in place), and both even/odd forms through a
 * called (not inlined) function, as the MSM's XYZZ formulas use it. */
typedef enum cuzk_gpu_mul_form {
    CUZK_GPU_MUL_EO32 = 0,
    CUZK_GPU_MUL_CIOS32 = 1,
    CUZK_GPU_MUL_CIOS64 = 2,
    CUZK_GPU_MUL_EO32_PREV = 3,
    CUZK_GPU_MUL_EO32_CALL = 4,
    CUZK_GPU_MUL_EO32_CALL_PREV = 5
} cuzk_gpu_mul_form;

/* Throughput of Montgomery products of |form| in a dependent-chain kernel
 * filling the device, in products per second.  Synchronous; takes about
 * 0.1-1 s. */
cuzk_status cuzk_gpu_field_bench(cuzk_gpu_ctx *ctx, cuzk_gpu_field field,
                                 cuzk_gpu_mul_form form,
                                 double *products_per_s, cuzk_error *err);

typedef enum cuzk_gpu_pop {
    CUZK_GPU_POP_ADD_MIXED = 0, /* 2a + b:  dbl(xyzz(a)), then mixed add b  */
    CUZK_GPU_POP_SUB_MIXED = 1, /* 2a - b:  same with the negated b         */
    CUZK_GPU_POP_ADD = 2,       /* 2a + 2b: XYZZ + XYZZ, both Z non-trivial  */
    CUZK_GPU_POP_DBL = 3,       /* 4a:      two XYZZ doublings              */
    CUZK_GPU_POP_ADD_AFFINE = 4 /* a + b:   xyzz(a) (Z = 1) + mixed b        */
} cuzk_gpu_pop;

/* d_out[i] (Jacobian) = op(d_a[i], d_b[i]) (affine inputs) for i < n. */
cuzk_status cuzk_gpu_point_op(cuzk_gpu_stream *s, cuzk_curve curve,
                              cuzk_gpu_group group, cuzk_gpu_pop op,
                              const void *d_a, const void *d_b, void *d_out,
                              size_t n, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
