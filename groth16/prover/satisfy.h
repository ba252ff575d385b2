/*
 * The constraint check of evaluated vectors: a[i]·b[i] = c[i] for every
 * row i of a partition's a, b, c (Montgomery values of the curve's Fr, the
 * layout of the engine's a, b, c buffer: a then b then c, n values each).
 *
 * Why it exists: a prover that is handed a, b, c (an a, b, c image:
 * groth16/formats/abc.h) computes h = (a·b − c) / Z on a coset, and the
 * division is exact only if a∘b = c on the domain.  When it is not, the
 * NTTs and MSMs run to the end and yield a proof that cannot verify.  The
 * check finds that before any device time is spent, and names the first
 * row that breaks, which the proof's pairing check cannot do.
 *
 * What it does not catch: a and b that are not A·w and B·w of the image's
 * witness (with c = a∘b they pass here and fail only the pairing check),
 * and nothing at all for a, b, c the prover evaluated itself from a
 * witness: groth16.h's evaluate sets c = a∘b by definition (a snarkjs key
 * carries A and B only), so there the identity always holds, and a witness
 * that does not satisfy the circuit is found by verifying the proof.
 *
 * Must not: allocate, start threads (work runs on the caller's pool), or
 * write anything but |*bad_row| and |err|.
 *
 * Thread safety: reentrant; the vectors are only read.
 */
#ifndef CUZK_GROTH16_SATISFY_H
#define CUZK_GROTH16_SATISFY_H

#include <stddef.h>

#include "groth16/curve_id.h"
#include "util/status.h"
#include "util/threadpool.h"

/*
 * Check a[i]·b[i] = c[i] for i < n, spread over |pool| (NULL: serial) in
 * chunks that stop as soon as a lower row is known to fail.
 * Returns: CUZK_OK; CUZK_EVERIFY at the first row that fails ("a∘b ≠ c at
 *   row 17: the witness does not satisfy the circuit"), the status a
 *   circuit's failed assert has too; CUZK_ECURVE for a value that is no
 *   curve.
 * Out: |*bad_row| (may be NULL) the first failing row, or n when none.
 * In: |a|, |b|, |c| n reduced Montgomery values each (as the Fr operations
 *   and the image conversion leave them: equal values have equal limbs).
 */
cuzk_status cuzk_abc_check_rows(cuzk_curve curve, const cuzk_fr *a, const cuzk_fr *b,
                                const cuzk_fr *c, size_t n, cuzk_pool *pool, size_t *bad_row,
                                cuzk_error *err);

#endif
