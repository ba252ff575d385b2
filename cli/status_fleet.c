/*
 * `cuzk status`: the "fleet" part of a fleet node's /v1/status (docs/DAEMON.md,
 * "Running a fleet"): this node's link to the database, the fleet queue by
 * priority, and every node with its heartbeat, devices, busy share and
 * proofs.  Reads the JSON only; absent on a daemon without a fleet.
 */
#include <stdio.h>

#include "cli/client.h"

#if CLI_HAVE_DAEMON

void cli_print_fleet(FILE *out, const json_t *f) {
    if (!json_is_object(f))
        return;
    /* Names and errors come from the database: escaped (cli_escape). */
    char node[256], dberr[1024], name[256], devs[256];
    int up = json_is_true(json_object_get(f, "connected"));
    /* since when it is out of reach (a daemon that predates these fields
     * leaves them out) */
    char since[96] = "";
    const char *iso = cli_json_str(f, "unreachable_since", NULL);
    if (!up && iso) {
        char esc[64];
        snprintf(since, sizeof since, " since %s (%.0f s)", cli_escape(iso, esc, sizeof esc),
                 cli_json_num(f, "unreachable_s", 0));
    }
    fprintf(out, "fleet: node %s, database %s%s%s%s, holds %.0f of %.0f, committed %.0f, leases "
           "lost %.0f\n",
           cli_escape(cli_json_str(f, "node", "?"), node, sizeof node),
           up ? "connected" : "UNREACHABLE", since, up ? "" : ": ",
           up ? "" : cli_escape(cli_json_str(f, "db_error", ""), dberr, sizeof dberr), cli_json_num(f, "held", 0),
           cli_json_num(f, "slots", 0), cli_json_num(f, "committed", 0),
           cli_json_num(f, "leases_lost", 0));
    const json_t *q = json_object_get(f, "queued_by_priority"),
                 *r = json_object_get(f, "running_by_priority");
    fprintf(out, "fleet queue: queued low %.0f normal %.0f high %.0f critical %.0f | running low %.0f "
           "normal %.0f high %.0f critical %.0f\n",
           cli_json_num(q, "low", 0), cli_json_num(q, "normal", 0), cli_json_num(q, "high", 0),
           cli_json_num(q, "critical", 0), cli_json_num(r, "low", 0),
           cli_json_num(r, "normal", 0), cli_json_num(r, "high", 0),
           cli_json_num(r, "critical", 0));
    fprintf(out, "fleet nodes:\n  %-20s %-6s %12s %-16s %6s %8s %9s %5s\n", "NAME", "STATE",
           "HEARTBEAT", "DEVICES", "BUSY", "PROOFS", "JOBS DONE", "HELD");
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(f, "nodes"), i, n) {
        fprintf(out, "  %-20s %-6s %10.1fs %-16s %5.1f%% %8.0f %9.0f %5.0f\n",
               cli_escape(cli_json_str(n, "name", "?"), name, sizeof name),
               json_is_true(json_object_get(n, "alive")) ? "alive" : "gone",
               cli_json_num(n, "heartbeat_s_ago", 0),
               cli_escape(cli_json_str(n, "devices", ""), devs, sizeof devs),
               100 * cli_json_num(n, "busy", 0), cli_json_num(n, "proofs", 0),
               cli_json_num(n, "jobs_done", 0), cli_json_num(n, "held", 0));
    }
}

#endif
