/*
 * The scheduler thread: priority queues of jobs, admission of partitions
 * into the pipeline, deadlines, and supervision of device workers.
 *
 * Order: CRITICAL > HIGH > NORMAL > LOW; within a class, jobs in submission
 * order, and the partitions of a job in index order, so the oldest job's
 * partitions go first.  A job whose key is not resident asks the
 * housekeeper to load it and is passed over meanwhile, so a key load never
 * holds up jobs whose keys are ready; likewise a job with inputs whose
 * circuit the circuit loader is still compiling.  Admission takes a partition's
 * buffers from the pool within the memory budget; when they do not fit,
 * the scheduler makes room (idle buffers, then unused keys) or waits for
 * in-flight partitions to return theirs.  Capacity before the devices is
 * bounded (synthesis workers + ready queue), which is the backpressure
 * that keeps memory for partitions nobody can run yet.
 *
 * The scheduler sleeps on a futex counter (engine_event) that anything
 * which may enable progress kicks: submits, cancellations, device workers
 * finishing, key loads, unpins.  Must not: hold sched_lock while freeing
 * memory, logging or ending jobs (those take other locks and do I/O).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "engine/internal.h"

/* End jobs whose deadline has passed; returns the next deadline (0: none). */
static uint64_t expire_deadlines(cuzk_engine *e, uint64_t now) {
    for (;;) {
        engine_job *hit = NULL;
        uint64_t next = 0;
        pthread_mutex_lock(&e->sched_lock);
        for (engine_job *j = e->dl_head; j; j = j->dl_next) {
            if (atomic_load(&j->state) >= CUZK_JOB_DONE)
                continue;
            if (j->deadline_ns <= now) {
                hit = j;
                atomic_fetch_add(&j->refs, 1);
                break;
            }
            if (!next || j->deadline_ns < next)
                next = j->deadline_ns;
        }
        pthread_mutex_unlock(&e->sched_lock);
        if (!hit)
            return next;
        engine_job_end(e, hit, CUZK_JOB_EXPIRED, CUZK_ETIMEOUT,
                       "deadline of %.0f ms passed before the job was done",
                       (hit->deadline_ns - hit->submit_ns) / 1e6);
        engine_job_unref(hit);
    }
}

/* Partitions of ended jobs that were never admitted end here. */
static void drop_stopped(cuzk_engine *e) {
    for (;;) {
        engine_job *hit = NULL;
        uint32_t from = 0;
        pthread_mutex_lock(&e->sched_lock);
        for (int q = 3; q >= 0 && !hit; q--)
            for (engine_job *j = e->sq_head[q]; j && !hit; j = j->sq_next)
                if (atomic_load(&j->stop))
                    hit = j;
        if (hit) {
            from = hit->next_dispatch;
            hit->next_dispatch = hit->n_parts;
            engine_schedq_unlink_locked(e, hit);
            atomic_fetch_add(&hit->refs, 1);
        }
        pthread_mutex_unlock(&e->sched_lock);
        if (!hit)
            return;
        for (uint32_t i = from; i < hit->n_parts; i++) {
            engine_part *p = &hit->parts[i];
            p->skip = 1;
            engine_part_stage(e, p, CUZK_STAGE_CANCELLED);
            engine_log_partition(e, p, CUZK_STAGE_CANCELLED);
            engine_part_drain(e, p);
        }
        engine_job_unref(hit);
    }
}

typedef struct pick {
    engine_job *job;
    engine_key *key;
    int failed; /* the job cannot run: its key or circuit failed */
    cuzk_error why;
} pick;

/* sched_lock and keys_lock held: whether job |j| (key resident) may be
 * admitted now as far as its circuit goes: 1 yes, 0 not loaded yet, -1 it
 * failed to load or does not fit the key (|why| says how). */
