/*
 * circom .wtns witnesses: zero-copy reader and writer.
 *
 * File (iden3 binfile, magic "wtns", version 2; docs/FILES.md section 2):
 *   section 1   n8 u32 | r[n8] | nWitness u32
 *   section 2   nWitness x Fr[n8], normal (not Montgomery) form, little-endian
 * w[0] is the constant 1; w[1..nPublic] are the public signals.
 *
 * Opening checks the container, the header, the curve, the exact size of
 * section 2 and that w[0] == 1; it does not read the other values (a
 * witness can be gigabytes and is usually consumed once).  The range check
 * (every value < r) happens in cuzk_wtns_to_mont and cuzk_wtns_check_range.
 * The values stay in the reader's copy of the file / the caller's buffer:
 * |values| is a byte view, not necessarily 8-byte aligned, so read it
 * bytewise or convert.  A witness too large to hold twice (gigabytes at
 * 2^27) is read in parts with cuzk_wtns_head_open instead: its header
 * first, then its values straight into their destination.
 *
 * Thread safety: an open cuzk_wtns is read-only; concurrent conversions of
 * disjoint or overlapping ranges are fine.
 */
#ifndef CUZK_GROTH16_WTNS_H
#define CUZK_GROTH16_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/formats/binfile.h"
#include "groth16/curve_id.h"

typedef struct cuzk_wtns {
    cuzk_binfile bf; /* owns the file's copy, or borrows (memory) */
    cuzk_curve curve;
    uint32_t n_witness;
    const uint8_t *values; /* n_witness x 32 bytes, normal form LE */
} cuzk_wtns;

/*
 * Open a .wtns file (read whole: binfile.h) or a borrowed buffer (must outlive |w|).
 * Returns: CUZK_OK; CUZK_EFORMAT (container, sizes, w[0] != 1); CUZK_ECURVE;
 *   CUZK_EUNSUPPORTED (version); CUZK_EIO; CUZK_ENOMEM.
 * Out: |w| zeroed on failure.  Close with cuzk_wtns_close.
 */
cuzk_status cuzk_wtns_open(cuzk_wtns *w, const char *path, cuzk_error *err);
cuzk_status cuzk_wtns_from_mem(cuzk_wtns *w, const void *data, size_t size,
                               cuzk_error *err);
void cuzk_wtns_close(cuzk_wtns *w);

/* A .wtns file open for reading in parts: its header and section table read
 * and checked as cuzk_wtns_open checks them, its values not read. */
typedef struct cuzk_wtns_head {
    cuzk_infile f;
    cuzk_curve curve;
    uint32_t n_witness;
    uint64_t values_at; /* file offset of w[0] */
} cuzk_wtns_head;

/*
 * Open |path| and read its header (a few small reads, whatever the file's
 * size).  Returns as cuzk_wtns_open, and CUZK_EINVAL for a path that is
 * not a regular file.  Out: |h| closed on failure.  The file stays open
 * (a later rename or truncation of the path cannot swap it); close with
 * cuzk_wtns_head_close.
 */
cuzk_status cuzk_wtns_head_open(cuzk_wtns_head *h, const char *path, cuzk_error *err);
/*
 * Values first .. first+count-1, 32 plain little-endian bytes each, into
 * |dst|.  CUZK_EINVAL outside nWitness; CUZK_EIO if the file was
 * truncated since it was opened; CUZK_EFORMAT if w[0] is read and is not
 * 1.  The range (< r) is the caller's to check, as with the raw view.
 */
cuzk_status cuzk_wtns_head_read(const cuzk_wtns_head *h, void *dst, size_t first, size_t count,
                                cuzk_error *err);
void cuzk_wtns_head_close(cuzk_wtns_head *h);

/* Raw 32-byte normal-form value |i| (i < n_witness). */
static inline const uint8_t *cuzk_wtns_value(const cuzk_wtns *w, size_t i) {
    return w->values + 32 * i;
}

/*
 * Convert values first .. first+count-1 to Montgomery form into |out|
 * (count entries, caller-allocated).  Returns CUZK_EINVAL if the range
 * exceeds n_witness, CUZK_ERANGE naming the first value >= r (|out| is then
 * partly written).
 */
cuzk_status cuzk_wtns_to_mont(const cuzk_wtns *w, cuzk_fr *out, size_t first,
                              size_t count, cuzk_error *err);

/* Check every value < r without converting (for users of the raw view). */
cuzk_status cuzk_wtns_check_range(const cuzk_wtns *w, cuzk_error *err);

/*
 * Serialize |n| values (Montgomery form of |curve|'s Fr) as a .wtns.
 * values[0] must be 1 (CUZK_EINVAL otherwise, so what is written reads
 * back).  write_mem returns a malloc'd buffer (free() it).
 */
cuzk_status cuzk_wtns_write_mem(cuzk_curve curve, const cuzk_fr *values,
                                size_t n, uint8_t **out, size_t *size,
                                cuzk_error *err);
cuzk_status cuzk_wtns_write_file(cuzk_curve curve, const cuzk_fr *values,
                                 size_t n, const char *path, cuzk_error *err);

#endif
