/*
 * Jobs that carry circom inputs instead of witnesses (include/cuzk.h:
 * cuzk_witness.input_json, cuzk_submit_opts.circuit,
 * cuzk_engine_circuit_register): the engine's synthesis workers compute
 * each witness with the circuit's compiled witness calculator.
 *
 * Uses the circom fixtures (CUZK_WC_FIXTURES, built by tests/witness/
 * build.sh): for each curve folder, NAME.wasm, NAME.zkey, NAME.input.json
 * and NAME.wtns made by snarkjs from the same input.  Without them the
 * test fails: it has nothing to prove.
 *
 * Checks:
 * - every fixture circuit on both curves proves from its input on the CPU
 *   device: the proof verifies with the key's verification key and its
 *   public signals equal those of snarkjs's .wtns; each partition's log
 *   line names the witness time and the trace has witness spans;
 * - many concurrent jobs from several threads with three synthesis
 *   workers, inputs and witness files mixed (also inside one job), with
 *   the circuit registered with the key: every proof verifies;
 * - a bad input (unknown signal, too many values, too few, malformed JSON,
 *   a failing assert) fails only its job, with the witness layer's status
 *   and message (the failing template named), and the next job proves;
 * - a circuit of the other curve or of another size than the key:
 *   CUZK_ECURVE / CUZK_EMISMATCH at registration when the key is loaded,
 *   and as the job's outcome when the check can only happen at admission;
 *   another circuit for a key that has one: CUZK_EMISMATCH; submit
 *   refuses malformed witness lists; a circuit refused at registration
 *   leaves no loaded circuit and no worker's memory charged;
 *   cuzk_engine_circuit_get hands out the circuit the engine loaded (one
 *   loaded circuit for the key's jobs and the caller), and the object
 *   outlives its put as long as the caller's own reference;
 * - device accounting: an engine with no work is idle, not starved;
 *   synthesis stalled by the fault hook shows up as starved (synthesis
 *   behind: at least half the injected stall) and in the metrics.
 */
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>

#include "cuzk_tools.h"
#include "groth16/formats/wtns.h"
#include "test_engine_util.h"

static const char *fixtures;

typedef struct fx {
    char name[64], dir[16];
    cuzk_curve curve;
    char wasm[600], zkey[600], input[600], wtns[600];
    char *text; /* input.json */
    size_t len;
    cuzk_vk vk;
    size_t n_pub, n_witness;
    cuzk_fr *pub; /* snarkjs's public signals, Montgomery form */
} fx;

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Loads fixture |name| of curve folder |dir|; 0 (with a failed check) if
 * any of its files is missing or unreadable. */
static int fx_load(fx *f, const char *dir, const char *name) {
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    f->curve = !strcmp(dir, "bn128") ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381;
    snprintf(f->wasm, sizeof f->wasm, "%s/%s/%s.wasm", fixtures, dir, name);
    snprintf(f->zkey, sizeof f->zkey, "%s/%s/%s.zkey", fixtures, dir, name);
    snprintf(f->input, sizeof f->input, "%s/%s/%s.input.json", fixtures, dir, name);
    snprintf(f->wtns, sizeof f->wtns, "%s/%s/%s.wtns", fixtures, dir, name);
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_wtns w;
    uint8_t *text = tu_read_file(f->input, &f->len);
    f->text = (char *)text;
    if (!f->text || !exists(f->wasm)) {
        CHECK(0, "fixture %s/%s: missing %s or %s", dir, name, f->input, f->wasm);
        return 0;
    }
    if (cuzk_key_load(&key, f->zkey, &err) != CUZK_OK) {
        CHECK(0, "fixture %s/%s: %s", dir, name, err.msg);
        return 0;
    }
    f->n_pub = cuzk_key_n_public(&key);
    cuzk_status s = cuzk_key_vk(&key, &f->vk, &err);
    cuzk_key_free(&key);
    if (s != CUZK_OK || cuzk_wtns_open(&w, f->wtns, &err) != CUZK_OK) {
        CHECK(0, "fixture %s/%s: %s", dir, name, err.msg);
        return 0;
    }
    f->n_witness = w.n_witness;
    f->pub = tu_public_of(&w, f->n_pub);
    cuzk_wtns_close(&w);
    CHECK(f->pub != NULL, "fixture %s/%s: public signals of the .wtns", dir, name);
    return f->pub != NULL;
}

