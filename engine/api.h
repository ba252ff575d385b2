/*
 * Conversions between the library's internal proof types and the byte
 * images of the public API (include/cuzk.h, "proofs and public signals as
 * bytes"), shared by the public wrappers (engine/api_*.c) and their tests.
 *
 * The public headers name no internal type; these functions are where the
 * two meet.  Must not: be declared in include/, or grow anything but
 * conversions.
 */
#ifndef CUZK_ENGINE_API_H
#define CUZK_ENGINE_API_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "groth16/prover/key.h"

/* The image of |p| (its curve must be a real one). */
void cuzk_proof_to_bytes(cuzk_proof_bytes *out, const cuzk_proof *p);

/* Decode an image, validating every point fully.
 * Returns CUZK_OK; CUZK_ECURVE (tag CUZK_CURVE_NONE or unknown); CUZK_EFORMAT
 * (length not the curve's, bad flags); CUZK_ERANGE; CUZK_ENOTONCURVE;
 * CUZK_ENOTINSUBGROUP. */
cuzk_status cuzk_proof_from_bytes(cuzk_proof *p, const cuzk_proof_bytes *in, cuzk_error *err);

/* |n| scalars (Montgomery form of |c|) to / from 32-byte big-endian images
 * of their canonical values.  From bytes: CUZK_ERANGE (naming the signal)
 * if one is not below r. */
void cuzk_public_to_bytes(cuzk_curve c, uint8_t *out, const cuzk_fr *pub, size_t n);
cuzk_status cuzk_public_from_bytes(cuzk_curve c, cuzk_fr *out, const uint8_t *in, size_t n,
                                   cuzk_error *err);

#endif
