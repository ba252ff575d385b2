/*
 * cuzk GPU backend: the C interface to the CUDA kernels (MSM, NTT, field
 * and point self-tests) and to device memory.
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
 *                    after upload, so shared by streams and threads).
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
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Same numbering as cuzk_curve (groth16/curve_id.h), so values cast. */
typedef enum cuzk_gpu_curve {
    CUZK_GPU_BN254 = 1,
    CUZK_GPU_BLS12_381 = 2
} cuzk_gpu_curve;

typedef enum cuzk_gpu_group { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 } cuzk_gpu_group;

typedef enum cuzk_gpu_field {
    CUZK_GPU_BLS12_381_FP = 0,
    CUZK_GPU_BLS12_381_FR = 1,
    CUZK_GPU_BN254_FP = 2,
    CUZK_GPU_BN254_FR = 3
} cuzk_gpu_field;

typedef struct cuzk_gpu_ctx cuzk_gpu_ctx;
typedef struct cuzk_gpu_stream cuzk_gpu_stream;
typedef struct cuzk_gpu_bases cuzk_gpu_bases;

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
 * Tuning overrides for measurements (not thread safe against concurrent
 * MSM/NTT calls on |ctx|): |msm_window| forces the MSM window size in bits
 * (2..22, 0 = automatic), |ntt_log_radix| is ignored (the NTT's pass plan
 * is fixed by its tile size, ntt/gpu/ntt_kernels.cuh), |profile| != 0
 * prints per-phase MSM times to stderr (adds a synchronisation per phase).
 */
void cuzk_gpu_ctx_tune(cuzk_gpu_ctx *ctx, unsigned msm_window,
                       unsigned ntt_log_radix, int profile);

/*
 * A cap on the device memory |ctx| allocates (bases, scratch, buffers,
 * caches; 0 = none), so a large device can behave like a 16 or 24 GB
 * card: an allocation beyond it fails as on a full device, and the free
 * memory the context reports (cuzk_gpu_ctx_mem) is bounded by it.  Set it
 * before the context allocates; lowering it later frees nothing.
 */
void cuzk_gpu_ctx_set_mem_limit(cuzk_gpu_ctx *ctx, size_t bytes);
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
/* Device scratch currently held by |s| (bytes). */
size_t cuzk_gpu_stream_scratch_bytes(const cuzk_gpu_stream *s);

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

/* ---- MSM ---------------------------------------------------------------- */

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

/* ---- NTT ------------------------------------------------------------------ */

typedef enum cuzk_gpu_ntt_dir {
    CUZK_GPU_NTT_FORWARD = 0,       /* a[i] <- sum_k a[k] w^(ik) */
    CUZK_GPU_NTT_INVERSE = 1,       /* a[i] <- 1/n sum_k a[k] w^(-ik) */
    CUZK_GPU_NTT_COSET_FORWARD = 2, /* a[i] <- sum_k a[k] (g w^i)^k */
    CUZK_GPU_NTT_COSET_INVERSE = 3  /* inverse of COSET_FORWARD */
} cuzk_gpu_ntt_dir;

/*
 * In-place NTT of n = 2^log_n Fr elements (Montgomery form, natural order in
 * and out) at device address |d_data|, queued on |s| (returns once queued;
 * synchronise the stream before reading the data).  w is the field's
 * root_of_unity(log_n) (field/field.h, ffjavascript's roots) — the same
 * definitions as ntt/ntt.h.  |coset_gen| (host pointer to one Fr element,
 * Montgomery form, non-zero) is used by the coset directions only.
 * 1 <= log_n <= 28.  The twiddle table for (curve, log_n) is computed on
 * first use and cached in the context (16 * n bytes).
 * CUZK_EINVAL / CUZK_ERANGE / CUZK_EGPU.
 */
cuzk_status cuzk_gpu_ntt(cuzk_gpu_stream *s, cuzk_gpu_curve curve,
                         void *d_data, unsigned log_n, cuzk_gpu_ntt_dir dir,
                         const void *coset_gen, cuzk_error *err);
/* Builds the twiddle table for (curve, log_n) now (optional). */
cuzk_status cuzk_gpu_ntt_prepare(cuzk_gpu_ctx *ctx, cuzk_gpu_curve curve,
                                 unsigned log_n, cuzk_error *err);

/* ---- prover steps (groth16/gpu/prove.cu) ------------------------------------ */

/* d_out[i] = Montgomery form of the plain value d_in[i] (n Fr elements of
 * |curve|, may alias).  Values >= r become 0 and the smallest such index is
 * stored into *d_bad with atomicMin (device word the caller initialised to
 * UINT32_MAX).  Queued on |s|. */
cuzk_status cuzk_gpu_fr_from_plain(cuzk_gpu_stream *s, cuzk_gpu_curve curve,
                                   void *d_out, const void *d_in, size_t n,
                                   uint32_t *d_bad, cuzk_error *err);
/* d_y[i] = sum over row i of d_vals[k] * d_x[d_cols[k]], k in
 * [d_row_ptr[i], d_row_ptr[i+1]) (CSR, Montgomery Fr), for i < rows. */
cuzk_status cuzk_gpu_spmv(cuzk_gpu_stream *s, cuzk_gpu_curve curve,
                          const uint32_t *d_row_ptr, const uint32_t *d_cols,
                          const void *d_vals, size_t rows, const void *d_x,
                          void *d_y, cuzk_error *err);
/* d_out[i] = d_a[i] * d_b[i] - d_c[i] (d_c NULL: no subtraction); may alias. */
cuzk_status cuzk_gpu_fr_mul_sub(cuzk_gpu_stream *s, cuzk_gpu_curve curve,
                                void *d_out, const void *d_a, const void *d_b,
                                const void *d_c, size_t n, cuzk_error *err);

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

/* ---- self-tests and measurements ------------------------------------------- */

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
 * kernels use (32-bit words, even/odd accumulators) and two CIOS loops
 * kept for comparison. */
typedef enum cuzk_gpu_mul_form {
    CUZK_GPU_MUL_EO32 = 0,
    CUZK_GPU_MUL_CIOS32 = 1,
    CUZK_GPU_MUL_CIOS64 = 2
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
cuzk_status cuzk_gpu_point_op(cuzk_gpu_stream *s, cuzk_gpu_curve curve,
                              cuzk_gpu_group group, cuzk_gpu_pop op,
                              const void *d_a, const void *d_b, void *d_out,
                              size_t n, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
