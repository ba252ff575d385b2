/*
 * Scheduling and observability of the engine (include/cuzk.h).
 *
 * The pipeline is held still by a fault hook that blocks the synthesis of
 * a "blocker" job until the test releases it, so every job submitted
 * meanwhile is queued together and the scheduler's choices are
 * deterministic, without any timing assumption.
 *
 * Checks:
 * - order: CRITICAL > HIGH > NORMAL > LOW, FIFO within a class, and the
 *   partitions of the older job first (synthesis start order);
 * - status while queued (stages, per-priority queue counts);
 * - a deadline that passes while queued expires the job (CUZK_ETIMEOUT,
 *   EXPIRED, partitions CANCELLED, within 500 ms of when it was due on the
 *   engine's clock) and does not disturb a job with a later
 *   deadline; cancelling a queued job; cancel after the outcome is refused;
 * - request ids: a duplicate attaches (same job, also while the job is
 *   queued), a mismatching duplicate is refused, an id whose job was
 *   cancelled starts a new job, find works;
 * - one log line per partition and one per job;
 * - Chrome trace: valid JSON (parsed back with jansson), complete events
 *   with sane fields, one compute event per device step on the device
 *   lane, and a time window selects fewer events;
 * - Prometheus text: every line is a comment or a well-formed sample, and
 *   the expected series carry the expected values;
 * - batching and two workers per device with upload/fetch steps: all jobs
 *   complete, some device steps took several partitions, and the device
 *   time still adds up.
 */
#include <math.h>
#include <regex.h>

#include "test_engine_util.h"
#include <jansson.h>

typedef struct gate {
    _Atomic int blocked, released;
} gate;

static void hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    gate *g = ctx;
    (void)out;
    if (at->site == CUZK_FAULT_SYNTHESIS && !strncmp(at->request_id, "blocker", 7) &&
        at->partition == 0) {
        atomic_store(&g->blocked, 1);
        while (!atomic_load(&g->released))
            usleep(1000);
    }
}

static cuzk_engine *make(gate *g, eu_log *log, unsigned batch, unsigned workers, uint32_t upload_us) {
    cuzk_engine_config cfg;
    eu_config(&cfg, log);
    cfg.cpu_fallback = 0;
    /* block() counts partitions held in synthesis: one worker, whatever
     * the core count (the default grows with it) */
    cfg.synth_workers = 1;
    cfg.ready_max = 1;
    cfg.batch_max = batch;
    eu_testing.fault_fn = hook;
    eu_testing.fault_ctx = g;
    eu_sim_device(&cfg, 0, 3000);
    cfg.devices[0].workers = workers;
    eu_testing.sim[0].upload_us = upload_us;
    eu_testing.sim[0].fetch_us = upload_us / 2;
    if (batch > 1)
        cfg.ready_max = 0; /* default: room for whole batches */
    return eu_create(&cfg);
}

/* Submit the blocker and wait until it holds the pipeline: its first
 * partition stuck in synthesis, its second admitted behind it. */
static cuzk_job *block(cuzk_engine *e, gate *g, const eu_circuit *c, const char *rid) {
    cuzk_error err = {0};
    atomic_store(&g->released, 0);
    atomic_store(&g->blocked, 0);
    cuzk_job *b = eu_submit(e, c, NULL, 2, CUZK_PRIORITY_NORMAL, rid, &err);
    cuzk_engine_status st;
    for (;;) {
        cuzk_engine_status_get(e, &st);
        if (atomic_load(&g->blocked) && st.in_stage[CUZK_STAGE_SYNTHESIS] == 2)
            break;
        usleep(1000);
    }
    return b;
}

