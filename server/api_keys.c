/*
 * The key endpoints (docs/API.md "Keys"): list, get, import (register or
 * load, optionally with the key's circuit), preload, evict; and cuzkd_key_ready, which the submit path uses
 * to learn a key's curve and size before checking witnesses.
 *
 * Loading a key can take seconds to minutes; it happens on the requesting
 * connection's own thread (cuzk_engine_key_preload waits for the engine's
 * housekeeper), so other clients are not held up.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http.h"
#include "server/log.h"

json_t *cuzkd_key_json(cuzkd_server *srv, const cuzk_key_info *k) {
    char wasm[4096] = "";
    cuzkd_circuit_of_key(srv, k->id, wasm, sizeof wasm);
    json_t *j = json_pack("{s:o, s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:o}", "id",
                     jtext(k->id), "path", jtext(k->path), "tier", cuzk_key_tier_name(k->tier),
                     "curve", cuzk_curve_snarkjs_name(k->curve), "log_n", (json_int_t)k->log_n,
                     "n_vars", (json_int_t)k->n_vars, "mem_bytes", (json_int_t)k->mem_bytes,
                     "in_use", (json_int_t)k->in_use, "proofs", (json_int_t)k->proofs, "failures",
                     (json_int_t)k->failures, "loading", k->loading, "load_error",
                     jtext(k->load_status == CUZK_OK ? "" : k->load_msg));
    if (j) {
        json_object_set_new(j, "circuit", jtext(wasm));
        json_object_set_new(j, "tier_why", jtext(k->tier_why));
    }
    json_t *names = json_array();
    pthread_mutex_lock(&srv->circuits_lock);
    for (cuzkd_alias *a = srv->aliases; a; a = a->next)
        if (!strcmp(a->target, k->id))
            json_array_append_new(names, jtext(a->id));
    pthread_mutex_unlock(&srv->circuits_lock);
    if (j)
        json_object_set_new(j, "aliases", names);
    else
        json_decref(names);
    return j;
}

/* Every key's info (malloc'd, |*n| entries); NULL if there is none. */
static cuzk_key_info *all_keys(cuzk_engine *e, size_t *n) {
    /* Asking twice with some slack sees every key unless many are added in
     * between (then the newest are left out, which a listing may do). */
    size_t want = cuzk_engine_keys(e, NULL, 0) + 8;
    cuzk_key_info *k = calloc(want, sizeof *k);
    if (!k) {
        *n = 0;
        return NULL;
    }
    size_t got = cuzk_engine_keys(e, k, want);
    *n = got < want ? got : want;
    return k;
}

void cuzkd_key_unalias(cuzkd_server *srv, const char *id, char *out) {
    snprintf(out, CUZK_ID_MAX + 1, "%s", id);
    pthread_mutex_lock(&srv->circuits_lock);
    for (cuzkd_alias *a = srv->aliases; a; a = a->next)
        if (!strcmp(a->id, id)) {
            snprintf(out, CUZK_ID_MAX + 1, "%s", a->target);
            break;
        }
    pthread_mutex_unlock(&srv->circuits_lock);
}

void cuzkd_aliases_free(cuzkd_server *srv) {
    while (srv->aliases) {
        cuzkd_alias *a = srv->aliases;
        srv->aliases = a->next;
        free(a);
    }
}

/* Record |id| as another name of engine key |target|: 1, or 0 when |id|
 * already names something else. */
static int alias_add(cuzkd_server *srv, const char *id, const char *target) {
    int ok = 1;
    pthread_mutex_lock(&srv->circuits_lock);
    cuzkd_alias *a = srv->aliases;
    while (a && strcmp(a->id, id))
        a = a->next;
    if (a)
        ok = !strcmp(a->target, target);
    else if ((a = calloc(1, sizeof *a))) {
        snprintf(a->id, sizeof a->id, "%s", id);
        snprintf(a->target, sizeof a->target, "%s", target);
        a->next = srv->aliases;
        srv->aliases = a;
    } else
        ok = 0;
    pthread_mutex_unlock(&srv->circuits_lock);
    return ok;
}

