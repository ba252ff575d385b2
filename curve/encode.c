/*
 * Point encodings (see encode.h for the formats and the contract).
 *
 * The four groups share one implementation: an affine point is, in memory,
 * 2k base-field elements of n limbs each (k = 1 for G1, 2 for G2, in the
 * order x.c0, x.c1, y.c0, y.c1), and a Jacobian point 3k of them.  A small
 * descriptor per group gives k, n, the modulus and the few group functions
 * the codecs need, so each format is written once.  Only square roots
 * (zcash decompression) need group-specific code.
 *
 * Must not: allocate, trust any input byte, or leave |r| modified on
 * failure (every decoder builds the point in a local and copies it out last).
 */
#include "curve/encode.h"

#include <string.h>

#include "field/consts_gen.h"

enum { MAX_N = 6, MAX_COORDS = 6 };

typedef struct gdesc {
    const char *name;
    size_t k;                 /* base-field elements per coordinate */
    size_t n;                 /* limbs per base-field element */
    const uint64_t *p;        /* base-field modulus */
    const uint64_t *half;     /* (p - 1) / 2 */
    size_t aff_bytes;         /* sizeof(G_affine) */
    void (*to_mont)(uint64_t *r, const uint64_t *a);      /* one base element */
    void (*from_mont)(uint64_t *r, const uint64_t *a);
    int (*on_curve)(const void *aff);
    int (*in_subgroup)(const void *aff);
    void (*jac_to_affine)(void *aff, const void *jac);
    cuzk_status (*from_dec)(uint64_t *r, const char *s, cuzk_error *err);
} gdesc;

#define BASE_WRAPS(F)                                                         \
    static void F##_e_to_mont(uint64_t *r, const uint64_t *a) {               \
        F##_to_mont((F *)r, a);                                               \
    }                                                                         \
    static void F##_e_from_mont(uint64_t *r, const uint64_t *a) {             \
        F##_from_mont(r, (const F *)a);                                       \
    }                                                                         \
    static cuzk_status F##_e_from_dec(uint64_t *r, const char *s,            \
                                      cuzk_error *err) {                      \
        return F##_from_dec((F *)r, s, err);                                  \
    }
BASE_WRAPS(bls12_381_fp)
BASE_WRAPS(bn254_fp)

#define GROUP_WRAPS(G)                                                        \
    static int G##_e_on_curve(const void *a) { return G##_affine_on_curve(a); } \
    static int G##_e_in_subgroup(const void *a) {                             \
        return G##_affine_in_subgroup(a);                                     \
    }                                                                         \
    static void G##_e_to_affine(void *r, const void *a) { G##_to_affine(r, a); }
GROUP_WRAPS(bls12_381_g1)
GROUP_WRAPS(bls12_381_g2)
GROUP_WRAPS(bn254_g1)
GROUP_WRAPS(bn254_g2)

static const uint64_t bls_half[6] = BLS12_381_FP_PM1H;
static const uint64_t bn_half[4] = BN254_FP_PM1H;

#define DESC(G, F, K, HALF)                                                   \
    {#G, K, F##_LIMBS, F##_modulus, HALF, sizeof(G##_affine),                 \
     F##_e_to_mont, F##_e_from_mont, G##_e_on_curve, G##_e_in_subgroup,       \
     G##_e_to_affine, F##_e_from_dec}
static const gdesc d_bls_g1 = DESC(bls12_381_g1, bls12_381_fp, 1, bls_half);
static const gdesc d_bls_g2 = DESC(bls12_381_g2, bls12_381_fp, 2, bls_half);
static const gdesc d_bn_g1 = DESC(bn254_g1, bn254_fp, 1, bn_half);
static const gdesc d_bn_g2 = DESC(bn254_g2, bn254_fp, 2, bn_half);

/* The memory-layout assumption behind the descriptors. */
_Static_assert(sizeof(bls12_381_g2_affine) == 4 * sizeof(bls12_381_fp),
               "G2 affine is x.c0, x.c1, y.c0, y.c1 without padding");
_Static_assert(sizeof(bn254_g2) == 6 * sizeof(bn254_fp),
               "G2 Jacobian is 6 base-field elements without padding");

/* ---- limb and byte helpers -------------------------------------------------- */

static int limbs_lt(const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

static int bytes_all_zero(const void *p, size_t len) {
    const uint8_t *a = p;
    uint8_t acc = 0;
    for (size_t i = 0; i < len; i++)
        acc |= a[i];
    return acc == 0;
}

static void load_le(uint64_t *r, const uint8_t *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--)
            w = (w << 8) | in[8 * i + j];
        r[i] = w;
    }
}

