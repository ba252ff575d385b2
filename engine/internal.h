/*
 * Internal structures of the engine, shared by the files of engine/ only.
 * The public contract is include/cuzk.h; docs/ENGINE.md explains the design.
 *
 * Files: engine.c (the job API), job.c (a job's life and the job table,
 * below sched.c and stages.c), base.c (log, names, events, histogram
 * counts: used by all, uses none), sched.c (scheduler thread,
 * admission, deadlines, worker supervision), stages.c (synthesis, device
 * workers, finalizers, queues, device time accounting), keys.c (key
 * residency, housekeeper thread), memory.c (budget and buffer pool),
 * timeline.c (per-thread rings, Chrome trace), metrics.c (status, trace
 * and Prometheus read-outs), device_cpu.c / device_sim.c (devices), sbuf.c (text),
 * circuits.c (witness calculators of jobs that carry inputs, their loader
 * thread).
 *
 * Locks, and the rule each follows (the hot-path rules of docs/ENGINE.md).  No lock here is ever
 * held across slow work: verification, serialization, file or socket I/O,
 * logging, key loading, or returning memory to the OS.  Locks nest only in
 * this order: sched_lock -> keys_lock -> mem.lock; sched_lock -> keys_lock
 * -> circ_lock; jobs_lock -> job->lock; each queue lock and job->lock is a
 * leaf.
 *   ready.lock   the hot path: synthesis pushes, device workers pop and
 *                account device time.  Critical sections are O(ready_max)
 *                pointer work.
 *   done.lock    the hot path: workers push finished partitions, finalizers
 *                pop.  O(1).
 *   mem.lock     budget arithmetic and the buffer free lists.  O(1); mmap
 *                and munmap happen outside it.
 *   synq.lock    synthesis queue.  O(queue) pointer work.
 *   sched_lock   priority queues and deadlines; never taken by a worker.
 *   keys_lock    key table and residency states; never taken by a worker.
 *   jobs_lock    request-id table and retention; never taken by a worker.
 *   job->lock    one job's outcome and its waiters; never taken by a
 *                worker (workers read the job's atomics only).
 *   circ_lock    the circuit table and each circuit's load state and
 *                message; never held while compiling or loading a circuit,
 *                never taken by a synthesis or device worker (they read a
 *                loaded circuit through its atomic state).
 */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cuzk.h"
#include "cuzk_tools.h"
#include "cuzk_testing.h"
#include "groth16/prover/key.h"
#include "util/threadpool.h"
#include "witness/wc.h"

typedef struct cuzk_job engine_job; /* the public handle is the job */
typedef struct engine_part engine_part;
typedef struct engine_key engine_key;
typedef struct engine_device engine_device;
typedef struct engine_ring engine_ring;
typedef struct engine_circuit engine_circuit;

/* ---- wake-ups without a lock (base.c) ------------------------------------------
 * A generation counter on a futex.  A waiter reads the generation, checks
 * its conditions, and sleeps only if the generation is unchanged, so a kick
 * between the check and the sleep is never lost.  Kicking takes no lock,
 * which is why device workers may kick the scheduler on their hot path. */
typedef struct engine_event {
    _Atomic uint32_t gen;
    _Atomic uint32_t waiters; /* lets a kick skip the system call */
} engine_event;

uint32_t engine_event_seen(engine_event *ev);
void engine_event_kick(engine_event *ev);
void engine_event_wait(engine_event *ev, uint32_t seen, uint64_t timeout_ns);

/* ---- memory budget and buffer pool (memory.c) --------------------------------- */

typedef enum engine_mem_kind {
    MEM_KEYS = 0,
    MEM_BUFFERS, /* pool buffers, in use or idle */
    MEM_INTAKE,  /* copies of in-memory witnesses */
    MEM_OTHER,   /* timeline rings */
    MEM_PINNED,  /* GPU provers' page-locked host staging buffers */
    MEM_WITNESS, /* witness calculators' worker processes, as measured */
    MEM_KINDS
} engine_mem_kind;

/* Buffer sizes come in classes 2^k * {1, 1.25, 1.5, 1.75} (at least 64 KiB),
 * so keys of similar size share buffers and no class wastes more than 25%. */
#define ENGINE_BUF_CLASSES (4 * 48)

typedef struct engine_buf {
    void *p;
    size_t bytes; /* mapped size: the class size, charged to the budget */
    unsigned cls;
    struct engine_buf *next;
} engine_buf;

typedef struct engine_mem {
    pthread_mutex_t lock;
    pthread_cond_t cv; /* broadcast whenever charges drop */
    uint64_t budget, used, peak, intake_max;
    uint64_t by_kind[MEM_KINDS];
    uint64_t idle_bytes;
    uint64_t scratch_bytes; /* of the buffers in use, those devices hold as scratch */
    engine_buf *free_list[ENGINE_BUF_CLASSES];
} engine_mem;

