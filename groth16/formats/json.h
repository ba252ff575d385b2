/*
 * snarkjs JSON files: verification_key.json, proof.json, public.json.
 *
 * Readers accept what snarkjs 0.7.6 accepts and reject, with a one-line
 * reason naming the file and the field, anything malformed: invalid JSON,
 * duplicate keys, wrong types, missing fields, a coordinate >= p, a scalar
 * >= r, a point off the curve.  Points are read as snarkjs reads them,
 * Jacobian [x, y, z] (x/z^2, y/z^3; z = 0 is infinity; a 2-element [x, y]
 * is taken as affine).  Verification-key points must also be in the
 * order-r subgroup; proof points are only checked on-curve here (the
 * verifier checks their subgroup).  Curve names follow snarkjs: "bn128",
 * "bn254", "altbn128", "bls12381" (case and punctuation ignored).
 *
 * Writers produce byte-for-byte what snarkjs writes (JSON.stringify with a
 * one-space indent, keys in snarkjs's order, decimal strings, affine points
 * with z = "1", no trailing newline); tests/test_formats_json.c compares with
 * files snarkjs made.  verification_key.json includes vk_alphabeta_12 =
 * e(alpha, beta) when the pairing is available (see json.c).
 *
 * The types cuzk_vk and cuzk_proof are defined in groth16/vk_proof.h.  A vk
 * read here owns its IC array: release it with cuzk_vk_clear (prover/key.h).  Strings returned by
 * writers are malloc'd (free() them).  All functions are reentrant.
 */
#ifndef CUZK_GROTH16_JSON_H
#define CUZK_GROTH16_JSON_H

#include <stddef.h>

#include "groth16/curve_id.h"
#include "groth16/formats/zkey.h"
#include "groth16/vk_proof.h"
#include "util/status.h"

struct json_t; /* <jansson.h> */

/*
 * This layer's table, one per curve (json.c): the snarkjs JSON formats of
 * the curve on the curve-agnostic types, which the curve table points to
 * (curve_impl.h, ci->json); the front ends below look it up by
 * cuzk_json_table_get and call through it.
 * |out| of public_read has room for every element of the array |root|.
 * vk_from_zkey is cuzk_vk_from_zkey's per-curve half: IC copied and
 * checked on the curve; on failure nothing is left owned.
 */
typedef struct cuzk_json_table {
    cuzk_status (*vk_read)(cuzk_vk *vk, struct json_t *root, const char *src, cuzk_error *err);
    struct json_t *(*vk_write)(const cuzk_vk *vk);
    cuzk_status (*proof_read)(cuzk_proof *p, struct json_t *root, const char *src,
                              cuzk_error *err);
    struct json_t *(*proof_write)(const cuzk_proof *p);
    cuzk_status (*public_read)(cuzk_fr *out, struct json_t *root, const char *src,
                               cuzk_error *err);
    struct json_t *(*public_write)(const cuzk_fr *pub, size_t n);
    cuzk_status (*vk_from_zkey)(cuzk_vk *vk, const cuzk_zkey *z, cuzk_error *err);
} cuzk_json_table;
extern const cuzk_json_table bn254_json_table, bls12_381_json_table;

/* The table of |c|; NULL for CUZK_CURVE_NONE or any value not a curve. */
const cuzk_json_table *cuzk_json_table_get(cuzk_curve c);

/*
 * verification_key.json.  The curve comes from the file.
 * Returns CUZK_OK; CUZK_EFORMAT (syntax, types, missing fields, protocol
 * not groth16, IC length != nPublic + 1); CUZK_ECURVE (unknown curve);
 * CUZK_ERANGE; CUZK_ENOTONCURVE; CUZK_ENOTINSUBGROUP; CUZK_EIO; CUZK_ENOMEM.
 * |vk| is zeroed on failure.
 */
cuzk_status cuzk_vk_read_json(cuzk_vk *vk, const char *text, size_t len,
                              cuzk_error *err);
cuzk_status cuzk_vk_read_json_file(cuzk_vk *vk, const char *path,
                                   cuzk_error *err);
cuzk_status cuzk_vk_write_json(const cuzk_vk *vk, char **out, cuzk_error *err);
cuzk_status cuzk_vk_write_json_file(const cuzk_vk *vk, const char *path,
                                    cuzk_error *err);

/* The verification key of a .zkey (what `snarkjs zkey export
 * verificationkey` exports); IC is copied.  Free with cuzk_vk_clear. */
cuzk_status cuzk_vk_from_zkey(cuzk_vk *vk, const cuzk_zkey *z,
                              cuzk_error *err);

/*
 * proof.json.  |curve| is the curve the caller expects (from the vk); pass
 * CUZK_CURVE_NONE to take it from the file's "curve" field.  A "curve" or
 * "protocol" field, when present, must agree (CUZK_ECURVE / CUZK_EFORMAT).
 */
cuzk_status cuzk_proof_read_json(cuzk_proof *p, cuzk_curve curve,
                                 const char *text, size_t len, cuzk_error *err);
cuzk_status cuzk_proof_read_json_file(cuzk_proof *p, cuzk_curve curve,
                                      const char *path, cuzk_error *err);
cuzk_status cuzk_proof_write_json(const cuzk_proof *p, char **out,
                                  cuzk_error *err);
cuzk_status cuzk_proof_write_json_file(const cuzk_proof *p, const char *path,
                                       cuzk_error *err);

/*
 * public.json: an array of decimal strings (non-negative JSON integers are
 * accepted too, as snarkjs does), each < r of |curve|.  *out receives |*n|
 * Montgomery-form scalars (malloc'd, free() it; NULL when n = 0).
 */
cuzk_status cuzk_public_read_json(cuzk_curve curve, cuzk_fr **out, size_t *n,
                                  const char *text, size_t len,
                                  cuzk_error *err);
cuzk_status cuzk_public_read_json_file(cuzk_curve curve, cuzk_fr **out,
                                       size_t *n, const char *path,
                                       cuzk_error *err);
cuzk_status cuzk_public_write_json(cuzk_curve curve, const cuzk_fr *pub,
                                   size_t n, char **out, cuzk_error *err);
cuzk_status cuzk_public_write_json_file(cuzk_curve curve, const cuzk_fr *pub,
                                        size_t n, const char *path,
                                        cuzk_error *err);

#endif
