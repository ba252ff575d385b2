/*
 * cuzk bench: benchmarks that print figures (never tests).
 *   cuzk bench prove [--curve C] [--log2 K ...] [--snarkjs PATH] [--threads N]
 *                    [--input wtns|abc|both]
 * generates a circuit per size (synthetic, default profile), makes an
 * INSECURE development key, proves with a one-device CPU engine (the path
 * of `cuzk prove --cpu`; and with snarkjs when a snarkjs CLI path is
 * given), and prints a table.  A proof's time is the engine's, from submit
 * to the published proof; beside it the row gives each phase of that proof
 * (synthesis with its evaluate, h's transforms, each MSM, assembly) and
 * the key's load, timed once per size (a preload, outside the proof).  --input abc proves the a, b, c image of the
 * same witness instead (docs/FILES.md: synthesis converts, nothing is
 * evaluated), so the two input kinds can be compared row by row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/load.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk bench engine --help   (the proving engine under load)\n"
    "       cuzk bench filecoin --help   (PoRep / SnapDeals-shaped runs on the GPU)\n"
    "       cuzk bench single|batch|stress --help   (a running cuzkd under load)\n"
    "       cuzk bench prove [--curve bn254|bls12_381|both] [--log2 K [K...]]\n"
    "                        [--bool-share F] [--threads N] [--reps R]\n"
    "                        [--snarkjs path/to/snarkjs/cli.js] [--dir DIR]\n"
    "                        [--input wtns|abc|both]\n"
    "Generate a synthetic circuit of 2^K constraints (default K = 14 16),\n"
    "make an INSECURE development key, and time `cuzk prove` (best of R,\n"
    "default 3) and, with --snarkjs, `snarkjs groth16 prove` on the same\n"
    "files. Prints one table row per curve and size, with the phases of the\n"
    "best proof (synthesis, evaluate, h's NTTs, each MSM, assembly) and the\n"
    "key's load time (once per size).  --input abc proves the\n"
    "a, b, c image of the same witness (`cuzk abc`: a, b, c already evaluated,\n"
    "as Filecoin's synthesis hands them over) instead; both: a row of each.\n";

static double run_cmd_s(const char *cmd) {
    uint64_t t0 = cli_now_ns();
    int rc = system(cmd);
    if (rc != 0)
        return -1;
    return (double)(cli_now_ns() - t0) / 1e9;
}

/* One proof through |e| with the witness file |wtns|: its partition's
 * figures, or 1 after printing why it failed. */
static int prove_once(cuzk_engine *e, const char *zkey, const char *wtns,
                      cuzk_partition_info *part) {
    cuzk_witness w = {.path = wtns};
    cuzk_submit_opts so = {.key = zkey, .priority = CUZK_PRIORITY_NORMAL, .witnesses = &w,
                           .n_witnesses = 1};
    cuzk_job *job = NULL;
    cuzk_error err = {0};
    if (cuzk_submit(e, &job, NULL, &so, &err) != CUZK_OK)
        return cli_fail("bench", "submit", &err);
    int rc = 0;
    if (cuzk_job_await(job, -1, &err) != CUZK_OK)
        rc = cli_fail("bench", "prove", &err);
    cuzk_job_status(job, NULL, part, 1);
    cuzk_job_release(job);
    return rc;
}

/* Input kinds: bit 0 the .wtns, bit 1 its a, b, c image. */
enum { INPUT_WTNS = 1, INPUT_ABC = 2 };

