/*
 * Cancel and deadline of a job that is already on its device.
 *
 * A fault hook holds the device step of the jobs under test ("run-*") at
 * its start until the test lets it go, so the job is deterministically
 * RUNNING with its partition in PROVING when it is cancelled or its
 * deadline passes -- no timing assumption.  For both endings:
 * - the job ends at once (await returns CUZK_ECANCELLED / CUZK_ETIMEOUT
 *   while the device is still held), with the right state and message;
 * - once the device step is let go and the engine has no partition left in
 *   flight, the result is dropped: no proof for the job, no job counted as
 *   done, no proof counted; every buffer is back in the pool (used =
 *   idle), the key is no longer pinned (in_use 0), and the in-memory
 *   witness has been given back exactly once (its release callback);
 * - the engine still proves the next job, and that proof verifies.
 */
#include "test_engine_util.h"

typedef struct gate {
    _Atomic int held, released;
} gate;

static void hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    gate *g = ctx;
    (void)out;
    if (at->site == CUZK_FAULT_DEVICE && !strncmp(at->request_id, "run-", 4)) {
        atomic_store(&g->held, 1);
        while (!atomic_load(&g->released))
            usleep(1000);
    }
}

static _Atomic unsigned releases;
static void on_release(void *ctx, const void *data) {
    (void)ctx, (void)data;
    atomic_fetch_add(&releases, 1);
}

/* Waits (bounded, 60 s) until |cond(e)| holds; 0 if it never did. */
static int wait_until(cuzk_engine *e, int (*cond)(cuzk_engine *)) {
    for (int i = 0; i < 60000; i++) {
        if (cond(e))
            return 1;
        usleep(1000);
    }
    return 0;
}

static int nothing_in_flight(cuzk_engine *e) {
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    for (int s = CUZK_STAGE_QUEUED; s <= CUZK_STAGE_FINALIZING; s++)
        if (st.in_stage[s])
            return 0;
    return 1;
}

static int witness_back(cuzk_engine *e) {
    (void)e;
    return atomic_load(&releases) == 1;
}

