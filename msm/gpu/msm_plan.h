/*
 * Planning of one GPU MSM call (msm/gpu/msm_plan.cu, run by msm_run.cu): the window, the chunks the
 * points are processed in, and the layout of the stream's device scratch,
 * all within a byte limit.  Host code only, no CUDA calls: the radix sort's
 * and the scan's temporary storage come from the caller (CUB's size queries
 * in msm_plan.cu, an estimate in the host emulation, tests/msm_emulate.cu, which
 * checks every plan against its limit over the sizes the engine uses).
 *
 * One MSM of n points and V scalar vectors runs chunk by chunk: for each
 * chunk of S points (bases staged from pinned host memory when they live
 * there), for each vector, the chunk's digits are sorted by bucket and
 * added into that vector's buckets, which stay on the device across chunks
 * (every chunk after the first folds the stored bucket value into its
 * first run: msm_acc_one).  One bucket reduction per vector ends the MSM.
 *
 * Device scratch of a plan (offsets into one arena, 256-byte aligned):
 *   buckets      V * (nwb * 2^(c-1) + 1) XYZZ points (nwb = windows, or 1
 *                with shifted copies; the + 1: the ones' bucket)
 *   pairs        two key and two value arrays of S * dpp words (the radix
 *                sort ping-pongs between them: 16 bytes a digit; dpp =
 *                nwin for full scalars, fewer for measured bit-heavy ones)
 *   sort, scan   CUB's temporary storage for S * dpp pairs / S + 1 counts
 *   cnt, off     S + 1 digit counts and their exclusive scan (8 bytes each)
 *   partials     level-1 and level-2 head/tail slots (key + XYZZ point) of
 *                the most threads a level of S * dpp digits may run
 *   segments     nwb * (nseg + nseg/2 + 1) XYZZ points of the reduction
 *   scalars      2 * S * 32 bytes, only for scalars in host memory (staged
 *                on the copy stream, double-buffered)
 *   staging      2 * S affine points, only for bases in host memory
 *   affine work  S * dpp affine points + prefix products (batch-affine
 *                accumulation only)
 * The limit is the caller's (cuzk_gpu_stream_set_msm_limit) or, by default,
 * msm_default_limit: 64 bytes a point for one vector, never below 256 MiB.
 * The plan takes the window and chunk size of least modelled cost whose
 * scratch fits; when nothing fits, the smallest plan is returned with
 * total > limit and the caller refuses the call (CUZK_ENOMEM) without
 * allocating.
 *
 * Must not: call CUDA, allocate, or return a plan whose total it has not
 * computed with the same layout function the run uses.
 */
#ifndef CUZK_MSM_PLAN_H
#define CUZK_MSM_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Sizes of one group, for planning. */
struct msm_group_sizes {
    unsigned r_bits; /* bits of the scalar field's order */
    size_t affine, xyzz, field;
};

struct msm_plan_req {
    size_t n, nvec;
    bool host_scalars, host_bases, affine;
    unsigned shift_c; /* window of the bases' shifted copies, 0: none */
    int sm_count;
    unsigned force_c; /* window forced by tuning, 0: chosen here */
    size_t limit;     /* device scratch allowed (bytes), 0: the default */
    /* The scalars, measured before planning (msm_run.cu) in 64ths, rounded
     * up: the share that are neither 0 nor 1 (dense; 64: all, the
     * assumption when nothing was measured) and the share equal to 1
     * (ones).  A witness of bits has few digits a point: a window and a
     * chunk sized for full scalars would waste buckets and pairs. */
    unsigned dense_q, ones_q;
};

/* CUB's temporary storage: a DoubleBuffer radix sort of |M| pairs with
 * |key_bits| key bits, an exclusive scan of |k| counts. */
struct msm_cub_sizes {
    size_t (*sort)(size_t M, unsigned key_bits);
    size_t (*scan)(size_t k);
};

