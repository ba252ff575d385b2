/*
 * The Fp6 and Fp12 towers above Fp2 for both curves, as the pairing uses them.
 *
 *   Fp6  = Fp2[v] / (v^3 - xi)    element c0 + c1 v + c2 v^2
 *   Fp12 = Fp6[w] / (w^2 - v)     element c0 + c1 w
 * with xi = u + 1 (BLS12-381) or 9 + u (BN254), the non-residue of fp2.h.
 * noble-curves builds the same tower (tests/test_pairing.c compares against
 * its values coefficient by coefficient).  Over Fp2 the six coefficients of an
 * Fp12 element are those of w^0, w^2, w^4 (c0.c0, c0.c1, c0.c2) and
 * w^1, w^3, w^5 (c1.c0, c1.c1, c1.c2), since v = w^2 and w^6 = xi.
 *
 * For each curve P in {bls12_381, bn254} (types P_fp6 and P_fp12, declared by
 * CUZK_TOWER_DECLARE, implemented once in tower_template.h):
 *
 *   Fp6: add, sub, neg, dbl, mul, sqr, inv, inv_var, mul_by_nonresidue (times
 *        v), mul_fp2 (by a scalar of Fp2), mul_by_1 (by b1 v), mul_by_01 (by
 *        b0 + b1 v), frobenius, set_zero, set_one, is_zero, is_one, eq.
 *   Fp12: add, sub, neg, mul, sqr, inv, inv_var, conj (the p^6-power map,
 *        c0 - c1 w; it is the inverse on the cyclotomic subgroup),
 *        mul_by_nonresidue (times w), frobenius, mul_by_014 and mul_by_034
 *        (by a sparse "line" element, see below), cyclotomic_sqr,
 *        cyclotomic_pow, pow, set_zero, set_one, is_zero, is_one, eq.
 *
 * Conventions: r may alias any input.  Elements are fully reduced (each Fp
 * limb vector < p) on input and output.  inv maps 0 to 0; inv is built on
 * the constant-time Fp inverse, inv_var on the variable-time one.  pow and
 * cyclotomic_pow take a little-endian exponent of |e_limbs| 64-bit limbs and
 * run in time that depends on the exponent (public everywhere we use it).
 * Thread safety: pure functions, no global state, no allocation.
 * Must not: depend on curve/ or pairing/ (the dependency goes the other way).
 */
#ifndef CUZK_TOWER_H
#define CUZK_TOWER_H

#include <stddef.h>
#include <stdint.h>

#include "field/field.h"
#include "field/fp2.h"

