/*
 * Groth16 proving and verification on the CPU, for BLS12-381 and BN254,
 * compatible with snarkjs keys (docs/FILES.md, "Prover algorithm").
 *
 * The prover is written as steps so the engine can schedule each where it
 * belongs (docs/ENGINE.md):
 *   1. evaluate   a = A·w, b = B·w from the key's coefficient list, c = a∘b
 *   2. h          three inverse NTTs, three coset NTTs on the odd coset of the
 *                 2n-th roots of unity, h = a'b' - c' (no division: snarkjs
 *                 keys fold Z into their H points)
 *   3. msms       Σ w·A, Σ w·B1, Σ w·B2 (G2), Σ w·C (private signals),
 *                 Σ h·H
 *   4. assemble   add α, β, δ terms with the blinding scalars r, s
 * P_groth16_prove_with_scratch runs all four; P_groth16_prove_abc_with_scratch runs 2-4
 * from a, b, c evaluated elsewhere (a synthesis without an R1CS, groth16/
 * abc.h), so it needs no coefficient list.  For each curve P in
 * {bls12_381, bn254}:
 *
 *   P_groth16_pk     a proving key seen in place (pointers into a mapped
 *                    .zkey or a native key; nothing is copied)
 *
 * Density: a wire whose column of A (resp. B) is zero contributes nothing
 * to Σ w·A (Σ w·B1, Σ w·B2), so a key may leave its point out.  A key with
 * a_density set holds A's points only for the wires whose bit is set, in
 * wire order (n_a of them); b_density does the same for B1 and B2 at once.
 * A wire with its bit set may still have the point at infinity.  The MSM
 * step gathers the witness values of the set bits into a compact vector
 * (in its scratch) and multiplies the compact points; the other steps do
 * not look at the bitmaps.
 *   P_groth16_vk     a verification key, and
 *   P_groth16_proof  a proof: plain data, defined below the file formats
 *                    (groth16/vk_proof.h), which read and write them too
 *
 * Witness values are the plain (not Montgomery) integers of the .wtns file,
 * as P_fr limbs; public inputs for the verifier are Montgomery P_fr.
 * Thread safety: keys are read only; any number of proofs may run at once
 * on the same key.  Work is spread over |pool| (NULL: serial).
 *
 * Working memory is the caller's, as blst's Pippenger takes it: each step
 * that needs some has P_groth16_*_scratch_bytes(pk[, threads]) and a
 * *_with_scratch form taking a buffer of at least that size (any
 * alignment; one proof at a time per buffer), so a prover that sizes its
 * scratch once per key allocates nothing per proof (the engine's devices
 * take theirs from its charged buffer pool, docs/ENGINE.md).  There is no
 * form that allocates: a NULL or short buffer is CUZK_EINVAL naming the
 * step and the bytes it needs.  Callers outside the engine size and
 * allocate the buffer themselves from these figures (cuzk_abc_from_witness
 * does; the tests' helpers in tests/cpu_prove.h).  |threads| is
 * cuzk_pool_threads of the pool the step will run on.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve.h"
#include "groth16/formats/zkey.h"
#include "groth16/vk_proof.h"
#include "util/status.h"
#include "util/threadpool.h"

/* One coefficient of the A or B matrix (value in Montgomery form): the
 * decoded form of a .zkey section-4 entry. */
typedef cuzk_zkey_coef cuzk_coef;

/* Per-step wall time of one proof, nanoseconds. */
typedef struct cuzk_groth16_timing {
    uint64_t evaluate_ns, h_ns, msm_a_ns, msm_b1_ns, msm_b2_ns, msm_c_ns,
        msm_h_ns, assemble_ns, total_ns;
} cuzk_groth16_timing;

