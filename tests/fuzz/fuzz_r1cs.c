/*
 * libFuzzer harness for the .r1cs reader (groth16/formats/r1cs.h).
 *
 * Besides "no crash, no out-of-bounds read" (ASan/UBSan are on), every input
 * the reader accepts must survive write -> read unchanged, and evaluating the
 * constraints on an all-ones witness must not misbehave; a violation aborts
 * so the fuzzer reports it.  Seeds: tests/fuzz/seeds/r1cs.  Build with
 *   CC=clang cmake -S . -B build-fuzz -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF
 *   make -C build-fuzz fuzz_r1cs && ./build-fuzz/fuzz_r1cs -max_total_time=20 tests/fuzz/seeds/r1cs
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/formats/r1cs.h"

#define REQUIRE(c)                                                            \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

static int matrix_eq(const cuzk_r1cs_matrix *a, const cuzk_r1cs_matrix *b,
                     uint32_t rows) {
    return a->nnz == b->nnz &&
           !memcmp(a->row_ptr, b->row_ptr, (rows + 1) * sizeof *a->row_ptr) &&
           !memcmp(a->col, b->col, a->nnz * sizeof *a->col) &&
           !memcmp(a->coef, b->coef, a->nnz * sizeof *a->coef);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cuzk_r1cs r, back;
    cuzk_error err;
    if (cuzk_r1cs_read_mem(&r, data, size, &err) != CUZK_OK) {
        REQUIRE(err.msg[0] != '\0');
        return 0;
    }
    uint8_t *buf;
    size_t len;
    REQUIRE(cuzk_r1cs_write_mem(&r, &buf, &len, &err) == CUZK_OK);
    REQUIRE(cuzk_r1cs_read_mem(&back, buf, len, &err) == CUZK_OK);
    REQUIRE(back.curve == r.curve && back.n_wires == r.n_wires &&
            back.n_constraints == r.n_constraints && back.n_pub_in == r.n_pub_in &&
            back.n_pub_out == r.n_pub_out && back.n_prv_in == r.n_prv_in);
    REQUIRE(matrix_eq(&r.a, &back.a, r.n_constraints) &&
            matrix_eq(&r.b, &back.b, r.n_constraints) &&
            matrix_eq(&r.c, &back.c, r.n_constraints));
    free(buf);
    cuzk_r1cs_free(&back);
    if (r.n_wires <= (1u << 16)) {
        cuzk_fr *w = malloc(r.n_wires * sizeof *w);
        for (uint32_t i = 0; i < r.n_wires; i++)
            cuzk_fr_set_one(r.curve, &w[i]);
        cuzk_status st = cuzk_r1cs_check_witness(&r, w, r.n_wires, &err);
        REQUIRE(st == CUZK_OK || st == CUZK_EVERIFY);
        free(w);
    }
    cuzk_r1cs_free(&r);
    return 0;
}
