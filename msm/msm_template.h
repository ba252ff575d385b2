/*
 * Pippenger MSM for one group, written once and stamped out by msm.c.
 *
 * Before including, define:
 *   MSM_G          the group prefix (bls12_381_g1, ...): types G, G_affine,
 *                  G_xyzz and the curve.h functions
 *   MSM_F          its coordinate field (bls12_381_fp, bls12_381_fp2, ...),
 *                  type and function prefix, for the batch-affine additions
 *   MSM_S          the scalar field type (bls12_381_fr or bn254_fr)
 *   MSM_BITS       bit length of r (255 or 254)
 *   MSM_REDUCE     cost of summing one bucket relative to adding one point
 *                  into a bucket (the window-width model, msm.h)
 *
 * STEPS (each a parallel loop over the pool):
 * 1. classify: convert every scalar to a plain integer k < r; drop k = 0
 *    and infinity bases; sum the bases with k = 1 per chunk of CHUNK
 *    points (a tree of batch-affine additions, see ONES below); count the
 *    rest per chunk.
 * 2. compact: prefix sums of the counts give every chunk its output slot;
 *    write the index and the recoded scalar k' = k + H of every remaining
 *    point (see below).
 * 3. buckets: one task per (window, point range); each task fills its
 *    worker's 2^(c-1) buckets (affine with batched additions, plus XYZZ
 *    for conflicts, see below) and sums them to one point,
 *    sum_b (b+1) bucket[b], with a running sum from the top bucket down.
 * 4. combine (serial, ~bits doublings): Horner over windows, plus the ones.
 *
 * SIGNED DIGITS.  With nw windows of c bits (c nw >= bits + 1) and
 * H = sum_{i < nw-1} 2^(ci + c-1), digit i < nw-1 is window_i(k + H) -
 * 2^(c-1), in [-2^(c-1), 2^(c-1) - 1], and the top digit is
 * window_top(k + H) in [0, 2^(c-1)] (k < 2^(c nw - 1) leaves room for the
 * carry).  So sum_i digit_i 2^(ci) = k, no carries need to be tracked
 * between windows, every |digit| <= 2^(c-1) and 2^(c-1) buckets suffice;
 * a negative digit adds the negated base.  k + H < 2^256 always fits the
 * 4 limbs (c (nw-1) <= bits).
 *
 * ONES.  Circuits made of bits have witnesses of mostly 0 and 1 (a PoRep
 * partition: about 90% of the wires), so the bases with scalar 1 can be
 * as many as those through Pippenger.  They are gathered in a worker's
 * buffer and summed pairwise, level by level: the additions of one level
 * are independent, so they share one inversion (Montgomery's trick) and
 * cost about 5M + 1S each instead of the 8M + 2S of an XYZZ mixed
 * addition into a running sum.  A level of fewer than MSM_ONES_TREE_MIN
 * points ends a tree: its points stay for the next one, and those left at
 * the end of a chunk go into the chunk's XYZZ sum.
 *
 * Must not: keep state between calls, or touch memory outside the inputs
 * and its own scratch.
 */
#include <stdlib.h>
#include <string.h>

#include "util/paste.h"
#define GN(x) CUZK_PASTE(MSM_G, x)        /* group function or type */
#define MSM_CF(x) CUZK_PASTE(MSM_F, x##_inl) /* coordinate field, inlined */
#define SF(x) CUZK_PASTE(MSM_S, x)        /* scalar field function */
#define MN(x) CUZK_PASTE(MSM_G, msm_##x)  /* file-local helpers */
#define G_AFF GN(affine)
#define G_XYZZ GN(xyzz)

/* The XYZZ formulas of curve/, with the inline field operations: the
 * bucket loops spend most of their time in them (see field_inline.h). */
#define XZ_G MSM_G
#define XZ_FT MSM_F
#define XZ_F(x) MSM_CF(x)
#define XZ_N(x) CUZK_PASTE(MSM_G, msm_x_##x)
#include "curve/xyzz_impl.h"
#define MX(x) CUZK_PASTE(MSM_G, msm_x_##x) /* inline XYZZ formula */

