/*
 * A bounded reader of a wasm module's bytes (LEB128 numbers, names), shared
 * by the module's check (compile.c) and the recognition of circom's field
 * runtime (runtime.c).  Every read stops at |end| and sets |bad| instead of
 * running past it.
 */
#ifndef CUZK_WITNESS_WASM_RD_H
#define CUZK_WITNESS_WASM_RD_H

#include <stdint.h>
#include <string.h>

typedef struct wasm_rd {
    const uint8_t *p, *end;
    int bad;
} wasm_rd;

/* An LEB128 of at most 35 bits' worth of groups: the value, the bits its
 * groups covered and its last byte (for the sign of a signed one). */
static inline uint32_t rd_leb_groups(wasm_rd *r, unsigned *bits, uint8_t *last) {
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *bits = shift + 7;
            *last = b;
            return v;
        }
    }
    r->bad = 1;
    return 0;
}

static inline uint32_t rd_leb(wasm_rd *r) {
    unsigned bits;
    uint8_t last;
    return rd_leb_groups(r, &bits, &last);
}

/* A name: returns a pointer into the module and its length. */
static inline const uint8_t *rd_name(wasm_rd *r, uint32_t *len) {
    *len = rd_leb(r);
    if (r->bad || (size_t)(r->end - r->p) < *len) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *s = r->p;
    r->p += *len;
    return s;
}

static inline int name_is(const uint8_t *s, uint32_t n, const char *want) {
    return n == strlen(want) && !memcmp(s, want, n);
}

#endif
