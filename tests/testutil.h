/*
 * Small test harness shared by every tests/test_*.c program.
 *
 * - A seeded generator (xoshiro256**) whose seed is printed at start and can
 *   be replayed with CUZK_SEED=<n> or --seed <n>.
 * - CUZK_TEST_ITERS scales loop counts (default 1 = the CI setting).
 * - CHECK(cond, ...) records a failure with file:line and a message, and the
 *   program ends with "N passed, N failed" and exit status 1 on any failure.
 * - Random field inputs mix uniform values, edge values (0, 1, p-1) and
 *   values made of long runs of 0 and 1 bits, where carry bugs hide.
 *
 * Per-curve tests are written one way in every program:
 *
 * - The curves a program covers are one table, run by tu_run_curves():
 *       static const tu_curve curves[] = {
 *           {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
 *           {"bn254", CUZK_CURVE_BN254, bn254_tests},
 *       };
 *       tu_run_curves(curves, TU_COUNT(curves));
 *   The GPU tests hand that table to tu_gpu_main, their one main.
 *   Adding a curve to the tests is adding its row (and, for typed code,
 *   its instantiation below).  CUZK_TEST_CURVE=<name> runs one curve only
 *   (a name that matches no row is a failure).
 * - Code that needs the curve's C types is written once, as a template
 *   under `#else` of `#ifndef TEST_CURVE`, and the file includes itself
 *   once per curve with TEST_CURVE defined to the curve's name prefix:
 *       #define TEST_CURVE bls12_381
 *       #include __FILE__
 *       #undef TEST_CURVE
 *   Inside the template, TC(x) (CUZK_PASTE(TEST_CURVE, x), util/paste.h)
 *   names the curve's types and functions (TC(fp), TC(g1_add)) and the
 *   template's own (TC(tests) is the table's entry point); TEST_CURVE_NAME
 *   is the prefix as a string.  Per-group or per-field bodies nest the
 *   same way with TEST_GROUP (g1, g2) or TEST_FIELD (fp, fr) defined.
 *   Anything else that differs by curve comes from the library's own
 *   lower-case per-curve names where it has them (TC(fp_LIMBS)); other
 *   values (the cuzk_curve, constants named only in capitals, values a
 *   test states independently of the library such as the real part of
 *   xi) are TEST_<WHAT> macros defined and undefined next to TEST_CURVE.
 * - Code that is curve-generic (it goes through cuzk_curve, or through a
 *   table of function pointers that the template fills per curve) is an
 *   ordinary function taking the table row.
 */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/paste.h"

void tu_init(int argc, char **argv, const char *name);
/* Prints the summary; returns the exit status: 1 if a check failed or if
 * none ran at all. */
int tu_finish(void);
/* 1 when CUZK_REQUIRE_ALL=1 (CI): a part of a test that would be skipped
 * for want of a fixture or a tool must fail instead. */
int tu_require_all(void);
uint64_t tu_rand64(void);
uint64_t tu_seed(void);
unsigned tu_iters(unsigned base); /* base * CUZK_TEST_ITERS */
void tu_rand_bytes(void *out, size_t n);
/* n limbs below |mod| (n limbs), drawn from a mix of patterns. */
void tu_rand_below(uint64_t *out, const uint64_t *mod, size_t n);
void tu_check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *tu_source_dir(void); /* $CUZK_SOURCE_DIR or "." */
/* The whole file at |path| (malloc'd, free() it, with a NUL after its
 * *size bytes), or NULL if it cannot be opened or read. */
uint8_t *tu_read_file(const char *path, size_t *size);
/* 1 if this build has CUDA and the machine a usable device.  Otherwise
 * prints "no GPU: skipped (reason, with CUDA's error)" and returns 0 (GPU
 * tests then exit 77) -- except on a machine whose driver lists an NVIDIA
 * device (`nvidia-smi -L`; CUZK_EXPECT_GPU=1/0 overrides the probe) in a
 * CUDA build: there a device CUDA cannot use is a failure, and the program
 * exits 1 after printing CUDA's error. */
int tu_gpu_present(void);
/* A context on CUDA device 0 (CUDA builds), or NULL after recording a
 * failed check. */
struct cuzk_gpu_ctx *tu_gpu_ctx(void);
/* Public signals of a witness, w[1..n_pub], in Montgomery form (malloc'd,
 * free() it; NULL on failure). */
struct cuzk_wtns;
union cuzk_fr;
union cuzk_fr *tu_public_of(const struct cuzk_wtns *w, size_t n_pub);
/* A generated circuit (cuzk gen's default profile, 2^log2 domain, random
 * seed) with its witness (Montgomery) and an INSECURE development key as
 * .zkey bytes (free() it).  |curve| is a cuzk_curve, |pool| a cuzk_pool *
 * (may be NULL).  0 with |err| set on failure. */
struct cuzk_r1cs;
struct cuzk_pool;
struct cuzk_error;
int tu_gen_keyed(int curve, unsigned log2, struct cuzk_pool *pool, struct cuzk_r1cs *r1cs,
                 union cuzk_fr **wit, uint8_t **zkey, size_t *zsize, struct cuzk_error *err);

#define CHECK(cond, ...) tu_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* One curve of a program's per-curve tests (see the top of this file). */
typedef struct tu_curve {
    const char *name; /* the C prefix: "bls12_381", "bn254" */
    int id;           /* its cuzk_curve */
    void (*run)(const struct tu_curve *c);
} tu_curve;
/* Runs every row (or the one CUZK_TEST_CURVE names), in table order. */
void tu_run_curves(const tu_curve *curves, size_t n);

/*
 * The main of a GPU test (tests/test_gpu_*.c), which they all share:
 * tu_init; skipped (77) without CUDA or a device (tu_gpu_present); a
 * context on device 0 into *ctx and its default stream into *stream;
 * $max_log_env (when named and set) into *max_log; |setup| (NULL: none;
 * returning 0 records nothing more and ends the run); every curve of
 * |curves| (tu_run_curves); |teardown| (NULL: none) while the context is
 * still there; the context destroyed.  Returns the exit status
 * (tu_finish).  Without CUDA only |name| is read.
 */
struct cuzk_gpu_ctx;
struct cuzk_gpu_stream;
typedef struct tu_gpu_test {
    const char *name;
    const tu_curve *curves;
    size_t n_curves;
    struct cuzk_gpu_ctx **ctx;
    struct cuzk_gpu_stream **stream;
    const char *max_log_env; /* e.g. "CUZK_GPU_NTT_MAX_LOG" */
    unsigned *max_log;
    int (*setup)(void);
    void (*teardown)(void);
} tu_gpu_test;
int tu_gpu_main(int argc, char **argv, const tu_gpu_test *t);
#define TU_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* For per-curve templates: expand where TEST_CURVE is defined. */
#define TC(x) CUZK_PASTE(TEST_CURVE, x)
#define TU_STR2(x) #x
#define TU_STR(x) TU_STR2(x)
#define TEST_CURVE_NAME TU_STR(TEST_CURVE)

#endif
