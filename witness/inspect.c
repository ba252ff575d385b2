/*
 * inspect.c: what a circom .wasm is, without running it or compiling it
 * (cuzk_wc_wasm_inspect, for `cuzk info` and a daemon's circuit listing):
 * its circom version, witness and input sizes and its prime, read from the
 * constant bodies of the functions circom exports for them, and whether
 * this machine's compiled worker for it is cached.
 *
 * One walk over the module's sections after compile.c's check of the
 * module (wc_check_wasm): imports, exports, code, data.  A module of
 * another shape leaves the fields it cannot read at zero: inspection
 * never fails on what only the calculation needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/infile.h"
#include "witness/internal.h"
#include "witness/wasm_rd.h"

/* ---- what a circuit is, without running it ---------------------------------------- */

/* A signed LEB128 of at most 32 bits (an i32.const's operand). */
static int32_t rd_sleb(wasm_rd *r) {
    unsigned bits = 0;
    uint8_t last = 0;
    uint32_t v = rd_leb_groups(r, &bits, &last);
    if (!r->bad && bits < 32 && (last & 0x40))
        v |= ~0u << bits;
    return (int32_t)v;
}

/* The constants of a function body "i32.const A [i32.const B call F] end"
 * with no locals: circom writes getVersion, getWitnessSize, ... as the
 * first and getRawPrime (copy from A to the shared memory) as the second.
 * The count of constants read, 0 for any other shape. */
static int const_body(const uint8_t *b, const uint8_t *end, int32_t out[2]) {
    wasm_rd r = {b, end, 0};
    if (rd_leb(&r) != 0) /* local declarations */
        return 0;
    int n = 0;
    while (!r.bad && r.p < r.end && *r.p == 0x41 && n < 2) {
        r.p++;
        out[n++] = rd_sleb(&r);
    }
    if (n == 2 && r.p < r.end && *r.p == 0x10) { /* call */
        r.p++;
        rd_leb(&r);
    }
    return !r.bad && r.p < r.end && *r.p == 0x0b ? n : 0;
}

/* The module at |path| read whole into |*w| (malloc'd) and checked to be
 * a circom witness calculator, refused over wc_max_wasm_bytes before it is
 * read; read, not mapped: a truncation while it is read is an error, not a
 * SIGBUS (util/infile.h). */
static cuzk_status inspect_read(const char *path, const cuzk_wc_opts *o, uint8_t **w,
                                size_t *size, cuzk_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return cuzk_fail(err, errno == ENOENT ? CUZK_ENOTFOUND : CUZK_EIO, "%s: %s", path,
                         strerror(errno));
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        return cuzk_fail(err, CUZK_EFORMAT, "%s: not a regular file with contents", path);
    }
    *size = (size_t)st.st_size;
    if ((uint64_t)st.st_size > wc_opt_max_wasm(o)) {
        close(fd);
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: %zu bytes of wasm, more than the limit of %llu (wc_max_wasm_bytes)",
                         path, *size, (unsigned long long)wc_opt_max_wasm(o));
    }
    cuzk_infile f = {fd, (uint64_t)*size, path, "circuit"};
    *w = malloc(*size);
    cuzk_status s = *w ? cuzk_infile_pread(&f, *w, *size, 0, err)
                       : cuzk_fail(err, CUZK_ENOMEM, "%s: no memory for its %zu bytes", path,
                                   *size);
    cuzk_infile_close(&f);
    if (s == CUZK_OK)
        s = wc_check_wasm(*w, *size, path, NULL, err);
    if (s != CUZK_OK) {
        free(*w);
        *w = NULL;
    }
    return s;
}

/* The constants the module's size and version functions return, read from
 * their bodies without running them. */
enum { V_MAJ, V_MIN, V_PAT, V_WIT, V_INP, V_LEN, V_PRIME, V_N };
typedef struct inspect_consts {
    int got[V_N];         /* const_body's answer: 0 none, 1 or 2 values */
    int32_t val[V_N][2];
    const uint8_t *data, *data_end; /* the data section */
} inspect_consts;

/* One walk over the sections: the imports (functions come first in the
 * index space), the exports named in |want|, the code of those, the data. */
