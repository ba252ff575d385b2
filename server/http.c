/*
 * HTTP glue (see http.h): listeners, the libmicrohttpd callbacks, routing,
 * auth, body limits, replies and the HTTP counters.
 *
 * A request passes through on_request in three phases:
 *   1. first call (no body yet): identify the client, check the token
 *      (TCP), find the route (404/405), check the declared body size (413)
 *      and, for a submit, whether the daemon takes jobs (503/429), so that
 *      refused requests are answered before their body is read;
 *   2. body chunks: appended up to the route's limit;
 *   3. last call: the route's handler replies.
 * on_completed logs the request, counts it and frees its state.
 *
 * Slow clients: a new TCP connection waits for its request head in the
 * front door (front.c), an epoll thread, and gets a thread of its own only
 * once the head is whole, so that connections trickling their heads hold
 * no thread; every connection has a deadline for its request's headers
 * and body (request_timeout_s) that trickled bytes do not extend, enforced
 * by a reaper thread, and TCP connections are limited per client address
 * (max_connections_per_ip); see "connection deadlines" below.  A TCP
 * request without the token is answered and its connection closed, so a
 * connection kept open between requests is an authorised client's.
 * Measured: 300 trickling connections from one address used to leave an
 * authorised client 2 answers in 15 tries; now 15 of 15
 * (docs/PERFORMANCE.md).
 *
 * Must not: hold any lock while calling a handler, or let a handler's
 * failure stop the listener (every failure is a reply or a closed
 * connection).
 */
#define _GNU_SOURCE
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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server/front.h"
#include "server/log.h"

/* JSON bodies (submit by path, key import) are small; a larger one is a
 * mistake or an attack and is refused without reading it. */
#define JSON_BODY_MAX ((size_t)1 << 20)
/* Bodies sent to routes that take none are read and dropped up to this. */
#define IGNORED_BODY_MAX ((size_t)64 << 10)
/* A request refused before its body arrived (401, 404, 405, 413, 503...)
 * is answered at once and its connection closed; what the client still
 * sends is then read and dropped, up to this many bytes and for at most
 * request_timeout_s (a lingering close, see "lingering" below), so that a
 * client that sent its body without waiting reads the answer rather than
 * a reset. */
#define LINGER_MAX_BYTES ((size_t)16 << 20)
/* Per-connection memory for headers and read buffers (MHD's pool). */
#define CONNECTION_MEMORY_BYTES ((size_t)128 << 10)
/* Stack of each connection thread: handlers are shallow (JSON, engine
 * calls); the default 8 MiB per connection would be mostly waste. */
#define CONNECTION_STACK_BYTES ((size_t)512 << 10)
/* At most one log line per this many ns for refused tokens (401). */
#define UNAUTH_LOG_NS (10ULL * 1000000000ULL)

struct cuzkd_listener {
    cuzkd_server *srv;
    struct MHD_Daemon *d;
    int fd;
    int is_tcp;
    cuzkd_front *front; /* TCP: connections wait there for their head (front.c) */
};

/* ---- connection deadlines ------------------------------------------------------
 *
 * libmicrohttpd's connection timeout restarts with every byte received, so
 * a client trickling one byte a second keeps a connection (and, with a
 * thread per connection, a thread) forever; a few hundred such clients
 * used to take every connection of a listener.  Each connection therefore
 * has a deadline for its request's headers (request_timeout_s from its
 * opening or from the end of its previous request) and one for the body
 * (request_timeout_s more, plus a second per MiB received: a deadline
 * from the declared length let a body that declared 64 MiB and then
 * trickled hold its upload buffer for a minute).  A reaper thread shuts down the socket of a connection past its
 * deadline; the connection's own thread then sees the end of the stream and
 * MHD closes it.  No deadline applies while a handler runs (a result wait
 * or a key load may be long) or while the response is sent (MHD's idle
 * timeout covers a client that stops reading).
 *
 * The reaper acts on its own duplicate of the socket descriptor, so a
 * descriptor number reused after MHD closed the connection can never be
 * shut down by mistake. */

enum { PHASE_HEADERS = 0, PHASE_BODY = 1, PHASE_HANDLER = 2 };

