/*
 * Device images of proving keys (groth16/prover/prove_gpu.h: cuzk_gpu_key_*):
 * where a key's bases go (device memory, or page-locked host memory that
 * the MSMs stream), the A and B matrices in CSR form, the MSM scratch
 * limits its provers get, and shifted copies of resident bases.  What a
 * key needs is computed here from the figures (cuzk_gpu_key_needs_of); where
 * it goes is the engine's decision (engine/gpu_tier.c), made before
 * anything is allocated so that a device-memory cap holds, and carried out
 * here (cuzk_gpu_key_create).
 *
 * Must not: decide a placement, allocate past the one given, or leave
 * device memory or a page-locked range behind on failure.
 */
#ifdef CUZK_HAVE_CUDA

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/curve_facts.h"
#include "groth16/prover/prove_gpu_key.h"

static size_t g1_affine_bytes(cuzk_curve c) { return cuzk_curve_facts_get(c)->g1_bytes; }

/* ---- key ------------------------------------------------------------------ */

/* The five point arrays of the key, in a curve-independent view. */
typedef cuzk_key_arrays key_view;

static void view_of(key_view *v, const cuzk_key *k) {
    cuzk_prover_table_get(k->curve)->key_arrays(k, v);
}

/* The A and B matrices in CSR form on the host: row pointers, columns and
 * values of matrix m (cnt[m] entries). */
typedef struct host_csr {
    uint32_t *rp[2], *cols[2];
    uint8_t *vals[2];
    size_t cnt[2];
} host_csr;

static void host_csr_free(host_csr *h) {
    for (int m = 0; m < 2; m++) {
        free(h->rp[m]);
        free(h->cols[m]);
        free(h->vals[m]);
    }
}

/* |h| from the key's coefficient list (n rows): every coefficient checked
 * against the key's rows and signals, then a counting sort by row, stable
 * within a row. */
static cuzk_status host_csr_make(host_csr *h, const key_view *v, size_t n, cuzk_error *err) {
    for (size_t i = 0; i < v->n_coefs; i++) {
        const cuzk_zkey_coef *e = &v->coefs[i];
        if (e->matrix > 1 || e->row >= n || e->signal >= v->n_vars)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "coefficient %zu (matrix %u, row %u, signal %u) is outside "
                             "the key's %zu rows and %zu signals",
                             i, e->matrix, e->row, e->signal, n, v->n_vars);
        h->cnt[e->matrix]++;
    }
    if (h->cnt[0] >= UINT32_MAX || h->cnt[1] >= UINT32_MAX)
        return cuzk_fail(err, CUZK_ERANGE, "more than 2^32 coefficients in one matrix");
    uint32_t *fill[2] = {NULL, NULL};
    for (int m = 0; m < 2; m++) {
        h->rp[m] = calloc(n + 1, sizeof(uint32_t));
        h->cols[m] = malloc((h->cnt[m] ? h->cnt[m] : 1) * sizeof(uint32_t));
        h->vals[m] = malloc((h->cnt[m] ? h->cnt[m] : 1) * FR_BYTES);
        fill[m] = malloc(n * sizeof(uint32_t));
        if (!h->rp[m] || !h->cols[m] || !h->vals[m] || !fill[m]) {
            free(fill[0]);
            free(fill[1]);
            return cuzk_fail(err, CUZK_ENOMEM, "no host memory for the CSR matrices");
        }
    }
    for (size_t i = 0; i < v->n_coefs; i++)
        h->rp[v->coefs[i].matrix][v->coefs[i].row + 1]++;
    for (int m = 0; m < 2; m++) {
        for (size_t r = 0; r < n; r++)
            h->rp[m][r + 1] += h->rp[m][r];
        memcpy(fill[m], h->rp[m], n * sizeof(uint32_t));
    }
    for (size_t i = 0; i < v->n_coefs; i++) {
        const cuzk_zkey_coef *e = &v->coefs[i];
        uint32_t at = fill[e->matrix][e->row]++;
        h->cols[e->matrix][at] = e->signal;
        memcpy(h->vals[e->matrix] + (size_t)at * FR_BYTES, &e->value, FR_BYTES);
    }
    free(fill[0]);
    free(fill[1]);
    return CUZK_OK;
}

