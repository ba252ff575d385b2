/*
 * Montgomery prime-field arithmetic for CUDA kernels (and their host side).
 *
 * One element type, fp_t<C>, for the four fields of field/field.h; the
 * configuration C supplies the modulus and Montgomery constants, taken from
 * field/consts_gen.h (generated and GMP-checked, never typed in here).  The
 * memory image of fp_t is exactly the CPU type's (little-endian words,
 * Montgomery form, R = 2^(64*limbs)), so arrays cross the host/device
 * boundary as they are: a zkey point array is a device base array.
 *
 * Device code uses 32-bit words and PTX carry chains (ptx.cuh).  The
 * product the kernels use is mont_mul_eo: a Montgomery product (one
 * reduction word per row) whose running sum lives in two accumulators, so
 * that every 32x32-bit partial product a[j]*b[i] lands on an aligned word
 * pair and the pair "mad.lo.cc; madc.hi.cc" becomes one wide multiply-add
 * in machine code (details at the function).  mont_mul_chain, the plain
 * CIOS loop with each row split into an even and an odd carry chain, is
 * kept for comparison (bench_gpu measures both, and a 64-bit-word
 * instantiation): its odd chain puts products on unaligned pairs, which
 * costs separate low/high multiplies and register moves.  Host code uses
 * plain 128-bit arithmetic on 64-bit limbs, which is several times faster
 * on a CPU than emulating carry flags; define CUZK_GPU_EMULATE_PTX to run
 * the device algorithms on the host instead (tests/mont_emulate.cu checks
 * them that way against GMP, without a GPU).
 *
 * Bounds: every modulus here is below 2^(bits-1) (bits = 32*N), so a
 * Montgomery product of inputs < p stays below 2p before its final
 * conditional subtraction and below W^(N+1) throughout (see mont_mul_chain);
 * sums a + b < 2p fit the words.  Inputs must be fully reduced (< p);
 * outputs are fully reduced.
 *
 * Must not: allocate, keep global state other than the constant tables,
 * branch on element values except in is_zero/eq (variable time is fine on
 * the GPU: MSM and NTT data are public).
 */
#ifndef CUZK_GPU_MONT_CUH
#define CUZK_GPU_MONT_CUH

#include <stdint.h>
#include <string.h>

#include "field/consts_gen.h"
#include "field/gpu/ptx.cuh"

/* ---- generic word-level routines --------------------------------------- */

/* r = t - p if that does not borrow, else t (for t < 2p). */
template <class W, int N>
CUZK_HD void sub_p_once(W *r, const W *t, const W *p) {
    W s[N];
    s[0] = ptx_sub_cc(t[0], p[0]);
    CUZK_UNROLL
    for (int j = 1; j < N; j++)
        s[j] = ptx_subc_cc(t[j], p[j]);
    W borrow = ptx_subc((W)0, (W)0); /* all ones iff t < p */
    CUZK_UNROLL
    for (int j = 0; j < N; j++)
        r[j] = borrow ? t[j] : s[j];
}

/*
 * r = a * b / 2^(bits(W)*N) mod p (CIOS).  t holds N+1 words; after each
 * row t < 2p * W, and the value never exceeds W^(N+1) because p < W^N / 2,
 * so neither chain needs a carry out of t[N].
 */
