/*
 * The job endpoints (docs/API.md "Jobs"): submit, status, result, cancel;
 * and the daemon's record of the jobs it submitted, which enforces
 * max_jobs_per_client and feeds the status page.
 *
 * Before a job is submitted its witnesses are checked against the key (the
 * key is loaded first if its curve and size are not known yet, the
 * circuit of inputs compiled or loaded) by the engine's own checks
 * (cuzk_submit_check): a witness of the wrong curve or length, a truncated
 * .wtns or an input the circuit refuses is a 400 for the client instead
 * of a job that fails later; what only the witness calculation can find
 * (a failed assert) fails the job.  A request id's content is the
 * engine's to compare (cuzk_submit: 409 when it differs).
 *
 * Uploaded witnesses are handed to the engine where they were received
 * (the request's upload buffer, intake.c): no copy.  Inputs are passed as
 * the bytes of the request, and the engine copies them (they are small).
 *
 * Jobs in flight are counted per client.  A job's slot is freed when it
 * ends, by the engine's notification (cuzk_submit_opts.on_end, job_ended
 * below): no thread watches, nothing polls.  The notification runs on an
 * engine thread and takes jobs_lock for a few list operations, so nothing
 * that holds jobs_lock may wait, or call into the engine for more than a
 * read of a job's status (cuzk_job_cancel, which can end a job and so
 * call the notification, is called with no lock held).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "cuzk_files.h"
#include "cuzk_tools.h"
#include "server/fleet.h"
#include "server/http.h"
#include "server/log.h"
#include "server/submit_body.h"

/* Longest deadline_ms accepted: a year.  Larger values would overflow the
 * engine's nanosecond clock arithmetic (a job that expires at once). */
#define MAX_DEADLINE_MS (365ULL * 24 * 3600 * 1000)

static const char *const priority_names[] = {"low", "normal", "high", "critical"};

/* ---- clients and tracked jobs ---------------------------------------------------- */

