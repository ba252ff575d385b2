/*
 * The public API's byte images (include/cuzk.h, cuzk_files.h): a proof made
 * by the internal prover, turned into its image, verifies through
 * cuzk_verify with a key loaded by cuzk_vk_load (from the .zkey and from
 * the verification_key.json written by cuzk_vk_save_json); the image
 * round-trips; proof.json and public.json round-trip; a corrupted image, a
 * wrong length, a wrong curve tag, signals out of range or of the wrong
 * number each fail with their own status and a message; a job's results
 * come out as the same images.  Both curves, 2^8 circuits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"
#include "engine/api.h"
#include "groth16/prover/key.h"
#include "groth16/formats/wtns.h"
#include "cpu_prove.h"
#include "testutil.h"
#include "util/threadpool.h"

typedef struct fixture {
    char dir[64], r1cs[128], zkey[128], wtns[128];
    cuzk_curve curve;
} fixture;

static int make(fixture *f, cuzk_curve curve) {
    cuzk_error err = {0};
    cuzk_synth_params sp;
    memset(f, 0, sizeof *f);
    f->curve = curve;
    snprintf(f->dir, sizeof f->dir, "/tmp/cuzk-api-test-XXXXXX");
    if (!mkdtemp(f->dir))
        return 0;
    snprintf(f->r1cs, sizeof f->r1cs, "%s/c.r1cs", f->dir);
    snprintf(f->zkey, sizeof f->zkey, "%s/c.zkey", f->dir);
    snprintf(f->wtns, sizeof f->wtns, "%s/c.wtns", f->dir);
    cuzk_synth_params_default(&sp, curve);
    sp.log2_domain = 8;
    sp.n_pub_in = 2;
    uint64_t seed = 7;
    if (cuzk_synth_write(f->r1cs, f->wtns, &sp, &err) != CUZK_OK ||
        cuzk_setup_dev(f->r1cs, f->zkey, &seed, 1, &err) != CUZK_OK) {
        CHECK(0, "fixture: %s", err.msg);
        return 0;
    }
    return 1;
}

static void cleanup(const fixture *f) {
    const char *names[] = {"c.r1cs", "c.zkey", "c.wtns", "vk.json", "proof.json", "public.json",
                           "junk"};
    char p[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", f->dir, names[i]);
        unlink(p);
    }
    rmdir(f->dir);
}

/* The internal prover's proof of the fixture's witness, as an image. */
static int prove_image(const fixture *f, cuzk_proof_bytes *pb) {
    cuzk_error err = {0};
    cuzk_key k;
    cuzk_wtns w;
    cuzk_proof p;
    cuzk_pool *pool = cuzk_pool_create(1, &err);
    int ok = pool && cuzk_key_load(&k, f->zkey, &err) == CUZK_OK;
    if (ok) {
        ok = cuzk_wtns_open(&w, f->wtns, &err) == CUZK_OK;
        if (ok) {
            ok = tu_key_prove(&k, &w, &p, pool, NULL, &err) == CUZK_OK;
            cuzk_wtns_close(&w);
        }
        cuzk_key_free(&k);
    }
    cuzk_pool_destroy(pool);
    CHECK(ok, "prove: %s", err.msg);
    if (!ok)
        return 0;
    cuzk_proof_to_bytes(pb, &p);
    /* the image decodes to the same points and encodes to the same bytes */
    cuzk_proof back;
    cuzk_proof_bytes again;
    CHECK(cuzk_proof_from_bytes(&back, pb, &err) == CUZK_OK, "image decodes: %s", err.msg);
    cuzk_proof_to_bytes(&again, &back);
    CHECK(again.len == pb->len && !memcmp(again.bytes, pb->bytes, pb->len),
          "image round-trips byte for byte");
    return 1;
}

