/*
 * Point encodings (curve/encode.h): round trips in every format for all
 * groups, infinity included; byte-exact agreement with @noble/curves on
 * zcash encodings (tests/vectors/curve_kat.h); and rejection of every kind
 * of malformed input with the expected status and a message: wrong length,
 * bad flag combinations, coordinates >= p, points off the curve, points
 * outside the subgroup, bad decimal text, and Ethereum G2 with swapped
 * halves.
 */
#include <stdio.h>
#include <string.h>

#include "curve/encode.h"
#include "field/consts_gen.h"
#include "testutil.h"
#include "vectors/curve_kat.h"

/* ---- helpers ------------------------------------------------------------- */

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

static size_t hex_to_bytes(uint8_t *out, const char *s) {
    size_t n = strlen(s) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
    return n;
}

static void hex_to_limbs(uint64_t *out, size_t n, const char *s) {
    size_t len = strlen(s);
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < len; i++)
        out[i / 16] |= (uint64_t)hexval(s[len - 1 - i]) << (4 * (i % 16));
}

/* Expect status |want| and a non-empty message. */
static void expect_fail(cuzk_status got, const cuzk_error *e, cuzk_status want,
                        const char *what) {
    CHECK(got == want, "%s: status %s, want %s (%s)", what, cuzk_status_name(got),
          cuzk_status_name(want), e->msg);
    CHECK(got == CUZK_OK || e->msg[0] != '\0', "%s: failure has a message", what);
}

/* Plain limbs of p as bytes: big-endian (n8 bytes) and little-endian. */
static void put_be(uint8_t *out, const uint64_t *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            out[8 * (n - 1 - i) + j] = (uint8_t)(v[i] >> (56 - 8 * j));
}
static void put_le(uint8_t *out, const uint64_t *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            out[8 * i + j] = (uint8_t)(v[i] >> (8 * j));
}

/* Random field elements and decimal printing of a coordinate (through the
 * field layer, not the code under test). */
#define FP_HELPERS(F)                                                         \
    static void F##_rand(F *x) {                                              \
        uint64_t l[F##_LIMBS];                                                \
        tu_rand_below(l, F##_modulus, F##_LIMBS);                             \
        F##_to_mont(x, l);                                                    \
    }                                                                         \
    static void F##_put(char (*b)[CUZK_G_DEC_BYTES], const F *v) {            \
        F##_to_dec(b[0], CUZK_G_DEC_BYTES, v);                                \
    }
#define FP2_HELPERS(E, F)                                                     \
    static void E##_rand(E *x) {                                              \
        F##_rand(&x->c0);                                                     \
        F##_rand(&x->c1);                                                     \
    }                                                                         \
    static void E##_put(char (*b)[CUZK_G_DEC_BYTES], const E *v) {            \
        F##_put(&b[0], &v->c0);                                               \
        F##_put(&b[1], &v->c1);                                               \
    }
FP_HELPERS(bls12_381_fp)
FP_HELPERS(bn254_fp)
FP2_HELPERS(bls12_381_fp2, bls12_381_fp)
FP2_HELPERS(bn254_fp2, bn254_fp)

/* Random scalar point [k]G and random curve points outside the subgroup. */
#define POINT_HELPERS(G, F, S)                                                \
    static void G##_rand(G##_affine *r) {                                     \
        uint64_t l[4];                                                        \
        S k;                                                                  \
        G##_affine g;                                                         \
        G j;                                                                  \
        do                                                                    \
            tu_rand_below(l, S##_modulus, 4);                                 \
        while ((l[0] | l[1] | l[2] | l[3]) == 0);                             \
        S##_to_mont(&k, l);                                                   \
        G##_generator(&g);                                                    \
        G##_from_affine(&j, &g);                                              \
        G##_mul(&j, &j, &k);                                                  \
        G##_to_affine(r, &j);                                                 \
    }                                                                         \
    /* x^3 + b square for some x; b from the generator. */                    \
    static void G##_rand_curve(G##_affine *r) {                               \
        G##_affine g;                                                         \
        F b, t;                                                               \
        G##_generator(&g);                                                    \
        F##_sqr(&b, &g.y);                                                    \
        F##_sqr(&t, &g.x);                                                    \
        F##_mul(&t, &t, &g.x);                                                \
        F##_sub(&b, &b, &t);                                                  \
        do {                                                                  \
            F##_rand(&r->x);                                                  \
            F##_sqr(&t, &r->x);                                               \
            F##_mul(&t, &t, &r->x);                                           \
            F##_add(&t, &t, &b);                                              \
        } while (!F##_sqrt(&r->y, &t));                                       \
    }
