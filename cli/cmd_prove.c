/*
 * cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
 * The argument order of `snarkjs groth16 prove` and rapidsnark's prover.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/json.h"
#include "groth16/key.h"
#include "groth16/prove_gpu.h"
#include "util/threadpool.h"
#include "witness/wc.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/runtime.h"
#endif

/* "prove", or "fullprove" when cmd_fullprove calls: the name in messages */
static const char *prove_cmd = "prove";

static const char *help =
    "usage: cuzk prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "       cuzk prove [options] --input <input.json> --circuit <circuit.wasm>\n"
    "                  <circuit.zkey> <proof.json> <public.json>\n"
    "Make a Groth16 proof with a snarkjs proving key and a circom witness (or the\n"
    "circuit's inputs: the witness is computed first, as `cuzk fullprove` does),\n"
    "and write proof.json and public.json exactly as snarkjs does.\n"
    "options:\n"
    "  --input F      circom input.json instead of a witness (needs --circuit)\n"
    "  --circuit F    the circuit's witness calculator (circom's .wasm)\n"
    "  --cache DIR    folder of compiled circuits (default CUZK_WC_CACHE,\n"
    "                 else ~/.cache/cuzk/wc)\n"
    "  --cpu          prove on the CPU even when a GPU is present\n"
    "  --gpu N        prove on CUDA device N (default: device 0 when one is\n"
    "                 present, else the CPU)\n"
    "  --threads N    CPU threads (default: all online CPUs)\n"
    "  --verify       check the proof with the key's verification key before\n"
    "                 writing it\n"
    "  -v             print the time of each step on stderr\n";

static void print_gpu_timing(const cuzk_gpu_timing *t, double load_s, double upload_key_s,
                             double write_s) {
    fprintf(stderr,
            "cuzk prove (GPU): load %.3f s | key upload %.3f s | witness upload %.1f ms | "
            "evaluate (%s) %.1f | h (6 NTT) %.1f | msm A %.1f B1 %.1f C %.1f H %.1f | "
            "msm B2 %.1f (2nd stream) | download %.1f | assemble %.1f | prove total %.1f ms | "
            "write %.3f s\n",
            load_s, upload_key_s, t->upload_us / 1e3, t->eval_on_gpu ? "gpu" : "cpu",
            t->evaluate_us / 1e3, t->ntt_us / 1e3, t->msm_a_us / 1e3, t->msm_b1_us / 1e3,
            t->msm_c_us / 1e3, t->msm_h_us / 1e3, t->msm_b2_us / 1e3, t->download_us / 1e3,
            t->assemble_us / 1e3, t->total_us / 1e3, write_s);
}

/*
 * Prove on CUDA device |dev|: upload the key, prove once.  Returns 1 if the
 * proof was made (or failed for a reason that the CPU would share: the
 * witness), 0 if there is no usable GPU (the caller falls back to the CPU),
 * -1 after printing an error.
 */
static int prove_gpu(int dev, int required, const cuzk_key *key, const cuzk_wtns *w,
                     cuzk_proof *proof, cuzk_pool *pool, double *upload_s,
                     cuzk_gpu_timing *t) {
#ifdef CUZK_HAVE_CUDA
    cuzk_error err = {0};
    if (cuzk_gpu_device_count() <= dev) {
        if (required) {
            fprintf(stderr, "cuzk %s: no CUDA device %d\n", prove_cmd, dev);
            return -1;
        }
        return 0;
    }
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_key *gk = NULL;
    cuzk_gpu_prover *p = NULL;
    int rc = -1;
    uint64_t t0 = cli_now_ns();
    if (cuzk_gpu_ctx_create(dev, &ctx, &err) != CUZK_OK) {
        if (!required) {
            fprintf(stderr, "cuzk %s: GPU %d unusable (%s); proving on the CPU\n", prove_cmd, dev,
                    err.msg);
            return 0;
        }
        cli_fail(prove_cmd, "GPU", &err);
        return -1;
    }
    if (cuzk_gpu_key_create(&gk, ctx, key, CUZK_GPU_KEY_AUTO, &err) != CUZK_OK ||
        cuzk_gpu_prover_create(&p, ctx, pool, &err) != CUZK_OK) {
        cli_fail(prove_cmd, "GPU key upload", &err);
        goto out;
    }
    *upload_s = (cli_now_ns() - t0) / 1e9;
    if (cuzk_gpu_prove(p, gk, w, proof, t, &err) != CUZK_OK) {
        cli_fail(prove_cmd, "prove (GPU)", &err);
        goto out;
    }
    rc = 1;
out:
    cuzk_gpu_prover_free(p);
    cuzk_gpu_key_free(gk);
    cuzk_gpu_ctx_destroy(ctx);
    return rc;
#else
    (void)dev, (void)key, (void)w, (void)proof, (void)pool, (void)upload_s, (void)t;
    if (required) {
        fprintf(stderr, "cuzk %s: this build has no CUDA support (--gpu)\n", prove_cmd);
        return -1;
    }
    return 0;
#endif
}

