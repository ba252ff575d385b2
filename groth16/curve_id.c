/*
 * Curve identification for the circom/snarkjs readers (see curve_id.h).
 * Every answer comes from the curves' facts (curve_facts.h): names, primes
 * and sizes are listed there once per curve, so nothing here names a
 * curve.  The primes are the moduli that field/ exports (derived by
 * scripts/gen_consts.py and checked by tests/test_field.c).
 */
#include "groth16/curve_id.h"

#include <ctype.h>
#include <string.h>

#include "groth16/curve_facts.h"

const char *cuzk_curve_snarkjs_name(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->name : "none";
}

cuzk_curve cuzk_curve_from_name(const char *name) {
    /* snarkjs upper-cases the name and drops everything but [A-Z0-9]. */
    char norm[32];
    size_t n = 0, count;
    if (name == NULL)
        return CUZK_CURVE_NONE;
    for (const char *p = name; *p; p++) {
        if (!isalnum((unsigned char)*p))
            continue;
        if (n + 1 >= sizeof norm)
            return CUZK_CURVE_NONE;
        norm[n++] = (char)tolower((unsigned char)*p);
    }
    norm[n] = '\0';
    const cuzk_curve_facts *const *all = cuzk_curve_facts_all(&count);
    for (size_t i = 0; i < count; i++)
        for (const char *const *a = all[i]->aliases; *a; a++)
            if (!strcmp(norm, *a))
                return all[i]->id;
    return CUZK_CURVE_NONE;
}

/* 1 iff the |n8| little-endian bytes at |p| equal the |limbs|-limb integer
 * |m| (n8 must be exactly 8 * limbs: the files use the minimal width). */
static int prime_eq(const uint8_t *p, uint32_t n8, const uint64_t *m,
                    size_t limbs) {
    if (n8 != 8 * limbs)
        return 0;
    for (size_t i = 0; i < limbs; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--)
            w = (w << 8) | p[8 * i + (size_t)j];
        if (w != m[i])
            return 0;
    }
    return 1;
}

cuzk_curve cuzk_curve_from_r(const uint8_t *prime, uint32_t n8) {
    size_t count;
    const cuzk_curve_facts *const *all = cuzk_curve_facts_all(&count);
    for (size_t i = 0; i < count; i++)
        if (prime_eq(prime, n8, all[i]->r_limbs, 4))
            return all[i]->id;
    return CUZK_CURVE_NONE;
}

cuzk_curve cuzk_curve_from_q(const uint8_t *prime, uint32_t n8) {
    size_t count;
    const cuzk_curve_facts *const *all = cuzk_curve_facts_all(&count);
    for (size_t i = 0; i < count; i++)
        if (prime_eq(prime, n8, all[i]->q_limbs, all[i]->q_n_limbs))
            return all[i]->id;
    return CUZK_CURVE_NONE;
}

uint32_t cuzk_curve_n8q(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->n8q : 0;
}
uint32_t cuzk_curve_n8r(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->n8r : 0;
}
uint32_t cuzk_curve_g1_bytes(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->g1_bytes : 0;
}
uint32_t cuzk_curve_g2_bytes(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->g2_bytes : 0;
}

unsigned cuzk_curve_two_adicity(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->two_adicity : 0;
}

const uint64_t *cuzk_curve_r_limbs(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->r_limbs : NULL;
}

const uint64_t *cuzk_curve_q_limbs(cuzk_curve c) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    return ci ? ci->q_limbs : NULL;
}

cuzk_status cuzk_fr_from_le(cuzk_curve c, cuzk_fr *r, const uint8_t in[32],
                            cuzk_error *err) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "no curve chosen for a scalar");
    if (ci->fr_from_le(r, in) != CUZK_OK)
        return cuzk_fail(err, CUZK_ERANGE, "value is not below r");
    return CUZK_OK;
}

/* The operations below need a real curve (curve_id.h); for any other value
 * they leave their output alone rather than guess a field. */
void cuzk_fr_to_le(cuzk_curve c, uint8_t out[32], const cuzk_fr *a) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci)
        ci->fr_to_le(out, a);
}

static void le_to_limbs(uint64_t out[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++)
        out[i] = cuzk_rd_u64(in + 8 * i);
}

static int limbs_below(const uint64_t *a, const uint64_t *m, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != m[i])
            return a[i] < m[i];
    return 0;
}

cuzk_status cuzk_fr_redc(cuzk_curve c, cuzk_fr *r, const uint8_t in[32],
                         cuzk_error *err) {
    cuzk_fr raw;
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "no curve chosen for a scalar");
    le_to_limbs(raw.l, in);
    if (!limbs_below(raw.l, ci->r_limbs, 4))
        return cuzk_fail(err, CUZK_ERANGE, "value is not below r");
    /* from_mont is exactly one Montgomery reduction of the limbs. */
    ci->fr_from_mont(r->l, &raw);
    return CUZK_OK;
}

void cuzk_fr_mul(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci)
        ci->fr_mul(r, a, b);
}

void cuzk_fr_add(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci)
        ci->fr_add(r, a, b);
}

void cuzk_fr_sub(cuzk_curve c, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci)
        ci->fr_sub(r, a, b);
}

void cuzk_fr_set_one(cuzk_curve c, cuzk_fr *r) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(c);
    if (ci)
        ci->fr_set_one(r);
}

int cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b) {
    return memcmp(a->l, b->l, sizeof a->l) == 0;
}
