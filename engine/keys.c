/*
 * Key residency: the engine's proving keys, their tiers, loading and
 * least-recently-used eviction (docs/ENGINE.md), and the housekeeper thread
 * that does the slow parts (reading key files, freeing memory).
 *
 * A key is registered once (by id at preload, or by its real path when a
 * job names a .zkey).  An entry is removed before the engine ends only when
 * its load failed and nothing holds it (cuzk_engine_key_forget): every job
 * that points at a key holds it, as does every caller between resolving
 * it and being done, so a plain pointer to it stays valid meanwhile.  Its memory comes and goes: loading
 * charges the budget, eviction (only when nothing pins the key) releases
 * it.  Tiers: DISK (registered), HOST (loaded), and on a GPU device DEVICE
 * (bases in device memory) or PINNED (bases page-locked in host memory,
 * streamed per MSM), as the device decided from its free memory within
 * its cap (cuzk_device_config.gpu_mem_limit) and logged when the key was
 * prepared.  MMAP (a native key format) is not implemented.
 *
 * Must not: load or free a key while holding keys_lock, or evict a key
 * that has pins (partitions in flight).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/internal.h"
#include "groth16/curve_impl.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/wtns.h"

const char *cuzk_key_tier_name(cuzk_key_tier t) {
    static const char *const names[] = {"disk", NULL, "host", "pinned", "device"};
    return (unsigned)t < 5 && names[t] ? names[t] : "unknown";
}

static engine_key *find_locked(cuzk_engine *e, const char *id, const char *path) {
    for (engine_key *k = e->keys; k; k = k->next)
        if ((id && !strcmp(k->id, id)) || (path && !strcmp(k->path, path)))
            return k;
    return NULL;
}

/* keys_lock held.  A new DISK entry for |path| under |id| (NULL: derived
 * from the path, keeping its end when it is too long to be an id). */
static engine_key *add_locked(cuzk_engine *e, const char *id, const char *path) {
    engine_key *k = calloc(1, sizeof *k);
    char *p = strdup(path);
    if (!k || !p) {
        free(k);
        free(p);
        return NULL;
    }
    size_t n = strlen(path);
    snprintf(k->id, sizeof k->id, "%s", id ? id : n > CUZK_ID_MAX ? path + n - CUZK_ID_MAX : path);
    k->path = p;
    k->state = KEY_DISK;
    k->next = e->keys;
    e->keys = k;
    return k;
}

cuzk_status engine_key_resolve(cuzk_engine *e, engine_key **out, const char *ref,
                               cuzk_error *err) {
    *out = NULL;
    pthread_mutex_lock(&e->keys_lock);
    engine_key *k = find_locked(e, ref, NULL);
    if (k)
        k->holders++;
    pthread_mutex_unlock(&e->keys_lock);
    char *rp = NULL;
    if (!k) {
        /* realpath touches the file system: not under the lock. */
        rp = realpath(ref, NULL);
        if (!rp)
            return cuzk_fail(err, CUZK_ENOTFOUND,
                             "key '%s' is neither a preloaded key id nor a readable file", ref);
        pthread_mutex_lock(&e->keys_lock);
        k = find_locked(e, NULL, rp);
        if (!k)
            k = add_locked(e, NULL, rp);
        if (k)
            k->holders++;
        pthread_mutex_unlock(&e->keys_lock);
        free(rp);
        if (!k)
            return cuzk_fail(err, CUZK_ENOMEM, "no memory for a key entry");
    }
    pthread_mutex_lock(&e->keys_lock);
    if (k->state == KEY_FAILED) /* a new request tries the file again */
        k->state = KEY_DISK;
    pthread_mutex_unlock(&e->keys_lock);
    *out = k;
    return CUZK_OK;
}

void engine_key_hold(cuzk_engine *e, engine_key *k) {
    pthread_mutex_lock(&e->keys_lock);
    k->holders++;
    pthread_mutex_unlock(&e->keys_lock);
}

