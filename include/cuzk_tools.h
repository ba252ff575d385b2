/*
 * cuzk_tools.h: what a proving service needs around the engine (libcuzk):
 * synthetic circuits of any size, development and timing setups, circom's
 * witness calculator at native speed, the GPUs of the machine, SHA-256
 * content addresses, and atomic file writes.  The cuzk command and the
 * cuzkd daemon build on these and on cuzk.h / cuzk_files.h only.
 *
 * Conventions are cuzk.h's: every function that can fail returns a
 * cuzk_status and writes a one-line reason into |err| when it is not
 * NULL; nothing exits or aborts on bad input; outputs are documented per
 * function.  Handles are opaque; their owner frees them with the function
 * named beside them.
 */
#ifndef CUZK_TOOLS_H
#define CUZK_TOOLS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- synthetic circuits --------------------------------------------------------
 * An R1CS of any size with a satisfying witness, shaped like what circom
 * emits; the output is a pure function of the parameters (docs/FILES.md). */

/* Largest number of terms in one generated linear combination. */
#define CUZK_SYNTH_MAX_TERMS 16

typedef struct cuzk_synth_params {
    cuzk_curve curve;
    /* Size: if |log2_domain| != 0, nConstraints = 2^log2_domain - nPublic - 1,
     * which makes the Groth16 domain exactly 2^log2_domain; otherwise
     * |n_constraints| is used as given. */
    uint32_t n_constraints;
    unsigned log2_domain;
    uint32_t n_pub_out;   /* default 1 */
    uint32_t n_pub_in;    /* default 1 */
    double bool_share;    /* share of boolean wires, 0..1; default 0.8 */
    unsigned min_terms;   /* terms per A/B combination of a product, */
    unsigned max_terms;   /* 1 <= min <= max <= CUZK_SYNTH_MAX_TERMS; 2..3 */
    uint64_t seed;        /* default 1 */
    /* Zero columns of A and B, as bit circuits have them: the share of
     * wires that later constraints may read in A (a_share) and in B
     * (b_share), 0..1, default 1 (every wire); which wires is a fixed
     * function of the wire id and the seed (the constant wire 0 always
     * may).  gate_share, 0..1, default 0: the share of the 0/1 wires made
     * by a gate of two earlier 0/1 wires, XOR (2x)·y = x + y − z or AND
     * x·y = z, x read in A and y in B, instead of a fresh bit checked by
     * z·(z − 1) = 0 (which puts z in both). */
    double a_share, b_share;
    double gate_share;
} cuzk_synth_params;

/* Fill |p| with the defaults above for |curve| (log2_domain 10, seed 1). */
CUZK_API void cuzk_synth_params_default(cuzk_synth_params *p, cuzk_curve curve);

/*
 * Fill |p| with a named profile: "default" (the defaults above), "porep"
 * (a Filecoin PoRep partition: BLS12-381, 2^27, 90% 0/1 wires, about 90
 * public inputs) or "snap" (a SnapDeals partition).  Keeps nothing of |p|
 * but its curve for "default".  CUZK_EINVAL for another name.  The
 * profiles' numbers and where they come from: docs/FILES.md.
 */
CUZK_API cuzk_status cuzk_synth_params_profile(cuzk_synth_params *p, const char *name, cuzk_error *err);

/*
 * Generate the same circuit and write it as an .r1cs (streamed, byte for
 * byte what cuzk_r1cs_write_file would write for cuzk_synth_circuit's
 * output) and, if |wtns_path| is not NULL, its witness as a .wtns.  Each
 * file is written under a temporary name and renamed when complete.
 * Returns: CUZK_OK; CUZK_EINVAL; CUZK_ENOMEM; CUZK_EIO (with the path).
 */
CUZK_API cuzk_status cuzk_synth_write(const char *r1cs_path, const char *wtns_path,
                                      const cuzk_synth_params *p, cuzk_error *err);

/* ---- setups ---------------------------------------------------------------------
 * Keys for development and benchmarks: NOT a trusted setup (the toxic
 * waste is known to whoever has the seed, or lives only in this process).
 * |threads|: of a pool made for the call (0: every online CPU). */

