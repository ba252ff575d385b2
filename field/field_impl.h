/*
 * Generic n-limb Montgomery arithmetic (internal).
 *
 * Each routine is a plain loop over n 64-bit little-endian limbs; the
 * per-field entry points in field.c call them with a constant n and the
 * field's constants, so the compiler unrolls and specialises them.  This is
 * the portable reference: it uses unsigned __int128 and nothing else.
 *
 * Preconditions shared by every routine: all four moduli leave the top bit
 * of their top limb clear (p < 2^(64n-1)), which lets additions and the
 * Montgomery product skip the extra carry word.  Inputs are fully reduced
 * (< p); outputs are fully reduced.  Outputs may alias inputs.
 *
 * Must not: allocate, branch on secret data in the routines not marked
 * _var, or touch global state.
 */
#ifndef CUZK_FIELD_IMPL_H
#define CUZK_FIELD_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CUZK_INLINE static inline __attribute__((always_inline))
#define CUZK_MAX_LIMBS 8

typedef unsigned __int128 cuzk_u128;

#if defined(__x86_64__)
#include <x86intrin.h>
/* adc/sbb chains: gcc turns these into single carry-flag instructions,
 * where the __int128 form costs several instructions per limb. */
#define CUZK_ADDC(c, a, b, out) _addcarry_u64((c), (a), (b), (unsigned long long *)(out))
#define CUZK_SUBB(c, a, b, out) _subborrow_u64((c), (a), (b), (unsigned long long *)(out))
#else
CUZK_INLINE unsigned char cuzk_addc(unsigned char c, uint64_t a, uint64_t b, uint64_t *out) {
    cuzk_u128 s = (cuzk_u128)a + b + c;
    *out = (uint64_t)s;
    return (unsigned char)(s >> 64);
}
CUZK_INLINE unsigned char cuzk_subb(unsigned char c, uint64_t a, uint64_t b, uint64_t *out) {
    cuzk_u128 d = (cuzk_u128)a - b - c;
    *out = (uint64_t)d;
    return (unsigned char)((d >> 64) & 1);
}
#define CUZK_ADDC(c, a, b, out) cuzk_addc((c), (a), (b), (out))
#define CUZK_SUBB(c, a, b, out) cuzk_subb((c), (a), (b), (out))
#endif

/* r = a - b over n limbs; returns the borrow (0 or 1). */
CUZK_INLINE uint64_t limbs_sub(uint64_t *r, const uint64_t *a,
                               const uint64_t *b, size_t n) {
    unsigned char borrow = 0;
    for (size_t i = 0; i < n; i++)
        borrow = CUZK_SUBB(borrow, a[i], b[i], &r[i]);
    return borrow;
}

/* r = a + b over n limbs; returns the carry. */
CUZK_INLINE uint64_t limbs_add(uint64_t *r, const uint64_t *a,
                               const uint64_t *b, size_t n) {
    unsigned char carry = 0;
    for (size_t i = 0; i < n; i++)
        carry = CUZK_ADDC(carry, a[i], b[i], &r[i]);
    return carry;
}

/* r = (t >= p) ? t - p : t, in constant time; t < 2p. */
CUZK_INLINE void limbs_reduce_once(uint64_t *r, const uint64_t *t,
                                   const uint64_t *p, size_t n) {
    uint64_t d[CUZK_MAX_LIMBS];
    uint64_t borrow = limbs_sub(d, t, p, n);
    uint64_t keep_t = 0 - borrow; /* all ones if t < p */
    for (size_t i = 0; i < n; i++)
        r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

CUZK_INLINE void mod_add_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                           const uint64_t *p, size_t n) {
    uint64_t t[CUZK_MAX_LIMBS];
    limbs_add(t, a, b, n); /* no carry out: a + b < 2p < 2^(64n) */
    limbs_reduce_once(r, t, p, n);
}

CUZK_INLINE void mod_sub_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                           const uint64_t *p, size_t n) {
    uint64_t t[CUZK_MAX_LIMBS], q[CUZK_MAX_LIMBS];
    uint64_t borrow = limbs_sub(t, a, b, n);
    uint64_t mask = 0 - borrow;
    for (size_t i = 0; i < n; i++)
        q[i] = p[i] & mask;
    limbs_add(r, t, q, n);
}

CUZK_INLINE void mod_neg_n(uint64_t *r, const uint64_t *a, const uint64_t *p,
                           size_t n) {
    uint64_t nz = 0, t[CUZK_MAX_LIMBS];
    for (size_t i = 0; i < n; i++)
        nz |= a[i];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    limbs_sub(t, p, a, n);
    for (size_t i = 0; i < n; i++)
        r[i] = t[i] & mask;
}

/*
 * Montgomery product r = a*b/R mod p, CIOS with the "no final carry"
 * shortcut (valid because p's top limb is < 2^63 - 1).
 */
CUZK_INLINE void mont_mul_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                            const uint64_t *p, uint64_t n0, size_t n) {
    uint64_t t[CUZK_MAX_LIMBS] = {0};
    for (size_t i = 0; i < n; i++) {
        /* t += a * b[i] */
        cuzk_u128 acc = (cuzk_u128)a[0] * b[i] + t[0];
        uint64_t A = (uint64_t)(acc >> 64);
        t[0] = (uint64_t)acc;
        uint64_t m = t[0] * n0;
        acc = (cuzk_u128)m * p[0] + t[0];
        uint64_t C = (uint64_t)(acc >> 64);
        for (size_t j = 1; j < n; j++) {
            acc = (cuzk_u128)a[j] * b[i] + t[j] + A;
            A = (uint64_t)(acc >> 64);
            acc = (cuzk_u128)m * p[j] + (uint64_t)acc + C;
            C = (uint64_t)(acc >> 64);
            t[j - 1] = (uint64_t)acc;
        }
        t[n - 1] = C + A;
    }
    limbs_reduce_once(r, t, p, n);
}

/* Montgomery reduction of a single-width value: r = a / R mod p. */
CUZK_INLINE void mont_redc_n(uint64_t *r, const uint64_t *a, const uint64_t *p,
                             uint64_t n0, size_t n) {
    uint64_t one[CUZK_MAX_LIMBS] = {1};
    mont_mul_n(r, a, one, p, n0, n);
}

CUZK_INLINE int limbs_is_zero(const uint64_t *a, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

CUZK_INLINE int limbs_eq(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i] ^ b[i];
    return acc == 0;
}

/* a < b as unsigned integers (variable time). */
CUZK_INLINE int limbs_lt_var(const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = n; i-- > 0;) {
        if (a[i] != b[i])
            return a[i] < b[i];
    }
    return 0;
}

#endif
