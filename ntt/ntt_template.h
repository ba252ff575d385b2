/*
 * The NTT algorithm, written once and stamped out by ntt.c per scalar field.
 *
 * Before including, define:
 *   NTT_P          the curve prefix (bls12_381 or bn254)
 *   NTT_FR         the field type (bls12_381_fr or bn254_fr)
 *   NTT_ADICITY    the field's two-adicity (largest supported log_n)
 * and have static inline functions NTT_P##_ntt_add/_sub (r, a, b) and
 * NTT_P##_ntt_mul (r, a, b, use_asm) in scope: the butterfly's arithmetic,
 * inlined (see ntt.c for why); use_asm is the domain's copy of
 * cuzk_field_uses_asm().
 *
 * ALGORITHM.  Both directions are a decimation-in-frequency (Gentleman-Sande)
 * network, natural order in, bit-reversed order out, followed by one
 * bit-reversal permutation pass.  The inverse needs no second twiddle
 * table: within the level of half-size h, w_2h^-j = -w_2h^(h-j), so its
 * butterfly is (u + v, (v - u) * w_2h^(h-j)) with the forward table.  The
 * 1/n factor of the inverse rides on the permutation pass, and for the coset
 * inverse on the g^-k pass instead.
 *
 * Twiddles: tw[h + j] = w_2h^j for every level h = n/2, n/4, ..., 1 and
 * 0 <= j < h (n entries in all), so every level reads its own twiddles
 * contiguously.
 *
 * to_coset (evaluations on H to evaluations on gH, the step Groth16's h
 * needs three times) runs the inverse DIF network with no permutation,
 * which leaves n times the coefficients in bit-reversed order, multiplies
 * them there by g^k / n (k the coefficient's index), and runs a
 * decimation-in-time (Cooley-Tukey) network, which takes bit-reversed
 * input to natural output: (x + y w_2h^j, x - y w_2h^j) from level h = 1
 * up.  No permutation pass (at large sizes its swaps miss the caches) and
 * no separate scaling pass: h's six transforms at BN254 2^18 went from
 * 5.5 s to 3.5 s (medians, wall time on the loaded 2-core VM, see
 * docs/PERFORMANCE.md).
 *
 * Cache blocking: levels whose butterflies span more than NTT_BLOCK elements
 * run level by level over the whole array, parallel over butterflies.  Once
 * the span fits in NTT_BLOCK elements (which fit in L2), each block of
 * NTT_BLOCK contiguous elements runs all its remaining levels at once,
 * parallel over blocks.  Radix 2 throughout: a radix-4 step (two levels
 * per pass, half the memory traffic) was measured 15-30% slower at every
 * size from 2^12 to 2^20 on the 2-core EPYC VM, because four inlined
 * butterflies with the mulx product spill most of their registers.
 *
 * Must not: allocate in a transform, or depend on anything but the domain
 * and the arguments (a domain is shared by many threads).
 */
#include <stdlib.h>
#include <string.h>

#include "util/paste.h"
#define NP(x) CUZK_PASTE(NTT_P, x)        /* bls12_381_ntt_forward, ... */
#define FRF(x) CUZK_PASTE(NTT_FR, x)      /* bls12_381_fr_mul, ... */
#define NS(x) CUZK_PASTE(NTT_P, ntt_##x)  /* file-local helpers */

struct NP(ntt_domain) {
    unsigned log_n;
    int use_asm;  /* cuzk_field_uses_asm(), read once at creation */
    size_t n;
    NTT_FR omega; /* primitive n-th root, ffjavascript's */
    NTT_FR n_inv; /* 1/n */
    NTT_FR *tw;   /* n entries, see above; tw[0] = 1 */
};

/* ---- domain ---------------------------------------------------------- */