void engine_key_release(cuzk_engine *e, engine_key *k) {
    pthread_mutex_lock(&e->keys_lock);
    k->holders--;
    pthread_mutex_unlock(&e->keys_lock);
}

void engine_key_request_load_locked(cuzk_engine *e, engine_key *k) {
    if (k->state != KEY_DISK)
        return;
    k->state = KEY_LOAD_QUEUED;
    atomic_fetch_add(&e->loads_pending, 1);
    k->load_next = NULL;
    if (e->load_tail)
        e->load_tail->load_next = k;
    else
        e->load_head = k;
    e->load_tail = k;
    pthread_cond_broadcast(&e->keys_cv);
}

void engine_key_unpin(cuzk_engine *e, engine_key *k) {
    /* The last unpin may be what a waiting load or admission needs. */
    if (atomic_fetch_sub(&k->pins, 1) == 1)
        engine_event_kick(&e->sched_ev);
}

/* keys_lock held: detach |k|'s memory into |key|/|vk| if it may be evicted.
 * Returns the bytes to uncharge, 0 if nothing was taken. */
static uint64_t take_locked(engine_key *k, cuzk_key *key, cuzk_vk *vk) {
    if (k->state != KEY_RESIDENT || atomic_load(&k->pins) != 0)
        return 0;
    *key = k->key;
    *vk = k->vk;
    memset(&k->key, 0, sizeof k->key);
    memset(&k->vk, 0, sizeof k->vk);
    /* The curve stays known (cuzk_key_info promises it after the first
     * load), so callers can check witnesses against an evicted key. */
    k->key.curve = key->curve;
    uint64_t bytes = k->charged;
    k->charged = 0;
    k->state = KEY_DISK;
    return bytes;
}

/* Devices holding copies of a key (GPU memory) drop them before it goes. */
static void release_on_devices(cuzk_engine *e, const cuzk_key *key) {
    for (unsigned i = 0; i < e->n_devices; i++)
        if (e->devices[i].ops->key_release)
            e->devices[i].ops->key_release(&e->devices[i], key);
}

static void free_taken(cuzk_engine *e, cuzk_key *key, cuzk_vk *vk, uint64_t bytes) {
    release_on_devices(e, key);
    cuzk_key_free(key);
    cuzk_vk_clear(vk);
    engine_mem_uncharge(&e->mem, MEM_KEYS, bytes);
}

/* keys_lock held: the key to evict first, or NULL.  Keys no queued job is
 * waiting for go before keys that one is; then least recently used. */
static engine_key *victim_locked(cuzk_engine *e, engine_key *keep) {
    engine_key *best = NULL;
    for (engine_key *k = e->keys; k; k = k->next) {
        if (k == keep || k->state != KEY_RESIDENT || atomic_load(&k->pins) != 0 || k->gen)
            continue;
        if (!best || (k->wanted == 0) > (best->wanted == 0) ||
            ((k->wanted == 0) == (best->wanted == 0) && k->last_used_ns < best->last_used_ns))
            best = k;
    }
    return best;
}

int engine_make_room(cuzk_engine *e, uint64_t need, engine_key *keep) {
    for (;;) {
        uint64_t room = engine_mem_room(&e->mem);
        if (room >= need)
            return 1;
        /* Idle buffers are the cheapest to give up: they are remade only if
         * a key of their size comes back. */
        if (engine_mem_trim(&e->mem, need - room) > 0)
            continue;
        cuzk_key key;
        cuzk_vk vk;
        char id[CUZK_ID_MAX + 1];
        pthread_mutex_lock(&e->keys_lock);
        engine_key *v = victim_locked(e, keep);
        uint64_t bytes = v ? take_locked(v, &key, &vk) : 0;
        if (v)
            memcpy(id, v->id, sizeof id);
        pthread_mutex_unlock(&e->keys_lock);
        if (!bytes)
            return engine_mem_room(&e->mem) >= need;
        free_taken(e, &key, &vk, bytes);
        engine_log(e, CUZK_LOG_INFO, "key %s evicted (least recently used): %.1f MiB released", id,
                   bytes / 1048576.0);
    }
}

