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

#define KEY_FROM_ZKEY(P)                                                      \
    static cuzk_status P##_key_from_zkey(cuzk_key *k, const cuzk_zkey *z,     \
                                         cuzk_error *err) {                   \
        P##_groth16_pk *pk = &k->pk.P;                                        \
        size_t n = z->domain_size, nv = z->n_vars;                            \
        size_t n_c = z->c.count, n_ic = z->ic.count;                          \
        size_t total = align64(n_ic * sizeof(P##_g1_affine)) +                \
                       2 * align64(nv * sizeof(P##_g1_affine)) +              \
                       align64(nv * sizeof(P##_g2_affine)) +                  \
                       align64(n_c * sizeof(P##_g1_affine)) +                 \
                       align64(n * sizeof(P##_g1_affine)) +                   \
                       align64((size_t)z->n_coefs * sizeof(cuzk_coef));       \
        if (posix_memalign(&k->mem, 64, total ? total : 64) != 0) {           \
            k->mem = NULL;                                                    \
            return cuzk_fail(err, CUZK_ENOMEM,                                \
                             "no memory for the proving key (%zu bytes)",     \
                             total);                                          \
        }                                                                     \
        k->mem_bytes = total;                                                 \
        size_t off = 0;                                                       \
        P##_g1_affine *ic = carve(k, &off, n_ic * sizeof *ic);                \
        P##_g1_affine *a = carve(k, &off, nv * sizeof *a);                    \
        P##_g1_affine *b1 = carve(k, &off, nv * sizeof *b1);                  \
        P##_g2_affine *b2 = carve(k, &off, nv * sizeof *b2);                  \
        P##_g1_affine *c = carve(k, &off, n_c * sizeof *c);                   \
        P##_g1_affine *h = carve(k, &off, n * sizeof *h);                     \
        cuzk_coef *coefs = carve(k, &off, z->n_coefs * sizeof *coefs);        \
        cuzk_status st;                                                       \
        if ((st = cuzk_zkey_points_copy(&z->ic, 0, n_ic, ic, err)) ||         \
            (st = cuzk_zkey_points_copy(&z->a, 0, nv, a, err)) ||             \
            (st = cuzk_zkey_points_copy(&z->b1, 0, nv, b1, err)) ||           \
            (st = cuzk_zkey_points_copy(&z->b2, 0, nv, b2, err)) ||           \
            (st = cuzk_zkey_points_copy(&z->c, 0, n_c, c, err)) ||            \
            (st = cuzk_zkey_points_copy(&z->h, 0, n, h, err)) ||              \
            (st = cuzk_zkey_read_coefs(z, coefs, err)))                       \
            return st;                                                        \
        pk->n_vars = z->n_vars;                                               \
        pk->n_public = z->n_public;                                           \
        pk->log_n = z->log_domain_size;                                       \
        pk->alpha1 = z->vk.P.alpha1;                                          \
        pk->beta1 = z->vk.P.beta1;                                            \
        pk->delta1 = z->vk.P.delta1;                                          \
        pk->beta2 = z->vk.P.beta2;                                            \
        pk->gamma2 = z->vk.P.gamma2;                                          \
        pk->delta2 = z->vk.P.delta2;                                          \
        pk->ic = ic, pk->a = a, pk->b1 = b1, pk->b2 = b2, pk->c = c;          \
        pk->h = h, pk->coefs = coefs, pk->n_coefs = z->n_coefs;               \
        return CUZK_OK;                                                       \
    }
KEY_FROM_ZKEY(bls12_381)
KEY_FROM_ZKEY(bn254)

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