struct msm_plan {
    unsigned c, nwin, log_b, log_s, key_bits;
    unsigned dpp; /* packed pairs a point may take in a chunk (capacity) */
    unsigned nwb;  /* bucket sets per vector: nwin, or 1 with shifted copies */
    size_t n, nvec;
    size_t chunk;  /* most points per chunk */
    size_t first;  /* first chunk (a ramp when copies are staged) */
    size_t nchunks;
    size_t M, T1, T2, nseg;
    size_t off_scalars[2], off_keys[2], off_vals[2], off_cub, cub_bytes;
    size_t off_cnt, off_off, off_scan, scan_bytes;
    size_t off_buckets, off_pk[2], off_pp[2], off_seg[2], off_stage[2];
    size_t off_work, off_pre;
    /* Bytes the layout reserved at each offset above (the host emulation
     * allocates exactly these, with a guard after them, so a buffer one
     * entry short shows there) */
    size_t len_buckets, len_keys[2], len_vals[2], len_cnt, len_off;
    size_t len_pk[2], len_pp[2], len_seg[2], len_work, len_pre;
    size_t total, limit;
    double cost; /* modelled, in accumulated digits */
};

/* Largest number of digits one sort takes (CUB counts in int). */
#define MSM_MAX_SORT (((size_t)1 << 31) - 1)
#define MSM_MAX_C 22
#define MSM_SHIFT_MIN_C 8
#define MSM_SHIFT_MAX_C 24
/* A copy-staged chunk schedule starts at chunk / MSM_RAMP^2 and grows by
 * MSM_RAMP: the first copy is not overlapped with anything, and a copy of
 * 4x the points still takes less time than the chunk before it needs on
 * the H200 (55 GB/s against ~0.7 ns a digit). */
#define MSM_RAMP 4

static inline unsigned msm_nwin(unsigned r_bits, unsigned c) {
    return (r_bits + 1 + c - 1) / c;
}

