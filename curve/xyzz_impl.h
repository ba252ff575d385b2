/*
 * The XYZZ (extended Jacobian) formulas of y^2 = x^3 + b, written once and
 * included twice per group: by curve_template.h, whose public
 * G_xyzz_* functions are thin wrappers over them (field operations out of
 * line), and by msm_template.h, which includes them with the inline field
 * operations of field_inline.h for its bucket loops.  Same formulas, same
 * results.
 *
 * Before including, define:
 *   XZ_G        the group prefix (types XZ_G##_affine, XZ_G##_xyzz)
 *   XZ_FT       the coordinate field type
 *   XZ_F(x)     the name of field operation x (mul, sqr, add, sub, dbl,
 *               set_one, set_zero, is_zero)
 *   XZ_N(x)     the name to give formula x (all are static inline)
 * Defined: XZ_N(set_inf), XZ_N(is_inf), XZ_N(from_affine), XZ_N(dbl),
 * XZ_N(dbl_affine), XZ_N(add_affine), XZ_N(add); the macros are undefined
 * at the end.
 *
 * Formulas: EFD "g1p/auto-shortw-xyzz" with a = 0.  ZZ = Z^2, ZZZ = Z^3;
 * infinity has ZZ = 0.  The additions test for infinity and equal x and
 * fall back to doubling or infinity, so they are complete (with branches
 * on the data: variable time, as the MSM is).
 *
 * Must not: allocate or hold state.
 */
#include "util/paste.h"
#define XZ_XYZZ CUZK_PASTE(XZ_G, xyzz)
#define XZ_AFF CUZK_PASTE(XZ_G, affine)

static inline void XZ_N(set_inf)(XZ_XYZZ *r) {
    XZ_F(set_one)(&r->X);
    XZ_F(set_one)(&r->Y);
    XZ_F(set_zero)(&r->ZZ);
    XZ_F(set_zero)(&r->ZZZ);
}

static inline int XZ_N(is_inf)(const XZ_XYZZ *a) { return XZ_F(is_zero)(&a->ZZ); }

static inline void XZ_N(from_affine)(XZ_XYZZ *r, const XZ_AFF *a) {
    if (XZ_F(is_zero)(&a->x) & XZ_F(is_zero)(&a->y)) {
        XZ_N(set_inf)(r);
        return;
    }
    r->X = a->x;
    r->Y = a->y;
    XZ_F(set_one)(&r->ZZ);
    XZ_F(set_one)(&r->ZZZ);
}

/* dbl-2008-s-1 (a = 0): 6M + 3S.  Also correct for infinity (ZZ = 0 stays 0). */
static inline void XZ_N(dbl)(XZ_XYZZ *r, const XZ_XYZZ *a) {
    XZ_FT U, V, W, Sx, M, t;
    XZ_F(dbl)(&U, &a->Y);            /* U = 2 Y1             */
    XZ_F(sqr)(&V, &U);               /* V = U^2              S */
    XZ_F(mul)(&W, &U, &V);           /* W = U V              M */
    XZ_F(mul)(&Sx, &a->X, &V);       /* S = X1 V             M */
    XZ_F(sqr)(&M, &a->X);            /* X1^2                 S */
    XZ_F(dbl)(&t, &M);
    XZ_F(add)(&M, &M, &t);           /* M = 3 X1^2           */
    XZ_F(mul)(&r->ZZ, &V, &a->ZZ);   /* ZZ3 = V ZZ1          M */
    XZ_F(mul)(&r->ZZZ, &W, &a->ZZZ); /* ZZZ3 = W ZZZ1        M */
    XZ_F(mul)(&W, &W, &a->Y);        /* W Y1                 M */
    XZ_F(sqr)(&r->X, &M);            /* M^2                  S */
    XZ_F(dbl)(&t, &Sx);
    XZ_F(sub)(&r->X, &r->X, &t);     /* X3 = M^2 - 2S        */
    XZ_F(sub)(&t, &Sx, &r->X);
    XZ_F(mul)(&t, &M, &t);           /* M (S - X3)           M */
    XZ_F(sub)(&r->Y, &t, &W);        /* Y3 = M(S - X3) - W Y1 */
}

/* mdbl-2008-s-1 (a = 0, affine input): 4M + 3S, result in XYZZ. */
static inline void XZ_N(dbl_affine)(XZ_XYZZ *r, const XZ_AFF *a) {
    XZ_FT U, M, t, Sx;
    XZ_F(dbl)(&U, &a->y);            /* U = 2 Y1             */
    XZ_F(sqr)(&r->ZZ, &U);           /* ZZ3 = V = U^2        S */
    XZ_F(mul)(&r->ZZZ, &U, &r->ZZ);  /* ZZZ3 = W = U V       M */
    XZ_F(mul)(&Sx, &a->x, &r->ZZ);   /* S = X1 V             M */
    XZ_F(sqr)(&M, &a->x);            /* X1^2                 S */
    XZ_F(dbl)(&t, &M);
    XZ_F(add)(&M, &M, &t);           /* M = 3 X1^2           */
    XZ_F(sqr)(&r->X, &M);            /* M^2                  S */
    XZ_F(dbl)(&t, &Sx);
    XZ_F(sub)(&r->X, &r->X, &t);     /* X3 = M^2 - 2S        */
    XZ_F(sub)(&t, &Sx, &r->X);
    XZ_F(mul)(&t, &M, &t);           /* M (S - X3)           M */
    XZ_F(mul)(&U, &r->ZZZ, &a->y);   /* W Y1                 M */
    XZ_F(sub)(&r->Y, &t, &U);        /* Y3 = M(S - X3) - W Y1 */
}

