/*
 * INSECURE development setup: a Groth16 proving key for an .r1cs, made in
 * one process from toxic waste it knows (tau, alpha, beta, delta), for
 * tests and benchmarks only.  Anyone holding the toxic waste (or the seed)
 * can forge proofs; the CLI must say so whenever it makes such a key.
 *
 * The key holds exactly the points snarkjs's `groth16 setup` followed by a
 * contribution of delta would hold for the same toxic waste (docs/FILES.md,
 * "What the points are"), so snarkjs proves and verifies with it, and the
 * cuzk prover needs nothing special:
 *   domain n = next_pow2(nConstraints + nPublic + 1), w = ffjavascript's root
 *   L_j(tau) = (tau^n - 1)/n * w^j / (tau - w^j)        Lagrange basis
 *   u_s, v_s, w_s = sum over rows j of A[j][s], B[j][s], C[j][s] * L_j(tau),
 *   u_i += L_{nConstraints + i}(tau) for i = 0..nPublic (extra public rows)
 *   A[s] = u_s G1, B1[s] = v_s G1, B2[s] = v_s G2,
 *   IC[s] = (beta u_s + alpha v_s + w_s) G1                 s <= nPublic
 *   C[s]  = (beta u_s + alpha v_s + w_s) / delta G1         s >  nPublic
 *   H[i]  = L^(2n)_(2i+1)(tau) / delta G1   (2n-point domain, odd points)
 *   alpha1, beta1, delta1, beta2, delta2; gamma = 1 (gamma2 = G2 generator)
 * and the section-4 coefficient list: per constraint its A terms then its
 * B terms, then A[nConstraints + i][i] = 1.
 *
 * Scalar multiplications use fixed-base tables of G1 and G2 (signed
 * windows, up to 16 bits) and are spread over the caller's pool.  The table
 * lookups depend on the secret scalars, which is acceptable only because the
 * key is insecure by construction.
 *
 * Must not: print, or keep global state.  Thread safety: reentrant.
 */
#ifndef CUZK_GROTH16_SETUP_H
#define CUZK_GROTH16_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/prover/groth16.h"
#include "groth16/prover/key.h"
#include "groth16/formats/r1cs.h"
#include "util/status.h"
#include "util/threadpool.h"

/*
 * For each curve P in {bls12_381, bn254}:
 *
 * P_setup_toxic        the toxic waste (Montgomery scalars, all non-zero)
 * P_dev_key            a generated key: |pk| is the prover's view of the
 *                      arrays below, which the key owns in one block
 *                      (free with P_dev_key_free, also after a failed
 *                      setup).  A, B1 and B2 are compact (groth16.h,
 *                      "Density"): a wire's bit is set in a_density iff a
 *                      coefficient of A names it (the extra public rows
 *                      name wires 0..nPublic), in b_density iff one of B
 *                      does; a bitmap with every bit set is left NULL.
 *
 * P_setup_toxic_draw(t, seed, err)
 *     Draw tau, alpha, beta, delta: from the OS CSPRNG when |seed| is NULL,
 *     else deterministically from *seed (reproducible tests).  CUZK_EIO if
 *     the OS has no randomness.
 * P_setup_dev(key, r1cs, toxic, pool, err)
 *     Compute the key for |r1cs| (of curve P, well-formed as the reader and
 *     the generator make them; its arrays are only read).  Returns
 *     CUZK_OK; CUZK_ECURVE; CUZK_EINVAL (nVars <= nPublic, tau in the 2n
 *     domain, zero alpha/beta/delta); CUZK_EUNSUPPORTED (domain too large:
 *     2n must not exceed the field's 2-adicity, or more than 2^32 - 1
 *     coefficients); CUZK_ENOMEM.  |pool| may be NULL (serial).
 * P_setup_timing(key, r1cs, seed, pool, err)
 *     A key of the right shape (sizes, density bitmaps, coefficients) whose
 *     points are a few thousand random points repeated, made in seconds at
 *     any size.  Proofs with it do NOT verify: for benchmarks of the prover
 *     only.
 * P_dev_key_write_mem(key, out, size, err) / P_dev_key_write_file(key, path, err)
 *     Serialize as a .zkey (via the zkey writer; section 10 has a zero
 *     circuit hash and no contributions), A, B1 and B2 expanded to nVars
 *     points with infinity for the wires a bitmap leaves out, as snarkjs
 *     writes them.  write_mem returns a malloc'd buffer.
 * P_setup_lagrange(out, count, log_N, first, step, tau, scale, pool, err)
 *     out[i] = scale * L^(N)_(first + step i)(tau), i < count, for the
 *     N = 2^log_N point domain of ffjavascript's roots: the building block
 *     of the setup, exposed for tests.  CUZK_EINVAL if tau^N = 1 (tau in
 *     the domain), CUZK_ERANGE if log_N exceeds the 2-adicity, CUZK_ENOMEM.
 * P_setup_g1_mul_gen(out, k, n, w, pool, err) / P_setup_g2_mul_gen(...)
 *     out[i] = [k[i]] G (the standard generator of G1 resp. G2), affine, by
 *     the fixed-base method the setup uses, with |w|-bit signed windows
 *     (2..16; 0 picks the cheapest for n).  Variable time.  CUZK_EINVAL
 *     for a bad |w|, CUZK_ENOMEM.
 */
