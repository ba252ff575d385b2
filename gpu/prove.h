/*
 * cuzk GPU backend, prover steps: the element-wise kernels of the Groth16
 * prover between its NTTs and MSMs (witness to Montgomery form, the sparse
 * products A z, B z, C z, and A B - C).  Implemented in groth16/prover/gpu/prove.cu;
 * used by groth16/prover/prove_gpu.c.  Contexts, streams, layouts and error
 * conventions: gpu/runtime.h.
 */
#ifndef CUZK_GPU_PROVE_H
#define CUZK_GPU_PROVE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/runtime.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d_out[i] = Montgomery form of the plain value d_in[i] (n Fr elements of
 * |curve|, may alias).  Values >= r become 0 and the smallest such index is
 * stored into *d_bad with atomicMin (device word the caller initialised to
 * UINT32_MAX).  Queued on |s|. */
cuzk_status cuzk_gpu_fr_from_plain(cuzk_gpu_stream *s, cuzk_curve curve,
                                   void *d_out, const void *d_in, size_t n,
                                   uint32_t *d_bad, cuzk_error *err);
/* d_y[i] = sum over row i of d_vals[k] * d_x[d_cols[k]], k in
 * [d_row_ptr[i], d_row_ptr[i+1]) (CSR, Montgomery Fr), for i < rows. */
cuzk_status cuzk_gpu_spmv(cuzk_gpu_stream *s, cuzk_curve curve,
                          const uint32_t *d_row_ptr, const uint32_t *d_cols,
                          const void *d_vals, size_t rows, const void *d_x,
                          void *d_y, cuzk_error *err);
/* d_out[i] = d_a[i] * d_b[i] - d_c[i] (d_c NULL: no subtraction); may alias. */
cuzk_status cuzk_gpu_fr_mul_sub(cuzk_gpu_stream *s, cuzk_curve curve,
                                void *d_out, const void *d_a, const void *d_b,
                                const void *d_c, size_t n, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
