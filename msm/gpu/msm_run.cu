/*
 * GPU multi-scalar multiplication for G1 and G2 of BLS12-381 and BN254
 * (gpu/msm.h: cuzk_gpu_msm, cuzk_gpu_msm_batch, _batch_gather).  The
 * algorithm and the per-thread bodies are in msm_kernels.cuh, the plan
 * (window, chunks, scratch layout within a byte limit) in msm_plan.h and
 * msm_plan.cu; this file runs a plan: it stages bases and scalars from
 * host memory on the stream's copy stream, launches the kernels, sorts with
 * CUB and combines the window sums on the host.  The bases objects
 * (upload, host, shifted copies) are in msm_bases.cu.
 *
 * Every MSM runs in chunks of points whose digits are added into buckets
 * that stay on the device for the whole call, so the scratch is bounded by
 * the plan's limit (64 bytes a point by default) whatever n is, bases in
 * host memory cross PCIe once per call (for every vector of a batch), and
 * there is one bucket reduction per vector.  The number of packed digits
 * of each chunk comes back to the host (a stream synchronisation) to size
 * its sort.
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

#include "gpu/dispatch.cuh"
#include "msm/gpu/msm_affine.cuh"
#include "msm/gpu/msm_int.cuh"
#include "msm/gpu/msm_kernels.cuh"

template <class G>
__global__ void k_msm_count(const uint32_t *scalars, const uint32_t *sidx,
                            size_t n, bool mont, bool ones, unsigned c,
                            unsigned nwin, unsigned long long *cnt) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        msm_count_one<G>(i, scalars, sidx, n, mont, ones, c, nwin, cnt);
}

template <class G>
__global__ void k_msm_scatter(const uint32_t *scalars, const uint32_t *sidx,
                              size_t n, bool mont, bool ones,
                              uint32_t ones_key, unsigned c, unsigned nwin,
                              uint32_t vstride, uint32_t vbase,
                              const unsigned long long *off, uint32_t *keys,
                              uint32_t *vals) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        msm_scatter_one<G>(i, scalars, sidx, n, mont, ones, ones_key, c, nwin,
                           vstride, vbase, off, keys, vals);
}

/* out[0] += scalars that are neither 0 nor 1, out[1] += scalars equal to 1
 * (grid-stride; one atomic per block and counter). */
template <class G>
__global__ void k_msm_classify(const uint32_t *scalars, const uint32_t *sidx, size_t n,
                               bool mont, unsigned long long *out) {
    __shared__ unsigned long long dense, ones;
    if (threadIdx.x == 0)
        dense = ones = 0;
    __syncthreads();
    unsigned long long d = 0, o = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        fp_t<typename G::S> x;
        msm_scalar_at<G>(x, scalars, sidx, i, mont);
        uint32_t any = 0;
        for (int j = 0; j < 8; j++)
            any |= x.v[j];
        if (msm_scalar_is_one(x))
            o++;
        else if (any)
            d++;
    }
    atomicAdd(&dense, d);
    atomicAdd(&ones, o);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&out[0], dense);
        atomicAdd(&out[1], ones);
    }
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

/* ---- measuring the scalars (msm_plan.h: dense_q, ones_q) -------------------- */

/* Scalars of device vectors below this many are planned as full ones
 * without measuring (the count costs a launch and a synchronisation). */
#define MSM_MEASURE_MIN ((size_t)1 << 16)

/*
 * rq.dense_q / rq.ones_q from the scalars themselves (device vectors of at
 * least MSM_MEASURE_MIN points): one pass counting the scalars that are
 * neither 0 nor 1 and those equal to 1, the largest share over the
 * vectors, in 64ths rounded up.  A witness of bits (Filecoin's aux) then
 * gets a window and chunks for the few digits it has: planned as full
 * scalars, B2 of a 2^27 PoRep partition ran in 11 chunks of 20-bit windows
 * for 1.41 s on the H200, most of it folding and reducing buckets.
 */
