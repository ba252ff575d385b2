/* The output-file rules of util/outfile.h, in a private folder:
 *  - the temporary file is made with O_CREAT|O_EXCL|O_NOFOLLOW: with its
 *    first names taken by a symlink to a victim file and by a regular
 *    file (the names are injected, the real ones being random), it skips
 *    both, leaves the victim and the planted file as they were, and
 *    creates the third name with mode 0644 less the umask (two umasks);
 *  - a new name, an existing file (replaced, mode 0644 less the umask), a
 *    symlink (its target replaced, the link kept), a relative symlink, a
 *    chain of two and a dangling one (the target created);
 *  - a folder, a socket, a missing folder, a loop of links: errors naming
 *    the path, the old file untouched, no temporary file left;
 *  - a FIFO with a reader gets the bytes and stays a FIFO; without one the
 *    open fails after the bounded wait with "no reader on FIFO";
 *  - a reader that closes mid-write is an error (EPIPE), not a SIGPIPE;
 *  - /dev/fd/N writes into descriptor N (a pipe here).
 * Devices are covered by tests/test_outputs.sh (mknod needs root). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "util/outfile.h"

static char dir[64];

static const char *at(const char *name) {
    static char buf[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The file's text (up to 255 bytes), "" when it cannot be read. */
static const char *text_of(const char *path) {
    static char buf[256];
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}

/* Entries of the folder whose name ends in ".tmp". */
static int temp_files(void) {
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        n += l > 4 && !strcmp(e->d_name + l - 4, ".tmp");
    }
    if (d)
        closedir(d);
    return n;
}

static void namer(void *ctx, unsigned attempt, char *suffix, size_t n) {
    (void)ctx;
    snprintf(suffix, n, "%c", 'A' + attempt);
}

static void check_temp_create(mode_t mask) {
    put(at("victim"), "victim");
    unlink(at(".out.A.tmp"));
    unlink(at(".out.B.tmp"));
    unlink(at(".out.C.tmp"));
    CHECK(symlink(at("victim"), at(".out.A.tmp")) == 0, "plant a symlink");
    put(at(".out.B.tmp"), "planted");
    mode_t old = umask(mask);
    char *tmp = NULL;
    cuzk_error err = {0};
    int fd = cuzk_outfile_temp_create(at("out"), namer, NULL, &tmp, &err);
    umask(old);
    CHECK(fd >= 0, "temp create: %s", err.msg);
    CHECK(tmp && !strcmp(tmp, at(".out.C.tmp")), "temp name %s", tmp ? tmp : "(none)");
    if (fd >= 0) {
        CHECK(write(fd, "new", 3) == 3, "write the temporary file");
        close(fd);
    }
    struct stat st;
    CHECK(lstat(at(".out.C.tmp"), &st) == 0 && S_ISREG(st.st_mode) &&
              (st.st_mode & 0777) == (0644 & ~mask),
          "temporary file mode %o with umask %o", (unsigned)(st.st_mode & 0777), (unsigned)mask);
    CHECK(!strcmp(text_of(at("victim")), "victim"), "victim written through a planted link");
    CHECK(lstat(at(".out.A.tmp"), &st) == 0 && S_ISLNK(st.st_mode), "planted link replaced");
    CHECK(!strcmp(text_of(at(".out.B.tmp")), "planted"), "planted file written");
    free(tmp);
    unlink(at(".out.A.tmp"));
    unlink(at(".out.B.tmp"));
    unlink(at(".out.C.tmp"));
}

/* write_all |text| to |name| must fail with a message containing |want|,
 * leaving no temporary file. */
static void check_refused(const char *path, const char *want) {
    cuzk_error err = {0};
    cuzk_status s = cuzk_outfile_write_all(path, "x", 1, &err);
    CHECK(s == CUZK_EIO && strstr(err.msg, want) && strstr(err.msg, path),
          "%s: status %d, message '%s' (wanted '%s')", path, s, err.msg, want);
    CHECK(temp_files() == 0, "%s: a temporary file was left", path);
}

static int check_ok(const char *path, const char *text) {
    cuzk_error err = {0};
    int ok = cuzk_outfile_write_all(path, text, strlen(text), &err) == CUZK_OK;
    CHECK(ok, "%s: %s", path, err.msg);
    return ok;
}

