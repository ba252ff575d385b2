/*
 * Groth16 prover and verifier for one curve, stamped out by groth16.c with
 *   P        the curve prefix (bls12_381 or bn254)
 *   P_FR_S   the 2-adicity of its Fr
 * See groth16.h for the API and docs/FILES.md for the algorithm the snarkjs
 * keys require.  The per-coefficient loops use the inline field operations
 * (field_inline.h).  Must not: allocate on the per-coefficient paths, allocate
 * at all in the *_with_scratch forms given a buffer (their scratch is the
 * caller's), start threads (work goes through the caller's pool), or print.
 */
#include "util/paste.h"
#define G(x) CUZK_PASTE(P, x)

#define FR G(fr)
#define G1J G(g1)
#define G1A G(g1_affine)
#define G2J G(g2)
#define G2A G(g2_affine)

/* ---- step 1: evaluate ---------------------------------------------------- */

struct G(witness_ctx) {
    const FR *in;
    FR *out;
};

static void G(witness_to_mont_range)(void *ctx, size_t begin, size_t end,
                                     unsigned worker) {
    struct G(witness_ctx) *c = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++)
        G(fr_to_mont)(&c->out[i], c->in[i].l);
}

struct G(eval_ctx) {
    const cuzk_coef *coefs;
    const size_t *cuts; /* chunk k covers coefs [cuts[k], cuts[k+1]) */
    const FR *w;        /* Montgomery witness */
    FR *ab[2];
};

static void G(eval_range)(void *ctx, size_t begin, size_t end,
                          unsigned worker) {
    struct G(eval_ctx) *c = ctx;
    (void)worker;
    for (size_t k = begin; k < end; k++)
        for (size_t i = c->cuts[k]; i < c->cuts[k + 1]; i++) {
            const cuzk_coef *e = &c->coefs[i];
            FR t;
            G(fr_mul_inl)(&t, (const FR *)&e->value, &c->w[e->signal]);
            FR *dst = &c->ab[e->matrix][e->row];
            G(fr_add_inl)(dst, dst, &t);
        }
}

struct G(hadamard_ctx) {
    const FR *a, *b;
    FR *c;
};

static void G(hadamard_range)(void *ctx, size_t begin, size_t end,
                              unsigned worker) {
    struct G(hadamard_ctx) *h = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++)
        G(fr_mul_inl)(&h->c[i], &h->a[i], &h->b[i]);
}

size_t G(groth16_evaluate_scratch_bytes)(const G(groth16_pk) *pk) {
    return sizeof(FR) * pk->n_vars + 64;
}

/* A 64-byte aligned view of a caller's buffer (scratch sizes include the
 * 64 bytes this may skip). */
