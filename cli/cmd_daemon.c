/*
 * The cuzk commands that talk to a running cuzkd (docs/API.md):
 *   cuzk status [--json]              devices, memory, queues, jobs, keys
 *   cuzk keys [list|import|preload|evict]
 *   cuzk trace [-o FILE] [--last S | --from A --to B]
 * They only format what the daemon says; no proving here (`cuzk prove`
 * through a daemon is cli/cmd_prove.c's).  Built without libcurl, each
 * says so and exits 1.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/client.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

#if !CLI_HAVE_DAEMON

static int no_daemon(const char *cmd, int argc, char **argv, const char *help) {
    if (cli_wants_help(argc, argv)) {
        printf("%s(%s)\n", help, CLI_NO_DAEMON_TEXT);
        return 0;
    }
    fprintf(stderr, "cuzk %s: %s\n", cmd, CLI_NO_DAEMON_TEXT);
    return 1;
}

#endif

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

/* The "fleet" part of a fleet node's /v1/status (docs/DAEMON.md, "Running
 * a fleet"): this node's link to the database, the fleet queue by priority,
 * and every node with its heartbeat, devices, busy share and proofs.
 * Absent on a daemon without a fleet. */
static void print_fleet(FILE *out, const json_t *f) {
    if (!json_is_object(f))
        return;
    /* Names and errors come from the database: escaped (cli_escape). */
    char node[256], dberr[1024], name[256], devs[256];
    int up = json_is_true(json_object_get(f, "connected"));
    /* since when it is out of reach (a daemon that predates these fields
     * leaves them out) */
    char since[96] = "";
    const char *iso = cli_json_str(f, "unreachable_since", NULL);
    if (!up && iso) {
        char esc[64];
        snprintf(since, sizeof since, " since %s (%.0f s)", cli_escape(iso, esc, sizeof esc),
                 cli_json_num(f, "unreachable_s", 0));
    }
    fprintf(out, "fleet: node %s, database %s%s%s%s, holds %.0f of %.0f, committed %.0f, leases "
           "lost %.0f\n",
           cli_escape(cli_json_str(f, "node", "?"), node, sizeof node),
           up ? "connected" : "UNREACHABLE", since, up ? "" : ": ",
           up ? "" : cli_escape(cli_json_str(f, "db_error", ""), dberr, sizeof dberr), cli_json_num(f, "held", 0),
           cli_json_num(f, "slots", 0), cli_json_num(f, "committed", 0),
           cli_json_num(f, "leases_lost", 0));
    const json_t *q = json_object_get(f, "queued_by_priority"),
                 *r = json_object_get(f, "running_by_priority");
    fprintf(out, "fleet queue: queued low %.0f normal %.0f high %.0f critical %.0f | running low %.0f "
           "normal %.0f high %.0f critical %.0f\n",
           cli_json_num(q, "low", 0), cli_json_num(q, "normal", 0), cli_json_num(q, "high", 0),
           cli_json_num(q, "critical", 0), cli_json_num(r, "low", 0),
           cli_json_num(r, "normal", 0), cli_json_num(r, "high", 0),
           cli_json_num(r, "critical", 0));
    fprintf(out, "fleet nodes:\n  %-20s %-6s %12s %-16s %6s %8s %9s %5s\n", "NAME", "STATE",
           "HEARTBEAT", "DEVICES", "BUSY", "PROOFS", "JOBS DONE", "HELD");
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(f, "nodes"), i, n) {
        fprintf(out, "  %-20s %-6s %10.1fs %-16s %5.1f%% %8.0f %9.0f %5.0f\n",
               cli_escape(cli_json_str(n, "name", "?"), name, sizeof name),
               json_is_true(json_object_get(n, "alive")) ? "alive" : "gone",
               cli_json_num(n, "heartbeat_s_ago", 0),
               cli_escape(cli_json_str(n, "devices", ""), devs, sizeof devs),
               100 * cli_json_num(n, "busy", 0), cli_json_num(n, "proofs", 0),
               cli_json_num(n, "jobs_done", 0), cli_json_num(n, "held", 0));
    }
    /* rows no node wrote, set aside (docs/DAEMON.md, "Rows no node wrote"):
     * said only when there are some, for the operator to look at */
    double nf = cli_json_num(f, "foreign_rows", 0);
    if (nf > 0) {
        fprintf(out, "fleet: %.0f FOREIGN row(s) set aside (written by no node); latest:\n", nf);
        json_array_foreach(json_object_get(f, "foreign"), i, n) {
            char rid[256], key[256], by[256];
            fprintf(out, "  job %.0f request id %s key %s submitted_by %s\n",
                    cli_json_num(n, "job_id", 0),
                    cli_escape(cli_json_str(n, "request_id", "?"), rid, sizeof rid),
                    cli_escape(cli_json_str(n, "key", "?"), key, sizeof key),
                    cli_escape(cli_json_str(n, "submitted_by", "?"), by, sizeof by));
        }
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
    fprintf(out,
            "\njobs: active %.0f, draining %.0f, done %.0f, failed %.0f, cancelled %.0f, "
            "expired %.0f\n",
            cli_json_num(jobs, "active", 0), cli_json_num(jobs, "draining", 0),
            cli_json_num(jobs, "done", 0), cli_json_num(jobs, "failed", 0),
            cli_json_num(jobs, "cancelled", 0), cli_json_num(jobs, "expired", 0));
    const json_t *keys = json_object_get(s, "keys");
    fprintf(out, "keys: %zu\n", json_array_size(keys));
    if (json_array_size(keys))
        print_keys(out, keys);
    print_fleet(out, json_object_get(s, "fleet"));
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
