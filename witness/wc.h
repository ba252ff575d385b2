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

/* The witness calculator's API (handles, options, load, calculate, the
 * .wtns image) is public: include/cuzk_tools.h. */
#include "cuzk_tools.h"

#endif
