/*
 * The engine's byte budget and its buffer pool (engine/internal.h).
 *
 * Everything large is charged here before it exists: proving keys, pool
 * buffers (witness and a/b/c scratch, and the devices' per-worker prover
 * scratch) and copies of in-memory witnesses.
 * A charge that does not fit is refused, never forced, so `used` never
 * exceeds `budget`; callers wait (admission) or release something first.
 *
 * Buffers come from anonymous mappings, not from malloc.  A freed mapping
 * goes back to the OS at once, so the process heap never holds gigabytes of
 * free chunks and nothing ever needs malloc_trim (docs/ENGINE.md: that call,
 * made under a lock on a 400 GiB heap, is what stalled GPUs in the daemon
 * this project replaces).  In steady state buffers cycle through free lists
 * and no mapping is made or removed at all; trimming idle buffers happens
 * only when the budget needs room: for admission and key loads on the
 * scheduler and housekeeper threads, for a witness copy on the submitting
 * thread, and for prover scratch that must grow for a larger key on the
 * synthesis or device thread that needs it (engine_scratch_get: once per
 * key, not per partition).
 *
 * Must not: do a system call while holding mem.lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"

void *engine_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void engine_unmap(void *p, size_t bytes) {
    if (p)
        munmap(p, bytes);
}

cuzk_status engine_mem_init(engine_mem *m, uint64_t budget, uint64_t intake_max,
                            cuzk_error *err) {
    memset(m, 0, sizeof *m);
    if (pthread_mutex_init(&m->lock, NULL) || pthread_cond_init(&m->cv, NULL))
        return cuzk_fail(err, CUZK_EINTERNAL, "engine: mutex init failed");
    m->budget = budget;
    m->intake_max = intake_max;
    return CUZK_OK;
}

void engine_mem_destroy(engine_mem *m) {
    engine_mem_trim(m, UINT64_MAX);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->lock);
}

/* cgroup v2 memory.max of this process, or UINT64_MAX. */
static uint64_t cgroup_limit(void) {
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    unsigned long long v;
    uint64_t lim = UINT64_MAX;
    if (f) {
        if (fscanf(f, "%llu", &v) == 1)
            lim = v;
        fclose(f);
    }
    return lim;
}

uint64_t engine_mem_auto_budget(uint64_t margin) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : (1ULL << 32);
    uint64_t cg = cgroup_limit();
    if (cg < phys)
        phys = cg;
    if (!margin) {
        margin = phys / 10;
        if (margin < (512ULL << 20))
            margin = 512ULL << 20;
    }
    return phys > 2 * margin ? phys - margin : phys / 2;
}

/* mem.lock held. */
static int fits_locked(engine_mem *m, engine_mem_kind kind, uint64_t bytes) {
    if (m->used >= m->budget || bytes > m->budget - m->used)
        return 0; /* (used passes the budget only by engine_mem_charge_held) */
    return kind != MEM_INTAKE || m->by_kind[MEM_INTAKE] + bytes <= m->intake_max;
}

static void charge_locked(engine_mem *m, engine_mem_kind kind, uint64_t bytes) {
    m->used += bytes;
    m->by_kind[kind] += bytes;
    if (m->used > m->peak)
        m->peak = m->used;
}

void engine_mem_charge_held(engine_mem *m, engine_mem_kind kind, uint64_t bytes) {
    pthread_mutex_lock(&m->lock);
    charge_locked(m, kind, bytes);
    pthread_mutex_unlock(&m->lock);
}

int engine_mem_try_charge(engine_mem *m, engine_mem_kind kind, uint64_t bytes) {
    pthread_mutex_lock(&m->lock);
    int ok = fits_locked(m, kind, bytes);
    if (ok)
        charge_locked(m, kind, bytes);
    pthread_mutex_unlock(&m->lock);
    return ok;
}

void engine_mem_uncharge(engine_mem *m, engine_mem_kind kind, uint64_t bytes) {
    if (!bytes)
        return;
    pthread_mutex_lock(&m->lock);
    m->used -= bytes;
    m->by_kind[kind] -= bytes;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->lock);
}

void engine_mem_wait(engine_mem *m, uint64_t timeout_ns) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + timeout_ns;
    ts.tv_sec += (time_t)(ns / 1000000000ULL);
    ts.tv_nsec = (long)(ns % 1000000000ULL);
    pthread_mutex_lock(&m->lock);
    pthread_cond_timedwait(&m->cv, &m->lock, &ts);
    pthread_mutex_unlock(&m->lock);
}

uint64_t engine_mem_room(engine_mem *m) {
    pthread_mutex_lock(&m->lock);
    uint64_t r = m->used < m->budget ? m->budget - m->used : 0;
    pthread_mutex_unlock(&m->lock);
    return r;
}

