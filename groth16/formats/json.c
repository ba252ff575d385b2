/*
 * snarkjs JSON files (see json.h).  Parsing and printing go through jansson;
 * jansson's JSON_INDENT(1) | JSON_PRESERVE_ORDER output is byte-identical to
 * snarkjs's JSON.stringify(x, null, 1), which is what makes the writers
 * drop-in.  The per-curve code is json_template.h, included once per curve.
 */
#include "groth16/formats/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "curve/curve.h"
#include "pairing/pairing.h"

/* ---- verification key from a zkey (no JSON involved) ------------------------ */

cuzk_status cuzk_vk_from_zkey(cuzk_vk *vk, const cuzk_zkey *z, cuzk_error *err) {
    memset(vk, 0, sizeof *vk);
    const cuzk_json_table *t = cuzk_json_table_get(z->curve);
    if (t == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "zkey has no curve");
    cuzk_status st = t->vk_from_zkey(vk, z, err);
    if (st != CUZK_OK)
        memset(vk, 0, sizeof *vk);
    return st;
}

#include <jansson.h>

/* ---- helpers shared by both curves ----------------------------------------- */

static cuzk_status fail_at(cuzk_error *err, cuzk_status st, const char *src,
                           const char *path, const char *what) {
    return cuzk_fail(err, st, "%s: %s %s", src, path[0] ? path : "value", what);
}

static const char *json_path(char *buf, size_t cap, const char *base, int i) {
    /* Paths are short ("vk_beta_2[1][0]"); a truncated one is still a
     * usable message, so the result is deliberately not checked. */
    if (snprintf(buf, cap, "%s[%d]", base, i) >= (int)cap)
        buf[cap - 1] = '\0';
    return buf;
}

/* The decimal text of |v|: a string (without embedded NULs) or a
 * non-negative integer, as snarkjs accepts both; NULL otherwise. */
static const char *dec_string(json_t *v, char *buf, size_t cap) {
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        return strlen(s) == json_string_length(v) ? s : NULL;
    }
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    return NULL;
}

/* e(alpha, beta) for vk_alphabeta_12.  Returns 1 when |e| is the value
 * snarkjs writes (see the note in tests/test_formats.c), 0 to omit the
 * field. */
static int bn254_json_alphabeta(bn254_fp12 *e, const bn254_g1_affine *a,
                                const bn254_g2_affine *b) {
    bn254_pairing(e, a, b);
    return 1;
}
static int bls12_381_json_alphabeta(bls12_381_fp12 *e, const bls12_381_g1_affine *a,
                                    const bls12_381_g2_affine *b) {
    bls12_381_pairing(e, a, b);
    return 1;
}

#define P bn254
#include "groth16/formats/json_template.h"
#undef P
#define P bls12_381
#include "groth16/formats/json_template.h"
#undef P

/* This layer's table per curve (json.h): the typed readers and writers
 * above on the curve-agnostic types. */
