/*
 * NTT over Fr of both curves.
 *
 * - The domain root is ffjavascript's: w_n = 5^((r-1)/n), recomputed here
 *   from the modulus, and it has order exactly n.
 * - forward / inverse / coset forward / coset inverse against the O(n^2)
 *   definitions (Horner evaluation at w^i resp. g w^i) at n = 2^0..2^8.
 * - Round trips at every size up to 2^16 (2^18 with CUZK_TEST_ITERS >= 4)
 *   with serial, 2- and 3-thread pools (the thread count changes the block
 *   decomposition, so different code paths run), results identical across
 *   pools, and spot checks of single outputs of the large transforms by
 *   direct evaluation.
 * - to_coset (inverse then coset forward in one call, no permutation)
 *   against the definition at n = 2^0..2^8 and against the two calls at
 *   every size from 2^1 to 2^16 and at 2^18 and 2^20 (the sizes above
 *   2^12 once, with the snarkjs shift; Debug and sanitizer builds stop
 *   at 2^14).
 * - Linearity and the convolution theorem (against schoolbook products).
 * - Domain creation rejects sizes beyond the two-adicity.
 *
 * The tests are curve-generic (a table of the curve's functions, ntt_ops);
 * the table of each curve is filled by the template at the end of the file,
 * included once per curve (TEST_CURVE, tests/testutil.h).
 */
#ifndef TEST_CURVE

#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "groth16/curve_id.h"
#include "ntt/ntt.h"
#include "testutil.h"
#include "util/threadpool.h"

/* Both scalar fields have 4 limbs; the test sees them through one type. */
typedef struct {
    uint64_t l[4];
} fe;

typedef struct {
    const char *name;
    const uint64_t *p;
    unsigned adicity;
    void (*add)(fe *, const fe *, const fe *);
    void (*sub)(fe *, const fe *, const fe *);
    void (*mul)(fe *, const fe *, const fe *);
    void (*pow)(fe *, const fe *, const uint64_t *, size_t);
    void (*inv)(fe *, const fe *);
    void (*set_u64)(fe *, uint64_t);
    int (*eq)(const fe *, const fe *);
    cuzk_status (*root)(fe *, unsigned);
    cuzk_status (*create)(void **, unsigned, cuzk_error *);
    void (*destroy)(void *);
    unsigned (*log_n)(const void *);
    void (*omega)(fe *, const void *);
    void (*fwd)(const void *, fe *, cuzk_pool *);
    void (*inverse)(const void *, fe *, cuzk_pool *);
    void (*cfwd)(const void *, fe *, const fe *, cuzk_pool *);
    void (*cinv)(const void *, fe *, const fe *, cuzk_pool *);
    void (*to_coset)(const void *, fe *, const fe *, cuzk_pool *);
} ntt_ops;

static cuzk_pool *pools[3]; /* serial (NULL), 2 threads, 3 threads */

static void rand_fe(const ntt_ops *f, fe *x) { tu_rand_below(x->l, f->p, 4); }

static void rand_vec(const ntt_ops *f, fe *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        rand_fe(f, &v[i]);
}

static int vec_eq(const ntt_ops *f, const fe *a, const fe *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!f->eq(&a[i], &b[i]))
            return 0;
    return 1;
}

static void pow_u64(const ntt_ops *f, fe *r, const fe *a, uint64_t e) {
    f->pow(r, a, &e, 1);
}

/* sum_k a[k] x^k by Horner. */
static void eval_poly(const ntt_ops *f, fe *r, const fe *a, size_t n,
                      const fe *x) {
    fe acc = {{0}};
    for (size_t k = n; k-- > 0;) {
        f->mul(&acc, &acc, x);
        f->add(&acc, &acc, &a[k]);
    }
    *r = acc;
}

/* out[i] = c * sum_k a[k] (g x^i)^k, the O(n^2) definition. */
static void naive_dft(const ntt_ops *f, fe *out, const fe *a, size_t n,
                      const fe *x, const fe *g, const fe *c) {
    fe pt = *g;
    for (size_t i = 0; i < n; i++) {
        eval_poly(f, &out[i], a, n, &pt);
        f->mul(&out[i], &out[i], c);
        f->mul(&pt, &pt, x);
    }
}