static void corruptions(const cuzk_vk *vk, const cuzk_proof_bytes *good, const uint8_t *pub,
                        size_t n_pub, const char *cn) {
    cuzk_error err;
    cuzk_proof_bytes pb;
    cuzk_status s;
    /* a flipped byte in each point: rejected by decoding or pairing, never OK */
    size_t at[] = {0, 5, good->len / 2, good->len - 1};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        pb = *good;
        pb.bytes[at[i]] ^= 0x21;
        memset(&err, 0, sizeof err);
        s = cuzk_verify(vk, &pb, pub, n_pub, &err);
        CHECK(s != CUZK_OK && s != CUZK_EINTERNAL && err.msg[0] && err.status == s,
              "%s: byte %zu flipped: %s (%s)", cn, at[i], cuzk_status_name(s), err.msg);
    }
    /* a wrong length */
    pb = *good;
    pb.len--;
    s = cuzk_verify(vk, &pb, pub, n_pub, &err);
    CHECK(s == CUZK_EFORMAT, "%s: short image: %s (%s)", cn, cuzk_status_name(s), err.msg);
    /* a wrong curve tag, and none */
    pb = *good;
    pb.curve = good->curve == CUZK_CURVE_BN254 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
    s = cuzk_verify(vk, &pb, pub, n_pub, &err);
    CHECK(s == CUZK_ECURVE, "%s: other curve's tag: %s", cn, cuzk_status_name(s));
    pb.curve = CUZK_CURVE_NONE;
    s = cuzk_verify(vk, &pb, pub, n_pub, &err);
    CHECK(s == CUZK_ECURVE, "%s: no curve tag: %s", cn, cuzk_status_name(s));
    cuzk_proof p;
    CHECK(cuzk_proof_from_bytes(&p, &pb, &err) == CUZK_ECURVE, "%s: untagged image decodes", cn);
    /* signals: another value (valid points, the pairing says no), out of
     * range, too few */
    uint8_t *other = malloc(n_pub * CUZK_SCALAR_BYTES + 1);
    memcpy(other, pub, n_pub * CUZK_SCALAR_BYTES);
    other[CUZK_SCALAR_BYTES - 1] ^= 1;
    s = cuzk_verify(vk, good, other, n_pub, &err);
    CHECK(s == CUZK_EVERIFY, "%s: other public signal: %s (%s)", cn, cuzk_status_name(s), err.msg);
    memset(other, 0xff, CUZK_SCALAR_BYTES);
    s = cuzk_verify(vk, good, other, n_pub, &err);
    CHECK(s == CUZK_ERANGE, "%s: signal >= r: %s (%s)", cn, cuzk_status_name(s), err.msg);
    s = cuzk_verify(vk, good, pub, n_pub - 1, &err);
    CHECK(s == CUZK_EMISMATCH, "%s: one signal short: %s", cn, cuzk_status_name(s));
    free(other);
}

/* A job's results through the engine come out as the same kind of image. */
static void engine_images(const fixture *f, const cuzk_vk *vk, const uint8_t *pub, size_t n_pub) {
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synth_threads = 1;
    cfg.budget_bytes = 1ULL << 30;
    cfg.n_devices = 1;
    cfg.devices[0].kind = CUZK_DEVICE_CPU;
    cfg.devices[0].threads = 1;
    cfg.log_level = CUZK_LOG_ERROR;
    cuzk_engine *e = NULL;
    cuzk_job *j = NULL;
    cuzk_error err = {0};
    cuzk_witness w = {.path = f->wtns};
    cuzk_submit_opts o = {.key = f->zkey, .witnesses = &w, .n_witnesses = 1};
    cuzk_status s = cuzk_engine_create(&e, &cfg, &err);
    if (s == CUZK_OK)
        s = cuzk_submit(e, &j, NULL, &o, &err);
    if (s == CUZK_OK)
        s = cuzk_job_await(j, 120000, &err);
    CHECK(s == CUZK_OK, "engine job: %s", err.msg);
    if (s == CUZK_OK) {
        cuzk_proof_bytes pb;
        cuzk_curve c = CUZK_CURVE_NONE;
        size_t n = 0;
        CHECK(cuzk_job_public_bytes(j, &c, NULL, &n, 0, &err) == CUZK_OK && n == n_pub &&
                  c == f->curve,
              "job: counting signals gives %zu of %zu", n, n_pub);
        uint8_t *got = malloc(n_pub * CUZK_SCALAR_BYTES + 1);
        n = n_pub - 1;
        s = cuzk_job_public_bytes(j, NULL, got, &n, 0, &err);
        CHECK(s == CUZK_ERANGE && n == n_pub, "job: too little room: %s, %zu needed",
              cuzk_status_name(s), n);
        n = n_pub;
        CHECK(cuzk_job_public_bytes(j, NULL, got, &n, 0, &err) == CUZK_OK && n == n_pub &&
                  !memcmp(got, pub, n_pub * CUZK_SCALAR_BYTES),
              "job: public signals are the witness's");
        CHECK(cuzk_job_proof_bytes(j, &pb, 0, &err) == CUZK_OK &&
                  pb.len == cuzk_proof_bytes_len(f->curve) &&
                  cuzk_verify(vk, &pb, got, n_pub, &err) == CUZK_OK,
              "job: its proof image verifies (%s)", err.msg);
        CHECK(cuzk_job_proof_bytes(j, &pb, 1, &err) == CUZK_ERANGE, "job: partition 1 of 1");
        n = 1;
        CHECK(cuzk_job_public_bytes(j, NULL, NULL, &n, 0, &err) == CUZK_EINVAL,
              "job: room but no buffer");
        free(got);
    }
    cuzk_job_release(j);
    cuzk_engine_destroy(e, -1);
}

