/*
 * A proving key's place on a GPU device: the engine's policy (gpu_tier.c)
 * over the figures the GPU layer gives (groth16/prover/prove_gpu.h).
 */
#ifndef CUZK_ENGINE_GPU_TIER_H
#define CUZK_ENGINE_GPU_TIER_H

#include "gpu/runtime.h"
#include "groth16/prover/prove_gpu.h"

/* Where a key with needs |k| goes on a device with memory |mi| when asked
 * for |mode|, with |provers| provers' buffers on the device (their
 * buffers come before MSM scratch).  Pure: no device call.  CUZK_ENOMEM,
 * naming the figures, when it fits in no way. */
cuzk_status engine_gpu_place(const cuzk_gpu_key_needs *k, const cuzk_gpu_mem_info *mi,
                             cuzk_gpu_key_mode mode, unsigned provers, cuzk_gpu_placement *pl,
                             cuzk_error *err);

/* The device image of |key| on |ctx|: its needs, the placement above from
 * the context's memory now, then cuzk_gpu_key_create (CUDA builds). */
cuzk_status engine_gpu_key_create(cuzk_gpu_key **gk, cuzk_gpu_ctx *ctx, const cuzk_key *key,
                                  cuzk_gpu_key_mode mode, cuzk_error *err);

#endif
