/*
 * Fp2 = Fp[u]/(u^2 + 1) of both curves: field laws on random elements, and
 * the operations that have closed forms checked against them (Karatsuba
 * product against the schoolbook formula computed with base-field ops,
 * squaring, conjugation, multiplication by xi, inverse, square root,
 * exponentiation by p = Frobenius = conjugation).
 */
#ifndef TEST_CURVE

#include <string.h>

#include "field/fp2.h"
#include "groth16/curve_id.h"
#include "testutil.h"

#define TEST_CURVE bls12_381
#define TEST_XI_C0 1
#include __FILE__
#undef TEST_CURVE
#undef TEST_XI_C0

#define TEST_CURVE bn254
#define TEST_XI_C0 9
#include __FILE__
#undef TEST_CURVE
#undef TEST_XI_C0

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_fp2");
    tu_run_curves(curves, TU_COUNT(curves));
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

#define F TC(fp)
#define E TC(fp2)
#define FP(x) CUZK_PASTE(F, x)
#define E2(x) CUZK_PASTE(E, x)

static void E2(rand)(E *r) {
    uint64_t t[FP(LIMBS)];
    tu_rand_below(t, FP(modulus), FP(LIMBS));
    FP(to_mont)(&r->c0, t);
    tu_rand_below(t, FP(modulus), FP(LIMBS));
    FP(to_mont)(&r->c1, t);
}
static void E2(checks)(unsigned iters) {
    for (unsigned it = 0; it < iters; it++) {
        E a, b, c, t, u, v;
        E2(rand)(&a), E2(rand)(&b), E2(rand)(&c);
        /* schoolbook product with base-field operations */
        F p00, p11, p01, p10;
        FP(mul)(&p00, &a.c0, &b.c0);
        FP(mul)(&p11, &a.c1, &b.c1);
        FP(mul)(&p01, &a.c0, &b.c1);
        FP(mul)(&p10, &a.c1, &b.c0);
        E2(mul)(&t, &a, &b);
        FP(sub)(&u.c0, &p00, &p11);
        FP(add)(&u.c1, &p01, &p10);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 mul = schoolbook");
        E2(mul)(&u, &b, &a);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 mul commutes");
        E2(mul)(&t, &t, &c);
        E2(mul)(&u, &b, &c);
        E2(mul)(&u, &a, &u);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 mul associates");
        E2(add)(&t, &b, &c);
        E2(mul)(&t, &a, &t);
        E2(mul)(&u, &a, &b);
        E2(mul)(&v, &a, &c);
        E2(add)(&u, &u, &v);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 distributes");
        E2(sqr)(&t, &a);
        E2(mul)(&u, &a, &a);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 sqr");
        E2(dbl)(&t, &a);
        E2(add)(&u, &a, &a);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 dbl");
        E2(neg)(&t, &a);
        E2(add)(&t, &t, &a);
        CHECK(E2(is_zero)(&t), TEST_CURVE_NAME "_fp2 neg");
        E2(sub)(&t, &a, &b);
        E2(add)(&t, &t, &b);
        CHECK(E2(eq)(&t, &a), TEST_CURVE_NAME "_fp2 sub");
        /* xi = TEST_XI_C0 + u */
        E xi;
        FP(set_u64)(&xi.c0, TEST_XI_C0);
        FP(set_one)(&xi.c1);
        E2(mul_xi)(&t, &a);
        E2(mul)(&u, &a, &xi);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 mul_xi");
        E2(mul_fp)(&t, &a, &b.c0);
        E w = {b.c0, {{0}}};
        E2(mul)(&u, &a, &w);
        CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 mul_fp");
        E2(inv_var)(&t, &a);
        E2(mul)(&t, &t, &a);
        CHECK(E2(is_one)(&t) || E2(is_zero)(&a), TEST_CURVE_NAME "_fp2 inv_var");
        if (it % 8 == 0) {
            E2(inv)(&t, &a);
            E2(mul)(&t, &t, &a);
            CHECK(E2(is_one)(&t) || E2(is_zero)(&a), TEST_CURVE_NAME "_fp2 inv");
            /* a^p = conj(a) */
            E2(pow)(&t, &a, FP(modulus), FP(LIMBS));
            E2(conj)(&u, &a);
            CHECK(E2(eq)(&t, &u), TEST_CURVE_NAME "_fp2 a^p = conj(a)");
        }
        E2(sqr)(&t, &a);
        CHECK(E2(is_square)(&t), TEST_CURVE_NAME "_fp2 square is square");
        CHECK(E2(sqrt)(&u, &t) == 1, TEST_CURVE_NAME "_fp2 sqrt exists");
        E2(sqr)(&v, &u);
        CHECK(E2(eq)(&v, &t), TEST_CURVE_NAME "_fp2 sqrt squares back");
        int sq = E2(is_square)(&a);
        CHECK(E2(sqrt)(&u, &a) == sq, TEST_CURVE_NAME "_fp2 sqrt agrees with is_square");
        /* pure imaginary and pure real inputs */
        E pi = {{{0}}, a.c1};
        E2(sqr)(&t, &pi);
        CHECK(E2(sqrt)(&u, &t) == 1, TEST_CURVE_NAME "_fp2 sqrt of (b u)^2");
        E2(sqr)(&v, &u);
        CHECK(E2(eq)(&v, &t), TEST_CURVE_NAME "_fp2 sqrt of (b u)^2 squares back");
    }
    E z, o, t;
    E2(set_zero)(&z);
    E2(set_one)(&o);
    E2(inv)(&t, &z);
    CHECK(E2(is_zero)(&t), TEST_CURVE_NAME "_fp2 inv(0) = 0");
    CHECK(E2(sqrt)(&t, &z) == 1 && E2(is_zero)(&t), TEST_CURVE_NAME "_fp2 sqrt(0)");
    CHECK(E2(sqrt)(&t, &o) == 1, TEST_CURVE_NAME "_fp2 sqrt(1)");
    E mo;
    E2(neg)(&mo, &o);
    CHECK(E2(sqrt)(&t, &mo) == 1, TEST_CURVE_NAME "_fp2 sqrt(-1) exists in Fp2 (it is u)");
    E2(sqr)(&t, &t);
    CHECK(E2(eq)(&t, &mo), TEST_CURVE_NAME "_fp2 sqrt(-1)^2 = -1");
}

static void TC(tests)(const tu_curve *c) {
    (void)c;
    E2(checks)(tu_iters(300));
}

#undef F
#undef E
#undef FP
#undef E2

#endif
