/*
 * The fleet's job store (jobs.h): a submit written as a job row in one
 * transaction (request id, content digest, witnesses), and a job's status,
 * result and cancel read from and written to the tables.  The endpoints
 * (api_jobs.c) parse and check the request and write the reply; the
 * schema and connections are fleet.c's, the node thread (claims, leases)
 * fleet_node.c's, which rows a node may act on fleet_rows.c's.
 *
 * Must not: hold a pooled connection across a wait; write HTTP.
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


/* ---- submit -------------------------------------------------------------------------- */

typedef struct part {
    const char *p;
    size_t n;
    uint8_t *own;
} part;

/* What one try of a statement or transaction on a pooled connection did:
 * TX_RETRY where the connection was lost (another may do), TX_FAIL where
 * the database refused it; the reason in |why| on either. */
typedef enum { TX_OK, TX_RETRY, TX_FAIL } tx_result;
typedef tx_result (*tx_fn)(cuzkd_fleet *f, PGconn *c, void *arg, char *why, size_t why_n);

/* |tx| on a pooled connection, tried again on another 200 ms after each
 * TX_RETRY until |until_ns| or the daemon's stop: a database that comes
 * back within the wait is waited for, one that refuses is not.  TX_RETRY
 * (and |why|) when no connection came or the last try lost its own. */
static tx_result with_retry(cuzkd_fleet *f, uint64_t until_ns, tx_fn tx, void *arg, char *why,
                            size_t why_n) {
    for (;;) {
        PGconn *c = fleet_pool_get(f, until_ns, why, why_n);
        if (!c)
            return TX_RETRY;
        tx_result tr = tx(f, c, arg, why, why_n);
        fleet_pool_put(f, c);
        if (tr != TX_RETRY || cuzk_now_ns() >= until_ns || atomic_load(&f->srv->stopping))
            return tr;
        fleet_sleep_ms(200);
    }
}

typedef struct submit_out {
    char request_id[CUZK_ID_MAX + 1];
    int64_t id;
    int attached, mismatch;
    char why[512];
} submit_out;

/* A job id from the sequence, drawn ID_BATCH at a time (a row's MAC
 * covers its id, so the node knows it before the insert).  0 and |why| on
 * failure. */
static int64_t take_id(cuzkd_fleet *f, PGconn *c, char *why, size_t why_n) {
    pthread_mutex_lock(&f->ids_lock);
    int64_t id = f->n_ids ? f->ids[--f->n_ids] : 0;
    pthread_mutex_unlock(&f->ids_lock);
    if (id)
        return id;
    char n[16];
    snprintf(n, sizeof n, "%d", ID_BATCH);
    const char *v = n;
    PGresult *q = fleet_db_exec(c,
                                "SELECT nextval(pg_get_serial_sequence('cuzk_fleet_jobs', 'id'))"
                                " FROM generate_series(1, $1::int) ORDER BY 1",
                                1, &v, NULL, NULL, 0, why, why_n);
    if (!q)
        return 0;
    int rows = PQntuples(q);
    id = rows ? atoll(PQgetvalue(q, 0, 0)) : 0;
    pthread_mutex_lock(&f->ids_lock);
    /* kept so that the lowest is used next (ids follow the submit order) */
    for (int i = rows - 1; i >= 1 && f->n_ids < ID_BATCH; i--)
        f->ids[f->n_ids++] = atoll(PQgetvalue(q, i, 0));
    pthread_mutex_unlock(&f->ids_lock);
    PQclear(q);
    if (!id)
        snprintf(why, why_n, "the job id sequence gave nothing");
    return id;
}

/* The row a submit writes, signed: its id (new from the sequence), its
 * request id (the client's, else fleet-<id>) and its MAC. */
typedef struct signed_row {
    char id[24], rid[CUZK_ID_MAX + 32], mac[65];
} signed_row;

static int sign_submit(cuzkd_fleet *f, PGconn *c, const char *client, const cuzkd_fleet_job *j,
                       const char *content, const char *ksha, signed_row *sr, char *why,
                       size_t why_n) {
    int64_t id = take_id(f, c, why, why_n);
    if (!id)
        return 0;
    snprintf(sr->id, sizeof sr->id, "%lld", (long long)id);
    if (j->request_id)
        snprintf(sr->rid, sizeof sr->rid, "%s", j->request_id);
    else
        snprintf(sr->rid, sizeof sr->rid, "fleet-%lld", (long long)id);
    fleet_row r = {id, sr->rid, content, j->key->id, j->key->path, ksha, (int)j->priority & 3,
                   (long long)j->n, j->n && j->w[0].input_json, j->circuit ? j->circuit : "",
                   f->node, client};
    fleet_mac_job(f, &r, sr->mac);
    return 1;
}

