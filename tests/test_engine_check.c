/*
 * A proof is never done unless it verifies: the engine's two checks
 * (docs/ENGINE.md, "Checks") and their switches.
 *
 * - cuzk_abc_check_rows (groth16/prover/satisfy.h) against GMP: random
 *   plain a, b with c = a·b mod r computed by GMP, in Montgomery form,
 *   pass on a pool of two threads over several chunks; rows broken here
 *   and there are found, and the row reported is always the lowest one,
 *   whichever chunk finishes first; no rows, and a pool of NULL, work.
 * - On the CPU device, both curves (generated circuits, development keys),
 *   with the defaults (both checks on, which is asserted):
 *   an a, b, c image whose c differs from a∘b at rows 17 and 600 fails
 *   with CUZK_EVERIFY and "a∘b ≠ c at row 17: the witness does not
 *   satisfy the circuit", before any device attempt; a .wtns with one
 *   value changed fails self-verification with CUZK_EVERIFY; the good
 *   image and witness prove;
 * - with check_abc off and self_verify on, the bad image fails on
 *   verification; with both off, the bad image and the bad witness end
 *   done with proofs that do not verify (what the switches give up);
 * - on a simulated device that evaluates its own a, b, c (as a GPU does),
 *   the bad image fails with the row's message too: images are converted
 *   and checked on the host whatever the device.
 */
#include <gmp.h>

#include "groth16/prover/satisfy.h"
#include "test_engine_util.h"
#include "util/threadpool.h"

/* ---- the row check against GMP ----------------------------------------------- */

static void to_mpz(mpz_t r, const uint64_t l[4]) { mpz_import(r, 4, -1, 8, 0, 0, l); }

/* |v| (mpz below r) as a Montgomery cuzk_fr of |curve|. */
static void mont_of(cuzk_curve curve, cuzk_fr *out, const mpz_t v) {
    uint8_t le[32] = {0};
    mpz_export(le, NULL, -1, 1, 0, 0, v);
    cuzk_error err = {0};
    if (cuzk_fr_from_le(curve, out, le, &err) != CUZK_OK)
        CHECK(0, "fr_from_le: %s", err.msg);
}

static void rows_tests(const tu_curve *tc, cuzk_pool *pool) {
    cuzk_curve curve = (cuzk_curve)tc->id;
    const uint64_t *r = cuzk_curve_r_limbs(curve);
    size_t n = 3 * 4096 + 5; /* several chunks of the pool's loop */
    cuzk_fr *abc = malloc(3 * n * sizeof *abc), *a = abc, *b = abc + n, *c = abc + 2 * n;
    mpz_t x, y, z, mr;
    mpz_inits(x, y, z, mr, NULL);
    to_mpz(mr, r);
    for (size_t i = 0; i < n; i++) {
        uint64_t la[4], lb[4];
        tu_rand_below(la, r, 4);
        tu_rand_below(lb, r, 4);
        to_mpz(x, la);
        to_mpz(y, lb);
        mpz_mul(z, x, y);
        mpz_mod(z, z, mr);
        mont_of(curve, &a[i], x);
        mont_of(curve, &b[i], y);
        mont_of(curve, &c[i], z);
    }
    size_t row = 0;
    cuzk_error err = {0};
    CHECK(cuzk_abc_check_rows(curve, a, b, c, n, pool, &row, &err) == CUZK_OK && row == n,
          "%s: a∘b = c holds on GMP's products: %s", tc->name, err.msg);
    CHECK(cuzk_abc_check_rows(curve, a, b, c, n, NULL, &row, &err) == CUZK_OK,
          "%s: serial: %s", tc->name, err.msg);
    CHECK(cuzk_abc_check_rows(curve, a, b, c, 0, pool, &row, &err) == CUZK_OK && row == 0,
          "%s: no rows", tc->name);
    /* rows to break, and the lowest one each time */
    const size_t breaks[][3] = {{12000, 9000, 100}, {n - 1, n - 1, n - 1}, {0, 5000, 12289}};
    for (size_t k = 0; k < TU_COUNT(breaks); k++) {
        cuzk_fr keep[3];
        size_t low = n;
        for (int i = 0; i < 3; i++) {
            keep[i] = c[breaks[k][i]];
            if (breaks[k][i] < low)
                low = breaks[k][i];
        }
        for (int i = 0; i < 3; i++) { /* c + 1: no longer a·b */
            cuzk_fr one;
            cuzk_fr_set_one(curve, &one);
            cuzk_fr_add(curve, &c[breaks[k][i]], &keep[i], &one);
        }
        char want[96];
        snprintf(want, sizeof want, "a∘b ≠ c at row %zu: the witness does not satisfy the circuit",
                 low);
        for (int serial = 0; serial < 2; serial++) {
            cuzk_status s = cuzk_abc_check_rows(curve, a, b, c, n, serial ? NULL : pool, &row, &err);
            CHECK(s == CUZK_EVERIFY && row == low && !strcmp(err.msg, want),
                  "%s: rows %zu %zu %zu broken (%s): %d row %zu \"%s\"", tc->name, breaks[k][0],
                  breaks[k][1], breaks[k][2], serial ? "serial" : "pool", (int)s, row, err.msg);
        }
        for (int i = 2; i >= 0; i--)
            c[breaks[k][i]] = keep[i];
    }
    CHECK(cuzk_abc_check_rows(CUZK_CURVE_NONE, a, b, c, n, pool, NULL, &err) == CUZK_ECURVE,
          "%s: no curve", tc->name);
    mpz_clears(x, y, z, mr, NULL);
    free(abc);
}

