/*
 * One prime field's entry points, stamped out by field.c once per field.
 *
 * Before including, define:
 *   FIELD   the type name (e.g. bls12_381_fp)
 *   FN      the limb count
 *   FC(x)   the constant of that field named x (e.g. BLS12_381_FP_##x)
 *   FIELD_SQRT_3MOD4  1 if p = 3 mod 4 (square root by one exponentiation),
 *                     0 to use Tonelli-Shanks
 * The arithmetic itself lives in field_impl.h; this file only supplies
 * constants and wraps the limb routines with the field's types.
 */
#include "util/paste.h"
#define FF(x) CUZK_PASTE(FIELD, x)

static const uint64_t FF(p)[FN] = FC(P);
static const uint64_t FF(one_m)[FN] = FC(ONE);
static const uint64_t FF(r2)[FN] = FC(R2);
static const uint64_t FF(pm2)[FN] = FC(PM2);
static const uint64_t FF(pm1h)[FN] = FC(PM1H);
const uint64_t FF(modulus)[FN] = FC(P);

void FF(add)(FIELD *r, const FIELD *a, const FIELD *b) {
    mod_add_n(r->l, a->l, b->l, FF(p), FN);
}
void FF(sub)(FIELD *r, const FIELD *a, const FIELD *b) {
    mod_sub_n(r->l, a->l, b->l, FF(p), FN);
}
void FF(neg)(FIELD *r, const FIELD *a) { mod_neg_n(r->l, a->l, FF(p), FN); }
void FF(dbl)(FIELD *r, const FIELD *a) {
    mod_add_n(r->l, a->l, a->l, FF(p), FN);
}
void FF(mul)(FIELD *r, const FIELD *a, const FIELD *b) {
#if CUZK_FIELD_ASM
    if (cuzk_cpu_adx) {
        uint64_t t[FN];
        CUZK_MONT_ADX(FN)(t, a->l, b->l, FF(p), FC(N0));
        limbs_reduce_once(r->l, t, FF(p), FN);
        return;
    }
#endif
    mont_mul_n(r->l, a->l, b->l, FF(p), FC(N0), FN);
}
void FF(sqr)(FIELD *r, const FIELD *a) { FF(mul)(r, a, a); }
void FF(set_zero)(FIELD *r) { memset(r, 0, sizeof *r); }
void FF(set_one)(FIELD *r) { memcpy(r->l, FF(one_m), sizeof r->l); }
void FF(set_u64)(FIELD *r, uint64_t v) {
    uint64_t t[FN] = {v};
    FF(to_mont)(r, t); /* v < p for every field here */
}
int FF(is_zero)(const FIELD *a) { return limbs_is_zero(a->l, FN); }
int FF(is_one)(const FIELD *a) { return limbs_eq(a->l, FF(one_m), FN); }
int FF(eq)(const FIELD *a, const FIELD *b) { return limbs_eq(a->l, b->l, FN); }

void FF(pow)(FIELD *r, const FIELD *a, const uint64_t *e, size_t e_limbs) {
    /* Left-to-right square and multiply; the sequence of operations depends
     * only on the exponent, which is public everywhere we use it. */
    FIELD acc, base = *a;
    FF(set_one)(&acc);
    for (size_t i = e_limbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            FF(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1)
                FF(mul)(&acc, &acc, &base);
        }
    }
    *r = acc;
}

void FF(inv)(FIELD *r, const FIELD *a) { FF(pow)(r, a, FF(pm2), FN); }

/* Halve x modulo p (x < p). */
static void FF(halve_mod)(uint64_t *x) {
    uint64_t t[FN + 1];
    uint64_t carry = 0;
    if (x[0] & 1)
        carry = limbs_add(t, x, FF(p), FN);
    else
        memcpy(t, x, sizeof(uint64_t) * FN);
    for (size_t i = 0; i < FN; i++) {
        uint64_t hi = (i + 1 < FN) ? t[i + 1] : carry;
        x[i] = (t[i] >> 1) | (hi << 63);
    }
}

static void FF(shr1)(uint64_t *x) {
    for (size_t i = 0; i < FN; i++) {
        uint64_t hi = (i + 1 < FN) ? x[i + 1] : 0;
        x[i] = (x[i] >> 1) | (hi << 63);
    }
}

void FF(inv_var)(FIELD *r, const FIELD *a) {
    /* Binary extended Euclid on the Montgomery image A = aR gives A^-1
     * (plain); two Montgomery products by R^2 turn it into a^-1 R. */
    if (FF(is_zero)(a)) {
        FF(set_zero)(r);
        return;
    }
    uint64_t u[FN], v[FN], x1[FN] = {1}, x2[FN] = {0};
    static const uint64_t one[FN] = {1};
    memcpy(u, a->l, sizeof u);
    memcpy(v, FF(p), sizeof v);
    while (!limbs_eq(u, one, FN) && !limbs_eq(v, one, FN)) {
        while ((u[0] & 1) == 0) {
            FF(shr1)(u);
            FF(halve_mod)(x1);
        }
        while ((v[0] & 1) == 0) {
            FF(shr1)(v);
            FF(halve_mod)(x2);
        }
        if (!limbs_lt_var(u, v, FN)) {
            limbs_sub(u, u, v, FN);
            mod_sub_n(x1, x1, x2, FF(p), FN);
        } else {
            limbs_sub(v, v, u, FN);
            mod_sub_n(x2, x2, x1, FF(p), FN);
        }
    }
    uint64_t *x = limbs_eq(u, one, FN) ? x1 : x2;
    mont_mul_n(x, x, FF(r2), FF(p), FC(N0), FN);
    mont_mul_n(r->l, x, FF(r2), FF(p), FC(N0), FN);
}