static void store_le(uint8_t *out, const uint64_t *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            out[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
}

static void load_be(uint64_t *r, const uint8_t *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 8; j++)
            w = (w << 8) | in[8 * (n - 1 - i) + j];
        r[i] = w;
    }
}

static void store_be(uint8_t *out, const uint64_t *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            out[8 * (n - 1 - i) + j] = (uint8_t)(a[i] >> (56 - 8 * j));
}

static const char *coord_name(const gdesc *d, size_t i) {
    static const char *g1[] = {"x", "y", "z"};
    static const char *g2[] = {"x.c0", "x.c1", "y.c0", "y.c1", "z.c0", "z.c1"};
    return d->k == 1 ? g1[i] : g2[i];
}

/*
 * Final checks shared by every decoder, on a point built in |aff| that is
 * not meant to be infinity: (0, 0) is how cuzk stores infinity, so a
 * non-infinity encoding of (0, 0) is an off-curve point, not O.
 */
static cuzk_status check_point(const gdesc *d, const void *aff,
                               int check_subgroup, const char *fmt_name,
                               cuzk_error *err) {
    if (bytes_all_zero(aff, d->aff_bytes) || !d->on_curve(aff))
        return cuzk_fail(err, CUZK_ENOTONCURVE, "%s %s point is not on the curve",
                         fmt_name, d->name);
    if (check_subgroup && !d->in_subgroup(aff))
        return cuzk_fail(err, CUZK_ENOTINSUBGROUP,
                         "%s %s point is not in the prime-order subgroup",
                         fmt_name, d->name);
    return CUZK_OK;
}

/* ---- 3. snarkjs binary (zkey / ptau) ------------------------------------------ */

static cuzk_status zkey_decode(const gdesc *d, void *r, const uint8_t *in,
                               int check_subgroup, cuzk_error *err) {
    uint64_t t[MAX_COORDS * MAX_N];
    size_t nel = 2 * d->k;
    for (size_t i = 0; i < nel; i++) {
        load_le(t + i * d->n, in + 8 * d->n * i, d->n);
        if (!limbs_lt(t + i * d->n, d->p, d->n))
            return cuzk_fail(err, CUZK_ERANGE,
                             "zkey %s coordinate %s is not below p (Montgomery form)",
                             d->name, coord_name(d, i));
    }
    /* The byte image is already our Montgomery representation. */
    if (!bytes_all_zero(in, 16 * d->n * d->k)) {
        cuzk_status st = check_point(d, t, check_subgroup, "zkey", err);
        if (st != CUZK_OK)
            return st;
    }
    memcpy(r, t, d->aff_bytes);
    return CUZK_OK;
}

static void zkey_encode(const gdesc *d, uint8_t *out, const void *a) {
    store_le(out, (const uint64_t *)a, 2 * d->k * d->n);
}

/* ---- 4. Ethereum (BN254), also the plain big-endian body of zcash ------------- */

/*
 * Read 2k big-endian plain coordinates, each stored imaginary part first
 * (c1 then c0) for G2, into Montgomery form.  |in| may carry flag bits that
 * the caller has already masked off in |in|'s copy.
 */
