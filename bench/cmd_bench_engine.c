/*
 * cuzk bench engine: throughput and latency of the whole engine pipeline.
 *   cuzk bench engine [--curve C] [--log2 K] [-n JOBS] [-k PARTITIONS]
 *                     [--device cpu|sim] ...
 * generates a synthetic circuit and an INSECURE development key, starts an
 * engine, submits N jobs of K partitions at once, waits for all of them,
 * and prints throughput, job latency percentiles, and each device's wall
 * time split into busy / starved (synthesis behind, or no work) /
 * idle-with-work over the run.  With --circuit/--zkey/--input the jobs
 * carry a circom input.json instead, and the engine's synthesis workers
 * compute every witness: the mode that shows whether witness generation
 * keeps up with the devices.  Prints figures only; never a test.  (Wired
 * in as `cuzk bench engine`; argv[0] is the subcommand name.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/load.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk.h"
#include "cuzk_testing.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk bench engine [--curve bn254|bls12_381] [--log2 K] [-n JOBS] [-k PARTITIONS]\n"
    "                         [--device cpu|gpu|sim] [--devices D] [--sim-ms MS] [--threads T]\n"
    "                         [--synth-workers W] [--synth-threads T] [--finalizers F]\n"
    "                         [--slow-finalize MS] [--verify] [--budget-mib M]\n"
    "                         [--trace FILE] [--metrics] [--dir DIR] [-v]\n"
    "                         [--profile default|porep|snap] [--timing-key] [--batch N]\n"
    "                         [--gpu-mem-limit-gib G] [--in-memory] [--tier auto|pinned]\n"
    "       cuzk bench engine --circuit X.wasm --zkey X.zkey --input X.input.json\n"
    "                         [-n JOBS] [-k PARTITIONS] [--device ...] [--synth-workers W] ...\n"
    "Generate a synthetic circuit of 2^K constraints (default 10) with an INSECURE\n"
    "development key, submit N jobs (default 16) of K partitions (default 4) at once,\n"
    "and report throughput, job latency (p50/p99, submit to done) and, per device, the\n"
    "wall time split into busy / starved / idle-with-work.  --device sim uses the\n"
    "simulated device (a test double: MS of compute per partition, no proofs) to\n"
    "measure the engine itself; --slow-finalize stalls every finalizer by MS to show\n"
    "that slow finalization does not idle the devices.  --device gpu proves on CUDA\n"
    "devices 0..D-1 (two workers each).  --trace writes a Chrome trace.\n"
    "With --circuit, --zkey and --input, every partition carries that circom\n"
    "input.json and the engine's synthesis workers compute its witness with the\n"
    "circuit's witness calculator (compiled once and cached); the report then says\n"
    "when the devices starved because synthesis was behind.  --synth-workers sets\n"
    "how many witnesses are computed at once (default: from the core count).\n"
    "--profile picks the generator's profile (cuzk gen --profile); --timing-key\n"
    "makes a key of the right shape from repeated random points in seconds at any\n"
    "size (its proofs do not verify: not with --verify); --batch N lets a device\n"
    "take N ready partitions of one key per step (a GPU proves them in one pass over\n"
    "the bases); --gpu-mem-limit-gib caps each GPU's device memory (keys that do\n"
    "not fit then stream from pinned host memory); --tier pinned keeps every key's\n"
    "bases in pinned host memory even where they would fit.  --dir keeps the key and witness\n"
    "in DIR (made with its parents when missing); --in-memory writes no files: the\n"
    "engine makes the key in memory (cuzk_engine_key_generate) and every partition\n"
    "reads the one witness image in place.  The report ends with the peak\n"
    "resident memory of the process and each GPU's peak device memory.\n";

typedef struct bench_opts {
    cuzk_curve curve;
    unsigned log2, jobs, parts, devices, threads, synth_workers, synth_threads, finalizers;
    unsigned synth_workers_used; /* what the engine chose when 0 */
    int sim, verify, metrics, verbose;
    unsigned sim_ms, slow_finalize_ms;
    uint64_t budget_mib;
    unsigned batch;          /* the engine's batch_max */
    double gpu_limit_gib;    /* device-memory cap per GPU */
    int timing_key;          /* a timing key: fast to make, proofs do not verify */
    int in_memory;           /* the key made by the engine, the witness in memory */
    int tier_pinned;         /* --tier pinned: keys' bases stay in pinned host memory */
    const char *profile;     /* generator profile (cuzk gen --profile) */
    const char *title;       /* the first word of messages */
    const char *trace, *dir;
    const char *circuit, *zkey, *input; /* the inputs mode */
} bench_opts;

