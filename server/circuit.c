/*
 * Circuits known to the daemon (server.h, "circuit.c").
 *
 * A job may carry circom inputs instead of witnesses; the witness is then
 * computed by the engine with the circuit's witness calculator (the .wasm
 * that circom writes, compiled to native code once per machine and cached,
 * witness/wc.h).  The daemon loads each circuit it sees too, to check
 * inputs before accepting a job: a member that names no input signal, too
 * many or too few values, a circuit of the other curve or size are
 * answered 400 instead of becoming a failed job.
 *
 * Entries: one per circuit path (loaded lazily), and the key ids it is
 * registered with.  The list only grows; entries are freed at exit.
 * Loading may compile for a minute: it never runs under circuits_lock.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/log.h"
#include "server/server.h"
#include "cuzk_tools.h"

struct cuzkd_circuit {
    char wasm[PATH_MAX];
    char key_id[CUZK_ID_MAX + 1]; /* "" for a circuit only named by jobs */
    cuzk_wc_circuit *c;           /* NULL until first needed */
    struct cuzkd_circuit *next;
};

void cuzkd_circuits_init(cuzkd_server *srv) {
    pthread_mutex_init(&srv->circuits_lock, NULL);
    srv->circuits = NULL;
}

void cuzkd_circuits_free(cuzkd_server *srv) {
    cuzkd_circuit *e = srv->circuits;
    while (e) {
        cuzkd_circuit *next = e->next;
        cuzk_wc_circuit_free(e->c);
        free(e);
        e = next;
    }
    srv->circuits = NULL;
    pthread_mutex_destroy(&srv->circuits_lock);
}

static void compile_progress(void *ctx, const char *line) {
    (void)ctx;
    LOG_INFO("circuit", "%s", line);
}

/* The witness calculator options of the daemon's configuration. */
void cuzkd_wc_opts(const cuzkd_server *srv, cuzk_wc_opts *o) {
    memset(o, 0, sizeof *o);
    o->progress = compile_progress;
    const cuzkd_config *c = srv->cfg;
    if (!c)
        return;
    o->cache_dir = *c->wc_cache_dir ? c->wc_cache_dir : NULL;
    o->memory_bytes = c->wc_memory;
    o->calc_s = c->wc_timeout_s;
    o->log_lines = c->wc_log_lines;
    o->max_wasm_bytes = c->wc_max_wasm_bytes;
    o->compile_s = c->wc_compile_timeout_s;
    o->compile_memory_bytes = c->wc_compile_memory;
    o->max_compilers = c->wc_compilers;
    o->cache_max_bytes = c->wc_cache_max_bytes;
}

/* Circuits loaded (under circuits_lock). */
static unsigned loaded_count_locked(cuzkd_server *srv) {
    unsigned n = 0;
    for (cuzkd_circuit *e = srv->circuits; e; e = e->next)
        n += e->c != NULL;
    return n;
}

/* The loaded circuit of |wasm| held by any entry; NULL if none is loaded. */
static cuzk_wc_circuit *loaded_locked(cuzkd_server *srv, const char *wasm) {
    for (cuzkd_circuit *e = srv->circuits; e; e = e->next)
        if (e->c && !strcmp(e->wasm, wasm))
            return e->c;
    return NULL;
}

cuzk_status cuzkd_circuit_get(cuzkd_server *srv, const char *wasm, const cuzk_wc_circuit **out,
                              cuzk_error *err) {
    char real[PATH_MAX];
    *out = NULL;
    if (!realpath(wasm, real))
        return cuzk_fail(err, CUZK_ENOTFOUND, "circuit %s: no such file", wasm);
    unsigned max = srv->cfg && srv->cfg->max_circuits ? srv->cfg->max_circuits : 64;
    pthread_mutex_lock(&srv->circuits_lock);
    cuzk_wc_circuit *c = loaded_locked(srv, real);
    unsigned n = loaded_count_locked(srv);
    pthread_mutex_unlock(&srv->circuits_lock);
    if (c) {
        *out = c;
        return CUZK_OK;
    }
    /* Refused before anything is loaded: a refused circuit leaves nothing. */
    if (n >= max)
        return cuzk_fail(err, CUZK_EBUSY,
                         "circuit %s: the daemon knows %u circuits already (max_circuits)", wasm,
                         n);
    /* Two first uses may both load; the loser frees its copy (the compile
     * itself happens once: the witness layer serialises it by a lock file). */
    cuzk_wc_opts o;
    cuzkd_wc_opts(srv, &o);
    uint64_t t0 = cuzk_now_ns();
    cuzk_status s = cuzk_wc_circuit_load(&c, real, &o, err);
    if (s != CUZK_OK)
        return s;
    cuzkd_circuit *e = calloc(1, sizeof *e);
    pthread_mutex_lock(&srv->circuits_lock);
    cuzk_wc_circuit *other = loaded_locked(srv, real);
    int full = !other && loaded_count_locked(srv) >= max;
    if (!other && !full && e) {
        snprintf(e->wasm, sizeof e->wasm, "%s", real);
        e->c = c;
        e->next = srv->circuits;
        srv->circuits = e;
        e = NULL;
    }
    pthread_mutex_unlock(&srv->circuits_lock);
    if (other || e) {
        free(e);
        cuzk_wc_circuit_free(c);
        if (full)
            return cuzk_fail(err, CUZK_EBUSY,
                             "circuit %s: the daemon knows %u circuits already (max_circuits)",
                             wasm, max);
        if (!other)
            return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
        c = other;
    } else {
        LOG_INFO("circuit", "circuit %s loaded: %s, %u witness values, %u inputs, circom %s%s "
                            "(%.1f ms)",
                 real, cuzk_curve_snarkjs_name(cuzk_wc_circuit_curve(c)),
                 cuzk_wc_circuit_n_witness(c), cuzk_wc_circuit_n_inputs(c),
                 cuzk_wc_circuit_version(c),
                 cuzk_wc_circuit_compile_s(c) > 0 ? ", compiled now" : ", from the cache",
                 (cuzk_now_ns() - t0) / 1e6);
    }
    *out = c;
    return CUZK_OK;
}

cuzk_status cuzkd_circuit_register(cuzkd_server *srv, const char *key_id, const char *wasm,
                                   cuzk_error *err) {
    char real[PATH_MAX];
    if (!realpath(wasm, real))
        return cuzk_fail(err, CUZK_ENOTFOUND, "circuit %s: no such file", wasm);
    /* Loaded here first so that a bad circuit is reported with the witness
     * layer's message before the engine hears of it. */
    const cuzk_wc_circuit *c;
    cuzk_status s = cuzkd_circuit_get(srv, real, &c, err);
    if (s != CUZK_OK)
        return s;
    if ((s = cuzk_engine_circuit_register(srv->engine, key_id, real, err)) != CUZK_OK)
        return s;
    cuzkd_circuit *e = calloc(1, sizeof *e);
    if (!e)
        return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    snprintf(e->wasm, sizeof e->wasm, "%s", real);
    snprintf(e->key_id, sizeof e->key_id, "%s", key_id);
    pthread_mutex_lock(&srv->circuits_lock);
    int known = 0;
    for (cuzkd_circuit *x = srv->circuits; x && !known; x = x->next)
        known = !strcmp(x->key_id, key_id) && !strcmp(x->wasm, real);
    if (!known) {
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
