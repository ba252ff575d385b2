/*
 * One curve's table (curve_impl.h), stamped out by curve_impl.c with:
 *   P                  the curve prefix (bn254, bls12_381): the typed names
 *                      of field/, curve/, groth16.h, setup.h and the union
 *                      members of cuzk_fr, cuzk_key, cuzk_proof, cuzk_vk
 *   P_ID               its cuzk_curve value
 *   P_NAME             the name snarkjs writes
 *   P_ALIASES          brace list of normalised names, NULL last
 *   P_FR_S             two-adicity of Fr
 *   P_Q_LIMBS          limbs of the base field order
 *   P_PROOF_RAW        size_t f(uint8_t *out, const cuzk_proof *p): the
 *                      curve's raw proof encoding, P_PROOF_RAW_BYTES long
 *   P_PROOF_UNRAW      cuzk_status f(cuzk_proof *p, const uint8_t *in,
 *                      cuzk_error *err): its inverse, validating every point
 * and defines const cuzk_curve_impl cuzk_curve_impl_<P>.  It undefines
 * them at its end, so the next curve can be defined right after.
 *
 * The adapters only convert between the curve-agnostic types and P's
 * typed ones (a cuzk_fr is read through its P member, a key through
 * k->pk.P); they must not compute anything of their own.  Layers whose
 * per-curve code lives in their own template (json_template.h,
 * setup_template.h) keep a small table of their own per curve (json.h,
 * setup.h), which this one points to; the key loader is a typed function
 * of key.h.  No layer declares anything for this table's sake.
 */
#define T(x) CUZK_PASTE(P, x)            /* T(fr) -> bn254_fr */
#define I(x) CUZK_PASTE(P, CUZK_PASTE(impl, x)) /* I(fr_mul) -> bn254_impl_fr_mul */

_Static_assert(sizeof(T(g1_affine)) <= CUZK_AFFINE_MAX_BYTES &&
                   sizeof(T(g2_affine)) <= CUZK_AFFINE_MAX_BYTES,
               "raise CUZK_AFFINE_MAX_BYTES for this curve's points");
_Static_assert(sizeof(T(fr)) == sizeof(cuzk_fr), "a scalar must fit a cuzk_fr");

/* ---- scalar field ------------------------------------------------------- */

static cuzk_status I(fr_from_le)(cuzk_fr *r, const uint8_t in[32]) {
    return T(fr_from_bytes_le)(&r->P, in, NULL);
}
static void I(fr_to_le)(uint8_t out[32], const cuzk_fr *a) { T(fr_to_bytes_le)(out, &a->P); }
static void I(fr_from_mont)(uint64_t out[4], const cuzk_fr *a) { T(fr_from_mont)(out, &a->P); }
static void I(fr_to_mont)(cuzk_fr *r, const uint64_t in[4]) { T(fr_to_mont)(&r->P, in); }
static void I(fr_mul)(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    T(fr_mul)(&r->P, &a->P, &b->P);
}
static void I(fr_add)(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    T(fr_add)(&r->P, &a->P, &b->P);
}
static void I(fr_sub)(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    T(fr_sub)(&r->P, &a->P, &b->P);
}
static void I(fr_set_one)(cuzk_fr *r) { T(fr_set_one)(&r->P); }
static cuzk_status I(fr_random)(cuzk_fr *r, cuzk_error *err) { return T(fr_random)(&r->P, err); }
static cuzk_status I(fr_root_of_unity)(cuzk_fr *r, unsigned log_n) {
    return T(fr_root_of_unity)(&r->P, log_n);
}

/* ---- affine points -------------------------------------------------------- */

static int I(g1_on_curve)(const void *p) { return T(g1_affine_on_curve)(p); }
static int I(g1_in_subgroup)(const void *p) { return T(g1_affine_in_subgroup)(p); }
static int I(g2_on_curve)(const void *p) { return T(g2_affine_on_curve)(p); }
static int I(g2_in_subgroup)(const void *p) { return T(g2_affine_in_subgroup)(p); }

static void I(zkey_header_slots)(cuzk_zkey *z, void *slot[6]) {
    CUZK_PASTE(cuzk_zkey_vk, P) *v = &z->vk.P;
    slot[0] = &v->alpha1, slot[1] = &v->beta1, slot[2] = &v->beta2;
    slot[3] = &v->gamma2, slot[4] = &v->delta1, slot[5] = &v->delta2;
}