static void slow_finalize(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    const bench_opts *o = ctx;
    if (at->site == CUZK_FAULT_FINALIZE)
        out->action = CUZK_FAULT_STALL, out->stall_ms = o->slow_finalize_ms;
}

static int parse(bench_opts *o, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    o->curve = CUZK_CURVE_BN254;
    o->log2 = 10, o->jobs = 16, o->parts = 4, o->devices = 1, o->sim_ms = 50;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int flag = !strcmp(a, "--verify") || !strcmp(a, "--metrics") || !strcmp(a, "-v") ||
                   !strcmp(a, "--timing-key") || !strcmp(a, "--in-memory");
        if (!flag && !v) {
            fprintf(stderr, "cuzk bench engine: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--verify"))
            o->verify = 1;
        else if (!strcmp(a, "--timing-key"))
            o->timing_key = 1;
        else if (!strcmp(a, "--in-memory"))
            o->in_memory = 1;
        else if (!strcmp(a, "--tier")) {
            if (strcmp(v, "auto") && strcmp(v, "pinned")) {
                fprintf(stderr, "cuzk bench engine: --tier is auto or pinned, not %s\n", v);
                return 2;
            }
            o->tier_pinned = !strcmp(v, "pinned");
        }
        else if (!strcmp(a, "--metrics"))
            o->metrics = 1;
        else if (!strcmp(a, "-v"))
            o->verbose = 1;
        else if (!strcmp(a, "--curve"))
            o->curve = cuzk_curve_from_name(v);
        else if (!strcmp(a, "--log2"))
            o->log2 = (unsigned)atoi(v);
        else if (!strcmp(a, "-n"))
            o->jobs = (unsigned)atoi(v);
        else if (!strcmp(a, "-k"))
            o->parts = (unsigned)atoi(v);
        else if (!strcmp(a, "--device"))
            o->sim = !strcmp(v, "sim") ? 1 : !strcmp(v, "cpu") ? 0 : !strcmp(v, "gpu") ? 2 : -1;
        else if (!strcmp(a, "--devices"))
            o->devices = (unsigned)atoi(v);
        else if (!strcmp(a, "--sim-ms"))
            o->sim_ms = (unsigned)atoi(v);
        else if (!strcmp(a, "--threads"))
            o->threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--synth-workers"))
            o->synth_workers = (unsigned)atoi(v);
        else if (!strcmp(a, "--synth-threads"))
            o->synth_threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--finalizers"))
            o->finalizers = (unsigned)atoi(v);
        else if (!strcmp(a, "--slow-finalize"))
            o->slow_finalize_ms = (unsigned)atoi(v);
        else if (!strcmp(a, "--budget-mib"))
            o->budget_mib = (uint64_t)atoll(v);
        else if (!strcmp(a, "--trace"))
            o->trace = v;
        else if (!strcmp(a, "--dir"))
            o->dir = v;
        else if (!strcmp(a, "--batch"))
            o->batch = (unsigned)atoi(v);
        else if (!strcmp(a, "--gpu-mem-limit-gib"))
            o->gpu_limit_gib = atof(v);
        else if (!strcmp(a, "--profile"))
            o->profile = v;
        else if (!strcmp(a, "--circuit"))
            o->circuit = v;
        else if (!strcmp(a, "--zkey"))
            o->zkey = v;
        else if (!strcmp(a, "--input"))
            o->input = v;
        else {
            fprintf(stderr, "cuzk bench engine: unknown option %s\n", a);
            return 2;
        }
        i += !flag;
    }
    if (o->curve == CUZK_CURVE_NONE || o->sim < 0 || !o->jobs || !o->parts || !o->log2 ||
        o->log2 > 27 || !o->devices || o->batch > 16 || (o->timing_key && o->verify) ||
        o->devices > CUZK_MAX_DEVICES - 1 || o->parts > 64) {
        fputs(help, stderr);
        return 2;
    }
    int inputs = !!o->circuit + !!o->zkey + !!o->input;
    if (inputs && inputs != 3) {
        fprintf(stderr, "cuzk bench engine: --circuit, --zkey and --input go together\n");
        return 2;
    }
    return 0;
}

