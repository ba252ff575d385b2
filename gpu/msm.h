/*
 * cuzk GPU backend, MSM: multi-scalar multiplication over affine bases that
 * are resident in device memory (optionally with precomputed shifted copies)
 * or streamed from pinned host memory.  Implemented in msm/gpu/msm_run.cu (the
 * MSM), msm_plan.cu (planning, reservations) and msm_bases.cu (bases).
 * Contexts, streams, layouts and error conventions: gpu/runtime.h.
 */
#ifndef CUZK_GPU_MSM_H
#define CUZK_GPU_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/runtime.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_bases cuzk_gpu_bases;

/*
 * Uploads |n| affine points of (|curve|, |group|) (CPU layout, e.g. an array
 * of bls12_381_g1_affine) to device memory.  The points are not validated
 * (that is the decoders' job); infinity (all zero) is allowed.  *bases is
 * owned by the caller, freed by cuzk_gpu_bases_free, NULL on failure.
 * Synchronous.  CUZK_EINVAL (bad curve/group, n = 0), CUZK_EGPU (incl. out
 * of device memory).
 */
cuzk_status cuzk_gpu_bases_upload(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                  cuzk_gpu_group group,
                                  const void *affine_points, size_t n,
                                  cuzk_gpu_bases **bases, cuzk_error *err);
/*
 * Bases that stay in host memory: |affine_points| (n points, CPU layout)
 * must be page-locked (cuzk_gpu_host_alloc, or a range registered with
 * cuzk_gpu_host_register) and must outlive |*bases|.  An MSM streams them
 * to the device chunk by chunk (the chunk size follows from the stream's
 * MSM limit), double-buffered on a copy stream so that the copy of one
 * chunk overlaps the accumulation of the one before, and adds every chunk
 * into the same buckets (one reduction per MSM, the window chosen for all
 * n points).  For keys larger than device memory.  Holds no device memory
 * (bytes() is 0).
 */
cuzk_status cuzk_gpu_bases_host(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                cuzk_gpu_group group,
                                const void *affine_points, size_t n,
                                cuzk_gpu_bases **bases, cuzk_error *err);
void cuzk_gpu_bases_free(cuzk_gpu_bases *bases);
size_t cuzk_gpu_bases_count(const cuzk_gpu_bases *bases);
/* Device bytes held by |bases| (shifted copies included). */
size_t cuzk_gpu_bases_bytes(const cuzk_gpu_bases *bases);

/*
 * Precomputed shifted copies of device-resident bases, for a window of
 * |c| bits and W = ceil((r_bits + 1) / c) windows: copy j holds
 * 2^(c j) P_i (affine), j = 1 .. W-1 (copy 0 is the bases themselves).
 * An MSM over such bases sends the digit of window j of scalar i to the
 * point 2^(c j) P_i, so all windows share one set of 2^(c-1) buckets: one
 * bucket reduction instead of W, no doublings between windows, and a
 * larger window pays off (fewer digits per scalar).  Costs (W-1) times the
 * bases' memory; built once, on the device, in a few seconds at 2^24.
 * |c| = 0 picks the window for the bases' size with the cost model of the
 * MSM; otherwise 8..24.  |max_bytes| bounds the copies' device memory (0:
 * the device's free memory less what an MSM over all the bases needs for
 * its own scratch).  Replaces earlier copies.  Synchronous.
 * CUZK_EINVAL: host bases (cuzk_gpu_bases_host) or |c| outside 8..24;
 * CUZK_ENOMEM: the copies do not fit (the bases stay usable as before);
 * CUZK_ERANGE: W * n >= 2^31; CUZK_EGPU.
 */
cuzk_status cuzk_gpu_bases_precompute(cuzk_gpu_bases *bases, unsigned c,
                                      size_t max_bytes, cuzk_error *err);
/* Window bits of the precomputed copies, 0 when there are none. */
unsigned cuzk_gpu_bases_shift_bits(const cuzk_gpu_bases *bases);

/* Scalar flags for cuzk_gpu_msm. */
#define CUZK_GPU_SCALARS_MONT 1u   /* scalars are in Montgomery form */
#define CUZK_GPU_SCALARS_DEVICE 2u /* |scalars| is a device pointer */

/*
 * result = sum_{i<n} scalars[i] * bases[offset + i], on stream |s|.
 * |scalars|: n 32-byte little-endian scalars, on the host (pinned memory is
 * copied asynchronously at full speed; pageable works too) or on the
 * device (CUZK_GPU_SCALARS_DEVICE).  Plain scalars may be any 256-bit value
 * (reduced mod r first).  |result| (host) receives the Jacobian point of the
 * group (e.g. bls12_381_g1, 3 coordinates).  Blocks until the result is on
 * the host; other streams keep running.  n = 0 gives infinity.
 * CUZK_EINVAL (offset + n beyond the bases), CUZK_EGPU.
 */