typedef struct conn_ctx {
    int fd; /* our duplicate of the connection's socket, or -1 */
    int phase;
    int linger;           /* answered before its body: lingering close */
    uint64_t deadline_ns; /* PHASE_HEADERS, PHASE_BODY; when lingering, its end */
    uint64_t grace_ns;    /* request_timeout_s: a deadline's extension (client_waits) */
    size_t linger_left;   /* bytes still to read and drop */
    struct conn_ctx *prev, *next;
} conn_ctx;

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static conn_ctx *conns;
/* ---- lingering ----------------------------------------------------------------
 *
 * A request refused from its headers is answered at once, and the
 * connection cannot be kept (the body's bytes are on their way).  Closing
 * a socket with unread bytes makes the kernel reset the connection, and a
 * reset can destroy the answer before the client has read it; a client
 * that waits for the answer before sending gets it at once.  When MHD
 * closes such a connection our duplicate of the descriptor keeps the
 * socket open: the reaper then shuts its sending side down (the client
 * sees the end of the answer) and reads and drops what still arrives until
 * the client closes, LINGER_MAX_BYTES have come or request_timeout_s has
 * passed; then it closes the socket.  (nginx's lingering close.) */
static conn_ctx *lingering;
static unsigned n_lingering;
static pthread_t reaper;
static int reaper_started, reaper_stop;
static pthread_cond_t reaper_cv = PTHREAD_COND_INITIALIZER;
#define REAPER_INTERVAL_MS 250

static uint64_t seconds_ns(uint64_t s) { return s * 1000000000ULL; }

/* The connection's own record (set when libmicrohttpd accepted it). */
static conn_ctx *conn_of(struct MHD_Connection *conn) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void conn_set_phase(struct MHD_Connection *conn, int phase, uint64_t allow_ns) {
    conn_ctx *c = conn_of(conn);
    if (!c)
        return;
    pthread_mutex_lock(&conns_lock);
    c->phase = phase;
    c->deadline_ns = cuzk_now_ns() + allow_ns;
    pthread_mutex_unlock(&conns_lock);
}

static void conn_mark_linger(struct MHD_Connection *conn) {
    conn_ctx *c = conn_of(conn);
    if (!c)
        return;
    pthread_mutex_lock(&conns_lock);
    c->linger = 1;
    pthread_mutex_unlock(&conns_lock);
}

/* conns_lock held: read and drop what lingering connections have
 * received; close those done. */
static void linger_drain_locked(uint64_t now) {
    static char sink[64 << 10];
    for (conn_ctx **pp = &lingering; *pp;) {
        conn_ctx *c = *pp;
        int done = now > c->deadline_ns;
        while (!done) {
            ssize_t n = recv(c->fd, sink, sizeof sink, MSG_DONTWAIT);
            if (n > 0 && (size_t)n < c->linger_left)
                c->linger_left -= (size_t)n;
            else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                break;
            else
                done = 1; /* the client closed, an error, or enough read */
        }
        if (done) {
            close(c->fd);
            *pp = c->next;
            n_lingering--;
            free(c);
        } else {
            pp = &c->next;
        }
    }
}

/* Whether |c|, past its deadline, is waiting on this daemon rather than
 * the other way round: its whole request head lies unread in the socket,
 * or a body has filled a good part of the socket's buffer.  On a machine
 * whose cores are all busy a connection's thread can take seconds to
 * read what came at once; that is not a slow client, and cutting it off
 * refused clients that had sent everything. */
static int client_waits(const conn_ctx *c) {
    static char head[32 << 10]; /* the reaper's own: one thread */
    int avail = 0;
    if (ioctl(c->fd, FIONREAD, &avail) != 0 || avail <= 0)
        return 0;
    if (c->phase == PHASE_BODY)
        return avail >= (64 << 10);
    ssize_t got = recv(c->fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
    return got > 0 && cuzkd_head_complete(head, (size_t)got);
}

static void *reaper_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&conns_lock);
    while (!reaper_stop) {
        struct timespec ts;
        /* Lingering sockets are read often, so that a client's sending is
         * not held up by a full receive buffer for long. */
        cuzkd_deadline_in(&ts, CLOCK_REALTIME, n_lingering ? 20 : REAPER_INTERVAL_MS);
        pthread_cond_timedwait(&reaper_cv, &conns_lock, &ts);
        uint64_t now = cuzk_now_ns();
        linger_drain_locked(now);
        for (conn_ctx *c = conns; c; c = c->next)
            if (c->phase != PHASE_HANDLER && c->fd >= 0 && now > c->deadline_ns &&
                client_waits(c)) {
                c->deadline_ns = now + c->grace_ns;
            } else if (c->phase != PHASE_HANDLER && c->fd >= 0 && now > c->deadline_ns) {
                LOG_INFO("http", "connection closed: no complete request %s within its deadline "
                                 "(request_timeout_s)",
                         c->phase == PHASE_HEADERS ? "head" : "body");
                shutdown(c->fd, SHUT_RDWR);
                close(c->fd);
                c->fd = -1;
            }
    }
    pthread_mutex_unlock(&conns_lock);
    return NULL;
}

