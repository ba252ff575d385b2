/*
 * cuzkd's shared state and the interfaces between its files:
 *
 *   cuzkd.c       main: configuration, signals, start, drain, exit
 *   config.c      the option table (config.h)
 *   http.c        listeners, libmicrohttpd glue, routing, auth, limits,
 *                 errors, HTTP counters (http.h)
 *   api_jobs.c    the job endpoints: submit, status, result, cancel,
 *                 over the job store (jobs.h)
 *   store_mem.c   the memory job store: this node's engine; per-client
 *                 job accounting, retired by the engine's end-of-job call
 *   api_keys.c    key list, import, preload, evict; the circuits
 *                 registered with keys (circuit.c)
 *   circuit.c     circuits (circom .wasm) known to the daemon: which key
 *                 has which; inputs checked with the engine's loaded copy
 *   intake.c      the budgeted, reused buffers request bodies are received
 *                 in and uploaded witnesses are handed to the engine in
 *   api_status.c  /v1/status, /metrics, /trace, /healthz, GET /
 *   page.c        the status page's HTML
 *   fleet.c       many nodes on one PostgreSQL job queue (fleet.h)
 *   fleet_store.c the fleet's job store (jobs.h)
 *   fleet_node.c  the fleet's node thread: claims, leases, outcomes
 *   fleet_rows.c  which job rows a fleet node may act on (fleet_int.h)
 *   front.c       TCP connections wait for their request head (front.h)
 *   log.c         the logger (log.h)
 *   paths.c       files named by clients: remote_paths, key file checks
 *
 * The daemon is a thin layer over the engine (include/cuzk.h): HTTP
 * threads call only the engine's thread-safe API, and the daemon's own
 * locks (jobs_lock) are never taken by engine threads, so no HTTP request
 * can hold up a device worker (docs/ENGINE.md).
 */
#ifndef CUZKD_SERVER_H
#define CUZKD_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cuzk.h"
#include "server/config.h"

#define CUZKD_VERSION "0.1.0"

/* A client: the X-Cuzk-Client header, else "uid:<n>" (unix socket peer)
 * or "ip:<address>" (TCP peer). */
#define CUZKD_CLIENT_MAX 80

typedef struct cuzkd_client {
    char name[CUZKD_CLIENT_MAX];
    unsigned in_flight; /* jobs submitted (not attached) and not yet ended */
    struct cuzkd_client *next;
} cuzkd_client;

/* A job this daemon submitted, until it ends (api_jobs.c); the context of
 * its end-of-job call.  Under jobs_lock but |srv|, set before submit. */
typedef struct cuzkd_tracked {
    struct cuzkd_server *srv;
    cuzk_job *job; /* the daemon's handle, set once cuzk_submit returned */
    cuzkd_client *client;
    int listed;    /* in srv->tracked */
    int ended;     /* the end-of-job call came */
    struct cuzkd_tracked *next;
} cuzkd_tracked;

/* A finished job, for the status page. */
typedef struct cuzkd_recent {
    char request_id[CUZK_ID_MAX + 1];
    char key[CUZK_ID_MAX + 1];
    char client[CUZKD_CLIENT_MAX];
    cuzk_job_state state;
    uint32_t partitions;
    double seconds; /* submit to end */
    uint64_t end_ns;
} cuzkd_recent;

#define CUZKD_RECENT 16

/* HTTP status codes counted one by one; anything else is "other". */
#define CUZKD_HTTP_CODES 14
/* Request duration histogram bucket bounds (seconds), +Inf implied. */
#define CUZKD_HTTP_BUCKETS 12

typedef struct cuzkd_http_stats {
    _Atomic uint64_t by_code[CUZKD_HTTP_CODES + 1];
    _Atomic uint64_t buckets[CUZKD_HTTP_BUCKETS + 1];
    _Atomic uint64_t count, sum_ns;
} cuzkd_http_stats;

typedef struct cuzkd_listener cuzkd_listener; /* http.c */
typedef struct cuzkd_fleet cuzkd_fleet;       /* fleet.c */

/* One upload buffer (intake.c): an anonymous mapping of |cap| bytes, of
 * which |len| hold a body.  |refs|: the request receiving it, then one per
 * witness handed to the engine; the last put returns it to the pool. */
typedef struct cuzkd_upload {
    void *p;
    size_t cap, len;
    _Atomic unsigned refs;
    struct cuzkd_server *srv;
    struct cuzkd_upload *next; /* idle list */
} cuzkd_upload;

