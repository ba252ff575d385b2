/*
 * What `cuzk bench single|batch|stress` (bench/cmd_bench_daemon.c) shares
 * with its report (bench/cmd_bench_daemon_report.c): the key/witness pairs,
 * the options, the records of finished jobs and the sink that collects
 * them.  Internal to bench/.
 */
#ifndef CUZK_BENCH_DAEMON_H
#define CUZK_BENCH_DAEMON_H

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/load.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

#if CLI_HAVE_DAEMON

#define MAX_PAIRS 16
#define MAX_FAIL_KINDS 32
#define ERR_TEXT 160

static const char *prio_names[4] __attribute__((unused)) = {"low", "normal", "high",
                                                           "critical"};

typedef struct bench_pair {
    char key[PATH_MAX];  /* absolute .zkey path, or a key id */
    char wtns[PATH_MAX]; /* absolute path */
    char label[64];
    const void *data; /* the .wtns bytes, for uploads (the mapping of |w|) */
    size_t len;
    int is_input;            /* --input: |wtns| names an input.json */
    char circuit[PATH_MAX];  /* --circuit (absolute), or "" */
    char *input;             /* the input.json text */
    size_t input_len;
    char *wdata; /* the witness file's bytes, when uploaded */
    int w_open;  /* a witness file (not inputs), checked */
    cuzk_vk *vk; /* --verify */
    uint8_t *expect; /* --verify: the witness's public signals (images) */
    size_t n_expect;
} bench_pair;

typedef struct bench_opts {
    const char *mode;
    cli_daemon_opts d;
    unsigned n, j, procs;
    double duration_s, timeout_s;
    int verify, upload, gen, prio; /* prio: index into prio_names, -1 random */
    const char *json_path, *dir;
    bench_pair *pairs;
    unsigned n_pairs;
} bench_opts;

/* One finished job. status: 0 ok, 1 failed, 2 proof invalid, 3 the submit
 * never reached the daemon (no HTTP answer). */
typedef struct bench_rec {
    double latency_s;
    double submit_s; /* submit request to its answer (the last try) */
    uint64_t bytes;  /* body bytes of the submit */
    uint64_t job_id;
    unsigned char status, prio, pair;
} bench_rec;

typedef struct fail_kind {
    char text[ERR_TEXT];
    uint64_t count;
} fail_kind;

typedef struct bench_sink {
    pthread_mutex_t mu;
    int fd; /* >= 0: a child process, forward to the parent */
    bench_rec *recs;
    size_t n, cap;
    fail_kind fails[MAX_FAIL_KINDS];
    unsigned n_fails;
    uint64_t failed, invalid, retries, unreached;
} bench_sink;

typedef struct bench_ctx {
    const bench_opts *o;
    bench_sink *sink;
    unsigned jobs;         /* batch/single: jobs of this process */
    atomic_uint next;      /* next job index to take */
    atomic_uint running;   /* worker threads still running */
    uint64_t stop_ns;      /* stress: no new job after this */
    unsigned proc;         /* client process index */
    char rid_prefix[96];
} bench_ctx;

/* The figures of a run: throughput, latency percentiles (per priority in
 * stress), intake, failures by kind, each daemon device's split between
 * the two status snapshots; as JSON too with --json.  Returns the exit
 * status. */
int bench_daemon_report(const bench_opts *o, bench_sink *s, double wall, uint64_t submitted,
                  const json_t *before, const json_t *after);
/* Through a fleet node: the partitions the fleet's nodes committed
 * between two /v1/status objects (their "fleet" heartbeat snapshots). */
double bench_fleet_committed(const json_t *before, const json_t *after);

#endif

#endif
