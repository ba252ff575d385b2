/*
 * circom .wtns reader and writer (see wtns.h).  The reader validates the
 * structure eagerly and the values lazily, because the values are read
 * again by whoever converts them anyway.
 */
#include "groth16/formats/wtns.h"

#include <stdlib.h>
#include <string.h>

#include "groth16/curve_facts.h"

#define WTNS_VERSION 2

/* Section 1 (|sz| bytes at |p|): the curve and nWitness. */
static cuzk_status parse_header(const uint8_t *p, uint64_t sz, cuzk_curve *curve, uint32_t *n,
                                cuzk_error *err) {
    uint32_t n8 = cuzk_rd_u32(p);
    if (n8 > sz || sz != (uint64_t)n8 + 8)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "wtns: section 1 (header) has %llu bytes, expected %llu for n8 = %u",
                         (unsigned long long)sz, (unsigned long long)n8 + 8, n8);
    /* no prime of ours is over 64 bytes: refused before it is read (the
     * part reader holds only that much of the header) */
    *curve = n8 <= 64 ? cuzk_curve_from_r(p + 4, n8) : CUZK_CURVE_NONE;
    if (*curve == CUZK_CURVE_NONE)
        return cuzk_fail(err, CUZK_ECURVE,
                         "wtns: section 1 (header): prime (n8 = %u) is not the scalar field of bn128 or bls12381",
                         n8);
    *n = cuzk_rd_u32(p + 4 + n8);
    if (*n == 0)
        return cuzk_fail(err, CUZK_EFORMAT, "wtns: section 1 (header): nWitness is 0");
    return CUZK_OK;
}

static const uint8_t one_le[32] = {1};

static cuzk_status parse(cuzk_wtns *w, cuzk_error *err) {
    const uint8_t *p;
    uint64_t sz;
    cuzk_status st = cuzk_binfile_need(&w->bf, 1, "header", UINT64_MAX, 4, &p, &sz, err);
    if (st == CUZK_OK)
        st = parse_header(p, sz, &w->curve, &w->n_witness, err);
    if (st == CUZK_OK)
        st = cuzk_binfile_need(&w->bf, 2, "values", (uint64_t)w->n_witness * 32, 0, &w->values,
                               NULL, err);
    if (st != CUZK_OK)
        return st;
    if (memcmp(w->values, one_le, 32) != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "wtns: section 2 (values): w[0] is not 1");
    return CUZK_OK;
}

/* The largest header section parse_header reads: n8, a 64-byte prime,
 * nWitness. */
#define HEADER_MAX (4 + 64 + 4)

