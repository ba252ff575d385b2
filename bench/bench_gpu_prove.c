/*
 * bench_gpu_prove: seconds per Groth16 proof on the GPU with the key
 * resident, and the per-stage breakdown (CUDA events), for generated
 * circuits of the default (mostly boolean) profile.
 *
 *   bench_gpu_prove [--curve bn254|bls12_381|both] [--logs 16,20,22,24]
 *                   [--reps N] [--real-max-log K] [--eval auto|gpu|cpu]
 *                   [--host-bases] [--shifted-gib G] [--batch 1,4,10]
 *                   [--mem-limit-gib G] [--profile default|porep|snap]
 *                   [--ones on|off|both] [--b2 gpu|cpu|both] [--input wtns|abc]
 *
 * Keys: up to 2^K constraints (default K = 20) a real development key
 * (cuzk setup --dev), and every proof is checked by the CPU verifier;
 * above, a timing key of the same shape whose points are repeated random
 * points (P_setup_timing): the prover does the same work, but its proofs
 * are not valid, so they are not verified.  The output says which.
 * --host-bases keeps the key's points in page-locked host memory and
 * streams them to the device in every MSM (the mode for keys larger than
 * device memory).  --shifted-gib G gives the resident key's base sets
 * precomputed shifted copies within G GiB (cuzk_gpu_key_precompute: H,
 * B2, A, B1, C in that order, each if it fits).  Prints one line per
 * proof and a summary table last.  --batch N[,N...]: proofs of N partitions
 * of the key at once (one pass of the bases per MSM for all of them), one
 * row per size on the same key; --mem-limit-gib G caps the device memory
 * (a key or batch that cannot fit is refused before it allocates, and the
 * row says FAILED: no figure is printed for a run without a proof; the
 * device peak is checked against the cap).  --profile picks the
 * generator's profile (porep, snap: Filecoin-shaped, with zero columns, so
 * the key is compact).  --ones and --b2 add rows on the same key: the
 * bit-scalar sums on or off (cuzk_gpu_ctx_msm_ones), B2 on the device or
 * on the host's threads (cuzk_gpu_prover_set_b2); "both" measures each.
 * --input abc: partitions come as evaluated a, b, c with the witness (the
 * input Filecoin's synthesis hands over): evaluated once on the host
 * before the proofs, uploaded with each, not evaluated on the device.
 * No GPU: exit 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/load.h"
#include "groth16/curve_impl.h"
#include "groth16/prover/key.h"
#include "engine/gpu_tier.h"
#include "groth16/prover/prove_gpu.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/msm.h"
#include "gpu/runtime.h"
#include "gpu/selftest.h"
#include "tests/gpu_prove_util.h"
#endif

#ifdef CUZK_HAVE_CUDA
static double g_shifted_gib; /* --shifted-gib */

typedef struct row {
    const char *curve;
    unsigned log2;
    int real;
    double upload_key_s, best_s, median_s;
    cuzk_gpu_timing best;
    uint64_t key_bytes, dev_peak, dev_cap;
    unsigned batch;
    const char *variant; /* --ones / --b2 choices of the row */
    int host, verified, failed;
} row;

/* Variants of one key's rows (--ones, --b2): bit-scalar sums on or off,
 * B2 on the device's second stream or on the host's threads. */
typedef struct variant {
    int ones, b2_cpu;
    const char *name;
} variant;
static variant g_vars[4];
static int g_nvar;
static const char *g_profile; /* --profile: the generator's (NULL: default) */
static int g_input_abc;       /* --input abc: partitions arrive as a, b, c */

/* Host-streamed bases need every point array of the key in one block
 * (cuzk_gpu_key's host mode page-locks key->mem).  A key that already is
 * one block (k->mem: the development and timing keys are) is used in
 * place: at 2^27 a copy would double 47 GiB.  Otherwise the five point
 * arrays (A and B1/B2 compact, n_a and n_b points) are copied into one new
 * block and the key pointed at it; *own is then that block (free it after
 * the key), else NULL.  Returns 0 when out of memory. */
