/*
 * The memory job store (jobs.h): the jobs of this node's engine, and the
 * daemon's record of those it submitted, which enforces
 * max_jobs_per_client and feeds the status page.
 *
 * The engine owns what a job is: its request id's content is compared by
 * cuzk_submit (ECONFLICT: 409 request_id_reused), its end is a call
 * (cuzk_submit_opts.on_end, job_ended below).  Uploaded witnesses are
 * handed to the engine where they were received (the request's upload
 * buffer, intake.c): no copy.  Inputs are passed as the bytes of the
 * request, and the engine copies them (they are small).
 *
 * Jobs in flight are counted per client.  A job's slot is freed when it
 * ends, by job_ended: no thread watches, nothing polls.  The call runs on
 * an engine thread and takes jobs_lock for a few list operations, so
 * nothing that holds jobs_lock may wait, or call into the engine for more
 * than a read of a job's status (cuzk_job_cancel, which can end a job and
 * so make the call, is called with no lock held).
 *
 * Must not: block a worker thread for longer than a result wait's slice
 * at a time; call into the endpoints (api_jobs.c) or the fleet.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk_tools.h"
#include "server/http.h"
#include "server/jobs.h"
#include "server/log.h"

/* A result wait holds its worker thread at most this long at a time, so
 * that a stop is seen. */
#define AWAIT_SLICE_MS 200

/* ---- clients and tracked jobs ---------------------------------------------------- */

