/*
 * Where cuzkd's jobs live: the job store, one interface with two backends.
 *
 *   HTTP request ─ api_jobs.c ─ srv->store ─┬─ store_mem.c   this node's engine
 *   (parse, check once, reply once)         └─ fleet_store.c PostgreSQL: any node's
 *                                                            engine proves it
 *
 * The job endpoints (api_jobs.c) parse a request, check it once (the key
 * made ready, the engine's cuzk_submit_check) and turn what the store
 * answers into the reply; the stores only answer: a JSON document, or a
 * refusal (an HTTP status, a code and a message).  Neither store calls
 * back into the endpoints; the fleet's node thread (fleet_node.c) uses the
 * memory store's proof serialisers for what it commits.
 *
 * Must not: hold a lock across a store call; a store waits (result) in
 * slices short enough to see srv->stopping within a fraction of a second.
 */
#ifndef CUZKD_JOBS_H
#define CUZKD_JOBS_H

#include <jansson.h>

#include "server/server.h"

/* Why a store gave no job: the answer's HTTP status, code and message. */
typedef struct cuzkd_refusal {
    unsigned http;
    char code[40];
    char msg[512];
} cuzkd_refusal;

/* Fill |no|; returns 0 so a store's failure reads `return cuzkd_refuse(...)`. */
int cuzkd_refuse(cuzkd_refusal *no, unsigned http, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A submit as the endpoint checked it. */
typedef struct cuzkd_job_req {
    /* key (the engine's id, or the client's name of a key the request
     * attaches with), request id, priority, deadline, witnesses, circuit
     * (a real path, or NULL for the key's); on_end is the store's. */
    cuzk_submit_opts opts;
    const cuzk_key_info *key; /* resolved and ready; NULL for an attach */
    int inputs;               /* the witnesses are circom inputs */
    const char *client;
    cuzkd_upload *upload; /* the buffer in-memory witnesses point into, or NULL */
} cuzkd_job_req;

/* What a result request gets. */
typedef struct cuzkd_job_result {
    json_t *doc;   /* the job's status while it runs; its result once ended */
    int ended;     /* 0: still queued or running when the wait ended */
    void *raw;     /* format=raw of a done job: the proofs' bytes (malloc) */
    size_t raw_len;
} cuzkd_job_result;

typedef struct cuzkd_store {
    const char *name; /* "memory", "fleet" */
    /* Whether a submit of |request_id| would attach to a job that is
     * queued, running or done (then nothing is checked or counted). */
    int (*attaches)(cuzkd_server *srv, const char *request_id);
    /* Make the job, or attach: *doc {job_id, request_id, attached,
     * partitions}. */
    int (*submit)(cuzkd_server *srv, const cuzkd_job_req *q, json_t **doc, cuzkd_refusal *no);
    /* The status document of the job |request_id|. */
    int (*status)(cuzkd_server *srv, const char *request_id, json_t **doc, cuzkd_refusal *no);
    /* Wait up to |timeout_ms| for the job to end; a stopping daemon's
     * wait ends early. */
    int (*result)(cuzkd_server *srv, const char *request_id, uint64_t timeout_ms, int raw,
                  cuzkd_job_result *out, cuzkd_refusal *no);
    /* Cancel: *doc {cancelled, request_id, state}; |client| for the log. */
    int (*cancel)(cuzkd_server *srv, const char *request_id, const char *client, json_t **doc,
                  cuzkd_refusal *no);
} cuzkd_store;

/* store_mem.c: the jobs of this node's engine. */
extern const cuzkd_store cuzkd_store_memory;
/* fleet_store.c: the fleet's jobs in PostgreSQL (with fleet_db). */
extern const cuzkd_store cuzkd_store_fleet;

/* store_mem.c: the proofs of an ended engine job as the result's "proofs"
 * array ({"proof", "public"} per partition), and as the raw bytes of
 * format=raw (each partition's cuzk_job_proof_bytes, one after another).
 * NULL when a proof is missing (a simulated job) or on no memory. */
json_t *cuzkd_job_proofs_json(cuzk_job *job);
uint8_t *cuzkd_job_proofs_raw(cuzk_job *job, size_t *len);

#endif
