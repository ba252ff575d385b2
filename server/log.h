/*
 * cuzkd's logger: one line per event on stderr,
 *
 *   2026-12-02T17:00:00.123Z INFO http: POST /v1/jobs 202 1.2ms client=uid:0
 *
 * (UTC time with milliseconds, level, subsystem, message).  The engine's own
 * lines come through cuzkd_log_engine, so everything the process says has
 * one format.
 *
 * Thread safety: any thread may log at any time.  A line is formatted into
 * a stack buffer and written with one write(2), so lines from different
 * threads never interleave and no lock is taken; the level is checked
 * before anything is formatted.  Must not: allocate, or block on anything
 * but the write itself.
 */
#ifndef CUZKD_LOG_H
#define CUZKD_LOG_H

#include "cuzk.h"

/* Lines above |level| are dropped (default CUZK_LOG_INFO). */
void cuzkd_log_set_level(cuzk_log_level level);
int cuzkd_log_enabled(cuzk_log_level level);

void cuzkd_log(cuzk_log_level level, const char *subsystem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A cuzk_log_fn: the engine's lines, as subsystem "engine". */
void cuzkd_log_engine(void *ctx, cuzk_log_level level, const char *line);

/* "error", "warn", "info", "debug" <-> level; -1 for an unknown name. */
int cuzkd_log_level_parse(const char *name);
const char *cuzkd_log_level_name(cuzk_log_level level);

#define LOG_ERROR(sub, ...) cuzkd_log(CUZK_LOG_ERROR, sub, __VA_ARGS__)
#define LOG_WARN(sub, ...) cuzkd_log(CUZK_LOG_WARN, sub, __VA_ARGS__)
#define LOG_INFO(sub, ...) cuzkd_log(CUZK_LOG_INFO, sub, __VA_ARGS__)
#define LOG_DEBUG(sub, ...) cuzkd_log(CUZK_LOG_DEBUG, sub, __VA_ARGS__)

#endif
