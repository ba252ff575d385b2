/*
 * Tests of the circom/snarkjs file formats (groth16/binfile, r1cs, wtns,
 * zkey, json) against the committed interop fixtures of both curves
 * (tests/interop/fixtures, made by tests/interop/build_fixtures.sh with
 * circom 2.2.3 and snarkjs 0.7.6), plus round trips of every writer and a
 * catalogue of malformed inputs that must each be rejected with a message.
 *
 * Independent checks: header counts are compared with what `snarkjs r1cs
 * info` printed for the fixtures; the witness is checked against every r1cs
 * constraint with our Fr arithmetic; the zkey's section-4 coefficients
 * against the r1cs rows; JSON output against files snarkjs wrote, byte for
 * byte.  The container is re-split and re-joined here with a separate tiny
 * parser, so the malformed files do not depend on the code under test.
 *
 * With CUZK_FORMATS_OUT=<dir> set, the zkeys re-serialized by our writer
 * and the verification keys written by our JSON writer are left in
 * <dir>/<curve>/ for tests/interop/run.sh to feed to snarkjs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve/curve.h"
#include "groth16/binfile.h"
#include "groth16/json.h"
#include "groth16/key.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"
#include "testutil.h"
#include "util/paste.h"

#ifdef CUZK_HAVE_JANSSON
#include <jansson.h>
#endif

typedef struct circuit_info {
    const char *name;
    uint32_t wires, constraints, prv_in, pub_in, pub_out;
    uint64_t labels;
    uint32_t domain;
} circuit_info;

/* From `snarkjs r1cs info` on the fixtures; domain = next_pow2(constraints
 * + public + 1). */
static const circuit_info circuits[] = {
    {"multiplier", 6, 2, 3, 0, 1, 6, 4},
    {"poseidon_chain", 484, 480, 2, 1, 1, 1539, 512},
    {"merkle", 490, 486, 4, 1, 1, 1558, 512},
    {"many_public", 64, 42, 1, 20, 2, 65, 128},
};
#define N_CIRCUITS (sizeof circuits / sizeof circuits[0])

static const char *const curve_dir[2] = {"bn128", "bls12381"};
static const cuzk_curve curve_of[2] = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};

/* ---- small utilities ------------------------------------------------------- */

static char *fixture_path(int ci, const char *name, const char *ext) {
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ & 3];
    snprintf(p, 1024, "%s/tests/interop/fixtures/%s/%s.%s", tu_source_dir(), curve_dir[ci],
             name, ext);
    return p;
}

static void put32(uint8_t *p, uint32_t v) { cuzk_wr_u32(p, v); }

/* Independent container split/join (does not use binfile.c). */
typedef struct sec {
    uint32_t id;
    uint8_t *p; /* owned copy */
    size_t n;
} sec;

typedef struct container {
    char magic[4];
    uint32_t version;
    int n;
    sec s[16];
} container;

static int split(container *c, const uint8_t *b, size_t len) {
    memset(c, 0, sizeof *c);
    if (len < 12)
        return 0;
    memcpy(c->magic, b, 4);
    c->version = cuzk_rd_u32(b + 4);
    uint32_t n = cuzk_rd_u32(b + 8);
    size_t pos = 12;
    for (uint32_t i = 0; i < n && i < 16; i++) {
        c->s[i].id = cuzk_rd_u32(b + pos);
        c->s[i].n = (size_t)cuzk_rd_u64(b + pos + 4);
        c->s[i].p = malloc(c->s[i].n + 1);
        memcpy(c->s[i].p, b + pos + 12, c->s[i].n);
        pos += 12 + c->s[i].n;
        c->n++;
    }
    return pos == len;
}

static void container_free(container *c) {
    for (int i = 0; i < c->n; i++)
        free(c->s[i].p);
    c->n = 0;
}

static sec *find_sec(container *c, uint32_t id) {
    for (int i = 0; i < c->n; i++)
        if (c->s[i].id == id)
            return &c->s[i];
    return NULL;
}

static uint8_t *join(const container *c, size_t *len) {
    size_t n = 12;
    for (int i = 0; i < c->n; i++)
        n += 12 + c->s[i].n;
    uint8_t *b = malloc(n), *p = b;
    memcpy(p, c->magic, 4);
    put32(p + 4, c->version);
    put32(p + 8, (uint32_t)c->n);
    p += 12;
    for (int i = 0; i < c->n; i++) {
        put32(p, c->s[i].id);
        cuzk_wr_u64(p + 4, c->s[i].n);
        memcpy(p + 12, c->s[i].p, c->s[i].n);
        p += 12 + c->s[i].n;
    }
    *len = n;
    return b;
}

static container clone(const container *c) {
    container d = *c;
    for (int i = 0; i < c->n; i++) {
        d.s[i].p = malloc(c->s[i].n + 1);
        memcpy(d.s[i].p, c->s[i].p, c->s[i].n);
    }
    return d;
}

/* Resize section |id| of |c| to |n| bytes (zero-filled when growing). */
static void resize_sec(container *c, uint32_t id, size_t n) {
    sec *s = find_sec(c, id);
    s->p = realloc(s->p, n + 1);
    if (n > s->n)
        memset(s->p + s->n, 0, n - s->n);
    s->n = n;
}

typedef enum { K_R1CS, K_WTNS, K_ZKEY } kind;

/* Parse |len| bytes with the reader of |k| from an exact-size heap copy (so
 * ASan sees any over-read); returns the status, error in |err|. */
static cuzk_status parse_kind(kind k, const uint8_t *b, size_t len, cuzk_error *err) {
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, b, len);
    cuzk_status st;
    cuzk_error_clear(err);
    if (k == K_R1CS) {
        cuzk_r1cs r;
        st = cuzk_r1cs_read_mem(&r, copy, len, err);
        cuzk_r1cs_free(&r);
    } else if (k == K_WTNS) {
        cuzk_wtns w;
        st = cuzk_wtns_from_mem(&w, copy, len, err);
        cuzk_wtns_close(&w);
    } else {
        cuzk_zkey z;
        st = cuzk_zkey_from_mem(&z, copy, len, err);
        cuzk_zkey_close(&z);
    }
    free(copy);
    return st;
}

static cuzk_status parse_container(kind k, const container *c, cuzk_error *err) {
    size_t len;
    uint8_t *b = join(c, &len);
    cuzk_status st = parse_kind(k, b, len, err);
    free(b);
    return st;
}

/* A rejection must carry a status and a message. */
#define EXPECT_REJECT(st, err, want, ...)                                       \
    do {                                                                        \
        cuzk_status st_ = (st);                                                 \
        CHECK(st_ != CUZK_OK && (err).msg[0] != '\0', __VA_ARGS__);             \
        if ((want) != CUZK_OK)                                                  \
            CHECK(st_ == (want), "status %s (%s), want %s", cuzk_status_name(st_), \
                  (err).msg, cuzk_status_name(want));                           \
    } while (0)

/* ---- fixtures: headers, consistency, witness ------------------------------- */

typedef struct loaded {
    cuzk_r1cs r1cs;
    cuzk_wtns wtns;
    cuzk_zkey zkey;
    cuzk_fr *w; /* witness, Montgomery */
    int ok;
} loaded;

static void load_fixture(loaded *L, int ci, const circuit_info *info) {
    cuzk_error err;
    memset(L, 0, sizeof *L);
    cuzk_status st = cuzk_r1cs_read_file(&L->r1cs, fixture_path(ci, info->name, "r1cs"), &err);
    CHECK(st == CUZK_OK, "%s/%s r1cs: %s", curve_dir[ci], info->name, err.msg);
    st |= cuzk_wtns_open(&L->wtns, fixture_path(ci, info->name, "wtns"), &err);
    CHECK(st == CUZK_OK, "%s/%s wtns: %s", curve_dir[ci], info->name, err.msg);
    st |= cuzk_zkey_open(&L->zkey, fixture_path(ci, info->name, "zkey"), &err);
    CHECK(st == CUZK_OK, "%s/%s zkey: %s", curve_dir[ci], info->name, err.msg);
    L->ok = st == CUZK_OK;
    if (L->ok) {
        L->w = malloc(L->wtns.n_witness * sizeof *L->w);
        st = cuzk_wtns_to_mont(&L->wtns, L->w, 0, L->wtns.n_witness, &err);
        CHECK(st == CUZK_OK, "wtns to_mont: %s", err.msg);
        L->ok = st == CUZK_OK;
    }
}

static void unload(loaded *L) {
    cuzk_r1cs_free(&L->r1cs);
    cuzk_wtns_close(&L->wtns);
    cuzk_zkey_close(&L->zkey);
    free(L->w);
}