static cuzk_status be_coords_decode(const gdesc *d, uint64_t *t, const uint8_t *in,
                                    size_t ncoords, const char *fmt_name,
                                    cuzk_error *err) {
    size_t eb = 8 * d->n;
    for (size_t c = 0; c < ncoords; c++)
        for (size_t j = 0; j < d->k; j++) {
            /* on the wire: component k-1-j first */
            size_t wire = c * d->k + (d->k - 1 - j);
            uint64_t v[MAX_N];
            load_be(v, in + eb * wire, d->n);
            if (!limbs_lt(v, d->p, d->n))
                return cuzk_fail(err, CUZK_ERANGE, "%s %s coordinate %s is not below p",
                                 fmt_name, d->name, coord_name(d, c * d->k + j));
            d->to_mont(t + (c * d->k + j) * d->n, v);
        }
    return CUZK_OK;
}

static void be_coords_encode(const gdesc *d, uint8_t *out, const uint64_t *t,
                             size_t ncoords) {
    size_t eb = 8 * d->n;
    for (size_t c = 0; c < ncoords; c++)
        for (size_t j = 0; j < d->k; j++) {
            size_t wire = c * d->k + (d->k - 1 - j);
            uint64_t v[MAX_N];
            d->from_mont(v, t + (c * d->k + j) * d->n);
            store_be(out + eb * wire, v, d->n);
        }
}

static cuzk_status eth_decode(const gdesc *d, void *r, const uint8_t *in,
                              cuzk_error *err) {
    uint64_t t[MAX_COORDS * MAX_N];
    size_t len = 16 * d->n * d->k;
    if (bytes_all_zero(in, len)) {
        memset(r, 0, d->aff_bytes);
        return CUZK_OK;
    }
    cuzk_status st = be_coords_decode(d, t, in, 2, "ethereum", err);
    if (st == CUZK_OK)
        st = check_point(d, t, 1, "ethereum", err);
    if (st == CUZK_OK)
        memcpy(r, t, d->aff_bytes);
    return st;
}

/* ---- 1. zcash / bellperson (BLS12-381) -------------------------------------- */

enum { ZC_COMPRESSED = 0x80, ZC_INFINITY = 0x40, ZC_SIGN = 0x20 };

/* The zcash "sign": y is lexicographically larger than -y, comparing c1
 * first and c0 only when c1 = 0 (y in Montgomery form, k elements). */
static int lex_largest(const gdesc *d, const uint64_t *y) {
    for (size_t j = d->k; j-- > 0;) {
        uint64_t v[MAX_N], z = 0;
        d->from_mont(v, y + j * d->n);
        for (size_t i = 0; i < d->n; i++)
            z |= v[i];
        if (z)
            return limbs_lt(d->half, v, d->n);
    }
    return 0;
}

static size_t zcash_encode(const gdesc *d, uint8_t *out, const void *a,
                           int compressed) {
    size_t len = 8 * d->n * d->k * (compressed ? 1 : 2);
    const uint64_t *t = a;
    memset(out, 0, len);
    if (bytes_all_zero(a, d->aff_bytes)) {
        out[0] = compressed ? (ZC_COMPRESSED | ZC_INFINITY) : ZC_INFINITY;
        return len;
    }
    be_coords_encode(d, out, t, compressed ? 1 : 2);
    if (compressed) {
        out[0] |= ZC_COMPRESSED;
        if (lex_largest(d, t + d->k * d->n))
            out[0] |= ZC_SIGN;
    }
    return len;
}

/* y from x: y^2 = x^3 + b with the root whose sign matches |sign|.
 * Returns 0 when x^3 + b is not a square. */
