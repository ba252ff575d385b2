/*
 * shape.c: what a module's compile will cost, read from its code section
 * before anything runs (compile.c's check of a module).
 *
 * The C compiler's time and memory grow with the code and, faster, with
 * the locals of the largest functions (register allocation over wasm2c's
 * one C variable per local): one function of 8,000 locals in a 200 KB
 * module took 37 s and 901 MiB.  A module past what any circom output has
 * is refused before compiling; every other gets compile limits scaled to
 * its code, which the options cap (compile.c), so a small module cannot
 * hold the compiler slot for the options' full ten minutes.
 *
 * circom's outputs measured (docs/WITNESS.md): at most 35 locals a
 * function (its field runtime; templates keep their variables in linear
 * memory), 2,617 in all, 0.75 MB of code.  The bounds are far above those
 * and far below what holds a compiler for minutes.  On a loaded 2-core
 * machine 0.72 MB of code took 92 s and 594 MiB of the C compiler, 0.75 MB
 * 58 s and 803 MiB, 0.22 MB 32 s, 37 KB 5 s: the scaled limits give each
 * five times its time or more and four times its memory.
 *
 * Must not: read past the section (wasm_rd.h); refuse any real circuit.
 */
#include <stdio.h>
#include <string.h>

#include "witness/internal.h"
#include "witness/wasm_rd.h"

#define WC_MAX_FN_LOCALS 1000u
#define WC_MAX_LOCALS 1000000u
#define WC_MAX_CODE_BYTES (64ull << 20)

#define WC_COMPILE_BASE_S 120.0
#define WC_COMPILE_S_PER_MB 600.0
#define WC_COMPILE_BASE_MEM (768ull << 20)
#define WC_COMPILE_MEM_PER_BYTE 4096ull

int wc_code_shape(const uint8_t *p, const uint8_t *end, wasm_shape *sh) {
    wasm_rd s = {p, end, 0};
    sh->code_bytes = (uint64_t)(end - p);
    uint32_t n = rd_leb(&s);
    for (uint32_t i = 0; i < n && !s.bad; i++) {
        uint32_t blen = rd_leb(&s);
        if (s.bad || (size_t)(s.end - s.p) < blen)
            return 0;
        wasm_rd b = {s.p, s.p + blen, 0};
        s.p += blen;
        uint32_t groups = rd_leb(&b);
        uint64_t locals = 0;
        for (uint32_t g = 0; g < groups && !b.bad; g++) {
            locals += rd_leb(&b);
            if (b.p >= b.end)
                b.bad = 1;
            else
                b.p++; /* the type */
        }
        if (b.bad)
            return 0;
        sh->functions++;
        sh->locals += locals;
        if (locals > sh->max_locals)
            sh->max_locals = locals;
    }
    return !s.bad;
}

cuzk_status wc_shape_refused(const wasm_shape *sh, const char *name, cuzk_error *err) {
    if (sh->max_locals > WC_MAX_FN_LOCALS)
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: a function with %llu locals, more than the %u any circuit may "
                         "have (circom writes at most a few dozen): refused before compiling",
                         name, (unsigned long long)sh->max_locals, WC_MAX_FN_LOCALS);
    if (sh->locals > WC_MAX_LOCALS)
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: %llu locals in all, more than the %u any circuit may have: "
                         "refused before compiling",
                         name, (unsigned long long)sh->locals, WC_MAX_LOCALS);
    if (sh->code_bytes > WC_MAX_CODE_BYTES)
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: %llu bytes of code, more than the %llu any circuit may have: "
                         "refused before compiling",
                         name, (unsigned long long)sh->code_bytes,
                         (unsigned long long)WC_MAX_CODE_BYTES);
    return CUZK_OK;
}

double wc_shape_compile_s(const wasm_shape *sh) {
    return WC_COMPILE_BASE_S + WC_COMPILE_S_PER_MB * (double)sh->code_bytes / 1e6;
}

uint64_t wc_shape_compile_mem(const wasm_shape *sh) {
    return WC_COMPILE_BASE_MEM + WC_COMPILE_MEM_PER_BYTE * sh->code_bytes;
}
