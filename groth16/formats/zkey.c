/*
 * snarkjs Groth16 .zkey reader and writer (see zkey.h).
 *
 * Points are decoded by copying limbs out of the file (so unaligned
 * sections are fine) into the curve_types.h structs, whose limbs are laid out
 * in the file's coordinate order (x, y; x.c0, x.c1, y.c0, y.c1).  Validation
 * uses curve/curve.h; nothing here does group arithmetic.
 */
#include "groth16/formats/zkey.h"

#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "groth16/curve_facts.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zkey views assume a little-endian host (see zkey.h)"
#endif

#define ZKEY_VERSION 1
#define COEF_BYTES 44u /* matrix, row, signal u32 + 32-byte value */

/* Large enough for any curve's affine point (curve_facts.h checks). */
typedef union any_affine {
    uint64_t l[CUZK_AFFINE_MAX_BYTES / 8];
} any_affine;

static const char *const section_name[11] = {
    "", "protocol", "header", "IC", "coefficients", "A", "B1", "B2", "C", "H",
    "contributions"};

/* ---- point decoding ------------------------------------------------------ */

static int limbs_below(const uint64_t *a, const uint64_t *m, unsigned n) {
    for (unsigned i = n; i-- > 0;)
        if (a[i] != m[i])
            return a[i] < m[i];
    return 0;
}

static int point_check(cuzk_curve c, int g2, const any_affine *p, int subgroup) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci == NULL)
        return 0;
    return g2 ? (subgroup ? ci->g2_in_subgroup(p) : ci->g2_on_curve(p))
              : (subgroup ? ci->g1_in_subgroup(p) : ci->g1_on_curve(p));
}

/* Decode and validate one point; the status says what failed, the caller
 * says where. */
static cuzk_status point_decode(cuzk_curve c, int g2, const uint8_t *in,
                                any_affine *out, int subgroup) {
    unsigned nl = cuzk_curve_n8q(c) / 8, ncoord = g2 ? 4 : 2;
    const uint64_t *q = cuzk_curve_q_limbs(c);
    for (unsigned k = 0; k < ncoord; k++) {
        for (unsigned i = 0; i < nl; i++)
            out->l[k * nl + i] = cuzk_rd_u64(in + 8 * (k * nl + i));
        if (!limbs_below(out->l + k * nl, q, nl))
            return CUZK_ERANGE;
    }
    if (!point_check(c, g2, out, 0))
        return CUZK_ENOTONCURVE;
    if (subgroup && !point_check(c, g2, out, 1))
        return CUZK_ENOTINSUBGROUP;
    return CUZK_OK;
}

static const char *point_failure(cuzk_status st) {
    return st == CUZK_ERANGE           ? "has a coordinate >= q"
           : st == CUZK_ENOTONCURVE    ? "is not on the curve"
           : st == CUZK_ENOTINSUBGROUP ? "is not in the prime-order subgroup"
                                       : "is invalid";
}

/* ---- section 1 and 2 ------------------------------------------------------ */

static cuzk_status parse_protocol(const cuzk_binfile *bf, cuzk_error *err) {
    const uint8_t *p;
    cuzk_status st = cuzk_binfile_need(bf, 1, "protocol", 4, 0, &p, NULL, err);
    if (st != CUZK_OK)
        return st;
    uint32_t proto = cuzk_rd_u32(p);
    if (proto == 1)
        return CUZK_OK;
    if (proto == 2 || proto == 10)
        return cuzk_fail(err, CUZK_EUNSUPPORTED,
                         "zkey: section 1 (protocol): this is a %s key; cuzk proves Groth16 only",
                         proto == 2 ? "PLONK" : "FFLONK");
    return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 1 (protocol): unknown protocol %u", proto);
}

