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
 *   - Job rows are signed: the inserting node writes an HMAC-SHA-256, under
 *     a secret kept in a table only the daemons' role may read, over the
 *     row's identity (job id, request id, content digest, key, partitions,
 *     ...), and a row whose MAC is missing or wrong (a role granted
 *     INSERT wrote it) is never claimed, attached to or reported as a job:
 *     whatever meets it (a claim, a submit of its request id, a status,
 *     result or cancel, a sweep every 2 s) sets it aside as foreign, which
 *     frees its request id for the client it was squatting (fleet_mac.c).
 *     Partition rows past a job's count are never claimed or read.
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
 * The files: this one starts and stops the fleet and keeps the status
 * snapshot; fleet_node.c is the node thread (claims, leases, outcomes);
 * fleet_rows.c which rows a node may act on (keys, paths, circuits: the
 * kinds of job its claims match); fleet_store.c the job store the
 * endpoints use (jobs.h); fleet_db.c the connections, statements and
 * schema under all of them.  What they share is fleet_int.h.
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
    pthread_mutex_init(&f->ids_lock, NULL);
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
    json_decref(f->foreign);
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
        json_object_set_new(q, cuzkd_priority_names[p], json_integer(f->queued[p]));
        json_object_set_new(run, cuzkd_priority_names[p], json_integer(f->running[p]));
    }
    json_t *nodes = f->nodes ? json_deep_copy(f->nodes) : json_array();
    double age = f->last_ok_ns ? (cuzk_now_ns() - f->last_ok_ns) / 1e9 : -1;
    json_t *dberr = jtext(f->db_error);
    json_int_t n_foreign = f->n_foreign;
    json_t *foreign = f->foreign ? json_deep_copy(f->foreign) : json_array();
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
    return json_pack("{s:s, s:b, s:s, s:o, s:o, s:o, s:f, s:i, s:i, s:I, s:I, s:I, s:I, s:o, s:o, "
                     "s:o, s:I, s:o}",
                     "node", f->node, "connected", up, "database", up ? "connected" : "unreachable",
                     "unreachable_since", since, "unreachable_s", since_s, "db_error", dberr,
                     "snapshot_s_ago", age, "lease_s", (int)f->lease_s, "slots", (int)f->slots,
                     "held", (json_int_t)atomic_load(&f->held_now), "claimed",
                     (json_int_t)atomic_load(&f->claimed), "committed",
                     (json_int_t)atomic_load(&f->committed), "leases_lost",
                     (json_int_t)atomic_load(&f->lost), "queued_by_priority", q,
                     "running_by_priority", run, "nodes", nodes, "foreign_rows", n_foreign,
                     "foreign", foreign);
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
            cuzkd_priority_names[p], (long long)f->queued[p], cuzkd_priority_names[p],
            (long long)f->running[p]);
    long long n_foreign = f->n_foreign;
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
        "# TYPE cuzk_fleet_leases_lost_total counter\ncuzk_fleet_leases_lost_total %llu\n"
        "# HELP cuzk_fleet_foreign_rows Job rows no fleet node wrote, set aside (last snapshot).\n"
        "# TYPE cuzk_fleet_foreign_rows gauge\ncuzk_fleet_foreign_rows %lld\n",
        alive, atomic_load(&f->connected), (unsigned long long)atomic_load(&f->held_now),
        (unsigned long long)atomic_load(&f->committed), (unsigned long long)atomic_load(&f->lost),
        n_foreign);
#undef OUT
    if (len >= cap) {
        free(t);
        return NULL;
    }
    return t;
}

#endif /* CUZK_HAVE_LIBPQ */
