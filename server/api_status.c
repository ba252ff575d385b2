/*
 * The daemon endpoints (docs/API.md "Daemon"): /v1/status, /metrics,
 * /trace, /healthz and the status page.  All read engine snapshots
 * (cuzk_engine_status_get, cuzk_engine_metrics, cuzk_engine_trace), which
 * take each engine lock for a few memory reads at most, so polling them
 * every second costs the devices nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/fleet.h"
#include "server/http.h"
#include "server/log.h"

static const char *kind_name(cuzk_device_kind k) {
    if (k == CUZK_DEVICE_SIMULATED) /* a test hook: not in the public enum */
        return "sim";
    switch (k) {
    case CUZK_DEVICE_CPU:
        return "cpu";
    case CUZK_DEVICE_GPU:
        return "gpu";
    }
    return "unknown";
}

static json_t *devices_json(const cuzk_engine_status *st) {
    json_t *a = json_array();
    for (unsigned i = 0; i < st->n_devices; i++) {
        const cuzk_device_status *d = &st->devices[i];
        json_t *o = json_pack(
            "{s:s, s:s, s:b, s:f, s:f, s:f, s:I, s:I, s:I}", "name", d->name, "kind",
            kind_name(d->kind), "fallback_only", d->fallback_only, "busy_s", d->busy_s, "starved_s",
            d->starved_s, "idle_with_work_s", d->idle_with_work_s, "proofs", (json_int_t)d->proofs,
            "failures", (json_int_t)d->failures, "workers_alive", (json_int_t)d->workers_alive);
        /* starved_s: idle while partitions were queued for or in synthesis
         * (witness generation is what the device waits for); idle_s: idle
         * with no work at all.  starved_synth_s repeats starved_s for
         * clients from when starved_s held both. */
        if (o) {
            json_object_set_new(o, "starved_synth_s", json_real(d->starved_synth_s));
            json_object_set_new(o, "idle_s", json_real(d->idle_s));
        }
        if (o && d->kind == CUZK_DEVICE_GPU) {
            json_object_set_new(o, "gpu_index", json_integer(d->gpu_index));
            json_object_set_new(o, "device_mem_bytes",
                                json_integer((json_int_t)d->device_mem_bytes));
            json_object_set_new(o, "device_keys", json_integer(d->device_keys));
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *keys_json(cuzkd_server *srv) {
    cuzk_engine *e = srv->engine;
    json_t *a = json_array();
    size_t want = cuzk_engine_keys(e, NULL, 0) + 8;
    cuzk_key_info *k = calloc(want, sizeof *k);
    size_t n = k ? cuzk_engine_keys(e, k, want) : 0;
    for (size_t i = 0; i < n && i < want; i++)
        json_array_append_new(a, cuzkd_key_json(srv, &k[i]));
    free(k);
    return a;
}

enum MHD_Result api_status(cuzkd_request *r) {
    cuzkd_server *srv = r->srv;
    cuzk_engine_status st;
    cuzk_engine_status_get(srv->engine, &st);
    json_t *in_flight = json_object();
    for (int s = 0; s < CUZK_STAGE_COUNT; s++)
        json_object_set_new(in_flight, cuzk_stage_name((cuzk_stage)s),
                            json_integer(st.in_stage[s]));
    unsigned jobs, clients;
    cuzkd_jobs_counts(srv, &jobs, &clients);
    json_t *j = json_pack(
        "{s:s, s:f, s:b, s:b, s:o,"
        " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I},"
        " s:{s:[I,I,I,I], s:I, s:I, s:I}, s:o,"
        " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I},"
        " s:o, s:I, s:I, s:o}",
        "version", CUZKD_VERSION, "uptime_s", st.uptime_ns / 1e9, "draining",
        atomic_load(&srv->draining), "ready", atomic_load(&srv->ready), "devices",
        devices_json(&st), "memory", "budget", (json_int_t)st.mem_budget, "used",
        (json_int_t)st.mem_used, "peak", (json_int_t)st.mem_peak, "keys", (json_int_t)st.mem_keys,
        "buffers", (json_int_t)st.mem_buffers, "buffers_idle", (json_int_t)st.mem_buffers_idle,
        "scratch", (json_int_t)st.mem_scratch, "pinned", (json_int_t)st.mem_pinned, "intake", (json_int_t)st.mem_intake, "witness_workers", (json_int_t)st.mem_witness, "queues", "jobs_by_priority",
        (json_int_t)st.queued_jobs[0], (json_int_t)st.queued_jobs[1], (json_int_t)st.queued_jobs[2],
        (json_int_t)st.queued_jobs[3], "synthesis", (json_int_t)st.synth_queue, "ready",
        (json_int_t)st.ready_queue, "finalize", (json_int_t)st.done_queue, "in_flight", in_flight,
        "jobs", "active", (json_int_t)st.jobs_active, "draining", (json_int_t)st.jobs_draining,
        "retained", (json_int_t)st.jobs_retained,
        "done", (json_int_t)st.jobs_done, "failed", (json_int_t)st.jobs_failed, "cancelled",
        (json_int_t)st.jobs_cancelled, "expired", (json_int_t)st.jobs_expired, "proofs",
        (json_int_t)st.proofs, "retries", (json_int_t)st.retries, "keys", keys_json(srv),
        "clients", (json_int_t)clients, "connections", (json_int_t)cuzkd_http_connections(srv),
        "recent_jobs", cuzkd_jobs_json(srv, 64));
    cuzkd_intake_counts ic;
    cuzkd_intake_stats(srv, &ic);
    json_t *mem = json_object_get(j, "memory");
    if (mem)
        json_object_set_new(mem, "uploads",
                            json_pack("{s:I, s:I, s:I, s:I}", "budget", (json_int_t)ic.budget,
                                      "held", (json_int_t)ic.held, "in_use",
                                      (json_int_t)ic.in_use, "idle", (json_int_t)ic.idle));
    /* circuits: those the daemon knows (max_circuits), those loaded, one
     * object each for its checks of inputs and the engine's synthesis */
    if (j)
        json_object_set_new(j, "circuits",
                            json_pack("{s:I, s:I, s:I, s:o}", "known",
                                      (json_int_t)cuzkd_circuits_known(srv), "loaded",
                                      (json_int_t)st.n_circuits, "max",
                                      (json_int_t)(srv->cfg && srv->cfg->max_circuits
                                                       ? srv->cfg->max_circuits
                                                       : 64),
                                      "loading", cuzkd_circuits_loading_json(srv)));
    json_t *fleet = cuzkd_fleet_json(srv);
    if (fleet)
        json_object_set_new(j, "fleet", fleet);
    /* CUDA at start: its device count, or why it gave none */
    if (j)
        json_object_set_new(j, "cuda",
                            json_pack("{s:s, s:I, s:s?}", "status", cuzk_status_name(srv->gpu_probe),
                                      "devices", (json_int_t)srv->gpu_count, "error",
                                      srv->gpu_probe ? srv->gpu_error : NULL));
    return http_json(r, 200, j);
}

enum MHD_Result api_metrics(cuzkd_request *r) {
    char *engine_text = NULL, *http_text = NULL;
    size_t engine_len = 0, http_len = 0;
    cuzk_error err = {0};
    cuzk_status s = cuzk_engine_metrics(r->srv->engine, &engine_text, &engine_len, &err);
    if (s != CUZK_OK)
        return http_error_status(r, s, err.msg);
    unsigned jobs, clients;
    cuzkd_jobs_counts(r->srv, &jobs, &clients);
    cuzkd_http_stats_render(r->srv, clients, &http_text, &http_len);
    char *fleet_text = cuzkd_fleet_metrics(r->srv);
    if (fleet_text) { /* appended to the daemon's own series */
        size_t fl = strlen(fleet_text);
        char *both = realloc(http_text, http_len + fl + 1);
        if (both) {
            memcpy(both + http_len, fleet_text, fl + 1);
            http_text = both, http_len += fl;
        }
        free(fleet_text);
    }
    char *all = malloc(engine_len + http_len + 1);
    if (!all) {
        free(engine_text);
        free(http_text);
        return http_error(r, 503, "ENOMEM", "out of memory");
    }
    memcpy(all, engine_text, engine_len);
    if (http_text)
        memcpy(all + engine_len, http_text, http_len);
    all[engine_len + http_len] = 0;
    free(engine_text);
    free(http_text);
    return http_bytes(r, 200, "text/plain; version=0.0.4; charset=utf-8", all,
                      engine_len + http_len, 1);
}

/* A query parameter in seconds (decimals allowed): 1 set, 0 absent, -1 bad. */
static int query_seconds(cuzkd_request *r, const char *name, double *out) {
    const char *v = http_query(r, name);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= 0) || x > 1e9)
        return -1;
    *out = x;
    return 1;
}

enum MHD_Result api_trace(cuzkd_request *r) {
    cuzkd_server *srv = r->srv;
    double last = 0, from = 0, to = 0;
    int hl = query_seconds(r, "last_s", &last), hf = query_seconds(r, "from_s", &from),
        ht = query_seconds(r, "to_s", &to);
    if (hl < 0 || hf < 0 || ht < 0)
        return http_error(r, 400, "EINVAL", "last_s, from_s and to_s are non-negative seconds");
    if (hl && (hf || ht))
        return http_error(r, 400, "EINVAL", "give last_s, or from_s/to_s, not both");
    uint64_t now = cuzk_now_ns(), from_ns = 0, to_ns = 0;
    if (hl) {
        uint64_t span = (uint64_t)(last * 1e9);
        from_ns = span < now - srv->start_ns ? now - span : srv->start_ns;
        to_ns = now;
    } else if (hf || ht) {
        from_ns = srv->start_ns + (uint64_t)(from * 1e9);
        to_ns = ht ? srv->start_ns + (uint64_t)(to * 1e9) : now;
        if (to_ns < from_ns)
            return http_error(r, 400, "EINVAL", "to_s is before from_s");
    }
    char *json = NULL;
    size_t len = 0;
    cuzk_error err = {0};
    cuzk_status s = cuzk_engine_trace(srv->engine, &json, &len, from_ns, to_ns, &err);
    if (s != CUZK_OK)
        return http_error_status(r, s, err.msg);
    return http_bytes(r, 200, "application/json", json, len, 1);
}

enum MHD_Result api_healthz(cuzkd_request *r) {
    if (atomic_load(&r->srv->draining))
        return http_json(r, 503,
                         json_pack("{s:b, s:b, s:s, s:s}", "ok", 0, "draining", 1, "error",
                                   "cuzkd is shutting down", "code", "draining"));
    /* A fleet node that does not reach its database can neither take nor
     * prove jobs: not ready, at start or later. */
    char why[256], msg[400];
    time_t since;
    double secs;
    if (cuzkd_fleet_unreachable(r->srv, why, sizeof why, &since, &secs)) {
        snprintf(msg, sizeof msg, "the fleet database is unreachable (for %.0f s): %s", secs, why);
        return http_json(r, 503,
                         json_pack("{s:b, s:b, s:s, s:s}", "ok", 0, "starting",
                                   !atomic_load(&r->srv->ready), "error", msg, "code",
                                   "fleet_db_unreachable"));
    }
    if (!atomic_load(&r->srv->ready))
        return http_json(r, 503,
                         json_pack("{s:b, s:b, s:s, s:s}", "ok", 0, "starting", 1, "error",
                                   "cuzkd is loading its keys", "code", "starting"));
    return http_json(r, 200, json_pack("{s:b}", "ok", 1));
}

enum MHD_Result api_page(cuzkd_request *r) {
    return http_bytes(r, 200, "text/html; charset=utf-8", (void *)cuzkd_page_html,
                      strlen(cuzkd_page_html), 0);
}