static int pin_block(cuzk_key *k, void **own) {
    size_t g1 = k->curve == CUZK_CURVE_BLS12_381 ? 96 : 64, g2 = 2 * g1;
    *own = NULL;
    if (k->mem)
        return 1;
#define PIN(P)                                                                                 \
    do {                                                                                       \
        P##_groth16_pk *pk = &k->pk.P;                                                         \
        size_t n = (size_t)1 << pk->log_n, nv = pk->n_vars, nc = nv - pk->n_public - 1;        \
        size_t na = pk->n_a, nb = pk->n_b;                                                     \
        size_t bytes = g1 * (na + nb + nc + n) + g2 * nb;                                      \
        uint8_t *b = malloc(bytes), *q = b;                                                    \
        if (!b)                                                                                \
            return 0;                                                                          \
        memcpy(q, pk->a, g1 * na), pk->a = (void *)q, q += g1 * na;                            \
        memcpy(q, pk->b1, g1 * nb), pk->b1 = (void *)q, q += g1 * nb;                          \
        memcpy(q, pk->c, g1 * nc), pk->c = (void *)q, q += g1 * nc;                            \
        memcpy(q, pk->h, g1 * n), pk->h = (void *)q, q += g1 * n;                              \
        memcpy(q, pk->b2, g2 * nb), pk->b2 = (void *)q;                                        \
        k->mem = *own = b;                                                                     \
        k->mem_bytes = bytes;                                                                  \
        return 1;                                                                              \
    } while (0)
    if (k->curve == CUZK_CURVE_BLS12_381)
        PIN(bls12_381);
    PIN(bn254);
#undef PIN
}

/* Fresh blinding scalars for one proof. */
static cuzk_status blinding(cuzk_curve c, cuzk_fr *r, cuzk_fr *s, cuzk_error *err) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(c);
    cuzk_status st = ci->fr_random(r, err);
    return st == CUZK_OK ? ci->fr_random(s, err) : st;
}

/* One key of 2^log2 constraints, then |nbatch| rows: proofs in batches of
 * batches[i] partitions.  Returns the rows written, -1 before any. */
