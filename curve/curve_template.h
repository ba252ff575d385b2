/*
 * Group law of y^2 = x^3 + b (a = 0), written once and stamped out by
 * curve.c for G1 over Fp and G2 over Fp2 of both curves (see curve.h for
 * the API contract).  This file must not be included anywhere else, must not
 * allocate, and holds no curve-specific knowledge beyond what the includer
 * defines:
 *
 *   G                group prefix, e.g. bls12_381_g1 (types G, G_affine, G_xyzz)
 *   F                coordinate field prefix (bls12_381_fp, bls12_381_fp2, ...)
 *   S                scalar field prefix (bls12_381_fr, bn254_fr)
 *   CURVE_B          an expression of type `const F *`: b in Montgomery form
 *   CURVE_GEN_X/_Y   expressions of type `const F *`: the generator
 *   CURVE_SUBGROUP   name of `static int fn(const G *p)` that the includer
 *                    defines after this file: 1 iff the (on-curve, finite)
 *                    point p lies in the order-r subgroup
 *
 * Formulas are from the Explicit-Formulas Database (hyperelliptic.org/EFD,
 * "g1p/auto-shortw-jacobian-0" and "g1p/auto-shortw-xyzz"), specialised to
 * a = 0.  Costs count M (multiplication), S (squaring) in F; additions and
 * doublings of field elements are not counted.
 *
 * Exceptional cases: the Jacobian and XYZZ addition formulas are not
 * complete on their own (they return garbage for P + P and P + O).  Every
 * addition here first tests for infinity and for equal x coordinates (H = 0)
 * and falls back to doubling or to infinity, which makes them complete at
 * the price of data-dependent branches.
 */
#include "util/paste.h"
#define GN(x) CUZK_PASTE(G, x)   /* group function or type name */
#define CF(x) CUZK_PASTE(F, x)   /* coordinate field function */
#define SF(x) CUZK_PASTE(S, x)   /* scalar field function */
#define G_AFF GN(affine)
#define G_XYZZ GN(xyzz)
#define FT F                    /* coordinate field type */

static int CURVE_SUBGROUP(const G *p);

/* ---- infinity, generator, conversions ------------------------------------ */

void GN(set_inf)(G *r) {
    CF(set_one)(&r->X);
    CF(set_one)(&r->Y);
    CF(set_zero)(&r->Z);
}
int GN(is_inf)(const G *a) { return CF(is_zero)(&a->Z); }
void GN(affine_set_inf)(G_AFF *r) {
    CF(set_zero)(&r->x);
    CF(set_zero)(&r->y);
}
int GN(affine_is_inf)(const G_AFF *a) {
    return CF(is_zero)(&a->x) & CF(is_zero)(&a->y);
}
void GN(xyzz_set_inf)(G_XYZZ *r) {
    CF(set_one)(&r->X);
    CF(set_one)(&r->Y);
    CF(set_zero)(&r->ZZ);
    CF(set_zero)(&r->ZZZ);
}
int GN(xyzz_is_inf)(const G_XYZZ *a) { return CF(is_zero)(&a->ZZ); }

void GN(generator)(G_AFF *r) {
    r->x = *(CURVE_GEN_X);
    r->y = *(CURVE_GEN_Y);
}

void GN(from_affine)(G *r, const G_AFF *a) {
    if (GN(affine_is_inf)(a)) {
        GN(set_inf)(r);
        return;
    }
    r->X = a->x;
    r->Y = a->y;
    CF(set_one)(&r->Z);
}

/* x = X / Z^2, y = Y / Z^3: one inversion, 3M + 1S. */
void GN(to_affine)(G_AFF *r, const G *a) {
    FT zi, zi2;
    if (GN(is_inf)(a)) {
        GN(affine_set_inf)(r);
        return;
    }
    CF(inv_var)(&zi, &a->Z);
    CF(sqr)(&zi2, &zi);
    CF(mul)(&r->x, &a->X, &zi2);
    CF(mul)(&zi2, &zi2, &zi);
    CF(mul)(&r->y, &a->Y, &zi2);
}

/*
 * Montgomery's trick: one inversion for the whole batch, 3M per point for
 * the prefix products plus 3M + 1S per point to finish.  out[i].x holds the
 * running prefix product (of the non-zero Z before i) until point i is
 * finished, so no scratch memory is needed.
 */
