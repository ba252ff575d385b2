/*
 * Which job rows the fleet wrote (fleet_int.h): every job row carries a
 * MAC, HMAC-SHA-256 under the fleet's secret, over what identifies the
 * job (its id, request id, content digest, key, priority, partitions,
 * inputs, circuit, submitting node and client), written by the node that
 * inserts the row.  A row whose MAC is missing or wrong was written by
 * something that is not a node (a role granted INSERT, a hand-made row):
 * it is moved aside as foreign (state 'foreign', its request id freed and
 * kept in foreign_rid) and never claimed, attached to, or reported as a
 * job.
 *
 * The secret: 32 random bytes the first node makes when it brings the
 * schema to version 4, kept in cuzk_fleet_secret, which only the tables'
 * owner (the daemons' role) may read.  Nothing to distribute: a node has
 * it once it can act as the owner, and whoever can act as the owner could
 * write rows anyway.  Rows already in the table at that migration were the
 * fleet's under the rules before it: they are signed then, in the
 * migration's transaction (docs/DAEMON.md, "Database roles").
 *
 * Must not: call another fleet file (every fleet file calls this one: it
 * uses libpq directly); compare MACs in a time that depends on where they
 * differ.
 */
#define _GNU_SOURCE
#ifdef CUZK_HAVE_LIBPQ
#include "server/fleet_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cuzk_tools.h"
#include "server/log.h"

/* ---- HMAC-SHA-256 (RFC 2104) ----------------------------------------------- */

typedef struct hmac {
    cuzk_sha256 in;
    uint8_t okey[64];
} hmac;

static void hmac_init(hmac *h, const uint8_t key[FLEET_SECRET_BYTES]) {
    uint8_t ikey[64] = {0};
    memset(h->okey, 0, sizeof h->okey);
    memcpy(ikey, key, FLEET_SECRET_BYTES);
    memcpy(h->okey, key, FLEET_SECRET_BYTES);
    for (int i = 0; i < 64; i++)
        ikey[i] ^= 0x36, h->okey[i] ^= 0x5c;
    cuzk_sha256_init(&h->in);
    cuzk_sha256_update(&h->in, ikey, sizeof ikey);
}

static void hmac_final(hmac *h, char out[65]) {
    uint8_t d[32];
    cuzk_sha256_final(&h->in, d);
    cuzk_sha256 o;
    cuzk_sha256_init(&o);
    cuzk_sha256_update(&o, h->okey, sizeof h->okey);
    cuzk_sha256_update(&o, d, sizeof d);
    cuzk_sha256_final(&o, d);
    cuzk_sha256_to_hex(out, d);
}

/* ---- a job row's MAC ---------------------------------------------------------- */

/* The message: a tag, then the fields as text, each followed by a NUL
 * (text in PostgreSQL holds no NUL, so the split is unambiguous); numbers
 * in decimal, inputs as "t" or "f". */
void fleet_mac_job(const cuzkd_fleet *f, const fleet_row *r, char out[65]) {
    char id[24], prio[16], n[24];
    snprintf(id, sizeof id, "%" PRId64, r->id);
    snprintf(prio, sizeof prio, "%d", r->priority);
    snprintf(n, sizeof n, "%lld", r->n_partitions);
    const char *field[] = {"cuzk-fleet-job-v1", id, r->request_id, r->content_sha, r->key_id,
                           r->key_path, r->key_sha, prio, n, r->inputs ? "t" : "f",
                           r->circuit, r->submitted_by, r->client};
    hmac h;
    hmac_init(&h, f->secret);
    for (size_t i = 0; i < sizeof field / sizeof *field; i++)
        cuzk_sha256_update(&h.in, field[i], strlen(field[i]) + 1);
    hmac_final(&h, out);
}

