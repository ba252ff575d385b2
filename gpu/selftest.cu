/*
 * Self-test and measurement kernels of the GPU backend (gpu/selftest.h):
 * element-wise field operations and point operations that tests compare
 * with the CPU code, and the Montgomery-product throughput benchmark that
 * chose between 32-bit and 64-bit limbs.
 *
 * Must not: be used on the proving path (these kernels favour coverage of
 * code paths over speed).
 */
#include <string.h>

#include "gpu/dispatch.cuh"
#include "gpu/internal.cuh"
#include "gpu/selftest.h"

/* ---- element-wise field operations ---------------------------------------- */

template <class C>
__device__ __forceinline__ void mul64(fp_t<C> &r, const fp_t<C> &a,
                                      const fp_t<C> &b) {
    uint64_t A[C::N64], B[C::N64], R[C::N64];
CUZK_UNROLL
    for (int j = 0; j < C::N64; j++) {
        A[j] = ((uint64_t)a.v[2 * j + 1] << 32) | a.v[2 * j];
        B[j] = ((uint64_t)b.v[2 * j + 1] << 32) | b.v[2 * j];
    }
    mont_mul_chain<uint64_t, C::N64>(R, A, B, C::p(), C::n0_64);
CUZK_UNROLL
    for (int j = 0; j < C::N64; j++) {
        r.v[2 * j] = (uint32_t)R[j];
        r.v[2 * j + 1] = (uint32_t)(R[j] >> 32);
    }
}

template <class C>
__device__ __forceinline__ void mul_cios32(fp_t<C> &r, const fp_t<C> &a,
                                           const fp_t<C> &b) {
    mont_mul_chain<uint32_t, C::N32>(r.v, a.v, b.v, fp_p32<C>(), C::n0_32);
}

/* The even/odd product as compiled before (n0 an immediate, operands read
 * in place), for the throughput comparison only. */
template <class C>
__device__ __forceinline__ void mul_eo_prev(fp_t<C> &r, const fp_t<C> &a,
                                            const fp_t<C> &b) {
    mont_mul_eo<uint32_t, C::N32>(r.v, a.v, b.v, fp_p32<C>(), C::n0_32);
}
template <class C>
__device__ __noinline__ void mul_eo_prev_call(fp_t<C> &r, const fp_t<C> &a,
                                              const fp_t<C> &b) {
    mul_eo_prev(r, a, b);
}

template <class C>
__global__ void k_field_op(int op, const fp_t<C> *a, const fp_t<C> *b,
                           fp_t<C> *out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fp_t<C> x = a[i], y = b[i], r;
    switch (op) {
    case CUZK_GPU_FOP_ADD: f_add(r, x, y); break;
    case CUZK_GPU_FOP_SUB: f_sub(r, x, y); break;
    case CUZK_GPU_FOP_MUL: f_mul(r, x, y); break;
    case CUZK_GPU_FOP_SQR: f_sqr(r, x); break;
    case CUZK_GPU_FOP_NEG: f_neg(r, x); break;
    case CUZK_GPU_FOP_MUL64: mul64(r, x, y); break;
    default: mul_cios32(r, x, y); break;
    }
    out[i] = r;
}

template <class C>
static cuzk_status field_op(cuzk_gpu_stream *s, int op, const void *a,
                            const void *b, void *out, size_t n,
                            cuzk_error *err) {
    k_field_op<C><<<cuzk_gpu_blocks(n, 256), 256, 0, s->s>>>(
        op, (const fp_t<C> *)a, (const fp_t<C> *)b, (fp_t<C> *)out, n);
    CUZK_LAUNCHED(err);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_field_op(cuzk_gpu_stream *s,
                                         cuzk_gpu_field field,
                                         cuzk_gpu_fop op, const void *a,
                                         const void *b, void *out, size_t n,
                                         cuzk_error *err) {
    if ((unsigned)op > CUZK_GPU_FOP_MUL_CIOS32 ||
        (unsigned)field > CUZK_GPU_BN254_FR)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "field op %d / field %d",
                             (int)op, (int)field);
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || n == 0)
        return st;
    switch (field) {
    case CUZK_GPU_BLS12_381_FP:
        return field_op<gpu_bls12_381_fp_cfg>(s, op, a, b, out, n, err);
    case CUZK_GPU_BLS12_381_FR:
        return field_op<gpu_bls12_381_fr_cfg>(s, op, a, b, out, n, err);
    case CUZK_GPU_BN254_FP:
        return field_op<gpu_bn254_fp_cfg>(s, op, a, b, out, n, err);
    default:
        return field_op<gpu_bn254_fr_cfg>(s, op, a, b, out, n, err);
    }
}

