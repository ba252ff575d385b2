/*
 * Instantiates the Pippenger MSM of msm_template.h for the four groups (API in
 * msm.h) and holds the helpers they share: 4-limb integer steps on plain
 * scalars, window extraction, and the window-width cost model.
 *
 * MSM_REDUCE = 1.0 (the cost of summing a bucket, relative to adding one
 * point into a bucket, in the window model of msm.h) was fitted to window
 * sweeps (bench_cpu_kernels window), BLS12-381 G1, one thread, random
 * scalars, batch-affine buckets; ms per MSM, best in brackets:
 *
 *   n      Xeon (H200 host)                 2-core EPYC VM (loaded)
 *   2^8    c=6: 7.44   [c=7: 7.27]          c=6: 8.59   [c=5: 8.25]
 *   2^10   c=8: 21.2   [c=9: 21.1]          [c=8: 25.2]
 *   2^12   [c=10: 60.0]  (c=9: 69.4)        c=10: 82.8  [c=9: 80.1]
 *   2^14   [c=11: 201]   (c=12: 207)        [c=11..13: 273]
 *   2^16   [c=13: 665]   (c=12: 695)        c=13: 893   [c=12: 847]
 *
 * The model with 1.0 picks 6, 8, 10, 11, 13 here: within 2% of the best on
 * the Xeon and within 5% on the VM.  The raw formula-count ratio (1.4:
 * 12M + 2S against 8M + 2S) picked c = 9 at 2^12, 15% slower on the Xeon.
 *
 * Beyond 2^16 the model alone wants c = 16 (2^18..2^21), but at 2^18:
 *   Xeon: c=13: 3.00 s, 14: 3.55, 15: 3.53, 16: 3.84
 *   VM:   c=13: 4.10 s, 14: 4.39, 15: 4.29, 16: 4.72, 17: 5.01
 * -- with 2^15 buckets (3 MiB of affine points) bucket accesses miss L2.
 * So the automatic c keeps the affine buckets within MSM_BUCKET_BYTES
 * (512 KiB): c <= 13 for BLS12-381 G1 (96-byte points), 14 for BN254 G1,
 * 12 for BLS12-381 G2, 13 for BN254 G2.
 */
#include "msm/msm.h"

#include <stdint.h>

#include "field/field_inline.h"

static size_t msm_round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* Pending affine additions per shared inversion, and the batch is used
 * only for ranges of at least MSM_BATCH_MIN_FILL points per bucket.
 * MSM_BUCKET_BYTES caps the affine bucket array of the automatic window
 * (2^(c-1) points), see the table above. */
#define MSM_BUCKET_BYTES ((size_t)512 * 1024)
#define MSM_BATCH 256
#define MSM_BATCH_MIN_FILL 1
/* Points ahead of the bucket loop whose base is prefetched (the bases of
 * a sparse witness are not read in a stride the hardware follows). */
#define MSM_PREFETCH 16

/* Bucket state bits and batch entry flags (see msm_template.h, step 3). */
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

unsigned cuzk_msm_window_bits(size_t m, unsigned bits, double reduce_ratio,
                              unsigned max_c) {
    unsigned best = 2;
    double best_cost = 0;
    if (max_c > CUZK_MSM_MAX_WINDOW)
        max_c = CUZK_MSM_MAX_WINDOW;
    for (unsigned c = 2; c <= max_c; c++) {
        unsigned nw = (bits + 1 + c - 1) / c;
        double cost =
            (double)nw * ((double)m + reduce_ratio * (double)(1u << c));
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
#define MSM_REDUCE 1.0
#include "msm/msm_template.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE

#define MSM_G bls12_381_g2
#define MSM_F bls12_381_fp2
#define MSM_S bls12_381_fr
#define MSM_BITS 255
#define MSM_REDUCE 1.0
#include "msm/msm_template.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE

#define MSM_G bn254_g1
#define MSM_F bn254_fp
#define MSM_S bn254_fr
#define MSM_BITS 254
#define MSM_REDUCE 1.0
#include "msm/msm_template.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE

#define MSM_G bn254_g2
#define MSM_F bn254_fp2
#define MSM_S bn254_fr
#define MSM_BITS 254
#define MSM_REDUCE 1.0
#include "msm/msm_template.h"
#undef MSM_G
#undef MSM_F
#undef MSM_S
#undef MSM_BITS
#undef MSM_REDUCE
