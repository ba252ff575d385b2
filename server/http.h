/*
 * cuzkd's HTTP layer over libmicrohttpd: listeners (unix socket, TCP),
 * routing, bearer-token auth, body limits, JSON errors, request logging and
 * the HTTP counters behind /metrics.
 *
 * Threading: every open connection has its own MHD thread (at most
 * `threads` per listener), so a handler may block (a result wait, a key
 * load) without holding up any other client.  Handlers run on those
 * threads and call only the engine's thread-safe API.
 *
 * A handler gets a cuzkd_request with the route's path parameter and the
 * complete body, and must answer with exactly one of the http_* reply
 * functions below (each returns the MHD result to return).
 */
#ifndef CUZKD_HTTP_H
#define CUZKD_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#include "server/server.h"

/* What a route does with a request body.  BODY_UPLOAD: the submit route,
 * whose body (JSON or uploaded witnesses) goes into an upload buffer. */
enum { BODY_NONE = 0, BODY_JSON = 1, BODY_UPLOAD = 2 };

typedef struct cuzkd_request {
    cuzkd_server *srv;
    struct MHD_Connection *conn;
    const char *method;
    char path[512];              /* the URL path, for the log line */
    char param[CUZK_ID_MAX * 4]; /* {request_id} / {id} of the route */
    char client[CUZKD_CLIENT_MAX];
    int is_tcp;
    int authed; /* unix socket, or TCP with the token */
    uint64_t start_ns;
    unsigned code; /* status sent (0: none yet) */
    int quiet;     /* log a 2xx at debug level (polled endpoints) */
    const struct cuzkd_route *route;
    /* body */
    int body_kind; /* BODY_*: a submit is BODY_UPLOAD for octet-stream, else JSON */
    char *body;
    size_t body_len, body_cap, body_max;
    int body_overflow;
    /* Submit bodies are received in an upload buffer (intake.c): |body|
     * is upload->p.  The request holds one reference, dropped when it
     * completes; witnesses handed to the engine hold their own. */
    cuzkd_upload *upload;
    int handled;
    /* The request has a body (Content-Length over 0, or chunked), and we
     * are in its first call: an answer then closes the connection
     * lingering (http.c). */
    int body_pending, in_first_call;
    /* Answered in its first call with its body pending (http_queue): the
     * connection closes lingering once the call returns (http.c). */
    int linger;
    uint64_t body_start_ns; /* when the body's deadline started (end of the first call) */
    size_t body_seen;       /* body bytes received, kept or dropped */
} cuzkd_request;

typedef enum MHD_Result (*cuzkd_handler)(cuzkd_request *r);

/* Start the listeners of srv->cfg (unix socket and/or TCP).  The unix
 * socket is created here: a stale one is removed, a live one (another
 * daemon answers) is refused.  Returns CUZK_OK, or CUZK_EBUSY (another
 * daemon) / CUZK_EIO with the reason. */
cuzk_status cuzkd_http_start(cuzkd_server *srv, cuzk_error *err);
/* Stop the listeners (open connections are closed) and remove the socket
 * file if it is still the one this process made. */
void cuzkd_http_stop(cuzkd_server *srv);
/* Remove the socket file if it is ours: for the immediate-exit path (safe
 * to call from any thread, no allocation). */
void cuzkd_http_unlink_socket(cuzkd_server *srv);
/* Connections open now over all listeners. */
unsigned cuzkd_http_connections(cuzkd_server *srv);

/* ---- replies -------------------------------------------------------------- */

/* Send |obj| (reference stolen) as JSON. */
enum MHD_Result http_json(cuzkd_request *r, unsigned code, json_t *obj);
/* A JSON string of |s| (never NULL but for lack of memory): text from
 * outside (file paths, engine messages) need not be UTF-8, which jansson
 * refuses, so bytes that do not form UTF-8 become '?'. */
json_t *jtext(const char *s);
/* The names of the priorities, by cuzk_priority ("low" .. "critical"). */
extern const char *const cuzkd_priority_names[4];
/* Send {"error": msg, "code": code_name}. */
enum MHD_Result http_error(cuzkd_request *r, unsigned code, const char *code_name, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));
/* Send an engine failure with the HTTP status that fits |s|. */
enum MHD_Result http_error_status(cuzkd_request *r, cuzk_status s, const char *msg);
unsigned http_code_for_status(cuzk_status s);
/* Queue |resp| (taken over) as the answer: the headers every answer has,
 * and those a request that ends its connection needs. */
enum MHD_Result http_queue(cuzkd_request *r, unsigned code, struct MHD_Response *resp,
                           const char *content_type);
/* Send |len| bytes; |owned|: the buffer is malloc'd and taken over. */
enum MHD_Result http_bytes(cuzkd_request *r, unsigned code, const char *content_type, void *buf,
                           size_t len, int owned);

/* A query parameter, or NULL. */
const char *http_query(cuzkd_request *r, const char *name);
/* A request header, or NULL. */
const char *http_header(cuzkd_request *r, const char *name);
/* Parse a query parameter as a non-negative integer: 1 and |*out| set,
 * 0 absent (|*out| untouched), -1 malformed. */
