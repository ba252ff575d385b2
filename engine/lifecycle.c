/*
 * The engine's creation and shutdown (include/cuzk.h: cuzk_engine_create,
 * cuzk_engine_destroy): the configuration resolved once, the devices
 * opened, the locks and the threads (scheduler, synthesis, devices,
 * finalizers, housekeeper) started, and in reverse order on shutdown:
 * drain, cancel what is left, join every thread, free keys and buffers.
 * The jobs themselves are engine.c's.
 *
 * Must not: start a thread before every lock it may take exists, or free
 * anything a thread may still touch before that thread is joined.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"

/* ---- engine creation and shutdown ---------------------------------------------------------- */

static unsigned online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static cuzk_status resolve_config(cuzk_engine_config *c, cuzk_error *err) {
    unsigned ncpu = online_cpus(), n_cpu_dev = 0;
    if (c->n_devices > CUZK_MAX_DEVICES - 1)
        return cuzk_fail(err, CUZK_EINVAL, "at most %d devices", CUZK_MAX_DEVICES - 1);
    if (c->batch_max > 64)
        return cuzk_fail(err, CUZK_EINVAL, "batch_max is at most 64");
    if ((unsigned)c->log_level > CUZK_LOG_DEBUG)
        return cuzk_fail(err, CUZK_EINVAL, "unknown log level %d", (int)c->log_level);
    if (!c->synth_threads)
        c->synth_threads = ncpu / 4 ? ncpu / 4 : 1;
    if (!c->synth_workers) {
        /* A witness computed from inputs takes one thread for its whole
         * calculation (circom's generated code is sequential), and for
         * large circuits it takes longer than the device step, so one
         * worker would leave the device waiting; each worker also holds one
         * partition's buffers, so more workers than cores buy nothing.
         * When a CPU device proves, it keeps most cores busy with its MSMs,
         * and synthesis gets a quarter of them (as synth_threads does);
         * when the devices are GPUs (or simulated), the host's cores are
         * otherwise idle, and all but two compute witnesses, leaving those
         * for the device workers' host work, finalizers and callers.
         * Measured on a 16-core H200 host with a 2^16 Poseidon chain whose
         * witness costs 5-10x the GPU step (docs/PERFORMANCE.md): BN254 at
         * 8 workers 59.6 partitions/s (GPU 68% busy), at 14 workers 77.5/s
         * (91%); BLS12-381 46.4/s at 8 and 45.7/s at 14 (GPU-bound).
         * The evaluation of a, b, c (when the devices do not do it) runs
         * on the shared pool of synth_threads, not on these threads. */
        int cpu_proves = c->n_devices == 0;
        for (unsigned i = 0; i < c->n_devices; i++)
            cpu_proves |= c->devices[i].kind == CUZK_DEVICE_CPU;
        unsigned n = cpu_proves ? ncpu / 4 : ncpu > 2 ? ncpu - 2 : 1;
        c->synth_workers = n < 1 ? 1 : n > 64 ? 64 : n;
    }
    if (!c->finalize_threads)
        c->finalize_threads = 1;
    if (!c->n_devices) {
        c->n_devices = 1;
        memset(&c->devices[0], 0, sizeof c->devices[0]);
        c->devices[0].kind = CUZK_DEVICE_CPU;
    }
    for (unsigned i = 0; i < c->n_devices; i++) {
        if (c->devices[i].kind != CUZK_DEVICE_CPU && c->devices[i].kind != CUZK_DEVICE_SIMULATED &&
            c->devices[i].kind != CUZK_DEVICE_GPU)
            return cuzk_fail(err, CUZK_EINVAL, "device %u: unknown kind %d", i, (int)c->devices[i].kind);
        n_cpu_dev += c->devices[i].kind == CUZK_DEVICE_CPU;
        if (!c->devices[i].workers)
            c->devices[i].workers = 1;
    }
    for (unsigned i = 0; i < c->n_devices; i++)
        if (c->devices[i].kind == CUZK_DEVICE_CPU && !c->devices[i].threads) {
            unsigned rest = ncpu > c->synth_threads ? ncpu - c->synth_threads : 1;
            c->devices[i].threads = rest / n_cpu_dev ? rest / n_cpu_dev : 1;
        }
    if (!c->batch_max)
        c->batch_max = 1;
    if (!c->retain_jobs)
        c->retain_jobs = 1024;
    if (!c->submit_wait_ms)
        c->submit_wait_ms = 10000;
    if (!c->trace_events)
        c->trace_events = 16384;
    if (!c->budget_bytes)
        c->budget_bytes = engine_mem_auto_budget(c->budget_margin_bytes);
    if (!c->intake_max_bytes || c->intake_max_bytes > c->budget_bytes)
        c->intake_max_bytes = c->budget_bytes / 4;
    return CUZK_OK;
}

