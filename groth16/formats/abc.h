/*
 * The a, b, c image: one partition's input as a synthesis that never
 * builds an R1CS hands it over (Filecoin's bellperson-style synthesis):
 * the evaluated vectors a = A·w, b = B·w, c = a∘b, one value per
 * constraint row, and the assignment w.  With it the prover skips step 1
 * (groth16.h) and needs no coefficient list in the key.
 *
 * Layout (docs/FILES.md, "The a, b, c image"), every integer little-endian:
 *   magic "cuzkabc1" (8 bytes) | version u32 (1) | curve u32 (cuzk_curve)
 *   | m u64 (rows) | n_vars u64 (witness values)
 *   | a[m] | b[m] | c[m] | w[n_vars]            32-byte values, plain form
 * The rows are the key's domain rows, the public-input rows snarkjs adds
 * included; rows m .. n-1 of the domain are zero.  w[0] is 1 and
 * w[1..nPublic] are the public signals, as in a .wtns.
 *
 * Opening validates everything before it returns: the header, that the
 * size is exactly what m and n_vars ask for, the curve, w[0] == 1 and every
 * value below r (unlike the .wtns reader, which leaves the range to the
 * conversion: here a value out of range must be refused before a proof is
 * attempted, and the image is read once more by the conversion anyway).
 * cuzk_abc_check_key then checks the image against a proving key.  The
 * values stay where they are (the reader's copy of the file or the caller's
 * buffer) and are not necessarily aligned: convert or copy them.  An image
 * file too large to hold twice (2^27 rows: 16 GiB) is read in parts with
 * cuzk_abc_head_open instead: its header first, checked against the key
 * before any value is read, then each vector straight into its
 * destination, range-checked there.
 *
 * What this file must not do: prove or evaluate, or know a key at all
 * (cuzk_abc_check_key takes the key's counts, not the key): the readers
 * sit below the prover.  The prover is groth16.h's
 * P_groth16_prove_abc_with_scratch, reached through the curve table by
 * the engine's devices (the tests prove an image with tests/cpu_prove.h);
 * the image of a witness, which evaluates a, b, c with a key's matrices,
 * is the prover's (prover/abc_image.h).
 *
 * Thread safety: an open image is read-only; any number of threads may
 * convert from it at once.
 */
#ifndef CUZK_GROTH16_ABC_H
#define CUZK_GROTH16_ABC_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_id.h"
#include "util/infile.h"
#include "util/status.h"
#include "util/threadpool.h"

#define CUZK_ABC_MAGIC "cuzkabc1" /* 8 bytes, no NUL in the file */
#define CUZK_ABC_VERSION 1
#define CUZK_ABC_HEADER_BYTES 32

typedef struct cuzk_abc {
    const uint8_t *data; /* the whole image */
    size_t size;
    int owned;           /* 1: |data| is our copy of a file, freed by close */
    cuzk_curve curve;
    uint64_t m;          /* rows of a, b, c */
    uint64_t n_vars;     /* witness values */
    const uint8_t *a, *b, *c, *w; /* m, m, m, n_vars values of 32 bytes */
} cuzk_abc;

/* Whether |size| bytes at |data| start with the image's magic (what the
 * engine and the CLI use to tell an image from a .wtns). */
int cuzk_abc_is_image(const void *data, size_t size);
/* The same for the file at |path|: 1 yes, 0 no or unreadable. */
int cuzk_abc_file_is_image(const char *path);

/*
 * Open an image file (read whole, never mapped: util/infile.h) or a borrowed buffer (which must
 * outlive |x|).  Returns CUZK_OK; CUZK_EFORMAT (magic, truncated or
 * trailing bytes, sizes, w[0] != 1); CUZK_EUNSUPPORTED (version);
 * CUZK_ECURVE (not a curve id); CUZK_ERANGE (a value >= r, named: "a[17]");
 * CUZK_EIO.  |x| is zeroed on failure; close with cuzk_abc_close.
 */
cuzk_status cuzk_abc_open(cuzk_abc *x, const char *path, cuzk_error *err);
cuzk_status cuzk_abc_from_mem(cuzk_abc *x, const void *data, size_t size, cuzk_error *err);
void cuzk_abc_close(cuzk_abc *x);

