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

#include "field/field_inline.h"

#define NTT_BLOCK ((size_t)1 << 12)
#define NTT_MIN_BLOCK ((size_t)1 << 6)
#define NTT_PASS_GRAIN ((size_t)1 << 10)
#define NTT_PERM_GRAIN ((size_t)1 << 12)

/* The network a level's butterflies belong to (ntt_template.h), and the
 * index bits of the bit-reversed scaling's first table (2^8 entries, 8 KiB
 * on a worker's stack). */
enum { NTT_DIF_FWD = 0, NTT_DIF_INV = 1, NTT_DIT_FWD = 2 };
#define NTT_SCALE_LOW 8

static size_t ntt_round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/*
 * Butterfly arithmetic, inlined.  A butterfly is one add, one sub and one
 * product; through the out-of-line F_add/F_sub/F_mul calls it took 55 ns
 * (2^16 BN254 forward: 29 ms on one Xeon core), most of it call and
 * copy overhead.  field_inline.h holds the same routines field.c uses, so
 * results are bit-identical; the product takes the domain's copy of
 * cuzk_field_uses_asm() (use_asm) instead of asking per call.
 */
#define NTT_ARITH(P, C)                                                       \
    static inline void P##_ntt_add(P##_fr *r, const P##_fr *a,                \
                                   const P##_fr *b) {                         \
        P##_fr_add_inl(r, a, b);                                              \
    }                                                                         \
    static inline void P##_ntt_sub(P##_fr *r, const P##_fr *a,                \
                                   const P##_fr *b) {                         \
        P##_fr_sub_inl(r, a, b);                                              \
    }                                                                         \
    static inline void P##_ntt_mul(P##_fr *r, const P##_fr *a,                \
                                   const P##_fr *b, int use_asm) {            \
        if (CUZK_FI_ADX && use_asm) {                                         \
            uint64_t t[4];                                                    \
            CUZK_FI_MUL_ADX(4, t, a->l, b->l, P##_fr_inl_p, C##_N0);          \
            limbs_reduce_once(r->l, t, P##_fr_inl_p, 4);                      \
        } else {                                                              \
            P##_fr_mul(r, a, b); /* portable: out of line */                  \
        }                                                                     \
    }
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
