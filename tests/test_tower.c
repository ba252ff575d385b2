/*
 * Fp6 and Fp12 towers of both curves (field/tower.h).
 *
 * Checks the tower's definition (v^3 = xi, w^2 = v), the field laws on
 * random elements (associativity, commutativity, distributivity, inverses,
 * squaring against multiplication, aliasing), every sparse product against
 * the dense product, every Frobenius map against a^(p^k) computed by plain
 * square-and-multiply with the exponent p^k (which is what validates the
 * FROB constants of consts_gen.h), and the cyclotomic squaring and
 * exponentiation against the generic ones on elements f^((p^6-1)(p^2+1)).
 *
 * The body below is a template: this file includes itself once per curve
 * (TEST_CURVE, tests/testutil.h), the way field/tower.c instantiates
 * field/tower_template.h.
 */
#ifndef TEST_CURVE

#include <stdlib.h>
#include <string.h>

#include "field/consts_gen.h"
#include "field/tower.h"
#include "groth16/curve_id.h"
#include "testutil.h"

/* r = a * b on little-endian limbs; r has na + nb limbs, no aliasing. */
static void big_mul(uint64_t *r, const uint64_t *a, size_t na,
                    const uint64_t *b, size_t nb) {
    memset(r, 0, (na + nb) * sizeof *r);
    for (size_t i = 0; i < na; i++) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < nb; j++) {
            carry += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = (uint64_t)carry;
            carry >>= 64;
        }
        r[i + nb] = (uint64_t)carry;
    }
}

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
    tu_init(argc, argv, "test_tower");
    tu_run_curves(curves, TU_COUNT(curves));
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

#define F TC(fp)
#define E TC(fp2)
#define T6 TC(fp6)
#define T12 TC(fp12)
#define FP(x) CUZK_PASTE(F, x)
#define E2(x) CUZK_PASTE(E, x)
#define F6(x) CUZK_PASTE(T6, x)
#define F12(x) CUZK_PASTE(T12, x)
#define TT(x) TC(CUZK_PASTE(tt, x))
#define NAME TEST_CURVE_NAME
#define TT_N FP(LIMBS)

static void TT(rand_fp)(F *r) {
    uint64_t plain[TT_N];
    tu_rand_below(plain, FP(modulus), TT_N);
    FP(to_mont)(r, plain);
}
static void TT(rand_fp2)(E *r) {
    TT(rand_fp)(&r->c0);
    TT(rand_fp)(&r->c1);
}
static void TT(rand6)(T6 *r) {
    TT(rand_fp2)(&r->c0);
    TT(rand_fp2)(&r->c1);
    TT(rand_fp2)(&r->c2);
}
static void TT(rand12)(T12 *r) {
    TT(rand6)(&r->c0);
    TT(rand6)(&r->c1);
}

/* p^k as limbs: out has k * TT_N limbs. */
static void TT(p_power)(uint64_t *out, unsigned k) {
    uint64_t t[3 * TT_N];
    memcpy(out, FP(modulus), TT_N * sizeof *out);
    for (unsigned i = 1; i < k; i++) {
        big_mul(t, out, i * TT_N, FP(modulus), TT_N);
        memcpy(out, t, (i + 1) * TT_N * sizeof *out);
    }
}

/* g = f^((p^6-1)(p^2+1)): an element of the cyclotomic subgroup. */
static void TT(rand_cyclotomic)(T12 *g) {
    T12 f, t;
    TT(rand12)(&f);
    F12(inv_var)(&t, &f);
    F12(conj)(g, &f);
    F12(mul)(g, g, &t);        /* f^(p^6 - 1) */
    F12(frobenius)(&t, g, 2);  /* ...^(p^2) */
    F12(mul)(g, g, &t);        /* ...^(p^2 + 1) */
}

static void TT(test_definition)(void) {
    /* v^3 = xi with xi = TEST_XI_C0 + u, and w^2 = v, w^6 = xi. */
    T6 v, x;
    T12 w, y, vv;
    E xi;
    FP(set_u64)(&xi.c0, TEST_XI_C0);
    FP(set_one)(&xi.c1);
    F6(set_zero)(&v);
    E2(set_one)(&v.c1);
    F6(mul)(&x, &v, &v);
    F6(mul)(&x, &x, &v);
    CHECK(E2(eq)(&x.c0, &xi) && E2(is_zero)(&x.c1) && E2(is_zero)(&x.c2),
          "%s v^3 = xi", NAME);
    F12(set_zero)(&w);
    E2(set_one)(&w.c1.c0);
    F12(sqr)(&y, &w);
    F12(set_zero)(&vv);
    vv.c0 = v;
    CHECK(F12(eq)(&y, &vv), "%s w^2 = v", NAME);
    /* xi is neither a square nor a cube in Fp2 (else the tower would not be a
     * field): xi^((p^2-1)/2) = FROB2_3 = -1 and xi^((p^2-1)/3) = FROB2_2 != 1 */
    CHECK(!E2(is_square)(&xi), "%s xi is a non-square", NAME);
    F6(frobenius)(&x, &v, 2); /* v^(p^2) = xi^((p^2-1)/3) v */
    CHECK(!E2(is_one)(&x.c1) && E2(is_zero)(&x.c0), "%s xi is a non-cube", NAME);
}

