/*
 * Which job rows a fleet node may act on (fleet_int.h): the key a row
 * names, the paths of its key and circuit, and the kinds of open job the
 * node can prove, which its claims match (fleet.c).
 *
 * Rows are input: anything that may write the tables could have written
 * them (docs/DAEMON.md, "Database roles").  So a key or circuit path in a
 * row follows the rule of TCP clients (paths.c): a regular file under
 * remote_paths once links are resolved, looked at with stat and opened
 * only without blocking.  One that exists and is not a regular file fails
 * its rows unclaimed; one outside remote_paths is left to other nodes,
 * said once; one absent here may be another node's.  A node claims only
 * the kinds of job (key id, key hash, inputs, circuit) it has everything
 * for, so a node that has a key but not an inputs job's circuit leaves
 * the partitions to one that has it instead of failing them.
 *
 * Must not: open a path a row names before it passed cuzkd_row_path_check,
 * or open one in a way that blocks; run on any thread but the fleet
 * thread (the key and path lists are its own).
 */
#define _GNU_SOURCE
#ifdef CUZK_HAVE_LIBPQ
#include "server/fleet_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/log.h"

/* The engine reference this node proves jobs of (key id, key hash) with,
 * or NULL: a key id it knows (preloaded or registered) or, for a key named
 * by path, that file; in both cases a file whose SHA-256 is the one the
 * job was submitted with. */
const char *fleet_key_ref(cuzkd_fleet *f, const char *key_id, const char *sha) {
    uint64_t now = cuzk_now_ns();
    key_use *u;
    /* no engine key has a longer id; and a truncated copy would never be
     * found again, so each look would add an entry */
    if (strlen(key_id) > CUZK_ID_MAX)
        return NULL;
    for (u = f->keys; u; u = u->next)
        if (!strcmp(u->key_id, key_id) && !strcmp(u->sha, sha))
            break;
    if (u && (u->ok || now - u->checked_ns < KEY_RECHECK_NS))
        return u->ok ? u->ref : NULL;
    if (!u) {
        if (!(u = calloc(1, sizeof *u)))
            return NULL;
        snprintf(u->key_id, sizeof u->key_id, "%s", key_id);
        snprintf(u->sha, sizeof u->sha, "%s", sha);
        u->next = f->keys;
        f->keys = u;
    }
    u->checked_ns = now;
    u->ok = 0;
    char path[4096] = "";
    if (key_id[0] == '/') {
        snprintf(path, sizeof path, "%s", key_id);
    } else {
        size_t want = cuzk_engine_keys(f->srv->engine, NULL, 0) + 8;
        cuzk_key_info *k = calloc(want, sizeof *k);
        size_t n = k ? cuzk_engine_keys(f->srv->engine, k, want) : 0;
        for (size_t i = 0; i < n && i < want; i++)
            if (!strcmp(k[i].id, key_id))
                snprintf(path, sizeof path, "%s", k[i].path);
        free(k);
    }
    char mine[65];
    if (!path[0] || !fleet_key_sha(f, path, mine))
        return NULL; /* not a key of this node: quietly leave its jobs to others */
    if (strcmp(mine, sha)) {
        if (!u->warned++)
            LOG_WARN("fleet",
                     "key %s: %s differs from the fleet's (SHA-256 %.16s..., job's %.16s...): "
                     "not claiming its jobs",
                     key_id, path, mine, sha);
        return NULL;
    }
    snprintf(u->ref, sizeof u->ref, "%s", key_id);
    u->ok = 1;
    return u->ref;
}

/* Say once (per path, for the first 256) why rows naming |path| are left. */
static void warn_once(cuzkd_fleet *f, const char *path, const char *why) {
    for (warned *w = f->warned; w; w = w->next)
        if (!strcmp(w->path, path))
            return;
    if (f->n_warned >= 256)
        return;
    warned *w = calloc(1, sizeof *w);
    if (w && (w->path = strdup(path))) {
        w->next = f->warned;
        f->warned = w;
        f->n_warned++;
    } else {
        free(w);
    }
    LOG_WARN("fleet", "%s: not claiming the jobs that name it", why);
}

/* Fail the queued jobs whose |col| is $1 with the error $2, by node $3; the
 * count failed. */
#define FAIL_QUEUED(col)                                                                      \
    "WITH u AS (UPDATE cuzk_fleet_jobs SET state = 'failed', status = 'EINVAL',"              \
    "  error = $2, finished = now(), lease_until = NULL, done_by = $3"                        \
    "  WHERE " col " = $1 AND state = 'queued' RETURNING id),"                                \
    " p AS (UPDATE cuzk_fleet_parts SET state = 'failed'"                                     \
    "  WHERE job_id IN (SELECT id FROM u) AND state = 'queued'),"                             \
    " c AS (INSERT INTO cuzk_fleet_commits (job_id, node, epoch, state)"                      \
    "  SELECT id, $3, 0, 'failed' FROM u)"                                                    \
    " SELECT count(*), (SELECT pg_notify('cuzk_fleet', 'd') FROM u LIMIT 1)"                  \
    " FROM u"