static void *G(align64)(void *p) {
    return (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

/* The caller's scratch, checked: NULL or short is the caller's mistake
 * (every step takes its working memory from the caller, groth16.h). */
static cuzk_status G(scratch_check)(const void *scratch, size_t bytes, size_t need,
                                    const char *step, cuzk_error *err) {
    if (!scratch)
        return cuzk_fail(err, CUZK_EINVAL, "%s: no scratch buffer (%zu bytes needed)", step,
                         need);
    if (bytes < need)
        return cuzk_fail(err, CUZK_EINVAL, "%s: scratch of %zu bytes, %zu needed", step, bytes,
                         need);
    return CUZK_OK;
}

cuzk_status G(groth16_evaluate_with_scratch)(const G(groth16_pk) *pk, const FR *witness,
                                             FR *a, FR *b, FR *c, void *scratch,
                                             size_t scratch_bytes, cuzk_pool *pool,
                                             cuzk_error *err) {
    size_t n = (size_t)1 << pk->log_n;
    cuzk_status st = G(scratch_check)(scratch, scratch_bytes,
                                      G(groth16_evaluate_scratch_bytes)(pk), "evaluate", err);
    if (st != CUZK_OK)
        return st;
    for (size_t i = 0; i < pk->n_vars; i++) {
        cuzk_error e2;
        FR tmp;
        if (G(fr_from_limbs)(&tmp, witness[i].l, &e2) != CUZK_OK)
            return cuzk_fail(err, CUZK_ERANGE,
                             "witness value %zu is not below the field order", i);
    }
    FR *w = G(align64)(scratch);
    struct G(witness_ctx) wc = {witness, w};
    cuzk_pool_for(pool, pk->n_vars, 4096, G(witness_to_mont_range), &wc);
    memset(a, 0, sizeof(FR) * n);
    memset(b, 0, sizeof(FR) * n);

    /*
     * Chunks may run in parallel only if no row is split between two of them.
     * snarkjs writes coefficients grouped by row (constraint order), so cut
     * at row changes; if the list is not sorted by row, one chunk does all.
     */
    enum { MAX_CHUNKS = 256 };
    size_t cuts[MAX_CHUNKS + 1], nchunks = 1;
    int sorted = 1;
    for (size_t i = 1; i < pk->n_coefs && sorted; i++)
        sorted = pk->coefs[i].row >= pk->coefs[i - 1].row;
    cuts[0] = 0;
    if (sorted && pk->n_coefs > 65536) {
        size_t want = 4 * (size_t)(pool ? cuzk_pool_threads(pool) : 1);
        if (want > MAX_CHUNKS)
            want = MAX_CHUNKS;
        for (size_t k = 1; k < want; k++) {
            size_t at = pk->n_coefs * k / want;
            if (at <= cuts[nchunks - 1])
                continue;
            while (at < pk->n_coefs && pk->coefs[at].row == pk->coefs[at - 1].row)
                at++;
            if (at < pk->n_coefs && at > cuts[nchunks - 1])
                cuts[nchunks++] = at;
        }
    }
    cuts[nchunks] = pk->n_coefs;
    struct G(eval_ctx) ec = {pk->coefs, cuts, w, {a, b}};
    cuzk_pool_for(pool, nchunks, 1, G(eval_range), &ec);
    struct G(hadamard_ctx) hc = {a, b, c};
    cuzk_pool_for(pool, n, 4096, G(hadamard_range), &hc);
    return CUZK_OK;
}

/* ---- step 2: h on the odd coset ------------------------------------------- */

/* Domains are cached per size for the life of the process (at most
 * P_FR_S + 1 of them): twiddle tables cost as much as an NTT to build. */
static G(ntt_domain) *G(domain_cache)[P_FR_S + 1];
static pthread_mutex_t G(domain_lock) = PTHREAD_MUTEX_INITIALIZER;

static cuzk_status G(domain_get)(G(ntt_domain) **d, unsigned log_n,
                                 cuzk_error *err) {
    cuzk_status st = CUZK_OK;
    if (log_n > P_FR_S)
        return cuzk_fail(err, CUZK_ERANGE, "domain 2^%u exceeds the field's 2-adicity", log_n);
    pthread_mutex_lock(&G(domain_lock));
    if (!G(domain_cache)[log_n])
        st = G(ntt_domain_create)(&G(domain_cache)[log_n], log_n, err);
    *d = G(domain_cache)[log_n];
    pthread_mutex_unlock(&G(domain_lock));
    return st;
}

struct G(h_ctx) {
    FR *a;
    const FR *b, *c;
};

static void G(h_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct G(h_ctx) *h = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        FR t;
        G(fr_mul_inl)(&t, &h->a[i], &h->b[i]);
        G(fr_sub_inl)(&h->a[i], &t, &h->c[i]);
    }
}

cuzk_status G(groth16_compute_h)(const G(groth16_pk) *pk, FR *a, FR *b, FR *c,
                                 cuzk_pool *pool, cuzk_error *err) {
    G(ntt_domain) *d = NULL;
    FR shift;
    cuzk_status st = G(domain_get)(&d, pk->log_n, err);
    if (st != CUZK_OK)
        return st;
    /* The coset generator is w_2n (ffjavascript); at the maximal size
     * there is no 2n-th root and snarkjs would use nqr^2 instead, which
     * we do not support (no key that large fits anywhere). */
    if (G(fr_root_of_unity)(&shift, pk->log_n + 1) != CUZK_OK)
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "domain 2^%u is too large for a coset", pk->log_n);
    /* each of a, b, c: interpolate on H, evaluate on the coset (one call,
     * no permutation passes: ntt.h) */
    FR *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++)
        G(ntt_to_coset)(d, v[k], &shift, pool);
    struct G(h_ctx) hc = {a, b, c};
    cuzk_pool_for(pool, (size_t)1 << pk->log_n, 4096, G(h_range), &hc);
    return CUZK_OK;
}

