/*
 * Files a client names, read safely (util/infile.h and the part readers of
 * groth16/formats/wtns.h and abc.h):
 *
 * - a FIFO with no writer, a character device and a folder are refused at
 *   once (a blocking open of the FIFO would hang this program: CTest's
 *   timeout then fails it);
 * - a file truncated after it was opened gives CUZK_EIO saying so (a
 *   mapping would have killed the process with SIGBUS), for the raw
 *   reads, the .wtns and image part readers and the whole-file reader;
 * - a bound is enforced before a byte is read (a 3 GiB sparse file costs
 *   nothing), and an empty file is refused where asked;
 * - the image part reader agrees with the whole-image reader on random
 *   images of both curves (the same Montgomery a, b, c, the same witness),
 *   names the same first value >= r, and compares the header with a key
 *   before reading any value; the .wtns part reader agrees with the whole
 *   reader;
 * - a section table read from a file is bounded.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats_util.h"
#include "groth16/formats/abc.h"
#include "groth16/formats/wtns.h"
#include "util/infile.h"

static char dir[] = "/tmp/cuzk-infile-XXXXXX";

static const char *path_of(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put_file(const char *path, const void *data, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    CHECK(fd >= 0 && write(fd, data, n) == (ssize_t)n, "cannot write %s", path);
    if (fd >= 0)
        close(fd);
}

static int msg_has(const cuzk_error *e, const char *text) {
    return strstr(e->msg, text) != NULL;
}

static void check_not_regular(void) {
    const char *fifo = path_of("fifo");
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    const char *names[3] = {fifo, "/dev/null", dir};
    for (int i = 0; i < 3; i++) {
        cuzk_infile f;
        cuzk_error err = {0};
        cuzk_status st = cuzk_infile_open(&f, names[i], "witness", &err);
        CHECK(st == CUZK_EINVAL && f.fd == -1 && msg_has(&err, "not a regular file"),
              "%s: %s (%s)", names[i], cuzk_status_name(st), err.msg);
        uint8_t *buf = NULL;
        size_t n = 7;
        st = cuzk_infile_read_all(names[i], "witness", 1 << 20, 0, &buf, &n, &err);
        CHECK(st == CUZK_EINVAL && buf == NULL && n == 0, "read_all %s: %s", names[i], err.msg);
        cuzk_wtns_head wh;
        st = cuzk_wtns_head_open(&wh, names[i], &err);
        CHECK(st == CUZK_EINVAL, "wtns head %s: %s", names[i], err.msg);
        cuzk_abc_head ah;
        st = cuzk_abc_head_open(&ah, names[i], &err);
        CHECK(st == CUZK_EINVAL, "abc head %s: %s", names[i], err.msg);
        cuzk_wtns w;
        st = cuzk_wtns_open(&w, names[i], &err);
        CHECK(st == CUZK_EINVAL, "wtns open %s: %s", names[i], err.msg);
        cuzk_abc x;
        st = cuzk_abc_open(&x, names[i], &err);
        CHECK(st == CUZK_EINVAL, "abc open %s: %s", names[i], err.msg);
    }
    cuzk_infile f;
    cuzk_error err = {0};
    CHECK(cuzk_infile_open(&f, path_of("absent"), "witness", &err) == CUZK_EIO &&
              msg_has(&err, "cannot open"),
          "missing file: %s", err.msg);
}

static void check_raw_reads(void) {
    uint8_t data[4096], back[4096];
    tu_rand_bytes(data, sizeof data);
    const char *p = path_of("raw");
    put_file(p, data, sizeof data);
    cuzk_infile f;
    cuzk_error err = {0};
    CHECK(cuzk_infile_open(&f, p, "raw", &err) == CUZK_OK && f.size == sizeof data, "open raw");
    CHECK(cuzk_infile_pread(&f, back, 1000, 3000, &err) == CUZK_OK &&
              !memcmp(back, data + 3000, 1000),
          "pread at 3000: %s", err.msg);
    /* truncated under the reader: an error that says so, no fault */
    CHECK(truncate(p, 2000) == 0, "truncate");
    cuzk_status st = cuzk_infile_pread(&f, back, 1000, 1500, &err);
    CHECK(st == CUZK_EIO && msg_has(&err, "truncated while it was read") &&
              msg_has(&err, "ends at byte 2000"),
          "read past a truncation: %s (%s)", cuzk_status_name(st), err.msg);
    CHECK(cuzk_infile_pread(&f, back, 500, 1500, &err) == CUZK_OK &&
              !memcmp(back, data + 1500, 500),
          "read before the truncation");
    cuzk_infile_close(&f);
    CHECK(f.fd == -1, "closed");
    cuzk_infile_close(&f); /* twice is fine */

    /* bounds before any read: a 3 GiB sparse file */
    const char *big = path_of("sparse");
    put_file(big, "x", 1);
    CHECK(truncate(big, (off_t)3 << 30) == 0, "sparse file");
    uint8_t *buf = NULL;
    size_t n = 0;
    st = cuzk_infile_read_all(big, "witness", 1 << 20, 1, &buf, &n, &err);
    CHECK(st == CUZK_ERANGE && !buf && msg_has(&err, "more than the limit of 1048576"),
          "over the bound: %s (%s)", cuzk_status_name(st), err.msg);
    unlink(big);
    const char *empty = path_of("empty");
    put_file(empty, "", 0);
    st = cuzk_infile_read_all(empty, "witness", 100, 1, &buf, &n, &err);
    CHECK(st == CUZK_EFORMAT && msg_has(&err, "is empty"), "empty: %s", err.msg);
    st = cuzk_infile_read_all(empty, "witness", 100, 0, &buf, &n, &err);
    CHECK(st == CUZK_OK && n == 0 && buf, "empty allowed: %s", err.msg);
    free(buf);
    st = cuzk_infile_read_all(p, "raw", 1 << 20, 1, &buf, &n, &err);
    CHECK(st == CUZK_OK && n == 2000 && !memcmp(buf, data, 2000), "read_all: %s", err.msg);
    free(buf);
}