/* Writes the circuit's .wtns and dev (or timing) .zkey into |dir|. */
static int make_circuit(const bench_opts *o, const char *dir, char *zkey, char *wtns, size_t n) {
    cuzk_error err = {0};
    bench_circuit c = {o->curve, o->log2, o->profile, -1, o->timing_key};
    fprintf(stderr, "bench engine: %s 2^%u%s%s: generating circuit and %s...\n",
            cuzk_curve_snarkjs_name(o->curve), o->log2, o->profile ? ", profile " : "",
            o->profile ? o->profile : "",
            o->timing_key ? "a timing key (proofs will not verify)" : "an INSECURE dev key");
    int rc = 0;
    uint64_t t0 = cli_now_ns();
    if (bench_circuit_write(&c, dir, "engine", zkey, wtns, n, 0, &err) != CUZK_OK)
        rc = cli_fail("bench engine", "generate", &err);
    else /* minutes at 2^26: say where the time went before the run starts */
        fprintf(stderr, "bench engine: circuit and key written in %.1f s\n",
                (cli_now_ns() - t0) / 1e9);
    return rc;
}

static void config(cuzk_engine_config *cfg, bench_opts *o) {
    /* the simulated devices and the slow finalizer are test hooks; the
     * engine copies them at create */
    static cuzk_testing hooks;
    memset(&hooks, 0, sizeof hooks);
    cuzk_engine_config_default(cfg);
    cfg->testing = &hooks;
    cfg->synth_workers = o->synth_workers;
    cfg->synth_threads = o->synth_threads;
    cfg->finalize_threads = o->finalizers;
    cfg->self_verify = o->verify;
    cfg->log_level = o->verbose ? CUZK_LOG_INFO : CUZK_LOG_WARN;
    cfg->budget_bytes = o->budget_mib << 20;
    cfg->batch_max = o->batch;
    cfg->n_devices = o->devices;
    for (unsigned d = 0; d < o->devices; d++) {
        cfg->devices[d].kind = o->sim == 1   ? CUZK_DEVICE_SIMULATED
                               : o->sim == 2 ? CUZK_DEVICE_GPU
                                             : CUZK_DEVICE_CPU;
        cfg->devices[d].gpu_index = (int)d;
        if (o->sim == 2)
            cfg->devices[d].workers = 2; /* one uploads while the other computes */
        cfg->devices[d].threads = o->threads;
        hooks.sim[d].compute_us = o->sim_ms * 1000;
        if (o->sim == 2 && o->tier_pinned)
            cfg->devices[d].gpu_key_tier = CUZK_TIER_PINNED;
        if (o->sim == 2 && o->gpu_limit_gib > 0)
            cfg->devices[d].gpu_mem_limit = (uint64_t)(o->gpu_limit_gib * 1073741824.0);
    }
    if (o->sim == 1)
        cfg->cpu_fallback = 0; /* nothing fails here; keep the split readable */
    if (o->slow_finalize_ms) {
        hooks.fault_fn = slow_finalize;
        hooks.fault_ctx = o;
    }
}

/* Mean per-partition times of the run (ms): synthesis (which includes the
 * witness calculation in the inputs mode) and the device step. */
typedef struct part_means {
    double synth_ms, device_ms;
    unsigned n;
} part_means;

