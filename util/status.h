/*
 * Status codes and error reports shared by every layer.
 *
 * Anything that can fail returns a cuzk_status and, when the caller passes a
 * cuzk_error, writes a one-line human-readable reason into it.  The codes and
 * their names come from one list (CUZK_STATUS_MAP) so the enum and the text
 * cannot drift apart.  Library code never exits or aborts on bad input.
 */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#include <stddef.h>

#define CUZK_STATUS_MAP(X)                                                    \
    X(OK, "ok")                                                               \
    X(EINVAL, "invalid argument")                                             \
    X(EFORMAT, "malformed input")                                             \
    X(ERANGE, "value out of range")                                           \
    X(ENOTONCURVE, "point is not on the curve")                               \
    X(ENOTINSUBGROUP, "point is not in the prime-order subgroup")             \
    X(ECURVE, "curve mismatch")                                               \
    X(EMISMATCH, "inputs do not belong together")                             \
    X(EIO, "input/output error")                                              \
    X(ENOMEM, "out of memory")                                                \
    X(EUNSUPPORTED, "unsupported")                                            \
    X(EVERIFY, "verification failed")                                         \
    X(EGPU, "GPU error")                                                      \
    X(ECANCELLED, "cancelled")                                                \
    X(ETIMEOUT, "timed out")                                                  \
    X(EBUSY, "busy")                                                          \
    X(ENOTFOUND, "not found")                                                 \
    X(EINTERNAL, "internal error")

typedef enum {
#define CUZK_STATUS_ENUM(name, text) CUZK_##name,
    CUZK_STATUS_MAP(CUZK_STATUS_ENUM)
#undef CUZK_STATUS_ENUM
} cuzk_status;

#define CUZK_ERROR_MSG_BYTES 256

/* Detail of a failure, filled by the callee.  |status| repeats the return. */
typedef struct cuzk_error {
    cuzk_status status;
    char msg[CUZK_ERROR_MSG_BYTES];
} cuzk_error;

/* Short name of a status ("EFORMAT") and its description. Never NULL. */
const char *cuzk_status_name(cuzk_status s);
const char *cuzk_status_text(cuzk_status s);

/*
 * Record |s| and a printf-style reason in |err| (which may be NULL) and
 * return |s|, so a failing path reads `return cuzk_fail(err, CUZK_EFORMAT,
 * "...")`.
 */
cuzk_status cuzk_fail(cuzk_error *err, cuzk_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reset |err| to OK with an empty message. */
void cuzk_error_clear(cuzk_error *err);

#endif
