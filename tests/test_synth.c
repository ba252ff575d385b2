/*
 * Synthetic circuit generator (groth16/devtools/synth.h).
 *
 * - Several profiles (default, products only, booleans only, wide
 *   combinations, many / no public signals) and sizes on both curves: the
 *   witness satisfies every constraint (cuzk_r1cs_check_witness), and a
 *   perturbed witness does not.
 * - Shape: wire counts, the exact form of boolean, product and binding
 *   constraints, terms sorted and distinct, only earlier non-output wires
 *   read, term counts within the bounds, boolean share within 5 sigma of
 *   the requested share, boolean wires hold 0 or 1.
 * - Determinism: the same parameters give the same bytes; another seed
 *   gives another circuit.
 * - Round trip through the r1cs writer and reader; the streaming writer
 *   (cuzk_synth_write) produces exactly the bytes of cuzk_r1cs_write_mem on
 *   the in-memory circuit, and its .wtns reads back as the witness.
 * - The porep and snap profiles (gates of bits, zero columns of A and B)
 *   at 2^12: satisfied, well formed (gates included), and their shares of
 *   gates, 0/1 wires and wires in A and in B within bands of the profile's.
 * - Inconsistent parameters are rejected with CUZK_EINVAL.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/formats/r1cs.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/wtns.h"
#include "testutil.h"

static int fr_is(const cuzk_r1cs *r, const cuzk_fr *a, int64_t v) {
    cuzk_fr x, zero;
    memset(&zero, 0, sizeof zero);
    uint8_t b[32] = {0};
    uint64_t m = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(m >> (8 * i));
    cuzk_fr_from_le(r->curve, &x, b, NULL);
    if (v < 0)
        cuzk_fr_sub(r->curve, &x, &zero, &x);
    return cuzk_fr_eq(&x, a);
}

/* Row j of |m| is exactly one term wire:coef. */
static int row_is1(const cuzk_r1cs *r, const cuzk_r1cs_matrix *m, uint32_t j,
                   uint32_t wire, int64_t coef) {
    uint64_t lo = m->row_ptr[j];
    return m->row_ptr[j + 1] - lo == 1 && m->col[lo] == wire && fr_is(r, &m->coef[lo], coef);
}

typedef struct shape_stats {
    uint64_t n_bool, n_prod, n_gate, bad, lc_count[CUZK_SYNTH_MAX_TERMS + 1];
} shape_stats;

/* Some wires may not be read in A or B: combinations may come out short. */
static int restricted(const cuzk_synth_params *p) { return p->a_share < 1 || p->b_share < 1; }

static int is_bit(const cuzk_r1cs *r, const cuzk_fr *w) { return fr_is(r, w, 0) || fr_is(r, w, 1); }

/* Row j is a gate of earlier bits x (A) and y (B) defining bit z: XOR
 * A = {x: 2}, B = {y: 1}, C = {x: 1, y: 1, z: -1} or AND A = {x: 1},
 * B = {y: 1}, C = {z: 1}, with w[z] their value. */
static int gate_ok(const cuzk_r1cs *r, const cuzk_fr *w, uint32_t j, uint32_t z) {
    uint64_t a = r->a.row_ptr[j], b = r->b.row_ptr[j], c = r->c.row_ptr[j];
    uint64_t nc = r->c.row_ptr[j + 1] - c;
    if (r->a.row_ptr[j + 1] - a != 1 || r->b.row_ptr[j + 1] - b != 1)
        return 0;
    uint32_t x = r->a.col[a], y = r->b.col[b];
    if (x >= z || y >= z || x == y || (x >= 1 && x <= r->n_pub_out) ||
        (y >= 1 && y <= r->n_pub_out) || !is_bit(r, &w[x]) || !is_bit(r, &w[y]) ||
        !fr_is(r, &r->b.coef[b], 1))
        return 0;
    int bx = fr_is(r, &w[x], 1), by = fr_is(r, &w[y], 1);
    if (nc == 1) /* AND */
        return fr_is(r, &r->a.coef[a], 1) && row_is1(r, &r->c, j, z, 1) &&
               fr_is(r, &w[z], bx & by);
    return nc == 3 && fr_is(r, &r->a.coef[a], 2) && r->c.col[c] == (x < y ? x : y) &&
           r->c.col[c + 1] == (x < y ? y : x) && r->c.col[c + 2] == z &&
           fr_is(r, &r->c.coef[c], 1) && fr_is(r, &r->c.coef[c + 1], 1) &&
           fr_is(r, &r->c.coef[c + 2], -1) && fr_is(r, &w[z], bx ^ by);
}

