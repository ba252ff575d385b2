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
 * Through a daemon: when --addr, CUZK_ADDR or the default socket names a
 * running cuzkd (and no in-process-only option is given), the job is
 * submitted there and awaited, and the proof it returns is checked (its
 * public signals against the witness file, and with the key's vk whenever
 * the key is a file here) before the same two files are written.  Only a
 * stale default socket falls back to the in-process path.
 *
 * Both paths are this one file: the daemon's parser takes its options out
 * of argv and hands the rest to the in-process parser.  What they share
 * (the command's name, "prove" or "fullprove", and its help) travels in a
 * prove_ctx passed down, so cmd_fullprove runs this command under its own
 * name and usage (cli_prove_run).
 *
 * Must not: include anything but the public headers and cli/ headers (the
 * library's public surface is the contract), write an output file when
 * the proof failed, or print more than one line for a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/client.h"
#include "cuzk.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

/* Who is proving: every message of either path begins "cuzk <cmd>:".
 * Passed down to each function that prints, never kept in a global. */
typedef struct prove_ctx {
    const char *cmd;   /* "prove", or "fullprove" when cmd_fullprove runs it */
    const char *usage; /* the help a file given in another's place ends with */
} prove_ctx;

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

/* Help lines for the daemon options, appended to cuzk prove --help. */
static const char *daemon_help =
    "through a daemon (when --addr, CUZK_ADDR or the default socket names one):\n"
    "  --local           prove in-process even when a daemon is configured\n"
    "  --priority P      low|normal|high|critical (default normal)\n"
    "  --request-id ID   the job's request id (resubmitting attaches to it)\n"
    "  --deadline-ms MS  the daemon expires the job after MS (default none)\n"
    "  --timeout S       give up (and cancel the job) after S seconds\n"
    "  --upload          send the witness file's bytes even on a unix socket\n"
    "                    (always done over TCP; locally its path is sent)\n"
    "  -v                also print the job's per-stage times\n"
    "  --verify          check the returned proof with the key's vk here (done\n"
    "                    anyway when the key is a file on this machine); the\n"
    "                    public signals are always checked against a witness file\n"
    "  With --input in.json (then there is no witness argument) the inputs are\n"
    "  sent and the daemon computes the witness with --circuit c.wasm, or with\n"
    "  the circuit registered with the key when --circuit is absent.\n"
    "  The key is sent as its absolute path (the daemon keeps it resident) or,\n"
    "  when no such file exists, as the id of a key the daemon knows. If only\n"
    "  the default socket existed and nothing answers there, cuzk proves\n"
    "  in-process; an explicit address that does not answer is an error.\n";

/* 2 after saying which file of a proof's command line is in another's
 * place (cli_wrong_role); else 0.  |wtns| or |input| and |circuit| NULL
 * when absent.  Both paths check this before anything else. */
static int prove_roles(const prove_ctx *px, const char *zkey, const char *wtns,
                       const char *input, const char *circuit) {
    int full = !strcmp(px->cmd, "fullprove");
    const char *usage = px->usage;
    unsigned wtns_ok = CLI_KIND(CLI_FILE_WTNS) | CLI_KIND(CLI_FILE_ABC);
    return (input && cli_wrong_role(px->cmd, input,
                                    full ? "the input.json (argument 1)" : "--input's input.json",
                                    CLI_KIND(CLI_FILE_INPUT), usage)) ||
           (circuit && cli_wrong_role(px->cmd, circuit,
                                      full ? "the circuit.wasm (argument 2)"
                                           : "--circuit's circuit.wasm",
                                      CLI_KIND(CLI_FILE_WASM), usage)) ||
           cli_wrong_role(px->cmd, zkey,
                          full ? "the proving key (argument 3)" : "the proving key (argument 1)",
                          CLI_KIND(CLI_FILE_ZKEY), usage) ||
           (wtns && cli_wrong_role(px->cmd, wtns, "the witness (argument 2)", wtns_ok, usage))
               ? 2
               : 0;
}

/* ---- in-process: a one-device engine -------------------------------------- */

/* The in-process proof's command line. */
typedef struct prove_opts {
    const prove_ctx *px;
    int verbose; /* -v count */
    const char *zkey, *wtns, *input, *circuit, *cache, *proof_out, *public_out;
    int no_verify, no_check_abc, force_cpu, gpu_dev, gpu_required;
    unsigned threads;
} prove_opts;

static double ms(uint64_t ns) { return ns / 1e6; }
static double ms_between(uint64_t a, uint64_t b) { return a && b >= a ? (b - a) / 1e6 : 0.0; }

/* The engine's log lines (|ctx|: the prove_opts): shown from -v -v on, so
 * that a failure stays one line of stderr. */
static void log_line(void *ctx, cuzk_log_level level, const char *line) {
    const prove_opts *o = ctx;
    /* a first compile of the circuit (--input): said, with its time, at
     * any verbosity */
    if (level == CUZK_LOG_INFO &&
        (!strncmp(line, "compiling ", 10) || !strncmp(line, "compiled ", 9))) {
        cli_compile_line(o->px->cmd, line);
        return;
    }
    if (o->verbose >= 2)
        fprintf(stderr, "cuzk %s: engine: %s\n", o->px->cmd, line);
}

/* Write |text| to |path| with the library's atomic writer (a temporary
 * file and a rename), so that a failed write leaves an existing file as
 * it was. */
static int write_file(const char *cmd, const char *path, const char *text) {
    cuzk_error err = {0};
    if (cuzk_file_write_atomic(path, text, strlen(text), &err) != CUZK_OK)
        return cli_fail(cmd, path, &err);
    return 0;
}

/* Each input file must be readable: said here with the system's reason,
 * before an engine starts. */
static int check_readable(const char *cmd, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cuzk %s: cannot open %s: %s\n", cmd, path, strerror(errno));
        return 1;
    }
    fclose(f);
    return 0;
}

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
    cfg.log_ctx = (void *)o;
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
            return cli_fail(o->px->cmd, "GPU", &err);
        if (s != CUZK_EUNSUPPORTED) /* there is one, but it does not work */
            fprintf(stderr, "cuzk %s: GPU %d unusable (%s); proving on the CPU\n", o->px->cmd,
                    o->gpu_dev, err.msg);
    }
    cfg.devices[0] = (cuzk_device_config){.kind = CUZK_DEVICE_CPU, .threads = threads};
    cfg.cpu_fallback = 0;
    if (cuzk_engine_create(e, &cfg, &err) != CUZK_OK)
        return cli_fail(o->px->cmd, "engine", &err);
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
    return cli_fail(o->px->cmd, what, &e);
}

