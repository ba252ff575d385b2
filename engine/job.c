/*
 * A job's life, below the scheduler and the stages that drive it: the
 * fault hook, a partition's stage moves and stop check, the job's outcome
 * (decided once, by whoever gets there first, under the job's own lock),
 * its circuit's log, and draining: a partition that reached a terminal
 * stage gives back its memory, pins and witness, and the last one retires
 * the job into the table's retention.  The job table (request id -> job)
 * is here too, since draining and submitting both change it.
 *
 * Must not: do slow work under jobs_lock or a job's lock; call into a
 * job's engine once the job is drained (handles outlive the engine).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

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

void engine_job_free(engine_job *j) {
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
        engine_job_free(j);
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

engine_job *engine_table_find(cuzk_engine *e, const char *id) {
    for (engine_job *j = e->table[table_slot(e, id)]; j; j = j->tbl_next)
        if (!strcmp(j->request_id, id))
            return j;
    return NULL;
}

void engine_table_insert(cuzk_engine *e, engine_job *j) {
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
void engine_table_unlink(cuzk_engine *e, engine_job *j) {
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
        engine_table_unlink(e, v);
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