typedef struct cuzkd_intake {
    pthread_mutex_t lock;
    pthread_cond_t cv; /* a buffer came back */
    int ready;
    uint64_t budget;              /* the upload budget */
    uint64_t held;                /* mapped: in use + idle */
    uint64_t in_use, idle_bytes;  /* receiving, or held by the engine */
    unsigned n_idle;
    cuzkd_upload *idle;
    uint64_t gets, waits, maps;   /* counters for /metrics */
} cuzkd_intake;

typedef struct cuzkd_intake_counts {
    uint64_t budget, held, in_use, idle, gets, waits, maps;
} cuzkd_intake_counts;

/* A second id for a key the engine knows under another (api_keys.c): a
 * .zkey first used by its path can still be registered under a name. */
typedef struct cuzkd_alias {
    char id[CUZK_ID_MAX + 1], target[CUZK_ID_MAX + 1];
    struct cuzkd_alias *next;
} cuzkd_alias;

/* A circuit registered with a key (circuit.c). */
typedef struct cuzkd_circuit cuzkd_circuit;

typedef struct cuzkd_server {
    const cuzkd_config *cfg;
    cuzk_engine *engine;
    uint64_t start_ns; /* engine start (CLOCK_MONOTONIC): the zero of /trace */

    _Atomic int ready;       /* startup (key preloads) finished */
    _Atomic int draining;    /* SIGTERM seen: no new jobs */
    _Atomic int stopping;    /* listeners about to stop: waits return now */
    _Atomic int requests;    /* requests being handled now */
    _Atomic int connections; /* open HTTP connections, all listeners */

    cuzkd_listener *unix_l, *tcp_l;
    /* The socket file this process made (removed at exit only if the path
     * still names it); kept here, not in the listener, so the immediate
     * exit path can read it while the listeners are being freed. */
    char socket_path[108];
    dev_t socket_dev;
    ino_t socket_ino;
    _Atomic int have_socket;

    /* What CUDA said at start (cuzk_gpu_probe): /v1/status reports it, so
     * a daemon proving on the CPU because CUDA failed says so.  Written
     * once before the listeners start. */
    cuzk_status gpu_probe;
    int gpu_count;
    char gpu_error[256];

    /* Jobs and clients (api_jobs.c).  Engine threads take jobs_lock only in
     * the end-of-job call, for a few list operations; holders never wait
     * and call only cheap engine reads (never cuzk_job_cancel). */
    pthread_mutex_t jobs_lock;
    pthread_cond_t jobs_cv; /* a tracked job ended */
    cuzkd_client *clients;
    cuzkd_tracked *tracked;
    unsigned n_tracked;
    cuzkd_recent recent[CUZKD_RECENT];
    unsigned n_recent; /* total ever added; ring index = n % CUZKD_RECENT */

    cuzkd_http_stats http;

    cuzkd_intake intake;

    /* Circuits (circuit.c): those known (counted against max_circuits) by
     * wasm path, and which key has which; the loaded objects are the
     * engine's.  circuits_lock guards the list only; loads (which may
     * compile) happen outside it. */
    pthread_mutex_t circuits_lock;
    cuzkd_circuit *circuits;
    /* Circuits requests are loading now (a first load compiles, for
     * seconds to minutes), shown in /v1/status so that a client waiting on
     * its submit can say what it waits for.  Under circuits_lock; a full
     * table shows the first CUZKD_LOADING_SHOWN only. */
#define CUZKD_LOADING_SHOWN 8
    struct {
        char wasm[4096];
        uint64_t since_ns; /* 0: a free slot */
    } loading[CUZKD_LOADING_SHOWN];

    /* Key aliases (api_keys.c), under circuits_lock. */
    cuzkd_alias *aliases;
    /* The fleet (fleet.c): NULL unless fleet_db is set. */
    struct cuzkd_fleet *fleet;
    /* Where jobs live (jobs.h): the fleet's store with a fleet, else the
     * memory store; set before the listeners start. */
    const struct cuzkd_store *store;
} cuzkd_server;

/* ---- store_mem.c --------------------------------------------------------- */

cuzk_status cuzkd_jobs_start(cuzkd_server *srv, cuzk_error *err);
/* After the engine is destroyed: releases what is still tracked. */
void cuzkd_jobs_stop(cuzkd_server *srv);
/* Cancel every job this daemon submitted that is still in flight (the
 * drain's end); returns how many were cancelled. */
