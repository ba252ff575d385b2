/*
 * Groth16 prover and verifier, end to end on the CPU.
 *
 * Uses the bundled circom fixtures (snarkjs keys, witnesses and proofs, both
 * curves) and generated circuits with development keys.  Every proof made
 * here is checked by our verifier; the snarkjs side of the interop is in
 * tests/interop/run.sh.  Checks that valid proofs pass and that tampered
 * proofs, wrong public inputs, mismatched witnesses and out-of-range values
 * are rejected with the right status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/json.h"
#include "groth16/key.h"
#include "groth16/setup.h"
#include "groth16/synth.h"
#include "testutil.h"

static cuzk_pool *pool;

static void fixture(char *out, size_t cap, const char *curve, const char *circ, const char *ext) {
    snprintf(out, cap, "%s/tests/interop/fixtures/%s/%s.%s", tu_source_dir(), curve, circ, ext);
}

static int proofs_equal(const cuzk_proof *a, const cuzk_proof *b) {
    if (a->curve != b->curve)
        return 0;
    return a->curve == CUZK_CURVE_BN254 ? !memcmp(&a->p.bn254, &b->p.bn254, sizeof a->p.bn254)
                                        : !memcmp(&a->p.bls12_381, &b->p.bls12_381,
                                                  sizeof a->p.bls12_381);
}

/* Negate proof point A: still on the curve, but the pairing check fails. */
static void tamper_a(cuzk_proof *p) {
    if (p->curve == CUZK_CURVE_BN254)
        bn254_g1_affine_neg(&p->p.bn254.a, &p->p.bn254.a);
    else
        bls12_381_g1_affine_neg(&p->p.bls12_381.a, &p->p.bls12_381.a);
}

static void tamper_off_curve(cuzk_proof *p) {
    if (p->curve == CUZK_CURVE_BN254) {
        bn254_fp one;
        bn254_fp_set_one(&one);
        bn254_fp_add(&p->p.bn254.c.y, &p->p.bn254.c.y, &one);
    } else {
        bls12_381_fp one;
        bls12_381_fp_set_one(&one);
        bls12_381_fp_add(&p->p.bls12_381.c.y, &p->p.bls12_381.c.y, &one);
    }
}

static void bump(cuzk_curve c, cuzk_fr *x) {
    cuzk_fr one;
    cuzk_fr_set_one(c, &one);
    cuzk_fr_add(c, x, x, &one);
}

static cuzk_status batch_verify(const cuzk_vk *vk, const cuzk_fr *pub, const cuzk_proof *p,
                                size_t n) {
    cuzk_status st;
    if (vk->curve == CUZK_CURVE_BN254) {
        bn254_groth16_proof *pp = malloc(n * sizeof *pp);
        for (size_t i = 0; i < n; i++)
            pp[i] = p[i].p.bn254;
        st = bn254_groth16_verify_batch(&vk->vk.bn254, (const bn254_fr *)pub, pp, n, NULL);
        free(pp);
    } else {
        bls12_381_groth16_proof *pp = malloc(n * sizeof *pp);
        for (size_t i = 0; i < n; i++)
            pp[i] = p[i].p.bls12_381;
        st = bls12_381_groth16_verify_batch(&vk->vk.bls12_381, (const bls12_381_fr *)pub, pp, n,
                                            NULL);
        free(pp);
    }
    return st;
}

