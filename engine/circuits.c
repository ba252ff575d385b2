/*
 * Circuits: the witness calculators of jobs that carry circom inputs
 * instead of witnesses (witness/wc.h), and the circuit loader thread.
 *
 * A circuit is known by the real path of its .wasm.  It is registered the
 * first time a submit names it, cuzk_engine_circuit_register binds it to
 * a key or cuzk_engine_circuit_get asks for it.  Whoever points at it
 * holds it (|holders|, under circ_lock): the key it is bound to, each job
 * until drained, the loader while loading it, a caller between resolving
 * and releasing it.  A circuit whose load failed, or that a key refused
 * (wrong curve or size), is removed with its last hold: its entry, its
 * look-up worker, its charge; nothing of it is left to count.  Loaded
 * circuits nobody refused stay for later jobs, until a caller that bounds
 * them unloads one nothing holds (cuzk_engine_circuit_evict).  At a
 * stop (cuzk_engine_circuits_stop) every compile, load and look-up ends
 * through the witness layer's stop, so none holds the caller's exit.
 * The loaded object
 * (cuzk_wc_circuit) is reference counted by the witness layer: the entry
 * holds one reference, each synthesis thread's instance one, and a caller
 * of cuzk_engine_circuit_get one until cuzk_engine_circuit_put, so the
 * daemon's checks of inputs and the engine's synthesis use one object
 * with one look-up worker, charged to the budget once.
 *
 * Loading it can mean compiling it to native code, which
 * takes up to a minute for a large circuit (once per machine: the witness
 * layer caches the object on disk).  That never happens on a proving
 * thread: a submit only queues the circuit for the loader thread, and the
 * scheduler passes over jobs whose circuit is not loaded yet (as it does
 * for keys not resident), so synthesis only ever sees loaded circuits and
 * the devices keep proving other jobs meanwhile.  Registration loads in
 * the caller's thread and waits, which is what a caller preparing a
 * service wants.
 *
 * Must not: hold circ_lock (or any lock) while compiling or loading, or
 * while measuring a worker; let a synthesis or device worker take
 * circ_lock (they read the circuit's atomic state, and its fields once it
 * says READY, under their job's hold); free a circuit that is held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

/* Lines the witness layer prints while compiling. */
static void progress_line(void *ctx, const char *line) {
    engine_log((cuzk_engine *)ctx, CUZK_LOG_INFO, "%s", line);
}

/* circ_lock held. */
static engine_circuit *find_locked(cuzk_engine *e, const char *path) {
    for (engine_circuit *c = e->circuits; c; c = c->next)
        if (!strcmp(c->path, path))
            return c;
    return NULL;
}

/* circ_lock held: hand |c| to the loader unless it is loaded or on its way. */
static void queue_locked(cuzk_engine *e, engine_circuit *c) {
    int st = atomic_load(&c->state);
    if (st != CIRC_NEW && st != CIRC_FAILED)
        return;
    atomic_store(&c->state, CIRC_QUEUED);
    c->load_next = NULL;
    if (e->circ_load_tail)
        e->circ_load_tail->load_next = c;
    else
        e->circ_load_head = c;
    e->circ_load_tail = c;
    pthread_cond_broadcast(&e->circ_cv);
}

/* circ_lock held: take |c| out of the loader's queue (a register call
 * loads it itself rather than wait behind other compiles). */
static void unqueue_locked(cuzk_engine *e, engine_circuit *c) {
    engine_circuit **pp = &e->circ_load_head, *prev = NULL;
    while (*pp && *pp != c)
        prev = *pp, pp = &(*pp)->load_next;
    if (!*pp)
        return;
    *pp = c->load_next;
    if (e->circ_load_tail == c)
        e->circ_load_tail = prev;
    c->load_next = NULL;
}

cuzk_status engine_circuit_resolve(cuzk_engine *e, engine_circuit **out, const char *path,
                                   int queue, cuzk_error *err) {
    *out = NULL;
    char *rp = realpath(path, NULL); /* file system: not under the lock */
    if (!rp)
        return cuzk_fail(err, CUZK_ENOTFOUND, "circuit %s: no such file", path);
    pthread_mutex_lock(&e->circ_lock);
    engine_circuit *c = find_locked(e, rp);
    if (!c && (c = calloc(1, sizeof *c))) {
        c->path = rp;
        rp = NULL;
        c->idx = e->n_circuits++;
        atomic_store(&c->state, CIRC_NEW);
        c->next = e->circuits;
        e->circuits = c;
    }
    if (c)
        c->holders++;
    if (c && queue)
        queue_locked(e, c);
    pthread_mutex_unlock(&e->circ_lock);
    free(rp);
    if (!c)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a circuit entry");
    *out = c;
    return CUZK_OK;
}