cuzk_status engine_mem_init(engine_mem *m, uint64_t budget, uint64_t intake_max,
                            cuzk_error *err);
/* Unmaps every idle buffer; all buffers must have been returned. */
void engine_mem_destroy(engine_mem *m);
/* Budget when the config says auto. */
uint64_t engine_mem_auto_budget(uint64_t margin);
/* Charge |bytes| of |kind| if they fit (intake also within intake_max):
 * 1 if charged, 0 if not. */
int engine_mem_try_charge(engine_mem *m, engine_mem_kind kind, uint64_t bytes);
/* Charge |bytes| that are already in use, whether or not they fit (a
 * device's buffers that grew for a larger key): the total may then exceed
 * the budget, and other charges wait until it is below again. */
void engine_mem_charge_held(engine_mem *m, engine_mem_kind kind, uint64_t bytes);
void engine_mem_uncharge(engine_mem *m, engine_mem_kind kind, uint64_t bytes);
/* Wait up to |timeout_ns| for a charge to drop. */
void engine_mem_wait(engine_mem *m, uint64_t timeout_ns);
uint64_t engine_mem_room(engine_mem *m);
/* Size class of a request. */
size_t engine_buf_class_bytes(size_t bytes, unsigned *cls);
/* A buffer of at least |bytes|: from the free list, else newly mapped and
 * charged.  CUZK_EBUSY if it would exceed the budget, CUZK_ENOMEM if the
 * OS refuses. */
cuzk_status engine_buf_get(engine_mem *m, engine_buf **out, size_t bytes,
                           cuzk_error *err);
/* Back to the free list: O(1) under mem.lock, no system call. */
void engine_buf_put(engine_mem *m, engine_buf *b);
/* A device took (+) or gave back (-) |delta| bytes of pool buffers as its
 * workers' scratch: status only (the buffers are charged as buffers). */
void engine_mem_scratch(engine_mem *m, int64_t delta);
/* A pool buffer of at least |bytes| held as prover scratch (|what| names
 * it in the error), charged like any buffer and counted in scratch_bytes;
 * when the budget has no room, idle buffers are unmapped first.
 * CUZK_ENOMEM naming the sizes when it still does not fit: the caller's
 * step fails, nothing is allocated outside the budget.  Give it back with
 * engine_scratch_put. */
cuzk_status engine_scratch_get(engine_mem *m, engine_buf **out, size_t bytes, const char *what,
                               cuzk_error *err);
void engine_scratch_put(engine_mem *m, engine_buf *b);
/* Unmap idle buffers until |want| bytes were released (all if want is
 * UINT64_MAX); returns the bytes released.  Slow: never on the hot path. */
uint64_t engine_mem_trim(engine_mem *m, uint64_t want);
/* Anonymous mapping outside any heap, so that releasing it returns the
 * memory at once and no allocator trimming is ever needed. */
void *engine_map(size_t bytes);
void engine_unmap(void *p, size_t bytes);

/* ---- timeline (timeline.c) ---------------------------------------------------- */

typedef enum engine_span_kind {
    SPAN_QUEUE = 0, /* submit -> admitted */
    SPAN_SYNTH,
    SPAN_READY, /* synthesized -> taken by a device worker */
    SPAN_UPLOAD,
    SPAN_COMPUTE,
    SPAN_FETCH,
    SPAN_FINALIZE,
    SPAN_KEYLOAD,
    SPAN_WITNESS, /* inside SPAN_SYNTH: the witness computed from inputs */
    SPAN_CIRCUIT, /* a circuit compiled or loaded by the circuit loader */
    SPAN_KINDS
} engine_span_kind;

typedef struct engine_timeline {
    pthread_mutex_t lock; /* ring registration and export only */
    engine_ring **rings;
    unsigned n_rings, cap_rings;
    unsigned events; /* per ring, a power of two */
    uint64_t start_ns;
} engine_timeline;

cuzk_status engine_timeline_init(engine_timeline *tl, unsigned events,
                                 uint64_t start_ns, cuzk_error *err);
void engine_timeline_destroy(engine_timeline *tl);
/* A ring for one thread (its only writer); lives until the timeline is
 * destroyed.  Returns NULL if out of memory (events are then dropped). */
engine_ring *engine_ring_new(engine_timeline *tl, const char *name);
/* Record one span; lock-free, wait-free, no allocation.  |ring| may be
 * NULL.  |dev| < 0: not a device step. */
void engine_ring_span(engine_ring *ring, engine_span_kind kind, uint64_t t0_ns,
                      uint64_t t1_ns, uint64_t job, uint32_t part, int dev);
size_t engine_ring_bytes(unsigned events);
/* Chrome trace JSON of the spans overlapping [from, to] (to 0: no end). */
cuzk_status engine_timeline_chrome(engine_timeline *tl, char **out, size_t *len,
                                   uint64_t from_ns, uint64_t to_ns,
                                   const char *const *dev_names, unsigned n_devs,
                                   cuzk_error *err);

