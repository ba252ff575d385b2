/*
 * Device time accounting (docs/ENGINE.md), and the failure cuzk is
 * named for, reproduced: finalizers that do not return while a simulated
 * device with a backlog proves partitions of 20 ms.  In the daemon cuzk
 * replaces, a slow finalizer held a lock the GPU worker needed, and the GPU
 * sat idle while work waited.
 *
 * Every check is an identity or a bound that holds however loaded the
 * machine is; none compares a duration with a fixed figure.  The fault
 * hook makes the situations, counts what passes through it and reads the
 * engine's status at chosen points:
 * - always: per device, busy + starved + idle + idle-with-work equals the uptime
 *   of the same status (one clock read), to the rounding to seconds;
 * - held finalizers: both finalizers are stopped inside the hook until the
 *   device has proved every partition.  A worker that waited for a
 *   finalizer could never get there (the hook gives up after a long guard
 *   and the test fails).  Then the done queue holds exactly the partitions
 *   the finalizers have not taken, the device's and the hook's partition
 *   counts agree, and while the finalizers stay stopped the device, which
 *   has nothing left, gains no busy and no idle-with-work time at all;
 * - worker gap: every partition is ready before the device starts, and the
 *   hook sleeps on the worker between partitions (the WORKER_GAP site),
 *   measuring each sleep.  From the first device step to the last, the
 *   device always had work: it gains no starved time, its busy time covers
 *   the steps in between, and its idle-with-work covers every gap the hook
 *   measured.
 */
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "test_engine_util.h"

#define COMPUTE_US 20000
#define GAP_MS 10
#define FINALIZERS 2
#define JOBS 5
#define PARTS 4
#define N (JOBS * PARTS)
/* How long the hook keeps a stage stopped at most: not a measurement, a
 * guard so that an engine that can never release it fails instead of
 * hanging (the condition it waits for takes about N x 20 ms). */
#define GUARD_S 60

typedef struct hook_ctx {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    cuzk_engine *_Atomic e;
    int hold_finalizers, hold_first_step, gap; /* the scenario */
    int released, guard_hit;
    unsigned dev_calls, fin_calls, fin_waiting, gap_calls, gaps_measured;
    uint64_t gap_ns; /* the hook's own sleeps between the first and last step */
    int have_first, have_last;
    cuzk_engine_status at_first, at_last; /* at the first and the last device step */
} hook_ctx;

static void sleep_ms(unsigned ms) {
    struct timespec ts = {0, (long)ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Lock held: wait until the test releases the stage, or the guard ends. */
static void hold(hook_ctx *h) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += GUARD_S;
    while (!h->released && !h->guard_hit)
        if (pthread_cond_timedwait(&h->cv, &h->lock, &until) != 0)
            h->guard_hit = 1;
}

static void hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    hook_ctx *h = ctx;
    (void)out;
    pthread_mutex_lock(&h->lock);
    if (at->site == CUZK_FAULT_DEVICE) {
        unsigned k = ++h->dev_calls;
        pthread_cond_broadcast(&h->cv);
        if (k == 1 && h->hold_first_step)
            hold(h);
        pthread_mutex_unlock(&h->lock);
        /* the status from the worker, which holds no engine lock here */
        if (k == 1 && h->hold_first_step)
            cuzk_engine_status_get(h->e, &h->at_first), h->have_first = 1;
        if (k == N && h->hold_first_step)
            cuzk_engine_status_get(h->e, &h->at_last), h->have_last = 1;
        return;
    }
    if (at->site == CUZK_FAULT_FINALIZE) {
        h->fin_calls++;
        if (h->hold_finalizers) {
            h->fin_waiting++;
            pthread_cond_broadcast(&h->cv);
            hold(h);
            h->fin_waiting--;
        }
    } else if (at->site == CUZK_FAULT_WORKER_GAP && h->gap) {
        /* a gap after step k < N has steps behind it, all ready */
        int between = h->dev_calls < N;
        h->gap_calls++;
        pthread_mutex_unlock(&h->lock);
        uint64_t t0 = cuzk_now_ns();
        sleep_ms(GAP_MS);
        uint64_t t1 = cuzk_now_ns();
        pthread_mutex_lock(&h->lock);
        if (between)
            h->gap_ns += t1 - t0, h->gaps_measured++;
    }
    pthread_mutex_unlock(&h->lock);
}

