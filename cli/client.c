/*
 * Client side of cuzkd: address resolution, one reusable HTTP connection
 * on libcurl (unix socket or TCP), and JSON helpers.  See client.h for the
 * contract; docs/API.md for the protocol.  No proving logic here.
 */
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


const char *cli_daemon_opts_help =
    "daemon options:\n"
    "  --addr ADDR    the daemon: unix:/path, /path or http://host:port\n"
    "                 (default: $CUZK_ADDR, else the default socket\n"
    "                 $XDG_RUNTIME_DIR/cuzkd.sock or /tmp/cuzkd-<uid>.sock)\n"
    "  --token T      bearer token for TCP (default: $CUZK_TOKEN)\n"
    "  --client ID    client id sent as X-Cuzk-Client (default: <hostname>-<pid>)\n";

/* ---- addresses ------------------------------------------------------------ */

static cuzk_status addr_set_unix(cli_addr *out, const char *path, cuzk_error *err) {
    if (!path[0])
        return cuzk_fail(err, CUZK_EINVAL, "address 'unix:' names no socket path");
    if (strlen(path) >= sizeof out->path)
        return cuzk_fail(err, CUZK_EINVAL, "socket path longer than %zu bytes: %s",
                         sizeof out->path - 1, path);
    out->kind = CLI_ADDR_UNIX;
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->base, sizeof out->base, "http://localhost");
    snprintf(out->text, sizeof out->text, "unix:%s", path);
    return CUZK_OK;
}

/* "host:port" after "http://", with an optional trailing '/'. */
static cuzk_status addr_set_tcp(cli_addr *out, const char *text, const char *hostport,
                                cuzk_error *err) {
    size_t n = strlen(hostport);
    while (n && hostport[n - 1] == '/')
        n--;
    const char *colon = NULL;
    if (hostport[0] == '[') { /* [IPv6]:port */
        const char *close = memchr(hostport, ']', n);
        if (close && close + 1 < hostport + n && close[1] == ':')
            colon = close + 1;
    } else {
        for (size_t i = 0; i < n; i++)
            if (hostport[i] == ':')
                colon = hostport + i;
            else if (hostport[i] == '/')
                return cuzk_fail(err, CUZK_EINVAL, "address '%s': give only http://host:port",
                                 text);
    }
    size_t port_len = colon ? (size_t)(hostport + n - colon - 1) : 0;
    if (!colon || colon == hostport || port_len == 0 || port_len > 5 ||
        strspn(colon + 1, "0123456789") < port_len)
        return cuzk_fail(err, CUZK_EINVAL, "address '%s': expected http://host:port", text);
    if (n + 8 >= sizeof out->base)
        return cuzk_fail(err, CUZK_EINVAL, "address '%s' is too long", text);
    out->kind = CLI_ADDR_TCP;
    snprintf(out->base, sizeof out->base, "http://%.*s", (int)n, hostport);
    snprintf(out->text, sizeof out->text, "%s", out->base);
    return CUZK_OK;
}

cuzk_status cli_addr_parse(const char *text, cli_addr *out, cuzk_error *err) {
    memset(out, 0, sizeof *out);
    if (!strncmp(text, "unix:", 5))
        return addr_set_unix(out, text + 5, err);
    if (text[0] == '/')
        return addr_set_unix(out, text, err);
    if (!strncmp(text, "http://", 7))
        return addr_set_tcp(out, text, text + 7, err);
    return cuzk_fail(err, CUZK_EINVAL,
                     "address '%s': expected unix:/path, /path or http://host:port", text);
}

int cli_addr_default_socket(char *buf, size_t size) {
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n = xdg && xdg[0] ? snprintf(buf, size, "%s/cuzkd.sock", xdg)
                          : snprintf(buf, size, "/tmp/cuzkd-%u.sock", (unsigned)getuid());
    return n > 0 && (size_t)n < size ? 0 : -1;
}

