/*
 * The GPU device: one CUDA device, its keys resident in device memory
 * (groth16/prover/prove_gpu.h), and one GPU prover (two streams and buffers) per
 * partition in flight.
 *
 *   upload  copy the witness and the a/b/c vectors synthesis evaluated into
 *           the prover's pinned buffers and on to the device (the key is
 *           uploaded first if this device does not hold it yet).  Runs
 *           while another worker's partition computes.
 *   run     H and the five MSMs on the device, the proof assembled on the
 *           CPU.  One batch at a time per device (gpu_lock, released
 *           before the assembly): two concurrent proofs would share the
 *           SMs and finish no sooner.
 *
 * Keys: a small table maps a host key (its address and its memory block,
 * which changes when the engine evicts and reloads the key) to its device
 * image; the engine calls key_release before it frees a host key.
 *
 * Must not: take engine locks, log, or block in upload on another
 * worker's run (only key uploads serialise with each other).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gpu_tier.h"
#include "engine/internal.h"

#ifdef CUZK_HAVE_CUDA
#include "gpu/msm.h"
#include "gpu/runtime.h"
#include "groth16/curve_impl.h"
#include "groth16/prover/prove_gpu.h"

#define GPU_MAX_KEYS 32
/* Provers (witness and a/b/c buffers on the device): one per partition
 * between upload and the end of run, so workers x batch_max at most. */
#define GPU_MAX_PROVERS 32

/* A slot of the device's key table.  |mem| (the host key's memory block,
 * unique per loaded key: an evicted and reloaded key gets a new one) names
 * the key; it is set while the upload runs (|loading|), so a second
 * request for the same key waits for that upload instead of starting its
 * own.  |users| counts partitions between upload and the end of run: a
 * slot in use is never given to another key. */
typedef struct gpu_key_slot {
    const cuzk_key *key;
    const void *mem; /* atomic stores: gpu_holds_key reads it lock-free */
    cuzk_gpu_key *gk;
    uint64_t last_used;
    unsigned users;
    int loading;
} gpu_key_slot;

typedef struct gpu_state {
    cuzk_gpu_ctx *ctx;
    cuzk_pool *pool; /* staging copies */
    /* keys_lock guards the table and is never held across a key upload
     * (seconds at 2^24), which runs with the slot marked |loading|;
     * keys_cv announces the end of an upload. */
    pthread_mutex_t keys_lock, provers_lock, gpu_lock;
    pthread_cond_t keys_cv;
    gpu_key_slot keys[GPU_MAX_KEYS];
    uint64_t tick;
    /* Scratch of every prover's main and B2 streams: one proof runs at a
     * time (gpu_lock), so one pair serves them all.  With scratch per
     * prover stream a 2^26 PoRep key left too little of a 141 GB H200 for
     * the second and third provers' MSMs (every partition they led failed
     * to allocate its scratch). */
    cuzk_gpu_shared_scratch *scratch[2];
    int key_pinned; /* cuzk_device_config.gpu_key_tier: bases in pinned memory */
    cuzk_gpu_prover *free_provers[GPU_MAX_PROVERS];
    unsigned n_free, n_made;
    /* Under a device-memory cap: how many provers' buffers fit beside the
     * keys prepared so far and their MSM scratch (the least any key
     * allows; 0: no cap).  prover_get makes no more, so no upload's
     * allocation can go over the cap. */
    unsigned prover_cap;
    /* Every prover made, with the page-locked host bytes charged for it to
     * the engine's budget (MEM_PINNED); under provers_lock.  A prover grows
     * its staging buffers for a larger key while it runs; prover_put
     * charges the growth when it comes back. */
    struct {
        cuzk_gpu_prover *p;
        uint64_t charged;
    } made[GPU_MAX_PROVERS];
    engine_mem *mem; /* the engine's budget (NULL: nothing is charged) */
} gpu_state;