static cuzk_status open_device(cuzk_engine *e, const cuzk_device_config *dc, int fallback,
                               cuzk_error *err) {
    engine_device *d = &e->devices[e->n_devices];
    unsigned same = 0;
    for (unsigned i = 0; i < e->n_devices; i++)
        same += e->devices[i].cfg.kind == dc->kind && !e->devices[i].fallback_only;
    memset(d, 0, sizeof *d);
    d->index = (int)e->n_devices;
    d->cfg = *dc;
    if (!fallback && dc->kind == CUZK_DEVICE_SIMULATED)
        d->sim = e->testing.sim[dc - e->cfg.devices];
    d->fallback_only = fallback;
    d->mem = &e->mem;
    d->ops = dc->kind == CUZK_DEVICE_CPU   ? &engine_device_cpu_ops
             : dc->kind == CUZK_DEVICE_GPU ? &engine_device_gpu_ops
                                           : &engine_device_sim_ops;
    if (fallback)
        snprintf(d->name, sizeof d->name, "cpu-fallback");
    else
        snprintf(d->name, sizeof d->name, "%s%u", d->ops->kind, same);
    d->n_workers = dc->workers ? dc->workers : 1;
    d->batch_max = e->cfg.batch_max ? e->cfg.batch_max : 1;
    d->self_evaluates = d->ops->self_evaluates ||
                        (dc->kind == CUZK_DEVICE_SIMULATED && d->sim.evaluates);
    d->acct_state = ACCT_STARVED_IDLE;
    d->acct_last_ns = e->start_ns;
    d->workers = calloc(d->n_workers, sizeof *d->workers);
    if (!d->workers)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for workers");
    cuzk_status s = d->ops->open(d, err);
    if (s != CUZK_OK) {
        free(d->workers);
        d->workers = NULL;
        return s;
    }
    e->n_devices++;
    return CUZK_OK;
}

static cuzk_status init_locks(cuzk_engine *e, cuzk_error *err) {
    pthread_condattr_t ca;
    int bad = pthread_mutex_init(&e->jobs_lock, NULL) | pthread_cond_init(&e->jobs_cv, NULL) |
              pthread_mutex_init(&e->sched_lock, NULL) | pthread_mutex_init(&e->keys_lock, NULL) |
              pthread_cond_init(&e->keys_cv, NULL) | pthread_mutex_init(&e->synq.lock, NULL) |
              pthread_cond_init(&e->synq.cv, NULL) | pthread_mutex_init(&e->ready.lock, NULL) |
              pthread_cond_init(&e->ready.cv, NULL) | pthread_mutex_init(&e->done_lock, NULL) |
              pthread_cond_init(&e->done_cv, NULL) | pthread_mutex_init(&e->circ_lock, NULL) |
              pthread_cond_init(&e->circ_cv, NULL);
    (void)ca;
    return bad ? cuzk_fail(err, CUZK_EINTERNAL, "engine: lock init failed") : CUZK_OK;
}

static unsigned thread_count(const cuzk_engine *e) {
    unsigned n = 3 + e->cfg.synth_workers + e->cfg.finalize_threads;
    for (unsigned i = 0; i < e->n_devices; i++)
        n += e->devices[i].n_workers;
    return n;
}

static engine_ring *ring_for(cuzk_engine *e, const char *fmt, unsigned a, const char *b) {
    char name[32];
    snprintf(name, sizeof name, fmt, b ? b : "", a);
    return engine_ring_new(&e->tl, name);
}

static cuzk_status start_threads(cuzk_engine *e, cuzk_error *err) {
    e->hk_ring = ring_for(e, "%shousekeeper", 0, NULL);
    if (pthread_create(&e->hk_thread, NULL, engine_housekeeper_main, e))
        return cuzk_fail(err, CUZK_EINTERNAL, "cannot start the housekeeper thread");
    e->hk_started = 1;
    e->circ_ring = ring_for(e, "%scircuit-loader", 0, NULL);
    if (pthread_create(&e->circ_thread, NULL, engine_circuit_loader_main, e))
        return cuzk_fail(err, CUZK_EINTERNAL, "cannot start the circuit loader thread");
    e->circ_started = 1;
    for (unsigned i = 0; i < e->n_fin; i++) {
        engine_thread *t = &e->fin[i];
        t->e = e, t->idx = i, t->ring = ring_for(e, "%sfinalizer-%u", i, NULL);
        if (pthread_create(&t->thread, NULL, engine_final_main, t))
            return cuzk_fail(err, CUZK_EINTERNAL, "cannot start a finalizer thread");
        t->started = 1;
    }
    for (unsigned i = 0; i < e->n_devices; i++) {
        engine_device *d = &e->devices[i];
        for (unsigned s = 0; s < d->n_workers; s++) {
            engine_worker *w = &d->workers[s];
            w->e = e, w->dev = d, w->slot = s;
            w->ring = ring_for(e, "%s-worker-%u", s, d->name);
            cuzk_status st = engine_worker_start(w, err);
            if (st != CUZK_OK)
                return st;
        }
    }
    for (unsigned i = 0; i < e->n_synth; i++) {
        engine_thread *t = &e->synth[i];
        t->e = e, t->idx = i, t->ring = ring_for(e, "%ssynthesis-%u", i, NULL);
        if (pthread_create(&t->thread, NULL, engine_synth_main, t))
            return cuzk_fail(err, CUZK_EINTERNAL, "cannot start a synthesis thread");
        t->started = 1;
    }
    e->sched_ring = ring_for(e, "%sscheduler", 0, NULL);
    if (pthread_create(&e->sched_thread, NULL, engine_sched_main, e))
        return cuzk_fail(err, CUZK_EINTERNAL, "cannot start the scheduler thread");
    e->sched_started = 1;
    return CUZK_OK;
}

