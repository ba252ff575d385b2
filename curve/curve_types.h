/*
 * Point types of G1 and G2 for both curves (the operations are in curve.h).
 *
 *   *_affine  (x, y); the point at infinity is x = y = 0, which is never on
 *             either curve (b != 0), and is also how snarkjs stores it, so a
 *             zkey's point arrays can be used in place.
 *   (plain)   Jacobian (X, Y, Z) with x = X/Z^2, y = Y/Z^3; Z = 0 is infinity.
 *   *_xyzz    extended (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *             ZZ = 0 is infinity.  Used for MSM buckets.
 * G1 coordinates live in Fp, G2 coordinates in Fp2 (the sextic twist).
 */
#ifndef CUZK_CURVE_TYPES_H
#define CUZK_CURVE_TYPES_H

#include "field/field.h"
#include "field/fp2.h"

#define CUZK_POINT_TYPES(G, F)                                                \
    typedef struct G##_affine {                                               \
        F x, y;                                                               \
    } G##_affine;                                                             \
    typedef struct G {                                                        \
        F X, Y, Z;                                                            \
    } G;                                                                      \
    typedef struct G##_xyzz {                                                 \
        F X, Y, ZZ, ZZZ;                                                      \
    } G##_xyzz;

CUZK_POINT_TYPES(bls12_381_g1, bls12_381_fp)
CUZK_POINT_TYPES(bls12_381_g2, bls12_381_fp2)
CUZK_POINT_TYPES(bn254_g1, bn254_fp)
CUZK_POINT_TYPES(bn254_g2, bn254_fp2)

#endif
