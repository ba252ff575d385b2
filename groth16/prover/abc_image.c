/*
 * The a, b, c image of a witness (abc_image.h): evaluate through the
 * prover's table, then write through the image's writer below.
 */
#include "groth16/prover/abc_image.h"

#include <stdlib.h>

#include "groth16/curve_facts.h"

cuzk_status cuzk_abc_from_witness(const cuzk_key *k, const cuzk_fr *w, size_t n_w,
                                  cuzk_pool *pool, uint8_t **out, size_t *size,
                                  cuzk_error *err) {
    const cuzk_prover_table *pt = cuzk_prover_table_get(k->curve);
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(k->curve);
    cuzk_key_arrays v;
    *out = NULL;
    *size = 0;
    if (pt == NULL || ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "proving key of unknown curve");
    pt->key_arrays(k, &v);
    if (v.n_coefs == 0)
        return cuzk_fail(err, CUZK_EINVAL,
                         "the key has no A and B coefficients: a, b, c cannot be evaluated");
    if (n_w != v.n_vars)
        return cuzk_fail(err, CUZK_EMISMATCH, "witness has %zu values, the key expects %zu", n_w,
                         v.n_vars);
    size_t n = (size_t)1 << v.log_n, m = 0;
    for (size_t i = 0; i < v.n_coefs; i++)
        if (v.coefs[i].row + (size_t)1 > m)
            m = v.coefs[i].row + (size_t)1;
    /* a, b, c, the Montgomery witness, then evaluate's scratch: one block,
     * sized here, as the evaluation takes no allocation of its own. */
    size_t sb = pt->evaluate_scratch_bytes(k), vb = (3 * n + v.n_vars) * sizeof(cuzk_fr);
    cuzk_fr *abc = malloc(vb + sb), *mw = abc + 3 * n;
    if (abc == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory to evaluate a, b, c");
    cuzk_status st =
        pt->evaluate_with_scratch(k, w, abc, abc + n, abc + 2 * n, (char *)abc + vb, sb, pool, err);
    for (size_t i = 0; st == CUZK_OK && i < v.n_vars; i++)
        ci->fr_to_mont(&mw[i], w[i].l);
    if (st == CUZK_OK)
        st = cuzk_abc_write_mem(k->curve, abc, abc + n, abc + 2 * n, m, mw, v.n_vars, out, size,
                                err);
    free(abc);
    return st;
}
