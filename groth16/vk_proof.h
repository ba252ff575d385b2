/*
 * Verification keys and proofs of either curve: plain data that the file
 * formats read and write (formats/json.h, the raw proof encodings of
 * curve_facts.h) and the prover makes and checks (prover/groth16.h,
 * prover/key.h).
 *
 * Why here and not beside the prover: the readers sit below the prover
 * and must not include it, yet they fill these structs; defining them at
 * the bottom lets every layer name them without depending on another.
 * Nothing here computes: a vk's IC array is owned by the vk and freed
 * with cuzk_vk_clear (prover/key.h).
 *
 * Thread safety: types only.
 */
#ifndef CUZK_GROTH16_VK_PROOF_H
#define CUZK_GROTH16_VK_PROOF_H

#include <stddef.h>

#include "curve/curve_types.h"
#include "groth16/curve_id.h"

#define CUZK_VK_PROOF_DECLARE(P)                                              \
    typedef struct P##_groth16_vk {                                           \
        P##_g1_affine alpha1;                                                 \
        P##_g2_affine beta2, gamma2, delta2;                                  \
        size_t n_public;                                                      \
        P##_g1_affine *ic; /* n_public + 1, owned (free with _vk_free) */     \
    } P##_groth16_vk;                                                         \
    typedef struct P##_groth16_proof {                                        \
        P##_g1_affine a;                                                      \
        P##_g2_affine b;                                                      \
        P##_g1_affine c;                                                      \
    } P##_groth16_proof;

CUZK_VK_PROOF_DECLARE(bls12_381)
CUZK_VK_PROOF_DECLARE(bn254)

typedef struct cuzk_proof {
    cuzk_curve curve;
    union {
        bls12_381_groth16_proof bls12_381;
        bn254_groth16_proof bn254;
    } p;
} cuzk_proof;

typedef struct cuzk_vk {
    cuzk_curve curve;
    union {
        bls12_381_groth16_vk bls12_381;
        bn254_groth16_vk bn254;
    } vk;
} cuzk_vk;

#endif