static void check_headers(const loaded *L, int ci, const circuit_info *in) {
    const cuzk_r1cs *r = &L->r1cs;
    CHECK(r->curve == curve_of[ci] && L->wtns.curve == curve_of[ci] &&
              L->zkey.curve == curve_of[ci],
          "%s: curve", in->name);
    CHECK(r->n_wires == in->wires && r->n_constraints == in->constraints &&
              r->n_prv_in == in->prv_in && r->n_pub_in == in->pub_in &&
              r->n_pub_out == in->pub_out && r->n_labels == in->labels,
          "%s/%s: r1cs header %u %u %u %u %u", curve_dir[ci], in->name, r->n_wires,
          r->n_constraints, r->n_prv_in, r->n_pub_in, r->n_pub_out);
    CHECK(r->wire_to_label != NULL, "%s: label map", in->name);
    CHECK(L->wtns.n_witness == in->wires, "%s: nWitness %u", in->name, L->wtns.n_witness);
    CHECK(L->zkey.n_vars == in->wires && L->zkey.n_public == in->pub_in + in->pub_out &&
              L->zkey.domain_size == in->domain &&
              (1u << L->zkey.log_domain_size) == in->domain,
          "%s: zkey header nVars %u nPublic %u domain %u", in->name, L->zkey.n_vars,
          L->zkey.n_public, L->zkey.domain_size);
    CHECK(L->zkey.n_contributions == 1, "%s: one phase-2 contribution", in->name);
}

static void check_consistency(loaded *L, const circuit_info *in) {
    cuzk_error err;
    cuzk_status st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness, &err);
    CHECK(st == CUZK_OK, "%s: witness vs r1cs: %s", in->name, err.msg);
    st = cuzk_zkey_check_r1cs(&L->zkey, &L->r1cs, &err);
    CHECK(st == CUZK_OK, "%s: zkey vs r1cs: %s", in->name, err.msg);
    st = cuzk_check_zkey_wtns(&L->zkey, &L->wtns, &err);
    CHECK(st == CUZK_OK, "%s: zkey vs wtns: %s", in->name, err.msg);
    st = cuzk_zkey_check_points(&L->zkey, 1, &err);
    CHECK(st == CUZK_OK, "%s: zkey points: %s", in->name, err.msg);
    st = cuzk_wtns_check_range(&L->wtns, &err);
    CHECK(st == CUZK_OK, "%s: wtns range: %s", in->name, err.msg);

    /* A changed public output must break some constraint. */
    cuzk_fr saved = L->w[1], one;
    cuzk_fr_set_one(L->r1cs.curve, &one);
    cuzk_fr_add(L->r1cs.curve, &L->w[1], &L->w[1], &one);
    st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness, &err);
    CHECK(st == CUZK_EVERIFY && err.msg[0], "%s: tampered witness accepted", in->name);
    L->w[1] = saved;
    st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness - 1, &err);
    CHECK(st == CUZK_EMISMATCH, "%s: short witness accepted", in->name);

    /* Copies out of a view are the file's bytes; ranges past the end fail. */
    size_t g2 = L->zkey.b2.elem_bytes;
    uint8_t *tmp = malloc(g2 * L->zkey.n_vars);
    CHECK(cuzk_zkey_points_copy(&L->zkey.b2, 0, L->zkey.n_vars, tmp, &err) == CUZK_OK &&
              memcmp(tmp, L->zkey.b2.data, g2 * L->zkey.n_vars) == 0,
          "%s: B2 copy", in->name);
    CHECK(cuzk_zkey_points_copy(&L->zkey.a, 1, L->zkey.n_vars, tmp, &err) == CUZK_EINVAL,
          "%s: copy past the end accepted", in->name);
    free(tmp);
}

/* ---- JSON against snarkjs's files ------------------------------------------ */

static int g1_eq_any(cuzk_curve c, const void *a, const void *b) {
    return memcmp(a, b, c == CUZK_CURVE_BN254 ? sizeof(bn254_g1_affine)
                                              : sizeof(bls12_381_g1_affine)) == 0;
}

static int vk_eq(const cuzk_vk *a, const cuzk_vk *b) {
    if (a->curve != b->curve)
        return 0;
    if (a->curve == CUZK_CURVE_BN254) {
        const bn254_groth16_vk *x = &a->vk.bn254, *y = &b->vk.bn254;
        return x->n_public == y->n_public && g1_eq_any(a->curve, &x->alpha1, &y->alpha1) &&
               !memcmp(&x->beta2, &y->beta2, sizeof x->beta2) &&
               !memcmp(&x->gamma2, &y->gamma2, sizeof x->gamma2) &&
               !memcmp(&x->delta2, &y->delta2, sizeof x->delta2) &&
               !memcmp(x->ic, y->ic, (x->n_public + 1) * sizeof *x->ic);
    }
    const bls12_381_groth16_vk *x = &a->vk.bls12_381, *y = &b->vk.bls12_381;
    return x->n_public == y->n_public && g1_eq_any(a->curve, &x->alpha1, &y->alpha1) &&
           !memcmp(&x->beta2, &y->beta2, sizeof x->beta2) &&
           !memcmp(&x->gamma2, &y->gamma2, sizeof x->gamma2) &&
           !memcmp(&x->delta2, &y->delta2, sizeof x->delta2) &&
           !memcmp(x->ic, y->ic, (x->n_public + 1) * sizeof *x->ic);
}

static void check_json(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    cuzk_vk vk_file, vk_zkey;
    size_t len;
    char *text = (char *)tu_read_file(fixture_path(ci, in->name, "vk.json"), &len);
    cuzk_status st = cuzk_vk_read_json_file(&vk_file, fixture_path(ci, in->name, "vk.json"), &err);
    CHECK(st == CUZK_OK, "%s: vk.json: %s", in->name, err.msg);
    cuzk_status st2 = cuzk_vk_from_zkey(&vk_zkey, &L->zkey, &err);
    CHECK(st2 == CUZK_OK, "%s: vk from zkey: %s", in->name, err.msg);
    if (st == CUZK_OK && st2 == CUZK_OK) {
        CHECK(vk_eq(&vk_file, &vk_zkey), "%s: vk.json differs from the zkey header", in->name);
        char *out = NULL;
        st = cuzk_vk_write_json(&vk_zkey, &out, &err);
        CHECK(st == CUZK_OK && text && strcmp(out, text) == 0,
              "%s/%s: our verification_key.json differs from snarkjs's", curve_dir[ci], in->name);
        free(out);
    }
    cuzk_vk_free(&vk_file);
    cuzk_vk_free(&vk_zkey);
    free(text);

    /* proof.json: read, write back, compare bytes. */
    cuzk_proof pr;
    text = (char *)tu_read_file(fixture_path(ci, in->name, "proof.json"), &len);
    st = cuzk_proof_read_json(&pr, CUZK_CURVE_NONE, text, len, &err);
    CHECK(st == CUZK_OK && pr.curve == curve_of[ci], "%s: proof.json: %s", in->name, err.msg);
    if (st == CUZK_OK) {
        char *out = NULL;
        st = cuzk_proof_write_json(&pr, &out, &err);
        CHECK(st == CUZK_OK && strcmp(out, text) == 0, "%s: proof.json round trip", in->name);
        free(out);
    }
    st = cuzk_proof_read_json(&pr, curve_of[1 - ci], text, len, &err);
    EXPECT_REJECT(st, err, CUZK_ECURVE, "%s: proof read as the other curve", in->name);
    free(text);

    /* public.json equals w[1..nPublic]; write back byte for byte. */
    cuzk_fr *pub = NULL;
    size_t n = 0;
    text = (char *)tu_read_file(fixture_path(ci, in->name, "public.json"), &len);
    st = cuzk_public_read_json(curve_of[ci], &pub, &n, text, len, &err);
    CHECK(st == CUZK_OK && n == L->zkey.n_public, "%s: public.json: %s", in->name, err.msg);
    for (size_t i = 0; st == CUZK_OK && i < n; i++)
        CHECK(cuzk_fr_eq(&pub[i], &L->w[1 + i]), "%s: public[%zu] != w[%zu]", in->name, i, i + 1);
    if (st == CUZK_OK) {
        char *out = NULL;
        st = cuzk_public_write_json(curve_of[ci], pub, n, &out, &err);
        CHECK(st == CUZK_OK && strcmp(out, text) == 0, "%s: public.json round trip", in->name);
        free(out);
    }
    free(pub);
    free(text);
}

/* ---- writers: round trips ---------------------------------------------------- */

static int matrix_eq(const cuzk_r1cs_matrix *a, const cuzk_r1cs_matrix *b, uint32_t rows) {
    return a->nnz == b->nnz &&
           !memcmp(a->row_ptr, b->row_ptr, (rows + 1) * sizeof *a->row_ptr) &&
           !memcmp(a->col, b->col, a->nnz * sizeof *a->col) &&
           !memcmp(a->coef, b->coef, a->nnz * sizeof *a->coef);
}