/* Points per classification chunk: big enough to amortise a task, small
 * enough that the per-chunk arrays stay tiny. */
#define MSM_CHUNK ((size_t)4096)

typedef struct {
    const G_AFF *bases;
    const MSM_S *scalars;
    size_t n;
    int mont;
    unsigned c, nw, nranges;
    uint64_t h[4];   /* H of the signed recoding, for this c */
    size_t nchunks;
    size_t *offset;  /* per chunk: count of remaining points, then offset */
    G_XYZZ *ones;    /* per chunk: sum of the bases with scalar 1 */
    char *ones_buf;  /* [threads] ones_bytes(n) each: the trees of step 1 */
    size_t ones_cap; /* points a worker's buffer holds: min(n, MSM_ONES_BUF) */
    size_t m;        /* remaining points (scalar not 0 or 1) */
    uint32_t *idx;   /* [m] base index */
    uint64_t (*kh)[4]; /* [m] k + H */
    struct MN(scratch_s) *scratch; /* [threads] per-worker buckets */
    G_XYZZ *wsum;    /* [nw][nranges] window sums per point range */
} MN(ctx);

unsigned GN(msm_window_bits)(size_t m) {
    unsigned max_c = 2;
    while (max_c < CUZK_MSM_MAX_WINDOW &&
           ((size_t)1 << max_c) * sizeof(G_AFF) <= MSM_BUCKET_BYTES)
        max_c++; /* 2^(max_c - 1) affine buckets fit */
    return cuzk_msm_window_bits(m, MSM_BITS, MSM_REDUCE, max_c);
}

/* ---- 1, 2: classify and compact ------------------------------------- */

/* k = scalar as a plain integer reduced mod r; returns 0, 1, or 2 for
 * "anything else". */
static int MN(scalar)(uint64_t k[4], const MN(ctx) *c, size_t i) {
    if (c->mont)
        SF(from_mont_inl)(k, &c->scalars[i]);
    else
        memcpy(k, c->scalars[i].l, 4 * sizeof(uint64_t));
    while (!msm_limbs_lt(k, SF(modulus)))
        msm_limbs_sub(k, SF(modulus));
    if ((k[1] | k[2] | k[3]) == 0 && k[0] <= 1)
        return (int)k[0];
    return 2;
}

/* ---- affine additions sharing one inversion (ones and buckets) -------- */

/* The denominator of A + P (P negated if |neg|): x_P - x_A, or 2 y_A for a
 * doubling (returns MSM_DBL), or 1, a placeholder, when the sum is
 * infinity (MSM_INF). */
static inline uint8_t MN(aff_den)(MSM_F *den, const G_AFF *A, const G_AFF *P, int neg) {
    MSM_CF(sub)(den, &P->x, &A->x);
    if (!MSM_CF(is_zero)(den))
        return 0;
    MSM_F y;
    if (neg)
        MSM_CF(neg)(&y, &P->y);
    else
        y = P->y;
    if (MSM_CF(eq)(&y, &A->y) && !MSM_CF(is_zero)(&A->y)) {
        MSM_CF(dbl)(den, &A->y);
        return MSM_DBL;
    }
    MSM_CF(set_one)(den);
    return MSM_INF;
}

/* A <- A + P (P negated if |neg|) given inv = 1/den of aff_den (not
 * MSM_INF): lambda = (y_P - y_A) inv, or 3 x_A^2 inv for a doubling;
 * x3 = lambda^2 - x_A - x_P; y3 = lambda (x_A - x3) - y_A. */
static inline void MN(aff_add)(G_AFF *A, const G_AFF *P, int neg, const MSM_F *inv, int dbl) {
    MSM_F lam, x3, t;
    if (dbl) {
        MSM_CF(sqr)(&t, &A->x);
        MSM_CF(dbl)(&lam, &t);
        MSM_CF(add)(&t, &lam, &t);
    } else if (neg) {
        MSM_CF(add)(&t, &P->y, &A->y);
        MSM_CF(neg)(&t, &t);
    } else {
        MSM_CF(sub)(&t, &P->y, &A->y);
    }
    MSM_CF(mul)(&lam, &t, inv);
    MSM_CF(sqr)(&x3, &lam);
    MSM_CF(sub)(&x3, &x3, &A->x);
    MSM_CF(sub)(&x3, &x3, &P->x); /* x_P = x_A for a doubling */
    MSM_CF(sub)(&t, &A->x, &x3);
    MSM_CF(mul)(&t, &lam, &t);
    MSM_CF(sub)(&A->y, &t, &A->y);
    A->x = x3;
}