cuzk_status NP(ntt_domain_create)(NP(ntt_domain) **out, unsigned log_n,
                                  cuzk_error *err) {
    *out = NULL;
    if (log_n > NTT_ADICITY)
        return cuzk_fail(err, CUZK_ERANGE,
                         "NTT size 2^%u exceeds the two-adicity 2^%u of "
                         "the field",
                         log_n, (unsigned)NTT_ADICITY);
    if (log_n >= 8 * sizeof(size_t) - 8)
        return cuzk_fail(err, CUZK_ENOMEM, "NTT size 2^%u is too large",
                         log_n);
    size_t n = (size_t)1 << log_n;
    NP(ntt_domain) *d = calloc(1, sizeof *d);
    NTT_FR *tw = d ? aligned_alloc(64, ntt_round64(n * sizeof(NTT_FR)))
                   : NULL;
    if (tw == NULL) {
        free(d);
        return cuzk_fail(err, CUZK_ENOMEM,
                         "NTT domain 2^%u: cannot allocate %zu bytes of "
                         "twiddles",
                         log_n, n * sizeof(NTT_FR));
    }
    d->log_n = log_n;
    d->use_asm = cuzk_field_uses_asm();
    d->n = n;
    d->tw = tw;
    FRF(root_of_unity)(&d->omega, log_n); /* log_n checked above */
    NTT_FR nn;
    FRF(set_u64)(&nn, (uint64_t)n);
    FRF(inv)(&d->n_inv, &nn);
    /* Top level by repeated multiplication, each lower level is every
     * other entry of the level above (w_2h^j = w_4h^(2j)). */
    FRF(set_one)(&tw[0]);
    if (n >= 2) {
        size_t h = n / 2;
        FRF(set_one)(&tw[h]);
        for (size_t j = 1; j < h; j++)
            FRF(mul)(&tw[h + j], &tw[h + j - 1], &d->omega);
        for (h /= 2; h >= 1; h /= 2)
            for (size_t j = 0; j < h; j++)
                tw[h + j] = tw[2 * h + 2 * j];
    }
    *out = d;
    return CUZK_OK;
}

void NP(ntt_domain_destroy)(NP(ntt_domain) *d) {
    if (d == NULL)
        return;
    free(d->tw);
    free(d);
}

unsigned NP(ntt_domain_log_n)(const NP(ntt_domain) *d) { return d->log_n; }

void NP(ntt_domain_omega)(NTT_FR *w, const NP(ntt_domain) *d) {
    *w = d->omega;
}

/* ---- butterflies ------------------------------------------------------ */

/*
 * Level-h DIF butterflies on x = a[j], y = a[j + h], twiddle index j:
 * forward (x + y, (x - y) w_2h^j), inverse (x + y, (y - x) w_2h^(h - j)),
 * and for j = 0 (twiddle 1 both ways) just (x + y, x - y).  twl = tw + h
 * (the level's table).  |am| is the domain's use_asm.
 */
static inline void NS(bfly_one)(NTT_FR *x, NTT_FR *y) {
    NTT_FR u = *x, v = *y;
    NS(add)(x, &u, &v);
    NS(sub)(y, &u, &v);
}

static inline void NS(bfly_fwd)(NTT_FR *x, NTT_FR *y, const NTT_FR *w,
                                int am) {
    NTT_FR u = *x, v = *y;
    NS(add)(x, &u, &v);
    NS(sub)(&u, &u, &v);
    NS(mul)(y, &u, w, am);
}

static inline void NS(bfly_inv)(NTT_FR *x, NTT_FR *y, const NTT_FR *w,
                                int am) {
    NTT_FR u = *x, v = *y;
    NS(add)(x, &u, &v);
    NS(sub)(&u, &v, &u);
    NS(mul)(y, &u, w, am);
}

/* Decimation in time (Cooley-Tukey), forward: (x + y w_2h^j, x - y w_2h^j). */
static inline void NS(bfly_dit)(NTT_FR *x, NTT_FR *y, const NTT_FR *w,
                                int am) {
    NTT_FR u = *x, v;
    NS(mul)(&v, y, w, am);
    NS(add)(x, &u, &v);
    NS(sub)(y, &u, &v);
}

/* Butterflies j in [j0, j1) of the level-h group starting at |a|, of kind
 * |mode|; the j = 0 case is peeled so the loops carry no branch. */
static void NS(span)(NTT_FR *a, size_t h, size_t j0, size_t j1,
                     const NTT_FR *tw, int mode, int am) {
    const NTT_FR *twl = tw + h;
    size_t j = j0;
    if (j == 0 && j < j1) {
        NS(bfly_one)(&a[0], &a[h]);
        j = 1;
    }
    if (mode == NTT_DIF_INV)
        for (; j < j1; j++)
            NS(bfly_inv)(&a[j], &a[j + h], &twl[h - j], am);
    else if (mode == NTT_DIT_FWD)
        for (; j < j1; j++)
            NS(bfly_dit)(&a[j], &a[j + h], &twl[j], am);
    else
        for (; j < j1; j++)
            NS(bfly_fwd)(&a[j], &a[j + h], &twl[j], am);
}