/* -v: the engine's figures for the proof. */
static void print_times(const char *cmd, cuzk_engine *e, cuzk_job *job, const char *dev_name,
                        double start_ms, double key_ms, double circuit_ms, double write_ms) {
    cuzk_partition_info p;
    cuzk_engine_status st;
    cuzk_job_status(job, NULL, &p, 1);
    cuzk_engine_status_get(e, &st);
    const char *dev = p.device >= 0 && (unsigned)p.device < st.n_devices
                          ? st.devices[p.device].name : "?";
    const cuzk_step_timing *t = &p.steps;
    fprintf(stderr, "cuzk %s: engine start %.1f ms (%s) | key load %.1f ms", cmd, start_ms,
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
            cmd, ms_between(p.queued_ns, p.synth_start_ns),
            ms_between(p.synth_start_ns, p.synth_end_ns), witness,
            ms_between(p.synth_end_ns, p.device_start_ns), dev,
            ms_between(p.device_start_ns, p.device_end_ns),
            ms_between(p.finalize_start_ns, p.finalize_end_ns), write_ms,
            ms_between(p.queued_ns, p.finalize_end_ns) + write_ms);
    fprintf(stderr,
            "cuzk %s (%s): upload %.1f ms | evaluate (%s) %.1f | h (6 NTT) %.1f | msm A %.1f "
            "B1 %.1f B2 %.1f C %.1f H %.1f | download %.1f | assemble %.1f ms\n",
            cmd, dev, ms(t->upload_ns),
            t->eval_site == CUZK_EVAL_DEVICE  ? dev
            : t->eval_site == CUZK_EVAL_INPUT ? "none: a, b, c input"
                                              : "synthesis",
            ms(t->evaluate_ns),
            ms(t->ntt_ns), ms(t->msm_a_ns), ms(t->msm_b1_ns), ms(t->msm_b2_ns), ms(t->msm_c_ns),
            ms(t->msm_h_ns), ms(t->download_ns), ms(t->assemble_ns));
}