static cuzkd_client *client_find_locked(cuzkd_server *srv, const char *name) {
    for (cuzkd_client *c = srv->clients; c; c = c->next)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static int limit_reached(cuzkd_server *srv, const cuzkd_client *c) {
    unsigned max = srv->cfg->max_jobs_per_client;
    return max && c && c->in_flight >= max;
}

int cuzkd_jobs_client_has_room(cuzkd_server *srv, const char *name) {
    pthread_mutex_lock(&srv->jobs_lock);
    int room = !limit_reached(srv, client_find_locked(srv, name));
    pthread_mutex_unlock(&srv->jobs_lock);
    return room;
}

/* Take one job slot for |name|; NULL if it is at its limit (or no memory).
 * The entry lives while it has slots. */
static cuzkd_client *client_reserve(cuzkd_server *srv, const char *name) {
    pthread_mutex_lock(&srv->jobs_lock);
    cuzkd_client *c = client_find_locked(srv, name);
    if (limit_reached(srv, c)) {
        c = NULL;
    } else {
        if (!c && (c = calloc(1, sizeof *c))) {
            snprintf(c->name, sizeof c->name, "%s", name);
            c->next = srv->clients;
            srv->clients = c;
        }
        if (c)
            c->in_flight++;
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    return c;
}

static void client_release_locked(cuzkd_server *srv, cuzkd_client *c) {
    if (--c->in_flight)
        return;
    for (cuzkd_client **pp = &srv->clients; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            free(c);
            return;
        }
}

static void client_release(cuzkd_server *srv, cuzkd_client *c) {
    pthread_mutex_lock(&srv->jobs_lock);
    client_release_locked(srv, c);
    pthread_mutex_unlock(&srv->jobs_lock);
}

static void remember_locked(cuzkd_server *srv, const cuzkd_tracked *t, cuzk_job *job) {
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzkd_recent *rc = &srv->recent[srv->n_recent++ % CUZKD_RECENT];
    memset(rc, 0, sizeof *rc);
    snprintf(rc->request_id, sizeof rc->request_id, "%s", info.request_id);
    snprintf(rc->key, sizeof rc->key, "%s", info.key);
    snprintf(rc->client, sizeof rc->client, "%s", t->client->name);
    rc->state = info.state;
    rc->partitions = info.n_partitions;
    rc->end_ns = info.end_ns ? info.end_ns : cuzk_now_ns();
    rc->seconds = (rc->end_ns - info.submit_ns) / 1e9;
}

/* cuzk_submit_opts.on_end of the jobs this daemon submits (an engine
 * thread, or the thread that cancelled the job): the job leaves the list,
 * its client's slot is freed.  One whose submit has not returned yet is
 * only marked; track() retires it. */
static void job_ended(void *ctx, cuzk_job *job) {
    cuzkd_tracked *t = ctx;
    cuzkd_server *srv = t->srv;
    pthread_mutex_lock(&srv->jobs_lock);
    t->ended = 1;
    int listed = t->listed;
    if (listed) {
        for (cuzkd_tracked **pp = &srv->tracked; *pp; pp = &(*pp)->next)
            if (*pp == t) {
                *pp = t->next;
                break;
            }
        srv->n_tracked--;
        remember_locked(srv, t, job);
        client_release_locked(srv, t->client);
        pthread_cond_broadcast(&srv->jobs_cv);
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    if (listed) {
        cuzk_job_release(t->job); /* the engine holds its own reference */
        free(t);
    }
}

/* After cuzk_submit made the job: list it until job_ended, or retire it at
 * once if it has ended already. */
static void track(cuzkd_server *srv, cuzkd_tracked *t, cuzk_job *job) {
    pthread_mutex_lock(&srv->jobs_lock);
    t->job = job;
    int ended = t->ended;
    if (ended) {
        remember_locked(srv, t, job);
        client_release_locked(srv, t->client);
    } else {
        t->listed = 1;
        t->next = srv->tracked;
        srv->tracked = t;
        srv->n_tracked++;
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    if (ended) {
        cuzk_job_release(job);
        free(t);
    }
}

cuzk_status cuzkd_jobs_start(cuzkd_server *srv, cuzk_error *err) {
    (void)err;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&srv->jobs_lock, NULL);
    pthread_cond_init(&srv->jobs_cv, &ca);
    pthread_condattr_destroy(&ca);
    return CUZK_OK;
}

void cuzkd_jobs_stop(cuzkd_server *srv) {
    /* After the engine is destroyed: every job has ended and been retired
     * by job_ended; what is left (none, unless a notification was lost)
     * is released here. */
    pthread_mutex_lock(&srv->jobs_lock);
    cuzkd_tracked *rest = srv->tracked;
    for (cuzkd_tracked *t = rest; t; t = t->next)
        client_release_locked(srv, t->client);
    srv->tracked = NULL;
    srv->n_tracked = 0;
    pthread_mutex_unlock(&srv->jobs_lock);
    while (rest) {
        cuzkd_tracked *next = rest->next;
        cuzk_job_release(rest->job);
        free(rest);
        rest = next;
    }
}

unsigned cuzkd_jobs_cancel_all(cuzkd_server *srv) {
    /* The request ids are copied under the lock and the jobs cancelled
     * outside it: a cancel ends the job, whose notification takes the
     * lock. */
    pthread_mutex_lock(&srv->jobs_lock);
    unsigned n_ids = srv->n_tracked, k = 0;
    char (*ids)[CUZK_ID_MAX + 1] = n_ids ? calloc(n_ids, sizeof *ids) : NULL;
    for (cuzkd_tracked *t = srv->tracked; ids && t && k < n_ids; t = t->next) {
        cuzk_job_info info;
        cuzk_job_status(t->job, &info, NULL, 0);
        memcpy(ids[k++], info.request_id, sizeof ids[0]);
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    unsigned n = 0;
    for (unsigned i = 0; i < k; i++) {
        cuzk_job *job;
        if (cuzk_job_find(srv->engine, &job, ids[i], NULL) != CUZK_OK)
            continue;
        n += cuzk_job_cancel(job) == CUZK_OK;
        cuzk_job_release(job);
    }
    free(ids);
    return n;
}

void cuzkd_jobs_counts(cuzkd_server *srv, unsigned *jobs, unsigned *clients) {
    pthread_mutex_lock(&srv->jobs_lock);
    *jobs = srv->n_tracked;
    unsigned n = 0;
    for (cuzkd_client *c = srv->clients; c; c = c->next)
        n++;
    *clients = n;
    pthread_mutex_unlock(&srv->jobs_lock);
}

json_t *cuzkd_jobs_json(cuzkd_server *srv, size_t max_active) {
    json_t *active = json_array(), *recent = json_array();
    uint64_t now = cuzk_now_ns();
    pthread_mutex_lock(&srv->jobs_lock);
    size_t n = 0;
    for (cuzkd_tracked *t = srv->tracked; t && n < max_active; t = t->next) {
        cuzk_job_info info;
        cuzk_job_status(t->job, &info, NULL, 0);
        /* A job that has ended but is still tracked (its result not yet
         * collected, or not yet swept) is finished, not in flight: it is
         * listed with the recent ones, first as the newest. */
        if (info.state >= CUZK_JOB_DONE) {
            uint64_t end = info.end_ns ? info.end_ns : now;
            json_array_append_new(
                recent, json_pack("{s:s, s:o, s:s, s:s, s:I, s:f, s:f}", "request_id",
                                  info.request_id, "key", jtext(info.key), "state",
                                  cuzk_job_state_name(info.state), "client", t->client->name,
                                  "partitions", (json_int_t)info.n_partitions, "seconds",
                                  (end - info.submit_ns) / 1e9, "ended_s_ago",
                                  (now > end ? now - end : 0) / 1e9));
            continue;
        }
        n++;
        json_array_append_new(active,
                              json_pack("{s:s, s:o, s:s, s:s, s:I, s:I, s:f}", "request_id",
                                        info.request_id, "key", jtext(info.key), "state",
                                        cuzk_job_state_name(info.state), "client", t->client->name,
                                        "partitions", (json_int_t)info.n_partitions,
                                        "partitions_done", (json_int_t)info.partitions_done,
                                        "age_s", (now - info.submit_ns) / 1e9));
    }
    unsigned total = srv->n_recent, keep = total < CUZKD_RECENT ? total : CUZKD_RECENT;
    for (unsigned i = 0; i < keep; i++) { /* newest first */
        const cuzkd_recent *rc = &srv->recent[(total - 1 - i) % CUZKD_RECENT];
        json_array_append_new(
            recent, json_pack("{s:s, s:o, s:s, s:s, s:I, s:f, s:f}", "request_id", rc->request_id,
                              "key", jtext(rc->key), "state", cuzk_job_state_name(rc->state),
                              "client", rc->client, "partitions", (json_int_t)rc->partitions,
                              "seconds", rc->seconds, "ended_s_ago", (now - rc->end_ns) / 1e9));
    }
    pthread_mutex_unlock(&srv->jobs_lock);
    return json_pack("{s:o, s:o}", "active", active, "recent", recent);
}

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
        cuzk_job_state_name(info.state), "priority", cuzkd_priority_names[info.priority & 3], "status",
        cuzk_status_name(info.status), "error", jtext(info.msg), "partitions",
        (json_int_t)info.n_partitions, "partitions_done", (json_int_t)info.partitions_done,
        "partitions_failed", (json_int_t)info.partitions_failed, "submit_ms_ago",
        (json_int_t)((now - info.submit_ns) / 1000000), "partition", pa);
    if (j && info.simulated)
        json_object_set_new(j, "simulated", json_true());
    add_circuit_log(j, job);
    return j;
}

/* Uploaded witnesses stay where they were received: each holds a
 * reference to the upload buffer, dropped by the engine's release call
 * once synthesis has read it.  Returns how many were handed. */
static size_t hand_uploads(const cuzkd_job_req *q, cuzk_witness *w) {
    size_t handed = 0;
    for (size_t i = 0; i < q->opts.n_witnesses; i++) {
        w[i] = q->opts.witnesses[i];
        if (q->upload && !q->inputs && w[i].data) {
            w[i].release = cuzkd_intake_release;
            w[i].release_ctx = q->upload;
            handed++;
        }
    }
    if (handed)
        atomic_fetch_add(&q->upload->refs, (unsigned)handed);
    return handed;
}

/* ---- the store ------------------------------------------------------------------- */

static int mem_attaches(cuzkd_server *srv, const char *request_id) {
    cuzk_job *job;
    if (!request_id || cuzk_job_find(srv->engine, &job, request_id, NULL) != CUZK_OK)
        return 0;
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzk_job_release(job);
    return info.state == CUZK_JOB_QUEUED || info.state == CUZK_JOB_RUNNING ||
           info.state == CUZK_JOB_DONE;
}

static int mem_submit(cuzkd_server *srv, const cuzkd_job_req *q, json_t **doc,
                      cuzkd_refusal *no) {
    cuzkd_client *c = NULL;
    cuzkd_tracked *t = NULL;
    cuzk_submit_opts o = q->opts;
    if (q->key) { /* a job of our own, unless the engine attaches after all */
        if (!(c = client_reserve(srv, q->client)))
            return cuzkd_refuse(no, 429, "too_many_jobs",
                                "client %s already has %u jobs in flight (max_jobs_per_client)",
                                q->client, srv->cfg->max_jobs_per_client);
        if (!(t = calloc(1, sizeof *t))) {
            client_release(srv, c);
            return cuzkd_refuse(no, 503, "ENOMEM", "out of memory");
        }
        t->srv = srv;
        t->client = c;
        o.on_end = job_ended;
        o.on_end_ctx = t;
    }
    cuzk_witness *w = calloc(o.n_witnesses, sizeof *w);
    if (!w) {
        if (c)
            client_release(srv, c);
        free(t);
        return cuzkd_refuse(no, 503, "ENOMEM", "out of memory");
    }
    /* The engine calls release only for a job it accepted (not attached):
     * otherwise the references are taken back here and the buffer returns
     * to the pool when the request ends. */
    size_t handed = hand_uploads(q, w);
    o.witnesses = w;
    /* the request id's content, compared by the engine on an attach */
    uint8_t digest[32];
    if (o.request_id) {
        cuzk_submit_digest(&o, digest);
        o.digest = digest;
    }
    cuzk_job *job = NULL;
    int attached = 0;
    cuzk_error err = {0};
    cuzk_status s = cuzk_submit(srv->engine, &job, &attached, &o, &err);
    free(w);
    if (handed && (s != CUZK_OK || attached))
        atomic_fetch_sub(&q->upload->refs, (unsigned)handed);
    if (t && (s != CUZK_OK || attached)) { /* no job of ours: nothing will call job_ended */
        client_release(srv, c);
        free(t);
        t = NULL;
    }
    if (s == CUZK_ECONFLICT)
        return cuzkd_refuse(no, 409, "request_id_reused", "%s", err.msg);
    if (s != CUZK_OK)
        return cuzkd_refuse(no, http_code_for_status(s), cuzk_status_name(s), "%s",
                            err.msg[0] ? err.msg : cuzk_status_text(s));
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    *doc = json_pack("{s:I, s:s, s:b, s:I}", "job_id", (json_int_t)info.id, "request_id",
                     info.request_id, "attached", attached, "partitions",
                     (json_int_t)info.n_partitions);
    if (t)
        track(srv, t, job);
    else
        cuzk_job_release(job);
    LOG_DEBUG("jobs", "job %s %s: key %s, %zu partition(s), client %s", info.request_id,
              attached ? "attached" : "submitted", info.key, o.n_witnesses, q->client);
    return 1;
}

/* The job |request_id|, or NULL after refusing 404. */
static cuzk_job *find_job(cuzkd_server *srv, const char *request_id, cuzkd_refusal *no) {
    cuzk_job *job = NULL;
    if (cuzk_job_find(srv->engine, &job, request_id, NULL) != CUZK_OK) {
        cuzkd_refuse(no, 404, "ENOTFOUND",
                     "no job with request id '%s' (unknown, or finished long enough ago to be "
                     "forgotten)",
                     request_id);
        return NULL;
    }
    return job;
}

static int mem_status(cuzkd_server *srv, const char *request_id, json_t **doc,
                      cuzkd_refusal *no) {
    cuzk_job *job = find_job(srv, request_id, no);
    if (!job)
        return 0;
    *doc = job_json(job);
    cuzk_job_release(job);
    return 1;
}

json_t *cuzkd_job_proofs_json(cuzk_job *job) {
    json_t *proofs = json_array();
    size_t n = cuzk_job_partitions(job);
    for (size_t i = 0; proofs && i < n; i++) {
        const char *pj = cuzk_job_proof_json(job, i), *pub = cuzk_job_public_json(job, i);
        json_t *pjo = pj ? json_loads(pj, 0, NULL) : NULL,
               *puo = pub ? json_loads(pub, 0, NULL) : NULL;
        if (!pjo || !puo) {
            json_decref(pjo);
            json_decref(puo);
            json_decref(proofs);
            return NULL;
        }
        json_array_append_new(proofs, json_pack("{s:o, s:o}", "proof", pjo, "public", puo));
    }
    return proofs;
}

uint8_t *cuzkd_job_proofs_raw(cuzk_job *job, size_t *len) {
    size_t n = cuzk_job_partitions(job);
    uint8_t *buf = malloc(n * CUZK_PROOF_BYTES_MAX + 1), *p = buf;
    for (size_t i = 0; buf && i < n; i++) {
        cuzk_proof_bytes pb;
        if (cuzk_job_proof_bytes(job, &pb, i, NULL) != CUZK_OK) {
            free(buf);
            return NULL;
        }
        memcpy(p, pb.bytes, pb.len);
        p += pb.len;
    }
    *len = buf ? (size_t)(p - buf) : 0;
    return buf;
}

/* The result of |job| (ended with |s|, |err|) into |out|. */
static int ended_result(cuzk_job *job, cuzk_status s, const cuzk_error *err, int raw,
                        cuzkd_job_result *out, cuzkd_refusal *no) {
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    out->ended = 1;
    out->doc = json_pack("{s:s, s:I, s:s}", "request_id", info.request_id, "job_id",
                         (json_int_t)info.id, "state", cuzk_job_state_name(info.state));
    if (s != CUZK_OK) {
        json_object_set_new(out->doc, "status", json_string(cuzk_status_name(s)));
        json_object_set_new(out->doc, "error", jtext(err->msg));
    } else if (info.simulated && raw) {
        json_decref(out->doc);
        out->doc = NULL;
        return cuzkd_refuse(no, 409, "EUNSUPPORTED",
                            "the job ran on a simulated device: there are no proof bytes");
    } else if (info.simulated) {
        json_object_set_new(out->doc, "simulated", json_true());
        return 1;
    } else if (raw) {
        json_decref(out->doc);
        out->doc = NULL;
        if (!(out->raw = cuzkd_job_proofs_raw(job, &out->raw_len)))
            return cuzkd_refuse(no, 500, "EINTERNAL", "the job's proofs have no raw form");
        return 1;
    } else {
        json_t *proofs = cuzkd_job_proofs_json(job);
        if (!proofs) {
            json_decref(out->doc);
            out->doc = NULL;
            return cuzkd_refuse(no, 500, "EINTERNAL", "a partition has no proof JSON");
        }
        json_object_set_new(out->doc, "proofs", proofs);
    }
    add_circuit_log(out->doc, job);
    return 1;
}

static int mem_result(cuzkd_server *srv, const char *request_id, uint64_t timeout_ms, int raw,
                      cuzkd_job_result *out, cuzkd_refusal *no) {
    cuzk_job *job = find_job(srv, request_id, no);
    if (!job)
        return 0;
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
    int ok = 1;
    /* A stopping daemon cancels what is left: a waiter whose job did not
     * finish gets 503, whether it saw the job still running or cancelled. */
    if (s != CUZK_OK && atomic_load(&srv->stopping))
        ok = cuzkd_refuse(no, 503, "draining",
                          "cuzkd is stopping; the job did not finish (resubmit it, with the same "
                          "request id, once the daemon is back)");
    else if (s == CUZK_EBUSY)
        out->doc = job_json(job);
    else
        ok = ended_result(job, s, &err, raw, out, no);
    cuzk_job_release(job);
    return ok;
}

static int mem_cancel(cuzkd_server *srv, const char *request_id, const char *client,
                      json_t **doc, cuzkd_refusal *no) {
    cuzk_job *job = find_job(srv, request_id, no);
    if (!job)
        return 0;
    cuzk_status s = cuzk_job_cancel(job);
    cuzk_job_info info;
    cuzk_job_status(job, &info, NULL, 0);
    cuzk_job_release(job);
    if (s == CUZK_OK)
        LOG_INFO("jobs", "job %s cancelled by client %s", info.request_id, client);
    *doc = json_pack("{s:b, s:s, s:s}", "cancelled", s == CUZK_OK, "request_id", info.request_id,
                     "state", cuzk_job_state_name(info.state));
    return 1;
}

const cuzkd_store cuzkd_store_memory = {"memory", mem_attaches, mem_submit, mem_status,
                                        mem_result, mem_cancel};
