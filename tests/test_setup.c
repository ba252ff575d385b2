/*
 * INSECURE development setup (groth16/devtools/setup.h), both curves.
 *
 * - Lagrange values: against the product formula prod (tau - w^m)/(w^k - w^m)
 *   at every domain size up to 2^7; sum_k p(w^k) L_k(tau) == p(tau) for
 *   random polynomials of degree < N; the odd-point/scaled variant equals
 *   scale times the odd entries; pooled == serial at 2^14; the root is
 *   5^((r-1)/N) (ffjavascript's) recomputed here; tau in the domain and
 *   oversized domains are rejected.
 * - Fixed-base multiplication against G_mul for window sizes 2..16 and
 *   scalars with carry edge cases (0, 1, r-1, 2^(w-1), 2^w - 1, bit runs).
 * - Keys of small synthetic circuits with a known seed: every point (A, B1,
 *   B2, IC, C, H, alpha1, beta1, beta2, gamma2, delta1, delta2) against
 *   [k]G computed with G_mul, where k comes from an independent O(n^2)
 *   evaluation of the QAP polynomials; the coefficient list; serial ==
 *   pooled; the .zkey round trip through the formats layer
 *   (cuzk_zkey_check_points with subgroup checks, cuzk_zkey_check_r1cs,
 *   every point and coefficient read back); prove with the key (in memory
 *   and loaded from the .zkey) and verify; wrong public input rejected.
 * - A 2^12 circuit (larger windows): random points spot-checked, prove and
 *   verify.
 * - The circom fixtures of tests/interop: counts and section 4 identical to
 *   the zkeys snarkjs made for the same r1cs; the fixture witnesses prove
 *   and verify with our dev keys.
 * - Curve-generic entry points (memory and files) agree with the per-curve
 *   ones; bad inputs (curve, zero alpha, tau = 1, too many publics) fail
 *   with the documented status.
 * Per-curve code is this file included again with TEST_CURVE defined
 * (tests/testutil.h), the template-by-include pattern of the library.
 */
#ifndef TEST_CURVE

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "groth16/prover/groth16.h"
#include "groth16/prover/key.h"
#include "groth16/formats/r1cs.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/zkey.h"
#include "cpu_prove.h"
#include "testutil.h"
#include "util/threadpool.h"

TU_GROTH16_PROVE_DEFINE(bls12_381)
TU_GROTH16_PROVE_DEFINE(bn254)

static cuzk_pool *g_pool;

static void test_generic(cuzk_curve c);

#define TEST_CURVE bls12_381
#define TEST_ID CUZK_CURVE_BLS12_381
#define TEST_OTHER CUZK_CURVE_BN254
#define TEST_ADICITY BLS12_381_FR_TWO_ADICITY
#include __FILE__
#undef TEST_CURVE
#undef TEST_ID
#undef TEST_OTHER
#undef TEST_ADICITY

#define TEST_CURVE bn254
#define TEST_ID CUZK_CURVE_BN254
#define TEST_OTHER CUZK_CURVE_BLS12_381
#define TEST_ADICITY BN254_FR_TWO_ADICITY
#include __FILE__
#undef TEST_CURVE
#undef TEST_ID
#undef TEST_OTHER
#undef TEST_ADICITY

static const tu_curve curves[] = {
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
};

/* The generic entry points agree with the per-curve ones, in memory and
 * through files. */
static void test_generic(cuzk_curve c) {
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, c);
    sp.log2_domain = 0, sp.n_constraints = 40, sp.seed = tu_rand64();
    char dir[] = "/tmp/cuzk-test-setup-XXXXXX", rp[256], zp[256];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(rp, sizeof rp, "%s/c.r1cs", dir);
    snprintf(zp, sizeof zp, "%s/c.zkey", dir);
    cuzk_error err = {0};
    cuzk_r1cs r;
    uint64_t seed = tu_rand64();
    uint8_t *m1 = NULL, *m2 = NULL, *f = NULL;
    size_t s1 = 0, s2 = 0;
    CHECK(cuzk_synth_write(rp, NULL, &sp, &err) == CUZK_OK, "synth_write: %s", err.msg);
    CHECK(cuzk_r1cs_read_file(&r, rp, &err) == CUZK_OK, "r1cs read: %s", err.msg);
    CHECK(cuzk_setup_dev_zkey_mem(&r, &seed, g_pool, &m1, &s1, &err) == CUZK_OK, "mem: %s",
          err.msg);
    if (c == CUZK_CURVE_BN254) {
        bn254_setup_toxic t;
        bn254_dev_key k;
        bn254_setup_toxic_draw(&t, &seed, NULL);
        if (bn254_setup_dev(&k, &r, &t, NULL, &err) == CUZK_OK)
            bn254_dev_key_write_mem(&k, &m2, &s2, &err);
        bn254_dev_key_free(&k);
    } else {
        bls12_381_setup_toxic t;
        bls12_381_dev_key k;
        bls12_381_setup_toxic_draw(&t, &seed, NULL);
        if (bls12_381_setup_dev(&k, &r, &t, NULL, &err) == CUZK_OK)
            bls12_381_dev_key_write_mem(&k, &m2, &s2, &err);
        bls12_381_dev_key_free(&k);
    }
    CHECK(m1 && m2 && s1 == s2 && !memcmp(m1, m2, s1), "generic and per-curve keys differ");
    CHECK(cuzk_setup_dev_write(rp, zp, &seed, g_pool, &err) == CUZK_OK, "write: %s", err.msg);
    FILE *fp = fopen(zp, "rb");
    f = malloc(s1 + 1);
    size_t got = fp && f ? fread(f, 1, s1 + 1, fp) : 0;
    if (fp)
        fclose(fp);
    CHECK(m1 && got == s1 && !memcmp(f, m1, s1), "zkey file differs from the memory image");
    /* A fresh (CSPRNG) key differs from the seeded one. */
    uint8_t *m3 = NULL;
    size_t s3 = 0;
    CHECK(cuzk_setup_dev_zkey_mem(&r, NULL, g_pool, &m3, &s3, &err) == CUZK_OK &&
              s3 == s1 && m1 && memcmp(m3, m1, s1),
          "random toxic waste gave the seeded key");
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.r1cs", dir);
    CHECK(cuzk_setup_dev_write(missing, zp, &seed, g_pool, &err) == CUZK_EIO, "missing r1cs");
    cuzk_r1cs_free(&r);
    free(m1), free(m2), free(m3), free(f);
    unlink(rp), unlink(zp), rmdir(dir);
}