static void report(const bench_opts *o, const cuzk_engine_status *a, const cuzk_engine_status *b,
                   double *lat_ms, size_t n_lat, uint64_t wall_ns, unsigned failed,
                   const part_means *pm) {
    double wall = wall_ns / 1e9;
    unsigned proofs = (unsigned)(b->proofs - a->proofs);
    printf("  wall %.3f s, %u partitions proved, %.2f partitions/s, %.2f jobs/s%s\n", wall, proofs,
           proofs / wall, (o->jobs - failed) / wall, o->sim == 1 ? " (simulated device: no proofs)" : "");
    if (failed)
        printf("  %u jobs FAILED\n", failed);
    bench_stats ls;
    bench_stats_of(&ls, lat_ms, n_lat);
    if (n_lat)
        printf("  job latency (submit to done): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", ls.p50,
               ls.p99, ls.max);
    if (pm->n)
        printf("  per partition: synthesis %.1f ms%s, device %.1f ms (means of %u)\n",
               pm->synth_ms / pm->n, o->input ? " (witness from inputs)" : "",
               pm->device_ms / pm->n, pm->n);
    for (unsigned d = 0; d < b->n_devices; d++) {
        const cuzk_device_status *x = &a->devices[d], *y = &b->devices[d];
        double busy = y->busy_s - x->busy_s, ss = y->starved_s - x->starved_s,
               idle = y->idle_s - x->idle_s, iw = y->idle_with_work_s - x->idle_with_work_s,
               tot = busy + ss + idle + iw;
        if (tot <= 0)
            tot = 1;
        bench_split sp = {y->name, busy, ss, idle, iw, (double)(y->proofs - x->proofs)};
        bench_split_print("  ", &sp);
        /* A device that proved and then waited on synthesis for a tenth of
         * the run or more is held back by synthesis, not by itself. */
        if (y->proofs > x->proofs && ss >= 0.1 * tot)
            printf("  %s: starved %.0f%% of the time with synthesis behind: add synthesis workers "
                   "(--synth-workers, now %u) or cores\n",
                   y->name, 100 * ss / tot, o->synth_workers_used);
    }
    double busy_all = 0;
    for (unsigned d = 0; d < b->n_devices; d++)
        busy_all += b->devices[d].busy_s - a->devices[d].busy_s;
    if (proofs)
        printf("  device time per partition %.1f ms (busy over partitions); per job of %u "
               "partitions %.3f s (wall over jobs)\n",
               1e3 * busy_all / proofs, o->parts, wall / (o->jobs ? o->jobs : 1));
    printf("  memory: peak %.1f MiB of a %.1f MiB budget (keys %.1f MiB, buffers %.1f MiB)\n",
           b->mem_peak / 1048576.0, b->mem_budget / 1048576.0, b->mem_keys / 1048576.0,
           b->mem_buffers / 1048576.0);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        printf("  host: peak resident %.1f MiB (whole process, key generation included)\n",
               ru.ru_maxrss / 1024.0);
    for (unsigned d = 0; d < b->n_devices; d++)
        if (b->devices[d].device_mem_peak_bytes)
            printf("  %s: device memory peak %.1f MiB\n", b->devices[d].name,
                   b->devices[d].device_mem_peak_bytes / 1048576.0);
}

static void write_exports(cuzk_engine *e, const bench_opts *o) {
    cuzk_error err = {0};
    char *text;
    size_t len;
    if (o->trace) {
        if (cuzk_engine_trace(e, &text, &len, 0, 0, &err) == CUZK_OK) {
            cuzk_status st = cuzk_file_write_atomic(o->trace, text, len, &err);
            free(text);
            if (st == CUZK_OK)
                printf("  trace: %s (open in https://ui.perfetto.dev)\n", o->trace);
        }
        if (err.status != CUZK_OK)
            fprintf(stderr, "cuzk bench engine: trace: %s\n", err.msg);
    }
    if (o->metrics && cuzk_engine_metrics(e, &text, &len, &err) == CUZK_OK) {
        fputs(text, stdout);
        free(text);
    }
}

/* Engine log lines at INFO (-v), and always the synthesis worker count. */
static void log_line(void *ctx, cuzk_log_level level, const char *line) {
    bench_opts *o = ctx;
    unsigned n;
    if (sscanf(line, "engine started: %*u device(s), %u synthesis worker", &n) == 1)
        o->synth_workers_used = n;
    if (o->verbose || level <= CUZK_LOG_WARN)
        fprintf(stderr, "cuzk %s\n", line);
}

/* Preload the key and, in the inputs mode, register the circuit with it
 * (compiling it if the cache does not hold it); prints what it loaded. */
