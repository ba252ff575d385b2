/*
 * compile.c: from a circom .wasm to a loaded native witness calculator.
 *
 * Design.  A circuit's wasm is translated to C by wabt's wasm2c and built,
 * together with the host glue (wc_glue.c.in, embedded in the library), into
 * a shared object that exports one table (wc_abi.h).  Objects live in a
 * cache folder named by content: <sha256>.so, where the hash covers the
 * wasm, the glue and ABI text and the compiler flags, so a change to any of
 * them builds a new object and a stale one is never loaded.
 *
 * Concurrency.  Two threads or processes that need the same object at once
 * compile it once: the first takes an exclusive flock on <sha256>.lock and
 * builds in a private temporary folder; the object appears in the cache by
 * rename(), which is atomic, so nobody ever loads a partly written file.
 * The others block on the lock, then find the object and load it.  No lock
 * of the engine is held during a compile (callers compile off the proving
 * path), and nothing here is global.
 *
 * Why wasm2c and a C compiler rather than an interpreter: the witness of a
 * circom circuit is tens of millions of field operations written in wasm;
 * an interpreter runs them one dispatch at a time, while compiled code runs
 * them at the speed of the C compiler's output.  The one-time compile is
 * paid once per circuit per machine (docs/WITNESS.md has the figures).
 *
 * What it must not do: run the compiler with a shell (no quoting issues,
 * no injection through file names); leave temporary folders behind after a
 * failure (the compiler's log is kept as <sha256>.log for the error
 * message); abort on any failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/sha256.h"
#include "witness/internal.h"
#include "wc_glue_src.h"

extern char **environ;

/* Compiler flags of the object.  -O2: measured against -O1 and -O3 in
 * docs/WITNESS.md.  Explicit bounds checks (no signal handler) and the
 * wasm call-depth count (in each instance) keep a bad module from taking
 * the process down. */
static const char *const wc_cflags[] = {
    "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-DNDEBUG", "-w",
    "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0", "-DWASM_RT_USE_STACK_DEPTH_COUNT=1",
    "-DWASM_RT_MAX_CALL_STACK_DEPTH=10000"};
#define WC_CACHE_SALT "cuzk-wc-abi-1-native-fr-1"

/* ---- the wasm check ---------------------------------------------------------- */

typedef struct wasm_rd {
    const uint8_t *p, *end;
    int bad;
} wasm_rd;

static uint32_t rd_leb(wasm_rd *r) {
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* A name: returns a pointer into the module and its length. */
static const uint8_t *rd_name(wasm_rd *r, uint32_t *len) {
    *len = rd_leb(r);
    if (r->bad || (size_t)(r->end - r->p) < *len) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *s = r->p;
    r->p += *len;
    return s;
}

static int name_is(const uint8_t *s, uint32_t n, const char *want) {
    return n == strlen(want) && !memcmp(s, want, n);
}

static const char *const wc_required_exports[] = {
    "getVersion", "getMinorVersion", "getPatchVersion", "readSharedRWMemory",
    "writeSharedRWMemory", "init", "setInputSignal", "getInputSignalSize", "getRawPrime",
    "getFieldNumLen32", "getWitnessSize", "getInputSize", "getWitness", "getMessageChar"};
static const char *const wc_known_imports[] = {"exceptionHandler", "printErrorMessage",
                                               "writeBufferMessage", "showSharedRWMemory"};
#define N_EXPORTS (sizeof wc_required_exports / sizeof *wc_required_exports)
#define N_IMPORTS (sizeof wc_known_imports / sizeof *wc_known_imports)

static cuzk_status check_wasm(const uint8_t *w, size_t size, const char *name,
                              cuzk_error *err) {
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
    return CUZK_OK;
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

/* Run argv[0] (searched on the PATH) with stdout and stderr appended to
 * |log|.  Returns its exit status, 127 when it could not be started, or
 * -1 when it died of a signal. */
static int run_logged(char *const argv[], const char *log) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return 127;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 1 if |prog| (no slash) is an executable on the PATH, or a path to one. */
static int on_path(const char *prog) {
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[4096];
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n && n + strlen(prog) + 2 < sizeof buf) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += n + (colon != NULL);
    }
    return 0;
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
        snprintf(out, cap, "/tmp/cuzk-wc-%u", (unsigned)getuid());
    /* create every missing level */
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
    struct stat st;
    if (stat(out, &st) || !S_ISDIR(st.st_mode))
        return cuzk_fail(err, CUZK_EIO, "witness cache %s is not a folder", out);
    return CUZK_OK;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
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

/* The definitions of circom's Montgomery product and square in wasm2c's
 * output become *_wasm, so that the glue's 64-bit versions take their
 * place (wc_glue.c.in, "native field products").  Returns 1 when both were
 * found; a module without those names (no name section, another field
 * library) keeps the wasm's own and still works. */
static int rename_products(const char *path) {
    static const char *const defs[] = {
        "\nstatic void w2c_Fr_F1m_mul(Z_circuit_instance_t* instance, ",
        "\nstatic void w2c_Fr_F1m_square(Z_circuit_instance_t* instance, "};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return 0;
    }
    fclose(f);
    buf[n] = 0;
    char *at[2];
    for (int i = 0; i < 2; i++)
        if (!(at[i] = strstr(buf, defs[i])) || strstr(at[i] + 1, defs[i])) {
            free(buf);
            return 0;
        }
    /* write it back with "_wasm" after each definition's name */
    int ok = 0;
    if ((f = fopen(path, "wb"))) {
        char *p = buf;
        ok = 1;
        for (int i = 0; i < 2; i++) {
            char *first = at[0] < at[1] ? at[0] : at[1];
            if (i == 1)
                first = at[0] < at[1] ? at[1] : at[0];
            char *name_end = strchr(first + 1, '(');
            ok &= fwrite(p, 1, (size_t)(name_end - p), f) == (size_t)(name_end - p);
            ok &= fputs("_wasm", f) >= 0;
            p = name_end;
        }
        ok &= fwrite(p, 1, strlen(p), f) == strlen(p);
        ok &= fclose(f) == 0;
    }
    free(buf);
    return ok;
}