/*
 * The circom fixtures (tests/interop/fixtures, made by snarkjs): our dev key
 * for each r1cs has exactly snarkjs's counts and section 4 bytes, and
 * proves the fixture witness with a proof our verifier accepts.
 */
static void test_fixtures(void) {
    static const char *curves[2] = {"bn128", "bls12381"};
    static const char *names[4] = {"multiplier", "many_public", "merkle", "poseidon_chain"};
    int seen = 0;
    for (int c = 0; c < 2; c++)
        for (int n = 0; n < 4; n++) {
            char base[1024], path[1100];
            snprintf(base, sizeof base, "%s/tests/interop/fixtures/%s/%s", tu_source_dir(),
                     curves[c], names[n]);
            cuzk_error err = {0};
            cuzk_r1cs r;
            cuzk_zkey ours, theirs;
            cuzk_wtns w;
            snprintf(path, sizeof path, "%s.r1cs", base);
            if (cuzk_r1cs_read_file(&r, path, &err) != CUZK_OK)
                continue; /* fixtures absent: reported below */
            seen++;
            uint8_t *buf = NULL;
            size_t size = 0;
            uint64_t seed = tu_rand64();
            int ok = cuzk_setup_dev_zkey_mem(&r, &seed, g_pool, &buf, &size, &err) == CUZK_OK;
            CHECK(ok, "%s: setup: %s", base, err.msg);
            snprintf(path, sizeof path, "%s.zkey", base);
            if (ok && cuzk_zkey_from_mem(&ours, buf, size, &err) == CUZK_OK) {
                if (cuzk_zkey_open(&theirs, path, &err) == CUZK_OK) {
                    CHECK(ours.n_vars == theirs.n_vars && ours.n_public == theirs.n_public &&
                              ours.domain_size == theirs.domain_size &&
                              ours.n_coefs == theirs.n_coefs &&
                              !memcmp(ours.coefs, theirs.coefs, (size_t)ours.n_coefs * 44),
                          "%s: counts or section 4 differ from snarkjs's zkey", base);
                    cuzk_zkey_close(&theirs);
                } else {
                    CHECK(0, "%s: %s", path, err.msg);
                }
                cuzk_key k;
                cuzk_proof pr;
                cuzk_vk vk;
                snprintf(path, sizeof path, "%s.wtns", base);
                if (cuzk_key_from_zkey(&k, &ours, &err) == CUZK_OK &&
                    cuzk_wtns_open(&w, path, &err) == CUZK_OK) {
                    size_t np = cuzk_key_n_public(&k);
                    cuzk_fr *pub = malloc((np + 1) * sizeof *pub);
                    cuzk_wtns_to_mont(&w, pub, 1, np, &err);
                    int proved = tu_key_prove(&k, &w, &pr, g_pool, NULL, &err) == CUZK_OK &&
                                 cuzk_key_vk(&k, &vk, &err) == CUZK_OK;
                    CHECK(proved, "%s: prove: %s", base, err.msg);
                    if (proved) {
                        CHECK(cuzk_vk_verify(&vk, pub, np, &pr, &err) == CUZK_OK,
                              "%s: proof with our dev key does not verify: %s", base, err.msg);
                        cuzk_vk_clear(&vk);
                    }
                    cuzk_wtns_close(&w);
                    free(pub);
                } else {
                    CHECK(0, "%s: %s", base, err.msg);
                }
                cuzk_key_free(&k);
                cuzk_zkey_close(&ours);
            }
            free(buf);
            cuzk_r1cs_free(&r);
        }
    if (!seen) {
        printf("test_setup: no interop fixtures under %s, fixture checks skipped\n",
               tu_source_dir());
        CHECK(!tu_require_all(), "CUZK_REQUIRE_ALL=1: the fixture checks may not be skipped");
    }
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_setup");
    cuzk_error err = {0};
    g_pool = cuzk_pool_create(3, &err); /* 3 threads: chunks split unevenly */
    CHECK(g_pool != NULL, "pool: %s", err.msg);
    tu_run_curves(curves, TU_COUNT(curves));
    test_fixtures();
    cuzk_pool_destroy(g_pool);
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

#define T(x) TC(x)
#define PN TEST_CURVE_NAME
#define FR T(fr)
#define G1A T(g1_affine)
#define G2A T(g2_affine)

static void T(rand_fr)(FR *x) {
    uint64_t l[4];
    tu_rand_below(l, T(fr_modulus), 4);
    T(fr_to_mont)(x, l);
}

static void T(fr_u64)(FR *x, uint64_t v) { T(fr_set_u64)(x, v); }

/* A random tau off every domain up to 2^15 points (rand_fr likes edge
 * values such as 1 and -1, which are domain points). */
static void T(rand_tau)(FR *tau) {
    FR t;
    do {
        T(rand_fr)(tau);
        T(fr_pow)(&t, tau, (uint64_t[]){1 << 15}, 1);
    } while (T(fr_is_one)(&t));
}

/* w_N = 5^((r-1)/N), recomputed from the modulus (ffjavascript's root). */
static void T(root)(FR *w, unsigned log_N) {
    uint64_t e[4];
    memcpy(e, T(fr_modulus), sizeof e);
    e[0] -= 1; /* r is odd */
    for (unsigned i = 0; i < log_N; i++) {
        for (int k = 0; k < 3; k++)
            e[k] = (e[k] >> 1) | (e[k + 1] << 63);
        e[3] >>= 1;
    }
    FR five;
    T(fr_u64)(&five, 5);
    T(fr_pow)(w, &five, e, 4);
}

/* out[k] = prod_{m != k} (x - w^m) / (w^k - w^m), k < N = 2^log_N. */
static void T(naive_lagrange)(FR *out, unsigned log_N, const FR *x) {
    size_t N = (size_t)1 << log_N;
    FR w, *pt = malloc(N * sizeof *pt);
    T(root)(&w, log_N);
    T(fr_set_one)(&pt[0]);
    for (size_t i = 1; i < N; i++)
        T(fr_mul)(&pt[i], &pt[i - 1], &w);
    for (size_t k = 0; k < N; k++) {
        FR num, den, t;
        T(fr_set_one)(&num);
        T(fr_set_one)(&den);
        for (size_t m = 0; m < N; m++) {
            if (m == k)
                continue;
            T(fr_sub)(&t, x, &pt[m]);
            T(fr_mul)(&num, &num, &t);
            T(fr_sub)(&t, &pt[k], &pt[m]);
            T(fr_mul)(&den, &den, &t);
        }
        T(fr_inv)(&den, &den);
        T(fr_mul)(&out[k], &num, &den);
    }
    free(pt);
}

static void T(horner)(FR *out, const FR *coef, size_t n, const FR *x) {
    T(fr_set_zero)(out);
    for (size_t i = n; i-- > 0;) {
        T(fr_mul)(out, out, x);
        T(fr_add)(out, out, &coef[i]);
    }
}

static void T(test_lagrange)(void) {
    cuzk_error err = {0};
    FR one;
    T(fr_set_one)(&one);
    for (unsigned log_N = 0; log_N <= 7; log_N++) {
        size_t N = (size_t)1 << log_N;
        FR tau, scale, w, wlib, *fast = malloc(N * sizeof *fast), *slow = malloc(N * sizeof *slow),
                             *odd = malloc(N * sizeof *odd), *poly = malloc(N * sizeof *poly);
        T(rand_tau)(&tau);
        T(rand_fr)(&scale);
        T(root)(&w, log_N);
        T(fr_root_of_unity)(&wlib, log_N);
        CHECK(T(fr_eq)(&w, &wlib), "%s: root of 2^%u is not 5^((r-1)/N)", PN, log_N);
        CHECK(T(setup_lagrange)(fast, N, log_N, 0, 1, &tau, &one, g_pool, &err) == CUZK_OK,
              "lagrange: %s", err.msg);
        T(naive_lagrange)(slow, log_N, &tau);
        int same = 1;
        for (size_t k = 0; k < N; k++)
            same &= T(fr_eq)(&fast[k], &slow[k]);
        CHECK(same, "%s: L_k(tau) differs from the product formula at 2^%u", PN, log_N);
        /* sum_k p(w^k) L_k(tau) = p(tau) for deg p < N */
        FR acc, x, t, want;
        for (size_t i = 0; i < N; i++)
            T(rand_fr)(&poly[i]);
        T(fr_set_zero)(&acc);
        T(fr_set_one)(&x);
        for (size_t k = 0; k < N; k++) {
            T(horner)(&t, poly, N, &x);
            T(fr_mul)(&t, &t, &fast[k]);
            T(fr_add)(&acc, &acc, &t);
            T(fr_mul)(&x, &x, &w);
        }
        T(horner)(&want, poly, N, &tau);
        CHECK(T(fr_eq)(&acc, &want), "%s: interpolation identity fails at 2^%u", PN, log_N);
        if (log_N >= 1) {
            CHECK(T(setup_lagrange)(odd, N / 2, log_N, 1, 2, &tau, &scale, g_pool, &err) ==
                      CUZK_OK,
                  "odd lagrange: %s", err.msg);
            same = 1;
            for (size_t i = 0; i < N / 2; i++) {
                T(fr_mul)(&t, &fast[2 * i + 1], &scale);
                same &= T(fr_eq)(&t, &odd[i]);
            }
            CHECK(same, "%s: odd points x scale differ at 2^%u", PN, log_N);
        }
        /* tau on the domain: w^(N-1) (and 1 for every N) */
        T(fr_pow)(&t, &w, (uint64_t[]){N - 1}, 1);
        CHECK(T(setup_lagrange)(fast, N, log_N, 0, 1, &t, &one, NULL, &err) == CUZK_EINVAL,
              "%s: tau in the domain accepted", PN);
        free(fast), free(slow), free(odd), free(poly);
    }
    FR tau, t;
    T(rand_tau)(&tau);
    CHECK(T(setup_lagrange)(&t, 1, TEST_ADICITY + 1, 0, 1, &tau, &tau, NULL, &err) == CUZK_ERANGE,
          "%s: oversized domain accepted", PN);
    /* Pooled chunks (2^14 with grain 4096 on 3 threads) == serial. */
    size_t N = 1 << 14;
    FR *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    T(setup_lagrange)(a, N, 14, 0, 1, &tau, &tau, g_pool, &err);
    T(setup_lagrange)(b, N, 14, 0, 1, &tau, &tau, NULL, &err);
    CHECK(!memcmp(a, b, N * sizeof *a), "%s: pooled Lagrange differs from serial", PN);
    /* one entry by the closed formula with a single inversion */
    size_t k = 12345;
    FR w, wk, num, den;
    T(root)(&w, 14);
    T(fr_pow)(&wk, &w, (uint64_t[]){k}, 1);
    T(fr_pow)(&num, &tau, (uint64_t[]){N}, 1);
    T(fr_set_one)(&t);
    T(fr_sub)(&num, &num, &t);
    T(fr_mul)(&num, &num, &wk);
    T(fr_mul)(&num, &num, &tau); /* scale */
    T(fr_sub)(&den, &tau, &wk);
    T(fr_u64)(&t, N);
    T(fr_mul)(&den, &den, &t);
    T(fr_inv)(&den, &den);
    T(fr_mul)(&num, &num, &den);
    CHECK(T(fr_eq)(&num, &a[k]), "%s: L_12345 at 2^14", PN);
    free(a), free(b);
}

static int T(g1_is)(const G1A *p, const FR *k) {
    G1A g, want;
    T(g1) j;
    T(g1_generator)(&g);
    T(g1_from_affine)(&j, &g);
    T(g1_mul)(&j, &j, k);
    T(g1_to_affine)(&want, &j);
    return T(g1_affine_eq)(p, &want);
}

static int T(g2_is)(const G2A *p, const FR *k) {
    G2A g, want;
    T(g2) j;
    T(g2_generator)(&g);
    T(g2_from_affine)(&j, &g);
    T(g2_mul)(&j, &j, k);
    T(g2_to_affine)(&want, &j);
    return T(g2_affine_eq)(p, &want);
}

static void T(test_fixed_base)(void) {
    enum { NK = 24 };
    FR k[NK];
    G1A o1[NK];
    G2A o2[NK];
    cuzk_error err = {0};
    uint64_t rm1[4];
    memcpy(rm1, T(fr_modulus), sizeof rm1);
    rm1[0] -= 1;
    const unsigned ws[] = {2, 3, 5, 8, 11, 13, 16, 0};
    for (unsigned wi = 0; wi < sizeof ws / sizeof ws[0]; wi++) {
        unsigned w = ws[wi], ww = w ? w : 7;
        T(fr_set_zero)(&k[0]);
        T(fr_set_one)(&k[1]);
        T(fr_to_mont)(&k[2], rm1);
        T(fr_u64)(&k[3], 1ULL << (ww - 1));       /* digit exactly +2^(w-1) */
        T(fr_u64)(&k[4], (1ULL << ww) - 1);       /* digit -1 and a carry */
        T(fr_u64)(&k[5], (1ULL << (ww - 1)) + 1); /* digit -(2^(w-1) - 1) */
        for (int i = 6; i < NK; i++)
            T(rand_fr)(&k[i]);
        CHECK(T(setup_g1_mul_gen)(o1, k, NK, w, g_pool, &err) == CUZK_OK, "g1 fb: %s", err.msg);
        int bad = 0;
        for (int i = 0; i < NK; i++)
            bad += !T(g1_is)(&o1[i], &k[i]);
        CHECK(bad == 0, "%s: %d G1 fixed-base products wrong at w = %u", PN, bad, w);
        if (w == 16)
            continue; /* the 2^19-point G2 table is slow; G1 covers w = 16 */
        CHECK(T(setup_g2_mul_gen)(o2, k, NK, w, g_pool, &err) == CUZK_OK, "g2 fb: %s", err.msg);
        bad = 0;
        for (int i = 0; i < NK; i++)
            bad += !T(g2_is)(&o2[i], &k[i]);
        CHECK(bad == 0, "%s: %d G2 fixed-base products wrong at w = %u", PN, bad, w);
    }
    CHECK(T(setup_g1_mul_gen)(o1, k, 1, 1, NULL, &err) == CUZK_EINVAL &&
              T(setup_g1_mul_gen)(o1, k, 1, 17, NULL, &err) == CUZK_EINVAL,
          "%s: bad window accepted", PN);
}

/* u, v, w of every signal from scratch: O(n^2) Lagrange, rows of r1cs. */
static void T(naive_qap)(const cuzk_r1cs *r, const FR *tau, unsigned log_n, FR *u, FR *v,
                         FR *w) {
    size_t n = (size_t)1 << log_n;
    FR *L = malloc(n * sizeof *L);
    T(naive_lagrange)(L, log_n, tau);
    memset(u, 0, r->n_wires * sizeof *u);
    memset(v, 0, r->n_wires * sizeof *v);
    memset(w, 0, r->n_wires * sizeof *w);
    const cuzk_r1cs_matrix *m[3] = {&r->a, &r->b, &r->c};
    FR *dst[3] = {u, v, w};
    for (uint32_t j = 0; j < r->n_constraints; j++)
        for (int x = 0; x < 3; x++)
            for (uint64_t k = m[x]->row_ptr[j]; k < m[x]->row_ptr[j + 1]; k++) {
                FR t;
                T(fr_mul)(&t, &m[x]->coef[k].TEST_CURVE, &L[j]);
                T(fr_add)(&dst[x][m[x]->col[k]], &dst[x][m[x]->col[k]], &t);
            }
    for (uint32_t i = 0; i <= cuzk_r1cs_n_public(r); i++)
        T(fr_add)(&u[i], &u[i], &L[r->n_constraints + i]);
    free(L);
}

/* Is wire |s| in a compact array with bitmap |bits| (NULL: all are)? */
static int T(has)(const uint64_t *bits, size_t s) {
    return !bits || (bits[s / 64] >> (s % 64) & 1);
}

/* Every point of |key| against G_mul of independently computed scalars;
 * a wire left out of A (B) must have a zero scalar u (v) and a wire kept
 * a point that is its scalar's.  The bitmaps are the r1cs's columns. */
static void T(check_points)(const T(dev_key) *key, const cuzk_r1cs *r,
                            const T(setup_toxic) *t, const char *what) {
    const T(groth16_pk) *pk = &key->pk;
    uint32_t n_pub = cuzk_r1cs_n_public(r), nv = r->n_wires;
    unsigned log_n = 0;
    while ((1ULL << log_n) < (uint64_t)r->n_constraints + n_pub + 1)
        log_n++;
    CHECK(pk->log_n == log_n && pk->n_vars == nv && pk->n_public == n_pub, "%s: sizes", what);
    if (pk->log_n != log_n)
        return;
    size_t n = (size_t)1 << log_n;
    FR *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    FR *L2 = malloc(2 * n * sizeof *L2), dinv, kk, tmp;
    T(naive_qap)(r, &t->tau, log_n, u, v, w);
    T(naive_lagrange)(L2, log_n + 1, &t->tau);
    T(fr_inv)(&dinv, &t->delta);
    int bad_a = 0, bad_b1 = 0, bad_b2 = 0, bad_k = 0, bad_h = 0, bad_bits = 0;
    uint8_t *in_a = calloc(nv, 1), *in_b = calloc(nv, 1);
    for (uint64_t k = 0; k < r->a.nnz; k++)
        in_a[r->a.col[k]] = 1;
    for (uint64_t k = 0; k < r->b.nnz; k++)
        in_b[r->b.col[k]] = 1;
    for (uint32_t s = 0; s <= n_pub; s++)
        in_a[s] = 1;
    size_t ia = 0, ib = 0;
    for (uint32_t s = 0; s < nv; s++) {
        int ha = T(has)(pk->a_density, s), hb = T(has)(pk->b_density, s);
        bad_bits += (pk->a_density && ha != in_a[s]) || (pk->b_density && hb != in_b[s]);
        if (ha)
            bad_a += ia >= pk->n_a || !T(g1_is)(&pk->a[ia++], &u[s]);
        else
            bad_a += !T(fr_is_zero)(&u[s]);
        if (hb) {
            bad_b1 += ib >= pk->n_b || !T(g1_is)(&pk->b1[ib], &v[s]);
            bad_b2 += ib >= pk->n_b || !T(g2_is)(&pk->b2[ib], &v[s]);
            ib++;
        } else {
            bad_b1 += !T(fr_is_zero)(&v[s]);
        }
        T(fr_mul)(&kk, &t->beta, &u[s]);
        T(fr_mul)(&tmp, &t->alpha, &v[s]);
        T(fr_add)(&kk, &kk, &tmp);
        T(fr_add)(&kk, &kk, &w[s]);
        if (s <= n_pub) {
            bad_k += !T(g1_is)(&pk->ic[s], &kk);
        } else {
            T(fr_mul)(&kk, &kk, &dinv);
            bad_k += !T(g1_is)(&pk->c[s - n_pub - 1], &kk);
        }
    }
    for (size_t i = 0; i < n; i++) {
        T(fr_mul)(&kk, &L2[2 * i + 1], &dinv);
        bad_h += !T(g1_is)(&pk->h[i], &kk);
    }
    CHECK(!bad_a && !bad_b1 && !bad_b2 && !bad_k && !bad_h && ia == pk->n_a && ib == pk->n_b,
          "%s: wrong points: A %d, B1 %d, B2 %d, IC/C %d, H %d (%zu of %u A, %zu of %u B)",
          what, bad_a, bad_b1, bad_b2, bad_k, bad_h, ia, pk->n_a, ib, pk->n_b);
    CHECK(bad_bits == 0, "%s: %d wires with a density bit that is not their column's", what,
          bad_bits);
    free(in_a), free(in_b);
    G2A g2;
    T(g2_generator)(&g2);
    CHECK(T(g1_is)(&pk->alpha1, &t->alpha) && T(g1_is)(&pk->beta1, &t->beta) &&
              T(g1_is)(&pk->delta1, &t->delta) && T(g2_is)(&pk->beta2, &t->beta) &&
              T(g2_is)(&pk->delta2, &t->delta) && T(g2_affine_eq)(&pk->gamma2, &g2),
          "%s: header points", what);
    /* Wires never in A resp. B have no point: the check above covers
     * them through their zero scalars. */
    free(u), free(v), free(w), free(L2);
}

static void T(check_coefs)(const T(dev_key) *key, const cuzk_r1cs *r, const char *what) {
    uint32_t n_pub = cuzk_r1cs_n_public(r);
    size_t want = r->a.nnz + r->b.nnz + n_pub + 1, i = 0;
    CHECK(key->pk.n_coefs == want, "%s: %zu coefficients, want %zu", what, key->pk.n_coefs, want);
    if (key->pk.n_coefs != want)
        return;
    int bad = 0;
    FR one;
    T(fr_set_one)(&one);
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (uint64_t k = r->a.row_ptr[j]; k < r->a.row_ptr[j + 1]; k++, i++)
            bad += key->coefs[i].matrix != 0 || key->coefs[i].row != j ||
                   key->coefs[i].signal != r->a.col[k] ||
                   !T(fr_eq)(&key->coefs[i].value.TEST_CURVE, &r->a.coef[k].TEST_CURVE);
        for (uint64_t k = r->b.row_ptr[j]; k < r->b.row_ptr[j + 1]; k++, i++)
            bad += key->coefs[i].matrix != 1 || key->coefs[i].row != j ||
                   key->coefs[i].signal != r->b.col[k] ||
                   !T(fr_eq)(&key->coefs[i].value.TEST_CURVE, &r->b.coef[k].TEST_CURVE);
    }
    for (uint32_t s = 0; s <= n_pub; s++, i++)
        bad += key->coefs[i].matrix != 0 || key->coefs[i].row != r->n_constraints + s ||
               key->coefs[i].signal != s || !T(fr_eq)(&key->coefs[i].value.TEST_CURVE, &one);
    CHECK(bad == 0, "%s: %d coefficients differ from the r1cs", what, bad);
}