static void test_fixture(const char *curve, const char *circ) {
    char zk[512], wt[512], vkp[512], prp[512], pup[512];
    fixture(zk, sizeof zk, curve, circ, "zkey");
    fixture(wt, sizeof wt, curve, circ, "wtns");
    fixture(vkp, sizeof vkp, curve, circ, "vk.json");
    fixture(prp, sizeof prp, curve, circ, "proof.json");
    fixture(pup, sizeof pup, curve, circ, "public.json");
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_wtns w;
    cuzk_vk vk, vkj;
    if (cuzk_key_load(&key, zk, &err) != CUZK_OK || cuzk_wtns_open(&w, wt, &err) != CUZK_OK) {
        CHECK(0, "%s/%s: load fixtures: %s", curve, circ, err.msg);
        return;
    }
    CHECK(cuzk_key_vk(&key, &vk, &err) == CUZK_OK, "vk from key");
    CHECK(cuzk_vk_read_json_file(&vkj, vkp, &err) == CUZK_OK, "%s: read vk.json: %s", circ, err.msg);
    size_t n_pub = cuzk_key_n_public(&key);
    cuzk_fr *pub = tu_public_of(&w, n_pub);

    /* Two proofs of the same witness: both valid, different (fresh r, s). */
    cuzk_proof p[4];
    for (int i = 0; i < 4; i++)
        CHECK(cuzk_key_prove(&key, &w, &p[i], pool, NULL, &err) == CUZK_OK, "%s/%s prove: %s",
              curve, circ, err.msg);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &p[0], &err) == CUZK_OK, "%s/%s: proof verifies: %s",
          curve, circ, err.msg);
    CHECK(cuzk_vk_verify(&vkj, pub, n_pub, &p[1], &err) == CUZK_OK,
          "%s/%s: proof verifies with snarkjs's vk.json", curve, circ);
    CHECK(!proofs_equal(&p[0], &p[1]), "%s/%s: two proofs differ (fresh blinding)", curve, circ);

    /* The proof snarkjs made verifies with ours. */
    cuzk_proof sj;
    cuzk_fr *sj_pub = NULL;
    size_t sj_n = 0;
    CHECK(cuzk_proof_read_json_file(&sj, vkj.curve, prp, &err) == CUZK_OK &&
              cuzk_public_read_json_file(vkj.curve, &sj_pub, &sj_n, pup, &err) == CUZK_OK &&
              cuzk_vk_verify(&vkj, sj_pub, sj_n, &sj, &err) == CUZK_OK,
          "%s/%s: snarkjs proof verifies: %s", curve, circ, err.msg);
    free(sj_pub);

    /* Batch verification: all valid, then one bad. */
    cuzk_fr *pubs = malloc(4 * (n_pub + 1) * sizeof *pubs);
    for (int i = 0; i < 4; i++)
        memcpy(pubs + i * n_pub, pub, n_pub * sizeof *pub);
    CHECK(batch_verify(&vk, pubs, p, 4) == CUZK_OK, "%s/%s: batch of 4 verifies", curve, circ);
    if (n_pub > 0) {
        bump(key.curve, &pubs[2 * n_pub]);
        CHECK(batch_verify(&vk, pubs, p, 4) == CUZK_EVERIFY,
              "%s/%s: batch with one wrong public input fails", curve, circ);
    }
    free(pubs);

    /* Rejections. */
    cuzk_proof bad = p[2];
    tamper_a(&bad);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &bad, &err) == CUZK_EVERIFY && err.msg[0],
          "%s/%s: negated A rejected", curve, circ);
    bad = p[2];
    tamper_off_curve(&bad);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &bad, &err) == CUZK_ENOTONCURVE,
          "%s/%s: C off the curve rejected", curve, circ);
    if (n_pub > 0) {
        bump(key.curve, &pub[n_pub - 1]);
        CHECK(cuzk_vk_verify(&vk, pub, n_pub, &p[3], &err) == CUZK_EVERIFY,
              "%s/%s: changed public input rejected", curve, circ);
        CHECK(cuzk_vk_verify(&vk, pub, n_pub - 1, &p[3], &err) == CUZK_EMISMATCH,
              "%s/%s: missing public input rejected", curve, circ);
    }
    free(pub);
    cuzk_vk_free(&vk);
    cuzk_vk_free(&vkj);
    cuzk_wtns_close(&w);
    cuzk_key_free(&key);
}

/* Witnesses that do not belong to the key. */
static void test_mismatch(void) {
    char zk[512], wt_other[512], wt_curve[512], wt_own[512];
    fixture(zk, sizeof zk, "bn128", "multiplier", "zkey");
    fixture(wt_other, sizeof wt_other, "bn128", "poseidon_chain", "wtns");
    fixture(wt_curve, sizeof wt_curve, "bls12381", "multiplier", "wtns");
    fixture(wt_own, sizeof wt_own, "bn128", "multiplier", "wtns");
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_wtns w;
    cuzk_proof p;
    if (cuzk_key_load(&key, zk, &err) != CUZK_OK) {
        CHECK(0, "load %s: %s", zk, err.msg);
        return;
    }
    if (cuzk_wtns_open(&w, wt_other, &err) == CUZK_OK) {
        CHECK(cuzk_key_prove(&key, &w, &p, pool, NULL, &err) == CUZK_EMISMATCH && err.msg[0],
              "witness of another circuit rejected");
        cuzk_wtns_close(&w);
    }
    if (cuzk_wtns_open(&w, wt_curve, &err) == CUZK_OK) {
        CHECK(cuzk_key_prove(&key, &w, &p, pool, NULL, &err) == CUZK_ECURVE,
              "witness of another curve rejected");
        cuzk_wtns_close(&w);
    }
    /* A witness value >= r (the last value set to all ones). */
    size_t size;
    uint8_t *buf = tu_read_file(wt_own, &size);
    CHECK(buf != NULL, "read %s", wt_own);
    if (buf) {
        memset(buf + size - 32, 0xff, 32);
        if (cuzk_wtns_from_mem(&w, buf, size, &err) == CUZK_OK) {
            CHECK(cuzk_key_prove(&key, &w, &p, pool, NULL, &err) == CUZK_ERANGE,
                  "witness value above r rejected");
            cuzk_wtns_close(&w);
        } else
            CHECK(err.status == CUZK_ERANGE || err.status == CUZK_EFORMAT,
                  "reader rejects value above r");
        free(buf);
    }
    cuzk_key_free(&key);
}

/* Generated circuit + development key: a valid, wrong-witness and
 * deterministic (r = s = 0) proof through the per-curve step API. */
