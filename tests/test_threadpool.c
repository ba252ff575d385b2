/*
 * Thread pool: every index of a parallel-for is visited exactly once, chunks
 * respect the grain, worker ids stay in range and are never shared by two
 * chunks of one call running at the same time, and nested and concurrent
 * calls (several caller threads, calls from inside chunks) complete with the
 * right results.  Edge cases: n = 0, n < grain, NULL pool, one-thread pool.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/threadpool.h"

/* Counts visits per index and checks the chunk shape and the worker id. */
typedef struct {
    size_t n, grain;
    unsigned nthreads;
    atomic_uint *visits;
    atomic_uint *busy; /* per worker id: chunks running right now */
    atomic_uint bad_worker, bad_grain, overlap, chunks, last_seen;
} cover_ctx;

static void cover_fn(void *p, size_t begin, size_t end, unsigned worker) {
    cover_ctx *c = p;
    atomic_fetch_add(&c->chunks, 1);
    if (worker >= c->nthreads) {
        atomic_fetch_add(&c->bad_worker, 1);
        return;
    }
    if (atomic_fetch_add(&c->busy[worker], 1) != 0)
        atomic_fetch_add(&c->overlap, 1);
    if (end - begin < c->grain && end != c->n)
        atomic_fetch_add(&c->bad_grain, 1);
    if (end <= begin || end > c->n)
        atomic_fetch_add(&c->bad_grain, 1);
    for (size_t i = begin; i < end && i < c->n; i++)
        atomic_fetch_add(&c->visits[i], 1);
    atomic_fetch_sub(&c->busy[worker], 1);
}

static void check_cover(cuzk_pool *pool, size_t n, size_t grain) {
    cover_ctx c = {.n = n, .grain = grain ? grain : 1,
                   .nthreads = cuzk_pool_threads(pool)};
    c.visits = calloc(n ? n : 1, sizeof *c.visits);
    c.busy = calloc(c.nthreads, sizeof *c.busy);
    cuzk_pool_for(pool, n, grain, cover_fn, &c);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += atomic_load(&c.visits[i]) != 1;
    CHECK(wrong == 0, "n=%zu grain=%zu: %zu indices not visited once", n,
          grain, wrong);
    CHECK(atomic_load(&c.bad_worker) == 0, "n=%zu: worker id out of range", n);
    CHECK(atomic_load(&c.bad_grain) == 0, "n=%zu grain=%zu: bad chunk", n,
          grain);
    CHECK(atomic_load(&c.overlap) == 0, "n=%zu: worker id used twice at once",
          n);
    if (n == 0)
        CHECK(atomic_load(&c.chunks) == 0, "n=0 called the body");
    if (n > 0 && n <= (grain ? grain : 1))
        CHECK(atomic_load(&c.chunks) == 1, "n=%zu <= grain=%zu: %u chunks", n,
              grain, atomic_load(&c.chunks));
    free(c.visits);
    free(c.busy);
}

/* Sum of i*i over [0, n) through per-worker partial sums. */
typedef struct {
    uint64_t *partial; /* one slot per worker id, padded */
} sum_ctx;

static void sum_fn(void *p, size_t begin, size_t end, unsigned worker) {
    sum_ctx *c = p;
    uint64_t s = 0;
    for (size_t i = begin; i < end; i++)
        s += (uint64_t)i * i;
    c->partial[worker * 8] += s;
}

static uint64_t pool_sum_squares(cuzk_pool *pool, size_t n, size_t grain) {
    unsigned t = cuzk_pool_threads(pool);
    sum_ctx c = {calloc((size_t)t * 8, sizeof(uint64_t))};
    cuzk_pool_for(pool, n, grain, sum_fn, &c);
    uint64_t s = 0;
    for (unsigned i = 0; i < t; i++)
        s += c.partial[i * 8];
    free(c.partial);
    return s;
}

static uint64_t sum_squares(size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (uint64_t)i * i;
    return s;
}

