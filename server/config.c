/*
 * cuzkd's option table and the code it drives (see config.h).
 *
 * Every option is one row of |options|: name, type, field, default text,
 * help and, where the type's own check is not enough, a validator.  The INI
 * reader, the environment, the flags, --help and --print-default-config all
 * walk this table, so an option cannot exist in one of them and not in the
 * others.  Defaults are stored as text and parsed by the same code as user
 * values, so the printed default file reads back to the same settings.
 */
#define _GNU_SOURCE
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cuzk_tools.h"
#include "server/log.h"

typedef enum opt_type { OPT_STRING, OPT_UINT, OPT_BYTES, OPT_BOOL, OPT_LEVEL } opt_type;

/* Extra check of a string option; writes a reason into |msg| on failure. */
typedef int (*opt_check_fn)(const char *value, char *msg, size_t cap);

typedef struct cuzkd_option {
    const char *name;
    opt_type type;
    size_t offset;
    const char *dflt;  /* NULL: computed (socket) */
    uint64_t min, max; /* OPT_UINT, OPT_BYTES */
    opt_check_fn check;
    const char *help;
} cuzkd_option;

static int check_listen(const char *v, char *msg, size_t cap);
static int check_devices(const char *v, char *msg, size_t cap);
static int check_keys(const char *v, char *msg, size_t cap);
static int check_remote_paths(const char *v, char *msg, size_t cap);

#define F(field) offsetof(cuzkd_config, field)
#define U32 4294967295ULL

