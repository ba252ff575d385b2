/*
 * Files a caller names, read without mapping them (see infile.h).
 */
#define _GNU_SOURCE
#include "util/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

cuzk_status cuzk_infile_open(cuzk_infile *f, const char *path, const char *what,
                             cuzk_error *err) {
    f->fd = -1;
    f->size = 0;
    f->path = path;
    f->what = what;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        return cuzk_fail(err, CUZK_EIO, "%s: cannot open %s: %s", what, path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_fail(err, CUZK_EINVAL, "%s: %s is not a regular file", what, path);
    }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return CUZK_OK;
}

cuzk_status cuzk_infile_pread(const cuzk_infile *f, void *dst, uint64_t n, uint64_t offset,
                              cuzk_error *err) {
    uint8_t *p = dst;
    uint64_t done = 0;
    while (done < n) {
        /* at most 1 GiB a call: Linux reads at most 0x7ffff000 bytes */
        size_t ask = n - done > (1u << 30) ? (1u << 30) : (size_t)(n - done);
        ssize_t got = pread(f->fd, p + done, ask, (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return cuzk_fail(err, CUZK_EIO, "%s: cannot read %s: %s", f->what, f->path,
                             strerror(errno));
        if (got == 0)
            return cuzk_fail(err, CUZK_EIO,
                             "%s: %s ends at byte %llu, %llu bytes were expected: it was "
                             "truncated while it was read",
                             f->what, f->path, (unsigned long long)(offset + done),
                             (unsigned long long)(offset + n));
        done += (uint64_t)got;
    }
    return CUZK_OK;
}

void cuzk_infile_close(cuzk_infile *f) {
    if (f && f->fd >= 0) {
        close(f->fd);
        f->fd = -1;
    }
}

cuzk_status cuzk_infile_read_all(const char *path, const char *what, uint64_t max, int nonempty,
                                 uint8_t **out, size_t *size, cuzk_error *err) {
    cuzk_infile f;
    *out = NULL;
    *size = 0;
    cuzk_status s = cuzk_infile_open(&f, path, what, err);
    if (s != CUZK_OK)
        return s;
    if (f.size > max || f.size > SIZE_MAX - 1)
        s = cuzk_fail(err, CUZK_ERANGE, "%s: %s has %llu bytes, more than the limit of %llu",
                      what, path, (unsigned long long)f.size, (unsigned long long)max);
    else if (f.size == 0 && nonempty)
        s = cuzk_fail(err, CUZK_EFORMAT, "%s: %s is empty", what, path);
    uint8_t *buf = NULL;
    /* one byte more, for the NUL that text readers want */
    if (s == CUZK_OK && !(buf = malloc((size_t)f.size + 1)))
        s = cuzk_fail(err, CUZK_ENOMEM, "%s: no memory for the %llu bytes of %s", what,
                      (unsigned long long)f.size, path);
    if (s == CUZK_OK)
        s = cuzk_infile_pread(&f, buf, f.size, 0, err);
    cuzk_infile_close(&f);
    if (s != CUZK_OK) {
        free(buf);
        return s;
    }
    buf[f.size] = 0;
    *out = buf;
    *size = (size_t)f.size;
    return CUZK_OK;
}
