/*
 * cuzk.h: the embedding API of the cuzk proving engine (libcuzk).
 *
 * An engine is a long-lived object that owns every thread, queue, buffer and
 * proving key of a proving service (docs/ENGINE.md).  Callers submit jobs; a
 * job names a proving key and carries one or more witnesses (partitions,
 * each an independent Groth16 proof with that key); the result is the list
 * of partition proofs in order.  Inside, each partition flows through
 *
 *   scheduler -> synthesis -> ready queue -> device worker -> finalizer
 *
 * and every stage boundary is timestamped, so status, logs, metrics and a
 * Chrome trace can say where time went and whether a device ever sat idle
 * while work was waiting (docs/ENGINE.md).
 *
 * This header and its companions are the whole public API (docs/API.md,
 * "libcuzk: the C API"): cuzk_files.h (circom/snarkjs files), cuzk_tools.h
 * (setups, synthetic circuits, the witness calculator, GPUs) and
 * cuzk_testing.h (test hooks only).  Each compiles alone with include/ as
 * the only include path; no internal type appears in them.
 *
 * Conventions (as in secp256k1's header):
 * - Argument order: the engine or job first, then outputs, then inputs.
 * - Every function that can fail returns a cuzk_status (below) and,
 *   when |err| is not NULL, writes a one-line reason into it.  Outputs are
 *   left in the state documented per function after a failure.
 * - Units are in the names: _ns (nanoseconds, CLOCK_MONOTONIC), _ms
 *   (milliseconds), _bytes, _s (seconds).
 * - Thread safety: every function taking a cuzk_engine * may be called from
 *   any thread at any time, concurrently, except cuzk_engine_destroy, which
 *   must not race with other calls on the same engine.  A cuzk_job handle
 *   may be used from several threads at once.  Callbacks (log, fault,
 *   witness release) are called from engine threads, possibly several at
 *   once, and never while the engine holds a lock its proving path needs;
 *   they must not call cuzk_engine_destroy.
 * - The library never exits or aborts on bad input, on a failed stage, or
 *   on a device error: the affected job fails and the engine keeps serving.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks every function of the public headers: exported from a library
 * built with hidden visibility. */
#ifndef CUZK_API
#if defined(__GNUC__) || defined(__clang__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CUZK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CUZK_PRINTF(f, a)
#endif

/* ---- status codes and errors -------------------------------------------------- */

/*
 * The one table of status codes of every layer: the enum and the names and
 * texts come from this list, so they cannot drift apart.
 */
#define CUZK_STATUS_MAP(X)                                                    \
    X(OK, "ok")                                                               \
    X(EINVAL, "invalid argument")                                             \
    X(EFORMAT, "malformed input")                                             \
    X(ERANGE, "value out of range")                                           \
    X(ENOTONCURVE, "point is not on the curve")                               \
    X(ENOTINSUBGROUP, "point is not in the prime-order subgroup")             \
    X(ECURVE, "curve mismatch")                                               \
    X(EMISMATCH, "inputs do not belong together")                             \
    X(EIO, "input/output error")                                              \
    X(ENOMEM, "out of memory")                                                \
    X(EUNSUPPORTED, "unsupported")                                            \
    X(EVERIFY, "verification failed")                                         \
    X(EGPU, "GPU error")                                                      \
    X(ECANCELLED, "cancelled")                                                \
    X(ETIMEOUT, "timed out")                                                  \
    X(EBUSY, "busy")                                                          \
    X(ENOTFOUND, "not found")                                                 \
    X(EINTERNAL, "internal error")                                            \
    X(ECONFLICT, "request id already names other work")

typedef enum cuzk_status {
#define CUZK_STATUS_ENUM(name, text) CUZK_##name,
    CUZK_STATUS_MAP(CUZK_STATUS_ENUM)
#undef CUZK_STATUS_ENUM
} cuzk_status;

#define CUZK_ERROR_MSG_BYTES 256

/* Detail of a failure, filled by the callee.  |status| repeats the return. */
typedef struct cuzk_error {
    cuzk_status status;
    char msg[CUZK_ERROR_MSG_BYTES];
} cuzk_error;

/* Short name of a status ("EFORMAT") and its description.  Never NULL. */
CUZK_API const char *cuzk_status_name(cuzk_status s);
CUZK_API const char *cuzk_status_text(cuzk_status s);

/*
 * Record |s| and a printf-style reason in |err| (which may be NULL) and
 * return |s|, so a failing path reads `return cuzk_fail(err, CUZK_EFORMAT,
 * "...")`.  Public so that code layered on the library reports its own
 * failures the way the library does.
 */
CUZK_API cuzk_status cuzk_fail(cuzk_error *err, cuzk_status s, const char *fmt, ...)
    CUZK_PRINTF(3, 4);

/* Reset |err| (may be NULL) to OK with an empty message. */
CUZK_API void cuzk_error_clear(cuzk_error *err);

/* ---- curves ------------------------------------------------------------------- */

typedef enum cuzk_curve {
    CUZK_CURVE_NONE = 0, /* unknown / not yet decided */
    CUZK_CURVE_BN254,    /* snarkjs "bn128" (alt_bn128) */
    CUZK_CURVE_BLS12_381 /* snarkjs "bls12381" */
} cuzk_curve;

/* Name snarkjs writes for |c|: "bn128", "bls12381"; "none" otherwise. */
CUZK_API const char *cuzk_curve_snarkjs_name(cuzk_curve c);

/* Parse a curve name the way snarkjs does (case-insensitive, characters
 * other than letters and digits ignored): "bn128", "bn254", "altbn128" ->
 * CUZK_CURVE_BN254; "bls12381" -> CUZK_CURVE_BLS12_381; else
 * CUZK_CURVE_NONE. */
CUZK_API cuzk_curve cuzk_curve_from_name(const char *name);

/* ---- proofs and public signals as bytes ------------------------------------- */