/* ---- steps 3 and 4: MSMs and assembly -------------------------------------- */

static uint64_t G(now_ns)(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void G(groth16_assemble)(G(groth16_proof) *proof, const G(groth16_pk) *pk,
                         const G1J *msm_a, const G1J *msm_b1, const G2J *msm_b2,
                         const G1J *msm_c, const G1J *msm_h, const FR *r,
                         const FR *s) {
    G1J sa = *msm_a, sb1 = *msm_b1, sc = *msm_c, sh = *msm_h, acc, tmp;
    G2J sb2 = *msm_b2, accb;
    /* πA = α1 + Σ w·A + r·δ1 */
    G1J pa, b1p, delta1;
    G(g1_from_affine)(&delta1, &pk->delta1);
    G(g1_add_affine)(&pa, &sa, &pk->alpha1);
    G(g1_mul)(&tmp, &delta1, r);
    G(g1_add)(&pa, &pa, &tmp);
    /* πB = β2 + Σ w·B2 + s·δ2 */
    G2J delta2;
    G(g2_from_affine)(&delta2, &pk->delta2);
    G(g2_add_affine)(&accb, &sb2, &pk->beta2);
    G(g2_mul)(&sb2, &delta2, s);
    G(g2_add)(&accb, &accb, &sb2);
    /* B1' = β1 + Σ w·B1 + s·δ1 */
    G(g1_add_affine)(&b1p, &sb1, &pk->beta1);
    G(g1_mul)(&tmp, &delta1, s);
    G(g1_add)(&b1p, &b1p, &tmp);
    /* πC = Σ w·C + Σ h·H + s·πA + r·B1' − r·s·δ1 */
    G(g1_add)(&acc, &sc, &sh);
    G(g1_mul)(&tmp, &pa, s);
    G(g1_add)(&acc, &acc, &tmp);
    G(g1_mul)(&tmp, &b1p, r);
    G(g1_add)(&acc, &acc, &tmp);
    FR rs;
    G(fr_mul)(&rs, r, s);
    G(g1_mul)(&tmp, &delta1, &rs);
    G(g1_sub)(&acc, &acc, &tmp);

    G(g1_to_affine)(&proof->a, &pa);
    G(g2_to_affine)(&proof->b, &accb);
    G(g1_to_affine)(&proof->c, &acc);
}

/* ---- density: the witness values of a bitmap's set bits ------------------- */

/* Wires per block of the gather (a multiple of 64): block k starts its
 * output at offs[k], the set bits below it. */
#ifndef G_GATHER_WIRES
#define G_GATHER_WIRES 16384
#endif

static size_t G(gather_blocks)(size_t n_vars) {
    return (n_vars + G_GATHER_WIRES - 1) / G_GATHER_WIRES;
}

/* Bytes of the gather area of |pk|'s MSM scratch: the block offsets and
 * the larger compact vector (0 for a key without bitmaps). */
static size_t G(gather_bytes)(const G(groth16_pk) *pk) {
    size_t most = 0;
    if (pk->a_density)
        most = pk->n_a;
    if (pk->b_density && pk->n_b > most)
        most = pk->n_b;
    if (!pk->a_density && !pk->b_density)
        return 0;
    size_t offs = (G(gather_blocks)(pk->n_vars) + 1) * sizeof(uint64_t);
    return 64 + ((offs + 63) & ~(size_t)63) + most * sizeof(FR);
}

struct G(gather_ctx) {
    const uint64_t *bits, *offs;
    const FR *in;
    FR *out;
    size_t n_vars;
};

static void G(gather_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct G(gather_ctx) *c = ctx;
    (void)worker;
    for (size_t k = begin; k < end; k++) {
        size_t lo = k * G_GATHER_WIRES, hi = lo + G_GATHER_WIRES;
        FR *o = c->out + c->offs[k];
        if (hi > c->n_vars)
            hi = c->n_vars;
        for (size_t wd = lo / 64; wd * 64 < hi; wd++)
            for (uint64_t m = c->bits[wd]; m; m &= m - 1)
                *o++ = c->in[wd * 64 + (size_t)__builtin_ctzll(m)];
    }
}

/* out = the witness values of |bits|' set bits in wire order, if there
 * are exactly |expect| of them (|out| has room for that many; otherwise
 * nothing is written); |offs| has room for gather_blocks + 1 counts.
 * Returns the bitmap's population. */
static size_t G(gather)(const uint64_t *bits, size_t n_vars, const FR *witness, FR *out,
                        size_t expect, uint64_t *offs, cuzk_pool *pool) {
    size_t nb = G(gather_blocks)(n_vars), words = (n_vars + 63) / 64, at = 0;
    for (size_t k = 0; k < nb; k++) {
        offs[k] = at;
        size_t w_end = (k + 1) * (G_GATHER_WIRES / 64);
        for (size_t wd = k * (G_GATHER_WIRES / 64); wd < w_end && wd < words; wd++)
            at += (size_t)__builtin_popcountll(bits[wd]);
    }
    offs[nb] = at;
    if (at != expect)
        return at;
    struct G(gather_ctx) gc = {bits, offs, witness, out, n_vars};
    cuzk_pool_for(pool, nb, 1, G(gather_range), &gc);
    return at;
}

size_t G(groth16_msms_scratch_bytes)(const G(groth16_pk) *pk, unsigned threads) {
    size_t n = (size_t)1 << pk->log_n, first_private = (size_t)pk->n_public + 1;
    size_t g1ab = pk->n_a > pk->n_b ? pk->n_a : pk->n_b;
    size_t m[4] = {G(g1_msm_scratch_bytes)(g1ab, 0, threads),
                   G(g2_msm_scratch_bytes)(pk->n_b, 0, threads),
                   G(g1_msm_scratch_bytes)(pk->n_vars - first_private, 0, threads),
                   G(g1_msm_scratch_bytes)(n, 0, threads)};
    size_t most = 0;
    for (int i = 0; i < 4; i++)
        most = m[i] > most ? m[i] : most;
    return G(gather_bytes)(pk) + most;
}

/* One MSM's failure: a short buffer is the caller's mistake, anything
 * else is memory. */
static cuzk_status G(msm_fail)(cuzk_status st, const char *which, cuzk_error *err) {
    if (st == CUZK_EINVAL)
        return cuzk_fail(err, CUZK_EINVAL, "MSM %s: scratch buffer too small", which);
    return cuzk_fail(err, CUZK_ENOMEM, "MSM %s: out of memory", which);
}

cuzk_status G(groth16_msms_assemble_with_scratch)(G(groth16_proof) *proof,
                                                  const G(groth16_pk) *pk, const FR *witness,
                                                  const FR *h, const FR *r, const FR *s,
                                                  void *scratch, size_t scratch_bytes,
                                                  cuzk_pool *pool, cuzk_groth16_timing *t,
                                                  cuzk_error *err) {
    size_t n = (size_t)1 << pk->log_n;
    size_t first_private = (size_t)pk->n_public + 1;
    G1J sa, sb1, sc, sh;
    G2J sb2;
    cuzk_status st = CUZK_OK;
    uint64_t t0 = G(now_ns)(), t1;
    void *sp = scratch;
    size_t sn = scratch_bytes;

    /* Counts that do not match the bitmaps would read past the points. */
    if ((!pk->a_density && pk->n_a != pk->n_vars) || (!pk->b_density && pk->n_b != pk->n_vars) ||
        pk->n_a > pk->n_vars || pk->n_b > pk->n_vars)
        return cuzk_fail(err, CUZK_EINVAL, "key holds %u A and %u B points for %u wires",
                         pk->n_a, pk->n_b, pk->n_vars);
    if ((st = G(scratch_check)(scratch, scratch_bytes,
                               G(groth16_msms_scratch_bytes)(pk, cuzk_pool_threads(pool)),
                               "MSMs", err)) != CUZK_OK)
        return st;
    /* A key with a bitmap: its compact witness (and the gather's block
     * offsets) first, the MSMs' buckets after them. */
    size_t gb = G(gather_bytes)(pk);
    uint64_t *offs = NULL;
    FR *compact = NULL;
    if (gb) {
        size_t ob = (G(gather_blocks)(pk->n_vars) + 1) * sizeof(uint64_t);
        offs = G(align64)(sp);
        compact = (FR *)((char *)offs + ((ob + 63) & ~(size_t)63));
        sp = (char *)scratch + gb;
        sn = scratch_bytes - gb;
    }
    const FR *wa = witness, *wb = witness;
    if (pk->a_density) {
        if (G(gather)(pk->a_density, pk->n_vars, witness, compact, pk->n_a, offs, pool) !=
            pk->n_a)
            st = cuzk_fail(err, CUZK_EINVAL, "key's A bitmap does not hold %u wires", pk->n_a);
        wa = compact;
    }
    if (st == CUZK_OK &&
        (st = G(g1_msm_with_scratch)(&sa, pk->a, wa, pk->n_a, 0, 0, sp, sn, pool)) != CUZK_OK)
        st = G(msm_fail)(st, "A", err);
    t1 = G(now_ns)(), t->msm_a_ns = t1 - t0, t0 = t1;
    if (st == CUZK_OK && pk->b_density) {
        if (G(gather)(pk->b_density, pk->n_vars, witness, compact, pk->n_b, offs, pool) !=
            pk->n_b)
            st = cuzk_fail(err, CUZK_EINVAL, "key's B bitmap does not hold %u wires", pk->n_b);
        wb = compact;
    }
    if (st == CUZK_OK &&
        (st = G(g1_msm_with_scratch)(&sb1, pk->b1, wb, pk->n_b, 0, 0, sp, sn, pool)) != CUZK_OK)
        st = G(msm_fail)(st, "B1", err);
    t1 = G(now_ns)(), t->msm_b1_ns = t1 - t0, t0 = t1;
    if (st == CUZK_OK &&
        (st = G(g2_msm_with_scratch)(&sb2, pk->b2, wb, pk->n_b, 0, 0, sp, sn, pool)) != CUZK_OK)
        st = G(msm_fail)(st, "B2", err);
    t1 = G(now_ns)(), t->msm_b2_ns = t1 - t0, t0 = t1;
    if (st != CUZK_OK)
        return st;
    if ((st = G(g1_msm_with_scratch)(&sc, pk->c, witness + first_private,
                                     pk->n_vars - first_private, 0, 0, sp, sn, pool)) !=
        CUZK_OK)
        return G(msm_fail)(st, "C", err);
    t1 = G(now_ns)(), t->msm_c_ns = t1 - t0, t0 = t1;
    if ((st = G(g1_msm_with_scratch)(&sh, pk->h, h, n, 1, 0, sp, sn, pool)) != CUZK_OK)
        return G(msm_fail)(st, "H", err);
    t1 = G(now_ns)(), t->msm_h_ns = t1 - t0, t0 = t1;

    G(groth16_assemble)(proof, pk, &sa, &sb1, &sb2, &sc, &sh, r, s);
    t->assemble_ns = G(now_ns)() - t0;
    return CUZK_OK;
}

cuzk_status G(fr_random)(FR *out, cuzk_error *err) {
    /* Rejection sampling: r > 2^253 on both curves, so a value masked to
     * r's bit length is accepted with probability > 1/2 per draw. */
    const uint64_t *mod = G(fr_modulus);
    unsigned top = 64 - (unsigned)__builtin_clzll(mod[3]);
    for (int tries = 0; tries < 256; tries++) {
        uint64_t l[4];
        if (getrandom(l, sizeof l, 0) != (ssize_t)sizeof l)
            return cuzk_fail(err, CUZK_EIO, "getrandom failed: %s", strerror(errno));
        l[3] &= (top == 64) ? ~0ULL : ((1ULL << top) - 1);
        if (G(fr_from_limbs)(out, l, NULL) == CUZK_OK)
            return CUZK_OK;
    }
    return cuzk_fail(err, CUZK_EIO, "random source keeps returning values above r");
}

size_t G(groth16_prove_scratch_bytes)(const G(groth16_pk) *pk, unsigned threads) {
    size_t abc = 3 * ((size_t)1 << pk->log_n) * sizeof(FR) + 64;
    size_t ev = G(groth16_evaluate_scratch_bytes)(pk);
    size_t ms = G(groth16_msms_scratch_bytes)(pk, threads);
    return abc + (ev > ms ? ev : ms);
}

/* What both whole-proof forms do first: check the caller's scratch (at
 * least |need| bytes), and draw fresh r, s into *rr, *ss unless the caller
 * fixed them. */
static cuzk_status G(prove_begin)(const void *scratch, size_t scratch_bytes, size_t need,
                                  const FR **r, const FR **s, FR *rr, FR *ss, cuzk_error *err) {
    cuzk_status st = G(scratch_check)(scratch, scratch_bytes, need, "prover", err);
    if (st != CUZK_OK)
        return st;
    if (!*r) {
        if ((st = G(fr_random)(rr, err)) != CUZK_OK || (st = G(fr_random)(ss, err)) != CUZK_OK)
            return st;
        *r = rr;
        *s = ss;
    }
    return CUZK_OK;
}

cuzk_status G(groth16_prove_with_scratch)(G(groth16_proof) *proof, const G(groth16_pk) *pk,
                                          const FR *witness, size_t n_witness, const FR *r,
                                          const FR *s, void *scratch, size_t scratch_bytes,
                                          cuzk_pool *pool, cuzk_groth16_timing *t,
                                          cuzk_error *err) {
    cuzk_groth16_timing local;
    cuzk_status st;
    FR rr, ss;
    uint64_t start = G(now_ns)(), t0;
    if (!t)
        t = &local;
    memset(t, 0, sizeof *t);
    if (n_witness != pk->n_vars)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %zu values, the key expects %u", n_witness, pk->n_vars);
    size_t need = G(groth16_prove_scratch_bytes)(pk, cuzk_pool_threads(pool));
    if ((st = G(prove_begin)(scratch, scratch_bytes, need, &r, &s, &rr, &ss, err)) != CUZK_OK)
        return st;
    size_t n = (size_t)1 << pk->log_n;
    FR *abc = G(align64)(scratch);
    char *rest = (char *)(abc + 3 * n);
    size_t rest_bytes = need - (size_t)(rest - (char *)scratch);
    t0 = G(now_ns)();
    st = G(groth16_evaluate_with_scratch)(pk, witness, abc, abc + n, abc + 2 * n, rest,
                                          rest_bytes, pool, err);
    t->evaluate_ns = G(now_ns)() - t0;
    if (st == CUZK_OK) {
        t0 = G(now_ns)();
        st = G(groth16_compute_h)(pk, abc, abc + n, abc + 2 * n, pool, err);
        t->h_ns = G(now_ns)() - t0;
    }
    if (st == CUZK_OK)
        st = G(groth16_msms_assemble_with_scratch)(proof, pk, witness, abc, r, s, rest,
                                                   rest_bytes, pool, t, err);
    t->total_ns = G(now_ns)() - start;
    return st;
}

/* ---- all steps from a, b, c (no evaluation, no coefficient list) ------------ */

/* |v| (plain limbs) below r: what fr_from_limbs checks, without converting. */
static int G(below_r)(const FR *v) {
    for (int k = 3; k >= 0; k--)
        if (v->l[k] != G(fr_modulus)[k])
            return v->l[k] < G(fr_modulus)[k];
    return 0;
}

struct G(abc_mont_ctx) {
    const FR *in[3];
    FR *out;
    size_t m, n;
};

/* Items are rows of the three vectors laid end to end (3n): Montgomery
 * below m, zero above. */
static void G(abc_mont_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct G(abc_mont_ctx) *c = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        size_t v = i / c->n, row = i % c->n;
        if (row < c->m)
            G(fr_to_mont)(&c->out[i], c->in[v][row].l);
        else
            memset(&c->out[i], 0, sizeof(FR));
    }
}

