/*
 * The snarkjs JSON files (groth16/formats/json.h) against the committed interop
 * fixtures of both curves (tests/formats_util.h): verification_key.json
 * read equals the zkey's header and our writer reproduces snarkjs's file
 * byte for byte; proof.json and public.json read and write back byte for
 * byte, a proof is refused as the other curve's, and the public signals
 * equal w[1..nPublic] of the fixture's witness.  With CUZK_FORMATS_OUT set
 * our verification_key.json of each fixture is left in
 * <dir>/<curve>/<name>.vk.json for tests/interop/run.sh to hand to snarkjs.
 * The binary readers have their own programs (test_formats_r1cs, _wtns,
 * _zkey); the malformed files are tests/test_formats_damage.c.
 */
#include "formats_util.h"

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
    cuzk_vk_clear(&vk_file);
    cuzk_vk_clear(&vk_zkey);
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

/* Our verification_key.json, for run.sh to hand to snarkjs. */
static void write_vk_out(loaded *L, int ci, const circuit_info *in) {
    cuzk_error err;
    cuzk_vk vk;
    if (getenv("CUZK_FORMATS_OUT") && cuzk_vk_from_zkey(&vk, &L->zkey, &err) == CUZK_OK) {
        char *s, name[128];
        if (cuzk_vk_write_json(&vk, &s, &err) == CUZK_OK) {
            snprintf(name, sizeof name, "%s.vk.json", in->name);
            write_out(curve_dir[ci], name, (const uint8_t *)s, strlen(s));
            free(s);
        }
        cuzk_vk_clear(&vk);
    }
}

static void check_fixture(loaded *L, int ci, const circuit_info *in) {
    check_json(L, ci, in);
    write_vk_out(L, ci, in);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_formats_json");
    static loaded all[2][N_CIRCUITS];
    load_all(all, check_fixture);
    unload_all(all);
    return tu_finish();
}
