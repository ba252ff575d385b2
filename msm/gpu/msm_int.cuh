/*
 * What the two halves of the GPU MSM share (private to msm/gpu/):
 * msm_plan.cu plans a call (window, chunks, scratch layout through
 * msm_plan.h, with CUB's size queries) and keeps each stream's cache of
 * plans; msm_run.cu runs one (kernels, staging, sort, reduction).  The
 * bases objects are in msm_bases.cu and need nothing from here.
 *
 * Must not: hold kernels, or be included outside msm/gpu/.
 */
#ifndef CUZK_MSM_GPU_MSM_INT_CUH
#define CUZK_MSM_GPU_MSM_INT_CUH

#include "gpu/internal.cuh"
#include "msm/gpu/msm_plan.h"

/* The planning sizes of group descriptor G (curve/gpu/groups.cuh). */
template <class G> static inline msm_group_sizes msm_sizes_of(void) {
    msm_group_sizes gs;
    gs.r_bits = G::R_BITS;
    gs.affine = sizeof(typename G::affine);
    gs.xyzz = sizeof(typename G::xyzz);
    gs.field = sizeof(typename G::F);
    return gs;
}

/* The request of an MSM of |n| points of |bases| and |nvec| vectors on
 * stream |s| (full scalars: dense_q and ones_q are left 0). */
msm_plan_req msm_request_of(const cuzk_gpu_stream *s, const cuzk_gpu_bases *bases, size_t n,
                            size_t nvec, unsigned flags);

/* The plan for |rq| of a group of sizes |gs| on stream |s|, from the
 * stream's cache when the same request was planned before (planning
 * queries CUB a few hundred times: ~ms, too slow to repeat for every small
 * MSM).  CUZK_ENOMEM, naming the numbers, when no plan fits the limit. */
cuzk_status msm_plan_for(cuzk_gpu_stream *s, const msm_plan_req &rq, const msm_group_sizes &gs,
                         msm_plan &pl, cuzk_error *err);

#endif