#define JSON_TABLE(P)                                                                    \
    static cuzk_status P##_vk_read_any(cuzk_vk *vk, json_t *root, const char *src,       \
                                       cuzk_error *err) {                                \
        return P##_json_vk_read(&vk->vk.P, root, src, err);                              \
    }                                                                                    \
    static json_t *P##_vk_write_any(const cuzk_vk *vk) {                                 \
        return P##_json_vk_json(&vk->vk.P, cuzk_curve_snarkjs_name(vk->curve));          \
    }                                                                                    \
    static cuzk_status P##_proof_read_any(cuzk_proof *p, json_t *root, const char *src,  \
                                          cuzk_error *err) {                             \
        return P##_json_proof_read(&p->p.P, root, src, err);                             \
    }                                                                                    \
    static json_t *P##_proof_write_any(const cuzk_proof *p) {                            \
        return P##_json_proof_json(&p->p.P, cuzk_curve_snarkjs_name(p->curve));          \
    }                                                                                    \
    static cuzk_status P##_public_read_any(cuzk_fr *out, json_t *root, const char *src,  \
                                           cuzk_error *err) {                            \
        return P##_json_public_read(&out->P, root, src, err);                            \
    }                                                                                    \
    static json_t *P##_public_write_any(const cuzk_fr *pub, size_t n) {                  \
        /* cuzk_fr and P_fr share one layout (curve_id.h): the union array is   */      \
        /* read as the curve's scalar array through its member.                 */      \
        return P##_json_public_json(n ? &pub->P : NULL, n);                              \
    }                                                                                    \
    static cuzk_status P##_vk_from_zkey_any(cuzk_vk *vk, const cuzk_zkey *z,             \
                                            cuzk_error *err) {                           \
        cuzk_status st = P##_json_vk_from_zkey(&vk->vk.P, z, err);                       \
        if (st == CUZK_OK)                                                               \
            vk->curve = z->curve;                                                        \
        return st;                                                                       \
    }                                                                                    \
    const cuzk_json_table P##_json_table = {                                             \
        P##_vk_read_any,     P##_vk_write_any,     P##_proof_read_any,                   \
        P##_proof_write_any, P##_public_read_any,  P##_public_write_any,                 \
        P##_vk_from_zkey_any};
JSON_TABLE(bn254)
JSON_TABLE(bls12_381)
#undef JSON_TABLE

static const cuzk_json_table *const by_id[] = {
    [CUZK_CURVE_BN254] = &bn254_json_table,
    [CUZK_CURVE_BLS12_381] = &bls12_381_json_table,
};

const cuzk_json_table *cuzk_json_table_get(cuzk_curve c) {
    /* unsigned: a negative value read from a corrupt struct is out of range too */
    return (unsigned)c < sizeof by_id / sizeof by_id[0] ? by_id[(unsigned)c] : NULL;
}

static cuzk_status load(json_t **root, const char *text, size_t len,
                        const char *src, cuzk_error *err) {
    json_error_t je;
    *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (*root == NULL)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: invalid JSON at line %d column %d: %s", src,
                         je.line, je.column, je.text);
    return CUZK_OK;
}

/* Whole file into a malloc'd, NUL-terminated buffer (snarkjs JSON files
 * are small; 1 GiB is a sanity bound, not a real limit), read as
 * util/infile.h reads: no FIFO waited on, nothing mapped. */
static cuzk_status read_text(const char *path, char **out, size_t *len,
                             cuzk_error *err) {
    uint8_t *text = NULL;
    cuzk_status st = cuzk_infile_read_all(path, "json", 1u << 30, 0, &text, len, err);
    *out = (char *)text;
    return st;
}