POINT_HELPERS(bls12_381_g1, bls12_381_fp, bls12_381_fr)
POINT_HELPERS(bls12_381_g2, bls12_381_fp2, bls12_381_fr)
POINT_HELPERS(bn254_g1, bn254_fp, bn254_fr)
POINT_HELPERS(bn254_g2, bn254_fp2, bn254_fr)

static const uint64_t bls_p[6] = BLS12_381_FP_P, bn_p[4] = BN254_FP_P;

/* ---- 1. zcash ------------------------------------------------------------ */

static void zcash_kat(void) {
    for (size_t i = 0; i < sizeof kat_bls12_381_g1_zcash / sizeof kat_bls12_381_g1_zcash[0]; i++) {
        const kat_zcash *v = &kat_bls12_381_g1_zcash[i];
        uint8_t c[48], u[96], out[96];
        uint64_t k[4];
        bls12_381_g1_affine want, got;
        bls12_381_g1 j;
        cuzk_error e;
        hex_to_bytes(c, v->compressed);
        hex_to_bytes(u, v->uncompressed);
        hex_to_limbs(k, 4, v->k);
        bls12_381_g1_generator(&want);
        bls12_381_g1_from_affine(&j, &want);
        bls12_381_g1_mul_limbs(&j, &j, k, 4);
        bls12_381_g1_to_affine(&want, &j);
        CHECK(bls12_381_g1_encode_zcash(out, &want, 1) == 48 && memcmp(out, c, 48) == 0,
              "g1 zcash compressed [%s]G matches noble", v->k);
        CHECK(bls12_381_g1_encode_zcash(out, &want, 0) == 96 && memcmp(out, u, 96) == 0,
              "g1 zcash uncompressed [%s]G matches noble", v->k);
        CHECK(bls12_381_g1_decode_zcash(&got, c, 48, &e) == CUZK_OK &&
                  bls12_381_g1_affine_eq(&got, &want),
              "g1 zcash decode noble compressed [%s]G: %s", v->k, e.msg);
        CHECK(bls12_381_g1_decode_zcash(&got, u, 96, &e) == CUZK_OK &&
                  bls12_381_g1_affine_eq(&got, &want),
              "g1 zcash decode noble uncompressed [%s]G: %s", v->k, e.msg);
    }
    for (size_t i = 0; i < sizeof kat_bls12_381_g2_zcash / sizeof kat_bls12_381_g2_zcash[0]; i++) {
        const kat_zcash *v = &kat_bls12_381_g2_zcash[i];
        uint8_t c[96], u[192], out[192];
        uint64_t k[4];
        bls12_381_g2_affine want, got;
        bls12_381_g2 j;
        cuzk_error e;
        hex_to_bytes(c, v->compressed);
        hex_to_bytes(u, v->uncompressed);
        hex_to_limbs(k, 4, v->k);
        bls12_381_g2_generator(&want);
        bls12_381_g2_from_affine(&j, &want);
        bls12_381_g2_mul_limbs(&j, &j, k, 4);
        bls12_381_g2_to_affine(&want, &j);
        CHECK(bls12_381_g2_encode_zcash(out, &want, 1) == 96 && memcmp(out, c, 96) == 0,
              "g2 zcash compressed [%s]G matches noble", v->k);
        CHECK(bls12_381_g2_encode_zcash(out, &want, 0) == 192 && memcmp(out, u, 192) == 0,
              "g2 zcash uncompressed [%s]G matches noble", v->k);
        CHECK(bls12_381_g2_decode_zcash(&got, c, 96, &e) == CUZK_OK &&
                  bls12_381_g2_affine_eq(&got, &want),
              "g2 zcash decode noble compressed [%s]G: %s", v->k, e.msg);
        CHECK(bls12_381_g2_decode_zcash(&got, u, 192, &e) == CUZK_OK &&
                  bls12_381_g2_affine_eq(&got, &want),
              "g2 zcash decode noble uncompressed [%s]G: %s", v->k, e.msg);
    }
}

