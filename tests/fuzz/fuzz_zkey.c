/*
 * libFuzzer harness for the .zkey reader (groth16/formats/zkey.h).
 *
 * Besides "no crash, no out-of-bounds read", an accepted key is pushed
 * through the lazy checks (section-4 coefficients, every point on the
 * curve) and, when its coefficients are valid, through the writer: the
 * rewritten key must open again with the same header, views and
 * coefficients.  A violation aborts.  Seeds: tests/fuzz/seeds/zkey.  Build
 *   CC=clang cmake -S . -B build-fuzz -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF
 *   make -C build-fuzz fuzz_zkey && ./build-fuzz/fuzz_zkey -max_total_time=20 tests/fuzz/seeds/zkey
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/formats/zkey.h"

#define REQUIRE(c)                                                            \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

static int view_eq(const cuzk_zkey_points *a, const cuzk_zkey_points *b) {
    return a->count == b->count && a->elem_bytes == b->elem_bytes &&
           memcmp(a->data, b->data, (size_t)(a->count * a->elem_bytes)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cuzk_zkey z, back;
    cuzk_error err;
    if (cuzk_zkey_from_mem(&z, data, size, &err) != CUZK_OK) {
        REQUIRE(err.msg[0] != '\0');
        return 0;
    }
    cuzk_status st = cuzk_zkey_check_points(&z, 0, &err);
    REQUIRE(st == CUZK_OK || err.msg[0] != '\0');
    cuzk_zkey_coef *c = malloc(((size_t)z.n_coefs + 1) * sizeof *c);
    if (cuzk_zkey_read_coefs(&z, c, &err) == CUZK_OK) {
        uint8_t *buf;
        size_t len;
        REQUIRE(cuzk_zkey_write_mem(&z, c, z.n_coefs, &buf, &len, &err) == CUZK_OK);
        REQUIRE(cuzk_zkey_from_mem(&back, buf, len, &err) == CUZK_OK);
        REQUIRE(back.curve == z.curve && back.n_vars == z.n_vars &&
                back.n_public == z.n_public && back.domain_size == z.domain_size &&
                back.n_coefs == z.n_coefs && !memcmp(&back.vk, &z.vk, sizeof z.vk));
        REQUIRE(view_eq(&back.ic, &z.ic) && view_eq(&back.a, &z.a) && view_eq(&back.b1, &z.b1) &&
                view_eq(&back.b2, &z.b2) && view_eq(&back.c, &z.c) && view_eq(&back.h, &z.h));
        REQUIRE(memcmp(back.coefs, z.coefs, 44 * (size_t)z.n_coefs) == 0);
        cuzk_zkey_close(&back);
        free(buf);
    }
    free(c);
    cuzk_zkey_close(&z);
    return 0;
}
