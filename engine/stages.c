/*
 * The pipeline stages after admission: synthesis workers, the ready queue,
 * device workers with device time accounting, and finalizers
 * (docs/ENGINE.md).
 *
 *   synthesis  load the witness into a pool buffer (or compute it there
 *              from the partition's inputs with the job's circuit),
 *              evaluate a, b, c into another, push to the ready queue
 *   worker     take ready partitions (per device), run the device step,
 *              return the buffers, push to the done queue, take the next
 *   finalizer  self-verify, serialize, publish, count the job down, log
 *
 * The hot path is the worker's loop from "device step finished" to "next
 * device step started" (docs/ENGINE.md).  On it the worker takes only
 * ready.lock, done.lock and mem.lock, each for a few pointer operations,
 * and no thread ever holds one of them while doing slow work; it reads the
 * job's state through atomics, records spans in its own lock-free ring, and
 * wakes the scheduler through a futex counter.  It never logs, verifies,
 * serializes, frees memory to the OS, or takes a job's lock: all of that
 * is the finalizer's, which the worker only hands a pointer to.  A slow
 * finalizer therefore lengthens the done queue, never the device's gap.
 *
 * Device time: every event that changes whether a device runs, or whether
 * work it could take is waiting, happens under ready.lock, and at each one
 * all devices' clocks are advanced in the state they were in, so busy,
 * starved, idle and idle-with-work add up exactly to the elapsed time.  A
 * device with nothing ready is starved while admitted partitions are
 * queued for or in synthesis (synthesis is behind) and idle when none are
 * (no work): admission, the end of synthesis and retries change that
 * count under ready.lock too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"
#include "groth16/formats/abc.h"
#include "groth16/curve_impl.h"
#include "groth16/formats/json.h"
#include "groth16/prover/satisfy.h"

/* ---- priority queues of partitions -------------------------------------------------- */

/* |a| goes before |b|: higher priority, then earlier admission. */
static int before(const engine_part *a, const engine_part *b) {
    return a->prio > b->prio || (a->prio == b->prio && a->qseq < b->qseq);
}

void engine_pq_insert(engine_pq *q, engine_part *p) {
    engine_part *at = q->tail; /* insert after |at| */
    while (at && before(p, at))
        at = at->qprev;
    p->qprev = at;
    p->qnext = at ? at->qnext : q->head;
    if (p->qnext)
        p->qnext->qprev = p;
    else
        q->tail = p;
    if (at)
        at->qnext = p;
    else
        q->head = p;
    q->n++;
}

void engine_pq_remove(engine_pq *q, engine_part *p) {
    if (p->qprev)
        p->qprev->qnext = p->qnext;
    else
        q->head = p->qnext;
    if (p->qnext)
        p->qnext->qprev = p->qprev;
    else
        q->tail = p->qprev;
    p->qnext = p->qprev = NULL;
    q->n--;
}

void engine_synq_push(cuzk_engine *e, engine_part *p) {
    pthread_mutex_lock(&e->synq.lock);
    engine_pq_insert(&e->synq.q, p);
    pthread_cond_signal(&e->synq.cv);
    pthread_mutex_unlock(&e->synq.lock);
}

void engine_done_push(cuzk_engine *e, engine_part *p) {
    engine_part_stage(e, p, CUZK_STAGE_FINALIZING);
    p->qnext = NULL;
    pthread_mutex_lock(&e->done_lock);
    if (e->done_tail)
        e->done_tail->qnext = p;
    else
        e->done_head = p;
    e->done_tail = p;
    e->done_n++;
    pthread_cond_signal(&e->done_cv);
    pthread_mutex_unlock(&e->done_lock);
}

/* ---- device time accounting (ready.lock held) -------------------------------------- */

/* Whether device |d| may take |p|: a fallback device takes only retries; a
 * retry avoids the device that failed it unless no other can take it. */
static int can_take(cuzk_engine *e, const engine_device *d, const engine_part *p) {
    if (d->fallback_only)
        return atomic_load(&p->attempts) > 0;
    if (p->avoid_dev != d->index)
        return 1;
    for (unsigned i = 0; i < e->n_devices; i++)
        if (&e->devices[i] != d && atomic_load(&e->devices[i].alive) > 0)
            return 0;
    return 1;
}

static int has_eligible(cuzk_engine *e, const engine_device *d) {
    for (engine_part *p = e->ready.q.head; p; p = p->qnext)
        if (can_take(e, d, p))
            return 1;
    return 0;
}

/* Partitions in synthesis that |d| could take once they are ready (a
 * fallback device takes only retries). */
static int synth_feeds(const cuzk_engine *e, const engine_device *d) {
    return d->fallback_only ? e->synth_retry_n > 0 : e->synth_n > 0;
}

void engine_acct_update_locked(cuzk_engine *e, uint64_t now) {
    for (unsigned i = 0; i < e->n_devices; i++) {
        engine_device *d = &e->devices[i];
        if (now > d->acct_last_ns) {
            d->acct_ns[d->acct_state] += now - d->acct_last_ns;
            d->acct_last_ns = now;
        }
        d->acct_state = d->running                           ? ACCT_BUSY
                        : (d->staged || has_eligible(e, d)) ? ACCT_IDLE_WITH_WORK
                        : synth_feeds(e, d)                  ? ACCT_STARVED_SYNTH
                                                             : ACCT_STARVED_IDLE;
    }
}

void engine_synth_enter(cuzk_engine *e, engine_part *p) {
    pthread_mutex_lock(&e->ready.lock);
    e->synth_n++;
    e->synth_retry_n += atomic_load(&p->attempts) > 0;
    engine_acct_update_locked(e, cuzk_now_ns());
    pthread_mutex_unlock(&e->ready.lock);
}