static int r1cs_eq(const cuzk_r1cs *a, const cuzk_r1cs *b) {
    return a->curve == b->curve && a->n_wires == b->n_wires && a->n_pub_out == b->n_pub_out &&
           a->n_pub_in == b->n_pub_in && a->n_prv_in == b->n_prv_in &&
           a->n_labels == b->n_labels && a->n_constraints == b->n_constraints &&
           matrix_eq(&a->a, &b->a, a->n_constraints) &&
           matrix_eq(&a->b, &b->b, a->n_constraints) &&
           matrix_eq(&a->c, &b->c, a->n_constraints) &&
           (a->wire_to_label && b->wire_to_label
                ? !memcmp(a->wire_to_label, b->wire_to_label, a->n_wires * 8)
                : a->wire_to_label == b->wire_to_label);
}

/* Every section of |orig| with an id in |ids| has the same payload in
 * |mine| (physical order may differ). */
static int same_payloads(const uint8_t *orig, size_t olen, const uint8_t *mine, size_t mlen,
                         const uint32_t *ids, int n_ids) {
    container a, b;
    int ok = split(&a, orig, olen) & split(&b, mine, mlen);
    for (int i = 0; ok && i < n_ids; i++) {
        sec *x = find_sec(&a, ids[i]), *y = find_sec(&b, ids[i]);
        ok = x && y && x->n == y->n && !memcmp(x->p, y->p, x->n);
    }
    container_free(&a);
    container_free(&b);
    return ok;
}

