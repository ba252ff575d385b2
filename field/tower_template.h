/*
 * Fp6 and Fp12 arithmetic written once, stamped out per curve by tower.c.
 *
 * Before including, define:
 *   TW_P        the curve prefix (bls12_381 or bn254); types P_fp, P_fp2,
 *               P_fp6, P_fp12 and their functions are derived from it
 *   TW_C(x)     the constant x of that curve in consts_gen.h (FROB1_1, ...)
 *   TW_N        the limb count of the curve's Fp
 *   TW_XI_C0    the real part of xi = TW_XI_C0 + u as a small integer
 * The algorithms follow Devegili, O hEigeartaigh, Scott and Dahab,
 * "Multiplication and Squaring on Pairing-Friendly Fields" (ePrint 2006/471)
 * for Karatsuba products and Chung-Hasan squaring, and Granger and Scott,
 * "Faster Squaring in the Cyclotomic Subgroup of Sixth Degree Extensions"
 * (PKC 2010) for cyclotomic squaring.  Costs are given in Fp2 products (M)
 * and squarings (S); additions are not counted.
 * Must not: allocate, keep state, or call anything outside field/.
 */
#include "util/paste.h"
#define F CUZK_PASTE(TW_P, fp)
#define E CUZK_PASTE(TW_P, fp2)
#define T6 CUZK_PASTE(TW_P, fp6)
#define T12 CUZK_PASTE(TW_P, fp12)
#define FP(x) CUZK_PASTE(F, x)
#define E2(x) CUZK_PASTE(E, x)
#define F6(x) CUZK_PASTE(T6, x)
#define F12(x) CUZK_PASTE(T12, x)
#define TWS(x) CUZK_PASTE(TW_P, CUZK_PASTE(tw, x)) /* names of file-local helpers */

/* consts_gen.h writes an Fp2 constant as {{{c0 limbs}, {c1 limbs}}}, the
 * initializer of a uint64_t[2][N]; the union gives it the Fp2 type. */
typedef union {
    uint64_t v[2][TW_N];
    E e;
} TWS(fp2c);

/* gamma[k][i] = xi^(i (p^k - 1) / 6), the factor w^i picks up under the
 * p^k-power map (w^(p^k) = w * (w^6)^((p^k-1)/6)).  Index 0 is unused. */
static const TWS(fp2c) TWS(gamma)[4][6] = {
    {{{{0}}}},
    {{{{0}}}, TW_C(FROB1_1), TW_C(FROB1_2), TW_C(FROB1_3), TW_C(FROB1_4), TW_C(FROB1_5)},
    {{{{0}}}, TW_C(FROB2_1), TW_C(FROB2_2), TW_C(FROB2_3), TW_C(FROB2_4), TW_C(FROB2_5)},
    {{{{0}}}, TW_C(FROB3_1), TW_C(FROB3_2), TW_C(FROB3_3), TW_C(FROB3_4), TW_C(FROB3_5)},
};

/* ---- Inline Fp and Fp2 arithmetic --------------------------------------- */
/*
 * The tower performs about four Fp additions per Fp product (Karatsuba trades
 * products for additions at every level), so the additions must be cheap.
 * The out-of-line field.h additions cost a call each and, in gcc -O3 builds,
 * a vectorised select in field_impl.h's reduction that stalls on store
 * forwarding; measured on the development machine, these inline versions
 * make a whole pairing about 30% faster.  They compute exactly what
 * F_add / F_sub do (fully reduced in and out, p < 2^(64N-1)), with three
 * carry chains and no select.  The products stay field.h's F_mul (the
 * mulx/adx code).  If field/ gains inline additions, use those instead.
 */
static const uint64_t TWS(p)[TW_N] = TW_C(FP_P);

/* r = a + b mod p: t = a + b (no carry out since a + b < 2p < 2^(64N)),
 * t -= p, and add p back if that borrowed. */
