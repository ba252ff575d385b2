/*
 * Kernels of the GPU Groth16 prover (groth16/prover/prove_gpu.c) and the small
 * stream utilities it needs (gpu/prove.h: cuzk_gpu_fr_*, cuzk_gpu_spmv;
 * gpu/runtime.h: cuzk_gpu_event_*, cuzk_gpu_host_register).
 *
 * Everything here is element-wise or row-wise over Fr and memory bound: a
 * 2^24-row product of the A or B matrix reads ~1.5 GB (values, columns and
 * the gathered witness) and costs a few milliseconds on an H200, against
 * hundreds for the MSMs, so the kernels are plain and favour coalesced
 * access over cleverness.
 *
 * Must not: allocate, or synchronise a stream (the prover decides where a
 * proof waits).
 */
#include <stdint.h>

#include "field/gpu/mont.cuh"
#include "gpu/dispatch.cuh"
#include "gpu/internal.cuh"
#include "gpu/prove.h"

#define FR_THREADS 256

/* out[i] = in[i] * R (Montgomery form) for plain in[i] < r; the smallest
 * index holding a value >= r is written to *bad (which the caller set to
 * UINT32_MAX). */
template <class C>
__global__ void k_fr_from_plain(const fp_t<C> *in, fp_t<C> *out, size_t n,
                                uint32_t *bad) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fp_t<C> x = in[i];
    const uint32_t *p = fp_p32<C>();
    bool ge = true; /* x == r counts as out of range */
    for (int j = C::N32 - 1; j >= 0; j--)
        if (x.v[j] != p[j]) {
            ge = x.v[j] > p[j];
            break;
        }
    if (ge) {
        atomicMin(bad, (uint32_t)i);
        f_set_zero(x);
    }
    f_to_mont(out[i], x);
}

/* y[i] = sum_k vals[k] x[cols[k]] over row i's entries (CSR).  One thread
 * per row: rows of circom and generated circuits hold a few entries; the
 * occasional long linear-combination row costs one slow thread. */
template <class C>
__global__ void k_spmv(const uint32_t *row_ptr, const uint32_t *cols,
                       const fp_t<C> *vals, const fp_t<C> *x, fp_t<C> *y,
                       size_t rows) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    fp_t<C> acc, t;
    f_set_zero(acc);
    for (uint32_t k = row_ptr[i], e = row_ptr[i + 1]; k < e; k++) {
        f_mul(t, vals[k], x[cols[k]]);
        f_add(acc, acc, t);
    }
    y[i] = acc;
}

/* out = a * b (c NULL) or out = a * b - c. */
template <class C>
__global__ void k_fr_mul_sub(fp_t<C> *out, const fp_t<C> *a,
                             const fp_t<C> *b, const fp_t<C> *c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fp_t<C> t;
    f_mul(t, a[i], b[i]);
    if (c)
        f_sub(t, t, c[i]);
    out[i] = t;
}

extern "C" cuzk_status cuzk_gpu_fr_from_plain(cuzk_gpu_stream *s,
                                              cuzk_curve curve,
                                              void *d_out, const void *d_in,
                                              size_t n, uint32_t *d_bad,
                                              cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || n == 0)
        return st;
    if (n > UINT32_MAX)
        return cuzk_gpu_fail(err, CUZK_ERANGE, "fr_from_plain: n = %zu", n);
    unsigned blocks = cuzk_gpu_blocks(n, FR_THREADS);
    return cuzk_gpu_dispatch(curve, err, "fr_from_plain", [&](auto t) {
        typedef typename decltype(t)::fr C;
        k_fr_from_plain<C><<<blocks, FR_THREADS, 0, s->s>>>(
            (const fp_t<C> *)d_in, (fp_t<C> *)d_out, n, d_bad);
        CUZK_LAUNCHED(err);
        return CUZK_OK;
    });
}