template <class G>
static cuzk_status msm_measure(cuzk_gpu_stream *s, msm_plan_req &rq, size_t n, size_t nvec,
                               const void *const *scalars, const uint32_t *sidx, bool mont,
                               cuzk_error *err) {
    if (rq.host_scalars || n < MSM_MEASURE_MIN)
        return CUZK_OK;
    if (!s->d_small)
        CUZK_CUDA(err, cuzk_gpu_dmalloc(s->ctx, (void **)&s->d_small,
                                        16 * CUZK_GPU_MSM_MAX_VECTORS));
    cuzk_status st = cuzk_gpu_host_scratch(s, 16 * CUZK_GPU_MSM_MAX_VECTORS, err);
    if (st != CUZK_OK)
        return st;
    CUZK_CUDA(err, cudaMemsetAsync(s->d_small, 0, 16 * nvec, s->s));
    int blocks = 4 * s->ctx->sm_count;
    for (size_t v = 0; v < nvec; v++) {
        k_msm_classify<G><<<blocks, MSM_SMALL_THREADS, 0, s->s>>>(
            (const uint32_t *)scalars[v], sidx, n, mont, s->d_small + 2 * v);
        CUZK_LAUNCHED(err);
    }
    unsigned long long *h = (unsigned long long *)s->h_scratch;
    CUZK_CUDA(err, cudaMemcpyAsync(h, s->d_small, 16 * nvec, cudaMemcpyDeviceToHost, s->s));
    CUZK_CUDA(err, cudaStreamSynchronize(s->s));
    unsigned long long dmax = 0, omax = 0;
    for (size_t v = 0; v < nvec; v++) {
        dmax = h[2 * v] > dmax ? h[2 * v] : dmax;
        omax = h[2 * v + 1] > omax ? h[2 * v + 1] : omax;
    }
    unsigned dq = (unsigned)((dmax * 64 + n - 1) / n), oq = (unsigned)((omax * 64 + n - 1) / n);
    rq.dense_q = dq < 1 ? 1 : dq > 64 ? 64 : dq;
    rq.ones_q = oq > 64 ? 64 : oq;
    return CUZK_OK;
}

/* Fewest pairs per thread for which a level is still done in affine: the
 * inversion shared by the pairs must cost less than the ~4 products each
 * affine addition saves (Fp2 products cost ~3 Fp products, an Fp2
 * inversion about one Fp inversion: G2 breaks even with fewer pairs). */