/*
 * A proof leaves the library as a curve-tagged byte image: the raw form
 * cuzkd serves (docs/API.md), A then B then C, affine, big-endian:
 *   BLS12-381: the zcash/bellperson compressed encoding, A 48, B 96, C 48
 *              bytes (192 in all);
 *   BN254:     Ethereum's (EIP-197) uncompressed encoding, A 64, B 128,
 *              C 64 bytes (256 in all), what a Solidity verifier takes.
 * Public signals are 32-byte images each, big-endian, of the canonical
 * value (not Montgomery form), below the curve's scalar field order r.
 */
#define CUZK_PROOF_BYTES_MAX 256
#define CUZK_SCALAR_BYTES 32

typedef struct cuzk_proof_bytes {
    cuzk_curve curve;
    uint32_t len; /* cuzk_proof_bytes_len(curve) */
    uint8_t bytes[CUZK_PROOF_BYTES_MAX];
} cuzk_proof_bytes;

/* Bytes of a proof image of curve |c| (192 or 256); 0 for CUZK_CURVE_NONE. */
CUZK_API size_t cuzk_proof_bytes_len(cuzk_curve c);

/* A verification key (opaque; cuzk_vk_load makes one). */
typedef struct cuzk_vk cuzk_vk;

/*
 * Load the verification key of a .zkey or of a verification_key.json
 * (told apart by the file's first bytes).
 * Returns: CUZK_OK; CUZK_ENOTFOUND / CUZK_EIO (path); CUZK_EFORMAT (neither
 *   a .zkey nor a verification key); CUZK_ECURVE (a curve of neither
 *   kind); the point errors of a bad key (CUZK_ERANGE, CUZK_ENOTONCURVE,
 *   CUZK_ENOTINSUBGROUP); CUZK_ENOMEM.
 * Out: |*vk| (free with cuzk_vk_release); NULL on failure.
 */
CUZK_API cuzk_status cuzk_vk_load(cuzk_vk **vk, const char *path, cuzk_error *err);
/* Free a key from cuzk_vk_load; NULL is a no-op. */
CUZK_API void cuzk_vk_release(cuzk_vk *vk);
/* The key's curve and number of public signals. */
CUZK_API cuzk_curve cuzk_vk_curve(const cuzk_vk *vk);
CUZK_API size_t cuzk_vk_n_public(const cuzk_vk *vk);

/*
 * Verify a proof image for |n_pub| public signal images (|pub| holds
 * n_pub * CUZK_SCALAR_BYTES bytes, as above; may be NULL when n_pub is 0).
 * Returns: CUZK_OK (valid); CUZK_EVERIFY (the pairing check fails);
 *   CUZK_ECURVE (proof tagged with another curve than the key's);
 *   CUZK_EMISMATCH (not the key's number of public signals); CUZK_EFORMAT
 *   (image length not the curve's, bad encoding flags); CUZK_ERANGE (a
 *   coordinate or a signal out of range); CUZK_ENOTONCURVE,
 *   CUZK_ENOTINSUBGROUP (a point of the image).
 */
CUZK_API cuzk_status cuzk_verify(const cuzk_vk *vk, const cuzk_proof_bytes *proof,
                                 const uint8_t *pub, size_t n_pub, cuzk_error *err);

typedef struct cuzk_engine cuzk_engine;
typedef struct cuzk_job cuzk_job;

/* Most devices one engine drives (the CPU fallback included). */
#define CUZK_MAX_DEVICES 16
/* Longest request id and key id, in bytes, without the terminating NUL. */
#define CUZK_ID_MAX 127

/* The library's version, "MAJOR.MINOR.PATCH" (what pkg-config --modversion
 * cuzk says of the installed one); a static string. */
CUZK_API const char *cuzk_version(void);

/* ---- configuration -------------------------------------------------------- */

typedef enum cuzk_log_level {
    CUZK_LOG_ERROR = 0,
    CUZK_LOG_WARN = 1,
    CUZK_LOG_INFO = 2,  /* one line per partition and one per job */
    CUZK_LOG_DEBUG = 3
} cuzk_log_level;

/*
 * Receives one formatted log line (no trailing newline).  Called from engine
 * threads, possibly concurrently; never from a device worker and never with
 * an engine lock held, so it may block (write to a file, a socket).
 */
typedef void (*cuzk_log_fn)(void *ctx, cuzk_log_level level, const char *line);

typedef enum cuzk_device_kind {
    /* The CPU prover (groth16/): H by NTTs and the MSMs on a thread pool of
     * the device's own. */
    CUZK_DEVICE_CPU = 0,
    /* (1 is the simulated device of the tests: cuzk_testing.h) */
    /* An NVIDIA GPU (gpu/): the key's points resident in device memory, H
     * and every MSM on the device.  CUZK_EUNSUPPORTED from
     * cuzk_engine_create in a build without CUDA or with no such device. */
    CUZK_DEVICE_GPU = 2
} cuzk_device_kind;

typedef struct cuzk_device_config {
    cuzk_device_kind kind;
    /* CPU: threads of the device's pool (0: what the engine does not give
     * to synthesis). */
    unsigned threads;
    /* Worker threads feeding this device (0: 1).  Two or more let one
     * partition's upload overlap another's compute on devices that have an
     * upload step. */
    unsigned workers;
    /* GPU only: CUDA device index. */
    int gpu_index;
    /* GPU only: a cap on the device memory the engine uses there, in bytes
     * (0: none).  A large device then behaves like a smaller card: keys
     * whose bases do not fit under the cap stay in pinned host memory and
     * stream to the device per MSM (tier PINNED). */
    uint64_t gpu_mem_limit;
    /* GPU only: where keys' bases go.  0 (CUZK_TIER_DISK, the default):
     * device memory when they fit beside the provers' needs, else pinned
     * host memory; CUZK_TIER_PINNED: always pinned host memory, streamed
     * per MSM (to measure that tier on a device that could hold them). */
    int gpu_key_tier;
} cuzk_device_config;

/* Test hooks: fault injection and the simulated device (cuzk_testing.h).
 * Production code leaves cuzk_engine_config.testing NULL. */