void fleet_row_get(const PGresult *q, int row, int col, fleet_row *r) {
    r->id = strtoll(PQgetvalue(q, row, col), NULL, 10);
    r->request_id = PQgetvalue(q, row, col + 1);
    r->content_sha = PQgetvalue(q, row, col + 2);
    r->key_id = PQgetvalue(q, row, col + 3);
    r->key_path = PQgetvalue(q, row, col + 4);
    r->key_sha = PQgetvalue(q, row, col + 5);
    r->priority = atoi(PQgetvalue(q, row, col + 6));
    r->n_partitions = atoll(PQgetvalue(q, row, col + 7));
    r->inputs = PQgetvalue(q, row, col + 8)[0] == 't';
    r->circuit = PQgetvalue(q, row, col + 9);
    r->submitted_by = PQgetvalue(q, row, col + 10);
    r->client = PQgetvalue(q, row, col + 11);
}

int fleet_row_ours(const cuzkd_fleet *f, const PGresult *q, int row, int col) {
    if (PQgetisnull(q, row, col + 12) || PQgetlength(q, row, col + 12) != 64)
        return 0;
    fleet_row r;
    fleet_row_get(q, row, col, &r);
    char want[65];
    fleet_mac_job(f, &r, want);
    const char *got = PQgetvalue(q, row, col + 12);
    unsigned diff = 0;
    for (int i = 0; i < 64; i++)
        diff |= (unsigned)(uint8_t)(want[i] ^ got[i]);
    return diff == 0;
}

/* ---- moving a foreign row aside ------------------------------------------------- */

