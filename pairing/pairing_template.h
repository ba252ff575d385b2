/*
 * The optimal ate pairing written once, stamped out per curve by pairing.c.
 *
 * Before including, define:
 *   PR_P          curve prefix (bls12_381, bn254)
 *   PR_C(x)       the curve's constant x in consts_gen.h
 *   PR_N          limb count of Fp
 *   PR_TWIST_M    1 for an M-type sextic twist (b' = b xi), 0 for D-type
 *                 (b' = b / xi); decides where the line lands in Fp12
 *   PR_LOOP       initializer of the Miller loop count |L| (limbs), and
 *   PR_LOOP_LIMBS its limb count
 *   PR_LOOP_NEG   1 when the loop count is negative (BLS12-381: L = x < 0)
 *   PR_LOOP_NAF   1 to run the loop over the NAF of |L| (fewer additions)
 *   PR_BN         1 for a BN curve: the two extra lines through pi(Q) and
 *                 -pi^2(Q) after the loop, and the BN final exponentiation;
 *                 0 for BLS12
 *   PR_SEED, PR_SEED_NEG, PR_SEED_NAF  the curve seed |x| or u as one limb,
 *                 its sign, and whether to exponentiate by its NAF
 *   PR_B2_4XI     1 when b' = 4 xi with xi = 1 + u (BLS12-381), which turns
 *                 the product by 3b' into additions
 *
 * Coordinates and lines.  The loop keeps T on the twist in homogeneous
 * projective coordinates (X : Y : Z), x = X/Z, y = Y/Z, so no inversion
 * occurs.  Step formulas are those of Costello, Lange and Naehrig, "Faster
 * Pairing Computations on Curves with High-Degree Twists" (PKC 2010), in the
 * form of Aranha, Karabina, Longa, Gebotys and Lopez, "Faster Explicit
 * Formulas for Computing Pairings over Ordinary Curves" (Eurocrypt 2011,
 * sec. 4).  A line is kept as three Fp2 values (k, kx, ky):
 *   doubling: k = 3b'Z^2 - Y^2, kx = 3X^2 xP, ky = -2YZ yP
 *   addition with Q = (x2, y2): with theta = Y - y2 Z, lambda = X - x2 Z,
 *             k = lambda y2 - theta x2, kx = theta xP, ky = -lambda yP
 * (each is the tangent / chord through T evaluated at P, scaled by a factor
 * of Fp2 or Fp4 that the final exponentiation removes).  Where they go:
 *   M-type, psi(x, y) = (x / w^2, y / w^3): l * w^3 = k + kx v + ky v w,
 *           multiplied in by mul_by_014 (positions c0.c0, c0.c1, c1.c1);
 *   D-type, psi(x, y) = (x w^2, y w^3): l = ky + kx w + k v w,
 *           multiplied in by mul_by_034 (positions c0.c0, c1.c0, c1.c1).
 * Costs (M, S = Fp2 product, squaring): doubling 3M + 6S + the product by
 * 3b' + 4 Fp products for the line; mixed addition 11M + 2S + 4 Fp
 * products; each sparse line product 13M; the shared squaring of f 12M.
 *
 * Must not: allocate, keep state, or use curve/ beyond curve_types.h.
 */
#include "util/paste.h"
#define F CUZK_PASTE(PR_P, fp)
#define E CUZK_PASTE(PR_P, fp2)
#define T12 CUZK_PASTE(PR_P, fp12)
#define G1A CUZK_PASTE(PR_P, g1_affine)
#define G2A CUZK_PASTE(PR_P, g2_affine)
#define FP(x) CUZK_PASTE(F, x)
#define E2(x) CUZK_PASTE(E, x)
#define F12(x) CUZK_PASTE(T12, x)
#define PR(x) CUZK_PASTE(PR_P, x)
#define PRS(x) CUZK_PASTE(PR_P, CUZK_PASTE(pr, x)) /* names of file-local helpers */

/* Fp2 constants of consts_gen.h are uint64_t[2][N] initializers. */
typedef union {
    uint64_t v[2][PR_N];
    E e;
} PRS(fp2c);