/* Checks one product combination (row j of |m|) for new wire |z|. */
static int product_lc_ok(const cuzk_r1cs *r, const cuzk_synth_params *p,
                         const cuzk_r1cs_matrix *m, uint32_t j, uint32_t z,
                         shape_stats *st) {
    uint64_t lo = m->row_ptr[j], n = m->row_ptr[j + 1] - lo;
    uint32_t avail = z - r->n_pub_out;
    uint32_t lo_t = p->min_terms < avail ? p->min_terms : avail;
    uint32_t hi_t = p->max_terms < avail ? p->max_terms : avail;
    if (restricted(p))
        lo_t = 1;
    if (n < lo_t || n > hi_t)
        return 0;
    st->lc_count[n]++;
    for (uint64_t k = 0; k < n; k++) {
        uint32_t w = m->col[lo + k];
        cuzk_fr zero;
        memset(&zero, 0, sizeof zero);
        if (w >= z || (w >= 1 && w <= r->n_pub_out) || cuzk_fr_eq(&m->coef[lo + k], &zero))
            return 0;
        if (k > 0 && m->col[lo + k - 1] >= w)
            return 0;
    }
    return 1;
}

/* Checks every constraint's form; fills |st|. */
static void check_shape(const cuzk_r1cs *r, const cuzk_fr *w, const cuzk_synth_params *p,
                        shape_stats *st) {
    uint32_t n_pub = r->n_pub_out + r->n_pub_in;
    uint32_t n_int = r->n_constraints - r->n_pub_out;
    memset(st, 0, sizeof *st);
    CHECK(r->n_wires == 1 + n_pub + n_int, "n_wires %u", r->n_wires);
    CHECK(r->n_prv_in == 0, "private inputs");
    for (uint32_t j = 0; j < n_int; j++) {
        uint32_t z = 1 + n_pub + j;
        int ok;
        if (r->c.row_ptr[j + 1] == r->c.row_ptr[j]) { /* boolean */
            st->n_bool++;
            uint64_t lo = r->b.row_ptr[j];
            ok = row_is1(r, &r->a, j, z, 1) && r->b.row_ptr[j + 1] - lo == 2 &&
                 r->b.col[lo] == 0 && fr_is(r, &r->b.coef[lo], -1) &&
                 r->b.col[lo + 1] == z && fr_is(r, &r->b.coef[lo + 1], 1) &&
                 (fr_is(r, &w[z], 0) || fr_is(r, &w[z], 1));
        } else if (p->gate_share > 0 && gate_ok(r, w, j, z)) {
            st->n_bool++;
            st->n_gate++;
            ok = 1;
        } else {
            st->n_prod++;
            ok = row_is1(r, &r->c, j, z, 1) && product_lc_ok(r, p, &r->a, j, z, st) &&
                 product_lc_ok(r, p, &r->b, j, z, st);
        }
        if (!ok && st->bad++ < 3)
            CHECK(0, "constraint %u (wire %u) has the wrong form", j, z);
    }
    for (uint32_t i = 0; i < r->n_pub_out; i++) {
        uint32_t j = n_int + i;
        CHECK(row_is1(r, &r->a, j, 1 + i, 1) && row_is1(r, &r->b, j, 0, 1) &&
                  row_is1(r, &r->c, j, r->n_wires - 1 - i, 1),
              "binding constraint of output %u", i);
    }
}

