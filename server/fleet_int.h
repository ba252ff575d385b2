/*
 * The fleet's private parts, shared by fleet.c (start and stop, the
 * status snapshot), fleet_db.c (connections, statements, schema),
 * fleet_node.c (the node thread: claims, leases, outcomes), fleet_store.c
 * (the job store: submit, status, result, cancel), fleet_rows.c (which
 * job rows a node may act on: keys, paths, circuits) and fleet_mac.c
 * (which job rows the fleet wrote: their MACs).  The design is in
 * fleet.c's header.  They call one another downwards only: fleet.c ->
 * fleet_node.c -> fleet_rows.c -> fleet_db.c -> fleet_mac.c, and
 * fleet_store.c -> fleet_db.c (tests/test_server_layers.sh).
 *
 * Must not: be included by anything but those six files (the fleet's
 * interface is fleet.h), nor without libpq.
 */
#ifndef CUZKD_FLEET_INT_H
#define CUZKD_FLEET_INT_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "server/fleet.h"

/* A checked submit (fleet_store.c), from the endpoint's cuzkd_job_req. */
typedef struct cuzkd_fleet_job {
    const cuzk_key_info *key;  /* resolved on this node */
    const char *request_id;    /* NULL: the fleet makes one */
    cuzk_priority priority;
    uint64_t deadline_ms;      /* 0: none */
    const cuzk_witness *w;     /* data, path or input_json each */
    size_t n;
    const char *circuit;       /* real path of the request's .wasm, or NULL */
} cuzkd_fleet_job;

/* How long a handler keeps trying an unreachable database. */
#define DB_WAIT_MS 20000
/* Fleet thread tick: the longest it sleeps when nothing wakes it (a job
 * ending wakes it through its pipe, the database through NOTIFY). */
#define TICK_MS 250
/* Reconnect backoff. */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
/* Partitions a node holds per proving device: enough to keep synthesis ahead of
 * the device, few enough to leave work for the other nodes. */
#define SLOTS_PER_DEVICE 4
/* Claims look for jobs whose lease ran out (no NOTIFY says so) this often. */
#define CLAIM_POLL_NS 500000000ULL
/* How long the list of key hashes a node can serve is used for claims. */
#define KEYS_FRESH_NS 1000000000ULL
/* A result wait re-reads the job at least this often. */
#define WAIT_POLL_MS 1000
/* Nodes whose heartbeat is older than this are left out of the status. */
#define NODE_FORGET_S 600
/* The statements of every job (claim, commit, renewal) are prepared once
 * per connection: planning them each time cost about as much as running
 * them (docs/PERFORMANCE.md). */
enum { PREP_NONE = -1, PREP_CLAIM, PREP_COMMIT, PREP_RENEW };

/* The foreign-row sweep: open and ended job rows whose MAC is checked
 * (besides every row a claim, submit or read meets), per pass and how
 * often. */
#define SWEEP_ROWS 500
#define SWEEP_NS 2000000000ULL
/* Job ids a submit draws from the sequence at a time (a row's MAC covers
 * its id, so a node knows it before the insert). */
#define ID_BATCH 32
/* Bytes of the fleet's secret (fleet_mac.c). */
#define FLEET_SECRET_BYTES 32

/* Connections handlers may hold at once (beyond: they wait for one). */
#define POOL_MAX 16
/* A key found unusable is looked at again after this long. */
#define KEY_RECHECK_NS 5000000000ULL

/* A partition this node claimed and handed to its engine (as a job of
 * one partition). */
typedef struct held {
    cuzkd_fleet *f;
    int64_t id; /* the fleet job */
    int idx;    /* its partition */
    int epoch;
    char request_id[CUZK_ID_MAX + 1];
    cuzk_job *job;
    uint64_t lease_ok_ns; /* when the lease was last known ours */
    int ended;            /* outcome known: commit pending */
    const char *state;    /* "done", "failed", "expired" */
    char status[32];
    char error[CUZK_ERROR_MSG_BYTES];
    int simulated;
    char *result_json;
    uint8_t *raw;
    size_t raw_len;
    struct held *next;
} held;

/* SHA-256 of a key file, by file identity. */
typedef struct key_hash {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    char sha[65];
    struct key_hash *next;
} key_hash;

/* Whether this node can prove jobs of (key id, key hash), and with what
 * engine key reference. */
typedef struct key_use {
    char key_id[CUZK_ID_MAX + 1];
    char sha[65];
    char ref[4096];
    int ok, warned;
    uint64_t checked_ns;
    struct key_use *next;
} key_use;

/* The kinds of open job this node can prove: (key id, key hash, inputs,
 * circuit) as four PostgreSQL array literals, one element per kind, which
 * the claim statement unnests (claims match the whole tuple, so a row
 * cannot borrow a servable key hash under another key or circuit). */
typedef struct servable {
    char *ids, *shas, *inputs, *circuits;
    unsigned n;
} servable;

/* A path named by job rows that this node refused (said once in the log). */
typedef struct warned {
    char *path;
    struct warned *next;
} warned;

/* What a job row's MAC covers (fleet_mac.c), as read by FLEET_MAC_COLS. */
typedef struct fleet_row {
    int64_t id;
    const char *request_id, *content_sha, *key_id, *key_path, *key_sha;
    int priority;
    long long n_partitions;
    int inputs;
    const char *circuit, *submitted_by, *client;
} fleet_row;

/* The columns fleet_row_get and fleet_row_ours read, in this order, as
 * text, the MAC last (FLEET_MAC_N columns); |p|: the table's alias and a
 * dot, or "". */
#define FLEET_MAC_COLS(p)                                                                     \
    p "id::text, " p "request_id, " p "content_sha, " p "key_id, " p "key_path, " p "key_sha, " \
    p "priority::text, " p "n_partitions::text, " p "inputs::text, " p "circuit, "          \
    p "submitted_by, " p "client, " p "mac"
#define FLEET_MAC_N 13

struct cuzkd_fleet {
    cuzkd_server *srv;
    /* the MAC key of job rows: set once, before schema_ready (fleet_mac.c) */
    uint8_t secret[FLEET_SECRET_BYTES];
    _Atomic int secret_set;
    char *conninfo;
    char node[128];
    unsigned lease_s, slots;
    pthread_t thread;
    int thread_started;
    _Atomic int stop;
    _Atomic int schema_ready;
    _Atomic int connected;

    /* handlers' connections */
    pthread_mutex_t pool_lock;
    pthread_cond_t pool_cv;
    PGconn *idle[POOL_MAX];
    unsigned n_idle, n_open;

    /* result waiters: done_gen grows on every NOTIFY of an ended job */
    pthread_mutex_t wait_lock;
    pthread_cond_t wait_cv;
    uint64_t done_gen;

    pthread_mutex_t hash_lock;
    key_hash *hashes;

    /* job ids drawn for submits, not used yet */
    pthread_mutex_t ids_lock;
    int64_t ids[ID_BATCH];
    unsigned n_ids;

    /* the fleet thread's own; wake[]: a non-blocking pipe the engine's
     * end-of-job call of a held job writes to (held_ended) */
    int wake[2];
    PGconn *conn;
    held *held;
    unsigned n_held;
    key_use *keys;
    servable serv; /* what this node can prove (claim), and when it was read */
    uint64_t serv_ns;
    warned *warned; /* row paths this node refused, said once each */
    unsigned n_warned;
    uint64_t backoff_ms, next_connect_ns, last_beat_ns, last_claim_ns, last_sweep_ns;
    int64_t sweep_from; /* the foreign-row sweep's place (job id) */
    int want_claim, want_renew, ever_connected;
    unsigned prepared; /* the statements (PREP_*) prepared on conn */

    _Atomic uint64_t claimed, committed, lost, held_now;

    /* the status snapshot */
    pthread_mutex_t snap_lock;
    json_t *nodes;        /* array */
    int64_t queued[4], running[4];
    int64_t n_foreign; /* rows moved aside as foreign */
    json_t *foreign;   /* the latest of them (array) */
    char db_error[256];
    uint64_t last_ok_ns;
    /* the database link, for status and healthz: 0 while connected, else
     * when it was last lost (or the node started), wall clock and
     * monotonic */
    time_t down_since;
    uint64_t down_since_ns;

    /* the fleet thread's: what it last said about an unreachable
     * database, and when (fleet_db_down repeats it at a modest rate) */
    char down_said[256];
    uint64_t down_said_ns;
};

/* fleet_rows.c */

/* The engine key reference this node proves jobs of (key id, key hash)
 * with, or NULL. */