static const PRS(fp2c) PRS(b2) = PR_C(B2_MONT);
#if PR_BN
static const PRS(fp2c) PRS(g12) = PR_C(FROB1_2); /* xi^((p-1)/3) */
static const PRS(fp2c) PRS(g13) = PR_C(FROB1_3); /* xi^((p-1)/2) */
static const PRS(fp2c) PRS(g22) = PR_C(FROB2_2); /* xi^((p^2-1)/3) */
#endif

typedef struct {
    E X, Y, Z;
} PRS(proj);

typedef struct {
    E k, kx, ky;
} PRS(line);

/* One pair of a block: the running point T, Q in affine with -Q's y ready
 * for negative loop digits, and P's coordinates as the lines use them. */
typedef struct {
    PRS(proj) T;
    E qx, qy, nqy;
    F xp, nyp;
} PRS(pair);

/* r = 3b' a */
static void PRS(mul_3b)(E *r, const E *a) {
#if PR_B2_4XI
    /* 3b' = 12 (1 + u): a (1 + u) = (a0 - a1) + (a0 + a1) u, then times 12
     * as 8a + 4a (ten additions instead of three Fp products). */
    F s, t, s4, t4;
    FP(sub)(&s, &a->c0, &a->c1);
    FP(add)(&t, &a->c0, &a->c1);
    FP(dbl)(&s4, &s);
    FP(dbl)(&s4, &s4);
    FP(dbl)(&t4, &t);
    FP(dbl)(&t4, &t4);
    FP(dbl)(&s, &s4);
    FP(dbl)(&t, &t4);
    FP(add)(&r->c0, &s, &s4);
    FP(add)(&r->c1, &t, &t4);
#else
    E b3;
    E2(dbl)(&b3, &PRS(b2).e);
    E2(add)(&b3, &b3, &PRS(b2).e);
    E2(mul)(r, a, &b3);
#endif
}

/*
 * Tangent step: l = tangent at T evaluated at P, T = 2T.
 * Aranha et al. 2011, eq. (10) for a = 0, with every coordinate of the
 * result multiplied by 4 so that no halving is needed:
 *   A = XY, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = B + F, H = (Y+Z)^2 - B - C
 *   X3 = 2A (B - F), Y3 = G^2 - 12 E^2, Z3 = 4 B H
 * and the line (k, kx, ky) = (E - B, 3 X^2 xP, -H yP).  3M + 6S + mul_3b.
 */
static void PRS(dbl_step)(PRS(line) *l, PRS(proj) *T, const F *xp,
                          const F *nyp) {
    E A, B, C, EE, FF, G, H, t;
    E2(mul)(&A, &T->X, &T->Y);
    E2(sqr)(&B, &T->Y);
    E2(sqr)(&C, &T->Z);
    PRS(mul_3b)(&EE, &C);
    E2(dbl)(&FF, &EE);
    E2(add)(&FF, &FF, &EE);
    E2(add)(&G, &B, &FF);
    E2(add)(&H, &T->Y, &T->Z);
    E2(sqr)(&H, &H);
    E2(sub)(&H, &H, &B);
    E2(sub)(&H, &H, &C); /* H = 2YZ */

    /* line */
    E2(sub)(&l->k, &EE, &B);
    E2(sqr)(&t, &T->X);
    E2(dbl)(&C, &t);
    E2(add)(&t, &t, &C); /* 3X^2 */
    E2(mul_fp)(&l->kx, &t, xp);
    E2(mul_fp)(&l->ky, &H, nyp);

    /* point */
    E2(sub)(&t, &B, &FF);
    E2(mul)(&t, &A, &t);
    E2(dbl)(&T->X, &t);
    E2(sqr)(&t, &EE);
    E2(dbl)(&C, &t);
    E2(add)(&t, &t, &C); /* 3E^2 */
    E2(dbl)(&t, &t);
    E2(dbl)(&t, &t); /* 12E^2 */
    E2(sqr)(&G, &G);
    E2(sub)(&T->Y, &G, &t);
    E2(mul)(&t, &B, &H);
    E2(dbl)(&t, &t);
    E2(dbl)(&T->Z, &t);
}

/*
 * Chord step: l = line through T and Q evaluated at P, T = T + Q, for Q
 * affine and T != +-Q (true inside the loop for Q in G2).
 * Aranha et al. 2011, sec. 4 (mixed addition):
 *   theta = Y - y2 Z, lambda = X - x2 Z, C = theta^2, D = lambda^2,
 *   E = lambda D, F = Z C, G = X D, H = E + F - 2G,
 *   X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E
 * and the line (k, kx, ky) = (lambda y2 - theta x2, theta xP, -lambda yP).
 * 11M + 2S.
 */
