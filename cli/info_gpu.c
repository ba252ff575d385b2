/*
 * The daemon half of `cuzk info --gpu`: which keys a running cuzkd holds on
 * each of its GPUs (GET /v1/status, docs/API.md).  Keys stay resident only
 * in a daemon; a one-shot `cuzk prove` uploads and drops its key.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"

int cli_daemon_gpu_residency(int argc, char **argv) {
#if CLI_HAVE_DAEMON
    cli_daemon_opts o = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_daemon_opt(&o, argc, argv, &i);
        if (r < 0 || (r == 0 && argv[i][0] == '-')) {
            fprintf(stderr, "cuzk info --gpu: bad option %s\n", argv[i]);
            return 2;
        }
    }
    cuzk_error err = {0};
    cli_conn *c = cli_connect(&o, "info", &err);
    if (!c) {
        if (err.status == CUZK_ENOTFOUND) {
            printf("daemon: none configured (no --addr, CUZK_ADDR or default socket): "
                   "no keys are resident\n");
            return 0;
        }
        return cli_fail("info --gpu", "daemon", &err);
    }
    long code = 0;
    json_t *s = cli_request_json(c, "GET", "/v1/status", NULL, 10000, &code, &err);
    if (!s) {
        int rc = cli_fail("info --gpu", cli_conn_addr(c)->text, &err);
        cli_conn_free(c);
        return rc;
    }
    printf("daemon %s:\n", cli_conn_addr(c)->text);
    size_t i, gpus = 0;
    json_t *d;
    json_array_foreach(json_object_get(s, "devices"), i, d) {
        if (strcmp(cli_json_str(d, "kind", ""), "gpu"))
            continue;
        gpus++;
        printf("  %s (CUDA device %.0f): %.0f keys resident, %.1f MiB of device memory; "
               "%.0f proofs, busy %.1f s\n",
               cli_json_str(d, "name", "?"), cli_json_num(d, "gpu_index", -1),
               cli_json_num(d, "device_keys", 0), cli_json_num(d, "device_mem_bytes", 0) / 1048576.0,
               cli_json_num(d, "proofs", 0), cli_json_num(d, "busy_s", 0));
    }
    if (!gpus)
        printf("  no GPU devices (the daemon proves on the CPU)\n");
    json_array_foreach(json_object_get(s, "keys"), i, d)
        printf("  key %-20s %-9s %s 2^%.0f  %s\n", cli_json_str(d, "id", "?"),
               cli_json_str(d, "curve", "?"), cli_json_str(d, "tier", "?"),
               cli_json_num(d, "log_n", 0), cli_json_str(d, "path", ""));
    json_decref(s);
    cli_conn_free(c);
    return 0;
#else
    (void)argc, (void)argv;
    printf("daemon: %s\n", CLI_NO_DAEMON_TEXT);
    return 0;
#endif
}