/* ready.lock held: |p| leaves synthesis (ready, or out of the pipeline).
 * Its attempts have not changed since engine_synth_enter. */
static void synth_leave_locked(cuzk_engine *e, engine_part *p) {
    e->synth_n--;
    e->synth_retry_n -= atomic_load(&p->attempts) > 0;
}

/* Apply a change to |d|'s running/staged counts and account it. */
static void acct_change(cuzk_engine *e, engine_device *d, int d_staged, int d_running) {
    pthread_mutex_lock(&e->ready.lock);
    d->staged = (unsigned)((int)d->staged + d_staged);
    d->running = (unsigned)((int)d->running + d_running);
    engine_acct_update_locked(e, cuzk_now_ns());
    pthread_mutex_unlock(&e->ready.lock);
}

static void ready_push(cuzk_engine *e, engine_part *p) {
    engine_part_stage(e, p, CUZK_STAGE_READY);
    pthread_mutex_lock(&e->ready.lock);
    synth_leave_locked(e, p); /* in the same step: never counted as no work */
    engine_pq_insert(&e->ready.q, p);
    engine_acct_update_locked(e, cuzk_now_ns());
    /* Broadcast: which worker may take |p| depends on its device. */
    pthread_cond_broadcast(&e->ready.cv);
    pthread_mutex_unlock(&e->ready.lock);
}

/* Key affinity (devices with memory of their own): whether another device
 * that holds |p|'s key has a worker idle right now (ready.lock held), in
 * which case that one should take |p| rather than |d| copying the key. */
static int better_holder_idle(cuzk_engine *e, const engine_device *d, const engine_part *p) {
    const cuzk_key *key = &p->job->key->key;
    for (unsigned i = 0; i < e->n_devices; i++) {
        engine_device *o = &e->devices[i];
        if (o == d || o->fallback_only || !o->ops->holds_key || !can_take(e, o, p))
            continue;
        unsigned busy = o->running + o->staged, alive = atomic_load(&o->alive);
        if (alive > busy && o->ops->holds_key(o, key))
            return 1;
    }
    return 0;
}

/* The partition a worker of |d| should lead its step with: the first it
 * may take in priority order, except that a device that does not hold that
 * partition's key prefers a later one of the same priority whose key it
 * holds, and leaves it to an idle device holding the key.  NULL: none. */
static engine_part *ready_lead(cuzk_engine *e, engine_device *d) {
    int affinity = d->ops->holds_key && !d->fallback_only;
    engine_part *first = NULL;
    for (engine_part *p = e->ready.q.head; p; p = p->qnext) {
        if (!can_take(e, d, p))
            continue;
        if (!affinity)
            return p;
        if (!first)
            first = p;
        else if (p->job->prio != first->job->prio)
            break; /* affinity never overtakes a higher priority */
        if (d->ops->holds_key(d, &p->job->key->key))
            return p;
    }
    if (first && better_holder_idle(e, d, first))
        return NULL;
    return first;
}

/* Take up to |max| ready partitions of one key for a worker of |d|; the
 * worker then counts as staged (device with an upload step) or running.
 * Returns 0 at shutdown. */
static size_t ready_take(cuzk_engine *e, engine_device *d, engine_part **out, size_t max) {
    size_t n = 0;
    pthread_mutex_lock(&e->ready.lock);
    while (!e->ready.shutdown) {
        engine_part *lead = ready_lead(e, d);
        if (lead)
            out[n++] = lead;
        for (engine_part *p = e->ready.q.head; lead && p && n < max; p = p->qnext)
            if (p != lead && can_take(e, d, p) && p->job->key == lead->job->key)
                out[n++] = p;
        if (n)
            break;
        pthread_cond_wait(&e->ready.cv, &e->ready.lock);
    }
    for (size_t i = 0; i < n; i++)
        engine_pq_remove(&e->ready.q, out[i]);
    if (n) {
        if (d->has_upload)
            d->staged++;
        else
            d->running++;
        engine_acct_update_locked(e, cuzk_now_ns());
    }
    pthread_mutex_unlock(&e->ready.lock);
    return n;
}

/* ---- synthesis ---------------------------------------------------------------------- */

/* Keep the public signals w[1..n_pub] of the witness in the partition's
 * buffer (plain little-endian values). */
static cuzk_status keep_public(engine_part *p, const cuzk_key *k, cuzk_error *err) {
    size_t np = cuzk_key_n_public(k);
    const uint8_t *w = p->wbuf->p;
    if (np && !(p->pub = malloc(np * sizeof *p->pub)))
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for public signals");
    for (size_t i = 0; i < np; i++) {
        cuzk_status s = cuzk_fr_from_le(k->curve, &p->pub[i], w + (i + 1) * sizeof(cuzk_fr), err);
        if (s != CUZK_OK)
            return s;
    }
    p->n_pub = np;
    return CUZK_OK;
}

/* A line the circuit printed: data of the job whose calculation runs. */
static void circuit_print(void *ctx, const char *line) {
    engine_thread *th = ctx;
    if (th->log_job)
        engine_job_circuit_log(th->e, th->log_job, line, 0);
}

/* A calculation stops when its job does (cancelled, failed, or ended by
 * the engine's shutdown): the worker is killed, the thread is free. */
static int job_stopped(void *ctx) { return atomic_load(&((engine_job *)ctx)->stop); }

