/*
 * The engine's timeline: per-thread lock-free rings of stage spans, and
 * their export as Chrome trace JSON (docs/ENGINE.md).
 *
 * Each engine thread owns one ring and is its only writer.  Recording a
 * span is a handful of relaxed stores and one release store: no lock, no
 * allocation, no system call, so it may sit on the device worker's hot
 * path.  Readers (the trace export) run concurrently and use the per-slot
 * sequence number as a seqlock (no standalone fences, which
 * ThreadSanitizer cannot model): a slot overwritten while it was being read
 * is skipped rather than reported torn.  Every field is an atomic so that
 * ThreadSanitizer sees no plain data race.
 *
 * Must not: block a writer, or let a reader hold anything a writer needs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

typedef struct span_slot {
    _Atomic uint64_t seq; /* 2i+1 while slot i is written, 2i+2 when done */
    _Atomic uint64_t t0, t1, job, meta;
} span_slot;

struct engine_ring {
    char name[24];
    unsigned lane;
    uint32_t mask;
    _Atomic uint64_t head; /* spans ever written */
    span_slot *slots;
};

static const char *const span_names[SPAN_KINDS] = {
    "queue",    "synthesis", "ready-wait", "upload",         "compute",
    "fetch",    "finalize",  "key-load",   "witness", "circuit-load"};

size_t engine_ring_bytes(unsigned events) {
    return sizeof(engine_ring) + (size_t)events * sizeof(span_slot);
}

cuzk_status engine_timeline_init(engine_timeline *tl, unsigned events, uint64_t start_ns,
                                 cuzk_error *err) {
    memset(tl, 0, sizeof *tl);
    unsigned n = 16;
    while (n < events && n < (1u << 24))
        n <<= 1;
    tl->events = n;
    tl->start_ns = start_ns;
    if (pthread_mutex_init(&tl->lock, NULL))
        return cuzk_fail(err, CUZK_EINTERNAL, "engine: mutex init failed");
    return CUZK_OK;
}

void engine_timeline_destroy(engine_timeline *tl) {
    for (unsigned i = 0; i < tl->n_rings; i++) {
        free(tl->rings[i]->slots);
        free(tl->rings[i]);
    }
    free(tl->rings);
    pthread_mutex_destroy(&tl->lock);
    memset(tl, 0, sizeof *tl);
}

engine_ring *engine_ring_new(engine_timeline *tl, const char *name) {
    engine_ring *r = calloc(1, sizeof *r);
    span_slot *slots = calloc(tl->events, sizeof *slots);
    if (!r || !slots) {
        free(r);
        free(slots);
        return NULL;
    }
    snprintf(r->name, sizeof r->name, "%s", name);
    r->mask = tl->events - 1;
    r->slots = slots;
    pthread_mutex_lock(&tl->lock);
    if (tl->n_rings == tl->cap_rings) {
        unsigned cap = tl->cap_rings ? 2 * tl->cap_rings : 16;
        engine_ring **p = realloc(tl->rings, cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&tl->lock);
            free(slots);
            free(r);
            return NULL;
        }
        tl->rings = p, tl->cap_rings = cap;
    }
    r->lane = tl->n_rings;
    tl->rings[tl->n_rings++] = r;
    pthread_mutex_unlock(&tl->lock);
    return r;
}

void engine_ring_span(engine_ring *r, engine_span_kind kind, uint64_t t0_ns, uint64_t t1_ns,
                      uint64_t job, uint32_t part, int dev) {
    if (!r)
        return;
    uint64_t i = atomic_load_explicit(&r->head, memory_order_relaxed);
    span_slot *s = &r->slots[i & r->mask];
    /* Fields are release stores after the odd sequence number: a reader
     * that sees any new field (acquire) then sees the slot as changed. */
    atomic_store_explicit(&s->seq, 2 * i + 1, memory_order_relaxed);
    atomic_store_explicit(&s->t0, t0_ns, memory_order_release);
    atomic_store_explicit(&s->t1, t1_ns, memory_order_release);
    atomic_store_explicit(&s->job, job, memory_order_release);
    uint64_t meta = (uint64_t)part << 32 | (uint64_t)kind << 16 | (uint64_t)(uint16_t)(dev + 1);
    atomic_store_explicit(&s->meta, meta, memory_order_release);
    atomic_store_explicit(&s->seq, 2 * i + 2, memory_order_release);
    atomic_store_explicit(&r->head, i + 1, memory_order_release);
}

