/*
 * Optimal ate pairing of both curves (pairing/pairing.h).
 *
 * Checks, per curve: known answers computed by an independent implementation
 * (@noble/curves, tests/vectors/pairing_kat.h made by gen_pairing_kat.mjs),
 * non-degeneracy, that values lie in GT (f^r = 1), bilinearity in both
 * arguments on random scalars, e(-P, Q) e(P, Q) = 1, the multi-pair Miller
 * loop against the product of single pairings (also across the block size),
 * pairing_product_is_one on true and false products, and infinity inputs.
 * Prints (never asserts) the time of one pairing per curve.
 *
 * Points come from curve/curve.h (generators, scalar multiplication); the
 * pairing code itself does not use it.  The body below is a template: this
 * file includes itself once per curve (TEST_CURVE, tests/testutil.h).
 */
#ifndef TEST_CURVE

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/curve.h"
#include "groth16/curve_id.h"
#include "pairing/pairing.h"
#include "testutil.h"
#include "vectors/pairing_kat.h"

/* Big-endian hex (no prefix) -> n little-endian limbs; 0 if it does not fit. */
static int hex_to_limbs(uint64_t *out, size_t n, const char *s) {
    size_t len = strlen(s);
    memset(out, 0, n * sizeof *out);
    if (len == 0 || len > 16 * n)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[len - 1 - i];
        unsigned v;
        if (c >= '0' && c <= '9')
            v = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = (unsigned)(c - 'A' + 10);
        else
            return 0;
        out[i / 16] |= (uint64_t)v << (4 * (i % 16));
    }
    return 1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define TEST_CURVE bls12_381
#include __FILE__
#undef TEST_CURVE

#define TEST_CURVE bn254
#include __FILE__
#undef TEST_CURVE

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_pairing");
    tu_run_curves(curves, TU_COUNT(curves));
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

#define NAME TEST_CURVE_NAME
#define TP_N FP(LIMBS)
#define F TC(fp)
#define E TC(fp2)
#define S TC(fr)
#define T12 TC(fp12)
#define G1 TC(g1)
#define G2 TC(g2)
#define G1A TC(g1_affine)
#define G2A TC(g2_affine)
#define FP(x) CUZK_PASTE(F, x)
#define FR(x) CUZK_PASTE(S, x)
#define F12(x) CUZK_PASTE(T12, x)
#define P1(x) CUZK_PASTE(G1, x)
#define P2(x) CUZK_PASTE(G2, x)
#define PR(x) TC(x)
#define TP(x) TC(CUZK_PASTE(tp, x))

static void TP(rand_fr)(S *k) {
    uint64_t plain[4];
    tu_rand_below(plain, FR(modulus), 4);
    FR(to_mont)(k, plain);
}

/* Non-zero scalars where a zero would make a "false" product true. */
static void TP(rand_fr_nonzero)(S *k) {
    do
        TP(rand_fr)(k);
    while (FR(is_zero)(k));
}

static void TP(g1_mul)(G1A *r, const G1A *p, const S *k) {
    G1 t;
    P1(from_affine)(&t, p);
    P1(mul)(&t, &t, k);
    P1(to_affine)(r, &t);
}
static void TP(g2_mul)(G2A *r, const G2A *q, const S *k) {
    G2 t;
    P2(from_affine)(&t, q);
    P2(mul)(&t, &t, k);
    P2(to_affine)(r, &t);
}

/* r = f^k for k in Fr (Montgomery form). */
static void TP(gt_pow)(T12 *r, const T12 *f, const S *k) {
    uint64_t plain[4];
    FR(from_mont)(plain, k);
    F12(cyclotomic_pow)(r, f, plain, 4);
}

static int TP(fp_from_hex)(F *r, const char *s) {
    uint64_t l[TP_N];
    return hex_to_limbs(l, TP_N, s) && FP(from_limbs)(r, l, NULL) == CUZK_OK;
}

