/*
 * Upload buffers (server.h, "intake"): where request bodies of POST
 * /v1/jobs are received, and what uploaded witnesses are handed to the
 * engine in, without a copy.
 *
 * A body is received straight into one buffer sized from its
 * Content-Length; the witnesses in it are given to cuzk_submit in place
 * (cuzk_witness.release), and the engine gives the buffer back once it has
 * read them (after synthesis).  Buffers are anonymous mappings kept for
 * reuse: in steady state an upload touches pages that are already
 * resident, so receiving a body costs one pass over it and no page faults.
 *
 * Everything the pool holds, in use or idle, counts against the upload
 * budget.  A request that finds no room waits (before its body is read, so
 * the client is held back by TCP itself) until a buffer comes back, idle
 * buffers are unmapped to make room, or the wait times out (503).
 *
 * The lock guards the lists and counters only: no copy, mapping or wait
 * for the engine happens while it is held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "server/log.h"
#include "server/server.h"

/* Smallest buffer mapped (a JSON submit of a few bytes needs no more). */
#define MIN_BUF ((size_t)64 << 10)
/* Small bodies (a JSON submit, a small witness) are not starved by large
 * ones: a body over 1/SMALL_BODY_DIV of the upload budget may not take its
 * last 1/SMALL_RESERVE_DIV while other bodies are in use, so uploads that
 * declared large sizes and then trickle cannot hold every byte of it. */
#define SMALL_BODY_DIV 16
#define SMALL_RESERVE_DIV 8
/* First size of a body of unknown length; grown by doubling. */
#define CHUNKED_START ((size_t)1 << 20)

static size_t page_round(size_t n) {
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    if (n < MIN_BUF)
        n = MIN_BUF;
    return (n + page - 1) / page * page;
}

static void *map_bytes(size_t n) {
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Large bodies fault in 2 MiB at a time where the kernel allows it. */
    if (n >= ((size_t)4 << 20))
        madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

cuzk_status cuzkd_intake_init(cuzkd_server *srv, uint64_t budget, cuzk_error *err) {
    cuzkd_intake *in = &srv->intake;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&in->lock, NULL) || pthread_cond_init(&in->cv, &ca)) {
        pthread_condattr_destroy(&ca);
        return cuzk_fail(err, CUZK_EINTERNAL, "intake: mutex init failed");
    }
    pthread_condattr_destroy(&ca);
    in->budget = budget;
    in->ready = 1;
    return CUZK_OK;
}

/* Every buffer of the list from |b|, unmapped and freed (outside the lock:
 * munmap of a large buffer takes a while). */
static void unmap_list(cuzkd_upload *b) {
    while (b) {
        cuzkd_upload *next = b->next;
        munmap(b->p, b->cap);
        free(b);
        b = next;
    }
}

void cuzkd_intake_destroy(cuzkd_server *srv) {
    cuzkd_intake *in = &srv->intake;
    if (!in->ready)
        return;
    /* Buffers still out belong to requests or jobs that no longer exist
     * once the listeners and the engine are gone: only idle ones remain. */
    unmap_list(in->idle);
    in->idle = NULL;
    pthread_cond_destroy(&in->cv);
    pthread_mutex_destroy(&in->lock);
    in->ready = 0;
}

/* lock held: unmap idle buffers (largest first is not worth a sort: any
 * order) until |need| more bytes fit under |limit|, or none is left.  The
 * unmapped buffers are returned in a list to be unmapped outside the lock. */
static cuzkd_upload *trim_locked(cuzkd_intake *in, uint64_t need, uint64_t limit) {
    cuzkd_upload *gone = NULL;
    while (in->held + need > limit && in->idle) {
        cuzkd_upload *b = in->idle;
        in->idle = b->next;
        in->held -= b->cap;
        in->idle_bytes -= b->cap;
        in->n_idle--;
        b->next = gone;
        gone = b;
    }
    return gone;
}

/* lock held: the idle buffer that fits |need| best, unlinked; NULL if
 * none fits.  One much larger than needed (a witness-sized buffer for a
 * small JSON body) is left for the next large body: mapping a small
 * buffer is cheap, faulting in a large one is not. */
static cuzkd_upload *take_idle_locked(cuzkd_intake *in, size_t need) {
    cuzkd_upload **best = NULL;
    size_t most = need < ((size_t)1 << 20) ? need + ((size_t)1 << 20) : 4 * need;
    for (cuzkd_upload **pp = &in->idle; *pp; pp = &(*pp)->next)
        if ((*pp)->cap >= need && (*pp)->cap <= most && (!best || (*pp)->cap < (*best)->cap))
            best = pp;
    if (!best)
        return NULL;
    cuzkd_upload *b = *best;
    *best = b->next;
    in->idle_bytes -= b->cap;
    in->n_idle--;
    return b;
}

