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

#define CPU_PROVE(P)                                                                         \
    static cuzk_status P##_cpu_prove(engine_dev_item *it, cuzk_pool *pool,                  \
                                     cuzk_groth16_timing *t) {                                \
        const P##_groth16_pk *pk = &it->key->pk.P;                                            \
        size_t n = (size_t)1 << pk->log_n;                                                    \
        P##_fr *abc = (P##_fr *)it->abc, r, s;                                                \
        uint64_t t0 = cuzk_now_ns();                                                          \
        cuzk_status st;                                                                       \
        if ((st = P##_fr_random(&r, &it->err)) != CUZK_OK ||                                  \
            (st = P##_fr_random(&s, &it->err)) != CUZK_OK)                                    \
            return st;                                                                        \
        /* a retry of a partition meant for a device that evaluates itself */ \
        if (!it->abc_ready &&                                                                 \
            (st = P##_groth16_evaluate(pk, (const P##_fr *)it->witness, abc, abc + n,         \
                                       abc + 2 * n, pool, &it->err)) != CUZK_OK)              \
            return st;                                                                        \
        t->evaluate_ns = it->abc_ready ? 0 : cuzk_now_ns() - t0;                              \
        uint64_t th = cuzk_now_ns();                                                          \
        st = P##_groth16_compute_h(pk, abc, abc + n, abc + 2 * n, pool, &it->err);            \
        if (st != CUZK_OK)                                                                    \
            return st;                                                                        \
        t->h_ns = cuzk_now_ns() - th;                                                         \
        it->proof.curve = it->key->curve;                                                     \
        return P##_groth16_msms_assemble(&it->proof.p.P, pk, (const P##_fr *)it->witness, abc, \
                                         &r, &s, pool, t, &it->err);                          \
    }
CPU_PROVE(bls12_381)
CPU_PROVE(bn254)

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
        cuzk_groth16_timing t = {0};
        if (it->key->curve == CUZK_CURVE_BLS12_381)
            it->status = bls12_381_cpu_prove(it, s->pool, &t);
        else if (it->key->curve == CUZK_CURVE_BN254)
            it->status = bn254_cpu_prove(it, s->pool, &t);
        else
            it->status = cuzk_fail(&it->err, CUZK_ECURVE, "key of unknown curve");
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
