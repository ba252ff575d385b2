/*
 * The .r1cs reader and writer (groth16/formats/r1cs.h) against the committed
 * interop fixtures of both curves (tests/formats_util.h): the header
 * counts against what `snarkjs r1cs info` printed for them, the witness
 * checked against every constraint with our Fr arithmetic (a tampered or
 * short witness refused), circom's section payloads reproduced by our
 * writer, random well-formed systems through write and read, and the
 * curve names and primes the header names its curve by.  The other
 * readers have their own programs (test_formats_wtns, _zkey, _json); the
 * malformed files are tests/test_formats_damage.c.
 */
#include "formats_util.h"

static int matrix_eq(const cuzk_r1cs_matrix *a, const cuzk_r1cs_matrix *b, uint32_t rows) {
    return a->nnz == b->nnz &&
           !memcmp(a->row_ptr, b->row_ptr, (rows + 1) * sizeof *a->row_ptr) &&
           !memcmp(a->col, b->col, a->nnz * sizeof *a->col) &&
           !memcmp(a->coef, b->coef, a->nnz * sizeof *a->coef);
}

static int r1cs_eq(const cuzk_r1cs *a, const cuzk_r1cs *b) {
    return a->curve == b->curve && a->n_wires == b->n_wires && a->n_pub_out == b->n_pub_out &&
           a->n_pub_in == b->n_pub_in && a->n_prv_in == b->n_prv_in &&
           a->n_labels == b->n_labels && a->n_constraints == b->n_constraints &&
           matrix_eq(&a->a, &b->a, a->n_constraints) &&
           matrix_eq(&a->b, &b->b, a->n_constraints) &&
           matrix_eq(&a->c, &b->c, a->n_constraints) &&
           (a->wire_to_label && b->wire_to_label
                ? !memcmp(a->wire_to_label, b->wire_to_label, a->n_wires * 8)
                : a->wire_to_label == b->wire_to_label);
}

static void check_fixture(loaded *L, int ci, const circuit_info *in) {
    const cuzk_r1cs *r = &L->r1cs;
    cuzk_error err;
    CHECK(r->curve == curve_of[ci], "%s: r1cs curve", in->name);
    CHECK(r->n_wires == in->wires && r->n_constraints == in->constraints &&
              r->n_prv_in == in->prv_in && r->n_pub_in == in->pub_in &&
              r->n_pub_out == in->pub_out && r->n_labels == in->labels,
          "%s/%s: r1cs header %u %u %u %u %u", curve_dir[ci], in->name, r->n_wires,
          r->n_constraints, r->n_prv_in, r->n_pub_in, r->n_pub_out);
    CHECK(r->wire_to_label != NULL, "%s: label map", in->name);

    cuzk_status st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness, &err);
    CHECK(st == CUZK_OK, "%s: witness vs r1cs: %s", in->name, err.msg);
    /* A changed public output must break some constraint. */
    cuzk_fr saved = L->w[1], one;
    cuzk_fr_set_one(L->r1cs.curve, &one);
    cuzk_fr_add(L->r1cs.curve, &L->w[1], &L->w[1], &one);
    st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness, &err);
    CHECK(st == CUZK_EVERIFY && err.msg[0], "%s: tampered witness accepted", in->name);
    L->w[1] = saved;
    st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness - 1, &err);
    CHECK(st == CUZK_EMISMATCH, "%s: short witness accepted", in->name);

    /* Our writer puts sections in id order; payloads equal circom's. */
    uint8_t *buf, *orig;
    size_t len, olen;
    orig = tu_read_file(fixture_path(ci, in->name, "r1cs"), &olen);
    st = cuzk_r1cs_write_mem(&L->r1cs, &buf, &len, &err);
    CHECK(st == CUZK_OK, "%s: r1cs write: %s", in->name, err.msg);
    if (st == CUZK_OK) {
        static const uint32_t ids[3] = {1, 2, 3};
        cuzk_r1cs back;
        CHECK(same_payloads(orig, olen, buf, len, ids, 3), "%s: r1cs payloads", in->name);
        st = cuzk_r1cs_read_mem(&back, buf, len, &err);
        CHECK(st == CUZK_OK && r1cs_eq(&back, &L->r1cs), "%s: r1cs round trip: %s", in->name,
              err.msg);
        cuzk_r1cs_free(&back);
        free(buf);
    }
    free(orig);
}

