/*
 * Fixtures shared by the engine tests (tests/test_engine*.c): small
 * generated circuits with INSECURE development keys in a temporary
 * directory, job verification, and a log sink.  Header-only (static
 * functions) because CMake turns every tests/test_*.c into a program.
 */
#ifndef CUZK_TEST_ENGINE_UTIL_H
#define CUZK_TEST_ENGINE_UTIL_H

#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk.h"
#include "cuzk_testing.h"
#include "engine/api.h"
#include "groth16/formats/abc.h"
#include "groth16/prover/abc_image.h"
#include "groth16/formats/wtns.h"
#include "groth16/prover/key.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "testutil.h"

typedef struct eu_circuit {
    char zkey[512], wtns[512];
    cuzk_curve curve;
    cuzk_vk vk;
    size_t key_bytes; /* cuzk_key.mem_bytes of the loaded key */
    uint8_t *wtns_mem; /* the .wtns file's bytes */
    size_t wtns_size;
} eu_circuit;

static char *eu_tmpdir(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cuzk-engine-test-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    return dir;
}

static void eu_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[1024];
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Generate circuit |name| (2^log2 domain, |seed|) with a dev key in |dir|;
 * exits on failure (a broken fixture makes every check meaningless). */
static void eu_make(eu_circuit *c, const char *dir, const char *name, cuzk_curve curve,
                    unsigned log2, uint64_t seed) {
    char r1cs[512];
    cuzk_error err = {0};
    cuzk_synth_params sp;
    memset(c, 0, sizeof *c);
    c->curve = curve;
    snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", dir, name);
    snprintf(c->wtns, sizeof c->wtns, "%s/%s.wtns", dir, name);
    snprintf(c->zkey, sizeof c->zkey, "%s/%s.zkey", dir, name);
    cuzk_synth_params_default(&sp, curve);
    sp.log2_domain = log2;
    sp.seed = seed;
    cuzk_key key;
    if (cuzk_synth_write(r1cs, c->wtns, &sp, &err) != CUZK_OK ||
        cuzk_setup_dev_write(r1cs, c->zkey, &seed, NULL, &err) != CUZK_OK ||
        cuzk_key_load(&key, c->zkey, &err) != CUZK_OK || cuzk_key_vk(&key, &c->vk, &err) != CUZK_OK) {
        fprintf(stderr, "fixture %s: %s\n", name, err.msg);
        exit(1);
    }
    c->key_bytes = key.mem_bytes;
    cuzk_key_free(&key);
    c->wtns_mem = tu_read_file(c->wtns, &c->wtns_size);
    if (!c->wtns_mem) {
        fprintf(stderr, "fixture %s: cannot read %s\n", name, c->wtns);
        exit(1);
    }
}

static void eu_free(eu_circuit *c) {
    cuzk_vk_clear(&c->vk);
    free(c->wtns_mem);
}

/* The a, b, c image of |c|'s witness, evaluated with the key at |zkey|
 * (malloc'd, free() it; *size its bytes), or NULL after a failed check. */
static uint8_t *eu_image_of(const eu_circuit *c, const char *zkey, size_t *size) {
    cuzk_key key;
    cuzk_wtns w;
    cuzk_error err = {0};
    uint8_t *img = NULL;
    if (cuzk_key_load(&key, zkey, &err) != CUZK_OK) {
        CHECK(0, "load %s: %s", zkey, err.msg);
        return NULL;
    }
    if (cuzk_wtns_open(&w, c->wtns, &err) == CUZK_OK) {
        cuzk_fr *plain = malloc(w.n_witness * sizeof *plain);
        memcpy(plain, w.values, w.n_witness * sizeof *plain);
        if (cuzk_abc_from_witness(&key, plain, w.n_witness, NULL, &img, size, &err) != CUZK_OK)
            img = NULL;
        free(plain);
        cuzk_wtns_close(&w);
    }
    CHECK(img != NULL, "image of %s: %s", c->wtns, err.msg);
    cuzk_key_free(&key);
    return img;
}

/* Verifies every partition of a DONE job against |vk|, and that the JSON
 * strings exist; returns the number of valid proofs. */
