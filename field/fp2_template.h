/*
 * Fp2 = Fp[u]/(u^2+1), stamped out by fp2.c per curve.  Define before
 * including: E (the Fp2 type), F (its base field), XI_C0 (the real part of
 * xi as a small integer; xi = XI_C0 + u), and FP_C(x) for base-field
 * constants.
 */
#include "util/paste.h"
#define EE(x) CUZK_PASTE(E, x)
#define FE(x) CUZK_PASTE(F, x)

void EE(add)(E *r, const E *a, const E *b) {
    FE(add)(&r->c0, &a->c0, &b->c0);
    FE(add)(&r->c1, &a->c1, &b->c1);
}
void EE(sub)(E *r, const E *a, const E *b) {
    FE(sub)(&r->c0, &a->c0, &b->c0);
    FE(sub)(&r->c1, &a->c1, &b->c1);
}
void EE(neg)(E *r, const E *a) {
    FE(neg)(&r->c0, &a->c0);
    FE(neg)(&r->c1, &a->c1);
}
void EE(dbl)(E *r, const E *a) {
    FE(dbl)(&r->c0, &a->c0);
    FE(dbl)(&r->c1, &a->c1);
}
void EE(conj)(E *r, const E *a) {
    r->c0 = a->c0;
    FE(neg)(&r->c1, &a->c1);
}
void EE(mul)(E *r, const E *a, const E *b) {
    /* Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
    F t0, t1, s0, s1;
    FE(mul)(&t0, &a->c0, &b->c0);
    FE(mul)(&t1, &a->c1, &b->c1);
    FE(add)(&s0, &a->c0, &a->c1);
    FE(add)(&s1, &b->c0, &b->c1);
    FE(mul)(&s0, &s0, &s1);
    FE(sub)(&r->c0, &t0, &t1);
    FE(sub)(&s0, &s0, &t0);
    FE(sub)(&r->c1, &s0, &t1);
}
void EE(sqr)(E *r, const E *a) {
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    F s, d, m;
    FE(add)(&s, &a->c0, &a->c1);
    FE(sub)(&d, &a->c0, &a->c1);
    FE(mul)(&m, &a->c0, &a->c1);
    FE(mul)(&r->c0, &s, &d);
    FE(dbl)(&r->c1, &m);
}
void EE(mul_fp)(E *r, const E *a, const F *b) {
    FE(mul)(&r->c0, &a->c0, b);
    FE(mul)(&r->c1, &a->c1, b);
}
void EE(mul_xi)(E *r, const E *a) {
    /* (a0 + a1 u)(k + u) = (k a0 - a1) + (a0 + k a1) u, k small */
    F t0, t1, k0, k1;
    FE(set_u64)(&k0, XI_C0);
    FE(mul)(&t0, &a->c0, &k0);
    FE(mul)(&k1, &a->c1, &k0);
    FE(sub)(&t0, &t0, &a->c1);
    FE(add)(&t1, &k1, &a->c0);
    r->c0 = t0;
    r->c1 = t1;
}
static void EE(inv_with)(E *r, const E *a, void (*finv)(F *, const F *)) {
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    F n, t;
    FE(sqr)(&n, &a->c0);
    FE(sqr)(&t, &a->c1);
    FE(add)(&n, &n, &t);
    finv(&n, &n);
    FE(mul)(&r->c0, &a->c0, &n);
    FE(mul)(&t, &a->c1, &n);
    FE(neg)(&r->c1, &t);
}
void EE(inv)(E *r, const E *a) { EE(inv_with)(r, a, FE(inv)); }
void EE(inv_var)(E *r, const E *a) { EE(inv_with)(r, a, FE(inv_var)); }
void EE(set_zero)(E *r) {
    FE(set_zero)(&r->c0);
    FE(set_zero)(&r->c1);
}
void EE(set_one)(E *r) {
    FE(set_one)(&r->c0);
    FE(set_zero)(&r->c1);
}
int EE(is_zero)(const E *a) { return FE(is_zero)(&a->c0) & FE(is_zero)(&a->c1); }
int EE(is_one)(const E *a) { return FE(is_one)(&a->c0) & FE(is_zero)(&a->c1); }
int EE(eq)(const E *a, const E *b) {
    return FE(eq)(&a->c0, &b->c0) & FE(eq)(&a->c1, &b->c1);
}
void EE(pow)(E *r, const E *a, const uint64_t *e, size_t e_limbs) {
    E acc, base = *a;
    EE(set_one)(&acc);
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            EE(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1)
                EE(mul)(&acc, &acc, &base);
        }
    *r = acc;
}
int EE(is_square)(const E *a) {
    /* a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp. */
    F n, t;
    FE(sqr)(&n, &a->c0);
    FE(sqr)(&t, &a->c1);
    FE(add)(&n, &n, &t);
    return FE(legendre)(&n) >= 0;
}
int EE(sqrt)(E *r, const E *a) {
    /*
     * Complex method for p = 3 mod 4 (u^2 = -1): with n = sqrt(a0^2 + a1^2),
     * x0 = sqrt((a0 + n)/2) (or with -n if that is not a square),
     * x1 = a1 / (2 x0); the result is checked by squaring.
     */
    F n, t, half, x0, x1;
    E chk, cand;
    if (EE(is_zero)(a)) {
        EE(set_zero)(r);
        return 1;
    }
    FE(sqr)(&n, &a->c0);
    FE(sqr)(&t, &a->c1);
    FE(add)(&n, &n, &t);
    if (!FE(sqrt)(&n, &n))
        return 0;
    FE(set_u64)(&half, 2);
    FE(inv_var)(&half, &half);
    FE(add)(&t, &a->c0, &n);
    FE(mul)(&t, &t, &half);
    if (!FE(sqrt)(&x0, &t)) {
        FE(sub)(&t, &a->c0, &n);
        FE(mul)(&t, &t, &half);
        if (!FE(sqrt)(&x0, &t))
            return 0;
    }
    if (FE(is_zero)(&x0)) {
        /* a0 + n = 0 and a0 - n = 0 cannot both hold unless a = a1 u with
         * -a1... handled by the a1-only case: x = sqrt(-a0) u */
        FE(neg)(&t, &a->c0);
        if (!FE(sqrt)(&x1, &t))
            return 0;
        FE(set_zero)(&cand.c0);
        cand.c1 = x1;
    } else {
        FE(dbl)(&t, &x0);
        FE(inv_var)(&t, &t);
        FE(mul)(&x1, &a->c1, &t);
        cand.c0 = x0;
        cand.c1 = x1;
    }
    EE(sqr)(&chk, &cand);
    if (!EE(eq)(&chk, a))
        return 0;
    *r = cand;
    return 1;
}

#undef EE
#undef FE
