/*
 * cuzkd's logger (see log.h).  No lock: each line is built in a stack
 * buffer and handed to one write(2) on stderr, which the kernel keeps whole
 * for pipes up to PIPE_BUF and in practice for files and journald too.
 * Messages carry what clients send (paths, URLs, headers): their control
 * bytes are escaped, so a log line is one line and safe on a terminal.
 */
#define _GNU_SOURCE
#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static _Atomic int log_level = CUZK_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static const char *const level_tags[] = {"ERROR", "WARN", "INFO", "DEBUG"};

void cuzkd_log_set_level(cuzk_log_level level) { atomic_store(&log_level, (int)level); }

int cuzkd_log_enabled(cuzk_log_level level) { return (int)level <= atomic_load(&log_level); }

int cuzkd_log_level_parse(const char *name) {
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(name, level_names[i]))
            return i;
    if (!strcasecmp(name, "warning"))
        return CUZK_LOG_WARN;
    return -1;
}

const char *cuzkd_log_level_name(cuzk_log_level level) {
    return (unsigned)level < 4 ? level_names[level] : "info";
}

/* Writes "2026-12-02T17:00:00.123Z LEVEL sub: " into |buf|; returns its length. */
static int prefix(char *buf, size_t cap, cuzk_log_level level, const char *sub) {
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    return snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s %s: ", tm.tm_year + 1900,
                    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                    ts.tv_nsec / 1000000, level_tags[(unsigned)level < 4 ? level : 2], sub);
}

/* Appends |msg| to |buf| (|n| bytes used of |cap|) with every control
 * byte written as \xHH: C0 controls (newline and carriage return too, so
 * that a file name or a client's header cannot forge a second log line),
 * DEL, and C1 controls in their UTF-8 form (U+0080..U+009F), so that
 * nothing a client sends can move a terminal's cursor or change its
 * colours when the log is read.  Returns the new length; stops short of
 * the end rather than split an escape. */
static size_t append_escaped(char *buf, size_t n, size_t cap, const char *msg) {
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
        if (*p < 0x20 || *p == 0x7f || c1) {
            size_t k = c1 ? 8 : 4;
            if (n + k >= cap)
                break;
            for (int i = 0; i < (c1 ? 2 : 1); i++) {
                buf[n++] = '\\';
                buf[n++] = 'x';
                buf[n++] = hex[p[i] >> 4];
                buf[n++] = hex[p[i] & 15];
            }
            p += c1;
        } else {
            if (n + 1 >= cap)
                break;
            buf[n++] = (char)*p;
        }
    }
    return n;
}

void cuzkd_log(cuzk_log_level level, const char *sub, const char *fmt, ...) {
    if (!cuzkd_log_enabled(level))
        return;
    char msg[2048], buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    int p = prefix(buf, sizeof buf, level, sub);
    size_t n = p < 0 ? 0 : (size_t)p >= sizeof buf - 1 ? sizeof buf - 2 : (size_t)p;
    n = append_escaped(buf, n, sizeof buf - 1, msg); /* room for the newline */
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, n);
    (void)w; /* nowhere to report a failed log write */
}

void cuzkd_log_engine(void *ctx, cuzk_log_level level, const char *line) {
    (void)ctx;
    cuzkd_log(level, "engine", "%s", line);
}
