/*
 * Per-thread bodies of the GPU MSM (Pippenger with signed digits, bucket
 * sorting and load-balanced bucket accumulation).  msm_run.cu wraps each body in
 * a __global__ kernel; keeping the bodies __host__ __device__ lets a host
 * program run the whole pipeline thread by thread (emulation):
 * tests/msm_emulate.cu does that against the CPU MSM, with a host sort in
 * place of CUB, for every group, over plain and shifted bases.
 *
 * Pipeline for n points, window c bits, W windows, B = 2^(c-1) buckets per
 * window (digit d in [-B, B], bucket |d| - 1, key = w*B + |d| - 1):
 *   1. msm_count_one, an exclusive scan (cub), msm_scatter_one: each
 *      scalar's non-zero digits become (key, point index | sign<<31)
 *      pairs, packed, so zero digits and zero scalars cost nothing, not
 *      even a place in the sort (witness vectors are mostly 0 and 1).
 *      The ones (bit-scalar sums, on unless the context turns them off)
 *      do not go through Pippenger at all: each is one entry of an extra
 *      bucket whose key is above every window's, appended after the
 *      digits, so it needs no sorting; step 3 sums that run like any
 *      other (batched affine additions when the context uses them, then
 *      mixed additions), spread over many threads, and the host adds the
 *      bucket to the result with weight 1.
 *   2. radix sort of the digit pairs by key (cub, in msm_run.cu): a bucket's
 *      entries become one run.
 *   3. msm_acc_one, level 1: thread t sums the entries [tL, tL+L) run by
 *      run with mixed additions.  A run that lies wholly inside the segment
 *      is the complete bucket: written directly (exclusive owner).  A run
 *      that crosses the segment's start or end is only part of its bucket:
 *      it goes to the thread's head or tail slot of the partial list.  The
 *      partial list (2 slots per thread, keys kept sorted by giving unused
 *      slots the first/last key of the segment and an infinity point) is
 *      reduced the same way at level 2, 3, ... (XYZZ additions) until one
 *      segment holds everything.  Every thread does the same number of
 *      additions however skewed the buckets are (all scalars equal: one
 *      bucket of n entries, still spread over n/L threads).
 *   4. msm_bucket_reduce_one: thread per (window, segment of S buckets):
 *      sum_j (j+1) B_j by running sums, plus the segment offset times the
 *      segment sum; msm_tree_one adds the segment results pairwise.
 *   5. host: Horner over the W window sums (2^c doublings per window) in
 *      msm_combine_host; the CPU is much faster than one GPU thread at this
 *      strictly sequential step.
 *
 * Must not: allocate, synchronise, or assume anything about the scalar
 * distribution.  Operands of the called (not inlined) point formulas are
 * copied into locals first, except the bases in the hot loop: references
 * into global memory made called formulas fault in the G1/G2 self-test
 * kernel.
 */
#ifndef CUZK_GPU_MSM_KERNELS_CUH
#define CUZK_GPU_MSM_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>

#include "curve/gpu/groups.cuh"

#define MSM_INVALID 0xFFFFFFFFu

/* Threads per block of the launches (msm_run.cu, msm_bases.cu).  The
 * accumulation kernels hold an XYZZ accumulator and a point in registers
 * (~130-200 registers), so 128-thread blocks keep several blocks per
 * multiprocessor. */
#define MSM_ACC_THREADS 128
#define MSM_SMALL_THREADS 256
#define MSM_NEG_BIT 0x80000000u

/* a >= b on |n| words. */
CUZK_HD bool msm_words_geq(const uint32_t *a, const uint32_t *b, int n) {
    for (int j = n - 1; j >= 0; j--)
        if (a[j] != b[j])
            return a[j] > b[j];
    return true;
}

/* a -= b on |n| words (a >= b). */
CUZK_HD void msm_words_sub(uint32_t *a, const uint32_t *b, int n) {
    uint32_t borrow = 0;
    for (int j = 0; j < n; j++) {
        uint32_t d = a[j] - b[j] - borrow;
        borrow = (a[j] < b[j]) || (a[j] == b[j] && borrow);
        a[j] = d;
    }
}

