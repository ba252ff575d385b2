/*
 * The TCP front door (front.h): connections wait here, without a thread,
 * until their request head has arrived; only then are they handed to
 * libmicrohttpd, which serves each on a thread of its own.
 *
 * Why.  libmicrohttpd gives every connection a thread from its first
 * byte, so that a handler may block (a result wait, a key load) without
 * holding up anyone else.  A connection whose head never completes then
 * holds a thread too: request_timeout_s cuts each off, but clients from
 * 20 addresses, 16 connections each, trickling their heads and opening
 * new connections as the old are cut, kept all `threads` connections of
 * the listener busy, and authorised clients were refused.  nginx reads
 * heads in an event loop, with no thread per connection and a deadline
 * for the head (client_header_timeout); FreeBSD's accf_http filter keeps
 * a connection in the kernel until its head has come.  This is that
 * filter: one thread waits on every new connection with epoll, looks at
 * what has arrived with MSG_PEEK (nothing is consumed, so libmicrohttpd
 * reads the request whole), and hands the connection over
 * (MHD_add_connection) once a blank line ends the head.
 *
 * Limits.  A connection has request_timeout_s, from its opening, to send
 * its head; then it is closed without an answer.  One address may have
 * max_connections_per_ip waiting (further ones are closed at once; the
 * per-address limit of libmicrohttpd counts those handed over), and at
 * most FRONT_MAX wait in all: a new one beyond closes the oldest waiting,
 * since a client that is served sends its head within a round trip.  A
 * connection whose head is whole while every connection thread of
 * libmicrohttpd is taken (`threads`) waits here for one, oldest first, up
 * to connection_timeout_s; it is not closed at once.  A
 * head larger than HEAD_MAX is answered 431 and closed.  A connection is
 * peeked at most once per SCAN_GAP_NS (its head is copied whole each
 * time), so a client sending a byte per packet costs little.  Out of
 * descriptors, the oldest waiting connection is closed to make room.
 *
 * Must not: read a byte of a connection it hands over (it only peeks);
 * block (every socket is non-blocking, one thread); touch a connection
 * after handing it over (libmicrohttpd owns and closes it).
 */
#define _GNU_SOURCE
#include "server/front.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/log.h"

/* Connections waiting for their head, at most. */
#define FRONT_MAX 4096
/* The largest request head taken (nginx takes 4 lines of 8 KiB). */
#define HEAD_MAX ((size_t)32 << 10)
/* A connection's head is looked at no more often than this. */
#define SCAN_GAP_NS 20000000ULL
/* The thread's tick: deadlines and deferred looks. */
#define TICK_MS 50
/* Connections closed for a late head are logged once per this long. */
#define LOG_EVERY_NS (10ULL * 1000000000ULL)

typedef struct waiting {
    int fd;
    struct sockaddr_storage sa;
    socklen_t salen;
    uint64_t deadline_ns, last_look_ns;
    int deferred; /* bytes came while a look was not due */
    int ready;    /* its head is whole; waiting for a connection thread */
    struct waiting *prev, *next;
} waiting;

struct cuzkd_front {
    int listen_fd, ep, wake[2];
    struct MHD_Daemon *d;
    uint64_t timeout_ns, ready_timeout_ns;
    unsigned per_ip, limit; /* limit: libmicrohttpd's connections (threads) */
    unsigned added;         /* handed over since the last tick (not yet counted by it) */
    pthread_t thread;
    int started;
    waiting *head, *tail; /* oldest first */
    unsigned n;
    uint64_t late, last_log_ns; /* closed for a late head, since the last log line */
    uint64_t unserved;          /* whole heads closed unserved (no thread within their wait) */
    uint64_t evicted;
    int paused; /* accepting paused: out of descriptors */
};

static void unlink_w(cuzkd_front *fr, waiting *w) {
    if (w->prev)
        w->prev->next = w->next;
    else
        fr->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        fr->tail = w->prev;
    fr->n--;
    epoll_ctl(fr->ep, EPOLL_CTL_DEL, w->fd, NULL);
}

static void drop(cuzkd_front *fr, waiting *w) {
    unlink_w(fr, w);
    close(w->fd);
    free(w);
}

static int same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
    return 0;
}

/* Has |n| bytes of |p| a whole request head: a line, then an empty one
 * (CRLF or bare LF, as libmicrohttpd reads them)?  Empty lines before
 * the request line do not count (RFC 9112 section 2.2). */
