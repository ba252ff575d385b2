/*
 * GPU multi-scalar multiplication for G1 and G2 of BLS12-381 and BN254
 * (gpu/msm.h: cuzk_gpu_bases_*, cuzk_gpu_msm).  The algorithm and the
 * per-thread bodies are in msm_kernels.cuh; this file sizes the launches,
 * lays out the stream's scratch memory, sorts with CUB and combines the
 * window sums on the host.
 *
 * Memory per call (n points in one batch, W windows of c bits, V vectors):
 *   scalars 32n (host input only), sort pairs 16Wn, CUB temp, digit counts
 *   and offsets 16n, buckets V W 2^(c-1) XYZZ points, partial sums sized
 *   for any packed digit count (msm_max_threads).  The number of packed
 *   digits comes back to the host once per batch and vector (a stream
 *   synchronisation) to size the sort.
 * Points beyond CUZK_MSM_BATCH are processed in batches that add into the
 * same buckets, which bounds the scratch and keeps sort sizes in int range.
 *
 * Must not: allocate outside the stream scratch (no cudaMalloc per call in
 * steady state), abort, or leave work queued on error paths it reports as
 * success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/internal.cuh"
#include "msm/gpu/msm_affine.cuh"
#include "msm/gpu/msm_kernels.cuh"

/* Largest batch of points per sort (pairs: W * batch < 2^31). */
#define CUZK_MSM_BATCH ((size_t)1 << 26)
/* Largest and smallest batch when the bases stream from pinned host memory
 * (cuzk_gpu_bases_host): two staging buffers of a batch each, one being
 * filled over PCIe while the other is accumulated. */
#define CUZK_MSM_STREAM_BATCH ((size_t)1 << 22)
#define CUZK_MSM_STREAM_MIN ((size_t)1 << 16)

/* Threads per block.  The accumulation kernels hold an XYZZ accumulator
 * and a point in registers (~130-200 registers), so 128-thread blocks keep
 * several blocks per multiprocessor. */
#define MSM_ACC_THREADS 128
#define MSM_SMALL_THREADS 256

template <class G>
__global__ void k_msm_count(const uint32_t *scalars, size_t n, bool mont,
                            unsigned c, unsigned nwin,
                            unsigned long long *cnt) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        msm_count_one<G>(i, scalars, n, mont, c, nwin, cnt);
}

template <class G>
__global__ void k_msm_scatter(const uint32_t *scalars, size_t n, bool mont,
                              unsigned c, unsigned nwin, uint32_t vstride,
                              uint32_t vbase, const unsigned long long *off,
                              uint32_t *keys, uint32_t *vals) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        msm_scatter_one<G>(i, scalars, mont, c, nwin, vstride, vbase, off,
                           keys, vals);
}

/* MB: the fewest blocks per multiprocessor the register allocation must
 * allow (1: no constraint).  With every product's partial products in
 * wide multiply-adds, BLS12-381 G1's level 1 took 180 registers (2 blocks
 * of 128 threads) instead of 168 (3); MB = 3 holds it at 168 without
 * spills, and CUZK_GPU_MSM_ACC_MINB=3 selects that build of level 1 so
 * one run measures both (G2 spills under it). */
template <class G, bool FIRST, int MB = 1>
__global__ void __launch_bounds__(MSM_ACC_THREADS, MB)
    k_msm_acc(const uint32_t *keys, size_t M, size_t L, size_t T,
              const uint32_t *vals, const typename G::affine *bases,
              const typename G::affine *shift, uint32_t nfirst,
              const typename G::xyzz *pts, typename G::xyzz *buckets,
              bool accumulate, uint32_t *out_keys,
              typename G::xyzz *out_pts) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        msm_acc_one<G, FIRST>(t, keys, M, L, vals, bases, shift, nfirst, pts,
                              buckets, accumulate, out_keys, out_pts);
}

template <class G>
__global__ void __launch_bounds__(MSM_ACC_THREADS)
    k_msm_aff(uint32_t *keys, size_t M, size_t L, size_t T, uint32_t *vals,
              const typename G::affine *bases,
              const typename G::affine *shift, uint32_t nfirst,
              size_t min_pairs, typename G::affine *work,
              typename G::F *pre) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        msm_aff_one<G>(t, keys, M, L, vals, bases, shift, nfirst, min_pairs,
                       work, pre);
}

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

template <class G>
__global__ void __launch_bounds__(MSM_ACC_THREADS)
    k_msm_bucket_reduce(const typename G::xyzz *buckets, unsigned log_b,
                        unsigned log_s, size_t T, typename G::xyzz *out) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        msm_bucket_reduce_one<G>(t, buckets, log_b, log_s, out);
}

