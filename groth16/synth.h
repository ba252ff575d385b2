/*
 * Synthetic R1CS circuits with a satisfying witness, for benchmarks and
 * tests at any size (2^10 .. 2^26 constraints) without circom.
 *
 * Shape, chosen to look like what circom emits for real circuits:
 *   wire 0           the constant 1
 *   wires 1..        n_pub_out public outputs, then n_pub_in public inputs
 *                    (random full-size values), no private inputs
 *   internal wires   one new wire z per constraint, in constraint order:
 *     boolean (probability bool_share)   z in {0, 1}
 *         A = {z: 1}, B = {0: -1, z: 1}, C = {}          z (z - 1) = 0
 *     product (otherwise)                z = <A, w> <B, w>
 *         A, B: min_terms..max_terms distinct earlier wires (wire 0 allowed)
 *         with random coefficients, half small (+-1 .. +-2^16), half
 *         full-size; C = {z: 1}
 *   last n_pub_out constraints   out_i * 1 = internal wire (last - i)
 *                    A = {out_i: 1}, B = {0: 1}, C = {wire: 1}
 * Terms of every linear combination are sorted by wire id (as circom writes
 * them).  Early constraints that have fewer earlier wires than min_terms
 * use all there are.  Output is a pure function of the parameters: the same
 * seed gives the same bytes on every host.
 *
 * Must not: print, or keep global state.  Memory: the in-memory variant
 * holds the whole system (about 150 bytes per constraint at the defaults)
 * plus the witness; cuzk_synth_write streams constraints to disk and keeps
 * only the witness (32 bytes per wire), so it reaches 2^26 constraints.
 *
 * Thread safety: the functions are reentrant; no shared state.
 */
#ifndef CUZK_GROTH16_SYNTH_H
#define CUZK_GROTH16_SYNTH_H

#include <stdint.h>

#include "groth16/curve_id.h"
#include "groth16/r1cs.h"
#include "util/status.h"

/* Largest number of terms in one generated linear combination. */
#define CUZK_SYNTH_MAX_TERMS 16

typedef struct cuzk_synth_params {
    cuzk_curve curve;
    /* Size: if |log2_domain| != 0, nConstraints = 2^log2_domain - nPublic - 1,
     * which makes the Groth16 domain exactly 2^log2_domain; otherwise
     * |n_constraints| is used as given. */
    uint32_t n_constraints;
    unsigned log2_domain;
    uint32_t n_pub_out;   /* default 1 */
    uint32_t n_pub_in;    /* default 1 */
    double bool_share;    /* share of boolean wires, 0..1; default 0.8 */
    unsigned min_terms;   /* terms per A/B combination of a product, */
    unsigned max_terms;   /* 1 <= min <= max <= CUZK_SYNTH_MAX_TERMS; 2..3 */
    uint64_t seed;        /* default 1 */
} cuzk_synth_params;

/* Fill |p| with the defaults above for |curve| (log2_domain 10, seed 1). */
void cuzk_synth_params_default(cuzk_synth_params *p, cuzk_curve curve);

/*
 * Fill |p| with a named profile: "default" (the defaults above), "porep"
 * (a Filecoin PoRep partition: BLS12-381, 2^27, 90% 0/1 wires, about 90
 * public inputs) or "snap" (a SnapDeals partition).  Keeps nothing of |p|
 * but its curve for "default".  CUZK_EINVAL for another name.  The
 * profiles' numbers and where they come from: docs/FILES.md.
 */
cuzk_status cuzk_synth_params_profile(cuzk_synth_params *p, const char *name, cuzk_error *err);

/*
 * Number of constraints |p| asks for (resolving log2_domain), or 0 with
 * |err| set (CUZK_EINVAL) if the parameters are inconsistent: unknown
 * curve, bool_share outside [0, 1], bad term bounds, fewer constraints
 * than n_pub_out + 1, or more wires than 2^31.
 */
uint32_t cuzk_synth_n_constraints(const cuzk_synth_params *p, cuzk_error *err);

/*
 * Generate the circuit in memory.
 * Returns: CUZK_OK; CUZK_EINVAL (parameters, see above); CUZK_ENOMEM.
 * Out: |out| a complete cuzk_r1cs (free with cuzk_r1cs_free; zeroed on
 *   failure); |*witness| malloc'd, n_wires values in Montgomery form of the
 *   curve's Fr, satisfying every constraint (free() it; NULL on failure).
 *   |witness| may be NULL when only the system is wanted.
 */
cuzk_status cuzk_synth_circuit(const cuzk_synth_params *p, cuzk_r1cs *out,
                               cuzk_fr **witness, cuzk_error *err);

/*
 * Generate the same circuit and write it as an .r1cs (streamed, byte for
 * byte what cuzk_r1cs_write_file would write for cuzk_synth_circuit's
 * output) and, if |wtns_path| is not NULL, its witness as a .wtns.  Each
 * file is written under a temporary name and renamed when complete.
 * Returns: CUZK_OK; CUZK_EINVAL; CUZK_ENOMEM; CUZK_EIO (with the path).
 */
cuzk_status cuzk_synth_write(const char *r1cs_path, const char *wtns_path,
                             const cuzk_synth_params *p, cuzk_error *err);

#endif
