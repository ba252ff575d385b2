/*
 * Output files (see outfile.h for the rules).  The steps: find what the
 * name is (own descriptor, symlinks followed hop by hop, then lstat of the
 * last name), open it the way its kind asks for (a temporary file beside
 * a regular one, the node itself for a device or a FIFO), write, and
 * commit (rename) or abort (unlink).
 *
 * Must not: open a temporary name without O_EXCL|O_NOFOLLOW, create or
 * truncate a device or FIFO, or let SIGPIPE end the process.
 */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/splitmix.h"

#define MAX_LINK_HOPS 40     /* as the kernel's own limit on a path's links */
#define TEMP_ATTEMPTS 64     /* names drawn before giving up */
#define TEMP_BASE_CHARS 200  /* of the target's name kept in the temporary name */
#define FIFO_POLL_NS 20000000L

/* What a name turned out to be. */
enum kind { KIND_NEW, KIND_REGULAR, KIND_DEVICE, KIND_FIFO, KIND_DESCRIPTOR };

/* |path| names one of this process's descriptors: its number, else -1. */
static int own_descriptor(const char *path) {
    if (!strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    const char *num = NULL;
    char self[64];
    snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
    if (!strncmp(path, "/dev/fd/", 8))
        num = path + 8;
    else if (!strncmp(path, "/proc/self/fd/", 14))
        num = path + 14;
    else if (!strncmp(path, self, strlen(self)))
        num = path + strlen(self);
    if (!num || *num < '0' || *num > '9')
        return -1;
    char *end;
    long n = strtol(num, &end, 10);
    return *end == '\0' && n <= INT_MAX ? (int)n : -1;
}

/* The link at |link| points to |to|: the name it means (relative links
 * from the link's folder), malloc'd. */
static char *join_link(const char *link, const char *to) {
    const char *slash = strrchr(link, '/');
    size_t dir = to[0] == '/' || !slash ? 0 : (size_t)(slash - link) + 1;
    char *out = malloc(dir + strlen(to) + 1);
    if (out) {
        memcpy(out, link, dir);
        strcpy(out + dir, to);
    }
    return out;
}

/* Follow |o->name| to what it finally names: o->target (malloc'd) and its
 * kind, or the descriptor number in *fdnum. */
static cuzk_status resolve(cuzk_outfile *o, enum kind *kind, int *fdnum, cuzk_error *err) {
    char *cur = strdup(o->name);
    if (!cur)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a file name");
    for (int hop = 0; hop <= MAX_LINK_HOPS; hop++) {
        struct stat st;
        if ((*fdnum = own_descriptor(cur)) >= 0) {
            o->target = cur, *kind = KIND_DESCRIPTOR;
            return CUZK_OK;
        }
        if (lstat(cur, &st) != 0) {
            if (errno != ENOENT) {
                cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(errno));
                free(cur);
                return CUZK_EIO;
            }
            o->target = cur, *kind = KIND_NEW;
            return CUZK_OK;
        }
        if (!S_ISLNK(st.st_mode)) {
            const char *why = NULL;
            if (S_ISREG(st.st_mode))
                *kind = KIND_REGULAR;
            else if (S_ISFIFO(st.st_mode))
                *kind = KIND_FIFO;
            else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
                *kind = KIND_DEVICE;
            else
                why = S_ISDIR(st.st_mode)    ? "it is a folder"
                      : S_ISSOCK(st.st_mode) ? "it is a socket"
                                             : "it is not a file, a device or a FIFO";
            if (!why) {
                o->target = cur;
                return CUZK_OK;
            }
            free(cur);
            return cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, why);
        }
        char to[PATH_MAX];
        ssize_t n = readlink(cur, to, sizeof to - 1);
        char *next = NULL;
        if (n >= 0) {
            to[n] = '\0';
            next = join_link(cur, to);
        }
        int e = n < 0 ? errno : ENOMEM;
        free(cur);
        if (!next)
            return cuzk_fail(err, e == ENOMEM ? CUZK_ENOMEM : CUZK_EIO,
                             "cannot follow the link %s: %s", o->name, strerror(e));
        cur = next;
    }
    free(cur);
    return cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(ELOOP));
}