static int run_one(row *out, cuzk_gpu_ctx *ctx, cuzk_pool *pool, cuzk_curve curve, unsigned log2,
                   int reps, int real, int cpu_eval, int host_bases, int mem_limit,
                   const unsigned *batches, int nbatch) {
    cuzk_error err = {0};
    bench_circuit bc = {curve, log2, g_profile, -1, !real};
    cuzk_synth_params sp;
    if (bench_circuit_params(&bc, &sp, &err) != CUZK_OK) {
        fprintf(stderr, "bench_gpu_prove: %s\n", err.msg);
        return -1;
    }
    sp.curve = curve; /* the profiles name BLS12-381; both curves take them */
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    memset(out, 0, sizeof *out);
    out->curve = cuzk_curve_snarkjs_name(curve);
    out->log2 = log2;
    out->real = real;
    double t0 = bench_now_s();
    if (cuzk_synth_circuit(&sp, &r1cs, &wit, &err) != CUZK_OK) {
        fprintf(stderr, "synth 2^%u: %s\n", log2, err.msg);
        return -1;
    }
    double t_synth = bench_now_s() - t0;
    cuzk_key key;
    memset(&key, 0, sizeof key);
    key.curve = curve;
    /* host-streamed bases need the points in one block to page-lock:
     * pin_block's copy, if it had to make one */
    void *block = NULL;
    bls12_381_dev_key kb;
    bn254_dev_key kn;
    uint64_t seed = 7;
    cuzk_status st;
    t0 = bench_now_s();
    if (curve == CUZK_CURVE_BLS12_381) {
        if (real) {
            bls12_381_setup_toxic t;
            st = bls12_381_setup_toxic_draw(&t, &seed, &err);
            if (st == CUZK_OK)
                st = bls12_381_setup_dev(&kb, &r1cs, &t, pool, &err);
        } else {
            st = bls12_381_setup_timing(&kb, &r1cs, seed, pool, &err);
        }
        key.pk.bls12_381 = kb.pk;
        key.mem = kb.mem, key.mem_bytes = kb.mem_bytes; /* the dev key's, one block */
    } else {
        if (real) {
            bn254_setup_toxic t;
            st = bn254_setup_toxic_draw(&t, &seed, &err);
            if (st == CUZK_OK)
                st = bn254_setup_dev(&kn, &r1cs, &t, pool, &err);
        } else {
            st = bn254_setup_timing(&kn, &r1cs, seed, pool, &err);
        }
        key.pk.bn254 = kn.pk;
        key.mem = kn.mem, key.mem_bytes = kn.mem_bytes;
    }
    if (st != CUZK_OK) {
        fprintf(stderr, "key 2^%u: %s\n", log2, err.msg);
        return -1;
    }
    double t_key = bench_now_s() - t0;
    uint8_t *wbuf = NULL;
    size_t wsize = 0;
    cuzk_wtns w;
    cuzk_vk vk;
    int have_vk = real && cuzk_key_vk(&key, &vk, &err) == CUZK_OK;
    if (cuzk_wtns_write_mem(curve, wit, r1cs.n_wires, &wbuf, &wsize, &err) != CUZK_OK ||
        cuzk_wtns_from_mem(&w, wbuf, wsize, &err) != CUZK_OK) {
        fprintf(stderr, "witness: %s\n", err.msg);
        return -1;
    }
    printf("%s 2^%u: %u constraints, %u wires; synth %.1f s, %s key %.1f s, %.2f GiB "
           "(profile %s)\n",
           out->curve, log2, r1cs.n_constraints, r1cs.n_wires, t_synth, real ? "dev" : "timing",
           t_key, key.mem_bytes / 1073741824.0, g_profile ? g_profile : "default");
    fflush(stdout);
    /* the system is not needed any more: at 2^27 it is ~20 GB of host
     * memory that the GPU key's matrices (built next) would sit beside */
    size_t n_pub = cuzk_r1cs_n_public(&r1cs);
    cuzk_r1cs_free(&r1cs);

    cuzk_gpu_key *gk = NULL;
    cuzk_gpu_prover *p = NULL, *bp[CUZK_GPU_MSM_MAX_VECTORS] = {NULL};
    t0 = bench_now_s();
    cuzk_gpu_key_mode mode = host_bases ? CUZK_GPU_KEY_HOST
                             : mem_limit    ? CUZK_GPU_KEY_AUTO
                                            : CUZK_GPU_KEY_DEVICE;
    if (mode != CUZK_GPU_KEY_DEVICE && !pin_block(&key, &block)) {
        fprintf(stderr, "host bases: out of memory\n");
        return -1;
    }
    if (engine_gpu_key_create(&gk, ctx, &key, mode, &err) != CUZK_OK ||
        cuzk_gpu_prover_create(&p, ctx, pool, &err) != CUZK_OK) {
        fprintf(stderr, "GPU key/prover: %s\n", err.msg);
        return -1;
    }
    if (g_shifted_gib > 0) {
        size_t took = 0;
        double ts = bench_now_s();
        if (cuzk_gpu_key_precompute(gk, (size_t)(g_shifted_gib * 1073741824.0), &took, &err) !=
            CUZK_OK) {
            fprintf(stderr, "shifted copies: %s\n", err.msg);
            return -1;
        }
        printf("  shifted copies: %.2f GiB in %.1f s\n", took / 1073741824.0,
               bench_now_s() - ts);
    }
    printf("  key: %s\n", cuzk_gpu_key_why(gk));
    double t_upload_key = bench_now_s() - t0;
    const cuzk_fr *pub = wit + 1;
    /* --input abc: a, b, c evaluated once on the host, as a synthesis that
     * hands them over would; each proof uploads them with the witness and
     * the device skips its evaluation */
    cuzk_fr *abc = NULL;
    if (g_input_abc) {
        size_t n = (size_t)1 << log2;
        double te = bench_now_s();
        const cuzk_curve_impl *ci = cuzk_curve_impl_get(curve);
        size_t sb = ci->evaluate_scratch_bytes(&key);
        void *scratch = malloc(sb);
        abc = malloc(3 * n * sizeof *abc);
        if (!abc || !scratch)
            cuzk_fail(&err, CUZK_ENOMEM, "out of memory");
        cuzk_status st = abc && scratch
                             ? ci->evaluate_with_scratch(&key, (const cuzk_fr *)w.values, abc,
                                                         abc + n, abc + 2 * n, scratch, sb, pool,
                                                         &err)
                             : CUZK_ENOMEM;
        free(scratch);
        if (st != CUZK_OK) {
            fprintf(stderr, "a, b, c: %s\n", err.msg);
            return -1;
        }
        printf("  a, b, c evaluated on the host in %.1f s (the input of every proof)\n",
               bench_now_s() - te);
    }
    int nrow = 0;
    bp[0] = p;
    for (int ci = 0; ci < nbatch * g_nvar; ci++, out++) {
    unsigned batch = batches[ci % nbatch];
    const variant *var = &g_vars[ci / nbatch];
    cuzk_gpu_ctx_msm_ones(ctx, var->ones);
    for (unsigned b = 0; b < CUZK_GPU_MSM_MAX_VECTORS; b++)
        if (bp[b])
            cuzk_gpu_prover_set_b2(bp[b], var->b2_cpu);
    printf("  -- batch %u, %s\n", batch, var->name);
    memset(out, 0, sizeof *out);
    out->variant = var->name;
    out->curve = cuzk_curve_snarkjs_name(curve);
    out->log2 = log2;
    out->real = real;
    out->host = cuzk_gpu_key_host_streamed(gk);
    out->batch = batch;
    out->upload_key_s = t_upload_key;
    out->key_bytes = cuzk_gpu_key_device_bytes(gk);
    nrow++;
    for (unsigned b = 1; b < batch; b++)
        if (!bp[b] && cuzk_gpu_prover_create(&bp[b], ctx, pool, &err) != CUZK_OK) {
            fprintf(stderr, "GPU prover: %s\n", err.msg);
            out->failed = 1;
            break;
        } else if (bp[b]) {
            cuzk_gpu_prover_set_b2(bp[b], var->b2_cpu);
        }
    /* every buffer and the batch's MSM scratch before the first proof: a
     * batch the device-memory cap cannot hold is refused here, with the
     * figures, instead of failing inside a proof */
    for (unsigned b = 0; b < batch && !out->failed; b++)
        if (cuzk_gpu_prover_reserve_batch(bp[b], gk, b == 0 ? batch : 0, &err) != CUZK_OK) {
            fprintf(stderr, "batch %u: GPU prover: %s\n", batch, err.msg);
            out->failed = 1;
        }
    if (out->failed)
        continue;
    double *times = calloc((size_t)reps + 1, sizeof *times);
    out->best_s = 0; /* no figure until a proof succeeds */
    for (int i = 0; i <= reps; i++) { /* i = 0 warms up (twiddles, scratch) */
        cuzk_proof proof;
        cuzk_gpu_timing t;
        double a = bench_now_s();
        if (batch <= 1 && !abc) {
            st = gpu_prove_one(p, gk, &w, cpu_eval, NULL, NULL, pool, &proof, &t, &err);
        } else if (batch <= 1) {
            cuzk_fr r, s;
            st = blinding(curve, &r, &s, &err);
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_upload(p, gk, w.values, abc, &err);
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_run(p, gk, &r, &s, &proof, &t, &err);
        } else {
            /* |batch| partitions of the same witness in one pass; the time
             * per partition is the batch's over |batch| */
            cuzk_gpu_batch_item items[CUZK_GPU_MSM_MAX_VECTORS];
            cuzk_proof proofs[CUZK_GPU_MSM_MAX_VECTORS];
            st = CUZK_OK;
            for (unsigned b = 0; b < batch && st == CUZK_OK; b++) {
                items[b] = (cuzk_gpu_batch_item){.p = bp[b], .out = &proofs[b]};
                st = blinding(curve, &items[b].r, &items[b].s, &err);
                if (st == CUZK_OK)
                    st = cuzk_gpu_prove_upload(bp[b], gk, w.values, abc, &err);
            }
            if (st == CUZK_OK)
                st = cuzk_gpu_prove_run_batch(items, batch, gk, &t, &err);
            for (unsigned b = 0; b < batch && st == CUZK_OK; b++)
                if (items[b].st != CUZK_OK)
                    st = items[b].st, err = items[b].err;
            proof = proofs[batch - 1];
        }
        double el = (bench_now_s() - a) / batch;
        if (st != CUZK_OK) {
            fprintf(stderr, "prove: %s\n", err.msg);
            out->failed++;
            continue;
        }
        if (have_vk) {
            if (cuzk_vk_verify(&vk, pub, n_pub, &proof, &err) == CUZK_OK)
                out->verified++;
            else
                out->failed++;
        }
        printf("  %s %7.1f ms | upload %.1f eval(%s) %.1f ntt %.1f | msm A %.1f B1 %.1f C %.1f "
               "H %.1f | B2 %.1f (stream 2) | down %.2f asm %.2f\n",
               i == 0 ? "warm-up" : "proof  ", el * 1e3, t.upload_us / 1e3,
               t.eval_on_gpu ? "gpu" : "cpu", t.evaluate_us / 1e3, t.ntt_us / 1e3,
               t.msm_a_us / 1e3, t.msm_b1_us / 1e3, t.msm_c_us / 1e3, t.msm_h_us / 1e3,
               t.msm_b2_us / 1e3, t.download_us / 1e3, t.assemble_us / 1e3);
        fflush(stdout);
        if (i > 0) {
            times[i - 1] = el;
            if (out->best_s == 0 || el < out->best_s) {
                out->best_s = el;
                out->best = t;
            }
        }
    }
    /* the median of the proofs that succeeded (a failed run has none) */
    size_t ok = 0;
    for (int i = 0; i < reps; i++)
        if (times[i] > 0)
            times[ok++] = times[i];
    bench_stats ts;
    if (ok) {
        bench_stats_of(&ts, times, ok);
        out->median_s = ts.median;
    }
    free(times);
    cuzk_gpu_mem_info mi;
    cuzk_gpu_ctx_mem(ctx, &mi);
    out->dev_peak = mi.peak_bytes;
    out->dev_cap = mi.limit_bytes;
    }
    for (unsigned b = 0; b < CUZK_GPU_MSM_MAX_VECTORS; b++)
        cuzk_gpu_prover_free(bp[b]);
    cuzk_gpu_key_free(gk);
    free(block);
    if (have_vk)
        cuzk_vk_clear(&vk);
    cuzk_wtns_close(&w);
    free(wbuf);
    if (curve == CUZK_CURVE_BLS12_381)
        bls12_381_dev_key_free(&kb);
    else
        bn254_dev_key_free(&kn);
    free(wit);
    free(abc);
    return nrow;
}
#endif