size_t G(groth16_prove_abc_scratch_bytes)(const G(groth16_pk) *pk, unsigned threads) {
    return 3 * ((size_t)1 << pk->log_n) * sizeof(FR) + 64 +
           G(groth16_msms_scratch_bytes)(pk, threads);
}

cuzk_status G(groth16_prove_abc_with_scratch)(G(groth16_proof) *proof, const G(groth16_pk) *pk,
                                              const FR *witness, size_t n_witness, const FR *a,
                                              const FR *b, const FR *c, size_t m, const FR *r,
                                              const FR *s, void *scratch, size_t scratch_bytes,
                                              cuzk_pool *pool, cuzk_groth16_timing *t,
                                              cuzk_error *err) {
    cuzk_groth16_timing local;
    cuzk_status st;
    FR rr, ss;
    uint64_t start = G(now_ns)(), t0;
    size_t n = (size_t)1 << pk->log_n;
    if (!t)
        t = &local;
    memset(t, 0, sizeof *t);
    if (n_witness != pk->n_vars)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %zu values, the key expects %u", n_witness, pk->n_vars);
    if (m > n)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "a, b, c have %zu rows, the key's domain only %zu", m, n);
    for (size_t i = 0; i < n_witness; i++)
        if (!G(below_r)(&witness[i]))
            return cuzk_fail(err, CUZK_ERANGE,
                             "witness value %zu is not below the field order", i);
    const FR *in[3] = {a, b, c};
    for (int v = 0; v < 3; v++)
        for (size_t i = 0; i < m; i++)
            if (!G(below_r)(&in[v][i]))
                return cuzk_fail(err, CUZK_ERANGE, "%c[%zu] is not below the field order",
                                 "abc"[v], i);
    size_t need = G(groth16_prove_abc_scratch_bytes)(pk, cuzk_pool_threads(pool));
    if ((st = G(prove_begin)(scratch, scratch_bytes, need, &r, &s, &rr, &ss, err)) != CUZK_OK)
        return st;
    FR *abc = G(align64)(scratch);
    char *rest = (char *)(abc + 3 * n);
    size_t rest_bytes = need - (size_t)(rest - (char *)scratch);
    struct G(abc_mont_ctx) mc = {{a, b, c}, abc, m, n};
    cuzk_pool_for(pool, 3 * n, 4096, G(abc_mont_range), &mc);
    t0 = G(now_ns)();
    st = G(groth16_compute_h)(pk, abc, abc + n, abc + 2 * n, pool, err);
    t->h_ns = G(now_ns)() - t0;
    if (st == CUZK_OK)
        st = G(groth16_msms_assemble_with_scratch)(proof, pk, witness, abc, r, s, rest,
                                                   rest_bytes, pool, t, err);
    t->total_ns = G(now_ns)() - start;
    return st;
}

