/*
 * Per-thread bodies of the GPU NTT over Fr (ntt.cu wraps them in kernels).
 * Every body is __host__ __device__ and takes the thread and block index as
 * arguments, so a host program can run a whole launch by looping over the
 * threads of each block between two barriers, with an array standing in
 * for shared memory (tests/ntt_emulate.cu does exactly that against the
 * CPU NTT).
 *
 * Transform: decimation in frequency, natural order in, bit-reversed order
 * internally, natural order out.  The log_n stages are split into 1-3
 * passes over global memory (ntt_plan: at most NTT_TILE_LOG stages each,
 * sizes balanced, e.g. 10+10 at 2^20, 8+8+8 at 2^24, 9+9+9 at 2^27).
 *
 * A pass over stages [s0, s0 + L).  After s0 stages the data are 2^s0
 * independent blocks of N = n / 2^s0 elements, each needing a size-N DIF
 * with root w' = w^(2^s0).  With S = N / 2^L and i = p + m S (p < S,
 * m < 2^L), the first L stages of that DIF are: for every column p, a
 * size-2^L DIF over y[p + m S] with the 2^L-th root w'^S = w^(n / 2^L)
 * (the same small root in every pass), then the element left at row m is
 * multiplied by w'^(p * bitrev_L(m)).  That is the four-step split of the
 * DFT, written in DIF order: the column transform leaves Z_p[k1] at row
 * bitrev_L(k1) and the next pass continues on the contiguous rows.  So
 * inside a pass every butterfly takes its twiddle from a table of 2^(L-1)
 * powers of one small root, kept in shared memory, and only the one
 * "post-twiddle" product per element reads the big table (n/2 powers of w,
 * w^(e + n/2) = -w^e).  The last pass has S = 1 and no post-twiddle.
 *
 * Block work: a tile of 2^T elements (T = NTT_TILE_LOG, log_n when
 * smaller, or a smaller tile for 2^11 .. 2^16 so that a pass has about one
 * block per multiprocessor: ntt_pass_tile) = 2^(T-L) columns x 2^L rows;
 * tile slot s = c + (m << log_c).
 * Each of the 2^(T-e) threads holds E = 2^e elements in registers (e =
 * NTT_EPT_LOG, 2 by default) and does up to e stages there ("round"),
 * then the tile is exchanged through shared memory for the next round:
 * ceil(L/e) rounds, one global read in the first and one global write in
 * the last.  E = 4 (256 threads, 80 registers, 3 blocks per
 * multiprocessor) measured 2^24 in 6.2 ms on an H200 against 7.2-7.6 ms
 * for E = 8 (128 threads, 128 registers, 4 blocks): the products are
 * carry chains that one warp cannot overlap, so resident warps count more
 * than fewer shared-memory exchanges.  Shared memory keeps each
 * element as 8 word planes (a warp reads word w of 32 elements in one
 * conflict-free access when their slots differ in the bank bits); slots
 * are XOR-swizzled (s ^ (s >> 5)) and the threads of a warp are given the
 * slot bits that reach the 5 bank bits (ntt_thread_slot), so the strided
 * rows of the middle rounds do not collide on one bank.
 *
 * Products (butterflies with twiddle 1 skip theirs): a pass of L stages
 * costs about L/2 - 1 + 1 products per element (column DIF plus
 * post-twiddle); 2^24 = 8+8+8 is ~11 products per element against 12 for
 * plain radix-2.  Memory: one read and one write of the data per pass plus
 * one 32-byte twiddle read per element in the non-last passes (from L2
 * except in the first pass of a large transform).
 *
 * Buffers: with one pass the tile is transformed in place.  With more, the
 * first pass reads x and writes a scratch copy, middle passes work in
 * place on the scratch (a tile reads and writes the same slots), and the
 * last pass reads the scratch and writes x[bitrev(i)] directly, so no
 * separate permutation pass.  The last pass takes its columns strided
 * (column q = block + c * blocks) so that the C columns of a tile land on
 * C adjacent outputs.
 *
 * Directions: the inverse uses w^-1 everywhere (w^-e = w^(n-e), folded
 * into the same table) and scales by 1/n in the last pass; the forward
 * coset multiplies the input by g^i on load in the first pass, the coset
 * inverse multiplies output j by g^-j / n in the last pass, both from two
 * small tables lo[k] = g^k (k < 4096) and hi[k] = s * g^(4096 k).  The
 * inverse-to-coset direction (Groth16's H: each of a, b, c goes from
 * evaluations to the coset) is the coset inverse's store with g for g^-1:
 * output j times g^j / n, which the following plain forward transform
 * then evaluates on the coset, so the forward's load product disappears.
 * Sizes below one thread's E elements use ntt_small_one.
 *
 * Must not: allocate, or depend on the launch shape beyond the plan.
 */
