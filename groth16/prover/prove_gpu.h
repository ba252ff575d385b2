/*
 * Groth16 proofs on an NVIDIA GPU: proving keys resident on the device and
 * the whole prover (constraint evaluation, H, every MSM) run there; the CPU
 * only copies the witness in and assembles the proof from five points.
 *
 *   cuzk_gpu_key     a proving key's device image: the A, B1, C, H bases
 *                    (G1) and B2 (G2) uploaded once in the MSM's layout, and
 *                    the A and B matrices in CSR form.  When the bases do not
 *                    fit in device memory they stay in page-locked host
 *                    memory and each MSM streams them (gpu/msm.h,
 *                    cuzk_gpu_bases_host).  Read-only once made: any number
 *                    of provers may use it at once.
 *   cuzk_gpu_prover  the per-worker state: two streams, the witness and
 *                    a/b/c vectors on the device, pinned staging memory and
 *                    events.  One proof at a time per prover; buffers grow
 *                    to the largest key seen and are kept (no allocation in
 *                    steady state).
 *
 * One proof (cuzk_gpu_prove_upload, then cuzk_gpu_prove_run_batch):
 *   stream 1: witness upload -> Montgomery form -> a = A·w, b = B·w (CSR
 *             products; or a, b, c evaluated by the caller on the CPU and
 *             uploaded with the witness) -> c = a∘b -> 3 inverse + 3
 *             odd-coset NTTs -> h = a'b' - c' -> MSMs A, B1, C, H
 *   stream 2: MSM B2 (G2), started as soon as the witness is on the device,
 *             on a thread of its own, overlapping everything on stream 1
 * then the CPU assembles A, B, C with the caller's r, s.  Stage times come
 * from CUDA events (cuzk_gpu_timing).
 *
 * These functions exist only in builds with CUDA (CUZK_HAVE_CUDA); the
 * header is usable everywhere.
 */
#ifndef CUZK_GROTH16_PROVE_GPU_H
#define CUZK_GROTH16_PROVE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/prover/key.h"
#include "util/status.h"
#include "util/threadpool.h"

typedef struct cuzk_gpu_ctx cuzk_gpu_ctx;
typedef struct cuzk_gpu_key cuzk_gpu_key;
typedef struct cuzk_gpu_prover cuzk_gpu_prover;
typedef struct cuzk_gpu_shared_scratch cuzk_gpu_shared_scratch; /* gpu/runtime.h */

/*
 * What a key needs on a device, in bytes, from the figures alone
 * (cuzk_gpu_key_needs_of): its bases, one prover's buffers (witness twice,
 * a/b/c), the A and B matrices, and the scratch of the G1 and the B2 MSM
 * streams: default plans with resident bases (s1, s2) and streamed ones
 * (h1, h2), the smallest plans that exist (m1, m2), and the G1 plan of
 * least modelled cost with no bound (u1).
 */
typedef struct cuzk_gpu_key_needs {
    uint64_t bases, work, csr, s1, s2, h1, h2, m1, m2, u1;
    unsigned log_n;
    size_t n_vars;
} cuzk_gpu_key_needs;

/*
 * Where a key goes and what its provers' MSMs may use: the engine's
 * decision (engine/gpu_tier.c) from the needs and the device's memory,
 * which cuzk_gpu_key_create carries out.
 */
typedef struct cuzk_gpu_placement {
    int host;            /* bases in page-locked host memory, streamed */
    int no_csr;          /* matrices on the host: a, b, c evaluated there */
    int host_if_refused; /* resident, but streamed if the device refuses them */
    size_t msm_limit[2]; /* the G1 and B2 streams' scratch (0: default rule) */
    unsigned max_provers; /* under a cap: provers whose buffers fit (0: no cap) */
    char why[200];       /* where and why, with the figures */
} cuzk_gpu_placement;

/* The needs of |key| on |ctx|'s device.  CUZK_EINVAL, CUZK_EFORMAT. */
cuzk_status cuzk_gpu_key_needs_of(cuzk_gpu_ctx *ctx, const cuzk_key *key,
                                  cuzk_gpu_key_needs *out, cuzk_error *err);

/* Where the key's bases live, as a caller asks for it (the engine's
 * policy turns it into a placement). */
typedef enum cuzk_gpu_key_mode {
    CUZK_GPU_KEY_AUTO = 0,   /* device memory if it fits, else host-streamed */
    CUZK_GPU_KEY_DEVICE = 1, /* device memory or fail (CUZK_ENOMEM) */
    CUZK_GPU_KEY_HOST = 2    /* page-locked host memory, streamed per MSM */
} cuzk_gpu_key_mode;