/* This synthesis thread's instance of circuit |c|, made on first use. */
static cuzk_status thread_wc(engine_thread *th, engine_circuit *c, cuzk_wc **out,
                             cuzk_error *err) {
    if (c->idx >= th->n_wc) {
        unsigned n = c->idx + 4;
        cuzk_wc **a = realloc(th->wc, n * sizeof *a);
        if (a)
            th->wc = a;
        uint64_t *ch = a ? realloc(th->wc_charged, n * sizeof *ch) : NULL;
        if (!ch)
            return cuzk_fail(err, CUZK_ENOMEM, "no memory for a witness calculator");
        th->wc_charged = ch;
        memset(a + th->n_wc, 0, (n - th->n_wc) * sizeof *a);
        memset(ch + th->n_wc, 0, (n - th->n_wc) * sizeof *ch);
        th->n_wc = n;
    }
    if (!th->wc[c->idx]) {
        cuzk_status s = cuzk_wc_new(&th->wc[c->idx], c->wc, circuit_print, th, err);
        if (s != CUZK_OK)
            return s;
    }
    *out = th->wc[c->idx];
    return CUZK_OK;
}

/* Compute the witness of |p|'s inputs straight into its pool buffer with
 * the job's circuit (loaded and checked against the key at admission),
 * and keep its public signals.  The inputs then go back to the budget. */
static cuzk_status compute_witness(cuzk_engine *e, engine_thread *th, engine_part *p,
                                   const cuzk_key *k, cuzk_error *err) {
    engine_circuit *c = p->job->circuit;
    cuzk_wc *wc = NULL;
    cuzk_wc_input *in = NULL;
    cuzk_status s;
    uint64_t t0 = cuzk_now_ns();
    if (!c || atomic_load(&c->state) != CIRC_READY)
        s = cuzk_fail(err, CUZK_EINTERNAL, "the job's circuit is not loaded");
    else if ((s = engine_circuit_check(c, p->job->key_id, k->curve, cuzk_key_n_vars(k),
                                       err)) != CUZK_OK)
        ; /* admission checked it; the buffer's size depends on it */
    else if ((s = thread_wc(th, c, &wc, err)) == CUZK_OK &&
             (s = engine_input_parse(&in, c->wc, p->intake, p->size, err)) == CUZK_OK) {
        th->log_job = p->job;
        s = cuzk_wc_calculate_until(wc, p->wbuf->p, in, p->job->deadline_ns, job_stopped,
                                    p->job, err);
        th->log_job = NULL;
        if (cuzk_wc_log_dropped(wc))
            engine_job_circuit_log(e, p->job, NULL, cuzk_wc_log_dropped(wc));
        /* the worker's memory, as it is after this calculation (0 if it
         * was killed), replaces what was charged for it */
        engine_wc_charge(e, &th->wc_charged[c->idx], cuzk_wc_memory(wc));
        if (s == CUZK_OK)
            s = keep_public(p, k, err);
    }
    cuzk_wc_input_free(in);
    uint64_t t1 = cuzk_now_ns();
    atomic_store(&p->witness_ns, t1 - t0);
    engine_ring_span(th->ring, SPAN_WITNESS, t0, t1, p->job->id, p->index, -1);
    engine_hist_add(&e->hist[HIST_WITNESS], t1 - t0);
    if (s == CUZK_OK)
        p->have_witness = 1;
    engine_part_release_source(e, p);
    return s;
}

/* The public signals (plain values 1 .. n_pub of the witness just put in
 * the partition's buffer), in Montgomery form, kept with the partition. */
static cuzk_status keep_public_of(engine_part *p, const cuzk_key *k, cuzk_error *err) {
    size_t np = cuzk_key_n_public(k);
    const cuzk_fr *w = p->wbuf->p;
    cuzk_status s = CUZK_OK;
    if (np && !p->pub && !(p->pub = malloc(np * sizeof *p->pub)))
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for public signals");
    for (size_t i = 0; s == CUZK_OK && i < np; i++)
        s = cuzk_fr_from_le(k->curve, &p->pub[i], (const uint8_t *)&w[i + 1], err);
    if (s == CUZK_OK)
        p->n_pub = np;
    return s;
}

/* A .wtns file named by path, read in parts (wtns.h): the header against
 * the key before any value is read, then the values straight into the
 * partition's buffer.  The file is opened again here, whatever was seen
 * at submit: a path can name another file (a FIFO, a device) by now. */
static cuzk_status read_witness_file(engine_part *p, const cuzk_key *k, cuzk_error *err) {
    cuzk_wtns_head h;
    cuzk_status s = cuzk_wtns_head_open(&h, p->path, err);
    if (s != CUZK_OK)
        return s;
    size_t nv = cuzk_key_n_vars(k);
    if ((s = engine_witness_fits(k->curve, nv, h.curve, h.n_witness, err)) == CUZK_OK)
        s = cuzk_wtns_head_read(&h, p->wbuf->p, 0, nv, err);
    cuzk_wtns_head_close(&h);
    return s;
}

/* Copy the witness into the partition's pool buffer and keep its public
 * signals; then the source can go back to its owner. */
static cuzk_status load_witness(cuzk_engine *e, engine_part *p, const cuzk_key *k,
                                cuzk_error *err) {
    cuzk_status s;
    if (p->path) {
        s = read_witness_file(p, k, err);
    } else {
        cuzk_wtns w;
        s = cuzk_wtns_from_mem(&w, p->intake ? p->intake : p->data, p->size, err);
        if (s != CUZK_OK)
            return s;
        size_t nv = cuzk_key_n_vars(k);
        if ((s = engine_witness_fits(k->curve, nv, w.curve, w.n_witness, err)) == CUZK_OK)
            /* The prover wants aligned plain values; the buffer's are not aligned. */
            memcpy(p->wbuf->p, w.values, nv * sizeof(cuzk_fr));
        cuzk_wtns_close(&w); /* cuzk_submit_check's words on a mismatch */
    }
    if (s == CUZK_OK)
        s = keep_public_of(p, k, err);
    if (s == CUZK_OK)
        p->have_witness = 1;
    engine_part_release_source(e, p);
    return s;
}

/* The partition's a, b, c buffer, taken for an image (admission takes it
 * for an image even where the devices evaluate their own). */