static const cuzkd_option options[] = {
    {"socket", OPT_STRING, F(socket), NULL, 0, 0, NULL,
     "Unix socket to serve the API on (mode 0660). Empty: no unix socket.\n"
     "Default: $XDG_RUNTIME_DIR/cuzkd.sock, else /tmp/cuzkd-<uid>.sock."},
    {"listen", OPT_STRING, F(listen), "", 0, 0, check_listen,
     "TCP address host:port (e.g. 127.0.0.1:7654, [::1]:7654; port 0 picks a\n"
     "free port and logs it). Empty: no TCP. TCP requires a token."},
    {"token", OPT_STRING, F(token), "", 0, 0, NULL,
     "Bearer token TCP clients must send (Authorization: Bearer <token>).\n"
     "Prefer token_file, which keeps it out of the process list."},
    {"token_file", OPT_STRING, F(token_file), "", 0, 0, NULL,
     "File whose first line is the bearer token."},
    {"threads", OPT_UINT, F(threads), "64", 1, 4096, NULL,
     "HTTP connections served at once per listener; each has a thread of\n"
     "its own, so a long result wait holds only its own. A TCP connection\n"
     "counts (and gets its thread) once its request head has arrived; until\n"
     "then it waits without a thread, and with its head whole it waits for a\n"
     "free thread up to connection_timeout_s. Further unix socket connections\n"
     "are closed at once."},
    {"max_connections_per_ip", OPT_UINT, F(max_connections_per_ip), "16", 0, 4096, NULL,
     "TCP connections one client address may hold open at once, and as many\n"
     "more waiting for their request head (further ones are closed at once),\n"
     "so that no one address can take every connection of the TCP listener.\n"
     "0: no per-address limit."},
    {"connection_timeout_s", OPT_UINT, F(connection_timeout_s), "30", 1, 86400, NULL,
     "Seconds a client may stay silent (while sending a request or idle\n"
     "between requests) before its connection is closed."},
    {"request_timeout_s", OPT_UINT, F(request_timeout_s), "10", 1, 86400, NULL,
     "Seconds a connection has to send a request's headers, counted from its\n"
     "opening or from the end of its previous request, however steadily the\n"
     "bytes trickle in; the body then has this long again plus one second\n"
     "for each MiB received, so a stalled body gives its upload room back.\n"
     "A client that takes longer is disconnected."},
    {"max_body_bytes", OPT_BYTES, F(max_body_bytes), "1G", 1024, 1ULL << 50, NULL,
     "Largest request body (uploaded witnesses); larger requests get 413\n"
     "before their body is read. Suffixes K, M, G, T (powers of 1024)."},
    {"max_input_bytes", OPT_BYTES, F(max_input_bytes), "16M", 1024, 1ULL << 50, NULL,
     "Largest JSON submit body (circom inputs or witness paths; uploaded\n"
     "witness bytes have max_body_bytes): a larger one gets 413 before its\n"
     "body is read. Suffixes K, M, G, T."},
    {"upload_budget", OPT_BYTES, F(upload_budget), "0", 0, 1ULL << 60, NULL,
     "Memory for request bodies being received and uploaded witnesses not yet\n"
     "read by the engine (they are handed over without a copy). A submit that\n"
     "finds no room waits up to upload_wait_ms before its body is read, then\n"
     "gets 503. Part of budget: the engine gets the rest. 0: an eighth of\n"
     "budget. Suffixes K, M, G, T."},
    {"upload_wait_ms", OPT_UINT, F(upload_wait_ms), "10000", 0, U32, NULL,
     "How long a submit waits for room in upload_budget before 503 EBUSY."},
    {"max_jobs_per_client", OPT_UINT, F(max_jobs_per_client), "64", 0, U32, NULL,
     "Jobs one client may have in flight; further submits get 429. 0: no limit."},
    {"max_await_ms", OPT_UINT, F(max_await_ms), "300000", 0, U32, NULL,
     "Longest a result request waits for its job (timeout_ms is capped to it)."},
    {"remote_paths", OPT_STRING, F(remote_paths), "", 0, 0, check_remote_paths,
     "Folders whose files TCP clients may name (witness_paths, a key or\n"
     "circuit path), colon separated: /data/keys:/data/wtns. A named file must\n"
     "lie under one of them once links are resolved. Empty: TCP clients send\n"
     "witness bytes and name keys by id only. Unix socket clients may name\n"
     "any file the daemon can read, except in a fleet: there the key and\n"
     "circuit paths of every job, and of every job row, must lie under them."},
    {"max_keys", OPT_UINT, F(max_keys), "256", 1, 1000000, NULL,
     "Keys the daemon may know, by id or by path. The engine keeps every key\n"
     "it was given until it stops (its memory is freed by eviction, its entry\n"
     "is not), so a key id or .zkey path not yet known gets 503 once this\n"
     "many are. Only files that look like .zkey files are ever added."},
    {"key_idle_s", OPT_UINT, F(key_idle_s), "600", 0, 31536000, NULL,
     "Seconds a key that a client named by its path (not a key id) may stay\n"
     "in memory unused before it is evicted (its file is read again by its\n"
     "next job). Keys registered under an id are only evicted when memory\n"
     "is needed. 0: never."},
    {"devices", OPT_STRING, F(devices), "auto", 0, 0, check_devices,
     "Proving devices, comma separated: auto (every GPU, else the CPU), cpu,\n"
     "cpu:threads=N, gpu (every GPU), gpu0, gpu1, ..., and for tests\n"
     "sim:upload_us=U,compute_us=C,fetch_us=F (a simulated device that makes\n"
     "no proofs). Any device takes workers=N."},
    {"gpu_mem_limit", OPT_BYTES, F(gpu_mem_limit), "0", 0, 1ULL << 50, NULL,
     "Device memory each GPU device may use (0: all). Keys whose bases do not\n"
     "fit stay in pinned host memory and stream to the GPU (tier pinned), so a\n"
     "large GPU can behave like a 16 or 24 GB card. Suffixes K, M, G, T."},
    {"synth_workers", OPT_UINT, F(synth_workers), "0", 0, 1024, NULL,
     "Partitions synthesized (witnesses computed) at once (0: from the core\n"
     "count: all but two cores when only GPUs prove, a quarter with a CPU device)."},
    {"synth_threads", OPT_UINT, F(synth_threads), "0", 0, 4096, NULL,
     "Threads shared by the synthesis workers (0: a quarter of the CPUs)."},
    {"finalize_threads", OPT_UINT, F(finalize_threads), "0", 0, 1024, NULL,
     "Finalizer threads (0: 1). One verifies (self_verify) some 500 proofs a\n"
     "second; raise it only for more small proofs than that."},
    {"budget", OPT_BYTES, F(budget), "0", 0, 1ULL << 60, NULL,
     "Memory budget for keys, buffers and witnesses. 0: physical memory (or\n"
     "the cgroup limit) minus 10%. Suffixes K, M, G, T."},
    {"keys", OPT_STRING, F(keys), "", 0, 0, check_keys,
     "Keys to load at start: id=/path/a.zkey,id2=/path/b.zkey. A key's circuit\n"
     "(circom's .wasm, for jobs that carry inputs instead of witnesses) follows\n"
     "its path after a colon: id=/path/a.zkey:/path/a.wasm."},
    {"wc_cache_dir", OPT_STRING, F(wc_cache_dir), "", 0, 0, NULL,
     "Folder of compiled circuits (each .wasm is compiled to native code once\n"
     "per machine and kept here). Empty: $CUZK_WC_CACHE, else\n"
     "$XDG_CACHE_HOME/cuzk/wc, else ~/.cache/cuzk/wc."},
    {"wc_memory", OPT_BYTES, F(wc_memory), "4G", 16ULL << 20, 4ULL << 30, NULL,
     "Memory of each witness calculator worker (the circuit's linear memory;\n"
     "its address space is this plus 256 MiB). A circuit that asks for more\n"
     "is refused (400 ERANGE naming wc_memory) when it is loaded, or fails\n"
     "its job. Every circuit runs in worker processes of its own."},
    {"wc_timeout_s", OPT_UINT, F(wc_timeout_s), "600", 1, 86400, NULL,
     "Seconds one witness calculation may run (less when the job's deadline\n"
     "comes first). Past it the worker is killed and the job fails."},
    {"wc_start_timeout_s", OPT_UINT, F(wc_start_timeout_s), "10", 1, 3600, NULL,
     "Seconds a circuit's worker may take to set up (the module's start\n"
     "function, the reading of its sizes) and to answer each input look-up\n"
     "of a submit's check; real circuits take milliseconds. Past it the\n"
     "worker is killed and the circuit refused (400 ERANGE naming this)."},
    {"wc_log_lines", OPT_UINT, F(wc_log_lines), "100", 1, 100000, NULL,
     "log() lines of a circuit kept with each job (its circuit_log in the\n"
     "job's status; the first ones, 64 KiB at most); the rest are counted\n"
     "(circuit_log_dropped).  The daemon's log gets one line a job."},
    {"wc_max_wasm_bytes", OPT_BYTES, F(wc_max_wasm_bytes), "256M", 1024, 1ULL << 40, NULL,
     "Largest circuit .wasm the daemon compiles; larger ones are refused."},
    {"wc_compile_timeout_s", OPT_UINT, F(wc_compile_timeout_s), "600", 1, 86400, NULL,
     "Most seconds one circuit's compile (wasm2c and the C compiler) may\n"
     "take; a module gets 120 s plus 600 s per MB of its code, at most this.\n"
     "Past it the compilers are killed and the circuit is refused."},
    {"wc_compile_memory", OPT_BYTES, F(wc_compile_memory), "8G", 64ULL << 20, 1ULL << 50, NULL,
     "Most address space of each compiler process (setrlimit): a module gets\n"
     "768 MiB plus 4 KiB per byte of its code, at most this; a compile that\n"
     "needs more fails."},
    {"wc_compilers", OPT_UINT, F(wc_compilers), "1", 1, 1024, NULL,
     "Circuit compiles that may run at once; others wait their turn."},
    {"wc_cache_max_bytes", OPT_BYTES, F(wc_cache_max_bytes), "4G", 1024, 1ULL << 50,
     NULL,
     "Bound on the compiled circuits kept in wc_cache_dir: after a compile,\n"
     "the least recently used objects that no loaded circuit (of any\n"
     "process) uses are removed until the cache fits."},
    {"max_circuits", OPT_UINT, F(max_circuits), "64", 1, 100000, NULL,
     "Circuits the daemon keeps loaded (by path). A new one past the bound\n"
     "unloads the least recently used circuit that no key is bound to and\n"
     "no job or check uses; only when every one is in use is it refused\n"
     "with 503. Circuits refused at load count for nothing."},
    {"retain_jobs", OPT_UINT, F(retain_jobs), "0", 0, U32, NULL,
     "Finished jobs kept for status, results and request-id attach (0: 1024)."},
    {"batch_max", OPT_UINT, F(batch_max), "0", 0, 1024, NULL,
     "Ready partitions of one key a device takes in one step (0: 1). A GPU\n"
     "proves them in one pass over the key's bases (every MSM reads each\n"
     "base once for all of them), which pays most when the key streams from\n"
     "host memory."},
    {"self_verify", OPT_BOOL, F(self_verify), "true", 0, 0, NULL,
     "Verify every proof before publishing it: a proof that does not verify\n"
     "fails its job (EVERIFY) instead of being served. One pairing check per\n"
     "partition on a finalizer thread, off the devices' path: about 1.3 ms\n"
     "(BN254) and 1.8 ms (BLS12-381) of one core (docs/PERFORMANCE.md)."},
    {"check_abc", OPT_BOOL, F(check_abc), "true", 0, 0, NULL,
     "Check a∘b = c, row by row, for partitions sent as a, b, c images: a row\n"
     "that breaks it fails the job (EVERIFY, naming the row) before proving.\n"
     "One Fr multiplication per row on the synthesis threads."},
    {"trace_events", OPT_UINT, F(trace_events), "0", 0, 1U << 26, NULL,
     "Timeline events kept per engine thread for /trace (0: 16384)."},
    {"log_level", OPT_LEVEL, F(log_level), "info", 0, 0, NULL,
     "error, warn, info (a line per request, partition and job) or debug."},
    {"drain_timeout_s", OPT_UINT, F(drain_timeout_s), "60", 0, 86400, NULL,
     "On SIGTERM: seconds to let jobs in flight finish before cancelling them."},
    {"pid_file", OPT_STRING, F(pid_file), "", 0, 0, NULL,
     "Write the process id here while running (atomically; refused if the\n"
     "path is a link, a device or a FIFO). Empty: none."},
    /* fleet (server/fleet.c) */
    {"fleet_db", OPT_STRING, F(fleet_db), "", 0, 0, NULL,
     "PostgreSQL database shared by a fleet of cuzkd nodes: a libpq connection\n"
     "string (host=/run/postgresql dbname=cuzk user=cuzk) or a postgresql:// URI.\n"
     "Jobs submitted to any node are queued there and proved by whichever node\n"
     "claims them (docs/DAEMON.md, Running a fleet). Empty: no fleet."},
    {"node_name", OPT_STRING, F(node_name), "", 0, 0, NULL,
     "This node's name in the fleet (leases, status). Empty: <hostname>-<pid>."},
    {"fleet_lease_s", OPT_UINT, F(fleet_lease_s), "30", 1, 3600, NULL,
     "Seconds a fleet job's lease lasts without renewal (renewed every third of\n"
     "it): how long the jobs of a node that died wait before others take them."},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

/* ---- value parsers ---------------------------------------------------------- */

static int parse_u64(const char *v, uint64_t *out) {
    if (!isdigit((unsigned char)*v))
        return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end)
        return 0;
    *out = x;
    return 1;
}