#ifndef CUZK_GPU_NTT_KERNELS_CUH
#define CUZK_GPU_NTT_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>

#include "field/gpu/mont.cuh"

#define NTT_POW_LO_BITS 12
#define NTT_POW_LO ((uint32_t)1 << NTT_POW_LO_BITS)

/* Tile of 2^10 elements per block (32 KB of shared memory plus up to 16 KB
 * of roots), 2^NTT_EPT_LOG elements per thread (both overridable with -D
 * for measurements, NTT_EPT_LOG 2 or 3). */
#ifndef NTT_TILE_LOG
#define NTT_TILE_LOG 10
#endif
#ifndef NTT_EPT_LOG
#define NTT_EPT_LOG 2
#endif
#define NTT_EPT (1 << NTT_EPT_LOG)
#define NTT_THREADS (1u << (NTT_TILE_LOG - NTT_EPT_LOG))
#define NTT_MAX_PASSES 4
/* Below this size one thread does the whole transform (ntt_small_one). */
#define NTT_SMALL_LOG (NTT_EPT_LOG - 1)

/* One pass of the plan (all values derived on the host). */
typedef struct ntt_pass {
    uint32_t log_n;
    uint32_t s0;       /* stages done by earlier passes */
    uint32_t L;        /* stages of this pass */
    uint32_t log_s;    /* log_n - s0 - L: column stride */
    uint32_t log_c;    /* tile columns (log) */
    uint32_t tile_log; /* L + log_c */
    uint32_t log_nb;   /* blocks of the launch (log) */
    uint32_t rounds;   /* ceil(L / NTT_EPT_LOG) */
    uint32_t last;     /* writes x[bitrev(i)] (strided columns) */
    uint32_t inverse;  /* roots w^-1 */
    uint32_t pre;      /* multiply input i by lo/hi power (coset forward) */
    uint32_t post;     /* last pass: 0 none, 1 times scale, 2 lo/hi power */
} ntt_pass;

CUZK_HD uint32_t ntt_bitrev(uint32_t i, unsigned bits) {
    if (bits == 0)
        return 0;
#if defined(__CUDA_ARCH__)
    return __brev(i) >> (32 - bits);
#else
    uint32_t r = 0;
    for (unsigned k = 0; k < bits; k++)
        r |= ((i >> k) & 1u) << (bits - 1 - k);
    return r;
#endif
}

/* Stages per pass: |log_n| split into ceil(log_n / NTT_TILE_LOG) nearly
 * equal parts, larger first.  Returns the pass count. */
static inline unsigned ntt_plan(unsigned log_n, unsigned L[NTT_MAX_PASSES]) {
    unsigned np = (log_n + NTT_TILE_LOG - 1) / NTT_TILE_LOG;
    if (np < 1)
        np = 1;
    for (unsigned k = 0; k < np; k++)
        L[k] = log_n / np + (k < log_n % np ? 1u : 0u);
    return np;
}

/*
 * Tile of one pass of L stages.  NTT_PLAN_FIXED: 2^NTT_TILE_LOG (log_n when
 * smaller), so a transform of 2^n elements launches 2^(n-10) blocks per
 * pass: 4 at 2^12, 64 at 2^16, fewer than the 132 multiprocessors of an
 * H200 below 2^17.  NTT_PLAN_SMALL: the largest tile that still gives
 * 2^NTT_SMALL_BLOCKS_LOG blocks (about one per multiprocessor), but at
 * least the pass's L stages and one warp of threads (2^(NTT_EPT_LOG + 5)
 * elements), at most NTT_TILE_LOG.  The thread count of a pass (n / E) is
 * the same either way; the smaller tile spreads it over all
 * multiprocessors instead of packing 8 warps on each of a few.  Twice the
 * blocks would not shorten the busiest multiprocessor's work (two blocks
 * of half the size on most of them), only shrink the tiles.  From 2^17 up
 * both plans are the same.
 */
