/*
 * Circuits known to the daemon (server.h, "circuit.c").
 *
 * A job may carry circom inputs instead of witnesses; the witness is then
 * computed by the engine with the circuit's witness calculator (the .wasm
 * that circom writes, compiled to native code once per machine and cached,
 * witness/wc.h).  The daemon checks inputs against the circuit before
 * accepting a job (a member that names no input signal, too many or too
 * few values, a circuit of the other curve or size are answered 400
 * instead of becoming a failed job), with the engine's own loaded circuit
 * (cuzk_engine_circuit_get): one object, one look-up worker, charged to
 * the engine's budget.  The daemon never loads a circuit of its own.
 *
 * Entries: one per circuit the daemon knows (counted against
 * max_circuits), and one per key a circuit is registered with.  A circuit
 * that fails to load or that the engine refuses for a key takes its entry
 * back (the engine drops its side): a refused circuit leaves nothing and
 * counts for nothing.  A circuit that loaded but that nothing uses any
 * more (a submit's check refused its inputs, its jobs ended) stays loaded
 * for later jobs, until a new circuit needs its place: then the least
 * recently used circuit that no key is bound to and no job, check or load
 * holds is unloaded (cuzk_engine_circuit_evict), so that circuits no
 * client uses cannot fill max_circuits.  Loading may compile for a
 * minute: it never runs under circuits_lock.
 *
 * Must not: keep a reference to a loaded circuit (the engine owns it);
 * count a circuit before max_circuits allows it; evict an entry a request
 * is loading or checking with (|users|).
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/log.h"
#include "server/server.h"
#include "cuzk_tools.h"

struct cuzkd_circuit {
    char wasm[PATH_MAX];
    char key_id[CUZK_ID_MAX + 1]; /* "": the circuit itself (counted); else a key's */
    unsigned users;               /* requests between admit() and release() */
    int tried;                    /* the engine said in use (one eviction pass) */
    uint64_t used_ns;             /* last admitted: the least recent is evicted first */
    cuzkd_circuit *next;
};

void cuzkd_circuits_init(cuzkd_server *srv) {
    pthread_mutex_init(&srv->circuits_lock, NULL);
    srv->circuits = NULL;
}

void cuzkd_circuits_free(cuzkd_server *srv) {
    cuzkd_circuit *e = srv->circuits;
    while (e) {
        cuzkd_circuit *next = e->next;
        free(e);
        e = next;
    }
    srv->circuits = NULL;
    pthread_mutex_destroy(&srv->circuits_lock);
}

/* The entry of |wasm| with key |key_id| ("" the circuit's own); NULL if
 * none (circuits_lock held). */
static cuzkd_circuit *find_locked(cuzkd_server *srv, const char *wasm, const char *key_id) {
    for (cuzkd_circuit *e = srv->circuits; e; e = e->next)
        if (!strcmp(e->wasm, wasm) && !strcmp(e->key_id, key_id))
            return e;
    return NULL;
}

unsigned cuzkd_circuits_known(cuzkd_server *srv) {
    unsigned n = 0;
    pthread_mutex_lock(&srv->circuits_lock);
    for (cuzkd_circuit *e = srv->circuits; e; e = e->next)
        n += !e->key_id[0];
    pthread_mutex_unlock(&srv->circuits_lock);
    return n;
}

/* Unload the least recently used circuit that nothing uses, for room;
 * 1 if one went (circuits_lock held; the engine's lock is taken inside,
 * never the other way round). */