cuzk_status cli_addr_resolve(const char *flag, cli_addr *out, cuzk_error *err) {
    memset(out, 0, sizeof *out);
    const char *env = getenv("CUZK_ADDR");
    cuzk_status st;
    if (flag && flag[0]) {
        st = cli_addr_parse(flag, out, err);
        out->source = CLI_ADDR_FROM_FLAG;
        return st;
    }
    if (env && env[0]) {
        cuzk_error e = {0};
        st = cli_addr_parse(env, out, &e);
        if (st != CUZK_OK)
            return cuzk_fail(err, st, "CUZK_ADDR: %s", e.msg);
        out->source = CLI_ADDR_FROM_ENV;
        return st;
    }
    char path[sizeof out->path];
    struct stat sb;
    if (cli_addr_default_socket(path, sizeof path) == 0 && stat(path, &sb) == 0) {
        st = addr_set_unix(out, path, err);
        out->source = CLI_ADDR_FROM_DEFAULT;
        return st;
    }
    out->kind = CLI_ADDR_NONE;
    return CUZK_OK;
}

int cli_daemon_opt(cli_daemon_opts *o, int argc, char **argv, int *i) {
    static const char *names[] = {"--addr", "--token", "--client"};
    const char *a = argv[*i];
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(names[k]);
        const char *v;
        if (strncmp(a, names[k], len))
            continue;
        if (a[len] == '=')
            v = a + len + 1;
        else if (a[len] == 0 && *i + 1 < argc)
            v = argv[++*i];
        else if (a[len] == 0)
            return -1;
        else
            continue;
        if (k == 0)
            o->addr = v;
        else if (k == 1)
            o->token = v;
        else
            o->client = v;
        return 1;
    }
    return 0;
}

#if CLI_HAVE_DAEMON

#include <curl/curl.h>
#include <pthread.h>

/* ---- connection ------------------------------------------------------------ */

struct cli_conn {
    CURL *h;
    cli_addr addr;
    /* One header list per body kind, built once: a request allocates none. */
    struct curl_slist *hdr_none, *hdr_json, *hdr_bin;
    char *buf; /* response body, grown as needed and kept */
    size_t len, cap;
    char url[4096];
    char errbuf[CURL_ERROR_SIZE];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

/* curl_global_init is not thread-safe; bench workers open connections
 * from several threads. */
static void curl_init(void) { curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx) {
    cli_conn *c = ctx;
    size_t n = size * nmemb;
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap < c->len + n + 1)
            cap *= 2;
        char *nb = realloc(c->buf, cap);
        if (!nb)
            return 0; /* libcurl fails the transfer with CURLE_WRITE_ERROR */
        c->buf = nb, c->cap = cap;
    }
    memcpy(c->buf + c->len, data, n);
    c->len += n;
    c->buf[c->len] = 0;
    return n;
}

static struct curl_slist *headers(const char *const *lines, int n, const char *extra) {
    struct curl_slist *l = NULL, *t;
    for (int i = 0; i <= n; i++) {
        const char *s = i < n ? lines[i] : extra;
        if (!s)
            continue;
        if (!(t = curl_slist_append(l, s))) {
            curl_slist_free_all(l);
            return NULL;
        }
        l = t;
    }
    return l;
}

/*
 * Whoever answers on a unix socket receives the key path and the witness
 * and returns the proof this client writes, so the socket must be one the
 * caller can trust.  In a folder other users may write to (/tmp, where the
 * default socket lives without XDG_RUNTIME_DIR) anybody could have created
 * the name first: there the socket itself (not a link) must belong to the
 * caller or to root.  In any other folder its owner decides what is in it
 * (the caller's runtime folder, or /run/cuzk made by the service set-up for
 * the daemon's own user), and it is trusted as the operator arranged it.
 */
