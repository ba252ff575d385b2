/*
 * The GPU prover's element-wise steps (gpu/prove.h) against
 * the CPU field code (field/field.h), for both scalar fields and sizes
 * from 1 to 2^20 + 3 (CUZK_GPU_STEPS_MAX_LOG lowers the top):
 *   - cuzk_gpu_fr_from_plain: random plain values below r become their
 *     Montgomery form; r - 1, r and 2^256 - 1 placed in the first, middle
 *     and last slots in several combinations: r - 1 converts, r and
 *     2^256 - 1 become 0, and the bad-index word holds the smallest bad
 *     index (UINT32_MAX when there is none); also in place (out == in);
 *   - cuzk_gpu_spmv: random CSR matrices with empty rows, rows of one
 *     entry, a few long rows and repeated columns, against a CPU product;
 *   - cuzk_gpu_fr_mul_sub: out = a * b - c and out = a * b, with separate
 *     buffers and with out aliasing a, b or c, and a == b.
 * Device outputs are poisoned (0xA5 bytes) before each step, so a slot the
 * kernel never writes shows up.  The steps are written once below and
 * instantiated per curve (TEST_CURVE, tests/testutil.h) by including this
 * file again; CUZK_TEST_CURVE=<name> runs one curve.
 *
 * Without CUDA or a device: prints "no GPU: skipped", exits 77 (a failure
 * where nvidia-smi lists a device; see testutil.h).
 */
#ifndef TEST_CURVE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "groth16/curve_id.h"
#include "gpu/prove.h"
#include "gpu/runtime.h"
#include "testutil.h"

#ifdef CUZK_HAVE_CUDA

static cuzk_gpu_ctx *ctx;
static cuzk_gpu_stream *st;
static unsigned max_log = 20; /* CUZK_GPU_STEPS_MAX_LOG */

typedef struct fe {
    uint64_t l[4];
} fe;

static int ok_or_fail(cuzk_status s, const cuzk_error *err, const char *what) {
    CHECK(s == CUZK_OK, "%s: %s", what, err->msg);
    return s == CUZK_OK;
}

static void *dev_alloc(size_t bytes) {
    void *d = NULL;
    cuzk_error err = {0};
    if (!ok_or_fail(cuzk_gpu_malloc(ctx, bytes ? bytes : 1, &d, &err), &err, "device alloc"))
        return NULL;
    return d;
}

static int up(void *d, const void *h, size_t bytes) {
    cuzk_error err = {0};
    return ok_or_fail(cuzk_gpu_copy_to_device(st, d, h, bytes, &err), &err, "upload");
}

static int down(void *h, const void *d, size_t bytes) {
    cuzk_error err = {0};
    return ok_or_fail(cuzk_gpu_copy_to_host(st, h, d, bytes, &err), &err, "download") &&
           ok_or_fail(cuzk_gpu_stream_sync(st, &err), &err, "sync");
}

static int poison(void *d, size_t bytes) {
    cuzk_error err = {0};
    return ok_or_fail(cuzk_gpu_memset(st, d, 0xA5, bytes, &err), &err, "poison");
}

static size_t first_diff(const fe *a, const fe *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(fe)))
            return i;
    return n;
}

/* A random CSR matrix of |rows| rows over |cols| columns: about a quarter
 * of the rows empty, most with 1-6 entries, one row in 500 with 100-300;
 * the columns of a row may repeat.  Returns the number of entries. */
static size_t rand_csr(uint32_t *row_ptr, uint32_t **col_out, size_t rows, size_t cols) {
    size_t cap = rows * 4 + 16, nnz = 0;
    uint32_t *col = malloc(cap * sizeof *col);
    row_ptr[0] = 0;
    for (size_t i = 0; i < rows; i++) {
        uint64_t r = tu_rand64();
        size_t k = (r % 4 == 0) ? 0 : (r % 500 == 1) ? 100 + (size_t)(r >> 32) % 201 : 1 + (r >> 8) % 6;
        if (i == 0 && rows > 2)
            k = 0; /* the first row empty */
        if (i + 1 == rows && rows > 2)
            k = 0; /* and the last */
        if (nnz + k > cap) {
            cap = 2 * (nnz + k);
            col = realloc(col, cap * sizeof *col);
        }
        for (size_t j = 0; j < k; j++)
            col[nnz++] = (uint32_t)(tu_rand64() % cols);
        row_ptr[i + 1] = (uint32_t)nnz;
    }
    *col_out = col;
    return nnz;
}

