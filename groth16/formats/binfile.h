/*
 * The iden3 "binfile" container shared by .r1cs, .wtns, .zkey and .ptau:
 *
 *   magic[4] | version u32 | nSections u32 | nSections x {id u32, size u64,
 *   payload[size]}                                      (all little-endian)
 *
 * This layer reads a file whole (never maps it: see util/infile.h) or borrows a memory buffer, checks
 * magic and version, scans the section table (physical order is not id
 * order), checks that every section lies inside the input with 64-bit
 * arithmetic that cannot overflow, and hands out pointer + size per section
 * id.  It knows nothing about what the sections mean; the format readers
 * (r1cs.h, wtns.h, zkey.h) do.  It never copies payloads and never writes.
 *
 * Error messages start with the file kind (the magic) so a caller can print
 * them as they are: "zkey: section 9 ends at byte 70000 beyond the end of
 * the file (65536 bytes)".
 *
 * Thread safety: a cuzk_binfile is immutable after open; any number of
 * threads may read its sections concurrently.  Open and close are not
 * thread safe with respect to the same object.
 */
#ifndef CUZK_GROTH16_BINFILE_H
#define CUZK_GROTH16_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/infile.h"
#include "util/status.h"

typedef struct cuzk_binfile_section {
    uint32_t id;
    uint64_t offset; /* of the payload, from the start of the input */
    uint64_t size;   /* payload bytes */
} cuzk_binfile_section;

typedef struct cuzk_binfile {
    const uint8_t *data; /* whole input (our copy or a borrowed buffer) */
    uint64_t size;       /* bytes */
    int owned;           /* 1: |data| is our copy of a file, freed by close */
    char magic[5];       /* NUL-terminated copy of the magic */
    uint32_t version;
    uint32_t n_sections;
    cuzk_binfile_section *sections; /* n_sections, in physical order */
} cuzk_binfile;

/* Flags for the open functions. */
enum {
    /* Allow an id to appear more than once (no format we read needs it;
     * r1cs, wtns and zkey readers pass 0 so duplicates are rejected). */
    CUZK_BINFILE_ALLOW_DUPLICATES = 1,
};

/*
 * Read |path| whole into memory and parse its section table.
 * Returns: CUZK_OK; CUZK_EIO (cannot open or read it, or it was truncated
 *   while it was read); CUZK_EINVAL (not a regular file);
 *   CUZK_EFORMAT (shorter than the 12-byte header, wrong magic, table
 *   malformed, section outside the file, duplicated id, bytes after the
 *   last section); CUZK_EUNSUPPORTED (version
 *   other than |version|); CUZK_ENOMEM.
 * Args: |bf| out, zeroed on failure (close is then a no-op but allowed).
 *   |magic| the expected 4 characters, |version| the only accepted version.
 * Ownership: the copy and the section array belong to |bf| until
 *   cuzk_binfile_close.  The file is never mapped, so a truncation while
 *   it is read is an error, not a fault; a file too large to hold twice
 *   (a 2^27 witness) is read in parts instead (wtns.h's cuzk_wtns_head).
 */
cuzk_status cuzk_binfile_open(cuzk_binfile *bf, const char *path,
                              const char *magic, uint32_t version,
                              unsigned flags, cuzk_error *err);

/*
 * Same parser over |size| bytes at |data| (for example an uploaded .wtns
 * body).  The buffer is borrowed: it must outlive |bf| and not change.
 */
cuzk_status cuzk_binfile_from_mem(cuzk_binfile *bf, const void *data,
                                  size_t size, const char *magic,
                                  uint32_t version, unsigned flags,
                                  cuzk_error *err);

/* Most sections a table read from a file may have (one read each); the
 * formats read that way have two. */
#define CUZK_BINFILE_TABLE_MAX 64

/*
 * The header and section table of the open file |f|, read with a few
 * small reads; no payload is read and |bf->data| stays NULL (use
 * cuzk_binfile_need_at and read payloads from |f|).  For files too large
 * to hold twice, such as a 2^27 witness, read straight into their
 * destination.  Same checks and returns as cuzk_binfile_open, and
 * CUZK_EFORMAT for more than CUZK_BINFILE_TABLE_MAX sections.  |f| stays
 * the caller's.
 */