/* n8q | q | n8r | r, then the curve both primes must agree on. */
static cuzk_status parse_primes(cuzk_zkey *z, cuzk_cursor *cur, cuzk_error *err) {
    const uint8_t *p = cuzk_cursor_take(cur, 4);
    uint32_t n8q = p ? cuzk_rd_u32(p) : 0;
    const uint8_t *q = p ? cuzk_cursor_take(cur, n8q) : NULL;
    p = q ? cuzk_cursor_take(cur, 4) : NULL;
    uint32_t n8r = p ? cuzk_rd_u32(p) : 0;
    const uint8_t *r = p ? cuzk_cursor_take(cur, n8r) : NULL;
    if (r == NULL)
        return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 2 (header) is too short for the primes");
    cuzk_curve cq = cuzk_curve_from_q(q, n8q), cr = cuzk_curve_from_r(r, n8r);
    if (cq == CUZK_CURVE_NONE || cr == CUZK_CURVE_NONE)
        return cuzk_fail(err, CUZK_ECURVE,
                         "zkey: section 2 (header): %s prime is not that of bn128 or bls12381",
                         cq == CUZK_CURVE_NONE ? "base field" : "scalar field");
    if (cq != cr)
        return cuzk_fail(err, CUZK_ECURVE,
                         "zkey: section 2 (header): q is %s's but r is %s's",
                         cuzk_curve_snarkjs_name(cq), cuzk_curve_snarkjs_name(cr));
    z->curve = cq;
    return CUZK_OK;
}

static cuzk_status check_counts(cuzk_zkey *z, cuzk_error *err) {
    uint32_t n = z->domain_size;
    if (z->n_vars == 0 || z->n_public >= z->n_vars)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zkey: section 2 (header): nPublic = %u needs nVars > nPublic, got %u",
                         z->n_public, z->n_vars);
    if (n == 0 || (n & (n - 1)) != 0)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zkey: section 2 (header): domainSize %u is not a power of two", n);
    while ((1u << z->log_domain_size) < n)
        z->log_domain_size++;
    if (z->log_domain_size > cuzk_curve_two_adicity(z->curve))
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zkey: section 2 (header): domainSize 2^%u exceeds the field's 2^%u roots of unity",
                         z->log_domain_size, cuzk_curve_two_adicity(z->curve));
    if ((uint64_t)z->n_public + 1 > n)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zkey: section 2 (header): domainSize %u cannot hold the %u public rows",
                         n, z->n_public + 1);
    return CUZK_OK;
}

/* The six header points of a curve's cuzk_zkey_vk_P, in file order:
 * alpha1, beta1, beta2, gamma2, delta1, delta2. */
#define HEADER_SLOTS(P)                                                    \
    static void P##_header_slots(cuzk_zkey *z, void *slot[6]) {            \
        cuzk_zkey_vk_##P *v = &z->vk.P;                                    \
        slot[0] = &v->alpha1, slot[1] = &v->beta1, slot[2] = &v->beta2;    \
        slot[3] = &v->gamma2, slot[4] = &v->delta1, slot[5] = &v->delta2;  \
    }
HEADER_SLOTS(bn254)
HEADER_SLOTS(bls12_381)
#undef HEADER_SLOTS

/* By curve, as the union members of cuzk_zkey's vk (zkey.h) are. */
static void (*const header_slots_of[])(cuzk_zkey *z, void *slot[6]) = {
    [CUZK_CURVE_BN254] = bn254_header_slots,
    [CUZK_CURVE_BLS12_381] = bls12_381_header_slots,
};

/* The six header points, in file order, and where they go (the curve is
 * one of ours: the header's primes named it, or the writer checked). */
static void header_slots(cuzk_zkey *z, void *slot[6]) {
    header_slots_of[z->curve](z, slot);
}

static const char *const header_point_name[6] = {"alpha1", "beta1", "beta2",
                                                 "gamma2", "delta1", "delta2"};
static const int header_point_g2[6] = {0, 0, 1, 1, 0, 1};

