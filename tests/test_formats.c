/*
 * Tests of the circom/snarkjs file formats (groth16/binfile, r1cs, wtns,
 * zkey, json) against the committed interop fixtures of both curves
 * (tests/interop/fixtures, made by tests/interop/build_fixtures.sh with
 * circom 2.2.3 and snarkjs 0.7.6), plus round trips of every writer; the
 * catalogue of malformed inputs is tests/test_formats_damage.c.
 *
 * Independent checks: header counts are compared with what `snarkjs r1cs
 * info` printed for the fixtures; the witness is checked against every r1cs
 * constraint with our Fr arithmetic; the zkey's section-4 coefficients
 * against the r1cs rows; JSON output against files snarkjs wrote, byte for
 * byte.
 *
 * With CUZK_FORMATS_OUT=<dir> set, the zkeys re-serialized by our writer
 * and the verification keys written by our JSON writer are left in
 * <dir>/<curve>/ for tests/interop/run.sh to feed to snarkjs.
 */
#include "formats_util.h"

static void check_headers(const loaded *L, int ci, const circuit_info *in) {
    const cuzk_r1cs *r = &L->r1cs;
    CHECK(r->curve == curve_of[ci] && L->wtns.curve == curve_of[ci] &&
              L->zkey.curve == curve_of[ci],
          "%s: curve", in->name);
    CHECK(r->n_wires == in->wires && r->n_constraints == in->constraints &&
              r->n_prv_in == in->prv_in && r->n_pub_in == in->pub_in &&
              r->n_pub_out == in->pub_out && r->n_labels == in->labels,
          "%s/%s: r1cs header %u %u %u %u %u", curve_dir[ci], in->name, r->n_wires,
          r->n_constraints, r->n_prv_in, r->n_pub_in, r->n_pub_out);
    CHECK(r->wire_to_label != NULL, "%s: label map", in->name);
    CHECK(L->wtns.n_witness == in->wires, "%s: nWitness %u", in->name, L->wtns.n_witness);
    CHECK(L->zkey.n_vars == in->wires && L->zkey.n_public == in->pub_in + in->pub_out &&
              L->zkey.domain_size == in->domain &&
              (1u << L->zkey.log_domain_size) == in->domain,
          "%s: zkey header nVars %u nPublic %u domain %u", in->name, L->zkey.n_vars,
          L->zkey.n_public, L->zkey.domain_size);
    CHECK(L->zkey.n_contributions == 1, "%s: one phase-2 contribution", in->name);
}

static void check_consistency(loaded *L, const circuit_info *in) {
    cuzk_error err;
    cuzk_status st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness, &err);
    CHECK(st == CUZK_OK, "%s: witness vs r1cs: %s", in->name, err.msg);
    st = cuzk_zkey_check_r1cs(&L->zkey, &L->r1cs, &err);
    CHECK(st == CUZK_OK, "%s: zkey vs r1cs: %s", in->name, err.msg);
    st = cuzk_check_zkey_wtns(&L->zkey, &L->wtns, &err);
    CHECK(st == CUZK_OK, "%s: zkey vs wtns: %s", in->name, err.msg);
    st = cuzk_zkey_check_points(&L->zkey, 1, &err);
    CHECK(st == CUZK_OK, "%s: zkey points: %s", in->name, err.msg);
    st = cuzk_wtns_check_range(&L->wtns, &err);
    CHECK(st == CUZK_OK, "%s: wtns range: %s", in->name, err.msg);

    /* A changed public output must break some constraint. */
    cuzk_fr saved = L->w[1], one;
    cuzk_fr_set_one(L->r1cs.curve, &one);
    cuzk_fr_add(L->r1cs.curve, &L->w[1], &L->w[1], &one);
    st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness, &err);
    CHECK(st == CUZK_EVERIFY && err.msg[0], "%s: tampered witness accepted", in->name);
    L->w[1] = saved;
    st = cuzk_r1cs_check_witness(&L->r1cs, L->w, L->wtns.n_witness - 1, &err);
    CHECK(st == CUZK_EMISMATCH, "%s: short witness accepted", in->name);

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

/* ---- JSON against snarkjs's files ------------------------------------------ */

static int g1_eq_any(cuzk_curve c, const void *a, const void *b) {
    return memcmp(a, b, c == CUZK_CURVE_BN254 ? sizeof(bn254_g1_affine)
                                              : sizeof(bls12_381_g1_affine)) == 0;
}

