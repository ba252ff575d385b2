/*
 * internal.h: what witness/'s files share (wc.c: circuits and instances;
 * compile.c: the wasm check, the native-code cache and the compiler;
 * input.c: input.json).  Not for use outside witness/.
 */
#ifndef CUZK_WITNESS_INTERNAL_H
#define CUZK_WITNESS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "witness/wc.h"
#include "witness/wc_abi.h"

/* Field elements of our curves' scalar fields: 8 32-bit words. */
#define WC_WORDS 8
#define WC_MSG 256

/* A running worker (wc.c): the process, its socket, the shared memory. */
typedef struct wc_worker {
    pid_t pid;      /* 0: none */
    int sock;       /* -1: none */
    int shm;        /* memfd, -1: none */
    uint8_t *map;   /* the shared memory, mapped here */
    size_t map_bytes;
    pid_t starter;  /* the thread that started it: the worker dies with it */
} wc_worker;

/* The most witness values a circuit may report (a key for more would not
 * fit any machine we prove on) and the most values of one input signal. */
#define WC_MAX_WITNESS (1u << 29)

struct cuzk_wc_circuit {
    /* Holders: whoever loaded it or took a reference (cuzk_wc_circuit_ref),
     * each instance and each parsed input of it.  The last drop frees it,
     * with its look-up worker. */
    _Atomic uint32_t refs;
    int exe_fd;              /* the verified worker executable (compile.c) */
    cuzk_curve curve;
    uint32_t n32;            /* words of a field element (8) */
    uint32_t prime[WC_WORDS]; /* the field's prime, least significant first */
    uint32_t n_witness, n_inputs;
    int native;              /* the worker computes field products natively */
    char version[32];        /* "2.1.9" */
    char hash[65];           /* SHA-256 of the wasm */
    double compile_s;
    /* Limits of every worker of the circuit (cuzk_wc_opts). */
    uint64_t memory_bytes;
    double calc_s;
    double start_s; /* a worker's setup: start, sizes, each look-up */
    unsigned log_lines;
    /* Whoever loaded it may end its setup waits (cuzk_wc_opts.stop). */
    int (*stop)(void *ctx);
    void *stop_ctx;
    /* One worker for input-size look-ups (getInputSignalSize), the one the
     * load used, under |query_lock|. */
    pthread_mutex_t query_lock;
    wc_worker query;
    /* |query| is the worker the load started (not one a look-up started
     * again): only that one may be taken over by a first calculation in
     * the loading thread (a one-shot calculation).  Under |query_lock|. */
    int query_from_load;
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
 * own memory) within the size limit, then find or build its worker
 * executable and open it, verified (compile.c).
 * |name| is the file's name in errors; |shown| (its path, or |name|) in
 * the progress lines of a compile, which a user reads on their terminal.
 * Out: |c->exe_fd|, |c->hash|, |c->compile_s|.
 */
cuzk_status wc_obtain(struct cuzk_wc_circuit *c, const uint8_t *wasm, size_t size,
                      const char *name, const char *shown, const cuzk_wc_opts *opts,
                      cuzk_error *err);

/* getInputSignalSize(hi, lo) of |c|, asked of its query worker; checked
 * against the circuit's input count.  Out: |*size| (negative: no such
 * input). */
cuzk_status wc_query_input_size(const cuzk_wc_circuit *c, uint32_t hi, uint32_t lo,
                                int32_t *size, cuzk_error *err);

/* shape.c: the sizes of a module's code section (|p| to |end|, the
 * section's contents) that a compile's cost follows; 0 when malformed. */
typedef struct wasm_shape {
    uint32_t functions;
    uint64_t locals, max_locals, code_bytes;
} wasm_shape;
int wc_code_shape(const uint8_t *p, const uint8_t *end, wasm_shape *sh);
/* CUZK_ERANGE, naming what is too large, for a module no circuit resembles. */
cuzk_status wc_shape_refused(const wasm_shape *sh, const char *name, cuzk_error *err);
/* The compile's time and memory the module's code earns (the options cap
 * them, compile.c). */
double wc_shape_compile_s(const wasm_shape *sh);
uint64_t wc_shape_compile_mem(const wasm_shape *sh);

/* The wasm size limit of |o| (compile.c). */
uint64_t wc_opt_max_wasm(const cuzk_wc_opts *o);

/* compile.c: |w| is a module a circom witness calculator can be (magic,
 * version, the exports and imports circom writes, its own memory), with
 * the shape of its code in |*shape| when not NULL (refused past shape.c's
 * bounds).  CUZK_EFORMAT, CUZK_EUNSUPPORTED or CUZK_ERANGE naming |name|. */
cuzk_status wc_check_wasm(const uint8_t *w, size_t size, const char *name, wasm_shape *shape,
                          cuzk_error *err);
/* compile.c: whether this machine's worker for the module |w| is cached,
 * and its path (info->cached, info->cache_path). */
void wc_cache_probe(const uint8_t *w, size_t size, const cuzk_wc_opts *o,
                    cuzk_wc_wasm_info *info);

/* The 64-bit FNV-1a hash circom gives a signal name (over its UTF-16 code
 * units, as witness_calculator.js's fnvHash does), split in two words. */
void wc_fnv1a(const char *name, uint32_t *hi, uint32_t *lo);

/* runtime.c: whether the module's field runtime is one whose functions
 * wc_native.c.in reproduces (by their digest), and the rename of those
 * functions' translated definitions in the C at |path| so the natives take
 * their place (1 done, 0 not). */
int wc_rt_known(const uint8_t *w, size_t size);
int wc_rt_rename(const char *path);
/* The names of those functions into a cache key (compile.c). */
void wc_rt_hash_names(cuzk_sha256 *h);

#endif