/* Per-proof stage times in microseconds (GPU time between CUDA events,
 * except assemble and total, which are host wall time).  msm_b2_us runs on
 * the second stream, concurrently with evaluate..msm_h. */
typedef struct cuzk_gpu_timing {
    double upload_us;   /* witness host -> device (incl. the host staging copy) */
    double evaluate_us; /* Montgomery form, a = A·w, b = B·w, c = a∘b */
    double ntt_us;      /* 6 NTTs and h = a'b' - c' */
    double msm_a_us, msm_b1_us, msm_b2_us, msm_c_us, msm_h_us;
    double download_us; /* results and checks back to the host */
    double assemble_us; /* CPU: the proof from the five MSM points */
    double total_us;    /* wall time of the run (and of upload where the
                           caller adds it) */
    int eval_on_gpu;    /* 1 if a, b were evaluated on the GPU */
} cuzk_gpu_timing;

/*
 * Make |*gk|, the device image of |key| on |ctx|, placed as |pl| says (the
 * engine decides it: engine_gpu_key_create).  |key| must outlive |*gk|
 * (host-streamed bases point into it; its memory is page-locked while |*gk|
 * exists).  Synchronous.
 * Returns: CUZK_OK; CUZK_ENOMEM (the device refused an allocation the
 *   placement counted on; host memory); CUZK_EFORMAT (a coefficient outside
 *   the key's domain or witness); CUZK_EGPU.
 */
cuzk_status cuzk_gpu_key_create(cuzk_gpu_key **gk, cuzk_gpu_ctx *ctx,
                                const cuzk_key *key, const cuzk_gpu_placement *pl,
                                cuzk_error *err);
void cuzk_gpu_key_free(cuzk_gpu_key *gk);
/* Device bytes held by the key (bases + matrices). */
/* How many provers' buffers (witness twice, a/b/c) fit on the device beside
 * the key and its MSM scratch under the context's memory cap, so many
 * partitions at most per batch (cuzk_gpu_prove_run_batch refuses more,
 * CUZK_ENOMEM); 0 when the context has no cap. */
unsigned cuzk_gpu_key_max_provers(const cuzk_gpu_key *gk);
uint64_t cuzk_gpu_key_device_bytes(const cuzk_gpu_key *gk);
/* 1 if the bases stream from host memory. */
int cuzk_gpu_key_host_streamed(const cuzk_gpu_key *gk);
const cuzk_key *cuzk_gpu_key_host(const cuzk_gpu_key *gk);

/* |pool| (may be NULL) serves the staging copies of the witness and a, b,
 * c and B2 on the CPU; it must outlive the prover. */
cuzk_status cuzk_gpu_prover_create(cuzk_gpu_prover **p, cuzk_gpu_ctx *ctx,
                                   cuzk_pool *pool, cuzk_error *err);
void cuzk_gpu_prover_free(cuzk_gpu_prover *p);
/* Where the B2 (G2) MSM runs: |on_cpu| 0 (the default) on the device's
 * second stream beside the G1 work, 1 on the prover's pool of host threads
 * (from the witness's staging copy), which leaves the device to the G1
 * work.  The environment's CUZK_GPU_B2=cpu sets 1 for new provers.
 * docs/PERFORMANCE.md has both measured. */
void cuzk_gpu_prover_set_b2(cuzk_gpu_prover *p, int on_cpu);
/* Grow the prover's device and pinned buffers to |gk|'s sizes now (the
 * first proof would otherwise allocate them: about 0.5 s at 2^24, most
 * of it page-locking the witness staging buffer). */
cuzk_status cuzk_gpu_prover_reserve(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                    cuzk_error *err);
/* The same, and with np > 0 the scratch of both streams for the MSMs of
 * a batch of |np| partitions (at most CUZK_GPU_MSM_MAX_VECTORS) of |gk|
 * led by |p|, so that such a batch allocates nothing on the device or the
 * host.  np = 0: the buffers alone (cuzk_gpu_prover_reserve). */
cuzk_status cuzk_gpu_prover_reserve_batch(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                          size_t np, cuzk_error *err);
/* Run the prover's main stream on |main| and its B2 stream on |b2|
 * (cuzk_gpu_stream_share_scratch) instead of scratch of its own: provers
 * that share arenas must not run at the same time (uploads may overlap a
 * run: they use no scratch).  NULL keeps the stream's own scratch. */
void cuzk_gpu_prover_share_scratch(cuzk_gpu_prover *p, cuzk_gpu_shared_scratch *main,
                                   cuzk_gpu_shared_scratch *b2);
