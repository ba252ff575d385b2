/*
 * The one place at the CUDA boundary that maps a cuzk_curve to its device
 * types.  The kernels are templates over a scalar-field configuration
 * (field/gpu/mont.cuh) or a group descriptor (curve/gpu/groups.cuh); an
 * extern "C" entry point receives a cuzk_curve (and a cuzk_gpu_group) and
 * picks the instantiation here:
 *
 *     return cuzk_gpu_dispatch(curve, err, "spmv", [&](auto t) {
 *         typedef typename decltype(t)::fr C;
 *         k_spmv<C><<<...>>>(...);
 *         ...
 *     });
 *
 * cuzk_gpu_group_dispatch does the same for (curve, group) and hands the
 * lambda a cuzk_gpu_tag<G> of the group descriptor G.
 *
 * Why: the MSM, bases, NTT, prover and self-test sources each held an
 * if-ladder over the curves, a curve added to one was easily forgotten in
 * another, and some ladders fell through to BN254 for any value they did
 * not know.  Adding a curve now adds one cuzk_gpu_curve_types
 * specialisation and one case in cuzk_gpu_dispatch.
 *
 * Must not: hold kernels or arithmetic; be included from C code.  A value
 * that is no curve with device kernels fails with CUZK_EINVAL, naming the
 * caller (|what|), and launches nothing.
 */
#ifndef CUZK_GPU_DISPATCH_CUH
#define CUZK_GPU_DISPATCH_CUH

#include "curve/gpu/groups.cuh"
#include "gpu/internal.cuh"

/* A type carried as a value, so that a generic lambda can receive it. */
template <class T> struct cuzk_gpu_tag {
    typedef T type;
};

/* A curve's device types: fr (the scalar-field configuration, fp_t<fr>
 * is an element), g1 and g2 (group descriptors of groups.cuh). */
template <cuzk_curve C> struct cuzk_gpu_curve_types;
template <> struct cuzk_gpu_curve_types<CUZK_CURVE_BLS12_381> {
    typedef gpu_bls12_381_fr_cfg fr;
    typedef gg_bls12_381_g1 g1;
    typedef gg_bls12_381_g2 g2;
};
template <> struct cuzk_gpu_curve_types<CUZK_CURVE_BN254> {
    typedef gpu_bn254_fr_cfg fr;
    typedef gg_bn254_g1 g1;
    typedef gg_bn254_g2 g2;
};

/* f(cuzk_gpu_curve_types<curve>()) for a curve with device kernels. */
template <class F>
static inline cuzk_status cuzk_gpu_dispatch(cuzk_curve curve, cuzk_error *err,
                                            const char *what, F &&f) {
    switch (curve) {
    case CUZK_CURVE_BLS12_381:
        return f(cuzk_gpu_curve_types<CUZK_CURVE_BLS12_381>());
    case CUZK_CURVE_BN254:
        return f(cuzk_gpu_curve_types<CUZK_CURVE_BN254>());
    default:
        return cuzk_gpu_fail(err, CUZK_EINVAL, "%s: curve %d has no device kernels",
                             what, (int)curve);
    }
}

/* f(cuzk_gpu_tag<G>()) with G the descriptor of (curve, group). */
template <class F>
static inline cuzk_status cuzk_gpu_group_dispatch(cuzk_curve curve, cuzk_gpu_group group,
                                                  cuzk_error *err, const char *what, F &&f) {
    if (group != CUZK_GPU_G1 && group != CUZK_GPU_G2)
        return cuzk_gpu_fail(err, CUZK_EINVAL, "%s: group %d", what, (int)group);
    return cuzk_gpu_dispatch(curve, err, what, [&](auto t) {
        typedef decltype(t) K;
        return group == CUZK_GPU_G2 ? f(cuzk_gpu_tag<typename K::g2>())
                                    : f(cuzk_gpu_tag<typename K::g1>());
    });
}

#endif