/* ---- text buffers (sbuf.c) ------------------------------------------------------ */

typedef struct engine_sbuf {
    char *p;
    size_t len, cap;
    int oom;
} engine_sbuf;

void engine_sbuf_printf(engine_sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends |s| as the inside of a JSON string (escapes quotes, controls). */
void engine_sbuf_json_str(engine_sbuf *b, const char *s);
/* Appends |s| escaped as a Prometheus label value. */
void engine_sbuf_prom_label(engine_sbuf *b, const char *s);
/* Hands the text over (NUL terminated) or frees it on OOM. */
cuzk_status engine_sbuf_finish(engine_sbuf *b, char **out, size_t *len, cuzk_error *err);

/* ---- histograms (counted in base.c, rendered in metrics.c) ---------------------- */

#define ENGINE_HIST_BUCKETS 17 /* finite bounds; +Inf is the count */

typedef enum engine_hist_id {
    HIST_QUEUE = 0,
    HIST_SYNTH,
    HIST_WITNESS, /* witness calculation from inputs (part of synthesis) */
    HIST_READY,
    HIST_DEVICE,
    HIST_FINALIZE,
    HIST_PARTITION,
    HIST_JOB,
    HIST_COUNT
} engine_hist_id;

typedef struct engine_hist {
    _Atomic uint64_t bucket[ENGINE_HIST_BUCKETS]; /* not cumulative */
    _Atomic uint64_t count, sum_ns;
} engine_hist;

void engine_hist_add(engine_hist *h, uint64_t ns);
/* Upper bounds of the finite buckets, in seconds. */
extern const double engine_hist_bounds_s[ENGINE_HIST_BUCKETS];

/* ---- keys (keys.c) ----------------------------------------------------------------- */

typedef enum engine_key_state {
    KEY_DISK = 0,
    KEY_LOAD_QUEUED,
    KEY_LOADING,
    KEY_RESIDENT,
    KEY_FAILED
} engine_key_state;

struct engine_key {
    char id[CUZK_ID_MAX + 1];
    char *path;
    /* keys_lock */
    engine_key_state state;
    int preloaded;
    /* A key made in memory (cuzk_engine_key_generate): the generator's
     * parameters, which make it again byte for byte if it is evicted, and
     * the witness image of the circuit's first generation until the caller
     * takes it. */
    cuzk_synth_params *gen;
    int gen_timing;
    uint8_t *gen_wtns;
    size_t gen_wtns_size;
    uint32_t wanted; /* queued jobs waiting for this key */
    uint64_t last_used_ns;
    uint64_t charged; /* bytes charged to the budget for |key| */
    cuzk_status load_status;
    char load_msg[CUZK_ERROR_MSG_BYTES];
    engine_key *next, *load_next;
    /* Callers between resolving the key and being done with it, and jobs
     * that point at it: while non-zero the entry is never removed
     * (cuzk_engine_key_forget). */
    uint32_t holders;
    /* The circuit registered with the key (cuzk_engine_circuit_register),
     * or NULL; set once, never changed. */
    engine_circuit *circuit;
    /* Valid while RESIDENT; read without a lock by stages holding a pin. */
    cuzk_key key;
    cuzk_vk vk;
    size_t witness_bytes, abc_bytes; /* buffers a partition needs */
    unsigned log_n;
    int images_only; /* no A and B coefficients: a, b, c images only (known once loaded) */
    /* Partitions in flight: incremented only under keys_lock (and only
     * while RESIDENT), decremented anywhere, so eviction (which checks it
     * under keys_lock) never frees a key in use. */
    _Atomic uint32_t pins;
    _Atomic uint64_t proofs, failures;
};

/* Find key |id| or register the .zkey at |path|, and hold it: the entry
 * stays until engine_key_release.  CUZK_ENOTFOUND if |id| is unknown and
 * no file. */
cuzk_status engine_key_resolve(cuzk_engine *e, engine_key **out, const char *ref,
                               cuzk_error *err);
/* Take / drop a hold on |k| (see engine_key.holders); no lock held. */
void engine_key_hold(cuzk_engine *e, engine_key *k);
void engine_key_release(cuzk_engine *e, engine_key *k);
/* keys_lock held: queue a load unless loading or resident. */
void engine_key_request_load_locked(cuzk_engine *e, engine_key *k);
/* Release memory until |need| bytes of budget are free: idle buffers
 * first, then least recently used keys that are not in use (|keep| is
 * never evicted).  Returns 1 if the room is there.  Slow; no lock held. */
int engine_make_room(cuzk_engine *e, uint64_t need, engine_key *keep);
void *engine_housekeeper_main(void *arg);
void engine_keys_destroy(cuzk_engine *e);
void engine_key_unpin(cuzk_engine *e, engine_key *k);

/* ---- devices (device_cpu.c, device_sim.c) ------------------------------------------- */

/* One partition's work for a device. */
typedef struct engine_dev_item {
    const cuzk_key *key;
    const cuzk_fr *witness; /* n_vars plain values */
    cuzk_fr *abc;           /* a | b | c, n each, Montgomery; consumed */
    cuzk_proof proof;       /* out */
    cuzk_status status;     /* out */
    cuzk_error err;         /* out */
    void *dev_prover, *dev_key; /* the device's own, from upload to run */
    int abc_ready;              /* synthesis evaluated a, b, c into |abc| */
    cuzk_step_timing steps;     /* out: the step's figures, where measured */
} engine_dev_item;

/*
 * A device: what the engine needs from a prover that runs H and the MSMs.
 * Every op gets the device's state; ops may be called by several workers
 * of the same device at once and must then serialize internally what the
 * hardware serializes.  upload and fetch may be NULL (nothing to move).
 * run sets status/err of each item and must not block on engine locks.
 */
typedef struct engine_device_ops {
    const char *kind;
    int simulated; /* a test double: results are not proofs */
    /* Evaluates a, b, c itself (faster than the CPU: GPUs), so synthesis
     * may leave them out when every proving device does. */
    int self_evaluates;
    cuzk_status (*open)(engine_device *d, cuzk_error *err);
    void (*close)(engine_device *d);
    cuzk_status (*upload)(engine_device *d, engine_dev_item *it, cuzk_error *err);
    void (*run)(engine_device *d, engine_dev_item **items, size_t n);
    cuzk_status (*fetch)(engine_device *d, engine_dev_item *it, cuzk_error *err);
    /* After a worker died: bring the device back to a usable state. */
    cuzk_status (*reset)(engine_device *d, cuzk_error *err);
    /* Optional: the engine is about to free |key| (no partition uses it):
     * drop any copy of it the device holds.  May be called after close. */
    void (*key_release)(engine_device *d, const cuzk_key *key);
    /* Optional: |key| was just loaded (and stays at this address until
     * key_release): copy it to the device ahead of its first partition.
     * Failure is not an error (upload tries again). */
    void (*key_prepare)(engine_device *d, const cuzk_key *key);
    /* Optional: device memory held for keys, and how many keys. */
    void (*stats)(engine_device *d, uint64_t *mem_bytes, unsigned *keys);
    /* Optional, for devices with memory of their own (key affinity):
     * whether |key| is resident there now (a hint: called with the ready
     * lock held, so it must not block), and the free memory, which picks
     * the device a newly loaded key is prepared on. */
    int (*holds_key)(engine_device *d, const cuzk_key *key);
    uint64_t (*free_bytes)(engine_device *d);
    /* Optional: the tier of |key| on this device (CUZK_TIER_DEVICE or
     * CUZK_TIER_PINNED) and why, or -1 when the device does not hold it.
     * Takes the device's own lock only. */
    int (*key_tier)(engine_device *d, const cuzk_key *key, char *why, size_t why_len);
    /* Optional: the most device memory in use at once so far. */
    uint64_t (*mem_peak)(engine_device *d);
    /* Optional: |key| was just loaded: size the workers' host scratch for
     * it from the engine's buffer pool (d->mem), so that its partitions
     * allocate nothing.  Called on every device, on the loader thread,
     * before the key is announced; key_release gives it back. */
    void (*scratch_prepare)(engine_device *d, const cuzk_key *key);
} engine_device_ops;

extern const engine_device_ops engine_device_cpu_ops;
extern const engine_device_ops engine_device_sim_ops;
extern const engine_device_ops engine_device_gpu_ops;

/* What a device is doing.  Idle with nothing it could take is split by
 * why: partitions are admitted and queued for or in synthesis (synthesis
 * is behind the device), or nothing is admitted at all (no work). */
typedef enum engine_acct_state {
    ACCT_BUSY = 0,
    ACCT_STARVED_SYNTH,
    ACCT_STARVED_IDLE,
    ACCT_IDLE_WITH_WORK,
    ACCT_STATES
} engine_acct_state;

typedef struct engine_worker {
    cuzk_engine *e;
    engine_device *dev;
    unsigned slot;
    pthread_t thread;
    int started;            /* sched thread / create-destroy only */
    _Atomic int dead;       /* set by a worker that exited abnormally */
    engine_ring *ring;
} engine_worker;

struct engine_device {
    int index;
    char name[16];
    cuzk_device_config cfg;
    cuzk_sim_device sim; /* a simulated device's step times */
    int fallback_only;
    const engine_device_ops *ops;
    void *state;
    engine_mem *mem; /* the engine's budget and buffer pool */
    int has_upload, has_fetch;
    unsigned n_workers;
    unsigned batch_max; /* partitions per device step (the engine's) */
    int self_evaluates; /* ops->self_evaluates, or a simulated device told to */
    engine_worker *workers;
    _Atomic unsigned alive;
    _Atomic uint64_t proofs, failures;
    /* Device time accounting, all under ready.lock (stages.c). */
    unsigned running; /* workers inside run() */
    unsigned staged;  /* workers holding items not yet running */
    engine_acct_state acct_state;
    uint64_t acct_last_ns;
    uint64_t acct_ns[ACCT_STATES];
};

/* ---- partitions and jobs (job.c) -------------------------------------------------- */

typedef enum engine_part_time {
    PT_QUEUED = 0,
    PT_SYNTH_START,
    PT_SYNTH_END,
    PT_DEV_START,
    PT_DEV_END,
    PT_FIN_START,
    PT_FIN_END,
    PT_COUNT
} engine_part_time;

/* A partition's input: a .wtns witness (file or bytes), an a, b, c image
 * (groth16/formats/abc.h, told by its magic; kept until the partition
 * drains, since a retry converts it again), or circom inputs. */
typedef enum engine_input_kind {
    INPUT_WITNESS,
    INPUT_IMAGE,
    INPUT_CIRCOM,
} engine_input_kind;

struct engine_part {
    engine_job *job;
    uint32_t index;
    /* Read by status queries at any time, hence atomic. */
    _Atomic int stage;
    _Atomic int status;
    _Atomic unsigned attempts;
    _Atomic int device;
    _Atomic uint64_t t[PT_COUNT];
    _Atomic uint64_t witness_ns; /* witness calculation, 0 without inputs */
    /* What the source is, decided once when the job is built (engine.c)
     * and never sniffed again: synthesis runs the kind's own function
     * (stages.c). */
    engine_input_kind kind;
    /* Witness source, until synthesis has copied it.  With INPUT_CIRCOM the
     * source is input.json text in |intake| (|size| bytes), from which
     * synthesis computes the witness with the job's circuit. */
    char *path;
    const void *data;
    size_t size;
    void (*release)(void *ctx, const void *data);
    void *release_ctx;
    void *intake; /* our copy of |data| (engine_map), or NULL */
    size_t intake_bytes;
    /* Pipeline fields: owned by whichever stage holds the partition; the
     * queue locks hand them over. */
    engine_part *qnext, *qprev;
    uint64_t qseq;
    int prio;
    engine_buf *wbuf, *abcbuf;
    int have_witness; /* wbuf holds the witness and |pub| is set */
    int abc_ready;    /* abcbuf holds a, b, c */
    int avoid_dev;    /* retry elsewhere than this device; -1 none */
    int pinned;
    int admitted; /* counted in in_flight (holds buffers, a pin) */
    int skip;     /* stopped at a stage boundary; err says why */
    int simulated; /* made by a simulated device: no proof */
    cuzk_error err; /* the failure carried to the finalizer */
    cuzk_proof proof;
    /* Results: written before stage becomes DONE (release store). */
    cuzk_fr *pub;
    size_t n_pub;
    char *proof_json, *public_json;
    /* Step figures: evaluate by synthesis, the rest by the device step
     * (hand_off); read by status queries once the stage is DONE. */
    cuzk_step_timing steps;
};

struct cuzk_job {
    _Atomic uint32_t refs; /* handles + the table + the pipeline */
    cuzk_engine *e;        /* not used once the job is drained */
    uint64_t id;
    char request_id[CUZK_ID_MAX + 1];
    char key_id[CUZK_ID_MAX + 1];
    engine_key *key;
    int key_held; /* holds |key| (engine_key.holders) until drained */
    /* The circuit that computes witnesses of partitions with inputs; NULL
     * when none has inputs.  Held by the job until it is drained. */
    engine_circuit *circuit;
    int prio;
    uint64_t submit_ns, deadline_ns;
    /* The caller's digest of what the job proves (cuzk_submit_opts.digest),
     * when it gave one with its request id: a submit attaching with a
     * digest must carry the same. */
    uint8_t digest[32];
    int has_digest;
    /* cuzk_submit_opts.on_end: called once, by engine_job_end */
    void (*on_end)(void *ctx, cuzk_job *job);
    void *on_end_ctx;
    uint32_t n_parts;
    engine_part *parts;
    _Atomic int state;            /* cuzk_job_state */
    _Atomic int stop;             /* outcome is not DONE: stop the rest */
    _Atomic int simulated;
    _Atomic uint32_t parts_ok, parts_failed;
    _Atomic uint32_t undrained;   /* partitions not yet terminal */
    _Atomic uint64_t end_ns;
    /* job->lock: outcome detail and waiters. */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    cuzk_status status;
    char msg[CUZK_ERROR_MSG_BYTES];
    /* job->lock: the circuit's log() lines, the first ones kept, each ended
     * by '\n' (at most wc_log_lines of them, CUZK_CIRCUIT_LOG_BYTES in all);
     * the rest only counted.  A circuit's output is data of its job. */
    char *clog;
    size_t clog_len, clog_cap;
    uint32_t clog_lines;
    uint64_t clog_dropped;
    /* sched_lock */
    uint32_t next_dispatch;
    engine_job *sq_next, *sq_prev;
    int in_sched, in_deadline, key_wanted;
    engine_job *dl_next, *dl_prev;
    /* jobs_lock */
    engine_job *tbl_next, *ret_next, *ret_prev, *act_next, *act_prev;
    int in_table, in_retained, drained;
};

/* ---- queues of partitions (stages.c) --------------------------------------------- */

/* Ordered by priority (high first), then admission order. */
typedef struct engine_pq {
    engine_part *head, *tail;
    uint32_t n;
} engine_pq;

void engine_pq_insert(engine_pq *q, engine_part *p);
void engine_pq_remove(engine_pq *q, engine_part *p);

typedef struct engine_queue {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    engine_pq q;
    int shutdown;
} engine_queue;

/* A synthesis or finalizer thread.  A synthesis thread keeps one witness
 * calculator instance per circuit it has used (|wc|, indexed by the
 * circuit's |idx|), made on first use, reused for every later witness,
 * and freed when the engine is destroyed; only its own thread touches
 * them. */
typedef struct engine_thread {
    cuzk_engine *e;
    unsigned idx;
    pthread_t thread;
    int started;
    engine_ring *ring;
    cuzk_wc **wc;
    unsigned n_wc;
    engine_job *log_job; /* whose calculation runs now: its log() lines go there */
    uint64_t *wc_charged; /* per wc[i]: its worker's memory charged (MEM_WITNESS) */
    /* synthesis threads: evaluate's working memory, a pool buffer kept
     * between partitions (grown for a larger key, shown as scratch) and
     * given back when the thread ends */
    engine_buf *eval_scratch;
} engine_thread;

/* ---- circuits (circuits.c) ---------------------------------------------------------- */

typedef enum engine_circuit_state {
    CIRC_NEW = 0,     /* not loaded; nothing asked for it yet */
    CIRC_QUEUED,      /* waiting for the circuit loader */
    CIRC_LOADING,     /* being compiled or loaded (loader or a register call) */
    CIRC_READY,       /* |wc| is valid from now while the circuit is held */
    CIRC_FAILED       /* the last load failed: load_status, load_msg */
} engine_circuit_state;

struct engine_circuit {
    char *path;   /* real path of the .wasm; the circuit's identity */
    unsigned idx; /* 0, 1, 2, ... in order of registration */
    /* Written under circ_lock; read without it by the scheduler and by
     * synthesis (acquire), which then may use |wc|, |curve|, |n_witness|. */
    _Atomic int state;
    cuzk_wc_circuit *wc;
    uint64_t wc_charged; /* its look-up worker's memory charged (MEM_WITNESS) */
    cuzk_curve curve;
    uint32_t n_witness;
    /* circ_lock */
    cuzk_status load_status;
    char load_msg[CUZK_ERROR_MSG_BYTES];
    engine_circuit *next, *load_next;
    /* Holds: the key it is bound to, each job that points at it (until
     * drained), the loader while it loads it, each caller between
     * resolving it and releasing it.  One with none is removed when its
     * load failed or a key refused it (engine_circuit_release). */
    uint32_t holders;
};

/* The circuit whose .wasm is at |path|: found, or registered (not loaded),
 * held for the caller (engine_circuit_release).  With |queue| a circuit
 * not loaded (or whose last load failed) is queued for the circuit loader.
 * CUZK_ENOTFOUND (no such file), CUZK_ENOMEM. */
cuzk_status engine_circuit_resolve(cuzk_engine *e, engine_circuit **out, const char *path,
                                   int queue, cuzk_error *err);
/* One more hold on |c| (a job of the key it is bound to). */
void engine_circuit_hold(cuzk_engine *e, engine_circuit *c);
/* Drop a hold on |c| (NULL: nothing).  The last hold of a circuit whose
 * load failed, or that a key refused (|refused|), removes it: no entry,
 * no look-up worker, nothing charged.  Others stay loaded for later
 * jobs.  Takes circ_lock. */
void engine_circuit_release(cuzk_engine *e, engine_circuit *c, int refused);
/* (fit.c) Whether circuit |c| (READY) fits key |key_id| (of |curve|,
 * |n_vars| wires): CUZK_OK, CUZK_ECURVE or CUZK_EMISMATCH with the reason
 * in |err|. */
cuzk_status engine_circuit_check(const engine_circuit *c, const char *key_id, cuzk_curve curve,
                                 uint64_t n_vars, cuzk_error *err);
/* (fit.c) The last component of |path|, as messages name a file. */
const char *engine_path_base(const char *path);

/* ---- a job's inputs (inputs.c) ------------------------------------------------------ */

/* cuzk_submit's rules for its options alone (no file, key or circuit). */
cuzk_status engine_opts_check(const cuzk_submit_opts *o, cuzk_error *err);
/* Whether any partition of |o| carries inputs (needs a circuit). */
int engine_opts_have_inputs(const cuzk_submit_opts *o);
/* The circuit of a job with inputs: the one named, else the key's, held
 * for the caller (engine_circuit_release).  With |queue| one not loaded
 * yet is queued for the circuit loader (a submit: the scheduler holds the
 * job back until it is loaded); without, nothing is loaded (a check). */
cuzk_status engine_job_circuit(cuzk_engine *e, engine_key *k, const cuzk_submit_opts *o,
                               int queue, engine_circuit **out, cuzk_error *err);
/* A witness of |curve| with |n_values| values against a key of |key_curve|
 * with |key_vars| wires: CUZK_OK, CUZK_ECURVE or CUZK_EMISMATCH. */
/* The refusal of a witness or inputs for a key without A and B
 * coefficients (it proves a, b, c images only): CUZK_EUNSUPPORTED. */
cuzk_status engine_images_only(const char *key_id, cuzk_error *err);
cuzk_status engine_witness_fits(cuzk_curve key_curve, uint64_t key_vars, cuzk_curve curve,
                                uint64_t n_values, cuzk_error *err);
/* Parse circom inputs for circuit |c|, refusing text with far more values
 * than it has input signals before parsing it, and inputs that leave a
 * signal unset.  *out NULL on failure. */
cuzk_status engine_input_parse(cuzk_wc_input **out, const cuzk_wc_circuit *c, const char *text,
                               size_t len, cuzk_error *err);
/* circ_lock is taken: copy the last load error of |c|. */
cuzk_status engine_circuit_failure(cuzk_engine *e, engine_circuit *c, cuzk_error *err);
void *engine_circuit_loader_main(void *arg);
/* Measure every loaded circuit's look-up worker again and charge what it
 * holds now (it may have been started, or have died with the thread that
 * started it, since): the loader does, every second it has nothing to
 * load.  Takes circ_lock, never while measuring. */
void engine_circuits_measure(cuzk_engine *e);
/* How many circuits are loaded (circ_lock, no I/O). */
unsigned engine_circuits_loaded(cuzk_engine *e);
/* Frees every circuit; every instance must have been freed. */
void engine_circuits_destroy(cuzk_engine *e);
/* Frees the instances a synthesis thread made. */
void engine_thread_free_wc(engine_thread *th);

/* ---- the engine -------------------------------------------------------------------- */

struct cuzk_engine {
    cuzk_engine_config cfg;
    cuzk_testing testing; /* the config's test hooks, copied (zero: none) */
    uint64_t start_ns;
    /* Every proving device evaluates a, b, c itself: synthesis only loads
     * and range-checks the witness (a CPU fallback evaluates on retry). */
    int synth_skips_eval;
    _Atomic int closing;
    /* Circuit compiles, loads and look-ups end now, and new ones are
     * refused (cuzk_engine_circuits_stop): a daemon at its drain's end. */
    _Atomic int circ_stop_all;
    engine_mem mem;
    engine_timeline tl;
    engine_hist hist[HIST_COUNT];

    _Atomic uint64_t n_done, n_failed, n_cancelled, n_expired, n_proofs, n_retries,
        n_restarts, next_job_id, next_seq;
    _Atomic uint32_t in_stage[CUZK_STAGE_COUNT];
    _Atomic uint32_t in_flight;  /* admitted, not yet terminal */
    _Atomic uint32_t pre_device; /* admitted, not yet taken by a device */
    _Atomic uint32_t loads_pending; /* key loads queued or running */

    /* Jobs by request id (jobs_lock). */
    pthread_mutex_t jobs_lock;
    pthread_cond_t jobs_cv; /* broadcast when a job drains */
    engine_job **table;
    size_t table_size;
    uint32_t n_active, n_retained;
    engine_job *ret_head, *ret_tail; /* drained jobs still in the table */
    engine_job *act_head;            /* jobs not yet drained */

    /* Scheduler (sched_lock). */
    pthread_mutex_t sched_lock;
    engine_event sched_ev;
    engine_job *sq_head[4], *sq_tail[4];
    uint32_t sq_n[4];
    engine_job *dl_head;
    pthread_t sched_thread;
    int sched_started;
    _Atomic int sched_stop;
    engine_ring *sched_ring;

    /* Keys (keys_lock). */
    pthread_mutex_t keys_lock;
    pthread_cond_t keys_cv; /* housekeeper wake-up and load completion */
    engine_key *keys;
    engine_key *load_head, *load_tail;
    pthread_t hk_thread;
    int hk_started;
    _Atomic int hk_stop;
    engine_ring *hk_ring;

    /* Pipeline. */
    engine_queue synq;
    cuzk_pool *synth_pool;
    engine_thread *synth;
    unsigned n_synth;

    engine_queue ready; /* also guards the devices' accounting */
    unsigned n_devices;
    engine_device devices[CUZK_MAX_DEVICES];
    unsigned ready_max, batch_max;

    pthread_mutex_t done_lock;
    pthread_cond_t done_cv;
    engine_part *done_head, *done_tail;
    uint32_t done_n;
    int done_shutdown;
    engine_thread *fin;
    unsigned n_fin;
    /* Partitions admitted and not yet ready: queued for or in synthesis,
     * and those of them that are retries (only retries feed a fallback
     * device).  ready.lock, so that the device accounting can tell
     * "synthesis is behind" from "no work". */
    uint32_t synth_n, synth_retry_n;

    /* Circuits (circ_lock) and their loader thread. */
    pthread_mutex_t circ_lock;
    pthread_cond_t circ_cv; /* loader wake-up and load completion */
    engine_circuit *circuits, *circ_load_head, *circ_load_tail;
    unsigned n_circuits;
    char *wc_cache_dir; /* our copy of cfg.wc_cache_dir */
    pthread_t circ_thread;
    int circ_started;
    _Atomic int circ_stop;
    engine_ring *circ_ring;
};

/* base.c: used by every file of engine/, uses none of them */
void engine_log(cuzk_engine *e, cuzk_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void engine_sleep_ms(uint32_t ms);

/* job.c: a job's life, below sched.c and stages.c */
/* The job table (jobs_lock held): find by request id, insert, and remove
 * (with its retention; the caller drops the table's reference after
 * unlocking). */
engine_job *engine_table_find(cuzk_engine *e, const char *id);
void engine_table_insert(cuzk_engine *e, engine_job *j);
void engine_table_unlink(cuzk_engine *e, engine_job *j);
/* Frees a job nobody refers to any more (engine_job_unref's last step). */
void engine_job_free(engine_job *j);
/* Move |p| to |stage| (keeps the per-stage counts). */
void engine_part_stage(cuzk_engine *e, engine_part *p, cuzk_stage stage);
/* Decide the job's outcome if not yet decided (first caller wins); wakes
 * waiters, logs the job line, stops the remaining partitions.  No lock may
 * be held by the caller.  Returns 1 if this call decided it. */
int engine_job_end(cuzk_engine *e, engine_job *j, cuzk_job_state state,
                   cuzk_status status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A partition became terminal: returns its resources; drains the job when
 * it was the last.  No lock may be held by the caller. */
void engine_part_drain(cuzk_engine *e, engine_part *p);
/* Give back the partition's witness source (copy or caller's buffer). */
void engine_part_release_source(cuzk_engine *e, engine_part *p);
/* Keep |line| (may be NULL) of |j|'s circuit with the job, and count
 * |dropped| more lines not shown (job.c). */
/* Charge (or give back) the change from |*charged| to |now| bytes of a
 * witness worker's memory; |*charged| becomes |now| (circuits.c). */
void engine_wc_charge(cuzk_engine *e, uint64_t *charged, uint64_t now);
void engine_job_circuit_log(cuzk_engine *e, engine_job *j, const char *line, uint64_t dropped);
/* The witness calculator options of the engine's configuration
 * (circuits.c). */
void engine_wc_opts(const cuzk_engine *e, cuzk_wc_opts *o);
/* Job stopped or past its deadline?  Returns 1 if |p| must not continue,
 * with p->skip set and p->err saying why.  With |may_end| a passed deadline
 * also ends the job now (which logs); device workers pass 0 and leave that
 * to the finalizer. */
int engine_part_should_stop(cuzk_engine *e, engine_part *p, uint64_t now, int may_end);
void engine_job_unref(engine_job *j);
/* Ask the fault hook; returns its action (NONE without a hook). */
cuzk_fault_action engine_fault(cuzk_engine *e, cuzk_fault_site site,
                               engine_part *p, int dev, cuzk_fault *f);

/* sched.c */
void *engine_sched_main(void *arg);

/* schedq.c: the scheduler's queues.  Add a new job to its priority queue
 * (and the deadline list); take a job out of both (a drained job); take
 * it out of its priority queue, sched_lock held. */
void engine_sched_enqueue(cuzk_engine *e, engine_job *j);
void engine_sched_forget(cuzk_engine *e, engine_job *j);
void engine_schedq_unlink_locked(cuzk_engine *e, engine_job *j);

/* stages.c */
void *engine_synth_main(void *arg);
void *engine_worker_main(void *arg);
void *engine_final_main(void *arg);
void engine_synq_push(cuzk_engine *e, engine_part *p);
/* |p| is admitted to (or sent back to) synthesis: counted for the device
 * accounting until it is ready or leaves the pipeline.  Takes ready.lock. */
void engine_synth_enter(cuzk_engine *e, engine_part *p);
void engine_done_push(cuzk_engine *e, engine_part *p);
/* Under ready.lock: bring every device's accounting up to now. */
void engine_acct_update_locked(cuzk_engine *e, uint64_t now);
cuzk_status engine_worker_start(engine_worker *w, cuzk_error *err);
/* The one log line of a partition that reached terminal |stage|. */
void engine_log_partition(cuzk_engine *e, engine_part *p, cuzk_stage stage);

/* metrics.c */
cuzk_status engine_metrics_text(cuzk_engine *e, char **out, size_t *len, cuzk_error *err);

#endif