static int prove(const prove_opts *o) {
    int roles = prove_roles(o->px, o->zkey, o->wtns, o->input, o->circuit);
    if (roles)
        return roles;
    const char *cmd = o->px->cmd;
    if (check_readable(cmd, o->zkey) || (o->wtns && check_readable(cmd, o->wtns)) ||
        (o->input && (check_readable(cmd, o->input) || check_readable(cmd, o->circuit))))
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
        cli_fail(cmd, o->zkey, &err);
        goto out;
    }
    uint64_t t2 = cli_now_ns(), t3 = t2;
    if (o->input) {
        if (cli_read_file(o->input, &input, &input_len, &err)) {
            cli_fail(cmd, o->input, &err);
            goto out;
        }
        if (!input_len) {
            fprintf(stderr, "cuzk %s: %s: empty file\n", cmd, o->input);
            goto out;
        }
        cuzk_status cs = cuzk_engine_circuit_register(e, o->zkey, o->circuit, &err);
        cli_compile_done();
        if (cs != CUZK_OK) {
            cli_fail(cmd, o->circuit, &err);
            goto out;
        }
        t3 = cli_now_ns();
    }
    cuzk_witness w = {.path = o->input ? NULL : o->wtns, .input_json = input,
                      .input_len = input_len};
    cuzk_submit_opts so = {.key = o->zkey, .priority = CUZK_PRIORITY_NORMAL,
                           .witnesses = &w, .n_witnesses = 1};
    if (cuzk_submit(e, &job, NULL, &so, &err) != CUZK_OK) {
        cli_fail(cmd, "submit", &err);
        goto out;
    }
    if (cli_stderr_tty() && !o->verbose)
        fprintf(stderr, "cuzk %s: proving (%s)...\r", cmd, dev_name);
    if (cuzk_job_await(job, -1, &err) != CUZK_OK) {
        job_fail(job, o);
        goto out;
    }
    const char *proof_json = cuzk_job_proof_json(job, 0),
               *public_json = cuzk_job_public_json(job, 0);
    if (!proof_json || !public_json) {
        fprintf(stderr, "cuzk %s: the engine returned no proof.json\n", cmd);
        goto out;
    }
    uint64_t t4 = cli_now_ns();
    if (write_file(cmd, o->proof_out, proof_json) || write_file(cmd, o->public_out, public_json))
        goto out;
    if (o->verbose)
        print_times(cmd, e, job, dev_name, ms(t1 - t0), ms(t2 - t1), o->input ? ms(t3 - t2) : -1,
                    ms(cli_now_ns() - t4));
    rc = 0;
out:
    cuzk_job_release(job);
    cuzk_engine_destroy(e, 0);
    free(input);
    return rc;
}

/* ---- through a running cuzkd ---------------------------------------------- */

#if CLI_HAVE_DAEMON

typedef struct prove_args {
    const prove_ctx *px;
    cli_daemon_opts d;
    const char *pos[4];
    int npos, local, verify, upload, verbose;
    const char *input, *circuit; /* --input, --circuit */
    const char *proof_out, *public_out;
    const char *priority, *request_id;
    uint64_t deadline_ms;
    double timeout_s;
} prove_args;

static int valid_priority(const char *p) {
    return !strcmp(p, "low") || !strcmp(p, "normal") || !strcmp(p, "high") ||
           !strcmp(p, "critical");
}

/*
 * Take the daemon options out of argv (so the in-process path sees only
 * its own) and note the rest.  Any option this path does not know belongs
 * to the in-process prover and makes the proof local.  Returns 0, or 2 on
 * a usage error (printed).
 */