static int circuit_go_locked(cuzk_engine *e, engine_job *j, cuzk_error *why) {
    engine_circuit *c = j->circuit;
    if (!c)
        return 1;
    int st = atomic_load(&c->state);
    if (st == CIRC_FAILED) {
        engine_circuit_failure(e, c, why);
        return -1;
    }
    if (st != CIRC_READY)
        return 0;
    const cuzk_key *k = &j->key->key;
    return engine_circuit_check(c, j->key_id, k->curve, cuzk_key_n_vars(k), why) == CUZK_OK ? 1
                                                                                         : -1;
}

/* sched_lock held: the next job to admit from, pinning its key, or a job
 * whose key failed to load or whose circuit cannot serve it.  Keys not
 * resident are asked for; jobs whose circuit is loading are passed over. */
static int pick_locked(cuzk_engine *e, pick *pk) {
    memset(pk, 0, sizeof *pk);
    pthread_mutex_lock(&e->keys_lock);
    for (int q = 3; q >= 0 && !pk->job; q--)
        for (engine_job *j = e->sq_head[q]; j && !pk->job; j = j->sq_next) {
            engine_key *k = j->key;
            if (atomic_load(&j->stop))
                continue;
            if (k->state == KEY_RESIDENT) {
                int go = circuit_go_locked(e, j, &pk->why);
                if (go > 0) {
                    atomic_fetch_add(&k->pins, 1);
                    k->last_used_ns = cuzk_now_ns();
                    pk->job = j, pk->key = k;
                } else if (go < 0) {
                    pk->job = j, pk->key = k, pk->failed = 1;
                }
            } else if (k->state == KEY_FAILED) {
                pk->job = j, pk->key = k, pk->failed = 1;
                cuzk_fail(&pk->why, k->load_status ? k->load_status : CUZK_EIO, "key %s: %s",
                          k->id, k->load_msg);
            } else {
                engine_key_request_load_locked(e, k);
            }
        }
    pthread_mutex_unlock(&e->keys_lock);
    return pk->job != NULL;
}

/* Admit one partition.  Returns 1 to be called again at once, 0 to wait. */
static int admit_one(cuzk_engine *e) {
    if (atomic_load(&e->pre_device) >= e->cfg.synth_workers + e->ready_max)
        return 0;
    pick pk;
    pthread_mutex_lock(&e->sched_lock);
    if (!pick_locked(e, &pk)) {
        pthread_mutex_unlock(&e->sched_lock);
        return 0;
    }
    engine_job *j = pk.job;
    engine_key *k = pk.key;
    atomic_fetch_add(&j->refs, 1);
    if (pk.failed) {
        pthread_mutex_unlock(&e->sched_lock);
        engine_job_end(e, j, CUZK_JOB_FAILED, pk.why.status, "%s", pk.why.msg);
        engine_job_unref(j);
        return 1;
    }
    /* Counted before taking memory, so the key loader never sees the
     * buffers charged but nothing in flight that will return them. */
    atomic_fetch_add(&e->in_flight, 1);
    engine_part *p = &j->parts[j->next_dispatch];
    cuzk_error err = {0};
    /* a, b, c only where synthesis evaluates them, or converts them from
     * an a, b, c image: GPU devices evaluate their own, and at 2^27 the
     * buffer is 12 GiB a partition (a CPU retry takes one when it runs,
     * stages.c) */
    size_t abc_bytes = e->synth_skips_eval && p->kind != INPUT_IMAGE ? 0 : k->abc_bytes;
    cuzk_status s = engine_buf_get(&e->mem, &p->wbuf, k->witness_bytes, &err);
    if (s == CUZK_OK && abc_bytes &&
        (s = engine_buf_get(&e->mem, &p->abcbuf, abc_bytes, &err)) != CUZK_OK) {
        engine_buf_put(&e->mem, p->wbuf);
        p->wbuf = NULL;
    }
    if (s != CUZK_OK) {
        atomic_fetch_sub(&e->in_flight, 1);
        pthread_mutex_unlock(&e->sched_lock);
        unsigned c;
        uint64_t need = engine_buf_class_bytes(k->witness_bytes, &c) +
                        (abc_bytes ? engine_buf_class_bytes(abc_bytes, &c) : 0);
        int again = 1;
        if (s == CUZK_EBUSY && engine_make_room(e, need, k))
            again = 1;
        else if (s == CUZK_EBUSY &&
                 (atomic_load(&e->in_flight) > 0 || atomic_load(&e->loads_pending) > 0))
            again = 0; /* in-flight partitions return buffers; a key load
                          may hold memory only for the moment */
        else
            engine_job_end(e, j, CUZK_JOB_FAILED, CUZK_ENOMEM,
                           "partition %u needs %llu bytes of buffers, which the budget "
                           "(%llu bytes) cannot hold next to the keys and queued witnesses: %s",
                           p->index, (unsigned long long)need, (unsigned long long)e->mem.budget,
                           err.msg);
        engine_key_unpin(e, k);
        engine_job_unref(j);
        return again;
    }
    if (++j->next_dispatch == j->n_parts)
        engine_schedq_unlink_locked(e, j);
    int expect = CUZK_JOB_QUEUED;
    atomic_compare_exchange_strong(&j->state, &expect, CUZK_JOB_RUNNING);
    p->prio = j->prio;
    p->qseq = atomic_fetch_add(&e->next_seq, 1);
    p->pinned = p->admitted = 1;
    p->avoid_dev = -1;
    atomic_fetch_add(&e->pre_device, 1);
    pthread_mutex_unlock(&e->sched_lock);
    uint64_t now = cuzk_now_ns(), queued = atomic_load(&p->t[PT_QUEUED]);
    engine_ring_span(e->sched_ring, SPAN_QUEUE, queued, now, j->id, p->index, -1);
    engine_hist_add(&e->hist[HIST_QUEUE], now - queued);
    engine_part_stage(e, p, CUZK_STAGE_SYNTHESIS);
    engine_synth_enter(e, p);
    engine_synq_push(e, p);
    engine_job_unref(j);
    return 1;
}