static cuzk_status parse_header_points(cuzk_zkey *z, cuzk_cursor *cur,
                                       cuzk_error *err) {
    void *slot[6];
    header_slots(z, slot);
    for (int i = 0; i < 6; i++) {
        int g2 = header_point_g2[i];
        uint32_t bytes = g2 ? cuzk_curve_g2_bytes(z->curve) : cuzk_curve_g1_bytes(z->curve);
        const uint8_t *p = cuzk_cursor_take(cur, bytes);
        any_affine pt;
        if (p == NULL)
            return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 2 (header) ends inside %s",
                             header_point_name[i]);
        cuzk_status st = point_decode(z->curve, g2, p, &pt, 1);
        if (st != CUZK_OK)
            return cuzk_fail(err, st, "zkey: section 2 (header): %s %s",
                             header_point_name[i], point_failure(st));
        static const uint8_t zero[192];
        if (memcmp(p, zero, bytes) == 0)
            return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 2 (header): %s is the point at infinity",
                             header_point_name[i]);
        memcpy(slot[i], &pt, g2 ? 4 * cuzk_curve_n8q(z->curve) : 2 * cuzk_curve_n8q(z->curve));
    }
    if (cur->left != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 2 (header) has %llu extra bytes",
                         (unsigned long long)cur->left);
    return CUZK_OK;
}

static cuzk_status parse_header(cuzk_zkey *z, cuzk_error *err) {
    const uint8_t *p;
    uint64_t sz;
    cuzk_cursor cur;
    cuzk_status st = cuzk_binfile_need(&z->bf, 2, "header", UINT64_MAX, 0, &p, &sz, err);
    if (st != CUZK_OK)
        return st;
    cuzk_cursor_init(&cur, p, sz);
    if ((st = parse_primes(z, &cur, err)) != CUZK_OK)
        return st;
    const uint8_t *c = cuzk_cursor_take(&cur, 12);
    if (c == NULL)
        return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 2 (header) ends before the counts");
    z->n_vars = cuzk_rd_u32(c);
    z->n_public = cuzk_rd_u32(c + 4);
    z->domain_size = cuzk_rd_u32(c + 8);
    if ((st = check_counts(z, err)) != CUZK_OK)
        return st;
    return parse_header_points(z, &cur, err);
}

/* ---- sections 3..10 -------------------------------------------------------- */

static cuzk_status take_points(cuzk_zkey *z, uint32_t id, uint64_t count, int g2,
                               cuzk_zkey_points *v, cuzk_error *err) {
    v->elem_bytes = g2 ? cuzk_curve_g2_bytes(z->curve) : cuzk_curve_g1_bytes(z->curve);
    v->g2 = g2;
    v->count = count;
    return cuzk_binfile_need(&z->bf, id, section_name[id], count * v->elem_bytes, 0,
                             &v->data, NULL, err);
}

static cuzk_status parse_coef_section(cuzk_zkey *z, cuzk_error *err) {
    const uint8_t *p;
    uint64_t sz;
    cuzk_status st = cuzk_binfile_need(&z->bf, 4, "coefficients", UINT64_MAX, 4, &p, &sz, err);
    if (st != CUZK_OK)
        return st;
    z->n_coefs = cuzk_rd_u32(p);
    if (sz != 4 + (uint64_t)z->n_coefs * COEF_BYTES)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zkey: section 4 (coefficients) has %llu bytes, expected %llu for %u entries",
                         (unsigned long long)sz,
                         (unsigned long long)(4 + (uint64_t)z->n_coefs * COEF_BYTES), z->n_coefs);
    z->coefs = p + 4;
    return CUZK_OK;
}

/* Section 10 is not needed to prove, but if present it must be well formed:
 * csHash[64] | n | n x {3 G1, G2, transcript[64], type u32, paramLen u32,
 * params[paramLen]}. */