static void fx_free(fx *f) {
    free(f->text);
    free(f->pub);
    cuzk_vk_clear(&f->vk);
}

/* Submit one job: partition i carries |f|'s inputs when inputs[i] is 'i',
 * else the .wtns path; |circuit| may be NULL (the key's). */
static cuzk_status submit(cuzk_engine *e, cuzk_job **j, const fx *f, const char *key,
                          const char *circuit, const char *kinds, const char *rid,
                          cuzk_error *err) {
    cuzk_witness w[8];
    size_t n = strlen(kinds);
    memset(w, 0, sizeof w);
    for (size_t i = 0; i < n && i < 8; i++) {
        if (kinds[i] == 'i')
            w[i].input_json = f->text, w[i].input_len = f->len;
        else
            w[i].path = f->wtns;
    }
    cuzk_submit_opts o = {.key = key ? key : f->zkey, .circuit = circuit, .request_id = rid,
                          .witnesses = w, .n_witnesses = n};
    return cuzk_submit(e, j, NULL, &o, err);
}

/* How many partitions of done job |j| verify with |f|'s key and have the
 * public signals snarkjs computed; prints each one that does not.  Safe
 * from any thread (no CHECK: the harness counts from one thread). */
static size_t good_proofs(cuzk_job *j, const fx *f) {
    size_t ok = 0, n = cuzk_job_partitions(j);
    for (size_t i = 0; i < n; i++) {
        size_t n_pub = f->n_pub, room = f->n_pub;
        uint8_t *got = malloc(room * CUZK_SCALAR_BYTES + 1), *want = malloc(room * CUZK_SCALAR_BYTES + 1);
        int same = got && want &&
                   cuzk_job_public_bytes(j, NULL, got, &n_pub, i, NULL) == CUZK_OK &&
                   n_pub == f->n_pub;
        if (same) {
            cuzk_public_to_bytes(f->vk.curve, want, f->pub, n_pub);
            same = !n_pub || !memcmp(got, want, n_pub * CUZK_SCALAR_BYTES);
        }
        free(got);
        free(want);
        if (!same)
            fprintf(stderr, "  %s/%s partition %zu: public signals differ from snarkjs's (%zu of %zu)\n",
                    f->dir, f->name, i, n_pub, f->n_pub);
        ok += same;
    }
    size_t verified = eu_verify_job(j, &f->vk);
    return ok < verified ? ok : verified;
}

static size_t check_proofs(cuzk_job *j, const fx *f) {
    size_t n = cuzk_job_partitions(j), ok = good_proofs(j, f);
    CHECK(ok == n, "%s/%s: %zu of %zu proofs verify with snarkjs's public signals", f->dir, f->name,
          ok, n);
    return ok;
}

/* Outcome counters are bumped as a job's outcome is published, and are
 * all in once every job has drained. */
static void await_drained(cuzk_engine *e, cuzk_engine_status *st) {
    for (cuzk_engine_status_get(e, st); st->jobs_active + st->jobs_draining;
         cuzk_engine_status_get(e, st))
        usleep(1000);
}

typedef struct log_sink {
    eu_log base;
    _Atomic unsigned witness_lines; /* partition lines naming the witness time */
} log_sink;

static void log_fn(void *ctx, cuzk_log_level level, const char *line) {
    log_sink *l = ctx;
    if (strstr(line, " ms (queue ") && strstr(line, "(witness ") && strstr(line, " ms)"))
        atomic_fetch_add(&l->witness_lines, 1);
    eu_log_fn(&l->base, level, line);
}

static cuzk_engine *make_cpu(log_sink *log, unsigned synth_workers) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_fn = log_fn;
    cfg.log_ctx = log;
    cfg.synth_workers = synth_workers;
    eu_cpu_device(&cfg, 1);
    return eu_create(&cfg);
}

