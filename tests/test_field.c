/*
 * Prime-field arithmetic of both curves against GMP.
 *
 * Every operation is run on random and edge inputs (0, 1, p-1, long bit
 * runs) and compared with the same computation done by GMP on plain
 * integers.  The generated constants (consts_gen.h) are re-derived here from
 * the moduli with GMP, so a wrong constant cannot pass through both.
 *
 * The field tests are field-generic (a table of the field's functions,
 * field_ops); the tables are filled, and the roots of unity checked, by the
 * template at the end of the file, included once per curve (TEST_CURVE,
 * tests/testutil.h) and within it once per field (TEST_FIELD).
 */
#ifndef TEST_CURVE

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "field/consts_gen.h"
#include "field/field.h"
#include "groth16/curve_id.h"
#include "testutil.h"

/* A field seen through function pointers, so one test covers all four. */
typedef struct {
    const char *name;
    size_t n;
    const uint64_t *p;
    void (*add)(void *, const void *, const void *);
    void (*sub)(void *, const void *, const void *);
    void (*mul)(void *, const void *, const void *);
    void (*sqr)(void *, const void *);
    void (*neg)(void *, const void *);
    void (*dbl)(void *, const void *);
    void (*inv)(void *, const void *);
    void (*inv_var)(void *, const void *);
    void (*batch_inv)(void *, const void *, size_t);
    void (*pow)(void *, const void *, const uint64_t *, size_t);
    int (*sqrt)(void *, const void *);
    int (*legendre)(const void *);
    void (*from_mont)(uint64_t *, const void *);
    void (*to_mont)(void *, const uint64_t *);
    cuzk_status (*from_bytes_le)(void *, const uint8_t *, cuzk_error *);
    cuzk_status (*from_bytes_be)(void *, const uint8_t *, cuzk_error *);
    void (*to_bytes_le)(uint8_t *, const void *);
    void (*to_bytes_be)(uint8_t *, const void *);
    cuzk_status (*from_dec)(void *, const char *, cuzk_error *);
    size_t (*to_dec)(char *, size_t, const void *);
    const uint64_t *one, *r2, *root;
    uint64_t n0;
    unsigned s, nqr;
} field_ops;


static void to_mpz(mpz_t r, const uint64_t *l, size_t n) {
    mpz_import(r, n, -1, sizeof(uint64_t), 0, 0, l);
}

static void from_mpz(uint64_t *l, const mpz_t v, size_t n) {
    memset(l, 0, n * sizeof *l);
    mpz_export(l, NULL, -1, sizeof(uint64_t), 0, 0, v);
}

/* Draw a random element: returns its plain value in |m| and Montgomery form in |e|. */
static void draw(const field_ops *f, mpz_t m, uint64_t *e) {
    uint64_t plain[8];
    tu_rand_below(plain, f->p, f->n);
    to_mpz(m, plain, f->n);
    f->to_mont(e, plain);
}

static int equals(const field_ops *f, const uint64_t *e, const mpz_t want) {
    uint64_t plain[8];
    mpz_t got;
    f->from_mont(plain, e);
    mpz_init(got);
    to_mpz(got, plain, f->n);
    int ok = mpz_cmp(got, want) == 0;
    mpz_clear(got);
    return ok;
}

static void test_constants(const field_ops *f) {
    mpz_t p, R, t, u;
    mpz_inits(p, R, t, u, NULL);
    to_mpz(p, f->p, f->n);
    CHECK(mpz_probab_prime_p(p, 40) > 0, "%s modulus is prime", f->name);
    CHECK(!(f->p[f->n - 1] >> 63), "%s modulus leaves the top bit free", f->name);
    mpz_set_ui(R, 1);
    mpz_mul_2exp(R, R, 64 * f->n);
    mpz_mod(t, R, p);
    to_mpz(u, f->one, f->n);
    CHECK(mpz_cmp(t, u) == 0, "%s R mod p", f->name);
    mpz_mul(t, R, R);
    mpz_mod(t, t, p);
    to_mpz(u, f->r2, f->n);
    CHECK(mpz_cmp(t, u) == 0, "%s R^2 mod p", f->name);
    CHECK((uint64_t)(f->n0 * f->p[0]) == UINT64_MAX, "%s n0 * p = -1 mod 2^64", f->name);
    /* 2-adicity and the root of unity: nqr^t has order exactly 2^S */
    mpz_sub_ui(t, p, 1);
    unsigned s = (unsigned)mpz_scan1(t, 0);
    CHECK(s == f->s, "%s two-adicity %u", f->name, s);
    mpz_set_ui(u, f->nqr);
    CHECK(mpz_legendre(u, p) == -1, "%s nqr is a non-residue", f->name);
    for (unsigned z = 2; z < f->nqr; z++) {
        mpz_set_ui(u, z);
        CHECK(mpz_legendre(u, p) == 1, "%s nqr is the smallest non-residue", f->name);
    }
    mpz_tdiv_q_2exp(t, t, s);
    mpz_set_ui(u, f->nqr);
    mpz_powm(u, u, t, p); /* root, plain */
    CHECK(equals(f, f->root, u), "%s root of unity = nqr^t", f->name);
    for (unsigned i = 0; i + 1 < s; i++)
        mpz_powm_ui(u, u, 2, p);
    mpz_sub_ui(t, p, 1);
    CHECK(mpz_cmp(u, t) == 0, "%s root^(2^(S-1)) = -1", f->name);
    mpz_clears(p, R, t, u, NULL);
}