static void release(hook_ctx *h) {
    pthread_mutex_lock(&h->lock);
    h->released = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->lock);
}

/* Wait (on the hook's condition variable) until |done| holds or the guard
 * ends; returns whether it holds. */
static int wait_for(hook_ctx *h, cuzk_engine *e, int (*done)(hook_ctx *, cuzk_engine *)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += GUARD_S;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        int guard = h->guard_hit;
        pthread_mutex_unlock(&h->lock);
        if (!guard && done(h, e))
            return 1;
        pthread_mutex_lock(&h->lock);
        struct timespec tick;
        clock_gettime(CLOCK_REALTIME, &tick);
        if (h->guard_hit || tick.tv_sec > until.tv_sec) {
            h->guard_hit = 1;
            pthread_cond_broadcast(&h->cv);
            pthread_mutex_unlock(&h->lock);
            return 0;
        }
        tick.tv_nsec += 5000000; /* the engine's counters move without a signal */
        if (tick.tv_nsec >= 1000000000L)
            tick.tv_sec++, tick.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&h->cv, &h->lock, &tick);
    }
}

static double dev_sum(const cuzk_device_status *d) {
    return d->busy_s + d->starved_s + d->idle_s + d->idle_with_work_s;
}

/* Busy, starved and idle-with-work of every device add up to the uptime
 * of the same status, up to the rounding of nanoseconds to seconds. */
static void check_adds_up(const char *what, const cuzk_engine_status *st) {
    double up = (double)st->uptime_ns / 1e9;
    for (unsigned i = 0; i < st->n_devices; i++) {
        const cuzk_device_status *d = &st->devices[i];
        CHECK(fabs(dev_sum(d) - up) <= 1e-9,
              "%s: %s: busy %.9f + starved %.9f + idle %.9f + idle-with-work %.9f = %.9f s, "
              "uptime %.9f s",
              what, d->name, d->busy_s, d->starved_s, d->idle_s, d->idle_with_work_s, dev_sum(d),
              up);
        CHECK(d->starved_synth_s <= d->starved_s, "%s: %s: starved on synthesis %.9f > starved %.9f",
              what, d->name, d->starved_synth_s, d->starved_s);
    }
}

static cuzk_engine *start(hook_ctx *h, const eu_circuit *c, uint32_t compute_us, unsigned fin,
                          unsigned ready_max, cuzk_engine_status *first) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.finalize_threads = fin;
    cfg.cpu_fallback = 0;
    cfg.batch_max = 1;
    cfg.ready_max = ready_max;
    eu_testing.fault_fn = hook;
    eu_testing.fault_ctx = h;
    eu_sim_device(&cfg, 0, compute_us);
    cfg.devices[0].workers = 1;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cv, NULL);
    cuzk_engine *e = eu_create(&cfg);
    h->e = e;
    cuzk_engine_status_get(e, first);
    cuzk_error err = {0};
    CHECK(cuzk_engine_key_preload(e, "k", c->zkey, &err) == CUZK_OK, "preload: %s", err.msg);
    return e;
}

static void submit_all(cuzk_engine *e, const eu_circuit *c, cuzk_job **j) {
    cuzk_error err = {0};
    for (int i = 0; i < JOBS; i++) {
        j[i] = eu_submit(e, c, "k", PARTS, CUZK_PRIORITY_NORMAL, NULL, &err);
        CHECK(j[i] != NULL, "submit %d: %s", i, err.msg);
    }
}

