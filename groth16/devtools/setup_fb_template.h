/*
 * Fixed-base scalar multiplication for one group, stamped out by setup.c
 * once per group with
 *   FB_G   the group prefix (bls12_381_g1, bls12_381_g2, bn254_g1, bn254_g2)
 *   FB_S   its scalar field prefix (bls12_381_fr, bn254_fr)
 *   FB_F   its coordinate field prefix (bls12_381_fp, bls12_381_fp2, ...)
 * for the development setup (setup.h), which multiplies the generator by
 * millions of different scalars.
 *
 * Method: signed windows of w bits.  For window k the table holds
 * j 2^(wk) G for j = 1 .. 2^(w-1) (affine); a scalar is recoded into digits
 * d_k in [-2^(w-1), 2^(w-1)] and [k]G = sum_k d_k 2^(wk) G costs one
 * addition per window and no doubling.  w is chosen per batch (at most 16:
 * 2^19 table points, 96 MiB for BLS12-381 G2).  Blocks of scalars advance
 * window by window together, so their additions are done in affine
 * coordinates sharing one inversion (see fb_window), and the table entries
 * of a window are prefetched before they are used.
 *
 * Must not: print, or be used with secret scalars where timing matters (the
 * table index depends on the scalar).  Functions are static: setup.c only.
 */
#include "util/paste.h"
#define FBG(x) CUZK_PASTE(FB_G, x)
#define FBS(x) CUZK_PASTE(FB_S, x)
#define FB_AFF FBG(affine)

typedef struct FBG(fb) {
    unsigned w;        /* window bits */
    unsigned windows;  /* number of windows */
    size_t per_window; /* 2^(w-1) points per window */
    FB_AFF *table;     /* windows * per_window points */
} FBG(fb);

/* Bits of the scalar field order (255 for BLS12-381, 254 for BN254). */
static unsigned FBG(fb_scalar_bits)(void) {
    return 192 + 64 - (unsigned)__builtin_clzll(FBS(modulus)[3]);
}

/* Windows needed for w-bit signed digits: the top window's raw value must
 * stay below 2^(w-1) so the final carry is absorbed (see fb_digits). */
static unsigned FBG(fb_windows)(unsigned w) {
    return (FBG(fb_scalar_bits)() + 1 + w - 1) / w;
}

/* The window size minimising table build (~2 additions per entry) plus
 * |n_muls| multiplications (one addition per window). */
static unsigned FBG(fb_pick_w)(size_t n_muls) {
    unsigned best = 2;
    double best_cost = 1e300;
    for (unsigned w = 2; w <= 16; w++) {
        double m = FBG(fb_windows)(w);
        double cost = 2.0 * m * (double)((size_t)1 << (w - 1)) + m * (double)n_muls;
        if (cost < best_cost)
            best_cost = cost, best = w;
    }
    return best;
}

struct FBG(fb_build_ctx) {
    FBG(fb) *fb;
    const FB_AFF *bases; /* 2^(wk) G per window */
    int failed;
};

/* Windows [begin, end): table[k][j-1] = j * base_k by repeated addition. */
static void FBG(fb_build_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct FBG(fb_build_ctx) *c = ctx;
    size_t per = c->fb->per_window;
    FB_G *jac = malloc(per * sizeof *jac);
    (void)worker;
    if (!jac) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t k = begin; k < end; k++) {
        FBG(from_affine)(&jac[0], &c->bases[k]);
        for (size_t j = 1; j < per; j++)
            FBG(add_affine)(&jac[j], &jac[j - 1], &c->bases[k]);
        FBG(batch_to_affine)(c->fb->table + k * per, jac, per);
    }
    free(jac);
}

/* Build the table of the generator for about |n_muls| multiplications
 * (window |w| bits, or the cheapest for n_muls when w = 0). */
static cuzk_status FBG(fb_build)(FBG(fb) *fb, size_t n_muls, unsigned w, cuzk_pool *pool,
                                 cuzk_error *err) {
    if (w == 1 || w > 16)
        return cuzk_fail(err, CUZK_EINVAL, "setup: window of %u bits is not in 2..16", w);
    fb->w = w ? w : FBG(fb_pick_w)(n_muls);
    fb->windows = FBG(fb_windows)(fb->w);
    fb->per_window = (size_t)1 << (fb->w - 1);
    fb->table = malloc(fb->windows * fb->per_window * sizeof *fb->table);
    FB_G *basej = malloc(fb->windows * sizeof *basej);
    FB_AFF *bases = malloc(fb->windows * sizeof *bases);
    if (!fb->table || !basej || !bases) {
        free(basej), free(bases), free(fb->table);
        fb->table = NULL;
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for a fixed-base table");
    }
    FB_AFF g;
    FBG(generator)(&g);
    FBG(from_affine)(&basej[0], &g);
    for (unsigned k = 1; k < fb->windows; k++) {
        basej[k] = basej[k - 1];
        for (unsigned i = 0; i < fb->w; i++)
            FBG(dbl)(&basej[k], &basej[k]);
    }
    FBG(batch_to_affine)(bases, basej, fb->windows);
    struct FBG(fb_build_ctx) ctx = {fb, bases, 0};
    cuzk_pool_for(pool, fb->windows, 1, FBG(fb_build_range), &ctx);
    free(basej);
    free(bases);
    if (ctx.failed) {
        free(fb->table);
        fb->table = NULL;
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory to build a fixed-base table");
    }
    return CUZK_OK;
}

