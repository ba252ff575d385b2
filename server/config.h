/*
 * cuzkd's configuration: one option table (config.c) drives the INI file
 * (libinih), the CUZKD_<NAME> environment variables, the --<name>=VALUE
 * flags, validation, and `cuzkd --print-default-config`.  Precedence:
 * defaults < file < environment < flags.
 *
 * Parsing never exits; it returns CUZK_EINVAL with a one-line reason
 * naming the option and where its bad value came from, and the caller
 * (main) exits with status 2.
 */
#ifndef CUZKD_CONFIG_H
#define CUZKD_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk.h"
#include "cuzk_testing.h" /* the simulated device ("sim") */

/* Most keys the `keys` option may preload. */
#define CUZKD_MAX_PRELOAD 64

typedef struct cuzkd_preload {
    char id[CUZK_ID_MAX + 1];
    char *path;
    char *circuit; /* the key's circuit (.wasm), or NULL */
} cuzkd_preload;

typedef struct cuzkd_config {
    /* listeners */
    char *socket;     /* unix socket path; "" disables it */
    char *listen;     /* "host:port" for TCP; "" disables it */
    char *token;      /* bearer token for TCP ("" : none) */
    char *token_file; /* file holding the token (read at validation) */
    unsigned threads; /* HTTP: connections served at once per listener */
    unsigned connection_timeout_s;
    uint64_t max_body_bytes;
    uint64_t max_input_bytes; /* JSON submit bodies (inputs, witness paths) */
    uint64_t upload_budget;  /* part of budget; 0: an eighth of it */
    unsigned upload_wait_ms; /* wait for room in it before 503 */
    unsigned max_jobs_per_client; /* 0: unlimited */
    unsigned max_await_ms;
    unsigned max_connections_per_ip; /* TCP; 0: no per-address limit */
    unsigned request_timeout_s;      /* headers, then the whole body, of one request */
    char *remote_paths; /* folders TCP clients may name files in ("": none) */
    unsigned max_keys;  /* keys the engine may know (ids and paths) */
    unsigned key_idle_s; /* keys named by path: evicted after this idle; 0 never */
    /* engine */
    char *devices;
    unsigned synth_workers, synth_threads, finalize_threads;
    uint64_t budget;
    char *keys;
    char *wc_cache_dir; /* "" : the witness layer's default */
    /* witness calculators (cuzk_wc_opts) */
    uint64_t wc_memory;
    unsigned wc_timeout_s, wc_start_timeout_s, wc_log_lines;
    uint64_t wc_max_wasm_bytes;
    unsigned wc_compile_timeout_s;
    uint64_t wc_compile_memory;
    unsigned wc_compilers;
    uint64_t wc_cache_max_bytes;
    unsigned max_circuits;
    unsigned retain_jobs;
    unsigned batch_max;
    uint64_t gpu_mem_limit; /* per GPU device, bytes (0: none) */
    int self_verify;
    int check_abc;
    unsigned trace_events;
    /* process */
    int log_level; /* cuzk_log_level */
    unsigned drain_timeout_s;
    char *pid_file;
    /* fleet (server/fleet.c) */
    char *fleet_db;  /* "" : no fleet */
    char *node_name; /* "" : <hostname>-<pid> */
    unsigned fleet_lease_s;

    /* Derived by cuzkd_config_finish. */
    char *token_value; /* token or the token_file's first line */
    cuzkd_preload preload[CUZKD_MAX_PRELOAD];
    unsigned n_preload;
} cuzkd_config;

/* Defaults (no file, environment or flags applied). */
void cuzkd_config_init(cuzkd_config *c);
void cuzkd_config_free(cuzkd_config *c);

/* What the command line asks for besides running. */
typedef enum cuzkd_action {
    CUZKD_RUN = 0,
    CUZKD_HELP,
    CUZKD_VERSION,
    CUZKD_PRINT_DEFAULT, /* --print-default-config: every option's default */
    CUZKD_PRINT_CONFIG   /* --print-config: the values after file, env, flags */
} cuzkd_action;

/*
 * Apply argv (argv[0] skipped): first --config FILE (or CUZKD_CONFIG), then
 * the environment, then every flag.  |*action| says what to do.
 * Returns CUZK_OK or CUZK_EINVAL with the reason in |err|.
 */
cuzk_status cuzkd_config_load(cuzkd_config *c, int argc, char **argv, cuzkd_action *action,
                              cuzk_error *err);

/* Cross-option checks and derived values (token file, preload list). */
cuzk_status cuzkd_config_finish(cuzkd_config *c, cuzk_error *err);

/*
 * Fill |ec| (from cuzk_engine_config_default) from |c|: devices ("auto"
 * resolved now), workers, budget, self_verify, trace_events, logging.
 * The simulated devices' step times go into |testing| (cuzk_testing.h),
 * which |ec| then points to: it must outlive the engine's creation.
 * The budget is split: |*upload_budget| for the daemon's upload buffers
 * (upload_budget, or an eighth), the rest for the engine.
 */
cuzk_status cuzkd_config_engine(const cuzkd_config *c, cuzk_engine_config *ec,
                                cuzk_testing *testing, uint64_t *upload_budget, cuzk_error *err);

/* A commented INI file of every option: with its default value (|c| NULL)
 * or with its value in |c|.  Either reads back to the same settings. */
void cuzkd_config_print(FILE *f, const cuzkd_config *c);
/* The --help text. */
void cuzkd_config_print_help(FILE *f);

/* Split a valid `listen` value into |host| (brackets removed) and |port|;
 * 0 if it is not host:port. */
int cuzkd_listen_split(const char *v, char *host, size_t cap, unsigned *port);

/* Default unix socket: $XDG_RUNTIME_DIR/cuzkd.sock, else /tmp/cuzkd-<uid>.sock. */
const char *cuzkd_default_socket(void);

#endif