/* Allocate and touch the pipeline's buffer sets for |k| now, so that proving
 * with it allocates nothing and takes no page faults.  Best effort: stops
 * where the budget ends. */
static void prefill_buffers(cuzk_engine *e, size_t witness_bytes, size_t abc_bytes) {
    unsigned sets = e->cfg.buffer_sets;
    if (!sets) {
        unsigned workers = 0;
        for (unsigned d = 0; d < e->n_devices; d++)
            workers += e->devices[d].n_workers * e->batch_max;
        sets = e->cfg.synth_workers + e->ready_max + workers;
    }
    engine_buf **held = calloc(2 * (size_t)sets, sizeof *held);
    size_t n = 0;
    if (!held)
        return;
    for (unsigned i = 0; i < sets; i++) {
        if (engine_buf_get(&e->mem, &held[n], witness_bytes, NULL) != CUZK_OK)
            break;
        n++;
        if (!abc_bytes) /* devices that evaluate a, b, c themselves */
            continue;
        if (engine_buf_get(&e->mem, &held[n], abc_bytes, NULL) != CUZK_OK)
            break;
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        memset(held[i]->p, 0, held[i]->bytes); /* fault the pages in now */
        engine_buf_put(&e->mem, held[i]);
    }
    free(held);
}

/* Reserve |est| bytes for a key being loaded, making room or waiting. */
static cuzk_status reserve_for_load(cuzk_engine *e, engine_key *k, uint64_t est,
                                    cuzk_error *err) {
    if (est > e->mem.budget)
        return cuzk_fail(err, CUZK_ENOMEM, "key %s needs up to %llu bytes, the budget is %llu",
                         k->id, (unsigned long long)est, (unsigned long long)e->mem.budget);
    for (;;) {
        if (engine_mem_try_charge(&e->mem, MEM_KEYS, est))
            return CUZK_OK;
        if (engine_make_room(e, est, k))
            continue;
        /* Nothing in flight will return memory, and everything evictable is
         * gone: waiting cannot help. */
        if (atomic_load(&e->in_flight) == 0)
            return cuzk_fail(err, CUZK_ENOMEM,
                             "key %s needs up to %llu bytes; the budget (%llu) is held by "
                             "other keys in use and queued witnesses",
                             k->id, (unsigned long long)est, (unsigned long long)e->mem.budget);
        if (atomic_load(&e->hk_stop))
            return cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down");
        engine_mem_wait(&e->mem, 100 * 1000000ULL);
    }
}

/* A generated key (cuzk_engine_key_generate): the circuit of k->gen, its
 * key in memory, and on the first generation the witness image. */
static cuzk_status generate_one(engine_key *k, cuzk_key *key, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->gen->curve);
    if (!ci)
        return cuzk_fail(err, CUZK_ECURVE, "key %s: no curve to generate", k->id);
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    cuzk_pool *pool = cuzk_pool_create(0, err);
    if (!pool)
        return err ? err->status : CUZK_ENOMEM;
    cuzk_status s = cuzk_synth_circuit(k->gen, &r1cs, &wit, err);
    if (s == CUZK_OK) {
        s = ci->setup->key_generate(key, &r1cs, k->gen->seed, k->gen_timing, pool, err);
        if (s == CUZK_OK && !k->gen_wtns)
            s = cuzk_wtns_write_mem(k->gen->curve, wit, r1cs.n_wires, &k->gen_wtns,
                                    &k->gen_wtns_size, err);
        cuzk_r1cs_free(&r1cs);
    }
    free(wit);
    cuzk_pool_destroy(pool);
    return s;
}