size_t engine_buf_class_bytes(size_t bytes, unsigned *cls) {
    const size_t min = 64 << 10;
    if (bytes <= min) {
        *cls = 0;
        return min;
    }
    unsigned e = 63 - (unsigned)__builtin_clzll((unsigned long long)(bytes - 1)); /* 2^e < bytes */
    size_t base = (size_t)1 << e;
    for (unsigned q = 1; q <= 4; q++) {
        size_t size = base + (base / 4) * q; /* 1.25, 1.5, 1.75, 2 times 2^e */
        if (size >= bytes) {
            *cls = (e - 16) * 4 + q; /* e >= 16 here, class 0 is 64 KiB */
            return size;
        }
    }
    *cls = 0; /* unreachable: 2^(e+1) >= bytes */
    return bytes;
}

cuzk_status engine_buf_get(engine_mem *m, engine_buf **out, size_t bytes, cuzk_error *err) {
    unsigned cls;
    size_t size = engine_buf_class_bytes(bytes, &cls);
    *out = NULL;
    if (cls >= ENGINE_BUF_CLASSES)
        return cuzk_fail(err, CUZK_ENOMEM, "buffer of %zu bytes is too large", bytes);
    pthread_mutex_lock(&m->lock);
    engine_buf *b = m->free_list[cls];
    if (b) {
        m->free_list[cls] = b->next;
        m->idle_bytes -= b->bytes;
        pthread_mutex_unlock(&m->lock);
        b->next = NULL;
        *out = b;
        return CUZK_OK;
    }
    if (!fits_locked(m, MEM_BUFFERS, size)) {
        pthread_mutex_unlock(&m->lock);
        return cuzk_fail(err, CUZK_EBUSY, "no room in the memory budget for %zu bytes", size);
    }
    charge_locked(m, MEM_BUFFERS, size);
    pthread_mutex_unlock(&m->lock);
    /* The mapping is made outside the lock: it is a system call. */
    b = malloc(sizeof *b);
    void *p = b ? engine_map(size) : NULL;
    if (!p) {
        free(b);
        engine_mem_uncharge(m, MEM_BUFFERS, size);
        return cuzk_fail(err, CUZK_ENOMEM, "mmap of %zu bytes failed", size);
    }
    b->p = p, b->bytes = size, b->cls = cls, b->next = NULL;
    *out = b;
    return CUZK_OK;
}

void engine_buf_put(engine_mem *m, engine_buf *b) {
    if (!b)
        return;
    pthread_mutex_lock(&m->lock);
    b->next = m->free_list[b->cls];
    m->free_list[b->cls] = b;
    m->idle_bytes += b->bytes;
    pthread_mutex_unlock(&m->lock);
}

void engine_mem_scratch(engine_mem *m, int64_t delta) {
    pthread_mutex_lock(&m->lock);
    m->scratch_bytes += (uint64_t)delta;
    pthread_mutex_unlock(&m->lock);
}

cuzk_status engine_scratch_get(engine_mem *m, engine_buf **out, size_t bytes, const char *what,
                               cuzk_error *err) {
    cuzk_error e2;
    cuzk_status st = engine_buf_get(m, out, bytes, &e2);
    if (st == CUZK_EBUSY) {
        /* Idle buffers of other sizes are the cheapest room there is. */
        unsigned cls;
        uint64_t size = engine_buf_class_bytes(bytes, &cls), room = engine_mem_room(m);
        if (size > room && engine_mem_trim(m, size - room) > 0)
            st = engine_buf_get(m, out, bytes, &e2);
    }
    if (st == CUZK_EBUSY) {
        pthread_mutex_lock(&m->lock);
        uint64_t budget = m->budget, used = m->used;
        pthread_mutex_unlock(&m->lock);
        return cuzk_fail(err, CUZK_ENOMEM,
                         "no room in the memory budget for %s: %zu bytes needed, %llu of "
                         "%llu in use",
                         what, bytes, (unsigned long long)used, (unsigned long long)budget);
    }
    if (st != CUZK_OK)
        return cuzk_fail(err, st, "%s: %s", what, e2.msg);
    engine_mem_scratch(m, (int64_t)(*out)->bytes);
    return CUZK_OK;
}

void engine_scratch_put(engine_mem *m, engine_buf *b) {
    if (!b)
        return;
    engine_mem_scratch(m, -(int64_t)b->bytes);
    engine_buf_put(m, b);
}

uint64_t engine_mem_trim(engine_mem *m, uint64_t want) {
    uint64_t freed = 0;
    while (freed < want) {
        engine_buf *b = NULL;
        pthread_mutex_lock(&m->lock);
        /* Largest idle class first: fewest unmaps for the room wanted. */
        for (int c = ENGINE_BUF_CLASSES - 1; c >= 0 && !b; c--)
            if (m->free_list[c]) {
                b = m->free_list[c];
                m->free_list[c] = b->next;
                m->idle_bytes -= b->bytes;
            }
        pthread_mutex_unlock(&m->lock);
        if (!b)
            break;
        engine_unmap(b->p, b->bytes);
        engine_mem_uncharge(m, MEM_BUFFERS, b->bytes);
        freed += b->bytes;
        free(b);
    }
    return freed;
}