static void FBG(fb_free)(FBG(fb) *fb) {
    free(fb->table);
    fb->table = NULL;
}

/* Raw bits [off, off + w) of a 4-limb integer (zero past bit 255). */
static uint64_t FBG(fb_bits)(const uint64_t l[4], unsigned off, unsigned w) {
    unsigned i = off / 64, sh = off % 64;
    if (i >= 4)
        return 0;
    uint64_t v = l[i] >> sh;
    if (sh + w > 64 && i + 1 < 4)
        v |= l[i + 1] << (64 - sh);
    return v & ((1ULL << w) - 1);
}

#ifndef FB_BLOCK
#define FB_BLOCK 512 /* points sharing one inversion per window */
#endif

/* Per-thread working set for one block of FB_BLOCK scalars. */
typedef struct FBG(fb_scratch) {
    uint64_t (*limbs)[4]; /* plain scalars */
    int32_t *digit;       /* this window's signed digit per point */
    uint8_t *carry, *inf; /* recoding carry; accumulator is infinity */
    FB_AFF *acc, *t;      /* accumulators; addend chosen this window */
    FB_F *pre;            /* prefix products of the denominators */
    uint32_t *act;        /* points with a pending affine addition */
} FBG(fb_scratch);

static void FBG(fb_scratch_free)(FBG(fb_scratch) *s) {
    free(s->limbs), free(s->digit), free(s->carry), free(s->inf);
    free(s->acc), free(s->t), free(s->pre), free(s->act);
}

static int FBG(fb_scratch_alloc)(FBG(fb_scratch) *s) {
    s->limbs = malloc(FB_BLOCK * sizeof *s->limbs);
    s->digit = malloc(FB_BLOCK * sizeof *s->digit);
    s->carry = malloc(FB_BLOCK);
    s->inf = malloc(FB_BLOCK);
    s->acc = malloc(FB_BLOCK * sizeof *s->acc);
    s->t = malloc(FB_BLOCK * sizeof *s->t);
    s->pre = malloc(FB_BLOCK * sizeof *s->pre);
    s->act = malloc(FB_BLOCK * sizeof *s->act);
    if (s->limbs && s->digit && s->carry && s->inf && s->acc && s->t && s->pre && s->act)
        return 1;
    FBG(fb_scratch_free)(s);
    return 0;
}

/* Digits of window |win| for every point (advancing the carries), with a
 * prefetch of each table entry: the table is far larger than the caches,
 * so issuing all the loads of a window first lets them overlap. */
static void FBG(fb_digits)(const FBG(fb) *fb, FBG(fb_scratch) *s, size_t cnt, unsigned win) {
    int64_t half = (int64_t)1 << (fb->w - 1);
    const FB_AFF *tab = fb->table + win * fb->per_window;
    for (size_t i = 0; i < cnt; i++) {
        int64_t d = (int64_t)FBG(fb_bits)(s->limbs[i], win * fb->w, fb->w) + s->carry[i];
        s->carry[i] = d > half;
        if (s->carry[i])
            d -= 2 * half;
        s->digit[i] = (int32_t)d;
        if (d) {
            const FB_AFF *e = &tab[(d > 0 ? d : -d) - 1];
            __builtin_prefetch(e);
            __builtin_prefetch((const char *)(e + 1) - 1);
        }
    }
}

/* acc += t the slow way, for acc = +-t (doubling or cancelling), which the
 * affine formula cannot take.  Partial sums of the windows below k are
 * smaller than the addend as integers, so this needs a wrap modulo r and
 * is not expected outside the top windows; it is handled for exactness,
 * not speed. */
static void FBG(fb_add_slow)(FBG(fb_scratch) *s, size_t i, const FB_AFF *t) {
    FB_G j;
    FBG(from_affine)(&j, &s->acc[i]);
    FBG(add_affine)(&j, &j, t);
    if (FBG(is_inf)(&j))
        s->inf[i] = 1;
    else
        FBG(to_affine)(&s->acc[i], &j);
}

/*
 * One window for the whole block: acc_i += t_i in affine coordinates,
 *   lambda = (y_t - y_a) / (x_t - x_a), x' = lambda^2 - x_a - x_t,
 *   y' = lambda (x_a - x') - y_a,
 * with all divisions of the block done by one inversion (Montgomery's
 * trick).  About 6M + 1S per addition against 7M + 4S for a mixed Jacobian
 * addition, and no conversion to affine at the end.
 */