/* A generated key into |key|, |vk|, charged at its exact size (*est). */
static cuzk_status load_generated(cuzk_engine *e, engine_key *k, cuzk_key *key, cuzk_vk *vk,
                                  uint64_t *est, cuzk_error *err) {
    cuzk_status s = generate_one(k, key, err);
    if (s == CUZK_OK)
        s = cuzk_key_vk(key, vk, err);
    if (s == CUZK_OK && !engine_mem_try_charge(&e->mem, MEM_KEYS, key->mem_bytes))
        s = cuzk_fail(err, CUZK_ENOMEM, "key %s: %.1f MiB do not fit the memory budget",
                      k->id, key->mem_bytes / 1048576.0);
    else if (s == CUZK_OK)
        *est = key->mem_bytes;
    return s;
}

/* A key from its file into |key|, |vk|; *est: what is charged for it
 * (also after a failure, which the caller then gives back). */
static cuzk_status load_file(cuzk_engine *e, engine_key *k, cuzk_key *key, cuzk_vk *vk,
                             uint64_t *est, cuzk_error *err) {
    struct stat st;
    if (stat(k->path, &st) != 0)
        return cuzk_fail(err, CUZK_EIO, "key %s: cannot stat %s", k->id, k->path);
    /* An upper bound: the loaded arrays are at most the file's point
     * sections (A, B1, B2 lose their infinity points, for two bitmaps of
     * nVars bits) plus coefficients at 48 instead of 44 bytes each, plus
     * alignment.  The exact size replaces it after loading. */
    uint64_t bound = (uint64_t)st.st_size + (uint64_t)st.st_size / 8 + 4096;
    cuzk_status s = reserve_for_load(e, k, bound, err);
    if (s != CUZK_OK)
        return s;
    *est = bound;
    if ((s = cuzk_key_load(key, k->path, err)) == CUZK_OK)
        s = cuzk_key_vk(key, vk, err);
    if (s == CUZK_OK && key->mem_bytes > bound &&
        !engine_mem_try_charge(&e->mem, MEM_KEYS, key->mem_bytes - bound))
        s = cuzk_fail(err, CUZK_ENOMEM, "key %s is larger than estimated", k->id);
    else if (s == CUZK_OK && key->mem_bytes < bound)
        engine_mem_uncharge(&e->mem, MEM_KEYS, bound - key->mem_bytes);
    return s;
}

/*
 * A device with memory of its own (a GPU) takes its copy of a loaded key
 * now, on this loader thread and before the key is announced, rather than
 * in the first partition's upload step, where it would leave the device
 * idle with work waiting.  Only one: the one with the most free memory;
 * others copy the key when they take one of its partitions (ready_take
 * prefers devices that hold the key, stages.c).  The key is not resident
 * yet, so nothing else uses or evicts it meanwhile; k->key is its final
 * address.
 */
static void key_to_devices(cuzk_engine *e, engine_key *k, const cuzk_key *key) {
    pthread_mutex_lock(&e->keys_lock);
    k->key = *key;
    pthread_mutex_unlock(&e->keys_lock);
    for (unsigned i = 0; i < e->n_devices; i++)
        if (e->devices[i].ops->scratch_prepare)
            e->devices[i].ops->scratch_prepare(&e->devices[i], &k->key);
    engine_device *best = NULL;
    uint64_t best_free = 0;
    for (unsigned i = 0; i < e->n_devices; i++) {
        engine_device *d = &e->devices[i];
        if (!d->ops->key_prepare || d->fallback_only)
            continue;
        uint64_t f = d->ops->free_bytes ? d->ops->free_bytes(d) : 0;
        if (!best || f > best_free)
            best = d, best_free = f;
    }
    if (!best)
        return;
    best->ops->key_prepare(best, &k->key);
    char why[200];
    int t = best->ops->key_tier ? best->ops->key_tier(best, &k->key, why, sizeof why) : -1;
    if (t >= 0)
        engine_log(e, CUZK_LOG_INFO, "key %s on %s: tier %s, %s", k->id, best->name,
                   cuzk_key_tier_name((cuzk_key_tier)t), why);
}

