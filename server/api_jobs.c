/*
 * The job endpoints (docs/API.md "Jobs"): submit, status, result, cancel,
 * each written once over the job store (jobs.h): in memory, or the
 * fleet's PostgreSQL.  Here a request is parsed, checked once and
 * answered; the store decides nothing about HTTP but the refusals it
 * returns.
 *
 * Before a job is submitted its witnesses are checked against the key (the
 * key is loaded first if its curve and size are not known yet, the
 * circuit of inputs compiled or loaded) by the engine's own checks
 * (cuzk_submit_check): a witness of the wrong curve or length, a truncated
 * .wtns or an input the circuit refuses is a 400 for the client instead
 * of a job that fails later; what only the witness calculation can find
 * (a failed assert) fails the job.  A request that attaches to a job
 * (same request id; the store says whether it would) is not checked:
 * nothing is proved for it, and the engine compares its content.
 *
 * Must not: hold a lock across a store call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "cuzk_files.h"
#include "cuzk_tools.h"
#include "server/http.h"
#include "server/jobs.h"
#include "server/log.h"
#include "server/submit_body.h"

/* Longest deadline_ms accepted: a year.  Larger values would overflow the
 * engine's nanosecond clock arithmetic (a job that expires at once). */
#define MAX_DEADLINE_MS (365ULL * 24 * 3600 * 1000)

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
        if (!strcasecmp(s, cuzkd_priority_names[i]))
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
 * 0 after replying.  Out: |*held|, the circuit's entry, kept from being
 * unloaded for room until the job is submitted (cuzkd_circuit_put). */
static int check_job(cuzkd_request *r, const submit_req *q, const cuzk_key_info *key,
                     const cuzk_submit_opts *o, cuzkd_circuit **held, enum MHD_Result *reply) {
    cuzkd_server *srv = r->srv;
    const cuzk_wc_circuit *c = NULL;
    cuzk_error err = {0};
    *held = NULL;
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
        if ((s = cuzkd_circuit_get(srv, path, &c, held, &err)) != CUZK_OK) {
            *reply = http_error_status(r, s, err.msg);
            return 0;
        }
    }
    s = cuzk_submit_check(srv->engine, o, &err);
    if (c)
        cuzkd_circuit_put(srv, c, s == CUZK_OK ? NULL : *held);
    if (s == CUZK_OK)
        return 1;
    *held = NULL;
    /* The client's data: 400 whatever the kind (EUNSUPPORTED too: a key that
     * proves images only, a circuit of an old circom), but for what is not:
     * memory (503) and the daemon's own faults, such as a machine without
     * the circuit compilers (EINTERNAL, 500). */
    unsigned code = s == CUZK_ENOMEM ? 503 : s == CUZK_EINTERNAL ? 500 : 400;
    *reply = http_error(r, code, cuzk_status_name(s), "%s", err.msg);
    return 0;
}

