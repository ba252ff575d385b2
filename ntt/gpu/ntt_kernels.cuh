/*
 * Per-thread bodies of the GPU NTT over Fr (ntt.cu wraps them in kernels;
 * as __host__ __device__ functions they also run on the host, where a
 * harness outside the tree checked the index arithmetic against the CPU
 * NTT before the first GPU run).
 *
 * Transform: decimation in frequency (Gentleman-Sande), in place, natural
 * order in, bit-reversed order out, followed by a bit-reversal permutation
 * that also applies the output scaling.  A pass does K consecutive radix-2
 * stages on 2^K elements held in registers (thread t of a pass with first
 * stage span h0 handles x[blk*2h0 + p + m*s], m < 2^K, s = h0 / 2^(K-1)),
 * so log_n stages cost ceil(log_n / K) passes over memory.
 *
 * Twiddles: tw[i] = w^i for i < n/2 (w = root of unity of order n).  The
 * stage with span h uses w_2h^q = tw[q * n/(2h)].  The inverse transform
 * uses w^-i = -w^(n/2 - i), folded into the butterfly as (b - a) instead of
 * (a - b), so one table serves both directions.  The 1/n factor and coset
 * powers are applied by the permutation pass (inverse) or on load in the
 * first pass (forward coset), from two small tables lo[k] = g^k (k < 4096)
 * and hi[k] = g^(4096 k) (times 1/n for the inverse), g^i = lo * hi.
 *
 * Must not: allocate or depend on the launch shape beyond the thread index.
 */
#ifndef CUZK_GPU_NTT_KERNELS_CUH
#define CUZK_GPU_NTT_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>

#include "field/gpu/mont.cuh"

#define NTT_POW_LO_BITS 12
#define NTT_POW_LO ((uint32_t)1 << NTT_POW_LO_BITS)

CUZK_HD uint32_t ntt_bitrev(uint32_t i, unsigned log_n) {
#if defined(__CUDA_ARCH__)
    return __brev(i) >> (32 - log_n);
#else
    uint32_t r = 0;
    for (unsigned k = 0; k < log_n; k++)
        r |= ((i >> k) & 1u) << (log_n - 1 - k);
    return r;
#endif
}

/* g^idx from the two-level power tables. */
template <class C>
CUZK_HD void ntt_pow_lookup(fp_t<C> &r, const fp_t<C> *lo, const fp_t<C> *hi,
                            uint32_t idx) {
    f_mul(r, lo[idx & (NTT_POW_LO - 1)], hi[idx >> NTT_POW_LO_BITS]);
}

/* One pass of K stages starting at global stage |stage0| (span n/2^(stage0+1)).
 * |lo|/|hi| non-NULL: multiply inputs by g^index first (forward coset). */
template <class C, int K>
CUZK_HD void ntt_pass_one(uint32_t t, fp_t<C> *x, unsigned log_n,
                          unsigned stage0, const fp_t<C> *tw, bool inverse,
                          const fp_t<C> *lo, const fp_t<C> *hi) {
    typedef fp_t<C> E;
    const uint32_t half_n = 1u << (log_n - 1);
    const unsigned log_s = log_n - stage0 - K; /* smallest span of the pass */
    const uint32_t s = 1u << log_s;
    const uint32_t blk = t >> log_s, p = t & (s - 1);
    const uint32_t base = (blk << (log_s + K)) + p;
    E y[1 << K];
CUZK_UNROLL
    for (int m = 0; m < (1 << K); m++)
        y[m] = x[base + ((uint32_t)m << log_s)];
    if (lo != NULL) {
CUZK_UNROLL
        for (int m = 0; m < (1 << K); m++) {
            E g;
            ntt_pow_lookup(g, lo, hi, base + ((uint32_t)m << log_s));
            f_mul(y[m], y[m], g);
        }
    }
CUZK_UNROLL
    for (int j = 0; j < K; j++) {
        const int span = 1 << (K - 1 - j);
CUZK_UNROLL
        for (int m = 0; m < (1 << K); m++) {
            if (m & span)
                continue;
            uint32_t q = p + ((uint32_t)(m & (span - 1)) << log_s);
            uint32_t idx = q << (stage0 + j);
            E a = y[m], b = y[m + span];
            f_add(y[m], a, b);
            if (idx == 0) {
                f_sub(y[m + span], a, b);
            } else if (!inverse) {
                f_sub(a, a, b);
                f_mul(y[m + span], a, tw[idx]);
            } else {
                f_sub(a, b, a);
                f_mul(y[m + span], a, tw[half_n - idx]);
            }
        }
    }
CUZK_UNROLL
    for (int m = 0; m < (1 << K); m++)
        x[base + ((uint32_t)m << log_s)] = y[m];
}

/*
 * Bit-reversal permutation of element pair (i, rev(i)), i <= rev(i), with
 * output scaling: mode 0 none, 1 times |scale|, 2 times lo/hi power of the
 * destination index (the inverse coset factor g^-i / n).
 */
template <class C>
CUZK_HD void ntt_bitrev_one(uint32_t i, fp_t<C> *x, unsigned log_n, int mode,
                            const fp_t<C> &scale, const fp_t<C> *lo,
                            const fp_t<C> *hi) {
    uint32_t j = ntt_bitrev(i, log_n);
    if (i > j)
        return;
    fp_t<C> a = x[i], b = x[j];
    if (mode == 1) {
        f_mul(a, a, scale);
        f_mul(b, b, scale);
    } else if (mode == 2) {
        fp_t<C> f;
        ntt_pow_lookup(f, lo, hi, i);
        f_mul(b, b, f); /* b lands at i */
        ntt_pow_lookup(f, lo, hi, j);
        f_mul(a, a, f);
    }
    x[i] = b;
    x[j] = a;
}

/* out[k] = scale * base^k. */
template <class C>
CUZK_HD void ntt_powers_one(uint32_t k, fp_t<C> *out, const fp_t<C> &base,
                            const fp_t<C> &scale) {
    fp_t<C> r;
    f_pow(r, base, &k, 1);
    f_mul(out[k], r, scale);
}

#endif
