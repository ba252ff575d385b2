/*
 * cuzk GPU backend, MSM: multi-scalar multiplication over affine bases that
 * are resident in device memory (optionally with precomputed shifted copies)
 * or streamed from pinned host memory.  Implemented in msm/gpu/msm.cu.
 * Contexts, streams, layouts and error conventions: gpu/runtime.h.
 */
#ifndef CUZK_GPU_MSM_H
#define CUZK_GPU_MSM_H

#include <stddef.h>

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
cuzk_status cuzk_gpu_bases_upload(cuzk_gpu_ctx *ctx, cuzk_gpu_curve curve,
                                  cuzk_gpu_group group,
                                  const void *affine_points, size_t n,
                                  cuzk_gpu_bases **bases, cuzk_error *err);
/*
 * Bases that stay in host memory: |affine_points| (n points, CPU layout)
 * must be page-locked (cuzk_gpu_host_alloc, or a range registered with
 * cuzk_gpu_host_register) and must outlive |*bases|.  MSMs stream them to
 * the device in batches of an eighth of the points (2^16 to 2^22),
 * double-buffered so that the copy of one batch overlaps the accumulation
 * of the previous one, with the window chosen for the batch.  For keys larger
 * than device memory.  Holds no device memory (bytes() is 0).
 */
cuzk_status cuzk_gpu_bases_host(cuzk_gpu_ctx *ctx, cuzk_gpu_curve curve,
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
 * Bases that stream from host memory cross PCIe once for all vectors (each
 * staged batch of points is accumulated for every vector before the next is
 * fetched), which is what proving several partitions of one key together
 * saves; device-resident bases gain the shared launch and planning only.
 * Scratch grows by one bucket set per vector.  1 <= nvec <=
 * CUZK_GPU_MSM_MAX_VECTORS.  CUZK_EINVAL, CUZK_EGPU.
 */
#define CUZK_GPU_MSM_MAX_VECTORS 16
cuzk_status cuzk_gpu_msm_batch(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                               size_t offset, size_t n, size_t nvec,
                               const void *const *scalars, unsigned flags,
                               void *results, cuzk_error *err);

/* Grow |s|'s device and pinned scratch now to what cuzk_gpu_msm_batch of
 * n points of |bases|, |nvec| vectors and |flags| will need, so that call
 * allocates nothing (a prover sizes its streams when a key is prepared).
 * CUZK_EINVAL, CUZK_EGPU. */
cuzk_status cuzk_gpu_msm_reserve(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases, size_t n,
                                 size_t nvec, unsigned flags, cuzk_error *err);

/* Device scratch one MSM of n points of (curve, group) takes on a stream
 * (resident bases without shifted copies, or |host_bases| streamed), one
 * scalar vector, scalars on the device: for sizing decisions. */
cuzk_status cuzk_gpu_msm_scratch_bytes(cuzk_gpu_ctx *ctx, cuzk_gpu_curve curve,
                                       cuzk_gpu_group group, size_t n, int host_bases,
                                       size_t *bytes, cuzk_error *err);

/* Window size (bits) cuzk_gpu_msm uses for n points of |group| over bases
 * without shifted copies (with them, the copies' window is used). */
unsigned cuzk_gpu_msm_window_bits(cuzk_gpu_curve curve, cuzk_gpu_group group,
                                  size_t n);

#ifdef __cplusplus
}
#endif

#endif