/* ---- passes over the whole array (levels wider than a block) --------- */

typedef struct {
    NTT_FR *a;
    const NTT_FR *tw;
    size_t h; /* level half-size */
    int mode; /* NTT_DIF_FWD, NTT_DIF_INV or NTT_DIT_FWD */
    int am;   /* use_asm */
} NS(pass_ctx);

/* Runs butterflies [b, e) of one level; butterfly t = group * h + j. */
static void NS(pass_fn)(void *p, size_t b, size_t e, unsigned worker) {
    NS(pass_ctx) *c = p;
    (void)worker;
    size_t h = c->h;
    for (size_t t = b; t < e;) {
        size_t g = t / h, j = t % h;
        size_t j1 = (e - t < h - j) ? j + (e - t) : h;
        NS(span)(c->a + g * 2 * h, h, j, j1, c->tw, c->mode, c->am);
        t += j1 - j;
    }
}

/* ---- blocks (all levels of span <= block, one block at a time) -------- */

/*
 * Scaling in bit-reversed order (the fused coset shift of to_coset):
 * a[j] *= c * g^bitrev(j), with bitrev over log_n bits.  Bit k of j
 * contributes the factor pk[k] = g^(2^(log_n - 1 - k)), so a block of
 * 2^lb aligned indices needs the product of its fixed high bits' factors
 * once, a table of the 2^8 combinations of the low 8 bits (255 products)
 * and one of the bits in between: about 2 products an element, on data
 * the block's butterflies are about to read anyway.
 */
typedef struct {
    NTT_FR pk[64]; /* pk[k] = g^(2^(log_n - 1 - k)), k < log_n */
    NTT_FR c;      /* the constant factor (1/n for to_coset) */
} NS(bitrev_scale);

/* t[i] = base * prod over the set bits k of i of pk[k], i < 2^bits. */
static void NS(subset_products)(NTT_FR *t, const NTT_FR *base, const NTT_FR *pk,
                                unsigned bits, int am) {
    t[0] = *base;
    for (unsigned k = 0; k < bits; k++) {
        size_t half = (size_t)1 << k;
        for (size_t i = 0; i < half; i++)
            NS(mul)(&t[half + i], &t[i], &pk[k], am);
    }
}

static void NS(scale_block)(NTT_FR *a, size_t j0, size_t block, const NS(bitrev_scale) *sc,
                            int am) {
    unsigned lb = (unsigned)__builtin_ctzll((unsigned long long)block);
    unsigned lo = lb < NTT_SCALE_LOW ? lb : NTT_SCALE_LOW;
    NTT_FR hi = sc->c, low[(size_t)1 << NTT_SCALE_LOW], mid;
    for (unsigned k = lb; k < 64 && (j0 >> k) != 0; k++)
        if ((j0 >> k) & 1)
            NS(mul)(&hi, &hi, &sc->pk[k], am);
    NTT_FR one;
    FRF(set_one)(&one);
    NS(subset_products)(low, &one, sc->pk, lo, am);
    size_t nlow = (size_t)1 << lo;
    for (size_t s = 0; s < block / nlow; s++) {
        /* mid = hi * the factors of the set bits of s (bits lo .. lb-1) */
        mid = hi;
        for (unsigned k = 0; (s >> k) != 0; k++)
            if ((s >> k) & 1)
                NS(mul)(&mid, &mid, &sc->pk[lo + k], am);
        NTT_FR *x = a + s * nlow;
        for (size_t t = 0; t < nlow; t++) {
            NTT_FR f;
            NS(mul)(&f, &low[t], &mid, am);
            NS(mul)(&x[t], &x[t], &f, am);
        }
    }
}

typedef struct {
    NTT_FR *a;
    const NTT_FR *tw;
    size_t block;
    int mode;
    int am;
    const NS(bitrev_scale) *scale; /* DIT only: scale first (NULL: none) */
} NS(block_ctx);

