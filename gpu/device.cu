/*
 * Device selection, contexts, streams, memory helpers and error mapping of
 * the GPU backend (gpu/runtime.h; the tuning overrides of gpu/selftest.h).
 *
 * Every CUDA runtime call is checked with CUZK_CUDA, which turns a failure
 * into CUZK_EGPU with file:line, the expression and CUDA's text.  Nothing
 * here aborts.  Scratch memory belongs to a stream and only grows, so an
 * engine that runs the same proof shapes again allocates nothing after the
 * first proof (docs/ENGINE.md).
 *
 * Must not: launch kernels (they live in ntt/gpu, msm/gpu, gpu/selftest.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/internal.cuh"
#include "gpu/selftest.h"

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

cuzk_status cuzk_gpu_cuda_fail(cuzk_error *err, cudaError_t e,
                               const char *expr, const char *file, int line) {
    /* Clear a non-sticky error (e.g. out of memory) so that the launch check
     * after the next kernel does not report it again. */
    (void)cudaGetLastError();
    return cuzk_fail(err, CUZK_EGPU, "%s:%d: %s: %s (%s)", base_name(file),
                     line, expr, cudaGetErrorString(e), cudaGetErrorName(e));
}

extern "C" cuzk_status cuzk_gpu_device_probe(int *count, cuzk_error *err) {
    int n = 0;
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice) { /* the driver works and sees no device */
        (void)cudaGetLastError();
        return CUZK_OK;
    }
    int driver = -1;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
        driver == 0) {
        /* No driver at all (CUDA reports version 0 when libcuda is not
         * installed): a machine without a GPU, not a broken driver. */
        (void)cudaGetLastError();
        return cuzk_gpu_fail(err, CUZK_ENOTFOUND,
                             "no GPU found: no NVIDIA driver is installed");
    }
    if (e != cudaSuccess) {
        /* A mismatched driver, a device the driver cannot
         * initialise: not "no GPU", and the caller must be able to say so. */
        (void)cudaGetLastError(); /* clear it so later calls work */
        return cuzk_gpu_fail(err, CUZK_EGPU, "cudaGetDeviceCount: %s (%s)",
                             cudaGetErrorString(e), cudaGetErrorName(e));
    }
    *count = n;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_device_count(void) {
    int n;
    return cuzk_gpu_device_probe(&n, NULL) == CUZK_OK ? n : 0;
}

extern "C" cuzk_status cuzk_gpu_device_query(int device,
                                             cuzk_gpu_device_info *info,
                                             cuzk_error *err) {
    int count = cuzk_gpu_device_count();
    if (device < 0 || device >= count)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "no GPU device %d (%d present)",
                             device, count);
    cudaDeviceProp p;
    CUZK_CUDA(err, cudaGetDeviceProperties(&p, device));
    CUZK_CUDA(err, cudaSetDevice(device));
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA(err, cudaMemGetInfo(&free_b, &total_b));
    memset(info, 0, sizeof *info);
    info->index = device;
    snprintf(info->name, sizeof info->name, "%.127s", p.name);
    info->total_mem_bytes = total_b;
    info->free_mem_bytes = free_b;
    info->sm_count = p.multiProcessorCount;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->l2_bytes = (size_t)p.l2CacheSize;
    return CUZK_OK;
}

cuzk_status cuzk_gpu_enter(cuzk_gpu_stream *s, cuzk_error *err) {
    if (s == NULL || s->ctx == NULL)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "NULL GPU stream");
    CUZK_CUDA(err, cudaSetDevice(s->ctx->device));
    return CUZK_OK;
}

static cuzk_status stream_init(cuzk_gpu_stream *s, cuzk_gpu_ctx *ctx,
                               cuzk_error *err) {
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    CUZK_CUDA(err, cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking));
    return CUZK_OK;
}