/* den[i] <- 1/den[i] for i < n (n > 0) with one inversion; pre[] is
 * scratch. */
static void MN(batch_invert)(MSM_F *den, MSM_F *pre, size_t n) {
    pre[0] = den[0];
    for (size_t i = 1; i < n; i++)
        MSM_CF(mul)(&pre[i], &pre[i - 1], &den[i]);
    MSM_F inv, inv_i;
    CUZK_PASTE(MSM_F, inv_var)(&inv, &pre[n - 1]);
    for (size_t i = n; i-- > 1;) {
        MSM_CF(mul)(&inv_i, &inv, &pre[i - 1]);
        MSM_CF(mul)(&inv, &inv, &den[i]);
        den[i] = inv_i;
    }
    den[0] = inv;
}

/* ---- 1, 2 (continued): the ones ----------------------------------------- */

#define MSM_ONES_BUF ((size_t)1024) /* points gathered before a tree */
#define MSM_ONES_TREE_MIN 16

typedef struct {
    G_AFF *pt;     /* [cap] */
    MSM_F *den;    /* [cap / 2] */
    MSM_F *pre;    /* [cap / 2] */
    uint8_t *flag; /* [cap / 2] */
} MN(ones_w);

/* Points of a worker's buffer for an MSM of n points: a small MSM gets a
 * small buffer. */
static size_t MN(ones_cap)(size_t n) { return n < MSM_ONES_BUF ? n : MSM_ONES_BUF; }

static size_t MN(ones_bytes)(size_t n) {
    size_t cap = MN(ones_cap)(n);
    return msm_round64(cap * sizeof(G_AFF)) + 2 * msm_round64(cap / 2 * sizeof(MSM_F)) +
           msm_round64(cap / 2);
}

static MN(ones_w) MN(ones_at)(char *mem, size_t cap) {
    MN(ones_w) w;
    w.pt = (G_AFF *)mem;
    mem += msm_round64(cap * sizeof(G_AFF));
    w.den = (MSM_F *)mem;
    mem += msm_round64(cap / 2 * sizeof(MSM_F));
    w.pre = (MSM_F *)mem;
    mem += msm_round64(cap / 2 * sizeof(MSM_F));
    w.flag = (uint8_t *)mem;
    return w;
}

/* Sums w->pt[0..n) pairwise, level by level, while n >= MSM_ONES_TREE_MIN
 * (a sum that is infinity leaves its level).  The points left (fewer than
 * MSM_ONES_TREE_MIN) stay at the front of the buffer for the next tree,
 * and their count is returned; with |last| they go into acc instead and 0
 * is returned. */
static size_t MN(ones_tree)(G_XYZZ *acc, const MN(ones_w) *w, size_t n, int last) {
    G_AFF *pt = w->pt;
    while (n >= MSM_ONES_TREE_MIN) {
        size_t h = n / 2, k = 0;
        for (size_t i = 0; i < h; i++)
            w->flag[i] = MN(aff_den)(&w->den[i], &pt[2 * i], &pt[2 * i + 1], 0);
        MN(batch_invert)(w->den, w->pre, h);
        for (size_t i = 0; i < h; i++) {
            if (w->flag[i] & MSM_INF)
                continue;
            /* slot k <= i: its pair is done (or is this one, read here) */
            G_AFF A = pt[2 * i];
            MN(aff_add)(&A, &pt[2 * i + 1], 0, &w->den[i], w->flag[i] & MSM_DBL);
            pt[k++] = A;
        }
        if (n % 2)
            pt[k++] = pt[n - 1];
        n = k;
    }
    if (!last)
        return n;
    for (size_t i = 0; i < n; i++)
        MX(add_affine)(acc, acc, &pt[i]);
    return 0;
}

