/*
 * Malformed circom/snarkjs files, each of which must be rejected with a
 * status and a message and never crash: every truncation point of the
 * small fixtures (section boundaries of a large one), damaged containers
 * (split and re-joined with the tests' own parser, tests/formats_util.h),
 * field by field damage of the r1cs, wtns and zkey headers and sections,
 * points off the curve and off the subgroup, random byte flips, and
 * damaged snarkjs JSON (verification keys, proofs, public signals).
 * Fixtures of both curves; the well-formed files are checked by
 * tests/test_formats_r1cs.c, _wtns.c, _zkey.c and _json.c.
 */
#include "formats_util.h"

/* ---- malformed binary files ---------------------------------------------------- */

/* Truncations: every byte for small files, else around every section
 * boundary and in the middle of each payload. */
static void check_truncations(kind k, const uint8_t *b, size_t len, const char *label) {
    cuzk_error err;
    if (len <= 6000) {
        for (size_t cut = 0; cut < len; cut++)
            EXPECT_REJECT(parse_kind(k, b, cut, &err), err, CUZK_OK, "%s cut at %zu accepted",
                          label, cut);
        return;
    }
    size_t pos = 12;
    uint32_t n = cuzk_rd_u32(b + 8);
    for (size_t cut = 0; cut < 12; cut++)
        EXPECT_REJECT(parse_kind(k, b, cut, &err), err, CUZK_OK, "%s cut at %zu", label, cut);
    for (uint32_t i = 0; i < n; i++) {
        size_t sz = (size_t)cuzk_rd_u64(b + pos + 4);
        size_t cuts[6] = {pos, pos + 5, pos + 12, pos + 12 + sz / 2, pos + 12 + sz - 1,
                          pos + 12 + sz};
        for (int c = 0; c < 6; c++)
            if (cuts[c] < len)
                EXPECT_REJECT(parse_kind(k, b, cuts[c], &err), err, CUZK_OK,
                              "%s cut at %zu (section %u)", label, cuts[c], i);
        pos += 12 + sz;
    }
}

/* Container-level damage common to all three formats. */
static void check_container_damage(kind k, const uint8_t *b, size_t len, const char *label) {
    cuzk_error err;
    uint8_t *m = malloc(len + 16);
    container c, d;

    memcpy(m, b, len);
    m[0] ^= 0x20;
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT, "%s wrong magic", label);
    memcpy(m, b, len);
    put32(m + 4, cuzk_rd_u32(b + 4) + 1);
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EUNSUPPORTED, "%s wrong version", label);
    memcpy(m, b, len);
    put32(m + 8, cuzk_rd_u32(b + 8) + 1);
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT, "%s nSections + 1", label);
    memcpy(m, b, len);
    put32(m + 8, 0xffffffffu);
    EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT, "%s nSections huge", label);
    memcpy(m, b, len);
    memset(m + len, 0, 16);
    EXPECT_REJECT(parse_kind(k, m, len + 3, &err), err, CUZK_EFORMAT, "%s trailing bytes", label);

    CHECK(split(&c, b, len), "%s: fixture container", label);
    for (int i = 0; i < c.n; i++) {
        /* Section size field +1 / -1 / 2^63 in the table. */
        size_t pos = 12;
        for (int j = 0; j < i; j++)
            pos += 12 + c.s[j].n;
        uint64_t deltas[3] = {1, (uint64_t)-1, 1ull << 63};
        for (int t = 0; t < 3; t++) {
            if (c.s[i].n == 0 && t == 1)
                continue;
            memcpy(m, b, len);
            cuzk_wr_u64(m + pos + 4, c.s[i].n + deltas[t]);
            EXPECT_REJECT(parse_kind(k, m, len, &err), err, CUZK_EFORMAT,
                          "%s section %u size field changed", label, c.s[i].id);
        }
        /* Payload one byte longer / shorter (container consistent). */
        d = clone(&c);
        resize_sec(&d, c.s[i].id, c.s[i].n + 1);
        EXPECT_REJECT(parse_container(k, &d, &err), err, CUZK_OK, "%s section %u one byte long",
                      label, c.s[i].id);
        container_free(&d);
        if (c.s[i].n) {
            d = clone(&c);
            resize_sec(&d, c.s[i].id, c.s[i].n - 1);
            EXPECT_REJECT(parse_container(k, &d, &err), err, CUZK_OK,
                          "%s section %u one byte short", label, c.s[i].id);
            container_free(&d);
        }
        /* Duplicated and missing sections. */
        d = clone(&c);
        d.s[d.n].id = c.s[i].id;
        d.s[d.n].n = c.s[i].n;
        d.s[d.n].p = malloc(c.s[i].n + 1);
        memcpy(d.s[d.n].p, c.s[i].p, c.s[i].n);
        d.n++;
        EXPECT_REJECT(parse_container(k, &d, &err), err, CUZK_EFORMAT,
                      "%s section %u duplicated", label, c.s[i].id);
        container_free(&d);
        d = clone(&c);
        free(d.s[i].p);
        memmove(&d.s[i], &d.s[i + 1], (size_t)(d.n - i - 1) * sizeof d.s[0]);
        d.n--;
        cuzk_status st = parse_container(k, &d, &err);
        /* Only r1cs section 3 and zkey section 10 are optional. */
        int optional = (k == K_R1CS && c.s[i].id == 3) || (k == K_ZKEY && c.s[i].id == 10);
        if (!optional)
            EXPECT_REJECT(st, err, CUZK_EFORMAT, "%s section %u missing", label, c.s[i].id);
        else
            CHECK(st == CUZK_OK, "%s optional section %u missing: %s", label, c.s[i].id, err.msg);
        container_free(&d);
    }
    /* Sections shuffled into reverse physical order still parse. */
    d = clone(&c);
    for (int i = 0; i < d.n / 2; i++) {
        sec t = d.s[i];
        d.s[i] = d.s[d.n - 1 - i];
        d.s[d.n - 1 - i] = t;
    }
    CHECK(parse_container(k, &d, &err) == CUZK_OK, "%s reversed sections: %s", label, err.msg);
    container_free(&d);
    container_free(&c);
    free(m);
}

static void set_prime(uint8_t *p, const uint64_t *limbs, int n) {
    for (int i = 0; i < n; i++)
        cuzk_wr_u64(p + 8 * i, limbs[i]);
}

static void check_r1cs_damage(int ci, const uint8_t *b, size_t len) {
    cuzk_error err;
    container c, d;
    CHECK(split(&c, b, len), "r1cs split");
    sec *h = find_sec(&c, 1), *cs = find_sec(&c, 2);

    /* The other curve's r is a valid header; only coefficients that do not
     * fit below it can fail then. */
    d = clone(&c);
    set_prime(find_sec(&d, 1)->p + 4, cuzk_curve_r_limbs(curve_of[1 - ci]), 4);
    cuzk_status st = parse_container(K_R1CS, &d, &err);
    CHECK(st == CUZK_OK || st == CUZK_ERANGE, "r1cs with the other curve's prime: %s", err.msg);
    if (ci == 0)
        CHECK(st == CUZK_OK, "bn128 r1cs read as bls12381: %s", err.msg);
    find_sec(&d, 1)->p[4] ^= 1;
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_ECURVE, "r1cs unknown prime");
    put32(find_sec(&d, 1)->p, 48);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT, "r1cs n8 48");
    container_free(&d);

    /* nWires too small for the inputs. */
    d = clone(&c);
    put32(find_sec(&d, 1)->p + 36, 1);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_OK, "r1cs nWires 1");
    container_free(&d);
    /* nConstraints + 1 (section 2 ends early) and - 1 (bytes left over). */
    for (int delta = -1; delta <= 1; delta += 2) {
        d = clone(&c);
        put32(find_sec(&d, 1)->p + 60, cuzk_rd_u32(h->p + 60) + (uint32_t)delta);
        EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT,
                      "r1cs nConstraints %+d", delta);
        container_free(&d);
    }
    /* First term of constraint 0 (A or the first non-empty lc): wire id and
     * coefficient out of range, and a huge nTerms. */
    size_t off = 0;
    while (cuzk_rd_u32(cs->p + off) == 0)
        off += 4;
    d = clone(&c);
    put32(find_sec(&d, 2)->p + off + 4, cuzk_rd_u32(h->p + 36));
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT, "r1cs wire >= nWires");
    container_free(&d);
    d = clone(&c);
    set_prime(find_sec(&d, 2)->p + off + 8, cuzk_curve_r_limbs(curve_of[ci]), 4);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_ERANGE, "r1cs coefficient = r");
    container_free(&d);
    d = clone(&c);
    put32(find_sec(&d, 2)->p + off, 0xffffffffu);
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EFORMAT, "r1cs nTerms huge");
    container_free(&d);
    /* Custom gates section, labels of the wrong size. */
    d = clone(&c);
    d.s[d.n].id = 4;
    d.s[d.n].n = 4;
    d.s[d.n].p = calloc(1, 5);
    d.n++;
    EXPECT_REJECT(parse_container(K_R1CS, &d, &err), err, CUZK_EUNSUPPORTED, "r1cs custom gates");
    container_free(&d);
    container_free(&c);
}

