/*
 * The engine's public API (include/cuzk.h): jobs (submit, attach by
 * request id, status, await, cancel, results), the job
 * table with its retention of finished jobs, and the job lifecycle shared
 * by the stages: stage moves, the outcome of a job, and draining.
 *
 * A job's life: submitted (QUEUED, in the table and the scheduler) ->
 * RUNNING once a partition is admitted -> an outcome (DONE, FAILED,
 * CANCELLED, EXPIRED), decided once, by whoever gets there first, under the
 * job's own lock; waiters wake then -> drained when every partition has
 * reached a terminal stage and given back its memory, pins and witness.
 * References: one per handle, one for the table (until the job drops out of
 * retention), one for the pipeline (until drained).
 *
 * Creation and shutdown are in lifecycle.c.
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

/* ---- fault injection ------------------------------------------------------------------ */

cuzk_fault_action engine_fault(cuzk_engine *e, cuzk_fault_site site, engine_part *p, int dev,
                               cuzk_fault *f) {
    memset(f, 0, sizeof *f);
    if (!e->testing.fault_fn)
        return CUZK_FAULT_NONE;
    unsigned att = atomic_load(&p->attempts);
    cuzk_fault_point at = {site, p->job->id, p->job->request_id, p->index,
                           site == CUZK_FAULT_DEVICE && att ? att - 1 : att, dev};
    e->testing.fault_fn(e->testing.fault_ctx, &at, f);
    f->msg[sizeof f->msg - 1] = 0;
    if (f->action == CUZK_FAULT_STALL) {
        engine_sleep_ms(f->stall_ms);
        return CUZK_FAULT_STALL;
    }
    if (f->action == CUZK_FAULT_EXIT && site != CUZK_FAULT_DEVICE)
        f->action = CUZK_FAULT_FAIL;
    if (f->action == CUZK_FAULT_FAIL && !f->msg[0])
        snprintf(f->msg, sizeof f->msg, "injected fault");
    return f->action;
}

/* ---- job lifecycle -------------------------------------------------------------------- */

void engine_part_stage(cuzk_engine *e, engine_part *p, cuzk_stage s) {
    int old = atomic_exchange(&p->stage, (int)s);
    if (old < CUZK_STAGE_DONE)
        atomic_fetch_sub(&e->in_stage[old], 1);
    if (s < CUZK_STAGE_DONE)
        atomic_fetch_add(&e->in_stage[s], 1);
}

int engine_part_should_stop(cuzk_engine *e, engine_part *p, uint64_t now, int may_end) {
    engine_job *j = p->job;
    if (atomic_load(&j->stop)) {
        p->skip = 1;
        cuzk_fail(&p->err, CUZK_ECANCELLED, "its job ended");
        return 1;
    }
    if (j->deadline_ns && now > j->deadline_ns) {
        p->skip = 1;
        cuzk_fail(&p->err, CUZK_ETIMEOUT, "deadline of %.0f ms passed",
                  (j->deadline_ns - j->submit_ns) / 1e6);
        if (may_end)
            engine_job_end(e, j, CUZK_JOB_EXPIRED, CUZK_ETIMEOUT, "%s", p->err.msg);
        return 1;
    }
    return 0;
}

static void log_job(cuzk_engine *e, engine_job *j, cuzk_job_state st, const char *msg, uint64_t now) {
    cuzk_log_level lv = st == CUZK_JOB_FAILED || st == CUZK_JOB_EXPIRED ? CUZK_LOG_WARN : CUZK_LOG_INFO;
    if (lv > e->cfg.log_level)
        return;
    double synth = 0, dev = 0, fin = 0;
    for (uint32_t i = 0; i < j->n_parts; i++) {
        engine_part *p = &j->parts[i];
        uint64_t a = atomic_load(&p->t[PT_SYNTH_START]), b = atomic_load(&p->t[PT_SYNTH_END]);
        uint64_t c = atomic_load(&p->t[PT_DEV_START]), d = atomic_load(&p->t[PT_DEV_END]);
        uint64_t f0 = atomic_load(&p->t[PT_FIN_START]), f1 = atomic_load(&p->t[PT_FIN_END]);
        synth += a && b > a ? (b - a) / 1e6 : 0;
        dev += c && d > c ? (d - c) / 1e6 : 0;
        fin += f0 && f1 > f0 ? (f1 - f0) / 1e6 : 0;
    }
    engine_log(e, lv,
               "job %llu (%s) key %s: %s, %u/%u partitions proved in %.1f ms (totals: synthesis "
               "%.1f, device %.1f, finalize %.1f ms)%s%s",
               (unsigned long long)j->id, j->request_id, j->key_id, cuzk_job_state_name(st),
               atomic_load(&j->parts_ok), j->n_parts, (now - j->submit_ns) / 1e6, synth, dev, fin,
               msg[0] ? ": " : "", msg);
}

