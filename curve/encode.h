/*
 * Byte and text encodings of G1/G2 points for the formats cuzk reads and
 * writes.  Every decoder validates fully: coordinates must be < p, the point
 * must be on the curve, and (unless a flag says otherwise) in the order-r
 * subgroup.  On failure a decoder returns the status, writes a one-line
 * reason into |err| (may be NULL) and leaves |r| unchanged.  Encoders take
 * valid points and cannot fail.  No function allocates; all are thread safe.
 *
 * 1. zcash / bellperson (BLS12-381 only), big-endian, flags in the three top
 *    bits of byte 0: 0x80 compressed, 0x40 infinity, 0x20 sign (set when y
 *    is the lexicographically larger of y, -y; for Fp2 compare c1 first,
 *    then c0).  G2 coordinates are written c1 then c0.  Sizes: G1 48 B
 *    compressed / 96 B uncompressed, G2 96 / 192 B.  Infinity is the flag
 *    byte 0xc0 (compressed) or 0x40 (uncompressed) followed by zeros.
 *    Rejected: compression flag not matching the length, sign flag on an
 *    uncompressed or infinity encoding, infinity with any other bit set,
 *    x or y >= p, x with no square root, off-curve, not in the subgroup.
 * 2. snarkjs JSON coordinates (decimal strings): G1 {x, y, z}, G2
 *    {x.c0, x.c1, y.c0, y.c1, z.c0, z.c1}.  Read as Jacobian (x/z^2,
 *    y/z^3); z = 0 is infinity (x, y then ignored but must still be valid
 *    numbers < p).  Written affine with z = "1" (G2: z = "1","0"); infinity
 *    is written as x = 0, y = 1, z = 0 (G2: "0","0","1","0","0","0"), the
 *    Jacobian zero that snarkjs prints.
 * 3. snarkjs binary (zkey/ptau): affine, each coordinate little-endian
 *    Montgomery form (R = 2^256 for BN254, 2^384 for BLS12-381), G2 as
 *    x.c0|x.c1|y.c0|y.c1, infinity = all zero bytes.  Each coordinate value
 *    must be < p.  Sizes: BLS12-381 96 / 192 B, BN254 64 / 128 B.
 * 4. Ethereum (BN254 only, EIP-196/197): G1 64 B = x||y, G2 128 B =
 *    x.c1||x.c0||y.c1||y.c0, all big-endian plain integers (imaginary part
 *    first); infinity = all zero bytes.
 */
#ifndef CUZK_ENCODE_H
#define CUZK_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve.h"
#include "util/status.h"

/* ---- 1. zcash / bellperson (BLS12-381) ---------------------------------- */
enum {
    BLS12_381_G1_ZCASH_COMPRESSED_BYTES = 48,
    BLS12_381_G1_ZCASH_UNCOMPRESSED_BYTES = 96,
    BLS12_381_G2_ZCASH_COMPRESSED_BYTES = 96,
    BLS12_381_G2_ZCASH_UNCOMPRESSED_BYTES = 192,
};

/* Write |a| to |out| (48/96 B for G1, 96/192 B for G2, by |compressed|).
 * Returns the number of bytes written. */
size_t bls12_381_g1_encode_zcash(uint8_t *out, const bls12_381_g1_affine *a,
                                 int compressed);
size_t bls12_381_g2_encode_zcash(uint8_t *out, const bls12_381_g2_affine *a,
                                 int compressed);
/* Decode |len| bytes; |len| selects the form (G1: 48 or 96; G2: 96 or 192),
 * any other length is CUZK_EFORMAT.  Status: CUZK_EFORMAT (length, flags),
 * CUZK_ERANGE (coordinate >= p), CUZK_ENOTONCURVE (includes "x has no
 * square root"), CUZK_ENOTINSUBGROUP. */
cuzk_status bls12_381_g1_decode_zcash(bls12_381_g1_affine *r,
                                      const uint8_t *in, size_t len,
                                      cuzk_error *err);
cuzk_status bls12_381_g2_decode_zcash(bls12_381_g2_affine *r,
                                      const uint8_t *in, size_t len,
                                      cuzk_error *err);

/* ---- 2. snarkjs JSON decimal coordinates -------------------------------- */
/* |coords|: 3 strings for G1 (x, y, z), 6 for G2 (x.c0, x.c1, y.c0, y.c1,
 * z.c0, z.c1).  Each must be a non-empty run of ASCII digits with value < p
 * (leading zeros allowed).  Status: CUZK_EFORMAT, CUZK_ERANGE,
 * CUZK_ENOTONCURVE, CUZK_ENOTINSUBGROUP. */