template <class G> static size_t msm_aff_min_pairs(void) {
    return sizeof(typename G::F) <= 48 ? 128 : 48; /* Fp of G1: <= 384 bits */
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
static void prof_report(cuzk_gpu_stream *s, const msm_plan &pl) {
    if (!s->ctx->profile)
        return;
    fprintf(stderr, "msm profile n=%zu c=%u chunks=%zu (of %zu) vectors=%zu:",
            pl.n, pl.c, pl.nchunks, pl.chunk, pl.nvec);
    for (int i = 1; i < s->nev; i++) {
        float ms = 0;
        cudaEventElapsedTime(&ms, s->ev[i - 1], s->ev[i]);
        fprintf(stderr, " %s %.3f", s->ev_name[i], ms);
    }
    fprintf(stderr, " (ms)\n");
    s->nev = 0;
}

/* ---- one MSM ------------------------------------------------------------ */

/* What one call works on: the plan's arena carved into typed pointers. */
template <class G> struct msm_views {
    typedef typename G::xyzz P;
    typedef typename G::affine A;
    uint32_t *keys[2], *vals[2], *pk[2], *sc[2];
    P *pp[2], *seg[2], *buckets;
    A *stage[2], *work;
    unsigned long long *cnt, *off, *h_tot;
    void *cub, *scan, *pre;
    P *h_res;
};

template <class G>
static void msm_carve(msm_views<G> &v, const msm_plan &pl, cuzk_gpu_stream *s) {
    typedef typename G::xyzz P;
    typedef typename G::affine A;
    char *b = (char *)s->d_scratch;
    for (int k = 0; k < 2; k++) {
        v.keys[k] = (uint32_t *)(b + pl.off_keys[k]);
        v.vals[k] = (uint32_t *)(b + pl.off_vals[k]);
        v.pk[k] = (uint32_t *)(b + pl.off_pk[k]);
        v.pp[k] = (P *)(b + pl.off_pp[k]);
        v.seg[k] = (P *)(b + pl.off_seg[k]);
        v.sc[k] = (uint32_t *)(b + pl.off_scalars[k]);
        v.stage[k] = (A *)(b + pl.off_stage[k]);
    }
    v.buckets = (P *)(b + pl.off_buckets);
    v.cnt = (unsigned long long *)(b + pl.off_cnt);
    v.off = (unsigned long long *)(b + pl.off_off);
    v.cub = b + pl.off_cub;
    v.scan = b + pl.off_scan;
    v.work = (A *)(b + pl.off_work);
    v.pre = b + pl.off_pre;
    v.h_res = (P *)s->h_scratch;
    v.h_tot = (unsigned long long *)((char *)s->h_scratch +
                                     sizeof(P) * (pl.nwb + 1) * pl.nvec);
}

/* Queues the copy of chunk |ci| ([b0, b0 + nb) of the bases) into staging
 * buffer ci & 1 on the copy stream, after the chunk that used that buffer
 * last is done with it. */
template <class G>
static cuzk_status stage_bases(cuzk_gpu_stream *s, const msm_views<G> &v,
                               const typename G::affine *h_bases, size_t ci,
                               size_t b0, size_t nb, cuzk_error *err) {
    int k = (int)(ci & 1);
    if (ci >= 2)
        CUZK_CUDA(err, cudaStreamWaitEvent(s->copy_s, s->stage_free[k], 0));
    CUZK_CUDA(err, cudaMemcpyAsync(v.stage[k], h_bases + b0,
                                   sizeof(typename G::affine) * nb,
                                   cudaMemcpyHostToDevice, s->copy_s));
    CUZK_CUDA(err, cudaEventRecord(s->stage_full[k], s->copy_s));
    return CUZK_OK;
}

/* Same for the scalars of step |si| (chunk, vector) into buffer si & 1. */
static cuzk_status stage_scalars(cuzk_gpu_stream *s, uint32_t *dst,
                                 const void *src, size_t si, size_t nb,
                                 cuzk_error *err) {
    int k = (int)(si & 1);
    if (si >= 2)
        CUZK_CUDA(err, cudaStreamWaitEvent(s->copy_s, s->sc_free[k], 0));
    CUZK_CUDA(err, cudaMemcpyAsync(dst, src, 32 * nb, cudaMemcpyHostToDevice,
                                   s->copy_s));
    CUZK_CUDA(err, cudaEventRecord(s->sc_full[k], s->copy_s));
    return CUZK_OK;
}

/* Step 1 of a chunk: count, scan and read back its digits.  |*Md|: the
 * non-zero digits to sort, |*M1|: the scalars equal to one (unsorted,
 * after them).  The read-back is the one host round trip of a chunk: the
 * sort's size is known before anything is written. */
template <class G>
static cuzk_status msm_count_digits(cuzk_gpu_stream *s, const msm_plan &pl, msm_views<G> &v,
                                    const uint32_t *d_sc, const uint32_t *sidx, size_t nb,
                                    bool mont, size_t *Md, size_t *M1, cuzk_error *err) {
    cudaStream_t cs = s->s;
    k_msm_count<G><<<cuzk_gpu_blocks(nb + 1, MSM_SMALL_THREADS),
                     MSM_SMALL_THREADS, 0, cs>>>(d_sc, sidx, nb, mont, s->ctx->msm_ones,
                                                 pl.c, pl.nwin, v.cnt);
    CUZK_LAUNCHED(err);
    size_t scan_bytes = pl.scan_bytes;
    CUZK_CUDA(err, cub::DeviceScan::ExclusiveSum(v.scan, scan_bytes, v.cnt,
                                                 v.off, (int)(nb + 1), cs));
    CUZK_CUDA(err, cudaMemcpyAsync(v.h_tot, v.off + nb, 8,
                                   cudaMemcpyDeviceToHost, cs));
    CUZK_CUDA(err, cudaStreamSynchronize(cs));
    *Md = (size_t)(*v.h_tot & 0xFFFFFFFFull); /* digits */
    *M1 = (size_t)(*v.h_tot >> 32);           /* ones */
    return CUZK_OK;
}

/* Step 3: the scattered digits sorted by bucket (the ones follow them
 * unsorted); |*keys|, |*vals| receive the buffers that hold the result. */
template <class G>
static cuzk_status msm_sort(cuzk_gpu_stream *s, const msm_plan &pl, msm_views<G> &v,
                            size_t Md, size_t M1, uint32_t **keys, uint32_t **vals,
                            cuzk_error *err) {
    cudaStream_t cs = s->s;
    size_t cub_bytes = pl.cub_bytes;
    cub::DoubleBuffer<uint32_t> dk(v.keys[0], v.keys[1]);
    cub::DoubleBuffer<uint32_t> dv(v.vals[0], v.vals[1]);
    if (Md > 0)
        CUZK_CUDA(err, cub::DeviceRadixSort::SortPairs(v.cub, cub_bytes, dk,
                                                       dv, (int)Md, 0,
                                                       (int)pl.key_bits, cs));
    if (M1 > 0 && dk.selector != 0) {
        /* the sorted digits ended in the other buffer: the ones follow */
        CUZK_CUDA(err, cudaMemcpyAsync(dk.Current() + Md, v.keys[0] + Md,
                                       4 * M1, cudaMemcpyDeviceToDevice, cs));
        CUZK_CUDA(err, cudaMemcpyAsync(dv.Current() + Md, v.vals[0] + Md,
                                       4 * M1, cudaMemcpyDeviceToDevice, cs));
    }
    *keys = dk.Current();
    *vals = dv.Current();
    prof_mark(s, "sort");
    return CUZK_OK;
}

/* Step 4: level 1 over the |M| sorted pairs into the buckets |vb| and the
 * partial list pk[0]/pp[0] (batch-affine levels in place first when the
 * context asks for them: level 1 then reads their points with the same
 * segments, msm_affine.cuh); then the further levels over the partial
 * lists.  Those complete buckets whose old value level 1 already folded
 * in, so they never fold. */
template <class G>
static cuzk_status msm_levels(cuzk_gpu_stream *s, msm_views<G> &v, typename G::xyzz *vb,
                              uint32_t *keys, uint32_t *vals, size_t M,
                              const typename G::affine *l1_bases,
                              const typename G::affine *l1_shift, uint32_t l1_nfirst,
                              bool fold, cuzk_error *err) {
    typedef typename G::xyzz P;
    typedef typename G::affine A;
    typedef typename G::F F;
    cudaStream_t cs = s->s;
    int sm = s->ctx->sm_count;
    size_t L = msm_seg_len(M, sm, 256);
    size_t T = (M + L - 1) / L;
    if (s->ctx->msm_affine) {
        L = msm_aff_len(M, sm);
        T = (M + L - 1) / L;
        k_msm_aff<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS), MSM_ACC_THREADS,
                       0, cs>>>(keys, M, L, T, vals, l1_bases,
                                l1_shift, l1_nfirst, msm_aff_min_pairs<G>(),
                                v.work, (F *)v.pre);
        CUZK_LAUNCHED(err);
        prof_mark(s, "affine");
        l1_bases = v.work;
        l1_shift = NULL;
        l1_nfirst = MSM_INVALID;
    }
    if (s->ctx->msm_acc_minb == 3 && sizeof(F) <= 48)
        k_msm_acc<G, true, 3><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                                MSM_ACC_THREADS, 0, cs>>>(
            keys, M, L, T, vals, l1_bases, l1_shift, l1_nfirst,
            (const P *)NULL, vb, fold, v.pk[0], v.pp[0]);
    else
        k_msm_acc<G, true><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                             MSM_ACC_THREADS, 0, cs>>>(
            keys, M, L, T, vals, l1_bases, l1_shift, l1_nfirst,
            (const P *)NULL, vb, fold, v.pk[0], v.pp[0]);
    CUZK_LAUNCHED(err);
    prof_mark(s, "accumulate");
    int cur = 0;
    while (T > 1) {
        size_t Mk = 2 * T;
        L = msm_seg_len(Mk, sm, 32);
        T = (Mk + L - 1) / L;
        k_msm_acc<G, false><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                              MSM_ACC_THREADS, 0, cs>>>(
            v.pk[cur], Mk, L, T, (const uint32_t *)NULL, (const A *)NULL,
            (const A *)NULL, 0u, v.pp[cur], vb, false, v.pk[cur ^ 1],
            v.pp[cur ^ 1]);
        CUZK_LAUNCHED(err);
        cur ^= 1;
    }
    prof_mark(s, "levels");
    return CUZK_OK;
}

