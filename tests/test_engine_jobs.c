/*
 * What a job is, as the engine owns it (include/cuzk.h): its end-of-job
 * call, its request id's content, and the checks of its inputs.
 *
 * - on_end is called exactly once per job made, after the job's state is
 *   final (DONE with a proof, CANCELLED, FAILED with the failing check's
 *   words, cancelled by engine shutdown), never for a submit that
 *   attached or failed;
 * - a request id attaches only to the same content where both submits
 *   carry a digest (cuzk_submit_digest): other witness bytes are
 *   CUZK_ECONFLICT, another number of partitions or another key
 *   CUZK_EMISMATCH; without one only the key and partitions are compared;
 * - a witness file is named by its path and its identity: the same path
 *   twice attaches, a second name of the file (a hard link) and the same
 *   path after the file was replaced are other content (CUZK_ECONFLICT);
 * - cuzk_submit_digest changes with any byte of a witness, the circuit
 *   named and the number of partitions, and not with the key string;
 * - cuzk_submit_check refuses a witness of another curve, of another size
 *   or truncated, naming the witness, in the words the job would fail
 *   with; it accepts a good job and checks only the options of a key
 *   never loaded.
 */
#include "test_engine_util.h"

typedef struct ends {
    _Atomic unsigned calls;
    _Atomic int last_state;
    _Atomic int had_proof;
} ends;

static void on_end(void *ctx, cuzk_job *job) {
    ends *n = ctx;
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzk_proof_bytes pb;
    atomic_store(&n->had_proof, cuzk_job_proof_bytes(job, &pb, 0, NULL) == CUZK_OK);
    atomic_store(&n->last_state, (int)info.state);
    atomic_fetch_add(&n->calls, 1);
}

/* A submit with the content digest of its witnesses when it has an id. */
static cuzk_status submit(cuzk_engine *e, const char *key, const char *rid, cuzk_witness *w,
                          size_t n, ends *cb, cuzk_job **j, int *attached, cuzk_error *err) {
    cuzk_submit_opts o = {.key = key, .request_id = rid, .witnesses = w, .n_witnesses = n,
                          .on_end = cb ? on_end : NULL, .on_end_ctx = cb};
    uint8_t d[32];
    if (rid && n) {
        cuzk_submit_digest(&o, d);
        o.digest = d;
    }
    return cuzk_submit(e, j, attached, &o, err);
}