static inline __attribute__((always_inline)) void TWS(add)(F *r, const F *a,
                                                           const F *b) {
    uint64_t t[TW_N];
    unsigned char c = 0, bo = 0;
    for (int i = 0; i < TW_N; i++)
        c = CUZK_ADDC(c, a->l[i], b->l[i], &t[i]);
    for (int i = 0; i < TW_N; i++)
        bo = CUZK_SUBB(bo, t[i], TWS(p)[i], &t[i]);
    uint64_t mask = 0 - (uint64_t)bo;
    c = 0;
    for (int i = 0; i < TW_N; i++)
        c = CUZK_ADDC(c, t[i], TWS(p)[i] & mask, &r->l[i]);
}

/* r = a - b mod p: subtract, and add p back if that borrowed. */
static inline __attribute__((always_inline)) void TWS(sub)(F *r, const F *a,
                                                           const F *b) {
    uint64_t t[TW_N];
    unsigned char c = 0, bo = 0;
    for (int i = 0; i < TW_N; i++)
        bo = CUZK_SUBB(bo, a->l[i], b->l[i], &t[i]);
    uint64_t mask = 0 - (uint64_t)bo;
    for (int i = 0; i < TW_N; i++)
        c = CUZK_ADDC(c, t[i], TWS(p)[i] & mask, &r->l[i]);
}

static inline __attribute__((always_inline)) void TWS(add2)(E *r, const E *a,
                                                            const E *b) {
    TWS(add)(&r->c0, &a->c0, &b->c0);
    TWS(add)(&r->c1, &a->c1, &b->c1);
}
static inline __attribute__((always_inline)) void TWS(sub2)(E *r, const E *a,
                                                            const E *b) {
    TWS(sub)(&r->c0, &a->c0, &b->c0);
    TWS(sub)(&r->c1, &a->c1, &b->c1);
}
static inline __attribute__((always_inline)) void TWS(dbl2)(E *r, const E *a) {
    TWS(add)(&r->c0, &a->c0, &a->c0);
    TWS(add)(&r->c1, &a->c1, &a->c1);
}

/* Fp2 product and square, the same formulas as fp2_template.h with the inline
 * additions: Karatsuba 3 products, and (a0 + a1)(a0 - a1) + 2 a0 a1 u with
 * 2 products.  r may alias a and b. */
static void TWS(mul2)(E *r, const E *a, const E *b) {
    F t0, t1, s0, s1;
    FP(mul)(&t0, &a->c0, &b->c0);
    FP(mul)(&t1, &a->c1, &b->c1);
    TWS(add)(&s0, &a->c0, &a->c1);
    TWS(add)(&s1, &b->c0, &b->c1);
    FP(mul)(&s0, &s0, &s1);
    TWS(sub)(&r->c0, &t0, &t1);
    TWS(sub)(&s0, &s0, &t0);
    TWS(sub)(&r->c1, &s0, &t1);
}
static void TWS(sqr2)(E *r, const E *a) {
    F s, d, m;
    TWS(add)(&s, &a->c0, &a->c1);
    TWS(sub)(&d, &a->c0, &a->c1);
    FP(mul)(&m, &a->c0, &a->c1);
    FP(mul)(&r->c0, &s, &d);
    TWS(add)(&r->c1, &m, &m);
}

/* ---- Fp2 helpers --------------------------------------------------------- */

/* r = a * xi with xi = k + u, k = TW_XI_C0 small:
 * (a0 + a1 u)(k + u) = (k a0 - a1) + (k a1 + a0) u.
 * k a is formed by additions (k = 1: nothing; k = 9: three doublings and an
 * addition), which is cheaper than two Montgomery products. */
static void TWS(fp_mul_k)(F *r, const F *a) {
#if TW_XI_C0 == 1
    *r = *a;
#elif TW_XI_C0 == 9
    F t;
    TWS(add)(&t, a, a);
    TWS(add)(&t, &t, &t);
    TWS(add)(&t, &t, &t);
    TWS(add)(r, &t, a);
#else
#error "TW_XI_C0: add its addition chain here"
#endif
}

static void TWS(mul_xi)(E *r, const E *a) {
    F k0, k1;
    TWS(fp_mul_k)(&k0, &a->c0);
    TWS(fp_mul_k)(&k1, &a->c1);
    TWS(sub)(&k0, &k0, &a->c1);
    TWS(add)(&r->c1, &k1, &a->c0);
    r->c0 = k0;
}