static void write_out(const char *sub, const char *name, const uint8_t *b, size_t n) {
    const char *dir = getenv("CUZK_FORMATS_OUT");
    char path[1024];
    if (!dir)
        return;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(dir, 0755);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

static void check_round_trips(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    uint8_t *buf, *orig;
    size_t len, olen;

    /* r1cs: our writer puts sections in id order; payloads equal circom's. */
    orig = tu_read_file(fixture_path(ci, in->name, "r1cs"), &olen);
    cuzk_status st = cuzk_r1cs_write_mem(&L->r1cs, &buf, &len, &err);
    CHECK(st == CUZK_OK, "%s: r1cs write: %s", in->name, err.msg);
    if (st == CUZK_OK) {
        static const uint32_t ids[3] = {1, 2, 3};
        cuzk_r1cs back;
        CHECK(same_payloads(orig, olen, buf, len, ids, 3), "%s: r1cs payloads", in->name);
        st = cuzk_r1cs_read_mem(&back, buf, len, &err);
        CHECK(st == CUZK_OK && r1cs_eq(&back, &L->r1cs), "%s: r1cs round trip: %s", in->name,
              err.msg);
        cuzk_r1cs_free(&back);
        free(buf);
    }
    free(orig);

    /* wtns: circom writes sections 1, 2 in order, so the bytes must match. */
    orig = tu_read_file(fixture_path(ci, in->name, "wtns"), &olen);
    st = cuzk_wtns_write_mem(L->wtns.curve, L->w, L->wtns.n_witness, &buf, &len, &err);
    CHECK(st == CUZK_OK && len == olen && !memcmp(buf, orig, len), "%s: wtns bytes: %s",
          in->name, err.msg);
    if (st == CUZK_OK)
        free(buf);
    free(orig);

    /* zkey: sections 1..9 byte-identical to snarkjs's, 10 is ours. */
    cuzk_zkey_coef *coefs = malloc((L->zkey.n_coefs + 1) * sizeof *coefs);
    st = cuzk_zkey_read_coefs(&L->zkey, coefs, &err);
    CHECK(st == CUZK_OK, "%s: coefs: %s", in->name, err.msg);
    orig = tu_read_file(fixture_path(ci, in->name, "zkey"), &olen);
    if (st == CUZK_OK)
        st = cuzk_zkey_write_mem(&L->zkey, coefs, L->zkey.n_coefs, &buf, &len, &err);
    CHECK(st == CUZK_OK, "%s: zkey write: %s", in->name, err.msg);
    if (st == CUZK_OK) {
        static const uint32_t ids[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        cuzk_zkey back;
        CHECK(same_payloads(orig, olen, buf, len, ids, 9), "%s: zkey payloads", in->name);
        st = cuzk_zkey_from_mem(&back, buf, len, &err);
        CHECK(st == CUZK_OK && back.n_contributions == 0, "%s: zkey reread: %s", in->name,
              err.msg);
        if (st == CUZK_OK) {
            CHECK(cuzk_zkey_check_r1cs(&back, &L->r1cs, &err) == CUZK_OK,
                  "%s: rewritten zkey vs r1cs: %s", in->name, err.msg);
            CHECK(!memcmp(&back.vk, &L->zkey.vk, sizeof back.vk), "%s: header points",
                  in->name);
        }
        cuzk_zkey_close(&back);
        char name[128];
        snprintf(name, sizeof name, "%s.zkey", in->name);
        write_out(curve_dir[ci], name, buf, len);
        free(buf);
    }
    free(orig);
    free(coefs);

    /* Our verification_key.json, for run.sh to hand to snarkjs. */
    cuzk_vk vk;
    if (getenv("CUZK_FORMATS_OUT") && cuzk_vk_from_zkey(&vk, &L->zkey, &err) == CUZK_OK) {
        char *s, name[128];
        if (cuzk_vk_write_json(&vk, &s, &err) == CUZK_OK) {
            snprintf(name, sizeof name, "%s.vk.json", in->name);
            write_out(curve_dir[ci], name, (const uint8_t *)s, strlen(s));
            free(s);
        }
        cuzk_vk_free(&vk);
    }
}

static void random_fr(cuzk_curve c, cuzk_fr *out) {
    uint64_t l[4];
    tu_rand_below(l, cuzk_curve_r_limbs(c), 4);
    uint8_t b[32];
    for (int i = 0; i < 4; i++)
        cuzk_wr_u64(b + 8 * i, l[i]);
    cuzk_fr_from_le(c, out, b, NULL);
}

/* Random systems (not satisfiable, just well formed) through write/read. */
static void check_random_round_trips(void) {
    for (unsigned it = 0; it < tu_iters(20); it++) {
        cuzk_curve c = curve_of[it & 1];
        cuzk_r1cs r, back;
        cuzk_error err;
        memset(&r, 0, sizeof r);
        r.curve = c;
        r.n_wires = 1 + (uint32_t)(tu_rand64() % 40);
        r.n_pub_out = (uint32_t)(tu_rand64() % r.n_wires);
        r.n_pub_in = (uint32_t)(tu_rand64() % (r.n_wires - r.n_pub_out));
        r.n_prv_in = (uint32_t)(tu_rand64() % (r.n_wires - r.n_pub_out - r.n_pub_in));
        r.n_constraints = (uint32_t)(tu_rand64() % 30);
        r.n_labels = r.n_wires + tu_rand64() % 5;
        cuzk_r1cs_matrix *m[3] = {&r.a, &r.b, &r.c};
        for (int k = 0; k < 3; k++) {
            m[k]->row_ptr = malloc((r.n_constraints + 1) * sizeof *m[k]->row_ptr);
            m[k]->row_ptr[0] = 0;
            for (uint32_t j = 0; j < r.n_constraints; j++)
                m[k]->row_ptr[j + 1] = m[k]->row_ptr[j] + tu_rand64() % 5;
            m[k]->nnz = m[k]->row_ptr[r.n_constraints];
            m[k]->col = malloc((m[k]->nnz + 1) * sizeof *m[k]->col);
            m[k]->coef = malloc((m[k]->nnz + 1) * sizeof *m[k]->coef);
            for (uint64_t t = 0; t < m[k]->nnz; t++) {
                m[k]->col[t] = (uint32_t)(tu_rand64() % r.n_wires);
                random_fr(c, &m[k]->coef[t]);
            }
        }
        uint8_t *buf;
        size_t len;
        cuzk_status st = cuzk_r1cs_write_mem(&r, &buf, &len, &err);
        CHECK(st == CUZK_OK, "random r1cs write: %s", err.msg);
        if (st == CUZK_OK) {
            st = cuzk_r1cs_read_mem(&back, buf, len, &err);
            r.wire_to_label = back.wire_to_label; /* identity map written */
            CHECK(st == CUZK_OK && r1cs_eq(&r, &back), "random r1cs round trip: %s", err.msg);
            for (uint32_t i = 0; st == CUZK_OK && i < r.n_wires; i++)
                CHECK(back.wire_to_label[i] == i, "identity label map");
            r.wire_to_label = NULL;
            cuzk_r1cs_free(&back);
            free(buf);
        }
        /* A wire id out of range is refused by the writer. */
        if (r.a.nnz) {
            r.a.col[0] = r.n_wires;
            cuzk_error_clear(&err);
            EXPECT_REJECT(cuzk_r1cs_write_mem(&r, &buf, &len, &err), err, CUZK_EINVAL,
                          "writer accepted a bad wire id");
        }
        cuzk_r1cs_free(&r);

        /* Witness of random values. */
        size_t n = 1 + tu_rand64() % 50;
        cuzk_fr *w = malloc(n * sizeof *w), *w2 = malloc(n * sizeof *w);
        cuzk_fr_set_one(c, &w[0]);
        for (size_t i = 1; i < n; i++)
            random_fr(c, &w[i]);
        st = cuzk_wtns_write_mem(c, w, n, &buf, &len, &err);
        CHECK(st == CUZK_OK, "random wtns write: %s", err.msg);
        if (st == CUZK_OK) {
            cuzk_wtns wt;
            st = cuzk_wtns_from_mem(&wt, buf, len, &err);
            CHECK(st == CUZK_OK && wt.n_witness == n && wt.curve == c, "random wtns: %s", err.msg);
            if (st == CUZK_OK) {
                st = cuzk_wtns_to_mont(&wt, w2, 0, n, &err);
                CHECK(st == CUZK_OK && !memcmp(w, w2, n * sizeof *w), "random wtns values");
                CHECK(cuzk_wtns_to_mont(&wt, w2, n, 1, &err) == CUZK_EINVAL, "to_mont range");
            }
            cuzk_wtns_close(&wt);
            free(buf);
        }
        random_fr(c, &w[0]);
        if (!cuzk_fr_eq(&w[0], &w2[0]))
            EXPECT_REJECT(cuzk_wtns_write_mem(c, w, n, &buf, &len, &err), err, CUZK_EINVAL,
                          "wtns writer accepted w[0] != 1");
        free(w);
        free(w2);
    }
}

/* ---- malformed binary files ---------------------------------------------------- */

/* Truncations: every byte for small files, else around every section
 * boundary and in the middle of each payload. */
static void check_truncations(kind k, const uint8_t *b, size_t len, const char *label) {
    cuzk_error err;
    if (len <= 6000) {
        for (size_t cut = 0; cut < len; cut++)
            EXPECT_REJECT(parse_kind(k, b, cut, &err), err, CUZK_OK, "%s cut at %zu accepted",
                          label, cut);
        return;
    }
    size_t pos = 12;
    uint32_t n = cuzk_rd_u32(b + 8);
    for (size_t cut = 0; cut < 12; cut++)
        EXPECT_REJECT(parse_kind(k, b, cut, &err), err, CUZK_OK, "%s cut at %zu", label, cut);
    for (uint32_t i = 0; i < n; i++) {
        size_t sz = (size_t)cuzk_rd_u64(b + pos + 4);
        size_t cuts[6] = {pos, pos + 5, pos + 12, pos + 12 + sz / 2, pos + 12 + sz - 1,
                          pos + 12 + sz};
        for (int c = 0; c < 6; c++)
            if (cuts[c] < len)
                EXPECT_REJECT(parse_kind(k, b, cuts[c], &err), err, CUZK_OK,
                              "%s cut at %zu (section %u)", label, cuts[c], i);
        pos += 12 + sz;
    }
}

/* Container-level damage common to all three formats. */
static void check_container_damage(kind k, const uint8_t *b, size_t len, const char *label) {
    cuzk_error err;
    uint8_t *m = malloc(len + 16);
    container c, d;

    memcpy(m, b, len);
    m[0] ^= 0x20;
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT, "%s wrong magic", label);
    memcpy(m, b, len);
    put32(m + 4, cuzk_rd_u32(b + 4) + 1);
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EUNSUPPORTED, "%s wrong version", label);
    memcpy(m, b, len);
    put32(m + 8, cuzk_rd_u32(b + 8) + 1);
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT, "%s nSections + 1", label);
    memcpy(m, b, len);
    put32(m + 8, 0xffffffffu);
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT, "%s nSections huge", label);
    memcpy(m, b, len);
    memset(m + len, 0, 16);
    EXPECT_REJECT(parse_kind(k, m, len + 3, &err), err, CUZK_EFORMAT, "%s trailing bytes", label);

    CHECK(split(&c, b, len), "%s: fixture container", label);
    for (int i = 0; i < c.n; i++) {
        /* Section size field +1 / -1 / 2^63 in the table. */
        size_t pos = 12;
        for (int j = 0; j < i; j++)
            pos += 12 + c.s[j].n;
        uint64_t deltas[3] = {1, (uint64_t)-1, 1ull << 63};
        for (int t = 0; t < 3; t++) {
            if (c.s[i].n == 0 && t == 1)
                continue;
            memcpy(m, b, len);
            cuzk_wr_u64(m + pos + 4, c.s[i].n + deltas[t]);
            EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT,
                          "%s section %u size field changed", label, c.s[i].id);
        }
        /* Payload one byte longer / shorter (container consistent). */
        d = clone(&c);
        resize_sec(&d, c.s[i].id, c.s[i].n + 1);
        EXPECT_REJECT(parse_container(k, &d, &err), err, CUZK_OK, "%s section %u one byte long",
                      label, c.s[i].id);
        container_free(&d);
        if (c.s[i].n) {
            d = clone(&c);
            resize_sec(&d, c.s[i].id, c.s[i].n - 1);
            EXPECT_REJECT(parse_container(k, &d, &err), err, CUZK_OK,
                          "%s section %u one byte short", label, c.s[i].id);
            container_free(&d);
        }
        /* Duplicated and missing sections. */
        d = clone(&c);
        d.s[d.n].id = c.s[i].id;
        d.s[d.n].n = c.s[i].n;
        d.s[d.n].p = malloc(c.s[i].n + 1);
        memcpy(d.s[d.n].p, c.s[i].p, c.s[i].n);
        d.n++;
        EXPECT_REJECT(parse_container(k, &d, &err), err, CUZK_EFORMAT,
                      "%s section %u duplicated", label, c.s[i].id);
        container_free(&d);
        d = clone(&c);
        free(d.s[i].p);
        memmove(&d.s[i], &d.s[i + 1], (size_t)(d.n - i - 1) * sizeof d.s[0]);
        d.n--;
        cuzk_status st = parse_container(k, &d, &err);
        /* Only r1cs section 3 and zkey section 10 are optional. */
        int optional = (k == K_R1CS && c.s[i].id == 3) || (k == K_ZKEY && c.s[i].id == 10);
        if (!optional)
            EXPECT_REJECT(st, err, CUZK_EFORMAT, "%s section %u missing", label, c.s[i].id);
        else
            CHECK(st == CUZK_OK, "%s optional section %u missing: %s", label, c.s[i].id, err.msg);
        container_free(&d);
    }
    /* Sections shuffled into reverse physical order still parse. */
    d = clone(&c);
    for (int i = 0; i < d.n / 2; i++) {
        sec t = d.s[i];
        d.s[i] = d.s[d.n - 1 - i];
        d.s[d.n - 1 - i] = t;
    }
    CHECK(parse_container(k, &d, &err) == CUZK_OK, "%s reversed sections: %s", label, err.msg);
    container_free(&d);
    container_free(&c);
    free(m);
}

static void set_prime(uint8_t *p, const uint64_t *limbs, int n) {
    for (int i = 0; i < n; i++)
        cuzk_wr_u64(p + 8 * i, limbs[i]);
}

