/*
 * The GPU Groth16 prover (groth16/prover/prove_gpu.h): the per-proof sequence of
 * device steps.  The keys' device images are made in prove_gpu_key.c.
 *
 * A batch runs as a table of steps (batch_steps: evaluate, H, the G1 MSMs,
 * the range-check download), each followed by its CUDA event on stream 1,
 * with the B2 MSM posted to the leading prover's G2 thread before them;
 * any failure leaves the loop and the one unwind leaves both streams idle.
 * The blinding scalars r, s come from the caller with each item (the
 * engine draws them from the OS CSPRNG; tests fix them), so this file
 * draws no randomness.
 *
 * Must not: evaluate on the CPU (a caller that did hands a, b, c to
 * upload), or return with work of a failed batch still queued.
 */
#ifdef CUZK_HAVE_CUDA

#define _GNU_SOURCE /* pthread_setname_np */
#include "groth16/prover/prove_gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/msm.h"
#include "gpu/ntt.h"
#include "gpu/prove.h"
#include "gpu/runtime.h"
#include "groth16/curve_facts.h"
#include "groth16/prover/prove_gpu_key.h"

enum { EV_START, EV_UPLOADED, EV_EVALUATED, EV_NTT, EV_MSM_A, EV_MSM_B1,
       EV_MSM_C, EV_MSM_H, EV_DOWN, EV_B2_START, EV_B2_END, EV_RUN, EV_COUNT };

struct cuzk_gpu_prover {
    cuzk_gpu_ctx *ctx;
    cuzk_pool *pool;
    cuzk_gpu_stream *s1, *s2;
    cuzk_gpu_event *ev[EV_COUNT];
    /* device: plain witness, Montgomery witness, a, b, c; result word */
    void *d_w, *d_wm, *d_abc;
    uint32_t *d_bad;
    size_t cap_vars, cap_n;
    /* pinned host: the staging copies of the witness and (when the caller
     * evaluated them) of a, b, c; the bad-index word */
    void *h_w, *h_abc;
    uint32_t *h_bad;
    size_t h_cap_vars, h_cap_n;
    /* between cuzk_gpu_prove_upload and cuzk_gpu_prove_run */
    const cuzk_gpu_key *uploaded;
    int have_abc;
    double staging_us;
    /* The G2 thread (b2_thread_main): created with the prover, it runs the
     * B2 MSMs of the batches this prover leads.  The mailbox is |b2_job|
     * under b2_lock: the prover posts a job and waits until the thread
     * clears it (done); b2_quit ends the thread, which
     * cuzk_gpu_prover_free joins.  No thread (creation failed): the job
     * runs in line, as one thread would. */
    pthread_mutex_t b2_lock;
    pthread_cond_t b2_cv;
    /* B2 on the CPU (cuzk_gpu_prover_set_b2): the pool runs the G2 MSM
     * beside the G1 work; |h_gather| holds a density key's B witness */
    int b2_cpu;
    void *h_gather;
    size_t h_gather_cap;
    /* the CPU B2 MSM's scratch (groth16.h: the caller's), kept and grown
     * like h_gather */
    void *h_b2;
    size_t h_b2_cap;
    struct b2_job *b2_job;
    int b2_sync, b2_started, b2_quit;
    pthread_t b2_thread;
};

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The key's MSM scratch limits on |p|'s streams (before any MSM of it). */
static void apply_limits(cuzk_gpu_prover *p, const cuzk_gpu_key *gk) {
    cuzk_gpu_stream_set_msm_limit(p->s1, gk->msm_limit[0]);
    cuzk_gpu_stream_set_msm_limit(p->s2, gk->msm_limit[1]);
}

/* ---- prover ------------------------------------------------------------------ */

static void *b2_thread_main(void *arg);