int engine_job_end(cuzk_engine *e, engine_job *j, cuzk_job_state st, cuzk_status status,
                   const char *fmt, ...) {
    char msg[CUZK_ERROR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t now = cuzk_now_ns();
    pthread_mutex_lock(&j->lock);
    if (atomic_load(&j->state) >= CUZK_JOB_DONE) {
        pthread_mutex_unlock(&j->lock);
        return 0;
    }
    j->status = status;
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    atomic_store(&j->end_ns, now);
    if (st != CUZK_JOB_DONE)
        atomic_store(&j->stop, 1);
    atomic_store(&j->state, (int)st);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->lock);
    _Atomic uint64_t *ctr = st == CUZK_JOB_DONE     ? &e->n_done
                            : st == CUZK_JOB_FAILED ? &e->n_failed
                            : st == CUZK_JOB_EXPIRED ? &e->n_expired
                                                     : &e->n_cancelled;
    atomic_fetch_add(ctr, 1);
    engine_hist_add(&e->hist[HIST_JOB], now - j->submit_ns);
    log_job(e, j, st, msg, now);
    if (st != CUZK_JOB_DONE)
        engine_event_kick(&e->sched_ev); /* drop the partitions not admitted */
    /* Last: the caller's notification sees every figure above final.  The
     * pipeline's reference keeps |j| alive through the call. */
    if (j->on_end)
        j->on_end(j->on_end_ctx, j);
    return 1;
}

static void job_free(engine_job *j) {
    for (uint32_t i = 0; i < j->n_parts; i++) {
        engine_part *p = &j->parts[i];
        free(p->pub);
        free(p->proof_json);
        free(p->public_json);
        free(p->path);
    }
    free(j->parts);
    free(j->clog);
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

void engine_job_circuit_log(cuzk_engine *e, engine_job *j, const char *line, uint64_t dropped) {
    unsigned max = e->cfg.wc_log_lines ? e->cfg.wc_log_lines : 100;
    int first = 0;
    pthread_mutex_lock(&j->lock);
    if (line) {
        size_t n = strlen(line) + 1;
        first = j->clog_lines == 0 && j->clog_dropped == 0;
        if (j->clog_lines >= max || j->clog_len + n + 1 > CUZK_CIRCUIT_LOG_BYTES) {
            dropped++;
        } else {
            if (j->clog_len + n + 1 > j->clog_cap) {
                size_t cap = j->clog_cap ? j->clog_cap : 1024;
                while (cap < j->clog_len + n + 1)
                    cap *= 2;
                if (cap > CUZK_CIRCUIT_LOG_BYTES)
                    cap = CUZK_CIRCUIT_LOG_BYTES;
                char *b = realloc(j->clog, cap);
                if (b)
                    j->clog = b, j->clog_cap = cap;
            }
            if (j->clog_len + n + 1 <= j->clog_cap) {
                memcpy(j->clog + j->clog_len, line, n - 1);
                j->clog[j->clog_len + n - 1] = '\n';
                j->clog_len += n;
                j->clog[j->clog_len] = 0;
                j->clog_lines++;
            } else {
                dropped++; /* no memory for it: counted like the others */
            }
        }
    }
    j->clog_dropped += dropped;
    pthread_mutex_unlock(&j->lock);
    /* the daemon's log gets one line a job, never the circuit's text */
    if (first)
        engine_log(e, CUZK_LOG_INFO,
                   "job %s: its circuit prints log() lines; they are kept with the job "
                   "(its circuit_log, at most %u lines)", j->request_id, max);
}

size_t cuzk_job_circuit_log(const cuzk_job *job, char *buf, size_t cap, uint32_t *lines,
                            uint64_t *dropped) {
    engine_job *j = (engine_job *)job;
    pthread_mutex_lock(&j->lock);
    size_t need = j->clog_len + 1;
    if (buf && cap) {
        size_t n = j->clog_len < cap - 1 ? j->clog_len : cap - 1;
        while (n > 0 && n < j->clog_len && j->clog[n - 1] != '\n')
            n--; /* whole lines only */
        if (n)
            memcpy(buf, j->clog, n);
        buf[n] = 0;
    }
    if (lines)
        *lines = j->clog_lines;
    if (dropped)
        *dropped = j->clog_dropped;
    pthread_mutex_unlock(&j->lock);
    return need;
}

void engine_job_unref(engine_job *j) {
    if (j && atomic_fetch_sub(&j->refs, 1) == 1)
        job_free(j);
}

void engine_part_release_source(cuzk_engine *e, engine_part *p) {
    if (p->intake) {
        engine_unmap(p->intake, p->intake_bytes);
        engine_mem_uncharge(&e->mem, MEM_INTAKE, p->intake_bytes);
        p->intake = NULL;
    }
    if (p->release) {
        void (*fn)(void *, const void *) = p->release;
        p->release = NULL;
        fn(p->release_ctx, p->data);
    }
    p->data = NULL;
}

/* ---- the job table (jobs_lock held) ------------------------------------------------------ */

static size_t table_slot(cuzk_engine *e, const char *id) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 1099511628211ULL;
    return (size_t)(h & (e->table_size - 1));
}

static engine_job *table_find(cuzk_engine *e, const char *id) {
    for (engine_job *j = e->table[table_slot(e, id)]; j; j = j->tbl_next)
        if (!strcmp(j->request_id, id))
            return j;
    return NULL;
}