static void check_r1cs_damage(int ci, const uint8_t *b, size_t len) {
    cuzk_error err;
    container c, d;
    CHECK(split(&c, b, len), "r1cs split");
    sec *h = find_sec(&c, 1), *cs = find_sec(&c, 2);

    /* The other curve's r is a valid header; only coefficients that do not
     * fit below it can fail then. */
    d = clone(&c);
    set_prime(find_sec(&d, 1)->p + 4, cuzk_curve_r_limbs(curve_of[1 - ci]), 4);
    cuzk_status st = parse_container(K_R1CS, &d, &err);
    CHECK(st == CUZK_OK || st == CUZK_ERANGE, "r1cs with the other curve's prime: %s", err.msg);
    if (ci == 0)
        CHECK(st == CUZK_OK, "bn128 r1cs read as bls12381: %s", err.msg);
    find_sec(&d, 1)->p[4] ^= 1;
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_ECURVE, "r1cs unknown prime");
    put32(find_sec(&d, 1)->p, 48);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT, "r1cs n8 48");
    container_free(&d);

    /* nWires too small for the inputs. */
    d = clone(&c);
    put32(find_sec(&d, 1)->p + 36, 1);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_OK, "r1cs nWires 1");
    container_free(&d);
    /* nConstraints + 1 (section 2 ends early) and - 1 (bytes left over). */
    for (int delta = -1; delta <= 1; delta += 2) {
        d = clone(&c);
        put32(find_sec(&d, 1)->p + 60, cuzk_rd_u32(h->p + 60) + (uint32_t)delta);
        EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT,
                      "r1cs nConstraints %+d", delta);
        container_free(&d);
    }
    /* First term of constraint 0 (A or the first non-empty lc): wire id and
     * coefficient out of range, and a huge nTerms. */
    size_t off = 0;
    while (cuzk_rd_u32(cs->p + off) == 0)
        off += 4;
    d = clone(&c);
    put32(find_sec(&d, 2)->p + off + 4, cuzk_rd_u32(h->p + 36));
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT, "r1cs wire >= nWires");
    container_free(&d);
    d = clone(&c);
    set_prime(find_sec(&d, 2)->p + off + 8, cuzk_curve_r_limbs(curve_of[ci]), 4);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_ERANGE, "r1cs coefficient = r");
    container_free(&d);
    d = clone(&c);
    put32(find_sec(&d, 2)->p + off, 0xffffffffu);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT, "r1cs nTerms huge");
    container_free(&d);
    /* Custom gates section, labels of the wrong size. */
    d = clone(&c);
    d.s[d.n].id = 4;
    d.s[d.n].n = 4;
    d.s[d.n].p = calloc(1, 5);
    d.n++;
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EUNSUPPORTED, "r1cs custom gates");
    container_free(&d);
    container_free(&c);
}

static void check_wtns_damage(int ci, const uint8_t *b, size_t len, const loaded *other) {
    cuzk_error err;
    container c, d;
    CHECK(split(&c, b, len), "wtns split");
    uint32_t n = cuzk_rd_u32(find_sec(&c, 1)->p + 36);

    d = clone(&c);
    find_sec(&d, 1)->p[10] ^= 4;
    EXPECT_REJECT(parse_container(K_WTNS, &d, &err), err, CUZK_ECURVE, "wtns wrong prime");
    container_free(&d);
    d = clone(&c);
    find_sec(&d, 2)->p[0] = 2;
    EXPECT_REJECT(parse_container(K_WTNS, &d, &err), err, CUZK_EFORMAT, "wtns w[0] = 2");
    container_free(&d);
    /* nWitness not matching section 2, and a consistent shorter witness. */
    d = clone(&c);
    put32(find_sec(&d, 1)->p + 36, n - 1);
    EXPECT_REJECT(parse_container(K_WTNS, &d, &err), err, CUZK_EFORMAT, "wtns nWitness - 1");
    resize_sec(&d, 2, (size_t)(n - 1) * 32);
    CHECK(parse_container(K_WTNS, &d, &err) == CUZK_OK, "shorter wtns parses: %s", err.msg);
    {
        size_t l;
        uint8_t *j = join(&d, &l);
        cuzk_wtns w;
        CHECK(cuzk_wtns_from_mem(&w, j, l, &err) == CUZK_OK, "short wtns");
        EXPECT_REJECT(cuzk_check_zkey_wtns(&other->zkey, &w, &err), err, CUZK_EMISMATCH,
                      "witness of the wrong length accepted by the zkey check");
        cuzk_wtns_close(&w);
        free(j);
    }
    container_free(&d);
    /* A value >= r passes open (lazy) but not the conversion. */
    d = clone(&c);
    set_prime(find_sec(&d, 2)->p + 32 * (n - 1), cuzk_curve_r_limbs(curve_of[ci]), 4);
    {
        size_t l;
        uint8_t *j = join(&d, &l);
        cuzk_wtns w;
        CHECK(cuzk_wtns_from_mem(&w, j, l, &err) == CUZK_OK, "wtns with big value opens");
        cuzk_fr *v = malloc(n * sizeof *v);
        EXPECT_REJECT(cuzk_wtns_to_mont(&w, v, 0, n, &err), err, CUZK_ERANGE, "wtns value = r");
        EXPECT_REJECT(cuzk_wtns_check_range(&w, &err), err, CUZK_ERANGE, "wtns range = r");
        free(v);
        cuzk_wtns_close(&w);
        free(j);
    }
    container_free(&d);
    container_free(&c);
}

/* An affine point on the curve but outside the order-r subgroup (BLS12-381
 * G1, BN254/BLS12-381 G2; BN254 G1 has cofactor 1).  Written as zkey bytes. */
static int off_subgroup_point(int ci, int g2, uint8_t *out) {
    if (ci == 0 && !g2)
        return 0;
#define FIND_POINT(P, G, F)                                                      \
    do {                                                                         \
        CUZK_PASTE(CUZK_PASTE(P, G), affine) gen, pt;                            \
        F b, x, t, y;                                                            \
        CUZK_PASTE(CUZK_PASTE(P, G), generator)(&gen);                           \
        F##_sqr(&t, &gen.x);                                                     \
        F##_mul(&t, &t, &gen.x);                                                 \
        F##_sqr(&b, &gen.y);                                                     \
        F##_sub(&b, &b, &t); /* b = y^2 - x^3 */                                 \
        F##_set_one(&x);                                                         \
        for (;;) {                                                               \
            F##_add(&x, &x, &gen.x); /* walk x until x^3 + b is a square */      \
            F##_sqr(&t, &x);                                                     \
            F##_mul(&t, &t, &x);                                                 \
            F##_add(&t, &t, &b);                                                 \
            if (F##_sqrt(&y, &t)) {                                              \
                pt.x = x;                                                        \
                pt.y = y;                                                        \
                if (!CUZK_PASTE(CUZK_PASTE(P, G), affine_in_subgroup)(&pt))      \
                    break;                                                       \
            }                                                                    \
        }                                                                        \
        memcpy(out, &pt, sizeof pt);                                             \
    } while (0)
    if (ci == 0)
        FIND_POINT(bn254, g2, bn254_fp2);
    else if (g2)
        FIND_POINT(bls12_381, g2, bls12_381_fp2);
    else
        FIND_POINT(bls12_381, g1, bls12_381_fp);
#undef FIND_POINT
    return 1;
}

