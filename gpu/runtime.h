/*
 * cuzk GPU backend, runtime: devices, contexts, streams, device and pinned
 * memory with its accounting, copies and events.  The other parts of the
 * C interface to the CUDA kernels build on it: gpu/msm.h (MSM over resident
 * or streamed bases), gpu/ntt.h (NTT), gpu/prove.h (the element-wise steps
 * of the Groth16 prover) and gpu/selftest.h (kernels that exist only to test
 * and measure the device arithmetic; no production path includes it).
 *
 * Everything here is extern "C" and uses only C types, so the engine and the
 * tests (C11) call it directly.  It exists only when the build found nvcc:
 * CMake then defines CUZK_HAVE_CUDA=1 for C code; callers must guard their
 * calls with #ifdef CUZK_HAVE_CUDA.  Even then a machine may have no device:
 * cuzk_gpu_device_count() returns 0 and every other call fails with
 * CUZK_EGPU.
 *
 * Objects
 *   cuzk_gpu_ctx     one device: its default stream, the NTT twiddle cache
 *                    and a lock for that cache.  Thread safe.
 *   cuzk_gpu_stream  a CUDA stream plus its own scratch memory (grown on
 *                    demand, kept until the stream is destroyed, so steady
 *                    state does no device allocation).  One thread at a time
 *                    per stream; different streams of one context may be
 *                    used by different threads concurrently.
 *   cuzk_gpu_bases   affine points of one group resident in device memory,
 *                    uploaded once and used by any number of MSMs (read-only
 *                    after upload, so shared by streams and threads;
 *                    gpu/msm.h).
 *
 * Data layouts are the CPU ones (field/field.h, curve/curve_types.h):
 * field elements are little-endian 64-bit limbs in Montgomery form; affine
 * points are {x, y} with infinity all-zero; MSM results are Jacobian
 * {X, Y, Z} (Z = 0 at infinity).  Scalars are 32 bytes each, Montgomery or
 * plain little-endian (flag).
 *
 * Errors: every function that can fail returns a cuzk_status and writes a
 * one-line reason into |err| (may be NULL).  CUDA failures are CUZK_EGPU
 * with "file:line: expression: CUDA error text".  Nothing here aborts or
 * exits.  After an asynchronous kernel fault CUDA reports the error on later
 * calls too (the context is unusable); destroy and recreate the context.
 *
 * Units: sizes in bytes (_bytes) or elements (n); times are not measured
 * here.
 */
#ifndef CUZK_GPU_RUNTIME_H
#define CUZK_GPU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Curves are named by cuzk_curve (include/cuzk.h, through util/status.h);
 * gpu/dispatch.cuh maps one to its device types.  A value that is no
 * curve with GPU kernels fails with CUZK_EINVAL. */
typedef enum cuzk_gpu_group { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 } cuzk_gpu_group;

typedef struct cuzk_gpu_ctx cuzk_gpu_ctx;
typedef struct cuzk_gpu_stream cuzk_gpu_stream;

typedef struct cuzk_gpu_device_info {
    int index;
    char name[128];
    size_t total_mem_bytes;
    size_t free_mem_bytes;
    int sm_count;
    int cc_major, cc_minor;
    size_t l2_bytes;
} cuzk_gpu_device_info;

/* ---- devices, contexts, streams ----------------------------------------- */

/* Number of usable CUDA devices; 0 when there is no driver or no device. */
int cuzk_gpu_device_count(void);
/* The device count with CUDA's reason when there is none: CUZK_OK and
 * |*count| (0 only when the driver reports no device), or CUZK_EGPU with
 * CUDA's error in |err| (no or mismatched driver, a device that cannot be
 * initialised) and |*count| = 0. */
cuzk_status cuzk_gpu_device_probe(int *count, cuzk_error *err);

