/*
 * Host emulation of the GPU MSM (msm/gpu/msm_kernels.cuh) against the CPU
 * MSM (msm/msm.h), without a GPU.  The per-thread bodies are __host__
 * __device__; this program runs the launch sequence of msm_run (msm_run.cu)
 * thread by thread: digits, a sort standing in for CUB's radix sort (by the
 * same low key bits, stable), level-1 accumulation and the further levels
 * over the partial lists until one thread is left, bucket reduction, the
 * pairwise tree, the host combination and the Jacobian conversion.  With
 * shifted copies the copies are built as cuzk_gpu_bases_precompute does
 * (doubling kernel, then the batched conversion to affine, 32 points per
 * thread), and some of them are checked against CPU doublings.
 *
 * Threads of one launch run one after another, forward or backward (the
 * device may pick any order: threads of a launch must not depend on each
 * other).  Every output array is poisoned before its launch and carries a
 * poisoned guard region after its end that must stay untouched; an array
 * the device takes from the MSM's plan (msm_plan.h) is as long as the
 * plan's layout made it (its recorded lengths), so a plan buffer one entry
 * short fails here.  The buckets start zeroed (infinity) as msm_run's
 * memset leaves them.
 *
 * Variants of the segment length (entries per thread): msm_seg_len for a
 * 132-SM device and for a 1-SM device (long segments), and fixed small ones
 * (7 then 4, 4 then 5) so bucket runs cross many segment boundaries; one or
 * two batches (the second adds into the buckets of the first).  The levels
 * after the first need at least 4 entries per thread to shrink (with 3, two
 * threads stay two threads), as msm_seg_len's minimum ensures.
 *
 * Every MSM runs four times: as above; with the bit-scalar sums (scalars 1
 * appended unsorted after the digits under the ones' key), every other
 * time with the batch-affine levels (msm_affine.cuh) before level 1, at
 * segment lengths 4 to 512 and level thresholds 1 to 128 (emu_affine),
 * after which the rewritten pairs must be sorted (key, index) pairs; and
 * twice gathered through a random index list from a vector twice as long
 * (density keys), without and with the ones.  A base set of opposite
 * pairs with all scalars 1 sums to infinity through the ones' bucket.  Two more base sets feed the levels their
 * exceptional pairs: P, -P, P, P, infinity, Q repeated, and one point only.
 *
 * Groups: G1 and G2 of BN254 and BLS12-381.  Windows 3, 8, 13 plain and 8,
 * 10 with shifted copies (one bucket set), sizes 1, 2, 3, 33, 257 and a
 * larger one, scalar sets random / zero / one (Montgomery and plain) /
 * equal / r-1 / 2^256-1 (plain, reduced mod r) / alternating 0 and 1 /
 * 90% bits / a 0-1-random mix, bases
 * with repeats, opposites and infinity, and base offsets with the shifted
 * copies.  CUZK_MSM_EMULATE_MAX sets the larger size (default 2000 for G1,
 * half of it for G2).  Prints a line per group and a summary; exit 0
 * pass, 1 fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "curve/curve.h"
#include "field/field.h"
#include "msm/msm.h"
}
#include "msm/gpu/msm_affine.cuh"
#include "msm/gpu/msm_kernels.cuh"
#include "msm/gpu/msm_plan.h"
#include "tests/emulate_rng.h"
#include "tests/msm_emulate.h"

int passed, failed;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Segment lengths of one run: l1/l2 fixed (0: msm_seg_len with |sm|
 * multiprocessors), thread order and tie order of the sort. */