static void check_zkey_damage(int ci, const uint8_t *b, size_t len, const loaded *L) {
    cuzk_error err;
    container c, d;
    CHECK(split(&c, b, len), "zkey split");
    uint32_t nq = ci == 0 ? 32 : 48, hdr = 4 + nq + 4 + 32; /* counts start */
    uint32_t pts = hdr + 12, g1 = 2 * nq, g2 = 4 * nq;

    for (uint32_t proto = 2; proto <= 10; proto += 8) {
        d = clone(&c);
        put32(find_sec(&d, 1)->p, proto);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EUNSUPPORTED, "zkey proto %u",
                      proto);
        CHECK(strstr(err.msg, proto == 2 ? "PLONK" : "FFLONK") != NULL, "message names %s",
              proto == 2 ? "PLONK" : "FFLONK");
        container_free(&d);
    }
    d = clone(&c);
    put32(find_sec(&d, 1)->p, 7);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey proto 7");
    container_free(&d);

    /* Primes: unknown q, unknown r, q and r of different curves. */
    d = clone(&c);
    find_sec(&d, 2)->p[4] ^= 1;
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ECURVE, "zkey bad q");
    container_free(&d);
    d = clone(&c);
    find_sec(&d, 2)->p[4 + nq + 4] ^= 1;
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ECURVE, "zkey bad r");
    container_free(&d);
    d = clone(&c);
    set_prime(find_sec(&d, 2)->p + 4 + nq + 4, cuzk_curve_r_limbs(curve_of[1 - ci]), 4);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ECURVE, "zkey q/r mixed curves");
    container_free(&d);

    /* Counts. */
    uint32_t nvars = cuzk_rd_u32(find_sec(&c, 2)->p + hdr);
    struct { uint32_t at, v; const char *what; } bad[] = {
        {hdr + 8, L->zkey.domain_size + 1, "domainSize not a power of two"},
        {hdr + 8, 0, "domainSize 0"},
        {hdr + 8, 1u << 31, "domainSize 2^31"},
        {hdr + 8, L->zkey.domain_size * 2, "domainSize doubled (H size)"},
        {hdr + 4, nvars, "nPublic = nVars"},
        {hdr + 4, L->zkey.n_public + 1, "nPublic + 1 (IC size)"},
        {hdr, nvars + 1, "nVars + 1"},
        {hdr, 0, "nVars 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = clone(&c);
        put32(find_sec(&d, 2)->p + bad[i].at, bad[i].v);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey %s",
                      bad[i].what);
        container_free(&d);
    }

    /* Header points: coordinate = q, off the curve, infinity, off-subgroup. */
    for (int i = 0; i < 6; i++) {
        static const int is_g2[6] = {0, 0, 1, 1, 0, 1};
        uint32_t at = pts;
        for (int j = 0; j < i; j++)
            at += is_g2[j] ? g2 : g1;
        d = clone(&c);
        set_prime(find_sec(&d, 2)->p + at, cuzk_curve_q_limbs(curve_of[ci]), nq / 8);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ERANGE, "zkey point %d x = q",
                      i);
        container_free(&d);
        d = clone(&c);
        find_sec(&d, 2)->p[at + nq] ^= 1;
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ENOTONCURVE,
                      "zkey point %d off curve", i);
        container_free(&d);
        d = clone(&c);
        memset(find_sec(&d, 2)->p + at, 0, is_g2[i] ? g2 : g1);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT,
                      "zkey point %d infinity", i);
        container_free(&d);
        uint8_t bad_pt[192];
        if (off_subgroup_point(ci, is_g2[i], bad_pt)) {
            d = clone(&c);
            memcpy(find_sec(&d, 2)->p + at, bad_pt, is_g2[i] ? g2 : g1);
            EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ENOTINSUBGROUP,
                          "zkey point %d outside the subgroup", i);
            container_free(&d);
        }
    }

    /* Lazy checks: a bad big-section point and bad coefficients open fine
     * but fail check_points / read_coefs. */
    struct { uint32_t sec; size_t at; int kind; const char *what; } lazy[] = {
        {5, 0, 0, "A[0] off curve"},   {7, 0, 1, "B2[0] x = q"},
        {9, 0, 0, "H[0] off curve"},   {3, 0, 0, "IC[0] off curve"},
        {4, 4, 2, "coef matrix 2"},    {4, 8, 3, "coef row = domainSize"},
        {4, 12, 4, "coef signal = nVars"}, {4, 16, 5, "coef value = r"},
    };
    for (size_t i = 0; i < sizeof lazy / sizeof lazy[0]; i++) {
        d = clone(&c);
        uint8_t *p = find_sec(&d, lazy[i].sec)->p + lazy[i].at;
        switch (lazy[i].kind) {
        case 0: p[nq] ^= 1; p[0] |= 1; break; /* y changed (point not infinity) */
        case 1: set_prime(p, cuzk_curve_q_limbs(curve_of[ci]), nq / 8); break;
        case 2: put32(p, 2); break;
        case 3: put32(p, L->zkey.domain_size); break;
        case 4: put32(p, nvars); break;
        case 5: set_prime(p, cuzk_curve_r_limbs(curve_of[ci]), 4); break;
        }
        size_t l;
        uint8_t *j = join(&d, &l);
        cuzk_zkey z;
        cuzk_status st = cuzk_zkey_from_mem(&z, j, l, &err);
        CHECK(st == CUZK_OK, "zkey with %s opens: %s", lazy[i].what, err.msg);
        if (st == CUZK_OK) {
            cuzk_zkey_coef *co = malloc((z.n_coefs + 1) * sizeof *co);
            cuzk_error_clear(&err);
            st = lazy[i].sec == 4 ? cuzk_zkey_read_coefs(&z, co, &err)
                                  : cuzk_zkey_check_points(&z, 0, &err);
            EXPECT_REJECT(st, err, CUZK_OK, "zkey %s not detected", lazy[i].what);
            free(co);
        }
        cuzk_zkey_close(&z);
        free(j);
        container_free(&d);
    }
    /* Section 4 count disagreeing with its size; section 10 damaged. */
    d = clone(&c);
    put32(find_sec(&d, 4)->p, cuzk_rd_u32(find_sec(&c, 4)->p) + 1);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey nCoefs + 1");
    container_free(&d);
    d = clone(&c);
    put32(find_sec(&d, 10)->p + 64, 2);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey nContrib 2");
    container_free(&d);
    container_free(&c);
}

/* Keys and witnesses that do not belong together. */
static void check_mismatches(loaded all[2][N_CIRCUITS]) {
    cuzk_error err;
    for (int ci = 0; ci < 2; ci++) {
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            loaded *a = &all[ci][i], *b = &all[ci][(i + 1) % N_CIRCUITS], *o = &all[1 - ci][i];
            if (!a->ok || !b->ok || !o->ok)
                continue;
            EXPECT_REJECT(cuzk_check_zkey_wtns(&a->zkey, &b->wtns, &err), err, CUZK_EMISMATCH,
                          "zkey %s with witness %s", circuits[i].name,
                          circuits[(i + 1) % N_CIRCUITS].name);
            EXPECT_REJECT(cuzk_check_zkey_wtns(&a->zkey, &o->wtns, &err), err, CUZK_ECURVE,
                          "zkey with the other curve's witness");
            EXPECT_REJECT(cuzk_zkey_check_r1cs(&a->zkey, &b->r1cs, &err), err, CUZK_EMISMATCH,
                          "zkey with another r1cs");
            EXPECT_REJECT(cuzk_zkey_check_r1cs(&a->zkey, &o->r1cs, &err), err, CUZK_ECURVE,
                          "zkey with the other curve's r1cs");
        }
    }
}

/* Random byte damage: whatever happens, no crash, and a failure says why. */
static void check_random_damage(kind k, const uint8_t *b, size_t len, const char *label) {
    uint8_t *m = malloc(len);
    for (unsigned it = 0; it < tu_iters(300); it++) {
        cuzk_error err;
        memcpy(m, b, len);
        unsigned flips = 1 + (unsigned)(tu_rand64() % 4);
        for (unsigned f = 0; f < flips; f++)
            m[tu_rand64() % len] ^= (uint8_t)(1 + tu_rand64() % 255);
        cuzk_status st = parse_kind(k, m, len, &err);
        CHECK(st == CUZK_OK || err.msg[0], "%s: failure without a message", label);
    }
    free(m);
}

static void check_files(void) {
    cuzk_error err;
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_zkey z;
    EXPECT_REJECT(cuzk_r1cs_read_file(&r, "/nonexistent/x.r1cs", &err), err, CUZK_EIO,
                  "missing r1cs file");
    EXPECT_REJECT(cuzk_wtns_open(&w, "/", &err), err, CUZK_EINVAL, "directory as wtns");
    EXPECT_REJECT(cuzk_zkey_open(&z, "/dev/zero", &err), err, CUZK_EINVAL, "device as zkey");
    /* A FIFO with no writer: opening it for reading used to block for good. */
    char fifo[] = "/tmp/cuzk_fifo_XXXXXX";
    int tfd = mkstemp(fifo);
    CHECK(tfd >= 0, "mkstemp for the fifo name");
    if (tfd >= 0) {
        close(tfd);
        unlink(fifo);
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
        EXPECT_REJECT(cuzk_wtns_open(&w, fifo, &err), err, CUZK_EINVAL, "fifo as wtns");
        unlink(fifo);
    }
    char path[] = "/tmp/cuzk_formats_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        close(fd);
        EXPECT_REJECT(cuzk_zkey_open(&z, path, &err), err, CUZK_OK, "empty zkey file");
        unlink(path);
    }
}

/* ---- JSON damage ------------------------------------------------------------ */

#ifdef CUZK_HAVE_JANSSON
typedef enum { J_VK, J_PROOF, J_PUBLIC } jkind;

static cuzk_status parse_json(jkind k, cuzk_curve c, const char *text, cuzk_error *err) {
    cuzk_status st;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len); /* not NUL-terminated on purpose: readers get a length */
    cuzk_error_clear(err);
    if (k == J_VK) {
        cuzk_vk vk;
        st = cuzk_vk_read_json(&vk, copy, len, err);
        if (st == CUZK_OK)
            cuzk_vk_free(&vk);
    } else if (k == J_PROOF) {
        cuzk_proof p;
        st = cuzk_proof_read_json(&p, c, copy, len, err);
    } else {
        cuzk_fr *v;
        size_t n;
        st = cuzk_public_read_json(c, &v, &n, copy, len, err);
        free(v);
    }
    free(copy);
    return st;
}

/* Apply |edit| to a fresh copy of the fixture JSON and expect |want|. */
static void json_case(jkind k, cuzk_curve c, const char *fixture, const char *what,
                      cuzk_status want, void (*edit)(json_t *root, const char *arg),
                      const char *arg) {
    json_error_t je;
    cuzk_error err;
    json_t *root = json_loads(fixture, 0, &je);
    edit(root, arg);
    char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    EXPECT_REJECT(parse_json(k, c, s, &err), err, want, "json %s accepted", what);
    free(s);
    json_decref(root);
}

/* Edits.  |arg| is "key" or "key/i/j" (array indices) plus a value after
 * '=' where needed. */
