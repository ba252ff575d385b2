/*
 * The whole CPU proof against a reference built from plain parts, both
 * curves, with fixed r and s: the prover's proof must be byte for byte the
 * one assembled (by P_groth16_assemble) from
 *   - a, b, c of the prover's own evaluate step (test_abc checks that step
 *     against the a, b, c image path);
 *   - h computed the textbook way: ntt_inverse, then ntt_coset_forward
 *     with the snarkjs shift w_2n, then a b - c pointwise (the prover uses
 *     the fused ntt_to_coset instead);
 *   - each of the five MSMs as a plain sum of scalar multiples
 *     (P_g1_mul / P_g2_mul per point, no Pippenger, no bucket, no special
 *     case for 0 and 1), over every wire the key has a point for.
 * Generated circuits with development keys at 2^6 and 2^9 (2^6 alone in
 * Debug and sanitizer builds), a default profile (80% bits) and one with
 * no bits, on serial, 2- and 3-thread pools; every proof verifies.
 * Per-curve code is this file included again with TEST_CURVE defined
 * (tests/testutil.h).
 */
#ifndef TEST_CURVE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/r1cs.h"
#include "groth16/prover/groth16.h"
#include "ntt/ntt.h"
#include "cpu_prove.h"
#include "testutil.h"
#include "util/threadpool.h"

TU_GROTH16_PROVE_DEFINE(bls12_381)
TU_GROTH16_PROVE_DEFINE(bn254)

static cuzk_pool *pools[3]; /* serial (NULL), 2 threads, 3 threads */

/* The reference's scalar multiplications are slow unoptimised (minutes
 * under ASan at 2^9): Debug and sanitizer builds stop at 2^6. */
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define REF_MAX_LOG 6
#else
#define REF_MAX_LOG 9
#endif

/* Wire s is in the bitmap (a NULL bitmap holds every wire). */
static int has(const uint64_t *bits, size_t s) { return !bits || (bits[s / 64] >> (s % 64) & 1); }

#define TEST_CURVE bls12_381
#define TEST_ID CUZK_CURVE_BLS12_381
#include __FILE__
#undef TEST_CURVE
#undef TEST_ID

#define TEST_CURVE bn254
#define TEST_ID CUZK_CURVE_BN254
#include __FILE__
#undef TEST_CURVE
#undef TEST_ID

