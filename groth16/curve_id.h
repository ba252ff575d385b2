/*
 * Which pairing curve a circom/snarkjs file belongs to, and the handful of
 * scalar-field operations the file readers need without knowing the curve at
 * compile time.
 *
 * The iden3 files name their curve only by a prime: .r1cs and .wtns carry the
 * scalar field order r, .zkey carries both the base field order q and r.
 * This file maps those primes (and the curve names used in snarkjs JSON) to
 * a cuzk_curve.  It must not grow curve arithmetic: points live in curve/,
 * fields in field/.  Both scalar fields have 4 limbs, so a cuzk_fr can hold
 * an element of either; the curve that gives it meaning travels beside it.
 *
 * Thread safety: pure functions and constant tables.
 */
#ifndef CUZK_GROTH16_CURVE_ID_H
#define CUZK_GROTH16_CURVE_ID_H

#include <stddef.h>
#include <stdint.h>

#include "field/field.h"
#include "util/status.h"

/* cuzk_curve (the enum), cuzk_curve_snarkjs_name and cuzk_curve_from_name
 * are public: include/cuzk.h, included by util/status.h. */

/* A scalar-field element of either curve: 4 limbs, Montgomery form of the
 * curve it belongs to.  Same layout as bn254_fr and bls12_381_fr, so an
 * array of cuzk_fr can be used as an array of either type. */
typedef union cuzk_fr {
    uint64_t l[4];
    bn254_fr bn254;
    bls12_381_fr bls12_381;
} cuzk_fr;

_Static_assert(sizeof(cuzk_fr) == 32, "cuzk_fr must be 4 limbs");
_Static_assert(sizeof(bn254_fr) == 32 && sizeof(bls12_381_fr) == 32,
               "scalar fields must be 4 limbs");

/* Curve whose scalar field order r (|n8| bytes little-endian at |prime|)
 * this is; CUZK_CURVE_NONE if none of ours. */
cuzk_curve cuzk_curve_from_r(const uint8_t *prime, uint32_t n8);
/* Same for the base field order q. */
cuzk_curve cuzk_curve_from_q(const uint8_t *prime, uint32_t n8);

/* Bytes of one base-field element (32 or 48) and of one scalar (32) in the
 * files; G1/G2 affine point sizes in .zkey files (2 resp. 4 coordinates).
 * All 0 for CUZK_CURVE_NONE. */
uint32_t cuzk_curve_n8q(cuzk_curve c);
uint32_t cuzk_curve_n8r(cuzk_curve c);
uint32_t cuzk_curve_g1_bytes(cuzk_curve c);
uint32_t cuzk_curve_g2_bytes(cuzk_curve c);
/* log2 of the largest power-of-two subgroup of Fr* (28 / 32). */
unsigned cuzk_curve_two_adicity(cuzk_curve c);

/* The scalar field order r and base field order q as little-endian limbs
 * (4 resp. 4 or 6 limbs); NULL for CUZK_CURVE_NONE. */
const uint64_t *cuzk_curve_r_limbs(cuzk_curve c);
const uint64_t *cuzk_curve_q_limbs(cuzk_curve c);

/* Scalar-field conversions dispatched on |c| (which must be a real curve):
 *   cuzk_fr_from_le    32 LE bytes of a plain value -> Montgomery; CUZK_ERANGE
 *                      (message: "value is not below r") if >= r
 *   cuzk_fr_to_le      Montgomery -> 32 LE bytes of the plain value
 *   cuzk_fr_redc       one Montgomery reduction of raw LE bytes (x R^-1);
 *                      CUZK_ERANGE if the raw value >= r
 *   cuzk_fr_mul, cuzk_fr_add, cuzk_fr_sub, cuzk_fr_eq,
 *   cuzk_fr_set_one: the field operations of that curve's Fr */
cuzk_status cuzk_fr_from_le(cuzk_curve c, cuzk_fr *r, const uint8_t in[32],
                            cuzk_error *err);
void cuzk_fr_to_le(cuzk_curve c, uint8_t out[32], const cuzk_fr *a);
cuzk_status cuzk_fr_redc(cuzk_curve c, cuzk_fr *r, const uint8_t in[32],
                         cuzk_error *err);
void cuzk_fr_mul(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_add(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sub(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_set_one(cuzk_curve c, cuzk_fr *r);
int cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b);

/* Little-endian byte helpers for the binary readers (no alignment needed). */
static inline uint32_t cuzk_rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static inline uint64_t cuzk_rd_u64(const uint8_t *p) {
    return (uint64_t)cuzk_rd_u32(p) | (uint64_t)cuzk_rd_u32(p + 4) << 32;
}
static inline void cuzk_wr_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void cuzk_wr_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

#endif
