/*
 * The fleet's node thread (fleet.h): it claims partitions of queued jobs
 * this node can prove (fleet_rows.c says which), hands each to the engine
 * as a job of one partition, renews their leases while they run, and
 * commits the outcome, under a fencing epoch so a partition whose lease
 * was lost is never committed twice.  The schema, connections and start
 * and stop are fleet.c's; the job store fleet_store.c's.
 *
 * Must not: run a database statement on a handler's pooled connection, or
 * commit an outcome without checking the epoch it claimed under.
 */
#define _GNU_SOURCE
#include "server/fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/jobs.h"
#include "server/log.h"

#ifdef CUZK_HAVE_LIBPQ

#include "server/fleet_int.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk_tools.h"



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

/* cuzk_submit_opts.on_end of the jobs the node hands its engine: the
 * fleet thread learns of the end at once instead of at its next tick.
 * On an engine thread: one write to a non-blocking pipe, nothing else. */
static void held_ended(void *ctx, cuzk_job *job) {
    (void)job;
    cuzkd_fleet *f = ctx;
    ssize_t w = write(f->wake[1], "x", 1);
    (void)w; /* a full pipe already says "look" */
}

/* Free |h|; a job not ended yet must have been cancelled. */
static void held_free(held *h) {
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
    fleet_oneline(h->error, sizeof h->error, msg);
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
                                  !(h->raw = cuzkd_job_proofs_raw(h->job, &h->raw_len)))) {
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
        PGresult *res = fleet_tqp(
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
    PGresult *res = fleet_tqp(f, PREP_RENEW, "lease renewal",
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
 * 10, the row's identity and MAC from CLAIM_MAC) as an engine job of one
 * partition.  One of a job row no node wrote is not proved: the row is
 * moved aside. */
#define CLAIM_MAC 11
static void start_claimed(cuzkd_fleet *f, PGresult *cl, int row) {
    if (!fleet_row_ours(f, cl, row, CLAIM_MAC)) {
        fleet_quarantine(f, f->conn, cl, row, CLAIM_MAC, "a claim");
        return;
    }
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
    /* A claim is never submitted twice: its id needs no content digest. */
    cuzk_submit_opts o = {.key = ref,
                          .request_id = local_id,
                          .on_end = held_ended,
                          .on_end_ctx = f,
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
        PGresult *cl = fleet_tqp(
            f, PREP_CLAIM, "claim",
            "WITH c AS (SELECT p.job_id, p.idx FROM cuzk_fleet_parts p"
            "  JOIN cuzk_fleet_jobs j ON j.id = p.job_id"
            "  WHERE j.state IN ('queued', 'running') AND (j.key_id, j.key_sha, j.inputs,"
            "  j.circuit) IN (SELECT * FROM unnest($5::text[], $3::text[], $6::bool[],"
            "  $7::text[]))"
            "  AND p.idx >= 0 AND p.idx < j.n_partitions"
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
            "  (extract(epoch FROM j.deadline - now()) * 1000)::bigint) END)::text, u.data, "
            FLEET_MAC_COLS("j.")
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

/* Look at the MACs of the next SWEEP_ROWS job rows not set aside yet
 * (open and ended, in id order, round and round), so that a row no node
 * wrote is found even when nothing claims or reads it (a key no node has,
 * a row made ended). */
static void sweep_foreign(cuzkd_fleet *f) {
    char from[24], lim[16];
    snprintf(from, sizeof from, "%lld", (long long)f->sweep_from);
    snprintf(lim, sizeof lim, "%d", SWEEP_ROWS);
    const char *v[2] = {from, lim};
    PGresult *q = fleet_tq(f, "foreign rows",
                           "SELECT " FLEET_MAC_COLS("") " FROM cuzk_fleet_jobs"
                           " WHERE id > $1::bigint AND state <> 'foreign' ORDER BY id LIMIT $2::int",
                           2, v, NULL, NULL, 0);
    if (!q)
        return;
    int n = PQntuples(q);
    for (int i = 0; i < n && f->conn; i++)
        if (!fleet_row_ours(f, q, i, 0))
            fleet_quarantine(f, f->conn, q, i, 0, "the sweep");
    f->sweep_from = n == SWEEP_ROWS ? atoll(PQgetvalue(q, n - 1, 0)) : 0;
    PQclear(q);
}

/* The rows set aside as foreign, for the status: how many, the latest. */
static void foreign_snapshot(cuzkd_fleet *f) {
    PGresult *q = fleet_tq(f, "status",
                           "SELECT count(*), coalesce((SELECT json_agg(x) FROM (SELECT id AS job_id,"
                           " foreign_rid AS request_id, key_id AS key, submitted_by, done_by AS"
                           " found_by, finished AS found FROM cuzk_fleet_jobs WHERE state ="
                           " 'foreign' ORDER BY id DESC LIMIT 5) x), '[]') FROM cuzk_fleet_jobs"
                           " WHERE state = 'foreign'",
                           0, NULL, NULL, NULL, 0);
    if (!q)
        return;
    json_t *latest = json_loads(PQgetvalue(q, 0, 1), 0, NULL);
    pthread_mutex_lock(&f->snap_lock);
    f->n_foreign = atoll(PQgetvalue(q, 0, 0));
    json_decref(f->foreign);
    f->foreign = latest;
    pthread_mutex_unlock(&f->snap_lock);
    PQclear(q);
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
    uint64_t now = cuzk_now_ns();
    if (f->conn && now - f->last_sweep_ns >= SWEEP_NS) {
        f->last_sweep_ns = now;
        sweep_foreign(f);
    }
    if (f->conn)
        foreign_snapshot(f);
}

/* (Re)connect: LISTEN, schema, and on the first connection the leases a
 * previous process of this node name left. */
void fleet_try_connect(cuzkd_fleet *f) {
    char why[256] = "";
    PGconn *c = fleet_db_connect(f, why, sizeof why);
    if (c && (!fleet_migrate(f, c, why, sizeof why) || !fleet_db_cmd(c, "LISTEN cuzk_fleet", why, sizeof why))) {
        PQfinish(c);
        c = NULL;
    }
    if (!c) {
        f->conn = NULL;
        fleet_db_down(f, why);
        f->next_connect_ns = cuzk_now_ns() + f->backoff_ms * 1000000ULL;
        f->backoff_ms = f->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : f->backoff_ms * 2;
        return;
    }
    f->conn = c;
    f->prepared = 0;
    f->backoff_ms = BACKOFF_MIN_MS;
    fleet_db_up(f);
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
        fleet_oneline(why, sizeof why, PQerrorMessage(f->conn));
        fleet_db_lost(f, "notifications", why);
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

void *fleet_node_main(void *arg) {
    cuzkd_fleet *f = arg;
    cuzkd_server *srv = f->srv;
    uint64_t beat_ns = (uint64_t)f->lease_s * 1000000000ULL / 3;
    if (beat_ns > 1000000000ULL)
        beat_ns = 1000000000ULL;
    while (!atomic_load(&f->stop)) {
        uint64_t now = cuzk_now_ns();
        if (!f->conn && now >= f->next_connect_ns)
            fleet_try_connect(f);
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

#endif
