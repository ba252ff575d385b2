/*
 * cuzk_files.h: the circom / snarkjs files of libcuzk's public API.
 *
 * What a prover's tools need from the files around a proof: what a .r1cs,
 * .wtns or .zkey holds; a witness's curve, size and public signals;
 * verification keys written as verification_key.json; proof.json and
 * public.json read and written as the byte images of cuzk.h (a proof is a
 * cuzk_proof_bytes, public signals are 32-byte big-endian canonical
 * values).  Reading and writing JSON needs jansson: without it those
 * functions return CUZK_EUNSUPPORTED.
 *
 * Conventions are cuzk.h's.  Every reader validates fully (points on the
 * curve and in the subgroup, scalars below r) and reports the first
 * problem; nothing exits or aborts on a bad file.
 */
#ifndef CUZK_FILES_H
#define CUZK_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a file is ---------------------------------------------------------------- */

typedef enum cuzk_file_kind {
    CUZK_FILE_UNKNOWN = 0,
    CUZK_FILE_R1CS = 1, /* circom constraint system */
    CUZK_FILE_WTNS = 2, /* circom / snarkjs witness */
    CUZK_FILE_ZKEY = 3, /* snarkjs Groth16 proving key */
    CUZK_FILE_ABC = 4   /* cuzk's a, b, c image: a partition's evaluated
                           a, b, c and its witness (docs/FILES.md) */
} cuzk_file_kind;

typedef struct cuzk_file_info {
    cuzk_file_kind kind;
    cuzk_curve curve;
    uint64_t file_bytes;
    /* R1CS */
    uint32_t n_constraints, n_wires, n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels, nnz_a, nnz_b, nnz_c;
    /* R1CS: the Groth16 domain the circuit needs; ZKEY: the key's */
    unsigned log_n;
    /* WTNS: values; whether all are below r (CUZK_OK, else the status of
     * the first that is not, with its message) */
    uint64_t n_values;
    cuzk_status range;
    char range_msg[CUZK_ERROR_MSG_BYTES];
    /* ZKEY */
    uint32_t n_vars, n_public, n_coefs, n_contributions;
    uint64_t n_ic, n_a, n_b1, n_b2, n_c, n_h; /* points per section */
    /* ABC: rows of a, b, c (the witness's values are in n_values; the
     * image was read whole, so every value is below r) */
    uint64_t n_rows;
} cuzk_file_info;

/*
 * Read the header (and for a .wtns, every value's range; an a, b, c image
 * is validated whole) of the file at |path|, telling the kind by its
 * magic bytes, not its name.
 * Returns: CUZK_OK (also for a .wtns with values out of range: see
 *   |range|); CUZK_EIO (cannot open); CUZK_EFORMAT (unknown magic, or a
 *   malformed file); CUZK_ECURVE (a curve that is not ours); CUZK_ENOMEM.
 * Out: |*info| (zeroed first).
 */
CUZK_API cuzk_status cuzk_file_inspect(cuzk_file_info *info, const char *path, cuzk_error *err);

/* ---- witnesses ------------------------------------------------------------------------- */

/*
 * The curve and number of values of a .wtns: the file at |path|, or (with
 * |path| NULL) the image of |size| bytes at |data| (borrowed for the call).
 * An a, b, c image (magic "cuzkabc1") is a partition's input too: it is
 * validated whole and |*n_values| is its witness's length.
 * Returns CUZK_OK or the reader's error (CUZK_EIO, CUZK_EFORMAT,
 *   CUZK_ECURVE, CUZK_ENOMEM; CUZK_ERANGE, CUZK_EUNSUPPORTED for an a, b,
 *   c image).  Out: |*curve|, |*n_values|.
 */
CUZK_API cuzk_status cuzk_wtns_inspect(cuzk_curve *curve, uint64_t *n_values, const char *path,
                                       const void *data, size_t size, cuzk_error *err);

/*
 * The public signals of the witness at |path|: its values 1 .. n (value 0
 * is the constant 1), as |n| 32-byte big-endian images into |out|.  An a,
 * b, c image's witness gives them alike.
 * Returns CUZK_OK; the reader's errors; CUZK_EMISMATCH (fewer than n + 1
 *   values); CUZK_ERANGE (a value not below r).  Out: |*curve| (may be
 *   NULL) the witness's curve.
 */
