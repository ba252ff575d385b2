/*
 * Where a proving key lives on a GPU device (its residency tier), and what
 * its provers' MSMs may use: the engine's policy, because the engine owns
 * keys and the memory they take.  The GPU layer says what a key needs
 * (cuzk_gpu_key_needs_of: bases, matrices, one prover's buffers, MSM plan
 * sizes) and carries out a placement (cuzk_gpu_key_create); the decision
 * between the two is here, and is a pure function of the figures
 * (engine_gpu_place), so it is tested without a GPU (test_engine_tier).
 *
 * The policy: resident (AUTO) needs the bases, the matrices, one prover's
 * buffers and the default MSM scratch of both streams within 90% of the
 * free device memory (the context's cap included); DEVICE takes less
 * scratch if it must; otherwise the bases stay in page-locked host memory
 * and stream to the MSMs, with the scratch shrunk to what is left, and
 * under a cap the matrices too when only that fits (a, b, c are then
 * evaluated on the host).  Without a cap, room beyond the default plans
 * goes to the G1 stream up to its unbounded plan: fewer chunks for H, the
 * largest MSM of a proof (at 2^24 on the H200 the bounded G1 MSM took
 * 165 ms, the unbounded 129).  A key that does not fit even streamed is
 * refused here, naming the figures, rather than failing a proof.
 *
 * Must not: allocate, or call the device for anything but its memory
 * figures (engine_gpu_key_create).
 */
#include <stdio.h>
#include <string.h>

#include "engine/gpu_tier.h"

#define GIB 1073741824.0

/* The two MSM streams' limits from |left| bytes: their default plans (d1,
 * d2) when those fit (0, the default rule itself, without a cap), else
 * the smallest plans (m1, m2) and the rest in the ratio of the defaults. */
static void split_limits(cuzk_gpu_placement *pl, double left, uint64_t d1, uint64_t d2,
                         uint64_t m1, uint64_t m2, int capped) {
    if (left >= (double)(d1 + d2)) {
        pl->msm_limit[0] = capped ? d1 : 0;
        pl->msm_limit[1] = capped ? d2 : 0;
        return;
    }
    double extra = left - (double)(m1 + m2);
    pl->msm_limit[0] = m1 + (size_t)(extra * (double)d1 / (double)(d1 + d2));
    pl->msm_limit[1] = (size_t)left - pl->msm_limit[0];
}

/* pl->why: where the key went and why, with its MSM scratch limits. */
static void place_why(cuzk_gpu_placement *pl, const cuzk_gpu_key_needs *k,
                      const cuzk_gpu_mem_info *mi, cuzk_gpu_key_mode mode, const char *cap) {
    double l1 = pl->msm_limit[0] ? pl->msm_limit[0] : (pl->host ? k->h1 : k->s1);
    double l2 = pl->msm_limit[1] ? pl->msm_limit[1] : (pl->host ? k->h2 : k->s2);
    if (!pl->host)
        snprintf(pl->why, sizeof pl->why,
                 "device memory: resident it needs %.2f GiB (bases %.2f) of the %.2f GiB "
                 "free%s; MSM scratch %.2f + %.2f GiB",
                 (k->bases + k->csr + k->work + l1 + l2) / GIB, k->bases / GIB,
                 mi->free_bytes / GIB, cap, l1 / GIB, l2 / GIB);
    else if (mode == CUZK_GPU_KEY_HOST)
        snprintf(pl->why, sizeof pl->why,
                 "pinned host memory: asked for; MSM scratch %.2f + %.2f GiB%s", l1 / GIB,
                 l2 / GIB, cap);
    else
        snprintf(pl->why, sizeof pl->why,
                 "pinned host memory: resident it needs %.2f GiB (bases %.2f), more than 90%% "
                 "of the %.2f GiB free%s; streamed, MSM scratch %.2f + %.2f GiB",
                 (k->bases + k->csr + k->work + k->s1 + k->s2) / GIB, k->bases / GIB,
                 mi->free_bytes / GIB, cap, l1 / GIB, l2 / GIB);
    if (pl->no_csr) {
        size_t w = strlen(pl->why);
        snprintf(pl->why + w, sizeof pl->why - w,
                 "; matrices (%.2f GiB) on the host, a/b/c evaluated there", k->csr / GIB);
    }
}