cuzk_status cli_unix_socket_trusted(const char *path, cuzk_error *err) {
    char dir[sizeof ((cli_addr *)0)->path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    struct stat ds, ss;
    if (stat(dir, &ds) != 0)
        return CUZK_OK; /* nothing there: the connection fails on its own */
    if (lstat(path, &ss) != 0)
        return CUZK_OK;
    uid_t me = geteuid();
    if (S_ISLNK(ss.st_mode) && (ds.st_mode & S_IWOTH))
        return cuzk_fail(err, CUZK_EIO,
                         "refusing socket %s: a symbolic link in a folder every user may write to",
                         path);
    if (!S_ISSOCK(ss.st_mode) && !S_ISLNK(ss.st_mode))
        return cuzk_fail(err, CUZK_EINVAL, "%s is not a socket", path);
    if ((ds.st_mode & S_IWOTH) && ss.st_uid != me && ss.st_uid != 0)
        return cuzk_fail(err, CUZK_EIO,
                         "refusing socket %s: owned by uid %u, not you or root, in a folder "
                         "anyone may write to (another user may have planted it)",
                         path, (unsigned)ss.st_uid);
    return CUZK_OK;
}

cli_conn *cli_conn_open(const cli_addr *addr, const char *token, const char *client_id,
                        cuzk_error *err) {
    if (addr->kind == CLI_ADDR_UNIX && cli_unix_socket_trusted(addr->path, err) != CUZK_OK)
        return NULL;
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK) {
        cuzk_fail(err, CUZK_EINTERNAL, "libcurl: %s", curl_easy_strerror(curl_init_rc));
        return NULL;
    }
    cli_conn *c = calloc(1, sizeof *c);
    if (!c) {
        cuzk_fail(err, CUZK_ENOMEM, "out of memory");
        return NULL;
    }
    c->addr = *addr;
    char auth[600] = "", client[320], host[256] = "localhost";
    if (token && token[0])
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    if (client_id && client_id[0])
        snprintf(client, sizeof client, "X-Cuzk-Client: %s", client_id);
    else {
        gethostname(host, sizeof host - 1);
        snprintf(client, sizeof client, "X-Cuzk-Client: %s-%ld", host, (long)getpid());
    }
    /* "Expect:" stops libcurl from waiting for 100-continue before large
     * witness uploads. */
    const char *base[3] = {client, "Expect:", auth[0] ? auth : NULL};
    c->hdr_none = headers(base, 3, NULL);
    c->hdr_json = headers(base, 3, "Content-Type: application/json");
    c->hdr_bin = headers(base, 3, "Content-Type: application/octet-stream");
    c->h = curl_easy_init();
    c->cap = 4096;
    c->buf = malloc(c->cap);
    if (!c->hdr_none || !c->hdr_json || !c->hdr_bin || !c->h || !c->buf) {
        cli_conn_free(c);
        cuzk_fail(err, CUZK_ENOMEM, "out of memory (libcurl handle)");
        return NULL;
    }
    c->buf[0] = 0;
    CURL *h = c->h;
    if (addr->kind == CLI_ADDR_UNIX)
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->addr.path);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM timeouts */
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "cuzk");
    return c;
}

void cli_conn_free(cli_conn *c) {
    if (!c)
        return;
    if (c->h)
        curl_easy_cleanup(c->h);
    curl_slist_free_all(c->hdr_none);
    curl_slist_free_all(c->hdr_json);
    curl_slist_free_all(c->hdr_bin);
    free(c->buf);
    free(c);
}

const cli_addr *cli_conn_addr(const cli_conn *c) { return &c->addr; }

cuzk_status cli_http(cli_conn *c, const char *method, const char *path, cli_body_kind kind,
                     const void *body, size_t len, long timeout_ms, cli_http_resp *out,
                     int *unreachable, cuzk_error *err) {
    CURL *h = c->h;
    out->code = 0, out->body = "", out->len = 0;
    if (unreachable)
        *unreachable = 0;
    if ((size_t)snprintf(c->url, sizeof c->url, "%s%s", c->addr.base, path) >= sizeof c->url)
        return cuzk_fail(err, CUZK_EINVAL, "request path too long");
    c->len = 0;
    c->buf[0] = 0;
    c->errbuf[0] = 0;
    curl_easy_setopt(h, CURLOPT_URL, c->url);
    if (!strcmp(method, "POST")) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, NULL);
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") ? method : NULL);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, kind == CLI_BODY_JSON     ? c->hdr_json
                                            : kind == CLI_BODY_BINARY ? c->hdr_bin
                                                                      : c->hdr_none);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 0L);
    CURLcode rc = curl_easy_perform(h);
    if (rc != CURLE_OK) {
        int dead = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST;
        if (unreachable)
            *unreachable = dead;
        const char *why = c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc);
        struct stat sb;
        /* libcurl reports a dead unix socket as "port 80"; say what is there. */
        if (dead && c->addr.kind == CLI_ADDR_UNIX)
            why = stat(c->addr.path, &sb) != 0 ? "no such socket"
                  : S_ISSOCK(sb.st_mode)        ? "connection refused (is cuzkd running?)"
                                                : "not a socket";
        return cuzk_fail(err, rc == CURLE_OPERATION_TIMEDOUT ? CUZK_ETIMEOUT : CUZK_EIO,
                         "%s cuzkd at %s: %s", dead ? "cannot reach" : "lost", c->addr.text, why);
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->code);
    out->body = c->buf;
    out->len = c->len;
    return CUZK_OK;
}

