/*
 * Jobs whose partitions are a, b, c images (groth16/formats/abc.h) instead of
 * witnesses: the engine tells them by their magic, checks them against the
 * key and proves them without evaluating.
 *
 * On the CPU device, for both curves (generated circuits with development
 * keys):
 * - one job mixing the image by path, the image in memory (copied), the
 *   image in memory read in place (release callback called once) and the
 *   .wtns by path: every proof verifies, all four have the same public
 *   signals, the image partitions report eval_site CUZK_EVAL_INPUT with no
 *   evaluation time, the witness partition CUZK_EVAL_SYNTHESIS;
 * - a device step that fails is retried from the image (converted again:
 *   the step consumed a, b, c) and the proofs verify;
 * - a key with its coefficient list removed proves the image, and fails a
 *   witness job with a message saying why;
 * - on a simulated device that evaluates a, b, c itself (as GPUs do), the
 *   images are still converted by synthesis (eval_site CUZK_EVAL_INPUT);
 * - on a GPU device (CUDA builds with a usable device 0): the images
 *   prove with the GPU's evaluation skipped, the witness with it, the
 *   key without coefficients proves the image;
 * - bad images fail only their own job with the reader's status and
 *   message (truncated, a value >= r, an image for a key of another size),
 *   and the engine keeps proving: a good job after them succeeds.
 */
#include <stdatomic.h>

#include "cuzk_testing.h"
#include "groth16/formats/abc.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"
#include "test_engine_util.h"

static _Atomic unsigned released;
static void on_release(void *ctx, const void *data) {
    (void)ctx, (void)data;
    atomic_fetch_add(&released, 1);
}

/* Fails the first device attempt of jobs whose request id starts with
 * "retry": the retry converts the image again (the step consumes a, b, c). */
static void fail_first(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    (void)ctx;
    if (at->site == CUZK_FAULT_DEVICE && at->attempt == 0 && at->request_id &&
        !strncmp(at->request_id, "retry", 5)) {
        out->action = CUZK_FAULT_FAIL;
        snprintf(out->msg, sizeof out->msg, "injected device failure");
    }
}

static int write_bytes(const char *path, const uint8_t *b, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, n, f) == n;
    if (f)
        ok = !fclose(f) && ok;
    return ok;
}

/* Public signals of partition |i| (plain bytes, malloc'd), *n of them. */
static uint8_t *public_of(cuzk_job *j, size_t i, size_t *n) {
    cuzk_error err = {0};
    uint8_t *pub = NULL;
    *n = 0;
    if (cuzk_job_public_bytes(j, NULL, NULL, n, i, &err) == CUZK_OK &&
        (pub = malloc(*n * CUZK_SCALAR_BYTES + 1)) != NULL &&
        cuzk_job_public_bytes(j, NULL, pub, n, i, &err) == CUZK_OK)
        return pub;
    free(pub);
    return NULL;
}

/* Submit one partition per witness and wait: the outcome, |msg| its text. */
static cuzk_status run_job(cuzk_engine *e, const char *key, cuzk_witness *w, size_t n,
                           cuzk_job **out, cuzk_error *err) {
    cuzk_submit_opts o = {.key = key, .witnesses = w, .n_witnesses = n};
    cuzk_status s = cuzk_submit(e, out, NULL, &o, err);
    if (s != CUZK_OK)
        return s;
    return cuzk_job_await(*out, -1, err);
}

#ifdef CUZK_HAVE_CUDA
static int gpu; /* a usable CUDA device 0 */

/* On a GPU device (no CPU fallback): the images are handed over as a, b, c
 * evaluated elsewhere (the GPU skips its evaluation), the witness is
 * evaluated on the GPU, and the key without coefficients proves images. */
