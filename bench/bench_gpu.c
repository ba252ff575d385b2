/*
 * GPU benchmarks: Montgomery product throughput (the kernels' even/odd form
 * against CIOS on 32- and 64-bit words, and against the even/odd form as
 * compiled before, inlined and called: "eo-32-prev", "eo-32-call-prev"), MSM
 * G1/G2 of both curves with bases resident on the device, NTT with data on
 * the device.  Prints one line per measurement ("bench_gpu: ...") and a
 * summary table last.
 *
 * Timing: wall clock around the blocking call (MSM) or around call plus
 * stream synchronisation (NTT), after one warm-up run; the median of
 * |reps| runs is reported.  MSM scalars are random Fr elements (Montgomery
 * form) in pinned host memory, copied inside the timed call ("resident"
 * column of the peer table in docs/PERFORMANCE.md, which copies from pageable memory); a second
 * figure takes them from device memory.  Bases are 2^18 distinct random
 * points repeated to the size (a base repeats every 2^18 points).
 *
 * Options: --quick (smaller sizes, for a smoke run), --msm-max-log N,
 * --ntt-min-log N, --ntt-max-log N, --reps N, --skip-msm, --skip-ntt,
 * --skip-field, --ntt-ab (each NTT size also with CUZK_NTT_PLAN=fixed
 * against the default plan, one call + sync and 16 queued calls per sync,
 * and up to 2^22 the six transforms of Groth16's H, plain against fused),
 * --msm-only NAME, --msm-accum xyzz|affine|both (the MSMs' bucket
 * accumulation: XYZZ additions, the default, or the batch-affine levels of
 * msm/gpu/msm_affine.cuh; "both" runs every MSM figure with each, the
 * affine rows named "... affine")
 * (only the MSM groups whose name contains NAME, e.g. "G2"), --no-shifted (skip
 * the MSMs over bases with precomputed shifted copies, which are built per
 * size and timed the same way).  BLS12-381 G1 also gets a per-phase profile
 * at each size (plain and shifted) and a window-size sweep at 2^24.
 * --host-bases: instead of the above, MSMs over bases in pinned host memory
 * (cuzk_gpu_bases_host) against the same bases resident, at the sizes of
 * --logs (default 24,26,27), device and pinned scalars, then batches of
 * --batches vectors (default 4,10) over one pass of the streamed bases
 * against the same batch resident and against that many single resident
 * MSMs; bases are made straight into pinned memory (2^18 distinct points
 * tiled in parallel) and every streamed result must equal the resident one
 * (exit 1 otherwise).  --msm-only picks groups ("bls12_381" for both of
 * its groups).
 * Not a test: asserts nothing about time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/load.h"
#include "curve/curve.h"
#include "field/field.h"
#include "util/splitmix.h"
#include "util/threadpool.h"

#ifdef CUZK_HAVE_CUDA
#include "gpu/msm.h"
#include "gpu/ntt.h"
#include "gpu/runtime.h"
#include "gpu/selftest.h"

static cuzk_gpu_ctx *ctx;
static cuzk_gpu_stream *st;
static cuzk_pool *pool;
static int reps = 3;
static int shifted = 1; /* MSMs over shifted copies too (--no-shifted) */
static const char *msm_only; /* --msm-only NAME: groups whose name has it */

#define MAX_ROWS 160
static char rows[MAX_ROWS][160];
static int nrows;

static void row(const char *fmt, const char *a, const char *b, double v,
                double ref) {
    if (nrows >= MAX_ROWS)
        return;
    char refs[32] = "-";
    if (ref > 0)
        snprintf(refs, sizeof refs, "%.2f", ref);
    snprintf(rows[nrows++], sizeof rows[0], fmt, a, b, v, refs);
}

static double now_ms(void) { return bench_now_s() * 1e3; }

/* Times |reps| MSMs of n points over |b| after a warm-up, with scalars from
 * pinned host memory (t[0]) and from the device (t[1]). */
static int time_msm(const cuzk_gpu_bases *b, size_t n, const void *h_sc,
                    const void *d_sc, void *res, double t[2][16],
                    cuzk_error *err) {
    for (int where = 0; where < 2; where++) {
        unsigned fl = CUZK_GPU_SCALARS_MONT |
                      (where ? CUZK_GPU_SCALARS_DEVICE : 0);
        for (int rep = -1; rep < reps; rep++) {
            double t0 = now_ms();
            if (cuzk_gpu_msm(st, b, 0, n, where ? d_sc : h_sc, fl, res,
                             err) != CUZK_OK)
                return 0;
            if (rep >= 0)
                t[where][rep] = now_ms() - t0;
        }
    }
    return 1;
}