static const tu_curve curves[] = {
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_prove_ref");
    cuzk_error err = {0};
    pools[1] = cuzk_pool_create(2, &err);
    pools[2] = cuzk_pool_create(3, &err);
    CHECK(pools[1] && pools[2], "pools: %s", err.msg);
    tu_run_curves(curves, TU_COUNT(curves));
    cuzk_pool_destroy(pools[1]);
    cuzk_pool_destroy(pools[2]);
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

#define T(x) TC(x)
#define PN TEST_CURVE_NAME
#define FR T(fr)

static void T(rand_fr)(FR *x) {
    uint64_t l[4];
    tu_rand_below(l, T(fr_modulus), 4);
    T(fr_to_mont)(x, l);
}

/* sum_i [k_i] P_i over the wires of |bits| (NULL: every wire), one
 * scalar multiplication a point: the compact keys' points are the
 * bitmap's wires in order, k holds the plain witness of every wire. */
#define REF_SUM(GG)                                                                     \
    static void T(ref_##GG)(T(GG) * r, const T(GG##_affine) * pts, const FR *k,         \
                            size_t n_wires, const uint64_t *bits) {                     \
        T(GG) acc, t;                                                                   \
        T(GG##_set_inf)(&acc);                                                          \
        for (size_t i = 0, at = 0; i < n_wires; i++) {                                  \
            if (!has(bits, i))                                                          \
                continue;                                                               \
            FR km;                                                                      \
            T(fr_to_mont)(&km, k[i].l);                                                 \
            T(GG##_from_affine)(&t, &pts[at++]);                                        \
            T(GG##_mul)(&t, &t, &km);                                                   \
            T(GG##_add)(&acc, &acc, &t);                                                \
        }                                                                               \
        *r = acc;                                                                       \
    }
REF_SUM(g1)
REF_SUM(g2)
#undef REF_SUM

/* The reference proof of |pk| for the plain witness |w| with r, s. */
static int T(ref_proof)(T(groth16_proof) *proof, const T(groth16_pk) *pk, const FR *w,
                        const FR *r, const FR *s) {
    size_t n = (size_t)1 << pk->log_n, nv = pk->n_vars, fp = (size_t)pk->n_public + 1;
    cuzk_error err = {0};
    FR *abc = malloc(3 * n * sizeof *abc), *h = malloc(n * sizeof *h);
    size_t eb = T(groth16_evaluate_scratch_bytes)(pk);
    void *sc = malloc(eb);
    T(ntt_domain) *d = NULL;
    int ok = abc && h && sc &&
             T(groth16_evaluate_with_scratch)(pk, w, abc, abc + n, abc + 2 * n, sc, eb, NULL,
                                              &err) == CUZK_OK &&
             T(ntt_domain_create)(&d, pk->log_n, &err) == CUZK_OK;
    CHECK(ok, "%s: reference evaluate: %s", PN, err.msg);
    if (ok) {
        FR g;
        T(fr_root_of_unity)(&g, pk->log_n + 1);
        for (int v = 0; v < 3; v++) {
            T(ntt_inverse)(d, abc + v * n, NULL);
            T(ntt_coset_forward)(d, abc + v * n, &g, NULL);
        }
        for (size_t i = 0; i < n; i++) {
            FR t;
            T(fr_mul)(&t, &abc[i], &abc[n + i]);
            T(fr_sub)(&t, &t, &abc[2 * n + i]);
            T(fr_from_mont)(h[i].l, &t); /* plain, as the witness */
        }
        T(g1) ma, mb1, mc, mh;
        T(g2) mb2;
        T(ref_g1)(&ma, pk->a, w, nv, pk->a_density);
        T(ref_g1)(&mb1, pk->b1, w, nv, pk->b_density);
        T(ref_g2)(&mb2, pk->b2, w, nv, pk->b_density);
        T(ref_g1)(&mc, pk->c, w + fp, nv - fp, NULL);
        T(ref_g1)(&mh, pk->h, h, n, NULL);
        T(groth16_assemble)(proof, pk, &ma, &mb1, &mb2, &mc, &mh, r, s);
    }
    T(ntt_domain_destroy)(d);
    free(abc), free(h), free(sc);
    return ok;
}

static void T(one)(unsigned log2, double bool_share) {
    char what[96];
    snprintf(what, sizeof what, "%s 2^%u bits %.1f", PN, log2, bool_share);
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, TEST_ID);
    sp.log2_domain = log2;
    sp.bool_share = bool_share;
    sp.seed = tu_rand64();
    cuzk_r1cs r1cs;
    cuzk_fr *wm;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(&sp, &r1cs, &wm, &err) != CUZK_OK) {
        CHECK(0, "%s: synth: %s", what, err.msg);
        return;
    }
    uint64_t seed = tu_rand64();
    T(setup_toxic) tox;
    T(dev_key) key;
    T(setup_toxic_draw)(&tox, &seed, &err);
    if (T(setup_dev)(&key, &r1cs, &tox, pools[1], &err) != CUZK_OK) {
        CHECK(0, "%s: setup: %s", what, err.msg);
        free(wm);
        cuzk_r1cs_free(&r1cs);
        return;
    }
    const T(groth16_pk) *pk = &key.pk;
    size_t nv = pk->n_vars;
    FR *w = malloc(nv * sizeof *w), *pub = malloc((pk->n_public + 1) * sizeof *pub);
    for (size_t i = 0; i < nv; i++)
        T(fr_from_mont)(w[i].l, &wm[i].TEST_CURVE);
    for (size_t i = 0; i < pk->n_public; i++)
        pub[i] = wm[1 + i].TEST_CURVE;
    FR rr, ss;
    T(rand_fr)(&rr);
    T(rand_fr)(&ss);
    T(groth16_proof) want, got;
    memset(&want, 0, sizeof want);
    if (T(ref_proof)(&want, pk, w, &rr, &ss)) {
        for (int p = 0; p < 3; p++) {
            memset(&got, 0, sizeof got);
            CHECK(T(tu_groth16_prove)(&got, pk, w, nv, &rr, &ss, pools[p], NULL, &err) ==
                          CUZK_OK &&
                      !memcmp(&got, &want, sizeof got),
                  "%s: the prover (%u threads) differs from the reference proof: %s", what,
                  cuzk_pool_threads(pools[p]), err.msg);
        }
        T(groth16_vk) vk;
        if (T(groth16_vk_from_pk)(&vk, pk, &err) == CUZK_OK) {
            CHECK(T(groth16_verify)(&vk, pub, pk->n_public, &want, &err) == CUZK_OK,
                  "%s: the reference proof does not verify: %s", what, err.msg);
            T(groth16_vk_free)(&vk);
        }
    }
    free(w), free(pub);
    T(dev_key_free)(&key);
    free(wm);
    cuzk_r1cs_free(&r1cs);
}

static void T(tests)(const tu_curve *c) {
    (void)c;
    for (unsigned log2 = 6; log2 <= REF_MAX_LOG; log2 += 3) {
        T(one)(log2, 0.8);
        T(one)(log2, 0.0);
    }
}

#undef T
#undef PN
#undef FR

#endif