/* "512", "64K", "1.5G" is not accepted: integers with K/M/G/T (1024-based),
 * optionally followed by "B" or "iB". */
static int parse_bytes(const char *v, uint64_t *out) {
    if (!isdigit((unsigned char)*v))
        return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno)
        return 0;
    unsigned shift = 0;
    const char *units = "KMGT", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
        shift = 10 * (unsigned)(u - units + 1);
        end++;
    }
    if (shift && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
        end += strlen(end);
    else if (!shift && !strcasecmp(end, "B"))
        end++;
    if (*end || (shift && x > (UINT64_MAX >> shift)))
        return 0;
    *out = (uint64_t)x << shift;
    return 1;
}

static int parse_bool(const char *v, int *out) {
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
                                                                                "off"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i]))
            return *out = 1, 1;
        if (!strcasecmp(v, no[i]))
            return *out = 0, 1;
    }
    return 0;
}

static const cuzkd_option *find_option(const char *name) {
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (!strcmp(options[i].name, name))
            return &options[i];
    return NULL;
}

/* Parse |value| into |c|'s field for |o|.  |where| names the source for the
 * message ("flag --budget", "environment CUZKD_BUDGET", "f.ini line 3"). */
static cuzk_status set_option(cuzkd_config *c, const cuzkd_option *o, const char *value,
                              const char *where, cuzk_error *err) {
    void *field = (char *)c + o->offset;
    char msg[200] = "";
    switch (o->type) {
    case OPT_STRING: {
        if (o->check && !o->check(value, msg, sizeof msg))
            break;
        char *dup = strdup(value);
        if (!dup)
            return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
        free(*(char **)field);
        *(char **)field = dup;
        return CUZK_OK;
    }
    case OPT_UINT:
    case OPT_BYTES: {
        uint64_t x;
        int ok = o->type == OPT_UINT ? parse_u64(value, &x) : parse_bytes(value, &x);
        if (!ok) {
            snprintf(msg, sizeof msg, "expected %s",
                     o->type == OPT_UINT ? "a non-negative integer"
                                         : "a byte count such as 512M or 4G");
            break;
        }
        if (x < o->min || x > o->max) {
            snprintf(msg, sizeof msg, "must be between %llu and %llu", (unsigned long long)o->min,
                     (unsigned long long)o->max);
            break;
        }
        if (o->type == OPT_UINT)
            *(unsigned *)field = (unsigned)x;
        else
            *(uint64_t *)field = x;
        return CUZK_OK;
    }
    case OPT_BOOL:
        if (parse_bool(value, (int *)field))
            return CUZK_OK;
        snprintf(msg, sizeof msg, "expected true or false");
        break;
    case OPT_LEVEL: {
        int l = cuzkd_log_level_parse(value);
        if (l >= 0) {
            *(int *)field = l;
            return CUZK_OK;
        }
        snprintf(msg, sizeof msg, "expected error, warn, info or debug");
        break;
    }
    }
    return cuzk_fail(err, CUZK_EINVAL, "%s%sbad value '%s' for %s: %s", where, *where ? ": " : "",
                     value, o->name, msg);
}

