/*
 * A fixed pool of worker threads and a blocking parallel-for on top of it.
 *
 * This is the only way code below the engine runs work in parallel
 * (docs/ENGINE.md: layers under engine/ start no threads of their own; they take
 * a cuzk_pool * argument).  The pool's threads are created once by
 * cuzk_pool_create and live until cuzk_pool_destroy; cuzk_pool_for splits a
 * range into chunks, runs them on the workers *and on the calling thread*,
 * and returns when every chunk of that call has finished.
 *
 * Must not: allocate per call (the job descriptor lives on the caller's
 * stack), spin while waiting, or let one call wait for another call's chunks.
 *
 * Thread safety: cuzk_pool_for may be called from any number of threads at
 * once, including from inside a chunk of another cuzk_pool_for on the same
 * pool (nested calls).  A caller always works on its own call's chunks
 * until none are left unclaimed, so nested and concurrent calls cannot
 * deadlock.  cuzk_pool_destroy must not race with any cuzk_pool_for.
 */
#ifndef CUZK_THREADPOOL_H
#define CUZK_THREADPOOL_H

#include <stddef.h>

#include "util/status.h"

typedef struct cuzk_pool cuzk_pool;

/*
 * Body of a parallel loop: handles indices [begin, end) of the range.
 * |worker| identifies the thread running this chunk: it is < the pool's
 * thread count (cuzk_pool_threads) and no two chunks *of the same
 * cuzk_pool_for call* run at the same time with the same |worker|, so it
 * can index per-thread scratch space sized cuzk_pool_threads(pool).  The
 * calling thread runs its chunks as worker 0.
 */
typedef void (*cuzk_pool_fn)(void *ctx, size_t begin, size_t end,
                             unsigned worker);

/*
 * Creates a pool whose parallel-for runs on |nthreads| threads in total:
 * nthreads - 1 new worker threads plus the caller of cuzk_pool_for.
 * |nthreads| = 0 means the number of online CPUs.  nthreads = 1 starts no
 * thread (every loop then runs serially in the caller).
 * Returns the pool (owned by the caller; free with cuzk_pool_destroy), or
 * NULL with |err| set (CUZK_ENOMEM, or CUZK_EINTERNAL if a thread could not
 * be started).
 */
cuzk_pool *cuzk_pool_create(unsigned nthreads, cuzk_error *err);

/* Stops and joins the workers and frees the pool.  NULL is a no-op.  No
 * cuzk_pool_for may be running or start during or after this call. */
void cuzk_pool_destroy(cuzk_pool *pool);

/* Degree of parallelism of one cuzk_pool_for (workers + caller); 1 for a
 * NULL pool. */
unsigned cuzk_pool_threads(const cuzk_pool *pool);

/*
 * Runs fn(ctx, begin, end, worker) over chunks that exactly cover [0, n),
 * each chunk at least |grain| indices long (except possibly the last;
 * grain 0 counts as 1), and returns when all have finished.  The range is
 * cut into at most about 8 chunks per thread so uneven chunks balance out;
 * if n <= grain, or |pool| is NULL or has one thread, fn runs once as
 * fn(ctx, 0, n, 0) in the caller.  n = 0 calls nothing.
 * Memory written by the chunks is visible to the caller on return.
 */
void cuzk_pool_for(cuzk_pool *pool, size_t n, size_t grain, cuzk_pool_fn fn,
                   void *ctx);

#endif
