/*
 * compile.c: from a circom .wasm to a loaded native witness calculator.
 *
 * Design.  A circuit's wasm is translated to C by wabt's wasm2c and built,
 * together with the host glue (wc_glue.c.in, embedded in the library), into
 * an executable: the worker that witness/wc.c starts (wc_abi.h).  Objects
 * live in a cache folder named by content: <sha256>.wc, where the hash
 * covers the wasm, the glue and protocol text and the compiler flags, so a
 * change to any of them builds a new object and a stale one is never run.
 *
 * The cache is code that will run: it must be this user's alone.  The
 * folder is made 0700 and refused when it, or a folder above it, could be
 * changed by another user (OpenSSH's safe_path rule, with root's sticky
 * /tmp allowed); an object is opened without following links, must be a
 * file of ours that only we can write, and must hash to the SHA-256
 * recorded in <sha256>.sum when it was built; anything else is rebuilt.
 * The worker is started from that verified descriptor, never by name.
 *
 * Limits: the wasm's size; its shape (shape.c: locals of a function, locals in
 * all, code bytes: refused before any compile, past what any circom
 * output has); the compilers' wall time (the process group is killed) and
 * address space (setrlimit in the child, inherited by cc1 and the
 * linker), both scaled to the module's code and capped by the options, so
 * that a small module cannot hold a compiler slot for long; compilers
 * running at once in this process; the cache's size (least recently used
 * objects go first, never one a loaded circuit holds: a shared flock on
 * the object says so across processes).  Each refusal names the limit
 * and the daemon option that raises it.  The caller's stop (a daemon
 * shutting down) kills the compilers and ends every wait here.
 *
 * Concurrency.  Two threads or processes that need the same object at once
 * compile it once: the first takes an exclusive flock on <sha256>.lock and
 * builds in a private temporary folder; the object appears in the cache by
 * rename(), which is atomic, so nobody ever loads a partly written file.
 * The others block on the lock, then find the object and load it.  No lock
 * of the engine is held during a compile (callers compile off the proving
 * path), and nothing here is global.
 *
 * circom's field runtime (the Fr_* functions circom writes into every
 * module) is recognised by the SHA-256 of its functions' bodies
 * (wc_runtimes, rt_digest): a runtime this file knows has those functions'
 * translations renamed *_wasm and runs wc_native.c.in's 64-bit versions in
 * their place; any other keeps its own.  The recognition is part of the
 * cache key, so an object built without the natives is never taken for one
 * built with them.
 *
 * Why wasm2c and a C compiler rather than an interpreter: the witness of a
 * circom circuit is tens of millions of field operations written in wasm;
 * an interpreter runs them one dispatch at a time, while compiled code runs
 * them at the speed of the C compiler's output.  The one-time compile is
 * paid once per circuit per machine (docs/WITNESS.md has the figures).
 *
 * What it must not do: run anything found in the cache without the
 * checks above; run the compiler with a shell (no quoting issues,
 * no injection through file names); leave temporary folders behind after a
 * failure (the compiler's log is kept as <sha256>.log for the error
 * message); abort on any failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/sha256.h"
#include "util/infile.h"
#include "witness/internal.h"
#include "wc_glue_src.h"

extern char **environ;

/* Compiler flags of the object.  -O2: measured against -O1 and -O3 in
 * docs/WITNESS.md.  Explicit bounds checks (no signal handler) and the
 * wasm call-depth count turn most faults of a bad module into an error of
 * its request; what remains (a native stack overflow) kills only the
 * worker. */
static const char *const wc_cflags[] = {
    "-O2", "-fPIE", "-pie", "-fvisibility=hidden", "-DNDEBUG", "-w",
    "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0", "-DWASM_RT_USE_STACK_DEPTH_COUNT=1",
    "-DWASM_RT_MAX_CALL_STACK_DEPTH=10000"};
#define WC_CACHE_SALT "cuzk-wc-worker-2-native-rt-1"

/* ---- the wasm check ---------------------------------------------------------- */

#include "witness/wasm_rd.h"

