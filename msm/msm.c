/*
 * Instantiates the Pippenger MSM of msm_gen.h for the four groups (API in
 * msm.h) and holds the helpers they share: 4-limb integer steps on plain
 * scalars, window extraction, and the window-width cost model.
 *
 * MSM_REDUCE = 1.4: a bucket-sum addition is XYZZ + XYZZ (12M + 2S), a
 * bucket addition XYZZ + affine (8M + 2S), in curve_gen.h's counts.
 */
#include "msm/msm.h"

#include <stdint.h>

static size_t msm_round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* Pending affine additions per shared inversion, and the batch is used
 * only for ranges of at least MSM_BATCH_MIN_FILL points per bucket. */
#define MSM_BATCH 256
#define MSM_BATCH_MIN_FILL 1

/* Bucket state bits and batch entry flags (see msm_gen.h, step 3). */
enum { MSM_OCC = 1, MSM_XOCC = 2, MSM_LOCK = 4 };
enum { MSM_NEG = 1, MSM_DBL = 2, MSM_INF = 4 };

/* a < b on 4-limb plain integers (variable time: scalars are public). */
static inline int msm_limbs_lt(const uint64_t a[4], const uint64_t b[4]) {
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* a -= b, a >= b. */
static inline void msm_limbs_sub(uint64_t a[4], const uint64_t b[4]) {
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        a[i] = (uint64_t)d;
        borrow = (d >> 64) & 1;
    }
}

/* r = a + b; the caller guarantees no carry out of 256 bits. */
static inline void msm_limbs_add(uint64_t r[4], const uint64_t a[4],
                                 const uint64_t b[4]) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 s = (unsigned __int128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = s >> 64;
    }
}

/* The c bits of k starting at bit |pos| (bits past 255 read as 0). */
static inline unsigned msm_window(const uint64_t k[4], unsigned pos,
                                  unsigned c) {
    unsigned limb = pos / 64, sh = pos % 64;
    if (limb >= 4)
        return 0;
    uint64_t v = k[limb] >> sh;
    if (sh + c > 64 && limb + 1 < 4)
        v |= k[limb + 1] << (64 - sh);
    return (unsigned)(v & ((1ULL << c) - 1));
}

unsigned cuzk_msm_window_bits(size_t m, unsigned bits, double reduce_ratio) {
    unsigned best = 2;
    double best_cost = 0;
    for (unsigned c = 2; c <= CUZK_MSM_MAX_WINDOW; c++) {
        unsigned nw = (bits + 1 + c - 1) / c;
        double cost = (double)nw * ((double)m + reduce_ratio * (double)(1u << c));
        if (c == 2 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

#define MSM_G bls12_381_g1
#define MSM_F bls12_381_fp
#define MSM_S bls12_381_fr
#define MSM_BITS 255
#define MSM_REDUCE 1.4
#include "msm/msm_gen.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE

#define MSM_G bls12_381_g2
#define MSM_F bls12_381_fp2
#define MSM_S bls12_381_fr
#define MSM_BITS 255
#define MSM_REDUCE 1.4
#include "msm/msm_gen.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE

#define MSM_G bn254_g1
#define MSM_F bn254_fp
#define MSM_S bn254_fr
#define MSM_BITS 254
#define MSM_REDUCE 1.4
#include "msm/msm_gen.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE

#define MSM_G bn254_g2
#define MSM_F bn254_fp2
#define MSM_S bn254_fr
#define MSM_BITS 254
#define MSM_REDUCE 1.4
#include "msm/msm_gen.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE
