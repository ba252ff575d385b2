/*
 * The fleet: many cuzkd nodes on one PostgreSQL job queue (fleet.h,
 * docs/DAEMON.md "Running a fleet").
 *
 * Design.
 *   - A submit (any node) is one transaction: the job row, one row per
 *     partition holding its witness or input bytes, and a NOTIFY (a single
 *     statement for the usual one-partition job with a new id).  The
 *     client's answer comes after COMMIT, so an accepted job survives the
 *     death of the node that took it.  Request ids are unique in the table;
 *     a resubmit whose content hash (key hash, partitions, their bytes,
 *     circuit) matches attaches, any other is refused 409.
 *   - Each node's fleet thread, on a connection of its own, claims queued
 *     partitions (and running ones whose lease ran out) of open jobs with
 *     SELECT ... FOR UPDATE SKIP LOCKED, job priority first, then submit
 *     order, then partition index, only for the kinds of job it can
 *     prove (key id, key hash, inputs, circuit): a key of that id (or
 *     that path) whose file has the SHA-256 recorded at submit and, for
 *     jobs of inputs, the circuit.  Rows are input (another role may have
 *     written them): their key and circuit paths follow the rule of TCP
 *     clients (paths.c, remote_paths), and only the tables' owner may
 *     write them (migration 3).  It proves each claimed partition as an engine job of one
 *     partition (that partition's witness or input), so one job's
 *     partitions run on several nodes at once.  A claim bumps the
 *     partition's lease_epoch; its result is written by one UPDATE ...
 *     WHERE lease_owner = me AND lease_epoch = e AND state = 'running', so
 *     a node that lost its lease (killed, stopped, cut off) can never
 *     commit over the node that took the partition after it.  The same
 *     statement decrements the job row's count of partitions left; the
 *     update that takes it to zero (or records a failed partition) ends
 *     the job.  PostgreSQL re-reads a row another transaction updated
 *     before updating it, so of concurrent partition commits exactly one
 *     ends the job, and none after the job was cancelled or ended.  Every
 *     commit leaves rows in cuzk_fleet_commits (one per partition, one per
 *     job), which is how the tests see that.  The claim statement also
 *     returns the claimed partitions' bytes.  Results stay in the
 *     partition rows and are assembled in partition order when read.
 *   - Schema version 1 leased whole jobs; version 2 sends the jobs a
 *     version-1 node was proving back to the queue and forbids a lease on
 *     a job row, so a version-1 node left running claims nothing.
 *   - Leases are renewed every lease/3 (and at most every second, with the
 *     node's heartbeat row and the status snapshot).  A node that loses
 *     the database stops claiming, keeps proving what it holds until the
 *     lease it last renewed would end (then cancels it: another node may
 *     have it by then), and reconnects with backoff; finished results wait
 *     for the connection and are committed if the lease is still theirs.
 *   - The thread sleeps in poll() on the database socket (NOTIFY of new,
 *     ended and cancelled jobs) and on a pipe that a small waiter thread
 *     per held job writes to when the engine ends it, so neither a new job
 *     nor a finished one waits for a tick.  Measured (docs/PERFORMANCE.md):
 *     a 20 ms tick and a five-round-trip submit made the queue cost 24.8 ms
 *     a job at the median; now 1.8 ms (with the claim, commit and renewal
 *     statements prepared once per connection: planning them cost more
 *     than running them).
 *   - Handlers (submit, status, result, cancel) use a small pool of
 *     connections of their own; result waits sleep on a condition the
 *     fleet thread signals on NOTIFY, with a one-second poll as fallback.
 *     /v1/status and /metrics read the thread's last snapshot and never
 *     touch the database.
 *
 * Which rows a node may act on (keys, paths, circuits: the kinds of job
 * its claims match) is fleet_rows.c; what both share is fleet_int.h.
 *
 * What this file must not do: block an engine thread (the engine is only
 * called through its thread-safe API: submit, await, cancel; only the
 * waiter threads await without a limit), or hold srv->jobs_lock.  Without libpq it compiles to stubs
 * that refuse a configured fleet_db.
 */
#define _GNU_SOURCE
#include "server/fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/log.h"

#ifndef CUZK_HAVE_LIBPQ

cuzk_status cuzkd_fleet_start(cuzkd_server *srv, cuzk_error *err) {
    if (!srv->cfg->fleet_db || !srv->cfg->fleet_db[0])
        return CUZK_OK;
    return cuzk_fail(err, CUZK_EUNSUPPORTED,
                     "fleet_db is set but cuzkd was built without libpq (install libpq-dev "
                     "and rebuild)");
}
void cuzkd_fleet_stop(cuzkd_server *srv) { (void)srv; }
enum MHD_Result cuzkd_fleet_submit(cuzkd_request *r, const cuzkd_fleet_job *j) {
    (void)j;
    return http_error(r, 500, "EUNSUPPORTED", "no fleet support");
}
enum MHD_Result cuzkd_fleet_status(cuzkd_request *r) { return cuzkd_fleet_submit(r, NULL); }
enum MHD_Result cuzkd_fleet_result(cuzkd_request *r) { return cuzkd_fleet_submit(r, NULL); }
enum MHD_Result cuzkd_fleet_cancel(cuzkd_request *r) { return cuzkd_fleet_submit(r, NULL); }
json_t *cuzkd_fleet_json(cuzkd_server *srv) {
    (void)srv;
    return NULL;
}
char *cuzkd_fleet_metrics(cuzkd_server *srv) {
    (void)srv;
    return NULL;
}

#else

#include "server/fleet_int.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk_tools.h"

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

static const char *const prio_names[] = {"low", "normal", "high", "critical"};

/* ---- small helpers ----------------------------------------------------------- */