/* Measure the look-up worker of |c| (loaded, held by the caller; no lock
 * held) and charge what it holds in place of what was charged before;
 * unchanged while a look-up is using it. */
static void charge_lookup(cuzk_engine *e, engine_circuit *c) {
    uint64_t now = cuzk_wc_circuit_memory(c->wc);
    if (now == UINT64_MAX)
        return;
    pthread_mutex_lock(&e->circ_lock);
    engine_wc_charge(e, &c->wc_charged, now);
    pthread_mutex_unlock(&e->circ_lock);
}

void engine_circuit_hold(cuzk_engine *e, engine_circuit *c) {
    pthread_mutex_lock(&e->circ_lock);
    c->holders++;
    pthread_mutex_unlock(&e->circ_lock);
}

void engine_circuit_release(cuzk_engine *e, engine_circuit *c, int refused) {
    if (!c)
        return;
    pthread_mutex_lock(&e->circ_lock);
    int st = atomic_load(&c->state);
    int drop = --c->holders == 0 && st != CIRC_QUEUED && st != CIRC_LOADING &&
               (refused || st == CIRC_FAILED || st == CIRC_NEW);
    if (drop) {
        engine_circuit **pp = &e->circuits;
        while (*pp != c)
            pp = &(*pp)->next;
        *pp = c->next;
        engine_wc_charge(e, &c->wc_charged, 0);
    }
    pthread_mutex_unlock(&e->circ_lock);
    if (!drop)
        return;
    if (refused && st == CIRC_READY)
        engine_log(e, CUZK_LOG_INFO, "circuit %s unloaded: refused, and nothing else uses it",
                   engine_path_base(c->path));
    cuzk_wc_circuit_free(c->wc); /* the entry's reference; instances keep theirs */
    free(c->path);
    free(c);
}

static int circuits_stopped(void *ctx) {
    return atomic_load(&((cuzk_engine *)ctx)->circ_stop_all);
}

void engine_wc_opts(const cuzk_engine *e, cuzk_wc_opts *o) {
    memset(o, 0, sizeof *o);
    o->start_s = e->cfg.wc_start_s;
    o->stop = circuits_stopped;
    o->stop_ctx = (void *)e;
    o->cache_dir = e->wc_cache_dir;
    o->progress = progress_line;
    o->progress_ctx = (void *)e;
    o->memory_bytes = e->cfg.wc_memory_bytes;
    o->calc_s = e->cfg.wc_calc_s;
    o->log_lines = e->cfg.wc_log_lines;
    o->max_wasm_bytes = e->cfg.wc_max_wasm_bytes;
    o->compile_s = e->cfg.wc_compile_s;
    o->compile_memory_bytes = e->cfg.wc_compile_memory_bytes;
    o->max_compilers = e->cfg.wc_max_compilers;
    o->cache_max_bytes = e->cfg.wc_cache_max_bytes;
}


cuzk_status engine_circuit_failure(cuzk_engine *e, engine_circuit *c, cuzk_error *err) {
    pthread_mutex_lock(&e->circ_lock);
    cuzk_status s = c->load_status ? c->load_status : CUZK_EINTERNAL;
    cuzk_fail(err, s, "circuit %s: %s", engine_path_base(c->path), c->load_msg);
    pthread_mutex_unlock(&e->circ_lock);
    return s;
}

/* Compile or load |c| (state LOADING, owned by the caller) with no lock
 * held, then publish the outcome.  Returns its status. */
