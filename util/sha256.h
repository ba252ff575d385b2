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

/* The type and functions are public: include/cuzk_tools.h. */
#include "cuzk_tools.h"

#endif