void fleet_sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void oneline(char *dst, size_t n, const char *src) {
    snprintf(dst, n, "%s", src ? src : "");
    for (char *p = dst; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    size_t l = strlen(dst);
    while (l && dst[l - 1] == ' ')
        dst[--l] = 0;
}

/* Run one statement.  |fmt|: per-parameter format (NULL: all text); |bin|:
 * binary result.  NULL on failure with the reason in |why|. */
PGresult *fleet_db_exec(PGconn *c, const char *sql, int n, const char *const *v, const int *len,
                         const int *fmt, int bin, char *why, size_t why_n) {
    PGresult *res = PQexecParams(c, sql, n, NULL, v, len, fmt, bin);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return res;
    oneline(why, why_n, res ? PQresultErrorMessage(res) : PQerrorMessage(c));
    if (!why[0])
        oneline(why, why_n, PQerrorMessage(c));
    PQclear(res);
    return NULL;
}

int fleet_db_cmd(PGconn *c, const char *sql, char *why, size_t why_n) {
    PGresult *res = fleet_db_exec(c, sql, 0, NULL, NULL, NULL, 0, why, why_n);
    PQclear(res);
    return res != NULL;
}

int fleet_conn_bad(PGconn *c) { return !c || PQstatus(c) != CONNECTION_OK; }

static PGconn *db_connect(cuzkd_fleet *f, char *why, size_t why_n) {
    const char *kw[] = {"application_name", "connect_timeout", "dbname", NULL};
    const char *val[] = {"cuzkd", "5", f->conninfo, NULL};
    PGconn *c = PQconnectdbParams(kw, val, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        oneline(why, why_n, c ? PQerrorMessage(c) : "out of memory");
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* ---- schema --------------------------------------------------------------------- */

/* Migrations: step i brings the schema from version i to i + 1.  Append
 * only; a step never changes once released. */
static const char *const migrations[] = {
    "CREATE TABLE cuzk_fleet_jobs ("
    "  id bigserial PRIMARY KEY,"
    "  request_id text NOT NULL UNIQUE,"
    "  content_sha text NOT NULL,"
    "  key_id text NOT NULL, key_path text NOT NULL, key_sha text NOT NULL,"
    "  priority int NOT NULL, deadline timestamptz,"
    "  n_partitions int NOT NULL, inputs bool NOT NULL, circuit text NOT NULL DEFAULT '',"
    "  state text NOT NULL DEFAULT 'queued',"
    "  lease_owner text, lease_epoch int NOT NULL DEFAULT 0, lease_until timestamptz,"
    "  attempts int NOT NULL DEFAULT 0,"
    "  submitted_by text NOT NULL, client text NOT NULL DEFAULT '',"
    "  done_by text, status text NOT NULL DEFAULT 'OK', error text NOT NULL DEFAULT '',"
    "  simulated bool NOT NULL DEFAULT false, result_json text, result_raw bytea,"
    "  created timestamptz NOT NULL DEFAULT now(), finished timestamptz);"
    "CREATE INDEX cuzk_fleet_jobs_open ON cuzk_fleet_jobs (priority DESC, id)"
    "  WHERE state IN ('queued', 'running');"
    "CREATE TABLE cuzk_fleet_parts ("
    "  job_id bigint NOT NULL REFERENCES cuzk_fleet_jobs (id) ON DELETE CASCADE,"
    "  idx int NOT NULL, data bytea NOT NULL, PRIMARY KEY (job_id, idx));"
    "CREATE TABLE cuzk_fleet_commits ("
    "  job_id bigint NOT NULL, node text NOT NULL, epoch int NOT NULL, state text NOT NULL,"
    "  at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX cuzk_fleet_commits_job ON cuzk_fleet_commits (job_id);"
    "CREATE TABLE cuzk_fleet_nodes ("
    "  name text PRIMARY KEY, started timestamptz NOT NULL, heartbeat timestamptz NOT NULL,"
    "  devices text NOT NULL DEFAULT '', busy real NOT NULL DEFAULT 0,"
    "  proofs bigint NOT NULL DEFAULT 0, jobs_done bigint NOT NULL DEFAULT 0,"
    "  held int NOT NULL DEFAULT 0);",
    /* 2: claims per partition.  A partition row carries its own lease and
     * result; the job row counts the partitions left.  Jobs a version-1
     * node was proving go back to the queue (its commit needs the job
     * lease, which is cleared here), and a job row can no longer take a
     * lease, so a version-1 node still running claims nothing. */
    "ALTER TABLE cuzk_fleet_parts ADD COLUMN state text NOT NULL DEFAULT 'queued',"
    "  ADD COLUMN lease_owner text, ADD COLUMN lease_epoch int NOT NULL DEFAULT 0,"
    "  ADD COLUMN lease_until timestamptz, ADD COLUMN attempts int NOT NULL DEFAULT 0,"
    "  ADD COLUMN done_by text, ADD COLUMN simulated bool NOT NULL DEFAULT false,"
    "  ADD COLUMN proof_json text, ADD COLUMN proof_raw bytea, ADD COLUMN finished timestamptz;"
    "CREATE INDEX cuzk_fleet_parts_open ON cuzk_fleet_parts (job_id, idx)"
    "  WHERE state IN ('queued', 'running');"
    "ALTER TABLE cuzk_fleet_jobs ADD COLUMN parts_left int;"
    "UPDATE cuzk_fleet_jobs SET state = 'queued', lease_until = NULL WHERE state = 'running';"
    "UPDATE cuzk_fleet_jobs SET lease_owner = NULL WHERE lease_owner IS NOT NULL;"
    "ALTER TABLE cuzk_fleet_jobs ADD CONSTRAINT cuzk_fleet_jobs_lease_per_partition"
    "  CHECK (lease_owner IS NULL);"
    "ALTER TABLE cuzk_fleet_commits ADD COLUMN idx int;",
    /* 3: only the tables' owner (the daemon's role) writes them.  Rows are
     * input that every node acts on (it opens the paths they name, proves
     * their bytes, serves their results), so no privilege is left to
     * PUBLIC, whatever the database's default privileges granted when the
     * tables were made.  Any table a later step creates must do the same. */
    "REVOKE ALL ON cuzk_fleet_schema, cuzk_fleet_jobs, cuzk_fleet_parts, cuzk_fleet_commits,"
    "  cuzk_fleet_nodes FROM PUBLIC;"
    "DO $$ BEGIN EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM PUBLIC',"
    "  pg_get_serial_sequence('cuzk_fleet_jobs', 'id')); END $$;",
};
#define SCHEMA_VERSION (int)(sizeof migrations / sizeof migrations[0])

/* Bring the schema to SCHEMA_VERSION.  Nodes starting together serialise
 * on a transaction-scoped advisory lock taken before anything is created,
 * so exactly one of them creates each object. */
static int migrate(cuzkd_fleet *f, PGconn *c, char *why, size_t why_n) {
    if (!fleet_db_cmd(c, "BEGIN", why, why_n))
        return 0;
    PGresult *res = NULL;
    int ok = fleet_db_cmd(c, "SELECT pg_advisory_xact_lock(hashtext('cuzk_fleet_schema'))", why, why_n) &&
             fleet_db_cmd(c, "CREATE TABLE IF NOT EXISTS cuzk_fleet_schema (version int NOT NULL)", why,
                    why_n) &&
             (res = fleet_db_exec(c, "SELECT coalesce(max(version), 0) FROM cuzk_fleet_schema", 0, NULL,
                            NULL, NULL, 0, why, why_n));
    int have = ok ? atoi(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    if (ok && have > SCHEMA_VERSION) {
        snprintf(why, why_n, "the fleet database has schema version %d, newer than this cuzkd's %d",
                 have, SCHEMA_VERSION);
        ok = 0;
    }
    for (int v = have; ok && v < SCHEMA_VERSION; v++) {
        char sql[96];
        snprintf(sql, sizeof sql, "INSERT INTO cuzk_fleet_schema VALUES (%d)", v + 1);
        PGresult *m = PQexec(c, migrations[v]);
        ok = m && PQresultStatus(m) == PGRES_COMMAND_OK;
        if (!ok)
            oneline(why, why_n, m ? PQresultErrorMessage(m) : PQerrorMessage(c));
        PQclear(m);
        ok = ok && fleet_db_cmd(c, sql, why, why_n);
        if (ok)
            LOG_INFO("fleet", "schema: version %d applied", v + 1);
    }
    if (ok && fleet_db_cmd(c, "COMMIT", why, why_n)) {
        atomic_store(&f->schema_ready, 1);
        return 1;
    }
    char ignore[8];
    fleet_db_cmd(c, "ROLLBACK", ignore, sizeof ignore);
    return 0;
}

/* ---- the handlers' connections ----------------------------------------------------- */

/* A connection, waiting (and reconnecting) up to |until_ns|; NULL with the
 * reason when the database stayed out of reach. */
PGconn *fleet_pool_get(cuzkd_fleet *f, uint64_t until_ns, char *why, size_t why_n) {
    unsigned backoff = BACKOFF_MIN_MS;
    for (;;) {
        PGconn *c = NULL;
        int open_new = 0;
        pthread_mutex_lock(&f->pool_lock);
        while (!f->n_idle && f->n_open >= POOL_MAX && cuzk_now_ns() < until_ns) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += 100000000L;
            if (ts.tv_nsec >= 1000000000L)
                ts.tv_sec++, ts.tv_nsec -= 1000000000L;
            pthread_cond_timedwait(&f->pool_cv, &f->pool_lock, &ts);
        }
        if (f->n_idle)
            c = f->idle[--f->n_idle];
        else if (f->n_open < POOL_MAX)
            open_new = 1, f->n_open++;
        pthread_mutex_unlock(&f->pool_lock);
        if (c)
            return c;
        if (open_new) {
            if (atomic_load(&f->schema_ready) && (c = db_connect(f, why, why_n)))
                return c;
            if (!atomic_load(&f->schema_ready))
                snprintf(why, why_n, "the fleet database is not reachable yet");
            pthread_mutex_lock(&f->pool_lock);
            f->n_open--;
            pthread_cond_signal(&f->pool_cv);
            pthread_mutex_unlock(&f->pool_lock);
        } else if (!why[0]) {
            snprintf(why, why_n, "every fleet database connection is busy");
        }
        if (cuzk_now_ns() >= until_ns || atomic_load(&f->srv->stopping))
            return NULL;
        fleet_sleep_ms(backoff);
        backoff = backoff * 2 > 1000 ? 1000 : backoff * 2;
    }
}

void fleet_pool_put(cuzkd_fleet *f, PGconn *c) {
    if (!c)
        return;
    int bad = fleet_conn_bad(c) || PQtransactionStatus(c) != PQTRANS_IDLE;
    if (bad)
        PQfinish(c);
    pthread_mutex_lock(&f->pool_lock);
    if (bad)
        f->n_open--;
    else
        f->idle[f->n_idle++] = c;
    pthread_cond_signal(&f->pool_cv);
    pthread_mutex_unlock(&f->pool_lock);
}

/* ---- key hashes ------------------------------------------------------------------------ */

/* Job rows are input (another database role may have written them): a
 * key path in one is opened without blocking and only as a regular file,
 * as the HTTP API does (paths.c), so that /dev/zero or a FIFO named as a
 * key cannot hang or spin the node. */
static int hash_file(const char *path, char out[65]) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return 0;
    FILE *fp = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (!fp) {
        close(fd);
        return 0;
    }
    cuzk_sha256 s;
    cuzk_sha256_init(&s);
    static __thread uint8_t buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        cuzk_sha256_update(&s, buf, n);
    int ok = !ferror(fp);
    fclose(fp);
    uint8_t d[32];
    cuzk_sha256_final(&s, d);
    cuzk_sha256_to_hex(out, d);
    return ok;
}

/* The SHA-256 of the file at |path|, computed once per file identity
 * (device, inode, size, mtime): a key is hashed when first used, not on
 * every submit. */
int fleet_key_sha(cuzkd_fleet *f, const char *path, char out[65]) {
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    pthread_mutex_lock(&f->hash_lock);
    for (key_hash *h = f->hashes; h; h = h->next)
        if (!strcmp(h->path, path) && h->dev == sb.st_dev && h->ino == sb.st_ino &&
            h->size == sb.st_size && h->mtime.tv_sec == sb.st_mtim.tv_sec &&
            h->mtime.tv_nsec == sb.st_mtim.tv_nsec) {
            memcpy(out, h->sha, 65);
            pthread_mutex_unlock(&f->hash_lock);
            return 1;
        }
    pthread_mutex_unlock(&f->hash_lock);
    if (!hash_file(path, out))
        return 0;
    key_hash *h = calloc(1, sizeof *h);
    if (h && (h->path = strdup(path))) {
        h->dev = sb.st_dev, h->ino = sb.st_ino, h->size = sb.st_size, h->mtime = sb.st_mtim;
        memcpy(h->sha, out, 65);
        pthread_mutex_lock(&f->hash_lock);
        h->next = f->hashes;
        f->hashes = h;
        pthread_mutex_unlock(&f->hash_lock);
    } else {
        free(h);
    }
    return 1;
}

/* ---- the fleet thread: keys ---------------------------------------------------------------- */

/* ---- the fleet thread: results -------------------------------------------------------------- */

/* The proof of a one-partition engine job as the element of a result's
 * "proofs" array: {"proof":...,"public":...}. */
static char *proofs_json(cuzk_job *job) {
    size_t n = cuzk_job_partitions(job), cap = 256, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *pj = cuzk_job_proof_json(job, i), *pub = cuzk_job_public_json(job, i);
        if (!pj || !pub) {
            free(s);
            return NULL;
        }
        size_t need = len + strlen(pj) + strlen(pub) + 32;
        if (need > cap) {
            char *ns = realloc(s, cap = need * 2);
            if (!ns) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        len += (size_t)sprintf(s + len, "%s{\"proof\":%s,\"public\":%s}", i ? "," : "", pj, pub);
    }
    s[len] = 0;
    return s;
}

/* The proofs in the raw form of GET .../result?format=raw (docs/API.md). */
static uint8_t *proofs_raw(cuzk_job *job, size_t *len) {
    size_t n = cuzk_job_partitions(job);
    uint8_t *buf = malloc(n * CUZK_PROOF_BYTES_MAX + 1), *p = buf;
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t one;
        if (cuzkd_proof_raw(p, &one, job, i, NULL) != CUZK_OK) {
            free(buf);
            return NULL;
        }
        p += one;
    }
    *len = (size_t)(p - buf);
    return buf;
}

/* One per held job: the fleet thread learns of the job's end at once
 * instead of at its next tick. */
static void *waiter_main(void *arg) {
    held *h = arg;
    cuzk_job_await(h->job, -1, NULL);
    ssize_t w = write(h->f->wake[1], "x", 1);
    (void)w; /* a full pipe already says "look" */
    return NULL;
}

/* Free |h|; a job not ended yet must have been cancelled. */
static void held_free(held *h) {
    if (h->waiter_started)
        pthread_join(h->waiter, NULL);
    if (h->job)
        cuzk_job_release(h->job);
    free(h->result_json);
    free(h->raw);
    free(h);
}

/* Unlink |h| from the held list (the caller frees it). */
static void held_unlink(cuzkd_fleet *f, held *h) {
    for (held **pp = &f->held; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            f->n_held--;
            atomic_store(&f->held_now, f->n_held);
            return;
        }
}

/* Set |h|'s outcome for the commit. */
static void set_outcome(held *h, const char *state, cuzk_status s, const char *msg) {
    h->ended = 1;
    h->state = state;
    snprintf(h->status, sizeof h->status, "%s", cuzk_status_name(s));
    oneline(h->error, sizeof h->error, msg);
}

/* Look at every held job's engine outcome (no waiting).  A job cancelled
 * here was cancelled by this thread (lease lost, client cancel, stop) and
 * was dropped then; the engine ends nothing by itself as cancelled. */
static void poll_held(cuzkd_fleet *f) {
    for (held *h = f->held; h; h = h->next) {
        if (h->ended)
            continue;
        cuzk_error err = {0};
        cuzk_status s = cuzk_job_await(h->job, 0, &err);
        if (s == CUZK_EBUSY)
            continue;
        cuzk_job_info info;
        cuzk_job_status(h->job, &info, NULL, 0);
        if (s == CUZK_OK) {
            set_outcome(h, "done", s, "");
            h->simulated = info.simulated;
            if (!h->simulated && (!(h->result_json = proofs_json(h->job)) ||
                                  !(h->raw = proofs_raw(h->job, &h->raw_len)))) {
                free(h->result_json);
                h->result_json = NULL;
                set_outcome(h, "failed", CUZK_EINTERNAL, "the proofs could not be serialized");
            }
        } else if (s == CUZK_ETIMEOUT) {
            set_outcome(h, "expired", s, err.msg[0] ? err.msg : "the deadline passed");
        } else if (s == CUZK_ECANCELLED) {
            /* the engine shutting down: leave the job to the lease */
            set_outcome(h, NULL, s, err.msg);
        } else {
            set_outcome(h, "failed", s, err.msg);
        }
    }
}

/* ---- the fleet thread: database work ---------------------------------------------------------- */

static void db_lost(cuzkd_fleet *f, const char *what, const char *why) {
    if (f->conn) {
        LOG_WARN("fleet", "database connection lost (%s: %s): not claiming; %u job(s) held until "
                 "their leases would end; reconnecting", what, why, f->n_held);
        PQfinish(f->conn);
        f->conn = NULL;
    }
    atomic_store(&f->connected, 0);
    pthread_mutex_lock(&f->snap_lock);
    snprintf(f->db_error, sizeof f->db_error, "%s: %s", what, why);
    pthread_mutex_unlock(&f->snap_lock);
    f->next_connect_ns = cuzk_now_ns() + f->backoff_ms * 1000000ULL;
    f->backoff_ms = f->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : f->backoff_ms * 2;
}

/* The statements of every job (claim, commit, renewal) are prepared once
 * per connection: planning them each time cost about as much as running
 * them (docs/PERFORMANCE.md). */
enum { PREP_NONE = -1, PREP_CLAIM, PREP_COMMIT, PREP_RENEW };

/* A statement on the thread's connection (|prep|: one of PREP_*, prepared
 * on its first use on this connection); on failure the connection is
 * dropped if it broke.  NULL on failure. */
static PGresult *tqp(cuzkd_fleet *f, int prep, const char *what, const char *sql, int n,
                     const char *const *v, const int *len, const int *fmt, int bin) {
    char why[256] = "", name[16];
    if (!f->conn)
        return NULL;
    PGresult *res = NULL;
    if (prep == PREP_NONE) {
        res = fleet_db_exec(f->conn, sql, n, v, len, fmt, bin, why, sizeof why);
    } else {
        snprintf(name, sizeof name, "cuzk_fleet_%d", prep);
        if (!(f->prepared & (1u << prep))) {
            PGresult *p = PQprepare(f->conn, name, sql, n, NULL);
            if (p && PQresultStatus(p) == PGRES_COMMAND_OK)
                f->prepared |= 1u << prep;
            else
                oneline(why, sizeof why, p ? PQresultErrorMessage(p) : PQerrorMessage(f->conn));
            PQclear(p);
        }
        if (f->prepared & (1u << prep)) {
            res = PQexecPrepared(f->conn, name, n, v, len, fmt, bin);
            ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
            if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
                oneline(why, sizeof why,
                        res ? PQresultErrorMessage(res) : PQerrorMessage(f->conn));
                PQclear(res);
                res = NULL;
            }
        }
    }
    if (!res) {
        if (fleet_conn_bad(f->conn))
            db_lost(f, what, why);
        else
            LOG_WARN("fleet", "%s: %s", what, why);
    }
    return res;
}