/* Prove with |pk| for the Montgomery witness |wm| and verify; a changed
 * public input must be rejected. */
static void T(prove_verify)(const T(groth16_pk) *pk, const cuzk_fr *wm, const char *what) {
    cuzk_error err = {0};
    size_t nv = pk->n_vars;
    FR *plain = malloc(nv * sizeof *plain), *pub = malloc((pk->n_public + 1) * sizeof *pub);
    for (size_t i = 0; i < nv; i++)
        T(fr_from_mont)(plain[i].l, &wm[i].TEST_CURVE);
    for (size_t i = 0; i < pk->n_public; i++)
        pub[i] = wm[1 + i].TEST_CURVE;
    T(groth16_proof) pr;
    T(groth16_vk) vk = {0};
    cuzk_status st = T(tu_groth16_prove)(&pr, pk, plain, nv, NULL, NULL, g_pool, NULL, &err);
    CHECK(st == CUZK_OK, "%s: prove: %s", what, err.msg);
    if (st == CUZK_OK && T(groth16_vk_from_pk)(&vk, pk, &err) == CUZK_OK) {
        st = T(groth16_verify)(&vk, pub, pk->n_public, &pr, &err);
        CHECK(st == CUZK_OK, "%s: our proof does not verify: %s", what, err.msg);
        if (pk->n_public > 0) {
            FR one;
            T(fr_set_one)(&one);
            T(fr_add)(&pub[0], &pub[0], &one);
            CHECK(T(groth16_verify)(&vk, pub, pk->n_public, &pr, &err) == CUZK_EVERIFY,
                  "%s: wrong public input accepted", what);
        }
    }
    T(groth16_vk_free)(&vk);
    free(plain), free(pub);
}

