/*
 * The engine with a GPU device (engine/device_gpu.c): jobs of several
 * partitions on both curves are proved on the GPU and every proof is
 * checked by the CPU verifier; the key is resident on the device (status
 * reports it), evicting the key drops the device copy and the next job
 * uploads it again; a witness value >= r fails its job and the engine keeps
 * serving.  With batch_max 4, a device step proves up to four partitions
 * of one key in one pass and every proof verifies.  With a device-memory
 * cap below what a 2^20 key needs resident (computed from the MSM scratch
 * sizes), the key streams from pinned host memory (tier PINNED, with its
 * reason), nothing fails and the device stays under the cap.  Skipped (77) without CUDA or without a device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk.h"
#include "cuzk_testing.h"
#include "engine/api.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "testutil.h"
#include "util/threadpool.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/msm.h"
#include "gpu/runtime.h"
#endif

#ifdef CUZK_HAVE_CUDA
typedef struct circuit {
    char zkey[256], wtns[256], bad[256];
    cuzk_vk vk;
    cuzk_fr *pub;
    size_t n_pub;
} circuit;

/* Partition |i|'s proof, from its public image back to the internal form. */
static cuzk_status job_proof(const cuzk_job *j, cuzk_proof *p, size_t i, cuzk_error *err) {
    cuzk_proof_bytes b;
    cuzk_status s = cuzk_job_proof_bytes(j, &b, i, err);
    return s == CUZK_OK ? cuzk_proof_from_bytes(p, &b, err) : s;
}

static cuzk_pool *gen_pool; /* the dev setups of the larger circuits */

static int make_circuit(circuit *c, cuzk_curve curve, unsigned log2, const char *dir) {
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    cuzk_error err = {0};
    uint8_t *zbuf = NULL;
    size_t zsize = 0;
    const char *cn = cuzk_curve_snarkjs_name(curve);
    snprintf(c->zkey, sizeof c->zkey, "%s/%s.zkey", dir, cn);
    snprintf(c->wtns, sizeof c->wtns, "%s/%s.wtns", dir, cn);
    snprintf(c->bad, sizeof c->bad, "%s/%s-bad.wtns", dir, cn);
    cuzk_zkey z;
    cuzk_key key;
    int ok = tu_gen_keyed(curve, log2, gen_pool, &r1cs, &wit, &zbuf, &zsize, &err) &&
             cuzk_wtns_write_file(curve, wit, r1cs.n_wires, c->wtns, &err) == CUZK_OK &&
             cuzk_zkey_from_mem(&z, zbuf, zsize, &err) == CUZK_OK;
    if (ok) {
        ok = cuzk_key_from_zkey(&key, &z, &err) == CUZK_OK &&
             cuzk_key_vk(&key, &c->vk, &err) == CUZK_OK;
        cuzk_key_free(&key);
        cuzk_zkey_close(&z);
    }
    if (ok) {
        FILE *f = fopen(c->zkey, "wb");
        ok = f && fwrite(zbuf, 1, zsize, f) == zsize;
        if (f)
            fclose(f);
    }
    if (ok) {
        /* the same witness with its last value replaced by 2^256 - 1 */
        size_t wsize = 0;
        uint8_t *wbuf = NULL;
        ok = cuzk_wtns_write_mem(curve, wit, r1cs.n_wires, &wbuf, &wsize, &err) == CUZK_OK;
        if (ok) {
            memset(wbuf + wsize - 32, 0xff, 32);
            FILE *f = fopen(c->bad, "wb");
            ok = f && fwrite(wbuf, 1, wsize, f) == wsize;
            if (f)
                fclose(f);
        }
        free(wbuf);
    }
    c->n_pub = cuzk_r1cs_n_public(&r1cs);
    c->pub = malloc((c->n_pub + 1) * sizeof *c->pub);
    memcpy(c->pub, wit + 1, c->n_pub * sizeof *c->pub);
    CHECK(ok, "make %s 2^%u circuit: %s", cn, log2, err.msg);
    free(zbuf);
    free(wit);
    cuzk_r1cs_free(&r1cs);
    return ok;
}