PGresult *fleet_tq(cuzkd_fleet *f, const char *what, const char *sql, int n,
                    const char *const *v, const int *len, const int *fmt, int bin) {
    return tqp(f, PREP_NONE, what, sql, n, v, len, fmt, bin);
}

/* Commit ended partitions.  A commit that matches no row means the lease
 * is gone (the job cancelled, ended by another partition, or this one
 * taken over by another node): the result is dropped.  The job row's
 * UPDATE counts the partitions left; PostgreSQL re-reads a row updated
 * concurrently before it updates it again, so of two partitions committed
 * at once only one sees the count reach zero (or the job still open), and
 * the job ends exactly once, in the transaction of that partition. */
static void commit_ended(cuzkd_fleet *f) {
    for (held *h = f->held, *next; h && f->conn; h = next) {
        next = h->next;
        if (!h->ended)
            continue;
        if (!h->state) { /* cancelled by the engine's end: the lease decides */
            held_unlink(f, h);
            held_free(h);
            continue;
        }
        char id[24], ep[16], ix[16];
        snprintf(id, sizeof id, "%lld", (long long)h->id);
        snprintf(ep, sizeof ep, "%d", h->epoch);
        snprintf(ix, sizeof ix, "%d", h->idx);
        const char *v[10] = {id, ep, f->node, h->state, h->status, h->error,
                             h->simulated ? "t" : "f", h->result_json, (const char *)h->raw, ix};
        int len[10] = {0, 0, 0, 0, 0, 0, 0, 0, (int)h->raw_len, 0};
        int fmt[10] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
#define LAST "coalesce(parts_left, n_partitions) <= 1"
        PGresult *res = tqp(
            f, PREP_COMMIT, "commit",
            "WITH u AS (UPDATE cuzk_fleet_parts SET state = $4, simulated = $7::bool,"
            "  proof_json = $8, proof_raw = $9::bytea, done_by = $3, finished = now(),"
            "  lease_until = NULL, data = ''::bytea"
            "  WHERE job_id = $1::bigint AND idx = $10::int AND lease_epoch = $2::int"
            "  AND lease_owner = $3 AND state = 'running' AND EXISTS (SELECT 1 FROM"
            "  cuzk_fleet_jobs WHERE id = $1::bigint AND state IN ('queued', 'running'))"
            "  RETURNING job_id),"
            " j AS (UPDATE cuzk_fleet_jobs SET parts_left = coalesce(parts_left, n_partitions) - 1,"
            "  state = CASE WHEN $4 <> 'done' THEN $4 WHEN " LAST " THEN 'done' ELSE state END,"
            "  status = CASE WHEN $4 <> 'done' THEN $5 ELSE status END,"
            "  error = CASE WHEN $4 <> 'done' THEN $6 ELSE error END,"
            "  simulated = simulated OR $7::bool,"
            "  done_by = CASE WHEN $4 <> 'done' OR " LAST " THEN $3 ELSE done_by END,"
            "  finished = CASE WHEN $4 <> 'done' OR " LAST " THEN now() END"
            "  WHERE id IN (SELECT job_id FROM u) AND state IN ('queued', 'running')"
            "  RETURNING id, state),"
            " c AS (INSERT INTO cuzk_fleet_commits (job_id, idx, node, epoch, state)"
            "  SELECT id, $10::int, $3, $2::int, $4 FROM j UNION ALL"
            "  SELECT id, NULL, $3, $2::int, state FROM j WHERE state NOT IN ('queued', 'running'))"
            " SELECT count(*), (SELECT pg_notify('cuzk_fleet', 'd') FROM j"
            "  WHERE state NOT IN ('queued', 'running')) FROM j",
            10, v, len, fmt, 0);
#undef LAST
        if (!res) {
            if (!f->conn)
                return; /* retried after the reconnect */
            /* a statement error that is not the connection: give up on it */
            held_unlink(f, h);
            held_free(h);
            continue;
        }
        int ok = atoi(PQgetvalue(res, 0, 0)) == 1;
        PQclear(res);
        if (ok) {
            atomic_fetch_add(&f->committed, 1);
            pthread_mutex_lock(&f->wait_lock);
            f->done_gen++;
            pthread_cond_broadcast(&f->wait_cv);
            pthread_mutex_unlock(&f->wait_lock);
            LOG_DEBUG("fleet", "job %s partition %d %s (epoch %d)", h->request_id, h->idx,
                      h->state, h->epoch);
        } else {
            atomic_fetch_add(&f->lost, 1);
            LOG_INFO("fleet", "job %s partition %d: lease %d no longer ours (cancelled, ended, "
                     "or taken over after it ran out): result dropped", h->request_id, h->idx,
                     h->epoch);
        }
        held_unlink(f, h);
        held_free(h);
    }
}

