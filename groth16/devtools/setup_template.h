/*
 * The INSECURE development setup for one curve (see setup.h), stamped out
 * by setup.c with
 *   P         the curve prefix (bls12_381 or bn254)
 *   P_CURVE   its cuzk_curve id
 *   P_FR_S    the 2-adicity of its Fr
 * after the fixed-base code for P_g1 and P_g2 (setup_fb_template.h).
 *
 * Steps of P_setup_dev, in order:
 *   1. L_j(tau) for the n-point domain (one batch inversion per chunk)
 *   2. u, v, w per signal: scatter the A, B, C rows times L_j (one task per
 *      matrix), plus the extra public rows in u
 *   3. scalars of IC and C: beta u + alpha v + w, divided by delta for C
 *   4. H scalars: L^(2n)_(2i+1)(tau) / delta, in the memory of step 1
 *   5. fixed-base multiplications in G1 (A, B1, IC, C, H) and G2 (B2),
 *      A, B1 and B2 only for the wires of the density bitmaps (u and v are
 *      compacted in place first)
 *   6. the coefficient list
 * Every array of a key (points, bitmaps, coefficients) is carved from one
 * block, sized before the setup starts (key_alloc), so a caller can hand
 * it on or page-lock it whole.
 * Must not: print, or touch anything but the key being built.
 */
#include "util/paste.h"
#define S_(x) CUZK_PASTE(P, x)

#define FR S_(fr)
#define G1A S_(g1_affine)
#define G2A S_(g2_affine)

/* ---- toxic waste ---------------------------------------------------------- */

/* A scalar below r from the seeded stream (rejection on r's bit length). */
static void S_(seeded_scalar)(uint64_t *state, FR *out) {
    uint64_t mask = ~0ULL >> __builtin_clzll(S_(fr_modulus)[3]);
    for (;;) {
        uint64_t l[4];
        for (int i = 0; i < 4; i++)
            l[i] = cuzk_splitmix64(state);
        l[3] &= mask;
        if (S_(fr_from_limbs)(out, l, NULL) == CUZK_OK)
            return;
    }
}

cuzk_status S_(setup_toxic_draw)(S_(setup_toxic) *t, const uint64_t *seed,
                                 cuzk_error *err) {
    FR *v[4] = {&t->tau, &t->alpha, &t->beta, &t->delta};
    uint64_t state = seed ? *seed : 0;
    for (int i = 0; i < 4; i++)
        do {
            if (seed) {
                S_(seeded_scalar)(&state, v[i]);
            } else {
                cuzk_status st = S_(fr_random)(v[i], err);
                if (st != CUZK_OK)
                    return st;
            }
        } while (S_(fr_is_zero)(v[i]));
    return CUZK_OK;
}

/* ---- step 1 / 4: Lagrange basis at tau ------------------------------------ */

struct S_(lag_ctx) {
    FR *out;
    FR rho, rho_step, c, tau;
    uint64_t first, step;
    int failed;
};

/* out[i] = c * rho^k / (tau - rho^k), k = first + step i, for i in the
 * chunk; the denominators of a chunk share one inversion. */
static void S_(lag_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct S_(lag_ctx) *c = ctx;
    size_t cnt = end - begin;
    FR *den = malloc(cnt * sizeof *den), x0, x;
    (void)worker;
    if (!den) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    uint64_t e = c->first + c->step * (uint64_t)begin;
    S_(fr_pow)(&x0, &c->rho, &e, 1);
    x = x0;
    for (size_t i = 0; i < cnt; i++) {
        S_(fr_sub)(&den[i], &c->tau, &x);
        S_(fr_mul)(&x, &x, &c->rho_step);
    }
    S_(fr_batch_inv)(c->out + begin, den, cnt);
    x = x0;
    for (size_t i = 0; i < cnt; i++) {
        FR *o = &c->out[begin + i];
        S_(fr_mul)(o, o, &x);
        S_(fr_mul)(o, o, &c->c);
        S_(fr_mul)(&x, &x, &c->rho_step);
    }
    free(den);
}