int fleet_quarantine(cuzkd_fleet *f, PGconn *c, const PGresult *q, int row, int col,
                     const char *found) {
    uint8_t rnd[8];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return 0;
    char id[24], rid[64];
    snprintf(id, sizeof id, "%s", PQgetvalue(q, row, col));
    /* a name no client can have been told: another foreign row cannot
     * hold it first and keep this one under the client's id */
    snprintf(rid, sizeof rid, "foreign-%s-%02x%02x%02x%02x%02x%02x%02x%02x", id, rnd[0], rnd[1],
             rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
    const char *was = PQgetvalue(q, row, col + 1);
    const char *v[4] = {id, was, rid, f->node};
    PGresult *res = PQexecParams(
        c,
        "WITH u AS (UPDATE cuzk_fleet_jobs SET state = 'foreign', foreign_rid = request_id,"
        "  request_id = $3, status = 'EFOREIGN', error = 'a row no fleet node wrote (its MAC"
        " is missing or wrong): never proved', done_by = $4, finished = now(),"
        "  lease_until = NULL WHERE id = $1::bigint AND request_id = $2 RETURNING id),"
        " p AS (UPDATE cuzk_fleet_parts SET state = 'foreign', lease_owner = NULL,"
        "  lease_until = NULL WHERE job_id IN (SELECT id FROM u)"
        "  AND state IN ('queued', 'running'))"
        " SELECT count(*) FROM u",
        4, NULL, v, NULL, NULL, 0);
    int done = res && PQresultStatus(res) == PGRES_TUPLES_OK && atoi(PQgetvalue(res, 0, 0)) == 1;
    if (done)
        LOG_WARN("fleet", "job row %s (request id '%s', key '%s', submitted_by '%s') was not "
                 "written by a fleet node (its MAC is missing or wrong; found by %s): moved "
                 "aside as %s, never proved",
                 id, was, PQgetvalue(q, row, col + 3), PQgetvalue(q, row, col + 10), found, rid);
    else if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
        LOG_WARN("fleet", "job row %s is foreign but could not be moved aside: %s", id,
                 res ? PQresultErrorMessage(res) : PQerrorMessage(c));
    PQclear(res);
    return done;
}

/* ---- the secret, and the rows before it --------------------------------------------- */

static PGresult *run(PGconn *c, const char *sql, int n, const char *const *v, ExecStatusType ok,
                     char *why, size_t why_n) {
    PGresult *res = PQexecParams(c, sql, n, NULL, v, NULL, NULL, 0);
    if (res && PQresultStatus(res) == ok)
        return res;
    snprintf(why, why_n, "fleet secret: %s", res ? PQresultErrorMessage(res) : PQerrorMessage(c));
    for (char *p = why; *p; p++)
        if (*p == '\n')
            *p = ' ';
    PQclear(res);
    return NULL;
}

/* Sign the rows written before rows had a MAC, in one statement. */
static int sign_legacy(cuzkd_fleet *f, PGconn *c, char *why, size_t why_n) {
    PGresult *q = run(c, "SELECT " FLEET_MAC_COLS("") " FROM cuzk_fleet_jobs WHERE mac IS NULL",
                      0, NULL, PGRES_TUPLES_OK, why, why_n);
    if (!q)
        return 0;
    int n = PQntuples(q);
    char *ids = malloc(24 * (size_t)n + 3), *macs = malloc(66 * (size_t)n + 3);
    int ok = ids && macs;
    size_t il = 0, ml = 0;
    if (ok) {
        ids[il++] = '{', macs[ml++] = '{';
        for (int i = 0; i < n; i++) {
            fleet_row r;
            char mac[65];
            fleet_row_get(q, i, 0, &r);
            fleet_mac_job(f, &r, mac);
            il += (size_t)sprintf(ids + il, "%s%" PRId64, i ? "," : "", r.id);
            ml += (size_t)sprintf(macs + ml, "%s%s", i ? "," : "", mac);
        }
        strcpy(ids + il, "}"), strcpy(macs + ml, "}");
        const char *v[2] = {ids, macs};
        PGresult *u = run(c, "UPDATE cuzk_fleet_jobs j SET mac = m.mac FROM unnest($1::bigint[],"
                          " $2::text[]) AS m(id, mac) WHERE j.id = m.id",
                          2, v, PGRES_COMMAND_OK, why, why_n);
        ok = u != NULL;
        PQclear(u);
        if (ok && n)
            LOG_INFO("fleet", "schema: %d job row(s) written before rows were signed: signed", n);
    } else {
        snprintf(why, why_n, "out of memory");
    }
    free(ids);
    free(macs);
    PQclear(q);
    return ok;
}

int fleet_secret_setup(cuzkd_fleet *f, PGconn *c, int migrated, char *why, size_t why_n) {
    if (migrated) {
        uint8_t key[FLEET_SECRET_BYTES];
        char hex[2 * FLEET_SECRET_BYTES + 3] = "\\x";
        if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
            snprintf(why, why_n, "fleet secret: getrandom: %s", strerror(errno));
            return 0;
        }
        for (int i = 0; i < FLEET_SECRET_BYTES; i++)
            sprintf(hex + 2 + 2 * i, "%02x", key[i]);
        const char *v = hex;
        PQclear(run(c, "INSERT INTO cuzk_fleet_secret (secret) VALUES ($1::bytea)"
                       " ON CONFLICT DO NOTHING",
                    1, &v, PGRES_COMMAND_OK, why, why_n));
    }
    PGresult *q = run(c, "SELECT encode(secret, 'hex') FROM cuzk_fleet_secret", 0, NULL,
                      PGRES_TUPLES_OK, why, why_n);
    if (!q)
        return 0;
    const char *hex = PQntuples(q) == 1 ? PQgetvalue(q, 0, 0) : "";
    uint8_t key[FLEET_SECRET_BYTES];
    int ok = strlen(hex) == 2 * FLEET_SECRET_BYTES;
    for (int i = 0; ok && i < FLEET_SECRET_BYTES; i++) {
        unsigned b;
        ok = sscanf(hex + 2 * i, "%2x", &b) == 1;
        key[i] = (uint8_t)b;
    }
    PQclear(q);
    if (!ok) {
        snprintf(why, why_n, "the fleet's secret (cuzk_fleet_secret) is missing or damaged");
        return 0;
    }
    /* Written once, before handlers read it (schema_ready); a reconnect
     * finds the same secret.  One changed under a running node would make
     * every row it signed foreign to the others: it refuses to go on. */
    if (!atomic_load(&f->secret_set)) {
        memcpy(f->secret, key, sizeof key);
        atomic_store(&f->secret_set, 1);
    } else if (memcmp(f->secret, key, sizeof key)) {
        snprintf(why, why_n, "the fleet's secret (cuzk_fleet_secret) changed while this node ran: "
                 "restart it");
        return 0;
    }
    return !migrated || sign_legacy(f, c, why, why_n);
}

#else
typedef int cuzkd_fleet_mac_unused; /* without libpq: no fleet */
#endif
