/*
 * Planning of GPU MSMs (gpu/msm.h: cuzk_gpu_msm_plan, _scratch_bytes,
 * _window_bits, _reserve; msm_int.cuh: msm_plan_for, msm_request_of): the
 * CUDA side of msm_plan.h.  The plan itself is host arithmetic in
 * msm_plan.h; this file supplies CUB's temporary-storage sizes, keeps the
 * last CUZK_GPU_PLAN_CACHE plans of each stream, and answers what a call
 * would need before it runs (the prover sizes its streams with it).
 *
 * Must not: launch kernels or queue work on a stream (msm_run.cu runs the
 * plans), or allocate beyond the stream scratch a reservation asks for.
 */
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/dispatch.cuh"
#include "msm/gpu/msm_int.cuh"

/* CUB's temporary storage, queried (host-only computations). */
static size_t cub_sort_bytes(size_t M, unsigned key_bits) {
    size_t bytes = 0;
    cub::DoubleBuffer<uint32_t> k((uint32_t *)NULL, (uint32_t *)NULL);
    cub::DoubleBuffer<uint32_t> v((uint32_t *)NULL, (uint32_t *)NULL);
    if (cub::DeviceRadixSort::SortPairs((void *)NULL, bytes, k, v, (int)M, 0,
                                        (int)key_bits,
                                        (cudaStream_t)0) != cudaSuccess) {
        (void)cudaGetLastError();
        return (size_t)1 << 40; /* unknown: no plan fits */
    }
    return bytes;
}

static size_t cub_scan_bytes(size_t k) {
    size_t bytes = 0;
    if (cub::DeviceScan::ExclusiveSum((void *)NULL, bytes,
                                      (const unsigned long long *)NULL,
                                      (unsigned long long *)NULL, (int)k,
                                      (cudaStream_t)0) != cudaSuccess) {
        (void)cudaGetLastError();
        return (size_t)1 << 40;
    }
    return bytes;
}

static const msm_cub_sizes cub_sizes = {cub_sort_bytes, cub_scan_bytes};

static bool req_equal(const msm_plan_req &a, const msm_plan_req &b) {
    return a.n == b.n && a.nvec == b.nvec && a.host_scalars == b.host_scalars &&
           a.dense_q == b.dense_q && a.ones_q == b.ones_q &&
           a.host_bases == b.host_bases && a.affine == b.affine &&
           a.shift_c == b.shift_c && a.sm_count == b.sm_count &&
           a.force_c == b.force_c && a.limit == b.limit;
}

cuzk_status msm_plan_for(cuzk_gpu_stream *s, const msm_plan_req &rq, const msm_group_sizes &gs,
                         msm_plan &pl, cuzk_error *err) {
    int gk = (int)(gs.r_bits * 1000 + gs.affine);
    for (int i = 0; i < CUZK_GPU_PLAN_CACHE; i++) {
        const cuzk_gpu_plan_slot &e = s->plans[i];
        if (e.used && e.group == gk && req_equal(e.rq, rq)) {
            pl = e.pl;
            return e.fits ? CUZK_OK
                          : cuzk_gpu_fail(err, CUZK_ENOMEM,
                                          "msm: %zu points x %zu vectors need "
                                          "%.2f GiB of scratch at least, the "
                                          "limit is %.2f GiB",
                                          rq.n, rq.nvec, pl.total / 1073741824.0,
                                          pl.limit / 1073741824.0);
        }
    }
    bool fits = msm_make_plan(pl, rq, gs, cub_sizes);
    cuzk_gpu_plan_slot &e = s->plans[s->plan_next];
    s->plan_next = (s->plan_next + 1) % CUZK_GPU_PLAN_CACHE;
    e.used = true;
    e.group = gk;
    e.rq = rq;
    e.pl = pl;
    e.fits = fits;
    if (!fits)
        return cuzk_gpu_fail(err, CUZK_ENOMEM,
                             "msm: %zu points x %zu vectors need %.2f GiB of "
                             "scratch at least, the limit is %.2f GiB",
                             rq.n, rq.nvec, pl.total / 1073741824.0,
                             pl.limit / 1073741824.0);
    return CUZK_OK;
}

msm_plan_req msm_request_of(const cuzk_gpu_stream *s, const cuzk_gpu_bases *bases, size_t n,
                            size_t nvec, unsigned flags) {
    msm_plan_req rq = {};
    rq.n = n;
    rq.nvec = nvec;
    rq.host_scalars = !(flags & CUZK_GPU_SCALARS_DEVICE);
    rq.host_bases = bases->h_points != NULL;
    rq.affine = s->ctx->msm_affine;
    rq.shift_c = bases->d_shift ? bases->shift_c : 0;
    rq.sm_count = s->ctx->sm_count;
    rq.force_c = s->ctx->msm_window;
    rq.limit = s->msm_limit;
    return rq;
}

