/*
 * Batch-affine bucket accumulation for the GPU MSM (the alternative to
 * step 3's first level of msm_kernels.cuh; selected by
 * cuzk_gpu_ctx_msm_accum or CUZK_GPU_MSM_ACCUM=affine, gpu/selftest.h).
 *
 * Why: a mixed XYZZ addition costs ~10 field products; an affine addition
 * P + Q = (l^2 - x1 - x2, l (x1 - x3) - y1), l = (y2 - y1) / (x2 - x1),
 * costs 3 products once the denominator's inverse is known, and Montgomery's
 * trick gives the inverses of a whole batch of denominators for one
 * inversion and 3 products each: ~6 products per addition, plus the
 * inversion shared by the batch.
 *
 * msm_aff_one, thread t over its segment [tL, min(M, tL+L)) of the sorted
 * (key, point index | sign) pairs, in place:
 *   load   the segment's points (sign applied) into work[] at the same
 *          positions; the keys stay in keys[].
 *   level  pair neighbours with equal keys ((0,1), (2,3), ... of each run),
 *          as long as a level has at least |min_pairs| pairs (below that
 *          the inversion costs more than the affine formula saves):
 *          forward, the product of the pairs' denominators with the prefix
 *          products kept in pre[] and the pair's first position in vals[]
 *          (the indices were consumed by the load); one inversion; backward,
 *          each pair's inverse from the prefix and the running inverse, the
 *          sum written over the first point, the second's key marked
 *          MSM_INVALID; then the live points move to the front.
 *   finish the m live points stay at [tL, tL+m), sorted by key; positions
 *          [tL+m, end) get the segment's last key and infinity, and vals[]
 *          becomes the identity, so the sorted list is again (key, index)
 *          pairs over work[] and msm_acc_one<G, true> with the same segment
 *          length finishes the buckets exactly as for plain bases (the
 *          padding keeps the keys sorted: each segment's first and last key
 *          survive the levels, and the padding adds infinity).
 *
 * Exceptional pairs, none of which enters the product chain:
 *   infinity + Q = Q, P + infinity = P (zero bases, earlier cancellations);
 *   x1 = x2, y1 = -y2 (P - P, also y = 0): infinity, kept as a point (0, 0)
 *   so the padding and the counts stay put.
 * Doubling (x1 = x2, y1 = y2 != 0) does enter the chain with denominator
 * 2 y1 and l = 3 x1^2 / (2 y1) (a = 0).
 *
 * Memory: work[] is M affine points, pre[] (L/2 per thread) M/2 field
 * elements: for n = 2^24 G1 of BLS12-381 (13 windows) ~26 GB, G2 ~52 GB.
 *
 * Must not: allocate, synchronise, touch another thread's segment, or
 * depend on the order threads run in.
 */
#ifndef CUZK_GPU_MSM_AFFINE_CUH
#define CUZK_GPU_MSM_AFFINE_CUH

#include "msm/gpu/msm_kernels.cuh"

/* Denominator of a + b in *d; false when the pair needs no inversion
 * (infinity on either side, or b = -a). */
template <class F>
CUZK_HD bool msm_aff_denom(F &d, const affine_t<F> &a, const affine_t<F> &b) {
    if (aff_is_inf(a) || aff_is_inf(b))
        return false;
    if (!f_eq(a.x, b.x)) {
        f_sub(d, b.x, a.x);
        return true;
    }
    if (f_eq(a.y, b.y) && !f_is_zero(a.y)) {
        f_dbl(d, a.y);
        return true;
    }
    return false;
}

/* r = a + b for a pair msm_aff_denom refused. */
template <class F>
CUZK_HD void msm_aff_special(affine_t<F> &r, const affine_t<F> &a,
                             const affine_t<F> &b) {
    if (aff_is_inf(a)) {
        r = b;
    } else if (aff_is_inf(b)) {
        r = a;
    } else {
        f_set_zero(r.x);
        f_set_zero(r.y);
    }
}