/* Write, read back through the formats layer, compare, prove from it. */
static void T(check_zkey)(const T(dev_key) *key, const cuzk_r1cs *r, const cuzk_fr *wm,
                          const char *what) {
    cuzk_error err = {0};
    uint8_t *buf = NULL;
    size_t size = 0;
    cuzk_zkey z;
    cuzk_status st = T(dev_key_write_mem)(key, &buf, &size, &err);
    CHECK(st == CUZK_OK, "%s: write: %s", what, err.msg);
    if (st != CUZK_OK)
        return;
    st = cuzk_zkey_from_mem(&z, buf, size, &err);
    CHECK(st == CUZK_OK, "%s: zkey does not open: %s", what, err.msg);
    if (st != CUZK_OK) {
        free(buf);
        return;
    }
    const T(groth16_pk) *pk = &key->pk;
    CHECK(cuzk_zkey_check_points(&z, 1, &err) == CUZK_OK, "%s: points: %s", what, err.msg);
    CHECK(cuzk_zkey_check_r1cs(&z, r, &err) == CUZK_OK, "%s: zkey vs r1cs: %s", what, err.msg);
    CHECK(z.curve == TEST_ID && z.n_vars == pk->n_vars && z.n_public == pk->n_public &&
              z.log_domain_size == pk->log_n && z.n_coefs == pk->n_coefs,
          "%s: zkey header", what);
    CHECK(!memcmp(&z.vk.TEST_CURVE.alpha1, &pk->alpha1, sizeof pk->alpha1) &&
              !memcmp(&z.vk.TEST_CURVE.delta2, &pk->delta2, sizeof pk->delta2) &&
              !memcmp(&z.vk.TEST_CURVE.gamma2, &pk->gamma2, sizeof pk->gamma2),
          "%s: zkey header points", what);
    cuzk_key k;
    st = cuzk_key_from_zkey(&k, &z, &err);
    CHECK(st == CUZK_OK, "%s: key load: %s", what, err.msg);
    if (st == CUZK_OK) {
        const T(groth16_pk) *q = &k.pk.TEST_CURVE;
        size_t n = (size_t)1 << pk->log_n, nv = pk->n_vars, npub = pk->n_public;
        /* loaded compact again: the same bitmaps (none of the dev key's
         * kept points is infinity in these circuits) and points */
        size_t words = (nv + 63) / 64;
        CHECK(q->n_a == pk->n_a && q->n_b == pk->n_b &&
                  !q->a_density == !pk->a_density && !q->b_density == !pk->b_density &&
                  (!q->a_density || !memcmp(q->a_density, pk->a_density, words * 8)) &&
                  (!q->b_density || !memcmp(q->b_density, pk->b_density, words * 8)),
              "%s: density read back differs (A %u/%u, B %u/%u)", what, q->n_a, pk->n_a, q->n_b,
              pk->n_b);
        size_t na = q->n_a < pk->n_a ? q->n_a : pk->n_a, nb = q->n_b < pk->n_b ? q->n_b : pk->n_b;
        CHECK(!memcmp(q->a, pk->a, na * sizeof *q->a) && !memcmp(q->b1, pk->b1, nb * sizeof *q->b1) &&
                  !memcmp(q->b2, pk->b2, nb * sizeof *q->b2) &&
                  !memcmp(q->ic, pk->ic, (npub + 1) * sizeof *q->ic) &&
                  !memcmp(q->c, pk->c, (nv - npub - 1) * sizeof *q->c) &&
                  !memcmp(q->h, pk->h, n * sizeof *q->h),
              "%s: points read back differ", what);
        int bad = 0;
        for (size_t i = 0; i < pk->n_coefs; i++)
            bad += q->coefs[i].matrix != pk->coefs[i].matrix || q->coefs[i].row != pk->coefs[i].row ||
                   q->coefs[i].signal != pk->coefs[i].signal ||
                   !T(fr_eq)(&q->coefs[i].value.TEST_CURVE, &pk->coefs[i].value.TEST_CURVE);
        CHECK(bad == 0, "%s: %d coefficients read back differ", what, bad);
        char w2[160];
        snprintf(w2, sizeof w2, "%s (loaded from zkey)", what);
        T(prove_verify)(q, wm, w2);
        cuzk_key_free(&k);
    }
    cuzk_zkey_close(&z);
    free(buf);
}