char *cli_url_escape(const char *s, char *buf, size_t n) {
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        int plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || strchr("-._~", ch);
        if (o + (plain ? 1 : 3) >= n)
            return NULL;
        if (plain)
            buf[o++] = (char)ch;
        else
            buf[o++] = '%', buf[o++] = hex[ch >> 4], buf[o++] = hex[ch & 15];
    }
    if (o >= n)
        return NULL;
    buf[o] = 0;
    return buf;
}

/* ---- JSON ------------------------------------------------------------------- */

json_t *cli_json_parse(const cli_http_resp *r, cuzk_error *err) {
    json_error_t je;
    json_t *j = json_loadb(r->body, r->len, 0, &je);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        cuzk_fail(err, CUZK_EFORMAT, "daemon sent no JSON object (HTTP %ld): %s", r->code,
                  j ? "not an object" : je.text);
        return NULL;
    }
    return j;
}

const char *cli_json_str(const json_t *obj, const char *key, const char *def) {
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : def;
}

static void write_escaped(FILE *out, const char *text, size_t n, int keep_newline) {
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < n; i++) {
        int c1 = p[i] == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f;
        if (c1) {
            fprintf(out, "\\x%02x\\x%02x", p[i], p[i + 1]);
            i++;
        } else if ((p[i] < 0x20 && !(keep_newline && p[i] == '\n')) || p[i] == 0x7f)
            fprintf(out, "\\x%02x", p[i]);
        else
            putc(p[i], out);
    }
}

void cli_write_safe(FILE *out, const char *text, size_t n) { write_escaped(out, text, n, 1); }

const char *cli_escape(const char *s, char *buf, size_t cap) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return "?";
    write_escaped(m, s, strlen(s), 0);
    fclose(m);
    snprintf(buf, cap, "%s", text ? text : "?");
    free(text);
    return buf;
}

void cli_fprint_error(FILE *out, const char *who, const char *msg) {
    fprintf(out, "%s: ", who);
    write_escaped(out, msg, strlen(msg), 0);
    putc('\n', out);
}

double cli_json_num(const json_t *obj, const char *key, double def) {
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : def;
}

const char *cli_http_error_text(const cli_http_resp *r, char *buf, size_t n) {
    json_t *j = json_loadb(r->body, r->len, 0, NULL);
    const char *msg = json_is_object(j) ? cli_json_str(j, "error", NULL) : NULL;
    if (msg)
        snprintf(buf, n, "%s (HTTP %ld %s)", msg, r->code, cli_json_str(j, "code", ""));
    else {
        size_t line = strcspn(r->body, "\r\n");
        snprintf(buf, n, "HTTP %ld%s%.*s", r->code, line ? ": " : "",
                 (int)(line > 200 ? 200 : line), r->body);
    }
    json_decref(j);
    return buf;
}

cuzk_status cli_http_fail(const cli_http_resp *r, cuzk_error *err) {
    char text[CUZK_ERROR_MSG_BYTES];
    cuzk_status st;
    switch (r->code) {
    case 400: st = CUZK_EINVAL; break;
    case 404: st = CUZK_ENOTFOUND; break;
    case 408: st = CUZK_ETIMEOUT; break;
    case 409: st = CUZK_EMISMATCH; break;
    case 413: st = CUZK_ERANGE; break;
    case 429:
    case 503: st = CUZK_EBUSY; break;
    case 401: st = CUZK_EINVAL; break;
    default: st = CUZK_EINTERNAL; break;
    }
    cli_http_error_text(r, text, sizeof text);
    if (r->code == 401) /* what to do about it, not only what the daemon said */
        return cuzk_fail(err, st, "%.180s; the daemon wants its token: give it with --token T "
                                  "or CUZK_TOKEN", text);
    return cuzk_fail(err, st, "%s", text);
}