static void FBG(fb_window)(const FBG(fb) *fb, FBG(fb_scratch) *s, size_t cnt, unsigned win) {
    const FB_AFF *tab = fb->table + win * fb->per_window;
    FB_F run, inv, den, lam, t1;
    size_t n_act = 0;
    CUZK_PASTE(FB_F, set_one)(&run);
    for (size_t i = 0; i < cnt; i++) {
        int32_t d = s->digit[i];
        if (d == 0)
            continue;
        FB_AFF t = tab[(d > 0 ? d : -d) - 1];
        if (d < 0)
            CUZK_PASTE(FB_F, neg)(&t.y, &t.y);
        if (s->inf[i]) {
            s->acc[i] = t;
            s->inf[i] = 0;
        } else if (CUZK_PASTE(FB_F, eq)(&s->acc[i].x, &t.x)) {
            FBG(fb_add_slow)(s, i, &t);
        } else {
            s->t[i] = t;
            s->act[n_act] = (uint32_t)i;
            s->pre[n_act++] = run;
            CUZK_PASTE(FB_F, sub)(&den, &t.x, &s->acc[i].x);
            CUZK_PASTE(FB_F, mul)(&run, &run, &den);
        }
    }
    if (n_act == 0)
        return;
    CUZK_PASTE(FB_F, inv_var)(&inv, &run);
    for (size_t j = n_act; j-- > 0;) {
        size_t i = s->act[j];
        FB_AFF *a = &s->acc[i];
        const FB_AFF *t = &s->t[i];
        CUZK_PASTE(FB_F, sub)(&den, &t->x, &a->x);
        CUZK_PASTE(FB_F, mul)(&t1, &inv, &s->pre[j]); /* 1 / den_j */
        CUZK_PASTE(FB_F, mul)(&inv, &inv, &den);      /* drop den_j from the inverse */
        CUZK_PASTE(FB_F, sub)(&lam, &t->y, &a->y);
        CUZK_PASTE(FB_F, mul)(&lam, &lam, &t1);
        CUZK_PASTE(FB_F, sqr)(&t1, &lam);
        CUZK_PASTE(FB_F, sub)(&t1, &t1, &a->x);
        CUZK_PASTE(FB_F, sub)(&t1, &t1, &t->x);       /* x' */
        CUZK_PASTE(FB_F, sub)(&den, &a->x, &t1);
        a->x = t1;
        CUZK_PASTE(FB_F, mul)(&lam, &lam, &den);
        CUZK_PASTE(FB_F, sub)(&a->y, &lam, &a->y);    /* y' */
    }
}

/* out[i] = [k[i]]G for one block of cnt <= FB_BLOCK scalars. */
static void FBG(fb_block)(const FBG(fb) *fb, FBG(fb_scratch) *s, FB_AFF *out,
                          const FB_S *k, size_t cnt) {
    for (size_t i = 0; i < cnt; i++) {
        CUZK_PASTE(FB_S, from_mont)(s->limbs[i], &k[i]);
        s->carry[i] = 0;
        s->inf[i] = 1;
    }
    for (unsigned win = 0; win < fb->windows; win++) {
        FBG(fb_digits)(fb, s, cnt, win);
        FBG(fb_window)(fb, s, cnt, win);
    }
    for (size_t i = 0; i < cnt; i++)
        if (s->inf[i])
            FBG(affine_set_inf)(&out[i]);
        else
            out[i] = s->acc[i];
}

struct FBG(fb_mul_ctx) {
    const FBG(fb) *fb;
    FB_AFF *out;
    const FB_S *k;
    int failed;
};

static void FBG(fb_mul_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct FBG(fb_mul_ctx) *c = ctx;
    FBG(fb_scratch) s;
    (void)worker;
    if (!FBG(fb_scratch_alloc)(&s)) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t i0 = begin; i0 < end; i0 += FB_BLOCK) {
        size_t cnt = end - i0 < FB_BLOCK ? end - i0 : FB_BLOCK;
        FBG(fb_block)(c->fb, &s, c->out + i0, c->k + i0, cnt);
    }
    FBG(fb_scratch_free)(&s);
}

/* out[i] = [k[i]]G for i < n (Montgomery scalars; zero gives infinity).
 * Returns 0 if a worker could not get its scratch space. */
static int FBG(fb_mul_many)(const FBG(fb) *fb, FB_AFF *out, const FB_S *k, size_t n,
                            cuzk_pool *pool) {
    struct FBG(fb_mul_ctx) ctx = {fb, out, k, 0};
    cuzk_pool_for(pool, n, 2 * FB_BLOCK, FBG(fb_mul_range), &ctx);
    return !ctx.failed;
}

/* The whole thing for one batch: table, products, table freed. */
static cuzk_status FBG(fb_mul_gen)(FB_AFF *out, const FB_S *k, size_t n, unsigned w,
                                   cuzk_pool *pool, cuzk_error *err) {
    FBG(fb) fb;
    cuzk_status st = FBG(fb_build)(&fb, n, w, pool, err);
    if (st != CUZK_OK)
        return st;
    if (!FBG(fb_mul_many)(&fb, out, k, n, pool))
        st = cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for scalar multiplication");
    FBG(fb_free)(&fb);
    return st;
}

#undef FBG
#undef FBS
#undef FB_AFF
