/*
 * One curve's prover table (key.h, cuzk_prover_table), stamped out by
 * key.c with P the curve prefix (bn254, bls12_381): the typed names of
 * groth16.h and msm.h and the union members of cuzk_fr, cuzk_key,
 * cuzk_proof and cuzk_vk; and P_ID, its cuzk_curve value.  It defines
 * const cuzk_prover_table P_prover_table.
 *
 * The adapters only convert between the curve-agnostic types and P's
 * typed ones (a cuzk_fr is read through its P member, a key through
 * k->pk.P); they must not compute anything of their own.  They call the
 * prover's typed functions and the arithmetic, nothing above the prover
 * (the curve table on top holds these entries too, but is never called
 * from here).
 */
#define T(x) CUZK_PASTE(P, x)                    /* T(fr) -> bn254_fr */
#define I(x) CUZK_PASTE(P, CUZK_PASTE(prover, x)) /* I(prove) -> bn254_prover_prove */

static cuzk_status I(fr_random)(cuzk_fr *r, cuzk_error *err) { return T(fr_random)(&r->P, err); }

static size_t I(key_n_public)(const cuzk_key *k) { return k->pk.P.n_public; }
static size_t I(key_n_vars)(const cuzk_key *k) { return k->pk.P.n_vars; }
static unsigned I(key_log_n)(const cuzk_key *k) { return k->pk.P.log_n; }

static void I(key_arrays)(const cuzk_key *k, cuzk_key_arrays *v) {
    const T(groth16_pk) *pk = &k->pk.P;
    v->a = pk->a, v->b1 = pk->b1, v->b2 = pk->b2, v->c = pk->c, v->h = pk->h;
    v->n_vars = pk->n_vars, v->n_public = pk->n_public, v->log_n = pk->log_n;
    v->coefs = pk->coefs, v->n_coefs = pk->n_coefs;
    v->a_density = pk->a_density, v->b_density = pk->b_density;
    v->n_a = pk->a_density ? pk->n_a : pk->n_vars;
    v->n_b = pk->b_density ? pk->n_b : pk->n_vars;
}

static cuzk_status I(compute_h)(const cuzk_key *k, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                                cuzk_pool *pool, cuzk_error *err) {
    return T(groth16_compute_h)(&k->pk.P, &a->P, &b->P, &c->P, pool, err);
}

static size_t I(evaluate_scratch_bytes)(const cuzk_key *k) {
    return T(groth16_evaluate_scratch_bytes)(&k->pk.P);
}

static cuzk_status I(evaluate_with_scratch)(const cuzk_key *k, const cuzk_fr *w, cuzk_fr *a,
                                            cuzk_fr *b, cuzk_fr *c, void *scratch,
                                            size_t scratch_bytes, cuzk_pool *pool,
                                            cuzk_error *err) {
    return T(groth16_evaluate_with_scratch)(&k->pk.P, &w->P, &a->P, &b->P, &c->P, scratch,
                                            scratch_bytes, pool, err);
}

static size_t I(msms_scratch_bytes)(const cuzk_key *k, unsigned threads) {
    return T(groth16_msms_scratch_bytes)(&k->pk.P, threads);
}

static cuzk_status I(msms_assemble_with_scratch)(cuzk_proof *out, const cuzk_key *k,
                                                 const cuzk_fr *w, const cuzk_fr *h,
                                                 const cuzk_fr *r, const cuzk_fr *s,
                                                 void *scratch, size_t scratch_bytes,
                                                 cuzk_pool *pool, cuzk_groth16_timing *t,
                                                 cuzk_error *err) {
    out->curve = P_ID;
    return T(groth16_msms_assemble_with_scratch)(&out->p.P, &k->pk.P, &w->P, &h->P, &r->P,
                                                 &s->P, scratch, scratch_bytes, pool, t, err);
}

static void I(assemble)(cuzk_proof *out, const cuzk_key *k, const void *msm_a,
                        const void *msm_b1, const void *msm_b2, const void *msm_c,
                        const void *msm_h, const cuzk_fr *r, const cuzk_fr *s) {
    out->curve = P_ID;
    T(groth16_assemble)(&out->p.P, &k->pk.P, msm_a, msm_b1, msm_b2, msm_c, msm_h, &r->P, &s->P);
}

static size_t I(b2_msm_scratch_bytes)(const cuzk_key *k, unsigned threads) {
    return T(g2_msm_scratch_bytes)(k->pk.P.n_b, 0, threads);
}

