/*
 * INSECURE development setup (setup.h): instantiates the fixed-base
 * multiplication (setup_fb_template.h) for the four groups and the setup
 * (setup_template.h) for both curves, and holds the curve-generic entry points.
 * Prints nothing: warning the user is the CLI's job.
 */
#include "groth16/devtools/setup.h"

#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "groth16/formats/zkey.h"
#include "util/splitmix.h"

#define FB_G bls12_381_g1
#define FB_S bls12_381_fr
#define FB_F bls12_381_fp
#include "groth16/devtools/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define FB_G bls12_381_g2
#define FB_S bls12_381_fr
#define FB_F bls12_381_fp2
#include "groth16/devtools/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define FB_G bn254_g1
#define FB_S bn254_fr
#define FB_F bn254_fp
#include "groth16/devtools/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define FB_G bn254_g2
#define FB_S bn254_fr
#define FB_F bn254_fp2
#include "groth16/devtools/setup_fb_template.h"
#undef FB_G
#undef FB_S
#undef FB_F

#define P bls12_381
#define P_CURVE CUZK_CURVE_BLS12_381
#define P_FR_S BLS12_381_FR_TWO_ADICITY
#include "groth16/devtools/setup_template.h"
#undef P
#undef P_CURVE
#undef P_FR_S

#define P bn254
#define P_CURVE CUZK_CURVE_BN254
#define P_FR_S BN254_FR_TWO_ADICITY
#include "groth16/devtools/setup_template.h"
#undef P
#undef P_CURVE
#undef P_FR_S

/* This layer's table per curve (setup.h): the typed setup above on the
 * curve-agnostic key and files. */
#define SETUP_TABLE(P, ID)                                                              \
    static cuzk_status P##_dev_any(const cuzk_r1cs *r, const uint64_t *seed,            \
                                   cuzk_pool *pool, const char *path, uint8_t **out,    \
                                   size_t *size, cuzk_error *err) {                     \
        return P##_setup_and_write(r, seed, pool, path, out, size, err);                \
    }                                                                                   \
    static cuzk_status P##_timing_write_any(const cuzk_r1cs *r, uint64_t seed,          \
                                            cuzk_pool *pool, const char *path,          \
                                            cuzk_error *err) {                          \
        P##_dev_key k;                                                                  \
        cuzk_status st = P##_setup_timing(&k, r, seed, pool, err);                      \
        if (st != CUZK_OK)                                                              \
            return st;                                                                  \
        st = P##_dev_key_write_file(&k, path, err);                                     \
        P##_dev_key_free(&k);                                                           \
        return st;                                                                      \
    }                                                                                   \
    static cuzk_status P##_key_generate_any(cuzk_key *out, const cuzk_r1cs *r,          \
                                            uint64_t seed, int timing, cuzk_pool *pool, \
                                            cuzk_error *err) {                          \
        P##_dev_key k;                                                                  \
        cuzk_status st;                                                                 \
        if (timing) {                                                                   \
            st = P##_setup_timing(&k, r, seed, pool, err);                              \
        } else {                                                                        \
            P##_setup_toxic t;                                                          \
            st = P##_setup_toxic_draw(&t, &seed, err);                                  \
            if (st == CUZK_OK)                                                          \
                st = P##_setup_dev(&k, r, &t, pool, err);                               \
        }                                                                               \
        if (st != CUZK_OK)                                                              \
            return st;                                                                  \
        /* the key's one block passes to |out| (cuzk_key_free frees it) */              \
        memset(out, 0, sizeof *out);                                                    \
        out->curve = ID;                                                                \
        out->pk.P = k.pk;                                                               \
        out->mem = k.mem;                                                               \
        out->mem_bytes = k.mem_bytes;                                                   \
        return CUZK_OK;                                                                 \
    }                                                                                   \
    const cuzk_setup_table P##_setup_table = {P##_dev_any, P##_timing_write_any,        \
                                              P##_key_generate_any};
SETUP_TABLE(bls12_381, CUZK_CURVE_BLS12_381)
SETUP_TABLE(bn254, CUZK_CURVE_BN254)
#undef SETUP_TABLE

static const cuzk_setup_table *const by_id[] = {
    [CUZK_CURVE_BN254] = &bn254_setup_table,
    [CUZK_CURVE_BLS12_381] = &bls12_381_setup_table,
};

const cuzk_setup_table *cuzk_setup_table_get(cuzk_curve c) {
    /* unsigned: a negative value read from a corrupt struct is out of range too */
    return (unsigned)c < sizeof by_id / sizeof by_id[0] ? by_id[(unsigned)c] : NULL;
}

static cuzk_status setup_dispatch(const cuzk_r1cs *r, const uint64_t *seed,
                                  cuzk_pool *pool, const char *path,
                                  uint8_t **out, size_t *size, cuzk_error *err) {
    const cuzk_setup_table *t = cuzk_setup_table_get(r->curve);
    if (t == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "setup: the r1cs has no known curve");
    return t->dev(r, seed, pool, path, out, size, err);
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
    const cuzk_setup_table *t = cuzk_setup_table_get(r.curve);
    st = t ? t->timing_write(&r, seed, pool, zkey_path, err)
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
