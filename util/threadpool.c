/*
 * Fixed worker pool with a blocking parallel-for (see threadpool.h).
 *
 * DESIGN.  Every cuzk_pool_for call describes itself in a job record on the
 * caller's stack and appends it to the pool's FIFO list of open jobs.
 * Chunks are claimed with an atomic counter, so the mutex is taken only
 * when a thread joins or leaves a job, never per chunk.  Workers serve the
 * oldest open job; the caller serves its own job, then unlinks it so no
 * worker can join it any more, and sleeps until every chunk is done *and*
 * every worker that joined has left (a worker that joined late may still
 * touch the record even if it found nothing to claim).  Only then does the
 * stack record go away.
 *
 * Must not: allocate per call, spin, or make a caller wait for chunks of a
 * job other than its own.
 */
#include "util/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pool_job {
    struct pool_job *next, *prev; /* open-job list, under pool->mu */
    cuzk_pool_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    atomic_size_t claimed; /* chunks handed out so far */
    size_t done;           /* chunks finished, under pool->mu */
    unsigned joined;       /* workers inside the job, under pool->mu */
    int linked;            /* still in the open-job list, under pool->mu */
} pool_job;

typedef struct worker_arg {
    cuzk_pool *pool;
    unsigned id;
} worker_arg;

struct cuzk_pool {
    unsigned nthreads; /* workers + the caller */
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* workers: a job was opened, or stop */
    pthread_cond_t done_cv; /* callers: some job made progress */
    pool_job *head, *tail;
    int stop;
    unsigned started; /* worker threads actually running */
    pthread_t *threads;
    worker_arg *args;
};

static void job_unlink(cuzk_pool *pool, pool_job *job) {
    if (!job->linked)
        return;
    if (job->prev)
        job->prev->next = job->next;
    else
        pool->head = job->next;
    if (job->next)
        job->next->prev = job->prev;
    else
        pool->tail = job->prev;
    job->next = job->prev = NULL;
    job->linked = 0;
}

static void job_link(cuzk_pool *pool, pool_job *job) {
    job->next = NULL;
    job->prev = pool->tail;
    if (pool->tail)
        pool->tail->next = job;
    else
        pool->head = job;
    pool->tail = job;
    job->linked = 1;
}

/* Claims and runs chunks of |job| until none is left; returns how many. */
static size_t job_run_chunks(pool_job *job, unsigned worker) {
    size_t ran = 0;
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&job->claimed, 1,
                                             memory_order_relaxed);
        if (c >= job->nchunks)
            return ran;
        size_t begin = c * job->chunk;
        size_t end = begin + job->chunk;
        if (end > job->n)
            end = job->n;
        job->fn(job->ctx, begin, end, worker);
        ran++;
    }
}

static int job_exhausted(pool_job *job) {
    return atomic_load_explicit(&job->claimed, memory_order_relaxed) >=
           job->nchunks;
}

static void *worker_main(void *argp) {
    worker_arg *arg = argp;
    cuzk_pool *pool = arg->pool;
    pthread_mutex_lock(&pool->mu);
    while (!pool->stop) {
        pool_job *job = pool->head;
        if (job == NULL) {
            pthread_cond_wait(&pool->work_cv, &pool->mu);
            continue;
        }
        if (job_exhausted(job)) {
            job_unlink(pool, job); /* nothing left to hand out */
            continue;
        }
        job->joined++;
        pthread_mutex_unlock(&pool->mu);
        size_t ran = job_run_chunks(job, arg->id);
        pthread_mutex_lock(&pool->mu);
        job->joined--;
        job->done += ran;
        job_unlink(pool, job);
        if (job->done == job->nchunks && job->joined == 0)
            pthread_cond_broadcast(&pool->done_cv);
    }
    pthread_mutex_unlock(&pool->mu);
    return NULL;
}

unsigned cuzk_pool_threads(const cuzk_pool *pool) {
    return pool ? pool->nthreads : 1;
}

static void pool_stop_workers(cuzk_pool *pool) {
    pthread_mutex_lock(&pool->mu);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->work_cv);
    pthread_mutex_unlock(&pool->mu);
    for (unsigned i = 0; i < pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pool->started = 0;
}

void cuzk_pool_destroy(cuzk_pool *pool) {
    if (pool == NULL)
        return;
    pool_stop_workers(pool);
    pthread_cond_destroy(&pool->work_cv);
    pthread_cond_destroy(&pool->done_cv);
    pthread_mutex_destroy(&pool->mu);
    free(pool->threads);
    free(pool->args);
    free(pool);
}

static unsigned online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

cuzk_pool *cuzk_pool_create(unsigned nthreads, cuzk_error *err) {
    if (nthreads == 0)
        nthreads = online_cpus();
    cuzk_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) {
        cuzk_fail(err, CUZK_ENOMEM, "thread pool: out of memory");
        return NULL;
    }
    pool->nthreads = nthreads;
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->work_cv, NULL);
    pthread_cond_init(&pool->done_cv, NULL);
    unsigned nworkers = nthreads - 1;
    if (nworkers == 0)
        return pool;
    pool->threads = calloc(nworkers, sizeof *pool->threads);
    pool->args = calloc(nworkers, sizeof *pool->args);
    if (pool->threads == NULL || pool->args == NULL) {
        cuzk_pool_destroy(pool);
        cuzk_fail(err, CUZK_ENOMEM, "thread pool: out of memory");
        return NULL;
    }
    for (unsigned i = 0; i < nworkers; i++) {
        pool->args[i].pool = pool;
        pool->args[i].id = i + 1; /* 0 is the caller of cuzk_pool_for */
        if (pthread_create(&pool->threads[i], NULL, worker_main,
                           &pool->args[i]) != 0) {
            cuzk_pool_destroy(pool);
            cuzk_fail(err, CUZK_EINTERNAL,
                      "thread pool: could not start worker %u of %u", i + 1,
                      nworkers);
            return NULL;
        }
        pool->started++;
    }
    return pool;
}

void cuzk_pool_for(cuzk_pool *pool, size_t n, size_t grain, cuzk_pool_fn fn,
                   void *ctx) {
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    if (pool == NULL || pool->nthreads <= 1 || n <= grain) {
        fn(ctx, 0, n, 0);
        return;
    }
    /* About 8 chunks per thread: enough to even out chunks of unequal cost,
     * few enough that the per-chunk call overhead stays negligible. */
    size_t target = (size_t)pool->nthreads * 8;
    size_t chunk = (n + target - 1) / target;
    if (chunk < grain)
        chunk = grain;
    pool_job job = {.fn = fn, .ctx = ctx, .n = n, .chunk = chunk};
    job.nchunks = (n + chunk - 1) / chunk;
    atomic_init(&job.claimed, 0);

    pthread_mutex_lock(&pool->mu);
    job_link(pool, &job);
    pthread_cond_broadcast(&pool->work_cv);
    pthread_mutex_unlock(&pool->mu);

    size_t ran = job_run_chunks(&job, 0);

    pthread_mutex_lock(&pool->mu);
    job.done += ran;
    job_unlink(pool, &job);
    while (job.done < job.nchunks || job.joined > 0)
        pthread_cond_wait(&pool->done_cv, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
}
