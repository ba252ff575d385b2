/*
 * The GPU Groth16 prover (groth16/prove_gpu.h): device images of proving
 * keys and the per-proof sequence of device steps.
 */
#ifdef CUZK_HAVE_CUDA

#define _GNU_SOURCE /* pthread_setname_np */
#include "groth16/prove_gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/msm.h"
#include "gpu/ntt.h"
#include "gpu/prove.h"
#include "gpu/runtime.h"
#include "groth16/curve_impl.h"

#define FR_BYTES 32

struct cuzk_gpu_key {
    cuzk_gpu_ctx *ctx;
    const cuzk_key *key;
    cuzk_gpu_curve curve;
    size_t n_vars, n_public, n; /* n = domain size */
    cuzk_gpu_bases *a, *b1, *b2, *c, *h;
    /* CSR of A (m = 0) and B (m = 1): n + 1 row offsets, columns, values */
    uint32_t *d_row_ptr[2], *d_cols[2];
    void *d_vals[2];
    size_t nnz[2];
    uint64_t device_bytes;
    /* device scratch each MSM stream of a prover may plan for (gpu/msm.h:
     * [0] the G1 stream, [1] the B2 stream; 0: the default rule), and how
     * many provers' buffers fit beside the key and that scratch under the
     * context's memory cap (0: no cap) */
    size_t msm_limit[2];
    unsigned max_provers;
    int no_csr; /* the matrices stay on the host: a, b, c are evaluated there */
    int host_streamed;
    int registered; /* key->mem is page-locked by us */
    char why[200];  /* why the bases live where they do */
};

enum { EV_START, EV_UPLOADED, EV_EVALUATED, EV_NTT, EV_MSM_A, EV_MSM_B1,
       EV_MSM_C, EV_MSM_H, EV_DOWN, EV_B2_START, EV_B2_END, EV_RUN, EV_COUNT };

struct cuzk_gpu_prover {
    cuzk_gpu_ctx *ctx;
    cuzk_pool *pool;
    cuzk_gpu_eval_mode eval;
    cuzk_gpu_stream *s1, *s2;
    cuzk_gpu_event *ev[EV_COUNT];
    /* device: plain witness, Montgomery witness, a, b, c; result word */
    void *d_w, *d_wm, *d_abc;
    uint32_t *d_bad;
    size_t cap_vars, cap_n;
    /* pinned host: the witness staging copy (and a, b, c for the CPU
     * evaluation path), the bad-index word */
    void *h_w, *h_abc;
    uint32_t *h_bad;
    size_t h_cap_vars, h_cap_n;
    /* between cuzk_gpu_prove_upload and cuzk_gpu_prove_run */
    const cuzk_gpu_key *uploaded;
    int have_abc;
    double staging_us;
    /* r and s fixed by cuzk_gpu_prover_fix_rs (tests only) */
    int fixed_rs;
    cuzk_fr fix_r, fix_s;
    /* The G2 thread (b2_thread_main): created with the prover, it runs the
     * B2 MSMs of the batches this prover leads.  The mailbox is |b2_job|
     * under b2_lock: the prover posts a job and waits until the thread
     * clears it (done); b2_quit ends the thread, which
     * cuzk_gpu_prover_free joins.  No thread (creation failed): the job
     * runs in line, as one thread would. */
    pthread_mutex_t b2_lock;
    pthread_cond_t b2_cv;
    struct b2_job *b2_job;
    int b2_sync, b2_started, b2_quit;
    pthread_t b2_thread;
};

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static size_t g1_affine_bytes(cuzk_curve c) { return cuzk_curve_impl_get(c)->g1_bytes; }

/* ---- key ------------------------------------------------------------------ */

/* The five point arrays of the key, in a curve-independent view. */
typedef cuzk_key_arrays key_view;

static void view_of(key_view *v, const cuzk_key *k) {
    cuzk_curve_impl_get(k->curve)->key_arrays(k, v);
}