/* Fills |info| for device |device| (0-based).  CUZK_EINVAL, CUZK_EGPU. */
cuzk_status cuzk_gpu_device_query(int device, cuzk_gpu_device_info *info,
                                  cuzk_error *err);

/* Creates a context on |device|; *ctx is owned by the caller (destroy with
 * cuzk_gpu_ctx_destroy) and NULL on failure.  Raises the device's per-thread
 * stack limit to at least 4 KB (the G2 point formulas need ~2.1 KB); that
 * limit is device-wide. */
cuzk_status cuzk_gpu_ctx_create(int device, cuzk_gpu_ctx **ctx,
                                cuzk_error *err);
/* Waits for the default stream, frees the caches.  Bases and streams made
 * from |ctx| must be freed first.  NULL is a no-op. */
void cuzk_gpu_ctx_destroy(cuzk_gpu_ctx *ctx);
/* CUDA device index of |ctx|. */
int cuzk_gpu_ctx_device(const cuzk_gpu_ctx *ctx);
/* The context's default stream (owned by the context; never NULL). */
cuzk_gpu_stream *cuzk_gpu_ctx_stream(cuzk_gpu_ctx *ctx);
/* Bytes held by the context's caches (NTT twiddle tables). */
size_t cuzk_gpu_ctx_cached_bytes(const cuzk_gpu_ctx *ctx);

/*
 * A cap on the device memory |ctx| allocates (bases, scratch, buffers,
 * caches; 0 = none), so a large device can behave like a 16 or 24 GB
 * card: an allocation beyond it fails as on a full device, and the free
 * memory the context reports (cuzk_gpu_ctx_mem) is bounded by it.  Set it
 * before the context allocates; lowering it later frees nothing.
 */
void cuzk_gpu_ctx_set_mem_limit(cuzk_gpu_ctx *ctx, size_t bytes);
/* How many provers will hold their buffers on |ctx| at once (default 1):
 * a key's placement (cuzk_gpu_key_create) gives its MSM streams more than
 * their default scratch only from what is left after that many provers'
 * buffers. */
void cuzk_gpu_ctx_set_provers(cuzk_gpu_ctx *ctx, unsigned n);
unsigned cuzk_gpu_ctx_provers(const cuzk_gpu_ctx *ctx);
typedef struct cuzk_gpu_mem_info {
    size_t used_bytes;  /* allocated now through the context */
    size_t peak_bytes;  /* the most ever allocated at once */
    size_t limit_bytes; /* the cap, 0 = none */
    size_t free_bytes;  /* what is left: device free memory within the cap */
} cuzk_gpu_mem_info;
void cuzk_gpu_ctx_mem(cuzk_gpu_ctx *ctx, cuzk_gpu_mem_info *info);

cuzk_status cuzk_gpu_stream_create(cuzk_gpu_ctx *ctx, cuzk_gpu_stream **s,
                                   cuzk_error *err);
/* Synchronises, then frees the stream and its scratch.  NULL is a no-op;
 * the default stream is not destroyed this way. */
void cuzk_gpu_stream_destroy(cuzk_gpu_stream *s);
/* Blocks until all work queued on |s| is done; reports a kernel fault. */
cuzk_status cuzk_gpu_stream_sync(cuzk_gpu_stream *s, cuzk_error *err);
/* Device scratch currently held by |s| (bytes; a shared arena's size). */
size_t cuzk_gpu_stream_scratch_bytes(const cuzk_gpu_stream *s);

/*
 * A scratch arena shared by streams that never run scratch work at the
 * same time: an engine device runs one proof at a time, so every prover's
 * main stream can use one arena and every B2 stream another, instead of
 * one arena per stream (at 2^26 a stream's MSM scratch is tens of GB, and
 * one per prover did not fit a 141 GB device beside the key).  A stream
 * that shares an arena drops its own first.  The arena must outlive its
 * streams.  Whoever shares one must make sure that no two of its streams
 * have scratch work queued at once (growing it frees the old block after
 * synchronising only the growing stream).
 */