static void check_bool_share(const shape_stats *st, double share, const char *what) {
    double n = (double)(st->n_bool + st->n_prod);
    double sigma = sqrt(n * share * (1 - share));
    double dev = fabs((double)st->n_bool - share * n);
    CHECK(dev <= 5 * sigma + 1, "%s: %llu booleans of %.0f, expected share %.2f", what,
          (unsigned long long)st->n_bool, n, share);
}

/* Shares of a profile with zero columns, measured on its circuit. */
typedef struct density_stats {
    double gate, bits, in_a, in_b; /* of the bits; of the internal wires; of all wires */
} density_stats;

static void check_profile_stats(const cuzk_synth_params *p, const char *what,
                                density_stats *ds);

static void check_profile(const cuzk_synth_params *p, const char *what) {
    check_profile_stats(p, what, NULL);
}

static void check_profile_stats(const cuzk_synth_params *p, const char *what,
                                density_stats *ds) {
    cuzk_r1cs r;
    cuzk_fr *w;
    cuzk_error err = {0};
    cuzk_status s = cuzk_synth_circuit(p, &r, &w, &err);
    CHECK(s == CUZK_OK, "%s: synth failed: %s", what, err.msg);
    if (s != CUZK_OK)
        return;
    uint32_t n_pub = p->n_pub_out + p->n_pub_in;
    if (p->log2_domain)
        CHECK(r.n_constraints + n_pub + 1 == (1u << p->log2_domain),
              "%s: %u constraints do not fill 2^%u", what, r.n_constraints, p->log2_domain);
    else
        CHECK(r.n_constraints == p->n_constraints, "%s: constraint count", what);
    s = cuzk_r1cs_check_witness(&r, w, r.n_wires, &err);
    CHECK(s == CUZK_OK, "%s: witness does not satisfy: %s", what, err.msg);
    shape_stats st;
    check_shape(&r, w, p, &st);
    CHECK(st.bad == 0, "%s: %llu malformed constraints", what, (unsigned long long)st.bad);
    if (ds) {
        uint32_t nv = r.n_wires, n_int = nv - 1 - n_pub, bits = 0, na = 0, nb = 0;
        uint8_t *ia = calloc(nv, 1), *ib = calloc(nv, 1);
        for (uint64_t k = 0; k < r.a.nnz; k++)
            ia[r.a.col[k]] = 1;
        for (uint64_t k = 0; k < r.b.nnz; k++)
            ib[r.b.col[k]] = 1;
        for (uint32_t i = 0; i <= n_pub; i++) /* the key's extra public rows */
            ia[i] = 1;
        for (uint32_t i = 0; i < nv; i++)
            na += ia[i], nb += ib[i];
        for (uint32_t i = 1 + n_pub; i < nv; i++)
            bits += is_bit(&r, &w[i]);
        ds->gate = st.n_bool ? (double)st.n_gate / (double)st.n_bool : 0;
        ds->bits = (double)bits / n_int;
        ds->in_a = (double)na / nv;
        ds->in_b = (double)nb / nv;
        free(ia), free(ib);
    }
    if (st.n_bool + st.n_prod >= 1000) {
        check_bool_share(&st, p->bool_share, what);
        /* Every allowed term count shows up in a large circuit. */
        if (st.n_prod >= 500)
            for (unsigned t = p->min_terms; t <= p->max_terms; t++)
                CHECK(st.lc_count[t] > 0, "%s: no combination with %u terms", what, t);
    }
    /* A wrong internal value must break its defining constraint (+2 keeps
     * no boolean boolean and no product equal to a*b). */
    uint32_t n_int = r.n_wires - 1 - n_pub;
    uint32_t victim = 1 + n_pub + (uint32_t)(tu_rand64() % n_int);
    cuzk_fr one;
    cuzk_fr_set_one(r.curve, &one);
    cuzk_fr_add(r.curve, &w[victim], &w[victim], &one);
    cuzk_fr_add(r.curve, &w[victim], &w[victim], &one);
    CHECK(cuzk_r1cs_check_witness(&r, w, r.n_wires, &err) == CUZK_EVERIFY,
          "%s: perturbed witness (wire %u) still satisfies", what, victim);
    free(w);
    cuzk_r1cs_free(&r);
}

