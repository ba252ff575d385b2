/*
 * Loading a .zkey into a cuzk_key, and curve dispatch for prove/verify
 * (key.h).  The copies here happen once per key load, never per proof.
 */
#include "groth16/key.h"

#include <stdlib.h>
#include <string.h>

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

/* Carve |bytes| out of the key's block at *off; the block is 64-byte aligned. */
static void *carve(cuzk_key *k, size_t *off, size_t bytes) {
    void *p = (uint8_t *)k->mem + *off;
    *off += align64(bytes);
    return p;
}

#define P bls12_381
#include "groth16/key_template.h"
#undef P
#define P bn254
#include "groth16/key_template.h"
#undef P

cuzk_status cuzk_key_from_zkey(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err) {
    memset(k, 0, sizeof *k);
    k->curve = z->curve;
    switch (z->curve) {
    case CUZK_CURVE_BLS12_381:
        return bls12_381_key_from_zkey(k, z, err);
    case CUZK_CURVE_BN254:
        return bn254_key_from_zkey(k, z, err);
    default:
        return cuzk_fail(err, CUZK_ECURVE, "zkey: unknown curve");
    }
}

cuzk_status cuzk_key_load(cuzk_key *k, const char *path, cuzk_error *err) {
    cuzk_zkey z;
    memset(k, 0, sizeof *k);
    cuzk_status st = cuzk_zkey_open(&z, path, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_key_from_zkey(k, &z, err);
    cuzk_zkey_close(&z);
    return st;
}

void cuzk_key_free(cuzk_key *k) {
    if (k) {
        free(k->mem);
        memset(k, 0, sizeof *k);
    }
}

size_t cuzk_key_n_public(const cuzk_key *k) {
    return k->curve == CUZK_CURVE_BN254 ? k->pk.bn254.n_public : k->pk.bls12_381.n_public;
}
size_t cuzk_key_n_vars(const cuzk_key *k) {
    return k->curve == CUZK_CURVE_BN254 ? k->pk.bn254.n_vars : k->pk.bls12_381.n_vars;
}
unsigned cuzk_key_log_n(const cuzk_key *k) {
    return k->curve == CUZK_CURVE_BN254 ? k->pk.bn254.log_n : k->pk.bls12_381.log_n;
}

cuzk_status cuzk_key_prove(const cuzk_key *k, const cuzk_wtns *w, cuzk_proof *out,
                           cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err) {
    if (w->curve != k->curve)
        return cuzk_fail(err, CUZK_ECURVE, "witness is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(w->curve), cuzk_curve_snarkjs_name(k->curve));
    size_t nv = cuzk_key_n_vars(k);
    if (w->n_witness != nv)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %u values, the key expects %zu (different circuits?)",
                         w->n_witness, nv);
    /* The prover wants aligned plain values; the mapping is not aligned. */
    cuzk_fr *plain = malloc(nv * sizeof *plain);
    if (!plain)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for the witness");
    memcpy(plain, w->values, nv * sizeof *plain);
    cuzk_status st;
    out->curve = k->curve;
    if (k->curve == CUZK_CURVE_BLS12_381)
        st = bls12_381_groth16_prove(&out->p.bls12_381, &k->pk.bls12_381,
                                     (const bls12_381_fr *)plain, nv, NULL, NULL, pool, t, err);
    else
        st = bn254_groth16_prove(&out->p.bn254, &k->pk.bn254, (const bn254_fr *)plain, nv,
                                 NULL, NULL, pool, t, err);
    free(plain);
    return st;
}

cuzk_status cuzk_key_vk(const cuzk_key *k, cuzk_vk *vk, cuzk_error *err) {
    memset(vk, 0, sizeof *vk);
    vk->curve = k->curve;
    if (k->curve == CUZK_CURVE_BLS12_381)
        return bls12_381_groth16_vk_from_pk(&vk->vk.bls12_381, &k->pk.bls12_381, err);
    return bn254_groth16_vk_from_pk(&vk->vk.bn254, &k->pk.bn254, err);
}

void cuzk_vk_free(cuzk_vk *vk) {
    if (!vk)
        return;
    if (vk->curve == CUZK_CURVE_BLS12_381)
        bls12_381_groth16_vk_free(&vk->vk.bls12_381);
    else if (vk->curve == CUZK_CURVE_BN254)
        bn254_groth16_vk_free(&vk->vk.bn254);
}

cuzk_status cuzk_vk_verify(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                           const cuzk_proof *proof, cuzk_error *err) {
    if (proof->curve != vk->curve)
        return cuzk_fail(err, CUZK_ECURVE, "proof is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(proof->curve),
                         cuzk_curve_snarkjs_name(vk->curve));
    if (vk->curve == CUZK_CURVE_BLS12_381)
        return bls12_381_groth16_verify(&vk->vk.bls12_381, (const bls12_381_fr *)pub, n_pub,
                                        &proof->p.bls12_381, err);
    return bn254_groth16_verify(&vk->vk.bn254, (const bn254_fr *)pub, n_pub, &proof->p.bn254,
                                err);
}