static void table_insert(cuzk_engine *e, engine_job *j) {
    size_t s = table_slot(e, j->request_id);
    j->tbl_next = e->table[s];
    e->table[s] = j;
    j->in_table = 1;
}

static void retained_unlink(cuzk_engine *e, engine_job *j) {
    if (!j->in_retained)
        return;
    if (j->ret_prev)
        j->ret_prev->ret_next = j->ret_next;
    else
        e->ret_head = j->ret_next;
    if (j->ret_next)
        j->ret_next->ret_prev = j->ret_prev;
    else
        e->ret_tail = j->ret_prev;
    j->ret_next = j->ret_prev = NULL;
    j->in_retained = 0;
    e->n_retained--;
}

/* Removes |j| from the table (and retention); the caller drops the table's
 * reference after unlocking. */
static void table_unlink(cuzk_engine *e, engine_job *j) {
    engine_job **pp = &e->table[table_slot(e, j->request_id)];
    while (*pp && *pp != j)
        pp = &(*pp)->tbl_next;
    if (*pp)
        *pp = j->tbl_next;
    j->tbl_next = NULL;
    j->in_table = 0;
    retained_unlink(e, j);
}

static void active_unlink(cuzk_engine *e, engine_job *j) {
    if (j->act_prev)
        j->act_prev->act_next = j->act_next;
    else
        e->act_head = j->act_next;
    if (j->act_next)
        j->act_next->act_prev = j->act_prev;
    j->act_next = j->act_prev = NULL;
}

static void job_drained(cuzk_engine *e, engine_job *j) {
    enum { MAX_VICTIMS = 8 };
    engine_job *victims[MAX_VICTIMS];
    int nv = 0;
    engine_sched_forget(e, j);
    pthread_mutex_lock(&e->jobs_lock);
    j->drained = 1;
    active_unlink(e, j);
    e->n_active--;
    if (j->in_table) {
        j->ret_prev = e->ret_tail;
        j->ret_next = NULL;
        if (e->ret_tail)
            e->ret_tail->ret_next = j;
        else
            e->ret_head = j;
        e->ret_tail = j;
        j->in_retained = 1;
        e->n_retained++;
    }
    while (e->n_retained > e->cfg.retain_jobs && nv < MAX_VICTIMS) {
        engine_job *v = e->ret_head;
        table_unlink(e, v);
        victims[nv++] = v;
    }
    pthread_cond_broadcast(&e->jobs_cv);
    pthread_mutex_unlock(&e->jobs_lock);
    for (int i = 0; i < nv; i++)
        engine_job_unref(victims[i]); /* the table's reference */
    if (j->key_held) { /* out of the pipeline: nothing reads j->key any more */
        j->key_held = 0;
        engine_key_release(e, j->key);
    }
    engine_circuit_release(e, j->circuit, 0); /* nor j->circuit */
    engine_job_unref(j); /* the pipeline's reference */
}

void engine_part_drain(cuzk_engine *e, engine_part *p) {
    engine_job *j = p->job;
    engine_buf_put(&e->mem, p->wbuf);
    engine_buf_put(&e->mem, p->abcbuf);
    p->wbuf = p->abcbuf = NULL;
    engine_part_release_source(e, p);
    if (p->pinned) {
        p->pinned = 0;
        engine_key_unpin(e, j->key);
    }
    if (p->admitted) {
        p->admitted = 0;
        atomic_fetch_sub(&e->in_flight, 1);
    }
    engine_event_kick(&e->sched_ev);
    if (atomic_fetch_sub(&j->undrained, 1) == 1)
        job_drained(e, j);
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
    p->inputs = inputs;
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
    job_free(j);
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
        /* An a, b, c image needs its a, b, c buffer even where the devices
         * evaluate their own: admission must know (sched.c). */
        if (s == CUZK_OK && !p->inputs)
            p->abc_input = p->path ? cuzk_abc_file_is_image(p->path)
                                   : cuzk_abc_is_image(p->intake ? p->intake : p->data, p->size);
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
        engine_job *x = table_find(e, o->request_id);
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
    engine_job *x = table_find(e, j->request_id);
    if (atomic_load(&e->closing) || (x && attachable(x))) {
        s = atomic_load(&e->closing) ? cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down")
                                     : attach_locked(x, k, o->n_witnesses, o->digest, job, attached,
                                                     err);
        pthread_mutex_unlock(&e->jobs_lock);
        job_discard(e, j);
        return s;
    }
    if (x) { /* a failed, cancelled or expired job: a new one replaces it */
        table_unlink(e, x);
        replaced = x;
    }
    if (o->request_id && o->digest) {
        memcpy(j->digest, o->digest, sizeof j->digest);
        j->has_digest = 1;
    }
    j->on_end = o->on_end;
    j->on_end_ctx = o->on_end_ctx;
    atomic_store(&j->refs, 3); /* table, pipeline, the caller's handle */
    table_insert(e, j);
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
    engine_job *j = table_find(e, request_id);
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
