/*
 * Failures in the engine (include/cuzk.h, fault hook): a fault injected at
 * each stage (synthesis, device step, finalizer; fail or stall), a device
 * worker that dies, a broken key file, a missing witness, a witness of the
 * wrong curve.
 *
 * Checks: only the affected job fails, with the injected reason and the
 * partition named in its message; jobs around it complete and verify; the
 * engine keeps serving afterwards; a device step that fails once is
 * retried and the job succeeds (attempts = 2), on the same device when it
 * is the only one, on the other device when there are two, and on the CPU
 * fallback device when the only device is simulated (that proof is real
 * and verifies); a step that keeps failing fails its job after exactly two
 * attempts; a dead worker is replaced (restart counted, worker alive).
 */
#include <pthread.h>

#include "test_engine_util.h"

typedef struct hook_ctx {
    pthread_mutex_t lock;
    int exit_done;
    int first_dev[64]; /* device of attempt 0 of "fail-dev-once" partitions */
} hook_ctx;

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static void hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    hook_ctx *h = ctx;
    const char *r = at->request_id;
    if (at->site == CUZK_FAULT_SYNTHESIS && starts(r, "fail-synth") && at->partition == 1) {
        out->action = CUZK_FAULT_FAIL;
        snprintf(out->msg, sizeof out->msg, "boom synth");
    } else if (at->site == CUZK_FAULT_SYNTHESIS && starts(r, "stall-synth")) {
        out->action = CUZK_FAULT_STALL, out->stall_ms = 80;
    } else if (at->site == CUZK_FAULT_DEVICE && starts(r, "fail-dev-once") && at->attempt == 0) {
        out->action = CUZK_FAULT_FAIL;
        snprintf(out->msg, sizeof out->msg, "boom device once");
        pthread_mutex_lock(&h->lock);
        h->first_dev[at->partition % 64] = at->device;
        pthread_mutex_unlock(&h->lock);
    } else if (at->site == CUZK_FAULT_DEVICE && starts(r, "fail-dev-always")) {
        out->action = CUZK_FAULT_FAIL;
        snprintf(out->msg, sizeof out->msg, "boom device always");
    } else if (at->site == CUZK_FAULT_DEVICE && starts(r, "stall-dev")) {
        out->action = CUZK_FAULT_STALL, out->stall_ms = 80;
    } else if (at->site == CUZK_FAULT_FINALIZE && starts(r, "fail-final")) {
        out->action = CUZK_FAULT_FAIL;
        snprintf(out->msg, sizeof out->msg, "boom final");
    } else if (at->site == CUZK_FAULT_FINALIZE && starts(r, "stall-final")) {
        out->action = CUZK_FAULT_STALL, out->stall_ms = 120;
    } else if (at->site == CUZK_FAULT_DEVICE && starts(r, "exit")) {
        pthread_mutex_lock(&h->lock);
        if (!h->exit_done)
            out->action = CUZK_FAULT_EXIT, h->exit_done = 1;
        pthread_mutex_unlock(&h->lock);
    }
}

static cuzk_engine *make_engine_ev(hook_ctx *h, int n_sim, int fallback, int evaluates) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = getenv("CUZK_TEST_LOG") ? CUZK_LOG_INFO : CUZK_LOG_ERROR;
    eu_testing.fault_fn = hook;
    eu_testing.fault_ctx = h;
    cfg.self_verify = 1;
    cfg.cpu_fallback = fallback;
    if (n_sim == 0)
        eu_cpu_device(&cfg, 1);
    for (int i = 0; i < n_sim; i++) {
        eu_sim_device(&cfg, (unsigned)i, 5000);
        eu_testing.sim[i].evaluates = evaluates;
    }
    return eu_create(&cfg);
}

static cuzk_engine *make_engine(hook_ctx *h, int n_sim, int fallback) {
    return make_engine_ev(h, n_sim, fallback, 0);
}

/* Await |j|; check the outcome and, for a failure, that |needle| is in the
 * message.  Returns the job's info. */
static cuzk_job_info expect(cuzk_job *j, cuzk_status want, const char *needle, const char *what) {
    cuzk_error err = {0};
    cuzk_job_info info;
    memset(&info, 0, sizeof info);
    CHECK(j != NULL, "%s: submit failed", what);
    if (!j)
        return info;
    cuzk_status s = cuzk_job_await(j, 120000, &err);
    cuzk_job_status(j, &info, NULL, 0);
    CHECK(s == want, "%s: outcome %s (%s), want %s", what, cuzk_status_name(s), err.msg,
          cuzk_status_name(want));
    if (needle)
        CHECK(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, err.msg, needle);
    return info;
}

