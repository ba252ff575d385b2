/*
 * The device image of a proving key (struct cuzk_gpu_key), shared by the
 * two halves of the GPU prover: prove_gpu_key.c makes it (placement under
 * the device-memory cap, bases, matrices), prove_gpu.c proves with it.
 * Internal to groth16/; the API is groth16/prover/prove_gpu.h.
 */
#ifndef CUZK_GROTH16_PROVE_GPU_KEY_H
#define CUZK_GROTH16_PROVE_GPU_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/msm.h"
#include "gpu/runtime.h"
#include "groth16/prover/prove_gpu.h"

#define FR_BYTES 32

struct cuzk_gpu_key {
    cuzk_gpu_ctx *ctx;
    const cuzk_key *key;
    cuzk_curve curve;
    size_t n_vars, n_public, n; /* n = domain size */
    cuzk_gpu_bases *a, *b1, *b2, *c, *h;
    /* density keys (groth16.h): the wire of each point of A ([0]) and of
     * B1/B2 ([1]) on the device, NULL for a full query; points per query */
    uint32_t *d_idx[2];
    size_t n_q[2];
    /* CSR of A (m = 0) and B (m = 1): n + 1 row offsets, columns, values */
    uint32_t *d_row_ptr[2], *d_cols[2];
    void *d_vals[2];
    size_t nnz[2];
    uint64_t device_bytes;
    /* device scratch each MSM stream of a prover may plan for (gpu/msm.h:
     * [0] the G1 stream, [1] the B2 stream; 0: the default rule), and how
     * many provers' buffers fit beside the key and that scratch under the
     * context's memory cap (0: no cap) */
    size_t msm_limit[2];
    unsigned max_provers;
    int no_csr; /* the matrices stay on the host: a, b, c are evaluated there */
    int host_streamed;
    int registered; /* key->mem is page-locked by us */
    char why[200];  /* why the bases live where they do */
};

#endif
