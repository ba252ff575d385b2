/*
 * The proving hot path allocates nothing per partition (docs/ENGINE.md).
 *
 * A CPU engine proves a warm-up job of 2K partitions (the key loads, the
 * workers' and the synthesis thread's scratch is sized from the buffer
 * pool, NTT domains are built, the pool grows to the partitions in
 * flight), then a job of K partitions and one of 2K.  Every allocation call (malloc, calloc,
 * realloc, posix_memalign, aligned_alloc, memalign) made on a device
 * worker thread is counted: the count over the 2K-partition job must not
 * exceed the count over the K-partition job, so partitions cost no
 * allocation there.  Synthesis threads still make a few small calls per
 * partition (the witness image's header, the public signals kept for the
 * result); what is checked there is the bytes: no partition may allocate
 * anything of a witness's size (evaluate's working copy comes from the
 * pool).  Worker
 * and synthesis threads are recognised by the engine's fault hook, which
 * runs on the worker before each device step (CUZK_FAULT_DEVICE) and on
 * the synthesis thread before each partition (CUZK_FAULT_SYNTHESIS); it
 * marks the thread in a thread-local flag.  The device has one thread, so
 * the prover's work runs on the worker thread itself and all of it is
 * seen.
 *
 * The allocation functions are defined here and forward to glibc's
 * (__libc_malloc and friends).  Under AddressSanitizer or ThreadSanitizer,
 * whose runtimes own malloc, they are not defined; the test then asserts
 * the same property through the engine's own pool counters instead: the
 * scratch the device holds (mem_scratch) does not change between the K and
 * the 2K job and is non-zero (the device took it from the pool), and the
 * buffer bytes mapped (mem_buffers) grow by no more than a scheduling
 * accident explains (one buffer, not a set per partition).  Those checks
 * run in every build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#include "test_engine_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNT_CALLS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define COUNT_CALLS 0
#endif
#endif
#ifndef COUNT_CALLS
#define COUNT_CALLS 1
#endif

enum { ROLE_NONE = 0, ROLE_WORKER, ROLE_SYNTH };
static _Thread_local int role;
static _Atomic uint64_t calls[3], bytes[3];

#if COUNT_CALLS
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);

static void counted_n(size_t n) {
    if (role) {
        atomic_fetch_add_explicit(&calls[role], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&bytes[role], n, memory_order_relaxed);
    }
}
#define counted() counted_n(n)

void *malloc(size_t n) {
    counted();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m) {
    counted_n(n * m);
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n) {
    counted();
    return __libc_realloc(p, n);
}

void free(void *p) { __libc_free(p); }

void *memalign(size_t a, size_t n) {
    counted();
    return __libc_memalign(a, n);
}

void *aligned_alloc(size_t a, size_t n) {
    counted();
    return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n) {
    counted();
    if (a < sizeof(void *) || (a & (a - 1)))
        return EINVAL;
    void *p = __libc_memalign(a, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
#endif

static void mark_hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    (void)ctx, (void)out;
    if (at->site == CUZK_FAULT_DEVICE)
        role = ROLE_WORKER;
    else if (at->site == CUZK_FAULT_SYNTHESIS)
        role = ROLE_SYNTH;
}

typedef struct run_counts {
    uint64_t worker, synth, synth_bytes, buffers, scratch;
} run_counts;

static run_counts run(cuzk_engine *e, const eu_circuit *c, size_t parts) {
    cuzk_error err = {0};
    run_counts r;
    uint64_t w0 = atomic_load(&calls[ROLE_WORKER]), s0 = atomic_load(&calls[ROLE_SYNTH]);
    uint64_t sb0 = atomic_load(&bytes[ROLE_SYNTH]);
    /* in-memory witnesses: reading .wtns files is I/O, not proving */
    cuzk_witness w[16];
    memset(w, 0, sizeof w);
    for (size_t i = 0; i < parts && i < 16; i++)
        w[i].data = c->wtns_mem, w[i].size = c->wtns_size;
    cuzk_submit_opts o = {.key = c->zkey, .witnesses = w, .n_witnesses = parts};
    cuzk_job *j = NULL;
    if (cuzk_submit(e, &j, NULL, &o, &err) != CUZK_OK)
        j = NULL;
    CHECK(j && cuzk_job_await(j, 300000, &err) == CUZK_OK, "job of %zu partitions: %s", parts,
          err.msg);
    CHECK(j && eu_verify_job(j, &c->vk) == parts, "job of %zu partitions does not verify", parts);
    if (j)
        cuzk_job_release(j);
    r.worker = atomic_load(&calls[ROLE_WORKER]) - w0;
    r.synth = atomic_load(&calls[ROLE_SYNTH]) - s0;
    r.synth_bytes = atomic_load(&bytes[ROLE_SYNTH]) - sb0;
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    r.buffers = st.mem_buffers;
    r.scratch = st.mem_scratch;
    return r;
}

