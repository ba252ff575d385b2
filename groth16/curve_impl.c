/*
 * The curve tables (curve_impl.h): each the sum of its curve's layer
 * tables, put together once, on the first lookup.  Nothing here names a
 * curve: the curves are those of curve_facts.c, and each layer answers
 * for its own table by the curve's id.
 *
 * Why built at run time: the flat members (ci->fr_mul, ci->compute_h) are
 * copies of the layers' tables, and C cannot initialise a constant from
 * another object's value; the alternatives (compiling every adapter twice,
 * or exporting each one by name) would make the layers declare things for
 * this table's sake.
 */
#include "groth16/curve_impl.h"

#include <pthread.h>

/* Room for every curve cuzk_curve can name; unused slots stay NULL. */
#define MAX_CURVES 8

static cuzk_curve_impl tables[MAX_CURVES];
static const cuzk_curve_impl *all[MAX_CURVES], *by_id[MAX_CURVES];
static size_t n_all;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A curve whose layer tables are not all there gets no table: a half
 * table would crash the caller that trusted the lookup. */
static void build(void) {
    size_t n;
    const cuzk_curve_facts *const *facts = cuzk_curve_facts_all(&n);
    for (size_t i = 0; i < n && n_all < MAX_CURVES; i++) {
        cuzk_curve id = facts[i]->id;
        const cuzk_prover_table *prover = cuzk_prover_table_get(id);
        const cuzk_setup_table *setup = cuzk_setup_table_get(id);
        const cuzk_json_table *json = cuzk_json_table_get(id);
        if ((unsigned)id >= MAX_CURVES || !prover || !setup || !json)
            continue;
        cuzk_curve_impl *t = &tables[n_all];
        t->facts = *facts[i];
        t->prover = *prover;
        t->setup = setup;
        t->json = json;
        all[n_all++] = t;
        by_id[id] = t;
    }
}

const cuzk_curve_impl *cuzk_curve_impl_get(cuzk_curve c) {
    pthread_once(&once, build);
    /* unsigned: a negative value read from a corrupt struct is out of range too */
    return (unsigned)c < MAX_CURVES ? by_id[(unsigned)c] : NULL;
}

const cuzk_curve_impl *const *cuzk_curve_impl_all(size_t *n) {
    pthread_once(&once, build);
    *n = n_all;
    return all;
}
