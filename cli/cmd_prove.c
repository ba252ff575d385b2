/*
 * cuzk prove <circuit.zkey> <witness.wtns | input.abc> <proof.json> <public.json>
 * The argument order of `snarkjs groth16 prove` and rapidsnark's prover.
 *
 * Design: an in-process proof runs the proving engine of include/cuzk.h,
 * the one cuzkd runs, with one device: the CPU (--cpu), or GPU N with the
 * engine's CPU fallback (--gpu N; by default GPU 0 when the build and the
 * machine have one, else the CPU).  The key is preloaded, the circuit (with
 * --input) registered, one job of one partition submitted and awaited, and
 * proof.json / public.json written from the job's JSON.  So every fix to
 * the engine's proving path (retries, the budget, key tiers, the timeline)
 * is what this command runs too, and -v prints the engine's own figures:
 * its stage boundaries and the device step's per-step times.
 *
 * Why not call the prover directly: that was a third path for a proof
 * beside the engine's CPU and GPU devices, and its figures were not the
 * engine's.  The engine costs a single proof little: see "cuzk prove
 * through the engine" in docs/PERFORMANCE-HISTORY.md for the start-up figures.
 *
 * Must not: include anything but cuzk.h and cli/ headers (the library's
 * public surface is the contract), write an output file when the proof
 * failed, or print more than one line for a failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cuzk.h"
#include "cuzk_tools.h"

/* "prove", or "fullprove" when cmd_fullprove calls: the name in messages */
const char *cli_prove_cmd = "prove";
#define prove_cmd cli_prove_cmd

static const char *help =
    "usage: cuzk prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "       cuzk prove [options] --input <input.json> --circuit <circuit.wasm>\n"
    "                  <circuit.zkey> <proof.json> <public.json>\n"
    "Make a Groth16 proof with a snarkjs proving key and a circom witness (or the\n"
    "circuit's inputs: the witness is computed first, as `cuzk fullprove` does),\n"
    "and write proof.json and public.json exactly as snarkjs does.  The proof is\n"
    "made by the same engine cuzkd runs, with one device.\n"
    "The witness may be an a, b, c image instead (`cuzk abc`: a, b, c already\n"
    "evaluated, as Filecoin's synthesis hands them over): it is proved without\n"
    "evaluating, also with a key whose coefficient list is empty.\n"
    "options:\n"
    "  --input F      circom input.json instead of a witness (needs --circuit)\n"
    "  --circuit F    the circuit's witness calculator (circom's .wasm)\n"
    "  --cache DIR    folder of compiled circuits (default $CUZK_WC_CACHE,\n"
    "                 else $XDG_CACHE_HOME/cuzk/wc, else ~/.cache/cuzk/wc)\n"
    "  --cpu          prove on the CPU even when a GPU is present\n"
    "  --gpu N        prove on CUDA device N (default: device 0 when one is\n"
    "                 present, else the CPU)\n"
    "  --threads N    CPU threads (default: all online CPUs)\n"
    "  --no-verify    do not check the proof with the key's verification key\n"
    "                 before writing it (checked by default: 1 to 2 ms; a proof\n"
    "                 that does not verify fails the command; --verify, the\n"
    "                 old way to ask for it, is still taken)\n"
    "  --no-check-abc do not check a∘b = c of an a, b, c image before proving\n"
    "                 (checked by default: a row that breaks it fails the\n"
    "                 command at once, naming the row)\n"
    "  -v             print the time of each step on stderr (-v -v: the\n"
    "                 engine's log lines too)\n";

static double ms(uint64_t ns) { return ns / 1e6; }
static double ms_between(uint64_t a, uint64_t b) { return a && b >= a ? (b - a) / 1e6 : 0.0; }

/* The engine's log lines: shown from -v -v on, so that a failure stays
 * one line of stderr. */
static void log_line(void *ctx, cuzk_log_level level, const char *line) {
    (void)ctx;
    /* a first compile of the circuit (--input): said, with its time, at
     * any verbosity */
    if (level == CUZK_LOG_INFO &&
        (!strncmp(line, "compiling ", 10) || !strncmp(line, "compiled ", 9))) {
        cli_compile_line(prove_cmd, line);
        return;
    }
    if (cli_verbose >= 2)
        fprintf(stderr, "cuzk %s: engine: %s\n", prove_cmd, line);
}