typedef struct cuzk_testing cuzk_testing;

typedef struct cuzk_engine_config {
    /* Partitions synthesized at the same time (0: a quarter of the online
     * CPUs when a CPU device proves, else all but two; at least 1).  Each
     * worker computes one witness from inputs at a time, on its own
     * thread, and keeps one witness calculator instance per circuit. */
    unsigned synth_workers;
    /* Threads of the pool the synthesis workers share (0: a quarter of the
     * online CPUs, at least 1). */
    unsigned synth_threads;
    /* Finalizer threads (0: 1). */
    unsigned finalize_threads;
    /* Devices (0: one CPU device). */
    unsigned n_devices;
    cuzk_device_config devices[CUZK_MAX_DEVICES - 1];
    /* When no CPU device is configured, add a CPU device that only takes
     * retries of partitions whose device step failed (default 1). */
    int cpu_fallback;
    /* Byte budget for everything large: keys, buffers, copied witnesses.
     * 0: auto = physical memory (or the cgroup limit) minus
     * |budget_margin_bytes| (0: 10%, at least 512 MiB). */
    uint64_t budget_bytes;
    uint64_t budget_margin_bytes;
    /* Part of the budget copied witnesses may use (0: a quarter). */
    uint64_t intake_max_bytes;
    /* How long cuzk_submit waits for room to copy witnesses before it fails
     * with CUZK_EBUSY (0: 10000). */
    uint32_t submit_wait_ms;
    /* Synthesized partitions that may wait for a device (0: 2 per device
     * worker, times batch_max). */
    unsigned ready_max;
    /* Largest number of ready partitions of one key a device worker takes
     * in one step (0 or 1: no batching). */
    unsigned batch_max;
    /* Buffer sets allocated when a key is loaded, so that steady state
     * allocates nothing (0: enough for the whole pipeline). */
    unsigned buffer_sets;
    /* Finished jobs kept for status queries and request-id attach (0: 1024). */
    unsigned retain_jobs;
    /* Verify every proof before publishing it (default 1): a partition
     * whose proof does not verify fails (CUZK_EVERIFY) instead of ending
     * done with a useless proof.  Costs one pairing check per partition on
     * a finalizer thread, off the devices' path (docs/ENGINE.md,
     * "Checks"). */
    int self_verify;
    /* Check a∘b = c, row by row, for partitions handed over as a, b, c
     * images (default 1): a row that breaks it fails the partition
     * (CUZK_EVERIFY, naming the row) before any device step.  Costs one
     * Fr multiplication per row on the synthesis pool.  Partitions the
     * engine evaluates itself have c = a∘b by construction and are not
     * checked: for them self_verify is the check. */
    int check_abc;
    /* Where compiled witness calculators are cached (NULL: the default of
     * cuzk_wc_opts.cache_dir in cuzk_tools.h: $CUZK_WC_CACHE,
     * $XDG_CACHE_HOME/cuzk/wc, ...). */
    const char *wc_cache_dir;
    /* Limits of witness calculators (cuzk_wc_opts in cuzk_tools.h; 0: its
     * default): each runs in a worker process with |wc_memory_bytes| of
     * memory and |wc_calc_s| per calculation (and the job's deadline);
     * compiles are bounded by size, time, memory and count. */
    uint64_t wc_memory_bytes;
    double wc_calc_s;
    unsigned wc_log_lines;
    uint64_t wc_max_wasm_bytes;
    double wc_compile_s;
    uint64_t wc_compile_memory_bytes;
    unsigned wc_max_compilers;
    uint64_t wc_cache_max_bytes;
    double wc_start_s; /* a worker's setup (cuzk_wc_opts.start_s) */
    /* Produce proof.json / public.json strings for results (default 1). */
    int json;
    cuzk_log_level log_level; /* default CUZK_LOG_INFO */
    cuzk_log_fn log_fn;       /* NULL: lines go to stderr */
    void *log_ctx;
    /* Timeline events kept per engine thread (0: 16384). */
    unsigned trace_events;
    /* Tests only (cuzk_testing.h): fault hook and simulated devices, copied
     * by cuzk_engine_create.  NULL: none. */
    const cuzk_testing *testing;
} cuzk_engine_config;

/* Fill |cfg| with the defaults above (everything auto, one CPU device). */
CUZK_API void cuzk_engine_config_default(cuzk_engine_config *cfg);

/* ---- engine lifetime ---------------------------------------------------------- */

/*
 * Create an engine and start its threads.
 * Returns: CUZK_OK; CUZK_EINVAL (bad config: too many devices, unknown
 *   kind, a test hook without its build); CUZK_ENOMEM (the budget cannot hold the engine's own
 *   structures); CUZK_EINTERNAL (a thread could not start).
 * Out: |*e| the engine (free with cuzk_engine_destroy); NULL on failure.
 * In: |cfg| copied; NULL means the defaults.
 */
CUZK_API cuzk_status cuzk_engine_create(cuzk_engine **e, const cuzk_engine_config *cfg,
                                        cuzk_error *err);

/*
 * Stop the engine and free it.  New submits fail at once (CUZK_ECANCELLED).
 * Drains: waits up to |drain_ms| (negative: forever) for submitted jobs to
 * finish; after that, cancels the rest.  In either case it then waits for
 * device steps already running to end (a running step cannot be aborted),
 * joins every thread and frees keys and buffers.  Job handles the caller
 * still holds stay valid for cuzk_job_* reads and must still be released.
 * NULL is a no-op.  Must not race with any other call on |e|.
 */
CUZK_API void cuzk_engine_destroy(cuzk_engine *e, int64_t drain_ms);

/* CLOCK_MONOTONIC in nanoseconds: the clock of every _ns value here. */
CUZK_API uint64_t cuzk_now_ns(void);

/* ---- jobs ----------------------------------------------------------------------- */