CUZK_API cuzk_status cuzk_wtns_public_bytes(const char *path, cuzk_curve *curve, uint8_t *out,
                                            size_t n, cuzk_error *err);

/*
 * Write the a, b, c image (docs/FILES.md, "The a, b, c image") of the
 * witness at |wtns_path| for the key at |zkey_path|: a = A·w, b = B·w,
 * c = a∘b evaluated with the key's coefficient list on |threads| threads
 * (0: one), the rows up to the last the key mentions, and the witness;
 * atomically to |out_path|.  What Filecoin-style synthesis hands a prover,
 * made from circom files, for tests and comparisons.
 * Returns CUZK_OK; the readers' errors; CUZK_ECURVE, CUZK_EMISMATCH (the
 *   witness is not the key's); CUZK_ERANGE; CUZK_EINVAL (the key has no
 *   coefficients); CUZK_EIO; CUZK_ENOMEM.
 */
CUZK_API cuzk_status cuzk_abc_make(const char *zkey_path, const char *wtns_path,
                                   const char *out_path, unsigned threads, cuzk_error *err);

/* ---- verification keys ------------------------------------------------------------------ */

/* Write |vk| (cuzk_vk_load) as snarkjs's verification_key.json
 * (`snarkjs zkey export verificationkey`, vk_alphabeta_12 included),
 * atomically.  Returns CUZK_OK; CUZK_EIO; CUZK_ENOMEM; CUZK_EUNSUPPORTED
 * (no jansson). */
CUZK_API cuzk_status cuzk_vk_save_json(const cuzk_vk *vk, const char *path, cuzk_error *err);

/* ---- proof.json and public.json -------------------------------------------------------- */

/*
 * A snarkjs proof.json (|len| bytes of |text|, or the file at |path|) as a
 * proof image.  |curve|: the curve expected (CUZK_CURVE_NONE: the file's
 * "curve" member decides).
 * Returns CUZK_OK; CUZK_EFORMAT (syntax, missing members, protocol not
 *   groth16); CUZK_ECURVE (another curve than |curve|, or none known);
 *   CUZK_ERANGE, CUZK_ENOTONCURVE, CUZK_ENOTINSUBGROUP (a point);
 *   CUZK_EIO (the file); CUZK_ENOMEM; CUZK_EUNSUPPORTED (no jansson).
 */
CUZK_API cuzk_status cuzk_proof_bytes_from_json(cuzk_proof_bytes *out, cuzk_curve curve,
                                                const char *text, size_t len, cuzk_error *err);
CUZK_API cuzk_status cuzk_proof_bytes_read_json_file(cuzk_proof_bytes *out, cuzk_curve curve,
                                                     const char *path, cuzk_error *err);

/* Write a proof image as snarkjs's proof.json, atomically.  Returns
 * CUZK_OK; the image's errors (cuzk_verify's list); CUZK_EIO; CUZK_ENOMEM;
 * CUZK_EUNSUPPORTED (no jansson). */
CUZK_API cuzk_status cuzk_proof_bytes_write_json_file(const cuzk_proof_bytes *proof,
                                                      const char *path, cuzk_error *err);

/*
 * A snarkjs public.json (an array of decimal strings, each below r of
 * |curve|) as |*n| 32-byte big-endian images.
 * Returns CUZK_OK; CUZK_EFORMAT; CUZK_ERANGE; CUZK_EIO; CUZK_ENOMEM;
 *   CUZK_EUNSUPPORTED (no jansson).
 * Out: |*out| malloc'd (free() it; NULL when *n is 0).
 */
CUZK_API cuzk_status cuzk_public_bytes_from_json(cuzk_curve curve, uint8_t **out, size_t *n,
                                                 const char *text, size_t len, cuzk_error *err);
CUZK_API cuzk_status cuzk_public_bytes_read_json_file(cuzk_curve curve, uint8_t **out, size_t *n,
                                                      const char *path, cuzk_error *err);

/* Write |n| public signal images as snarkjs's public.json, atomically.
 * Returns CUZK_OK; CUZK_ERANGE (a value not below r); CUZK_EIO;
 * CUZK_ENOMEM; CUZK_EUNSUPPORTED (no jansson). */
CUZK_API cuzk_status cuzk_public_bytes_write_json_file(cuzk_curve curve, const uint8_t *pub,
                                                       size_t n, const char *path,
                                                       cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