/* ---- replies ------------------------------------------------------------------- */

/* ---- client identity and auth --------------------------------------------------- */

static void client_identity(cuzkd_request *r, const cuzkd_listener *l) {
    const char *h = http_header(r, "X-Cuzk-Client");
    if (h && *h) {
        /* Printable, no spaces: it goes into log lines and JSON. */
        size_t n = 0;
        for (; h[n] && n + 1 < sizeof r->client; n++)
            r->client[n] = (h[n] > ' ' && h[n] < 127 && h[n] != '"' && h[n] != '\\') ? h[n] : '_';
        r->client[n] = 0;
        return;
    }
    if (!l->is_tcp) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (ci && getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
            snprintf(r->client, sizeof r->client, "uid:%u", (unsigned)cred.uid);
        else
            snprintf(r->client, sizeof r->client, "unix");
        return;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char addr[INET6_ADDRSTRLEN] = "?";
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr, sizeof addr);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr, sizeof addr);
    }
    snprintf(r->client, sizeof r->client, "ip:%s", addr);
}

/* Compare a presented token with the expected one in time that depends
 * only on the expected token's length, so a client cannot find the token
 * byte by byte by timing failures. */
static int token_equal(const char *given, const char *expected) {
    size_t ng = strlen(given), ne = strlen(expected);
    unsigned char diff = ng != ne;
    for (size_t i = 0; i < ne; i++)
        diff |= (unsigned char)(expected[i] ^ (ng ? (unsigned char)given[i % ng] : 0xff));
    return diff == 0;
}

static int authorized(cuzkd_request *r) {
    const char *h = http_header(r, MHD_HTTP_HEADER_AUTHORIZATION);
    const char *tok = r->srv->cfg->token_value;
    if (!h || !tok || strncasecmp(h, "Bearer ", 7))
        return 0;
    h += 7;
    while (*h == ' ')
        h++;
    return token_equal(h, tok);
}

/* ---- the MHD callbacks ----------------------------------------------------------- */

/* Bytes a body must arrive at, on average, after its first
 * request_timeout_s: each MiB received buys a second more. */
#define BODY_MIN_RATE_SHIFT 20

/* |n| more body bytes arrived: the body's deadline is request_timeout_s
 * from its start plus a second per MiB received so far.  A body that stalls
 * or trickles is cut off (and its upload buffer given back) within about
 * request_timeout_s, whatever length it declared; one that keeps up a MiB a
 * second never is. */
static void body_progress(cuzkd_request *r, size_t n) {
    r->body_seen += n;
    uint64_t deadline = r->body_start_ns + seconds_ns(r->srv->cfg->request_timeout_s) +
                        (uint64_t)((double)r->body_seen * 1e9 / (1 << BODY_MIN_RATE_SHIFT));
    conn_ctx *c = conn_of(r->conn);
    if (!c)
        return;
    pthread_mutex_lock(&conns_lock);
    if (c->phase == PHASE_BODY)
        c->deadline_ns = deadline;
    pthread_mutex_unlock(&conns_lock);
}

static int body_append(cuzkd_request *r, const char *data, size_t n) {
    if (n > r->body_max - r->body_len) {
        r->body_overflow = 1;
        return 0;
    }
    if (r->body_kind == BODY_NONE) { /* read and dropped */
        r->body_len += n;
        return 1;
    }
    if (r->upload) {
        /* Only a body of unknown length grows; the budget must have room
         * now (a half-received body cannot wait without stalling TCP for
         * everyone's sake: it is refused instead). */
        if (r->body_len + n + 1 > r->upload->cap &&
            !cuzkd_intake_grow(r->srv, r->upload, r->body_len + n + 1))
            return 0;
        r->body = r->upload->p;
        r->body_cap = r->upload->cap;
    } else if (r->body_len + n + 1 > r->body_cap) {
        size_t cap = r->body_cap ? r->body_cap : 4096;
        while (cap < r->body_len + n + 1)
            cap *= 2;
        if (cap > r->body_max + 1)
            cap = r->body_max + 1;
        char *b = realloc(r->body, cap);
        if (!b)
            return 0;
        r->body = b;
        r->body_cap = cap;
    }
    memcpy(r->body + r->body_len, data, n);
    r->body_len += n;
    r->body[r->body_len] = 0;
    return 1;
}