static void inspect_scan(const uint8_t *w, size_t size, inspect_consts *c) {
    static const char *const want[V_N] = {"getVersion",     "getMinorVersion", "getPatchVersion",
                                          "getWitnessSize", "getInputSize",    "getFieldNumLen32",
                                          "getRawPrime"};
    uint32_t fidx[V_N], n_imported = 0;
    for (int k = 0; k < V_N; k++)
        fidx[k] = UINT32_MAX;
    wasm_rd r = {w + 8, w + size, 0};
    while (r.p < r.end && !r.bad) {
        uint8_t id = *r.p++;
        uint32_t len = rd_leb(&r);
        if (r.bad || (size_t)(r.end - r.p) < len)
            break;
        wasm_rd sec = {r.p, r.p + len, 0};
        r.p += len;
        uint32_t n = id == 2 || id == 7 || id == 10 ? rd_leb(&sec) : 0, l;
        for (uint32_t i = 0; i < n && !sec.bad && sec.p < sec.end; i++) {
            if (id == 2) {
                rd_name(&sec, &l);
                rd_name(&sec, &l);
                uint8_t kind = sec.p < sec.end ? *sec.p++ : 0xff;
                if (kind == 0)
                    n_imported++, rd_leb(&sec);
                else /* checked by check_wasm: only functions are imported */
                    sec.bad = 1;
            } else if (id == 7) {
                const uint8_t *nm = rd_name(&sec, &l);
                uint8_t kind = sec.p < sec.end ? *sec.p++ : 0xff;
                uint32_t idx = rd_leb(&sec);
                for (int k = 0; kind == 0 && nm && k < V_N; k++)
                    if (name_is(nm, l, want[k]))
                        fidx[k] = idx;
            } else {
                uint32_t blen = rd_leb(&sec);
                if (sec.bad || (size_t)(sec.end - sec.p) < blen)
                    break;
                for (int k = 0; k < V_N; k++)
                    if (fidx[k] == n_imported + i)
                        c->got[k] = const_body(sec.p, sec.p + blen, c->val[k]);
                sec.p += blen;
            }
        }
        if (id == 11)
            c->data = sec.p, c->data_end = sec.end;
    }
}

/* The prime: getFieldNumLen32 words at getRawPrime's source, in an active
 * data segment. */
static void inspect_prime(const inspect_consts *c, cuzk_wc_wasm_info *info) {
    uint32_t n8 = c->got[V_LEN] == 1 ? 4 * (uint32_t)c->val[V_LEN][0] : 0;
    if (c->got[V_PRIME] != 2 || !c->data || !n8 || n8 > sizeof info->prime)
        return;
    uint32_t at = (uint32_t)c->val[V_PRIME][0];
    wasm_rd d = {c->data, c->data_end, 0};
    uint32_t n = rd_leb(&d);
    for (uint32_t i = 0; i < n && !d.bad && d.p < d.end; i++) {
        uint32_t flags = rd_leb(&d);
        int32_t off = 0;
        if (flags == 0 && d.p < d.end && *d.p == 0x41) {
            d.p++;
            off = rd_sleb(&d);
            if (d.p < d.end && *d.p == 0x0b)
                d.p++;
            else
                d.bad = 1;
        } else if (flags != 1) {
            return; /* a form circom does not write */
        }
        uint32_t len = rd_leb(&d);
        if (d.bad || (size_t)(d.end - d.p) < len)
            return;
        if (flags == 0 && at >= (uint32_t)off && at - (uint32_t)off + n8 <= len) {
            memcpy(info->prime, d.p + (at - (uint32_t)off), n8);
            info->curve = cuzk_curve_from_r(info->prime, n8);
            return;
        }
        d.p += len;
    }
}

cuzk_status cuzk_wc_wasm_inspect(cuzk_wc_wasm_info *info, const char *path,
                                 const cuzk_wc_opts *o, cuzk_error *err) {
    memset(info, 0, sizeof *info);
    uint8_t *w = NULL;
    size_t size = 0;
    cuzk_status s = inspect_read(path, o, &w, &size, err);
    info->wasm_bytes = size;
    if (s != CUZK_OK)
        return s;
    inspect_consts c = {0};
    inspect_scan(w, size, &c);
    if (c.got[V_MAJ] == 1 && c.got[V_MIN] == 1 && c.got[V_PAT] == 1) {
        info->version[0] = (unsigned)c.val[V_MAJ][0];
        info->version[1] = (unsigned)c.val[V_MIN][0];
        info->version[2] = (unsigned)c.val[V_PAT][0];
    }
    if (c.got[V_WIT] == 1)
        info->n_witness = (uint32_t)c.val[V_WIT][0];
    if (c.got[V_INP] == 1)
        info->n_inputs = (uint32_t)c.val[V_INP][0];
    inspect_prime(&c, info);
    wc_cache_probe(w, size, o, info);
    free(w);
    return CUZK_OK;
}
