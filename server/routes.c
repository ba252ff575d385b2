/*
 * cuzkd's routes (server/http.h): the table of method, path shape, body
 * kind and handler, and the look-up of a request's route (404 for an
 * unknown path, 405 with the methods the path has).  Adding an endpoint
 * is one row here and its handler.
 *
 * Must not: answer requests (http.c does, from what this returns).
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server/front.h"
#include "server/log.h"



/* Routes with a suffix come before the bare {param} route of the same
 * prefix, so ".../result" is never read as a request id. */
static const cuzkd_route routes[] = {
    {"GET", "/", "", 0, BODY_NONE, 1, api_page, NULL},
    {"GET", "/healthz", "", 0, BODY_NONE, 1, api_healthz, NULL},
    {"GET", "/metrics", "", 0, BODY_NONE, 1, api_metrics, NULL},
    {"GET", "/trace", "", 0, BODY_NONE, 0, api_trace, NULL},
    {"GET", "/v1/status", "", 0, BODY_NONE, 1, api_status, NULL},
    {"POST", "/v1/jobs", "", 0, BODY_UPLOAD, 0, api_jobs_submit, api_jobs_submit_precheck},
    {"GET", "/v1/jobs/", "/result", 1, BODY_NONE, 0, api_jobs_result, NULL},
    {"POST", "/v1/jobs/", "/cancel", 1, BODY_NONE, 0, api_jobs_cancel, NULL},
    {"GET", "/v1/jobs/", "", 1, BODY_NONE, 1, api_jobs_status, NULL},
    {"DELETE", "/v1/jobs/", "", 1, BODY_NONE, 0, api_jobs_cancel, NULL},
    {"GET", "/v1/keys", "", 0, BODY_NONE, 1, api_keys_list, NULL},
    {"POST", "/v1/keys", "", 0, BODY_JSON, 0, api_keys_import, NULL},
    {"POST", "/v1/keys/", "/preload", 1, BODY_NONE, 0, api_keys_preload, NULL},
    {"POST", "/v1/keys/", "/evict", 1, BODY_NONE, 0, api_keys_evict, NULL},
    {"GET", "/v1/keys/", "", 1, BODY_NONE, 1, api_keys_get, NULL},
};
#define N_ROUTES (sizeof routes / sizeof routes[0])

/* Does |path| have the shape of |rt|?  Fills |param| (cap bytes). */
static int path_matches(const cuzkd_route *rt, const char *path, char *param, size_t cap) {
    if (!rt->param)
        return !strcmp(path, rt->prefix);
    size_t np = strlen(rt->prefix), ns = strlen(rt->suffix), n = strlen(path);
    if (n <= np + ns || strncmp(path, rt->prefix, np) || strcmp(path + n - ns, rt->suffix))
        return 0;
    size_t len = n - np - ns;
    if (len >= cap)
        return 0;
    memcpy(param, path + np, len);
    param[len] = 0;
    return 1;
}

static int same_shape(const cuzkd_route *a, const cuzkd_route *b) {
    return a->param == b->param && !strcmp(a->prefix, b->prefix) && !strcmp(a->suffix, b->suffix);
}

/* The route for |method| |path|; NULL with |*shape| set when the path
 * exists under other methods (405), NULL with |*shape| NULL if not (404). */
const cuzkd_route *http_route_find(const char *method, const char *path, char *param, size_t cap,
                                     const cuzkd_route **shape) {
    *shape = NULL;
    if (!strcmp(method, "HEAD"))
        method = "GET";
    for (size_t i = 0; i < N_ROUTES; i++) {
        if (!path_matches(&routes[i], path, param, cap))
            continue;
        *shape = &routes[i];
        for (size_t j = i; j < N_ROUTES; j++)
            if (same_shape(&routes[i], &routes[j]) && !strcmp(routes[j].method, method))
                return &routes[j];
        return NULL;
    }
    return NULL;
}

void http_allowed_methods(const cuzkd_route *shape, char *out, size_t cap) {
    out[0] = 0;
    for (size_t j = 0; j < N_ROUTES; j++)
        if (same_shape(shape, &routes[j])) {
            size_t n = strlen(out);
            snprintf(out + n, cap - n, "%s%s", n ? ", " : "", routes[j].method);
        }
}