static void check_wtns_parts(cuzk_curve c) {
    size_t n = 2 + tu_rand64() % 300;
    cuzk_fr *w = malloc(n * sizeof *w), *back = malloc(n * sizeof *w);
    cuzk_fr_set_one(c, &w[0]);
    for (size_t i = 1; i < n; i++)
        random_fr(c, &w[i]);
    uint8_t *img;
    size_t len;
    cuzk_error err = {0};
    CHECK(cuzk_wtns_write_mem(c, w, n, &img, &len, &err) == CUZK_OK, "wtns write: %s", err.msg);
    const char *p = path_of("w.wtns");
    put_file(p, img, len);
    cuzk_wtns whole;
    cuzk_wtns_head h;
    CHECK(cuzk_wtns_open(&whole, p, &err) == CUZK_OK, "whole: %s", err.msg);
    CHECK(cuzk_wtns_head_open(&h, p, &err) == CUZK_OK, "head: %s", err.msg);
    CHECK(h.curve == c && h.n_witness == n, "head: curve and count");
    CHECK(cuzk_wtns_head_read(&h, back, 0, n, &err) == CUZK_OK &&
              !memcmp(back, whole.values, 32 * n),
          "head read = whole read: %s", err.msg);
    CHECK(cuzk_wtns_head_read(&h, back, 1, n, &err) == CUZK_EINVAL, "beyond nWitness");
    CHECK(truncate(p, (off_t)(len - 40)) == 0, "truncate wtns");
    cuzk_status st = cuzk_wtns_head_read(&h, back, 0, n, &err);
    CHECK(st == CUZK_EIO && msg_has(&err, "truncated while it was read"),
          "wtns truncated under the reader: %s", err.msg);
    cuzk_wtns_head_close(&h);
    cuzk_wtns_close(&whole);
    /* the header is what the part reader checks: the same words as the
     * whole reader for a cut file */
    cuzk_error e1 = {0}, e2 = {0};
    st = cuzk_wtns_head_open(&h, p, &e1);
    CHECK(st == CUZK_EFORMAT && cuzk_wtns_open(&whole, p, &e2) == st && !strcmp(e1.msg, e2.msg),
          "cut wtns: '%s' / '%s'", e1.msg, e2.msg);
    /* a section table longer than any .wtns has, read from a file */
    uint8_t t[12 + 12 * 70] = {'w', 't', 'n', 's', 2, 0, 0, 0, 70, 0, 0, 0};
    for (int i = 0; i < 70; i++)
        t[12 + 12 * i] = (uint8_t)(i + 1);
    put_file(p, t, sizeof t);
    st = cuzk_wtns_head_open(&h, p, &err);
    CHECK(st == CUZK_EFORMAT && msg_has(&err, "more than the 64"), "long table: %s", err.msg);
    free(img);
    free(w);
    free(back);
}