static void order(cuzk_engine *e, gate *g, const eu_circuit *c, unsigned *jobs, unsigned *parts) {
    static const struct {
        const char *rid;
        cuzk_priority prio;
        int parts;
    } sub[] = {{"L1", CUZK_PRIORITY_LOW, 1},      {"N1", CUZK_PRIORITY_NORMAL, 2},
               {"H1", CUZK_PRIORITY_HIGH, 1},     {"C1", CUZK_PRIORITY_CRITICAL, 1},
               {"N2", CUZK_PRIORITY_NORMAL, 1},   {"L2", CUZK_PRIORITY_LOW, 1},
               {"C2", CUZK_PRIORITY_CRITICAL, 1}, {"H2", CUZK_PRIORITY_HIGH, 1}};
    enum { N = sizeof sub / sizeof sub[0] };
    const char *want[] = {"C1", "C2", "H1", "H2", "N1", "N1", "N2", "L1", "L2"};
    cuzk_error err = {0};
    cuzk_job *b = block(e, g, c, "blocker-1"), *j[N];
    for (int i = 0; i < N; i++)
        j[i] = eu_submit(e, c, NULL, (size_t)sub[i].parts, sub[i].prio, sub[i].rid, &err);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.queued_jobs[CUZK_PRIORITY_CRITICAL] == 2 && st.queued_jobs[CUZK_PRIORITY_HIGH] == 2 &&
              st.queued_jobs[CUZK_PRIORITY_NORMAL] == 2 && st.queued_jobs[CUZK_PRIORITY_LOW] == 2,
          "queued jobs by priority: %u %u %u %u", st.queued_jobs[3], st.queued_jobs[2],
          st.queued_jobs[1], st.queued_jobs[0]);
    cuzk_job_info info;
    cuzk_job_status(j[1], &info, NULL, 0);
    CHECK(info.state == CUZK_JOB_QUEUED && info.in_stage[CUZK_STAGE_QUEUED] == 2,
          "N1 while blocked: %s, %u queued", cuzk_job_state_name(info.state),
          info.in_stage[CUZK_STAGE_QUEUED]);
    atomic_store(&g->released, 1);
    struct {
        uint64_t t;
        const char *rid;
    } starts[16];
    int n = 0;
    for (int i = 0; i < N; i++) {
        cuzk_partition_info pi[2];
        CHECK(cuzk_job_await(j[i], 60000, &err) == CUZK_OK, "%s: %s", sub[i].rid, err.msg);
        cuzk_job_status(j[i], NULL, pi, 2);
        for (int k = 0; k < sub[i].parts; k++)
            starts[n].t = pi[k].synth_start_ns, starts[n++].rid = sub[i].rid;
        cuzk_job_release(j[i]);
    }
    CHECK(cuzk_job_await(b, 60000, &err) == CUZK_OK, "blocker: %s", err.msg);
    cuzk_job_release(b);
    for (int a = 1; a < n; a++) /* insertion sort by start time */
        for (int k = a; k > 0 && starts[k].t < starts[k - 1].t; k--) {
            __typeof__(starts[0]) t = starts[k];
            starts[k] = starts[k - 1], starts[k - 1] = t;
        }
    char got[128] = "";
    for (int k = 0; k < n; k++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s ", starts[k].rid);
    printf("  synthesis order: %s\n", got);
    for (int k = 0; k < n; k++)
        CHECK(!strcmp(starts[k].rid, want[k]), "position %d: %s, want %s", k, starts[k].rid, want[k]);
    *jobs += N + 1;
    *parts += (unsigned)n + 2;
}