static cuzk_status I(b2_msm_cpu)(const cuzk_key *k, const cuzk_fr *w, cuzk_fr *gather,
                                 void *out, void *scratch, size_t scratch_bytes,
                                 cuzk_pool *pool) {
    const T(groth16_pk) *pk = &k->pk.P;
    const T(fr) *sc = &w->P;
    size_t n = pk->n_vars;
    if (pk->b_density) {
        size_t m = 0;
        for (size_t i = 0; i < pk->n_vars && m < pk->n_b; i++)
            if ((pk->b_density[i / 64] >> (i % 64)) & 1)
                gather[m++].P = w[i].P;
        sc = &gather->P;
        n = m;
    }
    return T(g2_msm_with_scratch)(out, pk->b2, sc, n, 0, 0, scratch, scratch_bytes, pool);
}

static size_t I(prove_scratch_bytes)(const cuzk_key *k, unsigned threads) {
    return T(groth16_prove_scratch_bytes)(&k->pk.P, threads);
}

static cuzk_status I(prove)(const cuzk_key *k, const cuzk_fr *w, size_t n_w, void *scratch,
                            size_t scratch_bytes, cuzk_proof *out, cuzk_pool *pool,
                            cuzk_groth16_timing *t, cuzk_error *err) {
    out->curve = P_ID;
    return T(groth16_prove_with_scratch)(&out->p.P, &k->pk.P, &w->P, n_w, NULL, NULL, scratch,
                                         scratch_bytes, pool, t, err);
}

static size_t I(prove_abc_scratch_bytes)(const cuzk_key *k, unsigned threads) {
    return T(groth16_prove_abc_scratch_bytes)(&k->pk.P, threads);
}

static cuzk_status I(prove_abc)(const cuzk_key *k, const cuzk_fr *w, size_t n_w,
                                const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, size_t m,
                                const cuzk_fr *r, const cuzk_fr *s, void *scratch,
                                size_t scratch_bytes, cuzk_proof *out, cuzk_pool *pool,
                                cuzk_groth16_timing *t, cuzk_error *err) {
    out->curve = P_ID;
    return T(groth16_prove_abc_with_scratch)(&out->p.P, &k->pk.P, &w->P, n_w, &a->P, &b->P,
                                             &c->P, m, r ? &r->P : NULL, s ? &s->P : NULL,
                                             scratch, scratch_bytes, pool, t, err);
}

/* ---- verification keys -------------------------------------------------------- */

static cuzk_status I(vk_from_key)(const cuzk_key *k, cuzk_vk *vk, cuzk_error *err) {
    vk->curve = P_ID;
    return T(groth16_vk_from_pk)(&vk->vk.P, &k->pk.P, err);
}

static void I(vk_free)(cuzk_vk *vk) { T(groth16_vk_free)(&vk->vk.P); }

static cuzk_status I(verify)(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                             const cuzk_proof *proof, cuzk_error *err) {
    return T(groth16_verify)(&vk->vk.P, n_pub ? &pub->P : NULL, n_pub, &proof->p.P, err);
}

static size_t I(vk_n_public)(const cuzk_vk *vk) { return vk->vk.P.n_public; }

/* ---- the table ------------------------------------------------------------------ */

extern const cuzk_prover_table CUZK_PASTE(P, prover_table);
const cuzk_prover_table CUZK_PASTE(P, prover_table) = {
    .fr_random = I(fr_random),

    .key_from_zkey = T(key_from_zkey),
    .key_n_public = I(key_n_public),
    .key_n_vars = I(key_n_vars),
    .key_log_n = I(key_log_n),
    .key_arrays = I(key_arrays),

    .compute_h = I(compute_h),
    .evaluate_scratch_bytes = I(evaluate_scratch_bytes),
    .evaluate_with_scratch = I(evaluate_with_scratch),
    .msms_scratch_bytes = I(msms_scratch_bytes),
    .msms_assemble_with_scratch = I(msms_assemble_with_scratch),
    .assemble = I(assemble),
    .b2_msm_scratch_bytes = I(b2_msm_scratch_bytes),
    .b2_msm_cpu = I(b2_msm_cpu),
    .prove_scratch_bytes = I(prove_scratch_bytes),
    .prove = I(prove),
    .prove_abc_scratch_bytes = I(prove_abc_scratch_bytes),
    .prove_abc = I(prove_abc),

    .vk_from_key = I(vk_from_key),
    .vk_free = I(vk_free),
    .vk_n_public = I(vk_n_public),
    .verify = I(verify),
};

#undef T
#undef I
