/*
 * input.c: circom's input.json, read the way `snarkjs wtns calculate` reads
 * it, into field elements of the circuit's prime.
 *
 * What snarkjs 0.7 does (ffjavascript's unstringifyBigInts, then
 * circom_runtime's flatArray and normalize), and so what this does:
 * - every top-level member is an input signal, in the file's order; its
 *   value is flattened (nested arrays, row-major) and must have exactly as
 *   many elements as getInputSignalSize says;
 * - each element goes through JavaScript's BigInt(): numbers must be
 *   integers (JSON numbers are doubles: 12345678901234567890 becomes
 *   12345678901234567168, as in JavaScript); strings may have surrounding
 *   white space, a sign (decimal only), a 0x / 0o / 0b prefix; the empty
 *   string is 0; true is 1 and false 0; null, objects and anything else
 *   are errors;
 * - the value is reduced mod p, negative values to p - |v| mod p.  Values
 *   >= p are therefore accepted and reduced, silently, as snarkjs does.
 *
 * Arithmetic here is plain schoolbook on 32-bit words: inputs are small and
 * this is not on any hot path.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "witness/internal.h"

#include <jansson.h>

void wc_fnv1a(const char *name, uint32_t *hi, uint32_t *lo) {
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *s = (const unsigned char *)name;
    while (*s) {
        /* one UTF-8 sequence -> its UTF-16 code units */
        uint32_t cp = *s++;
        int extra = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;
        if (extra)
            cp &= 0x3f >> extra;
        for (; extra && (*s & 0xc0) == 0x80; extra--)
            cp = cp << 6 | (*s++ & 0x3f);
        uint32_t units[2] = {cp, 0};
        int n = 1;
        if (cp >= 0x10000) {
            units[0] = 0xd800 + ((cp - 0x10000) >> 10);
            units[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
            n = 2;
        }
        for (int i = 0; i < n; i++) {
            h ^= units[i];
            h *= 0x100000001b3ull;
        }
    }
    *hi = (uint32_t)(h >> 32);
    *lo = (uint32_t)h;
}

/* ---- arithmetic mod p on WC_WORDS words ---------------------------------------- */

static int ge(const uint32_t *a, const uint32_t *p, unsigned n) {
    for (unsigned i = n; i-- > 0;)
        if (a[i] != p[i])
            return a[i] > p[i];
    return 1;
}

static void sub(uint32_t *a, const uint32_t *p, unsigned n) {
    uint64_t borrow = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t d = (uint64_t)a[i] - p[i] - borrow;
        a[i] = (uint32_t)d;
        borrow = (d >> 63) & 1;
    }
}

/* acc = acc * m + d mod p, for acc < p, m <= 16, d < m. */
static void mul_add(uint32_t *acc, uint32_t m, uint32_t d, const uint32_t *p) {
    uint32_t t[WC_WORDS + 1];
    uint64_t carry = d;
    for (unsigned i = 0; i < WC_WORDS; i++) {
        uint64_t v = (uint64_t)acc[i] * m + carry;
        t[i] = (uint32_t)v;
        carry = v >> 32;
    }
    t[WC_WORDS] = (uint32_t)carry;
    uint32_t pp[WC_WORDS + 1];
    memcpy(pp, p, WC_WORDS * sizeof *p);
    pp[WC_WORDS] = 0;
    while (ge(t, pp, WC_WORDS + 1))
        sub(t, pp, WC_WORDS + 1);
    memcpy(acc, t, WC_WORDS * sizeof *acc);
}

static void negate(uint32_t *acc, const uint32_t *p) {
    int zero = 1;
    for (unsigned i = 0; i < WC_WORDS; i++)
        zero &= acc[i] == 0;
    if (zero)
        return;
    uint32_t t[WC_WORDS];
    memcpy(t, p, sizeof t);
    sub(t, acc, WC_WORDS);
    memcpy(acc, t, sizeof t);
}

/* BigInt(string): 0 on success, -1 if JavaScript would throw. */
static int from_string(uint32_t *out, const char *s, const uint32_t *p) {
    memset(out, 0, WC_WORDS * sizeof *out);
    const char *end = s + strlen(s);
    while (*s && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (s == end)
        return 0; /* BigInt("") is 0 */
    int neg = 0;
    unsigned base = 10;
    if (end - s > 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
        base = s[1] == 'x' || s[1] == 'X' ? 16 : s[1] == 'o' || s[1] == 'O' ? 8 : 2;
        s += 2;
    } else if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
        if (s == end)
            return -1;
    }
    for (; s < end; s++) {
        int c = (unsigned char)*s, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        if ((unsigned)d >= base)
            return -1;
        mul_add(out, base, (uint32_t)d, p);
    }
    if (neg)
        negate(out, p);
    return 0;
}

/* BigInt(number): exact value of an integral double, mod p. */
static int from_double(uint32_t *out, double v, const uint32_t *p) {
    memset(out, 0, WC_WORDS * sizeof *out);
    if (!isfinite(v) || v != floor(v))
        return -1;
    int neg = v < 0;
    double a = fabs(v);
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
    uint64_t mant = (uint64_t)ldexp(m, 53);
    int shift = e - 53; /* a = mant * 2^shift */
    if (shift < 0) {
        mant >>= -shift;
        shift = 0;
    }
    for (int b = 63; b >= 0; b--) /* the mantissa, bit by bit */
        if (mant >> b || b == 0) {
            for (int k = b; k >= 0; k--)
                mul_add(out, 2, (uint32_t)(mant >> k) & 1, p);
            break;
        }
    for (int k = 0; k < shift; k++)
        mul_add(out, 2, 0, p);
    if (neg)
        negate(out, p);
    return 0;
}

