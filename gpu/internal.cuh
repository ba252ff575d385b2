/*
 * Internals shared by the GPU backend's translation units (gpu/device.cu,
 * ntt/gpu/ntt.cu, msm/gpu/msm_*.cu, gpu/selftest.cu): the object layouts
 * behind gpu/runtime.h's opaque handles, the CUDA status check macro, the stream
 * scratch arena and launch-size helpers.
 *
 * Must not: be included from C code; hold kernels (they live with their
 * layer).  Errors are formatted by util/status.h's cuzk_fail, like the
 * rest of the library's (the kernels are compiled into libcuzk).
 */
#ifndef CUZK_GPU_INTERNAL_CUH
#define CUZK_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/msm.h"
#include "gpu/runtime.h"
#include "msm/gpu/msm_plan.h"

#define CUZK_GPU_MAX_LOG_NTT 28
/* Per-thread stack the context asks for (see cuzk_gpu_ctx_create). */
#define CUZK_GPU_STACK_BYTES 4096

#define CUZK_GPU_MAX_EVENTS 16
/* MSM plans a stream remembers (msm_plan.cu: planning costs ~ms of CUB size
 * queries; a prover repeats the same few shapes). */
#define CUZK_GPU_PLAN_CACHE 8

struct cuzk_gpu_plan_slot {
    bool used, fits;
    int group;
    msm_plan_req rq;
    msm_plan pl;
};

/* Device scratch several streams use in turn (cuzk_gpu_stream_share_scratch). */
struct cuzk_gpu_shared_scratch {
    cuzk_gpu_ctx *ctx;
    void *d;
    size_t bytes;
};

struct cuzk_gpu_stream {
    cuzk_gpu_ctx *ctx;
    cudaStream_t s;
    cudaEvent_t ev[CUZK_GPU_MAX_EVENTS]; /* phase timing (profile mode) */
    const char *ev_name[CUZK_GPU_MAX_EVENTS];
    int nev;
    int is_default;
    /* Device arena, grown on demand (cuzk_gpu_scratch).  With |shared|
     * set these are a view of that arena, refreshed by every
     * cuzk_gpu_scratch call (another stream may have grown it), and the
     * stream frees nothing of it. */
    void *d_scratch;
    size_t scratch_bytes;
    cuzk_gpu_shared_scratch *shared;
    void *h_scratch; /* pinned host arena for small results */
    size_t h_scratch_bytes;
    /* Second stream and events for MSMs that stage bases or scalars from
     * host memory (created on first such MSM, see cuzk_gpu_copy_stream):
     * staging buffer k of the bases is full / free again, likewise of the
     * scalars. */
    cudaStream_t copy_s;
    cudaEvent_t stage_full[2], stage_free[2], sc_full[2], sc_free[2];
    /* Device scratch an MSM on this stream may plan for (bytes, 0: the
     * default rule of msm_plan.h); the plans already made. */
    size_t msm_limit;
    unsigned long long *d_small; /* the MSM's scalar counts (msm_measure) */
    cuzk_gpu_plan_slot plans[CUZK_GPU_PLAN_CACHE];
    int plan_next;
};

struct cuzk_gpu_ctx {
    int device;
    int sm_count;
    cuzk_gpu_stream dflt;
    pthread_mutex_t lock; /* guards the twiddle cache */
    void *d_twiddles[3][CUZK_GPU_MAX_LOG_NTT + 1]; /* [curve][log_n] */
    size_t cached_bytes;
    /* tuning overrides (0 = automatic), see cuzk_gpu_ctx_tune */
    unsigned msm_window;
    bool msm_affine; /* batch-affine MSM accumulation (msm_affine.cuh) */
    bool msm_ones;   /* bit-scalar sums: ones skip Pippenger (msm_kernels.cuh) */
    int msm_acc_minb; /* CUZK_GPU_MSM_ACC_MINB: level-1 register bound (msm_run.cu) */
    unsigned ntt_log_radix;
    unsigned provers; /* cuzk_gpu_ctx_set_provers (0: 1) */
    int profile; /* print per-phase MSM times to stderr */
    /* Device memory the context allocated (cuzk_gpu_dmalloc) and its cap
     * (cuzk_gpu_ctx_set_mem_limit; 0 = none).  mem_lock guards these and
     * the table of live allocations, whose sizes a free gives back. */
    pthread_mutex_t mem_lock;
    size_t mem_used, mem_limit, mem_peak;
    struct cuzk_gpu_alloc *allocs;
    size_t n_allocs, cap_allocs;
};