/* ---- validators of structured strings ------------------------------------------ */

/* Splits "host:port" / "[v6]:port" into |host| and |port|. */
static int split_listen(const char *v, char *host, size_t cap, unsigned *port) {
    const char *colon;
    if (*v == '[') {
        const char *close = strchr(v, ']');
        if (!close || close[1] != ':')
            return 0;
        if ((size_t)(close - v - 1) >= cap || close == v + 1)
            return 0;
        memcpy(host, v + 1, (size_t)(close - v - 1));
        host[close - v - 1] = 0;
        colon = close + 1;
    } else {
        colon = strrchr(v, ':');
        if (!colon || colon == v || (size_t)(colon - v) >= cap ||
            memchr(v, ':', (size_t)(colon - v)))
            return 0;
        memcpy(host, v, (size_t)(colon - v));
        host[colon - v] = 0;
    }
    uint64_t p;
    if (!parse_u64(colon + 1, &p) || p > 65535)
        return 0;
    *port = (unsigned)p;
    return 1;
}

int cuzkd_listen_split(const char *v, char *host, size_t cap, unsigned *port) {
    return split_listen(v, host, cap, port);
}

static int check_listen(const char *v, char *msg, size_t cap) {
    char host[256];
    unsigned port;
    if (!*v || split_listen(v, host, sizeof host, &port))
        return 1;
    snprintf(msg, cap, "expected host:port, e.g. 127.0.0.1:7654 or [::1]:7654");
    return 0;
}

/*
 * Devices: comma-separated items.  An item "name=value" without a colon
 * continues the parameters of the device before it, so
 * "sim:upload_us=1,compute_us=2,cpu" is a simulated device with two
 * parameters and a CPU device.  Fills |ec| when not NULL.
 */
/* cuzkd sees the library through its public API only, which counts no
 * GPU both on a machine without one and in a build without CUDA */
#define NO_GPU_TEXT "no such GPU (none on this machine, or libcuzk built without CUDA)"
static int gpu_count(void) { return cuzk_gpu_count(); }

static int add_device(cuzk_engine_config *ec, cuzk_device_kind kind, int index, char *msg,
                      size_t cap) {
    if (ec->n_devices >= CUZK_MAX_DEVICES - 1) {
        snprintf(msg, cap, "at most %d devices", CUZK_MAX_DEVICES - 1);
        return 0;
    }
    cuzk_device_config *d = &ec->devices[ec->n_devices++];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->gpu_index = index;
    /* GPU: one worker uploads the next partition while the other computes */
    if (kind == CUZK_DEVICE_GPU)
        d->workers = 2;
    return 1;
}

