/*
 * Optimal ate pairing e: G1 x G2 -> GT (a subgroup of Fp12*) for BLS12-381
 * and BN254, on the CPU, for proof verification and self-checks.
 *
 * For each curve P in {bls12_381, bn254}:
 *
 *   void P_pairing(P_fp12 *r, const P_g1_affine *p, const P_g2_affine *q);
 *       r = e(p, q): one Miller loop and one final exponentiation.
 *
 *   void P_miller_loop_n(P_fp12 *r, const P_g1_affine *p,
 *                        const P_g2_affine *q, size_t n);
 *       r = prod_i f(p[i], q[i]), the product of the n Miller loops, with the
 *       squarings of the accumulator shared by all pairs.  A pair with p[i]
 *       or q[i] at infinity (affine x = y = 0) contributes 1; n = 0 gives 1.
 *       The value only has a meaning after P_final_exp.
 *
 *   void P_final_exp(P_fp12 *r, const P_fp12 *f);
 *       r = f^((p^12 - 1) / r * m) (see "Which power" below).  f = 0 gives 0.
 *
 *   int P_pairing_product_is_one(const P_g1_affine *p, const P_g2_affine *q,
 *                                size_t n);
 *       1 iff prod_i e(p[i], q[i]) == 1, else 0: what a Groth16 verifier asks
 *       (e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) is checked as
 *       e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) == 1).
 *
 * Which power.  Both final exponentiations compute a fixed power of the
 * textbook reduced pairing, chosen because it is cheaper and because it is
 * what noble-curves returns (tests/test_pairing.c compares byte for byte):
 *   BLS12-381: e^3 (hard part (x-1)^2 (x+p) (x^2+p^2-1) + 3, which is 3 times
 *              (p^4-p^2+1)/r; Hayashida-Hayasaka-Teruya, ePrint 2020/875);
 *   BN254:     e^(2u (6u^2+3u+1)) (Fuentes-Castaneda, Knapp,
 *              Rodriguez-Henriquez, "Faster hashing to G2", SAC 2011, sec. 5).
 * Both multipliers are prime to r, so the map is still a non-degenerate
 * bilinear pairing and every product-equals-one check gives the same answer
 * as with the textbook exponent.  Do not compare raw GT values with a library
 * that uses another exponent without raising to the ratio.  The values are
 * also those of snarkjs/ffjavascript (gen_pairing_kat.mjs checks that), so
 * e(alpha, beta) is exactly a snarkjs key's vk_alphabeta_12: that JSON's
 * 2 x 3 x 2 nesting [c0, c1] / [c0, c1, c2] / [c0, c1] is the memory order
 * of P_fp12 (c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1).
 *
 * Preconditions: inputs are valid points of G1 and G2 (on the curve and in
 * the order-r subgroup, coordinates fully reduced Montgomery form): checking
 * that is the decoders' job (curve/encode.h, G_affine_in_subgroup).  For
 * other points the functions return some Fp12 value without crashing, but it
 * is not a pairing.
 *
 * Cost and timing: no allocation (pairs are processed in blocks of
 * CUZK_PAIRING_BLOCK on the stack; a block boundary costs one extra set of
 * squarings), no global state, thread safe.  Not constant time: pairs with
 * an input at infinity are skipped and the final exponentiation inverts with
 * the variable-time Fp inverse (the Miller loop's sequence of operations
 * depends only on n).  Verification inputs are public, which is the use here.
 * Operation count of one BLS12-381 pairing: about 14,300 Fp products and
 * 60,000 Fp additions/subtractions, nearly all of them in the tower.
 * Must not: depend on curve/ beyond curve/curve_types.h.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include <stddef.h>

#include "curve/curve_types.h"
#include "field/tower.h"

#define CUZK_PAIRING_BLOCK 16

#define CUZK_PAIRING_DECLARE(P)                                               \
    void P##_pairing(P##_fp12 *r, const P##_g1_affine *p,                     \
                     const P##_g2_affine *q);                                 \
    void P##_miller_loop_n(P##_fp12 *r, const P##_g1_affine *p,               \
                           const P##_g2_affine *q, size_t n);                 \
    void P##_final_exp(P##_fp12 *r, const P##_fp12 *f);                       \
    int P##_pairing_product_is_one(const P##_g1_affine *p,                    \
                                   const P##_g2_affine *q, size_t n);

CUZK_PAIRING_DECLARE(bls12_381)
CUZK_PAIRING_DECLARE(bn254)

#endif