/* Nested: each outer index runs an inner parallel sum on the same pool. */
typedef struct {
    cuzk_pool *pool;
    uint64_t *out;
} nest_ctx;

static void nest_fn(void *p, size_t begin, size_t end, unsigned worker) {
    nest_ctx *c = p;
    (void)worker;
    for (size_t i = begin; i < end; i++)
        c->out[i] = pool_sum_squares(c->pool, 1000 + 37 * i, 7);
}

static void test_nested(cuzk_pool *pool) {
    enum { OUTER = 40 };
    uint64_t out[OUTER];
    nest_ctx c = {pool, out};
    cuzk_pool_for(pool, OUTER, 1, nest_fn, &c);
    int ok = 1;
    for (size_t i = 0; i < OUTER; i++)
        ok &= out[i] == sum_squares(1000 + 37 * i);
    CHECK(ok, "nested parallel-for gave a wrong sum (threads=%u)",
          cuzk_pool_threads(pool));
}

/* Concurrent: several threads each run many calls on one pool. */
typedef struct {
    cuzk_pool *pool;
    unsigned seed;
    int ok;
} caller_arg;

static void *caller_main(void *p) {
    caller_arg *a = p;
    a->ok = 1;
    for (unsigned k = 0; k < 200; k++) {
        size_t n = (a->seed * 7919u + k * 104729u) % 5000;
        size_t grain = 1 + k % 50;
        a->ok &= pool_sum_squares(a->pool, n, grain) == sum_squares(n);
    }
    return NULL;
}

static void test_concurrent(cuzk_pool *pool) {
    enum { CALLERS = 4 };
    pthread_t th[CALLERS];
    caller_arg args[CALLERS];
    for (unsigned i = 0; i < CALLERS; i++) {
        args[i] = (caller_arg){pool, i + 1, 0};
        pthread_create(&th[i], NULL, caller_main, &args[i]);
    }
    for (unsigned i = 0; i < CALLERS; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].ok, "concurrent caller %u got a wrong sum", i);
    }
}

static void test_pool(cuzk_pool *pool) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 100, 1000,
                                   4097, 100003};
    static const size_t grains[] = {0, 1, 3, 16, 1000, 200000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t j = 0; j < sizeof grains / sizeof *grains; j++)
            check_cover(pool, sizes[i], grains[j]);
    for (unsigned k = 0; k < tu_iters(20); k++) {
        size_t n = tu_rand64() % 20000, grain = tu_rand64() % 300;
        CHECK(pool_sum_squares(pool, n, grain) == sum_squares(n),
              "sum n=%zu grain=%zu threads=%u", n, grain,
              cuzk_pool_threads(pool));
    }
    test_nested(pool);
    test_concurrent(pool);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_threadpool");
    cuzk_error err;
    CHECK(cuzk_pool_threads(NULL) == 1, "NULL pool must have one thread");
    test_pool(NULL);
    static const unsigned counts[] = {1, 2, 3, 8, 0};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        cuzk_pool *pool = cuzk_pool_create(counts[i], &err);
        CHECK(pool != NULL, "create(%u): %s", counts[i], err.msg);
        if (!pool)
            continue;
        CHECK(counts[i] == 0 || cuzk_pool_threads(pool) == counts[i],
              "create(%u) gave %u threads", counts[i],
              cuzk_pool_threads(pool));
        CHECK(cuzk_pool_threads(pool) >= 1, "pool without threads");
        test_pool(pool);
        cuzk_pool_destroy(pool);
    }
    cuzk_pool_destroy(NULL);
    /* Create and destroy repeatedly: no leak or hang at shutdown. */
    for (unsigned i = 0; i < 20; i++) {
        cuzk_pool *pool = cuzk_pool_create(1 + i % 4, &err);
        CHECK(pool != NULL, "create in loop: %s", err.msg);
        if (i % 2)
            CHECK(pool_sum_squares(pool, 5000, 10) == sum_squares(5000),
                  "sum right after create");
        cuzk_pool_destroy(pool);
    }
    return tu_finish();
}