static void MN(classify_fn)(void *p, size_t b, size_t e, unsigned worker) {
    MN(ctx) *c = p;
    MN(ones_w) w = MN(ones_at)(c->ones_buf + (size_t)worker * MN(ones_bytes)(c->n), c->ones_cap);
    for (size_t ch = b; ch < e; ch++) {
        size_t lo = ch * MSM_CHUNK, hi = lo + MSM_CHUNK, count = 0, nones = 0;
        G_XYZZ *one = &c->ones[ch];
        uint64_t k[4];
        MX(set_inf)(one);
        if (hi > c->n)
            hi = c->n;
        for (size_t i = lo; i < hi; i++) {
            if (GN(affine_is_inf)(&c->bases[i]))
                continue;
            int kind = MN(scalar)(k, c, i);
            if (kind == 1) {
                w.pt[nones++] = c->bases[i];
                /* a tree leaves fewer than MSM_ONES_TREE_MIN points: room
                 * for more unless the buffer is that small (then empty it) */
                if (nones == c->ones_cap)
                    nones = MN(ones_tree)(one, &w, nones, nones < 2 * MSM_ONES_TREE_MIN);
            }
            count += kind == 2;
        }
        MN(ones_tree)(one, &w, nones, 1);
        c->offset[ch] = count;
    }
}

static void MN(compact_fn)(void *p, size_t b, size_t e, unsigned worker) {
    MN(ctx) *c = p;
    (void)worker;
    for (size_t ch = b; ch < e; ch++) {
        size_t lo = ch * MSM_CHUNK, hi = lo + MSM_CHUNK, out = c->offset[ch];
        uint64_t k[4];
        if (hi > c->n)
            hi = c->n;
        for (size_t i = lo; i < hi; i++) {
            if (GN(affine_is_inf)(&c->bases[i]) || MN(scalar)(k, c, i) != 2)
                continue;
            c->idx[out] = (uint32_t)i;
            msm_limbs_add(c->kh[out], k, c->h);
            out++;
        }
    }
}

/* ---- 3: buckets ------------------------------------------------------- */

/*
 * Bucket accumulation, batch-affine with an XYZZ overflow.
 *
 * Each bucket b has an affine point ab[b] and an XYZZ point xb[b], either
 * of which may be empty (state bits OCC, XOCC).  A point for bucket b goes
 *   - into ab[b] as is, if that is empty;
 *   - into a batch of pending affine additions ab[b] + P, if b is not in
 *     the batch yet (LOCK marks it); a full batch is finished with one
 *     shared inversion (Montgomery's trick): about 5M + 1S an addition
 *     instead of the 8M + 2S of an XYZZ mixed addition;
 *   - into xb[b] with an XYZZ mixed addition, if b is already in the
 *     batch (a conflict; many equal scalars make many of these, and they
 *     then cost what plain XYZZ buckets cost, never more).
 * Ranges much shorter than the bucket count skip the batch (it would not
 * fill before the range ends) and use xb alone.
 * Batch additions handle P = A (doubling) and P = -A (empty bucket).
 */
typedef struct MN(scratch_s) {
    G_AFF *ab;           /* [nb] affine buckets */
    G_XYZZ *xb;          /* [nb] XYZZ buckets */
    uint8_t *st;         /* [nb] MSM_OCC | MSM_XOCC | MSM_LOCK */
    uint32_t *qb;        /* [MSM_BATCH] bucket of each pending addition */
    const G_AFF **qp;    /* [MSM_BATCH] its point (before negation) */
    uint8_t *qf;         /* [MSM_BATCH] MSM_NEG | MSM_DBL | MSM_INF */
    MSM_F *den, *pre;    /* [MSM_BATCH] denominators, prefix products */
    size_t nq;
} MN(scratch);