/* ---- the engine ----------------------------------------------------------------- */

/* Replace the 32-byte plain value at |at| by a small one it did not hold. */
static void change_value(uint8_t *at) {
    uint8_t v[32] = {5};
    if (!memcmp(at, v, 32))
        v[0] = 6;
    memcpy(at, v, 32);
}

/* A copy of |img| whose c differs from a∘b at rows 17 and 600. */
static uint8_t *bad_image(const uint8_t *img, size_t size) {
    uint8_t *bad = malloc(size);
    memcpy(bad, img, size);
    uint64_t m = cuzk_rd_u64(img + 16); /* magic, version, curve, then m */
    CHECK(m > 600, "the image has %llu rows", (unsigned long long)m);
    for (size_t row = 17; row <= 600 && m > 600; row += 583)
        change_value(bad + CUZK_ABC_HEADER_BYTES + (2 * m + row) * 32);
    return bad;
}

/* A copy of |c|'s .wtns with its last value (a private signal) changed. */
static uint8_t *bad_wtns(const eu_circuit *c) {
    uint8_t *bad = malloc(c->wtns_size);
    memcpy(bad, c->wtns_mem, c->wtns_size);
    cuzk_wtns w;
    cuzk_error err = {0};
    if (cuzk_wtns_from_mem(&w, bad, c->wtns_size, &err) != CUZK_OK) {
        CHECK(0, "wtns: %s", err.msg);
        return bad;
    }
    size_t at = (size_t)(cuzk_wtns_value(&w, w.n_witness - 1) - bad);
    cuzk_wtns_close(&w);
    change_value(bad + at);
    return bad;
}

/* One partition of |data|; the outcome, |err| its message, |attempts| the
 * partition's device attempts, |verified| how many proofs verify (none
 * looked at on a |simulated| device). */
typedef struct outcome {
    cuzk_status status;
    cuzk_error err;
    unsigned attempts;
    size_t verified;
} outcome;

static outcome run_one(cuzk_engine *e, const eu_circuit *c, const uint8_t *data, size_t size,
                       int simulated) {
    outcome o = {0};
    cuzk_witness w = {.data = data, .size = size};
    cuzk_submit_opts so = {.key = c->zkey, .witnesses = &w, .n_witnesses = 1};
    cuzk_job *j = NULL;
    o.status = cuzk_submit(e, &j, NULL, &so, &o.err);
    if (o.status == CUZK_OK)
        o.status = cuzk_job_await(j, -1, &o.err);
    if (j) {
        cuzk_partition_info pi;
        cuzk_job_status(j, NULL, &pi, 1);
        o.attempts = pi.attempts;
        if (o.status == CUZK_OK && !simulated) /* a simulated device makes no proof */
            o.verified = eu_verify_job(j, &c->vk);
    }
    cuzk_job_release(j);
    return o;
}

#define ROW_MSG "a∘b ≠ c at row 17: the witness does not satisfy the circuit"

