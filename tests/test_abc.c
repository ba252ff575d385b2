/*
 * The a, b, c image (groth16/formats/abc.h) and the prover that starts from it
 * (P_groth16_prove_abc_with_scratch through the curve table).
 *
 * For both curves and generated circuits of 2^10 to 2^16 with development
 * keys: the image of a witness (cuzk_abc_from_witness) proves with the same
 * fixed r, s to the byte-identical proof the R1CS path (evaluate, h, MSMs)
 * makes, and it verifies; so does the same image with a key whose
 * coefficient list was removed (2^10 to 2^12), for which a witness is
 * refused.
 *
 * Bad images, each with its own status and a message naming what is wrong,
 * and nothing changed (the reader's struct zeroed, the proof untouched):
 * lengths that disagree with the key (witness count, rows above the
 * domain), a value >= r in each of a, b, c and w, an image of the other
 * curve, an unknown curve id, the image truncated at several cut points or
 * with a trailing byte, garbage magic, an unknown version, w[0] != 1,
 * and counts whose 64-bit size wraps to the real size (m or n_vars plus
 * 2^59), from memory and from a file opened for reading in parts.
 * Writing and reading back round-trips, through memory and a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/formats/abc.h"
#include "groth16/prover/abc_image.h"
#include "groth16/curve_impl.h"
#include "groth16/prover/key.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"
#include "cpu_prove.h"
#include "testutil.h"

static cuzk_pool *pool;

static int proof_bytes_equal(const cuzk_curve_impl *ci, const cuzk_proof *a, const cuzk_proof *b) {
    uint8_t x[512], y[512];
    if (a->curve != b->curve)
        return 0;
    size_t n = ci->proof_encode_raw(x, a);
    ci->proof_encode_raw(y, b);
    return memcmp(x, y, n) == 0;
}

static int all_zero(const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Opening |img| (|size| bytes) fails with |want| and a message that
 * contains |says|; the reader's struct is left zeroed. */
static void refused(const uint8_t *img, size_t size, cuzk_status want, const char *says,
                    const char *what) {
    cuzk_abc x;
    cuzk_error err = {0};
    memset(&x, 0x5a, sizeof x);
    cuzk_status st = cuzk_abc_from_mem(&x, img, size, &err);
    CHECK(st == want && strstr(err.msg, says) != NULL && all_zero(&x, sizeof x),
          "%s: status %d (want %d), message \"%s\" (want \"%s\")", what, (int)st, (int)want,
          err.msg, says);
}

/* Plain (file-form) limbs of |x|, Montgomery of |ci|'s field. */
static void to_plain(const cuzk_curve_impl *ci, cuzk_fr *out, const cuzk_fr *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        ci->fr_to_le(le, &x[i]);
        memcpy(out[i].l, le, 32);
    }
}

/* Random Montgomery scalar (replayable from the test's seed). */
static void rand_fr(const cuzk_curve_impl *ci, cuzk_fr *out) {
    uint64_t l[4];
    tu_rand_below(l, ci->r_limbs, 4);
    ci->fr_to_mont(out, l);
}

/* Counts past 2^40 in the header of |img| (a good image of |m| rows):
 * 2^59 more rows or witness values make 32 * (3m + n_vars) wrap to the
 * image's real size modulo 2^64, so only the bound on the counts can
 * refuse them; the file reader of the header alone must say the same.
 * The file is tried first: it reads no values, so a missing bound shows
 * there as an image accepted rather than as a read past the buffer. */
static void overflowing_counts(const uint8_t *img, size_t size, uint64_t m, uint64_t nv) {
    uint8_t *bad = malloc(size);
    for (int which = 0; which < 2; which++) {
        char what[64];
        memcpy(bad, img, size);
        cuzk_wr_u64(bad + (which ? 24 : 16), (which ? nv : m) + ((uint64_t)1 << 59));
        snprintf(what, sizeof what, "%s + 2^59", which ? "n_vars" : "m");
        char path[] = "/tmp/cuzk-test-abc-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0 && write(fd, bad, size) == (ssize_t)size, "temporary file");
        if (fd >= 0)
            close(fd);
        cuzk_abc_head h;
        cuzk_error err = {0};
        cuzk_status st = cuzk_abc_head_open(&h, path, &err);
        CHECK(st == CUZK_EFORMAT && strstr(err.msg, "beyond any key"),
              "%s, read in parts from a file: status %d, \"%s\"", what, (int)st, err.msg);
        if (st == CUZK_OK)
            cuzk_abc_head_close(&h);
        unlink(path);
        refused(bad, size, CUZK_EFORMAT, "beyond any key", what);
    }
    free(bad);
}

