/*
 * INSECURE development setup (setup.h): instantiates the fixed-base
 * multiplication (setup_fb_template.h) for the four groups and the setup
 * (setup_template.h) for both curves, and holds the curve-generic entry points.
 * Prints nothing: warning the user is the CLI's job.
 */
#include "groth16/setup.h"

#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "groth16/curve_impl.h"
#include "groth16/zkey.h"
#include "util/splitmix.h"

#define FB_G bls12_381_g1
#define FB_S bls12_381_fr
#define FB_F bls12_381_fp
#include "groth16/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define FB_G bls12_381_g2
#define FB_S bls12_381_fr
#define FB_F bls12_381_fp2
#include "groth16/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define FB_G bn254_g1
#define FB_S bn254_fr
#define FB_F bn254_fp
#include "groth16/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define FB_G bn254_g2
#define FB_S bn254_fr
#define FB_F bn254_fp2
#include "groth16/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define P bls12_381
#define P_CURVE CUZK_CURVE_BLS12_381
#define P_FR_S BLS12_381_FR_TWO_ADICITY
#include "groth16/setup_template.h"
#undef P
#undef P_CURVE
#undef P_FR_S

#define P bn254
#define P_CURVE CUZK_CURVE_BN254
#define P_FR_S BN254_FR_TWO_ADICITY
#include "groth16/setup_template.h"
#undef P
#undef P_CURVE
#undef P_FR_S

/* The setup's entry in the curve table (curve_impl.h), per curve. */
#define SETUP_ENTRY(P)                                                                  \
    CUZK_CURVE_IMPL_LAYER_ENTRIES(P)                                                    \
    cuzk_status P##_entry_setup_dev(const cuzk_r1cs *r, const uint64_t *seed,           \
                                    cuzk_pool *pool, const char *path, uint8_t **out,   \
                                    size_t *size, cuzk_error *err) {                    \
        return P##_setup_and_write(r, seed, pool, path, out, size, err);                \
    }
SETUP_ENTRY(bls12_381)
SETUP_ENTRY(bn254)
#undef SETUP_ENTRY

static cuzk_status setup_dispatch(const cuzk_r1cs *r, const uint64_t *seed,
                                  cuzk_pool *pool, const char *path,
                                  uint8_t **out, size_t *size, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(r->curve);
    if (ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "setup: the r1cs has no known curve");
    return ci->setup_dev(r, seed, pool, path, out, size, err);
}

cuzk_status cuzk_setup_dev_zkey_mem(const cuzk_r1cs *r1cs, const uint64_t *seed,
                                    cuzk_pool *pool, uint8_t **out,
                                    size_t *size, cuzk_error *err) {
    return setup_dispatch(r1cs, seed, pool, NULL, out, size, err);
}

cuzk_status cuzk_setup_timing_write(const char *r1cs_path, const char *zkey_path, uint64_t seed,
                                    cuzk_pool *pool, cuzk_error *err) {
    cuzk_r1cs r;
    cuzk_status st = cuzk_r1cs_read_file(&r, r1cs_path, err);
    if (st != CUZK_OK)
        return st;
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(r.curve);
    st = ci ? ci->setup_timing_write(&r, seed, pool, zkey_path, err)
            : cuzk_fail(err, CUZK_ECURVE, "timing key: the r1cs has no known curve");
    cuzk_r1cs_free(&r);
    return st;
}

cuzk_status cuzk_setup_dev_write(const char *r1cs_path, const char *zkey_path,
                                 const uint64_t *seed, cuzk_pool *pool,
                                 cuzk_error *err) {
    cuzk_r1cs r;
    cuzk_status st = cuzk_r1cs_read_file(&r, r1cs_path, err);
    if (st != CUZK_OK)
        return st;
    st = setup_dispatch(&r, seed, pool, zkey_path, NULL, NULL, err);
    cuzk_r1cs_free(&r);
    return st;
}