static double median(double *v, int n) {
    bench_stats s;
    bench_stats_of(&s, v, (size_t)n);
    return s.median;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next64(void) { return cuzk_splitmix64(&rng); }

/* uniform below r (rejection on the top limb) */
static void rand_below(uint64_t *x, const uint64_t *r) {
    int top = 63;
    while (!((r[3] >> top) & 1))
        top--;
    uint64_t mask = top == 63 ? ~0ULL : ((1ULL << (top + 1)) - 1);
    for (;;) {
        for (int i = 0; i < 4; i++)
            x[i] = next64();
        x[3] &= mask;
        int j = 3;
        while (j > 0 && x[j] == r[j])
            j--;
        if (x[j] < r[j])
            return;
    }
}

static void fail(const char *what, const cuzk_error *err) {
    printf("bench_gpu: %s failed: %s\n", what, err->msg);
    fflush(stdout);
}

/* ---- field products ------------------------------------------------------- */

static void bench_field(void) {
    static const char *names[] = {"bls12_381_fp", "bls12_381_fr", "bn254_fp",
                                  "bn254_fr"};
    static const char *forms[] = {"eo-32",      "cios-32",    "cios-64",
                                  "eo-32-prev", "eo-32-call", "eo-32-call-prev"};
    for (int f = 0; f < 4; f++)
        for (int form = CUZK_GPU_MUL_EO32; form <= CUZK_GPU_MUL_EO32_CALL_PREV;
             form++) {
            double rate = 0;
            cuzk_error err = {0};
            if (cuzk_gpu_field_bench(ctx, (cuzk_gpu_field)f,
                                     (cuzk_gpu_mul_form)form, &rate,
                                     &err) != CUZK_OK) {
                fail("field bench", &err);
                continue;
            }
            printf("bench_gpu: field %s product %s: %.3g products/s\n",
                   names[f], forms[form], rate);
            row("%-28s %-15s %10.1f Gmul/s %8s", names[f], forms[form],
                rate * 1e-9, 0);
        }
}

/* ---- MSM --------------------------------------------------------------------- */

#define BASE_DISTINCT_LOG 18

#define MSM_BENCH(G, S, CURVE, GROUP)                                         \
    typedef struct G##_genb {                                                 \
        G##_affine *pts;                                                      \
        G *jac;                                                               \
        uint64_t seed;                                                        \
    } G##_genb;                                                               \
    static void G##_genb_chunk(void *vc, size_t b, size_t e, unsigned w) {    \
        G##_genb *c = vc;                                                     \
        (void)w;                                                              \
        G##_affine gen;                                                       \
        G P, D;                                                               \
        S k;                                                                  \
        memset(&k, 0, sizeof k);                                              \
        k.l[0] = c->seed + b * 7919;                                          \
        k.l[1] = b;                                                           \
        S##_to_mont(&k, k.l);                                                 \
        G##_generator(&gen);                                                  \
        G##_from_affine(&D, &gen);                                            \
        G##_mul(&P, &D, &k);                                                  \
        G##_dbl(&D, &P); /* step: a different multiple per chunk */           \
        for (size_t i = b; i < e; i++) {                                      \
            c->jac[i] = P;                                                    \
            G##_add(&P, &P, &D);                                              \
        }                                                                     \
        G##_batch_to_affine(c->pts + b, c->jac + b, e - b);                   \
    }                                                                         \
    static void G##_bench(const unsigned *logs, int nlogs, const char *name,  \
                          const double *refs, unsigned sweep_log) {           \
        if (msm_only && !strstr(name, msm_only))                              \
            return;                                                           \
        unsigned maxlog = 0;                                                  \
        for (int i = 0; i < nlogs; i++)                                       \
            if (logs[i] > maxlog)                                             \
                maxlog = logs[i];                                             \
        size_t nmax = (size_t)1 << maxlog;                                    \
        size_t nd = (size_t)1 << BASE_DISTINCT_LOG;                           \
        if (nd > nmax)                                                        \
            nd = nmax;                                                        \
        G##_affine *pts = malloc(nmax * sizeof *pts);                         \
        G##_genb c = {pts, malloc(nd * sizeof(G)), next64()};                 \
        cuzk_pool_for(pool, nd, 1024, G##_genb_chunk, &c);                    \
        free(c.jac);                                                          \
        for (size_t i = nd; i < nmax; i++)                                    \
            pts[i] = pts[i % nd];                                             \
        cuzk_gpu_bases *gb = NULL;                                            \
        cuzk_error err = {0};                                                 \
        void *h_sc = NULL, *d_sc = NULL;                                      \
        if (cuzk_gpu_bases_upload(ctx, CURVE, GROUP, pts, nmax, &gb, &err) != \
                CUZK_OK ||                                                    \
            cuzk_gpu_host_alloc(ctx, 32 * nmax, &h_sc, &err) != CUZK_OK ||    \
            cuzk_gpu_malloc(ctx, 32 * nmax, &d_sc, &err) != CUZK_OK) {        \
            fail(name, &err);                                                 \
            goto done;                                                        \
        }                                                                     \
        for (size_t i = 0; i < nmax; i++)                                     \
            rand_below((uint64_t *)h_sc + 4 * i, S##_modulus);                \
        if (cuzk_gpu_copy_to_device(st, d_sc, h_sc, 32 * nmax, &err) !=       \
                CUZK_OK ||                                                    \
            cuzk_gpu_stream_sync(st, &err) != CUZK_OK) {                      \
            fail(name, &err);                                                 \
            goto done;                                                        \
        }                                                                     \
        for (int li = 0; li < nlogs; li++) {                                  \
            size_t n = (size_t)1 << logs[li];                                 \
            double t[2][16];                                                  \
            G r;                                                              \
            int ok = time_msm(gb, n, h_sc, d_sc, &r, t, &err);                \
            if (!ok) {                                                        \
                fail(name, &err);                                             \
                break;                                                        \
            }                                                                 \
            double mh = median(t[0], reps), md = median(t[1], reps);          \
            printf("bench_gpu: msm %s 2^%u: %.2f ms (pinned host scalars), "  \
                   "%.2f ms (device scalars), window %u, scratch %.2f GB\n",  \
                   name, logs[li], mh, md,                                    \
                   cuzk_gpu_msm_window_bits(ctx, CURVE, GROUP, n),               \
                   cuzk_gpu_stream_scratch_bytes(st) / 1e9);                  \
            fflush(stdout);                                                   \
            char sz[16];                                                      \
            snprintf(sz, sizeof sz, "2^%u", logs[li]);                        \
            row("msm %-24s %-10s %10.2f ms     %8s", name, sz, mh,            \
                refs ? refs[li] : 0);                                         \
            row("msm %-24s %-10s %10.2f ms     %8s", "  (device scalars)",    \
                sz, md, 0);                                                   \
        }                                                                     \
        /* the same sizes over bases with shifted copies (built per size,  \
         * window chosen for that size) */                                    \
        for (int li = 0; li < nlogs && shifted; li++) {                       \
            size_t n = (size_t)1 << logs[li];                                 \
            cuzk_gpu_bases *sb = NULL;                                        \
            double t[2][16], tb = now_ms();                                   \
            G r;                                                              \
            int ok = cuzk_gpu_bases_upload(ctx, CURVE, GROUP, pts, n, &sb,    \
                                           &err) == CUZK_OK;                  \
            double tp = now_ms();                                             \
            ok = ok && cuzk_gpu_bases_precompute(sb, 0, 0, &err) == CUZK_OK;  \
            tp = now_ms() - tp;                                               \
            tb = now_ms() - tb;                                               \
            if (!ok) {                                                        \
                printf("bench_gpu: msm %s 2^%u shifted: %s\n", name,          \
                       logs[li], err.msg);                                    \
                cuzk_gpu_bases_free(sb);                                      \
                continue;                                                     \
            }                                                                 \
            ok = ok && time_msm(sb, n, h_sc, d_sc, &r, t, &err);              \
            if (ok && sweep_log) {                                            \
                cuzk_gpu_ctx_tune(ctx, 0, 0, 1);                              \
                cuzk_gpu_msm(st, sb, 0, n, d_sc,                              \
                             CUZK_GPU_SCALARS_MONT | CUZK_GPU_SCALARS_DEVICE, \
                             &r, &err);                                       \
                cuzk_gpu_ctx_tune(ctx, 0, 0, 0);                              \
            }                                                                 \
            if (!ok) {                                                        \
                fail(name, &err);                                             \
            } else {                                                          \
                double mh = median(t[0], reps), md = median(t[1], reps);      \
                printf("bench_gpu: msm %s 2^%u shifted copies (window %u, "   \
                       "%.1f GB on the device, upload %.0f ms + build %.0f "  \
                       "ms): %.2f ms (pinned host scalars), %.2f ms (device " \
                       "scalars)\n",                                          \
                       name, logs[li], cuzk_gpu_bases_shift_bits(sb),         \
                       cuzk_gpu_bases_bytes(sb) / 1e9, tb - tp, tp, mh, md);  \
                fflush(stdout);                                               \
                char sz[16];                                                  \
                snprintf(sz, sizeof sz, "2^%u", logs[li]);                    \
                row("msm %-24s %-10s %10.2f ms     %8s",                      \
                    "  (shifted copies)", sz, mh, refs ? refs[li] : 0);       \
                row("msm %-24s %-10s %10.2f ms     %8s",                      \
                    "  (shifted, dev. scalars)", sz, md, 0);                  \
            }                                                                 \
            cuzk_gpu_bases_free(sb);                                          \
        }                                                                     \
        if (sweep_log && sweep_log <= maxlog) {                               \
            /* phase profile at each size, window sweep at 2^sweep_log */    \
            G r;                                                              \
            cuzk_gpu_ctx_tune(ctx, 0, 0, 1);                                  \
            for (int li = 0; li < nlogs; li++)                                \
                cuzk_gpu_msm(st, gb, 0, (size_t)1 << logs[li], d_sc,          \
                             CUZK_GPU_SCALARS_MONT | CUZK_GPU_SCALARS_DEVICE, \
                             &r, &err);                                       \
            for (unsigned c = 15; c <= 22; c++) {                             \
                cuzk_gpu_ctx_tune(ctx, c, 0, 1);                              \
                double t0 = now_ms();                                         \
                if (cuzk_gpu_msm(st, gb, 0, (size_t)1 << sweep_log, d_sc,    \
                                 CUZK_GPU_SCALARS_MONT |                      \
                                     CUZK_GPU_SCALARS_DEVICE,                 \
                                 &r, &err) != CUZK_OK)                        \
                    printf("bench_gpu: msm %s 2^%u window %u: %s\n", name,    \
                           sweep_log, c, err.msg);                            \
                else                                                          \
                    printf("bench_gpu: msm %s 2^%u window %u: %.2f ms "       \
                           "(device scalars, profiled)\n",                    \
                           name, sweep_log, c, now_ms() - t0);                \
                fflush(stdout);                                               \
            }                                                                 \
            cuzk_gpu_ctx_tune(ctx, 0, 0, 0);                                  \
        }                                                                     \
    done:                                                                     \
        cuzk_gpu_bases_free(gb);                                              \
        cuzk_gpu_host_free(ctx, h_sc);                                        \
        cuzk_gpu_free(ctx, d_sc);                                             \
        free(pts);                                                            \
    }

MSM_BENCH(bls12_381_g1, bls12_381_fr, CUZK_CURVE_BLS12_381, CUZK_GPU_G1)
MSM_BENCH(bls12_381_g2, bls12_381_fr, CUZK_CURVE_BLS12_381, CUZK_GPU_G2)
MSM_BENCH(bn254_g1, bn254_fr, CUZK_CURVE_BN254, CUZK_GPU_G1)
MSM_BENCH(bn254_g2, bn254_fr, CUZK_CURVE_BN254, CUZK_GPU_G2)

/* ---- MSM over bases in pinned host memory (--host-bases) -------------------- */

/* Copies of the first |nd| points to [nd, n), and random scalars below r
 * into |sc|, in parallel chunks (a 2^27 G2 set is 24 GiB: one thread
 * would take minutes). */
typedef struct tile_job {
    uint8_t *pts;
    size_t nd, pb;
    uint64_t *sc;
    const uint64_t *r;
} tile_job;

static void tile_chunk(void *vc, size_t b, size_t e, unsigned w) {
    tile_job *j = vc;
    (void)w;
    for (size_t i = b; i < e; i++)
        if (i >= j->nd)
            memcpy(j->pts + i * j->pb, j->pts + (i % j->nd) * j->pb, j->pb);
}

static void scalar_chunk(void *vc, size_t b, size_t e, unsigned w) {
    tile_job *j = vc;
    (void)w;
    uint64_t s = 0x51ed2701f3a5c9b7ULL ^ (b * 0x9e3779b97f4a7c15ULL);
    int top = 63;
    while (!((j->r[3] >> top) & 1))
        top--;
    uint64_t mask = top == 63 ? ~0ULL : ((1ULL << (top + 1)) - 1);
    for (size_t i = b; i < e; i++) {
        uint64_t *x = j->sc + 4 * i;
        for (;;) {
            for (int k = 0; k < 4; k++)
                x[k] = cuzk_splitmix64(&s);
            x[3] &= mask;
            int k = 3;
            while (k > 0 && x[k] == j->r[k])
                k--;
            if (x[k] < j->r[k])
                break;
        }
    }
}

static const unsigned *hb_logs;
static int hb_nlogs;
static const unsigned *hb_batches;
static int hb_nbatches;
#define HB_STRIDE 1024 /* vector v of a batch starts v * HB_STRIDE scalars on */

/* Median ms of |reps| calls (after one warm-up) of an MSM batch. */
static double hb_time(cuzk_gpu_stream *s, const cuzk_gpu_bases *b, size_t n, size_t nv,
                      const void *const *sc, unsigned fl, void *res, int reps, cuzk_error *err) {
    double t[16];
    for (int rep = -1; rep < reps; rep++) {
        double t0 = now_ms();
        if (cuzk_gpu_msm_batch(s, b, 0, n, nv, sc, fl, res, err) != CUZK_OK)
            return -1;
        if (rep >= 0)
            t[rep] = now_ms() - t0;
    }
    return median(t, reps);
}

#define HOSTB_BENCH(G, S, CURVE, GROUP)                                                     \
    static void G##_hostb(const char *name) {                                              \
        if (msm_only && !strstr(name, msm_only))                                           \
            return;                                                                        \
        unsigned maxlog = 0;                                                               \
        for (int i = 0; i < hb_nlogs; i++)                                                 \
            maxlog = hb_logs[i] > maxlog ? hb_logs[i] : maxlog;                            \
        size_t nmax = (size_t)1 << maxlog, nd = (size_t)1 << BASE_DISTINCT_LOG;            \
        size_t nsc = nmax + (size_t)CUZK_GPU_MSM_MAX_VECTORS * HB_STRIDE;                  \
        if (nd > nmax)                                                                     \
            nd = nmax;                                                                     \
        cuzk_error err = {0};                                                              \
        G##_affine *pts = NULL;                                                            \
        void *h_sc = NULL, *d_sc = NULL;                                                   \
        cuzk_gpu_bases *gb = NULL, *hb = NULL;                                             \
        double tg = now_ms();                                                              \
        /* bases straight into pinned memory, 2^18 distinct ones tiled */                  \
        if (cuzk_gpu_host_alloc(ctx, nmax * sizeof *pts, (void **)&pts, &err) != CUZK_OK || \
            cuzk_gpu_host_alloc(ctx, 32 * nsc, &h_sc, &err) != CUZK_OK ||                  \
            cuzk_gpu_malloc(ctx, 32 * nsc, &d_sc, &err) != CUZK_OK) {                      \
            fail(name, &err);                                                              \
            goto done;                                                                     \
        }                                                                                  \
        {                                                                                  \
            G##_genb c = {pts, malloc(nd * sizeof(G)), next64()};                          \
            cuzk_pool_for(pool, nd, 1024, G##_genb_chunk, &c);                             \
            free(c.jac);                                                                   \
            tile_job tj = {(uint8_t *)pts, nd, sizeof *pts, (uint64_t *)h_sc,              \
                           S##_modulus};                                                   \
            cuzk_pool_for(pool, nmax, 1 << 16, tile_chunk, &tj);                           \
            cuzk_pool_for(pool, nsc, 1 << 16, scalar_chunk, &tj);                          \
        }                                                                                  \
        if (cuzk_gpu_copy_to_device(st, d_sc, h_sc, 32 * nsc, &err) != CUZK_OK ||          \
            cuzk_gpu_stream_sync(st, &err) != CUZK_OK ||                                   \
            cuzk_gpu_bases_upload(ctx, CURVE, GROUP, pts, nmax, &gb, &err) != CUZK_OK ||   \
            cuzk_gpu_bases_host(ctx, CURVE, GROUP, pts, nmax, &hb, &err) != CUZK_OK) {     \
            fail(name, &err);                                                              \
            goto done;                                                                     \
        }                                                                                  \
        printf("bench_gpu: host bases %s: 2^%u points made and pinned in %.1f s\n", name,   \
               maxlog, (now_ms() - tg) / 1e3);                                             \
        fflush(stdout);                                                                    \
        for (int li = 0; li < hb_nlogs; li++) {                                            \
            size_t n = (size_t)1 << hb_logs[li];                                           \
            int rp = hb_logs[li] >= 26 ? (reps < 2 ? reps : 2) : reps;                     \
            unsigned dev = CUZK_GPU_SCALARS_MONT | CUZK_GPU_SCALARS_DEVICE;                \
            unsigned hst = CUZK_GPU_SCALARS_MONT;                                          \
            const void *sv[CUZK_GPU_MSM_MAX_VECTORS], *hv[1] = {h_sc};                     \
            for (int v = 0; v < CUZK_GPU_MSM_MAX_VECTORS; v++)                             \
                sv[v] = (const uint8_t *)d_sc + (size_t)32 * HB_STRIDE * v;                \
            G want[CUZK_GPU_MSM_MAX_VECTORS], got[CUZK_GPU_MSM_MAX_VECTORS];               \
            double tr = hb_time(st, gb, n, 1, sv, dev, want, rp, &err);                    \
            double trh = tr >= 0 ? hb_time(st, gb, n, 1, hv, hst, got, rp, &err) : -1;     \
            int same = trh >= 0 && G##_eq(&got[0], &want[0]);                              \
            double ts = trh >= 0 ? hb_time(st, hb, n, 1, sv, dev, got, rp, &err) : -1;      \
            same = same && ts >= 0 && G##_eq(&got[0], &want[0]);                           \
            size_t scr = cuzk_gpu_stream_scratch_bytes(st);                                \
            double tsh = ts >= 0 ? hb_time(st, hb, n, 1, hv, hst, got, rp, &err) : -1;      \
            same = same && tsh >= 0 && G##_eq(&got[0], &want[0]);                          \
            if (tsh < 0) {                                                                 \
                fail(name, &err);                                                          \
                break;                                                                     \
            }                                                                              \
            /* the same resident MSM unbounded (one chunk, the window of   \
             * least cost): what the 64-byte bound costs; own stream */    \
            double tu = -1;                                                \
            cuzk_gpu_stream *us = NULL;                                    \
            if (hb_logs[li] <= 26 &&                                       \
                cuzk_gpu_stream_create(ctx, &us, &err) == CUZK_OK) {       \
                cuzk_gpu_stream_set_msm_limit(us, (size_t)1 << 40);        \
                tu = hb_time(us, gb, n, 1, sv, dev, got, rp, &err);        \
                if (tu >= 0 && !G##_eq(&got[0], &want[0]))                 \
                    hb_bad++;                                              \
                if (tu < 0)                                                \
                    printf("bench_gpu: host bases %s 2^%u unbounded: %s\n", \
                           name, hb_logs[li], err.msg);                    \
                cuzk_gpu_stream_destroy(us);                               \
            }                                                              \
            cuzk_gpu_msm_info pr, ph;                                                      \
            cuzk_gpu_msm_plan(ctx, CURVE, GROUP, n, 1, dev, 0, 0, &pr, &err);              \
            cuzk_gpu_msm_plan(ctx, CURVE, GROUP, n, 1, dev, 1, 0, &ph, &err);              \
            printf("bench_gpu: host bases %s 2^%u: resident %.2f ms (device scalars) "     \
                   "%.2f (pinned), streamed %.2f ms (device scalars) %.2f (pinned) = "      \
                   "%.3fx / %.3fx; windows %u / %u, chunks %zu / %zu, scratch %.2f / "     \
                   "%.2f GB (%.1f / %.1f B a point), results %s\n",                        \
                   name, hb_logs[li], tr, trh, ts, tsh, ts / tr, tsh / trh,                \
                   pr.window_bits, ph.window_bits, pr.chunks, ph.chunks,                   \
                   pr.scratch_bytes / 1e9, ph.scratch_bytes / 1e9,                         \
                   (double)pr.scratch_bytes / n, (double)ph.scratch_bytes / n,             \
                   same ? "identical" : "DIFFER");                                         \
            fflush(stdout);                                                                \
            if (!same)                                                                     \
                hb_bad++;                                                                  \
            (void)scr;                                                                     \
            char sz[16], lab[64];                                                          \
            snprintf(sz, sizeof sz, "2^%u", hb_logs[li]);                                  \
            snprintf(lab, sizeof lab, "%s resident", name);                                \
            row("msm %-24s %-10s %10.2f ms     %8s", lab, sz, tr, 0);                      \
            if (tu > 0) {                                                                  \
                printf("bench_gpu: host bases %s 2^%u: resident unbounded %.2f ms "        \
                       "(device scalars): the 64-byte bound costs %.3fx\n",                \
                       name, hb_logs[li], tu, tr / tu);                                    \
                snprintf(lab, sizeof lab, "%s res. unbounded", name);                      \
                row("msm %-24s %-10s %10.2f ms     %8s", lab, sz, tu, 0);                  \
            }                                                                              \
            snprintf(lab, sizeof lab, "%s streamed", name);                                \
            row("msm %-24s %-10s %10.2f ms     %8s", lab, sz, ts, 0);                      \
            snprintf(lab, sizeof lab, "  ratio (x1000)");                                  \
            row("msm %-24s %-10s %10.0f        %8s", lab, sz, 1000 * ts / tr, 0);          \
            /* batches to 2^26 (a batch of 10 at 2^27 G2 is a minute) */                  \
            for (int bi = 0; bi < hb_nbatches && hb_logs[li] <= 26; bi++) {                \
                size_t nv = hb_batches[bi];                                                \
                int r1 = hb_logs[li] >= 26 ? 1 : rp;                                       \
                double tb = hb_time(st, hb, n, nv, sv, dev, got, r1, &err);                \
                double tbr = tb >= 0 ? hb_time(st, gb, n, nv, sv, dev, want, r1, &err) : -1; \
                if (tbr < 0) {                                                             \
                    fail(name, &err);                                                      \
                    break;                                                                 \
                }                                                                          \
                int bsame = 1;                                                             \
                for (size_t v = 0; v < nv; v++)                                            \
                    bsame = bsame && G##_eq(&got[v], &want[v]);                            \
                if (!bsame)                                                                \
                    hb_bad++;                                                              \
                printf("bench_gpu: host bases %s 2^%u batch %zu: streamed %.2f ms "        \
                       "(%.2f a vector), resident batch %.2f ms, %zu resident MSMs "       \
                       "%.2f ms: streamed batch / %zu MSMs = %.3fx, results %s\n",         \
                       name, hb_logs[li], nv, tb, tb / nv, tbr, nv, nv * tr, nv,           \
                       tb / (nv * tr), bsame ? "identical" : "DIFFER");                    \
                fflush(stdout);                                                            \
                snprintf(lab, sizeof lab, "%s stream x%zu /vec", name, nv);                \
                row("msm %-24s %-10s %10.2f ms     %8s", lab, sz, tb / nv, 0);             \
            }                                                                              \
        }                                                                                  \
    done:                                                                                  \
        cuzk_gpu_bases_free(gb);                                                           \
        cuzk_gpu_bases_free(hb);                                                           \
        cuzk_gpu_free(ctx, d_sc);                                                          \
        if (h_sc)                                                                          \
            cuzk_gpu_host_free(ctx, h_sc);                                                 \
        if (pts)                                                                           \
            cuzk_gpu_host_free(ctx, pts);                                                  \
    }

static int hb_bad; /* results that differ between streamed and resident */
HOSTB_BENCH(bls12_381_g1, bls12_381_fr, CUZK_CURVE_BLS12_381, CUZK_GPU_G1)
HOSTB_BENCH(bls12_381_g2, bls12_381_fr, CUZK_CURVE_BLS12_381, CUZK_GPU_G2)
HOSTB_BENCH(bn254_g1, bn254_fr, CUZK_CURVE_BN254, CUZK_GPU_G1)
HOSTB_BENCH(bn254_g2, bn254_fr, CUZK_CURVE_BN254, CUZK_GPU_G2)

/* "24,26,27" -> values; returns the count. */
static int parse_list(const char *s, unsigned *out, int max) {
    int n = 0;
    while (*s && n < max) {
        out[n++] = (unsigned)strtoul(s, (char **)&s, 10);
        while (*s == ',')
            s++;
    }
    return n;
}

/* ---- NTT ------------------------------------------------------------------------ */

/* Median ms per forward NTT at 2^|lg| on |d|: one call then a stream
 * synchronisation (|batch| 1), or |batch| calls queued back to back and one
 * synchronisation, divided by |batch| (the launch latency is then hidden
 * behind the previous transform, as in a prover's sequence).  0 on error. */
static double ntt_time(cuzk_curve curve, void *d, unsigned lg, int batch,
                       cuzk_error *err) {
    double t[16];
    int ok = 1;
    for (int rep = -1; rep < reps && ok; rep++) {
        double t0 = now_ms();
        for (int k = 0; k < batch && ok; k++)
            ok = cuzk_gpu_ntt(st, curve, d, lg, CUZK_GPU_NTT_FORWARD, NULL,
                              err) == CUZK_OK;
        ok = ok && cuzk_gpu_stream_sync(st, err) == CUZK_OK;
        if (rep >= 0)
            t[rep] = (now_ms() - t0) / batch;
    }
    return ok ? median(t, reps) : 0;
}

/* --ntt-ab: both pass plans of ntt/gpu (CUZK_NTT_PLAN, read per call) */
static int ntt_ab;
static unsigned ntt_buf_log; /* the NTT buffer holds 2^ntt_buf_log elements */

/* Median ms of the NTT part of Groth16's H on three vectors of 2^|lg| at
 * |d| (3 n elements): per vector INVERSE then COSET_FORWARD (|fused| 0) or
 * INVERSE_TO_COSET then FORWARD (|fused| 1), queued, one synchronisation.
 * The coset generator is a fixed non-zero element (timing only).  0 on
 * error. */
static double ntt_h_time(cuzk_curve curve, void *d, unsigned lg,
                         int fused, cuzk_error *err) {
    double t[16];
    uint64_t g[4] = {7, 0, 0, 0};
    size_t bytes = (size_t)32 << lg;
    int ok = 1;
    for (int rep = -1; rep < reps && ok; rep++) {
        double t0 = now_ms();
        for (int k = 0; k < 3 && ok; k++) {
            void *v = (char *)d + k * bytes;
            ok = cuzk_gpu_ntt(st, curve, v, lg,
                              fused ? CUZK_GPU_NTT_INVERSE_TO_COSET
                                    : CUZK_GPU_NTT_INVERSE,
                              g, err) == CUZK_OK &&
                 cuzk_gpu_ntt(st, curve, v, lg,
                              fused ? CUZK_GPU_NTT_FORWARD
                                    : CUZK_GPU_NTT_COSET_FORWARD,
                              g, err) == CUZK_OK;
        }
        ok = ok && cuzk_gpu_stream_sync(st, err) == CUZK_OK;
        if (rep >= 0)
            t[rep] = now_ms() - t0;
    }
    return ok ? median(t, reps) : 0;
}

/* Times one forward NTT size and adds a table row.  With --ntt-ab, also
 * prints the fixed-tile plan against the default one, single and queued. */
static int ntt_one(cuzk_curve curve, const char *name, void *d,
                   unsigned lg, const double *refs) {
    cuzk_error err = {0};
    double m = 0, q[2][2] = {{0}}, hq[2] = {0};
    if (cuzk_gpu_ntt_prepare(ctx, curve, lg, &err) == CUZK_OK)
        m = ntt_time(curve, d, lg, 1, &err);
    for (int plan = 0; ntt_ab && m > 0 && plan < 2; plan++) {
        if (plan == 0)
            setenv("CUZK_NTT_PLAN", "fixed", 1);
        q[plan][0] = ntt_time(curve, d, lg, 1, &err);
        q[plan][1] = ntt_time(curve, d, lg, 16, &err);
        unsetenv("CUZK_NTT_PLAN");
        if (q[plan][0] <= 0 || q[plan][1] <= 0)
            m = 0;
    }
    /* H's six transforms need 3 n elements: only where the buffer has them */
    int hfit = ntt_ab && m > 0 && lg + 2 <= ntt_buf_log;
    for (int fused = 0; hfit && fused < 2; fused++)
        if ((hq[fused] = ntt_h_time(curve, d, lg, fused, &err)) <= 0)
            m = 0;
    if (m <= 0) {
        fail("ntt", &err);
        return 0;
    }
    printf("bench_gpu: ntt %s forward 2^%u: %.3f ms\n", name, lg, m);
    if (ntt_ab)
        printf("bench_gpu: ntt-ab %s 2^%u: fixed %.4f ms, small %.4f ms "
               "(one call + sync); fixed %.4f ms, small %.4f ms (per call, "
               "16 queued)\n",
               name, lg, q[0][0], q[1][0], q[0][1], q[1][1]);
    if (hfit)
        printf("bench_gpu: ntt-ab %s 2^%u: H transforms of a, b, c: inverse + "
               "coset forward %.4f ms, inverse-to-coset + forward %.4f ms\n",
               name, lg, hq[0], hq[1]);
    fflush(stdout);
    char sz[16];
    snprintf(sz, sizeof sz, "2^%u", lg);
    row("ntt %-24s %-10s %10.3f ms     %8s", name, sz, m, refs ? refs[lg] : 0);
    return 1;
}

static void bench_ntt(cuzk_curve curve, const char *name,
                      const uint64_t *r, unsigned lo, unsigned hi,
                      const double *refs) {
    /* --ntt-ab times H's three vectors too: room for 4 n up to 2^22 */
    ntt_buf_log = hi + (ntt_ab && hi <= 22 ? 2 : 0);
    size_t nmax = (size_t)1 << ntt_buf_log;
    void *d = NULL;
    uint64_t *h = malloc(32 * nmax);
    cuzk_error err = {0};
    if (h == NULL || cuzk_gpu_malloc(ctx, 32 * nmax, &d, &err) != CUZK_OK) {
        fail("ntt alloc", &err);
        free(h);
        return;
    }
    for (size_t i = 0; i < nmax; i++)
        rand_below(h + 4 * i, r);
    if (cuzk_gpu_copy_to_device(st, d, h, 32 * nmax, &err) != CUZK_OK) {
        fail("ntt upload", &err);
        goto done;
    }
    for (unsigned lg = lo; lg <= hi; lg++)
        if (!ntt_one(curve, name, d, lg, refs))
            break;
done:
    cuzk_gpu_ctx_tune(ctx, 0, 0, 0);
    cuzk_gpu_free(ctx, d);
    free(h);
}

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
#ifndef CUZK_HAVE_CUDA
    (void)argc;
    (void)argv;
    printf("bench_gpu: built without CUDA\n");
    return 0;
#else
    int quick = 0, skip_msm = 0, skip_ntt = 0, skip_field = 0;
    unsigned msm_max = 26, ntt_min = 20, ntt_max = 27;
    const char *accum = "xyzz";
    int host_bases = 0;
    static unsigned logs_v[8] = {24, 26, 27}, batch_v[8] = {4, 10};
    hb_logs = logs_v, hb_nlogs = 3, hb_batches = batch_v, hb_nbatches = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--skip-msm"))
            skip_msm = 1;
        else if (!strcmp(argv[i], "--skip-ntt"))
            skip_ntt = 1;
        else if (!strcmp(argv[i], "--skip-field"))
            skip_field = 1;
        else if (!strcmp(argv[i], "--ntt-ab"))
            ntt_ab = 1;
        else if (!strcmp(argv[i], "--no-shifted"))
            shifted = 0;
        else if (!strcmp(argv[i], "--msm-accum") && i + 1 < argc)
            accum = argv[++i];
        else if (!strcmp(argv[i], "--msm-only") && i + 1 < argc)
            msm_only = argv[++i];
        else if (!strcmp(argv[i], "--msm-max-log") && i + 1 < argc)
            msm_max = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ntt-min-log") && i + 1 < argc)
            ntt_min = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ntt-max-log") && i + 1 < argc)
            ntt_max = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--host-bases"))
            host_bases = 1;
        else if (!strcmp(argv[i], "--logs") && i + 1 < argc)
            hb_nlogs = parse_list(argv[++i], logs_v, 8);
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            hb_nbatches = parse_list(argv[++i], batch_v, 8);
    }
    for (int i = 0; i < hb_nbatches; i++)
        if (batch_v[i] < 1 || batch_v[i] > CUZK_GPU_MSM_MAX_VECTORS) {
            fprintf(stderr, "bench_gpu: --batches: 1..%d vectors\n", CUZK_GPU_MSM_MAX_VECTORS);
            return 2;
        }
    if (reps < 1 || reps > 16)
        reps = 3;
    if (strcmp(accum, "xyzz") && strcmp(accum, "affine") &&
        strcmp(accum, "both")) {
        fprintf(stderr, "bench_gpu: --msm-accum %s: want xyzz, affine or "
                        "both\n", accum);
        return 2;
    }
    if (cuzk_gpu_device_count() == 0) {
        printf("bench_gpu: no GPU\n");
        return 0;
    }
    cuzk_error err = {0};
    cuzk_gpu_device_info info;
    if (cuzk_gpu_device_query(0, &info, &err) != CUZK_OK ||
        cuzk_gpu_ctx_create(0, &ctx, &err) != CUZK_OK) {
        fail("device", &err);
        return 1;
    }
    printf("bench_gpu: device %s, %d SMs, cc %d.%d, %.1f GB, L2 %.0f MB\n",
           info.name, info.sm_count, info.cc_major, info.cc_minor,
           info.total_mem_bytes / 1e9, info.l2_bytes / 1e6);
    st = cuzk_gpu_ctx_stream(ctx);
    pool = cuzk_pool_create(0, &err);
    if (quick) {
        msm_max = msm_max < 20 ? msm_max : 20;
        ntt_max = ntt_max < 22 ? ntt_max : 22;
    }
    if (host_bases) {
        /* MSMs over bases in pinned host memory against the same bases
         * resident, then batches of vectors over one pass of the bases */
        bls12_381_g1_hostb("bls12_381 G1");
        bls12_381_g2_hostb("bls12_381 G2");
        bn254_g1_hostb("bn254 G1");
        bn254_g2_hostb("bn254 G2");
        skip_field = skip_msm = skip_ntt = 1;
    }
    if (!skip_field)
        bench_field();
    if (!skip_msm) {
        /* sppark on an H200, BLS12-381 "resident" (peer figures, docs/PERFORMANCE.md) */
        static const unsigned g1_logs[] = {20, 22, 24, 26};
        static const double g1_ref[] = {22.7, 57.8, 174, 625};
        static const unsigned g2_logs[] = {20, 24};
        static const double g2_ref[] = {50.2, 484};
        int n1 = 0, n2 = 0;
        while (n1 < 4 && g1_logs[n1] <= msm_max)
            n1++;
        while (n2 < 2 && g2_logs[n2] <= msm_max)
            n2++;
        if (quick && n1 == 0) {
            static const unsigned q[] = {16};
            bls12_381_g1_bench(q, 1, "bls12_381 G1", NULL, 0);
        }
        unsigned sweep = msm_max >= 24 ? 24 : 0;
        for (int a = 0; a < 2; a++) {
            if (strcmp(accum, "both") && strcmp(accum, a ? "affine" : "xyzz"))
                continue;
            cuzk_gpu_ctx_msm_accum(ctx, a);
            const char *sfx = a ? " affine" : "";
            char nm[4][40];
            snprintf(nm[0], sizeof nm[0], "bls12_381 G1%s", sfx);
            snprintf(nm[1], sizeof nm[1], "bn254 G1%s", sfx);
            snprintf(nm[2], sizeof nm[2], "bls12_381 G2%s", sfx);
            snprintf(nm[3], sizeof nm[3], "bn254 G2%s", sfx);
            bls12_381_g1_bench(g1_logs, n1, nm[0], g1_ref, sweep);
            bn254_g1_bench(g1_logs, n1, nm[1], NULL, 0);
            bls12_381_g2_bench(g2_logs, n2, nm[2], g2_ref, 0);
            bn254_g2_bench(g2_logs, n2, nm[3], NULL, 0);
        }
        cuzk_gpu_ctx_msm_accum(ctx, 0);
    }
    if (!skip_ntt) {
        double ref[32] = {0};
        ref[20] = 0.28;
        ref[22] = 1.13;
        ref[24] = 4.7;
        ref[26] = 23.8;
        ref[27] = 44.3;
        bench_ntt(CUZK_CURVE_BLS12_381, "bls12_381 fr", bls12_381_fr_modulus,
                  ntt_min, ntt_max, ref);
        bench_ntt(CUZK_CURVE_BN254, "bn254 fr", bn254_fr_modulus, ntt_min,
                  ntt_max < 27 ? ntt_max : 27, NULL);
    }
    printf("\n%-32s %-10s %13s %13s\n", "bench_gpu summary", "size", "cuzk",
           "sppark H200");
    for (int i = 0; i < nrows; i++)
        printf("%s\n", rows[i]);
    cuzk_pool_destroy(pool);
    cuzk_gpu_ctx_destroy(ctx);
    if (hb_bad) {
        printf("bench_gpu: %d streamed results differ from the resident ones\n", hb_bad);
        return 1;
    }
    return 0;
#endif
}