int http_query_u64(cuzkd_request *r, const char *name, uint64_t *out);
/* 1 if |id| may be a request or key id: 1..CUZK_ID_MAX bytes, none of them
 * '/', '?', '#', '%', quotes, backslash, spaces or control characters, so
 * every id can be named in a URL path (/v1/jobs/{id}, /v1/keys/{id}). */
int http_valid_id(const char *id);
/* Parse the JSON body into an object: NULL after having replied 400. */
json_t *http_body_json(cuzkd_request *r, enum MHD_Result *reply);

/* The daemon's own /metrics text (HTTP counters, |clients| with jobs in
 * flight, connections, uploads); malloc'd into *text. */
void cuzkd_http_stats_render(cuzkd_server *srv, unsigned clients, char **text, size_t *len);
/* Count one answered request of |code| that took |ns| (http_reply.c). */
void http_stats_add(cuzkd_http_stats *st, unsigned code, uint64_t ns);

/* ---- paths.c: files named by clients ------------------------------------------ */

/* May request |r| name the file |path| (as |what|: "witness", "key",
 * "circuit")?  Unix-socket clients may; TCP clients only under
 * remote_paths, and in a fleet every client for a key or circuit (the
 * path goes into the job row).  0 after replying 403. */
int cuzkd_path_allowed(cuzkd_request *r, const char *path, const char *what,
                       enum MHD_Result *reply);
/* A key or circuit path named by a fleet job row, checked as a TCP
 * client's (never opened here): OK (a regular file under remote_paths),
 * ABSENT (no such file here, or not absolute: another node may have it),
 * NOT_FILE (it exists and is not a regular file: nobody can prove the
 * row), FORBIDDEN (outside remote_paths).  |why| says which. */
typedef enum {
    ROW_PATH_OK,
    ROW_PATH_ABSENT,
    ROW_PATH_NOT_FILE,
    ROW_PATH_FORBIDDEN
} cuzkd_row_path;
cuzkd_row_path cuzkd_row_path_check(const cuzkd_config *cfg, const char *path, const char *what,
                                    char *why, size_t n);
/* |path| is a regular file that starts like a .zkey (opened non-blocking):
 * CUZK_OK, CUZK_ENOTFOUND, CUZK_EINVAL (not a regular file) or CUZK_EFORMAT. */
cuzk_status cuzkd_key_file_check(const char *path, cuzk_error *err);

/* ---- handlers (api_*.c) ------------------------------------------------------ */

enum MHD_Result api_jobs_submit(cuzkd_request *r);
enum MHD_Result api_jobs_status(cuzkd_request *r);
enum MHD_Result api_jobs_result(cuzkd_request *r);
enum MHD_Result api_jobs_cancel(cuzkd_request *r);
/* The status page's job lists: {"active": [up to |max_active| jobs in
 * flight], "recent": [the last finished ones, newest first]}. */
json_t *cuzkd_jobs_json(cuzkd_server *srv, size_t max_active);
/* First call of a submit, before its body is read: 503 while draining, 429
 * at the client's limit.  Returns 1 if it replied. */
int api_jobs_submit_precheck(cuzkd_request *r, enum MHD_Result *reply);

enum MHD_Result api_keys_list(cuzkd_request *r);
enum MHD_Result api_keys_get(cuzkd_request *r);
enum MHD_Result api_keys_import(cuzkd_request *r);
enum MHD_Result api_keys_preload(cuzkd_request *r);
enum MHD_Result api_keys_evict(cuzkd_request *r);
/* Find key |ref| (an id, or the path of a .zkey) and make sure its curve
 * and size are known, loading it if it never was.  Out: |info|.  Returns
 * CUZK_OK or the failure (CUZK_ENOTFOUND: neither an id nor a file). */
cuzk_status cuzkd_key_ready(cuzkd_server *srv, const char *ref, cuzk_key_info *info,
                            cuzk_error *err);
/* A key object; "circuit" is the .wasm registered with it ("" if none). */
json_t *cuzkd_key_json(cuzkd_server *srv, const cuzk_key_info *k);

enum MHD_Result api_status(cuzkd_request *r);
enum MHD_Result api_metrics(cuzkd_request *r);
enum MHD_Result api_trace(cuzkd_request *r);
enum MHD_Result api_healthz(cuzkd_request *r);
enum MHD_Result api_page(cuzkd_request *r);

/* page.c */
extern const char cuzkd_page_html[];

/* One route (routes.c). */
typedef struct cuzkd_route {
    const char *method;
    const char *prefix; /* the whole path when !param */
    const char *suffix; /* after the parameter */
    int param;
    int body;
    int quiet; /* polled: a 2xx is logged at debug level */
    cuzkd_handler fn;
    /* The submit's: checks made before the body is read (1 after
     * replying); its body has the upload limits. */
    int (*precheck)(cuzkd_request *r, enum MHD_Result *reply);
} cuzkd_route;

/* The route for |method| |path| (its parameter into |param|, |cap|
 * bytes); NULL with |*shape| set when the path exists under other methods
 * (405), NULL with |*shape| NULL if not (404). */
const cuzkd_route *http_route_find(const char *method, const char *path, char *param,
                                   size_t cap, const cuzkd_route **shape);
/* The methods of the routes of |shape|'s path, comma separated (Allow). */
void http_allowed_methods(const cuzkd_route *shape, char *out, size_t cap);

#endif