template <class G>
__global__ void __launch_bounds__(MSM_ACC_THREADS)
    k_msm_tree(const typename G::xyzz *in, size_t half, size_t T,
               typename G::xyzz *out) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T)
        msm_tree_one<G>(t, in, half, out);
}

/* ---- launch planning -------------------------------------------------- */

static unsigned msm_nwin(unsigned r_bits, unsigned c) {
    return (r_bits + 1 + c - 1) / c;
}

/* Cost model of one MSM of n points with c-bit windows: one bucket addition
 * per digit (windows x n) plus the bucket reduction of each bucket set,
 * weighted 3 per bucket (two XYZZ additions, each ~1.4 mixed additions).
 * |one_set|: shifted copies, every window's digits share one bucket set. */
static double msm_cost(unsigned r_bits, size_t n, unsigned c, bool one_set) {
    double w = (double)msm_nwin(r_bits, c);
    return w * (double)n + (one_set ? 1.0 : w) * 3.0 * (double)(1u << (c - 1));
}

/* Window size of least cost, capped at 22 bits so buckets stay a few GB at
 * most. */
static unsigned msm_choose_c(unsigned r_bits, size_t n) {
    unsigned best_c = 3;
    double best = 1e300;
    for (unsigned c = 3; c <= 22; c++) {
        double cost = msm_cost(r_bits, n, c, false);
        if (cost < best) {
            best = cost;
            best_c = c;
        }
    }
    return best_c;
}

/* The same with shifted copies of the bases: windows of 8..24 bits whose
 * copies (|pb| bytes per point) fit in |limit| bytes; with |reserve|, an
 * MSM's own scratch over all n points (sort pairs and CUB space ~24 bytes
 * per digit, the buckets, 512 MB slack) must fit too.  0 when none fits. */
#define MSM_SHIFT_MIN_C 8
#define MSM_SHIFT_MAX_C 24
static unsigned msm_choose_shift_c(unsigned r_bits, size_t n, size_t pb,
                                   size_t xyzz_bytes, size_t limit,
                                   bool reserve) {
    unsigned best_c = 0;
    double best = 1e300;
    for (unsigned c = MSM_SHIFT_MIN_C; c <= MSM_SHIFT_MAX_C; c++) {
        unsigned w = msm_nwin(r_bits, c);
        double need = (double)(w - 1) * (double)n * (double)pb;
        if (reserve) {
            double batch = (double)(n < CUZK_MSM_BATCH ? n : CUZK_MSM_BATCH);
            need += 24.0 * w * batch +
                    2.0 * (double)(1u << (c - 1)) * (double)xyzz_bytes +
                    512.0 * (1 << 20);
        }
        if (need > (double)limit)
            continue;
        double cost = msm_cost(r_bits, n, c, true);
        if (cost < best) {
            best = cost;
            best_c = c;
        }
    }
    return best_c;
}