static cuzk_status abc_buffer(cuzk_engine *e, engine_part *p, cuzk_error *err) {
    cuzk_status s = CUZK_OK;
    if (!p->abcbuf && (s = engine_buf_get(&e->mem, &p->abcbuf, p->job->key->abc_bytes, err)) !=
                          CUZK_OK)
        p->abcbuf = NULL;
    return s;
}

/* An image file named by path, read in parts (abc.h): its header against
 * the key before any value is read, then w and a, b, c straight into the
 * partition's buffers, range-checked and converted there.  Opened again
 * here, as read_witness_file says. */
static cuzk_status read_abc_file(cuzk_engine *e, engine_part *p, const cuzk_key *k,
                                 cuzk_error *err) {
    cuzk_abc_head h;
    cuzk_status s = cuzk_abc_head_open(&h, p->path, err);
    if (s != CUZK_OK)
        return s;
    size_t n = (size_t)1 << cuzk_key_log_n(k);
    s = cuzk_abc_head_check_key(&h, k->curve, cuzk_key_n_vars(k), cuzk_key_log_n(k), err);
    if (s == CUZK_OK)
        s = abc_buffer(e, p, err);
    if (s == CUZK_OK)
        s = cuzk_abc_head_read_witness(&h, p->wbuf->p, e->synth_pool, err);
    if (s == CUZK_OK)
        s = cuzk_abc_head_read_abc(&h, p->abcbuf->p, n, e->synth_pool, err);
    cuzk_abc_head_close(&h);
    return s;
}

/* An image in memory (an upload, or a library caller's bytes), checked
 * whole by its reader, then converted into the partition's buffers. */
static cuzk_status read_abc_mem(cuzk_engine *e, engine_part *p, const cuzk_key *k,
                                cuzk_error *err) {
    cuzk_abc x;
    cuzk_status s = cuzk_abc_from_mem(&x, p->intake ? p->intake : p->data, p->size, err);
    if (s != CUZK_OK)
        return s;
    s = cuzk_abc_check_key(&x, k->curve, cuzk_key_n_vars(k), cuzk_key_log_n(k), err);
    if (s == CUZK_OK)
        s = abc_buffer(e, p, err);
    if (s == CUZK_OK) {
        cuzk_abc_witness_plain(&x, p->wbuf->p);
        cuzk_abc_to_mont(&x, p->abcbuf->p, (size_t)1 << cuzk_key_log_n(k), e->synth_pool);
    }
    cuzk_abc_close(&x);
    return s;
}

/* An a, b, c image (groth16/formats/abc.h), checked against the key: the
 * witness into the partition's buffer as load_witness copies it, a, b, c in
 * Montgomery form into its a, b, c buffer, so nothing is evaluated
 * anywhere.  The source stays until the partition drains, because a device
 * step consumes a, b, c and a retry needs them again; an in-memory image
 * stays charged as intake until then. */
static cuzk_status load_abc(cuzk_engine *e, engine_part *p, const cuzk_key *k, cuzk_error *err) {
    cuzk_status s = p->path ? read_abc_file(e, p, k, err) : read_abc_mem(e, p, k, err);
    if (s == CUZK_OK)
        s = keep_public_of(p, k, err);
    if (s == CUZK_OK)
        p->have_witness = 1, p->abc_ready = 1;
    return s;
}

/* a, b, c of one partition.  Its working memory (a Montgomery copy of the
 * witness: gigabytes at 2^27) is the synthesis thread's own pool buffer,
 * kept between partitions and grown only for a larger key, so synthesis
 * maps nothing per partition.  With no room in the budget for it the
 * partition fails with CUZK_ENOMEM (engine_scratch_get): evaluate
 * allocates nothing itself. */
static cuzk_status evaluate(cuzk_engine *e, engine_thread *th, const cuzk_key *k, engine_part *p,
                            cuzk_pool *pool, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->curve);
    size_t n = (size_t)1 << ci->key_log_n(k), need = ci->evaluate_scratch_bytes(k);
    cuzk_fr *abc = p->abcbuf->p;
    cuzk_status st;
    if (th->eval_scratch && th->eval_scratch->bytes < need) {
        engine_scratch_put(&e->mem, th->eval_scratch);
        th->eval_scratch = NULL;
    }
    if (!th->eval_scratch &&
        (st = engine_scratch_get(&e->mem, &th->eval_scratch, need, "evaluate's scratch", err)) !=
            CUZK_OK) {
        th->eval_scratch = NULL;
        return st;
    }
    return ci->evaluate_with_scratch(k, p->wbuf->p, abc, abc + n, abc + 2 * n,
                                     th->eval_scratch->p, th->eval_scratch->bytes, pool, err);
}

/* An image's a∘b = c on the synthesis pool (groth16/prover/satisfy.h): a
 * row that breaks it would give a proof that cannot verify, so the
 * partition fails here, naming the row, before a device works on it. */
static cuzk_status check_rows(cuzk_engine *e, const cuzk_key *k, const engine_part *p,
                              cuzk_error *err) {
    size_t n = (size_t)1 << cuzk_key_log_n(k);
    const cuzk_fr *abc = p->abcbuf->p;
    return cuzk_abc_check_rows(k->curve, abc, abc + n, abc + 2 * n, n, e->synth_pool, NULL, err);
}

/* Every witness value below r (what evaluate checks when it runs). */
static cuzk_status check_range(const cuzk_key *k, const engine_part *p, cuzk_error *err) {
    const uint64_t *r = cuzk_curve_r_limbs(k->curve);
    const cuzk_fr *w = p->wbuf->p;
    size_t nv = cuzk_key_n_vars(k);
    for (size_t i = 0; i < nv; i++) {
        int j = 3;
        while (j > 0 && w[i].l[j] == r[j])
            j--;
        if (w[i].l[j] >= r[j])
            return cuzk_fail(err, CUZK_ERANGE, "witness value %zu is not below the field order",
                             i);
    }
    return CUZK_OK;
}