/* The row holding request id |v[0]| or job id |v[12]| that kept a submit
 * from inserting (FOR UPDATE; state after FLEET_MAC_COLS): 'r' the request
 * id's row (*row its index), 'i' only a row at the id drawn (not ours: the
 * id is taken), 'n' neither (deleted meanwhile), 0 on failure. */
static int taken_by(PGconn *c, const char *const *v, PGresult **old, int *row, char *why,
                    size_t why_n) {
    *old = fleet_db_exec(c,
                         "SELECT " FLEET_MAC_COLS("") ", state FROM cuzk_fleet_jobs"
                         " WHERE request_id = $1 OR id = $2::bigint FOR UPDATE",
                         2, (const char *const[]){v[0], v[12]}, NULL, NULL, 0, why, why_n);
    if (!*old)
        return 0;
    int kind = 'n';
    for (int i = 0; i < PQntuples(*old); i++) {
        if (!strcmp(PQgetvalue(*old, i, 1), v[0])) {
            *row = i;
            return 'r';
        }
        kind = 'i';
    }
    return kind;
}

/* A submit's insert met a conflict (in its transaction): the request id
 * is taken, or the job id drawn.  The same content attaches ('a'); a job
 * of that id that failed, was cancelled or expired is replaced (as the
 * engine does), a row no node wrote is moved aside and never attached to,
 * a job id some other writer took makes a new one: insert again ('i');
 * other content is refused ('m', o->mismatch); 'f' on failure. */
static int decide_taken(cuzkd_fleet *f, PGconn *c, const char *client, const cuzkd_fleet_job *j,
                        const char *content, const char *ksha, const char *const *v,
                        signed_row *sr, submit_out *o) {
    char *why = o->why;
    size_t why_n = sizeof o->why;
    PGresult *old;
    int r = 0, kind = taken_by(c, v, &old, &r, why, why_n);
    if (!kind)
        return 'f';
    if (kind != 'r') {
        PQclear(old);
        return kind == 'i' && !sign_submit(f, c, client, j, content, ksha, sr, why, why_n) ? 'f'
                                                                                         : 'i';
    }
    if (!fleet_row_ours(f, old, r, 0)) {
        fleet_quarantine(f, c, old, r, 0, "a submit of its request id");
        PQclear(old);
        return 'i';
    }
    const char *state = PQgetvalue(old, r, FLEET_MAC_N);
    if (!strcmp(state, "failed") || !strcmp(state, "cancelled") || !strcmp(state, "expired")) {
        PGresult *d = fleet_db_exec(c, "DELETE FROM cuzk_fleet_jobs WHERE id = $1::bigint", 1,
                                    (const char *const[]){PQgetvalue(old, r, 0)}, NULL, NULL, 0,
                                    why, why_n);
        PQclear(old);
        PQclear(d);
        return d ? 'i' : 'f';
    }
    o->id = atoll(PQgetvalue(old, r, 0));
    snprintf(o->request_id, sizeof o->request_id, "%s", PQgetvalue(old, r, 1));
    int same = !strcmp(PQgetvalue(old, r, 2), content);
    if (!same)
        /* as the engine says it: another key or number of partitions is a
         * mismatch, the same with other witnesses a conflict */
        o->mismatch = strcmp(PQgetvalue(old, r, 5), ksha) ||
                              atoll(PQgetvalue(old, r, 7)) != (long long)j->n
                          ? 1
                          : 2;
    else
        o->attached = 1;
    PQclear(old);
    return same ? 'a' : 'm';
}

/* The partition rows of job |id|, in the submit's transaction. */
static int insert_parts(PGconn *c, const char *id, size_t n, const part *parts, char *why,
                        size_t why_n) {
    for (size_t i = 0; i < n; i++) {
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", i);
        const char *pv[3] = {id, idx, parts[i].p};
        int pl[3] = {0, 0, (int)parts[i].n}, pf[3] = {0, 0, 1};
        PGresult *pr = fleet_db_exec(c,
                                     "INSERT INTO cuzk_fleet_parts (job_id, idx, data) "
                                     "VALUES ($1::bigint, $2::int, $3::bytea)",
                                     3, pv, pl, pf, 0, why, why_n);
        if (!pr)
            return 0;
        PQclear(pr);
    }
    return 1;
}

