/*
 * cuzkd: the cuzk proving daemon.  main() reads the configuration, starts
 * the engine and the listeners, loads the configured keys, and then waits
 * for a signal; the lifecycle is:
 *
 *   start    config errors exit 2; a live daemon on the socket, or any
 *            other start failure, exits 1 (a stale socket is removed).
 *   serve    until SIGTERM or SIGINT.
 *   drain    new submits and /healthz answer 503; jobs in flight get up to
 *            drain_timeout_s to finish while clients can still read their
 *            results; then circuit compiles, loads and look-ups end (their
 *            compilers and workers killed), the listeners stop, the engine
 *            cancels what is left, the socket and pid file are removed,
 *            and cuzkd exits 0.
 *   abort    a second SIGINT during the drain exits at once with 130.
 *
 * Signals are blocked in every thread and taken by one thread with
 * sigwait, so no handler ever runs inside engine or HTTP code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk_tools.h"
#include "server/fleet.h"
#include "server/http.h"
#include "server/jobs.h"
#include "server/log.h"

/* How long a stopping daemon waits for responses being written (results
 * of jobs that just finished) before it closes the connections. */
#define RESPONSE_GRACE_MS 2000
/* How often idle keys named by path are looked for (key_idle_s). */
#define KEY_SWEEP_S 5

static cuzkd_server g_srv;
/* The pid file to remove on the immediate-exit path (signal thread), kept
 * apart from the configuration, which main frees at the end. */
static char g_pid_file[4096];

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int requested; /* signal number that asked for shutdown, 0 none */
} g_stop = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void *signal_main(void *arg) {
    sigset_t *set = arg;
    int seen = 0;
    for (;;) {
        int sig;
        if (sigwait(set, &sig) != 0)
            continue;
        const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
        if (!seen++) {
            LOG_INFO("cuzkd", "%s: draining (a second SIGINT exits at once)", name);
            pthread_mutex_lock(&g_stop.lock);
            g_stop.requested = sig;
            pthread_cond_broadcast(&g_stop.cv);
            pthread_mutex_unlock(&g_stop.lock);
        } else if (sig == SIGINT) {
            LOG_WARN("cuzkd", "second SIGINT: exiting now without draining");
            cuzkd_http_unlink_socket(&g_srv);
            if (g_pid_file[0])
                unlink(g_pid_file);
            _exit(130);
        } else {
            LOG_INFO("cuzkd", "%s: already draining", name);
        }
    }
    return NULL;
}

static int stop_requested(void) {
    pthread_mutex_lock(&g_stop.lock);
    int r = g_stop.requested;
    pthread_mutex_unlock(&g_stop.lock);
    return r;
}

/* Written as every output of cuzk is (cuzk_file_write_atomic: a new
 * temporary name opened exclusively, then renamed), so a supervisor never
 * reads half a number.  Unlike other outputs, a pid file is refused where
 * its path is a link, a device or a FIFO: a pid file lives in a shared run
 * folder, where such a thing is more likely planted than meant, and a
 * daemon often starts with more rights than its caller. */
static int write_pid_file(const char *path) {
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        LOG_ERROR("cuzkd", "cannot write pid file %s: it exists and is %s, not a regular file",
                  path, S_ISLNK(sb.st_mode) ? "a symbolic link" : "a device, FIFO or folder");
        return 0;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    cuzk_error err = {0};
    if (cuzk_file_write_atomic(path, buf, (size_t)n, &err) == CUZK_OK)
        return 1;
    LOG_ERROR("cuzkd", "cannot write pid file: %s", err.msg);
    return 0;
}

/* Ask CUDA for its devices once, and say it when "auto" found none: a
 * broken driver must not look like a machine without a GPU. */
static void probe_gpus(cuzkd_server *srv, const cuzkd_config *c) {
    cuzk_error err = {0};
    srv->gpu_probe = cuzk_gpu_probe(&srv->gpu_count, &err);
    snprintf(srv->gpu_error, sizeof srv->gpu_error, "%s", srv->gpu_probe ? err.msg : "");
    int wants_auto = c->devices && strstr(c->devices, "auto") != NULL;
    if (srv->gpu_probe == CUZK_EGPU)
        LOG_WARN("cuzkd", "CUDA failed: %s%s", srv->gpu_error,
                 wants_auto ? "; devices auto: proving on the CPU" : "");
    else if (wants_auto && srv->gpu_probe == CUZK_ENOTFOUND)
        LOG_INFO("cuzkd", "devices auto: %s: proving on the CPU", srv->gpu_error);
    else if (wants_auto && srv->gpu_count == 0)
        LOG_INFO("cuzkd", "devices auto: %s: proving on the CPU",
                 srv->gpu_probe == CUZK_EUNSUPPORTED ? srv->gpu_error
                                                     : "no GPU found: CUDA lists none");
}