static json_t *walk(json_t *root, char *path, json_t **parent, const char **last) {
    json_t *cur = root;
    *parent = NULL;
    *last = path;
    for (char *tok = strtok(path, "/"); tok; tok = strtok(NULL, "/")) {
        *parent = cur;
        *last = tok;
        cur = json_is_array(cur) ? json_array_get(cur, (size_t)atoi(tok))
                                 : json_object_get(cur, tok);
    }
    return cur;
}

static void ed_set(json_t *root, const char *arg) {
    char buf[512], *eq;
    json_t *parent;
    const char *last;
    snprintf(buf, sizeof buf, "%s", arg);
    eq = strchr(buf, '=');
    *eq = '\0';
    json_error_t je;
    json_t *val = json_loads(eq + 1, JSON_DECODE_ANY, &je);
    walk(root, buf, &parent, &last);
    if (json_is_array(parent))
        json_array_set_new(parent, (size_t)atoi(last), val);
    else
        json_object_set_new(parent, last, val);
}

static void ed_del(json_t *root, const char *arg) {
    char buf[256];
    json_t *parent;
    const char *last;
    snprintf(buf, sizeof buf, "%s", arg);
    walk(root, buf, &parent, &last);
    if (json_is_array(parent))
        json_array_remove(parent, (size_t)atoi(last));
    else
        json_object_del(parent, last);
}

static void ed_replace_root(json_t *root, const char *arg) {
    (void)arg;
    json_object_clear(root);
    json_array_clear(root);
}

static void check_json_damage(int ci, const char *vk, const char *proof, const char *pub) {
    cuzk_curve c = curve_of[ci];
    cuzk_error err;
    char p_str[200], r_str[200], arg[1024];
    cuzk_limbs_to_dec(p_str, sizeof p_str, cuzk_curve_q_limbs(c), cuzk_curve_n8q(c) / 8);
    cuzk_limbs_to_dec(r_str, sizeof r_str, cuzk_curve_r_limbs(c), 4);

    /* Syntax and top-level type. */
    const char *junk[] = {"", "{", "[1,", "{\"protocol\": \"groth16\",}", "nul", "42", "\"x\""};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        EXPECT_REJECT(parse_json(J_VK, c, junk[i], &err), err, CUZK_EFORMAT, "vk junk %zu", i);
        EXPECT_REJECT(parse_json(J_PROOF, c, junk[i], &err), err, CUZK_EFORMAT, "proof junk %zu",
                      i);
        EXPECT_REJECT(parse_json(J_PUBLIC, c, junk[i], &err), err, CUZK_EFORMAT,
                      "public junk %zu", i);
    }
    EXPECT_REJECT(parse_json(J_VK, c, "{\"protocol\":\"groth16\",\"protocol\":\"groth16\"}", &err),
                  err, CUZK_EFORMAT, "vk duplicate key");

    /* verification_key.json */
    json_case(J_VK, c, vk, "protocol plonk", CUZK_EFORMAT, ed_set, "protocol=\"plonk\"");
    json_case(J_VK, c, vk, "no protocol", CUZK_EFORMAT, ed_del, "protocol");
    json_case(J_VK, c, vk, "curve bn129", CUZK_ECURVE, ed_set, "curve=\"bn129\"");
    json_case(J_VK, c, vk, "curve number", CUZK_EFORMAT, ed_set, "curve=254");
    json_case(J_VK, c, vk, "no curve", CUZK_EFORMAT, ed_del, "curve");
    json_case(J_VK, c, vk, "nPublic string", CUZK_EFORMAT, ed_set, "nPublic=\"1\"");
    json_case(J_VK, c, vk, "nPublic -1", CUZK_EFORMAT, ed_set, "nPublic=-1");
    json_case(J_VK, c, vk, "nPublic + 1", CUZK_EFORMAT, ed_set, "nPublic=1000");
    json_case(J_VK, c, vk, "no IC", CUZK_EFORMAT, ed_del, "IC");
    json_case(J_VK, c, vk, "IC short", CUZK_EFORMAT, ed_del, "IC/0");
    json_case(J_VK, c, vk, "no delta", CUZK_EFORMAT, ed_del, "vk_delta_2");
    json_case(J_VK, c, vk, "alpha not array", CUZK_EFORMAT, ed_set, "vk_alpha_1={}");
    json_case(J_VK, c, vk, "alpha 4 coords", CUZK_EFORMAT, ed_set,
              "vk_alpha_1=[\"1\",\"2\",\"1\",\"0\"]");
    json_case(J_VK, c, vk, "alpha x bool", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=true");
    json_case(J_VK, c, vk, "alpha x negative", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=\"-1\"");
    json_case(J_VK, c, vk, "alpha x hex", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=\"0x1\"");
    json_case(J_VK, c, vk, "alpha x empty", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=\"\"");
    json_case(J_VK, c, vk, "alpha x 1", CUZK_ENOTONCURVE, ed_set, "vk_alpha_1/0=\"1\"");
    snprintf(arg, sizeof arg, "vk_alpha_1/1=\"%s\"", p_str);
    json_case(J_VK, c, vk, "alpha y = p", CUZK_ERANGE, ed_set, arg);
    snprintf(arg, sizeof arg, "IC/0/0=\"%s0\"", p_str);
    json_case(J_VK, c, vk, "IC x = 10p", CUZK_ERANGE, ed_set, arg);
    json_case(J_VK, c, vk, "beta2 x.c0 1", CUZK_ENOTONCURVE, ed_set, "vk_beta_2/0/0=\"1\"");
    json_case(J_VK, c, vk, "beta2 pair of 3", CUZK_EFORMAT, ed_set,
              "vk_beta_2/0=[\"1\",\"2\",\"3\"]");
    json_case(J_VK, c, vk, "gamma2 z.c1 string", CUZK_EFORMAT, ed_set, "vk_gamma_2/2/1=[]");
    json_case(J_VK, c, vk, "IC entry null", CUZK_EFORMAT, ed_set, "IC/0=null");

    /* An on-curve point outside the subgroup (not possible in BN254 G1). */
    uint8_t pt[192];
    if (off_subgroup_point(ci, 1, pt)) {
        char d[4][200];
        for (int i = 0; i < 4; i++) {
            /* zkey bytes are Montgomery: decode through the field. */
            if (ci == 0) {
                bn254_fp f;
                memcpy(&f, pt + 32 * i, 32);
                bn254_fp_to_dec(d[i], sizeof d[i], &f);
            } else {
                bls12_381_fp f;
                memcpy(&f, pt + 48 * i, 48);
                bls12_381_fp_to_dec(d[i], sizeof d[i], &f);
            }
        }
        snprintf(arg, sizeof arg, "vk_delta_2=[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]]",
                 d[0], d[1], d[2], d[3]);
        json_case(J_VK, c, vk, "delta2 off subgroup", CUZK_ENOTINSUBGROUP, ed_set, arg);
    }

    /* proof.json */
    json_case(J_PROOF, CUZK_CURVE_NONE, proof, "no curve, none given", CUZK_EFORMAT, ed_del,
              "curve");
    json_case(J_PROOF, c, proof, "protocol plonk", CUZK_EFORMAT, ed_set, "protocol=\"plonk\"");
    json_case(J_PROOF, c, proof, "curve unknown", CUZK_ECURVE, ed_set, "curve=\"secp256k1\"");
    json_case(J_PROOF, c, proof, "no pi_b", CUZK_EFORMAT, ed_del, "pi_b");
    json_case(J_PROOF, c, proof, "pi_a off curve", CUZK_ENOTONCURVE, ed_set, "pi_a/1=\"5\"");
    json_case(J_PROOF, c, proof, "pi_c not array", CUZK_EFORMAT, ed_set, "pi_c=\"1\"");
    snprintf(arg, sizeof arg, "pi_b/1/1=\"%s\"", p_str);
    json_case(J_PROOF, c, proof, "pi_b y.c1 = p", CUZK_ERANGE, ed_set, arg);
    json_case(J_PROOF, c, proof, "empty object", CUZK_EFORMAT, ed_replace_root, NULL);

    /* public.json */
    snprintf(arg, sizeof arg, "0=\"%s\"", r_str);
    json_case(J_PUBLIC, c, pub, "public = r", CUZK_ERANGE, ed_set, arg);
    json_case(J_PUBLIC, c, pub, "public null", CUZK_EFORMAT, ed_set, "0=null");
    json_case(J_PUBLIC, c, pub, "public float", CUZK_EFORMAT, ed_set, "0=1.5");
    json_case(J_PUBLIC, c, pub, "public -3", CUZK_EFORMAT, ed_set, "0=-3");
    EXPECT_REJECT(parse_json(J_PUBLIC, c, "{\"a\": \"1\"}", &err), err, CUZK_EFORMAT,
                  "public object");

    /* Accepted variants: integers, leading zeros, Jacobian z != 1, z = 0. */
    cuzk_fr *v = NULL;
    size_t n;
    const char *ok = "[7, \"007\", \"0\"]";
    CHECK(cuzk_public_read_json(c, &v, &n, ok, strlen(ok), &err) == CUZK_OK && n == 3,
          "public integers: %s", err.msg);
    if (v) {
        CHECK(cuzk_fr_eq(&v[2], &(cuzk_fr){{0}}), "public \"0\"");
        CHECK(!cuzk_fr_eq(&v[0], &v[2]), "public 7");
    }
    free(v);
    CHECK(parse_json(J_PUBLIC, c, "[]", &err) == CUZK_OK, "empty public.json: %s", err.msg);
}