/* Round trips and rejections for one zcash group, through a small table. */
typedef struct {
    const char *name;
    size_t clen;        /* compressed length */
    size_t aff_sz;
    size_t k;           /* Fp elements per coordinate */
    size_t (*enc)(uint8_t *, const void *, int);
    cuzk_status (*dec)(void *, const uint8_t *, size_t, cuzk_error *);
    void (*rand)(void *);
    void (*rand_curve)(void *);
    void (*neg)(void *, const void *);
    int (*eq)(const void *, const void *);
} zgroup;

#define ZWRAP(G)                                                              \
    static size_t G##_zenc(uint8_t *o, const void *a, int c) {                \
        return G##_encode_zcash(o, a, c);                                     \
    }                                                                         \
    static cuzk_status G##_zdec(void *r, const uint8_t *i, size_t n, cuzk_error *e) { \
        return G##_decode_zcash(r, i, n, e);                                  \
    }                                                                         \
    static void G##_zrand(void *r) { G##_rand(r); }                           \
    static void G##_zrand_curve(void *r) { G##_rand_curve(r); }               \
    static void G##_zneg(void *r, const void *a) { G##_affine_neg(r, a); }    \
    static int G##_zeq(const void *a, const void *b) { return G##_affine_eq(a, b); }
ZWRAP(bls12_381_g1)
ZWRAP(bls12_381_g2)
static const zgroup zgroups[] = {
    {"g1", 48, sizeof(bls12_381_g1_affine), 1, bls12_381_g1_zenc, bls12_381_g1_zdec,
     bls12_381_g1_zrand, bls12_381_g1_zrand_curve, bls12_381_g1_zneg, bls12_381_g1_zeq},
    {"g2", 96, sizeof(bls12_381_g2_affine), 2, bls12_381_g2_zenc, bls12_381_g2_zdec,
     bls12_381_g2_zrand, bls12_381_g2_zrand_curve, bls12_381_g2_zneg, bls12_381_g2_zeq},
};

typedef struct {
    uint64_t w[24];
} abuf;