static cuzk_status parse_contributions(cuzk_zkey *z, cuzk_error *err) {
    uint64_t sz;
    const uint8_t *p = cuzk_binfile_find(&z->bf, 10, &sz);
    cuzk_cursor cur;
    if (p == NULL)
        return CUZK_OK;
    cuzk_cursor_init(&cur, p, sz);
    const uint8_t *n = cuzk_cursor_take(&cur, 64) ? cuzk_cursor_take(&cur, 4) : NULL;
    if (n == NULL)
        return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 10 (contributions) is too short");
    z->n_contributions = cuzk_rd_u32(n);
    uint64_t fixed = 3 * (uint64_t)cuzk_curve_g1_bytes(z->curve) +
                     cuzk_curve_g2_bytes(z->curve) + 64 + 4;
    for (uint32_t i = 0; i < z->n_contributions; i++) {
        const uint8_t *len = cuzk_cursor_take(&cur, fixed) ? cuzk_cursor_take(&cur, 4) : NULL;
        if (len == NULL || cuzk_cursor_take(&cur, cuzk_rd_u32(len)) == NULL)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "zkey: section 10 (contributions) ends inside contribution %u", i);
    }
    if (cur.left != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "zkey: section 10 (contributions) has %llu extra bytes",
                         (unsigned long long)cur.left);
    return CUZK_OK;
}

static cuzk_status parse(cuzk_zkey *z, cuzk_error *err) {
    cuzk_status st = parse_protocol(&z->bf, err);
    if (st == CUZK_OK)
        st = parse_header(z, err);
    if (st == CUZK_OK)
        st = take_points(z, 3, (uint64_t)z->n_public + 1, 0, &z->ic, err);
    if (st == CUZK_OK)
        st = parse_coef_section(z, err);
    if (st == CUZK_OK)
        st = take_points(z, 5, z->n_vars, 0, &z->a, err);
    if (st == CUZK_OK)
        st = take_points(z, 6, z->n_vars, 0, &z->b1, err);
    if (st == CUZK_OK)
        st = take_points(z, 7, z->n_vars, 1, &z->b2, err);
    if (st == CUZK_OK)
        st = take_points(z, 8, (uint64_t)z->n_vars - z->n_public - 1, 0, &z->c, err);
    if (st == CUZK_OK)
        st = take_points(z, 9, z->domain_size, 0, &z->h, err);
    if (st == CUZK_OK)
        st = parse_contributions(z, err);
    return st;
}

static cuzk_status finish_open(cuzk_zkey *z, cuzk_status st, cuzk_error *err) {
    if (st == CUZK_OK)
        st = parse(z, err);
    if (st != CUZK_OK)
        cuzk_zkey_close(z);
    return st;
}

cuzk_status cuzk_zkey_open(cuzk_zkey *z, const char *path, cuzk_error *err) {
    memset(z, 0, sizeof *z);
    return finish_open(z, cuzk_binfile_open(&z->bf, path, "zkey", ZKEY_VERSION, 0, err), err);
}

cuzk_status cuzk_zkey_from_mem(cuzk_zkey *z, const void *data, size_t size,
                               cuzk_error *err) {
    memset(z, 0, sizeof *z);
    return finish_open(
        z, cuzk_binfile_from_mem(&z->bf, data, size, "zkey", ZKEY_VERSION, 0, err), err);
}

void cuzk_zkey_close(cuzk_zkey *z) {
    if (z == NULL)
        return;
    cuzk_binfile_close(&z->bf);
    memset(z, 0, sizeof *z);
}

/* ---- views ------------------------------------------------------------------ */

cuzk_status cuzk_zkey_points_copy(const cuzk_zkey_points *v, uint64_t first,
                                  uint64_t count, void *dst, cuzk_error *err) {
    if (first > v->count || count > v->count - first)
        return cuzk_fail(err, CUZK_EINVAL, "zkey: points %llu..%llu requested, view has %llu",
                         (unsigned long long)first, (unsigned long long)(first + count),
                         (unsigned long long)v->count);
    if (count)
        memcpy(dst, v->data + first * v->elem_bytes, (size_t)(count * v->elem_bytes));
    return CUZK_OK;
}