/* a, b, c from the witness in the partition's buffer, or (where the
 * devices evaluate their own) only the witness's range checked. */
static cuzk_status synth_evaluate(cuzk_engine *e, engine_thread *th, engine_part *p,
                                  const cuzk_key *k) {
    if (e->synth_skips_eval) {
        p->abc_ready = 0;
        return check_range(k, p, &p->err);
    }
    uint64_t te = cuzk_now_ns();
    cuzk_status s = evaluate(e, th, k, p, e->synth_pool, &p->err);
    p->abc_ready = s == CUZK_OK;
    p->steps.evaluate_ns = cuzk_now_ns() - te;
    return s;
}

/* Synthesis by input kind (engine_input_kind), one function each; |att|
 * is the partition's attempt (0: the first). */
typedef cuzk_status (*synth_fn)(cuzk_engine *e, engine_thread *th, engine_part *p,
                                const cuzk_key *k, unsigned att);

/* A .wtns witness, by path or bytes: copied (once: a retry keeps it), then
 * evaluated. */
static cuzk_status synth_witness(cuzk_engine *e, engine_thread *th, engine_part *p,
                                 const cuzk_key *k, unsigned att) {
    (void)att;
    if (cuzk_key_n_coefs(k) == 0)
        return engine_images_only(p->job->key_id, &p->err);
    cuzk_status s = p->have_witness ? CUZK_OK : load_witness(e, p, k, &p->err);
    return s == CUZK_OK ? synth_evaluate(e, th, p, k) : s;
}

/* circom inputs: the witness computed by the job's circuit (once), then
 * evaluated. */
static cuzk_status synth_circom(cuzk_engine *e, engine_thread *th, engine_part *p,
                                const cuzk_key *k, unsigned att) {
    (void)att;
    if (cuzk_key_n_coefs(k) == 0)
        return engine_images_only(p->job->key_id, &p->err);
    cuzk_status s = p->have_witness ? CUZK_OK : compute_witness(e, th, p, k, &p->err);
    return s == CUZK_OK ? synth_evaluate(e, th, p, k) : s;
}

/* An a, b, c image: converted, not evaluated; its rows checked, since the
 * client made c (docs/ENGINE.md, "Checks"), on the first attempt only: a
 * retry converts the same image again. */
static cuzk_status synth_image(cuzk_engine *e, engine_thread *th, engine_part *p,
                               const cuzk_key *k, unsigned att) {
    (void)th;
    cuzk_status s = load_abc(e, p, k, &p->err);
    if (s == CUZK_OK && e->cfg.check_abc && att == 0)
        s = check_rows(e, k, p, &p->err);
    p->steps.evaluate_ns = 0;
    return s;
}

static const synth_fn synth_kind[] = {
    [INPUT_WITNESS] = synth_witness,
    [INPUT_IMAGE] = synth_image,
    [INPUT_CIRCOM] = synth_circom,
};

static void synth_one(cuzk_engine *e, engine_part *p, engine_thread *th) {
    engine_ring *ring = th->ring;
    uint64_t t0 = cuzk_now_ns();
    engine_job *j = p->job;
    unsigned att = atomic_load(&p->attempts);
    if (att > 0 && p->err.status != CUZK_OK) {
        /* A retry: say so here, where logging costs the device nothing. */
        engine_log(e, CUZK_LOG_WARN, "job %llu (%s) partition %u: %s; retrying",
                   (unsigned long long)j->id, j->request_id, p->index, p->err.msg);
        cuzk_error_clear(&p->err);
    }
    atomic_store(&p->t[PT_SYNTH_START], t0);
    cuzk_status s = CUZK_OK;
    cuzk_fault f;
    if (engine_part_should_stop(e, p, t0, 1))
        s = p->err.status;
    else if (engine_fault(e, CUZK_FAULT_SYNTHESIS, p, -1, &f) == CUZK_FAULT_FAIL)
        s = cuzk_fail(&p->err, CUZK_EINTERNAL, "synthesis: %s", f.msg);
    else {
        const cuzk_key *k = &j->key->key; /* pinned since admission */
        s = synth_kind[p->kind](e, th, p, k, att);
        p->steps.eval_site = p->kind == INPUT_IMAGE ? CUZK_EVAL_INPUT
                             : p->abc_ready ? CUZK_EVAL_SYNTHESIS
                                            : CUZK_EVAL_NONE;
        uint64_t t1 = cuzk_now_ns();
        engine_ring_span(ring, SPAN_SYNTH, t0, t1, j->id, p->index, -1);
        engine_hist_add(&e->hist[HIST_SYNTH], t1 - t0);
        atomic_store(&p->t[PT_SYNTH_END], t1);
    }
    if (s == CUZK_OK) {
        ready_push(e, p);
        return;
    }
    /* Leaves the pipeline before the devices: free its admission slot. */
    pthread_mutex_lock(&e->ready.lock);
    synth_leave_locked(e, p);
    engine_acct_update_locked(e, cuzk_now_ns());
    pthread_mutex_unlock(&e->ready.lock);
    atomic_fetch_sub(&e->pre_device, 1);
    engine_done_push(e, p);
    engine_event_kick(&e->sched_ev);
}