struct emu_variant {
    size_t l1, l2;
    int sm;
    bool backward;
    const char *name;
};
static const emu_variant variants[] = {
    {0, 0, 132, false, "seg_len(132 SMs)"},
    {7, 4, 0, true, "L 7/4 backward"},
    {4, 5, 0, false, "L 4/5"},
    {0, 0, 1, true, "seg_len(1 SM) backward"},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* Batch-affine levels (msm_affine.cuh) before level 1: entries per thread
 * |la| (0: the XYZZ path alone) and the fewest pairs a level needs.  Short
 * segments put runs across many segment boundaries; min_pairs 1 takes
 * every run down to one point, the device's 128 / 48 stop early and leave
 * runs of several points to the XYZZ level. */
struct emu_affine {
    size_t la, min_pairs;
    const char *name;
};
static const emu_affine aff_variants[] = {
    {4, 1, "affine L 4"},     {7, 1, "affine L 7"},
    {64, 2, "affine L 64"},   {256, 1, "affine L 256"},
    {256, 128, "affine L 256 min 128"}, {512, 48, "affine L 512 min 48"},
};
#define NAFF (sizeof aff_variants / sizeof aff_variants[0])
static const emu_affine aff_none = {0, 0, "xyzz"};


/* ---- poisoned arrays with a guard region ------------------------------- */

#define GUARD 4
#define POISON 0xA5

/* |n| elements plus GUARD more, every byte POISON. */
template <class T> struct guarded {
    std::vector<T> v;
    size_t n;
    explicit guarded(size_t count) : v(count + GUARD), n(count) {
        memset((void *)v.data(), POISON, v.size() * sizeof(T));
    }
    T *p() { return v.data(); }
    /* A plan buffer: the whole entries of the |bytes| the layout gave it. */
    static size_t of(size_t bytes) { return bytes / sizeof(T); }
    bool guard_ok() const {
        const unsigned char *b = (const unsigned char *)(v.data() + n);
        for (size_t k = 0; k < GUARD * sizeof(T); k++)
            if (b[k] != POISON)
                return false;
        return true;
    }
};

/* ---- CPU side of each group --------------------------------------------- */

template <class G> struct emu;
#define EMU_GROUP(GG, CG, CS)                                                 \
    template <> struct emu<GG> {                                              \
        typedef CG J;                                                         \
        typedef CG##_affine A;                                                \
        typedef CS S;                                                         \
        static const char *name() { return #CG; }                             \
        static const uint64_t *r() { return CS##_modulus; }                   \
        static void one(S *s) { CS##_set_one(s); }                            \
        static void generator(J *p) {                                         \
            A g;                                                              \
            CG##_generator(&g);                                               \
            CG##_from_affine(p, &g);                                          \
        }                                                                     \
        static void mul(J *r, const J *a, const S *k) { CG##_mul(r, a, k); }  \
        static void add(J *r, const J *a, const J *b) { CG##_add(r, a, b); }  \
        static void dbl(J *r, const J *a) { CG##_dbl(r, a); }                 \
        static void from_affine(J *r, const A *a) { CG##_from_affine(r, a); } \
        static void to_affine(A *r, const J *a) { CG##_to_affine(r, a); }     \
        static void batch_to_affine(A *o, const J *i, size_t n) {             \
            CG##_batch_to_affine(o, i, n);                                    \
        }                                                                     \
        static void affine_neg(A *r, const A *a) { CG##_affine_neg(r, a); }   \
        static void affine_set_inf(A *r) { CG##_affine_set_inf(r); }          \
        static int affine_eq(const A *a, const A *b) {                        \
            return CG##_affine_eq(a, b);                                      \
        }                                                                     \
        static int eq(const J *a, const J *b) { return CG##_eq(a, b); }       \
        static cuzk_status msm(J *r, const A *b, const uint32_t *s, size_t n, \
                               int mont) {                                    \
            return CG##_msm(r, b, (const S *)s, n, mont, NULL);               \
        }                                                                     \
    };
EMU_GROUP(gg_bn254_g1, bn254_g1, bn254_fr)
EMU_GROUP(gg_bn254_g2, bn254_g2, bn254_fr)
EMU_GROUP(gg_bls12_381_g1, bls12_381_g1, bls12_381_fr)
EMU_GROUP(gg_bls12_381_g2, bls12_381_g2, bls12_381_fr)

/* Random 4-limb value below r. */
static void rand_below(uint64_t *x, const uint64_t *r) {
    uint64_t mask = ~0ull;
    while (mask >> 1 >= r[3])
        mask >>= 1;
    do {
        for (int j = 0; j < 4; j++)
            x[j] = rnd64();
        x[3] &= mask;
    } while (!(x[3] < r[3] ||
               (x[3] == r[3] && !msm_words_geq((const uint32_t *)x,
                                               (const uint32_t *)r, 8))));
}

/* ---- the emulated pipeline ------------------------------------------------ */

/*
 * Shifted copies as shift_build (msm_bases.cu) makes them: copy j = 2^c copy
 * j-1, j = 1..W-1, W - 1 copies of all N points in |dst|.
 */
template <class G>
static void emu_shift_build(const typename G::affine *pts, size_t N,
                            unsigned c, std::vector<typename G::affine> &dst) {
    typedef typename G::affine A;
    typedef typename G::xyzz P;
    typedef typename G::F F;
    unsigned w = msm_nwin(G::R_BITS, c);
    const size_t K = 32; /* MSM_SHIFT_K */
    guarded<A> out((size_t)(w - 1) * N);
    bool ok = true;
    for (unsigned j = 1; j < w; j++) {
        const A *src = j == 1 ? pts : out.p() + (size_t)(j - 2) * N;
        A *o = out.p() + (size_t)(j - 1) * N;
        guarded<P> tmp(N);
        guarded<F> pre(N);
        for (size_t i = 0; i < N; i++)
            msm_shift_dbl_one<G>(i, src, c, tmp.p());
        size_t T = (N + K - 1) / K;
        for (size_t t = T; t-- > 0;)
            msm_shift_norm_one<G>(t, tmp.p(), N, K, pre.p(), o);
        ok = ok && tmp.guard_ok() && pre.guard_ok();
    }
    EXPECT(ok && out.guard_ok(), "%s shift build c=%u: guard overwritten",
           emu<G>::name(), c);
    dst.assign(out.v.begin(), out.v.begin() + out.n);
}

/*
 * msm_run on the host: sum over points [off, off + n) of |bases| (N
 * points; |shift|: their W - 1 copies, NULL for plain bases) with |scalars|
 * (8 words each, for these n points), window c, in |nbatch| batches.
 * Writes the Jacobian result to out[3].  Returns false if a guard region
 * was overwritten or an emitted key was out of range.
 */
/* Options of one emulated call: bit-scalar sums (the ones appended after
 * the sorted digits, msm_kernels.cuh) and a gather list (sidx: n entries,
 * point i takes scalar sidx[i] of each whole vector). */
struct emu_opts {
    bool ones;
    const uint32_t *sidx;
};
static const emu_opts opts_plain = {false, NULL};

template <class G>
static bool emu_msm(typename G::F *out, const typename G::affine *bases,
                    size_t N, const typename G::affine *shift, size_t off,
                    size_t n, const uint32_t *const *scalars, size_t nvec,
                    bool mont, unsigned c, const std::vector<size_t> &chunks,
                    const emu_variant &v, const emu_affine &av = aff_none,
                    const emu_opts &eo = opts_plain) {
    typedef typename G::affine A;
    typedef typename G::xyzz P;
    bool shifted = shift != NULL, ok = true;
    unsigned nwin = msm_nwin(G::R_BITS, c);
    unsigned nwb = shifted ? 1 : nwin;
    unsigned log_b = c - 1;
    unsigned key_bits = msm_ilog2((size_t)nwb << log_b) + 1;
    uint32_t key_mask = key_bits >= 32 ? ~0u : (1u << key_bits) - 1;
    unsigned log_s = log_b;
    while (log_s > 5 && ((size_t)nwb << (log_b - log_s)) < 65536)
        log_s--;
    size_t nseg = (size_t)1 << (log_b - log_s);
    size_t nbk = (size_t)nwb << log_b;
    uint32_t ones_key = (uint32_t)nbk; /* the ones' bucket follows the sets */
    /* The plan msm_run would make for the largest chunk: every buffer
     * below that the device takes from it is as long as the layout made
     * it, so a buffer the plan makes one entry short is written into its
     * guard.  The levels' partial slots are the plan's where the segments
     * are the device's (msm_seg_len; batch-affine ones of 256 or more). */
    size_t smax = 1;
    for (size_t k = 0; k < chunks.size(); k++)
        smax = chunks[k] > smax ? chunks[k] : smax;
    msm_plan_req rq = {};
    rq.n = n, rq.nvec = nvec, rq.affine = av.la != 0;
    rq.shift_c = shifted ? c : 0, rq.sm_count = v.sm ? v.sm : 132;
    msm_group_sizes gs = {G::R_BITS, sizeof(A), sizeof(P), sizeof(typename G::F)};
    static const msm_cub_sizes cub = {est_sort, est_scan};
    msm_plan pl = {};
    msm_window(pl, rq, G::R_BITS, c);
    msm_layout(pl, rq, gs, cub, smax);
    bool dev_levels = !v.l1 && !v.l2 && (!av.la || av.la >= 256);
    /* one bucket set (and the ones' bucket) per vector in the plan's
     * buckets, zeroed as msm_run's memset leaves them, the guard after */
    guarded<P> bk(guarded<P>::of(pl.len_buckets));
    memset((void *)bk.p(), 0, bk.n * sizeof(P));
    size_t stride = msm_set_stride(pl);
    /* chunk outer, vector inner, as msm_run: every chunk after the first
     * folds the stored buckets in */
    size_t b0 = 0;
    for (size_t ci = 0; ci < chunks.size() && b0 < n; ci++) {
      size_t nb = chunks[ci] < n - b0 ? chunks[ci] : n - b0;
      bool acc = b0 > 0;
      for (size_t vi = 0; vi < nvec; vi++) {
        P *buckets = bk.p() + vi * stride;
        /* gathered: the whole vector through the chunk's part of sidx */
        const uint32_t *sc = eo.sidx ? scalars[vi] : scalars[vi] + 8 * b0;
        const uint32_t *sx = eo.sidx ? eo.sidx + b0 : NULL;
        /* 1. digits, packed: count (thread nb writes the end marker), an
         * exclusive scan as cub's, scatter */
        guarded<unsigned long long> cnt(guarded<unsigned long long>::of(pl.len_cnt));
        guarded<unsigned long long> offs(guarded<unsigned long long>::of(pl.len_off));
        for (size_t q = 0; q <= nb; q++)
            msm_count_one<G>(v.backward ? nb - q : q, sc, sx, nb, mont,
                             eo.ones, c, nwin, cnt.p());
        ok = ok && cnt.guard_ok();
        unsigned long long run = 0;
        for (size_t q = 0; q <= nb; q++) {
            offs.p()[q] = run;
            run += cnt.p()[q];
        }
        size_t Md = (size_t)(offs.p()[nb] & 0xFFFFFFFFull);
        size_t M1 = (size_t)(offs.p()[nb] >> 32);
        size_t M = Md + M1;
        if (M > nb * nwin || (!eo.ones && M1)) {
            fprintf(stderr, "packed count %zu digits + %zu ones for %zu scalars\n",
                    Md, M1, nb);
            ok = false;
            M = Md = M1 = 0;
        }
        guarded<uint32_t> keys0(guarded<uint32_t>::of(pl.len_keys[0]));
        guarded<uint32_t> vals0(guarded<uint32_t>::of(pl.len_vals[0]));
        for (size_t q = 0; q < nb; q++)
            msm_scatter_one<G>(v.backward ? nb - 1 - q : q, sc, sx, nb, mont,
                               eo.ones, ones_key, c, nwin,
                               shifted ? (uint32_t)N : 0u,
                               shifted ? (uint32_t)(off + b0) : 0u, offs.p(),
                               keys0.p(), vals0.p());
        ok = ok && keys0.guard_ok() && vals0.guard_ok();
        for (size_t k = 0; k < M; k++) {
            uint32_t j = vals0.p()[k] & ~MSM_NEG_BIT;
            bool one = k >= Md;
            if ((one ? keys0.p()[k] != ones_key || (vals0.p()[k] & MSM_NEG_BIT)
                     : keys0.p()[k] >= nbk) ||
                (shifted ? j >= (size_t)nwin * N : j >= nb)) {
                fprintf(stderr, "%s %zu: key %u value %u out of range\n",
                        one ? "one" : "digit", k, keys0.p()[k], j);
                ok = false;
            }
        }
        /* 2. sort the digits (not the ones after them) by the low key_bits
         * bits of the key, as the radix sort; the backward variants order
         * equal keys by descending value, another order a parallel sort
         * could produce */
        std::vector<size_t> ord(M);
        if (M == 0)
            continue;
        for (size_t k = 0; k < M; k++)
            ord[k] = k;
        const uint32_t *kp = keys0.p(), *vp = vals0.p();
        bool rev = v.backward;
        std::stable_sort(ord.begin(), ord.begin() + Md, [&](size_t a, size_t b) {
            uint32_t ka = kp[a] & key_mask, kb = kp[b] & key_mask;
            if (ka != kb)
                return ka < kb;
            return rev ? vp[a] > vp[b] : false;
        });
        guarded<uint32_t> keys1(guarded<uint32_t>::of(pl.len_keys[1]));
        guarded<uint32_t> vals1(guarded<uint32_t>::of(pl.len_vals[1]));
        for (size_t k = 0; k < M; k++) {
            keys1.p()[k] = kp[ord[k]];
            vals1.p()[k] = vp[ord[k]];
        }
        /* 3. level 1, then the levels over the partial lists */
        size_t L = v.l1 ? v.l1 : msm_seg_len(M, v.sm, 256);
        size_t T = (M + L - 1) / L;
        const A *lvl_bases = shifted ? bases : bases + off + b0;
        const A *lvl_shift = shift;
        uint32_t lvl_nfirst = shifted ? (uint32_t)N : MSM_INVALID;
        guarded<A> work(av.la ? guarded<A>::of(pl.len_work) : 0);
        if (av.la) {
            /* batch-affine levels in place, then level 1 over their
             * points with the same segments (msm_run's affine branch) */
            L = av.la;
            T = (M + L - 1) / L;
            guarded<typename G::F> pre(guarded<typename G::F>::of(pl.len_pre));
            for (size_t q = 0; q < T; q++)
                msm_aff_one<G>(v.backward ? T - 1 - q : q, keys1.p(), M, L,
                               vals1.p(), lvl_bases, shift, lvl_nfirst,
                               av.min_pairs, work.p(), pre.p());
            ok = ok && pre.guard_ok() && work.guard_ok() &&
                 keys1.guard_ok() && vals1.guard_ok();
            for (size_t k = 0; k < M; k++) {
                if ((k > 0 && keys1.p()[k] < keys1.p()[k - 1]) ||
                    keys1.p()[k] > nbk || vals1.p()[k] != k) {
                    fprintf(stderr, "affine levels: entry %zu key %u value "
                                    "%u, not sorted (key, index) pairs\n",
                            k, keys1.p()[k], vals1.p()[k]);
                    ok = false;
                    break;
                }
            }
            lvl_bases = work.p();
            lvl_shift = NULL;
            lvl_nfirst = MSM_INVALID;
        }
        int cur = 0; /* the slot set a level writes: 0, 1, 0, ... */
        guarded<uint32_t> *pk = new guarded<uint32_t>(
            dev_levels ? guarded<uint32_t>::of(pl.len_pk[cur]) : 2 * T);
        guarded<P> *pp = new guarded<P>(dev_levels ? guarded<P>::of(pl.len_pp[cur]) : 2 * T);
        for (size_t q = 0; q < T; q++) {
            size_t t = v.backward ? T - 1 - q : q;
            msm_acc_one<G, true>(t, keys1.p(), M, L, vals1.p(), lvl_bases,
                                 lvl_shift, lvl_nfirst, (const P *)NULL,
                                 buckets, acc, pk->p(), pp->p());
        }
        ok = ok && pk->guard_ok() && pp->guard_ok();
        while (T > 1) {
            size_t Mk = 2 * T;
            L = v.l2 ? v.l2 : msm_seg_len(Mk, v.sm, 32);
            size_t Tn = (Mk + L - 1) / L;
            if (Tn >= T) { /* the level loop would not end */
                fprintf(stderr, "level with %zu threads, L %zu: no progress\n",
                        T, L);
                ok = false;
                break;
            }
            T = Tn;
            cur ^= 1;
            guarded<uint32_t> *nk = new guarded<uint32_t>(
                dev_levels ? guarded<uint32_t>::of(pl.len_pk[cur]) : 2 * T);
            guarded<P> *np = new guarded<P>(dev_levels ? guarded<P>::of(pl.len_pp[cur]) : 2 * T);
            for (size_t q = 0; q < T; q++) {
                size_t t = v.backward ? T - 1 - q : q;
                msm_acc_one<G, false>(t, pk->p(), Mk, L, (const uint32_t *)NULL,
                                      (const A *)NULL, (const A *)NULL, 0u,
                                      pp->p(), buckets, acc, nk->p(),
                                      np->p());
            }
            ok = ok && nk->guard_ok() && np->guard_ok();
            delete pk;
            delete pp;
            pk = nk;
            pp = np;
        }
        delete pk;
        delete pp;
      }
      b0 += nb;
    }
    if (b0 != n) {
        fprintf(stderr, "chunk schedule covers %zu of %zu points\n", b0, n);
        ok = false;
    }
    for (size_t vi = 0; vi < nvec; vi++) {
    P *buckets = bk.p() + vi * stride;
    /* 4. bucket reduction and the tree, ping-ponging between the plan's
     * two segment buffers */
    size_t T = (size_t)nwb * nseg;
    int cur = 0;
    guarded<P> *seg = new guarded<P>(guarded<P>::of(pl.len_seg[cur]));
    for (size_t q = 0; q < T; q++)
        msm_bucket_reduce_one<G>(v.backward ? T - 1 - q : q, buckets,
                                 log_b, log_s, seg->p());
    ok = ok && seg->guard_ok();
    for (size_t cnt = nseg; cnt > 1; cnt /= 2) {
        T = (size_t)nwb * (cnt / 2);
        cur ^= 1;
        guarded<P> *nx = new guarded<P>(guarded<P>::of(pl.len_seg[cur]));
        for (size_t q = 0; q < T; q++)
            msm_tree_one<G>(v.backward ? T - 1 - q : q, seg->p(), cnt / 2,
                            nx->p());
        ok = ok && nx->guard_ok();
        delete seg;
        seg = nx;
    }
    ok = ok && bk.guard_ok();
    /* 5. host: Horner over the window sums, then Jacobian */
    P res;
    msm_combine_host<G>(res, seg->p(), nwb, c);
    pt_add(res, buckets[nbk]); /* the ones' sum, as msm_run */
    delete seg;
    pt_to_jacobian(out + 3 * vi, res);
    }
    return ok;
}

/* ---- tests ----------------------------------------------------------------- */

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_EQUAL, SC_RM1, SC_MAX, SC_ALT, SC_BITS,
       SC_MIX };
static const char *sc_name[] = {"random", "zero",        "one", "equal",
                                "r-1",    "2^256-1",     "0101...",
                                "90% bits", "mix"};

template <class G>
static void make_scalars(std::vector<uint32_t> &s, size_t n, int kind,
                         bool mont) {
    const uint64_t *r = emu<G>::r();
    typename emu<G>::S one;
    emu<G>::one(&one);
    uint64_t eq[4];
    rand_below(eq, r);
    s.assign(8 * n, 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t x[4] = {0, 0, 0, 0};
        int k = kind;
        if (kind == SC_MIX) {
            uint64_t u = rnd64() % 3;
            k = u == 0 ? SC_ZERO : u == 1 ? SC_ONE : SC_RANDOM;
        } else if (kind == SC_ALT) {
            k = (i & 1) ? SC_ONE : SC_ZERO;
        } else if (kind == SC_BITS) { /* Filecoin's aux: mostly 0 and 1 */
            uint64_t u = rnd64() % 20;
            k = u < 9 ? SC_ZERO : u < 18 ? SC_ONE : SC_RANDOM;
        }
        switch (k) {
        case SC_RANDOM: rand_below(x, r); break;
        case SC_ZERO: break;
        case SC_ONE:
            if (mont)
                memcpy(x, &one, 32);
            else
                x[0] = 1;
            break;
        case SC_EQUAL: memcpy(x, eq, 32); break;
        case SC_RM1:
            memcpy(x, r, 32);
            x[0] -= 1;
            break;
        case SC_MAX: memset(x, 0xff, 32); break;
        }
        memcpy(&s[8 * i], x, 32);
    }
}

static int run_count;

/* Chunk schedules (sizes of the chunks an MSM of n points runs in): one
 * chunk; two halves; chunks of one point (7 above 300 points); random
 * sizes; msm_plan.h's ramp (first n/16, growing by MSM_RAMP to n/3); 13
 * points.  Equal scalars put every point of a window in one bucket, so
 * every boundary splits a bucket's points. */
#define NSCHED 6
static const char *sched_name[NSCHED] = {"1 chunk", "halves", "ones", "random",
                                         "ramp", "13s"};
static std::vector<size_t> emu_schedule(size_t n, int kind) {
    std::vector<size_t> ch;
    size_t done = 0;
    msm_plan pl = {};
    pl.n = n;
    pl.chunk = n / 3 ? n / 3 : 1;
    pl.first = n / 16 ? n / 16 : 1;
    for (size_t k = 0; done < n; k++) {
        size_t sz = n;
        switch (kind) {
        case 1: sz = (n + 1) / 2; break;
        case 2: sz = n <= 300 ? 1 : 7; break;
        case 3: sz = 1 + (size_t)(rnd64() % (n / 3 + 1)); break;
        case 4: sz = msm_chunk_at(pl, k); break;
        case 5: sz = 13; break;
        }
        if (sz > n - done)
            sz = n - done;
        ch.push_back(sz);
        done += sz;
    }
    return ch;
}

/* One emulated MSM over [off, off + n), compared with the CPU MSM. */
template <class G>
static void check(const typename G::affine *bases, size_t N,
                  const typename G::affine *shift, size_t off, size_t n,
                  int kind, bool mont, unsigned c, const char *what) {
    typedef typename emu<G>::J J;
    std::vector<uint32_t> s;
    make_scalars<G>(s, n, kind, mont);
    const emu_variant &v = variants[run_count % NVARIANTS];
    int sk = (run_count / NVARIANTS) % NSCHED;
    std::vector<size_t> sched = emu_schedule(n, sk);
    run_count++;
    typename G::F out[3];
    const uint32_t *sv[1] = {s.data()};
    memset(out, POISON, sizeof out);
    bool ok = emu_msm<G>(out, bases, N, shift, off, n, sv, 1, mont, c, sched,
                         v);
    J got, want;
    memcpy(&got, out, sizeof got);
    cuzk_status rc = emu<G>::msm(&want, (const typename emu<G>::A *)bases + off,
                                 s.data(), n, mont);
    EXPECT(ok && rc == CUZK_OK && emu<G>::eq(&got, &want),
           "%s %s %s c=%u off=%zu n=%zu mont=%d %s, %zu chunk(s) (%s): %s",
           emu<G>::name(), what, sc_name[kind], c, off, n, (int)mont,
           v.name, sched.size(), sched_name[sk],
           !ok ? "guard or key range" : rc ? "CPU MSM error" : "!= CPU MSM");
    /* the same MSM with the bit-scalar sums (and through the batch-affine
     * levels every other time) */
    const emu_affine &av = (run_count & 1) ? aff_variants[run_count % NAFF] : aff_none;
    emu_opts eo = {true, NULL};
    memset(out, POISON, sizeof out);
    ok = emu_msm<G>(out, bases, N, shift, off, n, sv, 1, mont, c, sched, v,
                    av, eo);
    memcpy(&got, out, sizeof got);
    EXPECT(ok && rc == CUZK_OK && emu<G>::eq(&got, &want),
           "%s %s %s c=%u off=%zu n=%zu mont=%d %s, %s, ones, %zu chunk(s) (%s): %s",
           emu<G>::name(), what, sc_name[kind], c, off, n, (int)mont,
           v.name, av.name, sched.size(), sched_name[sk],
           !ok ? "guard or key range" : rc ? "CPU MSM error" : "!= CPU MSM");
    /* the same scalars gathered from a longer vector through a list (a
     * density key's points name their wires), without and with the ones */
    const emu_affine &av2 = (run_count & 1) ? aff_none : aff_variants[(run_count + 3) % NAFF];
    size_t span = 2 * n + 5;
    std::vector<uint32_t> idx(span), whole(8 * span);
    for (size_t i = 0; i < span; i++)
        idx[i] = (uint32_t)i;
    for (size_t i = span; i > 1; i--)
        std::swap(idx[i - 1], idx[rnd64() % i]);
    for (size_t k = 0; k < whole.size(); k++)
        whole[k] = (uint32_t)rnd64(); /* junk where no point reads */
    for (size_t i = 0; i < n; i++)
        memcpy(&whole[8 * (size_t)idx[i]], &s[8 * i], 32);
    const uint32_t *wv[1] = {whole.data()};
    for (int with_ones = 0; with_ones < 2; with_ones++) {
        emu_opts go = {with_ones != 0, idx.data()};
        memset(out, POISON, sizeof out);
        ok = emu_msm<G>(out, bases, N, shift, off, n, wv, 1, mont, c, sched, v,
                        av2, go);
        memcpy(&got, out, sizeof got);
        EXPECT(ok && rc == CUZK_OK && emu<G>::eq(&got, &want),
               "%s %s %s c=%u off=%zu n=%zu mont=%d %s, %s, gathered%s, %zu "
               "chunk(s) (%s): %s",
               emu<G>::name(), what, sc_name[kind], c, off, n, (int)mont,
               v.name, av2.name, with_ones ? " with ones" : "", sched.size(),
               sched_name[sk],
               !ok ? "guard or key range" : rc ? "CPU MSM error" : "!= CPU MSM");
    }
}

/* |nvec| vectors (kinds cycling through every scalar set) over one chunk
 * schedule, as cuzk_gpu_msm_batch runs them: each against the CPU MSM. */
template <class G>
static void check_batch(const typename G::affine *bases, size_t N,
                        const typename G::affine *shift, size_t n,
                        size_t nvec, unsigned c, int sk) {
    typedef typename emu<G>::J J;
    std::vector<std::vector<uint32_t> > s(nvec);
    std::vector<const uint32_t *> sv(nvec);
    bool mont = (nvec & 1) != 0;
    /* one Montgomery flag for the batch: 2^256-1 only in plain batches */
    std::vector<int> kinds(nvec);
    for (size_t vi = 0; vi < nvec; vi++) {
        kinds[vi] = (int)((vi + nvec) % (SC_MIX + 1));
        if (mont && kinds[vi] == SC_MAX)
            kinds[vi] = SC_RANDOM;
        make_scalars<G>(s[vi], n, kinds[vi], mont);
        sv[vi] = s[vi].data();
    }
    std::vector<size_t> sched = emu_schedule(n, sk);
    const emu_variant &v = variants[run_count++ % NVARIANTS];
    std::vector<typename G::F> out(3 * nvec);
    memset((void *)out.data(), POISON, out.size() * sizeof(typename G::F));
    emu_opts eo = {(nvec & 2) != 0, NULL};
    bool ok = emu_msm<G>(out.data(), bases, N, shift, 0, n, sv.data(), nvec,
                         mont, c, sched, v, aff_none, eo);
    for (size_t vi = 0; vi < nvec; vi++) {
        int kind = kinds[vi];
        J got, want;
        memcpy(&got, &out[3 * vi], sizeof got);
        cuzk_status rc = emu<G>::msm(&want, (const typename emu<G>::A *)bases,
                                     sv[vi], n, mont);
        EXPECT(ok && rc == CUZK_OK && emu<G>::eq(&got, &want),
               "%s batch of %zu, vector %zu (%s) c=%u n=%zu %s%s, %zu chunks "
               "(%s): %s",
               emu<G>::name(), nvec, vi, sc_name[kind], c, n, v.name,
               eo.ones ? ", ones" : "",
               sched.size(), sched_name[sk],
               !ok ? "guard or key range" : rc ? "CPU MSM error" : "!= CPU MSM");
    }
}

template <class G> static void test_group(size_t nmax) {
    typedef emu<G> E;
    typedef typename E::J J;
    typedef typename E::A A;
    typedef typename G::affine GA;
    static_assert(sizeof(GA) == sizeof(A), "affine layout");
    static_assert(3 * sizeof(typename G::F) == sizeof(J), "Jacobian layout");
    double t0 = now_s();
    int p0 = passed, f0 = failed;
    size_t N = nmax < 400 ? 400 : nmax;
    /* bases: an arithmetic progression a G + i d G, then special points */
    std::vector<A> pts(N);
    {
        std::vector<J> jac(N);
        typename E::S a, d;
        rand_below((uint64_t *)&a, E::r());
        rand_below((uint64_t *)&d, E::r());
        J g, D;
        E::generator(&g);
        E::mul(&D, &g, &d);
        E::mul(&jac[0], &g, &a);
        for (size_t i = 1; i < N; i++)
            E::add(&jac[i], &jac[i - 1], &D);
        E::batch_to_affine(pts.data(), jac.data(), N);
    }
    pts[20] = pts[3];                 /* a repeat within n = 33 */
    E::affine_set_inf(&pts[25]);      /* infinity within n = 33 */
    E::affine_neg(&pts[30], &pts[29]); /* opposites within n = 33 */
    for (size_t i = 40; i < 100; i += 3)
        pts[i] = pts[7];
    for (size_t i = 120; i < 160; i += 2)
        E::affine_set_inf(&pts[i]);
    for (size_t i = 170; i < 180; i++)
        E::affine_neg(&pts[i + 10], &pts[i]);
    const GA *gb = (const GA *)pts.data();

    /* negative control: a different scalar set must not match */
    {
        std::vector<uint32_t> s, s2;
        make_scalars<G>(s, 33, SC_RANDOM, true);
        s2 = s;
        s2[8 * 5] ^= 1;
        typename G::F out[3];
        J got, want;
        const uint32_t *sv[1] = {s.data()};
        emu_msm<G>(out, gb, N, (const GA *)NULL, 0, 33, sv, 1, true, 8,
                   emu_schedule(33, 1), variants[0]);
        memcpy(&got, out, sizeof got);
        E::msm(&want, pts.data(), s2.data(), 33, 1);
        EXPECT(!E::eq(&got, &want), "%s negative control matched",
               E::name());
    }

    static const unsigned plain_c[] = {3, 8, 13};
    size_t sizes[] = {1, 2, 3, 33, 257, nmax};
    for (unsigned ci = 0; ci < 3; ci++) {
        unsigned c = plain_c[ci];
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            check<G>(gb, N, NULL, 0, sizes[si], SC_RANDOM,
                     ((si + ci) & 1) != 0, c, "plain");
        for (int kind = SC_ZERO; kind <= SC_MIX; kind++) {
            bool mont = kind != SC_MAX && (kind & 1);
            check<G>(gb, N, NULL, 0, 257, kind, mont, c, "plain");
            if (kind == SC_ONE || kind == SC_EQUAL)
                check<G>(gb, N, NULL, 0, 257, kind, !mont, c, "plain");
        }
        check<G>(gb, N, NULL, 11, 200, SC_RANDOM, true, c, "plain offset");
    }

    static const unsigned shift_c[] = {8, 10};
    for (unsigned ci = 0; ci < 2; ci++) {
        unsigned c = shift_c[ci], w = msm_nwin(G::R_BITS, c);
        std::vector<GA> cp;
        emu_shift_build<G>(gb, N, c, cp);
        /* copies of a few points against CPU doublings */
        static const size_t probe[] = {0, 1, 25, 33, 120};
        bool cok = true;
        for (size_t pi = 0; pi < sizeof probe / sizeof *probe; pi++) {
            size_t i = probe[pi] < N ? probe[pi] : N - 1;
            J q;
            E::from_affine(&q, &pts[i]);
            for (unsigned j = 1; j < w; j++) {
                for (unsigned k = 0; k < c; k++)
                    E::dbl(&q, &q);
                A want;
                E::to_affine(&want, &q);
                cok = cok && E::affine_eq(
                                 &want, (const A *)&cp[(j - 1) * N + i]);
            }
        }
        EXPECT(cok, "%s shifted copies c=%u != CPU doublings", E::name(), c);
        const GA *sh = cp.data();
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            check<G>(gb, N, sh, 0, sizes[si], SC_RANDOM, (si & 1) != 0, c,
                     "shifted");
        for (int kind = SC_ZERO; kind <= SC_MIX; kind++) {
            bool mont = kind != SC_MAX && (kind & 1);
            check<G>(gb, N, sh, 3, 257, kind, mont, c, "shifted offset 3");
            if (kind == SC_ONE || kind == SC_EQUAL)
                check<G>(gb, N, sh, 3, 257, kind, !mont, c,
                         "shifted offset 3");
        }
        check<G>(gb, N, sh, N - 33, 33, SC_RANDOM, true, c, "shifted last");
        check<G>(gb, N, sh, 100, N - 100, SC_RANDOM, false, c,
                 "shifted offset 100");
    }
    /* collisions for the batch-affine levels: a base set repeating
     * P, -P, P, P, infinity, Q (with equal scalars one bucket per window
     * holds them in this order: P - P, P + P, infinity + Q at the first
     * level, then sums with infinity and more doublings), and a set of one
     * point only (every pair of every level a doubling) */
    {
        std::vector<A> col(N), same(N);
        A P0 = pts[5], Pn, Q0 = pts[9], inf;
        E::affine_neg(&Pn, &P0);
        E::affine_set_inf(&inf);
        for (size_t i = 0; i < N; i++) {
            static const int pat[6] = {0, 1, 0, 0, 2, 3};
            int k = pat[i % 6];
            col[i] = k == 0 ? P0 : k == 1 ? Pn : k == 2 ? inf : Q0;
            same[i] = P0;
        }
        const GA *cb = (const GA *)col.data(), *sb = (const GA *)same.data();
        /* pairs of opposites: with all scalars 1 the sum is infinity, the
         * ones' bucket cancelling run by run */
        std::vector<A> opp(N);
        for (size_t i = 0; i + 1 < N; i += 2) {
            opp[i] = pts[(i / 2) % 300];
            E::affine_neg(&opp[i + 1], &opp[i]);
        }
        opp[N - 1] = pts[1];
        const GA *ob = (const GA *)opp.data();
        for (size_t si = 0; si < 3; si++) {
            size_t on = si == 0 ? 64 : si == 1 ? 258 : (nmax & ~(size_t)1);
            check<G>(ob, N, NULL, 0, on, SC_ONE, si & 1, 8, "opposites");
            check<G>(ob, N, NULL, 0, on, SC_BITS, !(si & 1), 3, "opposites");
        }
        static const int kinds[] = {SC_EQUAL, SC_ONE, SC_RANDOM, SC_MIX};
        static const unsigned cols_c[] = {3, 8};
        size_t csz[] = {2, 6, 64, 257, nmax};
        for (unsigned ci = 0; ci < 2; ci++)
            for (size_t si = 0; si < sizeof csz / sizeof *csz; si++)
                for (int ki = 0; ki < 4; ki++) {
                    check<G>(cb, N, NULL, 0, csz[si], kinds[ki], ki & 1,
                             cols_c[ci], "collisions");
                    if (ki < 2)
                        check<G>(sb, N, NULL, 0, csz[si], kinds[ki], ki & 1,
                                 cols_c[ci], "one point");
                }
    }
    /* batches of 1..16 vectors over chunk schedules, plain and shifted */
    for (size_t nvec = 1; nvec <= 16; nvec++)
        check_batch<G>(gb, N, NULL, nvec % 4 == 0 ? 257 : 65, nvec,
                       nvec % 2 ? 8 : 3, (int)(nvec % NSCHED));
    {
        std::vector<GA> cp;
        emu_shift_build<G>(gb, N, 10, cp);
        check_batch<G>(gb, N, cp.data(), 200, 5, 10, 4);
        check_batch<G>(gb, N, cp.data(), 200, 16, 10, 2);
    }
    printf("%s: n up to %zu, %d passed, %d failed, %.1f s\n", E::name(), nmax,
           passed - p0, failed - f0, now_s() - t0);
    fflush(stdout);
}

int main(void) {
    size_t nmax = 2000;
    const char *e = getenv("CUZK_MSM_EMULATE_MAX");
    if (e && atol(e) >= 4)
        nmax = (size_t)atol(e);
    test_plans();
    test_group<gg_bn254_g1>(nmax);
    test_group<gg_bls12_381_g1>(nmax);
    test_group<gg_bn254_g2>(nmax / 2);
    test_group<gg_bls12_381_g2>(nmax / 2);
    printf("msm_emulate: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