static size_t eu_verify_job(cuzk_job *j, const cuzk_vk *vk) {
    size_t ok = 0, n = cuzk_job_partitions(j);
    for (size_t i = 0; i < n; i++) {
        cuzk_proof_bytes proof;
        uint8_t *pub = NULL;
        size_t n_pub = 0;
        cuzk_error err = {0};
        cuzk_status s = cuzk_job_public_bytes(j, NULL, NULL, &n_pub, i, &err);
        if (s == CUZK_OK && !(pub = malloc(n_pub * CUZK_SCALAR_BYTES + 1)))
            s = cuzk_fail(&err, CUZK_ENOMEM, "no memory");
        if (s == CUZK_OK)
            s = cuzk_job_public_bytes(j, NULL, pub, &n_pub, i, &err);
        if (s == CUZK_OK)
            s = cuzk_job_proof_bytes(j, &proof, i, &err);
        /* through the public API: the images, verified as an embedder would */
        if (s == CUZK_OK)
            s = cuzk_verify(vk, &proof, pub, n_pub, &err);
        free(pub);
        if (s != CUZK_OK) {
            fprintf(stderr, "  job %llu partition %zu: %s\n", (unsigned long long)cuzk_job_id(j), i,
                    err.msg);
            continue;
        }
        if (!cuzk_job_proof_json(j, i) || !cuzk_job_public_json(j, i))
            continue;
        ok++;
    }
    return ok;
}

/* A log sink that counts lines by kind and prints nothing (set CUZK_TEST_LOG
 * to see them). */
typedef struct eu_log {
    _Atomic unsigned partition_lines, job_lines, other;
} eu_log;

static void eu_log_fn(void *ctx, cuzk_log_level level, const char *line) {
    eu_log *l = ctx;
    if (getenv("CUZK_TEST_LOG"))
        fprintf(stderr, "[%d] %s\n", (int)level, line);
    if (!l)
        return;
    if (strstr(line, " partition ") && strstr(line, " ms (queue "))
        atomic_fetch_add(&l->partition_lines, 1);
    else if (strstr(line, " partitions proved in "))
        atomic_fetch_add(&l->job_lines, 1);
    else
        atomic_fetch_add(&l->other, 1);
}

/* The test hooks (cuzk_testing.h) of the config eu_config made last; the
 * engine copies them at create, so one at a time is enough. */
static cuzk_testing eu_testing;

/* Engine config for tests: small thread counts (the CI machine has two
 * cores), logs into |log|, hooks in eu_testing (cleared). */
static void eu_config(cuzk_engine_config *cfg, eu_log *log) {
    cuzk_engine_config_default(cfg);
    memset(&eu_testing, 0, sizeof eu_testing);
    cfg->testing = &eu_testing;
    cfg->synth_threads = 1;
    cfg->log_fn = eu_log_fn;
    cfg->log_ctx = log;
    cfg->log_level = CUZK_LOG_INFO;
    cfg->budget_bytes = 1ULL << 30;
    cfg->trace_events = 4096;
}

/* An engine of |cfg|, or the test ends (exit 1) with the reason. */
static cuzk_engine *eu_create(const cuzk_engine_config *cfg) {
    cuzk_engine *e;
    cuzk_error err = {0};
    if (cuzk_engine_create(&e, cfg, &err) != CUZK_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        exit(1);
    }
    return e;
}

static void eu_cpu_device(cuzk_engine_config *cfg, unsigned threads) {
    cfg->n_devices = 1;
    memset(&cfg->devices[0], 0, sizeof cfg->devices[0]);
    cfg->devices[0].kind = CUZK_DEVICE_CPU;
    cfg->devices[0].threads = threads;
}

static void eu_sim_device(cuzk_engine_config *cfg, unsigned i, uint32_t compute_us) {
    if (cfg->n_devices < i + 1)
        cfg->n_devices = i + 1;
    memset(&cfg->devices[i], 0, sizeof cfg->devices[i]);
    cfg->devices[i].kind = CUZK_DEVICE_SIMULATED;
    eu_testing.sim[i].compute_us = compute_us;
    cfg->testing = &eu_testing;
}

/* Submit |n| partitions of circuit |c| by path. */
static cuzk_job *eu_submit(cuzk_engine *e, const eu_circuit *c, const char *key, size_t n,
                           cuzk_priority prio, const char *request_id, cuzk_error *err) {
    cuzk_witness w[16];
    memset(w, 0, sizeof w);
    for (size_t i = 0; i < n && i < 16; i++)
        w[i].path = c->wtns;
    cuzk_submit_opts o = {.key = key ? key : c->zkey, .request_id = request_id, .priority = prio,
                          .witnesses = w, .n_witnesses = n};
    cuzk_job *j = NULL;
    if (cuzk_submit(e, &j, NULL, &o, err) != CUZK_OK)
        return NULL;
    return j;
}

#endif