static void check_wtns_damage(int ci, const uint8_t *b, size_t len, const loaded *other) {
    cuzk_error err;
    container c, d;
    CHECK(split(&c, b, len), "wtns split");
    uint32_t n = cuzk_rd_u32(find_sec(&c, 1)->p + 36);

    d = clone(&c);
    find_sec(&d, 1)->p[10] ^= 4;
    EXPECT_REJECT(parse_container(K_WTNS, &d, &err), err, CUZK_ECURVE, "wtns wrong prime");
    container_free(&d);
    d = clone(&c);
    find_sec(&d, 2)->p[0] = 2;
    EXPECT_REJECT(parse_container(K_WTNS, &d, &err), err, CUZK_EFORMAT, "wtns w[0] = 2");
    container_free(&d);
    /* nWitness not matching section 2, and a consistent shorter witness. */
    d = clone(&c);
    put32(find_sec(&d, 1)->p + 36, n - 1);
    EXPECT_REJECT(parse_container(K_WTNS, &d, &err), err, CUZK_EFORMAT, "wtns nWitness - 1");
    resize_sec(&d, 2, (size_t)(n - 1) * 32);
    CHECK(parse_container(K_WTNS, &d, &err) == CUZK_OK, "shorter wtns parses: %s", err.msg);
    {
        size_t l;
        uint8_t *j = join(&d, &l);
        cuzk_wtns w;
        CHECK(cuzk_wtns_from_mem(&w, j, l, &err) == CUZK_OK, "short wtns");
        EXPECT_REJECT(cuzk_check_zkey_wtns(&other->zkey, &w, &err), err, CUZK_EMISMATCH,
                      "witness of the wrong length accepted by the zkey check");
        cuzk_wtns_close(&w);
        free(j);
    }
    container_free(&d);
    /* A value >= r passes open (lazy) but not the conversion. */
    d = clone(&c);
    set_prime(find_sec(&d, 2)->p + 32 * (n - 1), cuzk_curve_r_limbs(curve_of[ci]), 4);
    {
        size_t l;
        uint8_t *j = join(&d, &l);
        cuzk_wtns w;
        CHECK(cuzk_wtns_from_mem(&w, j, l, &err) == CUZK_OK, "wtns with big value opens");
        cuzk_fr *v = malloc(n * sizeof *v);
        EXPECT_REJECT(cuzk_wtns_to_mont(&w, v, 0, n, &err), err, CUZK_ERANGE, "wtns value = r");
        EXPECT_REJECT(cuzk_wtns_check_range(&w, &err), err, CUZK_ERANGE, "wtns range = r");
        free(v);
        cuzk_wtns_close(&w);
        free(j);
    }
    container_free(&d);
    container_free(&c);
}

/* An affine point on the curve but outside the order-r subgroup (BLS12-381
 * G1, BN254/BLS12-381 G2; BN254 G1 has cofactor 1).  Written as zkey bytes. */
static int off_subgroup_point(int ci, int g2, uint8_t *out) {
    if (ci == 0 && !g2)
        return 0;
#define FIND_POINT(P, G, F)                                                      \
    do {                                                                         \
        CUZK_PASTE(CUZK_PASTE(P, G), affine) gen, pt;                            \
        F b, x, t, y;                                                            \
        CUZK_PASTE(CUZK_PASTE(P, G), generator)(&gen);                           \
        F##_sqr(&t, &gen.x);                                                     \
        F##_mul(&t, &t, &gen.x);                                                 \
        F##_sqr(&b, &gen.y);                                                     \
        F##_sub(&b, &b, &t); /* b = y^2 - x^3 */                                 \
        F##_set_one(&x);                                                         \
        for (;;) {                                                               \
            F##_add(&x, &x, &gen.x); /* walk x until x^3 + b is a square */      \
            F##_sqr(&t, &x);                                                     \
            F##_mul(&t, &t, &x);                                                 \
            F##_add(&t, &t, &b);                                                 \
            if (F##_sqrt(&y, &t)) {                                              \
                pt.x = x;                                                        \
                pt.y = y;                                                        \
                if (!CUZK_PASTE(CUZK_PASTE(P, G), affine_in_subgroup)(&pt))      \
                    break;                                                       \
            }                                                                    \
        }                                                                        \
        memcpy(out, &pt, sizeof pt);                                             \
    } while (0)
    if (ci == 0)
        FIND_POINT(bn254, g2, bn254_fp2);
    else if (g2)
        FIND_POINT(bls12_381, g2, bls12_381_fp2);
    else
        FIND_POINT(bls12_381, g1, bls12_381_fp);
#undef FIND_POINT
    return 1;
}