static void deadlines_and_cancel(cuzk_engine *e, gate *g, const eu_circuit *c, unsigned *jobs,
                                 unsigned *parts) {
    cuzk_error err = {0};
    cuzk_job *b = block(e, g, c, "blocker-2");
    cuzk_witness w[2] = {{.path = c->wtns}, {.path = c->wtns}};
    cuzk_submit_opts o = {.key = c->zkey, .request_id = "short", .deadline_ms = 30,
                          .witnesses = w, .n_witnesses = 2};
    cuzk_job *d1, *d2, *q;
    CHECK(cuzk_submit(e, &d1, NULL, &o, &err) == CUZK_OK, "submit: %s", err.msg);
    o.request_id = "long", o.deadline_ms = 600000;
    CHECK(cuzk_submit(e, &d2, NULL, &o, &err) == CUZK_OK, "submit: %s", err.msg);
    q = eu_submit(e, c, NULL, 1, CUZK_PRIORITY_HIGH, "to-cancel", &err);
    CHECK(cuzk_job_await(d1, 30000, &err) == CUZK_ETIMEOUT, "short deadline: %s", err.msg);
    CHECK(strstr(err.msg, "deadline") != NULL, "message: %s", err.msg);
    /* On time: the job's end, on the engine's clock, within 500 ms of
     * submit + 30 ms (a bound the deadline implies, generous for a loaded
     * machine; a deadline that fires a second late fails it). */
    cuzk_job_info di;
    cuzk_job_status(d1, &di, NULL, 0);
    uint64_t due = di.submit_ns + 30 * 1000000ULL;
    CHECK(di.deadline_ns == due, "deadline at submit + %.3f ms, want 30",
          (double)(di.deadline_ns - di.submit_ns) / 1e6);
    CHECK(di.end_ns >= due && di.end_ns - due < 500 * 1000000ULL,
          "a 30 ms deadline ended the job %.1f ms after submit", (double)(di.end_ns - di.submit_ns) / 1e6);
    CHECK(cuzk_job_await(q, 0, &err) == CUZK_EBUSY, "a queued job is not done yet");
    CHECK(cuzk_job_cancel(q) == CUZK_OK, "cancel of a queued job");
    CHECK(cuzk_job_await(q, 30000, &err) == CUZK_ECANCELLED, "cancelled: %s", err.msg);
    atomic_store(&g->released, 1);
    CHECK(cuzk_job_await(d2, 60000, &err) == CUZK_OK, "long deadline: %s", err.msg);
    CHECK(cuzk_job_await(b, 60000, &err) == CUZK_OK, "blocker: %s", err.msg);
    CHECK(cuzk_job_cancel(d2) == CUZK_EBUSY, "cancel after the outcome must be refused");
    cuzk_job_info info;
    cuzk_partition_info pi[2];
    for (int i = 0; i < 200; i++) { /* dropped partitions drain just after */
        cuzk_job_status(d1, &info, pi, 2);
        if (pi[0].stage == CUZK_STAGE_CANCELLED && pi[1].stage == CUZK_STAGE_CANCELLED)
            break;
        usleep(5000);
    }
    CHECK(info.state == CUZK_JOB_EXPIRED && info.status == CUZK_ETIMEOUT, "expired job: %s %s",
          cuzk_job_state_name(info.state), cuzk_status_name(info.status));
    CHECK(pi[0].stage == CUZK_STAGE_CANCELLED && pi[1].stage == CUZK_STAGE_CANCELLED,
          "expired job's partitions: %s %s", cuzk_stage_name(pi[0].stage), cuzk_stage_name(pi[1].stage));
    cuzk_job_release(d1);
    cuzk_job_release(d2);
    cuzk_job_release(q);
    cuzk_job_release(b);
    *jobs += 4;
    *parts += 2 + 2 + 1 + 2;
}