static void PRS(add_step)(PRS(line) *l, PRS(proj) *T, const E *x2,
                          const E *y2, const F *xp, const F *nyp) {
    E th, la, C, D, EE, FF, G, H, t;
    E2(mul)(&t, y2, &T->Z);
    E2(sub)(&th, &T->Y, &t);
    E2(mul)(&t, x2, &T->Z);
    E2(sub)(&la, &T->X, &t);
    E2(sqr)(&C, &th);
    E2(sqr)(&D, &la);
    E2(mul)(&EE, &la, &D);
    E2(mul)(&FF, &T->Z, &C);
    E2(mul)(&G, &T->X, &D);
    E2(add)(&H, &EE, &FF);
    E2(sub)(&H, &H, &G);
    E2(sub)(&H, &H, &G);

    /* line */
    E2(mul)(&t, &la, y2);
    E2(mul)(&C, &th, x2);
    E2(sub)(&l->k, &t, &C);
    E2(mul_fp)(&l->kx, &th, xp);
    E2(mul_fp)(&l->ky, &la, nyp);

    /* point */
    E2(mul)(&T->X, &la, &H);
    E2(sub)(&t, &G, &H);
    E2(mul)(&t, &th, &t);
    E2(mul)(&C, &T->Y, &EE);
    E2(sub)(&T->Y, &t, &C);
    E2(mul)(&T->Z, &T->Z, &EE);
}

static void PRS(apply)(T12 *f, const PRS(line) *l) {
#if PR_TWIST_M
    F12(mul_by_014)(f, f, &l->k, &l->kx, &l->ky);
#else
    F12(mul_by_034)(f, f, &l->ky, &l->kx, &l->k);
#endif
}

/* Digits of k (|limbs| limbs, at most 2), least significant first, either
 * plain binary or the non-adjacent form; returns the count.  The top digit
 * is 1.  d must hold 64 * limbs + 1 entries. */
static size_t PRS(digits)(int8_t *d, const uint64_t *k_in, size_t limbs,
                          int naf) {
    uint64_t k[3] = {0, 0, 0};
    size_t len = 0;
    for (size_t i = 0; i < limbs; i++)
        k[i] = k_in[i];
    while (k[0] | k[1] | k[2]) {
        int8_t z = 0;
        if (k[0] & 1) {
            z = (naf && (k[0] & 3) == 3) ? -1 : 1;
            if (z == 1)
                k[0] &= ~(uint64_t)1;
            else if (++k[0] == 0 && ++k[1] == 0) /* k += 1 */
                ++k[2];
        }
        d[len++] = z;
        k[0] = (k[0] >> 1) | (k[1] << 63);
        k[1] = (k[1] >> 1) | (k[2] << 63);
        k[2] >>= 1;
    }
    return len;
}

static int PRS(g1_is_inf)(const G1A *p) {
    return FP(is_zero)(&p->x) & FP(is_zero)(&p->y);
}
static int PRS(g2_is_inf)(const G2A *q) {
    return E2(is_zero)(&q->x) & E2(is_zero)(&q->y);
}

/* f = prod over the m pairs of f_{L,Q}(P) (times the BN extra lines),
 * sharing one squaring of f per loop digit. */