/* Write |text| to |path| with the library's atomic writer (a temporary
 * file and a rename), so that a failed write leaves an existing file as
 * it was. */
static int write_file(const char *path, const char *text) {
    cuzk_error err = {0};
    if (cuzk_file_write_atomic(path, text, strlen(text), &err) != CUZK_OK)
        return cli_fail(prove_cmd, path, &err);
    return 0;
}

/* Each input file must be readable: said here with the system's reason,
 * before an engine starts. */
static int check_readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cuzk %s: cannot open %s: %s\n", prove_cmd, path, strerror(errno));
        return 1;
    }
    fclose(f);
    return 0;
}

typedef struct prove_opts {
    const char *zkey, *wtns, *input, *circuit, *cache, *proof_out, *public_out;
    int no_verify, no_check_abc, force_cpu, gpu_dev, gpu_required;
    unsigned threads;
} prove_opts;

/* A one-device engine as the flags decide: CPU, or GPU N (with the
 * engine's CPU fallback for a failed step).  Without --gpu, a build or
 * machine without a GPU proves on the CPU.  0, or 1 after printing why. */
static int engine_start(cuzk_engine **e, const prove_opts *o, char *dev_name, size_t dev_len) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = o->threads ? o->threads : ncpu > 0 ? (unsigned)ncpu : 1;
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    /* One partition goes through the stages one after the other, so each
     * stage may use every thread. */
    cfg.synth_workers = 1;
    cfg.synth_threads = threads;
    cfg.finalize_threads = 1;
    cfg.buffer_sets = 1;
    cfg.retain_jobs = 1;
    cfg.trace_events = 64;
    cfg.self_verify = !o->no_verify;
    cfg.check_abc = !o->no_check_abc;
    cfg.wc_cache_dir = o->cache;
    cfg.log_fn = log_line;
    cfg.n_devices = 1;
    cuzk_error err = {0};
    if (!o->force_cpu) {
        cfg.devices[0] = (cuzk_device_config){
            .kind = CUZK_DEVICE_GPU, .gpu_index = o->gpu_dev, .threads = o->threads};
        cfg.cpu_fallback = 1;
        cuzk_status s = cuzk_engine_create(e, &cfg, &err);
        if (s == CUZK_OK) {
            snprintf(dev_name, dev_len, "gpu%d", o->gpu_dev);
            return 0;
        }
        if (o->gpu_required)
            return cli_fail(prove_cmd, "GPU", &err);
        if (s != CUZK_EUNSUPPORTED) /* there is one, but it does not work */
            fprintf(stderr, "cuzk %s: GPU %d unusable (%s); proving on the CPU\n", prove_cmd,
                    o->gpu_dev, err.msg);
    }
    cfg.devices[0] = (cuzk_device_config){.kind = CUZK_DEVICE_CPU, .threads = threads};
    cfg.cpu_fallback = 0;
    if (cuzk_engine_create(e, &cfg, &err) != CUZK_OK)
        return cli_fail(prove_cmd, "engine", &err);
    snprintf(dev_name, dev_len, "cpu, %u threads", threads);
    return 0;
}

/* The failure of the one partition, in the words the direct prover used:
 * "<witness file>: <reason>" for what synthesis rejected, "prove: <reason>"
 * for a failed device step.  The engine's "partition 0: " is dropped. */
static int job_fail(cuzk_job *job, const prove_opts *o) {
    cuzk_job_info info;
    cuzk_partition_info part;
    cuzk_job_status(job, &info, &part, 1);
    const char *msg = info.msg;
    if (!strncmp(msg, "partition 0: ", 13))
        msg += 13;
    const char *what = part.device_start_ns == 0  ? (o->input ? o->input : o->wtns)
                       : part.finalize_start_ns ? "self-check of the new proof"
                                                : "prove";
    cuzk_error e = {.status = info.status};
    snprintf(e.msg, sizeof e.msg, "%.*s", (int)sizeof e.msg - 1, msg);
    return cli_fail(prove_cmd, what, &e);
}

