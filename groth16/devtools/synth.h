/*
 * Synthetic R1CS circuits with a satisfying witness, for benchmarks and
 * tests at any size (2^10 .. 2^26 constraints) without circom.
 *
 * Shape, chosen to look like what circom emits for real circuits:
 *   wire 0           the constant 1
 *   wires 1..        n_pub_out public outputs, then n_pub_in public inputs
 *                    (random full-size values), no private inputs
 *   internal wires   one new wire z per constraint, in constraint order:
 *     boolean (probability bool_share)   z in {0, 1}, either
 *       a gate (probability gate_share, default 0) of two earlier 0/1
 *       wires x != y, x one that may be read in A, y in B:
 *         XOR  A = {x: 2}, B = {y: 1}, C = {x: 1, y: 1, z: -1}  (sorted)
 *         AND  A = {x: 1}, B = {y: 1}, C = {z: 1}
 *       or (otherwise, or when 64 draws found no such x or y) a fresh bit
 *         A = {z: 1}, B = {0: -1, z: 1}, C = {}          z (z - 1) = 0
 *     product (otherwise)                z = <A, w> <B, w>
 *         A, B: min_terms..max_terms distinct earlier wires (wire 0 allowed)
 *         with random coefficients, half small (+-1 .. +-2^16), half
 *         full-size; C = {z: 1}.  A's terms only of wires that may be read
 *         in A, B's of those that may be read in B (a_share, b_share of
 *         the wires, default all); after 64 ineligible draws a combination
 *         keeps the terms it has (the constant wire if none)
 *   last n_pub_out constraints   out_i * 1 = internal wire (last - i)
 *                    A = {out_i: 1}, B = {0: 1}, C = {wire: 1}
 * Terms of every linear combination are sorted by wire id (as circom writes
 * them).  Early constraints that have fewer earlier wires than min_terms
 * use all there are.  With a_share, b_share below 1 some wires are never
 * read in A (B): their columns are zero, as in bit circuits, and a key
 * for the circuit can leave their points out (groth16.h, "Density").  Output is a pure function of the parameters: the same
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
#include "groth16/formats/r1cs.h"
#include "util/status.h"

/* cuzk_synth_params, its defaults and profiles, and cuzk_synth_write are
 * public: include/cuzk_tools.h. */
#include "cuzk_tools.h"

/*
 * Number of constraints |p| asks for (resolving log2_domain), or 0 with
 * |err| set (CUZK_EINVAL) if the parameters are inconsistent: unknown
 * curve, bool_share (a_share, b_share, gate_share) outside [0, 1], bad
 * term bounds, fewer constraints
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

#endif
