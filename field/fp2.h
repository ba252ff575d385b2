/*
 * Quadratic extensions Fp2 = Fp[u]/(u^2 + 1) of both curves' base fields.
 *
 * Element c0 + c1*u, both halves in Montgomery form (c0 first, which is also
 * the snarkjs/zkey byte order).  For each E in {bls12_381_fp2, bn254_fp2}:
 *   E_add, E_sub, E_neg, E_dbl, E_mul, E_sqr, E_conj, E_mul_fp (by a base
 *   field element), E_mul_xi (by the sextic non-residue xi of the curve's
 *   tower: u+1 for BLS12-381, 9+u for BN254), E_inv (constant time, 0 -> 0),
 *   E_inv_var, E_pow, E_sqrt (1 and a root, or 0), E_is_square,
 *   E_set_zero/E_set_one, E_is_zero, E_is_one, E_eq.
 * Thread safety: pure functions.  r may alias inputs.
 */
#ifndef CUZK_FP2_H
#define CUZK_FP2_H

#include "field/field.h"

#define CUZK_FP2_DECLARE(E, F)                                                \
    typedef struct E {                                                        \
        F c0, c1;                                                             \
    } E;                                                                      \
    void E##_add(E *r, const E *a, const E *b);                               \
    void E##_sub(E *r, const E *a, const E *b);                               \
    void E##_neg(E *r, const E *a);                                           \
    void E##_dbl(E *r, const E *a);                                           \
    void E##_mul(E *r, const E *a, const E *b);                               \
    void E##_sqr(E *r, const E *a);                                           \
    void E##_conj(E *r, const E *a);                                          \
    void E##_mul_fp(E *r, const E *a, const F *b);                            \
    void E##_mul_xi(E *r, const E *a);                                        \
    void E##_inv(E *r, const E *a);                                           \
    void E##_inv_var(E *r, const E *a);                                       \
    void E##_pow(E *r, const E *a, const uint64_t *e, size_t e_limbs);       \
    int E##_sqrt(E *r, const E *a);                                           \
    int E##_is_square(const E *a);                                            \
    void E##_set_zero(E *r);                                                  \
    void E##_set_one(E *r);                                                   \
    int E##_is_zero(const E *a);                                              \
    int E##_is_one(const E *a);                                               \
    int E##_eq(const E *a, const E *b);

CUZK_FP2_DECLARE(bls12_381_fp2, bls12_381_fp)
CUZK_FP2_DECLARE(bn254_fp2, bn254_fp)

#endif