void FF(batch_inv)(FIELD *out, const FIELD *in, size_t n) {
    /* out[i] holds the prefix product of the non-zero inputs before i;
     * one inversion, then a backward sweep. in and out may not alias. */
    FIELD acc, inv;
    FF(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!FF(is_zero)(&in[i]))
            FF(mul)(&acc, &acc, &in[i]);
    }
    FF(inv_var)(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FF(is_zero)(&in[i])) {
            FF(set_zero)(&out[i]);
            continue;
        }
        FIELD t;
        FF(mul)(&t, &out[i], &inv);
        FF(mul)(&inv, &inv, &in[i]);
        out[i] = t;
    }
}

int FF(legendre)(const FIELD *a) {
    FIELD t;
    if (FF(is_zero)(a))
        return 0;
    FF(pow)(&t, a, FF(pm1h), FN);
    return FF(is_one)(&t) ? 1 : -1;
}

int FF(sqrt)(FIELD *r, const FIELD *a) {
    if (FF(is_zero)(a)) {
        FF(set_zero)(r);
        return 1;
    }
#if FIELD_SQRT_3MOD4
    static const uint64_t e[FN] = FC(SQRT_EXP);
    FIELD x, chk;
    FF(pow)(&x, a, e, FN);
    FF(sqr)(&chk, &x);
    if (!FF(eq)(&chk, a))
        return 0;
    *r = x;
    return 1;
#else
    /* Tonelli-Shanks with p - 1 = 2^S t. */
    static const uint64_t tm1h[FN] = FC(TM1H);
    static const FIELD root = {FC(ROOT_MONT)};
    FIELD x, b, z = root, w;
    unsigned m = FC(S);
    FF(pow)(&w, a, tm1h, FN);   /* a^((t-1)/2) */
    FF(mul)(&x, a, &w);         /* a^((t+1)/2) */
    FF(mul)(&b, &x, &w);        /* a^t */
    while (!FF(is_one)(&b)) {
        unsigned k = 0;
        FIELD b2 = b;
        while (!FF(is_one)(&b2)) {
            FF(sqr)(&b2, &b2);
            if (++k == m)
                return 0; /* not a square */
        }
        w = z;
        for (unsigned i = 0; i + k + 1 < m; i++)
            FF(sqr)(&w, &w);
        FF(sqr)(&z, &w);
        FF(mul)(&b, &b, &z);
        FF(mul)(&x, &x, &w);
        m = k;
    }
    *r = x;
    return 1;
#endif
}

void FF(from_mont)(uint64_t out[FN], const FIELD *a) {
    mont_redc_n(out, a->l, FF(p), FC(N0), FN);
}

void FF(to_mont)(FIELD *r, const uint64_t in[FN]) {
    mont_mul_n(r->l, in, FF(r2), FF(p), FC(N0), FN);
}

cuzk_status FF(from_limbs)(FIELD *r, const uint64_t in[FN], cuzk_error *err) {
    if (!limbs_lt_var(in, FF(p), FN))
        return cuzk_fail(err, CUZK_ERANGE,
                         "field element is not below the modulus");
    FF(to_mont)(r, in);
    return CUZK_OK;
}

cuzk_status FF(from_bytes_le)(FIELD *r, const uint8_t in[8 * FN],
                              cuzk_error *err) {
    uint64_t t[FN];
    for (size_t i = 0; i < FN; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--)
            w = (w << 8) | in[8 * i + j];
        t[i] = w;
    }
    return FF(from_limbs)(r, t, err);
}

cuzk_status FF(from_bytes_be)(FIELD *r, const uint8_t in[8 * FN],
                              cuzk_error *err) {
    uint8_t le[8 * FN];
    for (size_t i = 0; i < 8 * FN; i++)
        le[i] = in[8 * FN - 1 - i];
    return FF(from_bytes_le)(r, le, err);
}

void FF(to_bytes_le)(uint8_t out[8 * FN], const FIELD *a) {
    uint64_t t[FN];
    FF(from_mont)(t, a);
    for (size_t i = 0; i < FN; i++)
        for (int j = 0; j < 8; j++)
            out[8 * i + j] = (uint8_t)(t[i] >> (8 * j));
}

void FF(to_bytes_be)(uint8_t out[8 * FN], const FIELD *a) {
    uint8_t le[8 * FN];
    FF(to_bytes_le)(le, a);
    for (size_t i = 0; i < 8 * FN; i++)
        out[i] = le[8 * FN - 1 - i];
}

cuzk_status FF(from_dec)(FIELD *r, const char *s, cuzk_error *err) {
    uint64_t t[FN];
    cuzk_status st = cuzk_limbs_from_dec(t, FN, s, err);
    if (st != CUZK_OK)
        return st;
    return FF(from_limbs)(r, t, err);
}

size_t FF(to_dec)(char *out, size_t cap, const FIELD *a) {
    uint64_t t[FN];
    FF(from_mont)(t, a);
    return cuzk_limbs_to_dec(out, cap, t, FN);
}

#undef FF
