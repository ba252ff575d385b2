/*
 * A proving key loaded for proving, and proofs of either curve.
 *
 * cuzk_key holds one P_groth16_pk of the key's curve with every array in
 * aligned memory it owns (a .zkey's sections are not 8-byte aligned, so
 * they are copied once at load; the native key format will map them in
 * place).  The curve-generic functions here dispatch to the per-curve
 * prover and verifier through the prover's own table (below), so the CLI
 * and the engine need not.
 *
 * Thread safety: a loaded key is read-only; any number of threads may prove
 * with it at once.  Load and free are not concurrent with use.
 */
#ifndef CUZK_GROTH16_KEY_H
#define CUZK_GROTH16_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_id.h"
#include "groth16/prover/groth16.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"
#include "groth16/vk_proof.h"
#include "util/threadpool.h"

typedef struct cuzk_key {
    cuzk_curve curve;
    union {
        bls12_381_groth16_pk bls12_381;
        bn254_groth16_pk bn254;
    } pk;
    void *mem;        /* one block holding every array of |pk| */
    size_t mem_bytes; /* its size */
} cuzk_key;

/* cuzk_proof and cuzk_vk: groth16/vk_proof.h. */

/* The prover's arrays of a loaded key, without their curve's types (what
 * a device prover uploads).  Points are the key's affine structs. */
typedef struct cuzk_key_arrays {
    const void *a, *b1, *b2, *c, *h;
    size_t n_vars, n_public, log_n;
    /* density (groth16.h): NULL, or n_vars bits naming the wires whose
     * points a (resp. b1 and b2) hold; n_a, n_b points */
    const uint64_t *a_density, *b_density;
    size_t n_a, n_b;
    const cuzk_zkey_coef *coefs;
    size_t n_coefs;
} cuzk_key_arrays;

/* The prover's entries of one curve on the curve-agnostic types, listed
 * once: cuzk_prover_table is made of them (key.c, one per curve, through
 * prover_table_template.h), and the curve table (curve_impl.h) holds them
 * by the same names.  The front ends below (cuzk_key_*, cuzk_vk_*) and the
 * GPU prover dispatch through this table, never through the curve table
 * above them. */