/* ---- verification ------------------------------------------------------------ */

static cuzk_status G(check_proof_points)(const G(groth16_proof) *proof, cuzk_error *err) {
    if (!G(g1_affine_on_curve)(&proof->a) || !G(g2_affine_on_curve)(&proof->b) ||
        !G(g1_affine_on_curve)(&proof->c))
        return cuzk_fail(err, CUZK_ENOTONCURVE, "proof point is not on the curve");
    if (!G(g1_affine_in_subgroup)(&proof->a) || !G(g2_affine_in_subgroup)(&proof->b) ||
        !G(g1_affine_in_subgroup)(&proof->c))
        return cuzk_fail(err, CUZK_ENOTINSUBGROUP, "proof point is not in the prime-order subgroup");
    return CUZK_OK;
}

/* vk_x = IC[0] + Σ pub_i IC[i] */
static void G(public_combination)(G1J *out, const G(groth16_vk) *vk, const FR *pub) {
    G1J acc, t;
    G(g1_from_affine)(&acc, &vk->ic[0]);
    for (size_t i = 0; i < vk->n_public; i++) {
        G(g1_from_affine)(&t, &vk->ic[i + 1]);
        G(g1_mul)(&t, &t, &pub[i]);
        G(g1_add)(&acc, &acc, &t);
    }
    *out = acc;
}