/* -v: the engine's figures for the proof. */
static void print_times(cuzk_engine *e, cuzk_job *job, const char *dev_name, double start_ms,
                        double key_ms, double circuit_ms, double write_ms) {
    cuzk_partition_info p;
    cuzk_engine_status st;
    cuzk_job_status(job, NULL, &p, 1);
    cuzk_engine_status_get(e, &st);
    const char *dev = p.device >= 0 && (unsigned)p.device < st.n_devices
                          ? st.devices[p.device].name : "?";
    const cuzk_step_timing *t = &p.steps;
    fprintf(stderr, "cuzk %s: engine start %.1f ms (%s) | key load %.1f ms", prove_cmd, start_ms,
            dev_name, key_ms);
    if (circuit_ms >= 0)
        fprintf(stderr, " | circuit load %.1f ms", circuit_ms);
    fprintf(stderr, "\n");
    char witness[48] = "";
    if (t->witness_ns)
        snprintf(witness, sizeof witness, " (witness %.1f ms)", ms(t->witness_ns));
    fprintf(stderr,
            "cuzk %s: queue %.1f ms | synthesis %.1f ms%s | ready %.1f ms | device %s %.1f ms | "
            "finalize %.1f ms | write %.1f ms | total %.1f ms\n",
            prove_cmd, ms_between(p.queued_ns, p.synth_start_ns),
            ms_between(p.synth_start_ns, p.synth_end_ns), witness,
            ms_between(p.synth_end_ns, p.device_start_ns), dev,
            ms_between(p.device_start_ns, p.device_end_ns),
            ms_between(p.finalize_start_ns, p.finalize_end_ns), write_ms,
            ms_between(p.queued_ns, p.finalize_end_ns) + write_ms);
    fprintf(stderr,
            "cuzk %s (%s): upload %.1f ms | evaluate (%s) %.1f | h (6 NTT) %.1f | msm A %.1f "
            "B1 %.1f B2 %.1f C %.1f H %.1f | download %.1f | assemble %.1f ms\n",
            prove_cmd, dev, ms(t->upload_ns),
            t->eval_site == CUZK_EVAL_DEVICE  ? dev
            : t->eval_site == CUZK_EVAL_INPUT ? "none: a, b, c input"
                                              : "synthesis",
            ms(t->evaluate_ns),
            ms(t->ntt_ns), ms(t->msm_a_ns), ms(t->msm_b1_ns), ms(t->msm_b2_ns), ms(t->msm_c_ns),
            ms(t->msm_h_ns), ms(t->download_ns), ms(t->assemble_ns));
}

int cli_prove_roles(const char *zkey, const char *wtns, const char *input,
                    const char *circuit) {
    int full = !strcmp(prove_cmd, "fullprove");
    const char *usage = full ? cli_fullprove_help : help;
    unsigned wtns_ok = CLI_KIND(CLI_FILE_WTNS) | CLI_KIND(CLI_FILE_ABC);
    return (input && cli_wrong_role(prove_cmd, input,
                                    full ? "the input.json (argument 1)" : "--input's input.json",
                                    CLI_KIND(CLI_FILE_INPUT), usage)) ||
           (circuit && cli_wrong_role(prove_cmd, circuit,
                                      full ? "the circuit.wasm (argument 2)"
                                           : "--circuit's circuit.wasm",
                                      CLI_KIND(CLI_FILE_WASM), usage)) ||
           cli_wrong_role(prove_cmd, zkey,
                          full ? "the proving key (argument 3)" : "the proving key (argument 1)",
                          CLI_KIND(CLI_FILE_ZKEY), usage) ||
           (wtns && cli_wrong_role(prove_cmd, wtns, "the witness (argument 2)", wtns_ok, usage))
               ? 2
               : 0;
}