/* Stops and frees everything; works on a partly created engine too. */
static void teardown(cuzk_engine *e) {
    if (e->sched_started) {
        atomic_store(&e->sched_stop, 1);
        engine_event_kick(&e->sched_ev);
        pthread_join(e->sched_thread, NULL);
    }
    if (e->hk_started) {
        pthread_mutex_lock(&e->keys_lock);
        atomic_store(&e->hk_stop, 1);
        pthread_cond_broadcast(&e->keys_cv);
        pthread_mutex_unlock(&e->keys_lock);
        pthread_join(e->hk_thread, NULL);
    }
    if (e->circ_started) { /* waits for a compile in progress */
        pthread_mutex_lock(&e->circ_lock);
        atomic_store(&e->circ_stop, 1);
        pthread_cond_broadcast(&e->circ_cv);
        pthread_mutex_unlock(&e->circ_lock);
        pthread_join(e->circ_thread, NULL);
    }
    pthread_mutex_lock(&e->synq.lock);
    e->synq.shutdown = 1;
    pthread_cond_broadcast(&e->synq.cv);
    pthread_mutex_unlock(&e->synq.lock);
    for (unsigned i = 0; e->synth && i < e->n_synth; i++) {
        if (e->synth[i].started)
            pthread_join(e->synth[i].thread, NULL);
        engine_thread_free_wc(&e->synth[i]);
    }
    pthread_mutex_lock(&e->ready.lock);
    e->ready.shutdown = 1;
    pthread_cond_broadcast(&e->ready.cv);
    pthread_mutex_unlock(&e->ready.lock);
    for (unsigned i = 0; i < e->n_devices; i++)
        for (unsigned s = 0; s < e->devices[i].n_workers; s++)
            if (e->devices[i].workers[s].started)
                pthread_join(e->devices[i].workers[s].thread, NULL);
    pthread_mutex_lock(&e->done_lock);
    e->done_shutdown = 1;
    pthread_cond_broadcast(&e->done_cv);
    pthread_mutex_unlock(&e->done_lock);
    for (unsigned i = 0; e->fin && i < e->n_fin; i++)
        if (e->fin[i].started)
            pthread_join(e->fin[i].thread, NULL);
    for (unsigned i = 0; i < e->n_devices; i++) {
        e->devices[i].ops->close(&e->devices[i]);
        free(e->devices[i].workers);
    }
    cuzk_pool_destroy(e->synth_pool);
    for (size_t i = 0; e->table && i < e->table_size; i++)
        while (e->table[i]) {
            engine_job *j = e->table[i];
            e->table[i] = j->tbl_next;
            j->in_table = 0;
            engine_job_unref(j);
        }
    free(e->table);
    engine_keys_destroy(e);
    engine_circuits_destroy(e); /* after the instances, freed above */
    free(e->synth);
    free(e->fin);
    engine_mem_destroy(&e->mem);
    engine_timeline_destroy(&e->tl);
    free(e);
}