#define NTT_PLAN_FIXED 0u
#define NTT_PLAN_SMALL 1u
#define NTT_SMALL_BLOCKS_LOG 7
static inline unsigned ntt_pass_tile(unsigned log_n, unsigned L,
                                     unsigned shape) {
    if (log_n <= NTT_TILE_LOG)
        return log_n; /* one pass, one block */
    if (shape != NTT_PLAN_SMALL)
        return NTT_TILE_LOG;
    int t = (int)log_n - NTT_SMALL_BLOCKS_LOG;
    int lo = (int)L > NTT_EPT_LOG + 5 ? (int)L : NTT_EPT_LOG + 5;
    if (t < lo)
        t = lo;
    if (t > NTT_TILE_LOG)
        t = NTT_TILE_LOG;
    return (unsigned)t;
}

/* Fills the pass descriptors of the plan for one transform (|shape|:
 * NTT_PLAN_FIXED or NTT_PLAN_SMALL).  The passes are independent launches:
 * a pass's tile only changes which block does which columns, so each pass
 * takes its own. */
static inline unsigned ntt_plan_passes(unsigned log_n, int inverse, int pre,
                                       int post, unsigned shape,
                                       ntt_pass out[NTT_MAX_PASSES]) {
    unsigned L[NTT_MAX_PASSES];
    unsigned np = ntt_plan(log_n, L), s0 = 0;
    for (unsigned k = 0; k < np; k++) {
        ntt_pass *p = &out[k];
        unsigned tile = ntt_pass_tile(log_n, L[k], shape);
        p->log_n = log_n;
        p->s0 = s0;
        p->L = L[k];
        p->log_s = log_n - s0 - L[k];
        p->tile_log = tile;
        p->log_c = tile - L[k];
        p->log_nb = log_n - tile;
        p->rounds = (L[k] + NTT_EPT_LOG - 1) / NTT_EPT_LOG;
        p->last = k + 1 == np;
        p->inverse = inverse != 0;
        p->pre = k == 0 && pre;
        p->post = k + 1 == np ? (uint32_t)post : 0;
        s0 += L[k];
    }
    return np;
}

/* 1/n for n = 2^log_n <= the field's 2-adicity, in Montgomery form, without
 * an inversion: n divides p - 1, so n * (p - (p - 1)/n) = 1 (mod p).  (A
 * Fermat inversion on the host costs about 20 us per call, which is more
 * than a whole GPU transform of 2^16.) */
template <class C> CUZK_HD void ntt_inv_n(fp_t<C> &r, unsigned log_n) {
    fp_t<C> p, q;
    f_load_const(p, C::p());
    /* q = (p - 1) >> log_n (p is odd: p - 1 only clears bit 0) */
    q = p;
    q.v[0] &= ~1u;
    for (unsigned s = log_n; s > 0;) {
        unsigned k = s < 31 ? s : 31;
        for (int w = 0; w < C::N32; w++) {
            uint32_t hi = w + 1 < C::N32 ? q.v[w + 1] : 0u;
            q.v[w] = (q.v[w] >> k) | (hi << (32 - k));
        }
        s -= k;
    }
    uint32_t borrow = 0;
    for (int w = 0; w < C::N32; w++) {
        uint64_t d = (uint64_t)p.v[w] - q.v[w] - borrow;
        r.v[w] = (uint32_t)d;
        borrow = (uint32_t)(d >> 63);
    }
    f_to_mont(r, r);
}

/* Shared memory of a pass in bytes: the tile and the root table. */
static inline size_t ntt_pass_shared_bytes(const ntt_pass *p) {
    return 8 * sizeof(uint32_t) *
           (((size_t)1 << p->tile_log) + ((size_t)1 << (p->L - 1)));
}