static void check_zkey_damage(int ci, const uint8_t *b, size_t len, const loaded *L) {
    cuzk_error err;
    container c, d;
    CHECK(split(&c, b, len), "zkey split");
    uint32_t nq = ci == 0 ? 32 : 48, hdr = 4 + nq + 4 + 32; /* counts start */
    uint32_t pts = hdr + 12, g1 = 2 * nq, g2 = 4 * nq;

    for (uint32_t proto = 2; proto <= 10; proto += 8) {
        d = clone(&c);
        put32(find_sec(&d, 1)->p, proto);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EUNSUPPORTED, "zkey proto %u",
                      proto);
        CHECK(strstr(err.msg, proto == 2 ? "PLONK" : "FFLONK") != NULL, "message names %s",
              proto == 2 ? "PLONK" : "FFLONK");
        container_free(&d);
    }
    d = clone(&c);
    put32(find_sec(&d, 1)->p, 7);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey proto 7");
    container_free(&d);

    /* Primes: unknown q, unknown r, q and r of different curves. */
    d = clone(&c);
    find_sec(&d, 2)->p[4] ^= 1;
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ECURVE, "zkey bad q");
    container_free(&d);
    d = clone(&c);
    find_sec(&d, 2)->p[4 + nq + 4] ^= 1;
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ECURVE, "zkey bad r");
    container_free(&d);
    d = clone(&c);
    set_prime(find_sec(&d, 2)->p + 4 + nq + 4, cuzk_curve_r_limbs(curve_of[1 - ci]), 4);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ECURVE, "zkey q/r mixed curves");
    container_free(&d);

    /* Counts. */
    uint32_t nvars = cuzk_rd_u32(find_sec(&c, 2)->p + hdr);
    struct { uint32_t at, v; const char *what; } bad[] = {
        {hdr + 8, L->zkey.domain_size + 1, "domainSize not a power of two"},
        {hdr + 8, 0, "domainSize 0"},
        {hdr + 8, 1u << 31, "domainSize 2^31"},
        {hdr + 8, L->zkey.domain_size * 2, "domainSize doubled (H size)"},
        {hdr + 4, nvars, "nPublic = nVars"},
        {hdr + 4, L->zkey.n_public + 1, "nPublic + 1 (IC size)"},
        {hdr, nvars + 1, "nVars + 1"},
        {hdr, 0, "nVars 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = clone(&c);
        put32(find_sec(&d, 2)->p + bad[i].at, bad[i].v);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey %s",
                      bad[i].what);
        container_free(&d);
    }

    /* Header points: coordinate = q, off the curve, infinity, off-subgroup. */
    for (int i = 0; i < 6; i++) {
        static const int is_g2[6] = {0, 0, 1, 1, 0, 1};
        uint32_t at = pts;
        for (int j = 0; j < i; j++)
            at += is_g2[j] ? g2 : g1;
        d = clone(&c);
        set_prime(find_sec(&d, 2)->p + at, cuzk_curve_q_limbs(curve_of[ci]), nq / 8);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ERANGE, "zkey point %d x = q",
                      i);
        container_free(&d);
        d = clone(&c);
        find_sec(&d, 2)->p[at + nq] ^= 1;
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ENOTONCURVE,
                      "zkey point %d off curve", i);
        container_free(&d);
        d = clone(&c);
        memset(find_sec(&d, 2)->p + at, 0, is_g2[i] ? g2 : g1);
        EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT,
                      "zkey point %d infinity", i);
        container_free(&d);
        uint8_t bad_pt[192];
        if (off_subgroup_point(ci, is_g2[i], bad_pt)) {
            d = clone(&c);
            memcpy(find_sec(&d, 2)->p + at, bad_pt, is_g2[i] ? g2 : g1);
            EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_ENOTINSUBGROUP,
                          "zkey point %d outside the subgroup", i);
            container_free(&d);
        }
    }

    /* Lazy checks: a bad big-section point and bad coefficients open fine
     * but fail check_points / read_coefs. */
    struct { uint32_t sec; size_t at; int kind; const char *what; } lazy[] = {
        {5, 0, 0, "A[0] off curve"},   {7, 0, 1, "B2[0] x = q"},
        {9, 0, 0, "H[0] off curve"},   {3, 0, 0, "IC[0] off curve"},
        {4, 4, 2, "coef matrix 2"},    {4, 8, 3, "coef row = domainSize"},
        {4, 12, 4, "coef signal = nVars"}, {4, 16, 5, "coef value = r"},
    };
    for (size_t i = 0; i < sizeof lazy / sizeof lazy[0]; i++) {
        d = clone(&c);
        uint8_t *p = find_sec(&d, lazy[i].sec)->p + lazy[i].at;
        switch (lazy[i].kind) {
        case 0: p[nq] ^= 1; p[0] |= 1; break; /* y changed (point not infinity) */
        case 1: set_prime(p, cuzk_curve_q_limbs(curve_of[ci]), nq / 8); break;
        case 2: put32(p, 2); break;
        case 3: put32(p, L->zkey.domain_size); break;
        case 4: put32(p, nvars); break;
        case 5: set_prime(p, cuzk_curve_r_limbs(curve_of[ci]), 4); break;
        }
        size_t l;
        uint8_t *j = join(&d, &l);
        cuzk_zkey z;
        cuzk_status st = cuzk_zkey_from_mem(&z, j, l, &err);
        CHECK(st == CUZK_OK, "zkey with %s opens: %s", lazy[i].what, err.msg);
        if (st == CUZK_OK) {
            cuzk_zkey_coef *co = malloc((z.n_coefs + 1) * sizeof *co);
            cuzk_error_clear(&err);
            st = lazy[i].sec == 4 ? cuzk_zkey_read_coefs(&z, co, &err)
                                  : cuzk_zkey_check_points(&z, 0, &err);
            EXPECT_REJECT(st, err, CUZK_OK, "zkey %s not detected", lazy[i].what);
            free(co);
        }
        cuzk_zkey_close(&z);
        free(j);
        container_free(&d);
    }
    /* Section 4 count disagreeing with its size; section 10 damaged. */
    d = clone(&c);
    put32(find_sec(&d, 4)->p, cuzk_rd_u32(find_sec(&c, 4)->p) + 1);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey nCoefs + 1");
    container_free(&d);
    d = clone(&c);
    put32(find_sec(&d, 10)->p + 64, 2);
    EXPECT_REJECT(parse_container(K_ZKEY, &d, &err), err, CUZK_EFORMAT, "zkey nContrib 2");
    container_free(&d);
    container_free(&c);
}