cuzk_status bls12_381_g1_from_dec(bls12_381_g1_affine *r,
                                  const char *const coords[3],
                                  cuzk_error *err);
cuzk_status bls12_381_g2_from_dec(bls12_381_g2_affine *r,
                                  const char *const coords[6],
                                  cuzk_error *err);
cuzk_status bn254_g1_from_dec(bn254_g1_affine *r, const char *const coords[3],
                              cuzk_error *err);
cuzk_status bn254_g2_from_dec(bn254_g2_affine *r, const char *const coords[6],
                              cuzk_error *err);
/* Write 3 (G1) or 6 (G2) NUL-terminated decimal strings into the caller's
 * buffers out[i], each |cap| bytes.  |cap| >= CUZK_G_DEC_BYTES always fits
 * (CUZK_EINVAL otherwise, with the buffers untouched). */
#define CUZK_G_DEC_BYTES 128
cuzk_status bls12_381_g1_to_dec(char *const out[3], size_t cap,
                                const bls12_381_g1_affine *a, cuzk_error *err);
cuzk_status bls12_381_g2_to_dec(char *const out[6], size_t cap,
                                const bls12_381_g2_affine *a, cuzk_error *err);
cuzk_status bn254_g1_to_dec(char *const out[3], size_t cap,
                            const bn254_g1_affine *a, cuzk_error *err);
cuzk_status bn254_g2_to_dec(char *const out[6], size_t cap,
                            const bn254_g2_affine *a, cuzk_error *err);

/* ---- 3. snarkjs binary (zkey / ptau) ------------------------------------ */
enum {
    BLS12_381_G1_ZKEY_BYTES = 96,
    BLS12_381_G2_ZKEY_BYTES = 192,
    BN254_G1_ZKEY_BYTES = 64,
    BN254_G2_ZKEY_BYTES = 128,
};
/* Decode one point of exactly *_ZKEY_BYTES bytes.  The on-curve check is
 * always done; the subgroup check only when |check_subgroup| is non-zero
 * (it costs a scalar multiplication by a 64-128-bit number).  Status:
 * CUZK_ERANGE, CUZK_ENOTONCURVE, CUZK_ENOTINSUBGROUP. */
cuzk_status bls12_381_g1_from_zkey_bytes(bls12_381_g1_affine *r,
                                         const uint8_t *in, int check_subgroup,
                                         cuzk_error *err);
cuzk_status bls12_381_g2_from_zkey_bytes(bls12_381_g2_affine *r,
                                         const uint8_t *in, int check_subgroup,
                                         cuzk_error *err);
cuzk_status bn254_g1_from_zkey_bytes(bn254_g1_affine *r, const uint8_t *in,
                                     int check_subgroup, cuzk_error *err);
cuzk_status bn254_g2_from_zkey_bytes(bn254_g2_affine *r, const uint8_t *in,
                                     int check_subgroup, cuzk_error *err);
/* Write exactly *_ZKEY_BYTES bytes. */
void bls12_381_g1_to_zkey_bytes(uint8_t *out, const bls12_381_g1_affine *a);
void bls12_381_g2_to_zkey_bytes(uint8_t *out, const bls12_381_g2_affine *a);
void bn254_g1_to_zkey_bytes(uint8_t *out, const bn254_g1_affine *a);
void bn254_g2_to_zkey_bytes(uint8_t *out, const bn254_g2_affine *a);

/* ---- 4. Ethereum (BN254) -------------------------------------------------- */
enum { BN254_G1_ETH_BYTES = 64, BN254_G2_ETH_BYTES = 128 };
void bn254_g1_encode_eth(uint8_t out[64], const bn254_g1_affine *a);
void bn254_g2_encode_eth(uint8_t out[128], const bn254_g2_affine *a);
/* Status: CUZK_ERANGE, CUZK_ENOTONCURVE, CUZK_ENOTINSUBGROUP (G2 only; G1
 * has cofactor 1). */
cuzk_status bn254_g1_decode_eth(bn254_g1_affine *r, const uint8_t in[64],
                                cuzk_error *err);
cuzk_status bn254_g2_decode_eth(bn254_g2_affine *r, const uint8_t in[128],
                                cuzk_error *err);

#endif