static void TP(test_kat)(void) {
    const pairing_kat *kat = TC(pairing_kat);
    size_t n = sizeof TC(pairing_kat) / sizeof *kat;
    G1A g1;
    G2A g2;
    P1(generator)(&g1);
    P2(generator)(&g2);
    for (size_t i = 0; i < n; i++) {
        uint64_t l[4];
        S k1, k2;
        G1A p, pk;
        G2A q, qk;
        T12 want, got;
        int ok = hex_to_limbs(l, 4, kat[i].k1) && FR(from_limbs)(&k1, l, NULL) == CUZK_OK;
        ok &= hex_to_limbs(l, 4, kat[i].k2) && FR(from_limbs)(&k2, l, NULL) == CUZK_OK;
        ok &= TP(fp_from_hex)(&pk.x, kat[i].g1[0]) & TP(fp_from_hex)(&pk.y, kat[i].g1[1]);
        ok &= TP(fp_from_hex)(&qk.x.c0, kat[i].g2[0]) & TP(fp_from_hex)(&qk.x.c1, kat[i].g2[1]);
        ok &= TP(fp_from_hex)(&qk.y.c0, kat[i].g2[2]) & TP(fp_from_hex)(&qk.y.c1, kat[i].g2[3]);
        F *w = (F *)&want; /* the twelve Fp in memory order c0.c0.c0 .. c1.c2.c1 */
        for (int j = 0; j < 12; j++)
            ok &= TP(fp_from_hex)(&w[j], kat[i].gt[j]);
        CHECK(ok, "%s kat %zu parses", NAME, i);
        if (!ok)
            continue;
        /* the inputs: our scalar multiplication must agree with noble's */
        TP(g1_mul)(&p, &g1, &k1);
        TP(g2_mul)(&q, &g2, &k2);
        CHECK(P1(affine_eq)(&p, &pk) && P2(affine_eq)(&q, &qk),
              "%s kat %zu points [k1]G1, [k2]G2", NAME, i);
        PR(pairing)(&got, &pk, &qk);
        CHECK(F12(eq)(&got, &want), "%s kat %zu e([k1]G1, [k2]G2) = noble", NAME, i);
    }
}

static void TP(test_laws)(unsigned iters) {
    G1A g1, p, ap, np;
    G2A g2, q, bq, nq;
    T12 e, x, y, base;
    S a, b, ab;
    uint64_t r_limbs[4];
    P1(generator)(&g1);
    P2(generator)(&g2);
    memcpy(r_limbs, FR(modulus), sizeof r_limbs);

    PR(pairing)(&base, &g1, &g2);
    CHECK(!F12(is_one)(&base), "%s e(G1, G2) != 1 (non-degenerate)", NAME);
    F12(pow)(&x, &base, r_limbs, 4);
    CHECK(F12(is_one)(&x), "%s e(G1, G2)^r = 1", NAME);

    for (unsigned it = 0; it < iters; it++) {
        TP(rand_fr)(&a);
        TP(rand_fr)(&b);
        FR(mul)(&ab, &a, &b);
        /* random base points too */
        S s; /* non-zero: infinity has its own test */
        TP(rand_fr_nonzero)(&s);
        TP(g1_mul)(&p, &g1, &s);
        TP(rand_fr_nonzero)(&s);
        TP(g2_mul)(&q, &g2, &s);
        PR(pairing)(&e, &p, &q);
        CHECK(!F12(is_one)(&e), "%s e(P, Q) != 1", NAME);
        TP(g1_mul)(&ap, &p, &a);
        TP(g2_mul)(&bq, &q, &b);
        PR(pairing)(&x, &ap, &bq);
        TP(gt_pow)(&y, &e, &ab);
        CHECK(F12(eq)(&x, &y), "%s e([a]P, [b]Q) = e(P, Q)^(ab)", NAME);
        PR(pairing)(&x, &ap, &q);
        TP(g2_mul)(&bq, &q, &a);
        PR(pairing)(&y, &p, &bq);
        CHECK(F12(eq)(&x, &y), "%s e([a]P, Q) = e(P, [a]Q)", NAME);
        /* inverses */
        P1(affine_neg)(&np, &p);
        P2(affine_neg)(&nq, &q);
        PR(pairing)(&x, &np, &q);
        F12(mul)(&y, &x, &e);
        CHECK(F12(is_one)(&y), "%s e(-P, Q) e(P, Q) = 1", NAME);
        PR(pairing)(&y, &p, &nq);
        CHECK(F12(eq)(&x, &y), "%s e(-P, Q) = e(P, -Q)", NAME);
        F12(conj)(&y, &e);
        CHECK(F12(eq)(&x, &y), "%s e(-P, Q) = conj(e(P, Q))", NAME);
        /* additivity in the first argument: e(P1 + P2, Q) = e(P1, Q) e(P2, Q) */
        G1 sum;
        G1A s1;
        P1(from_affine)(&sum, &p);
        P1(add_affine)(&sum, &sum, &ap);
        P1(to_affine)(&s1, &sum);
        PR(pairing)(&x, &s1, &q);
        PR(pairing)(&y, &ap, &q);
        F12(mul)(&y, &y, &e);
        CHECK(F12(eq)(&x, &y), "%s e(P + aP, Q) = e(P, Q) e(aP, Q)", NAME);
    }
}

/* n pairs (p[i], q[i]) = ([a_i]G1, [b_i]G2), a_i, b_i != 0, with the last
 * pair chosen so that the product is one: a_last = -sum_{i<last} a_i b_i,
 * b_last = 1. */
static void TP(make_product)(G1A *p, G2A *q, size_t n) {
    G1A g1;
    G2A g2;
    S acc, a, b, t;
    P1(generator)(&g1);
    P2(generator)(&g2);
    FR(set_zero)(&acc);
    for (size_t i = 0; i + 1 < n; i++) {
        TP(rand_fr_nonzero)(&a);
        TP(rand_fr_nonzero)(&b);
        TP(g1_mul)(&p[i], &g1, &a);
        TP(g2_mul)(&q[i], &g2, &b);
        FR(mul)(&t, &a, &b);
        FR(add)(&acc, &acc, &t);
    }
    FR(neg)(&acc, &acc);
    TP(g1_mul)(&p[n - 1], &g1, &acc);
    q[n - 1] = g2;
}