static void test_profiles(cuzk_curve c) {
    const char *cn = cuzk_curve_snarkjs_name(c);
    char what[128];
    cuzk_synth_params p;
    for (unsigned k = 10; k <= 16; k += 2) {
        cuzk_synth_params_default(&p, c);
        p.log2_domain = k;
        p.seed = tu_rand64();
        snprintf(what, sizeof what, "%s default 2^%u", cn, k);
        check_profile(&p, what);
    }
    cuzk_synth_params_default(&p, c);
    p.log2_domain = 12, p.bool_share = 0, p.seed = tu_rand64();
    snprintf(what, sizeof what, "%s products only", cn);
    check_profile(&p, what);
    cuzk_synth_params_default(&p, c);
    p.log2_domain = 11, p.bool_share = 1, p.seed = tu_rand64();
    snprintf(what, sizeof what, "%s booleans only", cn);
    check_profile(&p, what);
    cuzk_synth_params_default(&p, c);
    p.log2_domain = 0, p.n_constraints = 3000, p.bool_share = 0.3;
    p.min_terms = 1, p.max_terms = 8, p.n_pub_out = 3, p.n_pub_in = 5, p.seed = tu_rand64();
    snprintf(what, sizeof what, "%s wide, many public", cn);
    check_profile(&p, what);
    cuzk_synth_params_default(&p, c);
    p.log2_domain = 0, p.n_constraints = 1, p.n_pub_out = 0, p.n_pub_in = 0;
    p.min_terms = 3, p.max_terms = 3, p.bool_share = 0, p.seed = tu_rand64();
    snprintf(what, sizeof what, "%s one constraint, no public", cn);
    check_profile(&p, what);
    cuzk_synth_params_default(&p, c);
    p.log2_domain = 0, p.n_constraints = 2, p.n_pub_in = 0, p.bool_share = 0.5;
    p.seed = tu_rand64();
    snprintf(what, sizeof what, "%s smallest with an output", cn);
    check_profile(&p, what);
}

/*
 * The porep and snap profiles at 2^12 (their curve, their shares): the
 * circuit is satisfied and has its gates, bits and zero columns in the
 * shares the profile promises (bands that hold at every size: the shares
 * do not depend on it), and the same seed gives the same circuit.
 */
static void test_zero_column_profiles(void) {
    static const char *names[2] = {"porep", "snap"};
    for (int i = 0; i < 2; i++) {
        cuzk_synth_params p;
        cuzk_error err = {0};
        char what[64];
        CHECK(cuzk_synth_params_profile(&p, names[i], &err) == CUZK_OK, "profile %s", names[i]);
        CHECK(p.a_share < 1 && p.b_share < 1 && p.gate_share > 0,
              "%s: a profile with zero columns", names[i]);
        p.log2_domain = 12;
        p.seed = tu_rand64();
        snprintf(what, sizeof what, "%s 2^12", names[i]);
        density_stats ds;
        check_profile_stats(&p, what, &ds);
        printf("%s: gates %.3f of the bits, 0/1 wires %.3f, in A %.3f, in B %.3f\n", what,
               ds.gate, ds.bits, ds.in_a, ds.in_b);
        /* a gate falls back to a fresh bit only early on (no bits yet) */
        CHECK(ds.gate > p.gate_share - 0.05 && ds.gate < p.gate_share + 0.05,
              "%s: %.3f of the bits are gates, the profile asks %.2f", what, ds.gate,
              p.gate_share);
        CHECK(ds.bits >= p.bool_share - 0.03, "%s: %.3f of the wires are 0/1, want ~%.2f", what,
              ds.bits, p.bool_share);
        /* measured at 2^14..2^18: porep 0.48, snap 0.54 in each */
        double want = i == 0 ? 0.48 : 0.54;
        CHECK(fabs(ds.in_a - want) < 0.06 && fabs(ds.in_b - want) < 0.06,
              "%s: %.3f of the wires in A, %.3f in B, expected about %.2f", what, ds.in_a,
              ds.in_b, want);
    }
}

