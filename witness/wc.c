/*
 * wc.c: circuits, instances and the witness computation (witness/wc.h),
 * each instance a worker process.
 *
 * Design.  A circuit's code is a client's program, so it never runs in
 * this process: a circuit (cuzk_wc_circuit) holds the verified worker
 * executable (compile.c) and one worker for input look-ups; an instance
 * (cuzk_wc) is one more worker, started on first use and again after any
 * failure.  A worker is posix_spawn'ed from the executable's descriptor
 * (/proc/self/fd, never by name), limits its own memory and installs a
 * seccomp filter before the module's start function runs (wc_glue.c.in).
 * Requests and replies go over a SOCK_SEQPACKET socket; input values and
 * the witness go through a memfd mapped on both sides, so a calculation
 * costs one message each way and one copy of the witness out of the
 * shared memory (measured in docs/PERFORMANCE.md).
 *
 * Every wait on a worker is a poll with a deadline: the job's, the
 * circuit's limit (calc_s), whichever is first; a stop callback is asked
 * every 50 ms.  Past it the worker is killed (SIGKILL) and reaped, so no
 * CPU keeps burning and a caller that is shutting down is never held.  A
 * worker that dies (a native stack overflow, the filter's SIGSYS, the
 * memory limit) fails the request with the reason; it is replaced on the
 * next use, as is one whose module trapped or threw (a wasm module
 * interrupted mid-call may hold any state).
 *
 * Nothing a worker says is trusted: sizes are checked against the limits
 * of this file and against the circuit's first answers, replies must be
 * of the request asked, log lines are cut to what the caller allows.
 *
 * The order of calls follows circom's witness_calculator.js, so that the
 * same inputs give the same witness and the same errors: init(0); every
 * input value written and set in the order of input.json; then getWitness
 * for every wire; the count of values set is compared with getInputSize
 * before the worker is asked.
 *
 * A circuit is counted: whoever loads it holds one reference, each
 * instance and each parsed input of it one more, and the last drop
 * (cuzk_wc_circuit_free) kills its look-up worker and frees it.  So a
 * circuit handed from one owner to another (the daemon's check of inputs,
 * the engine's synthesis) is one object with one look-up worker, freed
 * when nobody uses it, and never while an instance still refers to it.
 *
 * What it must not do: load a circuit's code into this process; wait on a
 * worker without a deadline; leave a worker process behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/infile.h"
#include "witness/internal.h"

#define WC_DEF_MEMORY (4ull << 30)
#define WC_DEF_CALC_S 600.0
#define WC_DEF_LOG_LINES 100u
#define WC_DEF_START_S 10.0

struct cuzk_wc {
    const cuzk_wc_circuit *c;
    wc_worker w;
    cuzk_wc_print_fn print;
    void *print_ctx;
    uint32_t log_dropped; /* log() lines past the cap in the last calculation */
    const uint8_t *last;  /* the last witness, in the shared memory; NULL none */
};

/* A wait's bounds and where log lines go. */
typedef struct wc_wait {
    uint64_t deadline_ns; /* absolute; 0 none */
    double limit_s;       /* the circuit's, for the message */
    int setup;            /* the deadline is the setup's limit (wc_start_timeout_s) */
    cuzk_wc_stop_fn stop;
    void *stop_ctx;
    cuzk_wc_print_fn print;
    void *print_ctx;
} wc_wait;

static void worker_init(wc_worker *w) {
    memset(w, 0, sizeof *w);
    w->sock = w->shm = -1;
}

/* Kill and reap |w|'s process; returns its wait status (-1 unknown). */
static int worker_kill(wc_worker *w) {
    int st = -1;
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    w->pid = 0;
    if (w->sock >= 0)
        close(w->sock);
    w->sock = -1;
    return st;
}

static void worker_free(wc_worker *w) {
    worker_kill(w);
    if (w->map)
        munmap(w->map, w->map_bytes);
    if (w->shm >= 0)
        close(w->shm);
    worker_init(w);
}