/* Proof points given in Jacobian form with z = 2 and z = 0 read as snarkjs
 * reads them: (x/z^2, y/z^3) and infinity. */
static void check_json_jacobian(int ci, const char *proof_text) {
    cuzk_error err;
    cuzk_proof p, q;
    cuzk_curve c = curve_of[ci];
    CHECK(cuzk_proof_read_json(&p, c, proof_text, strlen(proof_text), &err) == CUZK_OK,
          "proof: %s", err.msg);
    char x[200], y[200], s[1200];
    if (ci == 0) {
        bn254_fp z, z2, z3, X, Y;
        bn254_fp_set_u64(&z, 2);
        bn254_fp_sqr(&z2, &z);
        bn254_fp_mul(&z3, &z2, &z);
        bn254_fp_mul(&X, &p.p.bn254.a.x, &z2);
        bn254_fp_mul(&Y, &p.p.bn254.a.y, &z3);
        bn254_fp_to_dec(x, sizeof x, &X);
        bn254_fp_to_dec(y, sizeof y, &Y);
    } else {
        bls12_381_fp z, z2, z3, X, Y;
        bls12_381_fp_set_u64(&z, 2);
        bls12_381_fp_sqr(&z2, &z);
        bls12_381_fp_mul(&z3, &z2, &z);
        bls12_381_fp_mul(&X, &p.p.bls12_381.a.x, &z2);
        bls12_381_fp_mul(&Y, &p.p.bls12_381.a.y, &z3);
        bls12_381_fp_to_dec(x, sizeof x, &X);
        bls12_381_fp_to_dec(y, sizeof y, &Y);
    }
    snprintf(s, sizeof s,
             "{\"pi_a\": [\"%s\", \"%s\", \"2\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],"
             "[\"0\",\"0\"]], \"pi_c\": [\"0\", \"1\", \"0\"]}",
             x, y);
    cuzk_status st = cuzk_proof_read_json(&q, c, s, strlen(s), &err);
    CHECK(st == CUZK_OK, "jacobian proof: %s", err.msg);
    if (st == CUZK_OK && ci == 0)
        CHECK(!memcmp(&q.p.bn254.a, &p.p.bn254.a, sizeof q.p.bn254.a) &&
                  bn254_g2_affine_is_inf(&q.p.bn254.b) && bn254_g1_affine_is_inf(&q.p.bn254.c),
              "jacobian decode bn254");
    if (st == CUZK_OK && ci == 1)
        CHECK(!memcmp(&q.p.bls12_381.a, &p.p.bls12_381.a, sizeof q.p.bls12_381.a) &&
                  bls12_381_g2_affine_is_inf(&q.p.bls12_381.b) &&
                  bls12_381_g1_affine_is_inf(&q.p.bls12_381.c),
              "jacobian decode bls12_381");
    /* Infinity is written back the way snarkjs prints it. */
    char *out = NULL;
    if (st == CUZK_OK && cuzk_proof_write_json(&q, &out, &err) == CUZK_OK)
        CHECK(strstr(out, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]") != NULL,
              "infinity written as (0, 1, 0)");
    free(out);
}
#endif

static void check_curve_names(void) {
    CHECK(cuzk_curve_from_name("bn128") == CUZK_CURVE_BN254 &&
              cuzk_curve_from_name("BN254") == CUZK_CURVE_BN254 &&
              cuzk_curve_from_name("alt_bn128") == CUZK_CURVE_BN254 &&
              cuzk_curve_from_name("bls12381") == CUZK_CURVE_BLS12_381 &&
              cuzk_curve_from_name("BLS12-381") == CUZK_CURVE_BLS12_381 &&
              cuzk_curve_from_name("bls12377") == CUZK_CURVE_NONE &&
              cuzk_curve_from_name("") == CUZK_CURVE_NONE,
          "curve names");
    /* The scalar field's r of one curve is not the other's base field. */
    uint8_t b[48];
    for (int i = 0; i < 4; i++)
        cuzk_wr_u64(b + 8 * i, bn254_fr_modulus[i]);
    CHECK(cuzk_curve_from_r(b, 32) == CUZK_CURVE_BN254 && cuzk_curve_from_q(b, 32) == CUZK_CURVE_NONE,
          "bn254 r");
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_formats");
    static loaded all[2][N_CIRCUITS];
    check_curve_names();
    for (int ci = 0; ci < 2; ci++) {
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            loaded *L = &all[ci][i];
            load_fixture(L, ci, &circuits[i]);
            if (!L->ok)
                continue;
            check_headers(L, ci, &circuits[i]);
            check_consistency(L, &circuits[i]);
            check_round_trips(L, ci, &circuits[i]);
#ifdef CUZK_HAVE_JANSSON
            check_json(L, ci, &circuits[i]);
#endif
        }
        /* The fresh-setup key: sections physically out of id order. */
        cuzk_zkey z0;
        cuzk_error err;
        cuzk_status st = cuzk_zkey_open(&z0, fixture_path(ci, "multiplier_0000", "zkey"), &err);
        CHECK(st == CUZK_OK && z0.n_contributions == 0, "multiplier_0000: %s", err.msg);
        if (st == CUZK_OK && all[ci][0].ok)
            CHECK(cuzk_zkey_check_r1cs(&z0, &all[ci][0].r1cs, &err) == CUZK_OK,
                  "multiplier_0000 vs r1cs: %s", err.msg);
        cuzk_zkey_close(&z0);
    }
    check_mismatches(all);
    check_random_round_trips();
    check_files();

    /* Damage: every format of every curve, from the small circuits (every
     * truncation point) and one large circuit (section boundaries). */
    static const char *const names[2] = {"multiplier", "many_public"};
    for (int ci = 0; ci < 2; ci++) {
        for (int k = 0; k < 2; k++) {
            size_t len;
            char label[96];
            uint8_t *b = tu_read_file(fixture_path(ci, names[k], "r1cs"), &len);
            snprintf(label, sizeof label, "%s/%s.r1cs", curve_dir[ci], names[k]);
            check_truncations(K_R1CS, b, len, label);
            check_container_damage(K_R1CS, b, len, label);
            check_r1cs_damage(ci, b, len);
            check_random_damage(K_R1CS, b, len, label);
            free(b);
            b = tu_read_file(fixture_path(ci, names[k], "wtns"), &len);
            snprintf(label, sizeof label, "%s/%s.wtns", curve_dir[ci], names[k]);
            check_truncations(K_WTNS, b, len, label);
            check_container_damage(K_WTNS, b, len, label);
            check_wtns_damage(ci, b, len, &all[ci][k ? 3 : 0]);
            check_random_damage(K_WTNS, b, len, label);
            free(b);
            b = tu_read_file(fixture_path(ci, names[k], "zkey"), &len);
            snprintf(label, sizeof label, "%s/%s.zkey", curve_dir[ci], names[k]);
            check_truncations(K_ZKEY, b, len, label);
            check_container_damage(K_ZKEY, b, len, label);
            check_zkey_damage(ci, b, len, &all[ci][k ? 3 : 0]);
            check_random_damage(K_ZKEY, b, len, label);
            free(b);
        }
        size_t len;
        uint8_t *b = tu_read_file(fixture_path(ci, "poseidon_chain", "zkey"), &len);
        check_truncations(K_ZKEY, b, len, "poseidon_chain.zkey");
        free(b);
        b = tu_read_file(fixture_path(ci, "poseidon_chain", "r1cs"), &len);
        check_truncations(K_R1CS, b, len, "poseidon_chain.r1cs");
        free(b);
#ifdef CUZK_HAVE_JANSSON
        char *vk = (char *)tu_read_file(fixture_path(ci, "many_public", "vk.json"), &len);
        char *pr = (char *)tu_read_file(fixture_path(ci, "many_public", "proof.json"), &len);
        char *pub = (char *)tu_read_file(fixture_path(ci, "many_public", "public.json"), &len);
        check_json_damage(ci, vk, pr, pub);
        check_json_jacobian(ci, pr);
        free(vk);
        free(pr);
        free(pub);
#endif
    }
    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < N_CIRCUITS; i++)
            unload(&all[ci][i]);
    return tu_finish();
}
