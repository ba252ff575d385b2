/*
 * iden3 binfile container: open (read whole, never mapped), section table scan, and the small output
 * buffer the writers share (see binfile.h).  Only bounds and structure are
 * checked here; section contents are the format readers' business.
 */
#include "groth16/formats/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/curve_id.h"
#include "util/infile.h"
#include "util/outfile.h"

#define HEADER_BYTES 12u  /* magic, version, nSections */
#define SECTION_HDR 12u   /* id u32, size u64 */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Reject a repeated id; sorts a copy so a table of millions of entries (a
 * hostile file) costs n log n, not n^2. */
static cuzk_status check_duplicates(const cuzk_binfile *bf, cuzk_error *err) {
    uint32_t *ids = malloc((size_t)bf->n_sections * sizeof *ids + 1);
    if (ids == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "%s: no memory for the section table",
                         bf->magic);
    for (uint32_t i = 0; i < bf->n_sections; i++)
        ids[i] = bf->sections[i].id;
    qsort(ids, bf->n_sections, sizeof *ids, cmp_u32);
    for (uint32_t i = 1; i < bf->n_sections; i++) {
        if (ids[i] == ids[i - 1]) {
            uint32_t dup = ids[i];
            free(ids);
            return cuzk_fail(err, CUZK_EFORMAT, "%s: section %u appears more than once",
                             bf->magic, dup);
        }
    }
    free(ids);
    return CUZK_OK;
}

/* |n| bytes at |pos| of the input: from memory, or read from the file of a
 * table-only open (bf->data NULL). */
static cuzk_status fetch(const cuzk_binfile *bf, const cuzk_infile *f, uint8_t *dst, uint64_t pos,
                         unsigned n, cuzk_error *err) {
    if (f == NULL) {
        memcpy(dst, bf->data + pos, n);
        return CUZK_OK;
    }
    return cuzk_infile_pread(f, dst, n, pos, err);
}

/* Walk the nSections entries; every payload must end inside the input, and
 * the last one exactly at its end. */
static cuzk_status scan_sections(cuzk_binfile *bf, const cuzk_infile *f, cuzk_error *err) {
    uint64_t pos = HEADER_BYTES;
    uint32_t n = bf->n_sections;
    if (n > (bf->size - HEADER_BYTES) / SECTION_HDR)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "%s: header claims %u sections but the file has only %llu bytes",
                         bf->magic, n, (unsigned long long)bf->size);
    /* one read a section header: a table read from a file is kept short */
    if (f && n > CUZK_BINFILE_TABLE_MAX)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: header claims %u sections, more than the %d "
                                            "any file of this kind has",
                         bf->magic, n, CUZK_BINFILE_TABLE_MAX);
    bf->sections = calloc(n ? n : 1, sizeof *bf->sections);
    if (bf->sections == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "%s: no memory for %u sections",
                         bf->magic, n);
    for (uint32_t i = 0; i < n; i++) {
        if (bf->size - pos < SECTION_HDR)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "%s: section header %u of %u is cut off at byte %llu",
                             bf->magic, i + 1, n, (unsigned long long)pos);
        uint8_t h[SECTION_HDR];
        cuzk_status st = fetch(bf, f, h, pos, SECTION_HDR, err);
        if (st != CUZK_OK)
            return st;
        cuzk_binfile_section *s = &bf->sections[i];
        s->id = cuzk_rd_u32(h);
        s->size = cuzk_rd_u64(h + 4);
        pos += SECTION_HDR;
        s->offset = pos;
        if (s->size > bf->size - pos)
            return cuzk_fail(err, CUZK_EFORMAT,
                             "%s: section %u declares %llu bytes but only %llu remain in the file",
                             bf->magic, s->id, (unsigned long long)s->size,
                             (unsigned long long)(bf->size - pos));
        pos += s->size;
    }
    if (pos != bf->size)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: %llu stray bytes after the last section",
                         bf->magic, (unsigned long long)(bf->size - pos));
    return CUZK_OK;
}