cuzk_status S_(setup_lagrange)(FR *out, size_t count, unsigned log_N, uint64_t first,
                               uint64_t step, const FR *tau, const FR *scale,
                               cuzk_pool *pool, cuzk_error *err) {
    struct S_(lag_ctx) c = {.out = out, .tau = *tau, .first = first, .step = step};
    FR t, one, nN;
    if (S_(fr_root_of_unity)(&c.rho, log_N) != CUZK_OK)
        return cuzk_fail(err, CUZK_ERANGE, "setup: domain 2^%u exceeds the 2-adicity", log_N);
    S_(fr_pow)(&c.rho_step, &c.rho, &step, 1);
    /* c = scale (tau^N - 1) / N; tau^N = 1 means tau is a domain point. */
    uint64_t N = 1ULL << log_N;
    S_(fr_pow)(&t, tau, &N, 1);
    S_(fr_set_one)(&one);
    S_(fr_sub)(&t, &t, &one);
    if (S_(fr_is_zero)(&t))
        return cuzk_fail(err, CUZK_EINVAL, "setup: tau lies in the 2^%u-point domain", log_N);
    S_(fr_set_u64)(&nN, N);
    S_(fr_inv)(&nN, &nN);
    S_(fr_mul)(&c.c, &t, &nN);
    S_(fr_mul)(&c.c, &c.c, scale);
    cuzk_pool_for(pool, count, 4096, S_(lag_range), &c);
    if (c.failed)
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for Lagrange denominators");
    return CUZK_OK;
}

/* ---- fixed-base products of the generators, for tests -------------------- */

cuzk_status S_(setup_g1_mul_gen)(G1A *out, const FR *k, size_t n, unsigned w,
                                 cuzk_pool *pool, cuzk_error *err) {
    return S_(g1_fb_mul_gen)(out, k, n, w, pool, err);
}

cuzk_status S_(setup_g2_mul_gen)(G2A *out, const FR *k, size_t n, unsigned w,
                                 cuzk_pool *pool, cuzk_error *err) {
    return S_(g2_fb_mul_gen)(out, k, n, w, pool, err);
}

/* ---- step 2: QAP polynomials at tau --------------------------------------- */

struct S_(qap_ctx) {
    const cuzk_r1cs *r;
    const FR *L;
    FR *dst[3]; /* u, v, w */
};

/* Matrices [begin, end) of (A, B, C): dst[s] += coef * L_j per term. */
static void S_(qap_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct S_(qap_ctx) *c = ctx;
    const cuzk_r1cs_matrix *mats[3] = {&c->r->a, &c->r->b, &c->r->c};
    (void)worker;
    for (size_t m = begin; m < end; m++) {
        const cuzk_r1cs_matrix *x = mats[m];
        FR *d = c->dst[m];
        for (uint32_t j = 0; j < c->r->n_constraints; j++)
            for (uint64_t k = x->row_ptr[j]; k < x->row_ptr[j + 1]; k++) {
                FR t;
                S_(fr_mul)(&t, &x->coef[k].P, &c->L[j]);
                S_(fr_add)(&d[x->col[k]], &d[x->col[k]], &t);
            }
    }
}

/* ---- step 3: IC and C scalars --------------------------------------------- */

struct S_(k_ctx) {
    const FR *u, *v;
    FR *w; /* in: w_s; out: the IC / C scalar */
    FR alpha, beta, delta_inv;
    uint32_t n_public;
};

static void S_(k_range)(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct S_(k_ctx) *c = ctx;
    (void)worker;
    for (size_t s = begin; s < end; s++) {
        FR t;
        S_(fr_mul)(&t, &c->beta, &c->u[s]);
        S_(fr_add)(&c->w[s], &c->w[s], &t);
        S_(fr_mul)(&t, &c->alpha, &c->v[s]);
        S_(fr_add)(&c->w[s], &c->w[s], &t);
        if (s > c->n_public)
            S_(fr_mul)(&c->w[s], &c->w[s], &c->delta_inv);
    }
}

/* ---- step 6: coefficients -------------------------------------------------- */