/* Hand back the lease of |h| (the partition goes back to the queue). */
static void release_lease(cuzkd_fleet *f, held *h) {
    char id[24], ep[16], ix[16];
    snprintf(id, sizeof id, "%lld", (long long)h->id);
    snprintf(ep, sizeof ep, "%d", h->epoch);
    snprintf(ix, sizeof ix, "%d", h->idx);
    const char *v[4] = {id, ep, f->node, ix};
    PGresult *res = fleet_tq(f, "release",
                       "WITH u AS (UPDATE cuzk_fleet_parts SET state = 'queued', lease_owner = NULL,"
                       "  lease_until = NULL WHERE job_id = $1::bigint AND idx = $4::int"
                       "  AND lease_epoch = $2::int AND lease_owner = $3 AND state = 'running'"
                       "  RETURNING job_id)"
                       " SELECT (SELECT pg_notify('cuzk_fleet', 'n') FROM u LIMIT 1)",
                       4, v, NULL, NULL, 0);
    PQclear(res);
}

/* Renew the leases of every held partition.  A running one whose lease
 * is no longer ours (its job cancelled or ended, or the partition taken
 * over after its lease ran out) is cancelled in the engine and dropped. */

/* A held partition that is no longer this node's: stop its engine job and
 * forget it (counted as lost). */