static cuzk_status parse(cuzk_binfile *bf, const cuzk_infile *f, const char *magic,
                         uint32_t version, unsigned flags, cuzk_error *err) {
    memcpy(bf->magic, magic, 4);
    bf->magic[4] = '\0';
    if (bf->size < HEADER_BYTES)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: file too short for the header (%llu bytes)",
                         magic, (unsigned long long)bf->size);
    uint8_t h[HEADER_BYTES];
    cuzk_status st = fetch(bf, f, h, 0, HEADER_BYTES, err);
    if (st != CUZK_OK)
        return st;
    if (memcmp(h, magic, 4) != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: wrong magic (not a .%s file)",
                         magic, magic);
    bf->version = cuzk_rd_u32(h + 4);
    if (bf->version != version)
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "%s: version %u not supported (expected %u)",
                         magic, bf->version, version);
    bf->n_sections = cuzk_rd_u32(h + 8);
    st = scan_sections(bf, f, err);
    if (st == CUZK_OK && !(flags & CUZK_BINFILE_ALLOW_DUPLICATES))
        st = check_duplicates(bf, err);
    return st;
}

cuzk_status cuzk_binfile_from_mem(cuzk_binfile *bf, const void *data,
                                  size_t size, const char *magic,
                                  uint32_t version, unsigned flags,
                                  cuzk_error *err) {
    memset(bf, 0, sizeof *bf);
    if (data == NULL && size != 0)
        return cuzk_fail(err, CUZK_EINVAL, "%s: NULL buffer", magic);
    bf->data = data;
    bf->size = size;
    cuzk_status st = parse(bf, NULL, magic, version, flags, err);
    if (st != CUZK_OK)
        cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_binfile_open(cuzk_binfile *bf, const char *path,
                              const char *magic, uint32_t version,
                              unsigned flags, cuzk_error *err) {
    memset(bf, 0, sizeof *bf);
    /* Read, not mapped (util/infile.h): a client that truncates the file
     * while it is read gets an error instead of killing the process with
     * SIGBUS; a FIFO is refused unopened for reading. */
    uint8_t *buf;
    size_t size;
    cuzk_status st = cuzk_infile_read_all(path, magic, SIZE_MAX - 1, 0, &buf, &size, err);
    if (st != CUZK_OK)
        return st;
    if (size < HEADER_BYTES) {
        free(buf);
        return cuzk_fail(err, CUZK_EFORMAT, "%s: %s has an impossible size (%lld bytes)",
                         magic, path, (long long)size);
    }
    bf->data = buf;
    bf->size = size;
    bf->owned = 1;
    st = parse(bf, NULL, magic, version, flags, err);
    if (st != CUZK_OK)
        cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_binfile_open_table(cuzk_binfile *bf, const cuzk_infile *f, const char *magic,
                                    uint32_t version, unsigned flags, cuzk_error *err) {
    memset(bf, 0, sizeof *bf);
    if (f->size < HEADER_BYTES) /* the words of cuzk_binfile_open */
        return cuzk_fail(err, CUZK_EFORMAT, "%s: %s has an impossible size (%lld bytes)", magic,
                         f->path, (long long)f->size);
    bf->size = f->size;
    cuzk_status st = parse(bf, f, magic, version, flags, err);
    if (st != CUZK_OK)
        cuzk_binfile_close(bf);
    return st;
}

void cuzk_binfile_close(cuzk_binfile *bf) {
    if (bf == NULL)
        return;
    if (bf->owned)
        free((void *)bf->data);
    free(bf->sections);
    memset(bf, 0, sizeof *bf);
}

const uint8_t *cuzk_binfile_find(const cuzk_binfile *bf, uint32_t id,
                                    uint64_t *size) {
    for (uint32_t i = 0; i < bf->n_sections; i++) {
        if (bf->sections[i].id == id) {
            if (size)
                *size = bf->sections[i].size;
            return bf->data + bf->sections[i].offset;
        }
    }
    if (size)
        *size = 0;
    return NULL;
}

cuzk_status cuzk_binfile_need_at(const cuzk_binfile *bf, uint32_t id, const char *what,
                                 uint64_t expect, uint64_t min_size, uint64_t *offset,
                                 uint64_t *size, cuzk_error *err) {
    const cuzk_binfile_section *s = NULL;
    for (uint32_t i = 0; i < bf->n_sections && !s; i++)
        if (bf->sections[i].id == id)
            s = &bf->sections[i];
    if (s == NULL)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: section %u (%s) is missing",
                         bf->magic, id, what);
    if (expect != UINT64_MAX && s->size != expect)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: section %u (%s) has %llu bytes, expected %llu",
                         bf->magic, id, what, (unsigned long long)s->size,
                         (unsigned long long)expect);
    if (s->size < min_size)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "%s: section %u (%s) has %llu bytes, at least %llu needed",
                         bf->magic, id, what, (unsigned long long)s->size,
                         (unsigned long long)min_size);
    *offset = s->offset;
    if (size)
        *size = s->size;
    return CUZK_OK;
}

