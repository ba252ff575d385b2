/*
 * The cuzk commands that talk to a running cuzkd (docs/API.md):
 *   cuzk status [--json]              devices, memory, queues, jobs, keys
 *   cuzk keys [list|import|preload|evict]
 *   cuzk trace [-o FILE] [--last S | --from A --to B]
 * and `cuzk prove` through the daemon (cli_prove_daemon, called first by
 * cmd_prove).  They only format what the daemon says; no proving here.
 * Built without libcurl, each says so and exits 1.
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
#include "cli/client.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

const char *cli_prove_daemon_help =
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

#if !CLI_HAVE_DAEMON

int cli_prove_daemon(int *argc, char **argv) {
    /* Drop the daemon-only flag so the in-process path accepts the line. */
    int o = 1;
    for (int i = 1; i < *argc; i++)
        if (strcmp(argv[i], "--local") != 0)
            argv[o++] = argv[i];
    *argc = o;
    return -1;
}

static int no_daemon(const char *cmd, int argc, char **argv, const char *help) {
    if (cli_wants_help(argc, argv)) {
        printf("%s(%s)\n", help, CLI_NO_DAEMON_TEXT);
        return 0;
    }
    fprintf(stderr, "cuzk %s: %s\n", cmd, CLI_NO_DAEMON_TEXT);
    return 1;
}

#endif

/* ---- cuzk prove through the daemon ---------------------------------------- */

#if CLI_HAVE_DAEMON