/* w_n = 5^((r-1)/n): exponent (r-1) >> log_n, since 2^adicity | r-1. */
static void test_root_convention(const ntt_ops *f) {
    for (unsigned log_n = 0; log_n <= f->adicity; log_n++) {
        uint64_t e[4];
        memcpy(e, f->p, sizeof e);
        e[0] -= 1; /* r is odd */
        for (unsigned s = 0; s < log_n; s++)
            for (int i = 0; i < 4; i++)
                e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);
        fe five, want, got, one, t;
        f->set_u64(&five, 5);
        f->set_u64(&one, 1);
        f->pow(&want, &five, e, 4);
        CHECK(f->root(&got, log_n) == CUZK_OK, "%s root(%u)", f->name, log_n);
        CHECK(f->eq(&got, &want), "%s: w_2^%u is not 5^((r-1)/n)", f->name,
              log_n);
        /* order exactly 2^log_n: w^(n/2) = -1 (for n >= 2), w^n = 1 */
        t = got;
        for (unsigned s = 0; s + 1 < log_n; s++)
            f->mul(&t, &t, &t);
        if (log_n >= 1) {
            fe m1;
            f->sub(&m1, &(fe){{0}}, &one);
            CHECK(f->eq(&t, &m1), "%s: w_2^%u^(n/2) != -1", f->name, log_n);
            f->mul(&t, &t, &t);
        }
        CHECK(f->eq(&t, &one), "%s: w_2^%u^n != 1", f->name, log_n);
    }
}

static void test_small_sizes(const ntt_ops *f) {
    for (unsigned log_n = 0; log_n <= 8; log_n++) {
        size_t n = (size_t)1 << log_n;
        void *d;
        cuzk_error err;
        CHECK(f->create(&d, log_n, &err) == CUZK_OK, "%s create %u: %s",
              f->name, log_n, err.msg);
        CHECK(f->log_n(d) == log_n, "%s log_n", f->name);
        fe *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
           *want = malloc(n * sizeof *want);
        fe w, w_inv, one, n_inv, g, g_inv, gc;
        f->omega(&w, d);
        fe root;
        f->root(&root, log_n);
        CHECK(f->eq(&w, &root), "%s domain omega", f->name);
        f->inv(&w_inv, &w);
        f->set_u64(&one, 1);
        f->set_u64(&n_inv, n);
        f->inv(&n_inv, &n_inv);
        for (unsigned rep = 0; rep < 2; rep++) {
            cuzk_pool *pool = pools[rep + log_n % 2];
            /* g: the snarkjs shift w_2n first, then a random one */
            if (rep == 0)
                f->root(&g, log_n + 1);
            else
                do
                    rand_fe(f, &g);
                while (f->eq(&g, &(fe){{0}}));
            f->inv(&g_inv, &g);
            rand_vec(f, a, n);

            naive_dft(f, want, a, n, &w, &one, &one);
            memcpy(b, a, n * sizeof *a);
            f->fwd(d, b, pool);
            CHECK(vec_eq(f, b, want, n), "%s forward 2^%u", f->name, log_n);

            naive_dft(f, want, a, n, &w_inv, &one, &n_inv);
            memcpy(b, a, n * sizeof *a);
            f->inverse(d, b, pool);
            CHECK(vec_eq(f, b, want, n), "%s inverse 2^%u", f->name, log_n);

            naive_dft(f, want, a, n, &w, &g, &one);
            memcpy(b, a, n * sizeof *a);
            f->cfwd(d, b, &g, pool);
            CHECK(vec_eq(f, b, want, n), "%s coset forward 2^%u", f->name,
                  log_n);

            /* to_coset: the values on H (want = forward(a)) to those on
             * gH, against the definition */
            naive_dft(f, want, a, n, &w, &one, &one);
            memcpy(b, want, n * sizeof *a);
            f->to_coset(d, b, &g, pool);
            naive_dft(f, want, a, n, &w, &g, &one);
            CHECK(vec_eq(f, b, want, n), "%s to_coset 2^%u", f->name, log_n);

            /* coset inverse of the evaluations at g w^i gives back a; and
             * directly: a[k] = g^-k / n sum_i v[i] w^-ik */
            f->cinv(d, b, &g, pool);
            CHECK(vec_eq(f, b, a, n), "%s coset inverse 2^%u", f->name, log_n);
            naive_dft(f, b, want, n, &w_inv, &one, &n_inv);
            gc = one;
            for (size_t k = 0; k < n; k++) {
                f->mul(&b[k], &b[k], &gc);
                f->mul(&gc, &gc, &g_inv);
            }
            CHECK(vec_eq(f, b, a, n), "%s naive coset inverse 2^%u", f->name,
                  log_n);
        }
        free(a);
        free(b);
        free(want);
        f->destroy(d);
    }
}

/* A domain of 2^log_n, or NULL after a failed check. */
static void *domain(const ntt_ops *f, unsigned log_n) {
    void *d;
    cuzk_error err;
    if (f->create(&d, log_n, &err) == CUZK_OK)
        return d;
    CHECK(0, "%s create 2^%u: %s", f->name, log_n, err.msg);
    return NULL;
}

