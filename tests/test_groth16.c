/*
 * Groth16 prover and verifier, end to end on the CPU.
 *
 * Uses the bundled circom fixtures (snarkjs keys, witnesses and proofs, both
 * curves) and generated circuits with development keys.  Every proof made
 * here is checked by our verifier; the snarkjs side of the interop is in
 * tests/interop/run.sh.  Checks that valid proofs pass and that tampered
 * proofs, wrong public inputs, mismatched witnesses and out-of-range values
 * are rejected with the right status; so are proofs and verification keys
 * with a point on the curve but outside the prime-order subgroup (a valid
 * point plus a torsion point found at run time), through the verifier, the
 * batch verifier, cuzk_verify and the key loader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/api.h"
#include "groth16/formats/json.h"
#include "groth16/prover/key.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "cpu_prove.h"
#include "testutil.h"

TU_GROTH16_PROVE_DEFINE(bls12_381)
TU_GROTH16_PROVE_DEFINE(bn254)

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

/* ---- points on the curve outside the prime-order subgroup ---- */

static void bn254_g1_x(bn254_fp *x, uint64_t i) { bn254_fp_set_u64(x, i); }
static void bls12_381_g1_x(bls12_381_fp *x, uint64_t i) { bls12_381_fp_set_u64(x, i); }
static void bn254_g2_x(bn254_fp2 *x, uint64_t i) {
    bn254_fp_set_u64(&x->c0, i);
    bn254_fp_set_one(&x->c1);
}
static void bls12_381_g2_x(bls12_381_fp2 *x, uint64_t i) {
    bls12_381_fp_set_u64(&x->c0, i);
    bls12_381_fp_set_one(&x->c1);
}

/*
 * G_torsion: T = [r]Q for the first curve point Q with a small x (b taken
 * from the generator, b = y^2 - x^3) whose [r]Q is not O.  The group has
 * order h*r with r prime to h, so T != O has order dividing h: on the
 * curve, outside the subgroup, and so is P + T for any subgroup point P.
 * Returns 0 if no such Q was found.  G_add_torsion(p, t): p += t, and 1
 * iff the sum is on the curve, fails the library's subgroup test and has
 * [r](p + t) != O (checked by a plain multiplication by r).
 */
#define TORSION_FNS(G, E, S)                                                   \
    static int G##_torsion(G##_affine *t) {                                    \
        G##_affine g, q;                                                       \
        E b, x3, rhs;                                                          \
        G j;                                                                   \
        G##_generator(&g);                                                     \
        E##_sqr(&b, &g.y);                                                     \
        E##_sqr(&x3, &g.x);                                                    \
        E##_mul(&x3, &x3, &g.x);                                               \
        E##_sub(&b, &b, &x3);                                                  \
        for (uint64_t i = 1; i < 4096; i++) {                                  \
            G##_x(&q.x, i);                                                    \
            E##_sqr(&rhs, &q.x);                                               \
            E##_mul(&rhs, &rhs, &q.x);                                         \
            E##_add(&rhs, &rhs, &b);                                           \
            if (!E##_sqrt(&q.y, &rhs))                                         \
                continue;                                                      \
            G##_from_affine(&j, &q);                                           \
            G##_mul_limbs(&j, &j, S##_modulus, S##_LIMBS);                      \
            if (G##_is_inf(&j))                                                \
                continue;                                                      \
            G##_to_affine(t, &j);                                              \
            return G##_affine_on_curve(t);                                     \
        }                                                                      \
        return 0;                                                              \
    }                                                                          \
    static int G##_add_torsion(G##_affine *p, const G##_affine *t) {           \
        G j, k;                                                                \
        G##_from_affine(&j, p);                                                \
        G##_add_affine(&j, &j, t);                                             \
        G##_to_affine(p, &j);                                                  \
        G##_mul_limbs(&k, &j, S##_modulus, S##_LIMBS);                          \
        return G##_affine_on_curve(p) && !G##_affine_in_subgroup(p) && !G##_is_inf(&k); \
    }
TORSION_FNS(bn254_g2, bn254_fp2, bn254_fr)
TORSION_FNS(bls12_381_g1, bls12_381_fp, bls12_381_fr)
TORSION_FNS(bls12_381_g2, bls12_381_fp2, bls12_381_fr)
#undef TORSION_FNS

/* Points of a proof or key that can be moved out of the subgroup: A, B, C
 * of a proof; alpha, beta, gamma, delta and IC[0] of a key.  BN254's G1
 * has cofactor 1 (every curve point is in the subgroup), so only its G2
 * points qualify. */