static void prove_job(cuzk_engine *e, circuit *c, const char *key_id, unsigned parts,
                      const char *what) {
    cuzk_witness w[8];
    for (unsigned i = 0; i < parts; i++)
        w[i] = (cuzk_witness){.path = c->wtns};
    cuzk_submit_opts o = {.key = key_id, .witnesses = w, .n_witnesses = parts};
    cuzk_job *job = NULL;
    cuzk_error err = {0};
    cuzk_status st = cuzk_submit(e, &job, NULL, &o, &err);
    if (st == CUZK_OK)
        st = cuzk_job_await(job, 120000, &err);
    CHECK(st == CUZK_OK, "%s: job: %s", what, err.msg);
    cuzk_partition_info pi[8];
    if (job)
        cuzk_job_status(job, NULL, pi, parts);
    for (unsigned i = 0; st == CUZK_OK && i < parts; i++) {
        cuzk_proof p;
        CHECK(job_proof(job, &p, i, &err) == CUZK_OK &&
                  cuzk_vk_verify(&c->vk, c->pub, c->n_pub, &p, &err) == CUZK_OK,
              "%s: partition %u proof verifies: %s", what, i, err.msg);
        CHECK(pi[i].device == 0, "%s: partition %u ran on the GPU device (got %d)", what, i,
              pi[i].device);
    }
    cuzk_job_release(job);
}

/* Fails the first GPU attempt of jobs whose request id starts with
 * "retry": the partition goes to the CPU fallback device, which must
 * evaluate a, b, c itself (synthesis left them to the GPU). */
static void fail_first_gpu_attempt(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    (void)ctx;
    if (at->site == CUZK_FAULT_DEVICE && at->attempt == 0 && at->request_id &&
        !strncmp(at->request_id, "retry", 5)) {
        out->action = CUZK_FAULT_FAIL;
        snprintf(out->msg, sizeof out->msg, "injected GPU failure");
    }
}
#endif

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_gpu");
    if (!tu_gpu_present())
        return 77;