cuzk_status cuzkd_intake_get(cuzkd_server *srv, size_t bytes, uint64_t wait_ms,
                             cuzkd_upload **out, cuzk_error *err) {
    cuzkd_intake *in = &srv->intake;
    size_t need = page_round(bytes);
    *out = NULL;
    if (need > in->budget)
        return cuzk_fail(err, CUZK_ERANGE,
                         "a body of %zu bytes does not fit in the upload budget (%llu bytes)",
                         bytes, (unsigned long long)in->budget);
    struct timespec until;
    cuzkd_deadline_in(&until, CLOCK_MONOTONIC, wait_ms);
    cuzkd_upload *b = NULL;
    int waited = 0;
    pthread_mutex_lock(&in->lock);
    for (;;) {
        if ((b = take_idle_locked(in, need)))
            break;
        /* Large bodies leave the last SMALL_RESERVE of the budget to small
         * ones, unless nothing else is in use (so one body as large as
         * the budget still fits). */
        uint64_t limit = in->budget;
        if (need > in->budget / SMALL_BODY_DIV && in->in_use)
            limit -= in->budget / SMALL_RESERVE_DIV;
        cuzkd_upload *gone = trim_locked(in, need, limit);
        if (in->held + need <= limit) {
            in->held += need; /* charged now, mapped outside the lock */
            pthread_mutex_unlock(&in->lock);
            unmap_list(gone);
            b = calloc(1, sizeof *b);
            void *p = b ? map_bytes(need) : NULL;
            pthread_mutex_lock(&in->lock);
            if (!p) {
                free(b);
                b = NULL;
                in->held -= need;
                pthread_cond_broadcast(&in->cv);
                pthread_mutex_unlock(&in->lock);
                return cuzk_fail(err, CUZK_ENOMEM, "no memory for a body of %zu bytes", bytes);
            }
            b->p = p;
            b->cap = need;
            b->srv = srv;
            in->maps++;
            break;
        }
        if (gone) { /* unmapped something: look again */
            pthread_mutex_unlock(&in->lock);
            unmap_list(gone);
            pthread_mutex_lock(&in->lock);
            continue;
        }
        if (atomic_load(&srv->stopping) ||
            pthread_cond_timedwait(&in->cv, &in->lock, &until) == ETIMEDOUT) {
            pthread_mutex_unlock(&in->lock);
            return cuzk_fail(err, CUZK_EBUSY,
                             "no room for a body of %zu bytes: %llu of the upload budget of %llu "
                             "bytes are held by uploads not yet proved",
                             bytes, (unsigned long long)in->held,
                             (unsigned long long)in->budget);
        }
        waited = 1;
    }
    in->in_use += b->cap;
    in->gets++;
    in->waits += waited;
    pthread_mutex_unlock(&in->lock);
    b->len = 0;
    b->next = NULL;
    atomic_store(&b->refs, 1);
    *out = b;
    return CUZK_OK;
}

int cuzkd_intake_grow(cuzkd_server *srv, cuzkd_upload *b, size_t bytes) {
    cuzkd_intake *in = &srv->intake;
    if (bytes <= b->cap)
        return 1;
    size_t cap = b->cap;
    while (cap < bytes)
        cap *= 2;
    cap = page_round(cap);
    size_t more = cap - b->cap;
    pthread_mutex_lock(&in->lock);
    cuzkd_upload *gone = trim_locked(in, more, in->budget);
    int ok = in->held + more <= in->budget;
    if (ok) {
        in->held += more;
        in->in_use += more;
    }
    pthread_mutex_unlock(&in->lock);
    unmap_list(gone);
    if (!ok)
        return 0;
    void *p = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) {
        pthread_mutex_lock(&in->lock);
        in->held -= more;
        in->in_use -= more;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->lock);
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

size_t cuzkd_intake_chunked_start(void) { return CHUNKED_START; }

void cuzkd_intake_wake(cuzkd_server *srv) {
    cuzkd_intake *in = &srv->intake;
    if (!in->ready)
        return;
    pthread_mutex_lock(&in->lock);
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->lock);
}

void cuzkd_intake_put(cuzkd_upload *b) {
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    cuzkd_intake *in = &b->srv->intake;
    pthread_mutex_lock(&in->lock);
    in->in_use -= b->cap;
    b->next = in->idle;
    in->idle = b;
    in->idle_bytes += b->cap;
    in->n_idle++;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->lock);
}

void cuzkd_intake_release(void *ctx, const void *data) {
    (void)data;
    cuzkd_intake_put(ctx);
}

void cuzkd_intake_stats(cuzkd_server *srv, cuzkd_intake_counts *c) {
    cuzkd_intake *in = &srv->intake;
    memset(c, 0, sizeof *c);
    if (!in->ready)
        return;
    pthread_mutex_lock(&in->lock);
    c->budget = in->budget;
    c->held = in->held;
    c->in_use = in->in_use;
    c->idle = in->idle_bytes;
    c->gets = in->gets;
    c->waits = in->waits;
    c->maps = in->maps;
    pthread_mutex_unlock(&in->lock);
}