/* r = a^(p^k) on Fp2: conjugation for odd k, identity for even k. */
static void TWS(fp2_frob)(E *r, const E *a, unsigned k) {
    if (k & 1)
        E2(conj)(r, a);
    else
        *r = *a;
}

/* r = a * gamma[k][i]; for k = 2 the constant lies in Fp (half the cost). */
static void TWS(mul_gamma)(E *r, const E *a, unsigned k, unsigned i) {
    const E *g = &TWS(gamma)[k][i].e;
    if (k == 2)
        E2(mul_fp)(r, a, &g->c0);
    else
        TWS(mul2)(r, a, g);
}

/* ---- Fp6 ----------------------------------------------------------------- */

void F6(add)(T6 *r, const T6 *a, const T6 *b) {
    TWS(add2)(&r->c0, &a->c0, &b->c0);
    TWS(add2)(&r->c1, &a->c1, &b->c1);
    TWS(add2)(&r->c2, &a->c2, &b->c2);
}
void F6(sub)(T6 *r, const T6 *a, const T6 *b) {
    TWS(sub2)(&r->c0, &a->c0, &b->c0);
    TWS(sub2)(&r->c1, &a->c1, &b->c1);
    TWS(sub2)(&r->c2, &a->c2, &b->c2);
}
void F6(neg)(T6 *r, const T6 *a) {
    E2(neg)(&r->c0, &a->c0);
    E2(neg)(&r->c1, &a->c1);
    E2(neg)(&r->c2, &a->c2);
}
void F6(dbl)(T6 *r, const T6 *a) {
    TWS(dbl2)(&r->c0, &a->c0);
    TWS(dbl2)(&r->c1, &a->c1);
    TWS(dbl2)(&r->c2, &a->c2);
}
void F6(set_zero)(T6 *r) {
    E2(set_zero)(&r->c0);
    E2(set_zero)(&r->c1);
    E2(set_zero)(&r->c2);
}
void F6(set_one)(T6 *r) {
    E2(set_one)(&r->c0);
    E2(set_zero)(&r->c1);
    E2(set_zero)(&r->c2);
}
int F6(is_zero)(const T6 *a) {
    return E2(is_zero)(&a->c0) & E2(is_zero)(&a->c1) & E2(is_zero)(&a->c2);
}
int F6(is_one)(const T6 *a) {
    return E2(is_one)(&a->c0) & E2(is_zero)(&a->c1) & E2(is_zero)(&a->c2);
}
int F6(eq)(const T6 *a, const T6 *b) {
    return E2(eq)(&a->c0, &b->c0) & E2(eq)(&a->c1, &b->c1) &
           E2(eq)(&a->c2, &b->c2);
}