/* Upload the A and B matrices as CSR (rows = constraints of the domain). */
static cuzk_status upload_csr(cuzk_gpu_key *gk, const key_view *v,
                              cuzk_error *err) {
    size_t n = gk->n;
    uint32_t *rp[2] = {NULL, NULL}, *cols[2] = {NULL, NULL};
    uint8_t *vals[2] = {NULL, NULL};
    cuzk_status st = CUZK_OK;
    size_t cnt[2] = {0, 0};
    for (size_t i = 0; i < v->n_coefs; i++) {
        const cuzk_zkey_coef *e = &v->coefs[i];
        if (e->matrix > 1 || e->row >= n || e->signal >= v->n_vars)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "coefficient %zu (matrix %u, row %u, signal %u) is outside "
                             "the key's %zu rows and %zu signals",
                             i, e->matrix, e->row, e->signal, n, v->n_vars);
        cnt[e->matrix]++;
    }
    if (cnt[0] >= UINT32_MAX || cnt[1] >= UINT32_MAX)
        return cuzk_fail(err, CUZK_ERANGE, "more than 2^32 coefficients in one matrix");
    for (int m = 0; m < 2 && st == CUZK_OK; m++) {
        rp[m] = calloc(n + 1, sizeof(uint32_t));
        cols[m] = malloc((cnt[m] ? cnt[m] : 1) * sizeof(uint32_t));
        vals[m] = malloc((cnt[m] ? cnt[m] : 1) * FR_BYTES);
        if (!rp[m] || !cols[m] || !vals[m])
            st = cuzk_fail(err, CUZK_ENOMEM, "no host memory for the CSR matrices");
    }
    if (st == CUZK_OK) {
        /* counting sort by row, stable within a row */
        for (size_t i = 0; i < v->n_coefs; i++)
            rp[v->coefs[i].matrix][v->coefs[i].row + 1]++;
        for (int m = 0; m < 2; m++)
            for (size_t r = 0; r < n; r++)
                rp[m][r + 1] += rp[m][r];
        uint32_t *fill[2];
        for (int m = 0; m < 2 && st == CUZK_OK; m++) {
            fill[m] = malloc(n * sizeof(uint32_t));
            if (!fill[m])
                st = cuzk_fail(err, CUZK_ENOMEM, "no host memory for the CSR matrices");
            else
                memcpy(fill[m], rp[m], n * sizeof(uint32_t));
        }
        if (st == CUZK_OK)
            for (size_t i = 0; i < v->n_coefs; i++) {
                const cuzk_zkey_coef *e = &v->coefs[i];
                uint32_t at = fill[e->matrix][e->row]++;
                cols[e->matrix][at] = e->signal;
                memcpy(vals[e->matrix] + (size_t)at * FR_BYTES, &e->value, FR_BYTES);
            }
        free(fill[0]);
        free(fill[1]);
    }
    cuzk_gpu_stream *s = cuzk_gpu_ctx_stream(gk->ctx);
    for (int m = 0; m < 2 && st == CUZK_OK; m++) {
        size_t nz = cnt[m] ? cnt[m] : 1;
        gk->nnz[m] = cnt[m];
        if ((st = cuzk_gpu_malloc(gk->ctx, (n + 1) * 4, (void **)&gk->d_row_ptr[m], err)) ||
            (st = cuzk_gpu_malloc(gk->ctx, nz * 4, (void **)&gk->d_cols[m], err)) ||
            (st = cuzk_gpu_malloc(gk->ctx, nz * FR_BYTES, &gk->d_vals[m], err)))
            break;
        gk->device_bytes += (n + 1) * 4 + nz * (4 + FR_BYTES);
        if ((st = cuzk_gpu_copy_to_device(s, gk->d_row_ptr[m], rp[m], (n + 1) * 4, err)) ||
            (st = cuzk_gpu_copy_to_device(s, gk->d_cols[m], cols[m], nz * 4, err)) ||
            (st = cuzk_gpu_copy_to_device(s, gk->d_vals[m], vals[m], nz * FR_BYTES, err)) ||
            (st = cuzk_gpu_stream_sync(s, err)))
            break;
    }
    for (int m = 0; m < 2; m++) {
        free(rp[m]);
        free(cols[m]);
        free(vals[m]);
    }
    return st;
}

static cuzk_status make_bases(cuzk_gpu_key *gk, const key_view *v, int host,
                              cuzk_error *err) {
    cuzk_gpu_curve c = gk->curve;
    size_t nc = v->n_vars - v->n_public - 1;
    struct {
        cuzk_gpu_bases **out;
        cuzk_gpu_group g;
        const void *pts;
        size_t n;
    } list[5] = {{&gk->a, CUZK_GPU_G1, v->a, v->n_vars},
                 {&gk->b1, CUZK_GPU_G1, v->b1, v->n_vars},
                 {&gk->b2, CUZK_GPU_G2, v->b2, v->n_vars},
                 {&gk->c, CUZK_GPU_G1, v->c, nc},
                 {&gk->h, CUZK_GPU_G1, v->h, gk->n}};
    for (int i = 0; i < 5; i++) {
        if (list[i].n == 0)
            continue; /* no private signals: C stays NULL */
        cuzk_status st =
            host ? cuzk_gpu_bases_host(gk->ctx, c, list[i].g, list[i].pts, list[i].n, list[i].out, err)
                 : cuzk_gpu_bases_upload(gk->ctx, c, list[i].g, list[i].pts, list[i].n, list[i].out, err);
        if (st != CUZK_OK)
            return st;
        gk->device_bytes += cuzk_gpu_bases_bytes(*list[i].out);
    }
    return CUZK_OK;
}