static size_t MN(bucket_bytes)(size_t nb) {
    return msm_round64(nb * sizeof(G_AFF)) + msm_round64(nb * sizeof(G_XYZZ)) +
           msm_round64(nb) +
           MSM_BATCH * (sizeof(uint32_t) + sizeof(G_AFF *) + 1 +
                        2 * sizeof(MSM_F)) +
           5 * 64;
}

static void MN(scratch_init)(MN(scratch) *s, char *mem, size_t nb) {
    s->ab = (G_AFF *)mem;
    mem += msm_round64(nb * sizeof(G_AFF));
    s->xb = (G_XYZZ *)mem;
    mem += msm_round64(nb * sizeof(G_XYZZ));
    s->st = (uint8_t *)mem;
    mem += msm_round64(nb);
    s->den = (MSM_F *)mem;
    mem += msm_round64(MSM_BATCH * sizeof(MSM_F));
    s->pre = (MSM_F *)mem;
    mem += msm_round64(MSM_BATCH * sizeof(MSM_F));
    s->qp = (const G_AFF **)mem;
    mem += msm_round64(MSM_BATCH * sizeof(G_AFF *));
    s->qb = (uint32_t *)mem;
    mem += msm_round64(MSM_BATCH * sizeof(uint32_t));
    s->qf = (uint8_t *)mem;
    s->nq = 0;
}

/* Starts loading the cache lines of one affine point. */
static inline void MN(prefetch)(const G_AFF *p) {
    for (size_t off = 0; off < sizeof *p; off += 64)
        __builtin_prefetch((const char *)p + off, 1);
}

/* xb[b] += P (P already negated as needed). */
static inline void MN(put_xyzz)(MN(scratch) *s, size_t b, const G_AFF *p) {
    if (s->st[b] & MSM_XOCC) {
        MX(add_affine)(&s->xb[b], &s->xb[b], p);
    } else {
        MX(from_affine)(&s->xb[b], p);
        s->st[b] |= MSM_XOCC;
    }
}

/* Finishes every pending addition with one inversion. */
static void MN(batch_flush)(MN(scratch) *s) {
    size_t nq = s->nq;
    if (nq == 0)
        return;
    for (size_t i = 0; i < nq; i++)
        s->qf[i] |= MN(aff_den)(&s->den[i], &s->ab[s->qb[i]], s->qp[i], s->qf[i] & MSM_NEG);
    MN(batch_invert)(s->den, s->pre, nq);
    for (size_t i = 0; i < nq; i++) {
        size_t b = s->qb[i];
        uint8_t f = s->qf[i];
        s->st[b] &= (uint8_t)~MSM_LOCK;
        if (f & MSM_INF) {
            s->st[b] &= (uint8_t)~MSM_OCC;
            continue;
        }
        MN(aff_add)(&s->ab[b], s->qp[i], f & MSM_NEG, &s->den[i], f & MSM_DBL);
    }
    s->nq = 0;
}

static void MN(put_batch)(MN(scratch) *s, size_t b, const G_AFF *base,
                          int neg) {
    uint8_t st = s->st[b];
    if (!(st & MSM_OCC)) {
        s->ab[b].x = base->x;
        if (neg)
            MSM_CF(neg)(&s->ab[b].y, &base->y);
        else
            s->ab[b].y = base->y;
        s->st[b] = st | MSM_OCC;
    } else if (st & MSM_LOCK) {
        G_AFF p = *base;
        if (neg)
            MSM_CF(neg)(&p.y, &p.y);
        MN(put_xyzz)(s, b, &p);
    } else {
        /* the flush reads this bucket after the rest of the batch is
         * queued: fetch it now (with many buckets it is not in L1/L2) */
        MN(prefetch)(&s->ab[b]);
        s->qb[s->nq] = (uint32_t)b;
        s->qp[s->nq] = base;
        s->qf[s->nq] = neg ? MSM_NEG : 0;
        s->nq++;
        s->st[b] = st | MSM_LOCK;
        if (s->nq == MSM_BATCH)
            MN(batch_flush)(s);
    }
}

/* sum_b (b+1) bucket[b] by a running sum from the top: 2-3 additions a
 * bucket (the affine one is a mixed addition). */