/* One vector's digits of one chunk added into its buckets: count, scan and
 * scatter the non-zero digits (the ones after them, unsorted), sort the
 * digits by bucket, level 1 and the further levels.  |d_sc|: the chunk's
 * scalars on the device, or with |sidx| the whole vector gathered through
 * the chunk's sidx; |l1_bases|: the chunk's points (or all points with
 * shifted copies); |fold|: not the first chunk, so level 1 folds the
 * stored buckets in. */
template <class G>
static cuzk_status msm_chunk(cuzk_gpu_stream *s, const msm_plan &pl,
                             msm_views<G> &v, typename G::xyzz *vb,
                             const uint32_t *d_sc, const uint32_t *sidx,
                             size_t nb, bool mont, uint32_t vstride,
                             uint32_t vbase,
                             const typename G::affine *l1_bases,
                             const typename G::affine *l1_shift,
                             uint32_t l1_nfirst, bool fold, cuzk_error *err) {
    size_t Md = 0, M1 = 0;
    cuzk_status st = msm_count_digits<G>(s, pl, v, d_sc, sidx, nb, mont, &Md, &M1, err);
    if (st != CUZK_OK)
        return st;
    size_t M = Md + M1;
    if (M > pl.M) {
        /* more pairs than the measured scalars planned for (a dense
         * stretch): the two halves one after the other, into the same
         * buckets (the second folds them) */
        if (nb < 2)
            return cuzk_gpu_fail(err, CUZK_EINTERNAL,
                                 "msm: %zu digits of one point, %zu planned", M, pl.M);
        size_t h = nb / 2;
        st = msm_chunk<G>(s, pl, v, vb, d_sc, sidx, h, mont, vstride, vbase,
                          l1_bases, l1_shift, l1_nfirst, fold, err);
        if (st != CUZK_OK)
            return st;
        bool shifted = vstride != 0;
        return msm_chunk<G>(s, pl, v, vb, sidx ? d_sc : d_sc + 8 * h, sidx ? sidx + h : NULL,
                            nb - h, mont, vstride, shifted ? vbase + (uint32_t)h : vbase,
                            shifted ? l1_bases : l1_bases + h, l1_shift, l1_nfirst, true, err);
    }
    /* step 2: the digits, packed */
    uint32_t ones_key = (uint32_t)pl.nwb << pl.log_b;
    k_msm_scatter<G><<<cuzk_gpu_blocks(nb, MSM_SMALL_THREADS),
                       MSM_SMALL_THREADS, 0, s->s>>>(
        d_sc, sidx, nb, mont, s->ctx->msm_ones, ones_key, pl.c, pl.nwin, vstride, vbase,
        v.off, v.keys[0], v.vals[0]);
    CUZK_LAUNCHED(err);
    prof_mark(s, "digits");
    if (M == 0)
        return CUZK_OK;
    uint32_t *keys = NULL, *vals = NULL;
    if ((st = msm_sort<G>(s, pl, v, Md, M1, &keys, &vals, err)) != CUZK_OK)
        return st;
    return msm_levels<G>(s, v, vb, keys, vals, M, l1_bases, l1_shift, l1_nfirst, fold, err);
}