/* (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2, since v^3 = xi. */
void F6(mul_by_nonresidue)(T6 *r, const T6 *a) {
    E t;
    TWS(mul_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void F6(mul_fp2)(T6 *r, const T6 *a, const E *b) { /* 3M */
    TWS(mul2)(&r->c0, &a->c0, b);
    TWS(mul2)(&r->c1, &a->c1, b);
    TWS(mul2)(&r->c2, &a->c2, b);
}

void F6(mul)(T6 *r, const T6 *a, const T6 *b) {
    /* Karatsuba over three terms (Devegili et al. sec. 4), 6M:
     *   v0 = a0 b0, v1 = a1 b1, v2 = a2 b2
     *   r0 = v0 + xi ((a1 + a2)(b1 + b2) - v1 - v2)
     *   r1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2
     *   r2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1 */
    E v0, v1, v2, s, t, r0, r1;
    TWS(mul2)(&v0, &a->c0, &b->c0);
    TWS(mul2)(&v1, &a->c1, &b->c1);
    TWS(mul2)(&v2, &a->c2, &b->c2);

    TWS(add2)(&s, &a->c1, &a->c2);
    TWS(add2)(&t, &b->c1, &b->c2);
    TWS(mul2)(&s, &s, &t);
    TWS(sub2)(&s, &s, &v1);
    TWS(sub2)(&s, &s, &v2);
    TWS(mul_xi)(&s, &s);
    TWS(add2)(&r0, &s, &v0);

    TWS(add2)(&s, &a->c0, &a->c1);
    TWS(add2)(&t, &b->c0, &b->c1);
    TWS(mul2)(&s, &s, &t);
    TWS(sub2)(&s, &s, &v0);
    TWS(sub2)(&s, &s, &v1);
    TWS(mul_xi)(&t, &v2);
    TWS(add2)(&r1, &s, &t);

    TWS(add2)(&s, &a->c0, &a->c2);
    TWS(add2)(&t, &b->c0, &b->c2);
    TWS(mul2)(&s, &s, &t);
    TWS(sub2)(&s, &s, &v0);
    TWS(sub2)(&s, &s, &v2);
    TWS(add2)(&r->c2, &s, &v1);
    r->c0 = r0;
    r->c1 = r1;
}

void F6(sqr)(T6 *r, const T6 *a) {
    /* Chung-Hasan SQR2 (Devegili et al. sec. 4.2), 2M + 3S:
     *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
     *   r0 = s0 + xi s3, r1 = s1 + xi s4, r2 = s1 + s2 + s3 - s0 - s4 */
    E s0, s1, s2, s3, s4, t;
    TWS(sqr2)(&s0, &a->c0);
    TWS(mul2)(&s1, &a->c0, &a->c1);
    TWS(dbl2)(&s1, &s1);
    TWS(sub2)(&s2, &a->c0, &a->c1);
    TWS(add2)(&s2, &s2, &a->c2);
    TWS(sqr2)(&s2, &s2);
    TWS(mul2)(&s3, &a->c1, &a->c2);
    TWS(dbl2)(&s3, &s3);
    TWS(sqr2)(&s4, &a->c2);

    TWS(mul_xi)(&t, &s3);
    TWS(add2)(&r->c0, &s0, &t);
    TWS(mul_xi)(&t, &s4);
    TWS(add2)(&r->c1, &s1, &t);
    TWS(add2)(&t, &s1, &s2);
    TWS(add2)(&t, &t, &s3);
    TWS(sub2)(&t, &t, &s0);
    TWS(sub2)(&r->c2, &t, &s4);
}

/* a (b0 + b1 v): the Karatsuba product with b2 = 0, 5M:
 *   r0 = a0 b0 + xi a2 b1, r1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 *   r2 = a2 b0 + a1 b1 */
void F6(mul_by_01)(T6 *r, const T6 *a, const E *b0, const E *b1) {
    E v0, v1, s, t, r0, r1;
    TWS(mul2)(&v0, &a->c0, b0);
    TWS(mul2)(&v1, &a->c1, b1);

    TWS(mul2)(&s, &a->c2, b1);
    TWS(mul_xi)(&s, &s);
    TWS(add2)(&r0, &s, &v0);

    TWS(add2)(&s, &a->c0, &a->c1);
    TWS(add2)(&t, b0, b1);
    TWS(mul2)(&s, &s, &t);
    TWS(sub2)(&s, &s, &v0);
    TWS(sub2)(&r1, &s, &v1);

    TWS(mul2)(&s, &a->c2, b0);
    TWS(add2)(&r->c2, &s, &v1);
    r->c0 = r0;
    r->c1 = r1;
}

/* a (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2, 3M. */
void F6(mul_by_1)(T6 *r, const T6 *a, const E *b1) {
    E t;
    TWS(mul2)(&t, &a->c2, b1);
    TWS(mul_xi)(&t, &t);
    TWS(mul2)(&r->c2, &a->c1, b1);
    TWS(mul2)(&r->c1, &a->c0, b1);
    r->c0 = t;
}

static void TWS(fp6_inv_with)(T6 *r, const T6 *a, void (*inv)(E *, const E *)) {
    /* With t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2,
     * a (t0 + t1 v + t2 v^2) = a0 t0 + xi (a2 t1 + a1 t2), an element of
     * Fp2 (the other coefficients cancel), so
     * a^-1 = (t0 + t1 v + t2 v^2) / (a0 t0 + xi (a2 t1 + a1 t2)).
     * 9M + 3S and one Fp2 inversion; 0 maps to 0. */
    E t0, t1, t2, s, d;
    TWS(sqr2)(&t0, &a->c0);
    TWS(mul2)(&s, &a->c1, &a->c2);
    TWS(mul_xi)(&s, &s);
    TWS(sub2)(&t0, &t0, &s);

    TWS(sqr2)(&t1, &a->c2);
    TWS(mul_xi)(&t1, &t1);
    TWS(mul2)(&s, &a->c0, &a->c1);
    TWS(sub2)(&t1, &t1, &s);

    TWS(sqr2)(&t2, &a->c1);
    TWS(mul2)(&s, &a->c0, &a->c2);
    TWS(sub2)(&t2, &t2, &s);

    TWS(mul2)(&d, &a->c2, &t1);
    TWS(mul2)(&s, &a->c1, &t2);
    TWS(add2)(&d, &d, &s);
    TWS(mul_xi)(&d, &d);
    TWS(mul2)(&s, &a->c0, &t0);
    TWS(add2)(&d, &d, &s);
    inv(&d, &d);

    TWS(mul2)(&r->c0, &t0, &d);
    TWS(mul2)(&r->c1, &t1, &d);
    TWS(mul2)(&r->c2, &t2, &d);
}
void F6(inv)(T6 *r, const T6 *a) { TWS(fp6_inv_with)(r, a, E2(inv)); }
void F6(inv_var)(T6 *r, const T6 *a) { TWS(fp6_inv_with)(r, a, E2(inv_var)); }

/* One p^k-power pass, k in 1..3: (c0 + c1 v + c2 v^2)^(p^k) =
 * phi(c0) + phi(c1) gamma[k][2] v + phi(c2) gamma[k][4] v^2 (v = w^2). */
static void TWS(fp6_frob_k)(T6 *r, const T6 *a, unsigned k) {
    TWS(fp2_frob)(&r->c0, &a->c0, k);
    TWS(fp2_frob)(&r->c1, &a->c1, k);
    TWS(mul_gamma)(&r->c1, &r->c1, k, 2);
    TWS(fp2_frob)(&r->c2, &a->c2, k);
    TWS(mul_gamma)(&r->c2, &r->c2, k, 4);
}

void F6(frobenius)(T6 *r, const T6 *a, unsigned power) {
    unsigned k = power % 6;
    *r = *a;
    while (k > 0) {
        unsigned step = k >= 3 ? 3 : k;
        TWS(fp6_frob_k)(r, r, step);
        k -= step;
    }
}

/* ---- Fp12 ---------------------------------------------------------------- */

void F12(add)(T12 *r, const T12 *a, const T12 *b) {
    F6(add)(&r->c0, &a->c0, &b->c0);
    F6(add)(&r->c1, &a->c1, &b->c1);
}
void F12(sub)(T12 *r, const T12 *a, const T12 *b) {
    F6(sub)(&r->c0, &a->c0, &b->c0);
    F6(sub)(&r->c1, &a->c1, &b->c1);
}
void F12(neg)(T12 *r, const T12 *a) {
    F6(neg)(&r->c0, &a->c0);
    F6(neg)(&r->c1, &a->c1);
}
void F12(conj)(T12 *r, const T12 *a) {
    r->c0 = a->c0;
    F6(neg)(&r->c1, &a->c1);
}
void F12(set_zero)(T12 *r) {
    F6(set_zero)(&r->c0);
    F6(set_zero)(&r->c1);
}
void F12(set_one)(T12 *r) {
    F6(set_one)(&r->c0);
    F6(set_zero)(&r->c1);
}
int F12(is_zero)(const T12 *a) { return F6(is_zero)(&a->c0) & F6(is_zero)(&a->c1); }
int F12(is_one)(const T12 *a) { return F6(is_one)(&a->c0) & F6(is_zero)(&a->c1); }
int F12(eq)(const T12 *a, const T12 *b) {
    return F6(eq)(&a->c0, &b->c0) & F6(eq)(&a->c1, &b->c1);
}

/* (a0 + a1 w) w = a1 v + a0 w, since w^2 = v. */
void F12(mul_by_nonresidue)(T12 *r, const T12 *a) {
    T6 t;
    F6(mul_by_nonresidue)(&t, &a->c1);
    r->c1 = a->c0;
    r->c0 = t;
}

void F12(mul)(T12 *r, const T12 *a, const T12 *b) {
    /* Karatsuba over Fp6, 18M:
     *   t0 = a0 b0, t1 = a1 b1, r0 = t0 + v t1,
     *   r1 = (a0 + a1)(b0 + b1) - t0 - t1 */
    T6 t0, t1, s, t;
    F6(mul)(&t0, &a->c0, &b->c0);
    F6(mul)(&t1, &a->c1, &b->c1);
    F6(add)(&s, &a->c0, &a->c1);
    F6(add)(&t, &b->c0, &b->c1);
    F6(mul)(&s, &s, &t);
    F6(sub)(&s, &s, &t0);
    F6(sub)(&r->c1, &s, &t1);
    F6(mul_by_nonresidue)(&t1, &t1);
    F6(add)(&r->c0, &t0, &t1);
}

void F12(sqr)(T12 *r, const T12 *a) {
    /* Complex squaring (Devegili et al. sec. 3), 12M:
     *   t = a0 a1, r0 = (a0 + a1)(a0 + v a1) - t - v t, r1 = 2 t */
    T6 t, s, u;
    F6(mul)(&t, &a->c0, &a->c1);
    F6(add)(&s, &a->c0, &a->c1);
    F6(mul_by_nonresidue)(&u, &a->c1);
    F6(add)(&u, &u, &a->c0);
    F6(mul)(&s, &s, &u);
    F6(sub)(&s, &s, &t);
    F6(mul_by_nonresidue)(&u, &t);
    F6(sub)(&r->c0, &s, &u);
    F6(dbl)(&r->c1, &t);
}

static void TWS(fp12_inv_with)(T12 *r, const T12 *a,
                               void (*inv6)(T6 *, const T6 *)) {
    /* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2): 12M + 6S + one Fp6
     * inversion. */
    T6 t0, t1;
    F6(sqr)(&t0, &a->c0);
    F6(sqr)(&t1, &a->c1);
    F6(mul_by_nonresidue)(&t1, &t1);
    F6(sub)(&t0, &t0, &t1);
    inv6(&t0, &t0);
    F6(mul)(&r->c0, &a->c0, &t0);
    F6(mul)(&t1, &a->c1, &t0);
    F6(neg)(&r->c1, &t1);
}
void F12(inv)(T12 *r, const T12 *a) { TWS(fp12_inv_with)(r, a, F6(inv)); }
void F12(inv_var)(T12 *r, const T12 *a) { TWS(fp12_inv_with)(r, a, F6(inv_var)); }

/* One p^k-power pass, k in 1..3.  The c0 half holds w^0, w^2, w^4 and is an
 * Fp6 element; the c1 half holds w^1, w^3, w^5 and picks up gamma[k][1, 3, 5]. */
static void TWS(fp12_frob_k)(T12 *r, const T12 *a, unsigned k) {
    TWS(fp6_frob_k)(&r->c0, &a->c0, k);
    TWS(fp2_frob)(&r->c1.c0, &a->c1.c0, k);
    TWS(mul_gamma)(&r->c1.c0, &r->c1.c0, k, 1);
    TWS(fp2_frob)(&r->c1.c1, &a->c1.c1, k);
    TWS(mul_gamma)(&r->c1.c1, &r->c1.c1, k, 3);
    TWS(fp2_frob)(&r->c1.c2, &a->c1.c2, k);
    TWS(mul_gamma)(&r->c1.c2, &r->c1.c2, k, 5);
}

void F12(frobenius)(T12 *r, const T12 *a, unsigned power) {
    unsigned k = power % 12;
    *r = *a;
    if (k == 6) { /* the p^6-power map is conjugation */
        F12(conj)(r, r);
        return;
    }
    while (k > 0) {
        unsigned step = k >= 3 ? 3 : k;
        TWS(fp12_frob_k)(r, r, step);
        k -= step;
    }
}

void F12(mul_by_014)(T12 *r, const T12 *a, const E *c0, const E *c1,
                     const E *c4) {
    /* b = b0 + b1 w with b0 = c0 + c1 v and b1 = c4 v.  Karatsuba as in
     * F12(mul) with sparse factors, 5M + 3M + 5M = 13M:
     *   t0 = a0 b0, t1 = a1 b1, r1 = (a0 + a1)(b0 + b1) - t0 - t1,
     *   r0 = t0 + v t1 */
    T6 t0, t1, s;
    E e;
    F6(mul_by_01)(&t0, &a->c0, c0, c1);
    F6(mul_by_1)(&t1, &a->c1, c4);
    F6(add)(&s, &a->c0, &a->c1);
    TWS(add2)(&e, c1, c4);
    F6(mul_by_01)(&s, &s, c0, &e);
    F6(sub)(&s, &s, &t0);
    F6(sub)(&r->c1, &s, &t1);
    F6(mul_by_nonresidue)(&t1, &t1);
    F6(add)(&r->c0, &t0, &t1);
}

void F12(mul_by_034)(T12 *r, const T12 *a, const E *c0, const E *c3,
                     const E *c4) {
    /* b = b0 + b1 w with b0 = c0 (in Fp2) and b1 = c3 + c4 v, 3M + 5M + 5M:
     *   t0 = a0 c0, t1 = a1 b1, r1 = (a0 + a1)(c0 + c3 + c4 v) - t0 - t1,
     *   r0 = t0 + v t1 */
    T6 t0, t1, s;
    E e;
    F6(mul_fp2)(&t0, &a->c0, c0);
    F6(mul_by_01)(&t1, &a->c1, c3, c4);
    F6(add)(&s, &a->c0, &a->c1);
    TWS(add2)(&e, c0, c3);
    F6(mul_by_01)(&s, &s, &e, c4);
    F6(sub)(&s, &s, &t0);
    F6(sub)(&r->c1, &s, &t1);
    F6(mul_by_nonresidue)(&t1, &t1);
    F6(add)(&r->c0, &t0, &t1);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (x^2 + xi y^2) + 2xy s, 3S. */
static void TWS(fp4_sqr)(E *r0, E *r1, const E *x, const E *y) {
    E t0, t1, t2;
    TWS(sqr2)(&t0, x);
    TWS(sqr2)(&t1, y);
    TWS(add2)(&t2, x, y);
    TWS(sqr2)(&t2, &t2);
    TWS(sub2)(&t2, &t2, &t0);
    TWS(sub2)(r1, &t2, &t1);
    TWS(mul_xi)(&t1, &t1);
    TWS(add2)(r0, &t0, &t1);
}

/* r = 3 t - 2 z (for a "real" Fp4 part) or 3 t + 2 z (for an "s" part). */
static void TWS(gs_minus)(E *r, const E *t, const E *z) {
    E d;
    TWS(sub2)(&d, t, z);
    TWS(dbl2)(&d, &d);
    TWS(add2)(r, &d, t);
}
static void TWS(gs_plus)(E *r, const E *t, const E *z) {
    E d;
    TWS(add2)(&d, t, z);
    TWS(dbl2)(&d, &d);
    TWS(add2)(r, &d, t);
}

void F12(cyclotomic_sqr)(T12 *r, const T12 *a) {
    /*
     * Granger-Scott, 9S.  With s = w^3 (s^2 = xi), Fp12 = Fp4[w]/(w^3 - s)
     * and a = A0 + A1 w + A2 w^2 where (in our coefficients)
     *   A0 = c0.c0 + c1.c1 s,  A1 = c1.c0 + c0.c2 s,  A2 = c0.c1 + c1.c2 s.
     * For a in the cyclotomic subgroup, a^(p^6) = a^-1 and that relation
     * gives
     *   a^2 = (3 A0^2 - 2 conj(A0)) + (3 s A2^2 + 2 conj(A1)) w
     *       + (3 A1^2 - 2 conj(A2)) w^2,
     * where conj(x + y s) = x - y s.
     */
    E p0, p1, q0, q1, s0, s1, t;
    TWS(fp4_sqr)(&p0, &p1, &a->c0.c0, &a->c1.c1); /* A0^2 */
    TWS(fp4_sqr)(&q0, &q1, &a->c1.c0, &a->c0.c2); /* A1^2 */
    TWS(fp4_sqr)(&s0, &s1, &a->c0.c1, &a->c1.c2); /* A2^2 */
    /* A0' = 3 A0^2 - 2 conj(A0) */
    TWS(gs_minus)(&r->c0.c0, &p0, &a->c0.c0);
    TWS(gs_plus)(&r->c1.c1, &p1, &a->c1.c1);
    /* A2' = 3 A1^2 - 2 conj(A2) */
    TWS(gs_minus)(&r->c0.c1, &q0, &a->c0.c1);
    TWS(gs_plus)(&r->c1.c2, &q1, &a->c1.c2);
    /* A1' = 3 s A2^2 + 2 conj(A1), s A2^2 = xi s1 + s0 s */
    TWS(mul_xi)(&t, &s1);
    TWS(gs_plus)(&r->c1.c0, &t, &a->c1.c0);
    TWS(gs_minus)(&r->c0.c2, &s0, &a->c0.c2);
}

void F12(pow)(T12 *r, const T12 *a, const uint64_t *e, size_t e_limbs) {
    /* Left-to-right square and multiply; skips the leading zero bits. */
    T12 acc, base = *a;
    int started = 0;
    F12(set_one)(&acc);
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            if (started)
                F12(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                if (started)
                    F12(mul)(&acc, &acc, &base);
                else
                    acc = base;
                started = 1;
            }
        }
    *r = acc;
}

void F12(cyclotomic_pow)(T12 *r, const T12 *a, const uint64_t *e,
                         size_t e_limbs) {
    /* Non-adjacent form of e (digits -1, 0, 1, at most one in two non-zero),
     * evaluated left to right; a digit -1 multiplies by conj(a) = a^-1. */
    int8_t naf[64 * 8 + 1];
    uint64_t k[8 + 1];
    size_t len = 0;
    if (e_limbs > 8) {
        F12(pow)(r, a, e, e_limbs);
        return;
    }
    memcpy(k, e, e_limbs * sizeof *k);
    k[e_limbs] = 0;
    for (;;) {
        int nz = 0;
        for (size_t i = 0; i <= e_limbs; i++)
            nz |= k[i] != 0;
        if (!nz)
            break;
        int8_t d = 0;
        if (k[0] & 1) {
            d = (k[0] & 3) == 3 ? -1 : 1;
            /* k -= d: for d = -1 add one (with carry), for d = 1 clear bit 0 */
            if (d == 1)
                k[0] &= ~(uint64_t)1;
            else
                for (size_t i = 0; i <= e_limbs && ++k[i] == 0; i++)
                    ;
        }
        naf[len++] = d;
        for (size_t i = 0; i <= e_limbs; i++) /* k >>= 1 */
            k[i] = (k[i] >> 1) | (i < e_limbs ? k[i + 1] << 63 : 0);
    }
    T12 acc, inv;
    if (len == 0) {
        F12(set_one)(r);
        return;
    }
    F12(conj)(&inv, a);
    acc = *a; /* the top digit of a NAF is always 1 */
    for (size_t i = len - 1; i-- > 0;) {
        F12(cyclotomic_sqr)(&acc, &acc);
        if (naf[i] == 1)
            F12(mul)(&acc, &acc, a);
        else if (naf[i] == -1)
            F12(mul)(&acc, &acc, &inv);
    }
    *r = acc;
}

#undef F
#undef E
#undef T6
#undef T12
#undef FP
#undef E2
#undef F6
#undef F12
#undef TWS