#define TEST_CURVE bls12_381
#define TEST_GPU_CURVE CUZK_CURVE_BLS12_381
#include __FILE__
#undef TEST_GPU_CURVE
#undef TEST_CURVE
#define TEST_CURVE bn254
#define TEST_GPU_CURVE CUZK_CURVE_BN254
#include __FILE__
#undef TEST_GPU_CURVE
#undef TEST_CURVE

static const tu_curve curves[] = {
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
};

#endif /* CUZK_HAVE_CUDA */

int main(int argc, char **argv) {
#ifdef CUZK_HAVE_CUDA
    const tu_gpu_test t = {.name = "test_gpu_steps", .curves = curves,
                           .n_curves = TU_COUNT(curves), .ctx = &ctx, .stream = &st,
                           .max_log_env = "CUZK_GPU_STEPS_MAX_LOG", .max_log = &max_log};
#else
    const tu_gpu_test t = {.name = "test_gpu_steps"};
#endif
    return tu_gpu_main(argc, argv, &t);
}

#else /* ---- per curve (TEST_CURVE, TEST_GPU_CURVE): its scalar field ----- */

#define TF TC(fr) /* bls12_381_fr, bn254_fr */
#define FF(x) CUZK_PASTE(TF, x)
#define TF_NAME TU_STR(TF)

/* plain value |v| (4 limbs, any) -> expected Montgomery (0 if >= r) */
static int FF(plain_ok)(const uint64_t *v) {
    for (int j = 3; j >= 0; j--)
        if (v[j] != FF(modulus)[j])
            return v[j] < FF(modulus)[j];
    return 0;
}
static void FF(from_plain_case)(size_t n, const char *name, int kind[3],
                                int in_place) {
    /* kind per slot (first, middle, last): 0 random, 1 r-1, 2 r,
     * 3 2^256-1 */
    size_t slot[3] = {0, n / 2, n - 1};
    fe *in = malloc(n * sizeof *in), *ref = malloc(n * sizeof *ref);
    fe *out = malloc(n * sizeof *out);
    void *d_in = dev_alloc(n * sizeof(fe));
    void *d_out = in_place ? d_in : dev_alloc(n * sizeof(fe));
    uint32_t *d_bad = dev_alloc(sizeof(uint32_t)), bad = 0;
    cuzk_error err = {0};
    if (!in || !ref || !out || !d_in || !d_out || !d_bad)
        goto done;
    for (size_t i = 0; i < n; i++)
        tu_rand_below(in[i].l, FF(modulus), 4);
    for (int s = 0; s < 3; s++) {
        uint64_t *v = in[slot[s]].l;
        if (kind[s] == 1 || kind[s] == 2) {
            memcpy(v, FF(modulus), 32);
            if (kind[s] == 1)
                v[0] -= 1; /* r is odd: no borrow */
        } else if (kind[s] == 3)
            memset(v, 0xff, 32);
    }
    uint32_t want_bad = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        if (FF(plain_ok)(in[i].l))
            FF(to_mont)((TF *)&ref[i], in[i].l);
        else {
            memset(&ref[i], 0, sizeof ref[i]);
            if (want_bad == UINT32_MAX)
                want_bad = (uint32_t)i;
        }
    }
    if (!up(d_in, in, n * sizeof(fe)) ||
        (!in_place && !poison(d_out, n * sizeof(fe))) ||
        !poison(d_bad, sizeof(uint32_t)) ||
        !ok_or_fail(cuzk_gpu_memset(st, d_bad, 0xff, sizeof(uint32_t),
                                    &err),
                    &err, "bad word") ||
        !ok_or_fail(cuzk_gpu_fr_from_plain(st, TEST_GPU_CURVE, d_out, d_in, n,
                                           d_bad, &err),
                    &err, TF_NAME " fr_from_plain") ||
        !down(out, d_out, n * sizeof(fe)) ||
        !down(&bad, d_bad, sizeof bad))
        goto done;
    size_t at = first_diff(out, ref, n);
    CHECK(at == n, TF_NAME " fr_from_plain n=%zu %s%s: slot %zu differs", n,
          name, in_place ? " (in place)" : "", at);
    CHECK(bad == want_bad, TF_NAME " fr_from_plain n=%zu %s%s: bad index %u, "
          "want %u", n, name, in_place ? " (in place)" : "", bad,
          want_bad);