/*
 * A development .zkey for the circuit at |r1cs_path|, written atomically
 * to |zkey_path|.  |seed| NULL: toxic waste from the OS CSPRNG; else
 * reproducible from *seed.
 * Returns: CUZK_OK; the reader's errors for a bad .r1cs (CUZK_EIO,
 *   CUZK_EFORMAT, CUZK_ECURVE, ...); CUZK_ENOMEM; CUZK_EIO (writing).
 */
CUZK_API cuzk_status cuzk_setup_dev(const char *r1cs_path, const char *zkey_path,
                                    const uint64_t *seed, unsigned threads, cuzk_error *err);

/*
 * A timing key: the right shape and sizes, repeated random points, so that
 * proofs take as long as with a real key but do NOT verify.  For
 * benchmarks at sizes where a development setup would take too long.
 * Returns as cuzk_setup_dev.
 */
CUZK_API cuzk_status cuzk_setup_timing(const char *r1cs_path, const char *zkey_path,
                                       uint64_t seed, unsigned threads, cuzk_error *err);

/*
 * A key made in memory and loaded into engine |e| under |id|, for
 * benchmarks at sizes whose key files would not fit a disk (a 2^27 PoRep
 * key is ~62 GiB): the circuit of |p| (cuzk_synth_circuit) and its timing
 * key (|timing_key| != 0: the prover's work, proofs that do NOT verify) or
 * INSECURE development key from p->seed, charged to the engine's budget
 * like a loaded key and never evicted (generated again from |p| if it were
 * dropped).  Blocks until the key is resident.  *|wtns| (malloc'd,
 * *|wtns_size| bytes) is the .wtns image of the circuit's witness: submit
 * it as a witness's |data| (with a |release| that does nothing, every
 * partition reads it in place) and free() it after the engine is
 * destroyed.  CUZK_EINVAL (id, parameters), CUZK_EMISMATCH (id taken),
 * CUZK_ENOMEM (memory or budget), CUZK_ECANCELLED (shutting down).
 */
CUZK_API cuzk_status cuzk_engine_key_generate(cuzk_engine *e, const char *id,
                                              const cuzk_synth_params *p, int timing_key,
                                              uint8_t **wtns, size_t *wtns_size,
                                              cuzk_error *err);

/* ---- the witness calculator -------------------------------------------------------
 * circom's witness calculator (the .wasm of `circom --wasm`) compiled once
 * per machine to native code and cached (docs/WITNESS.md).  A circuit is
 * immutable, reference counted and shared by any number of threads; an
 * instance (cuzk_wc) is
 * used by one thread at a time; an input is an input.json parsed and
 * checked against a circuit. */

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
    /* Limits; 0 means the default given.  A circuit is a program from
     * whoever supplied it: it is compiled under these limits and runs in
     * worker processes (its own address space, a system call filter, no
     * files), so a crash, a hang or a memory bomb fails its calculation
     * only. */
    uint64_t max_wasm_bytes;       /* largest .wasm compiled (256 MiB) */
    double compile_s;              /* wall time of one compile, at most (600 s); a
                                      module gets 120 s + 600 s per MB of code */
    uint64_t compile_memory_bytes; /* address space of each compiler process, at
                                      most (8 GiB); a module gets 768 MiB + 4 KiB
                                      per byte of code */
    unsigned max_compilers;        /* compiles at once in this process (1) */
    uint64_t cache_max_bytes;      /* compiled objects kept; the least recently used
                                      that no loaded circuit uses are removed (4 GiB) */
    uint64_t memory_bytes;         /* a worker's linear memory (4 GiB) */
    double calc_s;                 /* wall time of one calculation (600 s) */
    unsigned log_lines;            /* log() lines passed to |print| per calculation (100);
                                      the rest are counted: cuzk_wc_log_dropped */
    /* A worker's setup, apart from calculations: the module's start
     * function, the reading of its sizes, each input look-up (10 s).
     * Past it the worker is killed and the circuit is refused
     * (CUZK_ERANGE): real circuits take milliseconds there. */
    double start_s;
    /* Asked every 50 ms while a load of this circuit compiles or waits on
     * a worker's setup, and by its input look-ups: true ends them
     * (CUZK_ECANCELLED), the compilers or the worker killed.  NULL: never. */
    int (*stop)(void *ctx);
    void *stop_ctx;
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
CUZK_API cuzk_status cuzk_wc_circuit_load(cuzk_wc_circuit **c, const char *wasm_path,
                                          const cuzk_wc_opts *opts, cuzk_error *err);