static void gpu_jobs(const tu_curve *tc, const eu_circuit *c, const char *path,
                     const uint8_t *img, size_t isize, const char *nocoef) {
    cuzk_engine_config cfg;
    eu_log log = {0};
    eu_config(&cfg, &log);
    cfg.n_devices = 1;
    memset(&cfg.devices[0], 0, sizeof cfg.devices[0]);
    cfg.devices[0].kind = CUZK_DEVICE_GPU;
    cfg.devices[0].gpu_index = 0;
    cfg.cpu_fallback = 0;
    cuzk_engine *e = eu_create(&cfg);
    cuzk_error err = {0};
    cuzk_job *j = NULL;
    cuzk_witness w[3];
    memset(w, 0, sizeof w);
    w[0].path = path;
    w[1].data = img, w[1].size = isize;
    w[2].path = c->wtns;
    cuzk_status s = run_job(e, c->zkey, w, 3, &j, &err);
    CHECK(s == CUZK_OK && eu_verify_job(j, &c->vk) == 3, "%s gpu: images and witness: %s",
          tc->name, err.msg);
    if (s == CUZK_OK) {
        cuzk_partition_info pi[3];
        cuzk_job_status(j, NULL, pi, 3);
        for (int i = 0; i < 3; i++) {
            cuzk_eval_site want = i < 2 ? CUZK_EVAL_INPUT : CUZK_EVAL_DEVICE;
            CHECK(pi[i].steps.eval_site == want && pi[i].attempts == 1,
                  "%s gpu: partition %d eval_site %d (want %d), attempts %u", tc->name, i,
                  (int)pi[i].steps.eval_site, (int)want, pi[i].attempts);
        }
    }
    cuzk_job_release(j);
    memset(w, 0, sizeof w);
    w[0].path = path;
    s = run_job(e, nocoef, w, 1, &j, &err);
    CHECK(s == CUZK_OK && eu_verify_job(j, &c->vk) == 1,
          "%s gpu: the key without coefficients proves the image: %s", tc->name, err.msg);
    cuzk_job_release(j);
    w[0].path = c->wtns;
    s = run_job(e, nocoef, w, 1, &j, &err);
    CHECK(s == CUZK_EUNSUPPORTED, "%s gpu: a witness for the key without coefficients: %d %s",
          tc->name, (int)s, err.msg);
    cuzk_job_release(j);
    cuzk_engine_destroy(e, -1);
}
#endif