#define CUZK_GROTH16_DECLARE(P)                                               \
    typedef struct P##_groth16_pk {                                           \
        uint32_t n_vars;      /* wires, incl. the constant 1 */               \
        uint32_t n_public;    /* public outputs + public inputs */            \
        uint32_t log_n;       /* domain size n = 2^log_n */                   \
        P##_g1_affine alpha1, beta1, delta1;                                  \
        P##_g2_affine beta2, gamma2, delta2;                                  \
        const P##_g1_affine *ic;  /* n_public + 1 */                          \
        const P##_g1_affine *a;   /* n_a */                                   \
        const P##_g1_affine *b1;  /* n_b */                                   \
        const P##_g2_affine *b2;  /* n_b */                                   \
        const uint64_t *a_density; /* NULL: a has n_vars points; else n_vars  \
                                      bits (bit i of word i/64 = wire i), a   \
                                      has n_a points, one per set bit, in     \
                                      wire order */                           \
        const uint64_t *b_density; /* the same for b1 and b2 (they share one  \
                                      bitmap) */                              \
        uint32_t n_a, n_b;         /* points in a and in b1/b2 (n_vars when   \
                                      the bitmap is NULL) */                  \
        const P##_g1_affine *c;   /* n_vars - n_public - 1 */                 \
        const P##_g1_affine *h;   /* n */                                     \
        const cuzk_coef *coefs;   /* n_coefs entries of A and B */            \
        size_t n_coefs;                                                       \
    } P##_groth16_pk;                                                         \
    /* Step 1: a, b, c (n elements each, Montgomery) from the witness        \
     * (n_vars plain values), in the caller's |scratch| of |scratch_bytes|  \
     * >= _evaluate_scratch_bytes (the witness in Montgomery form).         \
     * CUZK_ERANGE if a witness value >= r. */                              \
    size_t P##_groth16_evaluate_scratch_bytes(const P##_groth16_pk *pk);      \
    cuzk_status P##_groth16_evaluate_with_scratch(                            \
        const P##_groth16_pk *pk, const P##_fr *witness, P##_fr *a,           \
        P##_fr *b, P##_fr *c, void *scratch, size_t scratch_bytes,            \
        cuzk_pool *pool, cuzk_error *err);                                    \
    /* Step 2: h (n elements, Montgomery) into |a|; b and c are clobbered. */ \
    cuzk_status P##_groth16_compute_h(const P##_groth16_pk *pk, P##_fr *a,    \
                                      P##_fr *b, P##_fr *c, cuzk_pool *pool,  \
                                      cuzk_error *err);                       \
    /* Steps 3 and 4 from the witness and h; |r| and |s| are the blinding    \
     * scalars (Montgomery; zero gives a deterministic valid proof), in the \
     * caller's |scratch| of |scratch_bytes| >= _msms_scratch_bytes (the    \
     * MSMs' buckets, one MSM at a time, and for a key with a density       \
     * bitmap the compact witness of its set bits). */                      \
    size_t P##_groth16_msms_scratch_bytes(const P##_groth16_pk *pk,           \
                                          unsigned threads);                  \
    cuzk_status P##_groth16_msms_assemble_with_scratch(                       \
        P##_groth16_proof *proof, const P##_groth16_pk *pk,                   \
        const P##_fr *witness, const P##_fr *h, const P##_fr *r,              \
        const P##_fr *s, void *scratch, size_t scratch_bytes,                 \
        cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err);            \
    /* Step 4 alone, from the five MSM results (Jacobian): Σ w·A, Σ w·B1,   \
     * Σ w·B2, Σ w·C over the private signals, Σ h·H (the GPU prover). */    \
    void P##_groth16_assemble(P##_groth16_proof *proof,                       \
                              const P##_groth16_pk *pk, const P##_g1 *msm_a,  \
                              const P##_g1 *msm_b1, const P##_g2 *msm_b2,     \
                              const P##_g1 *msm_c, const P##_g1 *msm_h,       \
                              const P##_fr *r, const P##_fr *s);              \
    /* All steps, with fresh r and s from the OS CSPRNG (or the given ones   \
     * when |r| and |s| are non-NULL), in the caller's |scratch| of         \
     * |scratch_bytes| >= _prove_scratch_bytes: a, b, c (3n values, h in a) \
     * and, after them, the larger of evaluate's and the MSMs' scratch.     \
     * |t| may be NULL. */                                                   \
    size_t P##_groth16_prove_scratch_bytes(const P##_groth16_pk *pk,          \
                                           unsigned threads);                 \
    cuzk_status P##_groth16_prove_with_scratch(                               \
        P##_groth16_proof *proof, const P##_groth16_pk *pk,                   \
        const P##_fr *witness, size_t n_witness, const P##_fr *r,             \
        const P##_fr *s, void *scratch, size_t scratch_bytes,                 \
        cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err);            \
    /* All steps but the first from a, b, c as a synthesis without an R1CS \
     * hands them over: |m| <= n rows each (rows m..n-1 are zero), plain    \
     * values like the witness; converted to Montgomery and zero-padded in  \
     * |scratch| of |scratch_bytes| >= _prove_abc_scratch_bytes.  The key's \
     * coefficient list is not read (n_coefs                                \
     * may be 0).  CUZK_EMISMATCH (witness length, m > n), CUZK_ERANGE      \
     * naming the first value >= r ("b[17]").  |r|, |s| NULL: fresh.  The   \
     * a, b, c must come from a witness that satisfies the constraints:    \
     * nothing here can tell, the proof just does not verify. */            \
    size_t P##_groth16_prove_abc_scratch_bytes(const P##_groth16_pk *pk,      \
                                               unsigned threads);             \
    cuzk_status P##_groth16_prove_abc_with_scratch(                           \
        P##_groth16_proof *proof, const P##_groth16_pk *pk,                   \
        const P##_fr *witness, size_t n_witness, const P##_fr *a,             \
        const P##_fr *b, const P##_fr *c, size_t m, const P##_fr *r,          \
        const P##_fr *s, void *scratch, size_t scratch_bytes,                 \
        cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err);            \
    /* Verify one proof. CUZK_OK if valid; CUZK_EVERIFY (pairing check      \
     * failed), CUZK_ENOTONCURVE / CUZK_ENOTINSUBGROUP (proof points),      \
     * CUZK_EMISMATCH (wrong number of public inputs) with a message. */     \
    cuzk_status P##_groth16_verify(const P##_groth16_vk *vk,                  \
                                   const P##_fr *pub, size_t n_pub,           \
                                   const P##_groth16_proof *proof,            \
                                   cuzk_error *err);                          \
    /* Verify |n| proofs for one key with one multi-pairing (random linear   \
     * combination, 128-bit weights).  CUZK_OK iff all are valid; on         \
     * CUZK_EVERIFY at least one is invalid (verify each to find which).    \
     * pub holds n * vk->n_public inputs, proof by proof. */                  \
    cuzk_status P##_groth16_verify_batch(const P##_groth16_vk *vk,            \
                                         const P##_fr *pub,                   \
                                         const P##_groth16_proof *proofs,     \
                                         size_t n, cuzk_error *err);          \
    /* The verification key of a proving key (copies IC). */                 \
    cuzk_status P##_groth16_vk_from_pk(P##_groth16_vk *vk,                    \
                                       const P##_groth16_pk *pk,              \
                                       cuzk_error *err);                      \
    void P##_groth16_vk_free(P##_groth16_vk *vk);

CUZK_GROTH16_DECLARE(bls12_381)
CUZK_GROTH16_DECLARE(bn254)

/* Fill |out| with uniformly random scalars below r from the OS CSPRNG
 * (getrandom).  CUZK_EIO if the OS cannot supply randomness. */
cuzk_status bls12_381_fr_random(bls12_381_fr *out, cuzk_error *err);
cuzk_status bn254_fr_random(bn254_fr *out, cuzk_error *err);

#endif
