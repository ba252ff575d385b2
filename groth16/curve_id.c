/*
 * Curve identification for the circom/snarkjs readers (see curve_id.h).
 * The primes are not typed here: they are the moduli that field/ exports
 * (derived by scripts/gen_consts.py and checked by tests/test_field.c).
 */
#include "groth16/curve_id.h"

#include <ctype.h>
#include <string.h>

const char *cuzk_curve_snarkjs_name(cuzk_curve c) {
    switch (c) {
    case CUZK_CURVE_BN254:
        return "bn128";
    case CUZK_CURVE_BLS12_381:
        return "bls12381";
    default:
        return "none";
    }
}

cuzk_curve cuzk_curve_from_name(const char *name) {
    /* snarkjs upper-cases the name and drops everything but [A-Z0-9]. */
    char norm[32];
    size_t n = 0;
    if (name == NULL)
        return CUZK_CURVE_NONE;
    for (const char *p = name; *p; p++) {
        if (!isalnum((unsigned char)*p))
            continue;
        if (n + 1 >= sizeof norm)
            return CUZK_CURVE_NONE;
        norm[n++] = (char)tolower((unsigned char)*p);
    }
    norm[n] = '\0';
    if (!strcmp(norm, "bn128") || !strcmp(norm, "bn254") ||
        !strcmp(norm, "altbn128"))
        return CUZK_CURVE_BN254;
    if (!strcmp(norm, "bls12381"))
        return CUZK_CURVE_BLS12_381;
    return CUZK_CURVE_NONE;
}

/* 1 iff the |n8| little-endian bytes at |p| equal the |limbs|-limb integer
 * |m| (n8 must be exactly 8 * limbs: the files use the minimal width). */
static int prime_eq(const uint8_t *p, uint32_t n8, const uint64_t *m,
                    size_t limbs) {
    if (n8 != 8 * limbs)
        return 0;
    for (size_t i = 0; i < limbs; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--)
            w = (w << 8) | p[8 * i + (size_t)j];
        if (w != m[i])
            return 0;
    }
    return 1;
}

cuzk_curve cuzk_curve_from_r(const uint8_t *prime, uint32_t n8) {
    if (prime_eq(prime, n8, bn254_fr_modulus, 4))
        return CUZK_CURVE_BN254;
    if (prime_eq(prime, n8, bls12_381_fr_modulus, 4))
        return CUZK_CURVE_BLS12_381;
    return CUZK_CURVE_NONE;
}

cuzk_curve cuzk_curve_from_q(const uint8_t *prime, uint32_t n8) {
    if (prime_eq(prime, n8, bn254_fp_modulus, 4))
        return CUZK_CURVE_BN254;
    if (prime_eq(prime, n8, bls12_381_fp_modulus, 6))
        return CUZK_CURVE_BLS12_381;
    return CUZK_CURVE_NONE;
}

uint32_t cuzk_curve_n8q(cuzk_curve c) {
    return c == CUZK_CURVE_BN254 ? 32 : c == CUZK_CURVE_BLS12_381 ? 48 : 0;
}
uint32_t cuzk_curve_n8r(cuzk_curve c) { return c == CUZK_CURVE_NONE ? 0 : 32; }
uint32_t cuzk_curve_g1_bytes(cuzk_curve c) { return 2 * cuzk_curve_n8q(c); }
uint32_t cuzk_curve_g2_bytes(cuzk_curve c) { return 4 * cuzk_curve_n8q(c); }

unsigned cuzk_curve_two_adicity(cuzk_curve c) {
    return c == CUZK_CURVE_BN254       ? BN254_FR_TWO_ADICITY
           : c == CUZK_CURVE_BLS12_381 ? BLS12_381_FR_TWO_ADICITY
                                       : 0;
}

const uint64_t *cuzk_curve_r_limbs(cuzk_curve c) {
    return c == CUZK_CURVE_BN254       ? bn254_fr_modulus
           : c == CUZK_CURVE_BLS12_381 ? bls12_381_fr_modulus
                                       : NULL;
}

const uint64_t *cuzk_curve_q_limbs(cuzk_curve c) {
    return c == CUZK_CURVE_BN254       ? bn254_fp_modulus
           : c == CUZK_CURVE_BLS12_381 ? bls12_381_fp_modulus
                                       : NULL;
}

cuzk_status cuzk_fr_from_le(cuzk_curve c, cuzk_fr *r, const uint8_t in[32],
                            cuzk_error *err) {
    cuzk_status st;
    if (c == CUZK_CURVE_BN254)
        st = bn254_fr_from_bytes_le(&r->bn254, in, NULL);
    else if (c == CUZK_CURVE_BLS12_381)
        st = bls12_381_fr_from_bytes_le(&r->bls12_381, in, NULL);
    else
        return cuzk_fail(err, CUZK_ECURVE, "no curve chosen for a scalar");
    if (st != CUZK_OK)
        return cuzk_fail(err, st, "value is not below r");
    return CUZK_OK;
}

void cuzk_fr_to_le(cuzk_curve c, uint8_t out[32], const cuzk_fr *a) {
    if (c == CUZK_CURVE_BN254)
        bn254_fr_to_bytes_le(out, &a->bn254);
    else
        bls12_381_fr_to_bytes_le(out, &a->bls12_381);
}

static void le_to_limbs(uint64_t out[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++)
        out[i] = cuzk_rd_u64(in + 8 * i);
}

static int limbs_below(const uint64_t *a, const uint64_t *m, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != m[i])
            return a[i] < m[i];
    return 0;
}

cuzk_status cuzk_fr_redc(cuzk_curve c, cuzk_fr *r, const uint8_t in[32],
                         cuzk_error *err) {
    cuzk_fr raw;
    const uint64_t *m = cuzk_curve_r_limbs(c);
    if (m == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "no curve chosen for a scalar");
    le_to_limbs(raw.l, in);
    if (!limbs_below(raw.l, m, 4))
        return cuzk_fail(err, CUZK_ERANGE, "value is not below r");
    /* from_mont is exactly one Montgomery reduction of the limbs. */
    if (c == CUZK_CURVE_BN254)
        bn254_fr_from_mont(r->l, &raw.bn254);
    else
        bls12_381_fr_from_mont(r->l, &raw.bls12_381);
    return CUZK_OK;
}

void cuzk_fr_mul(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    if (c == CUZK_CURVE_BN254)
        bn254_fr_mul(&r->bn254, &a->bn254, &b->bn254);
    else
        bls12_381_fr_mul(&r->bls12_381, &a->bls12_381, &b->bls12_381);
}

void cuzk_fr_add(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    if (c == CUZK_CURVE_BN254)
        bn254_fr_add(&r->bn254, &a->bn254, &b->bn254);
    else
        bls12_381_fr_add(&r->bls12_381, &a->bls12_381, &b->bls12_381);
}

void cuzk_fr_sub(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    if (c == CUZK_CURVE_BN254)
        bn254_fr_sub(&r->bn254, &a->bn254, &b->bn254);
    else
        bls12_381_fr_sub(&r->bls12_381, &a->bls12_381, &b->bls12_381);
}

void cuzk_fr_set_one(cuzk_curve c, cuzk_fr *r) {
    if (c == CUZK_CURVE_BN254)
        bn254_fr_set_one(&r->bn254);
    else
        bls12_381_fr_set_one(&r->bls12_381);
}

int cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b) {
    return memcmp(a->l, b->l, sizeof a->l) == 0;
}