void *engine_synth_main(void *arg) {
    engine_thread *th = arg;
    cuzk_engine *e = th->e;
    char name[16];
    snprintf(name, sizeof name, "cuzk-synth%u", th->idx);
    pthread_setname_np(pthread_self(), name);
    for (;;) {
        pthread_mutex_lock(&e->synq.lock);
        while (!e->synq.q.head && !e->synq.shutdown)
            pthread_cond_wait(&e->synq.cv, &e->synq.lock);
        engine_part *p = e->synq.q.head;
        if (p)
            engine_pq_remove(&e->synq.q, p);
        pthread_mutex_unlock(&e->synq.lock);
        if (!p) {
            if (th->eval_scratch) {
                engine_scratch_put(&e->mem, th->eval_scratch);
                th->eval_scratch = NULL;
            }
            return NULL;
        }
        synth_one(e, p, th);
    }
}

/* ---- device workers -------------------------------------------------------------------- */

#define MAX_BATCH 64

/* A device step failed for |p|: retry once elsewhere (back through
 * synthesis, because the step consumed a, b, c), else fail it. */
static void retry_or_fail(cuzk_engine *e, engine_device *d, engine_part *p, const cuzk_error *why) {
    cuzk_fail(&p->err, why->status ? why->status : CUZK_EGPU, "device %s: %s", d->name, why->msg);
    if (atomic_load(&p->attempts) < 2 && !atomic_load(&p->job->stop)) {
        p->avoid_dev = d->index;
        atomic_fetch_add(&e->n_retries, 1);
        atomic_fetch_add(&e->pre_device, 1);
        engine_part_stage(e, p, CUZK_STAGE_SYNTHESIS);
        engine_synth_enter(e, p);
        engine_synq_push(e, p);
    } else {
        engine_done_push(e, p);
    }
}

/* The worker exits as if it had died (fault injection): its partitions are
 * retried and the scheduler starts a replacement. */
static void *worker_die(cuzk_engine *e, engine_worker *w, engine_part **parts, size_t n) {
    engine_device *d = w->dev;
    cuzk_error why;
    cuzk_fail(&why, CUZK_EGPU, "worker %u died", w->slot);
    acct_change(e, d, d->has_upload ? -1 : 0, d->has_upload ? 0 : -1);
    atomic_fetch_sub(&d->alive, 1);
    for (size_t i = 0; i < n; i++)
        retry_or_fail(e, d, parts[i], &why);
    atomic_store(&w->dead, 1);
    engine_event_kick(&e->sched_ev);
    return NULL;
}

/* Stage boundary on entering the device: keeps the partitions that go on,
 * sends the others to the finalizer.  Returns how many go on. */
static size_t admit_to_device(cuzk_engine *e, engine_worker *w, engine_part **parts, size_t n,
                              uint64_t now) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        engine_part *p = parts[i];
        uint64_t ready_at = atomic_load(&p->t[PT_SYNTH_END]);
        engine_ring_span(w->ring, SPAN_READY, ready_at, now, p->job->id, p->index, -1);
        engine_hist_add(&e->hist[HIST_READY], now - ready_at);
        if (engine_part_should_stop(e, p, now, 0)) {
            engine_done_push(e, p);
            continue;
        }
        atomic_fetch_add(&p->attempts, 1);
        atomic_store(&p->device, w->dev->index);
        atomic_store(&p->t[PT_DEV_START], now);
        engine_part_stage(e, p, CUZK_STAGE_PROVING);
        parts[m++] = p;
    }
    return m;
}

/* After the step: results to the finalizer, buffers back to the pool at
 * once (a queued done item must not hold memory hostage to a slow
 * finalizer), failures to retry. */
static void hand_off(cuzk_engine *e, engine_device *d, engine_part *p, engine_dev_item *it,
                     uint64_t t_end) {
    atomic_store(&p->t[PT_DEV_END], t_end);
    engine_hist_add(&e->hist[HIST_DEVICE], t_end - atomic_load(&p->t[PT_DEV_START]));
    if (it->status != CUZK_OK) {
        atomic_fetch_add(&d->failures, 1);
        retry_or_fail(e, d, p, &it->err);
        return;
    }
    atomic_fetch_add(&d->proofs, 1);
    p->proof = it->proof;
    if (it->steps.eval_site == CUZK_EVAL_NONE) { /* evaluated by synthesis, or not timed */
        it->steps.eval_site = p->steps.eval_site;
        it->steps.evaluate_ns = p->steps.evaluate_ns;
    }
    p->steps = it->steps;
    engine_buf_put(&e->mem, p->wbuf);
    engine_buf_put(&e->mem, p->abcbuf);
    p->wbuf = p->abcbuf = NULL;
    engine_done_push(e, p);
}

/* One device step for |n| partitions of one key.  Returns 0 if the worker
 * must die (fault injection). */