void GN(batch_to_affine)(G_AFF *out, const G *in, size_t n) {
    FT acc, inv, zi, zi2;
    CF(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (GN(is_inf)(&in[i]))
            continue;
        out[i].x = acc;
        CF(mul)(&acc, &acc, &in[i].Z);
    }
    CF(inv_var)(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (GN(is_inf)(&in[i])) {
            GN(affine_set_inf)(&out[i]);
            continue;
        }
        CF(mul)(&zi, &inv, &out[i].x);   /* 1/Z_i */
        CF(mul)(&inv, &inv, &in[i].Z);   /* drop Z_i from the inverse */
        CF(sqr)(&zi2, &zi);
        CF(mul)(&out[i].x, &in[i].X, &zi2);
        CF(mul)(&zi2, &zi2, &zi);
        CF(mul)(&out[i].y, &in[i].Y, &zi2);
    }
}

/* ---- Jacobian arithmetic --------------------------------------------------- */

/* dbl-2009-l (a = 0): 2M + 5S. */
void GN(dbl)(G *r, const G *a) {
    FT A, B, C, D, E, Fs, t;
    CF(sqr)(&A, &a->X);            /* A = X1^2             S */
    CF(sqr)(&B, &a->Y);            /* B = Y1^2             S */
    CF(sqr)(&C, &B);               /* C = B^2              S */
    CF(add)(&D, &a->X, &B);
    CF(sqr)(&D, &D);               /* (X1 + B)^2           S */
    CF(sub)(&D, &D, &A);
    CF(sub)(&D, &D, &C);
    CF(dbl)(&D, &D);               /* D = 2((X1+B)^2-A-C) */
    CF(dbl)(&E, &A);
    CF(add)(&E, &E, &A);           /* E = 3A               */
    CF(sqr)(&Fs, &E);              /* F = E^2              S */
    CF(mul)(&r->Z, &a->Y, &a->Z);  /* Z3 = 2 Y1 Z1         M (before Y is overwritten) */
    CF(dbl)(&r->Z, &r->Z);
    CF(dbl)(&t, &D);
    CF(sub)(&r->X, &Fs, &t);       /* X3 = F - 2D          */
    CF(sub)(&t, &D, &r->X);
    CF(mul)(&t, &E, &t);           /* E (D - X3)           M */
    CF(dbl)(&C, &C);
    CF(dbl)(&C, &C);
    CF(dbl)(&C, &C);
    CF(sub)(&r->Y, &t, &C);        /* Y3 = E(D - X3) - 8C  */
}

/* add-2007-bl: 11M + 5S, with the exceptional cases handled up front. */
void GN(add)(G *r, const G *a, const G *b) {
    FT Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, rr, V, t;
    if (GN(is_inf)(a)) {
        *r = *b;
        return;
    }
    if (GN(is_inf)(b)) {
        *r = *a;
        return;
    }
    CF(sqr)(&Z1Z1, &a->Z);         /* Z1Z1 = Z1^2          S */
    CF(sqr)(&Z2Z2, &b->Z);         /* Z2Z2 = Z2^2          S */
    CF(mul)(&U1, &a->X, &Z2Z2);    /* U1 = X1 Z2Z2         M */
    CF(mul)(&U2, &b->X, &Z1Z1);    /* U2 = X2 Z1Z1         M */
    CF(mul)(&S1, &a->Y, &b->Z);
    CF(mul)(&S1, &S1, &Z2Z2);      /* S1 = Y1 Z2 Z2Z2      2M */
    CF(mul)(&S2, &b->Y, &a->Z);
    CF(mul)(&S2, &S2, &Z1Z1);      /* S2 = Y2 Z1 Z1Z1      2M */
    CF(sub)(&H, &U2, &U1);         /* H = U2 - U1          */
    CF(sub)(&rr, &S2, &S1);
    if (CF(is_zero)(&H)) {
        if (CF(is_zero)(&rr))
            GN(dbl)(r, a);         /* a == b */
        else
            GN(set_inf)(r);        /* a == -b */
        return;
    }
    CF(dbl)(&rr, &rr);             /* r = 2 (S2 - S1)      */
    CF(dbl)(&I, &H);
    CF(sqr)(&I, &I);               /* I = (2H)^2           S */
    CF(mul)(&J, &H, &I);           /* J = H I              M */
    CF(mul)(&V, &U1, &I);          /* V = U1 I             M */
    CF(add)(&t, &a->Z, &b->Z);
    CF(sqr)(&t, &t);               /* (Z1 + Z2)^2          S */
    CF(sub)(&t, &t, &Z1Z1);
    CF(sub)(&t, &t, &Z2Z2);
    CF(mul)(&r->Z, &t, &H);        /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H   M */
    CF(sqr)(&r->X, &rr);           /* r^2                  S */
    CF(sub)(&r->X, &r->X, &J);
    CF(dbl)(&t, &V);
    CF(sub)(&r->X, &r->X, &t);     /* X3 = r^2 - J - 2V    */
    CF(sub)(&t, &V, &r->X);
    CF(mul)(&t, &rr, &t);          /* r (V - X3)           M */
    CF(mul)(&S1, &S1, &J);         /* S1 J                 M */
    CF(dbl)(&S1, &S1);
    CF(sub)(&r->Y, &t, &S1);       /* Y3 = r(V - X3) - 2 S1 J */
}