static const char *const wc_required_exports[] = {
    "getVersion", "getMinorVersion", "getPatchVersion", "readSharedRWMemory",
    "writeSharedRWMemory", "init", "setInputSignal", "getInputSignalSize", "getRawPrime",
    "getFieldNumLen32", "getWitnessSize", "getInputSize", "getWitness", "getMessageChar"};
static const char *const wc_known_imports[] = {"exceptionHandler", "printErrorMessage",
                                               "writeBufferMessage", "showSharedRWMemory"};
#define N_EXPORTS (sizeof wc_required_exports / sizeof *wc_required_exports)
#define N_IMPORTS (sizeof wc_known_imports / sizeof *wc_known_imports)

cuzk_status wc_check_wasm(const uint8_t *w, size_t size, const char *name, wasm_shape *shape,
                          cuzk_error *err) {
    wasm_shape sh_local;
    wasm_shape *sh = shape ? shape : &sh_local;
    memset(sh, 0, sizeof *sh);
    static const uint8_t magic[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
    if (size < 8 || memcmp(w, magic, 8))
        return cuzk_fail(err, CUZK_EFORMAT, "%s: not a WebAssembly module", name);
    wasm_rd r = {w + 8, w + size, 0};
    int have[N_EXPORTS] = {0};
    int memory_export = 0;
    while (r.p < r.end && !r.bad) {
        uint8_t id = *r.p++;
        uint32_t len = rd_leb(&r);
        if (r.bad || (size_t)(r.end - r.p) < len)
            return cuzk_fail(err, CUZK_EFORMAT, "%s: truncated WebAssembly module", name);
        wasm_rd s = {r.p, r.p + len, 0};
        r.p += len;
        if (id == 2) { /* imports */
            uint32_t n = rd_leb(&s);
            for (uint32_t i = 0; i < n && !s.bad; i++) {
                uint32_t ml, fl;
                const uint8_t *mod = rd_name(&s, &ml), *field = rd_name(&s, &fl);
                if (s.bad || s.p >= s.end)
                    break;
                uint8_t kind = *s.p++;
                int known = 0;
                if (kind == 0 && name_is(mod, ml, "runtime"))
                    for (size_t k = 0; k < N_IMPORTS; k++)
                        known |= name_is(field, fl, wc_known_imports[k]);
                if (!known)
                    return cuzk_fail(err, CUZK_EFORMAT,
                                     "%s: not a circom 2 witness calculator (imports %.*s.%.*s)",
                                     name, (int)(ml > 40 ? 40 : ml), (const char *)mod,
                                     (int)(fl > 40 ? 40 : fl), (const char *)field);
                rd_leb(&s); /* the function's type index */
            }
        } else if (id == 7) { /* exports */
            uint32_t n = rd_leb(&s);
            for (uint32_t i = 0; i < n && !s.bad; i++) {
                uint32_t fl;
                const uint8_t *field = rd_name(&s, &fl);
                if (s.bad || s.p >= s.end)
                    break;
                uint8_t kind = *s.p++;
                rd_leb(&s);
                if (kind == 2 && name_is(field, fl, "memory"))
                    memory_export = 1;
                for (size_t k = 0; kind == 0 && k < N_EXPORTS; k++)
                    have[k] |= name_is(field, fl, wc_required_exports[k]);
            }
        } else if (id == 10 && !wc_code_shape(s.p, s.end, sh)) {
            s.bad = 1;
        }
        if (s.bad)
            return cuzk_fail(err, CUZK_EFORMAT, "%s: malformed section %u", name, id);
    }
    if (r.bad)
        return cuzk_fail(err, CUZK_EFORMAT, "%s: truncated WebAssembly module", name);
    for (size_t k = 0; k < N_EXPORTS; k++)
        if (!have[k])
            return cuzk_fail(err, CUZK_EFORMAT,
                             "%s: not a circom 2 witness calculator (no export %s)", name,
                             wc_required_exports[k]);
    if (!memory_export)
        return cuzk_fail(err, CUZK_EUNSUPPORTED,
                         "%s: the module does not define its own memory (circom before 2.1?)",
                         name);
    return wc_shape_refused(sh, name, err);
}

/* ---- files and processes ------------------------------------------------------- */

static cuzk_status write_all(const char *path, const void *data, size_t len, cuzk_error *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return cuzk_fail(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    const uint8_t *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            return cuzk_fail(err, CUZK_EIO, "%s: %s", path, strerror(e));
        }
        p += n, len -= (size_t)n;
    }
    if (close(fd))
        return cuzk_fail(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    return CUZK_OK;
}


/* The full path of |prog| (searched on the PATH when it has no slash) in
 * |out|; 0 when it is not an executable. */
static int find_prog(const char *prog, char *out, size_t cap) {
    if (strchr(prog, '/')) {
        snprintf(out, cap, "%s", prog);
        return access(prog, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n && n + strlen(prog) + 2 < cap) {
            snprintf(out, cap, "%.*s/%s", (int)n, path, prog);
            if (access(out, X_OK) == 0)
                return 1;
        }
        path += n + (colon != NULL);
    }
    return 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run |argv| (argv[0] a full path) in a process group of its own with
 * stdout and stderr appended to |log|, its address space limited to
 * |mem_bytes| (inherited by the compiler's own children: cc1, as, ld), and
 * killed, group and all, after |limit_s| seconds.  Returns its exit status,
 * 127 when it could not be started, -1 when it died of a signal, -2 when it
 * ran out of time.  vfork: the daemon's address space may be large, and
 * the child only makes system calls before exec. */
static int run_limited(char *const argv[], const char *log, uint64_t mem_bytes, double limit_s,
                       const cuzk_wc_opts *o) {
    int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    int nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (lfd < 0 || nfd < 0) {
        if (lfd >= 0)
            close(lfd);
        if (nfd >= 0)
            close(nfd);
        return 127;
    }
    struct rlimit rl = {(rlim_t)mem_bytes, (rlim_t)mem_bytes};
    pid_t pid = vfork();
    if (pid == 0) {
        setpgid(0, 0);
        if (mem_bytes)
            setrlimit(RLIMIT_AS, &rl);
        dup2(nfd, 0);
        dup2(lfd, 1);
        dup2(lfd, 2);
        execve(argv[0], argv, environ);
        _exit(127);
    }
    close(lfd);
    close(nfd);
    if (pid < 0)
        return 127;
    double end = now_s() + limit_s;
    int st = 0, timed_out = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        int stopped = o && o->stop && o->stop(o->stop_ctx);
        if (!timed_out && (stopped || now_s() > end)) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            timed_out = stopped ? 2 : 1;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (timed_out) {
        kill(-pid, SIGKILL); /* whatever the driver left running */
        return timed_out == 2 ? -3 : -2;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The refusal of compile step |step| (wasm2c or the C compiler) of |name|
 * that ended with |rc| from run_limited: past the time limit (-2), else
 * failed (its exit, perhaps the memory limit); each names its option. */
static cuzk_status step_failed(cuzk_error *err, int rc, const char *step, const char *name,
                               double limit_s, uint64_t mem, const char *log) {
    if (rc == -3)
        return cuzk_fail(err, CUZK_ECANCELLED, "compiling %s: stopped (shutting down)", name);
    if (rc == -2)
        return cuzk_fail(err, CUZK_ERANGE,
                         "compiling %s: %s ran past the compile time limit of %.0f s (the "
                         "module's share by its size, at most wc_compile_timeout_s)",
                         name, step, limit_s);
    return cuzk_fail(err, CUZK_EINTERNAL,
                     "compiling %s to native code failed (%s exit %d; the compilers' memory "
                     "limit is %llu MiB, the module's share by its size, at most "
                     "wc_compile_memory): see %s",
                     name, step, rc, (unsigned long long)(mem >> 20), log);
}


/* ---- limits ------------------------------------------------------------------------ */

#define WC_DEF_MAX_WASM (256ull << 20)
#define WC_DEF_COMPILE_S 600.0
#define WC_DEF_COMPILE_MEM (8ull << 30)
#define WC_DEF_COMPILERS 1u
/* Objects of real circuits take 1 to 100 MB: dozens of circuits. */
#define WC_DEF_CACHE_MAX (4ull << 30)

uint64_t wc_opt_max_wasm(const cuzk_wc_opts *o) {
    return o && o->max_wasm_bytes ? o->max_wasm_bytes : WC_DEF_MAX_WASM;
}
static double opt_compile_s(const cuzk_wc_opts *o) {
    return o && o->compile_s > 0 ? o->compile_s : WC_DEF_COMPILE_S;
}
static uint64_t opt_compile_mem(const cuzk_wc_opts *o) {
    return o && o->compile_memory_bytes ? o->compile_memory_bytes : WC_DEF_COMPILE_MEM;
}

static double scaled_compile_s(const cuzk_wc_opts *o, const wasm_shape *sh) {
    double t = wc_shape_compile_s(sh);
    return t < opt_compile_s(o) ? t : opt_compile_s(o);
}

static uint64_t scaled_compile_mem(const cuzk_wc_opts *o, const wasm_shape *sh) {
    uint64_t m = wc_shape_compile_mem(sh);
    return m < opt_compile_mem(o) ? m : opt_compile_mem(o);
}

/* Compilers running at once in this process.  Process-wide on purpose:
 * the bound is on the machine's cores and memory, whoever asks. */
static pthread_mutex_t compilers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t compilers_cv = PTHREAD_COND_INITIALIZER;
static unsigned compilers_running;

static int stopped(const cuzk_wc_opts *o) {
    return o && o->stop && o->stop(o->stop_ctx);
}

/* 0 once a slot is taken; -1 when |o|'s stop said so while waiting. */
static int compilers_enter(const cuzk_wc_opts *o) {
    unsigned max = o && o->max_compilers ? o->max_compilers : WC_DEF_COMPILERS;
    pthread_mutex_lock(&compilers_lock);
    while (compilers_running >= max) {
        if (stopped(o)) {
            pthread_mutex_unlock(&compilers_lock);
            return -1;
        }
        struct timespec until; /* the stop is asked every 50 ms */
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&compilers_cv, &compilers_lock, &until);
    }
    compilers_running++;
    pthread_mutex_unlock(&compilers_lock);
    return 0;
}

static void compilers_leave(void) {
    pthread_mutex_lock(&compilers_lock);
    compilers_running--;
    pthread_cond_broadcast(&compilers_cv);
    pthread_mutex_unlock(&compilers_lock);
}

/* ---- the cache folder -------------------------------------------------------------- */

/* The rule of OpenSSH's safe_path(): every folder from the cache up to /
 * belongs to root or to us and only its owner may write it, except that a
 * folder with the sticky bit owned by root (/tmp) may be writable by all,
 * because nobody but us can then rename or remove what we own in it.  The
 * cache folder itself must be ours and writable by us alone. */
static cuzk_status cache_safe(const char *dir, cuzk_error *err) {
    uid_t me = geteuid();
    struct stat st;
    if (lstat(dir, &st))
        return cuzk_fail(err, CUZK_EIO, "witness cache %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cuzk_fail(err, CUZK_EIO, "witness cache %s is not a folder (links are refused)",
                         dir);
    if (st.st_uid != me)
        return cuzk_fail(err, CUZK_EIO,
                         "witness cache %s belongs to uid %u, not to this process's uid %u: "
                         "refused (another user could plant code there); use a folder of "
                         "your own (wc_cache_dir, CUZK_WC_CACHE)",
                         dir, (unsigned)st.st_uid, (unsigned)me);
    if (st.st_mode & 022)
        return cuzk_fail(err, CUZK_EIO,
                         "witness cache %s is writable by others (mode %03o): refused; "
                         "chmod 700 it",
                         dir, (unsigned)(st.st_mode & 0777));
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return cuzk_fail(err, CUZK_EIO, "witness cache %s: %s", dir, strerror(errno));
    for (char *slash = strrchr(real, '/'); slash; slash = strrchr(real, '/')) {
        if (slash == real)
            slash[1] = 0; /* "/" itself, last */
        else
            *slash = 0;
        if (stat(real, &st))
            return cuzk_fail(err, CUZK_EIO, "witness cache: %s: %s", real, strerror(errno));
        int owner_ok = st.st_uid == 0 || st.st_uid == me;
        int sticky_tmp = st.st_uid == 0 && (st.st_mode & S_ISVTX);
        if (!owner_ok || ((st.st_mode & 022) && !sticky_tmp))
            return cuzk_fail(err, CUZK_EIO,
                             "witness cache %s: the folder %s above it (uid %u, mode %04o) "
                             "could be changed by another user: refused",
                             dir, real, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        if (!strcmp(real, "/"))
            break;
    }
    return CUZK_OK;
}

static cuzk_status cache_dir(char *out, size_t cap, const cuzk_wc_opts *o, cuzk_error *err) {
    const char *d = o && o->cache_dir ? o->cache_dir : getenv("CUZK_WC_CACHE");
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (d && *d)
        snprintf(out, cap, "%s", d);
    else if (x && *x)
        snprintf(out, cap, "%s/cuzk/wc", x);
    else if (home && *home)
        snprintf(out, cap, "%s/.cache/cuzk/wc", home);
    else
        snprintf(out, cap, "/tmp/cuzk-wc-%u", (unsigned)geteuid());
    /* create every missing level, private */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", out);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0700);
            *p = '/';
        }
    if (mkdir(tmp, 0700) && errno != EEXIST)
        return cuzk_fail(err, CUZK_EIO, "witness cache %s: %s", out, strerror(errno));
    return cache_safe(out, err);
}

/* Open |path| for reading if it is a regular file of ours that only we
 * may write, not a link; -1 otherwise. */
static int open_own(const char *path, struct stat *st) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
        (st->st_mode & 022) || st->st_nlink != 1) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The SHA-256 of what |fd| holds, from its start, in hex. */
static int hash_fd(int fd, char hex[65]) {
    cuzk_sha256 h;
    uint8_t d[32], buf[65536];
    cuzk_sha256_init(&h);
    off_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        cuzk_sha256_update(&h, buf, (size_t)n);
        off += n;
    }
    cuzk_sha256_final(&h, d);
    cuzk_sha256_to_hex(hex, d);
    return 0;
}

/* The cached worker at |exe|, if it is ours and its content is the one
 * recorded in |sum| when it was built: its descriptor, else -1. */
static int open_verified(const char *exe, const char *sum) {
    struct stat st, ss;
    int fd = open_own(exe, &st);
    if (fd < 0)
        return -1;
    int sfd = open_own(sum, &ss);
    char want[65] = "", have[65];
    if (sfd >= 0) {
        ssize_t n = pread(sfd, want, 64, 0);
        want[n == 64 ? 64 : 0] = 0;
        close(sfd);
    }
    if (!want[0] || hash_fd(fd, have) || strcmp(want, have)) {
        close(fd);
        return -1;
    }
    return fd;
}

static void progress(const cuzk_wc_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(const cuzk_wc_opts *o, const char *fmt, ...) {
    if (!o || !o->progress)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->progress(o->progress_ctx, line);
}

static void remove_tree(const char *dir, const char *const *files, size_t n) {
    char p[4400];
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Whether the object |name| in |dir| is loaded by no process (every
 * loaded circuit holds a shared flock on its object): removed then, with
 * its sum; 0 (kept) otherwise. */
static int remove_unused(int dfd, const char *dir, const char *name) {
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        return 0;
    }
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    unlink(p);
    snprintf(p, sizeof p, "%s/%.64s.sum", dir, name);
    unlink(p);
    close(fd);
    return 1;
}

/* Keep the cache under |max| bytes of objects: remove the least recently
 * used ones (by modification time: a load touches its object), never
 * |keep| nor one a loaded circuit uses, in this process or another: those
 * are what the bound must not take from under a running service (it goes
 * over the bound rather than compile them again on their next start). */
static void cache_trim(const char *dir, const char *keep, uint64_t max) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct obj {
        char name[80];
        time_t mtime;
        uint64_t bytes;
    } *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len != 64 + 3 || strcmp(e->d_name + 64, ".wc"))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            struct obj *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        snprintf(v[n].name, sizeof v[n].name, "%s", e->d_name);
        v[n].mtime = st.st_mtime;
        v[n].bytes = (uint64_t)st.st_size;
        total += v[n++].bytes;
    }
    while (total > max) {
        size_t old = n;
        for (size_t i = 0; i < n; i++)
            if (v[i].bytes && strncmp(v[i].name, keep, 64) &&
                (old == n || v[i].mtime < v[old].mtime))
                old = i;
        if (old == n)
            break;
        if (remove_unused(dirfd(d), dir, v[old].name))
            total -= v[old].bytes;
        v[old].bytes = 0; /* removed, or in use: not looked at again */
    }
    closedir(d);
    free(v);
}