static cuzk_status load_one(cuzk_engine *e, engine_circuit *c, engine_ring *ring,
                            cuzk_error *err) {
    uint64_t t0 = cuzk_now_ns();
    cuzk_wc_opts opts;
    engine_wc_opts(e, &opts);
    cuzk_wc_circuit *wc = NULL;
    cuzk_error why = {0};
    cuzk_status s = cuzk_wc_circuit_load(&wc, c->path, &opts, &why);
    uint64_t mem = s == CUZK_OK ? cuzk_wc_circuit_memory(wc) : 0; /* not under the lock */
    pthread_mutex_lock(&e->circ_lock);
    c->load_status = s;
    snprintf(c->load_msg, sizeof c->load_msg, "%s", s == CUZK_OK ? "" : why.msg);
    if (s == CUZK_OK) {
        c->wc = wc;
        engine_wc_charge(e, &c->wc_charged, mem == UINT64_MAX ? 0 : mem);
        c->curve = cuzk_wc_circuit_curve(wc);
        c->n_witness = cuzk_wc_circuit_n_witness(wc);
    }
    /* The release store publishes |wc| and the fields above. */
    atomic_store(&c->state, s == CUZK_OK ? CIRC_READY : CIRC_FAILED);
    pthread_cond_broadcast(&e->circ_cv);
    pthread_mutex_unlock(&e->circ_lock);
    engine_event_kick(&e->sched_ev); /* jobs waiting for it can go */
    uint64_t t1 = cuzk_now_ns();
    engine_ring_span(ring, SPAN_CIRCUIT, t0, t1, 0, 0, -1);
    if (s == CUZK_OK) {
        engine_log(e, CUZK_LOG_INFO,
                   "circuit %s loaded: %s, %u witness values, %u inputs, circom %s, %s in %.1f ms",
                   engine_path_base(c->path), cuzk_curve_snarkjs_name(c->curve), c->n_witness,
                   cuzk_wc_circuit_n_inputs(wc), cuzk_wc_circuit_version(wc),
                   cuzk_wc_circuit_compile_s(wc) > 0 ? "compiled" : "from the cache",
                   (t1 - t0) / 1e6);
        cuzk_error_clear(err);
    } else {
        engine_log(e, CUZK_LOG_ERROR, "circuit %s: load failed: %s", engine_path_base(c->path), why.msg);
        cuzk_fail(err, s, "circuit %s: %s", engine_path_base(c->path), why.msg);
    }
    return s;
}

/* The loader, when it has nothing to load, measures the look-up workers
 * this often (they start and die with other threads: a status must not
 * read /proc itself). */
#define MEASURE_EVERY_S 1

void *engine_circuit_loader_main(void *arg) {
    cuzk_engine *e = arg;
    pthread_setname_np(pthread_self(), "cuzk-circuits");
    pthread_mutex_lock(&e->circ_lock);
    while (!atomic_load(&e->circ_stop)) {
        engine_circuit *c = e->circ_load_head;
        if (!c) {
            struct timespec until; /* circ_cv waits on the realtime clock */
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += MEASURE_EVERY_S;
            if (pthread_cond_timedwait(&e->circ_cv, &e->circ_lock, &until) == ETIMEDOUT) {
                pthread_mutex_unlock(&e->circ_lock);
                engine_circuits_measure(e);
                pthread_mutex_lock(&e->circ_lock);
            }
            continue;
        }
        unqueue_locked(e, c);
        atomic_store(&c->state, CIRC_LOADING);
        c->holders++; /* the loader's, while it loads */
        pthread_mutex_unlock(&e->circ_lock);
        load_one(e, c, e->circ_ring, NULL);
        engine_circuit_release(e, c, 0);
        pthread_mutex_lock(&e->circ_lock);
    }
    /* Loads never started fail, so that nothing waits for them. */
    while (e->circ_load_head) {
        engine_circuit *c = e->circ_load_head;
        unqueue_locked(e, c);
        c->load_status = CUZK_ECANCELLED;
        snprintf(c->load_msg, sizeof c->load_msg, "engine is shutting down");
        atomic_store(&c->state, CIRC_FAILED);
    }
    pthread_cond_broadcast(&e->circ_cv);
    pthread_mutex_unlock(&e->circ_lock);
    return NULL;
}

/* Loaded now, in the caller's thread, or by whoever is loading it. */
static cuzk_status obtain(cuzk_engine *e, engine_circuit *c, cuzk_error *err) {
    if (atomic_load(&e->circ_stop_all))
        return cuzk_fail(err, CUZK_ECANCELLED, "circuits: the engine is stopping");
    pthread_mutex_lock(&e->circ_lock);
    for (;;) {
        int st = atomic_load(&c->state);
        if (st == CIRC_READY) {
            pthread_mutex_unlock(&e->circ_lock);
            return CUZK_OK;
        }
        if (st == CIRC_LOADING) {
            pthread_cond_wait(&e->circ_cv, &e->circ_lock);
            continue;
        }
        if (st == CIRC_QUEUED)
            unqueue_locked(e, c);
        atomic_store(&c->state, CIRC_LOADING);
        pthread_mutex_unlock(&e->circ_lock);
        return load_one(e, c, NULL, err);
    }
}