template <class W, int N>
CUZK_HD void mont_mul_chain(W *r, const W *a, const W *b, const W *p, W n0) {
    W t[N + 1];
    /* row 0: t = a * b[0] */
    CUZK_UNROLL
    for (int j = 0; j < N; j += 2) {
        t[j] = ptx_mul_lo(a[j], b[0]);
        t[j + 1] = ptx_mul_hi(a[j], b[0]);
    }
    t[1] = ptx_mad_lo_cc(a[1], b[0], t[1]);
    CUZK_UNROLL
    for (int j = 1; j < N - 2; j += 2) {
        t[j + 1] = ptx_madc_hi_cc(a[j], b[0], t[j + 1]);
        t[j + 2] = ptx_madc_lo_cc(a[j + 2], b[0], t[j + 2]);
    }
    t[N] = ptx_madc_hi(a[N - 1], b[0], (W)0);
    CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        if (i > 0) {
            /* t += a * b[i]; t[N] is 0 here (shifted out last round) */
            W bi = b[i];
            t[0] = ptx_mad_lo_cc(a[0], bi, t[0]);
            t[1] = ptx_madc_hi_cc(a[0], bi, t[1]);
            CUZK_UNROLL
            for (int j = 2; j < N; j += 2) {
                t[j] = ptx_madc_lo_cc(a[j], bi, t[j]);
                t[j + 1] = ptx_madc_hi_cc(a[j], bi, t[j + 1]);
            }
            t[N] = ptx_addc(t[N], (W)0);
            t[1] = ptx_mad_lo_cc(a[1], bi, t[1]);
            CUZK_UNROLL
            for (int j = 1; j < N - 2; j += 2) {
                t[j + 1] = ptx_madc_hi_cc(a[j], bi, t[j + 1]);
                t[j + 2] = ptx_madc_lo_cc(a[j + 2], bi, t[j + 2]);
            }
            t[N] = ptx_madc_hi(a[N - 1], bi, t[N]);
        }
        /* t += m * p with m chosen so the low word becomes 0; then t /= W */
        W m = ptx_mul_lo(t[0], n0);
        (void)ptx_mad_lo_cc(m, p[0], t[0]);
        t[1] = ptx_madc_hi_cc(m, p[0], t[1]);
        CUZK_UNROLL
        for (int j = 2; j < N; j += 2) {
            t[j] = ptx_madc_lo_cc(m, p[j], t[j]);
            t[j + 1] = ptx_madc_hi_cc(m, p[j], t[j + 1]);
        }
        t[N] = ptx_addc(t[N], (W)0);
        t[1] = ptx_mad_lo_cc(m, p[1], t[1]);
        CUZK_UNROLL
        for (int j = 1; j < N - 2; j += 2) {
            t[j + 1] = ptx_madc_hi_cc(m, p[j], t[j + 1]);
            t[j + 2] = ptx_madc_lo_cc(m, p[j + 2], t[j + 2]);
        }
        t[N] = ptx_madc_hi(m, p[N - 1], t[N]);
        CUZK_UNROLL
        for (int j = 0; j < N; j++)
            t[j] = t[j + 1];
        t[N] = 0;
    }
    sub_p_once<W, N>(r, t, p); /* t < 2p */
}

/*
 * Even/odd Montgomery product (32-bit words on the device).
 *
 * The running sum S of the row loop is kept as S = E + W * O in two N-word
 * accumulators.  A row adds a * b[i] as a[even j] * b[i] into E at words
 * (j, j+1) and a[odd j] * b[i] into O at words (j-1, j), then m * p the same
 * way with m = E[0] * n0, after which E[0] = 0.  S / W is then
 *   E[1] + W * (E >> 2 words) + O,
 * so the next row swaps the roles: O becomes the "even" accumulator (E[1]
 * added to its word 0 with add.cc) and E >> 2 words becomes the "odd" one.
 * The two-word shift is free: it is folded into the next row's
 * multiply-add chain on that accumulator (eo_mad_shift), which also takes
 * the carry of the add.cc at its word 0, where it belongs (weight W).
 * Every product thus sits on an aligned pair of one accumulator and no
 * word ever moves between registers of different parity.
 *
 * Carries: S stays below 2pW < W^(N+1) (the CIOS bound, p < W^N / 2), so
 * the "odd" accumulator, which carries weight W, stays below W^N: the carry
 * out of its m * p chain is zero, and the carry out of the "even" chains
 * (weight W^N) goes into its top word without overflow.  The first row
 * starts from plain products.  After N rows (N even, the last row's roles
 * being O "even", E "odd"), r = E + (O >> 1 word) < 2p, then one
 * conditional subtraction.  (tests/mont_emulate.cu runs this chain with an
 * emulated carry flag against GMP, including the largest operands.)
 */