/* Round trips and cross-pool agreement; spot checks by evaluation. */
static void test_round_trips(const ntt_ops *f, unsigned max_log) {
    for (unsigned log_n = 1; log_n <= max_log; log_n++) {
        size_t n = (size_t)1 << log_n;
        void *d = domain(f, log_n);
        if (!d)
            continue;
        fe *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
           *c = malloc(n * sizeof *c);
        fe g, w, x, y;
        f->root(&g, log_n + 1);
        f->omega(&w, d);
        rand_vec(f, a, n);
        memcpy(b, a, n * sizeof *a);
        f->fwd(d, b, pools[0]);
        for (int k = 0; k < 3; k++) {
            size_t i = k == 0 ? n - 1 : tu_rand64() % n;
            pow_u64(f, &x, &w, i);
            eval_poly(f, &y, a, n, &x);
            CHECK(f->eq(&y, &b[i]), "%s forward 2^%u output %zu", f->name,
                  log_n, i);
        }
        for (int p = 1; p < 3; p++) {
            memcpy(c, a, n * sizeof *a);
            f->fwd(d, c, pools[p]);
            CHECK(vec_eq(f, b, c, n), "%s forward 2^%u differs with %u threads",
                  f->name, log_n, cuzk_pool_threads(pools[p]));
        }
        cuzk_pool *pool = pools[log_n % 3];
        f->inverse(d, b, pool);
        CHECK(vec_eq(f, a, b, n), "%s inverse(forward) 2^%u", f->name, log_n);
        f->cfwd(d, b, &g, pools[(log_n + 1) % 3]);
        pow_u64(f, &x, &w, n / 3);
        f->mul(&x, &x, &g);
        eval_poly(f, &y, a, n, &x);
        CHECK(f->eq(&y, &b[n / 3]), "%s coset forward 2^%u output %zu",
              f->name, log_n, n / 3);
        f->cinv(d, b, &g, pool);
        CHECK(vec_eq(f, a, b, n), "%s coset round trip 2^%u", f->name, log_n);
        free(a);
        free(b);
        free(c);
        f->destroy(d);
    }
}

/* to_coset = inverse then coset_forward, with the snarkjs shift and a
 * random one: every size 2^1..2^16 (on every pool up to 2^12, where the
 * block and pass structure changes with the thread count), then 2^18 and
 * 2^max_log (few large sizes: the suite runs on 2 cores). */
static void test_to_coset(const ntt_ops *f, unsigned max_log) {
    for (unsigned log_n = 1; log_n <= max_log; log_n += log_n < 16 ? 1 : 2) {
        if (log_n > 18 && log_n < max_log)
            continue;
        size_t n = (size_t)1 << log_n;
        void *d = domain(f, log_n);
        if (!d)
            continue;
        fe *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        fe g;
        int big = log_n > 12, reps = big ? 1 : 3;
        for (int rep = 0; rep < reps; rep++) {
            cuzk_pool *pool = big ? pools[1 + log_n % 2] : pools[rep];
            if (rep == 1)
                do
                    rand_fe(f, &g);
                while (f->eq(&g, &(fe){{0}}));
            else
                f->root(&g, log_n + 1);
            rand_vec(f, a, n);
            memcpy(b, a, n * sizeof *a);
            f->inverse(d, a, pools[1]);
            f->cfwd(d, a, &g, pools[1]);
            f->to_coset(d, b, &g, pool);
            CHECK(vec_eq(f, a, b, n), "%s to_coset 2^%u (%u threads)", f->name, log_n,
                  cuzk_pool_threads(pool));
        }
        free(a);
        free(b);
        f->destroy(d);
    }
}

/* NTT(s a + b) = s NTT(a) + NTT(b). */
static void test_linearity(const ntt_ops *f, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    void *d;
    f->create(&d, log_n, NULL);
    fe *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
       *m = malloc(n * sizeof *m), s;
    rand_vec(f, a, n);
    rand_vec(f, b, n);
    rand_fe(f, &s);
    for (size_t i = 0; i < n; i++) {
        f->mul(&m[i], &a[i], &s);
        f->add(&m[i], &m[i], &b[i]);
    }
    f->fwd(d, a, pools[1]);
    f->fwd(d, b, pools[1]);
    f->fwd(d, m, pools[1]);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        fe t;
        f->mul(&t, &a[i], &s);
        f->add(&t, &t, &b[i]);
        ok &= f->eq(&t, &m[i]);
    }
    CHECK(ok, "%s linearity 2^%u", f->name, log_n);
    free(a);
    free(b);
    free(m);
    f->destroy(d);
}