/* The bad images of one size: |img| is a good image for |k|. */
static void bad_images(const cuzk_curve_impl *ci, const cuzk_key *k, const uint8_t *img,
                       size_t size, const cuzk_fr *wit, size_t nv) {
    cuzk_abc x;
    cuzk_error err = {0};
    uint8_t *bad = malloc(size + 1);
    size_t n = (size_t)1 << ci->key_log_n(k);
    CHECK(cuzk_abc_from_mem(&x, img, size, &err) == CUZK_OK, "good image opens: %s", err.msg);
    size_t m = (size_t)x.m;
    cuzk_abc_close(&x);

    /* truncated at several cut points, and one byte too many */
    size_t cuts[] = {0, 4, 8, 12, 20, 31, 32, 33, 32 + 32 * m, size / 2, size - 32, size - 1};
    for (size_t i = 0; i < TU_COUNT(cuts); i++) {
        char what[64];
        snprintf(what, sizeof what, "cut at %zu of %zu bytes", cuts[i], size);
        refused(img, cuts[i], CUZK_EFORMAT,
                cuts[i] < 8 ? "not an a, b, c image" : "truncated", what);
    }
    memcpy(bad, img, size);
    bad[size] = 0;
    refused(bad, size + 1, CUZK_EFORMAT, "trailing bytes", "one byte too many");

    /* garbage magic, unknown version, unknown curve, w[0] */
    memcpy(bad, img, size);
    memcpy(bad, "wtns\2\0\0\0", 8);
    refused(bad, size, CUZK_EFORMAT, "magic", "a .wtns magic");
    memcpy(bad, img, size);
    bad[3] ^= 0x20;
    refused(bad, size, CUZK_EFORMAT, "magic", "garbage magic");
    memcpy(bad, img, size);
    cuzk_wr_u32(bad + 8, 2);
    refused(bad, size, CUZK_EUNSUPPORTED, "version 2", "version 2");
    memcpy(bad, img, size);
    cuzk_wr_u32(bad + 12, 77);
    refused(bad, size, CUZK_ECURVE, "curve id 77", "curve id 77");
    memcpy(bad, img, size);
    bad[CUZK_ABC_HEADER_BYTES + 96 * m] = 2;
    refused(bad, size, CUZK_EFORMAT, "w[0] is not 1", "w[0] = 2");
    overflowing_counts(img, size, m, nv);

    /* a value >= r in each vector: r itself, and all ones */
    static const char *names[4] = {"a", "b", "c", "w"};
    for (unsigned v = 0; v < 4; v++) {
        size_t at = v < 3 ? (3 + v) % m : 1 + v % (nv - 1);
        size_t off = CUZK_ABC_HEADER_BYTES + 32 * (v * m + at);
        char says[32], what[64];
        snprintf(says, sizeof says, "%s[%zu] is not below r", names[v], at);
        memcpy(bad, img, size);
        for (int l = 0; l < 4; l++)
            cuzk_wr_u64(bad + off + 8 * l, ci->r_limbs[l]);
        snprintf(what, sizeof what, "%s = r", says);
        refused(bad, size, CUZK_ERANGE, says, what);
        memset(bad + off, 0xff, 32);
        snprintf(what, sizeof what, "%s = 2^256 - 1", says);
        refused(bad, size, CUZK_ERANGE, says, what);
    }

    /* lengths that disagree with the key: the reader takes them, the key
     * check and the prover refuse them, and the proof is left alone */
    cuzk_fr *zero = calloc(n + 1, sizeof *zero), one;
    cuzk_fr *w = malloc(nv * sizeof *w);
    uint8_t *img2;
    size_t size2;
    ci->fr_set_one(&one);
    memcpy(w, wit, nv * sizeof *w);
    struct {
        size_t m, nv;
        const char *says;
    } lens[] = {{n + 1, nv, "more than the key's domain"},
                {m, nv - 1, "witness values, the key expects"},
                {m, nv + 1, "witness values, the key expects"}};
    cuzk_fr *wl = malloc((nv + 1) * sizeof *wl);
    memcpy(wl, w, nv * sizeof *wl);
    wl[nv] = one;
    for (size_t i = 0; i < TU_COUNT(lens); i++) {
        CHECK(cuzk_abc_write_mem(ci->id, zero, zero, zero, lens[i].m, wl, lens[i].nv, &img2,
                                 &size2, &err) == CUZK_OK,
              "write an image of %zu rows, %zu values: %s", lens[i].m, lens[i].nv, err.msg);
        CHECK(cuzk_abc_from_mem(&x, img2, size2, &err) == CUZK_OK, "it opens: %s", err.msg);
        cuzk_error e1 = {0}, e2 = {0};
        cuzk_proof p;
        memset(&p, 0xa5, sizeof p);
        cuzk_status s1 = cuzk_abc_check_key(&x, ci->id, ci->key_n_vars(k), ci->key_log_n(k), &e1);
        cuzk_status s2 = tu_abc_prove(k, &x, &one, &one, &p, pool, NULL, &e2);
        uint8_t pat[sizeof p];
        memset(pat, 0xa5, sizeof pat);
        CHECK(s1 == CUZK_EMISMATCH && s2 == CUZK_EMISMATCH && strstr(e1.msg, lens[i].says) &&
                  strstr(e2.msg, lens[i].says) && !memcmp(&p, pat, sizeof p),
              "%zu rows, %zu values for a key of 2^%u, %zu: %d \"%s\", %d \"%s\"", lens[i].m,
              lens[i].nv, ci->key_log_n(k), nv, (int)s1, e1.msg, (int)s2, e2.msg);
        cuzk_abc_close(&x);
        free(img2);
    }

    /* an image of the other curve, with the right counts */
    size_t n_curves;
    const cuzk_curve_impl *const *all = cuzk_curve_impl_all(&n_curves);
    for (size_t i = 0; i < n_curves; i++) {
        const cuzk_curve_impl *o = all[i];
        if (o->id == ci->id)
            continue;
        cuzk_fr *ow = calloc(nv, sizeof *ow);
        o->fr_set_one(&ow[0]);
        CHECK(cuzk_abc_write_mem(o->id, zero, zero, zero, m, ow, nv, &img2, &size2, &err) ==
                  CUZK_OK,
              "write a %s image: %s", o->name, err.msg);
        CHECK(cuzk_abc_from_mem(&x, img2, size2, &err) == CUZK_OK, "it opens: %s", err.msg);
        cuzk_error e1 = {0};
        cuzk_proof p;
        memset(&p, 0xa5, sizeof p);
        uint8_t pat[sizeof p];
        memset(pat, 0xa5, sizeof pat);
        cuzk_status s1 = tu_abc_prove(k, &x, &one, &one, &p, pool, NULL, &e1);
        CHECK(s1 == CUZK_ECURVE && strstr(e1.msg, "the image is for") &&
                  !memcmp(&p, pat, sizeof p),
              "a %s image for a %s key: %d \"%s\"", o->name, ci->name, (int)s1, e1.msg);
        cuzk_abc_close(&x);
        free(img2);
        free(ow);
    }

    /* the writer refuses what it could not read back */
    cuzk_fr *w0 = calloc(nv, sizeof *w0);
    CHECK(cuzk_abc_write_mem(ci->id, zero, zero, zero, m, w0, nv, &img2, &size2, &err) ==
                  CUZK_EINVAL &&
              img2 == NULL,
          "writer refuses w[0] = 0: %s", err.msg);
    free(w0);
    free(wl);
    free(w);
    free(zero);
    free(bad);
}

