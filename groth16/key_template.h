/*
 * Loading one curve's proving key from an open .zkey, stamped out by key.c
 * with P the curve prefix (bls12_381 or bn254): one aligned block holds
 * every point array and the decoded coefficients.
 */
#include "util/paste.h"
#define K(x) CUZK_PASTE(P, x)

static cuzk_status K(key_from_zkey)(cuzk_key *k, const cuzk_zkey *z,
                                     cuzk_error *err) {
    K(groth16_pk) *pk = &k->pk.P;
    size_t n = z->domain_size, nv = z->n_vars;
    size_t n_c = z->c.count, n_ic = z->ic.count;
    size_t total = align64(n_ic * sizeof(K(g1_affine))) +
                   2 * align64(nv * sizeof(K(g1_affine))) +
                   align64(nv * sizeof(K(g2_affine))) +
                   align64(n_c * sizeof(K(g1_affine))) +
                   align64(n * sizeof(K(g1_affine))) +
                   align64((size_t)z->n_coefs * sizeof(cuzk_coef));
    if (posix_memalign(&k->mem, 64, total ? total : 64) != 0) {
        k->mem = NULL;
        return cuzk_fail(err, CUZK_ENOMEM,
                         "no memory for the proving key (%zu bytes)",
                         total);
    }
    k->mem_bytes = total;
    size_t off = 0;
    K(g1_affine) *ic = carve(k, &off, n_ic * sizeof *ic);
    K(g1_affine) *a = carve(k, &off, nv * sizeof *a);
    K(g1_affine) *b1 = carve(k, &off, nv * sizeof *b1);
    K(g2_affine) *b2 = carve(k, &off, nv * sizeof *b2);
    K(g1_affine) *c = carve(k, &off, n_c * sizeof *c);
    K(g1_affine) *h = carve(k, &off, n * sizeof *h);
    cuzk_coef *coefs = carve(k, &off, z->n_coefs * sizeof *coefs);
    cuzk_status st;
    if ((st = cuzk_zkey_points_copy(&z->ic, 0, n_ic, ic, err)) ||
        (st = cuzk_zkey_points_copy(&z->a, 0, nv, a, err)) ||
        (st = cuzk_zkey_points_copy(&z->b1, 0, nv, b1, err)) ||
        (st = cuzk_zkey_points_copy(&z->b2, 0, nv, b2, err)) ||
        (st = cuzk_zkey_points_copy(&z->c, 0, n_c, c, err)) ||
        (st = cuzk_zkey_points_copy(&z->h, 0, n, h, err)) ||
        (st = cuzk_zkey_read_coefs(z, coefs, err)))
        return st;
    pk->n_vars = z->n_vars;
    pk->n_public = z->n_public;
    pk->log_n = z->log_domain_size;
    pk->alpha1 = z->vk.P.alpha1;
    pk->beta1 = z->vk.P.beta1;
    pk->delta1 = z->vk.P.delta1;
    pk->beta2 = z->vk.P.beta2;
    pk->gamma2 = z->vk.P.gamma2;
    pk->delta2 = z->vk.P.delta2;
    pk->ic = ic, pk->a = a, pk->b1 = b1, pk->b2 = b2, pk->c = c;
    pk->h = h, pk->coefs = coefs, pk->n_coefs = z->n_coefs;
    return CUZK_OK;
}

#undef K