typedef enum cuzk_priority {
    CUZK_PRIORITY_LOW = 0,
    CUZK_PRIORITY_NORMAL = 1,
    CUZK_PRIORITY_HIGH = 2,
    CUZK_PRIORITY_CRITICAL = 3
} cuzk_priority;

/*
 * One partition's witness: a .wtns file (|path|) or an in-memory .wtns image
 * (|data|, |size|).  Either may instead be an a, b, c image (magic
 * "cuzkabc1", docs/FILES.md): a, b, c already evaluated, as a synthesis
 * without an R1CS produces them, with the witness; the engine tells it by
 * its magic, checks it against the key (curve, witness count, rows within
 * the domain, values below r: a bad one fails the job with a message
 * naming what is wrong) and proves it without evaluating (the partition's
 * cuzk_step_timing.eval_site is CUZK_EVAL_INPUT).  Such an image is kept
 * (and an in-memory copy stays charged) until its partition is done.  A
 * key whose coefficient list is empty proves only such images.
 * In-memory ownership: with |release| NULL the engine copies |data| during
 * cuzk_submit (charged to the budget); with |release| set the engine reads
 * |data| in place (zero copy) and calls release(release_ctx, data) exactly
 * once, from an engine thread, when it no longer needs it.  release is
 * called iff cuzk_submit returns CUZK_OK and did not attach to an existing
 * job; otherwise the caller still owns |data|.
 */
typedef struct cuzk_witness {
    const char *path;
    const void *data;
    size_t size;
    void (*release)(void *ctx, const void *data);
    void *release_ctx;
    /* Inputs instead of a witness: the text of a circom input.json
     * (|input_len| >= 1 bytes, not necessarily NUL-terminated; copied
     * during cuzk_submit and charged to the budget like a witness copy, so
     * |release| must be NULL).  A synthesis worker parses it and computes
     * the witness with the job's circuit (cuzk_submit_opts.circuit); a bad
     * input (unknown signal, wrong number of values, a failed assert)
     * fails the job with the witness layer's status and message.  Exactly
     * one of |path|, |data| and |input_json| is set. */
    const char *input_json;
    size_t input_len;
} cuzk_witness;

typedef struct cuzk_submit_opts {
    /* A key id given to cuzk_engine_key_preload, or the path of a .zkey
     * (loaded on first use and kept resident; its id is its real path). */
    const char *key;
    /* Caller-chosen id (<= CUZK_ID_MAX bytes); NULL: the engine makes one
     * ("job-<n>").  Submitting an id that names a job still running or done
     * attaches to that job instead of proving again; an id whose job
     * failed, was cancelled or expired starts a new job. */
    const char *request_id;
    cuzk_priority priority;
    /* Milliseconds after submission by which the job must be done; 0: no
     * deadline.  On expiry the job ends with CUZK_ETIMEOUT and its
     * remaining partitions stop at their next stage boundary. */
    uint64_t deadline_ms;
    const cuzk_witness *witnesses; /* |n_witnesses| >= 1 partitions */
    size_t n_witnesses;
    /* The circuit's witness calculator, needed when a witness carries
     * inputs: the path of circom's .wasm for this key.  NULL: the circuit
     * registered with the key (cuzk_engine_circuit_register).  Compiled to
     * native code on first use (witness/wc.h) and kept loaded for later
     * jobs (one that fails to load, or that a key refused, is dropped with
     * its last user).  A circuit not loaded yet is loaded by an engine thread
     * after the submit returns; the job waits for it (QUEUED), and fails
     * if it cannot be loaded or does not fit the key (curve, number of
     * witness values).  Ignored when no witness carries inputs. */
    const char *circuit;
    /* Called once when the job ends (DONE, FAILED, CANCELLED or EXPIRED),
     * its state, message and proofs final, on the thread that ended it: an
     * engine thread, or a caller of cuzk_job_cancel or cuzk_engine_destroy
     * (possibly before cuzk_submit has returned).  |job| is lent for the
     * call: cuzk_job_status and the proof reads work on it, and a handle
     * the caller holds may be released in it.  It must return quickly and
     * must not wait for anything that a caller of cuzk_job_cancel might
     * hold.  Only the submit that makes the job registers it (not one that
     * attaches, nor one that fails).  NULL: nothing is called, and a
     * caller learns of the end with cuzk_job_await or cuzk_job_status. */
    void (*on_end)(void *ctx, cuzk_job *job);
    void *on_end_ctx;
    /* With |request_id|: 32 bytes that identify what the job proves
     * (cuzk_submit_digest, or the caller's own when it knows them without
     * hashing gigabytes), recorded with the id.  A later submit of the id
     * that carries a digest attaches only if it is the same (else
     * CUZK_ECONFLICT); NULL: no content is recorded or compared, only the
     * key and the number of partitions. */
    const uint8_t *digest;
} cuzk_submit_opts;

/*
 * Submit a job.  Returns without waiting for proving; waits only while
 * copying in-memory witnesses needs room in the budget (up to the config's
 * submit_wait_ms).
 *
 * Key files and witness files are read later, by engine threads: a bad
 * file, a witness of another curve or size, an input the circuit refuses
 * fails the job, not the submit.  Callers that would rather refuse such a
 * job before submitting it call cuzk_submit_check first: the same checks,
 * in the same words.
 *
 * A submit of a request id whose job is queued, running or done attaches
 * to it: nothing is checked or proved again.  The key and the number of
 * partitions must be the job's, and, where both submits carry a content
 * digest (cuzk_submit_opts.digest), the content too.
 *
 * Returns: CUZK_OK; CUZK_EINVAL (no witnesses, id too long, a witness with
 *   none or more than one of path, data and inputs, empty data or inputs,
 *   inputs larger than intake_max_bytes, inputs but no circuit named or
 *   registered); CUZK_ENOTFOUND (key is neither a known id nor an
 *   existing file; the circuit's file does not exist); CUZK_EMISMATCH (the request
 *   id is attached to a job of another key or another number of
 *   partitions); CUZK_ECONFLICT (the request id's job has the same key and
 *   partitions but other content); CUZK_EBUSY (no room to copy witnesses
 *   in time); CUZK_ECANCELLED (the engine is shutting down).
 * Out: |*job| a handle (release with cuzk_job_release), NULL on failure;
 *   |*attached| (may be NULL) 1 if the handle is an existing job's.
 */
