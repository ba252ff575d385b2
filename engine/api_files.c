/*
 * The public file API (include/cuzk_files.h): wrappers of the readers and
 * writers of groth16/ that take and give byte images and plain C types, so
 * that programs built on libcuzk need no internal header.
 *
 * Each wrapper converts at the edge (cuzk_proof_bytes <-> cuzk_proof,
 * 32-byte big-endian signals <-> Montgomery scalars: engine/api.h) and
 * otherwise calls the one reader or writer there is; the validation stays
 * in the readers.  Must not: parse anything itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk_files.h"
#include "engine/api.h"
#include "groth16/formats/abc.h"
#include "groth16/prover/abc_image.h"
#include "groth16/formats/json.h"
#include "groth16/formats/r1cs.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"
#include "util/infile.h"

static cuzk_status inspect_r1cs(cuzk_file_info *info, const char *path, cuzk_error *err) {
    cuzk_r1cs r;
    cuzk_status s = cuzk_r1cs_read_file(&r, path, err);
    if (s != CUZK_OK)
        return s;
    info->curve = r.curve;
    info->n_constraints = r.n_constraints;
    info->n_wires = r.n_wires;
    info->n_pub_out = r.n_pub_out;
    info->n_pub_in = r.n_pub_in;
    info->n_prv_in = r.n_prv_in;
    info->n_labels = r.n_labels;
    info->nnz_a = r.a.nnz, info->nnz_b = r.b.nnz, info->nnz_c = r.c.nnz;
    uint64_t need = (uint64_t)r.n_constraints + cuzk_r1cs_n_public(&r) + 1, n = 1;
    while (n < need)
        n <<= 1, info->log_n++;
    cuzk_r1cs_free(&r);
    return CUZK_OK;
}

static cuzk_status inspect_wtns(cuzk_file_info *info, const char *path, cuzk_error *err) {
    cuzk_wtns w;
    cuzk_status s = cuzk_wtns_open(&w, path, err);
    if (s != CUZK_OK)
        return s;
    info->curve = w.curve;
    info->n_values = w.n_witness;
    cuzk_error re = {0};
    info->range = cuzk_wtns_check_range(&w, &re);
    snprintf(info->range_msg, sizeof info->range_msg, "%s", re.msg);
    cuzk_wtns_close(&w);
    return CUZK_OK;
}

static cuzk_status inspect_zkey(cuzk_file_info *info, const char *path, cuzk_error *err) {
    cuzk_zkey z;
    cuzk_status s = cuzk_zkey_open(&z, path, err);
    if (s != CUZK_OK)
        return s;
    info->curve = z.curve;
    info->n_vars = z.n_vars;
    info->n_public = z.n_public;
    info->log_n = z.log_domain_size;
    info->n_coefs = z.n_coefs;
    info->n_contributions = z.n_contributions;
    info->n_ic = z.ic.count, info->n_a = z.a.count, info->n_b1 = z.b1.count;
    info->n_b2 = z.b2.count, info->n_c = z.c.count, info->n_h = z.h.count;
    cuzk_zkey_close(&z);
    return CUZK_OK;
}

static cuzk_status inspect_abc(cuzk_file_info *info, const char *path, cuzk_error *err) {
    cuzk_abc x;
    cuzk_status s = cuzk_abc_open(&x, path, err);
    if (s != CUZK_OK)
        return s;
    info->curve = x.curve;
    info->n_rows = x.m;
    info->n_values = x.n_vars;
    info->range = CUZK_OK;
    cuzk_abc_close(&x);
    return CUZK_OK;
}

cuzk_status cuzk_file_inspect(cuzk_file_info *info, const char *path, cuzk_error *err) {
    memset(info, 0, sizeof *info);
    cuzk_infile f; /* no FIFO waited on, a regular file only: util/infile.h */
    cuzk_status os = cuzk_infile_open(&f, path, "file", err);
    if (os != CUZK_OK)
        return os;
    char magic[4] = {0};
    size_t got = f.size < 4 ? 0 : 4;
    if (got && cuzk_infile_pread(&f, magic, 4, 0, NULL) != CUZK_OK)
        got = 0;
    info->file_bytes = f.size;
    cuzk_infile_close(&f);
    if (got == 4 && !memcmp(magic, "r1cs", 4))
        return info->kind = CUZK_FILE_R1CS, inspect_r1cs(info, path, err);
    if (got == 4 && !memcmp(magic, "wtns", 4))
        return info->kind = CUZK_FILE_WTNS, inspect_wtns(info, path, err);
    if (got == 4 && !memcmp(magic, "zkey", 4))
        return info->kind = CUZK_FILE_ZKEY, inspect_zkey(info, path, err);
    if (cuzk_abc_file_is_image(path))
        return info->kind = CUZK_FILE_ABC, inspect_abc(info, path, err);
    return cuzk_fail(err, CUZK_EFORMAT,
                     "not a .r1cs, .wtns, .zkey or a, b, c image (unknown magic)");
}