static void S_(make_coefs)(cuzk_coef *out, const cuzk_r1cs *r, uint32_t n_public) {
    size_t n = 0;
    const cuzk_r1cs_matrix *ab[2] = {&r->a, &r->b};
    for (uint32_t j = 0; j < r->n_constraints; j++)
        for (uint32_t m = 0; m < 2; m++)
            for (uint64_t k = ab[m]->row_ptr[j]; k < ab[m]->row_ptr[j + 1]; k++) {
                cuzk_coef *e = &out[n++];
                e->matrix = m;
                e->row = j;
                e->signal = ab[m]->col[k];
                e->reserved = 0;
                e->value = ab[m]->coef[k];
            }
    FR one;
    S_(fr_set_one)(&one);
    for (uint32_t i = 0; i <= n_public; i++) {
        cuzk_coef *e = &out[n++];
        e->matrix = 0;
        e->row = r->n_constraints + i;
        e->signal = i;
        e->reserved = 0;
        e->value.P = one;
    }
}

/* ---- the key ---------------------------------------------------------------- */

void S_(dev_key_free)(S_(dev_key) *key) {
    if (!key)
        return;
    free(key->mem);
    memset(key, 0, sizeof *key);
}

static size_t S_(align64)(size_t x) { return (x + 63) & ~(size_t)63; }

/* Set the bit of every wire a coefficient of |m| names, and of wires
 * 0 .. n_first-1; returns the bits set. */
static size_t S_(mark)(uint64_t *bits, size_t n_vars, const cuzk_r1cs_matrix *m,
                       uint32_t n_first) {
    for (uint32_t i = 0; i < n_first && i < n_vars; i++)
        bits[i / 64] |= 1ULL << (i % 64);
    for (uint64_t k = 0; k < m->nnz; k++)
        if (m->col[k] < n_vars)
            bits[m->col[k] / 64] |= 1ULL << (m->col[k] % 64);
    size_t n = 0;
    for (size_t w = 0; w < (n_vars + 63) / 64; w++)
        n += (size_t)__builtin_popcountll(bits[w]);
    return n;
}

/* The key's one block for |r| (domain 2^log_n, n_coefs coefficients): the
 * density bitmaps (from the r1cs; none where every wire is in), then every
 * array.  Sets key's pointers and pk's n_a, n_b. */
static cuzk_status S_(key_alloc)(S_(dev_key) *key, const cuzk_r1cs *r, unsigned log_n,
                                 size_t n_coefs, cuzk_error *err) {
    size_t n = (size_t)1 << log_n, nv = r->n_wires, words = (nv + 63) / 64;
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    size_t n_priv = nv - n_pub - 1;
    uint64_t *bits = calloc(2 * words + 1, sizeof *bits);
    if (!bits)
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for the density bitmaps");
    size_t n_a = S_(mark)(bits, nv, &r->a, n_pub + 1);
    size_t n_b = S_(mark)(bits + words, nv, &r->b, 0);
    int da = n_a < nv, db = n_b < nv;
    size_t bytes[9] = {(n_pub + 1) * sizeof(G1A), n_a * sizeof(G1A), n_b * sizeof(G1A),
                       n_b * sizeof(G2A), n_priv * sizeof(G1A), n * sizeof(G1A),
                       n_coefs * sizeof(cuzk_coef), da ? words * 8 : 0, db ? words * 8 : 0};
    size_t total = 0, off[9];
    for (int i = 0; i < 9; i++)
        off[i] = total, total += S_(align64)(bytes[i]);
    if (posix_memalign(&key->mem, 64, total ? total : 64) != 0) {
        key->mem = NULL;
        free(bits);
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for the key (%zu bytes)", total);
    }
    char *m = key->mem;
    key->mem_bytes = total;
    key->ic = (G1A *)(m + off[0]), key->a = (G1A *)(m + off[1]), key->b1 = (G1A *)(m + off[2]);
    key->b2 = (G2A *)(m + off[3]), key->c = (G1A *)(m + off[4]), key->h = (G1A *)(m + off[5]);
    key->coefs = (cuzk_coef *)(m + off[6]);
    key->a_density = da ? (uint64_t *)(m + off[7]) : NULL;
    key->b_density = db ? (uint64_t *)(m + off[8]) : NULL;
    if (da)
        memcpy(key->a_density, bits, words * 8);
    if (db)
        memcpy(key->b_density, bits + words, words * 8);
    free(bits);
    key->pk.n_a = (uint32_t)n_a;
    key->pk.n_b = (uint32_t)n_b;
    return CUZK_OK;
}

