/*
 * The engine's base, which every other file of engine/ may use and which
 * uses none of them: the log, the names of stages and job states, a
 * sleep, the wake-up events threads sleep on, and the latency histograms'
 * sample counting (their rendering is metrics.c's).  Nothing here knows
 * a job, a key or a device, so the files above can call it from anywhere
 * without a circle (docs/INTERNALS.md, "engine/'s layers").
 *
 * Events: a futex counter that anything which may enable progress kicks;
 * a waiter notes the count first and sleeps only while it is unchanged,
 * so no kick between the check and the sleep is lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"

void engine_sleep_ms(uint32_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (ms && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

const char *cuzk_stage_name(cuzk_stage s) {
    static const char *const names[] = {"queued", "synthesis", "ready", "proving",
                                        "finalizing", "done", "failed", "cancelled"};
    return (unsigned)s < CUZK_STAGE_COUNT ? names[s] : "unknown";
}

const char *cuzk_job_state_name(cuzk_job_state s) {
    static const char *const names[] = {"queued", "running", "done", "failed", "cancelled", "expired"};
    return (unsigned)s <= CUZK_JOB_EXPIRED ? names[s] : "unknown";
}

void engine_log(cuzk_engine *e, cuzk_log_level level, const char *fmt, ...) {
    static const char *const lv[] = {"error", "warn", "info", "debug"};
    if (level > e->cfg.log_level)
        return; /* decided before formatting anything */
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (e->cfg.log_fn)
        e->cfg.log_fn(e->cfg.log_ctx, level, line);
    else
        fprintf(stderr, "cuzk %s: %s\n", lv[level], line);
}

/* ---- events ------------------------------------------------------------------------ */

uint32_t engine_event_seen(engine_event *ev) { return atomic_load(&ev->gen); }

void engine_event_kick(engine_event *ev) {
    atomic_fetch_add(&ev->gen, 1);
    if (atomic_load(&ev->waiters))
        syscall(SYS_futex, (uint32_t *)&ev->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void engine_event_wait(engine_event *ev, uint32_t seen, uint64_t timeout_ns) {
    struct timespec ts = {(time_t)(timeout_ns / 1000000000ULL), (long)(timeout_ns % 1000000000ULL)};
    atomic_fetch_add(&ev->waiters, 1);
    /* The kernel sleeps only if gen still equals |seen|: no lost kick. */
    if (atomic_load(&ev->gen) == seen)
        syscall(SYS_futex, (uint32_t *)&ev->gen, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
    atomic_fetch_sub(&ev->waiters, 1);
}

/* Upper bounds of the finite buckets, in seconds. */
const double engine_hist_bounds_s[ENGINE_HIST_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

void engine_hist_add(engine_hist *h, uint64_t ns) {
    double s = ns / 1e9;
    for (int i = 0; i < ENGINE_HIST_BUCKETS; i++)
        if (s <= engine_hist_bounds_s[i]) {
            atomic_fetch_add_explicit(&h->bucket[i], 1, memory_order_relaxed);
            break;
        }
    atomic_fetch_add_explicit(&h->sum_ns, ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
}