static void request_ids(cuzk_engine *e, gate *g, const eu_circuit *c, unsigned *jobs,
                        unsigned *parts) {
    cuzk_error err = {0};
    cuzk_witness w[2] = {{.path = c->wtns}, {.path = c->wtns}};
    cuzk_submit_opts o = {.key = c->zkey, .request_id = "same", .witnesses = w, .n_witnesses = 1};
    cuzk_job *a, *b, *f, *x;
    int att = -1;
    CHECK(cuzk_submit(e, &a, &att, &o, &err) == CUZK_OK && att == 0, "first submit");
    CHECK(cuzk_submit(e, &b, &att, &o, &err) == CUZK_OK && att == 1, "duplicate attaches");
    CHECK(cuzk_job_id(a) == cuzk_job_id(b), "attached to another job");
    o.n_witnesses = 2;
    CHECK(cuzk_submit(e, &x, &att, &o, &err) == CUZK_EMISMATCH && x == NULL,
          "a duplicate id with other partitions must be refused");
    CHECK(cuzk_job_find(e, &f, "same", &err) == CUZK_OK && cuzk_job_id(f) == cuzk_job_id(a), "find");
    CHECK(cuzk_job_find(e, &x, "none", &err) == CUZK_ENOTFOUND, "find of an unknown id");
    CHECK(cuzk_job_await(b, 60000, &err) == CUZK_OK, "attached job: %s", err.msg);
    CHECK(cuzk_submit(e, &x, &att, &o, &err) == CUZK_EMISMATCH, "mismatch after done");
    o.n_witnesses = 1;
    CHECK(cuzk_submit(e, &x, &att, &o, &err) == CUZK_OK && att == 1 &&
              cuzk_job_id(x) == cuzk_job_id(a),
          "a done job's id attaches");
    cuzk_job_release(x);
    /* A cancelled job's id starts a new job.  The blocker holds the
     * pipeline, so the job is still queued when it is cancelled: the
     * cancel cannot lose a race with the job's end. */
    cuzk_job *blk = block(e, g, c, "blocker-3");
    o.request_id = "again";
    cuzk_job *c1, *c2;
    CHECK(cuzk_submit(e, &c1, &att, &o, &err) == CUZK_OK && att == 0, "submit");
    /* the job is queued behind the blocker: its id attaches to it */
    cuzk_job_info info;
    cuzk_job_status(c1, &info, NULL, 0);
    CHECK(info.state == CUZK_JOB_QUEUED, "behind the blocker: %s", cuzk_job_state_name(info.state));
    cuzk_job *c1b = NULL;
    cuzk_status s = cuzk_submit(e, &c1b, &att, &o, &err);
    CHECK(s == CUZK_OK && att == 1 && cuzk_job_id(c1b) == cuzk_job_id(c1),
          "a queued job's id attaches to it: %s (%s), attached %d", cuzk_status_name(s), err.msg,
          att);
    cuzk_job_release(c1b);
    CHECK(cuzk_job_cancel(c1) == CUZK_OK, "cancel of a queued job must succeed");
    CHECK(cuzk_job_await(c1, 60000, &err) == CUZK_ECANCELLED, "cancelled: %s", err.msg);
    CHECK(cuzk_submit(e, &c2, &att, &o, &err) == CUZK_OK, "resubmit");
    CHECK(att == 0 && cuzk_job_id(c2) != cuzk_job_id(c1),
          "resubmitting a cancelled id must start a new job");
    atomic_store(&g->released, 1);
    CHECK(cuzk_job_await(blk, 60000, &err) == CUZK_OK, "blocker: %s", err.msg);
    CHECK(cuzk_job_await(c2, 60000, &err) == CUZK_OK, "resubmitted: %s", err.msg);
    cuzk_job_release(blk);
    *jobs += 1 + 1 + 1 + 1;  /* same, again (cancelled), again (new), blocker */
    *parts += 1 + 1 + 1 + 2;
    cuzk_job_release(a);
    cuzk_job_release(b);
    cuzk_job_release(f);
    cuzk_job_release(c1);
    cuzk_job_release(c2);
}

static void trace(cuzk_engine *e) {
    cuzk_error err = {0};
    char *text;
    size_t len;
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(cuzk_engine_trace(e, &text, &len, 0, 0, &err) == CUZK_OK, "trace: %s", err.msg);
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    CHECK(root != NULL, "trace is not JSON: %s (line %d)", je.text, je.line);
    json_t *ev = json_object_get(root, "traceEvents");
    CHECK(json_is_array(ev), "no traceEvents array");
    size_t computes = 0, complete = 0, bad = 0, i;
    json_t *x;
    json_array_foreach(ev, i, x) {
        const char *ph = json_string_value(json_object_get(x, "ph"));
        const char *name = json_string_value(json_object_get(x, "name"));
        if (!ph || !name) {
            bad++;
            continue;
        }
        if (strcmp(ph, "X"))
            continue;
        complete++;
        json_t *ts = json_object_get(x, "ts"), *dur = json_object_get(x, "dur");
        if (!json_is_number(ts) || !json_is_number(dur) || json_number_value(ts) < 0 ||
            json_number_value(dur) < 0 || !json_is_integer(json_object_get(json_object_get(x, "args"), "job")))
            bad++;
        if (!strcmp(name, "compute") && json_integer_value(json_object_get(x, "pid")) == 2)
            computes++;
    }
    printf("  trace: %zu bytes, %zu complete events, %zu compute events on device lanes\n", len,
           complete, computes);
    CHECK(bad == 0, "%zu malformed trace events", bad);
    CHECK(computes == st.devices[0].proofs, "%zu compute events, %llu device steps", computes,
          (unsigned long long)st.devices[0].proofs);
    json_decref(root);
    free(text);
    /* A window in the middle holds fewer events. */
    uint64_t mid = st.now_ns - st.uptime_ns / 2;
    CHECK(cuzk_engine_trace(e, &text, &len, mid, mid + 1000000, &err) == CUZK_OK, "trace window");
    root = json_loadb(text, len, 0, &je);
    CHECK(root && json_array_size(json_object_get(root, "traceEvents")) < complete,
          "a 1 ms window should hold fewer events");
    json_decref(root);
    free(text);
}

