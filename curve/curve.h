/*
 * Group operations of G1 and G2 of BLS12-381 and BN254.
 *
 * The point types (affine, Jacobian, XYZZ) are in curve_types.h.  Every group
 * G in {bls12_381_g1, bls12_381_g2, bn254_g1, bn254_g2} has the same API,
 * declared by CUZK_CURVE_DECLARE below and implemented once in curve_template.h
 * (instantiated four times by curve.c).  F is the coordinate field
 * (bls12_381_fp, bls12_381_fp2, bn254_fp, bn254_fp2), S the scalar field
 * (bls12_381_fr, bn254_fr).  All curves are y^2 = x^3 + b (a = 0).
 *
 * Conventions
 *   - Output first, then inputs.  Outputs may alias inputs everywhere unless
 *     a line below says otherwise.
 *   - Affine infinity is x = y = 0 (never on the curve since b != 0);
 *     Jacobian infinity is Z = 0; XYZZ infinity is ZZ = 0.
 *   - Every operation accepts infinity on any input and every operation is
 *     "complete": additions handle P + P, P + (-P) and P + O correctly.
 *   - Inputs are assumed to be valid points (on the curve; coordinates in
 *     Montgomery form, fully reduced).  Validation is the decoders' job
 *     (encode.h) and G_affine_on_curve / G_affine_in_subgroup.
 *   - No function allocates or keeps global state; all are thread safe.
 *   - Only G_mul is meant for secret scalars (regular fixed-window sequence,
 *     masked table lookup); everything else is variable time.
 *
 * Functions (G = group prefix)
 *   G_set_inf, G_is_inf, G_affine_set_inf, G_affine_is_inf, G_xyzz_set_inf,
 *   G_xyzz_is_inf        the point at infinity
 *   G_generator          the standard generator (consts_gen.h)
 *   G_from_affine        affine -> Jacobian (infinity -> Z = 0)
 *   G_to_affine          Jacobian -> affine (one inversion)
 *   G_batch_to_affine    n points, one inversion (Montgomery's trick); |out|
 *                        must not overlap |in|; uses |out| as scratch
 *   G_add                Jacobian + Jacobian   (add-2007-bl, 11M + 5S)
 *   G_add_affine         Jacobian + affine     (madd-2007-bl, 7M + 4S)
 *   G_dbl                2P                    (dbl-2009-l, 2M + 5S)
 *   G_sub                a - b
 *   G_neg, G_affine_neg  -P
 *   G_eq                 projective equality (any Z, infinity == infinity)
 *   G_affine_eq          coordinate equality of two affine points
 *   G_mul                [k]P, k in S (Montgomery form); fixed 4-bit window
 *                        over all 64 windows of the 256-bit integer, table
 *                        read by a masked scan (see curve_template.h for what is
 *                        and is not constant time)
 *   G_mul_limbs          [k]P for a plain little-endian integer of |k_limbs|
 *                        limbs (any size, e.g. cofactors, r); variable time
 *                        (sliding window)
 *   G_affine_on_curve    1 iff y^2 = x^3 + b, or the point is infinity
 *   G_affine_in_subgroup 1 iff on the curve and in the order-r subgroup
 *                        (infinity: 1).  Fast endomorphism tests, see
 *                        curve_template.h / curve.c for the justification.
 *   G_xyzz_add_affine    XYZZ + affine  (madd-2008-s, 8M + 2S)
 *   G_xyzz_add           XYZZ + XYZZ    (add-2008-s, 12M + 2S)
 *   G_xyzz_dbl           2P in XYZZ     (dbl-2008-s-1, 6M + 3S)
 *   G_xyzz_from_affine   affine -> XYZZ
 *   G_xyzz_to_jacobian   XYZZ -> Jacobian, no inversion (2M + 2S)
 *   G_msm_naive          sum of [k_i]P_i by n scalar multiplications; the
 *                        test reference for msm/, not for production
 *
 * Extra per-curve maps (declared after the groups):
 *   bls12_381_g1_phi     (x, y) -> (beta x, y), acts as [-x^2] on G1
 *   bls12_381_g2_psi, bn254_g2_psi   untwist-Frobenius-twist; acts as [p]
 *                        on G2 (i.e. [x] for BLS12-381, [6u^2] for BN254)
 */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve_types.h"
