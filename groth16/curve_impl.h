/*
 * One table per curve: everything the layers above the arithmetic need to
 * know about a curve, so that they never branch on which curve it is.
 *
 * Design: the arithmetic layers (field/, curve/, pairing/, ntt/, msm/, the
 * CUDA kernels) are written once as templates and stamped out per curve
 * with typed names (bn254_fr_mul, bls12_381_groth16_verify, ...).  Above
 * them, files, keys, proofs and witnesses carry a cuzk_curve beside
 * curve-agnostic storage (cuzk_fr, the unions of key.h).  This table is the
 * one bridge: groth16/curve_impl_template.h fills a cuzk_curve_impl from a
 * curve prefix P, and groth16/curve_impl.c instantiates it once per curve.
 * Callers look the curve up once (cuzk_curve_impl_get) and call through the
 * entries.  Adding a curve adds one instantiation per layer and nothing at
 * the call sites (docs/INTERNALS.md, "Adding a curve").
 *
 * Why a table and not branches: before it, about eighty "if BN254 ... else
 * ..." sat in the readers, writers, prover front ends and the engine, each
 * a place to forget when a curve is added, and each silently falling into
 * the other curve's code for a value it did not expect.  An unknown curve
 * now has no table (NULL), which every caller turns into CUZK_ECURVE.
 *
 * What this file must not do: grow arithmetic (the entries only adapt the
 * typed per-curve functions to the curve-agnostic types), or be included
 * by the arithmetic layers.  Entries marked "may be NULL" are absent from
 * builds without the optional library; all others are set for every curve
 * (tests/test_curve_impl.c checks).
 *
 * Thread safety: the tables are constant; every entry is as reentrant as
 * the per-curve function it calls.
 */
#ifndef CUZK_GROTH16_CURVE_IMPL_H
#define CUZK_GROTH16_CURVE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_id.h"
#include "groth16/formats/json.h"
#include "groth16/prover/key.h"
#include "groth16/formats/r1cs.h"
#include "groth16/devtools/setup.h"
#include "util/paste.h"
#include "util/status.h"
#include "util/threadpool.h"

struct json_t; /* <jansson.h>; only json.c looks inside */

/* Bytes of the largest affine point of any curve (BLS12-381 G2: 24 limbs):
 * the size of the zkey reader's scratch point.  Each table checks its own
 * points against it. */
#define CUZK_AFFINE_MAX_BYTES 192

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

