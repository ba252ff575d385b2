/*
 * gpu_prove_one (tests/gpu_prove_util.h): the checks, CPU evaluation and
 * blinding a test or benchmark needs around the library's upload and run.
 * Without CUDA it compiles to nothing.
 */
#ifdef CUZK_HAVE_CUDA
#include "gpu_prove_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "groth16/curve_impl.h"
#include "groth16/prover/prove_gpu_key.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* a | b | c (3n values) of |w| on the CPU into *abc (malloc'd), from an
 * aligned copy of the witness. */
static cuzk_status evaluate_cpu(const cuzk_gpu_key *gk, const cuzk_wtns *w, cuzk_pool *pool,
                                cuzk_fr **abc, cuzk_error *err) {
    const cuzk_key *k = gk->key;
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->curve);
    size_t n = gk->n, nv = gk->n_vars, sb = ci->evaluate_scratch_bytes(k);
    cuzk_fr *wit = malloc(nv * sizeof *wit);
    void *scratch = malloc(sb ? sb : 1);
    *abc = malloc(3 * n * sizeof **abc);
    if (!wit || !*abc || !scratch) {
        free(wit);
        free(scratch);
        free(*abc);
        *abc = NULL;
        return cuzk_fail(err, CUZK_ENOMEM, "no memory to evaluate a, b, c");
    }
    memcpy(wit, w->values, nv * sizeof *wit);
    cuzk_status st = ci->evaluate_with_scratch(k, wit, *abc, *abc + n, *abc + 2 * n, scratch, sb,
                                               pool, err);
    free(wit);
    free(scratch);
    if (st != CUZK_OK) {
        free(*abc);
        *abc = NULL;
    }
    return st;
}

cuzk_status gpu_prove_one(cuzk_gpu_prover *p, const cuzk_gpu_key *gk, const cuzk_wtns *w,
                          int cpu_eval, const cuzk_fr *r, const cuzk_fr *s, cuzk_pool *pool,
                          cuzk_proof *out, cuzk_gpu_timing *t, cuzk_error *err) {
    double t0 = now_us();
    const cuzk_key *k = gk->key;
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(k->curve);
    if (w->curve != k->curve)
        return cuzk_fail(err, CUZK_ECURVE, "witness is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(w->curve), cuzk_curve_snarkjs_name(k->curve));
    if (w->n_witness != gk->n_vars)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "witness has %u values, the key expects %zu (different circuits?)",
                         w->n_witness, gk->n_vars);
    cuzk_fr fr_r, fr_s;
    cuzk_status st = CUZK_OK;
    if (r && s)
        fr_r = *r, fr_s = *s;
    else if ((st = ci->fr_random(&fr_r, err)) != CUZK_OK ||
             (st = ci->fr_random(&fr_s, err)) != CUZK_OK)
        return st;
    cuzk_fr *abc = NULL;
    double eval_cpu_us = 0;
    if (cpu_eval || gk->no_csr) {
        double te = now_us();
        if ((st = evaluate_cpu(gk, w, pool, &abc, err)) != CUZK_OK)
            return st;
        eval_cpu_us = now_us() - te;
    }
    st = cuzk_gpu_prove_upload(p, gk, w->values, abc, err);
    free(abc);
    if (st != CUZK_OK)
        return st;
    double up_wall = now_us() - t0;
    st = cuzk_gpu_prove_run(p, gk, &fr_r, &fr_s, out, t, err);
    if (st == CUZK_OK && t) {
        t->evaluate_us += eval_cpu_us;
        t->total_us += up_wall;
    }
    return st;
}
#endif