/* ---- product throughput ------------------------------------------------------ */

#define BENCH_ITERS 4096

/* Each thread runs two independent dependent chains of products (two
 * chains give the scheduler some instruction-level parallelism, as the
 * MSM's independent coordinates do). */
template <class C, int FORM>
__device__ __forceinline__ void bench_mul(fp_t<C> &r, const fp_t<C> &a,
                                          const fp_t<C> &b) {
    if (FORM == CUZK_GPU_MUL_CIOS64)
        mul64(r, a, b);
    else if (FORM == CUZK_GPU_MUL_CIOS32)
        mul_cios32(r, a, b);
    else if (FORM == CUZK_GPU_MUL_EO32_PREV)
        mul_eo_prev(r, a, b);
    else if (FORM == CUZK_GPU_MUL_EO32_CALL)
        f_mul_call(r, a, b);
    else if (FORM == CUZK_GPU_MUL_EO32_CALL_PREV)
        mul_eo_prev_call(r, a, b);
    else
        f_mul(r, a, b);
}

template <class C, int FORM>
__global__ void k_field_bench(const fp_t<C> *in, fp_t<C> *out) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    fp_t<C> a = in[2 * i], b = in[2 * i + 1], c = b;
    for (int k = 0; k < BENCH_ITERS; k++) {
        bench_mul<C, FORM>(a, a, b);
        bench_mul<C, FORM>(c, c, a);
    }
    f_add(a, a, c);
    out[i] = a;
}

template <class C> using field_bench_fn = void (*)(const fp_t<C> *, fp_t<C> *);

/* The bench kernel of product form |form| (EO32 for an unknown one). */
template <class C> static field_bench_fn<C> field_bench_kernel(int form) {
    switch (form) {
    case CUZK_GPU_MUL_CIOS64: return k_field_bench<C, CUZK_GPU_MUL_CIOS64>;
    case CUZK_GPU_MUL_CIOS32: return k_field_bench<C, CUZK_GPU_MUL_CIOS32>;
    case CUZK_GPU_MUL_EO32_PREV: return k_field_bench<C, CUZK_GPU_MUL_EO32_PREV>;
    case CUZK_GPU_MUL_EO32_CALL: return k_field_bench<C, CUZK_GPU_MUL_EO32_CALL>;
    case CUZK_GPU_MUL_EO32_CALL_PREV: return k_field_bench<C, CUZK_GPU_MUL_EO32_CALL_PREV>;
    default: return k_field_bench<C, CUZK_GPU_MUL_EO32>;
    }
}

