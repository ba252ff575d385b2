/*
 * cuzkd's job endpoints after the submit (docs/API.md): a job's status,
 * its result (the proofs as JSON, or raw bytes), and cancel; and the JSON
 * of a job they share.  The submit and the jobs the daemon tracks are
 * api_jobs.c's.
 *
 * Must not: block a worker thread for longer than a result wait's slice
 * at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "cuzk_files.h"
#include "cuzk_tools.h"
#include "server/fleet.h"
#include "server/http.h"
#include "server/log.h"
#include "server/submit_body.h"

/* A result wait holds its worker thread at most this long at a time, so
 * that a stop is seen. */
#define AWAIT_SLICE_MS 200

static const char *const priority_names[] = {"low", "normal", "high", "critical"};

/* ---- job JSON --------------------------------------------------------------------- */

static json_int_t span_us(uint64_t a, uint64_t b, uint64_t now) {
    if (!a)
        return 0;
    return (json_int_t)(((b ? b : now) - a) / 1000);
}

/* The lines the job's circuit printed, as data of the job: "circuit_log"
 * (the first lines kept) and "circuit_log_dropped" (the rest, counted);
 * both absent when it printed nothing. */
static void add_circuit_log(json_t *j, const cuzk_job *job) {
    uint32_t lines = 0;
    uint64_t dropped = 0;
    size_t need = cuzk_job_circuit_log(job, NULL, 0, &lines, &dropped);
    if (!j || (!lines && !dropped))
        return;
    char *text = malloc(need);
    json_t *a = json_array();
    if (text && a) {
        cuzk_job_circuit_log(job, text, need, NULL, &dropped);
        for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
            *nl = 0;
            json_array_append_new(a, json_string(p));
        }
    }
    free(text);
    json_object_set_new(j, "circuit_log", a ? a : json_array());
    json_object_set_new(j, "circuit_log_dropped", json_integer((json_int_t)dropped));
}

static json_t *job_json(cuzk_job *job) {
    size_t n = cuzk_job_partitions(job);
    cuzk_partition_info *parts = calloc(n ? n : 1, sizeof *parts);
    cuzk_job_info info;
    cuzk_job_status(job, &info, parts, parts ? n : 0);
    uint64_t now = cuzk_now_ns();
    json_t *pa = json_array();
    for (size_t i = 0; parts && i < n; i++) {
        const cuzk_partition_info *p = &parts[i];
        json_t *o = json_pack(
            "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "stage", cuzk_stage_name(p->stage),
            "device", (json_int_t)p->device, "attempts", (json_int_t)p->attempts, "queued_us",
            span_us(p->queued_ns, p->synth_start_ns, now), "synth_us",
            span_us(p->synth_start_ns, p->synth_end_ns, now), "ready_wait_us",
            p->device_start_ns ? span_us(p->synth_end_ns, p->device_start_ns, now) : 0, "device_us",
            span_us(p->device_start_ns, p->device_end_ns, now), "finalize_us",
            span_us(p->finalize_start_ns, p->finalize_end_ns, now));
        if (p->stage == CUZK_STAGE_FAILED)
            json_object_set_new(o, "status", json_string(cuzk_status_name(p->status)));
        json_array_append_new(pa, o);
    }
    free(parts);
    json_t *j = json_pack(
        "{s:I, s:s, s:o, s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:o}", "job_id",
        (json_int_t)info.id, "request_id", info.request_id, "key", jtext(info.key), "state",
        cuzk_job_state_name(info.state), "priority", priority_names[info.priority & 3], "status",
        cuzk_status_name(info.status), "error", jtext(info.msg), "partitions",
        (json_int_t)info.n_partitions, "partitions_done", (json_int_t)info.partitions_done,
        "partitions_failed", (json_int_t)info.partitions_failed, "submit_ms_ago",
        (json_int_t)((now - info.submit_ns) / 1000000), "partition", pa);
    if (j && info.simulated)
        json_object_set_new(j, "simulated", json_true());
    add_circuit_log(j, job);
    return j;
}

/* The job named by the path, or NULL after replying 404. */
static cuzk_job *find_job(cuzkd_request *r, enum MHD_Result *reply) {
    cuzk_job *job = NULL;
    if (cuzk_job_find(r->srv->engine, &job, r->param, NULL) != CUZK_OK) {
        *reply = http_error(r, 404, "ENOTFOUND",
                            "no job with request id '%s' (unknown, or "
                            "finished long enough ago to be forgotten)",
                            r->param);
        return NULL;
    }
    return job;
}

/* ---- status, result, cancel ------------------------------------------------------- */

enum MHD_Result api_jobs_status(cuzkd_request *r) {
    if (r->srv->fleet)
        return cuzkd_fleet_status(r);
    enum MHD_Result reply = MHD_NO;
    cuzk_job *job = find_job(r, &reply);
    if (!job)
        return reply;
    json_t *j = job_json(job);
    cuzk_job_release(job);
    return http_json(r, 200, j);
}


cuzk_status cuzkd_proof_raw(uint8_t *out, size_t *len, const cuzk_job *job, size_t i,
                            cuzk_error *err) {
    cuzk_proof_bytes pb;
    *len = 0;
    cuzk_status s = cuzk_job_proof_bytes(job, &pb, i, err);
    if (s != CUZK_OK)
        return s;
    memcpy(out, pb.bytes, pb.len);
    *len = pb.len;
    return CUZK_OK;
}