static size_t clamp_sz(size_t v, size_t lo, size_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* Entries per thread at a level with M entries: enough threads to fill the
 * device several times over, at most |cap| entries each.  At least 4: the
 * level loop of msm_run ends only because ceil(2T / L) < T for T >= 2,
 * which fails for L = 3 (T = 2 stays 2 forever). */
static size_t msm_seg_len(size_t M, int sm_count, size_t cap) {
    size_t target = (size_t)sm_count * 1024;
    return clamp_sz((M + target - 1) / target, 4, cap);
}

static unsigned ilog2(size_t v) {
    unsigned k = 0;
    while (((size_t)1 << (k + 1)) <= v)
        k++;
    return k;
}

template <class G> struct msm_plan {
    unsigned c, nwin, log_b, log_s, key_bits;
    unsigned nwb; /* bucket sets: nwin, or 1 with shifted copies */
    size_t nvec;  /* scalar vectors summed over the same bases */
    size_t batch, M, T1, T2, nseg;
    size_t off_scalars, off_keys[2], off_vals[2], off_cub, cub_bytes;
    size_t off_cnt, off_off, off_scan, scan_bytes;
    size_t off_buckets, off_pk[2], off_pp[2], off_seg[2], off_stage[2];
    size_t total;
};

/* Most threads an accumulation level may run for up to |M| entries with
 * at most |cap| per thread: ceil(M' / msm_seg_len(M')) over every M' <= M
 * (the packed digit count is known only on the device).  Below
 * 4 * target entries the length is 4 and the threads at most target;
 * between, the length is ceil(M' / target); above, cap. */
static size_t msm_max_threads(size_t M, int sm_count, size_t cap) {
    size_t target = (size_t)sm_count * 1024 + 1;
    size_t capped = (M + cap - 1) / cap;
    return target > capped ? target : capped;
}

template <class G>
static cuzk_status msm_make_plan(msm_plan<G> &pl, size_t n, size_t nvec,
                                 bool host_scalars, bool host_bases,
                                 unsigned shift_c, int sm_count,
                                 unsigned force_c, cuzk_error *err) {
    typedef typename G::xyzz P;
    typedef typename G::affine A;
    size_t cap = CUZK_MSM_BATCH;
    if (host_bases) {
        /* an eighth of the points per batch, 2^16..2^22: the staging
         * buffers, the sort and the buckets stay a fraction of what the
         * bases would take on the device (at 2^22 points and below a
         * whole-size batch needed as much as the bases themselves) */
        cap = n / 8;
        cap = cap < CUZK_MSM_STREAM_MIN ? CUZK_MSM_STREAM_MIN
              : cap > CUZK_MSM_STREAM_BATCH ? CUZK_MSM_STREAM_BATCH
                                           : cap;
    }
    pl.batch = n < cap ? n : cap;
    /* Streamed bases: the window suits one batch, not all n points.
     * Every batch after the first adds its bucket sums into the buckets
     * (a load and a called XYZZ addition per finished bucket, at divergent
     * moments in a warp); with the window for n (20 bits at 2^24, ~8
     * entries per bucket and batch) that made the later batches 3x slower
     * than the first (H200, 2026-12-03), with the window for the batch
     * (~17 bits, ~60 entries per bucket) it is a small share, and the
     * buckets take a seventh of the memory. */
    pl.c = shift_c      ? shift_c
           : force_c >= 2 ? force_c
                          : msm_choose_c(G::R_BITS, host_bases ? pl.batch : n);
    pl.nwin = msm_nwin(G::R_BITS, pl.c);
    pl.nwb = shift_c ? 1 : pl.nwin;
    pl.nvec = nvec;
    pl.log_b = pl.c - 1;
    pl.key_bits = ilog2((size_t)pl.nwb << pl.log_b) + 1;
    pl.M = pl.batch * pl.nwin;
    /* partial-sum slots sized for any packed count up to M (sizing them
     * for M itself overflowed when most digits were zero) */
    pl.T1 = msm_max_threads(pl.M, sm_count, 256);
    pl.T2 = msm_max_threads(2 * pl.T1, sm_count, 32);
    /* bucket segments: aim for ~64K threads, at least 32 buckets each */
    pl.log_s = pl.log_b;
    while (pl.log_s > 5 && ((size_t)pl.nwb << (pl.log_b - pl.log_s)) < 65536)
        pl.log_s--;
    pl.nseg = (size_t)1 << (pl.log_b - pl.log_s);

    pl.cub_bytes = 0;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(
        (void *)NULL, pl.cub_bytes, (const uint32_t *)NULL, (uint32_t *)NULL,
        (const uint32_t *)NULL, (uint32_t *)NULL, (int)pl.M, 0,
        (int)pl.key_bits, (cudaStream_t)0);
    if (e != cudaSuccess)
        return cuzk_gpu_cuda_fail(err, e, "cub SortPairs (size query)",
                                  __FILE__, __LINE__);
    pl.scan_bytes = 0;
    e = cub::DeviceScan::ExclusiveSum((void *)NULL, pl.scan_bytes,
                                      (const unsigned long long *)NULL,
                                      (unsigned long long *)NULL,
                                      (int)(pl.batch + 1), (cudaStream_t)0);
    if (e != cudaSuccess)
        return cuzk_gpu_cuda_fail(err, e, "cub ExclusiveSum (size query)",
                                  __FILE__, __LINE__);
    cuzk_gpu_arena a = {0};
    pl.off_scalars = cuzk_gpu_arena_take(&a, host_scalars ? 32 * pl.batch : 0);
    for (int k = 0; k < 2; k++) {
        pl.off_keys[k] = cuzk_gpu_arena_take(&a, 4 * pl.M);
        pl.off_vals[k] = cuzk_gpu_arena_take(&a, 4 * pl.M);
    }
    pl.off_cub = cuzk_gpu_arena_take(&a, pl.cub_bytes);
    pl.off_cnt = cuzk_gpu_arena_take(&a, 8 * (pl.batch + 1));
    pl.off_off = cuzk_gpu_arena_take(&a, 8 * (pl.batch + 1));
    pl.off_scan = cuzk_gpu_arena_take(&a, pl.scan_bytes);
    pl.off_buckets = cuzk_gpu_arena_take(
        &a, nvec * ((size_t)pl.nwb << pl.log_b) * sizeof(P));
    size_t slots[2] = {2 * pl.T1, 2 * pl.T2};
    for (int k = 0; k < 2; k++) {
        pl.off_pk[k] = cuzk_gpu_arena_take(&a, 4 * slots[k]);
        pl.off_pp[k] = cuzk_gpu_arena_take(&a, sizeof(P) * slots[k]);
    }
    pl.off_seg[0] = cuzk_gpu_arena_take(&a, sizeof(P) * pl.nwb * pl.nseg);
    pl.off_seg[1] =
        cuzk_gpu_arena_take(&a, sizeof(P) * pl.nwb * (pl.nseg / 2 + 1));
    for (int k = 0; k < 2; k++)
        pl.off_stage[k] = cuzk_gpu_arena_take(
            &a, host_bases ? sizeof(A) * pl.batch : 0);
    pl.total = a.used;
    return CUZK_OK;
}

/* ---- batch-affine accumulation (msm_affine.cuh) ------------------------ */

/* Entries per thread of the batch-affine levels for M entries: long
 * segments, so one inversion serves many pairs (a field inversion costs
 * ~500 products), yet about sm_count * 512 threads; at least 256, which
 * keeps the following msm_acc_one level within the T1 partial slots of
 * msm_make_plan (T1 >= M / 256). */
static size_t msm_aff_len(size_t M, int sm_count) {
    size_t target = (size_t)sm_count * 512;
    return clamp_sz((M + target - 1) / target, 256, 4096);
}

/* Fewest pairs per thread for which a level is still done in affine: the
 * inversion shared by the pairs must cost less than the ~4 products each
 * affine addition saves (Fp2 products cost ~3 Fp products, an Fp2
 * inversion about one Fp inversion: G2 breaks even with fewer pairs). */
template <class G> static size_t msm_aff_min_pairs(void) {
    return sizeof(typename G::F) <= 48 ? 128 : 48; /* Fp of G1: <= 384 bits */
}

/* Adds the batch-affine scratch (work points for every entry, prefix
 * products for half of them) after the plan's own; returns the total. */
template <class G>
static size_t msm_aff_plan(const msm_plan<G> &pl, size_t *off_work,
                           size_t *off_pre) {
    cuzk_gpu_arena a = {pl.total};
    *off_work = cuzk_gpu_arena_take(&a, sizeof(typename G::affine) * pl.M);
    *off_pre = cuzk_gpu_arena_take(
        &a, sizeof(typename G::F) * (pl.M / 2 + 4096));
    return a.used;
}

/* ---- phase timing (cuzk_gpu_ctx_tune profile mode) ------------------------ */

/* Records the end of phase |name| on the stream (profile mode only). */
static void prof_mark(cuzk_gpu_stream *s, const char *name) {
    if (!s->ctx->profile || s->nev >= CUZK_GPU_MAX_EVENTS)
        return;
    if (s->ev[s->nev] == NULL &&
        cudaEventCreate(&s->ev[s->nev]) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    s->ev_name[s->nev] = name;
    cudaEventRecord(s->ev[s->nev], s->s);
    s->nev++;
}

/* Prints the phase times once the stream is synchronised. */
static void prof_report(cuzk_gpu_stream *s, size_t n, unsigned c) {
    if (!s->ctx->profile)
        return;
    fprintf(stderr, "msm profile n=%zu c=%u:", n, c);
    for (int i = 1; i < s->nev; i++) {
        float ms = 0;
        cudaEventElapsedTime(&ms, s->ev[i - 1], s->ev[i]);
        fprintf(stderr, " %s %.3f", s->ev_name[i], ms);
    }
    fprintf(stderr, " (ms)\n");
    s->nev = 0;
}

/* ---- one MSM ------------------------------------------------------------ */

template <class G>
static cuzk_status msm_run(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                           size_t offset, size_t n, size_t nvec,
                           const void *const *scalars, unsigned flags,
                           void *results, cuzk_error *err) {
    typedef typename G::xyzz P;
    typedef typename G::affine A;
    typedef typename G::F F;
    if (n == 0) {
        F *out = (F *)results;
        for (size_t v = 0; v < 3 * nvec; v++)
            f_set_zero(out[v]);
        return CUZK_OK;
    }
    bool host_scalars = !(flags & CUZK_GPU_SCALARS_DEVICE);
    bool mont = (flags & CUZK_GPU_SCALARS_MONT) != 0;
    bool host_bases = bases->h_points != NULL;
    bool shifted = bases->d_shift != NULL;
    msm_plan<G> pl;
    cuzk_status st = msm_make_plan<G>(pl, n, nvec, host_scalars, host_bases,
                                      shifted ? bases->shift_c : 0,
                                      s->ctx->sm_count, s->ctx->msm_window,
                                      err);
    bool affine = s->ctx->msm_affine;
    size_t off_aw = 0, off_apre = 0;
    if (st == CUZK_OK && affine)
        pl.total = msm_aff_plan<G>(pl, &off_aw, &off_apre);
    if (st == CUZK_OK && host_bases)
        st = cuzk_gpu_copy_stream(s, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_scratch(s, pl.total, err);
    /* host: per vector the window sums; the packed total of the current
     * batch */
    size_t hres = sizeof(P) * pl.nwb * nvec;
    if (st == CUZK_OK)
        st = cuzk_gpu_host_scratch(s, hres + 64, err);
    if (st != CUZK_OK)
        return st;
    char *base = (char *)s->d_scratch;
    uint32_t *keys[2], *vals[2], *pk[2];
    P *pp[2], *seg[2];
    for (int k = 0; k < 2; k++) {
        keys[k] = (uint32_t *)(base + pl.off_keys[k]);
        vals[k] = (uint32_t *)(base + pl.off_vals[k]);
        pk[k] = (uint32_t *)(base + pl.off_pk[k]);
        pp[k] = (P *)(base + pl.off_pp[k]);
        seg[k] = (P *)(base + pl.off_seg[k]);
    }
    size_t set_bk = (size_t)pl.nwb << pl.log_b; /* buckets per vector */
    P *buckets = (P *)(base + pl.off_buckets);
    unsigned long long *cnt = (unsigned long long *)(base + pl.off_cnt);
    unsigned long long *off = (unsigned long long *)(base + pl.off_off);
    const A *d_bases = (const A *)bases->d_points + offset;
    const A *h_bases = (const A *)bases->h_points + offset;
    A *stage[2] = {(A *)(base + pl.off_stage[0]), (A *)(base + pl.off_stage[1])};
    unsigned long long *h_tot =
        (unsigned long long *)((char *)s->h_scratch + hres);
    cudaStream_t cs = s->s;

    s->nev = 0;
    prof_mark(s, "start");
    CUZK_CUDA(err, cudaMemsetAsync(buckets, 0, nvec * set_bk * sizeof(P), cs));
    for (size_t b0 = 0, bi = 0; b0 < n; b0 += pl.batch, bi++) {
        size_t nb = n - b0 < pl.batch ? n - b0 : pl.batch;
        const A *batch_bases = d_bases + b0;
        if (host_bases) {
            /* Staging buffer k was last read by batch bi - 2's
             * accumulations; the copy stream waits for that, fills it, and
             * this stream waits for the copy, so batch bi's transfer runs
             * while batch bi - 1 computes.  Every vector of the call uses
             * the batch: the bases cross PCIe once for all of them. */
            int k = (int)(bi & 1);
            if (bi >= 2)
                CUZK_CUDA(err, cudaStreamWaitEvent(s->copy_s, s->stage_free[k], 0));
            CUZK_CUDA(err, cudaMemcpyAsync(stage[k], h_bases + b0,
                                           sizeof(A) * nb,
                                           cudaMemcpyHostToDevice, s->copy_s));
            CUZK_CUDA(err, cudaEventRecord(s->stage_full[k], s->copy_s));
            CUZK_CUDA(err, cudaStreamWaitEvent(cs, s->stage_full[k], 0));
            batch_bases = stage[k];
        }
        bool acc = b0 > 0;
        for (size_t v = 0; v < nvec; v++) {
            P *vb = buckets + v * set_bk;
            const uint32_t *d_sc;
            if (host_scalars) {
                d_sc = (const uint32_t *)(base + pl.off_scalars);
                CUZK_CUDA(err, cudaMemcpyAsync((void *)d_sc,
                                               (const char *)scalars[v] + 32 * b0,
                                               32 * nb, cudaMemcpyHostToDevice,
                                               cs));
                prof_mark(s, "copy");
            } else {
                d_sc = (const uint32_t *)scalars[v] + 8 * b0;
            }
            /* 1. digits, packed: count, scan, scatter */
            k_msm_count<G><<<cuzk_gpu_blocks(nb + 1, MSM_SMALL_THREADS),
                             MSM_SMALL_THREADS, 0, cs>>>(d_sc, nb, mont, pl.c,
                                                         pl.nwin, cnt);
            CUZK_LAUNCHED(err);
            size_t scan_bytes = pl.scan_bytes;
            CUZK_CUDA(err, cub::DeviceScan::ExclusiveSum(
                               (void *)(base + pl.off_scan), scan_bytes, cnt,
                               off, (int)(nb + 1), cs));
            k_msm_scatter<G><<<cuzk_gpu_blocks(nb, MSM_SMALL_THREADS),
                               MSM_SMALL_THREADS, 0, cs>>>(
                d_sc, nb, mont, pl.c, pl.nwin,
                shifted ? (uint32_t)bases->n : 0u,
                shifted ? (uint32_t)(offset + b0) : 0u, off, keys[0],
                vals[0]);
            CUZK_LAUNCHED(err);
            /* the sort's size: the packed count */
            CUZK_CUDA(err, cudaMemcpyAsync(h_tot, off + nb, 8,
                                           cudaMemcpyDeviceToHost, cs));
            CUZK_CUDA(err, cudaStreamSynchronize(cs));
            size_t M = (size_t)*h_tot;
            prof_mark(s, "digits");
            if (M == 0)
                continue;
            size_t cub_bytes = pl.cub_bytes;
            CUZK_CUDA(err, cub::DeviceRadixSort::SortPairs(
                               (void *)(base + pl.off_cub), cub_bytes, keys[0],
                               keys[1], vals[0], vals[1], (int)M, 0,
                               (int)pl.key_bits, cs));
            prof_mark(s, "sort");
            /* level 1: sorted pairs -> buckets + partial list pk[0]/pp[0] */
            size_t L = msm_seg_len(M, s->ctx->sm_count, 256);
            size_t T = (M + L - 1) / L;
            const A *l1_bases = shifted ? (const A *)bases->d_points : batch_bases;
            const A *l1_shift = (const A *)bases->d_shift;
            uint32_t l1_nfirst = shifted ? (uint32_t)bases->n : MSM_INVALID;
            if (affine) {
                /* batch-affine levels in place; level 1 then reads their
                 * points with the same segments (msm_affine.cuh) */
                L = msm_aff_len(M, s->ctx->sm_count);
                T = (M + L - 1) / L;
                A *work = (A *)(base + off_aw);
                k_msm_aff<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                               MSM_ACC_THREADS, 0, cs>>>(
                    keys[1], M, L, T, vals[1], l1_bases, l1_shift, l1_nfirst,
                    msm_aff_min_pairs<G>(), work, (F *)(base + off_apre));
                CUZK_LAUNCHED(err);
                prof_mark(s, "affine");
                l1_bases = work;
                l1_shift = NULL;
                l1_nfirst = MSM_INVALID;
            }
            if (s->ctx->msm_acc_minb == 3 && sizeof(F) <= 48)
                k_msm_acc<G, true, 3><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                                        MSM_ACC_THREADS, 0, cs>>>(
                    keys[1], M, L, T, vals[1], l1_bases, l1_shift, l1_nfirst,
                    (const P *)NULL, vb, acc, pk[0], pp[0]);
            else
                k_msm_acc<G, true><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                                     MSM_ACC_THREADS, 0, cs>>>(
                    keys[1], M, L, T, vals[1], l1_bases, l1_shift, l1_nfirst,
                    (const P *)NULL, vb, acc, pk[0], pp[0]);
            CUZK_LAUNCHED(err);
            prof_mark(s, "accumulate");
            int cur = 0;
            while (T > 1) {
                size_t Mk = 2 * T;
                L = msm_seg_len(Mk, s->ctx->sm_count, 32);
                T = (Mk + L - 1) / L;
                k_msm_acc<G, false><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                                      MSM_ACC_THREADS, 0, cs>>>(
                    pk[cur], Mk, L, T, (const uint32_t *)NULL, (const A *)NULL,
                    (const A *)NULL, 0u, pp[cur], vb, acc, pk[cur ^ 1],
                    pp[cur ^ 1]);
                CUZK_LAUNCHED(err);
                cur ^= 1;
            }
            prof_mark(s, "levels");
        }
        if (host_bases)
            CUZK_CUDA(err, cudaEventRecord(s->stage_free[bi & 1], cs));
    }
    P *h_res = (P *)s->h_scratch;
    for (size_t v = 0; v < nvec; v++) {
        /* bucket reduction, then pairwise sums down to one point per
         * window */
        size_t T = (size_t)pl.nwb * pl.nseg;
        k_msm_bucket_reduce<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                                 MSM_ACC_THREADS, 0, cs>>>(
            buckets + v * set_bk, pl.log_b, pl.log_s, T, seg[0]);
        CUZK_LAUNCHED(err);
        prof_mark(s, "reduce");
        int cur = 0;
        for (size_t cnt2 = pl.nseg; cnt2 > 1; cnt2 /= 2) {
            T = (size_t)pl.nwb * (cnt2 / 2);
            k_msm_tree<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                            MSM_ACC_THREADS, 0, cs>>>(seg[cur], cnt2 / 2, T,
                                                      seg[cur ^ 1]);
            CUZK_LAUNCHED(err);
            cur ^= 1;
        }
        P *h_v = h_res + v * pl.nwb;
        CUZK_CUDA(err, cudaMemcpyAsync(h_v, seg[cur], sizeof(P) * pl.nwb,
                                       cudaMemcpyDeviceToHost, cs));
        prof_mark(s, "tree");
    }
    CUZK_CUDA(err, cudaStreamSynchronize(cs));
    F *out = (F *)results;
    for (size_t v = 0; v < nvec; v++) {
        P res;
        msm_combine_host<G>(res, h_res + v * pl.nwb, pl.nwb, pl.c);
        pt_to_jacobian(out + 3 * v, res);
    }
    prof_report(s, n, pl.c);
    return CUZK_OK;
}

/* ---- C interface ----------------------------------------------------------- */

static size_t affine_bytes(cuzk_gpu_curve curve, cuzk_gpu_group group) {
    size_t fp = curve == CUZK_GPU_BLS12_381 ? 48 : curve == CUZK_GPU_BN254 ? 32 : 0;
    if (group != CUZK_GPU_G1 && group != CUZK_GPU_G2)
        return 0;
    return 2 * fp * (group == CUZK_GPU_G2 ? 2 : 1);
}

/* A bases object for n points of (curve, group), checked, with no storage
 * yet; |what| names the caller in messages. */
static cuzk_status bases_new(cuzk_gpu_ctx *ctx, cuzk_gpu_curve curve,
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
                                             cuzk_gpu_curve curve,
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
                                           cuzk_gpu_curve curve,
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
    bool g2 = b->group == CUZK_GPU_G2;
    unsigned r_bits = b->curve == CUZK_GPU_BLS12_381 ? 255 : 254;
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
    unsigned w;
    if (c == 0) {
        c = msm_choose_shift_c(r_bits, b->n, pb, xb, limit, reserve);
        if (c == 0)
            return cuzk_gpu_fail(err, CUZK_ENOMEM,
                                 "bases precompute: shifted copies of %zu "
                                 "points do not fit in %zu MB",
                                 b->n, limit >> 20);
    }
    w = msm_nwin(r_bits, c);
    if ((double)w * (double)b->n >= (double)((size_t)1 << 31))
        return cuzk_gpu_fail(err, CUZK_ERANGE,
                             "bases precompute: %u windows x %zu points >= "
                             "2^31",
                             w, b->n);
    size_t bytes = (size_t)(w - 1) * b->n * pb;
    if (bytes > limit)
        return cuzk_gpu_fail(err, CUZK_ENOMEM,
                             "bases precompute: %u copies need %zu MB, limit "
                             "%zu MB",
                             w - 1, bytes >> 20, limit >> 20);
    void *dst = NULL, *tmp = NULL;
    cudaStream_t cs = NULL;
    cuzk_status st = CUZK_OK;
    e = cuzk_gpu_dmalloc(b->ctx, &dst, bytes);
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
        if (b->curve == CUZK_GPU_BLS12_381)
            st = g2 ? shift_build<gg_bls12_381_g2>(b, c, w, dst, tmp, cs, err)
                    : shift_build<gg_bls12_381_g1>(b, c, w, dst, tmp, cs, err);
        else
            st = g2 ? shift_build<gg_bn254_g2>(b, c, w, dst, tmp, cs, err)
                    : shift_build<gg_bn254_g1>(b, c, w, dst, tmp, cs, err);
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

template <class G>
static cuzk_status scratch_of(size_t n, bool host_bases, int sm_count, size_t *out,
                              cuzk_error *err) {
    msm_plan<G> pl;
    cuzk_status st = msm_make_plan<G>(pl, n, 1, false, host_bases, 0, sm_count, 0, err);
    *out = st == CUZK_OK ? pl.total : 0;
    return st;
}

extern "C" cuzk_status cuzk_gpu_msm_scratch_bytes(cuzk_gpu_ctx *ctx, cuzk_gpu_curve curve,
                                                  cuzk_gpu_group group, size_t n,
                                                  int host_bases, size_t *bytes,
                                                  cuzk_error *err) {
    *bytes = 0;
    if (n == 0)
        return CUZK_OK;
    bool h = host_bases != 0;
    int sm = ctx->sm_count;
    if (curve == CUZK_GPU_BLS12_381)
        return group == CUZK_GPU_G2 ? scratch_of<gg_bls12_381_g2>(n, h, sm, bytes, err)
                                    : scratch_of<gg_bls12_381_g1>(n, h, sm, bytes, err);
    if (curve == CUZK_GPU_BN254)
        return group == CUZK_GPU_G2 ? scratch_of<gg_bn254_g2>(n, h, sm, bytes, err)
                                    : scratch_of<gg_bn254_g1>(n, h, sm, bytes, err);
    return cuzk_gpu_fail(err, CUZK_EINVAL, "msm scratch: bad curve %d", (int)curve);
}

extern "C" unsigned cuzk_gpu_msm_window_bits(cuzk_gpu_curve curve,
                                             cuzk_gpu_group group, size_t n) {
    (void)group; /* same model for G1 and G2 (both costs scale alike) */
    return msm_choose_c(curve == CUZK_GPU_BLS12_381 ? 255 : 254, n);
}

extern "C" cuzk_status cuzk_gpu_msm_batch(cuzk_gpu_stream *s,
                                          const cuzk_gpu_bases *bases,
                                          size_t offset, size_t n, size_t nvec,
                                          const void *const *scalars,
                                          unsigned flags, void *results,
                                          cuzk_error *err) {
    if (bases == NULL || results == NULL || scalars == NULL || nvec == 0 ||
        nvec > CUZK_GPU_MSM_MAX_VECTORS)
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "msm: NULL argument or %zu vectors (1..%d)", nvec,
                             CUZK_GPU_MSM_MAX_VECTORS);
    for (size_t v = 0; v < nvec && n > 0; v++)
        if (scalars[v] == NULL)
            return cuzk_gpu_fail(err, CUZK_EINVAL, "msm: vector %zu is NULL", v);
    if (offset > bases->n || n > bases->n - offset)
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "msm: points [%zu, %zu) beyond the %zu bases",
                             offset, offset + n, bases->n);
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    if (bases->curve == CUZK_GPU_BLS12_381 && bases->group == CUZK_GPU_G1)
        return msm_run<gg_bls12_381_g1>(s, bases, offset, n, nvec, scalars,
                                        flags, results, err);
    if (bases->curve == CUZK_GPU_BLS12_381 && bases->group == CUZK_GPU_G2)
        return msm_run<gg_bls12_381_g2>(s, bases, offset, n, nvec, scalars,
                                        flags, results, err);
    if (bases->curve == CUZK_GPU_BN254 && bases->group == CUZK_GPU_G1)
        return msm_run<gg_bn254_g1>(s, bases, offset, n, nvec, scalars, flags,
                                    results, err);
    return msm_run<gg_bn254_g2>(s, bases, offset, n, nvec, scalars, flags,
                                results, err);
}

/* What msm_run allocates for the same call, allocated now. */
template <class G>
static cuzk_status msm_reserve(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases, size_t n,
                               size_t nvec, unsigned flags, cuzk_error *err) {
    typedef typename G::xyzz P;
    bool host_bases = bases->h_points != NULL;
    msm_plan<G> pl;
    cuzk_status st = msm_make_plan<G>(pl, n, nvec, !(flags & CUZK_GPU_SCALARS_DEVICE),
                                      host_bases, bases->d_shift ? bases->shift_c : 0,
                                      s->ctx->sm_count, s->ctx->msm_window, err);
    if (st == CUZK_OK && host_bases)
        st = cuzk_gpu_copy_stream(s, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_scratch(s, pl.total, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_host_scratch(s, sizeof(P) * pl.nwb * nvec + 64, err);
    return st;
}

extern "C" cuzk_status cuzk_gpu_msm_reserve(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                                            size_t n, size_t nvec, unsigned flags,
                                            cuzk_error *err) {
    if (bases == NULL || nvec == 0 || nvec > CUZK_GPU_MSM_MAX_VECTORS || n > bases->n)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "msm reserve: %zu of %zu points, %zu vectors",
                             n, bases ? bases->n : 0, nvec);
    if (n == 0)
        return CUZK_OK;
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    if (bases->curve == CUZK_GPU_BLS12_381 && bases->group == CUZK_GPU_G1)
        return msm_reserve<gg_bls12_381_g1>(s, bases, n, nvec, flags, err);
    if (bases->curve == CUZK_GPU_BLS12_381 && bases->group == CUZK_GPU_G2)
        return msm_reserve<gg_bls12_381_g2>(s, bases, n, nvec, flags, err);
    if (bases->curve == CUZK_GPU_BN254 && bases->group == CUZK_GPU_G1)
        return msm_reserve<gg_bn254_g1>(s, bases, n, nvec, flags, err);
    return msm_reserve<gg_bn254_g2>(s, bases, n, nvec, flags, err);
}

extern "C" cuzk_status cuzk_gpu_msm(cuzk_gpu_stream *s,
                                    const cuzk_gpu_bases *bases, size_t offset,
                                    size_t n, const void *scalars,
                                    unsigned flags, void *result,
                                    cuzk_error *err) {
    if (n > 0 && scalars == NULL)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "msm: NULL argument");
    const void *one[1] = {scalars};
    return cuzk_gpu_msm_batch(s, bases, offset, n, 1, one, flags, result, err);
}