static void no_allocation_per_partition(const eu_circuit *c, unsigned threads) {
    enum { K = 3 };
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.trace_events = 64;
    eu_testing.fault_fn = mark_hook;
    eu_cpu_device(&cfg, threads);
    /* one synthesis worker: each worker holds one evaluate buffer while it
     * runs, so the pool grows with the workers that ever overlapped, which
     * a warm-up of one partition cannot fix in advance */
    cfg.synth_workers = 1;
    cuzk_engine *e = eu_create(&cfg);
    /* warm-up: key, scratch, NTT domain, and the pool grown to as many
     * partitions in flight as the larger job has */
    run(e, c, 2 * K);
    run_counts a = run(e, c, K), b = run(e, c, 2 * K);
    if (COUNT_CALLS)
        printf("  %u thread(s): allocation calls on the device worker: %llu for %d partitions, "
               "%llu for %d; on synthesis: %llu, %llu (%llu, %llu bytes)\n",
               threads, (unsigned long long)a.worker, K, (unsigned long long)b.worker, 2 * K,
               (unsigned long long)a.synth, (unsigned long long)b.synth,
               (unsigned long long)a.synth_bytes, (unsigned long long)b.synth_bytes);
    printf("  %u thread(s): pool buffers %llu then %llu bytes, device scratch %llu then %llu\n",
           threads, (unsigned long long)a.buffers, (unsigned long long)b.buffers,
           (unsigned long long)a.scratch, (unsigned long long)b.scratch);
    if (COUNT_CALLS) {
        CHECK(b.worker <= a.worker,
              "%u thread(s): the device worker allocated %llu times for %d partitions and %llu "
              "for %d: allocation per partition",
              threads, (unsigned long long)a.worker, K, (unsigned long long)b.worker, 2 * K);
        /* a witness is 32 bytes per value: at least 32 * 2^9 here */
        uint64_t per_part = (b.synth_bytes - (b.synth_bytes < a.synth_bytes ? 0 : a.synth_bytes)) / K;
        CHECK(b.synth_bytes >= a.synth_bytes && per_part < 4096,
              "%u thread(s): synthesis allocated %llu bytes per partition (%llu for %d "
              "partitions, %llu for %d): a witness-sized allocation per partition",
              threads, (unsigned long long)per_part, (unsigned long long)a.synth_bytes, K,
              (unsigned long long)b.synth_bytes, 2 * K);
    }
    CHECK(a.scratch > 0 && a.scratch == b.scratch,
          "%u thread(s): device scratch from the pool %llu then %llu bytes", threads,
          (unsigned long long)a.scratch, (unsigned long long)b.scratch);
    /* The pool may still grow once in the larger job, when more partitions
     * happen to be in flight at once than in the warm-up (scheduling: seen
     * on a loaded 2-core VM, one 64 KiB buffer).  Buffers per partition
     * would add at least a buffer set (>= 2 x 64 KiB here) for each of the
     * K extra partitions, far above the bound. */
    CHECK(b.buffers >= a.buffers && b.buffers - a.buffers <= 2 * 65536,
          "%u thread(s): pool buffers grew from %llu to %llu bytes", threads,
          (unsigned long long)a.buffers, (unsigned long long)b.buffers);
    cuzk_engine_destroy(e, -1);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_alloc");
    char *dir = eu_tmpdir();
    eu_circuit bn, bls;
    eu_make(&bn, dir, "bn", CUZK_CURVE_BN254, 10, 7);
    eu_make(&bls, dir, "bls", CUZK_CURVE_BLS12_381, 9, 8);
    if (!COUNT_CALLS)
        printf("  sanitizer build: allocation calls not counted, pool counters checked\n");
    no_allocation_per_partition(&bn, 1);
    no_allocation_per_partition(&bls, 1);
    no_allocation_per_partition(&bn, 2);
    eu_free(&bn);
    eu_free(&bls);
    eu_rmdir(dir);
    return tu_finish();
}