/* A submit's transaction: what it writes, and what it found (|o|, whose
 * why is the one with_retry is given). */
typedef struct submit_in {
    const char *client;
    const cuzkd_fleet_job *j;
    const part *parts;
    const char *content, *ksha;
    submit_out *o;
} submit_in;

static tx_result submit_tx(cuzkd_fleet *f, PGconn *c, void *arg, char *why, size_t why_n) {
    const submit_in *in = arg;
    const char *client = in->client, *content = in->content, *ksha = in->ksha;
    const cuzkd_fleet_job *j = in->j;
    const part *parts = in->parts;
    submit_out *o = in->o;
    char prio[8], dl[24], np[24];
    signed_row sr;
    if (!sign_submit(f, c, client, j, content, ksha, &sr, why, why_n))
        return fleet_conn_bad(c) ? TX_RETRY : TX_FAIL;
    snprintf(prio, sizeof prio, "%d", (int)j->priority & 3);
    snprintf(dl, sizeof dl, "%llu", (unsigned long long)j->deadline_ms);
    snprintf(np, sizeof np, "%zu", j->n);
    int inputs = j->n && j->w[0].input_json;
    /* Any conflict (the request id, or an id some other writer took) is
     * looked at below. */
    const char *ins =
        "INSERT INTO cuzk_fleet_jobs (id, request_id, content_sha, key_id, key_path, key_sha,"
        "  priority, deadline, n_partitions, inputs, circuit, submitted_by, client, mac) "
        "VALUES ($13::bigint, $1::text, $2::text, $3::text, $4::text, $5::text,"
        "  $6::int, CASE WHEN $7::bigint > 0 THEN now() + $7::bigint * interval '1 millisecond' END,"
        "  $8::int, $9::bool, $10::text, $11::text, $12::text, $14::text) "
        "ON CONFLICT DO NOTHING RETURNING id, request_id";
    const char *v[15] = {sr.rid,  content,  j->key->id, j->key->path, ksha,
                         prio,    dl,       np,         inputs ? "t" : "f",
                         j->circuit ? j->circuit : "", f->node, client, sr.id, sr.mac,
                         parts[0].p};
    PGresult *res = NULL;
    if (j->n == 1) {
        /* One partition and a new id (the usual case): one statement, its
         * own transaction: job, partition and NOTIFY in one round trip. */
        int len[15] = {0}, fmt[15] = {0};
        len[14] = (int)parts[0].n, fmt[14] = 1;
        char one[2048];
        snprintf(one, sizeof one,
                 "WITH j AS (%s),"
                 " p AS (INSERT INTO cuzk_fleet_parts (job_id, idx, data)"
                 "  SELECT id, 0, $15::bytea FROM j),"
                 " t AS (SELECT pg_notify('cuzk_fleet', 'n') FROM j)"
                 " SELECT id, request_id, (SELECT count(*) FROM t) FROM j",
                 ins);
        res = fleet_db_exec(c, one, 15, v, len, fmt, 0, why, why_n);
        if (!res)
            return fleet_conn_bad(c) ? TX_RETRY : TX_FAIL;
        if (PQntuples(res) == 1) {
            o->id = atoll(PQgetvalue(res, 0, 0));
            snprintf(o->request_id, sizeof o->request_id, "%s", PQgetvalue(res, 0, 1));
            PQclear(res);
            return TX_OK;
        }
        PQclear(res); /* the id is taken: decided below */
        res = NULL;
    }
    if (!fleet_db_cmd(c, "BEGIN", why, why_n))
        return TX_RETRY;
    for (int round = 0; round < 4; round++) {
        if (!(res = fleet_db_exec(c, ins, 14, v, NULL, NULL, 0, why, why_n)))
            goto fail;
        if (PQntuples(res) == 1)
            break;
        PQclear(res);
        res = NULL;
        int d = decide_taken(f, c, client, j, content, ksha, v, &sr, o);
        if (d == 'f')
            goto fail;
        if (d == 'a')
            return fleet_db_cmd(c, "COMMIT", why, why_n) ? TX_OK : TX_RETRY;
        if (d == 'm') {
            fleet_db_cmd(c, "ROLLBACK", why, why_n);
            return TX_OK;
        }
    }
    if (!res) {
        snprintf(why, why_n, "request id %s: the job was replaced concurrently", sr.rid);
        goto fail;
    }
    o->id = atoll(PQgetvalue(res, 0, 0));
    snprintf(o->request_id, sizeof o->request_id, "%s", PQgetvalue(res, 0, 1));
    PQclear(res);
    res = NULL;
    if (!insert_parts(c, sr.id, j->n, parts, why, why_n) ||
        !fleet_db_cmd(c, "SELECT pg_notify('cuzk_fleet', 'n')", why, why_n) ||
        !fleet_db_cmd(c, "COMMIT", why, why_n))
        goto fail;
    return TX_OK;
fail:
    PQclear(res);
    if (!fleet_conn_bad(c)) {
        char ignore[8];
        fleet_db_cmd(c, "ROLLBACK", ignore, sizeof ignore);
        return TX_FAIL;
    }
    return TX_RETRY;
}

