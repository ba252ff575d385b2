/*
 * A proving key loaded for proving, and proofs of either curve.
 *
 * cuzk_key holds one P_groth16_pk of the key's curve with every array in
 * aligned memory it owns (a .zkey's sections are not 8-byte aligned, so
 * they are copied once at load; the native key format will map them in
 * place).  The curve-generic functions here dispatch to the per-curve
 * prover, verifier and JSON writers, so the CLI and the engine need not.
 *
 * Thread safety: a loaded key is read-only; any number of threads may prove
 * with it at once.  Load and free are not concurrent with use.
 */
#ifndef CUZK_GROTH16_KEY_H
#define CUZK_GROTH16_KEY_H

#include <stddef.h>

#include "groth16/curve_id.h"
#include "groth16/prover/groth16.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"

typedef struct cuzk_key {
    cuzk_curve curve;
    union {
        bls12_381_groth16_pk bls12_381;
        bn254_groth16_pk bn254;
    } pk;
    void *mem;        /* one block holding every array of |pk| */
    size_t mem_bytes; /* its size */
} cuzk_key;

typedef struct cuzk_proof {
    cuzk_curve curve;
    union {
        bls12_381_groth16_proof bls12_381;
        bn254_groth16_proof bn254;
    } p;
} cuzk_proof;

typedef struct cuzk_vk {
    cuzk_curve curve;
    union {
        bls12_381_groth16_vk bls12_381;
        bn254_groth16_vk bn254;
    } vk;
} cuzk_vk;

/*
 * Load the proving key of an open .zkey: copies the point sections into
 * aligned memory (A, B1 and B2 compact: only the wires whose point is not
 * infinity, with density bitmaps, groth16.h) and decodes the coefficients.  Does not validate the big
 * point sections (cuzk_zkey_check_points does, at a cost).
 * Returns CUZK_OK, CUZK_ENOMEM, or a coefficient error from the reader.
 * Free with cuzk_key_free (also after a failure).
 */
cuzk_status cuzk_key_from_zkey(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err);
/* The typed loaders (key_template.h) behind it, which the curve table
 * adapts (curve_impl.h, ci->key_from_zkey): k->curve set by the caller. */
cuzk_status bls12_381_key_from_zkey(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err);
cuzk_status bn254_key_from_zkey(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err);
/* Open |path| and load it (the file is closed again before returning). */
cuzk_status cuzk_key_load(cuzk_key *k, const char *path, cuzk_error *err);
void cuzk_key_free(cuzk_key *k);

/* Number of public signals (nPublic) and of witness values (nVars). */
size_t cuzk_key_n_public(const cuzk_key *k);
size_t cuzk_key_n_vars(const cuzk_key *k);
/* log2 of the domain size. */
unsigned cuzk_key_log_n(const cuzk_key *k);
/* Entries of the A and B coefficient list (.zkey section 4).  A key
 * without them proves only inputs that carry a, b, c (groth16/formats/abc.h). */
size_t cuzk_key_n_coefs(const cuzk_key *k);

/* Proving with a key goes through the engine (its devices hold the
 * prover's scratch in the charged buffer pool) or, in the tests, through
 * tests/cpu_prove.h. */

/* The verification key of |k| (free with cuzk_vk_clear). */
cuzk_status cuzk_key_vk(const cuzk_key *k, cuzk_vk *vk, cuzk_error *err);
/* Frees what |vk| owns (its IC array), not |vk| itself: for a key held by
 * value.  The public cuzk_vk_release (include/cuzk.h) is the other half of
 * cuzk_vk_load: it frees a heap key, struct included, and calls this. */
void cuzk_vk_clear(cuzk_vk *vk);

/*
 * Verify |proof| for public signals |pub| (|n_pub| Montgomery scalars of
 * the vk's curve).  CUZK_OK if valid; CUZK_ECURVE if the proof is of
 * another curve; otherwise as P_groth16_verify.
 */
cuzk_status cuzk_vk_verify(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                           const cuzk_proof *proof, cuzk_error *err);

#endif