static void stream_release(cuzk_gpu_stream *s) {
    cudaSetDevice(s->ctx->device);
    if (s->s)
        cudaStreamSynchronize(s->s);
    if (s->d_scratch && !s->shared)
        cuzk_gpu_dfree(s->ctx, s->d_scratch);
    if (s->d_small)
        cuzk_gpu_dfree(s->ctx, s->d_small);
    s->d_small = NULL;
    if (s->h_scratch)
        cudaFreeHost(s->h_scratch);
    for (int i = 0; i < CUZK_GPU_MAX_EVENTS; i++)
        if (s->ev[i])
            cudaEventDestroy(s->ev[i]);
    if (s->copy_s) {
        cudaStreamSynchronize(s->copy_s);
        cudaStreamDestroy(s->copy_s);
        for (int k = 0; k < 2; k++) {
            cudaEventDestroy(s->stage_full[k]);
            cudaEventDestroy(s->stage_free[k]);
            cudaEventDestroy(s->sc_full[k]);
            cudaEventDestroy(s->sc_free[k]);
        }
    }
    if (s->s)
        cudaStreamDestroy(s->s);
    s->d_scratch = s->h_scratch = NULL;
    s->scratch_bytes = s->h_scratch_bytes = 0;
}

extern "C" cuzk_status cuzk_gpu_ctx_create(int device, cuzk_gpu_ctx **out,
                                           cuzk_error *err) {
    *out = NULL;
    int count = cuzk_gpu_device_count();
    if (device < 0 || device >= count)
        return cuzk_gpu_fail(err, CUZK_EGPU, "no GPU device %d (%d present)",
                             device, count);
    cuzk_gpu_ctx *ctx = (cuzk_gpu_ctx *)calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return cuzk_gpu_fail(err, CUZK_ENOMEM, "out of host memory");
    ctx->device = device;
    /* CUZK_GPU_MSM_ACCUM=affine selects the batch-affine MSM accumulation
     * (msm/gpu/msm_affine.cuh) for this context; xyzz (default) the other */
    const char *accum = getenv("CUZK_GPU_MSM_ACCUM");
    ctx->msm_affine = accum != NULL && strcmp(accum, "affine") == 0;
    /* CUZK_GPU_MSM_ONES=0 sends scalars equal to 1 through Pippenger like
     * the others (for measuring the bit-scalar sums against it) */
    const char *ones = getenv("CUZK_GPU_MSM_ONES");
    ctx->msm_ones = ones == NULL || strcmp(ones, "0") != 0;
    const char *minb = getenv("CUZK_GPU_MSM_ACC_MINB");
    ctx->msm_acc_minb = minb ? atoi(minb) : 0;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&ctx->sm_count,
                                   cudaDevAttrMultiProcessorCount, device);
    /* The point formulas are called functions; for G2 of BLS12-381 the
     * deepest call paths need 1.7-2.4 KB of stack per thread (e.g. kernel ->
     * mixed addition -> affine doubling -> Fp2 product = 2112 B), above the
     * 1 KB default.  The G2 self-test kernel faulted on the H200 exactly on
     * its 2112-byte path, so the limit is raised explicitly (device-wide;
     * reserves about 4 KB x resident threads, ~1.1 GB on an H200). */
    size_t stack = 0;
    if (e == cudaSuccess)
        e = cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    /* CUZK_GPU_STACK_BYTES in the environment raises it further (for
     * diagnosing a suspected stack overflow). */
    size_t want = CUZK_GPU_STACK_BYTES;
    const char *env = getenv("CUZK_GPU_STACK_BYTES");
    if (env && strtoul(env, NULL, 10) > want)
        want = strtoul(env, NULL, 10);
    if (e == cudaSuccess && stack < want)
        e = cudaDeviceSetLimit(cudaLimitStackSize, want);
    if (e != cudaSuccess) {
        free(ctx);
        return cuzk_gpu_cuda_fail(err, e, "cudaSetDevice/attributes/stack",
                                  __FILE__, __LINE__);
    }
    cuzk_status st = stream_init(&ctx->dflt, ctx, err);
    if (st != CUZK_OK) {
        free(ctx);
        return st;
    }
    ctx->dflt.is_default = 1;
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->mem_lock, NULL);
    *out = ctx;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_ctx_destroy(cuzk_gpu_ctx *ctx) {
    if (ctx == NULL)
        return;
    stream_release(&ctx->dflt);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k <= CUZK_GPU_MAX_LOG_NTT; k++)
            if (ctx->d_twiddles[c][k])
                cuzk_gpu_dfree(ctx, ctx->d_twiddles[c][k]);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->mem_lock);
    free(ctx->allocs);
    free(ctx);
}

