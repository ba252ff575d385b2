/*
 * Prime fields of cuzk: Fp and Fr of BLS12-381 and of BN254.
 *
 * Types (all in Montgomery form, little-endian 64-bit limbs; the byte image of
 * an element on a little-endian machine is exactly the ".zkey" encoding):
 *   bls12_381_fp  6 limbs, R = 2^384     bls12_381_fr  4 limbs, R = 2^256
 *   bn254_fp      4 limbs, R = 2^256     bn254_fr      4 limbs, R = 2^256
 *
 * For every field F the same functions exist (declared by CUZK_FIELD_DECLARE
 * below, implemented once in field_template.h):
 *   F_add, F_sub, F_neg, F_dbl, F_mul, F_sqr       r may alias a and b
 *   F_set_zero, F_set_one, F_set_u64, F_is_zero, F_is_one, F_eq
 *   F_inv        constant time (Fermat); inverse of 0 is 0
 *   F_inv_var    variable time (binary extended Euclid); inverse of 0 is 0
 *   F_batch_inv  Montgomery's trick, zeros map to zero, variable time
 *   F_pow        a^e for a little-endian exponent of |e_limbs| limbs
 *   F_sqrt       returns 1 and a root if |a| is a square, else 0 (variable time)
 *   F_legendre   1 (non-zero square), -1 (non-square), 0 (zero)
 *   F_from_mont / F_to_mont    Montgomery <-> plain integer limbs
 *   F_from_limbs / F_from_bytes_le / F_from_bytes_be / F_from_dec
 *                decoders: reject values >= p (CUZK_ERANGE) and malformed
 *                text (CUZK_EFORMAT) with a message; |r| is unchanged then.
 *   F_to_bytes_le / F_to_bytes_be  canonical F_BYTES bytes
 *   F_to_dec     decimal string, returns its length (buffer >= F_DEC_BYTES)
 * Thread safety: pure functions, no global state.
 */
#ifndef CUZK_FIELD_H
#define CUZK_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define CUZK_FIELD_DECLARE(F, N)                                              \
    typedef struct F {                                                        \
        uint64_t l[N];                                                        \
    } F;                                                                      \
    enum { F##_LIMBS = N, F##_BYTES = 8 * N, F##_DEC_BYTES = 20 * N + 1 };    \
    extern const uint64_t F##_modulus[N];                                     \
    void F##_add(F *r, const F *a, const F *b);                               \
    void F##_sub(F *r, const F *a, const F *b);                               \
    void F##_neg(F *r, const F *a);                                           \
    void F##_dbl(F *r, const F *a);                                           \
    void F##_mul(F *r, const F *a, const F *b);                               \
    void F##_sqr(F *r, const F *a);                                           \
    void F##_set_zero(F *r);                                                  \
    void F##_set_one(F *r);                                                   \
    void F##_set_u64(F *r, uint64_t v);                                       \
    int F##_is_zero(const F *a);                                              \
    int F##_is_one(const F *a);                                               \
    int F##_eq(const F *a, const F *b);                                       \
    void F##_inv(F *r, const F *a);                                           \
    void F##_inv_var(F *r, const F *a);                                       \
    void F##_batch_inv(F *out, const F *in, size_t n);                        \
    void F##_pow(F *r, const F *a, const uint64_t *e, size_t e_limbs);       \
    int F##_sqrt(F *r, const F *a);                                           \
    int F##_legendre(const F *a);                                             \
    void F##_from_mont(uint64_t out[N], const F *a);                          \
    void F##_to_mont(F *r, const uint64_t in[N]);                             \
    cuzk_status F##_from_limbs(F *r, const uint64_t in[N], cuzk_error *err);  \
    cuzk_status F##_from_bytes_le(F *r, const uint8_t in[8 * N],              \
                                  cuzk_error *err);                           \
    cuzk_status F##_from_bytes_be(F *r, const uint8_t in[8 * N],              \
                                  cuzk_error *err);                           \
    void F##_to_bytes_le(uint8_t out[8 * N], const F *a);                     \
    void F##_to_bytes_be(uint8_t out[8 * N], const F *a);                     \
    cuzk_status F##_from_dec(F *r, const char *s, cuzk_error *err);           \
    size_t F##_to_dec(char *out, size_t cap, const F *a);

CUZK_FIELD_DECLARE(bls12_381_fp, 6)
CUZK_FIELD_DECLARE(bls12_381_fr, 4)
CUZK_FIELD_DECLARE(bn254_fp, 4)
CUZK_FIELD_DECLARE(bn254_fr, 4)

/* Root of unity of order 2^log_n in Fr, following ffjavascript's choice
 * (nqr^((r-1)/2^S) with nqr the smallest non-residue, 5 on both curves), so
 * domains enumerate points in the order snarkjs keys expect.  log_n <= S
 * (32 for BLS12-381, 28 for BN254); returns CUZK_ERANGE otherwise. */
cuzk_status bls12_381_fr_root_of_unity(bls12_381_fr *r, unsigned log_n);
cuzk_status bn254_fr_root_of_unity(bn254_fr *r, unsigned log_n);
#define BLS12_381_FR_TWO_ADICITY 32
#define BN254_FR_TWO_ADICITY 28

/* 1 if field products use the x86-64 mulx/adx code path, 0 for portable C. */
int cuzk_field_uses_asm(void);

/* Plain-integer helpers on little-endian limbs (used by the decoders). */
size_t cuzk_limbs_to_dec(char *out, size_t cap, const uint64_t *a, size_t n);
cuzk_status cuzk_limbs_from_dec(uint64_t *r, size_t n, const char *s,
                                cuzk_error *err);

#endif
