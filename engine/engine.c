/*
 * The engine's public API (include/cuzk.h): jobs (submit, attach by
 * request id, status, await, cancel, results).  The job table, its
 * retention of finished jobs and the job lifecycle shared by the stages
 * (stage moves, the outcome of a job, draining) are job.c's.
 *
 * A job's life: submitted (QUEUED, in the table and the scheduler) ->
 * RUNNING once a partition is admitted -> an outcome (DONE, FAILED,
 * CANCELLED, EXPIRED), decided once, by whoever gets there first, under the
 * job's own lock; waiters wake then -> drained when every partition has
 * reached a terminal stage and given back its memory, pins and witness.
 * References: one per handle, one for the table (until the job drops out of
 * retention), one for the pipeline (until drained).
 *
 * Creation and shutdown are in lifecycle.c; the read-outs in metrics.c.
 *
 * Must not: do slow work under jobs_lock or a job's lock; call into a job's
 * engine once the job is drained (handles outlive the engine).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"
#include "groth16/formats/abc.h"
#include "groth16/formats/json.h"

void cuzk_engine_config_default(cuzk_engine_config *c) {
    memset(c, 0, sizeof *c);
    c->cpu_fallback = 1;
    c->json = 1;
    c->self_verify = 1;
    c->check_abc = 1;
    c->log_level = CUZK_LOG_INFO;
}

/* ---- submit --------------------------------------------------------------------------------- */


/* Copy an in-memory witness or input.json (|size| bytes at |data|),
 * waiting for room in the budget if needed. */
static cuzk_status intake_copy(cuzk_engine *e, engine_part *p, const void *data, size_t size,
                               int inputs, uint64_t until, cuzk_error *err) {
    long pg = sysconf(_SC_PAGESIZE);
    const char *what = inputs ? "input.json" : "witness";
    size_t page = pg > 0 ? (size_t)pg : 4096, bytes = (size + page - 1) / page * page;
    if (size > SIZE_MAX - page || bytes > e->mem.intake_max)
        /* An input that can never fit is a bad request; a witness keeps
         * its historical EBUSY. */
        return cuzk_fail(err, inputs ? CUZK_EINVAL : CUZK_EBUSY,
                         "%s of %zu bytes exceeds the intake limit (%llu)", what, size,
                         (unsigned long long)e->mem.intake_max);
    while (!engine_mem_try_charge(&e->mem, MEM_INTAKE, bytes)) {
        if (engine_mem_trim(&e->mem, bytes) > 0)
            continue;
        uint64_t now = cuzk_now_ns();
        if (now >= until)
            return cuzk_fail(err, CUZK_EBUSY, "no room in the memory budget to copy a %s "
                                              "of %zu bytes", what, size);
        engine_mem_wait(&e->mem, until - now < 50000000ULL ? until - now : 50000000ULL);
    }
    if (!(p->intake = engine_map(bytes))) {
        engine_mem_uncharge(&e->mem, MEM_INTAKE, bytes);
        return cuzk_fail(err, CUZK_ENOMEM, "no memory to copy a %s of %zu bytes", what, size);
    }
    memcpy(p->intake, data, size);
    p->intake_bytes = bytes;
    p->size = size;
    return CUZK_OK;
}

/* Frees a job that was never submitted: copies go, callbacks are not called. */
static void job_discard(cuzk_engine *e, engine_job *j) {
    if (j->key_held)
        engine_key_release(e, j->key);
    engine_circuit_release(e, j->circuit, 0);
    j->circuit = NULL;
    for (uint32_t i = 0; i < j->n_parts; i++) {
        j->parts[i].release = NULL;
        engine_part_release_source(e, &j->parts[i]);
    }
    engine_job_free(j);
}

