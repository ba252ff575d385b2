/*
 * circom .r1cs reader and writer (see r1cs.h).  Section 2 is walked twice:
 * the first pass only checks structure and counts terms, so the CSR arrays
 * are allocated once at their exact size and a hostile nTerms can never
 * make us allocate more than the file could hold.
 */
#include "groth16/formats/r1cs.h"

#include <stdlib.h>
#include <string.h>

#include "groth16/curve_facts.h"

#define R1CS_VERSION 1
#define HDR_FIXED 32u /* header section bytes besides the prime */

static const char *const matrix_name[3] = {"A", "B", "C"};

/* ---- section 1 --------------------------------------------------------- */

static cuzk_status parse_header(cuzk_r1cs *r, const cuzk_binfile *bf,
                                cuzk_error *err) {
    const uint8_t *p;
    uint64_t sz;
    cuzk_status st = cuzk_binfile_need(bf, 1, "header", UINT64_MAX, 4, &p, &sz, err);
    if (st != CUZK_OK)
        return st;
    uint32_t n8 = cuzk_rd_u32(p);
    if (n8 > sz || sz != (uint64_t)n8 + HDR_FIXED)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "r1cs: section 1 (header) has %llu bytes, expected %llu for n8 = %u",
                         (unsigned long long)sz, (unsigned long long)n8 + HDR_FIXED, n8);
    r->curve = cuzk_curve_from_r(p + 4, n8);
    if (r->curve == CUZK_CURVE_NONE)
        return cuzk_fail(err, CUZK_ECURVE,
                         "r1cs: section 1 (header): prime (n8 = %u) is not the scalar field of bn128 or bls12381",
                         n8);
    p += 4 + n8;
    r->n_wires = cuzk_rd_u32(p);
    r->n_pub_out = cuzk_rd_u32(p + 4);
    r->n_pub_in = cuzk_rd_u32(p + 8);
    r->n_prv_in = cuzk_rd_u32(p + 12);
    r->n_labels = cuzk_rd_u64(p + 16);
    r->n_constraints = cuzk_rd_u32(p + 24);
    uint64_t inputs = (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (r->n_wires == 0 || inputs + 1 > r->n_wires)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "r1cs: section 1 (header): %llu inputs/outputs plus the constant do not fit in nWires = %u",
                         (unsigned long long)inputs, r->n_wires);
    return CUZK_OK;
}

/* ---- section 2 --------------------------------------------------------- */

/* Pass 1: walk every linear combination, check it fits, count its terms. */
static cuzk_status count_terms(const cuzk_r1cs *r, const uint8_t *p,
                               uint64_t sz, uint64_t nnz[3], cuzk_error *err) {
    const uint64_t term = 4 + 32;
    cuzk_cursor c;
    cuzk_cursor_init(&c, p, sz);
    nnz[0] = nnz[1] = nnz[2] = 0;
    if (r->n_constraints > sz / 12)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "r1cs: section 2 (constraints): %u constraints cannot fit in %llu bytes",
                         r->n_constraints, (unsigned long long)sz);
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int m = 0; m < 3; m++) {
            const uint8_t *q = cuzk_cursor_take(&c, 4);
            if (q == NULL || cuzk_cursor_take(&c, cuzk_rd_u32(q) * term) == NULL)
                return cuzk_fail(err, CUZK_EFORMAT,
                                 "r1cs: section 2 (constraints) ends inside constraint %u (%s)",
                                 j, matrix_name[m]);
            nnz[m] += cuzk_rd_u32(q);
        }
    }
    if (c.left != 0)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "r1cs: section 2 (constraints) has %llu bytes after constraint %u",
                         (unsigned long long)c.left, r->n_constraints);
    return CUZK_OK;
}

static cuzk_status alloc_matrix(cuzk_r1cs_matrix *m, uint32_t rows,
                                uint64_t nnz, cuzk_error *err) {
    m->row_ptr = malloc(((size_t)rows + 1) * sizeof *m->row_ptr);
    m->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *m->col);
    m->coef = malloc((size_t)(nnz ? nnz : 1) * sizeof *m->coef);
    m->nnz = nnz;
    if (!m->row_ptr || !m->col || !m->coef)
        return cuzk_fail(err, CUZK_ENOMEM, "r1cs: no memory for %llu matrix terms",
                         (unsigned long long)nnz);
    m->row_ptr[0] = 0;
    return CUZK_OK;
}