/* A random suffix: the kernel's generator, else the clock and the pid
 * mixed (the names then are guessable, which O_EXCL makes harmless). */
static void random_suffix(void *ctx, unsigned attempt, char *suffix, size_t n) {
    (void)ctx;
    uint64_t v;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                     ((uint64_t)getpid() << 16) ^ attempt;
        v = cuzk_splitmix64(&s);
    }
    snprintf(suffix, n, "%016llx", (unsigned long long)v);
}

static cuzk_status temp_create(const char *target, cuzk_outfile_namer namer, void *ctx,
                               char **tmp, int *fd, cuzk_error *err) {
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dir;
    size_t base_len = strnlen(base, TEMP_BASE_CHARS);
    if (base_len == 0)
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: it names a folder", target);
    size_t cap = dir + base_len + 80;
    char *name = malloc(cap);
    if (!name)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a file name");
    int e = EEXIST;
    for (unsigned a = 0; a < TEMP_ATTEMPTS && e == EEXIST; a++) {
        char suffix[48];
        (namer ? namer : random_suffix)(ctx, a, suffix, sizeof suffix);
        snprintf(name, cap, "%.*s.%.*s.%s.tmp", (int)dir, target, (int)base_len, base, suffix);
        *fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (*fd >= 0) {
            *tmp = name;
            return CUZK_OK;
        }
        e = errno;
    }
    free(name);
    if (!dir)
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: cannot create a file in the current "
                         "folder: %s", target, strerror(e));
    return cuzk_fail(err, CUZK_EIO, "cannot write %s: cannot create a file in %.*s: %s", target,
                     (int)(dir > 1 ? dir - 1 : dir), target, strerror(e));
}

int cuzk_outfile_temp_create(const char *target, cuzk_outfile_namer namer, void *ctx,
                             char **tmp, cuzk_error *err) {
    int fd = -1;
    *tmp = NULL;
    return temp_create(target, namer, ctx, tmp, &fd, err) == CUZK_OK ? fd : -1;
}

/* Open an existing FIFO for writing once a reader has it open, waiting
 * up to |wait_ms| (ENXIO: none yet). */
static int open_fifo(const char *path, unsigned wait_ms) {
    struct timespec poll = {0, FIFO_POLL_NS};
    uint64_t waited_ns = 0;
    for (;;) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0) {
            int fl = fcntl(fd, F_GETFL);
            if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
                int e = errno;
                close(fd);
                errno = e;
                return -1;
            }
            return fd;
        }
        if (errno == EINTR)
            continue;
        if (errno != ENXIO || waited_ns >= (uint64_t)wait_ms * 1000000u)
            return -1;
        nanosleep(&poll, NULL);
        waited_ns += FIFO_POLL_NS;
    }
}

/* Open the node itself (device or FIFO) and check that it still is one:
 * O_NOFOLLOW and the fstat keep a name swapped since the lstat from
 * redirecting the write into a regular file. */
static cuzk_status open_in_place(cuzk_outfile *o, enum kind kind, unsigned wait_ms,
                                 cuzk_error *err) {
    int fd = kind == KIND_FIFO
                 ? open_fifo(o->target, wait_ms)
                 : open(o->target, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (kind == KIND_FIFO && errno == ENXIO)
            return cuzk_fail(err, CUZK_EIO, "no reader on FIFO %s (waited %.1f s)", o->target,
                             wait_ms / 1000.0);
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
        close(fd);
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: it changed while being opened",
                         o->name);
    }
    o->fd = fd;
    o->in_place = 1;
    return CUZK_OK;
}

/* A duplicate of descriptor |n|, if it is open for writing. */
static cuzk_status open_descriptor(cuzk_outfile *o, int n, cuzk_error *err) {
    int fl = fcntl(n, F_GETFL);
    if (fl < 0)
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: descriptor %d is not open", o->name, n);
    if ((fl & O_ACCMODE) == O_RDONLY)
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: descriptor %d is open for reading only",
                         o->name, n);
    if ((o->fd = fcntl(n, F_DUPFD_CLOEXEC, 3)) < 0)
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(errno));
    o->in_place = 1;
    return CUZK_OK;
}

