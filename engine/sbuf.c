/*
 * Growing text buffers for the engine's exports (Chrome trace JSON,
 * Prometheus text).  Used only off the hot path, on the caller's thread.
 * An allocation failure is remembered and reported once, at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

static int reserve(engine_sbuf *b, size_t more) {
    if (b->oom)
        return 0;
    if (b->len + more + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p, b->cap = cap;
    return 1;
}

void engine_sbuf_printf(engine_sbuf *b, const char *fmt, ...) {
    va_list ap;
    char tmp[512];
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    if ((size_t)n < sizeof tmp) {
        memcpy(b->p + b->len, tmp, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

static void put_char(engine_sbuf *b, char c) {
    if (reserve(b, 1)) {
        b->p[b->len++] = c;
        b->p[b->len] = 0;
    }
}

void engine_sbuf_json_str(engine_sbuf *b, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put_char(b, '\\'), put_char(b, (char)c);
        else if (c < 0x20)
            engine_sbuf_printf(b, "\\u%04x", c);
        else
            put_char(b, (char)c);
    }
}

void engine_sbuf_prom_label(engine_sbuf *b, const char *s) {
    /* Exposition format: backslash, double quote and line feed escaped. */
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            put_char(b, '\\'), put_char(b, *s);
        else if (*s == '\n')
            put_char(b, '\\'), put_char(b, 'n');
        else
            put_char(b, *s);
    }
}

cuzk_status engine_sbuf_finish(engine_sbuf *b, char **out, size_t *len, cuzk_error *err) {
    if (!b->oom && !b->p)
        reserve(b, 0);
    if (b->oom) {
        free(b->p);
        memset(b, 0, sizeof *b);
        *out = NULL;
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for the export text");
    }
    b->p[b->len] = 0;
    *out = b->p;
    if (len)
        *len = b->len;
    memset(b, 0, sizeof *b);
    return CUZK_OK;
}
