/*
 * The a, b, c image reader and writer (see abc.h).  The reader validates
 * the whole image eagerly, values included, so that nothing downstream
 * (the engine's synthesis, a device) meets a malformed one; the checks
 * name what is wrong and where.
 */
#define _GNU_SOURCE
#include "groth16/formats/abc.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/formats/binfile.h"
#include "util/infile.h"
#include "groth16/curve_facts.h"

int cuzk_abc_is_image(const void *data, size_t size) {
    return data && size >= 8 && memcmp(data, CUZK_ABC_MAGIC, 8) == 0;
}

int cuzk_abc_file_is_image(const char *path) {
    char head[8];
    /* O_NONBLOCK and regular files only: a FIFO named as a witness must
     * not block the caller (cuzkd asks this before any other check). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return 0;
    struct stat st;
    ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, head, sizeof head, 0) : -1;
    close(fd);
    return got == (ssize_t)sizeof head && cuzk_abc_is_image(head, sizeof head);
}

/* |v| (32 LE bytes) below r (|r|: 4 limbs). */
static int below(const uint8_t *v, const uint64_t *r) {
    for (int k = 3; k >= 0; k--) {
        uint64_t x = cuzk_rd_u64(v + 8 * k);
        if (x != r[k])
            return x < r[k];
    }
    return 0;
}

/* The 32-byte header at |p| of an image of |size| bytes: its curve and
 * counts, and that the size is what they ask for. */
static cuzk_status parse_header(const uint8_t *p, uint64_t size, cuzk_curve *curve, uint64_t *m,
                                uint64_t *n_vars, cuzk_error *err) {
    if (size < 8 || memcmp(p, CUZK_ABC_MAGIC, 8) != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "abc: not an a, b, c image (no \"%s\" magic)",
                         CUZK_ABC_MAGIC);
    if (size < CUZK_ABC_HEADER_BYTES)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "abc: truncated header: %llu bytes, the header alone has %d",
                         (unsigned long long)size, CUZK_ABC_HEADER_BYTES);
    uint32_t version = cuzk_rd_u32(p + 8), id = cuzk_rd_u32(p + 12);
    if (version != CUZK_ABC_VERSION)
        return cuzk_fail(err, CUZK_EUNSUPPORTED, "abc: version %u (only %d is known)", version,
                         CUZK_ABC_VERSION);
    if (cuzk_curve_facts_get((cuzk_curve)id) == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "abc: curve id %u is no curve this build knows", id);
    *curve = (cuzk_curve)id;
    *m = cuzk_rd_u64(p + 16);
    *n_vars = cuzk_rd_u64(p + 24);
    if (*n_vars == 0)
        return cuzk_fail(err, CUZK_EFORMAT, "abc: the header says 0 witness values");
    /* 2^40 values of 32 bytes each bound both counts far above any key,
     * so the size below cannot overflow */
    if (*m >> 40 || *n_vars >> 40)
        return cuzk_fail(err, CUZK_EFORMAT, "abc: the header's counts (m %llu, n_vars %llu) are "
                                            "beyond any key",
                         (unsigned long long)*m, (unsigned long long)*n_vars);
    uint64_t want = CUZK_ABC_HEADER_BYTES + 32 * (3 * *m + *n_vars);
    if (size != want)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "abc: %s: %llu bytes, the header (m %llu rows, %llu witness values) asks "
                         "for %llu",
                         size < want ? "truncated" : "trailing bytes", (unsigned long long)size,
                         (unsigned long long)*m, (unsigned long long)*n_vars,
                         (unsigned long long)want);
    return CUZK_OK;
}

static const uint8_t one_le[32] = {1};

static cuzk_status parse(cuzk_abc *x, cuzk_error *err) {
    const uint8_t *p = x->data;
    cuzk_status st = parse_header(p, x->size, &x->curve, &x->m, &x->n_vars, err);
    if (st != CUZK_OK)
        return st;
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(x->curve);
    x->a = p + CUZK_ABC_HEADER_BYTES;
    x->b = x->a + 32 * x->m;
    x->c = x->b + 32 * x->m;
    x->w = x->c + 32 * x->m;
    if (memcmp(x->w, one_le, 32) != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "abc: w[0] is not 1");
    static const char names[4] = {'a', 'b', 'c', 'w'};
    for (unsigned v = 0; v < 4; v++) {
        size_t count = v < 3 ? x->m : x->n_vars;
        for (size_t i = 0; i < count; i++)
            if (!below(cuzk_abc_value(x, v, i), ci->r_limbs))
                return cuzk_fail(err, CUZK_ERANGE, "abc: %c[%zu] is not below r", names[v], i);
    }
    return CUZK_OK;
}

static cuzk_status finish_open(cuzk_abc *x, cuzk_status st, cuzk_error *err) {
    if (st == CUZK_OK)
        st = parse(x, err);
    if (st != CUZK_OK)
        cuzk_abc_close(x);
    return st;
}