template <class C>
static cuzk_status field_bench(cuzk_gpu_ctx *ctx, int form, double *rate,
                               cuzk_error *err) {
    field_bench_fn<C> kern = field_bench_kernel<C>(form);
    cuzk_gpu_stream *s = &ctx->dflt;
    const unsigned threads = 256;
    const unsigned blocks = (unsigned)ctx->sm_count * 8;
    size_t n = (size_t)threads * blocks;
    cuzk_status st = cuzk_gpu_scratch(s, sizeof(fp_t<C>) * 3 * n, err);
    if (st != CUZK_OK)
        return st;
    fp_t<C> *in = (fp_t<C> *)s->d_scratch, *out = in + 2 * n;
    /* inputs: Montgomery one; the chain stays a valid element */
    CUZK_CUDA(err, cudaMemsetAsync(in, 0x11, sizeof(fp_t<C>) * 2 * n, s->s));
    cudaEvent_t e0, e1;
    CUZK_CUDA(err, cudaEventCreate(&e0));
    CUZK_CUDA(err, cudaEventCreate(&e1));
    float ms = 0;
    for (int rep = 0; rep < 2; rep++) { /* first run warms up */
        CUZK_CUDA(err, cudaEventRecord(e0, s->s));
        kern<<<blocks, threads, 0, s->s>>>(in, out);
        CUZK_LAUNCHED(err);
        CUZK_CUDA(err, cudaEventRecord(e1, s->s));
        CUZK_CUDA(err, cudaEventSynchronize(e1));
        CUZK_CUDA(err, cudaEventElapsedTime(&ms, e0, e1));
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    *rate = (double)n * 2 * BENCH_ITERS / (ms * 1e-3);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_field_bench(cuzk_gpu_ctx *ctx,
                                            cuzk_gpu_field field,
                                            cuzk_gpu_mul_form form,
                                            double *rate, cuzk_error *err) {
    int f = (int)form;
    if ((unsigned)form > CUZK_GPU_MUL_EO32_CALL_PREV ||
        (unsigned)field > CUZK_GPU_BN254_FR)
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "field bench: form %d or field %d unknown", f,
                             (int)field);
    cuzk_status st = cuzk_gpu_enter(&ctx->dflt, err);
    if (st != CUZK_OK)
        return st;
    switch (field) {
    case CUZK_GPU_BLS12_381_FP:
        return field_bench<gpu_bls12_381_fp_cfg>(ctx, f, rate, err);
    case CUZK_GPU_BLS12_381_FR:
        return field_bench<gpu_bls12_381_fr_cfg>(ctx, f, rate, err);
    case CUZK_GPU_BN254_FP:
        return field_bench<gpu_bn254_fp_cfg>(ctx, f, rate, err);
    default:
        return field_bench<gpu_bn254_fr_cfg>(ctx, f, rate, err);
    }
}

/* ---- point operations ---------------------------------------------------------- */

template <class G>
__global__ void k_point_op(int op, const typename G::affine *a,
                           const typename G::affine *b, typename G::F *out,
                           size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    typename G::xyzz p, q;
    /* Operands are copied out of global memory before they are passed by
     * reference to the called (not inlined) formulas. */
    typename G::affine pa = a[i], pb = b[i];
    pt_from_affine(p, pa);
    if (op != CUZK_GPU_POP_ADD_AFFINE)
        pt_dbl(p, p);
    switch (op) {
    case CUZK_GPU_POP_ADD_MIXED:
    case CUZK_GPU_POP_ADD_AFFINE: pt_add_affine(p, pb, false); break;
    case CUZK_GPU_POP_SUB_MIXED: pt_add_affine(p, pb, true); break;
    case CUZK_GPU_POP_ADD:
        pt_from_affine(q, pb);
        pt_dbl(q, q);
        pt_add(p, q);
        break;
    default: pt_dbl(p, p); break;
    }
    /* through a local too: the called formulas only ever see local
     * objects (see the operand copies above) */
    typename G::F jac[3];
    pt_to_jacobian(jac, p);
    out[3 * i] = jac[0];
    out[3 * i + 1] = jac[1];
    out[3 * i + 2] = jac[2];
}

template <class G>
static cuzk_status point_op(cuzk_gpu_stream *s, int op, const void *a,
                            const void *b, void *out, size_t n,
                            cuzk_error *err) {
    k_point_op<G><<<cuzk_gpu_blocks(n, 128), 128, 0, s->s>>>(
        op, (const typename G::affine *)a, (const typename G::affine *)b,
        (typename G::F *)out, n);
    CUZK_LAUNCHED(err);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_point_op(cuzk_gpu_stream *s,
                                         cuzk_curve curve,
                                         cuzk_gpu_group group,
                                         cuzk_gpu_pop op, const void *a,
                                         const void *b, void *out, size_t n,
                                         cuzk_error *err) {
    if ((unsigned)op > CUZK_GPU_POP_ADD_AFFINE)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "point op %d", (int)op);
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || n == 0)
        return st;
    return cuzk_gpu_group_dispatch(curve, group, err, "point op", [&](auto t) {
        return point_op<typename decltype(t)::type>(s, op, a, b, out, n, err);
    });
}