const char *fleet_key_ref(cuzkd_fleet *f, const char *key_id, const char *sha);
/* The kinds of open job this node can prove, into |out|; 0 on a database
 * failure.  Rows naming what no node can use are failed on the way. */
int fleet_servable_read(cuzkd_fleet *f, servable *out);
void fleet_servable_free(servable *sv);
/* Forget the paths said once (at the node's end). */
void fleet_warned_free(cuzkd_fleet *f);

/* fleet_db.c: a nap; |src| on one line into |dst|; one SQL statement
 * with its parameters (NULL and |why| on failure) or without (0 on
 * failure); whether a connection is unusable; a new connection to the
 * fleet database (NULL and |why| on failure); the schema brought to the
 * current version on |c|; a pooled connection for the job store (waits up
 * to |until_ns| for the database) and its return. */
void fleet_sleep_ms(unsigned ms);
void fleet_oneline(char *dst, size_t n, const char *src);
PGresult *fleet_db_exec(PGconn *c, const char *sql, int n, const char *const *v, const int *len,
                        const int *fmt, int bin, char *why, size_t why_n);
int fleet_db_cmd(PGconn *c, const char *sql, char *why, size_t why_n);
int fleet_conn_bad(PGconn *c);
PGconn *fleet_db_connect(cuzkd_fleet *f, char *why, size_t why_n);
int fleet_migrate(cuzkd_fleet *f, PGconn *c, char *why, size_t why_n);
PGconn *fleet_pool_get(cuzkd_fleet *f, uint64_t until_ns, char *why, size_t why_n);
void fleet_pool_put(cuzkd_fleet *f, PGconn *c);
/* fleet_db.c: the database link's state.  fleet_db_down: not connected
 * (|why|: libpq's reason), logged at once, when the reason changes and
 * then once a minute; fleet_db_up: connected and migrated.  Both on the
 * fleet thread (or before it starts). */
void fleet_db_down(cuzkd_fleet *f, const char *why);
void fleet_db_up(cuzkd_fleet *f);
/* fleet_db.c, the node thread's connection: a statement on it (|prep|:
 * one of PREP_*, prepared on its first use on this connection; fleet_tq:
 * PREP_NONE), NULL on failure, when a broken connection is dropped
 * (fleet_db_lost: logged, backoff, reconnect later). */
PGresult *fleet_tqp(cuzkd_fleet *f, int prep, const char *what, const char *sql, int n,
                    const char *const *v, const int *len, const int *fmt, int bin);
PGresult *fleet_tq(cuzkd_fleet *f, const char *what, const char *sql, int n,
                   const char *const *v, const int *len, const int *fmt, int bin);
void fleet_db_lost(cuzkd_fleet *f, const char *what, const char *why);
/* fleet_db.c: the SHA-256 of the file at |path|, computed once per file
 * identity; 0 when it cannot be read as a regular file. */
int fleet_key_sha(cuzkd_fleet *f, const char *path, char out[65]);

/* fleet_mac.c: the MAC of a row's identity under the fleet's secret;
 * the row at |row| of |q| whose columns from |col| are FLEET_MAC_COLS, as
 * a fleet_row (its strings are |q|'s); whether that row's MAC is right
 * (1: a node wrote it).  fleet_quarantine: move the foreign row read as
 * |q|'s |row| aside on |c| (state 'foreign', a new request id, the old in
 * foreign_rid); 1 when this call did (and logged it, saying |found|).
 * fleet_secret_setup: the secret into f->secret, made first and the rows
 * written before it signed when |migrated| (the schema just reached the
 * version with MACs), in the caller's transaction. */
void fleet_mac_job(const cuzkd_fleet *f, const fleet_row *r, char out[65]);
void fleet_row_get(const PGresult *q, int row, int col, fleet_row *r);
int fleet_row_ours(const cuzkd_fleet *f, const PGresult *q, int row, int col);
int fleet_quarantine(cuzkd_fleet *f, PGconn *c, const PGresult *q, int row, int col,
                     const char *found);
int fleet_secret_setup(cuzkd_fleet *f, PGconn *c, int migrated, char *why, size_t why_n);

/* fleet_node.c's: the node thread's connection (again), and the thread. */
void fleet_try_connect(cuzkd_fleet *f);
void *fleet_node_main(void *arg);

#endif