cuzk_status engine_gpu_place(const cuzk_gpu_key_needs *k, const cuzk_gpu_mem_info *mi,
                             cuzk_gpu_key_mode mode, unsigned provers, cuzk_gpu_placement *pl,
                             cuzk_error *err) {
    memset(pl, 0, sizeof *pl);
    int capped = mi->limit_bytes != 0;
    char cap[48] = "";
    if (capped)
        snprintf(cap, sizeof cap, " (device cap %.2f GiB)", mi->limit_bytes / GIB);
    double room = 0.9 * (double)mi->free_bytes;
    uint64_t need_dev = k->bases + k->csr + k->work + k->s1 + k->s2;
    pl->host = mode == CUZK_GPU_KEY_HOST || (mode == CUZK_GPU_KEY_AUTO && (double)need_dev > room);
    pl->host_if_refused = mode == CUZK_GPU_KEY_AUTO && !pl->host;
    /* what the MSMs get: room less the key's device part and one prover */
    double left = room - (double)(k->csr + k->work + (pl->host ? 0 : k->bases));
    if (pl->host && capped && left < (double)(k->m1 + k->m2) &&
        left + (double)k->csr >= (double)(k->m1 + k->m2)) {
        pl->no_csr = 1; /* the matrices stay on the host */
        left += (double)k->csr;
    }
    if (left < (double)(k->m1 + k->m2))
        return cuzk_fail(err, CUZK_ENOMEM,
                         "GPU key (2^%u, %zu signals): %s it needs %.2f GiB of device memory at "
                         "the least (bases %.2f, matrices %.2f, one prover's buffers %.2f, MSM "
                         "scratch %.2f); 90%% of the %.2f GiB free%s is %.2f GiB",
                         k->log_n, k->n_vars,
                         pl->host ? "even with its bases in host memory" : "resident",
                         (k->csr + k->work + k->m1 + k->m2 + (pl->host ? 0 : k->bases)) / GIB,
                         pl->host ? 0.0 : k->bases / GIB, k->csr / GIB, k->work / GIB,
                         (k->m1 + k->m2) / GIB, mi->free_bytes / GIB, cap, room / GIB);
    split_limits(pl, left, pl->host ? k->h1 : k->s1, pl->host ? k->h2 : k->s2, k->m1, k->m2,
                 capped);
    /* the other provers' buffers come first */
    double others = (double)((provers ? provers : 1) - 1) * (double)k->work;
    if (!pl->host && !capped && left - others > (double)(k->s1 + k->s2)) {
        double g1 = left - others - (double)k->s2; /* up to the unbounded G1 plan */
        if (g1 > (double)k->u1)
            g1 = (double)k->u1;
        if (g1 > (double)k->s1)
            pl->msm_limit[0] = (size_t)g1;
    }
    place_why(pl, k, mi, mode, cap);
    if (capped) { /* provers whose buffers fit beside the rest */
        double spare = left - (double)(pl->msm_limit[0] + pl->msm_limit[1]) + (double)k->work;
        pl->max_provers = spare >= (double)k->work ? (unsigned)(spare / (double)k->work) : 1;
    }
    return CUZK_OK;
}

#ifdef CUZK_HAVE_CUDA

cuzk_status engine_gpu_key_create(cuzk_gpu_key **gk, cuzk_gpu_ctx *ctx, const cuzk_key *key,
                                  cuzk_gpu_key_mode mode, cuzk_error *err) {
    *gk = NULL;
    cuzk_gpu_key_needs k;
    cuzk_status st = cuzk_gpu_key_needs_of(ctx, key, &k, err);
    if (st != CUZK_OK)
        return st;
    cuzk_gpu_mem_info mi;
    cuzk_gpu_ctx_mem(ctx, &mi);
    cuzk_gpu_placement pl;
    st = engine_gpu_place(&k, &mi, mode, cuzk_gpu_ctx_provers(ctx), &pl, err);
    return st != CUZK_OK ? st : cuzk_gpu_key_create(gk, ctx, key, &pl, err);
}

#endif