/* Build |obj| from the wasm in a private folder; the caller holds the lock. */
static cuzk_status build_object(const char *dir, const char *hash, const char *obj,
                                const uint8_t *wasm, size_t size, const char *name,
                                const cuzk_wc_opts *o, cuzk_error *err) {
    const char *cc = o && o->cc ? o->cc : getenv("CC");
    const char *w2c = o && o->wasm2c ? o->wasm2c : getenv("WASM2C");
    if (!cc || !*cc)
        cc = "cc";
    if (!w2c || !*w2c)
        w2c = "wasm2c";
    if (!on_path(w2c))
        return cuzk_fail(err, CUZK_EUNSUPPORTED,
                         "cannot compile %s: wasm2c not found (install Debian's wabt package "
                         "or set WASM2C)", name);
    if (!on_path(cc))
        return cuzk_fail(err, CUZK_EUNSUPPORTED,
                         "cannot compile %s: C compiler '%s' not found (install "
                         "build-essential or set CC)", name, cc);
    char tmp[4300], log[4400], p_wasm[4400], p_c[4400], p_glue[4400], p_abi[4400], p_so[4400];
    snprintf(tmp, sizeof tmp, "%s/build-%.16s-XXXXXX", dir, hash);
    if (!mkdtemp(tmp))
        return cuzk_fail(err, CUZK_EIO, "%s: %s", tmp, strerror(errno));
    snprintf(log, sizeof log, "%s/%s.log", dir, hash);
    unlink(log);
    snprintf(p_wasm, sizeof p_wasm, "%s/module.wasm", tmp);
    snprintf(p_c, sizeof p_c, "%s/module.c", tmp);
    snprintf(p_glue, sizeof p_glue, "%s/glue.c", tmp);
    snprintf(p_abi, sizeof p_abi, "%s/wc_abi.h", tmp);
    snprintf(p_so, sizeof p_so, "%s/module.so", tmp);
    static const char *const files[] = {"module.wasm", "module.c", "module.h", "glue.c",
                                        "wc_abi.h", "module.so"};
    cuzk_status s = write_all(p_wasm, wasm, size, err);
    if (s == CUZK_OK)
        s = write_all(p_glue, cuzk_embed_wc_glue_c_in, strlen(cuzk_embed_wc_glue_c_in), err);
    if (s == CUZK_OK)
        s = write_all(p_abi, cuzk_embed_wc_abi_h, strlen(cuzk_embed_wc_abi_h), err);
    if (s != CUZK_OK) {
        remove_tree(tmp, files, 6);
        return s;
    }
    char *w2c_argv[] = {(char *)w2c, p_wasm, "-n", "circuit", "-o", p_c, NULL};
    int rc = run_logged(w2c_argv, log);
    if (rc != 0) {
        remove_tree(tmp, files, 6);
        return cuzk_fail(err, CUZK_EINTERNAL, "wasm2c failed on %s (exit %d): see %s", name, rc,
                         log);
    }
    int native = rename_products(p_c);
    char inc[4400];
    snprintf(inc, sizeof inc, "-I%s", tmp);
    char *cc_argv[40];
    size_t k = 0;
    cc_argv[k++] = (char *)cc;
    for (size_t i = 0; i < sizeof wc_cflags / sizeof *wc_cflags; i++)
        cc_argv[k++] = (char *)wc_cflags[i];
    /* extra flags from $CUZK_WC_CFLAGS (in the cache key too) */
    char extra[1024];
    snprintf(extra, sizeof extra, "%s", getenv("CUZK_WC_CFLAGS") ? getenv("CUZK_WC_CFLAGS") : "");
    for (char *tok = strtok(extra, " \t"); tok && k < 24; tok = strtok(NULL, " \t"))
        cc_argv[k++] = tok;
    cc_argv[k++] = inc;
    if (native)
        cc_argv[k++] = "-DCUZK_WC_NATIVE_FR=1";
    cc_argv[k++] = p_glue;
    cc_argv[k++] = "-o";
    cc_argv[k++] = p_so;
    cc_argv[k] = NULL;
    rc = run_logged(cc_argv, log);
    if (rc != 0) {
        remove_tree(tmp, files, 6);
        return cuzk_fail(err, CUZK_EINTERNAL,
                         "compiling %s to native code failed (%s exit %d): see %s", name, cc, rc,
                         log);
    }
    if (rename(p_so, obj)) {
        int e = errno;
        remove_tree(tmp, files, 6);
        return cuzk_fail(err, CUZK_EIO, "%s: %s", obj, strerror(e));
    }
    remove_tree(tmp, files, 6);
    unlink(log);
    return CUZK_OK;
}