static int prove_parse(prove_args *a, const prove_ctx *px, int *argc, char **argv) {
    int out = 1;
    memset(a, 0, sizeof *a);
    a->px = px;
    for (int i = 1; i < *argc; i++) {
        const char *s = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        int r = cli_daemon_opt(&a->d, *argc, argv, &i);
        if (r < 0 || (!v && (!strcmp(s, "--priority") || !strcmp(s, "--request-id") ||
                             !strcmp(s, "--deadline-ms") || !strcmp(s, "--timeout") ||
                             !strcmp(s, "--input") || !strcmp(s, "--circuit")))) {
            fprintf(stderr, "cuzk %s: %s needs a value\n", a->px->cmd, s);
            return 2;
        }
        if (r > 0)
            continue;
        if (!strcmp(s, "--local"))
            a->local = 1;
        else if (!strcmp(s, "--upload"))
            a->upload = 1;
        else if (!strcmp(s, "--priority"))
            a->priority = argv[++i];
        else if (!strcmp(s, "--request-id"))
            a->request_id = argv[++i];
        else if (!strcmp(s, "--deadline-ms"))
            a->deadline_ms = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(s, "--timeout"))
            a->timeout_s = atof(argv[++i]);
        else {
            /* The in-process prover's: keep it. */
            argv[out++] = argv[i];
            if (!strcmp(s, "--input") || !strcmp(s, "--circuit")) {
                /* Both paths take these: kept for the in-process prover. */
                *(s[2] == 'i' ? &a->input : &a->circuit) = argv[i + 1];
                argv[out++] = argv[++i];
            } else if (!strcmp(s, "--verify"))
                a->verify = 1;
            else if (!strcmp(s, "-v"))
                a->verbose = 1;
            else if (!strcmp(s, "--threads") && v)
                argv[out++] = argv[++i];
            else if (s[0] == '-' && s[1] && strcmp(s, "-v") != 0)
                a->local = 1;
            else if (s[0] != '-' || !s[1]) {
                if (a->npos < 4)
                    a->pos[a->npos] = s;
                a->npos++;
            }
        }
    }
    argv[out] = NULL;
    *argc = out;
    if (a->priority && !valid_priority(a->priority)) {
        fprintf(stderr, "cuzk %s: --priority wants low, normal, high or critical\n",
                a->px->cmd);
        return 2;
    }
    /* <zkey> <witness> <proof> <public>, or with --input <zkey> <proof> <public> */
    int first_out = a->input ? 1 : 2;
    if (a->npos == first_out + 2) {
        a->proof_out = a->pos[first_out];
        a->public_out = a->pos[first_out + 1];
    }
    return 0;
}

/* A whole file into memory (free() it). */
static char *read_text(const char *path, size_t *len, cuzk_error *err) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) {
        cuzk_fail(err, CUZK_EIO, "%s: cannot open", path);
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                cuzk_fail(err, CUZK_ENOMEM, "%s: out of memory", path);
                return NULL;
            }
            buf = nb, cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        cuzk_fail(err, CUZK_EIO, "%s: read error", path);
        return NULL;
    }
    *len = n;
    return buf;
}

/* The .wtns bytes for an upload (mapped; unmap with munmap). */
static void *map_file(const char *path, size_t *len, cuzk_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size > 0)
        p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        cuzk_fail(err, CUZK_EIO, "%s: cannot read", path);
        return NULL;
    }
    *len = (size_t)sb.st_size;
    return p;
}

static void print_stages(const char *cmd, cli_conn *c, const char *rid, double submit_s,
                         double wait_s, double write_s) {
    char esc[400], path[500];
    cuzk_error err = {0};
    fprintf(stderr,
            "cuzk %s: via cuzkd at %s, job %s: submit %.3f s | wait %.3f | write %.3f\n",
            cmd, cli_conn_addr(c)->text, rid, submit_s, wait_s, write_s);
    if (!cli_url_escape(rid, esc, sizeof esc))
        return;
    snprintf(path, sizeof path, "/v1/jobs/%s", esc);
    json_t *j = cli_request_json(c, "GET", path, NULL, 10000, NULL, &err);
    if (!j) {
        fprintf(stderr, "cuzk %s: job status: %s\n", cmd, err.msg);
        return;
    }
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(j, "partition"), i, p) {
        fprintf(stderr,
                "cuzk %s: partition %zu on device %d (attempts %d): queued %.3f s | synth "
                "%.3f | ready wait %.3f | device %.3f | finalize %.3f\n", cmd,
                i, (int)cli_json_num(p, "device", -1), (int)cli_json_num(p, "attempts", 0),
                cli_json_num(p, "queued_us", 0) / 1e6, cli_json_num(p, "synth_us", 0) / 1e6,
                cli_json_num(p, "ready_wait_us", 0) / 1e6, cli_json_num(p, "device_us", 0) / 1e6,
                cli_json_num(p, "finalize_us", 0) / 1e6);
    }
    json_decref(j);
}