static int bytes_of(const cuzk_synth_params *p, uint8_t **buf, size_t *size, cuzk_fr **w,
                    cuzk_r1cs *keep) {
    cuzk_r1cs r;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(p, &r, w, &err) != CUZK_OK) {
        CHECK(0, "synth: %s", err.msg);
        return 0;
    }
    int ok = cuzk_r1cs_write_mem(&r, buf, size, &err) == CUZK_OK;
    CHECK(ok, "r1cs write: %s", err.msg);
    if (keep)
        *keep = r;
    else
        cuzk_r1cs_free(&r);
    return ok;
}

static int matrix_eq(const cuzk_r1cs_matrix *a, const cuzk_r1cs_matrix *b, uint32_t rows) {
    return a->nnz == b->nnz &&
           !memcmp(a->row_ptr, b->row_ptr, ((size_t)rows + 1) * sizeof *a->row_ptr) &&
           !memcmp(a->col, b->col, a->nnz * sizeof *a->col) &&
           !memcmp(a->coef, b->coef, a->nnz * sizeof *a->coef);
}

static void test_determinism_and_round_trip(cuzk_curve c) {
    cuzk_synth_params p;
    cuzk_synth_params_default(&p, c);
    p.log2_domain = 11;
    p.seed = tu_rand64();
    uint8_t *b1 = NULL, *b2 = NULL, *b3 = NULL;
    size_t s1 = 0, s2 = 0, s3 = 0;
    cuzk_fr *w1 = NULL, *w2 = NULL, *w3 = NULL;
    cuzk_r1cs r1;
    if (!bytes_of(&p, &b1, &s1, &w1, &r1) || !bytes_of(&p, &b2, &s2, &w2, NULL))
        return;
    CHECK(s1 == s2 && !memcmp(b1, b2, s1), "same seed, different r1cs");
    CHECK(!memcmp(w1, w2, r1.n_wires * sizeof *w1), "same seed, different witness");
    p.seed ^= 1;
    if (bytes_of(&p, &b3, &s3, &w3, NULL))
        CHECK(s1 != s3 || memcmp(b1, b3, s1), "another seed, same r1cs");

    /* reader(writer(x)) == x, and writing again gives the same bytes */
    cuzk_r1cs back;
    cuzk_error err = {0};
    cuzk_status st = cuzk_r1cs_read_mem(&back, b1, s1, &err);
    CHECK(st == CUZK_OK, "read back: %s", err.msg);
    if (st == CUZK_OK) {
        CHECK(back.curve == r1.curve && back.n_wires == r1.n_wires &&
                  back.n_pub_out == r1.n_pub_out && back.n_pub_in == r1.n_pub_in &&
                  back.n_prv_in == r1.n_prv_in && back.n_constraints == r1.n_constraints,
              "header after round trip");
        CHECK(matrix_eq(&back.a, &r1.a, r1.n_constraints) &&
                  matrix_eq(&back.b, &r1.b, r1.n_constraints) &&
                  matrix_eq(&back.c, &r1.c, r1.n_constraints),
              "matrices after round trip");
        CHECK(cuzk_r1cs_check_witness(&back, w1, back.n_wires, &err) == CUZK_OK,
              "witness vs read-back r1cs: %s", err.msg);
        cuzk_r1cs_free(&back);
    }

    /* The streaming writer: same bytes; the .wtns holds the witness. */
    char dir[] = "/tmp/cuzk-test-synth-XXXXXX", rp[256], wp[256];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        goto out;
    }
    snprintf(rp, sizeof rp, "%s/c.r1cs", dir);
    snprintf(wp, sizeof wp, "%s/c.wtns", dir);
    p.seed ^= 1;
    st = cuzk_synth_write(rp, wp, &p, &err);
    CHECK(st == CUZK_OK, "synth_write: %s", err.msg);
    if (st == CUZK_OK) {
        FILE *f = fopen(rp, "rb");
        uint8_t *fb = malloc(s1 + 1);
        size_t got = f && fb ? fread(fb, 1, s1 + 1, f) : 0;
        CHECK(got == s1 && !memcmp(fb, b1, s1), "streamed r1cs differs (%zu vs %zu bytes)", got, s1);
        if (f)
            fclose(f);
        free(fb);
        cuzk_wtns wt;
        st = cuzk_wtns_open(&wt, wp, &err);
        CHECK(st == CUZK_OK, "wtns open: %s", err.msg);
        if (st == CUZK_OK) {
            cuzk_fr *wb = malloc(wt.n_witness * sizeof *wb);
            CHECK(wt.n_witness == r1.n_wires && wt.curve == c, "wtns header");
            CHECK(wt.n_witness == r1.n_wires &&
                      cuzk_wtns_to_mont(&wt, wb, 0, wt.n_witness, &err) == CUZK_OK &&
                      !memcmp(wb, w1, wt.n_witness * sizeof *wb),
                  "wtns values differ from the witness");
            free(wb);
            cuzk_wtns_close(&wt);
        }
    }
    /* An unwritable path fails with EIO and a message. */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/c.r1cs", dir);
    CHECK(cuzk_synth_write(bad, NULL, &p, &err) == CUZK_EIO && strstr(err.msg, "no/such"),
          "unwritable path: %s", err.msg);
    unlink(rp);
    unlink(wp);
    rmdir(dir);