extern "C" cuzk_status cuzk_gpu_spmv(cuzk_gpu_stream *s, cuzk_curve curve,
                                     const uint32_t *d_row_ptr,
                                     const uint32_t *d_cols,
                                     const void *d_vals, size_t rows,
                                     const void *d_x, void *d_y,
                                     cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || rows == 0)
        return st;
    unsigned blocks = cuzk_gpu_blocks(rows, FR_THREADS);
    return cuzk_gpu_dispatch(curve, err, "spmv", [&](auto t) {
        typedef typename decltype(t)::fr C;
        k_spmv<C><<<blocks, FR_THREADS, 0, s->s>>>(
            d_row_ptr, d_cols, (const fp_t<C> *)d_vals, (const fp_t<C> *)d_x,
            (fp_t<C> *)d_y, rows);
        CUZK_LAUNCHED(err);
        return CUZK_OK;
    });
}

extern "C" cuzk_status cuzk_gpu_fr_mul_sub(cuzk_gpu_stream *s,
                                           cuzk_curve curve, void *d_out,
                                           const void *d_a, const void *d_b,
                                           const void *d_c, size_t n,
                                           cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || n == 0)
        return st;
    unsigned blocks = cuzk_gpu_blocks(n, FR_THREADS);
    return cuzk_gpu_dispatch(curve, err, "fr_mul_sub", [&](auto t) {
        typedef typename decltype(t)::fr C;
        k_fr_mul_sub<C><<<blocks, FR_THREADS, 0, s->s>>>(
            (fp_t<C> *)d_out, (const fp_t<C> *)d_a, (const fp_t<C> *)d_b,
            (const fp_t<C> *)d_c, n);
        CUZK_LAUNCHED(err);
        return CUZK_OK;
    });
}

/* ---- events ------------------------------------------------------------ */

struct cuzk_gpu_event {
    cuzk_gpu_ctx *ctx;
    cudaEvent_t e;
};

extern "C" cuzk_status cuzk_gpu_event_create(cuzk_gpu_ctx *ctx,
                                             cuzk_gpu_event **ev,
                                             cuzk_error *err) {
    *ev = NULL;
    CUZK_CUDA(err, cudaSetDevice(ctx->device));
    cuzk_gpu_event *e = (cuzk_gpu_event *)calloc(1, sizeof *e);
    if (e == NULL)
        return cuzk_gpu_fail(err, CUZK_ENOMEM, "out of host memory");
    e->ctx = ctx;
    cudaError_t ce = cudaEventCreate(&e->e);
    if (ce != cudaSuccess) {
        free(e);
        return cuzk_gpu_cuda_fail(err, ce, "cudaEventCreate", __FILE__,
                                  __LINE__);
    }
    *ev = e;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_event_destroy(cuzk_gpu_event *ev) {
    if (ev == NULL)
        return;
    cudaSetDevice(ev->ctx->device);
    cudaEventDestroy(ev->e);
    free(ev);
}

extern "C" cuzk_status cuzk_gpu_event_record(cuzk_gpu_event *ev,
                                             cuzk_gpu_stream *s,
                                             cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    CUZK_CUDA(err, cudaEventRecord(ev->e, s->s));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_stream_wait_event(cuzk_gpu_stream *s,
                                                  cuzk_gpu_event *ev,
                                                  cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    CUZK_CUDA(err, cudaStreamWaitEvent(s->s, ev->e, 0));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_event_elapsed_us(const cuzk_gpu_event *from,
                                                 const cuzk_gpu_event *to,
                                                 double *us,
                                                 cuzk_error *err) {
    float ms = 0;
    *us = 0;
    CUZK_CUDA(err, cudaSetDevice(from->ctx->device));
    CUZK_CUDA(err, cudaEventSynchronize(to->e));
    CUZK_CUDA(err, cudaEventElapsedTime(&ms, from->e, to->e));
    *us = (double)ms * 1000.0;
    return CUZK_OK;
}

/* ---- page-locking caller memory ----------------------------------------- */

extern "C" cuzk_status cuzk_gpu_host_register(cuzk_gpu_ctx *ctx, void *p,
                                              size_t bytes, cuzk_error *err) {
    CUZK_CUDA(err, cudaSetDevice(ctx->device));
    CUZK_CUDA(err, cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    return CUZK_OK;
}

extern "C" void cuzk_gpu_host_unregister(cuzk_gpu_ctx *ctx, void *p) {
    cudaSetDevice(ctx->device);
    if (cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError();
}