static void PRS(miller_block)(T12 *f, PRS(pair) *pr, size_t m,
                              const int8_t *dg, size_t len) {
    PRS(line) l;
    int started = 0;
    F12(set_one)(f);
    for (size_t i = len - 1; i-- > 0;) {
        if (started) /* f = 1 before the first line: skip its square */
            F12(sqr)(f, f);
        started = 1;
        for (size_t j = 0; j < m; j++) {
            PRS(dbl_step)(&l, &pr[j].T, &pr[j].xp, &pr[j].nyp);
            PRS(apply)(f, &l);
        }
        if (dg[i] == 0)
            continue;
        for (size_t j = 0; j < m; j++) {
            const E *y2 = dg[i] > 0 ? &pr[j].qy : &pr[j].nqy;
            PRS(add_step)(&l, &pr[j].T, &pr[j].qx, y2, &pr[j].xp, &pr[j].nyp);
            PRS(apply)(f, &l);
        }
    }
#if PR_LOOP_NEG
    /* f_{-L,Q} = 1 / (f_{L,Q} v_{[L]Q}); the vertical line lies in a proper
     * subfield and the inverse equals the conjugate after the easy part of
     * the final exponentiation, so conj is enough. */
    F12(conj)(f, f);
#endif
#if PR_BN
    /* f *= l_{T, pi(Q)}(P) l_{T + pi(Q), -pi^2(Q)}(P) with T = [6u+2]Q.
     * On the D-type twist pi(x, y) = (conj(x) xi^((p-1)/3),
     * conj(y) xi^((p-1)/2)) and pi^2(x, y) = (x xi^((p^2-1)/3), -y), so
     * -pi^2(Q) = (x xi^((p^2-1)/3), y). */
    for (size_t j = 0; j < m; j++) {
        E x1, y1, x2;
        E2(conj)(&x1, &pr[j].qx);
        E2(mul)(&x1, &x1, &PRS(g12).e);
        E2(conj)(&y1, &pr[j].qy);
        E2(mul)(&y1, &y1, &PRS(g13).e);
        PRS(add_step)(&l, &pr[j].T, &x1, &y1, &pr[j].xp, &pr[j].nyp);
        PRS(apply)(f, &l);
        E2(mul)(&x2, &pr[j].qx, &PRS(g22).e);
        PRS(add_step)(&l, &pr[j].T, &x2, &pr[j].qy, &pr[j].xp, &pr[j].nyp);
        PRS(apply)(f, &l);
    }
#endif
}

void PR(miller_loop_n)(T12 *r, const G1A *p, const G2A *q, size_t n) {
    static const uint64_t loop[PR_LOOP_LIMBS] = PR_LOOP;
    int8_t dg[64 * PR_LOOP_LIMBS + 1];
    size_t len = PRS(digits)(dg, loop, PR_LOOP_LIMBS, PR_LOOP_NAF);
    PRS(pair) pr[CUZK_PAIRING_BLOCK];
    T12 acc, f;
    size_t m = 0;
    int have = 0;
    F12(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (PRS(g1_is_inf)(&p[i]) || PRS(g2_is_inf)(&q[i]))
            continue; /* e(O, Q) = e(P, O) = 1 */
        PRS(pair) *s = &pr[m++];
        s->T.X = q[i].x;
        s->T.Y = q[i].y;
        E2(set_one)(&s->T.Z);
        s->qx = q[i].x;
        s->qy = q[i].y;
        E2(neg)(&s->nqy, &q[i].y);
        s->xp = p[i].x;
        FP(neg)(&s->nyp, &p[i].y);
        if (m == CUZK_PAIRING_BLOCK) {
            PRS(miller_block)(&f, pr, m, dg, len);
            if (have)
                F12(mul)(&acc, &acc, &f);
            else
                acc = f;
            have = 1;
            m = 0;
        }
    }
    if (m > 0) {
        PRS(miller_block)(&f, pr, m, dg, len);
        if (have)
            F12(mul)(&acc, &acc, &f);
        else
            acc = f;
    }
    *r = acc;
}

/* r = a^seed for a in the cyclotomic subgroup (seed = x for BLS12-381,
 * u for BN254), by cyclotomic squarings; a negative seed conjugates. */
static void PRS(exp_seed)(T12 *r, const T12 *a) {
    static const uint64_t seed[1] = {PR_SEED};
    int8_t dg[65];
    size_t len = PRS(digits)(dg, seed, 1, PR_SEED_NAF);
    T12 acc = *a, inv;
    F12(conj)(&inv, a);
    for (size_t i = len - 1; i-- > 0;) {
        F12(cyclotomic_sqr)(&acc, &acc);
        if (dg[i] > 0)
            F12(mul)(&acc, &acc, a);
        else if (dg[i] < 0)
            F12(mul)(&acc, &acc, &inv);
    }
#if PR_SEED_NEG
    F12(conj)(&acc, &acc);
#endif
    *r = acc;
}

