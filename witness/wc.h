/*
 * wc.h: circom witness calculation at native speed.
 *
 * A circom circuit's witness calculator is the .wasm that `circom --wasm`
 * writes.  cuzk translates it once to C with wabt's wasm2c, compiles that
 * with the system C compiler into a shared object, and caches the object on
 * disk under the SHA-256 of everything that went into it (the wasm, the
 * host glue, the compiler flags), so a circuit is compiled once per machine
 * and every later run, process or daemon restart loads it in milliseconds.
 * The protocol spoken to the module is circom's own (witness_calculator.js
 * in circom and circom_runtime): the field's prime from getRawPrime, inputs
 * addressed by the 64-bit FNV-1a hash of their names, each value written to
 * the shared read/write memory word by word, the witness read back the same
 * way.  The witness it produces is byte for byte what `snarkjs wtns
 * calculate` produces from the same files.
 *
 * Objects:
 *   cuzk_wc_circuit  a compiled circuit, loaded; immutable, shared by any
 *                    number of threads and instances.
 *   cuzk_wc          an instance: the module's linear memory and state.  One
 *                    thread uses an instance at a time; a synthesis worker
 *                    keeps one per circuit and reuses it for every witness.
 *   cuzk_wc_input    an input.json, parsed and checked against a circuit:
 *                    every value already reduced mod the circuit's prime.
 *
 * What it must not do: exit or abort on any input, wasm or compiler
 * failure; run the compiler under a lock that proving threads take;
 * leave a partly written object where another process could load it.
 */
#ifndef CUZK_WITNESS_WC_H
#define CUZK_WITNESS_WC_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/curve_id.h"
#include "util/status.h"

typedef struct cuzk_wc_circuit cuzk_wc_circuit;
typedef struct cuzk_wc cuzk_wc;
typedef struct cuzk_wc_input cuzk_wc_input;

/* Receives progress lines of a compile ("compiling circuit.wasm (1.7 MB)
 * to native code ...") and lines a circuit prints with log(); no newline. */
typedef void (*cuzk_wc_print_fn)(void *ctx, const char *line);

typedef struct cuzk_wc_opts {
    /* Where compiled circuits are kept.  NULL: $CUZK_WC_CACHE, else
     * $XDG_CACHE_HOME/cuzk/wc, else ~/.cache/cuzk/wc, else
     * /tmp/cuzk-wc-<uid>.  Created (mode 0700) if missing. */
    const char *cache_dir;
    /* C compiler: NULL means $CC, else "cc".  $CUZK_WC_CFLAGS adds flags
     * after cuzk's own (-O2 and the safety flags; e.g. "-march=native"),
     * and is part of the cache key. */
    const char *cc;
    /* wasm2c: NULL means $WASM2C, else "wasm2c" on the PATH. */
    const char *wasm2c;
    /* Compile progress (NULL: quiet). */
    cuzk_wc_print_fn progress;
    void *progress_ctx;
} cuzk_wc_opts;

/*
 * Load the circuit whose witness calculator is the .wasm at |wasm_path|,
 * compiling it first if the cache does not hold it (concurrent first uses,
 * in this process or others, compile once: the others wait on a lock file
 * and then load the same object).
 * Returns: CUZK_OK; CUZK_EIO / CUZK_ENOTFOUND (the file); CUZK_EFORMAT (not
 *   a wasm module, or not a circom witness calculator: a required export is
 *   missing, or an import circom does not make); CUZK_EUNSUPPORTED (wasm2c
 *   or the C compiler is missing, or the circuit's prime is not a curve of
 *   ours); CUZK_EINTERNAL (the compile failed: the message names the log
 *   file kept in the cache folder); CUZK_ENOMEM.
 * Out: |*c| the circuit (free with cuzk_wc_circuit_free); NULL on failure.
 */
cuzk_status cuzk_wc_circuit_load(cuzk_wc_circuit **c, const char *wasm_path,
                                 const cuzk_wc_opts *opts, cuzk_error *err);

/* Same for a wasm image in memory (|size| bytes, borrowed for the call). */
cuzk_status cuzk_wc_circuit_load_mem(cuzk_wc_circuit **c, const void *wasm, size_t size,
                                     const char *name, const cuzk_wc_opts *opts,
                                     cuzk_error *err);

/* NULL is a no-op.  Every instance of |c| must be freed first. */
void cuzk_wc_circuit_free(cuzk_wc_circuit *c);

