/*
 * The tests' CPU proof front ends (tests/cpu_prove.h): a witness or an
 * a, b, c image proved with a key through its curve table, in scratch
 * sized by the table and allocated here for the one proof.
 */
#include "cpu_prove.h"

#include <string.h>

#include "groth16/curve_impl.h"

cuzk_status tu_key_prove(const cuzk_key *k, const cuzk_wtns *w, cuzk_proof *out,
                         cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->curve);
    if (ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "proving key of unknown curve");
    if (w->curve != k->curve)
        return cuzk_fail(err, CUZK_ECURVE, "witness is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(w->curve), cuzk_curve_snarkjs_name(k->curve));
    if (cuzk_key_n_coefs(k) == 0)
        return cuzk_fail(err, CUZK_EUNSUPPORTED,
                         "the key has no A and B coefficients (section 4 is empty): it proves "
                         "only a, b, c inputs, not witnesses");
    size_t nv = ci->key_n_vars(k);
    if (w->n_witness != nv)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %u values, the key expects %zu (different circuits?)",
                         w->n_witness, nv);
    /* The prover wants aligned plain values; the mapping is not aligned. */
    size_t bytes = ci->prove_scratch_bytes(k, cuzk_pool_threads(pool));
    cuzk_fr *plain = malloc(nv * sizeof *plain);
    void *scratch = malloc(bytes);
    cuzk_status st;
    if (!plain || !scratch) {
        st = cuzk_fail(err, CUZK_ENOMEM, "no memory for the witness and %zu bytes of scratch",
                       bytes);
    } else {
        memcpy(plain, w->values, nv * sizeof *plain);
        st = ci->prove(k, plain, nv, scratch, bytes, out, pool, t, err);
    }
    free(scratch);
    free(plain);
    return st;
}

cuzk_status tu_abc_prove(const cuzk_key *k, const cuzk_abc *x, const cuzk_fr *r,
                         const cuzk_fr *s, cuzk_proof *out, cuzk_pool *pool,
                         cuzk_groth16_timing *t, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->curve);
    if (ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "proving key of unknown curve");
    cuzk_status st = cuzk_abc_check_key(x, k->curve, ci->key_n_vars(k), ci->key_log_n(k), err);
    if (st != CUZK_OK)
        return st;
    /* The prover wants aligned values; the image's are not. */
    size_t m = (size_t)x->m, nv = (size_t)x->n_vars;
    size_t bytes = ci->prove_abc_scratch_bytes(k, cuzk_pool_threads(pool));
    cuzk_fr *buf = malloc((3 * m + nv) * sizeof *buf);
    void *scratch = malloc(bytes);
    if (!buf || !scratch) {
        st = cuzk_fail(err, CUZK_ENOMEM, "no memory for a copy of the a, b, c image and %zu "
                                         "bytes of scratch",
                       bytes);
    } else {
        memcpy(buf, x->a, (3 * m + nv) * sizeof *buf); /* a, b, c, w lie end to end */
        st = ci->prove_abc(k, buf + 3 * m, nv, buf, buf + m, buf + 2 * m, m, r, s, scratch, bytes,
                           out, pool, t, err);
    }
    free(scratch);
    free(buf);
    return st;
}