static void end_calls(cuzk_engine *e, const eu_circuit *c) {
    cuzk_error err = {0};
    cuzk_witness w = {.path = c->wtns};
    ends a = {0}, b = {0};
    cuzk_job *j = NULL, *j2 = NULL;
    int attached = -1;
    cuzk_status s = submit(e, "k", "end-1", &w, 1, &a, &j, &attached, &err);
    CHECK(s == CUZK_OK && attached == 0, "submit: %s", err.msg);
    if (s != CUZK_OK)
        return;
    s = submit(e, "k", "end-1", &w, 1, &b, &j2, &attached, &err);
    CHECK(s == CUZK_OK && attached == 1, "same id, same content attaches: %s (%s)",
          cuzk_status_name(s), err.msg);
    CHECK(cuzk_job_await(j, 60000, &err) == CUZK_OK, "job: %s", err.msg);
    /* the call comes before or right after the waiters wake */
    for (int i = 0; i < 5000 && !atomic_load(&a.calls); i++)
        usleep(1000);
    CHECK(atomic_load(&a.calls) == 1, "on_end called %u times, want 1", atomic_load(&a.calls));
    CHECK(atomic_load(&a.last_state) == CUZK_JOB_DONE && atomic_load(&a.had_proof),
          "on_end saw state %d, proof %d: not final", atomic_load(&a.last_state),
          atomic_load(&a.had_proof));
    CHECK(atomic_load(&b.calls) == 0, "the attaching submit's on_end was called");
    cuzk_job_release(j);
    cuzk_job_release(j2);

    /* cancelled: called once, with CANCELLED; a second cancel calls nothing */
    ends x = {0};
    cuzk_witness two[2] = {{.path = c->wtns}, {.path = c->wtns}};
    s = submit(e, "k", "end-2", two, 2, &x, &j, NULL, &err);
    CHECK(s == CUZK_OK, "submit 2: %s", err.msg);
    if (s == CUZK_OK) {
        cuzk_job_cancel(j);
        cuzk_job_cancel(j);
        cuzk_job_await(j, 60000, NULL);
        cuzk_job_info info;
        cuzk_job_status(j, &info, NULL, 0);
        if (info.state == CUZK_JOB_CANCELLED)
            CHECK(atomic_load(&x.calls) == 1 && atomic_load(&x.last_state) == CUZK_JOB_CANCELLED,
                  "cancel: on_end %u calls, state %d", atomic_load(&x.calls),
                  atomic_load(&x.last_state));
        else /* it finished before the cancel: still one call */
            CHECK(atomic_load(&x.calls) == 1, "done before cancel: on_end %u calls",
                  atomic_load(&x.calls));
        cuzk_job_release(j);
    }

    /* failed: a witness of the wrong size fails the job; one call */
    ends f = {0};
    static const uint8_t junk[64] = {1};
    cuzk_witness bad = {.data = junk, .size = sizeof junk};
    s = submit(e, "k", NULL, &bad, 1, &f, &j, NULL, &err);
    CHECK(s == CUZK_OK, "a bad witness is the job's failure, not the submit's: %s", err.msg);
    if (s == CUZK_OK) {
        CHECK(cuzk_job_await(j, 60000, &err) != CUZK_OK, "a junk witness proved");
        for (int i = 0; i < 5000 && !atomic_load(&f.calls); i++)
            usleep(1000);
        CHECK(atomic_load(&f.calls) == 1 && atomic_load(&f.last_state) == CUZK_JOB_FAILED,
              "failed job: on_end %u calls, state %d", atomic_load(&f.calls),
              atomic_load(&f.last_state));
        cuzk_job_release(j);
    }
    /* a submit that fails calls nothing */
    ends z = {0};
    s = submit(e, "no-such-key", NULL, &w, 1, &z, &j, NULL, &err);
    CHECK(s == CUZK_ENOTFOUND && atomic_load(&z.calls) == 0, "failed submit: %s, %u calls",
          cuzk_status_name(s), atomic_load(&z.calls));
}