/* ---- requests ------------------------------------------------------------ */

cli_conn *cli_connect(const cli_daemon_opts *o, const char *client_suffix, cuzk_error *err) {
    cli_addr addr;
    if (cli_addr_resolve(o->addr, &addr, err) != CUZK_OK)
        return NULL;
    if (addr.kind == CLI_ADDR_NONE) {
        char def[sizeof addr.path] = "";
        cli_addr_default_socket(def, sizeof def);
        cuzk_fail(err, CUZK_ENOTFOUND,
                  "no cuzkd configured: give --addr or CUZK_ADDR (default socket %s not found)",
                  def);
        return NULL;
    }
    const char *token = o->token ? o->token : getenv("CUZK_TOKEN");
    char id[300];
    const char *client = o->client;
    if (client_suffix) {
        char host[256] = "localhost";
        if (!client) {
            gethostname(host, sizeof host - 1);
            host[sizeof host - 1] = 0;
            snprintf(id, sizeof id, "%s-%ld-%s", host, (long)getpid(), client_suffix);
        } else
            snprintf(id, sizeof id, "%s-%s", client, client_suffix);
        client = id;
    }
    return cli_conn_open(&addr, token, client, err);
}

json_t *cli_request_json(cli_conn *c, const char *method, const char *path, const json_t *body,
                         long timeout_ms, long *code, cuzk_error *err) {
    char *text = NULL;
    cli_http_resp r;
    if (code)
        *code = 0;
    if (body && !(text = json_dumps(body, JSON_COMPACT))) {
        cuzk_fail(err, CUZK_ENOMEM, "out of memory");
        return NULL;
    }
    cuzk_status st = cli_http(c, method, path, text ? CLI_BODY_JSON : CLI_BODY_NONE, text,
                              text ? strlen(text) : 0, timeout_ms, &r, NULL, err);
    free(text);
    if (st != CUZK_OK)
        return NULL;
    if (code)
        *code = r.code;
    if (r.code < 200 || r.code > 299) {
        cli_http_fail(&r, err);
        return NULL;
    }
    return cli_json_parse(&r, err);
}

/* ---- jobs ------------------------------------------------------------------- */

/* Query string of the upload form: ?key=...&priority=...&request_id=...
 * &deadline_ms=... (sizes is absent: one partition, the whole body). */
static cuzk_status upload_path(const cli_job_req *r, char *path, size_t n, cuzk_error *err) {
    char key[1024], rid[400], prio[64];
    if (!cli_url_escape(r->key, key, sizeof key) ||
        !cli_url_escape(r->request_id ? r->request_id : "", rid, sizeof rid) ||
        !cli_url_escape(r->priority ? r->priority : "", prio, sizeof prio))
        return cuzk_fail(err, CUZK_EINVAL, "key, request id or priority too long");
    int len = snprintf(path, n, "/v1/jobs?key=%s", key);
    if (r->priority)
        len += snprintf(path + len, n > (size_t)len ? n - len : 0, "&priority=%s", prio);
    if (r->request_id)
        len += snprintf(path + len, n > (size_t)len ? n - len : 0, "&request_id=%s", rid);
    if (r->deadline_ms)
        len += snprintf(path + len, n > (size_t)len ? n - len : 0, "&deadline_ms=%llu",
                        (unsigned long long)r->deadline_ms);
    if ((size_t)len >= n)
        return cuzk_fail(err, CUZK_EINVAL, "request too long");
    return CUZK_OK;
}

/* The JSON form's body; |*len| its length.  Inputs are spliced in as the
 * file's own text, so that numbers jansson cannot hold (integers beyond 64
 * bits, which snarkjs accepts) reach the daemon unchanged. */
