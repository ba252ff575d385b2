/*
 * The cuzk command's client side of cuzkd (docs/API.md): where the daemon
 * is, one HTTP connection to it, and the few JSON helpers the commands
 * share.  Used by `cuzk prove` (through a daemon), `cuzk status`, `cuzk
 * keys`, `cuzk trace` and `cuzk bench single|batch|stress`.
 *
 * Address resolution is one function (cli_addr_resolve) so every command
 * finds the daemon the same way: --addr, else CUZK_ADDR, else the default
 * unix socket when that file exists.
 *
 * A cli_conn is one libcurl easy handle plus its reusable buffers: a
 * request allocates nothing once the response buffer has grown to the
 * largest response seen, and libcurl keeps the connection open between
 * requests.  A cli_conn belongs to one thread at a time; give each thread
 * its own.  The response view returned by cli_http stays valid until the
 * next request on the same connection.
 *
 * Without libcurl (CUZK_HAVE_CURL undefined) or jansson, only the address
 * functions exist and CLI_HAVE_DAEMON is 0: the commands then say the build
 * has no daemon client.
 */
#ifndef CUZK_CLI_CLIENT_H
#define CUZK_CLI_CLIENT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "cuzk.h"
#include "cuzk_files.h"

/* jansson is required by the build; libcurl is optional (-DCUZK_CLIENT=OFF) */
#if defined(CUZK_HAVE_CURL)
#define CLI_HAVE_DAEMON 1
#include <jansson.h>
#else
#define CLI_HAVE_DAEMON 0
#endif

/* What the help texts and the "no daemon client" message say. */
#define CLI_NO_DAEMON_TEXT "built without libcurl (or jansson): no daemon client in this build"

typedef enum cli_addr_kind {
    CLI_ADDR_NONE = 0, /* nothing configured: prove in-process */
    CLI_ADDR_UNIX = 1,
    CLI_ADDR_TCP = 2
} cli_addr_kind;

/* Where the address came from: decides what happens when it is dead. */
typedef enum cli_addr_source {
    CLI_ADDR_FROM_FLAG = 0,   /* --addr */
    CLI_ADDR_FROM_ENV = 1,    /* CUZK_ADDR */
    CLI_ADDR_FROM_DEFAULT = 2 /* the default socket existed */
} cli_addr_source;

typedef struct cli_addr {
    cli_addr_kind kind;
    cli_addr_source source;
    char path[108]; /* UNIX: the socket path (sun_path's size) */
    char base[256]; /* URL prefix: "http://localhost" or "http://host:port" */
    char text[300]; /* for messages: "unix:/path" or "http://host:port" */
} cli_addr;

/*
 * Parse "unix:/path", "/path" or "http://host:port" (host may be a name,
 * an IPv4 address or [IPv6]; the port is required).  Returns CUZK_OK or
 * CUZK_EINVAL with the reason.  |out->source| is left to the caller.
 */
cuzk_status cli_addr_parse(const char *text, cli_addr *out, cuzk_error *err);

/* The default socket path ($XDG_RUNTIME_DIR/cuzkd.sock, else
 * /tmp/cuzkd-<uid>.sock) into |buf|; whether it exists is not checked.
 * Returns 0, or -1 if it does not fit. */
int cli_addr_default_socket(char *buf, size_t size);

/*
 * The daemon to use: |flag| (--addr, may be NULL), else $CUZK_ADDR (when
 * set and non-empty), else the default socket if a file exists there.
 * Returns CUZK_OK with |out->kind| CLI_ADDR_NONE when none applies, or
 * CUZK_EINVAL for an unparsable address.
 */
cuzk_status cli_addr_resolve(const char *flag, cli_addr *out, cuzk_error *err);

/*
 * Options every daemon command accepts: --addr ADDR, --token T (else
 * $CUZK_TOKEN), --client ID (else "<hostname>-<pid>").
 */
typedef struct cli_daemon_opts {
    const char *addr;
    const char *token;
    const char *client;
} cli_daemon_opts;

/* If argv[*i] is one of the options above, store its value, advance *i
 * past it and return 1; 0 if it is not one; -1 if its value is missing. */
int cli_daemon_opt(cli_daemon_opts *o, int argc, char **argv, int *i);

/* Help lines for those options (one string, ends with a newline). */
extern const char *cli_daemon_opts_help;