/* Bucket reduction of vector |vi|, then pairwise sums down to one point per
 * window, copied to the host. */
template <class G>
static cuzk_status msm_reduce(cuzk_gpu_stream *s, const msm_plan &pl,
                              msm_views<G> &v, size_t vi, cuzk_error *err) {
    cudaStream_t cs = s->s;
    size_t stride = msm_set_stride(pl), set_bk = stride - 1;
    size_t T = (size_t)pl.nwb * pl.nseg;
    k_msm_bucket_reduce<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS),
                             MSM_ACC_THREADS, 0, cs>>>(
        v.buckets + vi * stride, pl.log_b, pl.log_s, T, v.seg[0]);
    CUZK_LAUNCHED(err);
    prof_mark(s, "reduce");
    int cur = 0;
    for (size_t cnt2 = pl.nseg; cnt2 > 1; cnt2 /= 2) {
        T = (size_t)pl.nwb * (cnt2 / 2);
        k_msm_tree<G><<<cuzk_gpu_blocks(T, MSM_ACC_THREADS), MSM_ACC_THREADS,
                        0, cs>>>(v.seg[cur], cnt2 / 2, T, v.seg[cur ^ 1]);
        CUZK_LAUNCHED(err);
        cur ^= 1;
    }
    /* the window sums, then the ones' bucket */
    CUZK_CUDA(err, cudaMemcpyAsync(v.h_res + vi * (pl.nwb + 1), v.seg[cur],
                                   sizeof(typename G::xyzz) * pl.nwb,
                                   cudaMemcpyDeviceToHost, cs));
    CUZK_CUDA(err, cudaMemcpyAsync(v.h_res + vi * (pl.nwb + 1) + pl.nwb,
                                   v.buckets + vi * stride + set_bk,
                                   sizeof(typename G::xyzz),
                                   cudaMemcpyDeviceToHost, cs));
    prof_mark(s, "tree");
    return CUZK_OK;
}