/* Scalar i, reduced below r (plain input may be any 256-bit value: at
 * most 5 subtractions, 2^256 / r < 6 for both curves) and taken out of
 * Montgomery form if |mont|. */
template <class G>
CUZK_HD void msm_scalar_load(fp_t<typename G::S> &s, const uint32_t *scalars,
                             size_t i, bool mont) {
    typedef typename G::S S;
CUZK_UNROLL
    for (int j = 0; j < 8; j++)
        s.v[j] = scalars[8 * i + j];
    fp_t<S> rr;
    f_load_const(rr, S::p());
    for (int k = 0; k < 5 && msm_words_geq(s.v, rr.v, 8); k++)
        msm_words_sub(s.v, rr.v, 8);
    if (mont)
        f_from_mont(s, s);
}

/* Signed digit of window w (nwin * c >= R_BITS + 1 leaves room for the
 * last carry): bucket key |d| - 1 in *key (MSM_INVALID for d = 0) and
 * MSM_NEG_BIT in *neg for d < 0; |carry| runs from window to window. */
template <class S>
CUZK_HD void msm_digit(const fp_t<S> &s, unsigned w, unsigned c,
                       uint32_t &carry, uint32_t *key, uint32_t *neg) {
    uint32_t bucket_count = 1u << (c - 1);
    unsigned bit = w * c, q = bit >> 5, sh = bit & 31;
    uint64_t pair = q < 8 ? s.v[q] : 0;
    if (q + 1 < 8)
        pair |= (uint64_t)s.v[q + 1] << 32;
    uint32_t raw = (uint32_t)(pair >> sh) & ((1u << c) - 1);
    raw += carry;
    *key = MSM_INVALID;
    *neg = 0;
    if (raw > bucket_count) { /* digit raw - 2^c < 0 */
        uint32_t mag = (1u << c) - raw;
        carry = 1;
        if (mag) {
            *key = mag - 1;
            *neg = MSM_NEG_BIT;
        }
    } else {
        carry = 0;
        if (raw)
            *key = raw - 1;
    }
}

/* Scalar i of a chunk: the i-th of |scalars|, or with a gather list
 * |sidx| (density keys: the points are a subset of the witness's wires)
 * the sidx[i]-th. */
template <class G>
CUZK_HD void msm_scalar_at(fp_t<typename G::S> &s, const uint32_t *scalars,
                           const uint32_t *sidx, size_t i, bool mont) {
    msm_scalar_load<G>(s, scalars, sidx ? (size_t)sidx[i] : i, mont);
}

template <class S> CUZK_HD bool msm_scalar_is_one(const fp_t<S> &s) {
    uint32_t rest = 0;
CUZK_UNROLL
    for (int j = 1; j < 8; j++)
        rest |= s.v[j];
    return s.v[0] == 1 && rest == 0;
}

/*
 * Step 1a for scalar i < n: cnt[i] = its number of non-zero digits (0 for
 * the scalar 0, 1 for the scalar 1).  Thread n writes cnt[n] = 0, so an
 * exclusive scan over n + 1 entries ends with the total.
 *
 * |ones| (bit-scalar sums): a scalar equal to 1 counts no digit but one in
 * the high 32 bits, so the scan gives at once each scalar's digit position
 * (low half) and each one's place among the ones (high half); a chunk's
 * digits never reach 2^31 (MSM_MAX_SORT), so the halves do not mix.  The
 * ones skip the sort (msm_scatter_one puts them after the sorted digits,
 * under a key above every bucket's) and are summed by the accumulation
 * levels like one more bucket.
 */