static int evict_one_locked(cuzkd_server *srv) {
    for (;;) {
        cuzkd_circuit *old = NULL, **old_pp = NULL;
        for (cuzkd_circuit **pp = &srv->circuits; *pp; pp = &(*pp)->next) {
            cuzkd_circuit *x = *pp;
            if (!x->key_id[0] && !x->users && !x->tried &&
                (!old || x->used_ns < old->used_ns))
                old = x, old_pp = pp;
        }
        if (!old)
            return 0;
        cuzk_error err = {0};
        cuzk_status s = cuzk_engine_circuit_evict(srv->engine, old->wasm, &err);
        if (s == CUZK_OK || s == CUZK_ENOTFOUND) {
            LOG_INFO("circuits", "circuit %s unloaded to make room (max_circuits): no key, job "
                                 "or check used it", old->wasm);
            *old_pp = old->next;
            free(old);
            return 1;
        }
        old->tried = 1; /* in use: this pass does not ask again */
    }
}

/* Count circuit |wasm|, by its real path (into |real|), as known, unless
 * it is already or max_circuits says no even after an unused circuit is
 * unloaded.  Out: |*mine| the circuit's entry, held (|users|) until
 * release(); |*made| whether it was made now (the caller removes it when
 * the circuit turns out to be refused). */
static cuzk_status admit(cuzkd_server *srv, const char *wasm, char real[PATH_MAX],
                         cuzkd_circuit **mine, int *made, cuzk_error *err) {
    unsigned max = srv->cfg && srv->cfg->max_circuits ? srv->cfg->max_circuits : 64, n = 0;
    *mine = NULL;
    *made = 0;
    if (!realpath(wasm, real))
        return cuzk_fail(err, CUZK_ENOTFOUND, "circuit %s: no such file", wasm);
    cuzkd_circuit *e = calloc(1, sizeof *e);
    pthread_mutex_lock(&srv->circuits_lock);
    cuzkd_circuit *known = find_locked(srv, real, "");
    for (cuzkd_circuit *x = srv->circuits; x; x = x->next)
        n += !x->key_id[0];
    if (!known && n >= max && evict_one_locked(srv))
        n--;
    for (cuzkd_circuit *x = srv->circuits; x; x = x->next)
        x->tried = 0; /* evict_one_locked's marks */
    if (known) {
        *mine = known;
    } else if (n < max && e) {
        snprintf(e->wasm, sizeof e->wasm, "%s", real);
        e->next = srv->circuits;
        srv->circuits = e;
        *mine = e;
        *made = 1;
        e = NULL;
    }
    if (*mine) {
        (*mine)->users++;
        (*mine)->used_ns = cuzk_now_ns();
    }
    pthread_mutex_unlock(&srv->circuits_lock);
    free(e);
    if (*mine)
        return CUZK_OK;
    if (n >= max) /* refused before anything is loaded: a refused circuit leaves nothing */
        return cuzk_fail(err, CUZK_EBUSY,
                         "circuit %s: the daemon has %u circuits loaded and every one is in use "
                         "by a key, a job or a check (max_circuits)", wasm, n);
    return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
}

/* The end of admit()'s hold; a circuit made for this request and refused
 * takes its entry back. */
static void release(cuzkd_server *srv, cuzkd_circuit *mine, int made, int refused) {
    pthread_mutex_lock(&srv->circuits_lock);
    mine->users--;
    int drop = made && refused;
    for (cuzkd_circuit **pp = &srv->circuits; drop && *pp; pp = &(*pp)->next)
        if (*pp == mine) {
            *pp = mine->next;
            break;
        }
    pthread_mutex_unlock(&srv->circuits_lock);
    if (drop)
        free(mine);
}

/* A load in progress, for /v1/status: the slot taken, or -1 (table full:
 * the load goes on unseen). */
static int loading_begin(cuzkd_server *srv, const char *real) {
    int slot = -1;
    pthread_mutex_lock(&srv->circuits_lock);
    for (int i = 0; i < CUZKD_LOADING_SHOWN && slot < 0; i++)
        if (!srv->loading[i].since_ns) {
            snprintf(srv->loading[i].wasm, sizeof srv->loading[i].wasm, "%s", real);
            srv->loading[i].since_ns = cuzk_now_ns();
            slot = i;
        }
    pthread_mutex_unlock(&srv->circuits_lock);
    return slot;
}