/* Same for a wasm image in memory (|size| bytes, borrowed for the call). */
CUZK_API cuzk_status cuzk_wc_circuit_load_mem(cuzk_wc_circuit **c, const void *wasm, size_t size,
                                              const char *name, const cuzk_wc_opts *opts,
                                              cuzk_error *err);

/* What a circom .wasm is, read from the module without running or
 * compiling it (`cuzk info`): the constants circom writes into its
 * exported functions and data.  A field circom wrote in another shape
 * stays 0 (curve: CUZK_CURVE_NONE, also for a prime that is not ours). */
typedef struct cuzk_wc_wasm_info {
    uint64_t wasm_bytes;
    unsigned version[3];   /* circom's version: getVersion, getMinorVersion, getPatchVersion */
    uint32_t n_witness;    /* getWitnessSize: the wires, values of a .wtns */
    uint32_t n_inputs;     /* getInputSize: input values, all signals together */
    uint8_t prime[48];     /* getRawPrime, little-endian (getFieldNumLen32 words) */
    cuzk_curve curve;
    int cached;            /* the compiled worker for this machine is in the cache */
    char cache_path[4200]; /* where it is (or would be) */
} cuzk_wc_wasm_info;

/*
 * Fill |info| for the .wasm at |path|; the cache is the one |opts| (may be
 * NULL) names, as cuzk_wc_circuit_load would use it.
 * Returns: CUZK_OK; CUZK_ENOTFOUND / CUZK_EIO (the file); CUZK_EFORMAT
 *   (not a circom 2 witness calculator); CUZK_EUNSUPPORTED (a module
 *   without its own memory).
 */
CUZK_API cuzk_status cuzk_wc_wasm_inspect(cuzk_wc_wasm_info *info, const char *path,
                                          const cuzk_wc_opts *opts, cuzk_error *err);

/* A circuit is reference counted: the load gives the caller one
 * reference, cuzk_wc_circuit_ref one more (it returns |c|), and each
 * instance (cuzk_wc_new) and parsed input (cuzk_wc_input_parse) holds one
 * of its own until it is freed.  cuzk_wc_circuit_free drops the caller's
 * reference; the last one kills the circuit's look-up worker and frees
 * it.  Both may be called from any thread; NULL is a no-op. */
CUZK_API cuzk_wc_circuit *cuzk_wc_circuit_ref(cuzk_wc_circuit *c);
CUZK_API void cuzk_wc_circuit_free(cuzk_wc_circuit *c);

/* What the circuit is: its curve (from the prime), the number of witness
 * values (wires, w[0] = 1 included), of input values (all input signals'
 * elements), the circom version that made it ("2.1.9"), the hex SHA-256 of
 * its wasm (64 characters), and whether the object came from the cache. */
CUZK_API cuzk_curve cuzk_wc_circuit_curve(const cuzk_wc_circuit *c);
CUZK_API uint32_t cuzk_wc_circuit_n_witness(const cuzk_wc_circuit *c);
CUZK_API uint32_t cuzk_wc_circuit_n_inputs(const cuzk_wc_circuit *c);
CUZK_API const char *cuzk_wc_circuit_version(const cuzk_wc_circuit *c);
CUZK_API const char *cuzk_wc_circuit_hash(const cuzk_wc_circuit *c);
/* Seconds the compile took (0 when loaded from the cache). */
CUZK_API double cuzk_wc_circuit_compile_s(const cuzk_wc_circuit *c);
/* 1 when the circuit's field products run as native 64-bit code (they
 * were found in the module and agreed with the module's own on a check
 * set); 0 when the module's wasm products are used.  CUZK_WC_NATIVE=0 in
 * the environment turns the native products off. */
CUZK_API int cuzk_wc_circuit_native(const cuzk_wc_circuit *c);

/*
 * A new instance of |c|.  |print| (may be NULL) receives the lines the
 * circuit prints with log().
 * Returns CUZK_OK, CUZK_ENOMEM, or CUZK_EINTERNAL (the module's start
 * trapped).
 */
