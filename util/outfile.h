/*
 * Output files: the one way cuzk writes a file that a user named (proofs,
 * public inputs, verification keys, .wtns, .abc, .r1cs, .zkey, traces).
 * Every writer of the library goes through here, so the rules below hold
 * for every command alike.  What the name is decides how it is written:
 *
 *   - a new name, or an existing regular file: the bytes go to a temporary
 *     file in the same folder, made with O_CREAT|O_EXCL|O_NOFOLLOW under an
 *     unpredictable name (a name that exists, a planted symlink included,
 *     is never opened: another name is drawn), mode 0644 less the umask,
 *     then renamed over the name.  A reader sees the old file or the whole
 *     new one; a failure leaves the old one as it was and removes the
 *     temporary file.  There is no fsync: the replacement is atomic for
 *     readers, not durable across a power loss (as before this file existed;
 *     an fsync of a multi-GB key would cost seconds);
 *   - a symlink: followed to its last target (relative links from the
 *     folder of the link), which is then written by these same rules; the
 *     link stays a link and the temporary file is made in the target's
 *     folder.  A dangling link creates its target;
 *   - a character or block device, or a FIFO: written in place (opened
 *     O_WRONLY, never created, truncated, unlinked or renamed over), as
 *     cp(1) or a shell redirection would.  A FIFO is opened without
 *     blocking and retried while no process has it open for reading, for
 *     at most CUZK_OUTFILE_FIFO_WAIT_MS; then "no reader on FIFO <name>".
 *     A reader that goes away mid-write is an error (EPIPE), not a signal
 *     that kills the process;
 *   - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the process's
 *     own descriptor N, written where it stands (a redirection to a file
 *     keeps its offset and its O_APPEND);
 *   - a folder or a socket: an error naming it.
 *
 * Errors are CUZK_EIO (CUZK_ENOMEM for memory) with a message naming the
 * path and the system's reason.  Must not: exit, leave a temporary file
 * behind, or touch what a symlink at a temporary name points to.
 *
 * Thread safety: independent calls may run at once (their temporary names
 * differ); writing one name from two threads at once leaves one of the two
 * complete files.
 */
#ifndef CUZK_UTIL_OUTFILE_H
#define CUZK_UTIL_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/status.h"

/* How long an open for writing waits for a FIFO's reader. */
#define CUZK_OUTFILE_FIFO_WAIT_MS 10000

typedef struct cuzk_outfile {
    int fd;           /* -1 once handed to |f| or closed */
    FILE *f;          /* set by cuzk_outfile_stream */
    int in_place;     /* 1: a device, FIFO or own descriptor: no rename */
    char *target;     /* the name written (symlinks followed); malloc'd */
    char *tmp;        /* the temporary name (NULL in place); malloc'd */
    const char *name; /* as the caller gave it, for messages; borrowed */
} cuzk_outfile;

/*
 * Open |path| for writing by the rules above.
 * Returns: CUZK_OK; CUZK_EIO (folder, socket, no reader on a FIFO, the
 *   folder cannot take a new file, ...); CUZK_ENOMEM.
 * Args: |o| out, holds nothing to release after a failure.  |path| must
 *   outlive |o|.
 */
cuzk_status cuzk_outfile_open(cuzk_outfile *o, const char *path, cuzk_error *err);

/* The same with another bound on the wait for a FIFO's reader (tests). */
cuzk_status cuzk_outfile_open_wait(cuzk_outfile *o, const char *path, unsigned fifo_wait_ms,
                                   cuzk_error *err);

/* Append |size| bytes.  CUZK_EIO on failure (the caller then aborts). */
cuzk_status cuzk_outfile_write(cuzk_outfile *o, const void *data, size_t size,
                               cuzk_error *err);

/* A stdio stream over the file, for writers that stream or seek (the
 * .r1cs generator); the stream belongs to |o| (commit or abort closes it).
 * |seekable| 1 asks for an output that can seek, and refuses a FIFO, a
 * pipe or a terminal with a message saying so.  NULL with |err| filled. */
FILE *cuzk_outfile_stream(cuzk_outfile *o, int seekable, cuzk_error *err);

/* Finish: close, and rename the temporary file over the target.  On
 * failure the temporary file is removed and the target is untouched.
 * |o| holds nothing afterwards, either way. */
cuzk_status cuzk_outfile_commit(cuzk_outfile *o, cuzk_error *err);

/* Give up: close, remove the temporary file.  Safe on a failed open. */
void cuzk_outfile_abort(cuzk_outfile *o);

/* open + write + commit (abort on failure): |size| bytes to |path|. */
cuzk_status cuzk_outfile_write_all(const char *path, const void *data, size_t size,
                                   cuzk_error *err);

/*
 * The temporary-file step alone, exposed for its test: draws names
 * "<dir of target>/.<name of target>.<suffix>.tmp" with |suffix| from
 * |namer| (attempt 0, 1, ...; NULL: random), creating each with
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644 less the umask, until one is new
 * (64 attempts at most).  Returns the descriptor and the name in *|tmp|
 * (malloc'd), or -1 with |err| filled.
 */
typedef void (*cuzk_outfile_namer)(void *ctx, unsigned attempt, char *suffix, size_t n);
int cuzk_outfile_temp_create(const char *target, cuzk_outfile_namer namer, void *ctx,
                             char **tmp, cuzk_error *err);

#endif