/* The witnesses as the bytes the row keeps (|parts|: files read whole)
 * and as the engine's witnesses over those bytes (|held|, for its content
 * digest).  Returns 1, or 0 with |no| set. */
static int submit_parts(cuzkd_server *srv, const cuzkd_fleet_job *j, part *parts,
                        cuzk_witness *held, cuzkd_refusal *no) {
    for (size_t i = 0; i < j->n; i++) {
        const cuzk_witness *w = &j->w[i];
        if (w->input_json) {
            parts[i].p = w->input_json, parts[i].n = w->input_len;
        } else if (w->data) {
            parts[i].p = w->data, parts[i].n = w->size;
        } else {
            /* a file the client names is read as an upload is: bounded by
             * max_body_bytes before a byte is read, non-blocking, a regular
             * file only, never mapped (cuzk_file_read) */
            cuzk_error why = {0};
            uint64_t max = srv->cfg->max_body_bytes;
            cuzk_status rs = cuzk_file_read(w->path, "witness", max < INT32_MAX ? max : INT32_MAX,
                                            &parts[i].own, &parts[i].n, &why);
            if (rs == CUZK_ERANGE)
                return cuzkd_refuse(no, 413, "ERANGE", "witness %zu: %s (max_body_bytes, "
                                    "and the fleet's 2 GiB a partition)", i, why.msg);
            if (rs != CUZK_OK)
                return cuzkd_refuse(no, 400, cuzk_status_name(rs), "witness %zu: %s", i, why.msg);
            parts[i].p = (const char *)parts[i].own;
        }
        if (parts[i].n > INT32_MAX)
            return cuzkd_refuse(no, 413, "ERANGE", "witness %zu is larger than the fleet's 2 GiB "
                                "per partition", i);
        if (j->w[i].input_json)
            held[i].input_json = parts[i].p, held[i].input_len = parts[i].n;
        else
            held[i].data = parts[i].p, held[i].size = parts[i].n;
    }
    return 1;
}

/* The content hash, what a resubmit must match to attach: the key by its
 * hash (nodes name it by their own paths), then the engine's digest of the
 * job (cuzk_submit_digest), as one node's engine compares its own jobs. */
static void submit_content(const char ksha[65], const cuzkd_fleet_job *j,
                           const cuzk_witness *held, char content[65]) {
    uint8_t d[32];
    cuzk_submit_digest(&(cuzk_submit_opts){.witnesses = held, .n_witnesses = j->n,
                                           .circuit = j->circuit},
                       d);
    cuzk_sha256 s;
    cuzk_sha256_init(&s);
    cuzk_sha256_update(&s, ksha, 64);
    cuzk_sha256_update(&s, d, sizeof d);
    cuzk_sha256_final(&s, d);
    cuzk_sha256_to_hex(content, d);
}