#define DECOMPRESS(G, F)                                                      \
    static int G##_decompress(void *aff, int sign) {                          \
        G##_affine *a = aff;                                                  \
        G##_affine g;                                                         \
        F rhs, b, t;                                                          \
        /* b = y^2 - x^3 on the generator: no separate constant to drift. */ \
        G##_generator(&g);                                                    \
        F##_sqr(&b, &g.y);                                                    \
        F##_sqr(&t, &g.x);                                                    \
        F##_mul(&t, &t, &g.x);                                                \
        F##_sub(&b, &b, &t);                                                  \
        F##_sqr(&rhs, &a->x);                                                 \
        F##_mul(&rhs, &rhs, &a->x);                                           \
        F##_add(&rhs, &rhs, &b);                                              \
        if (!F##_sqrt(&a->y, &rhs))                                           \
            return 0;                                                         \
        if (lex_largest(G##_desc, (const uint64_t *)&a->y) != sign)           \
            F##_neg(&a->y, &a->y);                                            \
        return 1;                                                             \
    }
#define bls12_381_g1_desc (&d_bls_g1)
#define bls12_381_g2_desc (&d_bls_g2)
DECOMPRESS(bls12_381_g1, bls12_381_fp)
DECOMPRESS(bls12_381_g2, bls12_381_fp2)

static cuzk_status zcash_decode(const gdesc *d, int (*decompress)(void *, int),
                                void *r, const uint8_t *in, size_t len,
                                cuzk_error *err) {
    size_t clen = 8 * d->n * d->k;
    uint8_t buf[2 * 2 * 8 * MAX_N];
    uint64_t t[MAX_COORDS * MAX_N];
    if (len != clen && len != 2 * clen)
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zcash %s encoding must be %zu or %zu bytes, not %zu",
                         d->name, clen, 2 * clen, len);
    int compressed = (in[0] & ZC_COMPRESSED) != 0;
    int infinity = (in[0] & ZC_INFINITY) != 0;
    int sign = (in[0] & ZC_SIGN) != 0;
    if (compressed != (len == clen))
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zcash %s: compression flag %s on a %zu-byte encoding",
                         d->name, compressed ? "set" : "missing", len);
    if (sign && (infinity || !compressed))
        return cuzk_fail(err, CUZK_EFORMAT,
                         "zcash %s: sign flag set on an %s encoding", d->name,
                         infinity ? "infinity" : "uncompressed");
    memcpy(buf, in, len);
    buf[0] &= 0x1f;
    if (infinity) {
        if (!bytes_all_zero(buf, len))
            return cuzk_fail(err, CUZK_EFORMAT,
                             "zcash %s: infinity flag with non-zero coordinate bytes",
                             d->name);
        memset(r, 0, d->aff_bytes);
        return CUZK_OK;
    }
    cuzk_status st = be_coords_decode(d, t, buf, compressed ? 1 : 2, "zcash", err);
    if (st != CUZK_OK)
        return st;
    if (compressed && !decompress(t, sign))
        return cuzk_fail(err, CUZK_ENOTONCURVE,
                         "zcash %s: x has no point on the curve (x^3 + b is not a square)",
                         d->name);
    st = check_point(d, t, 1, "zcash", err);
    if (st == CUZK_OK)
        memcpy(r, t, d->aff_bytes);
    return st;
}

/* ---- 2. snarkjs JSON decimal coordinates -------------------------------------- */

static cuzk_status dec_decode(const gdesc *d, void *r, const char *const *coords,
                              cuzk_error *err) {
    uint64_t jac[MAX_COORDS * MAX_N + MAX_N], aff[MAX_COORDS * MAX_N];
    size_t nel = 3 * d->k;
    for (size_t i = 0; i < nel; i++) {
        cuzk_error e;
        if (coords[i] == NULL)
            return cuzk_fail(err, CUZK_EFORMAT, "decimal %s: coordinate %s missing",
                             d->name, coord_name(d, i));
        cuzk_status st = d->from_dec(jac + i * d->n, coords[i], &e);
        if (st != CUZK_OK)
            return cuzk_fail(err, st, "decimal %s coordinate %s: %s", d->name,
                             coord_name(d, i), e.msg);
    }
    /* snarkjs reads (x, y, z) as Jacobian: x/z^2, y/z^3, z = 0 infinity. */
    d->jac_to_affine(aff, jac);
    int z_zero = bytes_all_zero(jac + 2 * d->k * d->n, 8 * d->k * d->n);
    if (!z_zero) {
        cuzk_status st = check_point(d, aff, 1, "decimal", err);
        if (st != CUZK_OK)
            return st;
    }
    memcpy(r, aff, d->aff_bytes);
    return CUZK_OK;
}

