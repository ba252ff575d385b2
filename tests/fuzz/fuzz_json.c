/*
 * libFuzzer harness for the snarkjs JSON readers (groth16/formats/json.h).
 *
 * Byte 0 selects the reader and curve (bit 0: bn128 / bls12381; value / 2
 * mod 3: verification_key.json, proof.json, public.json), the rest is the
 * text.  Besides "no crash, no out-of-bounds read", whatever a reader
 * accepts must be written back by the matching writer and read again to the
 * same value; a violation aborts.  Seeds: tests/fuzz/seeds/json.  Build
 *   CC=clang cmake -S . -B build-fuzz -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF
 *   make -C build-fuzz fuzz_json && ./build-fuzz/fuzz_json -max_total_time=20 tests/fuzz/seeds/json
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/formats/json.h"
#include "groth16/prover/key.h"

#define REQUIRE(c)                                                            \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

static void fuzz_vk(const char *text, size_t len) {
    cuzk_vk vk, back;
    cuzk_error err;
    char *out;
    if (cuzk_vk_read_json(&vk, text, len, &err) != CUZK_OK) {
        REQUIRE(err.msg[0] != '\0');
        return;
    }
    REQUIRE(cuzk_vk_write_json(&vk, &out, &err) == CUZK_OK);
    REQUIRE(cuzk_vk_read_json(&back, out, strlen(out), &err) == CUZK_OK);
    REQUIRE(back.curve == vk.curve);
    if (vk.curve == CUZK_CURVE_BN254)
        REQUIRE(back.vk.bn254.n_public == vk.vk.bn254.n_public &&
                !memcmp(&back.vk.bn254.alpha1, &vk.vk.bn254.alpha1, sizeof vk.vk.bn254.alpha1) &&
                !memcmp(back.vk.bn254.ic, vk.vk.bn254.ic,
                        (vk.vk.bn254.n_public + 1) * sizeof *vk.vk.bn254.ic));
    else
        REQUIRE(back.vk.bls12_381.n_public == vk.vk.bls12_381.n_public &&
                !memcmp(&back.vk.bls12_381.delta2, &vk.vk.bls12_381.delta2,
                        sizeof vk.vk.bls12_381.delta2));
    free(out);
    cuzk_vk_clear(&back);
    cuzk_vk_clear(&vk);
}

static void fuzz_proof(cuzk_curve c, const char *text, size_t len) {
    cuzk_proof p, back;
    cuzk_error err;
    char *out;
    if (cuzk_proof_read_json(&p, c, text, len, &err) != CUZK_OK) {
        REQUIRE(err.msg[0] != '\0');
        return;
    }
    REQUIRE(cuzk_proof_write_json(&p, &out, &err) == CUZK_OK);
    REQUIRE(cuzk_proof_read_json(&back, CUZK_CURVE_NONE, out, strlen(out), &err) == CUZK_OK);
    REQUIRE(back.curve == p.curve && !memcmp(&back.p, &p.p, sizeof p.p));
    free(out);
}

static void fuzz_public(cuzk_curve c, const char *text, size_t len) {
    cuzk_fr *v, *w;
    size_t n, m;
    cuzk_error err;
    char *out;
    if (cuzk_public_read_json(c, &v, &n, text, len, &err) != CUZK_OK) {
        REQUIRE(err.msg[0] != '\0');
        return;
    }
    REQUIRE(cuzk_public_write_json(c, v, n, &out, &err) == CUZK_OK);
    REQUIRE(cuzk_public_read_json(c, &w, &m, out, strlen(out), &err) == CUZK_OK);
    REQUIRE(m == n && (n == 0 || !memcmp(v, w, n * sizeof *v)));
    free(out);
    free(v);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    cuzk_curve c = (data[0] & 1) ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    switch ((data[0] >> 1) % 3) {
    case 0:
        fuzz_vk(text, len);
        break;
    case 1:
        fuzz_proof(c, text, len);
        break;
    default:
        fuzz_public(c, text, len);
        break;
    }
    return 0;
}