static cuzk_status gpu_open(engine_device *d, cuzk_error *err) {
    gpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a device");
    pthread_mutex_init(&s->keys_lock, NULL);
    pthread_mutex_init(&s->provers_lock, NULL);
    pthread_mutex_init(&s->gpu_lock, NULL);
    pthread_cond_init(&s->keys_cv, NULL);
    int n = cuzk_gpu_device_count();
    if (d->cfg.gpu_index < 0 || d->cfg.gpu_index >= n) {
        free(s);
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "no CUDA device %d (%d present)",
                         d->cfg.gpu_index, n);
    }
    cuzk_status st = cuzk_gpu_ctx_create(d->cfg.gpu_index, &s->ctx, err);
    if (st == CUZK_OK && d->cfg.gpu_mem_limit)
        cuzk_gpu_ctx_set_mem_limit(s->ctx, (size_t)d->cfg.gpu_mem_limit);
    s->key_pinned = d->cfg.gpu_key_tier == CUZK_TIER_PINNED;
    if (st == CUZK_OK) { /* every worker's batch holds provers' buffers at once */
        unsigned provers = d->n_workers * d->batch_max;
        cuzk_gpu_ctx_set_provers(s->ctx, provers < GPU_MAX_PROVERS ? provers : GPU_MAX_PROVERS);
    }
    if (st == CUZK_OK && !(s->pool = cuzk_pool_create(d->cfg.threads ? d->cfg.threads : 4, err)))
        st = err ? err->status : CUZK_EINTERNAL;
    for (int i = 0; i < 2 && st == CUZK_OK; i++)
        st = cuzk_gpu_shared_scratch_create(s->ctx, &s->scratch[i], err);
    if (st != CUZK_OK) {
        for (int i = 0; i < 2; i++)
            cuzk_gpu_shared_scratch_free(s->scratch[i]);
        cuzk_pool_destroy(s->pool);
        cuzk_gpu_ctx_destroy(s->ctx);
        free(s);
        return st;
    }
    s->mem = d->mem;
    d->state = s;
    d->has_upload = 1; /* transfers overlap the other worker's compute */
    return CUZK_OK;
}

static void gpu_close(engine_device *d) {
    gpu_state *s = d->state;
    if (!s)
        return;
    for (unsigned i = 0; i < s->n_free; i++)
        cuzk_gpu_prover_free(s->free_provers[i]);
    for (unsigned i = 0; i < GPU_MAX_PROVERS; i++)
        if (s->mem && s->made[i].charged)
            engine_mem_uncharge(s->mem, MEM_PINNED, s->made[i].charged);
    for (int i = 0; i < GPU_MAX_KEYS; i++)
        cuzk_gpu_key_free(s->keys[i].gk);
    for (int i = 0; i < 2; i++) /* after every stream that shares them */
        cuzk_gpu_shared_scratch_free(s->scratch[i]);
    cuzk_gpu_ctx_destroy(s->ctx);
    cuzk_pool_destroy(s->pool);
    pthread_mutex_destroy(&s->keys_lock);
    pthread_mutex_destroy(&s->provers_lock);
    pthread_mutex_destroy(&s->gpu_lock);
    pthread_cond_destroy(&s->keys_cv);
    free(s);
    d->state = NULL;
}

/* The device image of |key| (outside keys_lock: seconds at 2^24); under a
 * device-memory cap no more provers than fit beside it from then on. */
static cuzk_status key_upload(gpu_state *s, const cuzk_key *key, cuzk_gpu_key **gk,
                              cuzk_error *err) {
    cuzk_gpu_key_mode mode = s->key_pinned ? CUZK_GPU_KEY_HOST : CUZK_GPU_KEY_AUTO;
    cuzk_status st = engine_gpu_key_create(gk, s->ctx, key, mode, err);
    unsigned fit = st == CUZK_OK ? cuzk_gpu_key_max_provers(*gk) : 0;
    if (fit) {
        pthread_mutex_lock(&s->provers_lock);
        if (!s->prover_cap || fit < s->prover_cap)
            s->prover_cap = fit;
        pthread_mutex_unlock(&s->provers_lock);
    }
    return st;
}

/* The slot holding the device image of |key|, uploading it first if this
 * device does not hold it (into a free slot, else the least recently used
 * slot no partition is using).  The caller becomes one of the slot's users
 * (key_put when done).  CUZK_EBUSY when every slot is in use. */
