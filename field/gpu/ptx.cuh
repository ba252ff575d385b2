/*
 * Carry-chain primitives for the device field arithmetic (mont.cuh).
 *
 * Each wrapper is one PTX instruction with an explicit carry flag (.cc):
 * add/sub with carry in/out and the multiply-add forms mad.lo/mad.hi with
 * carry.  They exist for 32-bit and 64-bit words so the Montgomery product
 * can be written once and instantiated for either limb size (the choice is
 * measured by bench_gpu, see docs/PERFORMANCE-GPU-notes.md).
 *
 * The carry flag is invisible to the compiler, so every wrapper is
 * `asm volatile`: volatile asm statements keep their relative order, and
 * nothing the compiler emits between them touches CC.CF.  A chain must be a
 * straight sequence of these calls with no other .cc user in between.
 *
 * On the host (no __CUDA_ARCH__) the same names exist with the flag kept in
 * a thread-local variable.  That emulation is only for testing the chain
 * algorithms on a machine without a GPU (CUZK_GPU_EMULATE_PTX); the host
 * field code normally uses plain 128-bit arithmetic instead (mont.cuh).
 *
 * Must not: be used for anything but carry chains; carry no state across
 * chains (every chain starts with a non-carry-in form).
 */
#ifndef CUZK_GPU_PTX_CUH
#define CUZK_GPU_PTX_CUH

#include <stdint.h>

#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_DI __device__ __forceinline__

/* Full unrolling in device code; nothing in the host pass (where the host
 * compiler would warn about an unknown pragma). */
#if defined(__CUDA_ARCH__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif

#if defined(__CUDA_ARCH__)

#define CUZK_PTX3(name, op, ty, c)                                            \
    CUZK_DI ty name(ty a, ty b) {                                             \
        ty r;                                                                 \
        asm volatile(op " %0, %1, %2;" : "=" c(r) : c(a), c(b));              \
        return r;                                                             \
    }
#define CUZK_PTX4(name, op, ty, c)                                            \
    CUZK_DI ty name(ty a, ty b, ty d) {                                       \
        ty r;                                                                 \
        asm volatile(op " %0, %1, %2, %3;" : "=" c(r) : c(a), c(b), c(d));    \
        return r;                                                             \
    }
#define CUZK_PTX_SET(ty, sfx, c)                                              \
    CUZK_PTX3(ptx_add_cc, "add.cc." sfx, ty, c)                               \
    CUZK_PTX3(ptx_addc_cc, "addc.cc." sfx, ty, c)                             \
    CUZK_PTX3(ptx_addc, "addc." sfx, ty, c)                                   \
    CUZK_PTX3(ptx_sub_cc, "sub.cc." sfx, ty, c)                               \
    CUZK_PTX3(ptx_subc_cc, "subc.cc." sfx, ty, c)                             \
    CUZK_PTX3(ptx_subc, "subc." sfx, ty, c)                                   \
    CUZK_PTX3(ptx_mul_lo, "mul.lo." sfx, ty, c)                               \
    CUZK_PTX3(ptx_mul_hi, "mul.hi." sfx, ty, c)                               \
    CUZK_PTX4(ptx_mad_lo_cc, "mad.lo.cc." sfx, ty, c)                         \
    CUZK_PTX4(ptx_madc_lo_cc, "madc.lo.cc." sfx, ty, c)                       \
    CUZK_PTX4(ptx_madc_hi_cc, "madc.hi.cc." sfx, ty, c)                       \
    CUZK_PTX4(ptx_madc_hi, "madc.hi." sfx, ty, c)

CUZK_PTX_SET(uint32_t, "u32", "r")
CUZK_PTX_SET(uint64_t, "u64", "l")

#undef CUZK_PTX_SET
#undef CUZK_PTX3
#undef CUZK_PTX4

#else /* host emulation */

static thread_local unsigned cuzk_ptx_cf; /* the emulated CC.CF */

template <class W> struct cuzk_wide;
template <> struct cuzk_wide<uint32_t> { typedef uint64_t t; };
template <> struct cuzk_wide<uint64_t> { typedef unsigned __int128 t; };

#define CUZK_PTX_BITS(W) (8 * (int)sizeof(W))
template <class W> static inline W ptx_add_cc(W a, W b) {
    typename cuzk_wide<W>::t s = (typename cuzk_wide<W>::t)a + b;
    cuzk_ptx_cf = (unsigned)(s >> CUZK_PTX_BITS(W));
    return (W)s;
}
template <class W> static inline W ptx_addc_cc(W a, W b) {
    typename cuzk_wide<W>::t s = (typename cuzk_wide<W>::t)a + b + cuzk_ptx_cf;
    cuzk_ptx_cf = (unsigned)(s >> CUZK_PTX_BITS(W));
    return (W)s;
}
template <class W> static inline W ptx_addc(W a, W b) {
    return (W)(a + b + cuzk_ptx_cf);
}
template <class W> static inline W ptx_sub_cc(W a, W b) {
    cuzk_ptx_cf = a < b;
    return (W)(a - b);
}
template <class W> static inline W ptx_subc_cc(W a, W b) {
    typename cuzk_wide<W>::t d =
        (typename cuzk_wide<W>::t)a - b - cuzk_ptx_cf;
    cuzk_ptx_cf = (unsigned)(d >> CUZK_PTX_BITS(W)) & 1;
    return (W)d;
}
template <class W> static inline W ptx_subc(W a, W b) {
    return (W)(a - b - cuzk_ptx_cf);
}
template <class W> static inline W ptx_mul_lo(W a, W b) { return (W)(a * b); }
template <class W> static inline W ptx_mul_hi(W a, W b) {
    return (W)(((typename cuzk_wide<W>::t)a * b) >> CUZK_PTX_BITS(W));
}
template <class W> static inline W ptx_mad_lo_cc(W a, W b, W c) {
    return ptx_add_cc<W>((W)(a * b), c);
}
template <class W> static inline W ptx_madc_lo_cc(W a, W b, W c) {
    return ptx_addc_cc<W>((W)(a * b), c);
}
template <class W> static inline W ptx_madc_hi_cc(W a, W b, W c) {
    return ptx_addc_cc<W>(ptx_mul_hi<W>(a, b), c);
}
template <class W> static inline W ptx_madc_hi(W a, W b, W c) {
    return ptx_addc<W>(ptx_mul_hi<W>(a, b), c);
}
#undef CUZK_PTX_BITS

#endif /* __CUDA_ARCH__ */

#endif