/* x[k] = x[s] for the k-th set bit s of |bits| (nothing without a bitmap). */
static void S_(compact)(FR *x, const uint64_t *bits, size_t n_vars) {
    if (!bits)
        return;
    size_t k = 0;
    for (size_t s = 0; s < n_vars; s++)
        if (bits[s / 64] >> (s % 64) & 1)
            x[k++] = x[s];
}

/* Point and scalar arrays of a setup in progress. */
typedef struct S_(setup_work) {
    FR *L, *u, *v, *w;
    S_(g1_fb) g1;
    S_(g2_fb) g2;
} S_(setup_work);

static void S_(work_free)(S_(setup_work) *wk) {
    free(wk->L), free(wk->u), free(wk->v), free(wk->w);
    S_(g1_fb_free)(&wk->g1);
    S_(g2_fb_free)(&wk->g2);
}

static cuzk_status S_(check_input)(const cuzk_r1cs *r, const S_(setup_toxic) *t,
                                   unsigned *log_n, cuzk_error *err) {
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    if (r->curve != P_CURVE)
        return cuzk_fail(err, CUZK_ECURVE, "setup: the r1cs is for %s, not %s",
                         cuzk_curve_snarkjs_name(r->curve), cuzk_curve_snarkjs_name(P_CURVE));
    if (r->n_wires <= n_pub)
        return cuzk_fail(err, CUZK_EINVAL, "setup: %u wires cannot hold %u public signals and 1",
                         r->n_wires, n_pub);
    if (S_(fr_is_zero)(&t->alpha) || S_(fr_is_zero)(&t->beta) || S_(fr_is_zero)(&t->delta))
        return cuzk_fail(err, CUZK_EINVAL, "setup: alpha, beta and delta must be non-zero");
    uint64_t rows = (uint64_t)r->n_constraints + n_pub + 1;
    unsigned k = 0;
    while ((1ULL << k) < rows)
        k++;
    /* H needs the 2n-th root w_2n, as snarkjs does below the maximal size. */
    if (k + 1 > P_FR_S)
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "setup: domain 2^%u is too large for %s", k,
                         cuzk_curve_snarkjs_name(P_CURVE));
    if (r->a.nnz + r->b.nnz + n_pub + 1 > UINT32_MAX)
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "setup: too many coefficients for a zkey");
    *log_n = k;
    return CUZK_OK;
}

static void *S_(alloc)(size_t n, size_t size, int *failed) {
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *failed = 1;
    return p;
}

/* Steps 1 - 4: scalars into wk (u: A, v: B, w: IC and C, L: H). */
static cuzk_status S_(scalars)(S_(setup_work) *wk, const cuzk_r1cs *r,
                               const S_(setup_toxic) *t, unsigned log_n,
                               cuzk_pool *pool, cuzk_error *err) {
    size_t n = (size_t)1 << log_n, n_vars = r->n_wires;
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    int failed = 0;
    FR one, delta_inv;
    wk->L = S_(alloc)(n, sizeof(FR), &failed);
    wk->u = S_(alloc)(n_vars, sizeof(FR), &failed);
    wk->v = S_(alloc)(n_vars, sizeof(FR), &failed);
    wk->w = S_(alloc)(n_vars, sizeof(FR), &failed);
    if (failed)
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for %zu scalars", n + 3 * n_vars);
    S_(fr_set_one)(&one);
    cuzk_status st = S_(setup_lagrange)(wk->L, n, log_n, 0, 1, &t->tau, &one, pool, err);
    if (st != CUZK_OK)
        return st;
    struct S_(qap_ctx) qc = {r, wk->L, {wk->u, wk->v, wk->w}};
    cuzk_pool_for(pool, 3, 1, S_(qap_range), &qc);
    for (uint32_t i = 0; i <= n_pub; i++)
        S_(fr_add)(&wk->u[i], &wk->u[i], &wk->L[r->n_constraints + i]);
    S_(fr_inv)(&delta_inv, &t->delta);
    struct S_(k_ctx) kc = {wk->u, wk->v, wk->w, t->alpha, t->beta, delta_inv, n_pub};
    cuzk_pool_for(pool, n_vars, 4096, S_(k_range), &kc);
    return S_(setup_lagrange)(wk->L, n, log_n + 1, 1, 2, &t->tau, &delta_inv, pool, err);
}