/* The levels of half-size < block of one block: DIF top down, DIT bottom
 * up (the DIT block first scales, if asked). */
static void NS(block_run)(const NS(block_ctx) *c, size_t i) {
    size_t block = c->block;
    NTT_FR *a = c->a + i * block;
    if (c->mode == NTT_DIT_FWD) {
        if (c->scale)
            NS(scale_block)(a, i * block, block, c->scale, c->am);
        for (size_t s = 0; s < block; s += 2) /* h = 1: twiddle 1 */
            NS(bfly_one)(&a[s], &a[s + 1]);
        for (size_t h = 2; h < block; h *= 2)
            for (size_t s = 0; s < block; s += 2 * h)
                NS(span)(a + s, h, 0, h, c->tw, c->mode, c->am);
        return;
    }
    for (size_t h = block / 2; h >= 2; h /= 2)
        for (size_t s = 0; s < block; s += 2 * h)
            NS(span)(a + s, h, 0, h, c->tw, c->mode, c->am);
    for (size_t s = 0; s < block; s += 2) /* h = 1: twiddle 1 */
        NS(bfly_one)(&a[s], &a[s + 1]);
}

static void NS(block_fn)(void *p, size_t b, size_t e, unsigned worker) {
    NS(block_ctx) *c = p;
    (void)worker;
    for (size_t i = b; i < e; i++)
        NS(block_run)(c, i);
}

/* ---- bit reversal (with an optional scale) --------------------------- */

static inline size_t NS(bitrev)(size_t i, unsigned log_n) {
    uint64_t x = i;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = __builtin_bswap64(x);
    return log_n ? (size_t)(x >> (64 - log_n)) : 0;
}

typedef struct {
    NTT_FR *a;
    unsigned log_n;
    const NTT_FR *scale; /* NULL: plain permutation */
    int am;
} NS(perm_ctx);

static void NS(perm_fn)(void *p, size_t b, size_t e, unsigned worker) {
    NS(perm_ctx) *c = p;
    (void)worker;
    for (size_t i = b; i < e; i++) {
        size_t r = NS(bitrev)(i, c->log_n);
        if (r < i)
            continue; /* handled when the loop was at r */
        NTT_FR t = c->a[i];
        if (c->scale) {
            NS(mul)(&c->a[i], &c->a[r], c->scale, c->am);
            if (r != i)
                NS(mul)(&c->a[r], &t, c->scale, c->am);
        } else {
            c->a[i] = c->a[r];
            c->a[r] = t;
        }
    }
}

/* ---- a[k] *= c * g^k -------------------------------------------------- */

typedef struct {
    NTT_FR *a;
    NTT_FR g, c;
    int am;
} NS(powers_ctx);

static void NS(powers_fn)(void *p, size_t b, size_t e, unsigned worker) {
    NS(powers_ctx) *c = p;
    (void)worker;
    NTT_FR x;
    uint64_t eb = (uint64_t)b;
    FRF(pow)(&x, &c->g, &eb, 1);
    FRF(mul)(&x, &x, &c->c);
    for (size_t i = b; i < e; i++) {
        NS(mul)(&c->a[i], &c->a[i], &x, c->am);
        NS(mul)(&x, &x, &c->g, c->am);
    }
}

static void NS(scale_powers)(const NP(ntt_domain) *d, NTT_FR *a,
                             const NTT_FR *g, const NTT_FR *c,
                             cuzk_pool *pool) {
    NS(powers_ctx) ctx = {.a = a, .g = *g, .c = *c, .am = d->use_asm};
    cuzk_pool_for(pool, d->n, NTT_PERM_GRAIN, NS(powers_fn), &ctx);
}

/* ---- the transform ---------------------------------------------------- */

/* Block size for the per-block levels: NTT_BLOCK, but small enough that
 * every thread gets blocks to work on. */
static size_t NS(block_size)(size_t n, cuzk_pool *pool) {
    size_t block = NTT_BLOCK, threads = cuzk_pool_threads(pool);
    while (block > NTT_MIN_BLOCK && n / block < 2 * threads)
        block /= 2;
    return block < n ? block : n;
}