/* ---- C interface ----------------------------------------------------------- */

template <class G>
static cuzk_status plan_of(cuzk_gpu_ctx *ctx, size_t n, size_t nvec, unsigned flags,
                           int host_bases, size_t limit, cuzk_gpu_msm_info *info) {
    msm_plan_req rq = {}; /* full scalars: the largest plan */
    rq.n = n;
    rq.nvec = nvec;
    rq.host_scalars = !(flags & CUZK_GPU_SCALARS_DEVICE);
    rq.host_bases = host_bases != 0;
    rq.affine = ctx->msm_affine;
    rq.shift_c = 0;
    rq.sm_count = ctx->sm_count;
    rq.force_c = ctx->msm_window;
    rq.limit = limit;
    msm_plan pl;
    bool fits = msm_make_plan(pl, rq, msm_sizes_of<G>(), cub_sizes);
    info->scratch_bytes = pl.total;
    info->limit_bytes = pl.limit;
    info->window_bits = pl.c;
    info->chunk_points = pl.chunk;
    info->chunks = pl.nchunks;
    info->fits = fits;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_msm_plan(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                         cuzk_gpu_group group, size_t n, size_t nvec,
                                         unsigned flags, int host_bases, size_t limit,
                                         cuzk_gpu_msm_info *info, cuzk_error *err) {
    memset(info, 0, sizeof *info);
    if (ctx == NULL || nvec == 0 || nvec > CUZK_GPU_MSM_MAX_VECTORS)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "msm plan: no context or %zu vectors", nvec);
    if (n == 0) {
        info->fits = 1;
        return CUZK_OK;
    }
    return cuzk_gpu_group_dispatch(curve, group, err, "msm plan", [&](auto t) {
        typedef typename decltype(t)::type G;
        return plan_of<G>(ctx, n, nvec, flags, host_bases, limit, info);
    });
}

extern "C" cuzk_status cuzk_gpu_msm_scratch_bytes(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                                  cuzk_gpu_group group, size_t n,
                                                  int host_bases, size_t *bytes,
                                                  cuzk_error *err) {
    cuzk_gpu_msm_info info;
    cuzk_status st = cuzk_gpu_msm_plan(ctx, curve, group, n, 1, CUZK_GPU_SCALARS_DEVICE,
                                       host_bases, 0, &info, err);
    *bytes = st == CUZK_OK ? info.scratch_bytes : 0;
    return st;
}

extern "C" unsigned cuzk_gpu_msm_window_bits(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                             cuzk_gpu_group group, size_t n) {
    cuzk_gpu_msm_info info;
    cuzk_error e;
    if (cuzk_gpu_msm_plan(ctx, curve, group, n, 1, CUZK_GPU_SCALARS_DEVICE, 0, 0, &info,
                          &e) != CUZK_OK)
        return 0;
    return info.window_bits;
}

/* What msm_run allocates for the same call, allocated now. */
template <class G>
static cuzk_status msm_reserve(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases, size_t n,
                               size_t nvec, unsigned flags, cuzk_error *err) {
    typedef typename G::xyzz P;
    msm_plan_req rq = msm_request_of(s, bases, n, nvec, flags);
    msm_plan pl;
    cuzk_status st = msm_plan_for(s, rq, msm_sizes_of<G>(), pl, err);
    if (st == CUZK_OK && (rq.host_bases || rq.host_scalars))
        st = cuzk_gpu_copy_stream(s, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_scratch(s, pl.total, err);
    if (st == CUZK_OK)
        st = cuzk_gpu_host_scratch(s, sizeof(P) * (pl.nwb + 1) * nvec + 64, err);
    return st;
}

extern "C" cuzk_status cuzk_gpu_msm_reserve(cuzk_gpu_stream *s, const cuzk_gpu_bases *bases,
                                            size_t n, size_t nvec, unsigned flags,
                                            cuzk_error *err) {
    if (bases == NULL || nvec == 0 || nvec > CUZK_GPU_MSM_MAX_VECTORS || n > bases->n)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "msm reserve: %zu of %zu points, %zu vectors",
                             n, bases ? bases->n : 0, nvec);
    if (n == 0)
        return CUZK_OK;
    cuzk_status st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    return cuzk_gpu_group_dispatch(bases->curve, bases->group, err, "msm reserve", [&](auto t) {
        return msm_reserve<typename decltype(t)::type>(s, bases, n, nvec, flags, err);
    });
}