static void conflicts(cuzk_engine *e, const eu_circuit *c, const eu_circuit *other) {
    cuzk_error err = {0};
    cuzk_witness w = {.data = c->wtns_mem, .size = c->wtns_size};
    cuzk_job *j = NULL, *j2 = NULL;
    CHECK(submit(e, "k", "rid-c", &w, 1, NULL, &j, NULL, &err) == CUZK_OK, "submit: %s", err.msg);
    uint8_t *copy = malloc(c->wtns_size);
    memcpy(copy, c->wtns_mem, c->wtns_size);
    copy[c->wtns_size - 1] ^= 1; /* the last witness value's last byte */
    cuzk_witness w2 = {.data = copy, .size = c->wtns_size};
    cuzk_status s = submit(e, "k", "rid-c", &w2, 1, NULL, &j2, NULL, &err);
    CHECK(s == CUZK_ECONFLICT && !j2 && strstr(err.msg, "other content"),
          "other bytes, same id: %s (%s)", cuzk_status_name(s), err.msg);
    cuzk_witness ww[2] = {w, w};
    s = submit(e, "k", "rid-c", ww, 2, NULL, &j2, NULL, &err);
    CHECK(s == CUZK_EMISMATCH && !j2, "two partitions, same id: %s (%s)", cuzk_status_name(s),
          err.msg);
    int attached = 0;
    s = submit(e, "k", "rid-c", &w, 1, NULL, &j2, &attached, &err);
    CHECK(s == CUZK_OK && attached, "same bytes, same id: %s (%s)", cuzk_status_name(s), err.msg);
    cuzk_job_release(j2);
    /* no digest: only the key and the partitions are compared */
    cuzk_submit_opts plain = {.key = "k", .request_id = "rid-c", .witnesses = &w2,
                              .n_witnesses = 1};
    s = cuzk_submit(e, &j2, &attached, &plain, &err);
    CHECK(s == CUZK_OK && attached, "other bytes without a digest attach: %s (%s)",
          cuzk_status_name(s), err.msg);
    cuzk_job_release(j2);
    /* a caller's digest stands for the content */
    uint8_t d[32] = {7};
    cuzk_submit_opts o = {.key = "k", .request_id = "rid-d", .witnesses = &w, .n_witnesses = 1,
                          .digest = d};
    CHECK(cuzk_submit(e, &j2, NULL, &o, &err) == CUZK_OK, "submit with a digest: %s", err.msg);
    cuzk_job_release(j2);
    o.witnesses = &w2; /* other bytes, the same digest: attaches */
    s = cuzk_submit(e, &j2, &attached, &o, &err);
    CHECK(s == CUZK_OK && attached, "the caller's digest decides: %s (%s)", cuzk_status_name(s),
          err.msg);
    cuzk_job_release(j2);
    d[0] = 8;
    s = cuzk_submit(e, &j2, NULL, &o, &err);
    CHECK(s == CUZK_ECONFLICT, "another caller digest: %s", cuzk_status_name(s));
    /* another key, with the same content digest (the digest leaves the key
     * out): refused, with or without a digest */
    CHECK(cuzk_engine_key_preload(e, "k-other", other->zkey, &err) == CUZK_OK, "preload: %s",
          err.msg);
    s = submit(e, "k-other", "rid-c", &w, 1, NULL, &j2, &attached, &err);
    CHECK(s == CUZK_EMISMATCH && !j2 && strstr(err.msg, "belongs to a job with key"),
          "another key, same id and content: %s (%s)", cuzk_status_name(s), err.msg);
    plain.key = "k-other";
    plain.witnesses = &w;
    s = cuzk_submit(e, &j2, &attached, &plain, &err);
    CHECK(s == CUZK_EMISMATCH && !j2, "another key, same id, no digest: %s (%s)",
          cuzk_status_name(s), err.msg);
    cuzk_job_await(j, 60000, NULL);
    cuzk_job_release(j);
    free(copy);
}

/* |bytes| written to a new file at |path| (through a temporary name and a
 * rename, so that a file already there is replaced by another one). */
static int write_new_file(const char *path, const uint8_t *bytes, size_t n) {
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(bytes, 1, n, f) == n;
    ok = f && !fclose(f) && ok;
    return ok && rename(tmp, path) == 0;
}

/* Witness files under one request id: the digest names a file by its
 * path and its identity, so only the same path to the same file attaches. */