/* Key with id |id| (or, if |path| is not NULL, with that real path). */
static int key_lookup(cuzkd_server *srv, const char *id, const char *path, cuzk_key_info *out) {
    char real_id[CUZK_ID_MAX + 1];
    if (id) {
        cuzkd_key_unalias(srv, id, real_id);
        id = real_id;
    }
    size_t n;
    cuzk_key_info *k = all_keys(srv->engine, &n);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        if ((id && !strcmp(k[i].id, id)) || (path && !strcmp(k[i].path, path))) {
            *out = k[i];
            found = 1;
        }
    free(k);
    return found;
}

/* A key whose load failed gives its table entry back (max_keys counts the
 * entries), so files that only start like a .zkey cannot fill the table.
 * The key is |id| (NULL: the one registered for the file |path|).  The
 * engine keeps it while anything refers to it; the sweep retries. */
static void forget_failed(cuzkd_server *srv, const char *id, const char *path) {
    cuzk_key_info k;
    char *rp = path ? realpath(path, NULL) : NULL;
    int found = (id || rp) && key_lookup(srv, id, id ? NULL : rp, &k);
    free(rp);
    cuzk_error err = {0};
    if (found && k.load_status != CUZK_OK && !k.loading &&
        cuzk_engine_key_forget(srv->engine, k.id, &err) == CUZK_OK)
        LOG_INFO("keys", "key %s removed from the key table: its load failed", k.id);
}

cuzk_status cuzkd_key_ready(cuzkd_server *srv, const char *ref, cuzk_key_info *info,
                            cuzk_error *err) {
    /* A few rounds: a key may be evicted between its load and the look at
     * its info, but its curve and size stay known once it has loaded. */
    for (int round = 0; round < 3; round++) {
        int found = key_lookup(srv, ref, NULL, info);
        if (!found && ref[0] == '/') {
            char *rp = realpath(ref, NULL);
            found = rp && key_lookup(srv, NULL, rp, info);
            free(rp);
        }
        cuzk_status s;
        if (!found) {
            if (ref[0] != '/')
                return cuzk_fail(err, CUZK_ENOTFOUND, "unknown key '%s'", ref);
            /* The engine keeps every path it registers: only key files
             * get there (paths.c). */
            if ((s = cuzkd_key_file_check(ref, err)) != CUZK_OK)
                return s;
            if (cuzk_engine_keys(srv->engine, NULL, 0) >= srv->cfg->max_keys)
                return cuzk_fail(err, CUZK_EBUSY,
                                 "the daemon knows %u keys already (max_keys): name a key it "
                                 "knows, or ask its operator",
                                 srv->cfg->max_keys);
            s = cuzk_engine_key_preload(srv->engine, NULL, ref, err);
            if (s != CUZK_OK)
                forget_failed(srv, NULL, ref);
        } else if (info->curve != CUZK_CURVE_NONE && info->n_vars) {
            return CUZK_OK;
        } else {
            s = cuzk_engine_key_preload(srv->engine, info->id, info->path, err);
        }
        if (s != CUZK_OK)
            return s;
    }
    return cuzk_fail(err, CUZK_EINTERNAL, "key '%s' loaded but its size is not known", ref);
}

void cuzkd_keys_sweep(cuzkd_server *srv) {
    uint64_t idle = (uint64_t)srv->cfg->key_idle_s * 1000000000ULL, now = cuzk_now_ns();
    size_t n;
    cuzk_key_info *k = all_keys(srv->engine, &n);
    /* Failed keys named by path that something still held when their load
     * failed (the engine refuses while anything refers to them). */
    for (size_t i = 0; i < n; i++) {
        cuzk_error err = {0};
        if (strchr(k[i].id, '/') && k[i].load_status != CUZK_OK && !k[i].loading &&
            !k[i].in_use && cuzk_engine_key_forget(srv->engine, k[i].id, &err) == CUZK_OK)
            LOG_INFO("keys", "key %s removed from the key table: its load failed", k[i].id);
    }
    for (size_t i = 0; i < n && idle; i++) {
        /* Ids a client chose never hold '/': this one was named by path. */
        if (!strchr(k[i].id, '/') || k[i].tier == CUZK_TIER_DISK || k[i].loading ||
            k[i].in_use || !k[i].last_used_ns || now - k[i].last_used_ns < idle)
            continue;
        cuzk_error err = {0};
        if (cuzk_engine_key_evict(srv->engine, k[i].id, &err) == CUZK_OK)
            LOG_INFO("keys", "key %s evicted: named by path and unused for %.0f s (key_idle_s)",
                     k[i].id, (now - k[i].last_used_ns) / 1e9);
    }
    free(k);
}