/* Random systems (not satisfiable, just well formed) through write/read. */
static void check_random_round_trips(void) {
    for (unsigned it = 0; it < tu_iters(20); it++) {
        cuzk_curve c = curve_of[it & 1];
        cuzk_r1cs r, back;
        cuzk_error err;
        memset(&r, 0, sizeof r);
        r.curve = c;
        r.n_wires = 1 + (uint32_t)(tu_rand64() % 40);
        r.n_pub_out = (uint32_t)(tu_rand64() % r.n_wires);
        r.n_pub_in = (uint32_t)(tu_rand64() % (r.n_wires - r.n_pub_out));
        r.n_prv_in = (uint32_t)(tu_rand64() % (r.n_wires - r.n_pub_out - r.n_pub_in));
        r.n_constraints = (uint32_t)(tu_rand64() % 30);
        r.n_labels = r.n_wires + tu_rand64() % 5;
        cuzk_r1cs_matrix *m[3] = {&r.a, &r.b, &r.c};
        for (int k = 0; k < 3; k++) {
            m[k]->row_ptr = malloc((r.n_constraints + 1) * sizeof *m[k]->row_ptr);
            m[k]->row_ptr[0] = 0;
            for (uint32_t j = 0; j < r.n_constraints; j++)
                m[k]->row_ptr[j + 1] = m[k]->row_ptr[j] + tu_rand64() % 5;
            m[k]->nnz = m[k]->row_ptr[r.n_constraints];
            m[k]->col = malloc((m[k]->nnz + 1) * sizeof *m[k]->col);
            m[k]->coef = malloc((m[k]->nnz + 1) * sizeof *m[k]->coef);
            for (uint64_t t = 0; t < m[k]->nnz; t++) {
                m[k]->col[t] = (uint32_t)(tu_rand64() % r.n_wires);
                random_fr(c, &m[k]->coef[t]);
            }
        }
        uint8_t *buf;
        size_t len;
        cuzk_status st = cuzk_r1cs_write_mem(&r, &buf, &len, &err);
        CHECK(st == CUZK_OK, "random r1cs write: %s", err.msg);
        if (st == CUZK_OK) {
            st = cuzk_r1cs_read_mem(&back, buf, len, &err);
            r.wire_to_label = back.wire_to_label; /* identity map written */
            CHECK(st == CUZK_OK && r1cs_eq(&r, &back), "random r1cs round trip: %s", err.msg);
            for (uint32_t i = 0; st == CUZK_OK && i < r.n_wires; i++)
                CHECK(back.wire_to_label[i] == i, "identity label map");
            r.wire_to_label = NULL;
            cuzk_r1cs_free(&back);
            free(buf);
        }
        /* A wire id out of range is refused by the writer. */
        if (r.a.nnz) {
            r.a.col[0] = r.n_wires;
            cuzk_error_clear(&err);
            EXPECT_REJECT(cuzk_r1cs_write_mem(&r, &buf, &len, &err), err, CUZK_EINVAL,
                          "writer accepted a bad wire id");
        }
        cuzk_r1cs_free(&r);
    }
}

static void check_curve_names(void) {
    CHECK(cuzk_curve_from_name("bn128") == CUZK_CURVE_BN254 &&
              cuzk_curve_from_name("BN254") == CUZK_CURVE_BN254 &&
              cuzk_curve_from_name("alt_bn128") == CUZK_CURVE_BN254 &&
              cuzk_curve_from_name("bls12381") == CUZK_CURVE_BLS12_381 &&
              cuzk_curve_from_name("BLS12-381") == CUZK_CURVE_BLS12_381 &&
              cuzk_curve_from_name("bls12377") == CUZK_CURVE_NONE &&
              cuzk_curve_from_name("") == CUZK_CURVE_NONE,
          "curve names");
    /* The scalar field's r of one curve is not the other's base field. */
    uint8_t b[48];
    for (int i = 0; i < 4; i++)
        cuzk_wr_u64(b + 8 * i, bn254_fr_modulus[i]);
    CHECK(cuzk_curve_from_r(b, 32) == CUZK_CURVE_BN254 && cuzk_curve_from_q(b, 32) == CUZK_CURVE_NONE,
          "bn254 r");
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_formats_r1cs");
    static loaded all[2][N_CIRCUITS];
    cuzk_r1cs r;
    cuzk_error err;
    check_curve_names();
    load_all(all, check_fixture);
    check_random_round_trips();
    EXPECT_REJECT(cuzk_r1cs_read_file(&r, "/nonexistent/x.r1cs", &err), err, CUZK_EIO,
                  "missing r1cs file");
    unload_all(all);
    return tu_finish();
}