static void log_start(cuzk_engine *e, const cuzkd_config *c) {
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    char devs[256] = "";
    for (unsigned i = 0; i < st.n_devices; i++) {
        size_t n = strlen(devs);
        snprintf(devs + n, sizeof devs - n, "%s%s%s", n ? "," : "", st.devices[i].name,
                 st.devices[i].fallback_only ? "(fallback)" : "");
    }
    LOG_INFO("cuzkd", "cuzkd %s: engine up: devices %s, budget %.1f MiB, self_verify %s",
             CUZKD_VERSION, devs, st.mem_budget / 1048576.0, c->self_verify ? "on" : "off");
}

/* Load the keys of the `keys` option.  0 if one failed (logged). */
static int preload_keys(cuzkd_server *srv, const cuzkd_config *c) {
    for (unsigned i = 0; i < c->n_preload && !stop_requested(); i++) {
        cuzk_error err = {0};
        uint64_t t0 = cuzk_now_ns();
        if (cuzk_engine_key_preload(srv->engine, c->preload[i].id, c->preload[i].path, &err) !=
            CUZK_OK) {
            LOG_ERROR("keys", "cannot load key %s from %s: %s", c->preload[i].id,
                      c->preload[i].path, err.msg);
            return 0;
        }
        LOG_INFO("keys", "key %s ready (%.1f ms)", c->preload[i].id, (cuzk_now_ns() - t0) / 1e6);
        if (!c->preload[i].circuit)
            continue;
        /* The first start on a machine compiles the circuit (cached after). */
        t0 = cuzk_now_ns();
        if (cuzkd_circuit_register(srv, c->preload[i].id, c->preload[i].circuit, &err) !=
            CUZK_OK) {
            LOG_ERROR("keys", "key %s: cannot register circuit %s: %s", c->preload[i].id,
                      c->preload[i].circuit, err.msg);
            return 0;
        }
        LOG_INFO("keys", "key %s: circuit %s registered (%.1f ms)", c->preload[i].id,
                 c->preload[i].circuit, (cuzk_now_ns() - t0) / 1e6);
    }
    return 1;
}

/* The drain: returns once jobs are done or the drain time is up. */
static void drain(cuzkd_server *srv, const cuzkd_config *c) {
    atomic_store(&srv->draining, 1);
    cuzk_engine_status st;
    cuzk_engine_status_get(srv->engine, &st);
    uint64_t done0 = st.jobs_done + st.jobs_failed + st.jobs_cancelled + st.jobs_expired;
    uint64_t start = cuzk_now_ns(), deadline = start + c->drain_timeout_s * 1000000000ULL;
    /* A job cancelled before the stop still has partitions on the devices
     * (jobs_draining): the drain waits for them as for the running ones. */
    if (st.jobs_active + st.jobs_draining)
        LOG_INFO("cuzkd", "waiting up to %u s for %u job(s) in flight", c->drain_timeout_s,
                 st.jobs_active + st.jobs_draining);
    while (st.jobs_active + st.jobs_draining && cuzk_now_ns() < deadline) {
        /* Woken when a job this daemon tracks ends (store_mem.c); a
         * fleet's partitions end into the fleet thread, so the wait is
         * bounded too. */
        struct timespec ts;
        cuzkd_deadline_in(&ts, CLOCK_MONOTONIC, 500);
        pthread_mutex_lock(&srv->jobs_lock);
        pthread_cond_timedwait(&srv->jobs_cv, &srv->jobs_lock, &ts);
        pthread_mutex_unlock(&srv->jobs_lock);
        cuzk_engine_status_get(srv->engine, &st);
    }
    uint64_t ended = st.jobs_done + st.jobs_failed + st.jobs_cancelled + st.jobs_expired - done0;
    /* From here on a result wait answers at once: with its proof if the job
     * finished, else 503 (api_jobs.c). */
    atomic_store(&srv->stopping, 1);
    if (st.jobs_active + st.jobs_draining) {
        /* Cancelled now, not when the engine stops: their partitions stop
         * at the next stage boundary instead of being proved for nothing
         * while the last responses are written. */
        unsigned n = cuzkd_jobs_cancel_all(srv);
        LOG_WARN("cuzkd",
                 "drain time (%u s) is up: cancelled %u job(s) still in flight "
                 "(%llu finished meanwhile)",
                 c->drain_timeout_s, n, (unsigned long long)ended);
    } else {
        LOG_INFO("cuzkd", "drained: %llu job(s) finished in %.1f s", (unsigned long long)ended,
                 (cuzk_now_ns() - start) / 1e9);
    }
    /* Waiters answer within one await slice; results of jobs that just
     * ended are being written: give them a moment before connections
     * close. */
    for (unsigned waited = 0; atomic_load(&srv->requests) > 0 && waited < RESPONSE_GRACE_MS;
         waited += 20)
        sleep_ms(20);
}