/* How many Content-Length and Transfer-Encoding header lines a request has. */
typedef struct framing_headers {
    unsigned content_length, transfer_encoding;
} framing_headers;

static enum MHD_Result count_framing_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                            const char *value) {
    (void)kind;
    (void)value;
    framing_headers *f = cls;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
        f->content_length++;
    else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING))
        f->transfer_encoding++;
    return MHD_YES;
}

/* Is |te| the coding "chunked", as libmicrohttpd reads it (the whole value,
 * case aside; blanks after it make it something else to the library)? */
static int te_is_chunked(const char *te) { return te && !strcasecmp(te, "chunked"); }

/* Why the request's body cannot be delimited safely, or NULL when it can.
 * libmicrohttpd 0.9.75 reads a body as chunked only when the first
 * Transfer-Encoding line says exactly "chunked", and otherwise takes a
 * body without Content-Length to be empty: "identity", "gzip, chunked",
 * "chunked, identity" or a second line would leave the body's bytes to be
 * parsed as further requests (request smuggling, RFC 9112 section 6.1).
 * Only a single "chunked" is accepted, and only from HTTP/1.1 (an HTTP/1.0
 * message with Transfer-Encoding has faulty framing, 6.1 again); the
 * request is refused and the connection closed. */
static const char *framing_problem(cuzkd_request *r, const char *version) {
    framing_headers f = {0, 0};
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_framing_header, &f);
    if (f.content_length > 1)
        return "more than one Content-Length header";
    if (!f.transfer_encoding)
        return NULL;
    if (f.content_length)
        return "Content-Length together with Transfer-Encoding";
    if (f.transfer_encoding > 1)
        return "more than one Transfer-Encoding header";
    if (!te_is_chunked(http_header(r, MHD_HTTP_HEADER_TRANSFER_ENCODING)))
        return "Transfer-Encoding other than a single \"chunked\" (no other coding is "
               "supported)";
    if (version && strcmp(version, MHD_HTTP_VERSION_1_1))
        return "Transfer-Encoding in a request older than HTTP/1.1";
    return NULL;
}

/* The body length a Content-Length value declares: ~0 when it is not a
 * number (such a request is refused as too large). */
static unsigned long long declared_length(const char *cl) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(cl, &end, 10);
    return errno || *end || end == cl ? ~0ULL : n;
}

/* An error reply ({"error", "code"}, as http_error's) with one more header
 * (Connection: close, Allow): NULL response on no memory, which
 * http_queue answers for. */
static enum MHD_Result error_with_header(cuzkd_request *r, unsigned code, const char *msg,
                                         const char *code_name, const char *header,
                                         const char *value) {
    struct MHD_Response *resp = NULL;
    char *text = NULL;
    json_t *j = json_pack("{s:s, s:s}", "error", msg, "code", code_name);
    if (j && (text = json_dumps(j, JSON_COMPACT)))
        resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    json_decref(j);
    if (resp)
        MHD_add_response_header(resp, header, value);
    else
        free(text);
    return http_queue(r, code, resp, "application/json");
}

