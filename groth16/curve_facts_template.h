/*
 * One curve's facts (curve_facts.h), stamped out by curve_facts.c with:
 *   P                  the curve prefix (bn254, bls12_381): the typed names
 *                      of field/ and curve/ and the union members of
 *                      cuzk_fr and cuzk_proof
 *   P_ID               its cuzk_curve value
 *   P_NAME             the name snarkjs writes
 *   P_ALIASES          brace list of normalised names, NULL last
 *   P_FR_S             two-adicity of Fr
 *   P_Q_LIMBS          limbs of the base field order
 *   P_PROOF_RAW        size_t f(uint8_t *out, const cuzk_proof *p): the
 *                      curve's raw proof encoding, P_PROOF_RAW_BYTES long
 *   P_PROOF_UNRAW      cuzk_status f(cuzk_proof *p, const uint8_t *in,
 *                      cuzk_error *err): its inverse, validating every point
 * and defines const cuzk_curve_facts cuzk_curve_facts_<P>.  It undefines
 * them at its end, so the next curve can be defined right after.
 *
 * The adapters only convert between the curve-agnostic types and P's
 * typed ones; they must not compute anything of their own, nor call
 * anything of groth16/ (this is its bottom).
 */
#define T(x) CUZK_PASTE(P, x)                   /* T(fr) -> bn254_fr */
#define I(x) CUZK_PASTE(P, CUZK_PASTE(facts, x)) /* I(fr_mul) -> bn254_facts_fr_mul */

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
static cuzk_status I(fr_root_of_unity)(cuzk_fr *r, unsigned log_n) {
    return T(fr_root_of_unity)(&r->P, log_n);
}

/* ---- affine points -------------------------------------------------------- */

static int I(g1_on_curve)(const void *p) { return T(g1_affine_on_curve)(p); }
static int I(g1_in_subgroup)(const void *p) { return T(g1_affine_in_subgroup)(p); }
static int I(g2_on_curve)(const void *p) { return T(g2_affine_on_curve)(p); }
static int I(g2_in_subgroup)(const void *p) { return T(g2_affine_in_subgroup)(p); }

/* ---- raw proofs ------------------------------------------------------------------ */

static cuzk_status I(proof_decode_raw)(cuzk_proof *p, const uint8_t *in, cuzk_error *err) {
    memset(p, 0, sizeof *p);
    cuzk_status s = P_PROOF_UNRAW(p, in, err);
    if (s == CUZK_OK)
        p->curve = P_ID;
    return s;
}

/* ---- the table ------------------------------------------------------------------ */

static const char *const I(aliases)[] = P_ALIASES;

extern const cuzk_curve_facts CUZK_PASTE(cuzk_curve_facts, P);
const cuzk_curve_facts CUZK_PASTE(cuzk_curve_facts, P) = {
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
    .fr_root_of_unity = I(fr_root_of_unity),

    .g1_on_curve = I(g1_on_curve),
    .g1_in_subgroup = I(g1_in_subgroup),
    .g2_on_curve = I(g2_on_curve),
    .g2_in_subgroup = I(g2_in_subgroup),

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