static int submit_job(cuzkd_server *srv, const char *client, const cuzkd_fleet_job *j, json_t **doc,
                      cuzkd_refusal *no) {
    cuzkd_fleet *f = srv->fleet;
    char ksha[65];
    if (!fleet_key_sha(f, j->key->path, ksha))
        return cuzkd_refuse(no, 500, "EIO", "key %s: cannot read %s to hash it", j->key->id,
                          j->key->path);
    part *parts = calloc(j->n ? j->n : 1, sizeof *parts);
    if (!parts)
        return cuzkd_refuse(no, 503, "ENOMEM", "out of memory");
    int ok = 0;
    /* The witnesses as the bytes the row keeps (files read whole), for the
     * engine's content digest. */
    cuzk_witness *held = calloc(j->n ? j->n : 1, sizeof *held);
    if (!held) {
        free(parts);
        return cuzkd_refuse(no, 503, "ENOMEM", "out of memory");
    }
    if (!submit_parts(srv, j, parts, held, no))
        goto out;
    char content[65];
    submit_content(ksha, j, held, content);

    submit_out o;
    memset(&o, 0, sizeof o);
    submit_in in = {client, j, parts, content, ksha, &o};
    tx_result tr = with_retry(f, cuzk_now_ns() + DB_WAIT_MS * 1000000ULL, submit_tx, &in, o.why,
                              sizeof o.why);
    if (tr == TX_RETRY)
        ok = cuzkd_refuse(no, 503, "EUNAVAILABLE", "the fleet database is unreachable: %s", o.why);
    else if (tr == TX_FAIL)
        ok = cuzkd_refuse(no, 500, "EINTERNAL", "fleet database: %s", o.why);
    else if (o.mismatch == 1)
        ok = cuzkd_refuse(no, 409, "EMISMATCH",
                           "request id %s belongs to a job with another key or another number "
                           "of partitions",
                           o.request_id);
    else if (o.mismatch)
        ok = cuzkd_refuse(no, 409, "request_id_reused",
                           "request id '%s' belongs to a job with other content (key, circuit or "
                           "witnesses differ): use a new request id",
                           o.request_id);
    else {
        LOG_DEBUG("fleet", "job %s %s: key %s, %zu partition(s), client %s", o.request_id,
                  o.attached ? "attached" : "queued", j->key->id, j->n, client);
        ok = 1;
        *doc = json_pack("{s:I, s:s, s:b, s:I}", "job_id", (json_int_t)o.id, "request_id",
                         o.request_id, "attached", o.attached, "partitions", (json_int_t)j->n);
    }
out:
    for (size_t i = 0; i < j->n; i++)
        free(parts[i].own);
    free(parts);
    free(held);
    return ok;
}

/* ---- status, result, cancel ------------------------------------------------------------ */

/* A job's row with what its partitions say: the node (the one that ended
 * it, else one proving a partition), the most claims of a partition, and
 * the partitions done. */
/* (a partition row past the job's count was not written with it: no node
 * wrote it, and it is never read as the job's) */
#define PARTS                                                                                 \
    "FROM cuzk_fleet_parts p WHERE p.job_id = cuzk_fleet_jobs.id AND p.idx >= 0"              \
    " AND p.idx < cuzk_fleet_jobs.n_partitions"
#define JOB_COLS                                                                              \
    "id, request_id, key_id, state, priority, status, error, n_partitions,"                   \
    " (extract(epoch FROM now() - created) * 1000)::bigint, coalesce(done_by,"               \
    " (SELECT min(p.lease_owner) " PARTS " AND p.state = 'running'), ''),"                   \
    " greatest(attempts, (SELECT max(p.attempts) " PARTS ")), simulated, submitted_by,"      \
    " (SELECT count(*) " PARTS " AND p.state = 'done'), " FLEET_MAC_COLS("")
/* The column of JOB_COLS where FLEET_MAC_COLS start. */
#define JOB_MAC 14
/* A done job's proofs, in partition order (a job ended before claims
 * were per partition keeps them in its own row). */
#define RESULT_JSON                                                                           \
    "coalesce(result_json, '[' || (SELECT string_agg(p.proof_json, ',' ORDER BY p.idx) " PARTS \
    ") || ']')"
#define RESULT_RAW                                                                            \
    "coalesce(result_raw, (SELECT string_agg(p.proof_raw, ''::bytea ORDER BY p.idx) " PARTS "))"

/* One statement with |n| text parameters, and its result. */
typedef struct one_query {
    const char *sql;
    int n;
    const char *const *v;
    int bin;
    PGresult *res;
} one_query;

static tx_result one_query_tx(cuzkd_fleet *f, PGconn *c, void *arg, char *why, size_t why_n) {
    one_query *a = arg;
    (void)f;
    a->res = fleet_db_exec(c, a->sql, a->n, a->v, NULL, NULL, a->bin, why, why_n);
    return a->res ? TX_OK : fleet_conn_bad(c) ? TX_RETRY : TX_FAIL;
}