cuzk_status G(groth16_verify)(const G(groth16_vk) *vk, const FR *pub, size_t n_pub,
                              const G(groth16_proof) *proof, cuzk_error *err) {
    cuzk_status st;
    if (n_pub != vk->n_public)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "%zu public inputs given, the key expects %zu", n_pub, vk->n_public);
    if ((st = G(check_proof_points)(proof, err)) != CUZK_OK)
        return st;
    /* e(-A, B) · e(α, β) · e(vk_x, γ) · e(C, δ) == 1 */
    G1J x;
    G1A p[4];
    G2A q[4];
    G(public_combination)(&x, vk, pub);
    G(g1_affine_neg)(&p[0], &proof->a);
    q[0] = proof->b;
    p[1] = vk->alpha1;
    q[1] = vk->beta2;
    G(g1_to_affine)(&p[2], &x);
    q[2] = vk->gamma2;
    p[3] = proof->c;
    q[3] = vk->delta2;
    if (!G(pairing_product_is_one)(p, q, 4))
        return cuzk_fail(err, CUZK_EVERIFY, "proof does not verify");
    return CUZK_OK;
}

cuzk_status G(groth16_verify_batch)(const G(groth16_vk) *vk, const FR *pub,
                                    const G(groth16_proof) *proofs, size_t n,
                                    cuzk_error *err) {
    /*
     * With random 128-bit weights z_i:
     *   Π e(-z_i A_i, B_i) · e(Σz_i α, β) · e(Σ z_i vk_x_i, γ) · e(Σ z_i C_i, δ) = 1
     * holds for all-valid proofs and fails otherwise except with
     * probability about 2^-128.  n + 3 Miller loops instead of 4n.
     */
    cuzk_status st = CUZK_OK;
    if (n == 0)
        return CUZK_OK;
    G1A *p = malloc((n + 3) * sizeof *p);
    G2A *q = malloc((n + 3) * sizeof *q);
    if (!p || !q) {
        free(p), free(q);
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for batch verification");
    }
    G1J sum_x, sum_c, t;
    FR sum_z;
    G(g1_set_inf)(&sum_x);
    G(g1_set_inf)(&sum_c);
    G(fr_set_zero)(&sum_z);
    for (size_t i = 0; i < n && st == CUZK_OK; i++) {
        if ((st = G(check_proof_points)(&proofs[i], err)) != CUZK_OK)
            break;
        uint64_t zl[4] = {0};
        if (getrandom(zl, 16, 0) != 16) {
            st = cuzk_fail(err, CUZK_EIO, "getrandom failed");
            break;
        }
        FR z;
        G(fr_to_mont)(&z, zl);
        G(fr_add)(&sum_z, &sum_z, &z);
        G(public_combination)(&t, vk, pub + i * vk->n_public);
        G(g1_mul)(&t, &t, &z);
        G(g1_add)(&sum_x, &sum_x, &t);
        G(g1_from_affine)(&t, &proofs[i].c);
        G(g1_mul)(&t, &t, &z);
        G(g1_add)(&sum_c, &sum_c, &t);
        G(g1_from_affine)(&t, &proofs[i].a);
        G(g1_mul)(&t, &t, &z);
        G(g1_neg)(&t, &t);
        G(g1_to_affine)(&p[i], &t);
        q[i] = proofs[i].b;
    }
    if (st == CUZK_OK) {
        G(g1_from_affine)(&t, &vk->alpha1);
        G(g1_mul)(&t, &t, &sum_z);
        G(g1_to_affine)(&p[n], &t);
        q[n] = vk->beta2;
        G(g1_to_affine)(&p[n + 1], &sum_x);
        q[n + 1] = vk->gamma2;
        G(g1_to_affine)(&p[n + 2], &sum_c);
        q[n + 2] = vk->delta2;
        if (!G(pairing_product_is_one)(p, q, n + 3))
            st = cuzk_fail(err, CUZK_EVERIFY, "batch of %zu proofs does not verify", n);
    }
    free(p);
    free(q);
    return st;
}

cuzk_status G(groth16_vk_from_pk)(G(groth16_vk) *vk, const G(groth16_pk) *pk,
                                  cuzk_error *err) {
    vk->alpha1 = pk->alpha1;
    vk->beta2 = pk->beta2;
    vk->gamma2 = pk->gamma2;
    vk->delta2 = pk->delta2;
    vk->n_public = pk->n_public;
    vk->ic = malloc((pk->n_public + 1) * sizeof *vk->ic);
    if (!vk->ic)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for the verification key");
    memcpy(vk->ic, pk->ic, (pk->n_public + 1) * sizeof *vk->ic);
    return CUZK_OK;
}

void G(groth16_vk_free)(G(groth16_vk) *vk) {
    if (vk) {
        free(vk->ic);
        vk->ic = NULL;
    }
}

#undef FR
#undef G1J
#undef G1A
#undef G2J
#undef G2A
#undef G
