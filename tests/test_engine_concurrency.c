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
 * to the budget except keys and idle buffers.  Then, round after round,
 * RACERS threads released together by a barrier submit one fresh request
 * id: exactly one of them creates a job and every other handle is attached
 * to that same job.  Also meant to run under ThreadSanitizer
 * (-DCUZK_TSAN=ON).
 */
#include <pthread.h>

#include "test_engine_util.h"

#define THREADS 6
#define PER_THREAD 35
#define DUP_IDS 15
#define MAX_PARTS 3
#define RACERS 8
#define RACE_ROUNDS 12

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
        if (st.jobs_active + st.jobs_draining == 0)
            break;
        usleep(5000);
    }
    CHECK(st.jobs_active + st.jobs_draining == 0, "%u jobs still active, %u draining",
          st.jobs_active, st.jobs_draining);
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

/* ---- one request id submitted by RACERS threads at the same instant ---- */

typedef struct racer {
    cuzk_engine *e;
    const eu_circuit *c;
    pthread_barrier_t *go;
    const char *rid;
    cuzk_job *job;
    int attached;
    cuzk_status st;
} racer;

static void *race_submit(void *arg) {
    racer *r = arg;
    cuzk_witness w = {.data = r->c->wtns_mem, .size = r->c->wtns_size};
    cuzk_submit_opts o = {.key = "bls", .request_id = r->rid, .witnesses = &w, .n_witnesses = 1};
    cuzk_error err = {0};
    pthread_barrier_wait(r->go);
    r->st = cuzk_submit(r->e, &r->job, &r->attached, &o, &err);
    if (r->st != CUZK_OK)
        fprintf(stderr, "race submit %s: %s\n", r->rid, err.msg);
    return NULL;
}

/* The id check before a job is built is a shortcut; the one that counts is
 * made again under the lock that inserts the job.  Without it, racers that
 * all missed the id before any insert each create a job. */
static void check_race(cuzk_engine *e, const eu_circuit *bls) {
    unsigned created_total = 0;
    for (unsigned round = 0; round < RACE_ROUNDS; round++) {
        char rid[32];
        snprintf(rid, sizeof rid, "race-%u", round);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, RACERS);
        racer rs[RACERS];
        pthread_t th[RACERS];
        for (unsigned t = 0; t < RACERS; t++) {
            rs[t] = (racer){.e = e, .c = bls, .go = &go, .rid = rid};
            pthread_create(&th[t], NULL, race_submit, &rs[t]);
        }
        for (unsigned t = 0; t < RACERS; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&go);
        unsigned created = 0;
        uint64_t first = 0;
        int same = 1;
        for (unsigned t = 0; t < RACERS; t++) {
            CHECK(rs[t].st == CUZK_OK && rs[t].job, "%s: racer %u got %s", rid, t,
                  cuzk_status_name(rs[t].st));
            if (!rs[t].job)
                continue;
            created += !rs[t].attached;
            uint64_t id = cuzk_job_id(rs[t].job);
            if (!first)
                first = id;
            same &= id == first;
        }
        CHECK(created == 1, "%s: %u of %u racers created a job (want exactly 1)", rid, created,
              RACERS);
        CHECK(same, "%s: the racers' handles name more than one job", rid);
        cuzk_job *found = NULL;
        cuzk_error err = {0};
        CHECK(cuzk_job_find(e, &found, rid, &err) == CUZK_OK && found && cuzk_job_id(found) == first,
              "%s: the id table does not name the racers' job", rid);
        cuzk_job_release(found);
        for (unsigned t = 0; t < RACERS; t++)
            if (rs[t].job) {
                cuzk_status s = cuzk_job_await(rs[t].job, 300000, &err);
                CHECK(s == CUZK_OK, "%s: racer %u's job ended %s", rid, t, cuzk_status_name(s));
                cuzk_job_release(rs[t].job);
            }
        created_total += created;
    }
    printf("  %u rounds of %u racers on one request id: %u jobs created\n", RACE_ROUNDS, RACERS,
           created_total);
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
    check_race(e, &circ[1]);
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