static void running_job_ends(cuzk_engine *e, gate *g, const eu_circuit *c, int by_deadline) {
    const char *what = by_deadline ? "deadline" : "cancel";
    cuzk_error err = {0};
    cuzk_engine_status before, st;
    cuzk_engine_status_get(e, &before);
    atomic_store(&g->held, 0);
    atomic_store(&g->released, 0);
    cuzk_witness w = {.data = c->wtns_mem, .size = c->wtns_size, .release = on_release};
    cuzk_job *j = NULL;
    /* A deadline must pass while the device step is held, not before it
     * starts: a machine too loaded to reach the device in time gets
     * another try with a longer deadline (the held step then waits for
     * it); a cancel needs no such care. */
    static const uint32_t deadlines[] = {300, 3000, 30000};
    for (int t = 0; t < 3; t++) {
        char rid[32];
        snprintf(rid, sizeof rid, "run-%s-%d", what, t);
        cuzk_submit_opts o = {.key = "k",
                              .request_id = rid,
                              .witnesses = &w,
                              .n_witnesses = 1,
                              .deadline_ms = by_deadline ? deadlines[t] : 0};
        atomic_store(&releases, 0);
        if (cuzk_submit(e, &j, NULL, &o, &err) != CUZK_OK) {
            CHECK(0, "%s: submit: %s", what, err.msg);
            return;
        }
        while (!atomic_load(&g->held) && cuzk_job_await(j, 1, &err) == CUZK_EBUSY)
            ;
        if (atomic_load(&g->held))
            break;
        printf("  %s: the job ended (%s) before its device step; again\n", what, err.msg);
        wait_until(e, nothing_in_flight);
        wait_until(e, witness_back);
        cuzk_engine_status_get(e, &before);
        cuzk_job_release(j);
        j = NULL;
    }
    if (!j) {
        CHECK(0, "%s: the job never reached its device step", what);
        return;
    }
    cuzk_job_info info;
    cuzk_partition_info pi;
    cuzk_job_status(j, &info, &pi, 1);
    CHECK(info.state == CUZK_JOB_RUNNING && pi.stage == CUZK_STAGE_PROVING,
          "%s: job %s, partition %s: not on the device", what, cuzk_job_state_name(info.state),
          cuzk_stage_name(pi.stage));
    cuzk_status s;
    if (by_deadline) {
        /* the device is held: only the deadline can end the job */
        s = cuzk_job_await(j, 60000, &err);
        CHECK(s == CUZK_ETIMEOUT && strstr(err.msg, "deadline"), "deadline: await %s: %s",
              cuzk_status_name(s), err.msg);
    } else {
        CHECK(cuzk_job_cancel(j) == CUZK_OK, "cancel of a running job must succeed");
        s = cuzk_job_await(j, 60000, &err);
        CHECK(s == CUZK_ECANCELLED, "cancel: await %s: %s", cuzk_status_name(s), err.msg);
    }
    cuzk_job_status(j, &info, NULL, 0);
    CHECK(info.state == (by_deadline ? CUZK_JOB_EXPIRED : CUZK_JOB_CANCELLED),
          "%s: state %s while the device still holds the partition", what,
          cuzk_job_state_name(info.state));
    /* ended, and still on the device: counted as draining, not active */
    cuzk_engine_status_get(e, &st);
    CHECK(st.jobs_active == 0 && st.jobs_draining == 1,
          "%s: ended with its partition on the device: %u active, %u draining", what,
          st.jobs_active, st.jobs_draining);
    /* let the device finish its step; the engine must drop what it makes */
    atomic_store(&g->released, 1);
    CHECK(wait_until(e, nothing_in_flight), "%s: partitions still in flight", what);
    for (int i = 0; i < 2000; i++) { /* the job drains just after its partition */
        cuzk_engine_status_get(e, &st);
        if (!st.jobs_draining)
            break;
        usleep(5000);
    }
    CHECK(st.jobs_active == 0 && st.jobs_draining == 0,
          "%s: after its partition: %u active, %u draining", what, st.jobs_active,
          st.jobs_draining);
    CHECK(wait_until(e, witness_back), "%s: the witness was released %u times, want 1", what,
          atomic_load(&releases));
    cuzk_job_status(j, &info, &pi, 1);
    CHECK(info.state == (by_deadline ? CUZK_JOB_EXPIRED : CUZK_JOB_CANCELLED) &&
              info.status == (by_deadline ? CUZK_ETIMEOUT : CUZK_ECANCELLED),
          "%s: the job ended %s %s after the device step", what, cuzk_job_state_name(info.state),
          cuzk_status_name(info.status));
    CHECK(info.partitions_done == 0, "%s: %u partitions counted done", what, info.partitions_done);
    CHECK(pi.stage == CUZK_STAGE_CANCELLED, "%s: partition ended in %s", what,
          cuzk_stage_name(pi.stage));
    cuzk_proof_bytes proof;
    CHECK(cuzk_job_proof_bytes(j, &proof, 0, &err) != CUZK_OK, "%s: the dropped result has a proof",
          what);
    cuzk_engine_status_get(e, &st);
    CHECK(st.jobs_done == before.jobs_done && st.proofs == before.proofs,
          "%s: done %llu -> %llu, proofs %llu -> %llu: the result was not dropped", what,
          (unsigned long long)before.jobs_done, (unsigned long long)st.jobs_done,
          (unsigned long long)before.proofs, (unsigned long long)st.proofs);
    CHECK(st.mem_buffers == st.mem_buffers_idle + st.mem_scratch,
          "%s: %llu buffer bytes, only %llu idle and %llu device scratch", what,
          (unsigned long long)st.mem_buffers, (unsigned long long)st.mem_buffers_idle,
          (unsigned long long)st.mem_scratch);
    CHECK(st.mem_intake == 0, "%s: %llu witness bytes still charged", what,
          (unsigned long long)st.mem_intake);
    cuzk_key_info ki[4];
    size_t nk = cuzk_engine_keys(e, ki, 4);
    for (size_t i = 0; i < nk && i < 4; i++)
        CHECK(ki[i].in_use == 0, "%s: key %s still pinned by %u partitions", what, ki[i].id,
              ki[i].in_use);
    cuzk_job_release(j);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_running");
    char *dir = eu_tmpdir();
    eu_circuit c;
    eu_make(&c, dir, "bn", CUZK_CURVE_BN254, 8, 77);
    gate g = {0};
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.cpu_fallback = 0;
    eu_testing.fault_fn = hook;
    eu_testing.fault_ctx = &g;
    eu_cpu_device(&cfg, 1);
    cuzk_engine *e;
    cuzk_error err = {0};
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        return 1;
    }
    CHECK(cuzk_engine_key_preload(e, "k", c.zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    running_job_ends(e, &g, &c, 0);
    running_job_ends(e, &g, &c, 1);
    /* the engine keeps proving */
    cuzk_job *j = eu_submit(e, &c, "k", 1, CUZK_PRIORITY_NORMAL, "after", &err);
    CHECK(j && cuzk_job_await(j, 60000, &err) == CUZK_OK, "job after: %s", err.msg);
    if (j) {
        CHECK(eu_verify_job(j, &c.vk) == 1, "the job after does not verify");
        cuzk_job_release(j);
    }
    cuzk_engine_destroy(e, -1);
    eu_free(&c);
    eu_rmdir(dir);
    return tu_finish();
}