static void drop_lost(cuzkd_fleet *f, held *h) {
    cuzk_job_cancel(h->job);
    atomic_fetch_add(&f->lost, 1);
    held_unlink(f, h);
    held_free(h);
}

static void renew(cuzkd_fleet *f) {
    if (!f->held)
        return;
    size_t cap = 16 + (size_t)f->n_held * 24;
    char *ids = malloc(cap), *idxs = malloc(cap), lease[16];
    if (!ids || !idxs) {
        free(ids);
        free(idxs);
        return;
    }
    size_t len = 0, ilen = 0;
    ids[len++] = '{';
    idxs[ilen++] = '{';
    for (held *h = f->held; h; h = h->next) {
        len += (size_t)snprintf(ids + len, cap - len, "%s%lld", len > 1 ? "," : "",
                                (long long)h->id);
        ilen += (size_t)snprintf(idxs + ilen, cap - ilen, "%s%d", ilen > 1 ? "," : "", h->idx);
    }
    snprintf(ids + len, cap - len, "}");
    snprintf(idxs + ilen, cap - ilen, "}");
    snprintf(lease, sizeof lease, "%u", f->lease_s);
    const char *v[4] = {f->node, lease, ids, idxs};
    PGresult *res = tqp(f, PREP_RENEW, "lease renewal",
                       "UPDATE cuzk_fleet_parts p SET lease_until = now() + $2::int * interval '1 s'"
                       " FROM cuzk_fleet_jobs j WHERE j.id = p.job_id"
                       " AND j.state IN ('queued', 'running') AND p.lease_owner = $1"
                       " AND p.state = 'running' AND (p.job_id, p.idx) IN"
                       " (SELECT * FROM unnest($3::bigint[], $4::int[]))"
                       " RETURNING p.job_id, p.idx, p.lease_epoch",
                       4, v, NULL, NULL, 0);
    free(ids);
    free(idxs);
    if (!res)
        return;
    uint64_t now = cuzk_now_ns();
    for (held *h = f->held, *next; h; h = next) {
        next = h->next;
        int mine = 0;
        for (int i = 0; i < PQntuples(res) && !mine; i++)
            mine = atoll(PQgetvalue(res, i, 0)) == h->id && atoi(PQgetvalue(res, i, 1)) == h->idx &&
                   atoi(PQgetvalue(res, i, 2)) == h->epoch;
        if (mine) {
            h->lease_ok_ns = now;
            continue;
        }
        if (h->ended && h->state) {
            /* its commit will find out; keep it for that */
            continue;
        }
        LOG_INFO("fleet", "job %s: no longer ours (cancelled, ended, or partition %d taken "
                 "over): stopping it", h->request_id, h->idx);
        drop_lost(f, h);
    }
    PQclear(res);
}

/* Without a database, a held job is proved only while the lease last
 * renewed would still hold. */
static void expire_unrenewed(cuzkd_fleet *f) {
    uint64_t now = cuzk_now_ns(), lease = (uint64_t)f->lease_s * 1000000000ULL;
    for (held *h = f->held, *next; h; h = next) {
        next = h->next;
        if (h->ended || now - h->lease_ok_ns < lease)
            continue;
        LOG_WARN("fleet", "job %s partition %d: lease ran out without the database: stopping "
                 "it (another node may prove it)", h->request_id, h->idx);
        drop_lost(f, h);
    }
}

static void release_free(void *ctx, const void *data) {
    (void)data;
    free(ctx);
}

/* Prove a claimed partition (row |row| of the claim; its bytes in column
 * 11) as an engine job of one partition. */
static void start_claimed(cuzkd_fleet *f, PGresult *cl, int row) {
    held *h = calloc(1, sizeof *h);
    if (!h)
        return;
    h->f = f;
    h->id = atoll(PQgetvalue(cl, row, 0));
    h->epoch = atoi(PQgetvalue(cl, row, 1));
    snprintf(h->request_id, sizeof h->request_id, "%s", PQgetvalue(cl, row, 2));
    h->lease_ok_ns = cuzk_now_ns();
    const char *key_id = PQgetvalue(cl, row, 3), *sha = PQgetvalue(cl, row, 4);
    int prio = atoi(PQgetvalue(cl, row, 5)) & 3, inputs = PQgetvalue(cl, row, 6)[0] == 't';
    const char *circuit = PQgetvalue(cl, row, 7);
    h->idx = atoi(PQgetvalue(cl, row, 8));
    long long left = atoll(PQgetvalue(cl, row, 9));
    h->next = f->held;
    f->held = h;
    f->n_held++;
    atomic_store(&f->held_now, f->n_held);
    atomic_fetch_add(&f->claimed, 1);
    const char *ref = fleet_key_ref(f, key_id, sha);
    if (left == 0) {
        set_outcome(h, "expired", CUZK_ETIMEOUT, "the deadline passed before a node took the job");
        return;
    }
    if (!ref) { /* checked before the claim; changed since */
        release_lease(f, h);
        held_unlink(f, h);
        held_free(h);
        return;
    }
    const int n = 1;
    if (PQgetisnull(cl, row, 10)) {
        set_outcome(h, "failed", CUZK_EINTERNAL, "the partition's witness is missing");
        return;
    }
    cuzk_witness *w = calloc((size_t)n, sizeof *w);
    int ok = w != NULL;
    for (int i = 0; ok && i < n; i++) {
        size_t len = (size_t)PQgetlength(cl, row + i, 10);
        if (inputs) {
            w[i].input_json = PQgetvalue(cl, row + i, 10);
            w[i].input_len = len;
        } else {
            void *copy = malloc(len ? len : 1);
            ok = copy != NULL;
            if (ok) {
                memcpy(copy, PQgetvalue(cl, row + i, 10), len);
                w[i].data = copy;
                w[i].size = len;
                w[i].release = release_free;
                w[i].release_ctx = copy;
            }
        }
    }
    char local_id[CUZK_ID_MAX + 1];
    snprintf(local_id, sizeof local_id, "fleet.%lld.%d.%d", (long long)h->id, h->idx, h->epoch);
    cuzk_submit_opts o = {.key = ref,
                          .request_id = local_id,
                          .priority = (cuzk_priority)prio,
                          .deadline_ms = left > 0 ? (uint64_t)left : 0,
                          .witnesses = w,
                          .n_witnesses = (size_t)n,
                          .circuit = circuit[0] ? circuit : NULL};
    cuzk_error err = {0};
    int attached = 0;
    cuzk_status s = ok ? cuzk_submit(f->srv->engine, &h->job, &attached, &o, &err)
                       : cuzk_fail(&err, CUZK_ENOMEM, "out of memory");
    if ((s != CUZK_OK || attached) && w)
        for (int i = 0; i < n; i++)
            if (w[i].release)
                free((void *)w[i].data);
    free(w);
    if (s == CUZK_OK) {
        h->waiter_started = pthread_create(&h->waiter, NULL, waiter_main, h) == 0;
        LOG_DEBUG("fleet", "job %s partition %d claimed (epoch %d)", h->request_id, h->idx,
                  h->epoch);
        return;
    }
    if (s == CUZK_EBUSY || s == CUZK_ENOMEM || s == CUZK_ECANCELLED) {
        LOG_INFO("fleet", "job %s partition %d: not taken here (%s: %s): back to the queue",
                 h->request_id, h->idx, cuzk_status_name(s), err.msg);
        release_lease(f, h);
        held_unlink(f, h);
        held_free(h);
        return;
    }
    set_outcome(h, "failed", s, err.msg);
}