#if CLI_HAVE_DAEMON

/* One HTTP exchange's outcome; |body| is NUL-terminated (the NUL is not
 * counted in |len|). */
typedef struct cli_http_resp {
    long code; /* HTTP status; 0 when no response arrived */
    const char *body;
    size_t len;
} cli_http_resp;

typedef struct cli_conn cli_conn;

/*
 * Open a connection object for |addr|, sending |token| (NULL: none) as a
 * bearer token and |client_id| (NULL: "<hostname>-<pid>") as X-Cuzk-Client.
 * Nothing is sent until the first request.  Returns NULL with |err| set
 * (CUZK_ENOMEM, CUZK_EINTERNAL) on failure.  Free with cli_conn_free.
 */
/* May this client talk to the unix socket |path|?  In a folder every user
 * may write to, the socket (not a link) must belong to the caller or root;
 * elsewhere the folder's owner is trusted.  CUZK_OK, else CUZK_EIO or
 * CUZK_EINVAL with the reason.  cli_conn_open checks it. */
cuzk_status cli_unix_socket_trusted(const char *path, cuzk_error *err);
cli_conn *cli_conn_open(const cli_addr *addr, const char *token, const char *client_id,
                        cuzk_error *err);
void cli_conn_free(cli_conn *c);
const cli_addr *cli_conn_addr(const cli_conn *c);

/* Request body kinds. */
typedef enum cli_body_kind {
    CLI_BODY_NONE = 0,
    CLI_BODY_JSON = 1,
    CLI_BODY_BINARY = 2
} cli_body_kind;

/*
 * One request: |method| "GET", "POST" or "DELETE"; |path| starts with '/'
 * and is already URL-encoded (see cli_conn_escape).  |timeout_ms| bounds
 * the whole exchange (0: no bound).  Returns CUZK_OK when a response
 * arrived, whatever its HTTP status; CUZK_EIO when none did, with
 * libcurl's reason in |err|, and *unreachable (may be NULL) set to 1 when
 * the connection itself could not be made (nothing listens there).
 */
cuzk_status cli_http(cli_conn *c, const char *method, const char *path, cli_body_kind kind,
                     const void *body, size_t len, long timeout_ms, cli_http_resp *out,
                     int *unreachable, cuzk_error *err);

/* Percent-encode |s| for a URL path or query into |buf| (size |n|);
 * returns |buf|, or NULL if it does not fit. */
char *cli_url_escape(const char *s, char *buf, size_t n);

/* Parse a response body; NULL (with |err| set, CUZK_EFORMAT) when it is not
 * a JSON object.  The caller json_decref()s the result. */
json_t *cli_json_parse(const cli_http_resp *r, cuzk_error *err);

/* Field readers that tolerate absence: the default when the field is
 * missing or of another type.  Numbers may be JSON integers or reals. */
const char *cli_json_str(const json_t *obj, const char *key, const char *def);

/* Terminal output of text that came from a daemon (paths, ids, error
 * messages may hold any byte): writes |n| bytes of |text| to |out| with
 * every control byte but newline (C0, DEL, and C1 in UTF-8) as \xHH, so
 * that no escape sequence reaches the terminal. */
void cli_write_safe(FILE *out, const char *text, size_t n);
/* |s| escaped as by cli_write_safe, newlines too, into |buf| (|cap|
 * bytes, cut short if longer); returns |buf|.  For one field of a line. */
const char *cli_escape(const char *s, char *buf, size_t cap);
/* "|who|: |msg|\n" to |out|, |msg| escaped as by cli_write_safe (and its
 * newlines too). */
void cli_fprint_error(FILE *out, const char *who, const char *msg);
double cli_json_num(const json_t *obj, const char *key, double def);

/*
 * A daemon error as one line: "<error> (HTTP <code> <code name>)" from
 * the {"error", "code"} body, or the body's first line when it is not
 * that JSON.  Writes into |buf| and returns it.
 */
const char *cli_http_error_text(const cli_http_resp *r, char *buf, size_t n);

/* cuzk_error filled from an error response, for callers that return one. */
cuzk_status cli_http_fail(const cli_http_resp *r, cuzk_error *err);

