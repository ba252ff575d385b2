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
 */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void tu_init(int argc, char **argv, const char *name);
int tu_finish(void); /* prints the summary; returns the exit status */
uint64_t tu_rand64(void);
uint64_t tu_seed(void);
unsigned tu_iters(unsigned base); /* base * CUZK_TEST_ITERS */
void tu_rand_bytes(void *out, size_t n);
/* n limbs below |mod| (n limbs), drawn from a mix of patterns. */
void tu_rand_below(uint64_t *out, const uint64_t *mod, size_t n);
void tu_check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *tu_source_dir(void); /* $CUZK_SOURCE_DIR or "." */
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

#endif