/* The job row of |rid| (JOB_COLS), retrying a lost database until
 * |until_ns|.  *res NULL and 1: no such job; 0: the database failed (why). */
static int job_row(cuzkd_fleet *f, const char *rid, const char *cols, int bin, uint64_t until_ns,
                   PGresult **res, char *why, size_t why_n) {
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT %s FROM cuzk_fleet_jobs WHERE request_id = $1", cols);
    *res = NULL;
    one_query a = {sql, 1, &rid, bin, NULL};
    if (with_retry(f, until_ns, one_query_tx, &a, why, why_n) != TX_OK)
        return 0;
    if (PQntuples(a.res) == 1)
        *res = a.res;
    else
        PQclear(a.res);
    return 1;
}

static int not_found(cuzkd_refusal *no, const char *rid) {
    return cuzkd_refuse(no, 404, "ENOTFOUND", "no job with request id '%s' in the fleet", rid);
}

static int db_failed(cuzkd_refusal *no, const char *why) {
    return cuzkd_refuse(no, 503, "EUNAVAILABLE", "the fleet database is unreachable: %s", why);
}

/* The row |q| (FLEET_MAC_COLS from |col|) under |rid| was not written by a node: moved
 * aside (its request id is free again), and not a job of the fleet. */
static int foreign(cuzkd_fleet *f, PGresult *q, int col, const char *rid, const char *found,
                   cuzkd_refusal *no) {
    char why[256] = "";
    PGconn *c = fleet_pool_get(f, cuzk_now_ns() + DB_WAIT_MS * 1000000ULL, why, sizeof why);
    if (c)
        fleet_quarantine(f, c, q, 0, col, found);
    fleet_pool_put(f, c);
    PQclear(q);
    return cuzkd_refuse(no, 404, "ENOTFOUND",
                        "no job with request id '%s' in the fleet (a row no fleet node wrote "
                        "held that id: it is set aside as foreign)",
                        rid);
}

static int terminal(const char *state) {
    return strcmp(state, "queued") && strcmp(state, "running");
}

static json_t *row_json(const PGresult *q) {
    const char *state = PQgetvalue(q, 0, 3);
    int n = atoi(PQgetvalue(q, 0, 7));
    int done = !strcmp(state, "done") ? n : atoi(PQgetvalue(q, 0, 13));
    json_t *j = json_pack(
        "{s:I, s:o, s:o, s:s, s:s, s:s, s:o, s:i, s:i, s:i, s:I, s:o, s:i, s:o, s:[]}", "job_id",
        (json_int_t)atoll(PQgetvalue(q, 0, 0)), "request_id", jtext(PQgetvalue(q, 0, 1)), "key",
        jtext(PQgetvalue(q, 0, 2)), "state", state, "priority",
        cuzkd_priority_names[atoi(PQgetvalue(q, 0, 4)) & 3], "status", PQgetvalue(q, 0, 5), "error",
        jtext(PQgetvalue(q, 0, 6)), "partitions", n, "partitions_done", done,
        "partitions_failed", !strcmp(state, "failed") ? n : 0, "submit_ms_ago",
        (json_int_t)atoll(PQgetvalue(q, 0, 8)), "node", jtext(PQgetvalue(q, 0, 9)), "attempts",
        atoi(PQgetvalue(q, 0, 10)), "submitted_by", jtext(PQgetvalue(q, 0, 12)), "partition");
    if (j && PQgetvalue(q, 0, 11)[0] == 't')
        json_object_set_new(j, "simulated", json_true());
    return j;
}

static int fleet_status(cuzkd_server *srv, const char *rid, json_t **doc, cuzkd_refusal *no) {
    PGresult *q;
    char why[256] = "";
    if (!job_row(srv->fleet, rid, JOB_COLS, 0, cuzk_now_ns() + DB_WAIT_MS * 1000000ULL, &q, why,
                 sizeof why))
        return db_failed(no, why);
    if (!q)
        return not_found(no, rid);
    if (!fleet_row_ours(srv->fleet, q, 0, JOB_MAC))
        return foreign(srv->fleet, q, JOB_MAC, rid, "a status read", no);
    *doc = row_json(q);
    PQclear(q);
    return 1;
}

/* Sleep until a job ends somewhere in the fleet (NOTIFY: done_gen moves
 * past |gen|), the poll interval passes, |end| comes or the daemon stops. */