void cuzk_wc_input_free(cuzk_wc_input *in) {
    if (!in)
        return;
    free(in->signals);
    free(in->values);
    cuzk_wc_circuit_free((cuzk_wc_circuit *)in->c); /* the input's reference */
    free(in);
}

size_t cuzk_wc_input_count(const cuzk_wc_input *in) { return in->n_values; }

static void flatten_count(json_t *v, size_t *n) {
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) flatten_count(x, n);
    } else {
        (*n)++;
    }
}

/* Converts the flattened elements of |v| into |out| (advancing *k). */
static cuzk_status flatten_values(json_t *v, uint32_t *out, size_t *k, const uint32_t *p,
                                  const char *signal, cuzk_error *err) {
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            cuzk_status s = flatten_values(x, out, k, p, signal, err);
            if (s != CUZK_OK)
                return s;
        }
        return CUZK_OK;
    }
    uint32_t *dst = out + *k * WC_WORDS;
    int bad = 0;
    char shown[64] = "";
    if (json_is_string(v)) {
        bad = from_string(dst, json_string_value(v), p);
        snprintf(shown, sizeof shown, "%.40s", json_string_value(v));
    } else if (json_is_real(v)) {
        bad = from_double(dst, json_real_value(v), p);
        snprintf(shown, sizeof shown, "%.17g", json_real_value(v));
    } else if (json_is_integer(v)) {
        bad = from_double(dst, (double)json_integer_value(v), p);
    } else if (json_is_boolean(v)) {
        memset(dst, 0, WC_WORDS * sizeof *dst);
        dst[0] = json_is_true(v);
    } else {
        bad = 1;
        snprintf(shown, sizeof shown, "%s", json_is_null(v) ? "null" : "[object Object]");
    }
    if (bad)
        return cuzk_fail(err, CUZK_EFORMAT, "input signal %s: cannot convert %s to an integer",
                         signal, shown);
    (*k)++;
    return CUZK_OK;
}

cuzk_status cuzk_wc_input_parse(cuzk_wc_input **out, const cuzk_wc_circuit *c, const char *text,
                                size_t len, cuzk_error *err) {
    *out = NULL;
    json_error_t je;
    /* Numbers as doubles, as JSON.parse reads them. */
    json_t *root = json_loadb(text, len, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &je);
    if (!root)
        return cuzk_fail(err, CUZK_EFORMAT, "input.json: %s (line %d, column %d)", je.text,
                         je.line, je.column);
    cuzk_status s = CUZK_OK;
    cuzk_wc_input *in = NULL;
    if (!json_is_object(root)) {
        s = cuzk_fail(err, CUZK_EFORMAT, "input.json: not a JSON object of input signals");
        goto done;
    }
    in = calloc(1, sizeof *in);
    size_t nsig = json_object_size(root), total = 0;
    if (!in || !(in->signals = calloc(nsig ? nsig : 1, sizeof *in->signals))) {
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for the inputs");
        goto done;
    }
    in->c = cuzk_wc_circuit_ref((cuzk_wc_circuit *)c); /* the circuit lives while the input does */
    const char *name;
    json_t *v;
    json_object_foreach(root, name, v) flatten_count(v, &total);
    if (!(in->values = malloc((total ? total : 1) * WC_WORDS * sizeof *in->values))) {
        s = cuzk_fail(err, CUZK_ENOMEM, "no memory for %zu input values", total);
        goto done;
    }
    /* signal by signal, each checked then converted, as snarkjs does */
    size_t k = 0;
    json_object_foreach(root, name, v) {
        wc_signal *sg = &in->signals[in->n_signals++];
        char shown[112];
        snprintf(shown, sizeof shown, "%.100s", name);
        wc_fnv1a(name, &sg->hi, &sg->lo);
        int32_t want;
        if ((s = wc_query_input_size(c, sg->hi, sg->lo, &want, err)) != CUZK_OK)
            goto done;
        size_t n = 0;
        flatten_count(v, &n);
        /* circom answers 0 for a name it does not know (its arrays have at
         * least one element); snarkjs then reports too many values, or
         * accepts an empty array.  Same outcome here, clearer words. */
        if (want < 0 || (want == 0 && n > 0)) {
            s = cuzk_fail(err, CUZK_ENOTFOUND, "Signal %s not found (not an input of this circuit)", shown);
            goto done;
        }
        if (n < (size_t)want) {
            s = cuzk_fail(err, CUZK_EMISMATCH, "Not enough values for input signal %s", shown);
            goto done;
        }
        if (n > (size_t)want) {
            s = cuzk_fail(err, CUZK_EMISMATCH, "Too many values for input signal %s", shown);
            goto done;
        }
        sg->count = (uint32_t)n;
        sg->first = k;
        if ((s = flatten_values(v, in->values, &k, c->prime, shown, err)) != CUZK_OK)
            goto done;
    }
    in->n_values = k;
done:
    json_decref(root);
    if (s != CUZK_OK) {
        cuzk_wc_input_free(in);
        return s;
    }
    *out = in;
    return CUZK_OK;
}
