/*
 * Instantiates the Fp6/Fp12 towers of both curves (see tower.h) from the one
 * template tower_template.h, which takes the carry intrinsics of field_impl.h for
 * its inline additions.  The Frobenius coefficients come from consts_gen.h,
 * which scripts/gen_consts.py derives; tests/test_tower.c checks every power
 * map against a^(p^k) computed by plain exponentiation, so a wrong
 * coefficient cannot pass.
 */
#include "field/tower.h"

#include <string.h>

#include "field/consts_gen.h"
#include "field/field_impl.h"

#define TW_P bls12_381
#define TW_C(x) BLS12_381_##x
#define TW_N 6
#define TW_XI_C0 1
#include "field/tower_template.h"
#undef TW_P
#undef TW_C
#undef TW_N
#undef TW_XI_C0

#define TW_P bn254
#define TW_C(x) BN254_##x
#define TW_N 4
#define TW_XI_C0 9
#include "field/tower_template.h"
#undef TW_P
#undef TW_C
#undef TW_N
#undef TW_XI_C0