cuzk_status cuzk_abc_open(cuzk_abc *x, const char *path, cuzk_error *err) {
    uint8_t *buf;
    size_t size;
    memset(x, 0, sizeof *x);
    /* read, never mapped (util/infile.h) */
    cuzk_status st = cuzk_infile_read_all(path, "abc", SIZE_MAX - 1, 0, &buf, &size, err);
    if (st != CUZK_OK)
        return st;
    x->data = buf, x->size = size, x->owned = 1;
    return finish_open(x, CUZK_OK, err);
}

cuzk_status cuzk_abc_from_mem(cuzk_abc *x, const void *data, size_t size, cuzk_error *err) {
    memset(x, 0, sizeof *x);
    x->data = data;
    x->size = data ? size : 0;
    return finish_open(x, CUZK_OK, err);
}

void cuzk_abc_close(cuzk_abc *x) {
    if (x == NULL)
        return;
    if (x->owned)
        free((void *)x->data);
    memset(x, 0, sizeof *x);
}

static cuzk_status check_shape(cuzk_curve have, uint64_t m, uint64_t n_vars, cuzk_curve curve,
                               size_t key_vars, unsigned log_n, cuzk_error *err) {
    if (have != curve)
        return cuzk_fail(err, CUZK_ECURVE, "abc: the image is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(have), cuzk_curve_snarkjs_name(curve));
    if (n_vars != key_vars)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "abc: the image has %llu witness values, the key expects %zu",
                         (unsigned long long)n_vars, key_vars);
    if (m > ((uint64_t)1 << log_n))
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "abc: the image has %llu rows, more than the key's domain of 2^%u",
                         (unsigned long long)m, log_n);
    return CUZK_OK;
}

cuzk_status cuzk_abc_check_key(const cuzk_abc *x, cuzk_curve curve, size_t n_vars,
                               unsigned log_n, cuzk_error *err) {
    return check_shape(x->curve, x->m, x->n_vars, curve, n_vars, log_n, err);
}

/* ---- an image file read in parts ---------------------------------------------------- */

cuzk_status cuzk_abc_head_open(cuzk_abc_head *h, const char *path, cuzk_error *err) {
    uint8_t hdr[CUZK_ABC_HEADER_BYTES];
    memset(h, 0, sizeof *h);
    cuzk_status st = cuzk_infile_open(&h->f, path, "abc", err);
    if (st != CUZK_OK)
        return st;
    uint64_t take = h->f.size < sizeof hdr ? h->f.size : sizeof hdr;
    st = cuzk_infile_pread(&h->f, hdr, take, 0, err);
    if (st == CUZK_OK)
        st = parse_header(hdr, h->f.size, &h->curve, &h->m, &h->n_vars, err);
    if (st != CUZK_OK)
        cuzk_abc_head_close(h);
    return st;
}

cuzk_status cuzk_abc_head_check_key(const cuzk_abc_head *h, cuzk_curve curve, size_t n_vars,
                                    unsigned log_n, cuzk_error *err) {
    return check_shape(h->curve, h->m, h->n_vars, curve, n_vars, log_n, err);
}

void cuzk_abc_head_close(cuzk_abc_head *h) {
    if (h == NULL)
        return;
    cuzk_infile_close(&h->f);
    memset(h, 0, sizeof *h);
    h->f.fd = -1;
}

/* Items of the in-place conversion: the 3n rows of a | b | c. */
struct place_ctx {
    const cuzk_curve_facts *ci;
    cuzk_fr *abc;
    size_t n, m;
    _Atomic size_t bad; /* lowest item found >= r; SIZE_MAX: none */
};

static void note_bad(_Atomic size_t *bad, size_t i) {
    size_t cur = atomic_load(bad);
    while (i < cur && !atomic_compare_exchange_weak(bad, &cur, i))
        ;
}

static void place_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct place_ctx *c = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        uint8_t v[32];
        if (i % c->n >= c->m) {
            memset(&c->abc[i], 0, sizeof c->abc[i]);
            continue;
        }
        memcpy(v, &c->abc[i], 32); /* the plain bytes the file had */
        if (!below(v, c->ci->r_limbs))
            note_bad(&c->bad, i);
        else
            (void)c->ci->fr_from_le(&c->abc[i], v);
    }
}

cuzk_status cuzk_abc_head_read_abc(const cuzk_abc_head *h, cuzk_fr *abc, size_t n,
                                   cuzk_pool *pool, cuzk_error *err) {
    static const char names[3] = {'a', 'b', 'c'};
    if (h->m > n)
        return cuzk_fail(err, CUZK_EINVAL, "abc: %llu rows do not fit a domain of %zu",
                         (unsigned long long)h->m, n);
    /* a, b and c lie end to end after the header; each lands at its third
     * of the buffer, its plain bytes converted where they lie */
    for (unsigned v = 0; v < 3; v++) {
        uint64_t at = CUZK_ABC_HEADER_BYTES + 32 * (uint64_t)v * h->m;
        cuzk_status st = cuzk_infile_pread(&h->f, abc + v * n, 32 * h->m, at, err);
        if (st != CUZK_OK)
            return st;
    }
    struct place_ctx c = {cuzk_curve_facts_get(h->curve), abc, n, (size_t)h->m, SIZE_MAX};
    cuzk_pool_for(pool, 3 * n, 4096, place_range, &c);
    size_t bad = atomic_load(&c.bad);
    if (bad != SIZE_MAX)
        return cuzk_fail(err, CUZK_ERANGE, "abc: %c[%zu] is not below r", names[bad / n],
                         bad % n);
    return CUZK_OK;
}