#define CUZK_SETUP_DECLARE(P)                                                 \
    typedef struct P##_setup_toxic {                                          \
        P##_fr tau, alpha, beta, delta;                                       \
    } P##_setup_toxic;                                                        \
    typedef struct P##_dev_key {                                              \
        P##_groth16_pk pk;                                                    \
        P##_g1_affine *ic, *a, *b1, *c, *h;                                   \
        P##_g2_affine *b2;                                                    \
        cuzk_coef *coefs;                                                     \
        uint64_t *a_density, *b_density; /* NULL when every wire is in */    \
        void *mem;        /* one 64-byte aligned block holding all of the */ \
        size_t mem_bytes; /* arrays above (a cuzk_key's mem can take it) */  \
    } P##_dev_key;                                                            \
    cuzk_status P##_setup_toxic_draw(P##_setup_toxic *t,                      \
                                     const uint64_t *seed, cuzk_error *err);  \
    cuzk_status P##_setup_dev(P##_dev_key *key, const cuzk_r1cs *r1cs,        \
                              const P##_setup_toxic *toxic, cuzk_pool *pool,  \
                              cuzk_error *err);                               \
    cuzk_status P##_setup_timing(P##_dev_key *key, const cuzk_r1cs *r1cs,     \
                                 uint64_t seed, cuzk_pool *pool,              \
                                 cuzk_error *err);                            \
    void P##_dev_key_free(P##_dev_key *key);                                  \
    cuzk_status P##_dev_key_write_mem(const P##_dev_key *key, uint8_t **out,  \
                                      size_t *size, cuzk_error *err);         \
    cuzk_status P##_dev_key_write_file(const P##_dev_key *key,                \
                                       const char *path, cuzk_error *err);    \
    cuzk_status P##_setup_lagrange(P##_fr *out, size_t count, unsigned log_N, \
                                   uint64_t first, uint64_t step,             \
                                   const P##_fr *tau, const P##_fr *scale,    \
                                   cuzk_pool *pool, cuzk_error *err);        \
    cuzk_status P##_setup_g1_mul_gen(P##_g1_affine *out, const P##_fr *k,     \
                                     size_t n, unsigned w, cuzk_pool *pool,   \
                                     cuzk_error *err);                        \
    cuzk_status P##_setup_g2_mul_gen(P##_g2_affine *out, const P##_fr *k,     \
                                     size_t n, unsigned w, cuzk_pool *pool,   \
                                     cuzk_error *err);

CUZK_SETUP_DECLARE(bls12_381)
CUZK_SETUP_DECLARE(bn254)

/*
 * This layer's table, one per curve (setup.c), which the curve table
 * points to (curve_impl.h, ci->setup), looked up by cuzk_setup_table_get:
 *   dev          the key of |r| with fresh toxic waste (or from |seed|):
 *                to |path|, or (path NULL) into a malloc'd *out of *size
 *                bytes;
 *   timing_write a timing key of |r|'s shape (proofs do not verify) to
 *                |path|;
 *   key_generate a key of |r| made in memory into |out| (free with
 *                cuzk_key_free): a timing key, or an INSECURE development
 *                key from |seed|.
 */
typedef struct cuzk_setup_table {
    cuzk_status (*dev)(const cuzk_r1cs *r, const uint64_t *seed, cuzk_pool *pool,
                       const char *path, uint8_t **out, size_t *size, cuzk_error *err);
    cuzk_status (*timing_write)(const cuzk_r1cs *r, uint64_t seed, cuzk_pool *pool,
                                const char *path, cuzk_error *err);
    cuzk_status (*key_generate)(cuzk_key *out, const cuzk_r1cs *r, uint64_t seed, int timing,
                                cuzk_pool *pool, cuzk_error *err);
} cuzk_setup_table;
extern const cuzk_setup_table bls12_381_setup_table, bn254_setup_table;
/* The table of |c|; NULL for CUZK_CURVE_NONE or any value not a curve. */
const cuzk_setup_table *cuzk_setup_table_get(cuzk_curve c);

/*
 * Curve-generic entry points (the curve is the r1cs's).  |seed| NULL: toxic
 * waste from the OS CSPRNG; else reproducible from *seed.
 *
 * cuzk_setup_dev_zkey_mem   the .zkey bytes for |r1cs| in a malloc'd buffer
 * cuzk_setup_dev_write      read |r1cs_path|, write |zkey_path| (atomically)
 * Returns what the reader, P_setup_dev and the writer return.
 */
cuzk_status cuzk_setup_dev_zkey_mem(const cuzk_r1cs *r1cs, const uint64_t *seed,
                                    cuzk_pool *pool, uint8_t **out,
                                    size_t *size, cuzk_error *err);
cuzk_status cuzk_setup_dev_write(const char *r1cs_path, const char *zkey_path,
                                 const uint64_t *seed, cuzk_pool *pool,
                                 cuzk_error *err);
/* A timing key (P_setup_timing: the right shape, repeated random points,
 * proofs that do NOT verify) for |r1cs_path| written as |zkey_path|: for
 * benchmarks at sizes where a development setup would take too long. */
cuzk_status cuzk_setup_timing_write(const char *r1cs_path, const char *zkey_path, uint64_t seed,
                                    cuzk_pool *pool, cuzk_error *err);

#endif