cuzk_status cuzk_binfile_need(const cuzk_binfile *bf, uint32_t id,
                              const char *what, uint64_t expect,
                              uint64_t min_size, const uint8_t **out,
                              uint64_t *size, cuzk_error *err) {
    uint64_t at = 0;
    cuzk_status st = cuzk_binfile_need_at(bf, id, what, expect, min_size, &at, size, err);
    if (st == CUZK_OK)
        *out = bf->data + at;
    return st;
}

/* ---- output buffer -------------------------------------------------------- */

void cuzk_outbuf_init(cuzk_outbuf *o) { memset(o, 0, sizeof *o); }

uint8_t *cuzk_outbuf_grow(cuzk_outbuf *o, size_t n) {
    if (o->failed)
        return NULL;
    if (n > SIZE_MAX - o->len) {
        o->failed = 1;
        return NULL;
    }
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n)
            cap = cap > SIZE_MAX / 2 ? o->len + n : cap * 2;
        uint8_t *d = realloc(o->data, cap);
        if (d == NULL) {
            o->failed = 1;
            return NULL;
        }
        o->data = d;
        o->cap = cap;
    }
    uint8_t *r = o->data + o->len;
    o->len += n;
    return r;
}

void cuzk_outbuf_put(cuzk_outbuf *o, const void *p, size_t n) {
    uint8_t *d = cuzk_outbuf_grow(o, n);
    if (d && n)
        memcpy(d, p, n);
}

void cuzk_outbuf_u32(cuzk_outbuf *o, uint32_t v) {
    uint8_t *d = cuzk_outbuf_grow(o, 4);
    if (d)
        cuzk_wr_u32(d, v);
}

void cuzk_outbuf_u64(cuzk_outbuf *o, uint64_t v) {
    uint8_t *d = cuzk_outbuf_grow(o, 8);
    if (d)
        cuzk_wr_u64(d, v);
}

void cuzk_outbuf_header(cuzk_outbuf *o, const char *magic, uint32_t version,
                        uint32_t n_sections) {
    cuzk_outbuf_put(o, magic, 4);
    cuzk_outbuf_u32(o, version);
    cuzk_outbuf_u32(o, n_sections);
}

void cuzk_outbuf_section_begin(cuzk_outbuf *o, uint32_t id) {
    cuzk_outbuf_u32(o, id);
    o->section_start = o->len;
    cuzk_outbuf_u64(o, 0); /* patched by section_end */
}

void cuzk_outbuf_section_end(cuzk_outbuf *o) {
    if (o->failed)
        return;
    cuzk_wr_u64(o->data + o->section_start,
                (uint64_t)(o->len - o->section_start - 8));
}

cuzk_status cuzk_outbuf_finish(cuzk_outbuf *o, uint8_t **out, size_t *size,
                               cuzk_error *err) {
    if (o->failed) {
        free(o->data);
        cuzk_outbuf_init(o);
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for the output file");
    }
    *out = o->data;
    *size = o->len;
    cuzk_outbuf_init(o);
    return CUZK_OK;
}

cuzk_status cuzk_write_file_atomic(const char *path, const uint8_t *data,
                                   size_t size, cuzk_error *err) {
    return cuzk_outfile_write_all(path, data, size, err);
}