/* Step 5: every point of the key. */
static cuzk_status S_(points)(S_(dev_key) *key, S_(setup_work) *wk, const cuzk_r1cs *r,
                              const S_(setup_toxic) *t, unsigned log_n, cuzk_pool *pool,
                              cuzk_error *err) {
    size_t n = (size_t)1 << log_n, n_vars = r->n_wires;
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    size_t n_priv = n_vars - n_pub - 1, n_a = key->pk.n_a, n_b = key->pk.n_b;
    /* IC and C took what they need of u and v (step 3): compact them */
    S_(compact)(wk->u, key->a_density, n_vars);
    S_(compact)(wk->v, key->b_density, n_vars);
    cuzk_status st = S_(g1_fb_build)(&wk->g1, n_a + n_b + n_vars + n, 0, pool, err);
    if (st == CUZK_OK)
        st = S_(g2_fb_build)(&wk->g2, n_b, 0, pool, err);
    if (st != CUZK_OK)
        return st;
    FR k1[3] = {t->alpha, t->beta, t->delta}, k2[2] = {t->beta, t->delta};
    G1A p1[3];
    G2A p2[2];
    int ok = S_(g1_fb_mul_many)(&wk->g1, key->a, wk->u, n_a, pool) &&
             S_(g1_fb_mul_many)(&wk->g1, key->b1, wk->v, n_b, pool) &&
             S_(g2_fb_mul_many)(&wk->g2, key->b2, wk->v, n_b, pool) &&
             S_(g1_fb_mul_many)(&wk->g1, key->ic, wk->w, n_pub + 1, pool) &&
             S_(g1_fb_mul_many)(&wk->g1, key->c, wk->w + n_pub + 1, n_priv, pool) &&
             S_(g1_fb_mul_many)(&wk->g1, key->h, wk->L, n, pool) &&
             S_(g1_fb_mul_many)(&wk->g1, p1, k1, 3, NULL) &&
             S_(g2_fb_mul_many)(&wk->g2, p2, k2, 2, NULL);
    if (!ok)
        return cuzk_fail(err, CUZK_ENOMEM, "setup: no memory for scalar multiplication");
    key->pk.alpha1 = p1[0], key->pk.beta1 = p1[1], key->pk.delta1 = p1[2];
    key->pk.beta2 = p2[0], key->pk.delta2 = p2[1];
    S_(g2_generator)(&key->pk.gamma2);
    return CUZK_OK;
}

/* Point the prover's view of |key| at its arrays. */
static void S_(pk_view)(S_(dev_key) *key, const cuzk_r1cs *r, unsigned log_n, size_t n_coefs) {
    S_(groth16_pk) *pk = &key->pk;
    pk->n_vars = r->n_wires;
    pk->n_public = cuzk_r1cs_n_public(r);
    pk->log_n = log_n;
    pk->ic = key->ic, pk->a = key->a, pk->b1 = key->b1, pk->b2 = key->b2;
    pk->a_density = key->a_density, pk->b_density = key->b_density;
    pk->c = key->c, pk->h = key->h;
    pk->coefs = key->coefs;
    pk->n_coefs = n_coefs;
}

