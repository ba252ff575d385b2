/*
 * libFuzzer harness for the .wtns reader (groth16/formats/wtns.h).
 *
 * Besides "no crash, no out-of-bounds read", an accepted witness must have
 * w[0] = 1; when all its values are below r (to_mont and check_range must
 * agree on that), write -> read must give the same values back.  A
 * violation aborts.  Seeds: tests/fuzz/seeds/wtns.  Build with
 *   CC=clang cmake -S . -B build-fuzz -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF
 *   make -C build-fuzz fuzz_wtns && ./build-fuzz/fuzz_wtns -max_total_time=20 tests/fuzz/seeds/wtns
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/formats/wtns.h"

#define REQUIRE(c)                                                            \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cuzk_wtns w, back;
    cuzk_error err;
    if (cuzk_wtns_from_mem(&w, data, size, &err) != CUZK_OK) {
        REQUIRE(err.msg[0] != '\0');
        return 0;
    }
    REQUIRE(w.n_witness >= 1 && cuzk_wtns_value(&w, 0)[0] == 1);
    cuzk_fr *v = malloc(w.n_witness * sizeof *v);
    cuzk_status conv = cuzk_wtns_to_mont(&w, v, 0, w.n_witness, &err);
    cuzk_status range = cuzk_wtns_check_range(&w, &err);
    REQUIRE((conv == CUZK_OK) == (range == CUZK_OK));
    if (conv == CUZK_OK) {
        uint8_t *buf;
        size_t len;
        REQUIRE(cuzk_wtns_write_mem(w.curve, v, w.n_witness, &buf, &len, &err) == CUZK_OK);
        REQUIRE(cuzk_wtns_from_mem(&back, buf, len, &err) == CUZK_OK);
        REQUIRE(back.n_witness == w.n_witness && back.curve == w.curve &&
                memcmp(back.values, w.values, 32 * (size_t)w.n_witness) == 0);
        cuzk_wtns_close(&back);
        free(buf);
    }
    free(v);
    cuzk_wtns_close(&w);
    return 0;
}