static void free_bases(cuzk_gpu_key *gk) {
    cuzk_gpu_bases **all[5] = {&gk->a, &gk->b1, &gk->b2, &gk->c, &gk->h};
    for (int i = 0; i < 5; i++) {
        if (*all[i])
            gk->device_bytes -= cuzk_gpu_bases_bytes(*all[i]);
        cuzk_gpu_bases_free(*all[i]);
        *all[i] = NULL;
    }
}

/* Device bytes of the A and B matrices in CSR form (upload_csr). */
static uint64_t csr_bytes(const key_view *v, size_t n) {
    uint64_t nnz[2] = {0, 0};
    for (size_t i = 0; i < v->n_coefs; i++)
        if (v->coefs[i].matrix < 2)
            nnz[v->coefs[i].matrix]++;
    uint64_t b = 0;
    for (int m = 0; m < 2; m++)
        b += (uint64_t)(n + 1) * 4 + (nnz[m] ? nnz[m] : 1) * (4 + FR_BYTES);
    return b;
}

/* Scratch of one MSM plan (one vector, scalars on the device) under
 * |limit| (0: the default rule); with |limit| 1, the smallest plan that
 * exists. */
static uint64_t plan_bytes(cuzk_gpu_ctx *ctx, cuzk_gpu_curve c, cuzk_gpu_group g, size_t n,
                           int host, size_t limit) {
    cuzk_gpu_msm_info info;
    cuzk_error e;
    if (cuzk_gpu_msm_plan(ctx, c, g, n, 1, CUZK_GPU_SCALARS_DEVICE, host, limit, &info, &e))
        return 0;
    return info.scratch_bytes;
}

/* What a key needs on the device, in bytes: its bases, one prover's
 * buffers (witness twice, a/b/c), the A and B matrices, and the scratch of
 * the G1 and the B2 MSM streams: default plans resident (s) and streamed
 * (h), and the smallest plans that exist (m). */
typedef struct key_need {
    uint64_t bases, work, csr, s1, s2, h1, h2, m1, m2;
} key_need;

static void key_needs(const cuzk_gpu_key *gk, const key_view *v, key_need *k) {
    cuzk_gpu_ctx *ctx = gk->ctx;
    size_t g1 = g1_affine_bytes(gk->key->curve);
    size_t nv = v->n_vars, big = nv > gk->n ? nv : gk->n;
    k->bases = (uint64_t)g1 * (3 * nv + gk->n) + (uint64_t)2 * g1 * nv;
    k->work = (uint64_t)FR_BYTES * (2 * nv + 3 * gk->n);
    k->csr = csr_bytes(v, gk->n);
    k->s1 = plan_bytes(ctx, gk->curve, CUZK_GPU_G1, big, 0, 0);
    k->s2 = plan_bytes(ctx, gk->curve, CUZK_GPU_G2, nv, 0, 0);
    k->h1 = plan_bytes(ctx, gk->curve, CUZK_GPU_G1, big, 1, 0);
    k->h2 = plan_bytes(ctx, gk->curve, CUZK_GPU_G2, nv, 1, 0);
    k->m1 = plan_bytes(ctx, gk->curve, CUZK_GPU_G1, big, 1, 1);
    k->m2 = plan_bytes(ctx, gk->curve, CUZK_GPU_G2, nv, 1, 1);
}

/* The two MSM streams' limits from |left| bytes: their default plans (d1,
 * d2) when those fit (0, the default rule itself, without a cap), else
 * the smallest plans (m1, m2) and the rest in the ratio of the defaults. */
static void split_limits(cuzk_gpu_key *gk, double left, uint64_t d1, uint64_t d2, uint64_t m1,
                         uint64_t m2, int capped) {
    if (left >= (double)(d1 + d2)) {
        gk->msm_limit[0] = capped ? d1 : 0;
        gk->msm_limit[1] = capped ? d2 : 0;
        return;
    }
    double extra = left - (double)(m1 + m2);
    gk->msm_limit[0] = m1 + (size_t)(extra * (double)d1 / (double)(d1 + d2));
    gk->msm_limit[1] = (size_t)left - gk->msm_limit[0];
}

/*
 * Where the key goes and what its provers' MSMs may use, decided before
 * anything is allocated, from the device memory the context sees (its cap
 * included).  Resident (AUTO) needs the bases, the matrices, one prover's
 * buffers and the default MSM scratch of both streams within 90% of the
 * free memory; DEVICE takes less scratch if it must.  Otherwise the bases
 * stay in host memory with the scratch limits shrunk to what is left, and
 * under a cap the matrices too when only that fits (a, b, c then come
 * evaluated from the host).  A key that does not fit even then is refused
 * here, naming the figures, rather than failing a proof.
 */