/* What the circuit is: its curve (from the prime), the number of witness
 * values (wires, w[0] = 1 included), of input values (all input signals'
 * elements), the circom version that made it ("2.1.9"), the hex SHA-256 of
 * its wasm (64 characters), and whether the object came from the cache. */
cuzk_curve cuzk_wc_circuit_curve(const cuzk_wc_circuit *c);
uint32_t cuzk_wc_circuit_n_witness(const cuzk_wc_circuit *c);
uint32_t cuzk_wc_circuit_n_inputs(const cuzk_wc_circuit *c);
const char *cuzk_wc_circuit_version(const cuzk_wc_circuit *c);
const char *cuzk_wc_circuit_hash(const cuzk_wc_circuit *c);
/* Seconds the compile took (0 when loaded from the cache). */
double cuzk_wc_circuit_compile_s(const cuzk_wc_circuit *c);
/* 1 when the circuit's field products run as native 64-bit code (they
 * were found in the module and agreed with the module's own on a check
 * set); 0 when the module's wasm products are used.  CUZK_WC_NATIVE=0 in
 * the environment turns the native products off. */
int cuzk_wc_circuit_native(const cuzk_wc_circuit *c);

/*
 * A new instance of |c|.  |print| (may be NULL) receives the lines the
 * circuit prints with log().
 * Returns CUZK_OK, CUZK_ENOMEM, or CUZK_EINTERNAL (the module's start
 * trapped).
 */
cuzk_status cuzk_wc_new(cuzk_wc **wc, const cuzk_wc_circuit *c, cuzk_wc_print_fn print,
                        void *print_ctx, cuzk_error *err);
void cuzk_wc_free(cuzk_wc *wc);

/*
 * Parse |len| bytes of input.json for circuit |c| the way snarkjs does
 * (`snarkjs wtns calculate`): each top-level member names an input signal;
 * nested arrays are flattened in row-major order; a value is a JSON number
 * (an integer; read as a double, as JavaScript does), a decimal or 0x-hex
 * string, or true/false; negative values and values >= p are reduced
 * mod p as snarkjs's normalize() does.
 * Returns: CUZK_OK; CUZK_EFORMAT (malformed JSON, not an object, a value
 *   snarkjs cannot turn into an integer: "1.5", "abc", null, an object);
 *   CUZK_ENOTFOUND (a member names no input signal); CUZK_EMISMATCH (a
 *   signal given too few or too many values); CUZK_ENOMEM.  The message
 *   names the signal, as snarkjs's does: "Too many values for input signal
 *   k".  Whether all inputs are set is checked by cuzk_wc_calculate.
 * Out: |*in| (free with cuzk_wc_input_free); NULL on failure.
 * Needs jansson (CUZK_EUNSUPPORTED without it).
 */
cuzk_status cuzk_wc_input_parse(cuzk_wc_input **in, const cuzk_wc_circuit *c,
                                const char *json, size_t len, cuzk_error *err);
void cuzk_wc_input_free(cuzk_wc_input *in);
/* Number of values the input holds. */
size_t cuzk_wc_input_count(const cuzk_wc_input *in);

/*
 * Compute the witness of |in| with instance |wc| (of the circuit |in| was
 * parsed for) into |out|: cuzk_wc_circuit_n_witness(c) values, each 32
 * bytes little-endian in plain (not Montgomery) form, the layout of a .wtns
 * file's values and of cuzk_fr limbs.
 * Returns: CUZK_OK; CUZK_EVERIFY (the circuit rejected the inputs: an
 *   assert failed, "Assert Failed. Error in template Num2Bits_1 line: 38");
 *   CUZK_EMISMATCH ("Not all inputs have been set. Only 2 out of 3");
 *   CUZK_EINTERNAL (the module trapped); CUZK_EINVAL (|in| is for
 *   another circuit).  After a failure the instance is started afresh, so
 *   it stays usable.
 */
cuzk_status cuzk_wc_calculate(cuzk_wc *wc, void *out, const cuzk_wc_input *in,
                              cuzk_error *err);

/*
 * Write a .wtns file image of |n| values at |values| (32 bytes each, plain
 * LE) for |curve|: the bytes `snarkjs wtns calculate` writes (version 2,
 * two sections).  Returns the image's size; writes it to |out| when |out|
 * is not NULL (size it with a first call).
 */
size_t cuzk_wtns_image(uint8_t *out, cuzk_curve curve, const void *values, uint32_t n);

#endif
