/*
 * SHA-256 as FIPS 180-4 section 6.2 describes it, one 64-byte block at a
 * time.  Where the processor has the SHA extensions (x86-64 SHA-NI, most
 * machines since 2017) runs of whole blocks go through them instead: the
 * witness layer hashes every circuit's wasm and its cached executable at
 * each load, megabytes each time, and the portable rounds do about 300
 * MB/s where the instructions do several GB/s.  Both give the same digest;
 * tests/test_sha256.c checks each one that the machine can run.
 *
 * Must not: choose the path by anything but what the processor reports
 * (CUZK_SHA256_PORTABLE=1 forces the portable one, for the test).
 */
#include "util/sha256.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_HAVE_NI 1
#endif

static const uint32_t k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void block(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      k256[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d;
    h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

#ifdef SHA256_HAVE_NI
/* |n| blocks with the SHA extensions.  The state is kept as the
 * instructions want it: ABEF and CDGH. */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_ni(uint32_t h[8],
                                                                  const uint8_t *p,
                                                                  size_t n) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i t = _mm_loadu_si128((const __m128i *)&h[0]);
    __m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]);
    t = _mm_shuffle_epi32(t, 0xB1);             /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);           /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);     /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);          /* CDGH */
    for (; n; n--, p += 64) {
        __m128i abef = s0, cdgh = s1, w[4];
        for (int i = 0; i < 16; i++) {
            __m128i m;
            if (i < 4) {
                m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
            } else {
                /* w[t] = s1(w[t-2]) + w[t-7] + s0(w[t-15]) + w[t-16], four at a time */
                m = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(m, w[(i + 3) & 3]);
            }
            w[i & 3] = m;
            __m128i k = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&k256[4 * i]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);            /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);           /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0);          /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);             /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

/* 1: the SHA extensions (with SSSE3 and SSE4.1, which the code also uses)
 * are there and not switched off; 0 otherwise.  Decided once. */
static int have_ni(void) {
    static _Atomic int known; /* 0 unknown, 1 no, 2 yes */
    int k = known;
    if (!k) {
        unsigned a, b, c, d, ok = 0;
        const char *off = getenv("CUZK_SHA256_PORTABLE");
        if (!(off && *off == '1') && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) &&
            (c & bit_SSE4_1) && __get_cpuid_count(7, 0, &a, &b, &c, &d))
            ok = (b >> 29) & 1; /* CPUID.7.0:EBX.SHA */
        k = ok ? 2 : 1;
        known = k;
    }
    return k == 2;
}
#endif

/* |n| whole blocks at |p|. */
static void blocks(uint32_t h[8], const uint8_t *p, size_t n) {
#ifdef SHA256_HAVE_NI
    if (have_ni()) {
        blocks_ni(h, p, n);
        return;
    }
#endif
    for (; n; n--, p += 64)
        block(h, p);
}

void cuzk_sha256_init(cuzk_sha256 *s) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->bytes = 0;
    s->fill = 0;
}

void cuzk_sha256_update(cuzk_sha256 *s, const void *data, size_t len) {
    const uint8_t *p = data;
    s->bytes += len;
    if (s->fill) {
        size_t n = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->buf + s->fill, p, n);
        s->fill += n, p += n, len -= n;
        if (s->fill < 64)
            return;
        blocks(s->h, s->buf, 1);
        s->fill = 0;
    }
    blocks(s->h, p, len / 64);
    p += len - len % 64;
    len %= 64;
    memcpy(s->buf, p, len);
    s->fill = len;
}

void cuzk_sha256_final(cuzk_sha256 *s, uint8_t out[32]) {
    uint64_t bits = s->bytes * 8;
    uint8_t pad = 0x80;
    cuzk_sha256_update(s, &pad, 1);
    static const uint8_t zero[64];
    cuzk_sha256_update(s, zero, (64 + 56 - s->fill) % 64);
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    cuzk_sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void cuzk_sha256_to_hex(char out[65], const uint8_t d[32]) {
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hx[d[i] >> 4];
        out[2 * i + 1] = hx[d[i] & 15];
    }
    out[64] = 0;
}

void cuzk_sha256_hex(char out[65], const void *data, size_t len) {
    cuzk_sha256 s;
    uint8_t d[32];
    cuzk_sha256_init(&s);
    cuzk_sha256_update(&s, data, len);
    cuzk_sha256_final(&s, d);
    cuzk_sha256_to_hex(out, d);
}
