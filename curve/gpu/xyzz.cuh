/*
 * Point arithmetic for CUDA kernels: affine and XYZZ coordinates on
 * y^2 = x^3 + b (a = 0), written once over the coordinate field F (fp_t for
 * G1, fp2_t for G2) and used by the MSM buckets (msm/gpu/msm_run.cu).
 *
 * Layouts equal curve/curve_types.h: affine_t {x, y} with infinity x = y = 0
 * (the snarkjs/zkey convention), xyzz_t {X, Y, ZZ, ZZZ} with x = X/ZZ,
 * y = Y/ZZZ and infinity ZZ = 0.  Every operation is complete: it accepts
 * infinity on any input and handles P + P (switches to doubling) and
 * P + (-P) (gives infinity), so bucket sums are right for any input multiset
 * (repeated bases, opposite bases, infinity among the bases).
 *
 * Formulas (hyperelliptic.org EFD, "xyzz" for short Weierstrass, a = 0):
 *   madd-2008-s  XYZZ + affine      8M + 2S
 *   add-2008-s   XYZZ + XYZZ       12M + 2S
 *   dbl-2008-s-1 2 * XYZZ           6M + 4S
 *   mdbl-2008-s-1 2 * affine        4M + 3S  (result in XYZZ)
 * Variable time (branches on point values); MSM data is public.
 *
 * Must not: assume inputs are in the subgroup (only on the curve), or
 * allocate.
 */
#ifndef CUZK_GPU_XYZZ_CUH
#define CUZK_GPU_XYZZ_CUH

#include "field/gpu/fp2.cuh"
#include "field/gpu/mont.cuh"

/* The formulas are large (a G1 mixed addition is ~6K instructions, a G2
 * one ~20K); compiling each once per type and calling it keeps nvcc's time
 * and the kernels' code size in check, at a cost of a few percent
 * (arguments pass through local memory).  Only the hot formula, the mixed
 * addition of bucket accumulation, inlines its Fp products; the others use
 * the called products f_mul_cold / f_sqr_cold (fp2.cuh). */
#define CUZK_PT __host__ __device__ __noinline__

template <class F> struct __align__(16) affine_t {
    F x, y;
};
template <class F> struct __align__(16) xyzz_t {
    F X, Y, ZZ, ZZZ;
};

template <class F> CUZK_HD void pt_set_inf(xyzz_t<F> &r) {
    f_set_zero(r.X);
    f_set_zero(r.Y);
    f_set_zero(r.ZZ);
    f_set_zero(r.ZZZ);
}
template <class F> CUZK_HD bool pt_is_inf(const xyzz_t<F> &a) {
    return f_is_zero(a.ZZ);
}
template <class F> CUZK_HD bool aff_is_inf(const affine_t<F> &a) {
    return f_is_zero(a.x) && f_is_zero(a.y);
}
/* affine -> XYZZ (ZZ = ZZZ = 1); infinity stays infinity. */
template <class F>
CUZK_HD void pt_from_affine(xyzz_t<F> &r, const affine_t<F> &a) {
    if (aff_is_inf(a)) {
        pt_set_inf(r);
        return;
    }
    r.X = a.x;
    r.Y = a.y;
    f_set_one(r.ZZ);
    f_set_one(r.ZZZ);
}

/* r = 2a for affine a (mdbl-2008-s-1), a not infinity. */
template <class F>
CUZK_PT void pt_dbl_affine(xyzz_t<F> &r, const affine_t<F> &a) {
    F U, V, W, S, M, t;
    f_dbl(U, a.y);        /* U = 2Y */
    f_sqr_cold(V, U);          /* V = U^2 */
    f_mul_cold(W, U, V);       /* W = U V */
    f_mul_cold(S, a.x, V);     /* S = X V */
    f_sqr_cold(M, a.x);        /* M = 3 X^2 */
    f_dbl(t, M);
    f_add(M, M, t);
    f_sqr_cold(t, M);          /* X3 = M^2 - 2S */
    f_sub(t, t, S);
    f_sub(r.X, t, S);
    f_sub(t, S, r.X);     /* Y3 = M (S - X3) - W Y */
    f_mul_cold(t, M, t);
    f_mul_cold(U, W, a.y);
    f_sub(r.Y, t, U);
    r.ZZ = V;             /* ZZ3 = V, ZZZ3 = W */
    r.ZZZ = W;
}

/* r = 2a in XYZZ (dbl-2008-s-1); infinity gives infinity. */
template <class F> CUZK_PT void pt_dbl(xyzz_t<F> &r, const xyzz_t<F> &a) {
    if (pt_is_inf(a)) {
        pt_set_inf(r);
        return;
    }
    F U, V, W, S, M, t;
    f_dbl(U, a.Y);
    f_sqr_cold(V, U);
    f_mul_cold(W, U, V);
    f_mul_cold(S, a.X, V);
    f_sqr_cold(M, a.X);
    f_dbl(t, M);
    f_add(M, M, t);
    f_mul_cold(r.ZZ, V, a.ZZ);   /* before r.X/r.Y: r may alias a */
    f_mul_cold(r.ZZZ, W, a.ZZZ);
    f_mul_cold(W, W, a.Y);       /* W Y1, read before r.Y is written */
    f_sqr_cold(t, M);
    f_sub(t, t, S);
    f_sub(r.X, t, S);
    f_sub(t, S, r.X);
    f_mul_cold(t, M, t);
    f_sub(r.Y, t, W);
}

