/*
 * The CPU device: runs H (NTTs) and the MSMs of a partition with the
 * groth16/ prover steps on a thread pool of its own, then assembles the
 * proof with fresh blinding scalars.  It has no upload or fetch step: its
 * inputs are already in host memory, so on this device the overlap the
 * pipeline provides is synthesis of partition N+1 (on the synthesis pool)
 * during proving of partition N (on this pool).
 *
 * Scratch.  The prover's working memory (MSM buckets and point lists; the
 * Montgomery witness when a retry must evaluate here) is the caller's
 * (groth16.h), and here it is one buffer per worker from the engine's
 * buffer pool, so it is charged to the budget and shows in the status
 * (mem_scratch).  scratch_prepare sizes every idle slot for a newly loaded
 * key, on the loader thread; key_release gives back what only evicted keys
 * needed; close gives back all.  A partition then allocates nothing: a
 * slot is grown on the worker only when a larger key was prepared while
 * the slot was busy, once.  The CPU fallback of GPU devices, which runs
 * only retries, takes its scratch from the pool per step instead.  The
 * prover allocates nothing itself (groth16.h: scratch is mandatory), so
 * a budget with no room for a worker's scratch fails the partition with
 * CUZK_ENOMEM naming the bytes, like any other allocation the budget
 * refuses; there is no uncharged path.
 *
 * Must not: take engine locks other than mem.lock through the buffer
 * pool, log, or allocate large memory other than from the pool.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/internal.h"
#include "groth16/curve_impl.h"

/* One worker's scratch; |busy| under cpu_state.lock. */
typedef struct cpu_slot {
    engine_buf *buf;
    int busy;
} cpu_slot;

/* A key whose scratch size the slots keep (by its memory block: the
 * engine may pass a copy of the cuzk_key on release). */
typedef struct cpu_need {
    const void *mem;
    size_t bytes;
} cpu_need;

typedef struct cpu_state {
    cuzk_pool *pool;
    engine_mem *mem;
    pthread_mutex_t lock; /* slots and needs; O(1) or O(keys), no system call */
    pthread_cond_t cv;    /* a slot became free */
    unsigned n_slots;
    cpu_slot *slots;
    cpu_need *needs;
    size_t n_needs, cap_needs;
} cpu_state;

static cuzk_status cpu_open(engine_device *d, cuzk_error *err) {
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a device");
    s->n_slots = d->n_workers ? d->n_workers : 1;
    s->slots = calloc(s->n_slots, sizeof *s->slots);
    s->mem = d->mem;
    if (!s->slots) {
        free(s);
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a device");
    }
    if (pthread_mutex_init(&s->lock, NULL) || pthread_cond_init(&s->cv, NULL)) {
        free(s->slots);
        free(s);
        return cuzk_fail(err, CUZK_EINTERNAL, "device: mutex init failed");
    }
    s->pool = cuzk_pool_create(d->cfg.threads, err);
    if (!s->pool) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->lock);
        free(s->slots);
        free(s);
        return err ? err->status : CUZK_EINTERNAL;
    }
    d->state = s;
    return CUZK_OK;
}

static void slot_drop(cpu_state *s, cpu_slot *sl) {
    engine_scratch_put(s->mem, sl->buf);
    sl->buf = NULL;
}

/* Make |sl| (owned by the caller: busy) hold at least |bytes|. */
static cuzk_status slot_fit(cpu_state *s, cpu_slot *sl, size_t bytes, cuzk_error *err) {
    if (sl->buf && sl->buf->bytes >= bytes)
        return CUZK_OK;
    slot_drop(s, sl);
    if (!s->mem)
        return cuzk_fail(err, CUZK_EINTERNAL, "device has no memory pool");
    cuzk_status st = engine_scratch_get(s->mem, &sl->buf, bytes, "the CPU prover's scratch", err);
    if (st != CUZK_OK)
        sl->buf = NULL;
    return st;
}