static cuzk_status job_build(cuzk_engine *e, engine_job **out, const cuzk_submit_opts *o,
                             engine_key *k, engine_circuit *circ, cuzk_error *err) {
    engine_job *j = calloc(1, sizeof *j);
    engine_part *parts = calloc(o->n_witnesses, sizeof *parts);
    pthread_condattr_t ca;
    *out = NULL;
    if (!j || !parts) {
        free(j);
        free(parts);
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a job");
    }
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* await measures in monotonic time */
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cv, &ca);
    pthread_condattr_destroy(&ca);
    j->e = e;
    j->id = atomic_fetch_add(&e->next_job_id, 1);
    if (o->request_id)
        snprintf(j->request_id, sizeof j->request_id, "%s", o->request_id);
    else
        snprintf(j->request_id, sizeof j->request_id, "cuzk-job-%llu", (unsigned long long)j->id);
    snprintf(j->key_id, sizeof j->key_id, "%s", k->id);
    engine_key_hold(e, k); /* until the job leaves the pipeline (job_drained) */
    j->key = k;
    j->key_held = 1;
    j->circuit = circ;
    j->prio = (int)o->priority;
    j->submit_ns = cuzk_now_ns();
    j->deadline_ns = o->deadline_ms ? j->submit_ns + o->deadline_ms * 1000000ULL : 0;
    j->n_parts = (uint32_t)o->n_witnesses;
    j->parts = parts;
    atomic_store(&j->undrained, j->n_parts);
    uint64_t until = j->submit_ns + (uint64_t)e->cfg.submit_wait_ms * 1000000ULL;
    cuzk_status s = CUZK_OK;
    for (uint32_t i = 0; i < j->n_parts && s == CUZK_OK; i++) {
        engine_part *p = &parts[i];
        const cuzk_witness *w = &o->witnesses[i];
        p->job = j;
        p->index = i;
        p->avoid_dev = -1;
        atomic_store(&p->device, -1);
        atomic_store(&p->t[PT_QUEUED], j->submit_ns);
        if (w->path) {
            if (!(p->path = strdup(w->path)))
                s = cuzk_fail(err, CUZK_ENOMEM, "no memory for a job");
        } else if (w->input_json) {
            s = intake_copy(e, p, w->input_json, w->input_len, 1, until, err);
        } else if (w->release) {
            p->data = w->data, p->size = w->size;
            p->release = w->release, p->release_ctx = w->release_ctx;
        } else {
            s = intake_copy(e, p, w->data, w->size, 0, until, err);
        }
        /* The kind, once.  An a, b, c image needs its a, b, c buffer even
         * where the devices evaluate their own: admission must know
         * (sched.c). */
        if (s == CUZK_OK)
            p->kind = w->input_json ? INPUT_CIRCOM
                      : (p->path ? cuzk_abc_file_is_image(p->path)
                                 : cuzk_abc_is_image(p->intake ? p->intake : p->data, p->size))
                          ? INPUT_IMAGE
                          : INPUT_WITNESS;
    }
    if (s != CUZK_OK) {
        job_discard(e, j);
        return s;
    }
    *out = j;
    return CUZK_OK;
}

static int attachable(const engine_job *j) {
    int st = atomic_load(&j->state);
    return st != CUZK_JOB_FAILED && st != CUZK_JOB_CANCELLED && st != CUZK_JOB_EXPIRED;
}

/* jobs_lock held: hand out |x| for a duplicate request id whose content
 * digest is |digest| (NULL: not compared). */
static cuzk_status attach_locked(engine_job *x, engine_key *k, size_t n, const uint8_t *digest,
                                 cuzk_job **job, int *attached, cuzk_error *err) {
    if (x->key != k || x->n_parts != n)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "request id %s belongs to a job with key %s and %u partitions",
                         x->request_id, x->key_id, x->n_parts);
    if (x->has_digest && digest && memcmp(x->digest, digest, sizeof x->digest))
        return cuzk_fail(err, CUZK_ECONFLICT,
                         "request id '%s' belongs to a job with other content (key, circuit or "
                         "witnesses differ): use a new request id",
                         x->request_id);
    atomic_fetch_add(&x->refs, 1);
    *job = x;
    if (attached)
        *attached = 1;
    return CUZK_OK;
}

static cuzk_status submit_with_key(cuzk_engine *e, engine_key *k, cuzk_job **job, int *attached,
                                   const cuzk_submit_opts *o, cuzk_error *err);

cuzk_status cuzk_submit(cuzk_engine *e, cuzk_job **job, int *attached, const cuzk_submit_opts *o,
                        cuzk_error *err) {
    *job = NULL;
    if (attached)
        *attached = 0;
    cuzk_status s = engine_opts_check(o, err);
    if (s != CUZK_OK)
        return s;
    if (atomic_load(&e->closing))
        return cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down");
    engine_key *k;
    if ((s = engine_key_resolve(e, &k, o->key, err)) != CUZK_OK)
        return s;
    s = submit_with_key(e, k, job, attached, o, err);
    engine_key_release(e, k); /* a job made holds the key itself */
    return s;
}