static void await_all(cuzk_job **j) {
    cuzk_error err = {0};
    for (int i = 0; i < JOBS; i++) {
        CHECK(j[i] && cuzk_job_await(j[i], 1000 * GUARD_S, &err) == CUZK_OK, "job %d: %s", i,
              err.msg);
        if (j[i])
            cuzk_job_release(j[i]);
    }
}

static void finish(hook_ctx *h, cuzk_engine *e) {
    cuzk_engine_destroy(e, -1);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->lock);
}

static void print_split(const char *what, const cuzk_device_status *d) {
    printf("  %s: busy %.3f s, starved %.3f s, idle-with-work %.6f s (%llu proofs)\n", what,
           d->busy_s, d->starved_s, d->idle_with_work_s, (unsigned long long)d->proofs);
}

/* ---- finalizers stopped while the device proves ---- */

static int all_proved_finalizers_held(hook_ctx *h, cuzk_engine *e) {
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    pthread_mutex_lock(&h->lock);
    int waiting = h->fin_waiting;
    pthread_mutex_unlock(&h->lock);
    return st.devices[0].proofs == N && waiting == FINALIZERS;
}

static void held_finalizers(const eu_circuit *c) {
    static hook_ctx h;
    memset(&h, 0, sizeof h);
    h.hold_finalizers = 1;
    cuzk_engine_status first, a, b, last;
    cuzk_engine *e = start(&h, c, COMPUTE_US, FINALIZERS, 0, &first);
    check_adds_up("held finalizers, at start", &first);
    cuzk_job *j[JOBS];
    submit_all(e, c, j);
    int there = wait_for(&h, e, all_proved_finalizers_held);
    CHECK(there, "the device did not prove all %d partitions while %d finalizers were stopped: "
                 "the worker waits for finalizers", N, FINALIZERS);
    cuzk_engine_status_get(e, &a);
    if (there) {
        const cuzk_device_status *d = &a.devices[0];
        print_split("finalizers held", d);
        CHECK(a.done_queue == N - FINALIZERS,
              "done queue %u with %d partitions proved and %d finalizers stopped, want %d",
              a.done_queue, N, FINALIZERS, N - FINALIZERS);
        CHECK(a.in_stage[CUZK_STAGE_FINALIZING] == N, "%u partitions finalizing, want %d",
              a.in_stage[CUZK_STAGE_FINALIZING], N);
        pthread_mutex_lock(&h.lock);
        CHECK(h.dev_calls == d->proofs && h.fin_calls == FINALIZERS,
              "hook saw %u device steps and %u finalizations; the device counts %llu proofs",
              h.dev_calls, h.fin_calls, (unsigned long long)d->proofs);
        pthread_mutex_unlock(&h.lock);
        CHECK(a.jobs_done == 0 && a.proofs == 0, "%llu jobs, %llu proofs done with no finalizer",
              (unsigned long long)a.jobs_done, (unsigned long long)a.proofs);
        CHECK(d->busy_s >= N * COMPUTE_US / 1e6, "busy %.6f s < %d compute steps of %d us",
              d->busy_s, N, COMPUTE_US);
        check_adds_up("held finalizers, all proved", &a);
        /* Nothing left for the device: any time now is idle (no work). */
        sleep_ms(30);
        cuzk_engine_status_get(e, &b);
        const cuzk_device_status *db = &b.devices[0];
        CHECK(b.uptime_ns > a.uptime_ns, "the clock did not move");
        CHECK(db->busy_s == d->busy_s && db->idle_with_work_s == d->idle_with_work_s,
              "with no work left and finalizers stopped the device gained busy %.9f s and "
              "idle-with-work %.9f s (want 0)",
              db->busy_s - d->busy_s, db->idle_with_work_s - d->idle_with_work_s);
        check_adds_up("held finalizers, later", &b);
    }
    release(&h);
    await_all(j);
    cuzk_engine_status_get(e, &last);
    finish(&h, e);
    print_split("finalizers released", &last.devices[0]);
    CHECK(!h.guard_hit, "a stage stayed stopped for the whole guard of %d s", GUARD_S);
    /* (jobs_done is counted just after a job's waiters are woken: not here) */
    CHECK(h.fin_calls == N && last.proofs == N && last.devices[0].proofs == N,
          "hook finalized %u, engine %llu proofs (device %llu); want %d", h.fin_calls,
          (unsigned long long)last.proofs, (unsigned long long)last.devices[0].proofs, N);
    check_adds_up("held finalizers, end", &last);
}