/* The value of the sample line that starts with |prefix|, or -1. */
static double sample(const char *text, const char *prefix) {
    const char *p = text;
    size_t n = strlen(prefix);
    while ((p = strstr(p, prefix))) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return atof(p + n + 1);
        p += n;
    }
    return -1;
}

static void metrics(cuzk_engine *e, const char *key) {
    cuzk_error err = {0};
    char *text, line[1024], prefix[600];
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(cuzk_engine_metrics(e, &text, NULL, &err) == CUZK_OK, "metrics: %s", err.msg);
    regex_t re;
    regcomp(&re, "^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{[a-zA-Z_]+=\"([^\"\\\\]|\\\\.)*\"(,[a-zA-Z_]+=\"([^\"\\\\]|\\\\.)*\")*\\})? [-+0-9.eE]+$",
            REG_EXTENDED | REG_NOSUB);
    int bad = 0, lines = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        lines++;
        if (strncmp(line, "# HELP ", 7) && strncmp(line, "# TYPE ", 7) && regexec(&re, line, 0, NULL, 0)) {
            if (bad++ < 3)
                fprintf(stderr, "  bad metrics line: %s\n", line);
        }
        p += n + (nl != NULL);
    }
    regfree(&re);
    CHECK(bad == 0, "%d malformed lines of %d", bad, lines);
    snprintf(prefix, sizeof prefix, "cuzk_proofs_total{key=\"%s\"}", key);
    CHECK(sample(text, prefix) == (double)st.proofs, "%s = %g, want %llu", prefix,
          sample(text, prefix), (unsigned long long)st.proofs);
    snprintf(prefix, sizeof prefix, "cuzk_key_tier{key=\"%s\",tier=\"host\"}", key);
    CHECK(sample(text, prefix) == 1, "%s = %g", prefix, sample(text, prefix));
    CHECK(sample(text, "cuzk_stage_seconds_count{stage=\"device\"}") == (double)st.devices[0].proofs,
          "device stage count");
    CHECK(sample(text, "cuzk_stage_seconds_bucket{stage=\"device\",le=\"+Inf\"}") ==
              (double)st.devices[0].proofs,
          "device +Inf bucket");
    CHECK(sample(text, "cuzk_jobs_total{outcome=\"expired\"}") == 1, "expired jobs");
    CHECK(sample(text, "cuzk_jobs_total{outcome=\"cancelled\"}") == (double)st.jobs_cancelled,
          "cancelled jobs");
    CHECK(sample(text, "cuzk_device_seconds_total{device=\"sim0\",state=\"idle_with_work\"}") >= 0,
          "device idle-with-work series");
    CHECK(sample(text, "cuzk_memory_bytes{kind=\"peak\"}") > 0 &&
              sample(text, "cuzk_memory_bytes{kind=\"budget\"}") == (double)st.mem_budget,
          "memory series");
    CHECK(sample(text, "cuzk_queue_depth{queue=\"ready\"}") == 0, "ready queue depth");
    CHECK(strstr(text, "# TYPE cuzk_stage_seconds histogram") != NULL, "histogram type line");
    free(text);
}