/* Phase 1: everything that can be decided before the body arrives. */
static enum MHD_Result first_call(cuzkd_request *r, cuzkd_listener *l, const char *url,
                                  const char *version) {
    cuzkd_server *srv = r->srv;
    client_identity(r, l);
    /* A body whose end is ambiguous (a proxy in front may read it
     * otherwise, and the bytes after it could pass for another request):
     * refused first, whoever asks, and the connection with it. */
    const char *framing = framing_problem(r, version);
    if (framing) {
        LOG_INFO("http", "%s %s: refused: %s, client=%s", r->method, r->path, framing, r->client);
        return error_with_header(r, 400, framing, "bad_request", MHD_HTTP_HEADER_CONNECTION,
                                 "close");
    }
    int public_page =
        (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD")) && !strcmp(url, "/");
    /* The page itself holds no data; it reads its token from the URL
     * fragment and sends it with every API call. */
    r->authed = !l->is_tcp || authorized(r);
    if (!r->authed && !public_page)
        return http_error(r, 401, "unauthorized",
                          "TCP requests need the header Authorization: Bearer <token>");
    const cuzkd_route *shape;
    r->route = http_route_find(r->method, url, r->param, sizeof r->param, &shape);
    if (!r->route) {
        if (!shape)
            return http_error(r, 404, "ENOTFOUND", "no such path: %s", r->path);
        char allow[64];
        http_allowed_methods(shape, allow, sizeof allow);
        return error_with_header(r, 405, "method not allowed here", "method_not_allowed",
                                 MHD_HTTP_HEADER_ALLOW, allow);
    }
    r->quiet = r->route->quiet;
    r->body_kind = r->route->body;
    if (r->body_kind == BODY_UPLOAD) {
        const char *ct = http_header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (!ct || strncasecmp(ct, "application/octet-stream", 24))
            r->body_kind = BODY_JSON; /* the JSON form of submit */
    }
    int submit = r->route->precheck != NULL; /* the one route that takes jobs */
    /* A submit's JSON may carry the inputs of many partitions: it has the
     * upload limit, not the one of small JSON bodies. */
    r->body_max = submit                      ? srv->cfg->max_body_bytes
                  : r->body_kind == BODY_JSON ? JSON_BODY_MAX
                                              : IGNORED_BODY_MAX;
    if (r->body_kind == BODY_JSON && r->body_max > srv->cfg->max_body_bytes)
        r->body_max = srv->cfg->max_body_bytes;
    /* A JSON submit is parsed into far more memory than its bytes: its own,
     * smaller limit (the parse is bounded too, see api_jobs.c). */
    int json_submit = submit && r->body_kind == BODY_JSON;
    if (json_submit && r->body_max > srv->cfg->max_input_bytes)
        r->body_max = srv->cfg->max_input_bytes;
    const char *cl = http_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
    unsigned long long declared = 0;
    if (cl) {
        declared = declared_length(cl);
        if (declared > r->body_max)
            return http_error(r, 413, "payload_too_large",
                              "request body of %s bytes is larger than the limit of %zu bytes%s",
                              cl, r->body_max,
                              json_submit ? " for JSON submits (max_input_bytes)" : "");
    }
    /* The body's deadline (body_progress) starts once this call returns
     * (on_request): a key load or a wait for upload room below is the
     * daemon's time, not the client's. */
    conn_set_phase(r->conn, PHASE_HANDLER, 0);
    enum MHD_Result reply = MHD_NO;
    if (submit && r->route->precheck(r, &reply))
        return reply;
    if (submit) {
        /* The whole body goes into one budgeted buffer, sized from
         * Content-Length when there is one.  Waiting for room happens here,
         * before the body is read, so a client that cannot be taken yet is
         * held back by TCP and costs no memory. */
        cuzk_error err = {0};
        size_t want = cl ? (size_t)declared + 1 : cuzkd_intake_chunked_start();
        cuzk_status s =
            cuzkd_intake_get(srv, want, srv->cfg->upload_wait_ms, &r->upload, &err);
        if (s == CUZK_ERANGE)
            return http_error(r, 413, "payload_too_large", "%s (upload_budget)", err.msg);
        if (s != CUZK_OK)
            return http_error(r, 503, cuzk_status_name(s), "%s", err.msg);
        r->body = r->upload->p;
        r->body_cap = r->upload->cap;
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls) {
    cuzkd_listener *l = cls;
    cuzkd_request *r = *con_cls;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return MHD_NO;
        *con_cls = r;
        r->srv = l->srv;
        r->conn = conn;
        r->method = method;
        r->is_tcp = l->is_tcp;
        r->start_ns = cuzk_now_ns();
        snprintf(r->path, sizeof r->path, "%s", url);
        atomic_fetch_add(&l->srv->requests, 1);
        const char *cl = http_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
        const char *te = http_header(r, MHD_HTTP_HEADER_TRANSFER_ENCODING);
        r->body_pending = (cl && declared_length(cl) > 0) || te;
        r->in_first_call = 1;
        enum MHD_Result ret = first_call(r, l, url, version);
        r->in_first_call = 0;
        if (r->linger) /* answered before its body (http_queue) */
            conn_mark_linger(conn);
        r->body_start_ns = cuzk_now_ns();
        conn_set_phase(conn, PHASE_BODY, seconds_ns(l->srv->cfg->request_timeout_s));
        return ret;
    }
    if (*upload_size)
        body_progress(r, *upload_size);
    if (r->handled) /* answered before the body: the lingering close reads it */
        return *upload_size ? MHD_NO : MHD_YES;
    if (*upload_size) {
        if (!body_append(r, upload, *upload_size)) {
            /* A body without Content-Length that outgrew the limit: MHD
             * cannot answer in the middle of a body, so the connection is
             * closed; nothing more of it is read. */
            if (r->body_overflow)
                LOG_INFO("http", "%s %s: body over %zu bytes, connection closed, client=%s",
                         r->method, r->path, r->body_max, r->client);
            else
                LOG_INFO("http", "%s %s: no room to grow a body of unknown length past %zu "
                                 "bytes (upload_budget), connection closed, client=%s",
                         r->method, r->path, r->body_len, r->client);
            r->code = 413;
            return MHD_NO;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    r->handled = 1;
    conn_set_phase(conn, PHASE_HANDLER, 0);
    return r->route->fn(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    cuzkd_request *r = *con_cls;
    if (!r)
        return;
    *con_cls = NULL;
    conn_set_phase(conn, PHASE_HEADERS, seconds_ns(r->srv->cfg->request_timeout_s));
    uint64_t ns = cuzk_now_ns() - r->start_ns;
    unsigned code = r->code;
    const char *why = "";
    if (toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED) {
        why = " (client too slow: connection closed)";
        if (!code)
            code = 408;
    } else if (toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT) {
        why = " (client closed the connection)";
    } else if (toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN) {
        why = " (daemon stopping)";
    } else if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        why = " (connection closed)";
    }
    http_stats_add(&r->srv->http, code, ns);
    /* 503 is the expected answer while draining or starting, not a fault. */
    cuzk_log_level lvl = code >= 500 && code != 503       ? CUZK_LOG_WARN
                         : r->quiet && code && code < 400 ? CUZK_LOG_DEBUG
                                                          : CUZK_LOG_INFO;
    /* Refused tokens are logged at most once per UNAUTH_LOG_NS (a page
     * left open without a token, a scanner), with the count left out. */
    char more[64] = "";
    if (code == 401) {
        static _Atomic uint64_t last_ns, unlogged;
        uint64_t now = cuzk_now_ns(), last = atomic_load(&last_ns);
        if (last && now - last < UNAUTH_LOG_NS) {
            atomic_fetch_add(&unlogged, 1);
            lvl = CUZK_LOG_DEBUG;
        } else if (atomic_compare_exchange_strong(&last_ns, &last, now)) {
            uint64_t n = atomic_exchange(&unlogged, 0);
            if (n)
                snprintf(more, sizeof more, " (and %llu more 401s not logged)",
                         (unsigned long long)n);
        } else { /* another thread logs this round */
            atomic_fetch_add(&unlogged, 1);
            lvl = CUZK_LOG_DEBUG;
        }
    }
    cuzkd_log(lvl, "http", "%s %s %u %.1fms client=%s%s%s", r->method, r->path, code, ns / 1e6,
              r->client[0] ? r->client : "-", why, more);
    atomic_fetch_sub(&r->srv->requests, 1);
    if (r->upload)
        cuzkd_intake_put(r->upload);
    else
        free(r->body);
    free(r);
}

/* Open connections, counted here rather than asked of MHD, so that no
 * handler ever reads another listener's daemon while it is being stopped. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode toe) {
    cuzkd_server *srv = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add(&srv->connections, 1);
        conn_ctx *c = calloc(1, sizeof *c);
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!c)
            return;
        c->fd = ci ? fcntl(ci->connect_fd, F_DUPFD_CLOEXEC, 0) : -1;
        c->phase = PHASE_HEADERS;
        c->grace_ns = seconds_ns(srv->cfg->request_timeout_s);
        c->deadline_ns = cuzk_now_ns() + c->grace_ns;
        pthread_mutex_lock(&conns_lock);
        c->next = conns;
        if (conns)
            conns->prev = c;
        conns = c;
        pthread_mutex_unlock(&conns_lock);
        *socket_ctx = c;
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_sub(&srv->connections, 1);
        conn_ctx *c = *socket_ctx;
        if (!c)
            return;
        pthread_mutex_lock(&conns_lock);
        if (c->prev)
            c->prev->next = c->next;
        else
            conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        if (c->linger && c->fd >= 0 && !reaper_stop) {
            /* the answer is out: our end of the stream is done */
            shutdown(c->fd, SHUT_WR);
            c->deadline_ns = cuzk_now_ns() + seconds_ns(srv->cfg->request_timeout_s);
            c->linger_left = LINGER_MAX_BYTES;
            c->next = lingering;
            lingering = c;
            n_lingering++;
            pthread_cond_broadcast(&reaper_cv);
            c = NULL;
        }
        pthread_mutex_unlock(&conns_lock);
        if (c) {
            if (c->fd >= 0)
                close(c->fd);
            free(c);
        }
        *socket_ctx = NULL;
    }
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = 0;
    LOG_WARN("mhd", "%s", buf);
}