/* Build |exe| (and its |sum|) from the wasm in a private folder; the
 * caller holds the lock. */
static cuzk_status build_object(const char *dir, const char *hash, const char *exe,
                                const char *sum, const uint8_t *wasm, size_t size,
                                const char *name, const cuzk_wc_opts *o, const wasm_shape *sh,
                                cuzk_error *err) {
    const char *cc = o && o->cc ? o->cc : getenv("CC");
    const char *w2c = o && o->wasm2c ? o->wasm2c : getenv("WASM2C");
    if (!cc || !*cc)
        cc = "cc";
    if (!w2c || !*w2c)
        w2c = "wasm2c";
    char cc_path[4096], w2c_path[4096];
    if (!find_prog(w2c, w2c_path, sizeof w2c_path))
        return cuzk_fail(err, CUZK_EINTERNAL, /* the machine's setup, not the circuit */
                         "cannot compile %s: wasm2c not found (install Debian's wabt package "
                         "or set WASM2C)", name);
    if (!find_prog(cc, cc_path, sizeof cc_path))
        return cuzk_fail(err, CUZK_EINTERNAL,
                         "cannot compile %s: C compiler '%s' not found (install "
                         "build-essential or set CC)", name, cc);
    char tmp[4300], log[4400], p_wasm[4400], p_c[4400], p_glue[4400], p_abi[4400], p_nat[4400],
        p_exe[4400];
    snprintf(tmp, sizeof tmp, "%s/build-%.16s-XXXXXX", dir, hash);
    if (!mkdtemp(tmp))
        return cuzk_fail(err, CUZK_EIO, "%s: %s", tmp, strerror(errno));
    snprintf(log, sizeof log, "%s/%s.log", dir, hash);
    unlink(log);
    snprintf(p_wasm, sizeof p_wasm, "%s/module.wasm", tmp);
    snprintf(p_c, sizeof p_c, "%s/module.c", tmp);
    snprintf(p_glue, sizeof p_glue, "%s/glue.c", tmp);
    snprintf(p_abi, sizeof p_abi, "%s/wc_abi.h", tmp);
    snprintf(p_nat, sizeof p_nat, "%s/wc_native.c", tmp);
    snprintf(p_exe, sizeof p_exe, "%s/module.wc", tmp);
    static const char *const files[] = {"module.wasm", "module.c",    "module.h", "glue.c",
                                        "wc_abi.h",    "wc_native.c", "module.wc"};
    const size_t n_files = sizeof files / sizeof *files;
    cuzk_status s = write_all(p_wasm, wasm, size, err);
    if (s == CUZK_OK)
        s = write_all(p_glue, cuzk_embed_wc_glue_c_in, strlen(cuzk_embed_wc_glue_c_in), err);
    if (s == CUZK_OK)
        s = write_all(p_abi, cuzk_embed_wc_abi_h, strlen(cuzk_embed_wc_abi_h), err);
    if (s == CUZK_OK)
        s = write_all(p_nat, cuzk_embed_wc_native_c_in, strlen(cuzk_embed_wc_native_c_in), err);
    if (s != CUZK_OK) {
        remove_tree(tmp, files, n_files);
        return s;
    }
    double limit_s = scaled_compile_s(o, sh);
    uint64_t mem = scaled_compile_mem(o, sh);
    double t0 = now_s();
    char *w2c_argv[] = {w2c_path, p_wasm, "-n", "circuit", "-o", p_c, NULL};
    int rc = run_limited(w2c_argv, log, mem, limit_s, o);
    if (rc != 0) {
        remove_tree(tmp, files, n_files);
        return step_failed(err, rc, "wasm2c", name, limit_s, mem, log);
    }
    int native = wc_rt_known(wasm, size) && wc_rt_rename(p_c);
    char inc[4400];
    snprintf(inc, sizeof inc, "-I%s", tmp);
    char *cc_argv[40];
    size_t k = 0;
    cc_argv[k++] = cc_path;
    for (size_t i = 0; i < sizeof wc_cflags / sizeof *wc_cflags; i++)
        cc_argv[k++] = (char *)wc_cflags[i];
    /* extra flags from $CUZK_WC_CFLAGS (in the cache key too) */
    char extra[1024];
    snprintf(extra, sizeof extra, "%s", getenv("CUZK_WC_CFLAGS") ? getenv("CUZK_WC_CFLAGS") : "");
    for (char *tok = strtok(extra, " \t"); tok && k < 24; tok = strtok(NULL, " \t"))
        cc_argv[k++] = tok;
    cc_argv[k++] = inc;
    if (native)
        cc_argv[k++] = "-DCUZK_WC_NATIVE_RT=1";
    cc_argv[k++] = p_glue;
    cc_argv[k++] = "-o";
    cc_argv[k++] = p_exe;
    cc_argv[k] = NULL;
    double left = limit_s - (now_s() - t0);
    rc = left > 0 ? run_limited(cc_argv, log, mem, left, o) : -2;
    if (rc != 0) {
        remove_tree(tmp, files, n_files);
        return step_failed(err, rc, cc, name, limit_s, mem, log);
    }
    /* the content's hash, recorded before the object appears */
    char hex[65];
    int fd = open(p_exe, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || hash_fd(fd, hex) || fchmod(fd, 0700)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        remove_tree(tmp, files, n_files);
        return cuzk_fail(err, CUZK_EIO, "%s: %s", p_exe, strerror(e));
    }
    close(fd);
    char sum_tmp[4500];
    snprintf(sum_tmp, sizeof sum_tmp, "%s.sum", p_exe);
    s = write_all(sum_tmp, hex, 64, err);
    if (s == CUZK_OK && (rename(sum_tmp, sum) || rename(p_exe, exe)))
        s = cuzk_fail(err, CUZK_EIO, "%s: %s", exe, strerror(errno));
    unlink(sum_tmp);
    remove_tree(tmp, files, n_files);
    if (s == CUZK_OK)
        unlink(log);
    return s;
}