static int load(cuzk_engine *e, const bench_opts *o, const char *zkey, uint8_t **wimg,
                size_t *wsize) {
    cuzk_error err = {0};
    uint64_t t0 = cli_now_ns();
    if (o->in_memory) {
        bench_circuit c = {o->curve, o->log2, o->profile, -1, o->timing_key};
        cuzk_synth_params sp;
        fprintf(stderr, "bench engine: %s 2^%u%s%s: generating circuit and %s in memory...\n",
                cuzk_curve_snarkjs_name(o->curve), o->log2, o->profile ? ", profile " : "",
                o->profile ? o->profile : "",
                o->timing_key ? "a timing key (proofs will not verify)" : "an INSECURE dev key");
        if (bench_circuit_params(&c, &sp, &err) != CUZK_OK ||
            cuzk_engine_key_generate(e, "bench", &sp, o->timing_key, wimg, wsize, &err) !=
                CUZK_OK)
            return cli_fail("bench engine", "generate", &err);
    } else if (cuzk_engine_key_preload(e, "bench", zkey, &err) != CUZK_OK) {
        return cli_fail("bench engine", zkey, &err);
    }
    double key_ms = (cli_now_ns() - t0) / 1e6, circuit_ms = 0;
    cuzk_key_info ki;
    memset(&ki, 0, sizeof ki);
    cuzk_engine_keys(e, &ki, 1);
    if (o->circuit) {
        t0 = cli_now_ns();
        if (cuzk_engine_circuit_register(e, "bench", o->circuit, &err) != CUZK_OK)
            return cli_fail("bench engine", o->circuit, &err);
        circuit_ms = (cli_now_ns() - t0) / 1e6;
    }
    printf("cuzk bench engine: %s 2^%u (%llu witness values)%s, %u jobs x %u partitions, %u %s "
           "device(s), key loaded in %.1f ms",
           cuzk_curve_snarkjs_name(ki.curve), ki.log_n, (unsigned long long)ki.n_vars,
           o->circuit ? ", witnesses from inputs" : "", o->jobs, o->parts, o->devices,
           o->sim == 1 ? "simulated" : o->sim == 2 ? "gpu" : "cpu", key_ms);
    if (o->circuit)
        printf(", circuit loaded in %.1f ms", circuit_ms);
    printf(", %u synthesis worker(s)\n", o->synth_workers_used);
    fflush(stdout); /* a run cut short by a time limit still shows it */
    return 0;
}

/* The one witness image of --in-memory is read in place by every partition
 * and freed after the engine. */
static void keep_image(void *ctx, const void *data) {
    (void)ctx;
    (void)data;
}

static int run(bench_opts *o, const char *zkey, const char *wtns, const char *input,
               size_t input_len) {
    cuzk_engine_config cfg;
    cuzk_engine *e;
    cuzk_error err = {0};
    config(&cfg, o);
    cfg.log_fn = log_line;
    cfg.log_ctx = o;
    cfg.log_level = CUZK_LOG_INFO; /* log_line filters; the start line says the worker count */
    if (cuzk_engine_create(&e, &cfg, &err) != CUZK_OK)
        return cli_fail("bench engine", "engine", &err);
    uint8_t *wimg = NULL; /* --in-memory: the witness every partition reads */
    size_t wsize = 0;
    if (load(e, o, zkey, &wimg, &wsize)) {
        cuzk_engine_destroy(e, 0);
        return 1;
    }
    cuzk_job **jobs = calloc(o->jobs, sizeof *jobs);
    double *lat = calloc(o->jobs ? o->jobs : 1, sizeof *lat); /* ms */
    cuzk_witness w[64];
    memset(w, 0, sizeof w);
    for (unsigned k = 0; k < o->parts; k++) {
        if (input)
            w[k].input_json = input, w[k].input_len = input_len;
        else if (wimg)
            w[k].data = wimg, w[k].size = wsize, w[k].release = keep_image;
        else
            w[k].path = wtns;
    }
    cuzk_submit_opts so = {.key = "bench", .witnesses = w, .n_witnesses = o->parts};
    cuzk_engine_status a, b;
    cuzk_engine_status_get(e, &a);
    uint64_t start = cli_now_ns();
    unsigned failed = 0;
    size_t n_lat = 0;
    part_means pm = {0};
    for (unsigned i = 0; jobs && i < o->jobs; i++)
        if (cuzk_submit(e, &jobs[i], NULL, &so, &err) != CUZK_OK)
            fprintf(stderr, "cuzk bench engine: submit: %s\n", err.msg);
    for (unsigned i = 0; jobs && lat && i < o->jobs; i++) {
        cuzk_job_info info;
        if (!jobs[i] || cuzk_job_await(jobs[i], -1, &err) != CUZK_OK) {
            failed++;
            if (jobs[i])
                fprintf(stderr, "cuzk bench engine: job %u: %s\n", i, err.msg);
        } else {
            cuzk_partition_info pi[64];
            cuzk_job_status(jobs[i], &info, pi, o->parts);
            lat[n_lat++] = (info.end_ns - info.submit_ns) / 1e6;
            for (unsigned k = 0; k < o->parts; k++, pm.n++) {
                pm.synth_ms += (pi[k].synth_end_ns - pi[k].synth_start_ns) / 1e6;
                pm.device_ms += (pi[k].device_end_ns - pi[k].device_start_ns) / 1e6;
            }
        }
    }
    uint64_t wall = cli_now_ns() - start;
    cuzk_engine_status_get(e, &b);
    if (jobs && lat)
        report(o, &a, &b, lat, n_lat, wall, failed, &pm);
    write_exports(e, o);
    for (unsigned i = 0; jobs && i < o->jobs; i++)
        cuzk_job_release(jobs[i]);
    free(jobs);
    free(lat);
    cuzk_engine_destroy(e, -1);
    free(wimg);
    return failed ? 1 : 0;
}