static char *submit_json_body(const cli_job_req *r, size_t *len) {
    json_t *o = json_object();
    json_object_set_new(o, "key", json_string(r->key));
    if (r->input_json) {
        if (r->circuit)
            json_object_set_new(o, "circuit", json_string(r->circuit));
    } else
        json_object_set_new(o, "witness_paths", json_pack("[s]", r->witness_path));
    if (r->priority)
        json_object_set_new(o, "priority", json_string(r->priority));
    if (r->request_id)
        json_object_set_new(o, "request_id", json_string(r->request_id));
    if (r->deadline_ms)
        json_object_set_new(o, "deadline_ms", json_integer((json_int_t)r->deadline_ms));
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return NULL;
    *len = strlen(text);
    if (!r->input_json)
        return text;
    /* {"key":...} -> {"key":...,"input":<text>} */
    static const char member[] = ",\"input\":";
    size_t head = *len - 1, n = head + sizeof member - 1 + r->input_len + 1;
    char *body = malloc(n + 1);
    if (body) {
        memcpy(body, text, head);
        memcpy(body + head, member, sizeof member - 1);
        memcpy(body + head + sizeof member - 1, r->input_json, r->input_len);
        body[n - 1] = '}';
        body[n] = 0;
        *len = n;
    }
    free(text);
    return body;
}