/* Items: witness values; the lowest >= r is noted. */
struct range_ctx {
    const uint64_t *r;
    const cuzk_fr *w;
    _Atomic size_t bad;
};

static void range_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct range_ctx *c = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++)
        if (!below((const uint8_t *)&c->w[i], c->r))
            note_bad(&c->bad, i);
}

cuzk_status cuzk_abc_head_read_witness(const cuzk_abc_head *h, cuzk_fr *w, cuzk_pool *pool,
                                       cuzk_error *err) {
    uint64_t at = CUZK_ABC_HEADER_BYTES + 32 * 3 * h->m;
    cuzk_status st = cuzk_infile_pread(&h->f, w, 32 * h->n_vars, at, err);
    if (st != CUZK_OK)
        return st;
    if (memcmp(w, one_le, 32) != 0)
        return cuzk_fail(err, CUZK_EFORMAT, "abc: w[0] is not 1");
    struct range_ctx c = {cuzk_curve_facts_get(h->curve)->r_limbs, w, SIZE_MAX};
    cuzk_pool_for(pool, (size_t)h->n_vars, 4096, range_range, &c);
    size_t bad = atomic_load(&c.bad);
    if (bad != SIZE_MAX)
        return cuzk_fail(err, CUZK_ERANGE, "abc: w[%zu] is not below r", bad);
    return CUZK_OK;
}

struct mont_ctx {
    const cuzk_abc *x;
    const cuzk_curve_facts *ci;
    cuzk_fr *out;
    size_t n;
};

/* Items are the 3n rows of a | b | c: Montgomery below m, zero above. */
static void mont_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct mont_ctx *c = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        size_t v = i / c->n, row = i % c->n;
        /* a, b, c lie end to end after the header */
        if (row < c->x->m)
            (void)c->ci->fr_from_le(&c->out[i], c->x->a + 32 * (v * c->x->m + row));
        else
            memset(&c->out[i], 0, sizeof c->out[i]);
    }
}

void cuzk_abc_to_mont(const cuzk_abc *x, cuzk_fr *abc, size_t n, cuzk_pool *pool) {
    struct mont_ctx c = {x, cuzk_curve_facts_get(x->curve), abc, n};
    cuzk_pool_for(pool, 3 * n, 4096, mont_range, &c);
}

void cuzk_abc_witness_plain(const cuzk_abc *x, cuzk_fr *w) {
    memcpy(w, x->w, x->n_vars * sizeof *w);
}

cuzk_status cuzk_abc_write_mem(cuzk_curve curve, const cuzk_fr *a, const cuzk_fr *b,
                               const cuzk_fr *c, size_t m, const cuzk_fr *w, size_t n_vars,
                               uint8_t **out, size_t *size, cuzk_error *err) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(curve);
    cuzk_fr one;
    *out = NULL;
    *size = 0;
    if (ci == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "abc write: no curve");
    if (n_vars == 0 || n_vars >> 40 || m >> 40)
        return cuzk_fail(err, CUZK_EINVAL, "abc write: %zu rows and %zu witness values cannot "
                                           "be stored",
                         m, n_vars);
    ci->fr_set_one(&one);
    if (!cuzk_fr_eq(&w[0], &one))
        return cuzk_fail(err, CUZK_EINVAL, "abc write: w[0] must be 1");
    cuzk_outbuf o;
    cuzk_outbuf_init(&o);
    cuzk_outbuf_put(&o, CUZK_ABC_MAGIC, 8);
    cuzk_outbuf_u32(&o, CUZK_ABC_VERSION);
    cuzk_outbuf_u32(&o, (uint32_t)curve);
    cuzk_outbuf_u64(&o, m);
    cuzk_outbuf_u64(&o, n_vars);
    const cuzk_fr *v[4] = {a, b, c, w};
    for (int k = 0; k < 4; k++) {
        size_t count = k < 3 ? m : n_vars;
        uint8_t *d = cuzk_outbuf_grow(&o, 32 * count);
        for (size_t i = 0; d && i < count; i++)
            ci->fr_to_le(d + 32 * i, &v[k][i]);
    }
    return cuzk_outbuf_finish(&o, out, size, err);
}

cuzk_status cuzk_abc_write_file(cuzk_curve curve, const cuzk_fr *a, const cuzk_fr *b,
                                const cuzk_fr *c, size_t m, const cuzk_fr *w, size_t n_vars,
                                const char *path, cuzk_error *err) {
    uint8_t *buf;
    size_t size;
    cuzk_status st = cuzk_abc_write_mem(curve, a, b, c, m, w, n_vars, &buf, &size, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_write_file_atomic(path, buf, size, err);
    free(buf);
    return st;
}
