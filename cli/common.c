/*
 * The helpers every cuzk command calls: its one-line failure, --help
 * detection, the clock, whether stderr is a terminal, and the whole-file
 * reader.  The bottom of cli/ (docs/INTERNALS.md): nothing here calls a
 * command or main, so a command reads from the top down
 * (tests/test_cli_layers.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cuzk.h"

/* Whether |msg| already names |what| as a word of its own (the library's
 * readers put the path in their messages): then it is not said twice. */
static int names(const char *msg, const char *what) {
    size_t n = strlen(what);
    for (const char *p = msg; n && (p = strstr(p, what)) != NULL; p++)
        if ((p == msg || p[-1] == ' ') && strchr(": )", p[n]) != NULL)
            return 1;
    return 0;
}

int cli_fail(const char *cmd, const char *what, const cuzk_error *err) {
    const char *msg =
        err && err->msg[0] ? err->msg : cuzk_status_text(err ? err->status : CUZK_EINTERNAL);
    if (names(msg, what))
        fprintf(stderr, "cuzk %s: %s\n", cmd, msg);
    else
        fprintf(stderr, "cuzk %s: %s: %s\n", cmd, what, msg);
    return 1;
}

int cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

uint64_t cli_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int cli_stderr_tty(void) { return isatty(2); }

int cli_read_file(const char *path, char **data, size_t *len, cuzk_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_fail(err, CUZK_EIO, "%s: cannot open", path), -1;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = cap < ((size_t)1 << 32) ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        cuzk_fail(err, bad ? CUZK_EIO : CUZK_ENOMEM, "%s: cannot read", path);
        return -1;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}