CUZK_API cuzk_status cuzk_submit(cuzk_engine *e, cuzk_job **job, int *attached,
                                 const cuzk_submit_opts *opts, cuzk_error *err);

/*
 * The checks the engine makes of a job's inputs, made now, before a
 * submit: cuzk_submit's option rules; each witness against the key (its
 * header read: readable, an a, b, c image or a .wtns of the key's curve
 * with as many values as the key has wires); the circuit against the key
 * and each input against the circuit (parsed, every input signal set).
 * The engine makes the same checks, with the same functions and words,
 * when it proves the job (where they fail the job); this lets a caller
 * refuse a bad job at once (cuzkd answers 400).  Loads nothing: a key
 * never loaded checks only the options, a circuit not loaded skips the
 * inputs.  Statuses: cuzk_submit's, CUZK_ECURVE, CUZK_EMISMATCH,
 * CUZK_EFORMAT, CUZK_EIO and the witness layer's; the message names the
 * witness ("witness 2: ...") or the input ("input: ...", "inputs[2]: ...").
 */
CUZK_API cuzk_status cuzk_submit_check(cuzk_engine *e, const cuzk_submit_opts *opts,
                                       cuzk_error *err);

/*
 * What a job proves, as a request id is recorded with it: a SHA-256 over
 * the number of partitions, whether they are inputs, the circuit as named,
 * and each witness (the bytes of in-memory data or inputs; a file by its
 * path and identity: device, inode, size and modification time).  The key
 * is compared separately (by what it resolves to), so it is not part of
 * it.  Never fails; |opts| must pass cuzk_submit_check's option rules.
 */
CUZK_API void cuzk_submit_digest(const cuzk_submit_opts *opts, uint8_t out[32]);

/* A new handle to the job with |request_id|: CUZK_OK, or CUZK_ENOTFOUND if
 * no running or retained job has it.  |*job| NULL on failure. */
CUZK_API cuzk_status cuzk_job_find(cuzk_engine *e, cuzk_job **job, const char *request_id,
                                   cuzk_error *err);

/* Drop a handle.  The job keeps running; NULL is a no-op. */
CUZK_API void cuzk_job_release(cuzk_job *job);

typedef enum cuzk_job_state {
    CUZK_JOB_QUEUED = 0,    /* no partition has started */
    CUZK_JOB_RUNNING = 1,
    CUZK_JOB_DONE = 2,      /* every partition proved */
    CUZK_JOB_FAILED = 3,    /* a stage failed (see status and msg) */
    CUZK_JOB_CANCELLED = 4, /* cuzk_job_cancel or engine shutdown */
    CUZK_JOB_EXPIRED = 5    /* the deadline passed */
} cuzk_job_state;

/* Where one partition is.  SYNTHESIS includes waiting for a synthesis
 * worker; FINALIZING includes waiting for a finalizer. */
typedef enum cuzk_stage {
    CUZK_STAGE_QUEUED = 0, /* in the scheduler: priority, key load, memory */
    CUZK_STAGE_SYNTHESIS,
    CUZK_STAGE_READY, /* synthesized, waiting for a device */
    CUZK_STAGE_PROVING,
    CUZK_STAGE_FINALIZING,
    CUZK_STAGE_DONE,
    CUZK_STAGE_FAILED,
    CUZK_STAGE_CANCELLED, /* stopped because its job ended early */
    CUZK_STAGE_COUNT
} cuzk_stage;

/* Name of a stage ("synthesis") / job state ("running"); never NULL. */
CUZK_API const char *cuzk_stage_name(cuzk_stage s);
CUZK_API const char *cuzk_job_state_name(cuzk_job_state s);

typedef struct cuzk_job_info {
    uint64_t id; /* engine-assigned, increasing */
    char request_id[CUZK_ID_MAX + 1];
    char key[CUZK_ID_MAX + 1];
    cuzk_job_state state;
    cuzk_priority priority;
    cuzk_status status; /* CUZK_OK unless FAILED / CANCELLED / EXPIRED */
    char msg[CUZK_ERROR_MSG_BYTES];
    uint32_t n_partitions, partitions_done, partitions_failed;
    uint32_t in_stage[CUZK_STAGE_COUNT]; /* partitions per stage now */
    uint64_t submit_ns, end_ns, deadline_ns; /* end/deadline 0: none yet/none */
    int simulated; /* produced by a simulated device: no proofs */
} cuzk_job_info;

/* Where a partition's a = A·w, b = B·w, c = a∘b were evaluated. */
typedef enum cuzk_eval_site {
    CUZK_EVAL_NONE = 0,      /* not yet */
    CUZK_EVAL_SYNTHESIS = 1, /* on the synthesis pool (CPU), before the device */
    CUZK_EVAL_DEVICE = 2,    /* inside the device step (a GPU, or a CPU retry
                                of a partition meant for a GPU) */
    CUZK_EVAL_INPUT = 3      /* nowhere: the input was an a, b, c image
                                (docs/FILES.md), evaluate_ns is 0 */
} cuzk_eval_site;

/*
 * What one partition's proving spent where, for callers that print it
 * (`cuzk prove -v`).  Nanoseconds; 0 where a step did not run or the device
 * does not time it.  The device fields describe the successful device step
 * (for a GPU batch of several partitions, the batch's figures); evaluate is
 * in synthesis or in the device step as |eval_site| says.  On a GPU,
 * msm_b2 runs on a second stream beside the others.
 */