/* ---- every circuit, both curves -------------------------------------------------- */

static void all_circuits(fx *fs, size_t n) {
    log_sink log;
    memset(&log, 0, sizeof log);
    cuzk_engine *e = make_cpu(&log, 2);
    cuzk_job *j[64];
    cuzk_error err = {0};
    for (size_t i = 0; i < n; i++) {
        cuzk_status s = submit(e, &j[i], &fs[i], NULL, fs[i].wasm, "i", NULL, &err);
        CHECK(s == CUZK_OK, "%s/%s: submit: %s", fs[i].dir, fs[i].name, err.msg);
    }
    size_t proved = 0;
    for (size_t i = 0; i < n; i++) {
        if (!j[i])
            continue;
        cuzk_status s = cuzk_job_await(j[i], -1, &err);
        CHECK(s == CUZK_OK, "%s/%s: %s", fs[i].dir, fs[i].name, err.msg);
        if (s == CUZK_OK)
            proved += check_proofs(j[i], &fs[i]) == 1;
        /* the step figures a caller prints (cuzk prove -v): a CPU device
         * times every step but the transfers it does not have */
        cuzk_partition_info pi;
        cuzk_job_status(j[i], NULL, &pi, 1);
        const cuzk_step_timing *t = &pi.steps;
        CHECK(s != CUZK_OK ||
                  (t->witness_ns && t->eval_site == CUZK_EVAL_SYNTHESIS && t->evaluate_ns &&
                   t->ntt_ns && t->msm_a_ns && t->msm_b1_ns && t->msm_b2_ns && t->msm_c_ns &&
                   t->msm_h_ns && t->assemble_ns && !t->upload_ns && !t->download_ns),
              "%s/%s: step figures missing: witness %llu, evaluate %llu (site %d), h %llu, "
              "msm H %llu, assemble %llu", fs[i].dir, fs[i].name,
              (unsigned long long)t->witness_ns, (unsigned long long)t->evaluate_ns,
              (int)t->eval_site, (unsigned long long)t->ntt_ns, (unsigned long long)t->msm_h_ns,
              (unsigned long long)t->assemble_ns);
        cuzk_job_release(j[i]);
    }
    printf("  %zu of %zu circuits proved from inputs (both curves)\n", proved, n);
    cuzk_engine_status st;
    await_drained(e, &st); /* a partition's line is logged before it drains */
    CHECK(atomic_load(&log.witness_lines) == n, "%u partition lines name the witness time, want %zu",
          atomic_load(&log.witness_lines), n);
    char *trace = NULL;
    CHECK(cuzk_engine_trace(e, &trace, NULL, 0, 0, &err) == CUZK_OK && trace &&
              strstr(trace, "\"witness\""),
          "the trace has witness spans");
    free(trace);
    char *metrics = NULL;
    CHECK(cuzk_engine_metrics(e, &metrics, NULL, &err) == CUZK_OK && metrics &&
              strstr(metrics, "cuzk_stage_seconds_count{stage=\"witness\"} "),
          "metrics have the witness stage");
    free(metrics);
    cuzk_engine_destroy(e, -1);
}

/* ---- concurrency -------------------------------------------------------------------- */

typedef struct runner {
    cuzk_engine *e;
    const fx *f;
    const char *key;
    int idx;
    unsigned ok, failed;
} runner;

static void *run_jobs(void *arg) {
    runner *r = arg;
    static const char *const kinds[] = {"ii", "w", "iwi", "i", "wiw", "iiii"};
    cuzk_job *j[6];
    cuzk_error err = {0};
    for (int i = 0; i < 6; i++) {
        char rid[64];
        snprintf(rid, sizeof rid, "mix-%s-%d-%d", r->key, r->idx, i);
        if (submit(r->e, &j[i], r->f, r->key, NULL, kinds[i], rid, &err) != CUZK_OK) {
            fprintf(stderr, "  %s: submit: %s\n", rid, err.msg);
            j[i] = NULL;
        }
    }
    for (int i = 0; i < 6; i++) {
        if (!j[i]) {
            r->failed++;
            continue;
        }
        cuzk_status s = cuzk_job_await(j[i], -1, &err);
        if (s != CUZK_OK)
            fprintf(stderr, "  job %d of %s/%d: %s\n", i, r->key, r->idx, err.msg);
        if (s == CUZK_OK && good_proofs(j[i], r->f) == strlen(kinds[i]))
            r->ok++;
        else
            r->failed++;
        cuzk_job_release(j[i]);
    }
    return NULL;
}