static void T(test_small_key)(uint32_t n_constraints, uint32_t pub_out, uint32_t pub_in,
                              double bool_share) {
    char what[128];
    snprintf(what, sizeof what, "%s %u constraints, %u+%u public", PN, n_constraints, pub_out,
             pub_in);
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, TEST_ID);
    sp.log2_domain = 0, sp.n_constraints = n_constraints;
    sp.n_pub_out = pub_out, sp.n_pub_in = pub_in, sp.bool_share = bool_share;
    sp.seed = tu_rand64();
    cuzk_r1cs r;
    cuzk_fr *wm;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(&sp, &r, &wm, &err) != CUZK_OK) {
        CHECK(0, "%s: synth: %s", what, err.msg);
        return;
    }
    uint64_t seed = tu_rand64();
    T(setup_toxic) t, t2;
    T(dev_key) key, key2;
    CHECK(T(setup_toxic_draw)(&t, &seed, &err) == CUZK_OK, "draw: %s", err.msg);
    T(setup_toxic_draw)(&t2, &seed, &err);
    CHECK(!memcmp(&t, &t2, sizeof t), "%s: seeded toxic waste not reproducible", what);
    cuzk_status st = T(setup_dev)(&key, &r, &t, g_pool, &err);
    CHECK(st == CUZK_OK, "%s: setup: %s", what, err.msg);
    if (st == CUZK_OK) {
        T(check_points)(&key, &r, &t, what);
        T(check_coefs)(&key, &r, what);
        /* serial == pooled, byte for byte */
        if (T(setup_dev)(&key2, &r, &t, NULL, &err) == CUZK_OK) {
            uint8_t *b1 = NULL, *b2 = NULL;
            size_t s1 = 0, s2 = 0;
            T(dev_key_write_mem)(&key, &b1, &s1, &err);
            T(dev_key_write_mem)(&key2, &b2, &s2, &err);
            CHECK(b1 && b2 && s1 == s2 && !memcmp(b1, b2, s1), "%s: serial != pooled", what);
            free(b1), free(b2);
        }
        T(dev_key_free)(&key2);
        T(prove_verify)(&key.pk, wm, what);
        T(check_zkey)(&key, &r, wm, what);
    }
    T(dev_key_free)(&key);
    free(wm);
    cuzk_r1cs_free(&r);
}

