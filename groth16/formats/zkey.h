/*
 * snarkjs Groth16 proving keys (.zkey): zero-copy reader and writer.
 *
 * File (iden3 binfile, magic "zkey", version 1; docs/FILES.md section 3):
 *   1  protocol u32 (1 = Groth16; 2 PLONK and 10 FFLONK are rejected)
 *   2  n8q | q | n8r | r | nVars | nPublic | domainSize | alpha1 G1 | beta1 G1
 *      | beta2 G2 | gamma2 G2 | delta1 G1 | delta2 G2
 *   3  IC  (nPublic+1) G1        6  B1 nVars G1        9  H domainSize G1
 *   4  coefficients of A and B   7  B2 nVars G2       10  MPC contributions
 *   5  A   nVars G1              8  C  (nVars-nPublic-1) G1
 * Points are affine, coordinates little-endian Montgomery form, infinity all
 * zero bytes: the same byte image as curve_types.h affine structs on a
 * little-endian host (cuzk only builds for little-endian hosts).
 *
 * Opening checks the container, protocol, curve (q and r must name the same
 * curve), counts (nVars > nPublic, domainSize a power of two within the
 * field's two-adicity and >= nPublic + 1), the exact size of every section,
 * the structure of section 10 if present, and the six header points (each
 * coordinate < q, on the curve, in the subgroup, not infinity).  The big
 * point sections are not read at open: cuzk_zkey_check_points validates
 * them on request, cuzk_zkey_read_coefs validates section 4 while decoding.
 * Views point into the mapping (or the caller's buffer) and are generally
 * NOT 8-byte aligned (snarkjs puts sections at offsets = 4 mod 8): copy with
 * cuzk_zkey_points_copy, don't cast.
 *
 * Thread safety: an open cuzk_zkey is read-only; share it freely.
 */
#ifndef CUZK_GROTH16_ZKEY_H
#define CUZK_GROTH16_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve_types.h"
#include "groth16/formats/binfile.h"
#include "groth16/curve_id.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/r1cs.h"

/* The verifying/proving constants of section 2, decoded. */
typedef struct cuzk_zkey_vk_bn254 {
    bn254_g1_affine alpha1, beta1, delta1;
    bn254_g2_affine beta2, gamma2, delta2;
} cuzk_zkey_vk_bn254;
typedef struct cuzk_zkey_vk_bls12_381 {
    bls12_381_g1_affine alpha1, beta1, delta1;
    bls12_381_g2_affine beta2, gamma2, delta2;
} cuzk_zkey_vk_bls12_381;

/* A run of points in the file: |count| points of |elem_bytes| each. */
typedef struct cuzk_zkey_points {
    const uint8_t *data;
    uint64_t count;
    uint32_t elem_bytes; /* 64/96 for G1, 128/192 for G2 */
    int g2;              /* 1 for G2 points */
    /* For the writer only (the reader sets NULL): |count| bits, bit i of
     * word i/64 for point i; |data| then holds one point per set bit and
     * the others are written as infinity (a compact key written whole). */
    const uint64_t *density;
} cuzk_zkey_points;

/* One section-4 entry, decoded.  |value| is the Montgomery form of the
 * plain coefficient v (the file stores v R^2 mod r, see docs/FILES.md). */
typedef struct cuzk_zkey_coef {
    uint32_t matrix; /* 0 = A, 1 = B */
    uint32_t row;    /* constraint index, < domainSize */
    uint32_t signal; /* witness index, < nVars */
    uint32_t reserved;
    cuzk_fr value;
} cuzk_zkey_coef;

typedef struct cuzk_zkey {
    cuzk_binfile bf;
    cuzk_curve curve;
    uint32_t n_vars;
    uint32_t n_public;
    uint32_t domain_size;
    uint32_t log_domain_size;
    union {
        cuzk_zkey_vk_bn254 bn254;
        cuzk_zkey_vk_bls12_381 bls12_381;
    } vk;
    cuzk_zkey_points ic; /* section 3 */
    cuzk_zkey_points a;  /* 5 */
    cuzk_zkey_points b1; /* 6 */
    cuzk_zkey_points b2; /* 7 */
    cuzk_zkey_points c;  /* 8 */
    cuzk_zkey_points h;  /* 9 */
    const uint8_t *coefs; /* section 4 entries (after the count), 44 B each */
    uint32_t n_coefs;
    uint32_t n_contributions; /* from section 10, 0 if absent */
} cuzk_zkey;

