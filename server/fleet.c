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
 *     ended and cancelled jobs) and on a pipe that the engine's end-of-job
 *     call of a held job writes to (cuzk_submit_opts.on_end), so neither a
 *     new job nor a finished one waits for a tick, and no thread per job
 *     waits for it.  Measured (docs/PERFORMANCE.md):
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
 * called through its thread-safe API: submit, await with a zero timeout,
 * cancel; its end-of-job call only writes to a pipe), or hold
 * srv->jobs_lock.  Without libpq it compiles to stubs
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
int cuzkd_fleet_wait_db(cuzkd_server *srv, int (*stop)(void)) {
    (void)srv, (void)stop;
    return 1;
}
int cuzkd_fleet_unreachable(cuzkd_server *srv, char *why, size_t why_n, time_t *since,
                            double *secs) {
    (void)srv, (void)why, (void)why_n, (void)since, (void)secs;
    return 0;
}
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

void fleet_oneline(char *dst, size_t n, const char *src) {
    snprintf(dst, n, "%s", src ? src : "");
    for (char *p = dst; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
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
    fleet_oneline(why, why_n, res ? PQresultErrorMessage(res) : PQerrorMessage(c));
    if (!why[0])
        fleet_oneline(why, why_n, PQerrorMessage(c));
    PQclear(res);
    return NULL;
}

int fleet_db_cmd(PGconn *c, const char *sql, char *why, size_t why_n) {
    PGresult *res = fleet_db_exec(c, sql, 0, NULL, NULL, NULL, 0, why, why_n);
    PQclear(res);
    return res != NULL;
}

int fleet_conn_bad(PGconn *c) { return !c || PQstatus(c) != CONNECTION_OK; }

/* What the server sends besides results (NOTICE, WARNING, ...) goes to
 * the daemon's log, never to stderr as libpq's default receiver would
 * print it.  NOTICE is logged at debug: PostgreSQL sends one for routine
 * events, such as the schema table that already exists on every start. */
static void notice_to_log(void *arg, const PGresult *res) {
    (void)arg;
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    char line[512];
    fleet_oneline(line, sizeof line, msg ? msg : PQresultErrorMessage(res));
    if (!sev)
        sev = PQresultErrorField(res, PG_DIAG_SEVERITY);
    if (!sev)
        sev = "NOTICE";
    cuzk_log_level lv = CUZK_LOG_DEBUG;
    if (!strcmp(sev, "WARNING"))
        lv = CUZK_LOG_WARN;
    else if (!strcmp(sev, "INFO"))
        lv = CUZK_LOG_INFO;
    cuzkd_log(lv, "fleet", "database %s: %s", sev, line);
}

PGconn *fleet_db_connect(cuzkd_fleet *f, char *why, size_t why_n) {
    const char *kw[] = {"application_name", "connect_timeout", "dbname", NULL};
    const char *val[] = {"cuzkd", "5", f->conninfo, NULL};
    PGconn *c = PQconnectdbParams(kw, val, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        fleet_oneline(why, why_n, c ? PQerrorMessage(c) : "out of memory");
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeReceiver(c, notice_to_log, NULL);
    return c;
}

/* ---- the database link's state -------------------------------------------------------- */

/* An unchanged reason is said again this often while the database stays
 * out of reach (the thread retries every 0.1 to 5 s). */
#define DOWN_REPEAT_NS 60000000000ULL

void fleet_db_down(cuzkd_fleet *f, const char *why) {
    uint64_t now = cuzk_now_ns();
    atomic_store(&f->connected, 0);
    pthread_mutex_lock(&f->snap_lock);
    snprintf(f->db_error, sizeof f->db_error, "%s", why);
    if (!f->down_since) {
        f->down_since = time(NULL);
        f->down_since_ns = now;
    }
    pthread_mutex_unlock(&f->snap_lock);
    /* (compared as far as down_said holds: a longer reason is cut there) */
    if (f->down_said_ns && !strncmp(f->down_said, why, sizeof f->down_said - 1) &&
        now - f->down_said_ns < DOWN_REPEAT_NS)
        return;
    snprintf(f->down_said, sizeof f->down_said, "%s", why);
    f->down_said_ns = now;
    if (!f->ever_connected)
        LOG_WARN("fleet", "waiting for the fleet database: %s (not ready until it is reached; "
                 "retrying)", why);
    else
        LOG_WARN("fleet", "cannot reach the fleet database: %s (retrying)", why);
}

void fleet_db_up(cuzkd_fleet *f) {
    pthread_mutex_lock(&f->snap_lock);
    f->down_since = 0;
    f->down_since_ns = 0;
    pthread_mutex_unlock(&f->snap_lock);
    f->down_said[0] = 0;
    f->down_said_ns = 0;
    atomic_store(&f->connected, 1);
}

int cuzkd_fleet_wait_db(cuzkd_server *srv, int (*stop)(void)) {
    cuzkd_fleet *f = srv->fleet;
    while (f && !atomic_load(&f->connected)) {
        if (stop())
            return 0;
        fleet_sleep_ms(50);
    }
    return 1;
}

int cuzkd_fleet_unreachable(cuzkd_server *srv, char *why, size_t why_n, time_t *since,
                            double *secs) {
    cuzkd_fleet *f = srv->fleet;
    if (!f || atomic_load(&f->connected))
        return 0;
    pthread_mutex_lock(&f->snap_lock);
    snprintf(why, why_n, "%s", f->db_error);
    *since = f->down_since;
    *secs = f->down_since_ns ? (cuzk_now_ns() - f->down_since_ns) / 1e9 : 0;
    pthread_mutex_unlock(&f->snap_lock);
    return 1;
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
int fleet_migrate(cuzkd_fleet *f, PGconn *c, char *why, size_t why_n) {
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
            fleet_oneline(why, why_n, m ? PQresultErrorMessage(m) : PQerrorMessage(c));
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
            if (atomic_load(&f->schema_ready) && (c = fleet_db_connect(f, why, why_n)))
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
    f->down_since = time(NULL); /* unreachable until the first connection */
    f->down_since_ns = cuzk_now_ns();
    /* The first connection (and the schema) before any request is served:
     * a fleet node that cannot reach its database says so at once. */
    fleet_try_connect(f);
    if (pthread_create(&f->thread, NULL, fleet_node_main, f) != 0) {
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
    int up = atomic_load(&f->connected);
    /* since when the database is out of reach: ISO time and seconds */
    json_t *since = json_null(), *since_s = json_null();
    if (!up && f->down_since) {
        char iso[32];
        struct tm tm;
        gmtime_r(&f->down_since, &tm);
        strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
        since = json_string(iso);
        since_s = json_real((cuzk_now_ns() - f->down_since_ns) / 1e9);
    }
    pthread_mutex_unlock(&f->snap_lock);
    return json_pack("{s:s, s:b, s:s, s:o, s:o, s:o, s:f, s:i, s:i, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
                     "node", f->node, "connected", up, "database", up ? "connected" : "unreachable",
                     "unreachable_since", since, "unreachable_s", since_s, "db_error", dberr,
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
