/*
 * Inline forms of the field operations that hot loops call millions of
 * times (the MSM's bucket additions and point formulas, the NTT's
 * butterflies), for Fp and Fr of both curves and for their Fp2.
 *
 * Why: the out-of-line F_mul and F_sub of field.c (bodies and calls)
 * held about 45% of a BN254 2^16 CPU proof's samples; inlined, a formula
 * pays no call, argument copy or per-call test of the CPU's mulx/adx
 * support, and the compiler keeps operands in registers across it (a
 * BN254 G1 MSM of 2^16 on one thread: 380-390 ms against 410-450, best of
 * 5, loaded 2-core VM).
 *
 * The routines are the ones field.c runs (field_impl.h's limb code and the
 * generated mulx/adx product of mont_x86_gen.h, chosen by the same test,
 * cuzk_field_uses_asm()), and every output is fully reduced, so results
 * are bit-identical to the out-of-line functions.
 *
 * For each field F (bls12_381_fp, bls12_381_fr, bn254_fp, bn254_fr) and
 * each E (bls12_381_fp2, bn254_fp2):
 *   F_add_inl, F_sub_inl, F_neg_inl, F_dbl_inl, F_mul_inl, F_sqr_inl,
 *   F_set_zero_inl, F_set_one_inl, F_is_zero_inl, F_eq_inl, and for F
 *   alone F_from_mont_inl, with the arguments of their out-of-line
 *   namesakes (r may alias inputs).
 *
 * Must not: hold state beyond the cached answer of cuzk_field_uses_asm()
 * (read once per translation unit, a relaxed atomic), or be used for
 * anything that must run in constant time beyond what field.c promises.
 */
#ifndef CUZK_FIELD_INLINE_H
#define CUZK_FIELD_INLINE_H

#include <stdint.h>
#include <string.h>

#include "field/consts_gen.h"
#include "field/field.h"
#include "field/field_impl.h"
#include "field/fp2.h"

#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
#include "field/mont_x86_gen.h"
#define CUZK_FI_ADX 1
#else
#define CUZK_FI_ADX 0
#endif