static void zcash_group(const zgroup *z) {
    uint8_t b[192], t[192];
    abuf P, Q, N;
    cuzk_error e;
    char what[96];
    size_t cl = z->clen, ul = 2 * z->clen;
    /* round trips */
    for (unsigned it = 0; it < tu_iters(6); it++) {
        z->rand(&P);
        for (int c = 0; c <= 1; c++) {
            size_t len = z->enc(b, &P, c);
            CHECK(len == (c ? cl : ul), "zcash %s length", z->name);
            CHECK(z->dec(&Q, b, len, &e) == CUZK_OK && z->eq(&P, &Q),
                  "zcash %s round trip (compressed %d): %s", z->name, c, e.msg);
            CHECK((b[0] & 0x80) == (c ? 0x80 : 0) && !(b[0] & 0x40),
                  "zcash %s flags of a finite point", z->name);
        }
        /* flipping the sign flag gives -P */
        z->enc(b, &P, 1);
        b[0] ^= 0x20;
        z->neg(&N, &P);
        CHECK(z->dec(&Q, b, cl, &e) == CUZK_OK && z->eq(&Q, &N),
              "zcash %s sign flag flip decodes to -P", z->name);
    }
    /* infinity */
    memset(&P, 0, sizeof P);
    CHECK(z->enc(b, &P, 1) == cl && b[0] == 0xc0, "zcash %s infinity compressed", z->name);
    memset(&Q, 0xaa, sizeof Q);
    CHECK(z->dec(&Q, b, cl, &e) == CUZK_OK && z->eq(&Q, &P),
          "zcash %s infinity compressed decodes", z->name);
    CHECK(z->enc(b, &P, 0) == ul && b[0] == 0x40, "zcash %s infinity uncompressed", z->name);
    CHECK(z->dec(&Q, b, ul, &e) == CUZK_OK && z->eq(&Q, &P),
          "zcash %s infinity uncompressed decodes", z->name);

    /* wrong lengths */
    z->rand(&P);
    z->enc(b, &P, 0);
    size_t bad_len[] = {0, 1, cl - 1, cl + 1, ul - 1, ul + 1};
    for (size_t i = 0; i < sizeof bad_len / sizeof bad_len[0]; i++) {
        snprintf(what, sizeof what, "zcash %s length %zu", z->name, bad_len[i]);
        expect_fail(z->dec(&Q, b, bad_len[i], &e), &e, CUZK_EFORMAT, what);
    }
    /* flag combinations */
    z->enc(b, &P, 1);
    memcpy(t, b, cl);
    t[0] &= 0x7f;
    expect_fail(z->dec(&Q, t, cl, &e), &e, CUZK_EFORMAT, "zcash compressed flag missing");
    z->enc(b, &P, 0);
    memcpy(t, b, ul);
    t[0] |= 0x80;
    expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_EFORMAT, "zcash compressed flag on uncompressed");
    memcpy(t, b, ul);
    t[0] |= 0x20;
    expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_EFORMAT, "zcash sign flag on uncompressed");
    memset(t, 0, ul);
    t[0] = 0xe0;
    expect_fail(z->dec(&Q, t, cl, &e), &e, CUZK_EFORMAT, "zcash sign flag on compressed infinity");
    t[0] = 0x60;
    expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_EFORMAT, "zcash sign flag on uncompressed infinity");
    for (size_t pos = 0; pos < ul; pos += 7) {
        memset(t, 0, ul);
        t[0] = 0xc0;
        t[pos] |= 1;
        if (pos < cl) {
            snprintf(what, sizeof what, "zcash %s compressed infinity, byte %zu set", z->name, pos);
            expect_fail(z->dec(&Q, t, cl, &e), &e, CUZK_EFORMAT, what);
        }
        t[0] = (uint8_t)(0x40 | (pos == 0));
        snprintf(what, sizeof what, "zcash %s uncompressed infinity, byte %zu set", z->name, pos);
        expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_EFORMAT, what);
    }
    memcpy(t, b, ul); /* infinity flag on a finite uncompressed point */
    t[0] |= 0x40;
    expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_EFORMAT, "zcash infinity flag with coordinates");
    /* all-zero uncompressed without the infinity flag is (0, 0): not on the curve */
    memset(t, 0, ul);
    expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_ENOTONCURVE, "zcash (0, 0) without infinity flag");
    /* coordinates >= p, in every Fp slot (x.c1, x.c0, y.c1, y.c0 on the wire) */
    for (size_t slot = 0; slot < 2 * z->k; slot++) {
        for (int variant = 0; variant < 2; variant++) {
            z->enc(t, &P, 0);
            if (variant == 0)
                put_be(t + 48 * slot, bls_p, 6);          /* exactly p */
            else
                memset(t + 48 * slot, 0xff, 48);         /* 2^384 - 1 */
            t[0] &= 0x1f;                                /* keep flags clear */
            snprintf(what, sizeof what, "zcash %s uncompressed slot %zu >= p (%d)",
                     z->name, slot, variant);
            expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_ERANGE, what);
            if (slot < z->k) {
                z->enc(t, &P, 1);
                if (variant == 0)
                    put_be(t + 48 * slot, bls_p, 6);
                else
                    memset(t + 48 * slot, 0xff, 48);
                t[0] = (uint8_t)((t[0] & 0x1f) | 0x80);
                snprintf(what, sizeof what, "zcash %s compressed slot %zu >= p (%d)",
                         z->name, slot, variant);
                expect_fail(z->dec(&Q, t, cl, &e), &e, CUZK_ERANGE, what);
            }
        }
    }
    /* off the curve: uncompressed with y changed; compressed x with no y */
    z->enc(t, &P, 0);
    t[ul - 1] ^= 1;
    expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_ENOTONCURVE, "zcash uncompressed y changed");
    int found = 0;
    for (uint8_t x = 1; x < 60 && found < 3; x++) {
        memset(t, 0, cl);
        t[cl - 1] = x; /* x = small integer (G2: x.c0 = small, x.c1 = 0) */
        t[0] |= 0x80;
        cuzk_status st = z->dec(&Q, t, cl, &e);
        if (st == CUZK_ENOTONCURVE) {
            found++;
            CHECK(e.msg[0] != '\0', "zcash non-square x has a message");
        } else
            CHECK(st == CUZK_ENOTINSUBGROUP, "zcash small x: %s", cuzk_status_name(st));
    }
    CHECK(found == 3, "zcash %s: found x values with no point", z->name);
    /* on the curve but outside the subgroup, both forms */
    for (int it = 0; it < 3; it++) {
        z->rand_curve(&N);
        z->enc(t, &N, 1);
        expect_fail(z->dec(&Q, t, cl, &e), &e, CUZK_ENOTINSUBGROUP, "zcash compressed non-subgroup");
        z->enc(t, &N, 0);
        expect_fail(z->dec(&Q, t, ul, &e), &e, CUZK_ENOTINSUBGROUP, "zcash uncompressed non-subgroup");
    }
    /* a failed decode leaves the output untouched */
    memset(&Q, 0x5a, sizeof Q);
    memcpy(&N, &Q, sizeof N);
    z->enc(t, &P, 0);
    t[ul - 1] ^= 1;
    z->dec(&Q, t, ul, &e);
    CHECK(memcmp(&Q, &N, sizeof Q) == 0, "zcash %s: failure leaves r unchanged", z->name);
}