static void test_ops(const field_ops *f, unsigned iters) {
    mpz_t p, a, b, w, e;
    uint64_t ea[8], eb[8], er[8], ex[8], plain[8];
    mpz_inits(p, a, b, w, e, NULL);
    to_mpz(p, f->p, f->n);
    for (unsigned it = 0; it < iters; it++) {
        draw(f, a, ea);
        draw(f, b, eb);
        f->add(er, ea, eb);
        mpz_add(w, a, b), mpz_mod(w, w, p);
        CHECK(equals(f, er, w), "%s add", f->name);
        f->sub(er, ea, eb);
        mpz_sub(w, a, b), mpz_mod(w, w, p);
        CHECK(equals(f, er, w), "%s sub", f->name);
        f->mul(er, ea, eb);
        mpz_mul(w, a, b), mpz_mod(w, w, p);
        CHECK(equals(f, er, w), "%s mul", f->name);
        memcpy(ex, ea, sizeof ex);
        f->mul(ex, ex, ex); /* aliasing */
        f->sqr(er, ea);
        mpz_mul(w, a, a), mpz_mod(w, w, p);
        CHECK(equals(f, er, w) && equals(f, ex, w), "%s sqr", f->name);
        f->neg(er, ea);
        mpz_neg(w, a), mpz_mod(w, w, p);
        CHECK(equals(f, er, w), "%s neg", f->name);
        f->dbl(er, ea);
        mpz_add(w, a, a), mpz_mod(w, w, p);
        CHECK(equals(f, er, w), "%s dbl", f->name);
        if (mpz_sgn(a) != 0)
            mpz_invert(w, a, p);
        else
            mpz_set_ui(w, 0);
        f->inv_var(er, ea);
        CHECK(equals(f, er, w), "%s inv_var", f->name);
        if (it % 8 == 0) {
            f->inv(er, ea);
            CHECK(equals(f, er, w), "%s inv", f->name);
        }
        /* pow with a random 2-limb exponent */
        uint64_t ex2[2] = {tu_rand64(), tu_rand64() >> (it % 64)};
        f->pow(er, ea, ex2, 2);
        to_mpz(e, ex2, 2);
        mpz_powm(w, a, e, p);
        CHECK(equals(f, er, w), "%s pow", f->name);
        int leg = f->legendre(ea);
        CHECK(leg == mpz_legendre(a, p), "%s legendre", f->name);
        if (it % 4 == 0) {
            int ok = f->sqrt(er, ea);
            CHECK(ok == (leg >= 0), "%s sqrt existence", f->name);
            if (ok) {
                f->sqr(ex, er);
                CHECK(memcmp(ex, ea, f->n * 8) == 0, "%s sqrt squares back", f->name);
            }
            f->sqr(ex, ea); /* every square has a root */
            CHECK(f->sqrt(er, ex) == 1, "%s sqrt of a square", f->name);
        }
        /* bytes and decimal round trips */
        uint8_t le[64], be[64];
        f->to_bytes_le(le, ea);
        f->to_bytes_be(be, ea);
        from_mpz(plain, a, f->n);
        int bytes_ok = 1;
        for (size_t i = 0; i < 8 * f->n; i++) {
            uint8_t byte = (uint8_t)(plain[i / 8] >> (8 * (i % 8)));
            bytes_ok &= le[i] == byte && be[8 * f->n - 1 - i] == byte;
        }
        CHECK(bytes_ok, "%s to_bytes", f->name);
        CHECK(f->from_bytes_le(ex, le, NULL) == CUZK_OK && memcmp(ex, ea, 8 * f->n) == 0,
              "%s from_bytes_le", f->name);
        CHECK(f->from_bytes_be(ex, be, NULL) == CUZK_OK && memcmp(ex, ea, 8 * f->n) == 0,
              "%s from_bytes_be", f->name);
        char dec[256], *gd = mpz_get_str(NULL, 10, a);
        size_t len = f->to_dec(dec, sizeof dec, ea);
        CHECK(strcmp(dec, gd) == 0 && len == strlen(gd), "%s to_dec %s vs %s", f->name, dec, gd);
        CHECK(f->from_dec(ex, gd, NULL) == CUZK_OK && memcmp(ex, ea, 8 * f->n) == 0,
              "%s from_dec", f->name);
        free(gd);
    }
    mpz_clears(p, a, b, w, e, NULL);
}