#include "field/field.h"
#include "field/fp2.h"

#define CUZK_CURVE_DECLARE(G, F, S)                                           \
    void G##_set_inf(G *r);                                                   \
    int G##_is_inf(const G *a);                                               \
    void G##_affine_set_inf(G##_affine *r);                                   \
    int G##_affine_is_inf(const G##_affine *a);                               \
    void G##_generator(G##_affine *r);                                        \
    void G##_from_affine(G *r, const G##_affine *a);                          \
    void G##_to_affine(G##_affine *r, const G *a);                            \
    void G##_batch_to_affine(G##_affine *out, const G *in, size_t n);         \
    void G##_add(G *r, const G *a, const G *b);                               \
    void G##_dbl(G *r, const G *a);                                           \
    void G##_add_affine(G *r, const G *a, const G##_affine *b);               \
    void G##_sub(G *r, const G *a, const G *b);                               \
    void G##_neg(G *r, const G *a);                                           \
    void G##_affine_neg(G##_affine *r, const G##_affine *a);                  \
    int G##_eq(const G *a, const G *b);                                       \
    int G##_affine_eq(const G##_affine *a, const G##_affine *b);              \
    void G##_mul(G *r, const G *a, const S *k);                               \
    void G##_mul_limbs(G *r, const G *a, const uint64_t *k, size_t k_limbs);  \
    int G##_affine_on_curve(const G##_affine *a);                             \
    int G##_affine_in_subgroup(const G##_affine *a);                          \
    void G##_xyzz_set_inf(G##_xyzz *r);                                       \
    int G##_xyzz_is_inf(const G##_xyzz *a);                                   \
    void G##_xyzz_from_affine(G##_xyzz *r, const G##_affine *a);              \
    void G##_xyzz_add_affine(G##_xyzz *r, const G##_xyzz *a,                  \
                             const G##_affine *b);                            \
    void G##_xyzz_add(G##_xyzz *r, const G##_xyzz *a, const G##_xyzz *b);     \
    void G##_xyzz_dbl(G##_xyzz *r, const G##_xyzz *a);                        \
    void G##_xyzz_to_jacobian(G *r, const G##_xyzz *a);                       \
    void G##_msm_naive(G *r, const G##_affine *bases, const S *scalars,       \
                       size_t n);

CUZK_CURVE_DECLARE(bls12_381_g1, bls12_381_fp, bls12_381_fr)
CUZK_CURVE_DECLARE(bls12_381_g2, bls12_381_fp2, bls12_381_fr)
CUZK_CURVE_DECLARE(bn254_g1, bn254_fp, bn254_fr)
CUZK_CURVE_DECLARE(bn254_g2, bn254_fp2, bn254_fr)

/* phi(x, y) = (beta x, y) with the cube root of unity beta chosen so that
 * phi acts on G1 as multiplication by -x^2 (x the BLS12-381 seed).
 * Jacobian in and out (Z is untouched). */
void bls12_381_g1_phi(bls12_381_g1 *r, const bls12_381_g1 *a);

/* psi = twist o Frobenius o untwist on the G2 twist curve, in Jacobian
 * coordinates: (X, Y, Z) -> (cx conj(X), cy conj(Y), conj(Z)).  On G2 it
 * acts as multiplication by p mod r, which is x for BLS12-381 (x negative)
 * and 6u^2 for BN254. */
void bls12_381_g2_psi(bls12_381_g2 *r, const bls12_381_g2 *a);
void bn254_g2_psi(bn254_g2 *r, const bn254_g2 *a);

#endif