static cuzk_status key_get(gpu_state *s, const cuzk_key *key, gpu_key_slot **out,
                           cuzk_error *err) {
    if (!key->mem) /* the table's name for a key; every loaded key has one */
        return cuzk_fail(err, CUZK_EINVAL, "GPU device: key without a memory block");
    pthread_mutex_lock(&s->keys_lock);
    gpu_key_slot *hit, *victim;
    for (;;) {
        hit = victim = NULL;
        for (int i = 0; i < GPU_MAX_KEYS && !hit; i++) {
            gpu_key_slot *k = &s->keys[i];
            if (k->mem == key->mem)
                hit = k;
            else if (!k->loading && !k->users &&
                     (!victim || (victim->gk && (!k->gk || k->last_used < victim->last_used))))
                victim = k;
        }
        if (!hit || !hit->loading)
            break;
        pthread_cond_wait(&s->keys_cv, &s->keys_lock); /* its upload is running */
    }
    if (hit) {
        hit->users++;
        hit->last_used = ++s->tick;
        pthread_mutex_unlock(&s->keys_lock);
        *out = hit;
        return CUZK_OK;
    }
    if (!victim) {
        pthread_mutex_unlock(&s->keys_lock);
        return cuzk_fail(err, CUZK_EBUSY, "all %d GPU key slots are in use", GPU_MAX_KEYS);
    }
    cuzk_gpu_key *old = victim->gk;
    victim->gk = NULL;
    victim->key = key;
    victim->loading = 1;
    __atomic_store_n(&victim->mem, key->mem, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->keys_lock);

    cuzk_gpu_key_free(old); /* no users: nothing runs with it */
    cuzk_gpu_key *gk = NULL;
    cuzk_status st = key_upload(s, key, &gk, err);
    pthread_mutex_lock(&s->keys_lock);
    victim->loading = 0;
    if (st == CUZK_OK) {
        victim->gk = gk;
        victim->users = 1;
        victim->last_used = ++s->tick;
        *out = victim;
    } else {
        victim->key = NULL;
        __atomic_store_n(&victim->mem, NULL, __ATOMIC_RELEASE);
    }
    pthread_cond_broadcast(&s->keys_cv);
    pthread_mutex_unlock(&s->keys_lock);
    return st;
}

static void key_put(gpu_state *s, gpu_key_slot *k) {
    pthread_mutex_lock(&s->keys_lock);
    k->users--;
    pthread_mutex_unlock(&s->keys_lock);
}

static cuzk_status prover_get(gpu_state *s, cuzk_gpu_prover **p, cuzk_error *err) {
    pthread_mutex_lock(&s->provers_lock);
    if (s->n_free) {
        *p = s->free_provers[--s->n_free];
        pthread_mutex_unlock(&s->provers_lock);
        return CUZK_OK;
    }
    if (s->n_made >= GPU_MAX_PROVERS) {
        pthread_mutex_unlock(&s->provers_lock);
        return cuzk_fail(err, CUZK_EBUSY, "more than %d partitions in flight on one GPU",
                         GPU_MAX_PROVERS);
    }
    if (s->prover_cap && s->n_made >= s->prover_cap) {
        unsigned cap = s->prover_cap;
        pthread_mutex_unlock(&s->provers_lock);
        return cuzk_fail(err, CUZK_EBUSY,
                         "the device-memory cap holds the buffers of %u partitions at once; "
                         "all are in use",
                         cap);
    }
    s->n_made++;
    pthread_mutex_unlock(&s->provers_lock);
    cuzk_status st = cuzk_gpu_prover_create(p, s->ctx, s->pool, err);
    pthread_mutex_lock(&s->provers_lock);
    if (st != CUZK_OK) {
        s->n_made--;
        pthread_mutex_unlock(&s->provers_lock);
    } else {
        /* its slot in |made|: the first free one (provers live until the
         * device closes) */
        for (unsigned i = 0; i < GPU_MAX_PROVERS; i++)
            if (!s->made[i].p) {
                s->made[i].p = *p, s->made[i].charged = 0;
                break;
            }
        pthread_mutex_unlock(&s->provers_lock);
        cuzk_gpu_prover_share_scratch(*p, s->scratch[0], s->scratch[1]);
    }
    return st;
}

/* Back to the free list, with any growth of its page-locked staging
 * buffers charged to the budget: O(provers) under provers_lock, no system
 * call.  The memory is already in use, so it is charged even past the
 * budget (engine_mem_charge_held): admission then waits until it fits. */
