/*
 * The .wtns reader and writer (groth16/formats/wtns.h) against the committed
 * interop fixtures of both curves (tests/formats_util.h): the witness
 * count, every value below r, circom's bytes reproduced exactly by our
 * writer, random witnesses through write and read, and paths that are not
 * a regular file (a directory; a FIFO with no writer, which once blocked
 * the reader for good).  The other readers have their own programs
 * (test_formats_r1cs, _zkey, _json); the malformed files are
 * tests/test_formats_damage.c.
 */
#include "formats_util.h"

static void check_fixture(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    CHECK(L->wtns.curve == curve_of[ci], "%s: wtns curve", in->name);
    CHECK(L->wtns.n_witness == in->wires, "%s: nWitness %u", in->name, L->wtns.n_witness);
    cuzk_status st = cuzk_wtns_check_range(&L->wtns, &err);
    CHECK(st == CUZK_OK, "%s: wtns range: %s", in->name, err.msg);

    /* circom writes sections 1, 2 in order, so the bytes must match. */
    uint8_t *buf, *orig;
    size_t len, olen;
    orig = tu_read_file(fixture_path(ci, in->name, "wtns"), &olen);
    st = cuzk_wtns_write_mem(L->wtns.curve, L->w, L->wtns.n_witness, &buf, &len, &err);
    CHECK(st == CUZK_OK && len == olen && !memcmp(buf, orig, len), "%s: wtns bytes: %s",
          in->name, err.msg);
    if (st == CUZK_OK)
        free(buf);
    free(orig);
}

/* Witnesses of random values through write/read. */
static void check_random_round_trips(void) {
    for (unsigned it = 0; it < tu_iters(20); it++) {
        cuzk_curve c = curve_of[it & 1];
        cuzk_error err;
        uint8_t *buf;
        size_t len;
        size_t n = 1 + tu_rand64() % 50;
        cuzk_fr *w = malloc(n * sizeof *w), *w2 = malloc(n * sizeof *w);
        cuzk_fr_set_one(c, &w[0]);
        for (size_t i = 1; i < n; i++)
            random_fr(c, &w[i]);
        cuzk_status st = cuzk_wtns_write_mem(c, w, n, &buf, &len, &err);
        CHECK(st == CUZK_OK, "random wtns write: %s", err.msg);
        if (st == CUZK_OK) {
            cuzk_wtns wt;
            st = cuzk_wtns_from_mem(&wt, buf, len, &err);
            CHECK(st == CUZK_OK && wt.n_witness == n && wt.curve == c, "random wtns: %s", err.msg);
            if (st == CUZK_OK) {
                st = cuzk_wtns_to_mont(&wt, w2, 0, n, &err);
                CHECK(st == CUZK_OK && !memcmp(w, w2, n * sizeof *w), "random wtns values");
                CHECK(cuzk_wtns_to_mont(&wt, w2, n, 1, &err) == CUZK_EINVAL, "to_mont range");
            }
            cuzk_wtns_close(&wt);
            free(buf);
        }
        random_fr(c, &w[0]);
        if (!cuzk_fr_eq(&w[0], &w2[0]))
            EXPECT_REJECT(cuzk_wtns_write_mem(c, w, n, &buf, &len, &err), err, CUZK_EINVAL,
                          "wtns writer accepted w[0] != 1");
        free(w);
        free(w2);
    }
}

static void check_files(void) {
    cuzk_error err;
    cuzk_wtns w;
    EXPECT_REJECT(cuzk_wtns_open(&w, "/", &err), err, CUZK_EINVAL, "directory as wtns");
    /* A FIFO with no writer: opening it for reading used to block for good. */
    char fifo[] = "/tmp/cuzk_fifo_XXXXXX";
    int tfd = mkstemp(fifo);
    CHECK(tfd >= 0, "mkstemp for the fifo name");
    if (tfd >= 0) {
        close(tfd);
        unlink(fifo);
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
        EXPECT_REJECT(cuzk_wtns_open(&w, fifo, &err), err, CUZK_EINVAL, "fifo as wtns");
        unlink(fifo);
    }
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_formats_wtns");
    static loaded all[2][N_CIRCUITS];
    load_all(all, check_fixture);
    check_random_round_trips();
    check_files();
    unload_all(all);
    return tu_finish();
}
