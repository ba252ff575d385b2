/*
 * circom .r1cs constraint systems: reader (into CSR matrices) and writer.
 *
 * File (iden3 binfile, magic "r1cs", version 1; docs/FILES.md section 1):
 *   section 1 header   n8 u32 | r[n8] | nWires u32 | nPubOut u32 | nPubIn u32
 *                      | nPrvIn u32 | nLabels u64 | nConstraints u32
 *   section 2          per constraint: A, B, C linear combinations, each
 *                      nTerms u32 | nTerms x (wireId u32, coeff[n8] normal LE)
 *   section 3          wire -> label map, nWires x u64 (optional here)
 *   sections 4, 5      custom gates (PLONK only): rejected
 * Wire 0 is the constant 1, then public outputs, public inputs, private
 * inputs, internal signals.  A witness w satisfies constraint j iff
 * <A_j, w> * <B_j, w> = <C_j, w>.
 *
 * The reader checks every wire id < nWires and every coefficient < r, and
 * converts coefficients to Montgomery form of the curve's Fr.  It copies
 * everything it keeps, so the input may go away after a read.  It does not
 * interpret labels and does not check that the system is satisfiable.
 *
 * Thread safety: a parsed cuzk_r1cs is read-only; share it freely.
 */
#ifndef CUZK_GROTH16_R1CS_H
#define CUZK_GROTH16_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/formats/binfile.h"
#include "groth16/curve_id.h"

/* One matrix in compressed sparse rows: the terms of row j are
 * col[row_ptr[j] .. row_ptr[j+1]-1] with coefficients coef[...] (Montgomery
 * form of the r1cs curve's Fr), in file order. */
typedef struct cuzk_r1cs_matrix {
    uint64_t *row_ptr; /* n_constraints + 1 entries */
    uint32_t *col;     /* nnz wire ids */
    cuzk_fr *coef;     /* nnz coefficients */
    uint64_t nnz;
} cuzk_r1cs_matrix;

typedef struct cuzk_r1cs {
    cuzk_curve curve;
    uint32_t n_wires;
    uint32_t n_pub_out;
    uint32_t n_pub_in;
    uint32_t n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    cuzk_r1cs_matrix a, b, c;
    uint64_t *wire_to_label; /* n_wires entries, or NULL (no section 3) */
} cuzk_r1cs;

/* nPublic as snarkjs counts it: public outputs + public inputs. */
static inline uint32_t cuzk_r1cs_n_public(const cuzk_r1cs *r) {
    return r->n_pub_out + r->n_pub_in;
}

/*
 * Read an .r1cs file / buffer / already opened binfile into |r|.
 * Returns: CUZK_OK; CUZK_EFORMAT (structure, sizes, wire id out of range,
 *   section 2 not consumed exactly); CUZK_ERANGE (coefficient >= r);
 *   CUZK_ECURVE (prime is neither curve's r); CUZK_EUNSUPPORTED (custom
 *   gates, version); CUZK_EIO; CUZK_ENOMEM.
 * Out: |r| filled; on failure |r| is zeroed (cuzk_r1cs_free is harmless).
 * Ownership: arrays in |r| are malloc'd; release with cuzk_r1cs_free.
 */
cuzk_status cuzk_r1cs_read_file(cuzk_r1cs *r, const char *path,
                                cuzk_error *err);
cuzk_status cuzk_r1cs_read_mem(cuzk_r1cs *r, const void *data, size_t size,
                               cuzk_error *err);
cuzk_status cuzk_r1cs_parse(cuzk_r1cs *r, const cuzk_binfile *bf,
                            cuzk_error *err);
void cuzk_r1cs_free(cuzk_r1cs *r);

/*
 * Serialize |r| (sections 1, 2, 3 in id order; section 3 is |wire_to_label|
 * or, when NULL, the identity map with nLabels forced to at least nWires).
 * Validates the same invariants the reader checks (CUZK_EINVAL otherwise),
 * so what it writes reads back.  write_mem returns a malloc'd buffer in
 * *out (free() it); write_file writes atomically.
 */
cuzk_status cuzk_r1cs_write_mem(const cuzk_r1cs *r, uint8_t **out,
                                size_t *size, cuzk_error *err);
cuzk_status cuzk_r1cs_write_file(const cuzk_r1cs *r, const char *path,
                                 cuzk_error *err);

/*
 * Check that |w| (|n| values, Montgomery form of the r1cs curve's Fr)
 * satisfies every constraint.  Returns CUZK_OK; CUZK_EMISMATCH if n !=
 * nWires or w[0] != 1; CUZK_EVERIFY naming the first failing constraint.
 */
cuzk_status cuzk_r1cs_check_witness(const cuzk_r1cs *r, const cuzk_fr *w,
                                    size_t n, cuzk_error *err);

/* <row j of |m|, w> into *out (Montgomery); w must have nWires entries. */
void cuzk_r1cs_row_dot(const cuzk_r1cs *r, const cuzk_r1cs_matrix *m,
                       uint32_t j, const cuzk_fr *w, cuzk_fr *out);

#endif
