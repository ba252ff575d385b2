/*
 * The fleet's database (fleet_int.h): connections (the node thread's own,
 * and a small pool for the job store), statements and their failures,
 * whether the database is reachable and since when, the schema's
 * migrations, and the hashes of key files that name keys across nodes.
 * The layer every other fleet file stands on; it calls none of them.
 *
 * Must not: run a statement on the node thread's connection from any
 * other thread, or block longer than libpq's own connect and statement
 * calls.
 */
#define _GNU_SOURCE
#include "server/fleet.h"

#ifdef CUZK_HAVE_LIBPQ

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk_tools.h"
#include "server/fleet_int.h"
#include "server/log.h"

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
    /* 4: job rows are signed (fleet_mac.c).  The secret's table is the
     * owner's alone, like the others; a job row without a MAC can no
     * longer be inserted, so a version-3 node left running cannot make
     * rows the others would take as foreign (its submits fail and say
     * why).  The rows already there are signed after this step, in its
     * transaction (fleet_secret_setup). */
    "CREATE TABLE cuzk_fleet_secret (one bool PRIMARY KEY DEFAULT true CHECK (one),"
    "  secret bytea NOT NULL);"
    "REVOKE ALL ON cuzk_fleet_secret FROM PUBLIC;"
    "ALTER TABLE cuzk_fleet_jobs ADD COLUMN mac text, ADD COLUMN foreign_rid text,"
    "  ADD CONSTRAINT cuzk_fleet_jobs_signed CHECK (mac IS NOT NULL) NOT VALID;"
    "CREATE INDEX cuzk_fleet_jobs_foreign ON cuzk_fleet_jobs (id) WHERE state = 'foreign';",
};
/* The first version whose job rows carry a MAC. */
#define SCHEMA_SIGNED 4
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
    if (ok)
        ok = fleet_secret_setup(f, c, have < SCHEMA_SIGNED, why, why_n);
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
            cuzkd_deadline_in(&ts, CLOCK_MONOTONIC, 100);
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

/* ---- the node thread's connection ---------------------------------------------- */

void fleet_db_lost(cuzkd_fleet *f, const char *what, const char *why) {
    if (f->conn) {
        LOG_WARN("fleet", "database connection lost (%s: %s): not claiming; %u job(s) held until "
                 "their leases would end; reconnecting", what, why, f->n_held);
        PQfinish(f->conn);
        f->conn = NULL;
    }
    char both[512]; /* cut to db_error's size by fleet_db_down */
    snprintf(both, sizeof both, "%s: %s", what, why);
    fleet_db_down(f, both);
    f->next_connect_ns = cuzk_now_ns() + f->backoff_ms * 1000000ULL;
    f->backoff_ms = f->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : f->backoff_ms * 2;
}


/* A statement on the thread's connection (|prep|: one of PREP_*, prepared
 * on its first use on this connection); on failure the connection is
 * dropped if it broke.  NULL on failure. */
PGresult *fleet_tqp(cuzkd_fleet *f, int prep, const char *what, const char *sql, int n,
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
                fleet_oneline(why, sizeof why, p ? PQresultErrorMessage(p) : PQerrorMessage(f->conn));
            PQclear(p);
        }
        if (f->prepared & (1u << prep)) {
            res = PQexecPrepared(f->conn, name, n, v, len, fmt, bin);
            ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
            if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
                fleet_oneline(why, sizeof why,
                        res ? PQresultErrorMessage(res) : PQerrorMessage(f->conn));
                PQclear(res);
                res = NULL;
            }
        }
    }
    if (!res) {
        if (fleet_conn_bad(f->conn))
            fleet_db_lost(f, what, why);
        else
            LOG_WARN("fleet", "%s: %s", what, why);
    }
    return res;
}

PGresult *fleet_tq(cuzkd_fleet *f, const char *what, const char *sql, int n,
                    const char *const *v, const int *len, const int *fmt, int bin) {
    return fleet_tqp(f, PREP_NONE, what, sql, n, v, len, fmt, bin);
}

#endif