static void test_batch_and_rejects(const field_ops *f) {
    enum { N = 37 };
    uint64_t in[N][8], out[N][8], one_inv[8];
    mpz_t a, p, w;
    mpz_inits(a, p, w, NULL);
    to_mpz(p, f->p, f->n);
    for (int i = 0; i < N; i++) {
        if (i % 7 == 3)
            memset(in[i], 0, sizeof in[i]);
        else
            draw(f, a, in[i]);
    }
    /* batch_inv takes packed elements of n limbs */
    uint64_t packed_in[N * 8], packed_out[N * 8];
    for (int i = 0; i < N; i++)
        memcpy(packed_in + i * f->n, in[i], 8 * f->n);
    f->batch_inv(packed_out, packed_in, N);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        memcpy(out[i], packed_out + i * f->n, 8 * f->n);
        f->inv_var(one_inv, in[i]);
        ok &= memcmp(one_inv, out[i], 8 * f->n) == 0;
    }
    CHECK(ok, "%s batch_inv matches inv_var (zeros included)", f->name);

    /* decoders reject p, p + 1, 2^(64n)-1 and malformed text */
    uint8_t le[64], be[64];
    uint64_t v[8], e[8];
    memcpy(v, f->p, 8 * f->n);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < 8 * f->n; i++) {
            le[i] = (uint8_t)(v[i / 8] >> (8 * (i % 8)));
            be[8 * f->n - 1 - i] = le[i];
        }
        cuzk_error err;
        CHECK(f->from_bytes_le(e, le, &err) == CUZK_ERANGE && err.msg[0], "%s rejects p+%d LE", f->name, k);
        CHECK(f->from_bytes_be(e, be, &err) == CUZK_ERANGE, "%s rejects p+%d BE", f->name, k);
        v[0]++;
    }
    memset(le, 0xff, sizeof le);
    CHECK(f->from_bytes_le(e, le, NULL) == CUZK_ERANGE, "%s rejects all-ones", f->name);
    char *ps = mpz_get_str(NULL, 10, p);
    CHECK(f->from_dec(e, ps, NULL) == CUZK_ERANGE, "%s from_dec rejects p", f->name);
    free(ps);
    CHECK(f->from_dec(e, "", NULL) == CUZK_EFORMAT, "%s from_dec rejects empty", f->name);
    CHECK(f->from_dec(e, "12a", NULL) == CUZK_EFORMAT, "%s from_dec rejects letters", f->name);
    CHECK(f->from_dec(e, "-1", NULL) == CUZK_EFORMAT, "%s from_dec rejects sign", f->name);
    CHECK(f->from_dec(e, "1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", NULL) == CUZK_ERANGE,
          "%s from_dec rejects huge", f->name);
    CHECK(f->from_dec(e, "0", NULL) == CUZK_OK && f->legendre(e) == 0, "%s from_dec 0", f->name);
    mpz_clears(a, p, w, NULL);
}

static void field_tests(const field_ops *f) {
    test_constants(f);
    test_ops(f, tu_iters(2000));
    test_batch_and_rejects(f);
}

#define TEST_CURVE bls12_381
#define TEST_CONSTS BLS12_381 /* prefix of its constants in field/consts_gen.h */
#define TEST_ADICITY BLS12_381_FR_TWO_ADICITY
/* ffjavascript's root of the largest domain (5^t), docs/FILES.md */
#define TEST_ROOT_HEX "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"
#include __FILE__
#undef TEST_CURVE
#undef TEST_CONSTS
#undef TEST_ADICITY
#undef TEST_ROOT_HEX