static int device_step(cuzk_engine *e, engine_worker *w, engine_part **parts, size_t n) {
    engine_device *d = w->dev;
    engine_dev_item items[MAX_BATCH], *run[MAX_BATCH];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        engine_part *p = parts[i];
        engine_dev_item *it = &items[i];
        memset(it, 0, sizeof *it);
        it->key = &p->job->key->key;
        it->witness = p->wbuf->p;
        /* a device that does not evaluate (a CPU retry of a partition
         * meant for a GPU) takes its a, b, c buffer now */
        if (!p->abcbuf && !d->self_evaluates &&
            (it->status = engine_buf_get(&e->mem, &p->abcbuf, p->job->key->abc_bytes,
                                         &it->err)) != CUZK_OK) {
            p->abcbuf = NULL;
            continue; /* handed off below as a failed attempt */
        }
        it->abc = p->abcbuf ? p->abcbuf->p : NULL;
        it->abc_ready = p->abc_ready;
        cuzk_fault f;
        cuzk_fault_action a = engine_fault(e, CUZK_FAULT_DEVICE, p, d->index, &f);
        if (a == CUZK_FAULT_EXIT)
            return 0;
        if (a == CUZK_FAULT_FAIL)
            it->status = cuzk_fail(&it->err, CUZK_EGPU, "%s", f.msg);
        else if (d->has_upload) {
            uint64_t t0 = cuzk_now_ns();
            it->status = d->ops->upload(d, it, &it->err);
            it->steps.upload_ns = cuzk_now_ns() - t0;
            engine_ring_span(w->ring, SPAN_UPLOAD, t0, t0 + it->steps.upload_ns, p->job->id, p->index,
                             d->index);
        }
        if (it->status == CUZK_OK)
            run[k++] = it;
    }
    if (d->has_upload)
        acct_change(e, d, -1, k ? +1 : 0);
    uint64_t t0 = cuzk_now_ns(), t1 = t0;
    if (k) {
        d->ops->run(d, run, k);
        t1 = cuzk_now_ns();
        acct_change(e, d, 0, -1);
    } else if (!d->has_upload) {
        acct_change(e, d, 0, -1);
    }
    for (size_t i = 0; i < n; i++) {
        engine_part *p = parts[i];
        engine_dev_item *it = &items[i];
        if (it->status == CUZK_OK && k)
            engine_ring_span(w->ring, SPAN_COMPUTE, t0, t1, p->job->id, p->index, d->index);
        uint64_t t_end = t1;
        if (it->status == CUZK_OK && d->has_fetch) {
            it->status = d->ops->fetch(d, it, &it->err);
            t_end = cuzk_now_ns();
            engine_ring_span(w->ring, SPAN_FETCH, t1, t_end, p->job->id, p->index, d->index);
        }
        hand_off(e, d, p, it, t_end);
    }
    return 1;
}

void *engine_worker_main(void *arg) {
    engine_worker *w = arg;
    cuzk_engine *e = w->e;
    engine_device *d = w->dev;
    engine_part *parts[MAX_BATCH];
    size_t max = e->batch_max < MAX_BATCH ? e->batch_max : MAX_BATCH;
    char name[16];
    snprintf(name, sizeof name, "cuzk-%.6s-w%u", d->name, w->slot);
    pthread_setname_np(pthread_self(), name);
    for (;;) {
        size_t n = ready_take(e, d, parts, max);
        if (!n)
            return NULL;
        atomic_fetch_sub(&e->pre_device, (uint32_t)n);
        size_t m = admit_to_device(e, w, parts, n, cuzk_now_ns());
        if (!m) {
            acct_change(e, d, d->has_upload ? -1 : 0, d->has_upload ? 0 : -1);
        } else if (!device_step(e, w, parts, m)) {
            return worker_die(e, w, parts, m);
        }
        /* Capacity and buffers were freed: let the scheduler admit more.
         * A futex kick, no lock. */
        engine_event_kick(&e->sched_ev);
        cuzk_fault f;
        if (e->testing.fault_fn) {
            memset(&f, 0, sizeof f);
            cuzk_fault_point at = {CUZK_FAULT_WORKER_GAP, 0, "", 0, 0, d->index};
            e->testing.fault_fn(e->testing.fault_ctx, &at, &f);
            if (f.action == CUZK_FAULT_STALL)
                engine_sleep_ms(f.stall_ms);
        }
    }
}

cuzk_status engine_worker_start(engine_worker *w, cuzk_error *err) {
    atomic_fetch_add(&w->dev->alive, 1);
    if (pthread_create(&w->thread, NULL, engine_worker_main, w) != 0) {
        atomic_fetch_sub(&w->dev->alive, 1);
        return cuzk_fail(err, CUZK_EINTERNAL, "cannot start a worker thread for %s", w->dev->name);
    }
    w->started = 1;
    return CUZK_OK;
}

/* ---- finalizers ------------------------------------------------------------------------ */

static double ms_between(uint64_t a, uint64_t b) { return a && b && b >= a ? (b - a) / 1e6 : 0.0; }

void engine_log_partition(cuzk_engine *e, engine_part *p, cuzk_stage stage) {
    if (e->cfg.log_level < CUZK_LOG_INFO)
        return;
    uint64_t t[PT_COUNT];
    for (int i = 0; i < PT_COUNT; i++)
        t[i] = atomic_load(&p->t[i]);
    int dev = atomic_load(&p->device);
    engine_job *j = p->job;
    /* A partition dropped before admission has no later stamps. */
    uint64_t end = t[PT_FIN_END] ? t[PT_FIN_END] : cuzk_now_ns();
    uint64_t admitted = t[PT_SYNTH_START] ? t[PT_SYNTH_START] : end;
    /* With inputs, the witness calculation (part of synthesis) is named. */
    char witness[40] = "";
    uint64_t wns = atomic_load(&p->witness_ns);
    if (p->kind == INPUT_CIRCOM && wns)
        snprintf(witness, sizeof witness, " (witness %.1f ms)", wns / 1e6);
    engine_log(e, CUZK_LOG_INFO,
               "job %llu (%s) partition %u of %u, key %s, on %s: %s in %.1f ms (queue %.1f, synthesis "
               "%.1f%s, ready %.1f, device %.1f, finalize %.1f ms; attempts %u)%s%s",
               (unsigned long long)j->id, j->request_id, p->index, j->n_parts, j->key_id,
               dev >= 0 ? e->devices[dev].name : "-", cuzk_stage_name(stage),
               ms_between(t[PT_QUEUED], end), ms_between(t[PT_QUEUED], admitted),
               ms_between(t[PT_SYNTH_START], t[PT_SYNTH_END]), witness,
               ms_between(t[PT_SYNTH_END], t[PT_DEV_START]), ms_between(t[PT_DEV_START], t[PT_DEV_END]),
               ms_between(t[PT_FIN_START], t[PT_FIN_END]), atomic_load(&p->attempts),
               stage == CUZK_STAGE_FAILED ? ": " : "", stage == CUZK_STAGE_FAILED ? p->err.msg : "");
}