/* The public signals the daemon returned are the witness's own (values 1 ..
 * n_pub of the .wtns): a proof of another witness (a request id reused
 * with other content, a daemon that is not what it seems) is refused. */
static cuzk_status check_public(const char *wtns, const cuzk_proof_bytes *proof,
                                const uint8_t *pub, size_t n_pub, cuzk_error *err) {
    uint8_t *mine = malloc(n_pub * CUZK_SCALAR_BYTES + 1);
    cuzk_curve curve = CUZK_CURVE_NONE;
    cuzk_status st;
    if (!mine)
        st = cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    else if ((st = cuzk_wtns_public_bytes(wtns, &curve, mine, n_pub, err)) == CUZK_EMISMATCH ||
             (st == CUZK_OK && curve != proof->curve))
        st = cuzk_fail(err, CUZK_EMISMATCH,
                       "the daemon's proof is for another circuit than witness %s", wtns);
    else if (st == CUZK_OK && memcmp(mine, pub, n_pub * CUZK_SCALAR_BYTES))
        st = cuzk_fail(err, CUZK_EMISMATCH,
                       "the daemon's public signals are not those of witness %s (the request "
                       "id may belong to another job)",
                       wtns);
    free(mine);
    return st;
}

/* Check, verify (when asked, or whenever the key is a file here) and write
 * the proof files as the in-process path does.  |wtns|: the witness file,
 * or NULL (inputs). */
static int write_result(cli_conn *c, const prove_args *a, const char *key, const char *wtns,
                        json_t *result) {
    cuzk_error err = {0};
    cuzk_proof_bytes proof;
    uint8_t *pub = NULL;
    size_t n_pub = 0;
    int rc = 1;
    struct stat ks;
    if (cli_result_proof(result, 0, &proof, &pub, &n_pub, &err) != CUZK_OK) {
        cli_fail(a->px->cmd, "daemon's proof", &err);
        goto out;
    }
    if (wtns && check_public(wtns, &proof, pub, n_pub, &err) != CUZK_OK) {
        cli_fail(a->px->cmd, "check of the daemon's proof", &err);
        goto out;
    }
    if (a->verify || (stat(key, &ks) == 0 && S_ISREG(ks.st_mode))) {
        cuzk_vk *vk = NULL;
        cuzk_status st = cli_key_vk(c, key, &vk, &err);
        if (st == CUZK_OK)
            st = cuzk_verify(vk, &proof, pub, n_pub, &err);
        cuzk_vk_release(vk);
        if (st != CUZK_OK) {
            cli_fail(a->px->cmd, "check of the daemon's proof", &err);
            goto out;
        }
    }
    if (cuzk_proof_bytes_write_json_file(&proof, a->proof_out, &err) != CUZK_OK) {
        cli_fail(a->px->cmd, a->proof_out, &err);
        goto out;
    }
    if (cuzk_public_bytes_write_json_file(proof.curve, pub, n_pub, a->public_out, &err) !=
        CUZK_OK) {
        cli_fail(a->px->cmd, a->public_out, &err);
        goto out;
    }
    rc = 0;
out:
    free(pub);
    return rc;
}

/* While a submit with inputs waits, the daemon may be loading the job's
 * circuit, which compiles it on its first use (seconds to minutes, before
 * the job exists).  A watcher on a connection of its own reads
 * /v1/status's circuits.loading and says so, with the time spent: a line
 * redrawn on a terminal, else a line when first seen and every ten
 * seconds. */
typedef struct load_watch {
    const char *cmd; /* the name its lines begin with */
    const cli_daemon_opts *d;
    const char *wasm; /* the job's circuit (absolute), or NULL: the key's */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int stop;
} load_watch;

