/*
 * The tests' whole-proof front ends on the CPU prover (tests/cpu_prove.c),
 * outside the library: production proves through the engine, whose
 * devices take the prover's scratch from the charged buffer pool.  Each
 * helper sizes the scratch with the prover's own figure (groth16.h,
 * *_scratch_bytes), allocates it, proves and frees it, which is what a
 * one-off proof in a test wants.
 *
 *   tu_key_prove   a .wtns witness with |k| (checked: same curve, same
 *                  length, values < r; CUZK_EUNSUPPORTED for a key
 *                  without coefficients), fresh blinding.
 *   tu_abc_prove   an a, b, c image (groth16/formats/abc.h) with |k|, checked
 *                  against the key first; |r|, |s| NULL: fresh blinding.
 *   TU_GROTH16_PROVE_DEFINE(P) defines P_tu_groth16_prove, the typed
 *                  P_groth16_prove_with_scratch with its scratch allocated
 *                  here (|r|, |s| NULL: fresh).
 *
 * CUZK_ENOMEM when the scratch cannot be allocated; |t| may be NULL.
 */
#ifndef CUZK_TESTS_CPU_PROVE_H
#define CUZK_TESTS_CPU_PROVE_H

#include <stdlib.h>

#include "groth16/formats/abc.h"
#include "groth16/prover/groth16.h"
#include "groth16/prover/key.h"
#include "groth16/formats/wtns.h"

cuzk_status tu_key_prove(const cuzk_key *k, const cuzk_wtns *w, cuzk_proof *out,
                         cuzk_pool *pool, cuzk_groth16_timing *t, cuzk_error *err);
cuzk_status tu_abc_prove(const cuzk_key *k, const cuzk_abc *x, const cuzk_fr *r,
                         const cuzk_fr *s, cuzk_proof *out, cuzk_pool *pool,
                         cuzk_groth16_timing *t, cuzk_error *err);

#define TU_GROTH16_PROVE_DEFINE(P)                                                              \
    static inline cuzk_status P##_tu_groth16_prove(                                             \
        P##_groth16_proof *proof, const P##_groth16_pk *pk, const P##_fr *witness, size_t n,    \
        const P##_fr *r, const P##_fr *s, cuzk_pool *pool, cuzk_groth16_timing *t,              \
        cuzk_error *err) {                                                                      \
        size_t bytes = P##_groth16_prove_scratch_bytes(pk, cuzk_pool_threads(pool));            \
        void *scratch = malloc(bytes);                                                          \
        if (!scratch)                                                                           \
            return cuzk_fail(err, CUZK_ENOMEM, "no memory for %zu bytes of prover scratch",     \
                             bytes);                                                            \
        cuzk_status st = P##_groth16_prove_with_scratch(proof, pk, witness, n, r, s, scratch,   \
                                                        bytes, pool, t, err);                   \
        free(scratch);                                                                          \
        return st;                                                                              \
    }

#endif