static void file_conflicts(cuzk_engine *e, const eu_circuit *c) {
    cuzk_error err = {0};
    char alias[600], swap[600];
    snprintf(alias, sizeof alias, "%s.alias", c->wtns);
    snprintf(swap, sizeof swap, "%s.swap", c->wtns);
    CHECK(link(c->wtns, alias) == 0 && write_new_file(swap, c->wtns_mem, c->wtns_size),
          "witness files");
    cuzk_witness wa = {.path = c->wtns}, wl = {.path = alias}, ws = {.path = swap};
    cuzk_job *j = NULL, *j2 = NULL, *j3 = NULL;
    int attached = -1;
    cuzk_status s = submit(e, "k", "rid-f", &wa, 1, NULL, &j, &attached, &err);
    CHECK(s == CUZK_OK && attached == 0, "submit a file: %s", err.msg);
    s = submit(e, "k", "rid-f", &wa, 1, NULL, &j2, &attached, &err);
    CHECK(s == CUZK_OK && attached == 1 && j2 && cuzk_job_id(j2) == cuzk_job_id(j),
          "the same file twice attaches: %s (%s)", cuzk_status_name(s), err.msg);
    cuzk_job_release(j2);
    j2 = NULL;
    s = submit(e, "k", "rid-f", &wl, 1, NULL, &j2, &attached, &err);
    CHECK(s == CUZK_ECONFLICT && !j2, "a second name of the file, same id: %s (%s)",
          cuzk_status_name(s), err.msg);
    s = submit(e, "k", "rid-s", &ws, 1, NULL, &j3, &attached, &err);
    CHECK(s == CUZK_OK && attached == 0, "submit another file: %s", err.msg);
    CHECK(cuzk_job_await(j3, 60000, &err) == CUZK_OK, "its job: %s", err.msg);
    /* the same path and bytes, another file: a job that read the old one
     * does not prove what the path now names */
    CHECK(write_new_file(swap, c->wtns_mem, c->wtns_size), "replace %s", swap);
    j2 = NULL;
    s = submit(e, "k", "rid-s", &ws, 1, NULL, &j2, &attached, &err);
    CHECK(s == CUZK_ECONFLICT && !j2, "the path after its file was replaced, same id: %s (%s)",
          cuzk_status_name(s), err.msg);
    cuzk_job_await(j, 60000, NULL);
    cuzk_job_release(j);
    cuzk_job_release(j3);
}

static void digests(const eu_circuit *c) {
    cuzk_witness w = {.data = c->wtns_mem, .size = c->wtns_size};
    cuzk_submit_opts o = {.key = "k", .witnesses = &w, .n_witnesses = 1};
    uint8_t a[32], b[32];
    cuzk_submit_digest(&o, a);
    o.key = "another name of the key";
    cuzk_submit_digest(&o, b);
    CHECK(!memcmp(a, b, 32), "the key string changed the digest");
    uint8_t *copy = malloc(c->wtns_size);
    memcpy(copy, c->wtns_mem, c->wtns_size);
    copy[c->wtns_size / 2] ^= 0x40;
    cuzk_witness w2 = {.data = copy, .size = c->wtns_size};
    o.witnesses = &w2;
    cuzk_submit_digest(&o, b);
    CHECK(memcmp(a, b, 32), "one flipped bit left the digest unchanged");
    o.witnesses = &w;
    o.circuit = "/some/circuit.wasm";
    cuzk_submit_digest(&o, b);
    CHECK(memcmp(a, b, 32), "the circuit is not in the digest");
    o.circuit = NULL;
    cuzk_witness ww[2] = {w, w};
    o.witnesses = ww;
    o.n_witnesses = 2;
    cuzk_submit_digest(&o, b);
    CHECK(memcmp(a, b, 32), "the number of partitions is not in the digest");
    cuzk_witness p = {.path = c->wtns};
    o.witnesses = &p;
    o.n_witnesses = 1;
    cuzk_submit_digest(&o, b);
    CHECK(memcmp(a, b, 32), "a path and its bytes have one digest");
    free(copy);
}

