/*
 * Engine under concurrent load (include/cuzk.h): hundreds of small jobs
 * submitted from several threads at once, on two keys of both curves, with
 * mixed priorities, witnesses by path, by copy and zero-copy, duplicate
 * request ids racing each other, and cancellations.
 *
 * Checks: every submit succeeds and every job reaches an outcome (done or
 * cancelled, nothing else); every proof of a done job verifies with the
 * key's vk; handles attached to a request id share the job of a handle
 * that created it (no job proved twice); the engine's outcome counters add
 * up to the number of distinct jobs (none lost or answered twice); every
 * zero-copy witness is released exactly once, and only when the engine
 * took it; after the load nothing is left in flight, in a queue, or charged
 * to the budget except keys and idle buffers.  Also meant to run under
 * ThreadSanitizer (-DCUZK_TSAN=ON).
 */
#include <pthread.h>

#include "test_engine_util.h"

#define THREADS 6
#define PER_THREAD 35
#define DUP_IDS 15
#define MAX_PARTS 3

typedef struct sub {
    cuzk_job *job;
    int attached, curve, n, cancelled_by_us;
    char rid[32];
    uint64_t job_id;
    _Atomic int released[MAX_PARTS]; /* zero-copy witnesses given back */
    int zero_copy[MAX_PARTS];
    cuzk_status submit_status, outcome;
} sub;

typedef struct worker {
    cuzk_engine *e;
    eu_circuit *circ; /* [2] */
    uint64_t rng;
    unsigned idx;
    sub subs[PER_THREAD];
} worker;

static uint64_t next_rand(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static void release_cb(void *ctx, const void *data) {
    (void)data;
    atomic_fetch_add((_Atomic int *)ctx, 1);
}

static void submit_one(worker *w, sub *s, unsigned i) {
    cuzk_witness wit[MAX_PARTS];
    uint64_t r = next_rand(&w->rng);
    int dup = r % 4 == 0;
    unsigned dup_id = (unsigned)(r >> 8) % DUP_IDS;
    /* A duplicate id always names the same key and size, so it attaches. */
    s->curve = dup ? (int)(dup_id % 2) : (int)((r >> 16) % 2);
    s->n = dup ? 1 + (int)(dup_id % MAX_PARTS) : 1 + (int)((r >> 20) % MAX_PARTS);
    if (dup)
        snprintf(s->rid, sizeof s->rid, "dup-%u", dup_id);
    else
        snprintf(s->rid, sizeof s->rid, "t%u-%u", w->idx, i);
    eu_circuit *c = &w->circ[s->curve];
    memset(wit, 0, sizeof wit);
    for (int k = 0; k < s->n; k++) {
        unsigned mode = (unsigned)(next_rand(&w->rng) % 3);
        if (mode == 0) {
            wit[k].path = c->wtns;
        } else {
            wit[k].data = c->wtns_mem;
            wit[k].size = c->wtns_size;
            if (mode == 2) {
                wit[k].release = release_cb;
                wit[k].release_ctx = &s->released[k];
                s->zero_copy[k] = 1;
            }
        }
    }
    cuzk_submit_opts o = {.key = s->curve ? "bls" : c->zkey,
                          .request_id = s->rid,
                          .priority = (cuzk_priority)(next_rand(&w->rng) % 4),
                          .witnesses = wit,
                          .n_witnesses = (size_t)s->n};
    cuzk_error err = {0};
    s->submit_status = cuzk_submit(w->e, &s->job, &s->attached, &o, &err);
    if (s->submit_status != CUZK_OK) {
        fprintf(stderr, "submit %s: %s\n", s->rid, err.msg);
        return;
    }
    s->job_id = cuzk_job_id(s->job);
    if (next_rand(&w->rng) % 10 == 0)
        s->cancelled_by_us = cuzk_job_cancel(s->job) == CUZK_OK;
}

static void *submitter(void *arg) {
    worker *w = arg;
    for (unsigned i = 0; i < PER_THREAD; i++)
        submit_one(w, &w->subs[i], i);
    for (unsigned i = 0; i < PER_THREAD; i++) {
        sub *s = &w->subs[i];
        cuzk_error err = {0};
        if (s->job)
            s->outcome = cuzk_job_await(s->job, 300000, &err);
    }
    return NULL;
}

/* Every attached handle shares its job with a handle that created a job
 * under the same request id. */
static void check_attach(worker *ws) {
    unsigned attached = 0;
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned i = 0; i < PER_THREAD; i++) {
            sub *s = &ws[t].subs[i];
            if (!s->job || !s->attached)
                continue;
            attached++;
            int found = 0;
            for (unsigned t2 = 0; t2 < THREADS && !found; t2++)
                for (unsigned i2 = 0; i2 < PER_THREAD && !found; i2++) {
                    sub *o = &ws[t2].subs[i2];
                    found = o->job && !o->attached && o->job_id == s->job_id && !strcmp(o->rid, s->rid);
                }
            CHECK(found, "attached handle %s has job %llu that no submit created", s->rid,
                  (unsigned long long)s->job_id);
        }
    printf("  %u handles attached to existing jobs\n", attached);
    CHECK(attached > 0, "the load should have produced duplicate request ids");
}