/* Device bytes held by the prover's buffers and its streams' scratch (a
 * shared arena counts in full for every prover sharing it). */
uint64_t cuzk_gpu_prover_device_bytes(const cuzk_gpu_prover *p);
/* Page-locked host bytes held by the prover's staging buffers (the
 * witness copy; a, b, c when the caller evaluated them).  The engine charges
 * them to its memory budget. */
uint64_t cuzk_gpu_prover_host_bytes(const cuzk_gpu_prover *p);

/*
 * A proof in two steps, so that a pipeline overlaps one prover's transfers
 * with another's compute (the engine's GPU device):
 *   upload  |witness| (n_vars plain 32-byte values, any alignment) and,
 *           when the caller evaluated them, |abc| (a | b | c, 3n Montgomery
 *           values; NULL: evaluated on the GPU by run) to the device;
 *           returns when the copies are done.  No checks of the values here.
 *   run     everything else; CUZK_ERANGE for a witness value >= r;
 *           CUZK_EINVAL without a matching upload.
 */
cuzk_status cuzk_gpu_prove_upload(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                  const void *witness, const void *abc,
                                  cuzk_error *err);
/* |r|, |s|: the proof's blinding scalars (Montgomery, below r), which the
 * caller draws from the OS CSPRNG (the curve table's fr_random); fixed
 * ones make the proof a function of key and witness (tests). */
cuzk_status cuzk_gpu_prove_run(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                               const cuzk_fr *r, const cuzk_fr *s, cuzk_proof *out,
                               cuzk_gpu_timing *t, cuzk_error *err);

/*
 * Several partitions of one key in one pass (as Filecoin provers prove the
 * 10 partitions of a PoRep together): each item's prover holds an uploaded
 * witness for |gk|; H is computed per partition, then every MSM runs once
 * over the bases for all of them (cuzk_gpu_msm_batch), so host-streamed
 * bases cross PCIe once per batch instead of once per partition.  The
 * first item's streams run the batch.  Returns CUZK_OK when the batch ran
 * (then each item's |st|/|err| says whether its witness was in range and
 * its proof written) or the error that stopped it all (CUZK_EINVAL,
 * CUZK_ENOMEM, CUZK_EUNSUPPORTED, CUZK_EGPU).  |t| covers the batch.  1 <= np <=
 * CUZK_GPU_MSM_MAX_VECTORS, each prover at most once.
 */
typedef struct cuzk_gpu_batch_item {
    cuzk_gpu_prover *p;
    cuzk_proof *out;
    cuzk_fr r, s; /* the proof's blinding scalars, as for cuzk_gpu_prove_run */
    cuzk_status st;
    cuzk_error err;
} cuzk_gpu_batch_item;
cuzk_status cuzk_gpu_prove_run_batch(cuzk_gpu_batch_item *items, size_t np,
                                     const cuzk_gpu_key *gk,
                                     cuzk_gpu_timing *t, cuzk_error *err);
/* The same, calling |gpu_done|(|ctx|) as soon as the batch's device work
 * is finished and its results are on the host, before the proofs are
 * assembled on the CPU (about 1.3 ms per BLS12-381 partition): a caller
 * that runs one batch at a time per device releases the device there, so
 * the next batch's kernels do not wait for this one's assembly.  Not
 * called when the batch fails. */
cuzk_status cuzk_gpu_prove_run_batch_notify(cuzk_gpu_batch_item *items, size_t np,
                                            const cuzk_gpu_key *gk, cuzk_gpu_timing *t,
                                            void (*gpu_done)(void *ctx), void *ctx,
                                            cuzk_error *err);

/*
 * Precomputed shifted copies (cuzk_gpu_bases_precompute) for the key's
 * device-resident base sets, largest MSM time first (H, B2, A, B1, C),
 * each as long as its copies fit in what is left of |max_bytes|: an MSM
 * over such bases needs no doublings between windows and one bucket
 * reduction (about 12% faster at 2^24, H200), at (W - 1) times the
 * bases' memory (W windows: about 12x).  Sets that do not fit are left
 * as they are; a host-streamed key gets none.  *|used| (may be NULL):
 * the bytes the copies took.  Synchronous; proofs are unchanged.
 * CUZK_EGPU on a device fault (the copies built so far stay).
 */
cuzk_status cuzk_gpu_key_precompute(cuzk_gpu_key *gk, size_t max_bytes, size_t *used,
                                    cuzk_error *err);

/* Why the key's bases live where they do (for logs and status), e.g.
 * "pinned host memory: bases 37.1 GiB + working set ... exceed ...". */
const char *cuzk_gpu_key_why(const cuzk_gpu_key *gk);

#endif
