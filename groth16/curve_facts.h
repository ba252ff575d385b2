/*
 * The facts of each curve that every layer of groth16/ may need: its
 * names, sizes and primes, its scalar-field operations, its point checks
 * and its raw proof bytes.  The bottom of groth16/ (docs/INTERNALS.md,
 * "groth16/'s layers"): the file formats, the provers and the tools read
 * these facts, and the curve table on top (curve_impl.h) holds them too,
 * by name, beside the entry points it adds.
 *
 * Why apart from the curve table: the table's entry points dispatch to the
 * prover and the tools, which read files; a reader that looked its curve
 * up in that table called back above itself, and every layer was one knot
 * with the table.  The facts call only the arithmetic (field/, curve/), so
 * every layer may call them.
 *
 * What this file must not do: grow arithmetic (the entries adapt the
 * typed per-curve functions to the curve-agnostic types) or name anything
 * of formats/, prover/ or devtools/.  Every entry is set for every curve
 * (tests/test_curve_impl.c checks).
 *
 * Thread safety: the tables are constant; every entry is as reentrant as
 * the per-curve function it calls.
 */
#ifndef CUZK_GROTH16_CURVE_FACTS_H
#define CUZK_GROTH16_CURVE_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_id.h"
#include "groth16/vk_proof.h"
#include "util/status.h"

/* Bytes of the largest affine point of any curve (BLS12-381 G2: 24 limbs):
 * the size of the zkey reader's scratch point.  Each table checks its own
 * points against it. */
#define CUZK_AFFINE_MAX_BYTES 192

/* The members, listed once: cuzk_curve_facts is made of them, and the
 * curve table (curve_impl.h) holds them by the same names. */
#define CUZK_CURVE_FACTS_MEMBERS                                                     \
    /* ---- identity --------------------------------------------------------- */  \
    cuzk_curve id;                                                                   \
    const char *name;           /* the name snarkjs writes: "bn128", ... */         \
    const char *const *aliases; /* normalised names (lower case, letters and        \
                                   digits only) that select this curve,             \
                                   NULL-terminated */                               \
    /* ---- sizes ------------------------------------------------------------ */  \
    uint32_t n8q, n8r;           /* file bytes of a base / scalar element */        \
    uint32_t g1_bytes, g2_bytes; /* file bytes of an affine G1 / G2 point */        \
    unsigned two_adicity;        /* log2 of the largest 2-power subgroup */         \
    const uint64_t *r_limbs;     /* scalar field order, 4 LE limbs */               \
    const uint64_t *q_limbs;     /* base field order, q_n_limbs LE limbs */         \
    unsigned q_n_limbs;                                                              \
    size_t g1_jacobian_bytes;    /* sizeof P_g1, P_g2: MSM results */               \
    size_t g2_jacobian_bytes;                                                        \
    size_t proof_raw_bytes;      /* bytes proof_encode_raw writes */                \
    /* ---- scalar field (Montgomery cuzk_fr unless said otherwise) ---------- */  \
    /* 32 LE bytes of a plain value -> Montgomery; CUZK_ERANGE if >= r. */          \
    cuzk_status (*fr_from_le)(cuzk_fr * r, const uint8_t in[32]);                    \
    void (*fr_to_le)(uint8_t out[32], const cuzk_fr *a);                             \
    /* One Montgomery reduction of the limbs of |a| (a R^-1), and back. */          \
    void (*fr_from_mont)(uint64_t out[4], const cuzk_fr *a);                         \
    void (*fr_to_mont)(cuzk_fr * r, const uint64_t in[4]);                           \
    void (*fr_mul)(cuzk_fr * r, const cuzk_fr *a, const cuzk_fr *b);                 \
    void (*fr_add)(cuzk_fr * r, const cuzk_fr *a, const cuzk_fr *b);                 \
    void (*fr_sub)(cuzk_fr * r, const cuzk_fr *a, const cuzk_fr *b);                 \
    void (*fr_set_one)(cuzk_fr * r);                                                 \
    /* A primitive 2^log_n-th root of unity; CUZK_ERANGE above 2-adicity. */        \
    cuzk_status (*fr_root_of_unity)(cuzk_fr * r, unsigned log_n);                   \
    /* ---- affine points (curve_types.h structs, file coordinate order) ---- */  \
    int (*g1_on_curve)(const void *p);                                               \
    int (*g1_in_subgroup)(const void *p);                                            \
    int (*g2_on_curve)(const void *p);                                               \
    int (*g2_in_subgroup)(const void *p);                                            \
    /* ---- raw proof bytes (curve/encode.h) -------------------------------- */  \
    /* The curve's customary binary proof: zcash compressed points for              \
     * BLS12-381 (bellperson), Ethereum EIP-197 for BN254.  Returns                 \
     * proof_raw_bytes. */                                                          \
    size_t (*proof_encode_raw)(uint8_t * out, const cuzk_proof *p);                  \
    /* Its inverse: |p| (curve set) from proof_raw_bytes bytes at |in|, every       \
     * point checked on the curve and in its subgroup; a failure names the          \
     * point and leaves |p| unusable (CUZK_EFORMAT, CUZK_ERANGE, ...). */           \
    cuzk_status (*proof_decode_raw)(cuzk_proof * p, const uint8_t *in, cuzk_error *err);

typedef struct cuzk_curve_facts {
    CUZK_CURVE_FACTS_MEMBERS
} cuzk_curve_facts;

/* The facts of |c|; NULL for CUZK_CURVE_NONE or any value not a curve. */
const cuzk_curve_facts *cuzk_curve_facts_get(cuzk_curve c);

/* Every curve's facts, in a fixed order (the order names and primes are
 * tried in); *n receives the count. */
const cuzk_curve_facts *const *cuzk_curve_facts_all(size_t *n);

#endif