/* The object's address in the cache: wasm, glue, protocol and flags. */
static void cache_key(const uint8_t *wasm, size_t size, char key[65]) {
    cuzk_sha256 h;
    uint8_t d[32];
    cuzk_sha256_init(&h);
    cuzk_sha256_update(&h, WC_CACHE_SALT, sizeof WC_CACHE_SALT);
    cuzk_sha256_update(&h, wasm, size);
    cuzk_sha256_update(&h, cuzk_embed_wc_glue_c_in, strlen(cuzk_embed_wc_glue_c_in));
    cuzk_sha256_update(&h, cuzk_embed_wc_abi_h, strlen(cuzk_embed_wc_abi_h));
    cuzk_sha256_update(&h, cuzk_embed_wc_native_c_in, strlen(cuzk_embed_wc_native_c_in));
    /* whether the natives replace the module's runtime, and which */
    wc_rt_hash_names(&h);
    uint8_t known = (uint8_t)wc_rt_known(wasm, size);
    cuzk_sha256_update(&h, &known, 1);
    for (size_t i = 0; i < sizeof wc_cflags / sizeof *wc_cflags; i++)
        cuzk_sha256_update(&h, wc_cflags[i], strlen(wc_cflags[i]) + 1);
    const char *extra = getenv("CUZK_WC_CFLAGS");
    if (extra)
        cuzk_sha256_update(&h, extra, strlen(extra) + 1);
    cuzk_sha256_final(&h, d);
    cuzk_sha256_to_hex(key, d);
}