/* The load's outcome |s| announced (the key resident or failed), the
 * scheduler woken, the span and the log line written. */
static void load_publish(cuzk_engine *e, engine_key *k, engine_ring *ring, uint64_t t0,
                         cuzk_status s, const cuzk_key *key, const cuzk_vk *vk,
                         const cuzk_error *err) {
    pthread_mutex_lock(&e->keys_lock);
    k->load_status = s;
    snprintf(k->load_msg, sizeof k->load_msg, "%s", s == CUZK_OK ? "" : err->msg);
    if (s == CUZK_OK) {
        k->key = *key;
        k->vk = *vk;
        k->charged = key->mem_bytes;
        k->log_n = cuzk_key_log_n(key);
        k->images_only = cuzk_key_n_coefs(key) == 0;
        k->witness_bytes = cuzk_key_n_vars(key) * sizeof(cuzk_fr);
        k->abc_bytes = 3 * ((size_t)1 << k->log_n) * sizeof(cuzk_fr);
        k->last_used_ns = cuzk_now_ns();
        k->state = KEY_RESIDENT;
    } else {
        k->state = KEY_FAILED;
    }
    /* Once the state is out, a failed key may be forgotten and freed by
     * whoever waited for it (cuzk_engine_key_forget): nothing below reads
     * |k| after a failure, the log line takes its own copy of the id. */
    char id[sizeof k->id];
    snprintf(id, sizeof id, "%s", k->id);
    pthread_cond_broadcast(&e->keys_cv);
    pthread_mutex_unlock(&e->keys_lock);
    atomic_fetch_sub(&e->loads_pending, 1);
    engine_event_kick(&e->sched_ev);
    uint64_t t1 = cuzk_now_ns();
    engine_ring_span(ring, SPAN_KEYLOAD, t0, t1, 0, 0, -1);
    if (s != CUZK_OK) {
        engine_log(e, CUZK_LOG_ERROR, "key %s: load failed: %s", id, err->msg);
        return;
    }
    engine_log(e, CUZK_LOG_INFO, "key %s loaded: %s 2^%u, %.1f MiB in %.1f ms", k->id,
               cuzk_curve_snarkjs_name(key->curve), k->log_n, key->mem_bytes / 1048576.0,
               (t1 - t0) / 1e6);
    /* A circuit registered before the key was ever loaded is checked
     * now; jobs with inputs for it fail at admission with the same
     * reason. */
    pthread_mutex_lock(&e->keys_lock);
    engine_circuit *c = k->circuit;
    pthread_mutex_unlock(&e->keys_lock);
    cuzk_error why = {0};
    if (c && atomic_load(&c->state) == CIRC_READY &&
        engine_circuit_check(c, k->id, key->curve, cuzk_key_n_vars(key), &why) != CUZK_OK)
        engine_log(e, CUZK_LOG_ERROR, "key %s: its registered %s", k->id, why.msg);
}

/* One key loaded (or generated), handed to the devices and announced. */
static void load_one(cuzk_engine *e, engine_key *k, engine_ring *ring) {
    uint64_t t0 = cuzk_now_ns();
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_vk vk;
    memset(&key, 0, sizeof key);
    memset(&vk, 0, sizeof vk);
    uint64_t est = 0; /* charged to the budget for it */
    cuzk_status s = k->gen ? load_generated(e, k, &key, &vk, &est, &err)
                           : load_file(e, k, &key, &vk, &est, &err);
    if (s != CUZK_OK)
        goto unwind;
    /* Before the key is announced: buffers held here are invisible to the
     * scheduler's room accounting, so it must not see the key yet. */
    size_t abc = 3 * ((size_t)1 << cuzk_key_log_n(&key)) * sizeof(cuzk_fr);
    prefill_buffers(e, cuzk_key_n_vars(&key) * sizeof(cuzk_fr), e->synth_skips_eval ? 0 : abc);
    key_to_devices(e, k, &key);
    load_publish(e, k, ring, t0, s, &key, &vk, &err);
    return;
unwind:
    cuzk_key_free(&key);
    cuzk_vk_clear(&vk);
    engine_mem_uncharge(&e->mem, MEM_KEYS, est);
    load_publish(e, k, ring, t0, s, &key, &vk, &err);
}