/* ---- proving keys and the CPU prover ------------------------------------------ */

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

static cuzk_status I(vk_from_zkey)(cuzk_vk *out, const cuzk_zkey *z, cuzk_error *err) {
    T(groth16_vk) *vk = &out->vk.P;
    vk->alpha1 = z->vk.P.alpha1;
    vk->beta2 = z->vk.P.beta2;
    vk->gamma2 = z->vk.P.gamma2;
    vk->delta2 = z->vk.P.delta2;
    vk->n_public = z->n_public;
    vk->ic = malloc(((size_t)z->n_public + 1) * sizeof *vk->ic);
    if (vk->ic == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for IC");
    cuzk_status st = cuzk_zkey_points_copy(&z->ic, 0, z->n_public + 1ull, vk->ic, err);
    for (size_t i = 0; st == CUZK_OK && i <= vk->n_public; i++)
        if (!T(g1_affine_on_curve)(&vk->ic[i]))
            st = cuzk_fail(err, CUZK_ENOTONCURVE,
                           "zkey: section 3 (IC) point %zu is not on the curve", i);
    if (st != CUZK_OK)
        T(groth16_vk_free)(vk);
    else
        out->curve = P_ID;
    return st;
}

static cuzk_status I(verify)(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                             const cuzk_proof *proof, cuzk_error *err) {
    return T(groth16_verify)(&vk->vk.P, n_pub ? &pub->P : NULL, n_pub, &proof->p.P, err);
}

/* ---- raw proofs and verification keys ------------------------------------------ */

static cuzk_status I(proof_decode_raw)(cuzk_proof *p, const uint8_t *in, cuzk_error *err) {
    memset(p, 0, sizeof *p);
    cuzk_status s = P_PROOF_UNRAW(p, in, err);
    if (s == CUZK_OK)
        p->curve = P_ID;
    return s;
}

static size_t I(vk_n_public)(const cuzk_vk *vk) { return vk->vk.P.n_public; }

/* ---- the table ------------------------------------------------------------------ */

static const char *const I(aliases)[] = P_ALIASES;

extern const cuzk_curve_impl CUZK_PASTE(cuzk_curve_impl, P);
const cuzk_curve_impl CUZK_PASTE(cuzk_curve_impl, P) = {
    .id = P_ID,
    .name = P_NAME,
    .aliases = I(aliases),

    .n8q = 8 * P_Q_LIMBS,
    .n8r = 32,
    .g1_bytes = 2 * 8 * P_Q_LIMBS,
    .g2_bytes = 4 * 8 * P_Q_LIMBS,
    .two_adicity = P_FR_S,
    .r_limbs = T(fr_modulus),
    .q_limbs = T(fp_modulus),
    .q_n_limbs = P_Q_LIMBS,
    .g1_jacobian_bytes = sizeof(T(g1)),
    .g2_jacobian_bytes = sizeof(T(g2)),
    .proof_raw_bytes = P_PROOF_RAW_BYTES,

    .fr_from_le = I(fr_from_le),
    .fr_to_le = I(fr_to_le),
    .fr_from_mont = I(fr_from_mont),
    .fr_to_mont = I(fr_to_mont),
    .fr_mul = I(fr_mul),
    .fr_add = I(fr_add),
    .fr_sub = I(fr_sub),
    .fr_set_one = I(fr_set_one),
    .fr_random = I(fr_random),
    .fr_root_of_unity = I(fr_root_of_unity),

    .g1_on_curve = I(g1_on_curve),
    .g1_in_subgroup = I(g1_in_subgroup),
    .g2_on_curve = I(g2_on_curve),
    .g2_in_subgroup = I(g2_in_subgroup),

    .zkey_header_slots = I(zkey_header_slots),

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
    .vk_from_zkey = I(vk_from_zkey),
    .vk_free = I(vk_free),
    .vk_n_public = I(vk_n_public),
    .verify = I(verify),

    .setup = &T(setup_table),
    .json = &T(json_table),

    .proof_encode_raw = P_PROOF_RAW,
    .proof_decode_raw = I(proof_decode_raw),
};

#undef T
#undef I
#undef P
#undef P_ID
#undef P_NAME
#undef P_ALIASES
#undef P_FR_S
#undef P_Q_LIMBS
#undef P_PROOF_RAW
#undef P_PROOF_UNRAW
#undef P_PROOF_RAW_BYTES
