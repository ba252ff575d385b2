/*
 * a∘b = c, row by row, on the caller's pool (satisfy.h).
 *
 * Cost: one Fr multiplication and one 32-byte compare per row, reading
 * 96 bytes; a third of what converting an image's a, b, c to Montgomery
 * form costs, and spread over the same pool.  Chunks share the lowest
 * failing row found so far and give up once it lies below them, so a bad
 * image stops early while the answer stays the first failing row,
 * whatever the order the chunks run in.
 *
 * Must not: allocate or branch on the curve (its multiplication comes from
 * the curve's facts, curve_facts.h).
 */
#include "groth16/prover/satisfy.h"

#include <stdatomic.h>

#include "groth16/curve_facts.h"

/* How many rows a chunk checks between two looks at the shared minimum. */
#define ROWS_PER_LOOK 1024

struct rows_ctx {
    const cuzk_curve_facts *ci;
    const cuzk_fr *a, *b, *c;
    _Atomic size_t first_bad; /* lowest failing row seen; n if none */
};

/* Lower |first_bad| to |row| unless a lower row is recorded already. */
static void record_bad(struct rows_ctx *x, size_t row) {
    size_t seen = atomic_load_explicit(&x->first_bad, memory_order_relaxed);
    while (row < seen &&
           !atomic_compare_exchange_weak_explicit(&x->first_bad, &seen, row,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

static void rows_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    struct rows_ctx *x = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        /* a lower row failed already: nothing here can be the first */
        if ((i - begin) % ROWS_PER_LOOK == 0 &&
            atomic_load_explicit(&x->first_bad, memory_order_relaxed) < i)
            return;
        cuzk_fr t;
        x->ci->fr_mul(&t, &x->a[i], &x->b[i]);
        if (!cuzk_fr_eq(&t, &x->c[i])) {
            record_bad(x, i);
            return;
        }
    }
}

cuzk_status cuzk_abc_check_rows(cuzk_curve curve, const cuzk_fr *a, const cuzk_fr *b,
                                const cuzk_fr *c, size_t n, cuzk_pool *pool, size_t *bad_row,
                                cuzk_error *err) {
    const cuzk_curve_facts *ci = cuzk_curve_facts_get(curve);
    if (bad_row)
        *bad_row = n;
    if (ci == NULL)
        return cuzk_fail(err, CUZK_ECURVE, "a∘b = c check: no curve %d", (int)curve);
    struct rows_ctx x = {ci, a, b, c, n};
    cuzk_pool_for(pool, n, 4096, rows_range, &x);
    size_t row = atomic_load(&x.first_bad);
    if (bad_row)
        *bad_row = row;
    if (row < n)
        return cuzk_fail(err, CUZK_EVERIFY,
                         "a∘b ≠ c at row %zu: the witness does not satisfy the circuit", row);
    return CUZK_OK;
}