static int device_param(cuzk_engine_config *ec, cuzk_testing *t, unsigned first, const char *kv,
                        char *msg, size_t cap) {
    const char *eq = strchr(kv, '=');
    uint64_t x;
    if (!eq || !parse_u64(eq + 1, &x) || x > U32) {
        snprintf(msg, cap, "'%s': expected name=number", kv);
        return 0;
    }
    size_t n = (size_t)(eq - kv);
    for (unsigned i = first; i < ec->n_devices; i++) {
        cuzk_device_config *d = &ec->devices[i];
        if (n == 7 && !strncmp(kv, "workers", n))
            d->workers = (unsigned)x;
        else if (n == 7 && !strncmp(kv, "threads", n) && d->kind == CUZK_DEVICE_CPU)
            d->threads = (unsigned)x;
        else if (n == 9 && !strncmp(kv, "upload_us", n) && d->kind == CUZK_DEVICE_SIMULATED)
            t->sim[i].upload_us = (uint32_t)x;
        else if (n == 10 && !strncmp(kv, "compute_us", n) && d->kind == CUZK_DEVICE_SIMULATED)
            t->sim[i].compute_us = (uint32_t)x;
        else if (n == 8 && !strncmp(kv, "fetch_us", n) && d->kind == CUZK_DEVICE_SIMULATED)
            t->sim[i].fetch_us = (uint32_t)x;
        else {
            snprintf(msg, cap, "'%.*s' is not a parameter of this device", (int)n, kv);
            return 0;
        }
    }
    return 1;
}

static int parse_devices(const char *v, cuzk_engine_config *ec, cuzk_testing *t, int resolve,
                         char *msg, size_t cap) {
    char *copy = strdup(v), *save = NULL;
    if (!copy) {
        snprintf(msg, cap, "out of memory");
        return 0;
    }
    int ok = 1, any = 0;
    unsigned first = 0; /* the devices the current item's parameters apply to */
    ec->n_devices = 0;
    for (char *it = strtok_r(copy, ",", &save); ok && it; it = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*it))
            it++;
        char *colon = strchr(it, ':');
        if (!colon && strchr(it, '=')) { /* continues the previous device */
            ok = any ? device_param(ec, t, first, it, msg, cap)
                     : (snprintf(msg, cap, "'%s' before any device", it), 0);
            continue;
        }
        if (colon)
            *colon = 0;
        first = ec->n_devices;
        any = 1;
        if (!strcmp(it, "cpu")) {
            ok = add_device(ec, CUZK_DEVICE_CPU, 0, msg, cap);
        } else if (!strcmp(it, "sim")) {
            ok = add_device(ec, CUZK_DEVICE_SIMULATED, 0, msg, cap);
        } else if (!strcmp(it, "auto") || !strcmp(it, "gpu")) {
            int ngpu = gpu_count();
            if (it[0] == 'g' && ngpu <= 0) {
                snprintf(msg, cap, "gpu: %s", NO_GPU_TEXT);
                ok = 0;
            } else if (ngpu <= 0 || (!resolve && it[0] == 'a')) {
                /* auto is only checked here; main resolves it at start */
                ok = add_device(ec, CUZK_DEVICE_CPU, 0, msg, cap);
            } else {
                for (int g = 0; ok && g < ngpu; g++)
                    ok = add_device(ec, CUZK_DEVICE_GPU, g, msg, cap);
            }
        } else if (!strncmp(it, "gpu", 3) && isdigit((unsigned char)it[3])) {
            uint64_t idx;
            if (!parse_u64(it + 3, &idx) || idx >= 1024) {
                snprintf(msg, cap, "bad GPU index in '%s'", it);
                ok = 0;
            } else if ((int)idx >= gpu_count()) {
                snprintf(msg, cap, "%s: %s (GPUs: %d)", it, NO_GPU_TEXT, gpu_count());
                ok = 0;
            } else {
                ok = add_device(ec, CUZK_DEVICE_GPU, (int)idx, msg, cap);
            }
        } else {
            snprintf(msg, cap, "unknown device '%s'", it);
            ok = 0;
        }
        if (ok && colon && colon[1])
            ok = device_param(ec, t, first, colon + 1, msg, cap);
    }
    if (ok && !any) {
        snprintf(msg, cap, "no device");
        ok = 0;
    }
    free(copy);
    return ok;
}

static int check_devices(const char *v, char *msg, size_t cap) {
    cuzk_engine_config ec;
    cuzk_testing t;
    memset(&ec, 0, sizeof ec);
    memset(&t, 0, sizeof t);
    return parse_devices(v, &ec, &t, 0, msg, cap);
}

static int parse_keys(const char *v, cuzkd_config *c, char *msg, size_t cap) {
    char *copy = strdup(v), *save = NULL;
    if (!copy)
        return snprintf(msg, cap, "out of memory"), 0;
    int ok = 1;
    unsigned n = 0;
    for (char *it = strtok_r(copy, ",", &save); ok && it; it = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*it))
            it++;
        char *eq = strchr(it, '=');
        if (!*it)
            continue;
        if (!eq || eq == it || !eq[1] || (size_t)(eq - it) > CUZK_ID_MAX) {
            snprintf(msg, cap, "'%s': expected id=path (id of 1..%d bytes)", it, CUZK_ID_MAX);
            ok = 0;
        } else if (n >= CUZKD_MAX_PRELOAD) {
            snprintf(msg, cap, "at most %d keys", CUZKD_MAX_PRELOAD);
            ok = 0;
        } else {
            /* id=KEY or id=KEY:CIRCUIT.wasm (split at the last colon only
             * when what follows it names a .wasm, so paths may hold colons) */
            const char *path = eq + 1, *colon = strrchr(path, ':');
            size_t tail = colon ? strlen(colon + 1) : 0;
            int has_circuit = colon && colon > path && tail > 5 &&
                              !strcmp(colon + 1 + tail - 5, ".wasm");
            if (has_circuit && (colon[1] != '/' || path[0] != '/')) {
                snprintf(msg, cap, "'%s': key and circuit paths must be absolute", it);
                ok = 0;
            } else if (c) {
                snprintf(c->preload[n].id, sizeof c->preload[n].id, "%.*s", (int)(eq - it), it);
                size_t plen = has_circuit ? (size_t)(colon - path) : strlen(path);
                c->preload[n].path = strndup(path, plen);
                c->preload[n].circuit = has_circuit ? strdup(colon + 1) : NULL;
                ok = c->preload[n].path != NULL && (!has_circuit || c->preload[n].circuit);
            }
        }
        n += ok;
    }
    if (c)
        c->n_preload = n;
    free(copy);
    return ok;
}

