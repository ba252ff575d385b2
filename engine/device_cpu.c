/*
 * The CPU device: runs H (NTTs) and the MSMs of a partition with the
 * groth16/ prover steps on a thread pool of its own, then assembles the
 * proof with fresh blinding scalars.  It has no upload or fetch step: its
 * inputs are already in host memory, so on this device the overlap the
 * pipeline provides is synthesis of partition N+1 (on the synthesis pool)
 * during proving of partition N (on this pool).
 *
 * Must not: take engine locks, log, or allocate large memory itself (the
 * prover's MSM scratch is the groth16 layer's business).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/internal.h"
#include "groth16/curve_impl.h"

typedef struct cpu_state {
    cuzk_pool *pool;
} cpu_state;

static cuzk_status cpu_open(engine_device *d, cuzk_error *err) {
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a device");
    s->pool = cuzk_pool_create(d->cfg.threads, err);
    if (!s->pool) {
        free(s);
        return err ? err->status : CUZK_EINTERNAL;
    }
    d->state = s;
    return CUZK_OK;
}

static void cpu_close(engine_device *d) {
    cpu_state *s = d->state;
    if (s) {
        cuzk_pool_destroy(s->pool);
        free(s);
    }
    d->state = NULL;
}

/* One proof on the CPU, the steps reached through the key's curve table. */
static cuzk_status cpu_prove(const cuzk_curve_impl *ci, engine_dev_item *it, cuzk_pool *pool,
                             cuzk_groth16_timing *t) {
    const cuzk_key *k = it->key;
    size_t n = (size_t)1 << ci->key_log_n(k);
    cuzk_fr *abc = it->abc, r, s;
    uint64_t t0 = cuzk_now_ns();
    cuzk_status st;
    if ((st = ci->fr_random(&r, &it->err)) != CUZK_OK ||
        (st = ci->fr_random(&s, &it->err)) != CUZK_OK)
        return st;
    /* a retry of a partition meant for a device that evaluates itself */
    if (!it->abc_ready &&
        (st = ci->evaluate(k, it->witness, abc, abc + n, abc + 2 * n, pool, &it->err)) != CUZK_OK)
        return st;
    t->evaluate_ns = it->abc_ready ? 0 : cuzk_now_ns() - t0;
    uint64_t th = cuzk_now_ns();
    st = ci->compute_h(k, abc, abc + n, abc + 2 * n, pool, &it->err);
    if (st != CUZK_OK)
        return st;
    t->h_ns = cuzk_now_ns() - th;
    return ci->msms_assemble(&it->proof, k, it->witness, abc, &r, &s, pool, t, &it->err);
}

/* The prover's figures as the engine reports them (cuzk_step_timing). */
static void cpu_steps(cuzk_step_timing *o, const cuzk_groth16_timing *t) {
    o->eval_site = t->evaluate_ns ? CUZK_EVAL_DEVICE : CUZK_EVAL_NONE;
    o->evaluate_ns = t->evaluate_ns;
    o->ntt_ns = t->h_ns;
    o->msm_a_ns = t->msm_a_ns, o->msm_b1_ns = t->msm_b1_ns, o->msm_b2_ns = t->msm_b2_ns;
    o->msm_c_ns = t->msm_c_ns, o->msm_h_ns = t->msm_h_ns;
    o->assemble_ns = t->assemble_ns;
}

static void cpu_run(engine_device *d, engine_dev_item **items, size_t n) {
    cpu_state *s = d->state;
    for (size_t i = 0; i < n; i++) {
        engine_dev_item *it = items[i];
        const cuzk_curve_impl *ci = cuzk_curve_impl_get(it->key->curve);
        cuzk_groth16_timing t = {0};
        it->status = ci ? cpu_prove(ci, it, s->pool, &t)
                        : cuzk_fail(&it->err, CUZK_ECURVE, "key of unknown curve");
        if (it->status == CUZK_OK)
            cpu_steps(&it->steps, &t);
    }
}

static cuzk_status cpu_reset(engine_device *d, cuzk_error *err) {
    (void)d, (void)err;
    return CUZK_OK; /* no device state survives a step */
}

const engine_device_ops engine_device_cpu_ops = {
    .kind = "cpu",
    .simulated = 0,
    .open = cpu_open,
    .close = cpu_close,
    .upload = NULL,
    .run = cpu_run,
    .fetch = NULL,
    .reset = cpu_reset,
};