cuzk_status S_(setup_dev)(S_(dev_key) *key, const cuzk_r1cs *r, const S_(setup_toxic) *t,
                          cuzk_pool *pool, cuzk_error *err) {
    unsigned log_n = 0;
    S_(setup_work) wk;
    memset(key, 0, sizeof *key);
    memset(&wk, 0, sizeof wk);
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    cuzk_status st = S_(check_input)(r, t, &log_n, err);
    size_t n_coefs = st == CUZK_OK ? r->a.nnz + r->b.nnz + n_pub + 1 : 0;
    if (st == CUZK_OK)
        st = S_(key_alloc)(key, r, log_n, n_coefs, err);
    if (st == CUZK_OK)
        st = S_(scalars)(&wk, r, t, log_n, pool, err);
    if (st == CUZK_OK)
        st = S_(points)(key, &wk, r, t, log_n, pool, err);
    S_(work_free)(&wk);
    if (st != CUZK_OK) {
        S_(dev_key_free)(key);
        return st;
    }
    S_(make_coefs)(key->coefs, r, n_pub);
    S_(pk_view)(key, r, log_n, n_coefs);
    return CUZK_OK;
}

/* A key with the shape of |r|'s real key (sizes, density bitmaps,
 * coefficient list) whose points are 4096 random points repeated: proofs
 * made with it are NOT valid.  For timing the prover at sizes where a real
 * setup would take minutes; the MSMs do the same work for any points.  One
 * block like every key here, so a benchmark can page-lock it in place. */
cuzk_status S_(setup_timing)(S_(dev_key) *key, const cuzk_r1cs *r, uint64_t seed,
                             cuzk_pool *pool, cuzk_error *err) {
    enum { DISTINCT = 4096 };
    unsigned log_n = 0;
    S_(setup_toxic) t;
    memset(key, 0, sizeof *key);
    cuzk_status st = S_(setup_toxic_draw)(&t, &seed, err);
    if (st == CUZK_OK)
        st = S_(check_input)(r, &t, &log_n, err);
    if (st != CUZK_OK)
        return st;
    size_t n = (size_t)1 << log_n, n_vars = r->n_wires;
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    size_t n_priv = n_vars - n_pub - 1;
    size_t n_coefs = r->a.nnz + r->b.nnz + n_pub + 1;
    if ((st = S_(key_alloc)(key, r, log_n, n_coefs, err)) != CUZK_OK)
        return st;
    size_t n_a = key->pk.n_a, n_b = key->pk.n_b;
    int failed = 0;
    FR *k = S_(alloc)(DISTINCT, sizeof(FR), &failed);
    G1A *p1 = S_(alloc)(DISTINCT, sizeof(G1A), &failed);
    G2A *p2 = S_(alloc)(DISTINCT, sizeof(G2A), &failed);
    if (failed)
        st = cuzk_fail(err, CUZK_ENOMEM, "timing key: out of memory");
    uint64_t x = seed;
    for (size_t i = 0; st == CUZK_OK && i < DISTINCT; i++) {
        uint64_t l[4];
        for (int j = 0; j < 4; j++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            l[j] = x;
        }
        l[3] >>= 8; /* below r */
        S_(fr_from_limbs)(&k[i], l, NULL);
    }
    if (st == CUZK_OK)
        st = S_(setup_g1_mul_gen)(p1, k, DISTINCT, 0, pool, err);
    if (st == CUZK_OK)
        st = S_(setup_g2_mul_gen)(p2, k, DISTINCT, 0, pool, err);
    if (st == CUZK_OK) {
        for (size_t i = 0; i < n_a; i++)
            key->a[i] = p1[i % DISTINCT];
        for (size_t i = 0; i < n_b; i++) {
            key->b1[i] = p1[(i + 1) % DISTINCT];
            key->b2[i] = p2[i % DISTINCT];
        }
        for (size_t i = 0; i <= n_pub; i++)
            key->ic[i] = p1[(i + 2) % DISTINCT];
        for (size_t i = 0; i < n_priv; i++)
            key->c[i] = p1[(i + 3) % DISTINCT];
        for (size_t i = 0; i < n; i++)
            key->h[i] = p1[(i + 4) % DISTINCT];
        S_(make_coefs)(key->coefs, r, n_pub);
        S_(groth16_pk) *pk = &key->pk;
        pk->alpha1 = p1[0], pk->beta1 = p1[1], pk->delta1 = p1[2];
        pk->beta2 = p2[0], pk->delta2 = p2[1];
        S_(g2_generator)(&pk->gamma2);
        S_(pk_view)(key, r, log_n, n_coefs);
    }
    free(k);
    free(p1);
    free(p2);
    if (st != CUZK_OK)
        S_(dev_key_free)(key);
    return st;
}