/* Replace device workers that died. */
static void supervise(cuzk_engine *e) {
    for (unsigned i = 0; i < e->n_devices; i++) {
        engine_device *d = &e->devices[i];
        for (unsigned s = 0; s < d->n_workers; s++) {
            engine_worker *w = &d->workers[s];
            if (!atomic_load(&w->dead))
                continue;
            pthread_join(w->thread, NULL);
            w->started = 0;
            atomic_store(&w->dead, 0);
            cuzk_error err = {0};
            if (d->ops->reset && d->ops->reset(d, &err) != CUZK_OK)
                engine_log(e, CUZK_LOG_ERROR, "device %s: reset failed: %s", d->name, err.msg);
            if (engine_worker_start(w, &err) == CUZK_OK) {
                atomic_fetch_add(&e->n_restarts, 1);
                engine_log(e, CUZK_LOG_WARN, "device %s: worker %u died and was replaced", d->name, s);
            } else {
                engine_log(e, CUZK_LOG_ERROR, "device %s: worker %u died: %s", d->name, s, err.msg);
            }
        }
    }
}

void *engine_sched_main(void *arg) {
    cuzk_engine *e = arg;
    pthread_setname_np(pthread_self(), "cuzk-sched");
    while (!atomic_load(&e->sched_stop)) {
        uint32_t seen = engine_event_seen(&e->sched_ev);
        supervise(e);
        uint64_t now = cuzk_now_ns();
        uint64_t next_deadline = expire_deadlines(e, now);
        drop_stopped(e);
        while (!atomic_load(&e->sched_stop) && admit_one(e))
            ;
        uint64_t wait = 1000000000ULL;
        if (next_deadline) {
            now = cuzk_now_ns();
            wait = next_deadline > now ? next_deadline - now + 1000 : 1000;
            if (wait > 1000000000ULL)
                wait = 1000000000ULL;
        }
        engine_event_wait(&e->sched_ev, seen, wait);
    }
    return NULL;
}