static cuzk_status place_key(cuzk_gpu_key *gk, const key_view *v, cuzk_gpu_key_mode mode,
                             cuzk_error *err) {
    const double G = 1073741824.0;
    key_need k;
    key_needs(gk, v, &k);
    cuzk_gpu_mem_info mi;
    cuzk_gpu_ctx_mem(gk->ctx, &mi);
    int capped = mi.limit_bytes != 0;
    char cap[48] = "";
    if (capped)
        snprintf(cap, sizeof cap, " (device cap %.2f GiB)", mi.limit_bytes / G);
    double room = 0.9 * (double)mi.free_bytes;
    uint64_t need_dev = k.bases + k.csr + k.work + k.s1 + k.s2;
    int host = mode == CUZK_GPU_KEY_HOST ||
               (mode == CUZK_GPU_KEY_AUTO && (double)need_dev > room);
    /* what the MSMs get: room less the key's device part and one prover */
    double left = room - (double)(k.csr + k.work + (host ? 0 : k.bases));
    if (host && capped && left < (double)(k.m1 + k.m2) &&
        left + (double)k.csr >= (double)(k.m1 + k.m2)) {
        gk->no_csr = 1; /* the matrices stay on the host */
        left += (double)k.csr;
    }
    if (left < (double)(k.m1 + k.m2))
        return cuzk_fail(err, CUZK_ENOMEM,
                         "GPU key (2^%u, %zu signals): %s it needs %.2f GiB of device memory at "
                         "the least (bases %.2f, matrices %.2f, one prover's buffers %.2f, MSM "
                         "scratch %.2f); 90%% of the %.2f GiB free%s is %.2f GiB",
                         (unsigned)v->log_n, v->n_vars,
                         host ? "even with its bases in host memory" : "resident",
                         (k.csr + k.work + k.m1 + k.m2 + (host ? 0 : k.bases)) / G,
                         host ? 0.0 : k.bases / G, k.csr / G, k.work / G, (k.m1 + k.m2) / G,
                         mi.free_bytes / G, cap, room / G);
    split_limits(gk, left, host ? k.h1 : k.s1, host ? k.h2 : k.s2, k.m1, k.m2, capped);
    double l1 = gk->msm_limit[0] ? gk->msm_limit[0] : (host ? k.h1 : k.s1);
    double l2 = gk->msm_limit[1] ? gk->msm_limit[1] : (host ? k.h2 : k.s2);
    if (!host)
        snprintf(gk->why, sizeof gk->why,
                 "device memory: resident it needs %.2f GiB (bases %.2f) of the %.2f GiB "
                 "free%s; MSM scratch %.2f + %.2f GiB",
                 (k.bases + k.csr + k.work + l1 + l2) / G, k.bases / G, mi.free_bytes / G, cap,
                 l1 / G, l2 / G);
    else if (mode == CUZK_GPU_KEY_HOST)
        snprintf(gk->why, sizeof gk->why,
                 "pinned host memory: asked for; MSM scratch %.2f + %.2f GiB%s", l1 / G, l2 / G,
                 cap);
    else
        snprintf(gk->why, sizeof gk->why,
                 "pinned host memory: resident it needs %.2f GiB (bases %.2f), more than 90%% "
                 "of the %.2f GiB free%s; streamed, MSM scratch %.2f + %.2f GiB",
                 need_dev / G, k.bases / G, mi.free_bytes / G, cap, l1 / G, l2 / G);
    if (gk->no_csr) {
        size_t w = strlen(gk->why);
        snprintf(gk->why + w, sizeof gk->why - w,
                 "; matrices (%.2f GiB) on the host, a/b/c evaluated there", k.csr / G);
    }
    gk->host_streamed = host;
    if (capped) { /* provers whose buffers fit beside the rest */
        double spare = left - (double)(gk->msm_limit[0] + gk->msm_limit[1]) + (double)k.work;
        gk->max_provers = spare >= (double)k.work ? (unsigned)(spare / (double)k.work) : 1;
    }
    return CUZK_OK;
}