/* The key named by the path, or 0 after replying 404. */
static int path_key(cuzkd_request *r, cuzk_key_info *k, enum MHD_Result *reply) {
    if (key_lookup(r->srv, r->param, NULL, k))
        return 1;
    *reply = http_error(r, 404, "ENOTFOUND", "no key with id '%s'", r->param);
    return 0;
}

/* Reply with the current info of key |id|. */
static enum MHD_Result reply_key(cuzkd_request *r, const char *id) {
    cuzk_key_info k;
    if (!key_lookup(r->srv, id, NULL, &k))
        return http_error(r, 404, "ENOTFOUND", "no key with id '%s'", id);
    return http_json(r, 200, cuzkd_key_json(r->srv, &k));
}

enum MHD_Result api_keys_list(cuzkd_request *r) {
    size_t n;
    cuzk_key_info *k = all_keys(r->srv->engine, &n);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, cuzkd_key_json(r->srv, &k[i]));
    free(k);
    return http_json(r, 200, json_pack("{s:o}", "keys", a));
}

enum MHD_Result api_keys_get(cuzkd_request *r) {
    cuzk_key_info k;
    enum MHD_Result reply = MHD_NO;
    if (!path_key(r, &k, &reply))
        return reply;
    return http_json(r, 200, cuzkd_key_json(r->srv, &k));
}


/* Who may bind a circuit to a key (docs/API.md, "Circuits and keys"): the
 * circuit decides what every job of the key computes, so a key the
 * operator configured gets its circuit only from the configuration, and a
 * client binds one only in the request that first makes a key known; a
 * key that exists keeps what it has (asking again for the same circuit is
 * a no-op).  Returns 1 when allowed; else 0 with the refusal in |reply|. */
static int circuit_binding_allowed(cuzkd_request *r, const char *key_id, int existed,
                                   const char *wasm, enum MHD_Result *reply) {
    const cuzkd_config *c = r->srv->cfg;
    for (unsigned i = 0; i < c->n_preload; i++)
        if (!strcmp(c->preload[i].id, key_id)) {
            *reply = http_error(r, 403, "forbidden",
                              "key %s is configured by the operator: its circuit comes only "
                              "from the daemon's configuration (keys = id=key:circuit)",
                                key_id);
            return 0;
        }
    if (!existed)
        return 1;
    char have[PATH_MAX], want[PATH_MAX];
    if (cuzkd_circuit_of_key(r->srv, key_id, have, sizeof have) && realpath(wasm, want) &&
        !strcmp(have, want))
        return 1;
    *reply = http_error(r, 409, "EMISMATCH",
                      "key %s exists already: a circuit is bound to a key only when it is "
                      "first imported, so that no client changes what other clients' jobs "
                      "compute; import the key under a new id with its circuit",
                      key_id);
    return 0;
}

enum MHD_Result api_keys_import(cuzkd_request *r) {
    enum MHD_Result reply = MHD_NO;
    json_t *j = http_body_json(r, &reply);
    if (!j)
        return reply;
    json_t *id = json_object_get(j, "id"), *path = json_object_get(j, "path");
    json_t *pre = json_object_get(j, "preload"), *circ = json_object_get(j, "circuit");
    const char *bad = NULL;
    if (!json_is_string(id) || !http_valid_id(json_string_value(id)))
        bad = "\"id\" must be 1..127 printable bytes without spaces or / ? # %";
    else if (!json_is_string(path) || json_string_value(path)[0] != '/')
        bad = "\"path\" must be the absolute path of a .zkey";
    else if (pre && !json_is_boolean(pre))
        bad = "\"preload\" must be true or false";
    else if (circ && (!json_is_string(circ) || json_string_value(circ)[0] != '/'))
        bad = "\"circuit\" must be the absolute path of a circom .wasm";
    if (bad) {
        json_decref(j);
        return http_error(r, 400, "EINVAL", "%s", bad);
    }
    if (!cuzkd_path_allowed(r, json_string_value(path), "key", &reply) ||
        (circ && !cuzkd_path_allowed(r, json_string_value(circ), "circuit", &reply))) {
        json_decref(j);
        return reply;
    }
    cuzk_error ferr = {0};
    cuzk_status fs = cuzkd_key_file_check(json_string_value(path), &ferr);
    if (fs != CUZK_OK) {
        json_decref(j);
        return http_error_status(r, fs, ferr.msg);
    }
    char key_id[CUZK_ID_MAX + 1];
    snprintf(key_id, sizeof key_id, "%s", json_string_value(id));