enum { PT_A, PT_B, PT_C, PT_ALPHA, PT_BETA, PT_GAMMA, PT_DELTA, PT_IC0, PT_COUNT };
static const char *const pt_names[PT_COUNT] = {"A", "B", "C", "alpha", "beta", "gamma", "delta",
                                               "IC[0]"};
static int pt_is_g2(int which) {
    return which == PT_B || which == PT_BETA || which == PT_GAMMA || which == PT_DELTA;
}

/* Moves point |which| of |p| (proof) or |vk| out of the subgroup; 0 if that
 * is impossible on this curve (BN254 G1) or the point found is not what it
 * must be (a failed check is recorded). */
static int detach(cuzk_curve c, cuzk_proof *p, cuzk_vk *vk, int which) {
    int ok;
    if (c == CUZK_CURVE_BN254) {
        bn254_g2_affine t, *q;
        if (!pt_is_g2(which))
            return 0;
        q = which == PT_B ? &p->p.bn254.b
            : which == PT_BETA ? &vk->vk.bn254.beta2
            : which == PT_GAMMA ? &vk->vk.bn254.gamma2 : &vk->vk.bn254.delta2;
        ok = bn254_g2_torsion(&t) && bn254_g2_add_torsion(q, &t);
    } else if (pt_is_g2(which)) {
        bls12_381_g2_affine t, *q;
        q = which == PT_B ? &p->p.bls12_381.b
            : which == PT_BETA ? &vk->vk.bls12_381.beta2
            : which == PT_GAMMA ? &vk->vk.bls12_381.gamma2 : &vk->vk.bls12_381.delta2;
        ok = bls12_381_g2_torsion(&t) && bls12_381_g2_add_torsion(q, &t);
    } else {
        bls12_381_g1_affine t, *q;
        q = which == PT_A ? &p->p.bls12_381.a
            : which == PT_C ? &p->p.bls12_381.c
            : which == PT_ALPHA ? &vk->vk.bls12_381.alpha1 : &vk->vk.bls12_381.ic[0];
        ok = bls12_381_g1_torsion(&t) && bls12_381_g1_add_torsion(q, &t);
    }
    CHECK(ok, "%s %s: a point on the curve, outside the subgroup, with [r]P != O",
          cuzk_curve_snarkjs_name(c), pt_names[which]);
    return ok;
}

/* A copy of |vk| with its own IC array (cuzk_vk_clear frees it). */
static void vk_copy(cuzk_vk *out, const cuzk_vk *vk) {
    *out = *vk;
    if (vk->curve == CUZK_CURVE_BN254) {
        size_t n = (vk->vk.bn254.n_public + 1) * sizeof *vk->vk.bn254.ic;
        out->vk.bn254.ic = malloc(n);
        memcpy(out->vk.bn254.ic, vk->vk.bn254.ic, n);
    } else {
        size_t n = (vk->vk.bls12_381.n_public + 1) * sizeof *vk->vk.bls12_381.ic;
        out->vk.bls12_381.ic = malloc(n);
        memcpy(out->vk.bls12_381.ic, vk->vk.bls12_381.ic, n);
    }
}

/* Proof |good| verifies with |vk|; with each of A, B, C moved out of the
 * subgroup the verifier, the batch verifier (the bad proof second of three)
 * and cuzk_verify on the proof's image must all say CUZK_ENOTINSUBGROUP.
 * With a key point moved out, the key written as verification_key.json
 * must not load (CUZK_ENOTINSUBGROUP). */