struct cuzk_gpu_alloc {
    void *p;
    size_t bytes;
};

struct cuzk_gpu_bases {
    cuzk_gpu_ctx *ctx;
    cuzk_curve curve;
    cuzk_gpu_group group;
    size_t n;
    size_t point_bytes;
    void *d_points;        /* device copy (cuzk_gpu_bases_upload), or */
    const void *h_points;  /* caller's pinned memory (cuzk_gpu_bases_host) */
    /* shifted copies (cuzk_gpu_bases_precompute): copy j (1 <= j < shift_w)
     * at d_shift + (j - 1) n points holds 2^(shift_c j) times the bases */
    void *d_shift;
    unsigned shift_c, shift_w;
};

/* Records a CUDA failure: CUZK_EGPU, "file:line: expr: text". */
cuzk_status cuzk_gpu_cuda_fail(cuzk_error *err, cudaError_t e,
                               const char *expr, const char *file, int line);
/* Records any other failure (printf-style reason): the library's one
 * formatter, under the name the GPU sources use. */
#define cuzk_gpu_fail cuzk_fail

#define CUZK_CUDA(err, expr)                                                  \
    do {                                                                      \
        cudaError_t cuzk_e_ = (expr);                                         \
        if (cuzk_e_ != cudaSuccess)                                           \
            return cuzk_gpu_cuda_fail((err), cuzk_e_, #expr, __FILE__,        \
                                      __LINE__);                              \
    } while (0)

/* After a kernel launch: reports launch-configuration errors at once. */
#define CUZK_LAUNCHED(err) CUZK_CUDA(err, cudaGetLastError())

/* cudaMalloc / cudaFree through the context's accounting: every device
 * allocation of the backend goes through these, so the cap set with
 * cuzk_gpu_ctx_set_mem_limit holds (a request beyond it fails with
 * cudaErrorMemoryAllocation, as a full device would).  The caller has made
 * the context's device current. */
cudaError_t cuzk_gpu_dmalloc(cuzk_gpu_ctx *ctx, void **p, size_t bytes);
void cuzk_gpu_dfree(cuzk_gpu_ctx *ctx, void *p);
/* Free device memory as the context sees it: the device's free memory,
 * bounded by what the cap leaves. */
size_t cuzk_gpu_mem_free(cuzk_gpu_ctx *ctx);

/* Makes the stream's device current for this thread. */
cuzk_status cuzk_gpu_enter(cuzk_gpu_stream *s, cuzk_error *err);

/* Ensures |s| holds at least |bytes| of device scratch (frees and
 * reallocates when too small; that synchronises the stream first). */
cuzk_status cuzk_gpu_scratch(cuzk_gpu_stream *s, size_t bytes,
                             cuzk_error *err);
/* Creates |s|'s copy stream and staging events if it has none yet. */
cuzk_status cuzk_gpu_copy_stream(cuzk_gpu_stream *s, cuzk_error *err);
/* Same for the pinned host scratch. */
cuzk_status cuzk_gpu_host_scratch(cuzk_gpu_stream *s, size_t bytes,
                                  cuzk_error *err);

/* Bump allocator over a scratch arena: 256-byte aligned slices. */
typedef struct cuzk_gpu_arena {
    size_t used;
} cuzk_gpu_arena;
static inline size_t cuzk_gpu_arena_take(cuzk_gpu_arena *a, size_t bytes) {
    size_t off = (a->used + 255) & ~(size_t)255;
    a->used = off + bytes;
    return off;
}

/* Blocks of |threads| covering |n| work items. */
static inline unsigned cuzk_gpu_blocks(size_t n, unsigned threads) {
    return (unsigned)((n + threads - 1) / threads);
}

#endif