/* Matrix |m| of |h| to the device (n rows). */
static cuzk_status csr_upload(cuzk_gpu_key *gk, const host_csr *h, int m, size_t n,
                              cuzk_error *err) {
    cuzk_gpu_stream *s = cuzk_gpu_ctx_stream(gk->ctx);
    size_t nz = h->cnt[m] ? h->cnt[m] : 1;
    gk->nnz[m] = h->cnt[m];
    cuzk_status st;
    if ((st = cuzk_gpu_malloc(gk->ctx, (n + 1) * 4, (void **)&gk->d_row_ptr[m], err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_malloc(gk->ctx, nz * 4, (void **)&gk->d_cols[m], err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_malloc(gk->ctx, nz * FR_BYTES, &gk->d_vals[m], err)) != CUZK_OK)
        return st;
    gk->device_bytes += (n + 1) * 4 + nz * (4 + FR_BYTES);
    if ((st = cuzk_gpu_copy_to_device(s, gk->d_row_ptr[m], h->rp[m], (n + 1) * 4, err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_copy_to_device(s, gk->d_cols[m], h->cols[m], nz * 4, err)) != CUZK_OK)
        return st;
    if ((st = cuzk_gpu_copy_to_device(s, gk->d_vals[m], h->vals[m], nz * FR_BYTES, err)) !=
        CUZK_OK)
        return st;
    return cuzk_gpu_stream_sync(s, err);
}

/* Upload the A and B matrices as CSR (rows = constraints of the domain). */
static cuzk_status upload_csr(cuzk_gpu_key *gk, const key_view *v, cuzk_error *err) {
    host_csr h;
    memset(&h, 0, sizeof h);
    cuzk_status st = host_csr_make(&h, v, gk->n, err);
    for (int m = 0; m < 2 && st == CUZK_OK; m++)
        st = csr_upload(gk, &h, m, gk->n, err);
    host_csr_free(&h);
    return st;
}

static cuzk_status make_bases(cuzk_gpu_key *gk, const key_view *v, int host,
                              cuzk_error *err) {
    cuzk_curve c = gk->curve;
    size_t nc = v->n_vars - v->n_public - 1;
    struct {
        cuzk_gpu_bases **out;
        cuzk_gpu_group g;
        const void *pts;
        size_t n;
    } list[5] = {{&gk->a, CUZK_GPU_G1, v->a, v->n_a},
                 {&gk->b1, CUZK_GPU_G1, v->b1, v->n_b},
                 {&gk->b2, CUZK_GPU_G2, v->b2, v->n_b},
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

/* The wires of a density bitmap's set bits, in order, on the device: the
 * gather lists of the A and B MSMs (cuzk_gpu_msm_batch_gather). */
static cuzk_status upload_index(cuzk_gpu_key *gk, int q, const uint64_t *bits, size_t n_vars,
                                size_t count, cuzk_error *err) {
    gk->n_q[q] = count;
    if (!bits)
        return CUZK_OK;
    uint32_t *h = malloc((count ? count : 1) * sizeof *h);
    if (!h)
        return cuzk_fail(err, CUZK_ENOMEM, "no host memory for a density index list");
    size_t m = 0;
    for (size_t i = 0; i < n_vars; i++)
        if ((bits[i / 64] >> (i % 64)) & 1) {
            if (m == count)
                break;
            h[m++] = (uint32_t)i;
        }
    cuzk_status st;
    cuzk_gpu_stream *s = cuzk_gpu_ctx_stream(gk->ctx);
    if (m != count) {
        st = cuzk_fail(err, CUZK_EFORMAT,
                       "key's %s density bitmap has %zu bits set for %zu points",
                       q ? "B" : "A", m, count);
        goto out;
    }
    st = cuzk_gpu_malloc(gk->ctx, (count ? count : 1) * 4, (void **)&gk->d_idx[q], err);
    if (st != CUZK_OK)
        goto out;
    gk->device_bytes += (count ? count : 1) * 4;
    if ((st = cuzk_gpu_copy_to_device(s, gk->d_idx[q], h, count * 4, err)) == CUZK_OK)
        st = cuzk_gpu_stream_sync(s, err);
out:
    free(h);
    return st;
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
static uint64_t plan_bytes(cuzk_gpu_ctx *ctx, cuzk_curve c, cuzk_gpu_group g, size_t n,
                           int host, size_t limit) {
    cuzk_gpu_msm_info info;
    cuzk_error e;
    if (cuzk_gpu_msm_plan(ctx, c, g, n, 1, CUZK_GPU_SCALARS_DEVICE, host, limit, &info, &e))
        return 0;
    return info.scratch_bytes;
}

static void needs_of(cuzk_gpu_ctx *ctx, cuzk_curve curve, const key_view *v, size_t n,
                     cuzk_gpu_key_needs *k) {
    size_t g1 = g1_affine_bytes(curve);
    size_t nv = v->n_vars, big = nv > n ? nv : n;
    size_t nc = nv - v->n_public - 1;
    k->bases = (uint64_t)g1 * (v->n_a + 2 * v->n_b + nc + n) + (uint64_t)g1 * v->n_b +
               (uint64_t)4 * ((v->a_density ? v->n_a : 0) + (v->b_density ? v->n_b : 0));
    k->work = (uint64_t)FR_BYTES * (2 * nv + 3 * n);
    k->csr = csr_bytes(v, n);
    k->s1 = plan_bytes(ctx, curve, CUZK_GPU_G1, big, 0, 0);
    k->s2 = plan_bytes(ctx, curve, CUZK_GPU_G2, v->n_b, 0, 0);
    k->h1 = plan_bytes(ctx, curve, CUZK_GPU_G1, big, 1, 0);
    k->h2 = plan_bytes(ctx, curve, CUZK_GPU_G2, v->n_b, 1, 0);
    k->m1 = plan_bytes(ctx, curve, CUZK_GPU_G1, big, 1, 1);
    k->m2 = plan_bytes(ctx, curve, CUZK_GPU_G2, v->n_b, 1, 1);
    /* the G1 plan of least modelled cost with no bound (one chunk) */
    k->u1 = plan_bytes(ctx, curve, CUZK_GPU_G1, big, 0, (size_t)1 << 42);
    k->log_n = (unsigned)v->log_n;
    k->n_vars = nv;
}

/* The key's view, checked: 0 after setting |err|. */
static int view_checked(key_view *v, const cuzk_key *key, cuzk_error *err) {
    if (!key || !cuzk_prover_table_get(key->curve)) {
        cuzk_fail(err, CUZK_EINVAL, "GPU key: no context or no loaded key");
        return 0;
    }
    view_of(v, key);
    if (v->n_vars < v->n_public + 1) {
        cuzk_fail(err, CUZK_EFORMAT, "key has %zu signals but %zu public", v->n_vars,
                  v->n_public);
        return 0;
    }
    return 1;
}

cuzk_status cuzk_gpu_key_needs_of(cuzk_gpu_ctx *ctx, const cuzk_key *key,
                                  cuzk_gpu_key_needs *out, cuzk_error *err) {
    key_view v;
    if (!ctx || !view_checked(&v, key, err))
        return err ? err->status : CUZK_EINVAL;
    needs_of(ctx, key->curve, &v, (size_t)1 << v.log_n, out);
    return CUZK_OK;
}

cuzk_status cuzk_gpu_key_create(cuzk_gpu_key **out, cuzk_gpu_ctx *ctx, const cuzk_key *key,
                                const cuzk_gpu_placement *pl, cuzk_error *err) {
    *out = NULL;
    key_view v;
    if (!ctx || !pl || !view_checked(&v, key, err))
        return ctx && pl ? (err ? err->status : CUZK_EINVAL)
                         : cuzk_fail(err, CUZK_EINVAL, "GPU key: no context or no placement");
    cuzk_gpu_key *gk = calloc(1, sizeof *gk);
    if (!gk)
        return cuzk_fail(err, CUZK_ENOMEM, "out of host memory");
    gk->ctx = ctx;
    gk->key = key;
    gk->curve = key->curve;
    gk->n_vars = v.n_vars;
    gk->n_public = v.n_public;
    gk->n = (size_t)1 << v.log_n;
    gk->msm_limit[0] = pl->msm_limit[0];
    gk->msm_limit[1] = pl->msm_limit[1];
    gk->max_provers = pl->max_provers;
    gk->no_csr = pl->no_csr;
    gk->host_streamed = pl->host;
    snprintf(gk->why, sizeof gk->why, "%s", pl->why);
    cuzk_status st = CUZK_OK;
    int host = gk->host_streamed;
    if (st == CUZK_OK)
        st = upload_index(gk, 0, v.a_density, v.n_vars, v.n_a, err);
    if (st == CUZK_OK)
        st = upload_index(gk, 1, v.b_density, v.n_vars, v.n_b, err);
    if (st == CUZK_OK && !gk->no_csr)
        st = upload_csr(gk, &v, err);
    if (st == CUZK_OK && !host) {
        st = make_bases(gk, &v, 0, err);
        if (st != CUZK_OK && pl->host_if_refused) {
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
        cuzk_gpu_free(gk->ctx, gk->d_idx[m]);
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

int cuzk_gpu_key_host_streamed(const cuzk_gpu_key *gk) { return gk->host_streamed; }
const char *cuzk_gpu_key_why(const cuzk_gpu_key *gk) { return gk->why; }
const cuzk_key *cuzk_gpu_key_host(const cuzk_gpu_key *gk) { return gk->key; }

#endif /* CUZK_HAVE_CUDA */