void *engine_housekeeper_main(void *arg) {
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->keys_lock);
    while (!atomic_load(&e->hk_stop)) {
        engine_key *k = e->load_head;
        if (!k) {
            pthread_cond_wait(&e->keys_cv, &e->keys_lock);
            continue;
        }
        e->load_head = k->load_next;
        if (!e->load_head)
            e->load_tail = NULL;
        k->state = KEY_LOADING;
        pthread_mutex_unlock(&e->keys_lock);
        load_one(e, k, e->hk_ring);
        pthread_mutex_lock(&e->keys_lock);
    }
    /* Loads never started fail, so that no preload waits forever. */
    for (engine_key *k = e->load_head; k; k = k->load_next) {
        atomic_fetch_sub(&e->loads_pending, 1);
        k->state = KEY_FAILED;
        k->load_status = CUZK_ECANCELLED;
        snprintf(k->load_msg, sizeof k->load_msg, "engine is shutting down");
    }
    e->load_head = e->load_tail = NULL;
    pthread_cond_broadcast(&e->keys_cv);
    pthread_mutex_unlock(&e->keys_lock);
    return NULL;
}

void engine_keys_destroy(cuzk_engine *e) {
    engine_key *k = e->keys;
    while (k) {
        engine_key *next = k->next;
        if (k->state == KEY_RESIDENT) {
            release_on_devices(e, &k->key);
            cuzk_key_free(&k->key);
            cuzk_vk_clear(&k->vk);
            engine_mem_uncharge(&e->mem, MEM_KEYS, k->charged);
        }
        free(k->path);
        free(k->gen);
        free(k->gen_wtns);
        free(k);
        k = next;
    }
    e->keys = NULL;
}

/* Find or add the entry for |path| under |id|.  On CUZK_OK returns with
 * keys_lock held and |*out| set; on failure the lock is not held. */
static cuzk_status register_lock(cuzk_engine *e, engine_key **out, const char *what,
                                 const char *id, const char *path, cuzk_error *err) {
    if (!path || (id && (strlen(id) > CUZK_ID_MAX || !id[0])))
        return cuzk_fail(err, CUZK_EINVAL, "%s: a path and an id of 1..%d bytes are needed", what,
                         CUZK_ID_MAX);
    if (atomic_load(&e->closing))
        return cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down");
    char *rp = realpath(path, NULL); /* file system: not under the lock */
    if (!rp)
        return cuzk_fail(err, CUZK_ENOTFOUND, "%s: cannot open %s", what, path);
    pthread_mutex_lock(&e->keys_lock);
    engine_key *k = id ? find_locked(e, id, NULL) : NULL, *by_path = find_locked(e, NULL, rp);
    cuzk_status s = CUZK_OK;
    if (k && strcmp(k->path, rp))
        s = cuzk_fail(err, CUZK_EMISMATCH, "%s: id %s names %s already", what, k->id, k->path);
    else if (!k && by_path && id)
        s = cuzk_fail(err, CUZK_EMISMATCH, "%s: %s is registered as %s already", what, rp,
                      by_path->id);
    else if (!k && !(k = by_path) && !(k = add_locked(e, id, rp)))
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for a key entry");
    free(rp);
    if (s != CUZK_OK) {
        pthread_mutex_unlock(&e->keys_lock);
        return s;
    }
    *out = k;
    return CUZK_OK;
}

cuzk_status cuzk_engine_key_register(cuzk_engine *e, const char *id, const char *path,
                                     cuzk_error *err) {
    engine_key *k;
    cuzk_status s = register_lock(e, &k, "register", id, path, err);
    if (s == CUZK_OK)
        pthread_mutex_unlock(&e->keys_lock);
    return s;
}