cuzk_status cli_job_submit(cli_conn *c, const cli_job_req *r, cli_job_ref *ref, int *unreachable,
                           cuzk_error *err) {
    cli_http_resp resp;
    cuzk_status st;
    memset(ref, 0, sizeof *ref);
    if (unreachable)
        *unreachable = 0;
    if (r->witness_data) {
        char path[2048];
        if ((st = upload_path(r, path, sizeof path, err)) != CUZK_OK)
            return st;
        st = cli_http(c, "POST", path, CLI_BODY_BINARY, r->witness_data, r->witness_len, 0,
                      &resp, unreachable, err);
    } else {
        size_t len = 0;
        char *body = submit_json_body(r, &len);
        if (!body)
            return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
        /* A circuit's first use compiles it (a minute or more for a large
         * one): no time limit on a submit with inputs. */
        st = cli_http(c, "POST", "/v1/jobs", CLI_BODY_JSON, body, len,
                      r->input_json ? 0 : 60000, &resp, unreachable, err);
        free(body);
    }
    if (st != CUZK_OK)
        return st;
    ref->code = resp.code;
    if (resp.code < 200 || resp.code > 299)
        return cli_http_fail(&resp, err);
    json_t *j = cli_json_parse(&resp, err);
    if (!j)
        return CUZK_EFORMAT;
    const char *rid = cli_json_str(j, "request_id", NULL);
    if (!rid || !rid[0] || strlen(rid) >= sizeof ref->request_id) {
        json_decref(j);
        return cuzk_fail(err, CUZK_EFORMAT, "daemon accepted the job but sent no request_id");
    }
    snprintf(ref->request_id, sizeof ref->request_id, "%s", rid);
    ref->job_id = (uint64_t)cli_json_num(j, "job_id", 0);
    ref->attached = json_is_true(json_object_get(j, "attached"));
    json_decref(j);
    return CUZK_OK;
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A 200 result that is not "done": the job's own failure. */
static cuzk_status job_ended(json_t *j, const char *rid, cuzk_error *err) {
    const char *state = cli_json_str(j, "state", "?");
    const char *why = cli_json_str(j, "error", "");
    cuzk_status st = !strcmp(state, "cancelled") ? CUZK_ECANCELLED
                     : !strcmp(state, "expired") ? CUZK_ETIMEOUT
                                                 : CUZK_EINTERNAL;
    cuzk_fail(err, st, "job %s %s%s%s", rid, state, why[0] ? ": " : "", why);
    json_decref(j);
    return st;
}

cuzk_status cli_job_await(cli_conn *c, const char *request_id, long timeout_ms, json_t **result,
                          cuzk_error *err) {
    char rid[400], path[600];
    *result = NULL;
    if (!cli_url_escape(request_id, rid, sizeof rid))
        return cuzk_fail(err, CUZK_EINVAL, "request id too long");
    uint64_t end = timeout_ms > 0 ? now_ms() + (uint64_t)timeout_ms : 0;
    for (;;) {
        long slice = 30000;
        if (end) {
            uint64_t now = now_ms();
            if (now >= end)
                return cuzk_fail(err, CUZK_ETIMEOUT, "job %s still running after %.1f s",
                                 request_id, timeout_ms / 1e3);
            if ((long)(end - now) < slice)
                slice = (long)(end - now);
        }
        snprintf(path, sizeof path, "/v1/jobs/%s/result?timeout_ms=%ld&format=json", rid, slice);
        cli_http_resp r;
        uint64_t asked = now_ms();
        /* The daemon answers by |slice| (or its own max_await_ms); the
         * margin covers a loaded machine, not a lost daemon. */
        cuzk_status st = cli_http(c, "GET", path, CLI_BODY_NONE, NULL, 0, slice + 30000, &r,
                                  NULL, err);
        if (st != CUZK_OK)
            return st;
        if (r.code == 202) {
            /* A daemon configured not to wait (max_await_ms = 0) answers at
             * once: poll gently instead of spinning. */
            if (now_ms() - asked < 20)
                usleep(20000);
            continue;
        }
        if (r.code != 200)
            return cli_http_fail(&r, err);
        json_t *j = cli_json_parse(&r, err);
        if (!j)
            return CUZK_EFORMAT;
        if (strcmp(cli_json_str(j, "state", ""), "done") != 0)
            return job_ended(j, request_id, err);
        *result = j;
        return CUZK_OK;
    }
}

cuzk_status cli_job_cancel(cli_conn *c, const char *request_id, cuzk_error *err) {
    char rid[400], path[600];
    if (!cli_url_escape(request_id, rid, sizeof rid))
        return cuzk_fail(err, CUZK_EINVAL, "request id too long");
    snprintf(path, sizeof path, "/v1/jobs/%s", rid);
    cli_http_resp r;
    cuzk_status st = cli_http(c, "DELETE", path, CLI_BODY_NONE, NULL, 0, 30000, &r, NULL, err);
    if (st != CUZK_OK)
        return st;
    return r.code == 200 ? CUZK_OK : cli_http_fail(&r, err);
}

cuzk_status cli_result_proof(const json_t *result, size_t i, cuzk_proof_bytes *proof,
                             uint8_t **pub, size_t *n_pub, cuzk_error *err) {
    *pub = NULL, *n_pub = 0;
    const json_t *part = json_array_get(json_object_get(result, "proofs"), i);
    const json_t *pj = json_object_get(part, "proof"), *pubj = json_object_get(part, "public");
    if (!json_is_object(pj) || !json_is_array(pubj))
        return cuzk_fail(err, CUZK_EFORMAT, "result has no proof %zu", i);
    char *text = json_dumps(pj, JSON_COMPACT);
    cuzk_status st = text ? cuzk_proof_bytes_from_json(proof, CUZK_CURVE_NONE, text, strlen(text),
                                                       err)
                          : cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    free(text);
    if (st != CUZK_OK)
        return st;
    text = json_dumps(pubj, JSON_COMPACT);
    st = text ? cuzk_public_bytes_from_json(proof->curve, pub, n_pub, text, strlen(text), err)
              : cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    free(text);
    return st;
}

cuzk_status cli_key_vk(cli_conn *c, const char *key, cuzk_vk **vk, cuzk_error *err) {
    struct stat sb;
    *vk = NULL;
    if (stat(key, &sb) == 0 && S_ISREG(sb.st_mode))
        return cuzk_vk_load(vk, key, err);
    /* The key's own entry: the daemon resolves another name of the key
     * (an alias) to it. */
    char url[512];
    if (strlen(key) > 127 || strpbrk(key, "/?#% \"\\"))
        return cuzk_fail(err, CUZK_ENOTFOUND, "key '%s': no such file, and not a key id", key);
    snprintf(url, sizeof url, "/v1/keys/%s", key);
    json_t *j = cli_request_json(c, "GET", url, NULL, 30000, NULL, err);
    if (!j)
        return err ? err->status : CUZK_EIO;
    const char *path = cli_json_str(j, "path", NULL);
    cuzk_status st = path ? cuzk_vk_load(vk, path, err)
                          : cuzk_fail(err, CUZK_ENOTFOUND, "key '%s': no such file, and the "
                                      "daemon knows no key of that id", key);
    json_decref(j);
    return st;
}

#endif /* CLI_HAVE_DAEMON */