static void wait_for_ends(cuzkd_fleet *f, uint64_t gen, uint64_t end) {
    uint64_t now = cuzk_now_ns(), wake = now + WAIT_POLL_MS * 1000000ULL;
    if (wake > end)
        wake = end;
    struct timespec ts;
    cuzkd_deadline_in(&ts, CLOCK_MONOTONIC, wake > now ? (wake - now) / 1000000 : 0);
    pthread_mutex_lock(&f->wait_lock);
    while (f->done_gen == gen && !atomic_load(&f->srv->stopping) &&
           pthread_cond_timedwait(&f->wait_cv, &f->wait_lock, &ts) != ETIMEDOUT) {
    }
    pthread_mutex_unlock(&f->wait_lock);
}

/* The result of the ended job in row |q| (JOB_COLS) into |out|. */
static int ended_result(cuzkd_fleet *f, const char *rid, PGresult *q, int raw,
                        cuzkd_job_result *out, cuzkd_refusal *no) {
    const char *state = PQgetvalue(q, 0, 3);
    json_t *head = json_pack("{s:o, s:I, s:s}", "request_id", jtext(PQgetvalue(q, 0, 1)),
                             "job_id", (json_int_t)atoll(PQgetvalue(q, 0, 0)), "state", state);
    int simulated = PQgetvalue(q, 0, 11)[0] == 't', done = !strcmp(state, "done");
    out->ended = 1;
    if (!done) {
        json_object_set_new(head, "status", json_string(PQgetvalue(q, 0, 5)));
        json_object_set_new(head, "error", jtext(PQgetvalue(q, 0, 6)));
    } else if (simulated && !raw) {
        json_object_set_new(head, "simulated", json_true());
    }
    PQclear(q);
    if (!done || (simulated && !raw)) {
        out->doc = head;
        return 1;
    }
    if (raw)
        json_decref(head);
    if (simulated)
        return cuzkd_refuse(no, 409, "EUNSUPPORTED",
                            "the job ran on a simulated device: there are no proof bytes");
    char why[256] = "";
    uint64_t until = cuzk_now_ns() + DB_WAIT_MS * 1000000ULL;
    if (!job_row(f, rid, raw ? RESULT_RAW : RESULT_JSON, raw, until, &q, why, sizeof why) ||
        !q || PQgetisnull(q, 0, 0)) {
        if (!raw)
            json_decref(head);
        PQclear(q);
        return why[0] ? db_failed(no, why)
                      : cuzkd_refuse(no, 500, "EINTERNAL",
                                     "job %s is done but has no stored result", rid);
    }
    int ok = 1;
    if (raw) {
        size_t n = (size_t)PQgetlength(q, 0, 0);
        if ((out->raw = malloc(n ? n : 1)))
            memcpy(out->raw, PQgetvalue(q, 0, 0), n), out->raw_len = n;
        else
            ok = cuzkd_refuse(no, 503, "ENOMEM", "out of memory");
    } else {
        json_t *proofs = json_loads(PQgetvalue(q, 0, 0), 0, NULL);
        if (!proofs) {
            json_decref(head);
            ok = cuzkd_refuse(no, 500, "EINTERNAL", "job %s: stored result is not JSON", rid);
        } else {
            json_object_set_new(head, "proofs", proofs);
            out->doc = head;
        }
    }
    PQclear(q);
    return ok;
}

static int fleet_result(cuzkd_server *srv, const char *rid, uint64_t timeout_ms, int raw,
                        cuzkd_job_result *out, cuzkd_refusal *no) {
    cuzkd_fleet *f = srv->fleet;
    uint64_t end = cuzk_now_ns() + timeout_ms * 1000000ULL;
    char why[256] = "";
    PGresult *q = NULL;
    for (;;) {
        pthread_mutex_lock(&f->wait_lock);
        uint64_t gen = f->done_gen;
        pthread_mutex_unlock(&f->wait_lock);
        /* A database outage during the wait is waited out like the job. */
        uint64_t db_until = cuzk_now_ns() + DB_WAIT_MS * 1000000ULL;
        if (!job_row(f, rid, JOB_COLS, 0, db_until > end ? db_until : end, &q, why, sizeof why))
            return db_failed(no, why);
        if (!q)
            return not_found(no, rid);
        if (!fleet_row_ours(f, q, 0, JOB_MAC))
            return foreign(f, q, JOB_MAC, rid, "a result read", no);
        if (terminal(PQgetvalue(q, 0, 3)))
            return ended_result(f, rid, q, raw, out, no);
        if (cuzk_now_ns() >= end || atomic_load(&srv->stopping))
            break;
        PQclear(q);
        q = NULL;
        wait_for_ends(f, gen, end);
    }
    out->doc = row_json(q);
    PQclear(q);
    return 1;
}