static void prover_put(gpu_state *s, cuzk_gpu_prover *p) {
    uint64_t host = cuzk_gpu_prover_host_bytes(p);
    pthread_mutex_lock(&s->provers_lock);
    for (unsigned i = 0; s->mem && i < GPU_MAX_PROVERS; i++)
        if (s->made[i].p == p) {
            if (host > s->made[i].charged)
                engine_mem_charge_held(s->mem, MEM_PINNED, host - s->made[i].charged);
            else if (host < s->made[i].charged)
                engine_mem_uncharge(s->mem, MEM_PINNED, s->made[i].charged - host);
            s->made[i].charged = host;
            break;
        }
    s->free_provers[s->n_free++] = p;
    pthread_mutex_unlock(&s->provers_lock);
}

static cuzk_status gpu_upload(engine_device *d, engine_dev_item *it, cuzk_error *err) {
    gpu_state *s = d->state;
    gpu_key_slot *slot = NULL;
    cuzk_gpu_prover *p = NULL;
    cuzk_status st = key_get(s, it->key, &slot, err);
    if (st == CUZK_OK)
        st = prover_get(s, &p, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_prove_upload(p, slot->gk, it->witness, it->abc_ready ? it->abc : NULL,
                                   err);
    if (st != CUZK_OK) {
        if (p)
            prover_put(s, p);
        if (slot)
            key_put(s, slot);
        return st;
    }
    it->dev_prover = p;
    it->dev_key = slot;
    return CUZK_OK;
}

/* The prover's figures (microseconds) as the engine reports them; upload
 * is timed by the engine around the upload step. */
static void gpu_steps(cuzk_step_timing *o, const cuzk_gpu_timing *t) {
    if (t->eval_on_gpu) {
        o->eval_site = CUZK_EVAL_DEVICE;
        o->evaluate_ns = (uint64_t)(t->evaluate_us * 1e3);
    }
    o->ntt_ns = (uint64_t)(t->ntt_us * 1e3);
    o->msm_a_ns = (uint64_t)(t->msm_a_us * 1e3), o->msm_b1_ns = (uint64_t)(t->msm_b1_us * 1e3);
    o->msm_b2_ns = (uint64_t)(t->msm_b2_us * 1e3), o->msm_c_ns = (uint64_t)(t->msm_c_us * 1e3);
    o->msm_h_ns = (uint64_t)(t->msm_h_us * 1e3);
    o->download_ns = (uint64_t)(t->download_us * 1e3);
    o->assemble_ns = (uint64_t)(t->assemble_us * 1e3);
}

/* Partitions of one key run as one batch (every MSM one pass over the
 * bases for all of them: cuzk_gpu_prove_run_batch); a run of items with
 * different keys is split into batches of consecutive equal keys. */
struct gpu_hold {
    gpu_state *s;
    int held;
};
static void gpu_release(void *arg) {
    struct gpu_hold *h = arg;
    if (h->held) {
        h->held = 0;
        pthread_mutex_unlock(&h->s->gpu_lock);
    }
}

/* The blinding scalars of each proof of a batch, fresh from the OS
 * CSPRNG (CUZK_EIO without randomness: the batch fails as a whole). */
static cuzk_status draw_blinding(cuzk_gpu_batch_item *b, size_t m, const cuzk_key *key,
                                 cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(key->curve);
    if (!ci)
        return cuzk_fail(err, CUZK_ECURVE, "GPU run: a key of no known curve");
    for (size_t j = 0; j < m; j++) {
        cuzk_status st = ci->fr_random(&b[j].r, err);
        if (st == CUZK_OK)
            st = ci->fr_random(&b[j].s, err);
        if (st != CUZK_OK)
            return st;
    }
    return CUZK_OK;
}

/* The items' outcomes from a batch that ended with |st| / |err|, and their
 * prover and key back. */
static void batch_done(gpu_state *s, gpu_key_slot *slot, engine_dev_item **of,
                       const cuzk_gpu_batch_item *b, size_t m, cuzk_status st,
                       const cuzk_error *err, const cuzk_gpu_timing *t) {
    for (size_t j = 0; j < m; j++) {
        engine_dev_item *x = of[j];
        if (st != CUZK_OK) {
            x->status = st;
            x->err = *err;
        } else {
            x->status = b[j].st;
            if (b[j].st != CUZK_OK)
                x->err = b[j].err;
            else
                gpu_steps(&x->steps, t);
        }
        prover_put(s, x->dev_prover);
        key_put(s, slot);
        x->dev_prover = NULL;
        x->dev_key = NULL;
    }
}

static void gpu_run(engine_device *d, engine_dev_item **items, size_t n) {
    gpu_state *s = d->state;
    struct gpu_hold hold = {s, 0};
    for (size_t i = 0; i < n;) {
        engine_dev_item *it = items[i];
        if (!it->dev_prover) {
            it->status = cuzk_fail(&it->err, CUZK_EINTERNAL, "GPU run without upload");
            i++;
            continue;
        }
        gpu_key_slot *slot = it->dev_key;
        cuzk_gpu_batch_item b[CUZK_GPU_MSM_MAX_VECTORS];
        engine_dev_item *of[CUZK_GPU_MSM_MAX_VECTORS];
        size_t m = 0;
        while (i < n && m < CUZK_GPU_MSM_MAX_VECTORS && items[i]->dev_prover &&
               items[i]->dev_key == slot) {
            of[m] = items[i];
            b[m] = (cuzk_gpu_batch_item){.p = items[i]->dev_prover, .out = &items[i]->proof};
            m++, i++;
        }
        cuzk_gpu_timing t;
        cuzk_error err = {0};
        cuzk_status st = draw_blinding(b, m, it->key, &err);
        /* The device is released as soon as the batch's results are on the
         * host: the proofs are assembled on the CPU (1.3 ms per partition
         * at BLS12-381) while the next worker's batch runs. */
        if (st == CUZK_OK) {
            pthread_mutex_lock(&s->gpu_lock);
            hold.held = 1;
            st = cuzk_gpu_prove_run_batch_notify(b, m, slot->gk, &t, gpu_release, &hold, &err);
            gpu_release(&hold); /* on failure: nothing called it */
        }
        batch_done(s, slot, of, b, m, st, &err, &t);
    }
}

static cuzk_status gpu_reset(engine_device *d, cuzk_error *err) {
    (void)d, (void)err;
    return CUZK_OK; /* provers are returned by run; nothing else survives */
}

/* The key's device image, and the provers the workers will use with it
 * grown to its sizes: measured at 2^24 on the H200, the first partition's
 * upload otherwise took 445-600 ms instead of 36 (allocating and
 * page-locking its buffers) while the GPU waited with work queued, 7.6% of
 * a 12-partition run idle with work. */
static void gpu_key_prepare(engine_device *d, const cuzk_key *key) {
    gpu_state *s = d->state;
    gpu_key_slot *slot;
    cuzk_error err;
    if (!s || d->fallback_only || key_get(s, key, &slot, &err) != CUZK_OK)
        return;
    unsigned want = d->n_workers * d->batch_max;
    if (want > GPU_MAX_PROVERS)
        want = GPU_MAX_PROVERS;
    unsigned fit = cuzk_gpu_key_max_provers(slot->gk); /* key_get set the cap */
    if (fit && want > fit)
        want = fit;
    cuzk_gpu_prover *got[GPU_MAX_PROVERS];
    unsigned n = 0;
    while (n < want && prover_get(s, &got[n], &err) == CUZK_OK) {
        /* the first grows the device's shared scratch to a whole batch's
         * MSMs; the others need only their buffers */
        size_t np = n == 0 ? (d->batch_max < want ? d->batch_max : want) : 0;
        if (cuzk_gpu_prover_reserve_batch(got[n], slot->gk, np, &err) != CUZK_OK) {
            prover_put(s, got[n]); /* out of memory: the rest grow on use */
            break;
        }
        n++;
    }
    for (unsigned i = 0; i < n; i++)
        prover_put(s, got[i]);
    key_put(s, slot);
}

static void gpu_key_release(engine_device *d, const cuzk_key *key) {
    gpu_state *s = d->state;
    if (!s || !key->mem)
        return;
    cuzk_gpu_key *drop[GPU_MAX_KEYS];
    int n = 0;
    pthread_mutex_lock(&s->keys_lock);
    for (int i = 0; i < GPU_MAX_KEYS; i++) {
        gpu_key_slot *k = &s->keys[i];
        /* by memory block: the engine may pass a copy of the cuzk_key */
        while (k->mem == key->mem && k->loading)
            pthread_cond_wait(&s->keys_cv, &s->keys_lock);
        if (k->mem == key->mem) {
            __atomic_store_n(&k->mem, NULL, __ATOMIC_RELEASE);
            drop[n++] = k->gk;
            k->gk = NULL;
            k->key = NULL;
        }
    }
    pthread_mutex_unlock(&s->keys_lock);
    for (int i = 0; i < n; i++) /* unused: the engine frees only unpinned keys */
        cuzk_gpu_key_free(drop[i]);
}

/* Lock-free: reads each slot's memory-block tag (written under keys_lock
 * with atomic stores); a slot being replaced may answer either way. */
static int gpu_holds_key(engine_device *d, const cuzk_key *key) {
    gpu_state *s = d->state;
    if (!s || !key->mem)
        return 0;
    for (int i = 0; i < GPU_MAX_KEYS; i++)
        if (__atomic_load_n(&s->keys[i].mem, __ATOMIC_ACQUIRE) == key->mem)
            return 1;
    return 0;
}

static uint64_t gpu_free_bytes(engine_device *d) {
    gpu_state *s = d->state;
    if (!s)
        return 0;
    cuzk_gpu_mem_info mi;
    cuzk_gpu_ctx_mem(s->ctx, &mi); /* within the device-memory cap */
    return mi.free_bytes;
}

static uint64_t gpu_mem_peak(engine_device *d) {
    gpu_state *s = d->state;
    if (!s)
        return 0;
    cuzk_gpu_mem_info mi;
    cuzk_gpu_ctx_mem(s->ctx, &mi);
    return mi.peak_bytes;
}

static int gpu_key_tier(engine_device *d, const cuzk_key *key, char *why, size_t why_len) {
    gpu_state *s = d->state;
    int tier = -1;
    if (!s || !key->mem)
        return -1;
    pthread_mutex_lock(&s->keys_lock);
    for (int i = 0; i < GPU_MAX_KEYS && tier < 0; i++) {
        gpu_key_slot *k = &s->keys[i];
        if (k->mem == key->mem && k->gk) {
            tier = cuzk_gpu_key_host_streamed(k->gk) ? CUZK_TIER_PINNED : CUZK_TIER_DEVICE;
            if (why && why_len)
                snprintf(why, why_len, "%s", cuzk_gpu_key_why(k->gk));
        }
    }
    pthread_mutex_unlock(&s->keys_lock);
    return tier;
}

static void gpu_stats(engine_device *d, uint64_t *mem_bytes, unsigned *keys) {
    gpu_state *s = d->state;
    *mem_bytes = 0;
    *keys = 0;
    if (!s)
        return;
    pthread_mutex_lock(&s->keys_lock);
    for (int i = 0; i < GPU_MAX_KEYS; i++)
        if (s->keys[i].gk) {
            *mem_bytes += cuzk_gpu_key_device_bytes(s->keys[i].gk);
            ++*keys;
        }
    pthread_mutex_unlock(&s->keys_lock);
}

const engine_device_ops engine_device_gpu_ops = {
    .kind = "gpu",
    .simulated = 0,
    .self_evaluates = 1,
    .open = gpu_open,
    .close = gpu_close,
    .upload = gpu_upload,
    .run = gpu_run,
    .fetch = NULL,
    .reset = gpu_reset,
    .key_release = gpu_key_release,
    .key_prepare = gpu_key_prepare,
    .stats = gpu_stats,
    .holds_key = gpu_holds_key,
    .free_bytes = gpu_free_bytes,
    .key_tier = gpu_key_tier,
    .mem_peak = gpu_mem_peak,
};

#else /* no CUDA in this build */

static cuzk_status gpu_open(engine_device *d, cuzk_error *err) {
    (void)d;
    return cuzk_fail(err, CUZK_EUNSUPPORTED, "this build has no CUDA support (GPU device)");
}
static void gpu_close(engine_device *d) { (void)d; }
static void gpu_run(engine_device *d, engine_dev_item **items, size_t n) {
    (void)d, (void)items, (void)n;
}
static cuzk_status gpu_reset(engine_device *d, cuzk_error *err) {
    (void)d, (void)err;
    return CUZK_OK;
}

const engine_device_ops engine_device_gpu_ops = {
    .kind = "gpu",
    .open = gpu_open,
    .close = gpu_close,
    .run = gpu_run,
    .reset = gpu_reset,
};

#endif
