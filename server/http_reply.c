/*
 * cuzkd's replies and HTTP counters (server/http.h): JSON and error
 * replies with the status each cuzk_status maps to, query, header and
 * body helpers for the handlers, and the per-code counts and latency
 * buckets of /metrics.  Queuing a reply on its connection (headers,
 * lingering close) stays in http.c with the connection's state.
 *
 * Must not: touch a connection's state or block.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server/front.h"
#include "server/jobs.h"
#include "server/log.h"

enum MHD_Result http_json(cuzkd_request *r, unsigned code, json_t *obj) {
    char *text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
    json_decref(obj);
    if (!text) {
        static const char oom[] = "{\"error\":\"out of memory\",\"code\":\"ENOMEM\"}";
        return http_bytes(r, 500, "application/json", (void *)oom, sizeof oom - 1, 0);
    }
    size_t n = strlen(text);
    /* A trailing newline makes curl output and logs readable. */
    char *t = realloc(text, n + 2);
    if (t) {
        t[n++] = '\n';
        t[n] = 0;
        text = t;
    }
    return http_bytes(r, code, "application/json", text, n, 1);
}

json_t *jtext(const char *s) {
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

enum MHD_Result http_error(cuzkd_request *r, unsigned code, const char *code_name, const char *fmt,
                           ...) {
    char msg[CUZK_ERROR_MSG_BYTES + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return http_json(r, code, json_pack("{s:o, s:s}", "error", jtext(msg), "code", code_name));
}

unsigned http_code_for_status(cuzk_status s) {
    switch (s) {
    case CUZK_OK:
        return 200;
    case CUZK_EINVAL:
    case CUZK_EFORMAT:
    case CUZK_ERANGE:
    case CUZK_ENOTONCURVE:
    case CUZK_ENOTINSUBGROUP:
    case CUZK_ECURVE:
    case CUZK_EUNSUPPORTED:
        return 400;
    case CUZK_ENOTFOUND:
        return 404;
    case CUZK_EMISMATCH:
    case CUZK_ECONFLICT:
        return 409;
    case CUZK_EBUSY:
    case CUZK_ECANCELLED:
        return 503;
    default:
        return 500;
    }
}

enum MHD_Result http_error_status(cuzkd_request *r, cuzk_status s, const char *msg) {
    return http_error(r, http_code_for_status(s), cuzk_status_name(s), "%s",
                      msg && *msg ? msg : cuzk_status_text(s));
}

const char *http_query(cuzkd_request *r, const char *name) {
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *http_header(cuzkd_request *r, const char *name) {
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

int http_query_u64(cuzkd_request *r, const char *name, uint64_t *out) {
    const char *v = http_query(r, name);
    if (!v)
        return 0;
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end)
        return -1;
    *out = x;
    return 1;
}

json_t *http_body_json(cuzkd_request *r, enum MHD_Result *reply) {
    json_error_t je;
    json_t *j = json_loadb(r->body ? r->body : "", r->body_len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        *reply = http_error(r, 400, "EFORMAT", "malformed JSON body: %s (line %d, column %d)",
                            je.text, je.line, je.column);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        *reply = http_error(r, 400, "EFORMAT", "the JSON body must be an object");
        return NULL;
    }
    return j;
}

/* ---- HTTP counters ------------------------------------------------------------- */

static const unsigned counted_codes[CUZKD_HTTP_CODES] = {200, 202, 400, 401, 403, 404, 405,
                                                         408, 409, 413, 429, 500, 503, 0};
static const double bucket_s[CUZKD_HTTP_BUCKETS] = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                    0.25,  0.5,   1,    2.5,   10,   60};

void http_stats_add(cuzkd_http_stats *st, unsigned code, uint64_t ns) {
    unsigned i = 0;
    while (i < CUZKD_HTTP_CODES && !(counted_codes[i] == code && code))
        i++;
    atomic_fetch_add(&st->by_code[i], 1);
    unsigned b = 0;
    while (b < CUZKD_HTTP_BUCKETS && ns / 1e9 > bucket_s[b])
        b++;
    atomic_fetch_add(&st->buckets[b], 1);
    atomic_fetch_add(&st->count, 1);
    atomic_fetch_add(&st->sum_ns, ns);
}

void cuzkd_http_stats_render(cuzkd_server *srv, unsigned clients, char **text, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) {
        *text = NULL;
        *len = 0;
        return;
    }
    cuzkd_http_stats *st = &srv->http;
    fprintf(f, "# HELP cuzkd_http_requests_total HTTP requests answered, by status code.\n"
               "# TYPE cuzkd_http_requests_total counter\n");
    for (unsigned i = 0; i <= CUZKD_HTTP_CODES; i++) {
        if (i < CUZKD_HTTP_CODES && !counted_codes[i])
            continue;
        char code[16];
        if (i < CUZKD_HTTP_CODES)
            snprintf(code, sizeof code, "%u", counted_codes[i]);
        else
            snprintf(code, sizeof code, "other");
        fprintf(f, "cuzkd_http_requests_total{code=\"%s\"} %llu\n", code,
                (unsigned long long)atomic_load(&st->by_code[i]));
    }
    fprintf(f, "# HELP cuzkd_http_request_seconds Time from a request's first byte to its "
               "response.\n# TYPE cuzkd_http_request_seconds histogram\n");
    uint64_t cum = 0;
    for (unsigned b = 0; b <= CUZKD_HTTP_BUCKETS; b++) {
        cum += atomic_load(&st->buckets[b]);
        if (b < CUZKD_HTTP_BUCKETS)
            fprintf(f, "cuzkd_http_request_seconds_bucket{le=\"%g\"} %llu\n", bucket_s[b],
                    (unsigned long long)cum);
        else
            fprintf(f, "cuzkd_http_request_seconds_bucket{le=\"+Inf\"} %llu\n",
                    (unsigned long long)cum);
    }
    fprintf(f, "cuzkd_http_request_seconds_sum %.9f\ncuzkd_http_request_seconds_count %llu\n",
            atomic_load(&st->sum_ns) / 1e9, (unsigned long long)atomic_load(&st->count));
    fprintf(f,
            "# HELP cuzkd_clients Clients with jobs in flight.\n# TYPE cuzkd_clients gauge\n"
            "cuzkd_clients %u\n",
            clients);
    fprintf(f,
            "# HELP cuzkd_connections Open HTTP connections.\n"
            "# TYPE cuzkd_connections gauge\ncuzkd_connections %u\n",
            cuzkd_http_connections(srv));
    cuzkd_intake_counts ic;
    cuzkd_intake_stats(srv, &ic);
    fprintf(f,
            "# HELP cuzkd_upload_bytes Upload buffers: budget, held (mapped), in use "
            "(receiving or not yet read by the engine), idle (kept for reuse).\n"
            "# TYPE cuzkd_upload_bytes gauge\n"
            "cuzkd_upload_bytes{state=\"budget\"} %llu\ncuzkd_upload_bytes{state=\"held\"} %llu\n"
            "cuzkd_upload_bytes{state=\"in_use\"} %llu\ncuzkd_upload_bytes{state=\"idle\"} %llu\n"
            "# HELP cuzkd_upload_buffers_total Upload buffers handed out, how many of them "
            "had to wait for room, and how many were newly mapped (not reused).\n"
            "# TYPE cuzkd_upload_buffers_total counter\n"
            "cuzkd_upload_buffers_total{event=\"get\"} %llu\n"
            "cuzkd_upload_buffers_total{event=\"wait\"} %llu\n"
            "cuzkd_upload_buffers_total{event=\"map\"} %llu\n",
            (unsigned long long)ic.budget, (unsigned long long)ic.held,
            (unsigned long long)ic.in_use, (unsigned long long)ic.idle,
            (unsigned long long)ic.gets, (unsigned long long)ic.waits,
            (unsigned long long)ic.maps);
    fprintf(f,
            "# HELP cuzkd_draining 1 after SIGTERM, while in-flight jobs finish.\n"
            "# TYPE cuzkd_draining gauge\ncuzkd_draining %d\n",
            atomic_load(&srv->draining));
    fclose(f);
    *text = buf;
    *len = n;
}

const char *const cuzkd_priority_names[4] = {"low", "normal", "high", "critical"};

/* ---- responses ------------------------------------------------------------------ */

enum MHD_Result http_queue(cuzkd_request *r, unsigned code, struct MHD_Response *resp,
                           const char *content_type) {
    if (!resp) {
        LOG_ERROR("http", "cannot create a response (out of memory)");
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (code == 401)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"cuzkd\"");
    if (!strncmp(content_type, "text/html", 9))
        /* The page is self-contained: it may run its own inline script and
         * talk to this daemon, and nothing else. */
        MHD_add_response_header(resp, "Content-Security-Policy",
                                "default-src 'none'; script-src 'unsafe-inline'; "
                                "style-src 'unsafe-inline'; connect-src 'self'; img-src data:");
    r->code = code;
    r->handled = 1;
    /* A TCP client without the token (the page, a 401) keeps no
     * connection: one kept between requests would hold its thread. */
    if (r->is_tcp && !r->authed && !MHD_get_response_header(resp, MHD_HTTP_HEADER_CONNECTION))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    if (r->in_first_call && r->body_pending) {
        /* Answered before its body: the connection closes after the
         * answer, lingering (see "lingering"). */
        if (!MHD_get_response_header(resp, MHD_HTTP_HEADER_CONNECTION))
            MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
        r->linger = 1; /* http.c marks the connection when the call returns */
    }
    enum MHD_Result ret = MHD_queue_response(r->conn, code, resp);
    MHD_destroy_response(resp);
    return ret;
}

enum MHD_Result http_bytes(cuzkd_request *r, unsigned code, const char *content_type, void *buf,
                           size_t len, int owned) {
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, buf, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp && owned)
        free(buf);
    return http_queue(r, code, resp, content_type);
}

unsigned cuzkd_http_connections(cuzkd_server *srv) {
    int n = atomic_load(&srv->connections);
    return n > 0 ? (unsigned)n : 0;
}

int http_valid_id(const char *id) {
    size_t n = strlen(id);
    if (!n || n > CUZK_ID_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)id[i];
        if (ch <= ' ' || ch >= 127 || strchr("/?#%\"\\", ch))
            return 0;
    }
    return 1;
}

int cuzkd_refuse(cuzkd_refusal *no, unsigned http, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    no->http = http;
    snprintf(no->code, sizeof no->code, "%s", code);
    vsnprintf(no->msg, sizeof no->msg, fmt, ap);
    va_end(ap);
    return 0;
}