/* 2^12 domain: larger windows; random points spot-checked with scalars
 * from the (tested) fast Lagrange values; prove and verify. */
static void T(test_larger_key)(void) {
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, TEST_ID);
    sp.log2_domain = 12, sp.seed = tu_rand64();
    cuzk_r1cs r;
    cuzk_fr *wm;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(&sp, &r, &wm, &err) != CUZK_OK) {
        CHECK(0, "synth: %s", err.msg);
        return;
    }
    T(setup_toxic) t;
    T(dev_key) key;
    T(setup_toxic_draw)(&t, NULL, &err);
    cuzk_status st = T(setup_dev)(&key, &r, &t, g_pool, &err);
    CHECK(st == CUZK_OK && key.pk.log_n == 12, "%s 2^12 setup: %s", PN, err.msg);
    if (st == CUZK_OK) {
        size_t n = 4096, nv = r.n_wires;
        FR one, dinv, *L = malloc(n * sizeof *L), *H = malloc(n * sizeof *H);
        FR *u = calloc(nv, sizeof *u), *v = calloc(nv, sizeof *v);
        T(fr_set_one)(&one);
        T(fr_inv)(&dinv, &t.delta);
        T(setup_lagrange)(L, n, 12, 0, 1, &t.tau, &one, NULL, &err);
        T(setup_lagrange)(H, n, 13, 1, 2, &t.tau, &dinv, NULL, &err);
        for (uint32_t j = 0; j < r.n_constraints; j++) {
            for (uint64_t k = r.a.row_ptr[j]; k < r.a.row_ptr[j + 1]; k++) {
                FR x;
                T(fr_mul)(&x, &r.a.coef[k].TEST_CURVE, &L[j]);
                T(fr_add)(&u[r.a.col[k]], &u[r.a.col[k]], &x);
            }
            for (uint64_t k = r.b.row_ptr[j]; k < r.b.row_ptr[j + 1]; k++) {
                FR x;
                T(fr_mul)(&x, &r.b.coef[k].TEST_CURVE, &L[j]);
                T(fr_add)(&v[r.b.col[k]], &v[r.b.col[k]], &x);
            }
        }
        for (uint32_t i = 0; i <= cuzk_r1cs_n_public(&r); i++)
            T(fr_add)(&u[i], &u[i], &L[r.n_constraints + i]);
        int bad = 0;
        /* compact A and B: the i-th point is the i-th kept wire's */
        uint32_t *wa = malloc(nv * sizeof *wa), *wb = malloc(nv * sizeof *wb), na = 0, nb = 0;
        for (uint32_t s = 0; s < nv; s++) {
            if (T(has)(key.pk.a_density, s))
                wa[na++] = s;
            if (T(has)(key.pk.b_density, s))
                wb[nb++] = s;
        }
        CHECK(na == key.pk.n_a && nb == key.pk.n_b, "%s 2^12: bitmaps hold %u, %u wires", PN, na,
              nb);
        for (int i = 0; i < 16 && na && nb; i++) {
            size_t ka = tu_rand64() % na, kb = tu_rand64() % nb, h = tu_rand64() % n;
            bad += !T(g1_is)(&key.pk.a[ka], &u[wa[ka]]) + !T(g1_is)(&key.pk.b1[kb], &v[wb[kb]]) +
                   !T(g2_is)(&key.pk.b2[kb], &v[wb[kb]]) + !T(g1_is)(&key.pk.h[h], &H[h]);
        }
        free(wa), free(wb);
        CHECK(bad == 0, "%s 2^12: %d spot-checked points wrong", PN, bad);
        T(prove_verify)(&key.pk, wm, PN " 2^12");
        free(L), free(H), free(u), free(v);
    }
    T(dev_key_free)(&key);
    free(wm);
    cuzk_r1cs_free(&r);
}