/* cuzk_engine_circuit_register once the key is resolved (and held).  A
 * circuit the key refuses leaves nothing behind unless something else
 * holds it. */
static cuzk_status circuit_bind(cuzk_engine *e, engine_key *k, const char *wasm_path,
                                cuzk_error *err) {
    engine_circuit *c;
    cuzk_status s;
    if ((s = engine_circuit_resolve(e, &c, wasm_path, 0, err)) != CUZK_OK)
        return s;
    /* Refused before compiling anything when the answer is known. */
    pthread_mutex_lock(&e->keys_lock);
    engine_circuit *other = k->circuit;
    pthread_mutex_unlock(&e->keys_lock);
    if (other && other != c) {
        s = cuzk_fail(err, CUZK_EMISMATCH, "key %s has circuit %s registered already", k->id,
                      other->path);
        engine_circuit_release(e, c, 1);
        return s;
    }
    if ((s = obtain(e, c, err)) != CUZK_OK) {
        engine_circuit_release(e, c, 1);
        return s;
    }
    /* The key's curve and size are known once it has been loaded (they stay
     * known after eviction); otherwise admission checks them. */
    pthread_mutex_lock(&e->keys_lock);
    if (k->circuit && k->circuit != c)
        s = cuzk_fail(err, CUZK_EMISMATCH, "key %s has circuit %s registered already", k->id,
                      k->circuit->path);
    else if (k->key.curve != CUZK_CURVE_NONE && k->witness_bytes)
        s = engine_circuit_check(c, k->id, k->key.curve, k->witness_bytes / sizeof(cuzk_fr),
                                 err);
    int bound = s == CUZK_OK && !k->circuit;
    if (bound) {
        k->circuit = c;
        engine_circuit_hold(e, c); /* the key's, for good (keys_lock -> circ_lock) */
    }
    pthread_mutex_unlock(&e->keys_lock);
    if (bound)
        engine_log(e, CUZK_LOG_INFO, "key %s: circuit %s registered", k->id, c->path);
    engine_circuit_release(e, c, s != CUZK_OK);
    return s;
}

void engine_wc_charge(cuzk_engine *e, uint64_t *charged, uint64_t now) {
    if (now > *charged) /* memory the worker holds already: charged even past the budget */
        engine_mem_charge_held(&e->mem, MEM_WITNESS, now - *charged);
    else
        engine_mem_uncharge(&e->mem, MEM_WITNESS, *charged - now);
    *charged = now;
}

cuzk_status cuzk_engine_circuit_register(cuzk_engine *e, const char *key_id,
                                         const char *wasm_path, cuzk_error *err) {
    if (!key_id || !key_id[0] || !wasm_path || !wasm_path[0])
        return cuzk_fail(err, CUZK_EINVAL, "circuit register: a key and a .wasm path are needed");
    if (atomic_load(&e->closing))
        return cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down");
    engine_key *k;
    cuzk_status s = engine_key_resolve(e, &k, key_id, err);
    if (s != CUZK_OK)
        return s;
    s = circuit_bind(e, k, wasm_path, err);
    engine_key_release(e, k);
    return s;
}

cuzk_status cuzk_engine_circuit_get(cuzk_engine *e, const char *wasm_path,
                                    cuzk_wc_circuit **out, cuzk_error *err) {
    *out = NULL;
    if (!wasm_path || !wasm_path[0])
        return cuzk_fail(err, CUZK_EINVAL, "circuit: a .wasm path is needed");
    if (atomic_load(&e->closing))
        return cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down");
    engine_circuit *c;
    cuzk_status s = engine_circuit_resolve(e, &c, wasm_path, 0, err);
    if (s != CUZK_OK)
        return s;
    if ((s = obtain(e, c, err)) == CUZK_OK)
        *out = cuzk_wc_circuit_ref(c->wc);
    engine_circuit_release(e, c, 0); /* a failed load leaves nothing */
    return s;
}