static void MN(bucket_sum)(G_XYZZ *r, const MN(scratch) *s, size_t nb) {
    G_XYZZ run, acc;
    MX(set_inf)(&run);
    MX(set_inf)(&acc);
    for (size_t b = nb; b-- > 0;) {
        if (s->st[b] & MSM_OCC)
            MX(add_affine)(&run, &run, &s->ab[b]);
        if (s->st[b] & MSM_XOCC)
            MX(add)(&run, &run, &s->xb[b]);
        if (!MX(is_inf)(&run))
            MX(add)(&acc, &acc, &run);
    }
    *r = acc;
}

static void MN(task)(MN(ctx) *c, size_t t, MN(scratch) *s) {
    unsigned w = (unsigned)(t / c->nranges), rg = (unsigned)(t % c->nranges);
    size_t lo = c->m * rg / c->nranges, hi = c->m * (rg + 1) / c->nranges;
    size_t nb = (size_t)1 << (c->c - 1);
    unsigned pos = w * c->c;
    int top = w == c->nw - 1;
    int bias = top ? 0 : 1 << (c->c - 1);
    int batch = hi - lo >= nb * MSM_BATCH_MIN_FILL;
    memset(s->st, 0, nb);
    for (size_t j = lo; j < hi; j++) {
        if (j + MSM_PREFETCH < hi)
            MN(prefetch)(&c->bases[c->idx[j + MSM_PREFETCH]]);
        int d = (int)msm_window(c->kh[j], pos, c->c) - bias;
        if (d == 0)
            continue;
        const G_AFF *base = &c->bases[c->idx[j]];
        size_t b = (size_t)(d > 0 ? d : -d) - 1;
        if (batch) {
            MN(put_batch)(s, b, base, d < 0);
        } else if (d > 0) {
            MN(put_xyzz)(s, b, base);
        } else {
            G_AFF neg;
            GN(affine_neg)(&neg, base);
            MN(put_xyzz)(s, b, &neg);
        }
    }
    MN(batch_flush)(s);
    MN(bucket_sum)(&c->wsum[t], s, nb);
}

static void MN(task_fn)(void *p, size_t b, size_t e, unsigned worker) {
    MN(ctx) *c = p;
    MN(scratch) *s = &c->scratch[worker];
    for (size_t t = b; t < e; t++)
        MN(task)(c, t, s);
}

/* ---- 4: combine ------------------------------------------------------- */

static void MN(combine)(G_XYZZ *acc, const MN(ctx) *c) {
    MX(set_inf)(acc);
    for (unsigned w = c->nw; w-- > 0;) {
        for (unsigned i = 0; i < c->c && !MX(is_inf)(acc); i++)
            MX(dbl)(acc, acc);
        for (unsigned rg = 0; rg < c->nranges; rg++)
            MX(add)(acc, acc, &c->wsum[(size_t)w * c->nranges + rg]);
    }
}

/* ---- driver ------------------------------------------------------------ */

/* Window geometry for c; ranges split points when windows are too few to
 * keep every thread busy, but never below 2^c points a range (each range
 * pays its own bucket sum). */
static void MN(plan)(MN(ctx) *c, unsigned win, unsigned threads) {
    c->c = win;
    c->nw = (MSM_BITS + 1 + win - 1) / win;
    memset(c->h, 0, sizeof c->h);
    for (unsigned i = 0; i + 1 < c->nw; i++) {
        unsigned bit = i * win + win - 1;
        c->h[bit / 64] |= 1ULL << (bit % 64);
    }
    size_t ranges = 1;
    if (threads > 1 && c->nw < 4 * threads) {
        ranges = (4 * threads + c->nw - 1) / c->nw;
        size_t cap = c->m >> win;
        if (ranges > cap)
            ranges = cap ? cap : 1;
    }
    c->nranges = (unsigned)ranges;
}

/* Upper bound of the window sums of one MSM: ranges are only made while
 * nw < 4 threads, so nw * ranges < 4 threads + nw, and nw <= 128 (c >= 2). */