/*
 * r += q (madd-2008-s), or r -= q when |neg|.  q infinity leaves r as is;
 * r infinity becomes +-q; equal x switches to doubling or infinity.
 */
template <class F>
CUZK_PT void pt_add_affine(xyzz_t<F> &r, const affine_t<F> &q, bool neg) {
    if (aff_is_inf(q))
        return;
    F qy = q.y;
    if (neg)
        f_neg(qy, q.y);
    if (pt_is_inf(r)) {
        r.X = q.x;
        r.Y = qy;
        f_set_one(r.ZZ);
        f_set_one(r.ZZZ);
        return;
    }
    F P, R, PP, PPP, Q, t;
    f_mul(P, q.x, r.ZZ);  /* U2 = X2 ZZ1; P = U2 - X1 */
    f_sub(P, P, r.X);
    f_mul(R, qy, r.ZZZ);  /* S2 = Y2 ZZZ1; R = S2 - Y1 */
    f_sub(R, R, r.Y);
    if (f_is_zero(P)) {
        if (f_is_zero(R)) {
            affine_t<F> d;
            d.x = q.x;
            d.y = qy;
            pt_dbl_affine(r, d);
        } else {
            pt_set_inf(r);
        }
        return;
    }
    f_sqr(PP, P);         /* PP = P^2, PPP = P PP, Q = X1 PP */
    f_mul(PPP, P, PP);
    f_mul(Q, r.X, PP);
    f_sqr(t, R);          /* X3 = R^2 - PPP - 2Q */
    f_sub(t, t, PPP);
    f_sub(t, t, Q);
    f_sub(r.X, t, Q);
    f_sub(t, Q, r.X);     /* Y3 = R (Q - X3) - Y1 PPP */
    f_mul(t, R, t);
    f_mul(Q, r.Y, PPP);
    f_sub(r.Y, t, Q);
    f_mul(r.ZZ, r.ZZ, PP);    /* ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP */
    f_mul(r.ZZZ, r.ZZZ, PPP);
}

/* r += q (add-2008-s), both XYZZ. */
template <class F> CUZK_PT void pt_add(xyzz_t<F> &r, const xyzz_t<F> &q) {
    if (pt_is_inf(q))
        return;
    if (pt_is_inf(r)) {
        r = q;
        return;
    }
    F U1, S1, P, R, PP, PPP, t;
    f_mul_cold(U1, r.X, q.ZZ);   /* U1 = X1 ZZ2, U2 = X2 ZZ1, P = U2 - U1 */
    f_mul_cold(P, q.X, r.ZZ);
    f_sub(P, P, U1);
    f_mul_cold(S1, r.Y, q.ZZZ);  /* S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, R = S2 - S1 */
    f_mul_cold(R, q.Y, r.ZZZ);
    f_sub(R, R, S1);
    if (f_is_zero(P)) {
        if (f_is_zero(R))
            pt_dbl(r, r);
        else
            pt_set_inf(r);
        return;
    }
    f_sqr_cold(PP, P);
    f_mul_cold(PPP, P, PP);
    f_mul_cold(U1, U1, PP);      /* Q = U1 PP */
    f_sqr_cold(t, R);            /* X3 = R^2 - PPP - 2Q */
    f_sub(t, t, PPP);
    f_sub(t, t, U1);
    f_sub(r.X, t, U1);
    f_sub(t, U1, r.X);      /* Y3 = R (Q - X3) - S1 PPP */
    f_mul_cold(t, R, t);
    f_mul_cold(S1, S1, PPP);
    f_sub(r.Y, t, S1);
    f_mul_cold(r.ZZ, r.ZZ, q.ZZ);    /* ZZ3 = ZZ1 ZZ2 PP */
    f_mul_cold(r.ZZ, r.ZZ, PP);
    f_mul_cold(r.ZZZ, r.ZZZ, q.ZZZ); /* ZZZ3 = ZZZ1 ZZZ2 PPP */
    f_mul_cold(r.ZZZ, r.ZZZ, PPP);
}

/* Jacobian (X, Y, Z) equal to a: (X ZZ^2, Y ZZZ^2, ZZZ), using ZZ^3 = ZZZ^2
 * (x = X ZZ^2 / ZZZ^2 = X / ZZ, y = Y ZZZ^2 / ZZZ^3 = Y / ZZZ).  Infinity
 * maps to all zeros (Z = 0). */
template <class F>
CUZK_PT void pt_to_jacobian(F *xyz, const xyzz_t<F> &a) {
    if (pt_is_inf(a)) {
        f_set_zero(xyz[0]);
        f_set_zero(xyz[1]);
        f_set_zero(xyz[2]);
        return;
    }
    F t;
    f_sqr_cold(t, a.ZZ);
    f_mul_cold(xyz[0], a.X, t);
    f_sqr_cold(t, a.ZZZ);
    f_mul_cold(xyz[1], a.Y, t);
    xyz[2] = a.ZZZ;
}

#endif