/* ---- a gap on the worker between partitions, with work waiting ---- */

static int all_ready(hook_ctx *h, cuzk_engine *e) {
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    pthread_mutex_lock(&h->lock);
    int first_held = h->dev_calls == 1;
    pthread_mutex_unlock(&h->lock);
    return first_held && st.ready_queue == N - 1;
}

static void gap_is_seen(const eu_circuit *c) {
    static hook_ctx h;
    memset(&h, 0, sizeof h);
    h.hold_first_step = 1, h.gap = 1;
    cuzk_engine_status first, last;
    cuzk_engine *e = start(&h, c, COMPUTE_US / 2, 1, N, &first);
    cuzk_job *j[JOBS];
    submit_all(e, c, j);
    int there = wait_for(&h, e, all_ready);
    CHECK(there, "the other %d partitions did not all become ready", N - 1);
    release(&h);
    await_all(j);
    cuzk_engine_status_get(e, &last);
    finish(&h, e); /* joins the worker: its last gap has been counted */
    print_split("worker gaps", &last.devices[0]);
    CHECK(!h.guard_hit, "a stage stayed stopped for the whole guard of %d s", GUARD_S);
    CHECK(h.dev_calls == N && last.devices[0].proofs == N && h.gap_calls == N &&
              h.gaps_measured == N - 1,
          "hook: %u device steps, %u gaps (%u between steps); device: %llu proofs; want %d, %d, %d",
          h.dev_calls, h.gap_calls, h.gaps_measured, (unsigned long long)last.devices[0].proofs,
          N, N, N - 1);
    CHECK(h.have_first && h.have_last, "no status at the first or the last device step");
    if (!h.have_first || !h.have_last)
        return;
    const cuzk_device_status *a = &h.at_first.devices[0], *b = &h.at_last.devices[0];
    CHECK(h.at_first.ready_queue == N - 1, "at the first step %u partitions ready, want %d",
          h.at_first.ready_queue, N - 1);
    double busy = b->busy_s - a->busy_s, iww = b->idle_with_work_s - a->idle_with_work_s;
    double up = (double)(h.at_last.uptime_ns - h.at_first.uptime_ns) / 1e9;
    printf("  first to last step: %.6f s: busy %.6f s, idle-with-work %.6f s, gaps slept %.6f s\n",
           up, busy, iww, h.gap_ns / 1e9);
    CHECK(b->starved_s == a->starved_s,
          "the device gained %.9f s starved while partitions were ready for it",
          b->starved_s - a->starved_s);
    CHECK(fabs(busy + iww - up) <= 2e-9,
          "from the first to the last step busy %.9f + idle-with-work %.9f s != %.9f s elapsed",
          busy, iww, up);
    CHECK(busy >= (N - 1) * (COMPUTE_US / 2) / 1e6, "busy %.6f s < %d compute steps of %d us",
          busy, N - 1, COMPUTE_US / 2);
    CHECK(iww + 1e-9 >= h.gap_ns / 1e9,
          "idle-with-work %.9f s does not cover the %d gaps the worker slept (%.9f s)", iww, N - 1,
          h.gap_ns / 1e9);
    check_adds_up("worker gaps, first step", &h.at_first);
    check_adds_up("worker gaps, last step", &h.at_last);
    check_adds_up("worker gaps, end", &last);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_accounting");
    char *dir = eu_tmpdir();
    eu_circuit c;
    eu_make(&c, dir, "bn", CUZK_CURVE_BN254, 8, 31);
    held_finalizers(&c);
    gap_is_seen(&c);
    eu_free(&c);
    eu_rmdir(dir);
    return tu_finish();
}