/* A random image of |c| with |m| rows and |nv| values (malloc'd). */
static uint8_t *random_image(cuzk_curve c, size_t m, size_t nv, size_t *len) {
    cuzk_fr *v = malloc((3 * m + nv) * sizeof *v);
    for (size_t i = 0; i < 3 * m + nv; i++)
        random_fr(c, &v[i]);
    cuzk_fr_set_one(c, &v[3 * m]);
    uint8_t *img = NULL;
    cuzk_error err = {0};
    CHECK(cuzk_abc_write_mem(c, v, v + m, v + 2 * m, m, v + 3 * m, nv, &img, len, &err) ==
              CUZK_OK,
          "image write: %s", err.msg);
    free(v);
    return img;
}

static void check_abc_parts(cuzk_curve c, cuzk_pool *pool) {
    size_t m = 1 + tu_rand64() % 200, nv = 1 + tu_rand64() % 100, n = 256, len;
    uint8_t *img = random_image(c, m, nv, &len);
    const char *p = path_of("x.abc");
    put_file(p, img, len);
    cuzk_error err = {0};
    cuzk_abc whole;
    cuzk_abc_head h;
    CHECK(cuzk_abc_open(&whole, p, &err) == CUZK_OK, "whole image: %s", err.msg);
    CHECK(cuzk_abc_head_open(&h, p, &err) == CUZK_OK && h.m == m && h.n_vars == nv &&
              h.curve == c,
          "image head: %s", err.msg);
    cuzk_fr *want = malloc(3 * n * sizeof *want), *got = malloc(3 * n * sizeof *got);
    cuzk_fr *ww = malloc(nv * sizeof *ww), *wg = malloc(nv * sizeof *wg);
    cuzk_abc_to_mont(&whole, want, n, NULL);
    cuzk_abc_witness_plain(&whole, ww);
    memset(got, 0xa5, 3 * n * sizeof *got); /* the padding must be written */
    CHECK(cuzk_abc_head_read_abc(&h, got, n, pool, &err) == CUZK_OK &&
              !memcmp(got, want, 3 * n * sizeof *got),
          "part-read a, b, c = whole: %s", err.msg);
    CHECK(cuzk_abc_head_read_witness(&h, wg, pool, &err) == CUZK_OK &&
              !memcmp(wg, ww, nv * sizeof *wg),
          "part-read w = whole: %s", err.msg);
    /* the key's shape, before any value */
    cuzk_error e1 = {0}, e2 = {0};
    cuzk_curve other = c == CUZK_CURVE_BN254 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
    CHECK(cuzk_abc_head_check_key(&h, c, nv, 8, &err) == CUZK_OK, "fits its key");
    CHECK(cuzk_abc_head_check_key(&h, c, nv + 1, 8, &e1) == CUZK_EMISMATCH &&
              cuzk_abc_check_key(&whole, c, nv + 1, 8, &e2) == CUZK_EMISMATCH &&
              !strcmp(e1.msg, e2.msg),
          "n_vars: '%s'", e1.msg);
    CHECK(cuzk_abc_head_check_key(&h, other, nv, 8, &e1) == CUZK_ECURVE, "curve: %s", e1.msg);
    if (m > 1)
        CHECK(cuzk_abc_head_check_key(&h, c, nv, 0, &e1) == CUZK_EMISMATCH &&
                  msg_has(&e1, "more than the key's domain"),
              "rows: %s", e1.msg);
    cuzk_abc_head_close(&h);
    cuzk_abc_close(&whole);

    /* a value >= r: the same first one named by both readers */
    size_t item = tu_rand64() % (3 * m + nv);
    if (item == 3 * m)
        item++; /* w[0] is 1 by construction */
    if (item < 3 * m + nv) {
        memset(img + CUZK_ABC_HEADER_BYTES + 32 * item, 0xff, 32);
        put_file(p, img, len);
        CHECK(cuzk_abc_open(&whole, p, &e1) == CUZK_ERANGE, "whole: a value >= r: %s", e1.msg);
        CHECK(cuzk_abc_head_open(&h, p, &err) == CUZK_OK, "head of a bad image: %s", err.msg);
        cuzk_status s1 = cuzk_abc_head_read_witness(&h, wg, pool, &e2);
        if (s1 == CUZK_OK)
            s1 = cuzk_abc_head_read_abc(&h, got, n, pool, &e2);
        CHECK(s1 == CUZK_ERANGE && !strcmp(e1.msg, e2.msg), "item %zu: '%s' / '%s'", item,
              e1.msg, e2.msg);
        cuzk_abc_head_close(&h);
    }

    /* truncated under the reader */
    free(img);
    img = random_image(c, m, nv, &len);
    put_file(p, img, len);
    CHECK(cuzk_abc_head_open(&h, p, &err) == CUZK_OK, "head: %s", err.msg);
    CHECK(truncate(p, CUZK_ABC_HEADER_BYTES + 16) == 0, "truncate image");
    cuzk_status st = cuzk_abc_head_read_abc(&h, got, n, pool, &err);
    CHECK(st == CUZK_EIO && msg_has(&err, "truncated while it was read"),
          "image truncated under the reader: %s", err.msg);
    st = cuzk_abc_head_read_witness(&h, wg, pool, &err);
    CHECK(st == CUZK_EIO, "witness truncated under the reader: %s", err.msg);
    cuzk_abc_head_close(&h);

    /* a 3 GiB sparse image whose header fits its size: the header alone
     * is read (the key's domain refuses it before any value) */
    uint8_t hdr[CUZK_ABC_HEADER_BYTES];
    memcpy(hdr, img, sizeof hdr);
    uint64_t big_m = (uint64_t)1 << 25;
    for (int i = 0; i < 8; i++)
        hdr[16 + i] = (uint8_t)(big_m >> (8 * i));
    const char *sp = path_of("sparse.abc");
    put_file(sp, hdr, sizeof hdr);
    CHECK(truncate(sp, (off_t)(CUZK_ABC_HEADER_BYTES + 32 * (3 * big_m + nv))) == 0, "sparse");
    CHECK(cuzk_abc_head_open(&h, sp, &err) == CUZK_OK && h.m == big_m, "sparse head: %s",
          err.msg);
    CHECK(cuzk_abc_head_check_key(&h, c, nv, 8, &err) == CUZK_EMISMATCH &&
              msg_has(&err, "33554432 rows"),
          "sparse image against a small key: %s", err.msg);
    cuzk_abc_head_close(&h);
    unlink(sp);
    free(img);
    free(want);
    free(got);
    free(ww);
    free(wg);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_infile");
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return tu_finish();
    }
    cuzk_error err = {0};
    cuzk_pool *pool = cuzk_pool_create(2, &err);
    CHECK(pool != NULL, "pool: %s", err.msg);
    check_not_regular();
    check_raw_reads();
    for (unsigned it = 0; it < tu_iters(4); it++) {
        for (int ci = 0; ci < 2; ci++) {
            check_wtns_parts(curve_of[ci]);
            check_abc_parts(curve_of[ci], it & 1 ? pool : NULL);
        }
    }
    cuzk_pool_destroy(pool);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return tu_finish();
}
