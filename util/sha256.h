/*
 * sha256.h: SHA-256 (FIPS 180-4), for content addresses: the cache key of
 * a compiled witness calculator, the identity of a circuit.  Not constant
 * time and not meant for secrets.  Checked against the FIPS 180-4 example
 * messages in tests/test_sha256.c.
 */
#ifndef CUZK_UTIL_SHA256_H
#define CUZK_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct cuzk_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t buf[64];
    size_t fill;
} cuzk_sha256;

void cuzk_sha256_init(cuzk_sha256 *s);
void cuzk_sha256_update(cuzk_sha256 *s, const void *data, size_t len);
void cuzk_sha256_final(cuzk_sha256 *s, uint8_t out[32]);
/* The digest of |len| bytes at |data| as 64 lower-case hex digits + NUL. */
void cuzk_sha256_hex(char out[65], const void *data, size_t len);
/* Hex of a finished digest. */
void cuzk_sha256_to_hex(char out[65], const uint8_t digest[32]);

#endif