static void T(test_rejects)(void) {
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, TEST_ID);
    sp.log2_domain = 5, sp.seed = tu_rand64();
    cuzk_r1cs r;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(&sp, &r, NULL, &err) != CUZK_OK)
        return;
    T(setup_toxic) t, bad;
    T(dev_key) key;
    T(setup_toxic_draw)(&t, NULL, &err);
    r.curve = TEST_OTHER;
    CHECK(T(setup_dev)(&key, &r, &t, NULL, &err) == CUZK_ECURVE && key.a == NULL,
          "%s: other curve accepted", PN);
    r.curve = TEST_ID;
    bad = t;
    T(fr_set_zero)(&bad.alpha);
    CHECK(T(setup_dev)(&key, &r, &bad, NULL, &err) == CUZK_EINVAL, "%s: alpha = 0", PN);
    bad = t;
    T(fr_set_one)(&bad.tau);
    CHECK(T(setup_dev)(&key, &r, &bad, NULL, &err) == CUZK_EINVAL && key.coefs == NULL,
          "%s: tau = 1 accepted", PN);
    uint32_t keep = r.n_pub_in;
    r.n_pub_in = r.n_wires;
    CHECK(T(setup_dev)(&key, &r, &t, NULL, &err) == CUZK_EINVAL, "%s: nPublic >= nVars", PN);
    r.n_pub_in = keep;
    T(dev_key_free)(&key);
    cuzk_r1cs_free(&r);
}

static void T(test_all)(void) {
    T(test_lagrange)();
    T(test_fixed_base)();
    T(test_small_key)(20, 1, 1, 0.8);   /* domain 32 */
    T(test_small_key)(50, 2, 3, 0.5);   /* domain 64 */
    T(test_small_key)(12, 0, 0, 0.0);   /* no public signals, domain 16 */
    T(test_small_key)(29, 1, 1, 0.8);   /* exactly 32 rows */
    T(test_larger_key)();
    T(test_rejects)();
}

static void T(tests)(const tu_curve *c) {
    T(test_all)();
    test_generic((cuzk_curve)c->id);
}

#undef T
#undef PN
#undef FR
#undef G1A
#undef G2A

#endif
