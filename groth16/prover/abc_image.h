/*
 * The a, b, c image (formats/abc.h) of a witness for a key that has its
 * coefficient list: the prover's step 1 (groth16.h, evaluate) written out
 * as an image, so that a proof can later skip it.
 *
 * Why in prover/ and not beside the image's reader: it evaluates the
 * key's matrices, which is the prover's work; the reader below only reads
 * and checks images and never runs the prover.
 *
 * Thread safety: reentrant; the key is only read.
 */
#ifndef CUZK_GROTH16_ABC_IMAGE_H
#define CUZK_GROTH16_ABC_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_id.h"
#include "groth16/formats/abc.h"
#include "groth16/prover/key.h"
#include "util/status.h"
#include "util/threadpool.h"

/*
 * a, b, c evaluated with the key's matrices (the rows up to the last the
 * list mentions, public rows included), then written as
 * cuzk_abc_write_mem writes them.  |w| holds n_vars plain values (a
 * .wtns's, aligned).  CUZK_EINVAL if the key has no coefficients;
 * CUZK_EMISMATCH if |n_w| is not the key's n_vars; CUZK_ECURVE for a key
 * of no known curve.
 */
cuzk_status cuzk_abc_from_witness(const cuzk_key *k, const cuzk_fr *w, size_t n_w,
                                  cuzk_pool *pool, uint8_t **out, size_t *size,
                                  cuzk_error *err);

#endif