/* cuzk_submit once the key is resolved (and held by the caller). */
static cuzk_status submit_with_key(cuzk_engine *e, engine_key *k, cuzk_job **job, int *attached,
                                   const cuzk_submit_opts *o, cuzk_error *err) {
    cuzk_status s;
    if (o->request_id) { /* attach without building anything */
        pthread_mutex_lock(&e->jobs_lock);
        engine_job *x = engine_table_find(e, o->request_id);
        if (x && attachable(x)) {
            s = attach_locked(x, k, o->n_witnesses, o->digest, job, attached, err);
            pthread_mutex_unlock(&e->jobs_lock);
            return s;
        }
        pthread_mutex_unlock(&e->jobs_lock);
    }
    engine_circuit *circ = NULL;
    if (engine_opts_have_inputs(o) && (s = engine_job_circuit(e, k, o, 1, &circ, err)) != CUZK_OK)
        return s;
    engine_job *j, *replaced = NULL;
    if ((s = job_build(e, &j, o, k, circ, err)) != CUZK_OK) {
        engine_circuit_release(e, circ, 0);
        return s;
    }
    pthread_mutex_lock(&e->jobs_lock);
    /* Checked again under the lock: a concurrent submit of the same id may
     * have won the race, and destroy may have started. */
    engine_job *x = engine_table_find(e, j->request_id);
    if (atomic_load(&e->closing) || (x && attachable(x))) {
        s = atomic_load(&e->closing) ? cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down")
                                     : attach_locked(x, k, o->n_witnesses, o->digest, job, attached,
                                                     err);
        pthread_mutex_unlock(&e->jobs_lock);
        job_discard(e, j);
        return s;
    }
    if (x) { /* a failed, cancelled or expired job: a new one replaces it */
        engine_table_unlink(e, x);
        replaced = x;
    }
    if (o->request_id && o->digest) {
        memcpy(j->digest, o->digest, sizeof j->digest);
        j->has_digest = 1;
    }
    j->on_end = o->on_end;
    j->on_end_ctx = o->on_end_ctx;
    atomic_store(&j->refs, 3); /* table, pipeline, the caller's handle */
    engine_table_insert(e, j);
    j->act_next = e->act_head;
    if (e->act_head)
        e->act_head->act_prev = j;
    e->act_head = j;
    e->n_active++;
    pthread_mutex_unlock(&e->jobs_lock);
    engine_job_unref(replaced);
    pthread_mutex_lock(&e->keys_lock);
    k->wanted++;
    pthread_mutex_unlock(&e->keys_lock);
    j->key_wanted = 1;
    atomic_fetch_add(&e->in_stage[CUZK_STAGE_QUEUED], j->n_parts);
    engine_sched_enqueue(e, j);
    engine_log(e, CUZK_LOG_DEBUG, "job %llu (%s) submitted: key %s, %u partition(s), priority %d",
               (unsigned long long)j->id, j->request_id, j->key_id, j->n_parts, j->prio);
    *job = j;
    return CUZK_OK;
}

/* ---- job handles ------------------------------------------------------------------------------ */

cuzk_status cuzk_job_find(cuzk_engine *e, cuzk_job **job, const char *request_id, cuzk_error *err) {
    *job = NULL;
    if (!request_id)
        return cuzk_fail(err, CUZK_EINVAL, "no request id");
    pthread_mutex_lock(&e->jobs_lock);
    engine_job *j = engine_table_find(e, request_id);
    if (j)
        atomic_fetch_add(&j->refs, 1);
    pthread_mutex_unlock(&e->jobs_lock);
    if (!j)
        return cuzk_fail(err, CUZK_ENOTFOUND, "no job with request id %s", request_id);
    *job = j;
    return CUZK_OK;
}

void cuzk_job_release(cuzk_job *job) { engine_job_unref(job); }

uint64_t cuzk_job_id(const cuzk_job *job) { return job->id; }

size_t cuzk_job_partitions(const cuzk_job *job) { return job->n_parts; }