unsigned cuzkd_jobs_cancel_all(cuzkd_server *srv);
/* Jobs tracked now, and clients with jobs in flight. */
void cuzkd_jobs_counts(cuzkd_server *srv, unsigned *jobs, unsigned *clients);
/* Ask whether |client| may submit one more job (1) or is at its limit (0);
 * no slot is taken. */
int cuzkd_jobs_client_has_room(cuzkd_server *srv, const char *client);

/* ---- intake.c ------------------------------------------------------------ */

cuzk_status cuzkd_intake_init(cuzkd_server *srv, uint64_t budget, cuzk_error *err);
/* After the engine is destroyed (it gives buffers back as it frees jobs). */
void cuzkd_intake_destroy(cuzkd_server *srv);
/* A buffer of at least |bytes| (refs 1), waiting up to |wait_ms| for room
 * in the budget.  CUZK_EBUSY when none came in time, CUZK_ERANGE when
 * |bytes| is larger than the whole budget, CUZK_ENOMEM. */
cuzk_status cuzkd_intake_get(cuzkd_server *srv, size_t bytes, uint64_t wait_ms,
                             cuzkd_upload **out, cuzk_error *err);
/* Grow |b| to hold |bytes| (a body of unknown length): 1, or 0 when the
 * budget has no room now (no wait) or the mapping cannot grow. */
int cuzkd_intake_grow(cuzkd_server *srv, cuzkd_upload *b, size_t bytes);
size_t cuzkd_intake_chunked_start(void);
/* Wake submits waiting for room (they see srv->stopping and give up). */
void cuzkd_intake_wake(cuzkd_server *srv);
/* Drop one reference; the last returns the buffer to the pool.  NULL is a
 * no-op. */
void cuzkd_intake_put(cuzkd_upload *b);
/* cuzk_witness.release for witnesses in an upload buffer (ctx: the
 * buffer). */
void cuzkd_intake_release(void *ctx, const void *data);
void cuzkd_intake_stats(cuzkd_server *srv, cuzkd_intake_counts *c);

/* ---- circuit.c ----------------------------------------------------------- */

/* Register |wasm| (absolute path) with key |key_id| in the engine and here.
 * Errors as cuzk_engine_circuit_register's. */
cuzk_status cuzkd_circuit_register(cuzkd_server *srv, const char *key_id, const char *wasm,
                                   cuzk_error *err);
/* The wasm path registered with |key_id| into |out| (size |n|): 1, or 0
 * when none is. */
int cuzkd_circuit_of_key(cuzkd_server *srv, const char *key_id, char *out, size_t n);
/* The engine's loaded circuit of |wasm| (an absolute path), loading (and,
 * the first time on this machine, compiling) it if needed, counted against
 * max_circuits.  |*held| is the daemon's entry of it, which is not
 * unloaded for room until cuzkd_circuit_put gives both back (after the
 * job that uses it is submitted: the job holds it then). */
struct cuzk_wc_circuit;
cuzk_status cuzkd_circuit_get(cuzkd_server *srv, const char *wasm,
                              const struct cuzk_wc_circuit **c, cuzkd_circuit **held,
                              cuzk_error *err);
void cuzkd_circuit_put(cuzkd_server *srv, const struct cuzk_wc_circuit *c,
                       cuzkd_circuit *held);
/* Circuits the daemon knows (what max_circuits bounds). */
unsigned cuzkd_circuits_known(cuzkd_server *srv);
/* The circuits being loaded now: [{"wasm", "seconds"}] (a new reference). */
struct json_t;
struct json_t *cuzkd_circuits_loading_json(cuzkd_server *srv);
void cuzkd_circuits_init(cuzkd_server *srv);
/* ---- api_keys.c ------------------------------------------------------------ */

/* The engine's id for key id |id| (|id| itself unless it is an alias):
 * into |out| (CUZK_ID_MAX + 1 bytes). */
void cuzkd_key_unalias(cuzkd_server *srv, const char *id, char *out);
void cuzkd_aliases_free(cuzkd_server *srv);
/* Evict keys named by path that have been idle for key_idle_s (main
 * calls it every few seconds while serving). */
void cuzkd_keys_sweep(cuzkd_server *srv);

void cuzkd_circuits_free(cuzkd_server *srv);

/* *ts = now on |clock| plus |ms| milliseconds: the absolute deadline a
 * timed condition wait takes (the clock its condition variable uses). */
static inline void cuzkd_deadline_in(struct timespec *ts, clockid_t clock, uint64_t ms) {
    clock_gettime(clock, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

#endif