/* ---- listeners ----------------------------------------------------------------- */

/* Is somebody serving |path|?  1 yes, 0 stale or absent, -1 error (|err|). */
static int socket_in_use(const char *path, cuzk_error *err) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT
                   ? 0
                   : (cuzk_fail(err, CUZK_EIO, "socket %s: %s", path, strerror(errno)), -1);
    if (!S_ISSOCK(st.st_mode))
        return cuzk_fail(err, CUZK_EIO, "%s exists and is not a socket; not replacing it", path),
               -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cuzk_fail(err, CUZK_EIO, "socket(): %s", strerror(errno)), -1;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (rc == 0)
        return 1;
    if (e == ECONNREFUSED || e == ENOENT)
        return 0;
    return cuzk_fail(err, CUZK_EIO, "socket %s: cannot tell whether it is in use: %s", path,
                     strerror(e)),
           -1;
}

static cuzk_status open_unix(cuzkd_listener *l, const char *path, cuzk_error *err) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return cuzk_fail(err, CUZK_EINVAL, "socket path %s is longer than %zu bytes", path,
                         sizeof sa.sun_path - 1);
    int used = socket_in_use(path, err);
    if (used < 0)
        return CUZK_EIO;
    if (used)
        return cuzk_fail(err, CUZK_EBUSY,
                         "another cuzkd is already serving %s (it accepted a connection); "
                         "stop it first or choose another socket",
                         path);
    if (unlink(path) == 0)
        LOG_WARN("http",
                 "removed stale socket %s (nobody was listening: a previous daemon "
                 "did not exit cleanly)",
                 path);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return cuzk_fail(err, CUZK_EIO, "socket(): %s", strerror(errno));
    /* Created with mode 0660 from the start, so there is no moment when
     * other users could connect. */
    mode_t old = umask(0117);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    umask(old);
    struct stat st;
    if (rc != 0 || chmod(path, 0660) != 0 || stat(path, &st) != 0 || listen(fd, 128) != 0) {
        if (!rc)
            e = errno;
        close(fd);
        return cuzk_fail(err, e == EADDRINUSE ? CUZK_EBUSY : CUZK_EIO, "socket %s: %s", path,
                         strerror(e));
    }
    l->fd = fd;
    cuzkd_server *srv = l->srv;
    snprintf(srv->socket_path, sizeof srv->socket_path, "%s", path);
    srv->socket_dev = st.st_dev;
    srv->socket_ino = st.st_ino;
    atomic_store(&srv->have_socket, 1);
    return CUZK_OK;
}

