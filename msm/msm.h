/*
 * Multi-scalar multiplication sum_i [k_i] P_i on the CPU (Pippenger's bucket
 * method with signed digits) for G1 and G2 of BLS12-381 and BN254.  It is
 * the reference the GPU MSM is tested against and the fallback when no GPU
 * is present.  Bases are affine points as stored in a zkey (infinity =
 * all-zero x, y); scalars are Fr elements.
 *
 * For each group G in {bls12_381_g1, bls12_381_g2, bn254_g1, bn254_g2} with
 * scalar field S (bls12_381_fr or bn254_fr):
 *
 *   cuzk_status G_msm(G *r, const G_affine *bases, const S *scalars,
 *                     size_t n, int scalars_are_mont, cuzk_pool *pool)
 *     Out: r = sum_{i<n} [k_i] bases[i] (Jacobian; infinity when n = 0).
 *     In:  bases[n], valid points or infinity; scalars[n], either Montgomery
 *          form (scalars_are_mont != 0: field elements as the rest of cuzk
 *          keeps them) or plain little-endian integers (scalars_are_mont =
 *          0: the form of .wtns witnesses and of converted h values).  Plain
 *          values >= r are reduced mod r.  pool may be NULL (serial).
 *     Scalars 0 and infinity bases are skipped, scalars 1 are summed
 *     directly (no windows: pairwise, with additions that share one
 *     inversion a level), the rest go through Pippenger, so boolean-heavy
 *     witnesses cost little.
 *     Returns CUZK_OK; CUZK_ENOMEM if scratch memory (about 40 bytes per
 *     non-trivial scalar plus the buckets) cannot be allocated, or
 *     CUZK_ERANGE if n >= 2^32; on failure r is set to infinity.
 *     It allocates its scratch per call, as tests and benchmarks want:
 *     nothing in the library calls it or G_msm_window (the provers use
 *     G_msm_with_scratch with the caller's buffer).
 *     Variable time: time and memory accesses depend on the scalars (their
 *     zeros, ones and digits), as in every Groth16 prover in use (snarkjs,
 *     rapidsnark, bellperson); do not use it where that must not leak.
 *
 *   cuzk_status G_msm_window(G *r, ..., same args ..., unsigned c,
 *                            cuzk_pool *pool)
 *     Same with a forced window width c (2..CUZK_MSM_MAX_WINDOW; others
 *     give CUZK_EINVAL); c = 0 means automatic.  For benchmarks and tests.
 *     Large c needs 2^(c-1) buckets per thread (about 300 bytes each for
 *     BLS12-381 G1), so c near the maximum costs hundreds of MB.
 *
 *   unsigned G_msm_window_bits(size_t m)
 *     The window width G_msm uses when m scalars are neither 0 nor 1.
 *
 *   size_t G_msm_scratch_bytes(size_t n, unsigned c, unsigned threads)
 *     Working memory an MSM of up to n points with window c (0: automatic)
 *     needs on a pool of |threads| threads, whatever the scalars: about
 *     36 bytes a point plus, per thread, 2^(c-1) buckets (about 1.5 MiB
 *     with the automatic window) and a buffer for the scalars 1 (about
 *     0.15 MiB in G1, 0.3 MiB in G2 of BLS12-381).  0 when n is 0 or c
 *     is invalid.
 *
 *   cuzk_status G_msm_with_scratch(G *r, ..., same args ..., unsigned c,
 *                                  void *scratch, size_t scratch_bytes,
 *                                  cuzk_pool *pool)
 *     G_msm_window computing in the caller's |scratch| (any alignment; at
 *     least G_msm_scratch_bytes(n, c, cuzk_pool_threads(pool)) bytes; a
 *     NULL or shorter buffer is CUZK_EINVAL, never an allocation): it
 *     allocates nothing, so a prover that sizes its scratch once per key
 *     makes no allocation per proof (blst's Pippenger takes its scratch
 *     the same way).  n = 0 needs no buffer.
 *     The caller's buffer must not be shared by two calls at once.
 *
 * Thread safety: pure functions of their inputs; any number may run at
 * once (each call allocates its own scratch, freed before it returns, or
 * uses the one it was given).
 * Work is split over the pool's threads by windows (and point ranges when
 * windows are fewer than threads), each thread with its own buckets.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>

#include "curve/curve.h"
#include "field/field.h"
#include "util/status.h"
#include "util/threadpool.h"

#define CUZK_MSM_MAX_WINDOW 20

/*
 * Window width c minimising the modelled cost ceil((bits + 1) / c) *
 * (m + reduce_ratio * 2^c): one bucket addition per point per window, plus
 * about 2^c bucket-sum additions per window weighted by their cost relative
 * to a bucket addition.  bits is the scalar size (255 for BLS12-381, 254
 * for BN254).  c is searched in [2, max_c] (max_c is capped to
 * CUZK_MSM_MAX_WINDOW): the model ignores caches, and buckets that outgrow
 * L2 cost more than fewer windows save (see msm.c).  Exposed so the GPU
 * code can log and compare its choice.
 */
unsigned cuzk_msm_window_bits(size_t m, unsigned bits, double reduce_ratio,
                              unsigned max_c);

#define CUZK_MSM_DECLARE(G, S)                                                \
    cuzk_status G##_msm(G *r, const G##_affine *bases, const S *scalars,      \
                        size_t n, int scalars_are_mont, cuzk_pool *pool);     \
    cuzk_status G##_msm_window(G *r, const G##_affine *bases,                 \
                               const S *scalars, size_t n,                    \
                               int scalars_are_mont, unsigned c,              \
                               cuzk_pool *pool);                              \
    unsigned G##_msm_window_bits(size_t m);                                   \
    size_t G##_msm_scratch_bytes(size_t n, unsigned c, unsigned threads);     \
    cuzk_status G##_msm_with_scratch(G *r, const G##_affine *bases,           \
                                     const S *scalars, size_t n,              \
                                     int scalars_are_mont, unsigned c,        \
                                     void *scratch, size_t scratch_bytes,     \
                                     cuzk_pool *pool);

CUZK_MSM_DECLARE(bls12_381_g1, bls12_381_fr)
CUZK_MSM_DECLARE(bls12_381_g2, bls12_381_fr)
CUZK_MSM_DECLARE(bn254_g1, bn254_fr)
CUZK_MSM_DECLARE(bn254_g2, bn254_fr)

#endif