cuzk_status cuzk_outfile_open_wait(cuzk_outfile *o, const char *path, unsigned fifo_wait_ms,
                                   cuzk_error *err) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->name = path;
    enum kind kind;
    int fdnum = -1;
    cuzk_status s = resolve(o, &kind, &fdnum, err);
    if (s == CUZK_OK) {
        if (kind == KIND_DESCRIPTOR)
            s = open_descriptor(o, fdnum, err);
        else if (kind == KIND_FIFO || kind == KIND_DEVICE)
            s = open_in_place(o, kind, fifo_wait_ms, err);
        else
            s = temp_create(o->target, NULL, NULL, &o->tmp, &o->fd, err);
    }
    if (s != CUZK_OK) {
        free(o->target);
        o->target = NULL;
    }
    return s;
}

cuzk_status cuzk_outfile_open(cuzk_outfile *o, const char *path, cuzk_error *err) {
    return cuzk_outfile_open_wait(o, path, CUZK_OUTFILE_FIFO_WAIT_MS, err);
}

/* write(2) until done; SIGPIPE is held back (and a pending one of our own
 * making taken away) so that a reader gone away is EPIPE, not death. */
static int write_fd(int fd, const uint8_t *p, size_t n) {
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE) == 1;
    int e = 0;
    while (n > 0) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        p += w, n -= (size_t)w;
    }
    if (e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return e ? -1 : 0;
}

cuzk_status cuzk_outfile_write(cuzk_outfile *o, const void *data, size_t size,
                               cuzk_error *err) {
    if (o->f) {
        if (fwrite(data, 1, size, o->f) != size)
            return cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(errno));
        return CUZK_OK;
    }
    if (write_fd(o->fd, data, size) != 0)
        return cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name,
                         errno == EPIPE ? "the reader closed it" : strerror(errno));
    return CUZK_OK;
}

FILE *cuzk_outfile_stream(cuzk_outfile *o, int seekable, cuzk_error *err) {
    if (seekable && lseek(o->fd, 0, SEEK_CUR) < 0) {
        cuzk_fail(err, CUZK_EIO, "cannot write %s: this file is written in two passes and %s",
                  o->name, "a FIFO, pipe or terminal cannot go back (write it to a file)");
        return NULL;
    }
    if (!(o->f = fdopen(o->fd, "wb"))) {
        cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(errno));
        return NULL;
    }
    o->fd = -1;
    return o->f;
}

/* Close what is open; 0, or the errno of a failed flush or close. */
static int close_all(cuzk_outfile *o) {
    int e = 0;
    if (o->f) {
        if (fflush(o->f) != 0 || ferror(o->f))
            e = errno ? errno : EIO;
        if (fclose(o->f) != 0 && !e)
            e = errno;
        o->f = NULL;
    }
    if (o->fd >= 0) {
        if (close(o->fd) != 0 && errno != EINTR)
            e = errno;
        o->fd = -1;
    }
    return e;
}

static void release(cuzk_outfile *o) {
    free(o->target);
    free(o->tmp);
    o->target = o->tmp = NULL;
}

cuzk_status cuzk_outfile_commit(cuzk_outfile *o, cuzk_error *err) {
    errno = 0;
    int e = close_all(o);
    if (!e && o->tmp && rename(o->tmp, o->target) != 0)
        e = errno;
    if (e) {
        if (o->tmp)
            unlink(o->tmp);
        cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", o->name, strerror(e));
    }
    release(o);
    return e ? CUZK_EIO : CUZK_OK;
}

void cuzk_outfile_abort(cuzk_outfile *o) {
    close_all(o);
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}

cuzk_status cuzk_outfile_write_all(const char *path, const void *data, size_t size,
                                   cuzk_error *err) {
    cuzk_outfile o;
    cuzk_status s = cuzk_outfile_open(&o, path, err);
    if (s != CUZK_OK)
        return s;
    if ((s = cuzk_outfile_write(&o, data, size, err)) != CUZK_OK) {
        cuzk_outfile_abort(&o);
        return s;
    }
    return cuzk_outfile_commit(&o, err);
}