static void test_subgroup(const char *tag, cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                          const cuzk_proof *good) {
    cuzk_curve c = vk->curve;
    cuzk_error err = {0};
    uint8_t *pub_bytes = malloc((n_pub + 1) * CUZK_SCALAR_BYTES);
    cuzk_fr *pubs = malloc(3 * (n_pub + 1) * sizeof *pubs);
    cuzk_public_to_bytes(c, pub_bytes, pub, n_pub);
    for (int i = 0; i < 3; i++)
        memcpy(pubs + i * n_pub, pub, n_pub * sizeof *pub);
    for (int which = PT_A; which <= PT_C; which++) {
        cuzk_proof bad = *good, three[3] = {*good, *good, *good};
        if (!detach(c, &bad, NULL, which))
            continue;
        three[1] = bad;
        cuzk_status st = cuzk_vk_verify(vk, pub, n_pub, &bad, &err);
        CHECK(st == CUZK_ENOTINSUBGROUP, "%s: %s outside the subgroup: verify says %s (%s)", tag,
              pt_names[which], cuzk_status_name(st), err.msg);
        st = batch_verify(vk, pubs, three, 3);
        CHECK(st == CUZK_ENOTINSUBGROUP, "%s: %s outside the subgroup: batch verify says %s",
              tag, pt_names[which], cuzk_status_name(st));
        cuzk_proof_bytes img;
        cuzk_proof_to_bytes(&img, &bad);
        st = cuzk_verify(vk, &img, pub_bytes, n_pub, &err);
        CHECK(st == CUZK_ENOTINSUBGROUP, "%s: %s outside the subgroup: cuzk_verify says %s (%s)",
              tag, pt_names[which], cuzk_status_name(st), err.msg);
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/cuzk-tg-%d.vk.json", (int)getpid());
    for (int which = PT_ALPHA; which < PT_COUNT; which++) {
        cuzk_vk bad;
        cuzk_proof none = {.curve = c};
        vk_copy(&bad, vk);
        if (detach(c, &none, &bad, which)) {
            cuzk_vk back;
            cuzk_status st = cuzk_vk_write_json_file(&bad, path, &err);
            CHECK(st == CUZK_OK, "%s: write a key with %s outside the subgroup: %s", tag,
                  pt_names[which], err.msg);
            st = cuzk_vk_read_json_file(&back, path, &err);
            CHECK(st == CUZK_ENOTINSUBGROUP, "%s: key with %s outside the subgroup loads: %s (%s)",
                  tag, pt_names[which], cuzk_status_name(st), err.msg);
            if (st == CUZK_OK)
                cuzk_vk_clear(&back);
        }
        cuzk_vk_clear(&bad);
    }
    remove(path);
    free(pub_bytes);
    free(pubs);
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
        CHECK(tu_key_prove(&key, &w, &p[i], pool, NULL, &err) == CUZK_OK, "%s/%s prove: %s",
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

    if (!strcmp(circ, "multiplier")) {
        char tag[64];
        snprintf(tag, sizeof tag, "%s/%s", curve, circ);
        test_subgroup(tag, &vk, pub, n_pub, &p[0]);
    }

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
    cuzk_vk_clear(&vk);
    cuzk_vk_clear(&vkj);
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
        CHECK(tu_key_prove(&key, &w, &p, pool, NULL, &err) == CUZK_EMISMATCH && err.msg[0],
              "witness of another circuit rejected");
        cuzk_wtns_close(&w);
    }
    if (cuzk_wtns_open(&w, wt_curve, &err) == CUZK_OK) {
        CHECK(tu_key_prove(&key, &w, &p, pool, NULL, &err) == CUZK_ECURVE,
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
            CHECK(tu_key_prove(&key, &w, &p, pool, NULL, &err) == CUZK_ERANGE,
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
        CHECK(bn254_tu_groth16_prove(&p1.p.bn254, &key.pk.bn254, (bn254_fr *)plain, nv, &zero,
                                  &zero, pool, NULL, &err) == CUZK_OK &&
                  bn254_tu_groth16_prove(&p2.p.bn254, &key.pk.bn254, (bn254_fr *)plain, nv, &zero,
                                      &zero, pool, NULL, &err) == CUZK_OK,
              "bn254 deterministic proofs: %s", err.msg);
    } else {
        bls12_381_fr zero;
        bls12_381_fr_set_zero(&zero);
        CHECK(bls12_381_tu_groth16_prove(&p1.p.bls12_381, &key.pk.bls12_381,
                                      (bls12_381_fr *)plain, nv, &zero, &zero, pool, NULL,
                                      &err) == CUZK_OK &&
                  bls12_381_tu_groth16_prove(&p2.p.bls12_381, &key.pk.bls12_381,
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
        bn254_tu_groth16_prove(&p3.p.bn254, &key.pk.bn254, (bn254_fr *)plain, nv, NULL, NULL, pool,
                            NULL, &err);
    else
        bls12_381_tu_groth16_prove(&p3.p.bls12_381, &key.pk.bls12_381, (bls12_381_fr *)plain, nv,
                                NULL, NULL, pool, NULL, &err);
    CHECK(cuzk_vk_verify(&vk, wit + 1, n_pub, &p3, &err) == CUZK_EVERIFY,
          "2^%u: proof from an unsatisfying witness fails", log2);
    free(plain);
    cuzk_vk_clear(&vk);
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
