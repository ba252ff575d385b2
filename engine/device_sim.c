/*
 * TEST DOUBLE, NOT A PROVER.  The simulated device sleeps for configured
 * step times and returns an empty (all-infinity) proof, which the engine
 * marks as simulated and never publishes as a proof.  It exists so that
 * scheduling, overlap, device-time accounting and fault handling can be
 * tested and benchmarked with device steps of known length on any machine.
 *
 * It models a GPU's shape: upload and fetch may run while another worker's
 * compute runs (copy engines), compute runs one at a time per device (one
 * stream of kernels), so two workers on one simulated device show
 * transfer/compute overlap.  Must not: be reachable except by configuring
 * CUZK_DEVICE_SIMULATED explicitly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/internal.h"

typedef struct sim_state {
    pthread_mutex_t compute; /* the simulated device executes one step at a time */
} sim_state;

static void sleep_us(uint32_t us) {
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (us && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static cuzk_status sim_open(engine_device *d, cuzk_error *err) {
    sim_state *s = calloc(1, sizeof *s);
    if (!s || pthread_mutex_init(&s->compute, NULL)) {
        free(s);
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a device");
    }
    d->state = s;
    d->has_upload = d->sim.upload_us > 0;
    d->has_fetch = d->sim.fetch_us > 0;
    return CUZK_OK;
}

static void sim_close(engine_device *d) {
    sim_state *s = d->state;
    if (s) {
        pthread_mutex_destroy(&s->compute);
        free(s);
    }
    d->state = NULL;
}

static cuzk_status sim_upload(engine_device *d, engine_dev_item *it, cuzk_error *err) {
    (void)it, (void)err;
    sleep_us(d->sim.upload_us);
    return CUZK_OK;
}

static void sim_run(engine_device *d, engine_dev_item **items, size_t n) {
    sim_state *s = d->state;
    pthread_mutex_lock(&s->compute);
    sleep_us((uint32_t)(d->sim.compute_us * n));
    pthread_mutex_unlock(&s->compute);
    for (size_t i = 0; i < n; i++) {
        memset(&items[i]->proof, 0, sizeof items[i]->proof);
        items[i]->proof.curve = items[i]->key->curve;
        items[i]->status = CUZK_OK;
    }
}

static cuzk_status sim_fetch(engine_device *d, engine_dev_item *it, cuzk_error *err) {
    (void)it, (void)err;
    sleep_us(d->sim.fetch_us);
    return CUZK_OK;
}

static cuzk_status sim_reset(engine_device *d, cuzk_error *err) {
    (void)d, (void)err;
    return CUZK_OK;
}

const engine_device_ops engine_device_sim_ops = {
    .kind = "sim",
    .simulated = 1,
    .open = sim_open,
    .close = sim_close,
    .upload = sim_upload,
    .run = sim_run,
    .fetch = sim_fetch,
    .reset = sim_reset,
};
