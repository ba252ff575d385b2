/*
 * One table per curve: everything the layers above groth16/ need to know
 * about a curve, so that they never branch on which curve it is.
 *
 * Design: the arithmetic layers (field/, curve/, pairing/, ntt/, msm/, the
 * CUDA kernels) are written once as templates and stamped out per curve
 * with typed names (bn254_fr_mul, bls12_381_groth16_verify, ...).  Above
 * them, files, keys, proofs and witnesses carry a cuzk_curve beside
 * curve-agnostic storage (cuzk_fr, the unions of key.h and vk_proof.h).
 * Each layer of groth16/ keeps its own per-curve table on those types:
 * the facts at its bottom (curve_facts.h: names, sizes, the scalar field,
 * point checks, raw proofs), the JSON formats (formats/json.h), the
 * prover (prover/key.h, cuzk_prover_table) and the development setup
 * (devtools/setup.h).  This table is their sum, on top of them all: the
 * facts and the prover's entries by name (ci->n8q, ci->compute_h), the
 * other two by pointer (ci->json, ci->setup).  Callers look the curve up
 * once (cuzk_curve_impl_get) and call through the entries.  Adding a curve
 * adds one instantiation per layer and nothing here nor at the call sites
 * (docs/INTERNALS.md, "Adding a curve").
 *
 * Why a table and not branches: before it, about eighty "if BN254 ... else
 * ..." sat in the readers, writers, prover front ends and the engine, each
 * a place to forget when a curve is added, and each silently falling into
 * the other curve's code for a value it did not expect.  An unknown curve
 * now has no table (NULL), which every caller turns into CUZK_ECURVE.
 *
 * What this file must not do: be called from groth16/ itself.  It sits
 * above every layer it points to; a layer that needs another curve's
 * entries uses its own table or one below it (docs/INTERNALS.md,
 * "groth16/'s layers"; tests/test_groth16_layers.sh fails on a call back
 * up).  Every entry is set for every curve (tests/test_curve_impl.c).
 *
 * Thread safety: each table is built once, on the first lookup, and
 * constant from then on; every entry is as reentrant as the per-curve
 * function it calls.
 */
#ifndef CUZK_GROTH16_CURVE_IMPL_H
#define CUZK_GROTH16_CURVE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_facts.h"
#include "groth16/curve_id.h"
#include "groth16/devtools/setup.h"
#include "groth16/formats/json.h"
#include "groth16/formats/r1cs.h"
#include "groth16/prover/key.h"
#include "util/status.h"
#include "util/threadpool.h"

typedef struct cuzk_curve_impl {
    /* The facts (curve_facts.h), whole (ci->facts) and member by member
     * (ci->name, ci->fr_mul): the two views share their storage. */
    union {
        cuzk_curve_facts facts;
        struct {
            CUZK_CURVE_FACTS_MEMBERS
        };
    };
    /* The prover's entries (key.h), likewise (ci->prover, ci->compute_h). */
    union {
        cuzk_prover_table prover;
        struct {
            CUZK_PROVER_TABLE_MEMBERS
        };
    };
    const cuzk_setup_table *setup; /* development setup (setup.h) */
    const cuzk_json_table *json;   /* snarkjs JSON (json.h) */
} cuzk_curve_impl;

/* The table of |c|; NULL for CUZK_CURVE_NONE or any value not a curve. */
const cuzk_curve_impl *cuzk_curve_impl_get(cuzk_curve c);

/* Every curve's table, in the order of cuzk_curve_facts_all; *n receives
 * the count. */
const cuzk_curve_impl *const *cuzk_curve_impl_all(size_t *n);

#endif