/* Claim what this node has room for.  The kinds of job it can serve are
 * kept for a second (a claim is then one statement); a claim that finds
 * nothing with a list not fresh from the database looks again with a
 * fresh one, so a job of a key new to the queue waits no longer. */
static void claim(cuzkd_fleet *f) {
    f->want_claim = 0; /* set again below when more may be waiting */
    for (int round = 0; round < 2 && f->conn && f->n_held < f->slots; round++) {
        uint64_t now = cuzk_now_ns();
        int fresh = 0;
        if (!f->serv.ids || now - f->serv_ns > KEYS_FRESH_NS) {
            fleet_servable_free(&f->serv);
            if (!fleet_servable_read(f, &f->serv))
                return;
            f->serv_ns = now;
            fresh = 1;
        }
        if (!f->serv.n) {
            if (fresh)
                return;
            f->serv_ns = 0;
            continue;
        }
        char lease[16], lim[16];
        unsigned asked = f->slots - f->n_held;
        snprintf(lease, sizeof lease, "%u", f->lease_s);
        snprintf(lim, sizeof lim, "%u", asked);
        const char *v[7] = {f->node,        lease,           f->serv.shas,   lim,
                            f->serv.ids, f->serv.inputs, f->serv.circuits};
        /* The claim of partitions of open jobs (job priority, then
         * submit order, then partition index), their bytes, and the
         * first claim's mark of the job as running, in one statement; the
         * result is binary (the partitions' bytes as they are), so every
         * other column is sent as text. */
        PGresult *cl = tqp(
            f, PREP_CLAIM, "claim",
            "WITH c AS (SELECT p.job_id, p.idx FROM cuzk_fleet_parts p"
            "  JOIN cuzk_fleet_jobs j ON j.id = p.job_id"
            "  WHERE j.state IN ('queued', 'running') AND (j.key_id, j.key_sha, j.inputs,"
            "  j.circuit) IN (SELECT * FROM unnest($5::text[], $3::text[], $6::bool[],"
            "  $7::text[]))"
            "  AND (p.state = 'queued' OR (p.state = 'running' AND p.lease_until < now()))"
            "  ORDER BY j.priority DESC, j.created, j.id, p.idx LIMIT $4::int"
            "  FOR UPDATE OF p SKIP LOCKED),"
            " u AS (UPDATE cuzk_fleet_parts p SET state = 'running', lease_owner = $1,"
            "  lease_epoch = p.lease_epoch + 1, lease_until = now() + $2::int * interval '1 s',"
            "  attempts = p.attempts + 1"
            "  FROM c WHERE p.job_id = c.job_id AND p.idx = c.idx"
            "  RETURNING p.job_id, p.idx, p.lease_epoch, p.data),"
            " r AS (UPDATE cuzk_fleet_jobs j SET state = 'running', attempts = j.attempts + 1"
            "  WHERE j.id IN (SELECT job_id FROM u) AND j.state = 'queued')"
            " SELECT j.id::text, u.lease_epoch::text, j.request_id, j.key_id, j.key_sha,"
            "  j.priority::text, j.inputs::text, j.circuit, u.idx::text,"
            "  (CASE WHEN j.deadline IS NULL THEN -1 ELSE greatest(0,"
            "  (extract(epoch FROM j.deadline - now()) * 1000)::bigint) END)::text, u.data"
            " FROM u JOIN cuzk_fleet_jobs j ON j.id = u.job_id"
            " ORDER BY j.priority DESC, j.created, j.id, u.idx",
            7, v, NULL, NULL, 1);
        if (!cl)
            return;
        unsigned got = 0;
        for (int i = 0; i < PQntuples(cl); i++, got++)
            start_claimed(f, cl, i);
        PQclear(cl);
        f->want_claim = got == asked; /* the queue may hold more */
        if (got || fresh)
            return;
        f->serv_ns = 0; /* nothing with an old list: look again with a fresh one */
    }
}

/* Heartbeat row, expired deadlines, status snapshot. */
static void beat(cuzkd_fleet *f) {
    cuzk_engine_status st;
    cuzk_engine_status_get(f->srv->engine, &st);
    char devs[256] = "", busy[32], proofs[24], done[24], held_s[16];
    double b = 0;
    unsigned nd = 0;
    for (unsigned i = 0; i < st.n_devices; i++) {
        size_t n = strlen(devs);
        snprintf(devs + n, sizeof devs - n, "%s%s", n ? "," : "", st.devices[i].name);
        if (!st.devices[i].fallback_only)
            b += st.devices[i].busy_s, nd++;
    }
    double up = st.uptime_ns / 1e9;
    snprintf(busy, sizeof busy, "%.4f", nd && up > 0 ? b / (up * nd) : 0.0);
    snprintf(proofs, sizeof proofs, "%llu", (unsigned long long)st.proofs);
    snprintf(done, sizeof done, "%llu", (unsigned long long)atomic_load(&f->committed));
    snprintf(held_s, sizeof held_s, "%u", f->n_held);
    const char *v[6] = {f->node, devs, busy, proofs, done, held_s};
    PGresult *res = fleet_tq(f, "heartbeat",
                       "INSERT INTO cuzk_fleet_nodes (name, started, heartbeat, devices, busy,"
                       " proofs, jobs_done, held) VALUES ($1, now(), now(), $2, $3::real,"
                       " $4::bigint, $5::bigint, $6::int) ON CONFLICT (name) DO UPDATE SET"
                       " heartbeat = now(), devices = $2, busy = $3::real, proofs = $4::bigint,"
                       " jobs_done = $5::bigint, held = $6::int",
                       6, v, NULL, NULL, 0);
    PQclear(res);
    res = fleet_tq(f, "deadlines",
             "WITH u AS (UPDATE cuzk_fleet_jobs SET state = 'expired', status = 'ETIMEOUT',"
             "  error = 'the deadline passed before a node took the job', finished = now(),"
             "  lease_until = NULL WHERE deadline < now() AND state IN ('queued', 'running')"
             "  AND NOT EXISTS (SELECT 1 FROM cuzk_fleet_parts p WHERE p.job_id = cuzk_fleet_jobs.id"
             "  AND p.state = 'running' AND p.lease_until >= now()) RETURNING id)"
             " SELECT count(*), (SELECT pg_notify('cuzk_fleet', 'd') FROM u LIMIT 1) FROM u",
             0, NULL, NULL, NULL, 0);
    PQclear(res);
    char forget[16];
    snprintf(forget, sizeof forget, "%d", NODE_FORGET_S);
    const char *fv = forget;
    PGresult *nodes = fleet_tq(f, "status",
                         "SELECT name, extract(epoch FROM now() - heartbeat), devices, busy,"
                         " proofs, jobs_done, held FROM cuzk_fleet_nodes"
                         " WHERE heartbeat > now() - $1::int * interval '1 s' ORDER BY name",
                         1, &fv, NULL, NULL, 0);
    PGresult *queue = nodes ? fleet_tq(f, "status",
                                 "SELECT priority, count(*) FILTER (WHERE state = 'queued'),"
                                 " count(*) FILTER (WHERE state = 'running')"
                                 " FROM cuzk_fleet_jobs WHERE state IN ('queued', 'running')"
                                 " GROUP BY priority",
                                 0, NULL, NULL, NULL, 0)
                            : NULL;
    if (nodes && queue) {
        json_t *a = json_array();
        for (int i = 0; i < PQntuples(nodes); i++) {
            double age = atof(PQgetvalue(nodes, i, 1));
            json_array_append_new(
                a, json_pack("{s:o, s:f, s:b, s:o, s:f, s:I, s:I, s:i}", "name",
                             jtext(PQgetvalue(nodes, i, 0)), "heartbeat_s_ago", age, "alive",
                             age < 3.0 * f->lease_s, "devices", jtext(PQgetvalue(nodes, i, 2)),
                             "busy", atof(PQgetvalue(nodes, i, 3)), "proofs",
                             (json_int_t)atoll(PQgetvalue(nodes, i, 4)), "jobs_done",
                             (json_int_t)atoll(PQgetvalue(nodes, i, 5)), "held",
                             atoi(PQgetvalue(nodes, i, 6))));
        }
        pthread_mutex_lock(&f->snap_lock);
        json_decref(f->nodes);
        f->nodes = a;
        memset(f->queued, 0, sizeof f->queued);
        memset(f->running, 0, sizeof f->running);
        for (int i = 0; i < PQntuples(queue); i++) {
            int p = atoi(PQgetvalue(queue, i, 0)) & 3;
            f->queued[p] = atoll(PQgetvalue(queue, i, 1));
            f->running[p] = atoll(PQgetvalue(queue, i, 2));
        }
        f->last_ok_ns = cuzk_now_ns();
        f->db_error[0] = 0;
        pthread_mutex_unlock(&f->snap_lock);
    }
    PQclear(nodes);
    PQclear(queue);
}

