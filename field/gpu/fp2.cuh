/*
 * Quadratic extension Fp2 = Fp[u]/(u^2 + 1) for CUDA kernels: the G2
 * coordinate field of both curves (field/fp2.h is the CPU reference).
 *
 * fp2_t<C> has the CPU layout (c0 then c1, each an fp_t<C>), and the same
 * generic operation names as fp_t (f_add, f_mul, ...), so the point
 * formulas in curve/gpu/xyzz.cuh are written once for G1 and G2.
 *
 * Must not: depend on the curve's non-residue xi (no tower arithmetic is
 * needed on the GPU); inputs and outputs are fully reduced.
 */
#ifndef CUZK_GPU_FP2_CUH
#define CUZK_GPU_FP2_CUH

#include "field/gpu/mont.cuh"

template <class C> struct __align__(16) fp2_t {
    fp_t<C> c0, c1;
};

template <class C>
CUZK_HD void f_add(fp2_t<C> &r, const fp2_t<C> &a, const fp2_t<C> &b) {
    f_add(r.c0, a.c0, b.c0);
    f_add(r.c1, a.c1, b.c1);
}
template <class C>
CUZK_HD void f_sub(fp2_t<C> &r, const fp2_t<C> &a, const fp2_t<C> &b) {
    f_sub(r.c0, a.c0, b.c0);
    f_sub(r.c1, a.c1, b.c1);
}
template <class C> CUZK_HD void f_dbl(fp2_t<C> &r, const fp2_t<C> &a) {
    f_dbl(r.c0, a.c0);
    f_dbl(r.c1, a.c1);
}
template <class C> CUZK_HD void f_neg(fp2_t<C> &r, const fp2_t<C> &a) {
    f_neg(r.c0, a.c0);
    f_neg(r.c1, a.c1);
}
/* Karatsuba: 3 base-field products.  Not inlined (see f_mul_call): a G2
 * formula holds 10-20 of these, and the call costs a few percent of the
 * ~1800 instructions of the product. */
template <class C>
__host__ __device__ __noinline__ void f_mul(fp2_t<C> &r, const fp2_t<C> &a, const fp2_t<C> &b) {
    fp_t<C> t0, t1, sa, sb;
    f_mul(t0, a.c0, b.c0);
    f_mul(t1, a.c1, b.c1);
    f_add(sa, a.c0, a.c1);
    f_add(sb, b.c0, b.c1);
    f_mul(sa, sa, sb);
    f_sub(r.c0, t0, t1);
    f_sub(sa, sa, t0);
    f_sub(r.c1, sa, t1);
}
/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: 2 products. */
template <class C>
__host__ __device__ __noinline__ void f_sqr(fp2_t<C> &r, const fp2_t<C> &a) {
    fp_t<C> s, d, m;
    f_add(s, a.c0, a.c1);
    f_sub(d, a.c0, a.c1);
    f_mul(m, a.c0, a.c1);
    f_mul(r.c0, s, d);
    f_dbl(r.c1, m);
}
/* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2) (u^2 = -1); 0 -> 0.  One
 * base-field inversion (Fermat): for precomputation, not hot loops. */
template <class C> CUZK_HD void f_inv(fp2_t<C> &r, const fp2_t<C> &a) {
    fp_t<C> n, t;
    f_mul(n, a.c0, a.c0);
    f_mul(t, a.c1, a.c1);
    f_add(n, n, t);
    f_inv(n, n);
    f_mul(r.c0, a.c0, n);
    f_mul(t, a.c1, n);
    f_neg(r.c1, t);
}
template <class C> CUZK_HD void f_set_zero(fp2_t<C> &r) {
    f_set_zero(r.c0);
    f_set_zero(r.c1);
}
template <class C> CUZK_HD void f_set_one(fp2_t<C> &r) {
    f_set_one(r.c0);
    f_set_zero(r.c1);
}
template <class C> CUZK_HD bool f_is_zero(const fp2_t<C> &a) {
    return f_is_zero(a.c0) && f_is_zero(a.c1);
}
template <class C> CUZK_HD bool f_eq(const fp2_t<C> &a, const fp2_t<C> &b) {
    return f_eq(a.c0, b.c0) && f_eq(a.c1, b.c1);
}

/* Off-hot-path products (see xyzz.cuh): Fp2 products are calls already. */
template <class C>
CUZK_HD void f_mul_cold(fp2_t<C> &r, const fp2_t<C> &a, const fp2_t<C> &b) {
    f_mul(r, a, b);
}
template <class C> CUZK_HD void f_sqr_cold(fp2_t<C> &r, const fp2_t<C> &a) {
    f_sqr(r, a);
}
template <class C>
CUZK_HD void f_mul_cold(fp_t<C> &r, const fp_t<C> &a, const fp_t<C> &b) {
    f_mul_call(r, a, b);
}
template <class C> CUZK_HD void f_sqr_cold(fp_t<C> &r, const fp_t<C> &a) {
    f_mul_call(r, a, a);
}

typedef fp2_t<gpu_bls12_381_fp_cfg> g_bls12_381_fp2;
typedef fp2_t<gpu_bn254_fp_cfg> g_bn254_fp2;

#endif
