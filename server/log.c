/*
 * cuzkd's logger (see log.h).  No lock: each line is built in a stack
 * buffer and handed to one write(2) on stderr, which the kernel keeps whole
 * for pipes up to PIPE_BUF and in practice for files and journald too.
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

static void emit(char *buf, size_t cap, int n) {
    if (n < 0)
        return;
    if ((size_t)n >= cap - 1) /* truncated: keep the line a line */
        n = (int)cap - 2;
    /* One line is one line: a message with a newline in it (a file name, a
     * client's header) must not forge a second log line. */
    for (int i = 0; i < n; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w; /* nowhere to report a failed log write */
}

void cuzkd_log(cuzk_log_level level, const char *sub, const char *fmt, ...) {
    if (!cuzkd_log_enabled(level))
        return;
    char buf[2048];
    int n = prefix(buf, sizeof buf, level, sub);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    emit(buf, sizeof buf, m < 0 ? n : n + m);
}

void cuzkd_log_engine(void *ctx, cuzk_log_level level, const char *line) {
    (void)ctx;
    cuzkd_log(level, "engine", "%s", line);
}