/* keys_lock held (let go while waiting): load |k| unless it is resident
 * and wait for the outcome; the load's status and message. */
static cuzk_status load_and_wait_locked(cuzk_engine *e, engine_key *k, cuzk_error *err) {
    engine_key_request_load_locked(e, k);
    k->holders++; /* the wait lets go of the lock */
    while (k->state == KEY_LOAD_QUEUED || k->state == KEY_LOADING)
        pthread_cond_wait(&e->keys_cv, &e->keys_lock);
    k->holders--;
    cuzk_status s = k->state == KEY_RESIDENT ? CUZK_OK : k->load_status;
    if (s != CUZK_OK)
        cuzk_fail(err, s, "%s", k->load_msg);
    else
        k->last_used_ns = cuzk_now_ns();
    return s;
}

cuzk_status cuzk_engine_key_preload(cuzk_engine *e, const char *id, const char *path,
                                    cuzk_error *err) {
    engine_key *k;
    cuzk_status s = register_lock(e, &k, "preload", id, path, err);
    if (s != CUZK_OK)
        return s;
    k->preloaded = 1;
    if (k->state == KEY_FAILED)
        k->state = KEY_DISK;
    s = load_and_wait_locked(e, k, err);
    pthread_mutex_unlock(&e->keys_lock);
    return s;
}

cuzk_status cuzk_engine_key_generate(cuzk_engine *e, const char *id, const cuzk_synth_params *p,
                                     int timing_key, uint8_t **wtns, size_t *wtns_size,
                                     cuzk_error *err) {
    *wtns = NULL;
    *wtns_size = 0;
    cuzk_error e2;
    if (!id || !id[0] || strlen(id) > CUZK_ID_MAX || !p || cuzk_synth_n_constraints(p, &e2) == 0)
        return cuzk_fail(err, CUZK_EINVAL, "generate: an id of 1..%d bytes and valid generator "
                                           "parameters are needed",
                         CUZK_ID_MAX);
    if (atomic_load(&e->closing))
        return cuzk_fail(err, CUZK_ECANCELLED, "engine is shutting down");
    char path[CUZK_ID_MAX + 16];
    snprintf(path, sizeof path, "(generated) %s", id);
    cuzk_synth_params *gp = malloc(sizeof *gp);
    if (!gp)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a key entry");
    *gp = *p;
    pthread_mutex_lock(&e->keys_lock);
    engine_key *k = NULL;
    cuzk_status s = CUZK_OK;
    if (find_locked(e, id, path))
        s = cuzk_fail(err, CUZK_EMISMATCH, "generate: id %s is taken", id);
    else if (!(k = add_locked(e, id, path)))
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for a key entry");
    if (s != CUZK_OK) {
        pthread_mutex_unlock(&e->keys_lock);
        free(gp);
        return s;
    }
    k->gen = gp;
    k->gen_timing = timing_key != 0;
    k->preloaded = 1;
    if ((s = load_and_wait_locked(e, k, err)) == CUZK_OK) {
        *wtns = k->gen_wtns;
        *wtns_size = k->gen_wtns_size;
        k->gen_wtns = NULL;
    }
    pthread_mutex_unlock(&e->keys_lock);
    return s;
}

cuzk_status cuzk_engine_key_evict(cuzk_engine *e, const char *id, cuzk_error *err) {
    cuzk_key key;
    cuzk_vk vk;
    pthread_mutex_lock(&e->keys_lock);
    engine_key *k = find_locked(e, id, id);
    if (!k) {
        pthread_mutex_unlock(&e->keys_lock);
        return cuzk_fail(err, CUZK_ENOTFOUND, "no key %s", id);
    }
    if (atomic_load(&k->pins) != 0 || k->state == KEY_LOADING || k->state == KEY_LOAD_QUEUED) {
        pthread_mutex_unlock(&e->keys_lock);
        return cuzk_fail(err, CUZK_EBUSY, "key %s is in use", id);
    }
    uint64_t bytes = take_locked(k, &key, &vk);
    pthread_mutex_unlock(&e->keys_lock);
    if (bytes) {
        free_taken(e, &key, &vk, bytes);
        engine_log(e, CUZK_LOG_INFO, "key %s evicted on request: %.1f MiB released", id,
                   bytes / 1048576.0);
    }
    return CUZK_OK;
}

