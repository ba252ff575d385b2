/*
 * What the format tests share (one program per reader:
 * tests/test_formats_r1cs.c, _wtns.c, _zkey.c, _json.c, and the damaged
 * files of tests/test_formats_damage.c):
 * the committed interop fixtures of both curves (tests/interop/fixtures,
 * made by tests/interop/build_fixtures.sh with circom 2.2.3 and snarkjs
 * 0.7.6) with the counts `snarkjs r1cs info` printed for them, a tiny
 * container parser of its own (so damaged files do not depend on the code
 * under test), and the fixtures loaded.  Header-only (static functions)
 * because CMake turns every tests/test_*.c into a program.
 */
#ifndef CUZK_TEST_FORMATS_UTIL_H
#define CUZK_TEST_FORMATS_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve/curve.h"
#include "groth16/formats/binfile.h"
#include "groth16/formats/json.h"
#include "groth16/prover/key.h"
#include "groth16/formats/r1cs.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"
#include "testutil.h"
#include "util/paste.h"

#include <jansson.h>

typedef struct circuit_info {
    const char *name;
    uint32_t wires, constraints, prv_in, pub_in, pub_out;
    uint64_t labels;
    uint32_t domain;
} circuit_info;

/* From `snarkjs r1cs info` on the fixtures; domain = next_pow2(constraints
 * + public + 1). */
static const circuit_info circuits[] __attribute__((unused)) = {
    {"multiplier", 6, 2, 3, 0, 1, 6, 4},
    {"poseidon_chain", 484, 480, 2, 1, 1, 1539, 512},
    {"merkle", 490, 486, 4, 1, 1, 1558, 512},
    {"many_public", 64, 42, 1, 20, 2, 65, 128},
};
#define N_CIRCUITS (sizeof circuits / sizeof circuits[0])

static const char *const curve_dir[2] __attribute__((unused)) = {"bn128", "bls12381"};
static const cuzk_curve curve_of[2] __attribute__((unused)) = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};

/* ---- small utilities ------------------------------------------------------- */

static inline char *fixture_path(int ci, const char *name, const char *ext) {
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

static inline int split(container *c, const uint8_t *b, size_t len) {
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

static inline void container_free(container *c) {
    for (int i = 0; i < c->n; i++)
        free(c->s[i].p);
    c->n = 0;
}

static inline sec *find_sec(container *c, uint32_t id) {
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

static inline container clone(const container *c) {
    container d = *c;
    for (int i = 0; i < c->n; i++) {
        d.s[i].p = malloc(c->s[i].n + 1);
        memcpy(d.s[i].p, c->s[i].p, c->s[i].n);
    }
    return d;
}

/* Resize section |id| of |c| to |n| bytes (zero-filled when growing). */
static inline void resize_sec(container *c, uint32_t id, size_t n) {
    sec *s = find_sec(c, id);
    s->p = realloc(s->p, n + 1);
    if (n > s->n)
        memset(s->p + s->n, 0, n - s->n);
    s->n = n;
}

/* Every section of |orig| with an id in |ids| has the same payload in
 * |mine| (physical order may differ). */
static inline int same_payloads(const uint8_t *orig, size_t olen, const uint8_t *mine,
                                size_t mlen, const uint32_t *ids, int n_ids) {
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

/* With CUZK_FORMATS_OUT=<dir>: |b| as <dir>/<sub>/<name>, for
 * tests/interop/run.sh to hand to snarkjs. */
static inline void write_out(const char *sub, const char *name, const uint8_t *b, size_t n) {
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

/* A uniformly random element of |c|'s Fr. */
static inline void random_fr(cuzk_curve c, cuzk_fr *out) {
    uint64_t l[4];
    tu_rand_below(l, cuzk_curve_r_limbs(c), 4);
    uint8_t b[32];
    for (int i = 0; i < 4; i++)
        cuzk_wr_u64(b + 8 * i, l[i]);
    cuzk_fr_from_le(c, out, b, NULL);
}

typedef enum { K_R1CS, K_WTNS, K_ZKEY } kind;

/* Parse |len| bytes with the reader of |k| from an exact-size heap copy (so
 * ASan sees any over-read); returns the status, error in |err|. */
static inline cuzk_status parse_kind(kind k, const uint8_t *b, size_t len, cuzk_error *err) {
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

static inline cuzk_status parse_container(kind k, const container *c, cuzk_error *err) {
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

static inline void load_fixture(loaded *L, int ci, const circuit_info *info) {
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

static inline void unload(loaded *L) {
    cuzk_r1cs_free(&L->r1cs);
    cuzk_wtns_close(&L->wtns);
    cuzk_zkey_close(&L->zkey);
    free(L->w);
}

/* Every fixture of both curves loaded into |all|, |fn| run on each that
 * loaded; unload_all frees them. */
static inline void load_all(loaded all[2][N_CIRCUITS],
                            void (*fn)(loaded *L, int ci, const circuit_info *in)) {
    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            load_fixture(&all[ci][i], ci, &circuits[i]);
            if (all[ci][i].ok && fn)
                fn(&all[ci][i], ci, &circuits[i]);
        }
}

static inline void unload_all(loaded all[2][N_CIRCUITS]) {
    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < N_CIRCUITS; i++)
            unload(&all[ci][i]);
}

#endif
