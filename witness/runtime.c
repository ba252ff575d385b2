/*
 * circom's field runtime, recognised in a module (by the digest of its
 * functions' bodies) so that compile.c can swap in the native functions of
 * wc_native.c.in.  Must not: decide anything about a module it does not
 * recognise (the module then keeps its own translated runtime).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_tools.h"
#include "witness/internal.h"
#include "witness/wasm_rd.h"

/* ---- circom's field runtime ------------------------------------------------- */

/* The runtime functions wc_native.c.in defines natively, by their names in
 * the module's name section (wasm2c names its C functions after them). */
static const char *const wc_rt_names[] = {
    "Fr_int_isZero", "Fr_int_eq", "Fr_int_gt", "Fr_int_gte", "Fr_int_add", "Fr_int_sub",
    "Fr_F1m_add", "Fr_F1m_sub", "Fr_F1m_neg", "Fr_F1m_mul", "Fr_F1m_square",
    "Fr_F1m_toMontgomery", "Fr_F1m_fromMontgomery", "Fr_copy", "Fr_isTrue"};
#define N_RT_NAMES (sizeof wc_rt_names / sizeof *wc_rt_names)

/* The runtimes whose functions the natives reproduce: the SHA-256 of
 * those functions' bodies (rt_digest).  Each was read from modules of the
 * circom named, checked function by function against wc_native.c.in (the
 * constants' addresses, the order of loads and stores, the one final
 * subtraction of the products), and is tested against the natives at
 * every worker start.  A module whose runtime is not listed keeps its own
 * translated runtime: correct, slower. */
static const char *const wc_runtimes[] = {
    /* circom 2.2.3 (npm circom2 0.2.23), --prime bn128 */
    "80f4f60fb0de657ec51e249bdb1ce62c06b66c0f87c8d0d245c09b88b412c3e2",
    /* circom 2.2.3 (npm circom2 0.2.23), --prime bls12381 */
    "c2c78b52ef0759b07bc7a9cf9104356c3b5f50a7445a55ebcc70dc65e98618d4",
};
#define N_RUNTIMES (sizeof wc_runtimes / sizeof *wc_runtimes)

/* The SHA-256 (hex) of the bodies of the functions of wc_rt_names, in
 * that order, each preceded by its length; 0 when the module has no name
 * section or lacks one of them, or is malformed. */
static int rt_digest(const uint8_t *w, size_t size, char hex[65]) {
    const uint8_t *body[N_RT_NAMES] = {0};
    uint32_t blen[N_RT_NAMES] = {0}, idx[N_RT_NAMES], n_imported = 0;
    for (size_t k = 0; k < N_RT_NAMES; k++)
        idx[k] = UINT32_MAX;
    const uint8_t *code = NULL, *code_end = NULL;
    wasm_rd r = {w + 8, w + size, 0};
    while (r.p < r.end && !r.bad) {
        uint8_t id = *r.p++;
        uint32_t len = rd_leb(&r), l;
        if (r.bad || (size_t)(r.end - r.p) < len)
            return 0;
        wasm_rd sec = {r.p, r.p + len, 0};
        r.p += len;
        if (id == 2) { /* imports: functions first in the index space */
            uint32_t n = rd_leb(&sec);
            for (uint32_t i = 0; i < n && !sec.bad && sec.p < sec.end; i++) {
                rd_name(&sec, &l);
                rd_name(&sec, &l);
                if (sec.p >= sec.end || *sec.p++ != 0)
                    return 0; /* check_wasm allows function imports only */
                n_imported++, rd_leb(&sec);
            }
        } else if (id == 10) {
            code = sec.p, code_end = sec.end;
        } else if (id == 0) {
            const uint8_t *nm = rd_name(&sec, &l);
            if (!nm || !name_is(nm, l, "name"))
                continue;
            while (sec.p < sec.end && !sec.bad) { /* subsections */
                uint8_t sub = *sec.p++;
                uint32_t sl = rd_leb(&sec);
                if (sec.bad || (size_t)(sec.end - sec.p) < sl)
                    return 0;
                wasm_rd ss = {sec.p, sec.p + sl, 0};
                sec.p += sl;
                if (sub != 1) /* function names */
                    continue;
                uint32_t n = rd_leb(&ss);
                for (uint32_t i = 0; i < n && !ss.bad; i++) {
                    uint32_t fi = rd_leb(&ss);
                    const uint8_t *fn = rd_name(&ss, &l);
                    for (size_t k = 0; fn && k < N_RT_NAMES; k++)
                        if (name_is(fn, l, wc_rt_names[k]))
                            idx[k] = idx[k] == UINT32_MAX ? fi : UINT32_MAX - 1;
                }
            }
        }
    }
    if (r.bad || !code)
        return 0;
    wasm_rd c = {code, code_end, 0};
    uint32_t n = rd_leb(&c);
    for (uint32_t i = 0; i < n && !c.bad; i++) {
        uint32_t len = rd_leb(&c);
        if (c.bad || (size_t)(c.end - c.p) < len)
            return 0;
        for (size_t k = 0; k < N_RT_NAMES; k++)
            if (idx[k] == n_imported + i)
                body[k] = c.p, blen[k] = len;
        c.p += len;
    }
    cuzk_sha256 h;
    uint8_t d[32];
    cuzk_sha256_init(&h);
    for (size_t k = 0; k < N_RT_NAMES; k++) {
        if (!body[k])
            return 0; /* missing, or named twice */
        uint8_t le[4] = {(uint8_t)blen[k], (uint8_t)(blen[k] >> 8), (uint8_t)(blen[k] >> 16),
                         (uint8_t)(blen[k] >> 24)};
        cuzk_sha256_update(&h, le, 4);
        cuzk_sha256_update(&h, body[k], blen[k]);
    }
    cuzk_sha256_final(&h, d);
    cuzk_sha256_to_hex(hex, d);
    return 1;
}

