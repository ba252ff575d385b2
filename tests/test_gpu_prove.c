/*
 * Whole Groth16 proofs on the GPU (groth16/prover/prove_gpu.h), checked by the CPU
 * verifier.
 *
 * - The bundled circom fixtures of both curves: GPU proofs verify with the
 *   fixture's snarkjs vk.json (and, with CUZK_GPU_PROOF_DIR set, are written
 *   there as proof.json/public.json for snarkjs to verify afterwards).
 * - Generated circuits with development keys at several sizes (default 2^10,
 *   2^12, 2^14, 2^16; CUZK_GPU_PROVE_LOGS="10,14,18,20" overrides): two GPU
 *   proofs and one CPU proof of the same witness are three different valid
 *   proofs; a, b, c evaluated on the CPU and uploaded (the engine's path
 *   for a synthesised witness), host-streamed bases and a key evicted
 *   and uploaded again also give valid proofs; an unsatisfying witness gives
 *   a proof that fails; a value >= r, a wrong length and a wrong curve are
 *   refused with their status.
 * - Tiers and batches (test_tiers_batches): with r and s fixed, identical
 *   proof bytes from device-resident, host-streamed and device-capped keys
 *   and from batches of 1..4 partitions.
 * - Keys with zero columns (test_density): compact A/B queries gathered on
 *   the device; the same bytes streamed, with B2 on the CPU and with the
 *   bit-scalar sums off.
 * One proof from a .wtns is tests/gpu_prove_util.c's gpu_prove_one.
 * Every check is curve-generic (through cuzk_curve), run per row of the
 * curve table (tests/testutil.h); CUZK_TEST_CURVE=<name> runs one curve.
 * Skipped (77) without CUDA or without a device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/formats/json.h"
#include "groth16/prover/key.h"
#include "engine/gpu_tier.h"
#include "groth16/prover/prove_gpu.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "cpu_prove.h"
#include "testutil.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/msm.h"
#include "gpu/runtime.h"
#include "gpu/selftest.h"
#include "groth16/curve_impl.h"
#include "gpu_prove_util.h"
#endif

#ifdef CUZK_HAVE_CUDA
static cuzk_pool *pool;
static cuzk_gpu_ctx *ctx;
static cuzk_gpu_prover *prover;
static const char *logs; /* CUZK_GPU_PROVE_LOGS: "10,12,14,16" */

static void count_notice(void *ctx) { ++*(int *)ctx; }

static int proofs_equal(const cuzk_proof *a, const cuzk_proof *b) {
    if (a->curve != b->curve)
        return 0;
    return a->curve == CUZK_CURVE_BN254
               ? !memcmp(&a->p.bn254, &b->p.bn254, sizeof a->p.bn254)
               : !memcmp(&a->p.bls12_381, &b->p.bls12_381, sizeof a->p.bls12_381);
}


static void print_timing(const char *what, const cuzk_gpu_timing *t) {
    printf("  %-28s total %9.0f us: upload %.0f eval(%s) %.0f ntt %.0f msm A %.0f B1 %.0f "
           "B2 %.0f C %.0f H %.0f down %.0f asm %.0f\n",
           what, t->total_us, t->upload_us, t->eval_on_gpu ? "gpu" : "cpu", t->evaluate_us,
           t->ntt_us, t->msm_a_us, t->msm_b1_us, t->msm_b2_us, t->msm_c_us, t->msm_h_us,
           t->download_us, t->assemble_us);
}

static void write_proof(const char *dir, const char *name, const cuzk_proof *p,
                        const cuzk_wtns *w, size_t n_pub) {
    char path[1024];
    cuzk_error err = {0};
    snprintf(path, sizeof path, "%s/%s.proof.json", dir, name);
    CHECK(cuzk_proof_write_json_file(p, path, &err) == CUZK_OK, "write %s: %s", path,
          err.msg);
    snprintf(path, sizeof path, "%s/%s.public.json", dir, name);
    cuzk_fr *pub = tu_public_of(w, n_pub);
    CHECK(pub && cuzk_public_write_json_file(p->curve, pub, n_pub, path, &err) == CUZK_OK,
          "write %s: %s", path, err.msg);
    free(pub);
}