extern "C" cuzk_gpu_stream *cuzk_gpu_ctx_stream(cuzk_gpu_ctx *ctx) {
    return &ctx->dflt;
}

extern "C" size_t cuzk_gpu_ctx_cached_bytes(const cuzk_gpu_ctx *ctx) {
    return ctx->cached_bytes;
}

extern "C" void cuzk_gpu_ctx_tune(cuzk_gpu_ctx *ctx, unsigned msm_window,
                                  unsigned ntt_log_radix, int profile) {
    ctx->msm_window = msm_window <= 22 ? msm_window : 22;
    ctx->ntt_log_radix = ntt_log_radix <= 4 ? ntt_log_radix : 4;
    ctx->profile = profile;
}

extern "C" void cuzk_gpu_ctx_msm_accum(cuzk_gpu_ctx *ctx, int affine) {
    ctx->msm_affine = affine != 0;
}

extern "C" void cuzk_gpu_ctx_msm_ones(cuzk_gpu_ctx *ctx, int on) {
    ctx->msm_ones = on != 0;
}

extern "C" cuzk_status cuzk_gpu_stream_create(cuzk_gpu_ctx *ctx,
                                              cuzk_gpu_stream **out,
                                              cuzk_error *err) {
    *out = NULL;
    cuzk_gpu_stream *s = (cuzk_gpu_stream *)calloc(1, sizeof *s);
    if (s == NULL)
        return cuzk_gpu_fail(err, CUZK_ENOMEM, "out of host memory");
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess) {
        free(s);
        return cuzk_gpu_cuda_fail(err, e, "cudaSetDevice", __FILE__,
                                  __LINE__);
    }
    cuzk_status st = stream_init(s, ctx, err);
    if (st != CUZK_OK) {
        free(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_stream_destroy(cuzk_gpu_stream *s) {
    if (s == NULL || s->is_default)
        return;
    stream_release(s);
    free(s);
}

extern "C" cuzk_status cuzk_gpu_stream_sync(cuzk_gpu_stream *s,
                                            cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    CUZK_CUDA(err, cudaStreamSynchronize(s->s));
    return CUZK_OK;
}

extern "C" size_t cuzk_gpu_stream_scratch_bytes(const cuzk_gpu_stream *s) {
    return s->shared ? s->shared->bytes : s->scratch_bytes;
}

/* Grow |*d| (holding |*have| bytes) to at least |bytes|, after the work
 * queued on |s| is done. */
static cuzk_status arena_grow(cuzk_gpu_stream *s, void **d, size_t *have, size_t bytes,
                              cuzk_error *err) {
    if (bytes <= *have)
        return CUZK_OK;
    /* Exactly what was asked: an MSM plans its scratch within a limit (a
     * device-memory cap the prover keeps), and headroom on top broke it
     * (test_gpu_msm, H200, 2026-12-04); provers reserve their sizes
     * up front, so growth in small steps does not happen in steady state. */
    size_t want = bytes;
    CUZK_CUDA(err, cudaStreamSynchronize(s->s));
    if (*d) {
        cuzk_gpu_dfree(s->ctx, *d);
        *d = NULL;
        *have = 0;
    }
    CUZK_CUDA(err, cuzk_gpu_dmalloc(s->ctx, d, want));
    *have = want;
    return CUZK_OK;
}

cuzk_status cuzk_gpu_scratch(cuzk_gpu_stream *s, size_t bytes,
                             cuzk_error *err) {
    if (!s->shared)
        return arena_grow(s, &s->d_scratch, &s->scratch_bytes, bytes, err);
    cuzk_gpu_shared_scratch *a = s->shared;
    cuzk_status st = arena_grow(s, &a->d, &a->bytes, bytes, err);
    s->d_scratch = a->d; /* another stream may have grown it */
    s->scratch_bytes = a->bytes;
    return st;
}

extern "C" cuzk_status cuzk_gpu_shared_scratch_create(cuzk_gpu_ctx *ctx, cuzk_gpu_shared_scratch **out,
                                             cuzk_error *err) {
    *out = (cuzk_gpu_shared_scratch *)calloc(1, sizeof **out);
    if (*out == NULL)
        return cuzk_gpu_fail(err, CUZK_ENOMEM, "out of host memory");
    (*out)->ctx = ctx;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_shared_scratch_free(cuzk_gpu_shared_scratch *a) {
    if (a == NULL)
        return;
    if (a->d) {
        cudaSetDevice(a->ctx->device);
        cuzk_gpu_dfree(a->ctx, a->d);
    }
    free(a);
}

extern "C" size_t cuzk_gpu_shared_scratch_bytes(const cuzk_gpu_shared_scratch *a) {
    return a ? a->bytes : 0;
}

extern "C" void cuzk_gpu_stream_share_scratch(cuzk_gpu_stream *s, cuzk_gpu_shared_scratch *a) {
    if (s->shared == a)
        return;
    cudaSetDevice(s->ctx->device);
    cudaStreamSynchronize(s->s);
    if (s->d_scratch && !s->shared)
        cuzk_gpu_dfree(s->ctx, s->d_scratch);
    if (s->d_small)
        cuzk_gpu_dfree(s->ctx, s->d_small);
    s->d_small = NULL;
    s->shared = a;
    /* the view is set by the next cuzk_gpu_scratch, under the sharers'
     * own exclusion (a run in progress may be growing the arena now) */
    s->d_scratch = NULL;
    s->scratch_bytes = 0;
}

extern "C" int cuzk_gpu_ctx_device(const cuzk_gpu_ctx *ctx) {
    return ctx->device;
}

cuzk_status cuzk_gpu_copy_stream(cuzk_gpu_stream *s, cuzk_error *err) {
    if (s->copy_s)
        return CUZK_OK;
    CUZK_CUDA(err, cudaStreamCreateWithFlags(&s->copy_s, cudaStreamNonBlocking));
    for (int k = 0; k < 2; k++) {
        CUZK_CUDA(err, cudaEventCreateWithFlags(&s->stage_full[k], cudaEventDisableTiming));
        CUZK_CUDA(err, cudaEventCreateWithFlags(&s->stage_free[k], cudaEventDisableTiming));
        CUZK_CUDA(err, cudaEventCreateWithFlags(&s->sc_full[k], cudaEventDisableTiming));
        CUZK_CUDA(err, cudaEventCreateWithFlags(&s->sc_free[k], cudaEventDisableTiming));
    }
    return CUZK_OK;
}

extern "C" void cuzk_gpu_stream_set_msm_limit(cuzk_gpu_stream *s, size_t bytes) {
    s->msm_limit = bytes;
}

extern "C" size_t cuzk_gpu_stream_msm_limit(const cuzk_gpu_stream *s) {
    return s->msm_limit;
}

cuzk_status cuzk_gpu_host_scratch(cuzk_gpu_stream *s, size_t bytes,
                                  cuzk_error *err) {
    if (bytes <= s->h_scratch_bytes)
        return CUZK_OK;
    CUZK_CUDA(err, cudaStreamSynchronize(s->s));
    if (s->h_scratch) {
        CUZK_CUDA(err, cudaFreeHost(s->h_scratch));
        s->h_scratch = NULL;
        s->h_scratch_bytes = 0;
    }
    CUZK_CUDA(err, cudaMallocHost(&s->h_scratch, bytes));
    s->h_scratch_bytes = bytes;
    return CUZK_OK;
}

/* ---- memory helpers --------------------------------------------------------- */

extern "C" cuzk_status cuzk_gpu_malloc(cuzk_gpu_ctx *ctx, size_t bytes,
                                       void **d_ptr, cuzk_error *err) {
    *d_ptr = NULL;
    CUZK_CUDA(err, cudaSetDevice(ctx->device));
    /* named as the CUDA call it stands for, so that the message tells a
     * user what failed (cudaMalloc, or the context's cap refusing it) */
    cudaError_t e = cuzk_gpu_dmalloc(ctx, d_ptr, bytes ? bytes : 1);
    if (e != cudaSuccess)
        return cuzk_gpu_cuda_fail(err, e, "cudaMalloc (through the context's accounting)",
                                  __FILE__, __LINE__);
    return CUZK_OK;
}

extern "C" void cuzk_gpu_free(cuzk_gpu_ctx *ctx, void *d_ptr) {
    if (d_ptr == NULL)
        return;
    cudaSetDevice(ctx->device);
    cuzk_gpu_dfree(ctx, d_ptr);
}

/* ---- device memory accounting ------------------------------------------------ */

cudaError_t cuzk_gpu_dmalloc(cuzk_gpu_ctx *ctx, void **p, size_t bytes) {
    *p = NULL;
    pthread_mutex_lock(&ctx->mem_lock);
    if (ctx->mem_limit && (bytes > ctx->mem_limit ||
                           ctx->mem_used > ctx->mem_limit - bytes)) {
        pthread_mutex_unlock(&ctx->mem_lock);
        return cudaErrorMemoryAllocation; /* as a device of that size */
    }
    if (ctx->n_allocs == ctx->cap_allocs) {
        size_t cap = ctx->cap_allocs ? 2 * ctx->cap_allocs : 64;
        cuzk_gpu_alloc *t = (cuzk_gpu_alloc *)realloc(ctx->allocs, cap * sizeof *t);
        if (t == NULL) {
            pthread_mutex_unlock(&ctx->mem_lock);
            return cudaErrorMemoryAllocation;
        }
        ctx->allocs = t;
        ctx->cap_allocs = cap;
    }
    /* charged before the call so concurrent requests cannot pass the cap
     * together; given back if CUDA refuses */
    ctx->mem_used += bytes;
    size_t slot = ctx->n_allocs++;
    ctx->allocs[slot].p = NULL;
    ctx->allocs[slot].bytes = bytes;
    pthread_mutex_unlock(&ctx->mem_lock);
    cudaError_t e = cudaMalloc(p, bytes);
    pthread_mutex_lock(&ctx->mem_lock);
    /* the table may have moved: find the reserved slot again */
    for (size_t i = ctx->n_allocs; i-- > 0;)
        if (ctx->allocs[i].p == NULL && ctx->allocs[i].bytes == bytes) {
            if (e == cudaSuccess) {
                ctx->allocs[i].p = *p;
            } else {
                ctx->allocs[i] = ctx->allocs[--ctx->n_allocs];
                ctx->mem_used -= bytes;
            }
            break;
        }
    if (ctx->mem_used > ctx->mem_peak)
        ctx->mem_peak = ctx->mem_used;
    pthread_mutex_unlock(&ctx->mem_lock);
    if (e != cudaSuccess)
        *p = NULL;
    return e;
}

void cuzk_gpu_dfree(cuzk_gpu_ctx *ctx, void *p) {
    if (p == NULL)
        return;
    cudaFree(p);
    pthread_mutex_lock(&ctx->mem_lock);
    for (size_t i = 0; i < ctx->n_allocs; i++)
        if (ctx->allocs[i].p == p) {
            ctx->mem_used -= ctx->allocs[i].bytes;
            ctx->allocs[i] = ctx->allocs[--ctx->n_allocs];
            break;
        }
    pthread_mutex_unlock(&ctx->mem_lock);
}

size_t cuzk_gpu_mem_free(cuzk_gpu_ctx *ctx) {
    size_t fr = 0, tot = 0;
    if (cudaSetDevice(ctx->device) != cudaSuccess ||
        cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        (void)cudaGetLastError();
        fr = 0;
    }
    pthread_mutex_lock(&ctx->mem_lock);
    if (ctx->mem_limit) {
        size_t left = ctx->mem_limit > ctx->mem_used ? ctx->mem_limit - ctx->mem_used : 0;
        if (left < fr)
            fr = left;
    }
    pthread_mutex_unlock(&ctx->mem_lock);
    return fr;
}

extern "C" void cuzk_gpu_ctx_set_provers(cuzk_gpu_ctx *ctx, unsigned n) { ctx->provers = n; }

extern "C" unsigned cuzk_gpu_ctx_provers(const cuzk_gpu_ctx *ctx) {
    return ctx->provers ? ctx->provers : 1;
}

extern "C" void cuzk_gpu_ctx_set_mem_limit(cuzk_gpu_ctx *ctx, size_t bytes) {
    pthread_mutex_lock(&ctx->mem_lock);
    ctx->mem_limit = bytes;
    pthread_mutex_unlock(&ctx->mem_lock);
}

extern "C" void cuzk_gpu_ctx_mem(cuzk_gpu_ctx *ctx, cuzk_gpu_mem_info *info) {
    pthread_mutex_lock(&ctx->mem_lock);
    info->used_bytes = ctx->mem_used;
    info->peak_bytes = ctx->mem_peak;
    info->limit_bytes = ctx->mem_limit;
    pthread_mutex_unlock(&ctx->mem_lock);
    info->free_bytes = cuzk_gpu_mem_free(ctx);
}

extern "C" cuzk_status cuzk_gpu_host_alloc(cuzk_gpu_ctx *ctx, size_t bytes,
                                           void **h_ptr, cuzk_error *err) {
    *h_ptr = NULL;
    CUZK_CUDA(err, cudaSetDevice(ctx->device));
    CUZK_CUDA(err, cudaMallocHost(h_ptr, bytes ? bytes : 1));
    return CUZK_OK;
}

extern "C" void cuzk_gpu_host_free(cuzk_gpu_ctx *ctx, void *h_ptr) {
    if (h_ptr == NULL)
        return;
    cudaSetDevice(ctx->device);
    cudaFreeHost(h_ptr);
}

static cuzk_status copy(cuzk_gpu_stream *s, void *dst, const void *src,
                        size_t bytes, cudaMemcpyKind kind, cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || bytes == 0)
        return st;
    CUZK_CUDA(err, cudaMemcpyAsync(dst, src, bytes, kind, s->s));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_copy_to_device(cuzk_gpu_stream *s,
                                               void *d_dst, const void *h_src,
                                               size_t bytes, cuzk_error *err) {
    return copy(s, d_dst, h_src, bytes, cudaMemcpyHostToDevice, err);
}

extern "C" cuzk_status cuzk_gpu_copy_to_host(cuzk_gpu_stream *s, void *h_dst,
                                             const void *d_src, size_t bytes,
                                             cuzk_error *err) {
    return copy(s, h_dst, d_src, bytes, cudaMemcpyDeviceToHost, err);
}

extern "C" cuzk_status cuzk_gpu_copy_on_device(cuzk_gpu_stream *s,
                                               void *d_dst, const void *d_src,
                                               size_t bytes, cuzk_error *err) {
    return copy(s, d_dst, d_src, bytes, cudaMemcpyDeviceToDevice, err);
}

extern "C" cuzk_status cuzk_gpu_memset(cuzk_gpu_stream *s, void *d_dst,
                                       int byte, size_t bytes,
                                       cuzk_error *err) {
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK || bytes == 0)
        return st;
    CUZK_CUDA(err, cudaMemsetAsync(d_dst, byte, bytes, s->s));
    return CUZK_OK;
}