static void test_generated(cuzk_curve curve, unsigned log2) {
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    cuzk_error err = {0};
    uint8_t *zbuf = NULL;
    size_t zsize = 0;
    if (!tu_gen_keyed(curve, log2, pool, &r1cs, &wit, &zbuf, &zsize, &err)) {
        CHECK(0, "generate 2^%u: %s", log2, err.msg);
        return;
    }
    cuzk_zkey z;
    cuzk_key key;
    cuzk_vk vk;
    CHECK(cuzk_zkey_from_mem(&z, zbuf, zsize, &err) == CUZK_OK &&
              cuzk_zkey_check_r1cs(&z, &r1cs, &err) == CUZK_OK &&
              cuzk_key_from_zkey(&key, &z, &err) == CUZK_OK && cuzk_key_vk(&key, &vk, &err) == CUZK_OK,
          "dev key for 2^%u loads and matches its r1cs: %s", log2, err.msg);
    size_t nv = r1cs.n_wires, n_pub = cuzk_r1cs_n_public(&r1cs);
    /* the prover takes plain witness values */
    cuzk_fr *plain = malloc(nv * sizeof *plain);
    for (size_t i = 0; i < nv; i++) {
        uint8_t le[32];
        cuzk_fr_to_le(curve, le, &wit[i]);
        memcpy(plain[i].l, le, 32);
    }
    cuzk_proof p1, p2;
    p1.curve = p2.curve = curve;
    if (curve == CUZK_CURVE_BN254) {
        bn254_fr zero;
        bn254_fr_set_zero(&zero);
        CHECK(bn254_groth16_prove(&p1.p.bn254, &key.pk.bn254, (bn254_fr *)plain, nv, &zero,
                                  &zero, pool, NULL, &err) == CUZK_OK &&
                  bn254_groth16_prove(&p2.p.bn254, &key.pk.bn254, (bn254_fr *)plain, nv, &zero,
                                      &zero, pool, NULL, &err) == CUZK_OK,
              "bn254 deterministic proofs: %s", err.msg);
    } else {
        bls12_381_fr zero;
        bls12_381_fr_set_zero(&zero);
        CHECK(bls12_381_groth16_prove(&p1.p.bls12_381, &key.pk.bls12_381,
                                      (bls12_381_fr *)plain, nv, &zero, &zero, pool, NULL,
                                      &err) == CUZK_OK &&
                  bls12_381_groth16_prove(&p2.p.bls12_381, &key.pk.bls12_381,
                                          (bls12_381_fr *)plain, nv, &zero, &zero, pool, NULL,
                                          &err) == CUZK_OK,
              "bls12_381 deterministic proofs: %s", err.msg);
    }
    CHECK(proofs_equal(&p1, &p2), "2^%u: r = s = 0 gives the same proof twice", log2);
    CHECK(cuzk_vk_verify(&vk, wit + 1, n_pub, &p1, &err) == CUZK_OK,
          "2^%u %s: generated proof verifies: %s", log2, cuzk_curve_snarkjs_name(curve), err.msg);
    /* A witness that violates a constraint gives a proof that fails. */
    bump(curve, &plain[nv - 1]);
    cuzk_proof p3;
    p3.curve = curve;
    if (curve == CUZK_CURVE_BN254)
        bn254_groth16_prove(&p3.p.bn254, &key.pk.bn254, (bn254_fr *)plain, nv, NULL, NULL, pool,
                            NULL, &err);
    else
        bls12_381_groth16_prove(&p3.p.bls12_381, &key.pk.bls12_381, (bls12_381_fr *)plain, nv,
                                NULL, NULL, pool, NULL, &err);
    CHECK(cuzk_vk_verify(&vk, wit + 1, n_pub, &p3, &err) == CUZK_EVERIFY,
          "2^%u: proof from an unsatisfying witness fails", log2);
    free(plain);
    cuzk_vk_free(&vk);
    cuzk_key_free(&key);
    cuzk_zkey_close(&z);
    free(zbuf);
    free(wit);
    cuzk_r1cs_free(&r1cs);
}

/* Per curve (curve-generic code: the curve is a cuzk_curve): every circom
 * fixture of the curve, and a generated circuit. */
static void curve_tests(const tu_curve *c) {
    static const char *circs[] = {"multiplier", "poseidon_chain", "merkle", "many_public"};
    for (size_t i = 0; i < TU_COUNT(circs); i++)
        test_fixture(cuzk_curve_snarkjs_name((cuzk_curve)c->id), circs[i]);
    test_generated((cuzk_curve)c->id, 8);
}

static const tu_curve curves[] = {
    {"bn254", CUZK_CURVE_BN254, curve_tests},
    {"bls12_381", CUZK_CURVE_BLS12_381, curve_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_groth16");
    pool = cuzk_pool_create(0, NULL);
    tu_run_curves(curves, TU_COUNT(curves));
    test_mismatch();
    test_generated(CUZK_CURVE_BN254, 11); /* one larger circuit */
    cuzk_pool_destroy(pool);
    return tu_finish();
}