void PR(final_exp)(T12 *r, const T12 *f) {
    T12 g, t;
    /* Easy part, g = f^((p^6 - 1)(p^2 + 1)): conj is the p^6-power map, so
     * conj(f) / f, then one Frobenius p^2 and a product.  After it g lies in
     * the cyclotomic subgroup: conj(g) = 1/g and cyclotomic squaring holds. */
    F12(inv_var)(&t, f);
    F12(conj)(&g, f);
    F12(mul)(&g, &g, &t);
    F12(frobenius)(&t, &g, 2);
    F12(mul)(&g, &g, &t);
#if !PR_BN
    /* Hard part for BLS12 (Hayashida, Hayasaka, Teruya, ePrint 2020/875):
     *   3 (p^4 - p^2 + 1) / r = (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3,
     * five exponentiations by x (each 63 cyclotomic squarings + 5 products),
     * three Frobenius maps and 6 products.  Gives e^3 (see pairing.h). */
    T12 a, b;
    PRS(exp_seed)(&a, &g);
    F12(conj)(&t, &g);
    F12(mul)(&a, &a, &t);  /* a = g^(x-1) */
    PRS(exp_seed)(&b, &a);
    F12(conj)(&t, &a);
    F12(mul)(&a, &b, &t);  /* a = g^((x-1)^2) */
    PRS(exp_seed)(&b, &a);
    F12(frobenius)(&t, &a, 1);
    F12(mul)(&b, &b, &t);  /* b = a^(x+p) */
    PRS(exp_seed)(&a, &b);
    PRS(exp_seed)(&a, &a);
    F12(frobenius)(&t, &b, 2);
    F12(mul)(&a, &a, &t);
    F12(conj)(&t, &b);
    F12(mul)(&a, &a, &t);  /* a = b^(x^2+p^2-1) */
    F12(cyclotomic_sqr)(&t, &g);
    F12(mul)(&t, &t, &g);  /* g^3 */
    F12(mul)(r, &a, &t);
#else
    /* Hard part for BN (Fuentes-Castaneda, Knapp, Rodriguez-Henriquez, SAC
     * 2011, sec. 5): raises to 2u(6u^2 + 3u + 1)(p^4 - p^2 + 1)/r with three
     * exponentiations by u, three squarings, three Frobenius maps and 10
     * products.  Exponents of g noted on the right. */
    T12 y1, y2, y4, y8, y9;
    PRS(exp_seed)(&t, &g);
    F12(conj)(&t, &t);
    F12(cyclotomic_sqr)(&y1, &t);        /* -2u */
    F12(cyclotomic_sqr)(&y2, &y1);
    F12(mul)(&y2, &y2, &y1);             /* -6u */
    PRS(exp_seed)(&y4, &y2);
    F12(conj)(&y4, &y4);                 /* 6u^2 */
    F12(cyclotomic_sqr)(&t, &y4);
    PRS(exp_seed)(&t, &t);               /* 12u^3, i.e. conj(y6) */
    F12(mul)(&y8, &t, &y4);
    F12(conj)(&t, &y2);
    F12(mul)(&y8, &y8, &t);              /* 12u^3 + 6u^2 + 6u */
    F12(mul)(&y9, &y8, &y1);             /* 12u^3 + 6u^2 + 4u */
    /* g^(p^3 (y9 - 1)) g^(p^2 y8) g^(p y9) g^(y8 + y4 + 1) */
    T12 acc;
    F12(mul)(&acc, &y8, &y4);
    F12(mul)(&acc, &acc, &g);
    F12(frobenius)(&t, &y9, 1);
    F12(mul)(&acc, &acc, &t);
    F12(frobenius)(&t, &y8, 2);
    F12(mul)(&acc, &acc, &t);
    F12(conj)(&t, &g);
    F12(mul)(&t, &t, &y9);
    F12(frobenius)(&t, &t, 3);
    F12(mul)(r, &acc, &t);
#endif
}

void PR(pairing)(T12 *r, const G1A *p, const G2A *q) {
    T12 f;
    PR(miller_loop_n)(&f, p, q, 1);
    PR(final_exp)(r, &f);
}

int PR(pairing_product_is_one)(const G1A *p, const G2A *q, size_t n) {
    T12 f;
    PR(miller_loop_n)(&f, p, q, n);
    PR(final_exp)(&f, &f);
    return F12(is_one)(&f);
}

#undef F
#undef E
#undef T12
#undef G1A
#undef G2A
#undef FP
#undef E2
#undef F12
#undef PR
#undef PRS