/* (Re)connect: LISTEN, schema, and on the first connection the leases a
 * previous process of this node name left. */
static void try_connect(cuzkd_fleet *f) {
    char why[256] = "";
    PGconn *c = db_connect(f, why, sizeof why);
    if (c && (!migrate(f, c, why, sizeof why) || !fleet_db_cmd(c, "LISTEN cuzk_fleet", why, sizeof why))) {
        PQfinish(c);
        c = NULL;
    }
    if (!c) {
        if (f->backoff_ms == BACKOFF_MIN_MS || f->backoff_ms >= BACKOFF_MAX_MS)
            LOG_WARN("fleet", "cannot reach the fleet database: %s (retrying)", why);
        f->conn = NULL;
        pthread_mutex_lock(&f->snap_lock);
        snprintf(f->db_error, sizeof f->db_error, "%s", why);
        pthread_mutex_unlock(&f->snap_lock);
        f->next_connect_ns = cuzk_now_ns() + f->backoff_ms * 1000000ULL;
        f->backoff_ms = f->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : f->backoff_ms * 2;
        return;
    }
    f->conn = c;
    f->prepared = 0;
    f->backoff_ms = BACKOFF_MIN_MS;
    atomic_store(&f->connected, 1);
    if (!f->ever_connected) {
        const char *v = f->node;
        PGresult *res = fleet_tq(f, "orphans",
                           "UPDATE cuzk_fleet_parts SET state = 'queued', lease_owner = NULL,"
                           " lease_until = NULL WHERE lease_owner = $1 AND state = 'running'",
                           1, &v, NULL, NULL, 0);
        if (res && atoi(PQcmdTuples(res)) > 0)
            LOG_INFO("fleet", "%s partition(s) held by an earlier process of node %s: back to the queue",
                     PQcmdTuples(res), f->node);
        PQclear(res);
        LOG_INFO("fleet", "node %s joined the fleet (lease %u s, up to %u job(s) at once)",
                 f->node, f->lease_s, f->slots);
    } else {
        LOG_INFO("fleet", "database connection back: %u job(s) held", f->n_held);
    }
    f->ever_connected = 1;
    f->want_claim = f->want_renew = 1;
    f->last_beat_ns = 0;
}

/* Wait up to |ms| for a held job to end, or a notification; handle the
 * notifications that came. */
static void wait_events(cuzkd_fleet *f, unsigned ms) {
    /* Notifications read along with a statement's result wait in libpq,
     * not on the socket: look there before sleeping on the socket. */
    PGnotify *n = f->conn ? PQnotifies(f->conn) : NULL;
    struct pollfd p[2] = {{.fd = f->wake[0], .events = POLLIN},
                          {.fd = f->conn ? PQsocket(f->conn) : -1, .events = POLLIN}};
    if (!n)
        poll(p, 2, (int)ms);
    char buf[64];
    while (read(f->wake[0], buf, sizeof buf) > 0) {
    }
    if (!f->conn)
        return;
    if (!PQconsumeInput(f->conn)) {
        PQfreemem(n);
        char why[256];
        oneline(why, sizeof why, PQerrorMessage(f->conn));
        db_lost(f, "notifications", why);
        return;
    }
    int done = 0;
    for (; n; n = PQnotifies(f->conn)) {
        if (n->extra[0] == 'n')
            f->want_claim = 1;
        else if (n->extra[0] == 'c')
            f->want_renew = done = 1;
        else
            done = 1;
        PQfreemem(n);
    }
    if (done) {
        pthread_mutex_lock(&f->wait_lock);
        f->done_gen++;
        pthread_cond_broadcast(&f->wait_cv);
        pthread_mutex_unlock(&f->wait_lock);
    }
}

static void *fleet_main(void *arg) {
    cuzkd_fleet *f = arg;
    cuzkd_server *srv = f->srv;
    uint64_t beat_ns = (uint64_t)f->lease_s * 1000000000ULL / 3;
    if (beat_ns > 1000000000ULL)
        beat_ns = 1000000000ULL;
    while (!atomic_load(&f->stop)) {
        uint64_t now = cuzk_now_ns();
        if (!f->conn && now >= f->next_connect_ns)
            try_connect(f);
        poll_held(f);
        if (!f->conn) {
            expire_unrenewed(f);
            wait_events(f, 50);
            continue;
        }
        commit_ended(f);
        now = cuzk_now_ns();
        if (f->conn && (f->want_renew || now - f->last_beat_ns >= beat_ns)) {
            f->want_renew = 0;
            renew(f);
            if (f->conn)
                beat(f);
            f->last_beat_ns = now;
        }
        int may_claim = atomic_load(&srv->ready) && !atomic_load(&srv->draining);
        /* On a NOTIFY of a new job (kept while all slots are taken), after
         * a claim that filled every free slot, and twice a second for
         * leases that ran out. */
        if (f->conn && may_claim && f->n_held < f->slots &&
            (f->want_claim || now - f->last_claim_ns >= CLAIM_POLL_NS)) {
            f->last_claim_ns = now;
            claim(f);
        }
        wait_events(f, f->want_claim && f->n_held < f->slots ? 0 : TICK_MS);
    }
    /* Stopping: commit what ended; hand back the rest. */
    poll_held(f);
    if (f->conn)
        commit_ended(f);
    for (held *h = f->held, *next; h; h = next) {
        next = h->next;
        if (!h->ended || !h->state)
            cuzk_job_cancel(h->job);
        if (f->conn)
            release_lease(f, h);
        held_unlink(f, h);
        held_free(h);
    }
    if (f->conn) {
        beat(f);
        PQfinish(f->conn);
        f->conn = NULL;
    }
    return NULL;
}