cuzk_status cuzk_zkey_check_points(const cuzk_zkey *z, int check_subgroup,
                                   cuzk_error *err) {
    static const uint32_t ids[6] = {3, 5, 6, 7, 8, 9};
    const cuzk_zkey_points *views[6] = {&z->ic, &z->a, &z->b1, &z->b2, &z->c, &z->h};
    for (int s = 0; s < 6; s++) {
        const cuzk_zkey_points *v = views[s];
        for (uint64_t i = 0; i < v->count; i++) {
            any_affine pt;
            cuzk_status st = point_decode(z->curve, v->g2, v->data + i * v->elem_bytes,
                                          &pt, check_subgroup);
            if (st != CUZK_OK)
                return cuzk_fail(err, st, "zkey: section %u (%s) point %llu %s", ids[s],
                                 section_name[ids[s]], (unsigned long long)i,
                                 point_failure(st));
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_zkey_read_coefs(const cuzk_zkey *z, cuzk_zkey_coef *out,
                                 cuzk_error *err) {
    for (uint32_t i = 0; i < z->n_coefs; i++) {
        const uint8_t *p = z->coefs + (size_t)i * COEF_BYTES;
        cuzk_zkey_coef *c = &out[i];
        c->matrix = cuzk_rd_u32(p);
        c->row = cuzk_rd_u32(p + 4);
        c->signal = cuzk_rd_u32(p + 8);
        c->reserved = 0;
        if (c->matrix > 1 || c->row >= z->domain_size || c->signal >= z->n_vars)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "zkey: section 4 (coefficients) entry %u: matrix %u row %u signal %u out of range",
                             i, c->matrix, c->row, c->signal);
        if (cuzk_fr_redc(z->curve, &c->value, p + 12, NULL) != CUZK_OK)
            return cuzk_fail(err, CUZK_ERANGE,
                             "zkey: section 4 (coefficients) entry %u: value is not below r", i);
    }
    return CUZK_OK;
}

/* ---- consistency with other files ------------------------------------------ */

cuzk_status cuzk_check_zkey_wtns(const cuzk_zkey *z, const cuzk_wtns *w,
                                 cuzk_error *err) {
    if (z->curve != w->curve)
        return cuzk_fail(err, CUZK_ECURVE, "zkey is for %s but the witness is for %s",
                         cuzk_curve_snarkjs_name(z->curve), cuzk_curve_snarkjs_name(w->curve));
    if (z->n_vars != w->n_witness)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %u values but the zkey has nVars = %u (different circuits?)",
                         w->n_witness, z->n_vars);
    return CUZK_OK;
}

static int coef_is(const cuzk_zkey_coef *c, uint32_t matrix, uint32_t row,
                   uint32_t signal, const cuzk_fr *v) {
    return c->matrix == matrix && c->row == row && c->signal == signal &&
           cuzk_fr_eq(&c->value, v);
}

/* Section 4 must be: per constraint its A terms then its B terms, then the
 * public rows. */
static cuzk_status match_coefs(const cuzk_zkey *z, const cuzk_r1cs *r,
                               const cuzk_zkey_coef *c, cuzk_error *err) {
    const cuzk_r1cs_matrix *mat[2] = {&r->a, &r->b};
    uint64_t k = 0;
    for (uint32_t j = 0; j < r->n_constraints; j++)
        for (uint32_t m = 0; m < 2; m++)
            for (uint64_t t = mat[m]->row_ptr[j]; t < mat[m]->row_ptr[j + 1]; t++, k++)
                if (!coef_is(&c[k], m, j, mat[m]->col[t], &mat[m]->coef[t]))
                    return cuzk_fail(err, CUZK_EMISMATCH,
                                     "zkey section 4 entry %llu differs from r1cs constraint %u (%s)",
                                     (unsigned long long)k, j, m ? "B" : "A");
    cuzk_fr one;
    cuzk_fr_set_one(z->curve, &one);
    for (uint32_t i = 0; i <= z->n_public; i++, k++)
        if (!coef_is(&c[k], 0, r->n_constraints + i, i, &one))
            return cuzk_fail(err, CUZK_EMISMATCH,
                             "zkey section 4 entry %llu is not the public-input row %u",
                             (unsigned long long)k, i);
    return CUZK_OK;
}

cuzk_status cuzk_zkey_check_r1cs(const cuzk_zkey *z, const cuzk_r1cs *r,
                                 cuzk_error *err) {
    if (z->curve != r->curve)
        return cuzk_fail(err, CUZK_ECURVE, "zkey is for %s but the r1cs is for %s",
                         cuzk_curve_snarkjs_name(z->curve), cuzk_curve_snarkjs_name(r->curve));
    if (z->n_vars != r->n_wires || z->n_public != cuzk_r1cs_n_public(r))
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "zkey has nVars %u / nPublic %u, the r1cs %u wires / %u public",
                         z->n_vars, z->n_public, r->n_wires, cuzk_r1cs_n_public(r));
    uint64_t rows = (uint64_t)r->n_constraints + z->n_public + 1, n = 1;
    while (n < rows)
        n <<= 1;
    if (n != z->domain_size)
        return cuzk_fail(err, CUZK_EMISMATCH, "zkey domainSize %u, the r1cs needs %llu",
                         z->domain_size, (unsigned long long)n);
    if ((uint64_t)z->n_coefs != r->a.nnz + r->b.nnz + z->n_public + 1)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "zkey has %u coefficients, the r1cs A and B have %llu (+%u public rows)",
                         z->n_coefs, (unsigned long long)(r->a.nnz + r->b.nnz), z->n_public + 1);
    cuzk_zkey_coef *c = malloc(((size_t)z->n_coefs + 1) * sizeof *c);
    if (c == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for %u coefficients", z->n_coefs);
    cuzk_status st = cuzk_zkey_read_coefs(z, c, err);
    if (st == CUZK_OK)
        st = match_coefs(z, r, c, err);
    free(c);
    return st;
}