static void stage_faults(const eu_circuit *c, const eu_circuit *other, const char *dir) {
    hook_ctx h = {.lock = PTHREAD_MUTEX_INITIALIZER};
    cuzk_engine *e = make_engine(&h, 0, 0);
    cuzk_error err = {0};
    char bad_key[600], missing[600];
    snprintf(bad_key, sizeof bad_key, "%s/garbage.zkey", dir);
    snprintf(missing, sizeof missing, "%s/missing.wtns", dir);
    FILE *f = fopen(bad_key, "wb");
    fputs("this is not a zkey", f);
    fclose(f);

    const char *names[] = {"ok-1",          "fail-synth-1",    "ok-2",      "stall-synth-1",
                           "fail-dev-once-1", "fail-dev-always-1", "stall-dev-1", "fail-final-1",
                           "stall-final-1", "exit-1",          "ok-3"};
    enum { N = sizeof names / sizeof names[0] };
    cuzk_job *jobs[N];
    for (int i = 0; i < N; i++)
        jobs[i] = eu_submit(e, c, NULL, 2, CUZK_PRIORITY_NORMAL, names[i], &err);
    cuzk_job *jbad = eu_submit(e, c, bad_key, 1, CUZK_PRIORITY_HIGH, "bad-key", &err);
    cuzk_witness wm = {.path = missing};
    cuzk_submit_opts om = {.key = c->zkey, .request_id = "missing-wtns", .witnesses = &wm, .n_witnesses = 1};
    cuzk_job *jmiss = NULL;
    cuzk_submit(e, &jmiss, NULL, &om, &err);
    cuzk_job *jcurve = eu_submit(e, other, c->zkey, 1, CUZK_PRIORITY_NORMAL, "wrong-curve", &err);

    for (int i = 0; i < N; i++) {
        const char *r = names[i];
        int fails = starts(r, "fail-synth") || starts(r, "fail-dev-always") || starts(r, "fail-final");
        cuzk_status want = !fails ? CUZK_OK
                           : starts(r, "fail-dev") ? CUZK_EGPU
                                                   : CUZK_EINTERNAL;
        const char *needle = !fails                    ? NULL
                             : starts(r, "fail-synth") ? "partition 1: synthesis: boom synth"
                             : starts(r, "fail-dev")   ? "boom device always"
                             : starts(r, "fail-final") ? "boom final"
                                                       : NULL;
        cuzk_job_info info = expect(jobs[i], want, needle, r);
        if (!fails)
            CHECK(eu_verify_job(jobs[i], &c->vk) == 2, "%s: proofs do not verify", r);
        else
            CHECK(info.state == CUZK_JOB_FAILED, "%s: state %s", r, cuzk_job_state_name(info.state));
        cuzk_partition_info pi[2];
        cuzk_job_status(jobs[i], NULL, pi, 2);
        if (starts(r, "fail-dev")) {
            /* A failed partition failed after exactly two attempts; after
             * the job's outcome the other may still be draining. */
            int n_failed = 0;
            for (int k = 0; k < 2; k++) {
                n_failed += pi[k].stage == CUZK_STAGE_FAILED;
                CHECK(pi[k].stage != CUZK_STAGE_FAILED || pi[k].attempts == 2,
                      "%s partition %d failed after %u attempts", r, k, pi[k].attempts);
                CHECK(fails || pi[k].attempts == 2, "%s partition %d: %u attempts", r, k,
                      pi[k].attempts);
            }
            CHECK(fails == (n_failed > 0), "%s: %d partitions failed", r, n_failed);
        }
        if (starts(r, "fail-synth"))
            CHECK(pi[1].stage == CUZK_STAGE_FAILED, "%s: partition 1 is %s", r,
                  cuzk_stage_name(pi[1].stage));
    }
    expect(jbad, CUZK_EFORMAT, "garbage.zkey", "bad key");
    expect(jmiss, CUZK_EIO, "missing.wtns", "missing witness");
    expect(jcurve, CUZK_ECURVE, "partition 0", "wrong curve");

    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.worker_restarts == 1, "%llu worker restarts, want 1", (unsigned long long)st.worker_restarts);
    CHECK(st.devices[0].workers_alive == 1, "%u workers alive", st.devices[0].workers_alive);
    /* fail-dev-once: 2; fail-dev-always: 1 or 2 (its second partition may
     * be stopped before its first attempt); exit: 1. */
    CHECK(st.retries >= 4 && st.retries <= 5, "%llu retries, want 4 or 5",
          (unsigned long long)st.retries);
    CHECK(st.jobs_failed == 6, "%llu jobs failed, want 6", (unsigned long long)st.jobs_failed);

    cuzk_job *after = eu_submit(e, c, NULL, 2, CUZK_PRIORITY_LOW, "after-faults", &err);
    expect(after, CUZK_OK, NULL, "job after the faults");
    CHECK(after && eu_verify_job(after, &c->vk) == 2, "job after the faults does not verify");

    for (int i = 0; i < N; i++)
        cuzk_job_release(jobs[i]);
    cuzk_job_release(jbad);
    cuzk_job_release(jmiss);
    cuzk_job_release(jcurve);
    cuzk_job_release(after);
    cuzk_engine_destroy(e, -1);
}

/* Retry of a failed device step: on the other device (two simulated ones),
 * or on the CPU fallback when the simulated device is alone; |evaluates|:
 * the simulated device claims to evaluate a, b, c itself. */