cuzk_status wc_obtain(struct cuzk_wc_circuit *c, const uint8_t *wasm, size_t size,
                      const char *name, const char *shown, const cuzk_wc_opts *o,
                      cuzk_error *err) {
    uint64_t max_wasm = wc_opt_max_wasm(o);
    if (size > max_wasm)
        return cuzk_fail(err, CUZK_ERANGE,
                         "%s: %zu bytes of wasm, more than the limit of %llu "
                         "(wc_max_wasm_bytes)", name, size, (unsigned long long)max_wasm);
    wasm_shape shape;
    cuzk_status s = wc_check_wasm(wasm, size, name, &shape, err);
    if (s != CUZK_OK)
        return s;
    cuzk_sha256_hex(c->hash, wasm, size);
    char key[65];
    cache_key(wasm, size, key);

    char dir[4096], exe[4200], sum[4200], lock[4200];
    if ((s = cache_dir(dir, sizeof dir, o, err)) != CUZK_OK)
        return s;
    snprintf(exe, sizeof exe, "%s/%s.wc", dir, key);
    snprintf(sum, sizeof sum, "%s/%s.sum", dir, key);
    int fd = open_verified(exe, sum);
    if (fd < 0) {
        snprintf(lock, sizeof lock, "%s/%s.lock", dir, key);
        int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (lfd < 0)
            return cuzk_fail(err, CUZK_EIO, "%s: %s", lock, strerror(errno));
        /* another thread or process may be compiling it: waited for, but
         * not past a stop */
        while (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
            int e = errno;
            if (e != EINTR && e != EWOULDBLOCK) {
                close(lfd);
                return cuzk_fail(err, CUZK_EIO, "%s: %s", lock, strerror(e));
            }
            if (stopped(o)) {
                close(lfd);
                return cuzk_fail(err, CUZK_ECANCELLED, "compiling %s: stopped (shutting down)",
                                 name);
            }
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        fd = open_verified(exe, sum);
        if (fd < 0) { /* nobody built it while we waited (or what is there is not ours) */
            unlink(exe);
            unlink(sum);
            if (compilers_enter(o)) {
                flock(lfd, LOCK_UN);
                close(lfd);
                return cuzk_fail(err, CUZK_ECANCELLED, "compiling %s: stopped (shutting down)",
                                 name);
            }
            /* KB below a megabyte: "0.0 MB" told nothing about a small circuit */
            char sz[32];
            if (size < 1000000)
                snprintf(sz, sizeof sz, "%.0f KB", size / 1e3 < 1 ? 1 : size / 1e3);
            else
                snprintf(sz, sizeof sz, "%.1f MB", size / 1e6);
            progress(o, "compiling %s (%s of wasm) to native code, once for this machine "
                        "(cache: %s)", shown, sz, dir);
            double t0 = now_s();
            s = build_object(dir, key, exe, sum, wasm, size, name, o, &shape, err);
            compilers_leave();
            c->compile_s = now_s() - t0;
            if (s == CUZK_OK) {
                progress(o, "compiled %s in %.1f s", shown, c->compile_s);
                fd = open_verified(exe, sum);
                if (fd < 0)
                    s = cuzk_fail(err, CUZK_EIO, "%s changed after it was built", exe);
                cache_trim(dir, key, o && o->cache_max_bytes ? o->cache_max_bytes
                                                            : WC_DEF_CACHE_MAX);
            }
        }
        flock(lfd, LOCK_UN);
        close(lfd);
        if (s != CUZK_OK)
            return s;
    }
    futimens(fd, NULL); /* recently used: the cache bound evicts others first */
    flock(fd, LOCK_SH); /* loaded: the cache bound leaves it (cache_trim) */
    c->exe_fd = fd;
    return CUZK_OK;
}

/* Whether the worker this machine would run for the module |w| is in the
 * cache already, and where (cuzk_wc_wasm_inspect, inspect.c). */
void wc_cache_probe(const uint8_t *w, size_t size, const cuzk_wc_opts *o,
                    cuzk_wc_wasm_info *info) {
    char key[65], dir[4096], exe[4200], sum[4200];
    cache_key(w, size, key);
    cuzk_error derr = {0};
    if (cache_dir(dir, sizeof dir, o, &derr) != CUZK_OK)
        return;
    snprintf(exe, sizeof exe, "%s/%s.wc", dir, key);
    snprintf(sum, sizeof sum, "%s/%s.sum", dir, key);
    int efd = open_verified(exe, sum);
    info->cached = efd >= 0;
    if (efd >= 0)
        close(efd);
    snprintf(info->cache_path, sizeof info->cache_path, "%s", exe);
}