/* Pass 2: decode the terms (structure already checked by pass 1). */
static cuzk_status fill_terms(cuzk_r1cs *r, const uint8_t *p, cuzk_error *err) {
    cuzk_r1cs_matrix *mat[3] = {&r->a, &r->b, &r->c};
    uint64_t k[3] = {0, 0, 0};
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int m = 0; m < 3; m++) {
            uint32_t n = cuzk_rd_u32(p);
            p += 4;
            for (uint32_t t = 0; t < n; t++, p += 36, k[m]++) {
                uint32_t wire = cuzk_rd_u32(p);
                if (wire >= r->n_wires)
                    return cuzk_fail(err, CUZK_EFORMAT,
                                     "r1cs: section 2 (constraints): constraint %u %s term %u uses wire %u >= nWires %u",
                                     j, matrix_name[m], t, wire, r->n_wires);
                mat[m]->col[k[m]] = wire;
                if (cuzk_fr_from_le(r->curve, &mat[m]->coef[k[m]], p + 4, NULL) != CUZK_OK)
                    return cuzk_fail(err, CUZK_ERANGE,
                                     "r1cs: section 2 (constraints): constraint %u %s term %u: coefficient is not below r",
                                     j, matrix_name[m], t);
            }
            mat[m]->row_ptr[j + 1] = k[m];
        }
    }
    return CUZK_OK;
}

static cuzk_status parse_constraints(cuzk_r1cs *r, const cuzk_binfile *bf,
                                     cuzk_error *err) {
    const uint8_t *p;
    uint64_t sz, nnz[3];
    cuzk_status st = cuzk_binfile_need(bf, 2, "constraints", UINT64_MAX, 0, &p, &sz, err);
    if (st == CUZK_OK)
        st = count_terms(r, p, sz, nnz, err);
    if (st == CUZK_OK)
        st = alloc_matrix(&r->a, r->n_constraints, nnz[0], err);
    if (st == CUZK_OK)
        st = alloc_matrix(&r->b, r->n_constraints, nnz[1], err);
    if (st == CUZK_OK)
        st = alloc_matrix(&r->c, r->n_constraints, nnz[2], err);
    if (st == CUZK_OK)
        st = fill_terms(r, p, err);
    return st;
}

/* ---- section 3 and the rest -------------------------------------------- */

static cuzk_status parse_labels(cuzk_r1cs *r, const cuzk_binfile *bf,
                                cuzk_error *err) {
    uint64_t sz;
    const uint8_t *p = cuzk_binfile_find(bf, 3, &sz);
    if (p == NULL) {
        /*
         * Without the wire map nothing in the file bounds nWires, and every
         * consumer allocates per wire: a 6 KB file claiming 2^32 wires made
         * the writer try to build a 32 GiB map (found by fuzz_r1cs).  circom
         * always writes section 3; a file without it may declare no more
         * wires than its terms and its inputs can mention.
         */
        uint64_t bound = r->a.nnz + r->b.nnz + r->c.nnz + (uint64_t)r->n_pub_out +
                         r->n_pub_in + r->n_prv_in + 1;
        if (r->n_wires > bound)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "r1cs: nWires = %u, but there is no section 3 (wire labels) and "
                             "the constraints mention at most %llu wires",
                             r->n_wires, (unsigned long long)bound);
        return CUZK_OK;
    }
    if (sz != (uint64_t)r->n_wires * 8)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "r1cs: section 3 (wire labels) has %llu bytes, expected %llu",
                         (unsigned long long)sz, (unsigned long long)r->n_wires * 8);
    r->wire_to_label = malloc((size_t)r->n_wires * sizeof *r->wire_to_label);
    if (r->wire_to_label == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "r1cs: no memory for the label map");
    for (uint32_t i = 0; i < r->n_wires; i++)
        r->wire_to_label[i] = cuzk_rd_u64(p + 8 * (size_t)i);
    return CUZK_OK;
}