static void check_outcomes(worker *ws, eu_circuit *circ, cuzk_engine *e) {
    uint64_t ids[THREADS * PER_THREAD];
    size_t n_ids = 0, done = 0, cancelled = 0;
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned i = 0; i < PER_THREAD; i++) {
            sub *s = &ws[t].subs[i];
            CHECK(s->submit_status == CUZK_OK, "submit %s failed: %d", s->rid, s->submit_status);
            if (!s->job)
                continue;
            cuzk_job_info info;
            cuzk_job_status(s->job, &info, NULL, 0);
            CHECK(s->outcome == CUZK_OK || s->outcome == CUZK_ECANCELLED,
                  "job %s ended with %s (%s)", s->rid, cuzk_status_name(s->outcome), info.msg);
            CHECK(!s->cancelled_by_us || s->outcome == CUZK_ECANCELLED,
                  "job %s was cancelled but ended %s", s->rid, cuzk_status_name(s->outcome));
            if (s->outcome == CUZK_OK) {
                size_t ok = eu_verify_job(s->job, &circ[s->curve].vk);
                CHECK(ok == (size_t)s->n, "job %s: %zu of %d proofs verify", s->rid, ok, s->n);
                CHECK(info.state == CUZK_JOB_DONE && info.partitions_done == (uint32_t)s->n,
                      "job %s: state %s, %u done", s->rid, cuzk_job_state_name(info.state),
                      info.partitions_done);
            } else {
                CHECK(info.state == CUZK_JOB_CANCELLED, "job %s: state %s", s->rid,
                      cuzk_job_state_name(info.state));
            }
            int seen = 0;
            for (size_t k = 0; k < n_ids && !seen; k++)
                seen = ids[k] == s->job_id;
            if (!seen) {
                ids[n_ids++] = s->job_id;
                done += s->outcome == CUZK_OK;
                cancelled += s->outcome == CUZK_ECANCELLED;
            }
        }
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    printf("  %zu distinct jobs: %zu done, %zu cancelled; %llu proofs\n", n_ids, done, cancelled,
           (unsigned long long)st.proofs);
    CHECK(st.jobs_done == done && st.jobs_cancelled == cancelled,
          "engine counted %llu done / %llu cancelled, handles saw %zu / %zu",
          (unsigned long long)st.jobs_done, (unsigned long long)st.jobs_cancelled, done, cancelled);
    CHECK(st.jobs_failed == 0 && st.jobs_expired == 0, "unexpected failures %llu / expiries %llu",
          (unsigned long long)st.jobs_failed, (unsigned long long)st.jobs_expired);
    CHECK(done > 0 && cancelled > 0, "the load should have both done and cancelled jobs");
}