static void one_curve(cuzk_curve curve) {
    const char *cn = cuzk_curve_snarkjs_name(curve);
    fixture f;
    if (!make(&f, curve))
        return;
    cuzk_error err = {0};
    cuzk_vk *vk = NULL;
    cuzk_proof_bytes pb;
    CHECK(cuzk_vk_load(&vk, f.zkey, &err) == CUZK_OK && cuzk_vk_curve(vk) == curve,
          "%s: vk from the .zkey: %s", cn, err.msg);
    if (!vk || !prove_image(&f, &pb)) {
        cuzk_vk_release(vk);
        cleanup(&f);
        return;
    }
    CHECK(pb.curve == curve && pb.len == (curve == CUZK_CURVE_BN254 ? 256u : 192u),
          "%s: image of %u bytes", cn, (unsigned)pb.len);
    size_t n_pub = cuzk_vk_n_public(vk);
    CHECK(n_pub == 3, "%s: 3 public signals, the key says %zu", cn, n_pub);
    uint8_t *pub = malloc(n_pub * CUZK_SCALAR_BYTES);
    cuzk_curve wc = CUZK_CURVE_NONE;
    CHECK(cuzk_wtns_public_bytes(f.wtns, &wc, pub, n_pub, &err) == CUZK_OK && wc == curve,
          "%s: the witness's public signals: %s", cn, err.msg);
    cuzk_status s = cuzk_verify(vk, &pb, pub, n_pub, &err);
    CHECK(s == CUZK_OK, "%s: the image verifies: %s (%s)", cn, cuzk_status_name(s), err.msg);
    corruptions(vk, &pb, pub, n_pub, cn);

    /* files */
    cuzk_file_info info;
    CHECK(cuzk_file_inspect(&info, f.zkey, &err) == CUZK_OK && info.kind == CUZK_FILE_ZKEY &&
              info.curve == curve && info.n_public == n_pub && info.log_n == 8,
          "%s: the .zkey inspected: %s", cn, err.msg);
    CHECK(cuzk_file_inspect(&info, f.wtns, &err) == CUZK_OK && info.kind == CUZK_FILE_WTNS &&
              info.range == CUZK_OK,
          "%s: the .wtns inspected: %s", cn, err.msg);
    char p[256];
    snprintf(p, sizeof p, "%s/junk", f.dir);
    FILE *jf = fopen(p, "w");
    if (jf) {
        fputs("not a key", jf);
        fclose(jf);
    }
    cuzk_vk *bad = NULL;
    CHECK(cuzk_vk_load(&bad, p, &err) == CUZK_EFORMAT && !bad, "%s: junk is no key", cn);
    CHECK(cuzk_file_inspect(&info, p, &err) == CUZK_EFORMAT, "%s: junk is no file kind", cn);
    snprintf(p, sizeof p, "%s/none", f.dir);
    CHECK(cuzk_vk_load(&bad, p, &err) == CUZK_ENOTFOUND, "%s: missing key file", cn);
    char vkp[256], pp[256], pubp[256];
    snprintf(vkp, sizeof vkp, "%s/vk.json", f.dir);
    snprintf(pp, sizeof pp, "%s/proof.json", f.dir);
    snprintf(pubp, sizeof pubp, "%s/public.json", f.dir);
    cuzk_vk *vk2 = NULL;
    cuzk_proof_bytes pb2;
    uint8_t *pub2 = NULL;
    size_t n2 = 0;
    CHECK(cuzk_vk_save_json(vk, vkp, &err) == CUZK_OK &&
              cuzk_vk_load(&vk2, vkp, &err) == CUZK_OK && cuzk_vk_curve(vk2) == curve,
          "%s: verification_key.json written and read: %s", cn, err.msg);
    CHECK(cuzk_proof_bytes_write_json_file(&pb, pp, &err) == CUZK_OK &&
              cuzk_proof_bytes_read_json_file(&pb2, CUZK_CURVE_NONE, pp, &err) == CUZK_OK &&
              pb2.curve == curve && pb2.len == pb.len && !memcmp(pb2.bytes, pb.bytes, pb.len),
          "%s: proof.json round-trips: %s", cn, err.msg);
    CHECK(cuzk_public_bytes_write_json_file(curve, pub, n_pub, pubp, &err) == CUZK_OK &&
              cuzk_public_bytes_read_json_file(curve, &pub2, &n2, pubp, &err) == CUZK_OK &&
              n2 == n_pub && !memcmp(pub2, pub, n_pub * CUZK_SCALAR_BYTES),
          "%s: public.json round-trips: %s", cn, err.msg);
    if (vk2)
        CHECK(cuzk_verify(vk2, &pb2, pub2, n2, &err) == CUZK_OK,
              "%s: read back, it verifies with the JSON key: %s", cn, err.msg);
    uint8_t big[CUZK_SCALAR_BYTES];
    memset(big, 0xff, sizeof big);
    CHECK(cuzk_public_bytes_write_json_file(curve, big, 1, pubp, &err) == CUZK_ERANGE,
          "%s: a signal >= r is not written", cn);
    free(pub2);
    cuzk_vk_release(vk2);
    engine_images(&f, vk, pub, n_pub);
    free(pub);
    cuzk_vk_release(vk);
    cleanup(&f);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "api");
    CHECK(cuzk_proof_bytes_len(CUZK_CURVE_NONE) == 0, "no curve, no image");
    CHECK(!strcmp(cuzk_status_name(CUZK_ECURVE), "ECURVE"), "status names are public");
    one_curve(CUZK_CURVE_BN254);
    one_curve(CUZK_CURVE_BLS12_381);
    return tu_finish();
}
