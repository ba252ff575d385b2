/*
 * Files named by clients: which ones a request may name, and the check a
 * key file passes before the engine hears of it.
 *
 * Unix-socket clients are local users the socket's mode admits: they may
 * name any file the daemon can read (that is what sharing a machine is
 * for).  A TCP client is anyone with the token, possibly elsewhere: it
 * sends witness bytes and names keys by id, and names files only under
 * the folders of remote_paths, compared after realpath so that links and
 * ".." cannot leave them.  A refused path, an absent file and a file
 * outside the folders get the same answer, so a TCP client learns nothing
 * about which files exist.
 *
 * Fleet job rows are input too (anything that may write the table could
 * have written them), and every node opens the key and circuit paths a
 * row names: so a node applies the TCP rule to them (cuzkd_row_path), and
 * in a fleet a submit may name a key or circuit by path only under
 * remote_paths, whoever sends it, since other nodes will open it.  (A
 * row holds witness bytes, never witness paths: the receiving node reads
 * those files, under the rule of its own client.)
 *
 * A key path is checked here (a regular file that starts like a .zkey)
 * before the engine registers it: the engine's key table keeps every path
 * it was ever given, so "/", /dev/zero or a witness named as a key must
 * never reach it.
 *
 * Must not: open a client's path in a way that can block (FIFOs, devices):
 * open non-blocking and refuse anything but a regular file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/http.h"

/* Is |real| (a resolved path) in one of the folders of |list|? */
static int under_folders(const char *real, const char *list) {
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char dir[PATH_MAX], rdir[PATH_MAX];
        if (n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = 0;
            if (realpath(dir, rdir)) {
                size_t m = strlen(rdir);
                if (m == 1 || (!strncmp(real, rdir, m) && real[m] == '/'))
                    return 1;
            }
        }
        p += n + (e != NULL);
    }
    return 0;
}

/* Is |path| under the folders of remote_paths once resolved? */
static int remote_allowed(const cuzkd_config *cfg, const char *path) {
    const char *allowed = cfg->remote_paths;
    char real[PATH_MAX];
    return allowed && *allowed && realpath(path, real) && under_folders(real, allowed);
}

int cuzkd_path_allowed(cuzkd_request *r, const char *path, const char *what,
                       enum MHD_Result *reply) {
    /* In a fleet a key or circuit path goes into the job row, and every
     * node opens it: the rule of rows (cuzkd_row_path) for every client. */
    int fleet_row = r->srv->fleet && strcmp(what, "witness");
    if (!r->is_tcp && !fleet_row)
        return 1;
    if (remote_allowed(r->srv->cfg, path))
        return 1;
    const char *allowed = r->srv->cfg->remote_paths;
    *reply = http_error(r, 403, "forbidden",
                        "%s %s: %s may name only files under the daemon's "
                        "remote_paths folders%s; %s",
                        what, path,
                        r->is_tcp ? "TCP clients" : "in a fleet (every node opens it), a job",
                        allowed && *allowed ? " (or it does not exist)"
                                            : ", and none are configured",
                        r->is_tcp ? "send the bytes instead (or name a key by its id)"
                                  : "name the key by its id");
    return 0;
}

cuzkd_row_path cuzkd_row_path_check(const cuzkd_config *cfg, const char *path, const char *what,
                                    char *why, size_t n) {
    struct stat st;
    /* stat, not open: a device is never opened to be refused */
    if (path[0] != '/' || stat(path, &st) != 0) {
        snprintf(why, n, "%s %s: no such file here", what, path);
        return ROW_PATH_ABSENT;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s %s is not a regular file", what, path);
        return ROW_PATH_NOT_FILE;
    }
    if (!remote_allowed(cfg, path)) {
        snprintf(why, n, "%s %s is not under this node's remote_paths", what, path);
        return ROW_PATH_FORBIDDEN;
    }
    return ROW_PATH_OK;
}

cuzk_status cuzkd_key_file_check(const char *path, cuzk_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return cuzk_fail(err, errno == ENOENT ? CUZK_ENOTFOUND : CUZK_EINVAL, "key %s: %s", path,
                         strerror(errno));
    struct stat st;
    char magic[4] = {0};
    cuzk_status s = CUZK_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        s = cuzk_fail(err, CUZK_EINVAL, "key %s is not a regular file", path);
    else if (pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic ||
             memcmp(magic, "zkey", 4))
        s = cuzk_fail(err, CUZK_EFORMAT, "key %s is not a .zkey file", path);
    close(fd);
    return s;
}
