/*
 * Instantiates the NTT of ntt_template.h for the scalar fields of BLS12-381 and
 * BN254 (API in ntt.h).
 *
 * Tuning constants (bench_cpu_kernels and a 2^18 loop on the 2-core VM):
 *   NTT_BLOCK       elements per cache block: 2^12 x 32 B = 128 KiB, which
 *                   stays in L2 together with its twiddles (2^10..2^16
 *                   measured within noise of each other at 2^18)
 *   NTT_MIN_BLOCK   never split blocks smaller than this to feed threads
 *   NTT_PASS_GRAIN  butterflies per chunk in a whole-array pass
 *   NTT_PERM_GRAIN  indices per chunk of the bit-reversal pass
 */
#include "ntt/ntt.h"

#include <stdint.h>

#include "field/consts_gen.h"
#include "field/field_impl.h"
#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
#include "field/mont_x86_gen.h"
#define NTT_HAVE_ADX 1
#else
#define NTT_HAVE_ADX 0
#endif

#define NTT_BLOCK ((size_t)1 << 12)
#define NTT_MIN_BLOCK ((size_t)1 << 6)
#define NTT_PASS_GRAIN ((size_t)1 << 10)
#define NTT_PERM_GRAIN ((size_t)1 << 12)

static size_t ntt_round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/*
 * Butterfly arithmetic, inlined.  A butterfly is one add, one sub and one
 * product; through the out-of-line F_add/F_sub/F_mul calls it took 55 ns
 * (2^16 BN254 forward: 29 ms on one Xeon core), most of it call and
 * copy overhead.  These are the same routines field.c uses (field_impl.h's
 * limb code, and the generated mulx/adx product when field.c chose it, as
 * the domain records in use_asm), so results are bit-identical.
 */
#if NTT_HAVE_ADX
#include <x86intrin.h>
/* 4-limb modular add/sub with the carry flag (adc/sbb) and branch-free
 * selects, the way the limb loops of field_impl.h cannot be compiled. */
static inline void ntt_add4(uint64_t r[4], const uint64_t a[4],
                            const uint64_t b[4], const uint64_t p[4]) {
    unsigned long long s[4], d[4];
    unsigned char c = 0, w = 0;
    for (int i = 0; i < 4; i++)
        c = _addcarry_u64(c, a[i], b[i], &s[i]);
    for (int i = 0; i < 4; i++)
        w = _subborrow_u64(w, s[i], p[i], &d[i]);
    /* a + b < 2p < 2^256: no carry out; keep s if s - p borrowed */
    uint64_t keep = 0 - (uint64_t)w;
    for (int i = 0; i < 4; i++)
        r[i] = (s[i] & keep) | (d[i] & ~keep);
}
static inline void ntt_sub4(uint64_t r[4], const uint64_t a[4],
                            const uint64_t b[4], const uint64_t p[4]) {
    unsigned long long d[4], o;
    unsigned char w = 0, c = 0;
    for (int i = 0; i < 4; i++)
        w = _subborrow_u64(w, a[i], b[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)w; /* add p back if a < b */
    for (int i = 0; i < 4; i++) {
        c = _addcarry_u64(c, d[i], p[i] & mask, &o);
        r[i] = o;
    }
}
#else
static inline void ntt_add4(uint64_t r[4], const uint64_t a[4],
                            const uint64_t b[4], const uint64_t p[4]) {
    mod_add_n(r, a, b, p, 4);
}
static inline void ntt_sub4(uint64_t r[4], const uint64_t a[4],
                            const uint64_t b[4], const uint64_t p[4]) {
    mod_sub_n(r, a, b, p, 4);
}
#endif

#define NTT_ARITH(P, C)                                                       \
    static const uint64_t P##_ntt_p[4] = C##_P;                               \
    static inline void P##_ntt_add(P##_fr *r, const P##_fr *a,                \
                                   const P##_fr *b) {                         \
        ntt_add4(r->l, a->l, b->l, P##_ntt_p);                                \
    }                                                                         \
    static inline void P##_ntt_sub(P##_fr *r, const P##_fr *a,                \
                                   const P##_fr *b) {                         \
        ntt_sub4(r->l, a->l, b->l, P##_ntt_p);                                \
    }                                                                         \
    static inline void P##_ntt_mul(P##_fr *r, const P##_fr *a,                \
                                   const P##_fr *b, int use_asm) {            \
        if (NTT_HAVE_ADX && use_asm) {                                        \
            uint64_t t[4];                                                    \
            NTT_MUL_ADX(t, a->l, b->l, P##_ntt_p, C##_N0);                    \
            limbs_reduce_once(r->l, t, P##_ntt_p, 4);                         \
        } else {                                                              \
            mont_mul_n(r->l, a->l, b->l, P##_ntt_p, C##_N0, 4);               \
        }                                                                     \
    }
#if NTT_HAVE_ADX
#define NTT_MUL_ADX cuzk_mont_mul_4_adx
#else
#define NTT_MUL_ADX(t, a, b, p, n0) ((void)0)
#endif
NTT_ARITH(bls12_381, BLS12_381_FR)
NTT_ARITH(bn254, BN254_FR)

#define NTT_P bls12_381
#define NTT_FR bls12_381_fr
#define NTT_ADICITY BLS12_381_FR_TWO_ADICITY
#include "ntt/ntt_template.h"
#undef NTT_P
#undef NTT_FR
#undef NTT_ADICITY

#define NTT_P bn254
#define NTT_FR bn254_fr
#define NTT_ADICITY BN254_FR_TWO_ADICITY
#include "ntt/ntt_template.h"
#undef NTT_P
#undef NTT_FR
#undef NTT_ADICITY
