/*
 * The .zkey reader and writer (groth16/formats/zkey.h) against the committed
 * interop fixtures of both curves (tests/formats_util.h): the header
 * against the r1cs counts, the section-4 coefficients against the r1cs
 * rows, the key against its witness, every point on the curve, copies out
 * of a point view, snarkjs's sections 1..9 reproduced byte for byte by our
 * writer (section 10 is ours), a fresh-setup key whose sections are out
 * of id order, keys paired with witnesses and r1cs files that are not
 * theirs, and paths that are not a key.  With CUZK_FORMATS_OUT set the
 * rewritten keys are left in <dir>/<curve>/<name>.zkey for
 * tests/interop/run.sh to hand to snarkjs.  The other readers have their
 * own programs (test_formats_r1cs, _wtns, _json); the malformed files are
 * tests/test_formats_damage.c.
 */
#include "formats_util.h"

static void check_header(const loaded *L, int ci, const circuit_info *in) {
    CHECK(L->zkey.curve == curve_of[ci], "%s: zkey curve", in->name);
    CHECK(L->zkey.n_vars == in->wires && L->zkey.n_public == in->pub_in + in->pub_out &&
              L->zkey.domain_size == in->domain &&
              (1u << L->zkey.log_domain_size) == in->domain,
          "%s: zkey header nVars %u nPublic %u domain %u", in->name, L->zkey.n_vars,
          L->zkey.n_public, L->zkey.domain_size);
    CHECK(L->zkey.n_contributions == 1, "%s: one phase-2 contribution", in->name);
}

static void check_consistency(loaded *L, const circuit_info *in) {
    cuzk_error err;
    cuzk_status st = cuzk_zkey_check_r1cs(&L->zkey, &L->r1cs, &err);
    CHECK(st == CUZK_OK, "%s: zkey vs r1cs: %s", in->name, err.msg);
    st = cuzk_check_zkey_wtns(&L->zkey, &L->wtns, &err);
    CHECK(st == CUZK_OK, "%s: zkey vs wtns: %s", in->name, err.msg);
    st = cuzk_zkey_check_points(&L->zkey, 1, &err);
    CHECK(st == CUZK_OK, "%s: zkey points: %s", in->name, err.msg);

    /* Copies out of a view are the file's bytes; ranges past the end fail. */
    size_t g2 = L->zkey.b2.elem_bytes;
    uint8_t *tmp = malloc(g2 * L->zkey.n_vars);
    CHECK(cuzk_zkey_points_copy(&L->zkey.b2, 0, L->zkey.n_vars, tmp, &err) == CUZK_OK &&
              memcmp(tmp, L->zkey.b2.data, g2 * L->zkey.n_vars) == 0,
          "%s: B2 copy", in->name);
    CHECK(cuzk_zkey_points_copy(&L->zkey.a, 1, L->zkey.n_vars, tmp, &err) == CUZK_EINVAL,
          "%s: copy past the end accepted", in->name);
    free(tmp);
}

