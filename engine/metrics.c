/*
 * The engine's counters and histograms, rendered as Prometheus text
 * exposition format (version 0.0.4) for the daemon's /metrics.
 *
 * Histograms are arrays of atomic counters: adding a sample is a few
 * relaxed increments, so every stage can record its latency without a
 * lock.  Rendering reads the counters one by one; a sample added meanwhile
 * may appear in a bucket before the count, which Prometheus tolerates.
 * Must not: take a hot-path lock for longer than a status snapshot does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

static void header(engine_sbuf *b, const char *name, const char *type, const char *help) {
    engine_sbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void hist_series(engine_sbuf *b, const char *name, const char *label, const char *value,
                        engine_hist *h) {
    uint64_t cum = 0;
    const char *sep = label ? "," : "";
    char lab[96] = "";
    if (label)
        snprintf(lab, sizeof lab, "%s=\"%s\"", label, value);
    for (int i = 0; i < ENGINE_HIST_BUCKETS; i++) {
        cum += atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
        engine_sbuf_printf(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, lab, sep, engine_hist_bounds_s[i],
                           (unsigned long long)cum);
    }
    uint64_t count = atomic_load_explicit(&h->count, memory_order_relaxed);
    engine_sbuf_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, lab, sep,
                       (unsigned long long)(count > cum ? count : cum));
    engine_sbuf_printf(b, "%s_sum%s%s%s %.9f\n", name, label ? "{" : "", lab, label ? "}" : "",
                       atomic_load_explicit(&h->sum_ns, memory_order_relaxed) / 1e9);
    engine_sbuf_printf(b, "%s_count%s%s%s %llu\n", name, label ? "{" : "", lab, label ? "}" : "",
                       (unsigned long long)(count > cum ? count : cum));
}

static void device_metrics(engine_sbuf *b, const cuzk_engine_status *st) {
    static const char *const states[] = {"busy", "starved", "idle", "idle_with_work"};
    header(b, "cuzk_device_seconds_total", "counter",
           "Device wall time by state: computing, idle while synthesis was behind (starved), "
           "idle with no work (idle), idle while work it could take waited (hot-path "
           "overhead, should stay near 0).");
    for (unsigned i = 0; i < st->n_devices; i++) {
        const cuzk_device_status *d = &st->devices[i];
        double v[4] = {d->busy_s, d->starved_s, d->idle_s, d->idle_with_work_s};
        for (int s = 0; s < 4; s++)
            engine_sbuf_printf(b, "cuzk_device_seconds_total{device=\"%s\",state=\"%s\"} %.6f\n",
                               d->name, states[s], v[s]);
    }
    header(b, "cuzk_device_starved_synthesis_seconds_total", "counter",
           "Each device's starved time: idle while partitions were queued for or in synthesis "
           "(synthesis behind the device); the same as the starved state above.");
    for (unsigned i = 0; i < st->n_devices; i++)
        engine_sbuf_printf(b, "cuzk_device_starved_synthesis_seconds_total{device=\"%s\"} %.6f\n",
                           st->devices[i].name, st->devices[i].starved_synth_s);
    header(b, "cuzk_device_proofs_total", "counter", "Partitions proved by each device.");
    for (unsigned i = 0; i < st->n_devices; i++)
        engine_sbuf_printf(b, "cuzk_device_proofs_total{device=\"%s\"} %llu\n", st->devices[i].name,
                           (unsigned long long)st->devices[i].proofs);
    header(b, "cuzk_device_failures_total", "counter", "Failed device steps of each device.");
    for (unsigned i = 0; i < st->n_devices; i++)
        engine_sbuf_printf(b, "cuzk_device_failures_total{device=\"%s\"} %llu\n",
                           st->devices[i].name, (unsigned long long)st->devices[i].failures);
    header(b, "cuzk_device_workers_alive", "gauge", "Worker threads running for each device.");
    for (unsigned i = 0; i < st->n_devices; i++)
        engine_sbuf_printf(b, "cuzk_device_workers_alive{device=\"%s\"} %u\n", st->devices[i].name,
                           st->devices[i].workers_alive);
}

static void key_metrics(engine_sbuf *b, cuzk_engine *e) {
    size_t n = cuzk_engine_keys(e, NULL, 0);
    cuzk_key_info *ki = n ? calloc(n, sizeof *ki) : NULL;
    if (n && !ki) {
        b->oom = 1;
        return;
    }
    if (ki) { /* keys registered meanwhile are left for the next scrape */
        size_t now = cuzk_engine_keys(e, ki, n);
        n = now < n ? now : n;
    }
    struct {
        const char *name, *type, *help;
    } series[] = {
        {"cuzk_proofs_total", "counter", "Partition proofs published, by key."},
        {"cuzk_proof_failures_total", "counter", "Partitions that failed, by key."},
        {"cuzk_key_bytes", "gauge", "Memory charged to the budget for each key."},
        {"cuzk_key_in_use", "gauge", "Partitions in flight with each key."},
        {"cuzk_key_tier", "gauge", "Where each key lives (one series per tier, 1 = current)."},
    };
    for (int s = 0; s < 5; s++) {
        header(b, series[s].name, series[s].type, series[s].help);
        for (size_t i = 0; i < n; i++) {
            if (s == 4) {
                static const cuzk_key_tier tiers[] = {CUZK_TIER_DISK, CUZK_TIER_HOST,
                                                      CUZK_TIER_PINNED, CUZK_TIER_DEVICE};
                for (size_t j = 0; j < sizeof tiers / sizeof tiers[0]; j++) {
                    cuzk_key_tier t = tiers[j];
                    engine_sbuf_printf(b, "cuzk_key_tier{key=\"");
                    engine_sbuf_prom_label(b, ki[i].id);
                    engine_sbuf_printf(b, "\",tier=\"%s\"} %d\n", cuzk_key_tier_name(t),
                                       ki[i].tier == t);
                }
                continue;
            }
            uint64_t v = s == 0 ? ki[i].proofs : s == 1 ? ki[i].failures
                       : s == 2 ? ki[i].mem_bytes : ki[i].in_use;
            engine_sbuf_printf(b, "%s{key=\"", series[s].name);
            engine_sbuf_prom_label(b, ki[i].id);
            engine_sbuf_printf(b, "\"} %llu\n", (unsigned long long)v);
        }
    }
    free(ki);
}