/* The configuration from files, environment and flags.  Returns the exit
 * status of a run that ends here (help, printing, a bad option: 0 or 2),
 * or -1 to serve with |cfg|, |ec| and the upload budget. */
static int configure(int argc, char **argv, cuzkd_config *cfg, cuzk_engine_config *ec,
                     cuzk_testing *hooks, uint64_t *upload_budget) {
    cuzk_error err = {0};
    cuzkd_action action;
    cuzkd_config_init(cfg);
    if (cuzkd_config_load(cfg, argc, argv, &action, &err) != CUZK_OK)
        goto bad;
    if (action != CUZKD_RUN) {
        if (action == CUZKD_HELP)
            cuzkd_config_print_help(stdout);
        else if (action == CUZKD_PRINT_DEFAULT)
            cuzkd_config_print(stdout, NULL);
        else if (action == CUZKD_PRINT_CONFIG)
            cuzkd_config_print(stdout, cfg);
        else
            printf("cuzkd %s\n", CUZKD_VERSION);
        cuzkd_config_free(cfg);
        return 0;
    }
    if (cuzkd_config_finish(cfg, &err) != CUZK_OK ||
        cuzkd_config_engine(cfg, ec, hooks, upload_budget, &err) != CUZK_OK)
        goto bad;
    return -1;
bad:
    fprintf(stderr, "cuzkd: %s\n", err.msg);
    cuzkd_config_free(cfg);
    return 2;
}

/* SIGINT and SIGTERM go to one thread (signal_main); called before any
 * other thread exists, so that all of them inherit the mask. */
static int start_signal_thread(void) {
    static sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, signal_main, &set) != 0)
        return 0;
    pthread_detach(sig_thread);
    return 1;
}

/* Start the engine, the upload budget, the fleet, the listeners, the pid
 * file and the configured keys; serve until a stop is asked; drain.
 * Returns 0 after a drain, 1 when something could not start. */
static int serve(cuzkd_server *srv, cuzkd_config *cfg, const cuzk_engine_config *ec,
                 uint64_t upload_budget, int *pid_written) {
    cuzk_error err = {0};
    if (cuzk_engine_create(&srv->engine, ec, &err) != CUZK_OK) {
        LOG_ERROR("cuzkd", "cannot start the engine: %s", err.msg);
        return 1;
    }
    cuzk_engine_status st;
    cuzk_engine_status_get(srv->engine, &st);
    srv->start_ns = st.now_ns - st.uptime_ns;
    probe_gpus(srv, cfg);
    log_start(srv->engine, cfg);
    if (cuzkd_intake_init(srv, upload_budget, &err) != CUZK_OK) {
        LOG_ERROR("cuzkd", "%s", err.msg);
        return 1;
    }
    LOG_INFO("cuzkd", "upload budget %.1f MiB", srv->intake.budget / 1048576.0);
    if (cuzkd_fleet_start(srv, &err) != CUZK_OK) {
        LOG_ERROR("cuzkd", "%s", err.msg);
        return 1;
    }
    srv->store = srv->fleet ? &cuzkd_store_fleet : &cuzkd_store_memory;
    if (cuzkd_http_start(srv, &err) != CUZK_OK) {
        LOG_ERROR("cuzkd", "%s", err.msg);
        return 1;
    }
    snprintf(g_pid_file, sizeof g_pid_file, "%s", cfg->pid_file);
    if (*cfg->pid_file && !(*pid_written = write_pid_file(cfg->pid_file)))
        return 1;
    if (!preload_keys(srv, cfg))
        return 1;
    /* A fleet node is ready once it reaches its database: before, it could
     * neither take nor prove a job (the fleet thread logs why it waits). */
    if (cuzkd_fleet_wait_db(srv, stop_requested)) {
        atomic_store(&srv->ready, 1);
        LOG_INFO("cuzkd", "ready (pid %ld)", (long)getpid());
        /* Serving: main looks for idle keys named by path every few
         * seconds (here, because main alone decides when the engine goes
         * away). */
        pthread_mutex_lock(&g_stop.lock);
        while (!g_stop.requested) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += KEY_SWEEP_S;
            pthread_cond_timedwait(&g_stop.cv, &g_stop.lock, &ts);
            if (g_stop.requested)
                break;
            pthread_mutex_unlock(&g_stop.lock);
            cuzkd_keys_sweep(srv);
            pthread_mutex_lock(&g_stop.lock);
        }
        pthread_mutex_unlock(&g_stop.lock);
    }
    drain(srv, cfg);
    return 0;
}