static void TP(test_products)(void) {
    enum { MAXN = CUZK_PAIRING_BLOCK + 4 };
    G1A p[MAXN + 2], g1;
    G2A q[MAXN + 2], g2;
    T12 x, y, e;
    P1(generator)(&g1);
    P2(generator)(&g2);
    static const size_t sizes[] = {2, 3, 4, MAXN};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        TP(make_product)(p, q, n);
        CHECK(PR(pairing_product_is_one)(p, q, n), "%s product of %zu is one", NAME, n);
        /* the shared Miller loop equals the product of the single pairings
         * (checked on the first min(n, 4) pairs to keep the test short, and
         * on all when n crosses the block size, through is_one above) */
        size_t m = n < 4 ? n : 4;
        PR(miller_loop_n)(&x, p, q, m);
        PR(final_exp)(&x, &x);
        F12(set_one)(&y);
        for (size_t i = 0; i < m; i++) {
            PR(pairing)(&e, &p[i], &q[i]);
            F12(mul)(&y, &y, &e);
        }
        CHECK(F12(eq)(&x, &y), "%s miller_loop_n(%zu) = prod of pairings", NAME, m);
        /* false products: a changed scalar, a swapped pair, a dropped pair */
        G1A keep = p[0];
        G1 t;
        P1(from_affine)(&t, &p[0]);
        P1(add_affine)(&t, &t, &g1);
        P1(to_affine)(&p[0], &t);
        CHECK(!PR(pairing_product_is_one)(p, q, n), "%s product of %zu, P0 + G1, is not one", NAME, n);
        p[0] = keep;
        CHECK(!PR(pairing_product_is_one)(p, q, n - 1), "%s product of %zu without the last pair is not one", NAME, n);
        /* infinity pairs anywhere contribute 1 */
        G1A pi[MAXN + 2];
        G2A qi[MAXN + 2];
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == 1) {
                P1(affine_set_inf)(&pi[k]);
                qi[k++] = g2;
                pi[k] = g1;
                P2(affine_set_inf)(&qi[k++]);
            }
            pi[k] = p[i];
            qi[k++] = q[i];
        }
        CHECK(PR(pairing_product_is_one)(pi, qi, k), "%s product of %zu with infinity pairs is one", NAME, n);
    }
    /* infinity alone */
    G1A inf1;
    G2A inf2;
    P1(affine_set_inf)(&inf1);
    P2(affine_set_inf)(&inf2);
    PR(pairing)(&x, &inf1, &g2);
    CHECK(F12(is_one)(&x), "%s e(O, G2) = 1", NAME);
    PR(pairing)(&x, &g1, &inf2);
    CHECK(F12(is_one)(&x), "%s e(G1, O) = 1", NAME);
    PR(miller_loop_n)(&x, p, q, 0);
    CHECK(F12(is_one)(&x), "%s empty Miller loop = 1", NAME);
    CHECK(PR(pairing_product_is_one)(p, q, 0), "%s empty product is one", NAME);
    CHECK(!PR(pairing_product_is_one)(&g1, &g2, 1), "%s e(G1, G2) alone is not one", NAME);
    F12(set_zero)(&x);
    PR(final_exp)(&y, &x);
    CHECK(F12(is_zero)(&y), "%s final_exp(0) = 0", NAME);
}

static void TP(timing)(void) {
    G1A g1;
    G2A g2;
    T12 f, e;
    P1(generator)(&g1);
    P2(generator)(&g2);
    int reps = 20;
    double t0 = now_s();
    for (int i = 0; i < reps; i++)
        PR(miller_loop_n)(&f, &g1, &g2, 1);
    double t1 = now_s();
    for (int i = 0; i < reps; i++)
        PR(final_exp)(&e, &f);
    double t2 = now_s();
    for (int i = 0; i < reps; i++)
        PR(pairing)(&e, &g1, &g2);
    double t3 = now_s();
    printf("%s: pairing %.3f ms (Miller loop %.3f ms, final exp %.3f ms), "
           "mean of %d, not asserted\n",
           NAME, 1e3 * (t3 - t2) / reps, 1e3 * (t1 - t0) / reps,
           1e3 * (t2 - t1) / reps, reps);
    fflush(stdout);
}

static void TC(tests)(const tu_curve *c) {
    (void)c;
    TP(test_kat)();
    TP(test_laws)(tu_iters(3));
    TP(test_products)();
    TP(timing)();
}

#undef NAME
#undef TP_N
#undef F
#undef E
#undef S
#undef T12
#undef G1
#undef G2
#undef G1A
#undef G2A
#undef FP
#undef FR
#undef F12
#undef P1
#undef P2
#undef PR
#undef TP
#endif