cuzk_status cuzk_wtns_inspect(cuzk_curve *curve, uint64_t *n_values, const char *path,
                              const void *data, size_t size, cuzk_error *err) {
    cuzk_wtns w;
    cuzk_status s;
    if (path ? cuzk_abc_file_is_image(path) : cuzk_abc_is_image(data, size)) {
        cuzk_abc x;
        s = path ? cuzk_abc_open(&x, path, err) : cuzk_abc_from_mem(&x, data, size, err);
        if (s != CUZK_OK)
            return s;
        *curve = x.curve;
        *n_values = x.n_vars;
        cuzk_abc_close(&x);
        return CUZK_OK;
    }
    s = path ? cuzk_wtns_open(&w, path, err) : cuzk_wtns_from_mem(&w, data, size, err);
    if (s != CUZK_OK)
        return s;
    *curve = w.curve;
    *n_values = w.n_witness;
    cuzk_wtns_close(&w);
    return CUZK_OK;
}

/* The public signals (values 1 .. n of a witness of |n_have| values) as
 * bytes: |fill| converts them, from a .wtns or an a, b, c image. */
typedef cuzk_status (*public_fill)(const void *src, cuzk_fr *v, size_t n, cuzk_error *err);

static cuzk_status public_bytes_of(const char *path, cuzk_curve c, uint64_t n_have,
                                   public_fill fill, const void *src, uint8_t *out, size_t n,
                                   cuzk_error *err) {
    cuzk_status s = CUZK_OK;
    cuzk_fr *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for %zu values", n);
    else if ((uint64_t)n + 1 > n_have)
        s = cuzk_fail(err, CUZK_EMISMATCH, "%s has %llu witness values, not %zu public signals "
                                           "and the 1",
                      path, (unsigned long long)n_have, n);
    else if ((s = fill(src, v, n, err)) == CUZK_OK)
        cuzk_public_to_bytes(c, out, v, n);
    free(v);
    return s;
}

static cuzk_status abc_fill(const void *src, cuzk_fr *v, size_t n, cuzk_error *err) {
    const cuzk_abc *x = src;
    cuzk_status s = CUZK_OK;
    for (size_t i = 0; s == CUZK_OK && i < n; i++)
        s = cuzk_fr_from_le(x->curve, &v[i], cuzk_abc_value(x, 3, i + 1), err);
    return s;
}

static cuzk_status wtns_fill(const void *src, cuzk_fr *v, size_t n, cuzk_error *err) {
    return cuzk_wtns_to_mont((const cuzk_wtns *)src, v, 1, n, err);
}

cuzk_status cuzk_wtns_public_bytes(const char *path, cuzk_curve *curve, uint8_t *out, size_t n,
                                   cuzk_error *err) {
    cuzk_status s;
    if (cuzk_abc_file_is_image(path)) {
        cuzk_abc x;
        if ((s = cuzk_abc_open(&x, path, err)) != CUZK_OK)
            return s;
        if (curve)
            *curve = x.curve;
        s = public_bytes_of(path, x.curve, x.n_vars, abc_fill, &x, out, n, err);
        cuzk_abc_close(&x);
        return s;
    }
    cuzk_wtns w;
    if ((s = cuzk_wtns_open(&w, path, err)) != CUZK_OK)
        return s;
    if (curve)
        *curve = w.curve;
    s = public_bytes_of(path, w.curve, w.n_witness, wtns_fill, &w, out, n, err);
    cuzk_wtns_close(&w);
    return s;
}