static void test_fixture(const char *curve, const char *circ) {
    char zk[512], wt[512], vkp[512];
    snprintf(zk, sizeof zk, "%s/tests/interop/fixtures/%s/%s.zkey", tu_source_dir(), curve, circ);
    snprintf(wt, sizeof wt, "%s/tests/interop/fixtures/%s/%s.wtns", tu_source_dir(), curve, circ);
    snprintf(vkp, sizeof vkp, "%s/tests/interop/fixtures/%s/%s.vk.json", tu_source_dir(), curve,
             circ);
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_wtns w;
    cuzk_vk vk;
    if (cuzk_key_load(&key, zk, &err) != CUZK_OK || cuzk_wtns_open(&w, wt, &err) != CUZK_OK ||
        cuzk_vk_read_json_file(&vk, vkp, &err) != CUZK_OK) {
        CHECK(0, "%s/%s: load fixtures: %s", curve, circ, err.msg);
        return;
    }
    size_t n_pub = cuzk_key_n_public(&key);
    cuzk_fr *pub = tu_public_of(&w, n_pub);
    cuzk_gpu_key *gk = NULL;
    cuzk_proof p;
    cuzk_gpu_timing t;
    int ok = engine_gpu_key_create(&gk, ctx, &key, CUZK_GPU_KEY_AUTO, &err) == CUZK_OK &&
             gpu_prove_one(prover, gk, &w, 0, NULL, NULL, pool, &p, &t, &err) == CUZK_OK;
    CHECK(ok, "%s/%s: GPU proof: %s", curve, circ, err.msg);
    if (ok) {
        CHECK(cuzk_vk_verify(&vk, pub, n_pub, &p, &err) == CUZK_OK,
              "%s/%s: GPU proof verifies with snarkjs's vk.json: %s", curve, circ, err.msg);
        const char *dir = getenv("CUZK_GPU_PROOF_DIR");
        if (dir && *dir) {
            char name[256];
            snprintf(name, sizeof name, "%s-%s", curve, circ);
            write_proof(dir, name, &p, &w, n_pub);
        }
    }
    cuzk_gpu_key_free(gk);
    free(pub);
    cuzk_vk_clear(&vk);
    cuzk_wtns_close(&w);
    cuzk_key_free(&key);
}

/* A wtns image of |values| with the last value's bytes replaced by 0xff
 * (2^256 - 1 >= r). */
static uint8_t *wtns_with_bad_last(const uint8_t *img, size_t size, const cuzk_wtns *w) {
    uint8_t *copy = malloc(size);
    memcpy(copy, img, size);
    size_t off = (size_t)(w->values - img) + (size_t)(w->n_witness - 1) * 32;
    memset(copy + off, 0xff, 32);
    return copy;
}

/* A generated key and witness from their in-memory images. */
static cuzk_status load_mem(cuzk_zkey *z, cuzk_key *key, cuzk_vk *vk, cuzk_wtns *w,
                            const uint8_t *zbuf, size_t zsize, const uint8_t *wbuf,
                            size_t wsize, cuzk_error *err) {
    cuzk_status st;
    if ((st = cuzk_zkey_from_mem(z, zbuf, zsize, err)) != CUZK_OK ||
        (st = cuzk_key_from_zkey(key, z, err)) != CUZK_OK ||
        (st = cuzk_key_vk(key, vk, err)) != CUZK_OK)
        return st;
    return cuzk_wtns_from_mem(w, wbuf, wsize, err);
}