static void *load_watcher(void *arg) {
    load_watch *w = arg;
    cuzk_error err = {0};
    cli_conn *c = cli_connect(w->d, "watch", &err);
    int tty = cli_stderr_tty(), shown = 0;
    double last_line = -1;
    pthread_mutex_lock(&w->lock);
    while (!w->stop && c) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 500000000L;
        if (ts.tv_nsec >= 1000000000L)
            ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&w->cv, &w->lock, &ts);
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->lock);
        json_t *st = cli_request_json(c, "GET", "/v1/status", NULL, 5000, NULL, &err);
        size_t i;
        json_t *l;
        const char *what = NULL;
        double s = 0;
        json_array_foreach(json_object_get(json_object_get(st, "circuits"), "loading"), i, l) {
            const char *p = cli_json_str(l, "wasm", "");
            if (!w->wasm || !strcmp(p, w->wasm)) {
                what = p;
                s = cli_json_num(l, "seconds", 0);
                break;
            }
        }
        pthread_mutex_lock(&w->lock);
        if (what && !w->stop) {
            if (tty)
                fprintf(stderr, "\rcuzk %s: cuzkd is loading circuit %s (compiled on first use): "
                                "%.0f s so far", w->cmd, what, s);
            else if (last_line < 0 || s >= last_line + 10)
                fprintf(stderr, "cuzk %s: cuzkd is loading circuit %s (compiled on first use): "
                                "%.0f s so far\n", w->cmd, what, s), last_line = s;
            shown = 1;
        }
        json_decref(st);
    }
    if (tty && shown)
        fputs("\r\033[K", stderr);
    pthread_mutex_unlock(&w->lock);
    if (c)
        cli_conn_free(c);
    return NULL;
}

/* Submit, await, write.  Returns an exit status, or -1 to prove in-process
 * (only when the default socket was stale). */