static int vk_eq(const cuzk_vk *a, const cuzk_vk *b) {
    if (a->curve != b->curve)
        return 0;
    if (a->curve == CUZK_CURVE_BN254) {
        const bn254_groth16_vk *x = &a->vk.bn254, *y = &b->vk.bn254;
        return x->n_public == y->n_public && g1_eq_any(a->curve, &x->alpha1, &y->alpha1) &&
               !memcmp(&x->beta2, &y->beta2, sizeof x->beta2) &&
               !memcmp(&x->gamma2, &y->gamma2, sizeof x->gamma2) &&
               !memcmp(&x->delta2, &y->delta2, sizeof x->delta2) &&
               !memcmp(x->ic, y->ic, (x->n_public + 1) * sizeof *x->ic);
    }
    const bls12_381_groth16_vk *x = &a->vk.bls12_381, *y = &b->vk.bls12_381;
    return x->n_public == y->n_public && g1_eq_any(a->curve, &x->alpha1, &y->alpha1) &&
           !memcmp(&x->beta2, &y->beta2, sizeof x->beta2) &&
           !memcmp(&x->gamma2, &y->gamma2, sizeof x->gamma2) &&
           !memcmp(&x->delta2, &y->delta2, sizeof x->delta2) &&
           !memcmp(x->ic, y->ic, (x->n_public + 1) * sizeof *x->ic);
}

static void check_json(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    cuzk_vk vk_file, vk_zkey;
    size_t len;
    char *text = (char *)tu_read_file(fixture_path(ci, in->name, "vk.json"), &len);
    cuzk_status st = cuzk_vk_read_json_file(&vk_file, fixture_path(ci, in->name, "vk.json"), &err);
    CHECK(st == CUZK_OK, "%s: vk.json: %s", in->name, err.msg);
    cuzk_status st2 = cuzk_vk_from_zkey(&vk_zkey, &L->zkey, &err);
    CHECK(st2 == CUZK_OK, "%s: vk from zkey: %s", in->name, err.msg);
    if (st == CUZK_OK && st2 == CUZK_OK) {
        CHECK(vk_eq(&vk_file, &vk_zkey), "%s: vk.json differs from the zkey header", in->name);
        char *out = NULL;
        st = cuzk_vk_write_json(&vk_zkey, &out, &err);
        CHECK(st == CUZK_OK && text && strcmp(out, text) == 0,
              "%s/%s: our verification_key.json differs from snarkjs's", curve_dir[ci], in->name);
        free(out);
    }
    cuzk_vk_free(&vk_file);
    cuzk_vk_free(&vk_zkey);
    free(text);

    /* proof.json: read, write back, compare bytes. */
    cuzk_proof pr;
    text = (char *)tu_read_file(fixture_path(ci, in->name, "proof.json"), &len);
    st = cuzk_proof_read_json(&pr, CUZK_CURVE_NONE, text, len, &err);
    CHECK(st == CUZK_OK && pr.curve == curve_of[ci], "%s: proof.json: %s", in->name, err.msg);
    if (st == CUZK_OK) {
        char *out = NULL;
        st = cuzk_proof_write_json(&pr, &out, &err);
        CHECK(st == CUZK_OK && strcmp(out, text) == 0, "%s: proof.json round trip", in->name);
        free(out);
    }
    st = cuzk_proof_read_json(&pr, curve_of[1 - ci], text, len, &err);
    EXPECT_REJECT(st, err, CUZK_ECURVE, "%s: proof read as the other curve", in->name);
    free(text);

    /* public.json equals w[1..nPublic]; write back byte for byte. */
    cuzk_fr *pub = NULL;
    size_t n = 0;
    text = (char *)tu_read_file(fixture_path(ci, in->name, "public.json"), &len);
    st = cuzk_public_read_json(curve_of[ci], &pub, &n, text, len, &err);
    CHECK(st == CUZK_OK && n == L->zkey.n_public, "%s: public.json: %s", in->name, err.msg);
    for (size_t i = 0; st == CUZK_OK && i < n; i++)
        CHECK(cuzk_fr_eq(&pub[i], &L->w[1 + i]), "%s: public[%zu] != w[%zu]", in->name, i, i + 1);
    if (st == CUZK_OK) {
        char *out = NULL;
        st = cuzk_public_write_json(curve_of[ci], pub, n, &out, &err);
        CHECK(st == CUZK_OK && strcmp(out, text) == 0, "%s: public.json round trip", in->name);
        free(out);
    }
    free(pub);
    free(text);
}

/* ---- writers: round trips ---------------------------------------------------- */

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

/* Every section of |orig| with an id in |ids| has the same payload in
 * |mine| (physical order may differ). */
static int same_payloads(const uint8_t *orig, size_t olen, const uint8_t *mine, size_t mlen,
                         const uint32_t *ids, int n_ids) {
    container a, b;
    int ok = split(&a, orig, olen) & split(&b, mine, mlen);
    for (int i = 0; ok && i < n_ids; i++) {
        sec *x = find_sec(&a, ids[i]), *y = find_sec(&b, ids[i]);
        ok = x && y && x->n == y->n && !memcmp(x->p, y->p, x->n);
    }
    container_free(&a);
    container_free(&b);
    return ok;
}