/* inverse(forward(a) * forward(b)) = a * b for deg a + deg b < n. */
static void test_convolution(const ntt_ops *f, unsigned log_n) {
    size_t n = (size_t)1 << log_n, half = n / 2;
    void *d;
    f->create(&d, log_n, NULL);
    fe *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b),
       *want = calloc(n, sizeof *want);
    rand_vec(f, a, half);
    rand_vec(f, b, half);
    for (size_t i = 0; i < half; i++)
        for (size_t j = 0; j < half; j++) {
            fe t;
            f->mul(&t, &a[i], &b[j]);
            f->add(&want[i + j], &want[i + j], &t);
        }
    f->fwd(d, a, pools[2]);
    f->fwd(d, b, pools[0]);
    for (size_t i = 0; i < n; i++)
        f->mul(&a[i], &a[i], &b[i]);
    f->inverse(d, a, pools[1]);
    CHECK(vec_eq(f, a, want, n), "%s convolution 2^%u", f->name, log_n);
    free(a);
    free(b);
    free(want);
    f->destroy(d);
}

static void test_create_errors(const ntt_ops *f) {
    void *d = (void *)1;
    cuzk_error err;
    cuzk_status st = f->create(&d, f->adicity + 1, &err);
    CHECK(st == CUZK_ERANGE && d == NULL, "%s: create beyond 2-adicity: %d",
          f->name, (int)st);
    CHECK(err.status == CUZK_ERANGE && err.msg[0], "%s: error message",
          f->name);
    CHECK(f->create(&d, 0, &err) == CUZK_OK, "%s create(0)", f->name);
    fe v, v0;
    rand_fe(f, &v);
    v0 = v;
    f->fwd(d, &v, NULL);
    f->inverse(d, &v, NULL);
    CHECK(f->eq(&v, &v0), "%s size-1 transform", f->name);
    f->destroy(d);
    f->destroy(NULL);
}

static unsigned max_log, to_coset_max_log;

/* Debug and sanitizer builds run the field code unoptimised, tens of times
 * slower (test_ntt took minutes under ASan with 2^20): there to_coset's
 * sizes stop at 2^14, the optimised suite runs them all. */
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define TO_COSET_MAX_LOG 14
#else
#define TO_COSET_MAX_LOG 20
#endif

static void ntt_tests(const ntt_ops *f) {
    test_root_convention(f);
    test_create_errors(f);
    test_small_sizes(f);
    test_round_trips(f, max_log);
    test_to_coset(f, to_coset_max_log);
    for (unsigned log_n = 1; log_n <= 14; log_n += 3)
        test_linearity(f, log_n);
    for (unsigned log_n = 1; log_n <= 9; log_n++)
        test_convolution(f, log_n);
}

#define TEST_CURVE bls12_381
#define TEST_ADICITY BLS12_381_FR_TWO_ADICITY
#include __FILE__
#undef TEST_CURVE
#undef TEST_ADICITY

#define TEST_CURVE bn254
#define TEST_ADICITY BN254_FR_TWO_ADICITY
#include __FILE__
#undef TEST_CURVE
#undef TEST_ADICITY

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_ntt");
    cuzk_error err;
    pools[1] = cuzk_pool_create(2, &err);
    pools[2] = cuzk_pool_create(3, &err);
    max_log = tu_iters(1) >= 4 ? 18 : 16;
    to_coset_max_log = TO_COSET_MAX_LOG;
    tu_run_curves(curves, TU_COUNT(curves));
    cuzk_pool_destroy(pools[1]);
    cuzk_pool_destroy(pools[2]);
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

static const ntt_ops TC(ntt_ops) = {
    TEST_CURVE_NAME, TC(fr_modulus), TEST_ADICITY, (void *)TC(fr_add),
    (void *)TC(fr_sub), (void *)TC(fr_mul), (void *)TC(fr_pow),
    (void *)TC(fr_inv), (void *)TC(fr_set_u64), (void *)TC(fr_eq),
    (void *)TC(fr_root_of_unity), (void *)TC(ntt_domain_create),
    (void *)TC(ntt_domain_destroy), (void *)TC(ntt_domain_log_n),
    (void *)TC(ntt_domain_omega), (void *)TC(ntt_forward),
    (void *)TC(ntt_inverse), (void *)TC(ntt_coset_forward),
    (void *)TC(ntt_coset_inverse), (void *)TC(ntt_to_coset)};

static void TC(tests)(const tu_curve *c) {
    (void)c;
    ntt_tests(&TC(ntt_ops));
}

#endif