void cuzk_engine_circuit_put(cuzk_engine *e, cuzk_wc_circuit *wc) {
    if (!wc)
        return;
    /* Its look-up worker may have been started (again) by the caller's
     * look-ups: measured now, outside the lock, and charged in place of
     * what was charged for it before. */
    engine_circuit *c = NULL;
    pthread_mutex_lock(&e->circ_lock);
    for (engine_circuit *x = e->circuits; x && !c; x = x->next)
        if (x->wc == wc && atomic_load(&x->state) == CIRC_READY)
            (c = x)->holders++;
    pthread_mutex_unlock(&e->circ_lock);
    if (c) {
        charge_lookup(e, c);
        engine_circuit_release(e, c, 0);
    }
    cuzk_wc_circuit_free(wc);
}

void engine_circuits_measure(cuzk_engine *e) {
    enum { AT_ONCE = 64 }; /* more (past any daemon's max_circuits) wait for their next use */
    engine_circuit *held[AT_ONCE];
    unsigned n = 0;
    pthread_mutex_lock(&e->circ_lock);
    for (engine_circuit *c = e->circuits; c && n < AT_ONCE; c = c->next)
        if (atomic_load(&c->state) == CIRC_READY)
            (held[n++] = c)->holders++;
    pthread_mutex_unlock(&e->circ_lock);
    for (unsigned k = 0; k < n; k++) {
        charge_lookup(e, held[k]);
        engine_circuit_release(e, held[k], 0);
    }
}

unsigned engine_circuits_loaded(cuzk_engine *e) {
    unsigned n = 0;
    pthread_mutex_lock(&e->circ_lock);
    for (engine_circuit *c = e->circuits; c; c = c->next)
        n += atomic_load(&c->state) == CIRC_READY;
    pthread_mutex_unlock(&e->circ_lock);
    return n;
}

void engine_thread_free_wc(engine_thread *th) {
    for (unsigned i = 0; i < th->n_wc; i++) {
        cuzk_wc_free(th->wc[i]);
        if (th->wc_charged)
            engine_wc_charge(th->e, &th->wc_charged[i], 0);
    }
    free(th->wc);
    free(th->wc_charged);
    th->wc_charged = NULL;
    th->wc = NULL;
    th->n_wc = 0;
}

void engine_circuits_destroy(cuzk_engine *e) {
    engine_circuit *c = e->circuits;
    while (c) {
        engine_circuit *next = c->next;
        cuzk_wc_circuit_free(c->wc);
        engine_wc_charge(e, &c->wc_charged, 0);
        free(c->path);
        free(c);
        c = next;
    }
    e->circuits = NULL;
    free(e->wc_cache_dir);
    e->wc_cache_dir = NULL;
}

cuzk_status cuzk_engine_circuit_evict(cuzk_engine *e, const char *wasm_path, cuzk_error *err) {
    char *rp = wasm_path ? realpath(wasm_path, NULL) : NULL;
    const char *path = rp ? rp : wasm_path ? wasm_path : "";
    pthread_mutex_lock(&e->circ_lock);
    engine_circuit *c = find_locked(e, path);
    int st = c ? atomic_load(&c->state) : CIRC_NEW;
    int busy = c && (c->holders || st == CIRC_QUEUED || st == CIRC_LOADING);
    if (c && !busy) {
        engine_circuit **pp = &e->circuits;
        while (*pp != c)
            pp = &(*pp)->next;
        *pp = c->next;
        engine_wc_charge(e, &c->wc_charged, 0);
    }
    pthread_mutex_unlock(&e->circ_lock);
    cuzk_status s = !c     ? cuzk_fail(err, CUZK_ENOTFOUND, "no circuit %s", path)
                    : busy ? cuzk_fail(err, CUZK_EBUSY, "circuit %s is in use", path)
                           : CUZK_OK;
    free(rp);
    if (s != CUZK_OK)
        return s;
    engine_log(e, CUZK_LOG_INFO, "circuit %s unloaded: room for another, nothing used it",
               engine_path_base(c->path));
    cuzk_wc_circuit_free(c->wc); /* the entry's reference: its look-up worker goes */
    free(c->path);
    free(c);
    return CUZK_OK;
}

void cuzk_engine_circuits_stop(cuzk_engine *e) {
    if (atomic_exchange(&e->circ_stop_all, 1))
        return;
    unsigned loading = 0;
    pthread_mutex_lock(&e->circ_lock);
    for (engine_circuit *c = e->circuits; c; c = c->next)
        loading += atomic_load(&c->state) == CIRC_LOADING;
    pthread_mutex_unlock(&e->circ_lock);
    engine_log(e, CUZK_LOG_INFO,
               "circuits: stopping: %u load(s) or compile(s) in progress and every look-up "
               "ended, their compilers and workers killed", loading);
}