static void write_out(const char *sub, const char *name, const uint8_t *b, size_t n) {
    const char *dir = getenv("CUZK_FORMATS_OUT");
    char path[1024];
    if (!dir)
        return;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(dir, 0755);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

static void check_round_trips(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    uint8_t *buf, *orig;
    size_t len, olen;

    /* r1cs: our writer puts sections in id order; payloads equal circom's. */
    orig = tu_read_file(fixture_path(ci, in->name, "r1cs"), &olen);
    cuzk_status st = cuzk_r1cs_write_mem(&L->r1cs, &buf, &len, &err);
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

    /* wtns: circom writes sections 1, 2 in order, so the bytes must match. */
    orig = tu_read_file(fixture_path(ci, in->name, "wtns"), &olen);
    st = cuzk_wtns_write_mem(L->wtns.curve, L->w, L->wtns.n_witness, &buf, &len, &err);
    CHECK(st == CUZK_OK && len == olen && !memcmp(buf, orig, len), "%s: wtns bytes: %s",
          in->name, err.msg);
    if (st == CUZK_OK)
        free(buf);
    free(orig);

    /* zkey: sections 1..9 byte-identical to snarkjs's, 10 is ours. */
    cuzk_zkey_coef *coefs = malloc((L->zkey.n_coefs + 1) * sizeof *coefs);
    st = cuzk_zkey_read_coefs(&L->zkey, coefs, &err);
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

    /* Our verification_key.json, for run.sh to hand to snarkjs. */
    cuzk_vk vk;
    if (getenv("CUZK_FORMATS_OUT") && cuzk_vk_from_zkey(&vk, &L->zkey, &err) == CUZK_OK) {
        char *s, name[128];
        if (cuzk_vk_write_json(&vk, &s, &err) == CUZK_OK) {
            snprintf(name, sizeof name, "%s.vk.json", in->name);
            write_out(curve_dir[ci], name, (const uint8_t *)s, strlen(s));
            free(s);
        }
        cuzk_vk_free(&vk);
    }
}

static void random_fr(cuzk_curve c, cuzk_fr *out) {
    uint64_t l[4];
    tu_rand_below(l, cuzk_curve_r_limbs(c), 4);
    uint8_t b[32];
    for (int i = 0; i < 4; i++)
        cuzk_wr_u64(b + 8 * i, l[i]);
    cuzk_fr_from_le(c, out, b, NULL);
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

        /* Witness of random values. */
        size_t n = 1 + tu_rand64() % 50;
        cuzk_fr *w = malloc(n * sizeof *w), *w2 = malloc(n * sizeof *w);
        cuzk_fr_set_one(c, &w[0]);
        for (size_t i = 1; i < n; i++)
            random_fr(c, &w[i]);
        st = cuzk_wtns_write_mem(c, w, n, &buf, &len, &err);
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
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_zkey z;
    EXPECT_REJECT(cuzk_r1cs_read_file(&r, "/nonexistent/x.r1cs", &err), err, CUZK_EIO,
                  "missing r1cs file");
    EXPECT_REJECT(cuzk_wtns_open(&w, "/", &err), err, CUZK_EINVAL, "directory as wtns");
    EXPECT_REJECT(cuzk_zkey_open(&z, "/dev/zero", &err), err, CUZK_EINVAL, "device as zkey");
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
    char path[] = "/tmp/cuzk_formats_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        close(fd);
        EXPECT_REJECT(cuzk_zkey_open(&z, path, &err), err, CUZK_OK, "empty zkey file");
        unlink(path);
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
    tu_init(argc, argv, "test_formats");
    static loaded all[2][N_CIRCUITS];
    check_curve_names();
    for (int ci = 0; ci < 2; ci++) {
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            loaded *L = &all[ci][i];
            load_fixture(L, ci, &circuits[i]);
            if (!L->ok)
                continue;
            check_headers(L, ci, &circuits[i]);
            check_consistency(L, &circuits[i]);
            check_round_trips(L, ci, &circuits[i]);
            check_json(L, ci, &circuits[i]);
        }
        /* The fresh-setup key: sections physically out of id order. */
        cuzk_zkey z0;
        cuzk_error err;
        cuzk_status st = cuzk_zkey_open(&z0, fixture_path(ci, "multiplier_0000", "zkey"), &err);
        CHECK(st == CUZK_OK && z0.n_contributions == 0, "multiplier_0000: %s", err.msg);
        if (st == CUZK_OK && all[ci][0].ok)
            CHECK(cuzk_zkey_check_r1cs(&z0, &all[ci][0].r1cs, &err) == CUZK_OK,
                  "multiplier_0000 vs r1cs: %s", err.msg);
        cuzk_zkey_close(&z0);
    }
    check_mismatches(all);
    check_random_round_trips();
    check_files();

    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < N_CIRCUITS; i++)
            unload(&all[ci][i]);
    return tu_finish();
}