cuzk_status cuzk_binfile_open_table(cuzk_binfile *bf, const cuzk_infile *f, const char *magic,
                                    uint32_t version, unsigned flags, cuzk_error *err);

/* Release what open allocated (unmaps a mapped file); |bf| is zeroed.
 * NULL and a zeroed struct are fine. */
void cuzk_binfile_close(cuzk_binfile *bf);

/* Payload of the first section with |id|, its size in *size; NULL (and
 * *size = 0) when absent. */
const uint8_t *cuzk_binfile_find(const cuzk_binfile *bf, uint32_t id,
                                    uint64_t *size);

/*
 * Like cuzk_binfile_find, but a missing section, or one whose size is
 * not |expect| (when |expect| != UINT64_MAX) or is below |min_size|, is an
 * error: CUZK_EFORMAT with a message naming |what| ("zkey: section 3 (IC)
 * has 640 bytes, expected 704").
 */
cuzk_status cuzk_binfile_need(const cuzk_binfile *bf, uint32_t id,
                              const char *what, uint64_t expect,
                              uint64_t min_size, const uint8_t **out,
                              uint64_t *size, cuzk_error *err);

/* cuzk_binfile_need's checks, giving the payload's file offset instead of
 * a pointer (for a table-only open). */
cuzk_status cuzk_binfile_need_at(const cuzk_binfile *bf, uint32_t id, const char *what,
                                 uint64_t expect, uint64_t min_size, uint64_t *offset,
                                 uint64_t *size, cuzk_error *err);

/*
 * Bounded cursor over one section payload, for the readers' sequential
 * parsing.  Every take fails (returns 0) once the section would be overrun,
 * and the cursor remembers the failure.
 */
typedef struct cuzk_cursor {
    const uint8_t *p;
    uint64_t left;
    int overrun;
} cuzk_cursor;

static inline void cuzk_cursor_init(cuzk_cursor *c, const uint8_t *p,
                                    uint64_t size) {
    c->p = p;
    c->left = size;
    c->overrun = 0;
}
/* Pointer to the next |n| bytes and advance; NULL if fewer are left. */
static inline const uint8_t *cuzk_cursor_take(cuzk_cursor *c, uint64_t n) {
    if (c->overrun || n > c->left) {
        c->overrun = 1;
        return NULL;
    }
    const uint8_t *r = c->p;
    c->p += n;
    c->left -= n;
    return r;
}

/*
 * Growable output buffer used by the writers (files are assembled in memory
 * and written at once).  cuzk_outbuf_section_begin/end write a section
 * header and patch its size afterwards.  On allocation failure the buffer
 * remembers it and every later call is a no-op; cuzk_outbuf_finish reports.
 */
typedef struct cuzk_outbuf {
    uint8_t *data;
    size_t len, cap;
    int failed;
    size_t section_start; /* offset of the open section's size field */
} cuzk_outbuf;

void cuzk_outbuf_init(cuzk_outbuf *o);
uint8_t *cuzk_outbuf_grow(cuzk_outbuf *o, size_t n); /* n bytes to fill */
void cuzk_outbuf_put(cuzk_outbuf *o, const void *p, size_t n);
void cuzk_outbuf_u32(cuzk_outbuf *o, uint32_t v);
void cuzk_outbuf_u64(cuzk_outbuf *o, uint64_t v);
/* Writes magic, version, nSections. */
void cuzk_outbuf_header(cuzk_outbuf *o, const char *magic, uint32_t version,
                        uint32_t n_sections);
void cuzk_outbuf_section_begin(cuzk_outbuf *o, uint32_t id);
void cuzk_outbuf_section_end(cuzk_outbuf *o);
/* Hand the bytes to the caller (*out, *size; free() them) or report
 * CUZK_ENOMEM.  The outbuf is reset either way. */
cuzk_status cuzk_outbuf_finish(cuzk_outbuf *o, uint8_t **out, size_t *size,
                               cuzk_error *err);

/* Write |size| bytes to |path| by the rules of util/outfile.h (a regular
 * file is replaced through a temporary name in its folder and a rename, so
 * readers never see a half-written file; a device or FIFO is written in
 * place; a symlink's target is written).  CUZK_EIO on failure. */
cuzk_status cuzk_write_file_atomic(const char *path, const uint8_t *data,
                                   size_t size, cuzk_error *err);

#endif