static enum MHD_Result result_raw(cuzkd_request *r, cuzk_job *job) {
    size_t n = cuzk_job_partitions(job);
    uint8_t *buf = malloc(n * CUZK_PROOF_BYTES_MAX + 1), *p = buf;
    if (!buf)
        return http_error(r, 503, "ENOMEM", "out of memory");
    for (size_t i = 0; i < n; i++) {
        cuzk_error err = {0};
        size_t len;
        cuzk_status s = cuzkd_proof_raw(p, &len, job, i, &err);
        if (s != CUZK_OK) {
            free(buf);
            return s == CUZK_EUNSUPPORTED
                       ? http_error(r, 409, "EUNSUPPORTED",
                                    "the job ran on a simulated device: there are no proof bytes")
                       : http_error_status(r, s, err.msg);
        }
        p += len;
    }
    return http_bytes(r, 200, "application/octet-stream", buf, (size_t)(p - buf), 1);
}

static enum MHD_Result result_json(cuzkd_request *r, cuzk_job *job, const cuzk_job_info *info) {
    json_t *j = json_pack("{s:s, s:I, s:s}", "request_id", info->request_id, "job_id",
                          (json_int_t)info->id, "state", cuzk_job_state_name(info->state));
    if (info->simulated) {
        json_object_set_new(j, "simulated", json_true());
        return http_json(r, 200, j);
    }
    json_t *proofs = json_array();
    size_t n = cuzk_job_partitions(job);
    for (size_t i = 0; i < n; i++) {
        const char *pj = cuzk_job_proof_json(job, i), *pub = cuzk_job_public_json(job, i);
        json_t *pjo = pj ? json_loads(pj, 0, NULL) : NULL,
               *puo = pub ? json_loads(pub, 0, NULL) : NULL;
        if (!pjo || !puo) {
            json_decref(pjo);
            json_decref(puo);
            json_decref(proofs);
            json_decref(j);
            return http_error(r, 500, "EINTERNAL", "partition %zu has no proof JSON", i);
        }
        json_array_append_new(proofs, json_pack("{s:o, s:o}", "proof", pjo, "public", puo));
    }
    json_object_set_new(j, "proofs", proofs);
    add_circuit_log(j, job);
    return http_json(r, 200, j);
}

int cuzkd_result_query(cuzkd_request *r, uint64_t *timeout_ms, int *raw,
                       enum MHD_Result *reply) {
    const char *format = http_query(r, "format");
    *timeout_ms = 30000;
    if (http_query_u64(r, "timeout_ms", timeout_ms) < 0) {
        *reply = http_error(r, 400, "EINVAL", "timeout_ms must be a non-negative integer");
        return 0;
    }
    if (format && strcmp(format, "json") && strcmp(format, "raw")) {
        *reply = http_error(r, 400, "EINVAL", "format must be json or raw");
        return 0;
    }
    *raw = format && !strcmp(format, "raw");
    if (*timeout_ms > r->srv->cfg->max_await_ms)
        *timeout_ms = r->srv->cfg->max_await_ms;
    return 1;
}

enum MHD_Result api_jobs_result(cuzkd_request *r) {
    if (r->srv->fleet)
        return cuzkd_fleet_result(r);
    cuzkd_server *srv = r->srv;
    uint64_t timeout_ms;
    int raw;
    enum MHD_Result reply = MHD_NO;
    if (!cuzkd_result_query(r, &timeout_ms, &raw, &reply))
        return reply;
    cuzk_job *job = find_job(r, &reply);
    if (!job)
        return reply;
    /* This connection's own thread waits (http.h), in slices so that a
     * stopping daemon is not held up by a long wait. */
    uint64_t end = cuzk_now_ns() + timeout_ms * 1000000ULL;
    cuzk_status s;
    cuzk_error err = {0};
    for (;;) {
        uint64_t now = cuzk_now_ns();
        int64_t left = now < end ? (int64_t)((end - now) / 1000000) : 0;
        s = cuzk_job_await(job, left < AWAIT_SLICE_MS ? left : AWAIT_SLICE_MS, &err);
        if (s != CUZK_EBUSY || left <= AWAIT_SLICE_MS || atomic_load(&srv->stopping))
            break;
    }
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    /* A stopping daemon cancels what is left: a waiter whose job did not
     * finish gets 503, whether it saw the job still running or cancelled. */
    if (s != CUZK_OK && atomic_load(&srv->stopping)) {
        cuzk_job_release(job);
        return http_error(r, 503, "draining",
                          "cuzkd is stopping; the job did not finish (resubmit it, with the "
                          "same request id, once the daemon is back)");
    }
    if (s == CUZK_EBUSY) {
        json_t *j = job_json(job);
        cuzk_job_release(job);
        return http_json(r, 202, j);
    }
    if (s == CUZK_OK)
        reply = raw ? result_raw(r, job) : result_json(r, job, &info);
    else {
        json_t *j = json_pack("{s:s, s:I, s:s, s:s, s:o}", "request_id", info.request_id,
                              "job_id", (json_int_t)info.id, "state",
                              cuzk_job_state_name(info.state), "status", cuzk_status_name(s),
                              "error", jtext(err.msg));
        add_circuit_log(j, job);
        reply = http_json(r, 200, j);
    }
    cuzk_job_release(job);
    return reply;
}

enum MHD_Result api_jobs_cancel(cuzkd_request *r) {
    if (r->srv->fleet)
        return cuzkd_fleet_cancel(r);
    enum MHD_Result reply = MHD_NO;
    cuzk_job *job = find_job(r, &reply);
    if (!job)
        return reply;
    cuzk_status s = cuzk_job_cancel(job);
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzk_job_release(job);
    if (s == CUZK_OK)
        LOG_INFO("jobs", "job %s cancelled by client %s", info.request_id, r->client);
    return http_json(r, 200,
                     json_pack("{s:b, s:s, s:s}", "cancelled", s == CUZK_OK, "request_id",
                               info.request_id, "state", cuzk_job_state_name(info.state)));
}