out:
    cuzk_r1cs_free(&r1);
    free(b1), free(b2), free(b3);
    free(w1), free(w2), free(w3);
}

static void expect_einval(const cuzk_synth_params *p, const char *what) {
    cuzk_r1cs r;
    cuzk_fr *w = (cuzk_fr *)&r;
    cuzk_error err = {0};
    CHECK(cuzk_synth_circuit(p, &r, &w, &err) == CUZK_EINVAL && err.msg[0] && w == NULL,
          "%s accepted (%s)", what, err.msg);
    CHECK(cuzk_synth_n_constraints(p, NULL) == 0, "%s: n_constraints", what);
    cuzk_r1cs_free(&r);
}

static void test_rejects(void) {
    cuzk_synth_params p;
#define BAD(stmt, what)                                                       \
    do {                                                                      \
        cuzk_synth_params_default(&p, CUZK_CURVE_BLS12_381);                  \
        stmt;                                                                 \
        expect_einval(&p, what);                                              \
    } while (0)
    BAD(p.curve = CUZK_CURVE_NONE, "no curve");
    BAD(p.bool_share = 1.5, "bool_share 1.5");
    BAD(p.bool_share = -0.1, "bool_share -0.1");
    BAD(p.bool_share = NAN, "bool_share NaN");
    BAD(p.min_terms = 0, "min_terms 0");
    BAD((p.min_terms = 4, p.max_terms = 3), "min > max");
    BAD(p.max_terms = CUZK_SYNTH_MAX_TERMS + 1, "max_terms too large");
    BAD((p.log2_domain = 0, p.n_constraints = 0), "zero constraints");
    BAD((p.log2_domain = 0, p.n_constraints = 3, p.n_pub_out = 2), "too few for outputs");
    BAD((p.log2_domain = 2, p.n_pub_in = 2), "domain too small for the publics");
    BAD(p.log2_domain = 32, "domain 2^32");
    BAD(p.a_share = 1.5, "a_share 1.5");
    BAD(p.b_share = -0.5, "b_share -0.5");
    BAD(p.gate_share = NAN, "gate_share NaN");
#undef BAD
    cuzk_synth_params_default(&p, CUZK_CURVE_BN254);
    p.log2_domain = 20;
    CHECK(cuzk_synth_n_constraints(&p, NULL) == (1u << 20) - 3, "2^20 resolves");
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_synth");
    cuzk_curve curves[2] = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};
    for (int i = 0; i < 2; i++) {
        test_profiles(curves[i]);
        test_determinism_and_round_trip(curves[i]);
    }
    test_zero_column_profiles();
    test_rejects();
    return tu_finish();
}