template <class G>
CUZK_HD void msm_count_one(size_t i, const uint32_t *scalars,
                           const uint32_t *sidx, size_t n, bool mont,
                           bool ones, unsigned c, unsigned nwin,
                           unsigned long long *cnt) {
    if (i == n) {
        cnt[n] = 0;
        return;
    }
    fp_t<typename G::S> s;
    msm_scalar_at<G>(s, scalars, sidx, i, mont);
    if (ones && msm_scalar_is_one(s)) {
        cnt[i] = 1ull << 32;
        return;
    }
    uint32_t carry = 0, key, neg, d = 0;
    for (unsigned w = 0; w < nwin; w++) {
        msm_digit(s, w, c, carry, &key, &neg);
        d += key != MSM_INVALID;
    }
    cnt[i] = d;
}

/*
 * Step 1b for scalar i < n, with off[] the exclusive scan of cnt[]: its
 * non-zero digits as (key, point index | sign) pairs at positions off[i]
 * onward.  |vstride| 0: key w*B + |d| - 1, value i (each window its own
 * buckets).  Otherwise the bases have shifted copies (copy w = 2^(c w) P,
 * stored |vstride| points apart, point i of this batch at |vbase| + i):
 * key |d| - 1 (one bucket set for all windows), value w*vstride + vbase + i.
 * With |ones|, a scalar 1 is the pair (ones_key, its point) at the end:
 * position (digits of the chunk) + (ones before it), never sorted.
 */
template <class G>
CUZK_HD void msm_scatter_one(size_t i, const uint32_t *scalars,
                             const uint32_t *sidx, size_t n, bool mont,
                             bool ones, uint32_t ones_key, unsigned c,
                             unsigned nwin, uint32_t vstride, uint32_t vbase,
                             const unsigned long long *off, uint32_t *keys,
                             uint32_t *vals) {
    fp_t<typename G::S> s;
    msm_scalar_at<G>(s, scalars, sidx, i, mont);
    if (ones && msm_scalar_is_one(s)) {
        size_t at = (size_t)(off[n] & 0xFFFFFFFFull) + (size_t)(off[i] >> 32);
        keys[at] = ones_key;
        vals[at] = (vstride ? vbase : 0u) + (uint32_t)i;
        return;
    }
    uint32_t bucket_count = 1u << (c - 1);
    size_t at = (size_t)(off[i] & 0xFFFFFFFFull);
    uint32_t carry = 0, key, neg;
    for (unsigned w = 0; w < nwin; w++) {
        msm_digit(s, w, c, carry, &key, &neg);
        if (key == MSM_INVALID)
            continue;
        uint32_t idx = (uint32_t)i;
        if (vstride == 0)
            key += w * bucket_count;
        else
            idx = w * vstride + vbase + (uint32_t)i;
        keys[at] = key;
        vals[at] = idx | neg;
        at++;
    }
}

/*
 * Step 3, one level, thread t over entries [tL, min(M, tL+L)) of the sorted
 * keys.  FIRST: entries are (key, point index | sign) with affine bases
 * (index j < |nfirst|: bases[j], else shift[j - nfirst], a shifted copy);
 * otherwise (key, XYZZ partial sum) from the previous level.
 * Writes out_keys / out_pts[2t] (head slot) and [2t+1] (tail slot).
 *
 * |accumulate| (FIRST only: every chunk of points after the first of an MSM
 * adds into the buckets of the chunks before it): a run that starts in this
 * segment starts from the bucket's stored value instead of infinity, so the
 * old value enters the sum exactly once (a bucket's entries have exactly
 * one first run).  That costs a load per run and no addition: adding the
 * old value to a finished run instead (one called XYZZ addition per
 * bucket, at a different moment in each thread of a warp) made every chunk
 * after the first 3x slower on the H200 (2026-12-03).  When such a run is
 * only the bucket's first piece (it crosses the segment's end), the bucket
 * is set to infinity: the old value now travels in the tail slot, and the
 * later level that completes the bucket writes it (levels after the first
 * never write infinity, since unused slots carry infinity under real keys).
 */