/*
 * Whether the image fits a key of |curve| with |n_vars| witness values and
 * a domain of 2^log_n rows: CUZK_ECURVE, or CUZK_EMISMATCH naming the
 * count that disagrees (n_vars, or m above the domain).
 */
cuzk_status cuzk_abc_check_key(const cuzk_abc *x, cuzk_curve curve, size_t n_vars,
                               unsigned log_n, cuzk_error *err);

/* An image file open for reading in parts: its header read and checked
 * (magic, version, curve, counts, and the file's size against them), no
 * value read. */
typedef struct cuzk_abc_head {
    cuzk_infile f;
    cuzk_curve curve;
    uint64_t m, n_vars;
} cuzk_abc_head;

/*
 * Open |path| and read its 32-byte header.  Returns as cuzk_abc_open,
 * less the value checks, and CUZK_EINVAL for a path that is not a regular
 * file.  |h| is closed on failure; the file stays open until
 * cuzk_abc_head_close (a rename or truncation of the path cannot swap it).
 */
cuzk_status cuzk_abc_head_open(cuzk_abc_head *h, const char *path, cuzk_error *err);
/* cuzk_abc_check_key for an image read in parts. */
cuzk_status cuzk_abc_head_check_key(const cuzk_abc_head *h, cuzk_curve curve, size_t n_vars,
                                    unsigned log_n, cuzk_error *err);
/*
 * a, b, c into |abc| as cuzk_abc_to_mont writes them (3n values; n >= m),
 * read straight into place and converted there over |pool|.
 * CUZK_ERANGE names the first value >= r; CUZK_EIO if the file was
 * truncated since it was opened.  |abc| is garbage after a failure.
 */
cuzk_status cuzk_abc_head_read_abc(const cuzk_abc_head *h, cuzk_fr *abc, size_t n,
                                   cuzk_pool *pool, cuzk_error *err);
/* The witness, plain values, into |w| (n_vars values); w[0] == 1 and every
 * value below r checked (CUZK_EFORMAT, CUZK_ERANGE), CUZK_EIO as above. */
cuzk_status cuzk_abc_head_read_witness(const cuzk_abc_head *h, cuzk_fr *w, cuzk_pool *pool,
                                       cuzk_error *err);
void cuzk_abc_head_close(cuzk_abc_head *h);

/* Raw 32-byte value |i| of vector |which| (0 a, 1 b, 2 c, 3 w). */
static inline const uint8_t *cuzk_abc_value(const cuzk_abc *x, unsigned which, size_t i) {
    const uint8_t *v[4] = {x->a, x->b, x->c, x->w};
    return v[which] + 32 * i;
}

/*
 * a, b, c in Montgomery form into |abc| (3n values, a then b then c, each
 * zero-padded from m to n; n >= m): the layout of the engine's a, b, c
 * buffer and of the GPU prover's upload.  The values were range-checked
 * at open.  Work is spread over |pool| (NULL: serial).
 */
void cuzk_abc_to_mont(const cuzk_abc *x, cuzk_fr *abc, size_t n, cuzk_pool *pool);
/* The witness as aligned plain values (what the provers take). */
void cuzk_abc_witness_plain(const cuzk_abc *x, cuzk_fr *w);

/*
 * Serialize an image: a, b, c (|m| values each) and the witness (|n_vars|
 * values), all Montgomery of |curve|'s Fr.  w[0] must be 1 (CUZK_EINVAL
 * otherwise, so what is written reads back).  write_mem returns a malloc'd
 * buffer (free() it); write_file replaces |path| atomically.
 */
cuzk_status cuzk_abc_write_mem(cuzk_curve curve, const cuzk_fr *a, const cuzk_fr *b,
                               const cuzk_fr *c, size_t m, const cuzk_fr *w, size_t n_vars,
                               uint8_t **out, size_t *size, cuzk_error *err);
cuzk_status cuzk_abc_write_file(cuzk_curve curve, const cuzk_fr *a, const cuzk_fr *b,
                                const cuzk_fr *c, size_t m, const cuzk_fr *w, size_t n_vars,
                                const char *path, cuzk_error *err);

#endif