cuzk_status cuzk_r1cs_parse(cuzk_r1cs *r, const cuzk_binfile *bf,
                            cuzk_error *err) {
    memset(r, 0, sizeof *r);
    if (cuzk_binfile_find(bf, 4, NULL) || cuzk_binfile_find(bf, 5, NULL))
        return cuzk_fail(err, CUZK_EUNSUPPORTED,
                         "r1cs: sections 4/5 (custom gates) are PLONK-only, not usable for Groth16");
    cuzk_status st = parse_header(r, bf, err);
    if (st == CUZK_OK)
        st = parse_constraints(r, bf, err);
    if (st == CUZK_OK)
        st = parse_labels(r, bf, err);
    if (st != CUZK_OK)
        cuzk_r1cs_free(r);
    return st;
}

cuzk_status cuzk_r1cs_read_mem(cuzk_r1cs *r, const void *data, size_t size,
                               cuzk_error *err) {
    cuzk_binfile bf;
    memset(r, 0, sizeof *r);
    cuzk_status st = cuzk_binfile_from_mem(&bf, data, size, "r1cs", R1CS_VERSION, 0, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_r1cs_parse(r, &bf, err);
    cuzk_binfile_close(&bf);
    return st;
}

cuzk_status cuzk_r1cs_read_file(cuzk_r1cs *r, const char *path,
                                cuzk_error *err) {
    cuzk_binfile bf;
    memset(r, 0, sizeof *r);
    cuzk_status st = cuzk_binfile_open(&bf, path, "r1cs", R1CS_VERSION, 0, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_r1cs_parse(r, &bf, err);
    cuzk_binfile_close(&bf);
    return st;
}

static void free_matrix(cuzk_r1cs_matrix *m) {
    free(m->row_ptr);
    free(m->col);
    free(m->coef);
}

void cuzk_r1cs_free(cuzk_r1cs *r) {
    if (r == NULL)
        return;
    free_matrix(&r->a);
    free_matrix(&r->b);
    free_matrix(&r->c);
    free(r->wire_to_label);
    memset(r, 0, sizeof *r);
}

/* ---- writer ------------------------------------------------------------ */

static cuzk_status validate(const cuzk_r1cs *r, cuzk_error *err) {
    const cuzk_r1cs_matrix *mat[3] = {&r->a, &r->b, &r->c};
    if (cuzk_curve_facts_get(r->curve) == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "r1cs write: no curve");
    if (r->n_wires == 0 ||
        (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in + 1 > r->n_wires)
        return cuzk_fail(err, CUZK_EINVAL, "r1cs write: wire counts are inconsistent");
    for (int m = 0; m < 3; m++) {
        const cuzk_r1cs_matrix *x = mat[m];
        if (x->row_ptr == NULL || x->row_ptr[0] != 0 ||
            x->row_ptr[r->n_constraints] != x->nnz)
            return cuzk_fail(err, CUZK_EINVAL, "r1cs write: matrix %s row pointers are inconsistent",
                             matrix_name[m]);
        for (uint32_t j = 0; j < r->n_constraints; j++)
            if (x->row_ptr[j + 1] < x->row_ptr[j] ||
                x->row_ptr[j + 1] - x->row_ptr[j] > UINT32_MAX)
                return cuzk_fail(err, CUZK_EINVAL, "r1cs write: matrix %s row %u is malformed",
                                 matrix_name[m], j);
        for (uint64_t k = 0; k < x->nnz; k++)
            if (x->col[k] >= r->n_wires)
                return cuzk_fail(err, CUZK_EINVAL, "r1cs write: matrix %s uses wire %u >= nWires",
                                 matrix_name[m], x->col[k]);
    }
    return CUZK_OK;
}

static void put_prime_r(cuzk_outbuf *o, cuzk_curve c) {
    const uint64_t *m = cuzk_curve_r_limbs(c);
    for (int i = 0; i < 4; i++)
        cuzk_outbuf_u64(o, m[i]);
}

static void put_constraints(cuzk_outbuf *o, const cuzk_r1cs *r) {
    const cuzk_r1cs_matrix *mat[3] = {&r->a, &r->b, &r->c};
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int m = 0; m < 3; m++) {
            uint64_t lo = mat[m]->row_ptr[j], hi = mat[m]->row_ptr[j + 1];
            cuzk_outbuf_u32(o, (uint32_t)(hi - lo));
            for (uint64_t k = lo; k < hi; k++) {
                uint8_t *d = cuzk_outbuf_grow(o, 36);
                if (d == NULL)
                    return;
                cuzk_wr_u32(d, mat[m]->col[k]);
                cuzk_fr_to_le(r->curve, d + 4, &mat[m]->coef[k]);
            }
        }
    }
}

cuzk_status cuzk_r1cs_write_mem(const cuzk_r1cs *r, uint8_t **out,
                                size_t *size, cuzk_error *err) {
    cuzk_status st = validate(r, err);
    if (st != CUZK_OK)
        return st;
    uint64_t n_labels = r->n_labels;
    if (r->wire_to_label == NULL && n_labels < r->n_wires)
        n_labels = r->n_wires;
    cuzk_outbuf o;
    cuzk_outbuf_init(&o);
    cuzk_outbuf_header(&o, "r1cs", R1CS_VERSION, 3);
    cuzk_outbuf_section_begin(&o, 1);
    cuzk_outbuf_u32(&o, 32);
    put_prime_r(&o, r->curve);
    cuzk_outbuf_u32(&o, r->n_wires);
    cuzk_outbuf_u32(&o, r->n_pub_out);
    cuzk_outbuf_u32(&o, r->n_pub_in);
    cuzk_outbuf_u32(&o, r->n_prv_in);
    cuzk_outbuf_u64(&o, n_labels);
    cuzk_outbuf_u32(&o, r->n_constraints);
    cuzk_outbuf_section_end(&o);
    cuzk_outbuf_section_begin(&o, 2);
    put_constraints(&o, r);
    cuzk_outbuf_section_end(&o);
    cuzk_outbuf_section_begin(&o, 3);
    for (uint32_t i = 0; i < r->n_wires; i++)
        cuzk_outbuf_u64(&o, r->wire_to_label ? r->wire_to_label[i] : i);
    cuzk_outbuf_section_end(&o);
    return cuzk_outbuf_finish(&o, out, size, err);
}

cuzk_status cuzk_r1cs_write_file(const cuzk_r1cs *r, const char *path,
                                 cuzk_error *err) {
    uint8_t *buf;
    size_t size;
    cuzk_status st = cuzk_r1cs_write_mem(r, &buf, &size, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_write_file_atomic(path, buf, size, err);
    free(buf);
    return st;
}

/* ---- witness check ----------------------------------------------------- */

void cuzk_r1cs_row_dot(const cuzk_r1cs *r, const cuzk_r1cs_matrix *m,
                       uint32_t j, const cuzk_fr *w, cuzk_fr *out) {
    cuzk_fr t;
    memset(out, 0, sizeof *out); /* zero is all-zero limbs in Montgomery form */
    for (uint64_t k = m->row_ptr[j]; k < m->row_ptr[j + 1]; k++) {
        cuzk_fr_mul(r->curve, &t, &m->coef[k], &w[m->col[k]]);
        cuzk_fr_add(r->curve, out, out, &t);
    }
}

cuzk_status cuzk_r1cs_check_witness(const cuzk_r1cs *r, const cuzk_fr *w,
                                    size_t n, cuzk_error *err) {
    cuzk_fr one, a, b, c, ab;
    if (n != r->n_wires)
        return cuzk_fail(err, CUZK_EMISMATCH, "witness has %zu values, the r1cs has %u wires",
                         n, r->n_wires);
    cuzk_fr_set_one(r->curve, &one);
    if (!cuzk_fr_eq(&w[0], &one))
        return cuzk_fail(err, CUZK_EMISMATCH, "witness value 0 is not 1");
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        cuzk_r1cs_row_dot(r, &r->a, j, w, &a);
        cuzk_r1cs_row_dot(r, &r->b, j, w, &b);
        cuzk_r1cs_row_dot(r, &r->c, j, w, &c);
        cuzk_fr_mul(r->curve, &ab, &a, &b);
        if (!cuzk_fr_eq(&ab, &c))
            return cuzk_fail(err, CUZK_EVERIFY, "witness does not satisfy constraint %u", j);
    }
    return CUZK_OK;
}