cuzk_status cuzk_gpu_msm(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                         size_t offset, size_t n, const void *scalars,
                         unsigned flags, void *result, cuzk_error *err);

/*
 * The same over |nvec| scalar vectors at once: results[v] (|nvec|
 * consecutive Jacobian points) = sum_i scalars[v][i] * bases[offset + i].
 * Each chunk of bases on the device serves every vector before the next
 * chunk comes, so bases that stream from host memory cross PCIe once for
 * all vectors (what proving several partitions of one key together saves);
 * device-resident bases gain the shared launches and planning only.  The
 * buckets grow by one set per vector.  1 <= nvec <=
 * CUZK_GPU_MSM_MAX_VECTORS.  CUZK_EINVAL; CUZK_ENOMEM when no plan fits the
 * stream's MSM limit (nothing is allocated then); CUZK_EGPU.
 */
#define CUZK_GPU_MSM_MAX_VECTORS 16
cuzk_status cuzk_gpu_msm_batch(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                               size_t offset, size_t n, size_t nvec,
                               const void *const *scalars, unsigned flags,
                               void *results, cuzk_error *err);

/*
 * The same with the scalars gathered: results[v] = sum_{i<n}
 * scalars[v][d_index[i]] * bases[offset + i].  For keys that store points
 * only for the wires a query uses (density bitmaps): |d_index| (device, n
 * entries) names each point's wire, and the scalar vectors (device,
 * CUZK_GPU_SCALARS_DEVICE required) are the whole witness, read in place.
 * Indices are not checked against the vectors' lengths: the caller's list
 * must be in range.  CUZK_EINVAL otherwise as cuzk_gpu_msm_batch.
 */
cuzk_status cuzk_gpu_msm_batch_gather(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                                      size_t offset, size_t n, size_t nvec,
                                      const void *const *scalars, const uint32_t *d_index,
                                      unsigned flags, void *results, cuzk_error *err);

/* Grow |s|'s device and pinned scratch now to what cuzk_gpu_msm_batch of
 * n points of |bases|, |nvec| vectors and |flags| will need, so that call
 * allocates nothing (a prover sizes its streams when a key is prepared).
 * CUZK_EINVAL, CUZK_ENOMEM (no plan fits the limit), CUZK_EGPU. */
cuzk_status cuzk_gpu_msm_reserve(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases, size_t n,
                                 size_t nvec, unsigned flags, cuzk_error *err);

/*
 * The device scratch MSMs on |s| may use, in bytes: every MSM plans its
 * window and chunk size to fit (docs/GPU.md lists the buffers).  0 (the
 * default) means 64 bytes a point for one vector, 16 more a point for each
 * further vector, and never less than 256 MiB.  An MSM for which no plan
 * fits fails with CUZK_ENOMEM before it allocates anything.
 */
void cuzk_gpu_stream_set_msm_limit(cuzk_gpu_stream *s, size_t bytes);
size_t cuzk_gpu_stream_msm_limit(const cuzk_gpu_stream *s);

/* What an MSM of n points and |nvec| vectors would plan (cuzk_gpu_msm_plan). */
typedef struct cuzk_gpu_msm_info {
    size_t scratch_bytes; /* device scratch of the plan */
    size_t limit_bytes;   /* the limit it was planned for */
    unsigned window_bits;
    size_t chunk_points;  /* most points per chunk */
    size_t chunks;        /* chunks per call */
    int fits;             /* 0: no plan fits; the figures are the smallest */
} cuzk_gpu_msm_info;

/* The plan an MSM over resident bases without shifted copies (or over
 * |host_bases|) would use under |limit| (0: the default rule) with scalar
 * |flags|; the context's tuning applies.  For sizing decisions. */
cuzk_status cuzk_gpu_msm_plan(cuzk_gpu_ctx *ctx, cuzk_curve curve, cuzk_gpu_group group,
                              size_t n, size_t nvec, unsigned flags, int host_bases,
                              size_t limit, cuzk_gpu_msm_info *info, cuzk_error *err);

/* Device scratch one MSM of n points of (curve, group) takes under the
 * default limit (one vector, scalars on the device). */
cuzk_status cuzk_gpu_msm_scratch_bytes(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                       cuzk_gpu_group group, size_t n, int host_bases,
                                       size_t *bytes, cuzk_error *err);

/* Window size (bits) of that plan (bases without shifted copies; with them,
 * the copies' window is used); 0 on failure. */
unsigned cuzk_gpu_msm_window_bits(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                  cuzk_gpu_group group, size_t n);

#ifdef __cplusplus
}
#endif

#endif