static size_t MN(max_tasks)(unsigned threads) {
    return 4 * (size_t)threads + (MSM_BITS + 2) / 2 + 1;
}

/* Bytes of step 3's scratch for m points, 2^(win-1) buckets, |ntasks|
 * window sums and |threads| workers. */
static size_t MN(pip_bytes)(size_t m, unsigned win, size_t ntasks, unsigned threads) {
    size_t nb = (size_t)1 << (win - 1);
    return msm_round64(m * sizeof(uint32_t)) + msm_round64(m * sizeof(uint64_t[4])) +
           msm_round64(ntasks * sizeof(G_XYZZ)) + msm_round64(threads * sizeof(MN(scratch))) +
           threads * msm_round64(MN(bucket_bytes)(nb));
}

/* Bytes of steps 1 and 2: per classification chunk, and the workers'
 * buffers for the ones. */
static size_t MN(head_bytes)(size_t n, unsigned threads) {
    size_t nchunks = (n + MSM_CHUNK - 1) / MSM_CHUNK;
    return msm_round64(nchunks * (sizeof(size_t) + sizeof(G_XYZZ))) +
           (size_t)threads * MN(ones_bytes)(n);
}

/* The automatic window for up to n points; with a caller's scratch sized
 * for n, the window of m <= n points is capped at it (the model's choice
 * grows with m, so the cap only guards ties). */
static unsigned MN(auto_cap)(size_t n) { return GN(msm_window_bits)(n); }

size_t GN(msm_scratch_bytes)(size_t n, unsigned win, unsigned threads) {
    if (n == 0)
        return 0;
    if (threads == 0)
        threads = 1;
    if (win == 0)
        win = MN(auto_cap)(n);
    if (win < 2 || win > CUZK_MSM_MAX_WINDOW)
        return 0;
    return 64 + MN(head_bytes)(n, threads) + MN(pip_bytes)(n, win, MN(max_tasks)(threads), threads);
}

/* Step 3 and 4 over c->m points.  |mem| is the caller's scratch (at least
 * pip_bytes for n points; |cap| its window) or NULL: then it is allocated
 * here for exactly m points and freed before returning. */
static cuzk_status MN(pippenger)(MN(ctx) *c, G_XYZZ *acc, unsigned win,
                                 char *mem, unsigned cap, cuzk_pool *pool) {
    unsigned threads = cuzk_pool_threads(pool);
    if (win == 0) {
        win = GN(msm_window_bits)(c->m);
        if (mem && win > cap)
            win = cap;
    }
    MN(plan)(c, win, threads);
    size_t ntasks = (size_t)c->nw * c->nranges;
    size_t nb = (size_t)1 << (win - 1);
    size_t bytes_idx = msm_round64(c->m * sizeof(uint32_t));
    size_t bytes_kh = msm_round64(c->m * sizeof *c->kh);
    size_t bytes_ws = msm_round64(ntasks * sizeof(G_XYZZ));
    size_t bytes_sc = msm_round64(threads * sizeof(MN(scratch)));
    size_t bytes_one = msm_round64(MN(bucket_bytes)(nb));
    char *own = NULL;
    if (mem == NULL) {
        own = mem = aligned_alloc(64, bytes_idx + bytes_kh + bytes_ws + bytes_sc +
                                          threads * bytes_one);
        if (mem == NULL)
            return CUZK_ENOMEM;
    }
    char *at = mem;
    c->idx = (uint32_t *)at;
    at += bytes_idx;
    c->kh = (uint64_t(*)[4])at;
    at += bytes_kh;
    c->wsum = (G_XYZZ *)at;
    at += bytes_ws;
    c->scratch = (MN(scratch) *)at;
    at += bytes_sc;
    for (unsigned i = 0; i < threads; i++, at += bytes_one)
        MN(scratch_init)(&c->scratch[i], at, nb);
    /* counts -> offsets */
    size_t total = 0;
    for (size_t ch = 0; ch < c->nchunks; ch++) {
        size_t cnt = c->offset[ch];
        c->offset[ch] = total;
        total += cnt;
    }
    cuzk_pool_for(pool, c->nchunks, 1, MN(compact_fn), c);
    cuzk_pool_for(pool, ntasks, 1, MN(task_fn), c);
    MN(combine)(acc, c);
    free(own);
    return CUZK_OK;
}