/* g^idx from the two-level power tables. */
template <class C>
CUZK_HD void ntt_pow_lookup(fp_t<C> &r, const fp_t<C> *lo, const fp_t<C> *hi,
                            uint32_t idx) {
    f_mul(r, lo[idx & (NTT_POW_LO - 1)], hi[idx >> NTT_POW_LO_BITS]);
}

/* r = w^e for e < n, from tw[k] = w^k (k < n/2) and w^(n/2) = -1. */
template <class C>
CUZK_HD void ntt_pow_w(fp_t<C> &r, const fp_t<C> *tw, uint32_t e,
                       uint32_t half) {
    if (e < half) {
        r = tw[e];
    } else {
        fp_t<C> t = tw[e - half];
        f_neg(r, t);
    }
}

/* Exponent of w for the direction: e or n - e (mod n). */
CUZK_HD uint32_t ntt_dir_exp(uint32_t e, const ntt_pass &P) {
    return P.inverse ? (0u - e) & ((1u << P.log_n) - 1) : e;
}

/* ---- shared memory: 8 word planes, swizzled slots ------------------------ */

CUZK_HD uint32_t ntt_swz(uint32_t s) { return s ^ ((s >> 5) & 31u); }

template <class C>
CUZK_HD void ntt_sh_put(uint32_t *sh, uint32_t plane, uint32_t s,
                        const fp_t<C> &a) {
CUZK_UNROLL
    for (int w = 0; w < 8; w++)
        sh[(uint32_t)w * plane + s] = a.v[w];
}
template <class C>
CUZK_HD void ntt_sh_get(fp_t<C> &a, const uint32_t *sh, uint32_t plane,
                        uint32_t s) {
CUZK_UNROLL
    for (int w = 0; w < 8; w++)
        a.v[w] = sh[(uint32_t)w * plane + s];
}

/* Lowest tile slot bit held in registers in round |rho|: the thread holds
 * rows m with bits [b0, b0 + e) free, b0 = max(0, L - e (rho + 1)),
 * e = NTT_EPT_LOG. */
CUZK_HD unsigned ntt_round_b0(const ntt_pass &P, unsigned rho) {
    int b0 = (int)P.L - NTT_EPT_LOG * ((int)rho + 1);
    return b0 > 0 ? (unsigned)b0 : 0u;
}

/*
 * Slot of element 0 of thread |t| in a round whose held slot bits are
 * [h, h + e): the thread index is spread over the other slot bits, its
 * lowest 5 bits (the lanes of a warp) first onto slot bits that reach
 * distinct bank bits through the swizzle (k or k + 5 for bank bit k).
 */
CUZK_HD uint32_t ntt_thread_slot(uint32_t t, unsigned tile_log, unsigned h) {
    uint32_t used = (uint32_t)(NTT_EPT - 1) << h, slot = 0;
    unsigned i = 0;
    for (unsigned k = 0; k < 5 && k < tile_log; k++) {
        unsigned b = k;
        if ((used >> b) & 1u) {
            b = k + 5;
            if (b >= tile_log || ((used >> b) & 1u))
                continue;
        }
        used |= 1u << b;
        slot |= ((t >> i) & 1u) << b;
        i++;
    }
    for (unsigned b = 0; b < tile_log; b++) {
        if ((used >> b) & 1u)
            continue;
        used |= 1u << b;
        slot |= ((t >> i) & 1u) << b;
        i++;
    }
    return slot;
}

template <class C> struct ntt_regs {
    fp_t<C> y[NTT_EPT];
};

/* Global index of tile slot |s| of block |b| (input order of the pass). */
CUZK_HD uint32_t ntt_global_index(const ntt_pass &P, uint32_t b, uint32_t s) {
    uint32_t c = s & ((1u << P.log_c) - 1);
    uint32_t m = (s >> P.log_c) & ((1u << P.L) - 1);
    uint32_t q = P.last ? b + (c << P.log_nb) : (b << P.log_c) + c;
    uint32_t blk = q >> P.log_s, p = q & ((1u << P.log_s) - 1);
    return (blk << (P.log_s + P.L)) + p + (m << P.log_s);
}

/* Exponent of w of the post-twiddle of tile slot |s| (not last pass). */
CUZK_HD uint32_t ntt_post_exp(const ntt_pass &P, uint32_t b, uint32_t s) {
    uint32_t i = ntt_global_index(P, b, s);
    uint32_t m = (s >> P.log_c) & ((1u << P.L) - 1);
    uint32_t p = i & ((1u << P.log_s) - 1);
    return (p * ntt_bitrev(m, P.L)) << P.s0;
}