int cmd_bench_engine(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    bench_opts o;
    int rc = parse(&o, argc, argv);
    if (rc)
        return rc;
    if (o.input) { /* the inputs mode: the caller's circuit, key and input */
        char *text;
        size_t len;
        cuzk_error err = {0};
        if (cli_read_file(o.input, &text, &len, &err))
            return cli_fail("bench engine", o.input, &err);
        rc = run(&o, o.zkey, NULL, text, len);
        free(text);
        return rc;
    }
    if (o.in_memory)
        return run(&o, NULL, NULL, NULL, 0);
    char tmpl[] = "/tmp/cuzk-bench-engine-XXXXXX", zkey[1024], wtns[1024];
    const char *dir = o.dir;
    cuzk_error derr = {0};
    if (dir && bench_make_dirs(dir, &derr) != CUZK_OK) {
        fprintf(stderr, "cuzk bench: %s\n", derr.msg);
        return 1;
    }
    if (!dir && !(dir = mkdtemp(tmpl))) {
        perror("cuzk bench engine: mkdtemp");
        return 1;
    }
    rc = make_circuit(&o, dir, zkey, wtns, sizeof zkey);
    if (!rc)
        rc = run(&o, zkey, wtns, NULL, 0);
    if (!o.dir) {
        unlink(zkey);
        unlink(wtns);
        rmdir(dir);
    }
    return rc;
}

/* ---- cuzk bench filecoin --------------------------------------------------------------- */

static const char *fil_help =
    "usage: cuzk bench filecoin [--proof porep|snap] [--log2 K] [--proofs P] [--batch B]\n"
    "                           [--gpu-mem-limit-gib G] [--tier auto|pinned] [--devices D]\n"
    "                           [--dir DIR]\n"
    "                           [--trace FILE] [-v]\n"
    "A Filecoin-shaped run of the engine on the GPU: P whole proofs (default 2) of\n"
    "10 partitions (porep) or 16 (snap), BLS12-381, the generator's porep or snap\n"
    "profile (cuzk gen --profile), a timing key (the prover's work, proofs that do\n"
    "not verify), the key resident on the GPU or, with --gpu-mem-limit-gib (16 for\n"
    "a 16 GB card), wherever the cap lets it live, B ready partitions per device\n"
    "step.  Default size 2^27; lowered to 2^26 (and below) when this machine's\n"
    "memory cannot hold the key and the partitions' buffers (the line says so).\n"
    "Prints the device time per partition, the time per whole proof, each\n"
    "device's busy / starved / idle-with-work split, the peak host RSS and device\n"
    "memory.  The key is made in memory by the engine (no files: a 2^27 PoRep key is\n"
    "~62 GiB with its coefficients, compact), and every partition reads the one\n"
    "witness in place; with --dir the key and witness are written to DIR and\n"
    "loaded from there instead.\n";