int cuzkd_head_complete(const char *p, size_t n) {
    size_t i = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n'))
        i++;
    for (; i < n; i++) {
        if (p[i] != '\n')
            continue;
        if (i + 1 < n && p[i + 1] == '\n')
            return 1;
        if (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n')
            return 1;
    }
    return 0;
}

static void refuse_large(cuzkd_front *fr, waiting *w) {
    static const char body[] = "{\"error\":\"request head larger than 32 KiB\","
                               "\"code\":\"header_too_large\"}\n";
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     sizeof body - 1, body);
    ssize_t sent = send(w->fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)sent; /* best effort: the client is closed either way */
    LOG_INFO("http", "connection closed: request head over %zu bytes (431)", HEAD_MAX);
    shutdown(w->fd, SHUT_RDWR);
    drop(fr, w);
}

/* Whether libmicrohttpd has a connection thread free.  It counts a
 * connection handed over from this thread only once its own thread has
 * taken it in, so those handed over since the last tick count too (its
 * limit is set above `threads`, so that a late count never refuses one). */
static int room(cuzkd_front *fr) {
    const union MHD_DaemonInfo *i =
        MHD_get_daemon_info(fr->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    unsigned have = i ? i->num_connections : 0;
    return have + fr->added < fr->limit;
}

static void hand_over(cuzkd_front *fr, waiting *w) {
    unlink_w(fr, w);
    fr->added++;
    /* libmicrohttpd owns the socket from here, and closes it on failure */
    if (MHD_add_connection(fr->d, w->fd, (const struct sockaddr *)&w->sa, w->salen) != MHD_YES)
        LOG_DEBUG("http", "connection refused by the server: %s", strerror(errno));
    free(w);
}

/* Hand over connections whose head is whole, oldest first, while threads
 * are free.  Under load (every core busy, requests slow) the threads can
 * all be taken: a client that has sent its whole request then waits its
 * turn here, up to connection_timeout_s, instead of being closed at once
 * (150 clients at once beside a CPU hog were a third refused). */
static void serve_ready(cuzkd_front *fr) {
    for (waiting *w = fr->head, *next; w && room(fr); w = next) {
        next = w->next;
        if (w->ready)
            hand_over(fr, w);
    }
}

/* Look at what |w| has sent: hand it over once its head is whole. */
static void look(cuzkd_front *fr, waiting *w, uint64_t now) {
    if (w->ready)
        return; /* nothing more to look at: it waits for a thread */
    int avail = 0;
    if (ioctl(w->fd, FIONREAD, &avail) != 0)
        avail = 0;
    if (avail <= 0) {
        char c;
        ssize_t r = recv(w->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            drop(fr, w); /* the client closed, or the connection broke */
        return;
    }
    if (now - w->last_look_ns < SCAN_GAP_NS) {
        w->deferred = 1;
        return;
    }
    w->last_look_ns = now;
    w->deferred = 0;
    static char buf[HEAD_MAX];
    size_t want = (size_t)avail < HEAD_MAX ? (size_t)avail : HEAD_MAX;
    ssize_t got = recv(w->fd, buf, want, MSG_PEEK | MSG_DONTWAIT);
    if (got <= 0)
        return;
    if (cuzkd_head_complete(buf, (size_t)got)) {
        if (room(fr)) {
            hand_over(fr, w);
            return;
        }
        w->ready = 1;
        w->deadline_ns = now + fr->ready_timeout_ns;
    } else if ((size_t)got >= HEAD_MAX) {
        refuse_large(fr, w);
    }
}

static void accept_all(cuzkd_front *fr, uint64_t now) {
    for (;;) {
        waiting *w = calloc(1, sizeof *w);
        if (!w)
            return;
        w->salen = sizeof w->sa;
        w->fd = accept4(fr->listen_fd, (struct sockaddr *)&w->sa, &w->salen,
                        SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (w->fd < 0) {
            int e = errno;
            free(w);
            if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM)
                return; /* EAGAIN: all taken; anything else: try at the next event */
            /* Out of descriptors: the oldest waiting connection makes room;
             * with none waiting, accepting pauses until the next tick (the
             * listening socket stays readable: no busy loop). */
            if (fr->head) {
                fr->evicted++;
                drop(fr, fr->head);
                continue;
            }
            struct epoll_event ev = {.events = 0, .data.ptr = fr};
            if (epoll_ctl(fr->ep, EPOLL_CTL_MOD, fr->listen_fd, &ev) == 0)
                fr->paused = 1;
            return;
        }
        unsigned same = 0;
        for (waiting *o = fr->head; o && fr->per_ip; o = o->next)
            same += same_address(&o->sa, &w->sa);
        if (fr->per_ip && same >= fr->per_ip) {
            close(w->fd);
            free(w);
            continue;
        }
        if (fr->n >= FRONT_MAX) {
            fr->evicted++;
            drop(fr, fr->head);
        }
        w->deadline_ns = now + fr->timeout_ns;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = w};
        if (epoll_ctl(fr->ep, EPOLL_CTL_ADD, w->fd, &ev) != 0) {
            close(w->fd);
            free(w);
            continue;
        }
        w->prev = fr->tail;
        if (fr->tail)
            fr->tail->next = w;
        else
            fr->head = w;
        fr->tail = w;
        fr->n++;
        look(fr, w, now); /* the head may have come with the handshake */
    }
}

/* Deadlines, deferred looks, and the log line for connections cut off. */
static void tick(cuzkd_front *fr, uint64_t now) {
    fr->added = 0;
    if (fr->paused) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = fr};
        if (epoll_ctl(fr->ep, EPOLL_CTL_MOD, fr->listen_fd, &ev) == 0)
            fr->paused = 0;
    }
    serve_ready(fr);
    for (waiting *w = fr->head, *next; w; w = next) {
        next = w->next;
        if (now > w->deadline_ns) {
            if (w->ready)
                fr->unserved++;
            else
                fr->late++;
            drop(fr, w);
        } else if (w->deferred) {
            look(fr, w, now);
        }
    }
    if ((fr->late || fr->evicted) && now - fr->last_log_ns > LOG_EVERY_NS) {
        LOG_INFO("http", "connection closed: no complete request head within its deadline "
                 "(request_timeout_s): %llu connection(s), and %llu closed to make room; "
                 "%u waiting for their head",
                 (unsigned long long)fr->late, (unsigned long long)fr->evicted, fr->n);
        fr->late = fr->evicted = 0;
        fr->last_log_ns = now;
    }
    if (fr->unserved && now - fr->last_log_ns > LOG_EVERY_NS) {
        LOG_WARN("http", "connection closed: %llu whole request(s) found no connection thread "
                 "within connection_timeout_s (threads = %u are all busy)",
                 (unsigned long long)fr->unserved, fr->limit);
        fr->unserved = 0;
        fr->last_log_ns = now;
    }
}