static cuzk_status open_tcp(cuzkd_listener *l, const char *listen_at, int *ipv6, cuzk_error *err) {
    char host[256], port_s[16];
    unsigned port;
    if (!cuzkd_listen_split(listen_at, host, sizeof host, &port))
        return cuzk_fail(err, CUZK_EINVAL, "listen: bad address %s", listen_at);
    snprintf(port_s, sizeof port_s, "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    int g = getaddrinfo(host, port_s, &hints, &ai);
    if (g != 0)
        return cuzk_fail(err, CUZK_EINVAL, "listen %s: %s", listen_at, gai_strerror(g));
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return cuzk_fail(err, e == EADDRINUSE ? CUZK_EBUSY : CUZK_EIO, "listen %s: %s", listen_at,
                         strerror(e));
    }
    *ipv6 = ai->ai_family == AF_INET6;
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    unsigned bound = port;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    LOG_INFO("http", "listening on http://%s%s%s:%u (bearer token required)", *ipv6 ? "[" : "",
             host, *ipv6 ? "]" : "", bound);
    l->fd = fd;
    return CUZK_OK;
}

/* TCP: libmicrohttpd's own limit lies this far above `threads`; the front
 * door keeps to `threads` (front.c), and the slack covers its count of
 * connections handed over that libmicrohttpd has not yet counted. */
#define FRONT_SLACK 256