static void check_names(void) {
    struct stat st;
    check_ok(at("new"), "one");
    CHECK(!strcmp(text_of(at("new")), "one"), "new file");
    mode_t old = umask(027);
    check_ok(at("new"), "two");
    umask(old);
    CHECK(!strcmp(text_of(at("new")), "two"), "file replaced");
    CHECK(stat(at("new"), &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o under umask 027",
          (unsigned)(st.st_mode & 0777));
    /* links: absolute, relative, a chain, dangling */
    put(at("target"), "old");
    CHECK(symlink(at("target"), at("link")) == 0 && symlink("link", at("link2")) == 0 &&
              symlink("nowhere", at("dangling")) == 0,
          "make links");
    check_ok(at("link"), "via link");
    CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode), "link is still a link");
    CHECK(!strcmp(text_of(at("target")), "via link"), "link target written");
    check_ok(at("link2"), "via chain");
    CHECK(lstat(at("link2"), &st) == 0 && S_ISLNK(st.st_mode) &&
              !strcmp(text_of(at("target")), "via chain"),
          "chain of links");
    check_ok(at("dangling"), "made");
    CHECK(lstat(at("dangling"), &st) == 0 && S_ISLNK(st.st_mode) &&
              !strcmp(text_of(at("nowhere")), "made"),
          "dangling link: its target created");
    CHECK(temp_files() == 0, "a temporary file was left");
    /* refusals */
    CHECK(mkdir(at("sub"), 0755) == 0, "mkdir");
    check_refused(at("sub"), "it is a folder");
    check_refused(at("missing/out"), "No such file or directory");
    CHECK(symlink("loop2", at("loop1")) == 0 && symlink("loop1", at("loop2")) == 0, "loop");
    check_refused(at("loop1"), "Too many levels of symbolic links");
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
    CHECK(sfd >= 0 && bind(sfd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind a socket");
    check_refused(at("sock"), "it is a socket");
    close(sfd);
}

/* A child reads the FIFO into |got|; the parent writes into it. */
static void check_fifo(void) {
    const char *fifo = at("fifo");
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    pid_t pid = fork();
    if (pid == 0) {
        int in = open(fifo, O_RDONLY), out = open(at("got"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char b[256];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, b, sizeof b)) > 0)
            if (write(out, b, (size_t)n) != n)
                _exit(1);
        _exit(0);
    }
    if (!check_ok(fifo, "through the fifo"))
        kill(pid, SIGKILL); /* it would wait for a writer forever */
    int status;
    waitpid(pid, &status, 0);
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    CHECK(!strcmp(text_of(at("got")), "through the fifo"), "reader got '%s'", text_of(at("got")));
    /* no reader: a bounded wait, then the reason */
    cuzk_outfile o;
    cuzk_error err = {0};
    cuzk_status s = cuzk_outfile_open_wait(&o, fifo, 200, &err);
    CHECK(s == CUZK_EIO && strstr(err.msg, "no reader on FIFO") && strstr(err.msg, fifo),
          "FIFO without a reader: %d '%s'", s, err.msg);
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
}

/* A reader that goes away: EPIPE, and no SIGPIPE reaches the process. */
static void check_epipe(void) {
    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", p[1]);
    static char big[1 << 20];
    cuzk_outfile o;
    cuzk_error err = {0};
    CHECK(cuzk_outfile_open(&o, name, &err) == CUZK_OK, "open %s: %s", name, err.msg);
    close(p[0]);
    cuzk_status s = cuzk_outfile_write(&o, big, sizeof big, &err);
    CHECK(s == CUZK_EIO && strstr(err.msg, "the reader closed it"), "EPIPE: %d '%s'", s, err.msg);
    cuzk_outfile_abort(&o);
    sigset_t pending;
    sigpending(&pending);
    CHECK(!sigismember(&pending, SIGPIPE), "a SIGPIPE is left pending");
    close(p[1]);
    /* /dev/fd/N into a pipe that is read */
    CHECK(pipe(p) == 0, "pipe");
    snprintf(name, sizeof name, "/dev/fd/%d", p[1]);
    check_ok(name, "down the pipe");
    close(p[1]);
    char b[64] = {0};
    CHECK(read(p[0], b, sizeof b - 1) == 13 && !strcmp(b, "down the pipe"), "pipe read '%s'", b);
    close(p[0]);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "outfile");
    snprintf(dir, sizeof dir, "/tmp/cuzk-outfile-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    check_temp_create(022);
    check_temp_create(077);
    check_names();
    check_fifo();
    check_epipe();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return tu_finish();
}