typedef struct cuzk_step_timing {
    uint64_t witness_ns;  /* witness computed from inputs (part of synthesis) */
    uint64_t evaluate_ns;
    cuzk_eval_site eval_site;
    uint64_t upload_ns;   /* witness (and a, b, c) to the device */
    uint64_t ntt_ns;      /* H: the six NTTs and h = a'b' - c' */
    uint64_t msm_a_ns, msm_b1_ns, msm_b2_ns, msm_c_ns, msm_h_ns;
    uint64_t download_ns; /* results back from the device */
    uint64_t assemble_ns; /* the proof from the five MSM results */
} cuzk_step_timing;

typedef struct cuzk_partition_info {
    cuzk_stage stage;
    cuzk_status status; /* of a FAILED partition */
    unsigned attempts;  /* device attempts so far (2 after a retry) */
    int device;         /* device of the last attempt, -1 before any */
    /* Stage boundaries (0: not reached): queued, synthesis start and end,
     * device start and end, finalize start and end. */
    uint64_t queued_ns, synth_start_ns, synth_end_ns, device_start_ns,
        device_end_ns, finalize_start_ns, finalize_end_ns;
    /* Set once the partition is DONE (zero before; witness_ns as soon as
     * the witness is computed). */
    cuzk_step_timing steps;
} cuzk_partition_info;

/*
 * Status of a job at any time, without waiting.
 * Out: |info| (may be NULL); |parts[i]| for i < min(n_parts, partitions)
 *   (may be NULL with n_parts 0).  Always succeeds for a valid handle.
 */
CUZK_API void cuzk_job_status(const cuzk_job *job, cuzk_job_info *info,
                              cuzk_partition_info *parts, size_t n_parts);

/*
 * The lines the job's circuit printed with log() while computing its
 * witnesses: data of the job, never written to the engine's log (which
 * gets one line a job saying they exist).  The first ones are kept, at
 * most cuzk_engine_config.wc_log_lines lines and CUZK_CIRCUIT_LOG_BYTES
 * in all; later ones are only counted.  Lines are printable ASCII, each
 * ended by '\n'.
 * Out: |buf| (may be NULL with |cap| 0) gets as many whole lines as fit in
 *   |cap| - 1 bytes and a NUL; |*lines| (may be NULL) the lines kept;
 *   |*dropped| (may be NULL) the lines not kept.
 * Returns the bytes the whole text needs, its NUL included.
 */
#define CUZK_CIRCUIT_LOG_BYTES 65536
CUZK_API size_t cuzk_job_circuit_log(const cuzk_job *job, char *buf, size_t cap, uint32_t *lines,
                                     uint64_t *dropped);

/*
 * Wait until the job has an outcome, at most |timeout_ms| (negative: no
 * limit, 0: just look).
 * Returns the outcome: CUZK_OK (every proof ready), CUZK_ECANCELLED,
 *   CUZK_ETIMEOUT (deadline passed) or the failing stage's status, with its
 *   message in |err|; CUZK_EBUSY if the wait timed out first.
 * A job has its outcome as soon as it is decided: after a failure or a
 * cancellation, partitions already on a device may still be finishing
 * (their results are discarded).
 */
CUZK_API cuzk_status cuzk_job_await(cuzk_job *job, int64_t timeout_ms, cuzk_error *err);

/*
 * Cancel a job: it ends with CUZK_ECANCELLED unless it already has an
 * outcome, and its partitions stop at their next stage boundary.
 * Returns CUZK_OK if this call cancelled it, CUZK_EBUSY if it had already
 * ended (nothing changed).
 */
CUZK_API cuzk_status cuzk_job_cancel(cuzk_job *job);

/* Engine-assigned id and number of partitions. */
CUZK_API uint64_t cuzk_job_id(const cuzk_job *job);
CUZK_API size_t cuzk_job_partitions(const cuzk_job *job);

/*
 * Proof of partition |i| as a curve-tagged image (available once that
 * partition is DONE, even if the job later failed).
 * Returns CUZK_OK; CUZK_ERANGE (i out of range); CUZK_EBUSY (not done);
 *   CUZK_EUNSUPPORTED (a simulated device made it: there is no proof).
 * Out: |*proof| filled; unchanged on failure.
 */
CUZK_API cuzk_status cuzk_job_proof_bytes(const cuzk_job *job, cuzk_proof_bytes *proof, size_t i,
                                          cuzk_error *err);

/*
 * proof.json and public.json text of partition |i| (snarkjs format), owned
 * by the job and valid until the handle is released.  NULL when the
 * partition is not DONE, the config has json off, jansson is missing, or
 * the device was simulated.
 */
CUZK_API const char *cuzk_job_proof_json(const cuzk_job *job, size_t i);
CUZK_API const char *cuzk_job_public_json(const cuzk_job *job, size_t i);

/*
 * Public signals of DONE partition |i| as 32-byte big-endian images of
 * their canonical values (see "proofs and public signals as bytes").
 * In: |*n| the room of |pub| in signals (0 with |pub| NULL: just count).
 * Returns CUZK_OK; CUZK_ERANGE (i out of range, or |*n| too small: then
 *   |*n| is set to the number needed and nothing is written); CUZK_EINVAL
 *   (|pub| NULL with |*n| not 0); CUZK_EBUSY (not done); CUZK_EUNSUPPORTED
 *   (simulated device).
 * Out: |*n| the number of signals; |*curve| (may be NULL) their curve.
 */
CUZK_API cuzk_status cuzk_job_public_bytes(const cuzk_job *job, cuzk_curve *curve, uint8_t *pub,
                                           size_t *n, size_t i, cuzk_error *err);

/* ---- keys ------------------------------------------------------------------------- */

/* Where a key lives, from the slowest to the fastest.  A CPU-only engine
 * uses HOST and DISK; PINNED and DEVICE are the GPU tiers.  The values are
 * part of the ABI (cuzk_key_info.tier, cuzk_device_config.gpu_key_tier):
 * 1 names no tier. */
typedef enum cuzk_key_tier {
    CUZK_TIER_DISK = 0,
    CUZK_TIER_HOST = 2,
    CUZK_TIER_PINNED = 3,
    CUZK_TIER_DEVICE = 4
} cuzk_key_tier;