/* ---- writer --------------------------------------------------------------- */

static cuzk_status check_view(const cuzk_zkey *z, const cuzk_zkey_points *v,
                              uint32_t id, uint64_t count, int g2, cuzk_error *err) {
    uint32_t bytes = g2 ? cuzk_curve_g2_bytes(z->curve) : cuzk_curve_g1_bytes(z->curve);
    if (v->count != count || v->elem_bytes != bytes || (count && v->data == NULL))
        return cuzk_fail(err, CUZK_EINVAL,
                         "zkey write: section %u (%s) needs %llu points of %u bytes",
                         id, section_name[id], (unsigned long long)count, bytes);
    return CUZK_OK;
}

static cuzk_status check_writable(const cuzk_zkey *z, const cuzk_zkey_coef *coefs,
                                  uint32_t n_coefs, cuzk_error *err) {
    cuzk_zkey t = *z;
    t.log_domain_size = 0;
    if (cuzk_curve_facts_get(z->curve) == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "zkey write: no curve");
    cuzk_status st = check_counts(&t, err);
    if (st == CUZK_OK)
        st = check_view(z, &z->ic, 3, (uint64_t)z->n_public + 1, 0, err);
    if (st == CUZK_OK)
        st = check_view(z, &z->a, 5, z->n_vars, 0, err);
    if (st == CUZK_OK)
        st = check_view(z, &z->b1, 6, z->n_vars, 0, err);
    if (st == CUZK_OK)
        st = check_view(z, &z->b2, 7, z->n_vars, 1, err);
    if (st == CUZK_OK)
        st = check_view(z, &z->c, 8, (uint64_t)z->n_vars - z->n_public - 1, 0, err);
    if (st == CUZK_OK)
        st = check_view(z, &z->h, 9, z->domain_size, 0, err);
    for (uint32_t i = 0; st == CUZK_OK && i < n_coefs; i++)
        if (coefs[i].matrix > 1 || coefs[i].row >= z->domain_size ||
            coefs[i].signal >= z->n_vars)
            st = cuzk_fail(err, CUZK_EINVAL, "zkey write: coefficient %u out of range", i);
    return st;
}

static void put_limbs(cuzk_outbuf *o, const uint64_t *l, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        cuzk_outbuf_u64(o, l[i]);
}

