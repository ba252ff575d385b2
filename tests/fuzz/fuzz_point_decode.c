/*
 * libFuzzer harness for every point decoder in curve/encode.h.
 *
 * Byte 0 selects the decoder (mod 14), the rest is its input.  Besides "no
 * crash, no out-of-bounds read" (ASan/UBSan are on), every accepted point
 * must be valid (on the curve, in the subgroup where the decoder checks it)
 * and must survive an encode/decode round trip unchanged; a violation
 * aborts so the fuzzer reports it.  Not part of the library; build with
 *   CC=clang cmake -S . -B build-fuzz -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF
 *   make -C build-fuzz fuzz_point_decode && ./build-fuzz/fuzz_point_decode -max_total_time=20
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve/encode.h"

#define REQUIRE(c)                                                            \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

/* Split |in| at NUL or ',' into up to |n| strings (missing ones are ""). */
static void split(char store[6][160], const char *ptrs[6], const uint8_t *in,
                  size_t len, int n) {
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        size_t k = 0;
        while (pos < len && in[pos] != 0 && in[pos] != ',' && k < 159)
            store[i][k++] = (char)in[pos++];
        store[i][k] = '\0';
        ptrs[i] = store[i];
        if (pos < len)
            pos++;
    }
}

#define CHECK_DEC(G, NC, SUB)                                                 \
    do {                                                                      \
        char store[6][160], outs[6][CUZK_G_DEC_BYTES];                        \
        const char *ptrs[6];                                                  \
        char *optrs[6];                                                       \
        G##_affine p, q;                                                      \
        split(store, ptrs, in, len, NC);                                      \
        if (G##_from_dec(&p, ptrs, &err) != CUZK_OK)                          \
            return 0;                                                         \
        REQUIRE(G##_affine_on_curve(&p) && G##_affine_in_subgroup(&p));       \
        for (int i = 0; i < 6; i++)                                           \
            optrs[i] = outs[i];                                               \
        REQUIRE(G##_to_dec(optrs, CUZK_G_DEC_BYTES, &p, &err) == CUZK_OK);    \
        REQUIRE(G##_from_dec(&q, (const char *const *)optrs, &err) == CUZK_OK); \
        REQUIRE(G##_affine_eq(&p, &q));                                       \
        (void)(SUB);                                                          \
    } while (0)

#define CHECK_ZKEY(G, BYTES, SUB)                                             \
    do {                                                                      \
        uint8_t out[BYTES];                                                   \
        G##_affine p;                                                         \
        if (len < BYTES || G##_from_zkey_bytes(&p, in, SUB, &err) != CUZK_OK) \
            return 0;                                                         \
        REQUIRE(G##_affine_on_curve(&p));                                     \
        REQUIRE(!(SUB) || G##_affine_in_subgroup(&p));                        \
        G##_to_zkey_bytes(out, &p);                                           \
        REQUIRE(memcmp(out, in, BYTES) == 0);                                 \
    } while (0)

#define CHECK_ZCASH(G, CLEN)                                                  \
    do {                                                                      \
        uint8_t out[2 * CLEN];                                                \
        G##_affine p, q;                                                      \
        if (G##_decode_zcash(&p, in, len, &err) != CUZK_OK)                   \
            return 0;                                                         \
        REQUIRE(len == CLEN || len == 2 * CLEN);                              \
        REQUIRE(G##_affine_on_curve(&p) && G##_affine_in_subgroup(&p));       \
        /* zcash encodings are canonical: re-encoding gives the input back */ \
        REQUIRE(G##_encode_zcash(out, &p, len == CLEN) == len);               \
        REQUIRE(memcmp(out, in, len) == 0);                                   \
        REQUIRE(G##_decode_zcash(&q, out, len, &err) == CUZK_OK);             \
        REQUIRE(G##_affine_eq(&p, &q));                                       \
    } while (0)

#define CHECK_ETH(G, BYTES)                                                   \
    do {                                                                      \
        uint8_t out[BYTES];                                                   \
        G##_affine p;                                                         \
        if (len < BYTES || G##_decode_eth(&p, in, &err) != CUZK_OK)           \
            return 0;                                                         \
        REQUIRE(G##_affine_on_curve(&p) && G##_affine_in_subgroup(&p));       \
        G##_encode_eth(out, &p);                                              \
        REQUIRE(memcmp(out, in, BYTES) == 0);                                 \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cuzk_error err;
    if (size < 1)
        return 0;
    unsigned sel = data[0] % 14;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    switch (sel) {
    case 0: CHECK_ZCASH(bls12_381_g1, 48); break;
    case 1: CHECK_ZCASH(bls12_381_g2, 96); break;
    case 2: CHECK_DEC(bls12_381_g1, 3, 1); break;
    case 3: CHECK_DEC(bls12_381_g2, 6, 1); break;
    case 4: CHECK_DEC(bn254_g1, 3, 1); break;
    case 5: CHECK_DEC(bn254_g2, 6, 1); break;
    case 6: CHECK_ZKEY(bls12_381_g1, 96, 1); break;
    case 7: CHECK_ZKEY(bls12_381_g2, 192, 1); break;
    case 8: CHECK_ZKEY(bn254_g1, 64, 1); break;
    case 9: CHECK_ZKEY(bn254_g2, 128, 1); break;
    case 10: CHECK_ZKEY(bls12_381_g1, 96, 0); break;
    case 11: CHECK_ZKEY(bls12_381_g2, 192, 0); break;
    case 12: CHECK_ETH(bn254_g1, 64); break;
    case 13: CHECK_ETH(bn254_g2, 128); break;
    }
    return 0;
}