cuzk_status cuzk_engine_key_forget(cuzk_engine *e, const char *id, cuzk_error *err) {
    if (!id)
        return cuzk_fail(err, CUZK_EINVAL, "forget: no key id");
    pthread_mutex_lock(&e->keys_lock);
    engine_key **pp = &e->keys;
    while (*pp && strcmp((*pp)->id, id))
        pp = &(*pp)->next;
    engine_key *k = *pp;
    if (!k) {
        pthread_mutex_unlock(&e->keys_lock);
        return cuzk_fail(err, CUZK_ENOTFOUND, "no key %s", id);
    }
    /* Only a key that never loaded: one that did may still be known to a
     * device or have its curve and size relied upon. */
    if (k->state != KEY_FAILED || k->log_n || k->holders || k->wanted || k->circuit ||
        atomic_load(&k->pins)) {
        pthread_mutex_unlock(&e->keys_lock);
        return cuzk_fail(err, CUZK_EBUSY, "key %s %s", id,
                         k->state != KEY_FAILED || k->log_n ? "did not fail its only load"
                                                            : "is in use");
    }
    *pp = k->next;
    pthread_mutex_unlock(&e->keys_lock);
    /* A failed load left nothing loaded (load_one freed it). */
    free(k->path);
    free(k->gen);
    free(k->gen_wtns);
    free(k);
    return CUZK_OK;
}

size_t cuzk_engine_keys(cuzk_engine *e, cuzk_key_info *out, size_t max) {
    size_t n = 0;
    pthread_mutex_lock(&e->keys_lock);
    for (engine_key *k = e->keys; k; k = k->next, n++) {
        if (n >= max)
            continue;
        cuzk_key_info *i = &out[n];
        memset(i, 0, sizeof *i);
        snprintf(i->id, sizeof i->id, "%s", k->id);
        snprintf(i->path, sizeof i->path, "%s", k->path);
        i->tier = k->state == KEY_RESIDENT ? CUZK_TIER_HOST : CUZK_TIER_DISK;
        /* a GPU copy (device memory or pinned and streamed) is the better
         * tier; device locks nest inside keys_lock (devices take no engine
         * lock) */
        for (unsigned d = 0; k->state == KEY_RESIDENT && d < e->n_devices; d++) {
            engine_device *dv = &e->devices[d];
            char why[sizeof i->tier_why - 24];
            int t = dv->ops->key_tier ? dv->ops->key_tier(dv, &k->key, why, sizeof why) : -1;
            if (t > (int)i->tier) {
                i->tier = (cuzk_key_tier)t;
                snprintf(i->tier_why, sizeof i->tier_why, "%s: %s", dv->name, why);
            }
        }
        i->loading = k->state == KEY_LOAD_QUEUED || k->state == KEY_LOADING;
        i->curve = k->key.curve; /* kept after eviction (take_locked) */
        i->log_n = k->log_n;
        i->n_vars = k->witness_bytes / sizeof(cuzk_fr);
        i->mem_bytes = k->charged;
        i->in_use = atomic_load(&k->pins);
        i->last_used_ns = k->last_used_ns;
        i->proofs = atomic_load(&k->proofs);
        i->failures = atomic_load(&k->failures);
        i->load_status = k->load_status;
        snprintf(i->load_msg, sizeof i->load_msg, "%s", k->load_msg);
    }
    pthread_mutex_unlock(&e->keys_lock);
    return n;
}