void cuzk_job_status(const cuzk_job *job, cuzk_job_info *info, cuzk_partition_info *parts,
                     size_t n_parts) {
    engine_job *j = (engine_job *)job;
    if (info) {
        memset(info, 0, sizeof *info);
        info->id = j->id;
        memcpy(info->request_id, j->request_id, sizeof info->request_id);
        memcpy(info->key, j->key_id, sizeof info->key);
        pthread_mutex_lock(&j->lock);
        info->state = (cuzk_job_state)atomic_load(&j->state);
        info->status = j->status;
        memcpy(info->msg, j->msg, sizeof info->msg);
        pthread_mutex_unlock(&j->lock);
        info->priority = (cuzk_priority)j->prio;
        info->n_partitions = j->n_parts;
        info->partitions_done = atomic_load(&j->parts_ok);
        info->partitions_failed = atomic_load(&j->parts_failed);
        for (uint32_t i = 0; i < j->n_parts; i++)
            info->in_stage[atomic_load(&j->parts[i].stage)]++;
        info->submit_ns = j->submit_ns;
        info->end_ns = atomic_load(&j->end_ns);
        info->deadline_ns = j->deadline_ns;
        info->simulated = atomic_load(&j->simulated);
    }
    for (size_t i = 0; i < n_parts && i < j->n_parts; i++) {
        engine_part *p = &j->parts[i];
        cuzk_partition_info *o = &parts[i];
        o->stage = (cuzk_stage)atomic_load(&p->stage);
        o->status = (cuzk_status)atomic_load(&p->status);
        o->attempts = atomic_load(&p->attempts);
        o->device = atomic_load(&p->device);
        o->queued_ns = atomic_load(&p->t[PT_QUEUED]);
        o->synth_start_ns = atomic_load(&p->t[PT_SYNTH_START]);
        o->synth_end_ns = atomic_load(&p->t[PT_SYNTH_END]);
        o->device_start_ns = atomic_load(&p->t[PT_DEV_START]);
        o->device_end_ns = atomic_load(&p->t[PT_DEV_END]);
        o->finalize_start_ns = atomic_load(&p->t[PT_FIN_START]);
        o->finalize_end_ns = atomic_load(&p->t[PT_FIN_END]);
        /* the stage load above orders this read after the DONE store */
        memset(&o->steps, 0, sizeof o->steps);
        if (o->stage == CUZK_STAGE_DONE)
            o->steps = p->steps;
        o->steps.witness_ns = atomic_load(&p->witness_ns);
    }
}

cuzk_status cuzk_job_await(cuzk_job *job, int64_t timeout_ms, cuzk_error *err) {
    engine_job *j = job;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_ms > 0) {
        uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)timeout_ms * 1000000ULL;
        until.tv_sec += (time_t)(ns / 1000000000ULL);
        until.tv_nsec = (long)(ns % 1000000000ULL);
    }
    pthread_mutex_lock(&j->lock);
    while (atomic_load(&j->state) < CUZK_JOB_DONE && timeout_ms != 0) {
        if (timeout_ms < 0)
            pthread_cond_wait(&j->cv, &j->lock);
        else if (pthread_cond_timedwait(&j->cv, &j->lock, &until) == ETIMEDOUT)
            break;
    }
    int st = atomic_load(&j->state);
    cuzk_status s = j->status;
    char msg[CUZK_ERROR_MSG_BYTES];
    memcpy(msg, j->msg, sizeof msg);
    pthread_mutex_unlock(&j->lock);
    if (st < CUZK_JOB_DONE)
        return cuzk_fail(err, CUZK_EBUSY, "job %s is still %s", j->request_id,
                         cuzk_job_state_name((cuzk_job_state)st));
    if (s != CUZK_OK)
        return cuzk_fail(err, s, "%s", msg);
    cuzk_error_clear(err);
    return CUZK_OK;
}

cuzk_status cuzk_job_cancel(cuzk_job *job) {
    if (atomic_load(&job->state) >= CUZK_JOB_DONE)
        return CUZK_EBUSY; /* also keeps us away from a destroyed engine */
    return engine_job_end(job->e, job, CUZK_JOB_CANCELLED, CUZK_ECANCELLED, "cancelled by request")
               ? CUZK_OK
               : CUZK_EBUSY;
}

static const engine_part *done_part(const cuzk_job *job, size_t i) {
    if (i >= job->n_parts || atomic_load(&job->parts[i].stage) != CUZK_STAGE_DONE)
        return NULL;
    return &job->parts[i];
}

const char *cuzk_job_proof_json(const cuzk_job *job, size_t i) {
    const engine_part *p = done_part(job, i);
    return p ? p->proof_json : NULL;
}

const char *cuzk_job_public_json(const cuzk_job *job, size_t i) {
    const engine_part *p = done_part(job, i);
    return p ? p->public_json : NULL;
}

/* ---- engine status and exports ------------------------------------------------------------------ */