/* 1 when |w|'s runtime is one of wc_runtimes. */
int wc_rt_known(const uint8_t *w, size_t size) {
    char hex[65];
    if (!rt_digest(w, size, hex))
        return 0;
    for (size_t i = 0; i < N_RUNTIMES; i++)
        if (!strcmp(hex, wc_runtimes[i]))
            return 1;
    return 0;
}

/* In wasm2c's output at |path|, the definitions of the functions of
 * wc_rt_names become *_wasm, so that wc_native.c.in's take their names.
 * Returns 1 when every one was found once and renamed; 0 leaves the file
 * as it was (the module then runs its own runtime). */
int wc_rt_rename(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return 0;
    }
    fclose(f);
    buf[n] = 0;
    /* each definition: "w2c_NAME(Z_circuit_instance_t* instance" after
     * "static void " or "static u32 "; sorted by position */
    char *at[N_RT_NAMES];
    for (size_t k = 0; k < N_RT_NAMES; k++) {
        char pat[128];
        snprintf(pat, sizeof pat, " w2c_%s(Z_circuit_instance_t* instance", wc_rt_names[k]);
        at[k] = strstr(buf, pat);
        if (!at[k] || strstr(at[k] + 1, pat)) {
            free(buf);
            return 0;
        }
        at[k] += 1; /* at the name */
    }
    for (size_t i = 1; i < N_RT_NAMES; i++)
        for (size_t j = i; j > 0 && at[j] < at[j - 1]; j--) {
            char *t = at[j];
            at[j] = at[j - 1], at[j - 1] = t;
        }
    int ok = 0;
    if ((f = fopen(path, "wb"))) {
        char *p = buf;
        ok = 1;
        /* "w2c_NAME(" becomes "__attribute__((noinline)) w2c_NAME_wasm(":
         * the natives' rare fallback calls stay calls, so that the natives
         * stay small enough to be inlined where the module calls them */
        for (size_t k = 0; k < N_RT_NAMES; k++) {
            char *paren = strchr(at[k], '(');
            ok &= fwrite(p, 1, (size_t)(at[k] - p), f) == (size_t)(at[k] - p);
            ok &= fputs("__attribute__((noinline)) ", f) >= 0;
            ok &= fwrite(at[k], 1, (size_t)(paren - at[k]), f) == (size_t)(paren - at[k]);
            ok &= fputs("_wasm", f) >= 0;
            p = paren;
        }
        ok &= fwrite(p, 1, strlen(p), f) == strlen(p);
        ok &= fclose(f) == 0;
    }
    free(buf);
    return ok;
}


void wc_rt_hash_names(cuzk_sha256 *h) {
    for (size_t i = 0; i < N_RT_NAMES; i++)
        cuzk_sha256_update(h, wc_rt_names[i], strlen(wc_rt_names[i]) + 1);
}