cuzk_status cuzk_gpu_prover_create(cuzk_gpu_prover **out, cuzk_gpu_ctx *ctx, cuzk_pool *pool,
                                   cuzk_error *err) {
    *out = NULL;
    cuzk_gpu_prover *p = calloc(1, sizeof *p);
    if (!p)
        return cuzk_fail(err, CUZK_ENOMEM, "out of host memory");
    p->ctx = ctx;
    p->pool = pool;
    /* CUZK_GPU_B2=cpu: B2 on the CPU unless cuzk_gpu_prover_set_b2 says */
    const char *b2 = getenv("CUZK_GPU_B2");
    p->b2_cpu = b2 && strcmp(b2, "cpu") == 0;
    if (pthread_mutex_init(&p->b2_lock, NULL)) {
        free(p);
        return cuzk_fail(err, CUZK_EINTERNAL, "GPU prover: mutex init failed");
    }
    if (pthread_cond_init(&p->b2_cv, NULL)) {
        pthread_mutex_destroy(&p->b2_lock);
        free(p);
        return cuzk_fail(err, CUZK_EINTERNAL, "GPU prover: condition init failed");
    }
    p->b2_sync = 1;
    cuzk_status st = cuzk_gpu_stream_create(ctx, &p->s1, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_stream_create(ctx, &p->s2, err);
    for (int i = 0; i < EV_COUNT && st == CUZK_OK; i++)
        st = cuzk_gpu_event_create(ctx, &p->ev[i], err);
    if (st == CUZK_OK)
        st = cuzk_gpu_host_alloc(ctx, 64, (void **)&p->h_bad, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_malloc(ctx, 64, (void **)&p->d_bad, err);
    if (st != CUZK_OK) {
        cuzk_gpu_prover_free(p);
        return st;
    }
    /* Last, so that a failure above has no thread to stop. */
    p->b2_started = pthread_create(&p->b2_thread, NULL, b2_thread_main, p) == 0;
    *out = p;
    return CUZK_OK;
}

void cuzk_gpu_prover_free(cuzk_gpu_prover *p) {
    if (!p)
        return;
    if (p->b2_started) {
        /* No job is posted here: run waits for its own before returning. */
        pthread_mutex_lock(&p->b2_lock);
        p->b2_quit = 1;
        pthread_cond_broadcast(&p->b2_cv);
        pthread_mutex_unlock(&p->b2_lock);
        pthread_join(p->b2_thread, NULL);
    }
    if (p->b2_sync) {
        pthread_cond_destroy(&p->b2_cv);
        pthread_mutex_destroy(&p->b2_lock);
    }
    cuzk_gpu_stream_destroy(p->s1);
    cuzk_gpu_stream_destroy(p->s2);
    for (int i = 0; i < EV_COUNT; i++)
        cuzk_gpu_event_destroy(p->ev[i]);
    cuzk_gpu_free(p->ctx, p->d_w);
    cuzk_gpu_free(p->ctx, p->d_wm);
    cuzk_gpu_free(p->ctx, p->d_abc);
    cuzk_gpu_free(p->ctx, p->d_bad);
    if (p->h_w)
        cuzk_gpu_host_free(p->ctx, p->h_w);
    if (p->h_abc)
        cuzk_gpu_host_free(p->ctx, p->h_abc);
    if (p->h_bad)
        cuzk_gpu_host_free(p->ctx, p->h_bad);
    free(p->h_gather);
    free(p->h_b2);
    free(p);
}

void cuzk_gpu_prover_set_b2(cuzk_gpu_prover *p, int on_cpu) { p->b2_cpu = on_cpu != 0; }

uint64_t cuzk_gpu_prover_host_bytes(const cuzk_gpu_prover *p) {
    return (uint64_t)FR_BYTES * (p->h_cap_vars + 3 * p->h_cap_n);
}

void cuzk_gpu_prover_share_scratch(cuzk_gpu_prover *p, cuzk_gpu_shared_scratch *main,
                                   cuzk_gpu_shared_scratch *b2) {
    if (main)
        cuzk_gpu_stream_share_scratch(p->s1, main);
    if (b2)
        cuzk_gpu_stream_share_scratch(p->s2, b2);
}

uint64_t cuzk_gpu_prover_device_bytes(const cuzk_gpu_prover *p) {
    return (uint64_t)FR_BYTES * (2 * p->cap_vars + 3 * p->cap_n) +
           cuzk_gpu_stream_scratch_bytes(p->s1) + cuzk_gpu_stream_scratch_bytes(p->s2);
}

/* Grow the device and pinned buffers to a key's sizes (kept afterwards);
 * |host_abc|: the pinned a, b, c staging buffer too. */
static cuzk_status reserve(cuzk_gpu_prover *p, size_t n_vars, size_t n, int host_abc,
                           cuzk_error *err) {
    cuzk_status st;
    if (n_vars > p->cap_vars) {
        cuzk_gpu_free(p->ctx, p->d_w);
        cuzk_gpu_free(p->ctx, p->d_wm);
        p->d_w = p->d_wm = NULL;
        p->cap_vars = 0;
        if ((st = cuzk_gpu_malloc(p->ctx, n_vars * FR_BYTES, &p->d_w, err)) ||
            (st = cuzk_gpu_malloc(p->ctx, n_vars * FR_BYTES, &p->d_wm, err)))
            return st;
        p->cap_vars = n_vars;
    }
    if (n > p->cap_n) {
        cuzk_gpu_free(p->ctx, p->d_abc);
        p->d_abc = NULL;
        p->cap_n = 0;
        if ((st = cuzk_gpu_malloc(p->ctx, 3 * n * FR_BYTES, &p->d_abc, err)))
            return st;
        p->cap_n = n;
    }
    if (n_vars > p->h_cap_vars) {
        if (p->h_w)
            cuzk_gpu_host_free(p->ctx, p->h_w);
        p->h_w = NULL;
        p->h_cap_vars = 0;
        if ((st = cuzk_gpu_host_alloc(p->ctx, n_vars * FR_BYTES, &p->h_w, err)))
            return st;
        p->h_cap_vars = n_vars;
    }
    if (host_abc && n > p->h_cap_n) {
        if (p->h_abc)
            cuzk_gpu_host_free(p->ctx, p->h_abc);
        p->h_abc = NULL;
        p->h_cap_n = 0;
        if ((st = cuzk_gpu_host_alloc(p->ctx, 3 * n * FR_BYTES, &p->h_abc, err)))
            return st;
        p->h_cap_n = n;
    }
    return CUZK_OK;
}

cuzk_status cuzk_gpu_prover_reserve(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                    cuzk_error *err) {
    return cuzk_gpu_prover_reserve_batch(p, gk, 0, err);
}

cuzk_status cuzk_gpu_prover_reserve_batch(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                          size_t np, cuzk_error *err) {
    if (gk->max_provers && np > gk->max_provers)
        return cuzk_fail(err, CUZK_ENOMEM,
                         "GPU prover: a batch of %zu partitions needs %zu provers' buffers "
                         "(%.2f GiB each); beside the key and its MSM scratch the device "
                         "memory cap leaves room for %u",
                         np, np, (double)FR_BYTES * (2 * gk->n_vars + 3 * gk->n) / 1073741824.0,
                         gk->max_provers);
    apply_limits(p, gk);
    cuzk_status st = reserve(p, gk->n_vars, gk->n, 0, err);
    if (st != CUZK_OK || np == 0)
        return st;
    if (np > CUZK_GPU_MSM_MAX_VECTORS)
        np = CUZK_GPU_MSM_MAX_VECTORS;
    /* the MSMs of cuzk_gpu_prove_run, stream by stream: their scratch is
     * then in place and a proof grows nothing */
    size_t nv = gk->n_vars, first_private = gk->n_public + 1;
    unsigned dev = CUZK_GPU_SCALARS_DEVICE;
    if (st == CUZK_OK && !p->b2_cpu)
        st = cuzk_gpu_msm_reserve(p->s2, gk->b2, gk->n_q[1], np, dev, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_msm_reserve(p->s1, gk->a, gk->n_q[0], np, dev, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_msm_reserve(p->s1, gk->b1, gk->n_q[1], np, dev, err);
    if (st == CUZK_OK && gk->c)
        st = cuzk_gpu_msm_reserve(p->s1, gk->c, nv - first_private, np, dev, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_msm_reserve(p->s1, gk->h, gk->n, np, dev | CUZK_GPU_SCALARS_MONT, err);
    return st;
}

struct copy_ctx {
    uint8_t *dst;
    const uint8_t *src;
};

static void copy_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct copy_ctx *c = ctx;
    (void)worker;
    memcpy(c->dst + begin * FR_BYTES, c->src + begin * FR_BYTES, (end - begin) * FR_BYTES);
}

/* The G2 MSMs on stream 2, on the leading prover's G2 thread
 * (cuzk_gpu_msm blocks until its results are on the host): one pass over
 * the B2 bases for the witnesses of every prover in the batch. */
struct b2_job {
    cuzk_gpu_prover *p; /* streams and events: the batch's first prover */
    const cuzk_gpu_key *gk;
    const void *scalars[CUZK_GPU_MSM_MAX_VECTORS];
    const void *host_w[CUZK_GPU_MSM_MAX_VECTORS]; /* the witnesses' staging copies */
    size_t np;
    void *results;
    cuzk_status st;
    cuzk_error err;
};

/* The A, B1 or B2 MSM of a batch (|q| 0: A's wires, 1: B's): gathered
 * through the key's index list when it stores only the wires the query
 * uses.  Witness scalars are plain, on the device. */
static cuzk_status query_msm(cuzk_gpu_stream *s, const cuzk_gpu_key *gk, int q,
                             const cuzk_gpu_bases *b, size_t np, const void *const *sw,
                             void *out, cuzk_error *err) {
    if (gk->d_idx[q])
        return cuzk_gpu_msm_batch_gather(s, b, 0, gk->n_q[q], np, sw, gk->d_idx[q],
                                         CUZK_GPU_SCALARS_DEVICE, out, err);
    return cuzk_gpu_msm_batch(s, b, 0, gk->n_q[q], np, sw, CUZK_GPU_SCALARS_DEVICE, out, err);
}

/* B2 on the CPU: the pool runs one G2 MSM per partition from the host
 * staging copies of the witnesses, beside the G1 work on the device. */
static cuzk_status b2_cpu(struct b2_job *j) {
    cuzk_gpu_prover *p = j->p;
    const cuzk_key *k = j->gk->key;
    const cuzk_prover_table *pt = cuzk_prover_table_get(k->curve);
    size_t g2b = cuzk_curve_facts_get(k->curve)->g2_jacobian_bytes;
    size_t need = j->gk->n_q[1] * FR_BYTES;
    if (j->gk->d_idx[1] && need > p->h_gather_cap) {
        void *g = realloc(p->h_gather, need);
        if (!g)
            return cuzk_fail(&j->err, CUZK_ENOMEM, "GPU prove: no host memory to gather B2's "
                                                   "witness values (%zu bytes)", need);
        p->h_gather = g;
        p->h_gather_cap = need;
    }
    size_t sneed = pt->b2_msm_scratch_bytes(k, cuzk_pool_threads(p->pool));
    if (sneed > p->h_b2_cap) {
        void *g = realloc(p->h_b2, sneed);
        if (!g)
            return cuzk_fail(&j->err, CUZK_ENOMEM, "GPU prove: no host memory for B2's MSM "
                                                   "scratch (%zu bytes)", sneed);
        p->h_b2 = g;
        p->h_b2_cap = sneed;
    }
    for (size_t i = 0; i < j->np; i++) {
        cuzk_status st = pt->b2_msm_cpu(k, (const cuzk_fr *)j->host_w[i],
                                        (cuzk_fr *)p->h_gather,
                                        (uint8_t *)j->results + i * g2b,
                                        p->h_b2, p->h_b2_cap, p->pool);
        if (st != CUZK_OK)
            return cuzk_fail(&j->err, st, "GPU prove: B2 on the CPU: %s", cuzk_status_text(st));
    }
    return CUZK_OK;
}

static void *b2_main(void *arg) {
    struct b2_job *j = arg;
    cuzk_gpu_prover *p = j->p;
    j->st = cuzk_gpu_stream_wait_event(p->s2, p->ev[EV_RUN], &j->err);
    if (j->st == CUZK_OK && p->b2_cpu) /* the events then bracket the CPU's work */
        j->st = cuzk_gpu_stream_sync(p->s2, &j->err);
    if (j->st == CUZK_OK)
        j->st = cuzk_gpu_event_record(p->ev[EV_B2_START], p->s2, &j->err);
    if (j->st == CUZK_OK)
        j->st = p->b2_cpu ? b2_cpu(j)
                          : query_msm(p->s2, j->gk, 1, j->gk->b2, j->np, j->scalars,
                                      j->results, &j->err);
    if (j->st == CUZK_OK)
        j->st = cuzk_gpu_event_record(p->ev[EV_B2_END], p->s2, &j->err);
    return NULL;
}

/* The prover's G2 thread: runs each posted job, clears the mailbox when it
 * is done (the job's status and error are in the job), until told to quit
 * with the mailbox empty. */
static void *b2_thread_main(void *arg) {
    cuzk_gpu_prover *p = arg;
    pthread_setname_np(pthread_self(), "cuzk-gpu-g2");
    pthread_mutex_lock(&p->b2_lock);
    for (;;) {
        while (!p->b2_job && !p->b2_quit)
            pthread_cond_wait(&p->b2_cv, &p->b2_lock);
        struct b2_job *j = p->b2_job;
        if (!j)
            break; /* quit */
        pthread_mutex_unlock(&p->b2_lock);
        b2_main(j);
        pthread_mutex_lock(&p->b2_lock);
        p->b2_job = NULL;
        pthread_cond_broadcast(&p->b2_cv);
    }
    pthread_mutex_unlock(&p->b2_lock);
    return NULL;
}

/* Hand |j| to |p|'s G2 thread; returns 1 if it took it (b2_wait then
 * waits for it), 0 if the job was run in line. */
static int b2_post(cuzk_gpu_prover *p, struct b2_job *j) {
    if (!p->b2_started) {
        b2_main(j);
        return 0;
    }
    pthread_mutex_lock(&p->b2_lock);
    p->b2_job = j;
    pthread_cond_broadcast(&p->b2_cv);
    pthread_mutex_unlock(&p->b2_lock);
    return 1;
}

static void b2_wait(cuzk_gpu_prover *p) {
    pthread_mutex_lock(&p->b2_lock);
    while (p->b2_job)
        pthread_cond_wait(&p->b2_cv, &p->b2_lock);
    pthread_mutex_unlock(&p->b2_lock);
}

/* Jacobian results of both curves (the largest layout). */
typedef union g1_result {
    bls12_381_g1 bls12_381;
    bn254_g1 bn254;
} g1_result;
typedef union g2_result {
    bls12_381_g2 bls12_381;
    bn254_g2 bn254;
} g2_result;

/* a = A·w, b = B·w, c = a∘b for prover |p|'s witness, queued on |s|. */
static cuzk_status evaluate_gpu(cuzk_gpu_stream *s, cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                cuzk_error *err) {
    size_t n = gk->n;
    uint8_t *d = p->d_abc;
    cuzk_status st;
    if ((st = cuzk_gpu_spmv(s, gk->curve, gk->d_row_ptr[0], gk->d_cols[0], gk->d_vals[0], n,
                            p->d_wm, d, err)) ||
        (st = cuzk_gpu_spmv(s, gk->curve, gk->d_row_ptr[1], gk->d_cols[1], gk->d_vals[1], n,
                            p->d_wm, d + n * FR_BYTES, err)))
        return st;
    return cuzk_gpu_fr_mul_sub(s, gk->curve, d + 2 * n * FR_BYTES, d, d + n * FR_BYTES, NULL, n,
                               err);
}

/* h (into the first third of |p|'s a/b/c buffer), queued on |s|. */
static cuzk_status compute_h(cuzk_gpu_stream *s, cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                             cuzk_error *err) {
    size_t n = gk->n;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n)
        log_n++;
    /* odd coset: multiply by powers of w_2n, as the CPU prover does */
    cuzk_fr shift;
    cuzk_status st = cuzk_curve_facts_get(gk->key->curve)->fr_root_of_unity(&shift, log_n + 1);
    if (st != CUZK_OK)
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "domain 2^%u is too large for a coset", log_n);
    uint8_t *d = p->d_abc;
    for (int k = 0; k < 3; k++) {
        void *v = d + (size_t)k * n * FR_BYTES;
        /* = INVERSE then COSET_FORWARD, the coset scaling in the inverse's
         * last pass */
        if ((st = cuzk_gpu_ntt(s, gk->curve, v, log_n, CUZK_GPU_NTT_INVERSE_TO_COSET, &shift,
                               err)) ||
            (st = cuzk_gpu_ntt(s, gk->curve, v, log_n, CUZK_GPU_NTT_FORWARD, NULL, err)))
            return st;
    }
    return cuzk_gpu_fr_mul_sub(s, gk->curve, d, d, d + n * FR_BYTES, d + 2 * n * FR_BYTES, n,
                               err);
}

static double ev_us(cuzk_gpu_prover *p, int a, int b) {
    double us = 0;
    cuzk_error e;
    if (cuzk_gpu_event_elapsed_us(p->ev[a], p->ev[b], &us, &e) != CUZK_OK)
        return -1;
    return us;
}

cuzk_status cuzk_gpu_prove_upload(cuzk_gpu_prover *p, const cuzk_gpu_key *gk,
                                  const void *witness, const void *abc, cuzk_error *err) {
    size_t n = gk->n, nv = gk->n_vars;
    p->uploaded = NULL;
    cuzk_status st = reserve(p, nv, n, abc != NULL, err);
    if (st != CUZK_OK)
        return st;
    /* staging copies into pinned memory (parallel), then DMA */
    double t0 = now_us();
    struct copy_ctx cc = {p->h_w, witness};
    cuzk_pool_for(p->pool, nv, 1 << 16, copy_range, &cc);
    if (abc) {
        struct copy_ctx ca = {p->h_abc, abc};
        cuzk_pool_for(p->pool, 3 * n, 1 << 16, copy_range, &ca);
    }
    p->staging_us = now_us() - t0;
    *p->h_bad = UINT32_MAX;
    cuzk_gpu_stream *s1 = p->s1;
    if ((st = cuzk_gpu_event_record(p->ev[EV_START], s1, err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_copy_to_device(s1, p->d_w, p->h_w, nv * FR_BYTES, err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_copy_to_device(s1, p->d_bad, p->h_bad, 4, err)) != CUZK_OK)
        return st;
    if (abc &&
        (st = cuzk_gpu_copy_to_device(s1, p->d_abc, p->h_abc, 3 * n * FR_BYTES, err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_event_record(p->ev[EV_UPLOADED], s1, err)) != CUZK_OK ||
        (st = cuzk_gpu_stream_sync(s1, err)) != CUZK_OK)
        return st;
    p->uploaded = gk;
    p->have_abc = abc != NULL;
    return CUZK_OK;
}

cuzk_status cuzk_gpu_prove_run(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, const cuzk_fr *r,
                               const cuzk_fr *s, cuzk_proof *out, cuzk_gpu_timing *t,
                               cuzk_error *err) {
    cuzk_gpu_batch_item it = {.p = p, .out = out, .r = *r, .s = *s};
    cuzk_status st = cuzk_gpu_prove_run_batch(&it, 1, gk, t, err);
    if (st == CUZK_OK && it.st != CUZK_OK) {
        if (err)
            *err = it.err;
        st = it.st;
    }
    return st;
}

cuzk_status cuzk_gpu_prove_run_batch(cuzk_gpu_batch_item *items, size_t np,
                                     const cuzk_gpu_key *gk, cuzk_gpu_timing *t,
                                     cuzk_error *err) {
    return cuzk_gpu_prove_run_batch_notify(items, np, gk, t, NULL, NULL, err);
}

/* ---- one batch, step by step ------------------------------------------------------ */

/* A batch in flight: its items and key, the leading prover whose streams
 * and events run it, the scalar vectors of each MSM and the MSMs' results
 * (|np| of them packed at the curve's point size, unpacked into the unions
 * before assembly).  Lives on run_batch's stack. */
struct batch {
    cuzk_gpu_batch_item *items;
    size_t np;
    const cuzk_gpu_key *gk;
    cuzk_gpu_prover *p;
    const void *sw[CUZK_GPU_MSM_MAX_VECTORS]; /* witnesses (A, B1, B2) */
    const void *sc[CUZK_GPU_MSM_MAX_VECTORS]; /* their private part (C) */
    const void *sh[CUZK_GPU_MSM_MAX_VECTORS]; /* h */
    g1_result pa[CUZK_GPU_MSM_MAX_VECTORS], pb1[CUZK_GPU_MSM_MAX_VECTORS],
        pc[CUZK_GPU_MSM_MAX_VECTORS], ph[CUZK_GPU_MSM_MAX_VECTORS];
    g2_result pb2[CUZK_GPU_MSM_MAX_VECTORS];
    struct b2_job b2;
};

/* The batch's arguments as run_batch documents them. */
static cuzk_status batch_check(cuzk_gpu_batch_item *items, size_t np, const cuzk_gpu_key *gk,
                               cuzk_error *err) {
    if (np == 0 || np > CUZK_GPU_MSM_MAX_VECTORS)
        return cuzk_fail(err, CUZK_EINVAL, "GPU prove: a batch of %zu partitions (1..%d)", np,
                         CUZK_GPU_MSM_MAX_VECTORS);
    for (size_t i = 0; i < np; i++) {
        items[i].st = CUZK_OK;
        if (items[i].p->uploaded != gk)
            return cuzk_fail(err, CUZK_EINVAL, "GPU prove: no witness uploaded for this key");
        for (size_t j = 0; j < i; j++)
            if (items[j].p == items[i].p)
                return cuzk_fail(err, CUZK_EINVAL, "GPU prove: one prover twice in a batch");
    }
    if (gk->max_provers && np > gk->max_provers)
        return cuzk_fail(err, CUZK_ENOMEM,
                         "GPU prove: a batch of %zu partitions; the device memory cap leaves "
                         "room for %u provers' buffers beside the key",
                         np, gk->max_provers);
    for (size_t i = 0; i < np; i++)
        if (!items[i].p->have_abc && gk->no_csr)
            return cuzk_fail(err, CUZK_EUNSUPPORTED,
                             "GPU prove: the key's matrices stay in host memory under the "
                             "device-memory cap, so a, b, c must come evaluated from the host");
    return CUZK_OK;
}

/* The scalar vectors of every MSM and the B2 job, from the items. */
static void batch_init(struct batch *b, cuzk_gpu_batch_item *items, size_t np,
                       const cuzk_gpu_key *gk) {
    b->items = items, b->np = np, b->gk = gk, b->p = items[0].p;
    b->b2 = (struct b2_job){.p = b->p, .gk = gk, .np = np, .results = b->pb2};
    size_t first_private = gk->n_public + 1;
    for (size_t i = 0; i < np; i++) {
        const uint8_t *dw = items[i].p->d_w;
        b->sw[i] = b->b2.scalars[i] = dw;
        b->b2.host_w[i] = items[i].p->h_w;
        b->sc[i] = dw + first_private * FR_BYTES;
        b->sh[i] = items[i].p->d_abc;
        items[i].p->uploaded = NULL;
    }
}

/* Montgomery form of every witness (its range check runs in every mode),
 * and a, b, c where the host did not evaluate them. */
static cuzk_status step_evaluate(struct batch *b, cuzk_error *err) {
    const cuzk_gpu_key *gk = b->gk;
    for (size_t i = 0; i < b->np; i++) {
        cuzk_gpu_prover *q = b->items[i].p;
        cuzk_status st =
            cuzk_gpu_fr_from_plain(b->p->s1, gk->curve, q->d_wm, q->d_w, gk->n_vars, q->d_bad, err);
        if (st == CUZK_OK && !q->have_abc)
            st = evaluate_gpu(b->p->s1, q, gk, err);
        if (st != CUZK_OK)
            return st;
    }
    return CUZK_OK;
}

static cuzk_status step_h(struct batch *b, cuzk_error *err) {
    for (size_t i = 0; i < b->np; i++) {
        cuzk_status st = compute_h(b->p->s1, b->items[i].p, b->gk, err);
        if (st != CUZK_OK)
            return st;
    }
    return CUZK_OK;
}

/* The G1 MSMs: witness scalars are plain, h is Montgomery; all on the
 * device. */
static cuzk_status step_msm_a(struct batch *b, cuzk_error *err) {
    return query_msm(b->p->s1, b->gk, 0, b->gk->a, b->np, b->sw, b->pa, err);
}

static cuzk_status step_msm_b1(struct batch *b, cuzk_error *err) {
    return query_msm(b->p->s1, b->gk, 1, b->gk->b1, b->np, b->sw, b->pb1, err);
}

static cuzk_status step_msm_c(struct batch *b, cuzk_error *err) {
    const cuzk_gpu_key *gk = b->gk;
    if (!gk->c) {
        memset(b->pc, 0, sizeof b->pc); /* infinity: Z = 0 */
        return CUZK_OK;
    }
    return cuzk_gpu_msm_batch(b->p->s1, gk->c, 0, gk->n_vars - (gk->n_public + 1), b->np, b->sc,
                              CUZK_GPU_SCALARS_DEVICE, b->pc, err);
}

static cuzk_status step_msm_h(struct batch *b, cuzk_error *err) {
    return cuzk_gpu_msm_batch(b->p->s1, b->gk->h, 0, b->gk->n, b->np, b->sh,
                              CUZK_GPU_SCALARS_DEVICE | CUZK_GPU_SCALARS_MONT, b->ph, err);
}

/* Each witness's range-check word back to the host. */
static cuzk_status step_download(struct batch *b, cuzk_error *err) {
    for (size_t i = 0; i < b->np; i++) {
        cuzk_gpu_prover *q = b->items[i].p;
        cuzk_status st = cuzk_gpu_copy_to_host(b->p->s1, q->h_bad, q->d_bad, 4, err);
        if (st != CUZK_OK)
            return st;
    }
    return CUZK_OK;
}

/* The device steps on stream 1, in order, each followed by its event. */
static const struct {
    cuzk_status (*run)(struct batch *b, cuzk_error *err);
    int ev;
} batch_steps[] = {
    {step_evaluate, EV_EVALUATED}, {step_h, EV_NTT},         {step_msm_a, EV_MSM_A},
    {step_msm_b1, EV_MSM_B1},      {step_msm_c, EV_MSM_C},   {step_msm_h, EV_MSM_H},
    {step_download, EV_DOWN},
};

/* Every proof of the batch from its results (streams idle, results on the
 * host); a witness with a value out of range gets CUZK_ERANGE instead. */
static void batch_assemble(struct batch *b) {
    const cuzk_key *k = b->gk->key;
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(k->curve);
    const cuzk_prover_table *pt = cuzk_prover_table_get(k->curve);
    size_t g1b = ci->g1_jacobian_bytes, g2b = ci->g2_jacobian_bytes;
    for (size_t i = 0; i < b->np; i++) {
        cuzk_gpu_batch_item *it = &b->items[i];
        if (*it->p->h_bad != UINT32_MAX) {
            it->st = cuzk_fail(&it->err, CUZK_ERANGE,
                               "witness value %u is not below the field order", *it->p->h_bad);
            continue;
        }
        g1_result ra, rb1, rc, rh;
        g2_result rb2;
        memcpy(&ra, (const uint8_t *)b->pa + i * g1b, g1b);
        memcpy(&rb1, (const uint8_t *)b->pb1 + i * g1b, g1b);
        memcpy(&rc, (const uint8_t *)b->pc + i * g1b, g1b);
        memcpy(&rh, (const uint8_t *)b->ph + i * g1b, g1b);
        memcpy(&rb2, (const uint8_t *)b->pb2 + i * g2b, g2b);
        pt->assemble(it->out, k, &ra, &rb1, &rb2, &rc, &rh, &it->r, &it->s);
    }
}

static void batch_timing(cuzk_gpu_prover *p, cuzk_gpu_timing *t) {
    t->upload_us = p->staging_us + ev_us(p, EV_START, EV_UPLOADED);
    t->evaluate_us = ev_us(p, EV_RUN, EV_EVALUATED);
    t->ntt_us = ev_us(p, EV_EVALUATED, EV_NTT);
    t->msm_a_us = ev_us(p, EV_NTT, EV_MSM_A);
    t->msm_b1_us = ev_us(p, EV_MSM_A, EV_MSM_B1);
    t->msm_c_us = ev_us(p, EV_MSM_B1, EV_MSM_C);
    t->msm_h_us = ev_us(p, EV_MSM_C, EV_MSM_H);
    t->download_us = ev_us(p, EV_MSM_H, EV_DOWN);
    t->msm_b2_us = ev_us(p, EV_B2_START, EV_B2_END);
}

cuzk_status cuzk_gpu_prove_run_batch_notify(cuzk_gpu_batch_item *items, size_t np,
                                            const cuzk_gpu_key *gk, cuzk_gpu_timing *t,
                                            void (*gpu_done)(void *ctx), void *ctx,
                                            cuzk_error *err) {
    cuzk_gpu_timing local;
    if (!t)
        t = &local;
    memset(t, 0, sizeof *t);
    double t_start = now_us();
    cuzk_status st = batch_check(items, np, gk, err);
    if (st != CUZK_OK)
        return st;
    /* streams and events of the first prover run the whole batch; every
     * witness is already on the device (upload synchronises) */
    struct batch b;
    batch_init(&b, items, np, gk);
    cuzk_gpu_prover *p = b.p;
    apply_limits(p, gk);
    t->eval_on_gpu = !p->have_abc;
    /* B2 may start at once: every upload finished before this call */
    if ((st = cuzk_gpu_event_record(p->ev[EV_RUN], p->s1, err)) != CUZK_OK)
        return st;
    int posted = b2_post(p, &b.b2);
    for (size_t i = 0; i < sizeof batch_steps / sizeof batch_steps[0]; i++)
        if ((st = batch_steps[i].run(&b, err)) != CUZK_OK ||
            (st = cuzk_gpu_event_record(p->ev[batch_steps[i].ev], p->s1, err)) != CUZK_OK)
            break;
    if (st == CUZK_OK)
        st = cuzk_gpu_stream_sync(p->s1, err);
    if (posted)
        b2_wait(p); /* on every path: |b.b2| lives on this stack */
    if (st == CUZK_OK && b.b2.st != CUZK_OK) {
        if (err)
            *err = b.b2.err;
        st = b.b2.st;
    }
    if (st != CUZK_OK)
        goto unwind;
    /* the streams are idle and every result is on the host */
    if (gpu_done)
        gpu_done(ctx);
    double t_asm = now_us();
    batch_assemble(&b);
    t->assemble_us = now_us() - t_asm;
    batch_timing(p, t);
    t->total_us = now_us() - t_start;
    return CUZK_OK;

unwind: {
    /* leave the streams idle for the next proof */
    cuzk_error e2;
    cuzk_gpu_stream_sync(p->s1, &e2);
    cuzk_gpu_stream_sync(p->s2, &e2);
    return st;
}
}

#endif /* CUZK_HAVE_CUDA */