static void cpu_close(engine_device *d) {
    cpu_state *s = d->state;
    if (s) {
        cuzk_pool_destroy(s->pool);
        for (unsigned i = 0; i < s->n_slots; i++)
            slot_drop(s, &s->slots[i]);
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->lock);
        free(s->slots);
        free(s->needs);
        free(s);
    }
    d->state = NULL;
}

/* Scratch one partition of |key| needs on |threads|: the MSMs', or
 * evaluate's for a retry that evaluates here. */
static size_t cpu_scratch_bytes(const cuzk_curve_impl *ci, const cuzk_key *key,
                                unsigned threads) {
    size_t m = ci->msms_scratch_bytes(key, threads), e = ci->evaluate_scratch_bytes(key);
    return m > e ? m : e;
}

/* s->lock held: the largest need of the keys prepared and not released. */
static size_t need_max_locked(const cpu_state *s) {
    size_t most = 0;
    for (size_t i = 0; i < s->n_needs; i++)
        most = s->needs[i].bytes > most ? s->needs[i].bytes : most;
    return most;
}

/* Claim every idle slot (busy = 2), resize it outside the lock to |bytes|
 * (0: give its buffer back), release the claims. */
static void resize_idle(cpu_state *s, size_t bytes, int shrink) {
    unsigned claimed[64], n = 0;
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < s->n_slots && n < 64; i++)
        if (!s->slots[i].busy) {
            s->slots[i].busy = 2;
            claimed[n++] = i;
        }
    pthread_mutex_unlock(&s->lock);
    for (unsigned i = 0; i < n; i++) {
        cpu_slot *sl = &s->slots[claimed[i]];
        unsigned cls;
        if (shrink && sl->buf && (!bytes || sl->buf->bytes > engine_buf_class_bytes(bytes, &cls)))
            slot_drop(s, sl);
        if (bytes)
            (void)slot_fit(s, sl, bytes, NULL); /* out of budget: tried again on use */
    }
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < n; i++)
        s->slots[claimed[i]].busy = 0;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
}

/* A key was loaded: size every idle slot for it now, on the loader. */
static void cpu_scratch_prepare(engine_device *d, const cuzk_key *key) {
    cpu_state *s = d->state;
    if (!s || d->fallback_only)
        return; /* a fallback takes scratch per step, see cpu_run */
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(key->curve);
    if (!ci)
        return;
    size_t bytes = cpu_scratch_bytes(ci, key, cuzk_pool_threads(s->pool));
    pthread_mutex_lock(&s->lock);
    if (s->n_needs == s->cap_needs) {
        size_t cap = s->cap_needs ? 2 * s->cap_needs : 8;
        cpu_need *nn = realloc(s->needs, cap * sizeof *nn);
        if (!nn) {
            pthread_mutex_unlock(&s->lock);
            return; /* the slots grow on use */
        }
        s->needs = nn, s->cap_needs = cap;
    }
    s->needs[s->n_needs++] = (cpu_need){key->mem, bytes};
    size_t most = need_max_locked(s);
    pthread_mutex_unlock(&s->lock);
    resize_idle(s, most, 0);
}

/* A key is freed: give back scratch only it needed. */
static void cpu_key_release(engine_device *d, const cuzk_key *key) {
    cpu_state *s = d->state;
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    int found = 0;
    for (size_t i = 0; i < s->n_needs; i++)
        if (s->needs[i].mem == key->mem) {
            s->needs[i] = s->needs[--s->n_needs];
            found = 1;
            break;
        }
    size_t most = need_max_locked(s);
    pthread_mutex_unlock(&s->lock);
    if (found)
        resize_idle(s, most, 1);
}

static cpu_slot *slot_take(cpu_state *s) {
    pthread_mutex_lock(&s->lock);
    for (;;) {
        for (unsigned i = 0; i < s->n_slots; i++)
            if (!s->slots[i].busy) {
                s->slots[i].busy = 1;
                pthread_mutex_unlock(&s->lock);
                return &s->slots[i];
            }
        /* only a resize holds a slot this worker could use: brief */
        pthread_cond_wait(&s->cv, &s->lock);
    }
}