/* ---- serialization ---------------------------------------------------------- */

static cuzk_zkey_points S_(view)(const void *pts, uint64_t count, int g2) {
    cuzk_zkey_points v;
    v.data = pts;
    v.count = count;
    v.g2 = g2;
    v.density = NULL;
    v.elem_bytes = g2 ? cuzk_curve_g2_bytes(P_CURVE) : cuzk_curve_g1_bytes(P_CURVE);
    return v;
}

/* The writer's view of |key| (points are written from the key's arrays:
 * affine structs have the zkey byte image). */
static void S_(to_zkey)(const S_(dev_key) *key, cuzk_zkey *z) {
    const S_(groth16_pk) *pk = &key->pk;
    _Static_assert(sizeof(G1A) == 2 * sizeof(S_(fp)) && sizeof(G2A) == 4 * sizeof(S_(fp)),
                   "affine points must have the zkey byte image");
    memset(z, 0, sizeof *z);
    z->curve = P_CURVE;
    z->n_vars = pk->n_vars;
    z->n_public = pk->n_public;
    z->domain_size = 1u << pk->log_n;
    z->log_domain_size = pk->log_n;
    z->vk.P.alpha1 = pk->alpha1, z->vk.P.beta1 = pk->beta1, z->vk.P.delta1 = pk->delta1;
    z->vk.P.beta2 = pk->beta2, z->vk.P.gamma2 = pk->gamma2, z->vk.P.delta2 = pk->delta2;
    z->ic = S_(view)(pk->ic, pk->n_public + 1, 0);
    z->a = S_(view)(pk->a, pk->n_vars, 0);
    z->b1 = S_(view)(pk->b1, pk->n_vars, 0);
    z->b2 = S_(view)(pk->b2, pk->n_vars, 1);
    /* compact arrays are expanded by the writer, infinity where no bit */
    z->a.density = pk->a_density;
    z->b1.density = z->b2.density = pk->b_density;
    z->c = S_(view)(pk->c, pk->n_vars - pk->n_public - 1, 0);
    z->h = S_(view)(pk->h, z->domain_size, 0);
    z->n_coefs = (uint32_t)pk->n_coefs;
}

cuzk_status S_(dev_key_write_mem)(const S_(dev_key) *key, uint8_t **out, size_t *size,
                                  cuzk_error *err) {
    cuzk_zkey z;
    S_(to_zkey)(key, &z);
    return cuzk_zkey_write_mem(&z, key->coefs, z.n_coefs, out, size, err);
}

cuzk_status S_(dev_key_write_file)(const S_(dev_key) *key, const char *path,
                                   cuzk_error *err) {
    cuzk_zkey z;
    S_(to_zkey)(key, &z);
    return cuzk_zkey_write_file(&z, key->coefs, z.n_coefs, path, err);
}

/* For the curve-generic entry points: setup with fresh toxic waste, then
 * either a buffer (|path| NULL) or a file. */
static cuzk_status S_(setup_and_write)(const cuzk_r1cs *r, const uint64_t *seed,
                                       cuzk_pool *pool, const char *path, uint8_t **out,
                                       size_t *size, cuzk_error *err) {
    S_(setup_toxic) t;
    S_(dev_key) key;
    cuzk_status st = S_(setup_toxic_draw)(&t, seed, err);
    if (st != CUZK_OK)
        return st;
    st = S_(setup_dev)(&key, r, &t, pool, err);
    memset(&t, 0, sizeof t); /* forget the toxic waste as soon as possible */
    if (st != CUZK_OK)
        return st;
    st = path ? S_(dev_key_write_file)(&key, path, err)
              : S_(dev_key_write_mem)(&key, out, size, err);
    S_(dev_key_free)(&key);
    return st;
}

#undef FR
#undef G1A
#undef G2A
#undef S_