typedef struct span_copy {
    uint64_t t0, t1, job, meta;
} span_copy;

/* Copy ring |r|'s consistent spans overlapping the window into |out|. */
static size_t ring_snapshot(engine_ring *r, span_copy *out, uint64_t from, uint64_t to) {
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t cap = (uint64_t)r->mask + 1, first = head > cap ? head - cap : 0;
    size_t n = 0;
    for (uint64_t i = first; i < head; i++) {
        span_slot *s = &r->slots[i & r->mask];
        uint64_t s1 = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (s1 != 2 * i + 2)
            continue; /* overwritten or being written */
        span_copy c = {atomic_load_explicit(&s->t0, memory_order_acquire),
                       atomic_load_explicit(&s->t1, memory_order_acquire),
                       atomic_load_explicit(&s->job, memory_order_acquire),
                       atomic_load_explicit(&s->meta, memory_order_acquire)};
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) != s1)
            continue;
        if (c.t1 < from || (to && c.t0 > to))
            continue;
        out[n++] = c;
    }
    return n;
}

static void emit_span(engine_sbuf *b, int *first, const span_copy *c, unsigned pid,
                      unsigned tid, uint64_t start_ns) {
    unsigned kind = (unsigned)(c->meta >> 16) & 0xff;
    uint32_t part = (uint32_t)(c->meta >> 32);
    double ts = (double)(c->t0 - start_ns) / 1e3, dur = (double)(c->t1 - c->t0) / 1e3;
    engine_sbuf_printf(b,
                       "%s\n{\"name\":\"%s\",\"cat\":\"partition\",\"ph\":\"X\",\"ts\":%.3f,"
                       "\"dur\":%.3f,\"pid\":%u,\"tid\":%u,\"args\":{\"job\":%llu,\"part\":%u}}",
                       *first ? "" : ",", kind < SPAN_KINDS ? span_names[kind] : "?", ts, dur,
                       pid, tid, (unsigned long long)c->job, part);
    *first = 0;
}

static void emit_meta(engine_sbuf *b, int *first, const char *what, unsigned pid, unsigned tid,
                      const char *name) {
    engine_sbuf_printf(b, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"",
                       *first ? "" : ",", what, pid, tid);
    engine_sbuf_json_str(b, name);
    engine_sbuf_printf(b, "\"}}");
    *first = 0;
}

cuzk_status engine_timeline_chrome(engine_timeline *tl, char **out, size_t *len, uint64_t from_ns,
                                   uint64_t to_ns, const char *const *dev_names, unsigned n_devs,
                                   cuzk_error *err) {
    engine_sbuf b = {0};
    int first = 1;
    span_copy *tmp = malloc((size_t)tl->events * sizeof *tmp);
    if (!tmp)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for the trace");
    engine_sbuf_printf(&b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    emit_meta(&b, &first, "process_name", 1, 0, "cuzk engine threads");
    emit_meta(&b, &first, "process_name", 2, 0, "cuzk devices");
    for (unsigned d = 0; d < n_devs; d++)
        emit_meta(&b, &first, "thread_name", 2, d, dev_names[d]);
    /* The ring list only grows; rings are never freed before the engine. */
    pthread_mutex_lock(&tl->lock);
    unsigned n_rings = tl->n_rings;
    pthread_mutex_unlock(&tl->lock);
    for (unsigned i = 0; i < n_rings; i++) {
        pthread_mutex_lock(&tl->lock);
        engine_ring *r = tl->rings[i];
        pthread_mutex_unlock(&tl->lock);
        emit_meta(&b, &first, "thread_name", 1, r->lane, r->name);
        size_t n = ring_snapshot(r, tmp, from_ns, to_ns);
        for (size_t k = 0; k < n; k++) {
            emit_span(&b, &first, &tmp[k], 1, r->lane, tl->start_ns);
            int dev = (int)(tmp[k].meta & 0xffff) - 1;
            if (dev >= 0 && (unsigned)dev < n_devs)
                emit_span(&b, &first, &tmp[k], 2, (unsigned)dev, tl->start_ns);
        }
    }
    free(tmp);
    engine_sbuf_printf(&b, "\n]}\n");
    return engine_sbuf_finish(&b, out, len, err);
}