static cuzk_status open_object(struct cuzk_wc_circuit *c, const char *obj, cuzk_error *err) {
    void *dl = dlopen(obj, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *why = dlerror();
        return cuzk_fail(err, CUZK_EIO, "cannot load %s: %s", obj, why ? why : "?");
    }
    const cuzk_wc_abi *abi = dlsym(dl, CUZK_WC_ABI_SYMBOL);
    if (!abi || abi->version != CUZK_WC_ABI_VERSION || abi->size != sizeof(cuzk_wc_abi)) {
        dlclose(dl);
        return cuzk_fail(err, CUZK_EFORMAT, "%s is not a witness calculator of this cuzk", obj);
    }
    c->dl = dl;
    c->abi = abi;
    return CUZK_OK;
}

cuzk_status wc_obtain(struct cuzk_wc_circuit *c, const uint8_t *wasm, size_t size,
                      const char *name, const cuzk_wc_opts *o, cuzk_error *err) {
    cuzk_status s = check_wasm(wasm, size, name, err);
    if (s != CUZK_OK)
        return s;
    cuzk_sha256_hex(c->hash, wasm, size);
    /* the object's address: wasm, glue, ABI and flags */
    cuzk_sha256 h;
    uint8_t d[32];
    char key[65];
    cuzk_sha256_init(&h);
    cuzk_sha256_update(&h, WC_CACHE_SALT, sizeof WC_CACHE_SALT);
    cuzk_sha256_update(&h, wasm, size);
    cuzk_sha256_update(&h, cuzk_embed_wc_glue_c_in, strlen(cuzk_embed_wc_glue_c_in));
    cuzk_sha256_update(&h, cuzk_embed_wc_abi_h, strlen(cuzk_embed_wc_abi_h));
    for (size_t i = 0; i < sizeof wc_cflags / sizeof *wc_cflags; i++)
        cuzk_sha256_update(&h, wc_cflags[i], strlen(wc_cflags[i]) + 1);
    const char *extra = getenv("CUZK_WC_CFLAGS");
    if (extra)
        cuzk_sha256_update(&h, extra, strlen(extra) + 1);
    cuzk_sha256_final(&h, d);
    cuzk_sha256_to_hex(key, d);

    char dir[4096], obj[4200], lock[4200];
    if ((s = cache_dir(dir, sizeof dir, o, err)) != CUZK_OK)
        return s;
    snprintf(obj, sizeof obj, "%s/%s.so", dir, key);
    if (access(obj, R_OK) == 0)
        return open_object(c, obj, err);

    snprintf(lock, sizeof lock, "%s/%s.lock", dir, key);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return cuzk_fail(err, CUZK_EIO, "%s: %s", lock, strerror(errno));
    while (flock(fd, LOCK_EX) < 0)
        if (errno != EINTR) {
            int e = errno;
            close(fd);
            return cuzk_fail(err, CUZK_EIO, "%s: %s", lock, strerror(e));
        }
    if (access(obj, R_OK) != 0) { /* nobody built it while we waited */
        progress(o, "compiling %s (%.1f MB of wasm) to native code, once for this machine "
                    "(cache: %s)", name, size / 1e6, dir);
        double t0 = now_s();
        s = build_object(dir, key, obj, wasm, size, name, o, err);
        c->compile_s = now_s() - t0;
        if (s == CUZK_OK)
            progress(o, "compiled %s in %.1f s", name, c->compile_s);
    }
    if (s == CUZK_OK)
        s = open_object(c, obj, err);
    flock(fd, LOCK_UN);
    close(fd);
    return s;
}