static void print_timing(const cuzk_groth16_timing *t, double load_s, double write_s) {
    fprintf(stderr,
            "cuzk %s: load %.3f s | evaluate %.3f | h (6 NTT) %.3f | msm A %.3f B1 %.3f "
            "B2 %.3f C %.3f H %.3f | assemble %.3f | prove total %.3f | write %.3f s\n", prove_cmd,
            load_s, t->evaluate_ns / 1e9, t->h_ns / 1e9, t->msm_a_ns / 1e9, t->msm_b1_ns / 1e9,
            t->msm_b2_ns / 1e9, t->msm_c_ns / 1e9, t->msm_h_ns / 1e9, t->assemble_ns / 1e9,
            t->total_ns / 1e9, write_s);
}

int cmd_prove(int argc, char **argv) {
    prove_cmd = argc > 0 && !strcmp(argv[0], "fullprove") ? "fullprove" : "prove";
    const char *pos[5], *input = NULL, *circuit = NULL, *cache = NULL;
    int npos = 0, verify = 0, force_cpu = 0, gpu_dev = 0, gpu_required = 0;
    unsigned threads = 0;
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        fputs(cli_prove_daemon_help, stdout);
        return 0;
    }
    /* Through a running cuzkd when one is configured (cli/cmd_daemon.c). */
    int daemon_rc = cli_prove_daemon(&argc, argv);
    if (daemon_rc >= 0)
        return daemon_rc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            cli_verbose++;
        else if (!strcmp(argv[i], "--cpu"))
            force_cpu = 1;
        else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) {
            gpu_dev = atoi(argv[++i]);
            gpu_required = 1;
        }
        else if (!strcmp(argv[i], "--verify"))
            verify = 1;
        else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            input = argv[++i];
        else if (!strcmp(argv[i], "--circuit") && i + 1 < argc)
            circuit = argv[++i];
        else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
            cache = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cuzk %s: unknown option %s\n%s", prove_cmd, argv[i], help);
            return 2;
        } else if (npos < 4)
            pos[npos++] = argv[i];
        else
            npos = 5;
    }
    if (!input != !circuit) {
        fprintf(stderr, "cuzk %s: --input and --circuit go together\n", prove_cmd);
        return 2;
    }
    if (npos != (input ? 3 : 4)) {
        fputs(help, stderr);
        return 2;
    }
    if (input) { /* the witness slot is the computed witness */
        pos[3] = pos[2];
        pos[2] = pos[1];
        pos[1] = input;
    }
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_wtns w;
    cuzk_proof proof;
    cuzk_groth16_timing t;
    cuzk_gpu_timing gt;
    double key_upload_s = 0;
    int on_gpu = 0;
    int rc = 1;
    uint64_t t0 = cli_now_ns();
    if (cuzk_key_load(&key, pos[0], &err) != CUZK_OK)
        return cli_fail(prove_cmd, pos[0], &err);
    void *values = NULL;
    uint8_t *img = NULL;
    double wc_load_s = 0, wc_calc_s = 0;
    if (input) {
        int curve = 0;
        uint32_t nv = 0;
        if (cli_witness_from_inputs(circuit, input, cache, &curve, &values, &nv, &wc_load_s,
                                    &wc_calc_s)) {
            cuzk_key_free(&key);
            return 1;
        }
        if ((cuzk_curve)curve != key.curve) {
            fprintf(stderr, "cuzk %s: %s is a circuit over %s, the key %s is for %s\n", prove_cmd,
                    circuit, cuzk_curve_snarkjs_name((cuzk_curve)curve), pos[0],
                    cuzk_curve_snarkjs_name(key.curve));
            free(values);
            cuzk_key_free(&key);
            return 1;
        }
        size_t size = cuzk_wtns_image(NULL, key.curve, values, nv);
        if (!(img = malloc(size))) {
            fprintf(stderr, "cuzk %s: no memory for the witness\n", prove_cmd);
            free(values);
            cuzk_key_free(&key);
            return 1;
        }
        cuzk_wtns_image(img, key.curve, values, nv);
        free(values);
        if (cuzk_wtns_from_mem(&w, img, size, &err) != CUZK_OK) {
            free(img);
            cuzk_key_free(&key);
            return cli_fail(prove_cmd, "computed witness", &err);
        }
        if (cli_verbose)
            fprintf(stderr, "cuzk %s: circuit load %.3f s | witness %.3f s (%u values)\n", prove_cmd,
                    wc_load_s, wc_calc_s, nv);
    } else if (cuzk_wtns_open(&w, pos[1], &err) != CUZK_OK) {
        cuzk_key_free(&key);
        return cli_fail(prove_cmd, pos[1], &err);
    }
    double load_s = (cli_now_ns() - t0 - (uint64_t)((wc_load_s + wc_calc_s) * 1e9)) / 1e9;
    cuzk_pool *pool = cuzk_pool_create(threads, &err);
    cuzk_fr *pub = NULL;
    size_t n_pub = cuzk_key_n_public(&key);
    if (!pool) {
        cli_fail(prove_cmd, "thread pool", &err);
        goto out;
    }
    if (!force_cpu) {
        on_gpu = prove_gpu(gpu_dev, gpu_required, &key, &w, &proof, pool, &key_upload_s,
                           &gt);
        if (on_gpu < 0)
            goto out;
    }
    if (!on_gpu && cli_stderr_tty())
        fprintf(stderr, "cuzk %s: proving (%s, 2^%u constraints, %u threads)...\r", prove_cmd,
                cuzk_curve_snarkjs_name(key.curve), cuzk_key_log_n(&key), cuzk_pool_threads(pool));
    if (!on_gpu && cuzk_key_prove(&key, &w, &proof, pool, &t, &err) != CUZK_OK) {
        cli_fail(prove_cmd, "prove", &err);
        goto out;
    }
    pub = malloc((n_pub ? n_pub : 1) * sizeof *pub);
    if (!pub || cuzk_wtns_to_mont(&w, pub, 1, n_pub, &err) != CUZK_OK) {
        cli_fail(prove_cmd, "public signals", &err);
        goto out;
    }
    if (verify) {
        cuzk_vk vk;
        if (cuzk_key_vk(&key, &vk, &err) != CUZK_OK ||
            cuzk_vk_verify(&vk, pub, n_pub, &proof, &err) != CUZK_OK) {
            cuzk_vk_free(&vk);
            cli_fail(prove_cmd, "self-check of the new proof", &err);
            goto out;
        }
        cuzk_vk_free(&vk);
    }
    uint64_t t1 = cli_now_ns();
    if (cuzk_proof_write_json_file(&proof, pos[2], &err) != CUZK_OK) {
        cli_fail(prove_cmd, pos[2], &err);
        goto out;
    }
    if (cuzk_public_write_json_file(key.curve, pub, n_pub, pos[3], &err) != CUZK_OK) {
        cli_fail(prove_cmd, pos[3], &err);
        goto out;
    }
    if (cli_verbose && on_gpu)
        print_gpu_timing(&gt, load_s, key_upload_s, (cli_now_ns() - t1) / 1e9);
    else if (cli_verbose)
        print_timing(&t, load_s, (cli_now_ns() - t1) / 1e9);
    rc = 0;
out:
    free(pub);
    cuzk_pool_destroy(pool);
    cuzk_wtns_close(&w);
    free(img);
    cuzk_key_free(&key);
    return rc;
}