/* Phase 1: root table into shared memory (all threads), the thread's 8
 * elements of round 0 from |src|, times g^i for the forward coset. */
template <class C>
CUZK_HD void ntt_tile_load(const ntt_pass &P, uint32_t b, uint32_t t,
                           uint32_t nthreads, uint32_t *sh, ntt_regs<C> &r,
                           const fp_t<C> *src, const fp_t<C> *tw,
                           const fp_t<C> *lo, const fp_t<C> *hi) {
    const uint32_t half = 1u << (P.log_n - 1);
    const uint32_t rplane = 1u << (P.L - 1);
    uint32_t *rsh = sh + 8 * (1u << P.tile_log);
    for (uint32_t k = t; k < rplane; k += nthreads) {
        fp_t<C> w;
        ntt_pow_w(w, tw, ntt_dir_exp(k << (P.log_n - P.L), P), half);
        ntt_sh_put(rsh, rplane, k, w);
    }
    const unsigned h = P.log_c + ntt_round_b0(P, 0);
    const uint32_t base = ntt_thread_slot(t, P.tile_log, h);
CUZK_UNROLL
    for (int e = 0; e < NTT_EPT; e++)
        r.y[e] = src[ntt_global_index(P, b, base | ((uint32_t)e << h))];
    if (P.pre) {
CUZK_UNROLL
        for (int e = 0; e < NTT_EPT; e++) {
            fp_t<C> g;
            ntt_pow_lookup(g, lo, hi,
                           ntt_global_index(P, b, base | ((uint32_t)e << h)));
            f_mul(r.y[e], r.y[e], g);
        }
    }
}

/* The stages of round |rho| on the thread's registers (roots from shared). */
template <class C>
CUZK_HD void ntt_tile_round(const ntt_pass &P, unsigned rho, uint32_t t,
                            const uint32_t *sh, ntt_regs<C> &r) {
    const uint32_t rplane = 1u << (P.L - 1);
    const uint32_t *rsh = sh + 8 * (1u << P.tile_log);
    const unsigned b0 = ntt_round_b0(P, rho);
    const unsigned h = P.log_c + b0;
    const unsigned j0 = NTT_EPT_LOG * rho;
    const unsigned nst = P.L - j0 < NTT_EPT_LOG ? P.L - j0 : NTT_EPT_LOG;
    const uint32_t mbase =
        (ntt_thread_slot(t, P.tile_log, h) >> P.log_c) & ((1u << P.L) - 1);
CUZK_UNROLL
    for (int eb = NTT_EPT_LOG - 1; eb >= 0; eb--) {
        if ((unsigned)eb >= nst)
            continue;
        const unsigned j = P.L - 1 - b0 - (unsigned)eb; /* column stage */
        const uint32_t hmask = (1u << (b0 + (unsigned)eb)) - 1;
CUZK_UNROLL
        for (int e = 0; e < NTT_EPT; e++) {
            if (e & (1 << eb))
                continue;
            const int f = e | (1 << eb);
            uint32_t m = mbase | ((uint32_t)e << b0);
            uint32_t k = (m & hmask) << j;
            fp_t<C> a = r.y[e], d;
            f_add(r.y[e], a, r.y[f]);
            f_sub(d, a, r.y[f]);
            if (k == 0) {
                r.y[f] = d;
            } else {
                fp_t<C> w;
                ntt_sh_get(w, rsh, rplane, k);
                f_mul(r.y[f], d, w);
            }
        }
    }
}

