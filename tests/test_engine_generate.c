/*
 * Keys made in memory by the engine (cuzk_engine_key_generate, the path
 * `cuzk bench filecoin` takes so that a 2^27 key never touches the disk):
 * a development key of a generated circuit is resident and charged after
 * the call, every partition of a job reads the returned witness image in
 * place, and the engine's own verification (self_verify) passes each
 * proof; a timing key of the porep profile (compact, zero columns) proves
 * the same way (its proofs are not checked: they do not verify); an id
 * that is taken, an empty or too long id and parameters the generator
 * refuses are refused with their status, and leave the key table as it
 * was.  Both curves (tests/testutil.h); CUZK_TEST_CURVE=<name> runs one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk.h"
#include "cuzk_tools.h"
#include "testutil.h"

static void keep(void *ctx, const void *data) {
    (void)ctx;
    (void)data;
}

static cuzk_engine *engine(int verify) {
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.n_devices = 1;
    cfg.devices[0].kind = CUZK_DEVICE_CPU;
    cfg.devices[0].threads = 2;
    cfg.self_verify = verify;
    cfg.log_level = CUZK_LOG_WARN;
    cuzk_engine *e = NULL;
    cuzk_error err = {0};
    CHECK(cuzk_engine_create(&e, &cfg, &err) == CUZK_OK, "engine: %s", err.msg);
    return e;
}

/* A job of |parts| partitions reading |img| in place; returns its state. */
static cuzk_job_state prove(cuzk_engine *e, const char *key, const uint8_t *img, size_t size,
                            unsigned parts, cuzk_error *err) {
    cuzk_witness w[4];
    memset(w, 0, sizeof w);
    for (unsigned i = 0; i < parts; i++)
        w[i].data = img, w[i].size = size, w[i].release = keep;
    cuzk_submit_opts so = {.key = key, .witnesses = w, .n_witnesses = parts};
    cuzk_job *job = NULL;
    if (cuzk_submit(e, &job, NULL, &so, err) != CUZK_OK)
        return CUZK_JOB_FAILED;
    cuzk_job_await(job, -1, err);
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    if (info.state != CUZK_JOB_DONE)
        snprintf(err->msg, sizeof err->msg, "%s", info.msg);
    cuzk_job_release(job);
    return info.state;
}

static void run_curve(const tu_curve *c) {
    cuzk_curve curve = (cuzk_curve)c->id;
    cuzk_error err = {0};
    cuzk_engine *e = engine(1);
    if (!e)
        return;
    cuzk_synth_params p;
    cuzk_synth_params_default(&p, curve);
    p.log2_domain = 10;
    p.seed = tu_rand64();
    uint8_t *img = NULL;
    size_t size = 0;
    CHECK(cuzk_engine_key_generate(e, "gen", &p, 0, &img, &size, &err) == CUZK_OK && img &&
              size > 0,
          "%s: dev key generated in memory: %s", c->name, err.msg);
    cuzk_key_info ki[4];
    size_t nk = cuzk_engine_keys(e, ki, 4);
    CHECK(nk == 1 && !strcmp(ki[0].id, "gen") && ki[0].tier == CUZK_TIER_HOST &&
              ki[0].curve == curve && ki[0].log_n == 10 && ki[0].mem_bytes > 0,
          "%s: the key is resident and charged (%zu keys, tier %d, %llu bytes)", c->name, nk,
          nk ? (int)ki[0].tier : -1, nk ? (unsigned long long)ki[0].mem_bytes : 0ULL);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.mem_keys >= ki[0].mem_bytes, "%s: the budget counts the key", c->name);
    if (img)
        CHECK(prove(e, "gen", img, size, 3, &err) == CUZK_JOB_DONE,
              "%s: 3 partitions of the image prove and verify: %s", c->name, err.msg);
    /* refusals leave the table as it was */
    uint8_t *x = NULL;
    size_t xs = 0;
    CHECK(cuzk_engine_key_generate(e, "gen", &p, 0, &x, &xs, &err) == CUZK_EMISMATCH && !x,
          "%s: a taken id is refused", c->name);
    CHECK(cuzk_engine_key_generate(e, "", &p, 0, &x, &xs, &err) == CUZK_EINVAL && !x,
          "%s: an empty id is refused", c->name);
    char long_id[CUZK_ID_MAX + 8];
    memset(long_id, 'k', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = 0;
    CHECK(cuzk_engine_key_generate(e, long_id, &p, 0, &x, &xs, &err) == CUZK_EINVAL && !x,
          "%s: an id over %d bytes is refused", c->name, CUZK_ID_MAX);
    cuzk_synth_params bad = p;
    bad.bool_share = 2;
    CHECK(cuzk_engine_key_generate(e, "bad", &bad, 0, &x, &xs, &err) == CUZK_EINVAL && !x,
          "%s: parameters the generator refuses are refused", c->name);
    CHECK(cuzk_engine_keys(e, ki, 4) == 1, "%s: nothing was added by the refusals", c->name);
    cuzk_engine_destroy(e, -1);
    free(img);

    /* a timing key of the porep profile: compact, proves (unchecked) */
    e = engine(0);
    if (!e)
        return;
    cuzk_synth_params q;
    cuzk_synth_params_default(&q, curve);
    CHECK(cuzk_synth_params_profile(&q, "porep", &err) == CUZK_OK, "porep profile: %s",
          err.msg);
    q.curve = curve;
    q.log2_domain = 11;
    q.seed = tu_rand64();
    img = NULL;
    CHECK(cuzk_engine_key_generate(e, "porep", &q, 1, &img, &size, &err) == CUZK_OK && img,
          "%s: porep timing key generated: %s", c->name, err.msg);
    if (img)
        CHECK(prove(e, "porep", img, size, 2, &err) == CUZK_JOB_DONE,
              "%s: porep partitions prove with the timing key: %s", c->name, err.msg);
    cuzk_engine_destroy(e, -1);
    free(img);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_generate");
    static const tu_curve curves[] = {
        {"bn254", CUZK_CURVE_BN254, run_curve},
        {"bls12_381", CUZK_CURVE_BLS12_381, run_curve},
    };
    tu_run_curves(curves, TU_COUNT(curves));
    return tu_finish();
}