/*
 * Resolve the address from |o| (see cli_addr_resolve; token from
 * $CUZK_TOKEN when |o->token| is NULL) and open a connection, with
 * |client_suffix| (may be NULL) appended to the client id ("<id>-<sfx>").
 * Returns NULL with |err| set: CUZK_ENOTFOUND when no daemon is
 * configured and the default socket does not exist; CUZK_EINVAL for a bad
 * address.  Nothing is sent yet.
 */
cli_conn *cli_connect(const cli_daemon_opts *o, const char *client_suffix, cuzk_error *err);

/*
 * A request whose answer is a JSON object: |body| (may be NULL) is sent as
 * JSON.  Returns the parsed object on a 2xx status (json_decref it), else
 * NULL with |err| set from the daemon's error body (or the transport
 * failure) and *code (may be NULL) the HTTP status (0: none arrived).
 */
json_t *cli_request_json(cli_conn *c, const char *method, const char *path, const json_t *body,
                         long timeout_ms, long *code, cuzk_error *err);

/* ---- jobs --------------------------------------------------------------- */

/* One job submission (docs/API.md, POST /v1/jobs), one partition. */
typedef struct cli_job_req {
    const char *key;          /* key id or absolute .zkey path */
    const char *witness_path; /* absolute path, sent in the JSON form */
    const void *witness_data; /* else the .wtns image, uploaded */
    size_t witness_len;
    /* Or instead of a witness: the text of a circom input.json (sent as
     * "input", as written: the daemon computes the witness) and, when the
     * key has no circuit registered in the daemon, the absolute path of the
     * circuit's .wasm (NULL: the key's). */
    const char *input_json;
    size_t input_len;
    const char *circuit;
    const char *priority;   /* low|normal|high|critical; NULL: the daemon's default */
    const char *request_id; /* NULL: the daemon assigns one */
    uint64_t deadline_ms;   /* 0: none */
} cli_job_req;

typedef struct cli_job_ref {
    char request_id[128];
    uint64_t job_id;
    int attached; /* the request id named an existing job */
    long code;    /* HTTP status of the submission (also on a refusal) */
} cli_job_ref;

/*
 * Submit |r|.  Returns CUZK_OK with |ref| filled; on a refusal the
 * daemon's message (CUZK_EINVAL for 400, CUZK_EBUSY for 429/503, ...);
 * CUZK_EIO when no answer came, with *unreachable (may be NULL) 1 when
 * nothing listens at the address.
 */
cuzk_status cli_job_submit(cli_conn *c, const cli_job_req *r, cli_job_ref *ref, int *unreachable,
                           cuzk_error *err);

/*
 * Wait for job |request_id|'s outcome, at most |timeout_ms| (0: no limit),
 * polling the result endpoint in slices of at most 30 s.  Returns CUZK_OK
 * with *result the done job's result object (json_decref it); CUZK_ETIMEOUT
 * when |timeout_ms| passed first (the job keeps running); for a failed,
 * cancelled or expired job CUZK_EINTERNAL, CUZK_ECANCELLED or
 * CUZK_ETIMEOUT with "job <id> <state>: <error>"; else the HTTP or
 * transport error.
 */
cuzk_status cli_job_await(cli_conn *c, const char *request_id, long timeout_ms, json_t **result,
                          cuzk_error *err);

/* DELETE the job; CUZK_OK whether or not this call was the one that
 * cancelled it. */
cuzk_status cli_job_cancel(cli_conn *c, const char *request_id, cuzk_error *err);

/*
 * Partition |i| of a done job's result (format=json), read back with the
 * snarkjs readers so it can be verified and written exactly as the
 * in-process prover writes it.  *pub: malloc'd 32-byte big-endian signal
 * images (free() it; NULL when there are none).  CUZK_EFORMAT if the
 * result has no such partition or it does not parse.
 */
cuzk_status cli_result_proof(const json_t *result, size_t i, cuzk_proof_bytes *proof,
                             uint8_t **pub, size_t *n_pub, cuzk_error *err);

/*
 * The verification key of |key|: a .zkey path readable here, or the id of
 * a key the daemon knows (its path is asked from GET /v1/keys and read
 * here, so client and daemon must share the file system).  |*vk| NULL on
 * failure; free it with cuzk_vk_release.
 */
cuzk_status cli_key_vk(cli_conn *c, const char *key, cuzk_vk **vk, cuzk_error *err);

#endif /* CLI_HAVE_DAEMON */

#endif