/* A generated circuit on |ci|'s curve with a 2^log2 domain: filling it
 * (|n_constraints| 0), or with |n_constraints| rows and the rest of the
 * domain zero (what exercises the prover's padding). */
static void one_size(const cuzk_curve_impl *ci, unsigned log2, uint32_t n_constraints) {
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    cuzk_error err = {0};
    uint8_t *zbuf = NULL, *img = NULL, *zbuf0 = NULL;
    size_t zsize = 0, isize = 0, zsize0 = 0;
    cuzk_synth_params sp;
    uint64_t seed = tu_rand64();
    cuzk_synth_params_default(&sp, ci->id);
    sp.log2_domain = n_constraints ? 0 : log2;
    sp.n_constraints = n_constraints;
    sp.seed = tu_rand64();
    if (cuzk_synth_circuit(&sp, &r1cs, &wit, &err) != CUZK_OK ||
        cuzk_setup_dev_zkey_mem(&r1cs, &seed, pool, &zbuf, &zsize, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u: generate: %s", ci->name, log2, err.msg);
        return;
    }
    cuzk_zkey z, z0;
    cuzk_key key, key0;
    cuzk_vk vk;
    memset(&key0, 0, sizeof key0);
    if (!(cuzk_zkey_from_mem(&z, zbuf, zsize, &err) == CUZK_OK &&
          cuzk_key_from_zkey(&key, &z, &err) == CUZK_OK && cuzk_key_vk(&key, &vk, &err) == CUZK_OK)) {
        CHECK(0, "%s 2^%u: key: %s", ci->name, log2, err.msg);
        return;
    }
    size_t nv = r1cs.n_wires, n_pub = cuzk_r1cs_n_public(&r1cs), n = (size_t)1 << log2;
    cuzk_fr *plain = malloc(nv * sizeof *plain), r, s;
    cuzk_fr *abc = malloc(3 * n * sizeof *abc);
    to_plain(ci, plain, wit, nv);
    rand_fr(ci, &r);
    rand_fr(ci, &s);

    /* the R1CS path, steps by hand with the fixed r, s */
    cuzk_proof p1, p2, p3;
    cuzk_groth16_timing tm;
    unsigned threads = cuzk_pool_threads(pool);
    size_t eb = ci->evaluate_scratch_bytes(&key), mb = ci->msms_scratch_bytes(&key, threads);
    void *scratch = malloc(eb > mb ? eb : mb);
    CHECK(scratch &&
              ci->evaluate_with_scratch(&key, plain, abc, abc + n, abc + 2 * n, scratch, eb, pool,
                                        &err) == CUZK_OK &&
              ci->compute_h(&key, abc, abc + n, abc + 2 * n, pool, &err) == CUZK_OK &&
              ci->msms_assemble_with_scratch(&p1, &key, plain, abc, &r, &s, scratch, mb, pool, &tm,
                                             &err) == CUZK_OK,
          "%s 2^%u: R1CS path proves: %s", ci->name, log2, err.msg);
    free(scratch);
    CHECK(cuzk_vk_verify(&vk, wit + 1, n_pub, &p1, &err) == CUZK_OK,
          "%s 2^%u: R1CS proof verifies: %s", ci->name, log2, err.msg);

    /* the image path */
    cuzk_abc x;
    CHECK(cuzk_abc_from_witness(&key, plain, nv, pool, &img, &isize, &err) == CUZK_OK &&
              cuzk_abc_from_mem(&x, img, isize, &err) == CUZK_OK,
          "%s 2^%u: image of the witness: %s", ci->name, log2, err.msg);
    size_t rows = n_constraints ? n_constraints + n_pub + 1 : n;
    CHECK(x.curve == ci->id && x.n_vars == nv && x.m == rows,
          "%s 2^%u: header: curve %d, m %llu (domain %zu), n_vars %llu", ci->name, log2,
          (int)x.curve, (unsigned long long)x.m, n, (unsigned long long)x.n_vars);
    memset(&p2, 0, sizeof p2);
    CHECK(tu_abc_prove(&key, &x, &r, &s, &p2, pool, NULL, &err) == CUZK_OK,
          "%s 2^%u: image path proves: %s", ci->name, log2, err.msg);
    CHECK(proof_bytes_equal(ci, &p1, &p2), "%s 2^%u: both paths give the same proof bytes",
          ci->name, log2);
    CHECK(cuzk_vk_verify(&vk, wit + 1, n_pub, &p2, &err) == CUZK_OK,
          "%s 2^%u: image proof verifies: %s", ci->name, log2, err.msg);

    /* a key without its coefficient list proves the image, not a witness
     * (the same arithmetic at every size: the small ones are enough) */
    if (log2 > 12) {
        /* nothing */
    } else if (cuzk_zkey_write_mem(&z, NULL, 0, &zbuf0, &zsize0, &err) != CUZK_OK ||
        cuzk_zkey_from_mem(&z0, zbuf0, zsize0, &err) != CUZK_OK ||
        cuzk_key_from_zkey(&key0, &z0, &err) != CUZK_OK) {
        CHECK(0, "%s 2^%u: key without coefficients: %s", ci->name, log2, err.msg);
    } else {
        CHECK(cuzk_key_n_coefs(&key0) == 0 && cuzk_key_n_coefs(&key) > 0,
              "%s 2^%u: coefficient counts", ci->name, log2);
        memset(&p3, 0, sizeof p3);
        CHECK(tu_abc_prove(&key0, &x, &r, &s, &p3, pool, NULL, &err) == CUZK_OK &&
                  proof_bytes_equal(ci, &p1, &p3),
              "%s 2^%u: the key without coefficients proves the image alike: %s", ci->name, log2,
              err.msg);
        uint8_t *wbuf = NULL;
        size_t wsize = 0;
        cuzk_wtns wt;
        cuzk_error e2 = {0};
        CHECK(cuzk_wtns_write_mem(ci->id, wit, nv, &wbuf, &wsize, &err) == CUZK_OK &&
                  cuzk_wtns_from_mem(&wt, wbuf, wsize, &err) == CUZK_OK,
              "%s 2^%u: witness image: %s", ci->name, log2, err.msg);
        cuzk_status st = tu_key_prove(&key0, &wt, &p3, pool, NULL, &e2);
        CHECK(st == CUZK_EUNSUPPORTED && strstr(e2.msg, "no A and B coefficients"),
              "%s 2^%u: a witness for the key without coefficients: %d \"%s\"", ci->name, log2,
              (int)st, e2.msg);
        uint8_t *img3 = NULL;
        size_t isize3 = 0;
        st = cuzk_abc_from_witness(&key0, plain, nv, pool, &img3, &isize3, &e2);
        CHECK(st == CUZK_EINVAL && img3 == NULL, "%s 2^%u: no image from that key: \"%s\"",
              ci->name, log2, e2.msg);
        cuzk_wtns_close(&wt);
        free(wbuf);
        cuzk_zkey_close(&z0);
    }

    if (log2 == 10 && n_constraints) {
        bad_images(ci, &key, img, isize, wit, nv);
        /* through a file: the same header and values */
        char path[] = "/tmp/cuzk-test-abc-XXXXXX";
        int fd = mkstemp(path);
        cuzk_abc y;
        CHECK(fd >= 0 && write(fd, img, isize) == (ssize_t)isize, "temporary file");
        if (fd >= 0)
            close(fd);
        CHECK(cuzk_abc_file_is_image(path) && cuzk_abc_open(&y, path, &err) == CUZK_OK &&
                  y.m == x.m && y.n_vars == x.n_vars && !memcmp(y.a, x.a, isize - 32),
              "%s: the image reads back from a file: %s", ci->name, err.msg);
        cuzk_abc_close(&y);
        CHECK(cuzk_abc_open(&y, "/nonexistent/x.abc", &err) == CUZK_EIO &&
                  !cuzk_abc_file_is_image("/nonexistent/x.abc"),
              "a missing file: %s", err.msg);
        unlink(path);
    }

    cuzk_abc_close(&x);
    cuzk_key_free(&key0);
    free(zbuf0);
    free(img);
    free(abc);
    free(plain);
    cuzk_vk_clear(&vk);
    cuzk_key_free(&key);
    cuzk_zkey_close(&z);
    free(zbuf);
    free(wit);
    cuzk_r1cs_free(&r1cs);
}

static void curve_tests(const tu_curve *c) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get((cuzk_curve)c->id);
    one_size(ci, 10, 600); /* 603 rows of 1024 */
    for (unsigned log2 = 10; log2 <= 16; log2++)
        one_size(ci, log2, 0);
}

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, curve_tests},
    {"bn254", CUZK_CURVE_BN254, curve_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_abc");
    pool = cuzk_pool_create(2, NULL);
    tu_run_curves(curves, TU_COUNT(curves));
    cuzk_pool_destroy(pool);
    return tu_finish();
}