/* ---- start, stop, status ------------------------------------------------------------------ */

cuzk_status cuzkd_fleet_start(cuzkd_server *srv, cuzk_error *err) {
    const cuzkd_config *cfg = srv->cfg;
    if (!cfg->fleet_db || !cfg->fleet_db[0])
        return CUZK_OK;
    cuzkd_fleet *f = calloc(1, sizeof *f);
    if (!f || !(f->conninfo = strdup(cfg->fleet_db))) {
        free(f);
        return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    }
    f->srv = srv;
    if (cfg->node_name && cfg->node_name[0]) {
        snprintf(f->node, sizeof f->node, "%s", cfg->node_name);
    } else {
        char host[64] = "";
        gethostname(host, sizeof host - 1);
        snprintf(f->node, sizeof f->node, "%s-%ld", host[0] ? host : "node", (long)getpid());
    }
    f->lease_s = cfg->fleet_lease_s;
    cuzk_engine_status st;
    cuzk_engine_status_get(srv->engine, &st);
    unsigned nd = 0;
    for (unsigned i = 0; i < st.n_devices; i++)
        nd += !st.devices[i].fallback_only;
    f->slots = SLOTS_PER_DEVICE * (nd ? nd : 1);
    f->backoff_ms = BACKOFF_MIN_MS;
    if (pipe2(f->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        free(f->conninfo);
        free(f);
        return cuzk_fail(err, CUZK_EIO, "fleet: cannot make a pipe: %s", strerror(errno));
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&f->pool_lock, NULL);
    pthread_cond_init(&f->pool_cv, &ca);
    pthread_mutex_init(&f->wait_lock, NULL);
    pthread_cond_init(&f->wait_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&f->hash_lock, NULL);
    pthread_mutex_init(&f->snap_lock, NULL);
    snprintf(f->db_error, sizeof f->db_error, "not connected yet");
    /* The first connection (and the schema) before any request is served:
     * a fleet node that cannot reach its database says so at once. */
    try_connect(f);
    if (pthread_create(&f->thread, NULL, fleet_main, f) != 0) {
        if (f->conn)
            PQfinish(f->conn);
        close(f->wake[0]);
        close(f->wake[1]);
        free(f->conninfo);
        free(f);
        return cuzk_fail(err, CUZK_EINTERNAL, "cannot start the fleet thread");
    }
    f->thread_started = 1;
    srv->fleet = f;
    return CUZK_OK;
}

void cuzkd_fleet_stop(cuzkd_server *srv) {
    cuzkd_fleet *f = srv->fleet;
    if (!f)
        return;
    atomic_store(&f->stop, 1);
    if (f->thread_started)
        pthread_join(f->thread, NULL);
    srv->fleet = NULL;
    close(f->wake[0]);
    close(f->wake[1]);
    for (unsigned i = 0; i < f->n_idle; i++)
        PQfinish(f->idle[i]);
    while (f->hashes) {
        key_hash *h = f->hashes;
        f->hashes = h->next;
        free(h->path);
        free(h);
    }
    while (f->keys) {
        key_use *u = f->keys;
        f->keys = u->next;
        free(u);
    }
    json_decref(f->nodes);
    fleet_servable_free(&f->serv);
    fleet_warned_free(f);
    LOG_INFO("fleet", "node %s left the fleet: %llu job(s) committed, %llu lease(s) lost", f->node,
             (unsigned long long)atomic_load(&f->committed),
             (unsigned long long)atomic_load(&f->lost));
    free(f->conninfo);
    free(f);
}

json_t *cuzkd_fleet_json(cuzkd_server *srv) {
    cuzkd_fleet *f = srv->fleet;
    if (!f)
        return NULL;
    json_t *q = json_object(), *run = json_object();
    pthread_mutex_lock(&f->snap_lock);
    for (int p = 0; p < 4; p++) {
        json_object_set_new(q, prio_names[p], json_integer(f->queued[p]));
        json_object_set_new(run, prio_names[p], json_integer(f->running[p]));
    }
    json_t *nodes = f->nodes ? json_deep_copy(f->nodes) : json_array();
    double age = f->last_ok_ns ? (cuzk_now_ns() - f->last_ok_ns) / 1e9 : -1;
    json_t *dberr = jtext(f->db_error);
    pthread_mutex_unlock(&f->snap_lock);
    return json_pack("{s:s, s:b, s:o, s:f, s:i, s:i, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "node",
                     f->node, "connected", atomic_load(&f->connected), "db_error", dberr,
                     "snapshot_s_ago", age, "lease_s", (int)f->lease_s, "slots", (int)f->slots,
                     "held", (json_int_t)atomic_load(&f->held_now), "claimed",
                     (json_int_t)atomic_load(&f->claimed), "committed",
                     (json_int_t)atomic_load(&f->committed), "leases_lost",
                     (json_int_t)atomic_load(&f->lost), "queued_by_priority", q,
                     "running_by_priority", run, "nodes", nodes);
}

char *cuzkd_fleet_metrics(cuzkd_server *srv) {
    cuzkd_fleet *f = srv->fleet;
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
#define OUT(...) len += (size_t)snprintf(t + len, len < cap ? cap - len : 0, __VA_ARGS__)
    pthread_mutex_lock(&f->snap_lock);
    OUT("# HELP cuzk_fleet_queue_jobs Fleet jobs queued or running, by priority (last snapshot).\n"
        "# TYPE cuzk_fleet_queue_jobs gauge\n");
    for (int p = 0; p < 4; p++)
        OUT("cuzk_fleet_queue_jobs{state=\"queued\",priority=\"%s\"} %lld\n"
            "cuzk_fleet_queue_jobs{state=\"running\",priority=\"%s\"} %lld\n",
            prio_names[p], (long long)f->queued[p], prio_names[p], (long long)f->running[p]);
    size_t alive = 0;
    for (size_t i = 0; f->nodes && i < json_array_size(f->nodes); i++)
        alive += json_is_true(json_object_get(json_array_get(f->nodes, i), "alive"));
    pthread_mutex_unlock(&f->snap_lock);
    OUT("# HELP cuzk_fleet_nodes_alive Fleet nodes with a recent heartbeat.\n"
        "# TYPE cuzk_fleet_nodes_alive gauge\ncuzk_fleet_nodes_alive %zu\n"
        "# HELP cuzk_fleet_connected 1 while this node reaches the fleet database.\n"
        "# TYPE cuzk_fleet_connected gauge\ncuzk_fleet_connected %d\n"
        "# HELP cuzk_fleet_held_jobs Fleet job partitions this node holds a lease on.\n"
        "# TYPE cuzk_fleet_held_jobs gauge\ncuzk_fleet_held_jobs %llu\n"
        "# HELP cuzk_fleet_committed_total Fleet job partitions this node committed.\n"
        "# TYPE cuzk_fleet_committed_total counter\ncuzk_fleet_committed_total %llu\n"
        "# HELP cuzk_fleet_leases_lost_total Leases this node lost (cancelled or taken over).\n"
        "# TYPE cuzk_fleet_leases_lost_total counter\ncuzk_fleet_leases_lost_total %llu\n",
        alive, atomic_load(&f->connected), (unsigned long long)atomic_load(&f->held_now),
        (unsigned long long)atomic_load(&f->committed), (unsigned long long)atomic_load(&f->lost));
#undef OUT
    if (len >= cap) {
        free(t);
        return NULL;
    }
    return t;
}

#endif /* CUZK_HAVE_LIBPQ */