typedef struct prove_args {
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
static int prove_parse(prove_args *a, int *argc, char **argv) {
    int out = 1;
    memset(a, 0, sizeof *a);
    for (int i = 1; i < *argc; i++) {
        const char *s = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        int r = cli_daemon_opt(&a->d, *argc, argv, &i);
        if (r < 0 || (!v && (!strcmp(s, "--priority") || !strcmp(s, "--request-id") ||
                             !strcmp(s, "--deadline-ms") || !strcmp(s, "--timeout") ||
                             !strcmp(s, "--input") || !strcmp(s, "--circuit")))) {
            fprintf(stderr, "cuzk %s: %s needs a value\n", cli_prove_cmd, s);
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
                cli_prove_cmd);
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

static void print_stages(cli_conn *c, const char *rid, double submit_s, double wait_s,
                         double write_s) {
    char esc[400], path[500];
    cuzk_error err = {0};
    fprintf(stderr,
            "cuzk %s: via cuzkd at %s, job %s: submit %.3f s | wait %.3f | write %.3f\n",
            cli_prove_cmd, cli_conn_addr(c)->text, rid, submit_s, wait_s, write_s);
    if (!cli_url_escape(rid, esc, sizeof esc))
        return;
    snprintf(path, sizeof path, "/v1/jobs/%s", esc);
    json_t *j = cli_request_json(c, "GET", path, NULL, 10000, NULL, &err);
    if (!j) {
        fprintf(stderr, "cuzk %s: job status: %s\n", cli_prove_cmd, err.msg);
        return;
    }
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(j, "partition"), i, p) {
        fprintf(stderr,
                "cuzk %s: partition %zu on device %d (attempts %d): queued %.3f s | synth "
                "%.3f | ready wait %.3f | device %.3f | finalize %.3f\n", cli_prove_cmd,
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
        cli_fail(cli_prove_cmd, "daemon's proof", &err);
        goto out;
    }
    if (wtns && check_public(wtns, &proof, pub, n_pub, &err) != CUZK_OK) {
        cli_fail(cli_prove_cmd, "check of the daemon's proof", &err);
        goto out;
    }
    if (a->verify || (stat(key, &ks) == 0 && S_ISREG(ks.st_mode))) {
        cuzk_vk *vk = NULL;
        cuzk_status st = cli_key_vk(c, key, &vk, &err);
        if (st == CUZK_OK)
            st = cuzk_verify(vk, &proof, pub, n_pub, &err);
        cuzk_vk_release(vk);
        if (st != CUZK_OK) {
            cli_fail(cli_prove_cmd, "check of the daemon's proof", &err);
            goto out;
        }
    }
    if (cuzk_proof_bytes_write_json_file(&proof, a->proof_out, &err) != CUZK_OK) {
        cli_fail(cli_prove_cmd, a->proof_out, &err);
        goto out;
    }
    if (cuzk_public_bytes_write_json_file(proof.curve, pub, n_pub, a->public_out, &err) !=
        CUZK_OK) {
        cli_fail(cli_prove_cmd, a->public_out, &err);
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
                                "%.0f s so far", cli_prove_cmd, what, s);
            else if (last_line < 0 || s >= last_line + 10)
                fprintf(stderr, "cuzk %s: cuzkd is loading circuit %s (compiled on first use): "
                                "%.0f s so far\n", cli_prove_cmd, what, s), last_line = s;
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
    int roles = cli_prove_roles(a->pos[0], a->input ? NULL : a->pos[1], a->input, a->circuit);
    if (roles)
        return roles;
    /* A key that is no file may be the id of a key the daemon holds. */
    if (!realpath(a->pos[0], key)) {
        if (strchr(a->pos[0], '/') || strlen(a->pos[0]) >= sizeof key) {
            fprintf(stderr, "cuzk %s: %s: no such file\n", cli_prove_cmd, a->pos[0]);
            return 1;
        }
        snprintf(key, sizeof key, "%s", a->pos[0]);
    }
    if (a->circuit && !realpath(a->circuit, wasm)) {
        fprintf(stderr, "cuzk %s: %s: no such file\n", cli_prove_cmd, a->circuit);
        return 1;
    }
    if (!a->input && !realpath(a->pos[1], wtns)) {
        fprintf(stderr, "cuzk %s: %s: no such file\n", cli_prove_cmd, a->pos[1]);
        return 1;
    }
    cli_job_req req = {.key = key, .priority = a->priority, .request_id = a->request_id,
                       .deadline_ms = a->deadline_ms, .circuit = a->circuit ? wasm : NULL};
    void *map = NULL;
    char *input = NULL;
    if (a->input) {
        if (!(input = read_text(a->input, &req.input_len, &err)))
            return cli_fail(cli_prove_cmd, "input", &err);
        req.input_json = input;
    } else if (a->upload || addr->kind == CLI_ADDR_TCP) {
        if (!(map = map_file(wtns, &req.witness_len, &err)))
            return cli_fail(cli_prove_cmd, "witness", &err);
        req.witness_data = map;
    } else
        req.witness_path = wtns;
    cli_job_ref ref;
    int unreachable = 0, rc = 1;
    json_t *result = NULL;
    uint64_t t0 = cli_now_ns();
    load_watch lw = {.d = &a->d, .wasm = a->circuit ? wasm : NULL,
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
                        "proving in-process\n", cli_prove_cmd, addr->path);
        return -1;
    }
    if (st != CUZK_OK)
        return cli_fail(cli_prove_cmd, unreachable ? "daemon" : "daemon refused the job", &err);
    uint64_t t1 = cli_now_ns();
    st = cli_job_await(c, ref.request_id, (long)(a->timeout_s * 1000), &result, &err);
    if (st == CUZK_ETIMEOUT && !result && strstr(err.msg, "still running")) {
        cuzk_error cerr = {0};
        cli_job_cancel(c, ref.request_id, &cerr);
        fprintf(stderr, "cuzk %s: timed out after %g s waiting for job %s (cancelled)\n",
                cli_prove_cmd, a->timeout_s, ref.request_id);
        return 1;
    }
    if (st != CUZK_OK)
        return cli_fail(cli_prove_cmd, "daemon", &err);
    uint64_t t2 = cli_now_ns();
    rc = write_result(c, a, key, a->input ? NULL : wtns, result);
    json_decref(result);
    if (rc == 0 && a->verbose)
        print_stages(c, ref.request_id, (t1 - t0) / 1e9, (t2 - t1) / 1e9,
                     (cli_now_ns() - t2) / 1e9);
    else if (rc == 0) /* where the proof came from, in one line */
        fprintf(stderr, "cuzk %s: proved by cuzkd at %s (job %s)\n", cli_prove_cmd,
                addr->text, ref.request_id);
    return rc;
}

int cli_prove_daemon(int *argc, char **argv) {
    prove_args a;
    if (cli_wants_help(*argc, argv))
        return -1;
    int rc = prove_parse(&a, argc, argv);
    if (rc)
        return rc;
    if (a.local || !a.proof_out)
        return -1; /* in-process, or its usage message */
    cuzk_error err = {0};
    cli_conn *c = cli_connect(&a.d, NULL, &err);
    if (!c && err.status == CUZK_ENOTFOUND)
        return -1; /* no daemon configured */
    if (!c) {
        fprintf(stderr, "cuzk %s: %s\n", cli_prove_cmd, err.msg);
        return err.status == CUZK_EINVAL ? 2 : 1;
    }
    rc = prove_remote(c, &a);
    cli_conn_free(c);
    return rc;
}

#endif /* CLI_HAVE_DAEMON */

/* ---- shared by status, keys, trace ------------------------------------------ */

static const char *status_help =
    "usage: cuzk status [--json] [daemon options]\n"
    "Show what the daemon is doing: per device the busy, starved (nothing ready\n"
    "while synthesis was behind), idle (no work) and idle-with-work (idle while\n"
    "work was ready) seconds and the partitions proved and failed, memory\n"
    "budget use, queue depths, job counts and resident keys.  --json prints\n"
    "the daemon's /v1/status object as it is.\n";

static const char *keys_help =
    "usage: cuzk keys [list] [--json]\n"
    "       cuzk keys import ID PATH [--no-preload] [--circuit C.wasm]\n"
    "       cuzk keys preload ID\n"
    "       cuzk keys evict ID\n"
    "          [daemon options]\n"
    "List the proving keys the daemon knows (tier: where the key is resident),\n"
    "register a .zkey under ID (loaded now unless --no-preload, else by its\n"
    "first job), load one now, or drop one from memory (refused while in use).\n"
    "--circuit registers the key's circuit (circom's .wasm, a path on the daemon's\n"
    "machine), so that jobs with inputs for the key need not name it.\n";

static const char *trace_help =
    "usage: cuzk trace [-o FILE] [--last S | --from A --to B] [daemon options]\n"
    "Write the daemon's timeline as Chrome trace JSON (open it in Perfetto or\n"
    "chrome://tracing) to FILE, or stdout when FILE is - or absent.  --last S:\n"
    "the last S seconds (default: what the daemon keeps); --from/--to: seconds\n"
    "since the daemon started.\n";

#if CLI_HAVE_DAEMON

static void fmt_bytes(double b, char *buf, size_t n) {
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4)
        b /= 1024, u++;
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* Parse the daemon options and the command's own flags; the connection is
 * opened by the caller.  Returns 1 if argv[*i] was a daemon option. */
static int daemon_opt_or_fail(const char *cmd, cli_daemon_opts *d, int argc, char **argv, int *i,
                              int *rc) {
    int r = cli_daemon_opt(d, argc, argv, i);
    if (r < 0) {
        fprintf(stderr, "cuzk %s: %s needs a value\n", cmd, argv[*i]);
        *rc = 2;
    }
    return r != 0;
}

static cli_conn *connect_or_fail(const char *cmd, const cli_daemon_opts *d) {
    cuzk_error err = {0};
    cli_conn *c = cli_connect(d, NULL, &err);
    if (!c)
        fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
    return c;
}

/* ---- cuzk status ----------------------------------------------------------- */

/* A table of key objects; the id column is as wide as the longest id (a
 * key first named by a job has its path as id).  Paths come from the
 * daemon and may hold any byte: the tables are written through
 * cli_write_safe. */
static void print_keys(FILE *out, const json_t *keys) {
    size_t i, w = 8;
    json_t *k;
    char id[CUZK_ID_MAX * 4 + 1], path[PATH_MAX * 4 + 1], le[CUZK_ERROR_MSG_BYTES * 4 + 1];
    json_array_foreach(keys, i, k) {
        size_t n = strlen(cli_escape(cli_json_str(k, "id", "?"), id, sizeof id));
        w = n > w ? n : w;
    }
    w = w > 64 ? 64 : w;
    /* PARTITIONS and FAILED count partitions, not jobs; FAILED leaves out
     * those refused for their client's inputs */
    fprintf(out, "  %-*s %-8s %-9s %5s %9s %10s %6s %10s %6s  %s\n", (int)w, "ID", "TIER", "CURVE",
            "LOG_N", "VARS", "MEM", "IN_USE", "PARTITIONS", "FAILED", "PATH");
    json_array_foreach(keys, i, k) {
        char mem[32];
        fmt_bytes(cli_json_num(k, "mem_bytes", 0), mem, sizeof mem);
        const char *tier = cli_json_str(k, "tier", "?");
        cli_escape(cli_json_str(k, "id", "?"), id, sizeof id);
        cli_escape(cli_json_str(k, "path", ""), path, sizeof path);
        if (json_is_true(json_object_get(k, "loading")))
            tier = "loading";
        fprintf(out, "  %-*s %-8s %-9s %5.0f %9.0f %10s %6.0f %10.0f %6.0f  %s\n", (int)w, id, tier,
               cli_json_str(k, "curve", "?"), cli_json_num(k, "log_n", 0),
               cli_json_num(k, "n_vars", 0), mem, cli_json_num(k, "in_use", 0),
               cli_json_num(k, "proofs", 0), cli_json_num(k, "failures", 0),
               strcmp(id, path) ? path : "(the id)");
        cli_escape(cli_json_str(k, "load_error", ""), le, sizeof le);
        if (le[0])
            fprintf(out, "  %-*s load error: %s\n", (int)w, "", le);
    }
}

static void print_devices(FILE *out, const json_t *devs) {
    size_t i;
    json_t *d;
    /* PROOFS and FAILED count partitions (device steps), not jobs */
    fprintf(out, "devices:\n  %-16s %18s %11s %11s %15s %10s %10s %7s\n", "NAME",
            "BUSY s (share)", "STARVED s", "IDLE s", "IDLE-W-WORK s", "PARTITIONS", "FAILED",
            "WORKERS");
    json_array_foreach(devs, i, d) {
        /* starved: nothing ready while synthesis was behind; idle: no work.
         * A daemon without idle_s counted both as starved_s. */
        double busy = cli_json_num(d, "busy_s", 0), starved = cli_json_num(d, "starved_s", 0),
               iww = cli_json_num(d, "idle_with_work_s", 0), idle = cli_json_num(d, "idle_s", -1);
        if (idle < 0) {
            double synth = cli_json_num(d, "starved_synth_s", 0);
            idle = starved - synth;
            starved = synth;
        }
        double all = busy + starved + idle + iww;
        char name[64];
        snprintf(name, sizeof name, "%s (%s)", cli_json_str(d, "name", "?"),
                 cli_json_str(d, "kind", "?"));
        fprintf(out, "  %-16s %10.3f (%4.1f%%) %11.3f %11.3f %15.3f %10.0f %10.0f %7.0f\n", name,
                busy, all > 0 ? 100 * busy / all : 0.0, starved, idle, iww,
                cli_json_num(d, "proofs", 0), cli_json_num(d, "failures", 0),
                cli_json_num(d, "workers_alive", 0));
        if (all > 0 && starved > 0.1 * all)
            fprintf(out, "  %-16s starved %.0f%% of the time (synthesis behind): more synthesis "
                    "workers (synth_workers) or cores would keep it busy\n", "",
                    100 * starved / all);
    }
}

static void print_status(FILE *out, const json_t *s, const cli_addr *addr) {
    char b[4][32];
    fprintf(out, "cuzkd %s at %s: up %.0f s, %.0f clients%s\n", cli_json_str(s, "version", "?"),
           addr->text, cli_json_num(s, "uptime_s", 0), cli_json_num(s, "clients", 0),
           json_is_true(json_object_get(s, "draining")) ? ", DRAINING" : "");
    print_devices(out, json_object_get(s, "devices"));
    const json_t *m = json_object_get(s, "memory");
    fmt_bytes(cli_json_num(m, "used", 0), b[0], 32);
    fmt_bytes(cli_json_num(m, "budget", 0), b[1], 32);
    fmt_bytes(cli_json_num(m, "peak", 0), b[2], 32);
    fprintf(out, "memory: %s of %s budget (peak %s):", b[0], b[1], b[2]);
    fmt_bytes(cli_json_num(m, "keys", 0), b[0], 32);
    fmt_bytes(cli_json_num(m, "buffers", 0), b[1], 32);
    fmt_bytes(cli_json_num(m, "intake", 0), b[2], 32);
    fprintf(out, " keys %s, buffers %s, intake %s\n", b[0], b[1], b[2]);
    const json_t *q = json_object_get(s, "queues"), *jp = json_object_get(q, "jobs_by_priority");
    fprintf(out, "queues: jobs low %.0f normal %.0f high %.0f critical %.0f | synthesis %.0f, ready "
           "%.0f, finalize %.0f\n",
           json_number_value(json_array_get(jp, 0)), json_number_value(json_array_get(jp, 1)),
           json_number_value(json_array_get(jp, 2)), json_number_value(json_array_get(jp, 3)),
           cli_json_num(q, "synthesis", 0), cli_json_num(q, "ready", 0),
           cli_json_num(q, "finalize", 0));
    const char *stage;
    json_t *v;
    fprintf(out, "in flight:");
    json_object_foreach((json_t *)json_object_get(s, "in_flight"), stage, v)
        fprintf(out, " %s %.0f", stage, json_number_value(v));
    const json_t *jobs = json_object_get(s, "jobs");
    fprintf(out, "\njobs: active %.0f, done %.0f, failed %.0f, cancelled %.0f, expired %.0f\n",
           cli_json_num(jobs, "active", 0), cli_json_num(jobs, "done", 0),
           cli_json_num(jobs, "failed", 0), cli_json_num(jobs, "cancelled", 0),
           cli_json_num(jobs, "expired", 0));
    const json_t *keys = json_object_get(s, "keys");
    fprintf(out, "keys: %zu\n", json_array_size(keys));
    if (json_array_size(keys))
        print_keys(out, keys);
    cli_print_fleet(out, json_object_get(s, "fleet"));
}

int cmd_status(int argc, char **argv) {
    cli_daemon_opts d = {0};
    int as_json = 0, rc = 0;
    if (cli_wants_help(argc, argv)) {
        printf("%s%s", status_help, cli_daemon_opts_help);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (daemon_opt_or_fail("status", &d, argc, argv, &i, &rc))
            continue;
        if (!strcmp(argv[i], "--json"))
            as_json = 1;
        else {
            fprintf(stderr, "cuzk status: unknown option %s\n%s", argv[i], status_help);
            return 2;
        }
    }
    if (rc)
        return rc;
    cli_conn *c = connect_or_fail("status", &d);
    if (!c)
        return 1;
    cuzk_error err = {0};
    cli_http_resp r;
    rc = 1;
    if (cli_http(c, "GET", "/v1/status", CLI_BODY_NONE, NULL, 0, 30000, &r, NULL, &err) !=
        CUZK_OK)
        fprintf(stderr, "cuzk status: %s\n", err.msg);
    else if (r.code != 200)
        cli_http_fail(&r, &err), cli_fprint_error(stderr, "cuzk status", err.msg);
    else if (as_json) {
        fwrite(r.body, 1, r.len, stdout);
        if (r.len && r.body[r.len - 1] != '\n')
            putchar('\n');
        rc = 0;
    } else {
        json_t *s = cli_json_parse(&r, &err);
        char *text = NULL;
        size_t len = 0;
        FILE *m = s ? open_memstream(&text, &len) : NULL;
        if (m) {
            print_status(m, s, cli_conn_addr(c));
            fclose(m);
            cli_write_safe(stdout, text, len);
            free(text);
            rc = 0;
        } else
            cli_fprint_error(stderr, "cuzk status", s ? "out of memory" : err.msg);
        json_decref(s);
    }
    cli_conn_free(c);
    return rc;
}

/* ---- cuzk keys ---------------------------------------------------------------- */

/* One key operation; prints the key object (or the list) it returns. */
static int keys_call(cli_conn *c, const char *method, const char *path, json_t *body,
                     int as_json, int list) {
    cuzk_error err = {0};
    /* Preloading a large key can take minutes. */
    json_t *j = cli_request_json(c, method, path, body, list ? 30000 : 0, NULL, &err);
    json_decref(body);
    if (!j) {
        cli_fprint_error(stderr, "cuzk keys", err.msg);
        return 1;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *m = as_json ? NULL : open_memstream(&text, &len);
    if (as_json) {
        json_dumpf(j, stdout, JSON_INDENT(1));
        putchar('\n');
    } else if (!m) {
        json_decref(j);
        cli_fprint_error(stderr, "cuzk keys", "out of memory");
        return 1;
    } else if (list) {
        const json_t *keys = json_object_get(j, "keys");
        if (!json_array_size(keys))
            fprintf(m, "no keys\n");
        else
            print_keys(m, keys);
    } else {
        json_t *one = json_pack("[O]", j);
        print_keys(m, one);
        json_decref(one);
    }
    if (m) {
        fclose(m);
        cli_write_safe(stdout, text, len);
        free(text);
    }
    json_decref(j);
    return 0;
}

static int keys_run(cli_conn *c, const char **pos, int npos, int preload, int as_json,
                    const char *circuit) {
    char id[400], path[600], abs[PATH_MAX];
    const char *op = npos ? pos[0] : "list";
    if (!strcmp(op, "list") && npos <= 1)
        return keys_call(c, "GET", "/v1/keys", NULL, as_json, 1);
    if (!strcmp(op, "import") && npos == 3) {
        if (!realpath(pos[2], abs)) {
            fprintf(stderr, "cuzk keys: %s: no such file\n", pos[2]);
            return 1;
        }
        json_t *body = json_pack("{s:s, s:s, s:b}", "id", pos[1], "path", abs, "preload",
                                 preload);
        if (circuit) {
            if (!realpath(circuit, abs)) {
                json_decref(body);
                fprintf(stderr, "cuzk keys: %s: no such file\n", circuit);
                return 1;
            }
            json_object_set_new(body, "circuit", json_string(abs));
        }
        return keys_call(c, "POST", "/v1/keys", body, as_json, 0);
    }
    if ((!strcmp(op, "preload") || !strcmp(op, "evict")) && npos == 2) {
        if (!cli_url_escape(pos[1], id, sizeof id)) {
            fprintf(stderr, "cuzk keys: key id too long\n");
            return 2;
        }
        snprintf(path, sizeof path, "/v1/keys/%s/%s", id, op);
        return keys_call(c, "POST", path, NULL, as_json, 0);
    }
    fputs(keys_help, stderr);
    return 2;
}

int cmd_keys(int argc, char **argv) {
    cli_daemon_opts d = {0};
    const char *pos[4], *circuit = NULL;
    int npos = 0, preload = 1, as_json = 0, rc = 0;
    if (cli_wants_help(argc, argv)) {
        printf("%s%s", keys_help, cli_daemon_opts_help);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (daemon_opt_or_fail("keys", &d, argc, argv, &i, &rc))
            continue;
        if (!strcmp(argv[i], "--no-preload"))
            preload = 0;
        else if (!strcmp(argv[i], "--json"))
            as_json = 1;
        else if (!strcmp(argv[i], "--circuit") && i + 1 < argc)
            circuit = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "cuzk keys: unknown option %s\n%s", argv[i], keys_help);
            return 2;
        } else if (npos < 4)
            pos[npos++] = argv[i];
        else
            rc = 2;
    }
    if (rc) {
        if (npos >= 4)
            fputs(keys_help, stderr);
        return rc;
    }
    cli_conn *c = connect_or_fail("keys", &d);
    if (!c)
        return 1;
    rc = keys_run(c, pos, npos, preload, as_json, circuit);
    cli_conn_free(c);
    return rc;
}

/* ---- cuzk trace ------------------------------------------------------------------ */

/* The trace to |path| ("-": stdout) as every output is written. */
static cuzk_status write_all(const char *path, const char *data, size_t len, cuzk_error *err) {
    if (strcmp(path, "-"))
        return cuzk_file_write_atomic(path, data, len, err);
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
        return cuzk_fail(err, CUZK_EIO, "cannot write to stdout: %s", strerror(errno));
    return CUZK_OK;
}

int cmd_trace(int argc, char **argv) {
    cli_daemon_opts d = {0};
    const char *out = "-", *last = NULL, *from = NULL, *to = NULL;
    int rc = 0;
    if (cli_wants_help(argc, argv)) {
        printf("%s%s", trace_help, cli_daemon_opts_help);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (daemon_opt_or_fail("trace", &d, argc, argv, &i, &rc))
            continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **dst = !strcmp(a, "-o")       ? &out
                           : !strcmp(a, "--last") ? &last
                           : !strcmp(a, "--from") ? &from
                           : !strcmp(a, "--to")   ? &to
                                                  : NULL;
        if (!dst || !v) {
            fprintf(stderr, "cuzk trace: %s %s\n%s", a, dst ? "needs a value" : "unknown option",
                    trace_help);
            return 2;
        }
        *dst = v;
        i++;
    }
    if (rc)
        return rc;
    if ((last && (from || to)) || (!from != !to)) {
        fprintf(stderr, "cuzk trace: give --last S, or both --from and --to\n");
        return 2;
    }
    char path[200];
    if (last)
        snprintf(path, sizeof path, "/trace?last_s=%g", atof(last));
    else if (from)
        snprintf(path, sizeof path, "/trace?from_s=%g&to_s=%g", atof(from), atof(to));
    else
        snprintf(path, sizeof path, "/trace");
    cli_conn *c = connect_or_fail("trace", &d);
    if (!c)
        return 1;
    cuzk_error err = {0};
    cli_http_resp r;
    rc = 1;
    if (cli_http(c, "GET", path, CLI_BODY_NONE, NULL, 0, 0, &r, NULL, &err) != CUZK_OK)
        fprintf(stderr, "cuzk trace: %s\n", err.msg);
    else if (r.code != 200)
        cli_http_fail(&r, &err), fprintf(stderr, "cuzk trace: %s\n", err.msg);
    else if (write_all(out, r.body, r.len, &err) != CUZK_OK)
        fprintf(stderr, "cuzk trace: %s\n", err.msg);
    else {
        if (strcmp(out, "-"))
            fprintf(stderr, "cuzk trace: wrote %zu bytes to %s\n", r.len, out);
        rc = 0;
    }
    cli_conn_free(c);
    return rc;
}

#else /* !CLI_HAVE_DAEMON */

int cmd_status(int argc, char **argv) { return no_daemon("status", argc, argv, status_help); }
int cmd_keys(int argc, char **argv) { return no_daemon("keys", argc, argv, keys_help); }
int cmd_trace(int argc, char **argv) { return no_daemon("trace", argc, argv, trace_help); }

#endif