template <class W, int N>
CUZK_HD void eo_mul(W *x, const W *a, W bi) {
    CUZK_UNROLL
    for (int j = 0; j < N; j += 2) {
        x[j] = ptx_mul_lo(a[j], bi);
        x[j + 1] = ptx_mul_hi(a[j], bi);
    }
}
/* x += a[j] * bi at words (j, j+1), j even; leaves the carry out in CC. */
template <class W, int N>
CUZK_HD void eo_mad(W *x, const W *a, W bi) {
    x[0] = ptx_mad_lo_cc(a[0], bi, x[0]);
    x[1] = ptx_madc_hi_cc(a[0], bi, x[1]);
    CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
        x[j] = ptx_madc_lo_cc(a[j], bi, x[j]);
        x[j + 1] = ptx_madc_hi_cc(a[j], bi, x[j + 1]);
    }
}
/* x = (x >> 2 words) + a[j] * bi at words (j, j+1) + CC (carry in). */
template <class W, int N>
CUZK_HD void eo_mad_shift(W *x, const W *a, W bi) {
    CUZK_UNROLL
    for (int j = 0; j < N - 2; j += 2) {
        x[j] = ptx_madc_lo_cc(a[j], bi, x[j + 2]);
        x[j + 1] = ptx_madc_hi_cc(a[j], bi, x[j + 3]);
    }
    x[N - 2] = ptx_madc_lo_cc(a[N - 2], bi, (W)0);
    x[N - 1] = ptx_madc_hi(a[N - 2], bi, (W)0);
}
/* One row with |ev| in the "even" role. */
template <class W, int N, bool FIRST>
CUZK_HD void eo_row(W *ev, W *od, const W *a, W bi, const W *p, W n0) {
    if (FIRST) {
        eo_mul<W, N>(ev, a, bi);
        eo_mul<W, N>(od, a + 1, bi);
    } else {
        ev[0] = ptx_add_cc(ev[0], od[1]);
        eo_mad_shift<W, N>(od, a + 1, bi);
        eo_mad<W, N>(ev, a, bi);
        od[N - 1] = ptx_addc(od[N - 1], (W)0);
    }
    W m = ptx_mul_lo(ev[0], n0);
    eo_mad<W, N>(od, p + 1, m); /* carry out is zero (see above) */
    eo_mad<W, N>(ev, p, m);
    od[N - 1] = ptx_addc(od[N - 1], (W)0);
}
template <class W, int N>
CUZK_HD void mont_mul_eo(W *r, const W *a, const W *b, const W *p, W n0) {
    static_assert(N % 2 == 0, "even word count");
    W e[N], o[N];
    eo_row<W, N, true>(e, o, a, b[0], p, n0);
    eo_row<W, N, false>(o, e, a, b[1], p, n0);
    CUZK_UNROLL
    for (int i = 2; i < N; i += 2) {
        eo_row<W, N, false>(e, o, a, b[i], p, n0);
        eo_row<W, N, false>(o, e, a, b[i + 1], p, n0);
    }
    /* S / W = o[1] + W * (o >> 2 words) + e */
    W t[N];
    t[0] = ptx_add_cc(e[0], o[1]);
    CUZK_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j] = ptx_addc_cc(e[j], o[j + 1]);
    t[N - 1] = ptx_addc(e[N - 1], (W)0);
    sub_p_once<W, N>(r, t, p); /* t < 2p */
}

/* r = a + b mod p (a, b < p). */
template <class W, int N>
CUZK_HD void mod_add_chain(W *r, const W *a, const W *b, const W *p) {
    W t[N];
    t[0] = ptx_add_cc(a[0], b[0]);
    CUZK_UNROLL
    for (int j = 1; j < N; j++)
        t[j] = ptx_addc_cc(a[j], b[j]);
    sub_p_once<W, N>(r, t, p); /* a + b < 2p < W^N: no carry out */
}

/* r = a - b mod p (a, b < p). */
template <class W, int N>
CUZK_HD void mod_sub_chain(W *r, const W *a, const W *b, const W *p) {
    W t[N];
    t[0] = ptx_sub_cc(a[0], b[0]);
    CUZK_UNROLL
    for (int j = 1; j < N; j++)
        t[j] = ptx_subc_cc(a[j], b[j]);
    W mask = ptx_subc((W)0, (W)0); /* all ones iff a < b */
    r[0] = ptx_add_cc(t[0], p[0] & mask);
    CUZK_UNROLL
    for (int j = 1; j < N; j++)
        r[j] = ptx_addc_cc(t[j], p[j] & mask);
}

/* ---- host routines on 64-bit limbs ---------------------------------------- */

#if !defined(__CUDA_ARCH__)
typedef unsigned __int128 cuzk_gpu_u128;

/* CIOS on 64-bit limbs, for host-side steps (final MSM combination, table
 * seeds).  Same bounds as mont_mul_chain. */