static void curve_tests(const tu_curve *tc) {
    cuzk_curve curve = (cuzk_curve)tc->id;
    char *dir = eu_tmpdir(), path[600], nocoef[600], small_abc[600];
    eu_circuit c, small;
    eu_make(&c, dir, "c", curve, 11, tu_rand64());
    eu_make(&small, dir, "small", curve, 10, tu_rand64());
    size_t isize = 0, ssize = 0;
    uint8_t *img = eu_image_of(&c, c.zkey, &isize);
    uint8_t *simg = eu_image_of(&small, small.zkey, &ssize);
    if (!img || !simg)
        return;
    snprintf(path, sizeof path, "%s/c.abc", dir);
    snprintf(small_abc, sizeof small_abc, "%s/small.abc", dir);
    CHECK(write_bytes(path, img, isize) && write_bytes(small_abc, simg, ssize), "write images");

    /* the key without its coefficient list */
    {
        uint8_t *zb = NULL;
        size_t zs = 0;
        cuzk_zkey z;
        cuzk_error err = {0};
        snprintf(nocoef, sizeof nocoef, "%s/nocoef.zkey", dir);
        CHECK(cuzk_zkey_open(&z, c.zkey, &err) == CUZK_OK &&
                  cuzk_zkey_write_mem(&z, NULL, 0, &zb, &zs, &err) == CUZK_OK &&
                  write_bytes(nocoef, zb, zs),
              "key without coefficients: %s", err.msg);
        cuzk_zkey_close(&z);
        free(zb);
    }

    cuzk_engine_config cfg;
    eu_log log = {0};
    eu_config(&cfg, &log);
    eu_cpu_device(&cfg, 2);
    eu_testing.fault_fn = fail_first;
    cuzk_engine *e = eu_create(&cfg);
    cuzk_error err = {0};
    cuzk_job *j = NULL;

    /* image by path, copied, in place; the witness */
    cuzk_witness w[4];
    memset(w, 0, sizeof w);
    w[0].path = path;
    w[1].data = img, w[1].size = isize;
    w[2].data = img, w[2].size = isize, w[2].release = on_release;
    w[3].path = c.wtns;
    atomic_store(&released, 0);
    cuzk_status s = run_job(e, c.zkey, w, 4, &j, &err);
    CHECK(s == CUZK_OK, "%s: image and witness job: %s", tc->name, err.msg);
    if (s == CUZK_OK) {
        CHECK(eu_verify_job(j, &c.vk) == 4, "%s: all four proofs verify", tc->name);
        cuzk_partition_info pi[4];
        cuzk_job_status(j, NULL, pi, 4);
        size_t n0, n;
        uint8_t *p0 = public_of(j, 3, &n0);
        for (size_t i = 0; i < 4; i++) {
            uint8_t *p = public_of(j, i, &n);
            CHECK(p && p0 && n == n0 && !memcmp(p, p0, n * CUZK_SCALAR_BYTES),
                  "%s: partition %zu has the witness's public signals", tc->name, i);
            free(p);
            cuzk_eval_site want = i < 3 ? CUZK_EVAL_INPUT : CUZK_EVAL_SYNTHESIS;
            CHECK(pi[i].steps.eval_site == want && (i == 3 || pi[i].steps.evaluate_ns == 0),
                  "%s: partition %zu eval_site %d (want %d), evaluate %llu ns", tc->name, i,
                  (int)pi[i].steps.eval_site, (int)want,
                  (unsigned long long)pi[i].steps.evaluate_ns);
        }
        free(p0);
    }
    cuzk_job_release(j);
    CHECK(atomic_load(&released) == 1, "%s: the in-place image released once (%u)", tc->name,
          atomic_load(&released));

    /* a failed device step is retried from the image, converted again */
    {
        cuzk_witness rw[2];
        memset(rw, 0, sizeof rw);
        rw[0].path = path;
        rw[1].data = img, rw[1].size = isize;
        cuzk_submit_opts o = {.key = c.zkey, .request_id = "retry1", .witnesses = rw,
                              .n_witnesses = 2};
        s = cuzk_submit(e, &j, NULL, &o, &err);
        if (s == CUZK_OK)
            s = cuzk_job_await(j, -1, &err);
        cuzk_partition_info pi[2];
        if (s == CUZK_OK)
            cuzk_job_status(j, NULL, pi, 2);
        CHECK(s == CUZK_OK && eu_verify_job(j, &c.vk) == 2 && pi[0].attempts == 2 &&
                  pi[1].attempts == 2,
              "%s: images retried after a failed device step: %s", tc->name, err.msg);
        cuzk_job_release(j);
    }

    /* the key without coefficients: the image proves, a witness does not */
    memset(w, 0, sizeof w);
    w[0].path = path;
    s = run_job(e, nocoef, w, 1, &j, &err);
    CHECK(s == CUZK_OK && eu_verify_job(j, &c.vk) == 1,
          "%s: the key without coefficients proves the image: %s", tc->name, err.msg);
    cuzk_job_release(j);
    w[0].path = c.wtns;
    s = run_job(e, nocoef, w, 1, &j, &err);
    CHECK(s == CUZK_EUNSUPPORTED && strstr(err.msg, "no A and B coefficients"),
          "%s: a witness for the key without coefficients: %d %s", tc->name, (int)s, err.msg);
    cuzk_job_release(j);
    /* the client's mistake, not the key's failure; and refused before a
     * job is made once the key is known (cuzkd's 400) */
    {
        cuzk_key_info ki[8];
        size_t nk = cuzk_engine_keys(e, ki, 8), found = 0;
        for (size_t i = 0; i < nk && i < 8; i++)
            if (strstr(ki[i].path, "nocoef.zkey")) {
                found = 1;
                CHECK(ki[i].failures == 0 && ki[i].proofs == 1,
                      "%s: the key without coefficients counts %llu failures, %llu proofs",
                      tc->name, (unsigned long long)ki[i].failures,
                      (unsigned long long)ki[i].proofs);
            }
        CHECK(found, "%s: the key without coefficients is not listed", tc->name);
        cuzk_submit_opts o = {.key = nocoef, .witnesses = w, .n_witnesses = 1};
        cuzk_error ce = {0};
        s = cuzk_submit_check(e, &o, &ce);
        CHECK(s == CUZK_EUNSUPPORTED && strstr(ce.msg, "proves only a, b, c images"),
              "%s: submit check of a witness for an images-only key: %d %s", tc->name, (int)s,
              ce.msg);
        w[0].path = path;
        s = cuzk_submit_check(e, &o, &ce);
        CHECK(s == CUZK_OK, "%s: submit check of an image for it: %s", tc->name, ce.msg);
    }

    /* bad images fail their job only */
    uint8_t *bad = malloc(isize);
    struct {
        size_t size;
        int patch; /* 1: a[0] = 2^256 - 1 */
        const char *file;
        cuzk_status want;
        const char *says;
    } cases[] = {{isize / 2, 0, NULL, CUZK_EFORMAT, "truncated"},
                 {40, 0, NULL, CUZK_EFORMAT, "truncated"},
                 {isize, 1, NULL, CUZK_ERANGE, "a[0] is not below r"},
                 {0, 0, small_abc, CUZK_EMISMATCH, "witness values, the key expects"}};
    for (size_t i = 0; i < TU_COUNT(cases); i++) {
        memcpy(bad, img, isize);
        if (cases[i].patch)
            memset(bad + CUZK_ABC_HEADER_BYTES, 0xff, 32);
        memset(w, 0, sizeof w);
        if (cases[i].file)
            w[0].path = cases[i].file;
        else
            w[0].data = bad, w[0].size = cases[i].size;
        s = run_job(e, c.zkey, w, 1, &j, &err);
        CHECK(s == cases[i].want && strstr(err.msg, cases[i].says),
              "%s: bad image %zu: %d \"%s\" (want %d \"%s\")", tc->name, i, (int)s, err.msg,
              (int)cases[i].want, cases[i].says);
        cuzk_job_release(j);
    }
    free(bad);
    memset(w, 0, sizeof w);
    w[0].data = img, w[0].size = isize;
    s = run_job(e, c.zkey, w, 1, &j, &err);
    CHECK(s == CUZK_OK && eu_verify_job(j, &c.vk) == 1, "%s: a good image after the bad: %s",
          tc->name, err.msg);
    cuzk_job_release(j);

    cuzk_engine_destroy(e, -1);

    /* devices that evaluate their own (a simulated GPU): synthesis still
     * converts the image, into an a, b, c buffer taken at admission */
    eu_config(&cfg, &log);
    eu_sim_device(&cfg, 0, 100);
    eu_testing.sim[0].evaluates = 1;
    cfg.cpu_fallback = 0;
    e = eu_create(&cfg);
    memset(w, 0, sizeof w);
    w[0].path = path;
    w[1].data = img, w[1].size = isize;
    w[2].path = c.wtns;
    s = run_job(e, c.zkey, w, 3, &j, &err);
    CHECK(s == CUZK_OK, "%s: images on a device that evaluates: %s", tc->name, err.msg);
    if (s == CUZK_OK) {
        cuzk_partition_info pi[3];
        cuzk_job_status(j, NULL, pi, 3);
        CHECK(pi[0].steps.eval_site == CUZK_EVAL_INPUT && pi[1].steps.eval_site == CUZK_EVAL_INPUT &&
                  pi[2].steps.eval_site != CUZK_EVAL_INPUT,
              "%s: eval sites %d %d %d on a device that evaluates", tc->name,
              (int)pi[0].steps.eval_site, (int)pi[1].steps.eval_site, (int)pi[2].steps.eval_site);
    }
    cuzk_job_release(j);
    cuzk_engine_destroy(e, -1);
#ifdef CUZK_HAVE_CUDA
    if (gpu)
        gpu_jobs(tc, &c, path, img, isize, nocoef);
#endif
    free(img);
    free(simg);
    eu_free(&c);
    eu_free(&small);
    eu_rmdir(dir);
}

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, curve_tests},
    {"bn254", CUZK_CURVE_BN254, curve_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_abc");
#ifdef CUZK_HAVE_CUDA
    gpu = tu_gpu_present(); /* without one, the GPU part is skipped, said once */
#endif
    tu_run_curves(curves, TU_COUNT(curves));
    return tu_finish();
}