static void engine_tests(const tu_curve *tc) {
    cuzk_curve curve = (cuzk_curve)tc->id;
    char *dir = eu_tmpdir();
    eu_circuit c;
    eu_make(&c, dir, "c", curve, 10, tu_rand64());
    size_t isize = 0;
    uint8_t *img = eu_image_of(&c, c.zkey, &isize);
    if (!img)
        return;
    uint8_t *bimg = bad_image(img, isize), *bw = bad_wtns(&c);

    /* the defaults: both checks on */
    cuzk_engine_config cfg;
    eu_log log = {0};
    eu_config(&cfg, &log);
    CHECK(cfg.self_verify == 1 && cfg.check_abc == 1, "%s: defaults self_verify %d check_abc %d",
          tc->name, cfg.self_verify, cfg.check_abc);
    eu_cpu_device(&cfg, 2);
    cuzk_engine *e = eu_create(&cfg);
    outcome o = run_one(e, &c, img, isize, 0);
    CHECK(o.status == CUZK_OK && o.verified == 1, "%s: good image: %s", tc->name, o.err.msg);
    o = run_one(e, &c, c.wtns_mem, c.wtns_size, 0);
    CHECK(o.status == CUZK_OK && o.verified == 1, "%s: good witness: %s", tc->name, o.err.msg);
    o = run_one(e, &c, bimg, isize, 0);
    CHECK(o.status == CUZK_EVERIFY && strstr(o.err.msg, ROW_MSG) && o.attempts == 0,
          "%s: c ≠ a∘b: %d \"%s\", %u device attempts", tc->name, (int)o.status, o.err.msg,
          o.attempts);
    o = run_one(e, &c, bw, c.wtns_size, 0);
    CHECK(o.status == CUZK_EVERIFY && strstr(o.err.msg, "self-verification failed") &&
              strstr(o.err.msg, "the witness does not satisfy the circuit"),
          "%s: a witness with one value changed: %d \"%s\"", tc->name, (int)o.status, o.err.msg);
    o = run_one(e, &c, img, isize, 0);
    CHECK(o.status == CUZK_OK && o.verified == 1, "%s: a good image after the bad: %s", tc->name,
          o.err.msg);
    cuzk_engine_destroy(e, -1);

    /* the row check off: verification is the one left to fail it */
    eu_config(&cfg, &log);
    eu_cpu_device(&cfg, 2);
    cfg.check_abc = 0;
    e = eu_create(&cfg);
    o = run_one(e, &c, bimg, isize, 0);
    CHECK(o.status == CUZK_EVERIFY && strstr(o.err.msg, "self-verification failed") &&
              o.attempts == 1,
          "%s: c ≠ a∘b, check_abc off: %d \"%s\"", tc->name, (int)o.status, o.err.msg);
    cuzk_engine_destroy(e, -1);

    /* both off: done, with proofs that do not verify */
    eu_config(&cfg, &log);
    eu_cpu_device(&cfg, 2);
    cfg.check_abc = 0;
    cfg.self_verify = 0;
    e = eu_create(&cfg);
    o = run_one(e, &c, bimg, isize, 0);
    CHECK(o.status == CUZK_OK && o.verified == 0,
          "%s: c ≠ a∘b, both checks off: %d \"%s\", %zu verified", tc->name, (int)o.status,
          o.err.msg, o.verified);
    o = run_one(e, &c, bw, c.wtns_size, 0);
    CHECK(o.status == CUZK_OK && o.verified == 0,
          "%s: bad witness, both checks off: %d \"%s\", %zu verified", tc->name, (int)o.status,
          o.err.msg, o.verified);
    cuzk_engine_destroy(e, -1);

    /* a device that evaluates its own a, b, c: images are checked on the host */
    eu_config(&cfg, &log);
    eu_sim_device(&cfg, 0, 100);
    eu_testing.sim[0].evaluates = 1;
    cfg.cpu_fallback = 0;
    e = eu_create(&cfg);
    o = run_one(e, &c, bimg, isize, 1);
    CHECK(o.status == CUZK_EVERIFY && strstr(o.err.msg, ROW_MSG) && o.attempts == 0,
          "%s: c ≠ a∘b on a device that evaluates: %d \"%s\"", tc->name, (int)o.status,
          o.err.msg);
    o = run_one(e, &c, img, isize, 1);
    CHECK(o.status == CUZK_OK, "%s: a good image on a device that evaluates: %s", tc->name,
          o.err.msg);
    cuzk_engine_destroy(e, -1);

    free(bw);
    free(bimg);
    free(img);
    eu_free(&c);
    eu_rmdir(dir);
}

static cuzk_pool *pool2;

static void curve_tests(const tu_curve *tc) {
    rows_tests(tc, pool2);
    engine_tests(tc);
}

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, curve_tests},
    {"bn254", CUZK_CURVE_BN254, curve_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_check");
    cuzk_error err = {0};
    pool2 = cuzk_pool_create(2, &err);
    CHECK(pool2 != NULL, "pool: %s", err.msg);
    tu_run_curves(curves, TU_COUNT(curves));
    cuzk_pool_destroy(pool2);
    return tu_finish();
}