static int bench_one(cuzk_engine *e, cuzk_curve curve, unsigned log2, double bool_share,
                     int reps, const char *snarkjs, const char *dir, unsigned threads,
                     int inputs) {
    char wtns[512], zkey[512], abc[600];
    cuzk_error err = {0};
    const char *cname = cuzk_curve_snarkjs_name(curve);
    bench_circuit bc = {curve, log2, NULL, bool_share, 0};
    fprintf(stderr, "bench: %s 2^%u: generating circuit and INSECURE dev key...\n", cname, log2);
    if (bench_circuit_write(&bc, dir, "bench", zkey, wtns, sizeof zkey, threads, &err) != CUZK_OK)
        return cli_fail("bench", "generate", &err);
    snprintf(abc, sizeof abc, "%s/bench.abc", dir);
    if ((inputs & INPUT_ABC) && cuzk_abc_make(zkey, wtns, abc, threads, &err) != CUZK_OK)
        return cli_fail("bench", abc, &err);
    uint64_t load0 = cli_now_ns();
    if (cuzk_engine_key_preload(e, NULL, zkey, &err) != CUZK_OK)
        return cli_fail("bench", zkey, &err);
    double load_s = (double)(cli_now_ns() - load0) / 1e9; /* once, not per proof */
    /* A proof's time is the engine's, submit to published proof:
     * synthesis (witness load and evaluate, or the image's conversion),
     * the device step, finalize. */
    double best[2] = {1e30, 1e30};
    cuzk_step_timing bt[2] = {{0}, {0}};
    double synth[2] = {0, 0};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < reps && (inputs & (1 << k)); i++) {
            cuzk_partition_info p;
            if (prove_once(e, zkey, k ? abc : wtns, &p))
                return 1;
            double s = (p.finalize_end_ns - p.queued_ns) / 1e9;
            if (s < best[k])
                best[k] = s, bt[k] = p.steps, synth[k] = (p.synth_end_ns - p.synth_start_ns) / 1e9;
        }
    cuzk_engine_key_evict(e, zkey, NULL); /* the next size needs the memory */
    double sj = 0;
    if (snarkjs) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "node %s groth16 prove %s %s %s/sj_proof.json %s/sj_public.json",
                 snarkjs, zkey, wtns, dir, dir);
        sj = 1e30;
        for (int i = 0; i < (reps < 2 ? reps : 2); i++) {
            double s = run_cmd_s(cmd);
            if (s < 0) {
                sj = -1;
                break;
            }
            if (s < sj)
                sj = s;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (!(inputs & (1 << k)))
            continue;
        const cuzk_step_timing *t = &bt[k];
        printf("%-9s 2^%-3u %-4s %9.3f s  (key load %.3f; synthesis %.3f, eval %.3f; h %.3f; "
               "msm A %.3f B1 %.3f B2 %.3f C %.3f H %.3f; assemble %.3f)",
               cname, log2, k ? "abc" : "wtns", best[k], load_s, synth[k], t->evaluate_ns / 1e9,
               t->ntt_ns / 1e9, t->msm_a_ns / 1e9, t->msm_b1_ns / 1e9, t->msm_b2_ns / 1e9,
               t->msm_c_ns / 1e9, t->msm_h_ns / 1e9, t->assemble_ns / 1e9);
        if (snarkjs && sj > 0)
            printf("  snarkjs %.3f s  ratio %.1fx", sj, sj / best[k]);
        else if (snarkjs)
            printf("  snarkjs failed");
        printf("\n");
    }
    fflush(stdout);
    return 0;
}

/* cuzk bench prove's options. */
typedef struct prove_opts {
    unsigned sizes[16], n_sizes, threads;
    int reps, curves; /* curves: bit 0 bn254, bit 1 bls12_381 */
    int inputs;
    double bool_share;
    const char *snarkjs, *dir;
} prove_opts;