cuzk_status cuzk_wtns_head_open(cuzk_wtns_head *h, const char *path, cuzk_error *err) {
    memset(h, 0, sizeof *h);
    cuzk_binfile bf;
    uint8_t hdr[HEADER_MAX];
    uint64_t at, sz;
    cuzk_status st = cuzk_infile_open(&h->f, path, "wtns", err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_binfile_open_table(&bf, &h->f, "wtns", WTNS_VERSION, 0, err);
    if (st == CUZK_OK)
        st = cuzk_binfile_need_at(&bf, 1, "header", UINT64_MAX, 4, &at, &sz, err);
    if (st == CUZK_OK)
        st = cuzk_infile_pread(&h->f, hdr, sz < HEADER_MAX ? sz : HEADER_MAX, at, err);
    if (st == CUZK_OK)
        st = parse_header(hdr, sz, &h->curve, &h->n_witness, err);
    if (st == CUZK_OK)
        st = cuzk_binfile_need_at(&bf, 2, "values", (uint64_t)h->n_witness * 32, 0,
                                  &h->values_at, NULL, err);
    cuzk_binfile_close(&bf);
    if (st != CUZK_OK)
        cuzk_wtns_head_close(h);
    return st;
}

cuzk_status cuzk_wtns_head_read(const cuzk_wtns_head *h, void *dst, size_t first, size_t count,
                                cuzk_error *err) {
    if (first > h->n_witness || count > h->n_witness - first)
        return cuzk_fail(err, CUZK_EINVAL, "wtns: values %zu..%zu requested, only %u exist",
                         first, first + count, h->n_witness);
    cuzk_status st = cuzk_infile_pread(&h->f, dst, (uint64_t)count * 32,
                                       h->values_at + (uint64_t)first * 32, err);
    if (st == CUZK_OK && first == 0 && count && memcmp(dst, one_le, 32) != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "wtns: section 2 (values): w[0] is not 1");
    return st;
}

void cuzk_wtns_head_close(cuzk_wtns_head *h) {
    if (h == NULL)
        return;
    cuzk_infile_close(&h->f);
    memset(h, 0, sizeof *h);
    h->f.fd = -1;
}

static cuzk_status finish_open(cuzk_wtns *w, cuzk_status st, cuzk_error *err) {
    if (st == CUZK_OK)
        st = parse(w, err);
    if (st != CUZK_OK)
        cuzk_wtns_close(w);
    return st;
}

cuzk_status cuzk_wtns_open(cuzk_wtns *w, const char *path, cuzk_error *err) {
    memset(w, 0, sizeof *w);
    return finish_open(w, cuzk_binfile_open(&w->bf, path, "wtns", WTNS_VERSION, 0, err), err);
}

cuzk_status cuzk_wtns_from_mem(cuzk_wtns *w, const void *data, size_t size,
                               cuzk_error *err) {
    memset(w, 0, sizeof *w);
    return finish_open(
        w, cuzk_binfile_from_mem(&w->bf, data, size, "wtns", WTNS_VERSION, 0, err), err);
}

void cuzk_wtns_close(cuzk_wtns *w) {
    if (w == NULL)
        return;
    cuzk_binfile_close(&w->bf);
    memset(w, 0, sizeof *w);
}

cuzk_status cuzk_wtns_to_mont(const cuzk_wtns *w, cuzk_fr *out, size_t first,
                              size_t count, cuzk_error *err) {
    if (first > w->n_witness || count > w->n_witness - first)
        return cuzk_fail(err, CUZK_EINVAL, "wtns: values %zu..%zu requested, only %u exist",
                         first, first + count, w->n_witness);
    for (size_t i = 0; i < count; i++)
        if (cuzk_fr_from_le(w->curve, &out[i], cuzk_wtns_value(w, first + i), NULL) != CUZK_OK)
            return cuzk_fail(err, CUZK_ERANGE, "wtns: section 2 (values): w[%zu] is not below r",
                             first + i);
    return CUZK_OK;
}

cuzk_status cuzk_wtns_check_range(const cuzk_wtns *w, cuzk_error *err) {
    const uint64_t *m = cuzk_curve_r_limbs(w->curve);
    for (size_t i = 0; i < w->n_witness; i++) {
        const uint8_t *v = cuzk_wtns_value(w, i);
        int below = 0;
        for (int k = 3; k >= 0; k--) {
            uint64_t x = cuzk_rd_u64(v + 8 * k);
            if (x != m[k]) {
                below = x < m[k];
                break;
            }
        }
        if (!below)
            return cuzk_fail(err, CUZK_ERANGE, "wtns: section 2 (values): w[%zu] is not below r", i);
    }
    return CUZK_OK;
}

cuzk_status cuzk_wtns_write_mem(cuzk_curve curve, const cuzk_fr *values,
                                size_t n, uint8_t **out, size_t *size,
                                cuzk_error *err) {
    cuzk_fr one;
    if (cuzk_curve_facts_get(curve) == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "wtns write: no curve");
    if (n == 0 || n > UINT32_MAX)
        return cuzk_fail(err, CUZK_EINVAL, "wtns write: %zu values cannot be stored", n);
    cuzk_fr_set_one(curve, &one);
    if (!cuzk_fr_eq(&values[0], &one))
        return cuzk_fail(err, CUZK_EINVAL, "wtns write: w[0] must be 1");
    const uint64_t *r = cuzk_curve_r_limbs(curve);
    cuzk_outbuf o;
    cuzk_outbuf_init(&o);
    cuzk_outbuf_header(&o, "wtns", WTNS_VERSION, 2);
    cuzk_outbuf_section_begin(&o, 1);
    cuzk_outbuf_u32(&o, 32);
    for (int i = 0; i < 4; i++)
        cuzk_outbuf_u64(&o, r[i]);
    cuzk_outbuf_u32(&o, (uint32_t)n);
    cuzk_outbuf_section_end(&o);
    cuzk_outbuf_section_begin(&o, 2);
    uint8_t *d = cuzk_outbuf_grow(&o, 32 * n);
    if (d)
        for (size_t i = 0; i < n; i++)
            cuzk_fr_to_le(curve, d + 32 * i, &values[i]);
    cuzk_outbuf_section_end(&o);
    return cuzk_outbuf_finish(&o, out, size, err);
}

cuzk_status cuzk_wtns_write_file(cuzk_curve curve, const cuzk_fr *values,
                                 size_t n, const char *path, cuzk_error *err) {
    uint8_t *buf;
    size_t size;
    cuzk_status st = cuzk_wtns_write_mem(curve, values, n, &buf, &size, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_write_file_atomic(path, buf, size, err);
    free(buf);
    return st;
}