static int prove_remote(cli_conn *c, const prove_args *a) {
    char key[PATH_MAX], wtns[PATH_MAX], wasm[PATH_MAX];
    cuzk_error err = {0};
    const cli_addr *addr = cli_conn_addr(c);
    int roles = prove_roles(a->px, a->pos[0], a->input ? NULL : a->pos[1], a->input, a->circuit);
    if (roles)
        return roles;
    /* A key that is no file may be the id of a key the daemon holds. */
    if (!realpath(a->pos[0], key)) {
        if (strchr(a->pos[0], '/') || strlen(a->pos[0]) >= sizeof key) {
            fprintf(stderr, "cuzk %s: %s: no such file\n", a->px->cmd, a->pos[0]);
            return 1;
        }
        snprintf(key, sizeof key, "%s", a->pos[0]);
    }
    if (a->circuit && !realpath(a->circuit, wasm)) {
        fprintf(stderr, "cuzk %s: %s: no such file\n", a->px->cmd, a->circuit);
        return 1;
    }
    if (!a->input && !realpath(a->pos[1], wtns)) {
        fprintf(stderr, "cuzk %s: %s: no such file\n", a->px->cmd, a->pos[1]);
        return 1;
    }
    cli_job_req req = {.key = key, .priority = a->priority, .request_id = a->request_id,
                       .deadline_ms = a->deadline_ms, .circuit = a->circuit ? wasm : NULL};
    void *map = NULL;
    char *input = NULL;
    if (a->input) {
        if (!(input = read_text(a->input, &req.input_len, &err)))
            return cli_fail(a->px->cmd, "input", &err);
        req.input_json = input;
    } else if (a->upload || addr->kind == CLI_ADDR_TCP) {
        if (!(map = map_file(wtns, &req.witness_len, &err)))
            return cli_fail(a->px->cmd, "witness", &err);
        req.witness_data = map;
    } else
        req.witness_path = wtns;
    cli_job_ref ref;
    int unreachable = 0, rc = 1;
    json_t *result = NULL;
    uint64_t t0 = cli_now_ns();
    load_watch lw = {.cmd = a->px->cmd, .d = &a->d, .wasm = a->circuit ? wasm : NULL,
                     .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    pthread_t lwt;
    int watching = a->input && pthread_create(&lwt, NULL, load_watcher, &lw) == 0;
    cuzk_status st = cli_job_submit(c, &req, &ref, &unreachable, &err);
    if (watching) {
        pthread_mutex_lock(&lw.lock);
        lw.stop = 1;
        pthread_cond_broadcast(&lw.cv);
        pthread_mutex_unlock(&lw.lock);
        pthread_join(lwt, NULL);
    }
    if (map)
        munmap(map, req.witness_len);
    free(input);
    if (st != CUZK_OK && unreachable && addr->source == CLI_ADDR_FROM_DEFAULT) {
        fprintf(stderr, "cuzk %s: nothing answers at the default socket %s (stale); "
                        "proving in-process\n", a->px->cmd, addr->path);
        return -1;
    }
    if (st != CUZK_OK)
        return cli_fail(a->px->cmd, unreachable ? "daemon" : "daemon refused the job", &err);
    uint64_t t1 = cli_now_ns();
    st = cli_job_await(c, ref.request_id, (long)(a->timeout_s * 1000), &result, &err);
    if (st == CUZK_ETIMEOUT && !result && strstr(err.msg, "still running")) {
        cuzk_error cerr = {0};
        cli_job_cancel(c, ref.request_id, &cerr);
        fprintf(stderr, "cuzk %s: timed out after %g s waiting for job %s (cancelled)\n",
                a->px->cmd, a->timeout_s, ref.request_id);
        return 1;
    }
    if (st != CUZK_OK)
        return cli_fail(a->px->cmd, "daemon", &err);
    uint64_t t2 = cli_now_ns();
    rc = write_result(c, a, key, a->input ? NULL : wtns, result);
    json_decref(result);
    if (rc == 0 && a->verbose)
        print_stages(a->px->cmd, c, ref.request_id, (t1 - t0) / 1e9, (t2 - t1) / 1e9,
                     (cli_now_ns() - t2) / 1e9);
    else if (rc == 0) /* where the proof came from, in one line */
        fprintf(stderr, "cuzk %s: proved by cuzkd at %s (job %s)\n", a->px->cmd,
                addr->text, ref.request_id);
    return rc;
}

static int prove_daemon(const prove_ctx *px, int *argc, char **argv) {
    prove_args a;
    if (cli_wants_help(*argc, argv))
        return -1;
    int rc = prove_parse(&a, px, argc, argv);
    if (rc)
        return rc;
    if (a.local || !a.proof_out)
        return -1; /* in-process, or its usage message */
    cuzk_error err = {0};
    cli_conn *c = cli_connect(&a.d, NULL, &err);
    if (!c && err.status == CUZK_ENOTFOUND)
        return -1; /* no daemon configured */
    if (!c) {
        fprintf(stderr, "cuzk %s: %s\n", px->cmd, err.msg);
        return err.status == CUZK_EINVAL ? 2 : 1;
    }
    rc = prove_remote(c, &a);
    cli_conn_free(c);
    return rc;
}

#else /* !CLI_HAVE_DAEMON */

static int prove_daemon(const prove_ctx *px, int *argc, char **argv) {
    /* Drop the daemon-only flag so the in-process path accepts the line. */
    (void)px;
    int o = 1;
    for (int i = 1; i < *argc; i++)
        if (strcmp(argv[i], "--local") != 0)
            argv[o++] = argv[i];
    *argc = o;
    return -1;
}

#endif

/* ---- the command ---------------------------------------------------------- */

int cli_prove_run(const char *cmd, const char *usage, int argc, char **argv) {
    const prove_ctx px = {.cmd = cmd, .usage = usage};
    const char *pos[5];
    prove_opts o = {.px = &px};
    int npos = 0;
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        fputs(daemon_help, stdout);
        fputs(cli_daemon_opts_help, stdout);
        return 0;
    }
    /* Through a running cuzkd when one is configured. */
    int daemon_rc = prove_daemon(&px, &argc, argv);
    if (daemon_rc >= 0)
        return daemon_rc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            o.verbose++;
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
            fprintf(stderr, "cuzk %s: unknown option %s\n%s", cmd, argv[i], help);
            return 2;
        } else if (npos < 4)
            pos[npos++] = argv[i];
        else
            npos = 5;
    }
    if (!o.input != !o.circuit) {
        fprintf(stderr, "cuzk %s: --input and --circuit go together\n", cmd);
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

int cmd_prove(int argc, char **argv) { return cli_prove_run("prove", help, argc, argv); }
