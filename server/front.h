/*
 * The TCP front door (front.c): new TCP connections wait in one epoll
 * thread, holding no thread of their own, until their request head has
 * arrived; then they are handed to libmicrohttpd.
 *
 * Must not: be used for a daemon that accepts on its own listening socket
 * (the daemon is started with MHD_USE_NO_LISTEN_SOCKET).
 */
#ifndef CUZKD_FRONT_H
#define CUZKD_FRONT_H

#include <microhttpd.h>

#include "cuzk.h"

typedef struct cuzkd_front cuzkd_front;

/* Whether the |n| bytes at |p| hold a whole request head: a line, then an
 * empty one (CRLF or bare LF), empty lines before the first not counted. */
int cuzkd_head_complete(const char *p, size_t n);

/* Accept on |listen_fd| (non-blocking; stays the caller's) and hand each
 * connection to |d| once its head is whole and one of |d|'s |limit|
 * connection threads is free.  A connection has |timeout_s| to send its
 * head, then |ready_timeout_s| more to be given a thread; an address may
 * have |per_ip| waiting (0: no limit). */
cuzk_status cuzkd_front_start(cuzkd_front **out, int listen_fd, struct MHD_Daemon *d,
                              unsigned timeout_s, unsigned ready_timeout_s, unsigned per_ip,
                              unsigned limit, cuzk_error *err);
/* Stop accepting and close the connections still waiting (NULL: nothing).
 * Call before stopping |d|. */
void cuzkd_front_stop(cuzkd_front *fr);

#endif