static cuzk_status dump(json_t *root, char **out, cuzk_error *err) {
    *out = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (*out == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for JSON output");
    return CUZK_OK;
}

static cuzk_status write_text(const char *path, char *s, cuzk_error *err) {
    cuzk_status st = cuzk_write_file_atomic(path, (const uint8_t *)s, strlen(s), err);
    free(s);
    return st;
}

/* "protocol", when |required| or present, must be the string "groth16". */
static cuzk_status check_protocol(json_t *root, int required, const char *src,
                                  cuzk_error *err) {
    json_t *p = json_object_get(root, "protocol");
    if (p == NULL && !required)
        return CUZK_OK;
    if (!json_is_string(p) || strcmp(json_string_value(p), "groth16") != 0)
        return fail_at(err, CUZK_EFORMAT, src, "protocol", "must be \"groth16\"");
    return CUZK_OK;
}

/* The "curve" field: CUZK_CURVE_NONE in *c when absent. */
static cuzk_status read_curve(json_t *root, cuzk_curve *c, const char *src,
                              cuzk_error *err) {
    json_t *v = json_object_get(root, "curve");
    *c = CUZK_CURVE_NONE;
    if (v == NULL)
        return CUZK_OK;
    if (!json_is_string(v))
        return fail_at(err, CUZK_EFORMAT, src, "curve", "must be a string");
    *c = cuzk_curve_from_name(json_string_value(v));
    if (*c == CUZK_CURVE_NONE)
        return cuzk_fail(err, CUZK_ECURVE, "%s: curve \"%s\" is not bn128 or bls12381", src,
                         json_string_value(v));
    return CUZK_OK;
}

/* ---- verification_key.json -------------------------------------------------- */

static cuzk_status vk_read(cuzk_vk *vk, const char *text, size_t len,
                           const char *src, cuzk_error *err) {
    json_t *root;
    cuzk_curve c = CUZK_CURVE_NONE;
    memset(vk, 0, sizeof *vk);
    cuzk_status st = load(&root, text, len, src, err);
    if (st != CUZK_OK)
        return st;
    if (!json_is_object(root))
        st = fail_at(err, CUZK_EFORMAT, src, "top level", "must be an object");
    if (st == CUZK_OK)
        st = check_protocol(root, 1, src, err);
    if (st == CUZK_OK)
        st = read_curve(root, &c, src, err);
    if (st == CUZK_OK && c == CUZK_CURVE_NONE)
        st = fail_at(err, CUZK_EFORMAT, src, "curve", "is missing");
    if (st == CUZK_OK)
        st = cuzk_json_table_get(c)->vk_read(vk, root, src, err);
    json_decref(root);
    if (st == CUZK_OK)
        vk->curve = c;
    return st;
}

cuzk_status cuzk_vk_read_json(cuzk_vk *vk, const char *text, size_t len,
                              cuzk_error *err) {
    return vk_read(vk, text, len, "verification_key.json", err);
}

cuzk_status cuzk_vk_read_json_file(cuzk_vk *vk, const char *path, cuzk_error *err) {
    char *text;
    size_t len;
    memset(vk, 0, sizeof *vk);
    cuzk_status st = read_text(path, &text, &len, err);
    if (st != CUZK_OK)
        return st;
    st = vk_read(vk, text, len, path, err);
    free(text);
    return st;
}

cuzk_status cuzk_vk_write_json(const cuzk_vk *vk, char **out, cuzk_error *err) {
    const cuzk_json_table *t = cuzk_json_table_get(vk->curve);
    if (t == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "verification key has no curve");
    return dump(t->vk_write(vk), out, err);
}

cuzk_status cuzk_vk_write_json_file(const cuzk_vk *vk, const char *path,
                                    cuzk_error *err) {
    char *s;
    cuzk_status st = cuzk_vk_write_json(vk, &s, err);
    return st != CUZK_OK ? st : write_text(path, s, err);
}

/* ---- proof.json --------------------------------------------------------------- */

static cuzk_status proof_read(cuzk_proof *p, cuzk_curve want, const char *text,
                              size_t len, const char *src, cuzk_error *err) {
    json_t *root;
    cuzk_curve c = CUZK_CURVE_NONE;
    memset(p, 0, sizeof *p);
    cuzk_status st = load(&root, text, len, src, err);
    if (st != CUZK_OK)
        return st;
    if (!json_is_object(root))
        st = fail_at(err, CUZK_EFORMAT, src, "top level", "must be an object");
    if (st == CUZK_OK)
        st = check_protocol(root, 0, src, err);
    if (st == CUZK_OK)
        st = read_curve(root, &c, src, err);
    if (st == CUZK_OK && c != CUZK_CURVE_NONE && want != CUZK_CURVE_NONE && c != want)
        st = cuzk_fail(err, CUZK_ECURVE, "%s: proof is for %s, expected %s", src,
                       cuzk_curve_snarkjs_name(c), cuzk_curve_snarkjs_name(want));
    if (want != CUZK_CURVE_NONE)
        c = want;
    if (st == CUZK_OK && c == CUZK_CURVE_NONE)
        st = fail_at(err, CUZK_EFORMAT, src, "curve", "is missing and no curve was given");
    if (st == CUZK_OK && cuzk_json_table_get(c) == NULL)
        st = cuzk_fail(err, CUZK_ECURVE, "%s: expected curve %d is not one of ours", src, (int)c);
    if (st == CUZK_OK)
        st = cuzk_json_table_get(c)->proof_read(p, root, src, err);
    json_decref(root);
    if (st == CUZK_OK)
        p->curve = c;
    else
        memset(p, 0, sizeof *p);
    return st;
}

cuzk_status cuzk_proof_read_json(cuzk_proof *p, cuzk_curve curve, const char *text,
                                 size_t len, cuzk_error *err) {
    return proof_read(p, curve, text, len, "proof.json", err);
}

cuzk_status cuzk_proof_read_json_file(cuzk_proof *p, cuzk_curve curve,
                                      const char *path, cuzk_error *err) {
    char *text;
    size_t len;
    memset(p, 0, sizeof *p);
    cuzk_status st = read_text(path, &text, &len, err);
    if (st != CUZK_OK)
        return st;
    st = proof_read(p, curve, text, len, path, err);
    free(text);
    return st;
}

cuzk_status cuzk_proof_write_json(const cuzk_proof *p, char **out, cuzk_error *err) {
    const cuzk_json_table *t = cuzk_json_table_get(p->curve);
    if (t == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "proof has no curve");
    return dump(t->proof_write(p), out, err);
}

cuzk_status cuzk_proof_write_json_file(const cuzk_proof *p, const char *path,
                                       cuzk_error *err) {
    char *s;
    cuzk_status st = cuzk_proof_write_json(p, &s, err);
    return st != CUZK_OK ? st : write_text(path, s, err);
}

/* ---- public.json --------------------------------------------------------------- */

static cuzk_status public_read(cuzk_curve curve, cuzk_fr **out, size_t *n,
                               const char *text, size_t len, const char *src,
                               cuzk_error *err) {
    json_t *root;
    *out = NULL;
    *n = 0;
    const cuzk_json_table *t = cuzk_json_table_get(curve);
    if (t == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "%s: no curve given", src);
    cuzk_status st = load(&root, text, len, src, err);
    if (st != CUZK_OK)
        return st;
    size_t cnt = json_is_array(root) ? json_array_size(root) : 0;
    cuzk_fr *v = NULL;
    if (!json_is_array(root))
        st = fail_at(err, CUZK_EFORMAT, src, "top level", "must be an array of decimal strings");
    else if (cnt && (v = malloc(cnt * sizeof *v)) == NULL)
        st = cuzk_fail(err, CUZK_ENOMEM, "%s: no memory", src);
    if (st == CUZK_OK && cnt)
        st = t->public_read(v, root, src, err);
    json_decref(root);
    if (st != CUZK_OK) {
        free(v);
        return st;
    }
    *out = v;
    *n = cnt;
    return CUZK_OK;
}

cuzk_status cuzk_public_read_json(cuzk_curve curve, cuzk_fr **out, size_t *n,
                                  const char *text, size_t len, cuzk_error *err) {
    return public_read(curve, out, n, text, len, "public.json", err);
}

cuzk_status cuzk_public_read_json_file(cuzk_curve curve, cuzk_fr **out, size_t *n,
                                       const char *path, cuzk_error *err) {
    char *text;
    size_t len;
    *out = NULL;
    *n = 0;
    cuzk_status st = read_text(path, &text, &len, err);
    if (st != CUZK_OK)
        return st;
    st = public_read(curve, out, n, text, len, path, err);
    free(text);
    return st;
}

cuzk_status cuzk_public_write_json(cuzk_curve curve, const cuzk_fr *pub, size_t n,
                                   char **out, cuzk_error *err) {
    const cuzk_json_table *t = cuzk_json_table_get(curve);
    if (t == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "public signals have no curve");
    return dump(t->public_write(pub, n), out, err);
}

cuzk_status cuzk_public_write_json_file(cuzk_curve curve, const cuzk_fr *pub, size_t n,
                                        const char *path, cuzk_error *err) {
    char *s;
    cuzk_status st = cuzk_public_write_json(curve, pub, n, &s, err);
    return st != CUZK_OK ? st : write_text(path, s, err);
}