typedef struct cuzk_gpu_shared_scratch cuzk_gpu_shared_scratch;
cuzk_status cuzk_gpu_shared_scratch_create(cuzk_gpu_ctx *ctx, cuzk_gpu_shared_scratch **out, cuzk_error *err);
void cuzk_gpu_shared_scratch_free(cuzk_gpu_shared_scratch *a);
size_t cuzk_gpu_shared_scratch_bytes(const cuzk_gpu_shared_scratch *a);
void cuzk_gpu_stream_share_scratch(cuzk_gpu_stream *s, cuzk_gpu_shared_scratch *a);

/* ---- memory ------------------------------------------------------------- */

/* Device memory (cudaMalloc; not from any pool).  *d_ptr NULL on failure. */
cuzk_status cuzk_gpu_malloc(cuzk_gpu_ctx *ctx, size_t bytes, void **d_ptr,
                            cuzk_error *err);
void cuzk_gpu_free(cuzk_gpu_ctx *ctx, void *d_ptr);
/* Pinned (page-locked) host memory, for fast asynchronous copies. */
cuzk_status cuzk_gpu_host_alloc(cuzk_gpu_ctx *ctx, size_t bytes, void **h_ptr,
                                cuzk_error *err);
void cuzk_gpu_host_free(cuzk_gpu_ctx *ctx, void *h_ptr);
/* Asynchronous copies and fill on |s|; the host buffer must stay valid until
 * the stream is synchronised (pageable host memory makes them synchronous). */
cuzk_status cuzk_gpu_copy_to_device(cuzk_gpu_stream *s, void *d_dst,
                                    const void *h_src, size_t bytes,
                                    cuzk_error *err);
cuzk_status cuzk_gpu_copy_to_host(cuzk_gpu_stream *s, void *h_dst,
                                  const void *d_src, size_t bytes,
                                  cuzk_error *err);
cuzk_status cuzk_gpu_copy_on_device(cuzk_gpu_stream *s, void *d_dst,
                                    const void *d_src, size_t bytes,
                                    cuzk_error *err);
cuzk_status cuzk_gpu_memset(cuzk_gpu_stream *s, void *d_dst, int byte,
                            size_t bytes, cuzk_error *err);

/* ---- events, page-locking (groth16/prover/gpu/prove.cu) ------------------------ */

/* CUDA events: stage timing and cross-stream ordering. */
typedef struct cuzk_gpu_event cuzk_gpu_event;
cuzk_status cuzk_gpu_event_create(cuzk_gpu_ctx *ctx, cuzk_gpu_event **ev,
                                  cuzk_error *err);
void cuzk_gpu_event_destroy(cuzk_gpu_event *ev);
/* Marks the point in |s|'s queue. */
cuzk_status cuzk_gpu_event_record(cuzk_gpu_event *ev, cuzk_gpu_stream *s,
                                  cuzk_error *err);
/* Work queued on |s| after this call waits for |ev|'s point. */
cuzk_status cuzk_gpu_stream_wait_event(cuzk_gpu_stream *s, cuzk_gpu_event *ev,
                                       cuzk_error *err);
/* Microseconds of GPU time between two recorded events (waits for |to|). */
cuzk_status cuzk_gpu_event_elapsed_us(const cuzk_gpu_event *from,
                                      const cuzk_gpu_event *to, double *us,
                                      cuzk_error *err);

/* Page-lock |bytes| of caller memory at |p| for fast asynchronous copies
 * (and for cuzk_gpu_bases_host); undo before freeing it. */
cuzk_status cuzk_gpu_host_register(cuzk_gpu_ctx *ctx, void *p, size_t bytes,
                                   cuzk_error *err);
void cuzk_gpu_host_unregister(cuzk_gpu_ctx *ctx, void *p);

#ifdef __cplusplus
}
#endif

#endif