#define TEST_CURVE bn254
#define TEST_CONSTS BN254
#define TEST_ADICITY BN254_FR_TWO_ADICITY
#define TEST_ROOT_HEX "2a3c09f0a58a7e8500e0a7eb8ef62abc402d111e41112ed49bd61b6e725b19f0"
#include __FILE__
#undef TEST_CURVE
#undef TEST_CONSTS
#undef TEST_ADICITY
#undef TEST_ROOT_HEX

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_field");
    tu_run_curves(curves, TU_COUNT(curves));
    return tu_finish();
}

#elif !defined(TEST_FIELD) /* ---- per curve (TEST_CURVE): its fields, roots - */

#define TEST_FIELD fp
#define TEST_FIELD_CONSTS FP
#include __FILE__
#undef TEST_FIELD
#undef TEST_FIELD_CONSTS
#define TEST_FIELD fr
#define TEST_FIELD_CONSTS FR
#include __FILE__
#undef TEST_FIELD
#undef TEST_FIELD_CONSTS

/* Roots of unity of Fr: order exactly 2^k up to the two-adicity, refused
 * beyond, and the largest one equal to ffjavascript's. */
static void TC(test_roots)(void) {
    TC(fr) w, t;
    for (unsigned k = 0; k <= TEST_ADICITY; k++) {
        CHECK(TC(fr_root_of_unity)(&w, k) == CUZK_OK, "%s root %u", TEST_CURVE_NAME, k);
        t = w;
        for (unsigned i = 0; i < k; i++)
            TC(fr_sqr)(&t, &t);
        CHECK(TC(fr_is_one)(&t), "%s root 2^%u has order dividing 2^%u", TEST_CURVE_NAME, k, k);
        if (k > 0) {
            t = w;
            for (unsigned i = 0; i + 1 < k; i++)
                TC(fr_sqr)(&t, &t);
            CHECK(!TC(fr_is_one)(&t), "%s root 2^%u is primitive", TEST_CURVE_NAME, k);
        }
    }
    CHECK(TC(fr_root_of_unity)(&w, TEST_ADICITY + 1) == CUZK_ERANGE, "%s root 2^%u refused",
          TEST_CURVE_NAME, TEST_ADICITY + 1);
    char dec[100];
    TC(fr_root_of_unity)(&w, TEST_ADICITY);
    TC(fr_to_dec)(dec, sizeof dec, &w);
    mpz_t z;
    mpz_init_set_str(z, TEST_ROOT_HEX, 16);
    char *zd = mpz_get_str(NULL, 10, z);
    CHECK(strcmp(zd, dec) == 0, "%s 2^%u root matches ffjavascript", TEST_CURVE_NAME,
          TEST_ADICITY);
    free(zd);
    mpz_clear(z);
}

static void TC(tests)(const tu_curve *c) {
    (void)c;
    field_tests(&TC(fp_ops));
    field_tests(&TC(fr_ops));
    TC(test_roots)();
}

#else /* ---- per field (TEST_CURVE, TEST_FIELD) --------------------------- */

#define TF(x) TC(CUZK_PASTE(TEST_FIELD, x)) /* bls12_381_fp_add, ... */
#define TK(x) CUZK_PASTE(CUZK_PASTE(TEST_CONSTS, TEST_FIELD_CONSTS), x) /* BLS12_381_FP_ONE */

static const uint64_t TF(test_one)[] = TK(ONE), TF(test_r2)[] = TK(R2),
                      TF(test_root)[] = TK(ROOT_MONT);

static const field_ops TF(ops) = {
    TU_STR(TC(TEST_FIELD)), TF(LIMBS), TF(modulus), (void *)TF(add), (void *)TF(sub),
    (void *)TF(mul), (void *)TF(sqr), (void *)TF(neg), (void *)TF(dbl),
    (void *)TF(inv), (void *)TF(inv_var), (void *)TF(batch_inv),
    (void *)TF(pow), (void *)TF(sqrt), (void *)TF(legendre),
    (void *)TF(from_mont), (void *)TF(to_mont), (void *)TF(from_bytes_le),
    (void *)TF(from_bytes_be), (void *)TF(to_bytes_le),
    (void *)TF(to_bytes_be), (void *)TF(from_dec), (void *)TF(to_dec),
    TF(test_one), TF(test_r2), TF(test_root), TK(N0), TK(S), TK(NQR)};

#undef TF
#undef TK

#endif