/* Nothing in flight or queued; only keys and idle buffers charged. */
static void check_idle(cuzk_engine *e) {
    cuzk_engine_status st;
    for (int i = 0; i < 2000; i++) { /* jobs drain just after their outcome */
        cuzk_engine_status_get(e, &st);
        if (st.jobs_active == 0)
            break;
        usleep(5000);
    }
    CHECK(st.jobs_active == 0, "%u jobs still active", st.jobs_active);
    for (int s = 0; s < CUZK_STAGE_COUNT; s++)
        CHECK(st.in_stage[s] == 0, "%u partitions still in stage %s", st.in_stage[s],
              cuzk_stage_name((cuzk_stage)s));
    CHECK(st.synth_queue == 0 && st.ready_queue == 0 && st.done_queue == 0, "queues not empty");
    CHECK(st.mem_intake == 0, "%llu bytes of witness copies still charged",
          (unsigned long long)st.mem_intake);
    /* in use: only the devices' prover scratch, kept between partitions */
    CHECK(st.mem_buffers == st.mem_buffers_idle + st.mem_scratch,
          "buffers in use after the load: %llu of %llu (%llu device scratch)",
          (unsigned long long)(st.mem_buffers - st.mem_buffers_idle),
          (unsigned long long)st.mem_buffers, (unsigned long long)st.mem_scratch);
    CHECK(st.mem_peak <= st.mem_budget, "peak %llu over budget %llu",
          (unsigned long long)st.mem_peak, (unsigned long long)st.mem_budget);
}

/* Under ThreadSanitizer every memory access of the prover is instrumented
 * (about 10x slower); the circuits shrink so the run stays short, while the
 * number of jobs, threads and races stays the same. */
#if defined(__SANITIZE_THREAD__)
#define LOG2 6
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOG2 6
#endif
#endif
#ifndef LOG2
#define LOG2 8
#endif

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_concurrency");
    char *dir = eu_tmpdir();
    eu_circuit circ[2];
    eu_make(&circ[0], dir, "bn", CUZK_CURVE_BN254, LOG2, 11);
    eu_make(&circ[1], dir, "bls", CUZK_CURVE_BLS12_381, LOG2, 12);

    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.finalize_threads = 2;
    cfg.self_verify = 1;
    eu_cpu_device(&cfg, 1);
    cuzk_engine *e;
    cuzk_error err = {0};
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        return 1;
    }
    CHECK(cuzk_engine_key_preload(e, "bls", circ[1].zkey, &err) == CUZK_OK, "preload: %s", err.msg);

    static worker ws[THREADS];
    pthread_t th[THREADS];
    for (unsigned t = 0; t < THREADS; t++) {
        ws[t].e = e, ws[t].circ = circ, ws[t].idx = t;
        ws[t].rng = tu_rand64() | 1;
        pthread_create(&th[t], NULL, submitter, &ws[t]);
    }
    for (unsigned t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    check_attach(ws);
    check_outcomes(ws, circ, e);
    check_idle(e);
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned i = 0; i < PER_THREAD; i++)
            cuzk_job_release(ws[t].subs[i].job);
    cuzk_engine_destroy(e, -1);
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned i = 0; i < PER_THREAD; i++) {
            sub *s = &ws[t].subs[i];
            int took = s->submit_status == CUZK_OK && !s->attached;
            for (int k = 0; k < s->n; k++)
                if (s->zero_copy[k])
                    CHECK(atomic_load(&s->released[k]) == took,
                          "%s witness %d released %d times (engine took it: %d)", s->rid, k,
                          atomic_load(&s->released[k]), took);
        }
    eu_free(&circ[0]);
    eu_free(&circ[1]);
    eu_rmdir(dir);
    return tu_finish();
}