/* argv[1] is "prove": 0, or 2 after printing the usage error. */
static int prove_parse(prove_opts *o, int argc, char **argv) {
    *o = (prove_opts){.reps = 3, .curves = 3, .inputs = INPUT_WTNS, .bool_share = -1};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "cuzk bench: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--curve"))
            o->curves = !strcmp(v, "both") ? 3 : cuzk_curve_from_name(v) == CUZK_CURVE_BN254 ? 1
                      : cuzk_curve_from_name(v) == CUZK_CURVE_BLS12_381                    ? 2
                                                                                          : 0;
        else if (!strcmp(a, "--log2")) {
            /* --log2 14 16, as the default is written, or --log2 14 --log2 16 */
            for (;;) {
                if (o->n_sizes < 16)
                    o->sizes[o->n_sizes++] = (unsigned)atoi(argv[i + 1]);
                const char *next = i + 2 < argc ? argv[i + 2] : "";
                if (!next[0] || strspn(next, "0123456789") != strlen(next))
                    break;
                i++;
            }
        }
        else if (!strcmp(a, "--threads"))
            o->threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--reps"))
            o->reps = atoi(v);
        else if (!strcmp(a, "--bool-share"))
            o->bool_share = atof(v);
        else if (!strcmp(a, "--snarkjs"))
            o->snarkjs = v;
        else if (!strcmp(a, "--dir"))
            o->dir = v;
        else if (!strcmp(a, "--input"))
            o->inputs = !strcmp(v, "wtns")   ? INPUT_WTNS
                        : !strcmp(v, "abc")  ? INPUT_ABC
                        : !strcmp(v, "both") ? INPUT_WTNS | INPUT_ABC
                                             : 0;
        else {
            fprintf(stderr, "cuzk bench: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (!o->curves || o->reps < 1 || !o->inputs) {
        fputs(help, stderr);
        return 2;
    }
    if (!o->n_sizes)
        o->sizes[o->n_sizes++] = 14, o->sizes[o->n_sizes++] = 16;
    return 0;
}

/* cuzk bench prove: every size and curve through one CPU engine. */
static int bench_prove(int argc, char **argv) {
    prove_opts o;
    int rc = prove_parse(&o, argc, argv);
    if (rc)
        return rc;
    char tmpl[] = "/tmp/cuzk-bench-XXXXXX";
    const char *dir = o.dir;
    unsigned threads = o.threads;
    cuzk_error err = {0};
    if (dir && bench_make_dirs(dir, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk bench: %s\n", err.msg);
        return 1;
    }
    if (!dir && !(dir = mkdtemp(tmpl))) {
        perror("cuzk bench: mkdtemp");
        return 1;
    }
    if (!threads) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        threads = nc > 0 ? (unsigned)nc : 1;
    }
    /* The proofs: a one-device CPU engine, as `cuzk prove --cpu` runs. */
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.synth_workers = 1;
    cfg.synth_threads = threads;
    cfg.buffer_sets = 1;
    cfg.log_level = CUZK_LOG_WARN;
    cfg.n_devices = 1;
    cfg.devices[0] = (cuzk_device_config){.kind = CUZK_DEVICE_CPU,
                                          .threads = threads};
    cuzk_engine *e = NULL;
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK) {
        return cli_fail("bench", "engine", &err);
    }
    printf("cuzk bench prove: %u threads, synthetic circuits (bool share %s), best of %d\n",
           threads, o.bool_share < 0 ? "default" : "given", o.reps);
    for (unsigned s = 0; s < o.n_sizes && !rc; s++)
        for (int c = 0; c < 2 && !rc; c++)
            if (o.curves & (1 << c)) {
                cuzk_synth_params dp;
                cuzk_curve cv = c == 0 ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381;
                cuzk_synth_params_default(&dp, cv);
                rc = bench_one(e, cv, o.sizes[s], o.bool_share < 0 ? dp.bool_share : o.bool_share,
                               o.reps, o.snarkjs, dir, threads, o.inputs);
            }
    cuzk_engine_destroy(e, 0);
    return rc;
}

/* cuzk bench: hands each subcommand on (they sit below it, in
 * bench/cmd_bench_engine.c and bench/cmd_bench_daemon.c). */
int cmd_bench(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "engine"))
        return cmd_bench_engine(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "filecoin"))
        return cmd_bench_filecoin(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "single") || !strcmp(argv[1], "batch") ||
                      !strcmp(argv[1], "stress")))
        return cmd_bench_daemon(argc - 1, argv + 1);
    if (cli_wants_help(argc, argv) || argc < 2 || strcmp(argv[1], "prove") != 0) {
        fputs(help, argc < 2 ? stderr : stdout);
        return cli_wants_help(argc, argv) ? 0 : 2;
    }
    return bench_prove(argc, argv);
}