CUZK_API cuzk_status cuzk_wc_new(cuzk_wc **wc, const cuzk_wc_circuit *c, cuzk_wc_print_fn print,
                                 void *print_ctx, cuzk_error *err);
CUZK_API void cuzk_wc_free(cuzk_wc *wc);

/* The log() lines of |wc|'s last calculation that were not passed to its
 * print callback (past cuzk_wc_opts.log_lines); 0 before any. */
CUZK_API uint32_t cuzk_wc_log_dropped(const cuzk_wc *wc);

/* The witness of |wc|'s last successful calculation where the worker wrote
 * it (n_witness plain 32-byte values, read-only), for a caller that passed
 * |out| NULL to save the copy; valid until |wc|'s next calculation or
 * cuzk_wc_free.  NULL when there is none. */
CUZK_API const void *cuzk_wc_witness(const cuzk_wc *wc);

/* Memory (bytes) that the worker process of |wc|, or the look-up worker of
 * circuit |c|, holds now: its proportional set size (pages it shares with
 * other workers, such as the executable's, divided among them), at most
 * cuzk_wc_opts.memory_bytes plus the executable.  0 when it has none
 * running; for a circuit, UINT64_MAX while a look-up is using the worker
 * (not waited for: ask again later).  Reads /proc: for accounting after a
 * calculation, not in a loop. */
CUZK_API uint64_t cuzk_wc_memory(const cuzk_wc *wc);
CUZK_API uint64_t cuzk_wc_circuit_memory(cuzk_wc_circuit *c);

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
CUZK_API cuzk_status cuzk_wc_input_parse(cuzk_wc_input **in, const cuzk_wc_circuit *c,
                                         const char *json, size_t len, cuzk_error *err);
CUZK_API void cuzk_wc_input_free(cuzk_wc_input *in);
/* Number of values the input holds. */
CUZK_API size_t cuzk_wc_input_count(const cuzk_wc_input *in);

/*
 * Compute the witness of |in| with instance |wc| (of the circuit |in| was
 * parsed for) into |out|: cuzk_wc_circuit_n_witness(c) values, each 32
 * bytes little-endian in plain (not Montgomery) form, the layout of a .wtns
 * file's values.  |out| NULL: not copied; read it with cuzk_wc_witness.
 * Returns: CUZK_OK; CUZK_EVERIFY (the circuit rejected the inputs: an
 *   assert failed, "Assert Failed. Error in template Num2Bits_1 line: 38");
 *   CUZK_EMISMATCH ("Not all inputs have been set. Only 2 out of 3");
 *   CUZK_EINTERNAL (the module trapped); CUZK_EINVAL (|in| is for
 *   another circuit).  After a failure the instance is started afresh, so
 *   it stays usable.
 */
CUZK_API cuzk_status cuzk_wc_calculate(cuzk_wc *wc, void *out, const cuzk_wc_input *in,
                                       cuzk_error *err);

/* Polled about every 50 ms while a calculation runs; non-zero stops it. */
typedef int (*cuzk_wc_stop_fn)(void *ctx);

/*
 * cuzk_wc_calculate with a deadline: |deadline_ns| (cuzk_now_ns's clock;
 * 0: none) and the circuit's own limit (cuzk_wc_opts.calc_s), whichever
 * comes first, and |stop| (may be NULL).  A calculation past its time is
 * killed with its worker.
 * Returns, besides cuzk_wc_calculate's: CUZK_ETIMEOUT (past the deadline
 *   or the limit); CUZK_ECANCELLED (|stop| said so); CUZK_EINTERNAL (the
 *   worker crashed, or reported something impossible: the message says
 *   what).  The instance stays usable: a new worker starts on next use.
 */
CUZK_API cuzk_status cuzk_wc_calculate_until(cuzk_wc *wc, void *out, const cuzk_wc_input *in,
                                             uint64_t deadline_ns, cuzk_wc_stop_fn stop,
                                             void *stop_ctx, cuzk_error *err);

/*
 * Write a .wtns file image of |n| values at |values| (32 bytes each, plain
 * LE) for |curve|: the bytes `snarkjs wtns calculate` writes (version 2,
 * two sections).  Returns the image's size; writes it to |out| when |out|
 * is not NULL (size it with a first call).
 */