/* r = a + b given dinv = 1 / denominator (addition or doubling). */
template <class F>
CUZK_HD void msm_aff_finish(affine_t<F> &r, const affine_t<F> &a,
                            const affine_t<F> &b, const F &dinv) {
    F l, t;
    if (!f_eq(a.x, b.x)) {
        f_sub(t, b.y, a.y);
    } else { /* doubling: 3 x^2 */
        f_sqr(l, a.x);
        f_dbl(t, l);
        f_add(t, t, l);
    }
    f_mul(l, t, dinv);
    f_sqr(t, l);
    f_sub(t, t, a.x);
    f_sub(r.x, t, b.x);
    f_sub(t, a.x, r.x);
    f_mul(t, l, t);
    f_sub(r.y, t, a.y);
}

/*
 * Thread t: the batch-affine levels over its segment (see the file
 * header).  keys/vals: the sorted pairs (rewritten in the segment);
 * bases/shift/nfirst as msm_acc_one<G, true>; work: M affine points; pre:
 * L/2 field elements per thread.
 */
template <class G>
CUZK_HD void msm_aff_one(size_t t, uint32_t *keys, size_t M, size_t L,
                         uint32_t *vals, const typename G::affine *bases,
                         const typename G::affine *shift, uint32_t nfirst,
                         size_t min_pairs, typename G::affine *work,
                         typename G::F *pre) {
    typedef typename G::affine A;
    typedef typename G::F F;
    size_t s = t * L, e = s + L < M ? s + L : M;
    uint32_t *k = keys + s, *pidx = vals + s;
    A *w = work + s;
    F *pr = pre + t * (L / 2);
    size_t m = e - s;
    for (size_t j = 0; j < m; j++) {
        uint32_t v = pidx[j], i = v & ~MSM_NEG_BIT;
        A q = i < nfirst ? bases[i] : shift[i - nfirst];
        if ((v & MSM_NEG_BIT) && !aff_is_inf(q))
            f_neg(q.y, q.y);
        w[j] = q;
    }
    if (min_pairs == 0)
        min_pairs = 1;
    for (;;) {
        size_t np = 0;
        for (size_t j = 0; j + 1 < m;) {
            if (k[j] == k[j + 1]) {
                np++;
                j += 2;
            } else {
                j++;
            }
        }
        if (np < min_pairs)
            break;
        F acc, d;
        f_set_one(acc);
        np = 0;
        for (size_t j = 0; j + 1 < m;) {
            if (k[j] != k[j + 1]) {
                j++;
                continue;
            }
            A a = w[j], b = w[j + 1];
            if (msm_aff_denom(d, a, b)) {
                pr[np] = acc;
                f_mul(acc, acc, d);
            }
            pidx[np++] = (uint32_t)j;
            j += 2;
        }
        f_inv(acc, acc); /* 1 / product of every pair's denominator */
        for (size_t q = np; q-- > 0;) {
            uint32_t j = pidx[q];
            A a = w[j], b = w[j + 1], r;
            if (msm_aff_denom(d, a, b)) {
                F dinv;
                f_mul(dinv, acc, pr[q]); /* 1 / d */
                f_mul(acc, acc, d);      /* 1 / product of the pairs before */
                msm_aff_finish(r, a, b, dinv);
            } else {
                msm_aff_special(r, a, b);
            }
            w[j] = r;
            k[j + 1] = MSM_INVALID;
        }
        size_t o = 0;
        for (size_t j = 0; j < m; j++) {
            if (k[j] == MSM_INVALID)
                continue;
            if (o != j) {
                k[o] = k[j];
                w[o] = w[j];
            }
            o++;
        }
        m = o;
    }
    uint32_t last = k[m - 1];
    for (size_t j = m; j < e - s; j++) {
        k[j] = last;
        f_set_zero(w[j].x);
        f_set_zero(w[j].y);
    }
    for (size_t j = 0; j < e - s; j++)
        pidx[j] = (uint32_t)(s + j);
}

#endif