template <int N>
static inline void mont_mul_host(uint64_t *r, const uint64_t *a,
                                 const uint64_t *b, const uint64_t *p,
                                 uint64_t n0) {
    uint64_t t[N + 2] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
        for (int j = 0; j < N; j++) {
            cuzk_gpu_u128 v = (cuzk_gpu_u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)v;
            c = (uint64_t)(v >> 64);
        }
        cuzk_gpu_u128 top = (cuzk_gpu_u128)t[N] + c;
        t[N] = (uint64_t)top;
        t[N + 1] = (uint64_t)(top >> 64);
        uint64_t m = t[0] * n0;
        cuzk_gpu_u128 v = (cuzk_gpu_u128)m * p[0] + t[0];
        c = (uint64_t)(v >> 64);
        for (int j = 1; j < N; j++) {
            v = (cuzk_gpu_u128)m * p[j] + t[j] + c;
            t[j - 1] = (uint64_t)v;
            c = (uint64_t)(v >> 64);
        }
        top = (cuzk_gpu_u128)t[N] + c;
        t[N - 1] = (uint64_t)top;
        t[N] = t[N + 1] + (uint64_t)(top >> 64);
    }
    uint64_t s[N], borrow = 0;
    for (int j = 0; j < N; j++) {
        cuzk_gpu_u128 d = (cuzk_gpu_u128)t[j] - p[j] - borrow;
        s[j] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    int keep = borrow && t[N] == 0;
    for (int j = 0; j < N; j++)
        r[j] = keep ? t[j] : s[j];
}