static void test_generated(cuzk_curve curve, unsigned log2) {
    const char *cname = cuzk_curve_snarkjs_name(curve);
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    cuzk_error err = {0};
    uint8_t *zbuf = NULL, *wbuf = NULL;
    size_t zsize = 0, wsize = 0;
    if (!tu_gen_keyed(curve, log2, pool, &r1cs, &wit, &zbuf, &zsize, &err) ||
        cuzk_wtns_write_mem(curve, wit, r1cs.n_wires, &wbuf, &wsize, &err) != CUZK_OK) {
        CHECK(0, "generate %s 2^%u: %s", cname, log2, err.msg);
        return;
    }
    cuzk_zkey z;
    cuzk_key key;
    cuzk_vk vk;
    cuzk_wtns w;
    if (load_mem(&z, &key, &vk, &w, zbuf, zsize, wbuf, wsize, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u: load generated key/witness: %s", cname, log2, err.msg);
        return;
    }
    size_t n_pub = cuzk_r1cs_n_public(&r1cs);
    const cuzk_fr *pub = wit + 1;
    printf("%s 2^%u (%u constraints, %u wires):\n", cname, log2, r1cs.n_constraints,
           r1cs.n_wires);

    cuzk_gpu_key *gk = NULL;
    CHECK(engine_gpu_key_create(&gk, ctx, &key, CUZK_GPU_KEY_AUTO, &err) == CUZK_OK,
          "%s 2^%u: key upload: %s", cname, log2, err.msg);
    if (!gk)
        goto out;
    CHECK(!cuzk_gpu_key_host_streamed(gk) && cuzk_gpu_key_device_bytes(gk) > 0,
          "%s 2^%u: small key is resident on the device", cname, log2);

    /* two GPU proofs and a CPU proof of one witness */
    cuzk_proof g1, g2, c1;
    cuzk_gpu_timing t;
    CHECK(gpu_prove_one(prover, gk, &w, 0, NULL, NULL, pool, &g1, &t, &err) == CUZK_OK, "%s 2^%u: GPU proof: %s",
          cname, log2, err.msg);
    print_timing("first", &t);
    CHECK(gpu_prove_one(prover, gk, &w, 0, NULL, NULL, pool, &g2, &t, &err) == CUZK_OK, "%s 2^%u: GPU proof 2: %s",
          cname, log2, err.msg);
    print_timing("second (warm)", &t);
    CHECK(tu_key_prove(&key, &w, &c1, pool, NULL, &err) == CUZK_OK, "%s 2^%u: CPU proof: %s",
          cname, log2, err.msg);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &g1, &err) == CUZK_OK, "%s 2^%u: GPU proof verifies: %s",
          cname, log2, err.msg);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_OK,
          "%s 2^%u: second GPU proof verifies: %s", cname, log2, err.msg);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &c1, &err) == CUZK_OK, "%s 2^%u: CPU proof verifies: %s",
          cname, log2, err.msg);
    CHECK(!proofs_equal(&g1, &g2) && !proofs_equal(&g1, &c1),
          "%s 2^%u: fresh blinding gives different proofs", cname, log2);

    /* evaluation on the CPU, then on the GPU */
    CHECK(gpu_prove_one(prover, gk, &w, 1, NULL, NULL, pool, &g2, &t, &err) == CUZK_OK &&
              !t.eval_on_gpu &&
              cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_OK,
          "%s 2^%u: CPU-evaluated GPU proof verifies: %s", cname, log2, err.msg);
    print_timing("eval on cpu", &t);
    CHECK(gpu_prove_one(prover, gk, &w, 0, NULL, NULL, pool, &g2, &t, &err) == CUZK_OK &&
              t.eval_on_gpu &&
              cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_OK,
          "%s 2^%u: GPU-evaluated proof verifies: %s", cname, log2, err.msg);
    print_timing("eval on gpu", &t);

    /* evict and upload again */
    cuzk_gpu_key_free(gk);
    gk = NULL;
    CHECK(engine_gpu_key_create(&gk, ctx, &key, CUZK_GPU_KEY_AUTO, &err) == CUZK_OK &&
              gpu_prove_one(prover, gk, &w, 0, NULL, NULL, pool, &g2, &t, &err) == CUZK_OK &&
              cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_OK,
          "%s 2^%u: reloaded key proves again: %s", cname, log2, err.msg);

    /* bases streamed from host memory */
    cuzk_gpu_key *hk = NULL;
    CHECK(engine_gpu_key_create(&hk, ctx, &key, CUZK_GPU_KEY_HOST, &err) == CUZK_OK &&
              cuzk_gpu_key_host_streamed(hk) &&
              gpu_prove_one(prover, hk, &w, 0, NULL, NULL, pool, &g2, &t, &err) == CUZK_OK &&
              cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_OK,
          "%s 2^%u: host-streamed bases give a valid proof: %s", cname, log2, err.msg);
    print_timing("host-streamed bases", &t);
    cuzk_gpu_key_free(hk);

    /* an unsatisfying witness: the last wire + 1 */
    {
        cuzk_fr one, *bad = malloc(r1cs.n_wires * sizeof *bad);
        memcpy(bad, wit, r1cs.n_wires * sizeof *bad);
        cuzk_fr_set_one(curve, &one);
        cuzk_fr_add(curve, &bad[r1cs.n_wires - 1], &bad[r1cs.n_wires - 1], &one);
        uint8_t *bbuf = NULL;
        size_t bsize = 0;
        cuzk_wtns bw;
        if (cuzk_wtns_write_mem(curve, bad, r1cs.n_wires, &bbuf, &bsize, &err) == CUZK_OK &&
            cuzk_wtns_from_mem(&bw, bbuf, bsize, &err) == CUZK_OK) {
            CHECK(gpu_prove_one(prover, gk, &bw, 0, NULL, NULL, pool, &g2, NULL, &err) == CUZK_OK &&
                      cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_EVERIFY,
                  "%s 2^%u: proof of an unsatisfying witness fails", cname, log2);
            cuzk_wtns_close(&bw);
        }
        free(bbuf);
        free(bad);
    }
    /* a value >= r */
    {
        uint8_t *bbuf = wtns_with_bad_last(wbuf, wsize, &w);
        cuzk_wtns bw;
        cuzk_status st = CUZK_EINTERNAL;
        if (cuzk_wtns_from_mem(&bw, bbuf, wsize, &err) == CUZK_OK) {
            st = gpu_prove_one(prover, gk, &bw, 0, NULL, NULL, pool, &g2, NULL, &err);
            cuzk_wtns_close(&bw);
        }
        CHECK(st == CUZK_ERANGE, "%s 2^%u: value >= r refused (got %s: %s)", cname, log2,
              cuzk_status_name(st), err.msg);
        free(bbuf);
        /* the prover still works after a refused witness */
        CHECK(gpu_prove_one(prover, gk, &w, 0, NULL, NULL, pool, &g2, NULL, &err) == CUZK_OK &&
                  cuzk_vk_verify(&vk, pub, n_pub, &g2, &err) == CUZK_OK,
              "%s 2^%u: valid proof after a refused witness: %s", cname, log2, err.msg);
    }
    /* wrong length, wrong curve */
    {
        cuzk_wtns short_w = w;
        short_w.n_witness--;
        CHECK(gpu_prove_one(prover, gk, &short_w, 0, NULL, NULL, pool, &g2, NULL, &err) == CUZK_EMISMATCH,
              "%s 2^%u: short witness refused", cname, log2);
        cuzk_wtns other = w;
        other.curve = curve == CUZK_CURVE_BN254 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        CHECK(gpu_prove_one(prover, gk, &other, 0, NULL, NULL, pool, &g2, NULL, &err) == CUZK_ECURVE,
              "%s 2^%u: witness of the other curve refused", cname, log2);
    }
