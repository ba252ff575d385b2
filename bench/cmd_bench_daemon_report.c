/*
 * The report of `cuzk bench single|batch|stress` (bench/bench_daemon.h):
 * latency percentiles (submit to result, per priority), duplicate ids,
 * the intake (bytes and times of the submits), each device's busy /
 * starved / idle / idle-with-work split from two /v1/status snapshots, and
 * the JSON of it all.  Must not: talk to the daemon (the snapshots come
 * from the caller).
 */
#include "bench/bench_daemon.h"

#if CLI_HAVE_DAEMON

/* ---- figures --------------------------------------------------------------------- */

typedef bench_stats lat_stats;

static lat_stats latency(const bench_sink *s, int prio) {
    lat_stats st = {0};
    double *v = malloc((s->n ? s->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < s->n; i++)
        if (!s->recs[i].status && (prio < 0 || s->recs[i].prio == prio))
            v[n++] = s->recs[i].latency_s;
    bench_stats_of(&st, v, n);
    free(v);
    return st;
}

/* Jobs that got the job id of another (a duplicate would mean two
 * submissions landed in one job). */
static size_t duplicate_ids(const bench_sink *s) {
    uint64_t *ids = malloc((s->n ? s->n : 1) * sizeof *ids);
    size_t n = 0, dup = 0;
    for (size_t i = 0; ids && i < s->n; i++)
        if (s->recs[i].job_id)
            ids[n++] = s->recs[i].job_id;
    if (ids)
        qsort(ids, n, sizeof *ids, bench_cmp_u64);
    for (size_t i = 1; i < n; i++)
        dup += ids[i] == ids[i - 1];
    free(ids);
    return dup;
}

static json_t *lat_json(const lat_stats *l) {
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)l->n, "mean", l->mean,
                     "p50", l->p50, "p95", l->p95, "p99", l->p99, "max", l->max);
}

static void print_lat(const char *what, const lat_stats *l) {
    printf("%-18s n %zu  mean %.4f  p50 %.4f  p95 %.4f  p99 %.4f  max %.4f s\n", what, l->n,
           l->mean, l->p50, l->p95, l->p99, l->max);
}

/* Partitions a fleet node had committed in a /v1/status "fleet" object
 * (its nodes' jobs_done); 0 for a node not listed. */
static double node_done(const json_t *fleet, const char *name) {
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(fleet, "nodes"), i, n) if (!strcmp(
        cli_json_str(n, "name", ""), name)) return cli_json_num(n, "jobs_done", 0);
    return 0;
}

double bench_fleet_committed(const json_t *before, const json_t *after) {
    const json_t *fa = json_object_get(after, "fleet"), *fb = json_object_get(before, "fleet");
    double sum = 0;
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(fa, "nodes"), i, n) {
        const char *name = cli_json_str(n, "name", "");
        sum += cli_json_num(n, "jobs_done", 0) - node_done(fb, name);
    }
    return sum;
}

/* Through a fleet node the run's jobs are the fleet's, the rest of the
 * status is the node's: say which is which.  The fleet-wide figures are
 * the nodes' committed partitions (heartbeat rows) over the run, from any
 * client.  Adds "fleet" to |out|. */
static void fleet_split(const json_t *before, const json_t *after, size_t ok, json_t *out) {
    const json_t *fa = json_object_get(after, "fleet"), *fb = json_object_get(before, "fleet");
    const char *me = cli_json_str(fa, "node", "?");
    json_t *by = json_object();
    size_t i, nodes = 0;
    const json_t *n;
    printf("fleet: %zu jobs done, fleet-wide (this run's, submitted through node %s, proved by any "
           "node)\n", ok, me);
    printf("fleet: %.0f partitions committed fleet-wide during the run (any client's jobs), by node:",
           bench_fleet_committed(before, after));
    json_array_foreach(json_object_get(fa, "nodes"), i, n) {
        const char *name = cli_json_str(n, "name", "?");
        double d = cli_json_num(n, "jobs_done", 0) - node_done(fb, name);
        printf("%s %s %.0f", nodes++ ? "," : "", name, d);
        json_object_set_new(by, name, json_integer((json_int_t)d));
    }
    printf("\n");
    json_object_set_new(out, "fleet",
                        json_pack("{s:s, s:I, s:I, s:o}", "node", me, "jobs_done", (json_int_t)ok,
                                  "partitions_committed",
                                  (json_int_t)bench_fleet_committed(before, after),
                                  "partitions_committed_by_node", by));
    printf("node %s only (the figures below are this node's, not the fleet's):\n", me);
}