static void batching(const eu_circuit *c) {
    gate g = {0};
    atomic_store(&g.released, 1);
    cuzk_engine *e = make(&g, NULL, 4, 2, 2000);
    cuzk_error err = {0};
    enum { J = 3, P = 4 };
    cuzk_job *j[J];
    /* The device time must add up between two status snapshots, each taken
     * between two clock reads: the engine reads its clock once for the
     * uptime and once for the accounting, so the sum may differ from the
     * uptime by the time the two calls took, never by more. */
    cuzk_engine_status s0;
    uint64_t b0 = cuzk_now_ns();
    cuzk_engine_status_get(e, &s0);
    uint64_t a0 = cuzk_now_ns();
    for (int i = 0; i < J; i++)
        j[i] = eu_submit(e, c, NULL, P, CUZK_PRIORITY_NORMAL, NULL, &err);
    uint64_t starts[J * P];
    int n = 0, distinct = 0;
    for (int i = 0; i < J; i++) {
        cuzk_partition_info pi[P];
        CHECK(j[i] && cuzk_job_await(j[i], 60000, &err) == CUZK_OK, "batched job %d: %s", i, err.msg);
        cuzk_job_status(j[i], NULL, pi, P);
        for (int k = 0; k < P; k++)
            starts[n++] = pi[k].device_start_ns;
        cuzk_job_release(j[i]);
    }
    for (int a = 0; a < n; a++) {
        int seen = 0;
        for (int b = 0; b < a; b++)
            seen |= starts[b] == starts[a];
        distinct += !seen;
    }
    cuzk_engine_status st;
    uint64_t b1 = cuzk_now_ns();
    cuzk_engine_status_get(e, &st);
    uint64_t a1 = cuzk_now_ns();
    const cuzk_device_status *d = &st.devices[0];
    printf("  batching: %d partitions in %d device steps; busy %.3f starved %.3f idle-with-work %.4f\n",
           n, distinct, d->busy_s, d->starved_s, d->idle_with_work_s);
    CHECK(distinct < n, "no device step took more than one partition");
    const cuzk_device_status *d0 = &s0.devices[0];
    double grew = (d->busy_s + d->starved_s + d->idle_s + d->idle_with_work_s) -
                  (d0->busy_s + d0->starved_s + d0->idle_s + d0->idle_with_work_s);
    double up = (double)(st.uptime_ns - s0.uptime_ns) / 1e9;
    double slack = (double)((a0 - b0) + (a1 - b1)) / 1e9 + 1e-6;
    CHECK(fabs(grew - up) <= slack, "device time grew %.6f s, uptime %.6f s (allowed %.6f s)", grew,
          up, slack);
    cuzk_engine_destroy(e, -1);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_sched");
    char *dir = eu_tmpdir();
    eu_circuit c;
    eu_make(&c, dir, "bn", CUZK_CURVE_BN254, 8, 51);
    gate g = {0};
    eu_log log = {0};
    cuzk_engine *e = make(&g, &log, 1, 1, 0);
    unsigned jobs = 0, parts = 0;
    order(e, &g, &c, &jobs, &parts);
    deadlines_and_cancel(e, &g, &c, &jobs, &parts);
    request_ids(e, &g, &c, &jobs, &parts);
    trace(e);
    cuzk_key_info ki;
    cuzk_engine_keys(e, &ki, 1);
    metrics(e, ki.id);
    cuzk_engine_destroy(e, -1);
    printf("  log: %u partition lines, %u job lines (%u partitions, %u jobs)\n",
           atomic_load(&log.partition_lines), atomic_load(&log.job_lines), parts, jobs);
    CHECK(atomic_load(&log.partition_lines) == parts, "%u partition lines for %u partitions",
          atomic_load(&log.partition_lines), parts);
    CHECK(atomic_load(&log.job_lines) == jobs, "%u job lines for %u jobs",
          atomic_load(&log.job_lines), jobs);
    batching(&c);
    eu_free(&c);
    eu_rmdir(dir);
    return tu_finish();
}
