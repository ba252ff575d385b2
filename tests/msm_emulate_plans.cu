/*
 * The MSM plans (msm/gpu/msm_plan.h) alone, on the host: every plan fits
 * its limit, its buffers lie inside the arena without overlapping, its
 * chunk schedule covers the points.  Part of the msm_emulate test (the
 * kernels' pipeline is msm_emulate.cu).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "msm/gpu/msm_plan.h"
#include "tests/msm_emulate.h"

/* Every plan fits its limit, its buffers lie inside the arena without
 * overlapping, its chunk schedule covers the points, and with one vector
 * and the default limit from 2^22 points up it takes at most 64 bytes a
 * point.  Prints the plans of the sizes docs/GPU.md quotes. */
void test_plans(void) {
    static const msm_cub_sizes cub = {est_sort, est_scan};
    struct { const char *name; msm_group_sizes gs; } groups[] = {
        {"bls12_381 g1", {255, 96, 192, 48}},
        {"bls12_381 g2", {255, 192, 384, 96}},
        {"bn254 g1", {254, 64, 128, 32}},
        {"bn254 g2", {254, 128, 256, 64}},
    };
    static const size_t ns[] = {1, 3, 1000, (size_t)1 << 16, (size_t)1 << 20,
                                (size_t)1 << 22, (size_t)1 << 24,
                                (size_t)1 << 26, (size_t)1 << 27,
                                ((size_t)1 << 31) - 1};
    static const size_t nvs[] = {1, 4, 10, 16};
    static const size_t limits[] = {0, (size_t)8 << 30, (size_t)1 << 30};
    int p0 = passed, f0 = failed;
    for (int g = 0; g < 4; g++)
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
            for (size_t vi = 0; vi < 4; vi++)
                for (int flags = 0; flags < 4; flags++)
                    for (size_t li = 0; li < 3; li++) {
                        msm_plan_req rq = {};
                        rq.n = ns[ni];
                        rq.nvec = nvs[vi];
                        rq.host_scalars = flags & 1;
                        rq.host_bases = (flags & 2) != 0;
                        rq.sm_count = 132;
                        rq.limit = limits[li];
                        msm_plan pl;
                        bool fits = msm_make_plan(pl, rq, groups[g].gs, cub);
                        size_t lim = rq.limit ? rq.limit
                                              : msm_default_limit(rq.n, rq.nvec);
                        char what[160];
                        snprintf(what, sizeof what,
                                 "%s n=%zu nvec=%zu host scalars %d bases %d "
                                 "limit %zu MiB",
                                 groups[g].name, rq.n, rq.nvec, flags & 1,
                                 flags >> 1, lim >> 20);
                        /* the default limit always fits from 2^16 points */
                        if (rq.limit == 0 && rq.n >= ((size_t)1 << 16))
                            EXPECT(fits, "%s: no plan fits", what);
                        if (!fits) {
                            EXPECT(pl.total > lim, "%s: refused a plan that fits",
                                   what);
                            continue;
                        }
                        EXPECT(pl.total <= lim, "%s: %zu bytes over the limit",
                               what, pl.total);
                        if (rq.limit == 0 && rq.nvec == 1 &&
                            rq.n >= ((size_t)1 << 22))
                            EXPECT(pl.total <= 64 * rq.n,
                                   "%s: %.1f bytes a point", what,
                                   (double)pl.total / (double)rq.n);
                        EXPECT(pl.chunk >= 1 && pl.chunk <= rq.n &&
                                   pl.chunk * pl.dpp <= MSM_MAX_SORT &&
                                   pl.first >= 1 && pl.first <= pl.chunk,
                               "%s: chunk %zu first %zu", what, pl.chunk,
                               pl.first);
                        size_t done = 0, k = 0;
                        for (; done < rq.n && k < pl.nchunks + 1; k++)
                            done += msm_chunk_at(pl, k);
                        EXPECT(done >= rq.n && k == pl.nchunks,
                               "%s: schedule of %zu chunks covers %zu", what, k,
                               done);
                        /* buffers: ordered, inside the arena */
                        size_t ends[] = {
                            pl.off_buckets + rq.nvec * msm_set_stride(pl) *
                                                 groups[g].gs.xyzz,
                            pl.off_keys[0] + 4 * pl.M, pl.off_vals[1] + 4 * pl.M,
                            pl.off_cub + pl.cub_bytes, pl.off_scan + pl.scan_bytes,
                            pl.off_pp[1] + groups[g].gs.xyzz * 2 * pl.T2,
                            pl.off_stage[1] + (rq.host_bases ? groups[g].gs.affine * pl.chunk : 0),
                            pl.off_pre};
                        bool in = pl.off_keys[0] >= ends[0] &&
                                  pl.off_cub >= ends[2];
                        for (size_t e = 0; e < sizeof ends / sizeof *ends; e++)
                            in = in && ends[e] <= pl.total;
                        EXPECT(in, "%s: buffers overlap or leave the arena", what);
                    }
    for (int g = 0; g < 2; g++)
        for (int lg = 24; lg <= 27; lg++)
            for (int host = 0; host < 2; host++) {
                msm_plan_req rq = {};
                rq.n = (size_t)1 << lg;
                rq.nvec = 1;
                rq.host_bases = host;
                rq.sm_count = 132;
                msm_plan pl;
                msm_make_plan(pl, rq, groups[g].gs, cub);
                printf("plan %s 2^%d %s: window %u, %zu chunks of up to %zu "
                       "points, scratch %.2f GiB = %.1f bytes a point\n",
                       groups[g].name, lg, host ? "host bases" : "resident",
                       pl.c, pl.nchunks, pl.chunk, pl.total / 1073741824.0,
                       (double)pl.total / (double)rq.n);
            }
    /* plans for measured scalars (dense and ones shares in 64ths): they
     * fit, take at most nwin pairs a point, and a bit-heavy vector never
     * gets a plan modelled dearer than the full-scalar one */
    static const unsigned dqs[] = {1, 7, 13, 64}, oqs[] = {0, 29};
    for (int g = 0; g < 4; g++)
        for (int li = 0; li < 4; li++)
            for (int di = 0; di < 4; di++)
                for (int oi = 0; oi < 2; oi++) {
                    static const int lgs[] = {16, 20, 24, 27};
                    int lg = lgs[li];
                    msm_plan_req rq = {};
                    rq.n = (size_t)1 << lg;
                    rq.nvec = 1;
                    rq.sm_count = 132;
                    rq.dense_q = dqs[di];
                    rq.ones_q = oqs[oi];
                    msm_plan pl, full;
                    bool fits = msm_make_plan(pl, rq, groups[g].gs, cub);
                    msm_plan_req rf = rq;
                    rf.dense_q = rf.ones_q = 0;
                    msm_make_plan(full, rf, groups[g].gs, cub);
                    size_t lim = msm_default_limit(rq.n, 1);
                    EXPECT(fits && pl.total <= lim && pl.dpp >= 1 && pl.dpp <= pl.nwin &&
                               pl.chunk * pl.dpp <= MSM_MAX_SORT,
                           "%s 2^%d dense %u/64 ones %u/64: plan (fits %d, %zu bytes, dpp %u)",
                           groups[g].name, lg, dqs[di], oqs[oi], (int)fits, pl.total, pl.dpp);
                    msm_plan_req rm = rq; /* the full plan costed for these scalars */
                    msm_plan fm = full;
                    fm.cost = msm_model_cost(fm, rm);
                    EXPECT(pl.cost <= fm.cost * 1.0000001,
                           "%s 2^%d dense %u/64: measured plan dearer than the full one",
                           groups[g].name, lg, dqs[di]);
                    if (lg == 27 && g == 1 && oi == 1 && (di == 1 || di == 3))
                        printf("plan %s 2^27 dense %u/64 ones %u/64: window %u, %zu chunks "
                               "of up to %zu points, %u pairs a point, scratch %.2f GiB\n",
                               groups[g].name, dqs[di], oqs[oi], pl.c, pl.nchunks, pl.chunk,
                               pl.dpp, pl.total / 1073741824.0);
                }
    printf("plans: %d passed, %d failed\n", passed - p0, failed - f0);
}

