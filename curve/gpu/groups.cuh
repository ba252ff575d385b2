/*
 * The four groups of cuzk as seen by GPU kernels: for each, the coordinate
 * field F (device type), the scalar field configuration S and the bit
 * length of the group order r.  Kernels are templates over one of these
 * descriptors, so G1/G2 of both curves share one implementation.
 *
 * Must not: hold arithmetic (see xyzz.cuh) or constants not derived from
 * field/consts_gen.h.
 */
#ifndef CUZK_GPU_GROUPS_CUH
#define CUZK_GPU_GROUPS_CUH

#include "curve/gpu/xyzz.cuh"
#include "field/gpu/fp2.cuh"
#include "field/gpu/mont.cuh"

#define CUZK_GPU_GROUP(name, Fty, Scfg, rbits)                                \
    struct name {                                                             \
        typedef Fty F;                                                        \
        typedef Scfg S;                                                       \
        typedef affine_t<Fty> affine;                                         \
        typedef xyzz_t<Fty> xyzz;                                             \
        enum { R_BITS = rbits };                                              \
    };

/* r: 255 bits (BLS12-381), 254 bits (BN254). */
CUZK_GPU_GROUP(gg_bls12_381_g1, g_bls12_381_fp, gpu_bls12_381_fr_cfg, 255)
CUZK_GPU_GROUP(gg_bls12_381_g2, g_bls12_381_fp2, gpu_bls12_381_fr_cfg, 255)
CUZK_GPU_GROUP(gg_bn254_g1, g_bn254_fp, gpu_bn254_fr_cfg, 254)
CUZK_GPU_GROUP(gg_bn254_g2, g_bn254_fp2, gpu_bn254_fr_cfg, 254)

#endif