done:
    free(in);
    free(ref);
    free(out);
    cuzk_gpu_free(ctx, d_in);
    if (!in_place)
        cuzk_gpu_free(ctx, d_out);
    cuzk_gpu_free(ctx, d_bad);
}
static void FF(from_plain)(size_t n) {
    static const struct {
        const char *name;
        int kind[3];
    } cases[] = {
        {"random", {0, 0, 0}},
        {"r-1 first/middle/last", {1, 1, 1}},
        {"r last", {0, 0, 2}},
        {"2^256-1 middle, r last", {1, 3, 2}},
        {"r middle, r-1 last", {0, 2, 1}},
        {"r first, 2^256-1 middle, r-1 last", {2, 3, 1}},
        {"2^256-1 first and last", {3, 1, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int kind[3];
        memcpy(kind, cases[k].kind, sizeof kind);
        FF(from_plain_case)(n, cases[k].name, kind, 0);
        FF(from_plain_case)(n, cases[k].name, kind, 1);
    }
}
static void FF(spmv)(size_t rows) {
    size_t cols = rows + 5;
    uint32_t *row_ptr = malloc((rows + 1) * sizeof *row_ptr), *col = NULL;
    size_t nnz = rand_csr(row_ptr, &col, rows, cols);
    fe *vals = malloc((nnz + 1) * sizeof *vals);
    fe *x = malloc(cols * sizeof *x), *y = malloc(rows * sizeof *y);
    fe *ref = malloc(rows * sizeof *ref);
    void *d_rp = dev_alloc((rows + 1) * 4), *d_col = dev_alloc(nnz * 4 + 4);
    void *d_vals = dev_alloc((nnz + 1) * sizeof(fe));
    void *d_x = dev_alloc(cols * sizeof(fe)), *d_y = dev_alloc(rows * sizeof(fe));
    cuzk_error err = {0};
    if (!vals || !x || !y || !ref || !d_rp || !d_col || !d_vals || !d_x ||
        !d_y)
        goto done;
    for (size_t k = 0; k < nnz; k++)
        tu_rand_below(vals[k].l, FF(modulus), 4);
    for (size_t i = 0; i < cols; i++)
        tu_rand_below(x[i].l, FF(modulus), 4);
    for (size_t i = 0; i < rows; i++) {
        TF acc, t;
        FF(set_zero)(&acc);
        for (uint32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            FF(mul)(&t, (const TF *)&vals[k], (const TF *)&x[col[k]]);
            FF(add)(&acc, &acc, &t);
        }
        memcpy(&ref[i], &acc, sizeof(fe));
    }
    if (!up(d_rp, row_ptr, (rows + 1) * 4) || (nnz && !up(d_col, col, nnz * 4)) ||
        (nnz && !up(d_vals, vals, nnz * sizeof(fe))) ||
        !up(d_x, x, cols * sizeof(fe)) || !poison(d_y, rows * sizeof(fe)) ||
        !ok_or_fail(cuzk_gpu_spmv(st, TEST_GPU_CURVE, d_rp, d_col, d_vals, rows,
                                  d_x, d_y, &err),
                    &err, TF_NAME " spmv") ||
        !down(y, d_y, rows * sizeof(fe)))
        goto done;
    size_t at = first_diff(y, ref, rows);
    CHECK(at == rows, TF_NAME " spmv rows=%zu nnz=%zu: row %zu differs (%u "
          "entries)", rows, nnz, at,
          at < rows ? row_ptr[at + 1] - row_ptr[at] : 0);
done:
    free(row_ptr);
    free(col);
    free(vals);
    free(x);
    free(y);
    free(ref);
    cuzk_gpu_free(ctx, d_rp);
    cuzk_gpu_free(ctx, d_col);
    cuzk_gpu_free(ctx, d_vals);
    cuzk_gpu_free(ctx, d_x);
    cuzk_gpu_free(ctx, d_y);
}
/* out = a * b - c with the buffers given as indices into three device
 * arrays (0, 1, 2) and 3 for a separate output; c < 0: no c. */
static void FF(mul_sub)(size_t n, int ia, int ib, int ic, int io,
                        const char *name) {
    fe *h[3], *ref = malloc(n * sizeof *ref), *out = malloc(n * sizeof *out);
    void *d[4] = {NULL, NULL, NULL, NULL};
    cuzk_error err = {0};
    int ok = ref && out;
    for (int k = 0; k < 3; k++) {
        h[k] = malloc(n * sizeof(fe));
        ok = ok && h[k];
    }
    for (int k = 0; k < 4 && ok; k++)
        ok = (d[k] = dev_alloc(n * sizeof(fe))) != NULL;
    if (!ok)
        goto done;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n; i++)
            tu_rand_below(h[k][i].l, FF(modulus), 4);
    for (size_t i = 0; i < n; i++) {
        TF t;
        FF(mul)(&t, (const TF *)&h[ia][i], (const TF *)&h[ib][i]);
        if (ic >= 0)
            FF(sub)(&t, &t, (const TF *)&h[ic][i]);
        memcpy(&ref[i], &t, sizeof(fe));
    }
    for (int k = 0; k < 3; k++)
        if (!up(d[k], h[k], n * sizeof(fe)))
            goto done;
    if (!poison(d[3], n * sizeof(fe)) ||
        !ok_or_fail(cuzk_gpu_fr_mul_sub(st, TEST_GPU_CURVE, d[io], d[ia], d[ib],
                                        ic >= 0 ? d[ic] : NULL, n, &err),
                    &err, TF_NAME " mul_sub") ||
        !down(out, d[io], n * sizeof(fe)))
        goto done;
    size_t at = first_diff(out, ref, n);
    CHECK(at == n, TF_NAME " mul_sub n=%zu %s: slot %zu differs", n, name, at);
done:
    for (int k = 0; k < 3; k++)
        free(h[k]);
    free(ref);
    free(out);
    for (int k = 0; k < 4; k++)
        cuzk_gpu_free(ctx, d[k]);
}
static void TC(tests)(const tu_curve *c) {
    (void)c;
    size_t sizes[] = {1, 2, 3, 255, 256, 257, 1000, 4099, 65537,
                      ((size_t)1 << 20) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        if (n > ((size_t)1 << max_log) + 3)
            break;
        FF(from_plain)(n);
        FF(spmv)(n);
        FF(mul_sub)(n, 0, 1, 2, 3, "separate");
        FF(mul_sub)(n, 0, 1, -1, 3, "separate, no c");
        FF(mul_sub)(n, 0, 1, 2, 0, "out = a");
        FF(mul_sub)(n, 0, 1, 2, 1, "out = b");
        FF(mul_sub)(n, 0, 1, 2, 2, "out = c");
        FF(mul_sub)(n, 0, 0, 2, 0, "out = a = b");
        FF(mul_sub)(n, 0, 1, -1, 0, "out = a, no c");
    }
}

#undef TF_NAME
#undef FF
#undef TF

#endif