/* cuzk_field_uses_asm(), asked once per translation unit. */
CUZK_INLINE int cuzk_fi_asm(void) {
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (__builtin_expect(v < 0, 0)) {
        v = cuzk_field_uses_asm();
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* r = a + b mod p with the carry flag and a branch-free select (the form
 * gcc compiles to adc/sbb; limbs_reduce_once's arrays stay in memory). */
CUZK_INLINE void cuzk_fi_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                             const uint64_t *p, size_t n) {
    uint64_t s[CUZK_MAX_LIMBS], d[CUZK_MAX_LIMBS];
    unsigned char c = 0, w = 0;
    for (size_t i = 0; i < n; i++)
        c = CUZK_ADDC(c, a[i], b[i], &s[i]);
    for (size_t i = 0; i < n; i++)
        w = CUZK_SUBB(w, s[i], p[i], &d[i]);
    /* a + b < 2p < 2^(64n): no carry out; keep s if s - p borrowed */
    uint64_t keep = 0 - (uint64_t)w;
    for (size_t i = 0; i < n; i++)
        r[i] = (s[i] & keep) | (d[i] & ~keep);
}

CUZK_INLINE void cuzk_fi_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                             const uint64_t *p, size_t n) {
    uint64_t d[CUZK_MAX_LIMBS];
    unsigned char w = 0, c = 0;
    for (size_t i = 0; i < n; i++)
        w = CUZK_SUBB(w, a[i], b[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)w; /* add p back if a < b */
    for (size_t i = 0; i < n; i++)
        c = CUZK_ADDC(c, d[i], p[i] & mask, &r[i]);
}

#if CUZK_FI_ADX
#define CUZK_FI_MUL_ADX(N, t, a, b, p, n0) cuzk_mont_mul_##N##_adx(t, a, b, p, n0)
#else
#define CUZK_FI_MUL_ADX(N, t, a, b, p, n0) ((void)0)
#endif

#define CUZK_FIELD_INLINE(F, N, C)                                            \
    static const uint64_t F##_inl_p[N] = C##_P;                               \
    static const uint64_t F##_inl_one[N] = C##_ONE;                           \
    CUZK_INLINE void F##_add_inl(F *r, const F *a, const F *b) {              \
        cuzk_fi_add(r->l, a->l, b->l, F##_inl_p, N);                          \
    }                                                                         \
    CUZK_INLINE void F##_sub_inl(F *r, const F *a, const F *b) {              \
        cuzk_fi_sub(r->l, a->l, b->l, F##_inl_p, N);                          \
    }                                                                         \
    CUZK_INLINE void F##_dbl_inl(F *r, const F *a) {                          \
        cuzk_fi_add(r->l, a->l, a->l, F##_inl_p, N);                          \
    }                                                                         \
    CUZK_INLINE void F##_neg_inl(F *r, const F *a) {                          \
        mod_neg_n(r->l, a->l, F##_inl_p, N);                                  \
    }                                                                         \
    CUZK_INLINE void F##_mul_inl(F *r, const F *a, const F *b) {              \
        if (CUZK_FI_ADX && cuzk_fi_asm()) {                                   \
            uint64_t t[N];                                                    \
            CUZK_FI_MUL_ADX(N, t, a->l, b->l, F##_inl_p, C##_N0);             \
            limbs_reduce_once(r->l, t, F##_inl_p, N);                         \
        } else {                                                              \
            F##_mul(r, a, b); /* portable: out of line, the code stays small */ \
        }                                                                     \
    }                                                                         \
    CUZK_INLINE void F##_sqr_inl(F *r, const F *a) { F##_mul_inl(r, a, a); }  \
    CUZK_INLINE void F##_set_zero_inl(F *r) { memset(r, 0, sizeof *r); }      \
    CUZK_INLINE void F##_set_one_inl(F *r) {                                  \
        memcpy(r->l, F##_inl_one, sizeof r->l);                               \
    }                                                                         \
    CUZK_INLINE int F##_is_zero_inl(const F *a) {                             \
        return limbs_is_zero(a->l, N);                                        \
    }                                                                         \
    CUZK_INLINE int F##_eq_inl(const F *a, const F *b) {                      \
        return limbs_eq(a->l, b->l, N);                                       \
    }                                                                         \
    CUZK_INLINE void F##_from_mont_inl(uint64_t out[N], const F *a) {         \
        mont_redc_n(out, a->l, F##_inl_p, C##_N0, N);                         \
    }

CUZK_FIELD_INLINE(bls12_381_fp, 6, BLS12_381_FP)
CUZK_FIELD_INLINE(bls12_381_fr, 4, BLS12_381_FR)
CUZK_FIELD_INLINE(bn254_fp, 4, BN254_FP)
CUZK_FIELD_INLINE(bn254_fr, 4, BN254_FR)

/* Fp2 = Fp[u]/(u^2 + 1) on both curves (field/fp2.h); the product is
 * Karatsuba's, 3M, the square (a0 + a1)(a0 - a1) + 2 a0 a1 u, 2M.  Both
 * are calls (one copy per translation unit, the Fp products inlined in
 * it): inlined into every G2 formula they made the MSM's code larger than
 * the instruction cache. */
#define CUZK_FI_CALL static __attribute__((noinline, unused))
#define CUZK_FP2_INLINE(E, F)                                                 \
    CUZK_INLINE void E##_add_inl(E *r, const E *a, const E *b) {              \
        F##_add_inl(&r->c0, &a->c0, &b->c0);                                  \
        F##_add_inl(&r->c1, &a->c1, &b->c1);                                  \
    }                                                                         \
    CUZK_INLINE void E##_sub_inl(E *r, const E *a, const E *b) {              \
        F##_sub_inl(&r->c0, &a->c0, &b->c0);                                  \
        F##_sub_inl(&r->c1, &a->c1, &b->c1);                                  \
    }                                                                         \
    CUZK_INLINE void E##_dbl_inl(E *r, const E *a) {                          \
        F##_dbl_inl(&r->c0, &a->c0);                                          \
        F##_dbl_inl(&r->c1, &a->c1);                                          \
    }                                                                         \
    CUZK_INLINE void E##_neg_inl(E *r, const E *a) {                          \
        F##_neg_inl(&r->c0, &a->c0);                                          \
        F##_neg_inl(&r->c1, &a->c1);                                          \
    }                                                                         \
    CUZK_FI_CALL void E##_mul_inl(E *r, const E *a, const E *b) {             \
        F p00, p11, sa, sb;                                                   \
        F##_mul_inl(&p00, &a->c0, &b->c0);                                    \
        F##_mul_inl(&p11, &a->c1, &b->c1);                                    \
        F##_add_inl(&sa, &a->c0, &a->c1);                                     \
        F##_add_inl(&sb, &b->c0, &b->c1);                                     \
        F##_mul_inl(&sa, &sa, &sb);             /* (a0+a1)(b0+b1) */          \
        F##_sub_inl(&r->c0, &p00, &p11);        /* a0 b0 - a1 b1 */           \
        F##_sub_inl(&sa, &sa, &p00);                                          \
        F##_sub_inl(&r->c1, &sa, &p11);         /* a0 b1 + a1 b0 */           \
    }                                                                         \
    CUZK_FI_CALL void E##_sqr_inl(E *r, const E *a) {                         \
        F s, d, m;                                                            \
        F##_add_inl(&s, &a->c0, &a->c1);                                      \
        F##_sub_inl(&d, &a->c0, &a->c1);                                      \
        F##_mul_inl(&m, &a->c0, &a->c1);                                      \
        F##_mul_inl(&r->c0, &s, &d);                                          \
        F##_dbl_inl(&r->c1, &m);                                              \
    }                                                                         \
    CUZK_INLINE void E##_set_zero_inl(E *r) { memset(r, 0, sizeof *r); }      \
    CUZK_INLINE void E##_set_one_inl(E *r) {                                  \
        F##_set_one_inl(&r->c0);                                              \
        F##_set_zero_inl(&r->c1);                                             \
    }                                                                         \
    CUZK_INLINE int E##_is_zero_inl(const E *a) {                             \
        return F##_is_zero_inl(&a->c0) & F##_is_zero_inl(&a->c1);             \
    }                                                                         \
    CUZK_INLINE int E##_eq_inl(const E *a, const E *b) {                      \
        return F##_eq_inl(&a->c0, &b->c0) & F##_eq_inl(&a->c1, &b->c1);       \
    }

CUZK_FP2_INLINE(bls12_381_fp2, bls12_381_fp)
CUZK_FP2_INLINE(bn254_fp2, bn254_fp)

#endif