#define CUZK_PROVER_TABLE_MEMBERS                                                    \
    /* Uniform below r from the OS CSPRNG; CUZK_EIO without randomness. */          \
    cuzk_status (*fr_random)(cuzk_fr * r, cuzk_error * err);                         \
    /* ---- proving keys ----------------------------------------------------- */  \
    /* Load the proving key of an open .zkey into |k| (k->curve is set by           \
     * the caller); free with cuzk_key_free, also after a failure. */               \
    cuzk_status (*key_from_zkey)(cuzk_key * k, const cuzk_zkey *z, cuzk_error *err); \
    size_t (*key_n_public)(const cuzk_key *k);                                       \
    size_t (*key_n_vars)(const cuzk_key *k);                                         \
    unsigned (*key_log_n)(const cuzk_key *k);                                        \
    void (*key_arrays)(const cuzk_key *k, cuzk_key_arrays *out);                     \
    /* ---- CPU prover (groth16.h steps on a cuzk_key) ----------------------- */  \
    /* Every step works in the caller's |scratch| of at least the matching          \
     * *_scratch_bytes (groth16.h, *_with_scratch): NULL or short is                \
     * CUZK_EINVAL, nothing is allocated; |threads| is cuzk_pool_threads of         \
     * the pool they run on. */                                                     \
    /* a, b, c (n = 2^log_n each) from n_vars plain witness values. */              \
    size_t (*evaluate_scratch_bytes)(const cuzk_key *k);                             \
    cuzk_status (*evaluate_with_scratch)(const cuzk_key *k, const cuzk_fr *w,        \
                                         cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,         \
                                         void *scratch, size_t scratch_bytes,        \
                                         cuzk_pool *pool, cuzk_error *err);          \
    cuzk_status (*compute_h)(const cuzk_key *k, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,  \
                             cuzk_pool *pool, cuzk_error *err);                      \
    size_t (*msms_scratch_bytes)(const cuzk_key *k, unsigned threads);               \
    cuzk_status (*msms_assemble_with_scratch)(                                       \
        cuzk_proof * out, const cuzk_key *k, const cuzk_fr *w, const cuzk_fr *h,     \
        const cuzk_fr *r, const cuzk_fr *s, void *scratch, size_t scratch_bytes,     \
        cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err);                   \
    /* The proof from the five MSM results (P_g1 / P_g2 Jacobian points). */        \
    void (*assemble)(cuzk_proof * out, const cuzk_key *k, const void *msm_a,         \
                     const void *msm_b1, const void *msm_b2, const void *msm_c,      \
                     const void *msm_h, const cuzk_fr *r, const cuzk_fr *s);         \
    /* Σ w·B2 on the CPU into |out| (a P_g2), |w| the n_vars plain witness          \
     * values; for a key with a B density bitmap the values of its wires are        \
     * gathered into |gather| (n_b values) first.  The MSM works in                 \
     * |scratch| of at least b2_msm_scratch_bytes (CUZK_EINVAL if NULL or           \
     * short). */                                                                   \
    size_t (*b2_msm_scratch_bytes)(const cuzk_key *k, unsigned threads);             \
    cuzk_status (*b2_msm_cpu)(const cuzk_key *k, const cuzk_fr *w, cuzk_fr *gather,  \
                              void *out, void *scratch, size_t scratch_bytes,        \
                              cuzk_pool *pool);                                      \
    /* All steps with fresh blinding; |w| holds |n_w| aligned plain values. */      \
    size_t (*prove_scratch_bytes)(const cuzk_key *k, unsigned threads);              \
    cuzk_status (*prove)(const cuzk_key *k, const cuzk_fr *w, size_t n_w,            \
                         void *scratch, size_t scratch_bytes, cuzk_proof *out,       \
                         cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err);  \
    /* All steps but evaluate, from a, b, c (|m| rows each) and the witness,        \
     * all plain aligned values (groth16.h, P_groth16_prove_abc_with_scratch:       \
     * no coefficient list needed); |r|, |s| NULL: fresh blinding. */               \
    size_t (*prove_abc_scratch_bytes)(const cuzk_key *k, unsigned threads);          \
    cuzk_status (*prove_abc)(const cuzk_key *k, const cuzk_fr *w, size_t n_w,        \
                             const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c,   \
                             size_t m, const cuzk_fr *r, const cuzk_fr *s,           \
                             void *scratch, size_t scratch_bytes, cuzk_proof *out,   \
                             cuzk_pool *pool, cuzk_groth16_timing *t,                \
                             cuzk_error *err);                                       \
    /* ---- verification keys and verification ------------------------------- */  \
    cuzk_status (*vk_from_key)(const cuzk_key *k, cuzk_vk *vk, cuzk_error *err);     \
    void (*vk_free)(cuzk_vk * vk);                                                   \
    size_t (*vk_n_public)(const cuzk_vk *vk);                                        \
    cuzk_status (*verify)(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,       \
                          const cuzk_proof *proof, cuzk_error *err);

typedef struct cuzk_prover_table {
    CUZK_PROVER_TABLE_MEMBERS
} cuzk_prover_table;

/* The prover's table of |c|; NULL for CUZK_CURVE_NONE or any value not a
 * curve. */
const cuzk_prover_table *cuzk_prover_table_get(cuzk_curve c);

/*
 * Load the proving key of an open .zkey: copies the point sections into
 * aligned memory (A, B1 and B2 compact: only the wires whose point is not
 * infinity, with density bitmaps, groth16.h) and decodes the coefficients.  Does not validate the big
 * point sections (cuzk_zkey_check_points does, at a cost).
 * Returns CUZK_OK, CUZK_ENOMEM, or a coefficient error from the reader.
 * Free with cuzk_key_free (also after a failure).
 */
cuzk_status cuzk_key_from_zkey(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err);
/* The typed loaders (key_template.h) behind it, which the prover's table
 * holds (key_from_zkey): k->curve set by the caller. */
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