static cuzk_status start_mhd(cuzkd_server *srv, cuzkd_listener *l, int ipv6, cuzk_error *err) {
    /* poll, not select: descriptors above 1023 are common with many
     * connections waiting in the front door.  TCP: the front door accepts
     * and hands connections over (MHD_add_connection needs the ITC). */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_POLL | MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0) |
                     (l->is_tcp ? MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC : 0);
    struct MHD_OptionItem listen_opt[] = {
        {l->is_tcp ? MHD_OPTION_END : MHD_OPTION_LISTEN_SOCKET, l->fd, NULL},
        {MHD_OPTION_END, 0, NULL}};
    /* The logger goes first so that MHD's complaints about later options
     * reach it too. */
    l->d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, l, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
        MHD_OPTION_ARRAY, listen_opt, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)srv->cfg->threads + (l->is_tcp ? FRONT_SLACK : 0),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)srv->cfg->connection_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY_BYTES, MHD_OPTION_THREAD_STACK_SIZE,
        CONNECTION_STACK_BYTES, MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        l->is_tcp ? (unsigned)srv->cfg->max_connections_per_ip : 0u, MHD_OPTION_END);
    if (!l->d)
        return cuzk_fail(err, CUZK_EIO, "libmicrohttpd could not start on %s",
                         l->is_tcp ? srv->cfg->listen : srv->cfg->socket);
    if (l->is_tcp)
        return cuzkd_front_start(&l->front, l->fd, l->d, (unsigned)srv->cfg->request_timeout_s,
                                 (unsigned)srv->cfg->connection_timeout_s,
                                 (unsigned)srv->cfg->max_connections_per_ip,
                                 (unsigned)srv->cfg->threads, err);
    return CUZK_OK;
}

static void listener_free(cuzkd_listener *l) {
    if (!l)
        return;
    cuzkd_front_stop(l->front); /* first: nothing is handed over after this */
    if (l->d)
        MHD_stop_daemon(l->d); /* closes the listening socket too, unless TCP's */
    if ((!l->d || l->is_tcp) && l->fd >= 0)
        close(l->fd);
    free(l);
}

/* A listener of |srv|, kept at |*slot| at once so that cuzkd_http_stop
 * frees it whatever fails after. */
static cuzk_status listener_new(cuzkd_server *srv, int is_tcp, cuzkd_listener **slot,
                                cuzk_error *err) {
    cuzkd_listener *l = calloc(1, sizeof *l);
    if (!l)
        return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    l->srv = srv;
    l->fd = -1;
    l->is_tcp = is_tcp;
    *slot = l;
    return CUZK_OK;
}

cuzk_status cuzkd_http_start(cuzkd_server *srv, cuzk_error *err) {
    const cuzkd_config *c = srv->cfg;
    cuzk_status s = CUZK_OK;
    if (!reaper_started) {
        reaper_stop = 0;
        if (pthread_create(&reaper, NULL, reaper_main, NULL) != 0)
            return cuzk_fail(err, CUZK_EINTERNAL, "cannot start the connection reaper thread");
        reaper_started = 1;
    }
    if (*c->socket) {
        if ((s = listener_new(srv, 0, &srv->unix_l, err)) != CUZK_OK ||
            (s = open_unix(srv->unix_l, c->socket, err)) != CUZK_OK ||
            (s = start_mhd(srv, srv->unix_l, 0, err)) != CUZK_OK)
            return s;
        LOG_INFO("http", "listening on unix:%s (mode 0660)", srv->socket_path);
    }
    if (*c->listen) {
        int ipv6 = 0;
        if ((s = listener_new(srv, 1, &srv->tcp_l, err)) != CUZK_OK ||
            (s = open_tcp(srv->tcp_l, c->listen, &ipv6, err)) != CUZK_OK ||
            (s = start_mhd(srv, srv->tcp_l, ipv6, err)) != CUZK_OK)
            return s;
    }
    return CUZK_OK;
}

void cuzkd_http_unlink_socket(cuzkd_server *srv) {
    struct stat st;
    /* Only the file this process bound: a newer daemon may own the path.
     * have_socket is cleared first so two threads do not both unlink. */
    if (atomic_exchange(&srv->have_socket, 0) && lstat(srv->socket_path, &st) == 0 &&
        st.st_dev == srv->socket_dev && st.st_ino == srv->socket_ino)
        unlink(srv->socket_path);
}

void cuzkd_http_stop(cuzkd_server *srv) {
    cuzkd_http_unlink_socket(srv); /* first: new clients get "no such file" */
    listener_free(srv->unix_l);
    listener_free(srv->tcp_l);
    srv->unix_l = srv->tcp_l = NULL;
    if (reaper_started) {
        pthread_mutex_lock(&conns_lock);
        reaper_stop = 1;
        pthread_cond_broadcast(&reaper_cv);
        pthread_mutex_unlock(&conns_lock);
        pthread_join(reaper, NULL);
        reaper_started = 0;
        while (lingering) {
            conn_ctx *c = lingering;
            lingering = c->next;
            close(c->fd);
            free(c);
        }
        n_lingering = 0;
    }
}