static int check_keys(const char *v, char *msg, size_t cap) {
    return parse_keys(v, NULL, msg, cap);
}

static int check_remote_paths(const char *v, char *msg, size_t cap) {
    for (const char *p = v; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!n || *p != '/') {
            snprintf(msg, cap, "expected absolute folders separated by ':'");
            return 0;
        }
        p += n + (e != NULL);
    }
    return 1;
}

/* ---- sources ------------------------------------------------------------------ */

const char *cuzkd_default_socket(void) {
    static char path[4096];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/cuzkd.sock", xdg);
    else
        snprintf(path, sizeof path, "/tmp/cuzkd-%u.sock", (unsigned)getuid());
    return path;
}

static const char *default_text(const cuzkd_option *o) {
    return o->dflt ? o->dflt : cuzkd_default_socket();
}

void cuzkd_config_init(cuzkd_config *c) {
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        cuzk_status s = set_option(c, &options[i], default_text(&options[i]), "default", NULL);
        (void)s; /* the table's defaults are valid: test_daemon_lifecycle reads them back */
    }
}

void cuzkd_config_free(cuzkd_config *c) {
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].type == OPT_STRING)
            free(*(char **)((char *)c + options[i].offset));
    for (unsigned i = 0; i < c->n_preload; i++) {
        free(c->preload[i].path);
        free(c->preload[i].circuit);
    }
    if (c->token_value) {
        /* The token is a secret: do not leave it in freed memory. */
        explicit_bzero(c->token_value, strlen(c->token_value));
        free(c->token_value);
    }
    memset(c, 0, sizeof *c);
}

typedef struct ini_ctx {
    cuzkd_config *c;
    const char *file;
    cuzk_error *err;
    int failed;
} ini_ctx;

/* libinih as Debian builds it does not pass line numbers to the handler;
 * ini_parse returns the line of the first failure, which load_file puts
 * in front of the message. */
static int on_ini_line(void *user, const char *section, const char *name, const char *value) {
    ini_ctx *x = user;
    if (x->failed)
        return 0;
    if (*section && strcmp(section, "cuzkd")) {
        cuzk_fail(x->err, CUZK_EINVAL,
                  "unknown section [%s] (options go before any section "
                  "or under [cuzkd])",
                  section);
        return x->failed = 1, 0;
    }
    const cuzkd_option *o = find_option(name);
    if (!o) {
        cuzk_fail(x->err, CUZK_EINVAL, "unknown option '%s'", name);
        return x->failed = 1, 0;
    }
    if (set_option(x->c, o, value, "", x->err) != CUZK_OK)
        return x->failed = 1, 0;
    return 1;
}

static cuzk_status load_file(cuzkd_config *c, const char *path, cuzk_error *err) {
    cuzk_error e = {0};
    ini_ctx x = {c, path, &e, 0};
    int r = ini_parse(path, on_ini_line, &x);
    if (r == -1)
        return cuzk_fail(err, CUZK_EINVAL, "cannot open config file %s", path);
    if (x.failed)
        return cuzk_fail(err, CUZK_EINVAL, "%s line %d: %s", path, r, e.msg);
    if (r != 0)
        return cuzk_fail(err, CUZK_EINVAL, "%s line %d: not an INI line (expected name = value)",
                         path, r);
    return CUZK_OK;
}

static cuzk_status load_env(cuzkd_config *c, cuzk_error *err) {
    for (size_t i = 0; i < N_OPTIONS; i++) {
        char var[64] = "CUZKD_";
        for (size_t k = 0; options[i].name[k] && k + 7 < sizeof var; k++)
            var[6 + k] = (char)toupper((unsigned char)options[i].name[k]);
        const char *v = getenv(var);
        char where[80];
        snprintf(where, sizeof where, "environment %s", var);
        if (v && set_option(c, &options[i], v, where, err) != CUZK_OK)
            return CUZK_EINVAL;
    }
    return CUZK_OK;
}

/* "--name=value" or "--name value"; dashes in the name read as underscores. */
static cuzk_status flag_value(int argc, char **argv, int *i, char *name, size_t cap,
                              const char **value, cuzk_error *err) {
    const char *a = argv[*i] + 2, *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= cap)
        return cuzk_fail(err, CUZK_EINVAL, "unknown flag %s", argv[*i]);
    for (size_t k = 0; k < n; k++)
        name[k] = a[k] == '-' ? '_' : a[k];
    name[n] = 0;
    if (eq) {
        *value = eq + 1;
    } else if (*i + 1 < argc) {
        *value = argv[++*i];
    } else {
        *value = NULL;
    }
    return CUZK_OK;
}