/* ---- 2. decimal (snarkjs JSON) --------------------------------------------- */

#define DEC_TESTS(G, F, NC, SUBGROUP_TESTABLE)                                \
    static void G##_dec_tests(void) {                                         \
        char bufs[NC][CUZK_G_DEC_BYTES];                                      \
        char *out[NC];                                                        \
        const char *in[NC];                                                   \
        G##_affine P, Q, O;                                                   \
        cuzk_error e;                                                         \
        for (int i = 0; i < NC; i++) {                                        \
            out[i] = bufs[i];                                                 \
            in[i] = bufs[i];                                                  \
        }                                                                     \
        for (unsigned it = 0; it < tu_iters(6); it++) {                       \
            G##_rand(&P);                                                     \
            CHECK(G##_to_dec(out, sizeof bufs[0], &P, &e) == CUZK_OK,         \
                  #G " to_dec");                                              \
            CHECK(strcmp(bufs[NC / 3 * 2], "1") == 0, #G " z is \"1\"");      \
            CHECK(G##_from_dec(&Q, in, &e) == CUZK_OK &&                      \
                      G##_affine_eq(&P, &Q),                                  \
                  #G " decimal round trip: %s", e.msg);                       \
            /* any z: (x z^2, y z^3, z) is the same point */                  \
            F z, z2, X, Y;                                                    \
            do                                                                \
                F##_rand(&z);                                                 \
            while (F##_is_zero(&z));                                          \
            F##_sqr(&z2, &z);                                                 \
            F##_mul(&X, &P.x, &z2);                                           \
            F##_mul(&z2, &z2, &z);                                            \
            F##_mul(&Y, &P.y, &z2);                                           \
            F##_put(&bufs[0], &X);                                            \
            F##_put(&bufs[NC / 3], &Y);                                       \
            F##_put(&bufs[NC / 3 * 2], &z);                                   \
            CHECK(G##_from_dec(&Q, in, &e) == CUZK_OK &&                      \
                      G##_affine_eq(&P, &Q),                                  \
                  #G " decimal with random z normalises: %s", e.msg);         \
        }                                                                     \
        /* infinity: written (0, 1, 0); any z = 0 decodes to O */             \
        memset(&O, 0, sizeof O);                                              \
        CHECK(G##_to_dec(out, sizeof bufs[0], &O, &e) == CUZK_OK, #G " inf"); \
        CHECK(strcmp(bufs[0], "0") == 0 && strcmp(bufs[NC / 3], "1") == 0 &&  \
                  strcmp(bufs[NC / 3 * 2], "0") == 0,                         \
              #G " infinity written as (0, 1, 0)");                           \
        memset(&Q, 0x33, sizeof Q);                                           \
        CHECK(G##_from_dec(&Q, in, &e) == CUZK_OK && G##_affine_is_inf(&Q),   \
              #G " infinity decodes: %s", e.msg);                             \
        /* malformed text */                                                  \
        G##_rand(&P);                                                         \
        const char *bad[] = {"", "12a", "-1", " 1", "1 ", "0x10", "+5"};      \
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {             \
            G##_to_dec(out, sizeof bufs[0], &P, &e);                          \
            in[b % NC] = bad[b];                                              \
            expect_fail(G##_from_dec(&Q, in, &e), &e, CUZK_EFORMAT,           \
                        #G " bad decimal");                                   \
            in[b % NC] = bufs[b % NC];                                        \
        }                                                                     \
        in[1] = NULL;                                                         \
        expect_fail(G##_from_dec(&Q, in, &e), &e, CUZK_EFORMAT, #G " NULL");  \
        in[1] = bufs[1];                                                      \
        /* coordinates >= p */                                                \
        {                                                                     \
            char pdec[CUZK_G_DEC_BYTES];                                      \
            cuzk_limbs_to_dec(pdec, sizeof pdec, F##_P_LIMBS, F##_NL);        \
            for (int i = 0; i < NC; i++) {                                    \
                G##_to_dec(out, sizeof bufs[0], &P, &e);                      \
                in[i] = pdec;                                                 \
                expect_fail(G##_from_dec(&Q, in, &e), &e, CUZK_ERANGE,        \
                            #G " decimal coordinate = p");                    \
                in[i] = "9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"; \
                cuzk_status st = G##_from_dec(&Q, in, &e);                    \
                CHECK(st == CUZK_ERANGE, #G " huge decimal: %s",             \
                      cuzk_status_name(st));                                  \
                in[i] = bufs[i];                                              \
            }                                                                 \
        }                                                                     \
        /* off the curve; (0, 0, 1) is not infinity */                        \
        G##_to_dec(out, sizeof bufs[0], &P, &e);                              \
        strcpy(bufs[NC / 3], bufs[0]); /* y := x */                           \
        expect_fail(G##_from_dec(&Q, in, &e), &e, CUZK_ENOTONCURVE,           \
                    #G " decimal off curve");                                 \
        for (int i = 0; i < NC; i++)                                          \
            strcpy(bufs[i], (i == NC / 3 * 2) ? "1" : "0");                   \
        expect_fail(G##_from_dec(&Q, in, &e), &e, CUZK_ENOTONCURVE,           \
                    #G " decimal (0, 0, 1)");                                 \
        /* outside the subgroup */                                            \
        if (SUBGROUP_TESTABLE) {                                              \
            G##_rand_curve(&P);                                               \
            G##_to_dec(out, sizeof bufs[0], &P, &e);                          \
            expect_fail(G##_from_dec(&Q, in, &e), &e, CUZK_ENOTINSUBGROUP,    \
                        #G " decimal non-subgroup");                          \
        }                                                                     \
        /* buffer too small */                                                \
        expect_fail(G##_to_dec(out, 10, &P, &e), &e, CUZK_EINVAL,             \
                    #G " to_dec small buffer");                               \
    }

#define bls12_381_fp_P_LIMBS bls_p
#define bls12_381_fp_NL 6
#define bls12_381_fp2_P_LIMBS bls_p
#define bls12_381_fp2_NL 6
#define bn254_fp_P_LIMBS bn_p
#define bn254_fp_NL 4
#define bn254_fp2_P_LIMBS bn_p
#define bn254_fp2_NL 4
DEC_TESTS(bls12_381_g1, bls12_381_fp, 3, 1)
DEC_TESTS(bls12_381_g2, bls12_381_fp2, 6, 1)
DEC_TESTS(bn254_g1, bn254_fp, 3, 0)
DEC_TESTS(bn254_g2, bn254_fp2, 6, 1)

/* ---- 3. zkey binary ------------------------------------------------------------ */

#define ZKEY_TESTS(G, NBYTES, PLIMBS, NL, SUBGROUP_TESTABLE)                   \
    static void G##_zkey_tests(void) {                                        \
        uint8_t b[NBYTES], t[NBYTES];                                         \
        G##_affine P, Q;                                                      \
        cuzk_error e;                                                         \
        for (unsigned it = 0; it < tu_iters(6); it++) {                       \
            G##_rand(&P);                                                     \
            G##_to_zkey_bytes(b, &P);                                         \
            CHECK(memcmp(b, &P, NBYTES) == 0,                                 \
                  #G " zkey bytes are the Montgomery image");                 \
            CHECK(G##_from_zkey_bytes(&Q, b, 1, &e) == CUZK_OK &&             \
                      G##_affine_eq(&P, &Q),                                  \
                  #G " zkey round trip: %s", e.msg);                          \
        }                                                                     \
        memset(&P, 0, sizeof P);                                              \
        G##_to_zkey_bytes(b, &P);                                             \
        memset(t, 0, sizeof t);                                               \
        CHECK(memcmp(b, t, NBYTES) == 0, #G " zkey infinity is all zero");    \
        memset(&Q, 0x11, sizeof Q);                                           \
        CHECK(G##_from_zkey_bytes(&Q, b, 1, &e) == CUZK_OK &&                 \
                  G##_affine_is_inf(&Q), #G " zkey infinity decodes");        \
        G##_rand(&P);                                                         \
        for (size_t slot = 0; slot < NBYTES / (8 * NL); slot++) {             \
            G##_to_zkey_bytes(t, &P);                                         \
            put_le(t + 8 * NL * slot, PLIMBS, NL);                            \
            expect_fail(G##_from_zkey_bytes(&Q, t, 0, &e), &e, CUZK_ERANGE,   \
                        #G " zkey limb value = p");                           \
            memset(t + 8 * NL * slot, 0xff, 8 * NL);                          \
            expect_fail(G##_from_zkey_bytes(&Q, t, 0, &e), &e, CUZK_ERANGE,   \
                        #G " zkey limb value all ones");                      \
        }                                                                     \
        G##_to_zkey_bytes(t, &P);                                             \
        t[NBYTES - 8 * NL] ^= 1; /* low byte of the last Fp of y */           \
        expect_fail(G##_from_zkey_bytes(&Q, t, 0, &e), &e, CUZK_ENOTONCURVE,  \
                    #G " zkey off curve");                                    \
        if (SUBGROUP_TESTABLE) {                                              \
            G##_rand_curve(&P);                                               \
            G##_to_zkey_bytes(t, &P);                                         \
            CHECK(G##_from_zkey_bytes(&Q, t, 0, &e) == CUZK_OK &&             \
                      G##_affine_eq(&P, &Q),                                  \
                  #G " zkey without subgroup check accepts a curve point");   \
            expect_fail(G##_from_zkey_bytes(&Q, t, 1, &e), &e,                \
                        CUZK_ENOTINSUBGROUP, #G " zkey subgroup check");      \
        }                                                                     \
    }
ZKEY_TESTS(bls12_381_g1, 96, bls_p, 6, 1)
ZKEY_TESTS(bls12_381_g2, 192, bls_p, 6, 1)
ZKEY_TESTS(bn254_g1, 64, bn_p, 4, 0)
ZKEY_TESTS(bn254_g2, 128, bn_p, 4, 1)

/* ---- 4. Ethereum ------------------------------------------------------------------ */

static void eth_tests(void) {
    uint8_t b[128], t[128];
    bn254_g1_affine P, Q;
    bn254_g2_affine P2, Q2;
    cuzk_error e;
    /* G1 generator is (1, 2). */
    bn254_g1_generator(&P);
    bn254_g1_encode_eth(b, &P);
    memset(t, 0, 64);
    t[31] = 1;
    t[63] = 2;
    CHECK(memcmp(b, t, 64) == 0, "eth G1 generator bytes");
    /* G2 generator: x.c1 first (EIP-197), compared with the noble KAT. */
    bn254_g2_generator(&P2);
    bn254_g2_encode_eth(b, &P2);
    {
        uint64_t v[4];
        const kat_g2 *k = &kat_bn254_g2[0]; /* [1]G */
        hex_to_limbs(v, 4, k->x1);
        put_be(t, v, 4);
        hex_to_limbs(v, 4, k->x0);
        put_be(t + 32, v, 4);
        hex_to_limbs(v, 4, k->y1);
        put_be(t + 64, v, 4);
        hex_to_limbs(v, 4, k->y0);
        put_be(t + 96, v, 4);
        CHECK(memcmp(b, t, 128) == 0, "eth G2 generator bytes (c1 first)");
    }
    for (unsigned it = 0; it < tu_iters(6); it++) {
        bn254_g1_rand(&P);
        bn254_g1_encode_eth(b, &P);
        CHECK(bn254_g1_decode_eth(&Q, b, &e) == CUZK_OK && bn254_g1_affine_eq(&P, &Q),
              "eth G1 round trip: %s", e.msg);
        bn254_g2_rand(&P2);
        bn254_g2_encode_eth(b, &P2);
        CHECK(bn254_g2_decode_eth(&Q2, b, &e) == CUZK_OK && bn254_g2_affine_eq(&P2, &Q2),
              "eth G2 round trip: %s", e.msg);
        /* swapped halves (c0 first) must not decode to the same point */
        memcpy(t, b + 32, 32);
        memcpy(t + 32, b, 32);
        memcpy(t + 64, b + 96, 32);
        memcpy(t + 96, b + 64, 32);
        cuzk_status st = bn254_g2_decode_eth(&Q2, t, &e);
        CHECK(st != CUZK_OK || !bn254_g2_affine_eq(&P2, &Q2),
              "eth G2 with swapped halves is not the same point");
        CHECK(st == CUZK_ENOTONCURVE || st == CUZK_ENOTINSUBGROUP,
              "eth G2 swapped halves rejected (%s)", cuzk_status_name(st));
    }
    /* infinity */
    memset(&P, 0, sizeof P);
    bn254_g1_encode_eth(b, &P);
    memset(t, 0, 128);
    CHECK(memcmp(b, t, 64) == 0, "eth G1 infinity is zeros");
    CHECK(bn254_g1_decode_eth(&Q, t, &e) == CUZK_OK && bn254_g1_affine_is_inf(&Q),
          "eth G1 zeros decode to infinity");
    memset(&P2, 0, sizeof P2);
    bn254_g2_encode_eth(b, &P2);
    CHECK(memcmp(b, t, 128) == 0, "eth G2 infinity is zeros");
    CHECK(bn254_g2_decode_eth(&Q2, t, &e) == CUZK_OK && bn254_g2_affine_is_inf(&Q2),
          "eth G2 zeros decode to infinity");
    /* range */
    bn254_g1_rand(&P);
    for (int slot = 0; slot < 2; slot++) {
        bn254_g1_encode_eth(t, &P);
        put_be(t + 32 * slot, bn_p, 4);
        expect_fail(bn254_g1_decode_eth(&Q, t, &e), &e, CUZK_ERANGE, "eth G1 coordinate = p");
    }
    bn254_g2_rand(&P2);
    for (int slot = 0; slot < 4; slot++) {
        bn254_g2_encode_eth(t, &P2);
        memset(t + 32 * slot, 0xff, 32);
        expect_fail(bn254_g2_decode_eth(&Q2, t, &e), &e, CUZK_ERANGE, "eth G2 coordinate >= p");
    }
    /* off curve, non-subgroup */
    bn254_g1_encode_eth(t, &P);
    t[63] ^= 1;
    expect_fail(bn254_g1_decode_eth(&Q, t, &e), &e, CUZK_ENOTONCURVE, "eth G1 off curve");
    bn254_g2_encode_eth(t, &P2);
    t[127] ^= 1;
    expect_fail(bn254_g2_decode_eth(&Q2, t, &e), &e, CUZK_ENOTONCURVE, "eth G2 off curve");
    bn254_g2_rand_curve(&P2);
    bn254_g2_encode_eth(t, &P2);
    expect_fail(bn254_g2_decode_eth(&Q2, t, &e), &e, CUZK_ENOTINSUBGROUP, "eth G2 non-subgroup");
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_encode");
    zcash_kat();
    for (size_t i = 0; i < sizeof zgroups / sizeof zgroups[0]; i++)
        zcash_group(&zgroups[i]);
    bls12_381_g1_dec_tests();
    bls12_381_g2_dec_tests();
    bn254_g1_dec_tests();
    bn254_g2_dec_tests();
    bls12_381_g1_zkey_tests();
    bls12_381_g2_zkey_tests();
    bn254_g1_zkey_tests();
    bn254_g2_zkey_tests();
    eth_tests();
    return tu_finish();
}