static cuzk_status dec_encode(const gdesc *d, char *const *out, size_t cap,
                              const void *a, cuzk_error *err) {
    static const uint64_t zero[MAX_N] = {0};
    uint64_t one[MAX_N] = {1};
    uint64_t plain[MAX_N];
    const uint64_t *t = a;
    int inf = bytes_all_zero(a, d->aff_bytes);
    if (cap < CUZK_G_DEC_BYTES)
        return cuzk_fail(err, CUZK_EINVAL,
                         "decimal buffers need %d bytes, got %zu", CUZK_G_DEC_BYTES, cap);
    for (size_t i = 0; i < 3 * d->k; i++) {
        size_t c = i / d->k, j = i % d->k; /* coordinate x/y/z, component */
        const uint64_t *v;
        if (c == 2)
            v = (j == 0 && !inf) ? one : zero;       /* z = 1, or 0 at O */
        else if (inf)
            v = (c == 1 && j == 0) ? one : zero;     /* O = (0, 1, 0) */
        else {
            d->from_mont(plain, t + i * d->n);
            v = plain;
        }
        cuzk_limbs_to_dec(out[i], cap, v, d->n);
    }
    return CUZK_OK;
}

/* ---- public entry points ------------------------------------------------------- */

size_t bls12_381_g1_encode_zcash(uint8_t *out, const bls12_381_g1_affine *a,
                                 int compressed) {
    return zcash_encode(&d_bls_g1, out, a, compressed);
}
size_t bls12_381_g2_encode_zcash(uint8_t *out, const bls12_381_g2_affine *a,
                                 int compressed) {
    return zcash_encode(&d_bls_g2, out, a, compressed);
}
cuzk_status bls12_381_g1_decode_zcash(bls12_381_g1_affine *r, const uint8_t *in,
                                      size_t len, cuzk_error *err) {
    return zcash_decode(&d_bls_g1, bls12_381_g1_decompress, r, in, len, err);
}
cuzk_status bls12_381_g2_decode_zcash(bls12_381_g2_affine *r, const uint8_t *in,
                                      size_t len, cuzk_error *err) {
    return zcash_decode(&d_bls_g2, bls12_381_g2_decompress, r, in, len, err);
}

#define PER_GROUP(G, D, NC)                                                       \
    cuzk_status G##_from_dec(G##_affine *r, const char *const coords[NC],     \
                             cuzk_error *err) {                               \
        return dec_decode(D, r, coords, err);                                 \
    }                                                                         \
    cuzk_status G##_to_dec(char *const out[NC], size_t cap, const G##_affine *a, \
                           cuzk_error *err) {                                 \
        return dec_encode(D, out, cap, a, err);                               \
    }                                                                         \
    cuzk_status G##_from_zkey_bytes(G##_affine *r, const uint8_t *in,         \
                                    int check_subgroup, cuzk_error *err) {    \
        return zkey_decode(D, r, in, check_subgroup, err);                    \
    }                                                                         \
    void G##_to_zkey_bytes(uint8_t *out, const G##_affine *a) {               \
        zkey_encode(D, out, a);                                               \
    }
PER_GROUP(bls12_381_g1, &d_bls_g1, 3)
PER_GROUP(bls12_381_g2, &d_bls_g2, 6)
PER_GROUP(bn254_g1, &d_bn_g1, 3)
PER_GROUP(bn254_g2, &d_bn_g2, 6)

void bn254_g1_encode_eth(uint8_t out[64], const bn254_g1_affine *a) {
    be_coords_encode(&d_bn_g1, out, (const uint64_t *)a, 2);
}
void bn254_g2_encode_eth(uint8_t out[128], const bn254_g2_affine *a) {
    be_coords_encode(&d_bn_g2, out, (const uint64_t *)a, 2);
}
cuzk_status bn254_g1_decode_eth(bn254_g1_affine *r, const uint8_t in[64],
                                cuzk_error *err) {
    return eth_decode(&d_bn_g1, r, in, err);
}
cuzk_status bn254_g2_decode_eth(bn254_g2_affine *r, const uint8_t in[128],
                                cuzk_error *err) {
    return eth_decode(&d_bn_g2, r, in, err);
}