typedef struct cuzk_curve_impl {
    /* ---- identity ------------------------------------------------------ */
    cuzk_curve id;
    const char *name;            /* the name snarkjs writes: "bn128", ... */
    const char *const *aliases;  /* normalised names (lower case, letters
                                    and digits only) that select this
                                    curve, NULL-terminated */

    /* ---- sizes --------------------------------------------------------- */
    uint32_t n8q, n8r;           /* file bytes of a base / scalar element */
    uint32_t g1_bytes, g2_bytes; /* file bytes of an affine G1 / G2 point */
    unsigned two_adicity;        /* log2 of the largest 2-power subgroup */
    const uint64_t *r_limbs;     /* scalar field order, 4 LE limbs */
    const uint64_t *q_limbs;     /* base field order, q_n_limbs LE limbs */
    unsigned q_n_limbs;
    size_t g1_jacobian_bytes;    /* sizeof P_g1, P_g2: MSM results */
    size_t g2_jacobian_bytes;
    size_t proof_raw_bytes;      /* bytes proof_encode_raw writes */

    /* ---- scalar field (Montgomery cuzk_fr unless said otherwise) ------- */
    /* 32 LE bytes of a plain value -> Montgomery; CUZK_ERANGE if >= r. */
    cuzk_status (*fr_from_le)(cuzk_fr *r, const uint8_t in[32]);
    void (*fr_to_le)(uint8_t out[32], const cuzk_fr *a);
    /* One Montgomery reduction of the limbs of |a| (a R^-1), and back. */
    void (*fr_from_mont)(uint64_t out[4], const cuzk_fr *a);
    void (*fr_to_mont)(cuzk_fr *r, const uint64_t in[4]);
    void (*fr_mul)(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
    void (*fr_add)(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
    void (*fr_sub)(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
    void (*fr_set_one)(cuzk_fr *r);
    /* Uniform below r from the OS CSPRNG; CUZK_EIO without randomness. */
    cuzk_status (*fr_random)(cuzk_fr *r, cuzk_error *err);
    /* A primitive 2^log_n-th root of unity; CUZK_ERANGE above 2-adicity. */
    cuzk_status (*fr_root_of_unity)(cuzk_fr *r, unsigned log_n);

    /* ---- affine points (curve_types.h structs, file coordinate order) -- */
    int (*g1_on_curve)(const void *p);
    int (*g1_in_subgroup)(const void *p);
    int (*g2_on_curve)(const void *p);
    int (*g2_in_subgroup)(const void *p);

    /* ---- .zkey header ---------------------------------------------------- */
    /* Where the six header points of |z| live, in file order: alpha1,
     * beta1, beta2, gamma2, delta1, delta2. */
    void (*zkey_header_slots)(cuzk_zkey *z, void *slot[6]);

    /* ---- proving keys (key.h) ------------------------------------------- */
    /* Load the proving key of an open .zkey into |k| (k->curve is set by
     * the caller); free with cuzk_key_free, also after a failure. */
    cuzk_status (*key_from_zkey)(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err);
    size_t (*key_n_public)(const cuzk_key *k);
    size_t (*key_n_vars)(const cuzk_key *k);
    unsigned (*key_log_n)(const cuzk_key *k);
    void (*key_arrays)(const cuzk_key *k, cuzk_key_arrays *out);

    /* ---- CPU prover (groth16.h steps on a cuzk_key) --------------------- */
    /* Every step works in the caller's |scratch| of at least the matching
     * *_scratch_bytes (groth16.h, *_with_scratch): NULL or short is
     * CUZK_EINVAL, nothing is allocated; |threads| is cuzk_pool_threads of
     * the pool they run on. */
    /* a, b, c (n = 2^log_n each) from n_vars plain witness values. */
    size_t (*evaluate_scratch_bytes)(const cuzk_key *k);
    cuzk_status (*evaluate_with_scratch)(const cuzk_key *k, const cuzk_fr *w, cuzk_fr *a,
                                         cuzk_fr *b, cuzk_fr *c, void *scratch,
                                         size_t scratch_bytes, cuzk_pool *pool,
                                         cuzk_error *err);
    cuzk_status (*compute_h)(const cuzk_key *k, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                             cuzk_pool *pool, cuzk_error *err);
    size_t (*msms_scratch_bytes)(const cuzk_key *k, unsigned threads);
    cuzk_status (*msms_assemble_with_scratch)(cuzk_proof *out, const cuzk_key *k,
                                              const cuzk_fr *w, const cuzk_fr *h,
                                              const cuzk_fr *r, const cuzk_fr *s, void *scratch,
                                              size_t scratch_bytes, cuzk_pool *pool,
                                              cuzk_groth16_timing *t, cuzk_error *err);
    /* The proof from the five MSM results (P_g1 / P_g2 Jacobian points). */
    void (*assemble)(cuzk_proof *out, const cuzk_key *k, const void *msm_a,
                     const void *msm_b1, const void *msm_b2, const void *msm_c,
                     const void *msm_h, const cuzk_fr *r, const cuzk_fr *s);
    /* Σ w·B2 on the CPU into |out| (a P_g2), |w| the n_vars plain witness
     * values; for a key with a B density bitmap the values of its wires are
     * gathered into |gather| (n_b values) first.  The MSM works in
     * |scratch| of at least b2_msm_scratch_bytes (CUZK_EINVAL if NULL or
     * short). */
    size_t (*b2_msm_scratch_bytes)(const cuzk_key *k, unsigned threads);
    cuzk_status (*b2_msm_cpu)(const cuzk_key *k, const cuzk_fr *w, cuzk_fr *gather, void *out,
                              void *scratch, size_t scratch_bytes, cuzk_pool *pool);
    /* All steps with fresh blinding; |w| holds |n_w| aligned plain values. */
    size_t (*prove_scratch_bytes)(const cuzk_key *k, unsigned threads);
    cuzk_status (*prove)(const cuzk_key *k, const cuzk_fr *w, size_t n_w, void *scratch,
                         size_t scratch_bytes, cuzk_proof *out, cuzk_pool *pool,
                         cuzk_groth16_timing *t, cuzk_error *err);

    /* All steps but evaluate, from a, b, c (|m| rows each) and the witness,
     * all plain aligned values (groth16.h, P_groth16_prove_abc_with_scratch:
     * no coefficient list needed); |r|, |s| NULL: fresh blinding. */
    size_t (*prove_abc_scratch_bytes)(const cuzk_key *k, unsigned threads);
    cuzk_status (*prove_abc)(const cuzk_key *k, const cuzk_fr *w, size_t n_w, const cuzk_fr *a,
                             const cuzk_fr *b, const cuzk_fr *c, size_t m, const cuzk_fr *r,
                             const cuzk_fr *s, void *scratch, size_t scratch_bytes,
                             cuzk_proof *out, cuzk_pool *pool, cuzk_groth16_timing *t,
                             cuzk_error *err);

    /* ---- verification keys and verification ------------------------------ */
    cuzk_status (*vk_from_key)(const cuzk_key *k, cuzk_vk *vk, cuzk_error *err);
    /* IC copied and checked on the curve; on failure nothing is left owned. */
    cuzk_status (*vk_from_zkey)(cuzk_vk *vk, const cuzk_zkey *z, cuzk_error *err);
    void (*vk_free)(cuzk_vk *vk);
    size_t (*vk_n_public)(const cuzk_vk *vk);
    cuzk_status (*verify)(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                          const cuzk_proof *proof, cuzk_error *err);

    /* ---- the layers' own tables ------------------------------------------ */
    const cuzk_setup_table *setup; /* development setup (setup.h) */
    const cuzk_json_table *json;   /* snarkjs JSON (json.h) */

    /* ---- raw proof bytes (curve/encode.h) ------------------------------- */
    /* The curve's customary binary proof: zcash compressed points for
     * BLS12-381 (bellperson), Ethereum EIP-197 for BN254.  Returns
     * proof_raw_bytes. */
    size_t (*proof_encode_raw)(uint8_t *out, const cuzk_proof *p);
    /* Its inverse: |p| (curve set) from proof_raw_bytes bytes at |in|, every
     * point checked on the curve and in its subgroup; a failure names the
     * point and leaves |p| unusable (CUZK_EFORMAT, CUZK_ERANGE, ...). */
    cuzk_status (*proof_decode_raw)(cuzk_proof *p, const uint8_t *in, cuzk_error *err);

} cuzk_curve_impl;

/* The table of |c|; NULL for CUZK_CURVE_NONE or any value not a curve. */
const cuzk_curve_impl *cuzk_curve_impl_get(cuzk_curve c);

/* Every curve's table, in a fixed order; *n receives the count. */
const cuzk_curve_impl *const *cuzk_curve_impl_all(size_t *n);

#endif