#define CUZK_TOWER_DECLARE(P)                                                 \
    typedef struct P##_fp6 {                                                  \
        P##_fp2 c0, c1, c2;                                                   \
    } P##_fp6;                                                                \
    typedef struct P##_fp12 {                                                 \
        P##_fp6 c0, c1;                                                       \
    } P##_fp12;                                                               \
    void P##_fp6_add(P##_fp6 *r, const P##_fp6 *a, const P##_fp6 *b);         \
    void P##_fp6_sub(P##_fp6 *r, const P##_fp6 *a, const P##_fp6 *b);         \
    void P##_fp6_neg(P##_fp6 *r, const P##_fp6 *a);                           \
    void P##_fp6_dbl(P##_fp6 *r, const P##_fp6 *a);                           \
    void P##_fp6_mul(P##_fp6 *r, const P##_fp6 *a, const P##_fp6 *b);         \
    void P##_fp6_sqr(P##_fp6 *r, const P##_fp6 *a);                           \
    void P##_fp6_inv(P##_fp6 *r, const P##_fp6 *a);                           \
    void P##_fp6_inv_var(P##_fp6 *r, const P##_fp6 *a);                       \
    void P##_fp6_mul_by_nonresidue(P##_fp6 *r, const P##_fp6 *a);             \
    void P##_fp6_mul_fp2(P##_fp6 *r, const P##_fp6 *a, const P##_fp2 *b);     \
    void P##_fp6_mul_by_1(P##_fp6 *r, const P##_fp6 *a, const P##_fp2 *b1);   \
    void P##_fp6_mul_by_01(P##_fp6 *r, const P##_fp6 *a, const P##_fp2 *b0,   \
                           const P##_fp2 *b1);                                \
    void P##_fp6_frobenius(P##_fp6 *r, const P##_fp6 *a, unsigned power);     \
    void P##_fp6_set_zero(P##_fp6 *r);                                        \
    void P##_fp6_set_one(P##_fp6 *r);                                         \
    int P##_fp6_is_zero(const P##_fp6 *a);                                    \
    int P##_fp6_is_one(const P##_fp6 *a);                                     \
    int P##_fp6_eq(const P##_fp6 *a, const P##_fp6 *b);                       \
    void P##_fp12_add(P##_fp12 *r, const P##_fp12 *a, const P##_fp12 *b);     \
    void P##_fp12_sub(P##_fp12 *r, const P##_fp12 *a, const P##_fp12 *b);     \
    void P##_fp12_neg(P##_fp12 *r, const P##_fp12 *a);                        \
    void P##_fp12_mul(P##_fp12 *r, const P##_fp12 *a, const P##_fp12 *b);     \
    void P##_fp12_sqr(P##_fp12 *r, const P##_fp12 *a);                        \
    void P##_fp12_inv(P##_fp12 *r, const P##_fp12 *a);                        \
    void P##_fp12_inv_var(P##_fp12 *r, const P##_fp12 *a);                    \
    void P##_fp12_conj(P##_fp12 *r, const P##_fp12 *a);                       \
    void P##_fp12_mul_by_nonresidue(P##_fp12 *r, const P##_fp12 *a);          \
    void P##_fp12_frobenius(P##_fp12 *r, const P##_fp12 *a, unsigned power);  \
    void P##_fp12_mul_by_014(P##_fp12 *r, const P##_fp12 *a,                  \
                             const P##_fp2 *c0, const P##_fp2 *c1,            \
                             const P##_fp2 *c4);                              \
    void P##_fp12_mul_by_034(P##_fp12 *r, const P##_fp12 *a,                  \
                             const P##_fp2 *c0, const P##_fp2 *c3,            \
                             const P##_fp2 *c4);                              \
    void P##_fp12_cyclotomic_sqr(P##_fp12 *r, const P##_fp12 *a);             \
    void P##_fp12_cyclotomic_pow(P##_fp12 *r, const P##_fp12 *a,              \
                                 const uint64_t *e, size_t e_limbs);          \
    void P##_fp12_pow(P##_fp12 *r, const P##_fp12 *a, const uint64_t *e,      \
                      size_t e_limbs);                                        \
    void P##_fp12_set_zero(P##_fp12 *r);                                      \
    void P##_fp12_set_one(P##_fp12 *r);                                       \
    int P##_fp12_is_zero(const P##_fp12 *a);                                  \
    int P##_fp12_is_one(const P##_fp12 *a);                                   \
    int P##_fp12_eq(const P##_fp12 *a, const P##_fp12 *b);

/*
 * Notes on the less obvious entry points (same for both curves):
 *
 * P_fp6_frobenius(r, a, power), P_fp12_frobenius(r, a, power):
 *   r = a^(p^power) for any |power| (taken mod 6, resp. mod 12).  Powers 1, 2
 *   and 3 cost one pass each with the FROB1/2/3 coefficients of consts_gen.h;
 *   other powers are composed from them.
 *
 * P_fp12_mul_by_014(r, a, c0, c1, c4):
 *   r = a * (c0 + c1 v + c4 v w): the coefficients at positions 0, 1 and 4
 *   (c0.c0, c0.c1, c1.c1) are the only non-zero ones.  This is the shape of a
 *   line function for an M-type twist (BLS12-381).  13 Fp2 products instead
 *   of the 18 of a full product.
 *
 * P_fp12_mul_by_034(r, a, c0, c3, c4):
 *   r = a * (c0 + (c3 + c4 v) w): positions 0, 3 and 4 (c0.c0, c1.c0,
 *   c1.c1); the line shape for a D-type twist (BN254).  13 Fp2 products.
 *
 * P_fp12_cyclotomic_sqr(r, a):
 *   r = a^2, valid only when a is in the cyclotomic subgroup (its order
 *   divides p^4 - p^2 + 1; every f^((p^6-1)(p^2+1)) with f != 0 is).
 *   Granger-Scott: 9 Fp2 squarings instead of 12 Fp2 products.  Gives a
 *   wrong value (not a crash) on other inputs.
 *
 * P_fp12_cyclotomic_pow(r, a, e, e_limbs):
 *   r = a^e for a in the cyclotomic subgroup, using cyclotomic squarings and
 *   a signed-digit (NAF) form of e, since conj is a free inverse there.
 *   e_limbs <= 8; longer exponents fall back to P_fp12_pow.
 */
CUZK_TOWER_DECLARE(bls12_381)
CUZK_TOWER_DECLARE(bn254)

#endif