out:
    cuzk_gpu_key_free(gk);
    cuzk_wtns_close(&w);
    cuzk_vk_clear(&vk);
    cuzk_key_free(&key);
    cuzk_zkey_close(&z);
    free(zbuf);
    free(wbuf);
    free(wit);
    cuzk_r1cs_free(&r1cs);
}
/* Prove |w| on |p| with |gk| and fixed r, s. */
static cuzk_status prove_fixed(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, const cuzk_wtns *w,
                               const cuzk_fr *r, const cuzk_fr *s, cuzk_proof *out,
                               cuzk_error *err) {
    return gpu_prove_one(p, gk, w, 0, r, s, pool, out, NULL, err);
}

/*
 * Keys of Filecoin's shape: a circuit whose wires are read by A or by B
 * only in part (zero columns), loaded compact from its .zkey (density
 * bitmaps from the infinity points).  With r and s fixed, the resident
 * key's proof verifies and equals the proofs of the host-streamed key, of
 * B2 on the CPU (cuzk_gpu_prover_set_b2) and of the ones sent through
 * Pippenger (cuzk_gpu_ctx_msm_ones off).
 */
static void test_density(cuzk_curve curve, unsigned log2) {
    const char *cname = cuzk_curve_snarkjs_name(curve);
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, curve);
    sp.log2_domain = log2;
    sp.seed = tu_rand64();
    sp.bool_share = 0.9;
    sp.a_share = 0.6;
    sp.b_share = 0.3;
    sp.gate_share = 0.9;
    uint64_t seed = tu_rand64();
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    cuzk_error err = {0};
    uint8_t *zbuf = NULL, *wbuf = NULL;
    size_t zsize = 0, wsize = 0;
    if (cuzk_synth_circuit(&sp, &r1cs, &wit, &err) != CUZK_OK ||
        cuzk_setup_dev_zkey_mem(&r1cs, &seed, pool, &zbuf, &zsize, &err) != CUZK_OK ||
        cuzk_wtns_write_mem(curve, wit, r1cs.n_wires, &wbuf, &wsize, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u density: generate: %s", cname, log2, err.msg);
        return;
    }
    cuzk_zkey z;
    cuzk_key key;
    cuzk_vk vk;
    cuzk_wtns w;
    if (load_mem(&z, &key, &vk, &w, zbuf, zsize, wbuf, wsize, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u density: load: %s", cname, log2, err.msg);
        return;
    }
    cuzk_key_arrays kv;
    cuzk_curve_impl_get(curve)->key_arrays(&key, &kv);
    printf("%s 2^%u density key: A %zu, B %zu of %zu wires\n", cname, log2, kv.n_a, kv.n_b,
           kv.n_vars);
    CHECK(kv.a_density && kv.b_density && kv.n_a < kv.n_vars && kv.n_b < kv.n_vars,
          "%s 2^%u: the key loads compact (A %zu, B %zu of %zu)", cname, log2, kv.n_a, kv.n_b,
          kv.n_vars);
    const cuzk_fr *r = wit + 2, *s = wit + 3, *pub = wit + 1;
    size_t n_pub = cuzk_r1cs_n_public(&r1cs);
    cuzk_gpu_key *gd = NULL, *gh = NULL;
    cuzk_proof ref, got;
    cuzk_gpu_timing t;
    cuzk_status st;
    if (engine_gpu_key_create(&gd, ctx, &key, CUZK_GPU_KEY_DEVICE, &err) != CUZK_OK ||
        engine_gpu_key_create(&gh, ctx, &key, CUZK_GPU_KEY_HOST, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u density: GPU keys: %s", cname, log2, err.msg);
        goto out;
    }
    CHECK(prove_fixed(prover, gd, &w, r, s, &ref, &err) == CUZK_OK &&
              cuzk_vk_verify(&vk, pub, n_pub, &ref, &err) == CUZK_OK,
          "%s 2^%u: density key's GPU proof verifies (%s)", cname, log2, err.msg);
    CHECK(prove_fixed(prover, gh, &w, r, s, &got, &err) == CUZK_OK && proofs_equal(&got, &ref),
          "%s 2^%u: density key streamed from host memory: same proof (%s)", cname, log2,
          err.msg);
    cuzk_gpu_prover_set_b2(prover, 1);
    st = gpu_prove_one(prover, gd, &w, 0, r, s, pool, &got, &t, &err);
    cuzk_gpu_prover_set_b2(prover, 0);
    CHECK(st == CUZK_OK && proofs_equal(&got, &ref),
          "%s 2^%u: B2 on the CPU gives the same proof (%s)", cname, log2, err.msg);
    if (st == CUZK_OK)
        print_timing("density, B2 on the CPU", &t);
    cuzk_gpu_ctx_msm_ones(ctx, 0);
    CHECK(prove_fixed(prover, gd, &w, r, s, &got, &err) == CUZK_OK && proofs_equal(&got, &ref),
          "%s 2^%u: ones through Pippenger: same proof (%s)", cname, log2, err.msg);
    cuzk_gpu_ctx_msm_ones(ctx, 1);
out:
    cuzk_gpu_key_free(gd);
    cuzk_gpu_key_free(gh);
    cuzk_wtns_close(&w);
    cuzk_vk_clear(&vk);
    cuzk_key_free(&key);
    cuzk_zkey_close(&z);
    free(zbuf);
    free(wbuf);
    free(wit);
    cuzk_r1cs_free(&r1cs);
}

/*
 * Tiers and batches: with r and s fixed, a proof is a function of key and
 * witness, so the device-resident key, the host-streamed key, a key that
 * streams because a device-memory cap leaves no room for it, and batches
 * of 1..4 partitions must all give the same bytes per witness.  The
 * witnesses differ per batch item (a satisfying one, an unsatisfying one,
 * the satisfying one with other r, s), so a mix-up of vectors shows; a
 * value >= r fails its own item only.
 */
#define NB 4
static void test_tiers_batches(cuzk_curve curve, unsigned log2) {
    const char *cname = cuzk_curve_snarkjs_name(curve);
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL, *bad = NULL;
    cuzk_error err = {0};
    uint8_t *zbuf = NULL, *wbuf = NULL, *bbuf = NULL;
    size_t zsize = 0, wsize = 0, bsize = 0;
    if (!tu_gen_keyed(curve, log2, pool, &r1cs, &wit, &zbuf, &zsize, &err) ||
        cuzk_wtns_write_mem(curve, wit, r1cs.n_wires, &wbuf, &wsize, &err) != CUZK_OK) {
        CHECK(0, "generate %s 2^%u: %s", cname, log2, err.msg);
        return;
    }
    bad = malloc(r1cs.n_wires * sizeof *bad);
    memcpy(bad, wit, r1cs.n_wires * sizeof *bad);
    cuzk_fr one;
    cuzk_fr_set_one(curve, &one);
    cuzk_fr_add(curve, &bad[r1cs.n_wires - 1], &bad[r1cs.n_wires - 1], &one);
    cuzk_zkey z;
    cuzk_key key;
    cuzk_vk vk;
    cuzk_wtns w[3];
    if (cuzk_wtns_write_mem(curve, bad, r1cs.n_wires, &bbuf, &bsize, &err) != CUZK_OK ||
        cuzk_zkey_from_mem(&z, zbuf, zsize, &err) != CUZK_OK ||
        cuzk_key_from_zkey(&key, &z, &err) != CUZK_OK || cuzk_key_vk(&key, &vk, &err) != CUZK_OK ||
        cuzk_wtns_from_mem(&w[0], wbuf, wsize, &err) != CUZK_OK ||
        cuzk_wtns_from_mem(&w[1], bbuf, bsize, &err) != CUZK_OK ||
        cuzk_wtns_from_mem(&w[2], wbuf, wsize, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u: load: %s", cname, log2, err.msg);
        return;
    }
    size_t n_pub = cuzk_r1cs_n_public(&r1cs);
    const cuzk_fr *pub = wit + 1;
    printf("%s 2^%u: tiers and batches, fixed r and s\n", cname, log2);
    /* r_i, s_i: any field elements; witness values are */
    const cuzk_fr *r = wit + 2, *s = wit + 2 + NB;
    const cuzk_wtns *of[NB] = {&w[0], &w[1], &w[2], &w[0]};

    cuzk_gpu_prover *ps[NB] = {NULL};
    cuzk_gpu_key *gd = NULL, *gh = NULL;
    for (int i = 0; i < NB; i++)
        CHECK(cuzk_gpu_prover_create(&ps[i], ctx, pool, &err) == CUZK_OK, "prover: %s", err.msg);
    CHECK(engine_gpu_key_create(&gd, ctx, &key, CUZK_GPU_KEY_DEVICE, &err) == CUZK_OK &&
              engine_gpu_key_create(&gh, ctx, &key, CUZK_GPU_KEY_HOST, &err) == CUZK_OK,
          "%s 2^%u: keys: %s", cname, log2, err.msg);
    if (!gd || !gh || !ps[NB - 1])
        goto out;
    CHECK(!cuzk_gpu_key_host_streamed(gd) && cuzk_gpu_key_host_streamed(gh),
          "%s 2^%u: tiers as asked", cname, log2);

    /* the reference: one proof per item on the device-resident key */
    cuzk_proof ref[NB], got[NB];
    for (int i = 0; i < NB; i++)
        CHECK(prove_fixed(ps[0], gd, of[i], &r[i], &s[i], &ref[i], &err) == CUZK_OK,
              "%s 2^%u: reference proof %d: %s", cname, log2, i, err.msg);
    CHECK(cuzk_vk_verify(&vk, pub, n_pub, &ref[0], &err) == CUZK_OK &&
              cuzk_vk_verify(&vk, pub, n_pub, &ref[2], &err) == CUZK_OK &&
              cuzk_vk_verify(&vk, pub, n_pub, &ref[1], &err) == CUZK_EVERIFY,
          "%s 2^%u: fixed-r,s proofs verify (the unsatisfying one fails)", cname, log2);
    CHECK(!proofs_equal(&ref[0], &ref[2]) && !proofs_equal(&ref[0], &ref[3]),
          "%s 2^%u: other r, s give other proofs", cname, log2);
    /* the same single proofs with the bases streamed from host memory */
    for (int i = 0; i < NB; i++)
        CHECK(prove_fixed(ps[1], gh, of[i], &r[i], &s[i], &got[i], &err) == CUZK_OK &&
                  proofs_equal(&got[i], &ref[i]),
              "%s 2^%u: host-streamed proof %d identical to the device one (%s)", cname, log2, i,
              err.msg);
    /* batches of 1..NB, both tiers; the leading prover's scratch sized
     * for NB first (as the engine does when a key is prepared): no batch
     * then grows it */
    for (int tier = 0; tier < 2; tier++) {
        CHECK(cuzk_gpu_prover_reserve_batch(ps[0], tier ? gh : gd, NB, &err) == CUZK_OK,
              "%s 2^%u: reserve for a batch of %d: %s", cname, log2, NB, err.msg);
        uint64_t held = cuzk_gpu_prover_device_bytes(ps[0]);
        for (int nb = 1; nb <= NB; nb++) {
            const cuzk_gpu_key *gk = tier ? gh : gd;
            cuzk_gpu_batch_item items[NB];
            cuzk_status st = CUZK_OK;
            for (int i = 0; i < nb && st == CUZK_OK; i++) {
                st = cuzk_gpu_prove_upload(ps[i], gk, of[i]->values, NULL, &err);
                items[i] = (cuzk_gpu_batch_item){.p = ps[i], .out = &got[i], .r = r[i],
                                                 .s = s[i]};
            }
            cuzk_gpu_timing t;
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_run_batch(items, (size_t)nb, gk, &t, &err);
            int same = st == CUZK_OK;
            for (int i = 0; i < nb && same; i++)
                same = items[i].st == CUZK_OK && proofs_equal(&got[i], &ref[i]);
            CHECK(same, "%s 2^%u: batch of %d (%s) gives the single proofs' bytes (%s)", cname,
                  log2, nb, tier ? "host-streamed" : "device", err.msg);
            if (nb == NB)
                print_timing(tier ? "batch 4, host-streamed" : "batch 4, device", &t);
        }
        CHECK(cuzk_gpu_prover_device_bytes(ps[0]) == held,
              "%s 2^%u: %s batches grew the reserved prover from %llu to %llu bytes", cname,
              log2, tier ? "host-streamed" : "device", (unsigned long long)held,
              (unsigned long long)cuzk_gpu_prover_device_bytes(ps[0]));
    }
    /* a value >= r in a batch fails that item only */
    {
        uint8_t *rbuf = wtns_with_bad_last(wbuf, wsize, &w[0]);
        cuzk_wtns rw;
        if (cuzk_wtns_from_mem(&rw, rbuf, wsize, &err) == CUZK_OK) {
            cuzk_gpu_batch_item items[2] = {
                {.p = ps[0], .out = &got[0], .r = r[0], .s = s[0]},
                {.p = ps[1], .out = &got[1], .r = r[1], .s = s[1]}};
            cuzk_status st = cuzk_gpu_prove_upload(ps[0], gd, w[0].values, NULL, &err);
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_upload(ps[1], gd, rw.values, NULL, &err);
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_run_batch(items, 2, gd, NULL, &err);
            CHECK(st == CUZK_OK && items[0].st == CUZK_OK && proofs_equal(&got[0], &ref[0]) &&
                      items[1].st == CUZK_ERANGE,
                  "%s 2^%u: a value >= r fails only its own batch item (%s / %s)", cname, log2,
                  cuzk_status_name(items[0].st), cuzk_status_name(items[1].st));
            cuzk_wtns_close(&rw);
        }
        free(rbuf);
    }
    /* Provers sharing one pair of scratch arenas (as an engine device's
     * provers do), one after another with the batch notice: the same
     * bytes, the notice comes once per batch, and the shared scratch is
     * the one allocation (the provers' own streams hold none). */
    {
        cuzk_gpu_shared_scratch *sh[2] = {NULL, NULL};
        cuzk_gpu_prover *q[2] = {NULL, NULL};
        int ok = cuzk_gpu_shared_scratch_create(ctx, &sh[0], &err) == CUZK_OK &&
                 cuzk_gpu_shared_scratch_create(ctx, &sh[1], &err) == CUZK_OK;
        for (int i = 0; i < 2 && ok; i++) {
            ok = cuzk_gpu_prover_create(&q[i], ctx, pool, &err) == CUZK_OK;
            if (ok)
                cuzk_gpu_prover_share_scratch(q[i], sh[0], sh[1]);
        }
        CHECK(ok, "%s 2^%u: shared scratch set-up: %s", cname, log2, err.msg);
        int notices = 0, same = ok;
        for (int round = 0; round < 3 && same; round++) {
            cuzk_gpu_prover *qp = q[round % 2];
            int i = round % NB;
            cuzk_gpu_batch_item it = {.p = qp, .out = &got[i], .r = r[i], .s = s[i]};
            cuzk_status st = cuzk_gpu_prove_upload(qp, gd, of[i]->values, NULL, &err);
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_run_batch_notify(&it, 1, gd, NULL, count_notice, &notices,
                                                     &err);
            same = st == CUZK_OK && it.st == CUZK_OK && proofs_equal(&got[i], &ref[i]);
        }
        CHECK(same && notices == 3,
              "%s 2^%u: provers sharing scratch give the same proofs, one notice per batch "
              "(%d; %s)", cname, log2, notices, err.msg);
        size_t b0 = cuzk_gpu_shared_scratch_bytes(sh[0]), b1 = cuzk_gpu_shared_scratch_bytes(sh[1]);
        CHECK(ok && b0 > 0 && b1 > 0 && cuzk_gpu_prover_device_bytes(q[0]) ==
                                            cuzk_gpu_prover_device_bytes(q[1]),
              "%s 2^%u: both provers see the one shared scratch (%zu + %zu bytes)", cname, log2,
              b0, b1);
        for (int i = 0; i < 2; i++)
            cuzk_gpu_prover_free(q[i]);
        for (int i = 0; i < 2; i++)
            cuzk_gpu_shared_scratch_free(sh[i]);
    }
    /* Shifted copies of the resident key's bases (all five sets fit in
     * 1 GiB at these sizes): the same proofs; a budget of one byte takes
     * none */
    {
        /* a key of its own: the cap test below sizes its cap from gd */
        cuzk_gpu_key *gs = NULL;
        size_t used = 1;
        CHECK(engine_gpu_key_create(&gs, ctx, &key, CUZK_GPU_KEY_DEVICE, &err) == CUZK_OK,
              "%s 2^%u: a key for shifted copies: %s", cname, log2, err.msg);
        if (gs) {
            CHECK(cuzk_gpu_key_precompute(gs, 1, &used, &err) == CUZK_OK && used == 0,
                  "%s 2^%u: a one-byte budget takes no shifted copies (%zu; %s)", cname, log2,
                  used, err.msg);
            uint64_t before = cuzk_gpu_key_device_bytes(gs);
            CHECK(cuzk_gpu_key_precompute(gs, (size_t)1 << 30, &used, &err) == CUZK_OK &&
                      used > 0 && cuzk_gpu_key_device_bytes(gs) == before + used,
                  "%s 2^%u: shifted copies built (%zu bytes; %s)", cname, log2, used, err.msg);
            for (int i = 0; i < NB; i++)
                CHECK(prove_fixed(ps[0], gs, of[i], &r[i], &s[i], &got[i], &err) == CUZK_OK &&
                          proofs_equal(&got[i], &ref[i]),
                      "%s 2^%u: proof %d over shifted copies identical (%s)", cname, log2, i,
                      err.msg);
        }
        cuzk_gpu_key_free(gs);
    }
    /* A device-memory cap that leaves no room for the bases: a context
     * whose scratch is already grown by one proof, capped at what it holds
     * plus the matrices plus half the bases; AUTO must stream the key and
     * the proof must not change; a DEVICE key must be refused. */
    /* one page-locking of the key memory at a time */
    cuzk_gpu_key_free(gh);
    gh = NULL;
    {
        cuzk_gpu_ctx *cc = NULL;
        cuzk_gpu_prover *pc = NULL;
        cuzk_gpu_key *warm = NULL, *gc = NULL, *gx = NULL;
        if (cuzk_gpu_ctx_create(cuzk_gpu_ctx_device(ctx), &cc, &err) == CUZK_OK &&
            cuzk_gpu_prover_create(&pc, cc, pool, &err) == CUZK_OK &&
            engine_gpu_key_create(&warm, cc, &key, CUZK_GPU_KEY_HOST, &err) == CUZK_OK &&
            prove_fixed(pc, warm, &w[0], &r[0], &s[0], &got[0], &err) == CUZK_OK) {
            cuzk_gpu_mem_info mi;
            cuzk_gpu_ctx_mem(cc, &mi);
            uint64_t csr = cuzk_gpu_key_device_bytes(warm);
            uint64_t bases = cuzk_gpu_key_device_bytes(gd) - csr;
            /* the warm key's matrices make room for the next key's */
            cuzk_gpu_key_free(warm);
            warm = NULL;
            /* room for what a streamed key needs (its matrices, one
             * prover's buffers, the smallest MSM plans, over the 90% the
             * placement uses) and a quarter of the bases: streamed fits,
             * resident does not */
            const cuzk_curve_impl *ci = cuzk_curve_impl_get(key.curve);
            cuzk_key_arrays kv;
            ci->key_arrays(&key, &kv);
            size_t n = (size_t)1 << kv.log_n, nv = kv.n_vars;
            cuzk_curve gc_curve = key.curve;
            cuzk_gpu_msm_info m1, m2;
            cuzk_gpu_msm_plan(cc, gc_curve, CUZK_GPU_G1, n > nv ? n : nv, 1,
                              CUZK_GPU_SCALARS_DEVICE, 1, 1, &m1, &err);
            cuzk_gpu_msm_plan(cc, gc_curve, CUZK_GPU_G2, nv, 1, CUZK_GPU_SCALARS_DEVICE, 1, 1,
                              &m2, &err);
            uint64_t work = 32 * (2 * (uint64_t)nv + 3 * (uint64_t)n);
            uint64_t streamed = csr + work + m1.scratch_bytes + m2.scratch_bytes;
            cuzk_gpu_ctx_set_mem_limit(cc, mi.used_bytes + (size_t)(streamed / 0.9) + 4096 +
                                               bases / 4);
            cuzk_status sd = engine_gpu_key_create(&gx, cc, &key, CUZK_GPU_KEY_DEVICE, &err);
            CHECK(sd != CUZK_OK, "%s 2^%u: a device-resident key over the cap is refused", cname,
                  log2);
            CHECK(engine_gpu_key_create(&gc, cc, &key, CUZK_GPU_KEY_AUTO, &err) == CUZK_OK &&
                      cuzk_gpu_key_host_streamed(gc) &&
                      strstr(cuzk_gpu_key_why(gc), "pinned host memory") &&
                      strstr(cuzk_gpu_key_why(gc), "cap"),
                  "%s 2^%u: under the cap AUTO streams the key (%s; %s)", cname, log2,
                  gc ? cuzk_gpu_key_why(gc) : "-", err.msg);
            CHECK(gc && prove_fixed(pc, gc, &w[0], &r[0], &s[0], &got[0], &err) == CUZK_OK &&
                      proofs_equal(&got[0], &ref[0]),
                  "%s 2^%u: the capped, streamed key gives the same proof (%s)", cname, log2,
                  err.msg);
            cuzk_gpu_ctx_mem(cc, &mi);
            CHECK(mi.peak_bytes <= mi.limit_bytes || mi.limit_bytes == 0,
                  "%s 2^%u: device memory stayed under the cap (%zu of %zu)", cname, log2,
                  mi.peak_bytes, mi.limit_bytes);
        } else {
            CHECK(0, "%s 2^%u: capped context: %s", cname, log2, err.msg);
        }
        cuzk_gpu_key_free(gx);
        cuzk_gpu_key_free(gc);
        cuzk_gpu_key_free(warm);
        cuzk_gpu_prover_free(pc);
        cuzk_gpu_ctx_destroy(cc);
    }
    /* A cap that cannot hold the key even streamed (64 KiB): refused at
     * creation with the figures, before anything is allocated. */
    {
        cuzk_gpu_ctx *cc = NULL;
        cuzk_gpu_key *gz = NULL;
        if (cuzk_gpu_ctx_create(cuzk_gpu_ctx_device(ctx), &cc, &err) == CUZK_OK) {
            cuzk_gpu_ctx_set_mem_limit(cc, (size_t)64 << 10);
            cuzk_status sz = engine_gpu_key_create(&gz, cc, &key, CUZK_GPU_KEY_AUTO, &err);
            cuzk_gpu_mem_info mi;
            cuzk_gpu_ctx_mem(cc, &mi);
            CHECK(sz == CUZK_ENOMEM && gz == NULL && strstr(err.msg, "GiB") &&
                      strstr(err.msg, "cap") && mi.peak_bytes <= ((size_t)64 << 10),
                  "%s 2^%u: a key over a 64 KiB cap is refused with the figures (status %d, "
                  "peak %zu): %s",
                  cname, log2, (int)sz, mi.peak_bytes, err.msg);
            cuzk_gpu_key_free(gz);
            cuzk_gpu_ctx_destroy(cc);
        } else {
            CHECK(0, "%s 2^%u: context: %s", cname, log2, err.msg);
        }
    }
out:
    for (int i = 0; i < NB; i++)
        cuzk_gpu_prover_free(ps[i]);
    cuzk_gpu_key_free(gd);
    cuzk_gpu_key_free(gh);
    for (int i = 0; i < 3; i++)
        cuzk_wtns_close(&w[i]);
    cuzk_vk_clear(&vk);
    cuzk_key_free(&key);
    cuzk_zkey_close(&z);
    free(zbuf);
    free(wbuf);
    free(bbuf);
    free(wit);
    free(bad);
    cuzk_r1cs_free(&r1cs);
}
/* One curve: the bundled fixtures (by the name snarkjs gives the curve),
 * then per size of CUZK_GPU_PROVE_LOGS the generated circuit and the tiers
 * and batches. */
static void run_curve(const tu_curve *c) {
    const char *circs[4] = {"multiplier", "poseidon_chain", "merkle", "many_public"};
    for (int i = 0; i < 4; i++)
        test_fixture(cuzk_curve_snarkjs_name((cuzk_curve)c->id), circs[i]);
    for (const char *q = logs; *q;) {
        unsigned lg = (unsigned)strtoul(q, (char **)&q, 10);
        if (lg >= 4 && lg <= 26) {
            test_generated((cuzk_curve)c->id, lg);
            test_tiers_batches((cuzk_curve)c->id, lg);
            test_density((cuzk_curve)c->id, lg);
        }
        while (*q == ',' || *q == ' ')
            q++;
        if (*q && (*q < '0' || *q > '9'))
            break;
    }
}

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, run_curve},
    {"bn254", CUZK_CURVE_BN254, run_curve},
};
/* The pool, the shared prover and CUZK_GPU_PROVE_LOGS. */
static int setup(void) {
    cuzk_error err = {0};
    pool = cuzk_pool_create(0, &err);
    if (cuzk_gpu_prover_create(&prover, ctx, pool, &err) != CUZK_OK) {
        CHECK(0, "GPU prover: %s", err.msg);
        return 0;
    }
    logs = getenv("CUZK_GPU_PROVE_LOGS");
    if (!logs || !*logs)
        logs = "10,12,14,16";
    return 1;
}

static void teardown(void) {
    cuzk_gpu_prover_free(prover);
    cuzk_pool_destroy(pool);
}

#endif

int main(int argc, char **argv) {
#ifdef CUZK_HAVE_CUDA
    const tu_gpu_test t = {.name = "test_gpu_prove", .curves = curves,
                           .n_curves = TU_COUNT(curves), .ctx = &ctx,
                           .setup = setup, .teardown = teardown};
#else
    const tu_gpu_test t = {.name = "test_gpu_prove"};
#endif
    return tu_gpu_main(argc, argv, &t);
}