static void *front_main(void *arg) {
    cuzkd_front *fr = arg;
    struct epoll_event ev[64];
    uint64_t last_tick = 0;
    for (;;) {
        int n = epoll_wait(fr->ep, ev, 64, TICK_MS);
        uint64_t now = cuzk_now_ns();
        int accept_due = 0;
        for (int i = 0; i < n; i++) {
            if (ev[i].data.ptr == &fr->wake)
                return NULL;
            if (ev[i].data.ptr == fr)
                accept_due = 1;
            else
                look(fr, ev[i].data.ptr, now); /* drops at most this one */
        }
        /* after the looks: making room may close a connection listed above */
        if (accept_due)
            accept_all(fr, now);
        if (now - last_tick >= TICK_MS * 1000000ULL) {
            tick(fr, now);
            last_tick = now;
        }
    }
}

cuzk_status cuzkd_front_start(cuzkd_front **out, int listen_fd, struct MHD_Daemon *d,
                              unsigned timeout_s, unsigned ready_timeout_s, unsigned per_ip,
                              unsigned limit, cuzk_error *err) {
    cuzkd_front *fr = calloc(1, sizeof *fr);
    if (!fr)
        return cuzk_fail(err, CUZK_ENOMEM, "out of memory");
    fr->listen_fd = listen_fd;
    fr->d = d;
    fr->timeout_ns = (uint64_t)timeout_s * 1000000000ULL;
    fr->ready_timeout_ns = (uint64_t)ready_timeout_s * 1000000000ULL;
    fr->per_ip = per_ip;
    fr->limit = limit;
    fr->wake[0] = fr->wake[1] = -1;
    fr->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = fr};
    struct epoll_event wev = {.events = EPOLLIN, .data.ptr = &fr->wake};
    if (fr->ep < 0 || pipe2(fr->wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
        epoll_ctl(fr->ep, EPOLL_CTL_ADD, listen_fd, &lev) != 0 ||
        epoll_ctl(fr->ep, EPOLL_CTL_ADD, fr->wake[0], &wev) != 0) {
        int e = errno;
        cuzkd_front_stop(fr);
        return cuzk_fail(err, CUZK_EIO, "the TCP front door: %s", strerror(e));
    }
    if (pthread_create(&fr->thread, NULL, front_main, fr) != 0) {
        cuzkd_front_stop(fr);
        return cuzk_fail(err, CUZK_EINTERNAL, "cannot start the TCP front door's thread");
    }
    fr->started = 1;
    *out = fr;
    return CUZK_OK;
}

void cuzkd_front_stop(cuzkd_front *fr) {
    if (!fr)
        return;
    if (fr->started) {
        ssize_t w = write(fr->wake[1], "x", 1);
        (void)w;
        pthread_join(fr->thread, NULL);
    }
    while (fr->head)
        drop(fr, fr->head);
    if (fr->ep >= 0)
        close(fr->ep);
    for (int i = 0; i < 2; i++)
        if (fr->wake[i] >= 0)
            close(fr->wake[i]);
    free(fr);
}