/*
 * Open a .zkey file (mmap) or a borrowed buffer (must outlive |z|).
 * Returns: CUZK_OK; CUZK_EFORMAT (structure, sizes, counts, infinity header
 *   point); CUZK_EUNSUPPORTED (PLONK/FFLONK, version); CUZK_ECURVE (q or r
 *   unknown, or of different curves); CUZK_ERANGE (header coordinate >= q);
 *   CUZK_ENOTONCURVE; CUZK_ENOTINSUBGROUP; CUZK_EIO; CUZK_ENOMEM.
 * Out: |z| zeroed on failure.  Close with cuzk_zkey_close.
 */
cuzk_status cuzk_zkey_open(cuzk_zkey *z, const char *path, cuzk_error *err);
cuzk_status cuzk_zkey_from_mem(cuzk_zkey *z, const void *data, size_t size,
                               cuzk_error *err);
void cuzk_zkey_close(cuzk_zkey *z);

/* Copy points first .. first+count-1 of |v| into |dst| (an array of the
 * matching *_affine type).  No validation (see cuzk_zkey_check_points).
 * Returns CUZK_EINVAL if the range exceeds the view. */
cuzk_status cuzk_zkey_points_copy(const cuzk_zkey_points *v, uint64_t first,
                                  uint64_t count, void *dst, cuzk_error *err);

/*
 * Validate every point of sections 3, 5, 6, 7, 8, 9: coordinates < q, on
 * the curve, and, if |check_subgroup|, in the order-r subgroup (much
 * slower: a scalar multiplication per point).  Returns the first failure
 * (CUZK_ERANGE / CUZK_ENOTONCURVE / CUZK_ENOTINSUBGROUP) naming section and
 * index.
 */
cuzk_status cuzk_zkey_check_points(const cuzk_zkey *z, int check_subgroup,
                                   cuzk_error *err);

/*
 * Decode section 4 into |out| (z->n_coefs entries, caller-allocated),
 * checking matrix in {0, 1}, row < domainSize, signal < nVars, raw value
 * < r.  Returns CUZK_EFORMAT / CUZK_ERANGE naming the entry.
 */
cuzk_status cuzk_zkey_read_coefs(const cuzk_zkey *z, cuzk_zkey_coef *out,
                                 cuzk_error *err);

/* Do this key and this witness belong together?  Same curve (CUZK_ECURVE)
 * and nWitness == nVars (CUZK_EMISMATCH, "different circuits?"). */
cuzk_status cuzk_check_zkey_wtns(const cuzk_zkey *z, const cuzk_wtns *w,
                                 cuzk_error *err);

/*
 * Was this key made for this r1cs?  Checks curve, nVars == nWires, nPublic,
 * domainSize == next power of two of nConstraints + nPublic + 1, and that
 * section 4 holds exactly the r1cs A and B terms (in r1cs order) followed by
 * the nPublic + 1 rows A[nConstraints + i][i] = 1.  CUZK_EMISMATCH naming
 * the first difference; CUZK_ENOMEM.
 */
cuzk_status cuzk_zkey_check_r1cs(const cuzk_zkey *z, const cuzk_r1cs *r,
                                 cuzk_error *err);

/*
 * Serialize a Groth16 key: sections 1..10 in id order, section 10 with a
 * zero csHash and no contributions.  Reads from |z|: curve, n_vars,
 * n_public, domain_size, vk (header points), and the views ic, a, b1, b2,
 * c, h, whose |data| must hold exactly the expected counts (CUZK_EINVAL
 * otherwise; elem_bytes/g2 must match the curve), or, for a view with a
 * density bitmap, one point per set bit (the rest written as infinity).  |coefs| are n_coefs
 * entries with Montgomery-form values (written as v R^2 like snarkjs).
 * Points are written as given (no validation).  write_mem returns a
 * malloc'd buffer (free() it).
 */
cuzk_status cuzk_zkey_write_mem(const cuzk_zkey *z,
                                const cuzk_zkey_coef *coefs, uint32_t n_coefs,
                                uint8_t **out, size_t *size, cuzk_error *err);
cuzk_status cuzk_zkey_write_file(const cuzk_zkey *z,
                                 const cuzk_zkey_coef *coefs, uint32_t n_coefs,
                                 const char *path, cuzk_error *err);

#endif