static inline size_t msm_clamp(size_t v, size_t lo, size_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* Entries per thread at a level with M entries: enough threads to fill the
 * device several times over, at most |cap| entries each.  At least 4: the
 * level loop ends only because ceil(2T / L) < T for T >= 2, which fails
 * for L = 3 (T = 2 stays 2 forever). */
static inline size_t msm_seg_len(size_t M, int sm_count, size_t cap) {
    size_t target = (size_t)sm_count * 1024;
    return msm_clamp((M + target - 1) / target, 4, cap);
}

/* Most threads a level may run for up to |M| entries with at most |cap|
 * per thread (the packed digit count is known only on the device): below
 * 4 * target entries L = 4 and T <= ceil(M / 4); then T <= target; above,
 * ceil(M / cap). */
static inline size_t msm_max_threads(size_t M, int sm_count, size_t cap) {
    size_t target = (size_t)sm_count * 1024 + 1;
    size_t small = (M + 3) / 4;
    size_t t = small < target ? small : target;
    size_t capped = (M + cap - 1) / cap;
    return (t > capped ? t : capped) + 1;
}

static inline unsigned msm_ilog2(size_t v) {
    unsigned k = 0;
    while (((size_t)1 << (k + 1)) <= v)
        k++;
    return k;
}

/* 64 bytes a point for one vector (more vectors: 16 more a point each, for
 * their buckets), never below 256 MiB. */
static inline size_t msm_default_limit(size_t n, size_t nvec) {
    size_t per = 64 + 16 * (nvec > 0 ? nvec - 1 : 0);
    size_t floor = (size_t)256 << 20;
    return n * per > floor ? n * per : floor;
}

/* Size of the chunk starting after |done| points of the schedule. */
static inline size_t msm_chunk_at(const msm_plan &pl, size_t k) {
    size_t s = pl.first;
    for (size_t i = 0; i < k && s < pl.chunk; i++)
        s *= MSM_RAMP;
    return s < pl.chunk ? s : pl.chunk;
}

/* Entries per thread of the batch-affine levels for M entries: long
 * segments, so one inversion serves many pairs, yet about sm_count * 512
 * threads; at least 256, which keeps the following level-1 pass within the
 * T1 partial slots (T1 >= M / 256). */
static inline size_t msm_aff_len(size_t M, int sm_count) {
    size_t target = (size_t)sm_count * 512;
    return msm_clamp((M + target - 1) / target, 256, 4096);
}

/* Buckets of one vector: nwb windows of 2^(c-1), and after them the
 * bucket of the scalars equal to 1 (msm_kernels.cuh, bit-scalar sums). */
static inline size_t msm_set_stride(const msm_plan &pl) {
    return ((size_t)pl.nwb << pl.log_b) + 1;
}

/* |bytes| at the next 256-byte boundary after |*used|; |*len| (may be
 * NULL) records them. */
static inline size_t msm_take(size_t *used, size_t bytes, size_t *len) {
    size_t off = (*used + 255) & ~(size_t)255;
    *used = off + bytes;
    if (len)
        *len = bytes;
    return off;
}

/* Pairs a chunk is sized for, a point: every window's digit for full
 * scalars; for measured ones the expected count with a quarter more and
 * one to spare (a chunk that still overflows is split by the run,
 * msm_run.cu).  Never more than nwin, which always suffices. */
static inline unsigned msm_pairs_per_point(const msm_plan_req &rq, unsigned nwin) {
    unsigned dq = rq.dense_q ? rq.dense_q : 64, oq = rq.ones_q;
    if (dq >= 64)
        return nwin;
    double want = ((double)nwin * dq + (double)oq) / 64.0 * 1.25 + 1.0;
    unsigned d = (unsigned)want + 1;
    return d < nwin ? d : nwin;
}

/* Fills the layout of |pl| (window fields set) for chunks of |S| points. */
static inline void msm_layout(msm_plan &pl, const msm_plan_req &rq,
                              const msm_group_sizes &gs,
                              const msm_cub_sizes &cub, size_t S) {
    pl.chunk = S;
    pl.M = S * pl.dpp;
    if (pl.M < pl.nwin) /* a split chunk ends at one point: room for its digits */
        pl.M = pl.nwin;
    pl.T1 = msm_max_threads(pl.M, rq.sm_count, 256);
    pl.T2 = msm_max_threads(2 * pl.T1, rq.sm_count, 32);
    pl.cub_bytes = cub.sort(pl.M, pl.key_bits);
    pl.scan_bytes = cub.scan(S + 1);
    size_t u = 0;
    pl.off_buckets = msm_take(&u, rq.nvec * msm_set_stride(pl) * gs.xyzz, &pl.len_buckets);
    for (int k = 0; k < 2; k++) {
        pl.off_keys[k] = msm_take(&u, 4 * pl.M, &pl.len_keys[k]);
        pl.off_vals[k] = msm_take(&u, 4 * pl.M, &pl.len_vals[k]);
    }
    pl.off_cub = msm_take(&u, pl.cub_bytes, NULL);
    pl.off_cnt = msm_take(&u, 8 * (S + 1), &pl.len_cnt);
    pl.off_off = msm_take(&u, 8 * (S + 1), &pl.len_off);
    pl.off_scan = msm_take(&u, pl.scan_bytes, NULL);
    size_t slots[2] = {2 * pl.T1, 2 * pl.T2};
    for (int k = 0; k < 2; k++) {
        pl.off_pk[k] = msm_take(&u, 4 * slots[k], &pl.len_pk[k]);
        pl.off_pp[k] = msm_take(&u, gs.xyzz * slots[k], &pl.len_pp[k]);
    }
    pl.off_seg[0] = msm_take(&u, gs.xyzz * pl.nwb * pl.nseg, &pl.len_seg[0]);
    pl.off_seg[1] = msm_take(&u, gs.xyzz * pl.nwb * (pl.nseg / 2 + 1), &pl.len_seg[1]);
    for (int k = 0; k < 2; k++) {
        pl.off_scalars[k] = msm_take(&u, rq.host_scalars ? 32 * S : 0, NULL);
        pl.off_stage[k] = msm_take(&u, rq.host_bases ? gs.affine * S : 0, NULL);
    }
    pl.off_work = msm_take(&u, rq.affine ? gs.affine * pl.M : 0, &pl.len_work);
    pl.off_pre = msm_take(&u, rq.affine ? gs.field * (pl.M / 2 + 4096) : 0, &pl.len_pre);
    pl.total = u;
}

/* Chunks of the schedule for n points. */
static inline size_t msm_count_chunks(const msm_plan &pl) {
    size_t k = 0;
    for (size_t done = 0; done < pl.n; k++)
        done += msm_chunk_at(pl, k);
    return k;
}

/* Modelled cost in accumulated digits (measured on the H200: 0.71 ns a
 * digit, 2.1 ns a bucket reduced, 2026-12-02): per vector the digits, the
 * reduction of each bucket (3 digits), and per chunk after the first a
 * fold of every bucket (a load and a store, ~half a digit) plus the fixed
 * cost of a chunk (a host round trip for the packed count, the sort's and
 * levels' launches: ~50 us, 70,000 digits). */
static inline double msm_model_cost(const msm_plan &pl, const msm_plan_req &rq) {
    double buckets = (double)pl.nwb * (double)((size_t)1 << pl.log_b);
    double dq = rq.dense_q && rq.dense_q < 64 ? rq.dense_q / 64.0 : 1.0;
    double digits = (double)pl.nwin * dq + (dq < 1.0 ? rq.ones_q / 64.0 : 0.0);
    double per_vec = digits * (double)pl.n + 3.0 * buckets +
                     (double)pl.nchunks * 70000.0 +
                     (double)(pl.nchunks - 1) * 0.5 * buckets;
    return per_vec * (double)pl.nvec;
}

/* Window fields of |pl| for c-bit windows. */
static inline void msm_window(msm_plan &pl, const msm_plan_req &rq,
                              unsigned r_bits, unsigned c) {
    pl.c = c;
    pl.nwin = msm_nwin(r_bits, c);
    pl.nwb = rq.shift_c ? 1 : pl.nwin;
    pl.dpp = msm_pairs_per_point(rq, pl.nwin);
    pl.log_b = c - 1;
    pl.key_bits = msm_ilog2((size_t)pl.nwb << pl.log_b) + 1;
    /* bucket segments of the reduction: aim for ~64K threads, at least 32
     * buckets each */
    pl.log_s = pl.log_b;
    while (pl.log_s > 5 && ((size_t)pl.nwb << (pl.log_b - pl.log_s)) < 65536)
        pl.log_s--;
    pl.nseg = (size_t)1 << (pl.log_b - pl.log_s);
}

/* The largest chunk (<= n, <= the sort's limit) whose layout fits in
 * |limit| with window fields set; 0 when not even one point fits. */
static inline size_t msm_fit_chunk(msm_plan &pl, const msm_plan_req &rq,
                                   const msm_group_sizes &gs,
                                   const msm_cub_sizes &cub, size_t limit) {
    size_t hi = rq.n, lo = 1;
    if (hi * pl.dpp > MSM_MAX_SORT)
        hi = MSM_MAX_SORT / pl.dpp;
    msm_layout(pl, rq, gs, cub, hi);
    if (pl.total <= limit)
        return hi;
    msm_layout(pl, rq, gs, cub, lo);
    if (pl.total > limit)
        return 0;
    while (hi - lo > 1) { /* layout(lo) fits, layout(hi) does not */
        size_t mid = lo + (hi - lo) / 2;
        msm_layout(pl, rq, gs, cub, mid);
        if (pl.total <= limit)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Completes |pl| for chunk size |S|: the schedule, the layout, the cost. */
static inline void msm_finish(msm_plan &pl, const msm_plan_req &rq,
                              const msm_group_sizes &gs,
                              const msm_cub_sizes &cub, size_t S) {
    msm_layout(pl, rq, gs, cub, S);
    pl.n = rq.n;
    pl.nvec = rq.nvec;
    pl.first = S;
    if (rq.host_bases || rq.host_scalars) {
        size_t f = S / (MSM_RAMP * MSM_RAMP);
        pl.first = f < 4096 ? (S < 4096 ? S : 4096) : f;
    }
    pl.nchunks = msm_count_chunks(pl);
    pl.cost = msm_model_cost(pl, rq);
}

/*
 * The plan of least modelled cost for |rq| whose scratch fits in the limit
 * (rq.limit, or msm_default_limit).  Returns true when one fits; false
 * leaves the smallest plan in |pl| (its total over the limit).
 */
static inline bool msm_make_plan(msm_plan &pl, const msm_plan_req &rq,
                                 const msm_group_sizes &gs,
                                 const msm_cub_sizes &cub) {
    size_t limit = rq.limit ? rq.limit : msm_default_limit(rq.n, rq.nvec);
    unsigned lo = 3, hi = MSM_MAX_C;
    if (rq.shift_c)
        lo = hi = rq.shift_c;
    else if (rq.force_c >= 2)
        lo = hi = rq.force_c;
    bool found = false;
    msm_plan best = {}, smallest = {};
    for (unsigned c = lo; c <= hi; c++) {
        msm_plan p = {};
        msm_window(p, rq, gs.r_bits, c);
        p.n = rq.n;
        p.nvec = rq.nvec;
        size_t S = msm_fit_chunk(p, rq, gs, cub, limit);
        if (S == 0) {
            msm_finish(p, rq, gs, cub, 1);
            if (smallest.total == 0 || p.total < smallest.total)
                smallest = p;
            continue;
        }
        msm_finish(p, rq, gs, cub, S);
        if (!found || p.cost < best.cost) {
            best = p;
            found = true;
        }
    }
    pl = found ? best : smallest;
    pl.limit = limit;
    return found;
}

#endif