cuzk_status cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg, cuzk_error *err) {
    *out = NULL;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for an engine");
    if (cfg)
        e->cfg = *cfg;
    else
        cuzk_engine_config_default(&e->cfg);
    if (e->cfg.testing)
        e->testing = *e->cfg.testing;
    e->cfg.testing = NULL; /* the caller's struct is not ours to keep */
    e->start_ns = cuzk_now_ns();
    atomic_store(&e->next_job_id, 1);
    cuzk_status s = resolve_config(&e->cfg, err);
    if (s == CUZK_OK && e->cfg.wc_cache_dir && !(e->wc_cache_dir = strdup(e->cfg.wc_cache_dir)))
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for an engine");
    e->cfg.wc_cache_dir = e->wc_cache_dir; /* the caller's string is not ours to keep */
    if (s == CUZK_OK)
        s = init_locks(e, err);
    if (s == CUZK_OK)
        s = engine_mem_init(&e->mem, e->cfg.budget_bytes, e->cfg.intake_max_bytes, err);
    if (s == CUZK_OK)
        s = engine_timeline_init(&e->tl, e->cfg.trace_events, e->start_ns, err);
    if (s != CUZK_OK) {
        free(e->wc_cache_dir);
        free(e);
        return s;
    }
    int has_cpu = 0;
    for (unsigned i = 0; s == CUZK_OK && i < e->cfg.n_devices; i++) {
        has_cpu |= e->cfg.devices[i].kind == CUZK_DEVICE_CPU;
        s = open_device(e, &e->cfg.devices[i], 0, err);
    }
    if (s == CUZK_OK && !has_cpu && e->cfg.cpu_fallback) {
        unsigned t = online_cpus() / 4;
        cuzk_device_config fb = {.kind = CUZK_DEVICE_CPU, .threads = t ? t : 1, .workers = 1};
        s = open_device(e, &fb, 1, err);
    }
    unsigned workers = 0;
    e->synth_skips_eval = 1;
    for (unsigned i = 0; i < e->n_devices; i++) {
        workers += e->devices[i].fallback_only ? 0 : e->devices[i].n_workers;
        if (!e->devices[i].fallback_only && !e->devices[i].self_evaluates)
            e->synth_skips_eval = 0;
    }
    e->batch_max = e->cfg.batch_max;
    e->ready_max = e->cfg.ready_max ? e->cfg.ready_max : 2 * (workers ? workers : 1) * e->batch_max;
    e->n_synth = e->cfg.synth_workers;
    e->n_fin = e->cfg.finalize_threads;
    e->table_size = 4096;
    e->synth = calloc(e->n_synth, sizeof *e->synth);
    e->fin = calloc(e->n_fin, sizeof *e->fin);
    e->table = calloc(e->table_size, sizeof *e->table);
    if (s == CUZK_OK && (!e->synth || !e->fin || !e->table))
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for the engine's tables");
    uint64_t ring_bytes = (uint64_t)thread_count(e) * engine_ring_bytes(e->tl.events);
    if (s == CUZK_OK && !engine_mem_try_charge(&e->mem, MEM_OTHER, ring_bytes))
        s = cuzk_fail(err, CUZK_ENOMEM, "the budget (%llu bytes) cannot hold the timeline (%llu)",
                      (unsigned long long)e->cfg.budget_bytes, (unsigned long long)ring_bytes);
    if (s == CUZK_OK && !(e->synth_pool = cuzk_pool_create(e->cfg.synth_threads, err)))
        s = err ? err->status : CUZK_EINTERNAL;
    if (s == CUZK_OK)
        s = start_threads(e, err);
    if (s != CUZK_OK) {
        teardown(e);
        return s;
    }
    engine_log(e, CUZK_LOG_INFO,
               "engine started: %u device(s), %u synthesis worker(s) on %u threads, budget %.1f MiB",
               e->n_devices, e->n_synth, e->cfg.synth_threads, e->cfg.budget_bytes / 1048576.0);
    *out = e;
    return CUZK_OK;
}

void cuzk_engine_destroy(cuzk_engine *e, int64_t drain_ms) {
    if (!e)
        return;
    atomic_store(&e->closing, 1);
    uint64_t until = drain_ms < 0 ? UINT64_MAX : cuzk_now_ns() + (uint64_t)drain_ms * 1000000ULL;
    pthread_mutex_lock(&e->jobs_lock);
    while (e->n_active > 0 && cuzk_now_ns() < until) {
        pthread_mutex_unlock(&e->jobs_lock);
        engine_sleep_ms(5);
        pthread_mutex_lock(&e->jobs_lock);
    }
    /* Cancel what is left (one at a time: ending a job logs, which must
     * not happen under jobs_lock). */
    for (;;) {
        engine_job *j = e->act_head;
        while (j && atomic_load(&j->state) >= CUZK_JOB_DONE)
            j = j->act_next;
        if (!j)
            break;
        atomic_fetch_add(&j->refs, 1);
        pthread_mutex_unlock(&e->jobs_lock);
        engine_job_end(e, j, CUZK_JOB_CANCELLED, CUZK_ECANCELLED, "engine is shutting down");
        engine_job_unref(j);
        pthread_mutex_lock(&e->jobs_lock);
    }
    /* Partitions already on a device finish their step; the rest stop at
     * the next boundary. */
    while (e->n_active > 0)
        pthread_cond_wait(&e->jobs_cv, &e->jobs_lock);
    pthread_mutex_unlock(&e->jobs_lock);
    teardown(e);
}