/* Random byte damage: whatever happens, no crash, and a failure says why. */
static void check_random_damage(kind k, const uint8_t *b, size_t len, const char *label) {
    uint8_t *m = malloc(len);
    for (unsigned it = 0; it < tu_iters(300); it++) {
        cuzk_error err;
        memcpy(m, b, len);
        unsigned flips = 1 + (unsigned)(tu_rand64() % 4);
        for (unsigned f = 0; f < flips; f++)
            m[tu_rand64() % len] ^= (uint8_t)(1 + tu_rand64() % 255);
        cuzk_status st = parse_kind(k, m, len, &err);
        CHECK(st == CUZK_OK || err.msg[0], "%s: failure without a message", label);
    }
    free(m);
}

/* ---- JSON damage ------------------------------------------------------------ */

typedef enum { J_VK, J_PROOF, J_PUBLIC } jkind;

static cuzk_status parse_json(jkind k, cuzk_curve c, const char *text, cuzk_error *err) {
    cuzk_status st;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len); /* not NUL-terminated on purpose: readers get a length */
    cuzk_error_clear(err);
    if (k == J_VK) {
        cuzk_vk vk;
        st = cuzk_vk_read_json(&vk, copy, len, err);
        if (st == CUZK_OK)
            cuzk_vk_clear(&vk);
    } else if (k == J_PROOF) {
        cuzk_proof p;
        st = cuzk_proof_read_json(&p, c, copy, len, err);
    } else {
        cuzk_fr *v;
        size_t n;
        st = cuzk_public_read_json(c, &v, &n, copy, len, err);
        free(v);
    }
    free(copy);
    return st;
}

/* Apply |edit| to a fresh copy of the fixture JSON and expect |want|. */
static void json_case(jkind k, cuzk_curve c, const char *fixture, const char *what,
                      cuzk_status want, void (*edit)(json_t *root, const char *arg),
                      const char *arg) {
    json_error_t je;
    cuzk_error err;
    json_t *root = json_loads(fixture, 0, &je);
    edit(root, arg);
    char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    EXPECT_REJECT(parse_json(k, c, s, &err), err, want, "json %s accepted", what);
    free(s);
    json_decref(root);
}

/* Edits.  |arg| is "key" or "key/i/j" (array indices) plus a value after
 * '=' where needed. */
static json_t *walk(json_t *root, char *path, json_t **parent, const char **last) {
    json_t *cur = root;
    *parent = NULL;
    *last = path;
    for (char *tok = strtok(path, "/"); tok; tok = strtok(NULL, "/")) {
        *parent = cur;
        *last = tok;
        cur = json_is_array(cur) ? json_array_get(cur, (size_t)atoi(tok))
                                 : json_object_get(cur, tok);
    }
    return cur;
}

static void ed_set(json_t *root, const char *arg) {
    char buf[512], *eq;
    json_t *parent;
    const char *last;
    snprintf(buf, sizeof buf, "%s", arg);
    eq = strchr(buf, '=');
    *eq = '\0';
    json_error_t je;
    json_t *val = json_loads(eq + 1, JSON_DECODE_ANY, &je);
    walk(root, buf, &parent, &last);
    if (json_is_array(parent))
        json_array_set_new(parent, (size_t)atoi(last), val);
    else
        json_object_set_new(parent, last, val);
}

static void ed_del(json_t *root, const char *arg) {
    char buf[256];
    json_t *parent;
    const char *last;
    snprintf(buf, sizeof buf, "%s", arg);
    walk(root, buf, &parent, &last);
    if (json_is_array(parent))
        json_array_remove(parent, (size_t)atoi(last));
    else
        json_object_del(parent, last);
}