cuzk_status engine_metrics_text(cuzk_engine *e, char **out, size_t *len, cuzk_error *err) {
    static const char *const hist_names[HIST_COUNT] = {
        "queue", "synthesis", "witness", "ready", "device", "finalize", "partition", "job"};
    static const char *const prio[4] = {"low", "normal", "high", "critical"};
    cuzk_engine_status st;
    engine_sbuf b = {0};
    cuzk_engine_status_get(e, &st);
    header(&b, "cuzk_uptime_seconds", "gauge", "Seconds since the engine started.");
    engine_sbuf_printf(&b, "cuzk_uptime_seconds %.3f\n", st.uptime_ns / 1e9);
    header(&b, "cuzk_jobs_total", "counter", "Jobs by outcome.");
    engine_sbuf_printf(&b,
                       "cuzk_jobs_total{outcome=\"done\"} %llu\ncuzk_jobs_total{outcome=\"failed\"} "
                       "%llu\ncuzk_jobs_total{outcome=\"cancelled\"} %llu\n"
                       "cuzk_jobs_total{outcome=\"expired\"} %llu\n",
                       (unsigned long long)st.jobs_done, (unsigned long long)st.jobs_failed,
                       (unsigned long long)st.jobs_cancelled, (unsigned long long)st.jobs_expired);
    header(&b, "cuzk_jobs_active", "gauge", "Jobs submitted and not yet ended.");
    engine_sbuf_printf(&b, "cuzk_jobs_active %u\n", st.jobs_active);
    header(&b, "cuzk_jobs_draining", "gauge",
           "Jobs ended (cancelled, failed, expired) whose partitions still hold a device.");
    engine_sbuf_printf(&b, "cuzk_jobs_draining %u\n", st.jobs_draining);
    header(&b, "cuzk_retries_total", "counter", "Device steps retried after a failure.");
    engine_sbuf_printf(&b, "cuzk_retries_total %llu\n", (unsigned long long)st.retries);
    header(&b, "cuzk_worker_restarts_total", "counter", "Device workers replaced after dying.");
    engine_sbuf_printf(&b, "cuzk_worker_restarts_total %llu\n", (unsigned long long)st.worker_restarts);
    key_metrics(&b, e);
    header(&b, "cuzk_stage_seconds", "histogram",
           "Latency of each partition stage (partition: submit to published; witness: "
           "witness calculation from inputs, part of synthesis).");
    for (int h = 0; h < HIST_JOB; h++)
        hist_series(&b, "cuzk_stage_seconds", "stage", hist_names[h], &e->hist[h]);
    header(&b, "cuzk_job_seconds", "histogram", "Submit to outcome, per job.");
    hist_series(&b, "cuzk_job_seconds", NULL, NULL, &e->hist[HIST_JOB]);
    header(&b, "cuzk_queued_jobs", "gauge", "Jobs with partitions not yet admitted, by priority.");
    for (int q = 3; q >= 0; q--)
        engine_sbuf_printf(&b, "cuzk_queued_jobs{priority=\"%s\"} %u\n", prio[q], st.queued_jobs[q]);
    header(&b, "cuzk_queue_depth", "gauge", "Partitions waiting in each pipeline queue.");
    engine_sbuf_printf(&b,
                       "cuzk_queue_depth{queue=\"synthesis\"} %u\ncuzk_queue_depth{queue=\"ready\"} "
                       "%u\ncuzk_queue_depth{queue=\"done\"} %u\n",
                       st.synth_queue, st.ready_queue, st.done_queue);
    header(&b, "cuzk_partitions_in_flight", "gauge", "Partitions in each stage now.");
    for (int s = 0; s < CUZK_STAGE_DONE; s++)
        engine_sbuf_printf(&b, "cuzk_partitions_in_flight{stage=\"%s\"} %u\n",
                           cuzk_stage_name((cuzk_stage)s), st.in_stage[s]);
    device_metrics(&b, &st);
    header(&b, "cuzk_memory_bytes", "gauge",
           "Memory budget and what is charged to it (peak: highest total so far).");
    struct {
        const char *k;
        uint64_t v;
    } mem[] = {{"budget", st.mem_budget},   {"used", st.mem_used},
               {"peak", st.mem_peak},       {"keys", st.mem_keys},
               {"buffers", st.mem_buffers}, {"buffers_idle", st.mem_buffers_idle},
               {"scratch", st.mem_scratch}, {"pinned", st.mem_pinned},
               {"intake", st.mem_intake},   {"witness_workers", st.mem_witness}};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        engine_sbuf_printf(&b, "cuzk_memory_bytes{kind=\"%s\"} %llu\n", mem[i].k,
                           (unsigned long long)mem[i].v);
    return engine_sbuf_finish(&b, out, len, err);
}