int main(int argc, char **argv) {
#ifndef CUZK_HAVE_CUDA
    (void)argc, (void)argv;
    printf("bench_gpu_prove: built without CUDA\n");
    return 77;
#else
    const char *curves = "both", *logs = "16,20,22,24";
    int reps = 3;
    unsigned real_max = 20;
    int cpu_eval = 0; /* --eval cpu; auto and gpu: on the device */
    int host_bases = 0;
    unsigned batches[8] = {1};
    int nbatch = 1;
    double limit_gib = 0;
    const char *ones = "on", *b2 = "gpu";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--curve") && i + 1 < argc)
            curves = argv[++i];
        else if (!strcmp(argv[i], "--logs") && i + 1 < argc)
            logs = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--host-bases"))
            host_bases = 1;
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            /* one value or a list: every batch size on the same key */
            const char *q = argv[++i];
            for (nbatch = 0; *q && nbatch < 8;) {
                batches[nbatch++] = (unsigned)strtoul(q, (char **)&q, 10);
                while (*q == ',')
                    q++;
            }
        }
        else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            g_profile = argv[++i];
        else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            g_input_abc = !strcmp(argv[++i], "abc");
        else if (!strcmp(argv[i], "--ones") && i + 1 < argc)
            ones = argv[++i];
        else if (!strcmp(argv[i], "--b2") && i + 1 < argc)
            b2 = argv[++i];
        else if (!strcmp(argv[i], "--shifted-gib") && i + 1 < argc)
            g_shifted_gib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--mem-limit-gib") && i + 1 < argc)
            limit_gib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--real-max-log") && i + 1 < argc)
            real_max = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--eval") && i + 1 < argc) {
            const char *m = argv[++i];
            cpu_eval = !strcmp(m, "cpu");
        } else {
            fprintf(stderr,
                    "usage: bench_gpu_prove [--curve bn254|bls12_381|both] [--logs 16,20] "
                    "[--reps N] [--real-max-log K] [--eval auto|gpu|cpu] [--host-bases]\n"
                    "                       [--batch N] [--mem-limit-gib G] [--shifted-gib G]\n"
                    "                       [--profile default|porep|snap] [--ones on|off|both]"
                    " [--b2 gpu|cpu|both] [--input wtns|abc]\n");
            return 2;
        }
    }
    /* the variants: every --ones choice with every --b2 choice */
    for (int o = 0; o < 2; o++)
        for (int c = 0; c < 2; c++) {
            int want_o = !strcmp(ones, "both") || !strcmp(ones, o ? "on" : "off");
            int want_c = !strcmp(b2, "both") || !strcmp(b2, c ? "cpu" : "gpu");
            if (!want_o || !want_c)
                continue;
            static char names[4][32];
            snprintf(names[g_nvar], sizeof names[g_nvar], "ones %s, B2 %s", o ? "on" : "off",
                     c ? "cpu" : "gpu");
            g_vars[g_nvar] = (variant){o, c, names[g_nvar]};
            g_nvar++;
        }
    if (g_nvar == 0) {
        fprintf(stderr, "bench_gpu_prove: --ones is on, off or both; --b2 gpu, cpu or both\n");
        return 2;
    }
    if (reps < 1)
        reps = 1;
    for (int i = 0; i < nbatch; i++)
        if (batches[i] < 1 || batches[i] > CUZK_GPU_MSM_MAX_VECTORS) {
            fprintf(stderr, "bench_gpu_prove: --batch is 1..%d (a list: 1,4,10)\n",
                    CUZK_GPU_MSM_MAX_VECTORS);
            return 2;
        }
    if (cuzk_gpu_device_count() == 0) {
        printf("bench_gpu_prove: no GPU\n");
        return 77;
    }
    cuzk_error err = {0};
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_pool *pool = cuzk_pool_create(0, &err);
    if (!pool || cuzk_gpu_ctx_create(0, &ctx, &err) != CUZK_OK) {
        fprintf(stderr, "bench_gpu_prove: %s\n", err.msg);
        return 1;
    }
    /* CUZK_GPU_PROFILE=1: per-phase MSM times on stderr */
    if (getenv("CUZK_GPU_PROFILE") && atoi(getenv("CUZK_GPU_PROFILE")))
        cuzk_gpu_ctx_tune(ctx, 0, 0, 1);
    if (limit_gib > 0)
        cuzk_gpu_ctx_set_mem_limit(ctx, (size_t)(limit_gib * 1073741824.0));
    row rows[64];
    int nrows = 0, fails = 0;
    for (const char *q = logs; *q && nrows < 62 - nbatch * g_nvar;) {
        unsigned lg = (unsigned)strtoul(q, (char **)&q, 10);
        while (*q == ',')
            q++;
        for (int c = 0; c < 2; c++) {
            cuzk_curve cv = c == 0 ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381;
            if (strcmp(curves, "both") && strcmp(curves, cuzk_curve_snarkjs_name(cv)) &&
                !(c == 0 && !strcmp(curves, "bn254")) && !(c == 1 && !strcmp(curves, "bls12_381")))
                continue;
            int k = run_one(&rows[nrows], ctx, pool, cv, lg, reps, lg <= real_max, cpu_eval,
                            host_bases, limit_gib > 0, batches, nbatch);
            if (k < 0)
                fails++;
            for (int j = 0; j < k; j++)
                fails += rows[nrows++].failed;
        }
    }
    printf("\n(per partition; with --batch N the batch's time over N)\n");
    printf("%-10s %5s %-6s %-6s %5s %-17s %10s %10s %10s %9s %8s %8s %8s %8s %8s %8s %8s %9s\n",
           "curve", "log2", "key", "tier", "batch", "variant", "key MB", "upload s", "best ms",
           "median", "eval", "ntt", "msm A", "msm B1", "msm C", "msm H", "msm B2", "dev peak");
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        double b = r->batch ? r->batch : 1; /* stage times cover the batch */
        if (r->best_s <= 0) { /* every proof failed: no figure */
            printf("%-10s %5u %-6s %-6s %5u %-17s %10.0f %10.2f %10s   FAILED (see above)\n",
                   r->curve, r->log2, r->real ? "dev" : "timing", r->host ? "pinned" : "device",
                   r->batch, r->variant, r->key_bytes / 1e6, r->upload_key_s, "-");
            continue;
        }
        printf("%-10s %5u %-6s %-6s %5u %-17s %10.0f %10.2f %10.1f %9.1f %8.1f %8.1f %8.1f %8.1f "
               "%8.1f %8.1f %8.1f %8.1fG%s%s\n",
               r->curve, r->log2, r->real ? "dev" : "timing", r->host ? "pinned" : "device",
               r->batch, r->variant, r->key_bytes / 1e6, r->upload_key_s, r->best_s * 1e3, r->median_s * 1e3,
               r->best.evaluate_us / 1e3 / b, r->best.ntt_us / 1e3 / b,
               r->best.msm_a_us / 1e3 / b, r->best.msm_b1_us / 1e3 / b,
               r->best.msm_c_us / 1e3 / b, r->best.msm_h_us / 1e3 / b,
               r->best.msm_b2_us / 1e3 / b, r->dev_peak / 1073741824.0,
               r->dev_cap ? (r->dev_peak <= r->dev_cap ? " (within cap)" : " (OVER CAP)") : "",
               r->real ? (r->failed ? "  VERIFY FAILED" : "  verified") : "  (not verifiable)");
        if (r->dev_cap && r->dev_peak > r->dev_cap)
            fails++;
    }
    cuzk_gpu_ctx_destroy(ctx);
    cuzk_pool_destroy(pool);
    return fails ? 1 : 0;
#endif
}