/* What became of a worker that hung up, in words. */
static cuzk_status worker_died(wc_worker *w, cuzk_error *err) {
    int st = worker_kill(w);
    if (st != -1 && WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *why = sig == SIGSEGV   ? " (SIGSEGV: a native stack overflow from deep "
                                             "recursion, or a fault in the circuit's code)"
                          : sig == SIGSYS  ? " (SIGSYS: a system call its filter forbids)"
                          : sig == SIGKILL ? " (SIGKILL: out of memory?)"
                                           : "";
        return cuzk_fail(err, CUZK_EINTERNAL,
                         "the witness calculator's worker crashed: signal %d%s; the job failed, "
                         "nothing else", sig, why);
    }
    return cuzk_fail(err, CUZK_EINTERNAL,
                     "the witness calculator's worker exited (status %d) without answering",
                     st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* A line the circuit printed, made printable (the worker's text is not
 * trusted to be). */
static void deliver_log(const wc_wait *wt, char *line) {
    for (char *p = line; *p; p++)
        if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
            *p = '?';
    if (wt->print)
        wt->print(wt->print_ctx, line);
}

/* Wait for |w|'s reply to |op| into |r|, passing log lines on. */
static cuzk_status worker_wait(wc_worker *w, uint32_t op, const wc_wait *wt, wc_rep *r,
                               cuzk_error *err) {
    for (;;) {
        int slice = 50;
        if (wt->deadline_ns) {
            uint64_t now = cuzk_now_ns();
            if (now >= wt->deadline_ns) {
                worker_kill(w);
                if (wt->setup) /* the circuit's doing, not the machine's: refused */
                    return cuzk_fail(err, CUZK_ERANGE,
                                     "the circuit's setup (its start function, the reading of "
                                     "its sizes or an input look-up) ran past the limit of "
                                     "%.0f s (wc_start_timeout_s); its worker was killed",
                                     wt->limit_s);
                return cuzk_fail(err, CUZK_ETIMEOUT,
                                 "the witness calculation ran past its time (the job's deadline "
                                 "or the limit of %.0f s, wc_timeout_s); its worker was killed",
                                 wt->limit_s);
            }
            if ((wt->deadline_ns - now) / 1000000 < (uint64_t)slice)
                slice = (int)((wt->deadline_ns - now) / 1000000) + 1;
        }
        if (wt->stop && wt->stop(wt->stop_ctx)) {
            worker_kill(w);
            return cuzk_fail(err, CUZK_ECANCELLED,
                             "the witness calculation was stopped; its worker was killed");
        }
        struct pollfd p = {w->sock, POLLIN, 0};
        int n = poll(&p, 1, slice);
        if (n < 0 && errno != EINTR) {
            worker_kill(w);
            return cuzk_fail(err, CUZK_EIO, "witness calculator: poll: %s", strerror(errno));
        }
        if (n <= 0)
            continue;
        memset(r, 0, sizeof *r);
        ssize_t got = recv(w->sock, r, sizeof *r, MSG_DONTWAIT);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return worker_died(w, err);
        r->msg[sizeof r->msg - 1] = 0;
        if (got < (ssize_t)offsetof(wc_rep, msg)) {
            worker_kill(w);
            return cuzk_fail(err, CUZK_EINTERNAL, "the witness calculator sent a short message");
        }
        if (r->op == WC_OP_LOG) {
            deliver_log(wt, r->msg);
            continue;
        }
        if (r->op != op) {
            worker_kill(w);
            return cuzk_fail(err, CUZK_EINTERNAL,
                             "the witness calculator answered request %u to request %u", r->op,
                             op);
        }
        return CUZK_OK;
    }
}

static cuzk_status rep_status(const wc_rep *r, cuzk_error *err) {
    cuzk_status s;
    switch (r->rc) {
    case CUZK_WC_OK: return CUZK_OK;
    case CUZK_WC_EEXCEPTION: s = CUZK_EVERIFY; break;
    case CUZK_WC_ENOMEM: s = CUZK_ENOMEM; break;
    case CUZK_WC_ERANGE: s = CUZK_ERANGE; break;
    default: s = CUZK_EINTERNAL;
    }
    for (const char *p = r->msg; *p; p++)
        if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
            return cuzk_fail(err, s, "the witness calculator failed (code %d)", r->rc);
    return cuzk_fail(err, s, "%s", r->msg[0] ? r->msg : "the witness calculator failed");
}

static int fd_high(int fd) {
    if (fd < 0)
        return -1;
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return h;
}

static double circuit_limit_s(const cuzk_wc_circuit *c) {
    return c->calc_s > 0 ? c->calc_s : WC_DEF_CALC_S;
}

static double start_limit_s(const cuzk_wc_circuit *c) {
    return c->start_s > 0 ? c->start_s : WC_DEF_START_S;
}

/* |wt| bounded by the setup limit from now (when that comes first), and
 * stopped by the circuit's loader when it has no stop of its own. */
static wc_wait setup_wait(const cuzk_wc_circuit *c, const wc_wait *wt) {
    wc_wait st = *wt;
    double lim = start_limit_s(c);
    uint64_t until = cuzk_now_ns() + (uint64_t)(lim * 1e9);
    if (!st.deadline_ns || st.deadline_ns > until) {
        st.deadline_ns = until;
        st.limit_s = lim;
        st.setup = 1;
    }
    if (!st.stop) {
        st.stop = c->stop;
        st.stop_ctx = c->stop_ctx;
    }
    return st;
}

/* Start a worker of |c| in |w| and wait for its instance (the module's
 * start function runs under the wait's deadline). */
static cuzk_status worker_start(const cuzk_wc_circuit *c, wc_worker *w, const wc_wait *wt,
                                cuzk_error *err) {
    int sv[2];
    if (w->shm < 0 && (w->shm = fd_high(memfd_create("cuzk-wc", MFD_CLOEXEC))) < 0)
        return cuzk_fail(err, CUZK_EIO, "witness calculator: memfd_create: %s", strerror(errno));
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return cuzk_fail(err, CUZK_EIO, "witness calculator: socketpair: %s", strerror(errno));
    sv[0] = fd_high(sv[0]);
    sv[1] = fd_high(sv[1]);
    int self = fcntl(c->exe_fd, F_DUPFD_CLOEXEC, 10);
    if (sv[0] < 0 || sv[1] < 0 || self < 0) {
        int e = errno;
        for (int i = 0; i < 2; i++)
            if (sv[i] >= 0)
                close(sv[i]);
        if (self >= 0)
            close(self);
        return cuzk_fail(err, CUZK_EIO, "witness calculator: %s", strerror(e));
    }
    char mem[32], native_env[32];
    snprintf(mem, sizeof mem, "%llu",
             (unsigned long long)(c->memory_bytes ? c->memory_bytes : WC_DEF_MEMORY));
    const char *nat = getenv("CUZK_WC_NATIVE");
    snprintf(native_env, sizeof native_env, "CUZK_WC_NATIVE=%s", nat ? nat : "1");
    char *argv[] = {"cuzk-wc-worker", mem, NULL};
    char *envp[] = {native_env, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, sv[1], WC_FD_SOCK);
    posix_spawn_file_actions_adddup2(&fa, w->shm, WC_FD_SHM);
    posix_spawn_file_actions_adddup2(&fa, self, WC_FD_SELF);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", WC_FD_SELF);
    pid_t pid;
    int rc = posix_spawn(&pid, path, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    close(self);
    if (rc) {
        close(sv[0]);
        return cuzk_fail(err, CUZK_EIO, "cannot start a witness calculator worker: %s",
                         strerror(rc));
    }
    w->pid = pid;
    w->sock = sv[0];
    w->starter = (pid_t)syscall(SYS_gettid);
    /* the module's start function: real circuits' take milliseconds */
    wc_wait st = setup_wait(c, wt);
    wc_rep r;
    cuzk_status s = worker_wait(w, WC_OP_HELLO, &st, &r, err);
    if (s != CUZK_OK)
        return s;
    if (r.rc != CUZK_WC_OK || r.vals[0] != WC_PROTO_VERSION) {
        s = r.rc != CUZK_WC_OK ? rep_status(&r, err)
                               : cuzk_fail(err, CUZK_EINTERNAL,
                                           "the worker speaks protocol %u, not %u", r.vals[0],
                                           WC_PROTO_VERSION);
        worker_kill(w);
        return s;
    }
    return CUZK_OK;
}

static cuzk_status worker_send(wc_worker *w, const wc_req *q, cuzk_error *err) {
    for (;;) {
        ssize_t n = send(w->sock, q, sizeof *q, MSG_NOSIGNAL);
        if (n == (ssize_t)sizeof *q)
            return CUZK_OK;
        if (n < 0 && errno == EINTR)
            continue;
        return worker_died(w, err);
    }
}

/* One request and its reply; a failure of the module (rc != 0) kills the
 * worker: its instance may be in any state. */
static cuzk_status worker_ask(wc_worker *w, const wc_req *q, const wc_wait *wt, wc_rep *r,
                              cuzk_error *err) {
    cuzk_status s = worker_send(w, q, err);
    if (s == CUZK_OK)
        s = worker_wait(w, q->op, wt, r, err);
    if (s == CUZK_OK && r->rc != CUZK_WC_OK) {
        s = rep_status(r, err);
        worker_kill(w);
    }
    return s;
}

static wc_wait circuit_wait(const cuzk_wc_circuit *c, uint64_t deadline_ns) {
    wc_wait wt = {0};
    wt.limit_s = circuit_limit_s(c);
    uint64_t limit = cuzk_now_ns() + (uint64_t)(wt.limit_s * 1e9);
    wt.deadline_ns = deadline_ns && deadline_ns < limit ? deadline_ns : limit;
    return wt;
}

/* INFO of a fresh worker, every number checked; fills |c| on the first
 * (|first|), else compares. */
static cuzk_status worker_info(cuzk_wc_circuit *c, wc_worker *w, int first, const char *name,
                               cuzk_error *err) {
    wc_req q = {.op = WC_OP_INFO};
    wc_rep r;
    wc_wait none = {0};
    wc_wait wt = setup_wait(c, &none);
    cuzk_status s = worker_ask(w, &q, &wt, &r, err);
    if (s != CUZK_OK)
        return s;
    uint32_t n32 = r.vals[3], nw = r.vals[4], ni = r.vals[5];
    if (n32 != WC_WORDS)
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: the circuit reports field elements of %u words, not %u", name, n32,
                         WC_WORDS);
    if (nw == 0 || nw > WC_MAX_WITNESS)
        return cuzk_fail(err, nw ? CUZK_ERANGE : CUZK_EFORMAT,
                         "%s: the circuit reports %u witness values (1 to %u allowed)", name, nw,
                         WC_MAX_WITNESS);
    if (ni >= nw)
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: the circuit reports %u inputs for %u witness values", name, ni, nw);
    if (!first) {
        if (nw != c->n_witness || ni != c->n_inputs || memcmp(c->prime, r.vals + 8, 32))
            return cuzk_fail(err, CUZK_EMISMATCH,
                             "%s: the circuit's sizes differ between two of its instances", name);
        return CUZK_OK;
    }
    c->n32 = n32;
    c->n_witness = nw;
    c->n_inputs = ni;
    c->native = r.vals[6] != 0;
    memcpy(c->prime, r.vals + 8, sizeof c->prime);
    snprintf(c->version, sizeof c->version, "%u.%u.%u", r.vals[0] % 1000, r.vals[1] % 1000,
             r.vals[2] % 1000);
    return CUZK_OK;
}

static cuzk_status load_common(cuzk_wc_circuit **out, const uint8_t *wasm, size_t size,
                               const char *name, const char *shown, const cuzk_wc_opts *opts,
                               cuzk_error *err) {
    *out = NULL;
    cuzk_wc_circuit *c = calloc(1, sizeof *c);
    if (!c)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a circuit");
    atomic_init(&c->refs, 1);
    c->exe_fd = -1;
    worker_init(&c->query);
    pthread_mutex_init(&c->query_lock, NULL);
    if (opts) {
        c->memory_bytes = opts->memory_bytes;
        c->calc_s = opts->calc_s;
        c->start_s = opts->start_s;
        c->log_lines = opts->log_lines;
        c->stop = opts->stop;
        c->stop_ctx = opts->stop_ctx;
    }
    cuzk_status s = wc_obtain(c, wasm, size, name, shown, opts, err);
    wc_wait wt = {0};
    cuzk_error why = {0};
    if (s == CUZK_OK && (s = worker_start(c, &c->query, &wt, &why)) != CUZK_OK)
        cuzk_fail(err, s, "%s: %s", name, why.msg);
    if (s == CUZK_OK)
        s = worker_info(c, &c->query, 1, name, err);
    c->query_from_load = s == CUZK_OK;
    if (s != CUZK_OK) {
        cuzk_wc_circuit_free(c);
        return s;
    }
    uint8_t prime[32];
    for (uint32_t j = 0; j < WC_WORDS; j++)
        for (int b = 0; b < 4; b++)
            prime[4 * j + b] = (uint8_t)(c->prime[j] >> (8 * b));
    c->curve = cuzk_curve_from_r(prime, 32);
    if (c->curve == CUZK_CURVE_NONE) {
        s = cuzk_fail(err, CUZK_EUNSUPPORTED,
                      "%s: the circuit's prime is not the scalar field of bn128 or bls12381",
                      name);
        cuzk_wc_circuit_free(c);
        return s;
    }
    *out = c;
    return CUZK_OK;
}

cuzk_status cuzk_wc_circuit_load_mem(cuzk_wc_circuit **c, const void *wasm, size_t size,
                                     const char *name, const cuzk_wc_opts *opts,
                                     cuzk_error *err) {
    name = name ? name : "circuit.wasm";
    return load_common(c, wasm, size, name, name, opts, err);
}

cuzk_status cuzk_wc_circuit_load(cuzk_wc_circuit **c, const char *path, const cuzk_wc_opts *opts,
                                 cuzk_error *err) {
    *c = NULL;
    /* O_NONBLOCK: a FIFO named as a circuit must not block the caller */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return cuzk_fail(err, errno == ENOENT ? CUZK_ENOTFOUND : CUZK_EIO, "%s: %s", path,
                         strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_fail(err, CUZK_EINVAL, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return cuzk_fail(err, CUZK_EFORMAT, "%s: empty file", path);
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    uint64_t max = wc_opt_max_wasm(opts);
    if ((uint64_t)st.st_size > max) { /* refused before it is even mapped */
        close(fd);
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: %lld bytes of wasm, more than the limit of %llu (wc_max_wasm_bytes)",
                         base, (long long)st.st_size, (unsigned long long)max);
    }
    /* read, not mapped: a client truncating its circuit while it is read
     * must get an error, not kill the daemon with SIGBUS (util/infile.h) */
    cuzk_infile f = {fd, (uint64_t)st.st_size, path, "circuit"};
    uint8_t *m = malloc((size_t)st.st_size);
    cuzk_status s = m ? cuzk_infile_pread(&f, m, f.size, 0, err)
                      : cuzk_fail(err, CUZK_ENOMEM, "%s: no memory for its %lld bytes", base,
                                  (long long)st.st_size);
    cuzk_infile_close(&f);
    if (s == CUZK_OK)
        s = load_common(c, m, (size_t)st.st_size, base, path, opts, err);
    free(m);
    return s;
}

cuzk_wc_circuit *cuzk_wc_circuit_ref(cuzk_wc_circuit *c) {
    if (c)
        atomic_fetch_add(&c->refs, 1);
    return c;
}

void cuzk_wc_circuit_free(cuzk_wc_circuit *c) {
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    worker_free(&c->query);
    if (c->exe_fd >= 0)
        close(c->exe_fd);
    pthread_mutex_destroy(&c->query_lock);
    free(c);
}

cuzk_curve cuzk_wc_circuit_curve(const cuzk_wc_circuit *c) { return c->curve; }
uint32_t cuzk_wc_circuit_n_witness(const cuzk_wc_circuit *c) { return c->n_witness; }
uint32_t cuzk_wc_circuit_n_inputs(const cuzk_wc_circuit *c) { return c->n_inputs; }
const char *cuzk_wc_circuit_version(const cuzk_wc_circuit *c) { return c->version; }
const char *cuzk_wc_circuit_hash(const cuzk_wc_circuit *c) { return c->hash; }
double cuzk_wc_circuit_compile_s(const cuzk_wc_circuit *c) { return c->compile_s; }
int cuzk_wc_circuit_native(const cuzk_wc_circuit *c) { return c->native; }

cuzk_status wc_query_input_size(const cuzk_wc_circuit *cc, uint32_t hi, uint32_t lo,
                                int32_t *size, cuzk_error *err) {
    cuzk_wc_circuit *c = (cuzk_wc_circuit *)cc; /* the query worker only */
    wc_req q = {.op = WC_OP_INPUT_SIZE, .a = hi, .b = lo};
    wc_rep r;
    wc_wait none = {0};
    wc_wait wt = setup_wait(c, &none);
    cuzk_error why = {0};
    pthread_mutex_lock(&c->query_lock);
    cuzk_status s = CUZK_OK;
    if (!c->query.pid) { /* a fresh worker: INFO first */
        c->query_from_load = 0;
        if ((s = worker_start(c, &c->query, &wt, &why)) == CUZK_OK)
            s = worker_info(c, &c->query, 0, "circuit", &why);
    }
    if (s == CUZK_OK)
        s = worker_ask(&c->query, &q, &wt, &r, &why);
    /* The worker dies with the thread that started it (PR_SET_PDEATHSIG):
     * a connection thread that loaded the circuit may be gone.  One new
     * worker, once. */
    if (s == CUZK_EINTERNAL && !c->query.pid) {
        c->query_from_load = 0;
        if ((s = worker_start(c, &c->query, &wt, &why)) == CUZK_OK &&
            (s = worker_info(c, &c->query, 0, "circuit", &why)) == CUZK_OK)
            s = worker_ask(&c->query, &q, &wt, &r, &why);
    }
    pthread_mutex_unlock(&c->query_lock);
    if (s != CUZK_OK)
        return cuzk_fail(err, s, "input signal look-up: %s", why.msg);
    int32_t v = (int32_t)r.vals[0];
    if (v > 0 && (uint32_t)v > c->n_inputs)
        return cuzk_fail(err, CUZK_ERANGE,
                         "input signal look-up: the circuit reports %d values for one input, "
                         "more than its %u inputs in all", v, c->n_inputs);
    *size = v;
    return CUZK_OK;
}

cuzk_status cuzk_wc_new(cuzk_wc **out, const cuzk_wc_circuit *c, cuzk_wc_print_fn print,
                        void *print_ctx, cuzk_error *err) {
    *out = NULL;
    cuzk_wc *wc = calloc(1, sizeof *wc);
    if (!wc)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a witness calculator");
    wc->c = cuzk_wc_circuit_ref((cuzk_wc_circuit *)c); /* dropped by cuzk_wc_free */
    wc->print = print;
    wc->print_ctx = print_ctx;
    worker_init(&wc->w);
    *out = wc; /* the worker starts on first use, under that use's deadline */
    return CUZK_OK;
}

void cuzk_wc_free(cuzk_wc *wc) {
    if (!wc)
        return;
    worker_free(&wc->w);
    cuzk_wc_circuit_free((cuzk_wc_circuit *)wc->c);
    free(wc);
}

/* Room for |bytes| in |w|'s shared memory, mapped here. */
static cuzk_status shm_reserve(wc_worker *w, size_t bytes, cuzk_error *err) {
    if (w->map && w->map_bytes >= bytes)
        return CUZK_OK;
    if (w->map)
        munmap(w->map, w->map_bytes);
    w->map = NULL;
    w->map_bytes = 0;
    if (ftruncate(w->shm, (off_t)bytes))
        return cuzk_fail(err, CUZK_ENOMEM, "witness calculator: %zu bytes of shared memory: %s",
                         bytes, strerror(errno));
    /* populated here at once, rather than a fault per page in the worker
     * and another in the copy out */
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, w->shm, 0);
    if (m == MAP_FAILED)
        return cuzk_fail(err, CUZK_ENOMEM, "witness calculator: mmap %zu bytes: %s", bytes,
                         strerror(errno));
    w->map = m;
    w->map_bytes = bytes;
    return CUZK_OK;
}

cuzk_status cuzk_wc_calculate_until(cuzk_wc *wc, void *out, const cuzk_wc_input *in,
                                    uint64_t deadline_ns, cuzk_wc_stop_fn stop, void *stop_ctx,
                                    cuzk_error *err) {
    const cuzk_wc_circuit *c = wc->c;
    if (in->c != c)
        return cuzk_fail(err, CUZK_EINVAL, "the input was parsed for another circuit");
    if (in->n_values < c->n_inputs)
        /* snarkjs's words, and how many are missing: the module knows its
         * signals by hashes of their names only, so which cannot be said */
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "Not all inputs have been set. Only %zu out of %u (%zu value%s missing; "
                         "a circom .wasm holds no signal names to say which)",
                         in->n_values, c->n_inputs, c->n_inputs - in->n_values,
                         c->n_inputs - in->n_values == 1 ? "" : "s");
    wc_wait wt = circuit_wait(c, deadline_ns);
    wt.stop = stop;
    wt.stop_ctx = stop_ctx;
    wt.print = wc->print;
    wt.print_ctx = wc->print_ctx;
    wc->log_dropped = 0;
    wc->last = NULL;
    cuzk_status s = CUZK_OK;
    if (!wc->w.pid && wc->w.shm < 0) {
        /* A first calculation in the thread that loaded the circuit (a
         * one-shot `cuzk wtns calculate`) takes over the circuit's look-up
         * worker, started and checked already, rather than start a second:
         * a worker start (exec, linking, the module's start) is most of a
         * small circuit's time.  Look-ups start another if they need one.
         * Only that thread (the worker dies with the thread that started
         * it), and only the load's worker: one a look-up started again (in
         * an engine's synthesis thread) stays the circuit's, so that what
         * is charged for it stays where it is charged. */
        cuzk_wc_circuit *cc = (cuzk_wc_circuit *)c;
        pthread_mutex_lock(&cc->query_lock);
        if (cc->query.pid && cc->query_from_load &&
            cc->query.starter == (pid_t)syscall(SYS_gettid)) {
            wc->w = cc->query;
            worker_init(&cc->query);
        }
        pthread_mutex_unlock(&cc->query_lock);
    }
    if (!wc->w.pid) {
        cuzk_error why = {0};
        if ((s = worker_start(c, &wc->w, &wt, &why)) == CUZK_OK)
            s = worker_info((cuzk_wc_circuit *)c, &wc->w, 0, "circuit", &why);
        if (s != CUZK_OK)
            return cuzk_fail(err, s, "witness calculator: %s", why.msg);
    }
    size_t in_bytes = in->n_values * sizeof(wc_set);
    size_t out_off = (in_bytes + 4095) & ~(size_t)4095;
    size_t out_bytes = (size_t)c->n_witness * 32;
    if ((s = shm_reserve(&wc->w, out_off + out_bytes, err)) != CUZK_OK)
        return s;
    wc_set *set = (wc_set *)wc->w.map;
    for (size_t i = 0; i < in->n_signals; i++) {
        const wc_signal *sg = &in->signals[i];
        for (uint32_t k = 0; k < sg->count; k++, set++) {
            set->hi = sg->hi;
            set->lo = sg->lo;
            set->index = k;
            set->pad = 0;
            memcpy(set->v, in->values + (sg->first + k) * WC_WORDS, sizeof set->v);
        }
    }
    unsigned log_max = c->log_lines ? c->log_lines : WC_DEF_LOG_LINES;
    wc_req q = {.op = WC_OP_CALC, .log_max = log_max, .count = in->n_values,
                .n_witness = c->n_witness, .in_off = 0, .out_off = out_off,
                .shm_bytes = wc->w.map_bytes};
    wc_rep r;
    if ((s = worker_ask(&wc->w, &q, &wt, &r, err)) != CUZK_OK)
        return s;
    if (r.vals[0] != in->n_values) {
        worker_kill(&wc->w);
        return cuzk_fail(err, CUZK_EINTERNAL,
                         "the witness calculator reports %u inputs set of %zu", r.vals[0],
                         in->n_values);
    }
    wc->log_dropped = r.vals[1]; /* counted, not shown: the caller decides */
    if (out)
        memcpy(out, wc->w.map + out_off, out_bytes);
    wc->last = wc->w.map + out_off;
    return CUZK_OK;
}

uint32_t cuzk_wc_log_dropped(const cuzk_wc *wc) { return wc->log_dropped; }

const void *cuzk_wc_witness(const cuzk_wc *wc) { return wc->w.pid ? wc->last : NULL; }

/* The memory |w|'s process holds: its proportional set size (pages shared
 * with other processes, such as the executable's, split among them), so
 * that workers of one circuit add up to what they take together; the
 * resident size where the kernel has no smaps_rollup.  0 without one. */
static uint64_t worker_memory(const wc_worker *w) {
    if (w->pid <= 0)
        return 0;
    char path[64], line[128];
    unsigned long long kb = 0, v;
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)w->pid);
    FILE *f = fopen(path, "re");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Pss: %llu kB", &v) == 1) {
                kb = v;
                break;
            }
        fclose(f);
        return (uint64_t)kb << 10;
    }
    snprintf(path, sizeof path, "/proc/%d/statm", (int)w->pid);
    if ((f = fopen(path, "re"))) {
        unsigned long long pages;
        if (fscanf(f, "%*u %llu", &pages) == 1)
            kb = pages * (unsigned long long)(sysconf(_SC_PAGESIZE) / 1024);
        fclose(f);
    }
    return (uint64_t)kb << 10;
}