template <int N>
static inline void mod_add_host(uint64_t *r, const uint64_t *a,
                                const uint64_t *b, const uint64_t *p) {
    uint64_t t[N], s[N], c = 0, borrow = 0;
    for (int j = 0; j < N; j++) {
        cuzk_gpu_u128 v = (cuzk_gpu_u128)a[j] + b[j] + c;
        t[j] = (uint64_t)v;
        c = (uint64_t)(v >> 64);
    }
    for (int j = 0; j < N; j++) {
        cuzk_gpu_u128 d = (cuzk_gpu_u128)t[j] - p[j] - borrow;
        s[j] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    for (int j = 0; j < N; j++)
        r[j] = borrow ? t[j] : s[j];
}

template <int N>
static inline void mod_sub_host(uint64_t *r, const uint64_t *a,
                                const uint64_t *b, const uint64_t *p) {
    uint64_t t[N], borrow = 0, c = 0;
    for (int j = 0; j < N; j++) {
        cuzk_gpu_u128 d = (cuzk_gpu_u128)a[j] - b[j] - borrow;
        t[j] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = 0 - borrow;
    for (int j = 0; j < N; j++) {
        cuzk_gpu_u128 v = (cuzk_gpu_u128)t[j] + (p[j] & mask) + c;
        r[j] = (uint64_t)v;
        c = (uint64_t)(v >> 64);
    }
}
#endif

/* ---- field configurations ---------------------------------------------- */

/*
 * CUZK_GPU_FIELD(name, PFX, limbs) defines the constant tables of one field
 * (device constant memory and a host copy) and its configuration struct
 * name##_cfg.  PFX names the consts_gen.h prefix (e.g. BLS12_381_FP).
 * Constant memory is read with compile-time offsets in the unrolled loops,
 * so the modulus words become instruction operands (uniform registers),
 * which the wide multiply-add takes as they are.
 *
 * The products take n0 from constant memory too (n0(), not the immediate
 * n0_32), on purpose: ptxas folds a known n0 into the reduction, and for
 * n0 = 0xffffffff (BLS12-381 Fr: p = 1 mod 2^32) it computes m = -t[0] and
 * then splits every m * p[j] of the row into IMAD.X + IMAD.HI.U32.X with
 * extra adds (the field bench loop, two products: 536 SASS instructions
 * instead of 424; the NTT tile kernel 17% larger than the same kernel for
 * BN254 Fr).  An opaque value keeps each m * p[j] one IMAD.WIDE.U32(.X);
 * for the other fields it costs one uniform load per kernel.  (Placing p
 * as immediates or passing it, or n0, through a volatile register move
 * changes nothing: ptxas sees through both; docs/PERFORMANCE-GPU-notes.md.)
 */
#define CUZK_GPU_FIELD(name, PFX, limbs)                                      \
    static __device__ __constant__ uint64_t name##_d_p[limbs] = PFX##_P;      \
    static __device__ __constant__ uint32_t name##_d_n0 = (uint32_t)PFX##_N0; \
    static __device__ __constant__ uint64_t name##_d_one[limbs] = PFX##_ONE;  \
    static __device__ __constant__ uint64_t name##_d_r2[limbs] = PFX##_R2;    \
    static const uint64_t name##_h_p[limbs] = PFX##_P;                        \
    static const uint64_t name##_h_one[limbs] = PFX##_ONE;                    \
    static const uint64_t name##_h_r2[limbs] = PFX##_R2;                      \
    struct name##_cfg {                                                       \
        enum { N64 = limbs, N32 = 2 * limbs };                                \
        static constexpr uint64_t n0_64 = PFX##_N0;                           \
        static constexpr uint32_t n0_32 = (uint32_t)PFX##_N0;                 \
        CUZK_HD static uint32_t n0() { CUZK_GPU_PICK(name##_d_n0, n0_32); }   \
        CUZK_HD static const uint64_t *p() {                                  \
            CUZK_GPU_PICK(name##_d_p, name##_h_p);                            \
        }                                                                     \
        CUZK_HD static const uint64_t *one() {                                \
            CUZK_GPU_PICK(name##_d_one, name##_h_one);                        \
        }                                                                     \
        CUZK_HD static const uint64_t *r2() {                                 \
            CUZK_GPU_PICK(name##_d_r2, name##_h_r2);                          \
        }                                                                     \
    };

#if defined(__CUDA_ARCH__)
#define CUZK_GPU_PICK(d, h) return d
#else
#define CUZK_GPU_PICK(d, h) return h
#endif

CUZK_GPU_FIELD(gpu_bls12_381_fp, BLS12_381_FP, 6)
CUZK_GPU_FIELD(gpu_bls12_381_fr, BLS12_381_FR, 4)
CUZK_GPU_FIELD(gpu_bn254_fp, BN254_FP, 4)
CUZK_GPU_FIELD(gpu_bn254_fr, BN254_FR, 4)

/* ---- element type and operations ------------------------------------------- */

template <class C> struct __align__(16) fp_t {
    uint32_t v[C::N32];
};

#if defined(__CUDA_ARCH__) || defined(CUZK_GPU_EMULATE_PTX)
#define CUZK_GPU_CHAIN 1
#endif

template <class C> CUZK_HD const uint32_t *fp_p32() {
    return (const uint32_t *)C::p();
}

/*
 * The operands are copied into local arrays before the product: free where
 * the product is inlined (the copies are registers), and where it is not
 * (f_mul_call, the Fp2 product), the copy loads every word up front; read
 * in place through the references, ptxas split each a[j] * b[i] into
 * IMAD + IMAD.HI.U32 + two adds instead of one IMAD.WIDE.U32(.X): all 144
 * a[j] * b[i] of the called BLS12-381 Fp product (823 instructions instead
 * of 422), and 864 of them in the inlined products of the level-1 MSM
 * accumulation kernel for BLS12-381 G1 (9599 instructions instead of
 * 7108).  The copy of |a|, whose words every row reads, is the one that
 * matters (copying only |b| changes nothing; only |a| gives the same SASS
 * as both).  n0 comes from constant memory (see CUZK_GPU_FIELD).
 */
template <class C>
CUZK_HD void f_mul(fp_t<C> &r, const fp_t<C> &a, const fp_t<C> &b) {
#ifdef CUZK_GPU_CHAIN
    uint32_t x[C::N32], y[C::N32];
    CUZK_UNROLL
    for (int j = 0; j < C::N32; j++) {
        x[j] = a.v[j];
        y[j] = b.v[j];
    }
    mont_mul_eo<uint32_t, C::N32>(r.v, x, y, fp_p32<C>(), C::n0());
#else
    uint64_t x[C::N64], y[C::N64];
    memcpy(x, a.v, sizeof x); /* memcpy, not casts: strict aliasing */
    memcpy(y, b.v, sizeof y);
    mont_mul_host<C::N64>(x, x, y, C::p(), C::n0_64);
    memcpy(r.v, x, sizeof x);
#endif
}
template <class C> CUZK_HD void f_sqr(fp_t<C> &r, const fp_t<C> &a) {
    f_mul(r, a, a);
}
template <class C>
CUZK_HD void f_add(fp_t<C> &r, const fp_t<C> &a, const fp_t<C> &b) {
#ifdef CUZK_GPU_CHAIN
    mod_add_chain<uint32_t, C::N32>(r.v, a.v, b.v, fp_p32<C>());
#else
    uint64_t x[C::N64], y[C::N64];
    memcpy(x, a.v, sizeof x);
    memcpy(y, b.v, sizeof y);
    mod_add_host<C::N64>(x, x, y, C::p());
    memcpy(r.v, x, sizeof x);
#endif
}
template <class C>
CUZK_HD void f_sub(fp_t<C> &r, const fp_t<C> &a, const fp_t<C> &b) {
#ifdef CUZK_GPU_CHAIN
    mod_sub_chain<uint32_t, C::N32>(r.v, a.v, b.v, fp_p32<C>());
#else
    uint64_t x[C::N64], y[C::N64];
    memcpy(x, a.v, sizeof x);
    memcpy(y, b.v, sizeof y);
    mod_sub_host<C::N64>(x, x, y, C::p());
    memcpy(r.v, x, sizeof x);
#endif
}
template <class C> CUZK_HD void f_dbl(fp_t<C> &r, const fp_t<C> &a) {
    f_add(r, a, a);
}
template <class C> CUZK_HD void f_set_zero(fp_t<C> &r) {
    CUZK_UNROLL
    for (int j = 0; j < C::N32; j++)
        r.v[j] = 0;
}
template <class C> CUZK_HD void f_neg(fp_t<C> &r, const fp_t<C> &a) {
    fp_t<C> z;
    f_set_zero(z);
    f_sub(r, z, a);
}
/* Copies a constant table (64-bit limbs) into an element: word loads from
 * constant memory on the device, memcpy on the host (no type punning). */
template <class C> CUZK_HD void f_load_const(fp_t<C> &r, const uint64_t *c) {
#if defined(__CUDA_ARCH__)
    const uint32_t *w = (const uint32_t *)c;
    CUZK_UNROLL
    for (int j = 0; j < C::N32; j++)
        r.v[j] = w[j];
#else
    memcpy(r.v, c, sizeof r.v);
#endif
}
template <class C> CUZK_HD void f_set_one(fp_t<C> &r) {
    f_load_const(r, C::one());
}
template <class C> CUZK_HD bool f_is_zero(const fp_t<C> &a) {
    uint32_t acc = 0;
    CUZK_UNROLL
    for (int j = 0; j < C::N32; j++)
        acc |= a.v[j];
    return acc == 0;
}
template <class C> CUZK_HD bool f_eq(const fp_t<C> &a, const fp_t<C> &b) {
    uint32_t acc = 0;
    CUZK_UNROLL
    for (int j = 0; j < C::N32; j++)
        acc |= a.v[j] ^ b.v[j];
    return acc == 0;
}
/* The same product as a called (not inlined) function, for code off the
 * hot path: each inlined 12-word product is ~600 instructions, and
 * inlining every product of every point formula made nvcc take many minutes
 * per file.  Costs a few percent where used (operands pass through local
 * memory). */
template <class C>
__host__ __device__ __noinline__ void f_mul_call(fp_t<C> &r, const fp_t<C> &a,
                                                 const fp_t<C> &b) {
    f_mul(r, a, b);
}

/* Montgomery form -> plain integer words (a * 1 / R). */
template <class C> CUZK_HD void f_from_mont(fp_t<C> &r, const fp_t<C> &a) {
    fp_t<C> one;
    f_set_zero(one);
    one.v[0] = 1;
    f_mul(r, a, one);
}
/* plain integer (< p) -> Montgomery form (a * R^2 / R). */
template <class C> CUZK_HD void f_to_mont(fp_t<C> &r, const fp_t<C> &a) {
    fp_t<C> r2;
    f_load_const(r2, C::r2());
    f_mul(r, a, r2);
}
/* a^e for a plain exponent of |e_words| 32-bit words (variable time). */
template <class C>
CUZK_HD void f_pow(fp_t<C> &r, const fp_t<C> &a, const uint32_t *e,
                   int e_words) {
    fp_t<C> acc, base = a;
    f_set_one(acc);
    for (int i = 0; i < e_words; i++)
        for (int bit = 0; bit < 32; bit++) {
            if ((e[i] >> bit) & 1)
                f_mul(acc, acc, base);
            f_sqr(base, base);
        }
    r = acc;
}
/* a^-1 by Fermat (a^(p-2)); 0 -> 0.  Host or rare device use only. */
template <class C> CUZK_HD void f_inv(fp_t<C> &r, const fp_t<C> &a) {
    uint32_t e[C::N32];
    fp_t<C> pw;
    f_load_const(pw, C::p());
    const uint32_t *p = pw.v;
    uint32_t borrow = 2;
    for (int j = 0; j < C::N32; j++) {
        e[j] = p[j] - borrow;
        borrow = p[j] < borrow;
    }
    f_pow(r, a, e, C::N32);
}

typedef fp_t<gpu_bls12_381_fp_cfg> g_bls12_381_fp;
typedef fp_t<gpu_bls12_381_fr_cfg> g_bls12_381_fr;
typedef fp_t<gpu_bn254_fp_cfg> g_bn254_fp;
typedef fp_t<gpu_bn254_fr_cfg> g_bn254_fr;

#endif
