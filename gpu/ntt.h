/*
 * cuzk GPU backend, NTT: in-place transforms of Fr vectors in device memory
 * (plain and coset, both directions), with the twiddle tables cached in the
 * context.  Implemented in ntt/gpu/ntt.cu.  Contexts, streams, layouts and
 * error conventions: gpu/runtime.h.
 */
#ifndef CUZK_GPU_NTT_H
#define CUZK_GPU_NTT_H

#include "gpu/runtime.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_gpu_ntt_dir {
    CUZK_GPU_NTT_FORWARD = 0,       /* a[i] <- sum_k a[k] w^(ik) */
    CUZK_GPU_NTT_INVERSE = 1,       /* a[i] <- 1/n sum_k a[k] w^(-ik) */
    CUZK_GPU_NTT_COSET_FORWARD = 2, /* a[i] <- sum_k a[k] (g w^i)^k */
    CUZK_GPU_NTT_COSET_INVERSE = 3, /* inverse of COSET_FORWARD */
    /* a[i] <- g^i/n sum_k a[k] w^(-ik): INVERSE, then COSET_FORWARD's
     * input scaling, so that INVERSE_TO_COSET then FORWARD equals INVERSE
     * then COSET_FORWARD with one product per element less (the scaling
     * rides in the inverse's last pass, with the 1/n) */
    CUZK_GPU_NTT_INVERSE_TO_COSET = 4
} cuzk_gpu_ntt_dir;

/*
 * In-place NTT of n = 2^log_n Fr elements (Montgomery form, natural order in
 * and out) at device address |d_data|, queued on |s| (returns once queued;
 * synchronise the stream before reading the data).  w is the field's
 * root_of_unity(log_n) (field/field.h, ffjavascript's roots) — the same
 * definitions as ntt/ntt.h.  |coset_gen| (host pointer to one Fr element,
 * Montgomery form, non-zero) is used by the coset directions (and
 * INVERSE_TO_COSET) only.
 * 1 <= log_n <= 28.  The twiddle table for (curve, log_n) is computed on
 * first use and cached in the context (16 * n bytes).
 * CUZK_EINVAL / CUZK_ERANGE / CUZK_EGPU.
 */
cuzk_status cuzk_gpu_ntt(cuzk_gpu_stream *s, cuzk_curve curve,
                         void *d_data, unsigned log_n, cuzk_gpu_ntt_dir dir,
                         const void *coset_gen, cuzk_error *err);
/* Builds the twiddle table for (curve, log_n) now (optional). */
cuzk_status cuzk_gpu_ntt_prepare(cuzk_gpu_ctx *ctx, cuzk_curve curve,
                                 unsigned log_n, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