cuzk_status cuzkd_config_load(cuzkd_config *c, int argc, char **argv, cuzkd_action *action,
                              cuzk_error *err) {
    *action = CUZKD_RUN;
    /* Pass 1: switches and the config file, which comes before everything
     * else whatever its place on the command line. */
    const char *file = getenv("CUZKD_CONFIG");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--print-default-config"))
            *action = CUZKD_PRINT_DEFAULT;
        else if (!strcmp(a, "--print-config"))
            *action = CUZKD_PRINT_CONFIG;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            *action = CUZKD_HELP;
        else if (!strcmp(a, "--version"))
            *action = CUZKD_VERSION;
        else if (!strcmp(a, "--config") && i + 1 < argc)
            file = argv[++i];
        else if (!strncmp(a, "--config=", 9))
            file = a + 9;
        else if (!strcmp(a, "--config"))
            return cuzk_fail(err, CUZK_EINVAL, "flag --config needs a file");
    }
    if (*action != CUZKD_RUN && *action != CUZKD_PRINT_CONFIG)
        return CUZK_OK;
    if (file && *file && load_file(c, file, err) != CUZK_OK)
        return CUZK_EINVAL;
    if (load_env(c, err) != CUZK_OK)
        return CUZK_EINVAL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--config")) {
            i++;
            continue;
        }
        if (!strncmp(a, "--config=", 9))
            continue;
        if (!strcmp(a, "--print-config"))
            continue;
        if (strncmp(a, "--", 2))
            return cuzk_fail(err, CUZK_EINVAL,
                             "unexpected argument '%s' (options are --name=value)", a);
        char name[64], where[80];
        const char *value = NULL;
        if (flag_value(argc, argv, &i, name, sizeof name, &value, err) != CUZK_OK)
            return CUZK_EINVAL;
        const cuzkd_option *o = find_option(name);
        if (!o)
            return cuzk_fail(err, CUZK_EINVAL, "unknown flag --%s (cuzkd --help lists them)", name);
        if (!value)
            return cuzk_fail(err, CUZK_EINVAL, "flag --%s needs a value", name);
        snprintf(where, sizeof where, "flag --%s", name);
        if (set_option(c, o, value, where, err) != CUZK_OK)
            return CUZK_EINVAL;
    }
    return CUZK_OK;
}

static char *read_token_file(const char *path, cuzk_error *err) {
    FILE *f = fopen(path, "r");
    if (!f) {
        cuzk_fail(err, CUZK_EINVAL, "token_file: cannot open %s", path);
        return NULL;
    }
    char line[1024];
    char *r = fgets(line, sizeof line, f);
    fclose(f);
    if (!r) {
        cuzk_fail(err, CUZK_EINVAL, "token_file %s is empty", path);
        return NULL;
    }
    size_t n = strcspn(line, "\r\n");
    while (n && isspace((unsigned char)line[n - 1]))
        n--;
    line[n] = 0;
    char *tok = strdup(line);
    explicit_bzero(line, sizeof line);
    if (tok && !*tok) {
        free(tok);
        cuzk_fail(err, CUZK_EINVAL, "token_file %s has an empty first line", path);
        return NULL;
    }
    return tok;
}

cuzk_status cuzkd_config_finish(cuzkd_config *c, cuzk_error *err) {
    if (*c->token && *c->token_file)
        return cuzk_fail(err, CUZK_EINVAL, "set token or token_file, not both");
    if (*c->token_file) {
        if (!(c->token_value = read_token_file(c->token_file, err)))
            return CUZK_EINVAL;
    } else if (*c->token && !(c->token_value = strdup(c->token))) {
        return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    }
    if (*c->listen && !c->token_value)
        return cuzk_fail(err, CUZK_EINVAL,
                         "listen = %s needs a token (token or token_file): TCP is never open "
                         "without one",
                         c->listen);
    if (!*c->socket && !*c->listen)
        return cuzk_fail(err, CUZK_EINVAL,
                         "nothing to listen on: socket and listen are both empty");
    char msg[200];
    if (!parse_keys(c->keys, c, msg, sizeof msg))
        return cuzk_fail(err, CUZK_EINVAL, "keys: %s", msg);
    return CUZK_OK;
}

/* The engine's automatic budget (budget = 0): physical memory, or the
 * cgroup's limit when lower, minus 10% (at least 512 MiB). */
static uint64_t auto_budget(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : (1ULL << 32);
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    unsigned long long lim;
    if (f) {
        if (fscanf(f, "%llu", &lim) == 1 && lim < phys)
            phys = lim;
        fclose(f);
    }
    uint64_t margin = phys / 10 < (512ULL << 20) ? 512ULL << 20 : phys / 10;
    return phys > 2 * margin ? phys - margin : phys / 2;
}