static void checks(cuzk_engine *e, const eu_circuit *c, const eu_circuit *small,
                   const eu_circuit *bls) {
    cuzk_error err = {0};
    cuzk_witness w = {.path = c->wtns};
    cuzk_submit_opts o = {.key = "k", .witnesses = &w, .n_witnesses = 1};
    CHECK(cuzk_submit_check(e, &o, &err) == CUZK_OK, "good witness: %s", err.msg);
    cuzk_witness ws[2] = {{.path = c->wtns}, {.path = small->wtns}};
    o.witnesses = ws;
    o.n_witnesses = 2;
    cuzk_status s = cuzk_submit_check(e, &o, &err);
    CHECK(s == CUZK_EMISMATCH && strstr(err.msg, "witness 1: witness has") &&
              strstr(err.msg, "the key expects"),
          "another size: %s (%s)", cuzk_status_name(s), err.msg);
    char job_msg[CUZK_ERROR_MSG_BYTES];
    snprintf(job_msg, sizeof job_msg, "%s", strstr(err.msg, "witness has"));
    /* the job fails with the same words */
    cuzk_job *j = NULL;
    if (cuzk_submit(e, &j, NULL, &o, &err) == CUZK_OK) {
        CHECK(cuzk_job_await(j, 60000, &err) == CUZK_EMISMATCH && strstr(err.msg, job_msg),
              "the job's words: %s, want %s", err.msg, job_msg);
        cuzk_job_release(j);
    }
    cuzk_witness wb = {.path = bls->wtns};
    o.witnesses = &wb;
    o.n_witnesses = 1;
    s = cuzk_submit_check(e, &o, &err);
    CHECK(s == CUZK_ECURVE && strstr(err.msg, "witness 0: witness is for bls12381"),
          "another curve: %s (%s)", cuzk_status_name(s), err.msg);
    cuzk_witness wt = {.data = c->wtns_mem, .size = c->wtns_size / 2};
    o.witnesses = &wt;
    s = cuzk_submit_check(e, &o, &err);
    CHECK(s != CUZK_OK && strstr(err.msg, "witness 0: "), "truncated: %s (%s)",
          cuzk_status_name(s), err.msg);
    o.witnesses = &w;
    o.n_witnesses = 0;
    CHECK(cuzk_submit_check(e, &o, &err) == CUZK_EINVAL, "no witnesses passed the check");
    /* a key never loaded: only the options can be checked */
    o.key = small->zkey;
    o.witnesses = &wb;
    o.n_witnesses = 1;
    s = cuzk_submit_check(e, &o, &err);
    CHECK(s == CUZK_OK, "a key never loaded: %s (%s)", cuzk_status_name(s), err.msg);
    o.key = "/no/such/key.zkey";
    CHECK(cuzk_submit_check(e, &o, &err) == CUZK_ENOTFOUND, "a missing key passed the check");
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_jobs");
    char *dir = eu_tmpdir();
    eu_circuit c, small, bls;
    eu_make(&c, dir, "bn", CUZK_CURVE_BN254, 8, 71);
    eu_make(&small, dir, "bn_small", CUZK_CURVE_BN254, 7, 72);
    eu_make(&bls, dir, "bls", CUZK_CURVE_BLS12_381, 8, 73);
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_ERROR;
    eu_cpu_device(&cfg, 1);
    cuzk_engine *e = eu_create(&cfg);
    cuzk_error err = {0};
    CHECK(cuzk_engine_key_preload(e, "k", c.zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    digests(&c);
    end_calls(e, &c);
    conflicts(e, &c, &bls);
    file_conflicts(e, &c);
    checks(e, &c, &small, &bls);

    /* jobs still queued when the engine is destroyed: one call each */
    ends q = {0};
    cuzk_witness w = {.path = c.wtns};
    cuzk_witness many[8];
    for (int i = 0; i < 8; i++)
        many[i] = w;
    unsigned made = 0;
    for (int i = 0; i < 4; i++) {
        cuzk_job *j = NULL;
        if (submit(e, "k", NULL, many, 8, &q, &j, NULL, &err) == CUZK_OK) {
            made++;
            cuzk_job_release(j);
        }
    }
    cuzk_engine_destroy(e, 0);
    CHECK(made == 4 && atomic_load(&q.calls) == made, "destroy: %u jobs, %u on_end calls", made,
          atomic_load(&q.calls));
    eu_free(&c);
    eu_free(&small);
    eu_free(&bls);
    eu_rmdir(dir);
    return tu_finish();
}
