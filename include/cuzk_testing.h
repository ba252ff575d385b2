/*
 * cuzk_testing.h: test hooks of the cuzk engine (libcuzk).  Not for
 * production code.
 *
 * Two hooks, both compiled into every build and off unless a caller fills
 * a cuzk_testing and points cuzk_engine_config.testing at it:
 * - fault injection: a callback consulted at each stage boundary that can
 *   fail, stall or kill the stage, so that retries, failures and
 *   accounting can be tested without a faulty machine (off, its cost is
 *   one predictable branch per stage);
 * - the simulated device: a TEST DOUBLE, NOT A PROVER.  It sleeps for the
 *   configured step times and produces no proof: results of such an engine
 *   are flagged |simulated| and no proof, public signals or JSON can be
 *   read from them.  It exists so that scheduling, accounting and fault
 *   handling can be tested and benchmarked with device steps of known
 *   length.
 *
 * These hooks live apart from cuzk.h so that an embedding application sees
 * only what proves.  The engine copies the struct in cuzk_engine_create;
 * the caller's copy may go away afterwards.
 */
#ifndef CUZK_TESTING_H
#define CUZK_TESTING_H

#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The simulated device's kind for cuzk_device_config.kind (see above). */
#define CUZK_DEVICE_SIMULATED ((cuzk_device_kind)1)

/* Stages at which the fault hook is consulted. */
typedef enum cuzk_fault_site {
    CUZK_FAULT_SYNTHESIS = 0, /* before a partition's witness is evaluated */
    CUZK_FAULT_DEVICE = 1,    /* before a device step (each attempt) */
    CUZK_FAULT_FINALIZE = 2,  /* before a finished proof is published */
    CUZK_FAULT_WORKER_GAP = 3 /* on a device worker between two partitions:
                                 only STALL applies; for testing that the
                                 accounting sees hot-path overhead */
} cuzk_fault_site;

typedef enum cuzk_fault_action {
    CUZK_FAULT_NONE = 0,
    CUZK_FAULT_FAIL = 1,  /* the stage fails with the hook's message */
    CUZK_FAULT_STALL = 2, /* the stage sleeps |stall_ms| first, then runs */
    CUZK_FAULT_EXIT = 3   /* DEVICE only: the worker thread exits as if it
                             had died; its partition is retried and the
                             worker is replaced */
} cuzk_fault_action;

typedef struct cuzk_fault_point {
    cuzk_fault_site site;
    uint64_t job_id;
    const char *request_id;
    uint32_t partition;
    unsigned attempt; /* 0 for the first try of a device step, 1 for the retry */
    int device;       /* device index; -1 outside device steps */
} cuzk_fault_point;

typedef struct cuzk_fault {
    cuzk_fault_action action;
    uint32_t stall_ms;
    char msg[96]; /* reason reported for FAIL (empty: "injected fault") */
} cuzk_fault;

/*
 * Fault-injection hook.  Called on engine threads at each site with |out|
 * zeroed; fills |out| to inject.  Never called with an engine lock held;
 * must not call cuzk_engine_destroy.
 */
typedef void (*cuzk_fault_fn)(void *ctx, const cuzk_fault_point *at, cuzk_fault *out);

/* Step times of a simulated device. */
typedef struct cuzk_sim_device {
    /* Microseconds of the upload (runs concurrently with another worker's
     * compute), compute (one at a time per device) and fetch steps of each
     * partition. */
    uint32_t upload_us, compute_us, fetch_us;
    /* Behave like a GPU that evaluates a, b, c itself, so that synthesis
     * leaves them out and partitions carry no a, b, c buffer (what a CPU
     * retry must then make for itself). */
    int evaluates;
} cuzk_sim_device;

struct cuzk_testing {
    cuzk_fault_fn fault_fn; /* NULL: no fault injection */
    void *fault_ctx;
    /* sim[i]: the step times of cuzk_engine_config.devices[i] when its
     * kind is CUZK_DEVICE_SIMULATED (ignored for other kinds). */
    cuzk_sim_device sim[CUZK_MAX_DEVICES];
};

#ifdef __cplusplus
}
#endif

#endif