template <class G, bool FIRST>
CUZK_HD void msm_acc_one(size_t t, const uint32_t *keys, size_t M, size_t L,
                         const uint32_t *vals,
                         const typename G::affine *bases,
                         const typename G::affine *shift, uint32_t nfirst,
                         const typename G::xyzz *pts,
                         typename G::xyzz *buckets, bool accumulate,
                         uint32_t *out_keys, typename G::xyzz *out_pts) {
    typedef typename G::xyzz P;
    size_t start = t * L, end = start + L < M ? start + L : M;
    bool fold = FIRST && accumulate;
    P acc, head, tail;
    pt_set_inf(head);
    pt_set_inf(tail);
    uint32_t cur = keys[start];
    bool first = true;
    bool crosses_start = start > 0 && keys[start - 1] == cur;
    if (fold && !crosses_start && cur != MSM_INVALID)
        acc = buckets[cur];
    else
        pt_set_inf(acc);
    size_t i = start;
    for (; i < end; i++) {
        uint32_t k = keys[i];
        if (k == MSM_INVALID)
            break;
        if (k != cur) {
            if (first && crosses_start)
                head = acc;
            else if (FIRST || !pt_is_inf(acc))
                buckets[cur] = acc;
            first = false;
            cur = k;
            if (fold)
                acc = buckets[k];
            else
                pt_set_inf(acc);
        }
        if (FIRST) {
            /* the hot loop keeps a reference into global memory (a local
             * copy made G1 of BLS12-381 24% slower, 2026-12-02, H200) */
            uint32_t v = vals[i], j = v & ~MSM_NEG_BIT;
            const typename G::affine *q =
                j < nfirst ? bases + j : shift + (j - nfirst);
            pt_add_affine(acc, *q, (v & MSM_NEG_BIT) != 0);
        } else {
            P q = pts[i];
            pt_add(acc, q);
        }
    }
    if (cur != MSM_INVALID) {
        bool crosses_end = i == end && end < M && keys[end] == cur;
        if (first && crosses_start) {
            head = acc;
        } else if (crosses_end) {
            tail = acc;
            if (fold) {
                P inf;
                pt_set_inf(inf);
                buckets[cur] = inf; /* its old value is in the tail now */
            }
        } else if (FIRST || !pt_is_inf(acc)) {
            buckets[cur] = acc;
        }
    }
    out_keys[2 * t] = keys[start];
    out_keys[2 * t + 1] = keys[end - 1];
    out_pts[2 * t] = head;
    out_pts[2 * t + 1] = tail;
}

/*
 * Step 4: thread t = (window w, segment s) of S = 2^log_s buckets out of
 * B = 2^log_b: out[t] = sum_{j<S} (s*S + j + 1) * bucket[w*B + s*S + j].
 */
template <class G>
CUZK_HD void msm_bucket_reduce_one(size_t t, const typename G::xyzz *buckets,
                                   unsigned log_b, unsigned log_s,
                                   typename G::xyzz *out) {
    typedef typename G::xyzz P;
    size_t nseg = (size_t)1 << (log_b - log_s);
    size_t w = t / nseg, s = t % nseg;
    const P *b = buckets + (w << log_b) + (s << log_s);
    P run, sum, off;
    pt_set_inf(run);
    pt_set_inf(sum);
    for (int j = (1 << log_s) - 1; j >= 0; j--) {
        P bj = b[j];
        pt_add(run, bj);
        pt_add(sum, run);
    }
    /* (s*S) * run: s by double-and-add over its bits, then log_s doublings */
    if (s != 0 && !pt_is_inf(run)) {
        pt_set_inf(off);
        int top = 31;
        while (!((s >> top) & 1))
            top--;
        for (int bit = top; bit >= 0; bit--) {
            pt_dbl(off, off);
            if ((s >> bit) & 1)
                pt_add(off, run);
        }
        for (unsigned k = 0; k < log_s; k++)
            pt_dbl(off, off);
        pt_add(sum, off);
    }
    out[t] = sum;
}