/* ---- the engine's read-outs (include/cuzk.h) ---------------------------------------- */

void cuzk_engine_status_get(cuzk_engine *e, cuzk_engine_status *st) {
    memset(st, 0, sizeof *st);
    st->n_circuits = engine_circuits_loaded(e);
    pthread_mutex_lock(&e->mem.lock);
    st->mem_budget = e->mem.budget;
    st->mem_used = e->mem.used;
    st->mem_peak = e->mem.peak;
    st->mem_keys = e->mem.by_kind[MEM_KEYS];
    st->mem_buffers = e->mem.by_kind[MEM_BUFFERS];
    st->mem_buffers_idle = e->mem.idle_bytes;
    st->mem_intake = e->mem.by_kind[MEM_INTAKE];
    st->mem_scratch = e->mem.scratch_bytes;
    st->mem_pinned = e->mem.by_kind[MEM_PINNED];
    st->mem_witness = e->mem.by_kind[MEM_WITNESS];
    pthread_mutex_unlock(&e->mem.lock);
    pthread_mutex_lock(&e->sched_lock);
    for (int q = 0; q < 4; q++)
        st->queued_jobs[q] = e->sq_n[q];
    pthread_mutex_unlock(&e->sched_lock);
    pthread_mutex_lock(&e->synq.lock);
    st->synth_queue = e->synq.q.n;
    pthread_mutex_unlock(&e->synq.lock);
    pthread_mutex_lock(&e->done_lock);
    st->done_queue = e->done_n;
    pthread_mutex_unlock(&e->done_lock);
    for (int s = 0; s < CUZK_STAGE_COUNT; s++)
        st->in_stage[s] = atomic_load(&e->in_stage[s]);
    pthread_mutex_lock(&e->jobs_lock);
    /* A job that ended (a cancel, a failure) while partitions of it were on
     * a device stays on the active list until they drain: it counts as
     * draining, not active, so a DELETE is not both at once. */
    uint32_t draining = 0;
    for (const engine_job *j = e->act_head; j; j = j->act_next)
        draining += atomic_load(&j->state) >= CUZK_JOB_DONE;
    st->jobs_active = e->n_active - draining;
    st->jobs_draining = draining;
    st->jobs_retained = e->n_retained;
    pthread_mutex_unlock(&e->jobs_lock);
    st->jobs_done = atomic_load(&e->n_done);
    st->jobs_failed = atomic_load(&e->n_failed);
    st->jobs_cancelled = atomic_load(&e->n_cancelled);
    st->jobs_expired = atomic_load(&e->n_expired);
    st->proofs = atomic_load(&e->n_proofs);
    st->retries = atomic_load(&e->n_retries);
    st->worker_restarts = atomic_load(&e->n_restarts);
    st->n_devices = e->n_devices;
    uint64_t acct[CUZK_MAX_DEVICES][ACCT_STATES];
    pthread_mutex_lock(&e->ready.lock);
    st->ready_queue = e->ready.q.n;
    /* One clock read for the uptime and the device times, so that each
     * device's busy + starved + idle + idle-with-work is the uptime
     * exactly. */
    st->now_ns = cuzk_now_ns();
    st->uptime_ns = st->now_ns - e->start_ns;
    engine_acct_update_locked(e, st->now_ns);
    for (unsigned i = 0; i < e->n_devices; i++)
        memcpy(acct[i], e->devices[i].acct_ns, sizeof acct[i]);
    pthread_mutex_unlock(&e->ready.lock);
    for (unsigned i = 0; i < e->n_devices; i++) {
        engine_device *d = &e->devices[i];
        cuzk_device_status *o = &st->devices[i];
        memcpy(o->name, d->name, sizeof o->name);
        o->kind = d->cfg.kind;
        o->fallback_only = d->fallback_only;
        o->workers_alive = atomic_load(&d->alive);
        o->proofs = atomic_load(&d->proofs);
        o->failures = atomic_load(&d->failures);
        o->busy_s = acct[i][ACCT_BUSY] / 1e9;
        o->starved_s = acct[i][ACCT_STARVED_SYNTH] / 1e9;
        o->starved_synth_s = o->starved_s;
        o->idle_s = acct[i][ACCT_STARVED_IDLE] / 1e9;
        o->idle_with_work_s = acct[i][ACCT_IDLE_WITH_WORK] / 1e9;
        o->gpu_index = d->cfg.kind == CUZK_DEVICE_GPU ? d->cfg.gpu_index : -1;
        if (d->ops->stats)
            d->ops->stats(d, &o->device_mem_bytes, &o->device_keys);
        if (d->ops->mem_peak)
            o->device_mem_peak_bytes = d->ops->mem_peak(d);
    }
    pthread_mutex_lock(&e->keys_lock);
    for (engine_key *k = e->keys; k; k = k->next) {
        st->n_keys++;
        st->keys_resident += k->state == KEY_RESIDENT;
    }
    pthread_mutex_unlock(&e->keys_lock);
}

cuzk_status cuzk_engine_trace(cuzk_engine *e, char **json, size_t *len, uint64_t from_ns,
                              uint64_t to_ns, cuzk_error *err) {
    const char *names[CUZK_MAX_DEVICES];
    for (unsigned i = 0; i < e->n_devices; i++)
        names[i] = e->devices[i].name;
    return engine_timeline_chrome(&e->tl, json, len, from_ns, to_ns, names, e->n_devices, err);
}

cuzk_status cuzk_engine_metrics(cuzk_engine *e, char **text, size_t *len, cuzk_error *err) {
    return engine_metrics_text(e, text, len, err);
}
