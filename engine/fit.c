/*
 * What fits what, as pure functions below every engine file that asks
 * (keys.c when a key with a circuit loads, circuits.c, inputs.c at
 * submit, stages.c in synthesis, sched.c at admission): a circuit against
 * a key, a witness against a key.  They read only their arguments, so the
 * key and circuit files need not call each other to ask
 * (docs/INTERNALS.md, "engine/'s layers").
 */
#include <string.h>

#include "engine/internal.h"

const char *engine_path_base(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

cuzk_status engine_circuit_check(const engine_circuit *c, const char *key_id, cuzk_curve curve,
                                 uint64_t n_vars, cuzk_error *err) {
    if (c->curve != curve)
        return cuzk_fail(err, CUZK_ECURVE, "circuit %s is for %s, key %s is for %s",
                         engine_path_base(c->path), cuzk_curve_snarkjs_name(c->curve), key_id,
                         cuzk_curve_snarkjs_name(curve));
    if (c->n_witness != n_vars)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "circuit %s computes %u witness values, key %s expects %llu",
                         engine_path_base(c->path), c->n_witness, key_id, (unsigned long long)n_vars);
    return CUZK_OK;
}

cuzk_status engine_witness_fits(cuzk_curve key_curve, uint64_t key_vars, cuzk_curve curve,
                                uint64_t n_values, cuzk_error *err) {
    if (curve != key_curve)
        return cuzk_fail(err, CUZK_ECURVE, "witness is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(curve), cuzk_curve_snarkjs_name(key_curve));
    if (n_values != key_vars)
        return cuzk_fail(err, CUZK_EMISMATCH, "witness has %llu values, the key expects %llu",
                         (unsigned long long)n_values, (unsigned long long)key_vars);
    return CUZK_OK;
}
