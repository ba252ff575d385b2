/*
 * internal.h: what witness/'s files share (wc.c: circuits and instances;
 * compile.c: the wasm check, the native-code cache and the compiler;
 * input.c: input.json).  Not for use outside witness/.
 */
#ifndef CUZK_WITNESS_INTERNAL_H
#define CUZK_WITNESS_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "witness/wc.h"
#include "witness/wc_abi.h"

/* Field elements of our curves' scalar fields: 8 32-bit words. */
#define WC_WORDS 8
#define WC_MSG 256

struct cuzk_wc_circuit {
    void *dl;                /* dlopen handle of the compiled object */
    const cuzk_wc_abi *abi;  /* its table */
    cuzk_curve curve;
    uint32_t n32;            /* words of a field element (8) */
    uint32_t prime[WC_WORDS]; /* the field's prime, least significant first */
    uint32_t n_witness, n_inputs;
    char version[32];        /* "2.1.9" */
    char hash[65];           /* SHA-256 of the wasm */
    double compile_s;
    /* One instance for input-size look-ups (getInputSignalSize), made on
     * first use, used under |query_lock| by cuzk_wc_input_parse. */
    pthread_mutex_t query_lock;
    void *query;
};

/* Layout of a parsed input (input.c fills it, wc.c reads it). */
typedef struct wc_signal {
    uint32_t hi, lo;
    uint32_t count;
    size_t first; /* index of its first value in |values| */
} wc_signal;

struct cuzk_wc_input {
    const cuzk_wc_circuit *c;
    size_t n_signals, n_values;
    wc_signal *signals;
    uint32_t *values; /* n_values * WC_WORDS words */
};

/*
 * Check that |wasm| is a circom 2 witness calculator (the exports the
 * protocol needs, only imports from "runtime" that the glue provides, its
 * own memory), then find or build its native object and dlopen it.
 * Out: |c->dl|, |c->abi|, |c->hash|, |c->compile_s|.
 */
cuzk_status wc_obtain(struct cuzk_wc_circuit *c, const uint8_t *wasm, size_t size,
                      const char *name, const cuzk_wc_opts *opts, cuzk_error *err);

/* The 64-bit FNV-1a hash circom gives a signal name (over its UTF-16 code
 * units, as witness_calculator.js's fnvHash does), split in two words. */
void wc_fnv1a(const char *name, uint32_t *hi, uint32_t *lo);

#endif