static void slot_give(cpu_state *s, cpu_slot *sl) {
    pthread_mutex_lock(&s->lock);
    sl->busy = 0;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->lock);
}

/* One proof on the CPU, the steps reached through the key's curve table. */
static cuzk_status cpu_prove(const cuzk_curve_impl *ci, engine_dev_item *it, cuzk_pool *pool,
                             void *sp, size_t sb, cuzk_groth16_timing *t) {
    const cuzk_key *k = it->key;
    size_t n = (size_t)1 << ci->key_log_n(k);
    cuzk_fr *abc = it->abc, r, s;
    uint64_t t0 = cuzk_now_ns();
    cuzk_status st;
    if ((st = ci->fr_random(&r, &it->err)) != CUZK_OK ||
        (st = ci->fr_random(&s, &it->err)) != CUZK_OK)
        return st;
    /* a retry of a partition meant for a device that evaluates itself */
    if (!it->abc_ready &&
        (st = ci->evaluate_with_scratch(k, it->witness, abc, abc + n, abc + 2 * n, sp, sb, pool,
                                        &it->err)) != CUZK_OK)
        return st;
    t->evaluate_ns = it->abc_ready ? 0 : cuzk_now_ns() - t0;
    uint64_t th = cuzk_now_ns();
    st = ci->compute_h(k, abc, abc + n, abc + 2 * n, pool, &it->err);
    if (st != CUZK_OK)
        return st;
    t->h_ns = cuzk_now_ns() - th;
    return ci->msms_assemble_with_scratch(&it->proof, k, it->witness, abc, &r, &s, sp, sb, pool, t,
                                          &it->err);
}

/* The prover's figures as the engine reports them (cuzk_step_timing). */
static void cpu_steps(cuzk_step_timing *o, const cuzk_groth16_timing *t) {
    o->eval_site = t->evaluate_ns ? CUZK_EVAL_DEVICE : CUZK_EVAL_NONE;
    o->evaluate_ns = t->evaluate_ns;
    o->ntt_ns = t->h_ns;
    o->msm_a_ns = t->msm_a_ns, o->msm_b1_ns = t->msm_b1_ns, o->msm_b2_ns = t->msm_b2_ns;
    o->msm_c_ns = t->msm_c_ns, o->msm_h_ns = t->msm_h_ns;
    o->assemble_ns = t->assemble_ns;
}

static void cpu_run(engine_device *d, engine_dev_item **items, size_t n) {
    cpu_state *s = d->state;
    cpu_slot *sl = slot_take(s);
    unsigned threads = cuzk_pool_threads(s->pool);
    for (size_t i = 0; i < n; i++) {
        engine_dev_item *it = items[i];
        const cuzk_curve_impl *ci = cuzk_curve_impl_get(it->key->curve);
        cuzk_groth16_timing t = {0};
        if (!ci) {
            it->status = cuzk_fail(&it->err, CUZK_ECURVE, "key of unknown curve");
            continue;
        }
        it->status = slot_fit(s, sl, cpu_scratch_bytes(ci, it->key, threads), &it->err);
        if (it->status == CUZK_OK)
            it->status = cpu_prove(ci, it, s->pool, sl->buf->p, sl->buf->bytes, &t);
        if (it->status == CUZK_OK)
            cpu_steps(&it->steps, &t);
    }
    /* The CPU fallback of GPU devices runs rarely: it does not keep a
     * key-sized scratch (gigabytes at 2^27) charged between its steps. */
    if (d->fallback_only)
        slot_drop(s, sl);
    slot_give(s, sl);
}

static cuzk_status cpu_reset(engine_device *d, cuzk_error *err) {
    (void)d, (void)err;
    return CUZK_OK; /* no device state survives a step */
}

const engine_device_ops engine_device_cpu_ops = {
    .kind = "cpu",
    .simulated = 0,
    .open = cpu_open,
    .close = cpu_close,
    .upload = NULL,
    .run = cpu_run,
    .fetch = NULL,
    .reset = cpu_reset,
    .key_release = cpu_key_release,
    .scratch_prepare = cpu_scratch_prepare,
};