/* The daemon's view of the run: per-device and job-counter deltas between
 * two /v1/status objects (a fleet node's own).  Adds "daemon" to |out|. */
static void daemon_split(const json_t *before, const json_t *after, json_t *out) {
    static const char *jobk[] = {"done", "failed", "cancelled", "expired"};
    json_t *devs = json_array(), *jobs = json_object();
    const json_t *da = json_object_get(after, "devices"), *db = json_object_get(before, "devices");
    size_t i;
    json_t *d;
    json_array_foreach(da, i, d) {
        const json_t *b = NULL, *x;
        size_t m;
        json_array_foreach(db, m, x) if (!strcmp(cli_json_str(x, "name", ""),
                                                 cli_json_str(d, "name", "?"))) b = x;
        double busy = cli_json_num(d, "busy_s", 0) - cli_json_num(b, "busy_s", 0);
        double starved = cli_json_num(d, "starved_s", 0) - cli_json_num(b, "starved_s", 0);
        double iww = cli_json_num(d, "idle_with_work_s", 0) - cli_json_num(b, "idle_with_work_s", 0);
        double proofs = cli_json_num(d, "proofs", 0) - cli_json_num(b, "proofs", 0);
        /* idle (no work) apart from starved (synthesis behind); a daemon
         * without idle_s counted both in starved_s, with the synthesis
         * part in starved_synth_s when it reports it */
        double idle = -1;
        if (json_object_get(d, "idle_s")) {
            idle = cli_json_num(d, "idle_s", 0) - cli_json_num(b, "idle_s", 0);
        } else if (json_object_get(d, "starved_synth_s")) {
            double ss = cli_json_num(d, "starved_synth_s", 0) -
                        cli_json_num(b, "starved_synth_s", 0);
            idle = starved - ss;
            starved = ss;
        }
        double all = busy + starved + (idle > 0 ? idle : 0) + iww,
               pct = all > 0 ? 100 * busy / all : 0;
        bench_split sp = {cli_json_str(d, "name", "?"), busy, starved, idle, iww, proofs};
        bench_split_print("", &sp);
        json_array_append_new(devs, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:I}", "name",
                                              cli_json_str(d, "name", "?"), "busy_s", busy,
                                              "starved_s", starved, "idle_s", idle,
                                              "idle_with_work_s", iww, "busy_share_pct", pct,
                                              "proofs", (json_int_t)proofs));
    }
    const json_t *ja = json_object_get(after, "jobs"), *jb = json_object_get(before, "jobs");
    const json_t *fa = json_object_get(after, "fleet");
    if (fa)
        printf("node %s engine jobs (partitions it proved):", cli_json_str(fa, "node", "?"));
    else
        printf("daemon jobs:");
    for (int k = 0; k < 4; k++) {
        double dv = cli_json_num(ja, jobk[k], 0) - cli_json_num(jb, jobk[k], 0);
        printf(" %s +%.0f", jobk[k], dv);
        json_object_set_new(jobs, jobk[k], json_integer((json_int_t)dv));
    }
    printf("\n");
    json_object_set_new(out, "daemon", json_pack("{s:o, s:o}", "devices", devs, "jobs", jobs));
}

