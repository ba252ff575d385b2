/*
 * Files a caller names, read with read(2), never mapped.
 *
 * Why: a daemon reads files its clients name (witnesses, a, b, c images,
 * keys, circuits).  A mapping of such a file kills the whole process with
 * SIGBUS as soon as the client truncates it while it is read, and an
 * open(2) of a FIFO swapped in for it blocks the reading thread for good.
 * Every open here is non-blocking, refuses anything but a regular file
 * (at every open, not only the first: a path can change between two), and
 * every read that comes back short says the file changed while it was
 * read, as an error, instead of faulting.
 *
 * Must not: map a file, follow the caller's errno conventions (errors are
 * cuzk_status codes with a one-line reason naming |what| and the path), or
 * read more than the caller bounded.
 *
 * Thread safety: no state; the functions may be called from any thread.
 */
#ifndef CUZK_UTIL_INFILE_H
#define CUZK_UTIL_INFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

/* An open input file: its descriptor and its size when opened. */
typedef struct cuzk_infile {
    int fd;           /* -1 when closed */
    uint64_t size;    /* bytes, from fstat at open */
    const char *path; /* borrowed, for messages */
    const char *what; /* borrowed: "wtns", "abc", "key", ... */
} cuzk_infile;

/*
 * Open |path| for reading: O_NONBLOCK (a FIFO does not block the caller),
 * O_NOCTTY, close-on-exec; refused unless it is a regular file.
 * Returns: CUZK_OK; CUZK_EIO (cannot open, a missing file included, as
 *   the format readers have always said); CUZK_EINVAL (not a regular file).  |f->fd| is -1 on failure.
 */
cuzk_status cuzk_infile_open(cuzk_infile *f, const char *path, const char *what,
                             cuzk_error *err);

/*
 * Read exactly |n| bytes at |offset| into |dst| (retrying short reads and
 * EINTR).  A read that meets the end of the file before |n| bytes says the
 * file was truncated while it was read: CUZK_EIO, as does a read error.
 */
cuzk_status cuzk_infile_pread(const cuzk_infile *f, void *dst, uint64_t n, uint64_t offset,
                              cuzk_error *err);

/* Close |f| (a closed or zeroed-and-fd=-1 file is fine). */
void cuzk_infile_close(cuzk_infile *f);

/*
 * The whole file at |path| in memory the caller frees (free()), followed
 * by a NUL byte that |*size| does not count (for text readers), refused
 * with CUZK_ERANGE before anything is read when it is larger than |max|
 * bytes, and with CUZK_EFORMAT when it is empty and |nonempty|.  The bytes
 * are those of the size at open: a file that shrinks while it is read is
 * an error (CUZK_EIO), one that grows is read to its size at open.
 */
cuzk_status cuzk_infile_read_all(const char *path, const char *what, uint64_t max, int nonempty,
                                 uint8_t **out, size_t *size, cuzk_error *err);

#endif