static int prove(const prove_opts *o) {
    int roles = cli_prove_roles(o->zkey, o->wtns, o->input, o->circuit);
    if (roles)
        return roles;
    if (check_readable(o->zkey) || (o->wtns && check_readable(o->wtns)) ||
        (o->input && (check_readable(o->input) || check_readable(o->circuit))))
        return 1;
    cuzk_engine *e = NULL;
    cuzk_job *job = NULL;
    cuzk_error err = {0};
    char *input = NULL, dev_name[48];
    size_t input_len = 0;
    int rc = 1;
    uint64_t t0 = cli_now_ns();
    if (engine_start(&e, o, dev_name, sizeof dev_name))
        return 1;
    uint64_t t1 = cli_now_ns();
    if (cuzk_engine_key_preload(e, NULL, o->zkey, &err) != CUZK_OK) {
        cli_fail(prove_cmd, o->zkey, &err);
        goto out;
    }
    uint64_t t2 = cli_now_ns(), t3 = t2;
    if (o->input) {
        if (cli_read_file(o->input, &input, &input_len, &err)) {
            cli_fail(prove_cmd, o->input, &err);
            goto out;
        }
        if (!input_len) {
            fprintf(stderr, "cuzk %s: %s: empty file\n", prove_cmd, o->input);
            goto out;
        }
        cuzk_status cs = cuzk_engine_circuit_register(e, o->zkey, o->circuit, &err);
        cli_compile_done();
        if (cs != CUZK_OK) {
            cli_fail(prove_cmd, o->circuit, &err);
            goto out;
        }
        t3 = cli_now_ns();
    }
    cuzk_witness w = {.path = o->input ? NULL : o->wtns, .input_json = input,
                      .input_len = input_len};
    cuzk_submit_opts so = {.key = o->zkey, .priority = CUZK_PRIORITY_NORMAL,
                           .witnesses = &w, .n_witnesses = 1};
    if (cuzk_submit(e, &job, NULL, &so, &err) != CUZK_OK) {
        cli_fail(prove_cmd, "submit", &err);
        goto out;
    }
    if (cli_stderr_tty() && !cli_verbose)
        fprintf(stderr, "cuzk %s: proving (%s)...\r", prove_cmd, dev_name);
    if (cuzk_job_await(job, -1, &err) != CUZK_OK) {
        job_fail(job, o);
        goto out;
    }
    const char *proof_json = cuzk_job_proof_json(job, 0),
               *public_json = cuzk_job_public_json(job, 0);
    if (!proof_json || !public_json) {
        fprintf(stderr, "cuzk %s: the engine returned no proof.json\n", prove_cmd);
        goto out;
    }
    uint64_t t4 = cli_now_ns();
    if (write_file(o->proof_out, proof_json) || write_file(o->public_out, public_json))
        goto out;
    if (cli_verbose)
        print_times(e, job, dev_name, ms(t1 - t0), ms(t2 - t1), o->input ? ms(t3 - t2) : -1,
                    ms(cli_now_ns() - t4));
    rc = 0;
out:
    cuzk_job_release(job);
    cuzk_engine_destroy(e, 0);
    free(input);
    return rc;
}

int cmd_prove(int argc, char **argv) {
    cli_prove_cmd = argc > 0 && !strcmp(argv[0], "fullprove") ? "fullprove" : "prove";
    const char *pos[5];
    prove_opts o = {0};
    int npos = 0;
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        fputs(cli_prove_daemon_help, stdout);
        fputs(cli_daemon_opts_help, stdout);
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
            o.force_cpu = 1;
        else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) {
            o.gpu_dev = atoi(argv[++i]);
            o.gpu_required = 1;
        }
        else if (!strcmp(argv[i], "--verify"))
            o.no_verify = 0;
        else if (!strcmp(argv[i], "--no-verify"))
            o.no_verify = 1;
        else if (!strcmp(argv[i], "--no-check-abc"))
            o.no_check_abc = 1;
        else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            o.input = argv[++i];
        else if (!strcmp(argv[i], "--circuit") && i + 1 < argc)
            o.circuit = argv[++i];
        else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
            o.cache = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            o.threads = (unsigned)atoi(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cuzk %s: unknown option %s\n%s", prove_cmd, argv[i], help);
            return 2;
        } else if (npos < 4)
            pos[npos++] = argv[i];
        else
            npos = 5;
    }
    if (!o.input != !o.circuit) {
        fprintf(stderr, "cuzk %s: --input and --circuit go together\n", prove_cmd);
        return 2;
    }
    if (npos != (o.input ? 3 : 4)) {
        fputs(help, stderr);
        return 2;
    }
    o.zkey = pos[0];
    o.wtns = o.input ? NULL : pos[1];
    o.proof_out = pos[o.input ? 1 : 2];
    o.public_out = pos[o.input ? 2 : 3];
    return prove(&o);
}