/* Host bytes the run needs at 2^log2 with |parts| partitions in flight:
 * the loaded key (C and H in G1, A, B1 and B2 over the ~48% of wires the
 * porep profile reads there, coefficients: 496 bytes a constraint measured
 * at 2^27) and per partition a witness and a, b, c. */
static uint64_t fil_host_need(unsigned log2, unsigned parts) {
    uint64_t n = 1ULL << log2;
    uint64_t key = n * 500;
    uint64_t per_part = n * 32 * 4;
    return key + parts * per_part;
}

int cmd_bench_filecoin(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(fil_help, stdout);
        return 0;
    }
    const char *proof = "porep", *dir = NULL, *trace = NULL, *limit = NULL, *batch = "1",
               *tier = NULL,
               *proofs = "2", *devices = "1";
    unsigned log2 = 27;
    int verbose = 0, explicit_log2 = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-v")) {
            verbose = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "cuzk bench filecoin: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--proof"))
            proof = v;
        else if (!strcmp(a, "--log2"))
            log2 = (unsigned)atoi(v), explicit_log2 = 1;
        else if (!strcmp(a, "--proofs"))
            proofs = v;
        else if (!strcmp(a, "--batch"))
            batch = v;
        else if (!strcmp(a, "--gpu-mem-limit-gib"))
            limit = v;
        else if (!strcmp(a, "--tier"))
            tier = v;
        else if (!strcmp(a, "--devices"))
            devices = v;
        else if (!strcmp(a, "--dir"))
            dir = v;
        else if (!strcmp(a, "--trace"))
            trace = v;
        else {
            fprintf(stderr, "cuzk bench filecoin: unknown option %s\n", a);
            return 2;
        }
    }
    unsigned parts = !strcmp(proof, "porep") ? 10 : !strcmp(proof, "snap") ? 16 : 0;
    if (!parts || log2 < 10 || log2 > 27) {
        fputs(fil_help, stderr);
        return 2;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
    unsigned want = log2;
    /* two workers' partitions in flight plus what is queued behind them */
    unsigned in_flight = 2 * (unsigned)atoi(batch) + 2;
    while (!explicit_log2 && phys && log2 > 20 && fil_host_need(log2, in_flight) > phys / 10 * 8)
        log2--;
    if (log2 != want)
        printf("cuzk bench filecoin: 2^%u needs about %.0f GiB of host memory, this machine has "
               "%.0f GiB: running at 2^%u\n",
               want, fil_host_need(want, in_flight) / 1073741824.0, phys / 1073741824.0, log2);
    char lg[16];
    snprintf(lg, sizeof lg, "%u", log2);
    const char *av[40];
    int ac = 0;
    av[ac++] = "engine";
    const char *fixed[] = {"--device", "gpu", "--curve", "bls12_381", "--timing-key",
                           "--profile", proof, "--log2", lg, "-n", proofs, "--batch", batch,
                           "--devices", devices};
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
        av[ac++] = fixed[k];
    char kparts[8];
    snprintf(kparts, sizeof kparts, "%u", parts);
    av[ac++] = "-k";
    av[ac++] = kparts;
    if (limit)
        av[ac++] = "--gpu-mem-limit-gib", av[ac++] = limit;
    if (tier)
        av[ac++] = "--tier", av[ac++] = tier;
    if (dir)
        av[ac++] = "--dir", av[ac++] = dir;
    else
        av[ac++] = "--in-memory"; /* a 2^27 key file would not fit the disk */
    if (trace)
        av[ac++] = "--trace", av[ac++] = trace;
    if (verbose)
        av[ac++] = "-v";
    av[ac] = NULL;
    printf("cuzk bench filecoin: %s, %u partitions per proof, 2^%u, batch %s, key %s\n", proof,
           parts, log2, batch,
           tier && !strcmp(tier, "pinned") ? "in pinned host memory"
           : limit                         ? "wherever the device cap lets it live"
                                           : "resident");
    return cmd_bench_engine(ac, (char **)av);
}
