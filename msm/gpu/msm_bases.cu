/*
 * GPU MSM bases (gpu/msm.h: cuzk_gpu_bases_*): affine points uploaded to
 * the device or left in page-locked host memory (msm_run.cu streams those),
 * and precomputed shifted copies of device bases (copy j = 2^(c j) P, so
 * that every window's digits share one bucket set), built on the device
 * by doublings and a batched conversion to affine (msm_kernels.cuh).
 *
 * Must not: allocate outside the context's accounting (cuzk_gpu_dmalloc),
 * abort, or leave a half-built set of copies behind on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dispatch.cuh"
#include "gpu/internal.cuh"
#include "msm/gpu/msm_kernels.cuh"
#include "msm/gpu/msm_plan.h"

template <class G>
__global__ void __launch_bounds__(MSM_ACC_THREADS)
    k_msm_shift_dbl(const typename G::affine *src, size_t n, unsigned c,
                    typename G::xyzz *tmp) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        msm_shift_dbl_one<G>(i, src, c, tmp);
}

template <class G>
__global__ void __launch_bounds__(MSM_ACC_THREADS)
    k_msm_shift_norm(const typename G::xyzz *tmp, size_t n, size_t K,
                     size_t T, typename G::F *pre, typename G::affine *dst) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        msm_shift_norm_one<G>(t, tmp, n, K, pre, dst);
}

/* The window of shifted copies: 8..24 bits whose copies (|pb| bytes per
 * point) fit in |limit| bytes (with |reserve|, an MSM's own default
 * scratch over the n points too), of least cost: one bucket addition per
 * digit (windows x n) plus one bucket set's reduction, 3 per bucket (every
 * window shares the set).  0 when none fits. */
static unsigned msm_choose_shift_c(unsigned r_bits, size_t n, size_t pb,
                                   size_t limit, bool reserve) {
    unsigned best_c = 0;
    double best = 1e300;
    for (unsigned c = MSM_SHIFT_MIN_C; c <= MSM_SHIFT_MAX_C; c++) {
        unsigned w = msm_nwin(r_bits, c);
        double need = (double)(w - 1) * (double)n * (double)pb;
        if (reserve)
            need += (double)msm_default_limit(n, 1) + 512.0 * (1 << 20);
        if (need > (double)limit)
            continue;
        double cost = (double)w * (double)n + 3.0 * (double)(1u << (c - 1));
        if (cost < best) {
            best = cost;
            best_c = c;
        }
    }
    return best_c;
}

/* Bytes of one affine point of (curve, group); 0 for neither. */
static size_t affine_bytes(cuzk_curve curve, cuzk_gpu_group group) {
    size_t pb = 0;
    cuzk_gpu_group_dispatch(curve, group, NULL, "bases", [&](auto t) {
        pb = sizeof(typename decltype(t)::type::affine);
        return CUZK_OK;
    });
    return pb;
}

/* A bases object for n points of (curve, group), checked, with no storage
 * yet; |what| names the caller in messages. */