cuzk_status cuzk_gpu_key_create(cuzk_gpu_key **out, cuzk_gpu_ctx *ctx, const cuzk_key *key,
                                cuzk_gpu_key_mode mode, cuzk_error *err) {
    *out = NULL;
    if (!ctx || !key || !cuzk_curve_impl_get(key->curve))
        return cuzk_fail(err, CUZK_EINVAL, "GPU key: no context or no loaded key");
    cuzk_gpu_key *gk = calloc(1, sizeof *gk);
    if (!gk)
        return cuzk_fail(err, CUZK_ENOMEM, "out of host memory");
    key_view v;
    view_of(&v, key);
    gk->ctx = ctx;
    gk->key = key;
    gk->curve = (cuzk_gpu_curve)cuzk_curve_impl_get(key->curve)->gpu_curve;
    gk->n_vars = v.n_vars;
    gk->n_public = v.n_public;
    gk->n = (size_t)1 << v.log_n;
    if (v.n_vars < v.n_public + 1) {
        free(gk);
        return cuzk_fail(err, CUZK_EFORMAT, "key has %zu signals but %zu public", v.n_vars,
                         v.n_public);
    }

    cuzk_status st = place_key(gk, &v, mode, err);
    int host = gk->host_streamed;
    if (st == CUZK_OK && !gk->no_csr)
        st = upload_csr(gk, &v, err);
    if (st == CUZK_OK && !host) {
        st = make_bases(gk, &v, 0, err);
        if (st != CUZK_OK && mode == CUZK_GPU_KEY_AUTO) {
            /* did not fit after all: stream from host memory instead */
            free_bases(gk);
            host = 1;
            st = CUZK_OK;
            snprintf(gk->why, sizeof gk->why,
                     "pinned host memory: the device refused the bases (%.120s)",
                     err ? err->msg : "out of memory");
        }
    }
    if (st == CUZK_OK && host) {
        st = cuzk_gpu_host_register(ctx, key->mem, key->mem_bytes, err);
        if (st == CUZK_OK) {
            gk->registered = 1;
            gk->host_streamed = 1;
            st = make_bases(gk, &v, 1, err);
        }
    }
    if (st != CUZK_OK) {
        cuzk_gpu_key_free(gk);
        return st;
    }
    *out = gk;
    return CUZK_OK;
}

cuzk_status cuzk_gpu_key_precompute(cuzk_gpu_key *gk, size_t max_bytes, size_t *used,
                                    cuzk_error *err) {
    if (used)
        *used = 0;
    if (gk->host_streamed)
        return CUZK_OK;
    /* by MSM time in a 2^24 proof: H 155 ms, B2 189 (second stream), A
     * 79, B1 40, C 39 */
    cuzk_gpu_bases *order[5] = {gk->h, gk->b2, gk->a, gk->b1, gk->c};
    size_t left = max_bytes;
    for (int i = 0; i < 5 && left > 0; i++) { /* 0 would mean "all free memory" */
        cuzk_gpu_bases *b = order[i];
        if (!b || cuzk_gpu_bases_shift_bits(b))
            continue;
        size_t before = cuzk_gpu_bases_bytes(b);
        cuzk_error e2;
        cuzk_status st = cuzk_gpu_bases_precompute(b, 0, left, &e2);
        if (st == CUZK_ENOMEM || st == CUZK_ERANGE || st == CUZK_EINVAL)
            continue; /* does not fit (or too many points): stays plain */
        if (st != CUZK_OK) {
            if (err)
                *err = e2;
            return st;
        }
        size_t took = cuzk_gpu_bases_bytes(b) - before;
        left -= took < left ? took : left;
        gk->device_bytes += took;
        if (used)
            *used += took;
    }
    return CUZK_OK;
}

void cuzk_gpu_key_free(cuzk_gpu_key *gk) {
    if (!gk)
        return;
    free_bases(gk);
    for (int m = 0; m < 2; m++) {
        cuzk_gpu_free(gk->ctx, gk->d_row_ptr[m]);
        cuzk_gpu_free(gk->ctx, gk->d_cols[m]);
        cuzk_gpu_free(gk->ctx, gk->d_vals[m]);
    }
    if (gk->registered)
        cuzk_gpu_host_unregister(gk->ctx, gk->key->mem);
    free(gk);
}

uint64_t cuzk_gpu_key_device_bytes(const cuzk_gpu_key *gk) { return gk->device_bytes; }
unsigned cuzk_gpu_key_max_provers(const cuzk_gpu_key *gk) { return gk->max_provers; }

/* The key's MSM scratch limits on |p|'s streams (before any MSM of it). */
static void apply_limits(cuzk_gpu_prover *p, const cuzk_gpu_key *gk) {
    cuzk_gpu_stream_set_msm_limit(p->s1, gk->msm_limit[0]);
    cuzk_gpu_stream_set_msm_limit(p->s2, gk->msm_limit[1]);
}
int cuzk_gpu_key_host_streamed(const cuzk_gpu_key *gk) { return gk->host_streamed; }
const char *cuzk_gpu_key_why(const cuzk_gpu_key *gk) { return gk->why; }
const cuzk_key *cuzk_gpu_key_host(const cuzk_gpu_key *gk) { return gk->key; }

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
    free(p);
}

void cuzk_gpu_prover_set_eval(cuzk_gpu_prover *p, cuzk_gpu_eval_mode mode) { p->eval = mode; }

void cuzk_gpu_prover_fix_rs(cuzk_gpu_prover *p, const cuzk_fr *r, const cuzk_fr *s) {
    p->fixed_rs = r && s;
    if (p->fixed_rs) {
        p->fix_r = *r;
        p->fix_s = *s;
    }
}

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

