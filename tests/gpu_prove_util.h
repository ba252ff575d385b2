/*
 * One whole GPU proof from a .wtns, for the GPU tests and benchmarks
 * (tests/test_gpu_prove.c, bench/bench_gpu_prove.c).  The library's GPU
 * prover takes a witness already checked and a, b, c either evaluated by
 * the caller or on the device (cuzk_gpu_prove_upload, _run); this helper
 * is the caller a test needs: it checks the witness's curve and length,
 * evaluates on the CPU when asked (or when the key keeps its matrices in
 * host memory), draws the blinding unless fixed ones are given, and adds
 * the host-side times to the prover's.
 *
 * Compiled into the programs that use it, not into libcuzk.
 */
#ifndef CUZK_TESTS_GPU_PROVE_UTIL_H
#define CUZK_TESTS_GPU_PROVE_UTIL_H

#include "groth16/prover/key.h"
#include "groth16/prover/prove_gpu.h"
#include "util/threadpool.h"

/*
 * Prove |w| with |gk| on |p|.  |cpu_eval|: a, b, c evaluated on |pool|
 * (through the curve table) and uploaded with the witness, else on the
 * device.  |r|, |s|: the blinding (both or neither; NULL: fresh from the
 * OS CSPRNG).  |t| may be NULL; its evaluate_us includes the CPU
 * evaluation and total_us the upload.
 * Returns CUZK_OK; CUZK_ECURVE (witness of another curve); CUZK_EMISMATCH
 * (length); CUZK_ERANGE (a value >= r); CUZK_ENOMEM; CUZK_EIO; CUZK_EGPU.
 */
cuzk_status gpu_prove_one(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, const cuzk_wtns *w,
                          int cpu_eval, const cuzk_fr *r, const cuzk_fr *s, cuzk_pool *pool,
                          cuzk_proof *out, cuzk_gpu_timing *t, cuzk_error *err);

#endif