cuzk_status cuzk_abc_make(const char *zkey_path, const char *wtns_path, const char *out_path,
                          unsigned threads, cuzk_error *err) {
    cuzk_key k;
    cuzk_wtns w;
    cuzk_pool *pool = NULL;
    cuzk_fr *plain = NULL;
    uint8_t *img = NULL;
    size_t size = 0;
    cuzk_status s = cuzk_key_load(&k, zkey_path, err);
    if (s != CUZK_OK) {
        cuzk_key_free(&k);
        return s;
    }
    if ((s = cuzk_wtns_open(&w, wtns_path, err)) != CUZK_OK) {
        cuzk_key_free(&k);
        return s;
    }
    if (w.curve != k.curve)
        s = cuzk_fail(err, CUZK_ECURVE, "witness is for %s, the key for %s",
                      cuzk_curve_snarkjs_name(w.curve), cuzk_curve_snarkjs_name(k.curve));
    else if (!(plain = malloc((size_t)w.n_witness * sizeof *plain)))
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for the witness");
    else if (threads > 1 && !(pool = cuzk_pool_create(threads, err)))
        s = err && err->status ? err->status : CUZK_ENOMEM;
    if (s == CUZK_OK) {
        memcpy(plain, w.values, (size_t)w.n_witness * sizeof *plain); /* aligned */
        s = cuzk_abc_from_witness(&k, plain, w.n_witness, pool, &img, &size, err);
    }
    if (s == CUZK_OK)
        s = cuzk_write_file_atomic(out_path, img, size, err);
    free(img);
    free(plain);
    cuzk_pool_destroy(pool);
    cuzk_wtns_close(&w);
    cuzk_key_free(&k);
    return s;
}

cuzk_status cuzk_vk_save_json(const cuzk_vk *vk, const char *path, cuzk_error *err) {
    return cuzk_vk_write_json_file(vk, path, err);
}

cuzk_status cuzk_proof_bytes_from_json(cuzk_proof_bytes *out, cuzk_curve curve, const char *text,
                                       size_t len, cuzk_error *err) {
    cuzk_proof p;
    cuzk_status s = cuzk_proof_read_json(&p, curve, text, len, err);
    if (s == CUZK_OK)
        cuzk_proof_to_bytes(out, &p);
    return s;
}

cuzk_status cuzk_proof_bytes_read_json_file(cuzk_proof_bytes *out, cuzk_curve curve,
                                            const char *path, cuzk_error *err) {
    cuzk_proof p;
    cuzk_status s = cuzk_proof_read_json_file(&p, curve, path, err);
    if (s == CUZK_OK)
        cuzk_proof_to_bytes(out, &p);
    return s;
}

cuzk_status cuzk_proof_bytes_write_json_file(const cuzk_proof_bytes *proof, const char *path,
                                             cuzk_error *err) {
    cuzk_proof p;
    cuzk_status s = cuzk_proof_from_bytes(&p, proof, err);
    return s == CUZK_OK ? cuzk_proof_write_json_file(&p, path, err) : s;
}

/* Montgomery scalars to malloc'd images; frees |fr|. */
static cuzk_status fr_to_images(cuzk_curve curve, cuzk_fr *fr, size_t n, uint8_t **out,
                                cuzk_error *err) {
    *out = NULL;
    if (n) {
        *out = malloc(n * CUZK_SCALAR_BYTES);
        if (!*out) {
            free(fr);
            return cuzk_fail(err, CUZK_ENOMEM, "no memory for %zu public signals", n);
        }
        cuzk_public_to_bytes(curve, *out, fr, n);
    }
    free(fr);
    return CUZK_OK;
}

cuzk_status cuzk_public_bytes_from_json(cuzk_curve curve, uint8_t **out, size_t *n,
                                        const char *text, size_t len, cuzk_error *err) {
    cuzk_fr *fr = NULL;
    *out = NULL;
    cuzk_status s = cuzk_public_read_json(curve, &fr, n, text, len, err);
    return s == CUZK_OK ? fr_to_images(curve, fr, *n, out, err) : s;
}

cuzk_status cuzk_public_bytes_read_json_file(cuzk_curve curve, uint8_t **out, size_t *n,
                                             const char *path, cuzk_error *err) {
    cuzk_fr *fr = NULL;
    *out = NULL;
    cuzk_status s = cuzk_public_read_json_file(curve, &fr, n, path, err);
    return s == CUZK_OK ? fr_to_images(curve, fr, *n, out, err) : s;
}

cuzk_status cuzk_public_bytes_write_json_file(cuzk_curve curve, const uint8_t *pub, size_t n,
                                              const char *path, cuzk_error *err) {
    cuzk_fr *fr = calloc(n ? n : 1, sizeof *fr);
    if (!fr)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for %zu public signals", n);
    cuzk_status s = cuzk_public_from_bytes(curve, fr, pub, n, err);
    if (s == CUZK_OK)
        s = cuzk_public_write_json_file(curve, fr, n, path, err);
    free(fr);
    return s;
}
