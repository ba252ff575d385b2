/*
 * Umbrella for the GPU backend's C interface, for programs outside the tree
 * that included it whole.  The interface is split by concern:
 *   gpu/runtime.h   devices, contexts, streams, memory, events
 *   gpu/msm.h       MSM over resident or host-streamed bases
 *   gpu/ntt.h       NTT over Fr
 *   gpu/prove.h     the Groth16 prover's element-wise steps
 *   gpu/selftest.h  self-test kernels and measurement hooks
 * Must not: be included by anything in this tree (include the part you
 * use, so the test and measurement hooks stay out of production code).
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include "gpu/msm.h"
#include "gpu/ntt.h"
#include "gpu/prove.h"
#include "gpu/runtime.h"
#include "gpu/selftest.h"

#endif