/* The DIF network (natural order in, bit-reversed out) of kind |mode|. */
static void NS(dif)(const NP(ntt_domain) *d, NTT_FR *a, int mode, cuzk_pool *pool) {
    size_t n = d->n, block = NS(block_size)(n, pool);
    for (size_t h = n / 2; 2 * h > block; h /= 2) {
        NS(pass_ctx) pc = {a, d->tw, h, mode, d->use_asm};
        cuzk_pool_for(pool, n / 2, NTT_PASS_GRAIN, NS(pass_fn), &pc);
    }
    NS(block_ctx) bc = {a, d->tw, block, mode, d->use_asm, NULL};
    cuzk_pool_for(pool, n / block, 1, NS(block_fn), &bc);
}

/* The forward DIT network (bit-reversed order in, natural out), after
 * scaling the input by |sc| (NULL: none) inside the first blocks. */
static void NS(dit)(const NP(ntt_domain) *d, NTT_FR *a, const NS(bitrev_scale) *sc,
                    cuzk_pool *pool) {
    size_t n = d->n, block = NS(block_size)(n, pool);
    NS(block_ctx) bc = {a, d->tw, block, NTT_DIT_FWD, d->use_asm, sc};
    cuzk_pool_for(pool, n / block, 1, NS(block_fn), &bc);
    for (size_t h = block; h < n; h *= 2) {
        NS(pass_ctx) pc = {a, d->tw, h, NTT_DIT_FWD, d->use_asm};
        cuzk_pool_for(pool, n / 2, NTT_PASS_GRAIN, NS(pass_fn), &pc);
    }
}

/* DIF network then bit reversal; |scale| (may be NULL) multiplies every
 * output. */
static void NS(transform)(const NP(ntt_domain) *d, NTT_FR *a, int inv,
                          const NTT_FR *scale, cuzk_pool *pool) {
    size_t n = d->n;
    if (n == 1) {
        if (scale)
            FRF(mul)(&a[0], &a[0], scale);
        return;
    }
    NS(dif)(d, a, inv ? NTT_DIF_INV : NTT_DIF_FWD, pool);
    NS(perm_ctx) pm = {a, d->log_n, scale, d->use_asm};
    cuzk_pool_for(pool, n, NTT_PERM_GRAIN, NS(perm_fn), &pm);
}

void NP(ntt_forward)(const NP(ntt_domain) *d, NTT_FR *a, cuzk_pool *pool) {
    NS(transform)(d, a, 0, NULL, pool);
}

void NP(ntt_inverse)(const NP(ntt_domain) *d, NTT_FR *a, cuzk_pool *pool) {
    NS(transform)(d, a, 1, &d->n_inv, pool);
}

void NP(ntt_coset_forward)(const NP(ntt_domain) *d, NTT_FR *a,
                           const NTT_FR *g, cuzk_pool *pool) {
    NTT_FR one;
    FRF(set_one)(&one);
    NS(scale_powers)(d, a, g, &one, pool);
    NS(transform)(d, a, 0, NULL, pool);
}

void NP(ntt_coset_inverse)(const NP(ntt_domain) *d, NTT_FR *a,
                           const NTT_FR *g, cuzk_pool *pool) {
    NTT_FR g_inv;
    FRF(inv_var)(&g_inv, g);
    NS(transform)(d, a, 1, NULL, pool);
    NS(scale_powers)(d, a, &g_inv, &d->n_inv, pool);
}

/* inverse then coset_forward without either permutation: the inverse DIF
 * leaves n times the coefficients in bit-reversed order, the coset shift
 * and 1/n scale them there (fused into the DIT's first blocks), and the
 * DIT network takes bit-reversed input to natural output. */
void NP(ntt_to_coset)(const NP(ntt_domain) *d, NTT_FR *a, const NTT_FR *g,
                      cuzk_pool *pool) {
    if (d->n == 1)
        return; /* one value: its own coefficient and coset value */
    NS(bitrev_scale) sc;
    sc.c = d->n_inv;
    sc.pk[d->log_n - 1] = *g;
    for (unsigned k = d->log_n - 1; k-- > 0;)
        FRF(mul)(&sc.pk[k], &sc.pk[k + 1], &sc.pk[k + 1]);
    NS(dif)(d, a, NTT_DIF_INV, pool);
    NS(dit)(d, a, &sc, pool);
}

#undef NS
#undef FRF
#undef NP

