/*
 * The inline field operations (field/field_inline.h) against their
 * out-of-line namesakes (field.c, fp2.c, themselves checked against GMP by
 * test_field and test_fp2), for Fp and Fr of both curves and both Fp2:
 * add, sub, neg, dbl, mul, sqr, eq, is_zero, set_one, set_zero and (base
 * fields) from_mont, on random values and on 0, 1 and p - 1 in every
 * combination; results must be equal limb for limb.  The run covers the
 * mulx/adx path where the CPU has it; CUZK_NO_ASM=1 in the environment
 * runs the portable one.
 * Per-field code is this file included again with TEST_FIELD defined.
 */
#ifndef TEST_FIELD

#include <stdlib.h>
#include <string.h>

#include "field/field_inline.h"
#include "groth16/curve_id.h"
#include "testutil.h"

#define ROUNDS 2000

#define TEST_FIELD bls12_381_fp
#define TEST_N 6
#include __FILE__
#undef TEST_FIELD
#undef TEST_N

#define TEST_FIELD bls12_381_fr
#define TEST_N 4
#include __FILE__
#undef TEST_FIELD
#undef TEST_N

#define TEST_FIELD bn254_fp
#define TEST_N 4
#include __FILE__
#undef TEST_FIELD
#undef TEST_N

#define TEST_FIELD bn254_fr
#define TEST_N 4
#include __FILE__
#undef TEST_FIELD
#undef TEST_N

/* Fp2 on top of its base field's value generator. */
#define FP2_TESTS(E, F)                                                                   \
    static void E##_inline_tests(void) {                                                  \
        size_t bad = 0;                                                                   \
        for (int i = 0; i < ROUNDS; i++) {                                                \
            E a, b, r1, r2;                                                               \
            F##_value(&a.c0, i), F##_value(&a.c1, i / 3);                                 \
            F##_value(&b.c0, i / 7), F##_value(&b.c1, i + 5);                             \
            E##_add(&r1, &a, &b), E##_add_inl(&r2, &a, &b);                               \
            bad += !!memcmp(&r1, &r2, sizeof r1);                                         \
            E##_sub(&r1, &a, &b), E##_sub_inl(&r2, &a, &b);                               \
            bad += !!memcmp(&r1, &r2, sizeof r1);                                         \
            E##_mul(&r1, &a, &b), E##_mul_inl(&r2, &a, &b);                               \
            bad += !!memcmp(&r1, &r2, sizeof r1);                                         \
            E##_sqr(&r1, &a), E##_sqr_inl(&r2, &a);                                       \
            bad += !!memcmp(&r1, &r2, sizeof r1);                                         \
            E##_neg(&r1, &a), E##_neg_inl(&r2, &a);                                       \
            bad += !!memcmp(&r1, &r2, sizeof r1);                                         \
            E##_dbl(&r1, &a), E##_dbl_inl(&r2, &a);                                       \
            bad += !!memcmp(&r1, &r2, sizeof r1);                                         \
            bad += E##_eq(&a, &b) != E##_eq_inl(&a, &b) ||                                \
                   E##_eq(&a, &a) != E##_eq_inl(&a, &a) ||                                \
                   E##_is_zero(&a) != E##_is_zero_inl(&a);                                \
        }                                                                                 \
        E z1, z2;                                                                         \
        E##_set_one(&z1), E##_set_one_inl(&z2);                                           \
        bad += !!memcmp(&z1, &z2, sizeof z1);                                             \
        E##_set_zero(&z1), E##_set_zero_inl(&z2);                                         \
        bad += !!memcmp(&z1, &z2, sizeof z1) || !E##_is_zero_inl(&z2);                    \
        CHECK(bad == 0, "%s: %zu inline results differ", #E, bad);                        \
    }
FP2_TESTS(bls12_381_fp2, bls12_381_fp)
FP2_TESTS(bn254_fp2, bn254_fp)

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_field_inline");
    bls12_381_fp_inline_tests();
    bls12_381_fr_inline_tests();
    bn254_fp_inline_tests();
    bn254_fr_inline_tests();
    bls12_381_fp2_inline_tests();
    bn254_fp2_inline_tests();
    return tu_finish();
}

#else /* ---- template, instantiated per field (TEST_FIELD) --------------- */

#define FX(x) CUZK_PASTE(TEST_FIELD, x)

/* Value number i: 0, 1 and p - 1 (Montgomery images) for i < 9 in turn,
 * else a random value below p. */
static void FX(value)(TEST_FIELD *a, int i) {
    uint64_t l[TEST_N];
    switch (i < 9 ? i % 3 : 3) {
    case 0:
        FX(set_zero)(a);
        return;
    case 1:
        FX(set_one)(a);
        return;
    case 2:
        FX(set_one)(a);
        FX(neg)(a, a);
        return;
    default:
        tu_rand_below(l, FX(modulus), TEST_N);
        memcpy(a->l, l, sizeof l);
    }
}

static void FX(inline_tests)(void) {
    size_t bad = 0;
    for (int i = 0; i < ROUNDS; i++) {
        TEST_FIELD a, b, r1, r2;
        FX(value)(&a, i);
        FX(value)(&b, i < 9 ? i / 3 : i);
        FX(add)(&r1, &a, &b), FX(add_inl)(&r2, &a, &b);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        FX(sub)(&r1, &a, &b), FX(sub_inl)(&r2, &a, &b);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        FX(mul)(&r1, &a, &b), FX(mul_inl)(&r2, &a, &b);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        FX(sqr)(&r1, &a), FX(sqr_inl)(&r2, &a);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        FX(neg)(&r1, &a), FX(neg_inl)(&r2, &a);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        FX(dbl)(&r1, &a), FX(dbl_inl)(&r2, &a);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        /* aliasing: r is an input */
        r1 = a, r2 = a;
        FX(mul)(&r1, &r1, &b), FX(mul_inl)(&r2, &r2, &b);
        bad += !!memcmp(&r1, &r2, sizeof r1);
        uint64_t p1[TEST_N], p2[TEST_N];
        FX(from_mont)(p1, &a), FX(from_mont_inl)(p2, &a);
        bad += !!memcmp(p1, p2, sizeof p1);
        bad += FX(eq)(&a, &b) != FX(eq_inl)(&a, &b) || FX(eq)(&a, &a) != FX(eq_inl)(&a, &a) ||
               FX(is_zero)(&a) != FX(is_zero_inl)(&a);
    }
    TEST_FIELD z1, z2;
    FX(set_one)(&z1), FX(set_one_inl)(&z2);
    bad += !!memcmp(&z1, &z2, sizeof z1);
    FX(set_zero)(&z1), FX(set_zero_inl)(&z2);
    bad += !!memcmp(&z1, &z2, sizeof z1) || !FX(is_zero_inl)(&z2);
    CHECK(bad == 0, "%s: %zu inline results differ (field asm %s)", TU_STR(TEST_FIELD), bad,
          cuzk_field_uses_asm() ? "on" : "off");
}

#undef FX

#endif