/* Sections 1..9 byte-identical to snarkjs's, 10 is ours. */
static void check_round_trip(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    uint8_t *buf, *orig;
    size_t len, olen;
    cuzk_zkey_coef *coefs = malloc((L->zkey.n_coefs + 1) * sizeof *coefs);
    cuzk_status st = cuzk_zkey_read_coefs(&L->zkey, coefs, &err);
    CHECK(st == CUZK_OK, "%s: coefs: %s", in->name, err.msg);
    orig = tu_read_file(fixture_path(ci, in->name, "zkey"), &olen);
    if (st == CUZK_OK)
        st = cuzk_zkey_write_mem(&L->zkey, coefs, L->zkey.n_coefs, &buf, &len, &err);
    CHECK(st == CUZK_OK, "%s: zkey write: %s", in->name, err.msg);
    if (st == CUZK_OK) {
        static const uint32_t ids[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        cuzk_zkey back;
        CHECK(same_payloads(orig, olen, buf, len, ids, 9), "%s: zkey payloads", in->name);
        st = cuzk_zkey_from_mem(&back, buf, len, &err);
        CHECK(st == CUZK_OK && back.n_contributions == 0, "%s: zkey reread: %s", in->name,
              err.msg);
        if (st == CUZK_OK) {
            CHECK(cuzk_zkey_check_r1cs(&back, &L->r1cs, &err) == CUZK_OK,
                  "%s: rewritten zkey vs r1cs: %s", in->name, err.msg);
            CHECK(!memcmp(&back.vk, &L->zkey.vk, sizeof back.vk), "%s: header points",
                  in->name);
        }
        cuzk_zkey_close(&back);
        char name[128];
        snprintf(name, sizeof name, "%s.zkey", in->name);
        write_out(curve_dir[ci], name, buf, len);
        free(buf);
    }
    free(orig);
    free(coefs);
}

static void check_fixture(loaded *L, int ci, const circuit_info *in) {
    check_header(L, ci, in);
    check_consistency(L, in);
    check_round_trip(L, ci, in);
}

/* The fresh-setup key: sections physically out of id order. */
static void check_fresh_setup(loaded all[2][N_CIRCUITS]) {
    for (int ci = 0; ci < 2; ci++) {
        cuzk_zkey z0;
        cuzk_error err;
        cuzk_status st = cuzk_zkey_open(&z0, fixture_path(ci, "multiplier_0000", "zkey"), &err);
        CHECK(st == CUZK_OK && z0.n_contributions == 0, "multiplier_0000: %s", err.msg);
        if (st == CUZK_OK && all[ci][0].ok)
            CHECK(cuzk_zkey_check_r1cs(&z0, &all[ci][0].r1cs, &err) == CUZK_OK,
                  "multiplier_0000 vs r1cs: %s", err.msg);
        cuzk_zkey_close(&z0);
    }
}

/* Keys and witnesses that do not belong together. */
static void check_mismatches(loaded all[2][N_CIRCUITS]) {
    cuzk_error err;
    for (int ci = 0; ci < 2; ci++) {
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            loaded *a = &all[ci][i], *b = &all[ci][(i + 1) % N_CIRCUITS], *o = &all[1 - ci][i];
            if (!a->ok || !b->ok || !o->ok)
                continue;
            EXPECT_REJECT(cuzk_check_zkey_wtns(&a->zkey, &b->wtns, &err), err, CUZK_EMISMATCH,
                          "zkey %s with witness %s", circuits[i].name,
                          circuits[(i + 1) % N_CIRCUITS].name);
            EXPECT_REJECT(cuzk_check_zkey_wtns(&a->zkey, &o->wtns, &err), err, CUZK_ECURVE,
                          "zkey with the other curve's witness");
            EXPECT_REJECT(cuzk_zkey_check_r1cs(&a->zkey, &b->r1cs, &err), err, CUZK_EMISMATCH,
                          "zkey with another r1cs");
            EXPECT_REJECT(cuzk_zkey_check_r1cs(&a->zkey, &o->r1cs, &err), err, CUZK_ECURVE,
                          "zkey with the other curve's r1cs");
        }
    }
}

static void check_files(void) {
    cuzk_error err;
    cuzk_zkey z;
    EXPECT_REJECT(cuzk_zkey_open(&z, "/dev/zero", &err), err, CUZK_EINVAL, "device as zkey");
    char path[] = "/tmp/cuzk_formats_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        close(fd);
        EXPECT_REJECT(cuzk_zkey_open(&z, path, &err), err, CUZK_OK, "empty zkey file");
        unlink(path);
    }
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_formats_zkey");
    static loaded all[2][N_CIRCUITS];
    load_all(all, check_fixture);
    check_fresh_setup(all);
    check_mismatches(all);
    check_files();
    unload_all(all);
    return tu_finish();
}