uint64_t cuzk_wc_memory(const cuzk_wc *wc) { return worker_memory(&wc->w); }

uint64_t cuzk_wc_circuit_memory(cuzk_wc_circuit *c) {
    /* A look-up in progress (a worker start may take seconds) is not
     * waited for: whoever asks (a status) asks again later. */
    if (pthread_mutex_trylock(&c->query_lock))
        return UINT64_MAX;
    uint64_t m = worker_memory(&c->query);
    pthread_mutex_unlock(&c->query_lock);
    return m;
}

cuzk_status cuzk_wc_calculate(cuzk_wc *wc, void *out, const cuzk_wc_input *in,
                              cuzk_error *err) {
    return cuzk_wc_calculate_until(wc, out, in, 0, NULL, NULL, err);
}

size_t cuzk_wtns_image(uint8_t *out, cuzk_curve curve, const void *values, uint32_t n) {
    const uint32_t n8 = 32;
    size_t total = 12 + 12 + 4 + n8 + 4 + 12 + (size_t)n * n8;
    if (!out)
        return total;
    uint8_t *p = out;
#define PUT32(v)                                                                           \
    do {                                                                                   \
        uint32_t v_ = (v);                                                                 \
        for (int b_ = 0; b_ < 4; b_++)                                                     \
            *p++ = (uint8_t)(v_ >> (8 * b_));                                              \
    } while (0)
#define PUT64(v)                                                                           \
    do {                                                                                   \
        uint64_t v_ = (v);                                                                 \
        for (int b_ = 0; b_ < 8; b_++)                                                     \
            *p++ = (uint8_t)(v_ >> (8 * b_));                                              \
    } while (0)
    memcpy(p, "wtns", 4);
    p += 4;
    PUT32(2); /* version */
    PUT32(2); /* sections */
    PUT32(1);
    PUT64(8 + n8);
    PUT32(n8);
    const uint64_t *r = cuzk_curve_r_limbs(curve);
    for (int i = 0; i < 4; i++)
        PUT64(r ? r[i] : 0);
    PUT32(n);
    PUT32(2);
    PUT64((uint64_t)n * n8);
#undef PUT32
#undef PUT64
    memcpy(p, values, (size_t)n * n8);
    return total;
}