/* One call of msm_run: its arguments, request, plan and carved scratch. */
template <class G> struct msm_call {
    cuzk_gpu_stream *s;
    const cuzk_gpu_bases *bases;
    size_t offset, n, nvec;
    const void *const *scalars;
    const uint32_t *sidx;
    bool mont, shifted, staged;
    msm_plan_req rq;
    msm_plan pl;
    msm_views<G> v;
    size_t set_bk; /* buckets per vector, the ones' too */
    const typename G::affine *d_bases, *h_bases;
};

/* Measures the scalars, plans and makes sure the stream holds what the
 * plan needs (copy stream, device and host scratch), then carves it. */
template <class G> static cuzk_status msm_prepare(msm_call<G> &m, unsigned flags, cuzk_error *err) {
    typedef typename G::affine A;
    cuzk_gpu_stream *s = m.s;
    m.rq = msm_request_of(s, m.bases, m.n, m.nvec, flags);
    m.mont = (flags & CUZK_GPU_SCALARS_MONT) != 0;
    cuzk_status st = msm_measure<G>(s, m.rq, m.n, m.nvec, m.scalars, m.sidx, m.mont, err);
    if (st == CUZK_OK)
        st = msm_plan_for(s, m.rq, msm_sizes_of<G>(), m.pl, err);
    m.staged = m.rq.host_bases || m.rq.host_scalars;
    if (st == CUZK_OK && m.staged)
        st = cuzk_gpu_copy_stream(s, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_scratch(s, m.pl.total, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_host_scratch(s, sizeof(typename G::xyzz) * (m.pl.nwb + 1) * m.nvec + 64,
                                   err);
    if (st != CUZK_OK)
        return st;
    msm_carve<G>(m.v, m.pl, s);
    m.shifted = m.rq.shift_c != 0;
    m.set_bk = msm_set_stride(m.pl);
    m.d_bases = (const A *)m.bases->d_points + m.offset;
    m.h_bases = (const A *)m.bases->h_points + m.offset;
    return CUZK_OK;
}

/* Clears the buckets and queues the first step's copies: the copy stream
 * starts after earlier work on the stream. */
template <class G> static cuzk_status msm_start(msm_call<G> &m, cuzk_error *err) {
    cuzk_gpu_stream *s = m.s;
    s->nev = 0;
    prof_mark(s, "start");
    CUZK_CUDA(err, cudaMemsetAsync(m.v.buckets, 0,
                                   m.nvec * m.set_bk * sizeof(typename G::xyzz), s->s));
    if (m.staged)
        CUZK_CUDA(err, cudaEventRecord(s->stage_free[0], s->s));
    if (m.staged)
        CUZK_CUDA(err, cudaStreamWaitEvent(s->copy_s, s->stage_free[0], 0));
    size_t nb0 = msm_chunk_at(m.pl, 0);
    cuzk_status st;
    if (m.rq.host_bases && (st = stage_bases<G>(s, m.v, m.h_bases, 0, 0, nb0, err)))
        return st;
    if (m.rq.host_scalars && (st = stage_scalars(s, m.v.sc[0], m.scalars[0], 0, nb0, err)))
        return st;
    return CUZK_OK;
}

/* Every vector's step of chunk |ci| (points [b0, b0 + nb), read from
 * |chunk_bases|); |nb1| points start at b1 in the next chunk (0: none).
 * Each step first queues the next step's scalars; |*si| counts steps. */
template <class G>
static cuzk_status msm_chunk_steps(msm_call<G> &m, size_t ci, size_t b0, size_t nb, size_t b1,
                                   size_t nb1, const typename G::affine *chunk_bases,
                                   size_t *si, cuzk_error *err) {
    typedef typename G::affine A;
    cuzk_gpu_stream *s = m.s;
    for (size_t vi = 0; vi < m.nvec; vi++, (*si)++) {
        bool last = vi + 1 == m.nvec;
        if (m.rq.host_scalars && (!last || nb1)) {
            size_t nvi = last ? 0 : vi + 1, nbn = last ? nb1 : nb;
            size_t bn = last ? b1 : b0;
            cuzk_status st = stage_scalars(s, m.v.sc[(*si + 1) & 1],
                                           (const char *)m.scalars[nvi] + 32 * bn, *si + 1,
                                           nbn, err);
            if (st != CUZK_OK)
                return st;
        }
        /* gathered scalars are read whole through the chunk's list */
        const uint32_t *d_sc = (const uint32_t *)m.scalars[vi] + (m.sidx ? 0 : 8 * b0);
        if (m.rq.host_scalars) {
            CUZK_CUDA(err, cudaStreamWaitEvent(s->s, s->sc_full[*si & 1], 0));
            d_sc = m.v.sc[*si & 1];
        }
        cuzk_status st = msm_chunk<G>(
            s, m.pl, m.v, m.v.buckets + vi * m.set_bk, d_sc, m.sidx ? m.sidx + b0 : NULL, nb,
            m.mont, m.shifted ? (uint32_t)m.bases->n : 0u,
            m.shifted ? (uint32_t)(m.offset + b0) : 0u,
            m.shifted ? (const A *)m.bases->d_points : chunk_bases,
            (const A *)m.bases->d_shift, m.shifted ? (uint32_t)m.bases->n : MSM_INVALID, ci > 0,
            err);
        if (st != CUZK_OK)
            return st;
        if (m.rq.host_scalars)
            CUZK_CUDA(err, cudaEventRecord(s->sc_free[*si & 1], s->s));
    }
    return CUZK_OK;
}

/* The chunks in order; the next chunk's bases cross while this one
 * computes. */
template <class G> static cuzk_status msm_chunks(msm_call<G> &m, cuzk_error *err) {
    cuzk_gpu_stream *s = m.s;
    size_t si = 0, n = m.n;
    for (size_t b0 = 0, ci = 0; b0 < n; ci++) {
        size_t nb = msm_chunk_at(m.pl, ci);
        if (nb > n - b0)
            nb = n - b0;
        size_t b1 = b0 + nb, nb1 = 0;
        if (b1 < n) {
            nb1 = msm_chunk_at(m.pl, ci + 1);
            if (nb1 > n - b1)
                nb1 = n - b1;
        }
        cuzk_status st;
        if (m.rq.host_bases && nb1 &&
            (st = stage_bases<G>(s, m.v, m.h_bases, ci + 1, b1, nb1, err)))
            return st;
        const typename G::affine *chunk_bases = m.d_bases + b0;
        if (m.rq.host_bases) {
            CUZK_CUDA(err, cudaStreamWaitEvent(s->s, s->stage_full[ci & 1], 0));
            chunk_bases = m.v.stage[ci & 1];
        }
        if ((st = msm_chunk_steps<G>(m, ci, b0, nb, b1, nb1, chunk_bases, &si, err)))
            return st;
        if (m.rq.host_bases)
            CUZK_CUDA(err, cudaEventRecord(s->stage_free[ci & 1], s->s));
        b0 = b1;
    }
    return CUZK_OK;
}

/* Every vector's reduction, then (after the stream's work is done) its
 * window sums combined on the host into a Jacobian point of |results|. */
template <class G> static cuzk_status msm_finish(msm_call<G> &m, void *results, cuzk_error *err) {
    typedef typename G::xyzz P;
    typedef typename G::F F;
    cuzk_status st;
    for (size_t vi = 0; vi < m.nvec; vi++)
        if ((st = msm_reduce<G>(m.s, m.pl, m.v, vi, err)) != CUZK_OK)
            return st;
    CUZK_CUDA(err, cudaStreamSynchronize(m.s->s));
    F *out = (F *)results;
    for (size_t vi = 0; vi < m.nvec; vi++) {
        P res;
        const P *win = m.v.h_res + vi * (m.pl.nwb + 1);
        msm_combine_host<G>(res, win, m.pl.nwb, m.pl.c);
        pt_add(res, win[m.pl.nwb]); /* the ones' sum */
        pt_to_jacobian(out + 3 * vi, res);
    }
    prof_report(m.s, m.pl);
    return CUZK_OK;
}

/*
 * The MSM, chunk by chunk (msm_plan.h): for each chunk its bases (staged
 * from host memory when they live there: the copy of chunk i + 1 runs on
 * the copy stream while chunk i computes) serve every vector before the
 * next chunk comes; host scalars are staged on the copy stream too, a step
 * ahead.  The host runs at most one step ahead of the device: each chunk's
 * packed digit count comes back before its sort is queued.
 */
template <class G>
static cuzk_status msm_run(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                           size_t offset, size_t n, size_t nvec,
                           const void *const *scalars, const uint32_t *sidx,
                           unsigned flags, void *results, cuzk_error *err) {
    if (n == 0) {
        typename G::F *out = (typename G::F *)results;
        for (size_t v = 0; v < 3 * nvec; v++)
            f_set_zero(out[v]);
        return CUZK_OK;
    }
    msm_call<G> m;
    m.s = s, m.bases = bases, m.offset = offset, m.n = n, m.nvec = nvec;
    m.scalars = scalars, m.sidx = sidx;
    cuzk_status st = msm_prepare<G>(m, flags, err);
    if (st == CUZK_OK)
        st = msm_start<G>(m, err);
    if (st == CUZK_OK)
        st = msm_chunks<G>(m, err);
    return st == CUZK_OK ? msm_finish<G>(m, results, err) : st;
}

/* ---- C interface ----------------------------------------------------------- */

/* The checks and the dispatch of both batch entry points. */
static cuzk_status msm_batch_any(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                                 size_t offset, size_t n, size_t nvec,
                                 const void *const *scalars, const uint32_t *sidx,
                                 unsigned flags, void *results, cuzk_error *err) {
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
    return cuzk_gpu_group_dispatch(bases->curve, bases->group, err, "msm", [&](auto t) {
        return msm_run<typename decltype(t)::type>(s, bases, offset, n, nvec, scalars, sidx,
                                                   flags, results, err);
    });
}

extern "C" cuzk_status cuzk_gpu_msm_batch(cuzk_gpu_stream *s,
                                          const cuzk_gpu_bases *bases,
                                          size_t offset, size_t n, size_t nvec,
                                          const void *const *scalars,
                                          unsigned flags, void *results,
                                          cuzk_error *err) {
    return msm_batch_any(s, bases, offset, n, nvec, scalars, NULL, flags,
                         results, err);
}

extern "C" cuzk_status cuzk_gpu_msm_batch_gather(cuzk_gpu_stream *s,
                                                 const cuzk_gpu_bases *bases,
                                                 size_t offset, size_t n, size_t nvec,
                                                 const void *const *scalars,
                                                 const uint32_t *d_index,
                                                 unsigned flags, void *results,
                                                 cuzk_error *err) {
    if (n > 0 && (d_index == NULL || !(flags & CUZK_GPU_SCALARS_DEVICE)))
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "msm gather: needs a device index list and "
                             "scalars on the device");
    return msm_batch_any(s, bases, offset, n, nvec, scalars, d_index, flags,
                         results, err);
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