static void retry_elsewhere(const eu_circuit *c, int fallback, int evaluates) {
    hook_ctx h = {.lock = PTHREAD_MUTEX_INITIALIZER};
    cuzk_engine *e = make_engine_ev(&h, fallback ? 1 : 2, fallback, evaluates);
    cuzk_error err = {0};
    enum { P = 4 };
    cuzk_job *j = eu_submit(e, c, NULL, P, CUZK_PRIORITY_NORMAL, "fail-dev-once-sim", &err);
    cuzk_job_info info = expect(j, CUZK_OK, NULL, fallback ? "retry on fallback" : "retry on other");
    cuzk_partition_info pi[P];
    cuzk_job_status(j, NULL, pi, P);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    for (int k = 0; k < P; k++) {
        CHECK(pi[k].attempts == 2, "partition %d: %u attempts", k, pi[k].attempts);
        CHECK(pi[k].device != h.first_dev[k], "partition %d retried on the device that failed (%d)",
              k, pi[k].device);
        if (fallback)
            CHECK(pi[k].device >= 0 && st.devices[pi[k].device].fallback_only,
                  "partition %d: device %d is not the fallback", k, pi[k].device);
        /* where a, b, c were evaluated: by synthesis, unless the failed
         * device was to evaluate them, when the CPU retry did */
        const cuzk_step_timing *t = &pi[k].steps;
        if (fallback)
            CHECK(t->eval_site == (evaluates ? CUZK_EVAL_DEVICE : CUZK_EVAL_SYNTHESIS) &&
                      t->evaluate_ns && t->ntt_ns && t->msm_h_ns && t->assemble_ns,
                  "partition %d: step figures of the CPU retry: evaluate %llu ns at site %d, "
                  "h %llu, msm H %llu", k, (unsigned long long)t->evaluate_ns, (int)t->eval_site,
                  (unsigned long long)t->ntt_ns, (unsigned long long)t->msm_h_ns);
    }
    if (fallback) {
        /* The fallback is a real CPU prover: its proofs verify. */
        CHECK(eu_verify_job(j, &c->vk) == P, "fallback proofs do not verify");
        CHECK(!info.simulated, "job marked simulated although every proof came from the CPU");
    } else {
        cuzk_proof_bytes proof;
        size_t n_pub = 0;
        CHECK(info.simulated, "a simulated job is not marked");
        CHECK(cuzk_job_proof_bytes(j, &proof, 0, &err) == CUZK_EUNSUPPORTED,
              "a simulated device must not hand out a proof");
        CHECK(cuzk_job_public_bytes(j, NULL, NULL, &n_pub, 0, &err) == CUZK_EUNSUPPORTED,
              "a simulated device must not hand out public signals");
        CHECK(cuzk_job_proof_json(j, 0) == NULL, "a simulated device must not hand out JSON");
    }
    cuzk_job_release(j);
    cuzk_engine_destroy(e, -1);
}

/* Devices that evaluate a, b, c themselves: partitions hold no buffer for
 * them, so the same jobs take less buffer memory (12 GiB a partition at
 * 2^27). */
static void no_abc_buffers(const eu_circuit *c) {
    uint64_t peak[2] = {0, 0};
    for (int ev = 0; ev < 2; ev++) {
        hook_ctx h = {.lock = PTHREAD_MUTEX_INITIALIZER};
        cuzk_engine *e = make_engine_ev(&h, 1, 0, ev);
        cuzk_error err = {0};
        cuzk_job *j = eu_submit(e, c, NULL, 4, CUZK_PRIORITY_NORMAL, "plain", &err);
        expect(j, CUZK_OK, NULL, ev ? "evaluating device" : "plain device");
        cuzk_engine_status st;
        cuzk_engine_status_get(e, &st);
        peak[ev] = st.mem_buffers;
        cuzk_job_release(j);
        cuzk_engine_destroy(e, -1);
    }
    CHECK(peak[1] > 0 && peak[1] < peak[0],
          "no a, b, c buffers for a device that evaluates (%llu bytes against %llu)",
          (unsigned long long)peak[1], (unsigned long long)peak[0]);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_faults");
    char *dir = eu_tmpdir();
    eu_circuit bn, bls;
    eu_make(&bn, dir, "bn", CUZK_CURVE_BN254, 8, 21);
    eu_make(&bls, dir, "bls", CUZK_CURVE_BLS12_381, 8, 22);
    stage_faults(&bn, &bls, dir);
    retry_elsewhere(&bn, 0, 0);
    retry_elsewhere(&bls, 1, 0);
    /* a device that evaluates a, b, c itself, as GPUs do: synthesis makes
     * no a, b, c and partitions hold no buffer for them; the CPU retry
     * takes one and evaluates (its proofs verify) */
    retry_elsewhere(&bn, 1, 1);
    retry_elsewhere(&bls, 1, 1);
    no_abc_buffers(&bn);
    eu_free(&bn);
    eu_free(&bls);
    eu_rmdir(dir);
    return tu_finish();
}