CUZK_API const char *cuzk_key_tier_name(cuzk_key_tier t);

typedef struct cuzk_key_info {
    char id[CUZK_ID_MAX + 1];
    char path[4096];
    cuzk_key_tier tier;   /* the best tier it has: DEVICE on some GPU, else
                             PINNED (host memory streamed to a GPU), else
                             HOST, else DISK */
    char tier_why[200];   /* for GPU tiers: the device and why there */
    int loading;          /* a load is queued or running */
    cuzk_curve curve;     /* CUZK_CURVE_NONE until first loaded */
    unsigned log_n;       /* domain size 2^log_n (0 until loaded) */
    /* Witness values (wires) a .wtns for this key must hold, so callers can
     * check a witness before submitting it (0 until first loaded; curve,
     * log_n and n_vars stay known after the key is evicted). */
    uint64_t n_vars;
    uint64_t mem_bytes;   /* charged to the budget now */
    uint32_t in_use;      /* partitions in flight with this key */
    uint64_t last_used_ns;
    uint64_t proofs, failures;
    cuzk_status load_status; /* of the last load */
    char load_msg[CUZK_ERROR_MSG_BYTES];
} cuzk_key_info;

/*
 * Register |path| under |id| (NULL: the real path is the id) and load it,
 * waiting until it is resident (evicting least-recently-used keys not in
 * use if the budget needs room).
 * Returns: CUZK_OK; CUZK_EINVAL (id too long); CUZK_EMISMATCH (id already
 *   names another path); CUZK_ENOTFOUND / CUZK_EIO (path); CUZK_ENOMEM (the
 *   key does not fit in the budget); the reader's error for a bad .zkey.
 */
CUZK_API cuzk_status cuzk_engine_key_preload(cuzk_engine *e, const char *id,
                                             const char *path, cuzk_error *err);

/*
 * Register |path| under |id| (NULL: the real path is the id) without
 * loading it: the first job naming it (or a preload) loads it.
 * Returns: CUZK_OK (also when |id| already names this path); CUZK_EINVAL;
 *   CUZK_EMISMATCH; CUZK_ENOTFOUND (path); CUZK_ENOMEM; CUZK_ECANCELLED
 *   (shutting down).  Does not read the file beyond resolving its path.
 */
CUZK_API cuzk_status cuzk_engine_key_register(cuzk_engine *e, const char *id,
                                              const char *path, cuzk_error *err);

/*
 * Drop key |id| from memory now (it stays registered and is loaded again
 * when a job needs it).
 * Returns CUZK_OK; CUZK_ENOTFOUND; CUZK_EBUSY if partitions are using it.
 */
CUZK_API cuzk_status cuzk_engine_key_evict(cuzk_engine *e, const char *id, cuzk_error *err);

/*
 * Remove key |id| from the key table when its last load failed and nothing
 * refers to it (no job, no load or preload in progress, no circuit bound),
 * so that files that only look like keys do not fill the table.  A later
 * request naming the same file registers it afresh.
 * Returns CUZK_OK (removed); CUZK_ENOTFOUND; CUZK_EBUSY when the key loaded
 * or is loading, or something still refers to it (it stays).
 */
CUZK_API cuzk_status cuzk_engine_key_forget(cuzk_engine *e, const char *id, cuzk_error *err);

/*
 * Register the circuit whose witness calculator is circom's .wasm at
 * |wasm_path| with key |key_id| (registered before, or a .zkey path as in
 * cuzk_submit_opts.key), so that jobs with inputs for that key need not
 * name it.  Compiles and loads it now, in the caller's thread (once per
 * machine: compiled circuits are cached on disk, witness/wc.h; a first
 * compile can take a minute), and checks that its curve and number of
 * witness values match the key's if the key has been loaded; otherwise
 * that is checked when a job with inputs is admitted, which fails it on a
 * mismatch.  Registering the same circuit again is a no-op.
 * Returns: CUZK_OK; CUZK_EINVAL (NULL or empty argument); CUZK_ENOTFOUND
 *   (key or file); CUZK_EMISMATCH (another circuit is registered with the
 *   key, or the circuit's number of witness values is not the key's);
 *   CUZK_ECURVE (the circuit is for the other curve); CUZK_ECANCELLED
 *   (shutting down); the witness layer's errors (CUZK_EFORMAT,
 *   CUZK_EUNSUPPORTED, CUZK_EINTERNAL for a failed compile).
 */
CUZK_API cuzk_status cuzk_engine_circuit_register(cuzk_engine *e, const char *key_id,
                                                  const char *wasm_path, cuzk_error *err);

/*
 * The engine's loaded circuit of circom's .wasm at |wasm_path|, loading
 * (and, the first time on this machine, compiling) it now in the caller's
 * thread if it is not loaded yet, for a caller that checks inputs against
 * the circuit the engine will compute their witnesses with: one object and
 * one look-up worker serve both, and that worker's memory is charged to
 * the engine's budget (mem_witness).  The caller holds a reference to the
 * circuit (cuzk_wc_circuit, cuzk_tools.h) until it gives it back with
 * cuzk_engine_circuit_put, which measures the look-up worker again (the
 * caller's look-ups may have started it) before dropping the reference.
 * A circuit that fails to load leaves nothing in the engine.
 * Returns: CUZK_OK; CUZK_EINVAL; CUZK_ENOTFOUND; CUZK_ECANCELLED (shutting
 *   down); the witness layer's errors, as cuzk_engine_circuit_register.
 */
struct cuzk_wc_circuit;
CUZK_API cuzk_status cuzk_engine_circuit_get(cuzk_engine *e, const char *wasm_path,
                                             struct cuzk_wc_circuit **c, cuzk_error *err);
/* Give back a circuit of cuzk_engine_circuit_get (NULL: nothing). */
CUZK_API void cuzk_engine_circuit_put(cuzk_engine *e, struct cuzk_wc_circuit *c);