static void concurrent(const fx *bn, const fx *bls) {
    log_sink log;
    memset(&log, 0, sizeof log);
    cuzk_engine *e = make_cpu(&log, 3);
    cuzk_error err = {0};
    CHECK(cuzk_engine_key_preload(e, "bn", bn->zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    CHECK(cuzk_engine_circuit_register(e, "bn", bn->wasm, &err) == CUZK_OK, "register: %s",
          err.msg);
    /* Registered before its key is loaded: checked when jobs are admitted. */
    CHECK(cuzk_engine_key_register(e, "bls", bls->zkey, &err) == CUZK_OK, "register key: %s",
          err.msg);
    CHECK(cuzk_engine_circuit_register(e, "bls", bls->wasm, &err) == CUZK_OK, "register: %s",
          err.msg);
    enum { THREADS = 4 };
    runner r[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = (runner){.e = e, .f = i % 2 ? bls : bn, .key = i % 2 ? "bls" : "bn", .idx = i};
        pthread_create(&t[i], NULL, run_jobs, &r[i]);
    }
    unsigned ok = 0, failed = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ok += r[i].ok, failed += r[i].failed;
    }
    printf("  concurrent: %u jobs proved, %u failed (3 synthesis workers, inputs and witnesses "
           "mixed)\n",
           ok, failed);
    CHECK(ok == THREADS * 6 && failed == 0, "%u of %d concurrent jobs proved", ok, THREADS * 6);
    cuzk_engine_status st;
    await_drained(e, &st);
    CHECK(st.mem_intake == 0, "intake charges returned: %llu bytes left",
          (unsigned long long)st.mem_intake);
    CHECK(st.devices[0].starved_synth_s <= st.devices[0].starved_s,
          "starved with synthesis behind (%.3f s) is a part of starved (%.3f s)",
          st.devices[0].starved_synth_s, st.devices[0].starved_s);
    cuzk_engine_destroy(e, -1);
}

/* ---- bad inputs ---------------------------------------------------------------------- */

static void bad_inputs(const fx *af) {
    static const struct {
        const char *what, *json;
        cuzk_status status;
        const char *msg1, *msg2; /* both must be in the job's message */
    } cases[] = {
        {"unknown signal", "{\"x\": \"1\", \"y\": \"2\", \"nosuchsignal\": \"3\"}", CUZK_ENOTFOUND,
         "nosuchsignal", "partition 0: "},
        {"too many values", "{\"x\": [\"1\", \"2\"], \"y\": \"2\"}", CUZK_EMISMATCH,
         "Too many values for input signal x", "partition 0: "},
        {"too few inputs", "{\"x\": \"7\"}", CUZK_EMISMATCH, "Not all inputs have been set",
         "partition 0: "},
        {"malformed JSON", "{\"x\": \"7\", \"y\": ", CUZK_EFORMAT, "partition 0: ", ""},
        /* RangeCheck asserts x < 1000 in the witness code. */
        {"failing assert", "{\"x\": \"5000\", \"y\": \"3\"}", CUZK_EVERIFY, "Assert Failed",
         "RangeCheck"},
    };
    enum { N = sizeof cases / sizeof cases[0] };
    log_sink log;
    memset(&log, 0, sizeof log);
    cuzk_engine *e = make_cpu(&log, 2);
    cuzk_error err = {0};
    CHECK(cuzk_engine_key_preload(e, "af", af->zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    CHECK(cuzk_engine_circuit_register(e, "af", af->wasm, &err) == CUZK_OK, "register: %s",
          err.msg);
    for (int i = 0; i < N; i++) {
        cuzk_witness w = {.input_json = cases[i].json, .input_len = strlen(cases[i].json)};
        cuzk_submit_opts o = {.key = "af", .witnesses = &w, .n_witnesses = 1};
        cuzk_job *j = NULL, *good = NULL;
        CHECK(cuzk_submit(e, &j, NULL, &o, &err) == CUZK_OK, "%s: submit: %s", cases[i].what,
              err.msg);
        CHECK(submit(e, &good, af, "af", NULL, "i", NULL, &err) == CUZK_OK, "submit: %s", err.msg);
        if (!j || !good)
            continue;
        cuzk_status s = cuzk_job_await(j, -1, &err);
        cuzk_job_info info;
        cuzk_job_status(j, &info, NULL, 0);
        printf("  %s: %s: %s\n", cases[i].what, cuzk_status_name(s), err.msg);
        CHECK(s == cases[i].status && info.state == CUZK_JOB_FAILED, "%s: got %s (%s), want %s",
              cases[i].what, cuzk_status_name(s), err.msg, cuzk_status_name(cases[i].status));
        CHECK(strstr(err.msg, cases[i].msg1) && strstr(err.msg, cases[i].msg2),
              "%s: message '%s' lacks '%s' / '%s'", cases[i].what, err.msg, cases[i].msg1,
              cases[i].msg2);
        CHECK(cuzk_job_await(good, -1, &err) == CUZK_OK && check_proofs(good, af) == 1,
              "the job after '%s' proves: %s", cases[i].what, err.msg);
        cuzk_job_release(j);
        cuzk_job_release(good);
    }
    /* A bad partition in a job of good ones fails that job, naming it. */
    const char *bad = cases[N - 1].json;
    cuzk_witness w[3] = {{.input_json = af->text, .input_len = af->len},
                         {.input_json = bad, .input_len = strlen(bad)},
                         {.path = af->wtns}};
    cuzk_submit_opts o = {.key = "af", .witnesses = w, .n_witnesses = 3};
    cuzk_job *j = NULL;
    CHECK(cuzk_submit(e, &j, NULL, &o, &err) == CUZK_OK, "submit: %s", err.msg);
    if (j) {
        cuzk_status s = cuzk_job_await(j, -1, &err);
        CHECK(s == CUZK_EVERIFY && strstr(err.msg, "partition 1: "), "mixed job: %s (%s)",
              cuzk_status_name(s), err.msg);
        cuzk_job_release(j);
    }
    cuzk_engine_status st;
    await_drained(e, &st);
    CHECK(st.jobs_failed == N + 1 && st.jobs_done == N, "jobs failed %llu, done %llu",
          (unsigned long long)st.jobs_failed, (unsigned long long)st.jobs_done);
    cuzk_engine_destroy(e, -1);
}

/* ---- circuits that do not fit, and malformed submits ------------------------------------ */

static cuzk_status job_outcome(cuzk_engine *e, const fx *f, const char *key, const char *circuit,
                               cuzk_error *err) {
    cuzk_job *j = NULL;
    cuzk_status s = submit(e, &j, f, key, circuit, "i", NULL, err);
    if (s == CUZK_OK) {
        s = cuzk_job_await(j, -1, err);
        cuzk_job_release(j);
    }
    return s;
}

static void mismatches(const fx *bn, const fx *bn_other, const fx *bls, const fx *bls_other) {
    log_sink log;
    memset(&log, 0, sizeof log);
    cuzk_engine *e = make_cpu(&log, 1);
    cuzk_error err = {0};
    cuzk_status s;
    CHECK(bn->n_witness != bn_other->n_witness, "fixtures %s and %s differ in size",
          bn->name, bn_other->name);
    CHECK(cuzk_engine_key_preload(e, "bn", bn->zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    s = cuzk_engine_circuit_register(e, "bn", bls->wasm, &err);
    CHECK(s == CUZK_ECURVE && strstr(err.msg, "bls12381"), "other curve: %s (%s)",
          cuzk_status_name(s), err.msg);
    s = cuzk_engine_circuit_register(e, "bn", bn_other->wasm, &err);
    CHECK(s == CUZK_EMISMATCH && strstr(err.msg, "witness values"), "other size: %s (%s)",
          cuzk_status_name(s), err.msg);
    /* Refused circuits are not kept: nothing loaded, no worker charged. */
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.n_circuits == 0 && st.mem_witness == 0,
          "after two refusals: %u circuits loaded, %llu bytes of workers", st.n_circuits,
          (unsigned long long)st.mem_witness);
    CHECK(cuzk_engine_circuit_register(e, "bn", bn->wasm, &err) == CUZK_OK, "register: %s",
          err.msg);
    /* The caller's circuit is the engine's: still one loaded, its look-up
     * worker charged. */
    cuzk_wc_circuit *wc = NULL;
    CHECK(cuzk_engine_circuit_get(e, bn->wasm, &wc, &err) == CUZK_OK && wc, "get: %s", err.msg);
    cuzk_engine_status_get(e, &st);
    CHECK(st.n_circuits == 1 && st.mem_witness > 0,
          "get of the registered circuit: %u circuits loaded, %llu bytes of workers",
          st.n_circuits, (unsigned long long)st.mem_witness);
    if (wc) {
        CHECK(cuzk_wc_circuit_n_witness(wc) == bn->n_witness, "get: %u witness values",
              cuzk_wc_circuit_n_witness(wc));
        cuzk_wc_circuit *mine = cuzk_wc_circuit_ref(wc);
        cuzk_engine_circuit_put(e, wc);
        CHECK(cuzk_wc_circuit_n_witness(mine) == bn->n_witness, "a reference kept after put");
        cuzk_wc_circuit_free(mine);
    }
    s = cuzk_engine_circuit_get(e, "/nonexistent/c.wasm", &wc, &err);
    CHECK(s == CUZK_ENOTFOUND && !wc, "get, missing wasm: %s", cuzk_status_name(s));
    cuzk_engine_status_get(e, &st);
    CHECK(st.n_circuits == 1, "after a failed get: %u circuits loaded", st.n_circuits);
    CHECK(cuzk_engine_circuit_register(e, "bn", bn->wasm, &err) == CUZK_OK, "register again: %s",
          err.msg);
    s = cuzk_engine_circuit_register(e, "bn", bn_other->wasm, &err);
    CHECK(s == CUZK_EMISMATCH && strstr(err.msg, "registered already"), "another circuit: %s (%s)",
          cuzk_status_name(s), err.msg);
    s = cuzk_engine_circuit_register(e, "no-such-key", bn->wasm, &err);
    CHECK(s == CUZK_ENOTFOUND, "unknown key: %s (%s)", cuzk_status_name(s), err.msg);
    s = cuzk_engine_circuit_register(e, "bn", "/nonexistent/c.wasm", &err);
    CHECK(s == CUZK_ENOTFOUND, "missing wasm: %s (%s)", cuzk_status_name(s), err.msg);

    /* Named in the submit: the job fails at admission. */
    s = job_outcome(e, bn, "bn", bls->wasm, &err);
    CHECK(s == CUZK_ECURVE && strstr(err.msg, "is for bn128"), "job, other curve: %s (%s)",
          cuzk_status_name(s), err.msg);
    s = job_outcome(e, bn, "bn", bn_other->wasm, &err);
    CHECK(s == CUZK_EMISMATCH && strstr(err.msg, "witness values"), "job, other size: %s (%s)",
          cuzk_status_name(s), err.msg);
    /* Registered with a key that was never loaded: found out at admission. */
    CHECK(cuzk_engine_key_register(e, "late", bls_other->zkey, &err) == CUZK_OK, "key: %s",
          err.msg);
    CHECK(cuzk_engine_circuit_register(e, "late", bn_other->wasm, &err) == CUZK_OK,
          "register before load: %s", err.msg);
    s = job_outcome(e, bls_other, "late", NULL, &err);
    CHECK(s == CUZK_ECURVE, "late check: %s (%s)", cuzk_status_name(s), err.msg);
    /* And the engine still proves. */
    s = job_outcome(e, bn, "bn", NULL, &err);
    CHECK(s == CUZK_OK, "a good job after the mismatches: %s", err.msg);

    /* Room for another circuit (cuzkd's max_circuits): a circuit a key is
     * bound to stays; one that nothing uses is unloaded, its look-up
     * worker and charge with it. */
    s = cuzk_engine_circuit_evict(e, bn->wasm, &err);
    CHECK(s == CUZK_EBUSY, "evict the circuit of a key: %s", cuzk_status_name(s));
    wc = NULL;
    CHECK(cuzk_engine_circuit_get(e, bls->wasm, &wc, &err) == CUZK_OK, "get: %s", err.msg);
    cuzk_engine_circuit_put(e, wc);
    cuzk_engine_status_get(e, &st);
    unsigned loaded = st.n_circuits;
    s = cuzk_engine_circuit_evict(e, bls->wasm, &err);
    CHECK(s == CUZK_OK, "evict an unused circuit: %s (%s)", cuzk_status_name(s), err.msg);
    cuzk_engine_status_get(e, &st);
    CHECK(st.n_circuits + 1 == loaded, "after the eviction: %u circuits loaded, %u before",
          st.n_circuits, loaded);
    s = cuzk_engine_circuit_evict(e, bls->wasm, &err);
    CHECK(s == CUZK_ENOTFOUND, "evict it again: %s", cuzk_status_name(s));
    s = job_outcome(e, bn, "bn", NULL, &err);
    CHECK(s == CUZK_OK, "a good job after the eviction: %s", err.msg);

    /* Malformed submits are refused at once. */
    cuzk_witness w = {.input_json = bn->text, .input_len = bn->len, .path = bn->wtns};
    cuzk_submit_opts o = {.key = "bn", .witnesses = &w, .n_witnesses = 1};
    cuzk_job *j = NULL;
    s = cuzk_submit(e, &j, NULL, &o, &err);
    CHECK(s == CUZK_EINVAL && !j, "inputs and a path: %s", cuzk_status_name(s));
    w = (cuzk_witness){.input_json = bn->text, .input_len = 0};
    s = cuzk_submit(e, &j, NULL, &o, &err);
    CHECK(s == CUZK_EINVAL && !j, "empty inputs: %s", cuzk_status_name(s));
    w = (cuzk_witness){.input_json = bn->text, .input_len = bn->len};
    o.key = bn_other->zkey; /* a key with no circuit registered */
    s = cuzk_submit(e, &j, NULL, &o, &err);
    CHECK(s == CUZK_EINVAL && strstr(err.msg, "circuit"), "no circuit: %s (%s)",
          cuzk_status_name(s), err.msg);
    o.circuit = "/nonexistent/c.wasm";
    s = cuzk_submit(e, &j, NULL, &o, &err);
    CHECK(s == CUZK_ENOTFOUND && !j, "missing circuit file: %s (%s)", cuzk_status_name(s),
          err.msg);
    cuzk_engine_destroy(e, -1);
}

/* ---- starved: synthesis behind vs no work -------------------------------------------- */

#define STALL_MS 150

static void stall_hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    (void)ctx;
    if (at->site == CUZK_FAULT_SYNTHESIS && !strncmp(at->request_id, "slow", 4))
        out->action = CUZK_FAULT_STALL, out->stall_ms = STALL_MS;
}

static void starved_split(const fx *f) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.synth_workers = 1;
    cfg.cpu_fallback = 0;
    eu_testing.fault_fn = stall_hook;
    eu_sim_device(&cfg, 0, 2000);
    cuzk_engine *e;
    cuzk_error err = {0};
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        exit(1);
    }
    CHECK(cuzk_engine_key_preload(e, "k", f->zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    /* no work is idle, not starved: starved is only synthesis behind */
    CHECK(st.devices[0].idle_s > 0 && st.devices[0].starved_s == 0 &&
              st.devices[0].starved_synth_s == 0,
          "idle engine: idle %.6f s, starved %.6f s", st.devices[0].idle_s,
          st.devices[0].starved_s);
    cuzk_job *j = NULL;
    CHECK(submit(e, &j, f, "k", f->wasm, "wiw", "slow-1", &err) == CUZK_OK, "submit: %s",
          err.msg);
    CHECK(j && cuzk_job_await(j, -1, &err) == CUZK_OK, "slow job: %s", err.msg);
    cuzk_job_release(j);
    cuzk_engine_status_get(e, &st);
    const cuzk_device_status *d = &st.devices[0];
    printf("  stalled synthesis: busy %.3f s, starved (synthesis behind) %.3f s, idle %.3f s, "
           "idle-with-work %.6f s\n",
           d->busy_s, d->starved_s, d->idle_s, d->idle_with_work_s);
    /* Three partitions, one synthesis worker, 150 ms each, a 2 ms device. */
    CHECK(d->starved_synth_s >= 3 * STALL_MS / 2 / 1e3, "synthesis behind %.3f s, stalled %.3f s",
          d->starved_synth_s, 3 * STALL_MS / 1e3);
    CHECK(d->starved_synth_s <= d->starved_s, "a part of starved");
    CHECK(fabs(d->busy_s + d->starved_s + d->idle_s + d->idle_with_work_s - st.uptime_ns / 1e9) <
              0.05,
          "the split adds up to the uptime");
    char *m = NULL, want[128];
    snprintf(want, sizeof want, "cuzk_device_starved_synthesis_seconds_total{device=\"%s\"} ",
             d->name);
    CHECK(cuzk_engine_metrics(e, &m, NULL, &err) == CUZK_OK && m && strstr(m, want),
          "metrics have %s", want);
    free(m);
    cuzk_engine_destroy(e, -1);
}

/* ---- main ------------------------------------------------------------------------------- */

static const char *const names[] = {"poseidon_chain", "mimc",   "merkle",     "near_p",
                                    "arrays",         "pedersen", "assert_fail"};
enum { N_NAMES = sizeof names / sizeof names[0] };

static const fx *find(const fx *fs, size_t n, const char *dir, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(fs[i].dir, dir) && !strcmp(fs[i].name, name))
            return &fs[i];
    return NULL;
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_inputs");
    fixtures = getenv("CUZK_WC_FIXTURES");
    if (!fixtures || !fixtures[0]) {
        CHECK(0, "CUZK_WC_FIXTURES is not set: build the circom fixtures with tests/witness/build.sh "
                 "(ctest runs it as the wc_fixtures test)");
        return tu_finish();
    }
    static const char *const dirs[] = {"bn128", "bls12381"};
    fx fs[2 * N_NAMES];
    size_t n = 0;
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < N_NAMES; i++) {
            char wasm[600];
            snprintf(wasm, sizeof wasm, "%s/%s/%s.wasm", fixtures, dirs[d], names[i]);
            if (!exists(wasm)) {
                CHECK(0, "fixture %s is missing", wasm);
                continue;
            }
            if (fx_load(&fs[n], dirs[d], names[i]))
                n++;
            else
                fx_free(&fs[n]);
        }
    const fx *bn = find(fs, n, "bn128", "poseidon_chain"), *bls = find(fs, n, "bls12381", "poseidon_chain");
    const fx *bn_mimc = find(fs, n, "bn128", "mimc"), *bls_mimc = find(fs, n, "bls12381", "mimc");
    const fx *af = find(fs, n, "bn128", "assert_fail");
    if (!n || !bn || !bls || !bn_mimc || !bls_mimc || !af) {
        CHECK(0, "the fixtures in %s are incomplete (%zu loaded)", fixtures, n);
    } else {
        all_circuits(fs, n);
        concurrent(bn, bls);
        bad_inputs(af);
        mismatches(bn, bn_mimc, bls, bls_mimc);
        starved_split(bn);
    }
    for (size_t i = 0; i < n; i++)
        fx_free(&fs[i]);
    return tu_finish();
}