static cuzkd_client *client_find_locked(cuzkd_server *srv, const char *name) {
    for (cuzkd_client *c = srv->clients; c; c = c->next)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static int limit_reached(cuzkd_server *srv, const cuzkd_client *c) {
    unsigned max = srv->cfg->max_jobs_per_client;
    return max && c && c->in_flight >= max;
}

int cuzkd_jobs_client_has_room(cuzkd_server *srv, const char *name) {
    pthread_mutex_lock(&srv->jobs_lock);
    int room = !limit_reached(srv, client_find_locked(srv, name));
    pthread_mutex_unlock(&srv->jobs_lock);
    return room;
}

/* Take one job slot for |name|; NULL if it is at its limit (or no memory).
 * The entry lives while it has slots. */
static cuzkd_client *client_reserve(cuzkd_server *srv, const char *name) {
    pthread_mutex_lock(&srv->jobs_lock);
    cuzkd_client *c = client_find_locked(srv, name);
    if (limit_reached(srv, c)) {
        c = NULL;
    } else {
        if (!c && (c = calloc(1, sizeof *c))) {
            snprintf(c->name, sizeof c->name, "%s", name);
            c->next = srv->clients;
            srv->clients = c;
        }
        if (c)
            c->in_flight++;
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    return c;
}

static void client_release_locked(cuzkd_server *srv, cuzkd_client *c) {
    if (--c->in_flight)
        return;
    for (cuzkd_client **pp = &srv->clients; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            free(c);
            return;
        }
}

static void client_release(cuzkd_server *srv, cuzkd_client *c) {
    pthread_mutex_lock(&srv->jobs_lock);
    client_release_locked(srv, c);
    pthread_mutex_unlock(&srv->jobs_lock);
}

static void remember_locked(cuzkd_server *srv, const cuzkd_tracked *t, cuzk_job *job) {
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzkd_recent *rc = &srv->recent[srv->n_recent++ % CUZKD_RECENT];
    memset(rc, 0, sizeof *rc);
    snprintf(rc->request_id, sizeof rc->request_id, "%s", info.request_id);
    snprintf(rc->key, sizeof rc->key, "%s", info.key);
    snprintf(rc->client, sizeof rc->client, "%s", t->client->name);
    rc->state = info.state;
    rc->partitions = info.n_partitions;
    rc->end_ns = info.end_ns ? info.end_ns : cuzk_now_ns();
    rc->seconds = (rc->end_ns - info.submit_ns) / 1e9;
}

/* cuzk_submit_opts.on_end of the jobs this daemon submits (an engine
 * thread, or the thread that cancelled the job): the job leaves the list,
 * its client's slot is freed.  One whose submit has not returned yet is
 * only marked; track() retires it. */
static void job_ended(void *ctx, cuzk_job *job) {
    cuzkd_tracked *t = ctx;
    cuzkd_server *srv = t->srv;
    pthread_mutex_lock(&srv->jobs_lock);
    t->ended = 1;
    int listed = t->listed;
    if (listed) {
        for (cuzkd_tracked **pp = &srv->tracked; *pp; pp = &(*pp)->next)
            if (*pp == t) {
                *pp = t->next;
                break;
            }
        srv->n_tracked--;
        remember_locked(srv, t, job);
        client_release_locked(srv, t->client);
        pthread_cond_broadcast(&srv->jobs_cv);
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    if (listed) {
        cuzk_job_release(t->job); /* the engine holds its own reference */
        free(t);
    }
}

/* After cuzk_submit made the job: list it until job_ended, or retire it at
 * once if it has ended already. */
static void track(cuzkd_server *srv, cuzkd_tracked *t, cuzk_job *job) {
    pthread_mutex_lock(&srv->jobs_lock);
    t->job = job;
    int ended = t->ended;
    if (ended) {
        remember_locked(srv, t, job);
        client_release_locked(srv, t->client);
    } else {
        t->listed = 1;
        t->next = srv->tracked;
        srv->tracked = t;
        srv->n_tracked++;
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    if (ended) {
        cuzk_job_release(job);
        free(t);
    }
}

cuzk_status cuzkd_jobs_start(cuzkd_server *srv, cuzk_error *err) {
    (void)err;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&srv->jobs_lock, NULL);
    pthread_cond_init(&srv->jobs_cv, &ca);
    pthread_condattr_destroy(&ca);
    return CUZK_OK;
}

void cuzkd_jobs_stop(cuzkd_server *srv) {
    /* After the engine is destroyed: every job has ended and been retired
     * by job_ended; what is left (none, unless a notification was lost)
     * is released here. */
    pthread_mutex_lock(&srv->jobs_lock);
    cuzkd_tracked *rest = srv->tracked;
    for (cuzkd_tracked *t = rest; t; t = t->next)
        client_release_locked(srv, t->client);
    srv->tracked = NULL;
    srv->n_tracked = 0;
    pthread_mutex_unlock(&srv->jobs_lock);
    while (rest) {
        cuzkd_tracked *next = rest->next;
        cuzk_job_release(rest->job);
        free(rest);
        rest = next;
    }
}

unsigned cuzkd_jobs_cancel_all(cuzkd_server *srv) {
    /* The request ids are copied under the lock and the jobs cancelled
     * outside it: a cancel ends the job, whose notification takes the
     * lock. */
    pthread_mutex_lock(&srv->jobs_lock);
    unsigned n_ids = srv->n_tracked, k = 0;
    char (*ids)[CUZK_ID_MAX + 1] = n_ids ? calloc(n_ids, sizeof *ids) : NULL;
    for (cuzkd_tracked *t = srv->tracked; ids && t && k < n_ids; t = t->next) {
        cuzk_job_info info;
        cuzk_job_status(t->job, &info, NULL, 0);
        memcpy(ids[k++], info.request_id, sizeof ids[0]);
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    unsigned n = 0;
    for (unsigned i = 0; i < k; i++) {
        cuzk_job *job;
        if (cuzk_job_find(srv->engine, &job, ids[i], NULL) != CUZK_OK)
            continue;
        n += cuzk_job_cancel(job) == CUZK_OK;
        cuzk_job_release(job);
    }
    free(ids);
    return n;
}

void cuzkd_jobs_counts(cuzkd_server *srv, unsigned *jobs, unsigned *clients) {
    pthread_mutex_lock(&srv->jobs_lock);
    *jobs = srv->n_tracked;
    unsigned n = 0;
    for (cuzkd_client *c = srv->clients; c; c = c->next)
        n++;
    *clients = n;
    pthread_mutex_unlock(&srv->jobs_lock);
}

json_t *cuzkd_jobs_json(cuzkd_server *srv, size_t max_active) {
    json_t *active = json_array(), *recent = json_array();
    uint64_t now = cuzk_now_ns();
    pthread_mutex_lock(&srv->jobs_lock);
    size_t n = 0;
    for (cuzkd_tracked *t = srv->tracked; t && n < max_active; t = t->next) {
        cuzk_job_info info;
        cuzk_job_status(t->job, &info, NULL, 0);
        /* A job that has ended but is still tracked (its result not yet
         * collected, or not yet swept) is finished, not in flight: it is
         * listed with the recent ones, first as the newest. */
        if (info.state >= CUZK_JOB_DONE) {
            uint64_t end = info.end_ns ? info.end_ns : now;
            json_array_append_new(
                recent, json_pack("{s:s, s:o, s:s, s:s, s:I, s:f, s:f}", "request_id",
                                  info.request_id, "key", jtext(info.key), "state",
                                  cuzk_job_state_name(info.state), "client", t->client->name,
                                  "partitions", (json_int_t)info.n_partitions, "seconds",
                                  (end - info.submit_ns) / 1e9, "ended_s_ago",
                                  (now > end ? now - end : 0) / 1e9));
            continue;
        }
        n++;
        json_array_append_new(active,
                              json_pack("{s:s, s:o, s:s, s:s, s:I, s:I, s:f}", "request_id",
                                        info.request_id, "key", jtext(info.key), "state",
                                        cuzk_job_state_name(info.state), "client", t->client->name,
                                        "partitions", (json_int_t)info.n_partitions,
                                        "partitions_done", (json_int_t)info.partitions_done,
                                        "age_s", (now - info.submit_ns) / 1e9));
    }
    unsigned total = srv->n_recent, keep = total < CUZKD_RECENT ? total : CUZKD_RECENT;
    for (unsigned i = 0; i < keep; i++) { /* newest first */
        const cuzkd_recent *rc = &srv->recent[(total - 1 - i) % CUZKD_RECENT];
        json_array_append_new(
            recent, json_pack("{s:s, s:o, s:s, s:s, s:I, s:f, s:f}", "request_id", rc->request_id,
                              "key", jtext(rc->key), "state", cuzk_job_state_name(rc->state),
                              "client", rc->client, "partitions", (json_int_t)rc->partitions,
                              "seconds", rc->seconds, "ended_s_ago", (now - rc->end_ns) / 1e9));
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    return json_pack("{s:o, s:o}", "active", active, "recent", recent);
}

/* ---- submit ----------------------------------------------------------------------- */

typedef struct submit_req {
    const char *key;
    const char *request_id;
    cuzk_priority priority;
    uint64_t deadline_ms;
    cuzk_witness *w;
    size_t n;
    int inputs;          /* the witnesses are inputs (input_json) */
    int single_input;    /* given as "input" (messages say "input", not "inputs[i]") */
    const char *circuit; /* "circuit" of the request, or NULL */
    json_t *json;        /* owns the strings of the JSON form */
} submit_req;

static int parse_priority(const char *s, cuzk_priority *out) {
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(s, priority_names[i]))
            return *out = (cuzk_priority)i, 1;
    return 0;
}


/* Fills |q| from the JSON body; 0 after replying 400. */
static int parse_json_submit(cuzkd_request *r, submit_req *q, enum MHD_Result *reply) {
    char why[256];
    json_t *j = NULL;
    json_span in;
    int is_array = 0, n_in = 0;
    int ok = split_body(r->body ? r->body : "", r->body_len, &j, &in, &is_array, &n_in, why,
                        sizeof why);
    q->json = j;
    if (!ok) {
        *reply = http_error(r, 400, "EFORMAT", "%s", why);
        return 0;
    }
    json_t *key = json_object_get(j, "key"), *paths = json_object_get(j, "witness_paths");
    json_t *prio = json_object_get(j, "priority"), *rid = json_object_get(j, "request_id");
    json_t *dl = json_object_get(j, "deadline_ms"), *circ = json_object_get(j, "circuit");
    const char *bad = NULL;
    if (!json_is_string(key) || !*json_string_value(key))
        bad = "\"key\" must be a key id or a .zkey path";
    else if (n_in > 1)
        bad = "give \"input\" or \"inputs\", not both";
    else if (!paths == !n_in)
        bad = "give one of \"witness_paths\" (witness files), \"input\" (one input object) "
              "or \"inputs\" (an array of them)";
    else if (paths && (!json_is_array(paths) || !json_array_size(paths)))
        bad = "\"witness_paths\" must be a non-empty array of paths";
    else if (paths && json_array_size(paths) > MAX_PARTITIONS)
        bad = "too many witnesses";
    else if (circ && (!json_is_string(circ) || json_string_value(circ)[0] != '/'))
        bad = "\"circuit\" must be the absolute path of a circom .wasm";
    else if (circ && paths)
        bad = "\"circuit\" goes with \"input\" or \"inputs\", not with witness files";
    else if (prio &&
             (!json_is_string(prio) || !parse_priority(json_string_value(prio), &q->priority)))
        bad = "\"priority\" must be low, normal, high or critical";
    else if (rid && (!json_is_string(rid) || !http_valid_id(json_string_value(rid))))
        bad = "\"request_id\" must be 1..127 printable bytes without spaces or / ? # %";
    else if (dl && (!json_is_integer(dl) || json_integer_value(dl) < 0 ||
                    (uint64_t)json_integer_value(dl) > MAX_DEADLINE_MS))
        bad = "\"deadline_ms\" must be an integer from 0 (none) to 31536000000 (a year)";
    if (bad) {
        *reply = http_error(r, 400, "EINVAL", "%s", bad);
        return 0;
    }
    q->key = json_string_value(key);
    q->request_id = rid ? json_string_value(rid) : NULL;
    q->deadline_ms = dl ? (uint64_t)json_integer_value(dl) : 0;
    q->circuit = circ ? json_string_value(circ) : NULL;
    if (q->key[0] == '/' && !cuzkd_path_allowed(r, q->key, "key", reply))
        return 0;
    if (q->circuit && !cuzkd_path_allowed(r, q->circuit, "circuit", reply))
        return 0;
    if (n_in) {
        long n = is_array ? array_spans(in, NULL, MAX_PARTITIONS) : 1;
        if (n < 0 || (is_array && n == 0)) {
            *reply = http_error(r, 400, "EFORMAT",
                                n < 0 ? "\"inputs\" must be an array of input objects"
                                      : "\"inputs\" is empty");
            return 0;
        }
        if (n > MAX_PARTITIONS) {
            *reply = http_error(r, 400, "EINVAL", "too many inputs (at most %d)", MAX_PARTITIONS);
            return 0;
        }
        q->n = (size_t)n;
        q->inputs = 1;
        q->single_input = !is_array;
    } else {
        q->n = json_array_size(paths);
    }
    q->w = calloc(q->n, sizeof *q->w);
    if (!q->w) {
        *reply = http_error(r, 503, "ENOMEM", "out of memory");
        return 0;
    }
    if (q->inputs) {
        if (is_array)
            array_spans(in, q->w, q->n);
        else
            q->w[0].input_json = in.p, q->w[0].input_len = in.n;
        return 1;
    }
    for (size_t i = 0; i < q->n; i++) {
        json_t *p = json_array_get(paths, i);
        if (!json_is_string(p) || json_string_value(p)[0] != '/') {
            *reply = http_error(r, 400, "EINVAL",
                                "witness_paths[%zu] must be an absolute path (the daemon's "
                                "working directory is not the client's)",
                                i);
            return 0;
        }
        q->w[i].path = json_string_value(p);
        if (!cuzkd_path_allowed(r, q->w[i].path, "witness", reply))
            return 0;
    }
    return 1;
}

/* The query of an upload submit: fills |q|'s key, priority, request id
 * and deadline; NULL, or what is wrong with it.  Called before the body
 * is read (precheck) and again with it. */
static const char *upload_query_bad(cuzkd_request *r, submit_req *q) {
    const char *prio = http_query(r, "priority"), *rid = http_query(r, "request_id");
    uint64_t dl = 0;
    q->key = http_query(r, "key");
    q->request_id = rid;
    if (!q->key || !*q->key)
        return "query parameter key= is required";
    if (prio && !parse_priority(prio, &q->priority))
        return "priority must be low, normal, high or critical";
    if (rid && !http_valid_id(rid))
        return "request_id must be 1..127 printable bytes without spaces or / ? # %";
    if (http_query_u64(r, "deadline_ms", &dl) < 0 || dl > MAX_DEADLINE_MS)
        return "deadline_ms must be an integer from 0 (none) to 31536000000 (a year)";
    q->deadline_ms = dl;
    return NULL;
}

/* Fills |q| from the query and the uploaded body; 0 after replying 400. */
static int parse_upload_submit(cuzkd_request *r, submit_req *q, enum MHD_Result *reply) {
    const char *sizes = http_query(r, "sizes");
    const char *bad = upload_query_bad(r, q);
    if (!bad && !r->body_len)
        bad = "the body is empty: expected one or more .wtns images";
    if (bad) {
        *reply = http_error(r, 400, "EINVAL", "%s", bad);
        return 0;
    }
    if (q->key[0] == '/' && !cuzkd_path_allowed(r, q->key, "key", reply))
        return 0;
    size_t n = 1;
    for (const char *p = sizes; p && *p; p++)
        n += *p == ',';
    if (n > MAX_PARTITIONS) {
        *reply = http_error(r, 400, "EINVAL", "too many partitions in sizes=");
        return 0;
    }
    q->w = calloc(n, sizeof *q->w);
    if (!q->w) {
        *reply = http_error(r, 503, "ENOMEM", "out of memory");
        return 0;
    }
    q->n = n;
    if (!sizes) {
        q->w[0].data = r->body;
        q->w[0].size = r->body_len;
        return 1;
    }
    size_t off = 0;
    const char *p = sizes;
    for (size_t i = 0; i < n; i++) {
        char *end;
        errno = 0;
        unsigned long long sz = strtoull(p, &end, 10);
        if (errno || end == p || *p < '0' || *p > '9' || (*end && *end != ',') || !sz ||
            sz > r->body_len - off) {
            *reply = http_error(r, 400, "EINVAL",
                                "sizes= must be positive byte counts that add up to the body "
                                "length (%zu bytes)",
                                r->body_len);
            return 0;
        }
        q->w[i].data = r->body + off;
        q->w[i].size = (size_t)sz;
        off += (size_t)sz;
        p = end + (*end == ',');
    }
    if (off != r->body_len) {
        *reply = http_error(r, 400, "EINVAL", "sizes= add up to %zu bytes, the body has %zu", off,
                            r->body_len);
        return 0;
    }
    return 1;
}

/* The engine's checks of every witness or input against the key
 * (cuzk_submit_check), after the circuit of inputs (the request's, else
 * the key's) is compiled or loaded here, counted against max_circuits.
 * 0 after replying. */
static int check_job(cuzkd_request *r, const submit_req *q, const cuzk_key_info *key,
                     const cuzk_submit_opts *o, enum MHD_Result *reply) {
    cuzkd_server *srv = r->srv;
    const cuzk_wc_circuit *c = NULL;
    cuzk_error err = {0};
    cuzk_status s;
    if (q->inputs) {
        char path[4096];
        if (o->circuit) {
            snprintf(path, sizeof path, "%s", o->circuit);
        } else if (!cuzkd_circuit_of_key(srv, key->id, path, sizeof path)) {
            *reply = http_error(r, 400, "EINVAL",
                                "key %s has no circuit registered: name the .wasm with "
                                "\"circuit\" (or register it with the key: POST /v1/keys with "
                                "\"circuit\")",
                                key->id);
            return 0;
        }
        if ((s = cuzkd_circuit_get(srv, path, &c, &err)) != CUZK_OK) {
            *reply = http_error_status(r, s, err.msg);
            return 0;
        }
    }
    s = cuzk_submit_check(srv->engine, o, &err);
    if (c)
        cuzkd_circuit_put(srv, c);
    if (s == CUZK_OK)
        return 1;
    /* The client's data: 400 whatever the kind, but for what is not. */
    unsigned code = s == CUZK_ENOMEM ? 503 : s == CUZK_EUNSUPPORTED && q->inputs ? 500 : 400;
    *reply = http_error(r, code, cuzk_status_name(s), "%s", err.msg);
    return 0;
}

static int refuse_draining(cuzkd_request *r, enum MHD_Result *reply) {
    if (!atomic_load(&r->srv->draining))
        return 0;
    *reply = http_error(r, 503, "draining", "cuzkd is shutting down and takes no new jobs");
    return 1;
}

/* Would this request id attach to a live or finished job?  Then nothing
 * is proved: the witnesses need no check and no job slot is taken. */
static int attaches(cuzkd_server *srv, const char *request_id) {
    cuzk_job *job;
    if (!request_id || cuzk_job_find(srv->engine, &job, request_id, NULL) != CUZK_OK)
        return 0;
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzk_job_release(job);
    return info.state == CUZK_JOB_QUEUED || info.state == CUZK_JOB_RUNNING ||
           info.state == CUZK_JOB_DONE;
}

int api_jobs_submit_precheck(cuzkd_request *r, enum MHD_Result *reply) {
    if (refuse_draining(r, reply))
        return 1;
    /* A JSON body is small, and its request id and key are only known once
     * it has been read.  An upload's query says everything but the
     * witnesses: it is checked before a byte of the (possibly large) body
     * is taken, so a bad parameter, a client over its limit or an unknown
     * key costs no upload memory. */
    if (r->body_kind != BODY_UPLOAD)
        return 0;
    submit_req q = {.priority = CUZK_PRIORITY_NORMAL};
    const char *bad = upload_query_bad(r, &q);
    if (bad) {
        *reply = http_error(r, 400, "EINVAL", "%s", bad);
        return 1;
    }
    if (q.key[0] == '/' && !cuzkd_path_allowed(r, q.key, "key", reply))
        return 1;
    if (attaches(r->srv, q.request_id))
        return 0;
    if (!cuzkd_jobs_client_has_room(r->srv, r->client)) {
        *reply = http_error(r, 429, "too_many_jobs",
                            "client %s already has %u jobs in flight (max_jobs_per_client)",
                            r->client, r->srv->cfg->max_jobs_per_client);
        return 1;
    }
    cuzk_key_info key;
    cuzk_error err = {0};
    cuzk_status s = cuzkd_key_ready(r->srv, q.key, &key, &err);
    if (s != CUZK_OK) {
        *reply = s == CUZK_ENOTFOUND ? http_error(r, 404, "ENOTFOUND",
                                                  "unknown key '%s': neither a key id nor a "
                                                  "readable .zkey path",
                                                  q.key)
                                     : http_error_status(r, s, err.msg);
        return 1;
    }
    return 0;
}

/* Uploaded witnesses stay where they were received: each holds a
 * reference to the upload buffer, dropped by the engine's release call
 * once synthesis has read it.  Returns how many were handed. */
static size_t hand_uploads(cuzkd_request *r, submit_req *q) {
    size_t handed = 0;
    if (r->upload && !q->inputs)
        for (size_t i = 0; i < q->n; i++)
            if (q->w[i].data) {
                q->w[i].release = cuzkd_intake_release;
                q->w[i].release_ctx = r->upload;
                handed++;
            }
    if (handed)
        atomic_fetch_add(&r->upload->refs, (unsigned)handed);
    return handed;
}

static enum MHD_Result submit(cuzkd_request *r, submit_req *q) {
    cuzkd_server *srv = r->srv;
    enum MHD_Result reply = MHD_NO;
    if (refuse_draining(r, &reply))
        return reply;
    cuzk_key_info key;
    cuzk_error err = {0};
    cuzk_status s;
    char wasm[4096] = "", attach_key[CUZK_ID_MAX + 1] = "";
    /* The request's circuit by its real path, attach or not: the engine
     * compares it with the job's. */
    if (q->circuit && !realpath(q->circuit, wasm)) {
        if (!attaches(srv, q->request_id))
            return http_error(r, 404, "ENOTFOUND", "circuit %s: no such file", q->circuit);
        snprintf(wasm, sizeof wasm, "%s", q->circuit);
    }
    cuzk_submit_opts o = {.key = q->key,
                          .request_id = q->request_id,
                          .priority = q->priority,
                          .deadline_ms = q->deadline_ms,
                          .witnesses = q->w,
                          .n_witnesses = q->n,
                          .circuit = wasm[0] ? wasm : NULL};
    /* Attaching proves nothing: the engine checks that key, partitions
     * and content match the job's, so the key need not even be resident. */
    int attach = !srv->fleet && attaches(srv, q->request_id);
    if (attach && q->key[0] != '/') {
        cuzkd_key_unalias(srv, q->key, attach_key);
        o.key = attach_key;
    } else if (!attach) {
        if ((s = cuzkd_key_ready(srv, q->key, &key, &err)) != CUZK_OK)
            return s == CUZK_ENOTFOUND ? http_error(r, 404, "ENOTFOUND",
                                                    "unknown key '%s': neither a key id nor "
                                                    "a readable .zkey path",
                                                    q->key)
                                       : http_error_status(r, s, err.msg);
        o.key = key.id;
        if (!check_job(r, q, &key, &o, &reply))
            return reply;
    }
    if (srv->fleet) /* queued in the fleet's database (fleet.c) */
        return cuzkd_fleet_submit(r, &(cuzkd_fleet_job){&key, q->request_id, q->priority,
                                                        q->deadline_ms, q->w, q->n, o.circuit});
    cuzkd_client *c = NULL;
    cuzkd_tracked *t = NULL;
    if (!attach) {
        if (!(c = client_reserve(srv, r->client)))
            return http_error(r, 429, "too_many_jobs",
                              "client %s already has %u jobs in flight (max_jobs_per_client)",
                              r->client, srv->cfg->max_jobs_per_client);
        if (!(t = calloc(1, sizeof *t))) {
            client_release(srv, c);
            return http_error(r, 503, "ENOMEM", "out of memory");
        }
        t->srv = srv;
        t->client = c;
        o.on_end = job_ended;
        o.on_end_ctx = t;
    }
    cuzk_job *job = NULL;
    int attached = 0;
    /* The engine calls release only for a job it accepted (not attached):
     * otherwise the references are taken back here and the buffer returns
     * to the pool when the request ends. */
    size_t handed = hand_uploads(r, q);
    s = cuzk_submit(srv->engine, &job, &attached, &o, &err);
    if (handed && (s != CUZK_OK || attached))
        atomic_fetch_sub(&r->upload->refs, (unsigned)handed);
    if (t && (s != CUZK_OK || attached)) { /* no job of ours: nothing will call job_ended */
        client_release(srv, c);
        free(t);
        t = NULL;
    }
    if (s == CUZK_ECONFLICT)
        return http_error(r, 409, "request_id_reused", "%s", err.msg);
    if (s != CUZK_OK)
        return http_error_status(r, s, err.msg);
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    json_t *body = json_pack("{s:I, s:s, s:b, s:I}", "job_id", (json_int_t)info.id, "request_id",
                             info.request_id, "attached", attached, "partitions",
                             (json_int_t)info.n_partitions);
    if (t)
        track(srv, t, job);
    else
        cuzk_job_release(job);
    LOG_DEBUG("jobs", "job %s %s: key %s, %zu partition(s), client %s", info.request_id,
              attached ? "attached" : "submitted", info.key, q->n, r->client);
    return http_json(r, 202, body);
}

enum MHD_Result api_jobs_submit(cuzkd_request *r) {
    submit_req q;
    memset(&q, 0, sizeof q);
    q.priority = CUZK_PRIORITY_NORMAL;
    enum MHD_Result reply = MHD_NO;
    int ok = r->body_kind == BODY_UPLOAD ? parse_upload_submit(r, &q, &reply)
                                         : parse_json_submit(r, &q, &reply);
    if (ok)
        reply = submit(r, &q);
    free(q.w);
    json_decref(q.json);
    return reply;
}