cuzk_status cuzkd_config_engine(const cuzkd_config *c, cuzk_engine_config *ec,
                                cuzk_testing *testing, uint64_t *upload_budget, cuzk_error *err) {
    cuzk_engine_config_default(ec);
    memset(testing, 0, sizeof *testing);
    ec->testing = testing;
    char msg[200];
    if (!parse_devices(c->devices, ec, testing, 1, msg, sizeof msg))
        return cuzk_fail(err, CUZK_EINVAL, "devices: %s", msg);
    ec->synth_workers = c->synth_workers;
    ec->synth_threads = c->synth_threads;
    ec->finalize_threads = c->finalize_threads;
    /* Upload buffers are part of the budget: the engine gets the rest. */
    uint64_t total = c->budget ? c->budget : auto_budget();
    uint64_t up = c->upload_budget ? c->upload_budget : total / 8;
    if (up >= total)
        return cuzk_fail(err, CUZK_EINVAL,
                         "upload_budget (%llu bytes) must be smaller than budget (%llu bytes)",
                         (unsigned long long)up, (unsigned long long)total);
    ec->budget_bytes = total - up;
    *upload_budget = up;
    ec->retain_jobs = c->retain_jobs;
    ec->batch_max = c->batch_max;
    for (unsigned i = 0; i < ec->n_devices; i++)
        if (ec->devices[i].kind == CUZK_DEVICE_GPU)
            ec->devices[i].gpu_mem_limit = c->gpu_mem_limit;
    ec->self_verify = c->self_verify;
    ec->check_abc = c->check_abc;
    ec->trace_events = c->trace_events;
    /* The string lives as long as the configuration, which outlives the
     * engine (main frees it last). */
    ec->wc_cache_dir = *c->wc_cache_dir ? c->wc_cache_dir : NULL;
    ec->wc_memory_bytes = c->wc_memory;
    ec->wc_calc_s = c->wc_timeout_s;
    ec->wc_log_lines = c->wc_log_lines;
    ec->wc_max_wasm_bytes = c->wc_max_wasm_bytes;
    ec->wc_compile_s = c->wc_compile_timeout_s;
    ec->wc_compile_memory_bytes = c->wc_compile_memory;
    ec->wc_max_compilers = c->wc_compilers;
    ec->wc_cache_max_bytes = c->wc_cache_max_bytes;
    ec->wc_start_s = c->wc_start_timeout_s;
    ec->log_level = (cuzk_log_level)c->log_level;
    ec->log_fn = cuzkd_log_engine;
    ec->log_ctx = NULL;
    return CUZK_OK;
}

/* ---- printing ------------------------------------------------------------------- */

static void print_help_lines(FILE *f, const char *prefix, const char *help) {
    for (const char *p = help; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%s%.*s\n", prefix, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* |o|'s value in |c| as text that parses back to it. */
static void format_value(char *out, size_t cap, const cuzkd_option *o, const cuzkd_config *c) {
    const void *field = (const char *)c + o->offset;
    switch (o->type) {
    case OPT_STRING:
        snprintf(out, cap, "%s", *(char *const *)field);
        break;
    case OPT_UINT:
        snprintf(out, cap, "%u", *(const unsigned *)field);
        break;
    case OPT_BYTES: {
        uint64_t x = *(const uint64_t *)field;
        static const char suffix[] = "KMGT";
        int k = -1;
        while (k < 3 && x && x % 1024 == 0) { /* the largest exact unit */
            x /= 1024;
            k++;
        }
        snprintf(out, cap, "%llu%.*s", (unsigned long long)x, k >= 0, k >= 0 ? suffix + k : "");
        break;
    }
    case OPT_BOOL:
        snprintf(out, cap, "%s", *(const int *)field ? "true" : "false");
        break;
    case OPT_LEVEL:
        snprintf(out, cap, "%s", cuzkd_log_level_name((cuzk_log_level) * (const int *)field));
        break;
    }
}

void cuzkd_config_print(FILE *f, const cuzkd_config *c) {
    fprintf(f,
            "# cuzkd configuration (INI), as printed by cuzkd %s.\n"
            "# Each option can also be set by the environment variable CUZKD_<NAME>\n"
            "# or the flag --<name>=VALUE; flags win over the environment, which\n"
            "# wins over this file.\n"
            "[cuzkd]\n",
            c ? "--print-config" : "--print-default-config (every value is the default)");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        char v[4200];
        if (c)
            format_value(v, sizeof v, &options[i], c);
        else
            snprintf(v, sizeof v, "%s", default_text(&options[i]));
        fprintf(f, "\n");
        print_help_lines(f, "# ", options[i].help);
        if (c && strcmp(v, default_text(&options[i])))
            fprintf(f, "# default: %s\n",
                    *default_text(&options[i]) ? default_text(&options[i]) : "(empty)");
        fprintf(f, "%s =%s%s\n", options[i].name, *v ? " " : "", v);
    }
}

void cuzkd_config_print_help(FILE *f) {
    fprintf(f, "usage: cuzkd [--config FILE] [--<option>=VALUE | --<option> VALUE]...\n"
               "       cuzkd --print-default-config | --print-config | --help | --version\n\n"
               "The cuzk proving daemon: serves the HTTP API of docs/API.md on a unix socket\n"
               "and optionally TCP.  Options (file < CUZKD_<NAME> environment < flags):\n\n");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        fprintf(f, "  --%s (default: %s)\n", options[i].name,
                *default_text(&options[i]) ? default_text(&options[i]) : "empty");
        print_help_lines(f, "      ", options[i].help);
    }
    fprintf(f, "\nSIGTERM or SIGINT: drain and exit 0; a second SIGINT exits at once (130).\n"
               "docs/DAEMON.md describes running it; docs/API.md the API.\n");
}