static cuzk_status bases_new(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                             cuzk_gpu_group group, const void *points,
                             size_t n, const char *what, cuzk_gpu_bases **out,
                             cuzk_error *err) {
    *out = NULL;
    size_t pb = affine_bytes(curve, group);
    if (ctx == NULL || pb == 0 || n == 0 || points == NULL)
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "%s: bad context, curve %d, group %d or n = %zu",
                             what, (int)curve, (int)group, n);
    if (n >= ((size_t)1 << 31))
        return cuzk_gpu_fail(err, CUZK_ERANGE, "%s: n = %zu >= 2^31", what,
                             n);
    cuzk_gpu_bases *b = (cuzk_gpu_bases *)calloc(1, sizeof *b);
    if (b == NULL)
        return cuzk_gpu_fail(err, CUZK_ENOMEM, "out of host memory");
    b->ctx = ctx;
    b->curve = curve;
    b->group = group;
    b->n = n;
    b->point_bytes = pb;
    *out = b;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_bases_upload(cuzk_gpu_ctx *ctx,
                                             cuzk_curve curve,
                                             cuzk_gpu_group group,
                                             const void *points, size_t n,
                                             cuzk_gpu_bases **out,
                                             cuzk_error *err) {
    cuzk_gpu_bases *b;
    cuzk_status st =
        bases_new(ctx, curve, group, points, n, "bases upload", &b, err);
    if (st != CUZK_OK)
        return st;
    size_t bytes = b->point_bytes * n;
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess)
        e = cuzk_gpu_dmalloc(ctx, &b->d_points, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(b->d_points, points, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        if (b->d_points)
            cuzk_gpu_dfree(ctx, b->d_points);
        free(b);
        return cuzk_gpu_cuda_fail(err, e, "bases upload (cudaMalloc/Memcpy)",
                                  __FILE__, __LINE__);
    }
    *out = b;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_bases_host(cuzk_gpu_ctx *ctx,
                                           cuzk_curve curve,
                                           cuzk_gpu_group group,
                                           const void *points, size_t n,
                                           cuzk_gpu_bases **out,
                                           cuzk_error *err) {
    cuzk_status st =
        bases_new(ctx, curve, group, points, n, "host bases", out, err);
    if (st == CUZK_OK)
        (*out)->h_points = points;
    return st;
}

extern "C" void cuzk_gpu_bases_free(cuzk_gpu_bases *b) {
    if (b == NULL)
        return;
    cudaSetDevice(b->ctx->device);
    if (b->d_points)
        cuzk_gpu_dfree(b->ctx, b->d_points);
    if (b->d_shift)
        cuzk_gpu_dfree(b->ctx, b->d_shift);
    free(b);
}

/* Points per chunk of the shifted-copy build (bounds its temporary
 * memory: an XYZZ point and a prefix product per point). */
#define MSM_SHIFT_CHUNK ((size_t)1 << 22)
/* Points per thread sharing one inversion in the conversion to affine. */
#define MSM_SHIFT_K 32

/* Fills |dst| (w - 1 copies of n points) on |cs|: copy j = 2^c copy j-1. */
template <class G>
static cuzk_status shift_build(const cuzk_gpu_bases *b, unsigned c,
                               unsigned w, void *dst, void *tmp,
                               cudaStream_t cs, cuzk_error *err) {
    typedef typename G::xyzz P;
    typedef typename G::affine A;
    typedef typename G::F F;
    size_t n = b->n, chunk = n < MSM_SHIFT_CHUNK ? n : MSM_SHIFT_CHUNK;
    P *q = (P *)tmp;
    F *pre = (F *)(q + chunk);
    for (unsigned j = 1; j < w; j++) {
        const A *src = j == 1 ? (const A *)b->d_points
                              : (const A *)dst + (size_t)(j - 2) * n;
        A *out = (A *)dst + (size_t)(j - 1) * n;
        for (size_t off = 0; off < n; off += chunk) {
            size_t m = n - off < chunk ? n - off : chunk;
            k_msm_shift_dbl<G><<<cuzk_gpu_blocks(m, MSM_ACC_THREADS),
                                 MSM_ACC_THREADS, 0, cs>>>(src + off, m, c, q);
            CUZK_LAUNCHED(err);
            size_t T = (m + MSM_SHIFT_K - 1) / MSM_SHIFT_K;
            k_msm_shift_norm<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                                  MSM_ACC_THREADS, 0, cs>>>(
                q, m, MSM_SHIFT_K, T, pre, out + off);
            CUZK_LAUNCHED(err);
        }
    }
    return CUZK_OK;
}

/* The window |*c| (chosen when 0) and copy count |*w| of shifted copies
 * of |b| within |limit| bytes; |reserve|: leave an MSM's default scratch
 * too (the limit is what the device has free). */
static cuzk_status shift_plan(const cuzk_gpu_bases *b, unsigned r_bits, size_t limit,
                              bool reserve, unsigned *c, unsigned *w, cuzk_error *err) {
    size_t pb = b->point_bytes;
    if (*c == 0) {
        *c = msm_choose_shift_c(r_bits, b->n, pb, limit, reserve);
        if (*c == 0)
            return cuzk_gpu_fail(err, CUZK_ENOMEM,
                                 "bases precompute: shifted copies of %zu "
                                 "points do not fit in %zu MB",
                                 b->n, limit >> 20);
    }
    *w = msm_nwin(r_bits, *c);
    if ((double)*w * (double)b->n >= (double)((size_t)1 << 31))
        return cuzk_gpu_fail(err, CUZK_ERANGE,
                             "bases precompute: %u windows x %zu points >= "
                             "2^31",
                             *w, b->n);
    size_t bytes = (size_t)(*w - 1) * b->n * pb;
    if (bytes > limit)
        return cuzk_gpu_fail(err, CUZK_ENOMEM,
                             "bases precompute: %u copies need %zu MB, limit "
                             "%zu MB",
                             *w - 1, bytes >> 20, limit >> 20);
    return CUZK_OK;
}

/* Allocates the w - 1 copies and builds them (shift_build of G) on a
 * stream of their own, with |tmp_bytes| of temporary memory; on success
 * they become |b|'s, on failure nothing is left allocated. */
template <class G>
static cuzk_status shift_make(cuzk_gpu_bases *b, unsigned c, unsigned w, size_t tmp_bytes,
                              cuzk_error *err) {
    size_t bytes = (size_t)(w - 1) * b->n * b->point_bytes;
    void *dst = NULL, *tmp = NULL;
    cudaStream_t cs = NULL;
    cuzk_status st = CUZK_OK;
    cudaError_t e = cuzk_gpu_dmalloc(b->ctx, &dst, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return cuzk_gpu_fail(err, CUZK_ENOMEM,
                             "bases precompute: out of device memory for "
                             "%zu MB of copies",
                             bytes >> 20);
    }
    if (e == cudaSuccess)
        e = cuzk_gpu_dmalloc(b->ctx, &tmp, tmp_bytes);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        st = cuzk_gpu_cuda_fail(err, e, "bases precompute (allocation)",
                                __FILE__, __LINE__);
    } else {
        st = shift_build<G>(b, c, w, dst, tmp, cs, err);
        e = cudaStreamSynchronize(cs);
        if (st == CUZK_OK && e != cudaSuccess)
            st = cuzk_gpu_cuda_fail(err, e, "bases precompute (kernels)",
                                    __FILE__, __LINE__);
    }
    if (cs)
        cudaStreamDestroy(cs);
    if (tmp)
        cuzk_gpu_dfree(b->ctx, tmp);
    if (st != CUZK_OK) {
        if (dst)
            cuzk_gpu_dfree(b->ctx, dst);
        return st;
    }
    b->d_shift = dst;
    b->shift_c = c;
    b->shift_w = w;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_bases_precompute(cuzk_gpu_bases *b,
                                                 unsigned c, size_t max_bytes,
                                                 cuzk_error *err) {
    if (b == NULL || b->d_points == NULL)
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "bases precompute: %s",
                             b == NULL ? "NULL bases"
                                       : "bases live in host memory");
    if (c != 0 && (c < MSM_SHIFT_MIN_C || c > MSM_SHIFT_MAX_C))
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "bases precompute: window %u outside %d..%d", c,
                             MSM_SHIFT_MIN_C, MSM_SHIFT_MAX_C);
    size_t pb = b->point_bytes, xb = 2 * pb; /* XYZZ = 2 x affine */
    size_t fb = pb / 2;                      /* one coordinate */
    cudaError_t e = cudaSetDevice(b->ctx->device);
    if (e != cudaSuccess)
        return cuzk_gpu_cuda_fail(err, e, "cudaSetDevice", __FILE__, __LINE__);
    /* earlier copies go first: their memory counts as free again */
    if (b->d_shift) {
        cuzk_gpu_dfree(b->ctx, b->d_shift);
        b->d_shift = NULL;
        b->shift_c = b->shift_w = 0;
    }
    size_t chunk = b->n < MSM_SHIFT_CHUNK ? b->n : MSM_SHIFT_CHUNK;
    size_t tmp_bytes = chunk * (xb + fb);
    size_t limit = max_bytes;
    bool reserve = false;
    if (limit == 0) {
        size_t fr = cuzk_gpu_mem_free(b->ctx);
        limit = fr > tmp_bytes ? fr - tmp_bytes : 0;
        reserve = true;
    }
    return cuzk_gpu_group_dispatch(b->curve, b->group, err, "bases precompute", [&](auto t) {
        typedef typename decltype(t)::type G;
        unsigned w;
        cuzk_status st = shift_plan(b, G::R_BITS, limit, reserve, &c, &w, err);
        return st != CUZK_OK ? st : shift_make<G>(b, c, w, tmp_bytes, err);
    });
}

extern "C" unsigned cuzk_gpu_bases_shift_bits(const cuzk_gpu_bases *b) {
    return b && b->d_shift ? b->shift_c : 0;
}

extern "C" size_t cuzk_gpu_bases_count(const cuzk_gpu_bases *b) {
    return b->n;
}

extern "C" size_t cuzk_gpu_bases_bytes(const cuzk_gpu_bases *b) {
    size_t copies = b->d_shift ? (size_t)b->shift_w - 1 : 0;
    return b->d_points ? (1 + copies) * b->n * b->point_bytes : 0;
}

