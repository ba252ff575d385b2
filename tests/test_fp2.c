/*
 * Fp2 = Fp[u]/(u^2 + 1) of both curves: field laws on random elements, and
 * the operations that have closed forms checked against them (Karatsuba
 * product against the schoolbook formula computed with base-field ops,
 * squaring, conjugation, multiplication by xi, inverse, square root,
 * exponentiation by p = Frobenius = conjugation).
 */
#include <string.h>

#include "field/fp2.h"
#include "testutil.h"

#define FP2_TESTS(E, F, XI_C0)                                                \
    static void E##_rand(E *r) {                                              \
        uint64_t t[F##_LIMBS];                                                \
        tu_rand_below(t, F##_modulus, F##_LIMBS);                             \
        F##_to_mont(&r->c0, t);                                               \
        tu_rand_below(t, F##_modulus, F##_LIMBS);                             \
        F##_to_mont(&r->c1, t);                                               \
    }                                                                         \
    static void E##_tests(unsigned iters) {                                   \
        for (unsigned it = 0; it < iters; it++) {                             \
            E a, b, c, t, u, v;                                               \
            E##_rand(&a), E##_rand(&b), E##_rand(&c);                         \
            /* schoolbook product with base-field operations */               \
            F p00, p11, p01, p10;                                             \
            F##_mul(&p00, &a.c0, &b.c0);                                      \
            F##_mul(&p11, &a.c1, &b.c1);                                      \
            F##_mul(&p01, &a.c0, &b.c1);                                      \
            F##_mul(&p10, &a.c1, &b.c0);                                      \
            E##_mul(&t, &a, &b);                                              \
            F##_sub(&u.c0, &p00, &p11);                                       \
            F##_add(&u.c1, &p01, &p10);                                       \
            CHECK(E##_eq(&t, &u), #E " mul = schoolbook");                    \
            E##_mul(&u, &b, &a);                                              \
            CHECK(E##_eq(&t, &u), #E " mul commutes");                        \
            E##_mul(&t, &t, &c);                                              \
            E##_mul(&u, &b, &c);                                              \
            E##_mul(&u, &a, &u);                                              \
            CHECK(E##_eq(&t, &u), #E " mul associates");                      \
            E##_add(&t, &b, &c);                                              \
            E##_mul(&t, &a, &t);                                              \
            E##_mul(&u, &a, &b);                                              \
            E##_mul(&v, &a, &c);                                              \
            E##_add(&u, &u, &v);                                              \
            CHECK(E##_eq(&t, &u), #E " distributes");                         \
            E##_sqr(&t, &a);                                                  \
            E##_mul(&u, &a, &a);                                              \
            CHECK(E##_eq(&t, &u), #E " sqr");                                 \
            E##_dbl(&t, &a);                                                  \
            E##_add(&u, &a, &a);                                              \
            CHECK(E##_eq(&t, &u), #E " dbl");                                 \
            E##_neg(&t, &a);                                                  \
            E##_add(&t, &t, &a);                                              \
            CHECK(E##_is_zero(&t), #E " neg");                                \
            E##_sub(&t, &a, &b);                                              \
            E##_add(&t, &t, &b);                                              \
            CHECK(E##_eq(&t, &a), #E " sub");                                 \
            /* xi = XI_C0 + u */                                              \
            E xi;                                                             \
            F##_set_u64(&xi.c0, XI_C0);                                       \
            F##_set_one(&xi.c1);                                              \
            E##_mul_xi(&t, &a);                                               \
            E##_mul(&u, &a, &xi);                                             \
            CHECK(E##_eq(&t, &u), #E " mul_xi");                              \
            E##_mul_fp(&t, &a, &b.c0);                                        \
            E w = {b.c0, {{0}}};                                              \
            E##_mul(&u, &a, &w);                                              \
            CHECK(E##_eq(&t, &u), #E " mul_fp");                              \
            E##_inv_var(&t, &a);                                              \
            E##_mul(&t, &t, &a);                                              \
            CHECK(E##_is_one(&t) || E##_is_zero(&a), #E " inv_var");          \
            if (it % 8 == 0) {                                                \
                E##_inv(&t, &a);                                              \
                E##_mul(&t, &t, &a);                                          \
                CHECK(E##_is_one(&t) || E##_is_zero(&a), #E " inv");          \
                /* a^p = conj(a) */                                           \
                E##_pow(&t, &a, F##_modulus, F##_LIMBS);                      \
                E##_conj(&u, &a);                                             \
                CHECK(E##_eq(&t, &u), #E " a^p = conj(a)");                   \
            }                                                                 \
            E##_sqr(&t, &a);                                                  \
            CHECK(E##_is_square(&t), #E " square is square");                 \
            CHECK(E##_sqrt(&u, &t) == 1, #E " sqrt exists");                  \
            E##_sqr(&v, &u);                                                  \
            CHECK(E##_eq(&v, &t), #E " sqrt squares back");                   \
            int sq = E##_is_square(&a);                                       \
            CHECK(E##_sqrt(&u, &a) == sq, #E " sqrt agrees with is_square");  \
            /* pure imaginary and pure real inputs */                         \
            E pi = {{{0}}, a.c1};                                             \
            E##_sqr(&t, &pi);                                                 \
            CHECK(E##_sqrt(&u, &t) == 1, #E " sqrt of (b u)^2");              \
            E##_sqr(&v, &u);                                                  \
            CHECK(E##_eq(&v, &t), #E " sqrt of (b u)^2 squares back");        \
        }                                                                     \
        E z, o, t;                                                            \
        E##_set_zero(&z);                                                     \
        E##_set_one(&o);                                                      \
        E##_inv(&t, &z);                                                      \
        CHECK(E##_is_zero(&t), #E " inv(0) = 0");                             \
        CHECK(E##_sqrt(&t, &z) == 1 && E##_is_zero(&t), #E " sqrt(0)");       \
        CHECK(E##_sqrt(&t, &o) == 1, #E " sqrt(1)");                          \
        E mo;                                                                 \
        E##_neg(&mo, &o);                                                     \
        CHECK(E##_sqrt(&t, &mo) == 1, #E " sqrt(-1) exists in Fp2 (it is u)"); \
        E##_sqr(&t, &t);                                                      \
        CHECK(E##_eq(&t, &mo), #E " sqrt(-1)^2 = -1");                        \
    }

FP2_TESTS(bls12_381_fp2, bls12_381_fp, 1)
FP2_TESTS(bn254_fp2, bn254_fp, 9)

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_fp2");
    bls12_381_fp2_tests(tu_iters(300));
    bn254_fp2_tests(tu_iters(300));
    return tu_finish();
}