#ifdef CUZK_HAVE_CUDA
    char dir[] = "/tmp/cuzk-engine-gpu-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return tu_finish();
    }
    circuit bn, bls;
    cuzk_error gerr = {0};
    gen_pool = cuzk_pool_create(0, &gerr);
    if (!make_circuit(&bn, CUZK_CURVE_BN254, 12, dir) ||
        !make_circuit(&bls, CUZK_CURVE_BLS12_381, 11, dir))
        return tu_finish();
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.n_devices = 1;
    cfg.devices[0].kind = CUZK_DEVICE_GPU;
    cfg.devices[0].gpu_index = 0;
    cfg.devices[0].workers = 2;
    cfg.cpu_fallback = 0;
    cuzk_engine *e = NULL;
    cuzk_error err = {0};
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK) {
        CHECK(0, "engine with a GPU device: %s", err.msg);
        return tu_finish();
    }
    CHECK(cuzk_engine_key_preload(e, "bn", bn.zkey, &err) == CUZK_OK, "preload bn: %s", err.msg);
    CHECK(cuzk_engine_key_preload(e, "bls", bls.zkey, &err) == CUZK_OK, "preload bls: %s",
          err.msg);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.devices[0].device_keys == 2,
          "preloaded keys are on the GPU before any job (%u keys)", st.devices[0].device_keys);
    prove_job(e, &bn, "bn", 4, "bn254 x4");
    prove_job(e, &bls, "bls", 3, "bls12_381 x3");
    cuzk_engine_status_get(e, &st);
    CHECK(st.n_devices >= 1 && st.devices[0].gpu_index == 0 && st.devices[0].device_keys == 2 &&
              st.devices[0].device_mem_bytes > 0,
          "status: both keys resident on GPU 0 (%u keys, %llu bytes)", st.devices[0].device_keys,
          (unsigned long long)st.devices[0].device_mem_bytes);
    CHECK(st.devices[0].proofs == 7, "status: 7 proofs on the GPU (got %llu)",
          (unsigned long long)st.devices[0].proofs);
    /* the provers' page-locked witness staging is charged to the budget */
    CHECK(st.mem_pinned > 0 && st.mem_pinned % 32 == 0 &&
              st.mem_used >= st.mem_keys + st.mem_buffers + st.mem_intake + st.mem_pinned,
          "status: pinned staging charged (%llu bytes pinned, %llu used)",
          (unsigned long long)st.mem_pinned, (unsigned long long)st.mem_used);

    /* evict: the device copy goes; the next job uploads again */
    CHECK(cuzk_engine_key_evict(e, "bn", &err) == CUZK_OK, "evict bn: %s", err.msg);
    cuzk_engine_status_get(e, &st);
    CHECK(st.devices[0].device_keys == 1, "evicted key left the GPU (%u keys)",
          st.devices[0].device_keys);
    prove_job(e, &bn, "bn", 2, "bn254 after eviction");

    /* a witness value >= r fails its job; the engine keeps serving */
    cuzk_witness bw = {.path = bn.bad};
    cuzk_submit_opts o = {.key = "bn", .witnesses = &bw, .n_witnesses = 1};
    cuzk_job *job = NULL;
    cuzk_status s = cuzk_submit(e, &job, NULL, &o, &err);
    if (s == CUZK_OK)
        s = cuzk_job_await(job, 60000, &err);
    CHECK(s == CUZK_ERANGE, "bad witness fails with ERANGE (got %s: %s)", cuzk_status_name(s),
          err.msg);
    cuzk_job_release(job);
    prove_job(e, &bls, "bls", 2, "bls12_381 after a failed job");

    cuzk_engine_destroy(e, 10000);

    /* batches: four partitions of one key per device step */
    {
        cuzk_engine_config bc = cfg;
        bc.batch_max = 4;
        if (cuzk_engine_create(&e, &bc, &err) != CUZK_OK) {
            CHECK(0, "engine with batch_max 4: %s", err.msg);
        } else {
            CHECK(cuzk_engine_key_preload(e, "bls", bls.zkey, &err) == CUZK_OK, "preload: %s",
                  err.msg);
            prove_job(e, &bls, "bls", 8, "bls12_381 x8, batch_max 4");
            prove_job(e, &bn, bn.zkey, 5, "bn254 x5, batch_max 4");
            cuzk_engine_destroy(e, 10000);
        }
    }

    /* a device-memory cap the key does not fit under, resident */
    {
        char sub[300];
        snprintf(sub, sizeof sub, "%s/big", dir);
        circuit big;
        cuzk_gpu_ctx *tmp = NULL;
        if (mkdir(sub, 0700) == 0 && make_circuit(&big, CUZK_CURVE_BN254, 20, sub) &&
            cuzk_gpu_ctx_create(0, &tmp, &err) == CUZK_OK) {
            size_t n = (size_t)1 << 20, s1, s2;
            cuzk_gpu_msm_info h1, h2;
            cuzk_gpu_msm_scratch_bytes(tmp, CUZK_CURVE_BN254, CUZK_GPU_G1, n, 0, &s1, &err);
            cuzk_gpu_msm_scratch_bytes(tmp, CUZK_CURVE_BN254, CUZK_GPU_G2, n, 0, &s2, &err);
            /* streamed, the MSMs plan within what the cap leaves: the
             * least any plan takes */
            cuzk_gpu_msm_plan(tmp, CUZK_CURVE_BN254, CUZK_GPU_G1, n, 1, CUZK_GPU_SCALARS_DEVICE, 1,
                              1, &h1, &err);
            cuzk_gpu_msm_plan(tmp, CUZK_CURVE_BN254, CUZK_GPU_G2, n, 1, CUZK_GPU_SCALARS_DEVICE, 1,
                              1, &h2, &err);
            cuzk_gpu_ctx_destroy(tmp);
            /* as prove_gpu.c reckons: bases (G1 64 B, G2 128 B), a prover's
             * buffers, the scratch of its two streams; plus the matrices
             * (under 150 B a row here) and twiddle tables for the streamed
             * run, with one worker */
            uint64_t bases = 64 * 4 * (uint64_t)n + 128 * (uint64_t)n, work = 32 * 5 * (uint64_t)n;
            uint64_t need_dev = bases + work + s1 + s2;
            uint64_t need_host = work + 4 * (h1.scratch_bytes + h2.scratch_bytes) +
                                 150 * (uint64_t)n + (64ULL << 20);
            CHECK(need_host < 0.8 * need_dev,
                  "a cap between streamed (%.0f MiB) and resident (%.0f MiB) exists",
                  need_host / 1048576.0, need_dev / 1048576.0);
            uint64_t cap = (need_host + (uint64_t)(0.8 * need_dev)) / 2;
            cuzk_engine_config cc = cfg;
            cc.devices[0].workers = 1;
            cc.devices[0].gpu_mem_limit = cap;
            if (cuzk_engine_create(&e, &cc, &err) != CUZK_OK) {
                CHECK(0, "engine with a device cap: %s", err.msg);
            } else {
                CHECK(cuzk_engine_key_preload(e, "big", big.zkey, &err) == CUZK_OK,
                      "preload under the cap: %s", err.msg);
                cuzk_key_info ki;
                memset(&ki, 0, sizeof ki);
                cuzk_engine_keys(e, &ki, 1);
                CHECK(ki.tier == CUZK_TIER_PINNED && strstr(ki.tier_why, "pinned host memory"),
                      "under a %.0f MiB cap the 2^20 key streams (tier %s: %s)",
                      cap / 1048576.0, cuzk_key_tier_name(ki.tier), ki.tier_why);
                prove_job(e, &big, "big", 3, "bn254 2^20 x3 under the cap");
                cuzk_engine_status_get(e, &st);
                CHECK(st.devices[0].device_mem_peak_bytes > 0 &&
                          st.devices[0].device_mem_peak_bytes <= cap,
                      "device memory stayed under the cap (peak %.0f of %.0f MiB)",
                      st.devices[0].device_mem_peak_bytes / 1048576.0, cap / 1048576.0);
                cuzk_engine_destroy(e, 10000);
            }
            cuzk_vk_clear(&big.vk);
            free(big.pub);
        } else {
            CHECK(0, "the 2^20 circuit: %s", err.msg);
        }
    }

    /* gpu_key_tier PINNED: the bases stay in pinned host memory although
     * the device could hold them, and the proofs are the same */
    {
        cuzk_engine_config pc = cfg;
        pc.devices[0].gpu_key_tier = CUZK_TIER_PINNED;
        if (cuzk_engine_create(&e, &pc, &err) != CUZK_OK) {
            CHECK(0, "engine with pinned keys: %s", err.msg);
        } else {
            CHECK(cuzk_engine_key_preload(e, "pinned", bn.zkey, &err) == CUZK_OK,
                  "preload pinned: %s", err.msg);
            cuzk_key_info ki;
            memset(&ki, 0, sizeof ki);
            cuzk_engine_keys(e, &ki, 1);
            CHECK(ki.tier == CUZK_TIER_PINNED, "gpu_key_tier PINNED keeps the key pinned (%s: %s)",
                  cuzk_key_tier_name(ki.tier), ki.tier_why);
            prove_job(e, &bn, "pinned", 2, "bn254 with the key pinned by request");
            cuzk_engine_destroy(e, 10000);
        }
    }

    /* a failed GPU step is retried on the CPU fallback, which evaluates */
    cfg.cpu_fallback = 1;
    static cuzk_testing hooks = {.fault_fn = fail_first_gpu_attempt};
    cfg.testing = &hooks;
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK) {
        CHECK(0, "engine with fallback: %s", err.msg);
    } else {
        cuzk_witness w = {.path = bn.wtns};
        cuzk_submit_opts ro = {.key = bn.zkey, .request_id = "retry-1", .witnesses = &w,
                               .n_witnesses = 1};
        cuzk_job *rj = NULL;
        cuzk_status rs = cuzk_submit(e, &rj, NULL, &ro, &err);
        if (rs == CUZK_OK)
            rs = cuzk_job_await(rj, 120000, &err);
        cuzk_proof p;
        cuzk_partition_info pi;
        if (rj)
            cuzk_job_status(rj, NULL, &pi, 1);
        CHECK(rs == CUZK_OK && job_proof(rj, &p, 0, &err) == CUZK_OK &&
                  cuzk_vk_verify(&bn.vk, bn.pub, bn.n_pub, &p, &err) == CUZK_OK,
              "retried on the CPU fallback: valid proof (%s)", err.msg);
        CHECK(rj && pi.attempts == 2 && pi.device == 1,
              "retry ran on the fallback device (attempts %u, device %d)", rj ? pi.attempts : 0,
              rj ? pi.device : -9);
        cuzk_job_release(rj);
        cuzk_engine_destroy(e, 10000);
    }

    /* Two engine devices on the one GPU (how a multi-GPU host looks to the
     * engine, minus the hardware): a job's partitions spread over both,
     * each holds its own copy of the key, and a failing device's
     * partitions are retried on the other. */
    cuzk_engine_config two = cfg;
    two.n_devices = 2;
    two.devices[1] = two.devices[0];
    two.cpu_fallback = 0;
    two.testing = &hooks;
    if (cuzk_engine_create(&e, &two, &err) != CUZK_OK) {
        CHECK(0, "engine with two GPU devices: %s", err.msg);
    } else {
        CHECK(cuzk_engine_key_preload(e, "bls", bls.zkey, &err) == CUZK_OK, "preload: %s",
              err.msg);
        /* affinity: the key is prepared on one device, and one partition
         * at a time all go to that device while it is idle */
        cuzk_engine_status_get(e, &st);
        int holder = st.devices[0].device_keys ? 0 : 1;
        CHECK(st.devices[0].device_keys + st.devices[1].device_keys == 1,
              "a loaded key is prepared on one GPU device (%u + %u)", st.devices[0].device_keys,
              st.devices[1].device_keys);
        for (int k = 0; k < 4; k++) {
            cuzk_witness w1 = {.path = bls.wtns};
            cuzk_submit_opts o1 = {.key = "bls", .witnesses = &w1, .n_witnesses = 1};
            cuzk_job *j1 = NULL;
            cuzk_status s1 = cuzk_submit(e, &j1, NULL, &o1, &err);
            if (s1 == CUZK_OK)
                s1 = cuzk_job_await(j1, 60000, &err);
            CHECK(s1 == CUZK_OK, "single partition %d: %s", k, err.msg);
            cuzk_job_release(j1);
        }
        cuzk_engine_status_get(e, &st);
        CHECK(st.devices[holder].proofs == 4 && st.devices[1 - holder].proofs == 0,
              "one at a time, partitions go to the device holding the key (%llu / %llu)",
              (unsigned long long)st.devices[holder].proofs,
              (unsigned long long)st.devices[1 - holder].proofs);
        uint64_t before = st.devices[0].proofs + st.devices[1].proofs;
        cuzk_witness w8[8];
        for (int i = 0; i < 8; i++)
            w8[i] = (cuzk_witness){.path = bls.wtns};
        cuzk_submit_opts o8 = {.key = "bls", .witnesses = w8, .n_witnesses = 8};
        cuzk_job *j8 = NULL;
        cuzk_status s8 = cuzk_submit(e, &j8, NULL, &o8, &err);
        if (s8 == CUZK_OK)
            s8 = cuzk_job_await(j8, 120000, &err);
        CHECK(s8 == CUZK_OK, "8 partitions on two devices: %s", err.msg);
        cuzk_engine_status_get(e, &st);
        CHECK(st.n_devices == 2 && st.devices[0].proofs + st.devices[1].proofs == before + 8,
              "8 more proofs on the two devices (%llu + %llu)",
              (unsigned long long)st.devices[0].proofs, (unsigned long long)st.devices[1].proofs);
        printf("two logical GPU devices: %llu and %llu partitions\n",
               (unsigned long long)st.devices[0].proofs, (unsigned long long)st.devices[1].proofs);
        for (unsigned i = 0; s8 == CUZK_OK && i < 8; i++) {
            cuzk_proof p;
            CHECK(job_proof(j8, &p, i, &err) == CUZK_OK &&
                      cuzk_vk_verify(&bls.vk, bls.pub, bls.n_pub, &p, &err) == CUZK_OK,
                  "two devices: partition %u verifies", i);
        }
        cuzk_job_release(j8);
        /* a device failure moves the partition to the other GPU device */
        cuzk_witness w = {.path = bls.wtns};
        cuzk_submit_opts ro = {.key = "bls", .request_id = "retry-2", .witnesses = &w,
                               .n_witnesses = 1};
        cuzk_job *rj = NULL;
        cuzk_status rs = cuzk_submit(e, &rj, NULL, &ro, &err);
        if (rs == CUZK_OK)
            rs = cuzk_job_await(rj, 120000, &err);
        cuzk_partition_info pi;
        if (rj)
            cuzk_job_status(rj, NULL, &pi, 1);
        CHECK(rs == CUZK_OK && rj && pi.attempts == 2,
              "failed GPU step retried on the other GPU device (attempts %u): %s",
              rj ? pi.attempts : 0, err.msg);
        cuzk_job_release(rj);
        cuzk_engine_destroy(e, 10000);
    }
    cuzk_vk_clear(&bn.vk);
    cuzk_vk_clear(&bls.vk);
    free(bn.pub);
    free(bls.pub);
    cuzk_pool_destroy(gen_pool);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return tu_finish();
#endif
}