/* The intake: submit times and bytes of the submits the daemon answered. */
static json_t *intake_report(const bench_sink *s, double wall) {
    lat_stats st = {0};
    double *v = malloc((s->n ? s->n : 1) * sizeof *v), rate_sum = 0;
    uint64_t bytes = 0;
    size_t n = 0;
    for (size_t i = 0; v && i < s->n; i++) {
        const bench_rec *r = &s->recs[i];
        if (r->status == 3)
            continue;
        v[n++] = r->submit_s;
        bytes += r->bytes;
        if (r->submit_s > 0)
            rate_sum += r->bytes / r->submit_s;
    }
    bench_stats_of(&st, v, n);
    free(v);
    double agg = wall > 0 ? bytes / wall / 1e6 : 0, per = st.n ? rate_sum / st.n / 1e6 : 0;
    print_lat("submit", &st);
    printf("intake: %.1f MB sent in %zu submits: %.1f MB/s over the run, %.1f MB/s per submit "
           "(mean of bytes / submit time)\n",
           bytes / 1e6, st.n, agg, per);
    return json_pack("{s:I, s:f, s:f, s:o}", "bytes", (json_int_t)bytes, "mb_per_s_run", agg,
                     "mb_per_s_per_submit", per, "submit_s", lat_json(&st));
}

int bench_daemon_report(const bench_opts *o, bench_sink *s, double wall, uint64_t submitted,
                  const json_t *before, const json_t *after) {
    lat_stats all = latency(s, -1);
    size_t dup = duplicate_ids(s);
    size_t reached = s->n - s->unreached;
    json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:I, s:I, s:b}",
                          "mode", o->mode, "jobs", (json_int_t)reached, "ok", (json_int_t)all.n,
                          "failed", (json_int_t)(s->failed - s->unreached), "invalid",
                          (json_int_t)s->invalid, "not_reached", (json_int_t)s->unreached,
                          "wall_s", wall, "proofs_per_s", wall > 0 ? all.n / wall : 0.0,
                          "latency_s", lat_json(&all), "duplicate_job_ids", (json_int_t)dup,
                          "retries_429", (json_int_t)s->retries, "verified", o->verify);
    printf("bench %s: %zu jobs (%zu ok, %llu failed) in %.3f s: %.2f proofs/s%s\n", o->mode,
           reached, all.n, (unsigned long long)(s->failed - s->unreached), wall,
           wall > 0 ? all.n / wall : 0.0,
           after && json_object_get(after, "fleet") ? " (this run's jobs, fleet-wide)" : "");
    if (s->unreached)
        printf("not counted: %llu submits that never reached the daemon (see failures)\n",
               (unsigned long long)s->unreached);
    print_lat("latency", &all);
    json_object_set_new(j, "intake", intake_report(s, wall));
    if (!strcmp(o->mode, "stress")) {
        json_t *bp = json_object();
        for (int p = 0; p < 4; p++) {
            lat_stats l = latency(s, p);
            char what[32];
            snprintf(what, sizeof what, "latency %s", prio_names[p]);
            print_lat(what, &l);
            json_object_set_new(bp, prio_names[p], lat_json(&l));
        }
        json_object_set_new(j, "latency_by_priority_s", bp);
    }
    json_t *fails = json_object();
    printf("failures: %llu", (unsigned long long)s->failed);
    for (unsigned i = 0; i < s->n_fails; i++) {
        printf("%s  %llu x %s", i ? "\n" : "\n", (unsigned long long)s->fails[i].count,
               s->fails[i].text);
        json_object_set_new(fails, s->fails[i].text, json_integer((json_int_t)s->fails[i].count));
    }
    printf("\n");
    json_object_set_new(j, "failures", fails);
    if (o->verify)
        printf("verified: %zu valid, %llu invalid\n", all.n, (unsigned long long)s->invalid);
    printf("request ids: %llu unique submitted (%llu of them reached the daemon), %zu duplicate "
           "job ids, %llu retries after 429\n",
           (unsigned long long)submitted, (unsigned long long)(submitted - s->unreached), dup,
           (unsigned long long)s->retries);
    if (before && after && json_object_get(after, "fleet"))
        fleet_split(before, after, all.n, j);
    if (before && after)
        daemon_split(before, after, j);
    int rc = 0;
    if (o->json_path &&
        json_dump_file(j, o->json_path, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) != 0) {
        fprintf(stderr, "cuzk bench: cannot write %s\n", o->json_path);
        rc = 1;
    }
    json_decref(j);
    return rc;
}

#endif
