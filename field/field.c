/*
 * Instantiates the four prime fields (see field.h) and the plain-integer
 * decimal helpers.  Constants come from consts_gen.h, which
 * scripts/gen_consts.py derives from the curve parameters and
 * tests/test_field.c re-checks with GMP.
 */
#include "field/field.h"

#include <string.h>

#include "field/consts_gen.h"
#include "field/field_impl.h"

/*
 * x86-64 with BMI2 and ADX (every x86 server CPU since 2015) multiplies with
 * generated mulx/adcx/adox code; anything else takes the portable C in
 * field_impl.h, which stays the reference.  The check runs once at load
 * time; CUZK_NO_ASM=1 in the environment forces the portable path (tests
 * run both).
 */
#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
#define CUZK_FIELD_ASM 1
#include <cpuid.h>
#include <stdlib.h>
#include "field/mont_x86_gen.h"
#define CUZK_MONT_ADX2(n) cuzk_mont_mul_##n##_adx
#define CUZK_MONT_ADX(n) CUZK_MONT_ADX2(n)
static int cuzk_cpu_adx;
__attribute__((constructor)) static void cuzk_field_detect_cpu(void) {
    /* CPUID leaf 7: EBX bit 8 = BMI2 (mulx), bit 19 = ADX (adcx/adox).
     * Read directly: clang 14 has no __builtin_cpu_supports("adx"). */
    const char *off = getenv("CUZK_NO_ASM");
    unsigned a, b, c, d;
    int have = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 8)) &&
               (b & (1u << 19));
    cuzk_cpu_adx = have && !(off && *off == '1');
}
int cuzk_field_uses_asm(void) { return cuzk_cpu_adx; }
#else
#define CUZK_FIELD_ASM 0
int cuzk_field_uses_asm(void) { return 0; }
#endif

#define FIELD bls12_381_fp
#define FN 6
#define FC(x) BLS12_381_FP_##x
#define FIELD_SQRT_3MOD4 1
#include "field/field_template.h"
#undef FIELD
#undef FN
#undef FC
#undef FIELD_SQRT_3MOD4

#define FIELD bls12_381_fr
#define FN 4
#define FC(x) BLS12_381_FR_##x
#define FIELD_SQRT_3MOD4 0
#include "field/field_template.h"
#undef FIELD
#undef FN
#undef FC
#undef FIELD_SQRT_3MOD4

#define FIELD bn254_fp
#define FN 4
#define FC(x) BN254_FP_##x
#define FIELD_SQRT_3MOD4 1
#include "field/field_template.h"
#undef FIELD
#undef FN
#undef FC
#undef FIELD_SQRT_3MOD4

#define FIELD bn254_fr
#define FN 4
#define FC(x) BN254_FR_##x
#define FIELD_SQRT_3MOD4 0
#include "field/field_template.h"
#undef FIELD
#undef FN
#undef FC
#undef FIELD_SQRT_3MOD4

cuzk_status bls12_381_fr_root_of_unity(bls12_381_fr *r, unsigned log_n) {
    static const bls12_381_fr root = {BLS12_381_FR_ROOT_MONT};
    if (log_n > BLS12_381_FR_S)
        return CUZK_ERANGE;
    *r = root;
    for (unsigned i = log_n; i < BLS12_381_FR_S; i++)
        bls12_381_fr_sqr(r, r);
    return CUZK_OK;
}

cuzk_status bn254_fr_root_of_unity(bn254_fr *r, unsigned log_n) {
    static const bn254_fr root = {BN254_FR_ROOT_MONT};
    if (log_n > BN254_FR_S)
        return CUZK_ERANGE;
    *r = root;
    for (unsigned i = log_n; i < BN254_FR_S; i++)
        bn254_fr_sqr(r, r);
    return CUZK_OK;
}

size_t cuzk_limbs_to_dec(char *out, size_t cap, const uint64_t *a, size_t n) {
    /* Repeated division by 10^19; digits come out least significant first. */
    uint64_t t[CUZK_MAX_LIMBS];
    char tmp[20 * CUZK_MAX_LIMBS + 1];
    size_t len = 0;
    memcpy(t, a, n * sizeof *t);
    do {
        cuzk_u128 rem = 0;
        for (size_t i = n; i-- > 0;) {
            cuzk_u128 cur = (rem << 64) | t[i];
            t[i] = (uint64_t)(cur / 10000000000000000000ULL);
            rem = cur % 10000000000000000000ULL;
        }
        uint64_t chunk = (uint64_t)rem;
        int last = limbs_is_zero(t, n);
        for (int d = 0; d < 19 && (!last || chunk); d++) {
            tmp[len++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
    } while (!limbs_is_zero(t, n));
    if (len == 0)
        tmp[len++] = '0';
    if (cap == 0)
        return len;
    size_t w = len < cap - 1 ? len : cap - 1;
    for (size_t i = 0; i < w; i++)
        out[i] = tmp[len - 1 - i];
    out[w] = '\0';
    return len;
}

cuzk_status cuzk_limbs_from_dec(uint64_t *r, size_t n, const char *s,
                                cuzk_error *err) {
    uint64_t t[CUZK_MAX_LIMBS] = {0};
    if (s == NULL || *s == '\0')
        return cuzk_fail(err, CUZK_EFORMAT, "empty decimal number");
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return cuzk_fail(err, CUZK_EFORMAT,
                             "decimal number has a non-digit character");
        uint64_t carry = (uint64_t)(*c - '0');
        for (size_t i = 0; i < n; i++) {
            cuzk_u128 v = (cuzk_u128)t[i] * 10 + carry;
            t[i] = (uint64_t)v;
            carry = (uint64_t)(v >> 64);
        }
        if (carry)
            return cuzk_fail(err, CUZK_ERANGE, "decimal number too large");
    }
    memcpy(r, t, n * sizeof *t);
    return CUZK_OK;
}