static void ed_replace_root(json_t *root, const char *arg) {
    (void)arg;
    json_object_clear(root);
    json_array_clear(root);
}

static void check_json_damage(int ci, const char *vk, const char *proof, const char *pub) {
    cuzk_curve c = curve_of[ci];
    cuzk_error err;
    char p_str[200], r_str[200], arg[1024];
    cuzk_limbs_to_dec(p_str, sizeof p_str, cuzk_curve_q_limbs(c), cuzk_curve_n8q(c) / 8);
    cuzk_limbs_to_dec(r_str, sizeof r_str, cuzk_curve_r_limbs(c), 4);

    /* Syntax and top-level type. */
    const char *junk[] = {"", "{", "[1,", "{\"protocol\": \"groth16\",}", "nul", "42", "\"x\""};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        EXPECT_REJECT(parse_json(J_VK, c, junk[i], &err), err, CUZK_EFORMAT, "vk junk %zu", i);
        EXPECT_REJECT(parse_json(J_PROOF, c, junk[i], &err), err, CUZK_EFORMAT, "proof junk %zu",
                      i);
        EXPECT_REJECT(parse_json(J_PUBLIC, c, junk[i], &err), err, CUZK_EFORMAT,
                      "public junk %zu", i);
    }
    EXPECT_REJECT(parse_json(J_VK, c, "{\"protocol\":\"groth16\",\"protocol\":\"groth16\"}", &err),
                  err, CUZK_EFORMAT, "vk duplicate key");

    /* verification_key.json */
    json_case(J_VK, c, vk, "protocol plonk", CUZK_EFORMAT, ed_set, "protocol=\"plonk\"");
    json_case(J_VK, c, vk, "no protocol", CUZK_EFORMAT, ed_del, "protocol");
    json_case(J_VK, c, vk, "curve bn129", CUZK_ECURVE, ed_set, "curve=\"bn129\"");
    json_case(J_VK, c, vk, "curve number", CUZK_EFORMAT, ed_set, "curve=254");
    json_case(J_VK, c, vk, "no curve", CUZK_EFORMAT, ed_del, "curve");
    json_case(J_VK, c, vk, "nPublic string", CUZK_EFORMAT, ed_set, "nPublic=\"1\"");
    json_case(J_VK, c, vk, "nPublic -1", CUZK_EFORMAT, ed_set, "nPublic=-1");
    json_case(J_VK, c, vk, "nPublic + 1", CUZK_EFORMAT, ed_set, "nPublic=1000");
    json_case(J_VK, c, vk, "no IC", CUZK_EFORMAT, ed_del, "IC");
    json_case(J_VK, c, vk, "IC short", CUZK_EFORMAT, ed_del, "IC/0");
    json_case(J_VK, c, vk, "no delta", CUZK_EFORMAT, ed_del, "vk_delta_2");
    json_case(J_VK, c, vk, "alpha not array", CUZK_EFORMAT, ed_set, "vk_alpha_1={}");
    json_case(J_VK, c, vk, "alpha 4 coords", CUZK_EFORMAT, ed_set,
              "vk_alpha_1=[\"1\",\"2\",\"1\",\"0\"]");
    json_case(J_VK, c, vk, "alpha x bool", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=true");
    json_case(J_VK, c, vk, "alpha x negative", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=\"-1\"");
    json_case(J_VK, c, vk, "alpha x hex", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=\"0x1\"");
    json_case(J_VK, c, vk, "alpha x empty", CUZK_EFORMAT, ed_set, "vk_alpha_1/0=\"\"");
    json_case(J_VK, c, vk, "alpha x 1", CUZK_ENOTONCURVE, ed_set, "vk_alpha_1/0=\"1\"");
    snprintf(arg, sizeof arg, "vk_alpha_1/1=\"%s\"", p_str);
    json_case(J_VK, c, vk, "alpha y = p", CUZK_ERANGE, ed_set, arg);
    snprintf(arg, sizeof arg, "IC/0/0=\"%s0\"", p_str);
    json_case(J_VK, c, vk, "IC x = 10p", CUZK_ERANGE, ed_set, arg);
    json_case(J_VK, c, vk, "beta2 x.c0 1", CUZK_ENOTONCURVE, ed_set, "vk_beta_2/0/0=\"1\"");
    json_case(J_VK, c, vk, "beta2 pair of 3", CUZK_EFORMAT, ed_set,
              "vk_beta_2/0=[\"1\",\"2\",\"3\"]");
    json_case(J_VK, c, vk, "gamma2 z.c1 string", CUZK_EFORMAT, ed_set, "vk_gamma_2/2/1=[]");
    json_case(J_VK, c, vk, "IC entry null", CUZK_EFORMAT, ed_set, "IC/0=null");

    /* An on-curve point outside the subgroup (not possible in BN254 G1). */
    uint8_t pt[192];
    if (off_subgroup_point(ci, 1, pt)) {
        char d[4][200];
        for (int i = 0; i < 4; i++) {
            /* zkey bytes are Montgomery: decode through the field. */
            if (ci == 0) {
                bn254_fp f;
                memcpy(&f, pt + 32 * i, 32);
                bn254_fp_to_dec(d[i], sizeof d[i], &f);
            } else {
                bls12_381_fp f;
                memcpy(&f, pt + 48 * i, 48);
                bls12_381_fp_to_dec(d[i], sizeof d[i], &f);
            }
        }
        snprintf(arg, sizeof arg, "vk_delta_2=[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]]",
                 d[0], d[1], d[2], d[3]);
        json_case(J_VK, c, vk, "delta2 off subgroup", CUZK_ENOTINSUBGROUP, ed_set, arg);
    }

    /* proof.json */
    json_case(J_PROOF, CUZK_CURVE_NONE, proof, "no curve, none given", CUZK_EFORMAT, ed_del,
              "curve");
    json_case(J_PROOF, c, proof, "protocol plonk", CUZK_EFORMAT, ed_set, "protocol=\"plonk\"");
    json_case(J_PROOF, c, proof, "curve unknown", CUZK_ECURVE, ed_set, "curve=\"secp256k1\"");
    json_case(J_PROOF, c, proof, "no pi_b", CUZK_EFORMAT, ed_del, "pi_b");
    json_case(J_PROOF, c, proof, "pi_a off curve", CUZK_ENOTONCURVE, ed_set, "pi_a/1=\"5\"");
    json_case(J_PROOF, c, proof, "pi_c not array", CUZK_EFORMAT, ed_set, "pi_c=\"1\"");
    snprintf(arg, sizeof arg, "pi_b/1/1=\"%s\"", p_str);
    json_case(J_PROOF, c, proof, "pi_b y.c1 = p", CUZK_ERANGE, ed_set, arg);
    json_case(J_PROOF, c, proof, "empty object", CUZK_EFORMAT, ed_replace_root, NULL);

    /* public.json */
    snprintf(arg, sizeof arg, "0=\"%s\"", r_str);
    json_case(J_PUBLIC, c, pub, "public = r", CUZK_ERANGE, ed_set, arg);
    json_case(J_PUBLIC, c, pub, "public null", CUZK_EFORMAT, ed_set, "0=null");
    json_case(J_PUBLIC, c, pub, "public float", CUZK_EFORMAT, ed_set, "0=1.5");
    json_case(J_PUBLIC, c, pub, "public -3", CUZK_EFORMAT, ed_set, "0=-3");
    EXPECT_REJECT(parse_json(J_PUBLIC, c, "{\"a\": \"1\"}", &err), err, CUZK_EFORMAT,
                  "public object");

    /* Accepted variants: integers, leading zeros, Jacobian z != 1, z = 0. */
    cuzk_fr *v = NULL;
    size_t n;
    const char *ok = "[7, \"007\", \"0\"]";
    CHECK(cuzk_public_read_json(c, &v, &n, ok, strlen(ok), &err) == CUZK_OK && n == 3,
          "public integers: %s", err.msg);
    if (v) {
        CHECK(cuzk_fr_eq(&v[2], &(cuzk_fr){{0}}), "public \"0\"");
        CHECK(!cuzk_fr_eq(&v[0], &v[2]), "public 7");
    }
    free(v);
    CHECK(parse_json(J_PUBLIC, c, "[]", &err) == CUZK_OK, "empty public.json: %s", err.msg);
}