/* Grow the device and pinned buffers to a key's sizes (kept afterwards). */
static cuzk_status reserve(cuzk_gpu_prover *p, size_t n_vars, size_t n, int cpu_eval,
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
    if (cpu_eval && n > p->h_cap_n) {
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
    if (st == CUZK_OK)
        st = cuzk_gpu_msm_reserve(p->s2, gk->b2, nv, np, dev, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_msm_reserve(p->s1, gk->a, nv, np, dev, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_msm_reserve(p->s1, gk->b1, nv, np, dev, err);
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
    size_t np;
    void *results;
    cuzk_status st;
    cuzk_error err;
};

static void *b2_main(void *arg) {
    struct b2_job *j = arg;
    cuzk_gpu_prover *p = j->p;
    j->st = cuzk_gpu_stream_wait_event(p->s2, p->ev[EV_RUN], &j->err);
    if (j->st == CUZK_OK)
        j->st = cuzk_gpu_event_record(p->ev[EV_B2_START], p->s2, &j->err);
    if (j->st == CUZK_OK)
        j->st = cuzk_gpu_msm_batch(p->s2, j->gk->b2, 0, j->gk->n_vars, j->np, j->scalars,
                                   CUZK_GPU_SCALARS_DEVICE, j->results, &j->err);
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

static cuzk_status evaluate_cpu(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, cuzk_error *err) {
    const cuzk_key *k = gk->key;
    size_t n = gk->n;
    uint8_t *abc = p->h_abc;
    return cuzk_curve_impl_get(k->curve)->evaluate(k, p->h_w, (cuzk_fr *)abc,
                                                   (cuzk_fr *)(abc + n * FR_BYTES),
                                                   (cuzk_fr *)(abc + 2 * n * FR_BYTES), p->pool,
                                                   err);
}

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
    cuzk_status st = cuzk_curve_impl_get(gk->key->curve)->fr_root_of_unity(&shift, log_n + 1);
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

static cuzk_status random_rs(cuzk_curve c, cuzk_fr *r, cuzk_fr *s, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(c);
    cuzk_status st;
    if ((st = ci->fr_random(r, err)))
        return st;
    return ci->fr_random(s, err);
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
    cuzk_status st = reserve(p, nv, n, abc != NULL && abc != p->h_abc, err);
    if (st != CUZK_OK)
        return st;
    /* staging copies into pinned memory (parallel), then DMA */
    double t0 = now_us();
    /* (the CPU-evaluation path hands in the pinned buffers themselves) */
    if (witness != p->h_w) {
        struct copy_ctx cc = {p->h_w, witness};
        cuzk_pool_for(p->pool, nv, 1 << 16, copy_range, &cc);
    }
    if (abc && abc != p->h_abc) {
        struct copy_ctx ca = {p->h_abc, abc};
        cuzk_pool_for(p->pool, 3 * n, 1 << 16, copy_range, &ca);
    }
    p->staging_us = now_us() - t0;
    *p->h_bad = UINT32_MAX;
    if ((st = cuzk_gpu_event_record(p->ev[EV_START], p->s1, err)) ||
        (st = cuzk_gpu_copy_to_device(p->s1, p->d_w, p->h_w, nv * FR_BYTES, err)) ||
        (st = cuzk_gpu_copy_to_device(p->s1, p->d_bad, p->h_bad, 4, err)) ||
        (abc && (st = cuzk_gpu_copy_to_device(p->s1, p->d_abc, p->h_abc, 3 * n * FR_BYTES, err))) ||
        (st = cuzk_gpu_event_record(p->ev[EV_UPLOADED], p->s1, err)) ||
        (st = cuzk_gpu_stream_sync(p->s1, err)))
        return st;
    p->uploaded = gk;
    p->have_abc = abc != NULL;
    return CUZK_OK;
}

cuzk_status cuzk_gpu_prove_run(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, cuzk_proof *out,
                               cuzk_gpu_timing *t, cuzk_error *err) {
    cuzk_gpu_batch_item it = {.p = p, .out = out};
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

cuzk_status cuzk_gpu_prove_run_batch_notify(cuzk_gpu_batch_item *items, size_t np,
                                            const cuzk_gpu_key *gk, cuzk_gpu_timing *t,
                                            void (*gpu_done)(void *ctx), void *ctx,
                                            cuzk_error *err) {
    cuzk_gpu_timing local;
    if (!t)
        t = &local;
    memset(t, 0, sizeof *t);
    double t_start = now_us();
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
    /* streams and events of the first prover run the whole batch; every
     * witness is already on the device (upload synchronises) */
    cuzk_gpu_prover *p = items[0].p;
    apply_limits(p, gk);
    cuzk_gpu_stream *s1 = p->s1;
    const cuzk_key *k = gk->key;
    size_t n = gk->n, nv = gk->n_vars, first_private = gk->n_public + 1;
    t->eval_on_gpu = !p->have_abc;
    for (size_t i = 0; i < np; i++)
        if (!items[i].p->have_abc && gk->no_csr)
            return cuzk_fail(err, CUZK_EUNSUPPORTED,
                             "GPU prove: the key's matrices stay in host memory under the "
                             "device-memory cap, so a, b, c must come evaluated from the host");
    cuzk_fr r[CUZK_GPU_MSM_MAX_VECTORS], s[CUZK_GPU_MSM_MAX_VECTORS];
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; i < np && st == CUZK_OK; i++) {
        cuzk_gpu_prover *q = items[i].p;
        q->uploaded = NULL;
        if (q->fixed_rs)
            r[i] = q->fix_r, s[i] = q->fix_s;
        else
            st = random_rs(k->curve, &r[i], &s[i], err);
    }
    if (st != CUZK_OK)
        return st;

    /* the MSMs write their |np| results packed at the curve's point size;
     * unpacked into the unions before assembly */
    g1_result ra[CUZK_GPU_MSM_MAX_VECTORS], rb1[CUZK_GPU_MSM_MAX_VECTORS],
        rc[CUZK_GPU_MSM_MAX_VECTORS], rh[CUZK_GPU_MSM_MAX_VECTORS];
    g2_result rb2[CUZK_GPU_MSM_MAX_VECTORS];
    g1_result pa[CUZK_GPU_MSM_MAX_VECTORS], pb1[CUZK_GPU_MSM_MAX_VECTORS],
        pc[CUZK_GPU_MSM_MAX_VECTORS], ph[CUZK_GPU_MSM_MAX_VECTORS];
    g2_result pb2[CUZK_GPU_MSM_MAX_VECTORS];
    const void *sw[CUZK_GPU_MSM_MAX_VECTORS], *sc[CUZK_GPU_MSM_MAX_VECTORS],
        *sh[CUZK_GPU_MSM_MAX_VECTORS];
    struct b2_job b2 = {.p = p, .gk = gk, .np = np, .results = pb2};
    for (size_t i = 0; i < np; i++) {
        const uint8_t *dw = items[i].p->d_w;
        sw[i] = b2.scalars[i] = dw;
        sc[i] = dw + first_private * FR_BYTES;
        sh[i] = items[i].p->d_abc;
    }
    /* B2 may start at once: every upload finished before this call */
    if ((st = cuzk_gpu_event_record(p->ev[EV_RUN], s1, err)) != CUZK_OK)
        return st;
    int posted = b2_post(p, &b2);

    /* evaluate (the range check of the witness runs in every mode) */
    for (size_t i = 0; i < np && !st; i++) {
        cuzk_gpu_prover *q = items[i].p;
        if (!(st = cuzk_gpu_fr_from_plain(s1, gk->curve, q->d_wm, q->d_w, nv, q->d_bad, err)) &&
            !q->have_abc)
            st = evaluate_gpu(s1, q, gk, err);
    }
    if (!st)
        st = cuzk_gpu_event_record(p->ev[EV_EVALUATED], s1, err);
    for (size_t i = 0; i < np && !st; i++)
        st = compute_h(s1, items[i].p, gk, err);
    if (!st)
        st = cuzk_gpu_event_record(p->ev[EV_NTT], s1, err);
    /* G1 MSMs: witness scalars are plain, h is Montgomery; all on device */
    if (!st && !(st = cuzk_gpu_msm_batch(s1, gk->a, 0, nv, np, sw, CUZK_GPU_SCALARS_DEVICE, pa,
                                         err)))
        st = cuzk_gpu_event_record(p->ev[EV_MSM_A], s1, err);
    if (!st && !(st = cuzk_gpu_msm_batch(s1, gk->b1, 0, nv, np, sw, CUZK_GPU_SCALARS_DEVICE, pb1,
                                         err)))
        st = cuzk_gpu_event_record(p->ev[EV_MSM_B1], s1, err);
    if (!st) {
        if (gk->c)
            st = cuzk_gpu_msm_batch(s1, gk->c, 0, nv - first_private, np, sc,
                                    CUZK_GPU_SCALARS_DEVICE, pc, err);
        else
            memset(pc, 0, sizeof pc); /* infinity: Z = 0 */
        if (!st)
            st = cuzk_gpu_event_record(p->ev[EV_MSM_C], s1, err);
    }
    if (!st && !(st = cuzk_gpu_msm_batch(s1, gk->h, 0, n, np, sh,
                                         CUZK_GPU_SCALARS_DEVICE | CUZK_GPU_SCALARS_MONT, ph,
                                         err)))
        st = cuzk_gpu_event_record(p->ev[EV_MSM_H], s1, err);
    for (size_t i = 0; i < np && !st; i++)
        st = cuzk_gpu_copy_to_host(s1, items[i].p->h_bad, items[i].p->d_bad, 4, err);
    if (!st && !(st = cuzk_gpu_event_record(p->ev[EV_DOWN], s1, err)))
        st = cuzk_gpu_stream_sync(s1, err);

    if (posted)
        b2_wait(p); /* on every path: |b2| lives on this stack */
    if (st == CUZK_OK && b2.st != CUZK_OK) {
        if (err)
            *err = b2.err;
        st = b2.st;
    }
    if (st != CUZK_OK) {
        /* leave the streams idle for the next proof */
        cuzk_error e2;
        cuzk_gpu_stream_sync(s1, &e2);
        cuzk_gpu_stream_sync(p->s2, &e2);
        return st;
    }

    /* the streams are idle and every result is on the host */
    if (gpu_done)
        gpu_done(ctx);
    double t_asm = now_us();
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->curve);
    size_t g1b = ci->g1_jacobian_bytes;
    size_t g2b = ci->g2_jacobian_bytes;
    for (size_t i = 0; i < np; i++) {
        memcpy(&ra[i], (const uint8_t *)pa + i * g1b, g1b);
        memcpy(&rb1[i], (const uint8_t *)pb1 + i * g1b, g1b);
        memcpy(&rc[i], (const uint8_t *)pc + i * g1b, g1b);
        memcpy(&rh[i], (const uint8_t *)ph + i * g1b, g1b);
        memcpy(&rb2[i], (const uint8_t *)pb2 + i * g2b, g2b);
    }
    for (size_t i = 0; i < np; i++) {
        cuzk_gpu_batch_item *it = &items[i];
        if (*it->p->h_bad != UINT32_MAX) {
            it->st = cuzk_fail(&it->err, CUZK_ERANGE,
                               "witness value %u is not below the field order", *it->p->h_bad);
            continue;
        }
        ci->assemble(it->out, k, &ra[i], &rb1[i], &rb2[i], &rc[i], &rh[i], &r[i], &s[i]);
    }
    t->assemble_us = now_us() - t_asm;

    t->upload_us = p->staging_us + ev_us(p, EV_START, EV_UPLOADED);
    t->evaluate_us = ev_us(p, EV_RUN, EV_EVALUATED);
    t->ntt_us = ev_us(p, EV_EVALUATED, EV_NTT);
    t->msm_a_us = ev_us(p, EV_NTT, EV_MSM_A);
    t->msm_b1_us = ev_us(p, EV_MSM_A, EV_MSM_B1);
    t->msm_c_us = ev_us(p, EV_MSM_B1, EV_MSM_C);
    t->msm_h_us = ev_us(p, EV_MSM_C, EV_MSM_H);
    t->download_us = ev_us(p, EV_MSM_H, EV_DOWN);
    t->msm_b2_us = ev_us(p, EV_B2_START, EV_B2_END);
    t->total_us = now_us() - t_start;
    return CUZK_OK;
}

cuzk_status cuzk_gpu_prove(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, const cuzk_wtns *w,
                           cuzk_proof *out, cuzk_gpu_timing *t, cuzk_error *err) {
    double t0 = now_us();
    const cuzk_key *k = gk->key;
    if (w->curve != k->curve)
        return cuzk_fail(err, CUZK_ECURVE, "witness is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(w->curve), cuzk_curve_snarkjs_name(k->curve));
    if (w->n_witness != gk->n_vars)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %u values, the key expects %zu (different circuits?)",
                         w->n_witness, gk->n_vars);
    size_t n = gk->n;
    int gpu_eval = !gk->no_csr && (p->eval == CUZK_GPU_EVAL_GPU ||
                   (p->eval == CUZK_GPU_EVAL_AUTO && n >= ((size_t)1 << CUZK_GPU_EVAL_MIN_LOG)));
    cuzk_status st;
    double eval_cpu_us = 0;
    if (gpu_eval) {
        st = cuzk_gpu_prove_upload(p, gk, w->values, NULL, err);
    } else {
        /* a, b, c on the CPU into the pinned buffer, from an aligned copy
         * of the witness (the pinned witness buffer) */
        if ((st = reserve(p, gk->n_vars, n, 1, err)) != CUZK_OK)
            return st;
        struct copy_ctx cc = {p->h_w, w->values};
        cuzk_pool_for(p->pool, gk->n_vars, 1 << 16, copy_range, &cc);
        double te = now_us();
        if ((st = evaluate_cpu(p, gk, err)) != CUZK_OK)
            return st;
        eval_cpu_us = now_us() - te;
        st = cuzk_gpu_prove_upload(p, gk, p->h_w, p->h_abc, err);
    }
    if (st != CUZK_OK)
        return st;
    double up_wall = now_us() - t0;
    st = cuzk_gpu_prove_run(p, gk, out, t, err);
    if (st == CUZK_OK && t) {
        if (!gpu_eval)
            t->evaluate_us += eval_cpu_us;
        t->total_us += up_wall;
    }
    return st;
}

#endif /* CUZK_HAVE_CUDA */
