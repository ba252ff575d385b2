/*
 * The curves' facts (curve_facts.h): the one place that lists the curves
 * for groth16/ and everything above it.  Each curve is one instantiation
 * of curve_facts_template.h with the few facts no prefix can derive (its
 * names, its raw proof encoding); a new curve is one more block here and
 * one more entry in |all| and |by_id|.  The layers above that keep
 * per-curve tables of their own look them up by the same ids.
 */
#include "groth16/curve_facts.h"

#include <string.h>

#include "curve/curve.h"
#include "curve/encode.h"
#include "util/paste.h"

/* ---- the curves' raw proof encodings ------------------------------------------ */

/* zcash / bellperson compressed: A 48, B 96, C 48 bytes. */
static size_t bls12_381_proof_raw(uint8_t *out, const cuzk_proof *pr) {
    uint8_t *p = out;
    p += bls12_381_g1_encode_zcash(p, &pr->p.bls12_381.a, 1);
    p += bls12_381_g2_encode_zcash(p, &pr->p.bls12_381.b, 1);
    p += bls12_381_g1_encode_zcash(p, &pr->p.bls12_381.c, 1);
    return (size_t)(p - out);
}

/* Ethereum (EIP-197): A 64, B 128, C 64 bytes. */
static size_t bn254_proof_raw(uint8_t *out, const cuzk_proof *pr) {
    bn254_g1_encode_eth(out, &pr->p.bn254.a);
    bn254_g2_encode_eth(out + 64, &pr->p.bn254.b);
    bn254_g1_encode_eth(out + 192, &pr->p.bn254.c);
    return 256;
}

/* The decoders validate every point (curve/encode.h); a failure names the
 * point (A, B or C) before the decoder's reason. */
static cuzk_status proof_raw_fail(cuzk_error *err, cuzk_status s, const char *what,
                                  const cuzk_error *e) {
    return cuzk_fail(err, s, "point %s: %s", what, e->msg);
}

static cuzk_status bls12_381_proof_unraw(cuzk_proof *pr, const uint8_t *in, cuzk_error *err) {
    cuzk_error e = {0};
    cuzk_status s = bls12_381_g1_decode_zcash(&pr->p.bls12_381.a, in, 48, &e);
    if (s != CUZK_OK)
        return proof_raw_fail(err, s, "A", &e);
    if ((s = bls12_381_g2_decode_zcash(&pr->p.bls12_381.b, in + 48, 96, &e)) != CUZK_OK)
        return proof_raw_fail(err, s, "B", &e);
    if ((s = bls12_381_g1_decode_zcash(&pr->p.bls12_381.c, in + 144, 48, &e)) != CUZK_OK)
        return proof_raw_fail(err, s, "C", &e);
    return CUZK_OK;
}

static cuzk_status bn254_proof_unraw(cuzk_proof *pr, const uint8_t *in, cuzk_error *err) {
    cuzk_error e = {0};
    cuzk_status s = bn254_g1_decode_eth(&pr->p.bn254.a, in, &e);
    if (s != CUZK_OK)
        return proof_raw_fail(err, s, "A", &e);
    if ((s = bn254_g2_decode_eth(&pr->p.bn254.b, in + 64, &e)) != CUZK_OK)
        return proof_raw_fail(err, s, "B", &e);
    if ((s = bn254_g1_decode_eth(&pr->p.bn254.c, in + 192, &e)) != CUZK_OK)
        return proof_raw_fail(err, s, "C", &e);
    return CUZK_OK;
}

/* ---- one instantiation per curve ------------------------------------------------ */

#define P bn254
#define P_ID CUZK_CURVE_BN254
#define P_NAME "bn128"
#define P_ALIASES {"bn128", "bn254", "altbn128", NULL}
#define P_FR_S BN254_FR_TWO_ADICITY
#define P_Q_LIMBS 4
#define P_PROOF_RAW bn254_proof_raw
#define P_PROOF_UNRAW bn254_proof_unraw
#define P_PROOF_RAW_BYTES 256
#include "groth16/curve_facts_template.h"

#define P bls12_381
#define P_ID CUZK_CURVE_BLS12_381
#define P_NAME "bls12381"
#define P_ALIASES {"bls12381", NULL}
#define P_FR_S BLS12_381_FR_TWO_ADICITY
#define P_Q_LIMBS 6
#define P_PROOF_RAW bls12_381_proof_raw
#define P_PROOF_UNRAW bls12_381_proof_unraw
#define P_PROOF_RAW_BYTES 192
#include "groth16/curve_facts_template.h"

/* Lookup order: the order names and primes are tried in. */
static const cuzk_curve_facts *const all[] = {&cuzk_curve_facts_bn254,
                                              &cuzk_curve_facts_bls12_381};

/* Indexed by cuzk_curve: the scalar operations of curve_id.h look up the
 * facts on every call, so this is an array read, not a search. */
static const cuzk_curve_facts *const by_id[] = {
    [CUZK_CURVE_BN254] = &cuzk_curve_facts_bn254,
    [CUZK_CURVE_BLS12_381] = &cuzk_curve_facts_bls12_381,
};

const cuzk_curve_facts *cuzk_curve_facts_get(cuzk_curve c) {
    /* unsigned: a negative value read from a corrupt struct is out of range too */
    return (unsigned)c < sizeof by_id / sizeof by_id[0] ? by_id[(unsigned)c] : NULL;
}

const cuzk_curve_facts *const *cuzk_curve_facts_all(size_t *n) {
    *n = sizeof all / sizeof all[0];
    return all;
}