/* Verify and serialize a proven partition; fills p->err on failure. */
static cuzk_status publish_prep(cuzk_engine *e, engine_part *p) {
    engine_job *j = p->job;
    cuzk_status s;
    cuzk_error why = {0};
    if (e->cfg.self_verify &&
        (s = cuzk_vk_verify(&j->key->vk, p->pub, p->n_pub, &p->proof, &why)) != CUZK_OK)
        return cuzk_fail(&p->err, s, "self-verification failed: %s%s", why.msg,
                         s == CUZK_EVERIFY ? ": the witness does not satisfy the circuit (or "
                                             "a device computed a wrong proof)"
                                           : "");
    if (e->cfg.json) {
        if ((s = cuzk_proof_write_json(&p->proof, &p->proof_json, &p->err)) != CUZK_OK ||
            (s = cuzk_public_write_json(j->key->key.curve, p->pub, p->n_pub, &p->public_json,
                                        &p->err)) != CUZK_OK)
            return s;
    }
    return CUZK_OK;
}

/* Whether a failed partition failed for what its client sent (inputs the
 * circuit refuses, a failed assert, a witness of another circuit or curve,
 * a malformed file): found by synthesis, before any device step.  Those
 * are the client's failures, not the key's: a key's failure count says
 * whether the key (or its devices) is in trouble. */
static int client_fault(engine_part *p) {
    if (atomic_load(&p->t[PT_DEV_START]) != 0)
        return 0;
    switch (p->err.status) {
    case CUZK_EINVAL:
    case CUZK_EFORMAT:
    case CUZK_ERANGE:
    case CUZK_ECURVE:
    case CUZK_EMISMATCH:
    case CUZK_EVERIFY:
    case CUZK_ENOTFOUND:
    case CUZK_EUNSUPPORTED: /* before the device: the input's kind or version */
        return 1;
    default:
        return 0;
    }
}

static void finalize_one(cuzk_engine *e, engine_part *p, engine_ring *ring) {
    uint64_t t0 = cuzk_now_ns();
    engine_job *j = p->job;
    atomic_store(&p->t[PT_FIN_START], t0);
    cuzk_stage final = CUZK_STAGE_DONE;
    int dev = atomic_load(&p->device);
    if (p->skip) {
        if (p->err.status == CUZK_ETIMEOUT) /* a worker saw the deadline pass */
            engine_job_end(e, j, CUZK_JOB_EXPIRED, CUZK_ETIMEOUT, "%s", p->err.msg);
        final = CUZK_STAGE_CANCELLED;
    } else if (p->err.status != CUZK_OK) {
        final = CUZK_STAGE_FAILED;
    } else if (engine_part_should_stop(e, p, t0, 1)) {
        final = CUZK_STAGE_CANCELLED; /* proven, but its job has ended */
    } else {
        cuzk_fault f;
        if (engine_fault(e, CUZK_FAULT_FINALIZE, p, dev, &f) == CUZK_FAULT_FAIL)
            cuzk_fail(&p->err, CUZK_EINTERNAL, "finalize: %s", f.msg);
        else if (dev >= 0 && e->devices[dev].ops->simulated)
            p->simulated = 1, atomic_store(&j->simulated, 1);
        else
            publish_prep(e, p);
        if (p->err.status != CUZK_OK)
            final = CUZK_STAGE_FAILED;
    }
    atomic_store(&p->status, final == CUZK_STAGE_FAILED ? (int)p->err.status : CUZK_OK);
    uint64_t t1 = cuzk_now_ns();
    atomic_store(&p->t[PT_FIN_END], t1);
    /* Publish before deciding the job, so that a waiter woken by the
     * outcome sees this partition's final stage; the stage store releases
     * the proof and strings written above. */
    if (final == CUZK_STAGE_FAILED) {
        atomic_fetch_add(&j->parts_failed, 1);
        if (!client_fault(p))
            atomic_fetch_add(&j->key->failures, 1);
    }
    engine_part_stage(e, p, final);
    if (final == CUZK_STAGE_FAILED) {
        engine_job_end(e, j, CUZK_JOB_FAILED, p->err.status, "partition %u: %s", p->index,
                       p->err.msg);
    } else if (final == CUZK_STAGE_DONE) {
        atomic_fetch_add(&j->key->proofs, 1);
        atomic_fetch_add(&e->n_proofs, 1);
        if (atomic_fetch_add(&j->parts_ok, 1) + 1 == j->n_parts)
            engine_job_end(e, j, CUZK_JOB_DONE, CUZK_OK, "%s", "");
    }
    engine_ring_span(ring, SPAN_FINALIZE, t0, t1, j->id, p->index, -1);
    engine_hist_add(&e->hist[HIST_FINALIZE], t1 - t0);
    engine_hist_add(&e->hist[HIST_PARTITION], t1 - atomic_load(&p->t[PT_QUEUED]));
    engine_log_partition(e, p, final);
    engine_part_drain(e, p);
}

void *engine_final_main(void *arg) {
    engine_thread *th = arg;
    cuzk_engine *e = th->e;
    char name[16];
    snprintf(name, sizeof name, "cuzk-final%u", th->idx);
    pthread_setname_np(pthread_self(), name);
    for (;;) {
        pthread_mutex_lock(&e->done_lock);
        while (!e->done_head && !e->done_shutdown)
            pthread_cond_wait(&e->done_cv, &e->done_lock);
        engine_part *p = e->done_head;
        if (p) {
            e->done_head = p->qnext;
            if (!e->done_head)
                e->done_tail = NULL;
            e->done_n--;
        }
        pthread_mutex_unlock(&e->done_lock);
        if (!p)
            return NULL; /* shut down and drained */
        finalize_one(e, p, th->ring);
    }
}