    cuzk_error err = {0};
    int load = !pre || json_is_true(pre);
    /* A file the engine already knows under another id (first used by its
     * path): the new id becomes another name of that key. */
    cuzk_key_info known, same;
    char *rp = realpath(json_string_value(path), NULL);
    int have = rp && key_lookup(r->srv, NULL, rp, &known) && strcmp(known.id, key_id) &&
               !key_lookup(r->srv, key_id, NULL, &same);
    free(rp);
    cuzk_key_info existing;
    int existed = have || key_lookup(r->srv, key_id, NULL, &existing);
    if (circ) {
        if (!circuit_binding_allowed(r, have ? known.id : key_id, existed,
                                     json_string_value(circ), &reply)) {
            json_decref(j);
            return reply;
        }
    }
    if (!existed && cuzk_engine_keys(r->srv->engine, NULL, 0) >= r->srv->cfg->max_keys) {
        json_decref(j);
        return http_error(r, 503, "EBUSY", "the daemon knows %u keys already (max_keys)",
                          r->srv->cfg->max_keys);
    }
    if (have) {
        if (!alias_add(r->srv, key_id, known.id)) {
            json_decref(j);
            return http_error(r, 409, "EMISMATCH", "key id '%s' already names another key",
                              key_id);
        }
        LOG_INFO("keys", "key %s: another name of key %s (%s), by client %s", key_id, known.id,
                 known.path, r->client);
        snprintf(key_id, sizeof key_id, "%s", known.id);
    }
    uint64_t t0 = cuzk_now_ns();
    cuzk_status s =
        load ? cuzk_engine_key_preload(r->srv->engine, key_id, json_string_value(path), &err)
             : cuzk_engine_key_register(r->srv->engine, key_id, json_string_value(path), &err);
    if (s == CUZK_OK)
        LOG_INFO("keys", "key %s %s from %s by client %s (%.1f ms)", key_id,
                 load ? "loaded" : "registered", json_string_value(path), r->client,
                 (cuzk_now_ns() - t0) / 1e6);
    if (s == CUZK_OK && circ) {
        /* The first registration of a circuit on a machine compiles it:
         * this request waits for that, on its own connection thread. */
        t0 = cuzk_now_ns();
        s = cuzkd_circuit_register(r->srv, key_id, json_string_value(circ), &err);
        if (s == CUZK_OK)
            LOG_INFO("keys", "key %s: circuit %s registered by client %s (%.1f ms)", key_id,
                     json_string_value(circ), r->client, (cuzk_now_ns() - t0) / 1e6);
    }
    json_decref(j);
    if (s != CUZK_OK && load && !existed)
        forget_failed(r->srv, key_id, NULL);
    if (s != CUZK_OK)
        return http_error_status(r, s, err.msg);
    return reply_key(r, key_id);
}

enum MHD_Result api_keys_preload(cuzkd_request *r) {
    cuzk_key_info k;
    enum MHD_Result reply = MHD_NO;
    if (!path_key(r, &k, &reply))
        return reply;
    cuzk_error err = {0};
    cuzk_status s = cuzk_engine_key_preload(r->srv->engine, k.id, k.path, &err);
    if (s != CUZK_OK)
        return http_error_status(r, s, err.msg);
    return reply_key(r, k.id);
}

enum MHD_Result api_keys_evict(cuzkd_request *r) {
    cuzk_key_info k;
    enum MHD_Result reply = MHD_NO;
    if (!path_key(r, &k, &reply))
        return reply;
    cuzk_error err = {0};
    cuzk_status s = cuzk_engine_key_evict(r->srv->engine, k.id, &err);
    if (s == CUZK_EBUSY)
        return http_error(r, 409, "EBUSY", "%s", err.msg);
    if (s != CUZK_OK)
        return http_error_status(r, s, err.msg);
    return reply_key(r, k.id);
}