/* Exchange through shared memory: store after round |rho|, load before. */
template <class C>
CUZK_HD void ntt_tile_to_shared(const ntt_pass &P, unsigned rho, uint32_t t,
                                uint32_t *sh, const ntt_regs<C> &r) {
    const unsigned h = P.log_c + ntt_round_b0(P, rho);
    const uint32_t base = ntt_thread_slot(t, P.tile_log, h);
    const uint32_t plane = 1u << P.tile_log;
CUZK_UNROLL
    for (int e = 0; e < NTT_EPT; e++)
        ntt_sh_put(sh, plane, ntt_swz(base | ((uint32_t)e << h)), r.y[e]);
}
template <class C>
CUZK_HD void ntt_tile_from_shared(const ntt_pass &P, unsigned rho, uint32_t t,
                                  const uint32_t *sh, ntt_regs<C> &r) {
    const unsigned h = P.log_c + ntt_round_b0(P, rho);
    const uint32_t base = ntt_thread_slot(t, P.tile_log, h);
    const uint32_t plane = 1u << P.tile_log;
CUZK_UNROLL
    for (int e = 0; e < NTT_EPT; e++)
        ntt_sh_get(r.y[e], sh, plane, ntt_swz(base | ((uint32_t)e << h)));
}

/* Last phase: post-twiddle w'^(p bitrev(m)) (not in the last pass) or the
 * output scaling and bit reversal (last pass), then the global write. */
template <class C>
CUZK_HD void ntt_tile_store(const ntt_pass &P, uint32_t b, uint32_t t,
                            ntt_regs<C> &r, fp_t<C> *dst, const fp_t<C> *tw,
                            const fp_t<C> *lo, const fp_t<C> *hi,
                            const fp_t<C> &scale) {
    const uint32_t half = 1u << (P.log_n - 1);
    const unsigned h = P.log_c + ntt_round_b0(P, P.rounds - 1);
    const uint32_t base = ntt_thread_slot(t, P.tile_log, h);
CUZK_UNROLL
    for (int e = 0; e < NTT_EPT; e++) {
        uint32_t s = base | ((uint32_t)e << h);
        uint32_t i = ntt_global_index(P, b, s);
        if (!P.last) {
            uint32_t ex = ntt_post_exp(P, b, s);
            if (ex != 0) {
                fp_t<C> w;
                ntt_pow_w(w, tw, ntt_dir_exp(ex, P), half);
                f_mul(r.y[e], r.y[e], w);
            }
            dst[i] = r.y[e];
        } else {
            uint32_t j = ntt_bitrev(i, P.log_n);
            if (P.post == 1) {
                f_mul(r.y[e], r.y[e], scale);
            } else if (P.post == 2) {
                fp_t<C> g;
                ntt_pow_lookup(g, lo, hi, j);
                f_mul(r.y[e], r.y[e], g);
            }
            dst[j] = r.y[e];
        }
    }
}

/*
 * Whole transform of n <= 2^NTT_SMALL_LOG elements by one thread (direct
 * sums), with the same pre/post factors as the tiled passes.
 */
template <class C>
CUZK_HD void ntt_small_one(fp_t<C> *x, const ntt_pass &P, const fp_t<C> *tw,
                           const fp_t<C> *lo, const fp_t<C> *hi,
                           const fp_t<C> &scale) {
    const uint32_t n = 1u << P.log_n, half = n >> 1;
    fp_t<C> a[1 << NTT_SMALL_LOG], out[1 << NTT_SMALL_LOG];
    for (uint32_t i = 0; i < n; i++) {
        a[i] = x[i];
        if (P.pre) {
            fp_t<C> g;
            ntt_pow_lookup(g, lo, hi, i);
            f_mul(a[i], a[i], g);
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        f_set_zero(out[k]);
        for (uint32_t i = 0; i < n; i++) {
            fp_t<C> w, t;
            ntt_pow_w(w, tw, ntt_dir_exp((i * k) & (n - 1), P), half);
            f_mul(t, a[i], w);
            f_add(out[k], out[k], t);
        }
        if (P.post == 1) {
            f_mul(out[k], out[k], scale);
        } else if (P.post == 2) {
            fp_t<C> g;
            ntt_pow_lookup(g, lo, hi, k);
            f_mul(out[k], out[k], g);
        }
    }
    for (uint32_t k = 0; k < n; k++)
        x[k] = out[k];
}

/* out[k] = scale * base^k. */
template <class C>
CUZK_HD void ntt_powers_one(uint32_t k, fp_t<C> *out, const fp_t<C> &base,
                            const fp_t<C> &scale) {
    fp_t<C> r;
    f_pow(r, base, &k, 1);
    f_mul(out[k], r, scale);
}

#endif