/* madd-2007-bl (Z2 = 1): 7M + 4S, exceptional cases handled up front. */
void GN(add_affine)(G *r, const G *a, const G_AFF *b) {
    FT Z1Z1, U2, S2, H, HH, I, J, rr, V, t;
    if (GN(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (GN(is_inf)(a)) {
        GN(from_affine)(r, b);
        return;
    }
    CF(sqr)(&Z1Z1, &a->Z);         /* Z1Z1 = Z1^2          S */
    CF(mul)(&U2, &b->x, &Z1Z1);    /* U2 = X2 Z1Z1         M */
    CF(mul)(&S2, &b->y, &a->Z);
    CF(mul)(&S2, &S2, &Z1Z1);      /* S2 = Y2 Z1 Z1Z1      2M */
    CF(sub)(&H, &U2, &a->X);       /* H = U2 - X1          */
    CF(sub)(&rr, &S2, &a->Y);
    if (CF(is_zero)(&H)) {
        if (CF(is_zero)(&rr))
            GN(dbl)(r, a);
        else
            GN(set_inf)(r);
        return;
    }
    CF(dbl)(&rr, &rr);             /* r = 2 (S2 - Y1)      */
    CF(sqr)(&HH, &H);              /* HH = H^2             S */
    CF(dbl)(&I, &HH);
    CF(dbl)(&I, &I);               /* I = 4 HH             */
    CF(mul)(&J, &H, &I);           /* J = H I              M */
    CF(mul)(&V, &a->X, &I);        /* V = X1 I             M */
    CF(add)(&t, &a->Z, &H);
    CF(sqr)(&t, &t);               /* (Z1 + H)^2           S */
    CF(sub)(&t, &t, &Z1Z1);
    CF(sub)(&r->Z, &t, &HH);       /* Z3 = (Z1+H)^2 - Z1Z1 - HH */
    CF(mul)(&S2, &a->Y, &J);       /* Y1 J                 M (a->Y read before r->Y is written) */
    CF(dbl)(&S2, &S2);
    CF(sqr)(&r->X, &rr);           /* r^2                  S */
    CF(sub)(&r->X, &r->X, &J);
    CF(dbl)(&t, &V);
    CF(sub)(&r->X, &r->X, &t);     /* X3 = r^2 - J - 2V    */
    CF(sub)(&t, &V, &r->X);
    CF(mul)(&t, &rr, &t);          /* r (V - X3)           M */
    CF(sub)(&r->Y, &t, &S2);       /* Y3 = r(V - X3) - 2 Y1 J */
}

void GN(neg)(G *r, const G *a) {
    r->X = a->X;
    CF(neg)(&r->Y, &a->Y);
    r->Z = a->Z;
}

void GN(affine_neg)(G_AFF *r, const G_AFF *a) {
    r->x = a->x;
    CF(neg)(&r->y, &a->y);         /* -0 = 0 keeps infinity at (0, 0) */
}

void GN(sub)(G *r, const G *a, const G *b) {
    G nb;
    GN(neg)(&nb, b);
    GN(add)(r, a, &nb);
}

/* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3: 6M + 2S. */
int GN(eq)(const G *a, const G *b) {
    FT z1z1, z2z2, u1, u2;
    int ia = GN(is_inf)(a), ib = GN(is_inf)(b);
    if (ia | ib)
        return ia & ib;
    CF(sqr)(&z1z1, &a->Z);
    CF(sqr)(&z2z2, &b->Z);
    CF(mul)(&u1, &a->X, &z2z2);
    CF(mul)(&u2, &b->X, &z1z1);
    if (!CF(eq)(&u1, &u2))
        return 0;
    CF(mul)(&z1z1, &z1z1, &a->Z);
    CF(mul)(&z2z2, &z2z2, &b->Z);
    CF(mul)(&u1, &a->Y, &z2z2);
    CF(mul)(&u2, &b->Y, &z1z1);
    return CF(eq)(&u1, &u2);
}

int GN(affine_eq)(const G_AFF *a, const G_AFF *b) {
    return CF(eq)(&a->x, &b->x) & CF(eq)(&a->y, &b->y);
}

/* ---- scalar multiplication ------------------------------------------------- */

/*
 * [k]P for a secret k: fixed 4-bit windows over all 256 bits, most
 * significant first; every window does 4 doublings and one addition of a
 * table entry read by scanning all 16 entries with masks, so the sequence
 * of operations and memory accesses does not depend on k.  Not hardened
 * beyond that: the addition's exceptional-case branches (accumulator still
 * at infinity in the leading windows, zero windows adding infinity) depend
 * on k.  The MSM code is the performance path; this serves single products
 * such as r*delta in the prover.
 */
static void GN(table_select)(G *r, const G tab[16], unsigned idx) {
    const uint64_t *src;
    uint64_t *dst = (uint64_t *)r;
    const size_t words = sizeof(G) / sizeof(uint64_t);
    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < 16; i++) {
        uint64_t mask = 0 - (uint64_t)(i == idx);
        src = (const uint64_t *)&tab[i];
        for (size_t w = 0; w < words; w++)
            dst[w] |= src[w] & mask;
    }
}

void GN(mul)(G *r, const G *a, const S *k) {
    uint64_t e[SF(LIMBS)];
    G tab[16], acc, t;
    SF(from_mont)(e, k);
    GN(set_inf)(&tab[0]);
    tab[1] = *a;
    for (int i = 2; i < 16; i++) {
        if (i & 1)
            GN(add)(&tab[i], &tab[i - 1], a);
        else
            GN(dbl)(&tab[i], &tab[i / 2]);
    }
    GN(set_inf)(&acc);
    for (int w = 64 * SF(LIMBS) / 4 - 1; w >= 0; w--) {
        unsigned idx = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
        for (int d = 0; d < 4; d++)
            GN(dbl)(&acc, &acc);
        GN(table_select)(&t, tab, idx);
        GN(add)(&acc, &acc, &t);
    }
    *r = acc;
}

#ifndef CURVE_GEN_WINDOW_HELPERS
#define CURVE_GEN_WINDOW_HELPERS
static inline unsigned curve_kbit(const uint64_t *k, long i) {
    return (unsigned)(k[i / 64] >> (i % 64)) & 1;
}

/* Next sliding window at or below bit |i| (a set bit): the window is
 * [*lo, i], at most |w| bits, ending in a set bit; returns its value. */
static inline unsigned curve_window(const uint64_t *k, long i, int w, long *lo) {
    long l = i - (w - 1) < 0 ? 0 : i - (w - 1);
    unsigned val = 0;
    while (!curve_kbit(k, l))
        l++;
    for (long j = i; j >= l; j--)
        val = (val << 1) | curve_kbit(k, j);
    *lo = l;
    return val;
}

/* Window width 1..5 that minimises additions for this scalar: a width-w
 * table costs one doubling and 2^(w-1) - 1 additions, each window one
 * addition.  Sparse scalars such as the BLS12-381 seed |x| (6 set bits)
 * get w = 1 (no table); dense 255-bit ones get w = 4 or 5. */
static int curve_best_window(const uint64_t *k, size_t nbits) {
    int best_w = 1;
    unsigned long best = ~0UL;
    for (int w = 1; w <= 5; w++) {
        unsigned long cost = w > 1 ? (1UL << (w - 1)) : 0;
        for (long i = (long)nbits - 1; i >= 0;) {
            if (!curve_kbit(k, i)) {
                i--;
                continue;
            }
            long lo;
            curve_window(k, i, w, &lo);
            cost++;
            i = lo - 1;
        }
        if (cost < best) {
            best = cost;
            best_w = w;
        }
    }
    return best_w;
}
#endif

/*
 * [k]P, variable time: left-to-right sliding windows over the odd
 * multiples P, 3P, ..., (2^w - 1)P, with the width w (1..5) chosen per
 * scalar to minimise additions (see curve_best_window).  Works for any
 * length (used with r, cofactors and the 64-bit curve seeds): one doubling
 * per bit after the leading window, one addition per window.
 */
void GN(mul_limbs)(G *r, const G *a, const uint64_t *k, size_t k_limbs) {
    G tab[16], a2, acc;
    size_t nbits = 64 * k_limbs;
    int started = 0;
    while (nbits > 0 && !curve_kbit(k, (long)nbits - 1))
        nbits--;
    if (nbits == 0 || GN(is_inf)(a)) {
        GN(set_inf)(r);
        return;
    }
    int w = curve_best_window(k, nbits);
    tab[0] = *a;
    if (w > 1) {
        GN(dbl)(&a2, a);
        for (int i = 1; i < (1 << (w - 1)); i++)
            GN(add)(&tab[i], &tab[i - 1], &a2);   /* tab[i] = (2i + 1) P */
    }
    for (long i = (long)nbits - 1; i >= 0;) {
        if (!curve_kbit(k, i)) {
            GN(dbl)(&acc, &acc);
            i--;
            continue;
        }
        long lo;
        unsigned val = curve_window(k, i, w, &lo);
        if (!started) {
            acc = tab[val >> 1];                  /* leading window: no doublings */
            started = 1;
        } else {
            for (long j = i; j >= lo; j--)
                GN(dbl)(&acc, &acc);
            GN(add)(&acc, &acc, &tab[val >> 1]);
        }
        i = lo - 1;
    }
    *r = acc;
}

void GN(msm_naive)(G *r, const G_AFF *bases, const S *scalars, size_t n) {
    G acc, t;
    GN(set_inf)(&acc);
    for (size_t i = 0; i < n; i++) {
        GN(from_affine)(&t, &bases[i]);
        GN(mul)(&t, &t, &scalars[i]);
        GN(add)(&acc, &acc, &t);
    }
    *r = acc;
}

/* ---- validation ------------------------------------------------------------ */

/* y^2 == x^3 + b: 1M + 2S. */
int GN(affine_on_curve)(const G_AFF *a) {
    FT lhs, rhs;
    if (GN(affine_is_inf)(a))
        return 1;
    CF(sqr)(&lhs, &a->y);
    CF(sqr)(&rhs, &a->x);
    CF(mul)(&rhs, &rhs, &a->x);
    CF(add)(&rhs, &rhs, CURVE_B);
    return CF(eq)(&lhs, &rhs);
}

int GN(affine_in_subgroup)(const G_AFF *a) {
    G p;
    if (GN(affine_is_inf)(a))
        return 1;
    if (!GN(affine_on_curve)(a))
        return 0;
    GN(from_affine)(&p, a);
    return CURVE_SUBGROUP(&p);
}

/* ---- XYZZ (MSM buckets) ---------------------------------------------------- */

/* The formulas live in xyzz_impl.h, shared with the MSM's inlined copy. */
#define XZ_G G
#define XZ_FT FT
#define XZ_F(x) CF(x)
#define XZ_N(x) CUZK_PASTE(G, xyzz_f_##x)
#include "curve/xyzz_impl.h"

void GN(xyzz_from_affine)(G_XYZZ *r, const G_AFF *a) { GN(xyzz_f_from_affine)(r, a); }
void GN(xyzz_dbl)(G_XYZZ *r, const G_XYZZ *a) { GN(xyzz_f_dbl)(r, a); }
void GN(xyzz_add_affine)(G_XYZZ *r, const G_XYZZ *a, const G_AFF *b) {
    GN(xyzz_f_add_affine)(r, a, b);
}
void GN(xyzz_add)(G_XYZZ *r, const G_XYZZ *a, const G_XYZZ *b) { GN(xyzz_f_add)(r, a, b); }

/*
 * XYZZ -> Jacobian without inversion.  With ZZ = z^2 and ZZZ = z^3 (which
 * every XYZZ formula preserves), take Jacobian Z = ZZZ = z^3: then
 * X = x Z^2 = X_xyzz ZZ^2 and Y = y Z^3 = Y_xyzz ZZZ^2.  2M + 2S.
 */
void GN(xyzz_to_jacobian)(G *r, const G_XYZZ *a) {
    FT t;
    if (GN(xyzz_is_inf)(a)) {
        GN(set_inf)(r);
        return;
    }
    CF(sqr)(&t, &a->ZZ);
    CF(mul)(&r->X, &a->X, &t);
    CF(sqr)(&t, &a->ZZZ);
    CF(mul)(&r->Y, &a->Y, &t);
    r->Z = a->ZZZ;
}

#undef GN
#undef CF
#undef SF
#undef G_AFF
#undef G_XYZZ
#undef FT
