/*
 * Instantiates the optimal ate pairing (see pairing.h) for both curves from
 * the one template pairing_template.h.  The per-curve choices:
 *   BLS12-381: M-type twist (b' = 4(1+u)), loop over |x| = 0xd201000000010000
 *              in binary (6 non-zero bits; its NAF is one digit longer with
 *              the same weight), x < 0 so the result is conjugated, final
 *              exponentiation after Hayashida-Hayasaka-Teruya.
 *   BN254:     D-type twist (b' = 3/(9+u)), loop over the NAF of 6u+2 (22
 *              non-zero digits instead of 37), the two Frobenius lines, final
 *              exponentiation after Fuentes-Castaneda-Knapp-Rodriguez-Henriquez
 *              with u in NAF (24 non-zero digits instead of 28).
 * Every constant comes from consts_gen.h (scripts/gen_consts.py).
 */
#include "pairing/pairing.h"

#include "field/consts_gen.h"

#define PR_P bls12_381
#define PR_C(x) BLS12_381_##x
#define PR_N 6
#define PR_TWIST_M 1
#define PR_LOOP {BLS12_381_X_ABS}
#define PR_LOOP_LIMBS 1
#define PR_LOOP_NEG 1
#define PR_LOOP_NAF 0
#define PR_BN 0
#define PR_SEED BLS12_381_X_ABS
#define PR_SEED_NEG 1
#define PR_SEED_NAF 0
#define PR_B2_4XI 1
#include "pairing/pairing_template.h"
#undef PR_P
#undef PR_C
#undef PR_N
#undef PR_TWIST_M
#undef PR_LOOP
#undef PR_LOOP_LIMBS
#undef PR_LOOP_NEG
#undef PR_LOOP_NAF
#undef PR_BN
#undef PR_SEED
#undef PR_SEED_NEG
#undef PR_SEED_NAF
#undef PR_B2_4XI

#define PR_P bn254
#define PR_C(x) BN254_##x
#define PR_N 4
#define PR_TWIST_M 0
#define PR_LOOP BN254_ATE_LOOP
#define PR_LOOP_LIMBS 2
#define PR_LOOP_NEG 0
#define PR_LOOP_NAF 1
#define PR_BN 1
#define PR_SEED BN254_U
#define PR_SEED_NEG 0
#define PR_SEED_NAF 1
#define PR_B2_4XI 0
#include "pairing/pairing_template.h"
#undef PR_P
#undef PR_C
#undef PR_N
#undef PR_TWIST_M
#undef PR_LOOP
#undef PR_LOOP_LIMBS
#undef PR_LOOP_NEG
#undef PR_LOOP_NAF
#undef PR_BN
#undef PR_SEED
#undef PR_SEED_NEG
#undef PR_SEED_NAF
#undef PR_B2_4XI
