/*
 * Instantiates the group law (curve_template.h) for the four groups and holds
 * what differs between them: the constants b, the generators, and the
 * subgroup-membership tests with the endomorphisms they use.  All constants
 * come from field/consts_gen.h (scripts/gen_consts.py derives them and
 * checks the endomorphism constants on the generators); tests/test_curve.c
 * checks every fast subgroup test against the slow [r]P == O.
 *
 * Must not: allocate, keep state, or validate inputs (that is encode.c's
 * job); every function assumes valid points as curve.h says.
 */
#include "curve/curve.h"

#include <string.h>

#include "field/consts_gen.h"

/* consts_gen.h writes an Fp2 constant as {{{c0 limbs}, {c1 limbs}}}, which
 * initialises a uint64_t[1][2][N] but not the struct; a union bridges it. */
typedef union {
    uint64_t raw[1][2][6];
    bls12_381_fp2 v;
} bls12_381_fp2_const;
typedef union {
    uint64_t raw[1][2][4];
    bn254_fp2 v;
} bn254_fp2_const;

/* ---- constants ------------------------------------------------------------- */

static const bls12_381_fp bls12_381_b = {BLS12_381_B_MONT};
static const bls12_381_fp bls12_381_g1_x = {BLS12_381_G1X_MONT};
static const bls12_381_fp bls12_381_g1_y = {BLS12_381_G1Y_MONT};
static const bls12_381_fp bls12_381_beta = {BLS12_381_G1_BETA_MONT};
static const bls12_381_fp2_const bls12_381_b2 = {BLS12_381_B2_MONT};
static const bls12_381_fp2_const bls12_381_g2_x = {BLS12_381_G2X_MONT};
static const bls12_381_fp2_const bls12_381_g2_y = {BLS12_381_G2Y_MONT};
static const bls12_381_fp2_const bls12_381_psi_cx = {BLS12_381_PSI_CX_MONT};
static const bls12_381_fp2_const bls12_381_psi_cy = {BLS12_381_PSI_CY_MONT};

static const bn254_fp bn254_b = {BN254_B_MONT};
static const bn254_fp bn254_g1_x = {BN254_G1X_MONT};
static const bn254_fp bn254_g1_y = {BN254_G1Y_MONT};
static const bn254_fp2_const bn254_b2 = {BN254_B2_MONT};
static const bn254_fp2_const bn254_g2_x = {BN254_G2X_MONT};
static const bn254_fp2_const bn254_g2_y = {BN254_G2Y_MONT};
static const bn254_fp2_const bn254_psi_cx = {BN254_PSI_CX_MONT};
static const bn254_fp2_const bn254_psi_cy = {BN254_PSI_CY_MONT};

/* ---- the four groups ------------------------------------------------------- */

#define G bls12_381_g1
#define F bls12_381_fp
#define S bls12_381_fr
#define CURVE_B (&bls12_381_b)
#define CURVE_GEN_X (&bls12_381_g1_x)
#define CURVE_GEN_Y (&bls12_381_g1_y)
#define CURVE_SUBGROUP bls12_381_g1_subgroup
#include "curve/curve_template.h"
#undef G
#undef F
#undef S
#undef CURVE_B
#undef CURVE_GEN_X
#undef CURVE_GEN_Y
#undef CURVE_SUBGROUP

#define G bls12_381_g2
#define F bls12_381_fp2
#define S bls12_381_fr
#define CURVE_B (&bls12_381_b2.v)
#define CURVE_GEN_X (&bls12_381_g2_x.v)
#define CURVE_GEN_Y (&bls12_381_g2_y.v)
#define CURVE_SUBGROUP bls12_381_g2_subgroup
#include "curve/curve_template.h"
#undef G
#undef F
#undef S
#undef CURVE_B
#undef CURVE_GEN_X
#undef CURVE_GEN_Y
#undef CURVE_SUBGROUP

#define G bn254_g1
#define F bn254_fp
#define S bn254_fr
#define CURVE_B (&bn254_b)
#define CURVE_GEN_X (&bn254_g1_x)
#define CURVE_GEN_Y (&bn254_g1_y)
#define CURVE_SUBGROUP bn254_g1_subgroup
#include "curve/curve_template.h"
#undef G
#undef F
#undef S
#undef CURVE_B
#undef CURVE_GEN_X
#undef CURVE_GEN_Y
#undef CURVE_SUBGROUP

#define G bn254_g2
#define F bn254_fp2
#define S bn254_fr
#define CURVE_B (&bn254_b2.v)
#define CURVE_GEN_X (&bn254_g2_x.v)
#define CURVE_GEN_Y (&bn254_g2_y.v)
#define CURVE_SUBGROUP bn254_g2_subgroup
#include "curve/curve_template.h"
#undef G
#undef F
#undef S
#undef CURVE_B
#undef CURVE_GEN_X
#undef CURVE_GEN_Y
#undef CURVE_SUBGROUP

/* ---- endomorphisms ---------------------------------------------------------- */