/*
 * Unload the circuit of the .wasm at |wasm_path| when nothing uses it: no
 * key bound to it, no job, no load in progress.  A caller between
 * cuzk_engine_circuit_get and put keeps the object it holds (the engine
 * forgets it; a later use loads it again).  For a caller that bounds the
 * circuits it keeps (cuzkd's max_circuits) and needs room for a new one.
 * Returns CUZK_OK (unloaded); CUZK_ENOTFOUND (the engine has no such
 * circuit); CUZK_EBUSY (something uses it: it stays).
 */
CUZK_API cuzk_status cuzk_engine_circuit_evict(cuzk_engine *e, const char *wasm_path,
                                               cuzk_error *err);

/*
 * End every circuit compile, load and input look-up in progress now (their
 * compilers and workers killed, their callers answered CUZK_ECANCELLED)
 * and refuse new ones: for a caller that stops (cuzkd at its drain's
 * end), so that no client's circuit holds its stop.  Calculations of
 * jobs end by their jobs' cancellation.  Logs what it stopped.
 */
CUZK_API void cuzk_engine_circuits_stop(cuzk_engine *e);

/* Copy up to |max| keys' info into |out|; returns the number of keys known
 * (may exceed |max|). */
CUZK_API size_t cuzk_engine_keys(cuzk_engine *e, cuzk_key_info *out, size_t max);

/* ---- engine status, trace, metrics ------------------------------------------------ */

typedef struct cuzk_device_status {
    char name[16];          /* "cpu0", "sim1", "cpu-fallback" */
    cuzk_device_kind kind;
    int fallback_only;      /* takes only retries */
    unsigned workers_alive;
    uint64_t proofs, failures;
    /* Wall time since the engine started, split four ways (they sum to
     * the status's uptime_ns, read at the same instant, up to the rounding
     * to seconds): computing (busy); idle with nothing ready for it while
     * partitions were queued for or in synthesis (starved: synthesis was
     * behind the device, more synthesis workers or cores would help);
     * idle with nothing admitted at all (idle_s, after starved_synth_s:
     * no work); idle although work it could take was ready or staged
     * (hot-path overhead: should stay near zero). */
    double busy_s, starved_s, idle_with_work_s;
    /* The same as starved_s, from when starved_s counted idle time too. */
    double starved_synth_s;
    double idle_s;
    /* GPU devices: CUDA index (-1 otherwise), device memory held by
     * resident keys, and how many keys are resident there. */
    int gpu_index;
    uint64_t device_mem_bytes;
    uint64_t device_mem_peak_bytes; /* GPU: the most device memory in use at
                                       once (keys, buffers, scratch) */
    unsigned device_keys;
} cuzk_device_status;

typedef struct cuzk_engine_status {
    uint64_t now_ns, uptime_ns;
    /* Memory (bytes): the budget and what is charged to it now: keys, pool
     * buffers (in use and idle) and copied witnesses; peak of the total.
     * mem_scratch: the part of mem_buffers the devices hold as their
     * workers' prover scratch (sized per key, kept between partitions).
     * mem_pinned: GPU provers' page-locked host staging buffers (sized per
     * key, kept between partitions; charged even when a larger key makes
     * them pass the budget, which then admits nothing new until they fit).
     * mem_witness: the worker processes of witness calculators (one look-up
     * worker a loaded circuit, one a synthesis thread and circuit), each
     * as measured after its last calculation (look-up workers: again
     * every second), shared pages divided among them. */
    uint64_t mem_budget, mem_used, mem_peak, mem_keys, mem_buffers,
        mem_buffers_idle, mem_intake, mem_scratch, mem_pinned, mem_witness;
    /* Queues: jobs with partitions not yet admitted, by priority; partitions
     * waiting for synthesis, for a device, for a finalizer. */
    uint32_t queued_jobs[4];
    uint32_t synth_queue, ready_queue, done_queue;
    uint32_t in_stage[CUZK_STAGE_COUNT]; /* partitions in flight per stage */
    uint32_t jobs_active, jobs_retained;
    uint64_t jobs_done, jobs_failed, jobs_cancelled, jobs_expired;
    uint64_t proofs, retries, worker_restarts;
    unsigned n_devices;
    cuzk_device_status devices[CUZK_MAX_DEVICES];
    unsigned n_keys, keys_resident;
    /* Circuits loaded (witness calculators, each with its look-up worker). */
    unsigned n_circuits;
    /* Jobs that ended (cancelled, failed, expired) while partitions of them
     * were still on a device or a finalizer: counted in their outcome and
     * not in jobs_active; 0 once those partitions drain.  An engine with no
     * work left has jobs_active + jobs_draining == 0. */
    uint32_t jobs_draining;
} cuzk_engine_status;

/* Snapshot of the engine.  Cheap (no I/O); takes each internal lock for a
 * few memory reads at most. */
CUZK_API void cuzk_engine_status_get(cuzk_engine *e, cuzk_engine_status *st);

/*
 * The timeline as Chrome trace JSON (opens in Perfetto and
 * chrome://tracing): one complete event per partition stage, on the lane of
 * the engine thread that ran it, and device steps also on one lane per
 * device.  Events overlapping [from_ns, to_ns] (0, 0: all that the rings
 * still hold) are included; timestamps are microseconds since engine start.
 * Returns CUZK_OK or CUZK_ENOMEM.  Out: |*json| malloc'd (free() it), NUL
 *   terminated; |*len| (may be NULL) its length.
 */
CUZK_API cuzk_status cuzk_engine_trace(cuzk_engine *e, char **json, size_t *len,
                                       uint64_t from_ns, uint64_t to_ns, cuzk_error *err);

/*
 * Counters, gauges and histograms in Prometheus text exposition format
 * (version 0.0.4), all series prefixed cuzk_ (docs/ENGINE.md lists them).
 * Returns CUZK_OK or CUZK_ENOMEM.  Out: |*text| malloc'd (free() it).
 */
CUZK_API cuzk_status cuzk_engine_metrics(cuzk_engine *e, char **text, size_t *len,
                                         cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