static int fleet_cancel(cuzkd_server *srv, const char *rid, const char *client, json_t **doc,
                        cuzkd_refusal *no) {
    cuzkd_fleet *f = srv->fleet;
    char why[256] = "";
    uint64_t until = cuzk_now_ns() + DB_WAIT_MS * 1000000ULL;
    int cancelled;
    PGresult *q0;
    if (!job_row(f, rid, FLEET_MAC_COLS(""), 0, until, &q0, why, sizeof why))
        return db_failed(no, why);
    if (!q0)
        return not_found(no, rid);
    if (!fleet_row_ours(f, q0, 0, 0))
        return foreign(f, q0, 0, rid, "a cancel", no);
    char id[24];
    snprintf(id, sizeof id, "%s", PQgetvalue(q0, 0, 0));
    PQclear(q0);
    one_query a = {"WITH u AS (UPDATE cuzk_fleet_jobs SET state = 'cancelled',"
                   "  status = 'ECANCELLED', error = 'cancelled', finished = now(),"
                   "  lease_until = NULL"
                   "  WHERE request_id = $1 AND id = $2::bigint"
                   "  AND state IN ('queued', 'running') RETURNING id) "
                   "SELECT count(*), (SELECT pg_notify('cuzk_fleet', 'c') FROM u) "
                   "FROM u",
                   2, (const char *const[]){rid, id}, 0, NULL};
    if (with_retry(f, until, one_query_tx, &a, why, sizeof why) != TX_OK)
        return db_failed(no, why);
    cancelled = atoi(PQgetvalue(a.res, 0, 0)) > 0;
    PQclear(a.res);
    if (cancelled > 0) {
        /* Its partitions no node took are marked, so that they leave the
         * index of open partitions (claims skip them anyway: they look at
         * the job's state).  A statement of its own, after the job's: it
         * takes no job lock while holding partition locks, as claims and
         * commits do the other way round.  Best effort. */
        PGconn *c = fleet_pool_get(f, until, why, sizeof why);
        if (c) {
            PQclear(fleet_db_exec(c,
                            "UPDATE cuzk_fleet_parts SET state = 'cancelled' WHERE state = 'queued'"
                            " AND job_id = (SELECT id FROM cuzk_fleet_jobs WHERE request_id = $1"
                            " AND state = 'cancelled')",
                            1, &rid, NULL, NULL, 0, why, sizeof why));
            fleet_pool_put(f, c);
        }
    }
    PGresult *q;
    if (!job_row(f, rid, "request_id, state", 0, until, &q, why, sizeof why))
        return db_failed(no, why);
    if (!q)
        return not_found(no, rid);
    if (cancelled)
        LOG_INFO("fleet", "job %s cancelled by client %s", rid, client);
    *doc = json_pack("{s:b, s:o, s:s}", "cancelled", cancelled, "request_id",
                     jtext(PQgetvalue(q, 0, 0)), "state", PQgetvalue(q, 0, 1));
    PQclear(q);
    return 1;
}

static int fleet_attaches(cuzkd_server *srv, const char *rid) {
    (void)srv, (void)rid;
    return 0; /* decided in the submit's transaction, against the row */
}

static int fleet_submit(cuzkd_server *srv, const cuzkd_job_req *q, json_t **doc,
                        cuzkd_refusal *no) {
    cuzkd_fleet_job j = {q->key, q->opts.request_id, q->opts.priority, q->opts.deadline_ms,
                         q->opts.witnesses, q->opts.n_witnesses, q->opts.circuit};
    return submit_job(srv, q->client, &j, doc, no);
}

const cuzkd_store cuzkd_store_fleet = {"fleet", fleet_attaches, fleet_submit, fleet_status,
                                       fleet_result, fleet_cancel};

#else /* a build without libpq refuses fleet_db at start: never chosen */

const cuzkd_store cuzkd_store_fleet = {"fleet", NULL, NULL, NULL, NULL, NULL};

#endif