void bls12_381_g1_phi(bls12_381_g1 *r, const bls12_381_g1 *a) {
    /* x = X/Z^2 scales with X, so phi multiplies X alone. */
    bls12_381_fp_mul(&r->X, &a->X, &bls12_381_beta);
    r->Y = a->Y;
    r->Z = a->Z;
}

/* Frobenius of Fp2 is conjugation (u^p = -u since p = 3 mod 4); on Jacobian
 * coordinates psi is conj on all three and the twist factors on X and Y. */
void bls12_381_g2_psi(bls12_381_g2 *r, const bls12_381_g2 *a) {
    bls12_381_fp2_conj(&r->X, &a->X);
    bls12_381_fp2_mul(&r->X, &r->X, &bls12_381_psi_cx.v);
    bls12_381_fp2_conj(&r->Y, &a->Y);
    bls12_381_fp2_mul(&r->Y, &r->Y, &bls12_381_psi_cy.v);
    bls12_381_fp2_conj(&r->Z, &a->Z);
}

void bn254_g2_psi(bn254_g2 *r, const bn254_g2 *a) {
    bn254_fp2_conj(&r->X, &a->X);
    bn254_fp2_mul(&r->X, &r->X, &bn254_psi_cx.v);
    bn254_fp2_conj(&r->Y, &a->Y);
    bn254_fp2_mul(&r->Y, &r->Y, &bn254_psi_cy.v);
    bn254_fp2_conj(&r->Z, &a->Z);
}

/* ---- subgroup tests ----------------------------------------------------------
 *
 * Each is called with a finite point already known to be on the curve.
 *
 * BLS12-381 G1: phi(P) == [-x^2] P.  phi has order 3 and acts on G1 as the
 * cube root of unity -x^2 mod r (x^4 - x^2 + 1 = r, so (-x^2)^2 + (-x^2) + 1
 * = 0 mod r); gen_consts.py picks the beta for which this holds.  That the
 * equation also rejects every point with a component outside G1 is Scott's
 * test (ePrint 2021/1130, sec. 6), proved for BLS12-381 in El Housni,
 * Guillevic, Piellard (ePrint 2022/352, sec. 4); EIP-2537 uses the same
 * check.  Cost: a 128-bit multiplication (two by |x|) instead of a 255-bit
 * one.
 *
 * BLS12-381 G2: psi(P) == [x] P.  psi acts on G2 as p mod r = x mod r;
 * sufficiency is again Scott 2021 / ePrint 2022/352.  Cost: one 64-bit
 * multiplication.
 *
 * BN254 G1: cofactor 1, every curve point is in G1.
 *
 * BN254 G2: [u+1]P + psi([u]P) + psi^2([u]P) == psi^3([2u]P), the test of
 * Dai, Lin, Zhao, Zhou (ePrint 2022/348), valid for BN curves with
 * u != 4 mod 13 and u != 92 mod 97 (asserted in gen_consts.py).  It costs
 * one 63-bit multiplication, where psi(P) == [6u^2]P would need 127 bits and
 * [r]P == O 254 bits.
 *
 * tests/test_curve.c checks each against [r]P == O on subgroup points, on
 * random curve points (cofactor not cleared) and on points with a
 * component of each small prime order dividing the cofactor.
 */

static int bls12_381_g1_subgroup(const bls12_381_g1 *p) {
    static const uint64_t x_abs = BLS12_381_X_ABS;
    bls12_381_g1 t, phi;
    bls12_381_g1_mul_limbs(&t, p, &x_abs, 1);
    bls12_381_g1_mul_limbs(&t, &t, &x_abs, 1);   /* [x^2] P */
    bls12_381_g1_phi(&phi, p);
    bls12_381_g1_neg(&phi, &phi);                /* -phi(P) */
    return bls12_381_g1_eq(&t, &phi);
}

static int bls12_381_g2_subgroup(const bls12_381_g2 *p) {
    static const uint64_t x_abs = BLS12_381_X_ABS;
    bls12_381_g2 t, psi;
    bls12_381_g2_mul_limbs(&t, p, &x_abs, 1);    /* [|x|] P = -[x] P */
    bls12_381_g2_neg(&t, &t);
    bls12_381_g2_psi(&psi, p);
    return bls12_381_g2_eq(&t, &psi);
}

static int bn254_g1_subgroup(const bn254_g1 *p) {
    (void)p;
    return 1;
}

static int bn254_g2_subgroup(const bn254_g2 *p) {
    static const uint64_t u = BN254_U;
    bn254_g2 up, lhs, t, rhs;
    bn254_g2_mul_limbs(&up, p, &u, 1);   /* [u] P */
    bn254_g2_add(&lhs, &up, p);          /* [u+1] P */
    bn254_g2_psi(&t, &up);               /* psi([u] P) */
    bn254_g2_add(&lhs, &lhs, &t);
    bn254_g2_psi(&t, &t);                /* psi^2([u] P) */
    bn254_g2_add(&lhs, &lhs, &t);
    bn254_g2_psi(&rhs, &t);              /* psi^3([u] P) */
    bn254_g2_dbl(&rhs, &rhs);            /* psi^3([2u] P) */
    return bn254_g2_eq(&lhs, &rhs);
}