/* Everything started is stopped, in the order that loses nothing: the
 * listeners, the fleet (commits what finished, hands back the rest's
 * leases), the engine, then what the engine gave back into. */
static void stop_all(cuzkd_server *srv, cuzkd_config *cfg, int rc, int pid_written) {
    atomic_store(&srv->draining, 1);
    atomic_store(&srv->stopping, 1);
    cuzkd_intake_wake(srv);
    uint64_t t_stop = cuzk_now_ns();
    /* A client's circuit may be compiling, starting or answering a
     * look-up on a connection's thread: ended now (compilers and workers
     * killed), or the listeners' stop would wait for it past the drain. */
    if (srv->engine)
        cuzk_engine_circuits_stop(srv->engine);
    cuzkd_http_stop(srv);
    uint64_t t_http = cuzk_now_ns();
    cuzkd_fleet_stop(srv);
    uint64_t t_fleet = cuzk_now_ns();
    /* Whatever the drain left is cancelled here; the engine still waits
     * for device steps already running (they cannot be interrupted). */
    cuzk_engine_destroy(srv->engine, 0);
    /* where a slow stop went, for the drain timeout's account */
    LOG_INFO("cuzkd", "stopping took %.1f ms: connections %.1f, fleet %.1f, engine %.1f",
             (cuzk_now_ns() - t_stop) / 1e6, (t_http - t_stop) / 1e6, (t_fleet - t_http) / 1e6,
             (cuzk_now_ns() - t_fleet) / 1e6);
    cuzkd_jobs_stop(srv);
    /* After the engine: it gives upload buffers back as it frees jobs. */
    cuzkd_intake_destroy(srv);
    cuzkd_aliases_free(srv);
    cuzkd_circuits_free(srv);
    if (pid_written)
        unlink(cfg->pid_file);
    LOG_INFO("cuzkd", "stopped%s", rc ? " (start failed)" : "");
    srv->cfg = NULL;
    cuzkd_config_free(cfg);
}

int main(int argc, char **argv) {
    cuzkd_config cfg;
    cuzk_engine_config ec;
    static cuzk_testing hooks; /* the step times of simulated devices */
    uint64_t upload_budget = 0;
    int rc = configure(argc, argv, &cfg, &ec, &hooks, &upload_budget);
    if (rc >= 0)
        return rc;
    cuzkd_log_set_level((cuzk_log_level)cfg.log_level);
    if (!start_signal_thread()) {
        LOG_ERROR("cuzkd", "cannot start the signal thread");
        return 1;
    }
    cuzkd_server *srv = &g_srv;
    srv->cfg = &cfg;
    cuzkd_circuits_init(srv);
    cuzk_error err = {0};
    if (cuzkd_jobs_start(srv, &err) != CUZK_OK) {
        LOG_ERROR("cuzkd", "%s", err.msg);
        return 1;
    }
    int pid_written = 0;
    rc = serve(srv, &cfg, &ec, upload_budget, &pid_written);
    stop_all(srv, &cfg, rc, pid_written);
    return rc;
}
