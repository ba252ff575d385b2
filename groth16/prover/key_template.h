/*
 * Loading one curve's proving key from an open .zkey, stamped out by key.c
 * with P the curve prefix (bls12_381 or bn254): one aligned block holds
 * every point array, the density bitmaps and the decoded coefficients.
 *
 * A, B1 and B2 are loaded compact (groth16.h, "Density"): snarkjs writes
 * the point at infinity (all zero bytes) for a wire whose column of A
 * (resp. B) is zero, so a first pass over the sections derives the
 * bitmaps (a wire is kept in B if either of its B1 and B2 points is not
 * infinity) and a second copies only the kept points.  A section without
 * an infinity point needs no bitmap (NULL).  Must not: keep a pointer into
 * the file, or allocate more than the one block.
 */
#include "util/paste.h"
#define K(x) CUZK_PASTE(P, x)

cuzk_status K(key_from_zkey)(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err) {
    K(groth16_pk) *pk = &k->pk.P;
    size_t n = z->domain_size, nv = z->n_vars;
    size_t n_c = z->c.count, n_ic = z->ic.count;
    size_t words = (nv + 63) / 64;
    /* pass 1: which wires have a point */
    size_t n_a = count_kept(&z->a, NULL, nv), n_b = count_kept(&z->b1, &z->b2, nv);
    int dense_a = n_a < nv, dense_b = n_b < nv;
    size_t total = align64(n_ic * sizeof(K(g1_affine))) +
                   align64(n_a * sizeof(K(g1_affine))) +
                   align64(n_b * sizeof(K(g1_affine))) +
                   align64(n_b * sizeof(K(g2_affine))) +
                   align64(n_c * sizeof(K(g1_affine))) +
                   align64(n * sizeof(K(g1_affine))) +
                   align64((size_t)z->n_coefs * sizeof(cuzk_coef)) +
                   (dense_a + dense_b) * align64(words * sizeof(uint64_t));
    if (posix_memalign(&k->mem, 64, total ? total : 64) != 0) {
        k->mem = NULL;
        return cuzk_fail(err, CUZK_ENOMEM,
                         "no memory for the proving key (%zu bytes)",
                         total);
    }
    k->mem_bytes = total;
    size_t off = 0;
    K(g1_affine) *ic = carve(k, &off, n_ic * sizeof *ic);
    K(g1_affine) *a = carve(k, &off, n_a * sizeof *a);
    K(g1_affine) *b1 = carve(k, &off, n_b * sizeof *b1);
    K(g2_affine) *b2 = carve(k, &off, n_b * sizeof *b2);
    K(g1_affine) *c = carve(k, &off, n_c * sizeof *c);
    K(g1_affine) *h = carve(k, &off, n * sizeof *h);
    cuzk_coef *coefs = carve(k, &off, z->n_coefs * sizeof *coefs);
    uint64_t *a_bits = dense_a ? carve(k, &off, words * sizeof *a_bits) : NULL;
    uint64_t *b_bits = dense_b ? carve(k, &off, words * sizeof *b_bits) : NULL;
    /* pass 2: the kept points (all of them without a bitmap) */
    cuzk_status st;
    if ((st = cuzk_zkey_points_copy(&z->ic, 0, n_ic, ic, err)) ||
        (st = copy_kept(&z->a, NULL, nv, a, NULL, a_bits, err)) ||
        (st = copy_kept(&z->b1, &z->b2, nv, b1, b2, b_bits, err)) ||
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
    pk->a_density = a_bits, pk->b_density = b_bits;
    pk->n_a = (uint32_t)n_a, pk->n_b = (uint32_t)n_b;
    pk->h = h, pk->coefs = coefs, pk->n_coefs = z->n_coefs;
    return CUZK_OK;
}

#undef K
