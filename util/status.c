/* Status names and the error-report helper (see status.h). */
#include "util/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *cuzk_status_name(cuzk_status s) {
    switch (s) {
#define CUZK_STATUS_NAME(name, text)                                          \
    case CUZK_##name:                                                         \
        return #name;
        CUZK_STATUS_MAP(CUZK_STATUS_NAME)
#undef CUZK_STATUS_NAME
    }
    return "UNKNOWN";
}

const char *cuzk_status_text(cuzk_status s) {
    switch (s) {
#define CUZK_STATUS_TEXT(name, text)                                          \
    case CUZK_##name:                                                         \
        return text;
        CUZK_STATUS_MAP(CUZK_STATUS_TEXT)
#undef CUZK_STATUS_TEXT
    }
    return "unknown status";
}

cuzk_status cuzk_fail(cuzk_error *err, cuzk_status s, const char *fmt, ...) {
    if (err) {
        va_list ap;
        err->status = s;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

void cuzk_error_clear(cuzk_error *err) {
    if (err) {
        err->status = CUZK_OK;
        err->msg[0] = '\0';
    }
}