static int refuse_draining(cuzkd_request *r, enum MHD_Result *reply) {
    if (!atomic_load(&r->srv->draining))
        return 0;
    *reply = http_error(r, 503, "draining", "cuzkd is shutting down and takes no new jobs");
    return 1;
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
    if (r->srv->store->attaches(r->srv, q.request_id))
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

static enum MHD_Result refused(cuzkd_request *r, const cuzkd_refusal *no) {
    return http_error(r, no->http, no->code, "%s", no->msg);
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
    cuzkd_circuit *held = NULL;
    int attach = srv->store->attaches(srv, q->request_id);
    /* The request's circuit by its real path, attach or not: the engine
     * compares it with the job's. */
    if (q->circuit && !realpath(q->circuit, wasm)) {
        if (!attach)
            return http_error(r, 404, "ENOTFOUND", "circuit %s: no such file", q->circuit);
        snprintf(wasm, sizeof wasm, "%s", q->circuit);
    }
    cuzkd_job_req j = {.opts = {.key = q->key,
                                .request_id = q->request_id,
                                .priority = q->priority,
                                .deadline_ms = q->deadline_ms,
                                .witnesses = q->w,
                                .n_witnesses = q->n,
                                .circuit = wasm[0] ? wasm : NULL},
                       .inputs = q->inputs,
                       .client = r->client,
                       .upload = r->upload};
    if (attach && q->key[0] != '/') {
        cuzkd_key_unalias(srv, q->key, attach_key);
        j.opts.key = attach_key;
    } else if (!attach) {
        if ((s = cuzkd_key_ready(srv, q->key, &key, &err)) != CUZK_OK)
            return s == CUZK_ENOTFOUND ? http_error(r, 404, "ENOTFOUND",
                                                    "unknown key '%s': neither a key id nor "
                                                    "a readable .zkey path",
                                                    q->key)
                                       : http_error_status(r, s, err.msg);
        j.opts.key = key.id;
        j.key = &key;
        if (!check_job(r, q, &key, &j.opts, &held, &reply))
            return reply;
    }
    json_t *doc = NULL;
    cuzkd_refusal no;
    int taken = srv->store->submit(srv, &j, &doc, &no);
    if (held) /* the job holds its circuit now, if it was taken */
        cuzkd_circuit_put(srv, NULL, held);
    if (!taken)
        return refused(r, &no);
    return http_json(r, 202, doc);
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

/* ---- status, result, cancel -------------------------------------------------------- */

enum MHD_Result api_jobs_status(cuzkd_request *r) {
    json_t *doc = NULL;
    cuzkd_refusal no;
    if (!r->srv->store->status(r->srv, r->param, &doc, &no))
        return refused(r, &no);
    return http_json(r, 200, doc);
}

/* The query of a result request: timeout_ms (default 30 s, capped to
 * max_await_ms) and format json|raw (*raw).  0 after replying 400. */
static int result_query(cuzkd_request *r, uint64_t *timeout_ms, int *raw,
                        enum MHD_Result *reply) {
    const char *format = http_query(r, "format");
    *timeout_ms = 30000;
    if (http_query_u64(r, "timeout_ms", timeout_ms) < 0) {
        *reply = http_error(r, 400, "EINVAL", "timeout_ms must be a non-negative integer");
        return 0;
    }
    if (format && strcmp(format, "json") && strcmp(format, "raw")) {
        *reply = http_error(r, 400, "EINVAL", "format must be json or raw");
        return 0;
    }
    *raw = format && !strcmp(format, "raw");
    if (*timeout_ms > r->srv->cfg->max_await_ms)
        *timeout_ms = r->srv->cfg->max_await_ms;
    return 1;
}

enum MHD_Result api_jobs_result(cuzkd_request *r) {
    uint64_t timeout_ms;
    int raw;
    enum MHD_Result reply = MHD_NO;
    if (!result_query(r, &timeout_ms, &raw, &reply))
        return reply;
    cuzkd_job_result out = {0};
    cuzkd_refusal no;
    if (!r->srv->store->result(r->srv, r->param, timeout_ms, raw, &out, &no))
        return refused(r, &no);
    if (!out.ended && atomic_load(&r->srv->stopping)) {
        json_decref(out.doc);
        return http_error(r, 503, "draining",
                          "cuzkd is stopping; the job did not finish (resubmit it, with the "
                          "same request id, once the daemon is back)");
    }
    if (!out.ended)
        return http_json(r, 202, out.doc);
    if (out.raw)
        return http_bytes(r, 200, "application/octet-stream", out.raw, out.raw_len, 1);
    return http_json(r, 200, out.doc);
}

enum MHD_Result api_jobs_cancel(cuzkd_request *r) {
    json_t *doc = NULL;
    cuzkd_refusal no;
    if (!r->srv->store->cancel(r->srv, r->param, r->client, &doc, &no))
        return refused(r, &no);
    return http_json(r, 200, doc);
}