CUZK_API size_t cuzk_wtns_image(uint8_t *out, cuzk_curve curve, const void *values, uint32_t n);

/* ---- GPUs --------------------------------------------------------------------------- */

typedef struct cuzk_gpu_info {
    int index;
    char name[128];
    size_t total_mem_bytes;
    size_t free_mem_bytes; /* free now, all processes considered */
    int sm_count;          /* multiprocessors */
    int cc_major, cc_minor; /* compute capability */
    size_t l2_bytes;
} cuzk_gpu_info;

/* Number of usable CUDA devices: 0 when there is no driver, no device, or
 * the library was built without CUDA. */
CUZK_API int cuzk_gpu_count(void);

/* Why cuzk_gpu_count() says what it says.  Returns CUZK_OK with |*count|
 * devices (0: the driver works and lists none); CUZK_ENOTFOUND when no
 * NVIDIA driver is installed at all (as good as no GPU; said in |err|);
 * CUZK_EGPU when CUDA itself failed (a mismatched driver, a device it
 * cannot initialise), with CUDA's error in |err|; CUZK_EUNSUPPORTED when the library was built
 * without CUDA.  |*count| is 0 on failure. */
CUZK_API cuzk_status cuzk_gpu_probe(int *count, cuzk_error *err);

/* Fill |info| for CUDA device |index|.  Returns CUZK_OK; CUZK_EINVAL (no
 * such device); CUZK_EGPU (the driver failed); CUZK_EUNSUPPORTED (built
 * without CUDA).  |info| is zeroed on failure. */
CUZK_API cuzk_status cuzk_gpu_query(int index, cuzk_gpu_info *info, cuzk_error *err);

/* ---- SHA-256 -------------------------------------------------------------------------
 * FIPS 180-4, for content addresses (the identity of a circuit, of a
 * request's content).  Not constant time; not meant for secrets. */

typedef struct cuzk_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t buf[64];
    size_t fill;
} cuzk_sha256;

CUZK_API void cuzk_sha256_init(cuzk_sha256 *s);
CUZK_API void cuzk_sha256_update(cuzk_sha256 *s, const void *data, size_t len);
CUZK_API void cuzk_sha256_final(cuzk_sha256 *s, uint8_t out[32]);
/* The digest of |len| bytes at |data| as 64 lower-case hex digits + NUL. */
CUZK_API void cuzk_sha256_hex(char out[65], const void *data, size_t len);
/* Hex of a finished digest. */
CUZK_API void cuzk_sha256_to_hex(char out[65], const uint8_t digest[32]);


/* ---- files ---------------------------------------------------------------------------- */

/*
 * The whole file at |path|, read as a service must read a file its client
 * names: opened without blocking (a FIFO is refused, never waited on), a
 * regular file only, never mapped (a truncation while it is read is an
 * error, not a SIGBUS), and refused before a byte is read when it is over
 * |max| bytes or empty.  |what| names it in messages ("witness").
 * Returns: CUZK_OK; CUZK_EIO (cannot open or read, missing, or it shrank
 *   while it was read); CUZK_EINVAL (not a regular file);
 *   CUZK_ERANGE (over |max|); CUZK_EFORMAT (empty); CUZK_ENOMEM.
 * Out: |*out| (free() it) and |*size|; NULL and 0 on failure.
 */
CUZK_API cuzk_status cuzk_file_read(const char *path, const char *what, uint64_t max,
                                    uint8_t **out, size_t *size, cuzk_error *err);

/* Write |size| bytes to |path| as every cuzk output is written: a regular
 * file (or a new name) under an unpredictable temporary name in the same
 * folder, then renamed into place, so no reader ever sees a partial file;
 * a symlink's target the same way (the link stays); a device or a FIFO in
 * place, never replaced (a FIFO waits a few seconds for a reader);
 * /dev/stdout and /dev/fd/N into the open descriptor.  A folder or a socket
 * is an error.  Returns CUZK_OK, CUZK_ENOMEM or CUZK_EIO (with the path
 * and the reason); on failure an existing file is left as it was. */
CUZK_API cuzk_status cuzk_file_write_atomic(const char *path, const void *data, size_t size,
                                            cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