/* Proof points given in Jacobian form with z = 2 and z = 0 read as snarkjs
 * reads them: (x/z^2, y/z^3) and infinity. */
static void check_json_jacobian(int ci, const char *proof_text) {
    cuzk_error err;
    cuzk_proof p, q;
    cuzk_curve c = curve_of[ci];
    CHECK(cuzk_proof_read_json(&p, c, proof_text, strlen(proof_text), &err) == CUZK_OK,
          "proof: %s", err.msg);
    char x[200], y[200], s[1200];
    if (ci == 0) {
        bn254_fp z, z2, z3, X, Y;
        bn254_fp_set_u64(&z, 2);
        bn254_fp_sqr(&z2, &z);
        bn254_fp_mul(&z3, &z2, &z);
        bn254_fp_mul(&X, &p.p.bn254.a.x, &z2);
        bn254_fp_mul(&Y, &p.p.bn254.a.y, &z3);
        bn254_fp_to_dec(x, sizeof x, &X);
        bn254_fp_to_dec(y, sizeof y, &Y);
    } else {
        bls12_381_fp z, z2, z3, X, Y;
        bls12_381_fp_set_u64(&z, 2);
        bls12_381_fp_sqr(&z2, &z);
        bls12_381_fp_mul(&z3, &z2, &z);
        bls12_381_fp_mul(&X, &p.p.bls12_381.a.x, &z2);
        bls12_381_fp_mul(&Y, &p.p.bls12_381.a.y, &z3);
        bls12_381_fp_to_dec(x, sizeof x, &X);
        bls12_381_fp_to_dec(y, sizeof y, &Y);
    }
    snprintf(s, sizeof s,
             "{\"pi_a\": [\"%s\", \"%s\", \"2\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],"
             "[\"0\",\"0\"]], \"pi_c\": [\"0\", \"1\", \"0\"]}",
             x, y);
    cuzk_status st = cuzk_proof_read_json(&q, c, s, strlen(s), &err);
    CHECK(st == CUZK_OK, "jacobian proof: %s", err.msg);
    if (st == CUZK_OK && ci == 0)
        CHECK(!memcmp(&q.p.bn254.a, &p.p.bn254.a, sizeof q.p.bn254.a) &&
                  bn254_g2_affine_is_inf(&q.p.bn254.b) && bn254_g1_affine_is_inf(&q.p.bn254.c),
              "jacobian decode bn254");
    if (st == CUZK_OK && ci == 1)
        CHECK(!memcmp(&q.p.bls12_381.a, &p.p.bls12_381.a, sizeof q.p.bls12_381.a) &&
                  bls12_381_g2_affine_is_inf(&q.p.bls12_381.b) &&
                  bls12_381_g1_affine_is_inf(&q.p.bls12_381.c),
              "jacobian decode bls12_381");
    /* Infinity is written back the way snarkjs prints it. */
    char *out = NULL;
    if (st == CUZK_OK && cuzk_proof_write_json(&q, &out, &err) == CUZK_OK)
        CHECK(strstr(out, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]") != NULL,
              "infinity written as (0, 1, 0)");
    free(out);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_formats_damage");
    /* the fixtures the witness and zkey checks compare against:
     * multiplier (0) and many_public (3) of each curve */
    static loaded all[2][N_CIRCUITS];
    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < N_CIRCUITS; i += 3)
            load_fixture(&all[ci][i], ci, &circuits[i]);
    /* Damage: every format of every curve, from the small circuits (every
     * truncation point) and one large circuit (section boundaries). */
    static const char *const names[2] = {"multiplier", "many_public"};
    for (int ci = 0; ci < 2; ci++) {
        for (int k = 0; k < 2; k++) {
            size_t len;
            char label[96];
            uint8_t *b = tu_read_file(fixture_path(ci, names[k], "r1cs"), &len);
            snprintf(label, sizeof label, "%s/%s.r1cs", curve_dir[ci], names[k]);
            check_truncations(K_R1CS, b, len, label);
            check_container_damage(K_R1CS, b, len, label);
            check_r1cs_damage(ci, b, len);
            check_random_damage(K_R1CS, b, len, label);
            free(b);
            b = tu_read_file(fixture_path(ci, names[k], "wtns"), &len);
            snprintf(label, sizeof label, "%s/%s.wtns", curve_dir[ci], names[k]);
            check_truncations(K_WTNS, b, len, label);
            check_container_damage(K_WTNS, b, len, label);
            check_wtns_damage(ci, b, len, &all[ci][k ? 3 : 0]);
            check_random_damage(K_WTNS, b, len, label);
            free(b);
            b = tu_read_file(fixture_path(ci, names[k], "zkey"), &len);
            snprintf(label, sizeof label, "%s/%s.zkey", curve_dir[ci], names[k]);
            check_truncations(K_ZKEY, b, len, label);
            check_container_damage(K_ZKEY, b, len, label);
            check_zkey_damage(ci, b, len, &all[ci][k ? 3 : 0]);
            check_random_damage(K_ZKEY, b, len, label);
            free(b);
        }
        size_t len;
        uint8_t *b = tu_read_file(fixture_path(ci, "poseidon_chain", "zkey"), &len);
        check_truncations(K_ZKEY, b, len, "poseidon_chain.zkey");
        free(b);
        b = tu_read_file(fixture_path(ci, "poseidon_chain", "r1cs"), &len);
        check_truncations(K_R1CS, b, len, "poseidon_chain.r1cs");
        free(b);
        char *vk = (char *)tu_read_file(fixture_path(ci, "many_public", "vk.json"), &len);
        char *pr = (char *)tu_read_file(fixture_path(ci, "many_public", "proof.json"), &len);
        char *pub = (char *)tu_read_file(fixture_path(ci, "many_public", "public.json"), &len);
        check_json_damage(ci, vk, pr, pub);
        check_json_jacobian(ci, pr);
        free(vk);
        free(pr);
        free(pub);
    }
    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < N_CIRCUITS; i += 3)
            unload(&all[ci][i]);
    return tu_finish();
}