/* The MSM with the caller's scratch |mem| (64-byte aligned, sized by
 * msm_scratch_bytes for n, |win| and the pool's threads) or none (NULL:
 * allocate per call). */
static cuzk_status MN(run)(MSM_G *r, const G_AFF *bases, const MSM_S *scalars, size_t n,
                           int scalars_are_mont, unsigned win, char *mem,
                           cuzk_pool *pool) {
    GN(set_inf)(r);
    if (n == 0)
        return CUZK_OK;
    if ((uint64_t)n > UINT32_MAX)
        return CUZK_ERANGE;
    if (win == 1 || win > CUZK_MSM_MAX_WINDOW)
        return CUZK_EINVAL;
    MN(ctx) c = {.bases = bases, .scalars = scalars, .n = n,
                 .mont = scalars_are_mont != 0};
    c.nchunks = (n + MSM_CHUNK - 1) / MSM_CHUNK;
    unsigned threads = cuzk_pool_threads(pool);
    size_t head_bytes = MN(head_bytes)(n, threads);
    char *own = NULL, *head = mem;
    if (head == NULL) {
        own = head = aligned_alloc(64, head_bytes);
        if (head == NULL)
            return CUZK_ENOMEM;
    }
    c.ones = (G_XYZZ *)head;
    c.offset = (size_t *)(head + c.nchunks * sizeof(G_XYZZ));
    c.ones_buf = head + msm_round64(c.nchunks * (sizeof(size_t) + sizeof(G_XYZZ)));
    c.ones_cap = MN(ones_cap)(n);

    cuzk_pool_for(pool, c.nchunks, 1, MN(classify_fn), &c);
    G_XYZZ acc;
    MX(set_inf)(&acc);
    for (size_t ch = 0; ch < c.nchunks; ch++) {
        c.m += c.offset[ch];
        MX(add)(&acc, &acc, &c.ones[ch]);
    }
    if (c.m > 0) {
        G_XYZZ pip;
        cuzk_status st = MN(pippenger)(&c, &pip, win, mem ? mem + head_bytes : NULL,
                                       mem ? MN(auto_cap)(n) : 0, pool);
        if (st != CUZK_OK) {
            free(own);
            return st;
        }
        MX(add)(&acc, &acc, &pip);
    }
    free(own);
    GN(xyzz_to_jacobian)(r, &acc);
    return CUZK_OK;
}

cuzk_status GN(msm_window)(MSM_G *r, const G_AFF *bases,
                           const MSM_S *scalars, size_t n,
                           int scalars_are_mont, unsigned win,
                           cuzk_pool *pool) {
    return MN(run)(r, bases, scalars, n, scalars_are_mont, win, NULL, pool);
}

cuzk_status GN(msm_with_scratch)(MSM_G *r, const G_AFF *bases, const MSM_S *scalars,
                                 size_t n, int scalars_are_mont, unsigned win,
                                 void *scratch, size_t scratch_bytes, cuzk_pool *pool) {
    GN(set_inf)(r);
    if (n == 0)
        return CUZK_OK;
    if (scratch == NULL || scratch_bytes < GN(msm_scratch_bytes)(n, win, cuzk_pool_threads(pool)))
        return CUZK_EINVAL;
    char *mem = (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    return MN(run)(r, bases, scalars, n, scalars_are_mont, win, mem, pool);
}

cuzk_status GN(msm)(MSM_G *r, const G_AFF *bases, const MSM_S *scalars,
                    size_t n, int scalars_are_mont, cuzk_pool *pool) {
    return MN(run)(r, bases, scalars, n, scalars_are_mont, 0, NULL, pool);
}

#undef MSM_CHUNK
#undef MSM_ONES_BUF
#undef MSM_ONES_TREE_MIN
#undef MSM_CF
#undef MX
#undef G_XYZZ
#undef G_AFF
#undef MN
#undef SF
#undef GN