/* out[w*half + i] = in[w*2half + 2i] + in[w*2half + 2i + 1]. */
template <class G>
CUZK_HD void msm_tree_one(size_t t, const typename G::xyzz *in, size_t half,
                          typename G::xyzz *out) {
    size_t w = t / half, i = t % half;
    typename G::xyzz a = in[w * 2 * half + 2 * i], b = in[w * 2 * half + 2 * i + 1];
    /* infinity is settled here, so only threads with two finite points
     * call the formula (with BLS12-381 G2, threads of one warp that went
     * different ways through the called formula read local memory out of
     * bounds under compute-sanitizer, 2026-12-02) */
    if (pt_is_inf(b)) {
        out[t] = a;
        return;
    }
    if (pt_is_inf(a)) {
        out[t] = b;
        return;
    }
    pt_add(a, b);
    out[t] = a;
}

/*
 * Shifted copies (cuzk_gpu_bases_precompute), two steps per copy:
 * msm_shift_dbl_one: tmp[i] = 2^c src[i] in XYZZ (c doublings);
 * msm_shift_norm_one: thread t converts tmp[tK .. tK+K) to affine dst with
 * one inversion (Montgomery's trick over d_i = ZZ_i ZZZ_i; then
 * 1/ZZ = ZZZ/d, 1/ZZZ = ZZ/d), keeping the prefix products in pre[].
 * Infinity (ZZ = 0, also 2P for y = 0) is skipped by the trick and written
 * as (0, 0).
 */
template <class G>
CUZK_HD void msm_shift_dbl_one(size_t i, const typename G::affine *src,
                               unsigned c, typename G::xyzz *tmp) {
    typename G::xyzz q;
    typename G::affine a = src[i];
    if (aff_is_inf(a)) {
        pt_set_inf(q);
    } else {
        pt_dbl_affine(q, a);
        for (unsigned k = 1; k < c; k++)
            pt_dbl(q, q);
    }
    tmp[i] = q;
}

template <class G>
CUZK_HD void msm_shift_norm_one(size_t t, const typename G::xyzz *tmp,
                                size_t n, size_t K, typename G::F *pre,
                                typename G::affine *dst) {
    typedef typename G::F F;
    size_t b = t * K, e = b + K < n ? b + K : n;
    F acc, d;
    f_set_one(acc);
    for (size_t i = b; i < e; i++) {
        pre[i] = acc; /* product of the d_j, j in [b, i) */
        if (!pt_is_inf(tmp[i])) {
            f_mul_cold(d, tmp[i].ZZ, tmp[i].ZZZ);
            f_mul_cold(acc, acc, d);
        }
    }
    f_inv(acc, acc); /* acc = 1 / prod d_j */
    for (size_t i = e; i-- > b;) {
        typename G::xyzz q = tmp[i];
        typename G::affine a;
        if (pt_is_inf(q)) {
            f_set_zero(a.x);
            f_set_zero(a.y);
        } else {
            F dinv, zinv;
            f_mul_cold(dinv, acc, pre[i]); /* 1 / d_i */
            f_mul_cold(d, q.ZZ, q.ZZZ);
            f_mul_cold(acc, acc, d);      /* 1 / prod_{j<i} d_j */
            f_mul_cold(zinv, q.ZZZ, dinv); /* 1 / ZZ */
            f_mul_cold(a.x, q.X, zinv);
            f_mul_cold(zinv, q.ZZ, dinv);  /* 1 / ZZZ */
            f_mul_cold(a.y, q.Y, zinv);
        }
        dst[i] = a;
    }
}

/* Step 5 on the host: res = sum_w 2^(c w) win[w].  (A host-only function:
 * nvcc parses it in the device pass too, so it is not hidden behind
 * __CUDA_ARCH__.) */
template <class G>
static void msm_combine_host(typename G::xyzz &res,
                             const typename G::xyzz *win, unsigned nwin,
                             unsigned c) {
    res = win[nwin - 1];
    for (int w = (int)nwin - 2; w >= 0; w--) {
        for (unsigned k = 0; k < c; k++)
            pt_dbl(res, res);
        pt_add(res, win[w]);
    }
}

#endif