static void TT(test_laws)(unsigned iters) {
    for (unsigned it = 0; it < iters; it++) {
        T6 a6, b6, c6, x6, y6, z6;
        T12 a, b, c, x, y, z;
        TT(rand6)(&a6);
        TT(rand6)(&b6);
        TT(rand6)(&c6);
        /* Fp6 */
        F6(mul)(&x6, &a6, &b6);
        F6(mul)(&y6, &b6, &a6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 mul commutes", NAME);
        F6(mul)(&x6, &x6, &c6);
        F6(mul)(&y6, &b6, &c6);
        F6(mul)(&y6, &a6, &y6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 mul associates", NAME);
        F6(add)(&x6, &b6, &c6);
        F6(mul)(&x6, &a6, &x6);
        F6(mul)(&y6, &a6, &b6);
        F6(mul)(&z6, &a6, &c6);
        F6(add)(&y6, &y6, &z6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 distributes", NAME);
        F6(sqr)(&x6, &a6);
        F6(mul)(&y6, &a6, &a6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 sqr = mul", NAME);
        x6 = a6;
        F6(sqr)(&x6, &x6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 sqr aliased", NAME);
        F6(inv)(&x6, &a6);
        F6(inv_var)(&y6, &a6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 inv = inv_var", NAME);
        F6(mul)(&x6, &x6, &a6);
        CHECK(F6(is_one)(&x6) || F6(is_zero)(&a6), "%s fp6 a a^-1 = 1", NAME);
        F6(sub)(&x6, &a6, &b6);
        F6(add)(&x6, &x6, &b6);
        CHECK(F6(eq)(&x6, &a6), "%s fp6 sub/add", NAME);
        F6(neg)(&x6, &a6);
        F6(add)(&x6, &x6, &a6);
        CHECK(F6(is_zero)(&x6), "%s fp6 neg", NAME);
        F6(dbl)(&x6, &a6);
        F6(add)(&y6, &a6, &a6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 dbl", NAME);
        /* the tower's own inline additions against fp2.h, coefficient-wise
         * (random coefficients include 0, small values and p - small) */
        {
            E s, d;
            int ok = 1;
            F6(add)(&x6, &a6, &b6);
            F6(sub)(&y6, &a6, &b6);
            const E *pa = &a6.c0, *pb = &b6.c0, *px = &x6.c0, *py = &y6.c0;
            for (int k = 0; k < 3; k++) {
                E2(add)(&s, &pa[k], &pb[k]);
                E2(sub)(&d, &pa[k], &pb[k]);
                ok &= E2(eq)(&s, &px[k]) & E2(eq)(&d, &py[k]);
            }
            CHECK(ok, "%s fp6 add/sub = fp2.h add/sub per coefficient", NAME);
        }
        /* multiplication by v, by an Fp2 scalar, and the sparse products */
        F6(set_zero)(&z6);
        E2(set_one)(&z6.c1);
        F6(mul)(&x6, &a6, &z6);
        F6(mul_by_nonresidue)(&y6, &a6);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 mul_by_nonresidue = times v", NAME);
        F6(set_zero)(&z6);
        z6.c0 = b6.c0;
        F6(mul)(&x6, &a6, &z6);
        F6(mul_fp2)(&y6, &a6, &b6.c0);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 mul_fp2", NAME);
        z6.c1 = b6.c1;
        F6(mul)(&x6, &a6, &z6);
        y6 = a6;
        F6(mul_by_01)(&y6, &y6, &b6.c0, &b6.c1);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 mul_by_01", NAME);
        E2(set_zero)(&z6.c0);
        F6(mul)(&x6, &a6, &z6);
        F6(mul_by_1)(&y6, &a6, &b6.c1);
        CHECK(F6(eq)(&x6, &y6), "%s fp6 mul_by_1", NAME);

        /* Fp12 */
        TT(rand12)(&a);
        TT(rand12)(&b);
        TT(rand12)(&c);
        F12(mul)(&x, &a, &b);
        F12(mul)(&y, &b, &a);
        CHECK(F12(eq)(&x, &y), "%s fp12 mul commutes", NAME);
        F12(mul)(&x, &x, &c);
        F12(mul)(&y, &b, &c);
        F12(mul)(&y, &a, &y);
        CHECK(F12(eq)(&x, &y), "%s fp12 mul associates", NAME);
        F12(add)(&x, &b, &c);
        F12(mul)(&x, &a, &x);
        F12(mul)(&y, &a, &b);
        F12(mul)(&z, &a, &c);
        F12(add)(&y, &y, &z);
        CHECK(F12(eq)(&x, &y), "%s fp12 distributes", NAME);
        F12(sub)(&z, &y, &z);
        F12(mul)(&x, &a, &b);
        CHECK(F12(eq)(&x, &z), "%s fp12 sub", NAME);
        F12(sqr)(&x, &a);
        F12(mul)(&y, &a, &a);
        CHECK(F12(eq)(&x, &y), "%s fp12 sqr = mul", NAME);
        x = a;
        F12(mul)(&x, &x, &x);
        CHECK(F12(eq)(&x, &y), "%s fp12 mul aliased", NAME);
        F12(inv)(&x, &a);
        F12(inv_var)(&y, &a);
        CHECK(F12(eq)(&x, &y), "%s fp12 inv = inv_var", NAME);
        F12(mul)(&x, &x, &a);
        CHECK(F12(is_one)(&x), "%s fp12 a a^-1 = 1", NAME);
        F12(neg)(&x, &a);
        F12(add)(&x, &x, &a);
        CHECK(F12(is_zero)(&x), "%s fp12 neg", NAME);
        /* times w */
        F12(set_zero)(&z);
        E2(set_one)(&z.c1.c0);
        F12(mul)(&x, &a, &z);
        F12(mul_by_nonresidue)(&y, &a);
        CHECK(F12(eq)(&x, &y), "%s fp12 mul_by_nonresidue = times w", NAME);
        /* sparse line products against the dense product */
        E l0, l1, l4;
        TT(rand_fp2)(&l0);
        TT(rand_fp2)(&l1);
        TT(rand_fp2)(&l4);
        F12(set_zero)(&z);
        z.c0.c0 = l0, z.c0.c1 = l1, z.c1.c1 = l4;
        F12(mul)(&x, &a, &z);
        y = a;
        F12(mul_by_014)(&y, &y, &l0, &l1, &l4);
        CHECK(F12(eq)(&x, &y), "%s fp12 mul_by_014", NAME);
        F12(set_zero)(&z);
        z.c0.c0 = l0, z.c1.c0 = l1, z.c1.c1 = l4;
        F12(mul)(&x, &a, &z);
        y = a;
        F12(mul_by_034)(&y, &y, &l0, &l1, &l4);
        CHECK(F12(eq)(&x, &y), "%s fp12 mul_by_034", NAME);
        /* conj is the p^6-power map */
        F12(conj)(&x, &a);
        F12(frobenius)(&y, &a, 1);
        for (int k = 1; k < 6; k++)
            F12(frobenius)(&y, &y, 1);
        CHECK(F12(eq)(&x, &y), "%s fp12 conj = frob^6", NAME);
    }
    /* edge values */
    T12 z, o, t;
    F12(set_zero)(&z);
    F12(set_one)(&o);
    F12(inv)(&t, &z);
    CHECK(F12(is_zero)(&t), "%s fp12 inv(0) = 0", NAME);
    F12(inv_var)(&t, &z);
    CHECK(F12(is_zero)(&t), "%s fp12 inv_var(0) = 0", NAME);
    F12(inv)(&t, &o);
    CHECK(F12(is_one)(&t) && !F12(is_zero)(&t) && !F12(is_one)(&z),
          "%s fp12 one/zero predicates", NAME);
}

static void TT(test_frobenius)(unsigned iters) {
    uint64_t pk[3 * TT_N];
    for (unsigned it = 0; it < iters; it++) {
        T6 a6, x6, y6;
        T12 a, x, y;
        TT(rand6)(&a6);
        TT(rand12)(&a);
        for (unsigned k = 1; k <= 3; k++) {
            TT(p_power)(pk, k);
            /* Fp6 -> Fp12 embedding: pow on Fp12 with c1 = 0 */
            T12 e6, p6;
            F12(set_zero)(&e6);
            e6.c0 = a6;
            F12(pow)(&p6, &e6, pk, k * TT_N);
            F6(frobenius)(&x6, &a6, k);
            CHECK(F6(eq)(&x6, &p6.c0) && F6(is_zero)(&p6.c1),
                  "%s fp6 frobenius(%u) = a^(p^%u)", NAME, k, k);
            F12(pow)(&y, &a, pk, k * TT_N);
            F12(frobenius)(&x, &a, k);
            CHECK(F12(eq)(&x, &y), "%s fp12 frobenius(%u) = a^(p^%u)", NAME, k, k);
        }
        /* every power equals the repeated first power; 12 (6) is the identity */
        x = a;
        x6 = a6;
        for (unsigned k = 1; k <= 12; k++) {
            F12(frobenius)(&x, &x, 1);
            F12(frobenius)(&y, &a, k);
            CHECK(F12(eq)(&x, &y), "%s fp12 frobenius(%u) = frobenius(1)^%u", NAME, k, k);
            if (k <= 6) {
                F6(frobenius)(&x6, &x6, 1);
                F6(frobenius)(&y6, &a6, k);
                CHECK(F6(eq)(&x6, &y6), "%s fp6 frobenius(%u)", NAME, k);
            }
        }
        CHECK(F12(eq)(&x, &a), "%s fp12 frobenius(1)^12 = id", NAME);
        CHECK(F6(eq)(&x6, &a6), "%s fp6 frobenius(1)^6 = id", NAME);
        /* the Frobenius map is a ring homomorphism */
        T12 b, ab;
        TT(rand12)(&b);
        F12(mul)(&ab, &a, &b);
        F12(frobenius)(&ab, &ab, 1);
        F12(frobenius)(&x, &a, 1);
        F12(frobenius)(&y, &b, 1);
        F12(mul)(&x, &x, &y);
        CHECK(F12(eq)(&x, &ab), "%s frob(ab) = frob(a) frob(b)", NAME);
    }
}

static void TT(test_cyclotomic)(unsigned iters) {
    for (unsigned it = 0; it < iters; it++) {
        T12 g, x, y;
        TT(rand_cyclotomic)(&g);
        /* membership: g^(p^4 - p^2 + 1) = 1, and conj(g) = g^-1 */
        F12(frobenius)(&x, &g, 4);
        F12(mul)(&x, &x, &g);
        F12(frobenius)(&y, &g, 2);
        F12(conj)(&y, &y);
        F12(mul)(&x, &x, &y);
        CHECK(F12(is_one)(&x), "%s g^(p^4-p^2+1) = 1", NAME);
        F12(conj)(&x, &g);
        F12(mul)(&x, &x, &g);
        CHECK(F12(is_one)(&x), "%s g conj(g) = 1", NAME);

        F12(cyclotomic_sqr)(&x, &g);
        F12(sqr)(&y, &g);
        CHECK(F12(eq)(&x, &y), "%s cyclotomic_sqr = sqr", NAME);
        x = g;
        F12(cyclotomic_sqr)(&x, &x);
        CHECK(F12(eq)(&x, &y), "%s cyclotomic_sqr aliased", NAME);

        /* exponents with runs of ones (NAF carries), several lengths */
        uint64_t e[3] = {tu_rand64(), tu_rand64(), tu_rand64() >> (it % 64)};
        if (it % 3 == 0)
            e[0] = ~(uint64_t)0, e[1] = ~(uint64_t)0;
        size_t n = 1 + it % 3;
        F12(cyclotomic_pow)(&x, &g, e, n);
        F12(pow)(&y, &g, e, n);
        CHECK(F12(eq)(&x, &y), "%s cyclotomic_pow = pow (%zu limbs)", NAME, n);
    }
    /* exponent 0 and 1 */
    T12 g, x;
    uint64_t zero = 0, one = 1;
    TT(rand_cyclotomic)(&g);
    F12(cyclotomic_pow)(&x, &g, &zero, 1);
    CHECK(F12(is_one)(&x), "%s cyclotomic_pow(g, 0) = 1", NAME);
    F12(cyclotomic_pow)(&x, &g, &one, 1);
    CHECK(F12(eq)(&x, &g), "%s cyclotomic_pow(g, 1) = g", NAME);
    F12(pow)(&x, &g, &zero, 1);
    CHECK(F12(is_one)(&x), "%s pow(g, 0) = 1", NAME);
}

static void TC(tests)(const tu_curve *c) {
    (void)c;
    TT(test_definition)();
    TT(test_laws)(tu_iters(40));
    TT(test_frobenius)(tu_iters(3));
    TT(test_cyclotomic)(tu_iters(12));
}

#undef F
#undef E
#undef T6
#undef T12
#undef FP
#undef E2
#undef F6
#undef F12
#undef TT
#undef NAME
#undef TT_N
#endif