/* madd-2008-s: 8M + 2S; equal points go to mdbl, opposite points to O. */
static inline void XZ_N(add_affine)(XZ_XYZZ *r, const XZ_XYZZ *a, const XZ_AFF *b) {
    XZ_FT U2, S2, P, R, PP, PPP, Q, t;
    if (XZ_F(is_zero)(&b->x) & XZ_F(is_zero)(&b->y)) {
        *r = *a;
        return;
    }
    if (XZ_N(is_inf)(a)) {
        XZ_N(from_affine)(r, b);
        return;
    }
    XZ_F(mul)(&U2, &b->x, &a->ZZ);   /* U2 = X2 ZZ1          M */
    XZ_F(mul)(&S2, &b->y, &a->ZZZ);  /* S2 = Y2 ZZZ1         M */
    XZ_F(sub)(&P, &U2, &a->X);       /* P = U2 - X1          */
    XZ_F(sub)(&R, &S2, &a->Y);       /* R = S2 - Y1          */
    if (XZ_F(is_zero)(&P)) {
        if (XZ_F(is_zero)(&R))
            XZ_N(dbl_affine)(r, b);
        else
            XZ_N(set_inf)(r);
        return;
    }
    XZ_F(sqr)(&PP, &P);              /* PP = P^2             S */
    XZ_F(mul)(&PPP, &P, &PP);        /* PPP = P PP           M */
    XZ_F(mul)(&Q, &a->X, &PP);       /* Q = X1 PP            M */
    XZ_F(mul)(&r->ZZ, &a->ZZ, &PP);  /* ZZ3 = ZZ1 PP         M */
    XZ_F(mul)(&r->ZZZ, &a->ZZZ, &PPP); /* ZZZ3 = ZZZ1 PPP    M */
    XZ_F(mul)(&t, &a->Y, &PPP);      /* Y1 PPP               M (read a->Y before r->Y is written) */
    XZ_F(sqr)(&r->X, &R);            /* R^2                  S */
    XZ_F(sub)(&r->X, &r->X, &PPP);
    XZ_F(dbl)(&PP, &Q);
    XZ_F(sub)(&r->X, &r->X, &PP);    /* X3 = R^2 - PPP - 2Q  */
    XZ_F(sub)(&Q, &Q, &r->X);
    XZ_F(mul)(&Q, &R, &Q);           /* R (Q - X3)           M */
    XZ_F(sub)(&r->Y, &Q, &t);        /* Y3 = R(Q - X3) - Y1 PPP */
}

/* add-2008-s: 12M + 2S; equal points go to dbl, opposite points to O. */
static inline void XZ_N(add)(XZ_XYZZ *r, const XZ_XYZZ *a, const XZ_XYZZ *b) {
    XZ_FT U1, U2, S1, S2, P, R, PP, PPP, Q, t;
    if (XZ_N(is_inf)(a)) {
        *r = *b;
        return;
    }
    if (XZ_N(is_inf)(b)) {
        *r = *a;
        return;
    }
    XZ_F(mul)(&U1, &a->X, &b->ZZ);   /* U1 = X1 ZZ2          M */
    XZ_F(mul)(&U2, &b->X, &a->ZZ);   /* U2 = X2 ZZ1          M */
    XZ_F(mul)(&S1, &a->Y, &b->ZZZ);  /* S1 = Y1 ZZZ2         M */
    XZ_F(mul)(&S2, &b->Y, &a->ZZZ);  /* S2 = Y2 ZZZ1         M */
    XZ_F(sub)(&P, &U2, &U1);         /* P = U2 - U1          */
    XZ_F(sub)(&R, &S2, &S1);         /* R = S2 - S1          */
    if (XZ_F(is_zero)(&P)) {
        if (XZ_F(is_zero)(&R))
            XZ_N(dbl)(r, a);
        else
            XZ_N(set_inf)(r);
        return;
    }
    XZ_F(sqr)(&PP, &P);              /* PP = P^2             S */
    XZ_F(mul)(&PPP, &P, &PP);        /* PPP = P PP           M */
    XZ_F(mul)(&Q, &U1, &PP);         /* Q = U1 PP            M */
    XZ_F(mul)(&r->ZZ, &a->ZZ, &b->ZZ);
    XZ_F(mul)(&r->ZZ, &r->ZZ, &PP);  /* ZZ3 = ZZ1 ZZ2 PP     2M */
    XZ_F(mul)(&r->ZZZ, &a->ZZZ, &b->ZZZ);
    XZ_F(mul)(&r->ZZZ, &r->ZZZ, &PPP); /* ZZZ3 = ZZZ1 ZZZ2 PPP 2M */
    XZ_F(sqr)(&r->X, &R);            /* R^2                  S */
    XZ_F(sub)(&r->X, &r->X, &PPP);
    XZ_F(dbl)(&t, &Q);
    XZ_F(sub)(&r->X, &r->X, &t);     /* X3 = R^2 - PPP - 2Q  */
    XZ_F(sub)(&t, &Q, &r->X);
    XZ_F(mul)(&t, &R, &t);           /* R (Q - X3)           M */
    XZ_F(mul)(&S1, &S1, &PPP);       /* S1 PPP               M */
    XZ_F(sub)(&r->Y, &t, &S1);       /* Y3 = R(Q - X3) - S1 PPP */
}

#undef XZ_XYZZ
#undef XZ_AFF
#undef XZ_G
#undef XZ_FT
#undef XZ_F
#undef XZ_N