/* Fail the queued jobs whose key path (|column| "key_id") or circuit
 * ("circuit") is |path|, which no node can prove with. */
static void fail_rows(cuzkd_fleet *f, int circuit, const char *path, const char *why) {
    /* Ended like any job: the job row, its partitions and one commit row
     * (the fleet's record that every ended job ended exactly once). */
    const char *v[3] = {path, why, f->node};
    PGresult *q = fleet_tq(f, "fail", circuit ? FAIL_QUEUED("circuit") : FAIL_QUEUED("key_id"),
                     3, v, NULL, NULL, 0);
    if (!q)
        return;
    long long n = atoll(PQgetvalue(q, 0, 0));
    PQclear(q);
    if (n)
        LOG_WARN("fleet", "%lld queued job(s) failed: %s", n, why);
}

/* May this node use the path |path| that job rows name (a key or a
 * circuit)?  The rule of TCP clients (paths.c): a regular file under
 * remote_paths.  One that exists and is not a regular file fails its
 * rows; one outside remote_paths is left to other nodes (said once); one
 * absent here may be on another node. */
static int row_path_ok(cuzkd_fleet *f, const char *path, int circuit) {
    char why[600];
    switch (cuzkd_row_path_check(f->srv->cfg, path, circuit ? "circuit" : "key", why,
                                 sizeof why)) {
    case ROW_PATH_OK:
        return 1;
    case ROW_PATH_NOT_FILE:
        fail_rows(f, circuit, path, why);
        return 0;
    case ROW_PATH_FORBIDDEN:
        warn_once(f, path, why);
        return 0;
    default:
        return 0;
    }
}

/* Append |s| to the array literal being written to |fp| as a quoted element. */
static void arr_add(FILE *fp, unsigned i, const char *s) {
    fputs(i ? ",\"" : "\"", fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

void fleet_servable_free(servable *sv) {
    free(sv->ids);
    free(sv->shas);
    free(sv->inputs);
    free(sv->circuits);
    memset(sv, 0, sizeof *sv);
}

/* The kinds of open job this node can prove (servable), into |out|; 0 on
 * a database failure.  A kind needs the key (key_ref: a key id this node
 * has, or a key path allowed by row_path_ok, whose file has the job's
 * hash) and, for jobs of inputs, the circuit: the one the job names
 * (row_path_ok), else one registered with the key here.  A node without
 * the circuit leaves those jobs to nodes that have it, instead of
 * claiming and failing them. */
int fleet_servable_read(cuzkd_fleet *f, servable *out) {
    PGresult *kinds = fleet_tq(f, "claim",
                         "SELECT DISTINCT key_id, key_sha, inputs, circuit FROM cuzk_fleet_jobs"
                         " WHERE state IN ('queued', 'running')",
                         0, NULL, NULL, NULL, 0);
    if (!kinds)
        return 0;
    size_t len[4];
    FILE *fp[4];
    char **dst[4] = {&out->ids, &out->shas, &out->inputs, &out->circuits};
    memset(out, 0, sizeof *out);
    int ok = 1;
    for (int k = 0; k < 4; k++)
        if (!(fp[k] = open_memstream(dst[k], &len[k])) || fputc('{', fp[k]) == EOF)
            ok = 0;
    for (int i = 0; ok && i < PQntuples(kinds); i++) {
        const char *kid = PQgetvalue(kinds, i, 0), *sha = PQgetvalue(kinds, i, 1);
        const char *inputs = PQgetvalue(kinds, i, 2), *circ = PQgetvalue(kinds, i, 3);
        char mine[8];
        if (kid[0] == '/' && !row_path_ok(f, kid, 0))
            continue;
        if (circ[0] && !row_path_ok(f, circ, 1))
            continue;
        if (inputs[0] == 't' && !circ[0] && !cuzkd_circuit_of_key(f->srv, kid, mine, sizeof mine))
            continue; /* no circuit registered with the key here */
        if (strspn(sha, "0123456789abcdef") != 64 || !fleet_key_ref(f, kid, sha))
            continue;
        arr_add(fp[0], out->n, kid);
        arr_add(fp[1], out->n, sha);
        arr_add(fp[2], out->n, inputs[0] == 't' ? "t" : "f");
        arr_add(fp[3], out->n, circ);
        out->n++;
    }
    PQclear(kinds);
    for (int k = 0; k < 4; k++)
        if (fp[k] && (fputc('}', fp[k]) == EOF || fclose(fp[k]) != 0))
            ok = 0;
    if (!ok) {
        fleet_servable_free(out);
        return 0;
    }
    return 1;
}

void fleet_warned_free(cuzkd_fleet *f) {
    while (f->warned) {
        warned *w = f->warned;
        f->warned = w->next;
        free(w->path);
        free(w);
    }
    f->n_warned = 0;
}

#else
typedef int cuzkd_fleet_rows_unused; /* without libpq: no fleet */
#endif