static void loading_end(cuzkd_server *srv, int slot) {
    if (slot < 0)
        return;
    pthread_mutex_lock(&srv->circuits_lock);
    srv->loading[slot].since_ns = 0;
    pthread_mutex_unlock(&srv->circuits_lock);
}

json_t *cuzkd_circuits_loading_json(cuzkd_server *srv) {
    json_t *a = json_array();
    uint64_t now = cuzk_now_ns();
    pthread_mutex_lock(&srv->circuits_lock);
    for (int i = 0; a && i < CUZKD_LOADING_SHOWN; i++)
        if (srv->loading[i].since_ns)
            json_array_append_new(a, json_pack("{s:s, s:f}", "wasm", srv->loading[i].wasm,
                                                "seconds",
                                                (now - srv->loading[i].since_ns) / 1e9));
    pthread_mutex_unlock(&srv->circuits_lock);
    return a;
}

cuzk_status cuzkd_circuit_get(cuzkd_server *srv, const char *wasm, const cuzk_wc_circuit **out,
                              cuzkd_circuit **held, cuzk_error *err) {
    char real[PATH_MAX];
    *out = NULL;
    *held = NULL;
    cuzkd_circuit *mine;
    int made;
    cuzk_status s = admit(srv, wasm, real, &mine, &made, err);
    if (s != CUZK_OK)
        return s;
    /* The engine's own copy: the one its synthesis computes witnesses with. */
    cuzk_wc_circuit *c;
    int slot = loading_begin(srv, real);
    s = cuzk_engine_circuit_get(srv->engine, real, &c, err);
    loading_end(srv, slot);
    if (s != CUZK_OK) {
        release(srv, mine, made, 1);
        return s;
    }
    *out = c;
    *held = mine; /* admit()'s hold, until cuzkd_circuit_put */
    return CUZK_OK;
}

void cuzkd_circuit_put(cuzkd_server *srv, const cuzk_wc_circuit *c, cuzkd_circuit *held) {
    cuzk_engine_circuit_put(srv->engine, (cuzk_wc_circuit *)c);
    if (held)
        release(srv, held, 0, 0);
}

cuzk_status cuzkd_circuit_register(cuzkd_server *srv, const char *key_id, const char *wasm,
                                   cuzk_error *err) {
    char real[PATH_MAX];
    cuzkd_circuit *mine;
    int made;
    cuzk_status s = admit(srv, wasm, real, &mine, &made, err);
    if (s != CUZK_OK)
        return s;
    /* The engine loads it (the witness layer's message on a bad circuit)
     * and checks it against the key; a circuit it refuses is dropped there
     * and here alike. */
    int slot = loading_begin(srv, real);
    s = cuzk_engine_circuit_register(srv->engine, key_id, real, err);
    loading_end(srv, slot);
    release(srv, mine, made, s != CUZK_OK);
    if (s != CUZK_OK)
        return s;
    cuzkd_circuit *e = calloc(1, sizeof *e);
    if (!e)
        return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    snprintf(e->wasm, sizeof e->wasm, "%s", real);
    snprintf(e->key_id, sizeof e->key_id, "%s", key_id);
    pthread_mutex_lock(&srv->circuits_lock);
    if (!find_locked(srv, real, key_id)) {
        e->next = srv->circuits;
        srv->circuits = e;
        e = NULL;
    }
    pthread_mutex_unlock(&srv->circuits_lock);
    free(e);
    return CUZK_OK;
}

int cuzkd_circuit_of_key(cuzkd_server *srv, const char *key_id, char *out, size_t n) {
    int found = 0;
    pthread_mutex_lock(&srv->circuits_lock);
    for (cuzkd_circuit *e = srv->circuits; e && !found; e = e->next)
        if (e->key_id[0] && !strcmp(e->key_id, key_id)) {
            snprintf(out, n, "%s", e->wasm);
            found = 1;
        }
    pthread_mutex_unlock(&srv->circuits_lock);
    return found;
}