static void put_header(cuzk_outbuf *o, const cuzk_zkey *z) {
    unsigned nq = cuzk_curve_n8q(z->curve) / 8;
    void *slot[6];
    header_slots((cuzk_zkey *)z, slot);
    cuzk_outbuf_u32(o, 8 * nq);
    put_limbs(o, cuzk_curve_q_limbs(z->curve), nq);
    cuzk_outbuf_u32(o, 32);
    put_limbs(o, cuzk_curve_r_limbs(z->curve), 4);
    cuzk_outbuf_u32(o, z->n_vars);
    cuzk_outbuf_u32(o, z->n_public);
    cuzk_outbuf_u32(o, z->domain_size);
    for (int i = 0; i < 6; i++)
        put_limbs(o, slot[i], (header_point_g2[i] ? 4 : 2) * nq);
}

static void put_coefs(cuzk_outbuf *o, cuzk_curve c, const cuzk_zkey_coef *coefs,
                      uint32_t n) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    cuzk_outbuf_u32(o, n);
    for (uint32_t i = 0; i < n; i++) {
        cuzk_fr raw; /* v R^2 = Montgomery form of (v R) */
        ci->fr_to_mont(&raw, coefs[i].value.l);
        cuzk_outbuf_u32(o, coefs[i].matrix);
        cuzk_outbuf_u32(o, coefs[i].row);
        cuzk_outbuf_u32(o, coefs[i].signal);
        put_limbs(o, raw.l, 4);
    }
}

/* A section of points; a view with a bitmap is expanded, infinity (zero
 * bytes) for its clear bits. */
static void put_points(cuzk_outbuf *o, uint32_t id, const cuzk_zkey_points *v) {
    cuzk_outbuf_section_begin(o, id);
    if (!v->density) {
        cuzk_outbuf_put(o, v->data, (size_t)(v->count * v->elem_bytes));
    } else {
        uint8_t *d = cuzk_outbuf_grow(o, (size_t)(v->count * v->elem_bytes));
        const uint8_t *s = v->data;
        for (uint64_t i = 0; d && i < v->count; i++, d += v->elem_bytes)
            if (v->density[i / 64] >> (i % 64) & 1) {
                memcpy(d, s, v->elem_bytes);
                s += v->elem_bytes;
            } else {
                memset(d, 0, v->elem_bytes);
            }
    }
    cuzk_outbuf_section_end(o);
}

cuzk_status cuzk_zkey_write_mem(const cuzk_zkey *z,
                                const cuzk_zkey_coef *coefs, uint32_t n_coefs,
                                uint8_t **out, size_t *size, cuzk_error *err) {
    cuzk_status st = check_writable(z, coefs, n_coefs, err);
    if (st != CUZK_OK)
        return st;
    static const uint8_t zero_hash[64];
    cuzk_outbuf o;
    cuzk_outbuf_init(&o);
    cuzk_outbuf_header(&o, "zkey", ZKEY_VERSION, 10);
    cuzk_outbuf_section_begin(&o, 1);
    cuzk_outbuf_u32(&o, 1);
    cuzk_outbuf_section_end(&o);
    cuzk_outbuf_section_begin(&o, 2);
    put_header(&o, z);
    cuzk_outbuf_section_end(&o);
    put_points(&o, 3, &z->ic);
    cuzk_outbuf_section_begin(&o, 4);
    put_coefs(&o, z->curve, coefs, n_coefs);
    cuzk_outbuf_section_end(&o);
    put_points(&o, 5, &z->a);
    put_points(&o, 6, &z->b1);
    put_points(&o, 7, &z->b2);
    put_points(&o, 8, &z->c);
    put_points(&o, 9, &z->h);
    cuzk_outbuf_section_begin(&o, 10);
    cuzk_outbuf_put(&o, zero_hash, sizeof zero_hash);
    cuzk_outbuf_u32(&o, 0);
    cuzk_outbuf_section_end(&o);
    return cuzk_outbuf_finish(&o, out, size, err);
}

cuzk_status cuzk_zkey_write_file(const cuzk_zkey *z,
                                 const cuzk_zkey_coef *coefs, uint32_t n_coefs,
                                 const char *path, cuzk_error *err) {
    uint8_t *buf;
    size_t size;
    cuzk_status st = cuzk_zkey_write_mem(z, coefs, n_coefs, &buf, &size, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_write_file_atomic(path, buf, size, err);
    free(buf);
    return st;
}
